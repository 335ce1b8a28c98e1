/*
 * test_mma.c — mma.sync and ldmatrix as the running emulator binds them
 * (tilec.emu.mma.*, tilec.emu.ldmatrix.*): each thread of a hand-written
 * kernel passes its own registers, in memory, and the warp meets.
 *
 * mma: every variant on two warps at once, each warp its own random
 * matrices scattered into the threads' registers through the ISA's figures
 * (tests/unit/mma_figures.h), D gathered back and compared with a triple
 * loop; the lanes of a warp call from two places in the program, and a
 * seeded order of the threads changes nothing. ldmatrix: x1, x2, x4, with
 * and without .trans, rows at scattered addresses of shared memory that
 * the block wrote, against plain reads of the 8x8 matrices. And what is
 * reported: a lane that returned before the mma (a deadlock naming it), the
 * two halves of a warp in different variants (divergent), and row addresses
 * of ldmatrix that are misaligned or that nothing wrote, naming the thread
 * that gave them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "tilec/tilec.h"
#include "emu_test.h"
#include "../unit/mma_figures.h"

/* ---- mma ------------------------------------------------------------------------------------------- */

/* in: per thread 10 words (a0-a3, b0-b1, c0-c3); out: per thread 4 words of
 * D. Lanes 0-15 of each warp call `first`, lanes 16-31 `second`; thread
 * `quit` returns first (-1: none). */
static char *mma_kernel(const char *first, const char *second, int quit) {
  static char ir[4096];
  snprintf(ir, sizeof ir,
           "@tilec_emu_shared_bytes = constant i64 0\n"
           "@tilec_emu_sites = constant [1 x i8] zeroinitializer\n"
           "declare i32 @tilec.emu.tid.x()\n"
           "declare void @tilec.emu.mma.%s(ptr, ptr, ptr, ptr)\n"
           "%s%s%s"
           "define void @tilec_emu_entry(ptr %%args) {\n"
           "  %%p0 = load ptr, ptr %%args\n"
           "  %%in = load ptr, ptr %%p0\n"
           "  %%q1 = getelementptr ptr, ptr %%args, i64 1\n"
           "  %%p1 = load ptr, ptr %%q1\n"
           "  %%out = load ptr, ptr %%p1\n"
           "  %%tid = call i32 @tilec.emu.tid.x()\n"
           "  %%ra = alloca [4 x i32], align 16\n"
           "  %%rb = alloca [2 x i32], align 16\n"
           "  %%rc = alloca [4 x i32], align 16\n"
           "  %%rd = alloca [4 x i32], align 16\n"
           "  %%t10 = mul i32 %%tid, 10\n"
           "  %%sa = getelementptr i32, ptr %%in, i32 %%t10\n"
           "  %%va = load <4 x i32>, ptr %%sa, align 4\n"
           "  store <4 x i32> %%va, ptr %%ra\n"
           "  %%sb = getelementptr i32, ptr %%sa, i32 4\n"
           "  %%vb = load <2 x i32>, ptr %%sb, align 4\n"
           "  store <2 x i32> %%vb, ptr %%rb\n"
           "  %%sc = getelementptr i32, ptr %%sa, i32 6\n"
           "  %%vc = load <4 x i32>, ptr %%sc, align 4\n"
           "  store <4 x i32> %%vc, ptr %%rc\n"
           "  store <4 x i32> zeroinitializer, ptr %%rd\n"
           "  %%quit = icmp eq i32 %%tid, %d\n"
           "  br i1 %%quit, label %%done, label %%go\n"
           "go:\n"
           "  %%lane = and i32 %%tid, 31\n"
           "  %%hi = icmp uge i32 %%lane, 16\n"
           "  br i1 %%hi, label %%second, label %%first\n"
           "first:\n"
           "  call void @tilec.emu.mma.%s(ptr %%rd, ptr %%ra, ptr %%rb, ptr %%rc)\n"
           "  br label %%store\n"
           "second:\n"
           "  call void @tilec.emu.mma.%s(ptr %%rd, ptr %%ra, ptr %%rb, ptr %%rc)\n"
           "  br label %%store\n"
           "store:\n"
           "  %%t4 = mul i32 %%tid, 4\n"
           "  %%so = getelementptr i32, ptr %%out, i32 %%t4\n"
           "  %%vd = load <4 x i32>, ptr %%rd\n"
           "  store <4 x i32> %%vd, ptr %%so, align 4\n"
           "  br label %%done\n"
           "done:\n"
           "  ret void\n"
           "}\n",
           first, strcmp(first, second) ? "declare void @tilec.emu.mma." : "", strcmp(first, second) ? second : "",
           strcmp(first, second) ? "(ptr, ptr, ptr, ptr)\n" : "", quit, first, second);
  return ir;
}

/* Runs the kernel on one block of two warps; false with the report on a failure. */
static bool run_mma(const char *ir, uint32_t in[64][10], uint32_t out[64][4], uint64_t seed, char **report) {
  char *err = NULL;
  EmuKernel *k = emu_load(ir, strlen(ir), "mma", &err);
  if (!k) {
    *report = err;
    return false;
  }
  void *pi = in, *po = out;
  void *args[2] = {&pi, &po};
  EmuBuffer b[2] = {{in, 64 * 10 * 4, "in"}, {out, 64 * 4 * 4, "out"}};
  EmuLaunch l = {.grid = {1, 1, 1}, .num_warps = 2, .args = args, .nargs = 2, .buffers = b, .nbuffers = 2, .seed = seed};
  bool ok = emu_launch(k, &l, report, NULL);
  emu_unload(k);
  return ok;
}

static void mma_variants(void) {
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    for (uint64_t seed = 0; seed < 2; seed++) {
      const Case *cs = &cases[i];
      MmaTrial t[2];
      uint32_t in[64][10], out[64][4];
      for (int w = 0; w < 2; w++) {
        mma_trial_make(cs, &t[w]);
        for (int l = 0; l < 32; l++) {
          memcpy(in[32 * w + l], t[w].a[l], 16);
          memcpy(in[32 * w + l] + 4, t[w].b[l], 8);
          memcpy(in[32 * w + l] + 6, t[w].c[l], 16);
        }
      }
      const char *name = emu_mma_name(cs->kind);
      char *report = NULL;
      bool ok = run_mma(mma_kernel(name, name, -1), in, out, seed * 7, &report);
      CHECK(ok);
      if (!ok) fprintf(stderr, "%s: %s\n", name, report ? report : "");
      free(report);
      for (int w = 0; w < 2 && ok; w++) {
        char what[96];
        snprintf(what, sizeof what, "tilec.emu.mma.%s, warp %d, seed %d", name, w, (int)seed * 7);
        CHECK(mma_trial_check(cs, &t[w], (const uint32_t(*)[4])out[32 * w], what) == 0);
      }
    }
}

static void mma_reports(void) {
  uint32_t in[64][10] = {{0}}, out[64][4];
  const char *f16 = emu_mma_name(EMU_MMA_F32_F16), *bf16 = emu_mma_name(EMU_MMA_F32_BF16);
  char *report = NULL;
  /* thread 37 (warp 1, lane 5) returns: warp 1 never meets */
  CHECK(!run_mma(mma_kernel(f16, f16, 37), in, out, 0, &report));
  CHECK_CONTAINS(report, "deadlock");
  CHECK_CONTAINS(report, "wait in mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 (mask 0xffffffff) for thread 37 (returned)");
  free(report);
  report = NULL;
  /* the halves of each warp in different variants */
  CHECK(!run_mma(mma_kernel(f16, bf16, -1), in, out, 0, &report));
  CHECK_CONTAINS(report, "divergent warp collective in warp 0");
  CHECK_CONTAINS(report, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 (mask 0xffffffff)");
  free(report);
}

/* ---- ldmatrix -------------------------------------------------------------------------------------- */

/* Shared memory of 2048 bytes, written by the block: thread t stores words
 * 8t..8t+7 of `in` (none when t is `unwritten`); after a barrier each thread
 * gives the row address smem + rowoff[t] to tilec.emu.ldmatrix.<name>, and
 * out gets its 4 registers. */
static char *ldm_kernel(const char *name, int unwritten) {
  static char ir[4096];
  snprintf(ir, sizeof ir,
           "@tilec_emu_shared_bytes = constant i64 2048\n"
           "@tilec_emu_sites = constant [1 x i8] zeroinitializer\n"
           "declare i32 @tilec.emu.tid.x()\n"
           "declare ptr addrspace(3) @tilec.emu.smem()\n"
           "declare void @tilec.emu.barrier()\n"
           "declare void @tilec.emu.sts.b32(ptr addrspace(3), i32)\n"
           "declare void @tilec.emu.ldmatrix.%s(ptr, ptr addrspace(3))\n"
           "define void @tilec_emu_entry(ptr %%args) {\n"
           "entry:\n"
           "  %%p0 = load ptr, ptr %%args\n"
           "  %%in = load ptr, ptr %%p0\n"
           "  %%q1 = getelementptr ptr, ptr %%args, i64 1\n"
           "  %%p1 = load ptr, ptr %%q1\n"
           "  %%rowoff = load ptr, ptr %%p1\n"
           "  %%q2 = getelementptr ptr, ptr %%args, i64 2\n"
           "  %%p2 = load ptr, ptr %%q2\n"
           "  %%out = load ptr, ptr %%p2\n"
           "  %%tid = call i32 @tilec.emu.tid.x()\n"
           "  %%s = call ptr addrspace(3) @tilec.emu.smem()\n"
           "  %%rd = alloca [4 x i32], align 16\n"
           "  store <4 x i32> zeroinitializer, ptr %%rd\n"
           "  %%skip = icmp eq i32 %%tid, %d\n"
           "  br i1 %%skip, label %%load, label %%fill\n"
           "fill:\n"
           "  %%i = phi i32 [ 0, %%entry ], [ %%i1, %%fill ]\n"
           "  %%t8 = mul i32 %%tid, 8\n"
           "  %%w = add i32 %%t8, %%i\n"
           "  %%src = getelementptr i32, ptr %%in, i32 %%w\n"
           "  %%v = load i32, ptr %%src\n"
           "  %%dst = getelementptr i32, ptr addrspace(3) %%s, i32 %%w\n"
           "  call void @tilec.emu.sts.b32(ptr addrspace(3) %%dst, i32 %%v)\n"
           "  %%i1 = add i32 %%i, 1\n"
           "  %%more = icmp ult i32 %%i1, 8\n"
           "  br i1 %%more, label %%fill, label %%load\n"
           "load:\n"
           "  call void @tilec.emu.barrier()\n"
           "  %%po = getelementptr i32, ptr %%rowoff, i32 %%tid\n"
           "  %%off = load i32, ptr %%po\n"
           "  %%row = getelementptr i8, ptr addrspace(3) %%s, i32 %%off\n"
           "  call void @tilec.emu.ldmatrix.%s(ptr %%rd, ptr addrspace(3) %%row)\n"
           "  %%t4 = mul i32 %%tid, 4\n"
           "  %%so = getelementptr i32, ptr %%out, i32 %%t4\n"
           "  %%vd = load <4 x i32>, ptr %%rd\n"
           "  store <4 x i32> %%vd, ptr %%so, align 4\n"
           "  ret void\n"
           "}\n",
           name, unwritten, name);
  return ir;
}

static bool run_ldm(const char *ir, uint32_t in[512], int32_t rowoff[64], uint32_t out[64][4], char **report) {
  char *err = NULL;
  EmuKernel *k = emu_load(ir, strlen(ir), "ldm", &err);
  if (!k) {
    *report = err;
    return false;
  }
  void *pi = in, *pr = rowoff, *po = out;
  void *args[3] = {&pi, &pr, &po};
  EmuBuffer b[3] = {{in, 512 * 4, "in"}, {rowoff, 64 * 4, "rowoff"}, {out, 64 * 16, "out"}};
  EmuLaunch l = {.grid = {1, 1, 1}, .num_warps = 2, .args = args, .nargs = 3, .buffers = b, .nbuffers = 3};
  bool ok = emu_launch(k, &l, report, NULL);
  emu_unload(k);
  return ok;
}

/* Element (r, c) of an 8x8 matrix goes to lane 4r + c/2 (low half for even
 * c); with .trans, to lane 4c + r/2 (low half for even r). */
static void ldm_variants(void) {
  uint32_t in[512];
  for (int i = 0; i < 512; i++) in[i] = next_u32();
  const unsigned char *smem = (const unsigned char *)in; /* what shared memory holds once written */
  for (int num = 1; num <= 4; num *= 2)
    for (int trans = 0; trans < 2; trans++) {
      char name[32];
      snprintf(name, sizeof name, "x%d%s.b16", num, trans ? ".trans" : "");
      int32_t rowoff[64];
      for (int t = 0; t < 64; t++) rowoff[t] = 16 * (int32_t)(next_u32() % 128); /* any of the 128 rows */
      uint32_t out[64][4];
      char *report = NULL;
      bool ok = run_ldm(ldm_kernel(name, -1), in, rowoff, out, &report);
      CHECK(ok);
      if (!ok) fprintf(stderr, "ldmatrix.%s: %s\n", name, report ? report : "");
      free(report);
      int bad = 0;
      for (int w = 0; w < 2 && ok; w++)
        for (int m = 0; m < num; m++)
          for (int r = 0; r < 8; r++)
            for (int c = 0; c < 8; c++) {
              const unsigned char *p = smem + rowoff[32 * w + 8 * m + r] + 2 * c;
              uint32_t want = p[0] | p[1] << 8;
              int lane = trans ? 4 * c + r / 2 : 4 * r + c / 2, half = trans ? r % 2 : c % 2;
              bad += ((out[32 * w + lane][m] >> (16 * half)) & 0xffff) != want;
            }
      CHECK(bad == 0);
    }
}

static void ldm_reports(void) {
  uint32_t in[512] = {0}, out[64][4];
  int32_t rowoff[64];
  for (int t = 0; t < 64; t++) rowoff[t] = 16 * t;
  char *report = NULL;
  /* thread 3 wrote nothing (bytes 96-127, rows 6 and 7); thread 6 gives row 6 */
  CHECK(!run_ldm(ldm_kernel("x4.b16", 3), in, rowoff, out, &report));
  CHECK_CONTAINS(report, "read of uninitialized shared memory (16 bytes at offset 96 of 2048)");
  CHECK_CONTAINS(report, "thread 6: no thread of the block wrote it");
  free(report);
  report = NULL;
  rowoff[37] = 16 * 37 + 8;
  CHECK(!run_ldm(ldm_kernel("x2.trans.b16", -1), in, rowoff, out, &report));
  CHECK_CONTAINS(report, "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 in kernel 'ldm', block (0, 0, 0): thread 37 "
                         "gave the row address");
  CHECK_CONTAINS(report, "(offset 600 of 2048 bytes of shared memory), not 16-byte aligned");
  free(report);
}

int main(void) {
  mma_variants();
  mma_reports();
  ldm_variants();
  ldm_reports();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
