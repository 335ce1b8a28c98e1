/*
 * math.c — the emulator's arithmetic that needs no thread state: the
 * conversions PTX rounds toward zero (tilec.cvt.rz.*), the fast-math
 * instructions (ex2.approx, ...), the half and bfloat16 conversions LLVM's
 * x86 back end calls, and libdevice's functions (__nv_*) from libm. Pure
 * functions, bound by name through emu_bind_math.
 */
#include "emu_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- conversions and the fast-math instructions ---------------------------------------------- */

/* f32 -> f16 bits, rounding toward zero (cvt.rz.f16.f32). */
static uint16_t cvt_rz_f16_f32(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  uint32_t sign = (u >> 16) & 0x8000, a = u & 0x7fffffff;
  if (a > 0x7f800000) return (uint16_t)(sign | 0x7e00);
  if (a >= 0x477ff000) return (uint16_t)(sign | (a == 0x7f800000 ? 0x7c00 : 0x7bff)); /* ≥ 65520 truncates to max */
  if (a < 0x38800000) {                                                                /* subnormal in f16 */
    float ax;
    memcpy(&ax, &a, 4);
    return (uint16_t)(sign | (uint32_t)(ax * 16777216.0f)); /* units of 2^-24, truncated */
  }
  return (uint16_t)(sign | (((a >> 23) - 112) << 10) | ((a >> 13) & 0x3ff));
}
static uint16_t cvt_rz_bf16_f32(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  if ((u & 0x7fffffff) > 0x7f800000) return (uint16_t)((u >> 16) | 0x40);
  return (uint16_t)(u >> 16);
}
static float cvt_rz_f32_f64(double x) {
  float f = (float)x;
  if (isfinite(x) && fabs((double)f) > fabs(x)) f = nextafterf(f, 0.0f);
  if (isinf(f) && isfinite(x)) f = copysignf(3.40282347e38f, f);
  return f;
}

static float emu_ex2(float x) { return exp2f(x); }
static float emu_lg2(float x) { return log2f(x); }
static float emu_rsqrt(float x) { return 1.0f / sqrtf(x); }
/* sqrt.approx.ftz.f32: a subnormal input is its signed zero first; the
 * square root itself IEEE's (the instruction's is within 1 ulp of it) */
static float emu_sqrt_ftz(float x) { return sqrtf(fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x); }
static float emu_sin(float x) { return sinf(x); }
static float emu_cos(float x) { return cosf(x); }

/* Half and bfloat16 conversions LLVM's x86 back end may call: the 16-bit
 * value travels in the low bits of an SSE register, hence the floats. */
static float ext_hf(float h) {
  uint32_t b;
  memcpy(&b, &h, 4);
  uint32_t x = b & 0xffff, sign = (x & 0x8000) << 16, e = (x >> 10) & 0x1f, m = x & 0x3ff, r;
  if (e == 0x1f) r = sign | 0x7f800000 | (m << 13);
  else if (e) r = sign | ((e + 112) << 23) | (m << 13);
  else {
    float f = (float)m * 5.9604644775390625e-8f;
    memcpy(&r, &f, 4);
    r |= sign;
  }
  float f;
  memcpy(&f, &r, 4);
  return f;
}
static uint16_t f32_to_f16_rn(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  uint32_t sign = (u >> 16) & 0x8000, a = u & 0x7fffffff;
  if (a > 0x7f800000) return (uint16_t)(sign | 0x7e00);
  if (a >= 0x477ff000) return (uint16_t)(sign | 0x7c00);
  if (a < 0x38800000) {
    float ax;
    memcpy(&ax, &a, 4);
    return (uint16_t)(sign | (uint32_t)nearbyintf(ax * 16777216.0f));
  }
  uint32_t r = a + 0xfff + ((a >> 13) & 1);
  return (uint16_t)(sign | ((((r >> 23) - 112) << 10) | ((r >> 13) & 0x3ff)));
}
static float as_low16(uint16_t v) {
  uint32_t b = v;
  float f;
  memcpy(&f, &b, 4);
  return f;
}
static float trunc_sfhf(float x) { return as_low16(f32_to_f16_rn(x)); }
static float trunc_dfhf(double x) { return as_low16(f32_to_f16_rn((float)x)); }
static float trunc_sfbf(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  if ((u & 0x7fffffff) > 0x7f800000) return as_low16((uint16_t)((u >> 16) | 0x40));
  return as_low16((uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16));
}
static float trunc_dfbf(double x) { return trunc_sfbf((float)x); }

/* ---- libdevice: __nv_<f> and __nv_<f>f, from libm --------------------------------------------- */

static float rsqrtf_(float x) { return 1.0f / sqrtf(x); }
static double rsqrt_(double x) { return 1.0 / sqrt(x); }
static float exp10f_(float x) { return powf(10.0f, x); }
static double exp10_(double x) { return pow(10.0, x); }
static float rcbrtf_(float x) { return 1.0f / cbrtf(x); }
static double rcbrt_(double x) { return 1.0 / cbrt(x); }
static int isnanf_(float x) { return isnan(x); }
static int isnand_(double x) { return isnan(x); }
static int isinff_(float x) { return isinf(x); }
static int isinfd_(double x) { return isinf(x); }
static int signbitf_(float x) { return signbit(x) != 0; }
static int signbitd_(double x) { return signbit(x) != 0; }
static float saturatef_(float x) { return x < 0 ? 0 : x > 1 ? 1 : x; }
static float fdividef_(float x, float y) { return x / y; }
/* the host's IEEE division and square root round to nearest, as these do */
static float fdiv_rn_(float x, float y) { return x / y; }
static double ddiv_rn_(double x, double y) { return x / y; }

static const Named libdevice[] = {
    {"exp", FN(exp)},       {"expf", FN(expf)},         {"exp2", FN(exp2)},     {"exp2f", FN(exp2f)},
    {"exp10", FN(exp10_)},  {"exp10f", FN(exp10f_)},    {"expm1", FN(expm1)},   {"expm1f", FN(expm1f)},
    {"log", FN(log)},       {"logf", FN(logf)},         {"log2", FN(log2)},     {"log2f", FN(log2f)},
    {"log10", FN(log10)},   {"log10f", FN(log10f)},     {"log1p", FN(log1p)},   {"log1pf", FN(log1pf)},
    {"sin", FN(sin)},       {"sinf", FN(sinf)},         {"cos", FN(cos)},       {"cosf", FN(cosf)},
    {"tan", FN(tan)},       {"tanf", FN(tanf)},         {"asin", FN(asin)},     {"asinf", FN(asinf)},
    {"acos", FN(acos)},     {"acosf", FN(acosf)},       {"atan", FN(atan)},     {"atanf", FN(atanf)},
    {"atan2", FN(atan2)},   {"atan2f", FN(atan2f)},     {"sinh", FN(sinh)},     {"sinhf", FN(sinhf)},
    {"cosh", FN(cosh)},     {"coshf", FN(coshf)},       {"tanh", FN(tanh)},     {"tanhf", FN(tanhf)},
    {"asinh", FN(asinh)},   {"asinhf", FN(asinhf)},     {"acosh", FN(acosh)},   {"acoshf", FN(acoshf)},
    {"atanh", FN(atanh)},   {"atanhf", FN(atanhf)},     {"sqrt", FN(sqrt)},     {"sqrtf", FN(sqrtf)},
    {"rsqrt", FN(rsqrt_)},  {"rsqrtf", FN(rsqrtf_)},    {"cbrt", FN(cbrt)},     {"cbrtf", FN(cbrtf)},
    {"rcbrt", FN(rcbrt_)},  {"rcbrtf", FN(rcbrtf_)},    {"pow", FN(pow)},       {"powf", FN(powf)},
    {"fmod", FN(fmod)},     {"fmodf", FN(fmodf)},       {"remainder", FN(remainder)}, {"remainderf", FN(remainderf)},
    {"floor", FN(floor)},   {"floorf", FN(floorf)},     {"ceil", FN(ceil)},     {"ceilf", FN(ceilf)},
    {"trunc", FN(trunc)},   {"truncf", FN(truncf)},     {"round", FN(round)},   {"roundf", FN(roundf)},
    {"rint", FN(rint)},     {"rintf", FN(rintf)},       {"nearbyint", FN(nearbyint)}, {"nearbyintf", FN(nearbyintf)},
    {"fabs", FN(fabs)},     {"fabsf", FN(fabsf)},       {"fmin", FN(fmin)},     {"fminf", FN(fminf)},
    {"fmax", FN(fmax)},     {"fmaxf", FN(fmaxf)},       {"fma", FN(fma)},       {"fmaf", FN(fmaf)},
    {"erf", FN(erf)},       {"erff", FN(erff)},         {"erfc", FN(erfc)},     {"erfcf", FN(erfcf)},
    {"lgamma", FN(lgamma)}, {"lgammaf", FN(lgammaf)},   {"tgamma", FN(tgamma)}, {"tgammaf", FN(tgammaf)},
    {"hypot", FN(hypot)},   {"hypotf", FN(hypotf)},     {"copysign", FN(copysign)}, {"copysignf", FN(copysignf)},
    {"fdim", FN(fdim)},     {"fdimf", FN(fdimf)},       {"isnand", FN(isnand_)}, {"isnanf", FN(isnanf_)},
    {"isinfd", FN(isinfd_)}, {"isinff", FN(isinff_)},   {"signbitd", FN(signbitd_)}, {"signbitf", FN(signbitf_)},
    {"saturatef", FN(saturatef_)}, {"fdividef", FN(fdividef_)}, {"fast_expf", FN(expf)}, {"fast_logf", FN(logf)},
    {"fdiv_rn", FN(fdiv_rn_)}, {"ddiv_rn", FN(ddiv_rn_)}, {"fsqrt_rn", FN(sqrtf)}, {"dsqrt_rn", FN(sqrt)},
};

static const Named math_table[] = {
    {"tilec.cvt.rz.f16.f32", FN(cvt_rz_f16_f32)},
    {"tilec.cvt.rz.bf16.f32", FN(cvt_rz_bf16_f32)},
    {"tilec.cvt.rz.f32.f64", FN(cvt_rz_f32_f64)},
    {"tilec.emu.ex2.approx.f32", FN(emu_ex2)},
    {"tilec.emu.ex2.approx.f", FN(emu_ex2)},
    {"tilec.emu.lg2.approx.f", FN(emu_lg2)},
    {"tilec.emu.rsqrt.approx.f", FN(emu_rsqrt)},
    {"tilec.emu.sqrt.approx.ftz.f", FN(emu_sqrt_ftz)},
    {"tilec.emu.sin.approx.f", FN(emu_sin)},
    {"tilec.emu.cos.approx.f", FN(emu_cos)},
    {"__extendhfsf2", FN(ext_hf)},
    {"__gnu_h2f_ieee", FN(ext_hf)},
    {"__truncsfhf2", FN(trunc_sfhf)},
    {"__gnu_f2h_ieee", FN(trunc_sfhf)},
    {"__truncdfhf2", FN(trunc_dfhf)},
    {"__truncsfbf2", FN(trunc_sfbf)},
    {"__truncdfbf2", FN(trunc_dfbf)},
};

void *emu_bind_math(const char *name, size_t len) {
  if (len > 5 && !memcmp(name, "__nv_", 5)) return emu_find(libdevice, sizeof libdevice / sizeof *libdevice, name + 5, len - 5);
  return emu_find(math_table, sizeof math_table / sizeof *math_table, name, len);
}
