// RUN: %tilec opt %s --pass=licm --split-input-file | FileCheck %s

// Pure computation that does not depend on the loop moves before it; what
// depends on the induction variable or on loads stays.
// CHECK-LABEL: func.func @hoist
// CHECK: tile.make_range
// CHECK: tile.splat
// CHECK: arith.muli %arg1, %arg1
// CHECK: scf.for
// CHECK: tile.load
// CHECK: arith.addi %{{.*}}, %arg
// CHECK: scf.yield
func.func @hoist(%p: !tile.ptr<i32>, %n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %0 = "tile.make_range"() {start = 0 : i32, end = 16 : i32} : () -> tensor<16xi32>
    %pp = "tile.splat"(%p) : (!tile.ptr<i32>) -> tensor<16x!tile.ptr<i32>>
    %q = "tile.addptr"(%pp, %0) : (tensor<16x!tile.ptr<i32>>, tensor<16xi32>) -> tensor<16x!tile.ptr<i32>>
    %v = "tile.load"(%q) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<16x!tile.ptr<i32>>) -> tensor<16xi32>
    %sq = arith.muli %n, %n : i32
    %s = arith.addi %acc, %i : i32
    %t = arith.addi %s, %sq : i32
    scf.yield %t : i32
  }
  return %r : i32
}

// -----

// Invariants climb out of nested loops.
// CHECK-LABEL: func.func @nested
// CHECK: "tile.splat"(%arg1)
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: "tile.splat"(%arg1)
// CHECK: tile.store
func.func @nested(%p: !tile.ptr<i32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    scf.for %j = %c0 to %n step %c1 : i32 {
      %s = "tile.splat"(%n) : (i32) -> tensor<8xi32>
      %pp = "tile.splat"(%p) : (!tile.ptr<i32>) -> tensor<8x!tile.ptr<i32>>
      %js = "tile.splat"(%j) : (i32) -> tensor<8xi32>
      %q = "tile.addptr"(%pp, %js) : (tensor<8x!tile.ptr<i32>>, tensor<8xi32>) -> tensor<8x!tile.ptr<i32>>
      "tile.store"(%q, %s) : (tensor<8x!tile.ptr<i32>>, tensor<8xi32>) -> ()
      scf.yield
    }
    scf.yield
  }
  return
}
