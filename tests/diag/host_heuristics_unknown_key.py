# ARGS: -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.heuristics({"HALF": lambda args: args["BLOK"] // 2})
@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr, HALF: tl.constexpr):
    offs = tl.arange(0, HALF)
    tl.store(x_ptr + offs, 0.0, mask=offs < n)
