# reset_to_zero and restore_value name parameters, as the key does.
# ARGS: -s "*fp32, i32"
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 64})], key=['n'], reset_to_zero=['out'])
@triton.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 1.0, mask=offs < n)
