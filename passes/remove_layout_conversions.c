/*
 * remove_layout_conversions.c — fewer tile.convert_layout ops.
 *
 * Requires: tile IR with layouts. Guarantees: a conversion to the layout a
 * value already has is gone; a conversion of a conversion converts once; a
 * conversion of a value whose producers are cheap and layout-agnostic
 * (constants, ranges, splats, broadcasts, expand_dims, transposes, joins
 * whose pairs stay in each thread, and elementwise arithmetic over such
 * values, up to a small budget of ops, each value counted and recomputed
 * once however many of them read it) is replaced by recomputing those
 * producers in the target layout — rematerialization, as Triton does — so
 * that layouts chosen for memory ops propagate backward through the index
 * arithmetic that feeds them. A chain that ends at a value which cannot be
 * recomputed (a load, a reduction) is recomputed when one conversion of
 * that value replaces the conversion of its result, or two where the chain
 * holds per-row math libdevice computes and the target layout holds fewer
 * copies of each row (attention's m + log2(l) before its store). A value an scf.for
 * carries takes the layout its next value is computed in, when that
 * leaves no conversion in the loop. A dot's epilogue (elementwise ops on
 * its result) runs in its MMA layout, the conversion moved after it. Dead
 * originals are removed. A conversion to a tensor-core operand of a value
 * a loop does not compute moves before the loop (attention backward's K
 * and V tiles, forward's Q): lowered, it writes the operand's shared buffer
 * once and each iteration reads it by ldmatrix, as Triton's LICM leaves
 * the local_alloc before the loop, instead of writing it again in each
 * iteration from registers held across the loop (tl.range(...,
 * disable_licm=True) keeps it where it is; and a compilation whose
 * buffers then take more shared memory than the target has is run again
 * without it: Compilation.keep_operands).
 */
#include "passes.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#define REMAT_BUDGET 24

typedef struct Remat {
  Compilation *comp;
  int changes;
  PtrVec converts;
} Remat;

static bool is_tensor(MlirValue v) { return mlirTypeIsARankedTensor(mlirValueGetType(v)); }

/* A load of fewer elements than the block has threads (the rows of a
 * block table, a few indices): loaded again in another layout, its few
 * addresses hit in the cache, where a conversion goes through shared
 * memory with barriers on both sides. Triton's rematerialization takes
 * such loads too. Not a volatile one, and not through a block pointer. */
static bool cheap_load(const Compilation *comp, MlirOperation op) {
  if (!op_is_plain_load(op) || mlirOperationGetNumResults(op) != 1) return false;
  MlirType p = mlirValueGetType(mlirOperationGetOperand(op, 0));
  if (!mlirTypeIsARankedTensor(p) || !mlirShapedTypeHasStaticShape(p)) return false;
  int64_t n = 1;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(p); d++) n *= mlirShapedTypeGetDimSize(p, d);
  return n < (int64_t)comp->num_warps * comp->threads_per_warp;
}

/* Layout-agnostic ops: their operands take the result's layout (or, for
 * expand_dims, its slice). */
static bool rematerializable(const Compilation *comp, MlirOperation op) {
  TileOp t = tile_op_of(op);
  if (cheap_load(comp, op)) return true;
  if ((mlirOperationGetNumResults(op) != 1 && t != TOP_philox) || mlirOperationGetNumRegions(op) > 0 || !op_is_pure(op))
    return false;
  if (t == TOP_make_range || t == TOP_splat || t == TOP_broadcast || t == TOP_expand_dims || t == TOP_addptr ||
      t == TOP_extern_elementwise || t == TOP_multiple_of || t == TOP_max_contiguous || t == TOP_max_constancy ||
      t == TOP_ptr_to_int || t == TOP_int_to_ptr || t == TOP_bitcast || t == TOP_convert_layout || t == TOP_trans ||
      t == TOP_join || t == TOP_mulhiui || t == TOP_philox)
    return true;
  return t == TOP_NONE; /* pure and not a tile op: arith.* and math.*, all elementwise */
}

/* Ops recomputed only where the original then goes away: Philox's rounds
 * or a libdevice call cost more than a conversion. */
static bool costly(MlirOperation op) {
  TileOp t = tile_op_of(op);
  return t == TOP_philox || t == TOP_extern_elementwise;
}

/* Whether v's one use is the only use of anything its op makes (of
 * Philox's four words, rand reads one): recomputed for that use, the
 * original goes away. */
static bool single_use(MlirValue v) {
  MlirOpOperand u = mlirValueGetFirstUse(v);
  if (mlirOpOperandIsNull(u) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(u))) return false;
  MlirOperation d = value_owner(v);
  for (intptr_t r = 0; !mlirOperationIsNull(d) && r < mlirOperationGetNumResults(d); r++) {
    MlirValue o = mlirOperationGetResult(d, r);
    if (!mlirValueEqual(o, v) && !mlirOpOperandIsNull(mlirValueGetFirstUse(o))) return false;
  }
  return true;
}

/* The layout operand i of op must have for op's result to be in `l`. */
static bool operand_layout(Compilation *comp, MlirOperation op, int i, const Layout *l, Layout *out) {
  TileOp t = tile_op_of(op);
  (void)i;
  if (t == TOP_expand_dims) {
    if (l->kind != L_BLOCKED && l->kind != L_MMA) return false;
    Layout *parent = arena_alloc(comp->a, sizeof *parent);
    *parent = *l;
    *out = (Layout){.kind = L_SLICE, .rank = l->rank - 1, .dim = (int)op_int_attr(op, "axis", 0), .parent = parent};
    return true;
  }
  if (t == TOP_trans) return trans_layout(op, l, false, out); /* the result's, dimensions permuted back */
  if (t == TOP_join) {
    /* a join moves no data when each thread holds both halves of its pairs */
    int last = l->rank - 1;
    if (l->kind != L_BLOCKED || l->spt[last] != 2 || l->tpw[last] != 1 || l->wpc[last] != 1 || l->order[0] != last)
      return false;
    *out = (Layout){.kind = L_BLOCKED, .rank = last};
    for (int d = 0; d < last; d++) {
      out->spt[d] = l->spt[d], out->tpw[d] = l->tpw[d], out->wpc[d] = l->wpc[d];
      out->order[d] = l->order[d + 1];
    }
    return true;
  }
  if (t == TOP_broadcast && l->kind != L_BLOCKED && l->kind != L_MMA) return false;
  *out = *l;
  return true;
}

/* One recomputation: what can_remat found and remat makes. Each value is
 * recomputed (or, at a leaf, converted) once, however many ops of the
 * slice read it, and counts once against the budget. A costly op is
 * recomputed only when every op that reads it is recomputed with it (its
 * original then goes away); else it is a leaf, converted (`forced`). */
typedef struct Query {
  Compilation *comp;
  MlirOperation user; /* the op the value is recomputed for */
  int budget, leaves;
  PtrMap seen;   /* value -> the Made list of layouts it is wanted in */
  PtrMap ops;    /* op -> op: the ops recomputed */
  PtrVec costly; /* costly ops in the slice */
  PtrMap forced; /* op -> op: costly ops left as leaves */
  PtrMap made;   /* value -> the Made list of its recomputations or conversions */
} Query;

/* A value in one layout, and what it is made as there. */
typedef struct Made {
  const Layout *layout;
  MlirValue r;
  struct Made *next;
} Made;

static Made *made_in(PtrMap *m, MlirValue v, const Layout *l) {
  for (Made *x = map_get(m, v.ptr); x; x = x->next)
    if (layout_equal(x->layout, l)) return x;
  return NULL;
}

/* (l is copied: an operand's layout is the caller's local.) */
static void add_made(Arena *a, PtrMap *m, MlirValue v, const Layout *l, MlirValue r) {
  Made *x = arena_alloc(a, sizeof *x);
  Layout *c = arena_alloc(a, sizeof *c);
  *c = *l;
  *x = (Made){.layout = c, .r = r, .next = map_get(m, v.ptr)};
  map_put(a, m, v.ptr, x);
}

static bool is_leaf(Query *q, MlirOperation d) {
  return mlirOperationIsNull(d) || !rematerializable(q->comp, d) || (costly(d) && map_get(&q->forced, d.ptr));
}

/* Can v be produced in layout l by recomputation within the budget? Values
 * that cannot be recomputed (loads, reductions, loop arguments) are leaves:
 * they get a conversion of their own, counted in q->leaves. */
static bool can_remat_in(Query *q, MlirValue v, const Layout *l) {
  Compilation *comp = q->comp;
  Layout have;
  if (layout_of_type(comp, mlirValueGetType(v), &have) && layout_equal(&have, l)) return true;
  /* an operand of a dot on tensor cores is read from shared memory by the
   * dot itself: nothing is computed in its layout */
  if (l->kind == L_DOT_OP && l->parent->kind != L_BLOCKED) return false;
  if (made_in(&q->seen, v, l)) return true;
  add_made(comp->a, &q->seen, v, l, v);
  MlirOperation d = value_owner(v);
  if (is_leaf(q, d)) {
    ++q->leaves;
    /* a conversion is possible; not of a dot's result, whose epilogue stays
     * in its MMA layout (sink_epilogues) */
    return (l->kind == L_BLOCKED || l->kind == L_SLICE) && !(layout_of_type(comp, mlirValueGetType(v), &have) && have.kind == L_MMA);
  }
  if (--q->budget < 0) return false;
  map_put(comp->a, &q->ops, d.ptr, d.ptr);
  if (costly(d)) vec_push(comp->a, &q->costly, d.ptr);
  if (tile_op_of(d) == TOP_convert_layout) return can_remat_in(q, mlirOperationGetOperand(d, 0), l);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++) {
    MlirValue o = mlirOperationGetOperand(d, i);
    if (!is_tensor(o)) continue;
    Layout ol;
    if (!operand_layout(comp, d, (int)i, l, &ol) || !can_remat_in(q, o, &ol)) return false;
  }
  return true;
}

/* Whether every op that reads a result of d is recomputed too (or is the
 * user it is recomputed for). */
static bool read_only_inside(Query *q, MlirOperation d) {
  for (intptr_t r = 0; r < mlirOperationGetNumResults(d); r++) {
    MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(d, r));
    for (; !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
      MlirOperation o = mlirOpOperandGetOwner(u);
      if (!mlirOperationEqual(o, q->user) && !map_get(&q->ops, o.ptr)) return false;
    }
  }
  return true;
}

/* A recomputation of v in layout l for `user`, within REMAT_BUDGET ops;
 * its leaves counted in q->leaves. A costly op read from outside the slice
 * becomes a leaf, and the slice is found again. */
static bool can_remat(Query *q, Compilation *comp, MlirOperation user, MlirValue v, const Layout *l) {
  for (int tries = 0; tries < 8; tries++) {
    PtrMap forced = q->forced;
    *q = (Query){.comp = comp, .user = user, .budget = REMAT_BUDGET, .forced = forced};
    if (!can_remat_in(q, v, l)) return false;
    bool again = false;
    for (int i = 0; i < q->costly.n; i++) {
      MlirOperation d = {q->costly.v[i]};
      if (read_only_inside(q, d)) continue;
      map_put(comp->a, &q->forced, d.ptr, d.ptr);
      again = true;
    }
    if (!again) return true;
  }
  return false;
}

/* A clone of d with operands ops, its results in layout l, right after d
 * (or right before it); its result in the place of v among d's (the first
 * when v is not d's). */
static MlirValue clone_in(Compilation *comp, MlirOperation d, MlirValue v, const MlirValue *ops, intptr_t n, const Layout *l,
                          bool after) {
  MlirOperation c = mlirOperationClone(d);
  if (after) mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(d), d, c);
  else mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(d), d, c);
  for (intptr_t i = 0; i < n; i++) mlirOperationSetOperand(c, i, ops[i]);
  MlirType nt = {NULL};
  for (intptr_t i = 0; i < mlirOperationGetNumResults(c); i++) {
    MlirValue ri = mlirOperationGetResult(c, i);
    nt = with_layout(comp, mlirValueGetType(ri), layout_attr(comp, l));
    mlirValueSetType(ri, nt);
  }
  bool own = mlirValueIsAOpResult(v) && mlirOperationEqual(value_owner(v), d);
  MlirValue r = mlirOperationGetResult(c, own ? mlirOpResultGetResultNumber(v) : 0);
  if (op_is(c, "arith.constant")) {
    MlirAttribute val = mlirOperationGetAttributeByName(c, mlirStringRefCreateFromCString("value"));
    if (mlirAttributeIsADenseElements(val) && mlirDenseElementsAttrIsSplat(val))
      mlirOperationSetAttributeByName(c, mlirStringRefCreateFromCString("value"),
                                      mlirDenseElementsAttrSplatGet(nt, mlirDenseElementsAttrGetSplatValue(val)));
  }
  return r;
}

/* v in layout l: recomputed where can_remat said so, converted at leaves,
 * each once. */
static MlirValue remat(Query *q, MlirValue v, const Layout *l) {
  Compilation *comp = q->comp;
  Layout have;
  if (layout_of_type(comp, mlirValueGetType(v), &have) && layout_equal(&have, l)) return v;
  Made *made = made_in(&q->made, v, l);
  if (made) return made->r;
  MlirOperation d = value_owner(v);
  MlirValue r;
  if (is_leaf(q, d)) {
    MlirType nt = with_layout(comp, mlirValueGetType(v), layout_attr(comp, l));
    MlirOperation at = mlirOperationIsNull(d) ? mlirBlockGetFirstOperation(mlirBlockArgumentGetOwner(v))
                                               : mlirOperationGetNextInBlock(d);
    r = mlirOperationGetResult(create_before(at, "tile.convert_layout", mlirValueGetLocation(v), 1, &nt, 1, &v, 0, NULL), 0);
  } else if (tile_op_of(d) == TOP_convert_layout) {
    r = remat(q, mlirOperationGetOperand(d, 0), l);
  } else {
    intptr_t n = mlirOperationGetNumOperands(d);
    MlirValue ops[16];
    for (intptr_t i = 0; i < n && i < 16; i++) {
      MlirValue o = mlirOperationGetOperand(d, i);
      Layout ol;
      ops[i] = is_tensor(o) && operand_layout(comp, d, (int)i, l, &ol) ? remat(q, o, &ol) : o;
    }
    /* a clone right after the original dominates everything the original
     * does; the op's other results, cloned with it, are found there too */
    r = clone_in(comp, d, v, ops, n < 16 ? n : 16, l, true);
    for (intptr_t i = 0; i < mlirOperationGetNumResults(d); i++)
      add_made(comp->a, &q->made, mlirOperationGetResult(d, i), l, mlirOperationGetResult(value_owner(r), i));
    return r;
  }
  add_made(comp->a, &q->made, v, l, r);
  return r;
}

/* ---- loop-carried values ---------------------------------------------------------------
 * A value carried by an scf.for in layout D, whose next value is computed
 * from a conversion out of layout A, is carried in A instead when the whole
 * computation of the next value can then be recomputed in A (no conversion
 * left in the loop): the loop takes its initial value converted once
 * before it, and its result is converted once after it. So is a value
 * the loop converts itself into a blocked layout A (a pointer carried for
 * a load that wants another layout: `ptrs += step` then runs in the
 * load's layout). Triton does the same when it moves conversions out of
 * loops. */

/* The source layout of the first conversion on y's chain of producers
 * (depth-first, a few levels), if it is blocked or an MMA layout. */
static bool conversion_source(Compilation *comp, MlirValue y, int depth, Layout *out) {
  MlirOperation d = value_owner(y);
  if (mlirOperationIsNull(d) || depth > 6) return false;
  if (tile_op_of(d) == TOP_convert_layout) {
    Layout l;
    if (layout_of_type(comp, mlirValueGetType(mlirOperationGetOperand(d, 0)), &l) &&
        (l.kind == L_BLOCKED || l.kind == L_MMA)) {
      *out = l;
      return true;
    }
    return false;
  }
  if (!rematerializable(comp, d)) return false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++) {
    MlirValue o = mlirOperationGetOperand(d, i);
    if (is_tensor(o) && conversion_source(comp, o, depth + 1, out)) return true;
  }
  return false;
}

/* The layout of a conversion of a loop's argument itself into a blocked
 * layout (a carried pointer converted for the load that uses it). */
static bool arg_conversion(Compilation *comp, MlirValue arg, Layout *out) {
  for (MlirOpOperand u = mlirValueGetFirstUse(arg); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation o = mlirOpOperandGetOwner(u);
    if (tile_op_of(o) == TOP_convert_layout && layout_of_type(comp, mlirValueGetType(mlirOperationGetResult(o, 0)), out) &&
        out->kind == L_BLOCKED)
      return true;
  }
  return false;
}

/* Whether v can be had in layout l with no conversion left but of `arg`. */
static bool remat_but(Compilation *comp, MlirValue v, const Layout *l, MlirValue arg, int *budget) {
  Layout have;
  if (mlirValueEqual(v, arg)) return true;
  if (layout_of_type(comp, mlirValueGetType(v), &have) && layout_equal(&have, l)) return true;
  MlirOperation d = value_owner(v);
  if (mlirOperationIsNull(d) || !rematerializable(comp, d) || (costly(d) && !single_use(v)) || --*budget < 0) return false;
  if (tile_op_of(d) == TOP_convert_layout) return remat_but(comp, mlirOperationGetOperand(d, 0), l, arg, budget);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++) {
    MlirValue o = mlirOperationGetOperand(d, i);
    Layout ol;
    if (is_tensor(o) && (!operand_layout(comp, d, (int)i, l, &ol) || !remat_but(comp, o, &ol, arg, budget))) return false;
  }
  return true;
}

static MlirValue convert_before(Compilation *comp, MlirOperation at, MlirValue v, const Layout *l) {
  MlirType nt = with_layout(comp, mlirValueGetType(v), layout_attr(comp, l));
  return mlirOperationGetResult(create_before(at, "tile.convert_layout", mlirValueGetLocation(v), 1, &nt, 1, &v, 0, NULL), 0);
}

static bool retype_loop(Compilation *comp, MlirOperation loop) {
  bool changed = false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  MlirOperation yield = mlirBlockGetTerminator(body);
  intptr_t n = mlirOperationGetNumResults(loop);
  for (intptr_t i = 0; i < n; i++) {
    MlirValue arg = mlirBlockGetArgument(body, i + 1), res = mlirOperationGetResult(loop, i);
    MlirValue y = mlirOperationGetOperand(yield, i);
    Layout d, a;
    if (!is_tensor(arg) || !layout_of_type(comp, mlirValueGetType(arg), &d) ||
        !(conversion_source(comp, y, 0, &a) || arg_conversion(comp, arg, &a)) || layout_equal(&a, &d))
      continue;
    int budget = REMAT_BUDGET;
    if (!remat_but(comp, y, &a, arg, &budget)) continue;
    /* carry it in A: convert the initial value before the loop, the
     * argument back to D for its users, the next value to A, and the
     * result back to D after the loop */
    MlirValue init = mlirOperationGetOperand(loop, 3 + i);
    mlirOperationSetOperand(loop, 3 + (int)i, convert_before(comp, loop, init, &a));
    MlirType at = with_layout(comp, mlirValueGetType(arg), layout_attr(comp, &a));
    mlirBlockArgumentSetType(arg, at);
    MlirValue arg_d = convert_before(comp, mlirBlockGetFirstOperation(body), arg, &d);
    MlirOperation arg_cv = value_owner(arg_d);
    mlirValueReplaceAllUsesExcept(arg, arg_d, 1, &arg_cv);
    mlirOperationSetOperand(yield, (int)i, convert_before(comp, yield, mlirOperationGetOperand(yield, i), &a));
    mlirValueSetType(res, at);
    MlirOperation after = mlirOperationGetNextInBlock(loop);
    MlirValue res_d = convert_before(comp, after, res, &d);
    MlirOperation res_cv = value_owner(res_d);
    mlirValueReplaceAllUsesExcept(res, res_d, 1, &res_cv);
    changed = true;
  }
  return changed;
}

/* ---- a dot's epilogue in its MMA layout -----------------------------------------------------
 * A conversion out of an MMA layout moves down through the elementwise ops
 * that use it (a bias, an activation, a cast to the output type) when
 * every other operand they have is a conversion out of the same layout or
 * can be recomputed in it: they then run in the MMA layout, and the
 * conversion left moves their result, the narrowest value, just before the
 * store, as Triton keeps a dot's epilogue in its layout. */

static bool elementwise(MlirOperation op) {
  TileOp t = tile_op_of(op);
  return mlirOperationGetNumResults(op) == 1 &&
         (t == TOP_NONE || t == TOP_extern_elementwise || t == TOP_bitcast || t == TOP_mulhiui) && op_is_shape_preserving(op);
}

/* The source of v when v is a conversion out of layout a. */
static bool converted_from(Compilation *comp, MlirValue v, const Layout *a, MlirValue *src) {
  MlirOperation d = value_owner(v);
  Layout l;
  if (mlirOperationIsNull(d) || tile_op_of(d) != TOP_convert_layout ||
      !layout_of_type(comp, mlirValueGetType(mlirOperationGetOperand(d, 0)), &l) || !layout_equal(&l, a))
    return false;
  *src = mlirOperationGetOperand(d, 0);
  return true;
}

/* Runs `user` in layout a, its result converted back; false when it cannot. */
static bool sink_into(Compilation *comp, MlirOperation user, const Layout *a) {
  intptr_t n = mlirOperationGetNumOperands(user);
  if (n > 16 || !elementwise(user)) return false;
  Query q[16] = {0};
  for (intptr_t i = 0; i < n; i++) {
    MlirValue o = mlirOperationGetOperand(user, i), src;
    if (is_tensor(o) && !converted_from(comp, o, a, &src) && !(can_remat(&q[i], comp, user, o, a) && !q[i].leaves))
      return false;
  }
  MlirValue ops[16];
  for (intptr_t i = 0; i < n; i++) {
    MlirValue o = mlirOperationGetOperand(user, i);
    ops[i] = !is_tensor(o) ? o : converted_from(comp, o, a, &ops[i]) ? ops[i] : remat(&q[i], o, a);
  }
  MlirValue r = mlirOperationGetResult(user, 0), cr = clone_in(comp, user, r, ops, n, a, false);
  MlirType old = mlirValueGetType(r);
  MlirValue back = mlirOperationGetResult(create_before(user, "tile.convert_layout", mlirOperationGetLocation(user), 1, &old, 1, &cr, 0, NULL), 0);
  mlirValueReplaceAllUsesOfWith(r, back);
  return true;
}

static void collect_mma_converts(MlirOperation op, void *user) {
  Remat *r = user;
  Layout l;
  if (tile_op_of(op) == TOP_convert_layout &&
      layout_of_type(r->comp, mlirValueGetType(mlirOperationGetOperand(op, 0)), &l) && l.kind == L_MMA)
    vec_push(r->comp->a, &r->converts, op.ptr);
}

static bool sink_epilogues(Compilation *comp, MlirOperation module) {
  bool any = false;
  for (int round = 0; round < 32; round++) {
    Remat r = {.comp = comp};
    walk_ops(module, collect_mma_converts, &r, false);
    for (int i = 0; i < r.converts.n; i++) {
      MlirOperation cv = {r.converts.v[i]};
      Layout a;
      layout_of_type(comp, mlirValueGetType(mlirOperationGetOperand(cv, 0)), &a);
      MlirValue res = mlirOperationGetResult(cv, 0);
      for (MlirOpOperand u = mlirValueGetFirstUse(res), next; !mlirOpOperandIsNull(u); u = next) {
        next = mlirOpOperandGetNextUse(u);
        MlirOperation user = mlirOpOperandGetOwner(u);
        if (sink_into(comp, user, &a)) {
          r.changes++;
          break; /* the uses changed: the next round goes on */
        }
      }
    }
    pass_dce(comp, module);
    if (!r.changes) break;
    any = true;
  }
  return any;
}

static void collect_loops(MlirOperation op, void *user) {
  Remat *r = user;
  if (op_is(op, "scf.for")) vec_push(r->comp->a, &r->converts, op.ptr);
}

static void collect(MlirOperation op, void *user) {
  Remat *r = user;
  if (tile_op_of(op) == TOP_convert_layout) vec_push(r->comp->a, &r->converts, op.ptr);
}

static bool remove_conversions(Compilation *comp, MlirOperation module);

static void collect_operand_conversions(MlirOperation op, void *user) {
  Remat *r = user;
  Layout l;
  if (tile_op_of(op) == TOP_convert_layout && layout_of_type(r->comp, mlirValueGetType(mlirOperationGetResult(op, 0)), &l) &&
      l.kind == L_DOT_OP && l.parent->kind == L_MMA)
    vec_push(r->comp->a, &r->converts, op.ptr);
}

static void hoist_operand_conversions(Compilation *comp, MlirOperation module) {
  Remat r = {.comp = comp};
  walk_ops(module, collect_operand_conversions, &r, false);
  for (int i = 0; i < r.converts.n; i++) {
    MlirOperation cv = {r.converts.v[i]}, loop = mlirOperationGetParentOperation(cv), out = {NULL};
    for (; !mlirOperationIsNull(loop) && op_is(loop, "scf.for") && !value_defined_in(mlirOperationGetOperand(cv, 0), loop) &&
           mlirAttributeIsNull(mlirOperationGetAttributeByName(loop, mlirStringRefCreateFromCString("tile.disable_licm")));
         loop = mlirOperationGetParentOperation(loop))
      out = loop;
    if (!mlirOperationIsNull(out)) {
      mlirOperationMoveBefore(cv, out);
      comp->hoisted = true;
    }
  }
}

bool pass_remove_layout_conversions(Compilation *comp, MlirOperation module) {
  propagate_layouts(comp, module);
  remove_conversions(comp, module);
  Remat loops = {.comp = comp};
  walk_ops(module, collect_loops, &loops, true);
  bool changed = false;
  for (int i = 0; i < loops.converts.n; i++) changed |= retype_loop(comp, (MlirOperation){loops.converts.v[i]});
  if (changed) remove_conversions(comp, module);
  if (sink_epilogues(comp, module)) remove_conversions(comp, module);
  if (!comp->keep_operands) hoist_operand_conversions(comp, module);
  return true;
}

/* Whether v is computed, within a few ops, by math that becomes a libdevice
 * call on the GPU (log, log2, sin, cos, erf, ...: tens of instructions an
 * element, docs/codegen.md), not by cheap arithmetic alone. */
static bool costs_libdevice(MlirValue v, int depth) {
  MlirOperation d = value_owner(v);
  if (mlirOperationIsNull(d) || depth > 6 || tile_op_of(d) != TOP_NONE || !op_is_pure(d)) return false;
  static const char *const math[] = {"math.log", "math.log2", "math.sin", "math.cos", "math.erf", "math.tanh", "math.powf"};
  for (size_t i = 0; i < sizeof math / sizeof *math; i++)
    if (op_is(d, math[i])) return true;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++)
    if (costs_libdevice(mlirOperationGetOperand(d, i), depth + 1)) return true;
  return false;
}

/* Elements of an n-element vector each thread holds in layout l: a 1-D
 * blocked layout, or the rows of an MMA layout (its slice along dim 1, a
 * dot's per-row values: two rows of each 16 a warp covers); 0 for others. */
static int64_t row_elems_per_thread(const Layout *l, int64_t n) {
  if (l->kind == L_BLOCKED && l->rank == 1) {
    int64_t tile = (int64_t)l->spt[0] * l->tpw[0] * l->wpc[0];
    return l->spt[0] * (n > tile ? n / tile : 1);
  }
  if (l->kind == L_SLICE && l->dim == 1 && l->parent->kind == L_MMA && l->parent->rank == 2) {
    int64_t rows = 16LL * l->parent->wpc[0];
    return 2 * (n > rows ? n / rows : 1);
  }
  return 0;
}

/* A conversion of per-row math that libdevice computes (attention's
 * m + log2(l) before its store) moves back to the rows it reads, up to two
 * of them, where the target layout holds fewer copies of each row than the
 * MMA rows' four threads: the math then runs once a row, not once a copy,
 * as Triton's rematerialization of the store's layout gives it. */
static bool fewer_rows_after(Compilation *comp, MlirValue src, const Layout *target) {
  Layout sl;
  MlirType t = mlirValueGetType(src);
  if (!layout_of_type(comp, t, &sl) || mlirShapedTypeGetRank(t) != 1 || !costs_libdevice(src, 0)) return false;
  int64_t n = mlirShapedTypeGetDimSize(t, 0), from = row_elems_per_thread(&sl, n), to = row_elems_per_thread(target, n);
  return from > 0 && to > 0 && to < from;
}

static bool remove_conversions(Compilation *comp, MlirOperation module) {
  for (int round = 0; round < 8; round++) {
    Remat r = {.comp = comp};
    walk_ops(module, collect, &r, false);
    for (int i = 0; i < r.converts.n; i++) {
      MlirOperation cv = {r.converts.v[i]};
      if (op_results_unused(cv)) continue;
      MlirValue src = mlirOperationGetOperand(cv, 0), res = mlirOperationGetResult(cv, 0);
      if (mlirTypeEqual(mlirValueGetType(src), mlirValueGetType(res))) {
        mlirValueReplaceAllUsesOfWith(res, src);
        r.changes++;
        continue;
      }
      Layout target;
      if (!layout_of_type(comp, mlirValueGetType(res), &target)) continue;
      /* worth it when the conversion disappears, or moves back to a single
       * value that cannot be recomputed (it may be cheaper there, and
       * cannot move further: the rounds end) */
      Query q = {0};
      MlirOperation producer = value_owner(src);
      bool is_op = !mlirOperationIsNull(producer);
      bool from_convert = is_op && tile_op_of(producer) == TOP_convert_layout;
      bool movable = is_op && !from_convert && rematerializable(comp, producer);
      if ((movable || from_convert) && can_remat(&q, comp, cv, src, &target) &&
          (q.leaves == 0 || (movable && q.leaves == 1) || (movable && q.leaves == 2 && fewer_rows_after(comp, src, &target)))) {
        mlirValueReplaceAllUsesOfWith(res, remat(&q, src, &target));
        r.changes++;
        continue;
      }
      /* convert(convert(x)) converts x once */
      MlirOperation d = value_owner(src);
      if (!mlirOperationIsNull(d) && tile_op_of(d) == TOP_convert_layout) {
        mlirOperationSetOperand(cv, 0, mlirOperationGetOperand(d, 0));
        r.changes++;
      }
    }
    pass_dce(comp, module);
    pass_cse(comp, module);
    if (!r.changes) break;
  }
  return true;
}
