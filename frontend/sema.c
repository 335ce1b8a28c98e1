/*
 * sema.c — the kernel's AST to a typed, specialized AST.
 *
 * Sema is an abstract interpreter of the kernel body, in the way Triton's
 * code generator is: constexpr values (ints, floats, bools, strings, dtypes,
 * tuples) are computed here, so an `if` on a constexpr keeps one branch, a
 * `tl.static_range` loop is unrolled, and a call of another `@jit` function is
 * inlined with its own constexpr arguments. What remains is runtime work,
 * written out as typed TNodes with every implicit conversion made explicit
 * (casts, splats of scalars to blocks, broadcasts), so that the IR builder
 * never needs to know Triton's promotion rules.
 *
 * Python variables become Vars: one per name per inlined function. A runtime
 * `if` or loop merges what its branches assigned; a constexpr that a loop
 * re-assigns becomes a runtime value before the loop, as in Triton.
 */
#define TILEC_SEMA_INTERNAL
#include "frontend.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INLINE_DEPTH 64

/* ---- environments ----------------------------------------------------------- */

typedef struct Env {
  const char **names;
  Val **vals;
  int n, cap;
} Env;

typedef struct Frame {
  Env env;
  JitFunc *fn;
  const InlineSite *site;
  bool is_kernel;
  Val *ret;        /* an inlined function's return value */
  bool returned;   /* a return ran at this level: skip the rest */
  int rt_depth;    /* nesting of runtime if/loops */
  int loop_depth;  /* runtime loops, for break/continue */
  int static_depth; /* static_range loops */
  PtrVec var_names; /* Var* per name, shared by every assignment in the frame */
  PtrVec vars;
} Frame;

static Val *env_get(Env *e, const char *name) {
  for (int i = e->n - 1; i >= 0; i--)
    if (!strcmp(e->names[i], name)) return e->vals[i];
  return NULL;
}

static void env_set(Sema *S, Env *e, const char *name, Val *v) {
  for (int i = 0; i < e->n; i++)
    if (!strcmp(e->names[i], name)) {
      e->vals[i] = v;
      return;
    }
  if (e->n == e->cap) {
    int cap = e->cap ? e->cap * 2 : 16;
    const char **names = arena_alloc(S->a, sizeof(char *) * (size_t)cap);
    Val **vals = arena_alloc(S->a, sizeof(Val *) * (size_t)cap);
    if (e->n) {
      memcpy(names, e->names, sizeof(char *) * (size_t)e->n);
      memcpy(vals, e->vals, sizeof(Val *) * (size_t)e->n);
    }
    e->names = names;
    e->vals = vals;
    e->cap = cap;
  }
  e->names[e->n] = name;
  e->vals[e->n++] = v;
}

static Env env_copy(Sema *S, const Env *e) {
  Env c = {0};
  for (int i = 0; i < e->n; i++) env_set(S, &c, e->names[i], e->vals[i]);
  return c;
}

/* ---- errors and nodes --------------------------------------------------------- */

Loc sema_loc(Node *n) { return n && n->tok ? n->tok->loc : (Loc){0}; }

_Noreturn void sema_error(Sema *S, Node *at, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  S->d->site = S->f ? S->f->site : NULL;
  diag_error(S->d, sema_loc(at), "%s", buf);
}

TNode *tnode(Sema *S, TNodeKind k, Node *at, const Type *ty) {
  TNode *t = arena_alloc(S->a, sizeof *t);
  t->kind = k;
  t->type = ty;
  t->loc = sema_loc(at);
  t->site = S->f ? S->f->site : NULL;
  return t;
}

void emit_stmt(Sema *S, TNode *t) { vec_push(S->a, S->out, t); }

static TNodeList to_tlist(Sema *S, PtrVec *v) {
  TNodeList l = {NULL, v->n};
  if (v->n) {
    l.v = arena_alloc(S->a, sizeof(TNode *) * (size_t)v->n);
    memcpy(l.v, v->v, sizeof(TNode *) * (size_t)v->n);
  }
  return l;
}

void add_attr(Sema *S, TNode *call, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  call->attrs = call->attrs ? arena_printf(S->a, "%s %s", call->attrs, buf) : arena_strndup(S->a, buf, strlen(buf));
}

TNode *emit_call(Sema *S, Node *at, const char *callee, const Type *ty, TNode **ops, int nops) {
  TNode *t = tnode(S, T_CALL, at, ty);
  t->callee = callee;
  t->args.n = nops;
  if (nops) {
    t->args.v = arena_alloc(S->a, sizeof(TNode *) * (size_t)nops);
    memcpy(t->args.v, ops, sizeof(TNode *) * (size_t)nops);
  }
  return t;
}

/* ---- values ----------------------------------------------------------------- */

static Val *new_val(Sema *S, VKind k) {
  Val *v = arena_alloc(S->a, sizeof *v);
  v->kind = k;
  return v;
}

Val *val_rt(Sema *S, TNode *e) {
  Val *v = new_val(S, V_RT);
  v->e = e;
  v->ty = e->type;
  return v;
}

Val *val_const(Sema *S, CValue *c) {
  Val *v = new_val(S, V_CONST);
  v->c = c;
  return v;
}

static CValue *cv_new(Sema *S, CKind k) {
  CValue *c = arena_alloc(S->a, sizeof *c);
  c->kind = k;
  return c;
}
CValue *cv_int(Sema *S, int64_t i) {
  CValue *c = cv_new(S, CV_INT);
  c->i = i;
  return c;
}
CValue *cv_float(Sema *S, double f) {
  CValue *c = cv_new(S, CV_FLOAT);
  c->f = f;
  return c;
}
CValue *cv_bool(Sema *S, bool b) {
  CValue *c = cv_new(S, CV_BOOL);
  c->b = b;
  return c;
}
CValue *cv_str(Sema *S, const char *s) {
  CValue *c = cv_new(S, CV_STR);
  c->s = s;
  return c;
}
CValue *cv_dtype(Sema *S, const Type *t) {
  CValue *c = cv_new(S, CV_DTYPE);
  c->dtype = t;
  return c;
}
CValue *cv_none(Sema *S) { return cv_new(S, CV_NONE); }
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
  case V_MODULE: return arena_printf(S->a, "module '%s'", v->path);
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
int const_int_list(Sema *S, Node *at, Val *v, int64_t *out, int max, const char *what) {
  if (v->kind == V_CONST && v->c->kind == CV_INT) {
    out[0] = v->c->i;
    return 1;
  }
  if (v->kind == V_CONST && v->c->kind == CV_TUPLE) {
    if (v->c->nelems > max) sema_error(S, at, "%s has more than %d entries", what, max);
    for (int i = 0; i < v->c->nelems; i++) {
      CValue *e = v->c->elems[i];
      if (e->kind != CV_INT) sema_error(S, at, "%s must hold constexpr integers", what);
      out[i] = e->i;
    }
    return v->c->nelems;
  }
  if (v->kind == V_TUPLE) {
    if (v->n > max) sema_error(S, at, "%s has more than %d entries", what, max);
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

/* ---- runtime conversions ------------------------------------------------------ */

/* The dtype a Python scalar takes when it becomes a tensor (Triton's to_tensor). */
static const Type *const_default_type(Sema *S, Node *at, CValue *c) {
  switch (c->kind) {
  case CV_BOOL: return ty_scalar(S->tc, DT_I1);
  case CV_INT:
    if (c->is_unsigned_big) return ty_scalar(S->tc, DT_U64);
    if (c->i >= INT32_MIN && c->i <= INT32_MAX) return ty_scalar(S->tc, DT_I32);
    if (c->i > INT32_MAX && c->i <= (int64_t)UINT32_MAX) return ty_scalar(S->tc, DT_U32);
    return ty_scalar(S->tc, DT_I64);
  case CV_FLOAT: return ty_scalar(S->tc, DT_F32);
  default: sema_error(S, at, "a %s cannot be used as a tensor value", c->kind == CV_STR ? "string" : c->kind == CV_NONE ? "None" : c->kind == CV_DTYPE ? "dtype" : "tuple");
  }
}

static TNode *const_node(Sema *S, Node *at, CValue *c, const Type *ty) {
  TNode *t = tnode(S, T_CONST, at, ty);
  const Type *e = ty_elem(ty);
  if (e->kind == TY_SCALAR && dtype_is_float(e->dtype)) {
    t->cfloat = c->kind == CV_FLOAT ? c->f : c->kind == CV_BOOL ? (double)c->b :
                c->is_unsigned_big ? (double)(uint64_t)c->i : (double)c->i;
  } else if (c->kind == CV_FLOAT) {
    t->cint = (int64_t)c->f;
  } else {
    t->cint = c->kind == CV_BOOL ? c->b : c->i;
  }
  if (e->kind == TY_SCALAR && e->dtype == DT_I1) t->cint = t->cint != 0;
  return t;
}

TNode *to_rt(Sema *S, Node *at, Val *v) {
  switch (v->kind) {
  case V_RT: return v->e;
  case V_CONST: return const_node(S, at, v->c, const_default_type(S, at, v->c));
  case V_UNDEF: sema_error(S, at, "%s", v->why);
  default: sema_error(S, at, "expected a tensor or scalar value, got %s", val_desc(S, v));
  }
}

/* The value a constant takes converted to the integer dtype to, as the GPU
   computes it: a float is truncated and saturated to the target's range (NaN
   becomes 0, as cvt.rzi.sat does), an integer wraps to the target's width. */
static int64_t fold_int_cast(bool from_float, double f, int64_t i, DType to) {
  int bits = dtype_bits(to);
  bool sgn = dtype_is_signed(to);
  if (from_float) {
    if (isnan(f)) return 0;
    double lo = sgn ? -ldexp(1, bits - 1) : 0, hi = sgn ? ldexp(1, bits - 1) : ldexp(1, bits);
    if (f <= lo) return sgn ? (int64_t)lo : 0;
    if (f >= hi) return bits == 64 ? (sgn ? INT64_MAX : (int64_t)UINT64_MAX) : (int64_t)(hi - 1);
    i = sgn ? (int64_t)f : (int64_t)(uint64_t)f;
  }
  if (bits >= 64) return i;
  uint64_t m = ((uint64_t)1 << bits) - 1, u = (uint64_t)i & m;
  if (sgn && (u >> (bits - 1))) u |= ~m;
  return (int64_t)u;
}

TNode *cast_to(Sema *S, Node *at, TNode *e, const Type *elem) {
  const Type *from = ty_elem(e->type);
  if (from == elem) return e;
  if (e->kind == T_CONST && e->type->kind == TY_SCALAR && elem->kind == TY_SCALAR) {
    /* fold casts of scalar constants */
    TNode *c = tnode(S, T_CONST, at, elem);
    bool ff = dtype_is_float(from->dtype), tf = dtype_is_float(elem->dtype);
    if (tf) c->cfloat = ff ? e->cfloat : (dtype_is_signed(from->dtype) || from->dtype == DT_I1 ? (double)e->cint : (double)(uint64_t)e->cint);
    else if (elem->dtype == DT_I1) c->cint = ff ? e->cfloat != 0 : e->cint != 0;
    else c->cint = fold_int_cast(ff, e->cfloat, e->cint, elem->dtype);
    return c;
  }
  if ((from->kind == TY_PTR) != (elem->kind == TY_PTR))
    sema_error(S, at, "cannot convert %s to %s implicitly%s", ty_str(S->a, from), ty_str(S->a, elem),
               from->kind == TY_PTR ? "; a pointer becomes an integer only with .to(tl.int64)" : "");
  if (from->kind == TY_PTR && elem->elem != from->elem)
    sema_error(S, at, "cannot convert %s to %s implicitly; use .to(%s)", ty_str(S->a, from), ty_str(S->a, elem),
               ty_str(S->a, elem));
  TNode *c = tnode(S, T_CAST, at, ty_with_elem(S->tc, e->type, elem));
  c->a = e;
  return c;
}

/* Materializes v with scalar element type elem (constants take it directly). */
TNode *to_rt_typed(Sema *S, Node *at, Val *v, const Type *elem) {
  if (v->kind == V_CONST) {
    if (v->c->kind == CV_FLOAT && elem->kind == TY_SCALAR && dtype_is_int(elem->dtype))
      return cast_to(S, at, to_rt(S, at, v), elem);
    (void)const_default_type(S, at, v->c);
    return const_node(S, at, v->c, elem);
  }
  return cast_to(S, at, to_rt(S, at, v), elem);
}

const Type *broadcast_shapes(Sema *S, Node *at, const Type *a, const Type *b) {
  if (a->kind != TY_BLOCK) return b;
  if (b->kind != TY_BLOCK) return a;
  int rank = a->rank > b->rank ? a->rank : b->rank;
  int64_t shape[MAX_RANK];
  for (int i = 0; i < rank; i++) {
    int ia = i - (rank - a->rank), ib = i - (rank - b->rank);
    int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
    if (da != db && da != 1 && db != 1)
      sema_error(S, at, "incompatible shapes for broadcasting: %s and %s", ty_str(S->a, a), ty_str(S->a, b));
    shape[i] = da == 1 ? db : da;
  }
  return check_block_shape(S, at, a->elem, rank, shape);
}

/* Broadcasts e to the shape of shape_like (a block type), splatting scalars. */
TNode *broadcast_to_shape(Sema *S, Node *at, TNode *e, const Type *shape_like) {
  if (shape_like->kind != TY_BLOCK) {
    if (e->type->kind == TY_BLOCK) sema_error(S, at, "cannot use a block where a scalar is required");
    return e;
  }
  const Type *target = ty_block(S->tc, ty_elem(e->type), shape_like->rank, shape_like->shape);
  if (e->type == target) return e;
  if (e->type->kind != TY_BLOCK) {
    if (e->kind == T_CONST) {
      TNode *c = tnode(S, T_CONST, at, target);
      c->cint = e->cint;
      c->cfloat = e->cfloat;
      return c;
    }
    TNode *s = tnode(S, T_SPLAT, at, target);
    s->a = e;
    return s;
  }
  /* left-pad the rank with size-1 dimensions, then broadcast */
  while (e->type->rank < target->rank) {
    int64_t shape[MAX_RANK];
    shape[0] = 1;
    memcpy(shape + 1, e->type->shape, sizeof(int64_t) * (size_t)e->type->rank);
    TNode *x = tnode(S, T_EXPAND_DIMS, at, ty_block(S->tc, e->type->elem, e->type->rank + 1, shape));
    x->a = e;
    x->axis = 0;
    e = x;
  }
  if (e->type == target) return e;
  (void)broadcast_shapes(S, at, e->type, target);
  for (int i = 0; i < target->rank; i++)
    if (e->type->shape[i] != target->shape[i] && e->type->shape[i] != 1)
      sema_error(S, at, "cannot broadcast %s to %s", ty_str(S->a, e->type), ty_str(S->a, target));
  TNode *b = tnode(S, T_BROADCAST, at, target);
  b->a = e;
  return b;
}

void unify_operands(Sema *S, Node *at, TNode **a, TNode **b) {
  const Type *shape = broadcast_shapes(S, at, (*a)->type, (*b)->type);
  if (!shape) return;
  *a = broadcast_to_shape(S, at, *a, shape);
  *b = broadcast_to_shape(S, at, *b, shape);
}

/* ---- Triton's promotion rules ----------------------------------------------- */

static int dtype_kind_rank(DType t) {
  if (t == DT_I1) return 0;
  if (dtype_is_float(t)) return 3;
  return dtype_is_signed(t) ? 2 : 1;
}

static const Type *integer_promote(Sema *S, DType a, DType b) {
  int ra = dtype_bits(a), rb = dtype_bits(b);
  bool ua = !dtype_is_signed(a) && a != DT_I1, ub = !dtype_is_signed(b) && b != DT_I1;
  DType r;
  if (ua == ub) r = ra > rb ? a : b;
  else if (ua) r = ra >= rb ? a : b;
  else r = rb >= ra ? b : a;
  return ty_scalar(S->tc, r);
}

/* The type both operands of an arithmetic op convert to. A Python scalar of
 * a lower or equal kind (bool < uint < int < float) does not take part. */
static const Type *computation_type(Sema *S, Node *at, const Type *a, bool a_scalar, const Type *b,
                                    bool b_scalar, bool div_or_mod) {
  DType x = a->dtype, y = b->dtype;
  if (a_scalar != b_scalar) {
    DType st = a_scalar ? x : y, tt = a_scalar ? y : x;
    if (dtype_kind_rank(st) <= dtype_kind_rank(tt)) {
      if (div_or_mod && (tt == DT_F16 || tt == DT_BF16)) return ty_scalar(S->tc, DT_F32);
      return ty_scalar(S->tc, tt);
    }
  }
  if (x == DT_F64 || y == DT_F64) return ty_scalar(S->tc, DT_F64);
  if (x == DT_F32 || y == DT_F32) return ty_scalar(S->tc, DT_F32);
  if (x == DT_F16 || y == DT_F16) return ty_scalar(S->tc, div_or_mod ? DT_F32 : DT_F16);
  if (x == DT_BF16 || y == DT_BF16) {
    if (div_or_mod || x != y) return ty_scalar(S->tc, DT_F32);
    return ty_scalar(S->tc, DT_BF16);
  }
  if (dtype_is_float(x) || dtype_is_float(y))
    sema_error(S, at, "arithmetic on fp8 values is not supported; convert them with .to() first");
  if (div_or_mod && dtype_is_signed(x) != dtype_is_signed(y) && x != DT_I1 && y != DT_I1)
    sema_error(S, at, "cannot use / or %% on %s and %s: they differ in signedness", dtype_name(x), dtype_name(y));
  return integer_promote(S, x, y);
}

static bool is_py_scalar(const Val *v) {
  return v->kind == V_CONST && (v->c->kind == CV_INT || v->c->kind == CV_FLOAT || v->c->kind == CV_BOOL);
}

/* ---- constexpr arithmetic ------------------------------------------------------ */

/* Constexpr strings and tuples are built whole: their size is bounded, and
 * building one costs work in proportion (see count_work). */
#define MAX_CONST_STR (1 << 20)
#define MAX_CONST_ELEMS (1 << 16)
static void count_work_n(Sema *S, Node *at, long n);

static double cf(const CValue *c) {
  return c->kind == CV_FLOAT ? c->f : c->kind == CV_BOOL ? (double)c->b : (double)c->i;
}
static int64_t ci(const CValue *c) { return c->kind == CV_BOOL ? c->b : c->i; }
static bool c_is_num(const CValue *c) { return c->kind == CV_INT || c->kind == CV_FLOAT || c->kind == CV_BOOL; }

static bool cv_equal(const CValue *a, const CValue *b) {
  if (c_is_num(a) && c_is_num(b)) {
    if (a->kind == CV_FLOAT || b->kind == CV_FLOAT) return cf(a) == cf(b);
    return ci(a) == ci(b);
  }
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case CV_NONE: return true;
  case CV_STR: return !strcmp(a->s, b->s);
  case CV_DTYPE: return a->dtype == b->dtype;
  case CV_TUPLE:
    if (a->nelems != b->nelems) return false;
    for (int i = 0; i < a->nelems; i++)
      if (!cv_equal(a->elems[i], b->elems[i])) return false;
    return true;
  default: return false;
  }
}

static Val *const_binary(Sema *S, Node *at, Op op, CValue *a, CValue *b) {
  if (op == TK_EQ) return val_const(S, cv_bool(S, cv_equal(a, b)));
  if (op == TK_NE) return val_const(S, cv_bool(S, !cv_equal(a, b)));
  if (op == TK_KW_is) return val_const(S, cv_bool(S, a->kind == b->kind && cv_equal(a, b)));
  if (op == OP_IS_NOT) return val_const(S, cv_bool(S, !(a->kind == b->kind && cv_equal(a, b))));
  if (op == TK_KW_in || op == OP_NOT_IN) {
    bool found = false;
    if (b->kind == CV_TUPLE) {
      for (int i = 0; i < b->nelems; i++) found |= cv_equal(a, b->elems[i]);
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
    count_work_n(S, at, (long)n / 64);
    return val_const(S, cv_str(S, arena_printf(S->a, "%s%s", a->s, b->s)));
  }
  if (a->kind == CV_TUPLE && b->kind == CV_TUPLE && op == TK_PLUS) {
    int64_t n = (int64_t)a->nelems + b->nelems;
    if (n > MAX_CONST_ELEMS)
      sema_error(S, at, "a constexpr tuple of %lld elements is too long (at most %d)", (long long)n, MAX_CONST_ELEMS);
    count_work_n(S, at, (long)n);
    CValue *t = cv_new(S, CV_TUPLE);
    t->nelems = a->nelems + b->nelems;
    t->elems = arena_alloc(S->a, sizeof(CValue *) * (size_t)(t->nelems + 1));
    for (int i = 0; i < a->nelems; i++) t->elems[i] = a->elems[i];
    for (int i = 0; i < b->nelems; i++) t->elems[a->nelems + i] = b->elems[i];
    return val_const(S, t);
  }
  if (!c_is_num(a) || !c_is_num(b))
    sema_error(S, at, "unsupported operand types for %s: %s and %s", tok_kind_name(op),
               val_desc(S, val_const(S, a)), val_desc(S, val_const(S, b)));
  bool fl = a->kind == CV_FLOAT || b->kind == CV_FLOAT;
  switch (op) {
  case TK_LT: return val_const(S, cv_bool(S, fl ? cf(a) < cf(b) : ci(a) < ci(b)));
  case TK_LE: return val_const(S, cv_bool(S, fl ? cf(a) <= cf(b) : ci(a) <= ci(b)));
  case TK_GT: return val_const(S, cv_bool(S, fl ? cf(a) > cf(b) : ci(a) > ci(b)));
  case TK_GE: return val_const(S, cv_bool(S, fl ? cf(a) >= cf(b) : ci(a) >= ci(b)));
  case TK_SLASH:
    if (cf(b) == 0) sema_error(S, at, "division by zero in a constexpr expression");
    return val_const(S, cv_float(S, cf(a) / cf(b)));
  default: break;
  }
  if (fl) {
    double x = cf(a), y = cf(b), r;
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
  int64_t x = ci(a), y = ci(b), r;
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

/* ---- runtime binary operators --------------------------------------------------- */

static bool is_cmp(Op op) {
  return op == TK_LT || op == TK_LE || op == TK_GT || op == TK_GE || op == TK_EQ || op == TK_NE;
}

static TNode *make_binop(Sema *S, Node *at, TNodeKind k, Op op, TNode *a, TNode *b, const Type *ty) {
  TNode *t = tnode(S, k, at, ty);
  t->op = op;
  t->a = a;
  t->b = b;
  return t;
}

/* The shape-carrying type of a result with element elem over operands a, b. */
static const Type *result_type(Sema *S, TNode *a, const Type *elem) {
  return ty_with_elem(S->tc, a->type, elem);
}

Val *binary_op(Sema *S, Node *at, Op op, Val *va, Val *vb) {
  if (va->kind == V_CONST && vb->kind == V_CONST) return const_binary(S, at, op, va->c, vb->c);
  if (va->kind == V_TUPLE || vb->kind == V_TUPLE) {
    if ((op == TK_EQ || op == TK_NE) && (va->kind != vb->kind))
      return val_const(S, cv_bool(S, op == TK_NE));
    sema_error(S, at, "operator %s is not supported on tuples of runtime values", tok_kind_name(op));
  }
  if (op == TK_KW_is || op == OP_IS_NOT) {
    /* `x is None` with a runtime x is decidable here */
    bool none_a = val_is_none(va), none_b = val_is_none(vb);
    if (none_a || none_b) return val_const(S, cv_bool(S, (op == TK_KW_is) == (none_a && none_b)));
    sema_error(S, at, "'is' is only supported against None and constexprs");
  }
  if (op == TK_KW_in || op == OP_NOT_IN) sema_error(S, at, "'in' is only supported on constexprs");
  bool sa = is_py_scalar(va), sb = is_py_scalar(vb);
  TNode *a = to_rt(S, at, va), *b = to_rt(S, at, vb);
  const Type *ea = ty_elem(a->type), *eb = ty_elem(b->type);

  /* pointer arithmetic */
  if (ea->kind == TY_PTR || eb->kind == TY_PTR) {
    if (ea->kind == TY_PTR && eb->kind == TY_PTR) {
      if (is_cmp(op)) {
        unify_operands(S, at, &a, &b);
        return val_rt(S, make_binop(S, at, T_CMP, op, a, b, result_type(S, a, ty_scalar(S->tc, DT_I1))));
      }
      sema_error(S, at, "operator %s is not supported between two pointers", tok_kind_name(op));
    }
    if (op == TK_PLUS || op == TK_MINUS) {
      if (eb->kind == TY_PTR) {
        if (op == TK_MINUS) sema_error(S, at, "cannot subtract a pointer from an integer");
        TNode *t = a; a = b; b = t;
        const Type *te = ea; ea = eb; eb = te;
      }
      if (eb->kind != TY_SCALAR || !dtype_is_int(eb->dtype))
        sema_error(S, at, "pointer offsets must be integers, got %s", ty_str(S->a, b->type));
      if (ea->elem->kind == TY_BLOCK)
        sema_error(S, at, "block pointers are moved with tl.advance, not with +");
      if (op == TK_MINUS) {
        TNode *n = tnode(S, T_UNOP, at, b->type);
        n->op = TK_MINUS;
        n->a = b;
        b = n;
      }
      unify_operands(S, at, &a, &b);
      TNode *t = make_binop(S, at, T_ADDPTR, TK_PLUS, a, b, a->type);
      return val_rt(S, t);
    }
    if (is_cmp(op) && eb->kind != TY_PTR)
      sema_error(S, at, "cannot compare a pointer with %s", ty_str(S->a, b->type));
    sema_error(S, at, "operator %s is not supported on pointers", tok_kind_name(op));
  }
  if (ea->kind != TY_SCALAR || eb->kind != TY_SCALAR)
    sema_error(S, at, "operator %s is not supported on %s and %s", tok_kind_name(op),
               ty_str(S->a, a->type), ty_str(S->a, b->type));

  switch (op) {
  case TK_PLUS: case TK_MINUS: case TK_STAR: case TK_PERCENT: case TK_DSLASH: {
    bool dm = op == TK_PERCENT || op == TK_DSLASH;
    const Type *ct = computation_type(S, at, ea, sa, eb, sb, dm);
    if (op == TK_DSLASH && dtype_is_float(ct->dtype))
      sema_error(S, at, "'//' is only supported on integers in kernels; use tl.floor(a / b) for floats");
    a = to_rt_typed(S, at, va, ct);
    b = to_rt_typed(S, at, vb, ct);
    unify_operands(S, at, &a, &b);
    return val_rt(S, make_binop(S, at, T_BINOP, op, a, b, result_type(S, a, ct)));
  }
  case TK_SLASH: {
    /* true division: ints go to fp32, mixed int/float to the float type */
    const Type *ct;
    bool fa = dtype_is_float(ea->dtype), fb = dtype_is_float(eb->dtype);
    if (fa && !fb) ct = ea;
    else if (!fa && fb) ct = eb;
    else if (!fa && !fb) ct = ty_scalar(S->tc, DT_F32);
    else ct = computation_type(S, at, ea, sa, eb, sb, false);
    if (sa != sb && fa && fb) ct = sa ? eb : ea;
    a = to_rt_typed(S, at, va, ct);
    b = to_rt_typed(S, at, vb, ct);
    unify_operands(S, at, &a, &b);
    return val_rt(S, make_binop(S, at, T_BINOP, op, a, b, result_type(S, a, ct)));
  }
  case TK_AMP: case TK_PIPE: case TK_CARET: case TK_SHL: case TK_SHR: {
    if (!dtype_is_int(ea->dtype) || !dtype_is_int(eb->dtype))
      sema_error(S, at, "bitwise operator %s needs integer operands, got %s and %s", tok_kind_name(op),
                 ty_str(S->a, a->type), ty_str(S->a, b->type));
    const Type *ct = computation_type(S, at, ea, sa, eb, sb, false);
    a = to_rt_typed(S, at, va, ct);
    b = to_rt_typed(S, at, vb, ct);
    unify_operands(S, at, &a, &b);
    return val_rt(S, make_binop(S, at, T_BINOP, op, a, b, result_type(S, a, ct)));
  }
  case TK_LT: case TK_LE: case TK_GT: case TK_GE: case TK_EQ: case TK_NE: {
    const Type *ct = computation_type(S, at, ea, sa, eb, sb, false);
    a = to_rt_typed(S, at, va, ct);
    b = to_rt_typed(S, at, vb, ct);
    unify_operands(S, at, &a, &b);
    return val_rt(S, make_binop(S, at, T_CMP, op, a, b, result_type(S, a, ty_scalar(S->tc, DT_I1))));
  }
  case TK_POW:
    sema_error(S, at, "'**' on runtime values is not supported; use tl.math.pow or libdevice.pow");
  case TK_AT:
    sema_error(S, at, "'@' on tensors is not supported; use tl.dot");
  default:
    sema_error(S, at, "unsupported operator %s", tok_kind_name(op));
  }
}

/* A value as an int1 scalar or block (conditions, `and`, `not`). */
static TNode *to_bool(Sema *S, Node *at, Val *v) {
  TNode *e = to_rt(S, at, v);
  const Type *el = ty_elem(e->type);
  if (el->kind == TY_SCALAR && el->dtype == DT_I1) return e;
  if (el->kind != TY_SCALAR) sema_error(S, at, "expected a boolean condition, got %s", ty_str(S->a, e->type));
  Val *zero = val_const(S, el->dtype >= DT_F8E4M3 ? cv_float(S, 0) : cv_int(S, 0));
  return binary_op(S, at, TK_NE, val_rt(S, e), zero)->e;
}

/* ---- frames, vars, assignment ----------------------------------------------------- */

/* The set of var names in the kernel: open addressing, so that inlining
 * many calls stays linear; each name remembers the next suffix to try for
 * a new var of that base name. */
typedef struct NameEntry {
  const char *name;
  int next_suffix;
} NameEntry;

static unsigned name_hash(const char *s) {
  unsigned h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static NameEntry *name_find(Sema *S, const char *u) {
  if (!S->names.cap) return NULL;
  for (unsigned i = name_hash(u) & (unsigned)(S->names.cap - 1);; i = (i + 1) & (unsigned)(S->names.cap - 1)) {
    NameEntry *e = S->names.v[i];
    if (!e) return NULL;
    if (!strcmp(e->name, u)) return e;
  }
}

static NameEntry *name_add(Sema *S, NameEntry *e) {
  if (2 * (S->names.n + 1) > S->names.cap) {
    PtrVec old = S->names;
    int cap = old.cap ? old.cap * 2 : 256;
    S->names.v = arena_alloc(S->a, sizeof(void *) * (size_t)cap);
    S->names.cap = cap;
    S->names.n = 0;
    for (int i = 0; i < old.cap; i++)
      if (old.v[i]) name_add(S, old.v[i]);
  }
  unsigned i = name_hash(e->name) & (unsigned)(S->names.cap - 1);
  while (S->names.v[i]) i = (i + 1) & (unsigned)(S->names.cap - 1);
  S->names.v[i] = e;
  S->names.n++;
  return e;
}

/* A kernel-unique spelling of name: name, name_1, name_2, ... */
static const char *unique_name(Sema *S, const char *name) {
  NameEntry *base = name_find(S, name);
  const char *u = name;
  if (base) {
    do u = arena_printf(S->a, "%s_%d", name, base->next_suffix++);
    while (name_find(S, u));
  }
  NameEntry *e = arena_alloc(S->a, sizeof *e);
  e->name = u;
  e->next_suffix = 1;
  name_add(S, e);
  return u;
}

static Var *frame_var(Sema *S, const char *name) {
  Frame *f = S->f;
  for (int i = 0; i < f->var_names.n; i++)
    if (!strcmp(f->var_names.v[i], name)) return f->vars.v[i];
  Var *v = arena_alloc(S->a, sizeof *v);
  /* unique within the kernel, for readable dumps */
  const char *u = unique_name(S, name);
  v->name = u;
  v->id = S->k->nvars++;
  vec_push(S->a, &f->var_names, (void *)name);
  vec_push(S->a, &f->vars, v);
  return v;
}

static Val *var_ref(Sema *S, Node *at, Var *var, const Type *ty) {
  TNode *t = tnode(S, T_VAR, at, ty);
  t->var = var;
  Val *v = val_rt(S, t);
  return v;
}

/* Stores a runtime value in the frame's Var for name; the env then refers to it. */
static Val *store_rt(Sema *S, Node *at, const char *name, TNode *e) {
  Var *var = frame_var(S, name);
  TNode *as = tnode(S, T_ASSIGN, at, e->type);
  as->var = var;
  as->a = e;
  var->type = e->type;
  emit_stmt(S, as);
  Val *v = new_val(S, V_RT);
  v->ty = e->type;
  v->e = NULL;
  v->path = (const char *)var; /* marks a var-held value; see read_name */
  return v;
}

static Val *held_var_val(Sema *S, Var *var, const Type *ty) {
  Val *v = new_val(S, V_RT);
  v->ty = ty;
  v->path = (const char *)var;
  (void)S;
  return v;
}

static Var *held_var(const Val *v) { return v->kind == V_RT && !v->e ? (Var *)v->path : NULL; }

/* The value to give a reader of an env entry: a fresh reference for vars. */
static Val *read_val(Sema *S, Node *at, Val *v) {
  if (!v) return v;
  Var *var = held_var(v);
  if (var) return var_ref(S, at, var, v->ty);
  if (v->kind == V_TUPLE) {
    Val *t = new_val(S, V_TUPLE);
    t->n = v->n;
    t->elems = arena_alloc(S->a, sizeof(Val *) * (size_t)(v->n + 1));
    for (int i = 0; i < v->n; i++) t->elems[i] = read_val(S, at, v->elems[i]);
    return t;
  }
  return v;
}

/* Binds name to v, emitting an assignment for runtime values. */
static void bind(Sema *S, Node *at, const char *name, Val *v) {
  if (v->kind == V_RT) {
    Var *held = held_var(v);
    if (held && held == frame_var(S, name)) {
      env_set(S, &S->f->env, name, v);
      return;
    }
    TNode *e = held ? var_ref(S, at, held, v->ty)->e : v->e;
    env_set(S, &S->f->env, name, store_rt(S, at, name, e));
    return;
  }
  if (v->kind == V_TUPLE) {
    Val *t = new_val(S, V_TUPLE);
    t->n = v->n;
    t->elems = arena_alloc(S->a, sizeof(Val *) * (size_t)(v->n + 1));
    for (int i = 0; i < v->n; i++) {
      Val *e = v->elems[i];
      if (e->kind == V_RT && e->e && e->e->kind != T_VAR)
        e = store_rt(S, at, arena_printf(S->a, "%s.%d", name, i), e->e);
      else if (e->kind == V_RT && e->e)
        e = held_var_val(S, e->e->var, e->ty);
      t->elems[i] = e;
    }
    env_set(S, &S->f->env, name, t);
    return;
  }
  env_set(S, &S->f->env, name, v);
}

/* ---- expressions ------------------------------------------------------------------ */

static Val *eval(Sema *S, Node *n);
static void exec_block(Sema *S, NodeList *body);

static const char *const py_builtins[] = {"range", "min", "max", "len", "int", "float", "bool",
                                          "print", "isinstance", "abs", "getattr", "hasattr", "tuple", "list", NULL};

static Val *lookup_global(Sema *S, Node *at, const char *name) {
  for (int i = S->m->globals.n - 1; i >= 0; i--) {
    Global *g = S->m->globals.v[i];
    if (strcmp(g->name, name)) continue;
    if (!g->value)
      sema_error(S, at, "global '%s' is not a tl.constexpr; kernels can only read constexpr globals "
                 "(write '%s = tl.constexpr(...)')", name, name);
    /* evaluated in a frame of its own: globals see only globals */
    Frame *saved = S->f;
    Frame gf = {.site = saved ? saved->site : NULL};
    S->f = &gf;
    if (++S->depth > 64) sema_error(S, at, "constexpr global '%s' refers to itself", name);
    Val *v = eval(S, g->value);
    S->depth--;
    S->f = saved;
    if (v->kind != V_CONST) sema_error(S, at, "global '%s' is not a constexpr value", name);
    return v;
  }
  return NULL;
}

static Val *read_name(Sema *S, Node *n) {
  const char *name = n->name;
  Val *v = S->f ? env_get(&S->f->env, name) : NULL;
  if (v) {
    if (v->kind == V_UNDEF) sema_error(S, n, "%s", v->why);
    return read_val(S, n, v);
  }
  Val *g = lookup_global(S, n, name);
  if (g) return g;
  JitFunc *fn = module_find_func(S->m, name);
  if (fn) {
    Val *f = new_val(S, V_FUNC);
    f->fn = fn;
    return f;
  }
  const char *alias = module_alias(S->m, name);
  if (alias) {
    const Builtin *b = NULL;
    if (!strncmp(alias, "triton.language.", 16)) b = builtin_find(alias + 16);
    if (b) {
      Val *bv = new_val(S, V_BUILTIN);
      bv->builtin = b;
      return bv;
    }
    DType dt;
    if (!strncmp(alias, "triton.language.", 16) && dtype_parse(alias + 16, &dt))
      return val_const(S, cv_dtype(S, ty_scalar(S->tc, dt)));
    Val *m = new_val(S, V_MODULE);
    m->path = alias;
    return m;
  }
  for (int i = 0; py_builtins[i]; i++)
    if (!strcmp(py_builtins[i], name)) {
      Val *bv = new_val(S, V_BUILTIN);
      bv->builtin = builtin_find(arena_printf(S->a, "py.%s", name));
      if (!bv->builtin) sema_error(S, n, "Python builtin '%s' is not supported in kernels", name);
      return bv;
    }
  for (int i = 0; i < S->m->host_funcs.n; i++)
    if (!strcmp(S->m->host_funcs.v[i], name))
      sema_error(S, n, "'%s' is a host function, not a @triton.jit function; kernels can only call @jit functions", name);
  sema_error(S, n, "name '%s' is not defined", name);
}

/* Namespaces under triton.language that tilec knows, by their full path. */
static const char *canonical_ns(const char *path) {
  static const struct {
    const char *from, *to;
  } map[] = {
      {"triton.language", "tl"},
      {"triton.language.core", "tl"},
      {"triton.language.standard", "tl"},
      {"triton.language.math", "math"},
      {"triton.language.random", "tl"},
      {"triton.language.extra", "extra"},
      {"triton.language.extra.cuda", "extra.cuda"},
      {"triton.language.extra.cuda.libdevice", "libdevice"},
      {"triton.language.extra.libdevice", "libdevice"},
      {"triton", "triton"},
  };
  for (size_t i = 0; i < sizeof map / sizeof *map; i++)
    if (!strcmp(map[i].from, path)) return map[i].to;
  return NULL;
}

static Val *module_attr(Sema *S, Node *n, Val *m) {
  const char *path = arena_printf(S->a, "%s.%s", m->path, n->name);
  const char *ns = canonical_ns(m->path);
  if (canonical_ns(path)) {
    Val *r = new_val(S, V_MODULE);
    r->path = path;
    return r;
  }
  if (ns && (!strcmp(ns, "tl") || !strcmp(ns, "triton"))) {
    DType dt;
    if (!strcmp(ns, "tl") && dtype_parse(n->name, &dt) && strcmp(n->name, "float") && strcmp(n->name, "double") && strcmp(n->name, "half"))
      return val_const(S, cv_dtype(S, ty_scalar(S->tc, dt)));
    const Builtin *b = builtin_find(!strcmp(ns, "tl") ? n->name : arena_printf(S->a, "triton.%s", n->name));
    if (b) {
      Val *bv = new_val(S, V_BUILTIN);
      bv->builtin = b;
      return bv;
    }
    sema_error(S, n, "'%s' is not a Triton builtin that tilec knows", !strcmp(ns, "tl") ? arena_printf(S->a, "tl.%s", n->name) : path);
  }
  if (ns && (!strcmp(ns, "math") || !strcmp(ns, "libdevice"))) {
    const Builtin *b = builtin_find(arena_printf(S->a, "%s.%s", ns, n->name));
    if (b) {
      Val *bv = new_val(S, V_BUILTIN);
      bv->builtin = b;
      return bv;
    }
    sema_error(S, n, "'%s' is not a function of %s", n->name,
               !strcmp(ns, "math") ? "tl.math" : "libdevice");
  }
  if (ns) sema_error(S, n, "'%s' is not a Triton builtin that tilec knows", path);
  sema_error(S, n, "module '%s' cannot be used in a kernel", m->path);
}

/* Attributes of dtypes: tl.float32.primitive_bitwidth, ptr.dtype.element_ty. */
static Val *dtype_attr(Sema *S, Node *n, const Type *t) {
  const char *a = n->name;
  if (!strcmp(a, "element_ty")) {
    if (t->kind != TY_PTR) sema_error(S, n, "'element_ty' is only defined for pointer types, not %s", ty_str(S->a, t));
    return val_const(S, cv_dtype(S, t->elem));
  }
  bool sc = t->kind == TY_SCALAR;
  DType d = t->dtype;
  if (!strcmp(a, "primitive_bitwidth") || !strcmp(a, "int_bitwidth")) {
    if (!sc) sema_error(S, n, "'%s' is not defined for %s", a, ty_str(S->a, t));
    return val_const(S, cv_int(S, dtype_bits(d)));
  }
  struct {
    const char *name;
    bool v;
  } preds[] = {
      {"is_fp8", sc && (d == DT_F8E4M3 || d == DT_F8E5M2)}, {"is_fp16", sc && d == DT_F16},
      {"is_bf16", sc && d == DT_BF16}, {"is_fp32", sc && d == DT_F32}, {"is_fp64", sc && d == DT_F64},
      {"is_floating", sc && dtype_is_float(d)}, {"is_int", sc && dtype_is_int(d)},
      {"is_int_signed", sc && dtype_is_signed(d)}, {"is_int_unsigned", sc && dtype_is_int(d) && !dtype_is_signed(d) && d != DT_I1},
      {"is_bool", sc && d == DT_I1}, {"is_ptr", t->kind == TY_PTR},
      {"is_int1", sc && d == DT_I1}, {"is_int8", sc && d == DT_I8}, {"is_int16", sc && d == DT_I16},
      {"is_int32", sc && d == DT_I32}, {"is_int64", sc && d == DT_I64},
      {"is_uint8", sc && d == DT_U8}, {"is_uint16", sc && d == DT_U16}, {"is_uint32", sc && d == DT_U32},
      {"is_uint64", sc && d == DT_U64},
  };
  for (size_t i = 0; i < sizeof preds / sizeof *preds; i++)
    if (!strcmp(preds[i].name, a)) {
      Val *b = new_val(S, V_METHOD);
      b->builtin = builtin_find("py.constant_method");
      b->self = val_const(S, cv_bool(S, preds[i].v));
      return b;
    }
  sema_error(S, n, "dtype %s has no attribute '%s'", ty_str(S->a, t), a);
}

static Val *value_attr(Sema *S, Node *n, Val *obj) {
  const char *a = n->name;
  if (obj->kind == V_MODULE) return module_attr(S, n, obj);
  if (obj->kind == V_CONST && obj->c->kind == CV_DTYPE) return dtype_attr(S, n, obj->c->dtype);
  if (obj->kind == V_CONST && obj->c->kind != CV_NONE && !strcmp(a, "value")) return obj;
  if (obj->kind == V_RT || (obj->kind == V_CONST && (obj->c->kind == CV_INT || obj->c->kind == CV_FLOAT || obj->c->kind == CV_BOOL))) {
    if (!strcmp(a, "dtype") || !strcmp(a, "type")) {
      if (obj->kind == V_CONST)
        return val_const(S, cv_dtype(S, const_default_type(S, n, obj->c)));
      const Type *t = obj->ty;
      if (!strcmp(a, "type") && t->kind == TY_BLOCK)
        sema_error(S, n, "'.type' of a block is not supported; use '.dtype'");
      return val_const(S, cv_dtype(S, ty_elem(t)));
    }
    if (!strcmp(a, "shape")) {
      const Type *t = obj->kind == V_RT ? obj->ty : NULL;
      CValue *c = cv_new(S, CV_TUPLE);
      if (t && t->kind == TY_BLOCK) {
        c->nelems = t->rank;
        c->elems = arena_alloc(S->a, sizeof(CValue *) * (size_t)t->rank);
        for (int i = 0; i < t->rank; i++) c->elems[i] = cv_int(S, t->shape[i]);
      }
      return val_const(S, c);
    }
    if (!strcmp(a, "numel")) {
      int64_t ne = 1;
      if (obj->kind == V_RT && obj->ty->kind == TY_BLOCK)
        for (int i = 0; i < obj->ty->rank; i++) ne *= obj->ty->shape[i];
      return val_const(S, cv_int(S, ne));
    }
    if (!strcmp(a, "T")) {
      Args args = {.pos = &obj, .npos = 1};
      return builtin_call(S, n, builtin_find("trans"), NULL, &args);
    }
    const Builtin *b = builtin_find(obj->kind == V_RT && obj->ty->kind == TY_DESC ? arena_printf(S->a, "desc.%s", a) : a);
    if (b && (b->flags & B_METHOD)) {
      Val *m = new_val(S, V_METHOD);
      m->builtin = b;
      m->self = obj;
      return m;
    }
    if (obj->kind == V_RT) sema_error(S, n, "a value of type %s has no attribute '%s'", ty_str(S->a, obj->ty), a);
  }
  if (obj->kind == V_TUPLE || (obj->kind == V_CONST && obj->c->kind == CV_TUPLE))
    sema_error(S, n, "tuples have no attribute '%s'", a);
  sema_error(S, n, "%s has no attribute '%s'", val_desc(S, obj), a);
}

/* x[i], x[:, None], x.shape[0], tuple[i] */
static Val *subscript(Sema *S, Node *n) {
  Val *obj = eval(S, n->lhs);
  Node *idx = n->rhs;
  if (obj->kind == V_CONST && obj->c->kind == CV_TUPLE) {
    Val *iv = eval(S, idx);
    int64_t i = const_int(S, idx, iv, "a tuple index");
    if (i < 0) i += obj->c->nelems;
    if (i < 0 || i >= obj->c->nelems) sema_error(S, idx, "tuple index %lld out of range", (long long)i);
    return val_const(S, obj->c->elems[i]);
  }
  if (obj->kind == V_TUPLE) {
    Val *iv = eval(S, idx);
    int64_t i = const_int(S, idx, iv, "a tuple index");
    if (i < 0) i += obj->n;
    if (i < 0 || i >= obj->n) sema_error(S, idx, "tuple index %lld out of range", (long long)i);
    return obj->elems[i];
  }
  if (obj->kind == V_MODULE && !strcmp(obj->path, "heuristic.args")) {
    /* args['NAME'] inside a heuristics lambda */
    Val *iv = eval(S, idx);
    const char *name = const_str(S, idx, iv, "a heuristic's args[] key");
    Val *v = env_get(&S->f->env, name);
    if (!v) sema_error(S, idx, "the kernel has no parameter '%s'", name);
    if (v->kind == V_UNDEF) sema_error(S, idx, "%s", v->why);
    return v;
  }
  if (obj->kind == V_CONST && obj->c->kind == CV_DTYPE)
    sema_error(S, n, "dtypes cannot be indexed");
  if (obj->kind != V_RT) sema_error(S, n, "%s cannot be indexed", val_desc(S, obj));
  /* tensor indexing: only ':' (keep) and None (new axis) */
  TNode *e = obj->e;
  int nidx = idx->kind == N_TUPLE ? idx->kids.n : 1;
  Node **items = idx->kind == N_TUPLE ? idx->kids.v : &idx;
  int rank = e->type->kind == TY_BLOCK ? e->type->rank : 0;
  int dim = 0;
  for (int i = 0; i < nidx; i++) {
    Node *it = items[i];
    if (it->kind == N_SLICE && !it->lhs && !it->rhs && !it->cond) {
      if (dim >= rank) sema_error(S, it, "too many indices for a block of rank %d", rank);
      dim++;
      continue;
    }
    if (it->kind == N_NONE) {
      const Type *t = e->type;
      int64_t shape[MAX_RANK];
      int r = t->kind == TY_BLOCK ? t->rank : 0;
      if (r + 1 > MAX_RANK) sema_error(S, it, "blocks of rank %d are not supported", r + 1);
      for (int k = 0, s = 0; k < r + 1; k++) shape[k] = k == dim ? 1 : t->shape[s++];
      TNode *x = tnode(S, T_EXPAND_DIMS, it, check_block_shape(S, it, ty_elem(t), r + 1, shape));
      x->a = e;
      x->axis = dim;
      e = x;
      dim++;
      rank++;
      continue;
    }
    sema_error(S, it, "blocks can only be indexed with ':' and None; integer indexing and slicing are not supported");
  }
  return val_rt(S, e);
}

static Val *make_tuple(Sema *S, Node *n) {
  Val **elems = arena_alloc(S->a, sizeof(Val *) * (size_t)(n->kids.n + 1));
  bool all_const = true;
  for (int i = 0; i < n->kids.n; i++) {
    if (n->kids.v[i]->kind == N_STARRED) sema_error(S, n->kids.v[i], "starred expressions are not supported in kernels");
    elems[i] = eval(S, n->kids.v[i]);
    if (elems[i]->kind != V_CONST) all_const = false;
  }
  if (all_const) {
    CValue *c = cv_new(S, CV_TUPLE);
    c->nelems = n->kids.n;
    c->elems = arena_alloc(S->a, sizeof(CValue *) * (size_t)(c->nelems + 1));
    for (int i = 0; i < c->nelems; i++) c->elems[i] = elems[i]->c;
    return val_const(S, c);
  }
  Val *t = new_val(S, V_TUPLE);
  t->elems = elems;
  t->n = n->kids.n;
  return t;
}

static Val *unary(Sema *S, Node *n) {
  Val *v = eval(S, n->lhs);
  if (v->kind == V_CONST) {
    CValue *c = v->c;
    if (n->op == TK_KW_not) {
      if (c->kind == CV_NONE) return val_const(S, cv_bool(S, true));
      if (c->kind == CV_STR) return val_const(S, cv_bool(S, c->s[0] == 0));
      if (c->kind == CV_TUPLE) return val_const(S, cv_bool(S, c->nelems == 0));
      if (!c_is_num(c)) sema_error(S, n, "'not' needs a boolean, got %s", val_desc(S, v));
      return val_const(S, cv_bool(S, cf(c) == 0));
    }
    if (!c_is_num(c)) sema_error(S, n, "bad operand for unary %s: %s", tok_kind_name(n->op), val_desc(S, v));
    if (n->op == TK_PLUS) return c->kind == CV_BOOL ? val_const(S, cv_int(S, c->b)) : v;
    if (n->op == TK_MINUS) {
      if (c->kind == CV_FLOAT) return val_const(S, cv_float(S, -c->f));
      if (c->is_unsigned_big && (uint64_t)c->i == (uint64_t)1 << 63) return val_const(S, cv_int(S, INT64_MIN));
      if (ci(c) == INT64_MIN) sema_error(S, n, "constexpr integer overflow in negation");
      return val_const(S, cv_int(S, -ci(c)));
    }
    if (c->kind == CV_FLOAT) sema_error(S, n, "bad operand for unary '~': float");
    return val_const(S, cv_int(S, ~ci(c)));
  }
  if (n->op == TK_KW_not) {
    TNode *b = to_bool(S, n, v);
    TNode *t = tnode(S, T_UNOP, n, b->type);
    t->op = TK_KW_not;
    t->a = b;
    return val_rt(S, t);
  }
  TNode *e = to_rt(S, n, v);
  const Type *el = ty_elem(e->type);
  if (el->kind != TY_SCALAR) sema_error(S, n, "bad operand for unary %s: %s", tok_kind_name(n->op), ty_str(S->a, e->type));
  if (n->op == TK_PLUS) return val_rt(S, e);
  if (n->op == TK_TILDE && !dtype_is_int(el->dtype))
    sema_error(S, n, "'~' needs an integer operand, got %s", ty_str(S->a, e->type));
  TNode *t = tnode(S, T_UNOP, n, e->type);
  t->op = n->op;
  t->a = e;
  return val_rt(S, t);
}

/* `a and b` / `a or b`: short-circuit on constexprs, logical ops otherwise. */
static Val *bool_op(Sema *S, Node *n) {
  Val *a = eval(S, n->lhs);
  bool is_and = n->kind == N_AND;
  if (a->kind == V_CONST) {
    bool t = a->c->kind == CV_NONE ? false : a->c->kind == CV_STR ? a->c->s[0] != 0 :
             a->c->kind == CV_TUPLE ? a->c->nelems != 0 : a->c->kind == CV_DTYPE ? true : cf(a->c) != 0;
    if (is_and != t) return a; /* and: falsy a; or: truthy a */
    return eval(S, n->rhs);
  }
  Val *b = eval(S, n->rhs);
  TNode *x = to_bool(S, n, a), *y = to_bool(S, n, b);
  unify_operands(S, n, &x, &y);
  TNode *t = make_binop(S, n, T_BINOP, is_and ? TK_AMP : TK_PIPE, x, y, x->type);
  return val_rt(S, t);
}

static Val *compare(Sema *S, Node *n) {
  Val *left = eval(S, n->kids.v[0]);
  Val *result = NULL;
  for (int i = 0; i + 1 < n->kids.n; i++) {
    Val *right = eval(S, n->kids.v[i + 1]);
    Val *r = binary_op(S, n, n->ops[i], left, right);
    if (!result) {
      result = r;
    } else if (result->kind == V_CONST && r->kind == V_CONST) {
      result = val_const(S, cv_bool(S, const_bool(S, n, result, "x") && const_bool(S, n, r, "x")));
    } else {
      TNode *x = to_bool(S, n, result), *y = to_bool(S, n, r);
      unify_operands(S, n, &x, &y);
      result = val_rt(S, make_binop(S, n, T_BINOP, TK_AMP, x, y, x->type));
    }
    /* a chained operand is used twice: keep the runtime one in a temporary */
    if (right->kind == V_RT && i + 2 < n->kids.n) {
      Val *held = store_rt(S, n, arena_printf(S->a, "cmp.%d", i), right->e);
      right = read_val(S, n, held);
    }
    left = right;
  }
  return result;
}

static Val *if_expr(Sema *S, Node *n) {
  Val *c = eval(S, n->cond);
  if (c->kind == V_CONST) return const_bool(S, n->cond, c, "the condition") ? eval(S, n->lhs) : eval(S, n->rhs);
  /* a runtime condition: both sides are evaluated, as tl.where does */
  TNode *cond = to_bool(S, n->cond, c);
  if (cond->type->kind == TY_BLOCK)
    sema_error(S, n, "a conditional expression needs a scalar condition; use tl.where for blocks");
  Val *a = eval(S, n->lhs), *b = eval(S, n->rhs);
  Args args = {.pos = (Val *[]){val_rt(S, cond), a, b}, .npos = 3};
  return builtin_call(S, n, builtin_find("where"), NULL, &args);
}

static Val *eval_call(Sema *S, Node *n) {
  Val *callee = eval(S, n->lhs);
  Args args = {0};
  args.npos = n->kids.n;
  args.pos = arena_alloc(S->a, sizeof(Val *) * (size_t)(args.npos + 1));
  for (int i = 0; i < n->kids.n; i++) {
    Node *k = n->kids.v[i];
    if (k->kind == N_STARRED) {
      if (k->op == TK_POW) sema_error(S, k, "'**' arguments are not supported in kernels");
      /* *shape: expand a tuple into positional arguments */
      Val *t = eval(S, k->lhs);
      int cnt = t->kind == V_TUPLE ? t->n : (t->kind == V_CONST && t->c->kind == CV_TUPLE) ? t->c->nelems : -1;
      if (cnt < 0) sema_error(S, k, "only tuples can be unpacked with '*'");
      Val **pos = arena_alloc(S->a, sizeof(Val *) * (size_t)(args.npos + cnt + 1));
      memcpy(pos, args.pos, sizeof(Val *) * (size_t)i);
      for (int j = 0; j < cnt; j++)
        pos[i + j] = t->kind == V_TUPLE ? t->elems[j] : val_const(S, t->c->elems[j]);
      /* evaluate the rest after the expansion */
      int rest = n->kids.n - i - 1;
      for (int j = 0; j < rest; j++) {
        Node *r = n->kids.v[i + 1 + j];
        if (r->kind == N_STARRED) sema_error(S, r, "only one '*' argument is supported");
        pos[i + cnt + j] = eval(S, r);
      }
      args.pos = pos;
      args.npos = i + cnt + rest;
      break;
    }
    if (k->kind == N_LAMBDA) sema_error(S, k, "lambdas are only supported in @triton.heuristics");
    args.pos[i] = eval(S, k);
  }
  args.nkw = n->kwargs.n;
  args.kwn = arena_alloc(S->a, sizeof(char *) * (size_t)(args.nkw + 1));
  args.kwv = arena_alloc(S->a, sizeof(Val *) * (size_t)(args.nkw + 1));
  for (int i = 0; i < n->kwargs.n; i++) {
    args.kwn[i] = n->kwargs.v[i]->name;
    args.kwv[i] = eval(S, n->kwargs.v[i]->lhs);
  }
  return call_value(S, n, callee, &args);
}

static void count_work(Sema *S, Node *at);

static Val *eval(Sema *S, Node *n) {
  count_work(S, n);
  if (++S->depth > 200) sema_error(S, n, "expression nested too deeply");
  Val *v;
  switch (n->kind) {
  case N_NAME: v = read_name(S, n); break;
  case N_INT:
    if (n->ival > (uint64_t)INT64_MAX) {
      CValue *c = cv_int(S, (int64_t)n->ival);
      c->is_unsigned_big = true;
      v = val_const(S, c);
    } else {
      v = val_const(S, cv_int(S, (int64_t)n->ival));
    }
    break;
  case N_FLOAT: v = val_const(S, cv_float(S, n->fval)); break;
  case N_STR: v = val_const(S, cv_str(S, n->sval)); break;
  case N_TRUE: v = val_const(S, cv_bool(S, true)); break;
  case N_FALSE: v = val_const(S, cv_bool(S, false)); break;
  case N_NONE: v = val_none(S); break;
  case N_BINOP: {
    Val *a = eval(S, n->lhs);
    Val *b = eval(S, n->rhs);
    v = binary_op(S, n, n->op, a, b);
    break;
  }
  case N_UNOP: v = unary(S, n); break;
  case N_AND: case N_OR: v = bool_op(S, n); break;
  case N_COMPARE: v = compare(S, n); break;
  case N_IFEXP: v = if_expr(S, n); break;
  case N_CALL: v = eval_call(S, n); break;
  case N_ATTR: v = value_attr(S, n, eval(S, n->lhs)); break;
  case N_SUBSCRIPT: v = subscript(S, n); break;
  case N_TUPLE: case N_LIST:
    if (n->op == TK_LBRACE) sema_error(S, n, "sets are not supported in kernels");
    v = make_tuple(S, n);
    break;
  case N_DICT: sema_error(S, n, "dictionaries are not supported in kernels");
  case N_COMP: sema_error(S, n, "comprehensions are not supported in kernels; use tl.static_range or tensor operations");
  case N_LAMBDA: sema_error(S, n, "lambdas are only supported in @triton.heuristics");
  case N_ELLIPSIS: sema_error(S, n, "'...' is not supported in kernels");
  case N_STARRED: sema_error(S, n, "starred expressions are not supported here");
  case N_SLICE: sema_error(S, n, "slices are only allowed in subscripts");
  default: sema_error(S, n, "this expression is not supported in kernels");
  }
  S->depth--;
  return v;
}

/* ---- calls of @jit functions (inlined) ---------------------------------------- */

static bool param_is_constexpr(Sema *S, Node *p) {
  if (!p->annot) return false;
  Node *a = p->annot;
  if (a->kind == N_STR) return !strcmp(a->sval, "tl.constexpr") || !strcmp(a->sval, "constexpr");
  if (a->kind == N_NAME) {
    const char *alias = module_alias(S->m, a->name);
    return !strcmp(a->name, "constexpr") || (alias && !strcmp(alias, "triton.language.constexpr"));
  }
  if (a->kind == N_ATTR && !strcmp(a->name, "constexpr")) return true;
  return false;
}

static void exec_function_body(Sema *S, JitFunc *fn);

static void count_work(Sema *S, Node *at);

static Val *call_jit(Sema *S, Node *call, JitFunc *fn, Args *args) {
  Node *def = fn->def;
  count_work(S, call);
  int np = def->kids.n;
  Val **bound = arena_alloc(S->a, sizeof(Val *) * (size_t)(np + 1));
  if (args->npos > np)
    sema_error(S, call, "'%s' takes %d argument%s but %d were given", fn->name, np, np == 1 ? "" : "s", args->npos);
  for (int i = 0; i < args->npos; i++) bound[i] = args->pos[i];
  for (int k = 0; k < args->nkw; k++) {
    int i = 0;
    while (i < np && strcmp(def->kids.v[i]->name, args->kwn[k])) i++;
    if (i == np) sema_error(S, call, "'%s' has no parameter named '%s'", fn->name, args->kwn[k]);
    if (bound[i]) sema_error(S, call, "'%s' got several values for parameter '%s'", fn->name, args->kwn[k]);
    bound[i] = args->kwv[k];
  }
  InlineSite *site = arena_alloc(S->a, sizeof *site);
  site->callee = fn->name;
  site->call = sema_loc(call);
  site->parent = S->f->site;
  int depth = 0;
  for (const InlineSite *s = site; s; s = s->parent) depth++;
  if (depth > MAX_INLINE_DEPTH) sema_error(S, call, "calls nested more than %d deep (recursion is not supported)", MAX_INLINE_DEPTH);

  Frame *caller = S->f;
  Frame f = {.fn = fn, .site = site};
  for (int i = 0; i < np; i++) {
    Node *p = def->kids.v[i];
    Val *v = bound[i];
    if (!v) {
      if (!p->rhs) sema_error(S, call, "'%s' is missing its argument '%s'", fn->name, p->name);
      S->f = &f;
      v = eval(S, p->rhs);
      S->f = caller;
    }
    /* Like Triton, a helper's tl.constexpr annotation is not enforced: the
     * helper is specialized on whatever its arguments are. */
    bound[i] = v;
  }
  S->f = &f;
  for (int i = 0; i < np; i++) bind(S, def->kids.v[i], def->kids.v[i]->name, bound[i]);
  exec_function_body(S, fn);
  S->f = caller;
  return f.ret ? f.ret : val_none(S);
}

Val *call_value(Sema *S, Node *call, Val *callee, Args *args) {
  switch (callee->kind) {
  case V_FUNC: return call_jit(S, call, callee->fn, args);
  case V_BUILTIN: return builtin_call(S, call, callee->builtin, NULL, args);
  case V_METHOD: return builtin_call(S, call, callee->builtin, callee->self, args);
  default: sema_error(S, call, "%s is not callable", val_desc(S, callee));
  }
}

/* ---- statements ----------------------------------------------------------------- */

static void assign_target(Sema *S, Node *target, Val *v) {
  switch (target->kind) {
  case N_NAME: bind(S, target, target->name, v); return;
  case N_TUPLE: case N_LIST: {
    int n = target->kids.n;
    int have = v->kind == V_TUPLE ? v->n : (v->kind == V_CONST && v->c->kind == CV_TUPLE) ? v->c->nelems : -1;
    if (have < 0) sema_error(S, target, "cannot unpack %s into %d names", val_desc(S, v), n);
    if (have != n) sema_error(S, target, "cannot unpack a tuple of %d values into %d names", have, n);
    for (int i = 0; i < n; i++) {
      Val *e = v->kind == V_TUPLE ? v->elems[i] : val_const(S, v->c->elems[i]);
      assign_target(S, target->kids.v[i], e);
    }
    return;
  }
  case N_SUBSCRIPT: sema_error(S, target, "blocks are immutable: assigning to an element is not supported");
  case N_ATTR: sema_error(S, target, "assigning to an attribute is not supported in kernels");
  case N_STARRED: sema_error(S, target, "starred assignment is not supported in kernels");
  default: sema_error(S, target, "cannot assign to this expression");
  }
}

/* Names a statement list assigns (syntactically), for loop-carried values. */
static void collect_assigned(Sema *S, NodeList *body, PtrVec *out);

static void add_name(Sema *S, PtrVec *out, const char *name) {
  for (int i = 0; i < out->n; i++)
    if (!strcmp(out->v[i], name)) return;
  vec_push(S->a, out, (void *)name);
}

static void collect_target(Sema *S, Node *t, PtrVec *out) {
  if (t->kind == N_NAME) add_name(S, out, t->name);
  if (t->kind == N_TUPLE || t->kind == N_LIST)
    for (int i = 0; i < t->kids.n; i++) collect_target(S, t->kids.v[i], out);
}

static void collect_assigned(Sema *S, NodeList *body, PtrVec *out) {
  for (int i = 0; i < body->n; i++) {
    Node *s = body->v[i];
    switch (s->kind) {
    case N_ASSIGN:
      for (int j = 0; j < s->kids.n; j++) collect_target(S, s->kids.v[j], out);
      break;
    case N_AUGASSIGN: case N_ANNASSIGN: collect_target(S, s->lhs, out); break;
    case N_FOR:
      collect_target(S, s->lhs, out);
      collect_assigned(S, &s->body, out);
      break;
    case N_IF:
      collect_assigned(S, &s->body, out);
      collect_assigned(S, &s->orelse, out);
      break;
    case N_WHILE: collect_assigned(S, &s->body, out); break;
    default: break;
    }
  }
}

/* Before a runtime loop: constexpr values the loop re-assigns become runtime
 * values, so every iteration sees one type. */
static void materialize_carried(Sema *S, Node *at, PtrVec *names) {
  for (int i = 0; i < names->n; i++) {
    const char *name = names->v[i];
    Val *v = env_get(&S->f->env, name);
    if (v && v->kind == V_CONST && (v->c->kind == CV_INT || v->c->kind == CV_FLOAT || v->c->kind == CV_BOOL))
      bind(S, at, name, val_rt(S, to_rt(S, at, v)));
  }
}

/* After the body: each carried value must come back with its entry type. */
static void check_carried(Sema *S, Node *at, PtrVec *names, Env *before, PtrVec *body_out, const char *what) {
  for (int i = 0; i < names->n; i++) {
    const char *name = names->v[i];
    Val *b = env_get(before, name), *e = env_get(&S->f->env, name);
    if (!b || b->kind == V_UNDEF) {
      Val *u = new_val(S, V_UNDEF);
      u->why = arena_printf(S->a, "'%s' is assigned inside the %s at line %d but not before it; "
                           "define it before the %s", name, what, sema_loc(at).line, what);
      env_set(S, &S->f->env, name, u);
      continue;
    }
    if (!e || b == e) continue;
    Var *vb = held_var(b);
    if (!vb) {
      if (b->kind == V_CONST && e->kind == V_CONST && cv_equal(b->c, e->c)) continue;
      if (b->kind == V_FUNC && e->kind == V_FUNC && b->fn == e->fn) continue;
      if (b->kind == V_TUPLE) {
        if (e->kind == V_TUPLE && e->n == b->n) {
          bool same = true;
          for (int j = 0; j < b->n; j++) {
            Var *x = held_var(b->elems[j]), *y = held_var(e->elems[j]);
            same &= (x && x == y && b->elems[j]->ty == e->elems[j]->ty) ||
                    (b->elems[j]->kind == V_CONST && e->elems[j]->kind == V_CONST && cv_equal(b->elems[j]->c, e->elems[j]->c));
          }
          if (same) continue;
        }
        sema_error(S, at, "tuple '%s' is re-assigned inside the %s; carry its elements in separate variables", name, what);
      }
      sema_error(S, at, "'%s' holds %s before the %s but is re-assigned inside it", name, val_desc(S, b), what);
    }
    if (e->kind == V_CONST) {
      /* the body ends with a constant: store it in the carried var */
      PtrVec *saved = S->out;
      S->out = body_out;
      TNode *c = to_rt_typed(S, at, e, ty_elem(b->ty));
      c = broadcast_to_shape(S, at, c, b->ty);
      env_set(S, &S->f->env, name, store_rt(S, at, name, c));
      S->out = saved;
      continue;
    }
    if (e->kind != V_RT || held_var(e) != vb)
      sema_error(S, at, "'%s' changes from %s to %s inside the %s", name, val_desc(S, b), val_desc(S, e), what);
    if (e->ty != b->ty)
      sema_error(S, at, "loop-carried variable '%s' has type %s before the %s but %s at the end of its body",
                 name, ty_str(S->a, b->ty), what, ty_str(S->a, e->ty));
  }
}

/* The vars that names hold (tuple elements included), for scf results. */
static void held_vars_of(Sema *S, PtrVec *names, Env *env, TNode *t) {
  PtrVec vars = {0};
  for (int i = 0; i < names->n; i++) {
    Val *v = env_get(env, names->v[i]);
    if (!v) continue;
    Val *one[1] = {v};
    Val **items = v->kind == V_TUPLE ? v->elems : one;
    int n = v->kind == V_TUPLE ? v->n : 1;
    for (int j = 0; j < n; j++) {
      Var *var = held_var(items[j]);
      bool dup = false;
      for (int k = 0; k < vars.n; k++) dup |= vars.v[k] == var;
      if (var && !dup) vec_push(S->a, &vars, var);
    }
  }
  t->ntargets = vars.n;
  t->targets = (Var **)vars.v;
}

static void exec_stmt(Sema *S, Node *s);

static void exec_block(Sema *S, NodeList *body) {
  for (int i = 0; i < body->n && !S->f->returned; i++) exec_stmt(S, body->v[i]);
}

/* Runs body with its own statement list; returns that list. */
static TNodeList exec_nested(Sema *S, NodeList *body, PtrVec *out) {
  PtrVec *saved = S->out;
  S->out = out;
  exec_block(S, body);
  S->out = saved;
  return to_tlist(S, out);
}

/* The merged value of name after a runtime if. */
static void merge_branch(Sema *S, Node *at, const char *name, Env *then_env, Env *else_env,
                         PtrVec *then_out, PtrVec *else_out) {
  Val *t = env_get(then_env, name), *e = env_get(else_env, name);
  if (t == e) {
    if (t) env_set(S, &S->f->env, name, t);
    return;
  }
  if (!t || !e || t->kind == V_UNDEF || e->kind == V_UNDEF) {
    Val *u = new_val(S, V_UNDEF);
    u->why = arena_printf(S->a, "'%s' is defined in only one branch of the 'if' at line %d", name, sema_loc(at).line);
    env_set(S, &S->f->env, name, u);
    return;
  }
  if (t->kind == V_CONST && e->kind == V_CONST && cv_equal(t->c, e->c)) {
    env_set(S, &S->f->env, name, t);
    return;
  }
  Var *vt = held_var(t), *ve = held_var(e);
  if (vt && ve && vt == ve) {
    if (t->ty != e->ty)
      sema_error(S, at, "'%s' has type %s in the 'then' branch but %s in the 'else' branch", name,
                 ty_str(S->a, t->ty), ty_str(S->a, e->ty));
    env_set(S, &S->f->env, name, t);
    return;
  }
  bool tn = t->kind == V_CONST || vt, en = e->kind == V_CONST || ve;
  if (!tn || !en)
    sema_error(S, at, "'%s' holds %s in one branch of this 'if' and %s in the other", name, val_desc(S, t), val_desc(S, e));
  /* a constant on one side (or on both): store both sides in one var */
  const Type *ty;
  if (vt) ty = t->ty;
  else if (ve) ty = e->ty;
  else {
    Val *r = binary_op(S, at, TK_PLUS, val_rt(S, to_rt(S, at, t)), val_rt(S, to_rt(S, at, e)));
    ty = r->ty;
  }
  if (vt && ve) sema_error(S, at, "'%s' is assigned different variables in the two branches", name);
  Val *result = NULL;
  PtrVec *saved = S->out;
  if (!vt) {
    S->out = then_out;
    result = store_rt(S, at, name, broadcast_to_shape(S, at, to_rt_typed(S, at, t, ty_elem(ty)), ty));
  }
  if (!ve) {
    S->out = else_out;
    result = store_rt(S, at, name, broadcast_to_shape(S, at, to_rt_typed(S, at, e, ty_elem(ty)), ty));
  }
  S->out = saved;
  Var *var = frame_var(S, name);
  if ((vt && vt != var) || (ve && ve != var))
    sema_error(S, at, "'%s' is assigned different variables in the two branches", name);
  env_set(S, &S->f->env, name, result);
}

static void exec_if(Sema *S, Node *s) {
  Val *c = eval(S, s->cond);
  if (c->kind == V_CONST) {
    bool taken;
    if (c->c->kind == CV_NONE) taken = false;
    else if (c->c->kind == CV_STR) taken = c->c->s[0] != 0;
    else if (c->c->kind == CV_TUPLE) taken = c->c->nelems != 0;
    else if (c->c->kind == CV_DTYPE) taken = true;
    else taken = cf(c->c) != 0;
    exec_block(S, taken ? &s->body : &s->orelse);
    return;
  }
  if (c->kind != V_RT) sema_error(S, s->cond, "the condition of 'if' must be a value, got %s", val_desc(S, c));
  TNode *cond = to_bool(S, s->cond, c);
  if (cond->type->kind == TY_BLOCK)
    sema_error(S, s->cond, "the condition of 'if' must be a scalar, got %s; use tl.where for blocks", ty_str(S->a, cond->type));
  TNode *t = tnode(S, T_IF, s, ty_void(S->tc));
  t->c = cond;
  Env before = env_copy(S, &S->f->env);
  S->f->rt_depth++;
  PtrVec then_out = {0}, else_out = {0};
  exec_nested(S, &s->body, &then_out);
  bool then_returned = S->f->returned;
  S->f->returned = false;
  Env then_env = S->f->env;
  S->f->env = env_copy(S, &before);
  exec_nested(S, &s->orelse, &else_out);
  bool else_returned = S->f->returned;
  S->f->returned = false;
  Env else_env = S->f->env;
  S->f->rt_depth--;
  /* merge: a branch that returned does not reach the join */
  S->f->env = env_copy(S, &before);
  if (then_returned && !else_returned) S->f->env = else_env;
  else if (else_returned && !then_returned) S->f->env = then_env;
  else if (!then_returned && !else_returned) {
    PtrVec names = {0};
    for (int i = 0; i < then_env.n; i++) add_name(S, &names, then_env.names[i]);
    for (int i = 0; i < else_env.n; i++) add_name(S, &names, else_env.names[i]);
    for (int i = 0; i < names.n; i++) merge_branch(S, s, names.v[i], &then_env, &else_env, &then_out, &else_out);
  }
  if (then_returned && else_returned) S->f->returned = true;
  PtrVec assigned = {0};
  collect_assigned(S, &s->body, &assigned);
  collect_assigned(S, &s->orelse, &assigned);
  held_vars_of(S, &assigned, &S->f->env, t);
  t->body = to_tlist(S, &then_out);
  t->orelse = to_tlist(S, &else_out);
  emit_stmt(S, t);
}

/* range(stop) / range(start, stop[, step]) / tl.range(..., num_stages=) / tl.static_range(...) */
typedef struct RangeSpec {
  Val *lo, *hi, *step;
  bool is_static;
  int num_stages;
  const char *attrs;
} RangeSpec;

static void range_args(Sema *S, Node *it, RangeSpec *r) {
  if (it->kind != N_CALL) sema_error(S, it, "kernels can only loop over range(), tl.range() or tl.static_range()");
  Val *callee = eval(S, it->lhs);
  const char *name = callee->kind == V_BUILTIN ? callee->builtin->name : "";
  if (strcmp(name, "py.range") && strcmp(name, "range") && strcmp(name, "static_range"))
    sema_error(S, it, "kernels can only loop over range(), tl.range() or tl.static_range()");
  r->is_static = !strcmp(name, "static_range");
  int n = it->kids.n;
  if (n < 1 || n > 3) sema_error(S, it, "range expects 1 to 3 arguments, got %d", n);
  Val *a[3];
  for (int i = 0; i < n; i++) {
    if (it->kids.v[i]->kind == N_STARRED) sema_error(S, it->kids.v[i], "'*' arguments are not supported in range");
    a[i] = eval(S, it->kids.v[i]);
  }
  r->lo = n == 1 ? val_const(S, cv_int(S, 0)) : a[0];
  r->hi = n == 1 ? a[0] : a[1];
  r->step = n == 3 ? a[2] : val_const(S, cv_int(S, 1));
  for (int i = 0; i < it->kwargs.n; i++) {
    Node *k = it->kwargs.v[i];
    Val *v = eval(S, k->lhs);
    if (!strcmp(name, "py.range")) sema_error(S, k, "range() takes no keyword arguments");
    if (!strcmp(k->name, "num_stages")) {
      if (!val_is_none(v)) r->num_stages = (int)const_int(S, k->lhs, v, "num_stages");
    } else if (!strcmp(k->name, "loop_unroll_factor") || !strcmp(k->name, "disallow_acc_multi_buffer") ||
               !strcmp(k->name, "flatten") || !strcmp(k->name, "warp_specialize") || !strcmp(k->name, "disable_licm")) {
      if (!val_is_none(v)) {
        StrBuf sb = {.arena = S->a};
        if (v->kind != V_CONST) sema_error(S, k->lhs, "'%s' must be a constexpr", k->name);
        cvalue_print(&sb, v->c);
        r->attrs = r->attrs ? arena_printf(S->a, "%s %s=%s", r->attrs, k->name, sb.s) : arena_printf(S->a, "%s=%s", k->name, sb.s);
        sb_free(&sb);
      }
    } else {
      sema_error(S, k, "%s() got an unexpected keyword argument '%s'", r->is_static ? "tl.static_range" : "tl.range", k->name);
    }
  }
}

/* The body of a runtime loop t, and the vars it carries. */
static void loop_body(Sema *S, Node *s, TNode *t, PtrVec *names, Env *before) {
  S->f->rt_depth++;
  S->f->loop_depth++;
  PtrVec body = {0};
  exec_nested(S, &s->body, &body);
  if (S->f->returned && !S->f->is_kernel)
    sema_error(S, s, "'return' inside a loop of an inlined function is not supported yet");
  S->f->returned = false;
  S->f->loop_depth--;
  S->f->rt_depth--;
  check_carried(S, s, names, before, &body, "loop");
  held_vars_of(S, names, before, t);
  t->body = to_tlist(S, &body);
}

static void exec_for(Sema *S, Node *s) {
  RangeSpec r = {0};
  range_args(S, s->cond, &r);
  if (s->lhs->kind != N_NAME) sema_error(S, s->lhs, "the loop variable must be a single name");
  const char *iv = s->lhs->name;
  bool all_const = r.lo->kind == V_CONST && r.hi->kind == V_CONST && r.step->kind == V_CONST;
  if (r.is_static) {
    if (!all_const) sema_error(S, s->cond, "tl.static_range bounds must be constexprs");
    int64_t lo = const_int(S, s->cond, r.lo, "the range start"), hi = const_int(S, s->cond, r.hi, "the range end"),
            st = const_int(S, s->cond, r.step, "the range step");
    if (st == 0) sema_error(S, s->cond, "range step must not be zero");
    /* in unsigned arithmetic: bounds near the int64 limits must not overflow */
    uint64_t span = 0, ast = st > 0 ? (uint64_t)st : -(uint64_t)st;
    if (st > 0 && hi > lo) span = (uint64_t)hi - (uint64_t)lo;
    if (st < 0 && lo > hi) span = (uint64_t)lo - (uint64_t)hi;
    uint64_t ucount = span ? (span - 1) / ast + 1 : 0;
    if (ucount > 4096) sema_error(S, s->cond, "tl.static_range unrolls %llu iterations; at most 4096 are allowed", (unsigned long long)ucount);
    int64_t count = (int64_t)ucount;
    S->f->static_depth++;
    for (int64_t i = 0; i < count && !S->f->returned; i++) {
      bind(S, s->lhs, iv, val_const(S, cv_int(S, (int64_t)((uint64_t)lo + (uint64_t)i * (uint64_t)st))));
      exec_block(S, &s->body);
    }
    S->f->static_depth--;
    return;
  }
  /* a runtime loop */
  TNode *lo = to_rt(S, s->cond, r.lo), *hi = to_rt(S, s->cond, r.hi), *st = to_rt(S, s->cond, r.step);
  const TNode *bounds[3] = {lo, hi, st};
  for (int i = 0; i < 3; i++)
    if (!ty_is_int(bounds[i]->type) || bounds[i]->type->kind == TY_BLOCK || ty_elem(bounds[i]->type)->dtype == DT_I1)
      sema_error(S, s->cond, "range bounds must be integer scalars, got %s", ty_str(S->a, bounds[i]->type));
  if (r.step->kind == V_CONST && const_int(S, s->cond, r.step, "the step") == 0)
    sema_error(S, s->cond, "range step must not be zero");
  /* the induction variable takes the widest bound type (i32 unless one is 64-bit) */
  const Type *ity = ty_scalar(S->tc, DT_I32);
  for (int i = 0; i < 3; i++)
    if (dtype_bits(ty_elem(bounds[i]->type)->dtype) == 64) ity = ty_scalar(S->tc, DT_I64);
  lo = cast_to(S, s->cond, lo, ity);
  hi = cast_to(S, s->cond, hi, ity);
  st = cast_to(S, s->cond, st, ity);
  PtrVec names = {0};
  collect_assigned(S, &s->body, &names);
  materialize_carried(S, s, &names);
  Env before = env_copy(S, &S->f->env);
  TNode *t = tnode(S, T_FOR, s, ty_void(S->tc));
  t->a = lo;
  t->b = hi;
  t->c = st;
  t->num_stages = r.num_stages;
  t->loop_attrs = r.attrs;
  t->var = frame_var(S, iv);
  t->var->type = ity;
  env_set(S, &S->f->env, iv, held_var_val(S, t->var, ity));
  loop_body(S, s, t, &names, &before);
  for (int i = 0; i < t->ntargets; i++)
    if (t->targets[i] == t->var) t->targets[i--] = t->targets[--t->ntargets];
  emit_stmt(S, t);
}

static void exec_while(Sema *S, Node *s) {
  PtrVec names = {0};
  collect_assigned(S, &s->body, &names);
  materialize_carried(S, s, &names);
  Env before = env_copy(S, &S->f->env);
  TNode *t = tnode(S, T_WHILE, s, ty_void(S->tc));
  PtrVec cond_out = {0};
  PtrVec *saved = S->out;
  S->out = &cond_out;
  Val *c = eval(S, s->cond);
  if (c->kind == V_CONST) {
    if (!const_bool(S, s->cond, c, "the condition"))
      sema_error(S, s->cond, "this while loop never runs: its condition is a constexpr False");
    c = val_rt(S, to_rt(S, s->cond, c));
  }
  TNode *cond = to_bool(S, s->cond, c);
  if (cond->type->kind == TY_BLOCK)
    sema_error(S, s->cond, "the condition of 'while' must be a scalar, got %s", ty_str(S->a, cond->type));
  S->out = saved;
  t->c = cond;
  t->before = to_tlist(S, &cond_out);
  loop_body(S, s, t, &names, &before);
  emit_stmt(S, t);
}

static void exec_return(Sema *S, Node *s) {
  Frame *f = S->f;
  if (f->is_kernel) {
    if (s->lhs) {
      Val *v = eval(S, s->lhs);
      if (!val_is_none(v)) sema_error(S, s, "kernels cannot return a value");
    }
    emit_stmt(S, tnode(S, T_RETURN, s, ty_void(S->tc)));
    f->returned = true;
    return;
  }
  if (f->rt_depth > 0)
    sema_error(S, s, "'return' inside a runtime 'if' or loop of an inlined function is not supported yet; "
               "compute the result with tl.where and return once at the end");
  f->ret = s->lhs ? eval(S, s->lhs) : val_none(S);
  /* hold runtime results in vars, so a caller can use them more than once */
  if (f->ret->kind == V_RT && f->ret->e && f->ret->e->kind != T_VAR) {
    Val *held = store_rt(S, s, "ret", f->ret->e);
    f->ret = read_val(S, s, held);
  }
  f->returned = true;
}

/* Unrolling and inlining multiply code: a kernel may not expand without
 * bound (nested static_range loops, a helper calling another twice, a wide
 * expression in an unrolled loop). Statements, calls and expressions count. */
#define MAX_WORK (1 << 20)

static void count_work_n(Sema *S, Node *at, long n) {
  S->work += n;
  if (S->work > MAX_WORK)
    sema_error(S, at, "the kernel expands to more than %d operations after unrolling and inlining", MAX_WORK);
}

static void count_work(Sema *S, Node *at) { count_work_n(S, at, 1); }

static void exec_stmt(Sema *S, Node *s) {
  count_work(S, s);
  switch (s->kind) {
  case N_ASSIGN: {
    Val *v = eval(S, s->rhs);
    for (int i = 0; i < s->kids.n; i++) {
      Val *use = v;
      if (i + 1 < s->kids.n && v->kind == V_RT) {
        /* a = b = expr: evaluate once, read back for each target */
        Val *held = store_rt(S, s, "chain", v->e);
        v = read_val(S, s, held);
        use = read_val(S, s, held);
      }
      assign_target(S, s->kids.v[i], use);
    }
    return;
  }
  case N_AUGASSIGN: {
    Node *t = s->lhs;
    if (t->kind != N_NAME) sema_error(S, t, "only names can be targets of augmented assignment in kernels");
    Val *cur = read_name(S, t);
    Val *rhs = eval(S, s->rhs);
    Val *r = binary_op(S, s, s->op, cur, rhs);
    bind(S, t, t->name, r);
    return;
  }
  case N_ANNASSIGN: {
    if (!s->rhs) return;
    Val *v = eval(S, s->rhs);
    Val *ann = eval(S, s->annot);
    if (ann->kind == V_BUILTIN && !strcmp(ann->builtin->name, "constexpr") && v->kind != V_CONST)
      sema_error(S, s->rhs, "'%s' is annotated tl.constexpr but its value is not a constexpr", s->lhs->name);
    assign_target(S, s->lhs, v);
    return;
  }
  case N_IF: exec_if(S, s); return;
  case N_FOR: exec_for(S, s); return;
  case N_WHILE: exec_while(S, s); return;
  case N_BREAK: case N_CONTINUE:
    if (S->f->static_depth > 0 && S->f->loop_depth == 0)
      sema_error(S, s, "'%s' is not supported in tl.static_range loops", s->kind == N_BREAK ? "break" : "continue");
    if (S->f->loop_depth == 0) sema_error(S, s, "'%s' outside a loop", s->kind == N_BREAK ? "break" : "continue");
    emit_stmt(S, tnode(S, s->kind == N_BREAK ? T_BREAK : T_CONTINUE, s, ty_void(S->tc)));
    return;
  case N_RETURN: exec_return(S, s); return;
  case N_PASS: return;
  case N_EXPR_STMT: {
    if (s->lhs->kind == N_STR) return; /* a docstring */
    Val *v = eval(S, s->lhs);
    if (v->kind == V_RT && v->e) {
      TNode *t = tnode(S, T_EXPR, s, ty_void(S->tc));
      t->a = v->e;
      emit_stmt(S, t);
    }
    return;
  }
  case N_ASSERT: {
    Val *c = eval(S, s->cond);
    Val *msg = s->lhs ? eval(S, s->lhs) : NULL;
    if (c->kind == V_CONST) {
      if (!const_bool(S, s->cond, c, "the assertion"))
        sema_error(S, s, "assertion failed%s%s", msg && msg->kind == V_CONST && msg->c->kind == CV_STR ? ": " : "",
                   msg && msg->kind == V_CONST && msg->c->kind == CV_STR ? msg->c->s : "");
      return;
    }
    Args args = {.pos = (Val *[]){c, msg ? msg : val_const(S, cv_str(S, ""))}, .npos = 2};
    builtin_call(S, s, builtin_find("device_assert"), NULL, &args);
    return;
  }
  case N_DEF: sema_error(S, s, "nested functions are not supported in kernels");
  default: sema_error(S, s, "this statement is not supported in kernels");
  }
}

static void exec_function_body(Sema *S, JitFunc *fn) { exec_block(S, &fn->def->body); }

/* ---- signatures and the kernel ------------------------------------------------------ */

static bool name_used_in(Node *n, const char *name) {
  if (!n) return false;
  if (n->kind == N_NAME && !strcmp(n->name, name)) return true;
  Node *subs[] = {n->lhs, n->rhs, n->cond, n->annot};
  for (int i = 0; i < 4; i++)
    if (name_used_in(subs[i], name)) return true;
  NodeList *lists[] = {&n->body, &n->orelse, &n->kids, &n->kwargs};
  for (int l = 0; l < 4; l++)
    for (int i = 0; i < lists[l]->n; i++)
      if (name_used_in(lists[l]->v[i], name)) return true;
  return false;
}

/* The kernels of a module: @jit functions no other @jit function refers to. */
static JitFunc *pick_kernel(Sema *S, const SpecOptions *opt) {
  const Module *m = S->m;
  if (opt->kernel) {
    JitFunc *f = module_find_func(m, opt->kernel);
    if (!f) {
      StrBuf sb = {.arena = S->a};
      for (int i = 0; i < m->funcs.n; i++) sb_printf(&sb, "%s'%s'", i ? ", " : "", ((JitFunc *)m->funcs.v[i])->name);
      diag_plain_error(S->d, "%s: no @triton.jit function named '%s'%s%s", m->src->name, opt->kernel,
                       m->funcs.n ? "; the file has " : " (the file has none)", sb.s ? sb.s : "");
      sb_free(&sb);
      diag_unwind(S->d);
    }
    return f;
  }
  PtrVec kernels = {0};
  for (int i = 0; i < m->funcs.n; i++) {
    JitFunc *f = m->funcs.v[i];
    if (module_find_func(m, f->name) != f) continue; /* redefined later: Python keeps the last */
    bool used = false;
    for (int j = 0; j < m->funcs.n && !used; j++)
      if (j != i) used = name_used_in(((JitFunc *)m->funcs.v[j])->def, f->name);
    if (!used) vec_push(S->a, &kernels, f);
  }
  if (kernels.n == 1) return kernels.v[0];
  if (m->funcs.n == 0) {
    diag_plain_error(S->d, "%s: no @triton.jit function in this file", m->src->name);
    diag_unwind(S->d);
  }
  StrBuf sb = {.arena = S->a};
  PtrVec *list = kernels.n ? &kernels : (PtrVec *)&m->funcs;
  for (int i = 0; i < list->n; i++) sb_printf(&sb, "%s'%s'", i ? ", " : "", ((JitFunc *)list->v[i])->name);
  diag_plain_error(S->d, "%s: the file has several kernels (%s); choose one with -k", m->src->name, sb.s);
  sb_free(&sb);
  diag_unwind(S->d);
}

/* Parses one signature entry; the text is trimmed. */
static SigEntry *parse_sig_entry(Sema *S, const char *txt, Loc loc, const char *where) {
  SigEntry *e = arena_alloc(S->a, sizeof *e);
  e->loc = loc;
  size_t n = strlen(txt);
  if (n == 0) diag_error(S->d, loc, "empty signature entry");
  if (txt[0] == '\'' || txt[0] == '"') {
    if (n < 2 || txt[n - 1] != txt[0]) diag_error(S->d, loc, "unterminated string in signature: %s", txt);
    e->kind = SIG_CONST;
    e->value = cv_str(S, arena_strndup(S->a, txt + 1, n - 2));
    return e;
  }
  if (!strcmp(txt, "True") || !strcmp(txt, "False")) {
    e->kind = SIG_CONST;
    e->value = cv_bool(S, txt[0] == 'T');
    return e;
  }
  if (!strcmp(txt, "None")) {
    e->kind = SIG_CONST;
    e->value = cv_none(S);
    return e;
  }
  if ((txt[0] >= '0' && txt[0] <= '9') || txt[0] == '-' || txt[0] == '.') {
    char *end;
    e->kind = SIG_CONST;
    if (!strpbrk(txt, ".eEn") || !strncmp(txt, "0x", 2)) {
      errno = 0;
      long long v = strtoll(txt, &end, 0);
      if (*end || errno) diag_error(S->d, loc, "bad constant '%s' in %s", txt, where);
      e->value = cv_int(S, v);
    } else {
      double v = strtod(txt, &end);
      if (*end) diag_error(S->d, loc, "bad constant '%s' in %s", txt, where);
      e->value = cv_float(S, v);
    }
    return e;
  }
  const char *p = txt;
  bool ptr = *p == '*';
  if (ptr) p++;
  char ty[32];
  size_t k = 0;
  while (p[k] && p[k] != ':' && k < sizeof ty - 1) {
    ty[k] = p[k];
    k++;
  }
  ty[k] = 0;
  if (ptr && ty[0] == '*')
    diag_error(S->d, loc, "unknown type '%s' in %s: pointers to pointers are not supported", txt, where);
  if (!dtype_parse(ty, &e->dtype))
    diag_error(S->d, loc, "unknown type '%s' in %s (expected a type like *fp32, i32, fp16 or a constant)", ty, where);
  e->kind = ptr ? SIG_PTR : SIG_SCALAR;
  p += k;
  if (*p == ':') {
    p++;
    char *end;
    long v = strtol(p, &end, 10);
    if (*end || (v != 16 && v != 1)) diag_error(S->d, loc, "bad hint ':%s' in signature: expected ':16' or ':1'", p);
    if (v == 1 && ptr) diag_error(S->d, loc, "':1' is a hint for integers, not pointers");
    if (v == 1 && !dtype_is_int(e->dtype)) diag_error(S->d, loc, "':1' is a hint for integers");
    e->divisibility = (int)v;
  }
  return e;
}

/* The signature text is its own little source, so its errors get a caret too. */
static PtrVec parse_signature(Sema *S, const char *sig) {
  Source *src = arena_alloc(S->a, sizeof *src);
  src->name = "<signature>";
  src->text = arena_strndup(S->a, sig, strlen(sig));
  src->len = strlen(sig);
  for (size_t i = 0; i < src->len; i++)
    if (sig[i] == '\n' || sig[i] == '\r') ((char *)src->text)[i] = ' ';
  PtrVec out = {0};
  const char *p = src->text;
  while (*p == ' ') p++;
  if (!*p) return out;
  for (;;) {
    const char *start = p;
    char q = 0;
    while (*p && (q || *p != ',')) {
      if (!q && (*p == '\'' || *p == '"')) q = *p;
      else if (q && *p == q) q = 0;
      p++;
    }
    const char *s = start, *e = p;
    while (s < e && *s == ' ') s++;
    while (e > s && e[-1] == ' ') e--;
    Loc loc = {src, 1, (int)(s - src->text) + 1};
    vec_push(S->a, &out, parse_sig_entry(S, arena_strndup(S->a, s, (size_t)(e - s)), loc, "signature"));
    if (!*p) break;
    p++;
  }
  return out;
}

/* Parses a -D value: a number, a quoted string, True/False, or a dtype name. */
static CValue *parse_define_value(Sema *S, const char *txt) {
  Loc none = {0};
  SigEntry *e = parse_sig_entry(S, txt, none, "-D value");
  if (e->kind == SIG_CONST) return e->value;
  if (e->kind == SIG_SCALAR && !e->divisibility) return cv_dtype(S, ty_scalar(S->tc, e->dtype));
  diag_plain_error(S->d, "-D value '%s' must be a number, a quoted string, True or False", txt);
  diag_unwind(S->d);
}

/* Evaluates a heuristics lambda `lambda args: ...` over the known constexprs. */
static Val *eval_heuristic(Sema *S, Node *lam, PtrVec *names, PtrVec *vals, Node *def) {
  if (lam->kind != N_LAMBDA || lam->kids.n != 1)
    sema_error(S, lam, "a heuristic must be a lambda of one argument");
  Frame hf = {0};
  Frame *saved = S->f;
  S->f = &hf;
  /* args['X'] reads are rewritten as names bound in this frame */
  for (int i = 0; i < names->n; i++) env_set(S, &hf.env, names->v[i], vals->v[i]);
  for (int i = 0; i < def->kids.n; i++) {
    const char *pn = def->kids.v[i]->name;
    if (!env_get(&hf.env, pn)) {
      Val *u = new_val(S, V_UNDEF);
      u->why = arena_printf(S->a, "this heuristic depends on the runtime argument '%s'; give its result in the signature or with -D", pn);
      env_set(S, &hf.env, pn, u);
    }
  }
  const char *argname = lam->kids.v[0]->name;
  Val *marker = new_val(S, V_MODULE);
  marker->path = "heuristic.args";
  env_set(S, &hf.env, argname, marker);
  Val *v = eval(S, lam->lhs);
  S->f = saved;
  return v;
}

Kernel *sema_kernel(Arena *a, Diags *d, TypeCache *tc, const Module *m, const SpecOptions *opt) {
  Sema s = {.a = a, .d = d, .tc = tc, .m = m, .src = m->src};
  Sema *S = &s;
  jmp_buf jb, *saved = d->unwind;
  d->unwind = &jb;
  if (setjmp(jb)) {
    d->unwind = saved;
    d->site = NULL;
    return NULL;
  }
  JitFunc *fn = pick_kernel(S, opt);
  Node *def = fn->def;
  Kernel *k = arena_alloc(a, sizeof *k);
  k->name = fn->name;
  k->loc = sema_loc(def);
  S->k = k;
  Frame f = {.fn = fn, .is_kernel = true};
  S->f = &f;

  int np = def->kids.n;
  CValue **consts = arena_alloc(a, sizeof(CValue *) * (size_t)(np + 1));
  const char **origin = arena_alloc(a, sizeof(char *) * (size_t)(np + 1));
  /* -D first: they take a parameter out of the positional list */
  for (int i = 0; i < opt->ndefines; i++) {
    const char *eq = strchr(opt->defines[i], '=');
    if (!eq) {
      diag_plain_error(d, "-D expects NAME=VALUE, got '%s'", opt->defines[i]);
      diag_unwind(d);
    }
    const char *name = arena_strndup(a, opt->defines[i], (size_t)(eq - opt->defines[i]));
    int j = 0;
    while (j < np && strcmp(def->kids.v[j]->name, name)) j++;
    if (j == np) {
      diag_plain_error(d, "-D %s: kernel '%s' has no parameter named '%s'", opt->defines[i], fn->name, name);
      diag_unwind(d);
    }
    if (!param_is_constexpr(S, def->kids.v[j])) {
      diag_plain_error(d, "-D %s: parameter '%s' is not a tl.constexpr", opt->defines[i], name);
      diag_unwind(d);
    }
    if (origin[j]) {
      diag_plain_error(d, "-D sets '%s' twice", name);
      diag_unwind(d);
    }
    consts[j] = parse_define_value(S, eq + 1);
    origin[j] = "-D";
  }
  /* the first autotune config supplies its meta-parameters */
  AutotuneConfig *cfg = fn->configs.n ? fn->configs.v[0] : NULL;
  bool *from_cfg = arena_alloc(a, sizeof(bool) * (size_t)(np + 1));
  bool *from_heur = arena_alloc(a, sizeof(bool) * (size_t)(np + 1));
  for (int j = 0; j < np; j++) {
    const char *pn = def->kids.v[j]->name;
    for (int c = 0; cfg && c < cfg->kwargs.n; c++)
      if (!strcmp(cfg->kwargs.v[c]->name, pn)) from_cfg[j] = true;
    for (int h = 0; h < fn->heuristics.n; h++)
      if (!strcmp(((Node *)fn->heuristics.v[h])->name, pn)) from_heur[j] = true;
  }
  PtrVec sig = parse_signature(S, opt->signature ? opt->signature : "");
  /* Which parameters the positional entries cover. */
  int n_free = 0, n_free_nometa = 0;
  for (int j = 0; j < np; j++) {
    if (origin[j]) continue;
    n_free++;
    if (!from_cfg[j] && !from_heur[j]) n_free_nometa++;
  }
  bool skip_meta = sig.n != n_free && sig.n <= n_free_nometa;
  int si = 0;
  for (int j = 0; j < np; j++) {
    Node *p = def->kids.v[j];
    if (origin[j]) continue;
    if (skip_meta && (from_cfg[j] || from_heur[j])) continue;
    if (si >= sig.n) {
      if (p->rhs || from_cfg[j] || from_heur[j]) continue; /* a default or a meta-parameter */
      StrBuf sb = {.arena = S->a};
      for (int q = 0; q < np; q++) sb_printf(&sb, "%s%s", q ? ", " : "", def->kids.v[q]->name);
      diag_error(d, sema_loc(def), "the signature has %d entr%s but kernel '%s' needs %d (%s)", sig.n,
                 sig.n == 1 ? "y" : "ies", fn->name, si + 1 + (np - j - 1), sb.s);
    }
    SigEntry *e = sig.v[si++];
    bool ce = param_is_constexpr(S, p);
    if (ce && e->kind != SIG_CONST) {
      if (e->kind == SIG_SCALAR && !e->divisibility) {
        consts[j] = cv_dtype(S, ty_scalar(tc, e->dtype)); /* a dtype constexpr */
        origin[j] = "signature";
        continue;
      }
      diag_error_noreturnless(d, sema_loc(p), "parameter '%s' is a tl.constexpr, but the signature gives it a type", p->name);
      diag_note(d, e->loc, "this entry");
      diag_unwind(d);
    }
    if (!ce && e->kind == SIG_CONST) {
      diag_error_noreturnless(d, sema_loc(p), "parameter '%s' is not a tl.constexpr, but the signature gives it a constant", p->name);
      diag_note(d, e->loc, "this entry");
      diag_unwind(d);
    }
    if (ce) {
      consts[j] = e->value;
      origin[j] = "signature";
    } else {
      vec_push(a, &k->param_sigs, e);
      origin[j] = "param";
      Var *v = frame_var(S, p->name);
      v->is_param = true;
      v->param_index = k->params.n;
      v->type = e->kind == SIG_PTR ? ty_ptr(tc, ty_scalar(tc, e->dtype)) : ty_scalar(tc, e->dtype);
      vec_push(a, &k->params, v);
      vec_push(a, &k->param_types, (void *)v->type);
      if (e->divisibility == 1) {
        /* specialized to the value 1 */
        consts[j] = cv_int(S, 1);
      }
    }
  }
  if (si < sig.n) {
    SigEntry *e = sig.v[si];
    int ndef = 0;
    for (int q = 0; q < np; q++) ndef += origin[q] && !strcmp(origin[q], "-D");
    if (ndef)
      diag_error_noreturnless(d, sema_loc(def), "the signature has %d entries but kernel '%s' takes %d besides the %d set with -D",
                              sig.n, fn->name, si, ndef);
    else
      diag_error_noreturnless(d, sema_loc(def), "the signature has %d entries but kernel '%s' takes %d", sig.n, fn->name, si);
    diag_note(d, e->loc, "first extra entry");
    diag_unwind(d);
  }
  /* meta-parameters from the config, then heuristics, then defaults */
  for (int j = 0; j < np; j++) {
    Node *p = def->kids.v[j];
    if (origin[j] || !from_cfg[j]) continue;
    for (int c = 0; c < cfg->kwargs.n; c++)
      if (!strcmp(cfg->kwargs.v[c]->name, p->name)) {
        Val *v = eval(S, cfg->kwargs.v[c]->lhs);
        if (v->kind != V_CONST) sema_error(S, cfg->kwargs.v[c]->lhs, "autotune config values must be constants");
        consts[j] = v->c;
        origin[j] = "config";
      }
  }
  PtrVec known_names = {0}, known_vals = {0};
  for (int j = 0; j < np; j++)
    if (consts[j] && strcmp(origin[j], "param")) {
      vec_push(a, &known_names, (void *)def->kids.v[j]->name);
      vec_push(a, &known_vals, val_const(S, consts[j]));
    }
  for (int h = 0; h < fn->heuristics.n; h++) {
    Node *kv = fn->heuristics.v[h];
    int j = 0;
    while (j < np && strcmp(def->kids.v[j]->name, kv->name)) j++;
    if (j == np) sema_error(S, kv, "heuristic for '%s': kernel '%s' has no such parameter", kv->name, fn->name);
    if (origin[j]) continue;
    Val *v = eval_heuristic(S, kv->lhs, &known_names, &known_vals, def);
    if (v->kind != V_CONST) sema_error(S, kv->lhs, "heuristic for '%s' does not give a constant", kv->name);
    consts[j] = v->c;
    origin[j] = "heuristic";
    vec_push(a, &known_names, (void *)kv->name);
    vec_push(a, &known_vals, v);
  }
  for (int j = 0; j < np; j++) {
    Node *p = def->kids.v[j];
    if (origin[j]) continue;
    if (!p->rhs) diag_error(d, sema_loc(p), "parameter '%s' has no value: give it in the signature or with -D %s=...", p->name, p->name);
    Val *v = eval(S, p->rhs);
    if (v->kind != V_CONST) sema_error(S, p->rhs, "the default of '%s' must be a constant", p->name);
    if (!param_is_constexpr(S, p))
      diag_error(d, sema_loc(p), "parameter '%s' is not a tl.constexpr and needs a signature entry", p->name);
    consts[j] = v->c;
    origin[j] = "default";
  }
  k->num_warps = opt->num_warps ? opt->num_warps : cfg && cfg->num_warps ? cfg->num_warps : fn->jit_num_warps ? fn->jit_num_warps : 4;
  k->num_stages = opt->num_stages ? opt->num_stages : cfg && cfg->num_stages ? cfg->num_stages : 3;

  /* bind parameters and run the body */
  PtrVec body = {0};
  S->out = &body;
  for (int j = 0; j < np; j++) {
    Node *p = def->kids.v[j];
    if (!strcmp(origin[j], "param")) {
      Var *v = frame_var(S, p->name);
      if (consts[j]) {
        env_set(S, &f.env, p->name, val_const(S, consts[j]));
        continue;
      }
      env_set(S, &f.env, p->name, held_var_val(S, v, v->type));
    } else {
      vec_push(a, &k->const_names, (void *)p->name);
      vec_push(a, &k->const_values, consts[j]);
      env_set(S, &f.env, p->name, val_const(S, consts[j]));
    }
  }
  exec_function_body(S, fn);
  k->body = to_tlist(S, &body);
  d->unwind = saved;
  d->site = NULL;
  return k;
}
