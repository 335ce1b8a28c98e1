/*
 * tilec.h — compile Triton-language kernels from C.
 *
 * The compiler is a library: it reads kernel source, never the environment
 * (only the devices and the kernel cache below do), never calls exit(), and
 * prints nothing. Every call returns a status; the
 * diagnostics it produced (file:line:col, the line, a caret) are text in the
 * result. Results are owned by the caller and freed with
 * tilec_result_destroy(). The other calls that fail say why in a message
 * (common.h).
 *
 * Thread safety: separate calls may run concurrently on different threads;
 * a result must not be used from two threads at once, nor a context by two
 * compilations at once (give each thread its own).
 */
#ifndef TILEC_TILEC_H
#define TILEC_TILEC_H

#include <stddef.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What happened; the message or the diagnostics say more. */
typedef enum tilec_status {
  TILEC_OK = 0,
  TILEC_ERROR_COMPILE = 1,     /* the source or the signature has an error */
  TILEC_ERROR_USAGE = 2,       /* a bad option or argument: a NULL handle, an address outside every allocation */
  TILEC_ERROR_UNSUPPORTED = 3, /* valid, but beyond what tilec does (yet): a limit, a call the emulator lacks */
  TILEC_ERROR_NO_MEMORY = 4,   /* host memory ran out, or the device's (an allocation too large for it) */
  TILEC_ERROR_NO_DEVICE = 5,   /* no CUDA driver, or no GPU that tilec compiles for */
  TILEC_ERROR_DEVICE = 6,      /* the CUDA driver failed a call: a module load, a launch, a copy, a synchronization */
  TILEC_ERROR_CHECK = 7,       /* the emulator's checks stopped a launch: an access out of bounds, a device
                                  assertion, a deadlock... (the report in the message) */
} tilec_status;

/* What tilec_compile produces: the output of the stage where each form
 * ends (the stages are listed in compile/pipeline.c and by `tilec compile
 * --help`). */
typedef enum tilec_emit {
  TILEC_EMIT_AST = 0,  /* the typed, specialized AST as text */
  TILEC_EMIT_TILE = 1, /* tile IR (MLIR) as built from the AST, with source locations */
  TILEC_EMIT_TILE_GPU = 2, /* tile IR after the layout passes: every tensor has a layout */
  TILEC_EMIT_LLVM_MLIR = 3, /* the kernel in MLIR's LLVM and NVVM dialects, as the GPU and the CPU share it */
  TILEC_EMIT_LLVM = 4,      /* LLVM IR for NVPTX, after LLVM's passes */
  TILEC_EMIT_PTX = 5,       /* PTX assembly */
  TILEC_EMIT_CUBIN = 6,     /* a cubin (binary), through the toolkit's nvJitLink */
  TILEC_EMIT_CPU = 7,       /* an object file for the host (ELF, binary): the same kernel, retargeted
                               for the CPU emulator, which loads it */
} tilec_emit;

/* A compiler context: MLIR's context with tilec's dialects loaded and the
 * code generator's target set up, kept between compilations so that every
 * compilation after the first skips that work. Optional: a compilation
 * without one makes and destroys its own. */
typedef struct tilec_context tilec_context;

/* Fails only for a NULL out (TILEC_ERROR_USAGE) or for want of memory. */
TILEC_API tilec_status tilec_context_create(tilec_context **out);
TILEC_API void tilec_context_destroy(tilec_context *ctx); /* NULL is allowed */

typedef struct tilec_compile_options {
  const char *kernel;       /* NULL: the file's only kernel */
  const char *signature;    /* Triton AOT signature: "*fp32:16, *fp32:16, i32, 1024" */
  const char *const *defines; /* "NAME=VALUE" constexpr overrides, num_defines of them (none NULL) */
  int num_defines;
  int num_warps;            /* 0: from the autotune config, else 4; or a power of 2 from 1 to 32 */
  int num_stages;           /* 0: from the autotune config, else 3; or more */
  tilec_emit emit;
  const char *arch;         /* "sm_80", "sm_90", "sm_90a"; NULL: sm_80 */
  const char *dump_after;   /* a stage's name: the IR it leaves goes to the result's dump text */
  tilec_context *context;   /* NULL: a context for this call only */
  int time_stages;          /* nonzero: the wall time of each stage goes to the result's times */
  int verify_each;          /* nonzero: verify the IR after every pass (else after irgen and the last) */
  int config;               /* the @triton.autotune config (meta-parameters, warps, stages): 0 the first */
  /* Folders to find the modules a kernel file imports in (its own folder
   * and package come first, then these, then $TILEC_PATH, colon-separated);
   * num_include_dirs of them, none NULL */
  const char *const *include_dirs;
  int num_include_dirs;
  /* A stage's name: the compilation stops after it, and the output is the
   * IR it leaves (in place of emit's stage). The stages of the CPU
   * emulator's tail (retarget-host, host-object) and emit TILEC_EMIT_CPU
   * choose that tail. NULL: emit says. */
  const char *stop_after;
  /* Floating-point fusion (Triton's enable_fp_fusion): a multiply and an
   * add may become one fma. 0: the default, on unless the environment has
   * TILEC_ENABLE_FP_FUSION=0; 1: on; -1: off (each op rounded on its own). */
  int fp_fusion;
} tilec_compile_options;

typedef struct tilec_result tilec_result;

/* The largest source tilec_compile and tilec_kernel_create take, and the
 * largest module a kernel's file may import: 64 MiB, thousands of times a
 * kernel file (the compiler holds some 25 bytes per byte of its source).
 * A larger one is TILEC_ERROR_UNSUPPORTED. */
#define TILEC_MAX_SOURCE_BYTES ((size_t)64 << 20)

/* Compiles one kernel of `source` (a Python file's text; `filename` names it
 * in diagnostics). *out is always set, also on error, so that the
 * diagnostics can be read; it is NULL only when memory ran out
 * (TILEC_ERROR_NO_MEMORY). */
TILEC_API tilec_status tilec_compile(const char *filename, const char *source, size_t length,
                                     const tilec_compile_options *options, tilec_result **out);

/* Runs passes (comma-separated names, as `tilec opt --pass=`) on IR text:
 * tile IR, or the LLVM dialect the lowering leaves (`--emit=lower`) for
 * allocate-shared, insert-barriers and the stages after them that are passes
 * on an MLIR module. The output is the resulting IR. num_warps: 0 for 4;
 * arch: NULL for sm_80. */
TILEC_API tilec_status tilec_opt(const char *filename, const char *ir, size_t length, const char *passes, int num_warps,
                                 const char *arch, tilec_result **out);

/* The parameters of one kernel of `source` (options' kernel and include
 * folders; the rest is not read), for a host that builds a signature from
 * a call's arguments, as the Python package does: the output is JSON,
 *   {"name": "add_kernel", "line": 12,
 *    "params": [{"name": "x_ptr", "constexpr": false, "specialize": true,
 *                "default": null, "has_default": false}, ...],
 *    "configs": [{"kwargs": {"BLOCK_SIZE": "1024"}, "num_warps": 4, "num_stages": 0}, ...],
 *    "heuristics": ["EVEN_N"], "key": ["n_elements"], "num_warps": 0}
 * with each default and config value a Python literal in a string (null
 * when it is not a constant), "specialize" false for the parameters
 * @triton.jit(do_not_specialize=) names, and 0 for what a decorator does
 * not give. On error, the diagnostics. */
TILEC_API tilec_status tilec_describe(const char *filename, const char *source, size_t length,
                                      const tilec_compile_options *options, tilec_result **out);

/* The output (NUL-terminated; a cubin is binary: use length); NULL on error. */
TILEC_API const char *tilec_result_output(const tilec_result *r, size_t *length);
/* From the metadata stage on (llvm-mlir and later): the kernel's metadata as
 * JSON (entry name, arch, num_warps, num_stages, shared_bytes, params with
 * type, divisibility and entry: their position in the signature,
 * constexprs, autotune: the number of configs, the one taken and the key);
 * NULL otherwise. */
TILEC_API const char *tilec_result_metadata(const tilec_result *r);
/* The other files the compilation read: the modules the kernel's file
 * imports, a line each: the hash of the text read (64 hex digits, the disk
 * cache's hash), a space, the path ("" when none). */
TILEC_API const char *tilec_result_dependencies(const tilec_result *r);
/* The IR dumped after options->dump_after ("" when none). */
TILEC_API const char *tilec_result_dump(const tilec_result *r);
/* With options->time_stages: a line per stage, "STAGE  MS ms", in the
 * order they ran, then the total ("" otherwise). */
TILEC_API const char *tilec_result_times(const tilec_result *r);
/* Warnings and errors as text ("" when there are none). */
TILEC_API const char *tilec_result_diagnostics(const tilec_result *r);
TILEC_API void tilec_result_destroy(tilec_result *r);

/* "0.1.0" */
TILEC_API const char *tilec_version(void);
/* This build of the compiler, as 64 hex digits: a SHA-256, computed when
 * tilec is built, of every source and header of the library, the tile
 * dialect, and the LLVM, C compiler and options that built it. Builds that
 * may generate different code have different identities; the JIT's disk
 * cache keeps their entries apart by it. */
TILEC_API const char *tilec_build_id(void);

/* The compiler's stages, in the order they run (both tails: the GPU's,
 * then the CPU emulator's), each named once; NULL-terminated. */
TILEC_API const char *const *tilec_stages(void);

/* The GPU targets, NULL-terminated: "sm_80", "sm_86", "sm_89", "sm_90",
 * "sm_90a". */
TILEC_API const char *const *tilec_targets(void);

/* ---- running kernels: devices and the JIT ------------------------------------------------
 *
 * A device is the CUDA GPU (through libcuda, opened when needed) or the CPU
 * emulator. A kernel is compiled from source when it is created, and again
 * for each specialization its launches need: like Triton, the JIT looks at
 * the raw arguments and specializes on pointers aligned to 16 bytes and on
 * integers divisible by 16 or equal to 1, compiling each distinct
 * specialization once (kept in the kernel, and on disk in the kernel
 * cache). A launch that finds its specialization compiled allocates nothing
 * and hashes nothing.
 *
 * The devices and the cache are the part of the library that reads the
 * environment: TILEC_DEVICE=cpu|cuda|auto for TILEC_DEVICE_AUTO, and
 * TILEC_CACHE_DIR for the cache's directory. Thread safety: a kernel may be
 * launched from several threads at once; create and destroy must not race
 * with its launches. */

typedef enum tilec_device_kind {
  TILEC_DEVICE_AUTO = 0, /* TILEC_DEVICE if set, else CUDA when a GPU is present, else the CPU */
  TILEC_DEVICE_CPU = 1,  /* the CPU emulator */
  TILEC_DEVICE_CUDA = 2,
} tilec_device_kind;

typedef struct tilec_device tilec_device;

/* Opens a device. TILEC_ERROR_NO_DEVICE when TILEC_DEVICE_CUDA (asked for,
 * or by TILEC_DEVICE=cuda) finds no driver or no GPU it compiles for. */
TILEC_API tilec_status tilec_device_create(tilec_device_kind kind, tilec_device **out, char **message);
TILEC_API void tilec_device_destroy(tilec_device *d); /* NULL is allowed */
TILEC_API tilec_device_kind tilec_device_kind_of(const tilec_device *d);

/* Device memory (on the CPU, host memory that the emulator checks every
 * access against; a kernel's read of bytes that no copy and no launch
 * wrote is reported, as tilec_kernel_launch says). An address outside every allocation is
 * TILEC_ERROR_USAGE; an allocation the device cannot make,
 * TILEC_ERROR_NO_MEMORY. */
TILEC_API tilec_status tilec_device_alloc(tilec_device *d, size_t bytes, tilec_devptr *address, char **message);
TILEC_API tilec_status tilec_device_free(tilec_device *d, tilec_devptr address, char **message);
TILEC_API tilec_status tilec_device_copy_to(tilec_device *d, tilec_devptr dst, const void *src, size_t bytes,
                                            char **message);
TILEC_API tilec_status tilec_device_copy_from(tilec_device *d, void *dst, tilec_devptr src, size_t bytes,
                                              char **message);

/* Host memory the caller owns, used in place as device memory of the CPU
 * device (a NumPy array, a CPU tensor): from here until it is
 * unregistered, kernels launched on the device may read and write
 * [host, host + bytes), with the emulator's bounds checks, and
 * tilec_device_copy_to/from reach it. Its bytes count as written (they hold
 * the caller's values). The device never frees it; the caller keeps it
 * alive while it is registered. Ranges must not overlap another
 * registration or allocation (TILEC_ERROR_USAGE); on the CUDA device,
 * TILEC_ERROR_USAGE: its kernels take device pointers. Unregistering what
 * was not registered is TILEC_ERROR_USAGE too. */
TILEC_API tilec_status tilec_device_register_host(tilec_device *d, void *host, size_t bytes, char **message);
TILEC_API tilec_status tilec_device_unregister_host(tilec_device *d, void *host, char **message);

/* tilec_jit_options.config: time every @triton.autotune config on the
 * first launch of each distinct key and launch the fastest. */
#define TILEC_CONFIG_TUNE (-1)

typedef struct tilec_jit_options {
  const char *kernel;         /* NULL: the file's only kernel */
  const char *signature;      /* as for tilec_compile, without hints: "*fp32, *fp32, *fp32, i32, 1024";
                                 the meta-parameters an autotune config sets may be left out */
  const char *const *defines; /* "NAME=VALUE" constexpr overrides, num_defines of them (none NULL) */
  int num_defines;
  int num_warps;              /* as for tilec_compile */
  int num_stages;             /* as for tilec_compile */
  const char *cache_dir;      /* NULL: TILEC_CACHE_DIR, else ~/.cache/tilec */
  int no_disk_cache;          /* nonzero: compile in memory only */
  const char *grid;           /* NULL, or the grid as `tilec run -g` takes it, over the integer
                                 parameters and the constexprs: "cdiv(n_elements, BLOCK_SIZE)";
                                 a launch with grid NULL computes it from its arguments and its
                                 config, with no allocation */
  int config;                 /* the @triton.autotune config: 0 the first, 1, ...; or
                                 TILEC_CONFIG_TUNE */
  const char *const *include_dirs; /* as for tilec_compile: folders of imported modules */
  int num_include_dirs;
  int fp_fusion;              /* as for tilec_compile */
  /* NULL, or the grid of a launch with grid NULL where options->grid is
   * NULL, from the host: called on the launching thread with grid_user,
   * the config the launch takes (0 without @triton.autotune; each config
   * in turn while tuning) and the launch's arguments; it sets grid and
   * returns 0 (a dimension of 0: nothing to launch), or nonzero to fail the
   * launch (TILEC_ERROR_USAGE). How the Python package gives Triton's grid
   * callables, which read the config's meta-parameters, to tuning. */
  int (*grid_fn)(void *grid_user, int config, void **args, unsigned grid[3]);
  void *grid_user;
  /* NULL, or the target the code is compiled for: "sm_80", "sm_86",
   * "sm_89", "sm_90" or "sm_90a". On the CPU device the emulator runs the
   * code for it, that arch's instructions (sm_90a's wgmma) included;
   * NULL there is the environment's TILEC_ARCH, else sm_80. On a GPU, NULL
   * or one of its compute capability (sm_90 or sm_90a on an H100). */
  const char *arch;
} tilec_jit_options;

/* Whether options' fp_fusion (tilec_compile_options.fp_fusion) fuses, the
 * environment read for 0. */
TILEC_API int tilec_fp_fusion_enabled(int fp_fusion);

typedef struct tilec_kernel tilec_kernel;

/* Compiles the kernel for the device with no specialization, which checks
 * the source and the signature; on failure *message has the compiler's
 * diagnostics. */
TILEC_API tilec_status tilec_kernel_create(tilec_device *d, const char *filename, const char *source, size_t length,
                                           const tilec_jit_options *options, tilec_kernel **out, char **message);
TILEC_API void tilec_kernel_destroy(tilec_kernel *k); /* NULL is allowed */

/* Launches on a 3-D grid; grid NULL: the one options->grid computes. args[i]
 * points to runtime parameter i's value, as cuLaunchKernel takes them (none
 * NULL); a pointer parameter's value is a tilec_devptr. nargs must be the
 * number of runtime parameters. A grid's x is 1 to 2^31-1, its y and z 1
 * to 65535, as CUDA's. stream: a CUstream on CUDA, ignored on the CPU. On
 * failure *message says why: a compile error of a specialization
 * (TILEC_ERROR_COMPILE), a grid out of range (TILEC_ERROR_USAGE), a driver
 * error (TILEC_ERROR_DEVICE), or what the emulator's checks found
 * (TILEC_ERROR_CHECK).
 *
 * With TILEC_CONFIG_TUNE, the first launch with a new key (the values of
 * the parameters @triton.autotune's key names) runs the kernel with every
 * config on its own arguments, as Triton's autotuner does: once to warm
 * up, then five times timed (waiting for each on CUDA); the fastest is
 * kept for the key (64 keys at most) and launched. The buffers the
 * decorator's reset_to_zero names are zeroed before each of those runs,
 * and restore_value's are restored; either is taken from its pointer to
 * the end of its device allocation, and after tuning holds the caller's
 * contents again. Any other buffer the kernel both reads and writes sees
 * every run. A config that fails to compile or launch is left out; running
 * out of memory stops tuning (TILEC_ERROR_NO_MEMORY). A key is tuned once, under the
 * kernel's tuning lock: a launch from another thread with a key not tuned
 * yet waits for it. */
TILEC_API tilec_status tilec_kernel_launch(tilec_kernel *k, const unsigned grid[3], void **args, int nargs,
                                           void *stream, char **message);

/* The same with the arguments in the call, in parameter order: pointers as
 * tilec_devptr, i1/i8/i16/i32 (and unsigned) as int, i64 as long long,
 * fp32/fp64 as double (fp16 and bf16 through tilec_kernel_launch). */
TILEC_API tilec_status tilec_kernel_launchv(tilec_kernel *k, const unsigned grid[3], void *stream, char **message,
                                            ...);

/* The same with the arguments packed in one block, as a C struct of the
 * runtime parameters in order lays them out: each at the next offset that
 * is a multiple of its size (a pointer parameter's tilec_devptr is 8
 * bytes), the block's size that of the last one's end, or of the struct
 * with its padding. What Python's struct module packs in native mode; one
 * foreign call per launch from the Python package. */
TILEC_API tilec_status tilec_kernel_launch_packed(tilec_kernel *k, const unsigned grid[3], const void *args,
                                                  size_t size, void *stream, char **message);

/* How many specializations the kernel has compiled (or found in the cache). */
TILEC_API int tilec_kernel_specializations(const tilec_kernel *k);

/* The kernel's @triton.autotune configs; 0 without the decorator. */
TILEC_API int tilec_kernel_configs(const tilec_kernel *k);

/* The config a launch with these arguments takes: options->config, or with
 * TILEC_CONFIG_TUNE the one tuned for their key; -1 before it is tuned
 * (or for a bad call). */
TILEC_API int tilec_kernel_config_of(const tilec_kernel *k, void **args, int nargs);

/* What the disk cache had to say, a line each ("" when nothing): an entry
 * found corrupt (and compiled again), a directory that cannot be written
 * (so nothing is cached). */
TILEC_API const char *tilec_kernel_warnings(const tilec_kernel *k);

/* An XLA FFI handler (XLA_FFI_Handler, xla/ffi/api/c_api.h) that launches
 * a kernel of this API on the device it was created for, as JAX's
 * `jax.ffi.ffi_call` calls it: through the Python package's
 * `tilec.jax.call`, which sets the call's attributes (jit/xla_ffi.c says
 * which). NULL when libtilec was built without XLA's header (the meson
 * option xla_ffi). */
TILEC_API void *tilec_xla_ffi_handler(void);

#ifdef __cplusplus
}
#endif
#endif
