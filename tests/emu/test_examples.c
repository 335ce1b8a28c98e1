/*
 * test_examples.c — the emu suite: every example kernel,
 * compiled for the CPU emulator and run on random data (never zeros) with
 * sizes that leave ragged edges, against references written here in C.
 * Exact where the arithmetic is (copies, integer indices, fp16 rounding of
 * one product); with tolerances where the order of a reduction or the
 * approximate exp2 of the GPU's fast math may differ (DESIGN.md §7). And
 * the differential check: PTX and the emulator's code come from the same
 * lowered kernel (the hash in the metadata).
 *
 * By default each kernel runs on the emulator directly; with --device the
 * same kernels and references go through the JIT on that device (the cpu
 * or cuda one), as a host program would run them. Without a GPU,
 * --device=cuda exits 77 (skipped).
 *
 * usage: test_examples EXAMPLES_DIR [--device=cpu|cuda]
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

static const char *examples;
/* -D for the kernels load() compiles next */
static const char *const *defines;
static int ndefines;
/* ---- data ------------------------------------------------------------------------------------- */

static float *random_floats(size_t n, float lo, float hi) {
  float *v = malloc(n * sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = uniform(lo, hi);
  return v;
}

static float *filled(size_t n, float value) {
  float *v = malloc(n * sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = value;
  return v;
}

/* fp16 <-> fp32, round to nearest even */
static uint16_t to_half(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000, a = u & 0x7fffffff;
  if (a > 0x7f800000) return (uint16_t)(sign | 0x7e00);
  if (a >= 0x477ff000) return (uint16_t)(sign | 0x7c00);
  if (a < 0x38800000) {
    float af;
    memcpy(&af, &a, 4);
    return (uint16_t)(sign | (uint32_t)nearbyintf(af * 16777216.0f));
  }
  uint32_t r = a + 0xfff + ((a >> 13) & 1);
  return (uint16_t)(sign | (((r >> 23) - 112) << 10) | ((r >> 13) & 0x3ff));
}

static float from_half(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, r;
  if (e == 0x1f) r = sign | 0x7f800000 | (m << 13);
  else if (e) r = sign | ((e + 112) << 23) | (m << 13);
  else {
    float f = (float)m * 5.9604644775390625e-8f;
    memcpy(&r, &f, 4);
    r |= sign;
  }
  float f;
  memcpy(&f, &r, 4);
  return f;
}

/* Counts elements off by more than atol + rtol * |want|; reports the first. */
static int compare(const char *what, const float *got, const double *want, size_t n, double atol, double rtol) {
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    double d = fabs((double)got[i] - want[i]);
    if (!(d <= atol + rtol * fabs(want[i]))) {
      if (!bad) fprintf(stderr, "%s: element %zu is %.9g, want %.9g\n", what, i, (double)got[i], want[i]);
      bad++;
    }
  }
  if (bad) {
    fprintf(stderr, "%s: %d of %zu elements differ\n", what, bad, n);
    failures++;
  }
  return bad;
}

/* ---- compiling and launching ------------------------------------------------------------------ */

/* Where the kernels run: straight on the emulator (the default), each
 * kernel's object code loaded again as from the cache; or, with
 * --device=cpu|cuda, through the JIT on that device: device memory, copies
 * in and out, tilec_kernel_launch. */
static tilec_device *device;
/* The target the kernels are compiled for: NULL for sm_80 (on a GPU, its own). */
static const char *arch;

typedef struct Kernel {
  EmuKernel *emu;
  tilec_kernel *jit;
} Kernel;

/* The signature without its hints: the JIT adds them from the arguments. */
static char *without_hints(const char *sig) {
  char *s = strdup(sig), *w = s;
  bool quoted = false;
  for (const char *r = sig; *r; r++) {
    if (*r == '\'' || *r == '"') quoted = !quoted;
    if (*r == ':' && !quoted) {
      while (r[1] && r[1] != ',') r++;
      continue;
    }
    *w++ = *r;
  }
  *w = 0;
  return s;
}

static Kernel *load_jit(const char *file, const char *src, size_t len, const char *kernel, const char *sig, int warps) {
  char *plain = without_hints(sig), *diag = NULL;
  tilec_jit_options o = {.kernel = kernel, .signature = plain, .num_warps = warps, .no_disk_cache = 1,
                         .defines = defines, .num_defines = ndefines,
                         .arch = tilec_device_kind_of(device) == TILEC_DEVICE_CPU ? arch : NULL};
  Kernel *k = calloc(1, sizeof *k);
  if (tilec_kernel_create(device, file, src, len, &o, &k->jit, &diag) != TILEC_OK) {
    fprintf(stderr, "%s: %s\n", kernel, diag ? diag : "");
    failures++;
    free(k);
    k = NULL;
  }
  free(diag);
  free(plain);
  return k;
}

static Kernel *load(const char *file, const char *kernel, const char *sig, int warps) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", examples, file);
  size_t len;
  char *src = slurp(path, &len);
  if (!src) {
    fprintf(stderr, "cannot read %s\n", path);
    failures++;
    return NULL;
  }
  /* a file inside a package is named by its path, so that its imports resolve */
  const char *name = strchr(file, '/') ? path : file;
  if (device) {
    Kernel *k = load_jit(name, src, len, kernel, sig, warps);
    free(src);
    return k;
  }
  tilec_compile_options o = {.kernel = kernel, .signature = sig, .num_warps = warps, .emit = TILEC_EMIT_CPU,
                             .defines = defines, .num_defines = ndefines, .arch = arch};
  tilec_result *r = NULL;
  EmuKernel *k = NULL;
  if (tilec_compile(name, src, len, &o, &r) != TILEC_OK) {
    fprintf(stderr, "%s", tilec_result_diagnostics(r));
    failures++;
  } else {
    size_t n;
    const char *obj = tilec_result_output(r, &n);
    char *err = NULL;
    /* the compiler's object code, straight into memory, without the JIT */
    k = emu_load_object(obj, n, kernel, &err);
    if (!k || !emu_loaded_directly(k)) {
      fprintf(stderr, "%s: its object code does not load directly: %s\n", kernel, err ? err : "");
      free(err);
      failures++;
    }
  }
  tilec_result_destroy(r);
  free(src);
  Kernel *kk = k ? calloc(1, sizeof *kk) : NULL;
  if (kk) kk->emu = k;
  return kk;
}

static void unload(Kernel *k) {
  if (!k) return;
  emu_unload(k->emu);
  tilec_kernel_destroy(k->jit);
  free(k);
}

/* Through the JIT: each buffer copied to device memory, the pointer
 * arguments (those that point to a buffer's data) replaced by its address,
 * and the buffers copied back. */
static bool launch_jit(Kernel *k, const char *what, unsigned gx, unsigned gy, void **args, int nargs, EmuBuffer *bufs,
                       int nbufs) {
  tilec_devptr addr[16] = {0};
  void *dargs[16];
  bool ok = nbufs <= 16 && nargs <= 16;
  for (int j = 0; ok && j < nbufs; j++)
    ok = tilec_device_alloc(device, bufs[j].bytes, &addr[j], NULL) == TILEC_OK &&
         tilec_device_copy_to(device, addr[j], bufs[j].data, bufs[j].bytes, NULL) == TILEC_OK;
  for (int i = 0; ok && i < nargs; i++) {
    dargs[i] = args[i];
    for (int j = 0; j < nbufs; j++)
      if (args[i] == (void *)&bufs[j].data) dargs[i] = &addr[j];
  }
  char *report = NULL;
  unsigned grid[3] = {gx, gy, 1};
  if (ok && tilec_kernel_launch(k->jit, grid, dargs, nargs, NULL, &report) != TILEC_OK) {
    fprintf(stderr, "%s: the launch failed:\n%s\n", what, report ? report : "");
    ok = false;
  }
  free(report);
  for (int j = 0; j < nbufs; j++) {
    if (ok) ok = tilec_device_copy_from(device, bufs[j].data, addr[j], bufs[j].bytes, NULL) == TILEC_OK;
    if (addr[j]) tilec_device_free(device, addr[j], NULL);
  }
  return ok;
}

static void launch(Kernel *k, const char *what, unsigned gx, unsigned gy, int warps, void **args, int nargs,
                   EmuBuffer *bufs, int nbufs) {
  if (!k) return;
  if (k->jit) {
    if (!launch_jit(k, what, gx, gy, args, nargs, bufs, nbufs)) failures++;
    return;
  }
  EmuLaunch l = {.grid = {gx, gy, 1}, .num_warps = warps, .args = args, .nargs = nargs, .buffers = bufs, .nbuffers = nbufs};
  char *report = NULL;
  if (!emu_launch(k->emu, &l, &report, NULL)) {
    fprintf(stderr, "%s: the launch failed:\n%s", what, report ? report : "");
    failures++;
  }
  free(report);
}

static unsigned cdiv(long a, long b) { return (unsigned)((a + b - 1) / b); }

/* ---- the kernels ------------------------------------------------------------------------------ */

static void vector_add(void) {
  int n = 98432 + 17;
  float *x = random_floats((size_t)n, -1, 1), *y = random_floats((size_t)n, -1, 1), *out = filled((size_t)n, NAN);
  Kernel *k = load("vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024", 4);
  EmuBuffer b[3] = {{x, n * 4u, "x_ptr"}, {y, n * 4u, "y_ptr"}, {out, n * 4u, "out_ptr"}};
  void *a[4] = {&b[0].data, &b[1].data, &b[2].data, &n};
  launch(k, "add_kernel", cdiv(n, 1024), 1, 4, a, 4, b, 3);
  double *want = malloc((size_t)n * sizeof *want);
  for (int i = 0; i < n; i++) want[i] = x[i] + y[i];
  compare("add_kernel fp32", out, want, (size_t)n, 0, 0);
  unload(k);
  free(x), free(y), free(out), free(want);
}

static void vector_add_fp16(void) {
  int n = 1000 + 3;
  uint16_t *x = malloc(n * 2u), *y = malloc(n * 2u), *out = malloc(n * 2u);
  for (int i = 0; i < n; i++) x[i] = to_half(uniform(-4, 4)), y[i] = to_half(uniform(-4, 4)), out[i] = 0x7e00;
  Kernel *k = load("vector_add.py", "add_kernel", "*fp16, *fp16, *fp16, i32, 256", 2);
  EmuBuffer b[3] = {{x, n * 2u, "x_ptr"}, {y, n * 2u, "y_ptr"}, {out, n * 2u, "out_ptr"}};
  void *a[4] = {&b[0].data, &b[1].data, &b[2].data, &n};
  launch(k, "add_kernel fp16", cdiv(n, 256), 1, 2, a, 4, b, 3);
  int bad = 0;
  for (int i = 0; i < n; i++)
    if (out[i] != to_half(from_half(x[i]) + from_half(y[i]))) bad++;
  if (bad) fprintf(stderr, "add_kernel fp16: %d of %d results are not the rounded sums\n", bad, n);
  CHECK(bad == 0);
  unload(k);
  free(x), free(y), free(out);
}

static void poly(void) {
  int n = 5000 + 11;
  float *x = random_floats((size_t)n, -1, 1), *c = random_floats(5, 0.5f, 2), *out = filled((size_t)n, NAN);
  Kernel *k = load("static_range.py", "poly_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 4, 1024", 4);
  EmuBuffer b[3] = {{x, n * 4u, "x_ptr"}, {c, 5 * 4u, "coeff_ptr"}, {out, n * 4u, "out_ptr"}};
  void *a[4] = {&b[0].data, &b[1].data, &b[2].data, &n};
  launch(k, "poly_kernel", cdiv(n, 1024), 1, 4, a, 4, b, 3);
  double *want = malloc((size_t)n * sizeof *want);
  for (int i = 0; i < n; i++) {
    double acc = 0;
    for (int d = 4; d >= 0; d--) acc = acc * x[i] + c[d];
    want[i] = acc;
  }
  compare("poly_kernel", out, want, (size_t)n, 1e-6, 1e-5);
  unload(k);
  free(x), free(c), free(out), free(want);
}

static void window_sum(void) {
  int n = 3000 + 5;
  float *x = random_floats((size_t)n, -1, 1), *out = filled((size_t)n, NAN);
  Kernel *k = load("static_range.py", "window_sum_kernel", "*fp32:16, *fp32:16, i32, 8, 512", 4);
  EmuBuffer b[2] = {{x, n * 4u, "x_ptr"}, {out, n * 4u, "out_ptr"}};
  void *a[3] = {&b[0].data, &b[1].data, &n};
  launch(k, "window_sum_kernel", cdiv(n, 512), 1, 4, a, 3, b, 2);
  double *want = malloc((size_t)n * sizeof *want);
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int w = 0; w < 8 && i + w < n; w++) s += x[i + w];
    want[i] = s;
  }
  compare("window_sum_kernel", out, want, (size_t)n, 1e-5, 1e-5);
  unload(k);
  free(x), free(out), free(want);
}

static void row_sum(void) {
  int m = 100, n = 300, sm = 307, sn = 1;
  float *x = random_floats((size_t)m * sm, -1, 1), *out = filled((size_t)m, NAN);
  Kernel *k = load("block_ptr.py", "row_sum_kernel", "*fp32:16, *fp32:16, i32, i32, i32, i32, 64, 128", 4);
  EmuBuffer b[2] = {{x, (size_t)m * sm * 4, "x_ptr"}, {out, m * 4u, "out_ptr"}};
  void *a[6] = {&b[0].data, &b[1].data, &m, &n, &sm, &sn};
  launch(k, "row_sum_kernel", cdiv(m, 64), 1, 4, a, 6, b, 2);
  double want[100];
  for (int i = 0; i < m; i++) {
    want[i] = 0;
    for (int j = 0; j < n; j++) want[i] += x[i * sm + j];
  }
  compare("row_sum_kernel", out, want, (size_t)m, 1e-4, 1e-5);
  unload(k);
  free(x), free(out);
}

static void scale_copy(void) {
  int m = 70, n = 150, ssm = 160, ssn = 1, sdm = 150, sdn = 1;
  float scale = 1.75f;
  float *src = random_floats((size_t)m * ssm, -3, 3);
  uint16_t *dst = malloc((size_t)m * n * 2);
  for (int i = 0; i < m * n; i++) dst[i] = 0x7e00;
  Kernel *k = load("block_ptr.py", "scale_copy_kernel",
                      "*fp32:16, *fp16:16, i32, i32, i32, i32, i32, i32, fp32, 32, 64", 4);
  EmuBuffer b[2] = {{src, (size_t)m * ssm * 4, "src_ptr"}, {dst, (size_t)m * n * 2, "dst_ptr"}};
  void *a[9] = {&b[0].data, &b[1].data, &m, &n, &ssm, &ssn, &sdm, &sdn, &scale};
  launch(k, "scale_copy_kernel", cdiv(m, 32), cdiv(n, 64), 4, a, 9, b, 2);
  int bad = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      if (dst[i * n + j] != to_half(src[i * ssm + j] * scale)) bad++;
  if (bad) fprintf(stderr, "scale_copy_kernel: %d of %d results differ\n", bad, m * n);
  CHECK(bad == 0);
  unload(k);
  free(src), free(dst);
}

/* Philox 4x32 with 10 rounds, as Triton documents tl.randint: the seed's
 * low and high words are the key, the offset the first counter word. */
static uint32_t philox_first(uint64_t seed, uint32_t offset) {
  uint32_t c0 = offset, c1 = 0, c2 = 0, c3 = 0, k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  for (int r = 0; r < 10; r++) {
    uint32_t p0 = c0, p2 = c2;
    c0 = (uint32_t)(((uint64_t)0xCD9E8D57u * p2) >> 32) ^ c1 ^ k0;
    c2 = (uint32_t)(((uint64_t)0xD2511F53u * p0) >> 32) ^ c3 ^ k1;
    c1 = 0xCD9E8D57u * p2;
    c3 = 0xD2511F53u * p0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c0;
}

static void dropout(void) {
  int n = 10000 + 7, seed = 1234;
  float p = 0.3f;
  float *x = random_floats((size_t)n, -1, 1), *out = filled((size_t)n, NAN);
  Kernel *k = load("dropout.py", "dropout_kernel", "*fp32:16, *fp32:16, i32, fp32, i32, 1024", 4);
  EmuBuffer b[2] = {{x, n * 4u, "x_ptr"}, {out, n * 4u, "output_ptr"}};
  void *a[5] = {&b[0].data, &b[1].data, &n, &p, &seed};
  launch(k, "dropout_kernel", cdiv(n, 1024), 1, 4, a, 5, b, 2);
  double *want = malloc((size_t)n * sizeof *want);
  int kept = 0;
  for (int i = 0; i < n; i++) {
    int32_t r = (int32_t)philox_first((uint64_t)(int64_t)seed, (uint32_t)i);
    float u = (float)(r < 0 ? -r - 1 : r) * 4.6566127342e-10f;
    want[i] = u > p ? x[i] / (1 - p) : 0.0f;
    kept += u > p;
  }
  compare("dropout_kernel", out, want, (size_t)n, 0, 0);
  CHECK(kept > n * 0.65 && kept < n * 0.75);
  unload(k);
  free(x), free(out), free(want);
}

static void softmax(void) {
  int rows = 37, cols = 781, stride = 800;
  float *x = random_floats((size_t)rows * stride, -4, 4), *out = filled((size_t)rows * stride, NAN);
  Kernel *k = load("softmax.py", "softmax_kernel", "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024", 4);
  EmuBuffer b[2] = {{out, (size_t)rows * stride * 4, "out_ptr"}, {x, (size_t)rows * stride * 4, "in_ptr"}};
  void *a[6] = {&b[0].data, &b[1].data, &stride, &stride, &rows, &cols};
  launch(k, "softmax_kernel", 16, 1, 4, a, 6, b, 2); /* fewer programs than rows: the row loop */
  double *want = malloc((size_t)rows * cols * sizeof *want);
  float *got = malloc((size_t)rows * cols * sizeof *got);
  for (int r = 0; r < rows; r++) {
    double mx = -INFINITY, sum = 0;
    for (int c = 0; c < cols; c++) mx = fmax(mx, x[r * stride + c]);
    for (int c = 0; c < cols; c++) sum += exp(x[r * stride + c] - mx);
    for (int c = 0; c < cols; c++) {
      want[r * cols + c] = exp(x[r * stride + c] - mx) / sum;
      got[r * cols + c] = out[r * stride + c];
    }
  }
  compare("softmax_kernel", got, want, (size_t)rows * cols, 1e-7, 1e-5);
  unload(k);
  free(x), free(out), free(want), free(got);
}

static void layer_norm(void) {
  int m = 13, n = 1500, stride = 1504;
  float eps = 1e-5f;
  float *x = random_floats((size_t)m * stride, -2, 3), *w = random_floats((size_t)n, 0.5f, 1.5f);
  float *bias = random_floats((size_t)n, -1, 1), *y = filled((size_t)m * stride, NAN);
  float *mean = filled((size_t)m, NAN), *rstd = filled((size_t)m, NAN);
  Kernel *k = load("layer_norm.py", "layer_norm_fwd_kernel",
                      "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, fp32, 1024", 4);
  EmuBuffer b[6] = {{x, (size_t)m * stride * 4, "X"}, {y, (size_t)m * stride * 4, "Y"}, {w, n * 4u, "W"},
                    {bias, n * 4u, "B"}, {mean, m * 4u, "Mean"}, {rstd, m * 4u, "Rstd"}};
  void *a[9] = {&b[0].data, &b[1].data, &b[2].data, &b[3].data, &b[4].data, &b[5].data, &stride, &n, &eps};
  launch(k, "layer_norm_fwd_kernel", (unsigned)m, 1, 4, a, 9, b, 6);
  double *want = malloc((size_t)m * n * sizeof *want), wmean[13], wrstd[13];
  float *got = malloc((size_t)m * n * sizeof *got);
  for (int r = 0; r < m; r++) {
    double s = 0, v = 0;
    for (int c = 0; c < n; c++) s += x[r * stride + c];
    wmean[r] = s / n;
    for (int c = 0; c < n; c++) v += (x[r * stride + c] - wmean[r]) * (x[r * stride + c] - wmean[r]);
    wrstd[r] = 1 / sqrt(v / n + eps);
    for (int c = 0; c < n; c++) {
      want[r * n + c] = (x[r * stride + c] - wmean[r]) * wrstd[r] * w[c] + bias[c];
      got[r * n + c] = y[r * stride + c];
    }
  }
  compare("layer_norm_fwd_kernel y", got, want, (size_t)m * n, 1e-4, 1e-4);
  compare("layer_norm_fwd_kernel mean", mean, wmean, (size_t)m, 1e-5, 1e-5);
  compare("layer_norm_fwd_kernel rstd", rstd, wrstd, (size_t)m, 1e-5, 1e-4);
  unload(k);
  free(x), free(w), free(bias), free(y), free(mean), free(rstd), free(want), free(got);
}

/* The backward pass: dx per row, then partial dw/db per group through a
 * spin lock, then the column sums of the partials. */
static void layer_norm_backward(void) {
  enum { M = 200, N = 700, G = 64 };
  int m = M, n = N, stride = N;
  float *x = random_floats((size_t)M * N, -2, 2), *dy = random_floats((size_t)M * N, -1, 1);
  float *w = random_floats(N, 0.5f, 1.5f), *mean = malloc(M * 4), *rstd = malloc(M * 4);
  for (int r = 0; r < M; r++) {
    double s = 0, v = 0;
    for (int c = 0; c < N; c++) s += x[r * N + c];
    mean[r] = (float)(s / N);
    for (int c = 0; c < N; c++) v += (x[r * N + c] - mean[r]) * (x[r * N + c] - mean[r]);
    rstd[r] = (float)(1 / sqrt(v / N + 1e-5));
  }
  /* zeros, as the host code passes: a program's threads read "count" one after another on the
   * emulator, so all but the first may take the accumulating branch (on a GPU, warps can too) */
  float *dx = filled((size_t)M * N, NAN), *pdw = filled((size_t)G * N, 0), *pdb = filled((size_t)G * N, 0);
  int32_t *lock = calloc(G, 4), *count = calloc(G, 4);
  Kernel *k = load("layer_norm.py", "layer_norm_bwd_dx_kernel",
                      "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *i32:16, "
                      "*i32:16, i32, i32, 64, 1024",
                      4);
  EmuBuffer b[10] = {{dx, M * N * 4u, "DX"},   {dy, M * N * 4u, "DY"},  {pdw, G * N * 4u, "DW"},
                     {pdb, G * N * 4u, "DB"},  {x, M * N * 4u, "X"},    {w, N * 4u, "W"},
                     {mean, M * 4u, "Mean"},   {rstd, M * 4u, "Rstd"},  {lock, G * 4u, "Lock"},
                     {count, G * 4u, "Count"}};
  void *a[12];
  for (int i = 0; i < 10; i++) a[i] = &b[i].data;
  a[10] = &stride, a[11] = &n;
  launch(k, "layer_norm_bwd_dx_kernel", M, 1, 4, a, 12, b, 10);
  double *wdx = malloc((size_t)M * N * sizeof *wdx), *wdw = calloc((size_t)G * N, sizeof *wdw),
         *wdb = calloc((size_t)G * N, sizeof *wdb);
  for (int r = 0; r < M; r++) {
    double c1 = 0, c2 = 0;
    for (int c = 0; c < N; c++) {
      double xhat = (x[r * N + c] - mean[r]) * rstd[r], wdy = w[c] * dy[r * N + c];
      c1 += xhat * wdy, c2 += wdy;
    }
    c1 /= N, c2 /= N;
    for (int c = 0; c < N; c++) {
      double xhat = (x[r * N + c] - mean[r]) * rstd[r], wdy = w[c] * dy[r * N + c];
      wdx[r * N + c] = (wdy - (xhat * c1 + c2)) * rstd[r];
      wdw[(r % G) * N + c] += dy[r * N + c] * xhat;
      wdb[(r % G) * N + c] += dy[r * N + c];
    }
  }
  compare("layer_norm_bwd_dx_kernel dx", dx, wdx, (size_t)M * N, 1e-4, 1e-4);
  compare("layer_norm_bwd_dx_kernel partial dw", pdw, wdw, (size_t)G * N, 1e-4, 1e-4);
  compare("layer_norm_bwd_dx_kernel partial db", pdb, wdb, (size_t)G * N, 1e-4, 1e-4);
  int unlocked = 1;
  for (int g = 0; g < G; g++) unlocked &= lock[g] == 0 && count[g] == 1;
  CHECK(unlocked);
  unload(k);

  /* the column sums of the partials */
  float *fdw = filled(N, NAN), *fdb = filled(N, NAN);
  int groups = G;
  k = load("layer_norm.py", "layer_norm_bwd_dwdb_kernel", "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, 32, 128", 4);
  EmuBuffer c[4] = {{pdw, G * N * 4u, "DW"}, {pdb, G * N * 4u, "DB"}, {fdw, N * 4u, "FINAL_DW"}, {fdb, N * 4u, "FINAL_DB"}};
  void *ca[6] = {&c[0].data, &c[1].data, &c[2].data, &c[3].data, &groups, &n};
  launch(k, "layer_norm_bwd_dwdb_kernel", cdiv(N, 128), 1, 4, ca, 6, c, 4);
  double swdw[N], swdb[N];
  for (int col = 0; col < N; col++) {
    swdw[col] = swdb[col] = 0;
    for (int g = 0; g < G; g++) swdw[col] += pdw[g * N + col], swdb[col] += pdb[g * N + col];
  }
  compare("layer_norm_bwd_dwdb_kernel dw", fdw, swdw, N, 1e-4, 1e-5);
  compare("layer_norm_bwd_dwdb_kernel db", fdb, swdb, N, 1e-4, 1e-5);
  unload(k);
  (void)m;
  free(x), free(dy), free(w), free(mean), free(rstd), free(dx), free(pdw), free(pdb), free(lock), free(count);
  free(wdx), free(wdw), free(wdb), free(fdw), free(fdb);
}

/* Reductions of (value, index) pairs across threads and warps, on 1, 2, 4
 * and 8 warps; in the second round the values are whole numbers, so that
 * rows hold ties and the first column must win them. */
static void row_reductions(void) {
  int rows = 20, cols = 900, stride = 1000;
  float *x = random_floats((size_t)rows * stride, -5, 5);
  float *vals = filled((size_t)rows, NAN);
  int32_t *idx = malloc(rows * 4u);
  const char *names[2] = {"row_absmax_kernel", "row_argmax_kernel"};
  for (int round = 0; round < 2; round++) {
    if (round)
      for (int i = 0; i < rows * stride; i++) x[i] = roundf(x[i]);
    for (int warps = 1; warps <= 8; warps *= 2)
      for (int which = 0; which < 2; which++) {
        for (int r = 0; r < rows; r++) idx[r] = -7;
        Kernel *k = load("reduce_combine.py", names[which], "*fp32:16, *fp32:16, *i32:16, i32, i32, 1024", warps);
        EmuBuffer b[3] = {{x, (size_t)rows * stride * 4, "x_ptr"}, {vals, rows * 4u, "out"}, {idx, rows * 4u, "index_ptr"}};
        void *a[5] = {&b[0].data, &b[1].data, &b[2].data, &cols, &stride};
        launch(k, names[which], (unsigned)rows, 1, warps, a, 5, b, 3);
        int bad = 0;
        for (int r = 0; r < rows; r++) {
          float best = -INFINITY;
          int at = 0;
          for (int c = 0; c < cols; c++) {
            float v = which == 0 ? fabsf(x[r * stride + c]) : x[r * stride + c];
            if (v > best) best = v, at = c;
          }
          if (vals[r] != best || idx[r] != at) {
            if (!bad)
              fprintf(stderr, "%s on %d warps: row %d gives %g at %d, want %g at %d\n", names[which], warps, r, vals[r], idx[r],
                      best, at);
            bad++;
          }
        }
        CHECK(bad == 0);
        unload(k);
      }
  }
  free(x), free(vals), free(idx);
}

/* The fp16 matmul with its grouped program order, ragged in M, N and K, with
 * the fused leaky_relu and without: fp32 sums of exact products, rounded to
 * fp16 at the end. Blocks of 32x32x16, so that K takes four steps. */
static void matmul(void) {
  int M = 100, N = 70, K = 50;
  uint16_t *a = malloc((size_t)M * K * 2), *b = malloc((size_t)K * N * 2), *c = malloc((size_t)M * N * 2);
  for (int i = 0; i < M * K; i++) a[i] = to_half(uniform(-2, 2));
  for (int i = 0; i < K * N; i++) b[i] = to_half(uniform(-2, 2));
  double *want = malloc((size_t)M * N * sizeof *want);
  float *got = malloc((size_t)M * N * sizeof *got);
  for (int act = 0; act < 2; act++) {
    char sig[256];
    snprintf(sig, sizeof sig, "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 16, 2, '%s'",
             act ? "leaky_relu" : "");
    Kernel *k = load("matmul.py", "matmul_kernel", sig, 4);
    for (int i = 0; i < M * N; i++) c[i] = 0x7e00;
    int sam = K, sak = 1, sbk = N, sbn = 1, scm = N, scn = 1;
    EmuBuffer bf[3] = {{a, (size_t)M * K * 2, "a_ptr"}, {b, (size_t)K * N * 2, "b_ptr"}, {c, (size_t)M * N * 2, "c_ptr"}};
    void *args[12] = {&bf[0].data, &bf[1].data, &bf[2].data, &M, &N, &K, &sam, &sak, &sbk, &sbn, &scm, &scn};
    launch(k, "matmul_kernel", cdiv(M, 32) * cdiv(N, 32), 1, 4, args, 12, bf, 3);
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) {
        double s = 0;
        for (int q = 0; q < K; q++) s += (double)from_half(a[m * K + q]) * from_half(b[q * N + n]);
        want[m * N + n] = act && s < 0 ? 0.01 * s : s;
        got[m * N + n] = from_half(c[m * N + n]);
      }
    compare(act ? "matmul_kernel leaky_relu" : "matmul_kernel", got, want, (size_t)M * N, 1e-3, 1e-3);
    unload(k);
  }
  free(a), free(b), free(c), free(want), free(got);
}

/* examples/attention.py on 2 heads of 256 tokens, head dim 64, causal and
 * not, for sm_80 (mma.sync) and sm_90a (wgmma, P from registers), against
 * softmax(Q K^T / 8) V and the rows' log2-sum-exp computed in double (P
 * goes to the second dot in fp16: 1e-2 of the outputs' scale). */
static void attention(const char *target) {
  enum { ZH = 2, N = 256, D = 64 };
  int n_ctx = N;
  float scale = 0.125f;
  uint16_t *q = malloc(ZH * N * D * 2), *k = malloc(ZH * N * D * 2), *v = malloc(ZH * N * D * 2), *o = malloc(ZH * N * D * 2);
  float *lse = malloc(ZH * N * sizeof *lse), *got = malloc(ZH * N * D * sizeof *got);
  double *want = malloc(ZH * N * D * sizeof *want), *want_lse = malloc(ZH * N * sizeof *want_lse), *s = malloc(N * sizeof *s);
  for (int i = 0; i < ZH * N * D; i++) q[i] = to_half(uniform(-1, 1)), k[i] = to_half(uniform(-1, 1)), v[i] = to_half(uniform(-1, 1));
  for (int causal = 0; causal < 2; causal++) {
    char sig[160];
    snprintf(sig, sizeof sig, "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32:16, 128, 64, 64, %s", causal ? "True" : "False");
    arch = target;
    Kernel *kk = load("attention.py", "attention_fwd", sig, 4);
    arch = NULL;
    for (int i = 0; i < ZH * N * D; i++) o[i] = 0x7e00;
    for (int i = 0; i < ZH * N; i++) lse[i] = NAN;
    EmuBuffer bf[5] = {{q, ZH * N * D * 2, "q_ptr"}, {k, ZH * N * D * 2, "k_ptr"}, {v, ZH * N * D * 2, "v_ptr"},
                       {o, ZH * N * D * 2, "o_ptr"}, {lse, ZH * N * sizeof *lse, "lse_ptr"}};
    void *args[7] = {&bf[0].data, &bf[1].data, &bf[2].data, &bf[3].data, &bf[4].data, &scale, &n_ctx};
    launch(kk, causal ? "attention_fwd causal" : "attention_fwd", N / 128, ZH, 4, args, 7, bf, 5);
    for (int h = 0; h < ZH; h++)
      for (int r = 0; r < N; r++) {
        const uint16_t *qr = q + (h * N + r) * D;
        int keys = causal ? r + 1 : N;
        double mx = -INFINITY, sum = 0;
        for (int j = 0; j < keys; j++) {
          double d = 0;
          for (int x = 0; x < D; x++) d += (double)from_half(qr[x]) * from_half(k[(h * N + j) * D + x]);
          s[j] = d * scale;
          mx = s[j] > mx ? s[j] : mx;
        }
        for (int j = 0; j < keys; j++) sum += exp(s[j] - mx);
        want_lse[h * N + r] = (mx + log(sum)) / log(2.0);
        for (int x = 0; x < D; x++) {
          double acc = 0;
          for (int j = 0; j < keys; j++) acc += exp(s[j] - mx) * from_half(v[(h * N + j) * D + x]);
          want[(h * N + r) * D + x] = acc / sum;
          got[(h * N + r) * D + x] = from_half(o[(h * N + r) * D + x]);
        }
      }
    char what[64];
    snprintf(what, sizeof what, "attention_fwd%s%s", causal ? " causal" : "", target ? " sm_90a" : "");
    compare(what, got, want, ZH * N * D, 1e-2, 1e-2);
    strcat(what, " lse");
    compare(what, lse, want_lse, ZH * N, 1e-3, 1e-4);
    unload(kk);
  }
  free(q), free(k), free(v), free(o), free(lse), free(got), free(want), free(want_lse), free(s);
}

/* The matmul at tutorial 03's CUDA configs compiled for sm_90a, where its
 * dots are wgmma.mma_async from operands in shared memory in the canonical
 * layouts (swizzles of 128, 64 and 32 bytes as the tiles' rows allow), fed
 * by cp.async in the pipelined loop: fp16, bf16 and fp32 (tf32) operands,
 * B row-major (MN-major for wgmma) and K-major, ragged in M, N and K.
 * tf32 keeps 10 bits of each operand's mantissa (the emulator truncates
 * as the ISA says): 0.1 where the sums reach 60. */
static void matmul_hopper(void) {
  static const struct {
    int bm, bn, bk, warps;
    const char *type; /* fp16, bf16, fp32 */
    bool kmajor_b;
    int hinted; /* N, K and the strides divisible by 16, as Triton specializes them: the K loop pipelined;
                 * 2: N and B's strides only, so that B alone goes ahead and A is loaded in the body */
  } runs[] = {
      {128, 128, 32, 4, "fp16", false, false}, {64, 128, 32, 4, "fp16", false, false}, {128, 256, 64, 8, "fp16", false, false},
      {128, 64, 64, 4, "fp16", true, false},   {64, 32, 32, 4, "fp16", false, false},  {128, 128, 32, 4, "bf16", false, false},
      {128, 64, 32, 4, "fp32", false, false},  {64, 64, 16, 4, "fp32", true, false},   {128, 128, 64, 4, "fp16", false, true},
      {128, 64, 32, 4, "fp16", true, true},    {64, 128, 32, 4, "fp32", true, true},    {128, 128, 32, 4, "fp16", false, 2},
  };
  arch = "sm_90a";
  for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
    /* ragged: N and K divisible by 16 where hinted, never by the blocks */
    int M = 200, N = runs[r].hinted ? 160 : 150, K = runs[r].hinted == 1 ? 208 : 100;
    bool f32 = !strcmp(runs[r].type, "fp32"), bf16 = !strcmp(runs[r].type, "bf16");
    size_t eb = f32 ? 4 : 2;
    unsigned char *a = malloc((size_t)M * K * eb), *b = malloc((size_t)K * N * eb);
    double *av = malloc((size_t)M * K * sizeof *av), *bv = malloc((size_t)K * N * sizeof *bv);
    /* each value exactly what its type holds; B[k][n] at b[k * N + n], or b[n * K + k] K-major */
    for (int i = 0; i < M * K + K * N; i++) {
      bool in_a = i < M * K;
      int j = in_a ? i : i - M * K;
      float x = (float)uniform(-2, 2);
      unsigned char *at = (in_a ? a : b) + (size_t)j * eb;
      if (f32) {
        memcpy(at, &x, 4);
      } else if (bf16) {
        uint32_t bits;
        memcpy(&bits, &x, 4);
        uint16_t h = (uint16_t)(bits >> 16);
        bits = (uint32_t)h << 16;
        memcpy(&x, &bits, 4);
        memcpy(at, &h, 2);
      } else {
        uint16_t h = to_half(x);
        x = from_half(h);
        memcpy(at, &h, 2);
      }
      if (in_a) av[j] = x;
      else if (runs[r].kmajor_b) bv[(j % K) * N + j / K] = x;
      else bv[j] = x;
    }
    uint16_t *c = malloc((size_t)M * N * 2);
    double *want = malloc((size_t)M * N * sizeof *want);
    float *got = malloc((size_t)M * N * sizeof *got);
    char sig[256], what[96];
    const char *ints = !runs[r].hinted             ? "i32, i32, i32, i32, i32, i32, i32, i32, i32"
                       : runs[r].hinted == 2         ? "i32, i32:16, i32, i32, i32:1, i32:16, i32:1, i32:16, i32:1"
                       : runs[r].kmajor_b            ? "i32, i32:16, i32:16, i32:16, i32:1, i32:1, i32:16, i32:16, i32:1"
                                                     : "i32, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1";
    snprintf(sig, sizeof sig, "*%s:16, *%s:16, *fp16:16, %s, %d, %d, %d, 8, ''", runs[r].type, runs[r].type, ints, runs[r].bm,
             runs[r].bn, runs[r].bk);
    snprintf(what, sizeof what, "matmul_kernel sm_90a %s %dx%dx%d%s%s", runs[r].type, runs[r].bm, runs[r].bn, runs[r].bk,
             runs[r].kmajor_b ? " B K-major" : "", runs[r].hinted == 1 ? " pipelined" : runs[r].hinted ? " B pipelined" : "");
    Kernel *k = load("matmul.py", "matmul_kernel", sig, runs[r].warps);
    for (int i = 0; i < M * N; i++) c[i] = 0x7e00;
    int sam = K, sak = 1, sbk = runs[r].kmajor_b ? 1 : N, sbn = runs[r].kmajor_b ? K : 1, scm = N, scn = 1;
    EmuBuffer bf[3] = {{a, (size_t)M * K * eb, "a_ptr"}, {b, (size_t)K * N * eb, "b_ptr"}, {c, (size_t)M * N * 2, "c_ptr"}};
    void *args[12] = {&bf[0].data, &bf[1].data, &bf[2].data, &M, &N, &K, &sam, &sak, &sbk, &sbn, &scm, &scn};
    launch(k, what, cdiv(M, runs[r].bm) * cdiv(N, runs[r].bn), 1, runs[r].warps, args, 12, bf, 3);
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) {
        double s = 0;
        for (int q = 0; q < K; q++) s += av[m * K + q] * bv[q * N + n];
        want[m * N + n] = s;
        got[m * N + n] = from_half(c[m * N + n]);
      }
    compare(what, got, want, (size_t)M * N, f32 ? 0.1 : 1e-3, 1e-3);
    unload(k);
    free(a), free(b), free(av), free(bv), free(c), free(want), free(got);
  }
  arch = NULL;
}

/* The tutorial's fp8 config: 128x256x128 on 8 warps, e5m2 operands (the top
 * bytes of fp16 values in [-2, 2]) with B K-major as the tutorial passes
 * it, ragged in M, N and K: the fp8 bytes through shared memory, widened
 * there for fp16's mma.sync (sm_80), or read as they are by sm_90a's
 * wgmma.mma_async (k32, e5m2 x e5m2). */
static void matmul_fp8(const char *target) {
  int M = 130, N = 260, K = 160;
  uint8_t *a = malloc((size_t)M * K), *b = malloc((size_t)K * N);
  uint16_t *c = malloc((size_t)M * N * 2);
  for (int i = 0; i < M * K; i++) a[i] = (uint8_t)(to_half(uniform(-2, 2)) >> 8);
  for (int i = 0; i < K * N; i++) b[i] = (uint8_t)(to_half(uniform(-2, 2)) >> 8); /* b[n * K + k]: B[k][n] */
  double *want = malloc((size_t)M * N * sizeof *want);
  float *got = malloc((size_t)M * N * sizeof *got);
  arch = target;
  Kernel *k = load("matmul.py", "matmul_kernel",
                   "*fp8e5:16, *fp8e5:16, *fp16:16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 128, 256, 128, 8, ''", 8);
  arch = NULL;
  for (int i = 0; i < M * N; i++) c[i] = 0x7e00;
  int sam = K, sak = 1, sbk = 1, sbn = K, scm = N, scn = 1;
  EmuBuffer bf[3] = {{a, (size_t)M * K, "a_ptr"}, {b, (size_t)K * N, "b_ptr"}, {c, (size_t)M * N * 2, "c_ptr"}};
  void *args[12] = {&bf[0].data, &bf[1].data, &bf[2].data, &M, &N, &K, &sam, &sak, &sbk, &sbn, &scm, &scn};
  launch(k, "matmul_kernel", cdiv(M, 128) * cdiv(N, 256), 1, 8, args, 12, bf, 3);
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      double s = 0;
      for (int q = 0; q < K; q++) s += (double)from_half((uint16_t)(a[m * K + q] << 8)) * from_half((uint16_t)(b[n * K + q] << 8));
      want[m * N + n] = s;
      got[m * N + n] = from_half(c[m * N + n]);
    }
  compare(target ? "matmul_kernel fp8 sm_90a" : "matmul_kernel fp8", got, want, (size_t)M * N, 1e-3, 1e-3);
  unload(k);
  free(a), free(b), free(c), free(want), free(got);
}

/* A library's kernels as it writes them (examples/normlib): helpers, tl and
 * the math functions from its own modules under conditional imports, a
 * kernel made by calling triton.jit, heuristics applied by a call, and a
 * constexpr global host code computes, given with -D. */
static void normlib_rms_norm(void) {
  int m = 7, n = 1000, stride = 1003;
  float eps = 1e-6f;
  uint16_t *x = malloc((size_t)m * stride * 2), *w = malloc((size_t)n * 2);
  for (int i = 0; i < m * stride; i++) x[i] = to_half(uniform(-3, 3));
  for (int i = 0; i < n; i++) w[i] = to_half(uniform(0.5f, 1.5f));
  float *y = filled((size_t)m * stride, NAN);
  Kernel *k = load("normlib/ops/rms_norm.py", "rms_norm_kernel", "*fp32, *fp16, *fp16, i32, i32, fp32, 1024", 4);
  EmuBuffer b[3] = {{y, (size_t)m * stride * 4, "Y"}, {x, (size_t)m * stride * 2, "X"}, {w, n * 2u, "W"}};
  void *a[6] = {&b[0].data, &b[1].data, &b[2].data, &stride, &n, &eps};
  launch(k, "rms_norm_kernel", (unsigned)m, 1, 4, a, 6, b, 3);
  double *want = malloc((size_t)m * n * sizeof *want);
  float *got = malloc((size_t)m * n * sizeof *got);
  for (int r = 0; r < m; r++) {
    double s = 0;
    for (int c = 0; c < n; c++) s += (double)from_half(x[r * stride + c]) * from_half(x[r * stride + c]);
    double rs = 1 / sqrt(s / n + eps);
    for (int c = 0; c < n; c++) {
      want[r * n + c] = from_half(x[r * stride + c]) * rs * from_half(w[c]);
      got[r * n + c] = y[r * stride + c];
    }
  }
  /* rsqrt.approx is within 2 ulp; the sum's order differs */
  compare("normlib rms_norm_kernel", got, want, (size_t)m * n, 1e-5, 1e-5);
  unload(k);
  free(x), free(w), free(y), free(want), free(got);
}

static void normlib_gelu(void) {
  static const char *const no_tma[] = {"HAS_TMA=False"};
  defines = no_tma, ndefines = 1;
  int n = 5000 + 11;
  float *x = random_floats((size_t)n, -4, 4), *y = filled((size_t)n, NAN);
  Kernel *k = load("normlib/ops/rms_norm.py", "gelu_kernel", "*fp32, *fp32, i32, 1024", 4);
  defines = NULL, ndefines = 0;
  EmuBuffer b[2] = {{x, n * 4u, "X"}, {y, n * 4u, "Y"}};
  void *a[3] = {&b[0].data, &b[1].data, &n};
  launch(k, "gelu_kernel", cdiv(n, 1024), 1, 4, a, 3, b, 2);
  double *want = malloc((size_t)n * sizeof *want);
  for (int i = 0; i < n; i++) want[i] = 0.5 * x[i] * (1 + erf(x[i] * 0.7071067811865476));
  compare("normlib gelu_kernel", y, want, (size_t)n, 1e-6, 1e-5);
  unload(k);
  free(x), free(y), free(want);
}

/* The scan of a combine that does not commute, in two specializations:
 * hinted, 4 elements a thread in 2 chunks of the row; unhinted, 1 element
 * in 8 chunks (each element is then its lane's inclusive total); on 1, 4
 * and 8 warps. */
static void linear_recurrence_of(const char *sig, int len, int stride, int warps) {
  int rows = 8;
  float *a = random_floats((size_t)rows * stride, 0.5f, 1.0f), *x = random_floats((size_t)rows * stride, -1, 1);
  float *h = filled((size_t)rows * stride, NAN);
  Kernel *k = load("reduce_combine.py", "linear_recurrence_kernel", sig, warps);
  EmuBuffer b[3] = {{a, (size_t)rows * stride * 4, "a_ptr"}, {x, (size_t)rows * stride * 4, "x_ptr"},
                    {h, (size_t)rows * stride * 4, "h_ptr"}};
  void *args[5] = {&b[0].data, &b[1].data, &b[2].data, &len, &stride};
  launch(k, "linear_recurrence_kernel", (unsigned)rows, 1, warps, args, 5, b, 3);
  double *want = malloc((size_t)rows * len * sizeof *want);
  float *got = malloc((size_t)rows * len * sizeof *got);
  for (int r = 0; r < rows; r++) {
    double s = 0;
    for (int t = 0; t < len; t++) {
      s = a[r * stride + t] * s + x[r * stride + t];
      want[r * len + t] = s;
      got[r * len + t] = h[r * stride + t];
    }
  }
  compare("linear_recurrence_kernel", got, want, (size_t)rows * len, 1e-4, 1e-4);
  unload(k);
  free(a), free(x), free(h), free(want), free(got);
}

static void linear_recurrence(void) {
  linear_recurrence_of("*fp32:16, *fp32:16, *fp32:16, i32, i32, 1024", 777, 800, 4);
  linear_recurrence_of("*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, 1024", 1008, 1024, 4);
  linear_recurrence_of("*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, 1024", 1008, 1024, 1);
  linear_recurrence_of("*fp32:16, *fp32:16, *fp32:16, i32, i32, 1024", 1001, 1003, 8);
}

/* The metadata's lowered_hash of one compilation. */
static char *lowered_hash(const char *file, const char *kernel, const char *sig, tilec_emit emit) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", examples, file);
  size_t len;
  char *src = slurp(path, &len);
  tilec_compile_options o = {.kernel = kernel, .signature = sig, .emit = emit};
  tilec_result *r = NULL;
  char *hash = NULL;
  if (src && tilec_compile(file, src, len, &o, &r) == TILEC_OK) {
    const char *m = strstr(tilec_result_metadata(r), "\"lowered_hash\": \"");
    if (m) hash = strndup(m + 17, 16);
  }
  tilec_result_destroy(r);
  free(src);
  return hash;
}

/* The differential check: the PTX and the emulator's code come from the
 * same lowered kernel (and another kernel hashes differently). */
static void same_lowered_kernel(void) {
  const char *sig = "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024";
  char *gpu = lowered_hash("softmax.py", "softmax_kernel", sig, TILEC_EMIT_PTX);
  char *cpu = lowered_hash("softmax.py", "softmax_kernel", sig, TILEC_EMIT_CPU);
  char *other = lowered_hash("softmax.py", "softmax_kernel", "*fp32:16, *fp32:16, i32, i32, i32, i32, 512", TILEC_EMIT_CPU);
  CHECK(gpu && cpu && other);
  CHECK(gpu && cpu && !strcmp(gpu, cpu));
  CHECK(cpu && other && strcmp(cpu, other));
  free(gpu), free(cpu), free(other);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_examples EXAMPLES_DIR [--device=cpu|cuda]\n");
    return 2;
  }
  examples = argv[1];
  if (argc > 2) {
    bool cuda = !strcmp(argv[2], "--device=cuda");
    if (!cuda && strcmp(argv[2], "--device=cpu")) {
      fprintf(stderr, "test_examples: unknown option '%s'\n", argv[2]);
      return 2;
    }
    char *why = NULL;
    if (tilec_device_create(cuda ? TILEC_DEVICE_CUDA : TILEC_DEVICE_CPU, &device, &why) != TILEC_OK) {
      fprintf(stderr, "%s%s\n", why ? why : "no device", cuda ? ": skipped" : "");
      free(why);
      return cuda ? 77 : 1;
    }
  }
  vector_add();
  vector_add_fp16();
  poly();
  window_sum();
  row_sum();
  scale_copy();
  dropout();
  softmax();
  layer_norm();
  layer_norm_backward();
  row_reductions();
  linear_recurrence();
  normlib_rms_norm();
  normlib_gelu();
  matmul();
  matmul_fp8(NULL);
  matmul_hopper();
  matmul_fp8("sm_90a");
  attention(NULL);
  attention("sm_90a");
  same_lowered_kernel();
  tilec_device_destroy(device);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
