/*
 * propagate_layouts.c — the layouts of loads carried forward to the values
 * computed from them (the first step of remove-layout-conversions).
 *
 * Requires: tile IR with layouts, coalesced. Guarantees: the same program,
 * each value computed from a load (through elementwise ops, conversions,
 * reductions, scans, expand_dims, broadcasts, and the values loops carry and
 * branches yield) in that load's blocked layout, or the slice of it a
 * reduction makes, as Triton's layout propagation does; conversions are
 * left only where a value meets an op that needs another layout (a store,
 * a dot, two loads of different layouts in one expression), and where a
 * value that no load reaches (a constant, index arithmetic) feeds one that
 * has moved — there remove-layout-conversions recomputes it in place.
 *
 * A reduction then reduces in the layout of its operand as loaded (within
 * the thread first, then by shuffles, then across warps), and a chain like
 * softmax's `x - max`, `exp` runs once, in the load's layout, instead of
 * once in each of two layouts.
 *
 * How: every load's tensor result is an anchor; its layout flows to the
 * users that can take it, and from their results on, each value collecting
 * the layouts that reach it (at most MAX_CANDS). A value reached by several
 * takes the first (the earliest anchor's). The values whose layout changes
 * are retyped in place, and each op that touches one gets, for each
 * operand that no longer has the layout it needs, a conversion: the op's
 * own rule (an elementwise op's operands take its result's layout) or, for
 * an op that takes no part (a store, a dot), the operand's old type.
 */
#include "passes.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#define MAX_CANDS 4

typedef struct Cands {
  MlirAttribute a[MAX_CANDS]; /* the layouts that reach the value, first come first */
  int n;
  MlirType old; /* its type before the pass */
} Cands;

typedef struct Prop {
  Compilation *comp;
  PtrMap cands;    /* value -> Cands */
  PtrVec work;     /* values with a new candidate to pass on, as (value, layout) pairs */
  PtrVec changed;  /* values whose layout changes */
  PtrMap touched;  /* op -> itself: ops to check after the retyping */
  PtrVec touch;    /* the same, in order */
} Prop;

static bool is_tensor(MlirValue v) { return mlirTypeIsARankedTensor(mlirValueGetType(v)); }

static bool layout_kind_of(Compilation *comp, MlirAttribute a, MlirType like, Layout *out) {
  return layout_of_type(comp, with_layout(comp, like, a), out);
}

/* Elementwise: arith, math and the tile ops that act on each element
 * alone, their tensors all of one shape. */
static bool elementwise(MlirOperation op) {
  TileOp t = tile_op_of(op);
  return (t == TOP_NONE || t == TOP_extern_elementwise || t == TOP_bitcast || t == TOP_mulhiui || t == TOP_philox || t == TOP_addptr ||
          t == TOP_ptr_to_int || t == TOP_int_to_ptr || t == TOP_multiple_of || t == TOP_max_contiguous ||
          t == TOP_max_constancy || t == TOP_elementwise_inline_asm) &&
         op_is_shape_preserving(op);
}

bool trans_layout(MlirOperation op, const Layout *l, bool forward, Layout *out) {
  if (l->kind != L_BLOCKED) return false;
  MlirAttribute oa = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("order"));
  if (mlirAttributeIsNull(oa) || mlirDenseArrayGetNumElements(oa) != l->rank) return false;
  int perm[MAX_RANK], inv[MAX_RANK];
  for (int d = 0; d < l->rank; d++) perm[d] = mlirDenseI32ArrayGetElement(oa, d), inv[perm[d]] = d;
  const int *to = forward ? inv : perm; /* where a dimension of l goes */
  *out = (Layout){.kind = L_BLOCKED, .rank = l->rank};
  for (int d = 0; d < l->rank; d++) {
    out->spt[to[d]] = l->spt[d], out->tpw[to[d]] = l->tpw[d], out->wpc[to[d]] = l->wpc[d];
    out->order[d] = to[l->order[d]];
  }
  return true;
}

static void touch(Prop *p, MlirOperation op) {
  if (map_get(&p->touched, op.ptr)) return;
  map_put(p->comp->a, &p->touched, op.ptr, op.ptr);
  vec_push(p->comp->a, &p->touch, op.ptr);
}

/* Adds layout a to v's candidates; new ones are passed on. */
static void reach(Prop *p, MlirValue v, MlirAttribute a) {
  if (!is_tensor(v)) return;
  Cands *c = map_get(&p->cands, v.ptr);
  if (!c) {
    c = arena_alloc(p->comp->a, sizeof *c);
    c->old = mlirValueGetType(v);
    map_put(p->comp->a, &p->cands, v.ptr, c);
  }
  if (c->n == MAX_CANDS) return;
  for (int i = 0; i < c->n; i++)
    if (mlirAttributeEqual(c->a[i], a)) return;
  c->a[c->n++] = a;
  vec_push(p->comp->a, &p->work, (void *)(uintptr_t)v.ptr);
  vec_push(p->comp->a, &p->work, (void *)(uintptr_t)a.ptr);
}

/* The loop or branch result (and loop argument) slot i that yield feeds. */
static void reach_slot(Prop *p, MlirOperation parent, intptr_t i, MlirAttribute a) {
  if (op_is(parent, "scf.for")) {
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(parent, 0));
    reach(p, mlirBlockGetArgument(body, i + 1), a);
    reach(p, mlirOperationGetResult(parent, i), a);
  } else if (op_is(parent, "scf.if")) {
    reach(p, mlirOperationGetResult(parent, i), a);
  }
}

/* Passes layout a of v (operand `idx` of user) on to what user makes. */
static void pass_on(Prop *p, MlirOperation user, intptr_t idx, MlirValue v, MlirAttribute a) {
  Compilation *comp = p->comp;
  Layout l;
  if (!layout_kind_of(comp, a, mlirValueGetType(v), &l)) return;
  TileOp t = tile_op_of(user);
  if (t == TOP_convert_layout) {
    /* the conversion becomes a copy, unless it feeds a dot or shared memory */
    Layout to;
    if (layout_of_type(comp, mlirValueGetType(mlirOperationGetResult(user, 0)), &to) &&
        (to.kind == L_BLOCKED || to.kind == L_SLICE))
      reach(p, mlirOperationGetResult(user, 0), a);
    return;
  }
  if (elementwise(user)) {
    for (intptr_t r = 0; r < mlirOperationGetNumResults(user); r++) reach(p, mlirOperationGetResult(user, r), a);
    return;
  }
  if (t == TOP_reduce) {
    if (l.kind != L_BLOCKED && l.kind != L_MMA) return; /* a reduction reduces a blocked or mma.sync layout */
    for (intptr_t r = 0; r < mlirOperationGetNumResults(user); r++) {
      MlirValue res = mlirOperationGetResult(user, r);
      if (!is_tensor(res)) continue;
      Layout *parent = arena_alloc(comp->a, sizeof *parent);
      *parent = l;
      Layout s = {.kind = L_SLICE, .rank = l.rank - 1, .dim = (int)op_int_attr(user, "axis", 0), .parent = parent};
      reach(p, res, layout_attr(comp, &s));
    }
    return;
  }
  if (t == TOP_scan) {
    /* a scan runs in a blocked layout, any number of chunks along its axis */
    if (l.kind == L_BLOCKED)
      for (intptr_t r = 0; r < mlirOperationGetNumResults(user); r++) reach(p, mlirOperationGetResult(user, r), a);
    return;
  }
  if (t == TOP_expand_dims) {
    if (l.kind == L_SLICE && l.dim == op_int_attr(user, "axis", 0) && (l.parent->kind == L_BLOCKED || l.parent->kind == L_MMA))
      reach(p, mlirOperationGetResult(user, 0), layout_attr(comp, l.parent));
    return;
  }
  if (t == TOP_broadcast) {
    if (l.kind == L_BLOCKED || l.kind == L_MMA) reach(p, mlirOperationGetResult(user, 0), a);
    return;
  }
  if (t == TOP_trans) {
    /* the result holds the same elements, its dimensions permuted (a load
     * of K for QK^T keeps its vectors) */
    Layout r;
    if (trans_layout(user, &l, true, &r)) reach(p, mlirOperationGetResult(user, 0), layout_attr(comp, &r));
    return;
  }
  if (op_is(user, "scf.for") && idx >= 3) {
    reach_slot(p, user, idx - 3, a);
    return;
  }
  if (op_is(user, "scf.yield")) reach_slot(p, mlirOperationGetParentOperation(user), idx, a);
}

static void anchor(MlirOperation op, void *user) {
  Prop *p = user;
  TileOp t = tile_op_of(op);
  if ((t != TOP_load && t != TOP_dot) || mlirOperationGetNumResults(op) != 1) return;
  MlirValue r = mlirOperationGetResult(op, 0);
  Layout l;
  if (!is_tensor(r) || !layout_of_type(p->comp, mlirValueGetType(r), &l) || l.kind != (t == TOP_load ? L_BLOCKED : L_MMA))
    return;
  /* the load's own result keeps it: it is where the layout comes from */
  reach(p, r, type_layout(mlirValueGetType(r)));
}

/* The layout operand i of op needs, given op's results as they are now;
 * false: the operand's old type. */
static bool needs(Prop *p, MlirOperation op, intptr_t i, MlirType *out) {
  Compilation *comp = p->comp;
  MlirValue v = mlirOperationGetOperand(op, i);
  TileOp t = tile_op_of(op);
  MlirType vt = mlirValueGetType(v);
  if (t == TOP_convert_layout) {
    *out = vt; /* any */
    return true;
  }
  if (t == TOP_trans) {
    Layout r, o;
    if (!layout_of_type(comp, mlirValueGetType(mlirOperationGetResult(op, 0)), &r) || !trans_layout(op, &r, false, &o)) return false;
    *out = with_layout(comp, vt, layout_attr(comp, &o));
    return true;
  }
  if (elementwise(op) || t == TOP_broadcast || t == TOP_scan) {
    *out = with_layout(comp, vt, type_layout(mlirValueGetType(mlirOperationGetResult(op, 0))));
    return true;
  }
  if (t == TOP_expand_dims) {
    Layout r;
    if (!layout_of_type(comp, mlirValueGetType(mlirOperationGetResult(op, 0)), &r) || (r.kind != L_BLOCKED && r.kind != L_MMA))
      return false;
    Layout *parent = arena_alloc(comp->a, sizeof *parent);
    *parent = r;
    Layout s = {.kind = L_SLICE, .rank = r.rank - 1, .dim = (int)op_int_attr(op, "axis", 0), .parent = parent};
    *out = with_layout(comp, vt, layout_attr(comp, &s));
    return true;
  }
  if (t == TOP_reduce) {
    MlirValue r0 = mlirOperationGetResult(op, 0);
    Layout r, o0;
    if (is_tensor(r0)) {
      if (!layout_of_type(comp, mlirValueGetType(r0), &r) || r.kind != L_SLICE) return false;
      *out = with_layout(comp, vt, layout_attr(comp, r.parent));
      return true;
    }
    /* a reduction to scalars: every operand in the first's layout, which
     * must be blocked */
    MlirValue first = mlirOperationGetOperand(op, 0);
    if (!layout_of_type(comp, mlirValueGetType(first), &o0) || o0.kind != L_BLOCKED) return false;
    *out = with_layout(comp, vt, type_layout(mlirValueGetType(first)));
    return true;
  }
  if (op_is(op, "scf.for") && i >= 3) {
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
    *out = mlirValueGetType(mlirBlockGetArgument(body, i - 3 + 1));
    return true;
  }
  if (op_is(op, "scf.yield")) {
    MlirOperation parent = mlirOperationGetParentOperation(op);
    if (op_is(parent, "scf.for") || op_is(parent, "scf.if")) {
      *out = mlirValueGetType(mlirOperationGetResult(parent, i));
      return true;
    }
  }
  return false;
}

/* Whether layout a is a tensor-core result's or a slice of one. */
static bool mma_family(Compilation *comp, MlirAttribute a, MlirType like) {
  Layout l;
  if (!layout_kind_of(comp, a, like, &l)) return false;
  while (l.kind == L_SLICE) l = *l.parent;
  return l.kind == L_MMA;
}

/* The layout a value takes of those that reach it: a dot's, as Triton
 * resolves conflicts for ops other than memory accesses (an attention
 * loop's softmax runs in the layout of QK^T, and P goes to the second
 * dot from it), else the first. */
static MlirAttribute chosen(Prop *p, const Cands *c) {
  for (int i = 0; i < c->n; i++)
    if (mma_family(p->comp, c->a[i], c->old)) return c->a[i];
  return c->a[0];
}

static MlirType old_type(Prop *p, MlirValue v) {
  Cands *c = map_get(&p->cands, v.ptr);
  return c && c->n ? c->old : mlirValueGetType(v);
}

bool propagate_layouts(Compilation *comp, MlirOperation module) {
  Prop p = {.comp = comp};
  walk_ops(module, anchor, &p, false);
  for (int w = 0; w < p.work.n; w += 2) {
    MlirValue v = {p.work.v[w]};
    MlirAttribute a = {p.work.v[w + 1]};
    for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u))
      pass_on(&p, mlirOpOperandGetOwner(u), mlirOpOperandGetOperandNumber(u), v, a);
  }
  /* each value takes its first layout; the ops around those that change
   * are checked afterwards */
  for (int w = 0; w < p.work.n; w += 2) {
    MlirValue v = {p.work.v[w]};
    Cands *c = map_get(&p.cands, v.ptr);
    MlirAttribute pick = chosen(&p, c);
    if (!mlirAttributeEqual((MlirAttribute){p.work.v[w + 1]}, pick) || mlirTypeEqual(with_layout(comp, c->old, pick), c->old))
      continue;
    vec_push(comp->a, &p.changed, (void *)(uintptr_t)v.ptr);
    MlirOperation d = value_owner(v);
    if (!mlirOperationIsNull(d)) touch(&p, d);
    else {
      /* a loop's argument: its initial value and its next one */
      MlirOperation loop = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
      touch(&p, loop);
      touch(&p, mlirBlockGetTerminator(mlirBlockArgumentGetOwner(v)));
    }
    for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u))
      touch(&p, mlirOpOperandGetOwner(u));
    /* a branch's or loop's result: what its yields give */
    if (!mlirOperationIsNull(d) && mlirOperationGetNumRegions(d) > 0)
      for (intptr_t r = 0; r < mlirOperationGetNumRegions(d); r++) {
        MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(d, r));
        if (!mlirBlockIsNull(b)) touch(&p, mlirBlockGetTerminator(b));
      }
  }
  if (!p.changed.n) return false;
  for (int i = 0; i < p.changed.n; i++) {
    MlirValue v = {p.changed.v[i]};
    Cands *c = map_get(&p.cands, v.ptr);
    MlirType nt = with_layout(comp, c->old, chosen(&p, c));
    if (mlirValueIsABlockArgument(v)) mlirBlockArgumentSetType(v, nt);
    else mlirValueSetType(v, nt);
  }
  for (int i = 0; i < p.touch.n; i++) {
    MlirOperation op = {p.touch.v[i]};
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); k++) {
      MlirValue v = mlirOperationGetOperand(op, k);
      if (!is_tensor(v)) continue;
      MlirType want;
      if (!needs(&p, op, k, &want)) want = old_type(&p, v);
      if (mlirTypeEqual(want, mlirValueGetType(v))) continue;
      MlirOperation cv = create_before(op, "tile.convert_layout", mlirValueGetLocation(v), 1, &want, 1, &v, 0, NULL);
      mlirOperationSetOperand(op, k, mlirOperationGetResult(cv, 0));
    }
  }
  return true;
}
