# ARGS: -s "*fp32, i32, 128"
# An error in a helper of another module points into that module's file, inlined from the kernel.
import triton
import triton.language as tl

from diagpkg.helpers import scale


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, scale(x, offs), mask=offs < n)
