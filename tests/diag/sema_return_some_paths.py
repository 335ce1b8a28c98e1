# An inlined helper that returns a value on one path of a runtime if and falls off its end on the other
# ARGS: -s "*fp32:16, fp32"
import triton
import triton.language as tl


@triton.jit
def positive_or_nothing(x):
    if x > 0:
        return x


@triton.jit
def kernel(x_ptr, v):
    tl.store(x_ptr, positive_or_nothing(v))
