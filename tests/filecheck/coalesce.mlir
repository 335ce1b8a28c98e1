// RUN: %tilec opt %s --pass=convert-to-gpu,coalesce --split-input-file | FileCheck %s

// 16-byte aligned, contiguous fp32 addresses: each thread loads 4 in a row
// (128 bits); the value goes back to the default layout for its users.
// CHECK-LABEL: func.func @vector
// CHECK: "tile.load"{{.*}} -> tensor<1024xf32, #tile.blocked<[4], [32], [4], [0]>>
// CHECK: "tile.convert_layout"{{.*}} -> tensor<1024xf32, #tile.blocked<[1], [32], [4], [0]>>
// CHECK: "tile.store"{{.*}} : (tensor<1024x!tile.ptr<f32>, #tile.blocked<[4], [32], [4], [0]>>, tensor<1024xf32, #tile.blocked<[4], [32], [4], [0]>>) -> ()
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

// Without alignment hints one element per thread: nothing to change.
// CHECK-LABEL: func.func @unaligned
// CHECK-NOT: tile.convert_layout
// CHECK: "tile.load"{{.*}} -> tensor<1024xf32, #tile.blocked<[1], [32], [4], [0]>>
func.func @unaligned(%x: !tile.ptr<f32>) {
  %r = "tile.make_range"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %xp = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %xa = "tile.addptr"(%xp, %r) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %v = "tile.load"(%xa) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32>>) -> tensor<1024xf32>
  "tile.store"(%xa, %v) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>) -> ()
  return
}

// -----

// fp16 rows of 64 contiguous elements: 8 halves (16 bytes) per thread along
// the rows, 8 lanes per row, the other 4 lanes and the warps down the rows.
// CHECK-LABEL: func.func @rows
// CHECK: "tile.load"{{.*}} -> tensor<32x64xf16, #tile.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
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

// One computation, one layout (Triton's grouping): the shifted load is
// neither aligned nor a vector on its own, but it feeds the same sum as an
// aligned one, so it takes the group's 4 elements per thread and no
// conversion is left between them.
// CHECK-LABEL: func.func @group
// CHECK: "tile.load"({{.*}} -> tensor<1024xf32, #tile.blocked<[4], [32], [4], [0]>>
// CHECK: "tile.load"({{.*}} -> tensor<1024xf32, #tile.blocked<[4], [32], [4], [0]>>
// CHECK: "tile.store"({{.*}} : (tensor<1024x!tile.ptr<f32>, #tile.blocked<[4], [32], [4], [0]>>
func.func @group(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = "tile.make_range"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %one = arith.constant dense<1> : tensor<1024xi32>
  %s = arith.addi %r, %one : tensor<1024xi32>
  %xp = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %xa = "tile.addptr"(%xp, %r) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %xs = "tile.addptr"(%xp, %s) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %a = "tile.load"(%xa) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32>>) -> tensor<1024xf32>
  %b = "tile.load"(%xs) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32>>) -> tensor<1024xf32>
  %w = arith.addf %a, %b : tensor<1024xf32>
  %yp = "tile.splat"(%y) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %ya = "tile.addptr"(%yp, %r) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  "tile.store"(%ya, %w) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>) -> ()
  return
}

// -----

// A value stored one element a thread (the store is not aligned) is loaded
// so too, though its load is aligned: a wider load would cross threads
// through shared memory before the store.
// CHECK-LABEL: func.func @capped
// CHECK: "tile.load"({{.*}} -> tensor<1024xf32, #tile.blocked<[1], [32], [4], [0]>>
// CHECK: "tile.store"({{.*}} : (tensor<1024x!tile.ptr<f32>, #tile.blocked<[1], [32], [4], [0]>>
func.func @capped(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = "tile.make_range"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %one = arith.constant dense<1> : tensor<1024xi32>
  %s = arith.addi %r, %one : tensor<1024xi32>
  %xp = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %xa = "tile.addptr"(%xp, %r) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %a = "tile.load"(%xa) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32>>) -> tensor<1024xf32>
  %w = arith.addf %a, %a : tensor<1024xf32>
  %yp = "tile.splat"(%y) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %ys = "tile.addptr"(%yp, %s) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  "tile.store"(%ys, %w) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>) -> ()
  return
}

// -----

// A dot's operands are not capped by the store of its result (an unaligned
// C): they reach it through the dot's own layouts, not element for element,
// so A keeps its 16-byte runs.
// CHECK-LABEL: func.func @dot_not_capped
// CHECK: "tile.load"({{.*}} -> tensor<32x32xf16, #tile.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
// CHECK: "tile.store"({{.*}} : (tensor<32x32x!tile.ptr<f32>, #tile.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>>
func.func @dot_not_capped(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>) {
  %r = "tile.make_range"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32>
  %rm = "tile.expand_dims"(%r) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
  %rk = "tile.expand_dims"(%r) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
  %c32t = arith.constant dense<32> : tensor<32x1xi32>
  %rows = arith.muli %rm, %c32t : tensor<32x1xi32>
  %rowsb = "tile.broadcast"(%rows) : (tensor<32x1xi32>) -> tensor<32x32xi32>
  %rkb = "tile.broadcast"(%rk) : (tensor<1x32xi32>) -> tensor<32x32xi32>
  %off = arith.addi %rowsb, %rkb : tensor<32x32xi32>
  %as = "tile.splat"(%a) : (!tile.ptr<f16>) -> tensor<32x32x!tile.ptr<f16>>
  %ap = "tile.addptr"(%as, %off) : (tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>) -> tensor<32x32x!tile.ptr<f16>>
  %x = "tile.load"(%ap) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<32x32x!tile.ptr<f16>>) -> tensor<32x32xf16>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = "tile.dot"(%x, %x, %zero) : (tensor<32x32xf16>, tensor<32x32xf16>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %cs = "tile.splat"(%c) : (!tile.ptr<f32>) -> tensor<32x32x!tile.ptr<f32>>
  %cp = "tile.addptr"(%cs, %off) : (tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>) -> tensor<32x32x!tile.ptr<f32>>
  "tile.store"(%cp, %d) : (tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>) -> ()
  return
}

// -----

// Accesses that share nothing but a kernel argument are not one group: the
// shifted copy keeps one element per thread.
// CHECK-LABEL: func.func @apart
// CHECK: "tile.load"({{.*}} -> tensor<1024xf32, #tile.blocked<[4], [32], [4], [0]>>
// CHECK: "tile.load"({{.*}} -> tensor<1024xf32, #tile.blocked<[1], [32], [4], [0]>>
func.func @apart(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = "tile.make_range"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %xp = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %xa = "tile.addptr"(%xp, %r) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %a = "tile.load"(%xa) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32>>) -> tensor<1024xf32>
  "tile.store"(%xa, %a) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>) -> ()
  %r2 = "tile.make_range"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %one = arith.constant dense<1> : tensor<1024xi32>
  %s = arith.addi %r2, %one : tensor<1024xi32>
  %yp = "tile.splat"(%x) : (!tile.ptr<f32>) -> tensor<1024x!tile.ptr<f32>>
  %ys = "tile.addptr"(%yp, %s) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!tile.ptr<f32>>
  %b = "tile.load"(%ys) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1024x!tile.ptr<f32>>) -> tensor<1024xf32>
  "tile.store"(%ys, %b) : (tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>) -> ()
  return
}
