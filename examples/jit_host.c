/*
 * jit_host.c — a C program that JIT-compiles three of the example kernels
 * with tilec and runs them: vector add, a row softmax, and an autotuned
 * axpy whose grid the JIT computes, on the GPU when there is one, else on
 * the CPU emulator (TILEC_DEVICE=cpu|cuda|auto chooses). It checks the
 * results against the host and prints a line per kernel; exit status 0
 * when all match, 77 when TILEC_DEVICE=cuda and there is no GPU.
 *
 * usage: jit_host EXAMPLES_DIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilec/tilec.h"

static char *slurp(const char *dir, const char *file, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
  fclose(f);
  s[n] = 0;
  *len = (size_t)n;
  return s;
}

static tilec_kernel *jit_with(tilec_device *dev, const char *dir, const char *file, tilec_jit_options o) {
  size_t len;
  char *src = slurp(dir, file, &len);
  if (!src) {
    fprintf(stderr, "cannot read %s/%s\n", dir, file);
    return NULL;
  }
  tilec_kernel *k = NULL;
  char *diag = NULL;
  if (tilec_kernel_create(dev, file, src, len, &o, &k, &diag) != TILEC_OK) fprintf(stderr, "%s\n", diag ? diag : "");
  free(diag);
  free(src);
  return k;
}

static tilec_kernel *jit(tilec_device *dev, const char *dir, const char *file, const char *kernel, const char *sig,
                         int warps) {
  tilec_jit_options o = {.kernel = kernel, .signature = sig, .num_warps = warps, .no_disk_cache = 1};
  return jit_with(dev, dir, file, o);
}

static float uniform(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return (float)(*s >> 8) / 16777216.0f * 2 - 1;
}

static int vector_add(tilec_device *dev, const char *dir) {
  tilec_kernel *k = jit(dev, dir, "vector_add.py", "add_kernel", "*fp32, *fp32, *fp32, i32, 1024", 4);
  if (!k) return 1;
  int n = 98432 + 5;
  size_t bytes = (size_t)n * sizeof(float);
  float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
  unsigned seed = 1;
  for (int i = 0; i < n; i++) x[i] = uniform(&seed), y[i] = uniform(&seed);
  tilec_devptr dx, dy, dout;
  int bad = tilec_device_alloc(dev, bytes, &dx, NULL) || tilec_device_alloc(dev, bytes, &dy, NULL) || tilec_device_alloc(dev, bytes, &dout, NULL) ||
            tilec_device_copy_to(dev, dx, x, bytes, NULL) || tilec_device_copy_to(dev, dy, y, bytes, NULL);
  unsigned grid[3] = {(unsigned)(n + 1023) / 1024, 1, 1};
  char *report = NULL;
  /* the typed convenience: the arguments in parameter order */
  if (!bad && tilec_kernel_launchv(k, grid, NULL, &report, dx, dy, dout, n) != TILEC_OK) {
    fprintf(stderr, "vector add: %s\n", report ? report : "the launch failed");
    bad = 1;
  }
  free(report);
  if (!bad) bad = tilec_device_copy_from(dev, out, dout, bytes, NULL) != TILEC_OK;
  int wrong = 0;
  for (int i = 0; !bad && i < n; i++) wrong += out[i] != x[i] + y[i];
  printf("vector add, %d elements: %s (%d specialization%s)\n", n, bad || wrong ? "MISMATCH" : "ok",
         tilec_kernel_specializations(k), tilec_kernel_specializations(k) == 1 ? "" : "s");
  tilec_device_free(dev, dx, NULL), tilec_device_free(dev, dy, NULL), tilec_device_free(dev, dout, NULL);
  tilec_kernel_destroy(k);
  free(x), free(y), free(out);
  return bad || wrong;
}

static int softmax(tilec_device *dev, const char *dir) {
  tilec_kernel *k = jit(dev, dir, "softmax.py", "softmax_kernel", "*fp32, *fp32, i32, i32, i32, i32, 1024", 4);
  if (!k) return 1;
  int rows = 300, cols = 1000, stride = 1024;
  size_t bytes = (size_t)rows * stride * sizeof(float);
  float *x = malloc(bytes), *y = malloc(bytes);
  unsigned seed = 7;
  for (int i = 0; i < rows * stride; i++) x[i] = 4 * uniform(&seed);
  tilec_devptr dx, dy;
  int bad = tilec_device_alloc(dev, bytes, &dx, NULL) || tilec_device_alloc(dev, bytes, &dy, NULL) || tilec_device_copy_to(dev, dx, x, bytes, NULL);
  /* cuLaunchKernel's form: a pointer to each argument */
  void *args[6] = {&dy, &dx, &stride, &stride, &rows, &cols};
  unsigned grid[3] = {64, 1, 1};
  char *report = NULL;
  if (!bad && tilec_kernel_launch(k, grid, args, 6, NULL, &report) != TILEC_OK) {
    fprintf(stderr, "softmax: %s\n", report ? report : "the launch failed");
    bad = 1;
  }
  free(report);
  if (!bad) bad = tilec_device_copy_from(dev, y, dy, bytes, NULL) != TILEC_OK;
  double worst = 0;
  for (int r = 0; !bad && r < rows; r++) {
    double mx = -INFINITY, sum = 0;
    for (int c = 0; c < cols; c++) mx = fmax(mx, x[r * stride + c]);
    for (int c = 0; c < cols; c++) sum += exp(x[r * stride + c] - mx);
    for (int c = 0; c < cols; c++) worst = fmax(worst, fabs(y[r * stride + c] - exp(x[r * stride + c] - mx) / sum));
  }
  int wrong = !(worst < 1e-6);
  printf("softmax, %dx%d: %s (largest difference %.2g)\n", rows, cols, bad || wrong ? "MISMATCH" : "ok", worst);
  tilec_device_free(dev, dx, NULL), tilec_device_free(dev, dy, NULL);
  tilec_kernel_destroy(k);
  free(x), free(y);
  return bad || wrong;
}

/* Autotuned: the first launch of each n_elements times the three configs
 * and keeps the fastest; the grid, cdiv(n_elements, BLOCK_SIZE), follows the
 * config. The signature leaves out BLOCK_SIZE, which the configs set. */
static int axpy(tilec_device *dev, const char *dir) {
  tilec_jit_options o = {.signature = "*fp32, *fp32, *fp32, fp32, i32", .grid = "cdiv(n_elements, BLOCK_SIZE)",
                         .config = TILEC_CONFIG_TUNE, .no_disk_cache = 1};
  tilec_kernel *k = jit_with(dev, dir, "autotune.py", o);
  if (!k) return 1;
  int n = 300007;
  float alpha = 0.5f;
  size_t bytes = (size_t)n * sizeof(float);
  float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
  unsigned seed = 3;
  for (int i = 0; i < n; i++) x[i] = uniform(&seed), y[i] = uniform(&seed);
  tilec_devptr dx, dy, dout;
  int bad = tilec_device_alloc(dev, bytes, &dx, NULL) || tilec_device_alloc(dev, bytes, &dy, NULL) || tilec_device_alloc(dev, bytes, &dout, NULL) ||
            tilec_device_copy_to(dev, dx, x, bytes, NULL) || tilec_device_copy_to(dev, dy, y, bytes, NULL);
  void *args[5] = {&dx, &dy, &dout, &alpha, &n};
  char *report = NULL;
  if (!bad && tilec_kernel_launch(k, NULL, args, 5, NULL, &report) != TILEC_OK) {
    fprintf(stderr, "axpy: %s\n", report ? report : "the launch failed");
    bad = 1;
  }
  free(report);
  if (!bad) bad = tilec_device_copy_from(dev, out, dout, bytes, NULL) != TILEC_OK;
  int wrong = 0;
  for (int i = 0; !bad && i < n; i++) wrong += fabsf(out[i] - (alpha * x[i] + y[i])) > 1e-6f;
  printf("autotuned axpy, %d elements: %s (config %d of %d)\n", n, bad || wrong ? "MISMATCH" : "ok",
         tilec_kernel_config_of(k, args, 5), tilec_kernel_configs(k));
  tilec_device_free(dev, dx, NULL), tilec_device_free(dev, dy, NULL), tilec_device_free(dev, dout, NULL);
  tilec_kernel_destroy(k);
  free(x), free(y), free(out);
  return bad || wrong;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: jit_host EXAMPLES_DIR\n");
    return 2;
  }
  tilec_device *dev = NULL;
  char *why = NULL;
  if (tilec_device_create(TILEC_DEVICE_AUTO, &dev, &why) != TILEC_OK) {
    /* TILEC_DEVICE=cuda on a machine without a GPU: skipped, as tests say */
    const char *env = getenv("TILEC_DEVICE");
    int skip = env && !strcmp(env, "cuda") && why && strstr(why, "no CUDA device");
    fprintf(stderr, "%s%s\n", why ? why : "no device", skip ? ": skipped" : "");
    free(why);
    return skip ? 77 : 1;
  }
  printf("device: %s\n", tilec_device_kind_of(dev) == TILEC_DEVICE_CUDA ? "CUDA" : "the CPU emulator");
  int bad = vector_add(dev, argv[1]) + softmax(dev, argv[1]) + axpy(dev, argv[1]);
  tilec_device_destroy(dev);
  return bad != 0;
}
