/*
 * tuning.c — autotuning choices on disk (tuning.h).
 */
#include "tuning.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cache.h"
#include "tilec/tilec.h"

#define TUNE_MAGIC "tilec tuning 1"

bool tune_scalar_value(DType t, const void *slot, int64_t *v) {
  size_t bytes = (size_t)dtype_bytes(t);
  uint64_t u = 0;
  memcpy(&u, slot, bytes); /* little-endian: the low bytes */
  if (dtype_is_signed(t) && bytes < 8 && (u >> (8 * bytes - 1)) & 1) u |= ~(uint64_t)0 << (8 * bytes);
  if (t == DT_I1) u &= 1;
  if (t == DT_U64 && u > INT64_MAX) return false;
  *v = (int64_t)u;
  return true;
}

/* One signature entry, trimmed, without a trailing ":DIGITS" hint on a
 * type ("*fp32:16" is "*fp32"; a quoted string stays as it is). */
static void hash_entry(CacheHash *h, const char *s, size_t n) {
  while (n && (*s == ' ' || *s == '\t')) s++, n--;
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  size_t colon = n;
  while (colon && s[colon - 1] >= '0' && s[colon - 1] <= '9') colon--;
  if (colon && colon < n && s[colon - 1] == ':' && s[0] != '\'' && s[0] != '"') n = colon - 1;
  uint64_t len = n;
  cache_hash_update(h, &len, sizeof len);
  cache_hash_update(h, s, n);
}

void tune_key(const TuneIdentity *id, char hex[65]) {
  CacheHash h;
  cache_hash_init(&h);
  cache_hash_str(&h, TUNE_MAGIC);
  cache_hash_str(&h, tilec_build_id());
  cache_hash_str(&h, id->device);
  cache_hash_str(&h, id->kernel);
  uint64_t len = id->length;
  cache_hash_update(&h, &len, sizeof len);
  cache_hash_update(&h, id->source, id->length);
  /* the signature's entries: split at commas outside quotes */
  const char *sig = id->signature ? id->signature : "";
  char quote = 0;
  const char *start = sig;
  for (const char *p = sig;; p++) {
    if (quote && *p == quote) quote = 0;
    else if (!quote && (*p == '\'' || *p == '"')) quote = *p;
    else if (!*p || (!quote && *p == ',')) {
      hash_entry(&h, start, (size_t)(p - start));
      if (!*p) break;
      start = p + 1;
    }
  }
  int64_t n[4] = {id->ndefines, id->num_warps, id->num_stages, id->nkeys};
  cache_hash_update(&h, n, sizeof n);
  for (int i = 0; i < id->ndefines; i++) cache_hash_str(&h, id->defines[i]);
  cache_hash_update(&h, id->keys, sizeof *id->keys * (size_t)id->nkeys);
  cache_hash_final(&h, hex);
}

int tune_get(const char *dir, const char *key, int nconfigs, int *config, char *warn, size_t wlen) {
  void *data = NULL;
  size_t len = 0;
  if (warn && wlen) warn[0] = 0;
  if (!dir || cache_get(dir, key, &data, &len, warn, wlen) != 1) return 0;
  char text[128];
  int n = -1, c = -1, end = 0;
  bool ok = len < sizeof text;
  if (ok) {
    memcpy(text, data, len);
    text[len] = 0;
    ok = sscanf(text, TUNE_MAGIC "\nconfigs %d\nconfig %d\n%n", &n, &c, &end) == 2 && end > 0;
  }
  free(data);
  if (!ok || n != nconfigs || c < 0 || c >= nconfigs) {
    if (warn && wlen)
      snprintf(warn, wlen, "the tuning entry %.16s... in %s is stale (%s); tuning again", key, dir,
               !ok ? "it does not parse" : n != nconfigs ? "the kernel's number of configs changed" : "no such config");
    return 0;
  }
  *config = c;
  return 1;
}

FILE *tune_table(void) {
  const char *p = getenv("TILEC_PRINT_AUTOTUNING");
  return p && !strcmp(p, "1") ? stderr : NULL;
}

void tune_print_start(FILE *f, const char *kernel, int nconfigs) {
  if (f) fprintf(f, "tilec: autotuning %s: %d configs\n", kernel, nconfigs);
}

void tune_print_row(FILE *f, int config, double ms, const char *failed, const char *why) {
  if (f && !failed) fprintf(f, "  config %-3d %12.4f ms\n", config, ms);
  else if (f) fprintf(f, "  config %-3d does not %s%s%s\n", config, failed, why ? ": " : "", why ? why : "");
}

void tune_print_chosen(FILE *f, const char *kernel, double total_ms, int config, double ms) {
  if (f) fprintf(f, "tilec: autotuning %s took %.1f ms; chosen: config %d (%.4f ms)\n", kernel, total_ms, config, ms);
}

void tune_print_cached(FILE *f, const char *kernel, int config) {
  if (f) fprintf(f, "tilec: autotuning %s: config %d, from the tuning cache\n", kernel, config);
}

int tune_put(const char *dir, const char *key, int nconfigs, int config, double ms, char *warn, size_t wlen) {
  char text[128];
  int n = snprintf(text, sizeof text, TUNE_MAGIC "\nconfigs %d\nconfig %d\ntime_ms %.6g\n", nconfigs, config, ms);
  if (warn && wlen) warn[0] = 0;
  return dir ? cache_put(dir, key, text, (size_t)n, warn, wlen) : 0;
}
