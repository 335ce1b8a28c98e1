# ARGS: -s "*fp32, i32, 128"
# A @triton.constexpr_function runs at compile time: a runtime argument is an error.
import triton
import triton.language as tl


@triton.constexpr_function
def double(v):
    return v * 2


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, double(BLOCK) // 2)
    tl.store(x_ptr + offs, 1.0, mask=offs < double(n))
