# ARGS: -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = 0
    for i in range(0, n, BLOCK):
        acc = acc + tl.load(x_ptr + i + offs, mask=i + offs < n)
    tl.store(x_ptr + offs, acc, mask=offs < n)
