/*
 * grid.c — grid expressions: the parser, which builds the tree, and the
 * evaluator. The grammar is in grid.h; each parsing function has its rule
 * above it and returns a node index, or -1 after recording the error.
 */
#include "grid.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define GRID_MAX_NESTING 100

typedef struct Parser {
  Grid *g;
  const char *start, *p;
  const GridName *names;
  int nnames;
  int depth;
  GridError *e;
  bool failed;
} Parser;

static void record(GridError *e, size_t pos, const char *fmt, va_list ap) {
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  e->pos = pos;
}

static int pfail(Parser *P, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pfail(Parser *P, const char *at, const char *fmt, ...) {
  if (P->failed) return -1;
  P->failed = true;
  va_list ap;
  va_start(ap, fmt);
  record(P->e, (size_t)(at - P->start), fmt, ap);
  va_end(ap);
  return -1;
}

static int node(Parser *P, const char *at, GridOp op, int a, int b, int64_t value) {
  if (a < 0 && op > GRID_NAME) return -1;
  if (b < 0 && op > GRID_NEG) return -1;
  if (P->g->n == GRID_MAX_NODES) return pfail(P, P->start, "the grid expression is too long");
  int i = P->g->n++;
  P->g->node[i] = (GridNode){.op = op, .a = a, .b = b, .pos = (int)(at - P->start), .value = value};
  return i;
}

static void skip(Parser *P) {
  while (*P->p == ' ' || *P->p == '\t') P->p++;
}

static bool is_ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static int p_expr(Parser *P);

/* number = digits ('_' digits)* | '0x' hexdigits; a grid has no fractions */
static int p_number(Parser *P) {
  const char *at = P->p;
  int base = 10;
  if (P->p[0] == '0' && (P->p[1] == 'x' || P->p[1] == 'X') && isxdigit((unsigned char)P->p[2])) {
    base = 16;
    P->p += 2;
  }
  uint64_t mag = 0;
  bool overflow = false;
  for (;; P->p++) {
    char c = *P->p;
    if (c == '_' && isxdigit((unsigned char)P->p[1]) && (base == 16 || isdigit((unsigned char)P->p[1]))) continue;
    int d = isdigit((unsigned char)c) ? c - '0' : base == 16 && isxdigit((unsigned char)c) ? tolower(c) - 'a' + 10 : -1;
    if (d < 0) break;
    if (mag > ((uint64_t)INT64_MAX - (uint64_t)d) / (uint64_t)base) overflow = true;
    else mag = mag * (uint64_t)base + (uint64_t)d;
  }
  if (*P->p == '.' || is_ident_char(*P->p)) {
    while (*P->p == '.' || is_ident_char(*P->p)) P->p++;
    return pfail(P, at, "'%.*s' is not an integer (a grid is computed in integers)", (int)(P->p - at), at);
  }
  if (overflow) return pfail(P, at, "%.*s is too large", (int)(P->p - at), at);
  return node(P, at, GRID_INT, -1, -1, (int64_t)mag);
}

static int p_name(Parser *P, const char *at, size_t len) {
  for (int i = 0; i < P->nnames; i++) {
    const GridName *nm = &P->names[i];
    if (strlen(nm->name) != len || memcmp(nm->name, at, len)) continue;
    if (nm->unusable) return pfail(P, at, "'%s' is %s; a grid is computed from integers", nm->name, nm->unusable);
    return node(P, at, GRID_NAME, -1, -1, i);
  }
  if (len == 4 && !memcmp(at, "True", 4)) return node(P, at, GRID_INT, -1, -1, 1);
  if (len == 5 && !memcmp(at, "False", 5)) return node(P, at, GRID_INT, -1, -1, 0);
  char known[400];
  size_t n = 0;
  known[0] = 0;
  for (int i = 0; i < P->nnames && n < sizeof known; i++) {
    if (P->names[i].unusable) continue;
    int w = snprintf(known + n, sizeof known - n, "%s%s", n ? ", " : "", P->names[i].name);
    if (w < 0) break;
    n += (size_t)w;
  }
  if (!known[0])
    return pfail(P, at, "unknown name '%.*s'; the kernel has no integer arguments or constexprs", (int)len, at);
  return pfail(P, at, "unknown name '%.*s'; the names are %s", (int)len, at, known);
}

/* call = ('cdiv' | 'triton.cdiv' | 'min' | 'max') '(' expr (',' expr)* ')' */
static int p_call(Parser *P, const char *at, size_t len) {
  bool cdiv = (len == 4 && !memcmp(at, "cdiv", 4)) || (len == 11 && !memcmp(at, "triton.cdiv", 11));
  bool is_min = len == 3 && !memcmp(at, "min", 3), is_max = len == 3 && !memcmp(at, "max", 3);
  if (!cdiv && !is_min && !is_max)
    return pfail(P, at, "unknown function '%.*s'; a grid may call cdiv, triton.cdiv, min and max", (int)len, at);
  GridOp op = cdiv ? GRID_CDIV : is_min ? GRID_MIN : GRID_MAX;
  P->p++; /* '(' */
  int acc = -1, n = 0;
  skip(P);
  if (*P->p != ')') {
    for (;;) {
      int x = p_expr(P);
      if (x < 0) return -1;
      acc = n == 0 ? x : node(P, at, op, acc, x, 0); /* min(a, b, c) is min(min(a, b), c) */
      if (acc < 0) return -1;
      n++;
      skip(P);
      if (*P->p != ',') break;
      P->p++;
    }
  }
  if (*P->p != ')') return pfail(P, P->p, "expected ',' or ')' in the arguments of %.*s()", (int)len, at);
  P->p++;
  if (cdiv && n != 2) return pfail(P, at, "%.*s() takes 2 arguments, got %d", (int)len, at, n);
  if (!cdiv && n < 2) return pfail(P, at, "%.*s() takes 2 or more arguments, got %d", (int)len, at, n);
  return acc;
}

/* subscript = ('meta' | 'META') '[' STRING ']', the argument of a grid lambda */
static int p_subscript(Parser *P) {
  P->p++; /* '[' */
  skip(P);
  char q = *P->p;
  if (q != '"' && q != '\'') return pfail(P, P->p, "expected a quoted name after '['");
  const char *s = ++P->p;
  while (*P->p && *P->p != q) P->p++;
  if (!*P->p) return pfail(P, s - 1, "unterminated string");
  size_t len = (size_t)(P->p - s);
  P->p++;
  skip(P);
  if (*P->p != ']') return pfail(P, P->p, "expected ']'");
  P->p++;
  return p_name(P, s, len);
}

/* primary = number | NAME | call | subscript | '(' expr ')' */
static int p_primary(Parser *P) {
  skip(P);
  const char *at = P->p;
  if (isdigit((unsigned char)*at)) return p_number(P);
  if (*at == '(') {
    P->p++;
    int v = p_expr(P);
    if (v < 0) return -1;
    skip(P);
    if (*P->p == ',') return pfail(P, at, "a grid is X,Y,Z without parentheses, not a tuple");
    if (*P->p != ')') return pfail(P, P->p, "expected ')'");
    P->p++;
    return v;
  }
  if (is_ident_start(*at)) {
    while (is_ident_char(*P->p)) P->p++;
    size_t len = (size_t)(P->p - at);
    if (len == 6 && !memcmp(at, "triton", 6) && P->p[0] == '.' && is_ident_start(P->p[1])) {
      P->p++;
      while (is_ident_char(*P->p)) P->p++;
      len = (size_t)(P->p - at);
    }
    const char *end = P->p;
    skip(P);
    if (*P->p == '(') return p_call(P, at, len);
    if (*P->p == '[' && len == 4 && (!memcmp(at, "meta", 4) || !memcmp(at, "META", 4))) return p_subscript(P);
    P->p = end;
    return p_name(P, at, len);
  }
  if (!*at) return pfail(P, at, "the expression ends early: expected a number, a name or '('");
  if ((unsigned char)*at < 0x20 || (unsigned char)*at >= 0x7f)
    return pfail(P, at, "unexpected byte 0x%02x: expected a number, a name or '('", (unsigned char)*at);
  return pfail(P, at, "unexpected '%c': expected a number, a name or '('", *at);
}

/* unary = ('-' | '+') unary | primary */
static int p_unary(Parser *P) {
  skip(P);
  const char *at = P->p;
  if (++P->depth > GRID_MAX_NESTING) return pfail(P, at, "the expression nests too deeply");
  int v;
  if (*at == '-' || *at == '+') {
    P->p++;
    v = p_unary(P);
    if (*at == '-') v = node(P, at, GRID_NEG, v, -1, 0);
  } else {
    v = p_primary(P);
  }
  P->depth--;
  return v;
}

/* term = unary (('*' | '//' | '/' | '%') unary)* */
static int p_term(Parser *P) {
  int v = p_unary(P);
  while (v >= 0) {
    skip(P);
    const char *at = P->p;
    char op = *at;
    if (op != '*' && op != '/' && op != '%') return v;
    if (op == '*' && at[1] == '*') return pfail(P, at, "'**' is not supported in a grid");
    bool floordiv = op == '/' && at[1] == '/';
    P->p += floordiv ? 2 : 1;
    int r = p_unary(P);
    v = node(P, at, op == '*' ? GRID_MUL : op == '%' ? GRID_MOD : floordiv ? GRID_FLOORDIV : GRID_DIV, v, r, 0);
  }
  return -1;
}

/* expr = term (('+' | '-') term)* */
static int p_expr(Parser *P) {
  if (++P->depth > GRID_MAX_NESTING) return pfail(P, P->p, "the expression nests too deeply");
  int v = p_term(P);
  while (v >= 0) {
    skip(P);
    const char *at = P->p;
    if (*at != '+' && *at != '-') break;
    P->p++;
    int r = p_term(P);
    v = node(P, at, *at == '+' ? GRID_ADD : GRID_SUB, v, r, 0);
  }
  P->depth--;
  return v;
}

/* grid = expr (',' expr){0,2} ','? */
bool grid_parse(Grid *g, const char *text, const GridName *names, int nnames, GridError *e) {
  memset(g, 0, offsetof(Grid, node));
  Parser P = {.g = g, .start = text ? text : "", .names = names, .nnames = nnames, .e = e};
  P.p = P.start;
  for (;;) {
    skip(&P);
    if (g->ndims == 3) return pfail(&P, P.p, "a grid has at most 3 dimensions"), false;
    g->start[g->ndims] = (int)(P.p - P.start);
    int v = p_expr(&P);
    if (v < 0) return false;
    g->root[g->ndims++] = v;
    skip(&P);
    if (*P.p == ',') {
      P.p++;
      skip(&P);
      if (!*P.p) break; /* "(n,)" in Python: a trailing comma */
      continue;
    }
    if (!*P.p) break;
    if (*P.p == ')') return pfail(&P, P.p, "unmatched ')'"), false;
    return pfail(&P, P.p, "expected an operator, ',' or the end of the grid"), false;
  }
  return true;
}

/* ---- evaluation ---------------------------------------------------------------------------- */

static bool efail(GridError *e, int pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool efail(GridError *e, int pos, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(e, (size_t)pos, fmt, ap);
  va_end(ap);
  return false;
}

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

static bool eval(const Grid *g, int i, const int64_t *values, int64_t *v, GridError *e) {
  const GridNode *n = &g->node[i];
  int64_t a, b;
  switch (n->op) {
  case GRID_INT: *v = n->value; return true;
  case GRID_NAME: *v = values[n->value]; return true;
  case GRID_NEG:
    if (!eval(g, n->a, values, &a, e)) return false;
    if (a == INT64_MIN) return efail(e, n->pos, "-(%" PRId64 ") overflows", a);
    *v = -a;
    return true;
  default: break;
  }
  if (!eval(g, n->a, values, &a, e) || !eval(g, n->b, values, &b, e)) return false;
  switch (n->op) {
  case GRID_ADD:
    if (__builtin_add_overflow(a, b, v)) return efail(e, n->pos, "%" PRId64 " + %" PRId64 " overflows", a, b);
    return true;
  case GRID_SUB:
    if (__builtin_sub_overflow(a, b, v)) return efail(e, n->pos, "%" PRId64 " - %" PRId64 " overflows", a, b);
    return true;
  case GRID_MUL:
    if (__builtin_mul_overflow(a, b, v)) return efail(e, n->pos, "%" PRId64 " * %" PRId64 " overflows", a, b);
    return true;
  case GRID_MOD:
    if (b == 0) return efail(e, n->pos, "division by zero");
    *v = floor_mod(a, b);
    return true;
  case GRID_FLOORDIV:
    if (b == 0) return efail(e, n->pos, "division by zero");
    if (!floor_div(a, b, v)) return efail(e, n->pos, "%" PRId64 " // %" PRId64 " overflows", a, b);
    return true;
  case GRID_DIV:
    if (b == 0) return efail(e, n->pos, "division by zero");
    if (floor_mod(a, b) != 0) return efail(e, n->pos, "%" PRId64 " / %" PRId64 " is not an integer; use // or cdiv()", a, b);
    if (!floor_div(a, b, v)) return efail(e, n->pos, "%" PRId64 " / %" PRId64 " overflows", a, b);
    return true;
  case GRID_CDIV: {
    /* Triton's cdiv: (a + b - 1) // b, computed as written */
    if (b == 0) return efail(e, n->pos, "cdiv() by zero");
    int64_t t;
    if (__builtin_add_overflow(a, b, &t) || __builtin_sub_overflow(t, 1, &t) || !floor_div(t, b, v))
      return efail(e, n->pos, "cdiv(%" PRId64 ", %" PRId64 ") overflows", a, b);
    return true;
  }
  case GRID_MIN: *v = b < a ? b : a; return true;
  case GRID_MAX: *v = b > a ? b : a; return true;
  default: return efail(e, n->pos, "a grid node of unknown kind");
  }
}

bool grid_eval(const Grid *g, const int64_t *values, unsigned dims[3], GridError *e) {
  static const char axis[3] = {'x', 'y', 'z'};
  int64_t v[3] = {1, 1, 1};
  for (int i = 0; i < g->ndims; i++)
    if (!eval(g, g->root[i], values, &v[i], e)) return false;
  for (int i = 0; i < g->ndims; i++) {
    int64_t most = i == 0 ? GRID_MAX_X : GRID_MAX_YZ;
    if (v[i] < 1) return efail(e, g->start[i], "grid dimension %c is %" PRId64 "; it must be at least 1", axis[i], v[i]);
    if (v[i] > most)
      return efail(e, g->start[i], "grid dimension %c is %" PRId64 "; the most is %" PRId64, axis[i], v[i], most);
  }
  for (int i = 0; i < 3; i++) dims[i] = (unsigned)v[i];
  return true;
}

bool grid_check(const unsigned dims[3], GridError *e) {
  static const char axis[3] = {'x', 'y', 'z'};
  for (int i = 0; i < 3; i++) {
    unsigned most = i == 0 ? GRID_MAX_X : GRID_MAX_YZ;
    if (dims[i] < 1) return efail(e, 0, "grid dimension %c is 0; it must be at least 1", axis[i]);
    if (dims[i] > most) return efail(e, 0, "grid dimension %c is %u; the most is %u", axis[i], dims[i], most);
  }
  return true;
}

bool grid_eval_value(const Grid *g, const int64_t *values, int64_t *out, GridError *e) {
  if (g->ndims != 1) return efail(e, g->start[1], "one expression is expected here, not a grid of %d", g->ndims);
  return eval(g, g->root[0], values, out, e);
}

const char *grid_unusable_type(const char *type) {
  if (!type || !*type) return "of no known type";
  if (type[0] == '*') return "a pointer parameter";
  if (type[0] == 'i' || type[0] == 'u') return NULL;
  return "a floating-point parameter";
}
