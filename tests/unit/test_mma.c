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
#include "mma_figures.h"
#include "unit.h"

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

/* ---- mma against the triple loop ------------------------------------------------------------------ */

static void test_mma(void) {
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    for (int trial = 0; trial < 20; trial++) {
      MmaTrial t;
      mma_trial_make(&cases[i], &t);
      uint32_t d[32][4];
      emu_mma_warp(cases[i].kind, (const uint32_t(*)[4])t.a, (const uint32_t(*)[2])t.b, (const uint32_t(*)[4])t.c, d);
      char what[96];
      snprintf(what, sizeof what, "mma.%s, trial %d", emu_mma_name(cases[i].kind), trial);
      CHECK(mma_trial_check(&cases[i], &t, (const uint32_t(*)[4])d, what) == 0);
    }
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
      for (size_t i = 0; i < sizeof mem.bytes; i++) mem.bytes[i] = (unsigned char)mma_next_u32();
      /* rows scattered over the buffer, in a shuffled order */
      int slot[64];
      for (int i = 0; i < 64; i++) slot[i] = i;
      for (int i = 63; i > 0; i--) {
        int j = (int)(mma_next_u32() % (uint32_t)(i + 1)), t = slot[i];
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
