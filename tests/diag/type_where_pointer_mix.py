# ARGS: -s "*fp32:16, *fp16:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.where(offs < n, x_ptr + offs, y_ptr + offs)
    tl.store(p, 0.0)
