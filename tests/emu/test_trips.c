/*
 * test_trips.c — pipelined loops that run zero, one, two or more times,
 * at every stage count, on the CPU emulator: the kernels of
 * filecheck/ptx_pipeline_trips.py against references written here. The
 * emulator's cp.async model (emu/cpasync.h) reports a copy that lands
 * where another thread reads or writes without a barrier, or one still in
 * flight, so every exit of a pipelined loop is checked to drain what it
 * issued before its shared memory is used again.
 *
 * usage: test_trips FILECHECK_DIR
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "tilec/tilec.h"
#include "emu_test.h"

static const char *dir;

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, e = h >> 10 & 0x1f, m = h & 0x3ff, u;
  if (e == 0) { /* the test's values are normal or zero */
    u = sign;
  } else {
    u = sign | (e - 15 + 127) << 23 | m << 13;
  }
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* fp16 of x in [-1, 1), rounded toward zero: exact in the reference */
static uint16_t to_half(float x) {
  if (x == 0.0f) return 0;
  uint32_t u;
  memcpy(&u, &x, 4);
  int e = (int)(u >> 23 & 0xff) - 127 + 15;
  if (e <= 0) return (uint16_t)(u >> 16 & 0x8000);
  return (uint16_t)((u >> 16 & 0x8000) | (uint32_t)e << 10 | (u >> 13 & 0x3ff));
}

/* split_dot: o = q k[:, 0:mid) + 2 q k[:, mid:hi), k's columns past N zero */
static void split_dot_of(int stages, int mid_tiles, int hi_tiles, bool wide) {
  enum { BLOCK = 64, BN = 16, D = 32, NCOLS = 4 * BN };
  static uint16_t q[BLOCK * D], k[NCOLS * D];
  static float o[BLOCK * BN];
  int n = NCOLS - 3; /* the last tile is ragged */
  for (int i = 0; i < BLOCK * D; i++) q[i] = to_half(uniform(-1, 1));
  for (int i = 0; i < NCOLS * D; i++) k[i] = to_half(uniform(-1, 1));
  for (int i = 0; i < BLOCK * BN; i++) o[i] = NAN;
  int32_t mid = mid_tiles * BN, hi = hi_tiles * BN;
  int64_t mid64 = mid, hi64 = hi;
  EmuBuffer bf[3] = {{q, sizeof q, "q"}, {k, sizeof k, "k"}, {o, sizeof o, "o"}};
  void *p[3] = {q, k, o};
  void *a[6] = {&p[0], &p[1], &p[2], wide ? (void *)&mid64 : &mid, wide ? (void *)&hi64 : &hi, &n};
  char sig[128];
  snprintf(sig, sizeof sig, "*fp16:16, *fp16:16, *fp32:16, %s, %s, i32, %d, %d, %d, %d", wide ? "i64" : "i32",
           wide ? "i64" : "i32", BLOCK, BN, D, stages);
  if (emu_run_file(dir, "ptx_pipeline_trips.py", "split_dot", sig, 4, 1, a, 6, bf, 3)) {
    fprintf(stderr, "  (split_dot, %d stages, %d and %d tiles, %s bounds)\n", stages, mid_tiles, hi_tiles - mid_tiles,
            wide ? "i64" : "i32");
    return;
  }
  int bad = 0;
  for (int i = 0; i < BLOCK; i++)
    for (int j = 0; j < BN; j++) {
      double want = 0;
      for (int t = 0; t < hi_tiles; t++) {
        int col = t * BN + j;
        if (col >= n) continue;
        double s = 0;
        for (int d = 0; d < D; d++) s += (double)half_to_float(q[i * D + d]) * half_to_float(k[col * D + d]);
        want += t < mid_tiles ? s : 2 * s;
      }
      bad += fabs(o[i * BN + j] - want) > 1e-3 * (1 + fabs(want));
    }
  if (bad) fprintf(stderr, "split_dot, %d stages, %d and %d tiles: %d wrong\n", stages, mid_tiles, hi_tiles - mid_tiles, bad);
  CHECK(bad == 0);
}

/* split_sum: the sum and max of x[lo, hi), x past N zero (and the max -inf for no element) */
static void split_sum_of(int stages, int lo_tiles, int hi_tiles, bool wide) {
  enum { BLOCK = 256, CAP = 5 * BLOCK };
  static float x[CAP];
  float s = NAN, m = NAN;
  int32_t n = CAP - 77, lo = lo_tiles * BLOCK, hi = hi_tiles * BLOCK;
  int64_t lo64 = lo, hi64 = hi;
  for (int i = 0; i < CAP; i++) x[i] = uniform(-1, 1);
  EmuBuffer bf[3] = {{x, sizeof x, "x"}, {&s, sizeof s, "s"}, {&m, sizeof m, "m"}};
  void *p[3] = {x, &s, &m};
  void *a[6] = {&p[0], &p[1], &p[2], wide ? (void *)&lo64 : &lo, wide ? (void *)&hi64 : &hi, &n};
  char sig[128];
  snprintf(sig, sizeof sig, "*fp32:16, *fp32:16, *fp32:16, %s, %s, i32, %d, %d", wide ? "i64" : "i32", wide ? "i64" : "i32",
           BLOCK, stages);
  if (emu_run_file(dir, "ptx_pipeline_trips.py", "split_sum", sig, 4, 1, a, 6, bf, 3)) {
    fprintf(stderr, "  (split_sum, %d stages, tiles %d to %d, %s bounds)\n", stages, lo_tiles, hi_tiles, wide ? "i64" : "i32");
    return;
  }
  double want = 0;
  float want_max = -INFINITY;
  bool ragged = false;
  for (int i = lo; i < hi; i++) {
    float v = i < n ? x[i] : 0.0f;
    ragged |= i >= n;
    want += v;
    want_max = v > want_max ? v : want_max;
  }
  (void)ragged;
  bool ok = fabs(s - want) <= 1e-4 * (1 + fabs(want)) && m == want_max;
  if (!ok) fprintf(stderr, "split_sum, %d stages, tiles %d to %d: %g %g, want %g %g\n", stages, lo_tiles, hi_tiles, s, m, want, want_max);
  CHECK(ok);
}

/* narrow_dot: c = sum over i < trips of a_i b_i, b_i of n columns (not a
 * multiple of 16: one fp16 per load, in registers); a and b hold exactly
 * `trips` tiles, so a load issued ahead past the last is out of bounds */
static void narrow_dot_of(int stages, int trips) {
  enum { BM = 32, BN = 32, BK = 16, N = 24, MAXT = 3 };
  static uint16_t a[MAXT * BM * BK], b[MAXT * BK * N];
  static float c[BM * BN];
  for (int i = 0; i < trips * BM * BK; i++) a[i] = to_half(uniform(-1, 1));
  for (int i = 0; i < trips * BK * N; i++) b[i] = to_half(uniform(-1, 1));
  for (int i = 0; i < BM * BN; i++) c[i] = NAN;
  int32_t t = trips, n = N;
  /* a buffer of no bytes is no buffer: one element, never read, when there are no trips */
  EmuBuffer bf[3] = {{a, sizeof(uint16_t) * (size_t)(trips ? trips * BM * BK : 1), "a"},
                     {b, sizeof(uint16_t) * (size_t)(trips ? trips * BK * N : 1), "b"}, {c, sizeof c, "c"}};
  void *p[3] = {a, b, c};
  void *args[5] = {&p[0], &p[1], &p[2], &t, &n};
  char sig[128];
  snprintf(sig, sizeof sig, "*fp16:16, *fp16:16, *fp32:16, i32, i32, %d, %d, %d, %d", BM, BN, BK, stages);
  if (emu_run_file(dir, "ptx_pipeline_trips.py", "narrow_dot", sig, 4, 1, args, 5, bf, 3)) {
    fprintf(stderr, "  (narrow_dot, %d stages, %d trips)\n", stages, trips);
    return;
  }
  int bad = 0;
  for (int i = 0; i < BM; i++)
    for (int j = 0; j < BN; j++) {
      double want = 0;
      for (int s = 0; s < trips && j < N; s++)
        for (int k = 0; k < BK; k++)
          want += (double)half_to_float(a[s * BM * BK + i * BK + k]) * half_to_float(b[s * BK * N + k * N + j]);
      bad += fabs(c[i * BN + j] - want) > 1e-3 * (1 + fabs(want));
    }
  if (bad) fprintf(stderr, "narrow_dot, %d stages, %d trips: %d wrong\n", stages, trips, bad);
  CHECK(bad == 0);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_trips FILECHECK_DIR\n");
    return 2;
  }
  dir = argv[1];
  /* each loop runs 0, 1, 2 and 3 times, the second one ending on the
   * ragged tile; with i32 bounds, and with i64 ones (an i64 induction
   * variable: the prologue's and the loop's look-ahead are of its type) */
  for (int wide = 0; wide < 2; wide++) {
    for (int stages = 1; stages <= 4; stages++)
      for (int first = 0; first <= 3; first++)
        for (int second = 0; second <= 3; second++)
          if (first + second <= 4 && (!wide || first + second == 2 || first + second == 4))
            split_dot_of(stages, first, first + second, wide);
    for (int stages = 1; stages <= 4; stages++)
      for (int lo = 0; lo <= 2; lo++)
        for (int trips = 0; trips <= 3; trips++) split_sum_of(stages, lo, lo + trips, wide);
  }
  for (int stages = 1; stages <= 4; stages++)
    for (int trips = 0; trips <= 3; trips++) narrow_dot_of(stages, trips);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
