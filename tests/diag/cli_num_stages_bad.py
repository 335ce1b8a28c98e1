# ARGS: -s "*fp32:16, i32, 1024" --num-stages two
# --num-stages takes a number of stages (0 and 1: no pipelining, as Triton); a word is a usage error
# EXIT: 2
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 0.0, mask=offs < n)
