# Pipelined loops that run zero, one, two or more times, at every stage
# count: a split-K dot (two K loops in a row, as attention's off-band and
# on-band stages, either of which may be empty) and a loop without a dot
# whose fp32 loads go ahead (tl.range(num_stages=)). tests/emu/test_trips.c
# runs both on the emulator for every trip count, against C references
# and with its race check, which a copy issued and not drained fails.
# RUN: %tilec compile %s -k split_dot -s "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, 64, 16, 32, 3" --emit=ptx | FileCheck %s --check-prefix=DOT
# RUN: %tilec compile %s -k split_dot -s "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, 64, 16, 32, 4" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k split_sum -s "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32, 256, 3" --emit=ptx | FileCheck %s --check-prefix=SUM
# RUN: %tilec compile %s -k split_sum -s "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32, 256, 2" --emit=ptx | %ptxas_check
# i64 bounds (a linear-attention kernel's strides): the look-ahead is computed in the induction variable's type
# RUN: %tilec compile %s -k split_dot -s "*fp16:16, *fp16:16, *fp32:16, i64, i64, i32, 64, 16, 32, 3" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k split_sum -s "*fp32:16, *fp32:16, *fp32:16, i64, i64, i32, 256, 3" --emit=ptx | %ptxas_check
# A dot operand too narrow for cp.async (one fp16 element per run, the
# columns masked by a run-time n): loaded into registers ahead, where the
# iteration exists only (its addresses lie past the data otherwise).
# RUN: %tilec compile %s -k narrow_dot -s "*fp16:16, *fp16:16, *fp32:16, i32, i32, 32, 32, 16, 3" --emit=ptx | %ptxas_check
# DOT: cp.async.commit_group
# DOT: cp.async.wait_group 1
# DOT: mma.sync.aligned.m16n8k16
# DOT: cp.async.wait_group 0
# SUM: cp.async
# SUM: cp.async.wait_group 1
# SUM: cp.async.wait_group 0
import triton
import triton.language as tl


@triton.jit
def split_dot(q_ptr, k_ptr, o_ptr, mid, hi, N, BLOCK: tl.constexpr, BN: tl.constexpr, D: tl.constexpr,
              STAGES: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    offs_d = tl.arange(0, D)
    offs_n = tl.arange(0, BN)
    q = tl.load(q_ptr + offs[:, None] * D + offs_d[None, :])
    acc = tl.zeros((BLOCK, BN), dtype=tl.float32)
    for start in tl.range(0, mid, BN, num_stages=STAGES):
        k = tl.load(k_ptr + offs_d[:, None] + (start + offs_n)[None, :] * D, mask=(start + offs_n)[None, :] < N, other=0.0)
        acc += tl.dot(q, k)
    for start in tl.range(mid, hi, BN, num_stages=STAGES):
        k = tl.load(k_ptr + offs_d[:, None] + (start + offs_n)[None, :] * D, mask=(start + offs_n)[None, :] < N, other=0.0)
        acc += tl.dot(q, k) * 2.0
    tl.store(o_ptr + offs[:, None] * BN + offs_n[None, :], acc)


@triton.jit
def split_sum(x_ptr, s_ptr, m_ptr, lo, hi, N, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    mx = tl.full((BLOCK,), -float("inf"), tl.float32)
    for start in tl.range(lo, hi, BLOCK, num_stages=STAGES):
        x = tl.load(x_ptr + start + offs, mask=start + offs < N, other=0.0)
        acc += x
        mx = tl.maximum(mx, x)
    tl.store(s_ptr, tl.sum(acc, axis=0))
    tl.store(m_ptr, tl.max(mx, axis=0))


@triton.jit
def narrow_dot(a_ptr, b_ptr, c_ptr, trips, n, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    bmask = (rk < BK)[:, None] & (rn < n)[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for i in tl.range(0, trips, num_stages=STAGES):
        a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :] + i * BM * BK)
        b = tl.load(b_ptr + rk[:, None] * n + rn[None, :] + i * BK * n, mask=bmask, other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
