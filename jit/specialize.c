/*
 * specialize.c — a kernel's specializations: the signature the hints of a
 * launch spell ("*fp32:16", "i32:1", None for a null pointer), compiled or
 * found in the disk cache (runtime/cache.h), loaded on the device, and kept
 * in the kernel's table, which a launch reads without locking.
 *
 * A cache entry's key is everything its output depends on, the identity of
 * the process that compiles it included (jit.h); an entry holds the files
 * the compilation read beside its source, with their hashes, so that a
 * change to an imported module is a miss, then the metadata and the
 * output: the cubin or PTX for CUDA, the emulator's object code for the CPU.
 */
#include "jit.h"

#include "runtime/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

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

void jit_warn(tilec_kernel *k, const char *w) {
  if (!w || !*w) return;
  pthread_mutex_lock(&k->warn_lock);
  size_t old = k->warnings ? strlen(k->warnings) : 0, n = strlen(w);
  char *grown = realloc(k->warnings, old + n + 2);
  if (grown) {
    memcpy(grown + old, w, n);
    grown[old + n] = '\n';
    grown[old + n + 1] = 0;
    k->warnings = grown;
  }
  pthread_mutex_unlock(&k->warn_lock);
}

const char *jit_cache_dir(const tilec_kernel *k, char *buf, size_t n) {
  return k->opt.no_disk_cache ? NULL : k->opt.cache_dir ? k->opt.cache_dir : cache_default_dir(buf, n);
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
  return jit_dup_text(hash_file(path, hex) ? hex : "");
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
  own = (JitIdentity){.build = tilec_build_id(), .llvm = jit_dup_text(v), .host = host ? host : "?",
                      .toolkit = *home ? file_digest(path) : jit_dup_text("")};
  if (!own.llvm) own.llvm = "?";
  if (!own.toolkit) own.toolkit = "?";
}

const JitIdentity *jit_identity(void) {
  pthread_once(&own_once, find_own);
  return &own;
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
  snprintf(num, sizeof num, "%d %d %d %d %d %d", (int)o->emit, o->num_warps, o->num_stages, o->num_defines, o->config,
           tilec_fp_fusion_enabled(o->fp_fusion));
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
                      const void *data, size_t len) {
  const char *rec = tilec_result_dependencies(r);
  size_t rl = strlen(rec) + 1, ml = strlen(meta) + 1;
  char *payload = malloc(rl + ml + len + 1);
  if (!payload) return;
  memcpy(payload, rec, rl);
  memcpy(payload + rl, meta, ml);
  memcpy(payload + rl + ml, data, len);
  payload[rl + ml + len] = 0;
  char w8[512] = "";
  cache_put(dir, hex, payload, rl + ml + len + 1, w8, sizeof w8);
  jit_warn(k, w8);
  free(payload);
}

/* What the launches of a specialization need from its metadata: warps,
 * shared memory, the values of the grid's constexprs. The first
 * compilation (the kernel's creation) also fixes the entry's name and which
 * constexprs a grid may name. */
static tilec_status take_metadata(tilec_kernel *k, const KernelMeta *m, Spec *out, char **why) {
  if (!k->name) k->name = jit_dup_text(m->name);
  if (!k->const_names && m->nconsts) {
    k->const_names = calloc((size_t)m->nconsts, sizeof *k->const_names);
    for (int i = 0; k->const_names && i < m->nconsts; i++)
      if (!(k->const_names[k->nconsts++] = jit_dup_text(m->consts[i].name))) return jit_no_memory(why, "the kernel's metadata");
  }
  out->num_warps = m->num_warps;
  out->shared_bytes = (size_t)m->shared_bytes;
  /* the config's pre_hook: pointer parameters zeroed, then copied, before each launch */
  for (int i = 0; i < m->npre_zero + m->npre_copy; i++) {
    bool zero = i < m->npre_zero;
    const char *name = zero ? m->pre_zero[i] : m->pre_copy[i - m->npre_zero];
    int p = 0, *n = zero ? &out->nzero : &out->ncopy;
    while (p < m->nparams && strcmp(m->params[p].name, name)) p++;
    if (p == m->nparams || m->params[p].type[0] != '*') {
      jit_tell(why, "%s: the pre_hook of config %d %s '%s', which is not a pointer parameter", m->name, out->config,
               zero ? "zeroes" : "copies", name);
      return TILEC_ERROR_USAGE;
    }
    if (*n == MAX_KEYS) {
      jit_tell(why, "%s: the pre_hook of config %d names more than %d buffers", m->name, out->config, MAX_KEYS);
      return TILEC_ERROR_UNSUPPORTED;
    }
    (zero ? out->zero_param : out->copy_param)[(*n)++] = p;
  }
  /* the tensor maps: the base's element type is the map's */
  if (m->nmaps > MAX_MAPS) {
    jit_tell(why, "%s takes %d tensor maps; the JIT supports %d", m->name, m->nmaps, MAX_MAPS);
    return TILEC_ERROR_UNSUPPORTED;
  }
  for (int i = 0; i < m->nmaps; i++) {
    DType t;
    bool is_ptr;
    int type = -1;
    if (dtype_parse_param(m->params[m->maps[i].param].type, &t, &is_ptr)) type = jit_tensor_map_type(t);
    if (type < 0) {
      jit_tell(why, "%s: tensor map %d is of %s, which TMA does not copy", m->name, i, m->params[m->maps[i].param].type);
      return TILEC_ERROR_UNSUPPORTED;
    }
    out->maps[i] = m->maps[i];
    out->map_type[i] = type;
  }
  out->nmaps = m->nmaps;
  out->consts = calloc((size_t)k->nconsts + 1, sizeof *out->consts);
  if (!k->name || !out->consts || (m->nconsts && !k->const_names)) return jit_no_memory(why, "the kernel's metadata");
  for (int i = 0; i < k->nconsts; i++) {
    int j = 0;
    while (j < m->nconsts && strcmp(m->consts[j].name, k->const_names[i])) j++;
    if (j == m->nconsts) {
      jit_tell(why, "config %d of %s has no constexpr '%s'", out->config, k->name, k->const_names[i]);
      return TILEC_ERROR_USAGE;
    }
    out->consts[i] = m->consts[j].value;
  }
  return TILEC_OK;
}

/* The options of a specialization's compile; sig is signature_for's. */
static tilec_compile_options spec_options(const tilec_kernel *k, const char *sig, int config) {
  tilec_compile_options o = {
      .kernel = k->opt.kernel,
      .signature = sig,
      .defines = (const char *const *)k->defines,
      .num_defines = k->opt.num_defines,
      .num_warps = k->opt.num_warps,
      .num_stages = k->opt.num_stages,
      .emit = k->dev->cuda ? TILEC_EMIT_PTX : TILEC_EMIT_CPU,
      .config = config,
      .include_dirs = (const char *const *)k->includes,
      .num_include_dirs = k->opt.num_include_dirs,
      .fp_fusion = k->opt.fp_fusion,
  };
  o.arch = k->opt.arch ? k->opt.arch : k->dev->cuda ? tilec_cuda_target(k->dev->cuda) : NULL;
  return o;
}

void jit_prefetch(tilec_kernel *k, uint64_t key, int config) {
  char dirbuf[1024], hex[65], w8[512];
  const char *dir = jit_cache_dir(k, dirbuf, sizeof dirbuf);
  char *sig = dir ? signature_for(k, key) : NULL;
  if (!sig) return;
  tilec_compile_options o = spec_options(k, sig, config);
  tilec_emit emits[2] = {TILEC_EMIT_CPU, TILEC_EMIT_CPU};
  int nemits = 1;
  if (k->dev->cuda) emits[0] = TILEC_EMIT_CUBIN, emits[1] = TILEC_EMIT_PTX, nemits = 2;
  tilec_context *ctx = NULL;
  bool done = false;
  for (int e = 0; e < nemits && !done; e++) {
    o.emit = emits[e];
    cache_key(k, &o, hex);
    void *blob = NULL;
    size_t blen = 0;
    if (cache_get(dir, hex, &blob, &blen, w8, sizeof w8) == 1) { /* its warnings are the launch's to give */
      free(blob);
      break;
    }
    if (!ctx && tilec_context_create(&ctx) != TILEC_OK) break;
    o.context = ctx;
    tilec_result *r = NULL;
    if (tilec_compile(k->filename, k->source, k->length, &o, &r) == TILEC_OK) {
      size_t len;
      const char *text = tilec_result_output(r, &len);
      put_entry(k, dir, hex, r, tilec_result_metadata(r), text, len);
      done = true;
    }
    tilec_result_destroy(r);
  }
  tilec_context_destroy(ctx);
  free(sig);
}

tilec_status jit_compile_spec(tilec_kernel *k, uint64_t key, int config, Spec *out, KernelMeta *meta, char **why) {
  char *sig = signature_for(k, key);
  if (!sig) return jit_no_memory(why, k->name ? k->name : "tilec_kernel_create");
  tilec_compile_options o = spec_options(k, sig, config);
  o.context = k->ctx;
  /* the disk cache holds the metadata and the output, each NUL-terminated.
   * On CUDA a cubin (nvJitLink) is tried first, so that the driver need not
   * compile PTX at load time; PTX when there is no toolkit. */
  char dirbuf[1024], hex[65], w8[512] = "";
  const char *dir = jit_cache_dir(k, dirbuf, sizeof dirbuf);
  tilec_emit emits[2] = {TILEC_EMIT_CPU, TILEC_EMIT_CPU};
  int nemits = 1;
  if (k->dev->cuda) emits[0] = TILEC_EMIT_CUBIN, emits[1] = TILEC_EMIT_PTX, nemits = 2;
  tilec_result *r = NULL;
  void *blob = NULL;
  size_t blen = 0, len = 0;
  const char *meta_json = NULL, *text = NULL;
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
          break;
        }
        free(blob), blob = NULL;
      }
      jit_warn(k, w8);
    }
    st = k->ctx ? TILEC_OK : tilec_context_create(&k->ctx);
    o.context = k->ctx;
    tilec_result_destroy(r);
    r = NULL;
    if (st == TILEC_OK) st = tilec_compile(k->filename, k->source, k->length, &o, &r);
    if (st != TILEC_OK) continue; /* the next kind, if any */
    meta_json = tilec_result_metadata(r);
    text = tilec_result_output(r, &len);
    if (dir) put_entry(k, dir, hex, r, meta_json, text, len);
  }
  free(sig);
  KernelMeta m = {0};
  char err[512] = "";
  bool oom = false;
  if (!meta_json) {
    if (why) *why = jit_dup_text(r ? tilec_result_diagnostics(r) : "the compiler could not start: out of memory");
    st = st != TILEC_OK ? st : TILEC_ERROR_COMPILE;
  } else if (!meta_parse(meta_json, &m, err, sizeof err, &oom)) {
    jit_tell(why, "the kernel's metadata cannot be read: %s", err);
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
    st = jit_from_rt(tilec_cuda_module_load(k->dev->cuda, text, len + 1, k->name, out->num_warps, out->shared_bytes,
                                            &out->cuda, why));
  } else {
    /* the host object, from the compiler or the cache */
    char *e = NULL;
    out->emu = emu_load_object(text, len, k->name, &e);
    if (!out->emu) {
      /* the emulator says nothing only when it ran out of memory */
      st = e ? TILEC_ERROR_UNSUPPORTED : TILEC_ERROR_NO_MEMORY;
      jit_tell(why, "%s", e ? e : "the emulator cannot load the kernel: out of memory");
      free(e);
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

/* The specialization of hints and a config: found without locking when it
 * is there (entries are written before the count that publishes them). */
Spec *jit_spec_for(tilec_kernel *k, uint64_t key, int config, char **report, tilec_status *st) {
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
      jit_tell(report, "%s: more than %d specializations", k->name, MAX_SPECIALIZATIONS);
      *st = TILEC_ERROR_UNSUPPORTED;
    }
  } else if (!s) {
    *st = jit_compile_spec(k, key, config, &k->specs[k->nspecs], NULL, report);
    if (*st == TILEC_OK) s = &k->specs[k->nspecs++];
  }
  pthread_mutex_unlock(&k->lock);
  return s;
}
