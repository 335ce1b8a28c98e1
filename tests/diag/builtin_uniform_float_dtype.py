# ARGS: -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def kernel(out_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.rand(seed, offs)
    tl.store(out_ptr + offs, tl.uint_to_uniform_float(x))
