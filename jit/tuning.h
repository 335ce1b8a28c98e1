/*
 * tuning.h — autotuning choices kept on disk, shared by the JIT
 * (TILEC_CONFIG_TUNE), `tilec run` and `tilec bench --tune`, so that a
 * later process does not tune again.
 *
 * A choice is stored in the kernel cache's directory (runtime/cache.h, with
 * its checksums and atomic writes) under a key that hashes everything the
 * choice depends on: the compiler's build, the device (its target, or the
 * CPU emulator), the kernel's file and name, its signature without
 * alignment hints, the -D overrides, forced warps and stages, and the
 * values of the autotune key's parameters. The payload names the number of
 * configs and the one chosen; an entry that does not parse, or that names
 * a config the kernel does not have, is stale: a miss, with a warning, and
 * the caller tunes again and stores the new choice over it.
 */
#ifndef TILEC_JIT_TUNING_H
#define TILEC_JIT_TUNING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "support/dtype.h"

/* What a tuning choice depends on. */
typedef struct TuneIdentity {
  const char *device;    /* "sm_90a", or "cpu-emulator" */
  const char *kernel;    /* the kernel's name */
  const char *source;    /* the file's text */
  size_t length;
  const char *signature; /* as given; ":16" and ":1" hints do not count */
  const char *const *defines;
  int ndefines;
  int num_warps, num_stages; /* forced (0: the configs') */
  const int64_t *keys;       /* the values of the key's parameters, in its order */
  int nkeys;
} TuneIdentity;

/* A scalar argument as a key value: an integer's value (sign-extended),
 * a float's bits; false for a u64 past INT64_MAX. slot holds the value in
 * its type's width, little-endian. */
bool tune_scalar_value(DType t, const void *slot, int64_t *v);

/* The entry's key, 64 hex digits. */
void tune_key(const TuneIdentity *id, char hex[65]);

/* 1 and *config when dir has a choice for key among nconfigs configs; 0
 * when it has none, or a corrupt or stale one (then warn says which). */
int tune_get(const char *dir, const char *key, int nconfigs, int *config, char *warn, size_t wlen);

/* Stores the choice; 1, or 0 with warn when it cannot be written. */
int tune_put(const char *dir, const char *key, int nconfigs, int config, double ms, char *warn, size_t wlen);

/* ---- TILEC_PRINT_AUTOTUNING=1 (Triton's variable): each tuning's table ---- */

/* Standard error when the table is asked for, else NULL; the printers
 * below print nothing to NULL. */
FILE *tune_table(void);
void tune_print_start(FILE *f, const char *kernel, int nconfigs);
/* A config's time; or, with failed ("compile", "run"), that it did not,
 * and why when there is a why. */
void tune_print_row(FILE *f, int config, double ms, const char *failed, const char *why);
void tune_print_chosen(FILE *f, const char *kernel, double total_ms, int config, double ms);
/* A choice taken from the cache instead of a tuning. */
void tune_print_cached(FILE *f, const char *kernel, int config);

#endif
