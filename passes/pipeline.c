/*
 * pipeline.c — software pipelining of K loops: which loads go ahead.
 *
 * Requires: tile IR with layouts, after accelerate-matmul (a dot on tensor
 * cores has its operands converted to dot-operand layouts of an MMA
 * layout). Guarantees: an scf.for that can be pipelined carries
 * `tile.pipeline = S` (its stages: `tl.range(..., num_stages=S)`, else the
 * kernel's num_stages), and the ops of its first stage carry
 * `tile.stage = 0`: the loads whose only use is their conversion to a
 * 16-bit operand of mma.sync, and everything in the body they depend on
 * (addresses, masks, the pointers the loop advances). Everything else is
 * the last stage. The lowering (codegen/lower_control.c) then issues the
 * first stage of iteration i + S - 1 while the last stage of iteration i
 * runs: the loads go to S - 1 slots of a buffer in shared memory by
 * cp.async, S - 1 iterations ahead, as Triton's pipeliner does for sm_80.
 *
 * A loop is pipelined when S >= 2, the target is sm_80 or later, its step
 * is a positive constant, it has such loads, and the first stage stands on
 * its own: its ops are pure, without regions, directly in the body; they
 * use only values from outside the loop, the induction variable and
 * values the loop carries whose next value the first stage computes (a
 * pointer advanced each step) and nothing else uses; and nothing but the
 * loop's yield of those values uses what the first stage computes, but the
 * loads' conversions, and nothing after the loop uses those values (they
 * run ahead). Other loops stay as they are.
 */
#include "passes.h"

#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

static MlirStringRef sref(const char *s) { return mlirStringRefCreateFromCString(s); }

/* A 2-D load whose only use is a conversion to a 16-bit mma.sync operand. */
static bool feeds_mma(Compilation *comp, MlirOperation op) {
  if (tile_op_of(op) != TOP_load || mlirOperationGetNumResults(op) != 1) return false;
  MlirValue r = mlirOperationGetResult(op, 0);
  MlirOpOperand u = mlirValueGetFirstUse(r);
  if (mlirOpOperandIsNull(u) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(u))) return false;
  MlirOperation cv = mlirOpOperandGetOwner(u);
  Layout l;
  if (tile_op_of(cv) != TOP_convert_layout || !layout_of_type(comp, mlirValueGetType(mlirOperationGetResult(cv, 0)), &l) ||
      l.kind != L_DOT_OP || l.parent->kind != L_MMA)
    return false;
  MlirType rt = mlirValueGetType(r), et = mlirShapedTypeGetElementType(rt);
  /* 2-D: a batched dot's operands are not copied by cp.async (lower_memory.c) */
  return mlirShapedTypeGetRank(rt) == 2 && (mlirTypeIsAF16(et) || mlirTypeIsABF16(et)) &&
         mlirBlockEqual(mlirOperationGetBlock(cv), mlirOperationGetBlock(op));
}

typedef struct Plan {
  Compilation *comp;
  MlirOperation loop;
  MlirBlock body;
  PtrVec stage0; /* ops of the first stage */
  unsigned long long carried; /* bit i: iter arg i is the first stage's */
  bool ok;
} Plan;

static bool in_stage0(const Plan *p, MlirOperation op) {
  for (int i = 0; i < p->stage0.n; i++)
    if (p->stage0.v[i] == op.ptr) return true;
  return false;
}

/* Adds v's producers in the body to the first stage. */
static void take(Plan *p, MlirValue v) {
  if (!p->ok) return;
  if (mlirValueIsABlockArgument(v)) {
    if (!mlirBlockEqual(mlirBlockArgumentGetOwner(v), p->body)) return; /* from outside */
    intptr_t i = mlirBlockArgumentGetArgNumber(v);
    if (i == 0) return; /* the induction variable */
    if (i - 1 >= 64) {
      p->ok = false;
      return;
    }
    if (p->carried >> (i - 1) & 1) return;
    p->carried |= 1ull << (i - 1);
    /* its next value is the first stage's too */
    take(p, mlirOperationGetOperand(mlirBlockGetTerminator(p->body), (intptr_t)(i - 1)));
    return;
  }
  MlirOperation d = value_owner(v);
  if (!mlirBlockEqual(mlirOperationGetBlock(d), p->body)) return; /* from outside */
  if (in_stage0(p, d)) return;
  bool load = feeds_mma(p->comp, d);
  if (!load && (!op_is_pure(d) || mlirOperationGetNumRegions(d))) {
    p->ok = false;
    return;
  }
  vec_push(p->comp->a, &p->stage0, d.ptr);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++) take(p, mlirOperationGetOperand(d, i));
}

/* Whether every use of v is in the first stage, or the yield of a carried
 * value of it (or, for a load, its conversion). */
static bool used_by_stage0(const Plan *p, MlirValue v, bool load) {
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation o = mlirOpOperandGetOwner(u);
    if (in_stage0(p, o)) continue;
    if (load && tile_op_of(o) == TOP_convert_layout) continue;
    if (mlirOperationEqual(o, mlirBlockGetTerminator(p->body)) &&
        p->carried >> mlirOpOperandGetOperandNumber(u) & 1)
      continue;
    return false;
  }
  return true;
}

static int stages_of(MlirOperation loop) {
  int s = (int)op_int_attr(loop, "tile.num_stages", 0);
  for (MlirOperation f = loop; !s && !mlirOperationIsNull(f); f = mlirOperationGetParentOperation(f))
    if (op_is(f, "func.func")) s = (int)op_int_attr(f, "tile.num_stages", 0);
  return s;
}

static bool positive_constant(MlirValue v) {
  MlirOperation d = value_owner(v);
  if (mlirOperationIsNull(d) || !op_is(d, "arith.constant")) return false;
  MlirAttribute a = mlirOperationGetAttributeByName(d, sref("value"));
  return mlirAttributeIsAInteger(a) && mlirIntegerAttrGetValueInt(a) > 0;
}

static void plan_loop(Compilation *comp, MlirOperation loop) {
  int stages = stages_of(loop);
  if (stages < 2 || !positive_constant(mlirOperationGetOperand(loop, 2))) return;
  Plan p = {.comp = comp, .loop = loop, .body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0)), .ok = true};
  int loads = 0;
  for (MlirOperation o = mlirBlockGetFirstOperation(p.body); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
    if (feeds_mma(comp, o)) {
      loads++;
      take(&p, mlirOperationGetResult(o, 0));
    }
  if (!loads || !p.ok) return;
  /* the first stage stands on its own */
  for (int i = 0; i < p.stage0.n && p.ok; i++) {
    MlirOperation o = {p.stage0.v[i]};
    bool load = feeds_mma(comp, o);
    for (intptr_t r = 0; r < mlirOperationGetNumResults(o) && p.ok; r++)
      p.ok = used_by_stage0(&p, mlirOperationGetResult(o, r), load);
  }
  /* the values it carries run ahead: nothing after the loop may use them */
  for (int i = 0; i < 64 && p.ok; i++)
    if (p.carried >> i & 1)
      p.ok = used_by_stage0(&p, mlirBlockGetArgument(p.body, i + 1), false) &&
             mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(loop, i)));
  if (!p.ok) return;
  MlirContext ctx = mlirOperationGetContext(loop);
  MlirType i32 = mlirIntegerTypeGet(ctx, 32);
  mlirOperationSetAttributeByName(loop, sref("tile.pipeline"), mlirIntegerAttrGet(i32, stages));
  for (int i = 0; i < p.stage0.n; i++)
    mlirOperationSetAttributeByName((MlirOperation){p.stage0.v[i]}, sref("tile.stage"), mlirIntegerAttrGet(i32, 0));
}

typedef struct Loops {
  Compilation *comp;
  PtrVec v;
} Loops;

static void collect(MlirOperation op, void *user) {
  Loops *l = user;
  if (op_is(op, "scf.for")) vec_push(l->comp->a, &l->v, op.ptr);
}

bool pass_pipeline(Compilation *comp, MlirOperation module) {
  if (comp->target->sm < 80) return true;
  Loops l = {.comp = comp};
  walk_ops(module, collect, &l, false);
  for (int i = 0; i < l.v.n; i++) plan_loop(comp, (MlirOperation){l.v.v[i]});
  return true;
}
