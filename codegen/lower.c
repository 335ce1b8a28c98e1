/*
 * lower.c — tile IR with layouts to the LLVM and NVVM dialects.
 *
 * A direct emitter (the C API has no dialect conversion): it walks the
 * kernel in order and keeps, for each tile value, the values one thread
 * holds — one per element its layout gives it. A blocked layout's element
 * k of a thread sits at a multi-index computed from the lane and warp ids;
 * elementwise ops apply per element, splats replicate, broadcasts and
 * expand_dims re-index. arith ops are emitted per element as scalar arith
 * ops and lowered by MLIR's arith-to-llvm afterwards.
 *
 * Predicated memory accesses are calls to `tilec.ld.<b>` / `tilec.st.<b>`
 * (b = 8, 16, 32, 64 bits); cg_expand_for_gpu turns them into PTX.
 *
 * Supported so far: program ids, ranges, splats, broadcasts, expand_dims,
 * pointer arithmetic, loads and stores (masked), scalar and elementwise
 * arith, layout conversions (through shared memory). Anything else is
 * reported at its source position.
 */
#include "codegen.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/LLVM.h>

typedef struct Vals {
  int n;
  MlirValue *v;
} Vals;

typedef struct Lower {
  PassCtx *pc;
  MlirContext ctx;
  MlirModule out;
  MlirBlock block;    /* where ops go */
  MlirOperation term; /* ops are inserted before it */
  MlirValue lane, warp;
  PtrVec keys, vals;  /* tile value -> Vals* */
  PtrVec declared;    /* names of tilec.* functions declared */
  AxisAnalysis *aa;
  int nbuffers;       /* shared-memory buffers made so far */
  int nstrings;       /* constant strings made so far */
  MlirBlock entry;    /* the kernel's entry block and its first op: allocas go there */
  MlirOperation entry_first;
  bool in_helper;     /* emitting a helper function's body, not the kernel's */
  int nconsts;        /* i32 constants made once, at the top of the entry block */
  int64_t const_vals[256];
  MlirValue consts[256];
  struct BinMemo *memo; /* integer ops already emitted: (op, a, b) -> result */
  MlirLocation loc;     /* the tile op being lowered: what it becomes carries its source position */
  bool failed;
} Lower;

/* A binary integer op already emitted in `block`. */
typedef struct BinMemo {
  const char *name;
  const void *a, *b;
  MlirBlock block;
  MlirValue r;
} BinMemo;

#define MEMO_SLOTS 4096

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static void fail(Lower *L, MlirOperation op, const char *msg) {
  char buf[300];
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(buf, sizeof buf, "'%.*s' %s", (int)n.length, n.data, msg);
  mlirEmitError(mlirOperationGetLocation(op), buf);
  L->failed = true;
}

static Vals *get(Lower *L, MlirValue v) {
  for (int i = L->keys.n - 1; i >= 0; i--)
    if (L->keys.v[i] == v.ptr) return L->vals.v[i];
  return NULL;
}

static void put(Lower *L, MlirValue v, Vals *x) {
  vec_push(L->pc->a, &L->keys, (void *)v.ptr);
  vec_push(L->pc->a, &L->vals, x);
}

static Vals *new_vals(Lower *L, int n) {
  Vals *x = arena_alloc(L->pc->a, sizeof *x);
  x->n = n;
  x->v = arena_alloc(L->pc->a, sizeof(MlirValue) * (size_t)(n + 1));
  return x;
}

/* Puts op where the lowering is: before the block's terminator, or at its end. */
static void insert_op(Lower *L, MlirOperation op) {
  if (mlirOperationIsNull(L->term)) mlirBlockAppendOwnedOperation(L->block, op);
  else mlirBlockInsertOwnedOperationBefore(L->block, L->term, op);
}

static MlirOperation emit(Lower *L, const char *name, int nres, const MlirType *res, int nops, const MlirValue *ops,
                          int nattrs, const MlirNamedAttribute *attrs) {
  MlirLocation loc = mlirLocationIsNull(L->loc) ? mlirLocationUnknownGet(L->ctx) : L->loc;
  MlirOperationState st = mlirOperationStateGet(str(name), loc);
  if (nres) mlirOperationStateAddResults(&st, nres, res);
  if (nops) mlirOperationStateAddOperands(&st, nops, ops);
  if (nattrs) mlirOperationStateAddAttributes(&st, nattrs, attrs);
  MlirOperation op = mlirOperationCreate(&st);
  if (mlirOperationIsNull(op)) fe_internal_error(__FILE__, __LINE__, name);
  insert_op(L, op);
  return op;
}

static MlirValue emit1(Lower *L, const char *name, MlirType t, int nops, const MlirValue *ops, int nattrs,
                       const MlirNamedAttribute *attrs) {
  return mlirOperationGetResult(emit(L, name, 1, &t, nops, ops, nattrs, attrs), 0);
}

static MlirNamedAttribute named(Lower *L, const char *name, MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(L->ctx, str(name)), a);
}

static MlirType i32(Lower *L) { return mlirIntegerTypeGet(L->ctx, 32); }

/* An i32 constant. In the kernel each value is made once, at the top of
 * the entry block (which dominates everything): fewer ops for every later
 * stage to convert, translate and optimize. */
static MlirValue const_i32(Lower *L, int64_t v) {
  MlirNamedAttribute a = named(L, "value", mlirIntegerAttrGet(i32(L), v));
  bool memo = !L->in_helper && !mlirOperationIsNull(L->entry_first);
  if (memo)
    for (int i = 0; i < L->nconsts; i++)
      if (L->const_vals[i] == v) return L->consts[i];
  if (!memo || L->nconsts == 256) return emit1(L, "arith.constant", i32(L), 0, NULL, 1, &a);
  MlirType t = i32(L);
  MlirOperationState st = mlirOperationStateGet(str("arith.constant"), mlirLocationUnknownGet(L->ctx));
  mlirOperationStateAddResults(&st, 1, &t);
  mlirOperationStateAddAttributes(&st, 1, &a);
  MlirOperation op = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(L->entry, L->entry_first, op);
  L->const_vals[L->nconsts] = v;
  return L->consts[L->nconsts++] = mlirOperationGetResult(op, 0);
}

static bool const_value(MlirValue v, int64_t *out) {
  if (!mlirValueIsAOpResult(v)) return false;
  MlirOperation d = mlirOpResultGetOwner(v);
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(d));
  if (n.length != 14 || memcmp(n.data, "arith.constant", 14)) return false;
  MlirAttribute a = mlirOperationGetAttributeByName(d, str("value"));
  if (!mlirAttributeIsAInteger(a)) return false;
  *out = mlirIntegerAttrGetValueInt(a);
  return true;
}

/* A binary op. The index arithmetic of every element repeats the thread's
 * part, so integer ops are simplified (x+0, x*1, x/1, x%1) and emitted once
 * per block they dominate: later stages see a fraction of the ops. */
static MlirValue bin(Lower *L, const char *name, MlirValue a, MlirValue b) {
  MlirValue ops[2] = {a, b};
  bool integer = !strncmp(name, "arith.", 6) && mlirTypeIsAInteger(mlirValueGetType(a));
  if (!integer) return emit1(L, name, mlirValueGetType(a), 2, ops, 0, NULL);
  int64_t c;
  if (const_value(b, &c)) {
    if (c == 0 && (!strcmp(name, "arith.addi") || !strcmp(name, "arith.subi") || !strcmp(name, "arith.ori") ||
                   !strcmp(name, "arith.xori") || !strcmp(name, "arith.shli") || !strcmp(name, "arith.shrui")))
      return a;
    if (c == 1 && (!strcmp(name, "arith.muli") || !strcmp(name, "arith.divui"))) return a;
    if (c == 1 && !strcmp(name, "arith.remui")) return const_i32(L, 0);
  }
  if (L->in_helper || !L->memo) return emit1(L, name, mlirValueGetType(a), 2, ops, 0, NULL);
  uint64_t h = ((uintptr_t)a.ptr * 31 + (uintptr_t)b.ptr) * 0x9E3779B97F4A7C15ull ^ (uintptr_t)name;
  for (uint64_t i = h % MEMO_SLOTS, n = 0; n < MEMO_SLOTS; i = (i + 1) % MEMO_SLOTS, n++) {
    BinMemo *m = &L->memo[i];
    if (!m->name) {
      MlirValue r = emit1(L, name, mlirValueGetType(a), 2, ops, 0, NULL);
      *m = (BinMemo){name, a.ptr, b.ptr, L->block, r};
      return r;
    }
    /* a value of the entry block, or of this block, dominates what follows */
    if (!strcmp(m->name, name) && m->a == a.ptr && m->b == b.ptr &&
        (mlirBlockEqual(m->block, L->block) || mlirBlockEqual(m->block, L->entry)))
      return m->r;
  }
  return emit1(L, name, mlirValueGetType(a), 2, ops, 0, NULL);
}

/* ---- types ---------------------------------------------------------------------- */

static bool is_tile_ptr(PassCtx *pc, MlirType t) {
  StrBuf sb = {0};
  ir_type_text(&sb, t);
  bool r = sb.s && !strncmp(sb.s, "!tile.ptr<", 10);
  sb_free(&sb);
  (void)pc;
  return r;
}

/* The pointee of !tile.ptr<T>, as an MLIR type. */
static MlirType pointee(PassCtx *pc, MlirType t) {
  StrBuf sb = {0};
  ir_type_text(&sb, t);
  char buf[64];
  size_t n = sb.len > 11 ? sb.len - 11 : 0;
  if (n >= sizeof buf) n = sizeof buf - 1;
  memcpy(buf, sb.s + 10, n);
  buf[n] = 0;
  sb_free(&sb);
  return ir_parse_type(pc->ic, buf);
}

/* The per-thread scalar type of a tile type (pointers become !llvm.ptr<1>). */
static int f8_format(MlirType t);

static MlirType scalar_of(Lower *L, MlirType t) {
  MlirType e = mlirTypeIsARankedTensor(t) ? mlirShapedTypeGetElementType(t) : t;
  if (f8_format(e) >= 0) return mlirIntegerTypeGet(L->ctx, 8); /* fp8 values are their bits */
  return is_tile_ptr(L->pc, e) ? mlirLLVMPointerTypeGet(L->ctx, 1) : e;
}

static int bits_of(MlirType t) {
  if (mlirTypeIsAInteger(t)) return (int)mlirIntegerTypeGetWidth(t);
  if (mlirTypeIsAF16(t) || mlirTypeIsABF16(t)) return 16;
  if (mlirTypeIsAF32(t)) return 32;
  if (mlirTypeIsAF64(t)) return 64;
  return 8;
}

/* ---- layouts: which elements a thread holds, and where --------------------------------- */

typedef struct Elems {
  int rank, n;
  int64_t shape[MAX_RANK];
  int per[MAX_RANK];  /* elements per thread along each dim */
  Layout l;           /* the blocked layout (the parent for slices) */
  int sliced;         /* the removed dim of a slice layout, else -1 */
} Elems;

static bool elems_of(Lower *L, MlirType t, Elems *e) {
  memset(e, 0, sizeof *e);
  e->sliced = -1;
  Layout l;
  if (!layout_of_type(L->pc, t, &l)) return false;
  int r = (int)mlirShapedTypeGetRank(t);
  int64_t shape[MAX_RANK];
  for (int i = 0; i < r; i++) shape[i] = mlirShapedTypeGetDimSize(t, i);
  if (l.kind == L_SLICE) {
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
  } else {
    return false;
  }
  e->n = 1;
  for (int d = 0; d < e->rank; d++) {
    int64_t tile = (int64_t)e->l.spt[d] * e->l.tpw[d] * e->l.wpc[d];
    int64_t reps = e->shape[d] > tile ? e->shape[d] / tile : 1;
    e->per[d] = d == e->sliced ? 1 : (int)(e->l.spt[d] * reps);
    e->n *= e->per[d];
  }
  return true;
}

/* The per-dim counters of element k: the fastest dimension varies fastest. */
static void counters(const Elems *e, int k, int *c) {
  for (int i = 0; i < e->rank; i++) {
    int d = e->l.order[i];
    c[d] = k % e->per[d];
    k /= e->per[d];
  }
}

static int element_of(const Elems *e, const int *c) {
  int k = 0;
  for (int i = e->rank - 1; i >= 0; i--) {
    int d = e->l.order[i];
    k = k * e->per[d] + c[d];
  }
  return k;
}

/* The index along dim d of element k: rep * footprint + (warp * tpw + lane) * spt + j. */
static MlirValue index_raw(Lower *L, const Elems *e, int k, int dim, bool *wraps);

static MlirValue index_of(Lower *L, const Elems *e, int k, int dim) {
  bool wraps;
  MlirValue idx = index_raw(L, e, k, dim, &wraps);
  /* a layout wider than the tensor wraps around: those threads replicate */
  if (wraps) idx = bin(L, "arith.remui", idx, const_i32(L, e->shape[dim]));
  return idx;
}

/* Whether this thread is the first holder of element k (false for the
 * replicas of a layout wider than the tensor): what side effects need. */
static MlirValue owns(Lower *L, const Elems *e, int k) {
  MlirType i1 = mlirIntegerTypeGet(L->ctx, 1);
  MlirNamedAttribute t = named(L, "value", mlirIntegerAttrGet(i1, 1));
  MlirValue all = emit1(L, "arith.constant", i1, 0, NULL, 1, &t);
  for (int d = 0; d < e->rank; d++) {
    if (d == e->sliced) continue;
    bool wraps;
    MlirValue raw = index_raw(L, e, k, d, &wraps);
    if (!wraps) continue;
    MlirValue ops[2] = {raw, const_i32(L, e->shape[d])};
    MlirNamedAttribute pred = named(L, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), 6)); /* ult */
    all = bin(L, "arith.andi", all, emit1(L, "arith.cmpi", i1, 2, ops, 1, &pred));
  }
  return all;
}

static MlirValue index_raw(Lower *L, const Elems *e, int k, int dim, bool *wraps) {
  int c[MAX_RANK];
  counters(e, k, c);
  const Layout *l = &e->l;
  *wraps = false;
  if (dim == e->sliced) return const_i32(L, 0);
  /* lane and warp coordinates along dim, from the order */
  int lane_div = 1, warp_div = 1;
  for (int i = 0; i < l->rank && l->order[i] != dim; i++) {
    lane_div *= l->tpw[l->order[i]];
    warp_div *= l->wpc[l->order[i]];
  }
  MlirValue lane = bin(L, "arith.remui", bin(L, "arith.divui", L->lane, const_i32(L, lane_div)), const_i32(L, l->tpw[dim]));
  MlirValue warp = bin(L, "arith.remui", bin(L, "arith.divui", L->warp, const_i32(L, warp_div)), const_i32(L, l->wpc[dim]));
  int spt = l->spt[dim];
  int64_t footprint = (int64_t)spt * l->tpw[dim] * l->wpc[dim];
  int rep = c[dim] / spt, j = c[dim] % spt;
  MlirValue thread = bin(L, "arith.addi", bin(L, "arith.muli", warp, const_i32(L, l->tpw[dim])), lane);
  MlirValue idx = bin(L, "arith.addi", bin(L, "arith.muli", thread, const_i32(L, spt)),
                      const_i32(L, (int64_t)rep * footprint + j));
  *wraps = footprint > e->shape[dim];
  return idx;
}

/* ---- ops ----------------------------------------------------------------------------- */

/* The rank of the block a block pointer type points to; 0 for others. */
static int block_ptr_rank(Lower *L, MlirType t) {
  if (mlirTypeIsARankedTensor(t) || !is_tile_ptr(L->pc, t)) return 0;
  MlirType b = pointee(L->pc, t);
  return mlirTypeIsARankedTensor(b) ? (int)mlirShapedTypeGetRank(b) : 0;
}

/* How many values a thread holds for a value of type t: the elements its
 * layout gives it; a block pointer is its base, shape, strides, offsets. */
static int count_of(Lower *L, MlirType t) {
  int br = block_ptr_rank(L, t);
  if (br) return 1 + 3 * br;
  if (!mlirTypeIsARankedTensor(t)) return 1;
  Elems e;
  return elems_of(L, t, &e) ? e.n : -1;
}

/* Declares `name` (a tilec.* function) with the given signature once. */
static void declare(Lower *L, const char *name, MlirType ret, int nargs, const MlirType *args) {
  for (int i = 0; i < L->declared.n; i++)
    if (!strcmp(L->declared.v[i], name)) return;
  vec_push(L->pc->a, &L->declared, arena_strndup(L->pc->a, name, strlen(name)));
  MlirNamedAttribute attrs[2] = {
      named(L, "sym_name", mlirStringAttrGet(L->ctx, str(name))),
      named(L, "function_type", mlirTypeAttrGet(mlirLLVMFunctionTypeGet(ret, nargs, args, false))),
  };
  MlirOperationState st = mlirOperationStateGet(str("llvm.func"), mlirLocationUnknownGet(L->ctx));
  mlirOperationStateAddAttributes(&st, 2, attrs);
  MlirRegion r = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&st, 1, &r);
  MlirOperation f = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperation(mlirModuleGetBody(L->out), 0, f);
}

static MlirValue call(Lower *L, const char *name, MlirType ret, int n, const MlirValue *args) {
  MlirType types[8];
  if (n > 8) fe_internal_error(__FILE__, __LINE__, "too many arguments");
  for (int i = 0; i < n; i++) types[i] = mlirValueGetType(args[i]);
  bool is_void = mlirTypeIsNull(ret);
  declare(L, name, is_void ? mlirLLVMVoidTypeGet(L->ctx) : ret, n, types);
  int32_t seg[2] = {n, 0};
  MlirNamedAttribute attrs[3] = {
      named(L, "callee", mlirFlatSymbolRefAttrGet(L->ctx, str(name))),
      named(L, "operandSegmentSizes", mlirDenseI32ArrayGet(L->ctx, 2, seg)),
      named(L, "op_bundle_sizes", mlirDenseI32ArrayGet(L->ctx, 0, NULL)),
  };
  MlirOperation op = emit(L, "llvm.call", is_void ? 0 : 1, &ret, n, args, 3, attrs);
  return is_void ? (MlirValue){NULL} : mlirOperationGetResult(op, 0);
}

/* A value as the integer of its width (for the predicated access functions). */
static MlirValue as_bits(Lower *L, MlirValue v) {
  MlirType t = mlirValueGetType(v);
  if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 1) /* a boolean is a byte in memory */
    return emit1(L, "arith.extui", mlirIntegerTypeGet(L->ctx, 8), 1, &v, 0, NULL);
  if (mlirTypeIsAInteger(t)) return v;
  return emit1(L, "arith.bitcast", mlirIntegerTypeGet(L->ctx, (unsigned)bits_of(t)), 1, &v, 0, NULL);
}

static MlirValue from_bits(Lower *L, MlirValue v, MlirType t) {
  if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 1) { /* any nonzero byte is true */
    MlirValue ops[2] = {v, mlirOperationGetResult(emit(L, "arith.constant", 1, (MlirType[]){mlirValueGetType(v)}, 0, NULL, 1,
                                                        (MlirNamedAttribute[]){named(L, "value", mlirIntegerAttrGet(mlirValueGetType(v), 0))}), 0)};
    MlirNamedAttribute ne = named(L, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), 1));
    return emit1(L, "arith.cmpi", t, 2, ops, 1, &ne);
  }
  if (mlirTypeIsAInteger(t)) return v;
  return emit1(L, "arith.bitcast", t, 1, &v, 0, NULL);
}

/* How many consecutive elements one access can move: the layout's run
 * along its fastest dimension (coalesce made it as wide as alignment and
 * contiguity allow), at most 128 bits, when the mask is constant over it. */
static int vector_width(Lower *L, MlirValue ptr, MlirValue mask, int bits) {
  Elems e;
  if (!mlirTypeIsARankedTensor(mlirValueGetType(ptr)) || !elems_of(L, mlirValueGetType(ptr), &e) || e.sliced >= 0)
    return 1;
  int fast = e.l.order[0];
  int vec = e.l.spt[fast];
  while (vec * bits > 128) vec /= 2;
  if (vec > 4) vec = 4;
  if (vec < 2 || bits < 16) return 1;
  if (!mlirValueIsNull(mask)) {
    const AxisInfo *ai = axis_info_of(L->aa, mask);
    if (!ai || ai->constancy[fast] % vec) return 1;
  }
  return vec;
}

/* Loads and stores through a block pointer: each element's position is the
 * pointer's offsets plus its index; boundary_check dimensions mask it
 * against the shape (padding 0, or NaN for padding="nan"). */
static void lower_block_access(Lower *L, MlirOperation op, bool is_load) {
  MlirValue bp = mlirOperationGetOperand(op, 0);
  int r = block_ptr_rank(L, mlirValueGetType(bp));
  Vals *b = get(L, bp);
  MlirType tt = is_load ? mlirValueGetType(mlirOperationGetResult(op, 0)) : mlirValueGetType(mlirOperationGetOperand(op, 1));
  Elems e;
  if (!elems_of(L, tt, &e) || e.sliced >= 0) {
    fail(L, op, "of this layout is not supported yet by the GPU code generator");
    return;
  }
  bool check[MAX_RANK] = {0};
  MlirAttribute bc = mlirOperationGetAttributeByName(op, str("boundary_check"));
  for (intptr_t i = 0; !mlirAttributeIsNull(bc) && i < mlirDenseArrayGetNumElements(bc); i++) {
    int d = mlirDenseI32ArrayGetElement(bc, i);
    if (d >= 0 && d < r) check[d] = true;
  }
  MlirAttribute pad = mlirOperationGetAttributeByName(op, str("padding"));
  bool nan = !mlirAttributeIsNull(pad) && mlirStringAttrGetValue(pad).length == 3;
  MlirType et = scalar_of(L, tt), i64 = mlirIntegerTypeGet(L->ctx, 64), i1 = mlirIntegerTypeGet(L->ctx, 1);
  int bits = bits_of(et) == 1 ? 8 : bits_of(et); /* booleans are bytes in memory */
  MlirType it = mlirIntegerTypeGet(L->ctx, (unsigned)bits);
  Vals *v = is_load ? NULL : get(L, mlirOperationGetOperand(op, 1));
  Vals *out = is_load ? new_vals(L, e.n) : NULL;
  MlirNamedAttribute gep[2] = {
      named(L, "elem_type", mlirTypeAttrGet(et)),
      named(L, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 1, (int32_t[]){INT32_MIN})),
  };
  MlirNamedAttribute tv = named(L, "value", mlirIntegerAttrGet(i1, 1));
  char name[32];
  for (int k = 0; k < e.n; k++) {
    MlirValue lin = emit1(L, "arith.constant", i64, 0, NULL, 1, (MlirNamedAttribute[]){named(L, "value", mlirIntegerAttrGet(i64, 0))});
    MlirValue pred = emit1(L, "arith.constant", i1, 0, NULL, 1, &tv);
    for (int d = 0; d < r; d++) {
      MlirValue pos = bin(L, "arith.addi", b->v[1 + 2 * r + d], index_of(L, &e, k, d));
      MlirValue pos64 = emit1(L, "arith.extsi", i64, 1, &pos, 0, NULL);
      lin = bin(L, "arith.addi", lin, bin(L, "arith.muli", pos64, b->v[1 + r + d]));
      if (check[d]) {
        MlirValue lt[2] = {pos64, b->v[1 + d]}, ge[2] = {pos64, emit1(L, "arith.constant", i64, 0, NULL, 1, (MlirNamedAttribute[]){named(L, "value", mlirIntegerAttrGet(i64, 0))})};
        MlirNamedAttribute slt = named(L, "predicate", mlirIntegerAttrGet(i64, 2)), sge = named(L, "predicate", mlirIntegerAttrGet(i64, 5));
        pred = bin(L, "arith.andi", pred, emit1(L, "arith.cmpi", i1, 2, lt, 1, &slt));
        pred = bin(L, "arith.andi", pred, emit1(L, "arith.cmpi", i1, 2, ge, 1, &sge));
      }
    }
    MlirValue ops[2] = {b->v[0], lin};
    MlirValue addr = emit1(L, "llvm.getelementptr", mlirLLVMPointerTypeGet(L->ctx, 1), 2, ops, 2, gep);
    if (is_load) {
      MlirAttribute dflt = nan && mlirTypeIsAFloat(et) ? mlirFloatAttrDoubleGet(L->ctx, et, __builtin_nan(""))
                                                       : mlirTypeIsAInteger(et) ? mlirIntegerAttrGet(et, 0) : mlirFloatAttrDoubleGet(L->ctx, et, 0.0);
      MlirValue other = emit1(L, "arith.constant", et, 0, NULL, 1, (MlirNamedAttribute[]){named(L, "value", dflt)});
      snprintf(name, sizeof name, "tilec.ld.b%d", bits);
      MlirValue args[3] = {addr, pred, as_bits(L, other)};
      out->v[k] = from_bits(L, call(L, name, it, 3, args), et);
    } else {
      snprintf(name, sizeof name, "tilec.st.b%d", bits);
      MlirValue args[3] = {addr, bin(L, "arith.andi", pred, owns(L, &e, k)), as_bits(L, v->v[k])};
      call(L, name, (MlirType){NULL}, 3, args);
    }
  }
  if (is_load) put(L, mlirOperationGetResult(op, 0), out);
}

static void lower_load_store(Lower *L, MlirOperation op, bool is_load) {
  MlirValue ptr = mlirOperationGetOperand(op, 0);
  MlirType pt = mlirValueGetType(ptr);
  if (block_ptr_rank(L, pt)) {
    lower_block_access(L, op, is_load);
    return;
  }
  Vals *p = get(L, ptr);
  MlirValue mask = {NULL}, other = {NULL}, value = {NULL};
  intptr_t nops = mlirOperationGetNumOperands(op);
  if (is_load) {
    MlirAttribute seg = mlirOperationGetAttributeByName(op, str("operandSegmentSizes"));
    int has_mask = mlirDenseI32ArrayGetElement(seg, 1), has_other = mlirDenseI32ArrayGetElement(seg, 2);
    if (has_mask) mask = mlirOperationGetOperand(op, 1);
    if (has_other) other = mlirOperationGetOperand(op, 1 + has_mask);
  } else {
    value = mlirOperationGetOperand(op, 1);
    if (nops > 2) mask = mlirOperationGetOperand(op, 2);
  }
  Vals *m = mlirValueIsNull(mask) ? NULL : get(L, mask);
  Vals *o = mlirValueIsNull(other) ? NULL : get(L, other);
  Vals *v = mlirValueIsNull(value) ? NULL : get(L, value);
  MlirType et = is_load ? scalar_of(L, mlirValueGetType(mlirOperationGetResult(op, 0))) : scalar_of(L, mlirValueGetType(value));
  int bits = bits_of(et) == 1 ? 8 : bits_of(et); /* booleans are bytes in memory */
  MlirType it = mlirIntegerTypeGet(L->ctx, (unsigned)bits);
  MlirType i1 = mlirIntegerTypeGet(L->ctx, 1);
  Vals *res = is_load ? new_vals(L, p->n) : NULL;
  char name[32];
  int vec = vector_width(L, ptr, mask, bits);
  for (int k = 0; vec > 1 && k < p->n; k += vec) {
    /* vec consecutive elements, one predicate: one 64- or 128-bit access */
    MlirValue pred = m ? m->v[k] : mlirOperationGetResult(emit(L, "arith.constant", 1, &i1, 0, NULL, 1,
                                                               (MlirNamedAttribute[]){named(L, "value", mlirIntegerAttrGet(i1, 1))}), 0);
    MlirValue args[2 + 4];
    args[0] = p->v[k];
    args[1] = pred;
    if (is_load) {
      for (int j = 0; j < vec; j++)
        args[2 + j] = o ? as_bits(L, o->v[k + j]) : mlirOperationGetResult(emit(L, "arith.constant", 1, &it, 0, NULL, 1,
                                                                                  (MlirNamedAttribute[]){named(L, "value", mlirIntegerAttrGet(it, 0))}), 0);
      MlirType fields[4] = {it, it, it, it};
      MlirType st = mlirLLVMStructTypeLiteralGet(L->ctx, vec, fields, false);
      snprintf(name, sizeof name, "tilec.ld.v%d.b%d", vec, bits);
      MlirValue agg = call(L, name, st, 2 + vec, args);
      for (int j = 0; j < vec; j++) {
        MlirNamedAttribute pos = named(L, "position", mlirDenseI64ArrayGet(L->ctx, 1, (int64_t[]){j}));
        res->v[k + j] = from_bits(L, emit1(L, "llvm.extractvalue", it, 1, &agg, 1, &pos), et);
      }
    } else {
      for (int j = 0; j < vec; j++) args[2 + j] = as_bits(L, v->v[k + j]);
      snprintf(name, sizeof name, "tilec.st.v%d.b%d", vec, bits);
      call(L, name, (MlirType){NULL}, 2 + vec, args);
    }
  }
  for (int k = 0; vec == 1 && k < p->n; k++) {
    MlirValue pred = m ? m->v[k] : mlirOperationGetResult(emit(L, "arith.constant", 1, &i1, 0, NULL, 1,
                                                               (MlirNamedAttribute[]){named(L, "value", mlirIntegerAttrGet(i1, 1))}), 0);
    if (is_load) {
      MlirValue dflt = o ? as_bits(L, o->v[k]) : mlirOperationGetResult(emit(L, "arith.constant", 1, &it, 0, NULL, 1,
                                                                             (MlirNamedAttribute[]){named(L, "value", mlirIntegerAttrGet(it, 0))}), 0);
      snprintf(name, sizeof name, "tilec.ld.b%d", bits);
      MlirValue args[3] = {p->v[k], pred, dflt};
      res->v[k] = from_bits(L, call(L, name, it, 3, args), et);
    } else {
      snprintf(name, sizeof name, "tilec.st.b%d", bits);
      MlirValue args[3] = {p->v[k], pred, as_bits(L, v->v[k])};
      call(L, name, (MlirType){NULL}, 3, args);
    }
  }
  if (is_load) put(L, mlirOperationGetResult(op, 0), res);
}


/* Shared memory: every use gets a buffer of its own, a global
 * @tilec_smem_<n>, and tags its loads and stores with n (tilec.smem).
 * allocate-shared then places the buffers in one by liveness, and
 * insert-barriers puts a barrier where an access would race (shared.c). */
static MlirValue shared_buffer(Lower *L, MlirType t, int64_t n) {
  int64_t bytes = n * ((bits_of(t) + 7) / 8);
  if (mlirTypeIsALLVMPointerType(t)) bytes = n * 8;
  char name[32];
  snprintf(name, sizeof name, "tilec_smem_%d", L->nbuffers++);
  MlirType arr = mlirLLVMArrayTypeGet(mlirIntegerTypeGet(L->ctx, 8), (unsigned)bytes);
  MlirNamedAttribute gattrs[6] = {
      named(L, "sym_name", mlirStringAttrGet(L->ctx, str(name))),
      named(L, "global_type", mlirTypeAttrGet(arr)),
      named(L, "linkage", ir_parse_attr(L->pc->ic, "#llvm.linkage<internal>")),
      named(L, "addr_space", mlirIntegerAttrGet(i32(L), 3)),
      named(L, "alignment", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), 16)),
      named(L, "tilec.bytes", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), bytes)),
  };
  MlirOperationState gs = mlirOperationStateGet(str("llvm.mlir.global"), mlirLocationUnknownGet(L->ctx));
  mlirOperationStateAddAttributes(&gs, 6, gattrs);
  MlirRegion init = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&gs, 1, &init);
  mlirBlockInsertOwnedOperation(mlirModuleGetBody(L->out), 0, mlirOperationCreate(&gs));
  MlirNamedAttribute ga = named(L, "global_name", mlirFlatSymbolRefAttrGet(L->ctx, str(name)));
  return emit1(L, "llvm.mlir.addressof", mlirLLVMPointerTypeGet(L->ctx, 3), 0, NULL, 1, &ga);
}

/* Tags a shared-memory access with the buffer its base pointer names. */
static void tag_smem(Lower *L, MlirOperation access, MlirValue base) {
  MlirOperation a = mlirOpResultGetOwner(base);
  MlirStringRef g = mlirFlatSymbolRefAttrGetValue(mlirOperationGetAttributeByName(a, str("global_name")));
  int id = 0;
  for (size_t i = 11; i < g.length && g.data[i] >= '0' && g.data[i] <= '9'; i++) id = id * 10 + (g.data[i] - '0');
  mlirOperationSetAttributeByName(access, str("tilec.smem"), mlirIntegerAttrGet(i32(L), id));
}

static MlirValue shared_at(Lower *L, MlirValue base, MlirType t, MlirValue idx) {
  MlirNamedAttribute gep[2] = {
      named(L, "elem_type", mlirTypeAttrGet(t)),
      named(L, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 1, (int32_t[]){INT32_MIN})),
  };
  MlirValue ops[2] = {base, idx};
  return emit1(L, "llvm.getelementptr", mlirLLVMPointerTypeGet(L->ctx, 3), 2, ops, 2, gep);
}

static void store_shared(Lower *L, MlirValue base, MlirType t, MlirValue idx, MlirValue v) {
  MlirValue sv[2] = {v, shared_at(L, base, t, idx)};
  tag_smem(L, emit(L, "llvm.store", 0, NULL, 2, sv, 0, NULL), base);
}

static MlirValue load_shared(Lower *L, MlirValue base, MlirType t, MlirValue idx) {
  MlirValue at = shared_at(L, base, t, idx);
  MlirOperation ld = emit(L, "llvm.load", 1, &t, 1, &at, 0, NULL);
  tag_smem(L, ld, base);
  return mlirOperationGetResult(ld, 0);
}

static void store_shared_at_if(Lower *L, MlirValue base, MlirType t, MlirValue idx, MlirValue pred, MlirValue v);

/* A store to shared memory by the threads where pred holds. */
static void store_shared_if(Lower *L, MlirValue base, MlirType t, MlirValue pred, MlirValue v) {
  store_shared_at_if(L, base, t, const_i32(L, 0), pred, v);
}

/* A per-thread `if (pred) { ... }`: begin_if moves the lowering into the
 * then block; end_if puts the scf.if where the lowering was, marked
 * tilec.divergent (no barrier may go inside). */
typedef struct IfScope {
  MlirBlock block;
  MlirOperation term;
  MlirRegion then_r;
  MlirValue pred;
} IfScope;

static IfScope begin_if(Lower *L, MlirValue pred) {
  IfScope s = {L->block, L->term, mlirRegionCreate(), pred};
  MlirBlock tb = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(s.then_r, tb);
  L->block = tb;
  L->term = (MlirOperation){NULL};
  return s;
}

static void end_if(Lower *L, IfScope *s) {
  emit(L, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  MlirRegion else_r = mlirRegionCreate();
  MlirBlock eb = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(else_r, eb);
  L->block = eb;
  emit(L, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  L->block = s->block;
  L->term = s->term;
  MlirOperationState st = mlirOperationStateGet(str("scf.if"), mlirLocationUnknownGet(L->ctx));
  mlirOperationStateAddOperands(&st, 1, &s->pred);
  MlirRegion regions[2] = {s->then_r, else_r};
  mlirOperationStateAddOwnedRegions(&st, 2, regions);
  MlirNamedAttribute div = named(L, "tilec.divergent", mlirUnitAttrGet(L->ctx));
  mlirOperationStateAddAttributes(&st, 1, &div);
  insert_op(L, mlirOperationCreate(&st));
}

static void store_shared_at_if(Lower *L, MlirValue base, MlirType t, MlirValue idx, MlirValue pred, MlirValue v) {
  MlirValue at = shared_at(L, base, t, idx);
  IfScope s = begin_if(L, pred);
  MlirValue sv[2] = {v, at};
  tag_smem(L, emit(L, "llvm.store", 0, NULL, 2, sv, 0, NULL), base);
  end_if(L, &s);
}

/* Shared memory holds pointers as i64 and booleans as i8. */
static MlirType smem_type(Lower *L, MlirType et) {
  if (mlirTypeIsALLVMPointerType(et)) return mlirIntegerTypeGet(L->ctx, 64);
  if (mlirTypeIsAInteger(et) && mlirIntegerTypeGetWidth(et) == 1) return mlirIntegerTypeGet(L->ctx, 8);
  return et;
}

/* A conversion lays its elements out row-major with the rows padded by one
 * 4-byte word when a row is a multiple of 128 bytes (the 32 banks): the
 * columns a transposing conversion walks then fall on different banks,
 * and each element's place stays the thread's base plus a constant. */
static int64_t smem_pad(Lower *L, MlirType t) {
  int r = (int)mlirShapedTypeGetRank(t);
  MlirType et = smem_type(L, scalar_of(L, t));
  int bytes = mlirTypeIsALLVMPointerType(et) ? 8 : (bits_of(et) + 7) / 8;
  int64_t row = mlirShapedTypeGetDimSize(t, r - 1) * bytes;
  return r >= 2 && row % 128 == 0 ? (bytes < 4 ? 4 / bytes : 1) : 0;
}

/* The padded row-major place of element k of a tensor of type t in layout e. */
static MlirValue padded_index(Lower *L, const Elems *e, MlirType t, int k, int64_t pad) {
  int r = (int)mlirShapedTypeGetRank(t);
  MlirValue lin = const_i32(L, 0);
  for (int td = 0, d = 0; td < r; td++, d++) {
    if (d == e->sliced) d++;
    int64_t size = mlirShapedTypeGetDimSize(t, td) + (td == r - 1 ? pad : 0);
    lin = bin(L, "arith.addi", bin(L, "arith.muli", lin, const_i32(L, size)), index_of(L, e, k, d));
  }
  return lin;
}

/* The row-major offset of element k of a tensor of type t in layout e. */
static MlirValue linear_index(Lower *L, const Elems *e, MlirType t, int k) { return padded_index(L, e, t, k, 0); }

static void smem_put(Lower *L, MlirValue base, MlirType et, MlirValue idx, MlirValue v) {
  MlirType mt = smem_type(L, et);
  if (mlirTypeIsALLVMPointerType(et)) v = emit1(L, "llvm.ptrtoint", mt, 1, &v, 0, NULL);
  else if (!mlirTypeEqual(mt, et)) v = emit1(L, "arith.extui", mt, 1, &v, 0, NULL);
  store_shared(L, base, mt, idx, v);
}

static MlirValue smem_get(Lower *L, MlirValue base, MlirType et, MlirValue idx) {
  MlirType mt = smem_type(L, et);
  MlirValue v = load_shared(L, base, mt, idx);
  if (mlirTypeIsALLVMPointerType(et)) return emit1(L, "llvm.inttoptr", et, 1, &v, 0, NULL);
  if (!mlirTypeEqual(mt, et)) return emit1(L, "arith.trunci", et, 1, &v, 0, NULL);
  return v;
}

static int64_t numel_of(MlirType t) {
  int64_t n = 1;
  for (intptr_t i = 0; i < mlirShapedTypeGetRank(t); i++) n *= mlirShapedTypeGetDimSize(t, i);
  return n;
}

/* A layout conversion through shared memory: every thread writes the
 * elements it holds at their row-major places, and after a barrier reads
 * those the new layout gives it. A barrier before the writes keeps a loop's
 * next conversion from overwriting what slower threads still read. */
static void lower_convert(Lower *L, MlirOperation op) {
  MlirValue src = mlirOperationGetOperand(op, 0), r = mlirOperationGetResult(op, 0);
  MlirType st = mlirValueGetType(src), rt = mlirValueGetType(r);
  Elems es, ed;
  if (!elems_of(L, st, &es) || !elems_of(L, rt, &ed)) {
    fail(L, op, "between these layouts is not supported yet by the GPU code generator");
    return;
  }
  MlirType et = scalar_of(L, rt);
  int64_t pad = smem_pad(L, rt);
  MlirValue base = shared_buffer(L, smem_type(L, et), numel_of(rt) / mlirShapedTypeGetDimSize(rt, mlirShapedTypeGetRank(rt) - 1) *
                                                          (mlirShapedTypeGetDimSize(rt, mlirShapedTypeGetRank(rt) - 1) + pad));
  Vals *in = get(L, src), *out = new_vals(L, ed.n);
  for (int k = 0; k < es.n; k++) smem_put(L, base, et, padded_index(L, &es, st, k, pad), in->v[k]);
  for (int k = 0; k < ed.n; k++) out->v[k] = smem_get(L, base, et, padded_index(L, &ed, rt, k, pad));
  put(L, r, out);
}

/* ---- shape ops: trans, join, split, reshape, cat ------------------------------------------ */

/* Whether dim da of layout a and dim db of layout b split the same way. */
static bool same_dim(const Elems *a, int da, const Elems *b, int db) {
  return a->l.spt[da] == b->l.spt[db] && a->l.tpw[da] == b->l.tpw[db] && a->l.wpc[da] == b->l.wpc[db] &&
         a->per[da] == b->per[db];
}

/* Whether the last dim of e has its 2 elements in each thread, fastest. */
static bool pair_in_thread(const Elems *e) {
  int d = e->rank - 1;
  return e->l.spt[d] == 2 && e->l.tpw[d] == 1 && e->l.wpc[d] == 1 && e->l.order[0] == d && e->shape[d] == 2;
}

/* The permutation of a trans: result dim i is operand dim perm[i]. */
static void trans_perm(MlirOperation op, int r, int *perm) {
  MlirAttribute oa = mlirOperationGetAttributeByName(op, str("order"));
  for (int i = 0; i < r; i++) perm[i] = mlirDenseI32ArrayGetElement(oa, i);
}

/* trans, join and split in registers, when the layouts the GPU conversion
 * gave them still hold (each result element is held by the thread that
 * holds its source); false otherwise. */
static bool shape_in_registers(Lower *L, MlirOperation op, TileOp t) {
  MlirValue src = mlirOperationGetOperand(op, 0);
  Elems es, ed;
  if (!elems_of(L, mlirValueGetType(src), &es) || !elems_of(L, mlirValueGetType(mlirOperationGetResult(op, 0)), &ed) ||
      es.sliced >= 0 || ed.sliced >= 0)
    return false;
  int c[MAX_RANK], ci[MAX_RANK], perm[MAX_RANK];
  if (t == TOP_trans) {
    trans_perm(op, es.rank, perm);
    for (int i = 0; i < es.rank; i++)
      if (!same_dim(&ed, i, &es, perm[i]) || es.l.order[i] != perm[ed.l.order[i]]) return false;
    Vals *in = get(L, src), *out = new_vals(L, ed.n);
    for (int k = 0; k < ed.n; k++) {
      counters(&ed, k, c);
      for (int i = 0; i < es.rank; i++) ci[perm[i]] = c[i];
      out->v[k] = in->v[element_of(&es, ci)];
    }
    put(L, mlirOperationGetResult(op, 0), out);
    return true;
  }
  Elems *whole = t == TOP_join ? &ed : &es, *part = t == TOP_join ? &es : &ed;
  if (!pair_in_thread(whole) || whole->rank != part->rank + 1) return false;
  for (int i = 0; i < part->rank; i++)
    if (!same_dim(whole, i, part, i) || whole->l.order[i + 1] != part->l.order[i]) return false;
  if (t == TOP_join) {
    Elems eb;
    Vals *ins[2] = {get(L, src), get(L, mlirOperationGetOperand(op, 1))}, *out = new_vals(L, ed.n);
    if (!elems_of(L, mlirValueGetType(mlirOperationGetOperand(op, 1)), &eb) || eb.sliced >= 0) return false;
    for (int i = 0; i < eb.rank; i++)
      if (!same_dim(&eb, i, &es, i) || eb.l.order[i] != es.l.order[i]) return false;
    for (int k = 0; k < ed.n; k++) {
      counters(&ed, k, c);
      out->v[k] = ins[c[es.rank]]->v[element_of(&es, c)];
    }
    put(L, mlirOperationGetResult(op, 0), out);
    return true;
  }
  Vals *in = get(L, src);
  for (int j = 0; j < 2; j++) {
    Vals *out = new_vals(L, ed.n);
    for (int k = 0; k < ed.n; k++) {
      counters(&ed, k, c);
      c[ed.rank] = j;
      out->v[k] = in->v[element_of(&es, c)];
    }
    put(L, mlirOperationGetResult(op, j), out);
  }
  return true;
}

/* The row-major offset of the coordinates c in a shape. */
static MlirValue row_major(Lower *L, int r, const int64_t *shape, const MlirValue *c) {
  MlirValue lin = const_i32(L, 0);
  for (int d = 0; d < r; d++) lin = bin(L, "arith.addi", bin(L, "arith.muli", lin, const_i32(L, shape[d])), c[d]);
  return lin;
}

/* Any shape op through shared memory: the operands' elements go to their
 * row-major places (join interleaves its two, cat puts the second after the
 * first), and each result element is read from where its value lies. */
static void shape_through_shared(Lower *L, MlirOperation op, TileOp t) {
  int nsrc = (int)mlirOperationGetNumOperands(op), nres = (int)mlirOperationGetNumResults(op);
  MlirType t0 = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirType et = scalar_of(L, t0);
  int64_t n0 = numel_of(t0);
  MlirValue base = shared_buffer(L, smem_type(L, et), n0 * nsrc);
  for (int s = 0; s < nsrc; s++) {
    MlirValue src = mlirOperationGetOperand(op, s);
    Elems es;
    if (!elems_of(L, mlirValueGetType(src), &es)) {
      fail(L, op, "on an operand in this layout is not supported yet by the GPU code generator");
      return;
    }
    Vals *in = get(L, src);
    for (int k = 0; k < es.n; k++) {
      MlirValue off = linear_index(L, &es, mlirValueGetType(src), k);
      if (t == TOP_join) off = bin(L, "arith.addi", bin(L, "arith.muli", off, const_i32(L, 2)), const_i32(L, s));
      if (t == TOP_cat) off = bin(L, "arith.addi", off, const_i32(L, s * n0));
      smem_put(L, base, et, off, in->v[k]);
    }
  }
  for (int j = 0; j < nres; j++) {
    MlirValue r = mlirOperationGetResult(op, j);
    MlirType rt = mlirValueGetType(r);
    Elems ed;
    if (!elems_of(L, rt, &ed)) {
      fail(L, op, "with a result in this layout is not supported yet by the GPU code generator");
      return;
    }
    Vals *out = new_vals(L, ed.n);
    for (int k = 0; k < ed.n; k++) {
      MlirValue off;
      if (t == TOP_trans) {
        int rank = (int)mlirShapedTypeGetRank(t0), perm[MAX_RANK];
        int64_t shape[MAX_RANK];
        MlirValue ci[MAX_RANK];
        trans_perm(op, rank, perm);
        for (int i = 0; i < rank; i++) {
          shape[i] = mlirShapedTypeGetDimSize(t0, i);
          ci[perm[i]] = index_of(L, &ed, k, i);
        }
        off = row_major(L, rank, shape, ci);
      } else {
        off = linear_index(L, &ed, rt, k);
        if (t == TOP_split) off = bin(L, "arith.addi", bin(L, "arith.muli", off, const_i32(L, 2)), const_i32(L, j));
      }
      out->v[k] = smem_get(L, base, et, off);
    }
    put(L, r, out);
  }
}

static void lower_shape(Lower *L, MlirOperation op, TileOp t) {
  if ((t == TOP_trans || t == TOP_join || t == TOP_split) && shape_in_registers(L, op, t)) return;
  shape_through_shared(L, op, t);
}

/* ---- fp8 -------------------------------------------------------------------------------------
 * LLVM has no fp8 types: an fp8 value is its i8 bits, and conversions go
 * through f32 in integer arithmetic, the same on every target and on the
 * emulator: round to nearest even (or toward zero), saturate to the largest
 * finite value (as cvt.rn.satfinite does), keep NaN. */

typedef struct F8Format {
  const char *name;
  int mbits, bias, maxcode; /* mantissa bits, exponent bias, largest finite code */
  bool has_inf;
} F8Format;

static const F8Format f8_formats[] = {
    {"e4m3", 3, 7, 0x7e, false}, /* f8E4M3FN: no infinities, 0x7f is NaN */
    {"e5m2", 2, 15, 0x7b, true}, /* f8E5M2: IEEE-like */
};

/* The fp8 format of a type: 0 (e4m3), 1 (e5m2), or -1 for other types. */
static int f8_format(MlirType t) {
  if (mlirTypeIsAFloat8E4M3FN(t)) return 0;
  if (mlirTypeIsAFloat8E5M2(t)) return 1;
  return -1;
}

/* The code of a constant, as the conversion functions below compute it. */
static int f8_bits(double v, int fmt, bool rtz) {
  const F8Format *f = &f8_formats[fmt];
  float x = (float)v;
  uint32_t u;
  memcpy(&u, &x, 4);
  uint32_t sign = (u >> 24) & 0x80, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return 0x7f;
  int shift = 23 - f->mbits;
  int64_t code;
  float ax;
  memcpy(&ax, &a, 4);
  if (ax < ldexpf(1.0f, 1 - f->bias)) {
    float scaled = ax * ldexpf(1.0f, f->bias - 1 + f->mbits);
    code = (int64_t)(rtz ? truncf(scaled) : nearbyintf(scaled));
  } else {
    uint32_t rnd = rtz ? a : a + ((1u << (shift - 1)) - 1) + ((a >> shift) & 1);
    code = (int64_t)(rnd >> shift) - ((int64_t)(127 - f->bias) << f->mbits);
  }
  if (code > f->maxcode) code = f->maxcode;
  return (int)(sign | (uint32_t)code);
}

static MlirValue c32(Lower *L, int64_t v) { return const_i32(L, v); }
static MlirValue const_f32(Lower *L, double v);
static MlirValue pick(Lower *L, MlirValue c, MlirValue a, MlirValue b);
static MlirValue cmp_u32(Lower *L, int pred, MlirValue a, MlirValue b);

/* The body of f32 -> fp8, as a function taking f32 and returning i8. */
static void emit_f32_to_f8(Lower *L, MlirValue x, int fmt, bool rtz) {
  const F8Format *f = &f8_formats[fmt];
  MlirType i8 = mlirIntegerTypeGet(L->ctx, 8), f32 = mlirF32TypeGet(L->ctx);
  int shift = 23 - f->mbits;
  MlirValue u = emit1(L, "arith.bitcast", i32(L), 1, &x, 0, NULL);
  MlirValue sign = bin(L, "arith.andi", bin(L, "arith.shrui", u, c32(L, 24)), c32(L, 0x80));
  MlirValue a = bin(L, "arith.andi", u, c32(L, 0x7fffffff));
  /* normal: round the mantissa at bit `shift`, then rebias (a carry moves
   * into the exponent by itself) */
  MlirValue rnd = a;
  if (!rtz)
    rnd = bin(L, "arith.addi", bin(L, "arith.addi", a, c32(L, (1 << (shift - 1)) - 1)),
              bin(L, "arith.andi", bin(L, "arith.shrui", a, c32(L, shift)), c32(L, 1)));
  MlirValue normal = bin(L, "arith.subi", bin(L, "arith.shrui", rnd, c32(L, shift)), c32(L, (int64_t)(127 - f->bias) << f->mbits));
  /* subnormal: the magnitude in units of the smallest subnormal, rounded */
  MlirValue ax = emit1(L, "arith.bitcast", f32, 1, &a, 0, NULL);
  MlirValue scaled = bin(L, "arith.mulf", ax, const_f32(L, ldexp(1.0, f->bias - 1 + f->mbits)));
  MlirValue rounded = emit1(L, rtz ? "llvm.intr.trunc" : "llvm.intr.roundeven", f32, 1, &scaled, 0, NULL);
  MlirValue sub = emit1(L, "arith.fptoui", i32(L), 1, &rounded, 0, NULL);
  MlirValue small = cmp_u32(L, 6 /* ult */, a, c32(L, (int64_t)(127 + 1 - f->bias) << 23));
  MlirValue code = bin(L, "arith.minui", pick(L, small, sub, normal), c32(L, f->maxcode));
  MlirValue nan = cmp_u32(L, 8 /* ugt */, a, c32(L, 0x7f800000));
  code = pick(L, nan, c32(L, 0x7f), bin(L, "arith.ori", code, sign));
  MlirValue r = emit1(L, "arith.trunci", i8, 1, &code, 0, NULL);
  emit(L, "llvm.return", 0, NULL, 1, &r, 0, NULL);
}

/* The body of fp8 -> f32. */
static void emit_f8_to_f32(Lower *L, MlirValue b, int fmt) {
  const F8Format *f = &f8_formats[fmt];
  MlirType f32 = mlirF32TypeGet(L->ctx);
  MlirValue c = emit1(L, "arith.extui", i32(L), 1, &b, 0, NULL);
  MlirValue sign = bin(L, "arith.shli", bin(L, "arith.andi", c, c32(L, 0x80)), c32(L, 24));
  MlirValue mag = bin(L, "arith.andi", c, c32(L, 0x7f));
  MlirValue exp = bin(L, "arith.shrui", mag, c32(L, f->mbits));
  MlirValue mant = bin(L, "arith.andi", mag, c32(L, (1 << f->mbits) - 1));
  MlirValue normal = bin(L, "arith.addi", bin(L, "arith.shli", mag, c32(L, 23 - f->mbits)), c32(L, (int64_t)(127 - f->bias) << 23));
  MlirValue fm = emit1(L, "arith.uitofp", f32, 1, &mant, 0, NULL);
  MlirValue subf = bin(L, "arith.mulf", fm, const_f32(L, ldexp(1.0, 1 - f->bias - f->mbits)));
  MlirValue sub = emit1(L, "arith.bitcast", i32(L), 1, &subf, 0, NULL);
  MlirValue bits = pick(L, cmp_u32(L, 0 /* eq */, exp, c32(L, 0)), sub, normal);
  int top = (1 << (8 - 1 - f->mbits)) - 1; /* the all-ones exponent */
  if (f->has_inf) {
    MlirValue special = bin(L, "arith.ori", c32(L, 0x7f800000), bin(L, "arith.shli", mant, c32(L, 23 - f->mbits)));
    bits = pick(L, cmp_u32(L, 0, exp, c32(L, top)), special, bits);
  } else {
    bits = pick(L, cmp_u32(L, 0, mag, c32(L, 0x7f)), c32(L, 0x7fc00000), bits);
  }
  bits = bin(L, "arith.ori", bits, sign);
  MlirValue r = emit1(L, "arith.bitcast", f32, 1, &bits, 0, NULL);
  emit(L, "llvm.return", 0, NULL, 1, &r, 0, NULL);
}

/* A call of the conversion function `to` (f32 -> fp8) or not (fp8 -> f32),
 * defined in the module on first use. */
static MlirValue f8_convert(Lower *L, MlirValue v, int fmt, bool to, bool rtz) {
  char name[48];
  snprintf(name, sizeof name, "tilec_%s_%s%s", to ? "f32_to" : "to_f32", f8_formats[fmt].name, rtz ? "_rtz" : "");
  MlirType i8 = mlirIntegerTypeGet(L->ctx, 8), f32 = mlirF32TypeGet(L->ctx);
  MlirType arg = to ? f32 : i8, ret = to ? i8 : f32;
  for (int i = 0; i < L->declared.n; i++)
    if (!strcmp(L->declared.v[i], name)) return call(L, name, ret, 1, &v);
  declare(L, name, ret, 1, &arg); /* records the name; the body is added here */
  MlirOperation fn = mlirBlockGetFirstOperation(mlirModuleGetBody(L->out));
  for (; !mlirOperationIsNull(fn); fn = mlirOperationGetNextInBlock(fn)) {
    MlirStringRef s = mlirStringAttrGetValue(mlirOperationGetAttributeByName(fn, str("sym_name")));
    if (s.length == strlen(name) && !memcmp(s.data, name, s.length)) break;
  }
  MlirLocation loc = mlirLocationUnknownGet(L->ctx);
  MlirBlock body = mlirBlockCreate(1, &arg, &loc);
  mlirRegionAppendOwnedBlock(mlirOperationGetRegion(fn, 0), body);
  mlirOperationSetAttributeByName(fn, str("linkage"), ir_parse_attr(L->pc->ic, "#llvm.linkage<internal>"));
  MlirBlock saved_block = L->block;
  MlirOperation saved_term = L->term;
  L->block = body;
  L->term = (MlirOperation){NULL};
  L->in_helper = true;
  if (to) emit_f32_to_f8(L, mlirBlockGetArgument(body, 0), fmt, rtz);
  else emit_f8_to_f32(L, mlirBlockGetArgument(body, 0), fmt);
  L->in_helper = false;
  L->block = saved_block;
  L->term = saved_term;
  return call(L, name, ret, 1, &v);
}

/* A scalar as f32, from any float or integer type (signed unless told). */
static MlirValue to_f32(Lower *L, MlirValue v, MlirType from, bool is_unsigned) {
  MlirType f32 = mlirF32TypeGet(L->ctx);
  int fmt = f8_format(from);
  if (fmt >= 0) return f8_convert(L, v, fmt, false, false);
  if (mlirTypeIsAF32(from)) return v;
  if (mlirTypeIsAFloat(from)) return emit1(L, bits_of(from) > 32 ? "arith.truncf" : "arith.extf", f32, 1, &v, 0, NULL);
  return emit1(L, is_unsigned ? "arith.uitofp" : "arith.sitofp", f32, 1, &v, 0, NULL);
}

/* A float down-cast rounding toward zero, which LLVM's fptrunc cannot say:
 * through tilec.cvt.rz.* (one PTX cvt each; f64 to 16 bits goes through
 * f32, exact for truncation). */
static bool lower_truncf_rtz(Lower *L, MlirValue src, MlirValue r, MlirType from, MlirType to, int n) {
  MlirType f32 = mlirF32TypeGet(L->ctx), i16 = mlirIntegerTypeGet(L->ctx, 16);
  const char *dst = mlirTypeIsAF16(to) ? "f16" : mlirTypeIsABF16(to) ? "bf16" : mlirTypeIsAF32(to) ? "f32" : NULL;
  if (!dst || !(mlirTypeIsAF32(from) || mlirTypeIsAF64(from))) return false;
  Vals *in = get(L, src), *x = new_vals(L, n);
  char name[48];
  for (int k = 0; k < n; k++) {
    MlirValue v = in->v[in->n == 1 ? 0 : k];
    if (mlirTypeIsAF64(from)) v = call(L, "tilec.cvt.rz.f32.f64", f32, 1, &v);
    if (!mlirTypeIsAF32(to)) {
      snprintf(name, sizeof name, "tilec.cvt.rz.%s.f32", dst);
      v = call(L, name, i16, 1, &v);
      v = emit1(L, "arith.bitcast", to, 1, &v, 0, NULL);
    }
    x->v[k] = v;
  }
  put(L, r, x);
  return true;
}

/* Conversions to and from fp8, elementwise; false when op is not one. */
static bool lower_f8(Lower *L, MlirOperation op, MlirValue r, int n) {
  if (!op_is(op, "arith.truncf") && !op_is(op, "arith.extf") && !op_is(op, "arith.sitofp") &&
      !op_is(op, "arith.uitofp") && !op_is(op, "arith.fptosi") && !op_is(op, "arith.fptoui"))
    return false;
  MlirValue src = mlirOperationGetOperand(op, 0);
  MlirType from = mlirValueGetType(src), to = mlirValueGetType(r);
  from = mlirTypeIsARankedTensor(from) ? mlirShapedTypeGetElementType(from) : from;
  to = mlirTypeIsARankedTensor(to) ? mlirShapedTypeGetElementType(to) : to;
  int ff = f8_format(from), tf = f8_format(to);
  MlirAttribute rm = mlirOperationGetAttributeByName(op, str("roundingmode"));
  bool rtz = !mlirAttributeIsNull(rm) && mlirAttributeIsAInteger(rm) && mlirIntegerAttrGetValueInt(rm) == 3;
  if (ff < 0 && tf < 0) return rtz && lower_truncf_rtz(L, src, r, from, to, n);
  Vals *in = get(L, src), *x = new_vals(L, n);
  MlirValue memo[2] = {{NULL}, {NULL}}; /* splat inputs convert once */
  for (int k = 0; k < n; k++) {
    MlirValue v = in->v[in->n == 1 ? 0 : k];
    if (in->n == 1 && memo[0].ptr) {
      x->v[k] = memo[0];
      continue;
    }
    MlirValue f = to_f32(L, v, from, op_is(op, "arith.uitofp"));
    if (tf >= 0) {
      v = f8_convert(L, f, tf, true, rtz);
    } else if (mlirTypeIsAFloat(to)) {
      v = mlirTypeIsAF32(to) ? f : emit1(L, bits_of(to) > 32 ? "arith.extf" : "arith.truncf", to, 1, &f, 0, NULL);
    } else {
      v = emit1(L, op_is(op, "arith.fptoui") ? "arith.fptoui" : "arith.fptosi", to, 1, &f, 0, NULL);
    }
    x->v[k] = memo[0] = v;
  }
  put(L, r, x);
  return true;
}

/* ---- random numbers: Philox 4x32, as Triton documents it ---------------------------------- */

static MlirValue intrinsic(Lower *L, const char *name, MlirValue x);

static MlirValue const_u32(Lower *L, uint32_t v) { return const_i32(L, (int32_t)v); }

static MlirValue umulhi(Lower *L, MlirValue a, MlirValue b) {
  MlirValue ops[2] = {a, b};
  MlirType two[2] = {i32(L), i32(L)};
  return mlirOperationGetResult(emit(L, "arith.mului_extended", 2, two, 2, ops, 0, NULL), 1);
}

/* philox(seed, offset): four 32-bit words after n rounds */
static void philox(Lower *L, MlirValue seed, MlirValue offset, int rounds, MlirValue *c) {
  MlirType st = mlirValueGetType(seed);
  MlirValue k0, k1;
  if (bits_of(st) == 64) {
    k0 = emit1(L, "arith.trunci", i32(L), 1, &seed, 0, NULL);
    MlirType i64 = mlirIntegerTypeGet(L->ctx, 64);
    MlirNamedAttribute v32 = named(L, "value", mlirIntegerAttrGet(i64, 32));
    MlirValue hi = bin(L, "arith.shrui", seed, emit1(L, "arith.constant", i64, 0, NULL, 1, &v32));
    k1 = emit1(L, "arith.trunci", i32(L), 1, &hi, 0, NULL);
  } else {
    /* Triton widens an int32 seed to 64 bits with its sign */
    k0 = seed;
    k1 = bin(L, "arith.shrsi", seed, const_i32(L, 31));
  }
  c[0] = bits_of(mlirValueGetType(offset)) == 64 ? emit1(L, "arith.trunci", i32(L), 1, &offset, 0, NULL) : offset;
  c[1] = c[2] = c[3] = const_i32(L, 0);
  MlirValue A = const_u32(L, 0xD2511F53u), B = const_u32(L, 0xCD9E8D57u);
  for (int r = 0; r < rounds; r++) {
    MlirValue c0 = c[0], c2 = c[2];
    c[0] = bin(L, "arith.xori", bin(L, "arith.xori", umulhi(L, B, c2), c[1]), k0);
    c[2] = bin(L, "arith.xori", bin(L, "arith.xori", umulhi(L, A, c0), c[3]), k1);
    c[1] = bin(L, "arith.muli", B, c2);
    c[3] = bin(L, "arith.muli", A, c0);
    k0 = bin(L, "arith.addi", k0, const_u32(L, 0x9E3779B9u));
    k1 = bin(L, "arith.addi", k1, const_u32(L, 0xBB67AE85u));
  }
}

/* uint32 -> uniform float in [0, 1): as Triton's uint_to_uniform_float */
static MlirValue to_uniform(Lower *L, MlirValue x) {
  MlirType i1 = mlirIntegerTypeGet(L->ctx, 1);
  MlirValue zero = const_i32(L, 0);
  MlirValue cmp[2] = {x, zero};
  MlirNamedAttribute slt = named(L, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), 2));
  MlirValue neg = emit1(L, "arith.cmpi", i1, 2, cmp, 1, &slt);
  MlirValue flipped = bin(L, "arith.subi", bin(L, "arith.subi", zero, x), const_i32(L, 1));
  MlirValue sel[3] = {neg, flipped, x};
  MlirValue pos = emit1(L, "arith.select", i32(L), 3, sel, 0, NULL);
  MlirValue f = emit1(L, "arith.sitofp", mlirF32TypeGet(L->ctx), 1, &pos, 0, NULL);
  return bin(L, "arith.mulf", f, const_f32(L, 4.6566127342e-10));
}

static void lower_random(Lower *L, MlirOperation op) {
  MlirStringRef kind = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("kind")));
  int rounds = (int)op_int_attr(op, "n_rounds", 10);
  Vals *seed = get(L, mlirOperationGetOperand(op, 0)), *off = get(L, mlirOperationGetOperand(op, 1));
  int nres = (int)mlirOperationGetNumResults(op);
  int n = count_of(L, mlirValueGetType(mlirOperationGetResult(op, 0)));
  Vals *out[4];
  for (int i = 0; i < nres; i++) out[i] = new_vals(L, n);
  bool is = kind.length == 4 && !memcmp(kind.data, "rand", 4);
  bool isn = kind.length == 5 && !memcmp(kind.data, "randn", 5);
  for (int k = 0; k < n; k++) {
    MlirValue c[4];
    philox(L, seed->v[0], off->v[off->n == 1 ? 0 : k], rounds, c);
    if (is) {
      out[0]->v[k] = to_uniform(L, c[0]);
    } else if (isn) {
      /* Box-Muller on the first two words */
      MlirValue u1 = bin(L, "arith.maxnumf", to_uniform(L, c[0]), const_f32(L, 1.0e-7));
      MlirValue u2 = to_uniform(L, c[1]);
      MlirValue th = bin(L, "arith.mulf", u2, const_f32(L, 6.283185307179586));
      MlirValue lg = bin(L, "arith.mulf", intrinsic(L, "llvm.nvvm.lg2.approx.f", u1), const_f32(L, 0.6931471805599453));
      MlirValue rr = bin(L, "arith.mulf", lg, const_f32(L, -2.0));
      MlirValue sq = emit1(L, "math.sqrt", mlirF32TypeGet(L->ctx), 1, &rr, 0, NULL);
      out[0]->v[k] = bin(L, "arith.mulf", sq, intrinsic(L, "llvm.nvvm.cos.approx.f", th));
    } else {
      for (int i = 0; i < nres; i++) out[i]->v[k] = c[i];
    }
  }
  for (int i = 0; i < nres; i++) put(L, mlirOperationGetResult(op, i), out[i]);
}

/* ---- device_assert ---------------------------------------------------------------------- */

/* A constant NUL-terminated string in global memory; its generic address. */
static MlirValue string_global(Lower *L, const char *text, size_t len) {
  char name[32];
  snprintf(name, sizeof name, "tilec_str%d", L->nstrings++);
  char *z = arena_alloc(L->pc->a, len + 1);
  memcpy(z, text, len);
  MlirNamedAttribute gattrs[6] = {
      named(L, "sym_name", mlirStringAttrGet(L->ctx, str(name))),
      named(L, "global_type", mlirTypeAttrGet(mlirLLVMArrayTypeGet(mlirIntegerTypeGet(L->ctx, 8), (unsigned)len + 1))),
      named(L, "linkage", ir_parse_attr(L->pc->ic, "#llvm.linkage<internal>")),
      named(L, "value", mlirStringAttrGet(L->ctx, mlirStringRefCreate(z, len + 1))),
      named(L, "constant", mlirUnitAttrGet(L->ctx)),
      named(L, "addr_space", mlirIntegerAttrGet(i32(L), 0)),
  };
  MlirOperationState gs = mlirOperationStateGet(str("llvm.mlir.global"), mlirLocationUnknownGet(L->ctx));
  mlirOperationStateAddAttributes(&gs, 6, gattrs);
  MlirRegion init = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&gs, 1, &init);
  mlirBlockInsertOwnedOperation(mlirModuleGetBody(L->out), 0, mlirOperationCreate(&gs));
  MlirNamedAttribute ga = named(L, "global_name", mlirFlatSymbolRefAttrGet(L->ctx, str(name)));
  return emit1(L, "llvm.mlir.addressof", mlirLLVMPointerTypeGet(L->ctx, 0), 0, NULL, 1, &ga);
}

static MlirValue string_attr_global(Lower *L, MlirOperation op, const char *attr) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, str(attr));
  MlirStringRef v = mlirAttributeIsNull(a) ? str("") : mlirStringAttrGetValue(a);
  return string_global(L, v.data, v.length);
}

/* tile.assert: when any element of the condition is false, the thread
 * calls CUDA's __assertfail with the message, file, line and kernel, which
 * stops the kernel and reports them. */
static void lower_assert(Lower *L, MlirOperation op) {
  Vals *c = get(L, mlirOperationGetOperand(op, 0));
  MlirValue all = c->v[0];
  for (int k = 1; k < c->n; k++) all = bin(L, "arith.andi", all, c->v[k]);
  MlirType i1 = mlirIntegerTypeGet(L->ctx, 1);
  MlirNamedAttribute one = named(L, "value", mlirIntegerAttrGet(i1, 1));
  MlirValue failed = bin(L, "arith.xori", all, emit1(L, "arith.constant", i1, 0, NULL, 1, &one));
  MlirValue args[5] = {
      string_attr_global(L, op, "message"), string_attr_global(L, op, "file"),
      const_i32(L, op_int_attr(op, "line", 0)), string_attr_global(L, op, "function"),
      emit1(L, "arith.constant", mlirIntegerTypeGet(L->ctx, 64), 0, NULL, 1,
            (MlirNamedAttribute[]){named(L, "value", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), 1))}),
  };
  /* if (failed) __assertfail(...) */
  IfScope s = begin_if(L, failed);
  call(L, "__assertfail", (MlirType){NULL}, 5, args);
  end_if(L, &s);
}

/* ---- device_print ---------------------------------------------------------------------- */

/* tile.print: for each element, one vprintf by its first holder of
 * "pid (x, y, z) idx (i, j) PREFIX v0 v1 ...": the program ids, the
 * element's index, and the value of each argument there; a scalar once,
 * by thread 0. */
static void lower_print(Lower *L, MlirOperation op) {
  int n = (int)mlirOperationGetNumOperands(op);
  MlirStringRef prefix = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("prefix")));
  bool hex = !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("hex")));
  /* the elements follow the first tensor argument's layout */
  Elems e = {.n = 1};
  bool tensor = false;
  for (int i = 0; i < n && !tensor; i++) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    if (mlirTypeIsARankedTensor(t)) {
      if (!elems_of(L, t, &e)) {
        fail(L, op, "of this layout is not supported yet by the GPU code generator");
        return;
      }
      tensor = true;
    }
  }
  int rank = tensor ? (int)mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetOperand(op, 0))) : 0;
  /* the format */
  StrBuf fmt = {.arena = L->pc->a};
  sb_printf(&fmt, "pid (%%d, %%d, %%d) idx (");
  for (int d = 0; d < rank; d++) sb_printf(&fmt, "%s%%d", d ? ", " : "");
  sb_printf(&fmt, ") %.*s", (int)prefix.length, prefix.data);
  MlirType f64 = mlirF64TypeGet(L->ctx), i64 = mlirIntegerTypeGet(L->ctx, 64);
  MlirType fields[32];
  int nf = 0;
  for (int i = 0; i < 3 + rank; i++) fields[nf++] = i32(L);
  Vals *args[16];
  for (int i = 0; i < n && i < 16; i++) {
    args[i] = get(L, mlirOperationGetOperand(op, i));
    MlirType et = scalar_of(L, mlirValueGetType(mlirOperationGetOperand(op, i)));
    bool fl = !mlirTypeIsAInteger(et) && !mlirTypeIsALLVMPointerType(et);
    bool wide = mlirTypeIsALLVMPointerType(et) || (mlirTypeIsAInteger(et) && mlirIntegerTypeGetWidth(et) == 64);
    sb_printf(&fmt, " %s", fl ? (hex ? "%a" : "%f") : hex ? (wide ? "0x%llx" : "0x%x") : wide ? "%lld" : "%d");
    fields[nf++] = fl ? f64 : wide ? i64 : i32(L);
  }
  sb_printf(&fmt, "\n");
  MlirValue fmt_ptr = string_global(L, fmt.s, fmt.len);
  MlirType st = mlirLLVMStructTypeLiteralGet(L->ctx, nf, fields, false);
  MlirNamedAttribute aa = named(L, "elem_type", mlirTypeAttrGet(st));
  /* the buffer is allocated once, in the entry block (a print in a loop must
   * not grow the stack) */
  MlirBlock saved_block = L->block;
  MlirOperation saved_term = L->term;
  L->block = L->entry;
  L->term = L->entry_first;
  MlirValue one = const_i32(L, 1);
  MlirValue buf = emit1(L, "llvm.alloca", mlirLLVMPointerTypeGet(L->ctx, 0), 1, &one, 1, &aa);
  L->block = saved_block;
  L->term = saved_term;
  static const char *const ids[3] = {"nvvm.read.ptx.sreg.ctaid.x", "nvvm.read.ptx.sreg.ctaid.y", "nvvm.read.ptx.sreg.ctaid.z"};
  MlirValue pid[3];
  for (int d = 0; d < 3; d++) pid[d] = emit1(L, ids[d], i32(L), 0, NULL, 0, NULL);
  for (int k = 0; k < e.n; k++) {
    MlirValue vals[32];
    int nv = 0;
    for (int d = 0; d < 3; d++) vals[nv++] = pid[d];
    for (int d = 0; d < rank; d++) vals[nv++] = index_of(L, &e, k, d + (e.sliced >= 0 && d >= e.sliced));
    for (int i = 0; i < n && i < 16; i++) {
      MlirValue v = args[i]->v[args[i]->n == 1 ? 0 : k];
      MlirType t = mlirValueGetType(v), want = fields[3 + rank + i];
      if (mlirTypeIsALLVMPointerType(t)) v = emit1(L, "llvm.ptrtoint", i64, 1, &v, 0, NULL);
      else if (mlirTypeEqual(want, f64) && !mlirTypeEqual(t, f64)) v = emit1(L, "arith.extf", f64, 1, &v, 0, NULL);
      else if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) < 32) v = emit1(L, "arith.extsi", i32(L), 1, &v, 0, NULL);
      vals[nv++] = v;
    }
    for (int f = 0; f < nf; f++) {
      MlirNamedAttribute gep[2] = {
          named(L, "elem_type", mlirTypeAttrGet(st)),
          named(L, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 2, (int32_t[]){0, f})),
      };
      MlirValue at = emit1(L, "llvm.getelementptr", mlirLLVMPointerTypeGet(L->ctx, 0), 1, &buf, 2, gep);
      MlirValue sv[2] = {vals[f], at};
      emit(L, "llvm.store", 0, NULL, 2, sv, 0, NULL);
    }
    /* once per element, by its first holder; a scalar by thread 0 */
    MlirValue tid0[2] = {emit1(L, "nvvm.read.ptx.sreg.tid.x", i32(L), 0, NULL, 0, NULL), const_i32(L, 0)};
    MlirNamedAttribute eq = named(L, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), 0));
    IfScope s = begin_if(L, tensor ? owns(L, &e, k) : emit1(L, "arith.cmpi", mlirIntegerTypeGet(L->ctx, 1), 2, tid0, 1, &eq));
    MlirValue cargs[2] = {fmt_ptr, buf};
    call(L, "vprintf", i32(L), 2, cargs);
    end_if(L, &s);
  }
}

/* ---- atomics ------------------------------------------------------------------------ */

/* tile.atomic_rmw / atomic_cas: each element once, by its first holder (a
 * scalar atomic by thread 0, its result shared through shared memory), as
 * a predicated call tilec.atom.<op>.<sem>.<scope>.<type>(ptr, pred, operands...). */
static void lower_atomic(Lower *L, MlirOperation op, bool cas) {
  MlirValue ptr = mlirOperationGetOperand(op, 0), r = mlirOperationGetResult(op, 0);
  MlirType rt = mlirValueGetType(r), et = scalar_of(L, rt);
  const char *kind = "cas";
  char buf[16];
  if (!cas) {
    MlirStringRef k = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("op")));
    snprintf(buf, sizeof buf, "%.*s", (int)k.length, k.data);
    kind = buf;
  }
  MlirStringRef sem = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("sem")));
  MlirStringRef scope = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("scope")));
  int bits = bits_of(et);
  bool fl = mlirTypeIsAF32(et) || mlirTypeIsAF64(et) || mlirTypeIsAF16(et) || mlirTypeIsABF16(et);
  /* PTX type suffix: bit types for exch/cas/bitwise, typed for arithmetic */
  char ty[8];
  if (!strcmp(kind, "xchg") || !strcmp(kind, "cas") || !strcmp(kind, "and") || !strcmp(kind, "or") || !strcmp(kind, "xor"))
    snprintf(ty, sizeof ty, "b%d", bits);
  else if (fl)
    snprintf(ty, sizeof ty, "f%d", bits);
  else
    snprintf(ty, sizeof ty, "%c%d", !strcmp(kind, "add") ? 'u' : 's', bits);
  if (fl && bits < 32) {
    fail(L, op, "on 16-bit floats is not supported yet by the GPU code generator");
    return;
  }
  char name[96];
  snprintf(name, sizeof name, "tilec.atom.%s.%.*s.%.*s.%s", !strcmp(kind, "xchg") ? "exch" : kind, (int)sem.length, sem.data,
           (int)scope.length, scope.data, ty);
  Vals *p = get(L, ptr);
  int nvals = cas ? 2 : 1;
  Vals *ops[2] = {get(L, mlirOperationGetOperand(op, 1)), cas ? get(L, mlirOperationGetOperand(op, 2)) : NULL};
  Vals *mask = !cas && mlirOperationGetNumOperands(op) > 2 ? get(L, mlirOperationGetOperand(op, 2)) : NULL;
  MlirType it = mlirIntegerTypeGet(L->ctx, (unsigned)bits);
  bool scalar = !mlirTypeIsARankedTensor(rt);
  Elems e;
  if (!scalar && !elems_of(L, rt, &e)) {
    fail(L, op, "of this layout is not supported yet by the GPU code generator");
    return;
  }
  Vals *out = new_vals(L, p->n);
  for (int k = 0; k < p->n; k++) {
    MlirValue pred;
    if (scalar) {
      MlirValue tid0[2] = {bin(L, "arith.addi", bin(L, "arith.muli", L->warp, const_i32(L, 32)), L->lane), const_i32(L, 0)};
      MlirNamedAttribute eq = named(L, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), 0));
      pred = emit1(L, "arith.cmpi", mlirIntegerTypeGet(L->ctx, 1), 2, tid0, 1, &eq);
    } else {
      pred = owns(L, &e, k);
    }
    if (mask) pred = bin(L, "arith.andi", pred, mask->v[mask->n == 1 ? 0 : k]);
    MlirValue args[4] = {p->v[k], pred};
    for (int i = 0; i < nvals; i++) args[2 + i] = as_bits(L, ops[i]->v[ops[i]->n == 1 ? 0 : k]);
    MlirValue old = from_bits(L, call(L, name, it, 2 + nvals, args), et);
    if (scalar && !op_results_unused(op)) {
      /* thread 0 did it: everyone reads its result (when it is used) */
      MlirValue base = shared_buffer(L, et, 1);
      MlirValue zero = const_i32(L, 0);
      MlirValue at[2] = {base, zero};
      (void)at;
      store_shared_if(L, base, et, pred, old);
      old = load_shared(L, base, et, zero);
    }
    out->v[k] = old;
  }
  put(L, r, out);
}

/* ---- control flow: scf ops with every thread's values flattened ------------------------ */

static void lower_op(Lower *L, MlirOperation op);

/* Appends the per-thread values of vs to a flat list. */
static int flatten_vals(Lower *L, MlirOperation op, int n, const MlirValue *vs, MlirValue *out, int cap) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    Vals *x = get(L, vs[i]);
    if (!x) {
      fail(L, op, "uses a value the GPU code generator has not lowered");
      return -1;
    }
    if (k + x->n > cap) {
      fail(L, op, "carries more values per thread than the GPU code generator supports yet");
      return -1;
    }
    for (int j = 0; j < x->n; j++) out[k++] = x->v[j];
  }
  return k;
}

/* Maps tile values vs to consecutive runs of flat, by their element counts. */
static void unflatten(Lower *L, int n, const MlirValue *vs, const MlirValue *flat) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    int c = count_of(L, mlirValueGetType(vs[i]));
    Vals *x = new_vals(L, c);
    for (int j = 0; j < c; j++) x->v[j] = flat[k++];
    put(L, vs[i], x);
  }
}

#define MAX_FLAT 1024

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
    lower_op(L, o);
  }
  if (!L->failed && !mlirOperationIsNull(last)) {
    int n = (int)mlirOperationGetNumOperands(last), from = extra ? 1 : 0;
    MlirValue vs[64], flat[MAX_FLAT + 1];
    for (int i = from; i < n && i - from < 64; i++) vs[i - from] = mlirOperationGetOperand(last, i);
    int k = flatten_vals(L, last, n - from, vs, flat + from, MAX_FLAT);
    if (k >= 0) {
      if (extra) flat[0] = get(L, mlirOperationGetOperand(last, 0))->v[0];
      emit(L, term_name, 0, NULL, k + from, flat, 0, NULL);
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
  MlirLocation locs[MAX_FLAT + 1];
  for (int i = 0; i < n; i++) locs[i] = mlirLocationUnknownGet(L->ctx);
  return mlirBlockCreate(n, types, locs);
}

/* Creates the lowered scf op (its regions filled), and maps the tile op's
 * results to runs of its flat results. */
static void finish_scf(Lower *L, const char *name, int k, const MlirType *types, int nops, const MlirValue *ops,
                       int nregions, MlirRegion *regions, int nres, const MlirValue *results) {
  MlirOperationState st = mlirOperationStateGet(str(name), mlirLocationUnknownGet(L->ctx));
  mlirOperationStateAddResults(&st, k, types);
  mlirOperationStateAddOperands(&st, nops, ops);
  mlirOperationStateAddOwnedRegions(&st, nregions, regions);
  MlirOperation f = mlirOperationCreate(&st);
  insert_op(L, f);
  MlirValue outs[MAX_FLAT + 1];
  for (int i = 0; i < k; i++) outs[i] = mlirOperationGetResult(f, i);
  unflatten(L, nres, results, outs);
}

static void lower_scf(Lower *L, MlirOperation op) {
  MlirValue flat[MAX_FLAT + 1];
  MlirType types[MAX_FLAT + 1];
  int nres = (int)mlirOperationGetNumResults(op);
  MlirValue results[64];
  if (nres > 64) {
    fail(L, op, "has more results than the GPU code generator supports yet");
    return;
  }
  for (int i = 0; i < nres; i++) results[i] = mlirOperationGetResult(op, i);
  if (op_is(op, "scf.for")) {
    int n = (int)mlirOperationGetNumOperands(op) - 3;
    MlirValue inits[64];
    for (int i = 0; i < n; i++) inits[i] = mlirOperationGetOperand(op, 3 + i);
    int k = flatten_vals(L, op, n, inits, flat + 3, MAX_FLAT - 3);
    if (k < 0) return;
    for (int i = 0; i < 3; i++) flat[i] = get(L, mlirOperationGetOperand(op, i))->v[0];
    MlirBlock src = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
    types[0] = mlirValueGetType(flat[0]);
    for (int i = 0; i < k; i++) types[1 + i] = mlirValueGetType(flat[3 + i]);
    MlirBlock body = new_block(L, 1 + k, types);
    MlirRegion region = mlirRegionCreate();
    mlirRegionAppendOwnedBlock(region, body);
    /* the induction variable, then the carried values */
    Vals *iv = new_vals(L, 1);
    iv->v[0] = mlirBlockGetArgument(body, 0);
    put(L, mlirBlockGetArgument(src, 0), iv);
    MlirValue args[MAX_FLAT + 1], sargs[64];
    for (int i = 0; i < k; i++) args[i] = mlirBlockGetArgument(body, 1 + i);
    for (int i = 0; i < n; i++) sargs[i] = mlirBlockGetArgument(src, 1 + i);
    unflatten(L, n, sargs, args);
    lower_region_body(L, src, body, "scf.yield", NULL);
    if (L->failed) {
      mlirRegionDestroy(region);
      return;
    }
    finish_scf(L, "scf.for", k, types + 1, 3 + k, flat, 1, &region, nres, results);
    return;
  }
  if (op_is(op, "scf.if")) {
    MlirValue cond = get(L, mlirOperationGetOperand(op, 0))->v[0];
    int k = 0;
    for (int i = 0; i < nres; i++) {
      int c = count_of(L, mlirValueGetType(results[i]));
      MlirType t = scalar_of(L, mlirValueGetType(results[i]));
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
    int k = flatten_vals(L, op, n, inits, flat, MAX_FLAT);
    if (k < 0) return;
    for (int i = 0; i < k; i++) types[i] = mlirValueGetType(flat[i]);
    MlirRegion regions[2];
    for (int b = 0; b < 2; b++) {
      regions[b] = mlirRegionCreate();
      MlirBlock blk = new_block(L, k, types);
      mlirRegionAppendOwnedBlock(regions[b], blk);
      MlirBlock src = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, b));
      MlirValue args[MAX_FLAT + 1], sargs[64];
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
  fail(L, op, "is not supported yet by the GPU code generator");
}

/* ---- fp32 math through the approximate PTX instructions ---------------------------------- */

static MlirValue intrinsic(Lower *L, const char *name, MlirValue x) {
  int32_t seg[2] = {1, 0};
  MlirNamedAttribute attrs[3] = {
      named(L, "intrin", mlirStringAttrGet(L->ctx, str(name))),
      named(L, "op_bundle_sizes", mlirDenseI32ArrayGet(L->ctx, 0, NULL)),
      named(L, "operandSegmentSizes", mlirDenseI32ArrayGet(L->ctx, 2, seg)),
  };
  return emit1(L, "llvm.call_intrinsic", mlirValueGetType(x), 1, &x, 3, attrs);
}

static MlirValue const_f32(Lower *L, double v) {
  MlirType f = mlirF32TypeGet(L->ctx);
  MlirNamedAttribute a = named(L, "value", mlirFloatAttrDoubleGet(L->ctx, f, v));
  return emit1(L, "arith.constant", f, 0, NULL, 1, &a);
}

/* exp, exp2, log, log2, rsqrt, sin, cos of fp32: Triton's fast paths
 * (ex2.approx, lg2.approx, ...); exp(x) = ex2(x * log2(e)). */
static bool fast_math(Lower *L, MlirOperation op, MlirValue r, int n) {
  static const struct {
    const char *op, *intrin;
    double pre, post; /* x * pre, then result * post (0: none) */
  } table[] = {
      {"math.exp", "llvm.nvvm.ex2.approx.f32", 1.4426950408889634, 0},
      {"math.exp2", "llvm.nvvm.ex2.approx.f32", 0, 0},
      {"math.log", "llvm.nvvm.lg2.approx.f", 0, 0.6931471805599453},
      {"math.log2", "llvm.nvvm.lg2.approx.f", 0, 0},
      {"math.rsqrt", "llvm.nvvm.rsqrt.approx.f", 0, 0},
      {"math.sin", "llvm.nvvm.sin.approx.f", 0, 0},
      {"math.cos", "llvm.nvvm.cos.approx.f", 0, 0},
  };
  for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
    if (!op_is(op, table[i].op)) continue;
    if (!mlirTypeIsAF32(scalar_of(L, mlirValueGetType(r)))) return false;
    Vals *in = get(L, mlirOperationGetOperand(op, 0)), *x = new_vals(L, n);
    for (int k = 0; k < n; k++) {
      MlirValue v = in->v[in->n == 1 ? 0 : k];
      if (table[i].pre) v = bin(L, "arith.mulf", v, const_f32(L, table[i].pre));
      v = intrinsic(L, table[i].intrin, v);
      if (table[i].post) v = bin(L, "arith.mulf", v, const_f32(L, table[i].post));
      x->v[k] = v;
    }
    put(L, r, x);
    return true;
  }
  return false;
}

/* Math the approximate instructions do not cover (erf, f64, ...): the
 * libdevice function, which cg_emit links in. f16/bf16 go through f32. */
static bool libdevice_math(Lower *L, MlirOperation op, MlirValue r, int n) {
  static const struct {
    const char *op, *fn;
  } table[] = {
      {"math.exp", "exp"},   {"math.exp2", "exp2"}, {"math.log", "log"}, {"math.log2", "log2"},
      {"math.rsqrt", "rsqrt"}, {"math.sin", "sin"}, {"math.cos", "cos"}, {"math.erf", "erf"},
      {"math.tanh", "tanh"}, {"math.powf", "pow"},
  };
  for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
    if (!op_is(op, table[i].op)) continue;
    MlirType et = scalar_of(L, mlirValueGetType(r));
    bool f64 = mlirTypeIsAF64(et), narrow = mlirTypeIsAF16(et) || mlirTypeIsABF16(et);
    if (!f64 && !narrow && !mlirTypeIsAF32(et)) return false;
    char name[64];
    snprintf(name, sizeof name, "__nv_%s%s", table[i].fn, f64 ? "" : "f");
    int nops = (int)mlirOperationGetNumOperands(op);
    Vals *ins[2];
    for (int j = 0; j < nops && j < 2; j++) ins[j] = get(L, mlirOperationGetOperand(op, j));
    MlirType f32 = mlirF32TypeGet(L->ctx), ct = narrow ? f32 : et;
    Vals *x = new_vals(L, n);
    for (int k = 0; k < n; k++) {
      MlirValue args[2];
      for (int j = 0; j < nops && j < 2; j++) {
        args[j] = ins[j]->v[ins[j]->n == 1 ? 0 : k];
        if (narrow) args[j] = emit1(L, "arith.extf", f32, 1, &args[j], 0, NULL);
      }
      MlirValue v = call(L, name, ct, nops, args);
      x->v[k] = narrow ? emit1(L, "arith.truncf", et, 1, &v, 0, NULL) : v;
    }
    put(L, r, x);
    return true;
  }
  return false;
}

/* ---- reductions ------------------------------------------------------------------- */

/* Applies a reduce op's combiner to (a[0..n), b[0..n)) into out. */
static void combine(Lower *L, MlirOperation red, int n, const MlirValue *a, const MlirValue *b, MlirValue *out) {
  MlirBlock blk = mlirRegionGetFirstBlock(mlirOperationGetRegion(red, 0));
  for (int i = 0; i < n; i++) {
    Vals *x = new_vals(L, 1), *y = new_vals(L, 1);
    x->v[0] = a[i];
    y->v[0] = b[i];
    put(L, mlirBlockGetArgument(blk, i), x);
    put(L, mlirBlockGetArgument(blk, n + i), y);
  }
  MlirOperation o = mlirBlockGetFirstOperation(blk);
  for (; !mlirOperationIsNull(mlirOperationGetNextInBlock(o)) && !L->failed; o = mlirOperationGetNextInBlock(o))
    lower_op(L, o);
  for (int i = 0; !L->failed && i < n; i++) out[i] = get(L, mlirOperationGetOperand(o, i))->v[0];
}

/* A butterfly shuffle of a scalar across the lanes of a warp. */
static MlirValue shuffle_xor(Lower *L, MlirValue v, int offset) {
  MlirType t = mlirValueGetType(v), it32 = i32(L);
  int bits = bits_of(t);
  if (bits == 64) {
    /* two 32-bit halves */
    MlirType i64 = mlirIntegerTypeGet(L->ctx, 64);
    MlirValue x = mlirTypeIsAInteger(t) ? v : emit1(L, "arith.bitcast", i64, 1, &v, 0, NULL);
    MlirValue lo = emit1(L, "arith.trunci", it32, 1, &x, 0, NULL);
    MlirValue sh = bin(L, "arith.shrui", x, emit1(L, "arith.constant", i64, 0, NULL, 1,
                                                  (MlirNamedAttribute[]){named(L, "value", mlirIntegerAttrGet(i64, 32))}));
    MlirValue hi = emit1(L, "arith.trunci", it32, 1, &sh, 0, NULL);
    lo = shuffle_xor(L, lo, offset);
    hi = shuffle_xor(L, hi, offset);
    MlirValue lo64 = emit1(L, "arith.extui", i64, 1, &lo, 0, NULL), hi64 = emit1(L, "arith.extui", i64, 1, &hi, 0, NULL);
    MlirValue r = bin(L, "arith.ori", lo64, bin(L, "arith.shli", hi64, emit1(L, "arith.constant", i64, 0, NULL, 1,
                                                                            (MlirNamedAttribute[]){named(L, "value", mlirIntegerAttrGet(i64, 32))})));
    return mlirTypeIsAInteger(t) ? r : emit1(L, "arith.bitcast", t, 1, &r, 0, NULL);
  }
  MlirValue x = v;
  if (bits < 32) {
    MlirType ib = mlirIntegerTypeGet(L->ctx, (unsigned)bits);
    if (!mlirTypeIsAInteger(t)) x = emit1(L, "arith.bitcast", ib, 1, &x, 0, NULL);
    x = emit1(L, "arith.extui", it32, 1, &x, 0, NULL);
  } else if (!mlirTypeIsAInteger(t) && !mlirTypeIsAF32(t)) {
    x = emit1(L, "arith.bitcast", it32, 1, &x, 0, NULL);
  }
  MlirValue ops[4] = {const_i32(L, -1), x, const_i32(L, offset), const_i32(L, 31)};
  MlirNamedAttribute kind = named(L, "kind", ir_parse_attr(L->pc->ic, "#nvvm<shfl_kind bfly>"));
  MlirValue r = emit1(L, "nvvm.shfl.sync", mlirValueGetType(x), 4, ops, 1, &kind);
  if (bits < 32) {
    MlirType ib = mlirIntegerTypeGet(L->ctx, (unsigned)bits);
    r = emit1(L, "arith.trunci", ib, 1, &r, 0, NULL);
    if (!mlirTypeIsAInteger(t)) r = emit1(L, "arith.bitcast", t, 1, &r, 0, NULL);
  }
  return r;
}

/* A shuffle up by offset lanes (lanes below take nothing new: the caller
 * selects); 32-bit values only. */
static MlirValue shuffle_up(Lower *L, MlirValue v, int offset) {
  MlirType t = mlirValueGetType(v);
  MlirValue x = v;
  bool cast = !mlirTypeIsAF32(t) && !(mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 32);
  if (cast) return (MlirValue){NULL};
  MlirValue ops[4] = {const_i32(L, -1), x, const_i32(L, offset), const_i32(L, 0)};
  MlirNamedAttribute kind = named(L, "kind", ir_parse_attr(L->pc->ic, "#nvvm<shfl_kind up>"));
  return emit1(L, "nvvm.shfl.sync", t, 4, ops, 1, &kind);
}

static MlirValue pick(Lower *L, MlirValue c, MlirValue a, MlirValue b) {
  MlirValue ops[3] = {c, a, b};
  return emit1(L, "arith.select", mlirValueGetType(a), 3, ops, 0, NULL);
}

static MlirValue cmp_u32(Lower *L, int pred, MlirValue a, MlirValue b) {
  MlirValue ops[2] = {a, b};
  MlirNamedAttribute p = named(L, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), pred));
  return emit1(L, "arith.cmpi", mlirIntegerTypeGet(L->ctx, 1), 2, ops, 1, &p);
}

/* tile.scan (inclusive, forward): within each thread along the axis, then
 * across its lanes (Hillis-Steele with shuffles up), then across warps
 * through shared memory; each stage's prefix is combined on the left, so
 * combine functions need not commute. */
static void lower_scan(Lower *L, MlirOperation op) {
  int n = (int)mlirOperationGetNumOperands(op);
  MlirValue src0 = mlirOperationGetOperand(op, 0);
  Elems e;
  int axis = (int)op_int_attr(op, "axis", 0);
  if (!elems_of(L, mlirValueGetType(src0), &e) || e.sliced >= 0 || e.per[axis] != e.l.spt[axis] ||
      !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("reverse")))) {
    fail(L, op, "of this layout or direction is not supported yet by the GPU code generator");
    return;
  }
  Vals *in[8], *out[8];
  for (int i = 0; i < n; i++) {
    in[i] = get(L, mlirOperationGetOperand(op, i));
    out[i] = new_vals(L, e.n);
    for (int k = 0; k < e.n; k++) out[i]->v[k] = in[i]->v[k];
  }
  /* 1. within the thread: element k after the one before it along the axis */
  for (int k = 0; k < e.n && !L->failed; k++) {
    int c[MAX_RANK] = {0};
    counters(&e, k, c);
    if (c[axis] == 0) continue;
    c[axis]--;
    int prev = element_of(&e, c);
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
  Elems groups = e;
  groups.per[axis] = 1;
  groups.n = ngroups;
  MlirValue lane_c = bin(L, "arith.remui", bin(L, "arith.divui", L->lane, const_i32(L, lane_div)), const_i32(L, l->tpw[axis]));
  MlirValue warp_c = bin(L, "arith.remui", bin(L, "arith.divui", L->warp, const_i32(L, warp_div)), const_i32(L, l->wpc[axis]));
  for (int g = 0; g < ngroups && !L->failed && (lanes > 1 || warps > 1); g++) {
    /* the elements of group g (the same counters but the axis), in axis order */
    int ks[64], nk = 0;
    for (int k = 0; k < e.n && nk < 64; k++) {
      int c[MAX_RANK] = {0};
      counters(&e, k, c);
      c[axis] = 0;
      if (element_of(&groups, c) == g) ks[nk++] = k;
    }
    MlirValue total[8];
    for (int i = 0; i < n; i++) total[i] = out[i]->v[ks[nk - 1]];
    /* 2. across lanes: inclusive scan of the totals */
    for (int step = 1; step < lanes && !L->failed; step *= 2) {
      MlirValue up[8], comb[8];
      for (int i = 0; i < n; i++) {
        up[i] = shuffle_up(L, total[i], step * lane_div);
        if (mlirValueIsNull(up[i])) {
          fail(L, op, "of values that are not 32 bits wide is not supported yet by the GPU code generator");
          return;
        }
      }
      combine(L, op, n, up, total, comb);
      MlirValue take = cmp_u32(L, 9 /* uge */, lane_c, const_i32(L, step));
      for (int i = 0; i < n; i++) total[i] = pick(L, take, comb[i], total[i]);
    }
    /* the exclusive prefix of this lane: the inclusive total of the lane before */
    MlirValue prefix[8];
    MlirValue has_prefix = cmp_u32(L, 8 /* ugt */, lane_c, const_i32(L, 0));
    for (int i = 0; i < n && lanes > 1; i++) prefix[i] = shuffle_up(L, total[i], lane_div);
    /* 3. across warps: each warp's total (its last lane) through shared memory */
    if (warps > 1 && !L->failed) {
      MlirValue base[8], last = cmp_u32(L, 0 /* eq */, lane_c, const_i32(L, (int32_t)(lanes - 1)));
      for (int i = 0; i < n; i++) {
        MlirType et = mlirValueGetType(total[i]);
        base[i] = shared_buffer(L, et, warps * 32 * L->pc->num_warps);
        /* slot: [warp coordinate][lane within the warp], one per lane group */
        MlirValue slot = bin(L, "arith.addi", bin(L, "arith.muli", warp_c, const_i32(L, 32)), bin(L, "arith.remui", L->lane, const_i32(L, lane_div)));
        store_shared_at_if(L, base[i], et, slot, last, total[i]);
      }
      MlirValue wacc[8] = {{NULL}};
      for (int w = 0; w + 1 < warps; w++) {
        MlirValue t[8], cand[8];
        MlirValue slot = bin(L, "arith.addi", const_i32(L, w * 32), bin(L, "arith.remui", L->lane, const_i32(L, lane_div)));
        for (int i = 0; i < n; i++) t[i] = load_shared(L, base[i], mlirValueGetType(total[i]), slot);
        if (w == 0) {
          for (int i = 0; i < n; i++) cand[i] = t[i];
        } else {
          combine(L, op, n, wacc, t, cand);
        }
        MlirValue before = cmp_u32(L, 8 /* ugt */, warp_c, const_i32(L, w));
        for (int i = 0; i < n; i++) wacc[i] = w == 0 ? cand[i] : pick(L, before, cand[i], wacc[i]);
      }
      /* the lane prefix gains the warps before: prefix = wacc (+) lane prefix */
      MlirValue in_later_warp = cmp_u32(L, 8 /* ugt */, warp_c, const_i32(L, 0));
      if (lanes > 1) {
        MlirValue comb[8];
        combine(L, op, n, wacc, prefix, comb);
        for (int i = 0; i < n; i++) {
          MlirValue with_lane = pick(L, has_prefix, comb[i], wacc[i]);
          prefix[i] = pick(L, in_later_warp, with_lane, prefix[i]);
        }
      } else {
        for (int i = 0; i < n; i++) prefix[i] = wacc[i];
      }
      has_prefix = bin(L, "arith.ori", has_prefix, in_later_warp);
    }
    /* every element of the group takes the prefix on its left */
    for (int j = 0; j < nk && !L->failed; j++) {
      MlirValue x[8], comb[8];
      for (int i = 0; i < n; i++) x[i] = out[i]->v[ks[j]];
      combine(L, op, n, prefix, x, comb);
      for (int i = 0; i < n; i++) out[i]->v[ks[j]] = pick(L, has_prefix, comb[i], x[i]);
    }
  }
  if (L->failed) return;
  for (int i = 0; i < n; i++) put(L, mlirOperationGetResult(op, i), out[i]);
}

/* tile.reduce: within each thread, then across the lanes holding the axis
 * (butterfly shuffles), then across warps through shared memory. Lanes and
 * warps that only replicate elements (a layout wider than the tensor) take
 * no part, so nothing is counted twice. */
static void lower_reduce(Lower *L, MlirOperation op) {
  int n = 0;
  while (n < (int)mlirOperationGetNumOperands(op)) n++;
  MlirValue src0 = mlirOperationGetOperand(op, 0);
  Elems e;
  if (!elems_of(L, mlirValueGetType(src0), &e) || e.sliced >= 0) {
    fail(L, op, "of this layout is not supported yet by the GPU code generator");
    return;
  }
  int axis = (int)op_int_attr(op, "axis", 0);
  Vals *in[8];
  for (int i = 0; i < n; i++) in[i] = get(L, mlirOperationGetOperand(op, i));
  /* 1. within the thread: one accumulator per output element */
  int nout = e.n / e.per[axis];
  MlirValue *acc = arena_alloc(L->pc->a, sizeof(MlirValue) * (size_t)(nout * n + 1));
  Elems outl = e;
  outl.per[axis] = 1;
  outl.n = nout;
  for (int k = 0; k < e.n && !L->failed; k++) {
    int c[MAX_RANK] = {0};
    counters(&e, k, c);
    int ca = c[axis];
    c[axis] = 0;
    int o = element_of(&outl, c);
    MlirValue x[8];
    for (int i = 0; i < n; i++) x[i] = in[i]->v[k];
    if (ca == 0) {
      for (int i = 0; i < n; i++) acc[o * n + i] = x[i];
    } else {
      combine(L, op, n, acc + o * n, x, acc + o * n);
    }
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
   * partials of its output elements */
  int64_t distinct_warps = e.shape[axis] / ((int64_t)l->spt[axis] * l->tpw[axis]);
  if (distinct_warps > l->wpc[axis]) distinct_warps = l->wpc[axis];
  if (distinct_warps > 1 && !L->failed) {
    int64_t m = 1; /* elements of the result */
    for (int d = 0; d < e.rank; d++)
      if (d != axis) m *= e.shape[d];
    MlirValue coord = bin(L, "arith.remui", bin(L, "arith.divui", L->warp, const_i32(L, warp_div)), const_i32(L, distinct_warps));
    MlirValue *lin = arena_alloc(L->pc->a, sizeof(MlirValue) * (size_t)(nout + 1));
    for (int o = 0; o < nout; o++) {
      lin[o] = const_i32(L, 0);
      for (int d = 0; d < e.rank; d++)
        if (d != axis) lin[o] = bin(L, "arith.addi", bin(L, "arith.muli", lin[o], const_i32(L, e.shape[d])), index_of(L, &outl, o, d));
    }
    /* one buffer per operand; the partials of all operands combine together */
    MlirValue base[8];
    for (int i = 0; i < n; i++) {
      MlirType et = mlirValueGetType(acc[i]);
      base[i] = shared_buffer(L, et, distinct_warps * m);
      for (int o = 0; o < nout; o++)
        store_shared(L, base[i], et, bin(L, "arith.addi", bin(L, "arith.muli", coord, const_i32(L, m)), lin[o]), acc[o * n + i]);
    }
    for (int o = 0; o < nout && !L->failed; o++) {
      MlirValue total[8], v[8];
      for (int i = 0; i < n; i++) total[i] = load_shared(L, base[i], mlirValueGetType(acc[i]), lin[o]);
      for (int w = 1; w < distinct_warps && !L->failed; w++) {
        for (int i = 0; i < n; i++)
          v[i] = load_shared(L, base[i], mlirValueGetType(acc[i]), bin(L, "arith.addi", const_i32(L, (int64_t)w * m), lin[o]));
        combine(L, op, n, total, v, total);
      }
      for (int i = 0; i < n; i++) acc[o * n + i] = total[i];
    }
  }
  if (L->failed) return;
  for (int i = 0; i < n; i++) {
    MlirValue r = mlirOperationGetResult(op, i);
    Vals *x = new_vals(L, nout);
    for (int o = 0; o < nout; o++) x->v[o] = acc[o * n + i];
    put(L, r, x);
  }
}

static void lower_op(Lower *L, MlirOperation op) {
  L->loc = mlirOperationGetLocation(op);
  TileOp t = tile_op_of(op);
  intptr_t nres = mlirOperationGetNumResults(op), nops = mlirOperationGetNumOperands(op);
  MlirValue r = nres ? mlirOperationGetResult(op, 0) : (MlirValue){NULL};
  MlirType rt = nres ? mlirValueGetType(r) : (MlirType){NULL};
  int n = nres ? count_of(L, rt) : 0;
  if (n < 0) {
    fail(L, op, "has a result layout the GPU code generator does not support yet");
    return;
  }
  if (op_is(op, "func.return")) return;
  if (op_is(op, "scf.for") || op_is(op, "scf.if") || op_is(op, "scf.while")) {
    lower_scf(L, op);
    return;
  }
  if (t == TOP_reduce) {
    lower_reduce(L, op);
    return;
  }
  if (t == TOP_scan) {
    lower_scan(L, op);
    return;
  }
  if (t == TOP_make_block_ptr) {
    /* base, shape (i64), strides (i64), offsets (i32): kept as they are */
    int nv = (int)nops;
    Vals *x = new_vals(L, nv);
    for (int i = 0; i < nv; i++) x->v[i] = get(L, mlirOperationGetOperand(op, i))->v[0];
    put(L, r, x);
    return;
  }
  if (t == TOP_advance) {
    Vals *b = get(L, mlirOperationGetOperand(op, 0)), *x = new_vals(L, b->n);
    int rank = (b->n - 1) / 3;
    for (int i = 0; i < b->n; i++) x->v[i] = b->v[i];
    for (int d = 0; d < rank; d++)
      x->v[1 + 2 * rank + d] = bin(L, "arith.addi", b->v[1 + 2 * rank + d], get(L, mlirOperationGetOperand(op, 1 + d))->v[0]);
    put(L, r, x);
    return;
  }
  if (t == TOP_random) {
    lower_random(L, op);
    return;
  }
  if (t == TOP_assert) {
    lower_assert(L, op);
    return;
  }
  if (t == TOP_print) {
    lower_print(L, op);
    return;
  }
  if (t == TOP_barrier) {
    emit(L, "nvvm.barrier0", 0, NULL, 0, NULL, 0, NULL);
    return;
  }
  if (t == TOP_assume) return; /* a hint: nothing to run */
  if (t == TOP_atomic_rmw || t == TOP_atomic_cas) {
    lower_atomic(L, op, t == TOP_atomic_cas);
    return;
  }
  if (t == TOP_program_id || t == TOP_num_programs) {
    static const char *const ids[2][3] = {{"nvvm.read.ptx.sreg.ctaid.x", "nvvm.read.ptx.sreg.ctaid.y", "nvvm.read.ptx.sreg.ctaid.z"},
                                          {"nvvm.read.ptx.sreg.nctaid.x", "nvvm.read.ptx.sreg.nctaid.y", "nvvm.read.ptx.sreg.nctaid.z"}};
    int axis = (int)op_int_attr(op, "axis", 0);
    Vals *x = new_vals(L, 1);
    x->v[0] = emit1(L, ids[t == TOP_num_programs][axis], i32(L), 0, NULL, 0, NULL);
    put(L, r, x);
    return;
  }
  if (t == TOP_make_range) {
    Elems e;
    elems_of(L, rt, &e);
    Vals *x = new_vals(L, e.n);
    int64_t start = op_int_attr(op, "start", 0);
    int dim = e.sliced == 0 ? 1 : 0; /* the range's dimension in the (parent) layout */
    for (int k = 0; k < e.n; k++) x->v[k] = bin(L, "arith.addi", index_of(L, &e, k, dim), const_i32(L, start));
    put(L, r, x);
    return;
  }
  if (t == TOP_splat) {
    Vals *s = get(L, mlirOperationGetOperand(op, 0)), *x = new_vals(L, n);
    for (int k = 0; k < n; k++) x->v[k] = s->v[0];
    put(L, r, x);
    return;
  }
  if (t == TOP_broadcast || t == TOP_expand_dims) {
    /* same layout family: an element reads the source element with the
     * same counters (a size-1 source dimension has a single one) */
    MlirValue src = mlirOperationGetOperand(op, 0);
    Elems es, ed;
    if (!elems_of(L, mlirValueGetType(src), &es) || !elems_of(L, rt, &ed) || es.rank != ed.rank ||
        !layout_equal(&es.l, &ed.l)) {
      fail(L, op, "between these layouts is not supported yet by the GPU code generator");
      return;
    }
    Vals *s = get(L, src), *x = new_vals(L, ed.n);
    for (int k = 0; k < ed.n; k++) {
      int c[MAX_RANK];
      counters(&ed, k, c);
      for (int d = 0; d < es.rank; d++) c[d] %= es.per[d];
      x->v[k] = s->v[element_of(&es, c)];
    }
    put(L, r, x);
    return;
  }
  if (t == TOP_trans || t == TOP_join || t == TOP_split || t == TOP_reshape || t == TOP_cat) {
    lower_shape(L, op, t);
    return;
  }
  if (t == TOP_convert_layout) {
    Layout a, b;
    if (layout_of_type(L->pc, mlirValueGetType(mlirOperationGetOperand(op, 0)), &a) && layout_of_type(L->pc, rt, &b) &&
        layout_equal(&a, &b)) {
      put(L, r, get(L, mlirOperationGetOperand(op, 0)));
      return;
    }
    lower_convert(L, op);
    return;
  }
  if (t == TOP_addptr) {
    Vals *p = get(L, mlirOperationGetOperand(op, 0)), *o = get(L, mlirOperationGetOperand(op, 1)), *x = new_vals(L, n);
    MlirType elem = scalar_of(L, pointee(L->pc, mlirTypeIsARankedTensor(rt) ? mlirShapedTypeGetElementType(rt) : rt));
    MlirNamedAttribute attrs[2] = {
        named(L, "elem_type", mlirTypeAttrGet(elem)),
        named(L, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 1, (int32_t[]){INT32_MIN})),
    };
    for (int k = 0; k < n; k++) {
      MlirValue ops[2] = {p->v[k], o->v[k]};
      x->v[k] = emit1(L, "llvm.getelementptr", mlirLLVMPointerTypeGet(L->ctx, 1), 2, ops, 2, attrs);
    }
    put(L, r, x);
    return;
  }
  if (t == TOP_load || t == TOP_store) {
    lower_load_store(L, op, t == TOP_load);
    return;
  }
  if (t == TOP_multiple_of || t == TOP_max_contiguous || t == TOP_max_constancy) {
    put(L, r, get(L, mlirOperationGetOperand(op, 0)));
    return;
  }
  if (t == TOP_NONE && (op_is(op, "arith.constant"))) {
    MlirAttribute v = mlirOperationGetAttributeByName(op, str("value"));
    if (mlirAttributeIsADenseElements(v)) {
      if (!mlirDenseElementsAttrIsSplat(v)) {
        fail(L, op, "of a non-splat tensor is not supported yet by the GPU code generator");
        return;
      }
      v = mlirDenseElementsAttrGetSplatValue(v);
    }
    MlirType st = scalar_of(L, rt);
    int fmt = f8_format(mlirAttributeGetType(v));
    if (fmt >= 0) v = mlirIntegerAttrGet(st, f8_bits(mlirFloatAttrGetValueDouble(v), fmt, false));
    MlirNamedAttribute a = named(L, "value", v);
    Vals *x = new_vals(L, n);
    MlirValue c = emit1(L, "arith.constant", st, 0, NULL, 1, &a);
    for (int k = 0; k < n; k++) x->v[k] = c;
    put(L, r, x);
    return;
  }
  if (t == TOP_NONE && lower_f8(L, op, r, n)) return;
  if (t == TOP_NONE && fast_math(L, op, r, n)) return;
  if (t == TOP_NONE && libdevice_math(L, op, r, n)) return;
  if (t == TOP_extern_elementwise) {
    MlirStringRef sym = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("symbol")));
    char name[96];
    snprintf(name, sizeof name, "%.*s", (int)sym.length, sym.data);
    Vals *ins[4];
    for (intptr_t i = 0; i < nops && i < 4; i++) ins[i] = get(L, mlirOperationGetOperand(op, i));
    Vals *x = new_vals(L, n);
    MlirType st = scalar_of(L, rt);
    for (int k = 0; k < n; k++) {
      MlirValue args[4];
      for (intptr_t i = 0; i < nops && i < 4; i++) args[i] = ins[i]->v[ins[i]->n == 1 ? 0 : k];
      x->v[k] = call(L, name, st, (int)nops, args);
    }
    put(L, r, x);
    return;
  }
  if (t == TOP_NONE && op_is_pure(op) && nres == 1 && mlirOperationGetNumRegions(op) == 0) {
    /* arith: the same op on each element's scalars */
    MlirStringRef nm = mlirIdentifierStr(mlirOperationGetName(op));
    if (nm.length > 5 && !memcmp(nm.data, "math.", 5) && !op_is(op, "math.sqrt") && !op_is(op, "math.fma") &&
        !op_is(op, "math.absf") && !op_is(op, "math.absi") && !op_is(op, "math.floor") && !op_is(op, "math.ceil")) {
      fail(L, op, "is not supported yet by the GPU code generator for this type (libdevice is not linked yet)");
      return;
    }
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)nm.length, nm.data);
    intptr_t na = mlirOperationGetNumAttributes(op);
    MlirNamedAttribute attrs[16];
    for (intptr_t i = 0; i < na && i < 16; i++) attrs[i] = mlirOperationGetAttribute(op, i);
    Vals *ins[8];
    for (intptr_t i = 0; i < nops && i < 8; i++) {
      ins[i] = get(L, mlirOperationGetOperand(op, i));
      if (!ins[i]) {
        fail(L, op, "uses a value the GPU code generator has not lowered");
        return;
      }
    }
    MlirType st = scalar_of(L, rt);
    Vals *x = new_vals(L, n);
    for (int k = 0; k < n; k++) {
      MlirValue ops[8];
      for (intptr_t i = 0; i < nops && i < 8; i++) ops[i] = ins[i]->v[ins[i]->n == 1 ? 0 : k];
      x->v[k] = emit1(L, name, st, (int)nops, ops, (int)na, attrs);
    }
    put(L, r, x);
    return;
  }
  fail(L, op, "is not supported yet by the GPU code generator");
}

static void find_dot(MlirOperation op, void *user) {
  MlirOperation *first = user;
  if (mlirOperationIsNull(*first) && tile_op_of(op) == TOP_dot) *first = op;
}

MlirModule cg_lower(PassCtx *pc, MlirOperation tile_module, const char *arch) {
  /* what is missing is said at the dot, before its operands' layouts fail */
  MlirOperation dot = {NULL};
  walk_ops(tile_module, find_dot, &dot, false);
  if (!mlirOperationIsNull(dot)) {
    mlirEmitError(mlirOperationGetLocation(dot), "tl.dot is not supported yet by the GPU code generator");
    return (MlirModule){NULL};
  }
  Lower lw = {.pc = pc, .ctx = ir_mlir(pc->ic)};
  Lower *L = &lw;
  L->aa = axis_analyze(pc, tile_module);
  (void)arch;
  MlirOperation fn = mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(tile_module, 0)));
  MlirAttribute name = mlirOperationGetAttributeByName(fn, str("sym_name"));
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(fn, 0));
  int np = (int)mlirBlockGetNumArguments(entry);
  /* the skeleton: a kernel taking pointers as !llvm.ptr<1> */
  StrBuf sb = {0};
  MlirStringRef nm = mlirStringAttrGetValue(name);
  sb_printf(&sb, "module attributes {llvm.target_triple = \"nvptx64-nvidia-cuda\"} {\n  llvm.func @%.*s(", (int)nm.length, nm.data);
  for (int i = 0; i < np; i++) {
    MlirType t = mlirValueGetType(mlirBlockGetArgument(entry, i));
    sb_printf(&sb, "%s%%a%d: ", i ? ", " : "", i);
    if (is_tile_ptr(pc, t)) sb_printf(&sb, "!llvm.ptr<1>");
    else ir_type_text(&sb, t);
  }
  sb_printf(&sb, ") attributes {nvvm.kernel, nvvm.maxntid = array<i32: %d>} {\n    llvm.return\n  }\n}\n",
            32 * pc->num_warps);
  L->out = mlirModuleCreateParse(L->ctx, mlirStringRefCreate(sb.s, sb.len));
  sb_free(&sb);
  if (mlirModuleIsNull(L->out)) fe_internal_error(__FILE__, __LINE__, "kernel skeleton does not parse");
  MlirOperation kfn = mlirBlockGetFirstOperation(mlirModuleGetBody(L->out));
  L->block = mlirRegionGetFirstBlock(mlirOperationGetRegion(kfn, 0));
  L->term = mlirBlockGetFirstOperation(L->block);
  for (int i = 0; i < np; i++) {
    Vals *x = new_vals(L, 1);
    x->v[0] = mlirBlockGetArgument(L->block, i);
    put(L, mlirBlockGetArgument(entry, i), x);
  }
  MlirValue tid = emit1(L, "nvvm.read.ptx.sreg.tid.x", i32(L), 0, NULL, 0, NULL);
  L->entry = L->block;
  L->entry_first = mlirOpResultGetOwner(tid);
  L->memo = arena_alloc(pc->a, sizeof(BinMemo) * MEMO_SLOTS);
  memset(L->memo, 0, sizeof(BinMemo) * MEMO_SLOTS);
  L->lane = bin(L, "arith.remui", tid, const_i32(L, 32));
  L->warp = bin(L, "arith.divui", tid, const_i32(L, 32));
  for (MlirOperation op = mlirBlockGetFirstOperation(entry); !mlirOperationIsNull(op) && !L->failed;
       op = mlirOperationGetNextInBlock(op))
    lower_op(L, op);
  if (L->failed) {
    mlirModuleDestroy(L->out);
    return (MlirModule){NULL};
  }
  /* shared memory: placed by liveness, then fenced where accesses race */
  SharedPlan plan;
  if (!cg_allocate_shared(pc, mlirModuleGetOperation(L->out), &plan) ||
      !cg_insert_barriers(pc, mlirModuleGetOperation(L->out), &plan)) {
    mlirModuleDestroy(L->out);
    return (MlirModule){NULL};
  }
  /* what the runtime needs to know, on the kernel */
  MlirOperation kf = mlirBlockGetFirstOperation(mlirModuleGetBody(L->out));
  while (!mlirOperationIsNull(kf) && mlirAttributeIsNull(mlirOperationGetAttributeByName(kf, str("nvvm.kernel"))))
    kf = mlirOperationGetNextInBlock(kf);
  if (!mlirOperationIsNull(kf))
    mlirOperationSetAttributeByName(kf, str("tilec.shared_bytes"), mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), plan.total));
  return L->out;
}
