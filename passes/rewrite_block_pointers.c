/*
 * rewrite_block_pointers.c — loads and stores through block pointers (and
 * tensor descriptors, which irgen makes block pointers) as loads and stores
 * through tensors of pointers, as Triton's RewriteTensorPointer does for
 * targets without TMA.
 *
 * Requires: tile IR without layouts. Guarantees: a tile.load or tile.store
 * whose block pointer comes from tile.make_block_ptr through tile.advance
 * ops (in any block that reaches the access: the chain is read, not moved)
 * with a stride of constant 1 in some dimension takes, in its place, the
 * pointers
 *
 *     base + Σ_d off_d · stride_d  +  Σ_d (arange(B_d) · stride_d broadcast)
 *
 * off_d the sum of the chain's offsets along d: one scalar address per
 * block, and per element only the block-relative part, in i32 where every
 * stride is a constant small enough, else in i64; and, for each dimension
 * of boundary_check, the mask 0 <= off_d + i < shape_d (computed on the
 * 1-D range, broadcast); `padding="nan"` gives `other` NaN, any other
 * masked load zeros. Then coalescing sees the contiguity of the fastest
 * dimension (a constant stride of 1), axis analysis the alignment, and the
 * pipeliner a load it can copy by cp.async, as for any pointer tensor. A
 * dimension of one (a batch index) adds only to the scalar address, its
 * check a scalar splat.
 * A block pointer a loop carries or a branch yields keeps its access (the
 * lowering reads it whole, codegen/lower_memory.c). The chain's ops that
 * no access uses any more are removed.
 */
#include "passes.h"

#include <math.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

static MlirStringRef sref(const char *s) { return mlirStringRefCreateFromCString(s); }

typedef struct Rw {
  Compilation *comp;
  MlirContext ctx;
  MlirOperation at; /* new ops go before it */
  MlirLocation loc;
  PtrVec accesses;
} Rw;

static MlirValue emit(Rw *w, const char *name, MlirType rt, int nops, const MlirValue *ops, int nattrs,
                      const MlirNamedAttribute *attrs) {
  return mlirOperationGetResult(create_before(w->at, name, w->loc, 1, &rt, nops, ops, nattrs, attrs), 0);
}

static MlirValue bin(Rw *w, const char *name, MlirValue a, MlirValue b) {
  MlirValue ops[2] = {a, b};
  return emit(w, name, mlirValueGetType(a), 2, ops, 0, NULL);
}

static MlirNamedAttribute named(Rw *w, const char *name, MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(w->ctx, sref(name)), a);
}

static MlirValue cst(Rw *w, MlirType t, int64_t v) {
  MlirAttribute a = mlirTypeIsARankedTensor(t) ? mlirDenseElementsAttrSplatGet(t, mlirIntegerAttrGet(mlirShapedTypeGetElementType(t), v))
                                               : mlirIntegerAttrGet(t, v);
  MlirNamedAttribute na = named(w, "value", a);
  return emit(w, "arith.constant", t, 0, NULL, 1, &na);
}

static MlirType tensor_of(MlirType elem, int r, const int64_t *shape) {
  return mlirRankedTensorTypeGet(r, shape, elem, mlirAttributeGetNull());
}

static MlirValue cast_int(Rw *w, MlirValue v, MlirType to) {
  MlirType from = mlirValueGetType(v);
  MlirType fe = mlirTypeIsARankedTensor(from) ? mlirShapedTypeGetElementType(from) : from;
  MlirType te = mlirTypeIsARankedTensor(to) ? mlirShapedTypeGetElementType(to) : to;
  unsigned a = mlirIntegerTypeGetWidth(fe), b = mlirIntegerTypeGetWidth(te);
  if (a == b) return v;
  return emit(w, a < b ? "arith.extsi" : "arith.trunci", to, 1, &v, 0, NULL);
}

/* The 1-D vector along dim d of a rank-r block as a rank-r tensor, 1
 * elsewhere: expand_dims at each other axis, in increasing order (axis a
 * then sits at position a). */
static MlirValue along(Rw *w, MlirValue v, int d, int r, const int64_t *shape) {
  MlirType et = mlirShapedTypeGetElementType(mlirValueGetType(v));
  int64_t cur[MAX_RANK];
  int n = 1;
  cur[0] = shape[d];
  for (int a = 0; a < r; a++) {
    if (a == d) continue;
    memmove(cur + a + 1, cur + a, sizeof(int64_t) * (size_t)(n - a));
    cur[a] = 1;
    n++;
    MlirNamedAttribute ax = named(w, "axis", mlirIntegerAttrGet(mlirIntegerTypeGet(w->ctx, 32), a));
    v = emit(w, "tile.expand_dims", tensor_of(et, n, cur), 1, &v, 1, &ax);
  }
  return v;
}

static MlirValue broadcast_to(Rw *w, MlirValue v, int r, const int64_t *shape) {
  MlirType t = mlirValueGetType(v);
  for (int d = 0; d < r; d++)
    if (mlirShapedTypeGetDimSize(t, d) != shape[d])
      return emit(w, "tile.broadcast", tensor_of(mlirShapedTypeGetElementType(t), r, shape), 1, &v, 0, NULL);
  return v;
}

/* The chain from make_block_ptr to ptr: false when it is not one (a loop's
 * or a branch's block pointer). */
bool block_ptr_chain(MlirValue ptr, MlirOperation *make, MlirOperation *adv, int *nadv) {
  *nadv = 0;
  for (;;) {
    MlirOperation d = value_owner(ptr);
    if (mlirOperationIsNull(d)) return false;
    TileOp t = tile_op_of(d);
    if (t == TOP_make_block_ptr) {
      *make = d;
      return true;
    }
    if (t != TOP_advance || *nadv == 64) return false;
    adv[(*nadv)++] = d;
    ptr = mlirOperationGetOperand(d, 0);
  }
}

/* A stride that is a constant whose block offsets fit in i32 comfortably. */
static bool small_stride(MlirValue s, int64_t block) {
  int64_t c;
  return splat_int_constant(s, &c) && c > -(1 << 20) && c < (1 << 20) && block <= (1 << 10);
}

static void rewrite(Rw *w, MlirOperation op) {
  bool is_load = tile_op_of(op) == TOP_load;
  MlirValue bp = mlirOperationGetOperand(op, 0);
  MlirOperation make, adv[64];
  int nadv;
  if (!block_ptr_chain(bp, &make, adv, &nadv)) return;
  MlirType block = ir_pointee(w->comp->ic, mlirValueGetType(bp));
  if (mlirTypeIsNull(block) || !mlirTypeIsARankedTensor(block)) return;
  int r = (int)mlirShapedTypeGetRank(block);
  if (mlirOperationGetNumOperands(make) != 1 + 3 * (intptr_t)r) return;
  int64_t shape[MAX_RANK];
  for (int d = 0; d < r; d++) shape[d] = mlirShapedTypeGetDimSize(block, d);
  /* only where a dimension is contiguous (a stride of constant 1): there
   * the pointers' runs vectorize and cp.async copies them; with run-time
   * strides everywhere the lowering's own per-element addressing is as
   * good and lighter (no tensor of 64-bit offsets) */
  bool contiguous = false;
  for (int d = 0; d < r; d++) {
    int64_t c;
    contiguous |= splat_int_constant(mlirOperationGetOperand(make, 1 + r + d), &c) && c == 1;
  }
  if (!contiguous) return;
  w->at = op;
  w->loc = mlirOperationGetLocation(op);
  MlirType i1 = mlirIntegerTypeGet(w->ctx, 1), i32 = mlirIntegerTypeGet(w->ctx, 32), i64 = mlirIntegerTypeGet(w->ctx, 64);
  MlirValue base = mlirOperationGetOperand(make, 0);
  bool wide = false;
  for (int d = 0; d < r; d++) wide |= !small_stride(mlirOperationGetOperand(make, 1 + r + d), shape[d]);
  MlirType it = wide ? i64 : i32;
  bool check[MAX_RANK] = {0};
  MlirAttribute bc = mlirOperationGetAttributeByName(op, sref("boundary_check"));
  for (intptr_t i = 0; !mlirAttributeIsNull(bc) && i < mlirDenseArrayGetNumElements(bc); i++) {
    int d = mlirDenseI32ArrayGetElement(bc, i);
    if (d >= 0 && d < r) check[d] = true;
  }
  MlirValue scalar = cst(w, i64, 0), elems = {NULL}, mask = {NULL};
  for (int d = 0; d < r; d++) {
    /* the block's offset along d: make_block_ptr's and every advance's */
    MlirValue off = mlirOperationGetOperand(make, 1 + 2 * r + d);
    for (int i = nadv - 1; i >= 0; i--) off = bin(w, "arith.addi", off, cast_int(w, mlirOperationGetOperand(adv[i], 1 + d), i32));
    MlirValue stride = cast_int(w, mlirOperationGetOperand(make, 1 + r + d), i64);
    scalar = bin(w, "arith.addi", scalar, bin(w, "arith.muli", cast_int(w, off, i64), stride));
    if (shape[d] == 1) {
      /* a dimension of one: no per-element part, and its check one scalar,
       * splat (a broadcast of a [1, 1, ..] range would take a layout that
       * piles the threads on this dimension) */
      if (check[d]) {
        MlirValue at = cast_int(w, off, i64), lim = cast_int(w, mlirOperationGetOperand(make, 1 + d), i64);
        MlirNamedAttribute slt = named(w, "predicate", mlirIntegerAttrGet(i64, 2)), sge = named(w, "predicate", mlirIntegerAttrGet(i64, 5));
        MlirValue in = bin(w, "arith.andi", emit(w, "arith.cmpi", i1, 2, (MlirValue[]){at, lim}, 1, &slt),
                           emit(w, "arith.cmpi", i1, 2, (MlirValue[]){at, cst(w, i64, 0)}, 1, &sge));
        in = emit(w, "tile.splat", tensor_of(i1, r, shape), 1, &in, 0, NULL);
        mask = mlirValueIsNull(mask) ? in : bin(w, "arith.andi", mask, in);
      }
      continue;
    }
    MlirNamedAttribute range[2] = {named(w, "start", mlirIntegerAttrGet(i32, 0)), named(w, "end", mlirIntegerAttrGet(i32, shape[d]))};
    MlirValue idx = emit(w, "tile.make_range", tensor_of(i32, 1, &shape[d]), 0, NULL, 2, range);
    MlirType vt = tensor_of(it, 1, &shape[d]);
    int64_t sc;
    MlirValue st = splat_int_constant(stride, &sc) ? cst(w, vt, sc) : emit(w, "tile.splat", vt, 1, (MlirValue[]){cast_int(w, stride, it)}, 0, NULL);
    MlirValue part = bin(w, "arith.muli", cast_int(w, idx, vt), st);
    part = broadcast_to(w, along(w, part, d, r, shape), r, shape);
    elems = mlirValueIsNull(elems) ? part : bin(w, "arith.addi", elems, part);
    if (check[d]) {
      /* 0 <= off + i < shape, on the 1-D range, in i64 as the shape is */
      MlirType v64 = tensor_of(i64, 1, &shape[d]);
      MlirValue at = bin(w, "arith.addi", cast_int(w, idx, v64), emit(w, "tile.splat", v64, 1, (MlirValue[]){cast_int(w, off, i64)}, 0, NULL));
      MlirValue lim = emit(w, "tile.splat", v64, 1, (MlirValue[]){cast_int(w, mlirOperationGetOperand(make, 1 + d), i64)}, 0, NULL);
      MlirNamedAttribute slt = named(w, "predicate", mlirIntegerAttrGet(i64, 2)), sge = named(w, "predicate", mlirIntegerAttrGet(i64, 5));
      MlirValue lt = emit(w, "arith.cmpi", tensor_of(i1, 1, &shape[d]), 2, (MlirValue[]){at, lim}, 1, &slt);
      MlirValue ge = emit(w, "arith.cmpi", tensor_of(i1, 1, &shape[d]), 2, (MlirValue[]){at, cst(w, v64, 0)}, 1, &sge);
      MlirValue in = broadcast_to(w, along(w, bin(w, "arith.andi", lt, ge), d, r, shape), r, shape);
      mask = mlirValueIsNull(mask) ? in : bin(w, "arith.andi", mask, in);
    }
  }
  if (mlirValueIsNull(elems)) elems = cst(w, tensor_of(it, r, shape), 0); /* every dimension of one */
  MlirType ptr_t = mlirValueGetType(base);
  MlirValue start = emit(w, "tile.addptr", ptr_t, 2, (MlirValue[]){base, scalar}, 0, NULL);
  MlirValue ptrs = emit(w, "tile.addptr", tensor_of(ptr_t, r, shape), 2,
                        (MlirValue[]){emit(w, "tile.splat", tensor_of(ptr_t, r, shape), 1, &start, 0, NULL), elems}, 0, NULL);
  /* the access's other attributes (cache, eviction, volatile) stay */
  MlirNamedAttribute attrs[16];
  int n = op_attrs_except(op, (const char *const[]){"boundary_check", "padding", "operandSegmentSizes", NULL}, attrs, 15);
  MlirValue ops[3];
  int nops = 0;
  ops[nops++] = ptrs;
  if (is_load) {
    MlirType rt = mlirValueGetType(mlirOperationGetResult(op, 0)), et = mlirShapedTypeGetElementType(rt);
    if (!mlirValueIsNull(mask)) {
      ops[nops++] = mask;
      MlirAttribute pad = mlirOperationGetAttributeByName(op, sref("padding"));
      bool nan = !mlirAttributeIsNull(pad) && mlirStringAttrGetValue(pad).length == 3 && mlirTypeIsAFloat(et);
      MlirAttribute z = mlirTypeIsAFloat(et) ? mlirFloatAttrDoubleGet(w->ctx, et, nan ? NAN : 0.0) : mlirIntegerAttrGet(et, 0);
      MlirNamedAttribute v = named(w, "value", mlirDenseElementsAttrSplatGet(rt, z));
      ops[nops++] = emit(w, "arith.constant", rt, 0, NULL, 1, &v);
    }
    attrs[n++] = named(w, "operandSegmentSizes", mlirDenseI32ArrayGet(w->ctx, 3, (int32_t[]){1, nops > 1, nops > 2}));
    MlirOperation nl = create_before(op, "tile.load", w->loc, 1, &rt, nops, ops, n, attrs);
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), mlirOperationGetResult(nl, 0));
  } else {
    ops[nops++] = mlirOperationGetOperand(op, 1);
    if (!mlirValueIsNull(mask)) ops[nops++] = mask;
    create_before(op, "tile.store", w->loc, 0, NULL, nops, ops, n, attrs);
  }
  mlirOperationDestroy(op);
  block_ptr_chain_erase(make, adv, nadv);
}

void block_ptr_chain_erase(MlirOperation make, const MlirOperation *adv, int nadv) {
  /* the chain, where nothing else reads it */
  for (int i = 0; i < nadv; i++) {
    if (!op_results_unused(adv[i])) break;
    op_erase(adv[i]);
  }
  if (op_results_unused(make)) op_erase(make);
}

typedef struct Accesses {
  Compilation *comp;
  PtrVec *v;
} Accesses;

static void collect(MlirOperation op, void *user) {
  Accesses *a = user;
  TileOp t = tile_op_of(op);
  if ((t == TOP_load || t == TOP_store) && !mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetOperand(op, 0))))
    vec_push(a->comp->a, a->v, op.ptr);
}

void block_ptr_accesses(Compilation *comp, MlirOperation module, PtrVec *out) {
  Accesses a = {comp, out};
  walk_ops(module, collect, &a, false);
}

bool pass_rewrite_block_pointers(Compilation *comp, MlirOperation module) {
  Rw w = {.comp = comp, .ctx = mlirOperationGetContext(module)};
  block_ptr_accesses(comp, module, &w.accesses);
  for (int i = 0; i < w.accesses.n; i++) rewrite(&w, (MlirOperation){w.accesses.v[i]});
  return true;
}
