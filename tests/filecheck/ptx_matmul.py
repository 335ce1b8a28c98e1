# A K-loop matmul on tensor cores for every operand type mma.sync takes,
# the accumulator carried across the loop in the MMA layout and stored
# from it with masks: test_ops runs it at ragged sizes against references.
# Here: the PTX has the instruction of each type and ptxas accepts it.
# RUN: %tilec compile %s -k matmul -s "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32, i32, i32, 64, 64, 32, 'tf32'" --emit=ptx | FileCheck %s --check-prefix=F16
# RUN: %tilec compile %s -k matmul -s "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32, i32, i32, 64, 64, 32, 'tf32'" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k matmul -s "*bf16:16, *bf16:16, *fp32:16, i32, i32, i32, i32, i32, i32, 64, 32, 32, 'tf32'" --emit=ptx | FileCheck %s --check-prefix=BF16
# RUN: %tilec compile %s -k matmul -s "*bf16:16, *bf16:16, *fp32:16, i32, i32, i32, i32, i32, i32, 64, 32, 32, 'tf32'" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k matmul -s "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32, i32, i32, i32, 32, 64, 16, 'tf32'" --emit=ptx | FileCheck %s --check-prefix=TF32
# RUN: %tilec compile %s -k matmul -s "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32, i32, i32, i32, 32, 64, 16, 'tf32'" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k matmul -s "*i8:16, *i8:16, *i32:16, i32, i32, i32, i32, i32, i32, 64, 64, 64, 'tf32'" --emit=ptx | FileCheck %s --check-prefix=I8
# RUN: %tilec compile %s -k matmul -s "*i8:16, *i8:16, *i32:16, i32, i32, i32, i32, i32, i32, 64, 64, 64, 'tf32'" --emit=ptx | %ptxas_check
# 16-bit operands come from shared memory by ldmatrix: A row-major, B
# row-major and transposed by .trans; tf32 and int8 by 32-bit loads.
# F16: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# F16: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
# F16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# With N and K multiples of 16 (as Triton's JIT specializes them), the
# 16-bit operands' rows are 16-byte aligned and go to shared memory by
# cp.async, 16 bytes each, zero-filled where masked. With num_stages 1 the
# conversion waits for them before the barrier and the ldmatrix reads:
# RUN: %tilec compile %s -k matmul -s "*fp16:16, *fp16:16, *fp32:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 'tf32'" --num-stages 1 --emit=ptx | FileCheck %s --check-prefix=CP
# RUN: %tilec compile %s -k matmul -s "*fp16:16, *fp16:16, *fp32:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 'tf32'" --num-stages 1 --emit=ptx | %ptxas_check
# CP-NOT: st.shared
# CP: selp.b32 n, 16, 0, p; cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, n;
# CP: cp.async.commit_group;
# CP: cp.async.wait_group 0;
# CP: bar.sync 0;
# CP: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# With num_stages 3 (the default) the loop is pipelined: the copies of the
# first two iterations before it, each its own group; each iteration waits
# for its own (wait_group 1: the next one's may still be in flight), reads
# its slot (one barrier after the wait, none between the K steps), and
# after a barrier copies iteration i + 2 into that slot; nothing is in
# flight after the loop.
# RUN: %tilec compile %s -k matmul -s "*fp16:16, *fp16:16, *fp32:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 'tf32'" --emit=ptx | FileCheck %s --check-prefix=PIPE
# RUN: %tilec compile %s -k matmul -s "*fp16:16, *fp16:16, *fp32:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 'tf32'" --emit=ptx | %ptxas_check
# PIPE-NOT: st.shared
# PIPE: cp.async.cg.shared.global
# PIPE: cp.async.commit_group;
# PIPE: cp.async.cg.shared.global
# PIPE: cp.async.commit_group;
# PIPE: cp.async.wait_group 1;
# PIPE-NOT: ldmatrix
# PIPE: bar.sync 0;
# PIPE: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# PIPE-NOT: bar.sync
# PIPE: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# PIPE-NOT: bar.sync
# PIPE: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# PIPE: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# PIPE: bar.sync 0;
# PIPE: cp.async.wait_group 0;
# tl.range(..., num_stages=4): three iterations ahead, wait_group 2; the
# shared memory holds 3 slots of A (64 x 32 halves) and of B (32 x 64
# halves), swizzled, not padded, each refilled by the iteration that read
# it: 24576 bytes, more than the epilogue needs.
# RUN: %tilec compile %s -k matmul_staged -s "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 4" --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=STAGES4 < %t.ptx && FileCheck %s --check-prefix=SMEM4 < %t.ptx.json
# RUN: %tilec compile %s -k matmul_staged -s "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 4" --emit=ptx | %ptxas_check
# STAGES4-COUNT-3: cp.async.commit_group;
# STAGES4: cp.async.wait_group 2;
# SMEM4: "shared_bytes": 24576
# The loop of Triton's tutorial 03 (over tiles of K, masks against what is
# left of K) is pipelined the same way.
# RUN: %tilec compile %s -k matmul_tiles -s "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32" --emit=ptx | FileCheck %s --check-prefix=TILES
# RUN: %tilec compile %s -k matmul_tiles -s "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32" --emit=ptx | %ptxas_check
# TILES: cp.async.cg.shared.global
# TILES: cp.async.wait_group 1;
# TILES: ldmatrix
# TILES: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# BF16: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
# BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# TF32-NOT: ldmatrix
# TF32: ld.shared.b32
# TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
# I8-NOT: ldmatrix
# I8: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PRECISION: tl.constexpr):
    pid = tl.program_id(0)
    pid_m = pid // tl.cdiv(N, BN)
    pid_n = pid % tl.cdiv(N, BN)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=c_ptr.dtype.element_ty)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] + k < K), other=0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] + k < K) & (offs_n[None, :] < N), other=0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def matmul_staged(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr):
    # the same, its K loop a tl.range with num_stages, and a fused epilogue
    pid = tl.program_id(0)
    pid_m = pid // tl.cdiv(N, BN)
    pid_n = pid % tl.cdiv(N, BN)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, num_stages=STAGES):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] + k < K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] + k < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    acc = tl.where(acc >= 0, acc, 0.01 * acc)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def matmul_tiles(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # the loop counts tiles of K (range(0, cdiv(K, BK))), its masks compare
    # against what is left of K, and the rows wrap modulo M instead of being
    # masked: the form of Triton's tutorial 03
    pid = tl.program_id(0)
    pid_m = pid // tl.cdiv(N, BN)
    pid_n = pid % tl.cdiv(N, BN)
    offs_am = (pid_m * BM + tl.arange(0, BM)) % M
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c = acc.to(tl.float16)
    offs_cm = pid_m * BM + tl.arange(0, BM)
    offs_cn = pid_n * BN + tl.arange(0, BN)
    c_ptrs = c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))
