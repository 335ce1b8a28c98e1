/*
 * jit.h — the JIT's insides (tilec.h's devices and kernels), shared by its
 * files and open to the tests:
 *
 *   device.c     devices and their memory; the helpers every file uses
 *   kernel.c     a kernel's creation: its signature's entries, its
 *                parameters' types (from the first compilation's metadata),
 *                what the first compilation fixes (autotune keys, the grid)
 *   specialize.c specializations: the signature a launch's hints spell,
 *                compiled or found in the disk cache, and the table of them
 *   autotune.c   tuning a launch's config, as Triton's autotuner does
 *   launch.c     launches: the hints of the arguments, the grid, the varargs
 *
 * A kernel keeps its specializations in a small table keyed by the hints
 * its arguments give (two bits per runtime parameter): a pointer aligned to
 * 16 bytes, or null (C's None: the parameter becomes the constexpr None, as
 * Triton's JIT specializes a None argument, and the launch passes the
 * others only); an integer divisible by 16, or equal to 1. The key of a launch
 * is computed from the arguments without allocating; a key not in the
 * table is compiled, under the kernel's lock, with the signature its hints
 * spell ("*fp32:16", "i32:1").
 *
 * The disk cache's keys hold, besides a compilation's own inputs, an
 * identity: an entry must reach only a process that would have compiled
 * the same bytes: one running the same build of the compiler (its
 * sources, tile dialect and toolchain: tilec_build_id), on the same LLVM (a
 * library upgraded in place keeps its soname, and its code generation may
 * differ), and, for the CPU device, whose object code is compiled for the
 * host CPU, on a host of the same triple, CPU and features (code that uses
 * AVX-512 must not reach a machine without it); for CUDA, with the same
 * toolkit (libdevice and nvJitLink).
 */
#ifndef TILEC_JIT_H
#define TILEC_JIT_H

#include "tilec/runtime.h"
#include "tilec/tilec.h"

#include "emu/emu.h"
#include "runtime/grid.h"
#include "runtime/meta.h"
#include "support/dtype.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the identity in the disk cache's keys (specialize.c) --------------------------------- */

typedef struct JitIdentity {
  const char *build;   /* tilec_build_id() */
  const char *llvm;    /* the LLVM this process runs: "22.1.8" */
  const char *host;    /* the triple, CPU name and feature string the host's code is compiled for */
  const char *toolkit; /* the CUDA toolkit compiling for the GPU: its version.json, "" when there is none */
} JitIdentity;

/* The process's own, computed once. */
const JitIdentity *jit_identity(void);

/* The cache key of compiling `source` (named filename) with o, under id:
 * 64 hex digits in hex. host counts for the CPU's entries only (o->emit is
 * TILEC_EMIT_CPU), toolkit for the GPU's only. */
void jit_cache_key(const JitIdentity *id, const char *filename, const char *source, size_t length,
                   const tilec_compile_options *o, char hex[65]);

/* Makes the kernels of d read and write the disk cache as a process with
 * identity id would (the strings are copied; NULL: the process's own), so
 * that a test can put two builds on one cache. Not while d has kernels.
 * false when out of memory. */
bool jit_device_set_identity(tilec_device *d, const JitIdentity *id);

/* ---- devices (device.c) ------------------------------------------------------------------- */

#define MAX_PARAMS 64
#define MAX_SPECIALIZATIONS 64

typedef struct Alloc {
  void *data;
  size_t bytes;
  unsigned char *init; /* a bit per byte written, by a copy or a launch (EmuBuffer.init); NULL: all are */
  bool borrowed;       /* the caller's host memory (tilec_device_register_host): not freed here */
} Alloc;

struct tilec_device {
  tilec_device_kind kind;
  tilec_cuda *cuda;
  pthread_mutex_t lock;
  Alloc *allocs; /* the CPU's device memory, for the emulator's checks */
  int nallocs, cap;
  JitIdentity *identity; /* whose cache entries its kernels use; NULL: the process's own */
};

char *jit_dup_text(const char *s); /* NULL when out of memory */
/* The message of a failed call (common.h) in *out (out may be NULL); NULL when out of memory. */
void jit_tell(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
tilec_status jit_no_memory(char **message, const char *what); /* says so; TILEC_ERROR_NO_MEMORY */
tilec_status jit_from_rt(tilec_rt_status st);                   /* what a runtime.h failure is to the caller */
/* Whether an array argument `name` of the API holds its n pointers (count
 * names n); if not, says why in *message (fn's call: a negative count, no
 * array, a NULL entry), so that nothing reads through one. */
bool jit_array_given(char **message, const char *fn, const char *name, const char *count, const void *const *v, int n);
/* The CPU allocation holding [address, address + bytes), or -1; under d->lock. */
int jit_find_alloc(tilec_device *d, tilec_devptr address, size_t bytes);

/* ---- kernels (kernel.c) ------------------------------------------------------------------- */

typedef enum { P_PTR, P_INT, P_INT64, P_FLOAT, P_OTHER } ParamKind;

#define MAX_GRID_NAMES 128 /* the parameters and constexprs a grid expression may name */
#define MAX_KEYS 16        /* the parameters of an autotune key */
#define MAX_TUNED 64       /* the keys a kernel remembers the tuned config of */
#define TUNE_RUNS 5        /* timed launches per config, after one to warm up */
#define TUNE_THREADS 8     /* the most threads that compile a tuning's configs */

typedef struct Spec {
  uint64_t key; /* the hints */
  int config;   /* the autotune config */
  int num_warps;
  size_t shared_bytes;
  int zero_param[MAX_KEYS]; /* the pointer parameters the config's pre_hook zeroes before each launch */
  int nzero;
  int copy_param[MAX_KEYS]; /* and those it copies: into copy_param[2i], from copy_param[2i + 1] */
  int ncopy;                /* an even count */
  int64_t *consts; /* the values of the constexprs a grid may name, in their order */
  /* the tensor maps the kernel takes after its parameters, and each one's
   * CUtensorMapDataType, from its base's dtype */
  KernelTensorMap maps[MAX_MAPS];
  int map_type[MAX_MAPS];
  int nmaps;
  EmuKernel *emu;
  tilec_cuda_module *cuda;
} Spec;

/* The config tuning chose for the values of the key's parameters. */
typedef struct Tuned {
  int64_t key[MAX_KEYS];
  int config;
} Tuned;

struct tilec_kernel {
  tilec_device *dev;
  char *filename, *source, *name;
  size_t length;
  tilec_jit_options opt;
  char **defines;
  char **includes;
  char **entries; /* the signature's entries */
  int nentries;
  int runtime_entry[MAX_PARAMS]; /* runtime parameter i is entries[runtime_entry[i]] */
  /* each runtime parameter's type, from the first compilation's metadata:
   * how it specializes, and a scalar's dtype (how it reads as an integer) */
  ParamKind kind[MAX_PARAMS];
  bool no_specialize[MAX_PARAMS]; /* do_not_specialize: launches give it no hint */
  int divisibility[MAX_PARAMS];   /* what the kernel assumes of it whatever the launch (a descriptor's
                                   * alignments; 1: equal to 1), which each launch checks; 0: nothing */
  DType dtype[MAX_PARAMS];
  int nparams;
  tilec_context *ctx; /* made when something must be compiled */
  char *warnings;     /* what the cache had to say */
  pthread_mutex_t warn_lock; /* guards warnings */
  pthread_mutex_t lock;
  Spec specs[MAX_SPECIALIZATIONS];
  _Atomic int nspecs;
  /* grid expressions: the tree, over the parameters and then these constexprs */
  Grid *grid;
  char **const_names;
  int nconsts;
  /* autotuning: the configs (0 without @triton.autotune), the parameters of
   * the key, and what tuning found, published like the specializations */
  int nconfigs;
  int key_param[MAX_KEYS];
  int nkeys;
  int reset_param[MAX_KEYS], restore_param[MAX_KEYS]; /* reset_to_zero's, restore_value's */
  int nreset, nrestore;
  int tune_warmup_ms, tune_rep_ms; /* @triton.autotune's warmup and rep (0: TUNE_RUNS runs) */
  pthread_mutex_t tune_lock;
  Tuned tuned[MAX_TUNED];
  _Atomic int ntuned;
};

/* The bytes from address to the end of the device allocation holding it; 0 when none does. */
size_t jit_extent(tilec_device *d, tilec_devptr address);

/* Runtime parameter i's value as an integer: an integer's value (false for
 * a u64 past INT64_MAX), a float's bits; false for a pointer. */
bool jit_arg_value(const tilec_kernel *k, void **args, int i, int64_t *v);

/* ---- specializations (specialize.c) ------------------------------------------------------- */

/* Adds a line (what the disk cache had to say) to tilec_kernel_warnings;
 * any thread (k->warn_lock). */
void jit_warn(tilec_kernel *k, const char *w);
/* Compiles the specialization of key and a config into the disk cache, if
 * it is not there, on a context of its own: what tuning's threads do before
 * its launches take each config from the cache. Nothing without a disk cache;
 * a compile error is the launch's to report. Any thread. */
void jit_prefetch(tilec_kernel *k, uint64_t key, int config);
/* The disk cache's directory; NULL with no_disk_cache or when there is none. */
const char *jit_cache_dir(const tilec_kernel *k, char *buf, size_t n);

/* Compiles (or finds in the disk cache) the specialization of `key` for an
 * autotune config, and loads it. With `meta`, its metadata goes there
 * (meta_free it). */
tilec_status jit_compile_spec(tilec_kernel *k, uint64_t key, int config, Spec *out, KernelMeta *meta, char **why);
/* The specialization of hints and a config, compiled the first time; NULL
 * (with *st and *report) when it cannot be. Takes the kernel's lock only to
 * compile. */
Spec *jit_spec_for(tilec_kernel *k, uint64_t key, int config, char **report, tilec_status *st);

/* ---- autotuning (autotune.c) and launches (launch.c) -------------------------------------- */

/* The config for a launch with these arguments: the one asked for, or
 * with TILEC_CONFIG_TUNE the one tuning found for their key (tuning it
 * now, under the tuning lock, the first time the key is seen). */
tilec_status jit_config_for(tilec_kernel *k, uint64_t hints, const unsigned grid[3], void **args, int nargs,
                            void *stream, int *config, char **report);
/* Launches a specialization: on the grid given, else on the kernel's grid
 * expression's. The null pointers its key made None are not its parameters. */
/* Whether runtime parameter i is a part of a tensor descriptor (its base, shape or strides). */
bool is_desc_param(const tilec_kernel *k, int i);
/* The CUtensorMapDataType of an element type; -1 where TMA copies none. */
int jit_tensor_map_type(DType t);
/* The nmaps tensor maps a launch appends to its arguments (args: the
 * kernel's parameters), each from its base, shape and strides, into out:
 * the driver's encoding on cuda, the emulator's where cuda is NULL. */
tilec_status jit_tensor_maps(tilec_cuda *cuda, const char *kernel, const KernelTensorMap *maps, const int *types, int nmaps,
                             void **args, unsigned char (*out)[128], char **report);
tilec_status jit_run_spec(tilec_kernel *k, const Spec *s, const unsigned grid[3], void **all, int nall, void *stream,
                          char **report);

#endif
