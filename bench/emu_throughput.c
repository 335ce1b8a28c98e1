/*
 * emu_throughput.c — how fast the CPU emulator runs kernels: a 1M-element
 * fp32 vector add (no barriers: the threads of a block run one after
 * another) and a 4096x1024 fp32 softmax (reductions with shuffles and
 * barriers: the threads run as fibers). Compilation and loading are not
 * timed; each launch is. Each kernel runs three ways: with the race check
 * of global memory (the default), without it (EmuLaunch.no_racecheck), and
 * with it and an initcheck map on every buffer (EmuBuffer.init, as
 * `tilec run` gives its empty: buffers).
 *
 * usage: emu_throughput EXAMPLES_DIR [RUNS]
 * prints: kernel, threads per launch, median and spread of the launch time
 * in ms, and GPU threads per second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "emu/emu.h"
#include "tilec/tilec.h"

static EmuKernel *load(const char *dir, const char *file, const char *kernel, const char *sig, int warps) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char src[1 << 20];
  size_t n = fread(src, 1, sizeof src, f);
  fclose(f);
  tilec_compile_options o = {.kernel = kernel, .signature = sig, .num_warps = warps, .emit = TILEC_EMIT_CPU};
  tilec_result *r = NULL;
  EmuKernel *k = NULL;
  if (tilec_compile(file, src, n, &o, &r) == TILEC_OK) {
    size_t len;
    const char *ir = tilec_result_output(r, &len);
    char *err = NULL;
    k = emu_load_object(ir, len, kernel, &err);
    if (!k) fprintf(stderr, "%s\n", err);
    free(err);
  } else {
    fprintf(stderr, "%s", tilec_result_diagnostics(r));
  }
  tilec_result_destroy(r);
  return k;
}

static void measure_one(const char *name, EmuKernel *k, EmuLaunch *l, int runs) {
  double *t = calloc((size_t)runs, sizeof *t);
  for (int i = 0; i < runs; i++) {
    char *report = NULL;
    double t0 = clock_ms();
    bool ok = emu_launch(k, l, &report, NULL);
    t[i] = clock_ms() - t0;
    if (!ok) fprintf(stderr, "%s: %s", name, report ? report : "");
    free(report);
  }
  sort_doubles(t, runs);
  double threads = (double)l->grid[0] * l->grid[1] * l->grid[2] * 32 * l->num_warps;
  printf("%-40s %10.0f %10.2f %10.2f..%-10.2f %12.3g\n", name, threads, t[runs / 2], t[0], t[runs - 1],
         threads / (t[runs / 2] / 1e3));
  free(t);
}

/* The three ways; the init maps say every byte is written, so that nothing is reported. */
static void measure(const char *name, EmuKernel *k, EmuLaunch *l, int runs) {
  char label[64];
  measure_one(name, k, l, runs);
  l->no_racecheck = true;
  snprintf(label, sizeof label, "%s, no racecheck", name);
  measure_one(label, k, l, runs);
  l->no_racecheck = false;
  EmuBuffer *b = (EmuBuffer *)l->buffers;
  for (int i = 0; i < l->nbuffers; i++) {
    b[i].init = malloc(b[i].bytes / 8 + 1);
    memset(b[i].init, 0xff, b[i].bytes / 8 + 1);
  }
  snprintf(label, sizeof label, "%s, initcheck too", name);
  measure_one(label, k, l, runs);
  for (int i = 0; i < l->nbuffers; i++) free(b[i].init), b[i].init = NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: emu_throughput EXAMPLES_DIR [RUNS]\n");
    return 2;
  }
  int runs = argc > 2 ? atoi(argv[2]) : 10;
  if (runs < 1) runs = 10;
  printf("%-40s %10s %10s %22s %12s\n", "kernel", "threads", "median ms", "spread ms (min..max)", "threads/s");

  int n = 1 << 20;
  float *x = malloc(n * 4u), *y = malloc(n * 4u), *out = malloc(n * 4u);
  for (int i = 0; i < n; i++) x[i] = (float)i, y[i] = 1.0f;
  EmuKernel *k = load(argv[1], "vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024", 4);
  if (!k) return 1;
  EmuBuffer b[3] = {{x, n * 4u, "x_ptr"}, {y, n * 4u, "y_ptr"}, {out, n * 4u, "out_ptr"}};
  void *a[4] = {&b[0].data, &b[1].data, &b[2].data, &n};
  EmuLaunch l = {.grid = {(unsigned)(n / 1024), 1, 1}, .num_warps = 4, .args = a, .nargs = 4, .buffers = b, .nbuffers = 3};
  measure("vector add 1M", k, &l, runs);
  emu_unload(k);
  free(x), free(y), free(out);

  int rows = 4096, cols = 1024;
  float *in = malloc((size_t)rows * cols * 4), *res = malloc((size_t)rows * cols * 4);
  for (int i = 0; i < rows * cols; i++) in[i] = (float)(i % 97) / 97.0f;
  k = load(argv[1], "softmax.py", "softmax_kernel", "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024", 4);
  if (!k) return 1;
  EmuBuffer sb[2] = {{res, (size_t)rows * cols * 4, "out_ptr"}, {in, (size_t)rows * cols * 4, "in_ptr"}};
  void *sa[6] = {&sb[0].data, &sb[1].data, &cols, &cols, &rows, &cols};
  EmuLaunch sl = {.grid = {(unsigned)rows, 1, 1}, .num_warps = 4, .args = sa, .nargs = 6, .buffers = sb, .nbuffers = 2};
  measure("softmax 4096x1024", k, &sl, runs);
  emu_unload(k);
  free(in), free(res);
  return 0;
}
