/*
 * dce.c — dead code elimination for tile IR.
 *
 * Requires: nothing. Guarantees: no pure op (arith, math, or a tile op the
 * property table calls pure) and no load but a volatile one is left
 * without a user. Upstream
 * DCE cannot do this for tile ops: IRDL ops carry no side-effect traits.
 *
 * One walk finds the ops dead already; erasing one can kill the producers
 * of its operands, which go on a worklist, so a dead chain costs its length
 * and not a walk per link.
 */
#include "passes.h"

typedef struct Dead {
  Arena *a;
  PtrVec ops;
} Dead;

/* A load only reads: unused, it goes too, unless volatile (as Triton's
 * loads carry a read effect and no other). */
static bool removable(MlirOperation op) {
  return op_is_pure(op) || op_is_plain_load(op);
}

static bool dead(MlirOperation op) {
  return mlirOperationGetNumResults(op) > 0 && removable(op) && op_results_unused(op);
}

static void collect(MlirOperation op, void *user) {
  Dead *d = user;
  if (dead(op)) vec_push(d->a, &d->ops, op.ptr);
}

bool pass_dce(Compilation *comp, MlirOperation module) {
  Dead d = {.a = comp->a};
  walk_ops(module, collect, &d, true);
  /* users were collected after their operands: erase from the end. A
   * producer goes on the list when its last user is erased, once (an op
   * that uses it twice names it once), so nothing on the list is erased
   * before it is taken off. */
  PtrVec producers = {0};
  while (d.ops.n) {
    MlirOperation op = {d.ops.v[--d.ops.n]};
    producers.n = 0;
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) {
      MlirOperation p = value_owner(mlirOperationGetOperand(op, i));
      bool seen = mlirOperationIsNull(p);
      for (int k = 0; k < producers.n && !seen; k++) seen = producers.v[k] == p.ptr;
      if (!seen) vec_push(comp->a, &producers, p.ptr);
    }
    op_erase(op);
    for (int k = 0; k < producers.n; k++) {
      MlirOperation p = {producers.v[k]};
      if (dead(p)) vec_push(comp->a, &d.ops, p.ptr);
    }
  }
  return true;
}
