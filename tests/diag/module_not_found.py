# ARGS: -s "*fp32, i32, 128"
# A helper imported from a module that no search folder has.
import triton
import triton.language as tl

from mylib.utils import add_one


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, add_one(x), mask=offs < n)
