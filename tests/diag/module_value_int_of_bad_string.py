# ARGS: -s "*fp32:16"
import triton
import triton.language as tl

BLOCK = tl.constexpr(int("12o"))


@triton.jit
def kernel(x_ptr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 0.0)
