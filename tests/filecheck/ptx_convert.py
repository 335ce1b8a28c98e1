# Conversions: fp8 (e4m3 and e5m2) to and from wider floats and integers,
# computed in integer arithmetic with round-to-nearest-even (cvt.rni on the
# subnormal path) or toward zero; and float down-casts rounding toward zero,
# which become PTX cvt.rz. Every kernel's PTX is accepted by ptxas.
# RUN: %tilec compile %s -k fp8_round_trip -s "*fp32:16, *fp8e4nv:16, *fp32:16, 256" --emit=ptx | FileCheck %s --check-prefix=FP8
# RUN: %tilec compile %s -k fp8_round_trip -s "*fp32:16, *fp8e4nv:16, *fp32:16, 256" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k fp8_ints -s "*i32, *fp8e5, *i16, 128" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k round_toward_zero -s "*fp32:16, *fp16:16, *bf16:16, 256" --emit=ptx | FileCheck %s --check-prefix=RZ
# RUN: %tilec compile %s -k round_toward_zero -s "*fp32:16, *fp16:16, *bf16:16, 256" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k round_to_nearest -s "*fp32:16, *fp16:16, *bf16:16, 256" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k bool_mask -s "*fp32, *i1, 128" --emit=ptx | FileCheck %s --check-prefix=BOOL
# RUN: %tilec compile %s -k bool_mask -s "*fp32, *i1, 128" --emit=ptx | %ptxas_check
import triton
import triton.language as tl

# Booleans are bytes in memory: stored as 0 or 1, any nonzero byte loads as true.
# BOOL: st.global.b8
# BOOL: ld.global.b8
# BOOL: setp.ne

# Each thread's two fp8 values move as one 16-bit word.
# FP8: cvt.rni.f32.f32
# FP8: st.global.b16
# FP8: ld.global.b16

# RZ: cvt.rz.f16.f32
# RZ: cvt.rz.bf16.f32


@triton.jit
def fp8_round_trip(x_ptr, q_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(q_ptr + offs, x.to(tl.float8e4nv))
    coarse = x.to(tl.float8e5, fp_downcast_rounding="rtz").to(tl.float16)
    back = tl.load(q_ptr + offs).to(tl.float32)
    tl.store(out_ptr + offs, back + coarse + tl.full((N,), 1.5, tl.float8e4nv).to(tl.float32))


@triton.jit
def fp8_ints(x_ptr, q_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(q_ptr + offs, tl.load(x_ptr + offs).to(tl.float8e5))
    tl.store(out_ptr + offs, tl.load(q_ptr + offs).to(tl.int16))


@triton.jit
def round_toward_zero(x_ptr, h_ptr, b_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(h_ptr + offs, x.to(tl.float16, fp_downcast_rounding="rtz"))
    tl.store(b_ptr + offs, x.to(tl.bfloat16, fp_downcast_rounding="rtz"))


@triton.jit
def bool_mask(x_ptr, m_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(m_ptr + offs, x > 0)
    keep = tl.load(m_ptr + offs)
    tl.store(x_ptr + offs, tl.where(keep, x, 0.0))


@triton.jit
def round_to_nearest(x_ptr, h_ptr, b_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(h_ptr + offs, x.to(tl.float16))
    tl.store(b_ptr + offs, x.to(tl.bfloat16))
