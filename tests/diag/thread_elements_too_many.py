# ARGS: -s "*fp32:16, *fp32:16, *fp32:16, i32, 1048576" -w 4 --emit=llvm-mlir
# The largest block Triton accepts (2^20 elements) on 4 warps is 8192 elements per
# thread, each its own registers and unrolled code: LLVM and ptxas would take an hour.
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = tl.load(y_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, x + y, mask=mask)
