# ARGS: -s "*fp32:16, 16"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    tl.static_print(str(BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), 0.0)
