# tl.inline_asm_elementwise as Triton 3.9 lowers it (its PTX for these
# kernels, sm_80, has the same instructions on the same registers): one
# instance of the assembly per `pack` elements of a thread, the elements of
# each argument in order, those under 32 bits packed into one register (four
# int8 with pack=4, two fp16 with pack=2), then the next argument's; the
# results come back the same way, the first dtype's first. A register
# packed out of order, or an argument out of place, would put a prmt or a
# mov between the loads and the assembly, or other registers in it.
# Assembly with side effects stays where it is written, however often and
# whether or not its result is read; pure assembly is merged and hoisted.
# The emulator cannot run PTX: tests/diag/builtin_inline_asm_emulator.py.
# RUN: %tilec compile %s -k shift_bytes -s "*i8:16, *i8:16, 1024" --emit=ptx | FileCheck %s --check-prefix=SHL
# RUN: %tilec compile %s -k shift_bytes -s "*i8:16, *i8:16, 1024" --emit=llvm | FileCheck %s --check-prefix=SHL-IR
# RUN: %tilec compile %s -k shift_bytes -s "*i8:16, *i8:16, 1024" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k bytes_and_floats -s "*u8:16, *fp32:16, *i32:16, *fp32:16, 512" --emit=ptx | FileCheck %s --check-prefix=TWO
# RUN: %tilec compile %s -k bytes_and_floats -s "*u8:16, *fp32:16, *i32:16, *fp32:16, 512" --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=TWO
# RUN: %tilec compile %s -k bytes_and_floats -s "*u8:16, *fp32:16, *i32:16, *fp32:16, 512" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k bytes_and_floats -s "*u8:16, *fp32:16, *i32:16, *fp32:16, 512" --emit=ptx --arch=sm_90 | %ptxas_check_sm90
# RUN: %tilec compile %s -k add_seven -s "*fp32:16, *fp32:16, 256" --emit=ptx | FileCheck %s --check-prefix=SEVEN
# RUN: %tilec compile %s -k add_seven -s "*fp32:16, *fp32:16, 256" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k keywords -s "*fp16:16, *fp16:16, 256" --emit=ptx | FileCheck %s --check-prefix=KW
# RUN: %tilec compile %s -k keywords -s "*fp16:16, *fp16:16, 256" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k effects -s "*fp32:16, *fp32:16, i32, 128" --emit=tile-gpu | FileCheck %s --check-prefix=EFF-TILE
# RUN: %tilec compile %s -k effects -s "*fp32:16, *fp32:16, i32, 128" --emit=ptx | FileCheck %s --check-prefix=EFF
# RUN: %tilec compile %s -k effects -s "*fp32:16, *fp32:16, i32, 128" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k short_thread -s "*fp32:16, *fp32:16, 128" --emit=llvm | FileCheck %s --check-prefix=SHORT
# RUN: %tilec compile %s -k short_thread -s "*fp32:16, *fp32:16, 128" --emit=ptx | %ptxas_check
import triton
import triton.language as tl

# Triton's documented example: a thread's eight bytes are two words, each
# word one instance's register, as loaded and as stored.
# SHL: ld.global.v2.b32 {[[W0:%r[0-9]+]], [[W1:%r[0-9]+]]}
# SHL-NOT: prmt
# SHL: shl.b32 [[S0:%r[0-9]+]], [[W0]], 3;
# SHL-NOT: prmt
# SHL: shl.b32 [[S1:%r[0-9]+]], [[W1]], 3;
# SHL-NOT: prmt
# SHL: st.global.v2.b32 [{{%rd[0-9]+}}], {[[S0]], [[S1]]}
# SHL-IR-COUNT-2: call <4 x i8> asm "shl.b32 $0, $1, 3;", "=r,r"(<4 x i8> %{{[0-9]+}})
# SHL-IR-NOT: asm "shl


@triton.jit
def shift_bytes(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise(asm="shl.b32 $0, $1, 3;", constraints="=r,r", args=[x], dtype=tl.int8,
                                  is_pure=True, pack=4)
    tl.store(y_ptr + offs, y)


# The example of Triton's docstring: $8 is the word of four bytes of a,
# $9-$12 the four floats of b; $0-$3 are c's four elements, $4-$7 d's.
# TWO: ld.global.b32 [[A:%r[0-9]+]],
# TWO: ld.global.v4.b32 {[[B0:%r[0-9]+]], [[B1:%r[0-9]+]], [[B2:%r[0-9]+]], [[B3:%r[0-9]+]]}
# TWO: mov.b32 {tmp0, tmp1, tmp2, tmp3}, [[A]];
# TWO-NEXT: cvt.u32.u8 [[C0:%r[0-9]+]], tmp0;
# TWO-NEXT: cvt.u32.u8 [[C1:%r[0-9]+]], tmp1;
# TWO-NEXT: cvt.u32.u8 [[C2:%r[0-9]+]], tmp2;
# TWO-NEXT: cvt.u32.u8 [[C3:%r[0-9]+]], tmp3;
# TWO: cvt.rn.f32.s32 [[D0:%r[0-9]+]], [[C0]];
# TWO-NEXT: cvt.rn.f32.s32 [[D1:%r[0-9]+]], [[C1]];
# TWO-NEXT: cvt.rn.f32.s32 [[D2:%r[0-9]+]], [[C2]];
# TWO-NEXT: cvt.rn.f32.s32 [[D3:%r[0-9]+]], [[C3]];
# TWO-NEXT: max.f32 [[D0]], [[D0]], [[B0]];
# TWO-NEXT: max.f32 [[D1]], [[D1]], [[B1]];
# TWO-NEXT: max.f32 [[D2]], [[D2]], [[B2]];
# TWO-NEXT: max.f32 [[D3]], [[D3]], [[B3]];
# TWO: st.global.v4.b32 [{{%rd[0-9]+}}], {[[C0]], [[C1]], [[C2]], [[C3]]}
# TWO: st.global.v4.b32 [{{%rd[0-9]+}}], {[[D0]], [[D1]], [[D2]], [[D3]]}


@triton.jit
def bytes_and_floats(a_ptr, b_ptr, c_ptr, d_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    (c, d) = tl.inline_asm_elementwise(
        asm="""
        {
            .reg .b8 tmp<4>;
            mov.b32 {tmp0, tmp1, tmp2, tmp3}, $8;
            cvt.u32.u8 $0, tmp0;
            cvt.u32.u8 $1, tmp1;
            cvt.u32.u8 $2, tmp2;
            cvt.u32.u8 $3, tmp3;
        }
        cvt.rn.f32.s32 $4, $0;
        cvt.rn.f32.s32 $5, $1;
        cvt.rn.f32.s32 $6, $2;
        cvt.rn.f32.s32 $7, $3;
        max.f32 $4, $4, $9;
        max.f32 $5, $5, $10;
        max.f32 $6, $6, $11;
        max.f32 $7, $7, $12;
        """,
        constraints=("=r,=r,=r,=r,=r,=r,=r,=r,"
                     "r,r,r,r,r"),
        args=[a, b],
        dtype=(tl.int32, tl.float32),
        is_pure=True,
        pack=4,
    )
    tl.store(c_ptr + offs, c)
    tl.store(d_ptr + offs, d)


# Positional arguments; a float in an "r" register; the scalar 7, an int32,
# broadcast to each instance as its second operand.
# SEVEN-DAG: ld.global.v2.b32 {[[X0:%r[0-9]+]], [[X1:%r[0-9]+]]}
# SEVEN-DAG: mov.b32 [[C:%r[0-9]+]], 7;
# SEVEN: add.u32 [[Y0:%r[0-9]+]], [[X0]], [[C]];
# SEVEN: add.u32 [[Y1:%r[0-9]+]], [[X1]], [[C]];
# SEVEN: st.global.v2.b32 [{{%rd[0-9]+}}], {[[Y0]], [[Y1]]}


@triton.jit
def add_seven(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("add.u32 $0, $1, $2;", "=r,r,r", [x, 7], tl.float32, True, 1)
    tl.store(y_ptr + offs, y)


# Keywords in any order, args a tuple, dtype a tuple of one (a tuple of one
# result); two fp16 in a register.
# KW: ld.global.b32 [[H:%r[0-9]+]],
# KW: neg.f16x2 [[N:%r[0-9]+]], [[H]];
# KW: st.global.b32 [{{%rd[0-9]+}}], [[N]];


@triton.jit
def keywords(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    (y,) = tl.inline_asm_elementwise(pack=2, is_pure=True, dtype=(tl.float16,), args=(x,), constraints="=r,r",
                                     asm="neg.f16x2 $0, $1;")
    tl.store(y_ptr + offs, y)


# is_pure=False: both stores stay in the loop, the one whose result is
# unused too; the two equal pure instances are one, hoisted out.
# EFF-TILE: "tile.elementwise_inline_asm"{{.*}}asm_string = "abs.f32 $0, $1;"{{.*}} pure
# EFF-TILE-NOT: abs.f32
# EFF-TILE: scf.for
# EFF-TILE-COUNT-2: asm_string = "st.global.wb.b32 [$1], $2;"
# EFF-TILE-NOT: asm_string
# EFF: abs.f32
# EFF-NOT: abs.f32
# EFF: {{^\$L__BB0_[0-9]+}}:
# EFF-COUNT-2: st.global.wb.b32 [
# EFF: bra


@triton.jit
def effects(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    acc = x
    for i in range(n):
        tl.inline_asm_elementwise("st.global.wb.b32 [$1], $2;", "=r,l,r", [y_ptr + offs, x], dtype=tl.int32,
                                  is_pure=False, pack=1)
        unused = tl.inline_asm_elementwise("st.global.wb.b32 [$1], $2;", "=r,l,r", [y_ptr + offs, x],
                                           dtype=tl.int32, is_pure=False, pack=1)
        a = tl.inline_asm_elementwise("abs.f32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)
        b = tl.inline_asm_elementwise("abs.f32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)
        acc += a * b
    tl.store(y_ptr + offs, acc)


# A thread with fewer elements than pack (one of 128 on 128 threads): its
# one instance gets undef for the rest, and its extra results are dropped,
# as Triton does.
# SHORT: call { float, float, float, float } asm "mov.b32 $0, $4; mov.b32 $1, $5; mov.b32 $2, $6; mov.b32 $3, $7;", "=r,=r,=r,=r,r,r,r,r"(float %{{[0-9]+}}, float undef, float undef, float undef)
# SHORT-NOT: asm "mov.b32


@triton.jit
def short_thread(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("mov.b32 $0, $4; mov.b32 $1, $5; mov.b32 $2, $6; mov.b32 $3, $7;",
                                  "=r,=r,=r,=r,r,r,r,r", [x], dtype=tl.float32, is_pure=True, pack=4)
    tl.store(y_ptr + offs, y)
