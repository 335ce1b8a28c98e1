# A config's pre_hook runs before each launch of the config. tilec runs
# those that zero buffers; other host code, such as this function, it
# cannot, and says so where the hook is given.
# ARGS: -s "*fp32, i32"
import triton
import triton.language as tl


def log_launch(nargs):
    print("launching", nargs["n"])


@triton.autotune(configs=[triton.Config({'BLOCK': 64}, pre_hook=log_launch)], key=['n'])
@triton.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 1.0, mask=offs < n)
