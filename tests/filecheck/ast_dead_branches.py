# Statements kernels cannot have (raise, with, try, nested def) are dead code
# in a constexpr branch not taken, as Triton never visits them.
# RUN: %tilec compile %s -s "*fp32, i32, 128, 'silu'" | FileCheck %s
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


# CHECK: kernel kernel(x_ptr: *fp32, n: i32)
# CHECK: (sigmoid
# CHECK-NOT: maximum
@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr, ACT: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if BLOCK > 4096:
        with open("log") as f:
            f.write("too large")
        try:
            pass
        except Exception:
            pass

        def inner():
            pass
    tl.store(x_ptr + offs, act(x, ACT), mask=offs < n)
