# device_assert calls CUDA's __assertfail with the message, file, line and kernel
# when any element fails; debug_barrier is bar.sync. ptxas accepts it.
# RUN: %tilec compile %s -s "*fp32, i32, 128" --emit=ptx | FileCheck %s
# RUN: %tilec compile %s -s "*fp32, i32, 128" --emit=ptx | %ptxas_check
import triton
import triton.language as tl

@triton.jit
def checked(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.device_assert(x >= 0, "x must be non-negative")
    tl.debug_barrier()
    tl.store(x_ptr + offs, tl.sqrt(x), mask=offs < n)

# CHECK: .extern .func __assertfail
# CHECK: .visible .entry checked(
# CHECK: __assertfail
# CHECK: bar.sync 0;
