/* test_mma.c — the warp-level models of mma.sync and ldmatrix (emu/mma.h)
 * against the PTX ISA's fragment figures, restated here on their own.
 *
 * emu/mma.c maps each element index of a fragment to its row and column by
 * the ISA's formulas. Here the same facts are written the other way the ISA
 * gives them, as its figures draw them: register by register, which row and
 * column each slot of a register holds, as an offset from groupID (g) and a
 * multiple of threadID_in_group (t); a few lanes' entries are spelt out as
 * literal coordinates, and each table must cover its matrix exactly once.
 * Random matrices are scattered into fragments through these tables, the
 * model runs, D is gathered through the C table and compared with a plain
 * triple loop. The values are small enough that every sum is exact, so any
 * order of accumulation gives the same bits.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emu/mma.h"
#include "unit.h"

static uint32_t rng = 0x9e3779b9u;
static uint32_t next_u32(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}
/* an integer in [lo, hi] */
static int rand_int(int lo, int hi) { return lo + (int)(next_u32() % (uint32_t)(hi - lo + 1)); }

/* ---- the figures, register by register ------------------------------------------------------ */

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
static void where(const Figure *f, bool b, int l, int r, int s, int *row, int *col) {
  int g = l >> 2, t = l & 3;
  if (b) {
    *row = t * f->t_step + f->at[r][s].row_off;
    *col = g;
  } else {
    *row = g + f->at[r][s].row_off;
    *col = t * f->t_step + f->at[r][s].col_off;
  }
}

/* Every element of the rows x cols matrix is held by exactly one slot of one lane. */
static void check_covers(const Figure *f, bool b, int rows, int cols) {
  int seen[32][32] = {{0}};
  for (int l = 0; l < 32; l++)
    for (int r = 0; r < f->regs; r++)
      for (int s = 0; s < f->slots; s++) {
        int row, col;
        where(f, b, l, r, s, &row, &col);
        CHECK(row >= 0 && row < rows && col >= 0 && col < cols);
        if (row >= 0 && row < rows && col >= 0 && col < cols) seen[row][col]++;
      }
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) CHECK(seen[i][j] == 1);
}

static bool at_is(const Figure *f, bool b, int l, int r, int s, int row, int col) {
  int rr, cc;
  where(f, b, l, r, s, &rr, &cc);
  return rr == row && cc == col;
}

/* A few entries read off the figures for lanes 0, 5 (g 1, t 1) and 31 (g 7, t 3). */
static void test_figures(void) {
  check_covers(&a_k16, false, 16, 16);
  check_covers(&b_k16, true, 16, 8);
  check_covers(&a_k8, false, 16, 8);
  check_covers(&b_k8, true, 8, 8);
  check_covers(&a_k32, false, 16, 32);
  check_covers(&b_k32, true, 32, 8);
  check_covers(&c_f32, false, 16, 8);
  check_covers(&c_f16, false, 16, 8);
  CHECK(at_is(&a_k16, false, 0, 0, 1, 0, 1));   /* T0 a1 */
  CHECK(at_is(&a_k16, false, 5, 3, 0, 9, 10));  /* T5 a6 */
  CHECK(at_is(&a_k16, false, 31, 2, 1, 7, 15)); /* T31 a5 */
  CHECK(at_is(&b_k16, true, 5, 1, 1, 11, 1));   /* T5 b3 */
  CHECK(at_is(&b_k16, true, 31, 0, 0, 6, 7));   /* T31 b0 */
  CHECK(at_is(&a_k8, false, 5, 1, 0, 9, 1));    /* T5 a1 */
  CHECK(at_is(&a_k8, false, 31, 2, 0, 7, 7));   /* T31 a2 */
  CHECK(at_is(&b_k8, true, 31, 1, 0, 7, 7));    /* T31 b1 */
  CHECK(at_is(&a_k32, false, 5, 2, 3, 1, 23));  /* T5 a11 */
  CHECK(at_is(&a_k32, false, 31, 3, 3, 15, 31)); /* T31 a15 */
  CHECK(at_is(&b_k32, true, 5, 1, 2, 22, 1));   /* T5 b6 */
  CHECK(at_is(&c_f32, false, 5, 2, 0, 9, 2));   /* T5 c2 */
  CHECK(at_is(&c_f32, false, 31, 3, 0, 15, 7)); /* T31 c3 */
  CHECK(at_is(&c_f16, false, 31, 1, 1, 15, 7)); /* T31 c3, the high half of the second register */
}

/* ---- element encodings -------------------------------------------------------------------------- */

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
/* binary16 of a value that has one: normal, small, exact */
static uint32_t f16_bits(double v) {
  if (v == 0) return signbit(v) ? 0x8000 : 0;
  uint32_t sign = v < 0 ? 0x8000 : 0;
  int e;
  double f = frexp(fabs(v), &e); /* f in [0.5, 1) */
  uint32_t mant = (uint32_t)ldexp(f, 11);
  return sign | (uint32_t)(e + 14) << 10 | (mant & 0x3ff);
}
static double f16_double(uint32_t h) {
  int e = (h >> 10) & 0x1f;
  double m = e ? (h & 0x3ff) | 0x400 : (h & 0x3ff);
  double v = ldexp(m, (e ? e : 1) - 25);
  return (h & 0x8000) ? -v : v;
}

/* ---- mma against the triple loop -------------------------------------------------------------- */

typedef enum Elem { E_F16, E_BF16, E_TF32, E_S8, E_U8 } Elem;

/* The bits of value v (an integer for s8/u8) in a slot of `bits` bits. */
static uint32_t encode(Elem e, double v) {
  switch (e) {
  case E_F16: return f16_bits(v);
  case E_BF16: return f32_bits((float)v) >> 16; /* the values here have at most 8 significant bits */
  case E_TF32: return f32_bits((float)v) | (next_u32() & 0x1fff); /* bits tf32 ignores: noise */
  default: return (uint32_t)(int)v & 0xff;
  }
}

/* Scatters matrix m (rows x cols, row-major) into lane registers through figure f. */
static void scatter(const Figure *f, bool b, Elem e, const double *m, int cols, uint32_t *regs, int stride) {
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
};

static double random_value(Elem e) {
  switch (e) {
  case E_S8: return rand_int(-128, 127);
  case E_U8: return rand_int(0, 255);
  default: return rand_int(-8, 8) / 4.0; /* quarters up to 2: sums of sixteenths below 80, exact even in f16 */
  }
}

static int run_case(const Case *cs, int trial) {
  enum { M = 16, N = 8 };
  int K = cs->K, bad = 0;
  double A[16 * 32], B[32 * 8], C[M * N];
  for (int i = 0; i < M * K; i++) A[i] = random_value(cs->a);
  for (int i = 0; i < K * N; i++) B[i] = random_value(cs->b);
  for (int i = 0; i < M * N; i++)
    C[i] = cs->integer ? (double)(int32_t)next_u32() : rand_int(-64, 64) / 4.0; /* any s32: the sum may wrap */
  uint32_t a[32][4], b[32][2], c[32][4] = {{0}}, d[32][4];
  scatter(cs->fa, false, cs->a, A, K, &a[0][0], 4);
  scatter(cs->fb, true, cs->b, B, N, &b[0][0], 2);
  for (int l = 0; l < 32; l++)
    for (int r = 0; r < cs->fc->regs; r++)
      for (int s = 0; s < cs->fc->slots; s++) {
        int row, col;
        where(cs->fc, false, l, r, s, &row, &col);
        double v = C[row * N + col];
        c[l][r] |= cs->c_f16 ? f16_bits(v) << (16 * s) : cs->integer ? (uint32_t)(int32_t)v : f32_bits((float)v);
      }
  emu_mma_warp(cs->kind, (const uint32_t(*)[4])a, (const uint32_t(*)[2])b, (const uint32_t(*)[4])c, d);
  for (int l = 0; l < 32; l++)
    for (int r = 0; r < cs->fc->regs; r++)
      for (int s = 0; s < cs->fc->slots; s++) {
        int row, col;
        where(cs->fc, false, l, r, s, &row, &col);
        bool ok;
        if (cs->integer) {
          int64_t want = (int64_t)C[row * N + col];
          for (int k = 0; k < K; k++) want += (int64_t)A[row * K + k] * (int64_t)B[k * N + col];
          ok = d[l][r] == (uint32_t)want; /* modulo 2^32 */
        } else {
          double want = C[row * N + col];
          for (int k = 0; k < K; k++) want += A[row * K + k] * B[k * N + col];
          double got = cs->c_f16 ? f16_double((d[l][r] >> (16 * s)) & 0xffff) : bits_f32(d[l][r]);
          ok = got == want;
        }
        if (!ok && bad++ < 3)
          fprintf(stderr, "mma.%s, trial %d: lane %d register %d slot %d (D[%d][%d]) is wrong\n",
                  emu_mma_name(cs->kind), trial, l, r, s, row, col);
      }
  return bad;
}

static void test_mma(void) {
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    for (int trial = 0; trial < 20; trial++) CHECK(run_case(&cases[i], trial) == 0);
}

/* D aliasing C, and the f16 accumulator rounded once to nearest even:
 * 2048 + 1 ties to 2048, 2048 + 3 to 2052. */
static void test_mma_edges(void) {
  uint32_t a[32][4] = {{0}}, b[32][2] = {{0}}, cd[32][4] = {{0}};
  /* row 0 of A: A[0][0] = 32 (lane 0 a0), A[0][1] = 1 (lane 0 a1); column 0 of
   * B: B[0][0] = 64 (lane 0 b0), B[1][0] = 1 (lane 0 b1) */
  a[0][0] = f16_bits(32) | f16_bits(1) << 16;
  b[0][0] = f16_bits(64) | f16_bits(1) << 16;
  cd[0][0] = f16_bits(0) | f16_bits(0) << 16;
  emu_mma_warp(EMU_MMA_F16_F16, (const uint32_t(*)[4])a, (const uint32_t(*)[2])b, (const uint32_t(*)[4])cd, cd);
  CHECK(f16_double(cd[0][0] & 0xffff) == 2048); /* 2049 */
  a[0][0] = f16_bits(32) | f16_bits(3) << 16;
  memset(cd, 0, sizeof cd);
  emu_mma_warp(EMU_MMA_F16_F16, (const uint32_t(*)[4])a, (const uint32_t(*)[2])b, (const uint32_t(*)[4])cd, cd);
  CHECK(f16_double(cd[0][0] & 0xffff) == 2052); /* 2051 */
  /* f32: D = C in place when A is zero, every lane */
  memset(a, 0, sizeof a);
  for (int l = 0; l < 32; l++)
    for (int r = 0; r < 4; r++) cd[l][r] = f32_bits((float)(l * 4 + r) + 0.5f);
  emu_mma_warp(EMU_MMA_F32_F16, (const uint32_t(*)[4])a, (const uint32_t(*)[2])b, (const uint32_t(*)[4])cd, cd);
  for (int l = 0; l < 32; l++)
    for (int r = 0; r < 4; r++) CHECK(bits_f32(cd[l][r]) == (float)(l * 4 + r) + 0.5f);
  CHECK(emu_mma_kind("m16n8k8.row.col.f32.tf32.tf32.f32", 33) == EMU_MMA_F32_TF32);
  CHECK(emu_mma_kind("m16n8k8.row.col.f32.tf32.tf32.f3", 32) == -1);
}

/* ---- ldmatrix against a plain read of 8x8 matrices ---------------------------------------------- */

typedef struct Mem {
  unsigned char bytes[64 * 16]; /* 64 rows of 16 bytes */
  int reads;
  bool wrong_lane; /* a row was read for a lane that gives no address */
  int num;
} Mem;

static bool read_row(void *ctx, int lane, const void *row, unsigned char out[16]) {
  Mem *m = ctx;
  m->reads++;
  if (lane >= 8 * m->num) m->wrong_lane = true;
  memcpy(out, row, 16);
  return true;
}

/* The ISA's figure from the element's side: row r, column c of an 8x8
 * matrix goes to lane 4r + c/2, in the low half for even c; with .trans, to
 * lane 4c + r/2, in the low half for even r. */
static void test_ldmatrix(void) {
  for (int num = 1; num <= 4; num *= 2)
    for (int trans = 0; trans < 2; trans++) {
      Mem mem = {.num = num};
      for (size_t i = 0; i < sizeof mem.bytes; i++) mem.bytes[i] = (unsigned char)next_u32();
      /* rows scattered over the buffer, in a shuffled order */
      int slot[64];
      for (int i = 0; i < 64; i++) slot[i] = i;
      for (int i = 63; i > 0; i--) {
        int j = (int)(next_u32() % (uint32_t)(i + 1)), t = slot[i];
        slot[i] = slot[j];
        slot[j] = t;
      }
      const void *rows[32];
      for (int l = 0; l < 32; l++) rows[l] = l < 8 * num ? mem.bytes + 16 * slot[l] : NULL;
      uint32_t out[32][4];
      memset(out, 0xab, sizeof out);
      CHECK(emu_ldmatrix_warp(num, trans, rows, read_row, &mem, out));
      CHECK(mem.reads == 8 * num);
      CHECK(!mem.wrong_lane);
      for (int m = 0; m < num; m++)
        for (int r = 0; r < 8; r++)
          for (int c = 0; c < 8; c++) {
            const unsigned char *p = mem.bytes + 16 * slot[8 * m + r] + 2 * c;
            uint32_t want = p[0] | p[1] << 8;
            int lane = trans ? 4 * c + r / 2 : 4 * r + c / 2, half = trans ? r % 2 : c % 2;
            CHECK(((out[lane][m] >> (16 * half)) & 0xffff) == want);
          }
      for (int l = 0; l < 32; l++)
        for (int m = num; m < 4; m++) CHECK(out[l][m] == 0xabababab); /* registers past num untouched */
      /* spelt out: lane 0 gets row 0's first two elements, lane 31 row 7's
       * last two; with .trans, lane 1 gets column 0's elements 2 and 3 */
      const unsigned char *r0 = mem.bytes + 16 * slot[0], *r7 = mem.bytes + 16 * slot[7];
      const unsigned char *r2 = mem.bytes + 16 * slot[2], *r3 = mem.bytes + 16 * slot[3];
      if (!trans) {
        CHECK(out[0][0] == (uint32_t)(r0[0] | r0[1] << 8 | r0[2] << 16 | (uint32_t)r0[3] << 24));
        CHECK(out[31][0] == (uint32_t)(r7[12] | r7[13] << 8 | r7[14] << 16 | (uint32_t)r7[15] << 24));
      } else {
        CHECK(out[1][0] == (uint32_t)(r2[0] | r2[1] << 8 | r3[0] << 16 | (uint32_t)r3[1] << 24));
      }
    }
}

int unit_main(void) {
  test_figures();
  test_mma();
  test_mma_edges();
  test_ldmatrix();
  return 0;
}
