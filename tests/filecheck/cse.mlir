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

// Two equal loads with nothing between them that writes memory read the
// same: one remains (as MLIR's CSE merges Triton's loads, which only read).
// CHECK-LABEL: func.func @loads_merge
// CHECK-COUNT-1: "tile.load"
// CHECK-NOT: "tile.load"
// CHECK: arith.addf %0, %0
func.func @loads_merge(%p: !tile.ptr<f32>) -> f32 {
  %0 = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32>) -> f32
  %1 = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32>) -> f32
  %2 = arith.addf %0, %1 : f32
  return %2 : f32
}

// -----

// A store between them, a loop between them (it may store), or volatile
// loads: two loads stay two.
// CHECK-LABEL: func.func @loads_stay
// CHECK-COUNT-5: "tile.load"
// CHECK-NOT: "tile.load"
func.func @loads_stay(%p: !tile.ptr<f32>, %n: i32) -> f32 {
  %0 = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32>) -> f32
  %c = arith.constant 1.0 : f32
  "tile.store"(%p, %c) : (!tile.ptr<f32>, f32) -> ()
  %1 = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32>) -> f32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    "tile.store"(%p, %c) : (!tile.ptr<f32>, f32) -> ()
  }
  %2 = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>} : (!tile.ptr<f32>) -> f32
  %3 = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>, volatile} : (!tile.ptr<f32>) -> f32
  %4 = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>, volatile} : (!tile.ptr<f32>) -> f32
  %5 = arith.addf %0, %1 : f32
  %6 = arith.addf %5, %2 : f32
  %7 = arith.addf %6, %3 : f32
  %8 = arith.addf %7, %4 : f32
  return %8 : f32
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

// -----

// What a region computes is not available after it, nor in its sibling:
// the splat of %n in the then-branch, the else-branch and after the if
// are three ops.
// CHECK-LABEL: func.func @scopes_end
// CHECK: scf.if
// CHECK: tile.splat"(%arg1)
// CHECK: else
// CHECK: tile.splat"(%arg1)
// CHECK: tile.splat"(%arg1)
// CHECK-NOT: tile.splat"(%arg1)
// CHECK: return
func.func @scopes_end(%p: !tile.ptr<i32>, %n: i32, %c: i1) {
  %pp = "tile.splat"(%p) : (!tile.ptr<i32>) -> tensor<8x!tile.ptr<i32>>
  scf.if %c {
    %a = "tile.splat"(%n) : (i32) -> tensor<8xi32>
    "tile.store"(%pp, %a) : (tensor<8x!tile.ptr<i32>>, tensor<8xi32>) -> ()
  } else {
    %b = "tile.splat"(%n) : (i32) -> tensor<8xi32>
    "tile.store"(%pp, %b) : (tensor<8x!tile.ptr<i32>>, tensor<8xi32>) -> ()
  }
  %d = "tile.splat"(%n) : (i32) -> tensor<8xi32>
  "tile.store"(%pp, %d) : (tensor<8x!tile.ptr<i32>>, tensor<8xi32>) -> ()
  return
}

// -----

// More ops than the table's first size: the ops seen before it grew are
// still found (the adds of %n and 1..12 repeated stay twelve).
// CHECK-LABEL: func.func @many_ops
// CHECK-COUNT-12: arith.addi
// CHECK-NOT: arith.addi
// CHECK: return
func.func @many_ops(%p: !tile.ptr<i32>, %n: i32) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %c6 = arith.constant 6 : i32
  %c7 = arith.constant 7 : i32
  %c8 = arith.constant 8 : i32
  %c9 = arith.constant 9 : i32
  %c10 = arith.constant 10 : i32
  %c11 = arith.constant 11 : i32
  %c12 = arith.constant 12 : i32
  %a1 = arith.addi %n, %c1 : i32
  %a2 = arith.addi %n, %c2 : i32
  %a3 = arith.addi %n, %c3 : i32
  %a4 = arith.addi %n, %c4 : i32
  %a5 = arith.addi %n, %c5 : i32
  %a6 = arith.addi %n, %c6 : i32
  %a7 = arith.addi %n, %c7 : i32
  %a8 = arith.addi %n, %c8 : i32
  %a9 = arith.addi %n, %c9 : i32
  %a10 = arith.addi %n, %c10 : i32
  %a11 = arith.addi %n, %c11 : i32
  %a12 = arith.addi %n, %c12 : i32
  %b1 = arith.addi %n, %c1 : i32
  %b2 = arith.addi %n, %c2 : i32
  %b3 = arith.addi %n, %c3 : i32
  %b4 = arith.addi %n, %c4 : i32
  %b5 = arith.addi %n, %c5 : i32
  %b6 = arith.addi %n, %c6 : i32
  %b7 = arith.addi %n, %c7 : i32
  %b8 = arith.addi %n, %c8 : i32
  %b9 = arith.addi %n, %c9 : i32
  %b10 = arith.addi %n, %c10 : i32
  %b11 = arith.addi %n, %c11 : i32
  %b12 = arith.addi %n, %c12 : i32
  "tile.store"(%p, %a1) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %a2) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %a3) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %a4) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %a5) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %a6) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %a7) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %a8) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %a9) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %a10) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %a11) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %a12) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %b1) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %b2) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %b3) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %b4) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %b5) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %b6) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %b7) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %b8) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %b9) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %b10) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %b11) : (!tile.ptr<i32>, i32) -> ()
  "tile.store"(%p, %b12) : (!tile.ptr<i32>, i32) -> ()
  return
}
