/*
 * coalesce.c — layouts that make global memory accesses coalesced and wide.
 *
 * Requires: convert-to-gpu (every tensor has a layout). Guarantees: the
 * pointer tensor of each load, store and atomic has a blocked layout in
 * which a thread owns a contiguous vector along the fastest-varying
 * dimension, as wide as axis info proves safe (contiguity, and alignment
 * from divisibility) and at most 16 bytes; the order of dimensions follows
 * contiguity; the lanes of a warp and the warps then cover the tile from the
 * fastest dimension out. The memory op's operands are converted into that
 * layout and its result back, for remove-layout-conversions to clean.
 */
#include "passes.h"

#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

typedef struct Coalesce {
  Compilation *comp;
  AxisAnalysis *aa;
  PtrVec ops;
} Coalesce;

static void collect(MlirOperation op, void *user) {
  Coalesce *c = user;
  TileOp t = tile_op_of(op);
  if (t != TOP_load && t != TOP_store && t != TOP_atomic_rmw && t != TOP_atomic_cas) return;
  if (!mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetOperand(op, 0)))) return;
  vec_push(c->comp->a, &c->ops, op.ptr);
}

/* The coalesced layout for a pointer tensor. */
static Layout coalesced(Coalesce *c, MlirValue ptr) {
  Compilation *comp = c->comp;
  MlirType t = mlirValueGetType(ptr);
  int r = (int)mlirShapedTypeGetRank(t);
  int64_t shape[MAX_RANK], numel = 1;
  for (int i = 0; i < r; i++) numel *= shape[i] = mlirShapedTypeGetDimSize(t, i);
  const AxisInfo *ai = axis_info_of(c->aa, ptr);
  int order[MAX_RANK];
  /* fastest first: by contiguity, ties to the later dimension */
  for (int i = 0; i < r; i++) order[i] = r - 1 - i;
  if (ai)
    for (int i = 0; i < r; i++)
      for (int j = i + 1; j < r; j++)
        if (ai->contiguity[order[j]] > ai->contiguity[order[i]]) {
          int tmp = order[i];
          order[i] = order[j];
          order[j] = tmp;
        }
  int fast = order[0];
  int64_t bytes = pointee_bytes(comp, t);
  int64_t per_thread = 1;
  if (ai) {
    int64_t contig = ai->contiguity[fast];
    int64_t align = ai->divisibility[fast] / bytes; /* elements the first address is aligned to */
    if (align < 1) align = 1;
    per_thread = contig < align ? contig : align;
  }
  int64_t max_vec = 16 / bytes;
  if (per_thread > max_vec) per_thread = max_vec;
  int64_t threads = (int64_t)comp->num_warps * comp->threads_per_warp;
  int64_t fair = numel / threads; /* no thread should own more than its share */
  if (fair < 1) fair = 1;
  if (per_thread > fair) per_thread = fair;
  if (per_thread > shape[fast]) per_thread = shape[fast];
  int64_t p2 = 1;
  while (p2 * 2 <= per_thread) p2 *= 2;
  int spt[MAX_RANK];
  for (int i = 0; i < r; i++) spt[i] = i == fast ? (int)p2 : 1;
  return layout_blocked(comp, r, shape, spt, order);
}

static void coalesce_op(Coalesce *c, MlirOperation op) {
  Compilation *comp = c->comp;
  MlirValue ptr = mlirOperationGetOperand(op, 0);
  Layout want = coalesced(c, ptr), have;
  if (layout_of_type(comp, mlirValueGetType(ptr), &have) && layout_equal(&want, &have)) return;
  MlirAttribute wa = layout_attr(comp, &want);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (!mlirTypeIsARankedTensor(mlirValueGetType(v))) continue;
    MlirType nt = with_layout(comp, mlirValueGetType(v), wa);
    MlirOperation cv = create_before(op, "tile.convert_layout", mlirOperationGetLocation(op), 1, &nt, 1, &v, 0, NULL);
    mlirOperationSetOperand(op, i, mlirOperationGetResult(cv, 0));
  }
  if (mlirOperationGetNumResults(op) == 0) return;
  MlirValue r = mlirOperationGetResult(op, 0);
  MlirType old = mlirValueGetType(r);
  mlirValueSetType(r, with_layout(comp, old, wa));
  /* users keep the old layout through a conversion after the op */
  MlirOperation next = mlirOperationGetNextInBlock(op);
  MlirOperation back = create_before(next, "tile.convert_layout", mlirOperationGetLocation(op), 1, &old, 1, &r, 0, NULL);
  mlirValueReplaceAllUsesExcept(r, mlirOperationGetResult(back, 0), 1, &back);
}

bool pass_coalesce(Compilation *comp, MlirOperation module) {
  Coalesce c = {.comp = comp, .aa = axis_analyze(comp, module)};
  walk_ops(module, collect, &c, false);
  for (int i = 0; i < c.ops.n; i++) coalesce_op(&c, (MlirOperation){c.ops.v[i]});
  return true;
}
