# @jit helpers, constexpr globals and compile-time functions that the
# kernels of ops/ share.
from . import triton_compat as tc
from .triton_compat import tl, triton

_FACTOR = 2
GELU_SCALE: tl.constexpr = 0.7071067811865476
STATS: tl.constexpr = _FACTOR * 1

if hasattr(tl, "fma"):
    @triton.jit
    def mul_add(a, b, c):
        return tl.fma(a, b, c)
else:
    @triton.jit
    def mul_add(a, b, c):
        return a * b + c


@triton.jit
def row_start(row, stride):
    # 64-bit offsets: rows * stride can pass 2**31 in large tensors
    return row.to(tl.int64) * stride


@triton.jit
def gelu(x):
    return 0.5 * x * (1.0 + tc.erf(x * GELU_SCALE))


@triton.jit
def describe(x):
    # for debugging by hand; no kernel calls it, so nothing of it is compiled
    print(f"x = {x}")


@triton.constexpr_function
def acc_type(dtype):
    if dtype.is_fp16() or dtype.is_bf16():
        return tl.float32
    return dtype
