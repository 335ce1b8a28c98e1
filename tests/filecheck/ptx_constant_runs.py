# Elementwise results that axis info proves constant over runs are computed
# once per run within a thread, as Triton deduplicates them: with n a
# multiple of 16, `offs < n` is equal over each thread's four consecutive
# offsets, so the where's mask is one compare, not four. Without the hint,
# four compares.
# RUN: %tilec compile %s -s "*fp32:16, *fp32:16, i32:16, 512" --emit=ptx | FileCheck %s --check-prefix=HINT
# RUN: %tilec compile %s -s "*fp32:16, *fp32:16, i32:16, 512" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -s "*fp32:16, *fp32:16, i32, 512" --emit=ptx | FileCheck %s --check-prefix=NOHINT
# HINT-COUNT-1: setp.lt.s32
# HINT-NOT: setp.lt.s32
# NOHINT-COUNT-4: setp.lt.s32
# NOHINT-NOT: setp.lt.s32
import triton
import triton.language as tl


@triton.jit
def clip_tail(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.where(offs < n, x, 0.0))
