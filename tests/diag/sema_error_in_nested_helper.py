# ARGS: -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def inner(x):
    return tl.exp(x.to(tl.int32))


@triton.jit
def outer(x):
    return inner(x) + 1.0


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, outer(x), mask=offs < n)
