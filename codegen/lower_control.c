/*
 * lower_control.c — lowering control flow (scf.for, scf.if, scf.while with
 * every thread's values flattened) and math: the fast PTX instructions and
 * libdevice.
 */
#include "lower.h"

/* ---- control flow: scf ops with every thread's values flattened ------------------------ */


#define MAX_FLAT 1024

/* Appends x's per-thread values to the flat list out (k so far). */
static bool append_vals(Lower *L, MlirOperation op, const Vals *x, MlirValue *out, int *k, int cap) {
  if (*k + x->n > cap) {
    lw_fail(L, op, "carries more values per thread than the GPU code generator supports yet");
    return false;
  }
  for (int j = 0; j < x->n; j++) out[(*k)++] = x->v[j];
  return true;
}

/* Appends the per-thread values of vs to a flat list. */
static int flatten_vals(Lower *L, MlirOperation op, int n, const MlirValue *vs, MlirValue *out, int cap) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    Vals *x = lw_get(L, vs[i]);
    if (!x) {
      lw_fail(L, op, "uses a value the GPU code generator has not lowered");
      return -1;
    }
    if (!append_vals(L, op, x, out, &k, cap)) return -1;
  }
  return k;
}

/* The per-thread values of vs together, or -1 (and L fails) when there are
 * too many. The flat lists are sized by it in the arena, not on the stack:
 * scf ops nest, up to the language's limit, and a stack frame of MAX_FLAT
 * values per level would need megabytes. */
static int flat_count(Lower *L, MlirOperation op, int n, const MlirValue *vs) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    Vals *x = lw_get(L, vs[i]);
    k += x ? x->n : 0;
  }
  if (k > MAX_FLAT) {
    lw_fail(L, op, "carries more values per thread than the GPU code generator supports yet");
    return -1;
  }
  return k;
}

static MlirValue *flat_alloc(Lower *L, int n) { return arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)(n + 1)); }
static MlirType *types_alloc(Lower *L, int n) { return arena_alloc(L->comp->a, sizeof(MlirType) * (size_t)(n + 1)); }

/* Maps tile values vs to consecutive runs of flat, by their element counts. */
static void unflatten(Lower *L, int n, const MlirValue *vs, const MlirValue *flat) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    int c = lw_count_of(L, mlirValueGetType(vs[i]));
    Vals *x = lw_new_vals(L, c);
    for (int j = 0; j < c; j++) x->v[j] = flat[k++];
    lw_put(L, vs[i], x);
  }
}

/* Lowers the ops of block src into dst, then its terminator's operands
 * into a terminator `term_name` of dst (with a leading `extra` operand). */
static void lower_region_body(Lower *L, MlirBlock src, MlirBlock dst, const char *term_name, MlirValue *extra) {
  MlirBlock saved_block = L->block;
  MlirOperation saved_term = L->term;
  L->block = dst;
  L->term = (MlirOperation){NULL};
  MlirOperation last = {NULL};
  for (MlirOperation o = mlirBlockGetFirstOperation(src); !mlirOperationIsNull(o) && !L->failed; o = mlirOperationGetNextInBlock(o)) {
    if (mlirOperationIsNull(mlirOperationGetNextInBlock(o))) {
      last = o;
      break;
    }
    lw_lower_op(L, o);
  }
  if (!L->failed && !mlirOperationIsNull(last)) {
    int n = (int)mlirOperationGetNumOperands(last), from = extra ? 1 : 0;
    MlirValue vs[64];
    for (int i = from; i < n && i - from < 64; i++) vs[i - from] = mlirOperationGetOperand(last, i);
    int count = flat_count(L, last, n - from, vs);
    MlirValue *flat = count < 0 ? NULL : flat_alloc(L, count + from);
    int k = flat ? flatten_vals(L, last, n - from, vs, flat + from, count) : -1;
    if (k >= 0) {
      if (extra) flat[0] = lw_get(L, mlirOperationGetOperand(last, 0))->v[0];
      lw_emit(L, term_name, 0, NULL, k + from, flat, 0, NULL);
    }
  }
  L->block = saved_block;
  L->term = saved_term;
}

static void emit_yield_into(Lower *L, MlirBlock b) {
  MlirOperationState st = mlirOperationStateGet(str("scf.yield"), mlirLocationUnknownGet(L->ctx));
  mlirBlockAppendOwnedOperation(b, mlirOperationCreate(&st));
}

static MlirBlock new_block(Lower *L, int n, const MlirType *types) {
  MlirLocation *locs = arena_alloc(L->comp->a, sizeof(MlirLocation) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) locs[i] = mlirLocationUnknownGet(L->ctx);
  return mlirBlockCreate(n, types, locs);
}

/* Creates the lowered scf op (its regions filled), and maps the tile op's
 * results to runs of its flat results. */
static MlirOperation finish_scf(Lower *L, const char *name, int k, const MlirType *types, int nops, const MlirValue *ops,
                                int nregions, MlirRegion *regions, int nres, const MlirValue *results) {
  MlirOperationState st = mlirOperationStateGet(str(name), mlirLocationUnknownGet(L->ctx));
  mlirOperationStateAddResults(&st, k, types);
  mlirOperationStateAddOperands(&st, nops, ops);
  mlirOperationStateAddOwnedRegions(&st, nregions, regions);
  MlirOperation f = mlirOperationCreate(&st);
  lw_insert_op(L, f);
  MlirValue *outs = flat_alloc(L, k);
  for (int i = 0; i < k; i++) outs[i] = mlirOperationGetResult(f, i);
  unflatten(L, nres, results, outs);
  return f;
}

/* tl.range's loop_unroll_factor and disable_licm (tile.loop_unroll_factor,
 * tile.disable_licm on the tile-level loop) as LLVM loop metadata on the
 * lowered one: scf-to-cf moves it to the back edge's branch, where LLVM
 * reads llvm.loop.unroll.count (loop-unroll) and llvm.licm.disable (LICM),
 * as Triton attaches them. The C API has no builder for
 * #llvm.loop_annotation, so it is parsed from its syntax. */
static void loop_annotation(Lower *L, MlirOperation from, MlirOperation to) {
  MlirAttribute u = mlirOperationGetAttributeByName(from, str("tile.loop_unroll_factor"));
  bool no_licm = !mlirAttributeIsNull(mlirOperationGetAttributeByName(from, str("tile.disable_licm")));
  if (mlirAttributeIsNull(u) && !no_licm) return;
  char text[160];
  int n = snprintf(text, sizeof text, "#llvm.loop_annotation<");
  if (!mlirAttributeIsNull(u))
    n += snprintf(text + n, sizeof text - (size_t)n, "unroll = <count = %d : i32>%s", (int)mlirIntegerAttrGetValueInt(u),
                  no_licm ? ", " : "");
  if (no_licm) n += snprintf(text + n, sizeof text - (size_t)n, "licm = <disable = true>");
  snprintf(text + n, sizeof text - (size_t)n, ">");
  MlirAttribute a = mlirAttributeParseGet(L->ctx, str(text));
  if (mlirAttributeIsNull(a)) unreachable();
  mlirOperationSetAttributeByName(to, str("llvm.loop_annotation"), a);
}

/* ---- a pipelined K loop (passes/pipeline.c) -------------------------------------------- */

/* Flattens Vals (not tile values) into out. */
static int flatten_list(Lower *L, MlirOperation op, int n, Vals **xs, MlirValue *out, int cap) {
  int k = 0;
  for (int i = 0; i < n; i++)
    if (!append_vals(L, op, xs[i], out, &k, cap)) return -1;
  return k;
}

static Vals *scalar(Lower *L, MlirValue v) {
  Vals *x = lw_new_vals(L, 1);
  x->v[0] = v;
  return x;
}

/* The first stage for the iteration at iv: its ops lowered with iv for the
 * induction variable and `carried` for the values it carries, its loads
 * into their buffers' slot `slot` (where iv < ub), one commit group;
 * `carried` then holds the next values. */
static void first_stage(Lower *L, MlirBlock src, PtrVec *stage0, PtrVec *bufs, PtrVec *pres, PtrVec *tmas, MlirValue iv, MlirValue ub,
                        MlirValue slot, Vals **carried, const bool *c0, int n) {
  lw_put(L, mlirBlockGetArgument(src, 0), scalar(L, iv));
  for (int i = 0; i < n; i++)
    if (c0[i]) lw_put(L, mlirBlockGetArgument(src, 1 + i), carried[i]);
  MlirValue guard = lw_cmp_u32(L, 2, iv, ub); /* slt */
  /* the slots TMA fills are read no more: one barrier before their copies */
  bool tma = false, cp = false;
  for (int i = 0; i < stage0->n; i++) {
    tma |= tmas->v[i] && lw_tma_direct(tmas->v[i]);
    cp |= (bufs->v[i] && !tmas->v[i]) || pres->v[i];
  }
  if (tma) lw_emit(L, "nvvm.barrier0", 0, NULL, 0, NULL, 0, NULL);
  for (int i = 0; i < stage0->n && !L->failed; i++) {
    MlirOperation o = {stage0->v[i]};
    L->loc = mlirOperationGetLocation(o);
    if (tmas->v[i]) lw_tma_to_slot(L, o, tmas->v[i], slot, guard);
    else if (bufs->v[i]) lw_load_to_slot(L, o, lw_mma_slot(L, bufs->v[i], slot), guard);
    else if (pres->v[i]) lw_prefetch_to_slot(L, o, pres->v[i], slot, guard);
    else if (tile_op_of(o) == TOP_load) lw_load_guarded(L, o, guard);
    else lw_lower_op(L, o);
  }
  if (cp) lw_call(L, "tilec.cp.async.commit", (MlirType){NULL}, 0, NULL);
  MlirOperation yield = mlirBlockGetTerminator(src);
  for (int i = 0; i < n; i++)
    if (c0[i]) carried[i] = lw_get(L, mlirOperationGetOperand(yield, i));
}

/* scf.for with tile.pipeline = S: the first stage (tile.stage = 0) of
 * iterations 0 .. S-2 before the loop, into slots 0 .. S-2 of its
 * buffers; then each iteration j waits for its own copies
 * (cp.async.wait_group S-2: the S-2 newer groups may still be pending),
 * runs the rest of the body on slot j % (S-1), and issues the first stage
 * of iteration j + S - 1 into that same slot, which it has read: S - 1
 * slots, as Triton's. The values the first stage carries run S - 1
 * iterations ahead. insert-barriers puts the barriers between the copies
 * and the reads, and between the reads and the next copies. A wgmma K
 * loop (accumulating_wgmma) has S slots, reads slot j % S and fills slot
 * (j - 1) % S, whose group its dot's wgmma.wait_group 1 retired; after the
 * loop, the last group's wait. */
/* Whether a dot operand is a load of the loop's first stage that goes to
 * its own slotted buffer (through layout conversions and a transpose):
 * what the loop fills ahead, slot by slot, never while a group reads it. */
static bool from_slotted_load(Lower *L, MlirValue v) {
  MlirOperation o = value_owner(v);
  while (!mlirOperationIsNull(o) && (tile_op_of(o) == TOP_convert_layout || op_is(o, "tile.trans")))
    o = value_owner(mlirOperationGetOperand(o, 0));
  bool trans;
  return !mlirOperationIsNull(o) && (tile_op_of(o) == TOP_load || tile_op_of(o) == TOP_descriptor_load) &&
         op_int_attr(o, "tile.stage", -1) == 0 &&
         mlirAttributeIsNull(mlirOperationGetAttributeByName(o, str("tile.in_registers"))) &&
         !mlirOperationIsNull(operand_conversion(L->comp, o, &trans));
}

/* The loop body's wgmma dot that only accumulates, as a K loop's does: its
 * operands both loads of the first stage (a buffer of one slot, written in
 * the body, could be overwritten while the group still reads it), its
 * accumulator a carried value read by nothing else, its result carried on
 * and read by nothing else, in f32 or s32 (an f16 one is unpacked from its
 * registers, which must not happen while they are in flight); *carried:
 * which. Null when there is none. (The f32 accumulators cross the loop as
 * bitcasts of the instructions' registers, which LLVM folds: no move reads
 * them in flight.) */
static MlirOperation accumulating_wgmma(Lower *L, MlirBlock src, MlirOperation yield, int *carried) {
  for (MlirOperation o = mlirBlockGetFirstOperation(src); !mlirOperationEqual(o, yield); o = mlirOperationGetNextInBlock(o)) {
    Layout l;
    if (tile_op_of(o) != TOP_dot) continue;
    MlirValue r = mlirOperationGetResult(o, 0);
    if (!layout_of_type(L->comp, mlirValueGetType(r), &l) || l.kind != L_MMA || l.version != 3 ||
        mlirTypeIsAF16(mlirShapedTypeGetElementType(mlirValueGetType(r))) ||
        !from_slotted_load(L, mlirOperationGetOperand(o, 0)) || !from_slotted_load(L, mlirOperationGetOperand(o, 1)))
      continue;
    MlirValue c = mlirOperationGetOperand(o, 2);
    MlirOpOperand u = mlirValueGetFirstUse(r), cu = mlirValueGetFirstUse(c);
    if (mlirOpOperandIsNull(u) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(u)) || !mlirOperationEqual(mlirOpOperandGetOwner(u), yield) ||
        mlirOpOperandIsNull(cu) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(cu)))
      continue;
    int i = (int)mlirOpOperandGetOperandNumber(u);
    if (!mlirValueIsABlockArgument(c) || !mlirBlockEqual(mlirBlockArgumentGetOwner(c), src) || mlirBlockArgumentGetArgNumber(c) != 1 + i)
      continue;
    *carried = i;
    return o;
  }
  return (MlirOperation){NULL};
}

static __attribute__((noinline)) void lower_pipelined_for(Lower *L, MlirOperation op, int S) {
  MlirBlock src = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  MlirOperation yield = mlirBlockGetTerminator(src);
  int n = (int)mlirOperationGetNumOperands(op) - 3;
  /* a wgmma K loop keeps one group in flight: S slots, each iteration's
   * copies into the slot of the iteration before (lower_wgmma.c) */
  int acc_i = -1;
  MlirOperation async_dot = accumulating_wgmma(L, src, yield, &acc_i);
  int slots = mlirOperationIsNull(async_dot) ? S - 1 : S;
  if (n > 64) {
    lw_fail(L, op, "carries more values than the GPU code generator supports yet");
    return;
  }
  MlirValue lb = lw_get(L, mlirOperationGetOperand(op, 0))->v[0], ub = lw_get(L, mlirOperationGetOperand(op, 1))->v[0];
  MlirValue step = lw_get(L, mlirOperationGetOperand(op, 2))->v[0];
  /* the first stage's ops in order, and beside each load a buffer of S - 1 slots */
  PtrVec stage0 = {0}, bufs = {0}, pres = {0}, tmas = {0};
  for (MlirOperation o = mlirBlockGetFirstOperation(src); !mlirOperationEqual(o, yield); o = mlirOperationGetNextInBlock(o)) {
    if (op_int_attr(o, "tile.stage", -1) != 0) continue;
    Lazy *buf = NULL;
    Prefetch *pre = NULL;
    TmaSlots *tma = NULL;
    bool in_registers = !mlirAttributeIsNull(mlirOperationGetAttributeByName(o, str("tile.in_registers")));
    if (tile_op_of(o) == TOP_descriptor_load) {
      /* a host descriptor's copy into a wgmma operand's slots (lower_tma.c) */
      bool trans;
      MlirOperation cv = operand_conversion(L->comp, o, &trans);
      if (!mlirOperationIsNull(cv))
        buf = lw_mma_buffer(L, mlirValueGetType(mlirOperationGetResult(cv, 0)), slots, operand_kn(L->comp, o, cv, trans));
      if (!buf) {
        lw_fail(L, o, "goes ahead in a pipelined loop, which the GPU code generator does not support yet for its type");
        return;
      }
      buf->flipped = trans;
      TmaSlots *first = NULL;
      for (int i = 0; i < tmas.n && !first; i++)
        if (tmas.v[i] && lw_tma_direct(tmas.v[i])) first = tmas.v[i];
      tma = lw_tma_slots(L, o, buf, slots, first);
    } else if (tile_op_of(o) == TOP_load && !in_registers) {
      /* an operand of mma.sync, read by the dot; else a load prefetched
       * for the rest of the body (a load the first stage's addresses come
       * from stays in registers, lowered with the first stage) */
      bool trans;
      MlirOperation cv = operand_conversion(L->comp, o, &trans);
      if (!mlirOperationIsNull(cv))
        buf = lw_mma_buffer(L, mlirValueGetType(mlirOperationGetResult(cv, 0)), slots, operand_kn(L->comp, o, cv, trans));
      if (buf) buf->flipped = trans;
      if (!buf && !(pre = lw_prefetch_buffer(L, o, slots))) {
        lw_fail(L, o, "goes ahead in a pipelined loop, which the GPU code generator does not support yet for its type");
        return;
      }
    }
    vec_push(L->comp->a, &stage0, o.ptr);
    vec_push(L->comp->a, &bufs, buf);
    vec_push(L->comp->a, &pres, pre);
    vec_push(L->comp->a, &tmas, tma);
  }
  /* the carried values of the first stage: those whose next value it computes */
  bool *c0 = arena_alloc(L->comp->a, sizeof(bool) * 64);
  Vals **carried = arena_alloc(L->comp->a, sizeof(Vals *) * 64);
  for (int i = 0; i < n; i++) {
    MlirOperation d = value_owner(mlirOperationGetOperand(yield, i));
    c0[i] = !mlirOperationIsNull(d) && op_int_attr(d, "tile.stage", -1) == 0;
    carried[i] = lw_get(L, mlirOperationGetOperand(op, 3 + i));
  }
  /* the prologue */
  for (int s = 0; s < S - 1 && !L->failed; s++)
    first_stage(L, src, &stage0, &bufs, &pres, &tmas, lw_bin(L, "arith.addi", lb, lw_bin(L, "arith.muli", step, lw_const_like(L, step, s))), ub,
                lw_const_i32(L, s), carried, c0, n);
  if (L->failed) return;
  /* the loop: the carried values, the first stage's ahead */
  int count = 0;
  for (int i = 0; i < n; i++) count += carried[i]->n;
  if (count > MAX_FLAT) {
    lw_fail(L, op, "carries more values per thread than the GPU code generator supports yet");
    return;
  }
  MlirValue *flat = flat_alloc(L, 3 + count + 2);
  MlirType *types = types_alloc(L, 1 + count + 2);
  int k = flatten_list(L, op, n, carried, flat + 3, count);
  if (k < 0) return;
  flat[0] = lb, flat[1] = ub, flat[2] = step;
  types[0] = mlirValueGetType(lb);
  for (int i = 0; i < k; i++) types[1 + i] = mlirValueGetType(flat[3 + i]);
  /* with several slots, the loop carries the one this iteration reads (as
   * Triton's pipeliner): no division by the step, which may be a run-time
   * value (tl.num_programs) */
  bool rotate = slots > 1, behind = slots == S; /* behind: the slot written is the one read before, carried too */
  int kk = k + rotate + behind;
  if (rotate) {
    flat[3 + k] = lw_const_i32(L, 0);
    types[1 + k] = lw_i32(L);
  }
  if (behind) {
    flat[4 + k] = lw_const_i32(L, slots - 1); /* iteration 0 fills the last slot, which the prologue left */
    types[2 + k] = lw_i32(L);
  }
  MlirBlock body = new_block(L, 1 + kk, types);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);
  MlirBlock saved_block = L->block;
  MlirOperation saved_term = L->term;
  L->block = body;
  L->term = (MlirOperation){NULL};
  MlirValue iv = mlirBlockGetArgument(body, 0);
  for (int i = 0, at = 0; i < n; i++) {
    Vals *x = lw_new_vals(L, carried[i]->n);
    for (int j = 0; j < x->n; j++) x->v[j] = mlirBlockGetArgument(body, 1 + at++);
    lw_put(L, mlirBlockGetArgument(src, 1 + i), x);
  }
  lw_put(L, mlirBlockGetArgument(src, 0), scalar(L, iv));
  bool cp = false;
  for (int i = 0; i < stage0.n; i++) cp |= (bufs.v[i] && !tmas.v[i]) || pres.v[i];
  char wait[32];
  snprintf(wait, sizeof wait, "tilec.cp.async.wait.%d", S - 2);
  if (cp) lw_call(L, wait, (MlirType){NULL}, 0, NULL);
  /* iteration j reads slot j % (S - 1), and then fills it with iteration
   * j + S - 1 */
  MlirValue rslot = rotate ? mlirBlockGetArgument(body, 1 + k) : lw_const_i32(L, 0);
  /* the slot before, whose dot the wait retired */
  MlirValue wslot = behind ? mlirBlockGetArgument(body, 2 + k) : rslot;
  /* and for its TMA copies: each slot's phase */
  for (int i = 0; i < stage0.n; i++)
    if (tmas.v[i]) lw_tma_wait_slot(L, tmas.v[i], rslot);
  for (int i = 0; i < stage0.n; i++)
    if (bufs.v[i]) {
      Vals *x = lw_new_vals(L, 0);
      x->lazy = lw_mma_slot(L, bufs.v[i], rslot);
      lw_put(L, mlirOperationGetResult((MlirOperation){stage0.v[i]}, 0), x);
    } else if (pres.v[i]) {
      lw_put(L, mlirOperationGetResult((MlirOperation){stage0.v[i]}, 0), lw_prefetched(L, pres.v[i], rslot));
    }
  /* the last stage: the rest of the body */
  L->wg_async_dot = async_dot;
  for (MlirOperation o = mlirBlockGetFirstOperation(src); !mlirOperationEqual(o, yield) && !L->failed;
       o = mlirOperationGetNextInBlock(o))
    if (op_int_attr(o, "tile.stage", -1) != 0) lw_lower_op(L, o);
  L->wg_async_dot = (MlirOperation){NULL};
  /* the first stage of iteration j + S - 1 */
  MlirValue ahead = lw_bin(L, "arith.addi", iv, lw_bin(L, "arith.muli", step, lw_const_like(L, step, S - 1)));
  Vals **next = arena_alloc(L->comp->a, sizeof(Vals *) * 64);
  for (int i = 0; i < n; i++) next[i] = lw_get(L, mlirBlockGetArgument(src, 1 + i));
  if (!L->failed) first_stage(L, src, &stage0, &bufs, &pres, &tmas, ahead, ub, wslot, next, c0, n);
  if (!L->failed) {
    Vals **ys = arena_alloc(L->comp->a, sizeof(Vals *) * 64);
    for (int i = 0; i < n; i++) ys[i] = c0[i] ? next[i] : lw_get(L, mlirOperationGetOperand(yield, i));
    MlirValue *yv = flat_alloc(L, count + 2);
    int yk = flatten_list(L, yield, n, ys, yv, count);
    if (yk == k && rotate) {
      /* the next slot: one on, back to 0 past the last */
      MlirValue up = lw_bin(L, "arith.addi", rslot, lw_const_i32(L, 1));
      yv[k] = lw_pick(L, lw_cmp_u32(L, 0 /* eq */, up, lw_const_i32(L, slots)), lw_const_i32(L, 0), up);
      if (behind) yv[k + 1] = rslot;
    }
    if (yk == k) lw_emit(L, "scf.yield", 0, NULL, kk, yv, 0, NULL);
    else if (yk >= 0) lw_fail(L, op, "yields other values than it carries");
  }
  L->block = saved_block;
  L->term = saved_term;
  if (L->failed) {
    mlirRegionDestroy(region);
    return;
  }
  int nres = (int)mlirOperationGetNumResults(op);
  MlirValue *results = flat_alloc(L, nres);
  for (int i = 0; i < nres; i++) results[i] = mlirOperationGetResult(op, i);
  MlirOperation f = finish_scf(L, "scf.for", kk, types + 1, 3 + kk, flat, 1, &region, nres, results);
  loop_annotation(L, op, f);
  /* nothing of the buffers is in flight after the loop */
  if (cp) lw_call(L, "tilec.cp.async.wait.0", (MlirType){NULL}, 0, NULL);
  if (!mlirOperationIsNull(async_dot)) {
    /* nor of the dot's last group: the accumulators pass through its wait */
    MlirValue res = mlirOperationGetResult(op, acc_i);
    Vals *acc = lw_get(L, res), *done = lw_new_vals(L, acc->n);
    MlirValue *regs = flat_alloc(L, acc->n);
    MlirType *words = types_alloc(L, acc->n);
    for (int i = 0; i < acc->n; i++) regs[i] = lw_as_bits(L, acc->v[i]), words[i] = lw_i32(L);
    MlirValue w = lw_call(L, "tilec.wgmma.wait.0", mlirLLVMStructTypeLiteralGet(L->ctx, acc->n, words, false), acc->n, regs);
    for (int i = 0; i < acc->n; i++) done->v[i] = lw_from_bits(L, lw_extract_i32(L, w, i), mlirValueGetType(acc->v[i]));
    lw_put(L, res, done);
    /* the last group read the slots up to every warp's wait: where TMA
     * filled them, the barrier in the body was their last (insert-barriers
     * sees no copy of theirs), and what comes next may write that memory */
    bool tma = false;
    for (int i = 0; i < stage0.n; i++) tma |= tmas.v[i] != NULL;
    if (tma) lw_emit(L, "nvvm.barrier0", 0, NULL, 0, NULL, 0, NULL);
  }
}

void lw_lower_scf(Lower *L, MlirOperation op) {
  int nres = (int)mlirOperationGetNumResults(op);
  MlirValue results[64];
  if (nres > 64) {
    lw_fail(L, op, "has more results than the GPU code generator supports yet");
    return;
  }
  for (int i = 0; i < nres; i++) results[i] = mlirOperationGetResult(op, i);
  int stages = op_is(op, "scf.for") ? (int)op_int_attr(op, "tile.pipeline", 0) : 0;
  if (stages >= 2 && stages <= 9) {
    lower_pipelined_for(L, op, stages);
    return;
  }
  if (op_is(op, "scf.for")) {
    int n = (int)mlirOperationGetNumOperands(op) - 3;
    MlirValue inits[64];
    for (int i = 0; i < n; i++) inits[i] = mlirOperationGetOperand(op, 3 + i);
    int count = flat_count(L, op, n, inits);
    if (count < 0) return;
    MlirValue *flat = flat_alloc(L, 3 + count), *args = flat_alloc(L, count);
    MlirType *types = types_alloc(L, 1 + count);
    int k = flatten_vals(L, op, n, inits, flat + 3, count);
    if (k < 0) return;
    for (int i = 0; i < 3; i++) flat[i] = lw_get(L, mlirOperationGetOperand(op, i))->v[0];
    MlirBlock src = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
    types[0] = mlirValueGetType(flat[0]);
    for (int i = 0; i < k; i++) types[1 + i] = mlirValueGetType(flat[3 + i]);
    MlirBlock body = new_block(L, 1 + k, types);
    MlirRegion region = mlirRegionCreate();
    mlirRegionAppendOwnedBlock(region, body);
    /* the induction variable, then the carried values */
    Vals *iv = lw_new_vals(L, 1);
    iv->v[0] = mlirBlockGetArgument(body, 0);
    lw_put(L, mlirBlockGetArgument(src, 0), iv);
    MlirValue sargs[64];
    for (int i = 0; i < k; i++) args[i] = mlirBlockGetArgument(body, 1 + i);
    for (int i = 0; i < n; i++) sargs[i] = mlirBlockGetArgument(src, 1 + i);
    unflatten(L, n, sargs, args);
    lower_region_body(L, src, body, "scf.yield", NULL);
    if (L->failed) {
      mlirRegionDestroy(region);
      return;
    }
    MlirOperation f = finish_scf(L, "scf.for", k, types + 1, 3 + k, flat, 1, &region, nres, results);
    loop_annotation(L, op, f);
    return;
  }
  if (op_is(op, "scf.if")) {
    MlirValue cond = lw_get(L, mlirOperationGetOperand(op, 0))->v[0];
    int k = 0, count = 0;
    for (int i = 0; i < nres; i++) count += lw_count_of(L, mlirValueGetType(results[i]));
    MlirType *types = types_alloc(L, count < MAX_FLAT ? count : MAX_FLAT);
    for (int i = 0; i < nres; i++) {
      int c = lw_count_of(L, mlirValueGetType(results[i]));
      MlirType t = lw_scalar_of(L, mlirValueGetType(results[i]));
      for (int j = 0; j < c && k < MAX_FLAT; j++) types[k++] = t;
    }
    MlirRegion regions[2];
    for (int b = 0; b < 2; b++) {
      regions[b] = mlirRegionCreate();
      MlirBlock blk = new_block(L, 0, NULL);
      mlirRegionAppendOwnedBlock(regions[b], blk);
      MlirBlock src = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, b));
      if (mlirBlockIsNull(src)) emit_yield_into(L, blk);
      else lower_region_body(L, src, blk, "scf.yield", NULL);
    }
    if (L->failed) {
      mlirRegionDestroy(regions[0]);
      mlirRegionDestroy(regions[1]);
      return;
    }
    finish_scf(L, "scf.if", k, types, 1, &cond, 2, regions, nres, results);
    return;
  }
  if (op_is(op, "scf.while")) {
    int n = (int)mlirOperationGetNumOperands(op);
    MlirValue inits[64];
    for (int i = 0; i < n; i++) inits[i] = mlirOperationGetOperand(op, i);
    int count = flat_count(L, op, n, inits);
    if (count < 0) return;
    MlirValue *flat = flat_alloc(L, count), *args = flat_alloc(L, count);
    MlirType *types = types_alloc(L, count);
    int k = flatten_vals(L, op, n, inits, flat, count);
    if (k < 0) return;
    for (int i = 0; i < k; i++) types[i] = mlirValueGetType(flat[i]);
    MlirRegion regions[2];
    for (int b = 0; b < 2; b++) {
      regions[b] = mlirRegionCreate();
      MlirBlock blk = new_block(L, k, types);
      mlirRegionAppendOwnedBlock(regions[b], blk);
      MlirBlock src = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, b));
      MlirValue sargs[64];
      for (int i = 0; i < k; i++) args[i] = mlirBlockGetArgument(blk, i);
      for (int i = 0; i < n; i++) sargs[i] = mlirBlockGetArgument(src, i);
      unflatten(L, n, sargs, args);
      MlirValue cond = {NULL};
      lower_region_body(L, src, blk, b == 0 ? "scf.condition" : "scf.yield", b == 0 ? &cond : NULL);
    }
    if (L->failed) {
      mlirRegionDestroy(regions[0]);
      mlirRegionDestroy(regions[1]);
      return;
    }
    finish_scf(L, "scf.while", k, types, k, flat, 2, regions, nres, results);
    return;
  }
  lw_fail(L, op, "is not supported yet by the GPU code generator");
}

/* ---- fp32 math through the approximate PTX instructions ---------------------------------- */

MlirValue lw_intrinsic(Lower *L, const char *name, MlirValue x) {
  int32_t seg[2] = {1, 0};
  MlirNamedAttribute attrs[3] = {
      lw_named(L, "intrin", mlirStringAttrGet(L->ctx, str(name))),
      lw_named(L, "op_bundle_sizes", mlirDenseI32ArrayGet(L->ctx, 0, NULL)),
      lw_named(L, "operandSegmentSizes", mlirDenseI32ArrayGet(L->ctx, 2, seg)),
  };
  return lw_emit1(L, "llvm.call_intrinsic", mlirValueGetType(x), 1, &x, 3, attrs);
}

MlirValue lw_const_f32(Lower *L, double v) {
  MlirType f = mlirF32TypeGet(L->ctx);
  MlirNamedAttribute a = lw_named(L, "value", mlirFloatAttrDoubleGet(L->ctx, f, v));
  return lw_emit1(L, "arith.constant", f, 0, NULL, 1, &a);
}

/* Whether an arith or math op's fastmath flags hold flag ("afn", "arcp"). */
static bool has_fastmath(MlirOperation op, const char *flag) {
  MlirAttribute fm = mlirOperationGetAttributeByName(op, str("fastmath"));
  if (mlirAttributeIsNull(fm)) return false;
  StrBuf t = {0};
  ir_attr_text(&t, fm);
  bool has = t.s && strstr(t.s, flag);
  sb_free(&t);
  return has;
}

/* An arith.divf that may be approximate (fastmath `afn`: `/` and tl.fdiv without
 * ieee_rounding): div.full.f32, as Triton gives it; fp16 and bf16 divide in fp32
 * that way. `approx` (tl.fdiv(approx=True)): div.approx.f32. */
static bool approx_div(Lower *L, MlirOperation op, MlirValue r, int n) {
  if (!op_is(op, "arith.divf")) return false;
  MlirType et = lw_scalar_of(L, mlirValueGetType(r));
  bool narrow = mlirTypeIsAF16(et) || mlirTypeIsABF16(et);
  if (!mlirTypeIsAF32(et) && !narrow) return false;
  if (!has_fastmath(op, "afn")) return false;
  bool arcp = has_fastmath(op, "arcp");
  Vals *a = lw_get(L, mlirOperationGetOperand(op, 0)), *b = lw_get(L, mlirOperationGetOperand(op, 1)), *x = lw_new_vals(L, n);
  MlirType f32 = mlirF32TypeGet(L->ctx);
  int32_t seg[2] = {2, 0};
  MlirNamedAttribute attrs[3] = {
      lw_named(L, "intrin", mlirStringAttrGet(L->ctx, str(arcp ? "llvm.nvvm.div.approx.f" : "llvm.nvvm.div.full"))),
      lw_named(L, "op_bundle_sizes", mlirDenseI32ArrayGet(L->ctx, 0, NULL)),
      lw_named(L, "operandSegmentSizes", mlirDenseI32ArrayGet(L->ctx, 2, seg)),
  };
  for (int k = 0; k < n; k++) {
    MlirValue ops[2] = {a->v[a->n == 1 ? 0 : k], b->v[b->n == 1 ? 0 : k]};
    if (narrow)
      for (int j = 0; j < 2; j++) ops[j] = lw_emit1(L, "arith.extf", f32, 1, &ops[j], 0, NULL);
    MlirValue q = lw_emit1(L, "llvm.call_intrinsic", f32, 2, ops, 3, attrs);
    x->v[k] = narrow ? lw_emit1(L, "arith.truncf", et, 1, &q, 0, NULL) : q;
  }
  lw_put(L, r, x);
  return true;
}

/* exp, exp2, rsqrt, sqrt, floor, ceil of fp32: the instructions Triton 3.9 gives them
 * (ex2.approx, rsqrt.approx.ftz, sqrt.approx.ftz, cvt.rmi.ftz, ...); exp(x) = ex2(x * log2(e)).
 * log, log2, sin and cos are libdevice's, as in Triton 3.9 (lw_libdevice_math). A division
 * that may be approximate: div.full.f32. */
bool lw_fast_math(Lower *L, MlirOperation op, MlirValue r, int n) {
  if (approx_div(L, op, r, n)) return true;
  static const struct {
    const char *op, *intrin;
    double pre; /* x * pre first (0: none) */
    bool afn;   /* only where the op may be approximate (fastmath `afn`) */
  } table[] = {
      {"math.exp", "llvm.nvvm.ex2.approx.f32", 1.4426950408889634, false},
      {"math.exp2", "llvm.nvvm.ex2.approx.ftz.f", 0, false}, /* as Triton's tl.math.exp2: no subnormal fix-up */
      {"math.rsqrt", "llvm.nvvm.rsqrt.approx.ftz.f", 0, false},
      {"math.sqrt", "llvm.nvvm.sqrt.approx.ftz.f", 0, true}, /* tl.sqrt; tl.sqrt_rn (no afn) is IEEE's */
      {"math.floor", "llvm.nvvm.floor.ftz.f", 0, false},      /* libdevice's __nv_floorf under its ftz */
      {"math.ceil", "llvm.nvvm.ceil.ftz.f", 0, false},
  };
  for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
    if (!op_is(op, table[i].op)) continue;
    if (!mlirTypeIsAF32(lw_scalar_of(L, mlirValueGetType(r)))) return false;
    if (table[i].afn && !has_fastmath(op, "afn")) return false;
    Vals *in = lw_get(L, mlirOperationGetOperand(op, 0)), *x = lw_new_vals(L, n);
    for (int k = 0; k < n; k++) {
      MlirValue v = in->v[in->n == 1 ? 0 : k];
      if (table[i].pre) v = lw_bin(L, "arith.mulf", v, lw_const_f32(L, table[i].pre));
      x->v[k] = lw_intrinsic(L, table[i].intrin, v);
    }
    lw_put(L, r, x);
    return true;
  }
  return false;
}

/* Math the approximate instructions do not cover (erf, f64, ...): the
 * libdevice function, which the libdevice stage links in. f16/bf16 go through f32. */
bool lw_libdevice_math(Lower *L, MlirOperation op, MlirValue r, int n) {
  static const struct {
    const char *op, *fn;
  } table[] = {
      {"math.exp", "exp"},   {"math.exp2", "exp2"}, {"math.log", "log"}, {"math.log2", "log2"},
      {"math.rsqrt", "rsqrt"}, {"math.sin", "sin"}, {"math.cos", "cos"}, {"math.erf", "erf"},
      {"math.tanh", "tanh"}, {"math.powf", "pow"},
  };
  for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
    if (!op_is(op, table[i].op)) continue;
    MlirType et = lw_scalar_of(L, mlirValueGetType(r));
    bool f64 = mlirTypeIsAF64(et), narrow = mlirTypeIsAF16(et) || mlirTypeIsABF16(et);
    if (!f64 && !narrow && !mlirTypeIsAF32(et)) return false;
    char name[64];
    snprintf(name, sizeof name, "__nv_%s%s", table[i].fn, f64 ? "" : "f");
    int nops = (int)mlirOperationGetNumOperands(op);
    Vals *ins[2];
    for (int j = 0; j < nops && j < 2; j++) ins[j] = lw_get(L, mlirOperationGetOperand(op, j));
    MlirType f32 = mlirF32TypeGet(L->ctx), ct = narrow ? f32 : et;
    Vals *x = lw_new_vals(L, n);
    for (int k = 0; k < n; k++) {
      MlirValue args[2];
      for (int j = 0; j < nops && j < 2; j++) {
        args[j] = ins[j]->v[ins[j]->n == 1 ? 0 : k];
        if (narrow) args[j] = lw_emit1(L, "arith.extf", f32, 1, &args[j], 0, NULL);
      }
      MlirValue v = lw_call(L, name, ct, nops, args);
      x->v[k] = narrow ? lw_emit1(L, "arith.truncf", et, 1, &v, 0, NULL) : v;
    }
    lw_put(L, r, x);
    return true;
  }
  return false;
}
