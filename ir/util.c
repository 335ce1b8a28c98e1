/*
 * util.c — what passes and codegen share about ops: predicates, walking,
 * erasing, creating.
 */
#include "ir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

/* ---- ops ------------------------------------------------------------------------ */

static bool name_is(MlirOperation op, const char *prefix, bool whole) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  size_t k = strlen(prefix);
  return n.length >= k && !memcmp(n.data, prefix, k) && (!whole || n.length == k);
}

bool op_is(MlirOperation op, const char *name) { return name_is(op, name, true); }

bool op_is_pure(MlirOperation op) {
  TileOp t = tile_op_of(op);
  if (t != TOP_NONE && (tile_op_flags(t) & OP_PURE_IF_MARKED))
    return !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("pure")));
  if (t != TOP_NONE) return (tile_op_flags(t) & OP_PURE) != 0;
  /* arith and math ops have no side effects (division by zero is poison, not a trap) */
  return name_is(op, "arith.", false) || name_is(op, "math.", false);
}

bool op_is_plain_load(MlirOperation op) {
  return tile_op_of(op) == TOP_load &&
         mlirAttributeIsNull(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("volatile")));
}

bool op_results_unused(MlirOperation op) {
  intptr_t n = mlirOperationGetNumResults(op);
  for (intptr_t i = 0; i < n; i++)
    if (!mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, i)))) return false;
  return true;
}

void op_erase(MlirOperation op) { mlirOperationDestroy(op); }

int64_t op_int_attr(MlirOperation op, const char *name, int64_t dflt) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a)) return dflt;
  return mlirIntegerAttrGetValueInt(a);
}

MlirOperation value_owner(MlirValue v) {
  if (mlirValueIsAOpResult(v)) return mlirOpResultGetOwner(v);
  return (MlirOperation){NULL};
}

bool op_is_shape_preserving(MlirOperation op) {
  intptr_t nops = mlirOperationGetNumOperands(op), nres = mlirOperationGetNumResults(op);
  if (nres < 1 || mlirOperationGetNumRegions(op) > 0 || !op_is_pure(op)) return false;
  MlirType rt = mlirValueGetType(mlirOperationGetResult(op, 0));
  if (!mlirTypeIsARankedTensor(rt)) return false;
  bool any = false;
  for (intptr_t k = 0; k < nops + nres; k++) {
    MlirType t = mlirValueGetType(k < nops ? mlirOperationGetOperand(op, k) : mlirOperationGetResult(op, k - nops));
    if (!mlirTypeIsARankedTensor(t)) {
      if (k >= nops) return false;
      continue;
    }
    if (mlirShapedTypeGetRank(t) != mlirShapedTypeGetRank(rt)) return false;
    for (intptr_t d = 0; d < mlirShapedTypeGetRank(rt); d++)
      if (mlirShapedTypeGetDimSize(t, d) != mlirShapedTypeGetDimSize(rt, d)) return false;
    any |= k < nops;
  }
  return any;
}

bool value_is_zero(MlirValue v) {
  MlirOperation d = value_owner(v);
  if (mlirOperationIsNull(d) || !op_is(d, "arith.constant")) return false;
  MlirAttribute a = mlirOperationGetAttributeByName(d, mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseElements(a) || !mlirDenseElementsAttrIsSplat(a)) return false;
  MlirAttribute x = mlirDenseElementsAttrGetSplatValue(a);
  if (mlirAttributeIsAInteger(x)) return mlirIntegerAttrGetValueInt(x) == 0;
  if (mlirAttributeIsAFloat(x)) {
    double f = mlirFloatAttrGetValueDouble(x);
    return f == 0 && !signbit(f);
  }
  return false;
}

bool value_defined_in(MlirValue v, MlirOperation region_op) {
  MlirBlock b = mlirValueIsABlockArgument(v) ? mlirBlockArgumentGetOwner(v) : mlirOperationGetBlock(mlirOpResultGetOwner(v));
  while (!mlirBlockIsNull(b)) {
    MlirOperation parent = mlirBlockGetParentOperation(b);
    if (mlirOperationIsNull(parent)) return false;
    if (mlirOperationEqual(parent, region_op)) return true;
    b = mlirOperationGetBlock(parent);
  }
  return false;
}

int block_ops(Arena *a, MlirBlock b, MlirOperation **out) {
  int n = 0;
  for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o)) n++;
  *out = arena_alloc(a, sizeof(MlirOperation) * (size_t)(n + 1));
  int i = 0;
  for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
    (*out)[i++] = o;
  return n;
}

typedef struct WalkState {
  OpFn fn;
  void *user;
} WalkState;

static MlirWalkResult walk_cb(MlirOperation op, void *user) {
  WalkState *w = user;
  w->fn(op, w->user);
  return MlirWalkResultAdvance;
}

void walk_ops(MlirOperation root, OpFn fn, void *user, bool post_order) {
  WalkState w = {fn, user};
  mlirOperationWalk(root, walk_cb, &w, post_order ? MlirWalkPostOrder : MlirWalkPreOrder);
}

MlirOperation create_before(MlirOperation before, const char *name, MlirLocation loc, int nres,
                            const MlirType *res, int nops, const MlirValue *ops, int nattrs,
                            const MlirNamedAttribute *attrs) {
  MlirOperationState st = mlirOperationStateGet(mlirStringRefCreateFromCString(name), loc);
  if (nres) mlirOperationStateAddResults(&st, nres, res);
  if (nops) mlirOperationStateAddOperands(&st, nops, ops);
  if (nattrs) mlirOperationStateAddAttributes(&st, nattrs, attrs);
  MlirOperation op = mlirOperationCreate(&st);
  if (mlirOperationIsNull(op)) internal_error(__FILE__, __LINE__, name);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, op);
  return op;
}

int op_attrs_except(MlirOperation op, const char *const *skip, MlirNamedAttribute *out, int cap) {
  int n = 0;
  for (intptr_t i = 0; i < mlirOperationGetNumAttributes(op) && n < cap; i++) {
    MlirNamedAttribute a = mlirOperationGetAttribute(op, i);
    MlirStringRef nm = mlirIdentifierStr(a.name);
    bool skipped = false;
    for (const char *const *s = skip; *s && !skipped; s++) skipped = mlirStringRefEqual(nm, mlirStringRefCreateFromCString(*s));
    if (!skipped) out[n++] = a;
  }
  return n;
}

bool splat_int_constant(MlirValue v, int64_t *out) {
  MlirOperation d = value_owner(v);
  /* a splat of a constant scalar is the constant tensor */
  if (!mlirOperationIsNull(d) && tile_op_of(d) == TOP_splat) return splat_int_constant(mlirOperationGetOperand(d, 0), out);
  if (mlirOperationIsNull(d) || !op_is(d, "arith.constant")) return false;
  MlirAttribute a = mlirOperationGetAttributeByName(d, mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsAInteger(a)) {
    *out = mlirIntegerAttrGetValueInt(a);
    return true;
  }
  if (mlirAttributeIsADenseElements(a) && mlirDenseElementsAttrIsSplat(a)) {
    MlirAttribute e = mlirDenseElementsAttrGetSplatValue(a);
    if (!mlirAttributeIsAInteger(e)) return false;
    *out = mlirIntegerAttrGetValueInt(e);
    return true;
  }
  return false;
}
