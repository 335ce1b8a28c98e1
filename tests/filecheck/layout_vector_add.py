# The vector add of examples/vector_add.py after the layout passes: with
# 16-byte aligned pointers and BLOCK 1024 at 4 warps each thread owns 4
# contiguous fp32 (one 128-bit access) in its loads and its store; without
# the :16 hints, one.
# RUN: %tilec compile %examples/vector_add.py -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" -w 4 --emit=tile-gpu | FileCheck %s --check-prefix=ALIGNED
# RUN: %tilec compile %examples/vector_add.py -s "*fp32, *fp32, *fp32, i32, 1024" -w 4 --emit=tile-gpu | FileCheck %s --check-prefix=PLAIN
# RUN: %tilec compile %examples/vector_add.py -s "*fp16:16, *fp16:16, *fp16:16, i32, 1024" -w 4 --emit=tile-gpu | FileCheck %s --check-prefix=HALF

# ALIGNED-NOT: tile.convert_layout
# ALIGNED-COUNT-2: "tile.load"({{.*}}) -> tensor<1024xf32, #tile.blocked<[4], [32], [4], [0]>>
# ALIGNED: "tile.store"({{.*}}) : (tensor<1024x!tile.ptr<f32>, #tile.blocked<[4], [32], [4], [0]>>, tensor<1024xf32, #tile.blocked<[4], [32], [4], [0]>>, tensor<1024xi1, #tile.blocked<[4], [32], [4], [0]>>) -> ()
# ALIGNED-NOT: tile.convert_layout

# PLAIN-NOT: tile.convert_layout
# PLAIN-COUNT-2: "tile.load"({{.*}}) -> tensor<1024xf32, #tile.blocked<[1], [32], [4], [0]>>
# PLAIN: "tile.store"({{.*}}) : (tensor<1024x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>

# 16 bytes of fp16 are 8 elements, but 1024 elements over 128 threads leave 8 each: 8.
# HALF-COUNT-2: "tile.load"({{.*}}) -> tensor<1024xf16, #tile.blocked<[8], [32], [4], [0]>>
