/*
 * run_grid.c — grid expressions for `tilec run`: "X[,Y[,Z]]", each the
 * integer subset of a Python expression, as a Triton grid lambda computes
 * it: `cdiv(n_elements, BLOCK_SIZE)`.
 *
 * A recursive-descent evaluator, one function per grammar rule (the rule
 * is the comment above it), evaluating as it parses. Values are int64 and
 * every operation is checked: an overflow is an error at the operator,
 * never a wrapped value; // and % round toward -infinity as in Python; /
 * must divide exactly. Nesting is bounded, so no input runs the stack out.
 */
#include "run.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define RUN_MAX_NESTING 100

typedef struct Grid {
  const char *start, *p;
  const RunName *names;
  int nnames;
  int depth;
  char *err;
  size_t errlen;
  size_t *errpos;
  bool failed;
} Grid;

static bool gfail(Grid *g, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool gfail(Grid *g, const char *at, const char *fmt, ...) {
  if (g->failed) return false;
  g->failed = true;
  if (g->err && g->errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->err, g->errlen, fmt, ap);
    va_end(ap);
  }
  *g->errpos = (size_t)(at - g->start);
  return false;
}

static void gskip(Grid *g) {
  while (*g->p == ' ' || *g->p == '\t') g->p++;
}

static bool is_ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Python's a // b and a % b: the quotient rounds toward -infinity, the
 * remainder takes the divisor's sign. The caller has checked b != 0. */
static bool floor_div(int64_t a, int64_t b, int64_t *q) {
  if (a == INT64_MIN && b == -1) return false;
  *q = a / b - (a % b != 0 && (a < 0) != (b < 0));
  return true;
}

static int64_t floor_mod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

/* Triton's cdiv: (a + b - 1) // b, computed as written. */
static bool g_cdiv(Grid *g, const char *at, int64_t a, int64_t b, int64_t *out) {
  if (b == 0) return gfail(g, at, "cdiv() by zero");
  int64_t t;
  if (__builtin_add_overflow(a, b, &t) || __builtin_sub_overflow(t, 1, &t) || !floor_div(t, b, out))
    return gfail(g, at, "cdiv(%" PRId64 ", %" PRId64 ") overflows", a, b);
  return true;
}

static bool g_expr(Grid *g, int64_t *v);

/* number = digits ('_' digits)* | '0x' hexdigits; a grid has no fractions */
static bool g_number(Grid *g, int64_t *v) {
  const char *at = g->p;
  int base = 10;
  if (g->p[0] == '0' && (g->p[1] == 'x' || g->p[1] == 'X') && isxdigit((unsigned char)g->p[2])) {
    base = 16;
    g->p += 2;
  }
  uint64_t mag = 0;
  bool overflow = false;
  for (;; g->p++) {
    char c = *g->p;
    if (c == '_' && isxdigit((unsigned char)g->p[1]) && (base == 16 || isdigit((unsigned char)g->p[1]))) continue;
    int d = isdigit((unsigned char)c) ? c - '0' : base == 16 && isxdigit((unsigned char)c) ? tolower(c) - 'a' + 10 : -1;
    if (d < 0) break;
    if (mag > ((uint64_t)INT64_MAX - (uint64_t)d) / (uint64_t)base) overflow = true;
    else mag = mag * (uint64_t)base + (uint64_t)d;
  }
  if (*g->p == '.' || is_ident_char(*g->p)) {
    while (*g->p == '.' || is_ident_char(*g->p)) g->p++;
    return gfail(g, at, "'%.*s' is not an integer (a grid is computed in integers)", (int)(g->p - at), at);
  }
  if (overflow) return gfail(g, at, "%.*s is too large", (int)(g->p - at), at);
  *v = (int64_t)mag;
  return true;
}

/* The names a grid may use, for messages: "a, b, c". */
static void list_names(const Grid *g, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = 0;
  for (int i = 0; i < g->nnames && n < len; i++) {
    if (g->names[i].unusable) continue;
    int w = snprintf(buf + n, len - n, "%s%s", n ? ", " : "", g->names[i].name);
    if (w < 0) break;
    n += (size_t)w;
  }
}

static bool g_name(Grid *g, const char *at, size_t len, int64_t *v) {
  for (int i = 0; i < g->nnames; i++) {
    const RunName *nm = &g->names[i];
    if (strlen(nm->name) != len || memcmp(nm->name, at, len)) continue;
    if (nm->unusable) return gfail(g, at, "'%s' is %s; a grid is computed from integers", nm->name, nm->unusable);
    *v = nm->value;
    return true;
  }
  if (len == 4 && !memcmp(at, "True", 4)) return *v = 1, true;
  if (len == 5 && !memcmp(at, "False", 5)) return *v = 0, true;
  char known[400];
  list_names(g, known, sizeof known);
  if (!known[0])
    return gfail(g, at, "unknown name '%.*s'; the kernel has no integer arguments or constexprs", (int)len, at);
  return gfail(g, at, "unknown name '%.*s'; the names are %s", (int)len, at, known);
}

/* call = NAME '(' expr (',' expr)* ')', for cdiv, min and max */
static bool g_call(Grid *g, const char *at, size_t len, int64_t *v) {
  bool cdiv = (len == 4 && !memcmp(at, "cdiv", 4)) || (len == 11 && !memcmp(at, "triton.cdiv", 11));
  bool is_min = len == 3 && !memcmp(at, "min", 3), is_max = len == 3 && !memcmp(at, "max", 3);
  if (!cdiv && !is_min && !is_max)
    return gfail(g, at, "unknown function '%.*s'; a grid may call cdiv, triton.cdiv, min and max", (int)len, at);
  g->p++; /* '(' */
  int64_t args[2] = {0, 0}, acc = 0;
  int n = 0;
  gskip(g);
  if (*g->p != ')') {
    for (;;) {
      int64_t x;
      if (!g_expr(g, &x)) return false;
      if (cdiv) {
        if (n < 2) args[n] = x;
      } else {
        acc = n == 0 || (is_min ? x < acc : x > acc) ? x : acc;
      }
      n++;
      gskip(g);
      if (*g->p != ',') break;
      g->p++;
    }
  }
  if (*g->p != ')') return gfail(g, g->p, "expected ',' or ')' in the arguments of %.*s()", (int)len, at);
  g->p++;
  if (cdiv && n != 2) return gfail(g, at, "%.*s() takes 2 arguments, got %d", (int)len, at, n);
  if (!cdiv && n < 2) return gfail(g, at, "%.*s() takes 2 or more arguments, got %d", (int)len, at, n);
  if (cdiv) return g_cdiv(g, at, args[0], args[1], v);
  *v = acc;
  return true;
}

/* subscript = ('meta' | 'META') '[' STRING ']', the argument of a grid lambda */
static bool g_subscript(Grid *g, int64_t *v) {
  g->p++; /* '[' */
  gskip(g);
  char q = *g->p;
  if (q != '"' && q != '\'') return gfail(g, g->p, "expected a quoted name after '['");
  const char *s = ++g->p;
  while (*g->p && *g->p != q) g->p++;
  if (!*g->p) return gfail(g, s - 1, "unterminated string");
  size_t len = (size_t)(g->p - s);
  g->p++;
  gskip(g);
  if (*g->p != ']') return gfail(g, g->p, "expected ']'");
  g->p++;
  return g_name(g, s, len, v);
}

/* primary = number | NAME | call | subscript | '(' expr ')' */
static bool g_primary(Grid *g, int64_t *v) {
  gskip(g);
  const char *at = g->p;
  if (isdigit((unsigned char)*at)) return g_number(g, v);
  if (*at == '(') {
    g->p++;
    if (!g_expr(g, v)) return false;
    gskip(g);
    if (*g->p == ',') return gfail(g, at, "a grid is X,Y,Z without parentheses, not a tuple");
    if (*g->p != ')') return gfail(g, g->p, "expected ')'");
    g->p++;
    return true;
  }
  if (is_ident_start(*at)) {
    while (is_ident_char(*g->p)) g->p++;
    size_t len = (size_t)(g->p - at);
    if (len == 6 && !memcmp(at, "triton", 6) && g->p[0] == '.' && is_ident_start(g->p[1])) {
      g->p++;
      while (is_ident_char(*g->p)) g->p++;
      len = (size_t)(g->p - at);
    }
    const char *end = g->p;
    gskip(g);
    if (*g->p == '(') return g_call(g, at, len, v);
    if (*g->p == '[' && ((len == 4 && !memcmp(at, "meta", 4)) || (len == 4 && !memcmp(at, "META", 4))))
      return g_subscript(g, v);
    g->p = end;
    return g_name(g, at, len, v);
  }
  if (!*at) return gfail(g, at, "the expression ends early: expected a number, a name or '('");
  if ((unsigned char)*at < 0x20 || (unsigned char)*at >= 0x7f)
    return gfail(g, at, "unexpected byte 0x%02x: expected a number, a name or '('", (unsigned char)*at);
  return gfail(g, at, "unexpected '%c': expected a number, a name or '('", *at);
}

/* unary = ('-' | '+') unary | primary; the nesting is bounded so that no
 * input runs the stack out */
static bool g_unary(Grid *g, int64_t *v) {
  gskip(g);
  const char *at = g->p;
  if (++g->depth > RUN_MAX_NESTING) return gfail(g, at, "the expression nests too deeply");
  bool ok;
  if (*at == '-' || *at == '+') {
    g->p++;
    ok = g_unary(g, v);
    if (ok && *at == '-') {
      if (*v == INT64_MIN) ok = gfail(g, at, "-(%" PRId64 ") overflows", *v);
      else *v = -*v;
    }
  } else {
    ok = g_primary(g, v);
  }
  g->depth--;
  return ok;
}

/* term = unary (('*' | '//' | '/' | '%') unary)* */
static bool g_term(Grid *g, int64_t *v) {
  if (!g_unary(g, v)) return false;
  for (;;) {
    gskip(g);
    const char *at = g->p;
    char op = *at;
    if (op != '*' && op != '/' && op != '%') return true;
    if (op == '*' && at[1] == '*') return gfail(g, at, "'**' is not supported in a grid");
    bool floordiv = op == '/' && at[1] == '/';
    g->p += floordiv ? 2 : 1;
    int64_t r, a = *v;
    if (!g_unary(g, &r)) return false;
    if (op == '*') {
      if (__builtin_mul_overflow(a, r, v)) return gfail(g, at, "%" PRId64 " * %" PRId64 " overflows", a, r);
      continue;
    }
    if (r == 0) return gfail(g, at, "division by zero");
    if (op == '%') {
      *v = floor_mod(a, r);
    } else if (floordiv) {
      if (!floor_div(a, r, v)) return gfail(g, at, "%" PRId64 " // %" PRId64 " overflows", a, r);
    } else {
      if (floor_mod(a, r) != 0)
        return gfail(g, at, "%" PRId64 " / %" PRId64 " is not an integer; use // or cdiv()", a, r);
      if (!floor_div(a, r, v)) return gfail(g, at, "%" PRId64 " / %" PRId64 " overflows", a, r);
    }
  }
}

/* expr = term (('+' | '-') term)* */
static bool g_expr(Grid *g, int64_t *v) {
  if (++g->depth > RUN_MAX_NESTING) return gfail(g, g->p, "the expression nests too deeply");
  bool ok = g_term(g, v);
  while (ok) {
    gskip(g);
    const char *at = g->p;
    char op = *at;
    if (op != '+' && op != '-') break;
    g->p++;
    int64_t r, a = *v;
    ok = g_term(g, &r);
    if (ok && (op == '+' ? __builtin_add_overflow(a, r, v) : __builtin_sub_overflow(a, r, v)))
      ok = gfail(g, at, "%" PRId64 " %c %" PRId64 " overflows", a, op, r);
  }
  g->depth--;
  return ok;
}

/* grid = expr (',' expr){0,2} ','? */
bool run_grid_eval(const char *grid, const RunName *names, int nnames, unsigned dims[3], char *err,
                   size_t errlen, size_t *errpos) {
  size_t pos_unused;
  Grid g = {.start = grid ? grid : "", .names = names, .nnames = nnames, .err = err, .errlen = errlen,
            .errpos = errpos ? errpos : &pos_unused};
  g.p = g.start;
  int64_t v[3] = {1, 1, 1};
  const char *at[3] = {g.start, g.start, g.start};
  int n = 0;
  for (;;) {
    gskip(&g);
    if (n == 3) return gfail(&g, g.p, "a grid has at most 3 dimensions");
    at[n] = g.p;
    if (!g_expr(&g, &v[n])) return false;
    n++;
    gskip(&g);
    if (*g.p == ',') {
      g.p++;
      gskip(&g);
      if (!*g.p) break; /* "(n,)" in Python: a trailing comma */
      continue;
    }
    if (!*g.p) break;
    if (*g.p == ')') return gfail(&g, g.p, "unmatched ')'");
    return gfail(&g, g.p, "expected an operator, ',' or the end of the grid");
  }
  static const char axis[3] = {'x', 'y', 'z'};
  for (int i = 0; i < n; i++) {
    int64_t most = i == 0 ? INT32_MAX : 65535;
    if (v[i] < 1) return gfail(&g, at[i], "grid dimension %c is %" PRId64 "; it must be at least 1", axis[i], v[i]);
    if (v[i] > most)
      return gfail(&g, at[i], "grid dimension %c is %" PRId64 "; the most is %" PRId64, axis[i], v[i], most);
  }
  for (int i = 0; i < 3; i++) dims[i] = (unsigned)v[i];
  return true;
}
