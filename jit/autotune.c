/*
 * autotune.c — @triton.autotune in the JIT: with TILEC_CONFIG_TUNE, the
 * first launch with a new key (the values of the parameters the
 * decorator's key names) times every config on the launch's own arguments,
 * as Triton's autotuner does, and the fastest is kept for the key. The
 * buffers reset_to_zero and restore_value name are saved first, zeroed or
 * restored before each run, and put back after, so that tuning leaves
 * them as the caller had them. With TILEC_PRINT_AUTOTUNING=1 (Triton's
 * variable), each tuning prints its table to standard error: every
 * config's time, or why it did not compile or run, and the one chosen.
 * The choice is kept on disk too (tuning.h), unless the kernel has
 * no_disk_cache or a pointer in its key, and a later process takes it
 * from there instead of tuning.
 */
#include "jit.h"
#include "tuning.h"

#include "support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The values of the key's parameters in these arguments. */
static void key_of(const tilec_kernel *k, void **args, int64_t key[MAX_KEYS]) {
  memset(key, 0, sizeof(int64_t) * MAX_KEYS);
  for (int i = 0; i < k->nkeys; i++)
    if (!jit_arg_value(k, args, k->key_param[i], &key[i])) memcpy(&key[i], args[k->key_param[i]], sizeof key[i]);
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

size_t jit_extent(tilec_device *d, tilec_devptr address) {
  size_t bytes = 0;
  if (d->cuda) return tilec_cuda_extent(d->cuda, address, &bytes, NULL) == TILEC_RT_OK ? bytes : 0;
  pthread_mutex_lock(&d->lock);
  int i = jit_find_alloc(d, address, 0);
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
    s->bytes = jit_extent(k->dev, s->addr);
    if (!s->bytes) {
      jit_tell(why, "%s: argument %d, named by autotune's %s, is not in device memory", k->name, p,
               zero ? "reset_to_zero" : "restore_value");
      free_saved(sv, *n);
      return TILEC_ERROR_USAGE;
    }
    s->copy = malloc(s->bytes);
    s->zeros = zero ? calloc(1, s->bytes) : NULL;
    tilec_status st = !s->copy || (zero && !s->zeros) ? jit_no_memory(why, k->name)
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
 * launch to warm up, then the best of TUNE_RUNS (or, with the decorator's
 * warmup and rep, warm-up launches for warmup ms and timed ones for rep ms,
 * as do_bench sizes them from the first), each waited for, with
 * reset_to_zero's buffers zeroed and restore_value's restored before each;
 * after, every such buffer holds what the caller had put there. A config
 * that does not compile or launch (too much shared memory, a grid out of
 * range) is left out; *best is the fastest of the others. */
/* The configs' compiles, in parallel: each compiled into the disk cache
 * (jit_prefetch), from which the timing takes it. */
typedef struct Prefetch {
  tilec_kernel *k;
  uint64_t hints;
} Prefetch;

static void prefetch_config(void *ctx, int config) {
  Prefetch *p = ctx;
  jit_prefetch(p->k, p->hints, config);
}

/* Compiles the configs not compiled yet on up to TUNE_THREADS threads (one
 * per CPU), when there is a disk cache to hand them over through. */
static void compile_configs(tilec_kernel *k, uint64_t hints) {
  char dirbuf[1024];
  if (k->nconfigs < 2 || !jit_cache_dir(k, dirbuf, sizeof dirbuf)) return;
  Prefetch p = {.k = k, .hints = hints};
  parallel_for(k->nconfigs, TUNE_THREADS, prefetch_config, &p);
}

static tilec_status tune(tilec_kernel *k, uint64_t hints, const unsigned grid[3], void **args, int nargs, void *stream,
                         int *best, double *best_ms, char **report) {
  double best_t = 0;
  char *why = NULL;
  *best = -1;
  Saved saved[2 * MAX_KEYS];
  int nsaved = 0;
  tilec_status st = save_buffers(k, args, saved, &nsaved, report);
  if (st != TILEC_OK) return st;
  /* running out of memory, or copying the buffers back in, is no config's fault: it ends tuning */
  bool fatal = false;
  FILE *table = tune_table();
  double started = clock_ms();
  tune_print_start(table, k->name, k->nconfigs);
  compile_configs(k, hints);
  for (int c = 0; c < k->nconfigs && !fatal; c++) {
    free(why);
    why = NULL;
    st = TILEC_OK;
    Spec *s = jit_spec_for(k, hints, c, &why, &st);
    fatal = st == TILEC_ERROR_NO_MEMORY;
    if (!s) {
      tune_print_row(table, c, 0, "compile", why ? why : "");
      continue;
    }
    double t = 0;
    int runs = TUNE_RUNS; /* after the first, which warms up; the decorator's warmup and rep size them */
    for (int r = 0; r <= runs && st == TILEC_OK; r++) {
      if ((st = put_buffers(k, saved, nsaved, true, &why)) != TILEC_OK) {
        fatal = true;
        break;
      }
      double t0 = clock_ms();
      st = jit_run_spec(k, s, grid, args, nargs, stream, &why);
      if (st == TILEC_OK && k->dev->cuda) st = jit_from_rt(tilec_cuda_synchronize(k->dev->cuda, &why));
      fatal = st == TILEC_ERROR_NO_MEMORY;
      double dt = clock_ms() - t0;
      if (r == 1 || (r > 1 && dt < t)) t = dt;
      if (r == 0 && (k->tune_warmup_ms || k->tune_rep_ms)) {
        double one = dt > 1e-3 ? dt : 1e-3, w = k->tune_warmup_ms / one - 1, n = (k->tune_rep_ms ? k->tune_rep_ms : 100) / one;
        for (int i = 0; i < (w > 1000 ? 1000 : (int)w) && st == TILEC_OK; i++) {
          if ((st = put_buffers(k, saved, nsaved, true, &why)) == TILEC_OK) st = jit_run_spec(k, s, grid, args, nargs, stream, &why);
          if (st == TILEC_OK && k->dev->cuda) st = jit_from_rt(tilec_cuda_synchronize(k->dev->cuda, &why));
        }
        runs = n < 1 ? 1 : n > 1000 ? 1000 : (int)n;
      }
    }
    if (st == TILEC_OK && (*best < 0 || t < best_t)) *best = c, best_t = t;
    tune_print_row(table, c, t, st == TILEC_OK ? NULL : "run", why ? why : "");
  }
  if (*best >= 0 && !fatal) tune_print_chosen(table, k->name, clock_ms() - started, *best, best_t);
  if (fatal) *best = -1;
  if (!fatal && (st = put_buffers(k, saved, nsaved, false, &why)) != TILEC_OK) *best = -1, fatal = true;
  free_saved(saved, nsaved);
  if (*best < 0) {
    jit_tell(report, "%s: %s%s", k->name, fatal ? "tuning stopped: " : "no autotune config runs; the last: ", why ? why : "");
    free(why);
    return st != TILEC_OK ? st : TILEC_ERROR_UNSUPPORTED;
  }
  free(why);
  *best_ms = best_t;
  return TILEC_OK;
}

/* The key of the choice on disk, in hex; false when it is not kept there
 * (no disk cache, or a pointer or a u64 past INT64_MAX in the key). */
static bool disk_key(const tilec_kernel *k, void **args, const char **dir, char *dirbuf, size_t n, char hex[65]) {
  int64_t vals[MAX_KEYS];
  for (int i = 0; i < k->nkeys; i++)
    if (!jit_arg_value(k, args, k->key_param[i], &vals[i])) return false;
  if (!(*dir = jit_cache_dir(k, dirbuf, n))) return false;
  TuneIdentity id = {
      .device = k->dev->cuda ? tilec_cuda_target(k->dev->cuda) : "cpu-emulator",
      .kernel = k->name,
      .source = k->source,
      .length = k->length,
      .signature = k->opt.signature,
      .defines = (const char *const *)k->defines,
      .ndefines = k->opt.num_defines,
      .num_warps = k->opt.num_warps,
      .num_stages = k->opt.num_stages,
      .keys = vals,
      .nkeys = k->nkeys,
  };
  tune_key(&id, hex);
  return true;
}

tilec_status jit_config_for(tilec_kernel *k, uint64_t hints, const unsigned grid[3], void **args, int nargs,
                            void *stream, int *config, char **report) {
  *config = k->opt.config > 0 ? k->opt.config : 0;
  if (k->opt.config != TILEC_CONFIG_TUNE || k->nconfigs < 2) return TILEC_OK;
  int64_t key[MAX_KEYS];
  key_of(k, args, key);
  if ((*config = find_tuned(k, key)) >= 0) return TILEC_OK;
  pthread_mutex_lock(&k->tune_lock);
  tilec_status st = TILEC_OK;
  if ((*config = find_tuned(k, key)) < 0) {
    char dirbuf[1024], hex[65], w[512];
    const char *dir = NULL;
    bool disk = disk_key(k, args, &dir, dirbuf, sizeof dirbuf, hex);
    double ms = 0;
    if (disk && tune_get(dir, hex, k->nconfigs, config, w, sizeof w)) {
      tune_print_cached(tune_table(), k->name, *config);
    } else {
      if (disk) jit_warn(k, w);
      st = tune(k, hints, grid, args, nargs, stream, config, &ms, report);
      if (st == TILEC_OK && disk && !tune_put(dir, hex, k->nconfigs, *config, ms, w, sizeof w)) jit_warn(k, w);
    }
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
  if (!k || nargs != k->nparams ||
      !jit_array_given(NULL, "tilec_kernel_config_of", "args", "nargs", (const void *const *)args, nargs))
    return -1;
  if (k->opt.config != TILEC_CONFIG_TUNE || k->nconfigs < 2) return k->opt.config > 0 ? k->opt.config : 0;
  int64_t key[MAX_KEYS];
  key_of(k, args, key);
  return find_tuned(k, key);
}
