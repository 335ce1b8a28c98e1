# ARGS: -s "*fp32:16, 256" -w 1 --emit=llvm-mlir
# A 256x256 tile on one warp is 2048 elements per thread, one step past the bound.
import triton
import triton.language as tl


@triton.jit
def fill(out_ptr, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    tl.store(out_ptr + rows * BLOCK + cols, (rows + cols).to(tl.float32))
