# ARGS: -s "*fp32:16, i32, 64, 128"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, n, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    offs = rm * n + rn
    tl.store(x_ptr + offs, 0.0)
