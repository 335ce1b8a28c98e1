# linear_recurrence_kernel in examples/reduce_combine.py: the scan runs in
# the layout its loads have (four elements a thread, two chunks of the
# 512-element tile over the 1024), so no conversion moves its operands or
# its result through shared memory: only the warps' totals do, 16 bytes for
# each operand and chunk, and each chunk's total is carried into the next.
# RUN: %tilec compile %examples/reduce_combine.py -k linear_recurrence_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, 1024" --emit=tile-gpu | FileCheck %s --check-prefix=TILE
# RUN: %tilec compile %examples/reduce_combine.py -k linear_recurrence_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, 1024" --emit=llvm-mlir | FileCheck %s --check-prefix=SMEM
# RUN: %tilec compile %examples/reduce_combine.py -k linear_recurrence_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, 1024" --emit=ptx | %ptxas_check
# TILE-NOT: tile.convert_layout
# TILE: "tile.scan"
# TILE: }) {axis = 0 : i32{{.*}} : (tensor<1024xf32, #tile.blocked<[4], [32], [4], [0]>>, tensor<1024xf32, #tile.blocked<[4], [32], [4], [0]>>)
# TILE-NOT: tile.convert_layout
# SMEM: tilec.shared_bytes = 64 : i64
