/* fake_cuda.c — a CUDA driver without a GPU, built as libcuda.so.1, for
 * the tests of what the runtime and the JIT say when the driver fails.
 *
 * It has one device of compute capability 8.0. Device memory is host
 * memory, and a request of 1 TiB or more fails with
 * CUDA_ERROR_OUT_OF_MEMORY. An image starting with "bad image" does not
 * load (CUDA_ERROR_INVALID_PTX, with an error log); any other loads, and
 * every launch fails with CUDA_ERROR_LAUNCH_FAILED, as a kernel that
 * faults would. With FAKE_CUDA_TRACE=FILE, launches succeed (and do
 * nothing), and each launch, memset and event record appends a line to FILE:
 * what `tilec bench` does around a launch shows there. Only the entry points runtime/cuda.c and the launchers
 * of `tilec aot` open are here, with their _v2 names where they take those. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;

enum {
  OK = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  INVALID_PTX = 218,
  NOT_FOUND = 500,
  LAUNCH_FAILED = 719,
  JIT_ERROR_LOG_BUFFER = 5,
  JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

#define API __attribute__((visibility("default")))

static int ctx_token, mod_token, fn_token;
static void *current;

/* the allocations, for cuMemGetAddressRange */
#define MAX_ALLOCS 256
static struct {
  void *p;
  size_t n;
} allocs[MAX_ALLOCS];

API CUresult cuInit(unsigned flags) { return OK; }
API CUresult cuDeviceGetCount(int *n) { return *n = 1, OK; }
API CUresult cuDeviceGet(int *d, int ordinal) { return ordinal ? INVALID_VALUE : (*d = 0, OK); }
API CUresult cuDeviceGetAttribute(int *v, int attr, int d) {
  *v = attr == 75 ? 8 : attr == 97 ? 163 * 1024 : 0; /* compute capability 8.0, an A100's opt-in shared memory */
  return OK;
}
API CUresult cuDevicePrimaryCtxRetain(void **ctx, int d) { return *ctx = &ctx_token, OK; }
API CUresult cuDevicePrimaryCtxRelease_v2(int d) { return OK; }
API CUresult cuCtxGetCurrent(void **ctx) { return *ctx = current, OK; }
API CUresult cuCtxPushCurrent_v2(void *ctx) { return current = ctx, OK; }
API CUresult cuCtxPopCurrent_v2(void **ctx) {
  if (ctx) *ctx = current;
  current = NULL;
  return OK;
}
API CUresult cuCtxGetDevice(int *d) { return current ? (*d = 0, OK) : 201 /* CUDA_ERROR_INVALID_CONTEXT */; }
API CUresult cuCtxSynchronize(void) { return OK; }

API CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned n, int *opts, void **vals) {
  if (strncmp(image, "bad image", 9)) return *mod = &mod_token, OK;
  for (unsigned i = 0; i + 1 < n; i++)
    if (opts[i] == JIT_ERROR_LOG_BUFFER && opts[i + 1] == JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      snprintf(vals[i], (size_t)(uintptr_t)vals[i + 1], "ptxas fatal: the image is not PTX");
  return INVALID_PTX;
}
API CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) { return *fn = &fn_token, OK; }
API CUresult cuModuleUnload(void *mod) { return OK; }
API CUresult cuFuncSetAttribute(void *fn, int attr, int value) { return OK; }
/* every kernel has one parameter of 8 bytes, which cuLaunchKernel reads */
API CUresult cuFuncGetParamInfo(void *fn, size_t i, size_t *offset, size_t *size) {
  if (i) return INVALID_VALUE;
  return *offset = 0, *size = 8, OK;
}
/* FAKE_CUDA_TRACE's file, opened at the first call that writes to it */
static FILE *trace(void) {
  static FILE *f;
  static int tried;
  const char *path = getenv("FAKE_CUDA_TRACE");
  if (!tried && path && *path) f = fopen(path, "w");
  tried = 1;
  return f;
}

API CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned shared, void *stream, void **args, void **extra) {
  FILE *f = trace();
  if (!f) return LAUNCH_FAILED;
  /* which allocation the first argument points into (tilec's argument
   * slots are 8 bytes, whatever the parameter) */
  unsigned long long a0;
  memcpy(&a0, args[0], sizeof a0);
  int which = -1;
  for (int i = 0; i < MAX_ALLOCS; i++)
    if (allocs[i].p && a0 >= (uintptr_t)allocs[i].p && a0 < (uintptr_t)allocs[i].p + allocs[i].n) which = i;
  fprintf(f, "launch %u %u %u, %u threads, argument 0 in allocation %d\n", gx, gy, gz, bx * by * bz, which);
  fflush(f);
  return OK;
}

API CUresult cuMemAlloc_v2(unsigned long long *p, size_t n) {
  if (n >= (size_t)1 << 40) return OUT_OF_MEMORY;
  for (int i = 0; i < MAX_ALLOCS; i++)
    if (!allocs[i].p) {
      if (!(allocs[i].p = malloc(n))) return OUT_OF_MEMORY;
      allocs[i].n = n;
      *p = (uintptr_t)allocs[i].p;
      return OK;
    }
  return OUT_OF_MEMORY;
}
API CUresult cuMemFree_v2(unsigned long long p) {
  for (int i = 0; i < MAX_ALLOCS; i++)
    if (allocs[i].p && (uintptr_t)allocs[i].p == p) {
      free(allocs[i].p);
      allocs[i].p = NULL;
      return OK;
    }
  return INVALID_VALUE;
}
API CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n) {
  return memcpy((void *)(uintptr_t)dst, src, n), OK;
}
API CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n) {
  return memcpy(dst, (const void *)(uintptr_t)src, n), OK;
}
API CUresult cuMemGetAddressRange_v2(unsigned long long *base, size_t *size, unsigned long long p) {
  for (int i = 0; i < MAX_ALLOCS; i++) {
    uintptr_t b = (uintptr_t)allocs[i].p;
    if (b && p >= b && p < b + allocs[i].n) return *base = b, *size = allocs[i].n, OK;
  }
  return NOT_FOUND;
}

API CUresult cuMemsetD8_v2(unsigned long long p, unsigned char v, size_t n) {
  FILE *f = trace();
  if (f) fprintf(f, "memset %zu\n", n), fflush(f);
  memset((void *)(uintptr_t)p, v, n);
  return OK;
}

/* events: a host clock's reading at record */
API CUresult cuEventCreate(void **e, unsigned flags) { return (*e = calloc(1, sizeof(double))) ? OK : OUT_OF_MEMORY; }
API CUresult cuEventRecord(void *e, void *stream) {
  FILE *f = trace();
  if (f) fputs("record\n", f), fflush(f);
  *(double *)e = (double)clock() * 1e3 / CLOCKS_PER_SEC;
  return OK;
}
API CUresult cuEventSynchronize(void *e) { return OK; }
API CUresult cuEventElapsedTime(float *ms, void *a, void *b) { return *ms = (float)(*(double *)b - *(double *)a), OK; }
API CUresult cuEventDestroy_v2(void *e) { return free(e), OK; }

static const struct {
  CUresult r;
  const char *name, *text;
} errors[] = {
    {INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
};

API CUresult cuGetErrorName(CUresult r, const char **s) {
  for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
    if (errors[i].r == r) return *s = errors[i].name, OK;
  return INVALID_VALUE;
}
API CUresult cuGetErrorString(CUresult r, const char **s) {
  for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
    if (errors[i].r == r) return *s = errors[i].text, OK;
  return INVALID_VALUE;
}
