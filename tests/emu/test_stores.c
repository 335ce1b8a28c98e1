/*
 * test_stores.c — a store is made once per element, by one holder, however
 * many threads hold a copy: the kernels of filecheck/ptx_stores.py (which
 * checks their predicates) update their buffers in place, so a store made by
 * every holder applies the update once per copy. Blocks below, at and above
 * the 128 threads of 4 warps, scalars, 2-D tiles, a reduction's result and
 * block pointers, on sizes that are not multiples of the blocks.
 *
 * usage: test_stores FILECHECK_DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "tilec/tilec.h"
#include "emu_test.h"

static const char *dir;

static int run(const char *kernel, const char *sig, int warps, unsigned grid, void **args, int nargs, EmuBuffer *bufs, int nbufs) {
  return emu_run_file(dir, "ptx_stores.py", kernel, sig, warps, grid, args, nargs, bufs, nbufs);
}

/* x * 2 + 1, in place, with blocks of 16 to 1024 elements on 1, 4 and 8 warps. */
static void scale_in_place(void) {
  enum { CAP = 3000 };
  static const int blocks[] = {16, 64, 128, 256, 1024};
  static const int warps[] = {1, 4, 8};
  for (size_t bi = 0; bi < sizeof blocks / sizeof *blocks; bi++)
    for (size_t wi = 0; wi < sizeof warps / sizeof *warps; wi++) {
      int block = blocks[bi], n = 2 * block + 7;
      if (n > CAP) n = CAP;
      static float p[CAP], want[CAP];
      for (int i = 0; i < CAP; i++) p[i] = (float)(int)uniform(-100, 100), want[i] = i < n ? p[i] * 2 + 1 : p[i];
      char sig[64];
      snprintf(sig, sizeof sig, "*fp32, i32, %d", block);
      EmuBuffer b[1] = {{p, sizeof p, "p"}};
      void *pp = p;
      void *a[2] = {&pp, &n};
      if (run("scale_in_place", sig, warps[wi], (unsigned)((n + block - 1) / block), a, 2, b, 1)) continue;
      int bad = 0;
      for (int i = 0; i < CAP; i++) bad += p[i] != want[i];
      if (bad) fprintf(stderr, "scale_in_place BLOCK=%d, %d warps: %d of %d elements wrong\n", block, warps[wi], bad, CAP);
      CHECK(bad == 0);
    }
}

/* A scalar counter loaded and stored back 5 times: 5, not 5 times the threads. */
static void scalar_counter(void) {
  int32_t c = 7, times = 5;
  EmuBuffer b[1] = {{&c, sizeof c, "counter"}};
  void *pc = &c;
  void *a[2] = {&pc, &times};
  if (run("bump", "*i32, i32", 4, 1, a, 2, b, 1)) return;
  if (c != 12) fprintf(stderr, "bump: counter %d, want 12\n", c);
  CHECK(c == 12);
}

/* 2-D tiles of 4x8 (fewer elements than threads) and 32x64 (more), through
 * plain pointers and block pointers. */
static void tiles_in_place(void) {
  enum { M = 37, N = 7, STRIDE = 16 };
  static const int shapes[][2] = {{4, 8}, {8, 16}, {32, 16}};
  const char *kernels[2] = {"tile_in_place", "block_in_place"};
  for (int ki = 0; ki < 2; ki++)
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
      int bm = shapes[si][0], bn = shapes[si][1];
      float p[M * STRIDE], want[M * STRIDE];
      for (int i = 0; i < M * STRIDE; i++) {
        p[i] = (float)(int)uniform(-100, 100);
        want[i] = i % STRIDE < N ? p[i] * 2 + 1 : p[i];
      }
      char sig[64];
      snprintf(sig, sizeof sig, "*fp32, i32, i32, i32, %d, %d", bm, bn);
      int m = M, n = N, stride = STRIDE;
      EmuBuffer b[1] = {{p, sizeof p, "p"}};
      void *pp = p;
      void *a[4] = {&pp, &m, &n, &stride};
      if (run(kernels[ki], sig, 4, (unsigned)((M + bm - 1) / bm), a, 4, b, 1)) continue;
      int bad = 0;
      for (int i = 0; i < M * STRIDE; i++) bad += p[i] != want[i];
      if (bad) fprintf(stderr, "%s %dx%d: %d elements wrong\n", kernels[ki], bm, bn, bad);
      CHECK(bad == 0);
    }
}

/* sums[r] += sum of row r: a reduction's result, held by every thread of its row. */
static void row_sums(void) {
  enum { M = 23, N = 13, STRIDE = 13, BM = 4, BN = 16 };
  float x[M * STRIDE], sums[M], want[M];
  for (int r = 0; r < M; r++) {
    sums[r] = (float)(int)uniform(-100, 100);
    want[r] = sums[r];
    for (int c = 0; c < N; c++) {
      x[r * STRIDE + c] = (float)(int)uniform(-8, 8);
      want[r] += x[r * STRIDE + c];
    }
  }
  int m = M, n = N, stride = STRIDE;
  EmuBuffer b[2] = {{x, sizeof x, "x"}, {sums, sizeof sums, "sums"}};
  void *p[2] = {x, sums};
  void *a[5] = {&p[0], &p[1], &m, &n, &stride};
  if (run("accumulate_row_sums", "*fp32, *fp32, i32, i32, i32, 4, 16", 4, (M + BM - 1) / BM, a, 5, b, 2)) return;
  int bad = 0;
  for (int r = 0; r < M; r++) bad += sums[r] != want[r];
  if (bad) fprintf(stderr, "accumulate_row_sums: %d of %d rows wrong\n", bad, M);
  CHECK(bad == 0);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_stores FILECHECK_DIR\n");
    return 2;
  }
  dir = argv[1];
  scale_in_place();
  scalar_counter();
  tiles_in_place();
  row_sums();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
