/*
 * convert_to_gpu.c — tile IR to tile IR with layouts.
 *
 * Requires: tile IR without layouts. Guarantees: every tensor has a layout
 * (its type's encoding). Most take Triton's default blocked layout for their
 * shape; a reduction's result takes the slice of its operand's layout, an
 * expand_dims operand the slice of its result's layout, dot operands the
 * dot_op layouts of the result's, a broadcast its operand's layout. Where an
 * operand's layout differs from what its user needs, a tile.convert_layout
 * is inserted; remove-layout-conversions removes most of them later.
 */
#include "passes.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

static bool is_tensor(MlirValue v) { return mlirTypeIsARankedTensor(mlirValueGetType(v)); }

static Layout default_layout(Compilation *comp, MlirType t) {
  int r = (int)mlirShapedTypeGetRank(t);
  int64_t shape[MAX_RANK];
  for (int i = 0; i < r; i++) shape[i] = mlirShapedTypeGetDimSize(t, i);
  return layout_blocked(comp, r, shape, NULL, NULL);
}

/* The result layout of a 2-D dot, which runs on FMAs: a warp's lanes
 * 4x8 over the tile, the warps split between M and N so that a thread's
 * rows and columns are as even as the shape allows (a step of K reads
 * rows + columns operand elements for rows x columns FMAs), without
 * spreading past the tile. Other ranks and small tiles take the default. */
static Layout dot_result_layout(Compilation *comp, MlirType t) {
  Layout l = default_layout(comp, t);
  int64_t M = mlirShapedTypeGetDimSize(t, 0), N = l.rank == 2 ? mlirShapedTypeGetDimSize(t, 1) : 0;
  int W = comp->num_warps;
  if (l.rank != 2 || M < 4 || N < 8) return l;
  int best = -1;
  int64_t best_cost = 0;
  for (int wm = 1; wm <= W; wm *= 2) {
    int wn = W / wm;
    if (4 * wm > M || 8 * wn > N) continue;
    int64_t cost = M / (4 * wm) + N / (8 * wn);
    if (best < 0 || cost < best_cost) best = wm, best_cost = cost;
  }
  if (best < 0) return l;
  l.spt[0] = l.spt[1] = 1;
  l.tpw[0] = 4, l.tpw[1] = 8;
  l.wpc[0] = best, l.wpc[1] = W / best;
  l.order[0] = 1, l.order[1] = 0;
  return l;
}

static MlirAttribute default_attr(Compilation *comp, MlirType t) {
  Layout l = default_layout(comp, t);
  return layout_attr(comp, &l);
}

/* v in layout `want`, converting before `user` when needed. */
static MlirValue in_layout(Compilation *comp, MlirOperation user, MlirValue v, MlirAttribute want) {
  MlirType t = mlirValueGetType(v);
  MlirAttribute have = type_layout(t);
  if (!mlirAttributeIsNull(have) && mlirAttributeEqual(have, want)) return v;
  MlirType nt = with_layout(comp, t, want);
  return mlirOperationGetResult(create_before(user, "tile.convert_layout", mlirOperationGetLocation(user), 1, &nt, 1, &v, 0, NULL), 0);
}

static void want_operand(Compilation *comp, MlirOperation op, int i, MlirAttribute want) {
  MlirValue v = mlirOperationGetOperand(op, i);
  MlirValue c = in_layout(comp, op, v, want);
  if (!mlirValueEqual(c, v)) mlirOperationSetOperand(op, i, c);
}

static void set_layout(Compilation *comp, MlirValue v, MlirAttribute layout) {
  mlirValueSetType(v, with_layout(comp, mlirValueGetType(v), layout));
}

/* Every tensor operand in its default layout. */
static void default_operands(Compilation *comp, MlirOperation op, int from) {
  for (intptr_t i = from; i < mlirOperationGetNumOperands(op); i++) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (is_tensor(v)) want_operand(comp, op, (int)i, default_attr(comp, mlirValueGetType(v)));
  }
}

static void default_results(Compilation *comp, MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); i++) {
    MlirValue r = mlirOperationGetResult(op, i);
    if (is_tensor(r)) set_layout(comp, r, default_attr(comp, mlirValueGetType(r)));
  }
}

static void default_block_args(Compilation *comp, MlirBlock b) {
  for (intptr_t i = 0; i < mlirBlockGetNumArguments(b); i++) {
    MlirValue a = mlirBlockGetArgument(b, i);
    if (is_tensor(a)) mlirBlockArgumentSetType(a, with_layout(comp, mlirValueGetType(a), default_attr(comp, mlirValueGetType(a))));
  }
}

/* The operand's layout when it is blocked, else its default. */
static MlirAttribute blocked_or_default(Compilation *comp, MlirValue v) {
  Layout l;
  if (layout_of_type(comp, mlirValueGetType(v), &l) && l.kind == L_BLOCKED) return type_layout(mlirValueGetType(v));
  return default_attr(comp, mlirValueGetType(v));
}

/* trans, join and split move no data when their results take layouts
 * derived from their operands': a transpose permutes the operand's layout;
 * join adds a last dimension of 2 held in each thread; split wants its
 * operand's last dimension (of 2) in each thread and drops it. */
static void shape_op_layouts(Compilation *comp, MlirOperation op, TileOp t) {
  MlirValue src = mlirOperationGetOperand(op, 0);
  MlirType st = mlirValueGetType(src);
  int r = (int)mlirShapedTypeGetRank(st);
  Layout in;
  if (t == TOP_split) {
    int64_t shape[MAX_RANK];
    int spt[MAX_RANK], order[MAX_RANK];
    for (int i = 0; i < r; i++) {
      shape[i] = mlirShapedTypeGetDimSize(st, i);
      spt[i] = 1;
      order[i] = i == 0 ? r - 1 : r - 1 - i;
    }
    spt[r - 1] = 2;
    bool ok = layout_of_type(comp, st, &in) && in.kind == L_BLOCKED && in.spt[r - 1] == 2 && in.tpw[r - 1] == 1 &&
              in.wpc[r - 1] == 1 && in.order[0] == r - 1;
    if (!ok) {
      in = layout_blocked(comp, r, shape, spt, order);
      want_operand(comp, op, 0, layout_attr(comp, &in));
    }
    Layout out = {.kind = L_BLOCKED, .rank = r - 1};
    for (int i = 0; i < r - 1; i++) {
      out.spt[i] = in.spt[i], out.tpw[i] = in.tpw[i], out.wpc[i] = in.wpc[i];
      out.order[i] = in.order[i + 1];
    }
    for (int i = 0; i < 2; i++) set_layout(comp, mlirOperationGetResult(op, i), layout_attr(comp, &out));
    return;
  }
  MlirAttribute la = blocked_or_default(comp, src);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) want_operand(comp, op, (int)i, la);
  layout_of_type(comp, with_layout(comp, st, la), &in);
  Layout out = {.kind = L_BLOCKED, .rank = t == TOP_join ? r + 1 : r};
  if (t == TOP_join) {
    for (int i = 0; i < r; i++) {
      out.spt[i] = in.spt[i], out.tpw[i] = in.tpw[i], out.wpc[i] = in.wpc[i];
      out.order[i + 1] = in.order[i];
    }
    out.spt[r] = 2, out.tpw[r] = 1, out.wpc[r] = 1, out.order[0] = r;
  } else {
    MlirAttribute oa = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("order"));
    int perm[MAX_RANK], inv[MAX_RANK];
    for (int i = 0; i < r; i++) perm[i] = mlirDenseI32ArrayGetElement(oa, i);
    for (int i = 0; i < r; i++) {
      inv[perm[i]] = i;
      out.spt[i] = in.spt[perm[i]], out.tpw[i] = in.tpw[perm[i]], out.wpc[i] = in.wpc[perm[i]];
    }
    for (int k = 0; k < r; k++) out.order[k] = inv[in.order[k]];
  }
  set_layout(comp, mlirOperationGetResult(op, 0), layout_attr(comp, &out));
}

static void convert_op(MlirOperation op, void *user) {
  Compilation *comp = user;
  TileOp t = tile_op_of(op);
  /* combiner regions hold scalars only */
  MlirOperation parent = mlirOperationGetParentOperation(op);
  if (!mlirOperationIsNull(parent) && (tile_op_of(parent) == TOP_reduce || tile_op_of(parent) == TOP_scan)) return;
  if (op_is(op, "func.func") || op_is(op, "func.return") || op_is(op, "builtin.module")) return;

  if (t == TOP_scan) {
    /* a scan wants each thread's elements along the axis contiguous: the
     * threads then chain their runs in order */
    MlirType st = mlirValueGetType(mlirOperationGetOperand(op, 0));
    int r = (int)mlirShapedTypeGetRank(st), axis = (int)op_int_attr(op, "axis", 0);
    int64_t shape[MAX_RANK];
    for (int i = 0; i < r; i++) shape[i] = mlirShapedTypeGetDimSize(st, i);
    int spt[MAX_RANK], order[MAX_RANK];
    int64_t others = 1;
    for (int i = 0; i < r; i++) {
      spt[i] = 1;
      if (i != axis) others *= shape[i];
    }
    int64_t threads = (int64_t)comp->num_warps * comp->threads_per_warp;
    int64_t along = threads / (others < threads ? others : threads);
    if (along < 1) along = 1;
    spt[axis] = shape[axis] > along ? (int)(shape[axis] / along) : 1;
    /* the axis is the fastest dimension, the others follow */
    order[0] = axis;
    for (int i = 0, k = 1; i < r; i++)
      if (i != axis) order[k++] = i;
    Layout l = layout_blocked(comp, r, shape, spt, order);
    MlirAttribute la = layout_attr(comp, &l);
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) want_operand(comp, op, (int)i, la);
    for (intptr_t i = 0; i < mlirOperationGetNumResults(op); i++) set_layout(comp, mlirOperationGetResult(op, i), la);
    return;
  }
  if (t == TOP_reduce) {
    MlirAttribute l0 = blocked_or_default(comp, mlirOperationGetOperand(op, 0));
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) want_operand(comp, op, (int)i, l0);
    Layout parent_l;
    layout_of_type(comp, with_layout(comp, mlirValueGetType(mlirOperationGetOperand(op, 0)), l0), &parent_l);
    int axis = (int)op_int_attr(op, "axis", 0);
    for (intptr_t i = 0; i < mlirOperationGetNumResults(op); i++) {
      MlirValue r = mlirOperationGetResult(op, i);
      if (!is_tensor(r)) continue;
      Layout s = {.kind = L_SLICE, .rank = parent_l.rank - 1, .dim = axis, .parent = &parent_l};
      set_layout(comp, r, layout_attr(comp, &s));
    }
    return;
  }
  if (t == TOP_expand_dims) {
    MlirValue r = mlirOperationGetResult(op, 0);
    Layout rl = default_layout(comp, mlirValueGetType(r));
    set_layout(comp, r, layout_attr(comp, &rl));
    if (is_tensor(mlirOperationGetOperand(op, 0))) {
      Layout s = {.kind = L_SLICE, .rank = rl.rank - 1, .dim = (int)op_int_attr(op, "axis", 0), .parent = &rl};
      want_operand(comp, op, 0, layout_attr(comp, &s));
    }
    return;
  }
  if (t == TOP_dot) {
    MlirValue r = mlirOperationGetResult(op, 0);
    Layout rl = dot_result_layout(comp, mlirValueGetType(r));
    MlirAttribute ra = layout_attr(comp, &rl);
    set_layout(comp, r, ra);
    for (int i = 0; i < 2; i++) {
      MlirType et = mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetOperand(op, i)));
      int bits = mlirTypeIsAInteger(et) ? (int)mlirIntegerTypeGetWidth(et) : mlirTypeIsAF16(et) || mlirTypeIsABF16(et) ? 16 : mlirTypeIsAF64(et) ? 64 : mlirTypeIsAF32(et) ? 32 : 8;
      Layout d = {.kind = L_DOT_OP, .rank = rl.rank, .dim = i, .parent = &rl, .k_width = bits >= 32 ? 1 : 32 / bits};
      want_operand(comp, op, i, layout_attr(comp, &d));
    }
    want_operand(comp, op, 2, ra);
    return;
  }
  if (t == TOP_descriptor_load || t == TOP_descriptor_store) {
    /* a TMA box lies in shared memory row after row: each thread reads or
     * writes 16 bytes of a row at a time, the lanes across the row */
    MlirValue v = t == TOP_descriptor_load ? mlirOperationGetResult(op, 0) : mlirOperationGetOperand(op, 1);
    MlirType vt = mlirValueGetType(v), et = mlirShapedTypeGetElementType(vt);
    int r = (int)mlirShapedTypeGetRank(vt);
    int64_t shape[MAX_RANK], elems = 1;
    int spt[MAX_RANK];
    for (int i = 0; i < r; i++) shape[i] = mlirShapedTypeGetDimSize(vt, i), spt[i] = 1, elems *= shape[i];
    int bits = mlirTypeIsAInteger(et) ? (int)mlirIntegerTypeGetWidth(et) : (int)mlirFloatTypeGetWidth(et);
    int64_t vec = 128 / bits, threads = (int64_t)comp->num_warps * comp->threads_per_warp;
    while (vec > 1 && (shape[r - 1] % vec || elems / vec < threads)) vec /= 2;
    spt[r - 1] = (int)vec;
    Layout l = layout_blocked(comp, r, shape, spt, NULL);
    MlirAttribute la = layout_attr(comp, &l);
    if (t == TOP_descriptor_load) set_layout(comp, v, la);
    else want_operand(comp, op, 1, la);
    return;
  }
  if (t == TOP_broadcast) {
    MlirValue src = mlirOperationGetOperand(op, 0);
    MlirAttribute l = blocked_or_default(comp, src);
    want_operand(comp, op, 0, l);
    set_layout(comp, mlirOperationGetResult(op, 0), l);
    return;
  }
  if (t == TOP_trans || t == TOP_join || t == TOP_split) {
    shape_op_layouts(comp, op, t);
    return;
  }
  if (t == TOP_reshape || t == TOP_cat || t == TOP_print ||
      t == TOP_convert_layout) {
    default_results(comp, op); /* operands stay in their layouts */
    return;
  }
  if (op_is(op, "scf.for")) {
    default_operands(comp, op, 3);
    default_results(comp, op);
    default_block_args(comp, mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)));
    return;
  }
  if (op_is(op, "scf.while")) {
    default_operands(comp, op, 0);
    default_results(comp, op);
    for (int i = 0; i < 2; i++) default_block_args(comp, mlirRegionGetFirstBlock(mlirOperationGetRegion(op, i)));
    return;
  }
  if (op_is(op, "scf.condition")) {
    default_operands(comp, op, 1);
    return;
  }
  if (op_is(op, "arith.constant")) {
    MlirValue r = mlirOperationGetResult(op, 0);
    if (!is_tensor(r)) return;
    default_results(comp, op);
    /* the value attribute carries the type, with its layout */
    MlirAttribute v = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value"));
    if (mlirAttributeIsADenseElements(v) && mlirDenseElementsAttrIsSplat(v))
      mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("value"),
                                      mlirDenseElementsAttrSplatGet(mlirValueGetType(r), mlirDenseElementsAttrGetSplatValue(v)));
    return;
  }
  /* elementwise ops, memory ops, yields, splat, make_range, ... */
  default_operands(comp, op, 0);
  default_results(comp, op);
}

bool pass_convert_to_gpu(Compilation *comp, MlirOperation module) {
  walk_ops(module, convert_op, comp, false);
  return true;
}
