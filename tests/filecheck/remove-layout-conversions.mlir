// RUN: %tilec opt %s --pass=convert-to-gpu,coalesce,remove-layout-conversions --split-input-file | FileCheck %s

// The layout coalesce chose for the memory ops propagates back through the
// address arithmetic (recomputed in it) and forward through the addf: no
// conversion is left.
// CHECK-LABEL: func.func @vector
// CHECK-NOT: tile.convert_layout
// CHECK: "tile.make_range"{{.*}} -> tensor<1024xi32, #tile.blocked<[4], [32], [4], [0]>>
// CHECK-NOT: tile.convert_layout
// CHECK: arith.addf {{.*}} : tensor<1024xf32, #tile.blocked<[4], [32], [4], [0]>>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @vector(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = "tile.make_range"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %xp = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %xa = "tile.addptr"(%xp, %r) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %v = "tile.load"(%xa) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32>>) -> tensor<1024xf32>
  %w = arith.addf %v, %v : tensor<1024xf32>
  %yp = "tile.splat"(%y) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %ya = "tile.addptr"(%yp, %r) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  "tile.store"(%ya, %w) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>) -> ()
  return
}

// -----

// Nothing to remove.
// CHECK-LABEL: func.func @unaligned
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @unaligned(%x: !tile.ptr<f32>) {
  %r = "tile.make_range"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %xp = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %xa = "tile.addptr"(%xp, %r) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %v = "tile.load"(%xa) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32>>) -> tensor<1024xf32>
  "tile.store"(%xa, %v) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>) -> ()
  return
}

// -----

// 2-D: the ranges are recomputed in slices of the load's layout, so that
// expand_dims needs no conversion either.
// CHECK-LABEL: func.func @rows
// CHECK-NOT: tile.convert_layout
// CHECK: "tile.make_range"{{.*}} -> tensor<32xi32, #tile.slice<1 : i64, #tile.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>>
// CHECK: "tile.make_range"{{.*}} -> tensor<64xi32, #tile.slice<0 : i64, #tile.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @rows(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) {
  %r = "tile.make_range"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32>
  %c = "tile.make_range"() {start = 0 : i32, end = 64 : i32} : () -> tensor<64xi32>
  %r2 = "tile.expand_dims"(%r) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
  %s = "tile.splat"(%stride) : (i32) -> tensor<32x1xi32>
  %rs = arith.muli %r2, %s : tensor<32x1xi32>
  %c2 = "tile.expand_dims"(%c) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %rb = "tile.broadcast"(%rs) : (tensor<32x1xi32>) -> tensor<32x64xi32>
  %cb = "tile.broadcast"(%c2) : (tensor<1x64xi32>) -> tensor<32x64xi32>
  %o = arith.addi %rb, %cb : tensor<32x64xi32>
  %xp = "tile.splat"(%x) : (!tile.ptr<f16>) -> tensor<32x64x!tile.ptr<f16>>
  %xa = "tile.addptr"(%xp, %o) : (tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>) -> tensor<32x64x!tile.ptr<f16>>
  %v = "tile.load"(%xa) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x64x!tile.ptr<f16>>) -> tensor<32x64xf16>
  %w = arith.addf %v, %v : tensor<32x64xf16>
  "tile.store"(%xa, %w) : (tensor<32x64x!tile.ptr<f16>>, tensor<32x64xf16>) -> ()
  return
}

// -----

// A reduction's result is in a slice layout and cannot be recomputed: the
// conversion to the store's layout stays, once.
// CHECK-LABEL: func.func @after_reduce
// CHECK: "tile.reduce"
// CHECK: "tile.convert_layout"
// CHECK-NOT: "tile.convert_layout"
// CHECK: "tile.store"
func.func @after_reduce(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) {
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

// A value carried by a loop takes the layout of the loads that feed it: the
// loop carries the accumulator in the loads' coalesced layout, and no
// conversion is left, in the loop or after it.
// CHECK-LABEL: func.func @accumulate
// CHECK-NOT: "tile.convert_layout"
// CHECK: scf.for {{.*}} -> (tensor<256xf32, #tile.blocked<[2], [32], [4], [0]>>)
// CHECK: "tile.load"
// CHECK-NOT: "tile.convert_layout"
// CHECK: "tile.store"
func.func @accumulate(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32, %stride: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<256xf32>
  %cols = "tile.make_range"() {start = 0 : i32, end = 256 : i32} : () -> tensor<256xi32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<256xf32>) : i32 {
    %row = arith.muli %i, %stride : i32
    %rs = "tile.splat"(%row) : (i32) -> tensor<256xi32>
    %off = arith.addi %rs, %cols : tensor<256xi32>
    %xp = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<256x!tile.ptr<f32>>
    %xa = "tile.addptr"(%xp, %off) : (tensor<256x!tile.ptr<f32>>, tensor<256xi32>) -> tensor<256x!tile.ptr<f32>>
    %v = "tile.load"(%xa) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<256x!tile.ptr<f32>>) -> tensor<256xf32>
    %s = arith.addf %a, %v : tensor<256xf32>
    scf.yield %s : tensor<256xf32>
  }
  %yp = "tile.splat"(%y) : (!tile.ptr<f32>) -> tensor<256x!tile.ptr<f32>>
  %ya = "tile.addptr"(%yp, %cols) : (tensor<256x!tile.ptr<f32>>, tensor<256xi32>) -> tensor<256x!tile.ptr<f32>>
  "tile.store"(%ya, %acc) : (tensor<256x!tile.ptr<f32>>, tensor<256xf32>) -> ()
  return
}

// -----

// A pointer the loop carries and converts for its load (`ptrs += step`, as
// in a matmul's K loop) is carried in the load's layout, the increment
// recomputed in it: no conversion is left in the loop.
// CHECK-LABEL: func.func @carried_pointer
// CHECK: scf.for {{.*}} -> (tensor<1024xf32, #tile.blocked<[4], [32], [4], [0]>>, tensor<1024x!tile.ptr<f32>, #tile.blocked<[4], [32], [4], [0]>>)
// CHECK-NOT: "tile.convert_layout"
// CHECK: scf.yield
func.func @carried_pointer(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %step = arith.constant dense<1024> : tensor<1024xi32>
  %cols = "tile.make_range"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %xp = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %xa = "tile.addptr"(%xp, %cols) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %acc:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero, %q = %xa) -> (tensor<1024xf32>, tensor<1024x!tile.ptr<f32>>) : i32 {
    %v = "tile.load"(%q) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32>>) -> tensor<1024xf32>
    %s = arith.addf %a, %v : tensor<1024xf32>
    %q2 = "tile.addptr"(%q, %step) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
    scf.yield %s, %q2 : tensor<1024xf32>, tensor<1024x!tile.ptr<f32>>
  }
  %yp = "tile.splat"(%y) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %ya = "tile.addptr"(%yp, %cols) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  "tile.store"(%ya, %acc#0) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>) -> ()
  return
}

// -----

// A load's layout carries forward (Triton's layout propagation): through
// the conversion coalesce left, into the reduction (which reduces in it, its
// scalar result splat back in it) and the x - max, exp chain, which runs
// once, in the load's layout; no conversion is left.
// CHECK-LABEL: func.func @softmax_row
// CHECK-NOT: tile.convert_layout
// CHECK: "tile.reduce"(%{{[0-9]+}})
// CHECK: (tensor<512xf32, #tile.blocked<[4], [32], [4], [0]>>) -> f32
// CHECK: arith.subf {{.*}} : tensor<512xf32, #tile.blocked<[4], [32], [4], [0]>>
// CHECK: math.exp {{.*}} : tensor<512xf32, #tile.blocked<[4], [32], [4], [0]>>
// CHECK-NOT: tile.convert_layout
// CHECK: "tile.store"
func.func @softmax_row(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = "tile.make_range"() {start = 0 : i32, end = 512 : i32} : () -> tensor<512xi32, #tile.blocked<[1], [32], [4], [0]>>
  %xp = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<512x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>
  %xa = "tile.addptr"(%xp, %r) : (tensor<512x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>, tensor<512xi32, #tile.blocked<[1], [32], [4], [0]>>) -> tensor<512x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>
  %xa4 = "tile.convert_layout"(%xa) : (tensor<512x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>) -> tensor<512x!tile.ptr<f32>, #tile.blocked<[4], [32], [4], [0]>>
  %v4 = "tile.load"(%xa4) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<512x!tile.ptr<f32>, #tile.blocked<[4], [32], [4], [0]>>) -> tensor<512xf32, #tile.blocked<[4], [32], [4], [0]>>
  %v = "tile.convert_layout"(%v4) : (tensor<512xf32, #tile.blocked<[4], [32], [4], [0]>>) -> tensor<512xf32, #tile.blocked<[1], [32], [4], [0]>>
  %m = "tile.reduce"(%v) ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.maxnumf %a, %b : f32
    gpu.yield %c : f32
  }) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<512xf32, #tile.blocked<[1], [32], [4], [0]>>) -> f32
  %ms = "tile.splat"(%m) : (f32) -> tensor<512xf32, #tile.blocked<[1], [32], [4], [0]>>
  %d = arith.subf %v, %ms : tensor<512xf32, #tile.blocked<[1], [32], [4], [0]>>
  %e = math.exp %d : tensor<512xf32, #tile.blocked<[1], [32], [4], [0]>>
  %yp = "tile.splat"(%y) : (!tile.ptr<f32>) -> tensor<512x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>
  %ya = "tile.addptr"(%yp, %r) : (tensor<512x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>, tensor<512xi32, #tile.blocked<[1], [32], [4], [0]>>) -> tensor<512x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>
  %ya4 = "tile.convert_layout"(%ya) : (tensor<512x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>) -> tensor<512x!tile.ptr<f32>, #tile.blocked<[4], [32], [4], [0]>>
  %e4 = "tile.convert_layout"(%e) : (tensor<512xf32, #tile.blocked<[1], [32], [4], [0]>>) -> tensor<512xf32, #tile.blocked<[4], [32], [4], [0]>>
  "tile.store"(%ya4, %e4) : (tensor<512x!tile.ptr<f32>, #tile.blocked<[4], [32], [4], [0]>>, tensor<512xf32, #tile.blocked<[4], [32], [4], [0]>>) -> ()
  return
}

