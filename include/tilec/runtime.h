/*
 * runtime.h — load and launch compiled kernels on a CUDA GPU, from C.
 *
 * libtilec_rt links neither LLVM nor MLIR: a program that only runs
 * kernels compiled ahead of time (PTX or cubin images, with the metadata
 * tilec writes beside them) carries nothing of the compiler. The CUDA
 * driver is opened with dlopen("libcuda.so.1") when first needed; without
 * a driver or a GPU every call returns TILEC_RT_NO_DRIVER or
 * TILEC_RT_NO_DEVICE with a message that gives what the driver said (the
 * toolkit's link-only stub, for one, answers CUDA_ERROR_STUB_LIBRARY), and
 * nothing else happens.
 *
 * Errors: every function that returns a status says why it failed in its
 * message (common.h: a malloc'd text, NULL on success), a null handle or
 * argument included (TILEC_RT_INVALID, the message naming the function and
 * the argument). Nothing here crashes on a NULL handle.
 *
 * Contexts: a device uses the context current on the calling thread when
 * there is one, else it retains the device's primary context and makes it
 * current around its calls. Streams are the caller's (NULL: the default
 * stream).
 *
 * Thread safety: a tilec_cuda and its modules may be used from several
 * threads at once for launches; loading and unloading a module must not
 * race with launches of that module.
 */
#ifndef TILEC_RUNTIME_H
#define TILEC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tilec_rt_status {
  TILEC_RT_OK = 0,
  TILEC_RT_NO_DRIVER = 1,   /* libcuda.so.1 cannot be opened, or a symbol is missing */
  TILEC_RT_NO_DEVICE = 2,   /* the driver has no such device */
  TILEC_RT_CUDA_ERROR = 3,  /* a driver call failed: the message names it and its error */
  TILEC_RT_LOAD_ERROR = 4,  /* the image does not load: the message has the JIT's log */
  TILEC_RT_INVALID = 5,     /* a null handle, a bad argument (the driver's CUDA_ERROR_INVALID_VALUE too) */
  TILEC_RT_NO_MEMORY = 6,   /* host memory ran out, or the device's (cuMemAlloc's CUDA_ERROR_OUT_OF_MEMORY) */
} tilec_rt_status;

typedef struct tilec_cuda tilec_cuda;
typedef struct tilec_cuda_module tilec_cuda_module;

/* Opens device `ordinal` (0 for the first). */
TILEC_API tilec_rt_status tilec_cuda_open(int ordinal, tilec_cuda **out, char **message);
TILEC_API void tilec_cuda_close(tilec_cuda *cuda); /* NULL is allowed */

/* The device's compute capability as 10 * major + minor (90 for sm_90);
 * 0 for NULL. */
TILEC_API int tilec_cuda_arch(const tilec_cuda *cuda);
/* The compiler target for this device: "sm_90a" on sm_90 itself, else
 * the newest of sm_80, sm_86, sm_89 and sm_90 it runs (PTX for sm_90
 * JIT-compiles on newer GPUs; sm_90a code would not). NULL when there is
 * none: for a NULL handle, and for a device older than sm_80, which tilec
 * does not compile for. Check it before use: a NULL arch in
 * tilec_compile_options means sm_80. */
TILEC_API const char *tilec_cuda_target(const tilec_cuda *cuda);

/* Device memory. */
TILEC_API tilec_rt_status tilec_cuda_alloc(tilec_cuda *cuda, size_t bytes, tilec_devptr *ptr, char **message);
TILEC_API tilec_rt_status tilec_cuda_free(tilec_cuda *cuda, tilec_devptr ptr, char **message);
TILEC_API tilec_rt_status tilec_cuda_copy_to(tilec_cuda *cuda, tilec_devptr dst, const void *src, size_t bytes,
                                             char **message);
TILEC_API tilec_rt_status tilec_cuda_copy_from(tilec_cuda *cuda, void *dst, tilec_devptr src, size_t bytes,
                                               char **message);
TILEC_API tilec_rt_status tilec_cuda_synchronize(tilec_cuda *cuda, char **message);
/* Sets `bytes` bytes from ptr to value (cuMemsetD8): an output zeroed, or
 * the L2 cache flushed by writing a buffer larger than it. */
TILEC_API tilec_rt_status tilec_cuda_memset(tilec_cuda *cuda, tilec_devptr ptr, unsigned char value, size_t bytes,
                                            char **message);

/* A tiled tensor map for TMA copies (cuTensorMapEncodeTiled): 128 bytes
 * written to map, for a tensor at base of `rank` dimensions, dimension 0
 * the innermost: dims[0..rank) elements each, strides[0..rank-1) the bytes
 * between consecutive indices of dimensions 1.. (multiples of 16), a box
 * of box[0..rank) elements (box[0] times the element's size a multiple of
 * 16 bytes), swizzled in shared memory as CUtensorMapSwizzle's value
 * says (0 none, 1 32B, 2 64B, 3 128B), elements outside the tensor read
 * as zeros (or NaNs, nan_fill). data_type is CUtensorMapDataType's value
 * (6 for float16, 7 float32, 9 bfloat16, 0 uint8). TILEC_RT_NO_DRIVER when the
 * driver has no cuTensorMapEncodeTiled (before CUDA 12). */
TILEC_API tilec_rt_status tilec_cuda_tensor_map(tilec_cuda *cuda, void *map, int data_type, int rank, tilec_devptr base,
                                                const uint64_t *dims, const uint64_t *strides, const uint32_t *box,
                                                int swizzle, int nan_fill, char **message);

/* GPU time between two points of a stream: record an event before and one
 * after the work; elapsed waits for `end` and gives the milliseconds
 * between them (about half a microsecond's resolution). */
typedef struct tilec_cuda_event tilec_cuda_event;
TILEC_API tilec_rt_status tilec_cuda_event_create(tilec_cuda *cuda, tilec_cuda_event **out, char **message);
TILEC_API tilec_rt_status tilec_cuda_event_record(tilec_cuda_event *e, void *stream, char **message);
TILEC_API tilec_rt_status tilec_cuda_event_elapsed(tilec_cuda_event *start, tilec_cuda_event *end, float *ms,
                                                   char **message);
TILEC_API void tilec_cuda_event_destroy(tilec_cuda_event *e); /* NULL is allowed */
/* The bytes from ptr to the end of the allocation holding it;
 * TILEC_RT_INVALID for a NULL device or bytes, or a ptr that is not in an
 * allocation. */
TILEC_API tilec_rt_status tilec_cuda_extent(tilec_cuda *cuda, tilec_devptr ptr, size_t *bytes, char **message);

/* Loads a PTX (NUL-terminated text) or cubin image and finds `kernel` in
 * it; shared_bytes from the kernel's metadata: the kernel's shared memory
 * is dynamic, each launch gives it that much (past 48 KB the module opts
 * in at load). When the image does not load (TILEC_RT_LOAD_ERROR), the
 * message has the driver JIT's error and info logs. */
TILEC_API tilec_rt_status tilec_cuda_module_load(tilec_cuda *cuda, const void *image, size_t size, const char *kernel,
                                                 int num_warps, size_t shared_bytes, tilec_cuda_module **out,
                                                 char **message);
TILEC_API void tilec_cuda_module_unload(tilec_cuda_module *m); /* NULL is allowed */

/* Launches on `stream` (a CUstream; NULL: the default stream) with the
 * arguments as cuLaunchKernel takes them: args[i] points to parameter i.
 * A grid dimension of 0, an x past 2^31-1, a y or z past 65535 is
 * TILEC_RT_INVALID; so is a NULL args or args[i] where the driver says how
 * many parameters the kernel has (CUDA 12.4 and later). */
TILEC_API tilec_rt_status tilec_cuda_launch(tilec_cuda_module *m, const unsigned grid[3], void **args, void *stream,
                                            char **message);

#ifdef __cplusplus
}
#endif
#endif
