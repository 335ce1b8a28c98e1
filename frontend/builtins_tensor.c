/*
 * builtins_tensor.c — reductions and scans, shape operations, and hints and
 * debugging (assume, multiple_of, static and device print and assert).
 */
#include "builtins.h"

/* ---- reductions and scans ---------------------------------------------------- */

int bi_norm_axis(Sema *S, Node *call, Val *axis, const Type *t, bool allow_none) {
  if (val_is_none(axis)) {
    if (!allow_none) sema_error(S, call, "%s needs an axis", bi_cur(S));
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

/* The attributes of a tl.arange(0, n). */
/* The attributes of a reduce or scan. */
static void reduce_attrs(TNode *t, ReduceKind kind, int axis, bool keep) {
  t->attrs.has |= CA_REDUCE | CA_AXIS;
  t->attrs.reduce = kind;
  t->attrs.axis = axis;
  t->attrs.keep_dims = keep;
}

TNode *bi_reduce_node(Sema *S, Node *call, ReduceKind kind, TNode *in, int axis, bool keep, const Type *elem) {
  TNode *t = emit_call(S, call, CALL_reduce, reduced_type(S, in->type, elem, axis, keep), &in, 1);
  reduce_attrs(t, kind, axis, keep);
  return t;
}

static bool keep_dims(Sema *S, Node *call, Val *v) { return !val_is_none(v) && const_bool(S, call, v, "keep_dims"); }

static TNode *reduce_input(Sema *S, Node *call, Val *v) {
  TNode *e = bi_rt(S, call, v);
  if (e->type->kind != TY_BLOCK) sema_error(S, call, "%s expects a block, got %s", bi_cur(S), ty_str(S->a, e->type));
  if (ty_is_ptr(e->type)) sema_error(S, call, "%s cannot reduce pointers", bi_cur(S));
  return e;
}


/* sum(input, axis=None, keep_dims=False, dtype=None) */
HANDLER(sum) {
  (void)nargs;
  TNode *e = reduce_input(S, call, A(0));
  int axis = bi_norm_axis(S, call, A(1), e->type, true);
  const Type *el = ty_elem(e->type);
  if (!val_is_none(A(3))) el = const_dtype(S, call, A(3), "dtype");
  else if (dtype_is_int(el->dtype) && dtype_bits(el->dtype) < 32)
    el = ty_scalar(S->tc, dtype_is_signed(el->dtype) || el->dtype == DT_I1 ? DT_I32 : DT_U32);
  e = cast_to(S, call, e, el);
  return val_rt(S, bi_reduce_node(S, call, RK_sum, e, axis, keep_dims(S, call, A(2)), el));
}

HANDLER(xor_sum) {
  (void)nargs;
  TNode *e = reduce_input(S, call, A(0));
  bi_need_int(S, call, e);
  int axis = bi_norm_axis(S, call, A(1), e->type, true);
  return val_rt(S, bi_reduce_node(S, call, RK_xor, e, axis, keep_dims(S, call, A(2)), ty_elem(e->type)));
}

/* max/min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False) */
static Val *maxmin(Sema *S, Node *call, Val **args, int nargs, bool is_max) {
  (void)nargs;
  TNode *e = reduce_input(S, call, A(0));
  int axis = bi_norm_axis(S, call, A(1), e->type, true);
  bool keep = keep_dims(S, call, A(4));
  bool with_idx = !val_is_none(A(2)) && const_bool(S, call, A(2), "return_indices");
  if (!with_idx) return val_rt(S, bi_reduce_node(S, call, is_max ? RK_max : RK_min, e, axis, keep, ty_elem(e->type)));
  if (axis < 0 && e->type->rank > 1) sema_error(S, call, "%s with return_indices needs an axis for blocks of rank > 1", bi_cur(S));
  if (axis < 0) axis = 0;
  bool left = val_is_none(A(3)) || const_bool(S, call, A(3), "return_indices_tie_break_left");
  TNode *t = emit_call(S, call, CALL_reduce, NULL, &e, 1);
  reduce_attrs(t, is_max ? RK_max_with_index : RK_min_with_index, axis, keep);
  t->attrs.tie_break_left = left;
  t->nres = 2;
  t->res_types = arena_alloc(S->a, sizeof(Type *) * 2);
  t->res_types[0] = reduced_type(S, e->type, ty_elem(e->type), axis, keep);
  t->res_types[1] = reduced_type(S, e->type, bi_I32(S), axis, keep);
  t->type = t->res_types[0];
  return bi_multi_result(S, call, t, 2);
}

HANDLER(max_) { return maxmin(S, call, args, nargs, true); }
HANDLER(min_) { return maxmin(S, call, args, nargs, false); }

/* argmax/argmin(input, axis, tie_break_left=True, keep_dims=False) */
static Val *argmaxmin(Sema *S, Node *call, Val **args, int nargs, ReduceKind kind) {
  (void)nargs;
  TNode *e = reduce_input(S, call, A(0));
  int axis = bi_norm_axis(S, call, A(1), e->type, false);
  bool keep = keep_dims(S, call, A(3));
  bool left = val_is_none(A(2)) || const_bool(S, call, A(2), "tie_break_left");
  TNode *t = bi_reduce_node(S, call, kind, e, axis, keep, bi_I32(S));
  t->attrs.tie_break_left = left;
  return val_rt(S, t);
}
HANDLER(argmax) { return argmaxmin(S, call, args, nargs, RK_argmax); }
HANDLER(argmin) { return argmaxmin(S, call, args, nargs, RK_argmin); }

/* Inlines a combine function over scalars of the given element types; the
 * statements go into region, the results into results. */
static void combine_region(Sema *S, Node *call, Val *fn, const Type **elems, int n, TNode *t) {
  if (fn->kind != V_FUNC) sema_error(S, call, "%s needs a @triton.jit combine function, got %s", bi_cur(S), val_desc(S, fn));
  JitFunc *f = fn->fn;
  Node *fdef = sema_func_def(S, f);
  if (fdef->kids.n != 2 * n)
    sema_error(S, call, "combine function '%s' must take %d parameters (two per input), it takes %d", f->name, 2 * n, fdef->kids.n);
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
    if (v->n > 8) sema_error(S, call, "%s supports at most 8 inputs", bi_cur(S));
    for (int i = 0; i < v->n; i++) out[i] = reduce_input(S, call, v->elems[i]);
    for (int i = 1; i < v->n; i++)
      if (out[i]->type->rank != out[0]->type->rank || memcmp(out[i]->type->shape, out[0]->type->shape, sizeof(int64_t) * (size_t)out[0]->type->rank))
        sema_error(S, call, "%s inputs must have one shape", bi_cur(S));
    return v->n;
  }
  out[0] = reduce_input(S, call, v);
  return 1;
}

Val *bi_multi_result(Sema *S, Node *call, TNode *t, int n) {
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
    v->name = arena_printf(S->a, "%s.%d", call_kind_name(t->callee), S->k->nvars);
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
  int axis = bi_norm_axis(S, call, A(1), in[0]->type, true);
  bool keep = keep_dims(S, call, A(3));
  const Type *elems[8];
  for (int i = 0; i < n; i++) elems[i] = ty_elem(in[i]->type);
  TNode *t = emit_call(S, call, CALL_reduce, NULL, in, n);
  reduce_attrs(t, RK_combine, axis, keep);
  t->nres = n;
  t->res_types = arena_alloc(S->a, sizeof(Type *) * (size_t)n);
  for (int i = 0; i < n; i++) t->res_types[i] = reduced_type(S, in[i]->type, elems[i], axis, keep);
  t->type = t->res_types[0];
  combine_region(S, call, A(2), elems, n, t);
  return bi_multi_result(S, call, t, n);
}

/* associative_scan(input, axis, combine_fn, reverse=False) */
HANDLER(associative_scan) {
  (void)nargs;
  TNode *in[8];
  int n = unpack_inputs(S, call, A(0), in);
  int axis = bi_norm_axis(S, call, A(1), in[0]->type, false);
  const Type *elems[8];
  for (int i = 0; i < n; i++) elems[i] = ty_elem(in[i]->type);
  TNode *t = emit_call(S, call, CALL_scan, NULL, in, n);
  reduce_attrs(t, RK_combine, axis, false);
  t->attrs.reverse = !val_is_none(A(3)) && const_bool(S, call, A(3), "reverse");
  t->nres = n;
  t->res_types = arena_alloc(S->a, sizeof(Type *) * (size_t)n);
  for (int i = 0; i < n; i++) t->res_types[i] = in[i]->type;
  t->type = t->res_types[0];
  combine_region(S, call, A(2), elems, n, t);
  return bi_multi_result(S, call, t, n);
}

/* cumsum/cumprod(input, axis=0, reverse=False, dtype=None) */
static Val *cumulative(Sema *S, Node *call, Val **args, int nargs, ReduceKind kind) {
  (void)nargs;
  TNode *e = reduce_input(S, call, A(0));
  int axis = val_is_none(A(1)) ? 0 : bi_norm_axis(S, call, A(1), e->type, false);
  const Type *el = ty_elem(e->type);
  if (nargs > 3 && !val_is_none(A(3))) el = const_dtype(S, call, A(3), "dtype");
  else if (dtype_is_int(el->dtype) && dtype_bits(el->dtype) < 32)
    el = ty_scalar(S->tc, dtype_is_signed(el->dtype) || el->dtype == DT_I1 ? DT_I32 : DT_U32);
  e = cast_to(S, call, e, el);
  TNode *t = emit_call(S, call, CALL_scan, e->type, &e, 1);
  reduce_attrs(t, kind, axis, false);
  t->attrs.reverse = !val_is_none(A(2)) && const_bool(S, call, A(2), "reverse");
  return val_rt(S, t);
}
HANDLER(cumsum) { return cumulative(S, call, args, nargs, RK_sum); }
HANDLER(cumprod) { return cumulative(S, call, args, nargs, RK_prod); }

/* softmax(x, dim=None, keep_dims=False, ieee_rounding=False) */
HANDLER(softmax) {
  (void)nargs;
  TNode *e = reduce_input(S, call, A(0));
  bi_need_float(S, call, e);
  int axis = val_is_none(A(1)) ? 0 : bi_norm_axis(S, call, A(1), e->type, false);
  TNode *t = emit_call(S, call, CALL_softmax, e->type, &e, 1);
  t->attrs.has |= CA_AXIS;
  t->attrs.axis = axis;
  t->attrs.ieee_rounding = !val_is_none(A(3)) && const_bool(S, call, A(3), "ieee_rounding");
  return val_rt(S, t);
}

HANDLER(sigmoid) {
  (void)nargs;
  TNode *e = bi_rt(S, call, A(0));
  bi_need_float(S, call, e);
  return val_rt(S, emit_call(S, call, CALL_sigmoid, e->type, &e, 1));
}

/* ---- shapes ------------------------------------------------------------------ */

TNode *bi_block_input(Sema *S, Node *call, Val *v) {
  TNode *e = bi_rt(S, call, v);
  if (e->type->kind != TY_BLOCK) sema_error(S, call, "%s expects a block, got %s", bi_cur(S), ty_str(S->a, e->type));
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
  TNode *e = bi_rt(S, call, A(0));
  int64_t shape[MAX_RANK + 1];
  int r = vararg_ints(S, call, A(1), shape, "the shape");
  const Type *target = check_block_shape(S, call, ty_elem(e->type), r, shape);
  return val_rt(S, broadcast_to_shape(S, call, e, target));
}

HANDLER(broadcast) {
  (void)nargs;
  TNode *a = bi_rt(S, call, A(0)), *b = bi_rt(S, call, A(1));
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
  TNode *e = bi_rt(S, call, A(0));
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

int64_t bi_numel(const Type *t) {
  int64_t n = 1;
  for (int i = 0; t->kind == TY_BLOCK && i < t->rank; i++) n *= t->shape[i];
  return n;
}

/* reshape(input, *shape, can_reorder=False) / view(input, *shape) */
HANDLER(reshape) {
  (void)nargs;
  TNode *e = bi_rt(S, call, A(0));
  int64_t shape[MAX_RANK + 1];
  int r = vararg_ints(S, call, A(1), shape, "the shape");
  const Type *target = r ? check_block_shape(S, call, ty_elem(e->type), r, shape) : ty_elem(e->type);
  if (bi_numel(target) != bi_numel(e->type))
    sema_error(S, call, "cannot reshape %s to %s: element counts differ", ty_str(S->a, e->type), ty_str(S->a, target));
  TNode *t = emit_call(S, call, CALL_reshape, target, &e, 1);
  t->attrs.can_reorder = !strcmp(S->builtin->name, "view") || (nargs > 2 && !val_is_none(A(2)) && const_bool(S, call, A(2), "can_reorder"));
  return val_rt(S, t);
}

/* trans(input, *dims) / permute(input, *dims) */
HANDLER(trans) {
  (void)nargs;
  TNode *e = bi_block_input(S, call, A(0));
  int r = e->type->rank;
  int64_t perm[MAX_RANK + 1];
  int n = A(1) && !(A(1)->kind == V_CONST && A(1)->c->kind == CV_TUPLE && A(1)->c->nelems == 0)
              ? vararg_ints(S, call, A(1), perm, "the permutation") : 0;
  if (n == 0) {
    if (r != 2 && !strcmp(S->builtin->name, "trans")) sema_error(S, call, "tl.trans without dims needs a 2-D block, got %s", ty_str(S->a, e->type));
    if (strcmp(S->builtin->name, "trans")) sema_error(S, call, "tl.permute needs dims");
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
  TNode *t = emit_call(S, call, CALL_trans, ty_block(S->tc, e->type->elem, r, shape), &e, 1);
  for (int i = 0; i < n; i++) t->attrs.order.v[i] = (int32_t)perm[i];
  t->attrs.order.n = n;
  return val_rt(S, t);
}

HANDLER(cat) {
  (void)nargs;
  TNode *a = bi_block_input(S, call, A(0)), *b = bi_block_input(S, call, A(1));
  if (a->type != b->type) sema_error(S, call, "tl.cat needs two blocks of one type, got %s and %s", ty_str(S->a, a->type), ty_str(S->a, b->type));
  if (!(A(2) && !val_is_none(A(2)) && const_bool(S, call, A(2), "can_reorder")))
    sema_error(S, call, "tl.cat is only supported with can_reorder=True (as in Triton)");
  int64_t shape[MAX_RANK];
  memcpy(shape, a->type->shape, sizeof(int64_t) * (size_t)a->type->rank);
  shape[0] *= 2;
  TNode *ops[2] = {a, b};
  return val_rt(S, emit_call(S, call, CALL_cat, check_block_shape(S, call, a->type->elem, a->type->rank, shape), ops, 2));
}

HANDLER(join) {
  (void)nargs;
  TNode *a = bi_rt(S, call, A(0)), *b = bi_rt(S, call, A(1));
  Val *v[2] = {val_rt(S, a), val_rt(S, b)};
  if (A(0)->kind == V_CONST) v[0] = A(0);
  if (A(1)->kind == V_CONST) v[1] = A(1);
  TNode *ops[2];
  const Type *ty = bi_promote_all(S, call, v, ops, 2, false);
  int r = ty->kind == TY_BLOCK ? ty->rank : 0;
  int64_t shape[MAX_RANK];
  if (r == 0) {
    /* two scalars: joined as blocks of one, the <1x2> result reshaped to <2> (as Triton does) */
    int64_t one = 1, two = 2;
    const Type *b1 = ty_block(S->tc, ty_elem(ty), 1, &one);
    for (int i = 0; i < 2; i++) ops[i] = broadcast_to_shape(S, call, ops[i], b1);
    TNode *j = emit_call(S, call, CALL_join, check_block_shape(S, call, ty_elem(ty), 2, (int64_t[]){1, 2}), ops, 2);
    return val_rt(S, emit_call(S, call, CALL_reshape, ty_block(S->tc, ty_elem(ty), 1, &two), &j, 1));
  }
  for (int i = 0; i < r; i++) shape[i] = ty->shape[i];
  shape[r] = 2;
  return val_rt(S, emit_call(S, call, CALL_join, check_block_shape(S, call, ty_elem(ty), r + 1, shape), ops, 2));
}

/* interleave(a, b): Triton's join then reshape, the last dimension of n
 * pairs becoming 2n elements a0 b0 a1 b1 ...; two scalars give their join. */
HANDLER(interleave) {
  Val *j = join(S, call, args, nargs);
  TNode *c = bi_rt(S, call, j);
  int r = c->type->rank;
  if (r == 1) return j;
  int64_t shape[MAX_RANK];
  for (int i = 0; i < r - 2; i++) shape[i] = c->type->shape[i];
  shape[r - 2] = 2 * c->type->shape[r - 2];
  return val_rt(S, emit_call(S, call, CALL_reshape, ty_block(S->tc, c->type->elem, r - 1, shape), &c, 1));
}

/* ravel(x, can_reorder=False): x as one dimension. */
HANDLER(ravel) {
  (void)nargs;
  TNode *e = bi_block_input(S, call, A(0));
  int64_t n = bi_numel(e->type);
  TNode *t = emit_call(S, call, CALL_reshape, ty_block(S->tc, e->type->elem, 1, &n), &e, 1);
  if (!val_is_none(A(1)) && const_bool(S, call, A(1), "can_reorder")) t->attrs.can_reorder = true;
  return val_rt(S, t);
}

HANDLER(split) {
  (void)nargs;
  TNode *e = bi_block_input(S, call, A(0));
  int r = e->type->rank;
  if (e->type->shape[r - 1] != 2) sema_error(S, call, "tl.split needs a last dimension of 2, got %s", ty_str(S->a, e->type));
  const Type *half = ty_block(S->tc, e->type->elem, r - 1, e->type->shape);
  TNode *t = emit_call(S, call, CALL_split, half, &e, 1);
  t->nres = 2;
  t->res_types = arena_alloc(S->a, sizeof(Type *) * 2);
  t->res_types[0] = t->res_types[1] = half;
  return bi_multi_result(S, call, t, 2);
}

/* ---- hints and debugging ------------------------------------------------------- */

HANDLER(hint) {
  (void)nargs;
  TNode *e = bi_rt(S, call, A(0));
  if (!ty_is_int(e->type) && !ty_is_ptr(e->type)) sema_error(S, call, "%s applies to integers and pointers, got %s", bi_cur(S), ty_str(S->a, e->type));
  int64_t vals[MAX_RANK + 1];
  int n = const_int_list(S, call, A(1), vals, MAX_RANK, "values");
  int rank = e->type->kind == TY_BLOCK ? e->type->rank : 0;
  if (n != (rank ? rank : 1)) sema_error(S, call, "%s needs %d value%s for %s, got %d", bi_cur(S), rank ? rank : 1, rank > 1 ? "s" : "", ty_str(S->a, e->type), n);
  for (int i = 0; i < n; i++)
    if (vals[i] <= 0) sema_error(S, call, "%s values must be positive", bi_cur(S));
  TNode *t = emit_call(S, call, bi_call_kind(S), e->type, &e, 1);
  for (int i = 0; i < n; i++) t->attrs.values.v[i] = (int32_t)vals[i];
  t->attrs.values.n = n;
  return val_rt(S, t);
}

HANDLER(assume) {
  (void)nargs;
  Val *c = A(0);
  if (c->kind == V_CONST) {
    if (!const_bool(S, call, c, "the assumption")) sema_error(S, call, "tl.assume of a constexpr False");
    return bi_none(S);
  }
  TNode *e = bi_rt(S, call, c);
  if (ty_elem(e->type)->dtype != DT_I1 || e->type->kind == TY_BLOCK) sema_error(S, call, "tl.assume needs a boolean scalar, got %s", ty_str(S->a, e->type));
  bi_emit_expr_stmt(S, call, emit_call(S, call, CALL_assume, ty_void(S->tc), &e, 1));
  return bi_none(S);
}

HANDLER(static_assert_) {
  (void)nargs;
  Val *c = A(0);
  if (c->kind != V_CONST) sema_error(S, call, "tl.static_assert needs a constexpr condition, got %s", val_desc(S, c));
  if (!const_bool(S, call, c, "the condition")) {
    const char *msg = val_is_none(A(1)) ? "" : const_str(S, call, A(1), "the message");
    sema_error(S, call, "static assertion failed%s%s", *msg ? ": " : "", msg);
  }
  return bi_none(S);
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
  return bi_none(S);
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
    ops[n++] = bi_rt(S, call, x);
  }
  TNode *t = emit_call(S, call, CALL_device_print, ty_void(S->tc), ops, n);
  t->attrs.prefix = prefix;
  t->attrs.hex = !val_is_none(A(2)) && const_bool(S, call, A(2), "hex");
  bi_emit_expr_stmt(S, call, t);
  return bi_none(S);
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
    return bi_none(S);
  }
  TNode *e = bi_rt(S, call, c);
  if (!ty_is_int(e->type)) sema_error(S, call, "device_assert needs a boolean condition, got %s", ty_str(S->a, e->type));
  e = cast_to(S, call, e, bi_I1(S));
  TNode *t = emit_call(S, call, CALL_device_assert, ty_void(S->tc), &e, 1);
  t->attrs.msg = msg;
  bi_emit_expr_stmt(S, call, t);
  return bi_none(S);
}

/* tl.extra.cuda.gdc_wait() / gdc_launch_dependents(): programmatic dependent
 * launch. On sm_90 and later, griddepcontrol.wait (this grid waits for the one
 * before it to finish or let it go) and griddepcontrol.launch_dependents
 * (the next grid may start); nothing on targets without them, where grids
 * run in order anyway. */
static Val *gdc(Sema *S, Node *call, const char *kind) {
  TNode *t = emit_call(S, call, CALL_gdc, ty_void(S->tc), NULL, 0);
  t->attrs.kind = kind;
  bi_emit_expr_stmt(S, call, t);
  return bi_none(S);
}
HANDLER(gdc_wait) {
  (void)args, (void)nargs;
  return gdc(S, call, "wait");
}
HANDLER(gdc_launch_dependents) {
  (void)args, (void)nargs;
  return gdc(S, call, "launch_dependents");
}

HANDLER(debug_barrier) {
  (void)args, (void)nargs;
  bi_emit_expr_stmt(S, call, emit_call(S, call, CALL_debug_barrier, ty_void(S->tc), NULL, 0));
  return bi_none(S);
}

/* ---- the table ------------------------------------------------------------------ */

const Builtin builtins_tensor[] = {
    {"py.print", "*args", py_print, 0},
    {"sigmoid", "x", sigmoid, B_MATH | B_METHOD},
    {"softmax", "x,dim=,keep_dims=,ieee_rounding=", softmax, B_MATH | B_METHOD},
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
    {"interleave", "a,b", interleave, 0},
    {"ravel", "x,can_reorder=", ravel, B_METHOD},
    {"split", "a", split, B_METHOD},
    {"multiple_of", "input,values", hint, 0},
    {"max_contiguous", "input,values", hint, 0},
    {"max_constancy", "input,values", hint, 0},
    {"assume", "cond", assume, 0},
    {"static_assert", "cond,msg=", static_assert_, 0},
    {"static_print", "*values", static_print, 0},
    {"device_print", "prefix,*args,hex=", device_print, 0},
    {"device_assert", "cond,msg=", device_assert, 0},
    {"debug_barrier", "", debug_barrier, 0},
    {"cuda.gdc_wait", "", gdc_wait, 0},
    {"cuda.gdc_launch_dependents", "", gdc_launch_dependents, 0},
};
const size_t builtins_tensor_count = sizeof builtins_tensor / sizeof *builtins_tensor;
