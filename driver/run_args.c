/*
 * run_args.c — the arguments of `tilec run`, one per runtime parameter, of
 * the parameter's dtype (support/dtype.h): a scalar parsed into its typed
 * slot, range-checked; a buffer read from an .npy file of the pointee's
 * dtype, or made (rand:, zeros:, empty:DTYPE:SHAPE); what a grid
 * expression sees of each; and a buffer's first elements, printed. run.c
 * is the command that gathers them and launches.
 */
#include "run.h"

#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ==== small floats ================================================================= */

/* Rounds a double to a float of `ebits` exponent and `mbits` mantissa bits,
 * ties to even, straight from the double's bits (no double rounding through
 * fp32). */
static uint16_t f64_to_small(double v, int ebits, int mbits) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  uint16_t sign = (uint16_t)((b >> 63) << (ebits + mbits));
  int e = (int)((b >> 52) & 0x7ff);
  uint64_t m = b & ((UINT64_C(1) << 52) - 1);
  int emax = (1 << ebits) - 1, bias = (1 << (ebits - 1)) - 1;
  if (e == 0x7ff) return (uint16_t)(sign | emax << mbits | (m ? 1u << (mbits - 1) : 0));
  if (e == 0) return sign; /* zero, or a double subnormal: far below the smallest fp16/bf16 */
  int te = e - 1023 + bias;   /* the target's biased exponent */
  uint64_t full = m | UINT64_C(1) << 52;
  int shift = 52 - mbits + (te >= 1 ? 0 : 1 - te);
  if (shift > 53) return sign; /* under half the smallest subnormal */
  uint64_t q = full >> shift, rem = full & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) q++;
  if (te < 1) return (uint16_t)(sign | q); /* a subnormal; q == 1 << mbits is the smallest normal */
  if (q >> (mbits + 1)) {
    q >>= 1;
    te++;
  }
  if (te >= emax) return (uint16_t)(sign | emax << mbits);
  return (uint16_t)(sign | (uint64_t)te << mbits | (q & ((UINT64_C(1) << mbits) - 1)));
}

uint16_t run_f16_bits(double v) { return f64_to_small(v, 5, 10); }
uint16_t run_bf16_bits(double v) { return f64_to_small(v, 8, 7); }

/* ==== arguments ==================================================================== */

/* How an argument of a dtype (support/dtype.h) is read, made and printed:
 * an 8-bit float has no scalar form here, and its values no C type. */
typedef enum { T_BOOL, T_SINT, T_UINT, T_FLOAT, T_FP8 } TypeKind;

static TypeKind kind_of(DType t) {
  if (t == DT_I1) return T_BOOL;
  if (dtype_is_float(t)) return dtype_bits(t) == 8 ? T_FP8 : T_FLOAT;
  return dtype_is_signed(t) ? T_SINT : T_UINT;
}

/* The bits of the float of dtype t nearest to v (a 16- or 8-bit float). */
static uint16_t small_bits(DType t, double v) {
  int ebits, mbits;
  dtype_float_format(t, &ebits, &mbits);
  return f64_to_small(v, ebits, mbits);
}

/* "0x1F", "-12", "+7": *neg and the magnitude; false if not an integer. */
bool run_parse_integer(const char *s, bool *neg, uint64_t *mag) {
  *neg = *s == '-';
  if (*s == '-' || *s == '+') s++;
  int base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
  }
  if (!isxdigit((unsigned char)*s) || (base == 10 && !isdigit((unsigned char)*s))) return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, base);
  if (*end || errno) return false;
  *mag = v;
  return true;
}

/* A scalar argument into its typed slot. */
int run_scalar_arg(Arg *a, const char *text) {
  const KernelParam *p = a->param;
  DType t = a->type;
  TypeKind kind = kind_of(t);
  int bits = dtype_bits(t);
  if (kind == T_BOOL) {
    if (!strcmp(text, "True") || !strcmp(text, "1")) a->slot.u8 = 1;
    else if (!strcmp(text, "False") || !strcmp(text, "0")) a->slot.u8 = 0;
    else return cli_error("%s: '%s' is not True or False (the parameter is i1)", p->name, text);
    return 0;
  }
  const char *name = dtype_short(t);
  if (kind == T_SINT || kind == T_UINT) {
    bool neg;
    uint64_t mag;
    if (!run_parse_integer(text, &neg, &mag)) {
      /* an expression over numbers, as a grid's (a sweep's {T}*{T} once substituted) */
      int64_t v;
      char err[256];
      size_t pos;
      if (!strpbrk(text, "+-*/%()") || !run_value_eval(text, NULL, 0, &v, err, sizeof err, &pos))
        return cli_error("%s: '%s' is not an integer or an expression of integers (the parameter is %s)", p->name, text,
                         name);
      neg = v < 0;
      mag = neg ? 0 - (uint64_t)v : (uint64_t)v;
    }
    uint64_t hi = kind == T_UINT ? (bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1) : (UINT64_C(1) << (bits - 1)) - 1;
    uint64_t neg_most = kind == T_UINT ? 0 : UINT64_C(1) << (bits - 1);
    if ((neg && mag > neg_most) || (!neg && mag > hi)) {
      if (kind == T_UINT)
        return cli_error("%s: %s is out of range for %s (0 to %" PRIu64 ")", p->name, text, name, hi);
      return cli_error("%s: %s is out of range for %s (-%" PRIu64 " to %" PRIu64 ")", p->name, text, name, neg_most, hi);
    }
    uint64_t value = neg ? 0 - mag : mag;
    switch (bits) {
    case 8: a->slot.u8 = (uint8_t)value; break;
    case 16: a->slot.u16 = (uint16_t)value; break;
    case 32: a->slot.u32 = (uint32_t)value; break;
    default: a->slot.u64 = value; break;
    }
    return 0;
  }
  if (kind == T_FP8) return cli_error("%s: scalar %s arguments are not supported", p->name, name);
  char *end;
  double d = strtod(text, &end);
  if (!*text || *end || isspace((unsigned char)*text))
    return cli_error("%s: '%s' is not a number (the parameter is %s)", p->name, text, name);
  if (bits == 64) a->slot.f64 = d;
  else if (bits == 32) a->slot.f32 = (float)d;
  else a->slot.u16 = small_bits(t, d);
  return 0;
}

/* Whether the argument keeps the hint of its signature entry (`i32:16` a
 * multiple of 16, `i32:1` equal to 1, `*fp32:16` 16-byte aligned): the
 * kernel was specialized on it, so one that breaks it would run code that
 * is wrong for it (a mask dropped, a vector access misaligned). 0, or 1
 * with a message naming the parameter, its value and the hint. */
int run_check_hint(const Arg *a) {
  const KernelParam *p = a->param;
  int d = p->divisibility;
  if (d <= 0) return 0;
  if (p->desc_part) {
    /* no hint of the user's: the contract of a tensor descriptor */
    uint64_t v = a->is_ptr ? (uint64_t)(uintptr_t)a->buf.data : a->slot.u64;
    if (d == 1 ? v == 1 : v % (uint64_t)d == 0) return 0;
    return cli_error("%s: %s%" PRIu64 " is not what a tensor descriptor takes: a 16-byte aligned base, every stride but the "
                     "last a multiple of 16 bytes, the last 1 (as Triton's TensorDescriptor asserts)",
                     p->name, a->is_ptr ? "a buffer at " : "", v);
  }
  if (a->is_ptr) {
    uintptr_t at = (uintptr_t)a->buf.data;
    if (d > 1 && at % (uintptr_t)d)
      return cli_error("%s: the buffer's address is not %d-byte aligned, which its hint '%s:%d' promises", p->name, d,
                       p->type, d);
    return 0;
  }
  TypeKind kind = kind_of(a->type);
  if (kind != T_SINT && kind != T_UINT) return 0;
  int bits = dtype_bits(a->type);
  uint64_t u = bits == 8 ? a->slot.u8 : bits == 16 ? a->slot.u16 : bits == 32 ? a->slot.u32 : a->slot.u64;
  if (kind == T_SINT && bits < 64 && (u >> (bits - 1) & 1)) u |= ~UINT64_C(0) << bits; /* sign-extended */
  bool neg = kind == T_SINT && (int64_t)u < 0;
  uint64_t mag = neg ? 0 - u : u; /* for the remainder and the message */
  if (d == 1 ? neg || mag != 1 : mag % (uint64_t)d != 0)
    return cli_error("%s: %s%" PRIu64 " breaks its hint '%s:%d' (%s): the kernel is specialized on it; pass a value that "
                     "keeps it, or drop the hint from the signature",
                     p->name, neg ? "-" : "", mag, p->type, d,
                     d == 1 ? "the value 1" : d == 16 ? "a multiple of 16" : "a multiple of the hint");
  return 0;
}

/* Fills a new buffer with uniform random values from a fixed seed (per
 * argument, so that a run can be repeated): floats in [-1, 1), signed
 * integers in [-100, 100), unsigned ones in [0, 200), booleans 0 or 1. */
static void fill_random(Arg *a, uint32_t seed) {
  NpyArray *b = &a->buf;
  uint64_t x = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (size_t i = 0; i < b->count; i++) {
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    uint64_t r = x * 0x2545F4914F6CDD1Dull;
    double u = (double)(r >> 11) / 9007199254740992.0 * 2 - 1;
    unsigned char *at = (unsigned char *)b->data + i * b->itemsize;
    uint64_t bits = 0;
    switch (kind_of(a->type)) {
    case T_BOOL: bits = r >> 63; break;
    case T_SINT: bits = (uint64_t)(int64_t)(r % 200) - 100; break;
    case T_UINT: bits = r % 200; break;
    case T_FP8: bits = small_bits(a->type, u); break;
    case T_FLOAT:
      if (dtype_bits(a->type) == 64) memcpy(&bits, &u, 8);
      else if (dtype_bits(a->type) == 32) {
        float f = (float)u;
        uint32_t w;
        memcpy(&w, &f, 4);
        bits = w;
      } else {
        bits = small_bits(a->type, u);
      }
      break;
    }
    memcpy(at, &bits, b->itemsize); /* little-endian: the low bytes */
  }
}

/* "empty:DTYPE:SHAPE" (poisoned), "rand:DTYPE:SHAPE" (random) or
 * "zeros:DTYPE:SHAPE": a new buffer of the pointee's dtype. */
static int new_buffer_arg(Arg *a, const char *text, int index) {
  const KernelParam *p = a->param;
  bool rand = !strncmp(text, "rand:", 5), zeros = !strncmp(text, "zeros:", 6);
  const char *kind = rand ? "rand" : zeros ? "zeros" : "empty";
  const char *dt = text + strlen(kind) + 1, *colon = strchr(dt, ':'), *name = dtype_short(a->type);
  if (!colon) return cli_error("%s: expected %s:DTYPE:SHAPE (%s:%s:1024), got '%s'", p->name, kind, kind, name, text);
  size_t dl = (size_t)(colon - dt);
  DType given;
  if (!dtype_parse_n(dt, dl, &given))
    return cli_error("%s: unknown dtype '%.*s' in '%s'; the parameter is %s, so %s:%s:SHAPE", p->name, (int)dl, dt, text,
                     p->type, kind, name);
  if (given != a->type) return cli_error("%s: '%s' is %.*s, but the parameter is %s", p->name, text, (int)dl, dt, p->type);
  NpyArray *b = &a->buf;
  memcpy(b->dtype, dtype_npy(a->type), 4);
  b->itemsize = (size_t)dtype_bytes(a->type);
  b->count = 1;
  const char *s = colon + 1;
  for (;;) {
    if (b->ndim == NPY_MAX_DIMS) return cli_error("%s: '%s' has more than %d dimensions", p->name, text, NPY_MAX_DIMS);
    if (!isdigit((unsigned char)*s))
      return cli_error("%s: bad shape in '%s': expected dimensions like 128x64", p->name, text);
    char *end;
    errno = 0;
    unsigned long long d = strtoull(s, &end, 10);
    if (errno || d > SIZE_MAX || (d && b->count > SIZE_MAX / d))
      return cli_error("%s: the shape of '%s' is too large", p->name, text);
    b->shape[b->ndim++] = d;
    b->count *= (size_t)d;
    s = end;
    if (!*s) break;
    if (*s != 'x') return cli_error("%s: bad shape in '%s': expected dimensions like 128x64", p->name, text);
    s++;
  }
  if (b->count > SIZE_MAX / b->itemsize) return cli_error("%s: the shape of '%s' is too large", p->name, text);
  b->nbytes = b->count * b->itemsize;
  b->data = malloc(b->nbytes ? b->nbytes : 1);
  if (!b->data) return cli_error("%s: cannot allocate %zu bytes for '%s'", p->name, b->nbytes, text);
  memset(b->data, zeros ? 0 : 0xCD, b->nbytes);
  if (rand) fill_random(a, (uint32_t)index);
  else if (!zeros && !(a->init = calloc(b->nbytes / 8 + 1, 1)))
    return cli_error("%s: cannot allocate %zu bytes for '%s'", p->name, b->nbytes / 8 + 1, text);
  return 0;
}

/* A pointer argument: an .npy file of the pointee's dtype, or empty:, rand:, zeros:... */
int run_buffer_arg(Arg *a, const char *text, int index) {
  const char *npy = dtype_npy(a->type), *alt = dtype_npy_alt(a->type);
  if (!strncmp(text, "empty:", 6) || !strncmp(text, "rand:", 5) || !strncmp(text, "zeros:", 6))
    return new_buffer_arg(a, text, index);
  char err[512];
  if (!npy_read_file(text, &a->buf, err, sizeof err)) return cli_error("%s: %s", a->param->name, err);
  if (strcmp(a->buf.dtype, npy) && (!alt || strcmp(a->buf.dtype, alt))) {
    char want[16];
    snprintf(want, sizeof want, alt ? "%s or %s" : "%s", npy, alt ? alt : "");
    return cli_error("%s: '%s' has dtype %s, but the parameter is %s, which needs %s", a->param->name, text,
                     a->buf.dtype, a->param->type, want);
  }
  return 0;
}

/* Types the parameter: "*fp32" is a pointer to fp32; false when run cannot pass it. */
int run_type_arg(Arg *a, const KernelParam *p) {
  a->param = p;
  if (!dtype_parse_param(p->type, &a->type, &a->is_ptr))
    return cli_error("%s: tilec run cannot pass an argument of type %s yet", p->name, p->type);
  return 0;
}

/* What a grid expression sees of an argument: NULL and its value for an
 * integer scalar, else why it cannot be used. */
const char *run_grid_value(const Arg *a, int64_t *v) {
  if (a->is_ptr) return "a pointer parameter";
  int bits = dtype_bits(a->type);
  switch (kind_of(a->type)) {
  case T_BOOL: *v = a->slot.u8; return NULL;
  case T_SINT:
    *v = bits == 8 ? (int8_t)a->slot.u8 : bits == 16 ? (int16_t)a->slot.u16 : bits == 32 ? (int32_t)a->slot.u32
                                                                                      : (int64_t)a->slot.u64;
    return NULL;
  case T_UINT:
    if (bits == 64 && a->slot.u64 > INT64_MAX) return "a u64 beyond the range of grid arithmetic";
    *v = bits == 8 ? a->slot.u8 : bits == 16 ? a->slot.u16 : bits == 32 ? a->slot.u32 : (int64_t)a->slot.u64;
    return NULL;
  case T_FLOAT:
  case T_FP8: break;
  }
  return "a floating-point parameter";
}

/* The value of a float of `ebits` exponent and `mbits` mantissa bits. */
static double small_to_f64(uint32_t bits, int ebits, int mbits) {
  int bias = (1 << (ebits - 1)) - 1, e = (int)(bits >> mbits) & ((1 << ebits) - 1);
  double m = (double)(bits & ((1u << mbits) - 1)), sign = bits >> (ebits + mbits) & 1 ? -1 : 1;
  if (e == 0) return sign * ldexp(m, 1 - bias - mbits);
  return sign * ldexp(m + (double)(1u << mbits), e - bias - mbits);
}

/* --print I[:N]: the first N (8) elements of buffer I after the launch. */
void run_print_buffer(const Arg *a, const char *spec) {
  const char *colon = strchr(spec, ':');
  size_t n = colon ? (size_t)strtoull(colon + 1, NULL, 10) : 8;
  const NpyArray *b = &a->buf;
  if (n > b->count) n = b->count;
  printf("%s[0:%zu] =", a->param->name, n);
  for (size_t i = 0; i < n; i++) {
    uint64_t bits = 0;
    memcpy(&bits, (const unsigned char *)b->data + i * b->itemsize, b->itemsize);
    TypeKind kind = kind_of(a->type);
    int tbits = dtype_bits(a->type), ebits, mbits;
    dtype_float_format(a->type, &ebits, &mbits);
    if (kind == T_SINT) printf(" %lld", (long long)(tbits == 64 ? (int64_t)bits : (int64_t)(bits << (64 - tbits)) >> (64 - tbits)));
    else if (kind == T_UINT || kind == T_BOOL) printf(" %llu", (unsigned long long)bits);
    else if (kind == T_FP8) printf(" %g", small_to_f64((uint32_t)bits, ebits, mbits));
    else if (tbits == 64) {
      double d;
      memcpy(&d, &bits, 8);
      printf(" %.9g", d);
    } else if (tbits == 32) {
      float f;
      uint32_t w = (uint32_t)bits;
      memcpy(&f, &w, 4);
      printf(" %.7g", (double)f);
    } else {
      printf(" %.5g", small_to_f64((uint32_t)bits, ebits, mbits));
    }
  }
  printf("\n");
}
