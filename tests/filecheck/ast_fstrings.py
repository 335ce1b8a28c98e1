# f-strings in kernels, evaluated at compile time as Triton evaluates them:
# fields of constexprs, literals, dtypes and shapes, shown by str(), repr()
# (`!r`, `{x=}`) or ascii() (`!a`) and formatted by Python's format
# mini-language. The expected text is what Python prints for the same
# f-strings (dtypes as Triton names them: str 'fp32', repr
# 'triton.language.float32'). unsigned_view is sglang's
# tl.dtype(f"uint{bits}") (moe/gate_topk.py), also run on the emulator
# against a C reference (tests/emu/test_lang.c).
# RUN: %tilec compile %s -k fstring_forms -s "*fp32, 16, 0.5" --emit=ast 2>&1 | FileCheck %s
# RUN: %tilec compile %s -k unsigned_view -s "*fp32, *i32, i32, 64" --emit=ast | FileCheck %s --check-prefix=U32
# RUN: %tilec compile %s -k unsigned_view -s "*fp16, *i32, i32, 64" --emit=ast | FileCheck %s --check-prefix=U16
# RUN: %tilec compile %s -k unsigned_view -s "*fp32, *i32, i32, 64" --emit=ptx | %ptxas_check
import triton
import triton.language as tl


@triton.jit
def fstring_forms(x_ptr, N: tl.constexpr, F: tl.constexpr):
    S: tl.constexpr = "hi"
    E: tl.constexpr = "é"
    Q: tl.constexpr = "it's"
    x = tl.load(x_ptr + tl.arange(0, N))
    # CHECK: static_print: a16b16cN=16d0.5e0.5|hi|'hi'|S='hi'| N = 16|N=  16|N=16|{N}
    tl.static_print(f"a{N}b{N!r}c{N=}d{F}e{F!r}|{S}|{S!r}|{S=}|{ N = }|{N=:>4}|{N=!s}|{{N}}")
    # CHECK: static_print:    16|16   |  16  |**16***|+16|-   16|00016|0x10|0X10|0o20|0b10000|001_0000|1,234,567|1_234_567|A|  16|-0,001,234
    tl.static_print(f"{N:>5}|{N:<5}|{N:^6}|{N:*^7}|{N:+}|{-N:=+6}|{N:05}|{N:#x}|{N:#X}|{N:#o}|{N:#b}|{N:08_b}|{1234567:,}|{1234567:_}|{65:c}|{N:{N // 4}}|{-1234:09,d}")
    # CHECK: static_print: 0.500|5.000000e-01|5.00E-01|0.5|50.000000%|50.0%|1e-05|1e+20|1000000000000000.0|1e+16|0.30000000000000004|2|0.0|1,234,567.89|      +0.5|1.2e+01|inf|  -inf|16.00|5.333333333333333
    tl.static_print(f"{F:.3f}|{F:e}|{F:.2E}|{F:g}|{F:%}|{F:.1%}|{1e-5}|{1e20}|{1e15}|{1e16}|{0.1 + 0.2}|{2.5:.0f}|{-0.0:z.1f}|{1234567.891:,.2f}|{F:+10.3}|{12.0:.2}|{1e400}|{-1e400:>6}|{N:.2f}|{N / 3}")
    # CHECK: static_print:     hi|h|___hi___|  'hi'|'\xe9'|'é'|"it's"|ééééé|hi0000
    tl.static_print(f"{S:>6}|{S:.1}|{S:_^8}|{S!r:>6}|{E!a}|{E!r}|{Q!r}|{E:é^5}|{S:06}")
    # CHECK: static_print: (16,)|fp32|triton.language.float32|pointer<fp32>|bf16|triton.language.uint8|int32|None|True|(1, 2.5, 'a')|x.dtype=triton.language.float32
    tl.static_print(f"{x.shape}|{x.dtype}|{x.dtype!r}|{x_ptr.dtype}|{tl.bfloat16}|{tl.uint8!r}|{tl.int32}|{None}|{True}|{(1, 2.5, 'a')}|{x.dtype=}")
    # concatenation, a nested f-string, and a field on a later line of a
    # triple-quoted one
    # CHECK: static_print: pre16post|16x|two
    # CHECK-NEXT: lines 32
    tl.static_print("pre" f"{N}" 'post' f"""|{f'{N}x'}|two
lines {
        N * 2}""")
    # an f-string is a constexpr string: compared, asserted, a message
    tl.static_assert(f"{N}" == "16", f"{N=} must print as 16")
    tl.static_assert(N >= 16, f"{N=} must be at least 16")
    msg: tl.constexpr = f"N={N}"
    # CHECK: static_print: N=16 True
    tl.static_print(msg, msg == "N=16")
    tl.store(x_ptr + tl.arange(0, N), x)


# sglang's unsigned view of a block, by its bit width
# U32: y = (bitcast x:<64xfp32> : <64xu32>)
# U16: y = (bitcast x:<64xfp16> : <64xu16>)
@triton.jit
def unsigned_view(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    x_nbits: tl.constexpr = x.dtype.primitive_bitwidth
    x_utype: tl.constexpr = tl.dtype(f"uint{x_nbits}")
    y = x.to(x_utype, bitcast=True)
    tl.store(out_ptr + offs, (y >> 1).to(tl.int32), mask=mask)
