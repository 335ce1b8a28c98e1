// RUN: %tilec opt %s --pass=cse --split-input-file | FileCheck %s

// Identical pure tile ops are computed once.
// CHECK-LABEL: func.func @same_ops
// CHECK: tile.make_range
// CHECK-NOT: tile.make_range
// CHECK: %[[S:.*]] = arith.addi
// CHECK: "tile.store"(%{{.*}}, %[[S]])
// CHECK: "tile.store"(%{{.*}}, %[[S]])
func.func @same_ops(%p: !tile.ptr<i32>, %n: i32) {
  %0 = "tile.make_range"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32>
  %1 = "tile.make_range"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32>
  %2 = "tile.splat"(%n) : (i32) -> tensor<32xi32>
  %3 = "tile.splat"(%n) : (i32) -> tensor<32xi32>
  %4 = arith.addi %0, %2 : tensor<32xi32>
  %5 = arith.addi %1, %3 : tensor<32xi32>
  %pp = "tile.splat"(%p) : (!tile.ptr<i32>) -> tensor<32x!tile.ptr<i32>>
  %q = "tile.addptr"(%pp, %4) : (tensor<32x!tile.ptr<i32>>, tensor<32xi32>) -> tensor<32x!tile.ptr<i32>>
  "tile.store"(%q, %4) : (tensor<32x!tile.ptr<i32>>, tensor<32xi32>) -> ()
  "tile.store"(%q, %5) : (tensor<32x!tile.ptr<i32>>, tensor<32xi32>) -> ()
  return
}

// -----

// Attributes tell ops apart: different ranges stay two.
// CHECK-LABEL: func.func @different_attrs
// CHECK-COUNT-2: tile.make_range
func.func @different_attrs(%p: !tile.ptr<i32>) {
  %0 = "tile.make_range"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32>
  %1 = "tile.make_range"() {start = 32 : i32, end = 64 : i32} : () -> tensor<32xi32>
  %pp = "tile.splat"(%p) : (!tile.ptr<i32>) -> tensor<32x!tile.ptr<i32>>
  %q = "tile.addptr"(%pp, %0) : (tensor<32x!tile.ptr<i32>>, tensor<32xi32>) -> tensor<32x!tile.ptr<i32>>
  "tile.store"(%q, %1) : (tensor<32x!tile.ptr<i32>>, tensor<32xi32>) -> ()
  return
}

// -----

// Loads are not merged: memory may change between them.
// CHECK-LABEL: func.func @loads_stay
// CHECK-COUNT-2: "tile.load"
func.func @loads_stay(%p: !tile.ptr<f32>) -> f32 {
  %0 = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32>) -> f32
  %1 = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32>) -> f32
  %2 = arith.addf %0, %1 : f32
  return %2 : f32
}

// -----

// An op in a loop body reuses one computed before the loop.
// CHECK-LABEL: func.func @from_outer_scope
// CHECK: tile.splat"(%arg1)
// CHECK-NOT: tile.splat"(%arg1)
// CHECK: return
func.func @from_outer_scope(%p: !tile.ptr<i32>, %n: i32) {
  %s = "tile.splat"(%n) : (i32) -> tensor<8xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %pp = "tile.splat"(%p) : (!tile.ptr<i32>) -> tensor<8x!tile.ptr<i32>>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %t = "tile.splat"(%n) : (i32) -> tensor<8xi32>
    %q = "tile.addptr"(%pp, %t) : (tensor<8x!tile.ptr<i32>>, tensor<8xi32>) -> tensor<8x!tile.ptr<i32>>
    "tile.store"(%q, %s) : (tensor<8x!tile.ptr<i32>>, tensor<8xi32>) -> ()
    scf.yield
  }
  return
}
