# ARGS: -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


SCALE = 2.0


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    global SCALE
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x * SCALE, mask=offs < n)
