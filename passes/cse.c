/*
 * cse.c — common subexpression elimination of pure ops.
 *
 * Requires: nothing. Guarantees: of two pure ops without regions that have
 * the same name, operands, attributes and result types, where the first
 * dominates the second, only the first remains. Scopes follow the region
 * tree: an op is available in its block after it and in the regions nested
 * there.
 */
#include "passes.h"

#include <mlir-c/BuiltinAttributes.h>

typedef struct Scope {
  PtrVec ops; /* available ops */
} Scope;

static bool same_op(MlirOperation a, MlirOperation b) {
  if (!mlirIdentifierEqual(mlirOperationGetName(a), mlirOperationGetName(b))) return false;
  intptr_t n = mlirOperationGetNumOperands(a);
  if (n != mlirOperationGetNumOperands(b)) return false;
  for (intptr_t i = 0; i < n; i++)
    if (!mlirValueEqual(mlirOperationGetOperand(a, i), mlirOperationGetOperand(b, i))) return false;
  intptr_t r = mlirOperationGetNumResults(a);
  if (r != mlirOperationGetNumResults(b)) return false;
  for (intptr_t i = 0; i < r; i++)
    if (!mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(a, i)), mlirValueGetType(mlirOperationGetResult(b, i))))
      return false;
  intptr_t na = mlirOperationGetNumAttributes(a);
  if (na != mlirOperationGetNumAttributes(b)) return false;
  for (intptr_t i = 0; i < na; i++) {
    MlirNamedAttribute x = mlirOperationGetAttribute(a, i), y = mlirOperationGetAttribute(b, i);
    if (!mlirIdentifierEqual(x.name, y.name) || !mlirAttributeEqual(x.attribute, y.attribute)) return false;
  }
  return true;
}

static void cse_block(PassCtx *pc, MlirBlock b, Scope *outer);

static void cse_region_ops(PassCtx *pc, MlirOperation op, Scope *scope) {
  intptr_t nr = mlirOperationGetNumRegions(op);
  for (intptr_t i = 0; i < nr; i++) {
    MlirRegion r = mlirOperationGetRegion(op, i);
    for (MlirBlock b = mlirRegionGetFirstBlock(r); !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      cse_block(pc, b, scope);
  }
}

static void cse_block(PassCtx *pc, MlirBlock b, Scope *outer) {
  Scope scope = {0};
  for (int i = 0; outer && i < outer->ops.n; i++) vec_push(pc->a, &scope.ops, outer->ops.v[i]);
  MlirOperation *ops;
  int n = block_ops(pc->a, b, &ops);
  for (int i = 0; i < n; i++) {
    MlirOperation op = ops[i];
    if (mlirOperationGetNumRegions(op) > 0) {
      cse_region_ops(pc, op, &scope);
      continue;
    }
    if (!op_is_pure(op) || mlirOperationGetNumResults(op) == 0) continue;
    bool replaced = false;
    for (int k = 0; k < scope.ops.n && !replaced; k++) {
      MlirOperation prev = {scope.ops.v[k]};
      if (!same_op(prev, op)) continue;
      for (intptr_t r = 0; r < mlirOperationGetNumResults(op); r++)
        mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, r), mlirOperationGetResult(prev, r));
      op_erase(op);
      replaced = true;
    }
    if (!replaced) vec_push(pc->a, &scope.ops, op.ptr);
  }
}

bool pass_cse(PassCtx *pc, MlirOperation module) {
  cse_region_ops(pc, module, NULL);
  return true;
}
