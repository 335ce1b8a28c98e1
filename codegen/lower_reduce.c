/*
 * lower_reduce.c — lowering reductions and scans: within a thread, across a
 * warp with shuffles, across warps through shared memory.
 */
#include "lower.h"

/* ---- reductions ------------------------------------------------------------------- */

/* Applies a reduce op's combiner to (a[0..n), b[0..n)) into out. */
static void combine(Lower *L, MlirOperation red, int n, const MlirValue *a, const MlirValue *b, MlirValue *out) {
  MlirBlock blk = mlirRegionGetFirstBlock(mlirOperationGetRegion(red, 0));
  for (int i = 0; i < n; i++) {
    Vals *x = lw_new_vals(L, 1), *y = lw_new_vals(L, 1);
    x->v[0] = a[i];
    y->v[0] = b[i];
    lw_put(L, mlirBlockGetArgument(blk, i), x);
    lw_put(L, mlirBlockGetArgument(blk, n + i), y);
  }
  MlirOperation o = mlirBlockGetFirstOperation(blk);
  for (; !mlirOperationIsNull(mlirOperationGetNextInBlock(o)) && !L->failed; o = mlirOperationGetNextInBlock(o))
    lw_lower_op(L, o);
  for (int i = 0; !L->failed && i < n; i++) out[i] = lw_get(L, mlirOperationGetOperand(o, i))->v[0];
}

/* A butterfly shuffle of a scalar across the lanes of a warp. */
static MlirValue shuffle_xor(Lower *L, MlirValue v, int offset) {
  MlirType t = mlirValueGetType(v), it32 = lw_i32(L);
  int bits = lw_bits_of(t);
  if (bits == 64) {
    /* two 32-bit halves */
    MlirType i64 = mlirIntegerTypeGet(L->ctx, 64);
    MlirValue x = mlirTypeIsAInteger(t) ? v : lw_emit1(L, "arith.bitcast", i64, 1, &v, 0, NULL);
    MlirValue lo = lw_emit1(L, "arith.trunci", it32, 1, &x, 0, NULL);
    MlirValue sh = lw_bin(L, "arith.shrui", x, lw_emit1(L, "arith.constant", i64, 0, NULL, 1,
                                                  (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(i64, 32))}));
    MlirValue hi = lw_emit1(L, "arith.trunci", it32, 1, &sh, 0, NULL);
    lo = shuffle_xor(L, lo, offset);
    hi = shuffle_xor(L, hi, offset);
    MlirValue lo64 = lw_emit1(L, "arith.extui", i64, 1, &lo, 0, NULL), hi64 = lw_emit1(L, "arith.extui", i64, 1, &hi, 0, NULL);
    MlirValue r = lw_bin(L, "arith.ori", lo64, lw_bin(L, "arith.shli", hi64, lw_emit1(L, "arith.constant", i64, 0, NULL, 1,
                                                                            (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(i64, 32))})));
    return mlirTypeIsAInteger(t) ? r : lw_emit1(L, "arith.bitcast", t, 1, &r, 0, NULL);
  }
  MlirValue x = v;
  if (bits < 32) {
    MlirType ib = mlirIntegerTypeGet(L->ctx, (unsigned)bits);
    if (!mlirTypeIsAInteger(t)) x = lw_emit1(L, "arith.bitcast", ib, 1, &x, 0, NULL);
    x = lw_emit1(L, "arith.extui", it32, 1, &x, 0, NULL);
  } else if (!mlirTypeIsAInteger(t) && !mlirTypeIsAF32(t)) {
    x = lw_emit1(L, "arith.bitcast", it32, 1, &x, 0, NULL);
  }
  MlirValue ops[4] = {lw_const_i32(L, -1), x, lw_const_i32(L, offset), lw_const_i32(L, 31)};
  MlirNamedAttribute kind = lw_named(L, "kind", ir_parse_attr(L->comp->ic, "#nvvm<shfl_kind bfly>"));
  MlirValue r = lw_emit1(L, "nvvm.shfl.sync", mlirValueGetType(x), 4, ops, 1, &kind);
  if (bits < 32) {
    MlirType ib = mlirIntegerTypeGet(L->ctx, (unsigned)bits);
    r = lw_emit1(L, "arith.trunci", ib, 1, &r, 0, NULL);
    if (!mlirTypeIsAInteger(t)) r = lw_emit1(L, "arith.bitcast", t, 1, &r, 0, NULL);
  }
  return r;
}

/* A shuffle of a 32-bit value (else null) of the given kind (`#nvvm<shfl_kind KIND>`)
 * from lane or offset src. */
static MlirValue shuffle32(Lower *L, MlirValue v, const char *kind, MlirValue src, int clamp) {
  MlirType t = mlirValueGetType(v);
  if (!mlirTypeIsAF32(t) && !(mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 32)) return (MlirValue){NULL};
  MlirValue ops[4] = {lw_const_i32(L, -1), v, src, lw_const_i32(L, clamp)};
  MlirNamedAttribute k = lw_named(L, "kind", ir_parse_attr(L->comp->ic, kind));
  return lw_emit1(L, "nvvm.shfl.sync", t, 4, ops, 1, &k);
}

/* A shuffle up by offset lanes (lanes below take nothing new: the caller
 * selects), or down for a reverse scan; 32-bit values only. */
static MlirValue shuffle_dir(Lower *L, MlirValue v, int offset, bool down) {
  return shuffle32(L, v, down ? "#nvvm<shfl_kind down>" : "#nvvm<shfl_kind up>", lw_const_i32(L, offset), down ? 0x1f : 0);
}

MlirValue lw_pick(Lower *L, MlirValue c, MlirValue a, MlirValue b) {
  MlirValue ops[3] = {c, a, b};
  return lw_emit1(L, "arith.select", mlirValueGetType(a), 3, ops, 0, NULL);
}

MlirValue lw_cmp_u32(Lower *L, int pred, MlirValue a, MlirValue b) {
  MlirValue ops[2] = {a, b};
  MlirNamedAttribute p = lw_named(L, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), pred));
  return lw_emit1(L, "arith.cmpi", mlirIntegerTypeGet(L->ctx, 1), 2, ops, 1, &p);
}

/* A scan's steps 2 and 3 across lanes and warps, for one chunk of a group
 * (its elements scanned within the thread, `total` the thread's inclusive
 * total), in two halves: scan_publish scans the totals across the lanes
 * holding the axis and writes each warp's total to shared memory;
 * scan_finish reads the warps' totals and gives each element the prefix on
 * its left. Every chunk is published before any is finished, so that one
 * barrier serves them all. */
typedef struct ScanGeom {
  int n;
  bool rev, need_total; /* need_total: the chunk's whole total, for the chunks after it */
  int64_t lanes, warps;
  int lane_div, lanes_along, warp_div, warps_along;
  MlirValue lane_c, warp_c;
} ScanGeom;

typedef struct ScanPart {
  MlirValue total[8], prefix[8], chunk_total[8], base[8];
  MlirValue lane_s, warp_s, row, lane_other;
} ScanPart;

static void scan_publish(Lower *L, MlirOperation op, const ScanGeom *g, ScanPart *sp) {
  int n = g->n;
  int64_t lanes = g->lanes, warps = g->warps;
  MlirValue *total = sp->total;
  /* a lane's and a warp's position in scan order (lanes and warps past
   * the axis's extent hold copies: each mirrors its original) */
  sp->lane_s = g->rev ? lw_bin(L, "arith.subi", lw_const_i32(L, (int32_t)(lanes - 1)),
                               lw_bin(L, "arith.remui", g->lane_c, lw_const_i32(L, (int32_t)lanes)))
                      : g->lane_c;
  sp->warp_s = g->rev ? lw_bin(L, "arith.subi", lw_const_i32(L, (int32_t)(warps - 1)),
                               lw_bin(L, "arith.remui", g->warp_c, lw_const_i32(L, (int32_t)warps)))
                      : g->warp_c;
  /* 2. across lanes: inclusive scan of the totals */
  for (int step = 1; step < lanes && !L->failed; step *= 2) {
    MlirValue up[8], comb[8];
    for (int i = 0; i < n; i++) {
      up[i] = shuffle_dir(L, total[i], step * g->lane_div, g->rev);
      if (mlirValueIsNull(up[i])) {
        lw_fail(L, op, "of values that are not 32 bits wide is not supported yet by the GPU code generator");
        return;
      }
    }
    combine(L, op, n, up, total, comb);
    MlirValue take = lw_cmp_u32(L, 9 /* uge */, sp->lane_s, lw_const_i32(L, step));
    for (int i = 0; i < n; i++) total[i] = lw_pick(L, take, comb[i], total[i]);
  }
  /* the warp's part of the chunk: the last lane's (in scan order) inclusive total */
  if (g->need_total && lanes > 1 && warps == 1) {
    MlirValue last = lw_const_i32(L, (int32_t)((g->rev ? 0 : lanes - 1) * g->lane_div));
    MlirValue src = lw_bin(L, "arith.addi", last, lw_bin(L, "arith.remui", L->lane, lw_const_i32(L, g->lane_div)));
    for (int i = 0; i < n; i++) sp->chunk_total[i] = shuffle32(L, total[i], "#nvvm<shfl_kind idx>", src, 0x1f);
  }
  if (warps <= 1 || L->failed) return;
  /* 3. each warp's total (its last lane) to shared memory, at [the warp's
   * place along the other dims][its coordinate along the axis][the lane's
   * place along the other dims]: one slot per lane group */
  MlirValue last = lw_cmp_u32(L, 0 /* eq */, sp->lane_s, lw_const_i32(L, (int32_t)(lanes - 1)));
  MlirValue wd = lw_const_i32(L, g->warp_div), wa = lw_const_i32(L, (int32_t)(g->warp_div * g->warps_along));
  MlirValue other = lw_bin(L, "arith.addi", lw_bin(L, "arith.remui", L->warp, wd), lw_bin(L, "arith.muli", lw_bin(L, "arith.divui", L->warp, wa), wd));
  sp->row = lw_bin(L, "arith.muli", other, lw_const_i32(L, (int32_t)warps));
  MlirValue ld = lw_const_i32(L, g->lane_div), la = lw_const_i32(L, g->lane_div * g->lanes_along);
  sp->lane_other = lw_bin(L, "arith.addi", lw_bin(L, "arith.remui", L->lane, ld), lw_bin(L, "arith.muli", lw_bin(L, "arith.divui", L->lane, la), ld));
  MlirValue slot = lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", lw_bin(L, "arith.addi", sp->row, sp->warp_s), lw_const_i32(L, 32 / g->lanes_along)),
                          sp->lane_other);
  for (int i = 0; i < n; i++) {
    MlirType et = mlirValueGetType(total[i]);
    sp->base[i] = lw_shared_buffer(L, et, (int64_t)L->comp->num_warps * (32 / g->lanes_along));
    lw_store_shared_at_if(L, sp->base[i], et, slot, last, total[i]);
  }
}

/* The rest of the chunk's scan: the warps' totals read back, the prefix of
 * the chunk's elements in this thread (after `carry`, the chunks before it,
 * when there are), and with need_total the chunk's whole total in
 * chunk_total. As Triton: the thread's last element (in scan order) is its
 * lane's inclusive total with that prefix on its left; the thread's other
 * elements take the lane before's last (a shuffle after the barrier) on
 * theirs, so one value a chunk is kept across the barrier. */
static void scan_finish(Lower *L, MlirOperation op, const ScanGeom *g, ScanPart *sp, const MlirValue *carry, const int *ck,
                        int nk, Vals **out) {
  int n = g->n;
  int64_t lanes = g->lanes, warps = g->warps;
  /* the prefix of the warps and chunks before: where has_prefix holds
   * (null: nowhere), everywhere with carry */
  MlirValue *prefix = sp->prefix, has_prefix = {NULL};
  if (warps > 1 && !L->failed) {
    MlirValue wacc[8] = {{NULL}}, all[8] = {{NULL}};
    for (int w = 0; w < warps && !L->failed; w++) {
      if (w + 1 == warps && !g->need_total) break;
      MlirValue t[8], cand[8];
      MlirValue slot = lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", lw_bin(L, "arith.addi", sp->row, lw_const_i32(L, w)), lw_const_i32(L, 32 / g->lanes_along)),
                              sp->lane_other);
      for (int i = 0; i < n; i++) t[i] = lw_load_shared(L, sp->base[i], mlirValueGetType(sp->total[i]), slot);
      if (g->need_total) {
        if (w == 0) {
          for (int i = 0; i < n; i++) all[i] = t[i];
        } else {
          combine(L, op, n, all, t, all);
        }
      }
      if (w + 1 == warps) break;
      if (w == 0) {
        for (int i = 0; i < n; i++) cand[i] = t[i];
      } else {
        combine(L, op, n, wacc, t, cand);
      }
      MlirValue before = lw_cmp_u32(L, 8 /* ugt */, sp->warp_s, lw_const_i32(L, w));
      for (int i = 0; i < n; i++) wacc[i] = w == 0 ? cand[i] : lw_pick(L, before, cand[i], wacc[i]);
    }
    if (g->need_total)
      for (int i = 0; i < n; i++) sp->chunk_total[i] = all[i];
    for (int i = 0; i < n; i++) prefix[i] = wacc[i];
    has_prefix = lw_cmp_u32(L, 8 /* ugt */, sp->warp_s, lw_const_i32(L, 0));
  }
  if (carry) {
    if (mlirValueIsNull(has_prefix)) {
      for (int i = 0; i < n; i++) prefix[i] = carry[i];
    } else {
      MlirValue comb[8];
      combine(L, op, n, carry, prefix, comb);
      for (int i = 0; i < n; i++) prefix[i] = lw_pick(L, has_prefix, comb[i], carry[i]);
    }
  }
  bool any = carry || !mlirValueIsNull(has_prefix);
  /* the last element: the lane's inclusive total, the prefix on its left */
  MlirValue last[8];
  int kl = g->rev ? 0 : nk - 1;
  for (int i = 0; i < n; i++) last[i] = sp->total[i];
  if (any && !L->failed) {
    MlirValue comb[8];
    combine(L, op, n, prefix, last, comb);
    for (int i = 0; i < n; i++) last[i] = carry ? comb[i] : lw_pick(L, has_prefix, comb[i], last[i]);
  }
  for (int i = 0; i < n; i++) out[i]->v[ck[kl]] = last[i];
  if (nk == 1 || L->failed) return;
  /* the other elements: the lane before's last on their left (or, in the
   * first lane, the prefix) */
  MlirValue before[8], has_before = has_prefix;
  bool always = carry != NULL;
  if (lanes > 1) {
    MlirValue first = lw_cmp_u32(L, 0 /* eq */, sp->lane_s, lw_const_i32(L, 0));
    for (int i = 0; i < n; i++) {
      before[i] = shuffle_dir(L, last[i], g->lane_div, g->rev);
      if (any) before[i] = lw_pick(L, first, prefix[i], before[i]);
    }
    if (!always) {
      MlirValue later = lw_cmp_u32(L, 8 /* ugt */, sp->lane_s, lw_const_i32(L, 0));
      has_before = mlirValueIsNull(has_prefix) ? later : lw_bin(L, "arith.ori", later, has_prefix);
    }
  } else {
    if (!any) return;
    for (int i = 0; i < n; i++) before[i] = prefix[i];
  }
  for (int j = 0; j < nk && !L->failed; j++) {
    if (j == kl) continue;
    MlirValue x[8], comb[8];
    for (int i = 0; i < n; i++) x[i] = out[i]->v[ck[j]];
    combine(L, op, n, before, x, comb);
    for (int i = 0; i < n; i++) out[i]->v[ck[j]] = always ? comb[i] : lw_pick(L, has_before, comb[i], x[i]);
  }
}

/* tile.scan (inclusive): within each thread along the axis, then across
 * its lanes (Hillis-Steele with shuffles), then across warps through shared
 * memory; each stage's prefix is combined on the left, so combine functions
 * need not commute. A reverse scan is the same with the axis mirrored
 * (later elements, lanes and warps come first), so it is the forward scan
 * of the flipped input, flipped back, as Triton defines it. */
void lw_lower_scan(Lower *L, MlirOperation op) {
  int n = (int)mlirOperationGetNumOperands(op);
  MlirValue src0 = mlirOperationGetOperand(op, 0);
  Elems e;
  int axis = (int)op_int_attr(op, "axis", 0);
  bool rev = !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("reverse")));
  if (!lw_elems_of(L, mlirValueGetType(src0), &e) || !lw_plain(&e) || e.per[axis] > 256) {
    lw_fail(L, op, "of this layout is not supported yet by the GPU code generator");
    return;
  }
  Vals *in[8], *out[8];
  for (int i = 0; i < n; i++) {
    in[i] = lw_get(L, mlirOperationGetOperand(op, i));
    out[i] = lw_new_vals(L, e.n);
    for (int k = 0; k < e.n; k++) out[i]->v[k] = in[i]->v[k];
  }
  /* 1. within the thread: element k after the one before it along the axis
   * (in scan order: for a reverse scan, the one after it) */
  for (int kk = 0; kk < e.n && !L->failed; kk++) {
    int k = rev ? e.n - 1 - kk : kk;
    int c[MAX_RANK] = {0};
    lw_counters(&e, k, c);
    if (c[axis] % e.l.spt[axis] == (rev ? e.l.spt[axis] - 1 : 0)) continue; /* a chunk's first, in scan order */
    c[axis] += rev ? 1 : -1;
    int prev = lw_element_of(&e, c);
    MlirValue a[8], b[8], r[8];
    for (int i = 0; i < n; i++) a[i] = out[i]->v[prev], b[i] = out[i]->v[k];
    combine(L, op, n, a, b, r);
    for (int i = 0; i < n; i++) out[i]->v[k] = r[i];
  }
  /* the thread's totals: its last element along the axis, per group */
  const Layout *l = &e.l;
  int lane_div = 1, warp_div = 1;
  for (int i = 0; i < l->rank && l->order[i] != axis; i++) {
    lane_div *= l->tpw[l->order[i]];
    warp_div *= l->wpc[l->order[i]];
  }
  int64_t lanes = e.shape[axis] / l->spt[axis];
  if (lanes > l->tpw[axis]) lanes = l->tpw[axis];
  int64_t warps = e.shape[axis] / ((int64_t)l->spt[axis] * l->tpw[axis]);
  if (warps > l->wpc[axis]) warps = l->wpc[axis];
  if (warps < 1) warps = 1;
  int ngroups = e.n / e.per[axis];
  /* a thread holding the axis in several repetitions scans each chunk of
   * the tensor the layout covers once on its own, then carries the totals
   * of the chunks before it in scan order */
  int spt = l->spt[axis], chunks = e.per[axis] / spt;
  Elems groups = e;
  groups.per[axis] = 1;
  groups.n = ngroups;
  MlirValue lane_c = lw_bin(L, "arith.remui", lw_bin(L, "arith.divui", L->lane, lw_const_i32(L, lane_div)), lw_const_i32(L, l->tpw[axis]));
  MlirValue warp_c = lw_bin(L, "arith.remui", lw_bin(L, "arith.divui", L->warp, lw_const_i32(L, warp_div)), lw_const_i32(L, l->wpc[axis]));
  for (int g = 0; g < ngroups && !L->failed; g++) {
    /* the elements of group g (the same counters but the axis), in axis order */
    int ks[256], nk = 0;
    for (int k = 0; k < e.n && nk < 256; k++) {
      int c[MAX_RANK] = {0};
      lw_counters(&e, k, c);
      c[axis] = 0;
      if (lw_element_of(&groups, c) == g) ks[nk++] = k;
    }
    /* chunks published, then finished in scan order, each carrying the
     * totals of those before it */
    ScanGeom geom = {.n = n, .rev = rev, .need_total = chunks > 1, .lanes = lanes, .warps = warps, .lane_div = lane_div,
                     .lanes_along = l->tpw[axis], .warp_div = warp_div, .warps_along = l->wpc[axis], .lane_c = lane_c,
                     .warp_c = warp_c};
    bool across = lanes > 1 || warps > 1;
    ScanPart *parts = arena_alloc(L->comp->a, sizeof(ScanPart) * (size_t)chunks);
    /* chunks published a batch at a time: one barrier for the batch, while
     * the values it keeps across the barrier stay few */
    int batch = 16 / (n * spt) > 1 ? 16 / (n * spt) : 1;
    MlirValue carry[8];
    for (int q0 = 0; q0 < chunks && !L->failed; q0 += batch) {
      int q1 = q0 + batch < chunks ? q0 + batch : chunks;
      for (int q = q0; q < q1 && !L->failed; q++) {
        const int *ck = ks + (rev ? chunks - 1 - q : q) * spt; /* this chunk's elements */
        for (int i = 0; i < n; i++) parts[q].chunk_total[i] = parts[q].total[i] = out[i]->v[ck[rev ? 0 : spt - 1]];
        if (across) scan_publish(L, op, &geom, &parts[q]);
      }
      for (int q = q0; q < q1 && !L->failed; q++) {
        const int *ck = ks + (rev ? chunks - 1 - q : q) * spt;
        if (across) {
          scan_finish(L, op, &geom, &parts[q], q > 0 ? carry : NULL, ck, spt, out);
        } else if (q > 0) {
          /* the chunk lies in this thread: the chunks before it, on the left */
          for (int j = 0; j < spt && !L->failed; j++) {
            MlirValue x[8], comb[8];
            for (int i = 0; i < n; i++) x[i] = out[i]->v[ck[j]];
            combine(L, op, n, carry, x, comb);
            for (int i = 0; i < n; i++) out[i]->v[ck[j]] = comb[i];
          }
        }
        if (q + 1 < chunks) {
          if (q == 0) {
            for (int i = 0; i < n; i++) carry[i] = parts[q].chunk_total[i];
          } else {
            combine(L, op, n, carry, parts[q].chunk_total, carry);
          }
        }
      }
    }
  }
  if (L->failed) return;
  for (int i = 0; i < n; i++) lw_put(L, mlirOperationGetResult(op, i), out[i]);
}

/* tile.reduce: within each thread, then across the lanes holding the axis
 * (butterfly shuffles), then across warps through shared memory. Lanes and
 * warps that only replicate elements (a layout wider than the tensor) take
 * no part, so nothing is counted twice. */
void lw_lower_reduce(Lower *L, MlirOperation op) {
  int n = 0;
  while (n < (int)mlirOperationGetNumOperands(op)) n++;
  MlirValue src0 = mlirOperationGetOperand(op, 0);
  Elems e;
  /* an mma.sync result reduces as the blocked layout it is read as: the
   * counters group its elements, lw_index_of places them */
  if (!lw_elems_of(L, mlirValueGetType(src0), &e) || e.sliced >= 0 || e.whole) {
    lw_fail(L, op, "of this layout is not supported yet by the GPU code generator");
    return;
  }
  int axis = (int)op_int_attr(op, "axis", 0);
  Vals *in[8];
  for (int i = 0; i < n; i++) in[i] = lw_get(L, mlirOperationGetOperand(op, i));
  /* 1. within the thread: the elements of each output element, in axis
   * order, combined pairwise as a tree (as Triton: short dependence chains,
   * and its order of float additions) */
  int nout = e.n / e.per[axis], per = e.per[axis];
  MlirValue *acc = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)(nout * n + 1));
  MlirValue *items = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)(e.n * n + 1));
  Elems outl = e;
  outl.per[axis] = 1;
  outl.n = nout;
  for (int k = 0; k < e.n; k++) {
    int c[MAX_RANK] = {0};
    lw_counters(&e, k, c);
    int ca = c[axis];
    c[axis] = 0;
    int o = lw_element_of(&outl, c);
    for (int i = 0; i < n; i++) items[((size_t)o * per + ca) * n + i] = in[i]->v[k];
  }
  for (int o = 0; o < nout && !L->failed; o++) {
    MlirValue *v = items + (size_t)o * per * n;
    for (int cnt = per; cnt > 1 && !L->failed;) {
      int h = 0;
      for (int j = 0; j < cnt; j += 2, h++) {
        if (j + 1 < cnt) combine(L, op, n, v + j * n, v + (j + 1) * n, v + h * n);
        else
          for (int i = 0; i < n; i++) v[h * n + i] = v[j * n + i];
      }
      cnt = h;
    }
    for (int i = 0; i < n; i++) acc[o * n + i] = v[i];
  }
  /* 2. across lanes */
  const Layout *l = &e.l;
  int lane_div = 1, warp_div = 1;
  for (int i = 0; i < l->rank && l->order[i] != axis; i++) {
    lane_div *= l->tpw[l->order[i]];
    warp_div *= l->wpc[l->order[i]];
  }
  int64_t distinct_lanes = e.shape[axis] / l->spt[axis];
  if (distinct_lanes > l->tpw[axis]) distinct_lanes = l->tpw[axis];
  for (int step = 1; step < distinct_lanes && !L->failed; step *= 2)
    for (int o = 0; o < nout; o++) {
      MlirValue other[8];
      for (int i = 0; i < n; i++) other[i] = shuffle_xor(L, acc[o * n + i], step * lane_div);
      combine(L, op, n, acc + o * n, other, acc + o * n);
    }
  /* 3. across warps: each warp's partials at [warp coordinate][output
   * element's row-major place], a barrier, then every thread combines the
   * partials of its output elements. As Triton, a thread writes at most 16
   * bytes of partials a round: more outputs along the layout's fastest dim
   * go in rounds, each over the buffer of one (its place along that dim
   * ((i % footprint) / spt) * g + i % g), a barrier between them */
  int64_t distinct_warps = e.shape[axis] / ((int64_t)l->spt[axis] * l->tpw[axis]);
  if (distinct_warps > l->wpc[axis]) distinct_warps = l->wpc[axis];
  if (distinct_warps > 1 && !L->failed) {
    int64_t m = 1; /* elements of the result */
    for (int d = 0; d < e.rank; d++)
      if (d != axis) m *= e.shape[d];
    int maxbits = 8;
    for (int i = 0; i < n; i++)
      if (lw_bits_of(mlirValueGetType(acc[i])) > maxbits) maxbits = lw_bits_of(mlirValueGetType(acc[i]));
    int fast = -1, g = 128 / maxbits, rounds = 1;
    for (int i = 0; i < l->rank && fast < 0; i++)
      if (l->order[i] != axis) fast = l->order[i];
    int64_t fp = fast >= 0 ? (int64_t)l->spt[fast] * l->tpw[fast] * l->wpc[fast] : 1;
    if (fast >= 0 && outl.per[fast] > g && l->spt[fast] % g == 0 && e.shape[fast] % fp == 0)
      rounds = outl.per[fast] / g;
    int64_t mr = rounds > 1 ? m / e.shape[fast] * (fp / l->spt[fast]) * g : m; /* a round's places */
    MlirValue coord = lw_bin(L, "arith.remui", lw_bin(L, "arith.divui", L->warp, lw_const_i32(L, warp_div)), lw_const_i32(L, distinct_warps));
    MlirValue *lin = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)(nout + 1));
    int *round_of = arena_alloc(L->comp->a, sizeof(int) * (size_t)(nout + 1));
    for (int o = 0; o < nout; o++) {
      int c[MAX_RANK] = {0};
      lw_counters(&outl, o, c);
      round_of[o] = rounds > 1 ? c[fast] / g : 0;
      lin[o] = lw_const_i32(L, 0);
      for (int d = 0; d < e.rank; d++) {
        if (d == axis) continue;
        MlirValue at = lw_index_of(L, &outl, o, d);
        int64_t size = e.shape[d];
        if (rounds > 1 && d == fast) {
          MlirValue run = lw_bin(L, "arith.divui", lw_bin(L, "arith.remui", at, lw_const_i32(L, fp)), lw_const_i32(L, l->spt[d]));
          at = lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", run, lw_const_i32(L, g)), lw_bin(L, "arith.remui", at, lw_const_i32(L, g)));
          size = fp / l->spt[d] * g;
        }
        lin[o] = lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", lin[o], lw_const_i32(L, size)), at);
      }
    }
    /* one buffer per operand; the partials of all operands combine together */
    MlirValue base[8];
    for (int i = 0; i < n; i++) base[i] = lw_shared_buffer(L, mlirValueGetType(acc[i]), distinct_warps * mr);
    bool narrow = maxbits <= 32;
    bool by_lanes = m == 1 && nout == 1 && narrow && distinct_warps <= 32 && !(distinct_warps & (distinct_warps - 1));
    for (int r = 0; r < rounds && !L->failed; r++) {
      for (int i = 0; i < n; i++)
        for (int o = 0; o < nout; o++)
          if (round_of[o] == r)
            lw_store_shared(L, base[i], mlirValueGetType(acc[i]),
                            lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", coord, lw_const_i32(L, mr)), lin[o]), acc[o * n + i]);
      if (by_lanes) {
        /* as Triton: lane l reads warp l's partial (mod the warps), and the
         * lanes combine them with shuffles: one value a lane, not all */
        MlirValue at = lw_bin(L, "arith.remui", L->lane, lw_const_i32(L, distinct_warps)), total[8];
        for (int i = 0; i < n; i++) total[i] = lw_load_shared(L, base[i], mlirValueGetType(acc[i]), at);
        for (int step = (int)distinct_warps / 2; step >= 1 && !L->failed; step /= 2) {
          MlirValue other[8];
          for (int i = 0; i < n; i++) other[i] = shuffle_xor(L, total[i], step);
          combine(L, op, n, total, other, total);
        }
        for (int i = 0; i < n; i++) acc[i] = total[i];
        continue;
      }
      for (int o = 0; o < nout && !L->failed; o++) {
        if (round_of[o] != r) continue;
        MlirValue total[8], v[8];
        for (int i = 0; i < n; i++) total[i] = lw_load_shared(L, base[i], mlirValueGetType(acc[i]), lin[o]);
        for (int w = 1; w < distinct_warps && !L->failed; w++) {
          for (int i = 0; i < n; i++)
            v[i] = lw_load_shared(L, base[i], mlirValueGetType(acc[i]), lw_bin(L, "arith.addi", lw_const_i32(L, (int64_t)w * mr), lin[o]));
          combine(L, op, n, total, v, total);
        }
        for (int i = 0; i < n; i++) acc[o * n + i] = total[i];
      }
    }
  }
  if (L->failed) return;
  for (int i = 0; i < n; i++) {
    MlirValue r = mlirOperationGetResult(op, i);
    Vals *x = lw_new_vals(L, nout);
    for (int o = 0; o < nout; o++) x->v[o] = acc[o * n + i];
    lw_put(L, r, x);
  }
}
