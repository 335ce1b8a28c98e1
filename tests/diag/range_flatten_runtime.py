# tl.range's flatten= must be a constexpr (True asks for an optimization tilec does not apply; a runtime value is an error)
# ARGS: -s "*fp32:16, i32, i1, 1024"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, n, flat, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in tl.range(0, n, flatten=flat):
        tl.store(x_ptr + i * BLOCK + offs, 0.0)
