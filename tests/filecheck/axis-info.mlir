// RUN: %tilec opt %s --pass=axis-info --split-input-file | FileCheck %s

// The vector-add offsets: pid * 1024 + arange(0, 1024) are contiguous in
// runs of 1024 starting at multiples of 1024; with a 16-byte aligned base
// pointer the addresses are 16-byte aligned.
// CHECK-LABEL: func.func @offsets
// CHECK: "tile.make_range"() {end = 1024 : i32, start = 0 : i32, tile.constancy = array<i64: 1>, tile.contiguity = array<i64: 1024>, tile.divisibility = array<i64: 1073741824>}
// CHECK: "tile.splat"(%{{.*}}) {tile.constancy = array<i64: 1024>, tile.contiguity = array<i64: 1>, tile.divisibility = array<i64: 1024>}
// CHECK: arith.addi {{.*}} {tile.constancy = array<i64: 1>, tile.contiguity = array<i64: 1024>, tile.divisibility = array<i64: 1024>}
// CHECK: "tile.addptr"{{.*}} {tile.constancy = array<i64: 1>, tile.contiguity = array<i64: 1024>, tile.divisibility = array<i64: 16>}
func.func @offsets(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}) -> tensor<1024x!tile.ptr<f32>> {
  %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
  %c = arith.constant 1024 : i32
  %s = arith.muli %pid, %c : i32
  %r = "tile.make_range"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %b = "tile.splat"(%s) : (i32) -> tensor<1024xi32>
  %o = arith.addi %b, %r : tensor<1024xi32>
  %pp = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %q = "tile.addptr"(%pp, %o) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  return %q : tensor<1024x!tile.ptr<f32>>
}

// -----

// Without the :16 hint nothing is known of the alignment, as in Triton.
// CHECK-LABEL: func.func @unaligned
// CHECK: "tile.addptr"{{.*}} tile.contiguity = array<i64: 128>, tile.divisibility = array<i64: 1>
func.func @unaligned(%p: !tile.ptr<f32>) -> tensor<128x!tile.ptr<f32>> {
  %r = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>
  %pp = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<128x!tile.ptr<f32>>
  %q = "tile.addptr"(%pp, %r) : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f32>>
  return %q : tensor<128x!tile.ptr<f32>>
}

// -----

// 2-D: rows[:, None] * stride + cols[None, :]: contiguous along dim 1 only;
// a stride that is a multiple of 16 keeps each row's start aligned to 16.
// CHECK-LABEL: func.func @two_d
// CHECK: arith.addi {{.*}} {tile.constancy = array<i64: 1, 1>, tile.contiguity = array<i64: 1, 64>, tile.divisibility = array<i64: 1, 16>}
func.func @two_d(%stride: i32 {tile.divisibility = 16 : i32}) -> tensor<32x64xi32> {
  %r = "tile.make_range"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32>
  %c = "tile.make_range"() {start = 0 : i32, end = 64 : i32} : () -> tensor<64xi32>
  %r2 = "tile.expand_dims"(%r) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
  %s = "tile.splat"(%stride) : (i32) -> tensor<32x1xi32>
  %rs = arith.muli %r2, %s : tensor<32x1xi32>
  %c2 = "tile.expand_dims"(%c) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %rb = "tile.broadcast"(%rs) : (tensor<32x1xi32>) -> tensor<32x64xi32>
  %cb = "tile.broadcast"(%c2) : (tensor<1x64xi32>) -> tensor<32x64xi32>
  %o = arith.addi %rb, %cb : tensor<32x64xi32>
  return %o : tensor<32x64xi32>
}

// -----

// The hints set what they say.
// CHECK-LABEL: func.func @hints
// CHECK: "tile.max_contiguous"{{.*}} tile.contiguity = array<i64: 8>
// CHECK: "tile.multiple_of"{{.*}} tile.contiguity = array<i64: 8>, tile.divisibility = array<i64: 32>
func.func @hints(%x: tensor<64xi32>) -> tensor<64xi32> {
  %a = "tile.max_contiguous"(%x) {values = array<i32: 8>} : (tensor<64xi32>) -> tensor<64xi32>
  %b = "tile.multiple_of"(%a) {values = array<i32: 32>} : (tensor<64xi32>) -> tensor<64xi32>
  return %b : tensor<64xi32>
}
