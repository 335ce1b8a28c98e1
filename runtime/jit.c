/*
 * jit.c — devices and JIT-compiled kernels (tilec.h): compile from source,
 * specialize on the launch's arguments as Triton does, run on the CUDA
 * driver (runtime/cuda.c) or the CPU emulator (runtime/emu.c).
 *
 * A kernel keeps its specializations in a small table keyed by the hints
 * its arguments give (two bits per runtime parameter): a pointer aligned to
 * 16 bytes; an integer divisible by 16, or equal to 1. The key of a launch
 * is computed from the arguments without allocating; a key not in the
 * table is compiled, under the kernel's lock, with the signature its hints
 * spell ("*fp32:16", "i32:1").
 */
#include "tilec/runtime.h"
#include "tilec/tilec.h"

#include "cache.h"
#include "emu.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARAMS 64
#define MAX_SPECIALIZATIONS 64

/* ---- devices ------------------------------------------------------------------------------ */

typedef struct Alloc {
  void *data;
  size_t bytes;
} Alloc;

struct tilec_device {
  tilec_device_kind kind;
  tilec_cuda *cuda;
  pthread_mutex_t lock;
  Alloc *allocs; /* the CPU's device memory, for the emulator's checks */
  int nallocs, cap;
};

static char *dup_text(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

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

tilec_status tilec_device_create(tilec_device_kind kind, tilec_device **out, char **message) {
  if (message) *message = NULL;
  if (!out) return TILEC_ERROR_USAGE;
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
  if (!d) return TILEC_ERROR_USAGE;
  pthread_mutex_init(&d->lock, NULL);
  if (kind == TILEC_DEVICE_CUDA || kind == TILEC_DEVICE_AUTO) {
    char err[512] = "";
    tilec_rt_status st = tilec_cuda_open(0, &d->cuda, err, sizeof err);
    if (st == TILEC_RT_OK) {
      d->kind = TILEC_DEVICE_CUDA;
    } else if (kind == TILEC_DEVICE_CUDA) {
      tell(message, "no CUDA device%s: %s", from_env ? " (TILEC_DEVICE=cuda)" : "", err);
      pthread_mutex_destroy(&d->lock);
      free(d);
      return TILEC_ERROR_UNSUPPORTED;
    }
  }
  if (!d->cuda) d->kind = TILEC_DEVICE_CPU;
  *out = d;
  return TILEC_OK;
}

void tilec_device_destroy(tilec_device *d) {
  if (!d) return;
  for (int i = 0; i < d->nallocs; i++) free(d->allocs[i].data);
  free(d->allocs);
  tilec_cuda_close(d->cuda);
  pthread_mutex_destroy(&d->lock);
  free(d);
}

tilec_device_kind tilec_device_kind_of(const tilec_device *d) { return d ? d->kind : TILEC_DEVICE_AUTO; }

tilec_status tilec_device_alloc(tilec_device *d, size_t bytes, unsigned long long *address) {
  if (!d || !address) return TILEC_ERROR_USAGE;
  if (d->cuda) {
    uint64_t p;
    if (tilec_cuda_alloc(d->cuda, bytes, &p, NULL, 0) != TILEC_RT_OK) return TILEC_ERROR_UNSUPPORTED;
    *address = p;
    return TILEC_OK;
  }
  void *p = aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
  if (!p) return TILEC_ERROR_USAGE;
  pthread_mutex_lock(&d->lock);
  if (d->nallocs == d->cap) {
    int cap = d->cap ? 2 * d->cap : 16;
    Alloc *grown = realloc(d->allocs, (size_t)cap * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&d->lock);
      free(p);
      return TILEC_ERROR_USAGE;
    }
    d->allocs = grown, d->cap = cap;
  }
  d->allocs[d->nallocs++] = (Alloc){p, bytes};
  pthread_mutex_unlock(&d->lock);
  *address = (uintptr_t)p;
  return TILEC_OK;
}

/* The CPU allocation holding [address, address + bytes), or -1. */
static int find_alloc(tilec_device *d, unsigned long long address, size_t bytes) {
  for (int i = 0; i < d->nallocs; i++) {
    uintptr_t b = (uintptr_t)d->allocs[i].data;
    if (address >= b && address + bytes <= b + d->allocs[i].bytes) return i;
  }
  return -1;
}

tilec_status tilec_device_free(tilec_device *d, unsigned long long address) {
  if (!d) return TILEC_ERROR_USAGE;
  if (d->cuda) return tilec_cuda_free(d->cuda, address) == TILEC_RT_OK ? TILEC_OK : TILEC_ERROR_USAGE;
  pthread_mutex_lock(&d->lock);
  int i = find_alloc(d, address, 0);
  bool ok = i >= 0 && (uintptr_t)d->allocs[i].data == address;
  if (ok) {
    free(d->allocs[i].data);
    d->allocs[i] = d->allocs[--d->nallocs];
  }
  pthread_mutex_unlock(&d->lock);
  return ok ? TILEC_OK : TILEC_ERROR_USAGE;
}

static tilec_status copy(tilec_device *d, unsigned long long dev, void *host, size_t bytes, bool to_device) {
  if (!d || (!host && bytes)) return TILEC_ERROR_USAGE;
  if (d->cuda) {
    tilec_rt_status st = to_device ? tilec_cuda_copy_to(d->cuda, dev, host, bytes, NULL, 0)
                                   : tilec_cuda_copy_from(d->cuda, host, dev, bytes, NULL, 0);
    return st == TILEC_RT_OK ? TILEC_OK : TILEC_ERROR_USAGE;
  }
  pthread_mutex_lock(&d->lock);
  bool ok = find_alloc(d, dev, bytes) >= 0;
  pthread_mutex_unlock(&d->lock);
  if (!ok) return TILEC_ERROR_USAGE;
  if (bytes) memcpy(to_device ? (void *)(uintptr_t)dev : host, to_device ? host : (void *)(uintptr_t)dev, bytes);
  return TILEC_OK;
}

tilec_status tilec_device_copy_to(tilec_device *d, unsigned long long dst, const void *src, size_t bytes) {
  return copy(d, dst, (void *)(uintptr_t)src, bytes, true);
}

tilec_status tilec_device_copy_from(tilec_device *d, void *dst, unsigned long long src, size_t bytes) {
  return copy(d, src, dst, bytes, false);
}

/* ---- kernels ------------------------------------------------------------------------------ */

typedef enum { P_PTR, P_INT, P_INT64, P_FLOAT, P_OTHER } ParamKind;

typedef struct Spec {
  uint64_t key;
  EmuKernel *emu;
  tilec_cuda_module *cuda;
} Spec;

struct tilec_kernel {
  tilec_device *dev;
  char *filename, *source, *name;
  size_t length;
  tilec_jit_options opt;
  char **defines;
  char **entries; /* the signature's entries */
  int nentries;
  int runtime_entry[MAX_PARAMS]; /* runtime parameter i is entries[runtime_entry[i]] */
  ParamKind kind[MAX_PARAMS];
  int nparams, num_warps;
  size_t shared_bytes;
  tilec_context *ctx; /* made when something must be compiled */
  char *warnings;     /* what the cache had to say */
  pthread_mutex_t lock;
  Spec specs[MAX_SPECIALIZATIONS];
  _Atomic int nspecs;
};

static bool is_type_entry(const char *e) {
  static const char *const types[] = {"i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
                                      "fp16", "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5", NULL};
  if (*e == '*') return true;
  for (int i = 0; types[i]; i++)
    if (!strcmp(e, types[i])) return true;
  return false;
}

/* Pointers and 32- and 64-bit integers specialize (as in Triton); the
 * other scalars are passed as they are. */
static ParamKind kind_of(const char *e) {
  if (*e == '*') return P_PTR;
  if (!strcmp(e, "i64") || !strcmp(e, "u64")) return P_INT64;
  if (!strcmp(e, "i32") || !strcmp(e, "u32")) return P_INT;
  if (!strncmp(e, "fp", 2) || !strcmp(e, "bf16")) return P_FLOAT;
  return P_OTHER;
}

/* Splits the signature into trimmed entries; false when a runtime entry
 * already has a hint (the JIT adds them). */
static bool split_signature(tilec_kernel *k, const char *sig, char **why) {
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
    memcpy(entry, p, (size_t)(end - p));
    entry[end - p] = 0;
    char **grown = realloc(k->entries, (size_t)(k->nentries + 1) * sizeof *grown);
    k->entries = grown;
    k->entries[k->nentries++] = entry;
    if (strchr(entry, ':') && entry[0] != '\'' && entry[0] != '"') {
      tell(why, "the JIT adds the hints: write '%.*s' without ':%s'", (int)(strchr(entry, ':') - entry), entry,
           strchr(entry, ':') + 1);
      return false;
    }
    if (is_type_entry(entry)) {
      if (k->nparams == MAX_PARAMS) {
        tell(why, "more than %d runtime parameters", MAX_PARAMS);
        return false;
      }
      k->runtime_entry[k->nparams] = k->nentries - 1;
      k->kind[k->nparams++] = kind_of(entry);
    }
    p = *e ? e + 1 : e;
  }
  return true;
}

/* The hints of the arguments: two bits per runtime parameter. */
static uint64_t hints_of(const tilec_kernel *k, void **args) {
  uint64_t key = 0;
  for (int i = 0; i < k->nparams && i < 32; i++) {
    uint64_t h = 0;
    if (k->kind[i] == P_PTR) {
      unsigned long long a;
      memcpy(&a, args[i], sizeof a);
      h = a % 16 == 0;
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

/* The signature a key spells. */
static char *signature_for(const tilec_kernel *k, uint64_t key) {
  size_t n = 1;
  for (int i = 0; i < k->nentries; i++) n += strlen(k->entries[i]) + 6;
  char *s = malloc(n), *at = s;
  for (int e = 0; e < k->nentries; e++) {
    at += sprintf(at, "%s%s", e ? ", " : "", k->entries[e]);
    for (int i = 0; i < k->nparams; i++)
      if (k->runtime_entry[i] == e) {
        unsigned h = (unsigned)(key >> (2 * i)) & 3;
        at += sprintf(at, "%s", h == 1 ? ":16" : h == 2 ? ":1" : "");
      }
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

/* The cache key of a compilation: everything its output depends on. */
static void cache_key(const tilec_kernel *k, const tilec_compile_options *o, char hex[65]) {
  CacheHash h;
  cache_hash_init(&h);
  cache_hash_str(&h, "tilec kernel");
  cache_hash_str(&h, tilec_version());
  char num[64];
  snprintf(num, sizeof num, "%d %d %d %d", (int)o->emit, o->num_warps, o->num_stages, o->num_defines);
  cache_hash_str(&h, num);
  cache_hash_str(&h, o->arch ? o->arch : "");
  /* the CPU's entries hold the emulator's object code, not the compiler's output */
  cache_hash_str(&h, o->emit == TILEC_EMIT_CPU ? "host object" : "compiler output");
  cache_hash_str(&h, k->filename);
  cache_hash_str(&h, o->kernel ? o->kernel : "");
  cache_hash_str(&h, o->signature);
  for (int i = 0; i < o->num_defines; i++) cache_hash_str(&h, o->defines[i]);
  cache_hash_update(&h, k->source, k->length);
  cache_hash_final(&h, hex);
}

static tilec_status compile_spec(tilec_kernel *k, uint64_t key, Spec *out, char **why) {
  char *sig = signature_for(k, key);
  tilec_compile_options o = {
      .kernel = k->opt.kernel,
      .signature = sig,
      .defines = (const char *const *)k->defines,
      .num_defines = k->opt.num_defines,
      .num_warps = k->opt.num_warps,
      .num_stages = k->opt.num_stages,
      .emit = k->dev->cuda ? TILEC_EMIT_PTX : TILEC_EMIT_CPU,
      .context = k->ctx,
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
  const char *meta = NULL, *text = NULL;
  bool cached = false;
  tilec_status st = TILEC_OK;
  for (int e = 0; e < nemits && !meta; e++) {
    o.emit = emits[e];
    if (dir) {
      cache_key(k, &o, hex);
      if (cache_get(dir, hex, &blob, &blen, w8, sizeof w8) == 1) {
        const char *nul = memchr(blob, 0, blen);
        if (nul && blen >= (size_t)(nul - (const char *)blob) + 2 && ((const char *)blob)[blen - 1] == 0) {
          meta = blob, text = nul + 1, len = blen - (size_t)(text - (const char *)blob) - 1;
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
    meta = tilec_result_metadata(r);
    text = tilec_result_output(r, &len);
    if (dir && k->dev->cuda) {
      size_t ml = strlen(meta);
      char *payload = malloc(ml + len + 2);
      if (payload) {
        memcpy(payload, meta, ml + 1);
        memcpy(payload + ml + 1, text, len);
        payload[ml + 1 + len] = 0;
        cache_put(dir, hex, payload, ml + len + 2, w8, sizeof w8);
        warn(k, w8);
        free(payload);
      }
    }
  }
  if (!meta) {
    if (why) *why = dup_text(r ? tilec_result_diagnostics(r) : "the compiler could not start");
    tilec_result_destroy(r);
    free(sig);
    return st != TILEC_OK ? st : TILEC_ERROR_COMPILE;
  }
  free(sig);
  /* what the launch needs from the metadata: the entry, warps, shared memory */
  const char *w = strstr(meta, "\"num_warps\": "), *sm = strstr(meta, "\"shared_bytes\": ");
  const char *nm = strstr(meta, "\"name\": \"");
  if (!k->name && nm) {
    const char *e = strchr(nm + 9, '"');
    k->name = malloc((size_t)(e - nm - 9) + 1);
    memcpy(k->name, nm + 9, (size_t)(e - nm - 9));
    k->name[e - nm - 9] = 0;
  }
  k->num_warps = w ? atoi(w + 13) : 4;
  k->shared_bytes = sm ? (size_t)strtoull(sm + 16, NULL, 10) : 0;
  *out = (Spec){.key = key};
  if (k->dev->cuda) {
    char log[4096] = "";
    if (tilec_cuda_module_load(k->dev->cuda, text, len + 1, k->name, k->num_warps, k->shared_bytes, &out->cuda, log,
                               sizeof log) != TILEC_RT_OK) {
      tell(why, "%s", log);
      st = TILEC_ERROR_UNSUPPORTED;
    }
  } else {
    /* the cache holds a byte saying whether the kernel needs fibers, then
     * the object code; a miss compiles the host IR and keeps its object */
    char *err = NULL;
    out->emu = cached && len >= 1 ? emu_load_object(text + 1, len - 1, k->name, text[0] == 1, &err)
                                  : emu_load(text, len, k->name, &err);
    if (!out->emu) {
      tell(why, "%s", err ? err : "the emulator cannot load the kernel");
      free(err);
      st = TILEC_ERROR_UNSUPPORTED;
    } else if (dir && !cached) {
      size_t olen, ml = strlen(meta);
      const void *obj = emu_object(out->emu, &olen);
      char *payload = obj ? malloc(ml + olen + 3) : NULL;
      if (payload) {
        memcpy(payload, meta, ml + 1);
        payload[ml + 1] = emu_uses_fibers(out->emu) ? 1 : 0;
        memcpy(payload + ml + 2, obj, olen);
        payload[ml + 2 + olen] = 0;
        cache_put(dir, hex, payload, ml + olen + 3, w8, sizeof w8);
        warn(k, w8);
        free(payload);
      }
    }
  }
  tilec_result_destroy(r);
  free(blob);
  return st;
}

void tilec_kernel_destroy(tilec_kernel *k) {
  if (!k) return;
  for (int i = 0; i < k->nspecs; i++) {
    emu_unload(k->specs[i].emu);
    tilec_cuda_module_unload(k->specs[i].cuda);
  }
  for (int i = 0; i < k->nentries; i++) free(k->entries[i]);
  for (int i = 0; i < k->opt.num_defines; i++) free(k->defines[i]);
  free(k->entries);
  free(k->defines);
  free(k->filename);
  free(k->source);
  free(k->name);
  free(k->warnings);
  free((char *)k->opt.kernel);
  free((char *)k->opt.cache_dir);
  tilec_context_destroy(k->ctx);
  pthread_mutex_destroy(&k->lock);
  free(k);
}

tilec_status tilec_kernel_create(tilec_device *d, const char *filename, const char *source, size_t length,
                                 const tilec_jit_options *options, tilec_kernel **out, char **diagnostics) {
  if (diagnostics) *diagnostics = NULL;
  if (!out) return TILEC_ERROR_USAGE;
  *out = NULL;
  if (!d || !source || !options || !options->signature) {
    tell(diagnostics, "tilec_kernel_create needs a device, a source and options with a signature");
    return TILEC_ERROR_USAGE;
  }
  tilec_kernel *k = calloc(1, sizeof *k);
  if (!k) return TILEC_ERROR_USAGE;
  pthread_mutex_init(&k->lock, NULL);
  k->dev = d;
  k->opt = *options;
  k->opt.kernel = options->kernel ? dup_text(options->kernel) : NULL;
  k->opt.cache_dir = options->cache_dir ? dup_text(options->cache_dir) : NULL;
  k->filename = dup_text(filename ? filename : "<source>");
  k->source = malloc(length + 1);
  memcpy(k->source, source, length);
  k->source[length] = 0;
  k->length = length;
  k->defines = calloc((size_t)options->num_defines + 1, sizeof *k->defines);
  for (int i = 0; i < options->num_defines; i++) k->defines[i] = dup_text(options->defines[i]);
  tilec_status st = TILEC_OK;
  if (!split_signature(k, options->signature, diagnostics)) st = TILEC_ERROR_USAGE;
  if (st == TILEC_OK) st = compile_spec(k, 0, &k->specs[0], diagnostics);
  if (st != TILEC_OK) {
    tilec_kernel_destroy(k);
    return st;
  }
  k->nspecs = 1;
  *out = k;
  return TILEC_OK;
}

int tilec_kernel_specializations(const tilec_kernel *k) { return k ? k->nspecs : 0; }

const char *tilec_kernel_warnings(const tilec_kernel *k) { return k && k->warnings ? k->warnings : ""; }

/* The specialization of a key: found without locking when it is there
 * (entries are written before the count that publishes them). */
static Spec *spec_for(tilec_kernel *k, uint64_t key, char **report, tilec_status *st) {
  int n = k->nspecs;
  for (int i = 0; i < n; i++)
    if (k->specs[i].key == key) return &k->specs[i];
  pthread_mutex_lock(&k->lock);
  Spec *s = NULL;
  for (int i = 0; i < k->nspecs && !s; i++)
    if (k->specs[i].key == key) s = &k->specs[i];
  if (!s && k->nspecs == MAX_SPECIALIZATIONS) {
    /* the table is full: the unspecialized kernel serves every launch */
    s = &k->specs[0];
  } else if (!s) {
    *st = compile_spec(k, key, &k->specs[k->nspecs], report);
    if (*st == TILEC_OK) s = &k->specs[k->nspecs++];
  }
  pthread_mutex_unlock(&k->lock);
  return s;
}

tilec_status tilec_kernel_launch(tilec_kernel *k, const unsigned grid[3], void **args, int nargs, void *stream,
                                 char **report) {
  if (report) *report = NULL;
  if (!k || !grid || (!args && nargs)) return TILEC_ERROR_USAGE;
  if (nargs != k->nparams) {
    tell(report, "%s takes %d runtime arguments, got %d", k->name ? k->name : "the kernel", k->nparams, nargs);
    return TILEC_ERROR_USAGE;
  }
  if (!grid[0] || !grid[1] || !grid[2]) {
    tell(report, "every grid dimension must be at least 1, got (%u, %u, %u)", grid[0], grid[1], grid[2]);
    return TILEC_ERROR_USAGE;
  }
  tilec_status st = TILEC_OK;
  Spec *s = spec_for(k, hints_of(k, args), report, &st);
  if (!s) return st;
  if (s->cuda) {
    char err[512];
    if (tilec_cuda_launch(s->cuda, grid, args, stream, err, sizeof err) != TILEC_RT_OK) {
      tell(report, "%s", err);
      return TILEC_ERROR_UNSUPPORTED;
    }
    return TILEC_OK;
  }
  /* the CPU: the device's allocations are the memory the kernel may touch */
  tilec_device *d = k->dev;
  pthread_mutex_lock(&d->lock);
  EmuBuffer *bufs = malloc((size_t)(d->nallocs + 1) * sizeof *bufs);
  for (int i = 0; bufs && i < d->nallocs; i++) bufs[i] = (EmuBuffer){d->allocs[i].data, d->allocs[i].bytes, "an allocation"};
  int nbufs = d->nallocs;
  pthread_mutex_unlock(&d->lock);
  if (!bufs) return TILEC_ERROR_USAGE;
  EmuLaunch l = {.grid = {grid[0], grid[1], grid[2]}, .num_warps = k->num_warps, .args = args, .nargs = nargs,
                 .buffers = bufs, .nbuffers = nbufs};
  char *rep = NULL;
  bool ok = emu_launch(s->emu, &l, &rep);
  free(bufs);
  if (!ok) {
    if (report) *report = rep;
    else free(rep);
    return TILEC_ERROR_COMPILE;
  }
  free(rep);
  return TILEC_OK;
}

tilec_status tilec_kernel_launchv(tilec_kernel *k, const unsigned grid[3], void *stream, char **report, ...) {
  if (report) *report = NULL;
  if (!k) return TILEC_ERROR_USAGE;
  union {
    unsigned long long p;
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
    const char *t = k->entries[k->runtime_entry[i]];
    switch (k->kind[i]) {
    case P_PTR: vals[i].p = va_arg(ap, unsigned long long); break;
    case P_INT: vals[i].i = (int32_t)va_arg(ap, int); break;
    case P_INT64: vals[i].l = va_arg(ap, long long); break;
    case P_OTHER: vals[i].i = (int32_t)va_arg(ap, int); break; /* i1, i8, i16, u8, u16: the low bytes */
    default:
      if (!strcmp(t, "fp64")) vals[i].d = va_arg(ap, double);
      else if (!strcmp(t, "fp32")) vals[i].f = (float)va_arg(ap, double);
      else {
        va_end(ap);
        tell(report, "tilec_kernel_launchv cannot pass a %s argument; use tilec_kernel_launch", t);
        return TILEC_ERROR_USAGE;
      }
    }
    args[i] = &vals[i];
  }
  va_end(ap);
  return tilec_kernel_launch(k, grid, args, k->nparams, stream, report);
}
