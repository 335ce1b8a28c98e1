# An @triton.autotune argument tilec does not know is ignored, with a
# warning at the argument.
# ARGS: -s "*fp32, i32"
# EXIT: 0
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 64})], key=['n'], tune_harder=True)
@triton.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 1.0, mask=offs < n)
