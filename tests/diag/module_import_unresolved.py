# ARGS: -s "*fp32, i32, 128"
# Where every module-level import of a name fails to resolve, each is named with why.
import triton
import triton.language as tl

try:
    from fastmath_kernels import fast_exp
except ImportError:
    from triton.language.extra.cuda.libdevice import fast_exp_that_is_not_there as fast_exp


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, fast_exp(x), mask=offs < n)
