/*
 * aot_grid.c — grid expressions for `tilec aot`, translated to C.
 *
 * `tilec run` evaluates a grid expression once, with the arguments in hand
 * (run_grid.c). A generated launcher computes it on every call, from
 * arguments known only then, so here the same grammar is parsed and each
 * rule returns the C text of its value instead: `cdiv(n_elements,
 * BLOCK_SIZE)` becomes `vadd_cdiv((int64_t)n_elements, INT64_C(1024), &bad)`.
 * Constexprs are folded in as numbers, runtime integers are read from the
 * launcher's parameters. Every operation goes through a helper that flags
 * what Python would not give as an int64 (overflow, division by zero, an
 * inexact `/`), so the launcher returns an error rather than a wrapped grid.
 *
 * One function per grammar rule, the rule as the comment above it; each
 * returns an owned string or NULL after recording the error.
 */
#include "aot.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AOT_MAX_NESTING 100

typedef struct Tr {
  const char *start, *p;
  const AotName *names;
  int nnames;
  const char *prefix;
  unsigned uses;
  int depth;
  char *err;
  size_t errlen;
  size_t errpos;
  bool failed;
} Tr;

static char *tfail(Tr *t, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static char *tfail(Tr *t, const char *at, const char *fmt, ...) {
  if (t->failed) return NULL;
  t->failed = true;
  if (t->err && t->errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->err, t->errlen, fmt, ap);
    va_end(ap);
  }
  t->errpos = (size_t)(at - t->start);
  return NULL;
}

/* An owned, formatted string; NULL (an error) when out of memory. */
static char *fmt(Tr *t, const char *f, ...) __attribute__((format(printf, 2, 3)));
static char *fmt(Tr *t, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  int n = vsnprintf(NULL, 0, f, ap);
  va_end(ap);
  char *s = n < 0 ? NULL : malloc((size_t)n + 1);
  if (!s) return tfail(t, t->p, "out of memory");
  va_start(ap, f);
  vsnprintf(s, (size_t)n + 1, f, ap);
  va_end(ap);
  return s;
}

/* PREFIX_op(a, b, &bad), taking ownership of a and b */
static char *call2(Tr *t, unsigned use, const char *op, char *a, char *b) {
  char *s = a && b ? fmt(t, "%s_%s(%s, %s%s)", t->prefix, op, a, b, use & (AOT_USES_MIN | AOT_USES_MAX) ? "" : ", &bad")
                   : NULL;
  if (s) t->uses |= use;
  free(a);
  free(b);
  return s;
}

static char *int_literal(Tr *t, int64_t v) {
  if (v == INT64_MIN) return fmt(t, "(-INT64_C(9223372036854775807) - 1)");
  return fmt(t, "INT64_C(%" PRId64 ")", v);
}

static void tskip(Tr *t) {
  while (*t->p == ' ' || *t->p == '\t') t->p++;
}

static bool is_ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static char *t_expr(Tr *t);

/* number = digits ('_' digits)* | '0x' hexdigits; a grid has no fractions */
static char *t_number(Tr *t) {
  const char *at = t->p;
  int base = 10;
  if (t->p[0] == '0' && (t->p[1] == 'x' || t->p[1] == 'X') && isxdigit((unsigned char)t->p[2])) {
    base = 16;
    t->p += 2;
  }
  uint64_t mag = 0;
  bool overflow = false;
  for (;; t->p++) {
    char c = *t->p;
    if (c == '_' && isxdigit((unsigned char)t->p[1]) && (base == 16 || isdigit((unsigned char)t->p[1]))) continue;
    int d = isdigit((unsigned char)c) ? c - '0' : base == 16 && isxdigit((unsigned char)c) ? tolower(c) - 'a' + 10 : -1;
    if (d < 0) break;
    if (mag > ((uint64_t)INT64_MAX - (uint64_t)d) / (uint64_t)base) overflow = true;
    else mag = mag * (uint64_t)base + (uint64_t)d;
  }
  if (*t->p == '.' || is_ident_char(*t->p)) {
    while (*t->p == '.' || is_ident_char(*t->p)) t->p++;
    return tfail(t, at, "'%.*s' is not an integer (a grid is computed in integers)", (int)(t->p - at), at);
  }
  if (overflow) return tfail(t, at, "%.*s is too large", (int)(t->p - at), at);
  return int_literal(t, (int64_t)mag);
}

/* A runtime integer is read from its parameter; a constexpr is its value. */
static char *t_name(Tr *t, const char *at, size_t len) {
  for (int i = 0; i < t->nnames; i++) {
    const AotName *nm = &t->names[i];
    if (strlen(nm->name) != len || memcmp(nm->name, at, len)) continue;
    if (nm->unusable) return tfail(t, at, "'%s' is %s; a grid is computed from integers", nm->name, nm->unusable);
    return nm->cname ? fmt(t, "(int64_t)%s", nm->cname) : int_literal(t, nm->value);
  }
  if (len == 4 && !memcmp(at, "True", 4)) return int_literal(t, 1);
  if (len == 5 && !memcmp(at, "False", 5)) return int_literal(t, 0);
  char known[400];
  size_t n = 0;
  known[0] = 0;
  for (int i = 0; i < t->nnames && n < sizeof known; i++) {
    if (t->names[i].unusable) continue;
    int w = snprintf(known + n, sizeof known - n, "%s%s", n ? ", " : "", t->names[i].name);
    if (w < 0) break;
    n += (size_t)w;
  }
  if (!known[0])
    return tfail(t, at, "unknown name '%.*s'; the kernel has no integer arguments or constexprs", (int)len, at);
  return tfail(t, at, "unknown name '%.*s'; the names are %s", (int)len, at, known);
}

/* call = NAME '(' expr (',' expr)* ')', for cdiv, min and max */
static char *t_call(Tr *t, const char *at, size_t len) {
  bool cdiv = (len == 4 && !memcmp(at, "cdiv", 4)) || (len == 11 && !memcmp(at, "triton.cdiv", 11));
  bool is_min = len == 3 && !memcmp(at, "min", 3), is_max = len == 3 && !memcmp(at, "max", 3);
  if (!cdiv && !is_min && !is_max)
    return tfail(t, at, "unknown function '%.*s'; a grid may call cdiv, triton.cdiv, min and max", (int)len, at);
  t->p++; /* '(' */
  char *acc = NULL;
  int n = 0;
  tskip(t);
  if (*t->p != ')') {
    for (;;) {
      char *x = t_expr(t);
      if (!x) {
        free(acc);
        return NULL;
      }
      /* min(a, b, c) folds left: min(min(a, b), c) */
      acc = n == 0 ? x : call2(t, cdiv ? AOT_USES_CDIV : is_min ? AOT_USES_MIN : AOT_USES_MAX,
                               cdiv ? "cdiv" : is_min ? "min" : "max", acc, x);
      n++;
      if (!acc) return NULL;
      tskip(t);
      if (*t->p != ',') break;
      t->p++;
    }
  }
  if (*t->p != ')') {
    free(acc);
    return tfail(t, t->p, "expected ',' or ')' in the arguments of %.*s()", (int)len, at);
  }
  t->p++;
  if ((cdiv && n != 2) || (!cdiv && n < 2)) {
    free(acc);
    if (cdiv) return tfail(t, at, "%.*s() takes 2 arguments, got %d", (int)len, at, n);
    return tfail(t, at, "%.*s() takes 2 or more arguments, got %d", (int)len, at, n);
  }
  return acc;
}

/* subscript = ('meta' | 'META') '[' STRING ']', the argument of a grid lambda */
static char *t_subscript(Tr *t) {
  t->p++; /* '[' */
  tskip(t);
  char q = *t->p;
  if (q != '"' && q != '\'') return tfail(t, t->p, "expected a quoted name after '['");
  const char *s = ++t->p;
  while (*t->p && *t->p != q) t->p++;
  if (!*t->p) return tfail(t, s - 1, "unterminated string");
  size_t len = (size_t)(t->p - s);
  t->p++;
  tskip(t);
  if (*t->p != ']') return tfail(t, t->p, "expected ']'");
  t->p++;
  return t_name(t, s, len);
}

/* primary = number | NAME | call | subscript | '(' expr ')' */
static char *t_primary(Tr *t) {
  tskip(t);
  const char *at = t->p;
  if (isdigit((unsigned char)*at)) return t_number(t);
  if (*at == '(') {
    t->p++;
    char *v = t_expr(t);
    if (!v) return NULL;
    tskip(t);
    if (*t->p == ',' || *t->p != ')') {
      free(v);
      if (*t->p == ',') return tfail(t, at, "a grid is X,Y,Z without parentheses, not a tuple");
      return tfail(t, t->p, "expected ')'");
    }
    t->p++;
    return v;
  }
  if (is_ident_start(*at)) {
    while (is_ident_char(*t->p)) t->p++;
    size_t len = (size_t)(t->p - at);
    if (len == 6 && !memcmp(at, "triton", 6) && t->p[0] == '.' && is_ident_start(t->p[1])) {
      t->p++;
      while (is_ident_char(*t->p)) t->p++;
      len = (size_t)(t->p - at);
    }
    const char *end = t->p;
    tskip(t);
    if (*t->p == '(') return t_call(t, at, len);
    if (*t->p == '[' && ((len == 4 && !memcmp(at, "meta", 4)) || (len == 4 && !memcmp(at, "META", 4))))
      return t_subscript(t);
    t->p = end;
    return t_name(t, at, len);
  }
  if (!*at) return tfail(t, at, "the expression ends early: expected a number, a name or '('");
  if ((unsigned char)*at < 0x20 || (unsigned char)*at >= 0x7f)
    return tfail(t, at, "unexpected byte 0x%02x: expected a number, a name or '('", (unsigned char)*at);
  return tfail(t, at, "unexpected '%c': expected a number, a name or '('", *at);
}

/* unary = ('-' | '+') unary | primary */
static char *t_unary(Tr *t) {
  tskip(t);
  const char *at = t->p;
  if (++t->depth > AOT_MAX_NESTING) return tfail(t, at, "the expression nests too deeply");
  char *v;
  if (*at == '-' || *at == '+') {
    t->p++;
    v = t_unary(t);
    if (v && *at == '-') {
      char *neg = fmt(t, "%s_neg(%s, &bad)", t->prefix, v);
      t->uses |= AOT_USES_NEG;
      free(v);
      v = neg;
    }
  } else {
    v = t_primary(t);
  }
  t->depth--;
  return v;
}

/* term = unary (('*' | '//' | '/' | '%') unary)* */
static char *t_term(Tr *t) {
  char *v = t_unary(t);
  while (v) {
    tskip(t);
    const char *at = t->p;
    char op = *at;
    if (op != '*' && op != '/' && op != '%') return v;
    if (op == '*' && at[1] == '*') {
      free(v);
      return tfail(t, at, "'**' is not supported in a grid");
    }
    bool floordiv = op == '/' && at[1] == '/';
    t->p += floordiv ? 2 : 1;
    char *r = t_unary(t);
    if (op == '*') v = call2(t, AOT_USES_MUL, "mul", v, r);
    else if (op == '%') v = call2(t, AOT_USES_MOD, "mod", v, r);
    else if (floordiv) v = call2(t, AOT_USES_FLOORDIV, "floordiv", v, r);
    else v = call2(t, AOT_USES_DIV, "div", v, r);
  }
  return NULL;
}

/* expr = term (('+' | '-') term)* */
static char *t_expr(Tr *t) {
  if (++t->depth > AOT_MAX_NESTING) return tfail(t, t->p, "the expression nests too deeply");
  char *v = t_term(t);
  while (v) {
    tskip(t);
    char op = *t->p;
    if (op != '+' && op != '-') break;
    t->p++;
    char *r = t_term(t);
    v = op == '+' ? call2(t, AOT_USES_ADD, "add", v, r) : call2(t, AOT_USES_SUB, "sub", v, r);
  }
  t->depth--;
  return v;
}

/* grid = expr (',' expr){0,2} ','? */
bool aot_grid_to_c(const char *grid, const AotName *names, int nnames, const char *prefix, char *dims[3],
                   size_t dimlen, unsigned *uses, char *err, size_t errlen, size_t *errpos) {
  Tr t = {.start = grid ? grid : "", .names = names, .nnames = nnames, .prefix = prefix, .err = err, .errlen = errlen};
  t.p = t.start;
  int n = 0;
  for (int i = 0; i < 3; i++) snprintf(dims[i], dimlen, "INT64_C(1)");
  for (;;) {
    tskip(&t);
    if (n == 3) {
      tfail(&t, t.p, "a grid has at most 3 dimensions");
      break;
    }
    char *v = t_expr(&t);
    if (!v) break;
    if (strlen(v) >= dimlen) {
      free(v);
      tfail(&t, t.start, "the grid expression is too long");
      break;
    }
    snprintf(dims[n++], dimlen, "%s", v);
    free(v);
    tskip(&t);
    if (*t.p == ',') {
      t.p++;
      tskip(&t);
      if (!*t.p) break; /* "(n,)" in Python: a trailing comma */
      continue;
    }
    if (!*t.p) break;
    if (*t.p == ')') tfail(&t, t.p, "unmatched ')'");
    else tfail(&t, t.p, "expected an operator, ',' or the end of the grid");
    break;
  }
  if (errpos) *errpos = t.errpos;
  if (uses) *uses |= t.uses;
  return !t.failed;
}
