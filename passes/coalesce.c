/*
 * coalesce.c — layouts that make global memory accesses coalesced and wide.
 *
 * Requires: convert-to-gpu (every tensor has a layout). Guarantees: the
 * pointer tensor of each load, store and atomic has a blocked layout in
 * which a thread owns a contiguous vector along the fastest-varying
 * dimension, as wide as axis info proves safe (contiguity, and alignment
 * from divisibility) and at most 16 bytes; the order of dimensions follows
 * contiguity; the lanes of a warp and the warps then cover the tile from the
 * fastest dimension out. Memory ops that feed one computation share a
 * layout, as in Triton: the ops connected through definitions and uses
 * whose pointers have the same shape and order take the widest vector of
 * their group (a store or atomic no wider than its own pointer allows), so
 * that eight shifted loads summed into one tile need no conversions; a less
 * aligned member moves its run in narrower instructions (codegen takes the
 * width from axis info). A load is no wider than the stores its value
 * reaches, even when it is aligned wider: a row stored one element a
 * thread is loaded so, not converted between the two. The memory op's
 * operands are converted into that layout and its result back, for
 * remove-layout-conversions to clean.
 */
#include "passes.h"

#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

typedef struct Coalesce {
  Compilation *comp;
  AxisAnalysis *aa;
  PtrVec ops;
  PtrMap mem; /* memory op -> its index in ops + 1 */
  /* the connected parts of the def-use graph: every op's index + 1, and a
   * union-find forest over the indices */
  PtrMap index;
  PtrVec all;
  int *parent;
  int64_t *cap; /* per memory op: the narrowest store its value reaches */
  PtrMap seen;  /* the walk of one store's value */
} Coalesce;

static void number(MlirOperation op, void *user) {
  Coalesce *c = user;
  vec_push(c->comp->a, &c->all, op.ptr);
  map_put(c->comp->a, &c->index, op.ptr, (void *)(intptr_t)c->all.n);
}

static int find(Coalesce *c, int i) {
  while (c->parent[i] != i) i = c->parent[i] = c->parent[c->parent[i]];
  return i;
}

static void join(Coalesce *c, MlirOperation a, MlirOperation b) {
  intptr_t ia = (intptr_t)map_get(&c->index, a.ptr), ib = (intptr_t)map_get(&c->index, b.ptr);
  if (!ia || !ib) return; /* outside the walk: the function itself */
  c->parent[find(c, (int)ia - 1)] = find(c, (int)ib - 1);
}

/* Links each op with the producers of its operands (the op that owns a
 * block argument, a loop for its iteration arguments) and a terminator
 * with the op whose results it yields: Triton's multi-root slice. */
static void connect(Coalesce *c) {
  c->parent = arena_alloc(c->comp->a, (size_t)c->all.n * sizeof *c->parent);
  for (int i = 0; i < c->all.n; i++) c->parent[i] = i;
  for (int i = 0; i < c->all.n; i++) {
    MlirOperation op = {c->all.v[i]};
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); k++) {
      MlirValue v = mlirOperationGetOperand(op, k);
      if (mlirValueIsAOpResult(v)) join(c, op, mlirOpResultGetOwner(v));
      else {
        /* a kernel argument links nothing: each use is a root of its own */
        MlirOperation owner = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
        if (!op_is(owner, "func.func")) join(c, op, owner);
      }
    }
    if (mlirOperationGetNumRegions(op) == 0 && mlirOperationGetNumResults(op) == 0 && op_is(op, "scf.yield"))
      join(c, op, mlirOperationGetParentOperation(op));
  }
}

static void collect(MlirOperation op, void *user) {
  Coalesce *c = user;
  TileOp t = tile_op_of(op);
  if (t != TOP_load && t != TOP_store && t != TOP_atomic_rmw && t != TOP_atomic_cas) return;
  if (!mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetOperand(op, 0)))) return;
  vec_push(c->comp->a, &c->ops, op.ptr);
  map_put(c->comp->a, &c->mem, op.ptr, (void *)(intptr_t)c->ops.n);
}

/* A pointer tensor's dimensions, fastest first: by contiguity, ties to
 * the later dimension. */
static void access_order(Coalesce *c, MlirValue ptr, int order[MAX_RANK]) {
  int r = (int)mlirShapedTypeGetRank(mlirValueGetType(ptr));
  const AxisInfo *ai = axis_info_of(c->aa, ptr);
  for (int i = 0; i < r; i++) order[i] = r - 1 - i;
  if (ai)
    for (int i = 0; i < r; i++)
      for (int j = i + 1; j < r; j++)
        if (ai->contiguity[order[j]] > ai->contiguity[order[i]]) {
          int tmp = order[i];
          order[i] = order[j];
          order[j] = tmp;
        }
}

/* How many elements along `fast` one access to ptr may move: as many as
 * are contiguous and aligned, at most 16 bytes. */
static int64_t own_width(Coalesce *c, MlirValue ptr, int fast) {
  MlirType t = mlirValueGetType(ptr);
  int64_t bytes = pointee_bytes(c->comp, t), per_thread = 1;
  const AxisInfo *ai = axis_info_of(c->aa, ptr);
  if (ai) {
    int64_t contig = ai->contiguity[fast];
    int64_t align = ai->divisibility[fast] / bytes; /* elements the first address is aligned to */
    if (align < 1) align = 1;
    per_thread = contig < align ? contig : align;
  }
  int64_t max_vec = 16 / bytes;
  return per_thread > max_vec ? max_vec : per_thread;
}

static bool same_shape(MlirType a, MlirType b) {
  int r = (int)mlirShapedTypeGetRank(a);
  if (r != mlirShapedTypeGetRank(b)) return false;
  for (int i = 0; i < r; i++)
    if (mlirShapedTypeGetDimSize(a, i) != mlirShapedTypeGetDimSize(b, i)) return false;
  return true;
}

/* Caps the loads that v is computed from at `width` elements: a value
 * loaded wider than the store it goes to would cross threads through shared
 * memory, which costs more than narrower loads. Walks producers, the
 * values loops and branches yield, and loops' initial values. */
static void cap_loads(Coalesce *c, MlirValue v, int64_t width, MlirType like) {
  if (map_get(&c->seen, v.ptr)) return;
  map_put(c->comp->a, &c->seen, v.ptr, (void *)1);
  MlirOperation d;
  if (mlirValueIsABlockArgument(v)) {
    d = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
    if (op_is(d, "func.func")) return;
  } else {
    d = mlirOpResultGetOwner(v);
  }
  /* a dot's operands reach the store through the dot's own layouts, not
   * element for element */
  if (tile_op_of(d) == TOP_dot) return;
  int m = tile_op_of(d) == TOP_load ? (int)(intptr_t)map_get(&c->mem, d.ptr) - 1 : -1;
  if (m >= 0) {
    MlirType pt = mlirValueGetType(mlirOperationGetOperand(d, 0));
    if (same_shape(pt, like) && width < c->cap[m]) c->cap[m] = width;
    return;
  }
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++) cap_loads(c, mlirOperationGetOperand(d, i), width, like);
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(d); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(d, r)); !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b)) {
      MlirOperation t = mlirBlockGetTerminator(b);
      for (intptr_t i = 0; !mlirOperationIsNull(t) && i < mlirOperationGetNumOperands(t); i++)
        cap_loads(c, mlirOperationGetOperand(t, i), width, like);
    }
}

static void cap_by_stores(Coalesce *c) {
  c->cap = arena_alloc(c->comp->a, sizeof(int64_t) * (size_t)(c->ops.n + 1));
  for (int i = 0; i < c->ops.n; i++) c->cap[i] = INT64_MAX;
  for (int i = 0; i < c->ops.n; i++) {
    MlirOperation op = {c->ops.v[i]};
    if (tile_op_of(op) == TOP_load || mlirOperationGetNumOperands(op) < 2) continue;
    MlirValue ptr = mlirOperationGetOperand(op, 0);
    int order[MAX_RANK];
    access_order(c, ptr, order);
    c->seen = (PtrMap){0};
    cap_loads(c, mlirOperationGetOperand(op, 1), own_width(c, ptr, order[0]), mlirValueGetType(ptr));
  }
}

/* The coalesced layout for the pointer tensor of memory op i: its group's
 * widest vector, no more than a thread's share of the tile, nor, for a
 * load, than the stores its value reaches allow. */
static Layout coalesced(Coalesce *c, int i) {
  Compilation *comp = c->comp;
  MlirOperation op = {c->ops.v[i]};
  MlirValue ptr = mlirOperationGetOperand(op, 0);
  MlirType t = mlirValueGetType(ptr);
  int r = (int)mlirShapedTypeGetRank(t);
  int64_t shape[MAX_RANK], numel = 1;
  for (int d = 0; d < r; d++) numel *= shape[d] = mlirShapedTypeGetDimSize(t, d);
  int order[MAX_RANK], other[MAX_RANK];
  access_order(c, ptr, order);
  int fast = order[0];
  int64_t own = own_width(c, ptr, fast), per_thread = own;
  int root = find(c, (int)(intptr_t)map_get(&c->index, op.ptr) - 1);
  for (int j = 0; j < c->ops.n; j++) {
    MlirOperation o = {c->ops.v[j]};
    MlirValue p = mlirOperationGetOperand(o, 0);
    if (j == i || find(c, (int)(intptr_t)map_get(&c->index, o.ptr) - 1) != root ||
        !same_shape(mlirValueGetType(p), t))
      continue;
    access_order(c, p, other);
    if (memcmp(order, other, (size_t)r * sizeof *order)) continue;
    int64_t w = own_width(c, p, fast);
    if (w > per_thread) per_thread = w;
  }
  if (per_thread > c->cap[i]) per_thread = c->cap[i];
  int64_t threads = (int64_t)comp->num_warps * comp->threads_per_warp;
  int64_t fair = numel / threads; /* no thread should own more than its share */
  if (fair < 1) fair = 1;
  if (per_thread > fair) per_thread = fair;
  /* a store's run is one instruction: gaps in a warp's writes cost more
   * than a narrower load's in cache */
  if (tile_op_of(op) != TOP_load && per_thread > own) per_thread = own;
  if (per_thread > shape[fast]) per_thread = shape[fast];
  int64_t p2 = 1;
  while (p2 * 2 <= per_thread) p2 *= 2;
  int spt[MAX_RANK];
  for (int d = 0; d < r; d++) spt[d] = d == fast ? (int)p2 : 1;
  return layout_blocked(comp, r, shape, spt, order);
}

static void coalesce_op(Coalesce *c, MlirOperation op, const Layout *want) {
  Compilation *comp = c->comp;
  MlirValue ptr = mlirOperationGetOperand(op, 0);
  Layout have;
  if (layout_of_type(comp, mlirValueGetType(ptr), &have) && layout_equal(want, &have)) return;
  MlirAttribute wa = layout_attr(comp, want);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (!mlirTypeIsARankedTensor(mlirValueGetType(v))) continue;
    MlirType nt = with_layout(comp, mlirValueGetType(v), wa);
    MlirOperation cv = create_before(op, "tile.convert_layout", mlirOperationGetLocation(op), 1, &nt, 1, &v, 0, NULL);
    mlirOperationSetOperand(op, i, mlirOperationGetResult(cv, 0));
  }
  if (mlirOperationGetNumResults(op) == 0) return;
  MlirValue r = mlirOperationGetResult(op, 0);
  MlirType old = mlirValueGetType(r);
  mlirValueSetType(r, with_layout(comp, old, wa));
  /* users keep the old layout through a conversion after the op */
  MlirOperation next = mlirOperationGetNextInBlock(op);
  MlirOperation back = create_before(next, "tile.convert_layout", mlirOperationGetLocation(op), 1, &old, 1, &r, 0, NULL);
  mlirValueReplaceAllUsesExcept(r, mlirOperationGetResult(back, 0), 1, &back);
}

bool pass_coalesce(Compilation *comp, MlirOperation module) {
  Coalesce c = {.comp = comp, .aa = axis_analyze(comp, module)};
  walk_ops(module, collect, &c, false);
  walk_ops(module, number, &c, false);
  connect(&c);
  cap_by_stores(&c);
  /* every layout first: the groups are read from the IR before it changes */
  Layout *layouts = arena_alloc(comp->a, (size_t)(c.ops.n ? c.ops.n : 1) * sizeof *layouts);
  for (int i = 0; i < c.ops.n; i++) layouts[i] = coalesced(&c, i);
  for (int i = 0; i < c.ops.n; i++) coalesce_op(&c, (MlirOperation){c.ops.v[i]}, &layouts[i]);
  return true;
}
