// RUN: %tilec opt %s --pass=dce --split-input-file | FileCheck %s

// Unused pure tile ops and arith ops go; the chain behind them too.
// CHECK-LABEL: func.func @unused_chain
// CHECK-NOT: tile.make_range
// CHECK-NOT: tile.splat
// CHECK: return
func.func @unused_chain(%p: !tile.ptr<f32>, %n: i32) {
  %0 = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>
  %1 = "tile.splat"(%n) : (i32) -> tensor<128xi32>
  %2 = arith.addi %0, %1 : tensor<128xi32>
  return
}

// -----

// A store has an effect and stays, with what feeds it; so does a volatile
// load whose value is unused. A load that only reads goes (Triton's loads
// carry a read effect only, and MLIR's DCE takes them).
// CHECK-LABEL: func.func @effects_stay
// CHECK: "tile.load"{{.*}}volatile
// CHECK-NOT: "tile.load"
// CHECK: "tile.store"
func.func @effects_stay(%p: !tile.ptr<f32>) {
  %0 = "tile.make_range"() {start = 0 : i32, end = 64 : i32} : () -> tensor<64xi32>
  %1 = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>>
  %2 = "tile.addptr"(%1, %0) : (tensor<64x!tile.ptr<f32>>, tensor<64xi32>) -> tensor<64x!tile.ptr<f32>>
  %3 = "tile.load"(%2) {operandSegmentSizes = array<i32: 1, 0, 0>, volatile} : (tensor<64x!tile.ptr<f32>>) -> tensor<64xf32>
  %4 = "tile.load"(%2) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<64x!tile.ptr<f32>>) -> tensor<64xf32>
  %c = arith.constant dense<1.0> : tensor<64xf32>
  "tile.store"(%2, %c) : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>) -> ()
  return
}

// -----

// Dead code inside a loop body goes as well.
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.for
// CHECK-NOT: tile.make_range
// CHECK: return
func.func @in_loop(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %0 = "tile.make_range"() {start = 0 : i32, end = 16 : i32} : () -> tensor<16xi32>
    scf.yield
  }
  return
}

// -----

// A dead op that uses one producer twice frees it once; the whole chain
// behind goes.
// CHECK-LABEL: func.func @operand_twice
// CHECK-NOT: arith.
// CHECK-NOT: tile.
// CHECK: return
func.func @operand_twice(%n: i32) {
  %0 = "tile.splat"(%n) : (i32) -> tensor<16xi32>
  %1 = arith.muli %0, %0 : tensor<16xi32>
  %2 = arith.addi %1, %1 : tensor<16xi32>
  %3 = arith.subi %2, %0 : tensor<16xi32>
  return
}
