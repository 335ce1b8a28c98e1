# More than 32 warps is more than the 1024 threads a block may have.
# ARGS: -s "*fp32, i32"
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 4096}, num_warps=64)], key=['n'])
@triton.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 1.0, mask=offs < n)
