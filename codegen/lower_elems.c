/*
 * lower_elems.c — which elements of a tensor a thread holds, and where they
 * are: the layout arithmetic every lowering reads. A blocked layout's
 * element k of a thread sits at a multi-index computed from the lane and
 * warp ids; a slice is its parent with one dimension removed, and a dot
 * operand computed with FMAs holds all of K in every thread; an mma.sync
 * result is blocked-like but for its rows. A layout wider
 * than the tensor wraps around, so its elements have several holders, and
 * side effects need the first (lw_owns, lw_holder).
 */
#include "lower.h"

/* mma.sync's C and D: lane l holds, of each 16x8 part, rows l/4 and
 * l/4 + 8 and columns 2(l%4) and 2(l%4) + 1; the warps' parts tile the
 * result, repeated over it (a batched one: each warp one batch element at
 * a time). Read as a blocked layout of [2, 2] per thread on [8, 4] lanes
 * but for its rows (index_raw). wgmma's D (version 3) with its warps along
 * M is the same. */
static bool mma_as_blocked(const Layout *l, int r, Elems *e) {
  bool v2 = l->version == 2 && (r == 2 || r == 3) && l->instr[r - 2] == 16 && l->instr[r - 1] == 8;
  /* wgmma's D: each warp 16 rows of every 16 x wm and every column, a
   * lane's elements those of mma.sync's C in each 8 columns, so the same
   * map when its warps are all along M */
  bool v3 = l->version == 3 && r == 2 && l->instr[0] == 16 && l->wpc[1] == 1;
  if (!(v2 || v3) || l->rank != r) return false;
  e->mma = true;
  if (r == 2)
    e->l = (Layout){.kind = L_BLOCKED, .rank = 2, .spt = {2, 2}, .tpw = {8, 4}, .wpc = {l->wpc[0], l->wpc[1]}, .order = {1, 0}};
  else
    e->l = (Layout){.kind = L_BLOCKED, .rank = 3, .spt = {1, 2, 2}, .tpw = {1, 8, 4}, .wpc = {l->wpc[0], l->wpc[1], l->wpc[2]},
                    .order = {2, 1, 0}};
  return true;
}

bool lw_elems_of(Lower *L, MlirType t, Elems *e) {
  memset(e, 0, sizeof *e);
  e->sliced = -1;
  Layout l;
  if (!layout_of_type(L->comp, t, &l)) return false;
  int r = (int)mlirShapedTypeGetRank(t);
  int64_t shape[MAX_RANK];
  for (int i = 0; i < r; i++) shape[i] = mlirShapedTypeGetDimSize(t, i);
  if (l.kind == L_SLICE && l.parent->kind == L_MMA) {
    /* a reduction of an mma.sync result: its parent's elements with the
     * sliced dimension fixed */
    if (!mma_as_blocked(l.parent, l.parent->rank, e)) return false;
    e->sliced = l.dim;
    for (int i = 0, k = 0; i < l.parent->rank; i++) e->shape[i] = i == l.dim ? 1 : shape[k++];
    e->rank = l.parent->rank;
  } else if (l.kind == L_SLICE) {
    if (l.parent->kind != L_BLOCKED) return false;
    e->sliced = l.dim;
    e->l = *l.parent;
    /* the parent's shape, with 1 in the removed dimension */
    for (int i = 0, k = 0; i < l.parent->rank; i++) e->shape[i] = i == l.dim ? 1 : shape[k++];
    e->rank = l.parent->rank;
  } else if (l.kind == L_BLOCKED) {
    e->l = l;
    e->rank = r;
    memcpy(e->shape, shape, sizeof(int64_t) * (size_t)r);
  } else if (l.kind == L_DOT_OP && l.parent->kind == L_BLOCKED && l.parent->rank == r && r >= 2) {
    /* an operand of a dot computed with FMAs: the rows of A (or the columns
     * of B) the parent gives the thread, with all of K */
    e->l = *l.parent;
    e->rank = r;
    memcpy(e->shape, shape, sizeof(int64_t) * (size_t)r);
    e->whole = 1u << (l.dim == 0 ? r - 1 : r - 2);
  } else if (l.kind == L_MMA) {
    if (!mma_as_blocked(&l, r, e)) return false;
    e->rank = r;
    memcpy(e->shape, shape, sizeof(int64_t) * (size_t)r);
  } else {
    return false;
  }
  e->n = 1;
  for (int d = 0; d < e->rank; d++) {
    int64_t tile = (int64_t)e->l.spt[d] * e->l.tpw[d] * e->l.wpc[d];
    int64_t reps = e->shape[d] > tile ? e->shape[d] / tile : 1;
    e->per[d] = d == e->sliced ? 1 : e->whole >> d & 1 ? (int)e->shape[d] : (int)(e->l.spt[d] * reps);
    e->n *= e->per[d];
  }
  return true;
}

/* The per-dim counters of element k: the fastest dimension varies fastest. */
void lw_counters(const Elems *e, int k, int *c) {
  for (int i = 0; i < e->rank; i++) {
    int d = e->l.order[i];
    c[d] = k % e->per[d];
    k /= e->per[d];
  }
}

int lw_element_of(const Elems *e, const int *c) {
  int k = 0;
  for (int i = e->rank - 1; i >= 0; i--) {
    int d = e->l.order[i];
    k = k * e->per[d] + c[d];
  }
  return k;
}

/* The index along dim d of element k: rep * footprint + (warp * tpw + lane) * spt + j. */
static MlirValue index_raw(Lower *L, const Elems *e, int k, int dim, bool *wraps);

/* lw_index_of computed here for thread tid: the indices of element k of
 * a plain or sliced blocked or mma.sync layout (the sliced dim's is 0). */
void lw_index_at(const Elems *e, int tid, int k, int64_t *idx) {
  int c[MAX_RANK];
  lw_counters(e, k, c);
  const Layout *l = &e->l;
  int lane = tid % 32, warp = tid / 32, lane_div = 1, warp_div = 1;
  for (int i = 0; i < l->rank; i++) {
    int d = l->order[i];
    int wc = (warp / warp_div) % l->wpc[d], lc = (lane / lane_div) % l->tpw[d], tc = wc * l->tpw[d] + lc;
    lane_div *= l->tpw[d];
    warp_div *= l->wpc[d];
    if (d == e->sliced) {
      idx[d] = 0;
      continue;
    }
    int64_t footprint = (int64_t)l->spt[d] * l->tpw[d] * l->wpc[d];
    if (e->mma && d == e->rank - 2) {
      /* M: rep * footprint + warp * 16 + j * 8 + lane / 4 (index_raw) */
      idx[d] = ((int64_t)(c[d] / l->spt[d]) * footprint + (int64_t)wc * 16 + (c[d] % l->spt[d]) * 8 + lc) % e->shape[d];
      continue;
    }
    idx[d] = ((int64_t)(c[d] / l->spt[d]) * footprint + (int64_t)tc * l->spt[d] + c[d] % l->spt[d]) % e->shape[d];
  }
}

/* The thread's place along dim in a blocked layout: warp * tpw + lane, each
 * its coordinate along dim from the layout's order. */
static MlirValue thread_coord(Lower *L, const Layout *l, int dim) {
  int lane_div = 1, warp_div = 1;
  for (int i = 0; i < l->rank && l->order[i] != dim; i++) {
    lane_div *= l->tpw[l->order[i]];
    warp_div *= l->wpc[l->order[i]];
  }
  MlirValue lane = lw_bin(L, "arith.remui", lw_bin(L, "arith.divui", L->lane, lw_const_i32(L, lane_div)), lw_const_i32(L, l->tpw[dim]));
  MlirValue warp = lw_bin(L, "arith.remui", lw_bin(L, "arith.divui", L->warp, lw_const_i32(L, warp_div)), lw_const_i32(L, l->wpc[dim]));
  return lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", warp, lw_const_i32(L, l->tpw[dim])), lane);
}

MlirValue lw_index_of(Lower *L, const Elems *e, int k, int dim) {
  bool wraps;
  MlirValue idx = index_raw(L, e, k, dim, &wraps);
  /* a layout wider than the tensor wraps around: those threads replicate */
  if (wraps) idx = lw_bin(L, "arith.remui", idx, lw_const_i32(L, e->shape[dim]));
  return idx;
}

/* Whether this thread is the first holder of element k (false for the
 * replicas of a layout wider than the tensor): what side effects need. */
MlirValue lw_owns(Lower *L, const Elems *e, int k) {
  MlirType i1 = mlirIntegerTypeGet(L->ctx, 1);
  MlirNamedAttribute t = lw_named(L, "value", mlirIntegerAttrGet(i1, 1));
  MlirValue all = lw_emit1(L, "arith.constant", i1, 0, NULL, 1, &t);
  for (int d = 0; d < e->rank; d++) {
    if (d == e->sliced) continue;
    if (e->whole >> d & 1) {
      /* every thread along d holds it: the first one owns it */
      MlirValue ops[2] = {thread_coord(L, &e->l, d), lw_const_i32(L, 0)};
      MlirNamedAttribute pred = lw_named(L, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), 0)); /* eq */
      all = lw_bin(L, "arith.andi", all, lw_emit1(L, "arith.cmpi", i1, 2, ops, 1, &pred));
      continue;
    }
    bool wraps;
    MlirValue raw = index_raw(L, e, k, d, &wraps);
    if (!wraps) continue;
    MlirValue ops[2] = {raw, lw_const_i32(L, e->shape[d])};
    MlirNamedAttribute pred = lw_named(L, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), 6)); /* ult */
    all = lw_bin(L, "arith.andi", all, lw_emit1(L, "arith.cmpi", i1, 2, ops, 1, &pred));
  }
  return all;
}

/* Whether this thread makes the side effects of element k: the first
 * holder of a tensor's element (e), thread 0 for a scalar (e NULL), which
 * every thread holds. Without it the copies race, and a read-modify-write
 * of a replicated element applies once per holder. */
MlirValue lw_holder(Lower *L, const Elems *e, int k) {
  if (e) return lw_owns(L, e, k);
  MlirValue ops[2] = {L->tid, lw_const_i32(L, 0)};
  MlirNamedAttribute eq = lw_named(L, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), 0));
  return lw_emit1(L, "arith.cmpi", mlirIntegerTypeGet(L->ctx, 1), 2, ops, 1, &eq);
}

static MlirValue index_raw(Lower *L, const Elems *e, int k, int dim, bool *wraps) {
  int c[MAX_RANK];
  lw_counters(e, k, c);
  const Layout *l = &e->l;
  *wraps = false;
  if (dim == e->sliced) return lw_const_i32(L, 0);
  if (e->whole >> dim & 1) return lw_const_i32(L, c[dim]);
  int spt = l->spt[dim];
  int64_t footprint = (int64_t)spt * l->tpw[dim] * l->wpc[dim];
  int rep = c[dim] / spt, j = c[dim] % spt;
  *wraps = footprint > e->shape[dim];
  if (e->mma && dim == e->rank - 2) {
    /* M: rep * footprint + warp * 16 + j * 8 + lane / 4 */
    Layout lanes = *l, warps = *l;
    lanes.wpc[dim] = 1;
    warps.tpw[dim] = 1;
    MlirValue lane = thread_coord(L, &lanes, dim), warp = thread_coord(L, &warps, dim);
    return lw_bin(L, "arith.addi", lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", warp, lw_const_i32(L, 16)), lane),
                  lw_const_i32(L, (int64_t)rep * footprint + j * 8));
  }
  MlirValue thread = thread_coord(L, l, dim);
  MlirValue idx = lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", thread, lw_const_i32(L, spt)),
                      lw_const_i32(L, (int64_t)rep * footprint + j));
  return idx;
}
