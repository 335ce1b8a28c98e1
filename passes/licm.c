/*
 * licm.c — loop-invariant code motion for tile IR.
 *
 * Requires: nothing. Guarantees: a pure op without regions in the body of an
 * scf.for or scf.while whose operands are all defined outside the loop is
 * moved before the loop (inner loops first, so invariants climb out of
 * nests). Loads are not moved: memory may change inside the loop. A loop
 * marked tile.disable_licm (tl.range(..., disable_licm=True)) keeps its body,
 * and LLVM's LICM is told the same (llvm.licm.disable, codegen/lower_control.c).
 */
#include "passes.h"

typedef struct Loops {
  Arena *a;
  PtrVec v;
} Loops;

static void collect(MlirOperation op, void *user) {
  Loops *l = user;
  if (op_is(op, "scf.for") || op_is(op, "scf.while")) vec_push(l->a, &l->v, op.ptr);
}

static bool invariant(MlirOperation op, MlirOperation loop) {
  if (!op_is_pure(op) || mlirOperationGetNumRegions(op) > 0) return false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++)
    if (value_defined_in(mlirOperationGetOperand(op, i), loop)) return false;
  return true;
}

bool pass_licm(Compilation *comp, MlirOperation module) {
  Loops l = {.a = comp->a};
  walk_ops(module, collect, &l, true); /* post-order: inner loops first */
  for (int i = 0; i < l.v.n; i++) {
    MlirOperation loop = {l.v.v[i]};
    if (!mlirAttributeIsNull(mlirOperationGetAttributeByName(loop, mlirStringRefCreateFromCString("tile.disable_licm"))))
      continue;
    for (intptr_t r = 0; r < mlirOperationGetNumRegions(loop); r++) {
      MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, r));
      MlirOperation *ops;
      int n = block_ops(comp->a, b, &ops);
      for (int k = 0; k < n; k++)
        if (invariant(ops[k], loop)) mlirOperationMoveBefore(ops[k], loop);
    }
  }
  return true;
}
