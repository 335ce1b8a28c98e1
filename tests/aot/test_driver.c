/*
 * test_driver.c — a program using a launcher of `tilec aot` (vadd: vector
 * add, an aligned signature before an unaligned one, with a grid
 * expression), linked without libcuda: the launcher opens the driver when
 * it loads.
 *
 *   test_driver missing TRACE  where no libcuda.so.1 can be found: the
 *                              program starts, and vadd_load says why it
 *                              cannot load.
 *   test_driver fake TRACE     on the tests' fake driver (unit/fake_cuda.c,
 *                              first on LD_LIBRARY_PATH, its launches
 *                              written to TRACE): the context comes from
 *                              the driver opened here as a host program's
 *                              runtime would; vadd_load, two launches that
 *                              pick each signature, vadd_unload, checked
 *                              against the trace.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "expect.h"
#include "vadd.h"

static int failures;

/* The trace's lines, joined by '|'. */
static void read_trace(const char *path, char *out, size_t n) {
  out[0] = 0;
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[256];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (strlen(out) + strlen(line) + 2 < n) strcat(strcat(out, out[0] ? "|" : ""), line);
  }
  fclose(f);
}

static int missing(void) {
  CUresult r = vadd_load(NULL);
  EXPECT(r == CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "vadd_load without a driver returned %d", (int)r);
  EXPECT(strstr(vadd_load_log(), "vadd_load: the CUDA driver (libcuda.so.1) cannot be opened: ") == vadd_load_log(),
         "the log is: %s", vadd_load_log());
  EXPECT(vadd(NULL, 0x1000, 0x2000, 0x3000, 1024) == CUDA_ERROR_NOT_INITIALIZED, "a launch after a failed load ran");
  vadd_unload();
  return failures != 0;
}

static int fake(const char *trace) {
  /* the host program's own use of the driver: a context, and memory */
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  EXPECT(lib, "the fake driver does not open: %s", dlerror());
  if (!lib) return 1;
  CUresult (*init)(unsigned) = NULL;
  CUresult (*retain)(CUcontext *, CUdevice) = NULL;
  CUresult (*push)(CUcontext) = NULL;
  CUresult (*alloc)(CUdeviceptr *, size_t) = NULL;
  *(void **)&init = dlsym(lib, "cuInit");
  *(void **)&retain = dlsym(lib, "cuDevicePrimaryCtxRetain");
  *(void **)&push = dlsym(lib, "cuCtxPushCurrent_v2");
  *(void **)&alloc = dlsym(lib, "cuMemAlloc_v2");
  CUcontext ctx = NULL;
  CUdeviceptr x = 0, y = 0, out = 0;
  EXPECT(init && retain && push && alloc && !init(0) && !retain(&ctx, 0) && !push(ctx), "no context");
  EXPECT(!alloc(&x, 4096) && !alloc(&y, 4096) && !alloc(&out, 4096), "no memory");

  CUresult r = vadd_load(NULL);
  EXPECT(r == CUDA_SUCCESS, "vadd_load returned %d: %s", (int)r, vadd_load_log());
  EXPECT(strstr(vadd_load_log(), "vadd_0: the cubin for sm_80, on compute capability 8.0\n") ||
             strstr(vadd_load_log(), "vadd_0: the PTX for sm_80, on compute capability 8.0\n"),
         "the log is: %s", vadd_load_log());
  /* aligned and n % 16 == 0: vadd_0, cdiv(1024, 1024) programs; then x + 4
   * and n = 1000: vadd_1, the pointer into the first allocation */
  EXPECT(vadd(NULL, x, y, out, 1024) == CUDA_SUCCESS, "the first launch failed");
  EXPECT(vadd(NULL, x + 4, y, out, 1000) == CUDA_SUCCESS, "the second launch failed");
  EXPECT(vadd(NULL, x, y, out, 3000) == CUDA_SUCCESS, "the third launch failed");
  vadd_unload();
  EXPECT(vadd(NULL, x, y, out, 1024) == CUDA_ERROR_NOT_INITIALIZED, "a launch after unload ran");
  char got[1024];
  read_trace(trace, got, sizeof got);
  const char *want = "launch 1 1 1, 128 threads, argument 0 in allocation 0|"
                     "launch 1 1 1, 128 threads, argument 0 in allocation 0|"
                     "launch 3 1 1, 128 threads, argument 0 in allocation 0";
  EXPECT(!strcmp(got, want), "the launches were\n  %s\nexpected\n  %s", got, want);
  return failures != 0;
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "missing") && strcmp(argv[1], "fake"))) {
    fprintf(stderr, "usage: test_driver missing|fake TRACE\n");
    return 2;
  }
  int bad = !strcmp(argv[1], "missing") ? missing() : fake(argv[2]);
  if (!bad) printf("ok: %s\n", argv[1]);
  return bad;
}
