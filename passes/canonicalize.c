/*
 * canonicalize.c — upstream canonicalization plus folds of tile ops.
 *
 * Requires: nothing. Guarantees, to a fixed point: splat of a constant is a
 * constant; broadcast/expand_dims/reshape of a splat is a splat; chains of
 * broadcasts, reshapes and conversions collapse; a shape op to its own type
 * is removed; addptr by zero is its pointer; a load whose mask is constant
 * true drops the mask, one whose mask is constant false is its `other`.
 * Then MLIR's canonicalizer folds arith/math/scf (constant conditions of
 * select and if, dead results, ...). And `acc += tl.dot(a, b)`, a dot with
 * a zero accumulator whose one use is an add, becomes tl.dot(a, b, acc)
 * (Triton's combine): the tensor cores accumulate in place, without a
 * second accumulator live across the K step and an add per element.
 */
#include "passes.h"

#include <math.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Pass.h>
#include <mlir-c/Transforms.h>

typedef struct Folds {
  Compilation *comp;
  int changes;
  PtrVec erase; /* replaced ops that DCE would keep (loads): erased after the walk */
} Folds;

static MlirValue operand(MlirOperation op, int i) { return mlirOperationGetOperand(op, i); }
static MlirValue result(MlirOperation op) { return mlirOperationGetResult(op, 0); }
static MlirType rtype(MlirOperation op) { return mlirValueGetType(result(op)); }

static void replace(Folds *f, MlirOperation op, MlirValue with) {
  mlirValueReplaceAllUsesOfWith(result(op), with);
  f->changes++;
}

/* The scalar constant attribute behind v (an arith.constant scalar or splat). */
static MlirAttribute scalar_constant(MlirValue v) {
  MlirOperation d = value_owner(v);
  if (mlirOperationIsNull(d) || !op_is(d, "arith.constant")) return (MlirAttribute){NULL};
  MlirAttribute a = mlirOperationGetAttributeByName(d, mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsADenseElements(a)) {
    if (!mlirDenseElementsAttrIsSplat(a)) return (MlirAttribute){NULL};
    return mlirDenseElementsAttrGetSplatValue(a);
  }
  return a;
}

static MlirValue make_constant(MlirOperation before, MlirType ty, MlirAttribute scalar) {
  MlirAttribute v = mlirTypeIsARankedTensor(ty) ? mlirDenseElementsAttrSplatGet(ty, scalar) : scalar;
  MlirContext ctx = mlirOperationGetContext(before);
  MlirNamedAttribute na = mlirNamedAttributeGet(mlirIdentifierGet(ctx, mlirStringRefCreateFromCString("value")), v);
  return mlirOperationGetResult(create_before(before, "arith.constant", mlirOperationGetLocation(before), 1, &ty, 0, NULL, 1, &na), 0);
}

static MlirValue make_splat(MlirOperation before, MlirType ty, MlirValue x) {
  return mlirOperationGetResult(create_before(before, "tile.splat", mlirOperationGetLocation(before), 1, &ty, 1, &x, 0, NULL), 0);
}

static MlirOperation producer(MlirValue v, const char *name) {
  MlirOperation d = value_owner(v);
  return !mlirOperationIsNull(d) && op_is(d, name) ? d : (MlirOperation){NULL};
}

/* Whether v's only use is one op. */
static bool one_use(MlirValue v) {
  MlirOpOperand u = mlirValueGetFirstUse(v);
  return !mlirOpOperandIsNull(u) && mlirOpOperandIsNull(mlirOpOperandGetNextUse(u));
}

/* dot(a, b, 0) + c or c + dot(a, b, 0), the dot used only there:
 * dot(a, b, c), placed at the add. */
static void fold_dot_add(Folds *f, MlirOperation add) {
  for (int i = 0; i < 2; i++) {
    MlirOperation d = producer(operand(add, i), "tile.dot");
    if (mlirOperationIsNull(d) || !one_use(result(d)) || !mlirTypeEqual(rtype(d), rtype(add))) continue;
    MlirAttribute z = scalar_constant(operand(d, 2));
    if (mlirAttributeIsNull(z)) continue;
    bool zero = mlirAttributeIsAFloat(z) ? mlirFloatAttrGetValueDouble(z) == 0.0 && !signbit(mlirFloatAttrGetValueDouble(z))
                                         : mlirAttributeIsAInteger(z) && mlirIntegerAttrGetValueInt(z) == 0;
    if (!zero) continue;
    MlirValue ops[3] = {operand(d, 0), operand(d, 1), operand(add, 1 - i)};
    MlirNamedAttribute attrs[16];
    int k = op_attrs_except(d, (const char *const[]){NULL}, attrs, 16);
    MlirType ty = rtype(add);
    MlirOperation nd = create_before(add, "tile.dot", mlirOperationGetLocation(d), 1, &ty, 3, ops, k, attrs);
    replace(f, add, result(nd));
    return;
  }
}

static void fold(MlirOperation op, void *user) {
  Folds *f = user;
  if (op_is(op, "arith.addf") || op_is(op, "arith.addi")) {
    fold_dot_add(f, op);
    return;
  }
  TileOp t = tile_op_of(op);
  switch (t) {
  case TOP_splat: {
    MlirAttribute c = scalar_constant(operand(op, 0));
    if (!mlirAttributeIsNull(c)) replace(f, op, make_constant(op, rtype(op), c));
    return;
  }
  case TOP_broadcast: case TOP_expand_dims: case TOP_reshape: case TOP_convert_layout: {
    MlirValue src = operand(op, 0);
    if (mlirTypeEqual(mlirValueGetType(src), rtype(op))) {
      replace(f, op, src);
      return;
    }
    MlirAttribute c = scalar_constant(src);
    if (!mlirAttributeIsNull(c) && t != TOP_convert_layout) {
      replace(f, op, make_constant(op, rtype(op), c));
      return;
    }
    MlirOperation s = producer(src, "tile.splat");
    if (!mlirOperationIsNull(s) && t != TOP_convert_layout) {
      replace(f, op, make_splat(op, rtype(op), operand(s, 0)));
      return;
    }
    /* x -> A -> B of one kind collapses to x -> B */
    MlirOperation same = value_owner(src);
    if (!mlirOperationIsNull(same) && tile_op_of(same) == t && t != TOP_expand_dims) {
      mlirOperationSetOperand(op, 0, operand(same, 0));
      f->changes++;
    }
    return;
  }
  case TOP_addptr: {
    MlirAttribute c = scalar_constant(operand(op, 1));
    if (!mlirAttributeIsNull(c) && mlirAttributeIsAInteger(c) && mlirIntegerAttrGetValueInt(c) == 0)
      replace(f, op, operand(op, 0));
    return;
  }
  case TOP_load: {
    MlirAttribute seg = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("operandSegmentSizes"));
    if (mlirAttributeIsNull(seg) || mlirDenseI32ArrayGetElement(seg, 1) == 0) return;
    MlirAttribute m = scalar_constant(operand(op, 1));
    if (mlirAttributeIsNull(m) || !mlirAttributeIsAInteger(m)) return;
    bool has_other = mlirDenseI32ArrayGetElement(seg, 2) == 1;
    if (mlirIntegerAttrGetValueInt(m) == 0) {
      if (!has_other) return;
      replace(f, op, operand(op, 2));
      vec_push(f->comp->a, &f->erase, op.ptr);
      return;
    }
    /* all true: an unmasked load */
    MlirValue ptr = operand(op, 0);
    MlirType ty = rtype(op);
    int32_t segs[3] = {1, 0, 0};
    MlirNamedAttribute attrs[16];
    int k = op_attrs_except(op, (const char *const[]){"operandSegmentSizes", NULL}, attrs, 15);
    MlirContext ctx = mlirOperationGetContext(op);
    attrs[k++] = mlirNamedAttributeGet(mlirIdentifierGet(ctx, mlirStringRefCreateFromCString("operandSegmentSizes")),
                                       mlirDenseI32ArrayGet(ctx, 3, segs));
    MlirOperation nl = create_before(op, "tile.load", mlirOperationGetLocation(op), 1, &ty, 1, &ptr, k, attrs);
    replace(f, op, result(nl));
    vec_push(f->comp->a, &f->erase, op.ptr);
    return;
  }
  default: return;
  }
}

bool pass_canonicalize(Compilation *comp, MlirOperation module) {
  for (int round = 0; round < 16; round++) {
    Folds f = {.comp = comp};
    walk_ops(module, fold, &f, false);
    for (int i = 0; i < f.erase.n; i++) op_erase((MlirOperation){f.erase.v[i]});
    pass_dce(comp, module);
    if (!f.changes) break;
  }
  MlirLogicalResult r = mlirPassManagerRunOnOp(ir_canonicalizer(comp->ic), module);
  return mlirLogicalResultIsSuccess(r);
}
