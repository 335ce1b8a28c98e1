# A config's num_warps is a power of 2 from 1 to 32, as Triton takes it:
# 3 would compile to a block whose warps the layouts do not cover.
# ARGS: -s "*fp32, i32"
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 64}), triton.Config({'BLOCK': 128}, num_warps=3)], key=['n'])
@triton.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 1.0, mask=offs < n)
