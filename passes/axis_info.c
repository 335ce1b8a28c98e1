/*
 * axis_info.c — the `axis-info` pass: annotates every op whose one result
 * axis analysis (analysis/axis_info.c) knows something of with
 * tile.contiguity, tile.divisibility and tile.constancy, for tests. It
 * changes nothing else.
 */
#include "passes.h"

#include <mlir-c/BuiltinAttributes.h>

static void annotate(MlirOperation op, void *user) {
  AxisAnalysis *aa = user;
  if (mlirOperationGetNumResults(op) != 1) return;
  const AxisInfo *ai = axis_info_of(aa, mlirOperationGetResult(op, 0));
  if (!ai || ai->rank == 0) return;
  MlirContext ctx = mlirOperationGetContext(op);
  const char *names[3] = {"tile.contiguity", "tile.divisibility", "tile.constancy"};
  const int64_t *vals[3] = {ai->contiguity, ai->divisibility, ai->constancy};
  for (int k = 0; k < 3; k++)
    mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString(names[k]), mlirDenseI64ArrayGet(ctx, ai->rank, vals[k]));
}

bool pass_axis_info(Compilation *comp, MlirOperation module) {
  AxisAnalysis *aa = axis_analyze(comp, module);
  walk_ops(module, annotate, aa, false);
  return true;
}
