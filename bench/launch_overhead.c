/*
 * launch_overhead.c — host time per launch through the JIT API
 * (tilec_kernel_launch: the specialization lookup, then the driver) against
 * a bare cuLaunchKernel of the same kernel image, for a one-block kernel,
 * on a GPU; also runtime.h's tilec_cuda_launch, and the JIT computing the
 * grid from an expression. The target is at most 1.2 times the bare
 * launch. Without a CUDA device it says so and exits 77.
 *
 * usage: launch_overhead EXAMPLES_DIR [LAUNCHES]
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>

#include "bench/bench.h"
#include "tilec/runtime.h"
#include "tilec/tilec.h"

/* The driver calls of the bare baseline, from libcuda.so.1 (not linked). */
typedef struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
} Driver;

static bool driver_open(Driver *d) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return false;
#define SYM(name) (*(void **)&d->name = dlsym(lib, #name))
  return SYM(cuInit) && SYM(cuDeviceGet) && SYM(cuDevicePrimaryCtxRetain) && SYM(cuCtxSetCurrent) &&
         SYM(cuCtxSynchronize) && SYM(cuModuleLoadData) && SYM(cuModuleGetFunction) && SYM(cuLaunchKernel);
#undef SYM
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
  tilec_devptr x, y, z;
  tilec_device_alloc(dev, 4096, &x, NULL), tilec_device_alloc(dev, 4096, &y, NULL), tilec_device_alloc(dev, 4096, &z, NULL);
  int n = 1024;
  void *args[4] = {&x, &y, &z, &n};
  unsigned grid[3] = {1, 1, 1};
  tilec_kernel_launch(k, grid, args, 4, NULL, NULL); /* compiles the specialization */

  /* the baselines: the same kernel image, loaded through runtime.h, and
   * through the driver itself for a bare cuLaunchKernel */
  tilec_cuda *cuda = NULL;
  tilec_cuda_open(0, &cuda, NULL);
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
  if (!ptx || tilec_cuda_module_load(cuda, ptx, plen + 1, "add_kernel", 4, 0, &m, NULL) != TILEC_RT_OK) {
    fprintf(stderr, "the baseline module does not load\n");
    return 1;
  }
  Driver drv;
  CUfunction fn = NULL;
  CUmodule mod = NULL;
  CUdevice device;
  CUcontext ctx = NULL;
  if (!driver_open(&drv) || drv.cuInit(0) || drv.cuDeviceGet(&device, 0) || drv.cuDevicePrimaryCtxRetain(&ctx, device) ||
      drv.cuCtxSetCurrent(ctx) || drv.cuModuleLoadData(&mod, ptx) || drv.cuModuleGetFunction(&fn, mod, "add_kernel")) {
    fprintf(stderr, "the driver does not load the kernel\n");
    return 1;
  }
  /* the JIT with a grid expression: the grid computed at each launch */
  o.grid = "cdiv(n_elements, BLOCK_SIZE)";
  tilec_kernel *kg = NULL;
  if (tilec_kernel_create(dev, "vector_add.py", src, len, &o, &kg, &why) != TILEC_OK) {
    fprintf(stderr, "%s\n", why ? why : "");
    return 1;
  }
  tilec_kernel_launch(kg, NULL, args, 4, NULL, NULL);
  double best[4] = {1e30, 1e30, 1e30, 1e30};
  for (int round = 0; round < 5; round++) {
    for (int way = 0; way < 4; way++) {
      drv.cuCtxSynchronize();
      double t0 = clock_ms() * 1e3;
      for (int i = 0; i < launches; i++) {
        if (way == 0) drv.cuLaunchKernel(fn, 1, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
        else if (way == 1) tilec_cuda_launch(m, grid, args, NULL, NULL);
        else if (way == 2) tilec_kernel_launch(k, grid, args, 4, NULL, NULL);
        else tilec_kernel_launch(kg, NULL, args, 4, NULL, NULL);
      }
      double t = (clock_ms() * 1e3 - t0) / launches;
      if (t < best[way]) best[way] = t;
    }
  }
  drv.cuCtxSynchronize();
  printf("host time per launch, best of 5 rounds of %d:\n"
         "  cuLaunchKernel            %.3f us\n"
         "  tilec_cuda_launch         %.3f us (%.2fx)\n"
         "  tilec_kernel_launch       %.3f us (%.2fx; target <= 1.2x)\n"
         "  the same, grid expression %.3f us (%.2fx)\n",
         launches, best[0], best[1], best[1] / best[0], best[2], best[2] / best[0], best[3], best[3] / best[0]);
  tilec_kernel_destroy(kg);
  tilec_cuda_module_unload(m);
  tilec_cuda_close(cuda);
  tilec_result_destroy(r);
  tilec_kernel_destroy(k);
  tilec_device_destroy(dev);
  return 0;
}
