/*
 * kernel.c — a JIT-compiled kernel's creation and destruction (tilec.h).
 * The signature is split into its entries, and those that are types are
 * the runtime parameters, in any spelling support/dtype.h knows; the
 * kernel is compiled once without hints, which checks the source and the
 * signature, and that compilation's metadata gives what every launch then
 * reads: each parameter's dtype and how it specializes, the autotune key,
 * the buffers tuning resets or restores, and the grid expression, parsed
 * once over the parameters and constexprs.
 */
#include "jit.h"
#include "tuning.h"

#include "ir/target.h"
#include "support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether a signature entry is a runtime parameter: a pointer, or a type
 * in any of its spellings ("i32", "int32"); the rest are constexprs. */
static bool is_type_entry(const char *e) {
  DType t;
  return *e == '*' || dtype_parse(e, &t);
}

static bool is_desc_entry(const char *e) { return !strncmp(e, "tensordesc", 10); }

bool is_desc_param(const tilec_kernel *k, int i) { return is_desc_entry(k->entries[k->runtime_entry[i]]); }

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
      return jit_no_memory(why, "tilec_kernel_create");
    }
    memcpy(entry, p, (size_t)(end - p));
    entry[end - p] = 0;
    k->entries = grown;
    k->entries[k->nentries++] = entry;
    if (strchr(entry, ':') && entry[0] != '\'' && entry[0] != '"') {
      jit_tell(why, "the JIT adds the hints: write '%.*s' without ':%s'", (int)(strchr(entry, ':') - entry), entry,
               strchr(entry, ':') + 1);
      return TILEC_ERROR_USAGE;
    }
    if (is_type_entry(entry)) {
      if (k->nparams == MAX_PARAMS) {
        jit_tell(why, "more than %d runtime parameters", MAX_PARAMS);
        return TILEC_ERROR_UNSUPPORTED;
      }
      k->runtime_entry[k->nparams++] = k->nentries - 1;
    }
    p = *e ? e + 1 : e;
  }
  return TILEC_OK;
}

bool jit_arg_value(const tilec_kernel *k, void **args, int i, int64_t *v) {
  return k->kind[i] != P_PTR && tune_scalar_value(k->dtype[i], args[i], v);
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
  pthread_mutex_destroy(&k->warn_lock);
  free(k);
}

/* The runtime parameters, from the first compilation's metadata: which
 * signature entries they are (an entry that reads as a type may also be a
 * dtype given to a tl.constexpr; a tensor descriptor's entry is several:
 * its base pointer, then its shape and strides as i64), and their types as
 * the compiler read them: every spelling of a type is one dtype there. A
 * descriptor's parameters get no hints: the kernel reads its bounds from
 * them, whatever they divide. */
static tilec_status take_params(tilec_kernel *k, const KernelMeta *m, char **why) {
  if (m->nparams > MAX_PARAMS) {
    jit_tell(why, "more than %d runtime parameters", MAX_PARAMS);
    return TILEC_ERROR_UNSUPPORTED;
  }
  for (int i = 0; i < m->nparams; i++)
    if (m->params[i].entry < 0 || m->params[i].entry >= k->nentries || (i && m->params[i].entry < m->params[i - 1].entry) ||
        (i && m->params[i].entry == m->params[i - 1].entry && !is_desc_entry(k->entries[m->params[i].entry]))) {
      jit_tell(why, "%s: the metadata's parameter '%s' is no entry of the signature", k->name, m->params[i].name);
      return TILEC_ERROR_UNSUPPORTED;
    }
  k->nparams = m->nparams;
  for (int i = 0; i < m->nparams; i++) k->runtime_entry[i] = m->params[i].entry;
  for (int i = 0; i < m->nparams; i++) {
    bool is_ptr;
    if (!dtype_parse_param(m->params[i].type, &k->dtype[i], &is_ptr)) {
      jit_tell(why, "%s: the JIT cannot pass parameter '%s' of type %s", k->name, m->params[i].name, m->params[i].type);
      return TILEC_ERROR_UNSUPPORTED;
    }
    k->kind[i] = kind_of(k->dtype[i], is_ptr);
    k->no_specialize[i] = m->params[i].no_specialize || is_desc_entry(k->entries[m->params[i].entry]);
    k->divisibility[i] = k->no_specialize[i] ? m->params[i].divisibility : 0;
  }
  return TILEC_OK;
}

/* From the first compilation's metadata: the autotune key's parameters,
 * and the grid expression, parsed over the parameters and constexprs. */
static tilec_status read_kernel(tilec_kernel *k, const KernelMeta *m, char **why) {
  k->nconfigs = m->nconfigs;
  k->tune_warmup_ms = m->warmup_ms;
  k->tune_rep_ms = m->rep_ms;
  for (int i = 0; i < m->nkeys; i++) {
    int p = 0;
    while (p < m->nparams && strcmp(m->params[p].name, m->keys[i])) p++;
    if (p == m->nparams || k->kind[p] == P_PTR) continue; /* a constexpr or a pointer: the same in every launch */
    if (k->nkeys == MAX_KEYS) {
      jit_tell(why, "%s: more than %d autotune keys", k->name, MAX_KEYS);
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
        jit_tell(why, "%s: autotune %s names '%s', which is not a pointer parameter", k->name, l ? "restore_value" : "reset_to_zero",
                 names[i]);
        return TILEC_ERROR_USAGE;
      }
      if (*count == MAX_KEYS) {
        jit_tell(why, "%s: more than %d autotune %s entries", k->name, MAX_KEYS, l ? "restore_value" : "reset_to_zero");
        return TILEC_ERROR_UNSUPPORTED;
      }
      to[(*count)++] = p;
    }
  }
  if (!k->opt.grid) return TILEC_OK;
  if (m->nparams + k->nconsts > MAX_GRID_NAMES) {
    jit_tell(why, "grid '%s': %s has more than %d parameters and constexprs", k->opt.grid, k->name, MAX_GRID_NAMES);
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
  if (!k->grid) return jit_no_memory(why, "tilec_kernel_create");
  if (!grid_parse(k->grid, k->opt.grid, names, n, &e)) {
    jit_tell(why, "grid '%s': %s (at byte %zu)", k->opt.grid, e.msg, e.pos);
    return TILEC_ERROR_USAGE;
  }
  return TILEC_OK;
}

tilec_status tilec_kernel_create(tilec_device *d, const char *filename, const char *source, size_t length,
                                 const tilec_jit_options *options, tilec_kernel **out, char **message) {
  if (message) *message = NULL;
  if (!out) {
    jit_tell(message, "tilec_kernel_create: out is NULL");
    return TILEC_ERROR_USAGE;
  }
  *out = NULL;
  if (!d || !source || !options || !options->signature) {
    jit_tell(message, "tilec_kernel_create needs a device, a source and options with a signature");
    return TILEC_ERROR_USAGE;
  }
  if (!jit_array_given(message, "tilec_kernel_create", "defines", "num_defines", (const void *const *)options->defines,
                       options->num_defines) ||
      !jit_array_given(message, "tilec_kernel_create", "include_dirs", "num_include_dirs",
                       (const void *const *)options->include_dirs, options->num_include_dirs))
    return TILEC_ERROR_USAGE;
  if (length > TILEC_MAX_SOURCE_BYTES) {
    jit_tell(message, "tilec_kernel_create: %s is %zu bytes; tilec compiles sources of at most %zu MiB",
             filename ? filename : "the source", length, TILEC_MAX_SOURCE_BYTES >> 20);
    return TILEC_ERROR_UNSUPPORTED;
  }
  if (options->num_warps && !num_warps_valid(options->num_warps)) {
    jit_tell(message, "tilec_kernel_create: num_warps is %d; it must be 0 (the config's, else 4) or a power of 2 from 1 "
                      "to 32", options->num_warps);
    return TILEC_ERROR_USAGE;
  }
  if (options->num_stages < 0) {
    jit_tell(message, "tilec_kernel_create: num_stages is %d; it must be 0 (the config's, else 3) or more",
             options->num_stages);
    return TILEC_ERROR_USAGE;
  }
  if (options->config < TILEC_CONFIG_TUNE) {
    jit_tell(message, "config %d: a config is numbered from 0, or is TILEC_CONFIG_TUNE", options->config);
    return TILEC_ERROR_USAGE;
  }
  /* the CPU device's arch: the option's, else $TILEC_ARCH's (a whole
   * program's, Python's included, run on the emulator as code for it) */
  const char *arch = options->arch ? options->arch : !d->cuda ? getenv("TILEC_ARCH") : NULL;
  if (arch && !*arch) arch = NULL;
  const Target *target = arch ? target_find(arch) : NULL;
  if (arch && !target) {
    jit_tell(message, "tilec_kernel_create: arch '%.40s'%s is not a target tilec knows (sm_80, sm_86, sm_89, sm_90, sm_90a)", arch,
             options->arch ? "" : " (from TILEC_ARCH)");
    return TILEC_ERROR_USAGE;
  }
  const Target *gpu = d->cuda ? target_find(tilec_cuda_target(d->cuda)) : NULL;
  if (target && d->cuda && (!gpu || target->sm != gpu->sm || (target->wgmma && !gpu->wgmma))) {
    jit_tell(message, "tilec_kernel_create: arch %s is not this GPU's (%s); a GPU runs code for its own arch", target->name,
             tilec_cuda_target(d->cuda));
    return TILEC_ERROR_USAGE;
  }
  tilec_kernel *k = calloc(1, sizeof *k);
  if (!k) return jit_no_memory(message, "tilec_kernel_create");
  pthread_mutex_init(&k->lock, NULL);
  pthread_mutex_init(&k->tune_lock, NULL);
  pthread_mutex_init(&k->warn_lock, NULL);
  k->dev = d;
  k->opt = *options;
  k->opt.kernel = options->kernel ? jit_dup_text(options->kernel) : NULL;
  k->opt.cache_dir = options->cache_dir ? jit_dup_text(options->cache_dir) : NULL;
  k->opt.grid = options->grid ? jit_dup_text(options->grid) : NULL;
  k->opt.arch = target ? target->name : NULL; /* the table's own string */
  k->filename = jit_dup_text(filename ? filename : "<source>");
  k->source = length < SIZE_MAX ? malloc(length + 1) : NULL;
  k->length = length;
  k->defines = calloc((size_t)options->num_defines + 1, sizeof *k->defines);
  k->includes = calloc((size_t)options->num_include_dirs + 1, sizeof *k->includes);
  bool copied = (k->opt.kernel || !options->kernel) && (k->opt.cache_dir || !options->cache_dir) &&
                (k->opt.grid || !options->grid) && k->filename && k->source && k->defines && k->includes;
  for (int i = 0; copied && i < options->num_defines; i++) copied = (k->defines[i] = jit_dup_text(options->defines[i]));
  for (int i = 0; copied && i < options->num_include_dirs; i++)
    copied = (k->includes[i] = jit_dup_text(options->include_dirs[i]));
  if (!copied) {
    tilec_kernel_destroy(k);
    return jit_no_memory(message, "tilec_kernel_create");
  }
  memcpy(k->source, source, length);
  k->source[length] = 0;
  KernelMeta m = {0};
  tilec_status st = split_signature(k, options->signature, message);
  if (st == TILEC_OK) st = jit_compile_spec(k, 0, options->config > 0 ? options->config : 0, &k->specs[0], &m, message);
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
