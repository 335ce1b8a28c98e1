/*
 * math.c — the emulator's arithmetic that needs no thread state: the
 * conversions PTX rounds toward zero (tilec.cvt.rz.*), the fast-math
 * instructions (ex2.approx, ...), the half and bfloat16 conversions LLVM's
 * x86 back end calls, and libdevice's functions (__nv_*) from libm. Pure
 * functions, bound by name through emu_bind_math.
 */
#include "emu_internal.h"

#include <fenv.h>
#include <limits.h>
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
/* .ftz: subnormal inputs and results are signed zeros */
static float flush(float x) { return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x; }
static float emu_ex2_ftz(float x) { return flush(exp2f(flush(x))); }
static float emu_lg2(float x) { return log2f(x); }
static float emu_rsqrt(float x) { return 1.0f / sqrtf(x); }
/* rsqrt.approx.ftz.f32: a subnormal input is its signed zero, whose result is
 * the infinity of its sign; the root itself within the instruction's 2^-22.9 */
static float emu_rsqrt_ftz(float x) { return flush(1.0f / sqrtf(flush(x))); }
/* sqrt.approx.ftz.f32: a subnormal input is its signed zero first; the
 * square root itself IEEE's (the instruction's is within 1 ulp of it) */
static float emu_sqrt_ftz(float x) { return sqrtf(flush(x)); }
static float emu_sin(float x) { return sinf(x); }
static float emu_cos(float x) { return cosf(x); }
/* cvt.rmi.ftz.f32.f32, cvt.rpi.ftz.f32.f32: a subnormal input rounds as its signed zero */
static float emu_floor_ftz(float x) { return floorf(flush(x)); }
static float emu_ceil_ftz(float x) { return ceilf(flush(x)); }
/* div.approx.f32: a * (1 / b), within 2 ulp for |b| in [2^-126, 2^126]; above
 * that, NaN for an infinite a and zero otherwise (the reciprocal underflows) */
static float emu_div_approx(float a, float b) {
  float m = fabsf(b);
  if (m > 0x1p126f && m < INFINITY) return isinf(a) ? NAN : (signbit(a) != signbit(b) ? -0.0f : 0.0f);
  volatile float r = 1.0f / b;
  return a * r;
}

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


/* The rounded arithmetic (__nv_fadd_rz, __nv_dmul_ru, __nv_fmaf_rd, ...):
 * the host's IEEE operation under the rounding mode asked for, the
 * thread's mode put back after. volatile keeps the compiler from folding
 * or moving the operation out of the mode. */
#define ROUNDED(mode, MODE)                                                                                            \
  static float fadd_##mode(float a, float b) { int m = fegetround(); fesetround(MODE); volatile float r = a + b; fesetround(m); return r; } \
  static float fsub_##mode(float a, float b) { int m = fegetround(); fesetround(MODE); volatile float r = a - b; fesetround(m); return r; } \
  static float fmul_##mode(float a, float b) { int m = fegetround(); fesetround(MODE); volatile float r = a * b; fesetround(m); return r; } \
  static float fdiv_##mode(float a, float b) { int m = fegetround(); fesetround(MODE); volatile float r = a / b; fesetround(m); return r; } \
  static float frcp_##mode(float a) { int m = fegetround(); fesetround(MODE); volatile float r = 1.0f / a; fesetround(m); return r; } \
  static float fsqrt_##mode(float a) { int m = fegetround(); fesetround(MODE); volatile float r = sqrtf(a); fesetround(m); return r; } \
  static float fmaf_##mode(float a, float b, float c) { int m = fegetround(); fesetround(MODE); volatile float r = fmaf(a, b, c); fesetround(m); return r; } \
  static double dadd_##mode(double a, double b) { int m = fegetround(); fesetround(MODE); volatile double r = a + b; fesetround(m); return r; } \
  static double dsub_##mode(double a, double b) { int m = fegetround(); fesetround(MODE); volatile double r = a - b; fesetround(m); return r; } \
  static double dmul_##mode(double a, double b) { int m = fegetround(); fesetround(MODE); volatile double r = a * b; fesetround(m); return r; } \
  static double ddiv_##mode(double a, double b) { int m = fegetround(); fesetround(MODE); volatile double r = a / b; fesetround(m); return r; } \
  static double drcp_##mode(double a) { int m = fegetround(); fesetround(MODE); volatile double r = 1.0 / a; fesetround(m); return r; } \
  static double dsqrt_##mode(double a) { int m = fegetround(); fesetround(MODE); volatile double r = sqrt(a); fesetround(m); return r; } \
  static double fma_##mode(double a, double b, double c) { int m = fegetround(); fesetround(MODE); volatile double r = fma(a, b, c); fesetround(m); return r; }
ROUNDED(rn, FE_TONEAREST)
ROUNDED(rz, FE_TOWARDZERO)
ROUNDED(rd, FE_DOWNWARD)
ROUNDED(ru, FE_UPWARD)
#define ROUNDED_NAMES(mode)                                                                                            \
  {"fadd_" #mode, FN(fadd_##mode)}, {"fsub_" #mode, FN(fsub_##mode)}, {"fmul_" #mode, FN(fmul_##mode)},             \
  {"frcp_" #mode, FN(frcp_##mode)}, {"fmaf_" #mode, FN(fmaf_##mode)}, {"dadd_" #mode, FN(dadd_##mode)},             \
  {"dsub_" #mode, FN(dsub_##mode)}, {"dmul_" #mode, FN(dmul_##mode)}, {"drcp_" #mode, FN(drcp_##mode)},             \
  {"fma_" #mode, FN(fma_##mode)}

/* cvt.rni / cvt.rzi.s32.f32: NaN gives 0, out of range saturates */
static int32_t to_i32_sat(double r) {
  if (isnan(r)) return 0;
  return r <= INT32_MIN ? INT32_MIN : r >= INT32_MAX ? INT32_MAX : (int32_t)r;
}
static int32_t float2int_rn_(float x) { return to_i32_sat(nearbyint((double)x)); }
static int32_t float2int_rz_(float x) { return to_i32_sat(trunc((double)x)); }
static int32_t float_as_int_(float x) {
  int32_t i;
  memcpy(&i, &x, 4);
  return i;
}
static float int_as_float_(int32_t i) {
  float x;
  memcpy(&x, &i, 4);
  return x;
}
static float ull2float_rn_(uint64_t u) { return (float)u; }
static int32_t ilogbf_(float x) { return ilogbf(x); }
static int32_t ilogb_(double x) { return ilogb(x); }
static int64_t llrintf_(float x) { return llrintf(x); }
static int64_t llrint_(double x) { return llrint(x); }
static int64_t llroundf_(float x) { return llroundf(x); }
static int64_t llround_(double x) { return llround(x); }
static int finitef_(float x) { return isfinite(x); }
static int isfinited_(double x) { return isfinite(x); }
static float ldexpf_(float x, int32_t n) { return ldexpf(x, n); }
static double ldexp_(double x, int32_t n) { return ldexp(x, n); }
static float scalbnf_(float x, int32_t n) { return scalbnf(x, n); }
static double scalbn_(double x, int32_t n) { return scalbn(x, n); }
static float powif_(float x, int32_t n) { return powf(x, (float)n); }
static double powi_(double x, int32_t n) { return pow(x, (double)n); }
static float cospif_(float x) { return (float)cos(M_PI * (double)x); }
static double cospi_(double x) { return cos(M_PI * x); }
static float sinpif_(float x) { return (float)sin(M_PI * (double)x); }
static double sinpi_(double x) { return sin(M_PI * x); }
/* erfinv: an initial guess refined by Newton's method on erf, to double precision */
static double erfinv_(double y) {
  if (y <= -1) return y == -1 ? -INFINITY : NAN;
  if (y >= 1) return y == 1 ? INFINITY : NAN;
  if (y == 0) return y;
  double w = -log((1 - y) * (1 + y)), x;
  x = copysign(sqrt(sqrt((4.330746750799873 + w / 2) * (4.330746750799873 + w / 2) - w / 0.147) -
                    (4.330746750799873 + w / 2)), y);
  for (int i = 0; i < 4; i++) x -= (erf(x) - y) / (1.1283791670955126 * exp(-x * x));
  return x;
}
static float erfinvf_(float y) { return (float)erfinv_(y); }
/* erfcinv: Newton's method on erfc, which keeps the precision of tiny arguments */
static double erfcinv_(double y) {
  if (y <= 0) return y == 0 ? INFINITY : NAN;
  if (y >= 2) return y == 2 ? -INFINITY : NAN;
  double x = erfinv_(1 - y);
  if (!isfinite(x)) x = y < 1 ? sqrt(-log(y)) : -sqrt(-log(2 - y));
  for (int i = 0; i < 8; i++) x += (erfc(x) - y) / (1.1283791670955126 * exp(-x * x));
  return x;
}
static float erfcinvf_(float y) { return (float)erfcinv_(y); }
/* erfcx(x) = exp(x^2) erfc(x), by its asymptotic series where exp(x^2) overflows */
static double erfcx_(double x) {
  if (x < 25) return (double)(expl((long double)x * x) * erfcl((long double)x));
  double r = 1 / (x * x);
  return 0.5641895835477563 / x * (1 - r / 2 + 3 * r * r / 4 - 15 * r * r * r / 8);
}
static float erfcxf_(float x) { return (float)erfcx_(x); }
static float j0f_(float x) { return (float)j0(x); }
static float j1f_(float x) { return (float)j1(x); }
static float y0f_(float x) { return (float)y0(x); }
static float y1f_(float x) { return (float)y1(x); }
static float fast_log2f_(float x) { return log2f(x); }
static float fast_exp10f_(float x) { return powf(10.0f, x); }
static float fast_powf_(float x, float y) { return powf(x, y); }
static float fast_sinf_(float x) { return sinf(x); }
static float fast_cosf_(float x) { return cosf(x); }
static float fast_tanf_(float x) { return tanf(x); }
/* the integer functions */
static int32_t clz_(int32_t x) { return x ? __builtin_clz((uint32_t)x) : 32; }
static int32_t clzll_(int64_t x) { return x ? __builtin_clzll((uint64_t)x) : 64; }
static int32_t popc_(int32_t x) { return __builtin_popcount((uint32_t)x); }
static int32_t popcll_(int64_t x) { return __builtin_popcountll((uint64_t)x); }
static int32_t ffs_(int32_t x) { return __builtin_ffs(x); }
static int32_t ffsll_(int64_t x) { return __builtin_ffsll(x); }
static int32_t brev_(int32_t x) {
  uint32_t u = (uint32_t)x, r = 0;
  for (int i = 0; i < 32; i++) r |= ((u >> i) & 1u) << (31 - i);
  return (int32_t)r;
}
static int64_t brevll_(int64_t x) {
  uint64_t u = (uint64_t)x, r = 0;
  for (int i = 0; i < 64; i++) r |= ((u >> i) & 1u) << (63 - i);
  return (int64_t)r;
}
static int32_t mulhi_(int32_t a, int32_t b) { return (int32_t)(((int64_t)a * b) >> 32); }
static int32_t umulhi_(int32_t a, int32_t b) { return (int32_t)(((uint64_t)(uint32_t)a * (uint32_t)b) >> 32); }
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;
static int64_t mul64hi_(int64_t a, int64_t b) { return (int64_t)(((i128)a * b) >> 64); }
static int64_t umul64hi_(int64_t a, int64_t b) { return (int64_t)(((u128)(uint64_t)a * (uint64_t)b) >> 64); }
static int32_t hadd_(int32_t a, int32_t b) { return (int32_t)(((int64_t)a + b) >> 1); }
static int32_t rhadd_(int32_t a, int32_t b) { return (int32_t)(((int64_t)a + b + 1) >> 1); }
static int32_t uhadd_(int32_t a, int32_t b) { return (int32_t)(((uint64_t)(uint32_t)a + (uint32_t)b) >> 1); }
static int32_t urhadd_(int32_t a, int32_t b) { return (int32_t)(((uint64_t)(uint32_t)a + (uint32_t)b + 1) >> 1); }
static int32_t min_(int32_t a, int32_t b) { return a < b ? a : b; }
static int32_t max_(int32_t a, int32_t b) { return a > b ? a : b; }
static int32_t umin_(int32_t a, int32_t b) { return (uint32_t)a < (uint32_t)b ? a : b; }
static int32_t umax_(int32_t a, int32_t b) { return (uint32_t)a > (uint32_t)b ? a : b; }
static int64_t llmin_(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t llmax_(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t ullmin_(int64_t a, int64_t b) { return (uint64_t)a < (uint64_t)b ? a : b; }
static int64_t ullmax_(int64_t a, int64_t b) { return (uint64_t)a > (uint64_t)b ? a : b; }
static int64_t llabs_(int64_t a) { return a < 0 ? (int64_t)(0 - (uint64_t)a) : a; }
/* |a - b| + c, as sad.s32 and sad.u32 */
static int32_t sad_(int32_t a, int32_t b, int32_t c) {
  return (int32_t)((uint32_t)(a > b ? (int64_t)a - b : (int64_t)b - a) + (uint32_t)c);
}
static int32_t usad_(int32_t a, int32_t b, int32_t c) {
  uint32_t x = (uint32_t)a, y = (uint32_t)b;
  return (int32_t)((x > y ? x - y : y - x) + (uint32_t)c);
}
/* prmt.b32 a, b, s: byte i of the result is byte s[4i..4i+2] of {b, a} */
static int32_t byte_perm_(int32_t a, int32_t b, int32_t s) {
  uint64_t v = (uint64_t)(uint32_t)b << 32 | (uint32_t)a;
  uint32_t r = 0;
  for (int i = 0; i < 4; i++) r |= (uint32_t)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return (int32_t)r;
}

/* libdevice is linked with nvvm-reflect-ftz 1, as Triton 3.9 links it: its f32
 * functions then work in .ftz arithmetic, so subnormal arguments count as their
 * signed zeros and subnormal results come out as signed zeros. The f32 functions
 * of floating-point arguments and result, wrapped so; the others (f64, integers,
 * conversions, the rounded arithmetic of rounded.h) are as libm gives them. */
#define FTZ_UNARY(X)                                                                                                   \
  X(expf, expf) X(exp2f, exp2f) X(exp10f, exp10f_) X(expm1f, expm1f) X(logf, logf) X(log2f, log2f)                   \
  X(log10f, log10f) X(log1pf, log1pf) X(sinf, sinf) X(cosf, cosf) X(tanf, tanf) X(asinf, asinf) X(acosf, acosf)       \
  X(atanf, atanf) X(sinhf, sinhf) X(coshf, coshf) X(tanhf, tanhf) X(asinhf, asinhf) X(acoshf, acoshf)               \
  X(atanhf, atanhf) X(sqrtf, sqrtf) X(rsqrtf, rsqrtf_) X(cbrtf, cbrtf) X(rcbrtf, rcbrtf_) X(floorf, floorf)          \
  X(ceilf, ceilf) X(truncf, truncf) X(roundf, roundf) X(rintf, rintf) X(nearbyintf, nearbyintf) X(fabsf, fabsf)      \
  X(erff, erff) X(erfcf, erfcf) X(lgammaf, lgammaf) X(tgammaf, tgammaf) X(saturatef, saturatef_)                    \
  X(erfinvf, erfinvf_) X(erfcinvf, erfcinvf_) X(erfcxf, erfcxf_) X(sinpif, sinpif_) X(cospif, cospif_)
#define FTZ_BINARY(X)                                                                                                  \
  X(atan2f, atan2f) X(powf, powf) X(fmodf, fmodf) X(remainderf, remainderf) X(hypotf, hypotf) X(fminf, fminf)        \
  X(fmaxf, fmaxf) X(fdimf, fdimf) X(copysignf, copysignf) X(fdividef, fdividef_)
#define FTZ_FN1(name, f)                                                                                               \
  static float ftz_##name(float x) { return flush(f(flush(x))); }
#define FTZ_FN2(name, f)                                                                                               \
  static float ftz_##name(float x, float y) { return flush(f(flush(x), flush(y))); }
FTZ_UNARY(FTZ_FN1)
FTZ_BINARY(FTZ_FN2)
static float ftz_fmaf(float x, float y, float z) { return flush(fmaf(flush(x), flush(y), flush(z))); }
#define FTZ_ENTRY(name, f) {#name, FN(ftz_##name)},
static const Named libdevice_ftz[] = {FTZ_UNARY(FTZ_ENTRY) FTZ_BINARY(FTZ_ENTRY){"fmaf", FN(ftz_fmaf)}};

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
    {"fdiv_rn", FN(fdiv_rn)}, {"ddiv_rn", FN(ddiv_rn)}, {"fsqrt_rn", FN(fsqrt_rn)}, {"dsqrt_rn", FN(dsqrt_rn)},
    ROUNDED_NAMES(rn), ROUNDED_NAMES(rz), ROUNDED_NAMES(rd), ROUNDED_NAMES(ru),
    {"fdiv_rz", FN(fdiv_rz)}, {"fdiv_rd", FN(fdiv_rd)}, {"fdiv_ru", FN(fdiv_ru)}, {"ddiv_rz", FN(ddiv_rz)},
    {"ddiv_rd", FN(ddiv_rd)}, {"ddiv_ru", FN(ddiv_ru)}, {"fsqrt_rz", FN(fsqrt_rz)}, {"fsqrt_rd", FN(fsqrt_rd)},
    {"fsqrt_ru", FN(fsqrt_ru)}, {"dsqrt_rz", FN(dsqrt_rz)}, {"dsqrt_rd", FN(dsqrt_rd)}, {"dsqrt_ru", FN(dsqrt_ru)},
    {"float2int_rn", FN(float2int_rn_)}, {"float2int_rz", FN(float2int_rz_)}, {"float_as_int", FN(float_as_int_)},
    {"int_as_float", FN(int_as_float_)}, {"ull2float_rn", FN(ull2float_rn_)}, {"ilogbf", FN(ilogbf_)},
    {"ilogb", FN(ilogb_)}, {"llrintf", FN(llrintf_)}, {"llrint", FN(llrint_)}, {"llroundf", FN(llroundf_)},
    {"llround", FN(llround_)}, {"finitef", FN(finitef_)}, {"isfinited", FN(isfinited_)}, {"ldexpf", FN(ldexpf_)},
    {"ldexp", FN(ldexp_)}, {"scalbnf", FN(scalbnf_)}, {"scalbn", FN(scalbn_)}, {"powif", FN(powif_)},
    {"powi", FN(powi_)}, {"cospif", FN(cospif_)}, {"cospi", FN(cospi_)}, {"sinpif", FN(sinpif_)},
    {"sinpi", FN(sinpi_)}, {"erfinvf", FN(erfinvf_)}, {"erfinv", FN(erfinv_)}, {"erfcinvf", FN(erfcinvf_)},
    {"erfcinv", FN(erfcinv_)}, {"erfcxf", FN(erfcxf_)}, {"erfcx", FN(erfcx_)}, {"j0f", FN(j0f_)}, {"j0", FN(j0)},
    {"j1f", FN(j1f_)}, {"j1", FN(j1)}, {"y0f", FN(y0f_)}, {"y0", FN(y0)}, {"y1f", FN(y1f_)}, {"y1", FN(y1)},
    {"logbf", FN(logbf)}, {"logb", FN(logb)}, {"nextafterf", FN(nextafterf)}, {"nextafter", FN(nextafter)},
    {"fast_log2f", FN(fast_log2f_)}, {"fast_exp10f", FN(fast_exp10f_)}, {"fast_powf", FN(fast_powf_)},
    {"fast_fdividef", FN(fdividef_)}, {"fast_sinf", FN(fast_sinf_)}, {"fast_cosf", FN(fast_cosf_)},
    {"fast_tanf", FN(fast_tanf_)}, {"clz", FN(clz_)}, {"clzll", FN(clzll_)}, {"popc", FN(popc_)},
    {"popcll", FN(popcll_)}, {"ffs", FN(ffs_)}, {"ffsll", FN(ffsll_)}, {"brev", FN(brev_)}, {"brevll", FN(brevll_)},
    {"mulhi", FN(mulhi_)}, {"umulhi", FN(umulhi_)}, {"mul64hi", FN(mul64hi_)}, {"umul64hi", FN(umul64hi_)},
    {"hadd", FN(hadd_)}, {"rhadd", FN(rhadd_)}, {"uhadd", FN(uhadd_)}, {"urhadd", FN(urhadd_)}, {"min", FN(min_)},
    {"max", FN(max_)}, {"umin", FN(umin_)}, {"umax", FN(umax_)}, {"llmin", FN(llmin_)}, {"llmax", FN(llmax_)},
    {"ullmin", FN(ullmin_)}, {"ullmax", FN(ullmax_)}, {"llabs", FN(llabs_)}, {"sad", FN(sad_)}, {"usad", FN(usad_)},
    {"byte_perm", FN(byte_perm_)},
};

static const Named math_table[] = {
    {"tilec.cvt.rz.f16.f32", FN(cvt_rz_f16_f32)},
    {"tilec.cvt.rz.bf16.f32", FN(cvt_rz_bf16_f32)},
    {"tilec.cvt.rz.f32.f64", FN(cvt_rz_f32_f64)},
    {"tilec.emu.ex2.approx.f32", FN(emu_ex2)},
    {"tilec.emu.ex2.approx.f", FN(emu_ex2)},
    {"tilec.emu.ex2.approx.ftz.f", FN(emu_ex2_ftz)},
    {"tilec.emu.lg2.approx.f", FN(emu_lg2)},
    {"tilec.emu.rsqrt.approx.f", FN(emu_rsqrt)},
    {"tilec.emu.rsqrt.approx.ftz.f", FN(emu_rsqrt_ftz)},
    {"tilec.emu.floor.ftz.f", FN(emu_floor_ftz)},
    {"tilec.emu.ceil.ftz.f", FN(emu_ceil_ftz)},
    {"tilec.emu.div.approx.f", FN(emu_div_approx)},
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
  if (len > 5 && !memcmp(name, "__nv_", 5)) {
    void *f = emu_find(libdevice_ftz, sizeof libdevice_ftz / sizeof *libdevice_ftz, name + 5, len - 5);
    return f ? f : emu_find(libdevice, sizeof libdevice / sizeof *libdevice, name + 5, len - 5);
  }
  return emu_find(math_table, sizeof math_table / sizeof *math_table, name, len);
}
