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
 * This file holds what every piece uses (the map from tile values to what
 * a thread holds, the helpers that emit ops, types) and the dispatch over
 * the ops, lw_lower_op, with the lowerings of the small ones; then
 * cg_lower, which lowers a kernel. The other pieces are lower_*.c: which
 * elements a thread holds (lower_elems.c), global memory (lower_memory.c),
 * shared memory and layout conversions (lower_shared.c), shape ops and fp8
 * (lower_data.c), control flow and math (lower_control.c), reductions and
 * scans (lower_reduce.c), and Philox, asserts, prints, atomics, tl.dot and
 * inline assembly (lower_extra.c). An op with no lowering yet is reported
 * at its source position.
 */
#include "lower.h"

void lw_fail(Lower *L, MlirOperation op, const char *msg) {
  char buf[300];
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(buf, sizeof buf, "'%.*s' %s", (int)n.length, n.data, msg);
  mlirEmitError(mlirOperationGetLocation(op), buf);
  L->failed = true;
}

static int map_slot(const ValMap *m, const void *key) {
  uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
  int i = (int)(h >> 40) & (m->cap - 1);
  while (m->key[i] && m->key[i] != key) i = (i + 1) & (m->cap - 1);
  return i;
}

Vals *lw_get(Lower *L, MlirValue v) {
  if (!L->map.cap) return NULL;
  int i = map_slot(&L->map, v.ptr);
  return L->map.key[i] ? L->map.val[i] : NULL;
}

/* A value put again is rebound: the last put wins. */
void lw_put(Lower *L, MlirValue v, Vals *x) {
  ValMap *m = &L->map;
  if (2 * (m->n + 1) > m->cap) {
    ValMap g = {.cap = m->cap ? 2 * m->cap : 1024};
    g.key = arena_alloc(L->comp->a, sizeof *g.key * (size_t)g.cap);
    g.val = arena_alloc(L->comp->a, sizeof *g.val * (size_t)g.cap);
    for (int i = 0; i < m->cap; i++)
      if (m->key[i]) {
        int k = map_slot(&g, m->key[i]);
        g.key[k] = m->key[i], g.val[k] = m->val[i], g.n++;
      }
    *m = g;
  }
  int i = map_slot(m, v.ptr);
  if (!m->key[i]) m->key[i] = v.ptr, m->n++;
  m->val[i] = x;
}

Vals *lw_new_vals(Lower *L, int n) {
  Vals *x = arena_alloc(L->comp->a, sizeof *x);
  x->n = n;
  x->v = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)(n + 1));
  return x;
}

/* Puts op where the lowering is: before the block's terminator, or at its end. */
void lw_insert_op(Lower *L, MlirOperation op) {
  if (mlirOperationIsNull(L->term)) mlirBlockAppendOwnedOperation(L->block, op);
  else mlirBlockInsertOwnedOperationBefore(L->block, L->term, op);
}

/* arith and math ops with a one-to-one op in the LLVM dialect, which the
 * lowering emits directly: MLIR's dialect conversion then has little left
 * to do (it took a quarter of a compilation). Predicates number the same
 * in both; the other attributes (fastmath and overflow flags of none,
 * rounding to nearest) are the defaults and are dropped. */
static const char *const llvm_equivalents[][2] = {
    {"arith.addi", "llvm.add"},         {"arith.subi", "llvm.sub"},         {"arith.muli", "llvm.mul"},
    {"arith.divsi", "llvm.sdiv"},       {"arith.divui", "llvm.udiv"},       {"arith.remsi", "llvm.srem"},
    {"arith.remui", "llvm.urem"},       {"arith.andi", "llvm.and"},         {"arith.ori", "llvm.or"},
    {"arith.xori", "llvm.xor"},         {"arith.shli", "llvm.shl"},         {"arith.shrsi", "llvm.ashr"},
    {"arith.shrui", "llvm.lshr"},       {"arith.addf", "llvm.fadd"},        {"arith.subf", "llvm.fsub"},
    {"arith.mulf", "llvm.fmul"},        {"arith.divf", "llvm.fdiv"},        {"arith.remf", "llvm.frem"},
    {"arith.negf", "llvm.fneg"},        {"arith.cmpi", "llvm.icmp"},        {"arith.cmpf", "llvm.fcmp"},
    {"arith.select", "llvm.select"},    {"arith.constant", "llvm.mlir.constant"},
    {"arith.extsi", "llvm.sext"},       {"arith.extui", "llvm.zext"},       {"arith.trunci", "llvm.trunc"},
    {"arith.sitofp", "llvm.sitofp"},    {"arith.uitofp", "llvm.uitofp"},    {"arith.fptosi", "llvm.fptosi"},
    {"arith.fptoui", "llvm.fptoui"},    {"arith.extf", "llvm.fpext"},       {"arith.truncf", "llvm.fptrunc"},
    {"arith.bitcast", "llvm.bitcast"},  {"arith.maxnumf", "llvm.intr.maxnum"}, {"arith.minnumf", "llvm.intr.minnum"},
    {"arith.maximumf", "llvm.intr.maximum"}, {"arith.minimumf", "llvm.intr.minimum"},
    {"arith.maxsi", "llvm.intr.smax"},  {"arith.minsi", "llvm.intr.smin"},  {"arith.maxui", "llvm.intr.umax"},
    {"arith.minui", "llvm.intr.umin"},  {"math.sqrt", "llvm.intr.sqrt"},    {"math.fma", "llvm.intr.fma"},
    {"math.absf", "llvm.intr.fabs"},    {"math.floor", "llvm.intr.floor"},  {"math.ceil", "llvm.intr.ceil"},
};

MlirOperation lw_emit(Lower *L, const char *name, int nres, const MlirType *res, int nops, const MlirValue *ops,
                          int nattrs, const MlirNamedAttribute *attrs) {
  MlirLocation loc = mlirLocationIsNull(L->loc) ? mlirLocationUnknownGet(L->ctx) : L->loc;
  MlirNamedAttribute kept[4];
  if (name[0] == 'a' || name[0] == 'm')
    for (size_t i = 0; i < sizeof llvm_equivalents / sizeof *llvm_equivalents; i++)
      if (!strcmp(name, llvm_equivalents[i][0])) {
        name = llvm_equivalents[i][1];
        int n = 0;
        for (int a = 0; a < nattrs && n < 4; a++) {
          MlirStringRef an = mlirIdentifierStr(attrs[a].name);
          if ((an.length == 9 && !memcmp(an.data, "predicate", 9)) || (an.length == 5 && !memcmp(an.data, "value", 5)))
            kept[n++] = attrs[a];
        }
        attrs = kept, nattrs = n;
        break;
      }
  MlirOperationState st = mlirOperationStateGet(str(name), loc);
  if (nres) mlirOperationStateAddResults(&st, nres, res);
  if (nops) mlirOperationStateAddOperands(&st, nops, ops);
  if (nattrs) mlirOperationStateAddAttributes(&st, nattrs, attrs);
  MlirOperation op = mlirOperationCreate(&st);
  if (mlirOperationIsNull(op)) internal_error(__FILE__, __LINE__, name);
  lw_insert_op(L, op);
  return op;
}

MlirValue lw_emit1(Lower *L, const char *name, MlirType t, int nops, const MlirValue *ops, int nattrs,
                       const MlirNamedAttribute *attrs) {
  return mlirOperationGetResult(lw_emit(L, name, 1, &t, nops, ops, nattrs, attrs), 0);
}

MlirNamedAttribute lw_named(Lower *L, const char *name, MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(L->ctx, str(name)), a);
}

MlirType lw_i32(Lower *L) { return mlirIntegerTypeGet(L->ctx, 32); }

/* An i32 constant. In the kernel each value is made once, at the top of
 * the entry block (which dominates everything): fewer ops for every later
 * stage to convert, translate and optimize. */
MlirValue lw_const_i32(Lower *L, int64_t v) {
  MlirNamedAttribute a = lw_named(L, "value", mlirIntegerAttrGet(lw_i32(L), v));
  bool memo = !L->in_helper && !mlirOperationIsNull(L->entry_first);
  if (memo)
    for (int i = 0; i < L->nconsts; i++)
      if (L->const_vals[i] == v) return L->consts[i];
  if (!memo || L->nconsts == 256) return lw_emit1(L, "arith.constant", lw_i32(L), 0, NULL, 1, &a);
  MlirType t = lw_i32(L);
  MlirOperationState st = mlirOperationStateGet(str("llvm.mlir.constant"), mlirLocationUnknownGet(L->ctx));
  mlirOperationStateAddResults(&st, 1, &t);
  mlirOperationStateAddAttributes(&st, 1, &a);
  MlirOperation op = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(L->entry, L->entry_first, op);
  L->const_vals[L->nconsts] = v;
  return L->consts[L->nconsts++] = mlirOperationGetResult(op, 0);
}

/* A constant of like's integer type (an i64 loop's step, say). */
MlirValue lw_const_like(Lower *L, MlirValue like, int64_t v) {
  MlirType t = mlirValueGetType(like);
  if (mlirTypeEqual(t, lw_i32(L))) return lw_const_i32(L, v);
  MlirNamedAttribute a = lw_named(L, "value", mlirIntegerAttrGet(t, v));
  return lw_emit1(L, "arith.constant", t, 0, NULL, 1, &a);
}

static bool const_value(MlirValue v, int64_t *out) {
  if (!mlirValueIsAOpResult(v)) return false;
  MlirOperation d = mlirOpResultGetOwner(v);
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(d));
  if ((n.length != 14 || memcmp(n.data, "arith.constant", 14)) && (n.length != 18 || memcmp(n.data, "llvm.mlir.constant", 18)))
    return false;
  MlirAttribute a = mlirOperationGetAttributeByName(d, str("value"));
  if (!mlirAttributeIsAInteger(a)) return false;
  *out = mlirIntegerAttrGetValueInt(a);
  return true;
}

/* A binary op. The index arithmetic of every element repeats the thread's
 * part, so integer ops are simplified (x+0, x*1, x/1, x%1) and emitted once
 * per block they dominate: later stages see a fraction of the ops. */
MlirValue lw_bin(Lower *L, const char *name, MlirValue a, MlirValue b) {
  MlirValue ops[2] = {a, b};
  bool integer = !strncmp(name, "arith.", 6) && mlirTypeIsAInteger(mlirValueGetType(a));
  if (!integer) return lw_emit1(L, name, mlirValueGetType(a), 2, ops, 0, NULL);
  int64_t c;
  if (const_value(b, &c)) {
    if (c == 0 && (!strcmp(name, "arith.addi") || !strcmp(name, "arith.subi") || !strcmp(name, "arith.ori") ||
                   !strcmp(name, "arith.xori") || !strcmp(name, "arith.shli") || !strcmp(name, "arith.shrui")))
      return a;
    if (c == 1 && (!strcmp(name, "arith.muli") || !strcmp(name, "arith.divui"))) return a;
    if (c == 1 && !strcmp(name, "arith.remui")) return lw_const_i32(L, 0);
  }
  if (L->in_helper || !L->memo) return lw_emit1(L, name, mlirValueGetType(a), 2, ops, 0, NULL);
  uint64_t h = ((uintptr_t)a.ptr * 31 + (uintptr_t)b.ptr) * 0x9E3779B97F4A7C15ull ^ (uintptr_t)name;
  for (uint64_t i = h % MEMO_SLOTS, n = 0; n < MEMO_SLOTS; i = (i + 1) % MEMO_SLOTS, n++) {
    BinMemo *m = &L->memo[i];
    if (!m->name) {
      MlirValue r = lw_emit1(L, name, mlirValueGetType(a), 2, ops, 0, NULL);
      *m = (BinMemo){name, a.ptr, b.ptr, L->block, r};
      return r;
    }
    /* a value of the entry block, or of this block, dominates what follows */
    if (!strcmp(m->name, name) && m->a == a.ptr && m->b == b.ptr &&
        (mlirBlockEqual(m->block, L->block) || mlirBlockEqual(m->block, L->entry)))
      return m->r;
  }
  return lw_emit1(L, name, mlirValueGetType(a), 2, ops, 0, NULL);
}

/* A per-thread if (lower.h): what a side effect only some threads make goes in. */
IfScope lw_begin_if(Lower *L, MlirValue pred) {
  IfScope s = {L->block, L->term, mlirRegionCreate(), pred};
  MlirBlock tb = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(s.then_r, tb);
  L->block = tb;
  L->term = (MlirOperation){NULL};
  return s;
}

void lw_end_if(Lower *L, IfScope *s) {
  lw_emit(L, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  MlirRegion else_r = mlirRegionCreate();
  MlirBlock eb = mlirBlockCreate(0, NULL, NULL);
  mlirRegionAppendOwnedBlock(else_r, eb);
  L->block = eb;
  lw_emit(L, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  L->block = s->block;
  L->term = s->term;
  MlirOperationState st = mlirOperationStateGet(str("scf.if"), mlirLocationUnknownGet(L->ctx));
  mlirOperationStateAddOperands(&st, 1, &s->pred);
  MlirRegion regions[2] = {s->then_r, else_r};
  mlirOperationStateAddOwnedRegions(&st, 2, regions);
  MlirNamedAttribute div = lw_named(L, "tilec.divergent", mlirUnitAttrGet(L->ctx));
  mlirOperationStateAddAttributes(&st, 1, &div);
  lw_insert_op(L, mlirOperationCreate(&st));
}

/* ---- types ---------------------------------------------------------------------- */

static bool is_tile_ptr(Compilation *comp, MlirType t) { return !mlirTypeIsNull(ir_pointee(comp->ic, t)); }

/* The pointee of !tile.ptr<T>, as an MLIR type. */
static MlirType pointee(Compilation *comp, MlirType t) { return ir_pointee(comp->ic, t); }

/* The per-thread scalar type of a tile type (pointers become !llvm.ptr<1>). */

MlirType lw_scalar_of(Lower *L, MlirType t) {
  MlirType e = mlirTypeIsARankedTensor(t) ? mlirShapedTypeGetElementType(t) : t;
  if (lw_f8_format(e) >= 0) return mlirIntegerTypeGet(L->ctx, 8); /* fp8 values are their bits */
  return is_tile_ptr(L->comp, e) ? mlirLLVMPointerTypeGet(L->ctx, 1) : e;
}

int lw_bits_of(MlirType t) {
  if (mlirTypeIsAInteger(t)) return (int)mlirIntegerTypeGetWidth(t);
  if (mlirTypeIsAF16(t) || mlirTypeIsABF16(t)) return 16;
  if (mlirTypeIsAF32(t)) return 32;
  if (mlirTypeIsAF64(t)) return 64;
  return 8;
}

int64_t lw_numel_of(MlirType t) {
  int64_t n = 1;
  for (intptr_t i = 0; i < mlirShapedTypeGetRank(t); i++) n *= mlirShapedTypeGetDimSize(t, i);
  return n;
}

/* ---- ops ----------------------------------------------------------------------------- */

/* The rank of the block a block pointer type points to; 0 for others. */
int lw_block_ptr_rank(Lower *L, MlirType t) {
  if (mlirTypeIsARankedTensor(t) || !is_tile_ptr(L->comp, t)) return 0;
  MlirType b = pointee(L->comp, t);
  return mlirTypeIsARankedTensor(b) ? (int)mlirShapedTypeGetRank(b) : 0;
}

/* How many values a thread holds for a value of type t: the elements its
 * layout gives it; a block pointer is its base, shape, strides, offsets. */
int lw_count_of(Lower *L, MlirType t) {
  int br = lw_block_ptr_rank(L, t);
  if (br) return 1 + 3 * br;
  if (!mlirTypeIsARankedTensor(t)) return 1;
  Elems e;
  if (lw_elems_of(L, t, &e)) return e.n;
  /* an operand of mma.sync lives in shared memory (lower_mma.c) */
  Layout l;
  return layout_of_type(L->comp, t, &l) && l.kind == L_DOT_OP && l.parent->kind == L_MMA ? 0 : -1;
}

/* Declares `name` (a tilec.* function) with the given signature once. */
void lw_declare(Lower *L, const char *name, MlirType ret, int nargs, const MlirType *args) {
  for (int i = 0; i < L->declared.n; i++)
    if (!strcmp(L->declared.v[i], name)) return;
  vec_push(L->comp->a, &L->declared, arena_strndup(L->comp->a, name, strlen(name)));
  MlirNamedAttribute attrs[2] = {
      lw_named(L, "sym_name", mlirStringAttrGet(L->ctx, str(name))),
      lw_named(L, "function_type", mlirTypeAttrGet(mlirLLVMFunctionTypeGet(ret, nargs, args, false))),
  };
  MlirOperationState st = mlirOperationStateGet(str("llvm.func"), mlirLocationUnknownGet(L->ctx));
  mlirOperationStateAddAttributes(&st, 2, attrs);
  MlirRegion r = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&st, 1, &r);
  MlirOperation f = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperation(mlirModuleGetBody(L->out), 0, f);
}

MlirValue lw_call(Lower *L, const char *name, MlirType ret, int n, const MlirValue *args) {
  MlirOperation op = lw_call_op(L, name, ret, n, args);
  return mlirTypeIsNull(ret) ? (MlirValue){NULL} : mlirOperationGetResult(op, 0);
}

MlirOperation lw_call_op(Lower *L, const char *name, MlirType ret, int n, const MlirValue *args) {
  MlirType *types = arena_alloc(L->comp->a, sizeof(MlirType) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) types[i] = mlirValueGetType(args[i]);
  bool is_void = mlirTypeIsNull(ret);
  lw_declare(L, name, is_void ? mlirLLVMVoidTypeGet(L->ctx) : ret, n, types);
  int32_t seg[2] = {n, 0};
  MlirNamedAttribute attrs[3] = {
      lw_named(L, "callee", mlirFlatSymbolRefAttrGet(L->ctx, str(name))),
      lw_named(L, "operandSegmentSizes", mlirDenseI32ArrayGet(L->ctx, 2, seg)),
      lw_named(L, "op_bundle_sizes", mlirDenseI32ArrayGet(L->ctx, 0, NULL)),
  };
  return lw_emit(L, "llvm.call", is_void ? 0 : 1, &ret, n, args, 3, attrs);
}

/* A value as the integer of its width (for the predicated access functions). */
MlirValue lw_as_bits(Lower *L, MlirValue v) {
  MlirType t = mlirValueGetType(v);
  if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 1) /* a boolean is a byte in memory */
    return lw_emit1(L, "arith.extui", mlirIntegerTypeGet(L->ctx, 8), 1, &v, 0, NULL);
  if (mlirTypeIsAInteger(t)) return v;
  return lw_emit1(L, "arith.bitcast", mlirIntegerTypeGet(L->ctx, (unsigned)lw_bits_of(t)), 1, &v, 0, NULL);
}

MlirValue lw_from_bits(Lower *L, MlirValue v, MlirType t) {
  if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 1) { /* any nonzero byte is true */
    MlirValue ops[2] = {v, mlirOperationGetResult(lw_emit(L, "arith.constant", 1, (MlirType[]){mlirValueGetType(v)}, 0, NULL, 1,
                                                        (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(mlirValueGetType(v), 0))}), 0)};
    MlirNamedAttribute ne = lw_named(L, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), 1));
    return lw_emit1(L, "arith.cmpi", t, 2, ops, 1, &ne);
  }
  if (mlirTypeIsAInteger(t)) return v;
  return lw_emit1(L, "arith.bitcast", t, 1, &v, 0, NULL);
}

/* A result of n > LW_MAX_THREAD_ELEMS elements per thread is an error,
 * reported at the first op with a source position: constants the
 * canonicalizer merged have none, and one constant's elements are one
 * value. A dot operand counts all of K but stays in shared memory, read at
 * each step of the dot's loop over K: it is not bounded. */
static bool too_many_per_thread(Lower *L, MlirType rt, int n) {
  const char *file;
  size_t flen;
  int line, col;
  Elems e;
  if ((lw_elems_of(L, rt, &e) && e.whole) || !ir_file_pos(L->loc, &file, &flen, &line, &col)) return false;
  char msg[400], copies[80] = "";
  int warps = L->comp->num_warps;
  int64_t numel = lw_numel_of(rt), held = (int64_t)n * 32 * warps;
  if (held > numel) snprintf(copies, sizeof copies, " (its layout gives each element to %lld threads)", (long long)(held / numel));
  snprintf(msg, sizeof msg,
           "a tensor of %lld elements, %d per thread with %d warp%s%s: tilec compiles at most %d elements per "
           "thread; use a smaller block, more warps, or a loop over the block",
           (long long)numel, n, warps, warps == 1 ? "" : "s", copies, LW_MAX_THREAD_ELEMS);
  mlirEmitError(L->loc, msg);
  L->failed = true;
  return true;
}

static void lower_program_id(Lower *L, MlirOperation op, TileOp t, MlirValue r) {
  static const char *const ids[2][3] = {{"nvvm.read.ptx.sreg.ctaid.x", "nvvm.read.ptx.sreg.ctaid.y", "nvvm.read.ptx.sreg.ctaid.z"},
                                        {"nvvm.read.ptx.sreg.nctaid.x", "nvvm.read.ptx.sreg.nctaid.y", "nvvm.read.ptx.sreg.nctaid.z"}};
  int axis = (int)op_int_attr(op, "axis", 0);
  Vals *x = lw_new_vals(L, 1);
  x->v[0] = lw_emit1(L, ids[t == TOP_num_programs][axis], lw_i32(L), 0, NULL, 0, NULL);
  lw_put(L, r, x);
}

static void lower_make_range(Lower *L, MlirOperation op, MlirValue r, MlirType rt) {
  Elems e;
  lw_elems_of(L, rt, &e);
  Vals *x = lw_new_vals(L, e.n);
  int64_t start = op_int_attr(op, "start", 0);
  int dim = e.sliced == 0 ? 1 : 0; /* the range's dimension in the (parent) layout */
  for (int k = 0; k < e.n; k++) x->v[k] = lw_bin(L, "arith.addi", lw_index_of(L, &e, k, dim), lw_const_i32(L, start));
  lw_put(L, r, x);
}

static void lower_splat(Lower *L, MlirOperation op, MlirValue r, int n) {
  Vals *s = lw_get(L, mlirOperationGetOperand(op, 0)), *x = lw_new_vals(L, n);
  for (int k = 0; k < n; k++) x->v[k] = s->v[0];
  lw_put(L, r, x);
}

/* broadcast and expand_dims: same layout family, so an element reads the
 * source element with the same counters (a size-1 source dimension has a
 * single one) */
static void lower_broadcast(Lower *L, MlirOperation op, MlirValue r, MlirType rt) {
  MlirValue src = mlirOperationGetOperand(op, 0);
  Elems es, ed;
  bool ok = lw_elems_of(L, mlirValueGetType(src), &es) && lw_elems_of(L, rt, &ed) && es.rank == ed.rank &&
            es.mma == ed.mma && layout_equal(&es.l, &ed.l);
  /* a dim held whole in one and spread in the other is a conversion, unless the source's is 1 */
  for (int d = 0; ok && d < es.rank; d++) ok = !((es.whole ^ ed.whole) >> d & 1) || es.shape[d] == 1;
  if (!ok) {
    lw_fail(L, op, "between these layouts is not supported yet by the GPU code generator");
    return;
  }
  Vals *s = lw_get(L, src), *x = lw_new_vals(L, ed.n);
  for (int k = 0; k < ed.n; k++) {
    int c[MAX_RANK];
    lw_counters(&ed, k, c);
    for (int d = 0; d < es.rank; d++) c[d] %= es.per[d];
    x->v[k] = s->v[lw_element_of(&es, c)];
  }
  lw_put(L, r, x);
}

static void lower_addptr(Lower *L, MlirOperation op, MlirValue r, MlirType rt, int n) {
  Vals *p = lw_get(L, mlirOperationGetOperand(op, 0)), *o = lw_get(L, mlirOperationGetOperand(op, 1)), *x = lw_new_vals(L, n);
  MlirType elem = lw_scalar_of(L, pointee(L->comp, mlirTypeIsARankedTensor(rt) ? mlirShapedTypeGetElementType(rt) : rt));
  MlirNamedAttribute attrs[2] = {
      lw_named(L, "elem_type", mlirTypeAttrGet(elem)),
      lw_named(L, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 1, (int32_t[]){INT32_MIN})),
  };
  for (int k = 0; k < n; k++) {
    MlirValue ops[2] = {p->v[k], o->v[k]};
    x->v[k] = lw_emit1(L, "llvm.getelementptr", mlirLLVMPointerTypeGet(L->ctx, 1), 2, ops, 2, attrs);
  }
  lw_put(L, r, x);
}

/* base, shape (i64), strides (i64), offsets (i32): kept as they are */
static void lower_make_block_ptr(Lower *L, MlirOperation op, MlirValue r) {
  int nv = (int)mlirOperationGetNumOperands(op);
  Vals *x = lw_new_vals(L, nv);
  for (int i = 0; i < nv; i++) x->v[i] = lw_get(L, mlirOperationGetOperand(op, i))->v[0];
  lw_put(L, r, x);
}

static void lower_advance(Lower *L, MlirOperation op, MlirValue r) {
  Vals *b = lw_get(L, mlirOperationGetOperand(op, 0)), *x = lw_new_vals(L, b->n);
  int rank = (b->n - 1) / 3;
  for (int i = 0; i < b->n; i++) x->v[i] = b->v[i];
  for (int d = 0; d < rank; d++)
    x->v[1 + 2 * rank + d] = lw_bin(L, "arith.addi", b->v[1 + 2 * rank + d], lw_get(L, mlirOperationGetOperand(op, 1 + d))->v[0]);
  lw_put(L, r, x);
}

static void lower_extern_elementwise(Lower *L, MlirOperation op, MlirValue r, MlirType rt, int n) {
  intptr_t nops = mlirOperationGetNumOperands(op);
  MlirStringRef sym = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("symbol")));
  char name[96];
  snprintf(name, sizeof name, "%.*s", (int)sym.length, sym.data);
  Vals *ins[4];
  for (intptr_t i = 0; i < nops && i < 4; i++) ins[i] = lw_get(L, mlirOperationGetOperand(op, i));
  Vals *x = lw_new_vals(L, n);
  MlirType st = lw_scalar_of(L, rt);
  for (int k = 0; k < n; k++) {
    MlirValue args[4];
    for (intptr_t i = 0; i < nops && i < 4; i++) args[i] = ins[i]->v[ins[i]->n == 1 ? 0 : k];
    x->v[k] = lw_call(L, name, st, (int)nops, args);
  }
  lw_put(L, r, x);
}

/* griddepcontrol: expanded for sm_90 and later by the GPU end, dropped before; the emulator's grids run in order */
static void lower_gdc(Lower *L, MlirOperation op) {
  MlirStringRef k = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("kind")));
  lw_call(L, k.length && k.data[0] == 'w' ? "tilec.gdc.wait" : "tilec.gdc.launch_dependents", (MlirType){NULL}, 0, NULL);
}

/* ptr_to_int, int_to_ptr and bitcast, per element: an address to an
 * integer (ptrtoint), back (inttoptr, which zero-extends a narrower
 * integer), or a pointer to a pointer (the same address) */
static void lower_ptr_cast(Lower *L, MlirOperation op, MlirValue r, MlirType rt, int n) {
  Vals *a = lw_get(L, mlirOperationGetOperand(op, 0)), *x = lw_new_vals(L, n);
  MlirType st = lw_scalar_of(L, rt);
  for (int k = 0; k < n; k++) {
    MlirValue v = a->v[a->n == 1 ? 0 : k];
    bool from_ptr = mlirTypeIsALLVMPointerType(mlirValueGetType(v)), to_ptr = mlirTypeIsALLVMPointerType(st);
    x->v[k] = from_ptr && to_ptr ? v : lw_emit1(L, to_ptr ? "llvm.inttoptr" : "llvm.ptrtoint", st, 1, &v, 0, NULL);
  }
  lw_put(L, r, x);
}

static void lower_constant(Lower *L, MlirOperation op, MlirValue r, MlirType rt, int n) {
  MlirAttribute v = mlirOperationGetAttributeByName(op, str("value"));
  if (mlirAttributeIsADenseElements(v)) {
    if (!mlirDenseElementsAttrIsSplat(v)) {
      lw_fail(L, op, "of a non-splat tensor is not supported yet by the GPU code generator");
      return;
    }
    v = mlirDenseElementsAttrGetSplatValue(v);
  }
  MlirType st = lw_scalar_of(L, rt);
  int fmt = lw_f8_format(mlirAttributeGetType(v));
  if (fmt >= 0) v = mlirIntegerAttrGet(st, lw_f8_bits(mlirFloatAttrGetValueDouble(v), fmt, false));
  MlirNamedAttribute a = lw_named(L, "value", v);
  Vals *x = lw_new_vals(L, n);
  MlirValue c = lw_emit1(L, "arith.constant", st, 0, NULL, 1, &a);
  for (int k = 0; k < n; k++) x->v[k] = c;
  lw_put(L, r, x);
}

/* The first element of the run of equal values that element k of tile r
 * is in, within the thread: axis info's constancy (runs of equal values,
 * aligned to their length) cut to the thread's own runs. A mask
 * `offs < n` with n a multiple of 16 is one compare per four elements a
 * thread holds, as Triton deduplicates. */
static int constant_run_start(Lower *L, MlirValue r, int k) {
  Elems e;
  const AxisInfo *ai = axis_info_of(L->aa, r);
  if (!ai || !lw_elems_of(L, mlirValueGetType(r), &e) || !lw_plain(&e)) return k;
  int c[MAX_RANK] = {0};
  lw_counters(&e, k, c);
  bool moved = false;
  for (int d = 0; d < e.rank; d++) {
    int64_t run = e.l.spt[d];
    while (run > 1 && ai->constancy[d] % run) run /= 2;
    int off = (c[d] % e.l.spt[d]) % (int)run;
    if (off) c[d] -= off, moved = true;
  }
  return moved ? lw_element_of(&e, c) : k;
}

/* arith and math: the same op on each element's scalars */
static void lower_elementwise(Lower *L, MlirOperation op, MlirValue r, MlirType rt, int n) {
  intptr_t nops = mlirOperationGetNumOperands(op);
  MlirStringRef nm = mlirIdentifierStr(mlirOperationGetName(op));
  if (nm.length > 5 && !memcmp(nm.data, "math.", 5) && !op_is(op, "math.sqrt") && !op_is(op, "math.fma") &&
      !op_is(op, "math.absf") && !op_is(op, "math.absi") && !op_is(op, "math.floor") && !op_is(op, "math.ceil")) {
    lw_fail(L, op, "is not supported yet by the GPU code generator for this type (neither a fast instruction nor libdevice has it)");
    return;
  }
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)nm.length, nm.data);
  intptr_t na = mlirOperationGetNumAttributes(op);
  MlirNamedAttribute attrs[16];
  for (intptr_t i = 0; i < na && i < 16; i++) attrs[i] = mlirOperationGetAttribute(op, i);
  Vals *ins[8];
  for (intptr_t i = 0; i < nops && i < 8; i++) {
    ins[i] = lw_get(L, mlirOperationGetOperand(op, i));
    if (!ins[i]) {
      lw_fail(L, op, "uses a value the GPU code generator has not lowered");
      return;
    }
  }
  MlirType st = lw_scalar_of(L, rt);
  Vals *x = lw_new_vals(L, n);
  for (int k = 0; k < n; k++) {
    int same = constant_run_start(L, r, k);
    if (same < k) {
      x->v[k] = x->v[same];
      continue;
    }
    MlirValue ops[8];
    for (intptr_t i = 0; i < nops && i < 8; i++) ops[i] = ins[i]->v[ins[i]->n == 1 ? 0 : k];
    x->v[k] = lw_emit1(L, name, st, (int)nops, ops, (int)na, attrs);
  }
  lw_put(L, r, x);
}

/* tile.mulhiui (tl.umulhi, Philox's rounds): the high half of each
 * element's product, arith.mului_extended's second result. */
static void lower_mulhiui(Lower *L, MlirOperation op, MlirValue r, MlirType rt, int n) {
  Vals *a = lw_get(L, mlirOperationGetOperand(op, 0)), *b = lw_get(L, mlirOperationGetOperand(op, 1));
  MlirType st = lw_scalar_of(L, rt), two[2] = {st, st};
  Vals *x = lw_new_vals(L, n);
  for (int k = 0; k < n; k++) {
    MlirValue ops[2] = {a->v[a->n == 1 ? 0 : k], b->v[b->n == 1 ? 0 : k]};
    x->v[k] = mlirOperationGetResult(lw_emit(L, "arith.mului_extended", 2, two, 2, ops, 0, NULL), 1);
  }
  lw_put(L, r, x);
}

/* The ops of the other dialects: func.return, scf, constants, then arith
 * and math, through the fp8, fast-math and libdevice lowerings that claim
 * theirs before the generic one per element. */
static void lower_non_tile(Lower *L, MlirOperation op, MlirValue r, MlirType rt, int n) {
  if (op_is(op, "func.return")) return;
  if (op_is(op, "scf.for") || op_is(op, "scf.if") || op_is(op, "scf.while")) {
    lw_lower_scf(L, op);
    return;
  }
  if (op_is(op, "arith.constant")) {
    lower_constant(L, op, r, rt, n);
    return;
  }
  if (lw_lower_f8(L, op, r, n)) return;
  if (lw_fast_math(L, op, r, n)) return;
  if (lw_libdevice_math(L, op, r, n)) return;
  if (op_is_pure(op) && mlirOperationGetNumResults(op) == 1 && mlirOperationGetNumRegions(op) == 0) {
    lower_elementwise(L, op, r, rt, n);
    return;
  }
  lw_fail(L, op, "is not supported yet by the GPU code generator");
}

/* One op of the kernel, by its tile op: the switch has no default, so a
 * tile op added to TILE_OPS without a case here is a warning (an error in
 * strict builds). Ops of other dialects are TOP_NONE. */
void lw_lower_op(Lower *L, MlirOperation op) {
  L->loc = mlirOperationGetLocation(op);
  TileOp t = tile_op_of(op);
  intptr_t nres = mlirOperationGetNumResults(op);
  MlirValue r = nres ? mlirOperationGetResult(op, 0) : (MlirValue){NULL};
  MlirType rt = nres ? mlirValueGetType(r) : (MlirType){NULL};
  int n = nres ? lw_count_of(L, rt) : 0;
  if (n < 0) {
    lw_fail(L, op, "has a result layout the GPU code generator does not support yet");
    return;
  }
  if (n > LW_MAX_THREAD_ELEMS && too_many_per_thread(L, rt, n)) return;
  switch (t) {
  case TOP_NONE: lower_non_tile(L, op, r, rt, n); return;
  case TOP_program_id: case TOP_num_programs: lower_program_id(L, op, t, r); return;
  case TOP_make_range: lower_make_range(L, op, r, rt); return;
  case TOP_splat: lower_splat(L, op, r, n); return;
  case TOP_broadcast: case TOP_expand_dims: lower_broadcast(L, op, r, rt); return;
  case TOP_reshape: case TOP_trans: case TOP_join: case TOP_split: case TOP_cat: lw_lower_shape(L, op, t); return;
  case TOP_addptr: lower_addptr(L, op, r, rt, n); return;
  case TOP_load: case TOP_store: lw_lower_load_store(L, op, t == TOP_load); return;
  case TOP_atomic_rmw: case TOP_atomic_cas: lw_lower_atomic(L, op, t == TOP_atomic_cas); return;
  case TOP_dot: lw_lower_dot(L, op); return;
  case TOP_reduce: lw_lower_reduce(L, op); return;
  case TOP_scan: lw_lower_scan(L, op); return;
  case TOP_convert_layout: lw_lower_convert(L, op); return;
  case TOP_make_block_ptr: lower_make_block_ptr(L, op, r); return;
  case TOP_advance: lower_advance(L, op, r); return;
  /* irgen makes block pointers of tensor descriptors for now: these come with TMA */
  case TOP_descriptor_load: lw_lower_tma_load(L, op); return;
  case TOP_descriptor_store: lw_lower_tma_store(L, op); return;
  case TOP_make_tensor_descriptor: break;
  case TOP_extern_elementwise: lower_extern_elementwise(L, op, r, rt, n); return;
  case TOP_print: lw_lower_print(L, op); return;
  case TOP_assert: lw_lower_assert(L, op); return;
  case TOP_barrier: lw_emit(L, "nvvm.barrier0", 0, NULL, 0, NULL, 0, NULL); return;
  case TOP_gdc: lower_gdc(L, op); return;
  case TOP_assume: return; /* a hint: nothing to run */
  case TOP_multiple_of: case TOP_max_contiguous: case TOP_max_constancy:
    lw_put(L, r, lw_get(L, mlirOperationGetOperand(op, 0)));
    return;
  case TOP_ptr_to_int: case TOP_int_to_ptr: case TOP_bitcast: lower_ptr_cast(L, op, r, rt, n); return;
  case TOP_mulhiui: lower_mulhiui(L, op, r, rt, n); return;
  case TOP_philox: lw_lower_philox(L, op); return;
  case TOP_elementwise_inline_asm: lw_lower_inline_asm(L, op); return;
  case TOP_COUNT: unreachable(); /* a count, not an op */
  }
  lw_fail(L, op, "is not supported yet by the GPU code generator");
}

static void find_mma_dot(MlirOperation op, void *user) {
  Layout l;
  Compilation *comp = ((void **)user)[0];
  if (tile_op_of(op) == TOP_dot && layout_of_type(comp, mlirValueGetType(mlirOperationGetResult(op, 0)), &l) && l.kind == L_MMA)
    *(bool *)((void **)user)[1] = true;
}

/* Whether the kernel has a dot on tensor cores. */
static bool has_mma_dot(Compilation *comp, MlirOperation module) {
  bool found = false;
  void *user[2] = {comp, &found};
  walk_ops(module, find_mma_dot, user, false);
  return found;
}

MlirModule cg_lower(Compilation *comp, MlirOperation tile_module) {
  Lower lw = {.comp = comp, .ctx = ir_mlir(comp->ic)};
  Lower *L = &lw;
  MlirOperation fn = mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(tile_module, 0)));
  /* the shuffles' lane masks, the reductions' and the layouts' arithmetic
   * are those of a 32-thread warp, every NVIDIA GPU's */
  if (comp->threads_per_warp != 32) {
    diag_plain_error(comp->d, "the GPU code generator supports 32 threads per warp, not %d", comp->threads_per_warp);
    return (MlirModule){NULL};
  }
  L->aa = comp->axis ? comp->axis : axis_analyze(comp, tile_module);
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
    if (is_tile_ptr(comp, t)) sb_printf(&sb, "!llvm.ptr<1>");
    else ir_type_text(&sb, t);
  }
  /* a kernel with tensor-core dots is allowed every register (one block an
   * SM at the least): without it ptxas, when spills are unavoidable, may
   * trade registers for occupancy and give an accumulator-heavy kernel 32
   * of them (20 KB spilled, examples/matmul.py at 128x256x64); a kernel
   * without one is left to ptxas's own choice, which is better there */
  sb_printf(&sb, ") attributes {nvvm.kernel, nvvm.maxntid = array<i32: %d>%s} {\n    llvm.return\n  }\n}\n",
            comp->threads_per_warp * comp->num_warps, has_mma_dot(comp, tile_module) ? ", nvvm.minctasm = 1 : i32" : "");
  L->out = mlirModuleCreateParse(L->ctx, mlirStringRefCreate(sb.s, sb.len));
  sb_free(&sb);
  if (mlirModuleIsNull(L->out)) internal_error(__FILE__, __LINE__, "kernel skeleton does not parse");
  MlirOperation kfn = mlirBlockGetFirstOperation(mlirModuleGetBody(L->out));
  mlirOperationSetLocation(kfn, mlirOperationGetLocation(fn)); /* for errors about the whole kernel */
  L->block = mlirRegionGetFirstBlock(mlirOperationGetRegion(kfn, 0));
  L->term = mlirBlockGetFirstOperation(L->block);
  for (int i = 0; i < np; i++) {
    Vals *x = lw_new_vals(L, 1);
    x->v[0] = mlirBlockGetArgument(L->block, i);
    lw_put(L, mlirBlockGetArgument(entry, i), x);
  }
  MlirValue tid = lw_emit1(L, "nvvm.read.ptx.sreg.tid.x", lw_i32(L), 0, NULL, 0, NULL);
  L->entry = L->block;
  L->entry_first = mlirOpResultGetOwner(tid);
  L->memo = arena_alloc(comp->a, sizeof(BinMemo) * MEMO_SLOTS);
  memset(L->memo, 0, sizeof(BinMemo) * MEMO_SLOTS);
  L->tid = tid;
  L->lane = lw_bin(L, "arith.remui", tid, lw_const_i32(L, comp->threads_per_warp));
  L->warp = lw_bin(L, "arith.divui", tid, lw_const_i32(L, comp->threads_per_warp));
  for (MlirOperation op = mlirBlockGetFirstOperation(entry); !mlirOperationIsNull(op) && !L->failed;
       op = mlirOperationGetNextInBlock(op))
    lw_lower_op(L, op);
  if (!L->failed) lw_finish_tensor_maps(L, kfn);
  if (L->failed) {
    mlirModuleDestroy(L->out);
    return (MlirModule){NULL};
  }
  return L->out;
}
