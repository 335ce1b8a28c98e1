# ARGS: -s "*fp32:16, *fp32:16, 64, 6"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, out_ptr, N: tl.constexpr, K: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, 8), tl.topk(x, K))
