/*
 * cuda.c — the CUDA driver, opened with dlopen, for runtime.h.
 *
 * Only the driver's C ABI is used, declared here (the handful of types and
 * entry points the runtime needs), so that libtilec_rt builds without the
 * CUDA toolkit and runs without a GPU: every call then says why it cannot.
 */
#include "tilec/runtime.h"

#include "grid.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the driver's ABI (cuda.h) ------------------------------------------------------------ */

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef struct CUevent_st *CUevent;

enum {
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_NO_DEVICE = 100,
};

typedef struct Driver {
  void *lib;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxPushCurrent)(CUcontext);
  CUresult (*cuCtxPopCurrent)(CUcontext *);
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemGetAddressRange)(CUdeviceptr *, size_t *, CUdeviceptr);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuFuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *); /* CUDA 12.4 on; NULL before */
  /* CUDA 12.0 on; NULL before: (map, data type, rank, address, dims, strides, box, element strides,
   * interleave, swizzle, L2 promotion, out-of-bounds fill) */
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *, const uint64_t *, const uint64_t *, const uint32_t *,
                                     const uint32_t *, int, int, int, int);
} Driver;

static Driver drv;
static const char *drv_error; /* why the driver cannot be used, NULL when it can */
static tilec_rt_status drv_status;
static char drv_message[512];
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;

/* What the driver says r is: its name and description. The toolkit's stub
 * (lib64/stubs/libcuda.so, which a program links against and finds at run
 * time when no driver is installed) answers CUDA_ERROR_STUB_LIBRARY to
 * every call, cuGetErrorName's included, so that one is known here. */
static void error_text(CUresult r, char *buf, size_t n) {
  const char *name = NULL, *text = NULL;
  if (drv.cuGetErrorName && drv.cuGetErrorName(r, &name)) name = NULL;
  if (drv.cuGetErrorString && drv.cuGetErrorString(r, &text)) text = NULL;
  if (!name && r == CUDA_ERROR_STUB_LIBRARY)
    name = "CUDA_ERROR_STUB_LIBRARY", text = "libcuda.so.1 is the CUDA toolkit's link-only stub, not a driver";
  snprintf(buf, n, "%s (%d)%s%s", name ? name : "unknown error", r, text ? ": " : "", text ? text : "");
}

static void open_driver(void) {
  drv_status = TILEC_RT_NO_DRIVER;
  drv.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!drv.lib) {
    drv_error = "the CUDA driver (libcuda.so.1) is not installed on this machine";
    return;
  }
  /* the _v2 entry points where the driver has them */
  struct {
    void **at;
    const char *name;
  } syms[] = {
      {(void **)&drv.cuInit, "cuInit"},
      {(void **)&drv.cuDeviceGetCount, "cuDeviceGetCount"},
      {(void **)&drv.cuDeviceGet, "cuDeviceGet"},
      {(void **)&drv.cuDeviceGetAttribute, "cuDeviceGetAttribute"},
      {(void **)&drv.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
      {(void **)&drv.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"},
      {(void **)&drv.cuCtxGetCurrent, "cuCtxGetCurrent"},
      {(void **)&drv.cuCtxPushCurrent, "cuCtxPushCurrent_v2"},
      {(void **)&drv.cuCtxPopCurrent, "cuCtxPopCurrent_v2"},
      {(void **)&drv.cuCtxSynchronize, "cuCtxSynchronize"},
      {(void **)&drv.cuModuleLoadDataEx, "cuModuleLoadDataEx"},
      {(void **)&drv.cuModuleGetFunction, "cuModuleGetFunction"},
      {(void **)&drv.cuModuleUnload, "cuModuleUnload"},
      {(void **)&drv.cuFuncSetAttribute, "cuFuncSetAttribute"},
      {(void **)&drv.cuLaunchKernel, "cuLaunchKernel"},
      {(void **)&drv.cuMemAlloc, "cuMemAlloc_v2"},
      {(void **)&drv.cuMemFree, "cuMemFree_v2"},
      {(void **)&drv.cuMemcpyHtoD, "cuMemcpyHtoD_v2"},
      {(void **)&drv.cuMemcpyDtoH, "cuMemcpyDtoH_v2"},
      {(void **)&drv.cuMemGetAddressRange, "cuMemGetAddressRange_v2"},
      {(void **)&drv.cuMemsetD8, "cuMemsetD8_v2"},
      {(void **)&drv.cuEventCreate, "cuEventCreate"},
      {(void **)&drv.cuEventRecord, "cuEventRecord"},
      {(void **)&drv.cuEventSynchronize, "cuEventSynchronize"},
      {(void **)&drv.cuEventElapsedTime, "cuEventElapsedTime"},
      {(void **)&drv.cuEventDestroy, "cuEventDestroy_v2"},
      {(void **)&drv.cuGetErrorName, "cuGetErrorName"},
      {(void **)&drv.cuGetErrorString, "cuGetErrorString"},
  };
  for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
    *syms[i].at = dlsym(drv.lib, syms[i].name);
    if (!*syms[i].at) {
      drv_error = "the CUDA driver lacks an entry point tilec needs (it is older than CUDA 12)";
      return;
    }
  }
  /* optional: the parameters of a kernel, so that a launch can check its arguments */
  *(void **)&drv.cuFuncGetParamInfo = dlsym(drv.lib, "cuFuncGetParamInfo");
  /* optional: tensor maps, for kernels that copy by TMA (sm_90 on) */
  *(void **)&drv.cuTensorMapEncodeTiled = dlsym(drv.lib, "cuTensorMapEncodeTiled");
  CUresult r = drv.cuInit(0);
  if (r) {
    char text[256];
    error_text(r, text, sizeof text);
    snprintf(drv_message, sizeof drv_message, "the CUDA driver does not initialize: cuInit failed: %s", text);
    drv_error = drv_message;
    if (r == CUDA_ERROR_NO_DEVICE) drv_status = TILEC_RT_NO_DEVICE;
  }
}

struct tilec_cuda {
  CUdevice dev;
  CUcontext ctx;
  bool retained; /* the primary context, released on close */
  int arch;
};

struct tilec_cuda_event {
  tilec_cuda *cuda;
  CUevent ev;
};

struct tilec_cuda_module {
  tilec_cuda *cuda;
  CUmodule mod;
  CUfunction fn;
  int threads;
  size_t shared;
  int nparams; /* the kernel's parameters, -1 when the driver cannot say */
};

/* The message of a failed call (common.h): malloc'd, as long as it needs
 * (a JIT log is kilobytes); NULL when even that cannot be allocated. */
static void say(char **message, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(char **message, const char *fmt, ...) {
  if (!message) return;
  va_list ap, aq;
  va_start(ap, fmt);
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  *message = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (*message) vsnprintf(*message, (size_t)n + 1, fmt, aq);
  va_end(aq);
}

/* Every call starts with no message: one set later says why it failed. */
static void clear(char **message) {
  if (message) *message = NULL;
}

static tilec_rt_status cuda_failed(CUresult r, const char *call, char **message) {
  char text[256];
  error_text(r, text, sizeof text);
  say(message, "%s failed: %s", call, text);
  return r == CUDA_ERROR_OUT_OF_MEMORY ? TILEC_RT_NO_MEMORY : r == CUDA_ERROR_INVALID_VALUE ? TILEC_RT_INVALID
                                                                                          : TILEC_RT_CUDA_ERROR;
}

/* A null handle or argument: the message names the function and what was
 * missing. */
static tilec_rt_status invalid(char **message, const char *fn, const char *what) {
  say(message, "%s: %s", fn, what);
  return TILEC_RT_INVALID;
}

static tilec_rt_status no_memory(char **message, const char *fn) {
  say(message, "%s: out of memory", fn);
  return TILEC_RT_NO_MEMORY;
}

/* Makes the device's context current around a call when it is not (a
 * launch from a thread that has it current pays one cuCtxGetCurrent). */
static bool enter(tilec_cuda *c) {
  CUcontext current = NULL;
  drv.cuCtxGetCurrent(&current);
  if (current == c->ctx) return false;
  drv.cuCtxPushCurrent(c->ctx);
  return true;
}

static void leave(bool pushed) {
  CUcontext dummy;
  if (pushed) drv.cuCtxPopCurrent(&dummy);
}

tilec_rt_status tilec_cuda_open(int ordinal, tilec_cuda **out, char **message) {
  clear(message);
  if (!out) return invalid(message, "tilec_cuda_open", "out is NULL");
  *out = NULL;
  pthread_once(&drv_once, open_driver);
  if (drv_error) {
    say(message, "%s", drv_error);
    return drv_status;
  }
  int n = 0;
  CUresult r = drv.cuDeviceGetCount(&n);
  if (r) return cuda_failed(r, "cuDeviceGetCount", message);
  if (ordinal < 0 || ordinal >= n) {
    say(message, "there is no CUDA device %d (the machine has %d)", ordinal, n);
    return TILEC_RT_NO_DEVICE;
  }
  tilec_cuda *c = calloc(1, sizeof *c);
  if (!c) return no_memory(message, "tilec_cuda_open");
  int major = 0, minor = 0;
  if ((r = drv.cuDeviceGet(&c->dev, ordinal)) || (r = drv.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, c->dev)) ||
      (r = drv.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, c->dev))) {
    free(c);
    return cuda_failed(r, "cuDeviceGet", message);
  }
  c->arch = 10 * major + minor;
  CUcontext current = NULL;
  drv.cuCtxGetCurrent(&current);
  if (current) {
    c->ctx = current;
  } else if ((r = drv.cuDevicePrimaryCtxRetain(&c->ctx, c->dev))) {
    free(c);
    return cuda_failed(r, "cuDevicePrimaryCtxRetain", message);
  } else {
    c->retained = true;
  }
  *out = c;
  return TILEC_RT_OK;
}

void tilec_cuda_close(tilec_cuda *c) {
  if (!c) return;
  if (c->retained) drv.cuDevicePrimaryCtxRelease(c->dev);
  free(c);
}

int tilec_cuda_arch(const tilec_cuda *c) { return c ? c->arch : 0; }

const char *tilec_cuda_target(const tilec_cuda *c) {
  int a = tilec_cuda_arch(c);
  if (a < 80) return NULL; /* no device, or one older than every target */
  return a == 90 ? "sm_90a" : a > 90 ? "sm_90" : a >= 89 ? "sm_89" : a >= 86 ? "sm_86" : "sm_80";
}

tilec_rt_status tilec_cuda_alloc(tilec_cuda *c, size_t bytes, tilec_devptr *ptr, char **message) {
  clear(message);
  if (!c) return invalid(message, "tilec_cuda_alloc", "the device is NULL");
  if (!ptr) return invalid(message, "tilec_cuda_alloc", "ptr is NULL");
  CUdeviceptr p = 0;
  bool pushed = enter(c);
  CUresult r = drv.cuMemAlloc(&p, bytes ? bytes : 1);
  leave(pushed);
  if (r) return cuda_failed(r, "cuMemAlloc", message);
  *ptr = p;
  return TILEC_RT_OK;
}

tilec_rt_status tilec_cuda_free(tilec_cuda *c, tilec_devptr ptr, char **message) {
  clear(message);
  if (!c) return invalid(message, "tilec_cuda_free", "the device is NULL");
  bool pushed = enter(c);
  CUresult r = drv.cuMemFree(ptr);
  leave(pushed);
  return r ? cuda_failed(r, "cuMemFree", message) : TILEC_RT_OK;
}

tilec_rt_status tilec_cuda_copy_to(tilec_cuda *c, tilec_devptr dst, const void *src, size_t bytes, char **message) {
  clear(message);
  if (!c) return invalid(message, "tilec_cuda_copy_to", "the device is NULL");
  if (!src && bytes) return invalid(message, "tilec_cuda_copy_to", "src is NULL");
  bool pushed = enter(c);
  CUresult r = drv.cuMemcpyHtoD(dst, src, bytes);
  leave(pushed);
  return r ? cuda_failed(r, "cuMemcpyHtoD", message) : TILEC_RT_OK;
}

tilec_rt_status tilec_cuda_extent(tilec_cuda *c, tilec_devptr ptr, size_t *bytes, char **message) {
  clear(message);
  if (!c) return invalid(message, "tilec_cuda_extent", "the device is NULL");
  if (!bytes) return invalid(message, "tilec_cuda_extent", "bytes is NULL");
  CUdeviceptr base = 0;
  size_t size = 0;
  bool pushed = enter(c);
  CUresult r = drv.cuMemGetAddressRange(&base, &size, ptr);
  leave(pushed);
  if (r || ptr < base || ptr - base > size) {
    say(message, "tilec_cuda_extent: 0x%llx is not in an allocation", ptr);
    return TILEC_RT_INVALID;
  }
  *bytes = size - (size_t)(ptr - base);
  return TILEC_RT_OK;
}

tilec_rt_status tilec_cuda_copy_from(tilec_cuda *c, void *dst, tilec_devptr src, size_t bytes, char **message) {
  clear(message);
  if (!c) return invalid(message, "tilec_cuda_copy_from", "the device is NULL");
  if (!dst && bytes) return invalid(message, "tilec_cuda_copy_from", "dst is NULL");
  bool pushed = enter(c);
  CUresult r = drv.cuMemcpyDtoH(dst, src, bytes);
  leave(pushed);
  return r ? cuda_failed(r, "cuMemcpyDtoH", message) : TILEC_RT_OK;
}

tilec_rt_status tilec_cuda_memset(tilec_cuda *c, tilec_devptr ptr, unsigned char value, size_t bytes, char **message) {
  clear(message);
  if (!c) return invalid(message, "tilec_cuda_memset", "the device is NULL");
  bool pushed = enter(c);
  CUresult r = drv.cuMemsetD8(ptr, value, bytes);
  leave(pushed);
  return r ? cuda_failed(r, "cuMemsetD8", message) : TILEC_RT_OK;
}

tilec_rt_status tilec_cuda_tensor_map(tilec_cuda *c, void *map, int data_type, int rank, tilec_devptr base, const uint64_t *dims,
                                      const uint64_t *strides, const uint32_t *box, int swizzle, int nan_fill, char **message) {
  clear(message);
  if (!c || !map || !dims || !box || (rank > 1 && !strides))
    return invalid(message, "tilec_cuda_tensor_map", !c ? "the device is NULL" : "map, dims, strides or box is NULL");
  if (!drv.cuTensorMapEncodeTiled) {
    say(message, "tilec_cuda_tensor_map: the CUDA driver has no cuTensorMapEncodeTiled (it is older than CUDA 12)");
    return TILEC_RT_NO_DRIVER;
  }
  static const uint32_t ones[5] = {1, 1, 1, 1, 1};
  /* interleave none, L2 promotion 128 bytes (2), as Triton's host descriptors */
  CUresult r = drv.cuTensorMapEncodeTiled(map, data_type, (unsigned)rank, (void *)(uintptr_t)base, dims, strides, box, ones, 0,
                                          swizzle, 2, nan_fill ? 1 : 0);
  return r ? cuda_failed(r, "cuTensorMapEncodeTiled", message) : TILEC_RT_OK;
}

tilec_rt_status tilec_cuda_event_create(tilec_cuda *c, tilec_cuda_event **out, char **message) {
  clear(message);
  if (!out) return invalid(message, "tilec_cuda_event_create", "out is NULL");
  *out = NULL;
  if (!c) return invalid(message, "tilec_cuda_event_create", "the device is NULL");
  tilec_cuda_event *e = calloc(1, sizeof *e);
  if (!e) {
    say(message, "tilec_cuda_event_create: out of memory");
    return TILEC_RT_NO_MEMORY;
  }
  e->cuda = c;
  bool pushed = enter(c);
  CUresult r = drv.cuEventCreate(&e->ev, 0);
  leave(pushed);
  if (r) {
    free(e);
    return cuda_failed(r, "cuEventCreate", message);
  }
  *out = e;
  return TILEC_RT_OK;
}

tilec_rt_status tilec_cuda_event_record(tilec_cuda_event *e, void *stream, char **message) {
  clear(message);
  if (!e) return invalid(message, "tilec_cuda_event_record", "the event is NULL");
  bool pushed = enter(e->cuda);
  CUresult r = drv.cuEventRecord(e->ev, (CUstream)stream);
  leave(pushed);
  return r ? cuda_failed(r, "cuEventRecord", message) : TILEC_RT_OK;
}

tilec_rt_status tilec_cuda_event_elapsed(tilec_cuda_event *start, tilec_cuda_event *end, float *ms, char **message) {
  clear(message);
  if (!start || !end || !ms) return invalid(message, "tilec_cuda_event_elapsed", "an event or ms is NULL");
  bool pushed = enter(end->cuda);
  CUresult r = drv.cuEventSynchronize(end->ev);
  const char *what = "cuEventSynchronize";
  if (!r) r = drv.cuEventElapsedTime(ms, start->ev, end->ev), what = "cuEventElapsedTime";
  leave(pushed);
  return r ? cuda_failed(r, what, message) : TILEC_RT_OK;
}

void tilec_cuda_event_destroy(tilec_cuda_event *e) {
  if (!e) return;
  bool pushed = enter(e->cuda);
  drv.cuEventDestroy(e->ev);
  leave(pushed);
  free(e);
}

tilec_rt_status tilec_cuda_synchronize(tilec_cuda *c, char **message) {
  clear(message);
  if (!c) return invalid(message, "tilec_cuda_synchronize", "the device is NULL");
  bool pushed = enter(c);
  CUresult r = drv.cuCtxSynchronize();
  leave(pushed);
  return r ? cuda_failed(r, "cuCtxSynchronize", message) : TILEC_RT_OK;
}

tilec_rt_status tilec_cuda_module_load(tilec_cuda *c, const void *image, size_t size, const char *kernel, int num_warps,
                                       size_t shared_bytes, tilec_cuda_module **out, char **message) {
  (void)size;
  const char *fn = "tilec_cuda_module_load";
  clear(message);
  if (!out) return invalid(message, fn, "out is NULL");
  *out = NULL;
  if (!c) return invalid(message, fn, "the device is NULL");
  if (!image) return invalid(message, fn, "the image is NULL");
  if (!kernel) return invalid(message, fn, "the kernel's name is NULL");
  if (num_warps < 1 || num_warps > 32) {
    say(message, "%s: %d warps (a block has 1 to 32)", fn, num_warps);
    return TILEC_RT_INVALID;
  }
  char info[4096] = "", error[4096] = "";
  int opts[4] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                 CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[4] = {info, (void *)(uintptr_t)sizeof info, error, (void *)(uintptr_t)sizeof error};
  tilec_cuda_module *m = calloc(1, sizeof *m);
  if (!m) return no_memory(message, fn);
  m->cuda = c;
  m->threads = 32 * num_warps;
  m->shared = shared_bytes;
  bool pushed = enter(c);
  CUresult r = drv.cuModuleLoadDataEx(&m->mod, image, 4, opts, vals);
  if (r) {
    leave(pushed);
    char text[256];
    error_text(r, text, sizeof text);
    say(message, "the kernel image does not load: %s%s%s%s%s", text, *error || *info ? "\n" : "", error,
        *error && *info ? "\n" : "", info);
    free(m);
    return r == CUDA_ERROR_OUT_OF_MEMORY ? TILEC_RT_NO_MEMORY : TILEC_RT_LOAD_ERROR;
  }
  const char *what = "cuModuleGetFunction";
  r = drv.cuModuleGetFunction(&m->fn, m->mod, kernel);
  /* the shared memory is dynamic: past 48 KB the kernel must opt in */
  if (!r && shared_bytes > 48 * 1024) {
    what = "cuFuncSetAttribute (the kernel's shared memory, past 48 KB)";
    r = drv.cuFuncSetAttribute(m->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared_bytes);
  }
  /* counted up to the first index the driver has no parameter for */
  m->nparams = -1;
  if (!r && drv.cuFuncGetParamInfo) {
    size_t offset, bytes;
    m->nparams = 0;
    while (m->nparams < 4096 && !drv.cuFuncGetParamInfo(m->fn, (size_t)m->nparams, &offset, &bytes)) m->nparams++;
  }
  leave(pushed);
  if (r) {
    tilec_rt_status st = cuda_failed(r, what, message);
    tilec_cuda_module_unload(m);
    return st;
  }
  *out = m;
  return TILEC_RT_OK;
}

void tilec_cuda_module_unload(tilec_cuda_module *m) {
  if (!m) return;
  if (m->mod) {
    bool pushed = enter(m->cuda);
    drv.cuModuleUnload(m->mod);
    leave(pushed);
  }
  free(m);
}

tilec_rt_status tilec_cuda_launch(tilec_cuda_module *m, const unsigned grid[3], void **args, void *stream,
                                  char **message) {
  clear(message);
  if (!m) return invalid(message, "tilec_cuda_launch", "the module is NULL");
  if (!grid) return invalid(message, "tilec_cuda_launch", "the grid is NULL");
  GridError e;
  if (!grid_check(grid, &e)) {
    say(message, "tilec_cuda_launch: the grid (%u, %u, %u): %s", grid[0], grid[1], grid[2], e.msg);
    return TILEC_RT_INVALID;
  }
  if (m->nparams > 0 && !args) return invalid(message, "tilec_cuda_launch", "args is NULL");
  for (int i = 0; i < m->nparams; i++)
    if (!args[i]) {
      say(message, "tilec_cuda_launch: args[%d] is NULL", i);
      return TILEC_RT_INVALID;
    }
  bool pushed = enter(m->cuda);
  CUresult r = drv.cuLaunchKernel(m->fn, grid[0], grid[1], grid[2], (unsigned)m->threads, 1, 1, (unsigned)m->shared, (CUstream)stream, args,
                                  NULL);
  leave(pushed);
  return r ? cuda_failed(r, "cuLaunchKernel", message) : TILEC_RT_OK;
}
