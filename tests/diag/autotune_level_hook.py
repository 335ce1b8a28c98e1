# @triton.autotune's own pre_hook and post_hook are host code around every
# tuning run; tilec cannot run them, unlike a config's zeroing pre_hook.
# ARGS: -s "*fp32, i32"
import triton
import triton.language as tl


def before(kwargs, reset_only=False):
    pass


@triton.autotune(configs=[triton.Config({'BLOCK': 64})], key=['n'], pre_hook=before)
@triton.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 1.0, mask=offs < n)
