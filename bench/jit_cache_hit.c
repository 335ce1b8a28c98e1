/*
 * jit_cache_hit.c — from source text to a launchable kernel when the disk
 * cache has it: tilec_kernel_create for vector add, with the cache filled
 * by a first call, timed over RUNS calls. On the CPU device "launchable"
 * includes JIT-compiling the cached host IR with ORC; the compiler itself
 * (and its MLIR context) is not touched. Uses a fresh cache directory under
 * /tmp, removed at the end. The device is TILEC_DEVICE's (auto: the GPU when
 * there is one); without it, it says so and exits 77.
 *
 * usage: jit_cache_hit EXAMPLES_DIR [RUNS]
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "tilec/tilec.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: jit_cache_hit EXAMPLES_DIR [RUNS]\n");
    return 2;
  }
  int runs = argc > 2 ? atoi(argv[2]) : 50;
  if (runs < 1) runs = 50;
  char path[1024], dir[] = "/tmp/tilec-bench-cache-XXXXXX";
  snprintf(path, sizeof path, "%s/vector_add.py", argv[1]);
  FILE *f = fopen(path, "rb");
  static char src[1 << 16];
  size_t len = f ? fread(src, 1, sizeof src, f) : 0;
  if (f) fclose(f);
  if (!len || !mkdtemp(dir)) return 1;
  tilec_device *dev = NULL;
  char *why = NULL;
  if (tilec_device_create(TILEC_DEVICE_AUTO, &dev, &why) != TILEC_OK) {
    printf("%s: skipped\n", why ? why : "no device");
    free(why);
    return 77;
  }
  tilec_jit_options o = {.kernel = "add_kernel", .signature = "*fp32, *fp32, *fp32, i32, 1024", .cache_dir = dir};
  double *t = calloc((size_t)runs + 1, sizeof *t), first = 0;
  for (int i = -1; i < runs; i++) {
    tilec_kernel *k = NULL;
    char *diag = NULL;
    double t0 = clock_ms() * 1e3;
    if (tilec_kernel_create(dev, "vector_add.py", src, len, &o, &k, &diag) != TILEC_OK) {
      fprintf(stderr, "%s\n", diag ? diag : "");
      return 1;
    }
    double dt = clock_ms() * 1e3 - t0;
    if (i < 0) first = dt;
    else t[i] = dt;
    tilec_kernel_destroy(k);
  }
  sort_doubles(t, runs);
  printf("device %s: first (compile, fill the cache) %.0f us; cache hit median %.0f us (%.0f..%.0f), %d runs\n",
         tilec_device_kind_of(dev) == TILEC_DEVICE_CUDA ? "CUDA" : "CPU", first, t[runs / 2], t[0], t[runs - 1], runs);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  int rc = system(cmd);
  free(t);
  tilec_device_destroy(dev);
  return rc != 0;
}
