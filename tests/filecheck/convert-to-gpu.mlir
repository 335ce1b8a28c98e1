// RUN: %tilec opt %s --pass=convert-to-gpu --split-input-file | FileCheck %s
// RUN: %tilec opt %s --pass=convert-to-gpu -w 8 --split-input-file | FileCheck %s --check-prefix=W8

// Every tensor gets Triton's default blocked layout: one element per
// thread, lanes along the fastest dimension, warps after them.
// CHECK-LABEL: func.func @default_1d
// CHECK: "tile.make_range"() {{.*}} -> tensor<256xi32, #tile.blocked<[1], [32], [4], [0]>>
// CHECK: arith.addi {{.*}} : tensor<256xi32, #tile.blocked<[1], [32], [4], [0]>>
// CHECK: "tile.store"{{.*}} (tensor<256x!tile.ptr<i32>, #tile.blocked<[1], [32], [4], [0]>>, tensor<256xi32, #tile.blocked<[1], [32], [4], [0]>>)
// W8-LABEL: func.func @default_1d
// W8: tensor<256xi32, #tile.blocked<[1], [32], [8], [0]>>
func.func @default_1d(%p: !tile.ptr<i32>, %n: i32) {
  %r = "tile.make_range"() {start = 0 : i32, end = 256 : i32} : () -> tensor<256xi32>
  %s = "tile.splat"(%n) : (i32) -> tensor<256xi32>
  %o = arith.addi %r, %s : tensor<256xi32>
  %pp = "tile.splat"(%p) : (!tile.ptr<i32>) -> tensor<256x!tile.ptr<i32>>
  %q = "tile.addptr"(%pp, %r) : (tensor<256x!tile.ptr<i32>>, tensor<256xi32>) -> tensor<256x!tile.ptr<i32>>
  "tile.store"(%q, %o) : (tensor<256x!tile.ptr<i32>>, tensor<256xi32>) -> ()
  return
}

// -----

// 2-D: lanes cover the 16 columns, the rest of the warp and the warps go
// down the rows. A reduction's result is a slice of its operand's layout;
// the store after it wants the default 1-D layout: a conversion.
// CHECK-LABEL: func.func @reduce_slice
// CHECK: "tile.load"{{.*}} -> tensor<64x16xf32, #tile.blocked<[1, 1], [2, 16], [4, 1], [1, 0]>>
// CHECK: "tile.reduce"
// CHECK: -> tensor<64xf32, #tile.slice<1 : i64, #tile.blocked<[1, 1], [2, 16], [4, 1], [1, 0]>>>
// CHECK: "tile.convert_layout"{{.*}} -> tensor<64xf32, #tile.blocked<[1], [32], [4], [0]>>
func.func @reduce_slice(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) {
  %xp = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<64x16x!tile.ptr<f32>>
  %v = "tile.load"(%xp) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x16x!tile.ptr<f32>>) -> tensor<64x16xf32>
  %r = "tile.reduce"(%v) ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    gpu.yield %s : f32
  }) {axis = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<64x16xf32>) -> tensor<64xf32>
  %yp = "tile.splat"(%y) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
  "tile.store"(%yp, %r) : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>) -> ()
  return
}

// -----

// expand_dims takes a slice of its result's layout: the 1-D range is
// converted into it.
// CHECK-LABEL: func.func @expand
// CHECK: %[[R:.*]] = "tile.make_range"{{.*}} -> tensor<32xi32, #tile.blocked<[1], [32], [4], [0]>>
// CHECK: %[[C:.*]] = "tile.convert_layout"(%[[R]]) {{.*}} -> tensor<32xi32, #tile.slice<1 : i64, #tile.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>>
// CHECK: "tile.expand_dims"(%[[C]]) {{.*}} -> tensor<32x1xi32, #tile.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
func.func @expand(%p: !tile.ptr<i32>) {
  %r = "tile.make_range"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32>
  %e = "tile.expand_dims"(%r) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
  %pp = "tile.splat"(%p) : (!tile.ptr<i32>) -> tensor<32x1x!tile.ptr<i32>>
  "tile.store"(%pp, %e) : (tensor<32x1x!tile.ptr<i32>>, tensor<32x1xi32>) -> ()
  return
}

// -----

// dot operands take the dot_op layouts of the result's layout. The result
// (the FMA dot's) spreads a warp's lanes 4x8 and the warps so that each
// thread's rows and columns are even: here 2x2 warps, 2 rows and 2 columns.
// CHECK-LABEL: func.func @dot
// CHECK: "tile.convert_layout"{{.*}} #tile.dot_op<0 : i64, #tile.blocked<[1, 1], [4, 8], [2, 2], [1, 0]>, 2 : i64>
// CHECK: "tile.convert_layout"{{.*}} #tile.dot_op<1 : i64, #tile.blocked<[1, 1], [4, 8], [2, 2], [1, 0]>, 2 : i64>
// CHECK: "tile.dot"
func.func @dot(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) {
  %ap = "tile.splat"(%pa) : (!tile.ptr<f16>) -> tensor<16x32x!tile.ptr<f16>>
  %bp = "tile.splat"(%pb) : (!tile.ptr<f16>) -> tensor<32x16x!tile.ptr<f16>>
  %a = "tile.load"(%ap) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<16x32x!tile.ptr<f16>>) -> tensor<16x32xf16>
  %b = "tile.load"(%bp) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x16x!tile.ptr<f16>>) -> tensor<32x16xf16>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = "tile.dot"(%a, %b, %c) : (tensor<16x32xf16>, tensor<32x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %cp = "tile.splat"(%pc) : (!tile.ptr<f32>) -> tensor<16x16x!tile.ptr<f32>>
  "tile.store"(%cp, %d) : (tensor<16x16x!tile.ptr<f32>>, tensor<16x16xf32>) -> ()
  return
}
