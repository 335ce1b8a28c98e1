# 16x4096 on 8 warps: the loaded tile's layout (4 columns a thread) carries
# through the products and the row sums; the sums broadcast back over the
# columns in the slice of that layout, so no thread holds more than its
# share (a layout that gave each row to 16 threads would hold 4096 each).
# RUN: %tilec compile %s -s "*fp32:16, *fp32:16, *fp32:16, i32, 16, 4096" -w 8 --emit=tile-gpu | FileCheck %s
# RUN: %tilec compile %s -s "*fp32:16, *fp32:16, *fp32:16, i32, 16, 4096" -w 8 --emit=ptx | %ptxas_check
# CHECK: "tile.reduce"(%{{[0-9]+}})
# CHECK: (tensor<16x4096xf32, #tile.blocked<[1, 4], [1, 32], [1, 8], [1, 0]>>) -> tensor<16xf32, #tile.slice<1 : i64, #tile.blocked<[1, 4], [1, 32], [1, 8], [1, 0]>>>
# CHECK: "tile.store"({{.*}}tensor<16x4096xf32, #tile.blocked<[1, 4], [1, 32], [1, 8], [1, 0]>>
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
