/* wgmma_layouts.h — the PTX ISA's statements about wgmma.mma_async's
 * operands, written apart from emu/wgmma.c, and what the tests of the model
 * (tests/unit/test_wgmma.c) and of the emulator's bound call
 * (tests/emu/test_wgmma.c) do with them: a general evaluator of CuTe's
 * layout notation, in which the ISA states its canonical shared-memory
 * layouts (and CUTLASS the fragments' thread-value layouts); and trials:
 * random matrices placed in a shared-memory image and in registers by those
 * layouts, with D's expected values from a triple loop. */
#ifndef TILEC_TESTS_WGMMA_LAYOUTS_H
#define TILEC_TESTS_WGMMA_LAYOUTS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/mma.h"
#include "emu/wgmma.h"

/* ---- a general evaluator of CuTe layouts: a mode is a list of (size, stride); an index is split over its
 * sizes, the first fastest, and the offset is the sum of the parts times their strides ---- */

typedef struct Mode {
  int n;
  long size[4], stride[4];
} Mode;

static inline long eval_mode(const Mode *m, long index) {
  long off = 0;
  for (int i = 0; i < m->n; i++) {
    long part = i == m->n - 1 ? index : index % m->size[i];
    off += part * m->stride[i];
    index /= m->size[i];
  }
  return off;
}

/* CuTe's Swizzle<B,M,S> on an offset: bits [M, M+B) ^= bits [M+S, M+S+B). */
static inline long swizzle(int B, int M, int S, long x) { return x ^ ((x >> S) & (((1L << B) - 1) << M)); }

/* ---- the ISA's canonical layouts ---- */

/* The canonical layout of the ISA's table for a major-ness and swizzle (B = 0 none, 1 32B, 2 64B, 3 128B),
 * elements of `bits`, LBO and SBO in elements: the (mn, k) modes. m and k, the repeat counts, are left to
 * the last size (it takes the rest of the index). */
static inline void canonical(bool mn_major, int B, int bits, long lbo, long sbo, Mode *mn, Mode *k) {
  long T = 128 / bits, W = 1L << B; /* W: 16-byte units of a swizzle atom's width */
  if (mn_major && B == 0) { /* ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)) */
    *mn = (Mode){3, {T, 1, 1}, {1, T, sbo}};
    *k = (Mode){2, {8, 1}, {T, lbo}};
  } else if (mn_major) { /* ((T,W,m),(8,k)):((1,T,LBO),(W*T,SBO)) */
    *mn = (Mode){3, {T, W, 1}, {1, T, lbo}};
    *k = (Mode){2, {8, 1}, {W * T, sbo}};
  } else if (B == 0) { /* ((8,m),(T,2k)):((1T,SBO),(1,LBO)) */
    *mn = (Mode){2, {8, 1}, {T, sbo}};
    *k = (Mode){2, {T, 1}, {1, lbo}};
  } else { /* ((8,m),(T,2k)):((W*T,SBO),(1,T)) */
    *mn = (Mode){2, {8, 1}, {W * T, sbo}};
    *k = (Mode){2, {T, 1}, {1, T}};
  }
}

/* The byte address the ISA's layout gives element (mn, k): the layout's element offset in bytes from the
 * start, then Swizzle<B,4,3> on the byte address. */
static inline uint32_t isa_address(bool mn_major, int B, int bits, uint32_t start, long lbo_bytes, long sbo_bytes, int mn,
                            int k) {
  long eb = bits / 8;
  Mode mm, km;
  canonical(mn_major, B, bits, lbo_bytes / eb, sbo_bytes / eb, &mm, &km);
  long off = (eval_mode(&mm, mn) + eval_mode(&km, k)) * eb;
  return (uint32_t)swizzle(B, 4, 3, (long)start + off);
}

static inline uint64_t descriptor(uint32_t start, uint32_t lbo, uint32_t sbo, int base_offset, int mode) {
  return (uint64_t)((start & 0x3ffff) >> 4) | (uint64_t)((lbo & 0x3ffff) >> 4) << 16 |
         (uint64_t)((sbo & 0x3ffff) >> 4) << 32 | (uint64_t)base_offset << 49 | (uint64_t)mode << 62;
}

static inline int mode_of(int B) { return B == 0 ? 0 : B == 1 ? 3 : B == 2 ? 2 : 1; } /* the descriptor's swizzle field */

/* CUTLASS's thread-value layouts of the instruction: (thread, value) -> m + 64 * (n or k). */
static inline long tv(const Mode *t, const Mode *v, int thread, int value) { return eval_mode(t, thread) + eval_mode(v, value); }

static inline uint32_t wg_rnd(void) {
  static uint64_t s = 0x9e3779b97f4a7c15ULL;
  s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(s >> 33);
}

static inline int bits_of(EmuWgType t) { return t == EMU_WG_TF32 ? 32 : t == EMU_WG_F16 || t == EMU_WG_BF16 ? 16 : 8; }

/* A small value exact in every type, and its bits: integers -3..3 (0..6 for u8), halves for the floats. */
static inline uint32_t wg_encode(EmuWgType t, int v2, double *value) {
  switch (t) {
  case EMU_WG_S8: *value = v2; return (uint32_t)(uint8_t)(int8_t)v2;
  case EMU_WG_U8: *value = v2 + 3; return (uint32_t)(v2 + 3);
  default: break;
  }
  float f = (float)v2 / 2;
  *value = f;
  uint32_t u;
  memcpy(&u, &f, 4);
  switch (t) {
  case EMU_WG_F16: return emu_f16_round(f);
  case EMU_WG_BF16: return u >> 16;
  case EMU_WG_TF32: return u | (wg_rnd() & 0x1fff); /* the low 13 bits, which the instruction ignores */
  case EMU_WG_E4M3: /* +-0, 0.5, 1, 1.5: exponent 7 is 1.0 */
  case EMU_WG_E5M2: {
    int eb = t == EMU_WG_E4M3 ? 4 : 5, mb = 7 - eb, bias = (1 << (eb - 1)) - 1;
    uint32_t sign = v2 < 0 ? 0x80 : 0, a = (uint32_t)abs(v2);
    if (!a) return sign;
    /* a/2 = 0.5, 1 or 1.5: 2^-1, 2^0, 1.5 * 2^0 */
    uint32_t e = a == 1 ? (uint32_t)(bias - 1) : (uint32_t)bias, m = a == 3 ? 1u << (mb - 1) : 0;
    return sign | e << mb | m;
  }
  default: return 0;
  }
}

/* LBO and SBO for an operand of MN x K elements of eb bytes laid out whole, blocks or atoms side by side:
 * K-major, no swizzle: blocks of 8 rows x 16 bytes, along K then along mn; swizzled: atoms of 8 rows x W
 * bytes one after another along mn (K fits in a row). MN-major, no swizzle: blocks of 8 k x 16 bytes,
 * along mn then along K; swizzled: atoms of 8 k x W bytes along mn, then the next 8 k. */
static inline void strides(bool mn_major, int B, int eb, int MN, int K, long *lbo, long *sbo) {
  long W = 16L << B;
  if (!mn_major && !B) *lbo = 128, *sbo = 128L * (K * eb / 16);
  else if (!mn_major) *lbo = 16, *sbo = 8 * W;
  else if (!B) *sbo = 128, *lbo = 128L * ((MN * eb + 15) / 16);
  else *lbo = 8 * W, *sbo = 8 * W * ((MN * eb + W - 1) / W);
}

typedef struct WgCase {
  const char *name;
  EmuWgmma op;
  int B_a, B_b; /* swizzle of A and B: 0 none, 1 32B, 2 64B, 3 128B */
} WgCase;


/* Where a trial puts A and B in shared memory, and how much it spans. */
enum { WG_A_AT = 0x2000, WG_B_AT = 0x8000, WG_SMEM = 1 << 17 };

/* One instruction's inputs and D's expected values. */
typedef struct WgTrial {
  unsigned char smem[WG_SMEM];
  uint32_t a[128][4], d[128][128]; /* A's registers (when in registers), D's input */
  uint64_t a_desc, b_desc;
  double want[64][256];
} WgTrial;

static inline void wg_trial_make(const WgCase *c, WgTrial *t) {
  const EmuWgmma *op = &c->op;
  int bits = bits_of(op->atype), K = 256 / bits, N = op->n, eb = bits / 8, per = 32 / bits;
  bool integer = op->atype == EMU_WG_S8 || op->atype == EMU_WG_U8;
  static double A[64][32], Bm[32][256], C[64][256];
  memset(t->smem, 0, sizeof t->smem);
  memset(t->a, 0, sizeof t->a);
  memset(t->d, 0, sizeof t->d);
  /* A and B in shared memory where the ISA's layouts put them */
  long a_lbo, a_sbo, b_lbo, b_sbo;
  strides(op->trans_a, c->B_a, eb, 64, K, &a_lbo, &a_sbo);
  strides(op->trans_b, c->B_b, eb, N, K, &b_lbo, &b_sbo);
  for (int m = 0; m < 64; m++)
    for (int k = 0; k < K; k++) {
      uint32_t raw = wg_encode(op->atype, (int)(wg_rnd() % 7) - 3, &A[m][k]);
      if (op->a_in_registers) continue;
      uint32_t at = isa_address(op->trans_a, c->B_a, bits, WG_A_AT, a_lbo, a_sbo, m, k);
      memcpy(t->smem + at, &raw, (size_t)eb);
    }
  for (int k = 0; k < K; k++)
    for (int n = 0; n < N; n++) {
      uint32_t raw = wg_encode(op->btype, (int)(wg_rnd() % 7) - 3, &Bm[k][n]);
      uint32_t at = isa_address(op->trans_b, c->B_b, bits, WG_B_AT, b_lbo, b_sbo, n, k);
      memcpy(t->smem + at, &raw, (size_t)eb);
    }
  /* A in registers, by CUTLASS's thread-value layouts */
  if (op->a_in_registers) {
    Mode th16 = {3, {4, 8, 4}, {128, 1, 16}}, v16 = {3, {2, 2, 2}, {64, 8, 512}};
    Mode th8 = {3, {4, 8, 4}, {64, 1, 16}}, v8 = {2, {2, 2}, {8, 256}};
    Mode th32 = {3, {4, 8, 4}, {256, 1, 16}}, v32 = {3, {4, 2, 2}, {64, 8, 1024}};
    const Mode *th = bits == 16 ? &th16 : bits == 32 ? &th8 : &th32, *v = bits == 16 ? &v16 : bits == 32 ? &v8 : &v32;
    for (int th_i = 0; th_i < 128; th_i++)
      for (int i = 0; i < 4 * per; i++) {
        long o = tv(th, v, th_i, i);
        int m = (int)(o % 64), k = (int)(o / 64);
        double dummy;
        /* the bits of A[m][k] again: its value encoded */
        int v2 = integer ? (op->atype == EMU_WG_U8 ? (int)A[m][k] - 3 : (int)A[m][k]) : (int)(A[m][k] * 2);
        uint32_t raw = wg_encode(op->atype, v2, &dummy) & (bits == 32 ? 0xffffffffu : (1u << bits) - 1);
        t->a[th_i][i / per] |= raw << (bits * (i % per));
      }
  }
  /* C, through the accumulator's layout */
  Mode th = {3, {4, 8, 4}, {128, 1, 16}}, cv = {3, {2, 2, 32}, {64, 8, 512}};
  for (int th_i = 0; th_i < 128; th_i++)
    for (int i = 0; i < N / 2; i++) {
      long o = tv(&th, &cv, th_i, i);
      int m = (int)(o % 64), n = (int)(o / 64);
      int v = (int)(wg_rnd() % 9) - 4;
      C[m][n] = v;
      if (op->f16_d) t->d[th_i][i / 2] |= emu_f16_round((float)v) << (16 * (i % 2));
      else if (integer) t->d[th_i][i] = (uint32_t)v;
      else {
        float f = (float)v;
        memcpy(&t->d[th_i][i], &f, 4);
      }
    }
  t->a_desc = op->a_in_registers ? 0 : descriptor(WG_A_AT, (uint32_t)a_lbo, (uint32_t)a_sbo, 0, mode_of(c->B_a));
  t->b_desc = descriptor(WG_B_AT, (uint32_t)b_lbo, (uint32_t)b_sbo, 0, mode_of(c->B_b));
  double sa = op->neg_a ? -1 : 1, sb = op->neg_b ? -1 : 1;
  for (int m = 0; m < 64; m++)
    for (int n = 0; n < N; n++) {
      double want = op->scale_d ? C[m][n] : 0;
      for (int k = 0; k < K; k++) want += sa * A[m][k] * sb * Bm[k][n];
      if (integer && op->satfinite) want = want > INT32_MAX ? INT32_MAX : want < INT32_MIN ? INT32_MIN : want;
      t->want[m][n] = want;
    }
}

/* The number of D's elements in registers d that differ from the trial's; the first few are printed. */
static inline int wg_trial_check(const WgCase *c, const WgTrial *t, uint32_t d[128][128], const char *what) {
  const EmuWgmma *op = &c->op;
  bool integer = op->atype == EMU_WG_S8 || op->atype == EMU_WG_U8;
  Mode th = {3, {4, 8, 4}, {128, 1, 16}}, cv = {3, {2, 2, 32}, {64, 8, 512}};
  int bad = 0;
  for (int th_i = 0; th_i < 128; th_i++)
    for (int i = 0; i < op->n / 2; i++) {
      long o = tv(&th, &cv, th_i, i);
      int m = (int)(o % 64), n = (int)(o / 64);
      double got;
      if (op->f16_d) got = emu_f16_value((d[th_i][i / 2] >> (16 * (i % 2))) & 0xffff);
      else if (integer) got = (int32_t)d[th_i][i];
      else {
        float f;
        memcpy(&f, &d[th_i][i], 4);
        got = f;
      }
      if (got != t->want[m][n] && bad++ < 3)
        fprintf(stderr, "%s, %s: D[%d][%d] is %g, expected %g\n", what, c->name, m, n, got, t->want[m][n]);
    }
  return bad;
}

#endif
