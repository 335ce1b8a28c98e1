# ARGS: -s "*fp32:16, *fp32:16, *fp32:16, i32, 16, 4096" -w 8 --emit=llvm-mlir
# 16x4096 on 8 warps is 256 elements per thread in Triton's default layout, but
# tilec gives the row sums broadcast back over the columns the layout of the 16 row
# scales, which gives each row to 16 threads: 4096 per thread; the message says why.
import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr, r_ptr, out_ptr, n_rows, R: tl.constexpr, C: tl.constexpr):
    row_idx = tl.program_id(0) * R + tl.arange(0, R)
    row_mask = row_idx < n_rows
    cols = tl.arange(0, C)
    x = tl.load(x_ptr + row_idx[:, None] * C + cols[None, :], mask=row_mask[:, None], other=0.0)
    r = tl.load(r_ptr + row_idx, row_mask)
    m = r[:, None] * x
    y = m + (r * r * tl.sum(m * x, axis=1))[:, None] * x
    tl.store(out_ptr + row_idx[:, None] * C + cols[None, :], y, mask=row_mask[:, None])
