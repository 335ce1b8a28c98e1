/*
 * test_wgmma.c — the warpgroup model of wgmma.mma_async (emu/wgmma.h) held
 * to the PTX ISA's own statements, written here apart from the model:
 *   - the descriptor, field by field at the bit positions of the ISA's
 *     "Matrix Descriptor Format" table;
 *   - every canonical layout of the ISA's table ("Canonical Layouts": the
 *     shapes and strides of K-major and MN-major, none/32B/64B/128B, in
 *     CuTe's notation, evaluated here by a general evaluator of such
 *     layouts), and the ISA's worked examples with their encoded LBO/SBO;
 *   - the swizzle against the ISA's tables of 16-byte chunks per 128-byte
 *     line ("Swizzling Modes": 32B, 64B, 128B);
 *   - the fragments against CUTLASS's thread-value layouts of the same
 *     instruction (CLayout_64xN, ALayout_64x16/64x8/64x32), evaluated the
 *     same general way, and against mma.sync's figures for one warp
 *     (unit/mma_figures.h);
 *   - whole instructions: random matrices placed in a shared memory image
 *     by the ISA's layouts and in registers by those thread-value layouts,
 *     D gathered back the same way and compared with a triple loop (values
 *     whose sums are exact), for every type, both majors, every swizzle, A
 *     in registers, scale-d, imm-scale, satfinite; and what the model
 *     refuses.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emu/wgmma.h"
#include "mma_figures.h"
#include "unit.h"
#include "wgmma_layouts.h"

static void test_descriptor(void) {
  /* bits 13-0 start, 29-16 LBO, 45-32 SBO, each (x & 0x3FFFF) >> 4; 51-49 base offset; 63-62 swizzle */
  uint64_t d = (uint64_t)(0x2340 >> 4) | (uint64_t)(0x100 >> 4) << 16 | (uint64_t)(0x400 >> 4) << 32 | 5ULL << 49 | 1ULL << 62;
  EmuWgDesc e = emu_wgmma_desc(d);
  CHECK(e.start == 0x2340 && e.lbo == 0x100 && e.sbo == 0x400 && e.base_offset == 5 && e.swizzle == 128);
  CHECK(emu_wgmma_desc(2ULL << 62).swizzle == 64 && emu_wgmma_desc(3ULL << 62).swizzle == 32 &&
        emu_wgmma_desc(0).swizzle == 0);
  /* the fields are 14 bits: the highest start address is 0x3fff0 */
  CHECK(emu_wgmma_desc(0x3fff).start == 0x3fff0 && emu_wgmma_desc(0x3fffULL << 16).lbo == 0x3fff0 &&
        emu_wgmma_desc(0x3fffULL << 32).sbo == 0x3fff0);
  /* the bits between the fields are not read */
  CHECK(emu_wgmma_desc(0xc000ULL | 0xc0000000ULL | 7ULL << 46 | 0x3ffULL << 52).start == 0);
}

static void test_layouts(void) {
  /* every canonical layout, for each element size, against the model */
  for (int mn_major = 0; mn_major < 2; mn_major++)
    for (int B = 0; B < 4; B++)
      for (int bits = 8; bits <= 32; bits *= 2) {
        int K = 256 / bits; /* one instruction's K */
        uint32_t start = 0x4000 + (B ? 0 : 0x30); /* a swizzled pattern at its boundary */
        long W = 16L << B;
        /* LBO and SBO: past what one block or atom spans, as a kernel lays several side by side */
        long lbo = mn_major ? (B ? 8 * W * 2 : 8 * 16 * 3) : (B ? 16 : 8 * 16 * 5);
        long sbo = mn_major ? (B ? 8 * W * 3 : 16 * 7 + 16) : (B ? 8 * W * 2 : 8 * 16 * 2);
        EmuWgDesc d = emu_wgmma_desc(descriptor(start, (uint32_t)lbo, (uint32_t)sbo, 0, mode_of(B)));
        int bad = 0;
        for (int mn = 0; mn < 64; mn++)
          for (int k = 0; k < K; k++)
            bad += emu_wgmma_address(&d, mn_major, bits, mn, k) !=
                   isa_address(mn_major, B, bits, start, lbo, sbo, mn, k);
        if (bad) fprintf(stderr, "layout %s-major, swizzle %d, %d-bit: %d addresses differ\n", mn_major ? "MN" : "K",
                         B ? 16 << B : 0, bits, bad);
        CHECK(bad == 0);
      }
  /* the ISA's worked examples, from their exact layouts and encoded LBO/SBO */
  struct {
    bool mn_major;
    int B, bits, enc_lbo, enc_sbo;
    Mode mn, k;
  } ex[] = {
      /* K-major, no swizzle, tf32: ((8,2),(4,4)):((4,32),(1,64)) */
      {false, 0, 32, 16, 8, {2, {8, 2}, {4, 32}}, {2, {4, 4}, {1, 64}}},
      /* K-major, 32B, tf32: ((8,2),(4,4)):((8,64),(1,4)) */
      {false, 1, 32, 1, 16, {2, {8, 2}, {8, 64}}, {2, {4, 4}, {1, 4}}},
      /* MN-major, no swizzle, bf16: ((8,1,2),(8,2)):((1,8,64),(8,128)) */
      {true, 0, 16, 16, 8, {3, {8, 1, 2}, {1, 8, 64}}, {2, {8, 2}, {8, 128}}},
      /* MN-major, 32B, bf16: ((8,2,2),(8,2)):((1,8,128),(16,256)) */
      {true, 1, 16, 16, 32, {3, {8, 2, 2}, {1, 8, 128}}, {2, {8, 2}, {16, 256}}},
      /* MN-major, 64B, bf16: ((8,4,2),(8,2)):((1,8,256),(32,512)) */
      {true, 2, 16, 32, 64, {3, {8, 4, 2}, {1, 8, 256}}, {2, {8, 2}, {32, 512}}},
  };
  for (size_t e = 0; e < sizeof ex / sizeof ex[0]; e++) {
    uint32_t start = 0x8000;
    EmuWgDesc d = emu_wgmma_desc(descriptor(start, (uint32_t)ex[e].enc_lbo << 4, (uint32_t)ex[e].enc_sbo << 4, 0,
                                            mode_of(ex[e].B)));
    long rows = 1, cols = 1, eb = ex[e].bits / 8;
    for (int i = 0; i < ex[e].mn.n; i++) rows *= ex[e].mn.size[i];
    for (int i = 0; i < ex[e].k.n; i++) cols *= ex[e].k.size[i];
    int bad = 0;
    for (int mn = 0; mn < rows; mn++)
      for (int k = 0; k < cols; k++) {
        long want = swizzle(ex[e].B, 4, 3, start + (eval_mode(&ex[e].mn, mn) + eval_mode(&ex[e].k, k)) * eb);
        bad += emu_wgmma_address(&d, ex[e].mn_major, ex[e].bits, mn, k) != (uint32_t)want;
      }
    if (bad) fprintf(stderr, "the ISA's example %zu: %d addresses differ\n", e, bad);
    CHECK(bad == 0);
  }
}

/* The ISA's swizzle tables: which 16-byte chunk of the data each chunk of a 128-byte line holds, line by line
 * until the pattern repeats. */
static const int sw32[2][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 3, 2, 5, 4, 7, 6}};
static const int sw64[4][8] = {
    {0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 3, 2, 5, 4, 7, 6}, {2, 3, 0, 1, 6, 7, 4, 5}, {3, 2, 1, 0, 7, 6, 5, 4}};
static const int sw128[8][8] = {{0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 3, 2, 5, 4, 7, 6}, {2, 3, 0, 1, 6, 7, 4, 5},
                                {3, 2, 1, 0, 7, 6, 5, 4}, {4, 5, 6, 7, 0, 1, 2, 3}, {5, 4, 7, 6, 1, 0, 3, 2},
                                {6, 7, 4, 5, 2, 3, 0, 1}, {7, 6, 5, 4, 3, 2, 1, 0}};

static void test_swizzle_tables(void) {
  /* K-major 16-bit data: atom row r is W contiguous bytes, rows one after another, so line L of the
   * unswizzled data holds bytes 128L..128L+127; chunk c of that line is data chunk (8L + c). The table
   * says which data chunk lands in each chunk of the line. */
  const int(*tables[3])[8] = {sw32, sw64, sw128};
  int periods[3] = {2, 4, 8};
  for (int B = 1; B <= 3; B++) {
    int W = 16 << B, rows_per_line = 128 / W, bad = 0;
    EmuWgDesc d = emu_wgmma_desc(descriptor(0x10000, 16, (uint32_t)(8 * W), 0, mode_of(B)));
    for (int line = 0; line < 16; line++)
      for (int c = 0; c < 8; c++) {
        /* data chunk (line, c): atom row line * rows_per_line + c / (W / 16), 16-byte chunk c % (W / 16) of it */
        int row = line * rows_per_line + c / (W / 16), chunk = c % (W / 16);
        uint32_t a = emu_wgmma_address(&d, false, 16, row, chunk * 8);
        int slot = (int)((a - 0x10000) % 128 / 16), got_line = (int)((a - 0x10000) / 128);
        bad += got_line != line || tables[B - 1][line % periods[B - 1]][slot] != c;
      }
    if (bad) fprintf(stderr, "swizzle %dB: %d chunks differ from the ISA's table\n", W, bad);
    CHECK(bad == 0);
  }
}

/* ---- fragments ---- */

static void test_fragments(void) {
  Mode threads = {3, {4, 8, 4}, {128, 1, 16}};
  Mode cv = {3, {2, 2, 32}, {64, 8, 512}};               /* CLayout_64xN, N = 256 */
  Mode a8 = {3, {4, 8, 4}, {64, 1, 16}}, a8v = {2, {2, 2}, {8, 256}}; /* ALayout_64x8 (tf32) */
  Mode a32 = {3, {4, 8, 4}, {256, 1, 16}}, a32v = {3, {4, 2, 2}, {64, 8, 1024}}; /* ALayout_64x32 (8-bit) */
  int bad = 0;
  for (int t = 0; t < 128; t++) {
    int row, col;
    for (int i = 0; i < 128; i++) {
      long o = tv(&threads, &cv, t, i);
      emu_wgmma_d_pos(t, i, &row, &col);
      bad += row != o % 64 || col != o / 64;
    }
    for (int i = 0; i < 8; i++) { /* ALayout_64x16 = CLayout_64x16 */
      long o = tv(&threads, &cv, t, i);
      emu_wgmma_a_pos(EMU_WG_F16, t, i, &row, &col);
      bad += row != o % 64 || col != o / 64;
    }
    for (int i = 0; i < 4; i++) {
      long o = tv(&a8, &a8v, t, i);
      emu_wgmma_a_pos(EMU_WG_TF32, t, i, &row, &col);
      bad += row != o % 64 || col != o / 64;
    }
    for (int i = 0; i < 16; i++) {
      long o = tv(&a32, &a32v, t, i);
      emu_wgmma_a_pos(EMU_WG_S8, t, i, &row, &col);
      bad += row != o % 64 || col != o / 64;
    }
  }
  CHECK(bad == 0);
  /* one warp's rows and one 8-column block of D are mma.sync's m16n8 C fragment (the ISA's figure) */
  bad = 0;
  for (int w = 0; w < 4; w++)
    for (int lane = 0; lane < 32; lane++)
      for (int blk = 0; blk < 32; blk++)
        for (int j = 0; j < 4; j++) {
          int row, col;
          emu_wgmma_d_pos(32 * w + lane, 4 * blk + j, &row, &col);
          const Slot *s = &c_f32.at[j][0];
          bad += row != 16 * w + lane / 4 + s->row_off || col != 8 * blk + (lane % 4) * c_f32.t_step + s->col_off;
        }
  /* and one warp's rows of A are mma.sync's A fragments: m16n8k16, m16n8k8 (tf32), m16n8k32 (8-bit) */
  struct {
    EmuWgType type;
    const Figure *f;
  } as[] = {{EMU_WG_F16, &a_k16}, {EMU_WG_TF32, &a_k8}, {EMU_WG_E4M3, &a_k32}};
  for (int x = 0; x < 3; x++)
    for (int w = 0; w < 4; w++)
      for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < as[x].f->regs * as[x].f->slots; i++) {
          int row, col;
          emu_wgmma_a_pos(as[x].type, 32 * w + lane, i, &row, &col);
          const Slot *s = &as[x].f->at[i / as[x].f->slots][i % as[x].f->slots];
          bad += row != 16 * w + lane / 4 + s->row_off || col != (lane % 4) * as[x].f->t_step + s->col_off;
        }
  CHECK(bad == 0);
}

/* ---- whole instructions ---- */

static unsigned char smem[WG_SMEM];

static bool read_smem(void *ctx, uint32_t address, void *out, int bytes) {
  int *reads = ctx;
  if (address + (uint32_t)bytes > sizeof smem) return false;
  memcpy(out, smem + address, (size_t)bytes);
  (*reads)++;
  return true;
}

static bool read_fails(void *ctx, uint32_t address, void *out, int bytes) {
  (void)ctx, (void)address, (void)out, (void)bytes;
  return false;
}

static int run_case(const WgCase *c) {
  static WgTrial t;
  wg_trial_make(c, &t);
  memcpy(smem, t.smem, sizeof smem);
  int reads = 0;
  const char *why = NULL;
  if (!emu_wgmma(&c->op, t.a, t.a_desc, t.b_desc, t.d, read_smem, &reads, &why)) {
    fprintf(stderr, "%s: refused: %s\n", c->name, why);
    return 1;
  }
  return wg_trial_check(c, &t, t.d, "emu_wgmma") != 0;
}

static void test_instructions(void) {
  const WgCase wg_cases[] = {
      {"f16, K-major, 128B, N=64", {.n = 64, .atype = EMU_WG_F16, .btype = EMU_WG_F16, .scale_d = true}, 3, 3},
      {"bf16, MN-major B, 64B, N=128",
       {.n = 128, .atype = EMU_WG_BF16, .btype = EMU_WG_BF16, .trans_b = true, .scale_d = true}, 2, 2},
      {"f16, MN-major A and B, 32B, N=24",
       {.n = 24, .atype = EMU_WG_F16, .btype = EMU_WG_F16, .trans_a = true, .trans_b = true, .scale_d = true}, 1, 1},
      {"f16, MN-major, no swizzle, N=16",
       {.n = 16, .atype = EMU_WG_F16, .btype = EMU_WG_F16, .trans_a = true, .trans_b = true, .scale_d = true}, 0, 0},
      {"f16, K-major, no swizzle, N=8", {.n = 8, .atype = EMU_WG_F16, .btype = EMU_WG_F16, .scale_d = true}, 0, 0},
      {"f16 A in registers, N=256, f16 accumulator",
       {.n = 256, .atype = EMU_WG_F16, .btype = EMU_WG_F16, .a_in_registers = true, .f16_d = true, .scale_d = true}, 0, 3},
      {"bf16, scale-d false, -A", {.n = 32, .atype = EMU_WG_BF16, .btype = EMU_WG_BF16, .neg_a = true}, 3, 1},
      {"tf32, 32B, -B, N=40", {.n = 40, .atype = EMU_WG_TF32, .btype = EMU_WG_TF32, .neg_b = true, .scale_d = true}, 1, 1},
      {"tf32 A in registers, N=8", {.n = 8, .atype = EMU_WG_TF32, .btype = EMU_WG_TF32, .a_in_registers = true, .scale_d = true}, 0, 2},
      {"e4m3 x e5m2, 128B, N=64", {.n = 64, .atype = EMU_WG_E4M3, .btype = EMU_WG_E5M2, .scale_d = true}, 3, 3},
      {"e5m2 A in registers, f16 accumulator, N=16",
       {.n = 16, .atype = EMU_WG_E5M2, .btype = EMU_WG_E5M2, .a_in_registers = true, .f16_d = true, .scale_d = true}, 0, 0},
      {"s8 x u8, 64B, N=48", {.n = 48, .atype = EMU_WG_S8, .btype = EMU_WG_U8, .scale_d = true, .satfinite = true}, 2, 2},
      {"u8 A in registers, N=32", {.n = 32, .atype = EMU_WG_U8, .btype = EMU_WG_U8, .a_in_registers = true, .scale_d = true}, 0, 1},
  };
  for (size_t i = 0; i < sizeof wg_cases / sizeof wg_cases[0]; i++) CHECK(run_case(&wg_cases[i]) == 0);
}

static void test_refusals(void) {
  static uint32_t a[128][4], d[128][128];
  const char *why = NULL;
  int reads = 0;
  EmuWgmma tf32_trans = {.n = 8, .atype = EMU_WG_TF32, .btype = EMU_WG_TF32, .trans_b = true};
  CHECK(!emu_wgmma(&tf32_trans, a, 0, 0, d, read_smem, &reads, &why));
  CHECK_CONTAINS(why, "a transpose of a type other than f16 and bf16");
  EmuWgmma ok = {.n = 8, .atype = EMU_WG_F16, .btype = EMU_WG_F16};
  CHECK(!emu_wgmma(&ok, a, 0, descriptor(0x8000, 16, 128, 3, 1), d, read_smem, &reads, &why));
  CHECK_CONTAINS(why, "base offset");
  EmuWgmma n = {.n = 12, .atype = EMU_WG_F16, .btype = EMU_WG_F16};
  CHECK(!emu_wgmma(&n, a, 0, 0, d, read_smem, &reads, &why));
  CHECK_CONTAINS(why, "N is not one");
  EmuWgmma mixed = {.n = 8, .atype = EMU_WG_F16, .btype = EMU_WG_BF16};
  CHECK(!emu_wgmma(&mixed, a, 0, 0, d, read_smem, &reads, &why));
  EmuWgmma bf16_f16d = {.n = 8, .atype = EMU_WG_BF16, .btype = EMU_WG_BF16, .f16_d = true};
  CHECK(!emu_wgmma(&bf16_f16d, a, 0, 0, d, read_smem, &reads, &why));
  /* a failed read leaves D alone */
  d[5][1] = 0x12345678;
  CHECK(!emu_wgmma(&ok, a, 0, 0, d, read_fails, NULL, &why));
  CHECK_CONTAINS(why, "a read of A from shared memory failed");
  CHECK(d[5][1] == 0x12345678);
  /* reads go by 16-byte chunk: each warp reads its 16 rows of A (16 x 32 bytes) and all of B (8 x 32
   * bytes), 48 chunks, four times */
  reads = 0;
  CHECK(emu_wgmma(&ok, a, descriptor(0x2000, 128 * 8, 128, 0, 0), descriptor(0x8000, 128 * 8, 128, 0, 0), d, read_smem,
                  &reads, &why));
  CHECK(reads == 192);
}

int unit_main(void) {
  test_descriptor();
  test_layouts();
  test_swizzle_tables();
  test_fragments();
  test_instructions();
  test_refusals();
  return unit_failures != 0;
}
