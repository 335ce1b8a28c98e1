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

// -----

// A K loop's pointers: the facts of a loop-carried value are those of its
// initial value joined with what the body yields, to a fixed point, so
// `ptrs += 32 * stride` (a multiple of 16 elements) keeps the runs of 128
// and the 16-byte alignment, in the loop and after it.
// CHECK-LABEL: func.func @k_loop
// CHECK: scf.for
// CHECK: "tile.addptr"(%{{.*}}, %{{.*}}) {tile.constancy = array<i64: 1>, tile.contiguity = array<i64: 128>, tile.divisibility = array<i64: 16>}
// CHECK: scf.yield
// CHECK: "tile.addptr"(%{{.*}}#1, %{{.*}}) {tile.constancy = array<i64: 1>, tile.contiguity = array<i64: 128>, tile.divisibility = array<i64: 16>}
func.func @k_loop(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}, %n: i32) -> tensor<128x!tile.ptr<f32>> {
  %r = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>
  %pp = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<128x!tile.ptr<f32>>
  %q = "tile.addptr"(%pp, %r) : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f32>>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %step = arith.muli %c32, %stride : i32
  %steps = "tile.splat"(%step) : (i32) -> tensor<128xi32>
  %cst = arith.constant 0.0 : f32
  %res:2 = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %cst, %ptrs = %q) -> (f32, tensor<128x!tile.ptr<f32>>) : i32 {
    %next = "tile.addptr"(%ptrs, %steps) : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f32>>
    scf.yield %acc, %next : f32, tensor<128x!tile.ptr<f32>>
  }
  %zero = arith.constant dense<0> : tensor<128xi32>
  %after = "tile.addptr"(%res#1, %zero) : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f32>>
  return %after : tensor<128x!tile.ptr<f32>>
}

// -----

// A step of unknown divisibility: the runs survive, the alignment falls to
// the element's 4 bytes (the join of 16 and what the step leaves).
// CHECK-LABEL: func.func @unaligned_step
// CHECK: scf.for
// CHECK: "tile.addptr"(%{{.*}}, %{{.*}}) {tile.constancy = array<i64: 1>, tile.contiguity = array<i64: 128>, tile.divisibility = array<i64: 4>}
func.func @unaligned_step(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %stride: i32, %n: i32) {
  %r = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>
  %pp = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<128x!tile.ptr<f32>>
  %q = "tile.addptr"(%pp, %r) : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f32>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %steps = "tile.splat"(%stride) : (i32) -> tensor<128xi32>
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%ptrs = %q) -> (tensor<128x!tile.ptr<f32>>) : i32 {
    %next = "tile.addptr"(%ptrs, %steps) : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f32>>
    scf.yield %next : tensor<128x!tile.ptr<f32>>
  }
  return
}

// -----

// A body that yields something with no runs: the carried value has none
// either, though its initial value had them.
// CHECK-LABEL: func.func @broken_runs
// CHECK: scf.for
// CHECK: arith.addi %{{.*}}, %{{.*}} {tile.constancy = array<i64: 1>, tile.contiguity = array<i64: 1>, tile.divisibility = array<i64: 1>}
func.func @broken_runs(%n: i32) {
  %r = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %two = arith.constant dense<2> : tensor<128xi32>
  %zero = arith.constant dense<0> : tensor<128xi32>
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%x = %r) -> (tensor<128xi32>) : i32 {
    %y = arith.addi %x, %zero : tensor<128xi32>
    %z = arith.muli %y, %two : tensor<128xi32>
    scf.yield %z : tensor<128xi32>
  }
  return
}

// -----

// An if's result holds what either branch yields: runs of 64 and of 128
// make runs of 64, a multiple of 128 or of 64 a multiple of 64.
// CHECK-LABEL: func.func @branches
// CHECK: scf.if
// CHECK: arith.addi %{{.*}}, %{{.*}} {tile.constancy = array<i64: 1>, tile.contiguity = array<i64: 64>, tile.divisibility = array<i64: 64>}
func.func @branches(%c: i1) {
  %a = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>
  %b = "tile.make_range"() {start = 64 : i32, end = 192 : i32} : () -> tensor<128xi32>
  %s = arith.constant dense<64> : tensor<128xi32>
  %b2 = arith.remsi %b, %s : tensor<128xi32>
  %r = scf.if %c -> (tensor<128xi32>) {
    scf.yield %a : tensor<128xi32>
  } else {
    scf.yield %b2 : tensor<128xi32>
  }
  %zero = arith.constant dense<0> : tensor<128xi32>
  %u = arith.addi %r, %zero : tensor<128xi32>
  return
}

// -----

// A while loop: the before region's argument joins the initial value and
// what the after region yields.
// CHECK-LABEL: func.func @while_loop
// CHECK: scf.while
// CHECK: "tile.addptr"(%{{.*}}, %{{.*}}) {tile.constancy = array<i64: 1>, tile.contiguity = array<i64: 128>, tile.divisibility = array<i64: 16>}
func.func @while_loop(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %go: i1) {
  %r = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>
  %pp = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<128x!tile.ptr<f32>>
  %q = "tile.addptr"(%pp, %r) : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f32>>
  %steps = arith.constant dense<128> : tensor<128xi32>
  %res = scf.while (%ptrs = %q) : (tensor<128x!tile.ptr<f32>>) -> tensor<128x!tile.ptr<f32>> {
    scf.condition(%go) %ptrs : tensor<128x!tile.ptr<f32>>
  } do {
  ^bb0(%ptrs2: tensor<128x!tile.ptr<f32>>):
    %next = "tile.addptr"(%ptrs2, %steps) : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>) -> tensor<128x!tile.ptr<f32>>
    scf.yield %next : tensor<128x!tile.ptr<f32>>
  }
  return
}

// -----

// A select of two constants is constant only where its condition is: a
// condition from loaded data (unknown) leaves runs of one; a condition
// constant over runs of 64 (a range compared with a splat, both multiples
// of 64) keeps them; a scalar condition is the same everywhere.
// CHECK-LABEL: func.func @select_constants
// CHECK: arith.select %{{.*}} {tile.constancy = array<i64: 1>, tile.contiguity = array<i64: 1>, tile.divisibility = array<i64: 1>}
// CHECK: arith.select %{{.*}} {tile.constancy = array<i64: 64>,
// CHECK: arith.select %{{.*}} {tile.constancy = array<i64: 128>,
func.func @select_constants(%x: tensor<128xi32>, %s: i1) {
  %a = arith.constant dense<3> : tensor<128xi32>
  %b = arith.constant dense<5> : tensor<128xi32>
  %zero = arith.constant dense<0> : tensor<128xi32>
  %c = arith.cmpi slt, %x, %zero : tensor<128xi32>
  %u = arith.select %c, %a, %b : tensor<128xi1>, tensor<128xi32>
  %r = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>
  %n = arith.constant dense<64> : tensor<128xi32>
  %c2 = arith.cmpi slt, %r, %n : tensor<128xi32>
  %v = arith.select %c2, %a, %b : tensor<128xi1>, tensor<128xi32>
  %w = arith.select %s, %a, %b : tensor<128xi32>
  return
}

// -----

// Tutorial 03 wraps its offsets: (pid * 128 + arange(128)) % N. With N a
// multiple of 16 (an i32:16 argument) a run of 16 starting at a multiple
// of 16 never wraps, so runs of 16 stay (16-byte copies of fp16); N
// without a hint leaves runs of one. A run that does not start at a
// multiple of the divisor (arange + 3) wraps inside it even for a constant.
// CHECK-LABEL: func.func @rem_wraps
// CHECK: arith.remsi %{{.*}} {tile.constancy = array<i64: 1>, tile.contiguity = array<i64: 16>, tile.divisibility = array<i64: 16>}
// CHECK: arith.remsi %{{.*}} {tile.constancy = array<i64: 1>, tile.contiguity = array<i64: 1>, tile.divisibility = array<i64: 1>}
// CHECK: arith.remsi %{{.*}} {tile.constancy = array<i64: 1>, tile.contiguity = array<i64: 1>, tile.divisibility = array<i64: 1>}
// CHECK: arith.remsi %{{.*}} {tile.constancy = array<i64: 1>, tile.contiguity = array<i64: 16>, tile.divisibility = array<i64: 16>}
func.func @rem_wraps(%n: i32 {tile.divisibility = 16 : i32}, %m: i32) {
  %pid = "tile.program_id"() {axis = 0 : i32} : () -> i32
  %c128 = arith.constant 128 : i32
  %s = arith.muli %pid, %c128 : i32
  %b = "tile.splat"(%s) : (i32) -> tensor<128xi32>
  %r = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>
  %o = arith.addi %b, %r : tensor<128xi32>
  %ns = "tile.splat"(%n) : (i32) -> tensor<128xi32>
  %w = arith.remsi %o, %ns : tensor<128xi32>
  %ms = "tile.splat"(%m) : (i32) -> tensor<128xi32>
  %w2 = arith.remsi %o, %ms : tensor<128xi32>
  %three = arith.constant dense<3> : tensor<128xi32>
  %sixteen = arith.constant dense<16> : tensor<128xi32>
  %o3 = arith.addi %r, %three : tensor<128xi32>
  %w3 = arith.remsi %o3, %sixteen : tensor<128xi32>
  %w4 = arith.remsi %r, %sixteen : tensor<128xi32>
  return
}
