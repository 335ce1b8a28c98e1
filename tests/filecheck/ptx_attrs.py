# Builtin and loop attributes that change the code: each kernel compiled
# both ways, the PTX differing as Triton's does. tests/emu/test_lang.c runs
# argmax_ties on the emulator against a reference for both tie rules.
#
# tie_break_left=True: equal values go to the lower index, a comparison of
# the values and one of the indices; False: the second pair wins on ties,
# the value comparison alone.
# RUN: %tilec compile %s -k argmax_ties -s "*fp32, *i32, 64, True" --emit=ptx | FileCheck %s --check-prefix=LEFT
# RUN: %tilec compile %s -k argmax_ties -s "*fp32, *i32, 64, False" --emit=ptx | FileCheck %s --check-prefix=FAST
# (Triton 3.9 gives the same counts: 12 setp.eq.f32 and 12 setp.lt.s32 with
# True, none with False.)
# LEFT-LABEL: .entry argmax_ties(
# LEFT:       setp.gt.f32
# LEFT:       setp.eq.f32
# LEFT:       setp.lt.s32
# LEFT:       setp.lt.f32
# LEFT:       setp.eq.f32
# LEFT:       setp.lt.s32
# FAST-LABEL: .entry argmax_ties(
# FAST-NOT:   setp.eq.f32
# FAST-NOT:   setp.lt.s32
# FAST:       setp.gt.f32
# FAST-NOT:   setp.eq.f32
# FAST-NOT:   setp.lt.s32
# FAST:       setp.lt.f32
# FAST-NOT:   setp.eq.f32
# FAST-NOT:   setp.lt.s32
# FAST:       ret;
import triton
import triton.language as tl


@triton.jit
def argmax_ties(x_ptr, out_ptr, N: tl.constexpr, LEFTMOST: tl.constexpr):
    x = tl.load(x_ptr + tl.program_id(0) * N + tl.arange(0, N))
    tl.store(out_ptr + 2 * tl.program_id(0), tl.argmax(x, axis=0, tie_break_left=LEFTMOST))
    tl.store(out_ptr + 2 * tl.program_id(0) + 1, tl.argmin(x, 0, LEFTMOST))


# Division and square root as Triton 3.9 has them: tl.fdiv and tl.softmax
# with ieee_rounding=False (the default) and a plain `/` of fp32 are
# div.full.f32, the approximate division within 2 ulp; ieee_rounding=True
# is IEEE's div.rn.f32 (and tl.div_rn). tl.sqrt is sqrt.approx.ftz.f32,
# tl.sqrt_rn IEEE's sqrt.rn.f32. (Without ieee_rounding, tl.fdiv(a, b) and a / b
# are one division.)
# RUN: %tilec compile %s -k fdiv_rounding -s "*fp32, *fp32, *fp32, False" --emit=ptx | FileCheck %s --check-prefix=APPROX
# RUN: %tilec compile %s -k fdiv_rounding -s "*fp32, *fp32, *fp32, True" --emit=ptx | FileCheck %s --check-prefix=IEEE
# RUN: %tilec compile %s -k sqrts -s "*fp32, *fp32" --emit=ptx | FileCheck %s --check-prefix=SQRT
# RUN: %tilec compile %s -k sqrts -s "*fp32, *fp32" --emit=ptx | %ptxas_check
# APPROX-LABEL: .entry fdiv_rounding(
# APPROX-NOT:   div.rn.f32
# APPROX:       div.full.f32
# APPROX:       div.full.f32
# APPROX-NOT:   div.rn.f32
# APPROX:       ret;
# IEEE-LABEL:   .entry fdiv_rounding(
# IEEE:         div.rn.f32
# IEEE:         div.full.f32
# IEEE:         div.rn.f32
# IEEE:         ret;
# SQRT-LABEL:   .entry sqrts(
# SQRT:         sqrt.approx.ftz.f32
# SQRT:         sqrt.rn.f32
@triton.jit
def fdiv_rounding(a_ptr, b_ptr, out_ptr, EXACT: tl.constexpr):
    i = tl.arange(0, 32)
    a = tl.load(a_ptr + i)
    b = tl.load(b_ptr + i)
    tl.store(out_ptr + i, tl.fdiv(a, b, ieee_rounding=EXACT))
    tl.store(out_ptr + 32 + i, a / b + 1.0)
    tl.store(out_ptr + 64 + i, tl.softmax(a, ieee_rounding=EXACT))


@triton.jit
def sqrts(a_ptr, out_ptr):
    i = tl.arange(0, 32)
    a = tl.load(a_ptr + i)
    tl.store(out_ptr + i, tl.sqrt(a))
    tl.store(out_ptr + 32 + i, tl.sqrt_rn(a))


# tl.math.exp2 of fp32 is ex2.approx.ftz.f32, as Triton 3.9 has it (no
# fix-up of subnormals around it: a compare and two multiplies fewer in
# SASS); tl.exp is ex2.approx.f32 of x * log2(e), as Triton's. test_lang
# checks the flushing on the emulator.
# RUN: %tilec compile %s -k exps -s "*fp32, *fp32" --emit=ptx | FileCheck %s --check-prefix=EXP2
# RUN: %tilec compile %s -k exps -s "*fp32, *fp32" --emit=ptx | %ptxas_check
# EXP2-LABEL: .entry exps(
# EXP2:       ex2.approx.ftz.f32
# EXP2:       mul.f32 {{.*}}0f3FB8AA3B
# EXP2-NEXT:  ex2.approx.f32
@triton.jit
def exps(a_ptr, out_ptr):
    i = tl.arange(0, 32)
    a = tl.load(a_ptr + i)
    tl.store(out_ptr + i, tl.math.exp2(a))
    tl.store(out_ptr + 32 + i, tl.exp(a))


# The rest of tl.*'s math as Triton 3.9 has it (bench/vs-triton --math compares
# them all): tl.log, tl.log2, tl.sin and tl.cos are libdevice's functions, not
# the approximate instructions, and libdevice is linked with its flush-to-zero
# variants (nvvm-reflect-ftz 1, Triton's enable_reflect_ftz); tl.floor and
# tl.ceil round with .ftz as libdevice's do; tl.rsqrt is rsqrt.approx.ftz.f32;
# fp16 `/` divides in fp32 by div.full.f32 (not IEEE's div.rn);
# tl.fdiv(approx=True) is div.approx.f32; tl.sqrt_rn and tl.div_rn stay
# IEEE's, without .ftz. test_lang runs them on the emulator.
# RUN: %tilec compile %s -k ftz_math -s "*fp32, *fp32, *fp32" --emit=ptx | FileCheck %s --check-prefix=FTZ
# RUN: %tilec compile %s -k ftz_math -s "*fp32, *fp32, *fp32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k half_div -s "*fp16, *fp16, *fp16" --emit=ptx | FileCheck %s --check-prefix=HALF
# FTZ-LABEL: .entry ftz_math(
# FTZ-NOT:   lg2.approx
# FTZ-NOT:   sin.approx
# FTZ-NOT:   cos.approx
# FTZ:       fma.rn.ftz.f32
# FTZ:       cvt.rmi.ftz.f32.f32
# FTZ:       cvt.rpi.ftz.f32.f32
# FTZ:       rsqrt.approx.ftz.f32
# FTZ:       div.approx.f32
# FTZ:       sqrt.rn.f32
# FTZ:       div.rn.f32
# FTZ-NOT:   lg2.approx
# FTZ-NOT:   sin.approx
# FTZ:       ret;
# HALF-LABEL: .entry half_div(
# HALF-NOT:   div.rn
# HALF:       cvt.f32.f16
# HALF:       div.full.f32
# HALF:       cvt.rn.f16.f32
# HALF-NOT:   div.rn
# HALF:       ret;
@triton.jit
def ftz_math(a_ptr, b_ptr, out_ptr):
    i = tl.arange(0, 32)
    a = tl.load(a_ptr + i)
    b = tl.load(b_ptr + i)
    tl.store(out_ptr + i, tl.log(a))
    tl.store(out_ptr + 32 + i, tl.log2(a))
    tl.store(out_ptr + 64 + i, tl.sin(a))
    tl.store(out_ptr + 96 + i, tl.cos(a))
    tl.store(out_ptr + 128 + i, tl.floor(a))
    tl.store(out_ptr + 160 + i, tl.ceil(a))
    tl.store(out_ptr + 192 + i, tl.rsqrt(a))
    tl.store(out_ptr + 224 + i, tl.fdiv(a, b, approx=True))
    tl.store(out_ptr + 256 + i, tl.sqrt_rn(a))
    tl.store(out_ptr + 288 + i, tl.div_rn(a, b))


@triton.jit
def half_div(a_ptr, b_ptr, out_ptr):
    i = tl.arange(0, 32)
    tl.store(out_ptr + i, tl.load(a_ptr + i) / tl.load(b_ptr + i))


# tl.multiple_of as a statement, its result dropped (tutorial 08's
# `tl.multiple_of(a_ptrs, [16, 16])` at the top of its K loop): Triton marks
# the value itself, so the loads of ptrs after it are 16-byte vectors; here
# ptrs is bound to the hinted value. Without the hint, a pointer read from a
# table has no known alignment: 4-byte loads. test_lang runs it.
# RUN: %tilec compile %s -k hint_statement -s "*u64:16, *fp32:16, i32, True" --emit=ptx | FileCheck %s --check-prefix=HINTED
# RUN: %tilec compile %s -k hint_statement -s "*u64:16, *fp32:16, i32, False" --emit=ptx | FileCheck %s --check-prefix=UNHINTED
# HINTED-LABEL: .entry hint_statement(
# HINTED:       ld.global.v4.b32
# UNHINTED-LABEL: .entry hint_statement(
# UNHINTED-NOT: ld.global.v4.b32
# UNHINTED:     ld.global.b32
# UNHINTED-NOT: ld.global.v4.b32
@triton.jit
def hint_statement(tab_ptr, out_ptr, n, HINT: tl.constexpr):
    ptrs = tl.load(tab_ptr).to(tl.pointer_type(tl.float32)) + tl.arange(0, 512)
    acc = tl.zeros([512], dtype=tl.float32)
    for i in range(n):
        if HINT:
            tl.multiple_of(ptrs, [16])
        acc += tl.load(ptrs)
        ptrs += 512
    tl.store(out_ptr + tl.arange(0, 512), acc)


# loop_unroll_factor=4: LLVM's llvm.loop.unroll.count on the loop, so the
# body is there four times (and a remainder loop once); without it, once.
# RUN: %tilec compile %s -k unrolled -s "*fp32, *fp32, i32, 4" --emit=ptx | FileCheck %s --check-prefix=UNROLL4
# RUN: %tilec compile %s -k unrolled -s "*fp32, *fp32, i32, 1" --emit=ptx | FileCheck %s --check-prefix=UNROLL1
# UNROLL4-LABEL: .entry unrolled(
# UNROLL4:       $L__BB0_[[LOOP:[0-9]+]]:
# UNROLL4-COUNT-4: ld.global.b32
# UNROLL4:       @%p{{[0-9]+}} bra $L__BB0_[[LOOP]];
# UNROLL4:       ld.global.b32
# UNROLL4-NOT:   ld.global.b32
# UNROLL4:       ret;
# UNROLL1-LABEL: .entry unrolled(
# UNROLL1:       $L__BB0_[[LOOP:[0-9]+]]:
# UNROLL1:       ld.global.b32
# UNROLL1-NOT:   ld.global.b32
# UNROLL1:       @%p{{[0-9]+}} bra $L__BB0_[[LOOP]];
# UNROLL1-NOT:   ld.global.b32
# UNROLL1:       ret;
@triton.jit
def unrolled(x_ptr, out_ptr, n, FACTOR: tl.constexpr):
    acc = tl.zeros([32], dtype=tl.float32)
    for k in tl.range(0, n, loop_unroll_factor=FACTOR):
        acc += tl.load(x_ptr + k * 32 + tl.arange(0, 32))
    tl.store(out_ptr + tl.arange(0, 32), acc)


# disable_licm=True: the invariant exp stays in the loop through tile IR's
# LICM and LLVM's (llvm.licm.disable on the loop); without it, it moves
# before the loop. (NVPTX's machine-level LICM still hoists it in the PTX,
# for Triton's code as for tilec's.)
# RUN: %tilec compile %s -k hoisted -s "*fp32, *fp32, i32, True" --emit=llvm | FileCheck %s --check-prefix=KEEP
# RUN: %tilec compile %s -k hoisted -s "*fp32, *fp32, i32, False" --emit=llvm | FileCheck %s --check-prefix=HOIST
# KEEP-LABEL: define {{.*}}@hoisted(
# KEEP-NOT:   @llvm.nvvm.ex2.approx.f32(
# KEEP:       .lr.ph:
# KEEP:       call float @llvm.nvvm.ex2.approx.f32(
# KEEP:       br i1 %{{.*}}, label %{{.*}}, label %.lr.ph, !llvm.loop ![[MD:[0-9]+]]
# KEEP:       ![[MD]] = distinct !{![[MD]], ![[NO:[0-9]+]]}
# KEEP:       ![[NO]] = !{!"llvm.licm.disable"}
# HOIST-LABEL: define {{.*}}@hoisted(
# HOIST:       call float @llvm.nvvm.ex2.approx.f32(
# HOIST:       .lr.ph:
# HOIST-NOT:   @llvm.nvvm.ex2.approx.f32(
# HOIST:       ._crit_edge:
# HOIST-NOT:   llvm.licm.disable
@triton.jit
def hoisted(x_ptr, out_ptr, n, STAY: tl.constexpr):
    v = tl.load(x_ptr + tl.arange(0, 32))
    acc = tl.zeros([32], dtype=tl.float32)
    for k in tl.range(0, n, disable_licm=STAY):
        acc += tl.exp(v)
    tl.store(out_ptr + tl.arange(0, 32), acc)
