# tl.dot on FMAs. The operands take the dot-operand layouts of the result's
# blocked layout (rows of A, columns of B, all of K in every thread), and
# each result element is K fused multiply-adds in the accumulator's type:
# fp16 and bf16 operands widened to fp32, fp32 in fp32 (IEEE, whatever
# input_precision asks), int8 multiplied and added in int32 (NVPTX
# multiplies the sign-extended bytes with mul.wide.s16), an fp16
# accumulator (out_dtype) in fp16. A batched (3-D) dot the same per batch.
# Each kernel's PTX is accepted by ptxas; test_ops checks their numbers.
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp32:16, 32, 16, 32" --emit=tile-gpu | FileCheck %s --check-prefix=LAYOUT
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp32:16, 32, 16, 32" --emit=ptx | FileCheck %s --check-prefix=F16
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp32:16, 32, 16, 32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot2d -s "*fp32:16, *fp32:16, *fp32:16, 16, 32, 64" --emit=ptx | FileCheck %s --check-prefix=F32
# RUN: %tilec compile %s -k dot2d -s "*fp32:16, *fp32:16, *fp32:16, 16, 32, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot2d -s "*bf16:16, *bf16:16, *fp32:16, 32, 32, 32" --emit=ptx | %ptxas_check
# fp8 operands are upcast to fp16 (FMAs have no fp8), as Triton does without fp8 MMA
# RUN: %tilec compile %s -k dot2d -s "*fp8e4nv:16, *fp8e4nv:16, *fp32:16, 32, 16, 32" --emit=ast | FileCheck %s --check-prefix=F8
# RUN: %tilec compile %s -k dot2d -s "*fp8e4nv:16, *fp8e4nv:16, *fp32:16, 32, 16, 32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot2d -s "*fp8e5:16, *fp8e5:16, *fp32:16, 32, 16, 32" --emit=ptx | %ptxas_check
# F8: (dot (cast {{.*}} : <32x16xfp16>) (cast {{.*}} : <16x32xfp16>)
# RUN: %tilec compile %s -k dot2d -s "*i8:16, *i8:16, *i32:16, 32, 32, 32" --emit=ptx | FileCheck %s --check-prefix=I8
# RUN: %tilec compile %s -k dot2d -s "*i8:16, *i8:16, *i32:16, 32, 32, 32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot_f16_acc -s "*fp16:16, *fp16:16, *fp16:16, 16, 16, 16" --emit=ptx | FileCheck %s --check-prefix=H
# RUN: %tilec compile %s -k dot_f16_acc -s "*fp16:16, *fp16:16, *fp16:16, 16, 16, 16" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot3d -s "*fp32:16, *fp32:16, *fp32:16, 2, 16, 16, 16" --emit=ptx | %ptxas_check
# A constant operand is made in its dot layout, not converted: it goes to
# shared memory at the dot, like a converted one.
# RUN: %tilec compile %s -k dot_const -s "*fp16:16, *fp32:16, 16, 16, 16" --emit=tile-gpu | FileCheck %s --check-prefix=CONST
# RUN: %tilec compile %s -k dot_const -s "*fp16:16, *fp32:16, 16, 16, 16" --emit=ptx | %ptxas_check
import triton
import triton.language as tl

# LAYOUT: "tile.dot"({{.*}}#tile.dot_op<0 : i64, #tile.blocked<{{.*}}>, 2 : i64>>, tensor<16x32xf16, #tile.dot_op<1 : i64, #tile.blocked<{{.*}}>, 2 : i64>>
# F16: cvt.f32.f16
# F16: fma.rn.f32
# F32-NOT: cvt.f32.f16
# F32: fma.rn.f32
# I8: mul.wide.s16
# I8: add.s32
# H: fma.rn.f16
# CONST: arith.constant dense<2.000000e+00> : tensor<16x16xf16, #tile.dot_op<0


@triton.jit
def dot2d(a_ptr, b_ptr, c_ptr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    m = tl.arange(0, M)
    k = tl.arange(0, K)
    n = tl.arange(0, N)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + m[:, None] * N + n[None, :], c)


@triton.jit
def dot_f16_acc(a_ptr, b_ptr, c_ptr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    m = tl.arange(0, M)
    k = tl.arange(0, K)
    n = tl.arange(0, N)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    acc = tl.full((M, N), 1.0, tl.float16)
    tl.store(c_ptr + m[:, None] * N + n[None, :], tl.dot(a, b, acc, out_dtype=tl.float16))


@triton.jit
def dot3d(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    i = tl.arange(0, B)
    m = tl.arange(0, M)
    k = tl.arange(0, K)
    n = tl.arange(0, N)
    a = tl.load(a_ptr + i[:, None, None] * M * K + m[None, :, None] * K + k[None, None, :])
    b = tl.load(b_ptr + i[:, None, None] * K * N + k[None, :, None] * N + n[None, None, :])
    tl.store(c_ptr + i[:, None, None] * M * N + m[None, :, None] * N + n[None, None, :], tl.dot(a, b))


@triton.jit
def dot_const(b_ptr, c_ptr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    m = tl.arange(0, M)
    k = tl.arange(0, K)
    n = tl.arange(0, N)
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    tl.store(c_ptr + m[:, None] * N + n[None, :], tl.dot(tl.full((M, K), 2.0, tl.float16), b))
