# ARGS: -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in range(0, n, BLOCK):
        tl.store(x_ptr + i + offs, 0.0, mask=i + offs < n)
    else:
        tl.store(x_ptr + offs, 1.0, mask=offs < n)
