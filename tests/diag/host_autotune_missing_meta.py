# ARGS: -s "*fp32:16, i32"
import triton
import triton.language as tl

CONFIGS = [triton.Config({"BLOCK": b}, num_warps=4) for b in (256, 512, 1024)]


@triton.autotune(configs=CONFIGS, key=["n"])
@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x * factor, mask=offs < n)
