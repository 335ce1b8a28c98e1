/* mma_figures.h — the PTX ISA's mma fragment figures, register by register,
 * written apart from emu/mma.c (which maps by the ISA's formulas) so that
 * the tests of the model (tests/unit/test_mma.c) and of the emulator's
 * bound instructions (tests/emu/test_mma.c) hold it to a second statement;
 * and what both do with them: random matrices scattered into the lanes'
 * registers, D gathered back and compared with a triple loop. g is groupID
 * (laneid >> 2), t threadID_in_group (laneid % 4). */
#ifndef TILEC_TESTS_MMA_FIGURES_H
#define TILEC_TESTS_MMA_FIGURES_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emu/mma.h"

/* One slot of a register: A and C hold row g + row_off, column t * t_step +
 * col_off; B holds row t * t_step + row_off, column g. */
typedef struct Slot {
  int row_off, col_off;
} Slot;

typedef struct Figure {
  int regs, slots; /* registers per lane, elements per register */
  int t_step;
  Slot at[4][4];   /* [register][slot, from the low bits] */
} Figure;

/* m16n8k16, .f16/.bf16 A: four .f16x2 registers */
static const Figure a_k16 = {4, 2, 2, {{{0, 0}, {0, 1}}, {{8, 0}, {8, 1}}, {{0, 8}, {0, 9}}, {{8, 8}, {8, 9}}}};
/* m16n8k16 B: two .f16x2 registers down a column of B */
static const Figure b_k16 = {2, 2, 2, {{{0, 0}, {1, 0}}, {{8, 0}, {9, 0}}}};
/* m16n8k8, .tf32 A: four .b32 registers */
static const Figure a_k8 = {4, 1, 1, {{{0, 0}}, {{8, 0}}, {{0, 4}}, {{8, 4}}}};
static const Figure b_k8 = {2, 1, 1, {{{0, 0}}, {{4, 0}}}};
/* m16n8k32, .s8/.u8 A: four .b32 registers of four bytes */
static const Figure a_k32 = {4, 4, 4,
                             {{{0, 0}, {0, 1}, {0, 2}, {0, 3}},
                              {{8, 0}, {8, 1}, {8, 2}, {8, 3}},
                              {{0, 16}, {0, 17}, {0, 18}, {0, 19}},
                              {{8, 16}, {8, 17}, {8, 18}, {8, 19}}}};
static const Figure b_k32 = {2, 4, 4, {{{0, 0}, {1, 0}, {2, 0}, {3, 0}}, {{16, 0}, {17, 0}, {18, 0}, {19, 0}}}};
/* C and D, .f32/.s32: four registers; .f16: two .f16x2 registers */
static const Figure c_f32 = {4, 1, 2, {{{0, 0}}, {{0, 1}}, {{8, 0}}, {{8, 1}}}};
static const Figure c_f16 = {2, 2, 2, {{{0, 0}, {0, 1}}, {{8, 0}, {8, 1}}}};

/* Where slot s of register r of lane l lies, for an A/C figure (b false) or a B one. */
static inline void where(const Figure *f, bool b, int l, int r, int s, int *row, int *col) {
  int g = l >> 2, t = l & 3;
  if (b) {
    *row = t * f->t_step + f->at[r][s].row_off;
    *col = g;
  } else {
    *row = g + f->at[r][s].row_off;
    *col = t * f->t_step + f->at[r][s].col_off;
  }
}

static uint32_t mma_rng = 0x9e3779b9u;
static inline uint32_t mma_next_u32(void) {
  mma_rng ^= mma_rng << 13;
  mma_rng ^= mma_rng >> 17;
  mma_rng ^= mma_rng << 5;
  return mma_rng;
}
/* an integer in [lo, hi] */
static inline int mma_rand_int(int lo, int hi) { return lo + (int)(mma_next_u32() % (uint32_t)(hi - lo + 1)); }

/* ---- element encodings ---------------------------------------------------------------------------- */

static inline uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
/* binary16 of a value that has one: normal, small, exact */
static inline uint32_t f16_bits(double v) {
  if (v == 0) return signbit(v) ? 0x8000 : 0;
  uint32_t sign = v < 0 ? 0x8000 : 0;
  int e;
  double f = frexp(fabs(v), &e); /* f in [0.5, 1) */
  uint32_t mant = (uint32_t)ldexp(f, 11);
  return sign | (uint32_t)(e + 14) << 10 | (mant & 0x3ff);
}
static inline double f16_double(uint32_t h) {
  int e = (h >> 10) & 0x1f;
  double m = e ? (h & 0x3ff) | 0x400 : (h & 0x3ff);
  double v = ldexp(m, (e ? e : 1) - 25);
  return (h & 0x8000) ? -v : v;
}

/* ---- random cases and the triple loop ---------------------------------------------------------- */

/* An 8-bit float of a value that has one, normal and small: sign, `eb`
 * exponent bits biased by 2^(eb-1) - 1, the rest mantissa (e4m3, e5m2). */
static inline uint32_t f8_bits(double v, int eb) {
  if (v == 0) return signbit(v) ? 0x80 : 0;
  int mb = 7 - eb, e;
  double f = frexp(fabs(v), &e); /* f in [0.5, 1): v = 1.x * 2^(e-1) */
  uint32_t mant = (uint32_t)ldexp(f, mb + 1) & ((1u << mb) - 1);
  return (v < 0 ? 0x80u : 0) | (uint32_t)(e - 1 + (1 << (eb - 1)) - 1) << mb | mant;
}

typedef enum Elem { E_F16, E_BF16, E_TF32, E_S8, E_U8, E_E4M3, E_E5M2 } Elem;

/* The bits of value v (an integer for s8/u8) in a slot of `bits` bits. */
static inline uint32_t encode(Elem e, double v) {
  switch (e) {
  case E_F16: return f16_bits(v);
  case E_BF16: return f32_bits((float)v) >> 16; /* the values here have at most 8 significant bits */
  case E_TF32: return f32_bits((float)v) | (mma_next_u32() & 0x1fff); /* bits tf32 ignores: noise */
  case E_E4M3: return f8_bits(v, 4);
  case E_E5M2: return f8_bits(v, 5);
  default: return (uint32_t)(int)v & 0xff;
  }
}

/* Scatters matrix m (rows x cols, row-major) into lane registers through figure f. */
static inline void scatter(const Figure *f, bool b, Elem e, const double *m, int cols, uint32_t *regs, int stride) {
  int bits = 32 / f->slots;
  for (int l = 0; l < 32; l++)
    for (int r = 0; r < f->regs; r++) {
      uint32_t w = 0;
      for (int s = 0; s < f->slots; s++) {
        int row, col;
        where(f, b, l, r, s, &row, &col);
        uint32_t x = encode(e, m[row * cols + col]);
        w |= bits == 32 ? x : (x & ((1u << bits) - 1)) << (bits * s);
      }
      regs[l * stride + r] = w;
    }
}

typedef struct Case {
  EmuMmaKind kind;
  int K;
  Elem a, b;
  const Figure *fa, *fb, *fc;
  bool c_f16, integer;
} Case;

static const Case cases[] = {
    {EMU_MMA_F32_F16, 16, E_F16, E_F16, &a_k16, &b_k16, &c_f32, false, false},
    {EMU_MMA_F32_BF16, 16, E_BF16, E_BF16, &a_k16, &b_k16, &c_f32, false, false},
    {EMU_MMA_F16_F16, 16, E_F16, E_F16, &a_k16, &b_k16, &c_f16, true, false},
    {EMU_MMA_F32_TF32, 8, E_TF32, E_TF32, &a_k8, &b_k8, &c_f32, false, false},
    {EMU_MMA_S32_S8S8, 32, E_S8, E_S8, &a_k32, &b_k32, &c_f32, false, true},
    {EMU_MMA_S32_S8U8, 32, E_S8, E_U8, &a_k32, &b_k32, &c_f32, false, true},
    {EMU_MMA_S32_U8S8, 32, E_U8, E_S8, &a_k32, &b_k32, &c_f32, false, true},
    {EMU_MMA_S32_U8U8, 32, E_U8, E_U8, &a_k32, &b_k32, &c_f32, false, true},
    /* the fp8 forms share the s8/u8 figures (the ISA's m16n8k32 figure names all four) */
    {EMU_MMA_F32_E4M3E4M3, 32, E_E4M3, E_E4M3, &a_k32, &b_k32, &c_f32, false, false},
    {EMU_MMA_F32_E4M3E5M2, 32, E_E4M3, E_E5M2, &a_k32, &b_k32, &c_f32, false, false},
    {EMU_MMA_F32_E5M2E4M3, 32, E_E5M2, E_E4M3, &a_k32, &b_k32, &c_f32, false, false},
    {EMU_MMA_F32_E5M2E5M2, 32, E_E5M2, E_E5M2, &a_k32, &b_k32, &c_f32, false, false},
};

static inline double random_value(Elem e) {
  switch (e) {
  case E_S8: return mma_rand_int(-128, 127);
  case E_U8: return mma_rand_int(0, 255);
  case E_E4M3: return mma_rand_int(-16, 16) / 8.0; /* eighths up to 2: three mantissa bits (1.125, 1.875) */
  default: return mma_rand_int(-8, 8) / 4.0; /* quarters up to 2: sums of sixteenths below 80, exact even in f16 */
  }
}

/* One warp's case: the matrices, and the lanes' registers scattered from
 * them through the figures. */
typedef struct MmaTrial {
  double A[16 * 32], B[32 * 8], C[16 * 8];
  uint32_t a[32][4], b[32][2], c[32][4];
} MmaTrial;

static inline void mma_trial_make(const Case *cs, MmaTrial *t) {
  enum { M = 16, N = 8 };
  int K = cs->K;
  for (int i = 0; i < M * K; i++) t->A[i] = random_value(cs->a);
  for (int i = 0; i < K * N; i++) t->B[i] = random_value(cs->b);
  for (int i = 0; i < M * N; i++)
    t->C[i] = cs->integer ? (double)(int32_t)mma_next_u32() : mma_rand_int(-64, 64) / 4.0; /* any s32: the sum may wrap */
  memset(t->c, 0, sizeof t->c);
  scatter(cs->fa, false, cs->a, t->A, K, &t->a[0][0], 4);
  scatter(cs->fb, true, cs->b, t->B, N, &t->b[0][0], 2);
  for (int l = 0; l < 32; l++)
    for (int r = 0; r < cs->fc->regs; r++)
      for (int s = 0; s < cs->fc->slots; s++) {
        int row, col;
        where(cs->fc, false, l, r, s, &row, &col);
        double v = t->C[row * N + col];
        t->c[l][r] |= cs->c_f16 ? f16_bits(v) << (16 * s) : cs->integer ? (uint32_t)(int32_t)v : f32_bits((float)v);
      }
}

/* How many elements of D, gathered from the lanes' registers d through the
 * C figure, differ from C + A·B by the triple loop (the first few told). */
static inline int mma_trial_check(const Case *cs, const MmaTrial *t, const uint32_t d[32][4], const char *what) {
  enum { N = 8 };
  int K = cs->K, bad = 0;
  for (int l = 0; l < 32; l++)
    for (int r = 0; r < cs->fc->regs; r++)
      for (int s = 0; s < cs->fc->slots; s++) {
        int row, col;
        where(cs->fc, false, l, r, s, &row, &col);
        bool ok;
        if (cs->integer) {
          int64_t want = (int64_t)t->C[row * N + col];
          for (int k = 0; k < K; k++) want += (int64_t)t->A[row * K + k] * (int64_t)t->B[k * N + col];
          ok = d[l][r] == (uint32_t)want; /* modulo 2^32 */
        } else {
          double want = t->C[row * N + col];
          for (int k = 0; k < K; k++) want += t->A[row * K + k] * t->B[k * N + col];
          double got = cs->c_f16 ? f16_double((d[l][r] >> (16 * s)) & 0xffff) : bits_f32(d[l][r]);
          ok = got == want;
        }
        if (!ok && bad++ < 3)
          fprintf(stderr, "%s: lane %d register %d slot %d (D[%d][%d]) is wrong\n", what, l, r, s, row, col);
      }
  return bad;
}

#endif
