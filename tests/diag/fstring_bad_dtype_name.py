# ARGS: -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    bits: tl.constexpr = 24
    t: tl.constexpr = tl.dtype(f"uint{bits}")
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 0.0, mask=offs < n)
