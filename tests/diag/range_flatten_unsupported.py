# ARGS: -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in tl.range(0, n, flatten=True):
        tl.store(x_ptr + i * BLOCK + offs, 0.0)
