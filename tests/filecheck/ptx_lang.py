# Language constructs taken from third-party kernels, each checked in its
# typed AST, in PTX that ptxas accepts, and (tests/emu/test_lang.c) on the
# emulator against a C reference.
# RUN: %tilec compile %s -k cast_forms -s "*fp32, *i32, *fp16, *fp32, i32, i32, i32, 64" --emit=ast | FileCheck %s --check-prefix=CAST
# RUN: %tilec compile %s -k cast_forms -s "*fp32, *i32, *fp16, *fp32, i32, i32, i32, 64" --emit=ptx | %ptxas_check
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
