# ARGS: -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def collatz(x):
    return collatz(tl.where(x % 2 == 0, x // 2, 3 * x + 1))


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, collatz(offs).to(tl.float32), mask=offs < n)
