# Language constructs taken from third-party kernels, each checked in its
# typed AST, in PTX that ptxas accepts, and (tests/emu/test_lang.c) on the
# emulator against a C reference.
# RUN: %tilec compile %s -k cast_forms -s "*fp32, *i32, *fp16, *fp32, i32, i32, i32, 64" --emit=ast | FileCheck %s --check-prefix=CAST
# RUN: %tilec compile %s -k cast_forms -s "*fp32, *i32, *fp16, *fp32, i32, i32, i32, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k helper_returns -s "*i32, *i32, *i32, i32, i32, i32, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k optional_args -s "*fp32, None, *fp32, *fp32, i32, 64" -D HAS_B=False --emit=ast | FileCheck %s --check-prefix=NONE
# RUN: %tilec compile %s -k optional_args -s "*fp32, *fp32, *fp32, i32, 64" -D w_ptr=None -D HAS_B=False --emit=ast | FileCheck %s --check-prefix=NONE
# RUN: %tilec compile %s -k optional_args -s "*fp32, *fp32, *fp32, *fp32, i32, 64" -D HAS_B=True --emit=ast | FileCheck %s --check-prefix=BOTH
# RUN: %tilec compile %s -k optional_args -s "*fp32, None, *fp32, *fp32, i32, 64" -D HAS_B=True --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k grouped_rows -s "*i64, *i64, *i32, *fp32, 64" --emit=ast | FileCheck %s --check-prefix=PTR
# RUN: %tilec compile %s -k grouped_rows -s "*i64, *i64, *i32, *fp32, 64" --emit=ptx | FileCheck %s --check-prefix=PTRPTX
# RUN: %tilec compile %s -k grouped_rows -s "*i64, *i64, *i32, *fp32, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k count_down -s "*i32, *i32, i32, i32, i32" --emit=ast | FileCheck %s --check-prefix=DOWN
# RUN: %tilec compile %s -k count_down -s "*i32, *i32, i32, i32, i32" --emit=tile | FileCheck %s --check-prefix=DOWNIR
# RUN: %tilec compile %s -k count_down -s "*i32, *i32, i32, i32, i32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k signed_steps -s "*i32, *i32, i32, i32, i32, i32, -1073741824" --emit=ast | FileCheck %s --check-prefix=STEPS
# RUN: %tilec compile %s -k signed_steps -s "*i32, *i32, i32, i32, i32, i32, -1073741824" --emit=tile | FileCheck %s --check-prefix=STEPSIR
# RUN: %tilec compile %s -k signed_steps -s "*i32, *i32, i32, i32, i32, i32, -1073741824" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k signed_steps -s "*i32, *i32, i64, i64, i64, i64, -4611686018427387904" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k early_returns -s "*i32, *i32, i32" --emit=ast | FileCheck %s --check-prefix=RET
# RUN: %tilec compile %s -k early_returns -s "*i32, *i32, i32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k annotated_locals -s "*fp32, *fp16, i32:1, 64" --num-stages 12 --emit=ast | FileCheck %s --check-prefix=ANN
# RUN: %tilec compile %s -k annotated_locals -s "*fp32, *fp16, i32:1, 64" --num-stages 12 --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k reverse_scans -s "*fp32, *fp32, *i32, i32, 32, 64" --emit=ast | FileCheck %s --check-prefix=REV
# RUN: %tilec compile %s -k reverse_scans -s "*fp32, *fp32, *i32, i32, 32, 64" --emit=ptx | FileCheck %s --check-prefix=REVPTX
# RUN: %tilec compile %s -k reverse_scans -s "*fp32, *fp32, *i32, i32, 32, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k reverse_scans -s "*fp32, *fp32, *i32, i32, 4, 256" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k desc_copy -s "tensordesc<fp32[16, 8]>, *fp32, i32, i32, i32, 16, 8" --emit=ast | FileCheck %s --check-prefix=DESC
# RUN: %tilec compile %s -k desc_copy -s "tensordesc<fp32[16, 8]>, *fp32, i32, i32, i32, 16, 8" --emit=tile | FileCheck %s --check-prefix=DESCIR
# RUN: %tilec compile %s -k desc_copy -s "tensordesc<fp32[16, 8]>, *fp32, i32, i32, i32, 16, 8" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k desc_copy -s "tensordesc<fp32[16, 8]>, *fp32, i32, i32, i32, 16, 8" --arch sm_90a --emit=ptx | FileCheck %s --check-prefix=DESCTMA
# RUN: %tilec compile %s -k desc_copy -s "tensordesc<fp32[16, 8]>, *fp32, i32, i32, i32, 16, 8" --arch sm_90a --emit=ptx | %ptxas_check_sm90a
# RUN: %tilec compile %s -k desc_matmul -s "tensordesc<fp16[64, 32]>, tensordesc<fp16[32, 128]>, tensordesc<fp16[64, 128]>, i32, 64, 128, 32" --arch sm_90a --num-stages 3 --emit=ptx | FileCheck %s --check-prefix=TMALOOP
# RUN: %tilec compile %s -k desc_matmul -s "tensordesc<fp16[64, 32]>, tensordesc<fp16[32, 128]>, tensordesc<fp16[64, 128]>, i32, 64, 128, 32" --arch sm_90a --num-stages 3 --emit=ptx | %ptxas_check_sm90a
# RUN: %tilec compile %s -k desc_matmul -s "tensordesc<fp16[64, 32]>, tensordesc<fp16[32, 128]>, tensordesc<fp16[64, 128]>, i32, 64, 128, 32" --arch sm_90a --num-stages 3 --emit=ptx | FileCheck %s --check-prefix=NOLOCAL
# RUN: %tilec compile %s -k desc_copy -s "tensordesc<fp32[16, 8]>, *fp32, i32, i32, i32, 16, 8" --arch sm_90a --emit=ptx | FileCheck %s --check-prefix=NOLOCAL
# RUN: %tilec compile %s -k experimental_desc -s "*fp32, *fp32, i32, i32, 16, 8" --emit=ast | FileCheck %s --check-prefix=EXP
# RUN: %tilec compile %s -k experimental_desc -s "*fp32, *fp32, i32, i32, 16, 8" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k unsigned_mod -s "*i32, *i32, 64" --emit=ast | FileCheck %s --check-prefix=UNS
import triton
import triton.language as tl

# tensor.cast and tl.cast, as methods and functions, on tensors, runtime
# scalars and constexprs, with bitcast= and fp_downcast_rounding=
# CAST: (bitcast x:<64xfp32> : <64xi32>)
# CAST: (fp_downcast x:<64xfp32> [rounding=rtz] : <64xfp16>)
# CAST: (cast s:i32 : fp32)
# CAST: (bitcast bits:i32 : fp32)
# CAST: (cast k:i32 : i64)


@triton.jit
def cast_forms(x_ptr, bits_ptr, h_ptr, out_ptr, s, bits, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(bits_ptr + offs, x.cast(tl.int32, bitcast=True), mask=mask)
    tl.store(h_ptr + offs, tl.cast(x, tl.float16, fp_downcast_rounding="rtz"), mask=mask)
    k = tl.program_id(0)
    y = x * s.cast(tl.float32) + tl.cast(bits, tl.float32, bitcast=True)
    y += k.cast(tl.int64).to(tl.float32) + tl.cast(3, tl.float16).cast(tl.float32)
    tl.store(out_ptr + offs, y, mask=mask)


# None arguments: the parameter is the constexpr None, and `is None` folds
# NONE: kernel optional_args(x_ptr: *fp32, b_ptr: *fp32, out_ptr: *fp32, n: i32)
# NONE-NEXT: constexpr w_ptr = None
# NONE-NOT: load (addptr (splat w_ptr
# NONE: (mul x:<64xfp32> -1.0:<64xfp32>
# BOTH: kernel optional_args(x_ptr: *fp32, w_ptr: *fp32, b_ptr: *fp32, out_ptr: *fp32, n: i32)
# BOTH: (load (addptr (splat w_ptr:*fp32
# BOTH: (load (addptr (splat b_ptr:*fp32


@triton.jit
def optional_args(x_ptr, w_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr, HAS_B: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if w_ptr is not None:
        x = x * tl.load(w_ptr + offs, mask=mask)
    if w_ptr is None:
        x = x * -1.0
    if HAS_B:
        x += tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


# Pointers read from a table of int64 (a grouped GEMM's), converted back to
# integers to check their distances; dtypes called as constructors
# PTR: src = (cast (load (addptr src_table:*i64 g:i32 : *i64) _ _ : i64) : *fp16)
# PTR: m = -inf:fp32
# PTR: cnt = 0:i32
# PTR: (cast (addptr (splat src:*fp16 : <64x*fp16>) offs:<64xi32> : <64x*fp16>) : <64xi64>)
# PTRPTX: ld.global.b64
# PTRPTX: ld.global{{.*}}.b16


@triton.jit
def grouped_rows(src_table, dst_table, sizes, stats, BLOCK: tl.constexpr):
    g = tl.program_id(0)
    n = tl.load(sizes + g)
    src = tl.load(src_table + g).to(tl.pointer_type(tl.float16))
    dst = tl.load(dst_table + g).to(tl.pointer_type(tl.float32))
    m = tl.float32(-float("inf"))
    cnt = tl.int32(0)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(src + offs, mask=mask, other=-float("inf")).to(tl.float32)
        tl.store(dst + offs, x * 2, mask=mask)
        m = tl.maximum(m, tl.max(x, axis=0))
        apart = (src + offs).to(tl.int64) - src.to(tl.int64)
        cnt += tl.sum(((apart == 2 * offs) & mask).to(tl.int32), axis=0)
    tl.store(stats + 2 * g, m)
    tl.store(stats + 2 * g + 1, cnt.to(tl.float32))


# Loops counting down by a constant step, up by a runtime one, and
# tl.range's bounds as keywords. Each records the order of its iterations,
# so the reference sees every induction value.
# DOWN: for i in range(
# DOWN-SAME: -1:i32)
# DOWN: for j in range(0:i32, nt:i32, step:i32)
# DOWN: for k in range(lo:i32, nt:i32, 3:i32)
# DOWNIR: arith.divui
# DOWNIR: scf.for


@triton.jit
def count_down(out_ptr, count_ptr, nt, lo, step):
    pos = 0
    for i in range(nt - 1, -1, -1):
        tl.store(out_ptr + pos, i)
        pos += 1
    for j in tl.range(0, nt, step):
        tl.store(out_ptr + pos, j)
        pos += 1
    for k in tl.range(lo, arg2=nt, step=3):
        tl.store(out_ptr + pos, k)
        pos += 1
    for m in tl.range(10, lo, -4, num_stages=1):
        tl.store(out_ptr + pos, m)
        pos += 1
    tl.store(count_ptr, pos)


# Steps of either sign, with Python's meaning: a constant one (a large one
# counts without overflow from bounds near the type's limits), and a runtime
# one whose sign only the data knows (Triton 3.9 takes a runtime step to be
# positive). Such a loop counts its iterations at its entry, len(range),
# with one unsigned division; a step of tl.num_programs is known positive
# and stays the scf.for's own, with no division.
# STEPS: for i in range(10:i32, 0:i32, -2:i32)
# STEPS: for q in range(lo:i32, hi:i32, -1073741824:i32)
# STEPS: for j in range(lo:i32, hi:i32, step:i32)
# STEPS: for k in range(hi:i32, lo:i32, step2:i32)
# STEPSIR-COUNT-4: arith.divui
# STEPSIR: %[[NP:.*]] = "tile.num_programs"
# STEPSIR-NOT: arith.divui
# STEPSIR: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[NP]]
@triton.jit
def signed_steps(out_ptr, count_ptr, lo, hi, step, step2, BIG_DOWN: tl.constexpr):
    pos = 0
    for i in range(10, 0, -2):
        tl.store(out_ptr + pos, i)
        pos += 1
    for q in range(lo, hi, BIG_DOWN):
        tl.store(out_ptr + pos, q)
        pos += 1
    for j in tl.range(lo, hi, step):
        tl.store(out_ptr + pos, j)
        pos += 1
    for k in range(hi, lo, step2):
        tl.store(out_ptr + pos, k)
        pos += 1
    for m in tl.static_range(7, -3, -3):
        tl.store(out_ptr + pos, m)
        pos += 1
    for g in range(tl.program_id(0), 3, tl.num_programs(0)):
        tl.store(out_ptr + pos, g)
        pos += 1
    tl.store(count_ptr, pos)


# Early returns at any depth of runtime ifs (outside loops, as Triton
# allows them), a bare return after another
# RET: if (ge pid:i32 n:i32 : i1)
# RET-NEXT: return
# RET: if (gt v:i32 100:i32 : i1)
# RET: return
# RET: return
# RET: if (lt v:i32 0:i32 : i1)
# RET-NEXT: return
# RET: (store (addptr out_ptr:*i32 pid:i32 : *i32) v:i32 _ : void)
# RET-NEXT: return
# RET-NOT: -1:i32


@triton.jit
def early_returns(x_ptr, out_ptr, n):
    pid = tl.program_id(0)
    if pid >= n:
        return
    v = tl.load(x_ptr + pid)
    if v > 10:
        if v > 100:
            tl.store(out_ptr + pid, 3)
            return
        v = v * 2
        if v % 4 == 0:
            tl.store(out_ptr + pid, 2)
            return
    else:
        if v < 0:
            return
    tl.store(out_ptr + pid, v)
    return
    tl.store(out_ptr + pid, -1)


# Returns inside runtime ifs of inlined helpers, as Triton's helpers take
# them: nested ifs that return, statements after an if that returns,
# constant and runtime results merged, a path that falls through to a
# later return; on scalars and on blocks.
@triton.jit
def classify(v):
    if v > 10:
        if v > 100:
            return 3
        v = v * 2
        if v % 4 == 0:
            return v // 4
    else:
        if v < 0:
            return -v
    w = v + 1
    return w * 10


@triton.jit
def clamp_block(x, lo, hi):
    if lo > hi:
        return tl.zeros_like(x)
    return tl.minimum(tl.maximum(x, lo), hi)


@triton.jit
def helper_returns(x_ptr, out_ptr, blk_ptr, n, lo, hi, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid % n)
    tl.store(out_ptr + pid, classify(v))
    offs = tl.arange(0, BLOCK)
    b = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(blk_ptr + pid * BLOCK + offs, clamp_block(b, lo + pid % 3 - 1, hi))


# Annotated locals: a constexpr computed from a parameter specialized to 1,
# a tl.dtype annotation, and more than 8 stages
# ANN: kernel annotated_locals(x_ptr: *fp32, y_ptr: *fp16, N: i32 :1)
# ANN: num_stages = 12
# ANN: for i in range(0:i32, 3:i32, 1:i32) num_stages=10
# ANN: (cast acc:<64xfp32> : <64xfp16>)


@triton.jit
def annotated_locals(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    X: tl.constexpr = N * 2 + 1
    out_dtype: tl.dtype = y_ptr.dtype.element_ty
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.range(0, X, num_stages=10):
        acc += tl.load(x_ptr + offs * X + i)
    tl.store(y_ptr + offs, acc.to(out_dtype))


# Scans from the end (linear attention's chunked backward, suffix sums):
# cumsum, cumprod and a combine function with reverse=True, along each axis.
@triton.jit
def _last_nonzero(a, b):
    return tl.where(b != 0, b, a)


# REV: kernel reverse_scans(x_ptr: *fp32, out_ptr: *fp32, idx_ptr: *i32, n: i32)
# REV: (scan {{.*}} [kind=sum axis=1 reverse]
# REV: (scan {{.*}} [kind=prod axis=0 reverse]
# REV: (scan {{.*}} [kind=combine axis=1 reverse]
# REVPTX: shfl.sync.down.b32
@triton.jit
def reverse_scans(x_ptr, out_ptr, idx_ptr, n, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.arange(0, ROWS)[:, None]
    c = tl.arange(0, COLS)[None, :]
    mask = (r * COLS + c) < n
    offs = r * COLS + c
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    suffix = tl.cumsum(x, axis=1, reverse=True)
    tl.store(out_ptr + offs, suffix, mask=mask)
    down = tl.cumprod(x, 0, reverse=True)
    tl.store(out_ptr + ROWS * COLS + offs, down, mask=mask)
    i = tl.load(idx_ptr + offs, mask=mask, other=0)
    nxt = tl.associative_scan(i, 1, _last_nonzero, reverse=True)
    tl.store(idx_ptr + ROWS * COLS + offs, nxt, mask=mask)


# A Python integer takes an unsigned tensor's type, as Triton's kinds are
# boolean < integral < floating (a MoE router's sorted keys, modulo a block).
# UNS: kernel unsigned_mod(p: *i32, q: *i32)
# UNS: (mod y:<64xu32> 64:<64xu32> : <64xu32>)
# UNS: (floordiv y:<64xu32> 64:<64xu32> : <64xu32>)
@triton.jit
def unsigned_mod(p, q, B: tl.constexpr):
    offs = tl.arange(0, 64)
    y = tl.load(p + offs).to(tl.uint32)
    tl.store(q + offs, (y % B).to(tl.int32) + (y // B).to(tl.int32))


# Tensor descriptors, host-side (a `tensordesc<fp32[16, 8]>` parameter: its
# base, shape and strides are passed; the base 16-byte aligned, the row
# stride a multiple of 16 bytes and the last 1, as Triton's
# TensorDescriptor asserts, which the kernel assumes and each launch
# checks) and made in the kernel: accesses are
# bounds-checked in every dimension, out of bounds reads give zero and out
# of bounds writes are dropped.
# DESC: kernel desc_copy(in_desc: *fp32 :16, in_desc_shape0: i64, in_desc_shape1: i64, in_desc_stride0: i64 :4, in_desc_stride1: i64 :1, out_ptr: *fp32, M: i32, N: i32, out_stride: i32)
# DESC: (make_tensor_descriptor in_desc:*fp32 in_desc_shape0:i64 in_desc_shape1:i64 in_desc_stride0:i64 in_desc_stride1:i64
# DESC: (desc_load in_desc_desc
# DESC: (desc_store
# DESCIR: tile.make_block_ptr
# DESCIR: tile.advance
# DESCIR: boundary_check = array<i32: 0, 1>
# On sm_90a the host descriptor's load is a TMA copy from the map the
# kernel takes after its parameters (128 bytes by value, its generic
# address through cvta.param): thread 0 arms the mbarrier it initialized
# at the start with the box's 512 bytes and issues the copy, every thread
# waits for the phase; the descriptor made in the kernel stays a masked
# pointer access (a store of its own).
# DESCTMA: .param .align 64 .b8 desc_copy_param_9[128]
# DESCTMA: cvta.param.u64 [[MAP:%rd[0-9]+]],
# DESCTMA: mbarrier.init.shared::cta.b64 [[[BAR:%r[0-9]+]]], %r{{[0-9]+}};
# DESCTMA: bar.sync 0;
# DESCTMA: mov.b32 [[TX:%r[0-9]+]], 512;
# DESCTMA: mbarrier.arrive.expect_tx.shared::cta.b64 %rd{{[0-9]+}}, [[[BAR]]], [[TX]];
# DESCTMA: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [[[MAP]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], [[[BAR]]];
# DESCTMA: mbarrier.try_wait.parity.shared::cta.b64 p, [[[BAR]]], %r{{[0-9]+}};
# DESCTMA-NOT: cp.async.bulk.tensor
# DESCTMA: st.global
@triton.jit
def desc_copy(in_desc, out_ptr, M, N, out_stride, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BN)
    row = (pid // tiles_n) * BM
    col = (pid % tiles_n) * BN
    out_desc = tl.make_tensor_descriptor(out_ptr, [M, N], [out_stride, 1], [BM, BN])
    x = in_desc.load([row, col])
    tl.static_assert(in_desc.dtype == tl.float32)
    tl.static_assert(in_desc.block_shape[1] == BN)
    out_desc.store([row, col], (x * 2.0 + 1.0).to(out_desc.dtype))


# A K loop through host descriptors on sm_90a: the pipeliner fills wgmma's
# operand slots by TMA, three maps besides the parameters (A's box 64 x 32
# with the 64-byte swizzle, B's 32 x 64 with the 128-byte one, copied twice
# a slot for its 128 columns, C's whole block, unswizzled); the prologue
# fills 2 of the 3 slots; each iteration waits for its slot's phase, once
# for both operands, runs its wgmma group and, after a barrier, copies the
# iteration 2 ahead (three copies, one mbarrier armed for all their bytes,
# 4096 + 8192); no cp.async; C is stored by TMA; the mbarriers are
# invalidated at the end.
# TMALOOP-COUNT-3: .param .align 64 .b8 desc_matmul_param_{{[0-9]+}}[128]
# TMALOOP-COUNT-6: cp.async.bulk.tensor.2d.shared::cluster.global
# TMALOOP: $L__BB0_[[LOOP:[0-9]+]]:
# TMALOOP: mbarrier.try_wait.parity
# TMALOOP-NOT: mbarrier.try_wait.parity
# TMALOOP: wgmma.mma_async
# TMALOOP: wgmma.wait_group.sync.aligned 1;
# TMALOOP: bar.sync 0;
# TMALOOP: mov.b32 [[TX:%r[0-9]+]], 12288;
# TMALOOP: mbarrier.arrive.expect_tx.shared::cta.b64 %rd{{[0-9]+}}, [%r{{[0-9]+}}], [[TX]];
# TMALOOP-NOT: mbarrier.arrive
# TMALOOP-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global
# TMALOOP-NOT: cp.async.{{ca|cg}}
# TMALOOP: wgmma.wait_group.sync.aligned 0;
# TMALOOP: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
# TMALOOP: mbarrier.inval
# The phases' parities are registers, not local memory.
# NOLOCAL-NOT: .local
# NOLOCAL: ret;
@triton.jit
def desc_matmul(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([pm * BM, k * BK]), b_desc.load([k * BK, pn * BN]), acc)
    c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


# The descriptor API of Triton 3.0-3.2, as kernels of that time call it.
# EXP: kernel experimental_desc(a_ptr: *fp32, out_ptr: *fp32, M: i32, N: i32)
# EXP: (desc_load
# EXP: (desc_store
@triton.jit
def experimental_desc(a_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BN)
    row = (pid // tiles_n) * BM
    col = (pid % tiles_n) * BN
    a = tl._experimental_make_tensor_descriptor(a_ptr, [M, N], [N, 1], [BM, BN])
    o = tl._experimental_make_tensor_descriptor(out_ptr, [M, N], [N, 1], [BM, BN])
    x = tl._experimental_descriptor_load(a, [row, col], [BM, BN], tl.float32)
    tl._experimental_descriptor_store(o, x - 3.0, [row, col])


# Scans in the layout the load gives (four elements a thread): a block wider
# than the layout's tile is scanned chunk by chunk, each chunk's total
# carried into the next (forward) or the one before (reverse).
@triton.jit
def chunked_scans(x_ptr, out_ptr, n, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(x_ptr + o, mask=o < n, other=0)
    tl.store(out_ptr + o, tl.cumsum(x, 0), mask=o < n)
    tl.store(out_ptr + N + o, tl.cumsum(x, 0, reverse=True), mask=o < n)
