// RUN: %tilec opt %s --pass=remove-layout-conversions | FileCheck %s

// Per-row math that libdevice computes (attention's m + log2(l) before its
// store): the conversion to the store's layout moves back to the two rows
// it reads, so log2 runs once a row (one element a thread) and not once for
// each of the four threads an MMA row lies in. Cheap math (exp2, one ex2
// instruction) keeps its one conversion after it.
// CHECK-LABEL: func.func @row_log2
// CHECK: math.log2 {{.*}} : tensor<128xf32, #tile.blocked<[1], [32], [4], [0]>>
// CHECK-LABEL: func.func @row_exp2
// CHECK: math.exp2 {{.*}} : tensor<128xf32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
// CHECK: tile.convert_layout
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @row_log2(%lp: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %mp: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %op: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %lps = "tile.splat"(%lp) : (!tile.ptr<f32>) -> tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %la = "tile.addptr"(%lps, %r) : (tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>, tensor<128xi32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>) -> tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %l = "tile.load"(%la) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>) -> tensor<128xf32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %mps = "tile.splat"(%mp) : (!tile.ptr<f32>) -> tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %ma = "tile.addptr"(%mps, %r) : (tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>, tensor<128xi32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>) -> tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %m = "tile.load"(%ma) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>) -> tensor<128xf32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %g = math.log2 %l : tensor<128xf32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %s = arith.addf %m, %g : tensor<128xf32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %c = "tile.convert_layout"(%s) : (tensor<128xf32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>) -> tensor<128xf32, #tile.blocked<[1], [32], [4], [0]>>
  %ro = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32, #tile.blocked<[1], [32], [4], [0]>>
  %ops = "tile.splat"(%op) : (!tile.ptr<f32>) -> tensor<128x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>
  %oa = "tile.addptr"(%ops, %ro) : (tensor<128x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>, tensor<128xi32, #tile.blocked<[1], [32], [4], [0]>>) -> tensor<128x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>
  "tile.store"(%oa, %c) : (tensor<128x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>, tensor<128xf32, #tile.blocked<[1], [32], [4], [0]>>) -> ()
  return
}

func.func @row_exp2(%lp: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %mp: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %op: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %lps = "tile.splat"(%lp) : (!tile.ptr<f32>) -> tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %la = "tile.addptr"(%lps, %r) : (tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>, tensor<128xi32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>) -> tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %l = "tile.load"(%la) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>) -> tensor<128xf32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %mps = "tile.splat"(%mp) : (!tile.ptr<f32>) -> tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %ma = "tile.addptr"(%mps, %r) : (tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>, tensor<128xi32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>) -> tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %m = "tile.load"(%ma) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<128x!tile.ptr<f32>, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>) -> tensor<128xf32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %g = math.exp2 %l : tensor<128xf32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %s = arith.addf %m, %g : tensor<128xf32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>
  %c = "tile.convert_layout"(%s) : (tensor<128xf32, #tile.slice<1 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>>>) -> tensor<128xf32, #tile.blocked<[1], [32], [4], [0]>>
  %ro = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32, #tile.blocked<[1], [32], [4], [0]>>
  %ops = "tile.splat"(%op) : (!tile.ptr<f32>) -> tensor<128x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>
  %oa = "tile.addptr"(%ops, %ro) : (tensor<128x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>, tensor<128xi32, #tile.blocked<[1], [32], [4], [0]>>) -> tensor<128x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>
  "tile.store"(%oa, %c) : (tensor<128x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>, tensor<128xf32, #tile.blocked<[1], [32], [4], [0]>>) -> ()
  return
}
