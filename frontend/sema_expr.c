/*
 * sema_expr.c — expressions, and the inlined calls of @jit functions.
 * Reading and assigning variables is sema_vars.c; the operators' typing
 * rules are sema_arith.c.
 */
#include "sema.h"

/* ---- expressions ------------------------------------------------------------------ */


static const char *const py_builtins[] = {"range", "min", "max", "len", "int", "float", "bool",
                                          "print", "isinstance", "abs", "getattr", "hasattr", "tuple", "list", NULL};

Val *sema_read_name(Sema *S, Node *n) {
  const char *name = n->name;
  Val *v = S->f ? sema_env_get(&S->f->env, name) : NULL;
  if (v) {
    if (v->kind == V_UNDEF) sema_error(S, n, "%s", v->why);
    return sema_read_val(S, n, v);
  }
  Val *g = sema_read_module_name(S, n, name);
  if (g) return g;
  for (int i = 0; py_builtins[i]; i++)
    if (!strcmp(py_builtins[i], name)) {
      Val *bv = sema_new_val(S, V_BUILTIN);
      bv->builtin = builtin_find(arena_printf(S->a, "py.%s", name));
      if (!bv->builtin) sema_error(S, n, "Python builtin '%s' is not supported in kernels", name);
      return bv;
    }
  /* the Python that module-level values are computed with (builtins_host.c) */
  static const char *const host_builtins[] = {"str", "repr", "format", "round", "sum", NULL};
  for (int i = 0; S->in_module && host_builtins[i]; i++)
    if (!strcmp(host_builtins[i], name)) {
      Val *bv = sema_new_val(S, V_BUILTIN);
      bv->builtin = builtin_find(arena_printf(S->a, "py.%s", name));
      return bv;
    }
  sema_error(S, n, "name '%s' is not defined", name);
}

/* os.environ, os.environ.get and os.getenv, for module-level values (the
 * builtin takes the default: builtins_host.c); NULL for anything else of
 * module `path`. */
Val *sema_os_attr(Sema *S, const char *path, const char *name) {
  if (!S->in_module) return NULL;
  if (!strcmp(path, "os") && !strcmp(name, "environ")) {
    Val *v = sema_new_val(S, V_MODULE);
    v->path = "os.environ";
    return v;
  }
  if ((!strcmp(path, "os") && !strcmp(name, "getenv")) || (!strcmp(path, "os.environ") && !strcmp(name, "get"))) {
    Val *v = sema_new_val(S, V_BUILTIN);
    v->builtin = builtin_find("os.getenv");
    return v;
  }
  return NULL;
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

static Val *builtin_val(Sema *S, const Builtin *b) {
  Val *bv = sema_new_val(S, V_BUILTIN);
  bv->builtin = b;
  return bv;
}

static Val *ns_val(Sema *S, const char *path) {
  Val *r = sema_new_val(S, V_MODULE);
  r->path = path;
  return r;
}

/* Names of Triton's that are not builtins of kernels but that module-level
 * code uses: decorators, classes, annotations. */
static bool triton_host_name(const char *ns, const char *name) {
  static const char *const tl[] = {"constexpr", "constexpr_function", "dtype", "tensor", "block_type", "pointer_type_cls",
                                   "tensor_descriptor", "tensor_descriptor_base", "tuple", "core", "semantic", "builtin",
                                   NULL};
  static const char *const triton[] = {"jit", "autotune", "heuristics", "Config", "constexpr_function", "runtime",
                                       "compiler", "testing", "backends", "tools", "knobs", "JITFunction",
                                       "OutOfResources", "__version__", "experimental", NULL};
  const char *const *list = !strcmp(ns, "tl") ? tl : triton;
  for (int i = 0; list[i]; i++)
    if (!strcmp(list[i], name)) return true;
  return false;
}

Val *sema_triton_path(Sema *S, Node *n, const char *path, bool quiet) {
  if (canonical_ns(path)) return ns_val(S, path);
  const char *dot = strrchr(path, '.');
  if (!dot) return quiet ? NULL : ns_val(S, path);
  const char *base = arena_strndup(S->a, path, (size_t)(dot - path)), *name = dot + 1;
  const char *ns = canonical_ns(base);
  if (!ns) {
    /* triton.runtime.jit.jit and the like: host-side objects */
    if (!strncmp(path, "triton.", 7) && strncmp(path, "triton.language.", 16)) return ns_val(S, path);
    if (quiet) return NULL;
    sema_error(S, n, "'%s' is not a Triton builtin that tilec knows", path);
  }
  if (!strcmp(ns, "tl") || !strcmp(ns, "triton")) {
    DType dt;
    if (!strcmp(ns, "tl") && dtype_parse(name, &dt) && strcmp(name, "float") && strcmp(name, "double") && strcmp(name, "half"))
      return val_const(S, cv_dtype(S, ty_scalar(S->tc, dt)));
    if (triton_host_name(ns, name)) return ns_val(S, !strcmp(ns, "tl") ? arena_printf(S->a, "triton.language.%s", name) : path);
    const Builtin *b = builtin_find(!strcmp(ns, "tl") ? name : arena_printf(S->a, "triton.%s", name));
    if (b) return builtin_val(S, b);
    if (quiet) return NULL;
    sema_error(S, n, "'%s' is not a Triton builtin that tilec knows", !strcmp(ns, "tl") ? arena_printf(S->a, "tl.%s", name) : path);
  }
  if (!strcmp(ns, "math") || !strcmp(ns, "libdevice")) {
    const Builtin *b = builtin_find(arena_printf(S->a, "%s.%s", ns, name));
    if (b) return builtin_val(S, b);
    if (quiet) return NULL;
    sema_error(S, n, "'%s' is not a function of %s", name, !strcmp(ns, "math") ? "tl.math" : "libdevice");
  }
  if (!strcmp(ns, "extra.cuda")) {
    const Builtin *b = builtin_find(arena_printf(S->a, "cuda.%s", name));
    if (b) return builtin_val(S, b);
  }
  if (quiet) return NULL;
  sema_error(S, n, "'%s' is not a Triton builtin that tilec knows", path);
}

static Val *module_attr(Sema *S, Node *n, Val *m) {
  if (m->mod) return sema_user_module_attr(S, n, m);
  Val *os = sema_os_attr(S, m->path, n->name);
  if (os) return os;
  if (!canonical_ns(m->path)) sema_error(S, n, "module '%s' cannot be used in a kernel", sema_shown_name(S, m->path));
  return sema_triton_path(S, n, arena_printf(S->a, "%s.%s", m->path, n->name), false);
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
      Val *b = sema_new_val(S, V_METHOD);
      b->builtin = builtin_find("py.constant_method");
      b->self = val_const(S, cv_bool(S, preds[i].v));
      return b;
    }
  sema_error(S, n, "dtype %s has no attribute '%s'", ty_str(S->a, t), a);
}

/* A block type's shape as a constant tuple (the empty tuple for a scalar). */
static CValue *shape_tuple(Sema *S, Node *at, const Type *t) {
  CValue *dims[MAX_RANK];
  int r = t && t->kind == TY_BLOCK ? t->rank : 0;
  for (int i = 0; i < r; i++) dims[i] = cv_int(S, t->shape[i]);
  return cv_tuple(S, at, dims, r);
}

static Val *value_attr(Sema *S, Node *n, Val *obj) {
  const char *a = n->name;
  if (obj->kind == V_MODULE) return module_attr(S, n, obj);
  /* a constexpr's .value (tl.constexpr's field): the value itself, a dtype,
   * a tuple or None too (`dtype.value` in a helper taking a constexpr) */
  if (obj->kind == V_CONST && !strcmp(a, "value")) return obj;
  if (obj->kind == V_CONST && obj->c->kind == CV_DTYPE) return dtype_attr(S, n, obj->c->dtype);
  if (obj->kind == V_RT && obj->ty->kind == TY_DESC) {
    /* a tensor descriptor: its element type, and the block it loads */
    const Type *block = obj->ty->elem;
    if (!strcmp(a, "dtype")) return val_const(S, cv_dtype(S, block->elem));
    if (!strcmp(a, "block_shape")) return val_const(S, shape_tuple(S, n, block));
  }
  if (obj->kind == V_RT || (obj->kind == V_CONST && (obj->c->kind == CV_INT || obj->c->kind == CV_FLOAT || obj->c->kind == CV_BOOL))) {
    if (!strcmp(a, "dtype") || !strcmp(a, "type")) {
      if (obj->kind == V_CONST)
        return val_const(S, cv_dtype(S, sema_const_default_type(S, n, obj->c)));
      const Type *t = obj->ty;
      if (!strcmp(a, "type") && t->kind == TY_BLOCK)
        sema_error(S, n, "'.type' of a block is not supported; use '.dtype'");
      return val_const(S, cv_dtype(S, ty_elem(t)));
    }
    if (!strcmp(a, "shape")) return val_const(S, shape_tuple(S, n, obj->kind == V_RT ? obj->ty : NULL));
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
      Val *m = sema_new_val(S, V_METHOD);
      m->builtin = b;
      m->self = obj;
      return m;
    }
    if (obj->kind == V_RT) sema_error(S, n, "a value of type %s has no attribute '%s'", ty_str(S->a, obj->ty), a);
  }
  if (obj->kind == V_CONST && obj->c->kind == CV_STR && S->in_module) {
    const Builtin *b = builtin_find(arena_printf(S->a, "str.%s", a));
    if (b) {
      Val *m = sema_new_val(S, V_METHOD);
      m->builtin = b;
      m->self = obj;
      return m;
    }
  }
  if (obj->kind == V_TUPLE || (obj->kind == V_CONST && obj->c->kind == CV_TUPLE))
    sema_error(S, n, "tuples have no attribute '%s'", a);
  sema_error(S, n, "%s has no attribute '%s'", val_desc(S, obj), a);
}

/* A slice of a sequence of len items, as Python resolves it: the first
 * index, the step and how many items it takes. */
static int64_t slice_of(Sema *S, Node *sl, int64_t len, int64_t *first, int64_t *step) {
  Node *parts[3] = {sl->lhs, sl->rhs, sl->cond};
  int64_t v[3];
  bool given[3];
  for (int k = 0; k < 3; k++) {
    Val *x = parts[k] ? sema_eval(S, parts[k]) : NULL;
    given[k] = x && !val_is_none(x);
    v[k] = given[k] ? const_int(S, parts[k], x, "a slice index") : 0;
  }
  *step = given[2] ? v[2] : 1;
  if (*step == 0) sema_error(S, sl->cond, "slice step cannot be zero");
  if (*step == INT64_MIN) sema_error(S, sl->cond, "slice step out of range");
  bool up = *step > 0;
  int64_t lo = up ? 0 : -1, hi = up ? len : len - 1; /* where the bounds are clamped */
  for (int k = 0; k < 2; k++) {
    if (!given[k]) {
      v[k] = k == 0 ? (up ? 0 : len - 1) : (up ? len : -1);
      continue;
    }
    if (v[k] < 0) v[k] = v[k] < -len ? lo : v[k] + len;
    if (v[k] > hi) v[k] = hi;
    if (v[k] < lo) v[k] = lo;
  }
  *first = v[0];
  int64_t span = up ? v[1] - v[0] : v[0] - v[1], by = up ? *step : -*step;
  return span <= 0 ? 0 : (span - 1) / by + 1;
}

/* t[a:b:c] and s[i], s[a:b:c] of constexpr tuples and strings */
static Val *slice_sequence(Sema *S, Node *n, Val *obj) {
  Node *idx = n->rhs;
  bool str = obj->kind == V_CONST && obj->c->kind == CV_STR;
  int64_t len = str ? (int64_t)strlen(obj->c->s) : obj->kind == V_TUPLE ? obj->n : obj->c->nelems;
  if (idx->kind != N_SLICE) { /* a string's character */
    int64_t i = const_int(S, idx, sema_eval(S, idx), "a string index");
    if (i < 0) i += len;
    if (i < 0 || i >= len) sema_error(S, idx, "string index %lld out of range", (long long)i);
    return val_const(S, cv_str(S, arena_strndup(S->a, obj->c->s + i, 1)));
  }
  int64_t first, step, count = slice_of(S, idx, len, &first, &step);
  if (str) {
    char *r = arena_alloc(S->a, (size_t)count + 1);
    for (int64_t k = 0; k < count; k++) r[k] = obj->c->s[first + k * step];
    r[count] = 0;
    return val_const(S, cv_str(S, r));
  }
  if (obj->kind == V_CONST) {
    CValue **e = arena_alloc(S->a, sizeof(CValue *) * (size_t)(count + 1));
    for (int64_t k = 0; k < count; k++) e[k] = obj->c->elems[first + k * step];
    return val_const(S, cv_tuple(S, idx, e, count));
  }
  Val **e = arena_alloc(S->a, sizeof(Val *) * (size_t)(count + 1));
  for (int64_t k = 0; k < count; k++) e[k] = obj->elems[first + k * step];
  return sema_tuple_of(S, idx, e, (int)count);
}

/* x[i], x[:, None], x.shape[0], tuple[i], tuple[a:b], string[i] */
static Val *subscript(Sema *S, Node *n) {
  Val *obj = sema_eval(S, n->lhs);
  Node *idx = n->rhs;
  if ((obj->kind == V_CONST && obj->c->kind == CV_STR) ||
      (idx->kind == N_SLICE && (obj->kind == V_TUPLE || (obj->kind == V_CONST && obj->c->kind == CV_TUPLE))))
    return slice_sequence(S, n, obj);
  if (obj->kind == V_CONST && obj->c->kind == CV_TUPLE) {
    Val *iv = sema_eval(S, idx);
    int64_t i = const_int(S, idx, iv, "a tuple index");
    if (i < 0) i += obj->c->nelems;
    if (i < 0 || i >= obj->c->nelems) sema_error(S, idx, "tuple index %lld out of range", (long long)i);
    return val_const(S, obj->c->elems[i]);
  }
  if (obj->kind == V_TUPLE) {
    Val *iv = sema_eval(S, idx);
    int64_t i = const_int(S, idx, iv, "a tuple index");
    if (i < 0) i += obj->n;
    if (i < 0 || i >= obj->n) sema_error(S, idx, "tuple index %lld out of range", (long long)i);
    return obj->elems[i];
  }
  if (obj->kind == V_MODULE && !strcmp(obj->path, "heuristic.args")) {
    /* args['NAME'] inside a heuristics lambda */
    Val *iv = sema_eval(S, idx);
    const char *name = const_str(S, idx, iv, "a heuristic's args[] key");
    Val *v = sema_env_get(&S->f->env, name);
    if (!v) sema_error(S, idx, "the kernel has no parameter '%s'", name);
    if (v->kind == V_UNDEF) sema_error(S, idx, "%s", v->why);
    return v;
  }
  if (obj->kind == V_MODULE && !strcmp(obj->path, "os.environ"))
    sema_error(S, n, "os.environ[...] has no default, and tilec does not read the environment: "
               "write os.environ.get(NAME, default)");
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

/* The tuple of these n values (arena-held, n + 1 slots): a constant when
 * every value is one. */
Val *sema_tuple_of(Sema *S, Node *at, Val **elems, int n) {
  bool all_const = true;
  for (int i = 0; i < n; i++) all_const &= elems[i]->kind == V_CONST;
  if (all_const) {
    CValue **c = arena_alloc(S->a, sizeof(CValue *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) c[i] = elems[i]->c;
    return val_const(S, cv_tuple(S, at, c, n));
  }
  int depth, size;
  sema_tuple_nest(S, at, elems, n, &depth, &size);
  Val *t = sema_new_val(S, V_TUPLE);
  t->elems = elems;
  t->n = n;
  t->depth = depth;
  t->size = size;
  return t;
}

static Val *make_tuple(Sema *S, Node *n) {
  Val **elems = arena_alloc(S->a, sizeof(Val *) * (size_t)(n->kids.n + 1));
  for (int i = 0; i < n->kids.n; i++) {
    if (n->kids.v[i]->kind == N_STARRED) sema_error(S, n->kids.v[i], "starred expressions are not supported in kernels");
    elems[i] = sema_eval(S, n->kids.v[i]);
  }
  return sema_tuple_of(S, n, elems, n->kids.n);
}

static Val *unary(Sema *S, Node *n) {
  Val *v = sema_eval(S, n->lhs);
  if (v->kind == V_CONST) {
    CValue *c = v->c;
    if (n->op == TK_KW_not) {
      if (c->kind == CV_NONE) return val_const(S, cv_bool(S, true));
      if (c->kind == CV_STR) return val_const(S, cv_bool(S, c->s[0] == 0));
      if (c->kind == CV_TUPLE) return val_const(S, cv_bool(S, c->nelems == 0));
      if (!sema_c_is_num(c)) sema_error(S, n, "'not' needs a boolean, got %s", val_desc(S, v));
      return val_const(S, cv_bool(S, sema_cf(c) == 0));
    }
    if (!sema_c_is_num(c)) sema_error(S, n, "bad operand for unary %s: %s", tok_kind_name(n->op), val_desc(S, v));
    if (n->op == TK_PLUS) return c->kind == CV_BOOL ? val_const(S, cv_int(S, c->b)) : v;
    if (n->op == TK_MINUS) {
      if (c->kind == CV_FLOAT) return val_const(S, cv_float(S, -c->f));
      if (c->is_unsigned_big && (uint64_t)c->i == (uint64_t)1 << 63) return val_const(S, cv_int(S, INT64_MIN));
      if (sema_ci(c) == INT64_MIN) sema_error(S, n, "constexpr integer overflow in negation");
      return val_const(S, cv_int(S, -sema_ci(c)));
    }
    if (c->kind == CV_FLOAT) sema_error(S, n, "bad operand for unary '~': float");
    return val_const(S, cv_int(S, ~sema_ci(c)));
  }
  if (n->op == TK_KW_not) {
    TNode *b = sema_to_bool(S, n, v);
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
  Val *a = sema_eval(S, n->lhs);
  bool is_and = n->kind == N_AND;
  if (a->kind == V_CONST) {
    bool t = a->c->kind == CV_NONE ? false : a->c->kind == CV_STR ? a->c->s[0] != 0 :
             a->c->kind == CV_TUPLE ? a->c->nelems != 0 : a->c->kind == CV_DTYPE ? true : sema_cf(a->c) != 0;
    if (is_and != t) return a; /* and: falsy a; or: truthy a */
    return sema_eval(S, n->rhs);
  }
  Val *b = sema_eval(S, n->rhs);
  TNode *x = sema_to_bool(S, n, a), *y = sema_to_bool(S, n, b);
  unify_operands(S, n, &x, &y);
  TNode *t = sema_make_binop(S, n, T_BINOP, is_and ? TK_AMP : TK_PIPE, x, y, x->type);
  return val_rt(S, t);
}

static Val *compare(Sema *S, Node *n) {
  Val *left = sema_eval(S, n->kids.v[0]);
  Val *result = NULL;
  for (int i = 0; i + 1 < n->kids.n; i++) {
    Val *right = sema_eval(S, n->kids.v[i + 1]);
    Val *r = binary_op(S, n, n->ops[i], left, right);
    if (!result) {
      result = r;
    } else if (result->kind == V_CONST && r->kind == V_CONST) {
      result = val_const(S, cv_bool(S, const_bool(S, n, result, "x") && const_bool(S, n, r, "x")));
    } else {
      TNode *x = sema_to_bool(S, n, result), *y = sema_to_bool(S, n, r);
      unify_operands(S, n, &x, &y);
      result = val_rt(S, sema_make_binop(S, n, T_BINOP, TK_AMP, x, y, x->type));
    }
    /* a chained operand is used twice: keep the runtime one in a temporary */
    if (right->kind == V_RT && i + 2 < n->kids.n) {
      Val *held = sema_store_rt(S, n, arena_printf(S->a, "cmp.%d", i), right->e);
      right = sema_read_val(S, n, held);
    }
    left = right;
  }
  return result;
}

static Val *if_expr(Sema *S, Node *n) {
  Val *c = sema_eval(S, n->cond);
  if (c->kind == V_CONST) return const_bool(S, n->cond, c, "the condition") ? sema_eval(S, n->lhs) : sema_eval(S, n->rhs);
  /* a runtime condition: both sides are evaluated, as tl.where does */
  TNode *cond = sema_to_bool(S, n->cond, c);
  if (cond->type->kind == TY_BLOCK)
    sema_error(S, n, "a conditional expression needs a scalar condition; use tl.where for blocks");
  Val *a = sema_eval(S, n->lhs), *b = sema_eval(S, n->rhs);
  Args args = {.pos = (Val *[]){val_rt(S, cond), a, b}, .npos = 3};
  return builtin_call(S, n, builtin_find("where"), NULL, &args);
}

static _Noreturn void comprehension_error(Sema *S, Node *n) {
  const char *what = n->sval;
  /* Triton unrolls a list comprehension over a tuple; the others it rejects */
  if (!strcmp(what, "list comprehensions"))
    sema_error(S, n, "list comprehensions are not supported yet; unroll the loop with tl.static_range");
  sema_error(S, n, "%s are not supported in kernels, as in Triton; unroll the loop with tl.static_range%s", what,
             !strcmp(what, "generator expressions") ? ", or reduce a block with tl.sum" : "");
}

static Val *eval_call(Sema *S, Node *n) {
  /* sum(x for x in t): the generator is what kernels cannot have, whatever
   * the callee (Triton has no sum() either) */
  for (int i = 0; i < n->kids.n; i++)
    if (n->kids.v[i]->kind == N_COMP) comprehension_error(S, n->kids.v[i]);
  Val *callee = sema_eval(S, n->lhs);
  Args args = {0};
  args.npos = n->kids.n;
  args.pos = arena_alloc(S->a, sizeof(Val *) * (size_t)(args.npos + 1));
  for (int i = 0; i < n->kids.n; i++) {
    Node *k = n->kids.v[i];
    if (k->kind == N_STARRED) {
      if (k->op == TK_POW) sema_error(S, k, "'**' arguments are not supported in kernels");
      /* *shape: expand a tuple into positional arguments */
      Val *t = sema_eval(S, k->lhs);
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
        pos[i + cnt + j] = sema_eval(S, r);
      }
      args.pos = pos;
      args.npos = i + cnt + rest;
      break;
    }
    if (k->kind == N_LAMBDA) sema_error(S, k, "lambdas are only supported in @triton.heuristics");
    args.pos[i] = sema_eval(S, k);
  }
  args.nkw = n->kwargs.n;
  args.kwn = arena_alloc(S->a, sizeof(char *) * (size_t)(args.nkw + 1));
  args.kwv = arena_alloc(S->a, sizeof(Val *) * (size_t)(args.nkw + 1));
  for (int i = 0; i < n->kwargs.n; i++) {
    args.kwn[i] = n->kwargs.v[i]->name;
    args.kwv[i] = sema_eval(S, n->kwargs.v[i]->lhs);
  }
  return call_value(S, n, callee, &args);
}


Val *sema_eval(Sema *S, Node *n) {
  sema_count_work(S, n);
  sema_enter(S, n);
  Val *v;
  switch (n->kind) {
  case N_NAME: v = sema_read_name(S, n); break;
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
  case N_FSTRING: v = sema_fstring(S, n); break;
  case N_TRUE: v = val_const(S, cv_bool(S, true)); break;
  case N_FALSE: v = val_const(S, cv_bool(S, false)); break;
  case N_NONE: v = val_none(S); break;
  case N_BINOP: {
    Val *a = sema_eval(S, n->lhs);
    Val *b = sema_eval(S, n->rhs);
    v = binary_op(S, n, n->op, a, b);
    break;
  }
  case N_UNOP: v = unary(S, n); break;
  case N_AND: case N_OR: v = bool_op(S, n); break;
  case N_COMPARE: v = compare(S, n); break;
  case N_IFEXP: v = if_expr(S, n); break;
  case N_CALL: v = eval_call(S, n); break;
  case N_ATTR: v = value_attr(S, n, sema_eval(S, n->lhs)); break;
  case N_SUBSCRIPT: v = subscript(S, n); break;
  case N_TUPLE: case N_LIST:
    if (n->op == TK_LBRACE) sema_error(S, n, "sets are not supported in kernels");
    v = make_tuple(S, n);
    break;
  case N_DICT: sema_error(S, n, "dictionaries are not supported in kernels");
  case N_COMP: comprehension_error(S, n);
  case N_LAMBDA: sema_error(S, n, "lambdas are only supported in @triton.heuristics");
  case N_ELLIPSIS: sema_error(S, n, "'...' is not supported in kernels");
  case N_STARRED: sema_error(S, n, "starred expressions are not supported here");
  case N_SLICE: sema_error(S, n, "slices are only allowed in subscripts");
  default: sema_error(S, n, "this expression is not supported in kernels");
  }
  sema_leave(S);
  return v;
}

/* ---- calls of @jit functions (inlined) ---------------------------------------- */

bool sema_param_is_constexpr(Sema *S, Node *p) {
  if (!p->annot) return false;
  Node *a = p->annot;
  if (a->kind == N_STR) return !strcmp(a->sval, "tl.constexpr") || !strcmp(a->sval, "constexpr");
  if (a->kind == N_NAME) {
    if (!strcmp(a->name, "constexpr")) return true;
    Val *v = sema_module_name(S, sema_cur_mod(S), a, a->name, true);
    return v && v->kind == V_MODULE && sema_path_is(v->path, "triton.language.constexpr");
  }
  if (a->kind == N_ATTR && !strcmp(a->name, "constexpr")) return true;
  return false;
}



static Val *call_jit(Sema *S, Node *call, JitFunc *fn, Args *args) {
  /* module-level code runs only what tilec can run at compile time */
  if (S->in_module && !fn->constexpr_fn)
    sema_error(S, call, "'%s' is %s, which a module-level value cannot call", fn->name,
               fn->is_jit ? "a @triton.jit function" : "a host function");
  Node *def = sema_func_def(S, fn);
  sema_count_work(S, call);
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
  if (depth > MAX_INLINE_DEPTH) sema_limit_error(S, call, "calls nested more than %d deep (recursion is not supported)", MAX_INLINE_DEPTH);

  Frame *caller = S->f;
  Frame f = {.fn = fn, .site = site, .mod = fn->mod, .outer_rt = S->f->outer_rt + S->f->rt_depth};
  for (int i = 0; i < np; i++) {
    Node *p = def->kids.v[i];
    Val *v = bound[i];
    if (!v) {
      if (!p->rhs) sema_error(S, call, "'%s' is missing its argument '%s'", fn->name, p->name);
      S->f = &f;
      v = sema_eval(S, p->rhs);
      S->f = caller;
    }
    /* Like Triton, a helper's tl.constexpr annotation is not enforced: the
     * helper is specialized on whatever its arguments are. */
    bound[i] = v;
  }
  if (fn->constexpr_fn) {
    /* run at compile time, as Triton runs it in Python: on constexprs only */
    for (int i = 0; i < np; i++)
      if (bound[i]->kind != V_CONST && bound[i]->kind != V_TUPLE)
        sema_error(S, call, "'%s' is a @triton.constexpr_function, run at compile time: its argument '%s' must be a "
                   "constexpr, not %s", fn->name, def->kids.v[i]->name, val_desc(S, bound[i]));
  }
  PtrVec *saved_out = S->out, scratch = {0};
  if (fn->constexpr_fn) S->out = &scratch;
  S->f = &f;
  for (int i = 0; i < np; i++) sema_bind(S, def->kids.v[i], def->kids.v[i]->name, bound[i]);
  sema_exec_function_body(S, fn);
  S->f = caller;
  S->out = saved_out;
  Val *ret = f.ret ? f.ret : val_none(S);
  if (fn->constexpr_fn && (scratch.n || (ret->kind != V_CONST && ret->kind != V_TUPLE)))
    sema_error(S, call, "'%s' is a @triton.constexpr_function, run at compile time, but it computes a runtime value",
               fn->name);
  return ret;
}

Val *call_value(Sema *S, Node *call, Val *callee, Args *args) {
  switch (callee->kind) {
  case V_FUNC: return call_jit(S, call, callee->fn, args);
  case V_BUILTIN: return builtin_call(S, call, callee->builtin, NULL, args);
  case V_METHOD: return builtin_call(S, call, callee->builtin, callee->self, args);
  case V_MODULE:
    /* tl.constexpr(v) in kernel code: the value, as a constexpr */
    if (!callee->mod && sema_path_is(callee->path, "triton.language.constexpr"))
      return builtin_call(S, call, builtin_find("constexpr"), NULL, args);
    if (!callee->mod && sema_path_is(callee->path, "triton.language.dtype"))
      return builtin_call(S, call, builtin_find("py.dtype_named"), NULL, args);
    sema_error(S, call, "%s is not callable", val_desc(S, callee));
  case V_CONST:
    if (callee->c->kind == CV_DTYPE) return builtin_call(S, call, builtin_find("py.dtype"), callee, args);
    sema_error(S, call, "%s is not callable", val_desc(S, callee));
  default: sema_error(S, call, "%s is not callable", val_desc(S, callee));
  }
}
