# tl.dot runs on FMAs for every operand type but fp8, which waits for tensor cores.
# ARGS: -s "*fp8e4nv:16, *fp8e4nv:16, *fp32:16, i32, 32" --emit=ptx --arch sm_90a
import triton
import triton.language as tl


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, k_tiles, B: tl.constexpr):
    r = tl.arange(0, B)
    acc = tl.zeros((B, B), dtype=tl.float32)
    for k in range(k_tiles):
        a = tl.load(a_ptr + r[:, None] * B + r[None, :] + k * B * B)
        b = tl.load(b_ptr + r[:, None] * B + r[None, :] + k * B * B)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + r[:, None] * B + r[None, :], acc)
