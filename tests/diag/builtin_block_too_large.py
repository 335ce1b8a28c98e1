# ARGS: -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.zeros((BLOCK, BLOCK, BLOCK), dtype=tl.float32)
    tl.store(x_ptr + offs, tl.sum(tl.sum(tl.sum(x, 0), 0), 0))
