# An autotune key names a parameter: its values key the tuning. One that
# names none is ignored, as Triton's autotuner skips it, with a warning.
# ARGS: -s "*fp32, i32"
# EXIT: 0
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 64})], key=['n', 'size'])
@triton.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 1.0, mask=offs < n)
