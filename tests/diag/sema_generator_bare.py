# ARGS: -s "*i32, i32"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, n):
    offsets = (i * 2 for i in (1, 2, 3))
    tl.store(x_ptr, n)
