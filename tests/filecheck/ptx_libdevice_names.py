# Every libdevice function tilec knows, at fp32 and fp64 (the integer ones
# at i32 and i64, those libdevice has only for i32 apart): each call must name a function libdevice defines, which
# ptxas checks (an unknown __nv_ name is an unresolved extern function).
# Libdevice's names follow no one rule: __nv_expf and __nv_exp, but
# __nv_fmul_rn and __nv_dmul_rn, __nv_fmaf_rn and __nv_fma_rn,
# __nv_float2int_rn, __nv_isnanf and __nv_isnand, __nv_finitef and
# __nv_isfinited (sglang's libdevice.mul_rn was __nv_mul_rnf).
# RUN: %tilec compile %s -k floats -s "*fp32, *i32, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k floats -s "*fp64, *i32, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k ints -s "*i32, *i32, *i64, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k ints -s "*i64, *i32, *i64, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k ints32 -s "*i32, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k fast -s "*fp32, 64" --emit=ptx | %ptxas_check
# The emulator binds each of them too (tests/emu/test_libdevice.c checks values):
# RUN: %tilec run %s -k floats -s "*fp32, *i32, 64" -g 1 rand:fp32:64 zeros:i32:64
# RUN: %tilec run %s -k floats -s "*fp64, *i32, 64" -g 1 rand:fp64:64 zeros:i32:64
# RUN: %tilec run %s -k ints -s "*i32, *i32, *i64, 64" -g 1 rand:i32:64 zeros:i32:64 rand:i64:64
# RUN: %tilec run %s -k ints -s "*i64, *i32, *i64, 64" -g 1 rand:i64:64 zeros:i32:64 rand:i64:64
# RUN: %tilec run %s -k ints32 -s "*i32, 64" -g 1 rand:i32:64
# RUN: %tilec run %s -k fast -s "*fp32, 64" -g 1 rand:fp32:64
# RUN: %tilec compile %s -k floats -s "*fp32, *i32, 64" --emit=tile | FileCheck %s
# CHECK-DAG: __nv_fmul_rn
# CHECK-DAG: __nv_fmaf_rz
# CHECK-DAG: __nv_expf
# CHECK-DAG: __nv_isnanf
# CHECK-DAG: __nv_finitef
# CHECK-DAG: __nv_float2int_rn
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def floats(x_ptr, i_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o)
    y = x + 1
    n = o
    acc = x
    iacc = o
    acc += libdevice.abs(x)
    acc += libdevice.acos(x)
    acc += libdevice.acosh(x)
    acc += libdevice.asin(x)
    acc += libdevice.asinh(x)
    acc += libdevice.atan(x)
    acc += libdevice.atan2(x, y)
    acc += libdevice.atanh(x)
    acc += libdevice.cbrt(x)
    acc += libdevice.ceil(x)
    acc += libdevice.copysign(x, y)
    acc += libdevice.cos(x)
    acc += libdevice.cosh(x)
    acc += libdevice.cospi(x)
    acc += libdevice.erf(x)
    acc += libdevice.erfc(x)
    acc += libdevice.erfcinv(x)
    acc += libdevice.erfcx(x)
    acc += libdevice.erfinv(x)
    acc += libdevice.exp(x)
    acc += libdevice.exp10(x)
    acc += libdevice.exp2(x)
    acc += libdevice.expm1(x)
    acc += libdevice.fabs(x)
    acc += libdevice.fdim(x, y)
    acc += libdevice.floor(x)
    acc += libdevice.fma(x, y, x)
    acc += libdevice.fmax(x, y)
    acc += libdevice.fmin(x, y)
    acc += libdevice.fmod(x, y)
    acc += libdevice.hypot(x, y)
    iacc += libdevice.isinf(x)
    iacc += libdevice.isnan(x)
    iacc += libdevice.isfinited(x)
    iacc += libdevice.finitef(x)
    iacc += libdevice.signbit(x)
    acc += libdevice.j0(x)
    acc += libdevice.j1(x)
    acc += libdevice.lgamma(x)
    acc += libdevice.log(x)
    acc += libdevice.log10(x)
    acc += libdevice.log1p(x)
    acc += libdevice.log2(x)
    acc += libdevice.logb(x)
    acc += libdevice.nearbyint(x)
    acc += libdevice.nextafter(x, y)
    acc += libdevice.pow(x, y)
    acc += libdevice.rcbrt(x)
    acc += libdevice.remainder(x, y)
    acc += libdevice.rint(x)
    acc += libdevice.round(x)
    acc += libdevice.rsqrt(x)
    acc += libdevice.sin(x)
    acc += libdevice.sinh(x)
    acc += libdevice.sinpi(x)
    acc += libdevice.sqrt(x)
    acc += libdevice.tan(x)
    acc += libdevice.tanh(x)
    acc += libdevice.tgamma(x)
    acc += libdevice.trunc(x)
    acc += libdevice.y0(x)
    acc += libdevice.y1(x)
    acc += libdevice.div_rn(x, y)
    acc += libdevice.div_rz(x, y)
    acc += libdevice.div_rd(x, y)
    acc += libdevice.div_ru(x, y)
    acc += libdevice.rcp_rn(x)
    acc += libdevice.rcp_rz(x)
    acc += libdevice.rcp_rd(x)
    acc += libdevice.rcp_ru(x)
    acc += libdevice.sqrt_rn(x)
    acc += libdevice.sqrt_rz(x)
    acc += libdevice.sqrt_rd(x)
    acc += libdevice.sqrt_ru(x)
    acc += libdevice.add_rn(x, y)
    acc += libdevice.add_rz(x, y)
    acc += libdevice.add_rd(x, y)
    acc += libdevice.add_ru(x, y)
    acc += libdevice.mul_rn(x, y)
    acc += libdevice.mul_rz(x, y)
    acc += libdevice.mul_rd(x, y)
    acc += libdevice.mul_ru(x, y)
    acc += libdevice.fma_rn(x, y, x)
    acc += libdevice.fma_rz(x, y, x)
    acc += libdevice.fma_rd(x, y, x)
    acc += libdevice.fma_ru(x, y, x)
    acc += libdevice.ldexp(x, n)
    acc += libdevice.powi(x, n)
    acc += libdevice.scalbn(x, n)
    iacc += libdevice.ilogb(x).to(tl.int32)
    iacc += libdevice.llrint(x).to(tl.int32)
    iacc += libdevice.llround(x).to(tl.int32)
    if x.dtype == tl.float32:  # fp32's own functions
        acc += libdevice.saturatef(x)
        iacc += libdevice.float2int_rn(x).to(tl.int32)
        iacc += libdevice.float2int_rz(x).to(tl.int32)
        iacc += libdevice.float_as_int(x).to(tl.int32)
    tl.store(x_ptr + o, acc)
    tl.store(i_ptr + o, iacc)


@triton.jit
def ints(x_ptr, i_ptr, u_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o)
    n = x
    m = x + 3
    u = tl.load(u_ptr + o).to(tl.uint64)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    iacc = o
    iacc += libdevice.clz(n).to(tl.int32)
    iacc += libdevice.popc(n).to(tl.int32)
    iacc += libdevice.brev(n).to(tl.int32)
    iacc += libdevice.ffs(n).to(tl.int32)
    iacc += libdevice.mulhi(n, m).to(tl.int32)
    iacc += libdevice.umulhi(n, m).to(tl.int32)
    iacc += libdevice.min(n, m).to(tl.int32)
    iacc += libdevice.max(n, m).to(tl.int32)
    iacc += libdevice.umin(n, m).to(tl.int32)
    iacc += libdevice.umax(n, m).to(tl.int32)
    acc += libdevice.ull2float_rn(u).to(x.dtype)
    if n.dtype == tl.int32:
        acc += libdevice.int_as_float(n).to(x.dtype)
    iacc += libdevice.llabs(u.to(tl.int64)).to(tl.int32)
    tl.store(i_ptr + o, iacc + acc.to(tl.int32))


@triton.jit
def ints32(x_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    n = tl.load(x_ptr + o)
    m = n + 3
    iacc = o
    iacc += libdevice.hadd(n, m).to(tl.int32)
    iacc += libdevice.rhadd(n, m).to(tl.int32)
    iacc += libdevice.uhadd(n, m).to(tl.int32)
    iacc += libdevice.urhadd(n, m).to(tl.int32)
    iacc += libdevice.sad(n, m, n).to(tl.int32)
    iacc += libdevice.usad(n, m, n).to(tl.int32)
    iacc += libdevice.byte_perm(n, m, n).to(tl.int32)
    tl.store(x_ptr + o, iacc)


@triton.jit
def fast(x_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o)
    y = x + 1
    acc = x
    acc += libdevice.fast_expf(x)
    acc += libdevice.fast_logf(x)
    acc += libdevice.fast_log2f(x)
    acc += libdevice.fast_exp10f(x)
    acc += libdevice.fast_powf(x, y)
    acc += libdevice.fast_dividef(x, y)
    acc += libdevice.fast_sinf(x)
    acc += libdevice.fast_cosf(x)
    acc += libdevice.fast_tanf(x)
    tl.store(x_ptr + o, acc)
