/*
 * sema_values.c — values of the abstract interpreter: constexprs, the
 * helpers that read them as ints, strings, dtypes and shapes, and their
 * arithmetic. Runtime values, and the operators on them, are in
 * sema_arith.c.
 */
#include "sema.h"

/* ---- values ----------------------------------------------------------------- */

Val *sema_new_val(Sema *S, VKind k) {
  Val *v = arena_alloc(S->a, sizeof *v);
  v->kind = k;
  return v;
}

Val *val_rt(Sema *S, TNode *e) {
  Val *v = sema_new_val(S, V_RT);
  v->e = e;
  v->ty = e->type;
  return v;
}

Val *val_const(Sema *S, CValue *c) {
  Val *v = sema_new_val(S, V_CONST);
  v->c = c;
  return v;
}

/* A tuple's size: its values, a tuple among them counting one more than its
 * own size; a flat one that a builtin makes has none recorded. */
static int cv_tuple_size(const CValue *c) { return c->size ? c->size : c->nelems; }

static void check_tuple(Sema *S, Node *at, int depth, long size) {
  if (depth > MAX_TUPLE_DEPTH) sema_limit_error(S, at, "tuples nested more than %d deep", MAX_TUPLE_DEPTH);
  if (size > MAX_TUPLE_SIZE)
    sema_limit_error(S, at, "a tuple of more than %d values, those of the tuples in it included", MAX_TUPLE_SIZE);
}

void sema_tuple_nest(Sema *S, Node *at, Val **elems, int n, int *depth, int *size) {
  int d = 1;
  long sz = 0;
  for (int i = 0; i < n; i++) {
    const Val *v = elems[i];
    int ed = v->kind == V_TUPLE ? v->depth : v->kind == V_CONST && v->c->kind == CV_TUPLE ? v->c->depth : 0;
    long es = v->kind == V_TUPLE ? (v->size ? v->size : v->n)
              : v->kind == V_CONST && v->c->kind == CV_TUPLE ? cv_tuple_size(v->c) : 0;
    if (ed + 1 > d) d = ed + 1;
    sz += 1 + es;
    if (sz > MAX_TUPLE_SIZE) break;
  }
  check_tuple(S, at, d, sz);
  *depth = d;
  *size = (int)sz;
}

/* Constexpr strings and tuples are built whole: their size is bounded, and
 * building one costs work in proportion (see count_work). */
#define MAX_CONST_STR (1 << 20)
#define MAX_CONST_ELEMS (1 << 16)

/* The constant tuple of these n values (copied), its nesting checked. */
CValue *cv_tuple(Sema *S, Node *at, CValue *const *elems, int64_t n) {
  if (n > MAX_CONST_ELEMS) sema_error(S, at, "a constexpr tuple of %lld elements is too long (at most %d)", (long long)n, MAX_CONST_ELEMS);
  sema_count_work_n(S, at, (long)n);
  CValue *t = sema_cv_new(S, CV_TUPLE);
  long size = 0;
  t->depth = 1;
  for (int64_t i = 0; i < n; i++) {
    const CValue *e = elems[i];
    if (e->kind == CV_TUPLE && e->depth + 1 > t->depth) t->depth = e->depth + 1;
    size += 1 + (e->kind == CV_TUPLE ? cv_tuple_size(e) : 0);
    if (size > MAX_TUPLE_SIZE) break;
  }
  check_tuple(S, at, t->depth, size);
  t->size = (int)size;
  t->nelems = (int)n;
  t->elems = arena_alloc(S->a, sizeof(CValue *) * (size_t)(n + 1));
  if (n) memcpy(t->elems, elems, sizeof(CValue *) * (size_t)n);
  return t;
}

CValue *sema_cv_new(Sema *S, CKind k) {
  CValue *c = arena_alloc(S->a, sizeof *c);
  c->kind = k;
  return c;
}
CValue *cv_int(Sema *S, int64_t i) {
  CValue *c = sema_cv_new(S, CV_INT);
  c->i = i;
  return c;
}
CValue *cv_float(Sema *S, double f) {
  CValue *c = sema_cv_new(S, CV_FLOAT);
  c->f = f;
  return c;
}
CValue *cv_bool(Sema *S, bool b) {
  CValue *c = sema_cv_new(S, CV_BOOL);
  c->b = b;
  return c;
}
CValue *cv_str(Sema *S, const char *s) {
  CValue *c = sema_cv_new(S, CV_STR);
  c->s = s;
  return c;
}
CValue *cv_dtype(Sema *S, const Type *t) {
  CValue *c = sema_cv_new(S, CV_DTYPE);
  c->dtype = t;
  return c;
}
CValue *cv_none(Sema *S) { return sema_cv_new(S, CV_NONE); }
Val *val_none(Sema *S) { return val_const(S, cv_none(S)); }
bool val_is_none(const Val *v) { return !v || (v->kind == V_CONST && v->c->kind == CV_NONE); }

void cvalue_print(StrBuf *sb, const CValue *v) {
  switch (v->kind) {
  case CV_NONE: sb_printf(sb, "None"); return;
  case CV_INT:
    if (v->is_unsigned_big) sb_printf(sb, "%llu", (unsigned long long)v->i);
    else sb_printf(sb, "%lld", (long long)v->i);
    return;
  case CV_FLOAT: {
    if (isinf(v->f)) {
      sb_printf(sb, v->f > 0 ? "inf" : "-inf");
      return;
    }
    if (isnan(v->f)) {
      sb_printf(sb, "nan");
      return;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", v->f);
    /* shortest form that reads back the same */
    for (int prec = 1; prec < 17; prec++) {
      char b2[64];
      snprintf(b2, sizeof b2, "%.*g", prec, v->f);
      if (strtod(b2, NULL) == v->f) {
        snprintf(buf, sizeof buf, "%s", b2);
        break;
      }
    }
    sb_printf(sb, "%s", buf);
    if (!strpbrk(buf, ".en")) sb_printf(sb, ".0");
    return;
  }
  case CV_BOOL: sb_printf(sb, v->b ? "True" : "False"); return;
  case CV_STR: sb_printf(sb, "'%s'", v->s); return;
  case CV_DTYPE: ty_print(sb, v->dtype); return;
  case CV_TUPLE:
    sb_putc(sb, '(');
    for (int i = 0; i < v->nelems; i++) {
      if (i) sb_printf(sb, ", ");
      cvalue_print(sb, v->elems[i]);
    }
    if (v->nelems == 1) sb_putc(sb, ',');
    sb_putc(sb, ')');
    return;
  }
}

static const char *cv_str_of(Sema *S, const CValue *c) {
  StrBuf sb = {.arena = S->a};
  cvalue_print(&sb, c);
  const char *s = arena_strndup(S->a, sb.s ? sb.s : "", sb.len);
  sb_free(&sb);
  return s;
}

const char *sema_shown_name(Sema *S, const char *name) {
  size_t n = strlen(name);
  return n <= 100 ? name : arena_printf(S->a, "%.60s...%s", name, name + n - 30);
}

const char *val_desc(Sema *S, const Val *v) {
  switch (v->kind) {
  case V_CONST:
    switch (v->c->kind) {
    case CV_NONE: return "None";
    case CV_INT: return arena_printf(S->a, "constexpr int %s", cv_str_of(S, v->c));
    case CV_FLOAT: return arena_printf(S->a, "constexpr float %s", cv_str_of(S, v->c));
    case CV_BOOL: return arena_printf(S->a, "constexpr bool %s", cv_str_of(S, v->c));
    case CV_STR: return arena_printf(S->a, "string %s", cv_str_of(S, v->c));
    case CV_DTYPE: return arena_printf(S->a, "dtype %s", cv_str_of(S, v->c));
    case CV_TUPLE: return arena_printf(S->a, "constexpr tuple %s", cv_str_of(S, v->c));
    }
    break;
  case V_RT: return arena_printf(S->a, "a value of type %s", ty_str(S->a, v->ty));
  case V_TUPLE: return "a tuple";
  case V_FUNC: return arena_printf(S->a, "function '%s'", v->fn->name);
  case V_MODULE: return arena_printf(S->a, "module '%s'", sema_shown_name(S, v->path));
  case V_BUILTIN: case V_METHOD: return arena_printf(S->a, "builtin '%s'", v->builtin->name);
  case V_UNDEF: return "an undefined name";
  }
  return "?";
}

/* ---- constexpr helpers ---------------------------------------------------------- */

int64_t const_int(Sema *S, Node *at, Val *v, const char *what) {
  if (v->kind == V_CONST && v->c->kind == CV_INT) return v->c->i;
  if (v->kind == V_CONST && v->c->kind == CV_BOOL) return v->c->b;
  sema_error(S, at, "%s must be a constexpr integer, got %s", what, val_desc(S, v));
}

bool const_bool(Sema *S, Node *at, Val *v, const char *what) {
  if (v->kind == V_CONST && v->c->kind == CV_BOOL) return v->c->b;
  if (v->kind == V_CONST && v->c->kind == CV_INT) return v->c->i != 0;
  sema_error(S, at, "%s must be a constexpr bool, got %s", what, val_desc(S, v));
}

const char *const_str(Sema *S, Node *at, Val *v, const char *what) {
  if (v->kind == V_CONST && v->c->kind == CV_STR) return v->c->s;
  sema_error(S, at, "%s must be a string, got %s", what, val_desc(S, v));
}

const Type *const_dtype(Sema *S, Node *at, Val *v, const char *what) {
  if (v->kind == V_CONST && v->c->kind == CV_DTYPE) return v->c->dtype;
  sema_error(S, at, "%s must be a dtype such as tl.float32, got %s", what, val_desc(S, v));
}

/* A constexpr int or a tuple/list of them (a shape, an order, axes). */
static void check_entries(Sema *S, Node *at, int n, int max, const char *what) {
  if (n > max && max == MAX_RANK) sema_error(S, at, "%s has more than %d entries (blocks have at most %d dimensions)", what, max, MAX_RANK);
  if (n > max) sema_error(S, at, "%s has more than %d entries", what, max);
}

int const_int_list(Sema *S, Node *at, Val *v, int64_t *out, int max, const char *what) {
  if (v->kind == V_CONST && v->c->kind == CV_INT) {
    out[0] = v->c->i;
    return 1;
  }
  if (v->kind == V_CONST && v->c->kind == CV_TUPLE) {
    check_entries(S, at, v->c->nelems, max, what);
    for (int i = 0; i < v->c->nelems; i++) {
      CValue *e = v->c->elems[i];
      if (e->kind != CV_INT) sema_error(S, at, "%s must hold constexpr integers", what);
      out[i] = e->i;
    }
    return v->c->nelems;
  }
  if (v->kind == V_TUPLE) {
    check_entries(S, at, v->n, max, what);
    for (int i = 0; i < v->n; i++) out[i] = const_int(S, at, v->elems[i], what);
    return v->n;
  }
  sema_error(S, at, "%s must be a constexpr integer or a tuple of them, got %s", what, val_desc(S, v));
}

static bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

const Type *check_block_shape(Sema *S, Node *at, const Type *elem, int rank, const int64_t *shape) {
  if (rank > MAX_RANK) sema_error(S, at, "blocks of rank %d are not supported (at most %d)", rank, MAX_RANK);
  int64_t numel = 1;
  for (int i = 0; i < rank; i++) {
    if (!is_pow2(shape[i]))
      sema_error(S, at, "block shape dimension %d is %lld; Triton requires powers of 2", i,
                 (long long)shape[i]);
    numel *= shape[i];
    if (numel > (1 << 20))
      sema_error(S, at, "block has more than 1048576 elements");
  }
  return ty_block(S->tc, elem, rank, shape);
}

/* ---- constexpr arithmetic ------------------------------------------------------ */

double sema_cf(const CValue *c) {
  return c->kind == CV_FLOAT ? c->f : c->kind == CV_BOOL ? (double)c->b : (double)c->i;
}
int64_t sema_ci(const CValue *c) { return c->kind == CV_BOOL ? c->b : c->i; }
bool sema_c_is_num(const CValue *c) { return c->kind == CV_INT || c->kind == CV_FLOAT || c->kind == CV_BOOL; }

bool sema_cv_equal(const CValue *a, const CValue *b) {
  if (sema_c_is_num(a) && sema_c_is_num(b)) {
    if (a->kind == CV_FLOAT || b->kind == CV_FLOAT) return sema_cf(a) == sema_cf(b);
    return sema_ci(a) == sema_ci(b);
  }
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case CV_NONE: return true;
  case CV_STR: return !strcmp(a->s, b->s);
  case CV_DTYPE: return a->dtype == b->dtype;
  case CV_TUPLE:
    if (a->nelems != b->nelems) return false;
    for (int i = 0; i < a->nelems; i++)
      if (!sema_cv_equal(a->elems[i], b->elems[i])) return false;
    return true;
  default: return false;
  }
}

Val *sema_const_binary(Sema *S, Node *at, Op op, CValue *a, CValue *b) {
  if (op == TK_EQ) return val_const(S, cv_bool(S, sema_cv_equal(a, b)));
  if (op == TK_NE) return val_const(S, cv_bool(S, !sema_cv_equal(a, b)));
  if (op == TK_KW_is) return val_const(S, cv_bool(S, a->kind == b->kind && sema_cv_equal(a, b)));
  if (op == OP_IS_NOT) return val_const(S, cv_bool(S, !(a->kind == b->kind && sema_cv_equal(a, b))));
  if (op == TK_KW_in || op == OP_NOT_IN) {
    bool found = false;
    if (b->kind == CV_TUPLE) {
      for (int i = 0; i < b->nelems; i++) found |= sema_cv_equal(a, b->elems[i]);
    } else if (b->kind == CV_STR && a->kind == CV_STR) {
      found = strstr(b->s, a->s) != NULL;
    } else {
      sema_error(S, at, "'in' needs a tuple or string on its right");
    }
    return val_const(S, cv_bool(S, op == TK_KW_in ? found : !found));
  }
  if (a->kind == CV_STR && b->kind == CV_STR && op == TK_PLUS) {
    size_t n = strlen(a->s) + strlen(b->s);
    if (n > MAX_CONST_STR) sema_error(S, at, "a constexpr string of %zu bytes is too long (at most %d)", n, MAX_CONST_STR);
    sema_count_work_n(S, at, (long)n / 64);
    return val_const(S, cv_str(S, arena_printf(S->a, "%s%s", a->s, b->s)));
  }
  if (a->kind == CV_TUPLE && b->kind == CV_TUPLE && op == TK_PLUS) {
    int64_t n = (int64_t)a->nelems + b->nelems;
    CValue **e = arena_alloc(S->a, sizeof(CValue *) * (size_t)(n + 1));
    if (n <= MAX_CONST_ELEMS) {
      memcpy(e, a->elems, sizeof(CValue *) * (size_t)a->nelems);
      memcpy(e + a->nelems, b->elems, sizeof(CValue *) * (size_t)b->nelems);
    }
    return val_const(S, cv_tuple(S, at, e, n));
  }
  /* repetition: (64,) * 2, "ab" * 3, in either order */
  if (op == TK_STAR && (a->kind == CV_TUPLE || a->kind == CV_STR || b->kind == CV_TUPLE || b->kind == CV_STR) &&
      (a->kind == CV_INT || b->kind == CV_INT)) {
    const CValue *seq = a->kind == CV_INT ? b : a;
    int64_t times = (a->kind == CV_INT ? a : b)->i;
    if (times < 0) times = 0;
    size_t len = seq->kind == CV_STR ? strlen(seq->s) : (size_t)seq->nelems;
    if (len && (uint64_t)times > (uint64_t)MAX_CONST_ELEMS / len + 1)
      times = (int64_t)(MAX_CONST_ELEMS / len + 1); /* past every limit: the checks below report it */
    int64_t n = (int64_t)len * times;
    if (seq->kind == CV_STR) {
      if (n > MAX_CONST_STR) sema_error(S, at, "a constexpr string of %lld bytes is too long (at most %d)", (long long)n, MAX_CONST_STR);
      sema_count_work_n(S, at, (long)n / 64);
      char *r = arena_alloc(S->a, (size_t)n + 1);
      for (int64_t i = 0; i < times; i++) memcpy(r + i * (int64_t)len, seq->s, len);
      r[n] = 0;
      return val_const(S, cv_str(S, r));
    }
    CValue **e = arena_alloc(S->a, sizeof(CValue *) * (size_t)(n <= MAX_CONST_ELEMS ? n + 1 : 1));
    for (int64_t i = 0; i < n && n <= MAX_CONST_ELEMS; i++) e[i] = seq->elems[i % (int64_t)len];
    return val_const(S, cv_tuple(S, at, e, n));
  }
  if (!sema_c_is_num(a) || !sema_c_is_num(b))
    sema_error(S, at, "unsupported operand types for %s: %s and %s", tok_kind_name(op),
               val_desc(S, val_const(S, a)), val_desc(S, val_const(S, b)));
  bool fl = a->kind == CV_FLOAT || b->kind == CV_FLOAT;
  switch (op) {
  case TK_LT: return val_const(S, cv_bool(S, fl ? sema_cf(a) < sema_cf(b) : sema_ci(a) < sema_ci(b)));
  case TK_LE: return val_const(S, cv_bool(S, fl ? sema_cf(a) <= sema_cf(b) : sema_ci(a) <= sema_ci(b)));
  case TK_GT: return val_const(S, cv_bool(S, fl ? sema_cf(a) > sema_cf(b) : sema_ci(a) > sema_ci(b)));
  case TK_GE: return val_const(S, cv_bool(S, fl ? sema_cf(a) >= sema_cf(b) : sema_ci(a) >= sema_ci(b)));
  case TK_SLASH:
    if (sema_cf(b) == 0) sema_error(S, at, "division by zero in a constexpr expression");
    return val_const(S, cv_float(S, sema_cf(a) / sema_cf(b)));
  default: break;
  }
  if (fl) {
    double x = sema_cf(a), y = sema_cf(b), r;
    switch (op) {
    case TK_PLUS: r = x + y; break;
    case TK_MINUS: r = x - y; break;
    case TK_STAR: r = x * y; break;
    case TK_POW: r = pow(x, y); break;
    case TK_DSLASH:
      if (y == 0) sema_error(S, at, "division by zero in a constexpr expression");
      r = floor(x / y);
      break;
    case TK_PERCENT:
      if (y == 0) sema_error(S, at, "modulo by zero in a constexpr expression");
      r = fmod(x, y);
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      break;
    default: sema_error(S, at, "unsupported operand types for %s: float", tok_kind_name(op));
    }
    return val_const(S, cv_float(S, r));
  }
  int64_t x = sema_ci(a), y = sema_ci(b), r;
  switch (op) {
  case TK_PLUS:
    if (__builtin_add_overflow(x, y, &r)) goto overflow;
    break;
  case TK_MINUS:
    if (__builtin_sub_overflow(x, y, &r)) goto overflow;
    break;
  case TK_STAR:
    if (__builtin_mul_overflow(x, y, &r)) goto overflow;
    break;
  case TK_DSLASH: case TK_PERCENT: {
    if (y == 0) sema_error(S, at, "%s by zero in a constexpr expression", op == TK_DSLASH ? "division" : "modulo");
    if (x == INT64_MIN && y == -1) goto overflow;
    int64_t q = x / y, m = x % y;
    if (m != 0 && ((m < 0) != (y < 0))) {
      q--;
      m += y;
    }
    r = op == TK_DSLASH ? q : m;
    break;
  }
  case TK_POW: {
    if (y < 0) return val_const(S, cv_float(S, pow((double)x, (double)y)));
    if (x == 0 || x == 1) { r = y == 0 ? 1 : x; break; }
    if (x == -1) { r = (y & 1) ? -1 : 1; break; }
    r = 1;
    for (int64_t i = 0; i < y; i++)
      if (__builtin_mul_overflow(r, x, &r)) goto overflow;
    break;
  }
  case TK_AMP: r = x & y; break;
  case TK_PIPE: r = x | y; break;
  case TK_CARET: r = x ^ y; break;
  case TK_SHL:
    if (y < 0 || y >= 64) sema_error(S, at, "shift count %lld out of range", (long long)y);
    if (x != 0 && (y >= 63 || (x > 0 ? x > (INT64_MAX >> y) : x < (INT64_MIN >> y)))) goto overflow;
    r = (int64_t)((uint64_t)x << y);
    break;
  case TK_SHR:
    if (y < 0) sema_error(S, at, "negative shift count");
    r = y >= 64 ? (x < 0 ? -1 : 0) : x >> y;
    break;
  default: sema_error(S, at, "unsupported operator %s on constexpr integers", tok_kind_name(op));
  }
  if ((a->kind == CV_BOOL && b->kind == CV_BOOL) && (op == TK_AMP || op == TK_PIPE || op == TK_CARET))
    return val_const(S, cv_bool(S, r != 0));
  return val_const(S, cv_int(S, r));
overflow:
  sema_error(S, at, "constexpr integer overflow in %s", tok_kind_name(op));
}
