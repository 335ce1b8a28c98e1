# tl.dot, on tensor cores (mma.sync) where the tile and the types allow,
# else on FMAs.
#
# mma.sync (accelerate-matmul, codegen/lower_mma.c): the result takes an
# MMA layout and the operands its dot-operand layouts; fp16 and bf16 with an
# fp32 accumulator and fp16 with an fp16 one are m16n8k16, fp32 is
# m16n8k8 tf32 (Triton's default input_precision), int8 is m16n8k32 in
# int32. fp8 operands with K a multiple of 32 go to shared memory as fp8,
# read as int8 is: from sm_89 on into fp32, m16n8k32 of their own formats
# (A and B each e4m3 or e5m2; PTX 8.4); else widened to fp16 in registers
# for m16n8k16, two per 32 of K. Other K: widened at the load, fp16's.
#
# FMAs: input_precision="ieee", a tile with fewer 16x8 parts than warps. The operands take the dot-operand layouts of the
# result's blocked layout (rows of A, columns of B, all of K in every
# thread), and each result element is K fused multiply-adds in the
# accumulator's type. Each kernel's PTX is accepted by ptxas; test_ops
# checks their numbers.
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp32:16, 32, 16, 32" --emit=tile-gpu | FileCheck %s --check-prefix=LAYOUT
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp32:16, 32, 16, 32" --emit=ptx | FileCheck %s --check-prefix=F16
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp32:16, 32, 16, 32" --emit=ptx | %ptxas_check
# A kernel with a tensor-core dot may take every register (ptxas would
# otherwise trade them for occupancy when it must spill); one without keeps
# ptxas's own choice.
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp32:16, 32, 16, 32" --emit=ptx | FileCheck %s --check-prefix=OCC
# RUN: %tilec compile %s -k dot2d_ieee -s "*fp32:16, *fp32:16, *fp32:16, 16, 32, 64" --emit=ptx | FileCheck %s --check-prefix=NOOCC
# OCC: .maxntid 128
# OCC-NEXT: .minnctapersm 1
# NOOCC: .maxntid 128
# NOOCC-NOT: .minnctapersm
# RUN: %tilec compile %s -k dot2d -s "*fp32:16, *fp32:16, *fp32:16, 16, 32, 64" --emit=ptx | FileCheck %s --check-prefix=TF32
# RUN: %tilec compile %s -k dot2d -s "*fp32:16, *fp32:16, *fp32:16, 16, 32, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot2d_ieee -s "*fp32:16, *fp32:16, *fp32:16, 16, 32, 64" --emit=ptx | FileCheck %s --check-prefix=F32
# RUN: %tilec compile %s -k dot2d_ieee -s "*fp32:16, *fp32:16, *fp32:16, 16, 32, 64" --emit=ptx | %ptxas_check
# tf32x3: three m16n8k8 per part, on the operands split in a tf32 part and the rest
# RUN: %tilec compile %s -k dot2d_x3 -s "*fp32:16, *fp32:16, *fp32:16, 16, 32, 64" --emit=ptx | FileCheck %s --check-prefix=X3
# RUN: %tilec compile %s -k dot2d_x3 -s "*fp32:16, *fp32:16, *fp32:16, 16, 32, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot2d -s "*bf16:16, *bf16:16, *fp32:16, 32, 32, 32" --emit=ptx | FileCheck %s --check-prefix=BF16
# RUN: %tilec compile %s -k dot2d -s "*bf16:16, *bf16:16, *fp32:16, 32, 32, 32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot2d -s "*fp8e4nv:16, *fp8e4nv:16, *fp32:16, 32, 16, 32" --emit=ast | FileCheck %s --check-prefix=F8
# RUN: %tilec compile %s -k dot2d -s "*fp8e4nv:16, *fp8e4nv:16, *fp32:16, 32, 16, 32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot2d -s "*fp8e5:16, *fp8e5:16, *fp32:16, 32, 16, 32" --emit=ptx | %ptxas_check
# F8: (dot (cast {{.*}} : <32x16xfp16>) (cast {{.*}} : <16x32xfp16>)
# RUN: %tilec compile %s -k dot2d -s "*fp8e4nv:16, *fp8e5:16, *fp32:16, 32, 32, 32" --arch=sm_89 --emit=ptx | FileCheck %s --check-prefix=F8MMA
# RUN: %tilec compile %s -k dot2d -s "*fp8e4nv:16, *fp8e5:16, *fp32:16, 32, 32, 32" --arch=sm_89 --emit=ptx | %ptxas_check_sm89
# RUN: %tilec compile %s -k dot2d -s "*fp8e5:16, *fp8e5:16, *fp32:16, 32, 32, 32" --arch=sm_90 --emit=ptx | FileCheck %s --check-prefix=F8E5
# RUN: %tilec compile %s -k dot2d -s "*fp8e5:16, *fp8e5:16, *fp32:16, 32, 32, 32" --arch=sm_90 --emit=ptx | %ptxas_check_sm90
# sm_80: bytes in shared memory, 32-bit reads, fp16's instruction
# RUN: %tilec compile %s -k dot2d -s "*fp8e4nv:16, *fp8e5:16, *fp32:16, 32, 32, 32" --emit=ptx | FileCheck %s --check-prefix=F8W
# RUN: %tilec compile %s -k dot2d -s "*fp8e4nv:16, *fp8e5:16, *fp32:16, 32, 32, 32" --emit=ptx | %ptxas_check
# F8W: .version 8.0
# F8W: ld.shared.b32
# F8W: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# F8W-NOT: m16n8k32
# K of 16 is not one fp8 instruction: fp16's, and the PTX stays 8.0
# RUN: %tilec compile %s -k dot2d -s "*fp8e4nv:16, *fp8e4nv:16, *fp32:16, 32, 16, 32" --arch=sm_89 --emit=ptx | FileCheck %s --check-prefix=F8K16
# F8MMA: .version 8.4
# F8MMA: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32
# F8MMA-NOT: m16n8k16
# F8E5: .version 8.4
# F8E5: mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32
# F8K16: .version 8.0
# F8K16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# RUN: %tilec compile %s -k dot2d -s "*i8:16, *i8:16, *i32:16, 32, 32, 32" --emit=ptx | FileCheck %s --check-prefix=I8
# RUN: %tilec compile %s -k dot2d -s "*i8:16, *i8:16, *i32:16, 32, 32, 32" --emit=ptx | %ptxas_check
# 16x16 has two 16x8 parts: on 4 warps FMAs, on 2 mma.sync
# RUN: %tilec compile %s -k dot_f16_acc -s "*fp16:16, *fp16:16, *fp16:16, 16, 16, 16" --emit=ptx | FileCheck %s --check-prefix=H
# RUN: %tilec compile %s -k dot_f16_acc -s "*fp16:16, *fp16:16, *fp16:16, 16, 16, 16" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot_f16_acc -s "*fp16:16, *fp16:16, *fp16:16, 16, 16, 16" -w 2 --emit=ptx | FileCheck %s --check-prefix=HMMA
# RUN: %tilec compile %s -k dot_f16_acc -s "*fp16:16, *fp16:16, *fp16:16, 16, 16, 16" -w 2 --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot3d -s "*fp32:16, *fp32:16, *fp32:16, 2, 16, 16, 16" --emit=ptx | %ptxas_check
# A batched dot on tensor cores: the warps over the batch first
# RUN: %tilec compile %s -k dot3d -s "*fp16:16, *fp16:16, *fp32:16, 8, 16, 32, 16" --emit=tile-gpu | FileCheck %s --check-prefix=B3
# RUN: %tilec compile %s -k dot3d -s "*fp16:16, *fp16:16, *fp32:16, 8, 16, 32, 16" --emit=ptx | %ptxas_check
# B3: "tile.dot"{{.*}} -> tensor<8x16x16xf32, #tile.mma<2 : i64, [4, 1, 1], [1, 16, 8]>>
# A constant operand is made in its dot layout, not converted: it goes to
# shared memory at the dot, like a converted one.
# RUN: %tilec compile %s -k dot_const -s "*fp16:16, *fp32:16, 16, 16, 16" --emit=tile-gpu | FileCheck %s --check-prefix=CONST
# RUN: %tilec compile %s -k dot_const -s "*fp16:16, *fp32:16, 16, 16, 16" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot_const -s "*fp16:16, *fp32:16, 16, 16, 16" -w 1 --emit=ptx | %ptxas_check
import triton
import triton.language as tl

# LAYOUT: "tile.dot"({{.*}}#tile.dot_op<0 : i64, #tile.mma<2 : i64, [2, 2], [16, 8]>, 2 : i64>>, tensor<16x32xf16, #tile.dot_op<1 : i64, #tile.mma<2 : i64, [2, 2], [16, 8]>, 2 : i64>>, tensor<32x32xf32, #tile.mma<2 : i64, [2, 2], [16, 8]>>)
# F16-NOT: fma.rn
# F16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# F16-NOT: fma.rn
# TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
# X3: and.b32 {{.*}}, -8192;
# X3: sub.f32
# X3-COUNT-3: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
# F32-NOT: mma.sync
# F32: fma.rn.f32
# F32-NOT: mma.sync
# BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# I8: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
# H-NOT: mma.sync
# H: fma.rn.f16
# HMMA: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16
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
def dot2d_ieee(a_ptr, b_ptr, c_ptr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    m = tl.arange(0, M)
    k = tl.arange(0, K)
    n = tl.arange(0, N)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    tl.store(c_ptr + m[:, None] * N + n[None, :], tl.dot(a, b, input_precision="ieee"))


@triton.jit
def dot2d_x3(a_ptr, b_ptr, c_ptr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    m = tl.arange(0, M)
    k = tl.arange(0, K)
    n = tl.arange(0, N)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    tl.store(c_ptr + m[:, None] * N + n[None, :], tl.dot(a, b, input_precision="tf32x3"))


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


# A dot's result reduced where it lies (propagate-layouts: the dot's MMA
# layout wins over the loads', as Triton resolves it): the row max and row
# sum of softmax are slices of the MMA layout, `c - max[:, None]` runs in
# it, and only the stores convert. 4 warps on 64x64 are [2, 2]: both
# reductions cross warps. test_ops checks the numbers.
# RUN: %tilec compile %s -k dot_reduce -s "*fp16:16, *fp16:16, *fp32:16, *fp32:16, *fp32:16, 64, 16, 64" --emit=tile-gpu | FileCheck %s --check-prefix=RED
# RUN: %tilec compile %s -k dot_reduce -s "*fp16:16, *fp16:16, *fp32:16, *fp32:16, *fp32:16, 64, 16, 64" --emit=ptx | %ptxas_check
# RED: "tile.dot"{{.*}} -> tensor<64x64xf32, #tile.mma<2 : i64, [2, 2], [16, 8]>>
# RED: "tile.reduce"
# RED: -> tensor<64xf32, #tile.slice<1 : i64, #tile.mma<2 : i64, [2, 2], [16, 8]>>>
# RED: arith.subf {{.*}} : tensor<64x64xf32, #tile.mma<2 : i64, [2, 2], [16, 8]>>
# RED: "tile.reduce"
# RED: -> tensor<64xf32, #tile.slice<0 : i64, #tile.mma<2 : i64, [2, 2], [16, 8]>>>
@triton.jit
def dot_reduce(a_ptr, b_ptr, c_ptr, rmax_ptr, csum_ptr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    m = tl.arange(0, M)
    k = tl.arange(0, K)
    n = tl.arange(0, N)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    c = tl.dot(a, b)
    rmax = tl.max(c, 1)
    c = c - rmax[:, None]
    csum = tl.sum(c, 0)
    tl.store(rmax_ptr + m, rmax)
    tl.store(csum_ptr + n, csum)
    tl.store(c_ptr + m[:, None] * N + n[None, :], c)


# A dot's result as the next dot's A operand (attention's P): with the warps
# along M only ([4, 1]), each thread's C fragments of two 16x8 parts side by
# side are its A fragment of a 16x16 step, so P goes to the second dot in
# registers, as Triton converts it: one ldmatrix.x4 (A of the first dot) and
# the .trans ones of B and V, none for P. test_ops checks the numbers.
# RUN: %tilec compile %s -k dot_chain -s "*fp16:16, *fp16:16, *fp16:16, *fp32:16, 64, 16, 32" --emit=tile-gpu | FileCheck %s --check-prefix=CHAIN
# RUN: %tilec compile %s -k dot_chain -s "*fp16:16, *fp16:16, *fp16:16, *fp32:16, 64, 16, 32" --emit=ptx | FileCheck %s --check-prefix=CHAINPTX
# RUN: %tilec compile %s -k dot_chain -s "*fp16:16, *fp16:16, *fp16:16, *fp32:16, 64, 16, 32" --emit=ptx | %ptxas_check
# CHAIN: arith.truncf {{.*}} to tensor<64x16xf16, #tile.mma<2 : i64, [4, 1], [16, 8]>>
# CHAIN: "tile.convert_layout"({{.*}}) : (tensor<64x16xf16, #tile.mma<2 : i64, [4, 1], [16, 8]>>) -> tensor<64x16xf16, #tile.dot_op<0 : i64, #tile.mma<2 : i64, [4, 1], [16, 8]>, 2 : i64>>
# On 8 warps a 128x64 result alone would take [4, 2]; chained, both dots
# take all warps along M ([8, 1], Triton's choice), so P still stays in
# registers.
# RUN: %tilec compile %s -k dot_chain -s "*fp16:16, *fp16:16, *fp16:16, *fp32:16, 128, 64, 64" -w 8 --emit=tile-gpu | FileCheck %s --check-prefix=CHAIN8
# CHAIN8: "tile.dot"{{.*}} -> tensor<128x64xf32, #tile.mma<2 : i64, [8, 1], [16, 8]>>
# CHAIN8: "tile.convert_layout"({{.*}}) : (tensor<128x64xf16, #tile.mma<2 : i64, [8, 1], [16, 8]>>) -> tensor<128x64xf16, #tile.dot_op<0 : i64, #tile.mma<2 : i64, [8, 1], [16, 8]>, 2 : i64>>
# CHAIN8: "tile.dot"{{.*}} -> tensor<128x64xf32, #tile.mma<2 : i64, [8, 1], [16, 8]>>
# CHAINPTX-COUNT-1: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# CHAINPTX-NOT: ldmatrix.sync.aligned.m8n8.x4.shared.b16
@triton.jit
def dot_chain(a_ptr, b_ptr, v_ptr, o_ptr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    m = tl.arange(0, M)
    k = tl.arange(0, K)
    n = tl.arange(0, N)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * K + k[None, :])
    v = tl.load(v_ptr + k[:, None] * N + n[None, :])
    p = tl.dot(a, b).to(tl.float16)
    o = tl.dot(p, v)
    tl.store(o_ptr + m[:, None] * N + n[None, :], o)


# B as the transpose of a load (attention's QK^T): the load holds B's
# columns with K contiguous, so cp.async copies it as it lies, into B's
# buffer laid [N][K], and ldmatrix without .trans reads B's fragments there
# as it reads A's. test_ops checks the numbers.
# RUN: %tilec compile %s -k dot_kt -s "*fp16:16, *fp16:16, *fp32:16, 64, 32, 64" --emit=ptx | FileCheck %s --check-prefix=KT
# RUN: %tilec compile %s -k dot_kt -s "*fp16:16, *fp16:16, *fp32:16, 64, 32, 64" --emit=ptx | %ptxas_check
# KT: cp.async.cg.shared.global
# KT-NOT: ldmatrix.sync.aligned.m8n8.x4.trans
# KT: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# KT-NOT: ldmatrix.sync.aligned.m8n8.x4.trans
# KT: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
@triton.jit
def dot_kt(q_ptr, k_ptr, s_ptr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    m = tl.arange(0, M)
    k = tl.arange(0, K)
    n = tl.arange(0, N)
    q = tl.load(q_ptr + m[:, None] * K + k[None, :])
    kt = tl.load(k_ptr + n[:, None] * K + k[None, :])
    s = tl.dot(q, kt.T)
    tl.store(s_ptr + m[:, None] * N + n[None, :], s)


# B loaded as [K, N] from memory laid [N][K] (x @ W.T with W as nn.Linear
# keeps it; tutorial 09's b): the load's fastest dimension is K, so
# cp.async copies 16-byte runs of K into B's buffer laid [N][K], read by
# ldmatrix without .trans as for dot_kt; no element goes through registers.
# test_ops checks the numbers.
# RUN: %tilec compile %s -k dot_bt -s "*fp16:16, *fp16:16, *fp32:16, 64, 32, 64" --emit=ptx | FileCheck %s --check-prefix=BT
# RUN: %tilec compile %s -k dot_bt -s "*fp16:16, *fp16:16, *fp32:16, 64, 32, 64" --emit=ptx | %ptxas_check
# BT-NOT: st.shared.b16
# BT: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
# BT-NOT: ldmatrix.sync.aligned.m8n8.x4.trans
# BT-NOT: st.shared.b16
# BT: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# BT-NOT: ldmatrix.sync.aligned.m8n8.x4.trans
# BT: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
@triton.jit
def dot_bt(q_ptr, k_ptr, s_ptr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    m = tl.arange(0, M)
    k = tl.arange(0, K)
    n = tl.arange(0, N)
    q = tl.load(q_ptr + m[:, None] * K + k[None, :])
    b = tl.load(k_ptr + k[:, None] + n[None, :] * K)
    tl.store(s_ptr + m[:, None] * N + n[None, :], tl.dot(q, b))


# A loaded vector and a mask from ranges meeting a dot's result (attention
# backward's qk - m[None, :] and its causal mask): the vector converts as a
# vector to a slice of the MMA layout and is broadcast there, the mask is
# computed there from its ranges; no 2-D conversion before the store. A
# vector of fewer elements than the block's threads is loaded in the slice
# itself (its addresses recomputed there), as Triton rematerializes a cheap
# load, instead of converted through shared memory.
# test_ops checks the numbers.
# RUN: %tilec compile %s -k dot_rowvec -s "*fp16:16, *fp16:16, *fp32:16, *fp32:16, 64, 16, 64" --emit=tile-gpu | FileCheck %s --check-prefix=VEC
# VEC: "tile.load"({{.*}}) -> tensor<64xf32, #tile.slice<0 : i64, #tile.mma<2 : i64, [2, 2], [16, 8]>>>
# VEC-NOT: "tile.convert_layout"({{.*}}) : (tensor<64xf32
# VEC-NOT: "tile.convert_layout"({{.*}}) : (tensor<64x64x{{.*}}#tile.blocked
# VEC: arith.select {{.*}} : tensor<64x64xi1, #tile.mma<2 : i64, [2, 2], [16, 8]>>, tensor<64x64xf32, #tile.mma<2 : i64, [2, 2], [16, 8]>>
# VEC: "tile.convert_layout"({{.*}}) : (tensor<64x64xf32, #tile.mma<2 : i64, [2, 2], [16, 8]>>)
# VEC: "tile.store"
@triton.jit
def dot_rowvec(a_ptr, b_ptr, m_ptr, c_ptr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    m = tl.arange(0, M)
    k = tl.arange(0, K)
    n = tl.arange(0, N)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    v = tl.load(m_ptr + n)
    c = tl.dot(a, b) - v[None, :]
    c = tl.where(m[:, None] >= n[None, :], c, 0.0)
    tl.store(c_ptr + m[:, None] * N + n[None, :], c)


# acc += tl.dot(a, b) in a K loop is tl.dot(a, b, acc) (canonicalize): the
# tensor cores accumulate in place, no add per element after each step.
# test_ops checks its numbers.
# RUN: %tilec compile %s -k dot_acc_add -s "*fp16:16, *fp16:16, *fp32:16, i32:16, 64, 16, 64" --emit=ptx | FileCheck %s --check-prefix=ACCADD --implicit-check-not=add.f32
# RUN: %tilec compile %s -k dot_acc_add -s "*fp16:16, *fp16:16, *fp32:16, i32:16, 64, 16, 64" --emit=ptx | %ptxas_check
# ACCADD: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32


@triton.jit
def dot_acc_add(a_ptr, b_ptr, c_ptr, K, M: tl.constexpr, BK: tl.constexpr, N: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, BK)
    acc = tl.zeros((M, N), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + m[:, None] * K + (k0 + k)[None, :])
        b = tl.load(b_ptr + (k0 + k)[:, None] * N + n[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + m[:, None] * N + n[None, :], acc)


# A layout conversion by words (codegen/lower_convert.c): a dot's result,
# in the MMA layout, goes to the store's layout through shared memory by
# 16-byte words both layouts hold in registers (its column pair and rows 8
# and more apart), one st.shared.v4 and one ld.shared.v4 per word, swizzled
# against bank conflicts; no access element by element. test_ops runs
# dot2d on the emulator at these shapes and others against a reference.
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp16:16, 128, 16, 128" --emit=ptx | FileCheck %s --check-prefix=WF16
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp16:16, 128, 16, 128" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp32:16, 64, 16, 64" -w 2 --emit=ptx | FileCheck %s --check-prefix=WF32
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp32:16, 64, 16, 64" -w 2 --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp16:16, 128, 32, 64" -w 8 --emit=ptx | %ptxas_check
# Where the reading thread holds no 16-byte word of the writer's (the warps
# along M, a store layout of 8 columns a thread, 8 threads a row), 16-bit
# words are read by ldmatrix: lane l gets the piece l % 4 of row l / 4 of each
# of four 16-byte words, as Triton converts them.
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp16:16, 128, 16, 64" --emit=ptx | FileCheck %s --check-prefix=WLDM
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp16:16, 128, 16, 64" --emit=ptx | %ptxas_check
# Too few common registers for a 16-byte word (a 16x16 tile over 2 warps):
# element by element, as before.
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp16:16, 16, 16, 16" -w 2 --emit=ptx | FileCheck %s --check-prefix=WSMALL
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp16:16, 16, 16, 16" -w 2 --emit=ptx | %ptxas_check

# WF16: mma.sync.aligned.m16n8k16
# WF16-NOT: st.shared.b16
# WF16-NOT: st.shared.b32
# WF16: st.shared.v4.b32
# WF16-NOT: ld.shared.b16
# WF16-NOT: ld.shared.b32
# WF16: ld.shared.v4.b32
# WF16: st.global.v4.b32

# WF32: mma.sync.aligned.m16n8k16
# WF32-NOT: st.shared.b32
# WF32: st.shared.v4.b32
# WF32-NOT: ld.shared.b32
# WF32: ld.shared.v4.b32
# WF32: st.global.v4.b32

# WLDM: mma.sync.aligned.m16n8k16
# WLDM-NOT: st.shared.b
# WLDM: st.shared.v4.b32
# WLDM-NOT: ld.shared
# WLDM: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# WLDM-NOT: ld.shared
# WLDM: st.global.v4.b32

# WSMALL: mma.sync.aligned.m16n8k16
# WSMALL-NOT: st.shared.v4
# WSMALL-NOT: ld.shared.v4
# WSMALL: st.global


# One load read by two dots (attention backward's Q^T: B of K @ Q^T and,
# transposed, of dS @ Q): one copy in shared memory by cp.async, read as
# it lies by ldmatrix for one dot and by ldmatrix.trans for the other,
# pipelined across the loop (tl.range's num_stages). The loop-invariant A
# operands (K, X) are converted before the loop: written to shared memory
# once, read by ldmatrix in each iteration. test_ops checks the numbers,
# pipelined and not.
# RUN: %tilec compile %s -k dot_two_ways -s "*fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, 64, 16, 64, 3" --emit=pipeline | FileCheck %s --check-prefix=TWO
# RUN: %tilec compile %s -k dot_two_ways -s "*fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, 64, 16, 64, 3" --emit=ptx | FileCheck %s --check-prefix=TWOPTX
# RUN: %tilec compile %s -k dot_two_ways -s "*fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, 64, 16, 64, 3" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot_two_ways -s "*fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, 64, 32, 64, 1" --emit=ptx | %ptxas_check
# TWO: "tile.convert_layout"({{.*}}#tile.dot_op<0
# TWO: "tile.convert_layout"({{.*}}#tile.dot_op<0
# TWO: scf.for
# TWO: "tile.load"({{.*}}tile.stage = 0
# TWO-NOT: "tile.load"
# TWO: "tile.trans"
# TWO: scf.yield
# TWOPTX-NOT: st.shared.b16
# TWOPTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
# TWOPTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
# TWOPTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# TWOPTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
@triton.jit
def dot_two_ways(k_ptr, x_ptr, q_ptr, s_ptr, g_ptr, steps, BN: tl.constexpr, BM: tl.constexpr, D: tl.constexpr,
                 STAGES: tl.constexpr):
    n = tl.arange(0, BN)
    m = tl.arange(0, BM)
    d = tl.arange(0, D)
    k = tl.load(k_ptr + n[:, None] * D + d[None, :])
    x = tl.load(x_ptr + n[:, None] * BM + m[None, :])
    s = tl.zeros((BN, BM), dtype=tl.float32)
    g = tl.zeros((BN, D), dtype=tl.float32)
    qT_ptrs = q_ptr + m[None, :] * D + d[:, None]
    for i in tl.range(0, steps, num_stages=STAGES):
        qT = tl.load(qT_ptrs)
        s += tl.dot(k, qT)
        g += tl.dot(x, tl.trans(qT))
        qT_ptrs += BM * D
    tl.store(s_ptr + n[:, None] * BM + m[None, :], s)
    tl.store(g_ptr + n[:, None] * D + d[None, :], g)


# A K loop over a paged cache (a decode kernel's block table): the rows of
# B come from an index load in the same iteration. The pipeliner takes the
# index load into the first stage, loaded ahead in registers (predicated on
# the iteration's existence), and the gathered rows go to shared memory by
# cp.async, ahead too, as Triton's pipeliner schedules them. test_ops
# checks the numbers at a ragged row count.
# RUN: %tilec compile %s -k dot_paged -s "*fp16:16, *fp16:16, *i32:16, *fp32:16, i32, i32:16, 16, 64, 32" --emit=pipeline | FileCheck %s --check-prefix=PAGED
# RUN: %tilec compile %s -k dot_paged -s "*fp16:16, *fp16:16, *i32:16, *fp32:16, i32, i32:16, 16, 64, 32" --emit=ptx | FileCheck %s --check-prefix=PAGEDPTX
# RUN: %tilec compile %s -k dot_paged -s "*fp16:16, *fp16:16, *i32:16, *fp32:16, i32, i32:16, 16, 64, 32" --emit=ptx | %ptxas_check
# PAGED: scf.for
# PAGED: "tile.load"({{.*}}tile.in_registers{{.*}}tile.stage = 0
# PAGED: "tile.load"({{.*}}tile.stage = 0
# PAGED: } {tile.pipeline = 3
# PAGEDPTX: ld.global.b32
# PAGEDPTX: cp.async.cg.shared.global
# PAGEDPTX: cp.async.commit_group
# PAGEDPTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
@triton.jit
def dot_paged(p_ptr, kv_ptr, table_ptr, o_ptr, n_rows, stride_p, M: tl.constexpr, D: tl.constexpr, BN: tl.constexpr):
    m = tl.arange(0, M)
    d = tl.arange(0, D)
    acc = tl.zeros((M, D), dtype=tl.float32)
    for start in range(0, n_rows, BN):
        offs = start + tl.arange(0, BN)
        row = tl.load(table_ptr + offs, mask=offs < n_rows, other=0)
        kv = tl.load(kv_ptr + row[:, None] * D + d[None, :], mask=(offs < n_rows)[:, None], other=0.0)
        p = tl.load(p_ptr + m[:, None] * stride_p + offs[None, :])
        acc = tl.dot(p, kv, acc)
    tl.store(o_ptr + m[:, None] * D + d[None, :], acc)


# One load as both operands of a dot, x @ x and x @ x^T: one copy by
# cp.async (four 16-byte copies a thread for 64x64 halves), read as A by
# ldmatrix and as B by ldmatrix.trans (x @ x) or without it (x @ x^T).
# test_ops checks the numbers.
# RUN: %tilec compile %s -k dot_self -s "*fp16:16, *fp32:16, *fp32:16, 64" --emit=ptx | FileCheck %s --check-prefix=SELF
# RUN: %tilec compile %s -k dot_self -s "*fp16:16, *fp32:16, *fp32:16, 64" --emit=ptx | %ptxas_check
# SELF-NOT: st.shared.b16
# SELF-COUNT-4: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
# SELF-NOT: cp.async.c{{[ag]}}.shared
# SELF: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
@triton.jit
def dot_self(x_ptr, y_ptr, z_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + r[None, :])
    tl.store(y_ptr + r[:, None] * N + r[None, :], tl.dot(x, x))
    tl.store(z_ptr + r[:, None] * N + r[None, :], tl.dot(x, x.T))


# sm_90a: wgmma.mma_async (accelerate-matmul's #tile.mma<3, [num_warps, 1],
# [16, n]>, codegen/lower_wgmma.c). The operands' buffers in shared memory
# are aligned to their swizzle's period (1024 bytes for 128-byte rows); the
# copies land (cp.async wait), the generic proxy's writes are fenced for the
# async proxy, the block meets, then wgmma.fence, one instruction per 16 of
# K (K-major A, MN-major B: imm-trans-b 1), one commit and a wait before D
# is read. fp32 operands are tf32 k8 (both K-major); tf32x3 stays on
# mma.sync.
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp32:16, 64, 64, 64" --arch sm_90a --emit=tile-gpu | FileCheck %s --check-prefix=WGLAYOUT
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp32:16, 64, 64, 64" --arch sm_90a --emit=ptx | FileCheck %s --check-prefix=WG
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp32:16, 64, 64, 64" --arch sm_90a --emit=ptx | %ptxas_check_sm90a
# RUN: %tilec compile %s -k dot2d -s "*fp32:16, *fp32:16, *fp32:16, 64, 32, 64" --arch sm_90a --emit=ptx | FileCheck %s --check-prefix=WGTF32
# RUN: %tilec compile %s -k dot2d_x3 -s "*fp32:16, *fp32:16, *fp32:16, 64, 32, 64" --arch sm_90a --emit=ptx | FileCheck %s --check-prefix=WGX3
# RUN: %tilec compile %s -k dot2d -s "*fp16:16, *fp16:16, *fp32:16, 64, 64, 64" --arch sm_90 --emit=ptx | FileCheck %s --check-prefix=SM90
# WGLAYOUT: "tile.dot"{{.*}} -> tensor<64x64xf32, #tile.mma<3 : i64, [4, 1], [16, 64]>>
# WG: .extern .shared .align 1024 .b8 tilec_smem[];
# WG: cp.async.wait_group 0;
# WG: fence.proxy.async.shared::cta;
# WG: bar.sync
# WG: wgmma.fence.sync.aligned;
# WG-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 1; }
# WG: wgmma.commit_group.sync.aligned;
# WG: wgmma.wait_group.sync.aligned 0;
# WGTF32-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{.*}}, p, 1, 1; }
# WGX3-NOT: wgmma
# WGX3: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
# SM90-NOT: wgmma
# SM90: mma.sync.aligned.m16n8k16

# A pipelined K loop whose dot only accumulates (examples/matmul.py, N, K and
# the strides divisible by 16): the wgmma group stays in flight into the next
# iteration (wait_group 1: the copies of the iteration go to the slot of the
# one before, which that wait retired), and after the loop the copies and the
# last group are waited for before the accumulator is read.
# RUN: %tilec compile %examples/matmul.py -k matmul_kernel -s "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 128, 64, 8, ''" -w 4 --num-stages 3 --arch sm_90a --emit=ptx | FileCheck %s --check-prefix=WGLOOP
# WGLOOP: cp.async.wait_group 1;
# WGLOOP: fence.proxy.async.shared::cta;
# WGLOOP: bar.sync
# WGLOOP: wgmma.fence.sync.aligned;
# WGLOOP-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
# WGLOOP: wgmma.commit_group.sync.aligned;
# WGLOOP: wgmma.wait_group.sync.aligned 1;
# WGLOOP: cp.async.cg.shared.global
# WGLOOP: cp.async.wait_group 0;
# WGLOOP: wgmma.wait_group.sync.aligned 0;
