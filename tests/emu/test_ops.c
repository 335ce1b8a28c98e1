/*
 * test_ops.c — the numbers of the shape ops, the conversions and tl.dot, on
 * the CPU emulator: the kernels of filecheck/ptx_shapes.py, ptx_convert.py
 * ptx_dot.py and ptx_atomic_half.py (which check their PTX) run on random data against
 * references written here.
 * The fp8 references find the nearest representable value by searching all
 * codes, independently of how the compiler rounds.
 *
 * usage: test_ops FILECHECK_DIR
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "tilec/tilec.h"
#include "emu_test.h"

static const char *dir;

/* Compiles and runs one kernel on one block; 0 on success. */
static int run(const char *file, const char *kernel, const char *sig, int warps, void **args, int nargs,
               EmuBuffer *bufs, int nbufs) {
  return emu_run_file(dir, file, kernel, sig, warps, 1, args, nargs, bufs, nbufs);
}

/* ---- 16- and 8-bit floats, decoded by their definition ---------------------------------- */

static double decode(uint32_t code, int ebits, int mbits, bool ieee_specials) {
  int bias = (1 << (ebits - 1)) - 1, emax = (1 << ebits) - 1;
  uint32_t e = (code >> mbits) & (uint32_t)emax, m = code & ((1u << mbits) - 1);
  double sign = code >> (ebits + mbits) & 1 ? -1 : 1;
  if (ieee_specials && e == (uint32_t)emax) return m ? NAN : sign * INFINITY;
  if (!ieee_specials && e == (uint32_t)emax && m == (1u << mbits) - 1) return NAN; /* e4m3fn */
  if (!e) return sign * ldexp(m, 1 - bias - mbits);
  return sign * ldexp(m + (1u << mbits), (int)e - bias - mbits);
}

static double e4m3(uint32_t c) { return decode(c, 4, 3, false); }
static double e5m2(uint32_t c) { return decode(c, 5, 2, true); }
static float half(uint16_t h) { return (float)decode(h, 5, 10, true); }

/* The nearest fp8 code to x by search (ties to the even code), saturating
 * to the largest finite value; toward zero when rtz. */
static uint32_t fp8_of(double x, double (*dec)(uint32_t), bool rtz) {
  if (isnan(x)) return 0x7f;
  uint32_t best = 0;
  double bd = INFINITY, ax = fabs(x);
  for (uint32_t c = 0; c < 0x80; c++) {
    double v = dec(c);
    if (!isfinite(v)) continue;
    if (rtz && v > ax) continue;
    double d = fabs(v - ax);
    if (d < bd || (d == bd && !(c & 1))) best = c, bd = d;
  }
  /* saturate: beyond the largest finite value */
  return (x < 0 ? 0x80 : 0) | best;
}

/* ---- the shape ops ------------------------------------------------------------------------ */

static void shapes(void) {
  /* join then split: 2x - y */
  {
    enum { N = 128 };
    float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) x[i] = uniform(-1, 1), y[i] = uniform(-1, 1), out[i] = NAN;
    EmuBuffer b[3] = {{x, sizeof x, "x"}, {y, sizeof y, "y"}, {out, sizeof out, "out"}};
    void *p[3] = {x, y, out};
    void *a[3] = {&p[0], &p[1], &p[2]};
    if (!run("ptx_shapes.py", "join_split", "*fp32:16, *fp32:16, *fp32:16, 128", 4, a, 3, b, 3)) {
      int bad = 0;
      for (int i = 0; i < N; i++) bad += out[i] != x[i] * 2.0f - y[i];
      CHECK(bad == 0);
    }
  }
  /* a transpose of a transpose, + 1 */
  {
    enum { M = 32, N = 64 };
    static float x[M * N], out[M * N];
    for (int i = 0; i < M * N; i++) x[i] = uniform(-1, 1), out[i] = NAN;
    EmuBuffer b[2] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}};
    void *p[2] = {x, out};
    void *a[2] = {&p[0], &p[1]};
    if (!run("ptx_shapes.py", "trans_trans", "*fp32:16, *fp32:16, 32, 64", 4, a, 2, b, 2)) {
      int bad = 0;
      for (int i = 0; i < M * N; i++) bad += out[i] != x[i] + 1.0f;
      CHECK(bad == 0);
    }
  }
  /* an fp16 transpose */
  {
    enum { M = 64, N = 32 };
    static uint16_t x[M * N], out[M * N];
    for (int i = 0; i < M * N; i++) x[i] = (uint16_t)(next_u32() & 0x7bff), out[i] = 0xffff;
    EmuBuffer b[2] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}};
    void *p[2] = {x, out};
    void *a[2] = {&p[0], &p[1]};
    if (!run("ptx_shapes.py", "transpose", "*fp16:16, *fp16:16, 64, 32", 4, a, 2, b, 2)) {
      int bad = 0;
      for (int r = 0; r < M; r++)
        for (int c = 0; c < N; c++) bad += out[c * M + r] != x[r * N + c];
      CHECK(bad == 0);
    }
  }
  /* an fp32 transpose through 66048 bytes of shared memory: past the 48 KB
   * a block has without opting in */
  {
    enum { M = 128, N = 128 };
    static float x[M * N], out[M * N];
    for (int i = 0; i < M * N; i++) x[i] = uniform(-1, 1), out[i] = NAN;
    EmuBuffer b[2] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}};
    void *p[2] = {x, out};
    void *a[2] = {&p[0], &p[1]};
    if (!run("ptx_shapes.py", "transpose", "*fp32:16, *fp32:16, 128, 128", 8, a, 2, b, 2)) {
      int bad = 0;
      for (int r = 0; r < M; r++)
        for (int c = 0; c < N; c++) bad += out[c * M + r] != x[r * N + c];
      CHECK(bad == 0);
    }
  }
  /* permute (2, 0, 1): out[a][b][c] = x[b][c][a] */
  {
    enum { N = 8 };
    int32_t x[N * N * N], out[N * N * N];
    for (int i = 0; i < N * N * N; i++) x[i] = (int32_t)next_u32(), out[i] = -1;
    EmuBuffer b[2] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}};
    void *p[2] = {x, out};
    void *a[2] = {&p[0], &p[1]};
    if (!run("ptx_shapes.py", "permute3", "*i32, *i32, 8", 4, a, 2, b, 2)) {
      int bad = 0;
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
          for (int k = 0; k < N; k++) bad += out[(i * N + j) * N + k] != x[(j * N + k) * N + i];
      CHECK(bad == 0);
    }
  }
  /* reshape to rows, then row sums */
  {
    enum { M = 16, N = 64 };
    static float x[M * N], out[M];
    for (int i = 0; i < M * N; i++) x[i] = uniform(-1, 1);
    for (int i = 0; i < M; i++) out[i] = NAN;
    EmuBuffer b[2] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}};
    void *p[2] = {x, out};
    void *a[2] = {&p[0], &p[1]};
    if (!run("ptx_shapes.py", "reshape_rows", "*fp32:16, *fp32:16, 16, 64", 4, a, 2, b, 2)) {
      int bad = 0;
      for (int r = 0; r < M; r++) {
        double s = 0;
        for (int c = 0; c < N; c++) s += x[r * N + c];
        bad += fabs(out[r] - s) > 1e-5;
      }
      CHECK(bad == 0);
    }
  }
  /* cat: x then y */
  {
    enum { N = 128 };
    float x[N], y[N], out[2 * N];
    for (int i = 0; i < N; i++) x[i] = uniform(-1, 1), y[i] = uniform(-1, 1);
    for (int i = 0; i < 2 * N; i++) out[i] = NAN;
    EmuBuffer b[3] = {{x, sizeof x, "x"}, {y, sizeof y, "y"}, {out, sizeof out, "out"}};
    void *p[3] = {x, y, out};
    void *a[3] = {&p[0], &p[1], &p[2]};
    if (!run("ptx_shapes.py", "concat", "*fp32, *fp32, *fp32, 128", 4, a, 3, b, 3)) {
      int bad = 0;
      for (int i = 0; i < N; i++) bad += out[i] != x[i] || out[N + i] != y[i];
      CHECK(bad == 0);
    }
  }
  /* join, stored interleaved, in bf16 */
  {
    enum { N = 128 };
    uint16_t x[N], y[N], out[2 * N];
    for (int i = 0; i < N; i++) x[i] = (uint16_t)next_u32(), y[i] = (uint16_t)next_u32();
    for (int i = 0; i < 2 * N; i++) out[i] = 0;
    EmuBuffer b[3] = {{x, sizeof x, "x"}, {y, sizeof y, "y"}, {out, sizeof out, "out"}};
    void *p[3] = {x, y, out};
    void *a[3] = {&p[0], &p[1], &p[2]};
    if (!run("ptx_shapes.py", "interleave", "*bf16:16, *bf16:16, *bf16:16, 128", 4, a, 3, b, 3)) {
      int bad = 0;
      for (int i = 0; i < N; i++) bad += out[2 * i] != x[i] || out[2 * i + 1] != y[i];
      CHECK(bad == 0);
    }
  }
  /* tl.interleave of two 8x16 blocks (ragged: n of the 128 loaded), of two
   * scalars, and tl.ravel */
  {
    enum { M = 8, N = 16 };
    float x[M * N], y[M * N], out[M * 2 * N + 2], flat[M * N];
    int32_t n = 101;
    for (int i = 0; i < M * N; i++) x[i] = uniform(-4, 4), y[i] = uniform(-4, 4), flat[i] = NAN;
    for (int i = 0; i < M * 2 * N + 2; i++) out[i] = NAN;
    EmuBuffer b[4] = {{x, sizeof x, "x"}, {y, sizeof y, "y"}, {out, sizeof out, "out"}, {flat, sizeof flat, "flat"}};
    void *p[4] = {x, y, out, flat};
    void *a[5] = {&p[0], &p[1], &p[2], &p[3], &n};
    if (!run("ptx_shapes.py", "interleave_rows", "*fp32, *fp32, *fp32, *fp32, i32, 8, 16", 4, a, 5, b, 4)) {
      int bad = 0;
      for (int r = 0; r < M; r++)
        for (int c = 0; c < 2 * N; c++) {
          int src = r * N + c / 2;
          float want = src < n ? (c % 2 ? y[src] : x[src]) : NAN;
          float got = out[r * 2 * N + c];
          bad += src < n ? got != want : !isnan(got);
        }
      bad += out[M * 2 * N] != x[0] || out[M * 2 * N + 1] != y[1];
      for (int i = 0; i < M * N; i++) bad += flat[i] != (i < n ? x[i] * 2.0f - y[i] : 0.0f);
      CHECK(bad == 0);
    }
  }
}

/* ---- conversions -------------------------------------------------------------------------- */

static void conversions(void) {
  enum { N = 256 };
  /* fp8: e4m3 to nearest even (with values past the largest, 448, that
   * saturate), e5m2 toward zero, back to f32 and f16, and a constant */
  {
    float x[N], out[N];
    uint8_t q[N];
    for (int i = 0; i < N; i++) {
      float scale = i % 4 == 0 ? 1e-3f : i % 4 == 1 ? 1.0f : i % 4 == 2 ? 60.0f : 600.0f;
      x[i] = uniform(-1, 1) * scale;
      out[i] = NAN;
    }
    x[0] = 0.0f, x[1] = 448.0f, x[2] = 464.0f, x[3] = -1e9f; /* zero, the largest, a tie past it, far past it */
    EmuBuffer b[3] = {{x, sizeof x, "x"}, {q, sizeof q, "q"}, {out, sizeof out, "out"}};
    void *p[3] = {x, q, out};
    void *a[3] = {&p[0], &p[1], &p[2]};
    if (!run("ptx_convert.py", "fp8_round_trip", "*fp32:16, *fp8e4nv:16, *fp32:16, 256", 4, a, 3, b, 3)) {
      int bad_q = 0, bad_out = 0;
      for (int i = 0; i < N; i++) {
        uint32_t want = fp8_of(x[i], e4m3, false);
        if (q[i] != want) {
          if (!bad_q) fprintf(stderr, "fp8_round_trip: %.9g became e4m3 0x%02x, want 0x%02x\n", (double)x[i], q[i], want);
          bad_q++;
        }
        float coarse = (float)e5m2(fp8_of(x[i], e5m2, true)); /* exact in f16 */
        float expect = (float)e4m3(want) + coarse + 1.5f;
        if (!(out[i] == expect)) {
          if (!bad_out) fprintf(stderr, "fp8_round_trip: out[%d] is %.9g, want %.9g\n", i, (double)out[i], (double)expect);
          bad_out++;
        }
      }
      CHECK(bad_q == 0);
      CHECK(bad_out == 0);
      CHECK(q[1] == 0x7e && q[2] == 0x7e && q[3] == 0xfe); /* saturated, never NaN */
    }
  }
  /* integers to e5m2 and back to i16 (toward zero) */
  {
    int32_t x[N];
    uint8_t q[N];
    int16_t out[N];
    for (int i = 0; i < N; i++) x[i] = (int32_t)(next_u32() % 2001) - 1000, out[i] = -7;
    EmuBuffer b[3] = {{x, sizeof x, "x"}, {q, sizeof q, "q"}, {out, sizeof out, "out"}};
    void *p[3] = {x, q, out};
    void *a[3] = {&p[0], &p[1], &p[2]};
    if (!run("ptx_convert.py", "fp8_ints", "*i32, *fp8e5, *i16, 256", 4, a, 3, b, 3)) {
      int bad = 0;
      for (int i = 0; i < N; i++) {
        uint32_t want = fp8_of(x[i], e5m2, false);
        bad += q[i] != want || out[i] != (int16_t)e5m2(want);
      }
      CHECK(bad == 0);
    }
  }
  /* f32 to f16 and bf16, toward zero */
  {
    float x[N];
    uint16_t h[N], bf[N];
    for (int i = 0; i < N; i++) x[i] = uniform(-1, 1) * (i % 3 == 0 ? 1e-6f : i % 3 == 1 ? 3.0f : 7e4f);
    EmuBuffer b[3] = {{x, sizeof x, "x"}, {h, sizeof h, "h"}, {bf, sizeof bf, "bf"}};
    void *p[3] = {x, h, bf};
    void *a[3] = {&p[0], &p[1], &p[2]};
    if (!run("ptx_convert.py", "round_toward_zero", "*fp32:16, *fp16:16, *bf16:16, 256", 4, a, 3, b, 3)) {
      int bad = 0;
      for (int i = 0; i < N; i++) {
        /* the f16 of largest magnitude not beyond |x| (the largest finite one when |x| is past it) */
        uint32_t lo = 0, hi = 0x7bff; /* finite codes grow with their value: search */
        while (lo < hi) {
          uint32_t mid = (lo + hi + 1) / 2;
          if (half((uint16_t)mid) <= fabsf(x[i])) lo = mid;
          else hi = mid - 1;
        }
        uint16_t want = (uint16_t)(lo | (x[i] < 0 ? 0x8000 : 0));
        uint32_t xb;
        memcpy(&xb, &x[i], 4);
        bad += h[i] != want || bf[i] != (uint16_t)(xb >> 16);
      }
      CHECK(bad == 0);
    }
  }
}

/* ---- tl.dot ------------------------------------------------------------------------------- */

/* x as a tensor core reads a tf32 operand: the low 13 bits of its fp32
 * mantissa dropped (PTX ISA: the other bits are ignored). */
static double tf32(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  u &= ~0x1fffu;
  memcpy(&x, &u, 4);
  return x;
}

/* Counts the elements of c (M x N) that differ from a @ b computed in
 * double by more than tol times the sum of |a||b| over K. */
static int dot_differs(const double *a, const double *b, const double *c, int batch, int M, int K, int N, double tol) {
  int bad = 0;
  for (int i = 0; i < batch; i++)
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) {
        double want = 0, mag = 0;
        for (int k = 0; k < K; k++) {
          double p = a[(i * M + m) * K + k] * b[(i * K + k) * N + n];
          want += p, mag += fabs(p);
        }
        double got = c[(i * M + m) * N + n];
        if (!(fabs(got - want) <= tol * mag + 1e-30)) {
          if (!bad) fprintf(stderr, "dot: [%d][%d][%d] is %.9g, want %.9g\n", i, m, n, got, want);
          bad++;
        }
      }
  return bad;
}

/* n random fp16 operands of a dot, exponents -5..2 (their products exact
 * in fp32), in h and, decoded, in d. */
static void random_halves(uint16_t *h, double *d, int n) {
  for (int i = 0; i < n; i++) h[i] = (uint16_t)((next_u32() & 0x83ff) | (uint32_t)(10 + next_u32() % 8) << 10), d[i] = half(h[i]);
}

static void dots(void) {
  /* fp16 operands, fp32 accumulator: the products are exact in fp32 */
  {
    enum { M = 32, K = 16, N = 32 };
    static uint16_t a[M * K], b[K * N];
    static float c[M * N];
    static double da[M * K], db[K * N], dc[M * N];
    random_halves(a, da, M * K);
    random_halves(b, db, K * N);
    for (int i = 0; i < M * N; i++) c[i] = NAN;
    EmuBuffer bf[3] = {{a, sizeof a, "a"}, {b, sizeof b, "b"}, {c, sizeof c, "c"}};
    void *p[3] = {a, b, c};
    void *args[3] = {&p[0], &p[1], &p[2]};
    if (!run("ptx_dot.py", "dot2d", "*fp16:16, *fp16:16, *fp32:16, 32, 16, 32", 4, args, 3, bf, 3)) {
      for (int i = 0; i < M * N; i++) dc[i] = c[i];
      CHECK(dot_differs(da, db, dc, 1, M, K, N, 1e-6) == 0);
    }
  }
  /* the same product reduced in the dot's own layout (slices of the MMA
   * layout, across the warps of [2, 2]): row maxima, the rows less their
   * maximum, and the column sums of that */
  {
    enum { M = 64, K = 16, N = 64 };
    static uint16_t a[M * K], b[K * N];
    static float c[M * N], rmax[M], csum[N];
    static double da[M * K], db[K * N], dc[M * N], want[M * N];
    random_halves(a, da, M * K);
    random_halves(b, db, K * N);
    for (int i = 0; i < M * N; i++) c[i] = NAN;
    EmuBuffer bf[5] = {{a, sizeof a, "a"}, {b, sizeof b, "b"}, {c, sizeof c, "c"}, {rmax, sizeof rmax, "rmax"}, {csum, sizeof csum, "csum"}};
    void *p[5] = {a, b, c, rmax, csum};
    void *args[5] = {&p[0], &p[1], &p[2], &p[3], &p[4]};
    if (!run("ptx_dot.py", "dot_reduce", "*fp16:16, *fp16:16, *fp32:16, *fp32:16, *fp32:16, 64, 16, 64", 4, args, 5, bf, 5)) {
      for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
          double s = 0;
          for (int k = 0; k < K; k++) s += da[m * K + k] * db[k * N + n];
          want[m * N + n] = s;
        }
      int bad = 0;
      for (int m = 0; m < M; m++) {
        double mx = -INFINITY;
        for (int n = 0; n < N; n++) mx = fmax(mx, want[m * N + n]);
        if (fabs(rmax[m] - mx) > 1e-5 * fabs(mx) + 1e-30) bad++;
        for (int n = 0; n < N; n++) {
          dc[m * N + n] = want[m * N + n] - mx;
          if (fabs(c[m * N + n] - dc[m * N + n]) > 1e-5 * fabs(mx) + 1e-30) bad++;
        }
      }
      for (int n = 0; n < N; n++) {
        double s = 0, mag = 0;
        for (int m = 0; m < M; m++) s += dc[m * N + n], mag += fabs(dc[m * N + n]);
        if (fabs(csum[n] - s) > 1e-5 * mag + 1e-30) bad++;
      }
      if (bad) fprintf(stderr, "dot_reduce: %d values differ\n", bad);
      CHECK(bad == 0);
    }
  }
  /* acc += tl.dot(a, b) over a K loop, folded into the dot's accumulator
   * (ptx_dot.py's dot_acc_add): 5 steps of 16 */
  {
    enum { M = 64, K = 80, N = 64 };
    static uint16_t a[M * K], b[K * N];
    static float c[M * N];
    static double da[M * K], db[K * N], dc[M * N];
    random_halves(a, da, M * K);
    random_halves(b, db, K * N);
    for (int i = 0; i < M * N; i++) c[i] = NAN;
    EmuBuffer bf[3] = {{a, sizeof a, "a"}, {b, sizeof b, "b"}, {c, sizeof c, "c"}};
    void *p[3] = {a, b, c};
    int32_t k = K;
    void *args[4] = {&p[0], &p[1], &p[2], &k};
    if (!run("ptx_dot.py", "dot_acc_add", "*fp16:16, *fp16:16, *fp32:16, i32:16, 64, 16, 64", 4, args, 4, bf, 3)) {
      for (int i = 0; i < M * N; i++) dc[i] = c[i];
      CHECK(dot_differs(da, db, dc, 1, M, K, N, 1e-6) == 0);
    }
  }
  /* the result to the store's layout by 16-byte words (lower_convert.c,
   * ptx_dot.py's dot2d, storing fp16 or fp32), fp16 and fp32, over 2, 4 and 8 warps;
   * and a tile too small for words, element by element: every element in
   * its place, none lost or doubled */
  {
    static const struct { int M, K, N, warps, f16; } cases[] = {
        {128, 16, 128, 4, 1}, {64, 16, 64, 2, 0}, {128, 32, 64, 8, 1}, {64, 16, 128, 4, 0}, {256, 16, 64, 8, 1}, {16, 16, 16, 2, 1}, {128, 16, 64, 4, 1}, {128, 32, 32, 4, 1},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
      int M = cases[ci].M, K = cases[ci].K, N = cases[ci].N, f16 = cases[ci].f16;
      uint16_t *a = calloc((size_t)(M * K), 2), *b = calloc((size_t)(K * N), 2);
      void *c = calloc((size_t)(M * N), 4);
      double *da = calloc((size_t)(M * K), sizeof(double)), *db = calloc((size_t)(K * N), sizeof(double)),
             *dc = calloc((size_t)(M * N), sizeof(double));
      random_halves(a, da, M * K);
      random_halves(b, db, K * N);
      EmuBuffer bf[3] = {{a, (size_t)(M * K) * 2, "a"}, {b, (size_t)(K * N) * 2, "b"}, {c, (size_t)(M * N) * (f16 ? 2 : 4), "c"}};
      void *p[3] = {a, b, c};
      void *args[3] = {&p[0], &p[1], &p[2]};
      char sig[96];
      snprintf(sig, sizeof sig, "*fp16:16, *fp16:16, *%s:16, %d, %d, %d", f16 ? "fp16" : "fp32", M, K, N);
      if (!run("ptx_dot.py", "dot2d", sig, cases[ci].warps, args, 3, bf, 3)) {
        for (int i = 0; i < M * N; i++) dc[i] = f16 ? half(((uint16_t *)c)[i]) : ((float *)c)[i];
        /* fp16's rounding: within 2^-10 of the sum of |a||b| */
        int bad = dot_differs(da, db, dc, 1, M, K, N, f16 ? 1.0 / 1024 : 1e-6);
        if (bad) fprintf(stderr, "dot2d %dx%dx%d, %d warps, %s: %d values differ\n", M, K, N, cases[ci].warps, f16 ? "fp16" : "fp32", bad);
        CHECK(bad == 0);
      }
      free(a), free(b), free(c), free(da), free(db), free(dc);
    }
  }
  /* a loaded row vector and a causal mask in the dot's layout
   * (ptx_dot.py's dot_rowvec): C = where(m >= n, A @ B - v[n], 0) */
  {
    enum { M = 64, K = 16, N = 64 };
    static uint16_t a[M * K], b[K * N];
    static float v[N], c[M * N];
    static double da[M * K], db[K * N], want[M * N], dc[M * N];
    random_halves(a, da, M * K);
    random_halves(b, db, K * N);
    for (int i = 0; i < N; i++) v[i] = uniform(-4, 4);
    for (int i = 0; i < M * N; i++) c[i] = NAN;
    EmuBuffer bf[4] = {{a, sizeof a, "a"}, {b, sizeof b, "b"}, {v, sizeof v, "m"}, {c, sizeof c, "c"}};
    void *p[4] = {a, b, v, c};
    void *args[4] = {&p[0], &p[1], &p[2], &p[3]};
    if (!run("ptx_dot.py", "dot_rowvec", "*fp16:16, *fp16:16, *fp32:16, *fp32:16, 64, 16, 64", 4, args, 4, bf, 4)) {
      /* C + v on and below the diagonal is the product; above it, v - v = 0 is what the product must not be */
      int bad = 0;
      for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
          bool kept = m >= n;
          dc[m * N + n] = kept ? (double)c[m * N + n] + v[n] : 0;
          bad += !kept && c[m * N + n] != 0.0f;
        }
      for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
          double s = 0;
          for (int k = 0; k < K; k++) s += da[m * K + k] * db[k * N + n];
          want[m * N + n] = m >= n ? s : 0;
        }
      for (int i = 0; i < M * N; i++) bad += fabs(dc[i] - want[i]) > 1e-5 * (fabs(want[i]) + 4);
      CHECK(bad == 0);
    }
  }
  /* Q @ K^T with K loaded as it lies (ptx_dot.py's dot_kt): copied by
   * cp.async into B's buffer laid [N][K], read by ldmatrix without .trans */
  {
    enum { M = 64, K = 32, N = 64 };
    static uint16_t q[M * K], kk[N * K];
    static float sc[M * N];
    static double dq[M * K], dkt[K * N], ds[M * N];
    random_halves(q, dq, M * K);
    for (int i = 0; i < N * K; i++) kk[i] = (uint16_t)((next_u32() & 0x83ff) | (uint32_t)(10 + next_u32() % 8) << 10);
    for (int n = 0; n < N; n++)
      for (int k = 0; k < K; k++) dkt[k * N + n] = half(kk[n * K + k]);
    for (int i = 0; i < M * N; i++) sc[i] = NAN;
    EmuBuffer bf[3] = {{q, sizeof q, "q"}, {kk, sizeof kk, "k"}, {sc, sizeof sc, "s"}};
    void *p[3] = {q, kk, sc};
    void *args[3] = {&p[0], &p[1], &p[2]};
    if (!run("ptx_dot.py", "dot_kt", "*fp16:16, *fp16:16, *fp32:16, 64, 32, 64", 4, args, 3, bf, 3)) {
      for (int i = 0; i < M * N; i++) ds[i] = sc[i];
      CHECK(dot_differs(dq, dkt, ds, 1, M, K, N, 1e-6) == 0);
    }
    /* the same product with B loaded as [K, N] from its [N][K] memory
     * (ptx_dot.py's dot_bt): K B's fastest dimension, copied as it lies */
    for (int i = 0; i < M * N; i++) sc[i] = NAN;
    if (!run("ptx_dot.py", "dot_bt", "*fp16:16, *fp16:16, *fp32:16, 64, 32, 64", 4, args, 3, bf, 3)) {
      for (int i = 0; i < M * N; i++) ds[i] = sc[i];
      CHECK(dot_differs(dq, dkt, ds, 1, M, K, N, 1e-6) == 0);
    }
  }
  /* one load read by two dots, as it lies and transposed (ptx_dot.py's
   * dot_two_ways, attention backward's Q^T): S = sum_i K @ Q_i^T and
   * G = sum_i X @ Q_i over 3 steps, pipelined (one copy, two reads) and
   * not, at two tile heights; and on sm_89 at a size where K and X
   * converted before the loop would take 112 KB of shared memory beside
   * the loop's 4 slots (sm_89 has 99 KB): compiled again with them
   * converted in the loop, 96 KB */
  for (int variant = 0; variant < 3; variant++) {
    enum { STEPS = 3 };
    int BN = variant == 2 ? 128 : 64, D = variant == 2 ? 128 : 64;
    int BM = variant ? variant == 2 ? 64 : 32 : 16, stages = variant == 1 ? 1 : variant == 2 ? 5 : 3;
    uint16_t *k = calloc((size_t)(BN * D), 2), *x = calloc((size_t)(BN * BM), 2), *q = calloc((size_t)(STEPS * BM * D), 2);
    float *sc = calloc((size_t)(BN * BM), 4), *g = calloc((size_t)(BN * D), 4);
    double *dk = calloc((size_t)(BN * D), sizeof(double)), *dx = calloc((size_t)(BN * BM), sizeof(double));
    double *dq = calloc((size_t)(STEPS * BM * D), sizeof(double));
    double *a1 = calloc((size_t)(BN * STEPS * D), sizeof(double)), *b1 = calloc((size_t)(STEPS * D * BM), sizeof(double));
    double *a2 = calloc((size_t)(BN * STEPS * BM), sizeof(double)), *got = calloc((size_t)(BN * D), sizeof(double));
    random_halves(k, dk, BN * D);
    random_halves(x, dx, BN * BM);
    random_halves(q, dq, STEPS * BM * D);
    for (int i = 0; i < BN * BM; i++) sc[i] = NAN;
    for (int i = 0; i < BN * D; i++) g[i] = NAN;
    /* both sums as one product each: S = [K K K] @ [Q_0^T; Q_1^T; Q_2^T], G = [X X X] @ Q */
    for (int i = 0; i < STEPS; i++) {
      for (int n = 0; n < BN; n++)
        for (int d = 0; d < D; d++) a1[n * STEPS * D + i * D + d] = dk[n * D + d];
      for (int d = 0; d < D; d++)
        for (int m = 0; m < BM; m++) b1[(i * D + d) * BM + m] = dq[(i * BM + m) * D + d];
      for (int n = 0; n < BN; n++)
        for (int m = 0; m < BM; m++) a2[n * STEPS * BM + i * BM + m] = dx[n * BM + m];
    }
    EmuBuffer bf[5] = {{k, (size_t)(BN * D) * 2, "k"}, {x, (size_t)(BN * BM) * 2, "x"}, {q, (size_t)(STEPS * BM * D) * 2, "q"},
                       {sc, (size_t)(BN * BM) * 4, "s"}, {g, (size_t)(BN * D) * 4, "g"}};
    void *p[5] = {k, x, q, sc, g};
    int32_t steps = STEPS;
    void *args[6] = {&p[0], &p[1], &p[2], &p[3], &p[4], &steps};
    char sig[128];
    snprintf(sig, sizeof sig, "*fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, %d, %d, %d, %d", BN, BM, D, stages);
    if (!emu_run_file_on(variant == 2 ? "sm_89" : NULL, dir, "ptx_dot.py", "dot_two_ways", sig, 4, 1, args, 6, bf, 5)) {
      for (int i = 0; i < BN * BM; i++) got[i] = sc[i];
      int bad = dot_differs(a1, b1, got, 1, BN, STEPS * D, BM, 1e-6);
      for (int i = 0; i < BN * D; i++) got[i] = g[i];
      bad += dot_differs(a2, dq, got, 1, BN, STEPS * BM, D, 1e-6);
      if (bad) fprintf(stderr, "dot_two_ways, %dx%dx%d, %d stages: %d values differ\n", BN, BM, D, stages, bad);
      CHECK(bad == 0);
    }
    free(k), free(x), free(q), free(sc), free(g), free(dk), free(dx), free(dq), free(a1), free(b1), free(a2), free(got);
  }
  /* one load as both operands (ptx_dot.py's dot_self): Y = X @ X and
   * Z = X @ X^T from one copy in shared memory */
  {
    enum { N = 64 };
    static uint16_t x[N * N];
    static float y[N * N], z[N * N];
    static double dx[N * N], dxt[N * N], got[N * N];
    random_halves(x, dx, N * N);
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) dxt[j * N + i] = dx[i * N + j];
    for (int i = 0; i < N * N; i++) y[i] = z[i] = NAN;
    EmuBuffer bf[3] = {{x, sizeof x, "x"}, {y, sizeof y, "y"}, {z, sizeof z, "z"}};
    void *p[3] = {x, y, z};
    void *args[3] = {&p[0], &p[1], &p[2]};
    if (!run("ptx_dot.py", "dot_self", "*fp16:16, *fp32:16, *fp32:16, 64", 4, args, 3, bf, 3)) {
      for (int i = 0; i < N * N; i++) got[i] = y[i];
      int bad = dot_differs(dx, dx, got, 1, N, N, N, 1e-6);
      for (int i = 0; i < N * N; i++) got[i] = z[i];
      bad += dot_differs(dx, dxt, got, 1, N, N, N, 1e-6);
      if (bad) fprintf(stderr, "dot_self: %d values differ\n", bad);
      CHECK(bad == 0);
    }
  }
  /* a K loop over a paged cache (ptx_dot.py's dot_paged): O = P @ KV[table]
   * over 100 rows in steps of 32, the rows' indices loaded ahead in
   * registers, the rows gathered by cp.async; the table a permutation of a
   * cache of 160 rows, and the last step's rows past 100 masked */
  {
    enum { M = 16, D = 64, BN = 32, ROWS = 100, NP = 128, CACHE = 160 };
    static uint16_t pm[M * NP], kv[CACHE * D];
    static int32_t table[ROWS];
    static float o[M * D];
    static double dp[M * NP], dkv[CACHE * D], dg[ROWS * D];
    random_halves(pm, dp, M * NP);
    random_halves(kv, dkv, CACHE * D);
    int32_t perm[CACHE];
    for (int i = 0; i < CACHE; i++) perm[i] = i;
    for (int i = CACHE - 1; i > 0; i--) {
      int j = (int)(next_u32() % (uint32_t)(i + 1));
      int32_t t = perm[i];
      perm[i] = perm[j], perm[j] = t;
    }
    for (int r = 0; r < ROWS; r++) {
      table[r] = perm[r];
      for (int d = 0; d < D; d++) dg[r * D + d] = dkv[perm[r] * D + d];
    }
    double da[M * ROWS];
    for (int m = 0; m < M; m++)
      for (int r = 0; r < ROWS; r++) da[m * ROWS + r] = dp[m * NP + r];
    for (int i = 0; i < M * D; i++) o[i] = NAN;
    EmuBuffer bf[4] = {{pm, sizeof pm, "p"}, {kv, sizeof kv, "kv"}, {table, sizeof table, "table"}, {o, sizeof o, "o"}};
    void *p[4] = {pm, kv, table, o};
    int32_t rows = ROWS, stride = NP;
    void *args[6] = {&p[0], &p[1], &p[2], &p[3], &rows, &stride};
    if (!run("ptx_dot.py", "dot_paged", "*fp16:16, *fp16:16, *i32:16, *fp32:16, i32, i32:16, 16, 64, 32", 4, args, 6, bf, 4)) {
      double got[M * D];
      for (int i = 0; i < M * D; i++) got[i] = o[i];
      int bad = dot_differs(da, dg, got, 1, M, ROWS, D, 1e-6);
      if (bad) fprintf(stderr, "dot_paged: %d values differ\n", bad);
      CHECK(bad == 0);
    }
  }
  /* P = (A @ B) in fp16 as the next dot's A operand, in registers
   * (ptx_dot.py's dot_chain): O = P @ V within fp16's rounding of P; on 4
   * warps, and on 8 with both dots' warps along M ([8, 1]) */
  for (int wide = 0; wide < 2; wide++) {
    enum { M = 128, K = 64, N = 64 };
    static uint16_t a[M * K], b[K * K], v[K * N];
    static float o[M * N];
    static double da[M * K], db[K * K], dv[K * N], dp[M * K];
    for (int i = 0; i < M * K; i++) a[i] = (uint16_t)((next_u32() & 0x83ff) | (uint32_t)(12 + next_u32() % 4) << 10), da[i] = half(a[i]);
    for (int i = 0; i < K * K; i++) b[i] = (uint16_t)((next_u32() & 0x83ff) | (uint32_t)(12 + next_u32() % 4) << 10), db[i] = half(b[i]);
    for (int i = 0; i < K * N; i++) v[i] = (uint16_t)((next_u32() & 0x83ff) | (uint32_t)(12 + next_u32() % 4) << 10), dv[i] = half(v[i]);
    for (int i = 0; i < M * N; i++) o[i] = NAN;
    EmuBuffer bf[4] = {{a, sizeof a, "a"}, {b, sizeof b, "b"}, {v, sizeof v, "v"}, {o, sizeof o, "o"}};
    void *p[4] = {a, b, v, o};
    void *args[4] = {&p[0], &p[1], &p[2], &p[3]};
    if (!run("ptx_dot.py", "dot_chain", wide ? "*fp16:16, *fp16:16, *fp16:16, *fp32:16, 128, 64, 64" : "*fp16:16, *fp16:16, *fp16:16, *fp32:16, 64, 16, 32",
             wide ? 8 : 4, args, 4, bf, 4)) {
      int M_ = wide ? M : 64, K_ = wide ? K : 16, N_ = wide ? N : 32;
      for (int m = 0; m < M_; m++)
        for (int j = 0; j < K_; j++) {
          double s = 0;
          for (int k = 0; k < K_; k++) s += da[m * K_ + k] * db[k * K_ + j];
          dp[m * K_ + j] = s;
        }
      int bad = 0;
      for (int m = 0; m < M_; m++)
        for (int n = 0; n < N_; n++) {
          double want = 0, mag = 0;
          for (int k = 0; k < K_; k++) want += dp[m * K_ + k] * dv[k * N_ + n], mag += fabs(dp[m * K_ + k] * dv[k * N_ + n]);
          if (!(fabs(o[m * N_ + n] - want) <= 1e-3 * mag + 1e-30)) {
            if (!bad) fprintf(stderr, "dot_chain: [%d][%d] is %.9g, want %.9g\n", m, n, (double)o[m * N_ + n], want);
            bad++;
          }
        }
      CHECK(bad == 0);
    }
  }
  /* fp8 operands (e4m3 and e5m2, each code but NaN), upcast to fp16: the
   * products are exact in fp32, the sums within fp32's rounding */
  for (int kind = 0; kind < 2; kind++) {
    enum { M = 32, K = 16, N = 32 };
    static uint8_t a[M * K], b[K * N];
    static float c[M * N];
    static double da[M * K], db[K * N], dc[M * N];
    double (*dec)(uint32_t) = kind ? e5m2 : e4m3;
    for (int i = 0; i < M * K + K * N; i++) {
      uint8_t code;
      do code = (uint8_t)next_u32(); while (isnan(dec(code)) || isinf(dec(code)));
      if (i < M * K) a[i] = code, da[i] = dec(code);
      else b[i - M * K] = code, db[i - M * K] = dec(code);
    }
    for (int i = 0; i < M * N; i++) c[i] = NAN;
    EmuBuffer bf[3] = {{a, sizeof a, "a"}, {b, sizeof b, "b"}, {c, sizeof c, "c"}};
    void *p[3] = {a, b, c};
    void *args[3] = {&p[0], &p[1], &p[2]};
    const char *sig = kind ? "*fp8e5:16, *fp8e5:16, *fp32:16, 32, 16, 32" : "*fp8e4nv:16, *fp8e4nv:16, *fp32:16, 32, 16, 32";
    if (!run("ptx_dot.py", "dot2d", sig, 4, args, 3, bf, 3)) {
      for (int i = 0; i < M * N; i++) dc[i] = c[i];
      CHECK(dot_differs(da, db, dc, 1, M, K, N, 1e-6) == 0);
    }
  }
  /* fp32: by default tf32 on tensor cores, each input's low 13 bits of
   * mantissa dropped and the rest as exact products summed in fp32; with
   * input_precision="ieee" fp32 fused multiply-adds of the inputs whole;
   * with "tf32x3" three tf32 products of the split inputs, within a few
   * units of 2^-20 of the whole products (tf32 alone is 2^-10 off) */
  for (int x3 = 0; x3 < 2; x3++) {
    enum { M = 16, K = 32, N = 64 };
    static float a[M * K], b[K * N], c[M * N];
    static double da[M * K], db[K * N], dc[M * N];
    for (int i = 0; i < M * K; i++) da[i] = a[i] = uniform(-1, 1);
    for (int i = 0; i < K * N; i++) db[i] = b[i] = uniform(-1, 1);
    for (int i = 0; i < M * N; i++) c[i] = NAN;
    EmuBuffer bf[3] = {{a, sizeof a, "a"}, {b, sizeof b, "b"}, {c, sizeof c, "c"}};
    void *p[3] = {a, b, c};
    void *args[3] = {&p[0], &p[1], &p[2]};
    if (!run("ptx_dot.py", x3 ? "dot2d_x3" : "dot2d", "*fp32:16, *fp32:16, *fp32:16, 16, 32, 64", 4, args, 3, bf, 3)) {
      for (int i = 0; i < M * N; i++) dc[i] = c[i];
      if (x3) CHECK(dot_differs(da, db, dc, 1, M, K, N, 4e-6 + 4e-7 * K) == 0);
      else CHECK(dot_differs(da, db, dc, 1, M, K, N, 1e-4) > 0); /* plain tf32 is not that close */
    }
  }
  for (int ieee = 0; ieee < 2; ieee++) {
    enum { M = 16, K = 32, N = 64 };
    static float a[M * K], b[K * N], c[M * N];
    static double da[M * K], db[K * N], dc[M * N];
    for (int i = 0; i < M * K; i++) a[i] = uniform(-1, 1), da[i] = ieee ? a[i] : tf32(a[i]);
    for (int i = 0; i < K * N; i++) b[i] = uniform(-1, 1), db[i] = ieee ? b[i] : tf32(b[i]);
    for (int i = 0; i < M * N; i++) c[i] = NAN;
    EmuBuffer bf[3] = {{a, sizeof a, "a"}, {b, sizeof b, "b"}, {c, sizeof c, "c"}};
    void *p[3] = {a, b, c};
    void *args[3] = {&p[0], &p[1], &p[2]};
    if (!run("ptx_dot.py", ieee ? "dot2d_ieee" : "dot2d", "*fp32:16, *fp32:16, *fp32:16, 16, 32, 64", 4, args, 3, bf, 3)) {
      for (int i = 0; i < M * N; i++) dc[i] = c[i];
      CHECK(dot_differs(da, db, dc, 1, M, K, N, 4e-7 * K) == 0);
    }
  }
  /* bf16 operands: the top halves of fp32 values */
  {
    enum { M = 32, K = 32, N = 32 };
    static uint16_t a[M * K], b[K * N];
    static float c[M * N];
    static double da[M * K], db[K * N], dc[M * N];
    for (int i = 0; i < M * K + K * N; i++) {
      float f = uniform(-2, 2);
      uint32_t u;
      memcpy(&u, &f, 4);
      uint16_t h = (uint16_t)(u >> 16);
      u = (uint32_t)h << 16;
      memcpy(&f, &u, 4);
      if (i < M * K) a[i] = h, da[i] = f;
      else b[i - M * K] = h, db[i - M * K] = f;
    }
    for (int i = 0; i < M * N; i++) c[i] = NAN;
    EmuBuffer bf[3] = {{a, sizeof a, "a"}, {b, sizeof b, "b"}, {c, sizeof c, "c"}};
    void *p[3] = {a, b, c};
    void *args[3] = {&p[0], &p[1], &p[2]};
    if (!run("ptx_dot.py", "dot2d", "*bf16:16, *bf16:16, *fp32:16, 32, 32, 32", 4, args, 3, bf, 3)) {
      for (int i = 0; i < M * N; i++) dc[i] = c[i];
      CHECK(dot_differs(da, db, dc, 1, M, K, N, 4e-7 * K) == 0);
    }
  }
  /* int8 in int32: exact */
  {
    enum { M = 32, K = 32, N = 32 };
    static int8_t a[M * K], b[K * N];
    static int32_t c[M * N];
    for (int i = 0; i < M * K; i++) a[i] = (int8_t)(next_u32() % 255 - 127);
    for (int i = 0; i < K * N; i++) b[i] = (int8_t)(next_u32() % 255 - 127);
    for (int i = 0; i < M * N; i++) c[i] = -1;
    EmuBuffer bf[3] = {{a, sizeof a, "a"}, {b, sizeof b, "b"}, {c, sizeof c, "c"}};
    void *p[3] = {a, b, c};
    void *args[3] = {&p[0], &p[1], &p[2]};
    if (!run("ptx_dot.py", "dot2d", "*i8:16, *i8:16, *i32:16, 32, 32, 32", 4, args, 3, bf, 3)) {
      int bad = 0;
      for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
          int32_t want = 0;
          for (int k = 0; k < K; k++) want += a[m * K + k] * b[k * N + n];
          bad += c[m * N + n] != want;
        }
      CHECK(bad == 0);
    }
  }
  /* an fp16 accumulator starting at 1: small integers, so every partial sum
   * is exact; on 4 warps FMAs, on 2 mma.sync */
  for (int warps = 4; warps >= 2; warps -= 2) {
    enum { M = 16, K = 16, N = 16 };
    static const uint16_t codes[4] = {0xc000, 0xbc00, 0x3c00, 0x4000}; /* -2, -1, 1, 2 */
    static uint16_t a[M * K], b[K * N], c[M * N];
    for (int i = 0; i < M * K; i++) a[i] = codes[next_u32() % 4];
    for (int i = 0; i < K * N; i++) b[i] = codes[next_u32() % 4];
    for (int i = 0; i < M * N; i++) c[i] = 0x7e00;
    EmuBuffer bf[3] = {{a, sizeof a, "a"}, {b, sizeof b, "b"}, {c, sizeof c, "c"}};
    void *p[3] = {a, b, c};
    void *args[3] = {&p[0], &p[1], &p[2]};
    if (!run("ptx_dot.py", "dot_f16_acc", "*fp16:16, *fp16:16, *fp16:16, 16, 16, 16", warps, args, 3, bf, 3)) {
      int bad = 0;
      for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
          double want = 1;
          for (int k = 0; k < K; k++) want += half(a[m * K + k]) * half(b[k * N + n]);
          bad += half(c[m * N + n]) != want;
        }
      CHECK(bad == 0);
    }
  }
  /* fp8 operands (e4m3 A, e5m2 B) into that fp16 accumulator: on 2 warps
   * and K of 32 they stay fp8 into shared memory and are widened after, for
   * fp16's instruction (sm_80), or stay fp16's after a widening at the load
   * (sm_89, whose fp8 instruction has no fp16 accumulator in PTX 8.4) */
  for (int sm89 = 0; sm89 < 2; sm89++) {
    enum { M = 16, K = 32, N = 16 };
    static const uint8_t e4[4] = {0xc0, 0xb8, 0x38, 0x40}, e5[4] = {0xc0, 0xbc, 0x3c, 0x40}; /* -2, -1, 1, 2 */
    static const double val[4] = {-2, -1, 1, 2};
    static uint8_t a[M * K], b[K * N];
    static uint16_t c[M * N];
    static int ia[M * K], ib[K * N];
    for (int i = 0; i < M * K; i++) ia[i] = (int)(next_u32() % 4), a[i] = e4[ia[i]];
    for (int i = 0; i < K * N; i++) ib[i] = (int)(next_u32() % 4), b[i] = e5[ib[i]];
    for (int i = 0; i < M * N; i++) c[i] = 0x7e00;
    EmuBuffer bf[3] = {{a, sizeof a, "a"}, {b, sizeof b, "b"}, {c, sizeof c, "c"}};
    void *p[3] = {a, b, c};
    void *args[3] = {&p[0], &p[1], &p[2]};
    if (!emu_run_file_on(sm89 ? "sm_89" : NULL, dir, "ptx_dot.py", "dot_f16_acc", "*fp8e4nv:16, *fp8e5:16, *fp16:16, 16, 32, 16", 2,
                         1, args, 3, bf, 3)) {
      int bad = 0;
      for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
          double want = 1;
          for (int k = 0; k < K; k++) want += val[ia[m * K + k]] * val[ib[k * N + n]];
          bad += half(c[m * N + n]) != want;
        }
      CHECK(bad == 0);
    }
  }
  /* a constant A, made in its dot layout: every row of C is twice B's
   * column sums; on 4 warps FMAs, on 1 mma.sync */
  for (int warps = 4; warps >= 1; warps -= 3) {
    enum { M = 16, K = 16, N = 16 };
    static const uint16_t codes[4] = {0xc000, 0xbc00, 0x3c00, 0x4000}; /* -2, -1, 1, 2 */
    static uint16_t b[K * N];
    static float c[M * N];
    for (int i = 0; i < K * N; i++) b[i] = codes[next_u32() % 4];
    for (int i = 0; i < M * N; i++) c[i] = NAN;
    EmuBuffer bf[2] = {{b, sizeof b, "b"}, {c, sizeof c, "c"}};
    void *p[2] = {b, c};
    void *args[2] = {&p[0], &p[1]};
    if (!run("ptx_dot.py", "dot_const", "*fp16:16, *fp32:16, 16, 16, 16", warps, args, 2, bf, 2)) {
      int bad = 0;
      for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
          double want = 0;
          for (int k = 0; k < K; k++) want += 2 * half(b[k * N + n]);
          bad += c[m * N + n] != want;
        }
      CHECK(bad == 0);
    }
  }
  /* batched, on tensor cores: fp32 as tf32 (two 16x16x16 products on 4
   * warps: two warps a batch element), and fp16 with 4 and 8 batch
   * elements (a warp each, then two each in turn); on 1 warp, the fp32
   * one again, a warp taking both in turn */
  static const struct {
    const char *type, *sig;
    int B, M, K, N, warps;
  } batched[] = {
      {"fp32", "*fp32:16, *fp32:16, *fp32:16, 2, 16, 16, 16", 2, 16, 16, 16, 4},
      {"fp32", "*fp32:16, *fp32:16, *fp32:16, 2, 16, 16, 16", 2, 16, 16, 16, 1},
      {"fp16", "*fp16:16, *fp16:16, *fp32:16, 4, 32, 16, 32", 4, 32, 16, 32, 4},
      {"fp16", "*fp16:16, *fp16:16, *fp32:16, 8, 16, 32, 16", 8, 16, 32, 16, 4},
  };
  for (size_t t = 0; t < sizeof batched / sizeof *batched; t++) {
    int B = batched[t].B, M = batched[t].M, K = batched[t].K, N = batched[t].N;
    bool f16 = batched[t].type[2] == '1';
    float *a = malloc(sizeof(float) * (size_t)(B * M * K)), *b = malloc(sizeof(float) * (size_t)(B * K * N));
    float *c = malloc(sizeof(float) * (size_t)(B * M * N));
    double *da = malloc(sizeof(double) * (size_t)(B * M * K)), *db = malloc(sizeof(double) * (size_t)(B * K * N));
    double *dc = malloc(sizeof(double) * (size_t)(B * M * N));
    for (int i = 0; i < B * M * K + B * K * N; i++) {
      bool in_a = i < B * M * K;
      int j = in_a ? i : i - B * M * K;
      if (f16) {
        uint16_t h = (uint16_t)((next_u32() & 0x83ff) | (uint32_t)(12 + next_u32() % 4) << 10);
        ((uint16_t *)(in_a ? a : b))[j] = h;
        (in_a ? da : db)[j] = half(h);
      } else {
        float v = uniform(-1, 1);
        (in_a ? a : b)[j] = v;
        (in_a ? da : db)[j] = tf32(v);
      }
    }
    for (int i = 0; i < B * M * N; i++) c[i] = NAN;
    EmuBuffer bf[3] = {{a, sizeof(float) * (size_t)(B * M * K), "a"}, {b, sizeof(float) * (size_t)(B * K * N), "b"},
                       {c, sizeof(float) * (size_t)(B * M * N), "c"}};
    void *p[3] = {a, b, c};
    void *args[3] = {&p[0], &p[1], &p[2]};
    char sig[128];
    snprintf(sig, sizeof sig, "%s", batched[t].sig);
    if (!run("ptx_dot.py", "dot3d", sig, batched[t].warps, args, 3, bf, 3)) {
      for (int i = 0; i < B * M * N; i++) dc[i] = c[i];
      CHECK(dot_differs(da, db, dc, B, M, K, N, 4e-7 * K) == 0);
    }
    free(a), free(b), free(c), free(da), free(db), free(dc);
  }
}

/* ---- atomic adds on fp16 and bf16 --------------------------------------------------------- */

static double bf16v(uint32_t h) { return decode(h, 8, 7, true); }
static double f16v(uint32_t h) { return decode(h, 5, 10, true); }

/* The code nearest x under round-to-nearest-even, as IEEE defines it: a
 * search over the finite codes (their values grow with the code), the code
 * past the largest standing for the next power of two, which is infinity. */
static uint16_t nearest16(double x, double (*dec)(uint32_t), uint32_t inf) {
  double ax = fabs(x);
  uint32_t lo = 0, hi = inf - 1;
  while (lo < hi) {
    uint32_t mid = (lo + hi + 1) / 2;
    if (dec(mid) <= ax) lo = mid;
    else hi = mid - 1;
  }
  uint32_t best = lo;
  if (dec(lo) != ax) {
    double up = lo + 1 == inf ? 2 * dec(inf - 1) - dec(inf - 2) : dec(lo + 1);
    double dl = ax - dec(lo), du = up - ax;
    if (du < dl || (du == dl && !((lo + 1) & 1))) best = lo + 1;
  }
  return (uint16_t)(best | (signbit(x) ? 0x8000 : 0));
}

/* f32 to f16 and bf16 to nearest, even on ties: each pair of neighbours is
 * one cvt.rn.f16x2.f32 (bf16x2) on the GPU. Values across both formats'
 * ranges, halfway cases, and past f16's largest (infinity). */
static void nearest_conversions(void) {
  enum { N = 256 };
  float x[N];
  uint16_t h[N], bf[N];
  for (int i = 0; i < N; i++) {
    x[i] = uniform(-1, 1) * (i % 4 == 0 ? 1e-6f : i % 4 == 1 ? 3.0f : i % 4 == 2 ? 7e4f : 1e30f);
    if (i % 16 == 5) x[i] = (float)f16v(0x3c00 + (uint32_t)i) + (float)(f16v(0x3c01) - f16v(0x3c00)) / 2; /* a tie */
  }
  EmuBuffer b[3] = {{x, sizeof x, "x"}, {h, sizeof h, "h"}, {bf, sizeof bf, "bf"}};
  void *p[3] = {x, h, bf};
  void *a[3] = {&p[0], &p[1], &p[2]};
  if (!run("ptx_convert.py", "round_to_nearest", "*fp32:16, *fp16:16, *bf16:16, 256", 4, a, 3, b, 3)) {
    int bad = 0;
    for (int i = 0; i < N; i++) {
      uint16_t want_h = nearest16(x[i], f16v, 0x7c00), want_b = nearest16(x[i], bf16v, 0x7f80);
      if ((h[i] != want_h || bf[i] != want_b) && !bad++)
        fprintf(stderr, "round_to_nearest at %d (%g): %04x %04x, want %04x %04x\n", i, (double)x[i], h[i], bf[i], want_h, want_b);
    }
    CHECK(bad == 0);
  }
}

/* Column sums and maxima of an fp16 tile: eight columns a thread, so the
 * warps' partials go across in two rounds of 16 bytes a thread (1024
 * bytes, not 2048), on 4 and 8 warps; rows and columns ragged. */
static void reduce_rounds(void) {
  enum { M = 29, N = 208 }; /* N a multiple of 16, as its hint says */
  uint16_t x[M * N];
  float sum[N], mx[N];
  for (int i = 0; i < M * N; i++) x[i] = nearest16(uniform(-4, 4), f16v, 0x7c00);
  for (int warps = 4; warps <= 8; warps *= 2) {
    for (int c = 0; c < N; c++) sum[c] = mx[c] = NAN;
    EmuBuffer b[3] = {{x, sizeof x, "x"}, {sum, sizeof sum, "sum"}, {mx, sizeof mx, "max"}};
    void *p[3] = {x, sum, mx};
    int m = M, n = N;
    void *a[5] = {&p[0], &p[1], &p[2], &m, &n};
    if (emu_run_file(dir, "ptx_reduce_rounds.py", "column_stats", "*fp16:16, *fp32:16, *fp32:16, i32, i32:16, 32, 128", warps, 2, a, 5, b, 3))
      continue;
    int bad = 0;
    for (int c = 0; c < N; c++) {
      double want = 0, top = -INFINITY;
      for (int r = 0; r < M; r++) {
        double v = f16v(x[r * N + c]);
        want += v;
        if (v > top) top = v;
      }
      if ((fabs(sum[c] - want) > 1e-5 * (1 + fabs(want)) || mx[c] != top) && !bad++)
        fprintf(stderr, "column_stats on %d warps, column %d: %g %g, want %g %g\n", warps, c, sum[c], mx[c], want, top);
    }
    CHECK(bad == 0);
  }
}

static void atomics(void) {
  enum { N = 256 };
  struct {
    const char *sig;
    int n;
    bool bf;
  } cases[] = {
      {"*fp16:16, *fp16:16, i32:16, 256", 240, false}, /* pairs: f16x2 */
      {"*fp16:16, *fp16:16, i32, 256", 237, false},    /* a mask of any n: one at a time */
      {"*bf16:16, *bf16:16, i32:16, 256", 224, true},
      {"*bf16:16, *bf16:16, i32, 256", 201, true},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    uint16_t out[N], x[N], out0[N], x0[N];
    double (*dec)(uint32_t) = cases[c].bf ? bf16v : f16v;
    uint32_t inf = cases[c].bf ? 0x7f80 : 0x7c00;
    for (int i = 0; i < N; i++) {
      /* exponents a few binades apart, so that the sum rounds */
      uint32_t e = cases[c].bf ? 120 + next_u32() % 14 : 8 + next_u32() % 14;
      int sh = cases[c].bf ? 7 : 10;
      out[i] = (uint16_t)((next_u32() & (0x8000 | ((1u << sh) - 1))) | e << sh);
      e = cases[c].bf ? 120 + next_u32() % 14 : 8 + next_u32() % 14;
      x[i] = (uint16_t)((next_u32() & (0x8000 | ((1u << sh) - 1))) | e << sh);
    }
    if (!cases[c].bf) {
      out[0] = 0x0001, x[0] = 0x0001;   /* subnormals add and stay (noftz): 0x0002 */
      out[1] = 0x6800, x[1] = 0x3c00;   /* 2048 + 1: a tie, to the even 2048 */
      out[2] = 0x6801, x[2] = 0x3c00;   /* 2050 + 1: a tie, to the even 2052 */
      out[3] = 0x7bff, x[3] = 0x5000;   /* 65504 + 32: the tie past the largest is infinity */
      out[4] = 0x0200, x[4] = 0x8201;   /* subnormal difference: -2^-24 */
      out[5] = 0x7bff, x[5] = 0x4f00;   /* 65504 + 28: stays finite */
    } else {
      out[0] = 0x0001, x[0] = 0x0001;   /* the smallest subnormals */
      out[1] = 0x4300, x[1] = 0x3f80;   /* 128 + 1: a tie, to the even 128 */
      out[2] = 0x7f7f, x[2] = 0x7b80;   /* the largest + half its ulp: infinity */
      out[3] = 0x0080, x[3] = 0x8001;   /* the smallest normal minus a subnormal */
    }
    memcpy(out0, out, sizeof out);
    memcpy(x0, x, sizeof x);
    int32_t n = cases[c].n;
    EmuBuffer b[2] = {{out, sizeof out, "out"}, {x, sizeof x, "x"}};
    void *p[2] = {out, x};
    void *a[3] = {&p[0], &p[1], &n};
    if (run("ptx_atomic_half.py", "add_pairs", cases[c].sig, 4, a, 3, b, 2)) continue;
    int bad = 0;
    for (int i = 0; i < N; i++) {
      uint16_t want = i < n ? nearest16(dec(out0[i]) + dec(x0[i]), dec, inf) : out0[i];
      uint16_t old = i < n ? out0[i] : x0[i];
      if (out[i] != want || x[i] != old) {
        if (!bad)
          fprintf(stderr, "atomic add (%s) [%d]: 0x%04x + 0x%04x gave 0x%04x (old 0x%04x), want 0x%04x (old 0x%04x)\n",
                  cases[c].sig, i, out0[i], x0[i], out[i], x[i], want, old);
        bad++;
      }
    }
    CHECK(bad == 0);
  }
  /* many adds to the same places: counts, exact in either format */
  {
    enum { BINS = 8, M = 256 };
    uint16_t h[BINS], bb[BINS];
    int32_t idx[M];
    int count[BINS] = {0};
    int32_t n = 250;
    for (int i = 0; i < BINS; i++) h[i] = bb[i] = 0;
    for (int i = 0; i < M; i++) {
      idx[i] = (int32_t)(next_u32() % BINS);
      if (i < n) count[idx[i]]++;
    }
    EmuBuffer b[3] = {{h, sizeof h, "h"}, {idx, sizeof idx, "idx"}, {bb, sizeof bb, "b"}};
    void *p[3] = {h, idx, bb};
    void *a[4] = {&p[0], &p[1], &p[2], &n};
    if (!run("ptx_atomic_half.py", "add_scattered", "*fp16, *i32, *bf16, i32, 256", 4, a, 4, b, 3)) {
      int bad = 0;
      for (int i = 0; i < BINS; i++)
        bad += f16v(h[i]) != count[i] + (i == 0 ? 2 : 0) || bf16v(bb[i]) != 0.5 * count[i];
      CHECK(bad == 0);
    }
  }
}

/* ---- blocks of rank 5 to 7 ---------------------------------------------------------------- */

/* out = x viewed with shape dims, permuted by perm, read row-major: the
 * element at output position (i0..i(n-1)) of the permuted view is x at the
 * position whose coordinate perm[d] is i_d. */
static void permuted(const uint8_t *x, uint8_t *out, int n, const int *dims, const int *perm) {
  int total = 1, stride[8], pdims[8], at[8] = {0};
  for (int d = n - 1; d >= 0; d--) stride[d] = total, total *= dims[d];
  for (int d = 0; d < n; d++) pdims[d] = dims[perm[d]];
  for (int k = 0; k < total; k++) {
    int src = 0;
    for (int d = 0; d < n; d++) src += at[d] * stride[perm[d]];
    out[k] = x[src];
    for (int d = n - 1; d >= 0 && ++at[d] == pdims[d]; d--) at[d] = 0;
  }
}

static void high_ranks(void) {
  static const struct {
    const char *kernel, *sig;
    int n, dims[7], perm[7];
  } cases[] = {
      {"scales5", "*u8, *u8, 128, 256, 32", 5, {1, 2, 32, 4, 4}, {0, 3, 2, 1, 4}},
      {"scales7", "*u8, *u8, 64, 512, 32", 7, {2, 2, 4, 16, 2, 2, 1}, {0, 5, 3, 1, 4, 2, 6}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    uint8_t x[1024], out[1024], want[1024];
    for (int i = 0; i < 1024; i++) x[i] = (uint8_t)next_u32(), out[i] = 0;
    EmuBuffer b[2] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}};
    void *p[2] = {x, out};
    void *a[2] = {&p[0], &p[1]};
    if (run("ptx_rank7.py", cases[c].kernel, cases[c].sig, 4, a, 2, b, 2)) continue;
    permuted(x, want, cases[c].n, cases[c].dims, cases[c].perm);
    CHECK(memcmp(out, want, sizeof want) == 0);
  }
}

/* ---- tl.where of constants on loaded data --------------------------------------------------- */

static void where_constants(void) {
  enum { M = 32, N = 64 };
  float x[M * N];
  int32_t y[M * N];
  for (int i = 0; i < M * N; i++) x[i] = uniform(-1, 1), y[i] = -1;
  x[1] = -0.0f, x[2] = 0.0f;
  EmuBuffer b[2] = {{x, sizeof x, "x"}, {y, sizeof y, "y"}};
  void *p[2] = {x, y};
  void *a[2] = {&p[0], &p[1]};
  if (!emu_run_file(dir, "ptx_where_constants.py", "where_flat", "*fp32:16, *i32:16, 256", 4, M * N / 256, a, 2, b, 2)) {
    int bad = 0;
    for (int i = 0; i < M * N; i++) bad += y[i] != (x[i] < 0 ? 3 : 5);
    CHECK(bad == 0);
  }
  /* the sort key of a float, as sglang's routers make it, over two tiles of a loop */
  int32_t stride = N;
  void *a2[3] = {&p[0], &p[1], &stride};
  for (int i = 0; i < M * N; i++) y[i] = -1;
  if (!run("ptx_where_constants.py", "where_loop", "*fp32:16, *i32:16, i32:16, 2, 32, 32", 4, a2, 3, b, 2)) {
    int bad = 0;
    for (int i = 0; i < M * N; i++) {
      uint32_t u;
      memcpy(&u, &x[i], 4);
      uint32_t want = u ^ (u & 0x80000000u ? 0xFFFFFFFFu : 0x80000000u);
      bad += (uint32_t)y[i] != want;
    }
    CHECK(bad == 0);
  }
}

/* ---- tl.sort and tl.flip ------------------------------------------------------------------ */

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static void sorts(void) {
  enum { M = 4, N = 16 };
  for (int desc = 0; desc < 2; desc++) {
    float x[M * N], out[M * N], fl[M * N];
    int32_t n = 11; /* ragged: the rest of each row loads as +inf */
    for (int i = 0; i < M * N; i++) x[i] = uniform(-100, 100), out[i] = fl[i] = NAN;
    x[3] = x[5]; /* a tie */
    EmuBuffer b[3] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}, {fl, sizeof fl, "flip"}};
    void *p[3] = {x, out, fl};
    void *a[4] = {&p[0], &p[1], &p[2], &n};
    if (run("ptx_sort.py", "sort_rows", desc ? "*fp32, *fp32, *fp32, i32, 4, 16, True" : "*fp32, *fp32, *fp32, i32, 4, 16, False", 4, a, 4, b, 3))
      continue;
    int bad = 0;
    for (int r = 0; r < M; r++) {
      float row[N];
      for (int c = 0; c < N; c++) row[c] = c < n ? x[r * N + c] : INFINITY;
      for (int c = 0; c < N; c++) bad += !(fl[r * N + c] == row[N - 1 - c]);
      qsort(row, N, sizeof *row, cmp_float);
      for (int c = 0; c < N; c++) bad += !(out[r * N + c] == row[desc ? N - 1 - c : c]);
    }
    CHECK(bad == 0);
  }
  {
    enum { K = 64 };
    int32_t x[K], out[K];
    for (int i = 0; i < K; i++) x[i] = (int32_t)next_u32(), out[i] = 0;
    x[7] = x[9] = -5;
    EmuBuffer b[2] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}};
    void *p[2] = {x, out};
    void *a[2] = {&p[0], &p[1]};
    if (!run("ptx_sort.py", "sort_ints", "*i32, *i32, 64", 4, a, 2, b, 2)) {
      int bad = 0;
      for (int i = 0; i < K; i++) {
        int above = 0, equal = 0; /* out[i] is the value with i values above or equal to it before it */
        for (int j = 0; j < K; j++) above += x[j] > out[i], equal += x[j] == out[i];
        bad += !(above <= i && i < above + equal);
      }
      CHECK(bad == 0);
    }
  }
  /* tl.topk: the K largest (smallest) of each row in order, ragged rows
   * padded with -inf (+inf), ties kept; and sglang's router form, the 32
   * largest of 512 u64 keys */
  for (int desc = 0; desc < 2; desc++) {
    enum { TM = 4, TN = 64, TK = 8 };
    float x[TM * TN], out[TM * TK];
    int32_t n = 45;
    for (int i = 0; i < TM * TN; i++) x[i] = uniform(-100, 100);
    for (int i = 0; i < TM * TK; i++) out[i] = NAN;
    x[10] = x[20], x[TN + 3] = x[TN + 4] = x[TN + 5];
    EmuBuffer b[2] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}};
    void *p[2] = {x, out};
    void *a[3] = {&p[0], &p[1], &n};
    if (run("ptx_sort.py", "topk_rows", desc ? "*fp32, *fp32, i32, 4, 64, 8, True" : "*fp32, *fp32, i32, 4, 64, 8, False", 4, a, 3, b, 2))
      continue;
    int bad = 0;
    for (int r = 0; r < TM; r++) {
      float row[TN];
      for (int c = 0; c < TN; c++) row[c] = c < n ? x[r * TN + c] : desc ? -INFINITY : INFINITY;
      qsort(row, TN, sizeof *row, cmp_float);
      for (int c = 0; c < TK; c++) bad += !(out[r * TK + c] == row[desc ? TN - 1 - c : c]);
    }
    CHECK(bad == 0);
  }
  {
    enum { KN = 512, KK = 32 };
    uint64_t x[KN], out[KK], sorted[KN];
    for (int i = 0; i < KN; i++) x[i] = (uint64_t)next_u32() << 32 | (uint32_t)(0xFFFFFFFFu - (uint32_t)i);
    x[100] = x[200] | 0xFFFFFFFFull; /* keys above 2^63 and equal upper halves */
    for (int i = 0; i < KK; i++) out[i] = 0;
    EmuBuffer b[2] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}};
    void *p[2] = {x, out};
    void *a[2] = {&p[0], &p[1]};
    if (!run("ptx_sort.py", "topk_keys", "*u64, *u64, 512, 32", 4, a, 2, b, 2)) {
      memcpy(sorted, x, sizeof x);
      qsort(sorted, KN, sizeof *sorted, cmp_u64);
      int bad = 0;
      for (int i = 0; i < KK; i++) bad += out[i] != sorted[KN - 1 - i];
      CHECK(bad == 0);
    }
  }
  /* tl.bitonic_merge in sglang's streaming top-k: the 16 largest of each
   * row of 256 ints, 64 at a time */
  {
    enum { SM = 3, SN = 256, SK = 16 };
    int32_t x[SM * SN], out[SM * SK], row[SN];
    for (int i = 0; i < SM * SN; i++) x[i] = (int32_t)(next_u32() % 1000) - 500;
    EmuBuffer b[2] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}};
    void *p[2] = {x, out};
    void *a[2] = {&p[0], &p[1]};
    if (!emu_run_file(dir, "ptx_sort.py", "topk_streaming", "*i32, *i32, 256, 64, 16", 4, SM, a, 2, b, 2)) {
      int bad = 0;
      for (int r = 0; r < SM; r++) {
        memcpy(row, x + r * SN, sizeof row);
        qsort(row, SN, sizeof *row, cmp_i32);
        for (int c = 0; c < SK; c++) bad += out[r * SK + c] != row[SN - 1 - c];
      }
      CHECK(bad == 0);
    }
  }
  /* tl.swizzle2d: Triton's docstring example, (0, 1) of a 4x4 grid in
   * groups of 2 rows goes to (1, 0); a 7x3 grid in groups of 3 rows (the
   * last group one row) on blocks and on program ids: within each group the
   * elements are renumbered column-major */
  {
    int32_t pair[2] = {-1, -1};
    EmuBuffer b[1] = {{pair, sizeof pair, "out"}};
    void *p[1] = {pair};
    void *a[1] = {&p[0]};
    if (!run("ptx_swizzle2d.py", "swizzle_const", "*i32", 4, a, 1, b, 1)) CHECK(pair[0] == 1 && pair[1] == 0);
  }
  for (int by_pid = 0; by_pid < 2; by_pid++) {
    enum { SI = 7, SJ = 3, SG = 3 };
    int32_t out[SI * SJ], size_i = SI, size_j = SJ, size_g = SG;
    for (int i = 0; i < SI * SJ; i++) out[i] = -1;
    EmuBuffer b[1] = {{out, sizeof out, "out"}};
    void *p[1] = {out};
    void *a[4] = {&p[0], &size_i, &size_j, &size_g};
    if (by_pid ? emu_run_file(dir, "ptx_swizzle2d.py", "swizzle_pid", "*i32, i32, i32, i32", 1, SI * SJ, a, 4, b, 1)
               : run("ptx_swizzle2d.py", "swizzle_grid", "*i32, i32, i32, 8, 4, 3", 4, a, 3, b, 1))
      continue;
    int bad = 0;
    for (int g = 0; g * SG < SI; g++) {
      int rows = SI - g * SG < SG ? SI - g * SG : SG, k = 0;
      for (int c = 0; c < SJ; c++)
        for (int r = 0; r < rows; r++, k++) bad += out[(g * SG + r) * SJ + c] != g * SG * SJ + k;
    }
    CHECK(bad == 0);
  }
  /* tl.gather along rows of fp16 (bits kept, NaN and -0 included) and
   * tl.histogram of the indices, masked past n */
  {
    enum { GM = 8, GN = 16, GK = 32 };
    uint16_t src[GM * GN], out[GM * GK];
    int32_t idx[GM * GK], hist[GN];
    int32_t n = 203;
    for (int i = 0; i < GM * GN; i++) src[i] = (uint16_t)next_u32();
    src[5] = 0x7e01, src[6] = 0x8000;
    for (int i = 0; i < GM * GK; i++) idx[i] = (int32_t)(next_u32() % GN), out[i] = 0xdead;
    for (int i = 0; i < GN; i++) hist[i] = -1;
    EmuBuffer b[4] = {{src, sizeof src, "src"}, {idx, sizeof idx, "idx"}, {out, sizeof out, "out"}, {hist, sizeof hist, "hist"}};
    void *p[4] = {src, idx, out, hist};
    void *a[5] = {&p[0], &p[1], &p[2], &p[3], &n};
    if (!run("ptx_sort.py", "gather_rows", "*fp16, *i32, *fp16, *i32, i32, 8, 16, 32", 4, a, 5, b, 4)) {
      int bad = 0, count[GN] = {0};
      for (int r = 0; r < GM; r++)
        for (int k = 0; k < GK; k++) bad += out[r * GK + k] != src[r * GN + idx[r * GK + k]];
      for (int i = 0; i < n; i++) count[idx[i]]++;
      for (int i = 0; i < GN; i++) bad += hist[i] != count[i];
      CHECK(bad == 0);
    }
  }
}

/* ---- packed accesses: elements under 32 bits moved in 32-bit words --------------------------- */

/* ptx_packed.py's `shifted`: out[i] = x[i] + i % 64 where i < n, raw[i] =
 * x[i] or 7 (the load's `other`) for every i. The values are small
 * integers, exact in fp16 and bf16, and element i's result depends on i,
 * so a packed word unpacked in another order fails. Each case's n is a
 * multiple of 16 below BLOCK, so the last words are masked off whole. */
static void packed(void) {
  enum { MAX = 1024 };
  static const struct {
    const char *sig;
    int block, n, bytes;
    char kind; /* 'h' fp16, 'b' bf16, 'i' int8 */
  } cases[] = {
      {"*fp16:16, *fp16:16, *fp16:16, i32:16, 1024", 1024, 1008, 2, 'h'},
      {"*bf16:16, *bf16:16, *bf16:16, i32:16, 512", 512, 464, 2, 'b'},
      {"*i8:16, *i8:16, *i8:16, i32:16, 1024", 1024, 992, 1, 'i'},
      {"*i8:16, *i8:16, *i8:16, i32:16, 256", 256, 240, 1, 'i'},
      {"*fp16:16, *fp16:16, *fp16:16, i32, 1024", 1024, 1001, 2, 'h'}, /* any n: one at a time */
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    int B = cases[c].block;
    int32_t n = cases[c].n;
    static uint16_t x16[MAX], out16[MAX], raw16[MAX];
    static int8_t x8[MAX], out8[MAX], raw8[MAX];
    int xs[MAX];
    for (int i = 0; i < B; i++) {
      xs[i] = (int)(next_u32() % 200) - 100;
      if (cases[c].kind == 'h') x16[i] = nearest16(xs[i], f16v, 0x7c00); /* exact: small integers */
      if (cases[c].kind == 'b') x16[i] = nearest16(xs[i], bf16v, 0x7f80);
      if (cases[c].kind == 'i') x8[i] = (int8_t)xs[i];
      out16[i] = raw16[i] = 0xdead;
      out8[i] = raw8[i] = 0x55;
    }
    bool wide = cases[c].bytes == 2;
    void *xp = wide ? (void *)x16 : (void *)x8, *op = wide ? (void *)out16 : (void *)out8, *rp = wide ? (void *)raw16 : (void *)raw8;
    size_t bytes = (size_t)B * (size_t)cases[c].bytes;
    EmuBuffer b[3] = {{xp, bytes, "x"}, {op, bytes, "out"}, {rp, bytes, "raw"}};
    void *p[3] = {xp, op, rp};
    void *a[4] = {&p[0], &p[1], &p[2], &n};
    if (run("ptx_packed.py", "shifted", cases[c].sig, 4, a, 4, b, 3)) continue;
    int bad = 0;
    for (int i = 0; i < B && bad < 5; i++) {
      double got, want = i < n ? xs[i] + i % 64 : NAN, gotraw, wantraw = i < n ? xs[i] : 7;
      if (cases[c].kind == 'i') {
        got = i < n ? (double)out8[i] : NAN;
        want = i < n ? (double)(int8_t)(xs[i] + i % 64) : NAN;
        gotraw = raw8[i];
        if (i >= n && out8[i] != 0x55) got = -1e9; /* written where masked off */
      } else {
        double (*dec)(uint32_t) = cases[c].kind == 'h' ? f16v : bf16v;
        got = i < n ? dec(out16[i]) : NAN;
        gotraw = dec(raw16[i]);
        if (i >= n && out16[i] != 0xdead) got = -1e9;
      }
      bool ok = (i < n ? got == want : isnan(got) || got != -1e9) && gotraw == wantraw;
      if (!ok) {
        fprintf(stderr, "packed %s: element %d: out %g (want %g), raw %g (want %g)\n", cases[c].sig, i, got, want, gotraw, wantraw);
        bad++;
      }
    }
    if (bad) failures++;
  }
}

/* The K-loop matmul of ptx_matmul.py on tensor cores, at ragged sizes (M,
 * N, K multiples of no tile), for each operand type and several tiles and
 * warps: fp16 and bf16 products are exact and summed in fp32; fp32 goes
 * through tf32 (the reference truncates its inputs as the instruction
 * does, so plain fp32 arithmetic would fail it); int8 sums are exact.
 * fp8 (e4m3, e5m2 and the two mixed) on sm_89, on the fp8 instruction,
 * and on sm_80, widened to fp16 after shared memory: every finite code,
 * products exact and summed in fp32.
 * Then with N and K multiples of 16, said in the signature as Triton's JIT
 * would: the 16-bit operands' rows are 16-byte aligned, and go to shared
 * memory by 16-byte cp.async (M stays ragged, so masked rows are
 * zero-filled). */
static void matmul_sizes(int M, int N, int K, bool hints) {
  static const struct {
    const char *type, *ctype;
    int bm, bn, bk, warps;
    const char *btype, *arch; /* B's type when not A's; the target when not sm_80 */
  } cases[] = {
      {"fp16", "fp32", 64, 64, 32, 4}, {"fp16", "fp32", 32, 32, 16, 2}, {"fp16", "fp32", 128, 64, 32, 8},
      {"fp16", "fp32", 16, 64, 16, 1}, {"bf16", "fp32", 64, 32, 32, 4}, {"fp32", "fp32", 32, 64, 16, 4},
      {"i8", "i32", 64, 64, 64, 4},    {"i8", "i32", 32, 32, 32, 2},
      {"fp8e4nv", "fp32", 64, 64, 64, 4, NULL, "sm_89"},   {"fp8e5", "fp32", 32, 64, 32, 2, NULL, "sm_89"},
      {"fp8e4nv", "fp32", 64, 32, 32, 4, "fp8e5", "sm_89"}, {"fp8e5", "fp32", 128, 64, 64, 8, "fp8e4nv", "sm_89"},
      {"fp8e4nv", "fp32", 64, 64, 32, 4, NULL, NULL},       {"fp8e5", "fp32", 32, 32, 64, 2, "fp8e4nv", NULL},
  };
  double *da = malloc(sizeof(double) * (size_t)(M * K)), *db = malloc(sizeof(double) * (size_t)(K * N));
  double *dc = malloc(sizeof(double) * (size_t)(M * N));
  uint32_t *a = calloc((size_t)(M * K), 4), *b = calloc((size_t)(K * N), 4), *c = malloc((size_t)(M * N) * 4);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    bool f16 = !strcmp(cases[i].type, "fp16"), bf16 = !strcmp(cases[i].type, "bf16"), f32 = !strcmp(cases[i].type, "fp32");
    for (int j = 0; j < M * K + K * N; j++) {
      double *d = j < M * K ? &da[j] : &db[j - M * K];
      uint32_t bits;
      float f = uniform(-2, 2);
      memcpy(&bits, &f, 4);
      if (f16) {
        uint16_t h = (uint16_t)((next_u32() & 0x83ff) | (uint32_t)(12 + next_u32() % 4) << 10);
        *d = half(h);
        if (j < M * K) ((uint16_t *)a)[j] = h;
        else ((uint16_t *)b)[j - M * K] = h;
      } else if (bf16) {
        uint16_t h = (uint16_t)(bits >> 16);
        bits = (uint32_t)h << 16;
        memcpy(&f, &bits, 4);
        *d = f;
        if (j < M * K) ((uint16_t *)a)[j] = h;
        else ((uint16_t *)b)[j - M * K] = h;
      } else if (f32) {
        *d = tf32(f);
        if (j < M * K) ((float *)a)[j] = f;
        else ((float *)b)[j - M * K] = f;
      } else if (!strncmp(cases[i].type, "fp8", 3)) {
        const char *t = j >= M * K && cases[i].btype ? cases[i].btype : cases[i].type;
        double (*dec)(uint32_t) = !strcmp(t, "fp8e5") ? e5m2 : e4m3;
        uint8_t code;
        do code = (uint8_t)next_u32(); while (!isfinite(dec(code)));
        *d = dec(code);
        if (j < M * K) ((uint8_t *)a)[j] = code;
        else ((uint8_t *)b)[j - M * K] = code;
      } else {
        int8_t v = (int8_t)(next_u32() % 255 - 127);
        *d = v;
        if (j < M * K) ((int8_t *)a)[j] = v;
        else ((int8_t *)b)[j - M * K] = v;
      }
    }
    memset(c, 0xff, (size_t)(M * N) * 4);
    char sig[256];
    const char *h = hints ? "i32:16" : "i32";
    snprintf(sig, sizeof sig, "*%s:16, *%s:16, *%s:16, i32, %s, %s, %s, %s, %s, %d, %d, %d, 'tf32'", cases[i].type,
             cases[i].btype ? cases[i].btype : cases[i].type, cases[i].ctype, h, h, h, h, h, cases[i].bm, cases[i].bn,
             cases[i].bk);
    int m = M, n = N, k = K, sam = K, sbk = N, scm = N;
    size_t ab = (size_t)(M * K) * 4, bb = (size_t)(K * N) * 4;
    EmuBuffer bf[3] = {{a, ab, "a"}, {b, bb, "b"}, {c, (size_t)(M * N) * 4, "c"}};
    void *p[3] = {a, b, c};
    void *args[9] = {&p[0], &p[1], &p[2], &m, &n, &k, &sam, &sbk, &scm};
    unsigned grid = (unsigned)(((M + cases[i].bm - 1) / cases[i].bm) * ((N + cases[i].bn - 1) / cases[i].bn));
    if (emu_run_file_on(cases[i].arch, dir, "ptx_matmul.py", "matmul", sig, cases[i].warps, grid, args, 9, bf, 3)) continue;
    for (int j = 0; j < M * N; j++) dc[j] = cases[i].ctype[0] == 'i' ? (double)(int32_t)c[j] : (double)((float *)c)[j];
    int bad = dot_differs(da, db, dc, 1, M, K, N, cases[i].ctype[0] == 'i' ? 0 : 4e-7 * K);
    if (bad) fprintf(stderr, "matmul %s%s%s\n", sig, cases[i].arch ? " on " : "", cases[i].arch ? cases[i].arch : "");
    CHECK(bad == 0);
  }
  free(da), free(db), free(dc), free(a), free(b), free(c);
}

/* The K loop as tl.range(..., num_stages=S) for S = 1 (not pipelined) to
 * 4, with the fused leaky_relu and an fp16 result: K of 3 and 5 steps of
 * 32, so that the loop is shorter and longer than its stages. The sums of
 * the small integers are exact; the result is the fp16 nearest. */
static void staged_matmuls(void) {
  enum { M = 100, N = 80 };
  for (int K = 96; K <= 160; K += 64)
    for (int stages = 1; stages <= 4; stages++) {
      uint16_t *a = malloc((size_t)(M * K) * 2), *b = malloc((size_t)(K * N) * 2), *c = malloc((size_t)(M * N) * 2);
      static const uint16_t codes[5] = {0xc000, 0xbc00, 0x0000, 0x3c00, 0x4000}; /* -2, -1, 0, 1, 2 */
      for (int i = 0; i < M * K; i++) a[i] = codes[next_u32() % 5];
      for (int i = 0; i < K * N; i++) b[i] = codes[next_u32() % 5];
      memset(c, 0xff, (size_t)(M * N) * 2);
      char sig[200];
      snprintf(sig, sizeof sig, "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, %d", stages);
      int m = M, n = N, k = K, sam = K, sbk = N, scm = N;
      EmuBuffer bf[3] = {{a, (size_t)(M * K) * 2, "a"}, {b, (size_t)(K * N) * 2, "b"}, {c, (size_t)(M * N) * 2, "c"}};
      void *p[3] = {a, b, c};
      void *args[9] = {&p[0], &p[1], &p[2], &m, &n, &k, &sam, &sbk, &scm};
      if (!emu_run_file(dir, "ptx_matmul.py", "matmul_staged", sig, 4, 2 * 2, args, 9, bf, 3)) {
        int bad = 0;
        for (int i = 0; i < M; i++)
          for (int j = 0; j < N; j++) {
            double s = 0;
            for (int q = 0; q < K; q++) s += half(a[i * K + q]) * half(b[q * N + j]);
            double want = s >= 0 ? s : 0.01 * s, got = half(c[i * N + j]);
            if (fabs(got - want) > fabs(want) * 0x1p-11 && bad++ == 0)
              fprintf(stderr, "matmul_staged %s: [%d][%d] is %g, want %g\n", sig, i, j, got, want);
          }
        CHECK(bad == 0);
      }
      free(a), free(b), free(c);
    }
}

/* The tutorial's loop form (matmul_tiles): rows wrap modulo M, K masked
 * by what is left of it, K = 80 in 3 tiles of 32, the last one partial. */
static void tiles_matmul(void) {
  enum { M = 100, N = 80, K = 80 };
  uint16_t *a = malloc((size_t)(M * K) * 2), *b = malloc((size_t)(K * N) * 2), *c = malloc((size_t)(M * N) * 2);
  static const uint16_t codes[5] = {0xc000, 0xbc00, 0x0000, 0x3c00, 0x4000}; /* -2, -1, 0, 1, 2 */
  for (int i = 0; i < M * K; i++) a[i] = codes[next_u32() % 5];
  for (int i = 0; i < K * N; i++) b[i] = codes[next_u32() % 5];
  memset(c, 0xff, (size_t)(M * N) * 2);
  int m = M, n = N, k = K, sam = K, sbk = N, scm = N;
  EmuBuffer bf[3] = {{a, (size_t)(M * K) * 2, "a"}, {b, (size_t)(K * N) * 2, "b"}, {c, (size_t)(M * N) * 2, "c"}};
  void *p[3] = {a, b, c};
  void *args[9] = {&p[0], &p[1], &p[2], &m, &n, &k, &sam, &sbk, &scm};
  if (!emu_run_file(dir, "ptx_matmul.py", "matmul_tiles",
                    "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32", 4, 4, args, 9, bf, 3)) {
    int bad = 0;
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int q = 0; q < K; q++) s += half(a[i * K + q]) * half(b[q * N + j]);
        bad += half(c[i * N + j]) != s;
      }
    CHECK(bad == 0);
  }
  free(a), free(b), free(c);
}

/* Loops without a dot that prefetch their loads (ptx_prefetch.py), at 1
 * (not pipelined) to 4 stages. rows: a grid-stride loop over 37 rows of
 * 200 columns (the mask cuts the 256 and its `other` 1.0 is selected
 * there) on 5 programs, so each runs 7 or 8 iterations and the copies run
 * past the last row; cols: a pointer advanced by 128 over 300 columns per
 * program, the last block partial. Values are small integers: the sums are
 * exact. */
static void prefetched_loops(void) {
  enum { R = 37, C = 200, S = 203, N = 300, P = 6 };
  float *x = malloc(sizeof(float) * R * S), *y = malloc(sizeof(float) * R * S);
  float *cx = malloc(sizeof(float) * P * N), *cy = malloc(sizeof(float) * P);
  for (int i = 0; i < R * S; i++) x[i] = (float)((int)(next_u32() % 17) - 8);
  for (int i = 0; i < P * N; i++) cx[i] = (float)((int)(next_u32() % 17) - 8);
  for (int stages = 1; stages <= 4; stages++) {
    char sig[128];
    memset(y, 0, sizeof(float) * R * S);
    snprintf(sig, sizeof sig, "*fp32:16, *fp32:16, i32, i32, i32, 256, %d", stages);
    int nr = R, nc = C, st = S;
    EmuBuffer bf[2] = {{x, sizeof(float) * R * S, "x"}, {y, sizeof(float) * R * S, "y"}};
    void *p[2] = {x, y};
    void *args[5] = {&p[0], &p[1], &nr, &nc, &st};
    if (!emu_run_file(dir, "ptx_prefetch.py", "rows", sig, 4, 5, args, 5, bf, 2)) {
      int bad = 0;
      for (int r = 0; r < R; r++) {
        float sum = 256 - C; /* the masked columns load 1.0 */
        for (int c = 0; c < C; c++) sum += x[r * S + c];
        for (int c = 0; c < S; c++) {
          float want = c < C ? x[r * S + c] * 2 + sum : 0;
          if (y[r * S + c] != want && bad++ == 0)
            fprintf(stderr, "rows, %d stages: [%d][%d] is %g, want %g\n", stages, r, c, y[r * S + c], want);
        }
      }
      CHECK(bad == 0);
    }
    snprintf(sig, sizeof sig, "*fp32:16, *fp32:16, i32, 128, %d", stages);
    int n = N;
    EmuBuffer cb[2] = {{cx, sizeof(float) * P * N, "x"}, {cy, sizeof(float) * P, "y"}};
    void *q[2] = {cx, cy};
    void *cargs[3] = {&q[0], &q[1], &n};
    if (!emu_run_file(dir, "ptx_prefetch.py", "cols", sig, 4, P, cargs, 3, cb, 2)) {
      int bad = 0;
      for (int r = 0; r < P; r++) {
        float want = 0;
        for (int c = 0; c < N; c++) want += cx[r * N + c];
        if (cy[r] != want && bad++ == 0) fprintf(stderr, "cols, %d stages: [%d] is %g, want %g\n", stages, r, cy[r], want);
      }
      CHECK(bad == 0);
    }
  }
  free(x), free(y), free(cx), free(cy);
}

static void matmuls(void) {
  matmul_sizes(100, 70, 50, false);
  matmul_sizes(100, 80, 64, true);
  staged_matmuls();
  tiles_matmul();
  prefetched_loops();
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_ops FILECHECK_DIR\n");
    return 2;
  }
  dir = argv[1];
  shapes();
  conversions();
  dots();
  matmuls();
  nearest_conversions();
  reduce_rounds();
  atomics();
  where_constants();
  sorts();
  high_ranks();
  packed();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
