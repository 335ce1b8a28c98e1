/*
 * meta.c — the kernel's metadata, for `tilec run`, `tilec aot` and the JIT:
 * a strict reader of the one JSON object tilec_result_metadata writes.
 *
 * The object has a fixed shape (meta.h lists its keys), so this is a small
 * hand-written recursive reader, not a JSON library: each key once, no
 * other keys, integers within int64, strings without the escapes that never
 * occur in names and types. It does not trust its input: it stops at the
 * NUL, reports the byte where it stopped, and frees what it built.
 */
#include "meta.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || !errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

typedef struct Json {
  const char *start, *p;
  const char *key; /* where the member being read starts, for messages about its key */
  char *err;
  size_t errlen;
  bool failed;
  bool oom; /* the failure was an allocation's */
} Json;

static bool jfail(Json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool jfail(Json *j, const char *fmt, ...) {
  if (j->failed) return false;
  j->failed = true;
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  set_err(j->err, j->errlen, "at byte %zu: %s", (size_t)(j->p - j->start), msg);
  return false;
}

static bool jnomem(Json *j) {
  if (!j->failed) j->oom = true;
  return jfail(j, "out of memory");
}

static void jskip(Json *j) {
  while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r') j->p++;
}

/* "'x'" or "the end", for messages */
static const char *jnear(const Json *j, char buf[8]) {
  unsigned char c = (unsigned char)*j->p;
  if (!c) return "the end";
  if (c < 0x20 || c >= 0x7f) snprintf(buf, 8, "\\x%02x", c);
  else snprintf(buf, 8, "'%c'", c);
  return buf;
}

static bool jexpect(Json *j, char c) {
  jskip(j);
  if (*j->p == c) {
    j->p++;
    return true;
  }
  char b[8];
  return jfail(j, "expected '%c', found %s", c, jnear(j, b));
}

/* string = '"' (char | '\' ["\/])* '"'; the other escapes never occur in
 * names and types, so they are rejected rather than half-supported */
static bool jstring(Json *j, char **out) {
  *out = NULL;
  if (!jexpect(j, '"')) return false;
  const char *s = j->p;
  size_t n = 0;
  for (const char *q = s; *q != '"'; q++, n++) {
    if (!*q || (unsigned char)*q < 0x20) {
      j->p = q;
      return jfail(j, "unterminated string");
    }
    if (*q == '\\') {
      q++;
      if (*q != '"' && *q != '\\' && *q != '/') {
        j->p = q - 1;
        return jfail(j, "unsupported escape in a string");
      }
    }
    if (n >= 4096) return jfail(j, "a string longer than 4096 bytes");
  }
  char *t = malloc(n + 1);
  if (!t) return jnomem(j);
  size_t k = 0;
  for (; *j->p != '"'; j->p++) {
    if (*j->p == '\\') j->p++;
    t[k++] = *j->p;
  }
  t[k] = 0;
  j->p++;
  *out = t;
  return true;
}

/* integer = '-'? ('0' | [1-9][0-9]*), within int64 */
static bool jint(Json *j, int64_t *out) {
  jskip(j);
  const char *s = j->p;
  bool neg = *j->p == '-';
  if (neg) j->p++;
  if (!isdigit((unsigned char)*j->p)) {
    char b[8];
    return jfail(j, "expected an integer, found %s", jnear(j, b));
  }
  if (*j->p == '0' && isdigit((unsigned char)j->p[1])) return jfail(j, "an integer with a leading zero");
  uint64_t mag = 0;
  for (; isdigit((unsigned char)*j->p); j->p++) {
    if (mag > (UINT64_MAX - 9) / 10) {
      j->p = s;
      return jfail(j, "an integer out of range");
    }
    mag = mag * 10 + (uint64_t)(*j->p - '0');
  }
  if (*j->p == '.' || *j->p == 'e' || *j->p == 'E') return jfail(j, "expected an integer, found a fraction");
  if (mag > (uint64_t)INT64_MAX + neg) {
    j->p = s;
    return jfail(j, "an integer out of range");
  }
  *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
  return true;
}

static bool jint_in(Json *j, const char *key, int64_t lo, int64_t hi, int64_t *out) {
  const char *at = j->p;
  if (!jint(j, out)) return false;
  if (*out < lo || *out > hi) {
    j->p = at;
    jskip(j);
    return jfail(j, "%s is %" PRId64 ", expected %" PRId64 " to %" PRId64, key, *out, lo, hi);
  }
  return true;
}

/* After a member or an element: ',' and another follows (1), or the
 * closing bracket (0); anything else is an error (-1). */
static int jnext(Json *j, char close) {
  jskip(j);
  if (*j->p == ',' || *j->p == close) return *j->p++ == ',';
  char b[8];
  jfail(j, "expected ',' or '%c', found %s", close, jnear(j, b));
  return -1;
}

/* Calls `member` for each "key": value of an object; the callback reads the value. */
static bool jobject(Json *j, bool (*member)(Json *, const char *key, void *ctx), void *ctx) {
  if (!jexpect(j, '{')) return false;
  jskip(j);
  if (*j->p == '}') {
    j->p++;
    return true;
  }
  for (;;) {
    char *key;
    const char *at;
    jskip(j);
    at = j->key = j->p;
    if (!jstring(j, &key)) return false;
    bool ok = jexpect(j, ':');
    if (ok) {
      /* false without a message: a key the member does not know */
      ok = member(j, key, ctx);
      if (!ok && !j->failed) {
        j->p = at;
        jfail(j, "unexpected key '%s'", key);
      }
    }
    free(key);
    if (!ok) return false;
    int more = jnext(j, '}');
    if (more <= 0) return more == 0;
  }
}

enum { K_NAME = 1, K_ARCH = 2, K_WARPS = 4, K_STAGES = 8, K_SHARED = 16, K_PARAMS = 32, K_CONSTS = 64, K_HASH = 128,
       K_TYPE = 256, K_DIV = 512, K_TUNE = 1024, K_CONFIGS = 2048, K_CONFIG = 4096, K_KEY = 8192, K_RESET = 16384,
       K_RESTORE = 32768, K_ENTRY = 65536, K_PREZERO = 131072, K_WARMUP = 262144, K_REP = 524288, K_PRECOPY = 1048576, K_SPEC = 2097152,
       K_MAPS = 4194304, K_BOX = 8388608, K_FILL = 16777216, K_SWIZZLE = 33554432 };

typedef struct MetaCtx {
  KernelMeta *m;
  KernelParam *param; /* the parameter being read */
  unsigned seen;
} MetaCtx;

/* Marks `bit` seen; a second time is an error. */
static bool jonce(Json *j, MetaCtx *c, unsigned bit, const char *key) {
  if (c->seen & bit) {
    j->p = j->key;
    return jfail(j, "duplicate key '%s'", key);
  }
  c->seen |= bit;
  return true;
}

static bool param_member(Json *j, const char *key, void *ctx) {
  MetaCtx *c = ctx;
  int64_t v;
  if (!strcmp(key, "name")) return jonce(j, c, K_NAME, key) && jstring(j, &c->param->name);
  if (!strcmp(key, "type")) return jonce(j, c, K_TYPE, key) && jstring(j, &c->param->type);
  if (!strcmp(key, "divisibility")) {
    if (!jonce(j, c, K_DIV, key) || !jint_in(j, key, 0, INT32_MAX, &v)) return false;
    c->param->divisibility = (int)v;
    return true;
  }
  if (!strcmp(key, "entry")) {
    if (!jonce(j, c, K_ENTRY, key) || !jint_in(j, key, 0, INT32_MAX, &v)) return false;
    c->param->entry = (int)v;
    return true;
  }
  if (!strcmp(key, "specialize")) { /* optional: 0 for do_not_specialize */
    if (!jonce(j, c, K_SPEC, key) || !jint_in(j, key, 0, 1, &v)) return false;
    c->param->no_specialize = v == 0;
    return true;
  }
  return false;
}

static bool const_member(Json *j, const char *key, void *ctx) {
  KernelMeta *m = ctx;
  for (int i = 0; i < m->nconsts; i++)
    if (!strcmp(m->consts[i].name, key)) {
      j->p = j->key;
      return jfail(j, "duplicate constexpr '%s'", key);
    }
  if (m->nconsts >= 100000) return jfail(j, "too many constexprs");
  KernelConst *cs = realloc(m->consts, ((size_t)m->nconsts + 1) * sizeof *cs);
  if (!cs) return jnomem(j);
  m->consts = cs;
  KernelConst *rc = &cs[m->nconsts];
  rc->name = strdup(key);
  if (!rc->name) return jnomem(j);
  m->nconsts++;
  return jint(j, &rc->value);
}

/* Calls `element` for each element of an array; the callback reads it. */
static bool jarray(Json *j, bool (*element)(Json *, void *), void *ctx) {
  if (!jexpect(j, '[')) return false;
  jskip(j);
  if (*j->p == ']') {
    j->p++;
    return true;
  }
  for (;;) {
    if (!element(j, ctx)) return false;
    int more = jnext(j, ']');
    if (more <= 0) return more == 0;
  }
}

static bool param_element(Json *j, void *ctx) {
  KernelMeta *m = ctx;
  if (m->nparams >= 100000) return jfail(j, "too many parameters");
  KernelParam *ps = realloc(m->params, ((size_t)m->nparams + 1) * sizeof *ps);
  if (!ps) return jnomem(j);
  m->params = ps;
  MetaCtx c = {.m = m, .param = &ps[m->nparams++]};
  *c.param = (KernelParam){0};
  jskip(j);
  const char *at = j->p;
  if (!jobject(j, param_member, &c)) return false;
  if ((c.seen & ~(unsigned)K_SPEC) != (K_NAME | K_TYPE | K_DIV | K_ENTRY)) {
    j->p = at;
    return jfail(j, "a parameter needs exactly name, type, divisibility and entry");
  }
  if (!c.param->name[0] || !c.param->type[0]) {
    j->p = at;
    return jfail(j, "a parameter with an empty name or type");
  }
  return true;
}

/* A list of names (an autotune key's parameters, ...). */
typedef struct Names {
  char ***v;
  int *n;
} Names;

static bool name_element(Json *j, void *ctx) {
  Names *nm = ctx;
  if (*nm->n >= 1000) return jfail(j, "too many names");
  char **grown = realloc(*nm->v, ((size_t)*nm->n + 1) * sizeof *grown);
  if (!grown) return jnomem(j);
  *nm->v = grown;
  if (!jstring(j, &grown[*nm->n])) return false;
  (*nm->n)++;
  return true;
}

static bool autotune_member(Json *j, const char *key, void *ctx) {
  MetaCtx *c = ctx;
  int64_t v;
  if (!strcmp(key, "configs")) {
    if (!jonce(j, c, K_CONFIGS, key) || !jint_in(j, key, 0, 100000, &v)) return false;
    c->m->nconfigs = (int)v;
    return true;
  }
  if (!strcmp(key, "config")) {
    if (!jonce(j, c, K_CONFIG, key) || !jint_in(j, key, 0, 100000, &v)) return false;
    c->m->config = (int)v;
    return true;
  }
  Names nm = {&c->m->keys, &c->m->nkeys};
  if (!strcmp(key, "key")) return jonce(j, c, K_KEY, key) && jarray(j, name_element, &nm);
  nm = (Names){&c->m->reset, &c->m->nreset};
  if (!strcmp(key, "reset")) return jonce(j, c, K_RESET, key) && jarray(j, name_element, &nm);
  nm = (Names){&c->m->restore, &c->m->nrestore};
  if (!strcmp(key, "restore")) return jonce(j, c, K_RESTORE, key) && jarray(j, name_element, &nm);
  nm = (Names){&c->m->pre_zero, &c->m->npre_zero};
  if (!strcmp(key, "pre_zero")) return jonce(j, c, K_PREZERO, key) && jarray(j, name_element, &nm);
  nm = (Names){&c->m->pre_copy, &c->m->npre_copy};
  if (!strcmp(key, "pre_copy")) {
    if (!jonce(j, c, K_PRECOPY, key) || !jarray(j, name_element, &nm)) return false;
    return c->m->npre_copy % 2 == 0 || jfail(j, "pre_copy holds pairs of names, not %d", c->m->npre_copy);
  }
  if (!strcmp(key, "warmup_ms") || !strcmp(key, "rep_ms")) {
    bool w = !strcmp(key, "warmup_ms");
    if (!jonce(j, c, w ? K_WARMUP : K_REP, key) || !jint_in(j, key, 0, 100000, &v)) return false;
    *(w ? &c->m->warmup_ms : &c->m->rep_ms) = (int)v;
    return true;
  }
  return false;
}

/* A tensor map: {"param": base parameter, "fill": "zero" | "nan", "swizzle": 0-3, "box": [B_0, ..]}. */
typedef struct MapCtx {
  KernelTensorMap *t;
  unsigned seen;
} MapCtx;

static bool box_element(Json *j, void *ctx) {
  KernelTensorMap *t = ctx;
  int64_t v;
  if (t->rank == 5) return jfail(j, "a tensor map's box has at most 5 dimensions");
  if (!jint_in(j, "box", 1, 256, &v)) return false;
  t->box[t->rank++] = v;
  return true;
}

static bool map_member(Json *j, const char *key, void *ctx) {
  MapCtx *c = ctx;
  MetaCtx once = {.seen = c->seen};
  int64_t v;
  bool ok;
  if (!strcmp(key, "param")) {
    ok = jonce(j, &once, K_PARAMS, key) && jint_in(j, key, 0, 100000, &v);
    if (ok) c->t->param = (int)v;
  } else if (!strcmp(key, "fill")) {
    char *f = NULL;
    ok = jonce(j, &once, K_FILL, key) && jstring(j, &f);
    if (ok && strcmp(f, "zero") && strcmp(f, "nan")) ok = jfail(j, "a tensor map's fill is \"zero\" or \"nan\", not \"%s\"", f);
    if (ok) c->t->nan = !strcmp(f, "nan");
    free(f);
  } else if (!strcmp(key, "swizzle")) {
    ok = jonce(j, &once, K_SWIZZLE, key) && jint_in(j, key, 0, 3, &v);
    if (ok) c->t->swizzle = (int)v;
  } else if (!strcmp(key, "box")) {
    ok = jonce(j, &once, K_BOX, key) && jarray(j, box_element, c->t);
  } else {
    return false;
  }
  c->seen = once.seen;
  return ok;
}

static bool map_element(Json *j, void *ctx) {
  KernelMeta *m = ctx;
  if (m->nmaps >= 64) return jfail(j, "too many tensor maps");
  KernelTensorMap *ts = realloc(m->maps, ((size_t)m->nmaps + 1) * sizeof *ts);
  if (!ts) return jnomem(j);
  m->maps = ts;
  MapCtx c = {.t = &ts[m->nmaps++]};
  *c.t = (KernelTensorMap){0};
  jskip(j);
  const char *at = j->p;
  if (!jobject(j, map_member, &c)) return false;
  if (c.seen != (K_PARAMS | K_FILL | K_SWIZZLE | K_BOX) || !c.t->rank) {
    j->p = at;
    return jfail(j, "a tensor map needs exactly param, fill, swizzle and a box of 1 to 5 dimensions");
  }
  return true;
}

static bool meta_member(Json *j, const char *key, void *ctx) {
  MetaCtx *c = ctx;
  KernelMeta *m = c->m;
  int64_t v;
  if (!strcmp(key, "name")) return jonce(j, c, K_NAME, key) && jstring(j, &m->name);
  if (!strcmp(key, "arch")) return jonce(j, c, K_ARCH, key) && jstring(j, &m->arch);
  if (!strcmp(key, "num_warps")) {
    if (!jonce(j, c, K_WARPS, key) || !jint_in(j, key, 1, 32, &v)) return false;
    m->num_warps = (int)v;
    return true;
  }
  if (!strcmp(key, "num_stages")) {
    if (!jonce(j, c, K_STAGES, key) || !jint_in(j, key, 0, 64, &v)) return false;
    m->num_stages = (int)v;
    return true;
  }
  if (!strcmp(key, "shared_bytes"))
    return jonce(j, c, K_SHARED, key) && jint_in(j, key, 0, INT64_MAX, &m->shared_bytes);
  if (!strcmp(key, "params")) return jonce(j, c, K_PARAMS, key) && jarray(j, param_element, m);
  if (!strcmp(key, "constexprs")) return jonce(j, c, K_CONSTS, key) && jobject(j, const_member, m);
  if (!strcmp(key, "lowered_hash")) return jonce(j, c, K_HASH, key) && jstring(j, &m->lowered_hash);
  if (!strcmp(key, "tensormaps")) return jonce(j, c, K_MAPS, key) && jarray(j, map_element, m);
  if (!strcmp(key, "autotune")) {
    MetaCtx t = {.m = m};
    const char *at = j->p;
    if (!jonce(j, c, K_TUNE, key) || !jobject(j, autotune_member, &t)) return false;
    if (t.seen != (K_CONFIGS | K_CONFIG | K_KEY | K_RESET | K_RESTORE | K_PREZERO | K_WARMUP | K_REP | K_PRECOPY)) {
      j->p = at;
      jskip(j);
      return jfail(j, "autotune needs exactly configs, config, warmup_ms, rep_ms, key, reset, restore, pre_zero and "
                      "pre_copy");
    }
    if (m->config > 0 && m->config >= m->nconfigs) {
      j->p = at;
      jskip(j);
      return jfail(j, "autotune config %d, but there are %d configs", m->config, m->nconfigs);
    }
    return true;
  }
  return false;
}

void meta_free(KernelMeta *m) {
  if (!m) return;
  free(m->name);
  free(m->arch);
  free(m->lowered_hash);
  for (int i = 0; i < m->nparams; i++) {
    free(m->params[i].name);
    free(m->params[i].type);
  }
  free(m->params);
  for (int i = 0; i < m->nconsts; i++) free(m->consts[i].name);
  free(m->consts);
  for (int i = 0; i < m->nkeys; i++) free(m->keys[i]);
  free(m->keys);
  for (int i = 0; i < m->nreset; i++) free(m->reset[i]);
  free(m->reset);
  for (int i = 0; i < m->nrestore; i++) free(m->restore[i]);
  free(m->restore);
  for (int i = 0; i < m->npre_zero; i++) free(m->pre_zero[i]);
  free(m->pre_zero);
  for (int i = 0; i < m->npre_copy; i++) free(m->pre_copy[i]);
  free(m->pre_copy);
  free(m->maps);
  *m = (KernelMeta){0};
}

bool meta_parse(const char *json, KernelMeta *out, char *err, size_t errlen, bool *oom) {
  *out = (KernelMeta){0};
  if (oom) *oom = false;
  if (!json) {
    set_err(err, errlen, "no metadata");
    return false;
  }
  Json j = {.start = json, .p = json, .err = err, .errlen = errlen};
  MetaCtx c = {.m = out};
  bool ok = jobject(&j, meta_member, &c);
  static const struct {
    unsigned bit;
    const char *key;
  } required[] = {{K_NAME, "name"},       {K_ARCH, "arch"},         {K_WARPS, "num_warps"},
                  {K_STAGES, "num_stages"}, {K_SHARED, "shared_bytes"}, {K_PARAMS, "params"},
                  {K_CONSTS, "constexprs"}, {K_HASH, "lowered_hash"}, {K_TUNE, "autotune"}};
  for (size_t i = 0; ok && i < sizeof required / sizeof *required; i++)
    if (!(c.seen & required[i].bit)) {
      j.p = json;
      ok = jfail(&j, "no key '%s'", required[i].key);
    }
  if (ok) {
    jskip(&j);
    if (*j.p) ok = jfail(&j, "text after the object");
  }
  if (ok && !out->name[0]) {
    j.p = json;
    ok = jfail(&j, "an empty kernel name");
  }
  for (int i = 0; ok && i < out->nparams; i++)
    out->params[i].desc_part = (i > 0 && out->params[i - 1].entry == out->params[i].entry) ||
                               (i + 1 < out->nparams && out->params[i + 1].entry == out->params[i].entry);
  /* a map's base is a pointer parameter followed by the shape and strides
   * (i64) of the box's rank */
  for (int i = 0; ok && i < out->nmaps; i++) {
    const KernelTensorMap *t = &out->maps[i];
    bool fits = t->param + 2 * t->rank < out->nparams && out->params[t->param].type[0] == '*';
    for (int d = 1; fits && d <= 2 * t->rank; d++) fits = !strcmp(out->params[t->param + d].type, "i64");
    if (!fits) {
      j.p = json;
      ok = jfail(&j, "tensor map %d: parameter %d is not a pointer followed by %d i64 shapes and strides", i, t->param, 2 * t->rank);
    }
  }
  if (!ok) meta_free(out);
  if (oom) *oom = j.oom;
  return ok;
}
