# ARGS: -s "*fp32, i32, 64" --emit=tile-gpu --dump-after=vectorize
# EXIT: 2
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, B: tl.constexpr):
    o = tl.arange(0, B)
    tl.store(x_ptr + o, 1.0, mask=o < n)
