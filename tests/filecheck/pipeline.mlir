// RUN: %tilec opt %s --pass=convert-to-gpu,coalesce,accelerate-matmul,remove-layout-conversions,pipeline --split-input-file | FileCheck %s
// RUN: sed 's/tile.num_stages = 1 :/tile.num_stages = 3 :/' %s > %t.mlir && %tilec opt %t.mlir --pass=convert-to-gpu,coalesce,accelerate-matmul,remove-layout-conversions,pipeline --split-input-file | FileCheck %s --check-prefix=W2

// A K loop: the loads of A and B feed only the dot (through their
// conversions to its operands), their pointers advance each step and
// nothing else uses them. The loads, their masks (from the induction
// variable) and the pointers' increments are the first stage; the dot is
// not; the loop is pipelined over the kernel's 3 stages.
// CHECK-LABEL: func.func @kloop
// CHECK: scf.for
// CHECK: arith.cmpi slt, {{.*}} {tile.stage = 0 : i32}
// CHECK: "tile.load"{{.*}}tile.stage = 0 : i32
// CHECK: "tile.load"{{.*}}tile.stage = 0 : i32
// CHECK-NOT: tile.stage
// CHECK: "tile.dot"
// CHECK: "tile.addptr"{{.*}}{tile.stage = 0 : i32}
// CHECK: "tile.addptr"{{.*}}{tile.stage = 0 : i32}
// CHECK: scf.yield
// CHECK-NEXT: } {tile.pipeline = 3 : i32}
func.func @kloop(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) attributes {tile.num_stages = 3 : i32, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %rk = "tile.make_range"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32>
  %r64 = "tile.make_range"() {start = 0 : i32, end = 64 : i32} : () -> tensor<64xi32>
  %ak = "tile.expand_dims"(%rk) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
  %am = "tile.expand_dims"(%r64) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
  %c32t = arith.constant dense<32> : tensor<64x1xi32>
  %arow = arith.muli %am, %c32t : tensor<64x1xi32>
  %arowb = "tile.broadcast"(%arow) : (tensor<64x1xi32>) -> tensor<64x32xi32>
  %akb = "tile.broadcast"(%ak) : (tensor<1x32xi32>) -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %akb : tensor<64x32xi32>
  %as = "tile.splat"(%a) : (!tile.ptr<f16>) -> tensor<64x32x!tile.ptr<f16>>
  %ap = "tile.addptr"(%as, %aoff) : (tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>) -> tensor<64x32x!tile.ptr<f16>>
  %bk = "tile.expand_dims"(%rk) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
  %bn = "tile.expand_dims"(%r64) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %c64t = arith.constant dense<64> : tensor<32x1xi32>
  %brow = arith.muli %bk, %c64t : tensor<32x1xi32>
  %browb = "tile.broadcast"(%brow) : (tensor<32x1xi32>) -> tensor<32x64xi32>
  %bnb = "tile.broadcast"(%bn) : (tensor<1x64xi32>) -> tensor<32x64xi32>
  %boff = arith.addi %browb, %bnb : tensor<32x64xi32>
  %bs = "tile.splat"(%b) : (!tile.ptr<f16>) -> tensor<32x64x!tile.ptr<f16>>
  %bp = "tile.addptr"(%bs, %boff) : (tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>) -> tensor<32x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %astep = arith.constant dense<32> : tensor<64x32xi32>
  %bstep = arith.constant dense<2048> : tensor<32x64xi32>
  %r:3 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %pa = %ap, %pb = %bp) -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>) : i32 {
    %ks = "tile.splat"(%k) : (i32) -> tensor<1x32xi32>
    %kk = arith.addi %ak, %ks : tensor<1x32xi32>
    %Ks = "tile.splat"(%K) : (i32) -> tensor<1x32xi32>
    %in = arith.cmpi slt, %kk, %Ks : tensor<1x32xi32>
    %inb = "tile.broadcast"(%in) : (tensor<1x32xi1>) -> tensor<64x32xi1>
    %x = "tile.load"(%pa, %inb) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi1>) -> tensor<64x32xf16>
    %y = "tile.load"(%pb) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x64x!tile.ptr<f16>>) -> tensor<32x64xf16>
    %d = "tile.dot"(%x, %y, %acc) : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %pa2 = "tile.addptr"(%pa, %astep) : (tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>) -> tensor<64x32x!tile.ptr<f16>>
    %pb2 = "tile.addptr"(%pb, %bstep) : (tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>) -> tensor<32x64x!tile.ptr<f16>>
    scf.yield %d, %pa2, %pb2 : tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>
  }
  %cs = "tile.splat"(%c) : (!tile.ptr<f32>) -> tensor<64x64x!tile.ptr<f32>>
  "tile.store"(%cs, %r#0) : (tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>) -> ()
  return
}

// -----

// Not pipelined: the loop's pointer is used after it (the first stage's
// values run ahead), and with num_stages 1. With 3 stages and no use after
// it, the same loop is (W2).
// W2-LABEL: func.func @one_stage
// W2: } {tile.pipeline = 3 : i32}
// CHECK-LABEL: func.func @used_after
// CHECK-NOT: tile.stage
// CHECK-NOT: tile.pipeline
// CHECK-LABEL: func.func @one_stage
// CHECK-NOT: tile.stage
// CHECK-NOT: tile.pipeline
func.func @used_after(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32) attributes {tile.num_stages = 3 : i32, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %r = "tile.make_range"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %rr = "tile.reshape"(%r) : (tensor<1024xi32>) -> tensor<32x32xi32>
  %as = "tile.splat"(%a) : (!tile.ptr<f16>) -> tensor<32x32x!tile.ptr<f16>>
  %ap = "tile.addptr"(%as, %rr) : (tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>) -> tensor<32x32x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %step = arith.constant dense<1024> : tensor<32x32xi32>
  %out:2 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %p = %ap) -> (tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>) : i32 {
    %x = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x32x!tile.ptr<f16>>) -> tensor<32x32xf16>
    %y = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x32x!tile.ptr<f16>>) -> tensor<32x32xf16>
    %d = "tile.dot"(%x, %y, %acc) : (tensor<32x32xf16>, tensor<32x32xf16>, tensor<32x32xf32>) -> tensor<32x32xf32>
    %p2 = "tile.addptr"(%p, %step) : (tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>) -> tensor<32x32x!tile.ptr<f16>>
    scf.yield %d, %p2 : tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>
  }
  %v = "tile.load"(%out#1) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x32x!tile.ptr<f16>>) -> tensor<32x32xf16>
  %w = arith.extf %v : tensor<32x32xf16> to tensor<32x32xf32>
  %s = arith.addf %w, %out#0 : tensor<32x32xf32>
  %cs = "tile.splat"(%c) : (!tile.ptr<f32>) -> tensor<32x32x!tile.ptr<f32>>
  "tile.store"(%cs, %s) : (tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>) -> ()
  return
}

func.func @one_stage(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32) attributes {tile.num_stages = 1 : i32, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %r = "tile.make_range"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32>
  %rm = "tile.expand_dims"(%r) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
  %rk = "tile.expand_dims"(%r) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
  %c32t = arith.constant dense<32> : tensor<32x1xi32>
  %rows = arith.muli %rm, %c32t : tensor<32x1xi32>
  %rowsb = "tile.broadcast"(%rows) : (tensor<32x1xi32>) -> tensor<32x32xi32>
  %rkb = "tile.broadcast"(%rk) : (tensor<1x32xi32>) -> tensor<32x32xi32>
  %rr = arith.addi %rowsb, %rkb : tensor<32x32xi32>
  %as = "tile.splat"(%a) : (!tile.ptr<f16>) -> tensor<32x32x!tile.ptr<f16>>
  %ap = "tile.addptr"(%as, %rr) : (tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>) -> tensor<32x32x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %step = arith.constant dense<1024> : tensor<32x32xi32>
  %out:2 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %p = %ap) -> (tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>) : i32 {
    %x = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x32x!tile.ptr<f16>>) -> tensor<32x32xf16>
    %y = "tile.load"(%p) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x32x!tile.ptr<f16>>) -> tensor<32x32xf16>
    %d = "tile.dot"(%x, %y, %acc) : (tensor<32x32xf16>, tensor<32x32xf16>, tensor<32x32xf32>) -> tensor<32x32xf32>
    %p2 = "tile.addptr"(%p, %step) : (tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>) -> tensor<32x32x!tile.ptr<f16>>
    scf.yield %d, %p2 : tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>
  }
  %cs = "tile.splat"(%c) : (!tile.ptr<f32>) -> tensor<32x32x!tile.ptr<f32>>
  "tile.store"(%cs, %out#0) : (tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>) -> ()
  return
}

// -----

// Not pipelined: cp.async cannot copy the loads (the mask of an unhinted
// K changes at any element, so a thread's run is one 2-byte element), and
// Triton's pipeliner leaves such loads in the loop: held in registers
// S - 1 iterations ahead they would cost S - 1 copies of the tile.
// CHECK-LABEL: func.func @not_copyable
// CHECK-NOT: tile.stage
// CHECK-NOT: tile.pipeline
// CHECK: return
func.func @not_copyable(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32) attributes {tile.num_stages = 3 : i32, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %r = "tile.make_range"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32>
  %rm = "tile.expand_dims"(%r) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
  %rk = "tile.expand_dims"(%r) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
  %c32t = arith.constant dense<32> : tensor<32x1xi32>
  %rows = arith.muli %rm, %c32t : tensor<32x1xi32>
  %rowsb = "tile.broadcast"(%rows) : (tensor<32x1xi32>) -> tensor<32x32xi32>
  %rkb = "tile.broadcast"(%rk) : (tensor<1x32xi32>) -> tensor<32x32xi32>
  %rr = arith.addi %rowsb, %rkb : tensor<32x32xi32>
  %as = "tile.splat"(%a) : (!tile.ptr<f16>) -> tensor<32x32x!tile.ptr<f16>>
  %ap = "tile.addptr"(%as, %rr) : (tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>) -> tensor<32x32x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %step = arith.constant dense<32> : tensor<32x32xi32>
  %out:2 = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero, %p = %ap) -> (tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>) : i32 {
    %ks = "tile.splat"(%k) : (i32) -> tensor<1x32xi32>
    %kk = arith.addi %rk, %ks : tensor<1x32xi32>
    %Ks = "tile.splat"(%K) : (i32) -> tensor<1x32xi32>
    %in = arith.cmpi slt, %kk, %Ks : tensor<1x32xi32>
    %inb = "tile.broadcast"(%in) : (tensor<1x32xi1>) -> tensor<32x32xi1>
    %x = "tile.load"(%p, %inb) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi1>) -> tensor<32x32xf16>
    %y = "tile.load"(%p, %inb) {operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi1>) -> tensor<32x32xf16>
    %d = "tile.dot"(%x, %y, %acc) : (tensor<32x32xf16>, tensor<32x32xf16>, tensor<32x32xf32>) -> tensor<32x32xf32>
    %p2 = "tile.addptr"(%p, %step) : (tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>) -> tensor<32x32x!tile.ptr<f16>>
    scf.yield %d, %p2 : tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>
  }
  %cs = "tile.splat"(%c) : (!tile.ptr<f32>) -> tensor<32x32x!tile.ptr<f32>>
  "tile.store"(%cs, %out#0) : (tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>) -> ()
  return
}
