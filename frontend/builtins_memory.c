/*
 * builtins_memory.c — loads, stores and atomics, tl.dot, block pointers and
 * tensor descriptors.
 */
#include "builtins.h"

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
  TNode *m = bi_rt(S, call, v);
  const Type *e = ty_elem(m->type);
  if (e->kind != TY_SCALAR || e->dtype != DT_I1)
    sema_error(S, call, "%s's mask must be boolean (int1), got %s; compare it, e.g. mask != 0", bi_cur(S), ty_str(S->a, m->type));
  return m;
}

/* boundary_check=(0, 1): dimensions of a block pointer to check */
static void boundary_attr(Sema *S, Node *call, TNode *t, Val *v, const Type *block) {
  if (val_is_none(v)) return;
  int64_t dims[MAX_RANK + 1];
  int n = const_int_list(S, call, v, dims, MAX_RANK, "boundary_check");
  for (int i = 0; i < n; i++) {
    if (dims[i] < 0 || dims[i] >= block->rank)
      sema_error(S, call, "boundary_check dimension %lld is out of range for a block of rank %d", (long long)dims[i], block->rank);
    t->attrs.boundary_check.v[i] = (int32_t)dims[i];
  }
  t->attrs.boundary_check.n = n;
}

static void modifiers(Sema *S, Node *call, TNode *t, Val *cache, Val *evict, const char *const *cache_ok) {
  const char *c = check_choice(S, call, cache, "cache_modifier", cache_ok);
  const char *e = check_choice(S, call, evict, "eviction_policy", evictions);
  t->attrs.cache = c;
  t->attrs.evict = e;
}

/* load(pointer, mask=None, other=None, boundary_check=(), padding_option='',
 *      cache_modifier='', eviction_policy='', volatile=False) */
HANDLER(load) {
  (void)nargs;
  TNode *ptr = bi_rt(S, call, A(0));
  const Type *pt = ptr->type;
  if (!ty_is_ptr(pt)) sema_error(S, call, "tl.load expects a pointer, got %s", ty_str(S->a, pt));
  TNode *ops[3] = {ptr, NULL, NULL};
  TNode *t;
  if (is_block_ptr(pt)) {
    if (!val_is_none(A(1)) || !val_is_none(A(2)))
      sema_error(S, call, "loads through a block pointer take boundary_check and padding_option, not mask and other");
    t = emit_call(S, call, CALL_load, pt->elem, ops, 3);
    boundary_attr(S, call, t, A(3), pt->elem);
    const char *pad = check_choice(S, call, A(4), "padding_option", paddings);
    t->attrs.padding = pad;
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
    t = emit_call(S, call, CALL_load, ty_with_elem(S->tc, ptr->type, elem), ops, 3);
  }
  modifiers(S, call, t, A(5), A(6), load_cache);
  if (!val_is_none(A(7)) && const_bool(S, call, A(7), "volatile")) t->attrs.is_volatile = true;
  return val_rt(S, t);
}

/* store(pointer, value, mask=None, boundary_check=(), cache_modifier='', eviction_policy='') */
HANDLER(store) {
  (void)nargs;
  TNode *ptr = bi_rt(S, call, A(0));
  const Type *pt = ptr->type;
  if (!ty_is_ptr(pt)) sema_error(S, call, "tl.store expects a pointer, got %s", ty_str(S->a, pt));
  TNode *ops[3] = {ptr, NULL, NULL};
  TNode *t;
  if (is_block_ptr(pt)) {
    if (!val_is_none(A(2))) sema_error(S, call, "stores through a block pointer take boundary_check, not mask");
    TNode *v = to_rt_typed(S, call, A(1), pt->elem->elem);
    ops[1] = broadcast_to_shape(S, call, v, pt->elem);
    t = emit_call(S, call, CALL_store, ty_void(S->tc), ops, 3);
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
    t = emit_call(S, call, CALL_store, ty_void(S->tc), ops, 3);
  }
  modifiers(S, call, t, A(4), A(5), store_cache);
  bi_emit_expr_stmt(S, call, t);
  return bi_none(S);
}

static const char *const sems[] = {"", "acquire", "release", "acq_rel", "relaxed", NULL};
static const char *const scopes[] = {"", "gpu", "cta", "sys", NULL};

static void sem_scope(Sema *S, Node *call, TNode *t, Val *sem, Val *scope) {
  const char *s = check_choice(S, call, sem, "sem", sems);
  const char *c = check_choice(S, call, scope, "scope", scopes);
  t->attrs.sem = *s ? s : "acq_rel";
  t->attrs.scope = *c ? c : "gpu";
}

/* atomic_<op>(pointer, val, mask=None, sem=None, scope=None) */
HANDLER(atomic_rmw) {
  (void)nargs;
  const char *op = S->builtin->name + 7;
  TNode *ptr = bi_rt(S, call, A(0));
  if (!ty_is_ptr(ptr->type) || is_block_ptr(ptr->type))
    sema_error(S, call, "%s expects a pointer or a block of pointers, got %s", bi_cur(S), ty_str(S->a, ptr->type));
  const Type *elem = ty_elem(ptr->type)->elem;
  DType d = elem->dtype;
  bool is_f = dtype_is_float(d);
  bool ok;
  if (!strcmp(op, "add")) ok = d == DT_I32 || d == DT_U32 || d == DT_I64 || d == DT_U64 || d == DT_F16 || d == DT_BF16 || d == DT_F32 || d == DT_F64;
  else if (!strcmp(op, "max") || !strcmp(op, "min")) ok = (dtype_is_int(d) && dtype_bits(d) >= 32) || d == DT_F32 || d == DT_F64;
  else if (!strcmp(op, "xchg")) ok = dtype_bits(d) >= 32; /* as Triton: 16-bit types only add */
  else ok = dtype_is_int(d) && dtype_bits(d) >= 32;
  if (!ok) sema_error(S, call, "%s does not support pointers to %s", bi_cur(S), dtype_name(d));
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
  TNode *t = emit_call(S, call, CALL_atomic_rmw, ty_with_elem(S->tc, ptr->type, elem), ops, 3);
  t->attrs.op = op;
  sem_scope(S, call, t, A(3), A(4));
  return val_rt(S, t);
}

/* atomic_cas(pointer, cmp, val, sem=None, scope=None) */
HANDLER(atomic_cas) {
  (void)nargs;
  TNode *ptr = bi_rt(S, call, A(0));
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
  TNode *t = emit_call(S, call, CALL_atomic_cas, ty_with_elem(S->tc, ptr->type, elem), ops, 3);
  sem_scope(S, call, t, A(3), A(4));
  return val_rt(S, t);
}

/* ---- dot ------------------------------------------------------------------ */

/* dot(input, other, acc=None, input_precision=None, allow_tf32=None,
 *     max_num_imprecise_acc=None, out_dtype=tl.float32) */
HANDLER(dot) {
  (void)nargs;
  TNode *a = bi_rt(S, call, A(0)), *b = bi_rt(S, call, A(1));
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
  const Type *out = fa ? bi_F32(S) : bi_I32(S);
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
    acc = bi_rt(S, call, A(2));
    if (acc->type->kind != TY_BLOCK || acc->type->rank != r || memcmp(acc->type->shape, shape, sizeof(int64_t) * (size_t)r))
      sema_error(S, call, "tl.dot accumulator has type %s but the product is %s", ty_str(S->a, acc->type), ty_str(S->a, rty));
    rty = acc->type;
  }
  if (fp8a || fp8b) {
    /* tl.dot runs on FMAs, which have no fp8: upcast to fp16 (exact for both
     * fp8 formats), as Triton does on targets without fp8 MMA */
    const Type *h = ty_scalar(S->tc, DT_F16);
    a = cast_to(S, call, a, h);
    b = cast_to(S, call, b, h);
  }
  TNode *ops[3] = {a, b, acc};
  TNode *t = emit_call(S, call, CALL_dot, rty, ops, 3);
  const char *prec = "";
  if (!val_is_none(A(3))) {
    static const char *const precs[] = {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6", NULL};
    prec = check_choice(S, call, A(3), "input_precision", precs);
  } else if (!val_is_none(A(4))) {
    prec = const_bool(S, call, A(4), "allow_tf32") ? "tf32" : "ieee";
  }
  if (!*prec && da == DT_F32) prec = "tf32";
  t->attrs.input_precision = prec;
  if (!val_is_none(A(5))) {
    t->attrs.has |= CA_IMPRECISE_ACC;
    t->attrs.max_num_imprecise_acc = (int)const_int(S, call, A(5), "max_num_imprecise_acc");
  }
  return val_rt(S, t);
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
    TNode *e = bi_rt(S, call, items[i]);
    if (!ty_is_int(e->type) || e->type->kind == TY_BLOCK) sema_error(S, call, "%s must hold integer scalars, got %s", what, ty_str(S->a, e->type));
    out[i] = cast_to(S, call, e, ty);
  }
  return n;
}

/* The (base, shape, strides) that block pointers and descriptors start with:
 * a scalar pointer and two tuples of integers, as i64, into ops[0..]. */
static TNode *base_shape_strides(Sema *S, Node *call, Val **args, TNode **ops, int *r1, int *r2) {
  TNode *base = bi_rt(S, call, args[0]);
  if (base->type->kind != TY_PTR || base->type->elem->kind != TY_SCALAR)
    sema_error(S, call, "%s's base must be a scalar pointer, got %s", bi_cur(S), ty_str(S->a, base->type));
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
  int r3 = runtime_int_tuple(S, call, A(3), ops + 1 + r1 + r2, "offsets", bi_I32(S));
  int64_t bs[MAX_RANK + 1], order[MAX_RANK + 1];
  int r4 = const_int_list(S, call, A(4), bs, MAX_RANK, "block_shape");
  int r5 = const_int_list(S, call, A(5), order, MAX_RANK, "order");
  if (r1 != r2 || r1 != r3 || r1 != r4 || r1 != r5)
    sema_error(S, call, "tl.make_block_ptr's shape, strides, offsets, block_shape and order must have one length "
               "(got %d, %d, %d, %d, %d)", r1, r2, r3, r4, r5);
  const Type *block = check_block_shape(S, call, base->type->elem, r4, bs);
  TNode *t = emit_call(S, call, CALL_make_block_ptr, ty_ptr(S->tc, block), ops, 1 + 3 * r1);
  for (int i = 0; i < r5; i++) t->attrs.order.v[i] = (int32_t)order[i];
  t->attrs.order.n = r5;
  return val_rt(S, t);
}

HANDLER(advance) {
  (void)nargs;
  TNode *base = bi_rt(S, call, A(0));
  if (!is_block_ptr(base->type)) sema_error(S, call, "tl.advance expects a block pointer, got %s", ty_str(S->a, base->type));
  TNode *ops[1 + MAX_RANK];
  ops[0] = base;
  int n = runtime_int_tuple(S, call, A(1), ops + 1, "offsets", bi_I32(S));
  if (n != base->type->elem->rank) sema_error(S, call, "tl.advance needs %d offsets, got %d", base->type->elem->rank, n);
  return val_rt(S, emit_call(S, call, CALL_advance, base->type, ops, 1 + n));
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
  TNode *t = emit_call(S, call, CALL_make_tensor_descriptor, ty_desc(S->tc, block), ops, 1 + 2 * r1);
  const char *pad = check_choice(S, call, A(4), "padding_option", paddings);
  if (!strcmp(pad, "nan")) sema_error(S, call, "tensor descriptors with padding_option='nan' are not supported yet");
  return val_rt(S, t);
}

HANDLER(desc_load) {
  (void)nargs;
  TNode *d = bi_rt(S, call, A(0));
  const Type *block = d->type->elem;
  TNode *ops[1 + MAX_RANK];
  ops[0] = d;
  int n = runtime_int_tuple(S, call, A(1), ops + 1, "offsets", bi_I32(S));
  if (n != block->rank) sema_error(S, call, "the descriptor needs %d offsets, got %d", block->rank, n);
  return val_rt(S, emit_call(S, call, CALL_desc_load, block, ops, 1 + n));
}

HANDLER(desc_store) {
  (void)nargs;
  TNode *d = bi_rt(S, call, A(0));
  const Type *block = d->type->elem;
  TNode *ops[2 + MAX_RANK];
  ops[0] = d;
  int n = runtime_int_tuple(S, call, A(1), ops + 2, "offsets", bi_I32(S));
  if (n != block->rank) sema_error(S, call, "the descriptor needs %d offsets, got %d", block->rank, n);
  TNode *v = broadcast_to_shape(S, call, to_rt_typed(S, call, A(2), block->elem), block);
  ops[1] = v;
  bi_emit_expr_stmt(S, call, emit_call(S, call, CALL_desc_store, ty_void(S->tc), ops, 2 + n));
  return bi_none(S);
}

/* The descriptor API of Triton 3.0-3.2, kept by kernels of that time:
 * _experimental_make_tensor_descriptor(base, shape, strides, block_shape),
 * _experimental_descriptor_load(desc, offsets, shape, dtype) and
 * _experimental_descriptor_store(desc, value, offsets). */
HANDLER(experimental_make_tensor_descriptor) {
  (void)nargs;
  Val *args5[5] = {A(0), A(1), A(2), A(3), val_none(S)};
  return make_tensor_descriptor(S, call, args5, 5);
}

HANDLER(experimental_descriptor_load) {
  (void)nargs;
  TNode *d = bi_rt(S, call, A(0));
  if (d->type->kind != TY_DESC) sema_error(S, call, "%s expects a tensor descriptor, got %s", bi_cur(S), ty_str(S->a, d->type));
  const Type *block = d->type->elem;
  int64_t shape[MAX_RANK + 1];
  int r = const_int_list(S, call, A(2), shape, MAX_RANK, "shape");
  const Type *dt = const_dtype(S, call, A(3), "dtype");
  if (r != block->rank || memcmp(shape, block->shape, sizeof(int64_t) * (size_t)r) || dt != block->elem)
    sema_error(S, call, "%s: the shape and dtype must be the descriptor's, %s", bi_cur(S), ty_str(S->a, block));
  Val *args2[2] = {A(0), A(1)};
  return desc_load(S, call, args2, 2);
}

HANDLER(experimental_descriptor_store) {
  (void)nargs;
  Val *args2[3] = {A(0), A(2), A(1)};
  return desc_store(S, call, args2, 3);
}

HANDLER(not_yet) {
  (void)args, (void)nargs;
  sema_error(S, call, "%s is not supported by tilec yet", bi_cur(S));
}

/* ---- the table ------------------------------------------------------------------ */

const Builtin builtins_memory[] = {
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
    {"make_block_ptr", "base,shape,strides,offsets,block_shape,order", make_block_ptr, 0},
    {"advance", "base,offsets", advance, B_METHOD},
    {"make_tensor_descriptor", "base,shape,strides,block_shape,padding_option=", make_tensor_descriptor, 0},
    {"_experimental_make_tensor_descriptor", "base,shape,strides,block_shape", experimental_make_tensor_descriptor, 0},
    {"_experimental_descriptor_load", "desc_pointer,offsets,shape,dtype", experimental_descriptor_load, 0},
    {"_experimental_descriptor_store", "desc_pointer,value,offsets", experimental_descriptor_store, 0},
    {"desc.load", "desc,offsets", desc_load, B_METHOD},
    {"desc.store", "desc,offsets,value", desc_store, B_METHOD},
    /* known to Triton, not yet to tilec: a call says so at its line */
    {"tensor", "*args", not_yet, 0},
    {"dot_scaled", "*args", not_yet, 0},
    {"map_elementwise", "*args", not_yet, 0},
    {"reduce_or", "*args", not_yet, 0},
    {"atomic_load", "*args", not_yet, 0},
    {"atomic_store", "*args", not_yet, 0},
    {"atomic_poll", "*args", not_yet, 0},
    {"expect_zero", "*args", not_yet, 0},
    {"load_tensor_descriptor", "*args", not_yet, 0},
    {"store_tensor_descriptor", "*args", not_yet, 0},
};
const size_t builtins_memory_count = sizeof builtins_memory / sizeof *builtins_memory;
