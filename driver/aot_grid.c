/*
 * aot_grid.c — grid expressions for `tilec aot`, translated to C.
 *
 * `tilec run` and the JIT evaluate a grid expression with the arguments in
 * hand (runtime/grid.c). A generated launcher computes it on every call,
 * from arguments known only then, so here the parsed tree becomes the C
 * text of its value instead: `cdiv(n_elements, BLOCK_SIZE)` becomes
 * `vadd_cdiv((int64_t)n_elements, INT64_C(1024), &bad)`. Constexprs are
 * folded in as numbers, runtime integers are read from the launcher's
 * parameters. Every operation goes through a helper that flags what Python
 * would not give as an int64 (overflow, division by zero, an inexact `/`),
 * so the launcher returns an error rather than a wrapped grid.
 */
#include "aot.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/grid.h"

/* The translation: each node's C text, an owned string; NULL when out of memory. */
typedef struct Tr {
  const Grid *g;
  const AotName *names;
  const char *prefix;
  unsigned uses;
} Tr;

/* An owned, formatted string; NULL when out of memory. */
static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  int n = vsnprintf(NULL, 0, f, ap);
  va_end(ap);
  char *s = n < 0 ? NULL : malloc((size_t)n + 1);
  if (!s) return NULL;
  va_start(ap, f);
  vsnprintf(s, (size_t)n + 1, f, ap);
  va_end(ap);
  return s;
}

static char *int_literal(int64_t v) {
  if (v == INT64_MIN) return fmt("(-INT64_C(9223372036854775807) - 1)");
  return fmt("INT64_C(%" PRId64 ")", v);
}

static char *translate(Tr *t, int i) {
  static const struct {
    const char *name;
    unsigned use;
  } helper[] = {
      [GRID_ADD] = {"add", AOT_USES_ADD}, [GRID_SUB] = {"sub", AOT_USES_SUB}, [GRID_MUL] = {"mul", AOT_USES_MUL},
      [GRID_FLOORDIV] = {"floordiv", AOT_USES_FLOORDIV}, [GRID_DIV] = {"div", AOT_USES_DIV},
      [GRID_MOD] = {"mod", AOT_USES_MOD}, [GRID_CDIV] = {"cdiv", AOT_USES_CDIV}, [GRID_MIN] = {"min", AOT_USES_MIN},
      [GRID_MAX] = {"max", AOT_USES_MAX},
  };
  const GridNode *n = &t->g->node[i];
  if (n->op == GRID_INT) return int_literal(n->value);
  if (n->op == GRID_NAME) {
    /* a runtime integer is read from its parameter; a constexpr is its value */
    const AotName *nm = &t->names[n->value];
    return nm->cname ? fmt("(int64_t)%s", nm->cname) : int_literal(nm->value);
  }
  char *a = translate(t, n->a), *s = NULL;
  if (n->op == GRID_NEG) {
    s = a ? fmt("%s_neg(%s, &bad)", t->prefix, a) : NULL;
    t->uses |= AOT_USES_NEG;
    free(a);
    return s;
  }
  char *b = a ? translate(t, n->b) : NULL;
  if (a && b) {
    /* min and max cannot fail; the others flag what Python would not give as an int64 */
    bool total = n->op == GRID_MIN || n->op == GRID_MAX;
    s = fmt("%s_%s(%s, %s%s)", t->prefix, helper[n->op].name, a, b, total ? "" : ", &bad");
    t->uses |= helper[n->op].use;
  }
  free(a);
  free(b);
  return s;
}

bool aot_grid_to_c(const char *grid, const AotName *names, int nnames, const char *prefix, char *dims[3],
                   size_t dimlen, unsigned *uses, char *err, size_t errlen, size_t *errpos) {
  GridName *gn = calloc((size_t)nnames + 1, sizeof *gn);
  Grid *g = malloc(sizeof *g);
  GridError e = {.msg = "out of memory"};
  for (int i = 0; gn && i < nnames; i++) gn[i] = (GridName){.name = names[i].name, .unusable = names[i].unusable};
  bool ok = gn && g && grid_parse(g, grid, gn, nnames, &e);
  Tr t = {.g = g, .names = names, .prefix = prefix};
  for (int i = 0; i < 3; i++) snprintf(dims[i], dimlen, "INT64_C(1)");
  for (int i = 0; ok && i < g->ndims; i++) {
    char *v = translate(&t, g->root[i]);
    if (!v || strlen(v) >= dimlen) {
      snprintf(e.msg, sizeof e.msg, "%s", v ? "the grid expression is too long" : "out of memory");
      e.pos = 0;
      ok = false;
    } else {
      snprintf(dims[i], dimlen, "%s", v);
    }
    free(v);
  }
  free(gn);
  free(g);
  if (!ok && err && errlen) snprintf(err, errlen, "%s", e.msg);
  if (errpos) *errpos = ok ? 0 : e.pos;
  if (uses) *uses |= t.uses;
  return ok;
}
