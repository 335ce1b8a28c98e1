/*
 * verify.c — the tile verifier: MLIR's own checks, then the rules of tile
 * ops that IRDL cannot state (shapes agree, a load's result matches its
 * pointee, masks are i1 of the pointers' shape, dot operands compose, a
 * program id's axis is x, y or z, a range is not empty, inline assembly's
 * values are of one shape).
 * In test builds it runs after every pass.
 */
#include "ir.h"

#include <stdio.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>

typedef struct Check {
  IrContext *ic;
  int errors;
} Check;

static void fail(Check *c, MlirOperation op, const char *msg) {
  char buf[256];
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(buf, sizeof buf, "'%.*s' op %s", (int)name.length, name.data, msg);
  mlirEmitError(mlirOperationGetLocation(op), buf);
  c->errors++;
}

/* Shapes as rank + dims; a scalar has rank 0. */
static int shape_of(MlirType t, int64_t *dims) {
  if (!mlirTypeIsARankedTensor(t)) return 0;
  int r = (int)mlirShapedTypeGetRank(t);
  for (int i = 0; i < r && i < MAX_RANK; i++) dims[i] = mlirShapedTypeGetDimSize(t, i);
  return r;
}

static bool same_shape(MlirType a, MlirType b) {
  int64_t da[MAX_RANK], db[MAX_RANK];
  int ra = shape_of(a, da), rb = shape_of(b, db);
  return ra == rb && !memcmp(da, db, sizeof(int64_t) * (size_t)ra);
}

static MlirType elem(MlirType t) { return mlirTypeIsARankedTensor(t) ? mlirShapedTypeGetElementType(t) : t; }

static MlirType operand_type(MlirOperation op, int i) { return mlirValueGetType(mlirOperationGetOperand(op, i)); }

static bool is_i1(MlirType t) { return mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 1; }

/* Does the element type of ptrs point to the element type of vals? */
static bool pointee_matches(Check *c, MlirType ptrs, MlirType vals) {
  MlirType p = ir_pointee(c->ic, elem(ptrs));
  return !mlirTypeIsNull(p) && mlirTypeEqual(p, elem(vals));
}

static bool is_block_ptr(Check *c, MlirType t) {
  MlirType p = ir_pointee(c->ic, t);
  return !mlirTypeIsNull(p) && mlirTypeIsARankedTensor(p);
}

/* An integer attribute of op, in *v; false when it is missing or not an integer. */
static bool int_attr(MlirOperation op, const char *name, int64_t *v) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a)) return false;
  *v = mlirIntegerAttrGetValueInt(a);
  return true;
}

static MlirWalkResult check_op(MlirOperation op, void *user) {
  Check *c = user;
  TileOp t = tile_op_of(op);
  intptr_t nops = mlirOperationGetNumOperands(op);
  switch (t) {
  case TOP_program_id:
  case TOP_num_programs: {
    /* the lowering reads the x, y or z register by axis */
    int64_t axis;
    MlirType r = mlirValueGetType(mlirOperationGetResult(op, 0));
    if (!int_attr(op, "axis", &axis) || axis < 0 || axis > 2) fail(c, op, "axis must be an integer from 0 to 2");
    else if (!mlirTypeIsAInteger(r) || mlirIntegerTypeGetWidth(r) != 32) fail(c, op, "result must be i32");
    break;
  }
  case TOP_make_range: {
    /* as Triton's: [start, end) is the result's elements, i32, at least one */
    int64_t start, end, d[MAX_RANK];
    MlirType r = mlirValueGetType(mlirOperationGetResult(op, 0));
    if (!int_attr(op, "start", &start) || !int_attr(op, "end", &end)) fail(c, op, "start and end must be integers");
    else if (start >= end) fail(c, op, "start must be less than end");
    else if (shape_of(r, d) != 1 || d[0] != end - start)
      fail(c, op, "result must be a 1-D tensor of end - start elements");
    else if (!mlirTypeIsAInteger(elem(r)) || mlirIntegerTypeGetWidth(elem(r)) != 32)
      fail(c, op, "result elements must be i32");
    break;
  }
  case TOP_load: {
    MlirType p = operand_type(op, 0), r = mlirValueGetType(mlirOperationGetResult(op, 0));
    if (is_block_ptr(c, p)) break;
    if (!same_shape(p, r)) fail(c, op, "result shape differs from the pointers' shape");
    else if (!pointee_matches(c, p, r)) fail(c, op, "result element type is not the pointee type");
    for (int i = 1; i < nops; i++)
      if (!same_shape(p, operand_type(op, i))) fail(c, op, "mask or other shape differs from the pointers' shape");
    break;
  }
  case TOP_store: {
    MlirType p = operand_type(op, 0);
    if (is_block_ptr(c, p)) break;
    if (!same_shape(p, operand_type(op, 1))) fail(c, op, "value shape differs from the pointers' shape");
    else if (!pointee_matches(c, p, operand_type(op, 1))) fail(c, op, "value element type is not the pointee type");
    if (nops > 2 && (!same_shape(p, operand_type(op, 2)) || !is_i1(elem(operand_type(op, 2)))))
      fail(c, op, "mask must be i1 of the pointers' shape");
    break;
  }
  case TOP_addptr:
    if (!same_shape(operand_type(op, 0), operand_type(op, 1)) ||
        !same_shape(operand_type(op, 0), mlirValueGetType(mlirOperationGetResult(op, 0))))
      fail(c, op, "pointer, offset and result shapes differ");
    else if (!mlirTypeIsAInteger(elem(operand_type(op, 1))))
      fail(c, op, "offsets must be integers");
    break;
  case TOP_splat: {
    MlirType r = mlirValueGetType(mlirOperationGetResult(op, 0));
    if (!mlirTypeIsARankedTensor(r) || !mlirTypeEqual(elem(r), operand_type(op, 0)))
      fail(c, op, "result must be a tensor of the operand's type");
    break;
  }
  case TOP_broadcast: {
    int64_t s[MAX_RANK], d[MAX_RANK];
    int rs = shape_of(operand_type(op, 0), s), rd = shape_of(mlirValueGetType(mlirOperationGetResult(op, 0)), d);
    if (rs != rd) fail(c, op, "operand and result ranks differ");
    else
      for (int i = 0; i < rs; i++)
        if (s[i] != d[i] && s[i] != 1) {
          fail(c, op, "a dimension that is not 1 changes size");
          break;
        }
    break;
  }
  case TOP_expand_dims:
    if (shape_of(operand_type(op, 0), (int64_t[MAX_RANK]){0}) + 1 !=
        shape_of(mlirValueGetType(mlirOperationGetResult(op, 0)), (int64_t[MAX_RANK]){0}))
      fail(c, op, "result rank must be the operand's plus one");
    break;
  case TOP_dot: {
    int64_t a[MAX_RANK], b[MAX_RANK], acc[MAX_RANK];
    int ra = shape_of(operand_type(op, 0), a), rb = shape_of(operand_type(op, 1), b), rc = shape_of(operand_type(op, 2), acc);
    if (ra < 2 || ra != rb || ra != rc || a[ra - 1] != b[rb - 2] || acc[rc - 2] != a[ra - 2] || acc[rc - 1] != b[rb - 1])
      fail(c, op, "operand shapes do not compose: A is MxK, B is KxN, C is MxN");
    break;
  }
  case TOP_elementwise_inline_asm: {
    /* the lowering hands each instance `pack` elements of every value, the
     * same elements of each: one shape for all, tensors in and out alike */
    int64_t pack;
    intptr_t nres = mlirOperationGetNumResults(op);
    MlirType first = nres ? mlirValueGetType(mlirOperationGetResult(op, 0)) : (MlirType){NULL};
    bool ok = nres > 0;
    for (intptr_t i = 0; ok && i < nops + nres; i++) {
      MlirType ty = i < nops ? operand_type(op, (int)i) : mlirValueGetType(mlirOperationGetResult(op, i - nops));
      ok = same_shape(ty, first) && mlirTypeIsARankedTensor(ty) == mlirTypeIsARankedTensor(first);
    }
    if (!ok) fail(c, op, "needs one result at least, and its operands and results of one shape");
    else if (!int_attr(op, "pack", &pack) || pack < 1) fail(c, op, "pack must be a positive integer");
    else if (!mlirAttributeIsAString(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("asm_string"))) ||
             !mlirAttributeIsAString(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("constraints"))))
      fail(c, op, "asm_string and constraints must be strings");
    break;
  }
  default: break;
  }
  return MlirWalkResultAdvance;
}

bool ir_verify(IrContext *ic, MlirOperation module, Diags *d) {
  int before = d->errors;
  if (!mlirOperationVerify(module) || d->errors > before) return false;
  Check c = {.ic = ic};
  mlirOperationWalk(module, check_op, &c, MlirWalkPreOrder);
  return c.errors == 0 && d->errors == before;
}
