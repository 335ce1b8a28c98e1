# ARGS: -s "*fp32:16, i32, 32, 32"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, n, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * BN + rn[None, :])
    s = tl.sum(x, axis=2)
    tl.store(x_ptr + rm, s)
