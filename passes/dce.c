/*
 * dce.c — dead code elimination for tile IR.
 *
 * Requires: nothing. Guarantees: no pure op (arith, math, or a tile op the
 * property table calls pure) with results is left without a user. Upstream
 * DCE cannot do this for tile ops: IRDL ops carry no side-effect traits.
 */
#include "passes.h"

typedef struct Dead {
  Arena *a;
  PtrVec ops;
} Dead;

static void collect(MlirOperation op, void *user) {
  Dead *d = user;
  if (mlirOperationGetNumResults(op) > 0 && op_is_pure(op) && op_results_unused(op))
    vec_push(d->a, &d->ops, op.ptr);
}

bool pass_dce(PassCtx *pc, MlirOperation module) {
  for (;;) {
    Dead d = {.a = pc->a};
    walk_ops(module, collect, &d, true);
    if (!d.ops.n) return true;
    /* users were collected after their operands: erase from the end */
    for (int i = d.ops.n - 1; i >= 0; i--) {
      MlirOperation op = {d.ops.v[i]};
      if (op_results_unused(op)) op_erase(op);
    }
  }
}
