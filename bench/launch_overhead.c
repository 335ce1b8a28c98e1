/*
 * launch_overhead.c — host time per launch through the JIT API
 * (tilec_kernel_launch: the specialization lookup, then the driver) against
 * runtime.h's tilec_cuda_launch (cuLaunchKernel behind one
 * cuCtxGetCurrent), for a one-block kernel, on a GPU. The target is at
 * most 1.2 times. Without a CUDA device it says so and exits 77.
 *
 * usage: launch_overhead EXAMPLES_DIR [LAUNCHES]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tilec/runtime.h"
#include "tilec/tilec.h"

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: launch_overhead EXAMPLES_DIR [LAUNCHES]\n");
    return 2;
  }
  int launches = argc > 2 ? atoi(argv[2]) : 100000;
  tilec_device *dev = NULL;
  char *why = NULL;
  if (tilec_device_create(TILEC_DEVICE_CUDA, &dev, &why) != TILEC_OK) {
    printf("%s: skipped\n", why ? why : "no CUDA device");
    free(why);
    return 77;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/vector_add.py", argv[1]);
  FILE *f = fopen(path, "rb");
  static char src[1 << 16];
  size_t len = f ? fread(src, 1, sizeof src, f) : 0;
  if (f) fclose(f);
  tilec_jit_options o = {.kernel = "add_kernel", .signature = "*fp32, *fp32, *fp32, i32, 1024"};
  tilec_kernel *k = NULL;
  if (tilec_kernel_create(dev, "vector_add.py", src, len, &o, &k, &why) != TILEC_OK) {
    fprintf(stderr, "%s\n", why ? why : "");
    return 1;
  }
  unsigned long long x, y, z;
  tilec_device_alloc(dev, 4096, &x), tilec_device_alloc(dev, 4096, &y), tilec_device_alloc(dev, 4096, &z);
  int n = 1024;
  void *args[4] = {&x, &y, &z, &n};
  unsigned grid[3] = {1, 1, 1};
  tilec_kernel_launch(k, grid, args, 4, NULL, NULL); /* compiles the specialization */

  /* the baseline: the same kernel image, loaded through runtime.h */
  tilec_cuda *cuda = NULL;
  tilec_cuda_open(0, &cuda, NULL, 0);
  char arch[16];
  int a = tilec_cuda_arch(cuda);
  snprintf(arch, sizeof arch, a >= 90 ? "sm_90a" : "sm_80");
  tilec_compile_options co = {.kernel = "add_kernel", .signature = "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024",
                              .emit = TILEC_EMIT_PTX, .arch = arch};
  tilec_result *r = NULL;
  tilec_compile("vector_add.py", src, len, &co, &r);
  size_t plen;
  const char *ptx = tilec_result_output(r, &plen);
  tilec_cuda_module *m = NULL;
  if (!ptx || tilec_cuda_module_load(cuda, ptx, plen + 1, "add_kernel", 4, 0, &m, NULL, 0) != TILEC_RT_OK) {
    fprintf(stderr, "the baseline module does not load\n");
    return 1;
  }
  double best_jit = 1e30, best_bare = 1e30;
  for (int round = 0; round < 5; round++) {
    tilec_cuda_synchronize(cuda, NULL, 0);
    double t0 = now_us();
    for (int i = 0; i < launches; i++) tilec_cuda_launch(m, grid, args, NULL, NULL, 0);
    double t1 = now_us();
    tilec_cuda_synchronize(cuda, NULL, 0);
    double t2 = now_us();
    for (int i = 0; i < launches; i++) tilec_kernel_launch(k, grid, args, 4, NULL, NULL);
    double t3 = now_us();
    tilec_cuda_synchronize(cuda, NULL, 0);
    if ((t1 - t0) / launches < best_bare) best_bare = (t1 - t0) / launches;
    if ((t3 - t2) / launches < best_jit) best_jit = (t3 - t2) / launches;
  }
  printf("host time per launch: bare %.3f us, tilec_kernel_launch %.3f us, ratio %.2f (target <= 1.2)\n", best_bare,
         best_jit, best_jit / best_bare);
  tilec_cuda_module_unload(m);
  tilec_cuda_close(cuda);
  tilec_result_destroy(r);
  tilec_kernel_destroy(k);
  tilec_device_destroy(dev);
  return 0;
}
