# Recursion on a runtime value: helpers are inlined, so it is the limit of nested calls
# ARGS: -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def fact(k):
    if k <= 1:
        return 1
    return k * fact(k - 1)


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, fact(n).to(tl.float32), mask=offs < n)
