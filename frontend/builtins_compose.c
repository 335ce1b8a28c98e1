/*
 * builtins_compose.c — builtins made of other operations, as Triton makes
 * them: tl.sort, tl.topk, tl.bitonic_merge and tl.flip as networks of
 * compare-and-swaps and exchanges over reshaped tensors, tl.gather and
 * tl.histogram as one-hot comparisons reduced, tl.swizzle2d as the index
 * arithmetic it is.
 */
#include "builtins.h"

static void arange_attrs(TNode *t, int64_t n) {
  t->attrs.has |= CA_RANGE;
  t->attrs.start = 0;
  t->attrs.end = n;
}

/* ---- sort and flip: networks of compare-and-swaps and exchanges --------------------
 * Built from the ops above, as Triton builds them in its standard library:
 * a round pairs the elements of the last dimension 2^k apart, by viewing
 * the block as [rows, 2, 2^k] and reading each element's partner as the
 * xor of the pair's bits (an xor_sum over the middle dimension) with its own. */

static TNode *reshaped(Sema *S, Node *call, TNode *e, int r, const int64_t *shape) {
  return emit_call(S, call, CALL_reshape, ty_block(S->tc, ty_elem(e->type), r, shape), &e, 1);
}

static TNode *bitcast_to(Sema *S, Node *call, TNode *e, const Type *el) {
  if (ty_elem(e->type) == el) return e;
  TNode *t = tnode(S, T_BITCAST, call, ty_with_elem(S->tc, e->type, el));
  t->a = e;
  return t;
}

/* e computed once, in a temporary (a name no kernel can spell, "$" then
 * `what` and a number): its uses read the temporary, where a shared
 * subtree would be emitted at each use. */
TNode *bi_keep(Sema *S, Node *call, TNode *e, const char *what) {
  StrBuf sb = {.arena = S->a};
  sb_printf(&sb, "$%s%d", what, S->ntemps++);
  return bi_rt(S, call, sema_read_val(S, call, sema_store_rt(S, call, sb.s, e)));
}

TNode *bi_bin(Sema *S, Node *call, Op op, TNode *a, TNode *b) { return binary_op(S, call, op, val_rt(S, a), val_rt(S, b))->e; }

static TNode *keep(Sema *S, Node *call, TNode *e) { return bi_keep(S, call, e, "net"); }

/* A block of x's shape viewed as [numel / 2^(k+1), 2, 2^k], with each
 * element's partner (2^k away along the last dimension) beside it, and the
 * position in the pair (0 first, 1 second). */
typedef struct Pairs {
  TNode *x, *partner, *second;
  int64_t shape[3];
} Pairs;

static Pairs pairs_of(Sema *S, Node *call, TNode *x, int k) {
  Pairs p;
  int64_t n = bi_numel(x->type);
  p.shape[0] = n >> (k + 1), p.shape[1] = 2, p.shape[2] = (int64_t)1 << k;
  const Type *it = ty_scalar(S->tc, dtype_bits(ty_elem(x->type)->dtype) == 64 ? DT_I64 : dtype_bits(ty_elem(x->type)->dtype) == 32 ? DT_I32
                                    : dtype_bits(ty_elem(x->type)->dtype) == 16 ? DT_I16 : DT_I8);
  if (ty_elem(x->type)->dtype == DT_I1) it = ty_scalar(S->tc, DT_I1);
  p.x = keep(S, call, reshaped(S, call, x, 3, p.shape));
  TNode *bits = keep(S, call, bitcast_to(S, call, p.x, it));
  TNode *both = broadcast_to_shape(S, call, bi_reduce_node(S, call, RK_xor, bits, 1, true, it), bits->type);
  p.partner = keep(S, call, bitcast_to(S, call, bi_bin(S, call, TK_CARET, bits, both), ty_elem(x->type)));
  int64_t two = 2, col[3] = {1, 2, 1};
  TNode *r = emit_call(S, call, CALL_arange, check_block_shape(S, call, bi_I32(S), 1, &two), NULL, 0);
  arange_attrs(r, 2);
  p.second = broadcast_to_shape(S, call, reshaped(S, call, r, 3, col), p.x->type);
  return p;
}

/* One compare-and-swap round, partners 2^k apart: the first of a pair keeps
 * the smaller, the second the larger, or the other way where desc (x's
 * shape, or NULL for all ascending) is 1. */
static TNode *compare_swap(Sema *S, Node *call, TNode *x, TNode *desc, int k) {
  Pairs p = pairs_of(S, call, x, k);
  TNode *dir = p.second;
  if (desc) dir = bi_bin(S, call, TK_CARET, dir, reshaped(S, call, desc, 3, p.shape));
  TNode *cond = bi_bin(S, call, TK_NE, bi_bin(S, call, TK_GT, p.x, p.partner), dir);
  TNode *t = tnode(S, T_SELECT, call, p.x->type);
  t->c = cond, t->a = p.partner, t->b = p.x;
  return keep(S, call, reshaped(S, call, t, x->type->rank, x->type->shape));
}

static int log2_of(int64_t n) {
  int k = 0;
  while (((int64_t)1 << k) < n) k++;
  return k;
}

static int last_dim(Sema *S, Node *call, TNode *e, Val *dim) {
  int r = e->type->rank;
  int d = val_is_none(dim) ? r - 1 : bi_norm_axis(S, call, dim, e->type, false);
  if (d != r - 1) sema_error(S, call, "%s supports only the last dimension (%d), got %d", bi_cur(S), r - 1, d);
  return d;
}

/* One bitonic merge of runs of 2^stage along the last dimension: stage
 * rounds of compare-and-swaps, partners 2^(stage-1), ..., 1 apart, each run
 * ascending (order 0), descending (1), or alternating with the bit `stage`
 * of the index (2), as Triton's hypercube merge orders them. */
enum { ASCENDING, DESCENDING, ALTERNATING };

static TNode *merge(Sema *S, Node *call, TNode *x, int stage, int order) {
  const Type *it = ty_with_elem(S->tc, x->type, bi_I32(S));
  TNode *desc = NULL;
  if (order == ALTERNATING) {
    int64_t n = x->type->shape[x->type->rank - 1];
    TNode *idx = emit_call(S, call, CALL_arange, check_block_shape(S, call, bi_I32(S), 1, &n), NULL, 0);
    arange_attrs(idx, n);
    TNode *bit = bi_bin(S, call, TK_AMP, bi_bin(S, call, TK_SHR, idx, to_rt(S, call, val_const(S, cv_int(S, stage)))), to_rt(S, call, val_const(S, cv_int(S, 1))));
    desc = keep(S, call, broadcast_to_shape(S, call, bit, it));
  } else if (order == DESCENDING) {
    desc = broadcast_to_shape(S, call, to_rt(S, call, val_const(S, cv_int(S, 1))), it);
  }
  for (int k = stage - 1; k >= 0; k--) x = compare_swap(S, call, x, desc, k);
  return x;
}

static TNode *sortable(Sema *S, Node *call, Val *v, Val *dim, const char *what) {
  TNode *x = keep(S, call, bi_block_input(S, call, v));
  last_dim(S, call, x, dim);
  if (ty_is_ptr(x->type)) sema_error(S, call, "%s cannot order pointers", what);
  return x;
}

/* sort(x, dim=None, descending=False): Triton's bitonic sort along the last
 * dimension. Stage s (1..log2 n) merges runs of 2^s, each run's direction
 * the bit s of the index (the last stage: all one way). */
HANDLER(sort) {
  (void)nargs;
  TNode *x = sortable(S, call, A(0), A(1), "tl.sort");
  bool descending = !val_is_none(A(2)) && const_bool(S, call, A(2), "descending");
  int nd = log2_of(x->type->shape[x->type->rank - 1]);
  for (int stage = 1; stage <= nd; stage++) x = merge(S, call, x, stage, stage < nd ? ALTERNATING : descending ? DESCENDING : ASCENDING);
  return val_rt(S, x);
}

/* topk(x, k, dim=None, descending=True): the k largest (smallest) elements
 * of the last dimension, in order, by Triton's bitonic top-k: sort runs of
 * k, then repeatedly keep the larger (smaller) of each pair of runs -- a
 * max over the bit log2 k of the index halves the dimension -- and merge
 * the runs again, until k are left. */
HANDLER(topk) {
  (void)nargs;
  TNode *x = sortable(S, call, A(0), A(2), "tl.topk");
  int64_t k = const_int(S, call, A(1), "k");
  bool descending = val_is_none(A(3)) || const_bool(S, call, A(3), "descending");
  int r = x->type->rank;
  int64_t n = x->type->shape[r - 1];
  if (k <= 0 || (k & (k - 1))) sema_error(S, call, "tl.topk's k must be a power of 2 greater than 0, got %lld", (long long)k);
  if (k > n) sema_error(S, call, "tl.topk's k (%lld) must not exceed the size of the last dimension (%lld)", (long long)k, (long long)n);
  ReduceKind best = descending ? RK_max : RK_min;
  int log_n = log2_of(n), log_k = log2_of(k);
  if (log_k == 0) return val_rt(S, bi_reduce_node(S, call, best, x, r - 1, true, ty_elem(x->type)));
  for (int stage = 1; stage <= log_k; stage++) x = merge(S, call, x, stage, stage < log_n ? ALTERNATING : descending ? DESCENDING : ASCENDING);
  for (int i = log_k + 1; i <= log_n; i++) {
    int64_t runs[3] = {bi_numel(x->type) >> (log_k + 1), 2, k}, shape[MAX_RANK];
    TNode *halves = bi_reduce_node(S, call, best, reshaped(S, call, x, 3, runs), 1, false, ty_elem(x->type));
    memcpy(shape, x->type->shape, sizeof shape);
    shape[r - 1] /= 2;
    x = keep(S, call, reshaped(S, call, halves, r, shape));
    x = merge(S, call, x, log_k, i < log_n ? ALTERNATING : descending ? DESCENDING : ASCENDING);
  }
  return val_rt(S, x);
}

/* bitonic_merge(x, dim=None, descending=False): one merge of the whole last
 * dimension, which must hold a bitonic sequence (an ascending run then a
 * descending one, as tl.maximum of a sorted and a reverse-sorted block
 * gives): the result is sorted. */
HANDLER(bitonic_merge) {
  (void)nargs;
  TNode *x = sortable(S, call, A(0), A(1), "tl.bitonic_merge");
  bool descending = !val_is_none(A(2)) && const_bool(S, call, A(2), "descending");
  return val_rt(S, merge(S, call, x, log2_of(x->type->shape[x->type->rank - 1]), descending ? DESCENDING : ASCENDING));
}

/* flip(x, dim=None): the last dimension reversed, by exchanging the
 * partners of every distance (reversing n = 2^m indices flips all m bits). */
HANDLER(flip) {
  (void)nargs;
  TNode *x = keep(S, call, bi_block_input(S, call, A(0)));
  int nd = log2_of(x->type->shape[last_dim(S, call, x, A(1))]);
  for (int k = 0; k < nd; k++) x = keep(S, call, reshaped(S, call, pairs_of(S, call, x, k).partner, x->type->rank, x->type->shape));
  return val_rt(S, x);
}

/* ---- gather and histogram: one-hot comparisons reduced ------------------------------ */

static TNode *expanded(Sema *S, Node *call, TNode *e, int ax) {
  int rank = e->type->rank;
  if (rank + 1 > MAX_RANK) sema_error(S, call, "%s of a block of rank %d needs rank %d, and blocks of rank above %d are not supported yet", bi_cur(S), rank, rank + 1, MAX_RANK);
  int64_t shape[MAX_RANK];
  for (int k = 0, s = 0; k < rank + 1; k++) shape[k] = k == ax ? 1 : e->type->shape[s++];
  TNode *x = tnode(S, T_EXPAND_DIMS, call, ty_block(S->tc, ty_elem(e->type), rank + 1, shape));
  x->a = e;
  x->axis = ax;
  return x;
}

/* arange(0, n) along dim d of a block of rank r (1 elsewhere). */
static TNode *range_along(Sema *S, Node *call, int64_t n, int d, int r) {
  TNode *t = emit_call(S, call, CALL_arange, check_block_shape(S, call, bi_I32(S), 1, &n), NULL, 0);
  arange_attrs(t, n);
  int64_t shape[MAX_RANK];
  for (int k = 0; k < r; k++) shape[k] = k == d ? n : 1;
  return r == 1 ? t : reshaped(S, call, t, r, shape);
}

/* gather(src, index, axis): out[.., i, ..] = src[.., index[.., i, ..], ..]
 * along axis, index of src's rank and shape but along axis. Each output
 * element compares its index with every position of src along axis and
 * keeps the bits of the one it names (an out-of-range index gives 0). */
HANDLER(gather) {
  (void)nargs;
  TNode *src = bi_block_input(S, call, A(0)), *index = bi_block_input(S, call, A(1));
  int r = src->type->rank;
  int ax = bi_norm_axis(S, call, A(2), src->type, false);
  if (!ty_is_int(index->type)) sema_error(S, call, "tl.gather's index must be integers, got %s", ty_str(S->a, index->type));
  if (index->type->rank != r) sema_error(S, call, "tl.gather's index must have the rank of src (%d), got %s", r, ty_str(S->a, index->type));
  for (int d = 0; d < r; d++)
    if (d != ax && index->type->shape[d] != src->type->shape[d])
      sema_error(S, call, "tl.gather's index must have the shape of src but along axis %d: %s and %s", ax, ty_str(S->a, src->type),
                 ty_str(S->a, index->type));
  if (ty_is_ptr(src->type)) sema_error(S, call, "tl.gather cannot gather pointers");
  DType sd = ty_elem(src->type)->dtype;
  int bits = dtype_bits(sd);
  const Type *it = ty_scalar(S->tc, sd == DT_I1 ? DT_I1 : bits == 64 ? DT_I64 : bits == 32 ? DT_I32 : bits == 16 ? DT_I16 : DT_I8);
  TNode *eq = bi_bin(S, call, TK_EQ, expanded(S, call, index, ax + 1), range_along(S, call, src->type->shape[ax], ax + 1, r + 1));
  TNode *sb = expanded(S, call, bitcast_to(S, call, src, it), ax);
  const Type *shape = broadcast_shapes(S, call, eq->type, sb->type);
  TNode *pick = tnode(S, T_SELECT, call, ty_with_elem(S->tc, shape, it));
  pick->c = broadcast_to_shape(S, call, eq, shape);
  pick->a = broadcast_to_shape(S, call, sb, shape);
  pick->b = broadcast_to_shape(S, call, to_rt_typed(S, call, val_const(S, cv_int(S, 0)), it), shape);
  return val_rt(S, bitcast_to(S, call, bi_reduce_node(S, call, RK_xor, pick, ax + 1, false, it), ty_elem(src->type)));
}

/* histogram(input, num_bins, mask=None): int32 counts of the values 0 ..
 * num_bins - 1 in a 1-D block (values outside count nowhere). */
HANDLER(histogram) {
  TNode *x = bi_block_input(S, call, A(0));
  if (x->type->rank != 1 || !ty_is_int(x->type)) sema_error(S, call, "tl.histogram expects a 1-D block of integers, got %s", ty_str(S->a, x->type));
  int64_t bins = const_int(S, call, A(1), "num_bins");
  if (bins < 1 || (bins & (bins - 1))) sema_error(S, call, "tl.histogram's num_bins must be a power of 2, got %lld", (long long)bins);
  TNode *eq = bi_bin(S, call, TK_EQ, expanded(S, call, x, 1), range_along(S, call, bins, 1, 2));
  if (nargs > 2 && !val_is_none(A(2))) {
    TNode *m = bi_rt(S, call, A(2));
    if (ty_elem(m->type)->dtype != DT_I1 || m->type->kind != TY_BLOCK || m->type->rank != 1 || m->type->shape[0] != x->type->shape[0])
      sema_error(S, call, "tl.histogram's mask must be booleans of the input's shape, got %s", ty_str(S->a, m->type));
    eq = bi_bin(S, call, TK_AMP, eq, expanded(S, call, m, 1));
  }
  return val_rt(S, bi_reduce_node(S, call, RK_sum, cast_to(S, call, eq, bi_I32(S)), 0, false, bi_I32(S)));
}

/* ---- swizzle2d: index arithmetic ------------------------------------------------------ */

/* swizzle2d(i, j, size_i, size_j, size_g): the row-major index (i, j) of a
 * size_i x size_j grid renumbered column-major within each group of size_g
 * rows (the last group may be shorter), as Triton's standard library
 * computes it; constants fold, blocks and scalars broadcast. */
HANDLER(swizzle2d) {
  (void)nargs;
  Val *i = A(0), *j = A(1), *size_i = A(2), *size_j = A(3), *size_g = A(4);
  Val *ij = binary_op(S, call, TK_PLUS, binary_op(S, call, TK_STAR, i, size_j), j);
  Val *size_gj = binary_op(S, call, TK_STAR, size_g, size_j);
  Val *off_i = binary_op(S, call, TK_STAR, binary_op(S, call, TK_DSLASH, ij, size_gj), size_g);
  Args min_args = {.pos = (Val *[]){binary_op(S, call, TK_MINUS, size_i, off_i), size_g}, .npos = 2};
  Val *rows = builtin_call(S, call, builtin_find("minimum"), NULL, &min_args);
  Val *in_group = binary_op(S, call, TK_PERCENT, ij, size_gj);
  Val **ret = arena_alloc(S->a, sizeof(Val *) * 3);
  ret[0] = binary_op(S, call, TK_PLUS, off_i, binary_op(S, call, TK_PERCENT, in_group, rows));
  ret[1] = binary_op(S, call, TK_DSLASH, in_group, rows);
  return sema_tuple_of(S, call, ret, 2);
}

/* ---- Triton's functional spellings ------------------------------------------------- */

/* add/sub/mul(x, y, sanitize_overflow=True): the operators (tilec's integer
 * arithmetic wraps, as Triton's does without its overflow sanitizer). */
static Val *functional(Sema *S, Node *call, Val **args, Op op) {
  if (args[2] && !val_is_none(args[2])) const_bool(S, call, args[2], "sanitize_overflow");
  return binary_op(S, call, op, args[0], args[1]);
}
HANDLER(fn_add) { (void)nargs; return functional(S, call, args, TK_PLUS); }
HANDLER(fn_sub) { (void)nargs; return functional(S, call, args, TK_MINUS); }
HANDLER(fn_mul) { (void)nargs; return functional(S, call, args, TK_STAR); }

/* squeeze(x, dim): the length-1 dimension dim removed; unsqueeze(x, dim):
 * one inserted (expand_dims), as Triton's standard library defines them. */
HANDLER(squeeze) {
  (void)nargs;
  TNode *x = bi_block_input(S, call, A(0));
  int d = bi_norm_axis(S, call, A(1), x->type, false);
  if (x->type->shape[d] != 1) sema_error(S, call, "tl.squeeze: dimension %d of %s is not 1", d, ty_str(S->a, x->type));
  int64_t shape[MAX_RANK];
  int r = 0;
  for (int k = 0; k < x->type->rank; k++)
    if (k != d) shape[r++] = x->type->shape[k];
  if (!r) sema_error(S, call, "tl.squeeze of a block of one dimension would give a scalar; index it instead");
  return val_rt(S, reshaped(S, call, x, r, shape));
}
HANDLER(unsqueeze) {
  (void)nargs;
  Args a = {.pos = (Val *[]){A(0), A(1)}, .npos = 2};
  return builtin_call(S, call, builtin_find("expand_dims"), NULL, &a);
}

/* ---- the table ------------------------------------------------------------------ */

const Builtin builtins_compose[] = {
    {"sort", "x,dim=,descending=", sort, B_METHOD},
    {"topk", "x,k,dim=,descending=", topk, 0},
    {"bitonic_merge", "x,dim=,descending=", bitonic_merge, 0},
    {"flip", "x,dim=", flip, B_METHOD},
    {"gather", "src,index,axis", gather, 0},
    {"add", "x,y,sanitize_overflow=", fn_add, 0},
    {"sub", "x,y,sanitize_overflow=", fn_sub, 0},
    {"mul", "x,y,sanitize_overflow=", fn_mul, 0},
    {"squeeze", "x,dim", squeeze, 0},
    {"unsqueeze", "x,dim", unsqueeze, 0},
    {"swizzle2d", "i,j,size_i,size_j,size_g", swizzle2d, 0},
    {"histogram", "input,num_bins,mask=", histogram, B_METHOD},
};
const size_t builtins_compose_count = sizeof builtins_compose / sizeof *builtins_compose;
