# Attention forward, O = softmax(Q K^T * scale) V, one program per BLOCK_M query rows of
# one (batch, head): the keys and values stream through in blocks of BLOCK_N with the
# running row maximum and row sum of the online softmax, so the N_CTX x N_CTX scores never
# exist. exp2 with log2(e) folded into the scale; P goes to the second dot in fp16.
# CAUSAL masks keys after the query (the diagonal block is the last one visited).
# Also writes the log-sum-exp of each row (base 2), what a backward pass needs.
# Q, K, V, O are [Z * H, N_CTX, HEAD_DIM] fp16, contiguous; N_CTX a multiple of BLOCK_M
# and BLOCK_N.
# tilec: -k attention_fwd -s "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32:16, 128, 64, 64, False" --config 0
# tilec: -k attention_fwd -s "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32:16, 128, 64, 64, True" --config 0
import torch

import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({}, num_warps=4, num_stages=2)], key=["N_CTX"])
@triton.jit
def attention_fwd(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, scale, N_CTX,  #
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0) * BLOCK_M
    head = tl.program_id(1)
    base = head.to(tl.int64) * N_CTX * HEAD_DIM
    rows = start_m + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    dims = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :])
    # keys as they lie, [BLOCK_N, HEAD_DIM]; the dot takes their transpose
    k_ptrs = k_ptr + base + cols[:, None] * HEAD_DIM + dims[None, :]
    v_ptrs = v_ptr + base + cols[:, None] * HEAD_DIM + dims[None, :]
    qk_scale = scale * 1.4426950408889634  # log2(e): exp(x) = exp2(x * log2(e))
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    end = start_m + BLOCK_M if CAUSAL else N_CTX
    for start_n in range(0, end, BLOCK_N):
        k = tl.load(k_ptrs + start_n * HEAD_DIM)
        s = tl.dot(q, k.T) * qk_scale
        if CAUSAL:
            s = tl.where(rows[:, None] >= start_n + cols[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptrs + start_n * HEAD_DIM)
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :], acc.to(tl.float16))
    tl.store(lse_ptr + head * N_CTX + rows, m_i + tl.math.log2(l_i))


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False) -> torch.Tensor:
    Z, H, N, D = q.shape
    o = torch.empty_like(q)
    lse = torch.empty((Z * H, N), device=q.device, dtype=torch.float32)
    grid = (triton.cdiv(N, 128), Z * H)
    attention_fwd[grid](q, k, v, o, lse, D**-0.5, N, BLOCK_M=128, BLOCK_N=64, HEAD_DIM=D, CAUSAL=causal)
    return o


if __name__ == "__main__":
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 4, 1024, 64, device="cuda", dtype=torch.float16) for _ in range(3))
    for causal in (False, True):
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        print(f"causal={causal} max err: {(attention(q, k, v, causal) - ref).abs().max().item():.3e}")
