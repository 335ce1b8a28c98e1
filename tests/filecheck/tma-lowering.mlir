// RUN: %tilec opt %s --pass=tma-lowering --arch sm_90a --split-input-file | FileCheck %s
// RUN: %tilec opt %s --pass=tma-lowering --arch sm_80 --split-input-file | FileCheck %s --check-prefix=SM80

// A host descriptor (its base, shape and strides the kernel's consecutive
// parameters, at the origin): a load and a store through it with every
// dimension checked become TMA copies at the sums of the advances'
// offsets, innermost last as the block's, each naming its descriptor's
// base parameter. The chains go. On sm_80 nothing changes.
// CHECK-LABEL: func.func @host
// CHECK-NOT: tile.make_block_ptr
// CHECK-NOT: tile.advance
// CHECK: %[[R0:.*]] = arith.addi %{{.*}}, %arg10 : i32
// CHECK: %[[R:.*]] = arith.addi %[[R0]], %arg10 : i32
// CHECK: %[[C:.*]] = arith.addi %{{.*}}, %arg11 : i32
// CHECK: %[[X:.*]] = "tile.descriptor_load"(%arg0, %[[R]], %[[C]]) {param = 0 : i32} : (!tile.ptr<f16>, i32, i32) -> tensor<16x64xf16>
// CHECK: "tile.descriptor_store"(%arg5, %[[X]], %{{.*}}, %{{.*}}) {param = 5 : i32}
// SM80-LABEL: func.func @host
// SM80-NOT: descriptor
// SM80: "tile.load"
func.func @host(%a: !tile.ptr<f16>, %am: i64, %an: i64, %as: i64, %at: i64, %b: !tile.ptr<f16>, %bm: i64, %bn: i64, %bs: i64, %bt: i64, %i: i32, %j: i32) {
  %c0 = arith.constant 0 : i32
  %c0b = arith.constant 0 : i32
  %ia = "tile.make_block_ptr"(%a, %am, %an, %as, %at, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 2, 2>, order = array<i32: 1, 0>} : (!tile.ptr<f16>, i64, i64, i64, i64, i32, i32) -> !tile.ptr<tensor<16x64xf16>>
  %ib = "tile.make_block_ptr"(%b, %bm, %bn, %bs, %bt, %c0b, %c0b) {operandSegmentSizes = array<i32: 1, 2, 2, 2>, order = array<i32: 1, 0>} : (!tile.ptr<f16>, i64, i64, i64, i64, i32, i32) -> !tile.ptr<tensor<16x64xf16>>
  %a1 = "tile.advance"(%ia, %i, %c0) : (!tile.ptr<tensor<16x64xf16>>, i32, i32) -> !tile.ptr<tensor<16x64xf16>>
  %a2 = "tile.advance"(%a1, %i, %j) : (!tile.ptr<tensor<16x64xf16>>, i32, i32) -> !tile.ptr<tensor<16x64xf16>>
  %x = "tile.load"(%a2) {boundary_check = array<i32: 0, 1>, operandSegmentSizes = array<i32: 1, 0, 0>, padding = "zero"} : (!tile.ptr<tensor<16x64xf16>>) -> tensor<16x64xf16>
  %b1 = "tile.advance"(%ib, %i, %j) : (!tile.ptr<tensor<16x64xf16>>, i32, i32) -> !tile.ptr<tensor<16x64xf16>>
  "tile.store"(%b1, %x) {boundary_check = array<i32: 0, 1>} : (!tile.ptr<tensor<16x64xf16>>, tensor<16x64xf16>) -> ()
  return
}

// -----

// What stays a block pointer: a block pointer not a host descriptor's
// (strides not parameters), a row of 8 halves (16 bytes pass, 8 do not),
// a dimension not checked, and a load in a loop the pipeliner runs ahead
// (the kernel's stages) but for a 16-bit dot operand's on sm_90a
// (@operand); the store in that loop is a copy.
// CHECK-LABEL: func.func @stays
// CHECK-COUNT-4: "tile.load"
// CHECK: scf.for
// CHECK: "tile.load"
// CHECK: "tile.descriptor_store"
func.func @stays(%a: !tile.ptr<f16>, %am: i64, %an: i64, %as: i64, %at: i64, %i: i32) attributes {tile.num_stages = 3 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %c64 = arith.constant 64 : i64
  %own = "tile.make_block_ptr"(%a, %am, %an, %c64, %c1, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 2, 2>, order = array<i32: 1, 0>} : (!tile.ptr<f16>, i64, i64, i64, i64, i32, i32) -> !tile.ptr<tensor<16x64xf16>>
  %x0 = "tile.load"(%own) {boundary_check = array<i32: 0, 1>, operandSegmentSizes = array<i32: 1, 0, 0>, padding = "zero"} : (!tile.ptr<tensor<16x64xf16>>) -> tensor<16x64xf16>
  %n = "tile.make_block_ptr"(%a, %am, %an, %as, %at, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 2, 2>, order = array<i32: 1, 0>} : (!tile.ptr<f16>, i64, i64, i64, i64, i32, i32) -> !tile.ptr<tensor<16x4xf16>>
  %x1 = "tile.load"(%n) {boundary_check = array<i32: 0, 1>, operandSegmentSizes = array<i32: 1, 0, 0>, padding = "zero"} : (!tile.ptr<tensor<16x4xf16>>) -> tensor<16x4xf16>
  %w = "tile.make_block_ptr"(%a, %am, %an, %as, %at, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 2, 2>, order = array<i32: 1, 0>} : (!tile.ptr<f16>, i64, i64, i64, i64, i32, i32) -> !tile.ptr<tensor<16x64xf16>>
  %x2 = "tile.load"(%w) {boundary_check = array<i32: 0>, operandSegmentSizes = array<i32: 1, 0, 0>, padding = "zero"} : (!tile.ptr<tensor<16x64xf16>>) -> tensor<16x64xf16>
  %x3 = "tile.load"(%w) {boundary_check = array<i32: 1>, operandSegmentSizes = array<i32: 1, 0, 0>, padding = "zero"} : (!tile.ptr<tensor<16x64xf16>>) -> tensor<16x64xf16>
  %lb = arith.constant 0 : i32
  %ub = arith.constant 4 : i32
  %st = arith.constant 1 : i32
  scf.for %k = %lb to %ub step %st : i32 {
    %p = "tile.advance"(%w, %k, %c0) : (!tile.ptr<tensor<16x64xf16>>, i32, i32) -> !tile.ptr<tensor<16x64xf16>>
    %y = "tile.load"(%p) {boundary_check = array<i32: 0, 1>, operandSegmentSizes = array<i32: 1, 0, 0>, padding = "zero"} : (!tile.ptr<tensor<16x64xf16>>) -> tensor<16x64xf16>
    "tile.store"(%p, %y) {boundary_check = array<i32: 0, 1>} : (!tile.ptr<tensor<16x64xf16>>, tensor<16x64xf16>) -> ()
  }
  return
}

// -----

// In a pipelined loop on sm_90a, a 16-bit dot operand's load, directly
// or through tl.trans, is a copy: the pipeliner fills its slots by TMA.
// CHECK-LABEL: func.func @operand
// CHECK: scf.for
// CHECK: "tile.descriptor_load"(%arg0, %{{.*}}, %{{.*}}) {param = 0 : i32}
// CHECK: "tile.descriptor_load"(%arg5, %{{.*}}, %{{.*}}) {param = 5 : i32}
// CHECK: tile.trans
// CHECK: tile.dot
func.func @operand(%a: !tile.ptr<f16>, %am: i64, %an: i64, %as: i64, %at: i64, %b: !tile.ptr<f16>, %bm: i64, %bn: i64, %bs: i64, %bt: i64) -> tensor<64x32xf32> attributes {tile.num_stages = 3 : i32} {
  %c0 = arith.constant 0 : i32
  %c0b = arith.constant 0 : i32
  %ia = "tile.make_block_ptr"(%a, %am, %an, %as, %at, %c0, %c0) {operandSegmentSizes = array<i32: 1, 2, 2, 2>, order = array<i32: 1, 0>} : (!tile.ptr<f16>, i64, i64, i64, i64, i32, i32) -> !tile.ptr<tensor<64x16xf16>>
  %ib = "tile.make_block_ptr"(%b, %bm, %bn, %bs, %bt, %c0b, %c0b) {operandSegmentSizes = array<i32: 1, 2, 2, 2>, order = array<i32: 1, 0>} : (!tile.ptr<f16>, i64, i64, i64, i64, i32, i32) -> !tile.ptr<tensor<32x16xf16>>
  %acc0 = arith.constant dense<0.0> : tensor<64x32xf32>
  %lb = arith.constant 0 : i32
  %ub = arith.constant 4 : i32
  %st = arith.constant 1 : i32
  %r = scf.for %k = %lb to %ub step %st iter_args(%acc = %acc0) -> (tensor<64x32xf32>) : i32 {
    %pa = "tile.advance"(%ia, %c0, %k) : (!tile.ptr<tensor<64x16xf16>>, i32, i32) -> !tile.ptr<tensor<64x16xf16>>
    %x = "tile.load"(%pa) {boundary_check = array<i32: 0, 1>, operandSegmentSizes = array<i32: 1, 0, 0>, padding = "zero"} : (!tile.ptr<tensor<64x16xf16>>) -> tensor<64x16xf16>
    %pb = "tile.advance"(%ib, %c0, %k) : (!tile.ptr<tensor<32x16xf16>>, i32, i32) -> !tile.ptr<tensor<32x16xf16>>
    %y = "tile.load"(%pb) {boundary_check = array<i32: 0, 1>, operandSegmentSizes = array<i32: 1, 0, 0>, padding = "zero"} : (!tile.ptr<tensor<32x16xf16>>) -> tensor<32x16xf16>
    %yt = "tile.trans"(%y) {order = array<i32: 1, 0>} : (tensor<32x16xf16>) -> tensor<16x32xf16>
    %d = "tile.dot"(%x, %yt, %acc) : (tensor<64x16xf16>, tensor<16x32xf16>, tensor<64x32xf32>) -> tensor<64x32xf32>
    scf.yield %d : tensor<64x32xf32>
  }
  return %r : tensor<64x32xf32>
}
