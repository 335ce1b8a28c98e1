/*
 * pipeline.c — software pipelining of K loops: which loads go ahead.
 *
 * Requires: tile IR with layouts, after accelerate-matmul (a dot on tensor
 * cores has its operands converted to dot-operand layouts of an MMA
 * layout). Guarantees: an scf.for that can be pipelined carries
 * `tile.pipeline = S` (its stages: `tl.range(..., num_stages=S)`, else the
 * kernel's num_stages), and the ops of its first stage carry
 * `tile.stage = 0`: the loads whose only use is their conversion to a
 * 16-bit operand of mma.sync and which cp.async can copy (runs of 4 bytes
 * or more: axis info), or, on sm_90a, a host descriptor's TMA copy
 * (tma_lowering.c) of a wgmma operand, and everything in the body they depend on
 * (addresses, masks, the pointers the loop advances). Everything else is
 * the last stage. The lowering (codegen/lower_control.c) then issues the
 * first stage of iteration i + S - 1 while the last stage of iteration i
 * runs: the loads go to S - 1 slots of a buffer in shared memory by
 * cp.async, S - 1 iterations ahead, as Triton's pipeliner does for sm_80.
 *
 * A loop without a dot whose stages are its own (`tl.range(...,
 * num_stages=S)`) prefetches its loads instead, as Triton does for such
 * loops: each load of a tensor of 32- or 64-bit numbers in the body goes
 * ahead (narrower ones stay where they are), the first stage being those
 * loads and what they depend on, each copied to a buffer of the loop's own
 * in shared memory (codegen: each thread's elements where only that thread
 * reads them). A load whose `other` is not zero becomes a load of zeros
 * and a select of `other` where the mask is off, in the last stage;
 * first-stage values the last stage uses too (an offset both a load and a
 * store take) are computed again there from the current induction
 * variable, unless they come from a value the first stage carries, which
 * runs ahead: then the loop is not pipelined. Nor is it when a load's
 * address comes from another load's value.
 *
 * A loop is pipelined when S >= 2, the target is sm_80 or later, its step
 * is a positive constant or tl.num_programs, it has such loads, and the first stage stands on
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

/* A 2-D load of 16-bit floats whose only use is a conversion to a
 * mma.sync operand, directly or through a transpose to B (attention's
 * K^T), as the lowering copies it (operand_conversion). */
static bool feeds_mma(Compilation *comp, MlirOperation op) {
  if ((tile_op_of(op) != TOP_load && tile_op_of(op) != TOP_descriptor_load) || mlirOperationGetNumResults(op) != 1) return false;
  bool trans;
  if (mlirOperationIsNull(operand_conversion(comp, op, &trans))) return false;
  MlirType rt = mlirValueGetType(mlirOperationGetResult(op, 0)), et = mlirShapedTypeGetElementType(rt);
  /* 2-D: a batched dot's operands are not copied by cp.async (lower_memory.c) */
  return mlirShapedTypeGetRank(rt) == 2 && (mlirTypeIsAF16(et) || mlirTypeIsABF16(et));
}

/* Whether cp.async can copy the load: along its layout's fastest
 * dimension a thread's run of elements is contiguous, aligned and under
 * one mask bit for 4 bytes at least, and `other` is zero. Triton's
 * pipeliner leaves the other loads where they are, in the loop: held in
 * registers S - 1 iterations ahead they would cost S - 1 copies of the
 * tile's registers (examples/matmul.py at odd sizes spilled 20 KB so). */
static bool copyable(Compilation *comp, AxisAnalysis *aa, MlirOperation op) {
  MlirValue ptr = mlirOperationGetOperand(op, 0), r = mlirOperationGetResult(op, 0);
  MlirAttribute seg = mlirOperationGetAttributeByName(op, sref("operandSegmentSizes"));
  int has_mask = mlirDenseI32ArrayGetElement(seg, 1), has_other = mlirDenseI32ArrayGetElement(seg, 2);
  if (has_other && !value_is_zero(mlirOperationGetOperand(op, 1 + has_mask))) return false;
  Layout l;
  if (!layout_of_type(comp, mlirValueGetType(r), &l) || l.kind != L_BLOCKED) return false;
  int fast = l.order[0];
  int64_t bytes = pointee_bytes(comp, mlirValueGetType(ptr)), need = bytes >= 4 ? 1 : 4 / bytes;
  const AxisInfo *pi = axis_info_of(aa, ptr);
  if (l.spt[fast] < need || !pi || pi->contiguity[fast] < need || pi->divisibility[fast] % 4) return false;
  if (has_mask) {
    const AxisInfo *mi = axis_info_of(aa, mlirOperationGetOperand(op, 1));
    if (!mi || mi->constancy[fast] % need) return false;
  }
  return true;
}

/* A load of a loop without a dot that goes ahead: a tensor of 32- or
 * 64-bit numbers in a blocked layout (not a slice of one: a few elements
 * loaded where a broadcast reads them), directly in the body, not through
 * a block pointer. */
static bool prefetchable(Compilation *comp, MlirOperation op, MlirBlock body) {
  if (tile_op_of(op) != TOP_load || mlirOperationGetNumResults(op) != 1 ||
      !mlirBlockEqual(mlirOperationGetBlock(op), body))
    return false;
  MlirType rt = mlirValueGetType(mlirOperationGetResult(op, 0));
  Layout l;
  if (!mlirTypeIsARankedTensor(rt) || !mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetOperand(op, 0))) ||
      !layout_of_type(comp, rt, &l) || l.kind != L_BLOCKED)
    return false;
  /* 32 or 64 bits: any run of them is a cp.async of 4, 8 or 16 bytes */
  MlirType et = mlirShapedTypeGetElementType(rt);
  return (mlirTypeIsAInteger(et) && (mlirIntegerTypeGetWidth(et) == 32 || mlirIntegerTypeGetWidth(et) == 64)) ||
         mlirTypeIsAF32(et) || mlirTypeIsAF64(et);
}

typedef struct Plan {
  Compilation *comp;
  AxisAnalysis *aa;
  MlirOperation loop;
  MlirBlock body;
  bool prefetch; /* a loop without a dot: its loads go ahead (prefetchable) */
  bool writes;   /* the loop writes memory */
  PtrVec stage0; /* ops of the first stage */
  unsigned long long carried; /* bit i: iter arg i is the first stage's */
  bool ok;
} Plan;

/* A copy of a host descriptor's block (tma_lowering.c) into a wgmma
 * operand: TMA fills the operand's slots. */
static bool tma_operand(Compilation *comp, MlirOperation op) {
  bool trans;
  MlirOperation cv = operand_conversion(comp, op, &trans);
  Layout d;
  return !mlirOperationIsNull(cv) && layout_of_type(comp, mlirValueGetType(mlirOperationGetResult(cv, 0)), &d) &&
         d.kind == L_DOT_OP && d.parent->kind == L_MMA && d.parent->version == 3;
}

/* A load of a dot's loop that goes ahead: a 16-bit operand cp.async
 * copies, or TMA (a descriptor's into a wgmma operand). */
static bool goes_ahead(const Plan *p, MlirOperation op) {
  if (!feeds_mma(p->comp, op)) return false;
  return tile_op_of(op) == TOP_descriptor_load ? tma_operand(p->comp, op) : copyable(p->comp, p->aa, op);
}

/* Whether op, or an op nested in it, writes memory (or has another effect). */
static bool writes(MlirOperation op) {
  TileOp t = tile_op_of(op);
  if (t != TOP_NONE && ((tile_op_flags(t) & OP_WRITES) || ((tile_op_flags(t) & OP_PURE_IF_MARKED) && !op_is_pure(op))))
    return true;
  for (intptr_t i = 0; i < mlirOperationGetNumRegions(op); i++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, i)); !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
        if (writes(o)) return true;
  return false;
}

/* A load of a dot's loop that an address of the first stage is computed
 * from: loaded S - 1 iterations ahead in registers, predicated on the
 * iteration's existence, as Triton's pipeliner schedules the index loads of
 * a paged cache with the copies they address. Not volatile, not through a
 * block pointer, and in a loop that writes no memory (the load moves ahead
 * of the iterations' stores). */
static bool in_registers(const Plan *p, MlirOperation op) {
  if (!op_is_plain_load(op) || mlirOperationGetNumResults(op) != 1 || p->writes) return false;
  MlirType pt = mlirValueGetType(mlirOperationGetOperand(op, 0));
  if (mlirTypeIsARankedTensor(pt)) return true;
  MlirType pointee = ir_pointee(p->comp->ic, pt);
  return !mlirTypeIsNull(pointee) && !mlirTypeIsARankedTensor(pointee);
}

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
  if (in_stage0(p, d)) {
    if (p->prefetch && tile_op_of(d) == TOP_load) p->ok = false; /* an address from a load's value */
    return;
  }
  /* a prefetched load is a root of the first stage, never what an address
   * is computed from; a dot's loop loads what its addresses are computed
   * from (a block table's rows) ahead in registers */
  bool load = !p->prefetch && (goes_ahead(p, d) || in_registers(p, d));
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
    if (load && (tile_op_of(o) == TOP_convert_layout || tile_op_of(o) == TOP_trans)) continue;
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

/* A positive constant, or tl.num_programs (at least 1): a grid-stride
 * loop's step. */
static bool positive_step(MlirValue v) {
  MlirOperation d = value_owner(v);
  if (!mlirOperationIsNull(d) && tile_op_of(d) == TOP_num_programs) return true;
  if (mlirOperationIsNull(d) || !op_is(d, "arith.constant")) return false;
  MlirAttribute a = mlirOperationGetAttributeByName(d, sref("value"));
  return mlirAttributeIsAInteger(a) && mlirIntegerAttrGetValueInt(a) > 0;
}

static bool has_dot(MlirOperation op) {
  if (tile_op_of(op) == TOP_dot) return true;
  for (intptr_t i = 0; i < mlirOperationGetNumRegions(op); i++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, i)); !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
        if (has_dot(o)) return true;
  return false;
}

/* load(p, m, other) with other not zero: load(p, m), zeros where m is off
 * (what cp.async fills), and select(m, it, other) after it. */
static MlirOperation split_other(MlirOperation load) {
  MlirAttribute seg = mlirOperationGetAttributeByName(load, sref("operandSegmentSizes"));
  if (mlirOperationGetNumOperands(load) != 3 || mlirDenseI32ArrayGetElement(seg, 1) != 1 ||
      value_is_zero(mlirOperationGetOperand(load, 2)))
    return load;
  MlirValue ptr = mlirOperationGetOperand(load, 0), mask = mlirOperationGetOperand(load, 1);
  MlirValue other = mlirOperationGetOperand(load, 2), r = mlirOperationGetResult(load, 0);
  MlirType rt = mlirValueGetType(r);
  intptr_t na = mlirOperationGetNumAttributes(load);
  MlirNamedAttribute attrs[16];
  for (intptr_t i = 0; i < na && i < 16; i++) {
    attrs[i] = mlirOperationGetAttribute(load, i);
    if (mlirStringRefEqual(mlirIdentifierStr(attrs[i].name), sref("operandSegmentSizes")))
      attrs[i].attribute = mlirDenseI32ArrayGet(mlirOperationGetContext(load), 3, (int32_t[]){1, 1, 0});
  }
  MlirValue ops[2] = {ptr, mask};
  MlirOperation nl = create_before(load, "tile.load", mlirOperationGetLocation(load), 1, &rt, 2, ops, (int)(na < 16 ? na : 16), attrs);
  MlirValue sops[3] = {mask, mlirOperationGetResult(nl, 0), other};
  MlirOperation sel = create_before(load, "arith.select", mlirOperationGetLocation(load), 1, &rt, 3, sops, 0, NULL);
  mlirValueReplaceAllUsesOfWith(r, mlirOperationGetResult(sel, 0));
  mlirOperationDestroy(load);
  return nl;
}

/* Whether v depends, through the first stage, on a value the loop carries
 * (which runs ahead of the last stage). */
static bool from_carried(const Plan *p, MlirValue v) {
  if (mlirValueIsABlockArgument(v))
    return mlirBlockEqual(mlirBlockArgumentGetOwner(v), p->body) && mlirBlockArgumentGetArgNumber(v) > 0;
  MlirOperation d = value_owner(v);
  if (!in_stage0(p, d)) return false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++)
    if (from_carried(p, mlirOperationGetOperand(d, i))) return true;
  return false;
}

/* Uses of first-stage values by the last stage get copies computed there:
 * each such op, and the first-stage ops it stands on, cloned after the
 * original, the last stage's uses moved to the clones. False when one of
 * them comes from a carried value. */
static bool copy_for_last_stage(Plan *p) {
  MlirOperation yield = mlirBlockGetTerminator(p->body);
  int n = p->stage0.n;
  bool *need = arena_alloc(p->comp->a, (size_t)(n + 1));
  bool any = false;
  for (int i = 0; i < n; i++) {
    MlirOperation o = {p->stage0.v[i]};
    if (tile_op_of(o) == TOP_load) continue;
    for (intptr_t r = 0; r < mlirOperationGetNumResults(o); r++)
      for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(o, r)); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
        MlirOperation w = mlirOpOperandGetOwner(u);
        if (!in_stage0(p, w) && !(mlirOperationEqual(w, yield) && p->carried >> mlirOpOperandGetOperandNumber(u) & 1))
          need[i] = any = true;
      }
  }
  if (!any) return true;
  /* what the needed ops stand on (the stage lists an op before its operands) */
  for (int i = 0; i < n; i++) {
    if (!need[i]) continue;
    MlirOperation o = {p->stage0.v[i]};
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(o); k++) {
      MlirValue v = mlirOperationGetOperand(o, k);
      if (from_carried(p, v)) return false;
      MlirOperation d = value_owner(v);
      for (int j = 0; j < n && !mlirOperationIsNull(d); j++)
        if (p->stage0.v[j] == d.ptr && tile_op_of(d) != TOP_load) need[j] = true;
    }
  }
  /* cloned in body order, so that a clone's operands are cloned before it */
  PtrMap clones = {0};
  for (MlirOperation o = mlirBlockGetFirstOperation(p->body); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o)) {
    int i = 0;
    while (i < n && p->stage0.v[i] != o.ptr) i++;
    if (i == n || !need[i]) continue;
    MlirOperation c = mlirOperationClone(o);
    mlirBlockInsertOwnedOperationAfter(p->body, o, c);
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(c); k++) {
      MlirValue v = mlirOperationGetOperand(c, k);
      MlirOperation d = value_owner(v);
      MlirOperation dc = {mlirOperationIsNull(d) ? NULL : map_get(&clones, d.ptr)};
      if (!mlirOperationIsNull(dc)) mlirOperationSetOperand(c, k, mlirOperationGetResult(dc, mlirOpResultGetResultNumber(v)));
    }
    map_put(p->comp->a, &clones, o.ptr, c.ptr);
    for (intptr_t r = 0; r < mlirOperationGetNumResults(o); r++) {
      MlirValue v = mlirOperationGetResult(o, r);
      for (MlirOpOperand u = mlirValueGetFirstUse(v), next; !mlirOpOperandIsNull(u); u = next) {
        next = mlirOpOperandGetNextUse(u);
        MlirOperation w = mlirOpOperandGetOwner(u);
        if (in_stage0(p, w) || mlirOperationEqual(w, c) ||
            (mlirOperationEqual(w, yield) && p->carried >> mlirOpOperandGetOperandNumber(u) & 1))
          continue;
        mlirOperationSetOperand(w, mlirOpOperandGetOperandNumber(u), mlirOperationGetResult(c, r));
      }
    }
  }
  return true;
}

static void plan_loop(Compilation *comp, AxisAnalysis *aa, MlirOperation loop) {
  int stages = stages_of(loop);
  if (stages < 2 || !positive_step(mlirOperationGetOperand(loop, 2))) return;
  Plan p = {.comp = comp, .aa = aa, .loop = loop, .body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0)), .ok = true};
  p.prefetch = !has_dot(loop) && op_int_attr(loop, "tile.num_stages", 0) >= 2;
  p.writes = writes(loop);
  int loads = 0;
  for (MlirOperation o = mlirBlockGetFirstOperation(p.body), next; !mlirOperationIsNull(o); o = next) {
    next = mlirOperationGetNextInBlock(o);
    if (p.prefetch && prefetchable(comp, o, p.body)) {
      loads++;
      o = split_other(o);
      vec_push(comp->a, &p.stage0, o.ptr);
      for (intptr_t i = 0; i < mlirOperationGetNumOperands(o); i++) take(&p, mlirOperationGetOperand(o, i));
    } else if (!p.prefetch && goes_ahead(&p, o)) {
      loads++;
      take(&p, mlirOperationGetResult(o, 0));
    }
  }
  if (!loads || !p.ok) return;
  if (p.prefetch && !copy_for_last_stage(&p)) return;
  /* the first stage stands on its own */
  for (int i = 0; i < p.stage0.n && p.ok; i++) {
    MlirOperation o = {p.stage0.v[i]};
    if (p.prefetch && tile_op_of(o) == TOP_load) continue; /* the last stage reads its copy */
    bool load = goes_ahead(&p, o); /* its conversion reads the copy; a load in registers is read by the first stage only */
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
  for (int i = 0; i < p.stage0.n; i++) {
    MlirOperation o = {p.stage0.v[i]};
    mlirOperationSetAttributeByName(o, sref("tile.stage"), mlirIntegerAttrGet(i32, 0));
    if (!p.prefetch && tile_op_of(o) == TOP_load && !goes_ahead(&p, o))
      mlirOperationSetAttributeByName(o, sref("tile.in_registers"), mlirUnitAttrGet(ctx));
  }
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
  AxisAnalysis *aa = l.v.n ? axis_analyze(comp, module) : NULL;
  for (int i = 0; i < l.v.n; i++) plan_loop(comp, aa, (MlirOperation){l.v.v[i]});
  return true;
}
