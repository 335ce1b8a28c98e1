# triton.jit's num_warps follows the same rule as a config's.
# ARGS: -s "*fp32, i32, 64"
import triton
import triton.language as tl


@triton.jit(num_warps=6)
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 1.0, mask=offs < n)
