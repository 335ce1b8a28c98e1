/*
 * builtins.c — the `tl.*` surface: argument binding and type rules.
 *
 * One table lists every builtin with its Python parameter list, written as a
 * string ("pointer,mask=,other=": '=' marks an optional parameter, '*' a
 * variadic one), and its handler. Binding follows Python (positional, then
 * keywords, each once) so an error names the builtin and the parameter the
 * way Triton's documentation does. Handlers check types and emit typed nodes;
 * builtins with side effects and no result (store, assert, print, barrier)
 * emit their statement themselves and return None.
 */
#define TILEC_SEMA_INTERNAL
#include "frontend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define A(i) (i < nargs ? args[i] : NULL)
#define HANDLER(name) static Val *name(Sema *S, Node *call, Val **args, int nargs)

static const Type *I1(Sema *S) { return ty_scalar(S->tc, DT_I1); }
static const Type *I32(Sema *S) { return ty_scalar(S->tc, DT_I32); }
static const Type *F32(Sema *S) { return ty_scalar(S->tc, DT_F32); }

static const char *bname(Sema *S, const Builtin *b) {
  if (!strncmp(b->name, "py.", 3)) return arena_printf(S->a, "%s()", b->name + 3);
  if (!strncmp(b->name, "math.", 5)) return arena_printf(S->a, "tl.%s()", b->name);
  if (!strncmp(b->name, "libdevice.", 10)) return arena_printf(S->a, "%s()", b->name);
  if (!strncmp(b->name, "desc.", 5)) return arena_printf(S->a, "tensor_descriptor.%s()", b->name + 5);
  if (!strncmp(b->name, "triton.", 7)) return arena_printf(S->a, "%s()", b->name);
  return arena_printf(S->a, "tl.%s()", b->name);
}

static const Builtin *current; /* the builtin being called, for messages */

static const char *cur(Sema *S) { return bname(S, current); }

static TNode *rt(Sema *S, Node *at, Val *v) { return to_rt(S, at, v); }

static void need_float(Sema *S, Node *at, TNode *e) {
  if (!ty_is_float(e->type))
    sema_error(S, at, "%s expects a floating-point argument, got %s", cur(S), ty_str(S->a, e->type));
}

static void need_int(Sema *S, Node *at, TNode *e) {
  if (!ty_is_int(e->type))
    sema_error(S, at, "%s expects an integer argument, got %s", cur(S), ty_str(S->a, e->type));
}

static Val *none(Sema *S) { return val_none(S); }

static void emit_expr_stmt(Sema *S, Node *at, TNode *e) {
  TNode *t = tnode(S, T_EXPR, at, ty_void(S->tc));
  t->a = e;
  emit_stmt(S, t);
}

/* Promotes runtime/constexpr operands to one element type and one shape. */
static const Type *promote_all(Sema *S, Node *at, Val **vals, TNode **out, int n, bool float_only) {
  const Type *ct = NULL;
  Val *acc = NULL;
  for (int i = 0; i < n; i++) {
    if (!acc) {
      acc = vals[i];
      continue;
    }
    /* the promotion of a "+" gives Triton's common type */
    Val *r = binary_op(S, at, TK_PLUS, acc, vals[i]);
    acc = r;
  }
  TNode *e = to_rt(S, at, acc);
  ct = ty_elem(e->type);
  if (float_only && !dtype_is_float(ct->dtype))
    sema_error(S, at, "%s expects floating-point arguments, got %s", cur(S), ty_str(S->a, ct));
  const Type *shape = NULL;
  for (int i = 0; i < n; i++) {
    out[i] = to_rt_typed(S, at, vals[i], ct);
    shape = shape ? broadcast_shapes(S, at, shape, out[i]->type) : out[i]->type;
  }
  for (int i = 0; i < n; i++) out[i] = broadcast_to_shape(S, at, out[i], shape);
  return ty_with_elem(S->tc, shape, ct);
}

/* ---- Python builtins --------------------------------------------------------- */

HANDLER(py_range) {
  (void)args, (void)nargs;
  sema_error(S, call, "range() can only be used as the iterable of a for loop");
}

static Val *minmax(Sema *S, Node *call, Val **args, int nargs, bool is_max) {
  Val *t = A(0);
  Val **items = args;
  int n = nargs;
  if (nargs == 1) {
    if (t->kind == V_CONST && t->c->kind == CV_TUPLE) {
      items = arena_alloc(S->a, sizeof(Val *) * (size_t)(t->c->nelems + 1));
      for (int i = 0; i < t->c->nelems; i++) items[i] = val_const(S, t->c->elems[i]);
      n = t->c->nelems;
    } else if (t->kind == V_TUPLE) {
      items = t->elems;
      n = t->n;
    }
  }
  if (n < 1) sema_error(S, call, "%s expects at least one value", cur(S));
  Val *best = items[0];
  for (int i = 1; i < n; i++) {
    Val *x = items[i];
    if (best->kind == V_CONST && x->kind == V_CONST) {
      Val *gt = binary_op(S, call, is_max ? TK_GT : TK_LT, x, best);
      if (const_bool(S, call, gt, "a comparison")) best = x;
    } else {
      TNode *ops[2];
      Val *pair[2] = {best, x};
      const Type *ty = promote_all(S, call, pair, ops, 2, false);
      best = val_rt(S, emit_call(S, call, is_max ? "maximum" : "minimum", ty, ops, 2));
    }
  }
  return best;
}
HANDLER(py_min) { return minmax(S, call, args, nargs, false); }
HANDLER(py_max) { return minmax(S, call, args, nargs, true); }

HANDLER(py_len) {
  Val *v = A(0);
  if (v->kind == V_CONST && v->c->kind == CV_TUPLE) return val_const(S, cv_int(S, v->c->nelems));
  if (v->kind == V_CONST && v->c->kind == CV_STR) return val_const(S, cv_int(S, (int64_t)strlen(v->c->s)));
  if (v->kind == V_TUPLE) return val_const(S, cv_int(S, v->n));
  if (v->kind == V_RT && v->ty->kind == TY_BLOCK) return val_const(S, cv_int(S, v->ty->shape[0]));
  sema_error(S, call, "len() of %s", val_desc(S, v));
}

HANDLER(py_int) {
  Val *v = A(0);
  if (!v) return val_const(S, cv_int(S, 0));
  if (v->kind != V_CONST) sema_error(S, call, "int() of a runtime value is not supported; use .to(tl.int32)");
  CValue *c = v->c;
  if (c->kind == CV_INT) return v;
  if (c->kind == CV_BOOL) return val_const(S, cv_int(S, c->b));
  if (c->kind == CV_FLOAT) {
    if (!isfinite(c->f) || fabs(c->f) >= 9.2e18) sema_error(S, call, "int() of a float that does not fit 64 bits");
    return val_const(S, cv_int(S, (int64_t)c->f));
  }
  sema_error(S, call, "int() of %s is not supported", val_desc(S, v));
}

HANDLER(py_float) {
  Val *v = A(0);
  if (!v) return val_const(S, cv_float(S, 0));
  if (v->kind != V_CONST) sema_error(S, call, "float() of a runtime value is not supported; use .to(tl.float32)");
  CValue *c = v->c;
  if (c->kind == CV_FLOAT) return v;
  if (c->kind == CV_INT) return val_const(S, cv_float(S, (double)c->i));
  if (c->kind == CV_BOOL) return val_const(S, cv_float(S, c->b));
  if (c->kind == CV_STR) {
    const char *s = c->s;
    bool neg = *s == '-';
    if (*s == '-' || *s == '+') s++;
    double r;
    if (!strcasecmp(s, "inf") || !strcasecmp(s, "infinity")) r = INFINITY;
    else if (!strcasecmp(s, "nan")) r = NAN;
    else {
      char *end;
      r = strtod(s, &end);
      if (*end || !*s) sema_error(S, call, "could not convert string to float: '%s'", c->s);
    }
    return val_const(S, cv_float(S, neg ? -r : r));
  }
  sema_error(S, call, "float() of %s is not supported", val_desc(S, v));
}

HANDLER(py_bool) {
  Val *v = A(0);
  if (!v) return val_const(S, cv_bool(S, false));
  if (v->kind != V_CONST) sema_error(S, call, "bool() of a runtime value is not supported; compare with 0");
  return val_const(S, cv_bool(S, const_bool(S, call, v, "bool()'s argument")));
}

HANDLER(py_abs) {
  Val *v = A(0);
  if (v->kind == V_CONST) {
    if (v->c->kind == CV_FLOAT) return val_const(S, cv_float(S, fabs(v->c->f)));
    int64_t i = const_int(S, call, v, "abs()'s argument");
    if (i == INT64_MIN) sema_error(S, call, "constexpr integer overflow in abs()");
    return val_const(S, cv_int(S, i < 0 ? -i : i));
  }
  TNode *e = rt(S, call, v);
  TNode *r = emit_call(S, call, "abs", e->type, &e, 1);
  return val_rt(S, r);
}

HANDLER(py_constant_method) {
  (void)args, (void)nargs, (void)call, (void)S;
  return NULL; /* replaced in builtin_call by the bound constant */
}

HANDLER(constexpr_) {
  (void)nargs;
  Val *v = A(0);
  if (v->kind != V_CONST) sema_error(S, call, "tl.constexpr() needs a constant value, got %s", val_desc(S, v));
  return v;
}

HANDLER(triton_cdiv) {
  (void)nargs;
  int64_t a = const_int(S, call, A(0), "triton.cdiv's first argument"), b = const_int(S, call, A(1), "triton.cdiv's second argument");
  if (b == 0) sema_error(S, call, "division by zero in triton.cdiv");
  if (a == INT64_MIN && b == -1) sema_error(S, call, "constexpr integer overflow in triton.cdiv");
  int64_t q = a / b, m = a % b;
  if (m != 0 && ((m < 0) == (b < 0))) q++;
  return val_const(S, cv_int(S, q));
}

HANDLER(triton_next_pow2) {
  (void)nargs;
  int64_t a = const_int(S, call, A(0), "triton.next_power_of_2's argument");
  if (a > ((int64_t)1 << 62)) sema_error(S, call, "triton.next_power_of_2(%lld) does not fit in 64 bits", (long long)a);
  int64_t r = 1;
  while (r < a) r <<= 1;
  return val_const(S, cv_int(S, r));
}

/* ---- ids, ranges, creation ---------------------------------------------------- */

static Val *program_dim(Sema *S, Node *call, Val *axis, const char *name) {
  int64_t ax = axis ? const_int(S, call, axis, "axis") : 0;
  if (ax < 0 || ax > 2) sema_error(S, call, "%s axis must be 0, 1 or 2, got %lld", cur(S), (long long)ax);
  TNode *t = emit_call(S, call, name, I32(S), NULL, 0);
  add_attr(S, t, "axis=%lld", (long long)ax);
  return val_rt(S, t);
}
HANDLER(program_id) { (void)nargs; return program_dim(S, call, A(0), "program_id"); }
HANDLER(num_programs) { (void)nargs; return program_dim(S, call, A(0), "num_programs"); }

HANDLER(arange) {
  (void)nargs;
  int64_t lo = const_int(S, call, A(0), "tl.arange's start"), hi = const_int(S, call, A(1), "tl.arange's end");
  if (hi <= lo) sema_error(S, call, "tl.arange's end (%lld) must be greater than its start (%lld)", (long long)hi, (long long)lo);
  if (lo < INT32_MIN || hi > INT32_MAX) sema_error(S, call, "tl.arange's bounds must fit in int32");
  int64_t n = hi - lo;
  if (n & (n - 1)) sema_error(S, call, "tl.arange's range must be a power of 2, got %lld", (long long)n);
  const Type *ty = check_block_shape(S, call, I32(S), 1, &n);
  TNode *t = emit_call(S, call, "arange", ty, NULL, 0);
  add_attr(S, t, "start=%lld end=%lld", (long long)lo, (long long)hi);
  return val_rt(S, t);
}

static const Type *shape_type(Sema *S, Node *at, Val *shape, const Type *elem) {
  int64_t dims[MAX_RANK + 1];
  int rank = const_int_list(S, at, shape, dims, MAX_RANK, "a block shape");
  for (int i = 0; i < rank; i++)
    if (dims[i] <= 0) sema_error(S, at, "block shape dimensions must be positive");
  return check_block_shape(S, at, elem, rank, dims);
}

static Val *filled(Sema *S, Node *at, const Type *ty, Val *value) {
  const Type *el = ty_elem(ty);
  if (value->kind == V_CONST) {
    TNode *c = to_rt_typed(S, at, value, el);
    return val_rt(S, broadcast_to_shape(S, at, c, ty));
  }
  TNode *v = cast_to(S, at, rt(S, at, value), el);
  if (v->type->kind == TY_BLOCK) sema_error(S, at, "%s needs a scalar value", cur(S));
  return val_rt(S, broadcast_to_shape(S, at, v, ty));
}

HANDLER(zeros) {
  (void)nargs;
  const Type *el = const_dtype(S, call, A(1), "tl.zeros's dtype");
  return filled(S, call, shape_type(S, call, A(0), el), val_const(S, cv_int(S, 0)));
}

HANDLER(full) {
  (void)nargs;
  const Type *el = const_dtype(S, call, A(2), "tl.full's dtype");
  return filled(S, call, shape_type(S, call, A(0), el), A(1));
}

HANDLER(zeros_like) {
  (void)nargs;
  TNode *e = rt(S, call, A(0));
  const Type *ty = e->type;
  if (!val_is_none(A(1))) ty = ty_with_elem(S->tc, ty, const_dtype(S, call, A(1), "dtype"));
  return filled(S, call, ty, val_const(S, cv_int(S, 0)));
}

HANDLER(cdiv) {
  (void)nargs;
  if (A(0)->kind == V_CONST && A(1)->kind == V_CONST) {
    int64_t a = const_int(S, call, A(0), "x"), b = const_int(S, call, A(1), "div");
    if (b == 0) sema_error(S, call, "division by zero in tl.cdiv");
    if (a == INT64_MIN && b == -1) sema_error(S, call, "constexpr integer overflow in tl.cdiv");
    int64_t q = a / b, m = a % b;
    if (m != 0 && ((m < 0) == (b < 0))) q++;
    return val_const(S, cv_int(S, q));
  }
  TNode *ops[2];
  Val *v[2] = {A(0), A(1)};
  const Type *ty = promote_all(S, call, v, ops, 2, false);
  if (!ty_is_int(ty)) sema_error(S, call, "tl.cdiv expects integers, got %s", ty_str(S->a, ty));
  return val_rt(S, emit_call(S, call, "cdiv", ty, ops, 2));
}

/* ---- elementwise ------------------------------------------------------------ */

HANDLER(where) {
  (void)nargs;
  TNode *cond = rt(S, call, A(0));
  if (!ty_is_int(cond->type)) sema_error(S, call, "tl.where's condition must be boolean, got %s", ty_str(S->a, cond->type));
  if (ty_elem(cond->type)->dtype != DT_I1) cond = binary_op(S, call, TK_NE, val_rt(S, cond), val_const(S, cv_int(S, 0)))->e;
  Val *x = A(1), *y = A(2);
  TNode *ops[2];
  Val *v[2] = {x, y};
  const Type *ty;
  TNode *ex = to_rt(S, call, x), *ey = NULL;
  if (ty_is_ptr(ex->type)) {
    ops[0] = ex;
    ops[1] = ey = to_rt(S, call, y);
    if (ty_elem(ex->type) != ty_elem(ey->type))
      sema_error(S, call, "tl.where's branches are pointers of different types: %s and %s", ty_str(S->a, ex->type), ty_str(S->a, ey->type));
    unify_operands(S, call, &ops[0], &ops[1]);
    ty = ops[0]->type;
  } else {
    v[0] = val_rt(S, ex);
    if (x->kind == V_CONST) v[0] = x;
    ty = promote_all(S, call, v, ops, 2, false);
  }
  const Type *shape = broadcast_shapes(S, call, cond->type, ty);
  if (shape) {
    cond = broadcast_to_shape(S, call, cond, shape);
    ops[0] = broadcast_to_shape(S, call, ops[0], shape);
    ops[1] = broadcast_to_shape(S, call, ops[1], shape);
  }
  TNode *t = tnode(S, T_SELECT, call, ops[0]->type);
  t->c = cond;
  t->a = ops[0];
  t->b = ops[1];
  return val_rt(S, t);
}

static Val *elementwise(Sema *S, Node *call, const char *name, Val **vals, int n, bool float_only, const Type *result_elem) {
  TNode *ops[4];
  const Type *ty = promote_all(S, call, vals, ops, n, float_only);
  if (result_elem) ty = ty_with_elem(S->tc, ty, result_elem);
  return val_rt(S, emit_call(S, call, name, ty, ops, n));
}

static void nan_attr(Sema *S, Node *call, TNode *t, Val *v) {
  if (!val_is_none(v)) {
    Val *x = v;
    if (x->kind == V_CONST && x->c->kind == CV_STR) {
      const char *s = x->c->s;
      if (strcmp(s, "all") && strcmp(s, "none") && strcmp(s, ""))
        sema_error(S, call, "propagate_nan must be tl.PropagateNan.ALL or NONE");
      if (!strcmp(s, "all")) add_attr(S, t, "propagate_nan");
    } else if (const_bool(S, call, x, "propagate_nan")) {
      add_attr(S, t, "propagate_nan");
    }
  }
}

HANDLER(maximum) {
  (void)nargs;
  Val *r = elementwise(S, call, "maximum", args, 2, false, NULL);
  nan_attr(S, call, r->e, A(2));
  return r;
}
HANDLER(minimum) {
  (void)nargs;
  Val *r = elementwise(S, call, "minimum", args, 2, false, NULL);
  nan_attr(S, call, r->e, A(2));
  return r;
}
HANDLER(clamp) {
  (void)nargs;
  Val *r = elementwise(S, call, "clamp", args, 3, true, NULL);
  nan_attr(S, call, r->e, A(3));
  return r;
}
HANDLER(fma_) { (void)nargs; return elementwise(S, call, "fma", args, 3, true, NULL); }
HANDLER(umulhi) {
  (void)nargs;
  Val *r = elementwise(S, call, "umulhi", args, 2, false, NULL);
  need_int(S, call, r->e);
  return r;
}
HANDLER(fdiv) {
  (void)nargs;
  Val *r = elementwise(S, call, current->name[0] == 'm' ? current->name + 5 : current->name, args, 2, true, NULL);
  if (!val_is_none(A(2)) && const_bool(S, call, A(2), "ieee_rounding")) add_attr(S, r->e, "ieee_rounding");
  return r;
}

/* exp, log, sqrt, ... : floating-point in, same type out */
HANDLER(math1) {
  (void)nargs;
  TNode *e = rt(S, call, A(0));
  need_float(S, call, e);
  const char *name = current->name;
  if (!strncmp(name, "math.", 5)) name += 5;
  return val_rt(S, emit_call(S, call, name, e->type, &e, 1));
}

HANDLER(abs_) {
  (void)nargs;
  TNode *e = rt(S, call, A(0));
  if (!ty_is_float(e->type) && !ty_is_int(e->type)) sema_error(S, call, "tl.abs expects a number, got %s", ty_str(S->a, e->type));
  return val_rt(S, emit_call(S, call, "abs", e->type, &e, 1));
}

/* ---- libdevice ------------------------------------------------------------ */

/* kinds: 'f' float->float, 'F' (float,float)->float, 'T' three floats,
 * 'b' float->int32 predicate, 'i' int->int, 'I' (int,int)->int, 'p' (float,int)->float,
 * 'r' float->int32/64 conversion */
static const struct {
  const char *name;
  char kind;
} libdevice_fns[] = {
    {"abs", 'f'}, {"acos", 'f'}, {"acosh", 'f'}, {"asin", 'f'}, {"asinh", 'f'}, {"atan", 'f'},
    {"atan2", 'F'}, {"atanh", 'f'}, {"cbrt", 'f'}, {"ceil", 'f'}, {"copysign", 'F'}, {"cos", 'f'},
    {"cosh", 'f'}, {"cospi", 'f'}, {"erf", 'f'}, {"erfc", 'f'}, {"erfcinv", 'f'}, {"erfcx", 'f'},
    {"erfinv", 'f'}, {"exp", 'f'}, {"exp10", 'f'}, {"exp2", 'f'}, {"expm1", 'f'}, {"fabs", 'f'},
    {"fdim", 'F'}, {"floor", 'f'}, {"fma", 'T'}, {"fmax", 'F'}, {"fmin", 'F'}, {"fmod", 'F'},
    {"hypot", 'F'}, {"isinf", 'b'}, {"isnan", 'b'}, {"isfinited", 'b'}, {"finitef", 'b'}, {"signbit", 'b'},
    {"j0", 'f'}, {"j1", 'f'}, {"lgamma", 'f'}, {"log", 'f'}, {"log10", 'f'}, {"log1p", 'f'},
    {"log2", 'f'}, {"logb", 'f'}, {"nearbyint", 'f'}, {"nextafter", 'F'}, {"pow", 'F'},
    {"rcbrt", 'f'}, {"remainder", 'F'}, {"rint", 'f'}, {"round", 'f'}, {"rsqrt", 'f'},
    {"sin", 'f'}, {"sinh", 'f'}, {"sinpi", 'f'}, {"sqrt", 'f'}, {"tan", 'f'}, {"tanh", 'f'},
    {"tgamma", 'f'}, {"trunc", 'f'}, {"y0", 'f'}, {"y1", 'f'}, {"fast_expf", 'f'},
    {"fast_logf", 'f'}, {"fast_log2f", 'f'}, {"fast_exp10f", 'f'}, {"fast_powf", 'F'},
    {"fast_dividef", 'F'}, {"fast_sinf", 'f'}, {"fast_cosf", 'f'}, {"fast_tanf", 'f'},
    {"div_rn", 'F'}, {"div_rz", 'F'}, {"div_rd", 'F'}, {"div_ru", 'F'}, {"rcp_rn", 'f'},
    {"rcp_rz", 'f'}, {"rcp_rd", 'f'}, {"rcp_ru", 'f'}, {"sqrt_rn", 'f'}, {"sqrt_rz", 'f'},
    {"sqrt_rd", 'f'}, {"sqrt_ru", 'f'}, {"add_rn", 'F'}, {"add_rz", 'F'}, {"add_rd", 'F'},
    {"add_ru", 'F'}, {"mul_rn", 'F'}, {"mul_rz", 'F'}, {"mul_rd", 'F'}, {"mul_ru", 'F'},
    {"fma_rn", 'T'}, {"fma_rz", 'T'}, {"fma_rd", 'T'}, {"fma_ru", 'T'}, {"saturatef", 'f'},
    {"ldexp", 'p'}, {"powi", 'p'}, {"scalbn", 'p'}, {"ilogb", 'r'}, {"llrint", 'r'},
    {"llround", 'r'}, {"float2int_rn", 'r'}, {"float2int_rz", 'r'}, {"clz", 'i'}, {"popc", 'i'},
    {"brev", 'i'}, {"ffs", 'i'}, {"mulhi", 'I'}, {"umulhi", 'I'}, {"hadd", 'I'}, {"rhadd", 'I'},
    {"uhadd", 'I'}, {"urhadd", 'I'}, {"min", 'I'}, {"max", 'I'}, {"umin", 'I'}, {"umax", 'I'},
    {"sad", 'I'}, {"usad", 'I'}, {"byte_perm", 'I'}, {"llabs", 'i'}, {"ull2float_rn", 'r'},
    {"int_as_float", 'r'}, {"float_as_int", 'r'},
};

static char libdevice_kind(const char *name) {
  for (size_t i = 0; i < sizeof libdevice_fns / sizeof *libdevice_fns; i++)
    if (!strcmp(libdevice_fns[i].name, name)) return libdevice_fns[i].kind;
  return 0;
}

static Val *libdevice_call(Sema *S, Node *call, const char *name, Val **args, int nargs) {
  char kind = libdevice_kind(name);
  int want = kind == 'F' || kind == 'I' || kind == 'p' ? 2 : kind == 'T' ? 3 : 1;
  if (nargs != want)
    sema_error(S, call, "libdevice.%s() takes %d argument%s (%d given)", name, want, want == 1 ? "" : "s", nargs);
  const char *callee = arena_printf(S->a, "libdevice.%s", name);
  switch (kind) {
  case 'f': case 'F': case 'T': return elementwise(S, call, callee, args, want, true, NULL);
  case 'i': case 'I': {
    Val *r = elementwise(S, call, callee, args, want, false, NULL);
    need_int(S, call, r->e);
    return r;
  }
  case 'b': {
    TNode *e = rt(S, call, args[0]);
    need_float(S, call, e);
    return val_rt(S, emit_call(S, call, callee, ty_with_elem(S->tc, e->type, I32(S)), &e, 1));
  }
  case 'r': {
    TNode *e = rt(S, call, args[0]);
    const Type *res = strstr(name, "ll") || !strcmp(name, "ull2float_rn") ? ty_scalar(S->tc, DT_I64) : I32(S);
    if (!strcmp(name, "int_as_float") || !strcmp(name, "ull2float_rn")) res = F32(S);
    return val_rt(S, emit_call(S, call, callee, ty_with_elem(S->tc, e->type, res), &e, 1));
  }
  case 'p': {
    TNode *x = rt(S, call, args[0]), *n = rt(S, call, args[1]);
    need_float(S, call, x);
    need_int(S, call, n);
    n = cast_to(S, call, n, I32(S));
    unify_operands(S, call, &x, &n);
    TNode *ops[2] = {x, n};
    return val_rt(S, emit_call(S, call, callee, x->type, ops, 2));
  }
  default: unreachable();
  }
}

HANDLER(libdevice_any) {
  (void)nargs;
  /* the one parameter is variadic: unpack the tuple of arguments */
  Val *t = A(0);
  Val *items[4];
  int n = t->kind == V_TUPLE ? t->n : t->c->nelems;
  if (n > 4) sema_error(S, call, "%s() takes at most 3 arguments (%d given)", current->name, n);
  for (int i = 0; i < n; i++) items[i] = t->kind == V_TUPLE ? t->elems[i] : val_const(S, t->c->elems[i]);
  return libdevice_call(S, call, current->name + 10, items, n);
}

/* ---- casts --------------------------------------------------------------- */

static Val *do_cast(Sema *S, Node *call, Val *x, Val *dtype, Val *rounding, Val *bitcast) {
  const Type *to = const_dtype(S, call, dtype, "the target dtype");
  TNode *e = rt(S, call, x);
  const Type *from = ty_elem(e->type);
  bool bc = bitcast && !val_is_none(bitcast) && const_bool(S, call, bitcast, "bitcast");
  if (bc) {
    int fb = from->kind == TY_PTR ? 64 : dtype_bits(from->dtype), tb = to->kind == TY_PTR ? 64 : dtype_bits(to->dtype);
    if (fb != tb) sema_error(S, call, "cannot bitcast %s to %s: they differ in size", ty_str(S->a, from), ty_str(S->a, to));
    if (from == to) return val_rt(S, e);
    TNode *t = tnode(S, T_BITCAST, call, ty_with_elem(S->tc, e->type, to));
    t->a = e;
    return val_rt(S, t);
  }
  if (from->kind == TY_PTR && to->kind == TY_PTR) {
    TNode *t = tnode(S, T_BITCAST, call, ty_with_elem(S->tc, e->type, to));
    t->a = e;
    return val_rt(S, t);
  }
  if (to->kind == TY_PTR && from->kind != TY_PTR)
    sema_error(S, call, "cannot convert %s to a pointer type", ty_str(S->a, from));
  if (from->kind == TY_PTR && !(to->kind == TY_SCALAR && (to->dtype == DT_I64 || to->dtype == DT_U64 || to->dtype == DT_I1)))
    sema_error(S, call, "pointers can only be converted to int64, uint64 or int1");
  if (from->kind == TY_PTR) {
    TNode *t = tnode(S, T_CAST, call, ty_with_elem(S->tc, e->type, to));
    t->a = e;
    return val_rt(S, t);
  }
  if (rounding && !val_is_none(rounding)) {
    const char *r = const_str(S, call, rounding, "fp_downcast_rounding");
    if (strcmp(r, "rtne") && strcmp(r, "rtz")) sema_error(S, call, "fp_downcast_rounding must be 'rtne' or 'rtz', got '%s'", r);
    if (!dtype_is_float(from->dtype) || !dtype_is_float(to->dtype) || dtype_bits(to->dtype) >= dtype_bits(from->dtype))
      sema_error(S, call, "fp_downcast_rounding applies only to floating-point down-casts");
    TNode *t = emit_call(S, call, "fp_downcast", ty_with_elem(S->tc, e->type, to), &e, 1);
    add_attr(S, t, "rounding=%s", r);
    return val_rt(S, t);
  }
  return val_rt(S, cast_to(S, call, e, to));
}

HANDLER(to) { (void)nargs; return do_cast(S, call, A(0), A(1), A(2), A(3)); }
HANDLER(cast) { (void)nargs; return do_cast(S, call, A(0), A(1), A(2), A(3)); }

HANDLER(pointer_type) {
  (void)nargs;
  const Type *el = const_dtype(S, call, A(0), "the element type");
  if (el->kind != TY_SCALAR) sema_error(S, call, "pointers to pointers are not supported");
  return val_const(S, cv_dtype(S, ty_ptr(S->tc, el)));
}

/* ---- memory ---------------------------------------------------------------- */

static const char *check_choice(Sema *S, Node *call, Val *v, const char *what, const char *const *ok) {
  if (val_is_none(v)) return "";
  const char *s = const_str(S, call, v, what);
  for (int i = 0; ok[i]; i++)
    if (!strcmp(ok[i], s)) return s;
  StrBuf sb = {.arena = S->a};
  for (int i = 0; ok[i]; i++) sb_printf(&sb, "%s'%s'", i ? ", " : "", ok[i]);
  const char *msg = arena_printf(S->a, "%s", sb.s);
  sb_free(&sb);
  sema_error(S, call, "%s '%s' is not one of %s", what, s, msg);
}

static const char *const load_cache[] = {"", ".ca", ".cg", ".cv", NULL};
static const char *const store_cache[] = {"", ".wb", ".cg", ".cs", ".wt", NULL};
static const char *const evictions[] = {"", "evict_normal", "evict_first", "evict_last", NULL};
static const char *const paddings[] = {"", "zero", "nan", NULL};

static bool is_block_ptr(const Type *t) { return t->kind == TY_PTR && t->elem->kind == TY_BLOCK; }

/* A mask: int1, as Triton requires (an integer is not taken as a truth value). */
static TNode *bool_mask(Sema *S, Node *call, Val *v) {
  TNode *m = rt(S, call, v);
  const Type *e = ty_elem(m->type);
  if (e->kind != TY_SCALAR || e->dtype != DT_I1)
    sema_error(S, call, "%s's mask must be boolean (int1), got %s; compare it, e.g. mask != 0", cur(S), ty_str(S->a, m->type));
  return m;
}

/* boundary_check=(0, 1): dimensions of a block pointer to check */
static void boundary_attr(Sema *S, Node *call, TNode *t, Val *v, const Type *block) {
  if (val_is_none(v)) return;
  int64_t dims[MAX_RANK + 1];
  int n = const_int_list(S, call, v, dims, MAX_RANK, "boundary_check");
  StrBuf sb = {.arena = S->a};
  for (int i = 0; i < n; i++) {
    if (dims[i] < 0 || dims[i] >= block->rank)
      sema_error(S, call, "boundary_check dimension %lld is out of range for a block of rank %d", (long long)dims[i], block->rank);
    sb_printf(&sb, "%s%lld", i ? "," : "", (long long)dims[i]);
  }
  if (n) add_attr(S, t, "boundary_check=%s", sb.s);
  sb_free(&sb);
}

static void modifiers(Sema *S, Node *call, TNode *t, Val *cache, Val *evict, const char *const *cache_ok) {
  const char *c = check_choice(S, call, cache, "cache_modifier", cache_ok);
  const char *e = check_choice(S, call, evict, "eviction_policy", evictions);
  if (*c) add_attr(S, t, "cache=%s", c);
  if (*e) add_attr(S, t, "evict=%s", e);
}

/* load(pointer, mask=None, other=None, boundary_check=(), padding_option='',
 *      cache_modifier='', eviction_policy='', volatile=False) */
HANDLER(load) {
  (void)nargs;
  TNode *ptr = rt(S, call, A(0));
  const Type *pt = ptr->type;
  if (!ty_is_ptr(pt)) sema_error(S, call, "tl.load expects a pointer, got %s", ty_str(S->a, pt));
  TNode *ops[3] = {ptr, NULL, NULL};
  TNode *t;
  if (is_block_ptr(pt)) {
    if (!val_is_none(A(1)) || !val_is_none(A(2)))
      sema_error(S, call, "loads through a block pointer take boundary_check and padding_option, not mask and other");
    t = emit_call(S, call, "load", pt->elem, ops, 3);
    boundary_attr(S, call, t, A(3), pt->elem);
    const char *pad = check_choice(S, call, A(4), "padding_option", paddings);
    if (*pad) add_attr(S, t, "padding=%s", pad);
  } else {
    if (!val_is_none(A(3))) sema_error(S, call, "boundary_check is only for block pointers; use mask");
    if (!val_is_none(A(4))) sema_error(S, call, "padding_option is only for block pointers; use other");
    const Type *elem = ty_elem(pt)->elem;
    TNode *mask = NULL, *other = NULL;
    if (!val_is_none(A(1))) {
      mask = bool_mask(S, call, A(1));
      const Type *shape = broadcast_shapes(S, call, ptr->type, mask->type);
      if (shape) {
        ptr = broadcast_to_shape(S, call, ptr, shape);
        mask = broadcast_to_shape(S, call, mask, shape);
      }
    }
    if (!val_is_none(A(2))) {
      if (!mask) sema_error(S, call, "tl.load's 'other' needs a 'mask'");
      other = broadcast_to_shape(S, call, to_rt_typed(S, call, A(2), elem), ptr->type);
    }
    ops[0] = ptr;
    ops[1] = mask;
    ops[2] = other;
    t = emit_call(S, call, "load", ty_with_elem(S->tc, ptr->type, elem), ops, 3);
  }
  modifiers(S, call, t, A(5), A(6), load_cache);
  if (!val_is_none(A(7)) && const_bool(S, call, A(7), "volatile")) add_attr(S, t, "volatile");
  return val_rt(S, t);
}

/* store(pointer, value, mask=None, boundary_check=(), cache_modifier='', eviction_policy='') */
HANDLER(store) {
  (void)nargs;
  TNode *ptr = rt(S, call, A(0));
  const Type *pt = ptr->type;
  if (!ty_is_ptr(pt)) sema_error(S, call, "tl.store expects a pointer, got %s", ty_str(S->a, pt));
  TNode *ops[3] = {ptr, NULL, NULL};
  TNode *t;
  if (is_block_ptr(pt)) {
    if (!val_is_none(A(2))) sema_error(S, call, "stores through a block pointer take boundary_check, not mask");
    TNode *v = to_rt_typed(S, call, A(1), pt->elem->elem);
    ops[1] = broadcast_to_shape(S, call, v, pt->elem);
    t = emit_call(S, call, "store", ty_void(S->tc), ops, 3);
    boundary_attr(S, call, t, A(3), pt->elem);
  } else {
    if (!val_is_none(A(3))) sema_error(S, call, "boundary_check is only for block pointers; use mask");
    const Type *elem = ty_elem(pt)->elem;
    TNode *v = to_rt_typed(S, call, A(1), elem);
    if (v->type->kind == TY_BLOCK && ptr->type->kind != TY_BLOCK)
      sema_error(S, call, "cannot store a block of type %s through a scalar pointer", ty_str(S->a, v->type));
    TNode *mask = NULL;
    const Type *shape = broadcast_shapes(S, call, ptr->type, v->type);
    if (!val_is_none(A(2))) {
      mask = bool_mask(S, call, A(2));
      shape = shape ? broadcast_shapes(S, call, shape, mask->type) : mask->type->kind == TY_BLOCK ? mask->type : NULL;
    }
    if (shape) {
      ptr = broadcast_to_shape(S, call, ptr, shape);
      v = broadcast_to_shape(S, call, v, shape);
      if (mask) mask = broadcast_to_shape(S, call, mask, shape);
    }
    ops[0] = ptr;
    ops[1] = v;
    ops[2] = mask;
    t = emit_call(S, call, "store", ty_void(S->tc), ops, 3);
  }
  modifiers(S, call, t, A(4), A(5), store_cache);
  emit_expr_stmt(S, call, t);
  return none(S);
}

static const char *const sems[] = {"", "acquire", "release", "acq_rel", "relaxed", NULL};
static const char *const scopes[] = {"", "gpu", "cta", "sys", NULL};

static void sem_scope(Sema *S, Node *call, TNode *t, Val *sem, Val *scope) {
  const char *s = check_choice(S, call, sem, "sem", sems);
  const char *c = check_choice(S, call, scope, "scope", scopes);
  add_attr(S, t, "sem=%s scope=%s", *s ? s : "acq_rel", *c ? c : "gpu");
}

/* atomic_<op>(pointer, val, mask=None, sem=None, scope=None) */
HANDLER(atomic_rmw) {
  (void)nargs;
  const char *op = current->name + 7;
  TNode *ptr = rt(S, call, A(0));
  if (!ty_is_ptr(ptr->type) || is_block_ptr(ptr->type))
    sema_error(S, call, "%s expects a pointer or a block of pointers, got %s", cur(S), ty_str(S->a, ptr->type));
  const Type *elem = ty_elem(ptr->type)->elem;
  DType d = elem->dtype;
  bool is_f = dtype_is_float(d);
  bool ok;
  if (!strcmp(op, "add")) ok = d == DT_I32 || d == DT_U32 || d == DT_I64 || d == DT_U64 || d == DT_F16 || d == DT_BF16 || d == DT_F32 || d == DT_F64;
  else if (!strcmp(op, "max") || !strcmp(op, "min")) ok = (dtype_is_int(d) && dtype_bits(d) >= 32) || d == DT_F32 || d == DT_F64;
  else if (!strcmp(op, "xchg")) ok = dtype_bits(d) >= 16;
  else ok = dtype_is_int(d) && dtype_bits(d) >= 32;
  if (!ok) sema_error(S, call, "%s does not support pointers to %s", cur(S), dtype_name(d));
  (void)is_f;
  TNode *v = to_rt_typed(S, call, A(1), elem);
  TNode *mask = val_is_none(A(2)) ? NULL : bool_mask(S, call, A(2));
  const Type *shape = broadcast_shapes(S, call, ptr->type, v->type);
  if (mask) shape = shape ? broadcast_shapes(S, call, shape, mask->type) : mask->type->kind == TY_BLOCK ? mask->type : NULL;
  if (shape) {
    ptr = broadcast_to_shape(S, call, ptr, shape);
    v = broadcast_to_shape(S, call, v, shape);
    if (mask) mask = broadcast_to_shape(S, call, mask, shape);
  }
  TNode *ops[3] = {ptr, v, mask};
  TNode *t = emit_call(S, call, "atomic_rmw", ty_with_elem(S->tc, ptr->type, elem), ops, 3);
  add_attr(S, t, "op=%s", op);
  sem_scope(S, call, t, A(3), A(4));
  return val_rt(S, t);
}

/* atomic_cas(pointer, cmp, val, sem=None, scope=None) */
HANDLER(atomic_cas) {
  (void)nargs;
  TNode *ptr = rt(S, call, A(0));
  if (!ty_is_ptr(ptr->type) || is_block_ptr(ptr->type))
    sema_error(S, call, "tl.atomic_cas expects a pointer, got %s", ty_str(S->a, ptr->type));
  const Type *elem = ty_elem(ptr->type)->elem;
  if (dtype_bits(elem->dtype) < 16) sema_error(S, call, "tl.atomic_cas does not support pointers to %s", dtype_name(elem->dtype));
  TNode *cmp = to_rt_typed(S, call, A(1), elem), *v = to_rt_typed(S, call, A(2), elem);
  const Type *shape = broadcast_shapes(S, call, ptr->type, cmp->type);
  shape = shape ? broadcast_shapes(S, call, shape, v->type) : v->type->kind == TY_BLOCK ? v->type : NULL;
  if (shape) {
    ptr = broadcast_to_shape(S, call, ptr, shape);
    cmp = broadcast_to_shape(S, call, cmp, shape);
    v = broadcast_to_shape(S, call, v, shape);
  }
  TNode *ops[3] = {ptr, cmp, v};
  TNode *t = emit_call(S, call, "atomic_cas", ty_with_elem(S->tc, ptr->type, elem), ops, 3);
  sem_scope(S, call, t, A(3), A(4));
  return val_rt(S, t);
}

/* ---- dot ------------------------------------------------------------------ */

/* dot(input, other, acc=None, input_precision=None, allow_tf32=None,
 *     max_num_imprecise_acc=None, out_dtype=tl.float32) */
HANDLER(dot) {
  (void)nargs;
  TNode *a = rt(S, call, A(0)), *b = rt(S, call, A(1));
  const Type *ta = a->type, *tb = b->type;
  if (ta->kind != TY_BLOCK || tb->kind != TY_BLOCK || ta->rank != tb->rank || ta->rank < 2 || ta->rank > 3)
    sema_error(S, call, "tl.dot expects two 2-D (or two 3-D) blocks, got %s and %s", ty_str(S->a, ta), ty_str(S->a, tb));
  int r = ta->rank;
  int64_t M = ta->shape[r - 2], K = ta->shape[r - 1], K2 = tb->shape[r - 2], N = tb->shape[r - 1];
  if (K != K2) sema_error(S, call, "tl.dot: the inner dimensions differ: %s and %s", ty_str(S->a, ta), ty_str(S->a, tb));
  if (r == 3 && ta->shape[0] != tb->shape[0]) sema_error(S, call, "tl.dot: batch dimensions differ");
  if (M < 16 || N < 16 || K < 16)
    sema_error(S, call, "tl.dot needs every dimension to be at least 16, got M=%lld N=%lld K=%lld", (long long)M, (long long)N, (long long)K);
  DType da = ta->elem->dtype, db = tb->elem->dtype;
  bool fa = dtype_is_float(da), fb = dtype_is_float(db);
  if (ta->elem->kind != TY_SCALAR || tb->elem->kind != TY_SCALAR || fa != fb)
    sema_error(S, call, "tl.dot operands must both be floating-point or both integer, got %s and %s", ty_str(S->a, ta), ty_str(S->a, tb));
  bool fp8a = da == DT_F8E4M3 || da == DT_F8E5M2, fp8b = db == DT_F8E4M3 || db == DT_F8E5M2;
  if (da != db && !(fp8a && fp8b))
    sema_error(S, call, "tl.dot operands must have the same dtype, got %s and %s", dtype_name(da), dtype_name(db));
  if (!fa && da != DT_I8 && da != DT_U8) sema_error(S, call, "integer tl.dot needs int8 operands, got %s", dtype_name(da));
  const Type *out = fa ? F32(S) : I32(S);
  if (!val_is_none(A(6))) {
    out = const_dtype(S, call, A(6), "out_dtype");
    if (fa && out->dtype != DT_F32 && out->dtype != DT_F16 && out->dtype != DT_BF16 && out->dtype != DT_F64)
      sema_error(S, call, "tl.dot out_dtype must be a float type for float operands");
  }
  if (da == DT_F64 && val_is_none(A(6))) out = ty_scalar(S->tc, DT_F64);
  int64_t shape[3];
  for (int i = 0; i < r - 2; i++) shape[i] = ta->shape[i];
  shape[r - 2] = M;
  shape[r - 1] = N;
  const Type *rty = ty_block(S->tc, out, r, shape);
  TNode *acc = NULL;
  if (!val_is_none(A(2))) {
    acc = rt(S, call, A(2));
    if (acc->type->kind != TY_BLOCK || acc->type->rank != r || memcmp(acc->type->shape, shape, sizeof(int64_t) * (size_t)r))
      sema_error(S, call, "tl.dot accumulator has type %s but the product is %s", ty_str(S->a, acc->type), ty_str(S->a, rty));
    rty = acc->type;
  }
  TNode *ops[3] = {a, b, acc};
  TNode *t = emit_call(S, call, "dot", rty, ops, 3);
  const char *prec = "";
  if (!val_is_none(A(3))) {
    static const char *const precs[] = {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6", NULL};
    prec = check_choice(S, call, A(3), "input_precision", precs);
  } else if (!val_is_none(A(4))) {
    prec = const_bool(S, call, A(4), "allow_tf32") ? "tf32" : "ieee";
  }
  if (!*prec && da == DT_F32) prec = "tf32";
  if (*prec) add_attr(S, t, "input_precision=%s", prec);
  if (!val_is_none(A(5))) add_attr(S, t, "max_num_imprecise_acc=%lld", (long long)const_int(S, call, A(5), "max_num_imprecise_acc"));
  return val_rt(S, t);
}

/* ---- reductions and scans ---------------------------------------------------- */

static int norm_axis(Sema *S, Node *call, Val *axis, const Type *t, bool allow_none) {
  if (val_is_none(axis)) {
    if (!allow_none) sema_error(S, call, "%s needs an axis", cur(S));
    return -1;
  }
  int rank = t->kind == TY_BLOCK ? t->rank : 0;
  int64_t ax = const_int(S, call, axis, "axis");
  if (ax < 0) ax += rank;
  if (ax < 0 || ax >= rank) sema_error(S, call, "axis %lld is out of range for %s", (long long)const_int(S, call, axis, "axis"), ty_str(S->a, t));
  return (int)ax;
}

/* The type of reducing t along axis (all axes when axis < 0). */
static const Type *reduced_type(Sema *S, const Type *t, const Type *elem, int axis, bool keep) {
  if (t->kind != TY_BLOCK) return elem;
  int64_t shape[MAX_RANK];
  int r = 0;
  for (int i = 0; i < t->rank; i++) {
    if (axis < 0 || i == axis) {
      if (keep) shape[r++] = 1;
    } else {
      shape[r++] = t->shape[i];
    }
  }
  return ty_block(S->tc, elem, r, shape);
}

static TNode *reduce_node(Sema *S, Node *call, const char *kind, TNode *in, int axis, bool keep, const Type *elem) {
  TNode *t = emit_call(S, call, "reduce", reduced_type(S, in->type, elem, axis, keep), &in, 1);
  add_attr(S, t, "kind=%s axis=%d%s", kind, axis, keep ? " keep_dims" : "");
  return t;
}

static bool keep_dims(Sema *S, Node *call, Val *v) { return !val_is_none(v) && const_bool(S, call, v, "keep_dims"); }

static TNode *reduce_input(Sema *S, Node *call, Val *v) {
  TNode *e = rt(S, call, v);
  if (e->type->kind != TY_BLOCK) sema_error(S, call, "%s expects a block, got %s", cur(S), ty_str(S->a, e->type));
  if (ty_is_ptr(e->type)) sema_error(S, call, "%s cannot reduce pointers", cur(S));
  return e;
}

static Val *multi_result(Sema *S, Node *call, TNode *t, int n);

/* sum(input, axis=None, keep_dims=False, dtype=None) */
HANDLER(sum) {
  (void)nargs;
  TNode *e = reduce_input(S, call, A(0));
  int axis = norm_axis(S, call, A(1), e->type, true);
  const Type *el = ty_elem(e->type);
  if (!val_is_none(A(3))) el = const_dtype(S, call, A(3), "dtype");
  else if (dtype_is_int(el->dtype) && dtype_bits(el->dtype) < 32)
    el = ty_scalar(S->tc, dtype_is_signed(el->dtype) || el->dtype == DT_I1 ? DT_I32 : DT_U32);
  e = cast_to(S, call, e, el);
  return val_rt(S, reduce_node(S, call, "sum", e, axis, keep_dims(S, call, A(2)), el));
}

HANDLER(xor_sum) {
  (void)nargs;
  TNode *e = reduce_input(S, call, A(0));
  need_int(S, call, e);
  int axis = norm_axis(S, call, A(1), e->type, true);
  return val_rt(S, reduce_node(S, call, "xor", e, axis, keep_dims(S, call, A(2)), ty_elem(e->type)));
}

/* max/min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False) */
static Val *maxmin(Sema *S, Node *call, Val **args, int nargs, const char *kind) {
  (void)nargs;
  TNode *e = reduce_input(S, call, A(0));
  int axis = norm_axis(S, call, A(1), e->type, true);
  bool keep = keep_dims(S, call, A(4));
  bool with_idx = !val_is_none(A(2)) && const_bool(S, call, A(2), "return_indices");
  if (!with_idx) return val_rt(S, reduce_node(S, call, kind, e, axis, keep, ty_elem(e->type)));
  if (axis < 0 && e->type->rank > 1) sema_error(S, call, "%s with return_indices needs an axis for blocks of rank > 1", cur(S));
  if (axis < 0) axis = 0;
  bool left = val_is_none(A(3)) || const_bool(S, call, A(3), "return_indices_tie_break_left");
  TNode *t = emit_call(S, call, "reduce", NULL, &e, 1);
  add_attr(S, t, "kind=%s_with_index axis=%d%s%s", kind, axis, keep ? " keep_dims" : "", left ? " tie_break_left" : "");
  t->nres = 2;
  t->res_types = arena_alloc(S->a, sizeof(Type *) * 2);
  t->res_types[0] = reduced_type(S, e->type, ty_elem(e->type), axis, keep);
  t->res_types[1] = reduced_type(S, e->type, I32(S), axis, keep);
  t->type = t->res_types[0];
  return multi_result(S, call, t, 2);
}

HANDLER(max_) { return maxmin(S, call, args, nargs, "max"); }
HANDLER(min_) { return maxmin(S, call, args, nargs, "min"); }

/* argmax/argmin(input, axis, tie_break_left=True, keep_dims=False) */
static Val *argmaxmin(Sema *S, Node *call, Val **args, int nargs, const char *kind) {
  (void)nargs;
  TNode *e = reduce_input(S, call, A(0));
  int axis = norm_axis(S, call, A(1), e->type, false);
  bool keep = keep_dims(S, call, A(3));
  bool left = val_is_none(A(2)) || const_bool(S, call, A(2), "tie_break_left");
  TNode *t = reduce_node(S, call, kind, e, axis, keep, I32(S));
  if (left) add_attr(S, t, "tie_break_left");
  return val_rt(S, t);
}
HANDLER(argmax) { return argmaxmin(S, call, args, nargs, "argmax"); }
HANDLER(argmin) { return argmaxmin(S, call, args, nargs, "argmin"); }

/* Inlines a combine function over scalars of the given element types; the
 * statements go into region, the results into results. */
static void combine_region(Sema *S, Node *call, Val *fn, const Type **elems, int n, TNode *t) {
  if (fn->kind != V_FUNC) sema_error(S, call, "%s needs a @triton.jit combine function, got %s", cur(S), val_desc(S, fn));
  JitFunc *f = fn->fn;
  if (f->def->kids.n != 2 * n)
    sema_error(S, call, "combine function '%s' must take %d parameters (two per input), it takes %d", f->name, 2 * n, f->def->kids.n);
  PtrVec region = {0};
  PtrVec *saved = S->out;
  S->out = &region;
  Args args = {0};
  args.npos = 2 * n;
  args.pos = arena_alloc(S->a, sizeof(Val *) * (size_t)(2 * n));
  t->ntargets = 2 * n;
  t->targets = arena_alloc(S->a, sizeof(Var *) * (size_t)(2 * n));
  for (int i = 0; i < 2 * n; i++) {
    Var *v = arena_alloc(S->a, sizeof *v);
    v->name = arena_printf(S->a, "%s.arg%d", f->name, i);
    v->type = elems[i % n];
    v->id = S->k->nvars++;
    t->targets[i] = v;
    TNode *ref = tnode(S, T_VAR, call, v->type);
    ref->var = v;
    args.pos[i] = val_rt(S, ref);
  }
  Val fv = {.kind = V_FUNC, .fn = f};
  Val *r = call_value(S, call, &fv, &args);
  S->out = saved;
  int nr = r->kind == V_TUPLE ? r->n : (r->kind == V_CONST && r->c->kind == CV_TUPLE) ? r->c->nelems : 1;
  if (nr != n) sema_error(S, call, "combine function '%s' returns %d value%s but combines %d", f->name, nr, nr == 1 ? "" : "s", n);
  PtrVec results = {0};
  for (int i = 0; i < n; i++) {
    Val *ri = r->kind == V_TUPLE ? r->elems[i] : r->kind == V_CONST && r->c->kind == CV_TUPLE ? val_const(S, r->c->elems[i]) : r;
    TNode *e = to_rt_typed(S, call, ri, elems[i]);
    if (e->type != elems[i])
      sema_error(S, call, "combine function '%s' returns %s for an input of %s", f->name, ty_str(S->a, e->type), ty_str(S->a, elems[i]));
    vec_push(S->a, &results, e);
  }
  t->body.n = region.n;
  t->body.v = (TNode **)region.v;
  t->orelse.n = results.n;
  t->orelse.v = (TNode **)results.v;
}

static int unpack_inputs(Sema *S, Node *call, Val *v, TNode **out) {
  if (v->kind == V_TUPLE) {
    if (v->n > 8) sema_error(S, call, "%s supports at most 8 inputs", cur(S));
    for (int i = 0; i < v->n; i++) out[i] = reduce_input(S, call, v->elems[i]);
    for (int i = 1; i < v->n; i++)
      if (out[i]->type->rank != out[0]->type->rank || memcmp(out[i]->type->shape, out[0]->type->shape, sizeof(int64_t) * (size_t)out[0]->type->rank))
        sema_error(S, call, "%s inputs must have one shape", cur(S));
    return v->n;
  }
  out[0] = reduce_input(S, call, v);
  return 1;
}

static Val *multi_result(Sema *S, Node *call, TNode *t, int n) {
  if (n == 1) return val_rt(S, t);
  /* a call with several results is assigned once, to one var per result */
  TNode *as = tnode(S, T_ASSIGN, call, t->type);
  as->a = t;
  as->ntargets = n;
  as->targets = arena_alloc(S->a, sizeof(Var *) * (size_t)n);
  Val *tuple = arena_alloc(S->a, sizeof *tuple);
  tuple->kind = V_TUPLE;
  tuple->n = n;
  tuple->elems = arena_alloc(S->a, sizeof(Val *) * (size_t)n);
  for (int i = 0; i < n; i++) {
    Var *v = arena_alloc(S->a, sizeof *v);
    v->name = arena_printf(S->a, "%s.%d", t->callee, S->k->nvars);
    v->type = t->res_types[i];
    v->id = S->k->nvars++;
    as->targets[i] = v;
    TNode *ref = tnode(S, T_VAR, call, v->type);
    ref->var = v;
    tuple->elems[i] = val_rt(S, ref);
  }
  emit_stmt(S, as);
  return tuple;
}

/* reduce(input, axis, combine_fn, keep_dims=False) */
HANDLER(reduce_) {
  (void)nargs;
  TNode *in[8];
  int n = unpack_inputs(S, call, A(0), in);
  int axis = norm_axis(S, call, A(1), in[0]->type, true);
  bool keep = keep_dims(S, call, A(3));
  const Type *elems[8];
  for (int i = 0; i < n; i++) elems[i] = ty_elem(in[i]->type);
  TNode *t = emit_call(S, call, "reduce", NULL, in, n);
  add_attr(S, t, "kind=combine axis=%d%s", axis, keep ? " keep_dims" : "");
  t->nres = n;
  t->res_types = arena_alloc(S->a, sizeof(Type *) * (size_t)n);
  for (int i = 0; i < n; i++) t->res_types[i] = reduced_type(S, in[i]->type, elems[i], axis, keep);
  t->type = t->res_types[0];
  combine_region(S, call, A(2), elems, n, t);
  return multi_result(S, call, t, n);
}

/* associative_scan(input, axis, combine_fn, reverse=False) */
HANDLER(associative_scan) {
  (void)nargs;
  TNode *in[8];
  int n = unpack_inputs(S, call, A(0), in);
  int axis = norm_axis(S, call, A(1), in[0]->type, false);
  const Type *elems[8];
  for (int i = 0; i < n; i++) elems[i] = ty_elem(in[i]->type);
  TNode *t = emit_call(S, call, "scan", NULL, in, n);
  add_attr(S, t, "kind=combine axis=%d%s", axis, !val_is_none(A(3)) && const_bool(S, call, A(3), "reverse") ? " reverse" : "");
  t->nres = n;
  t->res_types = arena_alloc(S->a, sizeof(Type *) * (size_t)n);
  for (int i = 0; i < n; i++) t->res_types[i] = in[i]->type;
  t->type = t->res_types[0];
  combine_region(S, call, A(2), elems, n, t);
  return multi_result(S, call, t, n);
}

/* cumsum/cumprod(input, axis=0, reverse=False, dtype=None) */
static Val *cumulative(Sema *S, Node *call, Val **args, int nargs, const char *kind) {
  (void)nargs;
  TNode *e = reduce_input(S, call, A(0));
  int axis = val_is_none(A(1)) ? 0 : norm_axis(S, call, A(1), e->type, false);
  const Type *el = ty_elem(e->type);
  if (nargs > 3 && !val_is_none(A(3))) el = const_dtype(S, call, A(3), "dtype");
  else if (dtype_is_int(el->dtype) && dtype_bits(el->dtype) < 32)
    el = ty_scalar(S->tc, dtype_is_signed(el->dtype) || el->dtype == DT_I1 ? DT_I32 : DT_U32);
  e = cast_to(S, call, e, el);
  TNode *t = emit_call(S, call, "scan", e->type, &e, 1);
  add_attr(S, t, "kind=%s axis=%d%s", kind, axis, !val_is_none(A(2)) && const_bool(S, call, A(2), "reverse") ? " reverse" : "");
  return val_rt(S, t);
}
HANDLER(cumsum) { return cumulative(S, call, args, nargs, "sum"); }
HANDLER(cumprod) { return cumulative(S, call, args, nargs, "prod"); }

/* softmax(x, dim=None, keep_dims=False, ieee_rounding=False) */
HANDLER(softmax) {
  (void)nargs;
  TNode *e = reduce_input(S, call, A(0));
  need_float(S, call, e);
  int axis = val_is_none(A(1)) ? 0 : norm_axis(S, call, A(1), e->type, false);
  TNode *t = emit_call(S, call, "softmax", e->type, &e, 1);
  add_attr(S, t, "axis=%d", axis);
  if (!val_is_none(A(3)) && const_bool(S, call, A(3), "ieee_rounding")) add_attr(S, t, "ieee_rounding");
  return val_rt(S, t);
}

HANDLER(sigmoid) {
  (void)nargs;
  TNode *e = rt(S, call, A(0));
  need_float(S, call, e);
  return val_rt(S, emit_call(S, call, "sigmoid", e->type, &e, 1));
}

/* ---- shapes ------------------------------------------------------------------ */

static TNode *block_input(Sema *S, Node *call, Val *v) {
  TNode *e = rt(S, call, v);
  if (e->type->kind != TY_BLOCK) sema_error(S, call, "%s expects a block, got %s", cur(S), ty_str(S->a, e->type));
  return e;
}

/* A shape given as varargs, or as one tuple argument. */
static int vararg_ints(Sema *S, Node *call, Val *v, int64_t *out, const char *what) {
  if (v->kind == V_TUPLE && v->n == 1) v = v->elems[0];
  if (v->kind == V_CONST && v->c->kind == CV_TUPLE && v->c->nelems == 1 && v->c->elems[0]->kind == CV_TUPLE)
    v = val_const(S, v->c->elems[0]);
  return const_int_list(S, call, v, out, MAX_RANK, what);
}

HANDLER(broadcast_to) {
  (void)nargs;
  TNode *e = rt(S, call, A(0));
  int64_t shape[MAX_RANK + 1];
  int r = vararg_ints(S, call, A(1), shape, "the shape");
  const Type *target = check_block_shape(S, call, ty_elem(e->type), r, shape);
  return val_rt(S, broadcast_to_shape(S, call, e, target));
}

HANDLER(broadcast) {
  (void)nargs;
  TNode *a = rt(S, call, A(0)), *b = rt(S, call, A(1));
  unify_operands(S, call, &a, &b);
  Val *t = arena_alloc(S->a, sizeof *t);
  t->kind = V_TUPLE;
  t->n = 2;
  t->elems = arena_alloc(S->a, sizeof(Val *) * 2);
  t->elems[0] = val_rt(S, a);
  t->elems[1] = val_rt(S, b);
  return t;
}

HANDLER(expand_dims) {
  (void)nargs;
  TNode *e = rt(S, call, A(0));
  int64_t axes[MAX_RANK + 1];
  int n = const_int_list(S, call, A(1), axes, MAX_RANK, "axis");
  for (int i = 0; i < n; i++) {
    int rank = e->type->kind == TY_BLOCK ? e->type->rank : 0;
    int64_t ax = axes[i];
    if (ax < 0) ax += rank + 1;
    if (ax < 0 || ax > rank) sema_error(S, call, "expand_dims axis %lld is out of range", (long long)axes[i]);
    int64_t shape[MAX_RANK];
    if (rank + 1 > MAX_RANK) sema_error(S, call, "blocks of rank %d are not supported", rank + 1);
    for (int k = 0, s = 0; k < rank + 1; k++) shape[k] = k == ax ? 1 : e->type->shape[s++];
    TNode *x = tnode(S, T_EXPAND_DIMS, call, ty_block(S->tc, ty_elem(e->type), rank + 1, shape));
    x->a = e;
    x->axis = ax;
    e = x;
  }
  return val_rt(S, e);
}

static int64_t numel(const Type *t) {
  int64_t n = 1;
  for (int i = 0; t->kind == TY_BLOCK && i < t->rank; i++) n *= t->shape[i];
  return n;
}

/* reshape(input, *shape, can_reorder=False) / view(input, *shape) */
HANDLER(reshape) {
  (void)nargs;
  TNode *e = rt(S, call, A(0));
  int64_t shape[MAX_RANK + 1];
  int r = vararg_ints(S, call, A(1), shape, "the shape");
  const Type *target = r ? check_block_shape(S, call, ty_elem(e->type), r, shape) : ty_elem(e->type);
  if (numel(target) != numel(e->type))
    sema_error(S, call, "cannot reshape %s to %s: element counts differ", ty_str(S->a, e->type), ty_str(S->a, target));
  TNode *t = emit_call(S, call, "reshape", target, &e, 1);
  if (!strcmp(current->name, "view") || (nargs > 2 && !val_is_none(A(2)) && const_bool(S, call, A(2), "can_reorder")))
    add_attr(S, t, "can_reorder");
  return val_rt(S, t);
}

/* trans(input, *dims) / permute(input, *dims) */
HANDLER(trans) {
  (void)nargs;
  TNode *e = block_input(S, call, A(0));
  int r = e->type->rank;
  int64_t perm[MAX_RANK + 1];
  int n = A(1) && !(A(1)->kind == V_CONST && A(1)->c->kind == CV_TUPLE && A(1)->c->nelems == 0)
              ? vararg_ints(S, call, A(1), perm, "the permutation") : 0;
  if (n == 0) {
    if (r != 2 && !strcmp(current->name, "trans")) sema_error(S, call, "tl.trans without dims needs a 2-D block, got %s", ty_str(S->a, e->type));
    if (strcmp(current->name, "trans")) sema_error(S, call, "tl.permute needs dims");
    perm[0] = 1;
    perm[1] = 0;
    n = 2;
  }
  if (n != r) sema_error(S, call, "the permutation has %d entries for a block of rank %d", n, r);
  bool seen[MAX_RANK] = {0};
  int64_t shape[MAX_RANK];
  for (int i = 0; i < n; i++) {
    if (perm[i] < 0 || perm[i] >= r || seen[perm[i]]) sema_error(S, call, "dims must be a permutation of 0..%d", r - 1);
    seen[perm[i]] = true;
    shape[i] = e->type->shape[perm[i]];
  }
  TNode *t = emit_call(S, call, "trans", ty_block(S->tc, e->type->elem, r, shape), &e, 1);
  StrBuf sb = {.arena = S->a};
  for (int i = 0; i < n; i++) sb_printf(&sb, "%s%lld", i ? "," : "", (long long)perm[i]);
  add_attr(S, t, "order=%s", sb.s);
  sb_free(&sb);
  return val_rt(S, t);
}

HANDLER(cat) {
  (void)nargs;
  TNode *a = block_input(S, call, A(0)), *b = block_input(S, call, A(1));
  if (a->type != b->type) sema_error(S, call, "tl.cat needs two blocks of one type, got %s and %s", ty_str(S->a, a->type), ty_str(S->a, b->type));
  if (!(A(2) && !val_is_none(A(2)) && const_bool(S, call, A(2), "can_reorder")))
    sema_error(S, call, "tl.cat is only supported with can_reorder=True (as in Triton)");
  int64_t shape[MAX_RANK];
  memcpy(shape, a->type->shape, sizeof(int64_t) * (size_t)a->type->rank);
  shape[0] *= 2;
  TNode *ops[2] = {a, b};
  return val_rt(S, emit_call(S, call, "cat", check_block_shape(S, call, a->type->elem, a->type->rank, shape), ops, 2));
}

HANDLER(join) {
  (void)nargs;
  TNode *a = rt(S, call, A(0)), *b = rt(S, call, A(1));
  Val *v[2] = {val_rt(S, a), val_rt(S, b)};
  if (A(0)->kind == V_CONST) v[0] = A(0);
  if (A(1)->kind == V_CONST) v[1] = A(1);
  TNode *ops[2];
  const Type *ty = promote_all(S, call, v, ops, 2, false);
  int r = ty->kind == TY_BLOCK ? ty->rank : 0;
  int64_t shape[MAX_RANK];
  for (int i = 0; i < r; i++) shape[i] = ty->shape[i];
  shape[r] = 2;
  return val_rt(S, emit_call(S, call, "join", check_block_shape(S, call, ty_elem(ty), r + 1, shape), ops, 2));
}

HANDLER(split) {
  (void)nargs;
  TNode *e = block_input(S, call, A(0));
  int r = e->type->rank;
  if (e->type->shape[r - 1] != 2) sema_error(S, call, "tl.split needs a last dimension of 2, got %s", ty_str(S->a, e->type));
  const Type *half = ty_block(S->tc, e->type->elem, r - 1, e->type->shape);
  TNode *t = emit_call(S, call, "split", half, &e, 1);
  t->nres = 2;
  t->res_types = arena_alloc(S->a, sizeof(Type *) * 2);
  t->res_types[0] = t->res_types[1] = half;
  return multi_result(S, call, t, 2);
}

/* ---- block pointers and tensor descriptors ------------------------------------- */

static int runtime_int_tuple(Sema *S, Node *call, Val *v, TNode **out, const char *what, const Type *ty) {
  int n;
  Val **items;
  if (v->kind == V_TUPLE) {
    n = v->n;
    items = v->elems;
  } else if (v->kind == V_CONST && v->c->kind == CV_TUPLE) {
    n = v->c->nelems;
    items = arena_alloc(S->a, sizeof(Val *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) items[i] = val_const(S, v->c->elems[i]);
  } else {
    sema_error(S, call, "%s must be a tuple of integers", what);
  }
  if (n > MAX_RANK) sema_error(S, call, "%s has more than %d entries", what, MAX_RANK);
  for (int i = 0; i < n; i++) {
    TNode *e = rt(S, call, items[i]);
    if (!ty_is_int(e->type) || e->type->kind == TY_BLOCK) sema_error(S, call, "%s must hold integer scalars, got %s", what, ty_str(S->a, e->type));
    out[i] = cast_to(S, call, e, ty);
  }
  return n;
}

/* The (base, shape, strides) that block pointers and descriptors start with:
 * a scalar pointer and two tuples of integers, as i64, into ops[0..]. */
static TNode *base_shape_strides(Sema *S, Node *call, Val **args, TNode **ops, int *r1, int *r2) {
  TNode *base = rt(S, call, args[0]);
  if (base->type->kind != TY_PTR || base->type->elem->kind != TY_SCALAR)
    sema_error(S, call, "%s's base must be a scalar pointer, got %s", cur(S), ty_str(S->a, base->type));
  ops[0] = base;
  const Type *i64 = ty_scalar(S->tc, DT_I64);
  *r1 = runtime_int_tuple(S, call, args[1], ops + 1, "shape", i64);
  *r2 = runtime_int_tuple(S, call, args[2], ops + 1 + *r1, "strides", i64);
  return base;
}

/* make_block_ptr(base, shape, strides, offsets, block_shape, order) */
HANDLER(make_block_ptr) {
  (void)nargs;
  TNode *ops[1 + 3 * MAX_RANK];
  int r1, r2;
  TNode *base = base_shape_strides(S, call, args, ops, &r1, &r2);
  int r3 = runtime_int_tuple(S, call, A(3), ops + 1 + r1 + r2, "offsets", I32(S));
  int64_t bs[MAX_RANK + 1], order[MAX_RANK + 1];
  int r4 = const_int_list(S, call, A(4), bs, MAX_RANK, "block_shape");
  int r5 = const_int_list(S, call, A(5), order, MAX_RANK, "order");
  if (r1 != r2 || r1 != r3 || r1 != r4 || r1 != r5)
    sema_error(S, call, "tl.make_block_ptr's shape, strides, offsets, block_shape and order must have one length "
               "(got %d, %d, %d, %d, %d)", r1, r2, r3, r4, r5);
  const Type *block = check_block_shape(S, call, base->type->elem, r4, bs);
  TNode *t = emit_call(S, call, "make_block_ptr", ty_ptr(S->tc, block), ops, 1 + 3 * r1);
  StrBuf sb = {.arena = S->a};
  for (int i = 0; i < r5; i++) sb_printf(&sb, "%s%lld", i ? "," : "", (long long)order[i]);
  add_attr(S, t, "order=%s", sb.s);
  sb_free(&sb);
  return val_rt(S, t);
}

HANDLER(advance) {
  (void)nargs;
  TNode *base = rt(S, call, A(0));
  if (!is_block_ptr(base->type)) sema_error(S, call, "tl.advance expects a block pointer, got %s", ty_str(S->a, base->type));
  TNode *ops[1 + MAX_RANK];
  ops[0] = base;
  int n = runtime_int_tuple(S, call, A(1), ops + 1, "offsets", I32(S));
  if (n != base->type->elem->rank) sema_error(S, call, "tl.advance needs %d offsets, got %d", base->type->elem->rank, n);
  return val_rt(S, emit_call(S, call, "advance", base->type, ops, 1 + n));
}

/* make_tensor_descriptor(base, shape, strides, block_shape, padding_option='zero') */
HANDLER(make_tensor_descriptor) {
  (void)nargs;
  TNode *ops[1 + 2 * MAX_RANK];
  int r1, r2;
  TNode *base = base_shape_strides(S, call, args, ops, &r1, &r2);
  int64_t bs[MAX_RANK + 1];
  int r3 = const_int_list(S, call, A(3), bs, MAX_RANK, "block_shape");
  if (r1 != r2 || r1 != r3) sema_error(S, call, "shape, strides and block_shape must have one length");
  const Type *block = check_block_shape(S, call, base->type->elem, r3, bs);
  TNode *t = emit_call(S, call, "make_tensor_descriptor", ty_desc(S->tc, block), ops, 1 + 2 * r1);
  const char *pad = check_choice(S, call, A(4), "padding_option", paddings);
  if (*pad) add_attr(S, t, "padding=%s", pad);
  return val_rt(S, t);
}

HANDLER(desc_load) {
  (void)nargs;
  TNode *d = rt(S, call, A(0));
  const Type *block = d->type->elem;
  TNode *ops[1 + MAX_RANK];
  ops[0] = d;
  int n = runtime_int_tuple(S, call, A(1), ops + 1, "offsets", I32(S));
  if (n != block->rank) sema_error(S, call, "the descriptor needs %d offsets, got %d", block->rank, n);
  return val_rt(S, emit_call(S, call, "desc_load", block, ops, 1 + n));
}

HANDLER(desc_store) {
  (void)nargs;
  TNode *d = rt(S, call, A(0));
  const Type *block = d->type->elem;
  TNode *ops[2 + MAX_RANK];
  ops[0] = d;
  int n = runtime_int_tuple(S, call, A(1), ops + 2, "offsets", I32(S));
  if (n != block->rank) sema_error(S, call, "the descriptor needs %d offsets, got %d", block->rank, n);
  TNode *v = broadcast_to_shape(S, call, to_rt_typed(S, call, A(2), block->elem), block);
  ops[1] = v;
  emit_expr_stmt(S, call, emit_call(S, call, "desc_store", ty_void(S->tc), ops, 2 + n));
  return none(S);
}

/* ---- hints and debugging ------------------------------------------------------- */

HANDLER(hint) {
  (void)nargs;
  TNode *e = rt(S, call, A(0));
  if (!ty_is_int(e->type) && !ty_is_ptr(e->type)) sema_error(S, call, "%s applies to integers and pointers, got %s", cur(S), ty_str(S->a, e->type));
  int64_t vals[MAX_RANK + 1];
  int n = const_int_list(S, call, A(1), vals, MAX_RANK, "values");
  int rank = e->type->kind == TY_BLOCK ? e->type->rank : 0;
  if (n != (rank ? rank : 1)) sema_error(S, call, "%s needs %d value%s for %s, got %d", cur(S), rank ? rank : 1, rank > 1 ? "s" : "", ty_str(S->a, e->type), n);
  StrBuf sb = {.arena = S->a};
  for (int i = 0; i < n; i++) {
    if (vals[i] <= 0) sema_error(S, call, "%s values must be positive", cur(S));
    sb_printf(&sb, "%s%lld", i ? "," : "", (long long)vals[i]);
  }
  TNode *t = emit_call(S, call, current->name, e->type, &e, 1);
  add_attr(S, t, "values=%s", sb.s);
  sb_free(&sb);
  return val_rt(S, t);
}

HANDLER(assume) {
  (void)nargs;
  Val *c = A(0);
  if (c->kind == V_CONST) {
    if (!const_bool(S, call, c, "the assumption")) sema_error(S, call, "tl.assume of a constexpr False");
    return none(S);
  }
  TNode *e = rt(S, call, c);
  if (ty_elem(e->type)->dtype != DT_I1 || e->type->kind == TY_BLOCK) sema_error(S, call, "tl.assume needs a boolean scalar, got %s", ty_str(S->a, e->type));
  emit_expr_stmt(S, call, emit_call(S, call, "assume", ty_void(S->tc), &e, 1));
  return none(S);
}

HANDLER(static_assert_) {
  (void)nargs;
  Val *c = A(0);
  if (c->kind != V_CONST) sema_error(S, call, "tl.static_assert needs a constexpr condition, got %s", val_desc(S, c));
  if (!const_bool(S, call, c, "the condition")) {
    const char *msg = val_is_none(A(1)) ? "" : const_str(S, call, A(1), "the message");
    sema_error(S, call, "static assertion failed%s%s", *msg ? ": " : "", msg);
  }
  return none(S);
}

HANDLER(static_print) {
  StrBuf sb = {.arena = S->a};
  for (int i = 0; i < nargs; i++) {
    Val *v = args[i];
    if (v->kind == V_TUPLE) {
      for (int j = 0; j < v->n; j++) {
        if (j) sb_putc(&sb, ' ');
        Val *x = v->elems[j];
        if (x->kind == V_CONST) {
          if (x->c->kind == CV_STR) sb_printf(&sb, "%s", x->c->s);
          else cvalue_print(&sb, x->c);
        } else {
          sb_printf(&sb, "%s", val_desc(S, x));
        }
      }
    } else if (v->kind == V_CONST && v->c->kind == CV_TUPLE) {
      for (int j = 0; j < v->c->nelems; j++) {
        if (j) sb_putc(&sb, ' ');
        if (v->c->elems[j]->kind == CV_STR) sb_printf(&sb, "%s", v->c->elems[j]->s);
        else cvalue_print(&sb, v->c->elems[j]);
      }
    }
  }
  diag_note(S->d, sema_loc(call), "static_print: %s", sb.s ? sb.s : "");
  sb_free(&sb);
  return none(S);
}

/* device_print(prefix, *args, hex=False) */
HANDLER(device_print) {
  (void)nargs;
  const char *prefix = const_str(S, call, A(0), "device_print's prefix");
  Val *rest = A(1);
  TNode *ops[16];
  int n = 0;
  Val **items = rest && rest->kind == V_TUPLE ? rest->elems : NULL;
  int cnt = rest ? (rest->kind == V_TUPLE ? rest->n : rest->kind == V_CONST && rest->c->kind == CV_TUPLE ? rest->c->nelems : 0) : 0;
  for (int i = 0; i < cnt; i++) {
    if (n == 16) sema_error(S, call, "device_print prints at most 16 values");
    Val *x = items ? items[i] : val_const(S, rest->c->elems[i]);
    if (x->kind == V_CONST && x->c->kind == CV_STR) sema_error(S, call, "device_print prints values; put text in the prefix");
    ops[n++] = rt(S, call, x);
  }
  TNode *t = emit_call(S, call, "device_print", ty_void(S->tc), ops, n);
  add_attr(S, t, "prefix='%s'", prefix);
  if (!val_is_none(A(2)) && const_bool(S, call, A(2), "hex")) add_attr(S, t, "hex");
  emit_expr_stmt(S, call, t);
  return none(S);
}

HANDLER(py_print) {
  /* Python's print in a kernel is device_print with an empty prefix */
  Val *a[3];
  a[0] = val_const(S, cv_str(S, ""));
  Val *t = arena_alloc(S->a, sizeof *t);
  t->kind = V_TUPLE;
  t->n = nargs && args[0]->kind == V_TUPLE ? args[0]->n : 0;
  t->elems = nargs && args[0]->kind == V_TUPLE ? args[0]->elems : NULL;
  a[1] = t;
  a[2] = NULL;
  if (nargs && args[0]->kind == V_CONST && args[0]->c->kind == CV_TUPLE) {
    CValue *c = args[0]->c;
    if (c->nelems && c->elems[0]->kind == CV_STR) a[0] = val_const(S, c->elems[0]);
    t->n = 0;
  } else if (t->n && t->elems[0]->kind == V_CONST && t->elems[0]->c->kind == CV_STR) {
    a[0] = t->elems[0];
    t->elems++;
    t->n--;
  }
  return device_print(S, call, a, 3);
}

HANDLER(device_assert) {
  (void)nargs;
  Val *c = A(0);
  const char *msg = val_is_none(A(1)) ? "" : const_str(S, call, A(1), "the message");
  if (c->kind == V_CONST) {
    if (!const_bool(S, call, c, "the condition")) sema_error(S, call, "device assertion is always false%s%s", *msg ? ": " : "", msg);
    return none(S);
  }
  TNode *e = rt(S, call, c);
  if (!ty_is_int(e->type)) sema_error(S, call, "device_assert needs a boolean condition, got %s", ty_str(S->a, e->type));
  e = cast_to(S, call, e, I1(S));
  TNode *t = emit_call(S, call, "device_assert", ty_void(S->tc), &e, 1);
  add_attr(S, t, "msg='%s'", msg);
  emit_expr_stmt(S, call, t);
  return none(S);
}

HANDLER(debug_barrier) {
  (void)args, (void)nargs;
  emit_expr_stmt(S, call, emit_call(S, call, "debug_barrier", ty_void(S->tc), NULL, 0));
  return none(S);
}

/* ---- random ------------------------------------------------------------------ */

/* rand/randn/randint(seed, offset, n_rounds=10) */
static Val *random_(Sema *S, Node *call, Val **args, int nargs, const char *kind, int nres) {
  (void)nargs;
  TNode *seed = rt(S, call, A(0));
  if (!ty_is_int(seed->type) || seed->type->kind == TY_BLOCK) sema_error(S, call, "%s's seed must be an integer scalar, got %s", cur(S), ty_str(S->a, seed->type));
  TNode *off = rt(S, call, A(1));
  if (!ty_is_int(off->type)) sema_error(S, call, "%s's offsets must be integers, got %s", cur(S), ty_str(S->a, off->type));
  int64_t rounds = val_is_none(A(2)) ? 10 : const_int(S, call, A(2), "n_rounds");
  if (rounds <= 0 || rounds > 64) sema_error(S, call, "n_rounds must be in 1..64");
  const Type *el = !strcmp(kind, "randint") || !strcmp(kind, "randint4x") ? ty_scalar(S->tc, dtype_bits(ty_elem(off->type)->dtype) == 64 ? DT_U64 : DT_U32) : F32(S);
  TNode *ops[2] = {seed, off};
  TNode *t = emit_call(S, call, "random", ty_with_elem(S->tc, off->type, el), ops, 2);
  add_attr(S, t, "kind=%s n_rounds=%lld", kind, (long long)rounds);
  if (nres == 1) return val_rt(S, t);
  t->nres = nres;
  t->res_types = arena_alloc(S->a, sizeof(Type *) * (size_t)nres);
  for (int i = 0; i < nres; i++) t->res_types[i] = t->type;
  return multi_result(S, call, t, nres);
}
HANDLER(rand_) { return random_(S, call, args, nargs, "rand", 1); }
HANDLER(randn) { return random_(S, call, args, nargs, "randn", 1); }
HANDLER(randint) { return random_(S, call, args, nargs, "randint", 1); }
HANDLER(randint4x) { return random_(S, call, args, nargs, "randint4x", 4); }

HANDLER(not_yet) {
  (void)args, (void)nargs;
  sema_error(S, call, "%s is not supported by tilec yet", cur(S));
}

/* ---- the table ------------------------------------------------------------------ */

static const Builtin builtins[] = {
    {"py.range", "*args", py_range, 0},
    {"py.min", "*args", py_min, 0},
    {"py.max", "*args", py_max, 0},
    {"py.len", "obj", py_len, 0},
    {"py.int", "x=", py_int, 0},
    {"py.float", "x=", py_float, 0},
    {"py.bool", "x=", py_bool, 0},
    {"py.abs", "x", py_abs, 0},
    {"py.print", "*args", py_print, 0},
    {"py.constant_method", "", py_constant_method, 0},
    {"triton.cdiv", "x,div", triton_cdiv, 0},
    {"triton.next_power_of_2", "n", triton_next_pow2, 0},
    {"constexpr", "value", constexpr_, 0},
    {"program_id", "axis", program_id, 0},
    {"num_programs", "axis", num_programs, 0},
    {"arange", "start,end", arange, 0},
    {"zeros", "shape,dtype", zeros, 0},
    {"full", "shape,value,dtype", full, 0},
    {"zeros_like", "input,dtype=", zeros_like, 0},
    {"cdiv", "x,div", cdiv, B_MATH},
    {"where", "condition,x,y", where, 0},
    {"maximum", "x,y,propagate_nan=", maximum, B_MATH},
    {"minimum", "x,y,propagate_nan=", minimum, B_MATH},
    {"clamp", "x,min,max,propagate_nan=", clamp, B_MATH},
    {"fma", "x,y,z", fma_, B_MATH},
    {"umulhi", "x,y", umulhi, B_MATH},
    {"fdiv", "x,y,ieee_rounding=", fdiv, B_MATH},
    {"div_rn", "x,y", fdiv, B_MATH},
    {"exp", "x", math1, B_MATH | B_METHOD},
    {"exp2", "x", math1, B_MATH | B_METHOD},
    {"log", "x", math1, B_MATH | B_METHOD},
    {"log2", "x", math1, B_MATH | B_METHOD},
    {"sqrt", "x", math1, B_MATH | B_METHOD},
    {"sqrt_rn", "x", math1, B_MATH},
    {"rsqrt", "x", math1, B_MATH | B_METHOD},
    {"sin", "x", math1, B_MATH | B_METHOD},
    {"cos", "x", math1, B_MATH | B_METHOD},
    {"erf", "x", math1, B_MATH | B_METHOD},
    {"floor", "x", math1, B_MATH | B_METHOD},
    {"ceil", "x", math1, B_MATH | B_METHOD},
    {"abs", "x", abs_, B_MATH | B_METHOD},
    {"sigmoid", "x", sigmoid, B_MATH | B_METHOD},
    {"softmax", "x,dim=,keep_dims=,ieee_rounding=", softmax, B_MATH | B_METHOD},
    {"cast", "input,dtype,fp_downcast_rounding=,bitcast=", cast, 0},
    {"to", "input,dtype,fp_downcast_rounding=,bitcast=", to, B_METHOD},
    {"pointer_type", "element_ty", pointer_type, 0},
    {"load", "pointer,mask=,other=,boundary_check=,padding_option=,cache_modifier=,eviction_policy=,volatile=", load, 0},
    {"store", "pointer,value,mask=,boundary_check=,cache_modifier=,eviction_policy=", store, 0},
    {"atomic_add", "pointer,val,mask=,sem=,scope=", atomic_rmw, 0},
    {"atomic_max", "pointer,val,mask=,sem=,scope=", atomic_rmw, 0},
    {"atomic_min", "pointer,val,mask=,sem=,scope=", atomic_rmw, 0},
    {"atomic_and", "pointer,val,mask=,sem=,scope=", atomic_rmw, 0},
    {"atomic_or", "pointer,val,mask=,sem=,scope=", atomic_rmw, 0},
    {"atomic_xor", "pointer,val,mask=,sem=,scope=", atomic_rmw, 0},
    {"atomic_xchg", "pointer,val,mask=,sem=,scope=", atomic_rmw, 0},
    {"atomic_cas", "pointer,cmp,val,sem=,scope=", atomic_cas, 0},
    {"dot", "input,other,acc=,input_precision=,allow_tf32=,max_num_imprecise_acc=,out_dtype=", dot, 0},
    {"sum", "input,axis=,keep_dims=,dtype=", sum, B_METHOD},
    {"xor_sum", "input,axis=,keep_dims=", xor_sum, B_METHOD},
    {"max", "input,axis=,return_indices=,return_indices_tie_break_left=,keep_dims=", max_, B_METHOD | B_MATH},
    {"min", "input,axis=,return_indices=,return_indices_tie_break_left=,keep_dims=", min_, B_METHOD | B_MATH},
    {"argmax", "input,axis,tie_break_left=,keep_dims=", argmax, B_METHOD},
    {"argmin", "input,axis,tie_break_left=,keep_dims=", argmin, B_METHOD},
    {"reduce", "input,axis,combine_fn,keep_dims=", reduce_, B_METHOD},
    {"cumsum", "input,axis=,reverse=,dtype=", cumsum, B_METHOD},
    {"cumprod", "input,axis=,reverse=", cumprod, B_METHOD},
    {"associative_scan", "input,axis,combine_fn,reverse=", associative_scan, B_METHOD},
    {"broadcast_to", "input,*shape", broadcast_to, B_METHOD},
    {"broadcast", "input,other", broadcast, 0},
    {"expand_dims", "input,axis", expand_dims, B_METHOD},
    {"reshape", "input,*shape,can_reorder=", reshape, B_METHOD},
    {"view", "input,*shape", reshape, B_METHOD},
    {"trans", "input,*dims", trans, B_METHOD},
    {"permute", "input,*dims", trans, B_METHOD},
    {"cat", "input,other,can_reorder=", cat, 0},
    {"join", "a,b", join, 0},
    {"split", "a", split, B_METHOD},
    {"make_block_ptr", "base,shape,strides,offsets,block_shape,order", make_block_ptr, 0},
    {"advance", "base,offsets", advance, B_METHOD},
    {"make_tensor_descriptor", "base,shape,strides,block_shape,padding_option=", make_tensor_descriptor, 0},
    {"desc.load", "desc,offsets", desc_load, B_METHOD},
    {"desc.store", "desc,offsets,value", desc_store, B_METHOD},
    {"multiple_of", "input,values", hint, 0},
    {"max_contiguous", "input,values", hint, 0},
    {"max_constancy", "input,values", hint, 0},
    {"assume", "cond", assume, 0},
    {"static_assert", "cond,msg=", static_assert_, 0},
    {"static_print", "*values", static_print, 0},
    {"device_print", "prefix,*args,hex=", device_print, 0},
    {"device_assert", "cond,msg=", device_assert, 0},
    {"debug_barrier", "", debug_barrier, 0},
    {"rand", "seed,offset,n_rounds=", rand_, 0},
    {"randn", "seed,offset,n_rounds=", randn, 0},
    {"randint", "seed,offset,n_rounds=", randint, 0},
    {"randint4x", "seed,offset,n_rounds=", randint4x, 0},
    {"range", "*args", py_range, 0},
    {"static_range", "*args", py_range, 0},
    /* known to Triton, not yet to tilec */
    {"histogram", "*args", not_yet, 0},
    {"sort", "*args", not_yet, B_METHOD},
    {"flip", "*args", not_yet, B_METHOD},
    {"gather", "*args", not_yet, 0},
    {"inline_asm_elementwise", "*args", not_yet, 0},
    {"interleave", "*args", not_yet, 0},
    {"ravel", "*args", not_yet, B_METHOD},
    {"swizzle2d", "*args", not_yet, 0},
    {"topk", "*args", not_yet, 0},
    {"tensor", "*args", not_yet, 0},
};

static const Builtin libdevice_builtin = {"libdevice.*", "*args", libdevice_any, 0};

const Builtin *builtin_find(const char *name) {
  if (!strncmp(name, "math.", 5)) {
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
      if ((builtins[i].flags & B_MATH) && !strcmp(builtins[i].name, name + 5)) return &builtins[i];
    return NULL;
  }
  if (!strncmp(name, "libdevice.", 10)) {
    if (!libdevice_kind(name + 10)) return NULL;
    /* one entry serves every libdevice function; the name rides in a copy */
    static Builtin copies[sizeof libdevice_fns / sizeof *libdevice_fns];
    for (size_t i = 0; i < sizeof libdevice_fns / sizeof *libdevice_fns; i++)
      if (!strcmp(libdevice_fns[i].name, name + 10)) {
        if (!copies[i].name) {
          copies[i] = libdevice_builtin;
          static char names[sizeof libdevice_fns / sizeof *libdevice_fns][32];
          snprintf(names[i], sizeof names[i], "libdevice.%s", libdevice_fns[i].name);
          copies[i].name = names[i];
        }
        return &copies[i];
      }
    return NULL;
  }
  for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
    if (!strcmp(builtins[i].name, name)) return &builtins[i];
  return NULL;
}

/* ---- binding ----------------------------------------------------------------------- */

typedef struct Param {
  char name[40];
  bool optional, variadic;
} Param;

static int parse_params(const char *spec, Param *out) {
  int n = 0;
  const char *p = spec;
  while (*p) {
    Param *q = &out[n++];
    memset(q, 0, sizeof *q);
    if (*p == '*') {
      q->variadic = true;
      p++;
    }
    size_t k = 0;
    while (*p && *p != ',' && *p != '=' && k < sizeof q->name - 1) q->name[k++] = *p++;
    q->name[k] = 0;
    if (*p == '=') {
      q->optional = true;
      p++;
    }
    if (*p == ',') p++;
  }
  return n;
}

Val *builtin_call(Sema *S, Node *call, const Builtin *b, Val *self, Args *args) {
  const Builtin *saved = current;
  current = b;
  if (!strcmp(b->name, "py.constant_method")) {
    current = saved;
    return self;
  }
  Param ps[16];
  int np = parse_params(b->params, ps);
  Val *bound[16] = {0};
  bool given[16] = {0};
  int pi = 0;
  if (self) {
    bound[0] = self;
    given[0] = true;
    pi = 1;
  }
  for (int i = 0; i < args->npos; i++) {
    if (pi >= np) {
      int max = np - (self ? 1 : 0);
      sema_error(S, call, "%s takes at most %d argument%s (%d given)", bname(S, b), max, max == 1 ? "" : "s", args->npos);
    }
    if (ps[pi].variadic) {
      /* the rest of the positional arguments form one tuple */
      int rest = args->npos - i;
      bool all_const = true;
      for (int j = 0; j < rest; j++) all_const &= args->pos[i + j]->kind == V_CONST;
      Val *t = arena_alloc(S->a, sizeof *t);
      if (all_const) {
        CValue *c = cv_none(S);
        c->kind = CV_TUPLE;
        c->nelems = rest;
        c->elems = arena_alloc(S->a, sizeof(CValue *) * (size_t)(rest + 1));
        for (int j = 0; j < rest; j++) c->elems[j] = args->pos[i + j]->c;
        t = val_const(S, c);
      } else {
        t->kind = V_TUPLE;
        t->n = rest;
        t->elems = arena_alloc(S->a, sizeof(Val *) * (size_t)(rest + 1));
        for (int j = 0; j < rest; j++) t->elems[j] = args->pos[i + j];
      }
      bound[pi] = t;
      given[pi] = true;
      pi++;
      break;
    }
    bound[pi] = args->pos[i];
    given[pi] = true;
    pi++;
  }
  for (int k = 0; k < args->nkw; k++) {
    int j = 0;
    while (j < np && strcmp(ps[j].name, args->kwn[k])) j++;
    /* Triton spells some parameters two ways */
    if (j == np && !strcmp(args->kwn[k], "dim")) {
      j = 0;
      while (j < np && strcmp(ps[j].name, "axis")) j++;
    }
    if (j == np && !strcmp(args->kwn[k], "axis")) {
      j = 0;
      while (j < np && strcmp(ps[j].name, "dim")) j++;
    }
    if (j == np || ps[j].variadic)
      sema_error(S, call, "%s got an unexpected keyword argument '%s'", bname(S, b), args->kwn[k]);
    if (given[j]) sema_error(S, call, "%s got multiple values for argument '%s'", bname(S, b), ps[j].name);
    bound[j] = args->kwv[k];
    given[j] = true;
  }
  for (int j = 0; j < np; j++) {
    if (given[j] || ps[j].optional) continue;
    if (ps[j].variadic) {
      CValue *c = cv_none(S);
      c->kind = CV_TUPLE;
      bound[j] = val_const(S, c);
      continue;
    }
    sema_error(S, call, "%s missing required argument '%s'", bname(S, b), ps[j].name);
  }
  for (int j = 0; j < np; j++)
    if (bound[j] && bound[j]->kind == V_UNDEF) sema_error(S, call, "%s", bound[j]->why);
  Val *r = b->fn(S, call, bound, np);
  current = saved;
  return r;
}

bool builtin_is_namespace(const char *path) { return path && !strcmp(path, "tl"); }
