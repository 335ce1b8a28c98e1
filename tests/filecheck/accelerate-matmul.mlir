// RUN: %tilec opt %s --pass=convert-to-gpu,accelerate-matmul --split-input-file | FileCheck %s
// RUN: %tilec opt %s --pass=convert-to-gpu,accelerate-matmul -w 8 --split-input-file | FileCheck %s --check-prefix=W8
// RUN: %tilec opt %s --pass=convert-to-gpu,accelerate-matmul,remove-layout-conversions --split-input-file | FileCheck %s --check-prefix=EPI
// RUN: %tilec opt %s --pass=convert-to-gpu,accelerate-matmul --arch sm_89 --split-input-file | FileCheck %s --check-prefix=F8
// RUN: %tilec opt %s --pass=convert-to-gpu,accelerate-matmul --arch sm_90a --split-input-file | FileCheck %s --check-prefix=WG
// RUN: %tilec opt %s --pass=convert-to-gpu,accelerate-matmul --arch sm_90a -w 8 --split-input-file | FileCheck %s --check-prefix=WG8
// RUN: %tilec opt %s --pass=convert-to-gpu,accelerate-matmul --arch sm_90 --split-input-file | FileCheck %s --check-prefix=SM90

// sm_90a (WG, WG8): wgmma where the tile has 16 rows for each warp, the
// warps all along M, n the largest multiple of 8 up to 256 dividing N;
// else mma.sync. sm_90 has no wgmma (SM90).
// WG-LABEL: func.func @f16
// WG: "tile.convert_layout"{{.*}} -> tensor<64x32xf16, #tile.dot_op<0 : i64, #tile.mma<3 : i64, [4, 1], [16, 64]>, 2 : i64>>
// WG: "tile.dot"{{.*}} -> tensor<64x64xf32, #tile.mma<3 : i64, [4, 1], [16, 64]>>
// WG8-LABEL: func.func @f16
// WG8: "tile.dot"{{.*}} -> tensor<64x64xf32, #tile.mma<2 : i64, [4, 2], [16, 8]>>
// WG-LABEL: func.func @wide
// WG: "tile.dot"{{.*}} -> tensor<128x256xf32, #tile.mma<3 : i64, [4, 1], [16, 256]>>
// WG8-LABEL: func.func @wide
// WG8: "tile.dot"{{.*}} -> tensor<128x256xf32, #tile.mma<3 : i64, [8, 1], [16, 256]>>
// WG-LABEL: func.func @tall
// WG: "tile.dot"{{.*}} -> tensor<128x32xf32, #tile.mma<3 : i64, [4, 1], [16, 32]>>
// WG-LABEL: func.func @tf32_i8
// WG-COUNT-2: "tile.dot"{{.*}} -> tensor<32x32xf32, #tile.mma<2 : i64
// WG-LABEL: func.func @fp8
// WG: "tile.dot"({{.*}}) : (tensor<64x64xf8E4M3FN, #tile.dot_op<0 : i64, #tile.mma<3 : i64, [4, 1], [16, 64]>, 4 : i64>>, tensor<64x64xf8E5M2, #tile.dot_op<1 : i64, #tile.mma<3 : i64, [4, 1], [16, 64]>, 4 : i64>>
// SM90-LABEL: func.func @wide
// SM90: "tile.dot"{{.*}} -> tensor<128x256xf32, #tile.mma<2 : i64

// fp16 operands, fp32 accumulator, 64x64 on 4 warps: m16n8k16, the warps
// 2 x 2 over M and N; the operands converted to the dot-operand layouts (two
// halves per 32-bit register), the result back to the layout it had.
// CHECK-LABEL: func.func @f16
// CHECK: "tile.convert_layout"{{.*}} -> tensor<64x32xf16, #tile.dot_op<0 : i64, #tile.mma<2 : i64, [2, 2], [16, 8]>, 2 : i64>>
// CHECK: "tile.convert_layout"{{.*}} -> tensor<32x64xf16, #tile.dot_op<1 : i64, #tile.mma<2 : i64, [2, 2], [16, 8]>, 2 : i64>>
// CHECK: "tile.convert_layout"{{.*}} -> tensor<64x64xf32, #tile.mma<2 : i64, [2, 2], [16, 8]>>
// CHECK: %[[D:.*]] = "tile.dot"{{.*}} -> tensor<64x64xf32, #tile.mma<2 : i64, [2, 2], [16, 8]>>
// CHECK: "tile.convert_layout"(%[[D]]) {{.*}} -> tensor<64x64xf32, #tile.blocked<
func.func @f16(%p: !tile.ptr<f32>) attributes {tile.num_warps = 4 : i32} {
  %a = arith.constant dense<1.0> : tensor<64x32xf16>
  %b = arith.constant dense<1.0> : tensor<32x64xf16>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = "tile.dot"(%a, %b, %c) : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<64x64x!tile.ptr<f32>>
  "tile.store"(%s, %d) : (tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>) -> ()
  return
}

// -----

// Triton's warps for a 128x256 tile: on 4 warps 2 x 2, on 8 warps 2 over
// M and 4 over N.
// CHECK-LABEL: func.func @wide
// CHECK: "tile.dot"{{.*}} -> tensor<128x256xf32, #tile.mma<2 : i64, [2, 2], [16, 8]>>
// W8-LABEL: func.func @wide
// W8: "tile.dot"{{.*}} -> tensor<128x256xf32, #tile.mma<2 : i64, [2, 4], [16, 8]>>
func.func @wide(%p: !tile.ptr<f32>) attributes {tile.num_warps = 8 : i32} {
  %a = arith.constant dense<1.0> : tensor<128x64xbf16>
  %b = arith.constant dense<1.0> : tensor<64x256xbf16>
  %c = arith.constant dense<0.0> : tensor<128x256xf32>
  %d = "tile.dot"(%a, %b, %c) : (tensor<128x64xbf16>, tensor<64x256xbf16>, tensor<128x256xf32>) -> tensor<128x256xf32>
  %s = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<128x256x!tile.ptr<f32>>
  "tile.store"(%s, %d) : (tensor<128x256x!tile.ptr<f32>>, tensor<128x256xf32>) -> ()
  return
}

// -----

// A tall tile takes its warps along M: 128x32 on 4 warps is 4 x 1.
// CHECK-LABEL: func.func @tall
// CHECK: "tile.dot"{{.*}} -> tensor<128x32xf32, #tile.mma<2 : i64, [4, 1], [16, 8]>>
func.func @tall(%p: !tile.ptr<f32>) attributes {tile.num_warps = 4 : i32} {
  %a = arith.constant dense<1.0> : tensor<128x16xf16>
  %b = arith.constant dense<1.0> : tensor<16x32xf16>
  %c = arith.constant dense<0.0> : tensor<128x32xf32>
  %d = "tile.dot"(%a, %b, %c) : (tensor<128x16xf16>, tensor<16x32xf16>, tensor<128x32xf32>) -> tensor<128x32xf32>
  %s = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<128x32x!tile.ptr<f32>>
  "tile.store"(%s, %d) : (tensor<128x32x!tile.ptr<f32>>, tensor<128x32xf32>) -> ()
  return
}

// -----

// fp32 with input_precision "tf32" (or "tf32x3", three of them):
// m16n8k8, one fp32 per register; int8 in int32: m16n8k32, four bytes per
// register.
// CHECK-LABEL: func.func @tf32_i8
// CHECK: -> tensor<32x16xf32, #tile.dot_op<0 : i64, #tile.mma<2 : i64, [2, 2], [16, 8]>, 1 : i64>>
// CHECK: "tile.dot"{{.*}} -> tensor<32x32xf32, #tile.mma<
// CHECK: "tile.dot"{{.*}}input_precision = "tf32x3"{{.*}} -> tensor<32x32xf32, #tile.mma<
// CHECK: -> tensor<32x64xi8, #tile.dot_op<0 : i64, #tile.mma<2 : i64, [2, 2], [16, 8]>, 4 : i64>>
// CHECK: "tile.dot"{{.*}} -> tensor<32x32xi32, #tile.mma<
func.func @tf32_i8(%p: !tile.ptr<f32>, %q: !tile.ptr<i32>) attributes {tile.num_warps = 4 : i32} {
  %a = arith.constant dense<1.0> : tensor<32x16xf32>
  %b = arith.constant dense<1.0> : tensor<16x32xf32>
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = "tile.dot"(%a, %b, %c) {input_precision = "tf32"} : (tensor<32x16xf32>, tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %d3 = "tile.dot"(%a, %b, %d) {input_precision = "tf32x3"} : (tensor<32x16xf32>, tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<32x32x!tile.ptr<f32>>
  "tile.store"(%s, %d3) : (tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>) -> ()
  %ia = arith.constant dense<1> : tensor<32x64xi8>
  %ib = arith.constant dense<1> : tensor<64x32xi8>
  %ic = arith.constant dense<0> : tensor<32x32xi32>
  %id = "tile.dot"(%ia, %ib, %ic) : (tensor<32x64xi8>, tensor<64x32xi8>, tensor<32x32xi32>) -> tensor<32x32xi32>
  %t = "tile.splat"(%q) : (!tile.ptr<i32>) -> tensor<32x32x!tile.ptr<i32>>
  "tile.store"(%t, %id) : (tensor<32x32x!tile.ptr<i32>>, tensor<32x32xi32>) -> ()
  return
}

// -----

// What stays on FMAs: input_precision "ieee", a tile with
// fewer 16x8 parts than warps (16x16 on 4 warps), K not a multiple of the
// instruction's, fp64.
// CHECK-LABEL: func.func @fma
// CHECK-NOT: #tile.mma
// W8-LABEL: func.func @fma
// W8-NOT: #tile.mma
func.func @fma(%p: !tile.ptr<f32>, %q: !tile.ptr<f64>) attributes {tile.num_warps = 4 : i32} {
  %a = arith.constant dense<1.0> : tensor<32x16xf32>
  %b = arith.constant dense<1.0> : tensor<16x32xf32>
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = "tile.dot"(%a, %b, %c) {input_precision = "ieee"} : (tensor<32x16xf32>, tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<32x32x!tile.ptr<f32>>
  "tile.store"(%s, %d) : (tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>) -> ()
  %ha = arith.constant dense<1.0> : tensor<16x16xf16>
  %hc = arith.constant dense<0.0> : tensor<16x16xf32>
  %hd = "tile.dot"(%ha, %ha, %hc) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %hs = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<16x16x!tile.ptr<f32>>
  "tile.store"(%hs, %hd) : (tensor<16x16x!tile.ptr<f32>>, tensor<16x16xf32>) -> ()
  %ka = arith.constant dense<1.0> : tensor<32x8xf16>
  %kb = arith.constant dense<1.0> : tensor<8x32xf16>
  %kd = "tile.dot"(%ka, %kb, %c) : (tensor<32x8xf16>, tensor<8x32xf16>, tensor<32x32xf32>) -> tensor<32x32xf32>
  "tile.store"(%s, %kd) : (tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>) -> ()
  %fa = arith.constant dense<1.0> : tensor<32x16xf64>
  %fb = arith.constant dense<1.0> : tensor<16x32xf64>
  %fc = arith.constant dense<0.0> : tensor<32x32xf64>
  %fd = "tile.dot"(%fa, %fb, %fc) : (tensor<32x16xf64>, tensor<16x32xf64>, tensor<32x32xf64>) -> tensor<32x32xf64>
  %fs = "tile.splat"(%q) : (!tile.ptr<f64>) -> tensor<32x32x!tile.ptr<f64>>
  "tile.store"(%fs, %fd) : (tensor<32x32x!tile.ptr<f64>>, tensor<32x32xf64>) -> ()
  return
}

// -----

// A batched dot: as many warps on the batch as divide it (2 of the 4), the
// others over M and N; instruction shape [1, 16, 8].
// CHECK-LABEL: func.func @batched
// CHECK: "tile.convert_layout"{{.*}} -> tensor<2x32x16xf16, #tile.dot_op<0 : i64, #tile.mma<2 : i64, [2, 2, 1], [1, 16, 8]>, 2 : i64>>
// CHECK: "tile.dot"{{.*}} -> tensor<2x32x32xf32, #tile.mma<2 : i64, [2, 2, 1], [1, 16, 8]>>
// W8-LABEL: func.func @batched
// W8: "tile.dot"{{.*}} -> tensor<2x32x32xf32, #tile.mma<2 : i64, [2, 2, 2], [1, 16, 8]>>
func.func @batched(%p: !tile.ptr<f32>) attributes {tile.num_warps = 4 : i32} {
  %ba = arith.constant dense<1.0> : tensor<2x32x16xf16>
  %bb = arith.constant dense<1.0> : tensor<2x16x32xf16>
  %bc = arith.constant dense<0.0> : tensor<2x32x32xf32>
  %bd = "tile.dot"(%ba, %bb, %bc) : (tensor<2x32x16xf16>, tensor<2x16x32xf16>, tensor<2x32x32xf32>) -> tensor<2x32x32xf32>
  %bs = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<2x32x32x!tile.ptr<f32>>
  "tile.store"(%bs, %bd) : (tensor<2x32x32x!tile.ptr<f32>>, tensor<2x32x32xf32>) -> ()
  return
}

// -----

// With remove-layout-conversions after it (EPI): the epilogue (a bias, a
// ReLU, the cast to fp16) runs in the MMA layout, and the one conversion
// left is of the fp16 result, before its store.
// CHECK-LABEL: func.func @epilogue
// W8-LABEL: func.func @epilogue
// EPI-LABEL: func.func @epilogue
// EPI: %[[D:.*]] = "tile.dot"
// EPI: arith.addf %[[D]], {{.*}} : tensor<64x64xf32, #tile.mma<2 : i64, [2, 2], [16, 8]>>
// EPI: arith.maximumf {{.*}} : tensor<64x64xf32, #tile.mma<2 : i64, [2, 2], [16, 8]>>
// EPI: %[[H:.*]] = arith.truncf {{.*}} : tensor<64x64xf32, #tile.mma<2 : i64, [2, 2], [16, 8]>> to tensor<64x64xf16, #tile.mma<2 : i64, [2, 2], [16, 8]>>
// EPI: "tile.convert_layout"(%[[H]])
// EPI-NOT: "tile.convert_layout"
// EPI: "tile.store"
func.func @epilogue(%p: !tile.ptr<f16>, %bias: f32) attributes {tile.num_warps = 4 : i32} {
  %a = arith.constant dense<1.0> : tensor<64x32xf16>
  %b = arith.constant dense<1.0> : tensor<32x64xf16>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = "tile.dot"(%a, %b, %c) : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %bs = "tile.splat"(%bias) : (f32) -> tensor<64x64xf32>
  %e = arith.addf %d, %bs : tensor<64x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = arith.maximumf %e, %z : tensor<64x64xf32>
  %h = arith.truncf %r : tensor<64x64xf32> to tensor<64x64xf16>
  %s = "tile.splat"(%p) : (!tile.ptr<f16>) -> tensor<64x64x!tile.ptr<f16>>
  "tile.store"(%s, %h) : (tensor<64x64x!tile.ptr<f16>>, tensor<64x64xf16>) -> ()
  return
}

// -----

// fp8 operands come widened to fp16 (sema). With K a multiple of 32 the dot
// takes the fp8 values, e4m3 with e5m2 here, as its operands (four to a
// 32-bit register), and the widenings are left unused: on sm_89 (F8) for
// its fp8 instruction, on sm_80 for fp16's after shared memory.
// CHECK-LABEL: func.func @fp8
// CHECK: "tile.dot"({{.*}}) : (tensor<64x64xf8E4M3FN, #tile.dot_op<0 : i64, #tile.mma<2 : i64, [2, 2], [16, 8]>, 4 : i64>>, tensor<64x64xf8E5M2, #tile.dot_op<1 : i64, #tile.mma<2 : i64, [2, 2], [16, 8]>, 4 : i64>>
// F8-LABEL: func.func @fp8
// F8: "tile.dot"({{.*}}) : (tensor<64x64xf8E4M3FN, #tile.dot_op<0 : i64, #tile.mma<2 : i64, [2, 2], [16, 8]>, 4 : i64>>, tensor<64x64xf8E5M2, #tile.dot_op<1 : i64, #tile.mma<2 : i64, [2, 2], [16, 8]>, 4 : i64>>
// A K of 16 is not a step of 32: the fp16 operands as they came.
// CHECK-LABEL: func.func @fp8_k16
// CHECK: "tile.dot"{{.*}}tensor<64x16xf16, #tile.dot_op<0 : i64, #tile.mma<
// F8-LABEL: func.func @fp8_k16
// F8: "tile.dot"{{.*}}tensor<64x16xf16, #tile.dot_op<0 : i64, #tile.mma<
func.func @fp8(%p: !tile.ptr<f32>) attributes {tile.num_warps = 4 : i32} {
  %a8 = arith.constant dense<1.0> : tensor<64x64xf8E4M3FN>
  %b8 = arith.constant dense<1.0> : tensor<64x64xf8E5M2>
  %a = arith.extf %a8 : tensor<64x64xf8E4M3FN> to tensor<64x64xf16>
  %b = arith.extf %b8 : tensor<64x64xf8E5M2> to tensor<64x64xf16>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = "tile.dot"(%a, %b, %c) : (tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<64x64x!tile.ptr<f32>>
  "tile.store"(%s, %d) : (tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>) -> ()
  return
}
func.func @fp8_k16(%p: !tile.ptr<f32>) attributes {tile.num_warps = 4 : i32} {
  %a8 = arith.constant dense<1.0> : tensor<64x16xf8E4M3FN>
  %b8 = arith.constant dense<1.0> : tensor<16x64xf8E4M3FN>
  %a = arith.extf %a8 : tensor<64x16xf8E4M3FN> to tensor<64x16xf16>
  %b = arith.extf %b8 : tensor<16x64xf8E4M3FN> to tensor<16x64xf16>
  %c = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = "tile.dot"(%a, %b, %c) : (tensor<64x16xf16>, tensor<16x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = "tile.splat"(%p) : (!tile.ptr<f32>) -> tensor<64x64x!tile.ptr<f32>>
  "tile.store"(%s, %d) : (tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>) -> ()
  return
}
