# ARGS: -s "*fp32, i32, 128, 'gelu'"
# A raise in a constexpr branch not taken is dead code, as Triton never visits it; in the branch taken it is an error.
import triton
import triton.language as tl


@triton.jit
def act(x, ACT: tl.constexpr):
    if ACT == "relu":
        return tl.maximum(x, 0.0)
    elif ACT == "silu":
        return x * tl.sigmoid(x)
    else:
        raise ValueError(f"unknown activation {ACT}")


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr, ACT: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, act(x, "relu"), mask=offs < n)
    tl.store(x_ptr + offs, act(x, ACT), mask=offs < n)
