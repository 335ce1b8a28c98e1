# ARGS: -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOK"] == 0})
@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if EVEN:
        tl.store(x_ptr + offs, 0.0)
    else:
        tl.store(x_ptr + offs, 0.0, mask=offs < n)
