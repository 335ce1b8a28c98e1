# ARGS: -s "*i32, i32"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, n):
    acc = sum(i for i in range(4))
    tl.store(x_ptr, acc)
