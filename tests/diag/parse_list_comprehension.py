# ARGS: -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    parts = [tl.load(x_ptr + offs + i * BLOCK, mask=offs < n) for i in range(4)]
    tl.store(x_ptr + offs, parts[0], mask=offs < n)
