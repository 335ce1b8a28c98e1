# A reduction across warps whose threads hold more than 16 bytes of
# partials (here eight fp16 columns a thread, summed in fp32) exchanges
# them in rounds of 16 bytes a thread, as Triton does: 1024 bytes for each
# [4 warps][128 columns] fp32 exchange, not 2048, a barrier between rounds.
# RUN: %tilec compile %s -k column_stats -s "*fp16:16, *fp32:16, *fp32:16, i32, i32:16, 32, 128" --emit=llvm-mlir | FileCheck %s
# RUN: %tilec compile %s -k column_stats -s "*fp16:16, *fp32:16, *fp32:16, i32, i32:16, 32, 128" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k column_stats -s "*fp16:16, *fp32:16, *fp32:16, i32, i32:16, 32, 128" -w 8 --emit=ptx | %ptxas_check
# CHECK: tilec.shared_bytes = 1024
import triton
import triton.language as tl


@triton.jit
def column_stats(x_ptr, sum_ptr, max_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    rows = tl.arange(0, BLOCK_M)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    tl.store(sum_ptr + cols, tl.sum(x, axis=0), mask=cols < N)
    tl.store(max_ptr + cols, tl.max(tl.where(mask, x, -float("inf")), axis=0), mask=cols < N)
