# ARGS: -s "*i32, i32"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, n):
    a, *b = (1, 2, 3)
    tl.store(x_ptr, a)
