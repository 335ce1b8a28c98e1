/*
 * test_lang.c — language constructs of third-party kernels, run on the CPU
 * emulator against references written here: the kernels of
 * filecheck/ptx_lang.py (which checks their AST and PTX), on random data
 * whose sizes are not multiples of the blocks, so masks matter.
 *
 * usage: test_lang FILECHECK_DIR
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

/* Compiles one kernel of ptx_lang.py and runs it on `grid` blocks; 0 on success. */
static int run(const char *kernel, const char *sig, unsigned grid, void **args, int nargs, EmuBuffer *bufs, int nbufs) {
  return emu_run_file(dir, "ptx_lang.py", kernel, sig, 4, grid, args, nargs, bufs, nbufs);
}

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* The fp16 of largest magnitude not beyond |x|, for |x| in fp16's normal range. */
static uint16_t half_rtz(float x) {
  uint32_t u = bits_of(x), sign = u >> 16 & 0x8000;
  int e = (int)(u >> 23 & 0xff) - 127 + 15;
  return (uint16_t)(sign | (uint32_t)e << 10 | (u >> 13 & 0x3ff));
}

/* ---- x.cast(), tl.cast() ---------------------------------------------------------------------------- */

static void casts(void) {
  enum { BLOCK = 64 };
  int n = 3 * BLOCK + 13;
  float x[4 * BLOCK], out[4 * BLOCK];
  int32_t bits[4 * BLOCK];
  uint16_t h[4 * BLOCK];
  for (int i = 0; i < 4 * BLOCK; i++) x[i] = uniform(-4, 4), out[i] = NAN, bits[i] = -1, h[i] = 0xffff;
  int32_t s = -3, b = (int32_t)bits_of(0.25f);
  EmuBuffer bf[4] = {{x, sizeof x, "x"}, {bits, sizeof bits, "bits"}, {h, sizeof h, "h"}, {out, sizeof out, "out"}};
  void *p[4] = {x, bits, h, out};
  void *a[7] = {&p[0], &p[1], &p[2], &p[3], &s, &b, &n};
  if (run("cast_forms", "*fp32, *i32, *fp16, *fp32, i32, i32, i32, 64", 4, a, 7, bf, 4)) return;
  int bad = 0;
  for (int i = 0; i < 4 * BLOCK; i++) {
    if (i >= n) {
      bad += bits[i] != -1 || h[i] != 0xffff || !isnan(out[i]);
      continue;
    }
    float want = x[i] * -3.0f + 0.25f + (float)(i / BLOCK) + 3.0f;
    bad += (uint32_t)bits[i] != bits_of(x[i]) || h[i] != half_rtz(x[i]) || fabsf(out[i] - want) > 1e-5f;
  }
  CHECK(bad == 0);
}

/* ---- None arguments -------------------------------------------------------------------------- */

static void none_args(void) {
  enum { BLOCK = 64, CAP = 4 * BLOCK };
  int n = 3 * BLOCK + 29;
  float x[CAP], w[CAP], b[CAP], out[CAP];
  for (int i = 0; i < CAP; i++) x[i] = uniform(-2, 2), w[i] = uniform(-2, 2), b[i] = uniform(-2, 2);
  for (int with_w = 0; with_w < 2; with_w++) {
    for (int i = 0; i < CAP; i++) out[i] = NAN;
    EmuBuffer bf[4] = {{x, sizeof x, "x"}, {w, sizeof w, "w"}, {b, sizeof b, "b"}, {out, sizeof out, "out"}};
    void *p[4] = {x, w, b, out};
    void *all[5] = {&p[0], &p[1], &p[2], &p[3], &n}, *no_w[4] = {&p[0], &p[2], &p[3], &n};
    if (with_w ? run("optional_args", "*fp32, *fp32, *fp32, *fp32, i32, 64, True", 4, all, 5, bf, 4)
               : run("optional_args", "*fp32, None, *fp32, *fp32, i32, 64, True", 4, no_w, 4, bf, 4))
      continue;
    int bad = 0;
    for (int i = 0; i < CAP; i++)
      /* x * w + b may be one fma (fp fusion), or two roundings */
      bad += i < n ? out[i] != (with_w ? x[i] * w[i] : -x[i]) + b[i] && !(with_w && out[i] == fmaf(x[i], w[i], b[i]))
                   : !isnan(out[i]);
    CHECK(bad == 0);
  }
}

/* ---- pointers from a table of integers ---------------------------------------------------------- */

static uint16_t half_of(float f) { /* |f| in fp16's normal range, with 10 bits of mantissa or fewer */
  uint32_t u = bits_of(f);
  return (uint16_t)((u >> 16 & 0x8000) | (uint32_t)((int)(u >> 23 & 0xff) - 112) << 10 | (u >> 13 & 0x3ff));
}

static void pointer_tables(void) {
  enum { G = 3 };
  static const int32_t sizes[G] = {100, 37, 250};
  uint16_t *src[G];
  float *dst[G], *ref[G], stats[2 * G];
  int64_t src_table[G], dst_table[G];
  EmuBuffer bf[2 * G + 4];
  for (int g = 0; g < G; g++) {
    src[g] = malloc(sizes[g] * sizeof *src[g]);
    dst[g] = malloc(sizes[g] * sizeof *dst[g]);
    ref[g] = malloc(sizes[g] * sizeof *ref[g]);
    for (int i = 0; i < sizes[g]; i++) {
      float f = (float)((int)(next_u32() % 2001) - 1000) / 64.0f;
      if (f == 0) f = 0.5f;
      src[g][i] = half_of(f), ref[g][i] = f, dst[g][i] = NAN;
    }
    src_table[g] = (int64_t)(uintptr_t)src[g], dst_table[g] = (int64_t)(uintptr_t)dst[g];
    bf[2 * g] = (EmuBuffer){src[g], sizes[g] * sizeof *src[g], "src"};
    bf[2 * g + 1] = (EmuBuffer){dst[g], sizes[g] * sizeof *dst[g], "dst"};
  }
  for (int i = 0; i < 2 * G; i++) stats[i] = NAN;
  bf[2 * G] = (EmuBuffer){src_table, sizeof src_table, "src_table"};
  bf[2 * G + 1] = (EmuBuffer){dst_table, sizeof dst_table, "dst_table"};
  bf[2 * G + 2] = (EmuBuffer){(void *)sizes, sizeof sizes, "sizes"};
  bf[2 * G + 3] = (EmuBuffer){stats, sizeof stats, "stats"};
  void *p[4] = {src_table, dst_table, (void *)sizes, stats};
  void *a[4] = {&p[0], &p[1], &p[2], &p[3]};
  if (!run("grouped_rows", "*i64, *i64, *i32, *fp32, 64", G, a, 4, bf, 2 * G + 4)) {
    int bad = 0;
    for (int g = 0; g < G; g++) {
      float m = -INFINITY;
      for (int i = 0; i < sizes[g]; i++) {
        bad += dst[g][i] != 2 * ref[g][i];
        m = fmaxf(m, ref[g][i]);
      }
      bad += stats[2 * g] != m || stats[2 * g + 1] != (float)sizes[g];
    }
    CHECK(bad == 0);
  }
  for (int g = 0; g < G; g++) free(src[g]), free(dst[g]), free(ref[g]);
}

/* ---- loops counting down ---------------------------------------------------------------------- */

/* Appends Python's range(lo, hi, st) to out. */
static int py_range(int32_t *out, int n, int64_t lo, int64_t hi, int64_t st) {
  for (int64_t i = lo; st > 0 ? i < hi : st < 0 ? i > hi : 0; i += st) out[n++] = (int32_t)i;
  return n;
}

static void count_down(void) {
  /* nt, lo, and a positive runtime step (signed_steps has negative ones) */
  static const int32_t cases[][3] = {{7, 2, 2}, {7, 2, 1}, {0, -5, 5}, {13, 20, 4}, {5, -3, 3}, {1, 9, 1000}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    int32_t nt = cases[c][0], lo = cases[c][1], step = cases[c][2], count = -1, out[256], want[256];
    for (int i = 0; i < 256; i++) out[i] = -99;
    int n = py_range(want, 0, nt - 1, -1, -1);
    n = py_range(want, n, 0, nt, step);
    n = py_range(want, n, lo, nt, 3);
    n = py_range(want, n, 10, lo, -4);
    EmuBuffer bf[2] = {{out, sizeof out, "out"}, {&count, sizeof count, "count"}};
    void *p[2] = {out, &count};
    void *a[5] = {&p[0], &p[1], &nt, &lo, &step};
    if (run("count_down", "*i32, *i32, i32, i32, i32", 1, a, 5, bf, 2)) continue;
    int bad = count != n;
    for (int i = 0; i < n && !bad; i++) bad += out[i] != want[i];
    if (bad) fprintf(stderr, "count_down(nt=%d, lo=%d, step=%d): %d iterations, want %d\n", nt, lo, step, count, n);
    CHECK(bad == 0);
  }
}

/* ---- steps of either sign ------------------------------------------------------------------ */

/* Appends Python's range(lo, hi, st) to out, for bounds anywhere in int64:
 * in 128 bits, Python's ints do not overflow. */
__extension__ typedef __int128 int128;

static int py_range_wide(int32_t *out, int n, int64_t lo, int64_t hi, int64_t st) {
  for (int128 i = lo; st > 0 ? i < hi : st < 0 ? i > hi : 0; i += st) out[n++] = (int32_t)(int64_t)i;
  return n;
}

/* lo, hi, step, step2: runtime steps of each sign, empty ranges either way,
 * bounds and steps near the limits of the bounds' type, and a zero step,
 * which runs no iterations (Python raises; Triton would never end the
 * loop). wide: the bounds are i64. */
static void signed_steps_of(bool wide) {
  static const int64_t narrow_cases[][4] = {
      {0, 10, 3, -3},   {10, 0, 3, -3},   {5, 5, 1, -1},     {-7, 7, 1, -1},     {3, 100, 40, -40},
      {100, 3, -40, 40}, {0, 10, 0, 0},   {0, 10, -1, 1},    {-50, 50, 7, -100}, {1, 2, INT32_MAX, INT32_MIN},
      {INT32_MIN + 5, INT32_MAX, 1 << 30, -(1 << 30)},       {INT32_MAX, INT32_MIN, -(1 << 30), INT32_MIN},
      {INT32_MIN, INT32_MAX, INT32_MAX, INT32_MIN},
  };
  static const int64_t wide_cases[][4] = {
      {0, 10, 3, -3}, {10, 0, -3, 3}, {0, 10, 0, 0}, {INT32_MIN, INT32_MAX + 10LL, 1LL << 31, -(1LL << 31)},
      {INT64_MIN + 5, INT64_MAX, 1LL << 62, -(1LL << 62)}, {INT64_MAX, INT64_MIN, -(1LL << 62), INT64_MIN},
      {INT64_MIN, INT64_MAX, INT64_MAX, INT64_MIN},
  };
  const int64_t(*fixed)[4] = wide ? wide_cases : narrow_cases;
  int nfixed = wide ? (int)(sizeof wide_cases / sizeof *wide_cases) : (int)(sizeof narrow_cases / sizeof *narrow_cases);
  for (int c = 0; c < nfixed + 40; c++) {
    int64_t v[4];
    for (int j = 0; j < 4; j++)
      v[j] = c < nfixed ? fixed[c][j] : j < 2 ? (int64_t)(next_u32() % 101) - 50 : (int64_t)(next_u32() % 25) - 12;
    int32_t count = -1, out[512], want[512], v32[4];
    for (int i = 0; i < 512; i++) out[i] = -99;
    for (int j = 0; j < 4; j++) v32[j] = (int32_t)v[j];
    int64_t big_down = wide ? -(1LL << 62) : -(1LL << 30);
    int n = py_range_wide(want, 0, 10, 0, -2);
    n = py_range_wide(want, n, v[0], v[1], big_down);
    if (v[2]) n = py_range_wide(want, n, v[0], v[1], v[2]);
    if (v[3]) n = py_range_wide(want, n, v[1], v[0], v[3]);
    n = py_range_wide(want, n, 7, -3, -3);
    n = py_range_wide(want, n, 0, 3, 1); /* one program: tl.program_id(0) to 3 by tl.num_programs(0) */
    EmuBuffer bf[2] = {{out, sizeof out, "out"}, {&count, sizeof count, "count"}};
    void *p[2] = {out, &count};
    void *a[6] = {&p[0], &p[1]};
    for (int j = 0; j < 4; j++) a[2 + j] = wide ? (void *)&v[j] : (void *)&v32[j];
    if (run("signed_steps", wide ? "*i32, *i32, i64, i64, i64, i64, -4611686018427387904" : "*i32, *i32, i32, i32, i32, i32, -1073741824",
            1, a, 6, bf, 2))
      continue;
    int bad = count != n;
    for (int i = 0; i < n && !bad; i++) bad += out[i] != want[i];
    if (bad)
      fprintf(stderr, "signed_steps(lo=%lld, hi=%lld, step=%lld, step2=%lld%s): %d iterations, want %d\n", (long long)v[0],
              (long long)v[1], (long long)v[2], (long long)v[3], wide ? ", i64" : "", count, n);
    CHECK(bad == 0);
  }
}

static void signed_steps(void) {
  signed_steps_of(false);
  signed_steps_of(true);
}

/* ---- early returns ---------------------------------------------------------------------------- */

static void early_returns(void) {
  enum { N = 61, GRID = 64 };
  int32_t x[N], out[GRID];
  for (int i = 0; i < N; i++) x[i] = (int32_t)(next_u32() % 301) - 100;
  x[0] = 11, x[1] = 12, x[2] = 101, x[3] = -1, x[4] = 0; /* each path */
  for (int i = 0; i < GRID; i++) out[i] = -7;
  int32_t n = N;
  EmuBuffer bf[2] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}};
  void *p[2] = {x, out};
  void *a[3] = {&p[0], &p[1], &n};
  if (run("early_returns", "*i32, *i32, i32", GRID, a, 3, bf, 2)) return;
  int bad = 0;
  for (int i = 0; i < GRID; i++) {
    int32_t want = -7, v = i < N ? x[i] : 0;
    if (i < N) {
      if (v > 100) want = 3;
      else if (v > 10) want = (v * 2) % 4 == 0 ? 2 : v * 2;
      else if (v >= 0) want = v;
    }
    if (out[i] != want) {
      if (!bad) fprintf(stderr, "early_returns: out[%d] = %d for x = %d, want %d\n", i, out[i], v, want);
      bad++;
    }
  }
  CHECK(bad == 0);
}

/* ---- returns inside runtime ifs of inlined helpers ------------------------------------------------------ */

static int32_t classify_ref(int32_t v) {
  if (v > 10) {
    if (v > 100) return 3;
    v = v * 2;
    if (v % 4 == 0) return v / 4;
  } else if (v < 0) {
    return -v;
  }
  return (v + 1) * 10;
}

static void helper_returns(void) {
  enum { N = 61, GRID = 64, BLOCK = 64 };
  int32_t x[N], out[GRID], blk[GRID * BLOCK];
  for (int i = 0; i < N; i++) x[i] = (int32_t)(next_u32() % 301) - 100;
  x[0] = 11, x[1] = 12, x[2] = 101, x[3] = -1, x[4] = 0, x[5] = 10; /* each path */
  for (int i = 0; i < GRID; i++) out[i] = -7;
  int32_t n = N, lo = -20, hi = 30;
  EmuBuffer bf[3] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}, {blk, sizeof blk, "blk"}};
  void *p[3] = {x, out, blk};
  void *a[6] = {&p[0], &p[1], &p[2], &n, &lo, &hi};
  if (run("helper_returns", "*i32, *i32, *i32, i32, i32, i32, 64", GRID, a, 6, bf, 3)) return;
  int bad = 0;
  for (int i = 0; i < GRID; i++) {
    int32_t want = classify_ref(x[i % N]);
    if (out[i] != want) {
      if (!bad) fprintf(stderr, "helper_returns: out[%d] = %d for x = %d, want %d\n", i, out[i], x[i % N], want);
      bad++;
    }
    int32_t l = lo + i % 3 - 1;
    for (int j = 0; j < BLOCK; j++) {
      int32_t b = j < N ? x[j] : 0, w = l > hi ? 0 : b < l ? l : b > hi ? hi : b;
      if (blk[i * BLOCK + j] != w && !bad)
        fprintf(stderr, "helper_returns: blk[%d][%d] = %d for x = %d, want %d\n", i, j, blk[i * BLOCK + j], b, w);
      bad += blk[i * BLOCK + j] != w;
    }
  }
  CHECK(bad == 0);
}

/* ---- annotated locals -------------------------------------------------------------------------- */

static void annotated_locals(void) {
  enum { BLOCK = 64 };
  float x[3 * BLOCK];
  uint16_t y[BLOCK];
  for (int i = 0; i < 3 * BLOCK; i++) x[i] = (float)((int)(next_u32() % 201) - 100) / 8.0f;
  for (int i = 0; i < BLOCK; i++) y[i] = 0xffff;
  int32_t one = 1;
  EmuBuffer bf[2] = {{x, sizeof x, "x"}, {y, sizeof y, "y"}};
  void *p[2] = {x, y};
  void *a[3] = {&p[0], &p[1], &one};
  if (run("annotated_locals", "*fp32, *fp16, i32:1, 64", 1, a, 3, bf, 2)) return;
  int bad = 0;
  for (int i = 0; i < BLOCK; i++) {
    float s = x[3 * i] + x[3 * i + 1] + x[3 * i + 2]; /* exact: eighths below 2^11 */
    bad += s == 0 ? y[i] != 0 && y[i] != 0x8000 : y[i] != half_of(s);
  }
  CHECK(bad == 0);
}

/* ---- scans with reverse=True --------------------------------------------------------------- */

static void reverse_scans_of(int rows, int cols) {
  int total = rows * cols, n = total - 5;
  float *x = calloc((size_t)total, 4), *out = malloc((size_t)total * 8);
  int32_t *idx = calloc((size_t)total * 2, 4);
  for (int i = 0; i < n; i++) {
    x[i] = 0.5f + (float)(rand() % 1000) / 1000.0f;
    idx[i] = rand() % 3 == 0 ? rand() % 100 + 1 : 0;
  }
  for (int i = 0; i < 2 * total; i++) out[i] = NAN;
  for (int i = total; i < 2 * total; i++) idx[i] = -7;
  EmuBuffer b[3] = {{x, (size_t)total * 4, "x_ptr"}, {out, (size_t)total * 8, "out_ptr"}, {idx, (size_t)total * 8, "idx_ptr"}};
  void *p[3] = {x, out, idx};
  void *a[4] = {&p[0], &p[1], &p[2], &n};
  char sig[80];
  snprintf(sig, sizeof sig, "*fp32, *fp32, *i32, i32, %d, %d", rows, cols);
  if (!run("reverse_scans", sig, 1, a, 4, b, 3)) {
    int bad = 0;
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) {
        int k = r * cols + c;
        if (k >= n) continue;
        /* the suffix along the row, over the loaded values (0 past n) */
        double s = 0, prod = 1;
        for (int j = c; j < cols; j++) s += r * cols + j < n ? x[r * cols + j] : 0;
        for (int j = r; j < rows; j++) prod *= j * cols + c < n ? x[j * cols + c] : 0;
        int32_t want = 0;
        for (int j = cols - 1; j >= c; j--) {
          int32_t v = r * cols + j < n ? idx[r * cols + j] : 0;
          if (v != 0) want = v;
        }
        if (fabs(out[k] - s) > 1e-4 * fabs(s) + 1e-5 || fabs(out[total + k] - prod) > 1e-4 * fabs(prod) + 1e-30 ||
            idx[total + k] != want) {
          if (!bad)
            fprintf(stderr, "reverse_scans %dx%d at (%d, %d): %g %g %d, want %g %g %d\n", rows, cols, r, c, (double)out[k],
                    (double)out[total + k], idx[total + k], s, prod, want);
          bad++;
        }
      }
    CHECK(bad == 0);
  }
  free(x), free(out), free(idx);
}

/* ---- tensor descriptors ---------------------------------------------------------------------- */

/* A 45x27 matrix (row stride 29) through 16x8 descriptor tiles: every tile
 * but the first row and column of tiles is ragged in some dimension. */
static void descriptors(void) {
  enum { M = 45, N = 27, IN_STRIDE = 29, OUT_STRIDE = 31, BM = 16, BN = 8 };
  float in[M * IN_STRIDE], out[M * OUT_STRIDE];
  for (int i = 0; i < M * IN_STRIDE; i++) in[i] = (float)(rand() % 2001) / 100.0f - 10.0f;
  for (int i = 0; i < M * OUT_STRIDE; i++) out[i] = -1234.5f;
  int64_t shape0 = M, shape1 = N, stride0 = IN_STRIDE, stride1 = 1;
  int32_t m = M, n = N, out_stride = OUT_STRIDE;
  EmuBuffer b[2] = {{in, sizeof in, "in_desc"}, {out, sizeof out, "out_ptr"}};
  void *p[2] = {in, out};
  void *a[9] = {&p[0], &shape0, &shape1, &stride0, &stride1, &p[1], &m, &n, &out_stride};
  unsigned tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
  if (run("desc_copy", "tensordesc<fp32[16, 8]>, *fp32, i32, i32, i32, 16, 8", tiles, a, 9, b, 2)) return;
  int bad = 0;
  for (int r = 0; r < M; r++)
    for (int c = 0; c < OUT_STRIDE; c++) {
      float want = c < N ? in[r * IN_STRIDE + c] * 2.0f + 1.0f : -1234.5f;
      if (out[r * OUT_STRIDE + c] != want) {
        if (!bad) fprintf(stderr, "desc_copy: out[%d][%d] = %g, want %g\n", r, c, (double)out[r * OUT_STRIDE + c], (double)want);
        bad++;
      }
    }
  CHECK(bad == 0);
  /* the same through the experimental API, made in the kernel (row stride N) */
  float in2[M * N], out2[M * N];
  for (int i = 0; i < M * N; i++) in2[i] = (float)(rand() % 2001) / 100.0f, out2[i] = -1234.5f;
  EmuBuffer b2[2] = {{in2, sizeof in2, "a_ptr"}, {out2, sizeof out2, "out_ptr"}};
  void *p2[2] = {in2, out2};
  void *a2[4] = {&p2[0], &p2[1], &m, &n};
  if (run("experimental_desc", "*fp32, *fp32, i32, i32, 16, 8", tiles, a2, 4, b2, 2)) return;
  bad = 0;
  for (int i = 0; i < M * N; i++) bad += out2[i] != in2[i] - 3.0f;
  CHECK(bad == 0);
}

/* ---- programmatic dependent launch: the kernel of ptx_gdc.py ------------------------------------- */

/* ---- tl.div_rn, tl.sqrt_rn: correctly rounded, as the host's / and sqrt ------------------------------ */

static void rounded(void) {
  enum { N = 300, BLOCK = 128 };
  float x[N], y[N], out[N];
  double xd[N], yd[N], outd[N];
  for (int i = 0; i < N; i++) x[i] = uniform(-4, 4), y[i] = uniform(0.25f, 4), xd[i] = x[i] * 1.1, yd[i] = y[i] * 1.3;
  int n = N;
  EmuBuffer bf[3] = {{x, sizeof x, "x"}, {y, sizeof y, "y"}, {out, sizeof out, "out"}};
  void *p[3] = {x, y, out};
  void *a[4] = {&p[0], &p[1], &p[2], &n};
  if (!emu_run_file(dir, "ptx_rounded.py", "rounded", "*fp32, *fp32, *fp32, i32, 128", 4, (N + BLOCK - 1) / BLOCK, a, 4, bf, 3)) {
    int bad = 0;
    for (int i = 0; i < N; i++) bad += out[i] != x[i] / y[i] + sqrtf(y[i]);
    CHECK(bad == 0);
  }
  EmuBuffer bd[3] = {{xd, sizeof xd, "x"}, {yd, sizeof yd, "y"}, {outd, sizeof outd, "out"}};
  void *q[3] = {xd, yd, outd};
  void *b[4] = {&q[0], &q[1], &q[2], &n};
  if (!emu_run_file(dir, "ptx_rounded.py", "rounded", "*fp64, *fp64, *fp64, i32, 128", 4, (N + BLOCK - 1) / BLOCK, b, 4, bd, 3)) {
    int bad = 0;
    for (int i = 0; i < N; i++) bad += outd[i] != xd[i] / yd[i] + sqrt(yd[i]);
    CHECK(bad == 0);
  }
}

static void gdc(void) {
  enum { N = 3000 };
  static float x[N], y[N], out[N];
  for (int i = 0; i < N; i++) x[i] = (float)(rand() % 1000) / 7.0f, y[i] = (float)(rand() % 1000) / 3.0f, out[i] = NAN;
  int nn = N;
  EmuBuffer b[3] = {{x, sizeof x, "x_ptr"}, {y, sizeof y, "y_ptr"}, {out, sizeof out, "out_ptr"}};
  void *p[3] = {x, y, out};
  void *a[4] = {&p[0], &p[1], &p[2], &nn};
  int bad = emu_run_file(dir, "ptx_gdc.py", "gdc_add", "*fp32, *fp32, *fp32, i32, 1024, True", 4, (N + 1023) / 1024, a, 4, b, 3);
  for (int i = 0; i < N && !bad; i++) bad = out[i] != x[i] + y[i];
  CHECK(bad == 0);
}

/* chunked_scans (ptx_lang.py): int32 cumsums, forward and reverse, of
 * blocks of 1024 on 1 and 4 warps and of 256 on 1 warp (8, 2 and 2 chunks
 * of the layout's tile), 5 elements short of the block. Exact. */
static void chunked_scans_of(int block, int warps) {
  int n = block - 5;
  int32_t *x = calloc((size_t)block, 4), *out = malloc((size_t)block * 8);
  for (int i = 0; i < n; i++) x[i] = rand() % 201 - 100;
  for (int i = 0; i < 2 * block; i++) out[i] = -12345;
  EmuBuffer b[2] = {{x, (size_t)block * 4, "x_ptr"}, {out, (size_t)block * 8, "out_ptr"}};
  void *p[2] = {x, out};
  void *a[3] = {&p[0], &p[1], &n};
  char sig[80];
  snprintf(sig, sizeof sig, "*i32:16, *i32:16, i32, %d", block);
  if (!emu_run_file(dir, "ptx_lang.py", "chunked_scans", sig, warps, 1, a, 3, b, 2)) {
    int bad = 0;
    int32_t fwd = 0, rev = 0;
    for (int i = 0; i < n; i++) rev += x[i];
    for (int i = 0; i < block; i++) {
      fwd += i < n ? x[i] : 0;
      int32_t want_f = i < n ? fwd : -12345, want_r = i < n ? rev : -12345;
      if ((out[i] != want_f || out[block + i] != want_r) && bad++ == 0)
        fprintf(stderr, "chunked_scans %d on %d warps at %d: %d %d, want %d %d\n", block, warps, i, out[i], out[block + i], want_f, want_r);
      rev -= i < n ? x[i] : 0;
    }
    CHECK(bad == 0);
  }
  free(x), free(out);
}

static void reverse_scans(void) {
  reverse_scans_of(32, 64);  /* rows across warps, columns across lanes and threads */
  reverse_scans_of(4, 256);
  reverse_scans_of(128, 8);
  chunked_scans_of(1024, 1);
  chunked_scans_of(1024, 4);
  chunked_scans_of(256, 1);
}

/* ---- argmax and argmin with ties (filecheck/ptx_attrs.py) ------------------------------------- */

/* Rows of 64 values drawn from {1, 2, 3}, so that the extremes repeat:
 * tie_break_left=True gives the first index of the extreme, as Triton
 * defines it; False gives some index of the extreme (Triton leaves which
 * to the reduction's order), and here not always the first. */
static void argmax_ties_of(bool left) {
  enum { ROWS = 64, N = 64 };
  float x[ROWS * N];
  int32_t out[2 * ROWS];
  for (int i = 0; i < ROWS * N; i++) x[i] = (float)(1 + next_u32() % 3);
  for (int i = 0; i < 2 * ROWS; i++) out[i] = -1;
  EmuBuffer b[2] = {{x, sizeof x, "x_ptr"}, {out, sizeof out, "out_ptr"}};
  void *p[2] = {x, out};
  void *a[2] = {&p[0], &p[1]};
  int bad = emu_run_file(dir, "ptx_attrs.py", "argmax_ties", left ? "*fp32, *i32, 64, True" : "*fp32, *i32, 64, False", 4,
                         ROWS, a, 2, b, 2);
  if (bad) return;
  int wrong = 0, not_first = 0;
  for (int r = 0; r < ROWS; r++) {
    const float *row = x + r * N;
    int first_max = 0, first_min = 0;
    for (int j = 1; j < N; j++) {
      if (row[j] > row[first_max]) first_max = j;
      if (row[j] < row[first_min]) first_min = j;
    }
    int32_t im = out[2 * r], in = out[2 * r + 1];
    bool ok = left ? im == first_max && in == first_min
                   : im >= 0 && im < N && in >= 0 && in < N && row[im] == row[first_max] && row[in] == row[first_min];
    if (!ok && !wrong++)
      fprintf(stderr, "argmax_ties %s row %d: argmax %d argmin %d, want %d %d\n", left ? "left" : "fast", r, im, in,
              first_max, first_min);
    not_first += im != first_max || in != first_min;
  }
  CHECK(wrong == 0);
  if (!left) CHECK(not_first > 0); /* the fast rule is not the left one */
}

/* tl.fdiv and tl.softmax both ways: the approximate division runs on the
 * emulator as the IEEE one (div.full.f32 is within 2 ulp of it). */
static void fdiv_rounding_of(bool exact) {
  float a[32], b[32], out[96];
  for (int i = 0; i < 32; i++) a[i] = uniform(-4, 4), b[i] = uniform(0.5f, 3);
  for (int i = 0; i < 96; i++) out[i] = NAN;
  EmuBuffer bufs[3] = {{a, sizeof a, "a_ptr"}, {b, sizeof b, "b_ptr"}, {out, sizeof out, "out_ptr"}};
  void *p[3] = {a, b, out};
  void *args[3] = {&p[0], &p[1], &p[2]};
  if (emu_run_file(dir, "ptx_attrs.py", "fdiv_rounding", exact ? "*fp32, *fp32, *fp32, True" : "*fp32, *fp32, *fp32, False",
                   4, 1, args, 3, bufs, 3))
    return;
  double mx = a[0], den = 0;
  for (int i = 1; i < 32; i++) mx = a[i] > mx ? a[i] : mx;
  for (int i = 0; i < 32; i++) den += exp(a[i] - mx);
  int bad = 0;
  for (int i = 0; i < 32; i++) {
    double q = (double)a[i] / b[i], sm = exp(a[i] - mx) / den;
    /* q + 1 in fp32 carries q's rounding error, which is relative to q, not to q + 1 */
    bad += fabs(out[i] - q) > 1e-6 * fabs(q) || fabs(out[32 + i] - (q + 1)) > 1e-6 * (fabs(q) + 1) ||
           fabs(out[64 + i] - sm) > 1e-5 * sm;
  }
  CHECK(bad == 0);
}

/* ---- tl.dtype(f"uint{bits}") ----------------------------------------------------------------------- */

/* sglang's unsigned view of a block (filecheck/ast_fstrings.py): x's bits
 * as uint32, shifted right, so that a negative x's sign bit shifts in as a
 * zero, not a one. */
static void unsigned_view(void) {
  enum { BLOCK = 64, CAP = 4 * BLOCK };
  int n = 3 * BLOCK + 7;
  float x[CAP];
  int32_t out[CAP];
  for (int i = 0; i < CAP; i++) x[i] = uniform(-8, 8), out[i] = -1;
  EmuBuffer bf[2] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}};
  void *p[2] = {x, out};
  void *a[3] = {&p[0], &p[1], &n};
  if (emu_run_file(dir, "ast_fstrings.py", "unsigned_view", "*fp32, *i32, i32, 64", 4, 4, a, 3, bf, 2)) return;
  int bad = 0, negative = 0;
  for (int i = 0; i < CAP; i++) {
    int32_t want = i < n ? (int32_t)(bits_of(x[i]) >> 1) : -1;
    bad += out[i] != want;
    negative += i < n && x[i] < 0;
  }
  CHECK(negative > 0);
  CHECK(bad == 0);
}

/* tl.sqrt (sqrt.approx.ftz.f32: subnormals flushed to zero first, then
 * within 1 ulp) and tl.sqrt_rn (IEEE, exact rounding). */
static void sqrts(void) {
  float a[32], out[64];
  for (int i = 0; i < 32; i++) a[i] = i < 4 ? (i % 2 ? -1 : 1) * 1e-40f * (float)(i + 1) : uniform(0.001f, 1000);
  for (int i = 0; i < 64; i++) out[i] = NAN;
  EmuBuffer bufs[2] = {{a, sizeof a, "a_ptr"}, {out, sizeof out, "out_ptr"}};
  void *p[2] = {a, out};
  void *args[2] = {&p[0], &p[1]};
  if (emu_run_file(dir, "ptx_attrs.py", "sqrts", "*fp32, *fp32", 4, 1, args, 2, bufs, 2)) return;
  int bad = 0;
  for (int i = 0; i < 32; i++) {
    if (i < 4) { /* subnormal: the signed zero's root, not the subnormal's (about 1e-20, or NaN below zero) */
      bad += out[i] != 0.0f || !!signbit(out[i]) != (i % 2);
      bad += i % 2 ? !isnan(out[32 + i]) : out[32 + i] != sqrtf(a[i]);
      continue;
    }
    bad += fabsf(out[i] - sqrtf(a[i])) > 1.2e-7f * sqrtf(a[i]) || out[32 + i] != sqrtf(a[i]);
  }
  CHECK(bad == 0);
}

/* tl.math.exp2 (ex2.approx.ftz.f32: a subnormal input is zero, a result
 * below the normal range zero) and tl.exp (ex2.approx.f32 of x log2 e,
 * subnormal results kept). */
static void exps(void) {
  float a[32], out[64];
  for (int i = 0; i < 32; i++) a[i] = i == 0 ? 1e-40f : i == 1 ? -1e-40f : i == 2 ? -130.0f : i == 3 ? -92.0f : uniform(-20, 20);
  for (int i = 0; i < 64; i++) out[i] = NAN;
  EmuBuffer bufs[2] = {{a, sizeof a, "a_ptr"}, {out, sizeof out, "out_ptr"}};
  void *p[2] = {a, out};
  void *args[2] = {&p[0], &p[1]};
  if (emu_run_file(dir, "ptx_attrs.py", "exps", "*fp32, *fp32", 4, 1, args, 2, bufs, 2)) return;
  int bad = 0;
  bad += out[0] != 1.0f || out[1] != 1.0f; /* 2^0 */
  bad += out[2] != 0.0f;                   /* 2^-130 is subnormal: flushed */
  bad += !(out[32 + 3] > 0.0f && out[32 + 3] < 1.2e-38f); /* e^-92, subnormal, kept by tl.exp */
  for (int i = 4; i < 32; i++) bad += fabsf(out[i] - exp2f(a[i])) > 2e-6f * exp2f(a[i]);
  CHECK(bad == 0);
}

/* The rest of tl.*'s fp32 math on the emulator, by what the GPU's instructions and
 * libdevice's flush-to-zero variants give (the PTX ISA: .ftz makes subnormal inputs
 * and results signed zeros; rsqrt of a zero is the infinity of its sign; div.approx
 * is a * (1 / b), within 2 ulp for |b| up to 2^126 and zero above): tl.log, log2,
 * sin and cos see a subnormal as zero, tl.floor(-1e-40) is -0 and not -1,
 * tl.ceil(1e-40) +0 and not 1, tl.rsqrt(1e-40) +inf; tl.sqrt_rn and tl.div_rn
 * keep subnormals (IEEE's). */
static void ftz_math(void) {
  float a[32], b[32], out[320];
  for (int i = 0; i < 32; i++) a[i] = uniform(0.01f, 100), b[i] = uniform(0.5f, 4);
  a[0] = 1e-40f, a[1] = -1e-40f, b[2] = 0x1p127f, b[0] = 2.0f;
  for (int i = 0; i < 320; i++) out[i] = NAN;
  EmuBuffer bufs[3] = {{a, sizeof a, "a_ptr"}, {b, sizeof b, "b_ptr"}, {out, sizeof out, "out_ptr"}};
  void *p[3] = {a, b, out};
  void *args[3] = {&p[0], &p[1], &p[2]};
  if (emu_run_file(dir, "ptx_attrs.py", "ftz_math", "*fp32, *fp32, *fp32", 4, 1, args, 3, bufs, 3)) return;
  float *lg = out, *lg2 = out + 32, *sn = out + 64, *cs = out + 96, *fl = out + 128, *cl = out + 160, *rs = out + 192,
        *dv = out + 224, *sq = out + 256, *dr = out + 288;
  int bad = 0;
  for (int i = 0; i < 2; i++) { /* the subnormals */
    bad += !(isinf(lg[i]) && lg[i] < 0) || !(isinf(lg2[i]) && lg2[i] < 0);
    bad += sn[i] != 0.0f || !!signbit(sn[i]) != i || cs[i] != 1.0f;
    bad += fl[i] != 0.0f || !!signbit(fl[i]) != i || cl[i] != 0.0f || !!signbit(cl[i]) != i;
    bad += !(isinf(rs[i]) && !!signbit(rs[i]) == i);
  }
  bad += sq[0] != sqrtf(1e-40f) || !(sq[0] > 0) || !isnan(sq[1]); /* about 1e-20: not flushed */
  bad += dr[0] != 5e-41f || dr[0] == 0.0f;                           /* 1e-40 / 2, a subnormal kept */
  bad += dv[2] != 0.0f;                                              /* |b| above 2^126 */
  for (int i = 2; i < 32; i++) {
    double x = a[i];
    bad += fabs(lg[i] - log(x)) > 2e-7 * fabs(log(x)) + 1e-7 || fabs(lg2[i] - log2(x)) > 2e-7 * fabs(log2(x)) + 1e-7;
    bad += fabs(sn[i] - sin(x)) > 3e-7 || fabs(cs[i] - cos(x)) > 3e-7;
    bad += fl[i] != floorf(a[i]) || cl[i] != ceilf(a[i]);
    bad += fabs(rs[i] - 1 / sqrt(x)) > 2.5e-7 / sqrt(x);
    bad += sq[i] != sqrtf(a[i]) || dr[i] != a[i] / b[i];
    if (i != 2) bad += fabs(dv[i] - x / b[i]) > 2.4e-7 * fabs(x / b[i]);
  }
  CHECK(bad == 0);
}

/* ptx_attrs.py's hint_statement: sums 3 rows of 512 floats through a pointer read
 * from a table, with `tl.multiple_of(ptrs, [16])` as a statement (16-byte loads)
 * and without it; the same sums. */
static void hint_statement(void) {
  enum { N = 512, ROWS = 3 };
  float *x = aligned_alloc(16, sizeof(float) * N * ROWS), out[N], want[N];
  int64_t tab[1] = {(int64_t)(uintptr_t)x};
  for (int i = 0; i < N * ROWS; i++) x[i] = uniform(-2, 2);
  for (int j = 0; j < N; j++) want[j] = (x[j] + x[N + j]) + x[2 * N + j];
  for (int hinted = 0; hinted < 2; hinted++) {
    for (int j = 0; j < N; j++) out[j] = NAN;
    EmuBuffer bufs[3] = {{x, sizeof(float) * N * ROWS, "rows"}, {tab, sizeof tab, "tab_ptr"}, {out, sizeof out, "out_ptr"}};
    void *p[2] = {tab, out};
    int32_t n = ROWS;
    void *args[3] = {&p[0], &p[1], &n};
    if (emu_run_file(dir, "ptx_attrs.py", "hint_statement", hinted ? "*u64:16, *fp32:16, i32, True" : "*u64:16, *fp32:16, i32, False",
                     4, 1, args, 3, bufs, 3))
      break;
    int bad = 0;
    for (int j = 0; j < N; j++) bad += fabsf(out[j] - want[j]) > 1e-5f;
    CHECK(bad == 0);
  }
  free(x);
}

static void argmax_ties(void) {
  argmax_ties_of(true);
  argmax_ties_of(false);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_lang FILECHECK_DIR\n");
    return 2;
  }
  dir = argv[1];
  casts();
  none_args();
  pointer_tables();
  count_down();
  signed_steps();
  early_returns();
  helper_returns();
  annotated_locals();
  reverse_scans();
  descriptors();
  gdc();
  rounded();
  argmax_ties();
  exps();
  fdiv_rounding_of(false);
  fdiv_rounding_of(true);
  sqrts();
  ftz_math();
  hint_statement();
  unsigned_view();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
