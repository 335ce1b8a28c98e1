/*
 * builtins_core.c — Python's builtins, program ids, ranges and creation,
 * elementwise math, libdevice, and casts.
 */
#include "builtins.h"

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
  if (n < 1) sema_error(S, call, "%s expects at least one value", bi_cur(S));
  Val *best = items[0];
  for (int i = 1; i < n; i++) {
    Val *x = items[i];
    if (best->kind == V_CONST && x->kind == V_CONST) {
      Val *gt = binary_op(S, call, is_max ? TK_GT : TK_LT, x, best);
      if (const_bool(S, call, gt, "a comparison")) best = x;
    } else {
      TNode *ops[2];
      Val *pair[2] = {best, x};
      const Type *ty = bi_promote_all(S, call, pair, ops, 2, false);
      best = val_rt(S, emit_call(S, call, is_max ? CALL_maximum : CALL_minimum, ty, ops, 2));
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
  if (A(1) && c->kind != CV_STR) sema_error(S, call, "int() can't convert %s with an explicit base", val_desc(S, v));
  if (c->kind == CV_INT) return v;
  if (c->kind == CV_BOOL) return val_const(S, cv_int(S, c->b));
  if (c->kind == CV_FLOAT) {
    if (!isfinite(c->f) || fabs(c->f) >= 9.2e18) sema_error(S, call, "int() of a float that does not fit 64 bits");
    return val_const(S, cv_int(S, (int64_t)c->f));
  }
  if (c->kind == CV_STR) return bi_int_of_string(S, call, c->s, A(1) ? const_int(S, call, A(1), "int()'s base") : 10);
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

/* isinstance(obj, classinfo) at compile time, as Triton runs it on the
 * kernel's values: constexprs unwrapped to Python values (so that no value
 * is an instance of tl.constexpr), tensors, pointers and block pointers
 * tl.tensor, descriptors tl.tensor_descriptor; classinfo a class or a tuple
 * of them. */
static bool instance_of(Sema *S, Node *call, Val *v, Val *cls) {
  if (cls->kind == V_TUPLE) {
    for (int i = 0; i < cls->n; i++)
      if (instance_of(S, call, v, cls->elems[i])) return true;
    return false;
  }
  const char *name = NULL;
  if (cls->kind == V_BUILTIN && cls->builtin && !strncmp(cls->builtin->name, "py.", 3)) name = cls->builtin->name + 3;
  else if (cls->kind == V_MODULE && !cls->mod && !strncmp(cls->path, "triton.language.", 16)) name = cls->path + 16;
  if (!name) sema_error(S, call, "isinstance()'s second argument must be a class or a tuple of classes, not %s", val_desc(S, cls));
  bool c = v->kind == V_CONST, rt = v->kind == V_RT;
  CKind ck = c ? v->c->kind : CV_NONE;
  if (!strcmp(name, "int")) return c && (ck == CV_INT || ck == CV_BOOL);
  if (!strcmp(name, "float")) return c && ck == CV_FLOAT;
  if (!strcmp(name, "bool")) return c && ck == CV_BOOL;
  if (!strcmp(name, "tuple") || !strcmp(name, "list")) return v->kind == V_TUPLE || (c && ck == CV_TUPLE);
  if (!strcmp(name, "dtype")) return c && ck == CV_DTYPE;
  if (!strcmp(name, "constexpr")) return false;
  if (!strcmp(name, "tensor")) return rt && v->ty->kind != TY_DESC;
  if (!strcmp(name, "tensor_descriptor") || !strcmp(name, "tensor_descriptor_base")) return rt && v->ty->kind == TY_DESC;
  sema_error(S, call, "isinstance() against '%s' is not supported (tilec knows int, float, bool, tuple, tl.tensor, "
             "tl.tensor_descriptor, tl.constexpr and tl.dtype)", cls->kind == V_MODULE ? arena_printf(S->a, "tl.%s", name) : name);
}

/* tuple(t) and list(t) of a tuple: the tuple (kernels have no lists); with
 * no argument the empty tuple */
HANDLER(py_tuple) {
  Val *v = A(0);
  if (!v) return val_const(S, cv_tuple(S, call, NULL, 0));
  if (v->kind == V_TUPLE || (v->kind == V_CONST && v->c->kind == CV_TUPLE)) return v;
  sema_error(S, call, "%s() of %s is not supported: only tuples", S->builtin->name + 3, val_desc(S, v));
}

HANDLER(py_isinstance) { return val_const(S, cv_bool(S, instance_of(S, call, A(0), A(1)))); }

HANDLER(py_abs) {
  Val *v = A(0);
  if (v->kind == V_CONST) {
    if (v->c->kind == CV_FLOAT) return val_const(S, cv_float(S, fabs(v->c->f)));
    int64_t i = const_int(S, call, v, "abs()'s argument");
    if (i == INT64_MIN) sema_error(S, call, "constexpr integer overflow in abs()");
    return val_const(S, cv_int(S, i < 0 ? -i : i));
  }
  TNode *e = bi_rt(S, call, v);
  TNode *r = emit_call(S, call, CALL_abs, e->type, &e, 1);
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

static Val *program_dim(Sema *S, Node *call, Val *axis, CallKind k) {
  int64_t ax = axis ? const_int(S, call, axis, "axis") : 0;
  if (ax < 0 || ax > 2) sema_error(S, call, "%s axis must be 0, 1 or 2, got %lld", bi_cur(S), (long long)ax);
  TNode *t = emit_call(S, call, k, bi_I32(S), NULL, 0);
  t->attrs.has |= CA_AXIS;
  t->attrs.axis = (int)ax;
  return val_rt(S, t);
}
HANDLER(program_id) { (void)nargs; return program_dim(S, call, A(0), CALL_program_id); }
HANDLER(num_programs) { (void)nargs; return program_dim(S, call, A(0), CALL_num_programs); }

HANDLER(arange) {
  (void)nargs;
  int64_t lo = const_int(S, call, A(0), "tl.arange's start"), hi = const_int(S, call, A(1), "tl.arange's end");
  if (hi <= lo) sema_error(S, call, "tl.arange's end (%lld) must be greater than its start (%lld)", (long long)hi, (long long)lo);
  if (lo < INT32_MIN || hi > INT32_MAX) sema_error(S, call, "tl.arange's bounds must fit in int32");
  int64_t n = hi - lo;
  if (n & (n - 1)) sema_error(S, call, "tl.arange's range must be a power of 2, got %lld", (long long)n);
  const Type *ty = check_block_shape(S, call, bi_I32(S), 1, &n);
  TNode *t = emit_call(S, call, CALL_arange, ty, NULL, 0);
  t->attrs.has |= CA_RANGE;
  t->attrs.start = lo;
  t->attrs.end = hi;
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
  TNode *v = cast_to(S, at, bi_rt(S, at, value), el);
  if (v->type->kind == TY_BLOCK) sema_error(S, at, "%s needs a scalar value", bi_cur(S));
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
  TNode *e = bi_rt(S, call, A(0));
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
  const Type *ty = bi_promote_all(S, call, v, ops, 2, false);
  if (!ty_is_int(ty)) sema_error(S, call, "tl.cdiv expects integers, got %s", ty_str(S->a, ty));
  return val_rt(S, emit_call(S, call, CALL_cdiv, ty, ops, 2));
}

/* ---- elementwise ------------------------------------------------------------ */

HANDLER(where) {
  (void)nargs;
  TNode *cond = bi_rt(S, call, A(0));
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
    ty = bi_promote_all(S, call, v, ops, 2, false);
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

static Val *elementwise(Sema *S, Node *call, CallKind k, Val **vals, int n, bool float_only, const Type *result_elem) {
  TNode *ops[4];
  const Type *ty = bi_promote_all(S, call, vals, ops, n, float_only);
  if (result_elem) ty = ty_with_elem(S->tc, ty, result_elem);
  return val_rt(S, emit_call(S, call, k, ty, ops, n));
}

static void nan_attr(Sema *S, Node *call, TNode *t, Val *v) {
  if (!val_is_none(v)) {
    Val *x = v;
    if (x->kind == V_CONST && x->c->kind == CV_STR) {
      const char *s = x->c->s;
      if (strcmp(s, "all") && strcmp(s, "none") && strcmp(s, ""))
        sema_error(S, call, "propagate_nan must be tl.PropagateNan.ALL or NONE");
      if (!strcmp(s, "all")) t->attrs.propagate_nan = true;
    } else if (const_bool(S, call, x, "propagate_nan")) {
      t->attrs.propagate_nan = true;
    }
  }
}

HANDLER(maximum) {
  (void)nargs;
  Val *r = elementwise(S, call, CALL_maximum, args, 2, false, NULL);
  nan_attr(S, call, r->e, A(2));
  return r;
}
HANDLER(minimum) {
  (void)nargs;
  Val *r = elementwise(S, call, CALL_minimum, args, 2, false, NULL);
  nan_attr(S, call, r->e, A(2));
  return r;
}
HANDLER(clamp) {
  (void)nargs;
  Val *r = elementwise(S, call, CALL_clamp, args, 3, true, NULL);
  nan_attr(S, call, r->e, A(3));
  return r;
}
HANDLER(fma_) { (void)nargs; return elementwise(S, call, CALL_fma, args, 3, true, NULL); }
HANDLER(umulhi) {
  (void)nargs;
  Val *r = elementwise(S, call, CALL_umulhi, args, 2, false, NULL);
  bi_need_int(S, call, r->e);
  return r;
}
/* tl.fdiv(x, y, ieee_rounding=False, approx=False), tl.div_rn(x, y) */
HANDLER(fdiv) {
  Val *r = elementwise(S, call, bi_call_kind(S), args, 2, true, NULL);
  bool ieee = !val_is_none(A(2)) && const_bool(S, call, A(2), "ieee_rounding");
  bool approx = !val_is_none(A(3)) && const_bool(S, call, A(3), "approx");
  if (ieee && approx) sema_error(S, call, "approx and ieee_rounding cannot both be True");
  if (approx && ty_elem(r->e->type)->dtype != DT_F32)
    sema_error(S, call, "approx division requires float32 operands, not %s", dtype_name(ty_elem(r->e->type)->dtype));
  r->e->attrs.ieee_rounding = ieee;
  r->e->attrs.approx = approx;
  return r;
}

/* exp, log, sqrt, ... : floating-point in, same type out */
HANDLER(math1) {
  (void)nargs;
  TNode *e = bi_rt(S, call, A(0));
  bi_need_float(S, call, e);
  return val_rt(S, emit_call(S, call, bi_call_kind(S), e->type, &e, 1));
}

HANDLER(abs_) {
  (void)nargs;
  TNode *e = bi_rt(S, call, A(0));
  if (!ty_is_float(e->type) && !ty_is_int(e->type)) sema_error(S, call, "tl.abs expects a number, got %s", ty_str(S->a, e->type));
  return val_rt(S, emit_call(S, call, CALL_abs, e->type, &e, 1));
}

/* ---- libdevice ------------------------------------------------------------ */

/* kinds: 'f' float->float, 'F' (float,float)->float, 'T' three floats,
 * 'b' float->int32 predicate, 'i' int->int, 'I' (int,int)->int, 'J' three ints (sad, usad,
 * byte_perm), 'p' (float,int)->float,
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
    {"sad", 'J'}, {"usad", 'J'}, {"byte_perm", 'J'}, {"llabs", 'i'}, {"ull2float_rn", 'r'},
    {"int_as_float", 'r'}, {"float_as_int", 'r'},
};

static char libdevice_kind(const char *name) {
  for (size_t i = 0; i < sizeof libdevice_fns / sizeof *libdevice_fns; i++)
    if (!strcmp(libdevice_fns[i].name, name)) return libdevice_fns[i].kind;
  return 0;
}

static Val *libdevice_call(Sema *S, Node *call, const char *name, Val **args, int nargs) {
  char kind = libdevice_kind(name);
  int want = kind == 'F' || kind == 'I' || kind == 'p' ? 2 : kind == 'T' || kind == 'J' ? 3 : 1;
  if (nargs != want)
    sema_error(S, call, "libdevice.%s() takes %d argument%s (%d given)", name, want, want == 1 ? "" : "s", nargs);
  Val *r;
  switch (kind) {
  case 'f': case 'F': case 'T':
    r = elementwise(S, call, CALL_libdevice, args, want, true, NULL);
    /* libdevice has these for fp32 only */
    if ((!strcmp(name, "saturatef") || !strncmp(name, "fast_", 5)) && ty_elem(r->e->type)->dtype == DT_F64)
      sema_error(S, call, "libdevice.%s() takes fp32; its operand is %s", name, ty_str(S->a, r->e->type));
    break;
  case 'i': case 'I': case 'J': {
    if (!strcmp(name, "clz") || !strcmp(name, "popc") || !strcmp(name, "ffs")) {
      /* a count or a position: an int32 whatever the operand's width */
      TNode *e = bi_rt(S, call, args[0]);
      bi_need_int(S, call, e);
      r = val_rt(S, emit_call(S, call, CALL_libdevice, ty_with_elem(S->tc, e->type, bi_I32(S)), &e, 1));
      break;
    }
    r = elementwise(S, call, CALL_libdevice, args, want, false, NULL);
    bi_need_int(S, call, r->e);
    /* libdevice has these for 32-bit integers only */
    static const char *const only32[] = {"hadd", "rhadd", "uhadd", "urhadd", "sad", "usad", "byte_perm"};
    for (size_t i = 0; i < sizeof only32 / sizeof *only32; i++)
      if (!strcmp(name, only32[i]) && dtype_bits(ty_elem(r->e->type)->dtype) == 64)
        sema_error(S, call, "libdevice.%s() has no 64-bit form; its operands are %s", name, ty_str(S->a, r->e->type));
    if (!strcmp(name, "llabs") && dtype_bits(ty_elem(r->e->type)->dtype) != 64)
      sema_error(S, call, "libdevice.llabs() takes 64-bit integers; its operand is %s (use libdevice.abs)",
                 ty_str(S->a, r->e->type));
    break;
  }
  case 'b': {
    TNode *e = bi_rt(S, call, args[0]);
    bi_need_float(S, call, e);
    r = val_rt(S, emit_call(S, call, CALL_libdevice, ty_with_elem(S->tc, e->type, bi_I32(S)), &e, 1));
    break;
  }
  case 'r': {
    TNode *e = bi_rt(S, call, args[0]);
    /* the conversions are of one source type each, as their names say */
    DType src = ty_elem(e->type)->dtype;
    bool want_f32 = !strncmp(name, "float", 5), want_i32 = !strcmp(name, "int_as_float"),
         want_u64 = !strcmp(name, "ull2float_rn");
    if ((want_f32 && src != DT_F32 && src != DT_F16 && src != DT_BF16) ||
        (want_i32 && (!dtype_is_int(src) || dtype_bits(src) != 32)) || (want_u64 && (!dtype_is_int(src) || dtype_bits(src) != 64)))
      sema_error(S, call, "libdevice.%s() takes %s; its operand is %s", name,
                 want_f32 ? "fp32 (fp16 and bf16 are widened)" : want_i32 ? "a 32-bit integer" : "a 64-bit integer",
                 ty_str(S->a, e->type));
    const Type *res = strstr(name, "ll") || !strcmp(name, "ull2float_rn") ? ty_scalar(S->tc, DT_I64) : bi_I32(S);
    if (!strcmp(name, "int_as_float") || !strcmp(name, "ull2float_rn")) res = bi_F32(S);
    r = val_rt(S, emit_call(S, call, CALL_libdevice, ty_with_elem(S->tc, e->type, res), &e, 1));
    break;
  }
  case 'p': {
    TNode *x = bi_rt(S, call, args[0]), *n = bi_rt(S, call, args[1]);
    bi_need_float(S, call, x);
    bi_need_int(S, call, n);
    n = cast_to(S, call, n, bi_I32(S));
    unify_operands(S, call, &x, &n);
    TNode *ops[2] = {x, n};
    r = val_rt(S, emit_call(S, call, CALL_libdevice, x->type, ops, 2));
    break;
  }
  default: unreachable();
  }
  r->e->attrs.symbol = name;
  return r;
}

HANDLER(libdevice_any) {
  (void)nargs;
  /* the one parameter is variadic: unpack the tuple of arguments */
  Val *t = A(0);
  Val *items[4];
  int n = t->kind == V_TUPLE ? t->n : t->c->nelems;
  if (n > 4) sema_error(S, call, "%s() takes at most 3 arguments (%d given)", S->builtin->name, n);
  for (int i = 0; i < n; i++) items[i] = t->kind == V_TUPLE ? t->elems[i] : val_const(S, t->c->elems[i]);
  return libdevice_call(S, call, S->builtin->name + 10, items, n);
}

/* ---- casts --------------------------------------------------------------- */

static Val *do_cast(Sema *S, Node *call, Val *x, Val *dtype, Val *rounding, Val *bitcast) {
  /* a block type (a block pointer's element_ty) converts to its element, as Triton's dst_ty.scalar */
  const Type *to = ty_elem(const_dtype(S, call, dtype, "the target dtype"));
  TNode *e = bi_rt(S, call, x);
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
  /* integers and pointers convert both ways (inttoptr/ptrtoint), as Triton
   * reads a grouped GEMM's addresses from a table of int64 */
  if (to->kind == TY_PTR && (from->kind != TY_SCALAR || !dtype_is_int(from->dtype) || from->dtype == DT_I1))
    sema_error(S, call, "cannot convert %s to a pointer type", ty_str(S->a, from));
  if (from->kind == TY_PTR && !(to->kind == TY_SCALAR && (to->dtype == DT_I64 || to->dtype == DT_U64 || to->dtype == DT_I1)))
    sema_error(S, call, "pointers can only be converted to int64, uint64 or int1");
  if (from->kind == TY_PTR || to->kind == TY_PTR) {
    TNode *t = tnode(S, T_CAST, call, ty_with_elem(S->tc, e->type, to));
    t->a = e;
    return val_rt(S, t);
  }
  if (from == to) return val_rt(S, e); /* as Triton: no conversion, whatever the rounding says */
  if (rounding && !val_is_none(rounding)) {
    const char *r = const_str(S, call, rounding, "fp_downcast_rounding");
    if (strcmp(r, "rtne") && strcmp(r, "rtz")) sema_error(S, call, "fp_downcast_rounding must be 'rtne' or 'rtz', got '%s'", r);
    if (!dtype_is_float(from->dtype) || !dtype_is_float(to->dtype) || dtype_bits(to->dtype) >= dtype_bits(from->dtype))
      sema_error(S, call, "fp_downcast_rounding applies only to floating-point down-casts");
    TNode *t = emit_call(S, call, CALL_fp_downcast, ty_with_elem(S->tc, e->type, to), &e, 1);
    t->attrs.has |= CA_ROUNDING;
    t->attrs.round_to_zero = !strcmp(r, "rtz");
    return val_rt(S, t);
  }
  return val_rt(S, cast_to(S, call, e, to));
}

/* tl.float32(x): a dtype called on a value gives a scalar of that dtype
 * (a constant folds) */
HANDLER(dtype_call) { (void)nargs; return do_cast(S, call, A(1), A(0), NULL, NULL); }

/* tl.dtype(name): the dtype that Triton names so, its str() ('fp32',
 * 'uint32'), as sglang spells one: tl.dtype(f"uint{bits}") */
HANDLER(dtype_named) {
  (void)nargs;
  const char *name = const_str(S, call, A(0), "tl.dtype's name");
  for (int d = 0; d < DT_COUNT; d++)
    if (!strcmp(sema_dtype_str((DType)d), name)) return val_const(S, cv_dtype(S, ty_scalar(S->tc, (DType)d)));
  sema_error(S, call, "tl.dtype('%s'): Triton names no dtype so (int1, int8 to int64, uint8 to uint64, fp8e4nv, "
             "fp8e5, fp16, bf16, fp32, fp64)", name);
}

HANDLER(to) { (void)nargs; return do_cast(S, call, A(0), A(1), A(2), A(3)); }
HANDLER(cast) { (void)nargs; return do_cast(S, call, A(0), A(1), A(2), A(3)); }

HANDLER(pointer_type) {
  (void)nargs;
  const Type *el = const_dtype(S, call, A(0), "the element type");
  if (el->kind != TY_SCALAR) sema_error(S, call, "pointers to pointers are not supported");
  return val_const(S, cv_dtype(S, ty_ptr(S->tc, el)));
}


static Builtin libdevice_copies[sizeof libdevice_fns / sizeof *libdevice_fns];
static char libdevice_names[sizeof libdevice_fns / sizeof *libdevice_fns][32];
static pthread_once_t libdevice_once = PTHREAD_ONCE_INIT;

/* One entry per libdevice function, each a copy of the generic one with
 * its own name; made once, so that compilations on several threads share
 * them. */
static void make_libdevice_copies(void) {
  static const Builtin any = {"libdevice.*", "*args", libdevice_any, 0};
  for (size_t i = 0; i < sizeof libdevice_fns / sizeof *libdevice_fns; i++) {
    libdevice_copies[i] = any;
    snprintf(libdevice_names[i], sizeof libdevice_names[i], "libdevice.%s", libdevice_fns[i].name);
    libdevice_copies[i].name = libdevice_names[i];
  }
}

const Builtin *bi_libdevice_find(const char *name) {
  if (!libdevice_kind(name)) return NULL;
  pthread_once(&libdevice_once, make_libdevice_copies);
  for (size_t i = 0; i < sizeof libdevice_fns / sizeof *libdevice_fns; i++)
    if (!strcmp(libdevice_fns[i].name, name)) return &libdevice_copies[i];
  return NULL;
}

/* ---- the table ------------------------------------------------------------------ */

const Builtin builtins_core[] = {
    {"py.range", "*args", py_range, 0},
    {"py.min", "*args", py_min, 0},
    {"py.max", "*args", py_max, 0},
    {"py.len", "obj", py_len, 0},
    {"py.int", "x=,base=", py_int, 0},
    {"py.float", "x=", py_float, 0},
    {"py.bool", "x=", py_bool, 0},
    {"py.abs", "x", py_abs, 0},
    {"py.isinstance", "obj,classinfo", py_isinstance, 0},
    {"py.tuple", "iterable=", py_tuple, 0},
    {"py.list", "iterable=", py_tuple, 0},
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
    {"fdiv", "x,y,ieee_rounding=,approx=", fdiv, B_MATH},
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
    {"cast", "input,dtype,fp_downcast_rounding=,bitcast=", cast, B_METHOD},
    {"to", "input,dtype,fp_downcast_rounding=,bitcast=", to, B_METHOD},
    {"pointer_type", "element_ty", pointer_type, 0},
    {"py.dtype", "dtype,value", dtype_call, 0},
    {"py.dtype_named", "name", dtype_named, 0},
    {"range", "*args", py_range, 0},
    {"static_range", "*args", py_range, 0}, /* unrolled by sema when its bounds are constexprs */
};
const size_t builtins_core_count = sizeof builtins_core / sizeof *builtins_core;
