import triton
import triton.language as tl


@triton.jit
def scale(x, factor):
    return tl.exp(factor) * x


@triton.jit
def unused(x):
    # no kernel calls it: its f-string is never an error
    print(f"{x}")
