# ARGS: -s "*fp32, *fp32"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, y_ptr):
    i = tl.arange(0, 32)
    x = tl.load(x_ptr + i)
    tl.store(y_ptr + i, tl.fdiv(x, x + 1.0, ieee_rounding=True, approx=True))
