# A conversion between layouts that give every thread the same elements in
# the same registers moves nothing: the column sums of a [32, 128] tile
# loaded one column a thread (the unhinted layer_norm dwdb) are the slice
# of its layout, which holds column 32w + l in lane l of warp w, as the
# 1-D layout of the store does. Each thread sums its own column, so the
# kernel needs no shared memory and no barrier at all, as in Triton.
# RUN: %tilec compile %examples/layer_norm.py -k layer_norm_bwd_dwdb_kernel -s "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, 32, 128" --emit=tile-gpu | FileCheck %s --check-prefix=TILE
# RUN: %tilec compile %examples/layer_norm.py -k layer_norm_bwd_dwdb_kernel -s "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, 32, 128" --emit=llvm-mlir | FileCheck %s
# TILE: "tile.convert_layout"{{.*}}#tile.slice<0 : i64, #tile.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>>) -> tensor<128xf32, #tile.blocked<[1], [32], [4], [0]>>
# CHECK-NOT: tilec_smem
# CHECK-NOT: nvvm.barrier0
