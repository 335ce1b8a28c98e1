/*
 * matmul_cublas.c — examples/matmul.py (tutorial 03's kernel) on a GPU
 * against cuBLAS: fp16 operands, fp32 accumulation, fp16 result, M = N = K
 * (4096 by default), each of the example's autotune configs and cuBLAS's
 * cublasGemmEx, the median of timed runs after a warm-up, in TFLOP/s; the
 * tilec result checked against cuBLAS's. The goal is at least 90% of
 * cuBLAS with the best config. Without a CUDA device (or without
 * libcublas) it says so and exits 77.
 *
 * usage: matmul_cublas EXAMPLES_DIR [SIZE] [RUNS]
 */
#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "tilec/tilec.h"

/* cuBLAS and the driver, opened at run time (neither is linked): the few
 * calls used, with their enumerations' values from cublas_api.h and
 * library_types.h. */
enum { CUBLAS_OP_N = 0, CUDA_R_16F = 2, CUBLAS_COMPUTE_32F = 68, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99 };
typedef struct Blas {
  int (*create)(void **);
  int (*destroy)(void *);
  int (*gemm)(void *, int, int, int, int, int, const void *, const void *, int, int, const void *, int, int, const void *,
              void *, int, int, int, int);
  int (*sync)(void); /* cuCtxSynchronize */
} Blas;

static bool blas_open(Blas *b) {
  void *lib = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL), *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libcublas.so.12", RTLD_NOW | RTLD_LOCAL);
  if (!lib || !drv) return false;
  *(void **)&b->create = dlsym(lib, "cublasCreate_v2");
  *(void **)&b->destroy = dlsym(lib, "cublasDestroy_v2");
  *(void **)&b->gemm = dlsym(lib, "cublasGemmEx");
  *(void **)&b->sync = dlsym(drv, "cuCtxSynchronize");
  return b->create && b->destroy && b->gemm && b->sync;
}

static uint16_t to_half(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  uint32_t sign = u >> 16 & 0x8000, e = u >> 23 & 0xff, m = u & 0x7fffff;
  if (e < 113) return (uint16_t)sign; /* the inputs are within fp16's normal range */
  return (uint16_t)(sign | (e - 112) << 10 | m >> 13);
}

static float from_half(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = h >> 10 & 0x1f, m = h & 0x3ff, u;
  if (!e) u = sign; /* zeros (no subnormal results at these sizes matter) */
  else u = sign | (e + 112) << 23 | m << 13;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* The median time of `runs` calls of fn, after one warm-up, synchronized. */
typedef bool (*RunFn)(void *ctx);
static double median_time(Blas *b, RunFn fn, void *ctx, int runs) {
  double *t = malloc(sizeof(double) * (size_t)runs);
  if (!fn(ctx)) return -1;
  b->sync();
  for (int i = 0; i < runs; i++) {
    double t0 = clock_ms() / 1e3;
    fn(ctx);
    b->sync();
    t[i] = clock_ms() / 1e3 - t0;
  }
  sort_doubles(t, runs);
  double m = t[runs / 2];
  free(t);
  return m;
}

typedef struct Work {
  Blas *b;
  void *handle;
  tilec_kernel *k;
  tilec_devptr a, bm, c;
  int n, grid;
} Work;

static bool run_cublas(void *p) {
  Work *w = p;
  float one = 1, zero = 0;
  /* row-major C = A B is column-major C^T = B^T A^T */
  return w->b->gemm(w->handle, CUBLAS_OP_N, CUBLAS_OP_N, w->n, w->n, w->n, &one, (void *)(uintptr_t)w->bm, CUDA_R_16F,
                    w->n, (void *)(uintptr_t)w->a, CUDA_R_16F, w->n, &zero, (void *)(uintptr_t)w->c, CUDA_R_16F, w->n,
                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP) == 0;
}

static bool run_tilec(void *p) {
  Work *w = p;
  int n = w->n, one = 1;
  void *args[12] = {&w->a, &w->bm, &w->c, &n, &n, &n, &n, &one, &n, &one, &n, &one};
  unsigned grid[3] = {(unsigned)w->grid, 1, 1};
  return tilec_kernel_launch(w->k, grid, args, 12, NULL, NULL) == TILEC_OK;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: matmul_cublas EXAMPLES_DIR [SIZE] [RUNS]\n");
    return 2;
  }
  int n = argc > 2 ? atoi(argv[2]) : 4096, runs = argc > 3 ? atoi(argv[3]) : 20;
  tilec_device *dev = NULL;
  char *why = NULL;
  Blas blas;
  if (tilec_device_create(TILEC_DEVICE_CUDA, &dev, &why) != TILEC_OK) {
    printf("%s: skipped\n", why ? why : "no CUDA device");
    free(why);
    return 77;
  }
  if (!blas_open(&blas)) {
    printf("no libcublas: skipped\n");
    return 77;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/matmul.py", argv[1]);
  FILE *f = fopen(path, "rb");
  static char src[1 << 16];
  size_t len = f ? fread(src, 1, sizeof src, f) : 0;
  if (f) fclose(f);
  size_t elems = (size_t)n * n, bytes = elems * 2;
  uint16_t *ha = malloc(bytes), *hb = malloc(bytes), *hc = malloc(bytes), *hr = malloc(bytes);
  srand(1);
  for (size_t i = 0; i < elems; i++) ha[i] = to_half((float)rand() / RAND_MAX - 0.5f), hb[i] = to_half((float)rand() / RAND_MAX - 0.5f);
  Work w = {.b = &blas, .n = n};
  if (tilec_device_alloc(dev, bytes, &w.a, NULL) || tilec_device_alloc(dev, bytes, &w.bm, NULL) ||
      tilec_device_alloc(dev, bytes, &w.c, NULL) || tilec_device_copy_to(dev, w.a, ha, bytes, NULL) ||
      tilec_device_copy_to(dev, w.bm, hb, bytes, NULL) || blas.create(&w.handle)) {
    fprintf(stderr, "matmul_cublas: device memory or cuBLAS could not be set up\n");
    return 1;
  }
  double flop = 2.0 * n * (double)n * n;
  double tb = median_time(&blas, run_cublas, &w, runs);
  tilec_device_copy_from(dev, hr, w.c, bytes, NULL);
  printf("M = N = K = %d, fp16 in, fp32 accumulation, fp16 out; median of %d runs\n", n, runs);
  printf("  cuBLAS cublasGemmEx        %8.1f TFLOP/s\n", flop / tb / 1e12);
  static const struct {
    int bm, bn, bk, warps, stages;
  } configs[] = {{128, 256, 64, 8, 3}, {64, 256, 32, 4, 4}, {128, 128, 32, 4, 4}, {128, 64, 32, 4, 4}, {64, 128, 32, 4, 4}, {64, 64, 32, 4, 3}};
  double best = 0;
  int bad_any = 0;
  for (size_t i = 0; i < sizeof configs / sizeof *configs; i++) {
    char sig[256];
    snprintf(sig, sizeof sig, "*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, %d, %d, %d, 8, ''",
             configs[i].bm, configs[i].bn, configs[i].bk);
    tilec_jit_options o = {.kernel = "matmul_kernel", .signature = sig, .num_warps = configs[i].warps,
                           .num_stages = configs[i].stages, .no_disk_cache = 1};
    if (tilec_kernel_create(dev, "matmul.py", src, len, &o, &w.k, &why) != TILEC_OK) {
      fprintf(stderr, "%s\n", why ? why : "");
      return 1;
    }
    w.grid = ((n + configs[i].bm - 1) / configs[i].bm) * ((n + configs[i].bn - 1) / configs[i].bn);
    double t = median_time(&blas, run_tilec, &w, runs);
    tilec_device_copy_from(dev, hc, w.c, bytes, NULL);
    int bad = 0;
    for (size_t j = 0; j < elems; j++) {
      float x = from_half(hc[j]), y = from_half(hr[j]);
      if (!(fabsf(x - y) <= 1e-2f * fabsf(y) + 1e-2f)) bad++;
    }
    bad_any |= bad != 0;
    double tf = t > 0 ? flop / t / 1e12 : 0;
    if (tf > best) best = tf;
    printf("  tilec %3dx%3dx%2d w%d s%d   %8.1f TFLOP/s (%.2f of cuBLAS)%s\n", configs[i].bm, configs[i].bn, configs[i].bk,
           configs[i].warps, configs[i].stages, tf, tb / t, bad ? "  WRONG RESULT" : "");
    tilec_kernel_destroy(w.k);
  }
  printf("  best: %.2f of cuBLAS (goal >= 0.90)\n", best / (flop / tb / 1e12));
  blas.destroy(w.handle);
  tilec_device_destroy(dev);
  return bad_any;
}
