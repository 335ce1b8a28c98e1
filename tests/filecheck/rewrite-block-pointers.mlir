// RUN: %tilec opt %s --pass=rewrite-block-pointers --split-input-file | FileCheck %s

// A block pointer from make_block_ptr through an advance: the load takes a
// tensor of pointers, the block's offset (the sum of the two) times the
// strides added to the base once; per element arange * stride in i32 (the
// strides are small constants); boundary_check=(0,) masks the rows only,
// 0 <= off + i < shape on the 1-D range, broadcast; padding "nan" is a NaN
// `other`. The chain is gone.
// CHECK-LABEL: func.func @advanced
// CHECK-NOT: tile.make_block_ptr
// CHECK-NOT: tile.advance
// CHECK: "tile.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
// CHECK: arith.cmpi slt, {{.*}} : tensor<16xi64>
// CHECK: arith.cmpi sge, {{.*}} : tensor<16xi64>
// CHECK: "tile.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32>
// CHECK-NOT: arith.cmpi
// CHECK: %[[BASE:.*]] = "tile.addptr"(%arg0, %{{.*}}) : (!tile.ptr<f16>, i64) -> !tile.ptr<f16>
// CHECK: %[[S:.*]] = "tile.splat"(%[[BASE]]) : (!tile.ptr<f16>) -> tensor<16x32x!tile.ptr<f16>>
// CHECK: %[[P:.*]] = "tile.addptr"(%[[S]], %{{.*}}) : (tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>) -> tensor<16x32x!tile.ptr<f16>>
// CHECK: arith.constant dense<0x7E00> : tensor<16x32xf16>
// CHECK: "tile.load"(%[[P]], %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi1>, tensor<16x32xf16>) -> tensor<16x32xf16>
func.func @advanced(%p: !tile.ptr<f16>, %m: i64, %k: i32) -> tensor<16x32xf16> {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i64
  %c1 = arith.constant 1 : i64
  %bp = "tile.make_block_ptr"(%p, %m, %c64, %c64, %c1, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 2, 2>, order = array<i32: 1, 0>} : (!tile.ptr<f16>, i64, i64, i64, i64, i32, i32) -> !tile.ptr<tensor<16x32xf16>>
  %a = "tile.advance"(%bp, %k, %c0) : (!tile.ptr<tensor<16x32xf16>>, i32, i32) -> !tile.ptr<tensor<16x32xf16>>
  %x = "tile.load"(%a) {boundary_check = array<i32: 0>, operandSegmentSizes = array<i32: 1, 0, 0>, padding = "nan"} : (!tile.ptr<tensor<16x32xf16>>) -> tensor<16x32xf16>
  return %x : tensor<16x32xf16>
}

// -----

// A runtime stride: the per-element part is i64. A store without
// boundary_check has no mask.
// CHECK-LABEL: func.func @runtime_stride
// CHECK: arith.muli {{.*}} : tensor<8xi64>
// CHECK: "tile.addptr"({{.*}}) : (tensor<8x4x!tile.ptr<f32>>, tensor<8x4xi64>) -> tensor<8x4x!tile.ptr<f32>>
// CHECK: "tile.store"(%{{[^,]*}}, %arg3) : (tensor<8x4x!tile.ptr<f32>>, tensor<8x4xf32>) -> ()
func.func @runtime_stride(%p: !tile.ptr<f32>, %m: i64, %s: i64, %v: tensor<8x4xf32>) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i64
  %c1 = arith.constant 1 : i64
  %bp = "tile.make_block_ptr"(%p, %m, %c4, %s, %c1, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 2, 2>, order = array<i32: 1, 0>} : (!tile.ptr<f32>, i64, i64, i64, i64, i32, i32) -> !tile.ptr<tensor<8x4xf32>>
  "tile.store"(%bp, %v) : (!tile.ptr<tensor<8x4xf32>>, tensor<8x4xf32>) -> ()
  return
}

// -----

// A block pointer a loop carries keeps its access (the lowering reads it
// whole).
// CHECK-LABEL: func.func @carried
// CHECK: scf.for
// CHECK: "tile.load"(%{{.*}}) {boundary_check
// CHECK: "tile.advance"
func.func @carried(%p: !tile.ptr<f32>, %m: i64, %n: i32) -> tensor<8x4xf32> {
  %c0 = arith.constant 0 : i32
  %c1i = arith.constant 1 : i32
  %c4i = arith.constant 4 : i32
  %c4 = arith.constant 4 : i64
  %c1 = arith.constant 1 : i64
  %z = arith.constant dense<0.0> : tensor<8x4xf32>
  %bp = "tile.make_block_ptr"(%p, %m, %c4, %c4, %c1, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 2, 2>, order = array<i32: 1, 0>} : (!tile.ptr<f32>, i64, i64, i64, i64, i32, i32) -> !tile.ptr<tensor<8x4xf32>>
  %r:2 = scf.for %i = %c0 to %n step %c1i iter_args(%acc = %z, %q = %bp) -> (tensor<8x4xf32>, !tile.ptr<tensor<8x4xf32>>) : i32 {
    %x = "tile.load"(%q) {boundary_check = array<i32: 0>, operandSegmentSizes = array<i32: 1, 0, 0>, padding = "zero"} : (!tile.ptr<tensor<8x4xf32>>) -> tensor<8x4xf32>
    %s = arith.addf %acc, %x : tensor<8x4xf32>
    %q2 = "tile.advance"(%q, %c4i, %c0) : (!tile.ptr<tensor<8x4xf32>>, i32, i32) -> !tile.ptr<tensor<8x4xf32>>
    scf.yield %s, %q2 : tensor<8x4xf32>, !tile.ptr<tensor<8x4xf32>>
  }
  return %r#0 : tensor<8x4xf32>
}

// -----

// A dimension of one (a batch index, as Liger's 3-D descriptors load
// [1, BLOCK_M, BLOCK_K]) adds its offset to the scalar address only, and
// its bounds check is one scalar comparison splat over the block: no range
// of one element broadcast (its layout would pile the threads on it).
// CHECK-LABEL: func.func @batch_of_one
// CHECK-NOT: "tile.make_range"() {end = 1 : i32
// CHECK: %[[IN:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: "tile.splat"(%[[IN]]) : (i1) -> tensor<1x16x32xi1>
// CHECK: "tile.load"
func.func @batch_of_one(%p: !tile.ptr<f16>, %b: i64, %m: i64, %k: i64, %sb: i64, %sm: i64, %i: i32, %j: i32) -> tensor<1x16x32xf16> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %bp = "tile.make_block_ptr"(%p, %b, %m, %k, %sb, %sm, %c1, %i, %j, %c0) {operandSegmentSizes = array<i32: 1, 3, 3, 3>, order = array<i32: 2, 1, 0>} : (!tile.ptr<f16>, i64, i64, i64, i64, i64, i64, i32, i32, i32) -> !tile.ptr<tensor<1x16x32xf16>>
  %x = "tile.load"(%bp) {boundary_check = array<i32: 0, 1, 2>, operandSegmentSizes = array<i32: 1, 0, 0>, padding = "zero"} : (!tile.ptr<tensor<1x16x32xf16>>) -> tensor<1x16x32xf16>
  return %x : tensor<1x16x32xf16>
}
