// RUN: %tilec opt %s --pass=canonicalize --split-input-file | FileCheck %s

// A splat of a constant is a constant; a broadcast of a splat is a splat.
// CHECK-LABEL: func.func @splat_folds
// CHECK-DAG: arith.constant dense<7> : tensor<4x8xi32>
// CHECK-DAG: "tile.splat"(%arg1) : (i32) -> tensor<4x8xi32>
// CHECK-NOT: tile.broadcast
func.func @splat_folds(%p: !tile.ptr<i32>, %n: i32) {
  %c7 = arith.constant 7 : i32
  %0 = "tile.splat"(%c7) : (i32) -> tensor<4x1xi32>
  %1 = "tile.broadcast"(%0) : (tensor<4x1xi32>) -> tensor<4x8xi32>
  %2 = "tile.splat"(%n) : (i32) -> tensor<4x1xi32>
  %3 = "tile.broadcast"(%2) : (tensor<4x1xi32>) -> tensor<4x8xi32>
  %pp = "tile.splat"(%p) : (!tile.ptr<i32>) -> tensor<4x8x!tile.ptr<i32>>
  %q = "tile.addptr"(%pp, %3) : (tensor<4x8x!tile.ptr<i32>>, tensor<4x8xi32>) -> tensor<4x8x!tile.ptr<i32>>
  "tile.store"(%q, %1) : (tensor<4x8x!tile.ptr<i32>>, tensor<4x8xi32>) -> ()
  return
}

// -----

// addptr by zero is its pointer.
// CHECK-LABEL: func.func @addptr_zero
// CHECK-NOT: tile.addptr
// CHECK: "tile.load"(%arg0)
func.func @addptr_zero(%p: !tile.ptr<f32>) -> f32 {
  %c0 = arith.constant 0 : i32
  %q = "tile.addptr"(%p, %c0) : (!tile.ptr<f32>, i32) -> !tile.ptr<f32>
  %v = "tile.load"(%q) {operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32>) -> f32
  return %v : f32
}

// -----

// A load whose mask is all false is its `other`; all true drops the mask.
// CHECK-LABEL: func.func @constant_masks
// CHECK: %[[L:.*]] = "tile.load"(%{{.*}}) {operandSegmentSizes = array<i32: 1, 0, 0>}
// CHECK: arith.addf %[[L]], %cst
func.func @constant_masks(%p: !tile.ptr<f32>) -> tensor<16xf32> {
  %r = "tile.make_range"() {start = 0 : i32, end = 16 : i32} : () -> tensor<16xi32>
  %pp = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<16x!tile.ptr<f32>>
  %q = "tile.addptr"(%pp, %r) : (tensor<16x!tile.ptr<f32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<f32>>
  %f = arith.constant dense<false> : tensor<16xi1>
  %t = arith.constant dense<true> : tensor<16xi1>
  %o = arith.constant dense<2.0> : tensor<16xf32>
  %a = "tile.load"(%q, %f, %o) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x!tile.ptr<f32>>, tensor<16xi1>, tensor<16xf32>) -> tensor<16xf32>
  %b = "tile.load"(%q, %t, %o) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x!tile.ptr<f32>>, tensor<16xi1>, tensor<16xf32>) -> tensor<16xf32>
  %s = arith.addf %b, %a : tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

// select with a constant condition, and shape-op chains, collapse.
// CHECK-LABEL: func.func @chains
// CHECK-NOT: arith.select
// CHECK: %[[R:.*]] = "tile.reshape"(%arg0) : (tensor<4x8xf32>) -> tensor<32xf32>
// CHECK-NOT: tile.reshape
// CHECK: return %[[R]]
func.func @chains(%x: tensor<4x8xf32>, %y: tensor<32xf32>) -> tensor<32xf32> {
  %0 = "tile.reshape"(%x) : (tensor<4x8xf32>) -> tensor<2x16xf32>
  %1 = "tile.reshape"(%0) : (tensor<2x16xf32>) -> tensor<32xf32>
  %t = arith.constant true
  %2 = arith.select %t, %1, %y : tensor<32xf32>
  return %2 : tensor<32xf32>
}

// -----

// acc + dot(a, b, 0), the dot used only there, is dot(a, b, acc), in
// either order, for floats and integers; a dot used twice, or with an
// accumulator that is not zero, stays.
// CHECK-LABEL: func.func @dot_add
// CHECK: %[[D:.*]] = "tile.dot"(%arg0, %arg1, %arg2) {input_precision = "ieee"} : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK-NOT: arith.addf
// CHECK: %[[E:.*]] = "tile.dot"(%arg3, %arg4, %arg5)
// CHECK-NOT: arith.addi
// CHECK: return %[[D]], %[[E]]
func.func @dot_add(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf32>,
                   %x: tensor<16x16xi8>, %y: tensor<16x16xi8>, %iacc: tensor<16x16xi32>) -> (tensor<16x16xf32>, tensor<16x16xi32>) {
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = "tile.dot"(%a, %b, %z) {input_precision = "ieee"} : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = arith.addf %acc, %d : tensor<16x16xf32>
  %zi = arith.constant dense<0> : tensor<16x16xi32>
  %di = "tile.dot"(%x, %y, %zi) : (tensor<16x16xi8>, tensor<16x16xi8>, tensor<16x16xi32>) -> tensor<16x16xi32>
  %si = arith.addi %di, %iacc : tensor<16x16xi32>
  return %s, %si : tensor<16x16xf32>, tensor<16x16xi32>
}

// -----

// CHECK-LABEL: func.func @dot_add_kept
// CHECK: "tile.dot"(%arg0, %arg1, %cst)
// CHECK: arith.addf
// CHECK: "tile.dot"(%arg0, %arg1, %arg2)
// CHECK: arith.addf
func.func @dot_add_kept(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = "tile.dot"(%a, %b, %z) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = arith.addf %acc, %d : tensor<16x16xf32>
  %e = "tile.dot"(%a, %b, %acc) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %t = arith.addf %acc, %e : tensor<16x16xf32>
  return %s, %d, %t : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
}
