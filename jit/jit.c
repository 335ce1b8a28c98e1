/*
 * jit.c — devices and JIT-compiled kernels (tilec.h): compile from source,
 * specialize on the launch's arguments as Triton does, run on the CUDA
 * driver (runtime/cuda.c) or the CPU emulator (emu/emu.c).
 *
 * A kernel keeps its specializations in a small table keyed by the hints
 * its arguments give (two bits per runtime parameter): a pointer aligned to
 * 16 bytes, or null (C's None: the parameter becomes the constexpr None, as
 * Triton's JIT specializes a None argument, and the launch passes the
 * others only); an integer divisible by 16, or equal to 1. The key of a launch
 * is computed from the arguments without allocating; a key not in the
 * table is compiled, under the kernel's lock, with the signature its hints
 * spell ("*fp32:16", "i32:1").
 */
#include "tilec/runtime.h"
#include "tilec/tilec.h"

#include "runtime/cache.h"
#include "emu/emu.h"
#include "support/dtype.h"
#include "runtime/grid.h"
#include "jit.h"
#include "runtime/meta.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#define MAX_PARAMS 64
#define MAX_SPECIALIZATIONS 64

/* ---- devices ------------------------------------------------------------------------------ */

typedef struct Alloc {
  void *data;
  size_t bytes;
  unsigned char *init; /* a bit per byte written, by a copy or a launch (EmuBuffer.init) */
} Alloc;

struct tilec_device {
  tilec_device_kind kind;
  tilec_cuda *cuda;
  pthread_mutex_t lock;
  Alloc *allocs; /* the CPU's device memory, for the emulator's checks */
  int nallocs, cap;
  JitIdentity *identity; /* whose cache entries its kernels use; NULL: the process's own */
};

static char *dup_text(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* The message of a failed call (common.h); NULL when out of memory. */
static void tell(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tell(char **out, const char *fmt, ...) {
  if (!out) return;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  *out = dup_text(buf);
}

static tilec_status no_memory(char **message, const char *what) {
  tell(message, "%s: out of memory", what);
  return TILEC_ERROR_NO_MEMORY;
}

/* What a runtime.h failure is to the JIT's caller. */
static tilec_status from_rt(tilec_rt_status st) {
  switch (st) {
  case TILEC_RT_OK: return TILEC_OK;
  case TILEC_RT_NO_DRIVER:
  case TILEC_RT_NO_DEVICE: return TILEC_ERROR_NO_DEVICE;
  case TILEC_RT_INVALID: return TILEC_ERROR_USAGE;
  case TILEC_RT_NO_MEMORY: return TILEC_ERROR_NO_MEMORY;
  case TILEC_RT_CUDA_ERROR:
  case TILEC_RT_LOAD_ERROR: break;
  }
  return TILEC_ERROR_DEVICE;
}

tilec_status tilec_device_create(tilec_device_kind kind, tilec_device **out, char **message) {
  if (message) *message = NULL;
  if (!out) {
    tell(message, "tilec_device_create: out is NULL");
    return TILEC_ERROR_USAGE;
  }
  *out = NULL;
  bool from_env = false;
  if (kind == TILEC_DEVICE_AUTO) {
    const char *env = getenv("TILEC_DEVICE");
    if (env && *env) {
      if (!strcmp(env, "cpu")) kind = TILEC_DEVICE_CPU, from_env = true;
      else if (!strcmp(env, "cuda")) kind = TILEC_DEVICE_CUDA, from_env = true;
      else if (strcmp(env, "auto")) {
        tell(message, "TILEC_DEVICE must be cpu, cuda or auto, not '%s'", env);
        return TILEC_ERROR_USAGE;
      }
    }
  }
  tilec_device *d = calloc(1, sizeof *d);
  if (!d) return no_memory(message, "tilec_device_create");
  pthread_mutex_init(&d->lock, NULL);
  if (kind == TILEC_DEVICE_CUDA || kind == TILEC_DEVICE_AUTO) {
    char *err = NULL, old[160] = "";
    tilec_rt_status st = tilec_cuda_open(0, &d->cuda, &err);
    if (st == TILEC_RT_OK && !tilec_cuda_target(d->cuda)) {
      int a = tilec_cuda_arch(d->cuda);
      snprintf(old, sizeof old, "device 0 has compute capability %d.%d; tilec compiles for 8.0 (sm_80) and newer", a / 10,
               a % 10);
      tilec_cuda_close(d->cuda);
      d->cuda = NULL;
      st = TILEC_RT_NO_DEVICE;
    }
    if (st == TILEC_RT_OK) {
      d->kind = TILEC_DEVICE_CUDA;
    } else if (kind == TILEC_DEVICE_CUDA) {
      tell(message, "no CUDA device%s: %s", from_env ? " (TILEC_DEVICE=cuda)" : "",
           err ? err : st == TILEC_RT_NO_DEVICE ? old : "out of memory");
      free(err);
      pthread_mutex_destroy(&d->lock);
      free(d);
      return st == TILEC_RT_NO_MEMORY ? TILEC_ERROR_NO_MEMORY : TILEC_ERROR_NO_DEVICE;
    }
    free(err);
  }
  if (!d->cuda) d->kind = TILEC_DEVICE_CPU;
  *out = d;
  return TILEC_OK;
}

static void free_identity(JitIdentity *id) {
  if (!id) return;
  free((char *)id->build), free((char *)id->llvm), free((char *)id->host), free((char *)id->toolkit);
  free(id);
}

void tilec_device_destroy(tilec_device *d) {
  if (!d) return;
  free_identity(d->identity);
  for (int i = 0; i < d->nallocs; i++) free(d->allocs[i].data), free(d->allocs[i].init);
  free(d->allocs);
  tilec_cuda_close(d->cuda);
  pthread_mutex_destroy(&d->lock);
  free(d);
}

tilec_device_kind tilec_device_kind_of(const tilec_device *d) { return d ? d->kind : TILEC_DEVICE_AUTO; }

tilec_status tilec_device_alloc(tilec_device *d, size_t bytes, tilec_devptr *address, char **message) {
  if (message) *message = NULL;
  if (!d || !address) {
    tell(message, "tilec_device_alloc: %s is NULL", d ? "address" : "the device");
    return TILEC_ERROR_USAGE;
  }
  if (d->cuda) return from_rt(tilec_cuda_alloc(d->cuda, bytes, address, message));
  /* rounded up with room past the end, which the emulator's checks still see as outside */
  void *p = bytes < SIZE_MAX - 512 ? aligned_alloc(256, (bytes + 255) / 256 * 256 + 256) : NULL;
  unsigned char *init = p ? calloc(bytes / 8 + 1, 1) : NULL;
  if (!init) {
    free(p);
    tell(message, "tilec_device_alloc: out of memory for %zu bytes", bytes);
    return TILEC_ERROR_NO_MEMORY;
  }
  pthread_mutex_lock(&d->lock);
  if (d->nallocs == d->cap) {
    int cap = d->cap ? 2 * d->cap : 16;
    Alloc *grown = realloc(d->allocs, (size_t)cap * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&d->lock);
      free(p), free(init);
      return no_memory(message, "tilec_device_alloc");
    }
    d->allocs = grown, d->cap = cap;
  }
  d->allocs[d->nallocs++] = (Alloc){p, bytes, init};
  pthread_mutex_unlock(&d->lock);
  *address = (uintptr_t)p;
  return TILEC_OK;
}

/* The CPU allocation holding [address, address + bytes), or -1. */
static int find_alloc(tilec_device *d, tilec_devptr address, size_t bytes) {
  for (int i = 0; i < d->nallocs; i++) {
    uintptr_t b = (uintptr_t)d->allocs[i].data;
    if (address >= b && address + bytes <= b + d->allocs[i].bytes) return i;
  }
  return -1;
}

tilec_status tilec_device_free(tilec_device *d, tilec_devptr address, char **message) {
  if (message) *message = NULL;
  if (!d) {
    tell(message, "tilec_device_free: the device is NULL");
    return TILEC_ERROR_USAGE;
  }
  if (d->cuda) return from_rt(tilec_cuda_free(d->cuda, address, message));
  pthread_mutex_lock(&d->lock);
  int i = find_alloc(d, address, 0);
  bool ok = i >= 0 && (uintptr_t)d->allocs[i].data == address;
  if (ok) {
    free(d->allocs[i].data), free(d->allocs[i].init);
    d->allocs[i] = d->allocs[--d->nallocs];
  }
  pthread_mutex_unlock(&d->lock);
  if (!ok) tell(message, "tilec_device_free: 0x%llx is not an allocation of the device", address);
  return ok ? TILEC_OK : TILEC_ERROR_USAGE;
}

/* Sets the bits of bytes [off, off + n) in an allocation's map: they hold values now. */
static void mark_written(unsigned char *init, size_t off, size_t n) {
  size_t end = off + n;
  for (; off < end && off & 7; off++) __atomic_fetch_or(&init[off >> 3], (unsigned char)(1u << (off & 7)), __ATOMIC_RELAXED);
  if (end - off >= 8) memset(init + (off >> 3), 0xff, (end - off) >> 3), off += (end - off) & ~(size_t)7;
  for (; off < end; off++) __atomic_fetch_or(&init[off >> 3], (unsigned char)(1u << (off & 7)), __ATOMIC_RELAXED);
}

static tilec_status copy(tilec_device *d, tilec_devptr dev, void *host, size_t bytes, bool to_device, char **message) {
  const char *fn = to_device ? "tilec_device_copy_to" : "tilec_device_copy_from";
  if (message) *message = NULL;
  if (!d || (!host && bytes)) {
    tell(message, "%s: %s is NULL", fn, !d ? "the device" : to_device ? "src" : "dst");
    return TILEC_ERROR_USAGE;
  }
  if (d->cuda)
    return from_rt(to_device ? tilec_cuda_copy_to(d->cuda, dev, host, bytes, message)
                             : tilec_cuda_copy_from(d->cuda, host, dev, bytes, message));
  pthread_mutex_lock(&d->lock);
  int i = find_alloc(d, dev, bytes);
  bool ok = i >= 0;
  if (ok && to_device) mark_written(d->allocs[i].init, dev - (uintptr_t)d->allocs[i].data, bytes);
  pthread_mutex_unlock(&d->lock);
  if (!ok) {
    tell(message, "%s: [0x%llx, +%zu bytes) is not within an allocation of the device", fn, dev, bytes);
    return TILEC_ERROR_USAGE;
  }
  if (bytes) memcpy(to_device ? (void *)(uintptr_t)dev : host, to_device ? host : (void *)(uintptr_t)dev, bytes);
  return TILEC_OK;
}

tilec_status tilec_device_copy_to(tilec_device *d, tilec_devptr dst, const void *src, size_t bytes, char **message) {
  return copy(d, dst, (void *)(uintptr_t)src, bytes, true, message);
}

tilec_status tilec_device_copy_from(tilec_device *d, void *dst, tilec_devptr src, size_t bytes, char **message) {
  return copy(d, src, dst, bytes, false, message);
}

/* ---- kernels ------------------------------------------------------------------------------ */

typedef enum { P_PTR, P_INT, P_INT64, P_FLOAT, P_OTHER } ParamKind;

#define MAX_GRID_NAMES 128 /* the parameters and constexprs a grid expression may name */
#define MAX_KEYS 16        /* the parameters of an autotune key */
#define MAX_TUNED 64       /* the keys a kernel remembers the tuned config of */
#define TUNE_RUNS 5        /* timed launches per config, after one to warm up */

typedef struct Spec {
  uint64_t key; /* the hints */
  int config;   /* the autotune config */
  int num_warps;
  size_t shared_bytes;
  int64_t *consts; /* the values of the constexprs a grid may name, in their order */
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
  DType dtype[MAX_PARAMS];
  int nparams;
  tilec_context *ctx; /* made when something must be compiled */
  char *warnings;     /* what the cache had to say */
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
  pthread_mutex_t tune_lock;
  Tuned tuned[MAX_TUNED];
  _Atomic int ntuned;
};

/* Whether a signature entry is a runtime parameter: a pointer, or a type
 * in any of its spellings ("i32", "int32"); the rest are constexprs. */
static bool is_type_entry(const char *e) {
  DType t;
  return *e == '*' || dtype_parse(e, &t);
}

/* Pointers and 32- and 64-bit integers specialize (as in Triton); the
 * other scalars are passed as they are. */
static ParamKind kind_of(DType t, bool is_ptr) {
  if (is_ptr) return P_PTR;
  if (dtype_is_float(t)) return P_FLOAT;
  if (dtype_bits(t) == 64) return P_INT64;
  return dtype_bits(t) == 32 ? P_INT : P_OTHER;
}

/* Splits the signature into trimmed entries, and finds the runtime
 * parameters among them (their types come from the metadata: take_params);
 * TILEC_ERROR_USAGE when a runtime entry already has a hint (the JIT adds
 * them). */
static tilec_status split_signature(tilec_kernel *k, const char *sig, char **why) {
  const char *p = sig;
  while (*p) {
    while (*p == ' ') p++;
    const char *e = p;
    int depth = 0;
    while (*e && (*e != ',' || depth)) {
      if (*e == '(' || *e == '[') depth++;
      if (*e == ')' || *e == ']') depth--;
      e++;
    }
    const char *end = e;
    while (end > p && end[-1] == ' ') end--;
    char *entry = malloc((size_t)(end - p) + 1);
    char **grown = entry ? realloc(k->entries, (size_t)(k->nentries + 1) * sizeof *grown) : NULL;
    if (!grown) {
      free(entry);
      return no_memory(why, "tilec_kernel_create");
    }
    memcpy(entry, p, (size_t)(end - p));
    entry[end - p] = 0;
    k->entries = grown;
    k->entries[k->nentries++] = entry;
    if (!strncmp(entry, "tensordesc", 10)) {
      tell(why, "'%s': tensor descriptor parameters are not supported by the JIT yet; pass the base pointer, shape "
           "and strides as parameters and make the descriptor in the kernel with tl.make_tensor_descriptor", entry);
      return TILEC_ERROR_USAGE;
    }
    if (strchr(entry, ':') && entry[0] != '\'' && entry[0] != '"') {
      tell(why, "the JIT adds the hints: write '%.*s' without ':%s'", (int)(strchr(entry, ':') - entry), entry,
           strchr(entry, ':') + 1);
      return TILEC_ERROR_USAGE;
    }
    if (is_type_entry(entry)) {
      if (k->nparams == MAX_PARAMS) {
        tell(why, "more than %d runtime parameters", MAX_PARAMS);
        return TILEC_ERROR_UNSUPPORTED;
      }
      k->runtime_entry[k->nparams++] = k->nentries - 1;
    }
    p = *e ? e + 1 : e;
  }
  return TILEC_OK;
}

/* Runtime parameter i's value as an integer: an integer's value (false for
 * a u64 past INT64_MAX), a float's bits; false for a pointer. */
static bool arg_value(const tilec_kernel *k, void **args, int i, int64_t *v) {
  if (k->kind[i] == P_PTR) return false;
  DType t = k->dtype[i];
  size_t bytes = (size_t)dtype_bytes(t);
  uint64_t u = 0;
  memcpy(&u, args[i], bytes); /* little-endian: the low bytes */
  if (dtype_is_signed(t) && bytes < 8 && (u >> (8 * bytes - 1)) & 1) u |= ~(uint64_t)0 << (8 * bytes);
  if (t == DT_I1) u &= 1;
  if (t == DT_U64 && u > INT64_MAX) return false;
  *v = (int64_t)u;
  return true;
}

/* The hints of the arguments: two bits per runtime parameter. */
static uint64_t hints_of(const tilec_kernel *k, void **args) {
  uint64_t key = 0;
  for (int i = 0; i < k->nparams && i < 32; i++) {
    uint64_t h = 0;
    if (k->kind[i] == P_PTR) {
      tilec_devptr a;
      memcpy(&a, args[i], sizeof a);
      h = !a ? 2 : a % 16 == 0;
    } else if (k->kind[i] == P_INT) {
      int32_t v;
      memcpy(&v, args[i], sizeof v);
      h = v == 1 ? 2 : v % 16 == 0;
    } else if (k->kind[i] == P_INT64) {
      int64_t v;
      memcpy(&v, args[i], sizeof v);
      h = v == 1 ? 2 : v % 16 == 0;
    }
    key |= h << (2 * i);
  }
  return key;
}

/* The signature a key spells; NULL when out of memory. */
static char *signature_for(const tilec_kernel *k, uint64_t key) {
  size_t n = 1;
  for (int i = 0; i < k->nentries; i++) n += strlen(k->entries[i]) + 6;
  char *s = malloc(n), *at = s;
  if (!s) return NULL;
  for (int e = 0; e < k->nentries; e++) {
    int i = 0;
    while (i < k->nparams && k->runtime_entry[i] != e) i++;
    unsigned h = i < k->nparams ? (unsigned)(key >> (2 * i)) & 3 : 0;
    if (h == 2 && k->kind[i] == P_PTR) {
      at += sprintf(at, "%sNone", e ? ", " : "");
      continue;
    }
    at += sprintf(at, "%s%s%s", e ? ", " : "", k->entries[e], h == 1 ? ":16" : h == 2 ? ":1" : "");
  }
  return s;
}

static void warn(tilec_kernel *k, const char *w) {
  if (!w || !*w) return;
  size_t old = k->warnings ? strlen(k->warnings) : 0, n = strlen(w);
  char *grown = realloc(k->warnings, old + n + 2);
  if (!grown) return;
  memcpy(grown + old, w, n);
  grown[old + n] = '\n';
  grown[old + n + 1] = 0;
  k->warnings = grown;
}

/* ---- the identity in the cache keys (jit.h) ---------------------------------------------- */

static JitIdentity own;
static pthread_once_t own_once = PTHREAD_ONCE_INIT;

/* The hash of a file's contents; false when it cannot be read. */
static bool hash_file(const char *path, char hex[65]) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  CacheHash h;
  cache_hash_init(&h);
  char buf[16384];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) cache_hash_update(&h, buf, n);
  bool ok = !ferror(f);
  fclose(f);
  cache_hash_final(&h, hex);
  return ok;
}

/* A SHA-256 of the file, or "" when it cannot be read. */
static char *file_digest(const char *path) {
  char hex[65];
  return dup_text(hash_file(path, hex) ? hex : "");
}

/* The host as codegen/gpu.c and the emulator's JIT (ORC's detectHost)
 * target it: LLVM's default triple, host CPU name and feature string. */
static void find_own(void) {
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  char v[48];
  snprintf(v, sizeof v, "%u.%u.%u", major, minor, patch);
  char *triple = LLVMGetDefaultTargetTriple(), *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
  size_t n = strlen(triple) + strlen(cpu) + strlen(features) + 3;
  char *host = malloc(n);
  if (host) snprintf(host, n, "%s %s %s", triple, cpu, features);
  LLVMDisposeMessage(triple), LLVMDisposeMessage(cpu), LLVMDisposeMessage(features);
  const char *home = TILEC_CUDA_HOME;
  char path[1024];
  snprintf(path, sizeof path, "%s/version.json", home);
  /* out of memory: a host nothing else has, so that nothing is shared */
  own = (JitIdentity){.build = tilec_build_id(), .llvm = dup_text(v), .host = host ? host : "?",
                      .toolkit = *home ? file_digest(path) : dup_text("")};
  if (!own.llvm) own.llvm = "?";
  if (!own.toolkit) own.toolkit = "?";
}

const JitIdentity *jit_identity(void) {
  pthread_once(&own_once, find_own);
  return &own;
}

bool jit_device_set_identity(tilec_device *d, const JitIdentity *id) {
  if (!d) return false;
  JitIdentity *copy = NULL;
  if (id) {
    copy = calloc(1, sizeof *copy);
    if (!copy) return false;
    *copy = (JitIdentity){dup_text(id->build), dup_text(id->llvm), dup_text(id->host), dup_text(id->toolkit)};
    if (!copy->build || !copy->llvm || !copy->host || !copy->toolkit) {
      free_identity(copy);
      return false;
    }
  }
  free_identity(d->identity);
  d->identity = copy;
  return true;
}

/* The cache key of a compilation: everything its output depends on. The
 * format names what an entry holds, so that entries of another layout are
 * never read. */
void jit_cache_key(const JitIdentity *id, const char *filename, const char *source, size_t length,
                   const tilec_compile_options *o, char hex[65]) {
  CacheHash h;
  cache_hash_init(&h);
  cache_hash_str(&h, "tilec kernel, format 3");
  cache_hash_str(&h, tilec_version());
  cache_hash_str(&h, id->build);
  cache_hash_str(&h, id->llvm);
  /* the CPU's object code is for this host; the GPU's code comes through the toolkit */
  cache_hash_str(&h, o->emit == TILEC_EMIT_CPU ? id->host : id->toolkit);
  char num[80];
  snprintf(num, sizeof num, "%d %d %d %d %d", (int)o->emit, o->num_warps, o->num_stages, o->num_defines, o->config);
  cache_hash_str(&h, num);
  cache_hash_str(&h, o->arch ? o->arch : "");
  /* the CPU's entries hold the emulator's object code, not the compiler's output */
  cache_hash_str(&h, o->emit == TILEC_EMIT_CPU ? "host object" : "compiler output");
  cache_hash_str(&h, filename);
  cache_hash_str(&h, o->kernel ? o->kernel : "");
  cache_hash_str(&h, o->signature);
  for (int i = 0; i < o->num_defines; i++) cache_hash_str(&h, o->defines[i]);
  /* where imports are found; what they found is checked on each hit (deps_current) */
  for (int i = 0; i < o->num_include_dirs; i++) cache_hash_str(&h, o->include_dirs[i]);
  const char *path = getenv("TILEC_PATH");
  cache_hash_str(&h, path ? path : "");
  cache_hash_update(&h, source, length);
  cache_hash_final(&h, hex);
}

static void cache_key(const tilec_kernel *k, const tilec_compile_options *o, char hex[65]) {
  const JitIdentity *id = k->dev->identity ? k->dev->identity : jit_identity();
  jit_cache_key(id, k->filename, k->source, k->length, o, hex);
}


/* A cache entry starts with the files the compilation read beside its
 * source (imported modules), as tilec_result_dependencies gives them: a
 * line each, the hash of the contents it read, a space, the path. An entry
 * whose files changed since is a miss. */
static bool deps_current(const char *record) {
  for (const char *p = record; *p;) {
    size_t n = strcspn(p, "\n");
    char path[4096], hex[65];
    if (n < 66 || n - 65 >= sizeof path || p[64] != ' ') return false;
    memcpy(path, p + 65, n - 65);
    path[n - 65] = 0;
    if (!hash_file(path, hex) || memcmp(hex, p, 64)) return false;
    p += n + (p[n] == '\n');
  }
  return true;
}

/* Writes a cache entry: the dependencies record, the metadata, a flag byte
 * (none when flag < 0) and the data, each part NUL-terminated. */
static void put_entry(tilec_kernel *k, const char *dir, const char hex[65], const tilec_result *r, const char *meta,
                      int flag, const void *data, size_t len) {
  const char *rec = tilec_result_dependencies(r);
  size_t rl = strlen(rec) + 1, ml = strlen(meta) + 1, fl = flag >= 0;
  char *payload = malloc(rl + ml + fl + len + 1);
  if (!payload) return;
  memcpy(payload, rec, rl);
  memcpy(payload + rl, meta, ml);
  if (fl) payload[rl + ml] = (char)flag;
  memcpy(payload + rl + ml + fl, data, len);
  payload[rl + ml + fl + len] = 0;
  char w8[512] = "";
  cache_put(dir, hex, payload, rl + ml + fl + len + 1, w8, sizeof w8);
  warn(k, w8);
  free(payload);
}

/* What the launches of a specialization need from its metadata: warps,
 * shared memory, the values of the grid's constexprs. The first
 * compilation (the kernel's creation) also fixes the entry's name and which
 * constexprs a grid may name. */
static tilec_status take_metadata(tilec_kernel *k, const KernelMeta *m, Spec *out, char **why) {
  if (!k->name) k->name = dup_text(m->name);
  if (!k->const_names && m->nconsts) {
    k->const_names = calloc((size_t)m->nconsts, sizeof *k->const_names);
    for (int i = 0; k->const_names && i < m->nconsts; i++)
      if (!(k->const_names[k->nconsts++] = dup_text(m->consts[i].name))) return no_memory(why, "the kernel's metadata");
  }
  out->num_warps = m->num_warps;
  out->shared_bytes = (size_t)m->shared_bytes;
  out->consts = calloc((size_t)k->nconsts + 1, sizeof *out->consts);
  if (!k->name || !out->consts || (m->nconsts && !k->const_names)) return no_memory(why, "the kernel's metadata");
  for (int i = 0; i < k->nconsts; i++) {
    int j = 0;
    while (j < m->nconsts && strcmp(m->consts[j].name, k->const_names[i])) j++;
    if (j == m->nconsts) {
      tell(why, "config %d of %s has no constexpr '%s'", out->config, k->name, k->const_names[i]);
      return TILEC_ERROR_USAGE;
    }
    out->consts[i] = m->consts[j].value;
  }
  return TILEC_OK;
}

/* Compiles (or finds in the disk cache) the specialization of `key` for an
 * autotune config, and loads it. With `meta`, its metadata goes there
 * (meta_free it). */
static tilec_status compile_spec(tilec_kernel *k, uint64_t key, int config, Spec *out, KernelMeta *meta, char **why) {
  char *sig = signature_for(k, key);
  if (!sig) return no_memory(why, k->name ? k->name : "tilec_kernel_create");
  tilec_compile_options o = {
      .kernel = k->opt.kernel,
      .signature = sig,
      .defines = (const char *const *)k->defines,
      .num_defines = k->opt.num_defines,
      .num_warps = k->opt.num_warps,
      .num_stages = k->opt.num_stages,
      .emit = k->dev->cuda ? TILEC_EMIT_PTX : TILEC_EMIT_CPU,
      .context = k->ctx,
      .config = config,
      .include_dirs = (const char *const *)k->includes,
      .num_include_dirs = k->opt.num_include_dirs,
  };
  if (k->dev->cuda) o.arch = tilec_cuda_target(k->dev->cuda);
  /* the disk cache holds the metadata and the output, each NUL-terminated.
   * On CUDA a cubin (nvJitLink) is tried first, so that the driver need not
   * compile PTX at load time; PTX when there is no toolkit. */
  char dirbuf[1024], hex[65], w8[512] = "";
  const char *dir = k->opt.no_disk_cache ? NULL : k->opt.cache_dir ? k->opt.cache_dir : cache_default_dir(dirbuf, sizeof dirbuf);
  tilec_emit emits[2] = {TILEC_EMIT_CPU, TILEC_EMIT_CPU};
  int nemits = 1;
  if (k->dev->cuda) emits[0] = TILEC_EMIT_CUBIN, emits[1] = TILEC_EMIT_PTX, nemits = 2;
  tilec_result *r = NULL;
  void *blob = NULL;
  size_t blen = 0, len = 0;
  const char *meta_json = NULL, *text = NULL;
  bool cached = false;
  tilec_status st = TILEC_OK;
  for (int e = 0; e < nemits && !meta_json; e++) {
    o.emit = emits[e];
    if (dir) {
      cache_key(k, &o, hex);
      if (cache_get(dir, hex, &blob, &blen, w8, sizeof w8) == 1) {
        const char *rec_end = memchr(blob, 0, blen);
        const char *mj = rec_end ? rec_end + 1 : NULL;
        size_t rest = mj ? blen - (size_t)(mj - (const char *)blob) : 0;
        const char *nul = mj ? memchr(mj, 0, rest) : NULL;
        if (nul && rest >= (size_t)(nul - mj) + 2 && ((const char *)blob)[blen - 1] == 0 && deps_current(blob)) {
          meta_json = mj, text = nul + 1, len = blen - (size_t)(text - (const char *)blob) - 1;
          cached = true;
          break;
        }
        free(blob), blob = NULL;
      }
      warn(k, w8);
    }
    st = k->ctx ? TILEC_OK : tilec_context_create(&k->ctx);
    o.context = k->ctx;
    tilec_result_destroy(r);
    r = NULL;
    if (st == TILEC_OK) st = tilec_compile(k->filename, k->source, k->length, &o, &r);
    if (st != TILEC_OK) continue; /* the next kind, if any */
    meta_json = tilec_result_metadata(r);
    text = tilec_result_output(r, &len);
    if (dir && k->dev->cuda) put_entry(k, dir, hex, r, meta_json, -1, text, len);
  }
  free(sig);
  KernelMeta m = {0};
  char err[512] = "";
  bool oom = false;
  if (!meta_json) {
    if (why) *why = dup_text(r ? tilec_result_diagnostics(r) : "the compiler could not start: out of memory");
    st = st != TILEC_OK ? st : TILEC_ERROR_COMPILE;
  } else if (!meta_parse(meta_json, &m, err, sizeof err, &oom)) {
    tell(why, "the kernel's metadata cannot be read: %s", err);
    st = oom ? TILEC_ERROR_NO_MEMORY : TILEC_ERROR_UNSUPPORTED;
  } else {
    *out = (Spec){.key = key, .config = config};
    st = take_metadata(k, &m, out, why);
  }
  if (st != TILEC_OK) {
    free(out->consts);
    out->consts = NULL;
    meta_free(&m);
    tilec_result_destroy(r);
    free(blob);
    return st;
  }
  if (k->dev->cuda) {
    st = from_rt(tilec_cuda_module_load(k->dev->cuda, text, len + 1, k->name, out->num_warps, out->shared_bytes,
                                        &out->cuda, why));
  } else {
    /* the cache holds a byte saying whether the kernel needs fibers, then
     * the object code; a miss compiles the host IR and keeps its object */
    char *e = NULL;
    out->emu = cached && len >= 1 ? emu_load_object(text + 1, len - 1, k->name, text[0] == 1, &e)
                                  : emu_load(text, len, k->name, &e);
    if (!out->emu) {
      /* the emulator says nothing only when it ran out of memory */
      st = e ? TILEC_ERROR_UNSUPPORTED : TILEC_ERROR_NO_MEMORY;
      tell(why, "%s", e ? e : "the emulator cannot load the kernel: out of memory");
      free(e);
    } else if (dir && !cached) {
      size_t olen;
      const void *obj = emu_object(out->emu, &olen);
      if (obj) put_entry(k, dir, hex, r, meta_json, emu_uses_fibers(out->emu) ? 1 : 0, obj, olen);
    }
  }
  if (st != TILEC_OK) {
    free(out->consts);
    out->consts = NULL;
  }
  if (meta && st == TILEC_OK) *meta = m;
  else meta_free(&m);
  tilec_result_destroy(r);
  free(blob);
  return st;
}

void tilec_kernel_destroy(tilec_kernel *k) {
  if (!k) return;
  for (int i = 0; i < k->nspecs; i++) {
    emu_unload(k->specs[i].emu);
    tilec_cuda_module_unload(k->specs[i].cuda);
    free(k->specs[i].consts);
  }
  for (int i = 0; i < k->nentries; i++) free(k->entries[i]);
  for (int i = 0; k->defines && i < k->opt.num_defines; i++) free(k->defines[i]);
  for (int i = 0; k->includes && i < k->opt.num_include_dirs; i++) free(k->includes[i]);
  free(k->includes);
  for (int i = 0; i < k->nconsts; i++) free(k->const_names[i]);
  free(k->const_names);
  free(k->grid);
  free(k->entries);
  free(k->defines);
  free(k->filename);
  free(k->source);
  free(k->name);
  free(k->warnings);
  free((char *)k->opt.kernel);
  free((char *)k->opt.cache_dir);
  free((char *)k->opt.grid);
  tilec_context_destroy(k->ctx);
  pthread_mutex_destroy(&k->lock);
  pthread_mutex_destroy(&k->tune_lock);
  free(k);
}

/* The runtime parameters' types, from the first compilation's metadata, as
 * the compiler read them from the signature: every spelling of a type is
 * one dtype there. The metadata lists the runtime parameters only; a
 * signature that gives a tl.constexpr parameter a type (a dtype) has one
 * entry more that reads as a type, and which it is the metadata cannot
 * tell. */
static tilec_status take_params(tilec_kernel *k, const KernelMeta *m, char **why) {
  if (m->nparams != k->nparams) {
    tell(why, "%s has %d runtime parameters, but %d entries of its signature are types; the JIT cannot pass a "
         "dtype to a tl.constexpr parameter yet: set it with a define", k->name, m->nparams, k->nparams);
    return TILEC_ERROR_UNSUPPORTED;
  }
  for (int i = 0; i < m->nparams; i++) {
    bool is_ptr;
    if (!dtype_parse_param(m->params[i].type, &k->dtype[i], &is_ptr)) {
      tell(why, "%s: the JIT cannot pass parameter '%s' of type %s", k->name, m->params[i].name, m->params[i].type);
      return TILEC_ERROR_UNSUPPORTED;
    }
    k->kind[i] = kind_of(k->dtype[i], is_ptr);
  }
  return TILEC_OK;
}

/* From the first compilation's metadata: the autotune key's parameters,
 * and the grid expression, parsed over the parameters and constexprs. */
static tilec_status read_kernel(tilec_kernel *k, const KernelMeta *m, char **why) {
  k->nconfigs = m->nconfigs;
  for (int i = 0; i < m->nkeys; i++) {
    int p = 0;
    while (p < m->nparams && strcmp(m->params[p].name, m->keys[i])) p++;
    if (p == m->nparams || k->kind[p] == P_PTR) continue; /* a constexpr or a pointer: the same in every launch */
    if (k->nkeys == MAX_KEYS) {
      tell(why, "%s: more than %d autotune keys", k->name, MAX_KEYS);
      return TILEC_ERROR_UNSUPPORTED;
    }
    k->key_param[k->nkeys++] = p;
  }
  /* reset_to_zero and restore_value: pointer parameters */
  for (int l = 0; l < 2; l++) {
    char **names = l ? m->restore : m->reset;
    int n = l ? m->nrestore : m->nreset, *to = l ? k->restore_param : k->reset_param, *count = l ? &k->nrestore : &k->nreset;
    for (int i = 0; i < n; i++) {
      int p = 0;
      while (p < m->nparams && strcmp(m->params[p].name, names[i])) p++;
      if (p == m->nparams || k->kind[p] != P_PTR) {
        tell(why, "%s: autotune %s names '%s', which is not a pointer parameter", k->name, l ? "restore_value" : "reset_to_zero",
             names[i]);
        return TILEC_ERROR_USAGE;
      }
      if (*count == MAX_KEYS) {
        tell(why, "%s: more than %d autotune %s entries", k->name, MAX_KEYS, l ? "restore_value" : "reset_to_zero");
        return TILEC_ERROR_UNSUPPORTED;
      }
      to[(*count)++] = p;
    }
  }
  if (!k->opt.grid) return TILEC_OK;
  if (m->nparams + k->nconsts > MAX_GRID_NAMES) {
    tell(why, "grid '%s': %s has more than %d parameters and constexprs", k->opt.grid, k->name, MAX_GRID_NAMES);
    return TILEC_ERROR_UNSUPPORTED;
  }
  GridName names[MAX_GRID_NAMES];
  int n = 0;
  for (int i = 0; i < m->nparams; i++, n++) {
    names[n] = (GridName){.name = m->params[i].name, .unusable = grid_unusable_type(m->params[i].type)};
  }
  for (int i = 0; i < k->nconsts; i++, n++) names[n] = (GridName){.name = k->const_names[i]};
  GridError e;
  k->grid = malloc(sizeof *k->grid);
  if (!k->grid) return no_memory(why, "tilec_kernel_create");
  if (!grid_parse(k->grid, k->opt.grid, names, n, &e)) {
    tell(why, "grid '%s': %s (at byte %zu)", k->opt.grid, e.msg, e.pos);
    return TILEC_ERROR_USAGE;
  }
  return TILEC_OK;
}

tilec_status tilec_kernel_create(tilec_device *d, const char *filename, const char *source, size_t length,
                                 const tilec_jit_options *options, tilec_kernel **out, char **message) {
  if (message) *message = NULL;
  if (!out) {
    tell(message, "tilec_kernel_create: out is NULL");
    return TILEC_ERROR_USAGE;
  }
  *out = NULL;
  if (!d || !source || !options || !options->signature) {
    tell(message, "tilec_kernel_create needs a device, a source and options with a signature");
    return TILEC_ERROR_USAGE;
  }
  if (options->config < TILEC_CONFIG_TUNE) {
    tell(message, "config %d: a config is numbered from 0, or is TILEC_CONFIG_TUNE", options->config);
    return TILEC_ERROR_USAGE;
  }
  tilec_kernel *k = calloc(1, sizeof *k);
  if (!k) return no_memory(message, "tilec_kernel_create");
  pthread_mutex_init(&k->lock, NULL);
  pthread_mutex_init(&k->tune_lock, NULL);
  k->dev = d;
  k->opt = *options;
  k->opt.kernel = options->kernel ? dup_text(options->kernel) : NULL;
  k->opt.cache_dir = options->cache_dir ? dup_text(options->cache_dir) : NULL;
  k->opt.grid = options->grid ? dup_text(options->grid) : NULL;
  k->filename = dup_text(filename ? filename : "<source>");
  k->source = length < SIZE_MAX ? malloc(length + 1) : NULL;
  k->length = length;
  k->defines = calloc((size_t)options->num_defines + 1, sizeof *k->defines);
  k->includes = calloc((size_t)options->num_include_dirs + 1, sizeof *k->includes);
  bool copied = (k->opt.kernel || !options->kernel) && (k->opt.cache_dir || !options->cache_dir) &&
                (k->opt.grid || !options->grid) && k->filename && k->source && k->defines && k->includes;
  for (int i = 0; copied && i < options->num_defines; i++) copied = (k->defines[i] = dup_text(options->defines[i]));
  for (int i = 0; copied && i < options->num_include_dirs; i++)
    copied = (k->includes[i] = dup_text(options->include_dirs[i]));
  if (!copied) {
    tilec_kernel_destroy(k);
    return no_memory(message, "tilec_kernel_create");
  }
  memcpy(k->source, source, length);
  k->source[length] = 0;
  KernelMeta m = {0};
  tilec_status st = split_signature(k, options->signature, message);
  if (st == TILEC_OK) st = compile_spec(k, 0, options->config > 0 ? options->config : 0, &k->specs[0], &m, message);
  if (st == TILEC_OK) {
    k->nspecs = 1;
    st = take_params(k, &m, message);
  }
  if (st == TILEC_OK) st = read_kernel(k, &m, message);
  meta_free(&m);
  if (st != TILEC_OK) {
    tilec_kernel_destroy(k);
    return st;
  }
  *out = k;
  return TILEC_OK;
}

int tilec_kernel_specializations(const tilec_kernel *k) { return k ? k->nspecs : 0; }

const char *tilec_kernel_warnings(const tilec_kernel *k) { return k && k->warnings ? k->warnings : ""; }

int tilec_kernel_configs(const tilec_kernel *k) { return k ? k->nconfigs : 0; }

/* The specialization of hints and a config: found without locking when it
 * is there (entries are written before the count that publishes them). */
static Spec *spec_for(tilec_kernel *k, uint64_t key, int config, char **report, tilec_status *st) {
  int n = k->nspecs;
  for (int i = 0; i < n; i++)
    if (k->specs[i].key == key && k->specs[i].config == config) return &k->specs[i];
  pthread_mutex_lock(&k->lock);
  Spec *s = NULL, *plain = NULL;
  for (int i = 0; i < k->nspecs && !s; i++) {
    if (k->specs[i].config != config) continue;
    if (k->specs[i].key == key) s = &k->specs[i];
    if (k->specs[i].key == 0) plain = &k->specs[i];
  }
  if (!s && k->nspecs == MAX_SPECIALIZATIONS) {
    /* the table is full: the config's unspecialized kernel serves, when there is one */
    s = plain;
    if (!s) {
      tell(report, "%s: more than %d specializations", k->name, MAX_SPECIALIZATIONS);
      *st = TILEC_ERROR_UNSUPPORTED;
    }
  } else if (!s) {
    *st = compile_spec(k, key, config, &k->specs[k->nspecs], NULL, report);
    if (*st == TILEC_OK) s = &k->specs[k->nspecs++];
  }
  pthread_mutex_unlock(&k->lock);
  return s;
}

/* The grid of a launch from the kernel's grid expression, with the
 * arguments and the specialization's constexprs. Allocates nothing. */
static tilec_status eval_grid(const tilec_kernel *k, const Spec *s, void **args, unsigned dims[3], char **report) {
  int64_t values[MAX_GRID_NAMES];
  for (int i = 0; i < k->nparams; i++) {
    values[i] = 0; /* a pointer or a float, which the grid cannot name */
    if (k->kind[i] == P_PTR || k->kind[i] == P_FLOAT || arg_value(k, args, i, &values[i])) continue;
    tell(report, "grid '%s': argument %d (a u64) is past the range of grid arithmetic", k->opt.grid, i);
    return TILEC_ERROR_USAGE;
  }
  for (int i = 0; i < k->nconsts; i++) values[k->nparams + i] = s->consts[i];
  GridError e;
  if (!grid_eval(k->grid, values, dims, &e)) {
    tell(report, "grid '%s': %s (at byte %zu)", k->opt.grid, e.msg, e.pos);
    return TILEC_ERROR_USAGE;
  }
  return TILEC_OK;
}

/* Launches a specialization: on the grid given, else on the kernel's grid
 * expression's. The null pointers its key made None are not its parameters. */
static tilec_status run_spec(tilec_kernel *k, const Spec *s, const unsigned grid[3], void **all, int nall, void *stream,
                             char **report) {
  unsigned dims[3];
  if (!grid) {
    tilec_status st = eval_grid(k, s, all, dims, report);
    if (st != TILEC_OK) return st;
    grid = dims;
  }
  void *kept[MAX_PARAMS], **args = kept;
  int nargs = 0;
  for (int i = 0; i < nall; i++)
    if (i >= 32 || k->kind[i] != P_PTR || (s->key >> (2 * i) & 3) != 2) kept[nargs++] = all[i];
  if (s->cuda) return from_rt(tilec_cuda_launch(s->cuda, grid, args, stream, report));
  /* the CPU: the device's allocations are the memory the kernel may touch */
  tilec_device *d = k->dev;
  pthread_mutex_lock(&d->lock);
  EmuBuffer *bufs = malloc((size_t)(d->nallocs + 1) * sizeof *bufs);
  for (int i = 0; bufs && i < d->nallocs; i++)
    bufs[i] = (EmuBuffer){d->allocs[i].data, d->allocs[i].bytes, "an allocation", d->allocs[i].init};
  int nbufs = d->nallocs;
  pthread_mutex_unlock(&d->lock);
  if (!bufs) return no_memory(report, k->name);
  EmuLaunch l = {.grid = {grid[0], grid[1], grid[2]}, .num_warps = s->num_warps, .args = args, .nargs = nargs,
                 .buffers = bufs, .nbuffers = nbufs};
  char *rep = NULL;
  EmuFailure why;
  bool ok = emu_launch(s->emu, &l, &rep, &why);
  free(bufs);
  if (!ok) {
    if (report) *report = rep;
    else free(rep);
    return why == EMU_FAILED_NO_MEMORY ? TILEC_ERROR_NO_MEMORY : why == EMU_FAILED_LAUNCH ? TILEC_ERROR_USAGE
                                                                                          : TILEC_ERROR_CHECK;
  }
  free(rep);
  return TILEC_OK;
}

/* ---- autotuning --------------------------------------------------------------------------- */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The values of the key's parameters in these arguments. */
static void key_of(const tilec_kernel *k, void **args, int64_t key[MAX_KEYS]) {
  memset(key, 0, sizeof(int64_t) * MAX_KEYS);
  for (int i = 0; i < k->nkeys; i++)
    if (!arg_value(k, args, k->key_param[i], &key[i])) memcpy(&key[i], args[k->key_param[i]], sizeof key[i]);
}

static int find_tuned(const tilec_kernel *k, const int64_t key[MAX_KEYS]) {
  int n = k->ntuned;
  for (int i = 0; i < n; i++)
    if (!memcmp(k->tuned[i].key, key, sizeof(int64_t) * MAX_KEYS)) return k->tuned[i].config;
  return -1;
}

/* A buffer tuning runs over: reset_to_zero's (zeroed before each run) or
 * restore_value's (restored before each run), from its pointer to the end
 * of its allocation, with the caller's contents to put back after. */
typedef struct Saved {
  tilec_devptr addr;
  size_t bytes;
  void *copy;
  void *zeros; /* reset_to_zero's: what goes in before each run */
  bool zero;
} Saved;

/* The bytes from address to the end of the device allocation holding it; 0 when none does. */
static size_t extent(tilec_device *d, tilec_devptr address) {
  size_t bytes = 0;
  if (d->cuda) return tilec_cuda_extent(d->cuda, address, &bytes, NULL) == TILEC_RT_OK ? bytes : 0;
  pthread_mutex_lock(&d->lock);
  int i = find_alloc(d, address, 0);
  if (i >= 0) bytes = (size_t)((uintptr_t)d->allocs[i].data + d->allocs[i].bytes - address);
  pthread_mutex_unlock(&d->lock);
  return bytes;
}

static void free_saved(Saved *sv, int n) {
  for (int i = 0; i < n; i++) free(sv[i].copy), free(sv[i].zeros);
}

/* Saves the buffers of reset_to_zero and restore_value, each with a block
 * of zeros for reset_to_zero's; TILEC_ERROR_USAGE (with *why) when one is
 * not in device memory. */
static tilec_status save_buffers(tilec_kernel *k, void **args, Saved *sv, int *n, char **why) {
  *n = 0;
  for (int i = 0; i < k->nreset + k->nrestore; i++) {
    bool zero = i < k->nreset;
    int p = zero ? k->reset_param[i] : k->restore_param[i - k->nreset];
    Saved *s = &sv[(*n)++];
    *s = (Saved){.zero = zero};
    memcpy(&s->addr, args[p], sizeof s->addr);
    s->bytes = extent(k->dev, s->addr);
    if (!s->bytes) {
      tell(why, "%s: argument %d, named by autotune's %s, is not in device memory", k->name, p,
           zero ? "reset_to_zero" : "restore_value");
      free_saved(sv, *n);
      return TILEC_ERROR_USAGE;
    }
    s->copy = malloc(s->bytes);
    s->zeros = zero ? calloc(1, s->bytes) : NULL;
    tilec_status st = !s->copy || (zero && !s->zeros) ? no_memory(why, k->name)
                                                      : tilec_device_copy_from(k->dev, s->copy, s->addr, s->bytes, why);
    if (st != TILEC_OK) {
      free_saved(sv, *n);
      return st;
    }
  }
  return TILEC_OK;
}

/* Before a tuning run (zeroes reset_to_zero's buffers), or after tuning
 * (the caller's contents back in all of them). */
static tilec_status put_buffers(tilec_kernel *k, const Saved *sv, int n, bool before_run, char **why) {
  for (int i = 0; i < n; i++) {
    const void *from = before_run && sv[i].zero ? sv[i].zeros : sv[i].copy;
    tilec_status st = tilec_device_copy_to(k->dev, sv[i].addr, from, sv[i].bytes, why);
    if (st != TILEC_OK) return st;
  }
  return TILEC_OK;
}

/* Times every config on these arguments, as Triton's autotuner does: one
 * launch to warm up, then the best of TUNE_RUNS, each waited for, with
 * reset_to_zero's buffers zeroed and restore_value's restored before each;
 * after, every such buffer holds what the caller had put there. A config
 * that does not compile or launch (too much shared memory, a grid out of
 * range) is left out; *best is the fastest of the others. */
static tilec_status tune(tilec_kernel *k, uint64_t hints, const unsigned grid[3], void **args, int nargs, void *stream,
                         int *best, char **report) {
  double best_t = 0;
  char *why = NULL;
  *best = -1;
  Saved saved[2 * MAX_KEYS];
  int nsaved = 0;
  tilec_status st = save_buffers(k, args, saved, &nsaved, report);
  if (st != TILEC_OK) return st;
  /* running out of memory, or copying the buffers back in, is no config's fault: it ends tuning */
  bool fatal = false;
  for (int c = 0; c < k->nconfigs && !fatal; c++) {
    free(why);
    why = NULL;
    st = TILEC_OK;
    Spec *s = spec_for(k, hints, c, &why, &st);
    fatal = st == TILEC_ERROR_NO_MEMORY;
    if (!s) continue;
    double t = 0;
    for (int r = 0; r <= TUNE_RUNS && st == TILEC_OK; r++) {
      if ((st = put_buffers(k, saved, nsaved, true, &why)) != TILEC_OK) {
        fatal = true;
        break;
      }
      double t0 = now_s();
      st = run_spec(k, s, grid, args, nargs, stream, &why);
      if (st == TILEC_OK && k->dev->cuda) st = from_rt(tilec_cuda_synchronize(k->dev->cuda, &why));
      fatal = st == TILEC_ERROR_NO_MEMORY;
      double dt = now_s() - t0;
      if (r == 1 || (r > 1 && dt < t)) t = dt;
    }
    if (st == TILEC_OK && (*best < 0 || t < best_t)) *best = c, best_t = t;
  }
  if (fatal) *best = -1;
  if (!fatal && (st = put_buffers(k, saved, nsaved, false, &why)) != TILEC_OK) *best = -1, fatal = true;
  free_saved(saved, nsaved);
  if (*best < 0) {
    tell(report, "%s: %s%s", k->name, fatal ? "tuning stopped: " : "no autotune config runs; the last: ", why ? why : "");
    free(why);
    return st != TILEC_OK ? st : TILEC_ERROR_UNSUPPORTED;
  }
  free(why);
  return TILEC_OK;
}

/* The config for a launch with these arguments: the one asked for, or
 * with TILEC_CONFIG_TUNE the one tuning found for their key (tuning it
 * now, under the tuning lock, the first time the key is seen). */
static tilec_status config_for(tilec_kernel *k, uint64_t hints, const unsigned grid[3], void **args, int nargs,
                               void *stream, int *config, char **report) {
  *config = k->opt.config > 0 ? k->opt.config : 0;
  if (k->opt.config != TILEC_CONFIG_TUNE || k->nconfigs < 2) return TILEC_OK;
  int64_t key[MAX_KEYS];
  key_of(k, args, key);
  if ((*config = find_tuned(k, key)) >= 0) return TILEC_OK;
  pthread_mutex_lock(&k->tune_lock);
  tilec_status st = TILEC_OK;
  if ((*config = find_tuned(k, key)) < 0) {
    st = tune(k, hints, grid, args, nargs, stream, config, report);
    int n = k->ntuned;
    if (st == TILEC_OK && n < MAX_TUNED) {
      memcpy(k->tuned[n].key, key, sizeof key);
      k->tuned[n].config = *config;
      k->ntuned = n + 1;
    }
  }
  pthread_mutex_unlock(&k->tune_lock);
  return st;
}

int tilec_kernel_config_of(const tilec_kernel *k, void **args, int nargs) {
  if (!k || nargs != k->nparams || (!args && nargs)) return -1;
  if (k->opt.config != TILEC_CONFIG_TUNE || k->nconfigs < 2) return k->opt.config > 0 ? k->opt.config : 0;
  int64_t key[MAX_KEYS];
  key_of(k, args, key);
  return find_tuned(k, key);
}

/* ---- launching ---------------------------------------------------------------------------- */

tilec_status tilec_kernel_launch(tilec_kernel *k, const unsigned grid[3], void **args, int nargs, void *stream,
                                 char **report) {
  if (report) *report = NULL;
  if (!k || (!args && nargs)) {
    tell(report, "tilec_kernel_launch: %s is NULL", k ? "args" : "the kernel");
    return TILEC_ERROR_USAGE;
  }
  if (nargs != k->nparams) {
    tell(report, "%s takes %d runtime arguments, got %d", k->name ? k->name : "the kernel", k->nparams, nargs);
    return TILEC_ERROR_USAGE;
  }
  if (!grid && !k->grid) {
    tell(report, "%s: no grid, and no grid expression in its options", k->name);
    return TILEC_ERROR_USAGE;
  }
  if (grid && (!grid[0] || !grid[1] || !grid[2])) {
    tell(report, "every grid dimension must be at least 1, got (%u, %u, %u)", grid[0], grid[1], grid[2]);
    return TILEC_ERROR_USAGE;
  }
  uint64_t hints = hints_of(k, args);
  int config;
  tilec_status st = config_for(k, hints, grid, args, nargs, stream, &config, report);
  if (st != TILEC_OK) return st;
  Spec *s = spec_for(k, hints, config, report, &st);
  if (!s) return st;
  return run_spec(k, s, grid, args, nargs, stream, report);
}

tilec_status tilec_kernel_launchv(tilec_kernel *k, const unsigned grid[3], void *stream, char **report, ...) {
  if (report) *report = NULL;
  if (!k) {
    tell(report, "tilec_kernel_launchv: the kernel is NULL");
    return TILEC_ERROR_USAGE;
  }
  union {
    tilec_devptr p;
    int32_t i;
    int64_t l;
    float f;
    double d;
    uint16_t h;
  } vals[MAX_PARAMS];
  void *args[MAX_PARAMS];
  va_list ap;
  va_start(ap, report);
  for (int i = 0; i < k->nparams; i++) {
    DType t = k->dtype[i];
    switch (k->kind[i]) {
    case P_PTR: vals[i].p = va_arg(ap, tilec_devptr); break;
    case P_INT: vals[i].i = (int32_t)va_arg(ap, int); break;
    case P_INT64: vals[i].l = va_arg(ap, long long); break;
    case P_OTHER: vals[i].i = (int32_t)va_arg(ap, int); break; /* i1, i8, i16, u8, u16: the low bytes */
    case P_FLOAT:
      /* C promotes a float argument to double; narrower floats have no C type to be promoted from */
      if (t == DT_F64) vals[i].d = va_arg(ap, double);
      else if (t == DT_F32) vals[i].f = (float)va_arg(ap, double);
      else {
        va_end(ap);
        tell(report, "tilec_kernel_launchv cannot pass a %s argument; use tilec_kernel_launch", dtype_short(t));
        return TILEC_ERROR_USAGE;
      }
    }
    args[i] = &vals[i];
  }
  va_end(ap);
  return tilec_kernel_launch(k, grid, args, k->nparams, stream, report);
}
