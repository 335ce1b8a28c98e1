/*
 * irgen.c — the typed AST to tile IR.
 *
 * Sema has made every conversion explicit and named every builtin, so this
 * is a direct translation: one MLIR op (or a short fixed sequence) per typed
 * node. Python variables become SSA values through a table indexed by Var id;
 * the vars sema lists on an `if` or a loop become the scf op's results and
 * iteration arguments. Builtin reductions and scans become tile.reduce and
 * tile.scan with a combiner region built here, so that later stages see one
 * form for both `tl.sum` and a user's combine function.
 *
 * Every op carries its source location; code inlined from a @jit helper
 * carries a call-site location whose caller is the call.
 */
#include "irgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

typedef struct Gen {
  IrContext *ic;
  MlirContext ctx;
  Arena *a;
  Diags *d;
  const Kernel *k;
  MlirValue *vals; /* by Var id */
  MlirBlock block; /* where ops are appended */
  /* Regions being filled, not yet given to their op: destroyed if an error
   * unwinds, as nothing else owns them. Up to two per level of nesting
   * (a while's condition and body), which the language bounds, not this
   * array. */
  MlirRegion *pending;
  int npending, cap_pending;
} Gen;

static MlirRegion new_region(Gen *G) {
  if (G->npending == G->cap_pending) {
    int cap = G->cap_pending ? 2 * G->cap_pending : 64;
    MlirRegion *p = arena_alloc(G->a, sizeof *p * (size_t)cap);
    if (G->npending) memcpy(p, G->pending, sizeof *p * (size_t)G->npending);
    G->pending = p;
    G->cap_pending = cap;
  }
  MlirRegion r = mlirRegionCreate();
  G->pending[G->npending++] = r;
  return r;
}

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

_Noreturn static void gen_error(Gen *G, const TNode *at, const char *fmt, const char *arg) {
  G->d->site = at ? at->site : NULL;
  diag_error(G->d, at ? at->loc : (Loc){0}, fmt, arg);
}

/* ---- locations ---------------------------------------------------------------- */

static MlirLocation file_loc(Gen *G, Loc l) {
  if (!l.src) return mlirLocationUnknownGet(G->ctx);
  return mlirLocationFileLineColGet(G->ctx, str(l.src->name), (unsigned)l.line, (unsigned)l.col);
}

static MlirLocation site_loc(Gen *G, const InlineSite *s) {
  MlirLocation call = file_loc(G, s->call);
  return s->parent ? mlirLocationCallSiteGet(call, site_loc(G, s->parent)) : call;
}

static MlirLocation loc_of(Gen *G, const TNode *t) {
  MlirLocation l = file_loc(G, t->loc);
  return t->site ? mlirLocationCallSiteGet(l, site_loc(G, t->site)) : l;
}

/* ---- building ops --------------------------------------------------------------- */

typedef struct Attrs {
  MlirNamedAttribute v[12];
  int n;
} Attrs;

static void attr(Gen *G, Attrs *as, const char *name, MlirAttribute a) {
  if (as->n == 12) internal_error(__FILE__, __LINE__, "too many attributes");
  as->v[as->n++] = mlirNamedAttributeGet(mlirIdentifierGet(G->ctx, str(name)), a);
}

static MlirAttribute i32_attr(Gen *G, int64_t v) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(G->ctx, 32), v);
}
static MlirAttribute i64_attr(Gen *G, int64_t v) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(G->ctx, 64), v);
}
static MlirAttribute str_attr(Gen *G, const char *s) { return mlirStringAttrGet(G->ctx, str(s)); }

/* Ops whose operands (results) are a list of optional slots: see tile.irdl. */
static const struct {
  const char *name;
  int operand_slots, result_slots;
} slotted[] = {
    {"tile.reduce", 8, 8}, {"tile.scan", 8, 8}, {"tile.print", 16, 0}, {"tile.extern_elementwise", 3, 0},
};

static void slot_sizes(Gen *G, Attrs *as, const char *key, int slots, int used) {
  int32_t seg[16];
  for (int i = 0; i < slots; i++) seg[i] = i < used;
  attr(G, as, key, mlirDenseI32ArrayGet(G->ctx, slots, seg));
}

static MlirOperation build(Gen *G, const char *name, MlirLocation loc, int nres, const MlirType *res,
                           int nops, const MlirValue *ops, Attrs *as, int nregions, MlirRegion *regions) {
  Attrs local = {0};
  for (size_t i = 0; i < sizeof slotted / sizeof *slotted; i++) {
    if (strcmp(slotted[i].name, name)) continue;
    if (!as) as = &local;
    if (nops > slotted[i].operand_slots || nres > (slotted[i].result_slots ? slotted[i].result_slots : 1))
      internal_error(__FILE__, __LINE__, "too many operands for a slotted op");
    slot_sizes(G, as, "operandSegmentSizes", slotted[i].operand_slots, nops);
    if (slotted[i].result_slots) slot_sizes(G, as, "resultSegmentSizes", slotted[i].result_slots, nres);
  }
  MlirOperationState st = mlirOperationStateGet(str(name), loc);
  if (nres) mlirOperationStateAddResults(&st, nres, res);
  if (nops) mlirOperationStateAddOperands(&st, nops, ops);
  if (as && as->n) mlirOperationStateAddAttributes(&st, as->n, as->v);
  if (nregions) mlirOperationStateAddOwnedRegions(&st, nregions, regions);
  MlirOperation op = mlirOperationCreate(&st);
  if (mlirOperationIsNull(op)) internal_error(__FILE__, __LINE__, name);
  /* the op owns its regions now: they are the last ones begun */
  for (int i = 0; i < nregions; i++)
    for (int k = G->npending - 1; k >= 0; k--)
      if (G->pending[k].ptr == regions[i].ptr) {
        G->pending[k] = G->pending[--G->npending];
        break;
      }
  mlirBlockAppendOwnedOperation(G->block, op);
  return op;
}

/* One result, operands, optional attributes. */
static MlirValue op1(Gen *G, const char *name, MlirLocation loc, MlirType ty, int nops, const MlirValue *ops, Attrs *as) {
  return mlirOperationGetResult(build(G, name, loc, 1, &ty, nops, ops, as, 0, NULL), 0);
}

static MlirValue un(Gen *G, const char *name, MlirLocation loc, MlirType ty, MlirValue x) { return op1(G, name, loc, ty, 1, &x, NULL); }
static MlirValue bin(Gen *G, const char *name, MlirLocation loc, MlirValue x, MlirValue y) {
  MlirValue ops[2] = {x, y};
  return op1(G, name, loc, mlirValueGetType(x), 2, ops, NULL);
}

/* The MLIR type of a frontend type: tensor<...>, !tile.ptr<...>. */
static void type_text(StrBuf *sb, const Type *t) {
  switch (t->kind) {
  case TY_SCALAR: sb_printf(sb, "%s", ir_scalar_name(t->dtype)); return;
  case TY_PTR:
    sb_printf(sb, "!tile.ptr<");
    type_text(sb, t->elem);
    sb_putc(sb, '>');
    return;
  case TY_DESC:
    /* a tensor descriptor is, for now, a block pointer at its origin (TMA comes with sm_90's) */
    sb_printf(sb, "!tile.ptr<");
    type_text(sb, t->elem);
    sb_putc(sb, '>');
    return;
  case TY_BLOCK:
    sb_printf(sb, "tensor<");
    for (int i = 0; i < t->rank; i++) sb_printf(sb, "%lldx", (long long)t->shape[i]);
    type_text(sb, t->elem);
    sb_putc(sb, '>');
    return;
  case TY_VOID: sb_printf(sb, "none"); return;
  }
}

static MlirType ir_type(IrContext *ic, const Type *t) {
  if (t->kind == TY_SCALAR) return ir_scalar_type(ic, t->dtype);
  StrBuf sb = {0};
  type_text(&sb, t);
  MlirType r = ir_parse_type(ic, sb.s);
  sb_free(&sb);
  return r;
}

static MlirType ty_of(Gen *G, const Type *t) { return ir_type(G->ic, t); }

/* A scalar or splat constant of type ty (ints for integer types, else floats). */
static MlirValue constant(Gen *G, MlirLocation loc, MlirType ty, int64_t i, double f) {
  MlirType el = mlirTypeIsARankedTensor(ty) ? mlirShapedTypeGetElementType(ty) : ty;
  MlirAttribute a = mlirTypeIsAInteger(el) ? mlirIntegerAttrGet(el, i) : mlirFloatAttrDoubleGet(G->ctx, el, f);
  if (mlirTypeIsARankedTensor(ty)) a = mlirDenseElementsAttrSplatGet(ty, a);
  Attrs as = {0};
  attr(G, &as, "value", a);
  return op1(G, "arith.constant", loc, ty, 0, NULL, &as);
}

static bool is_float_dt(DType d) { return dtype_is_float(d); }
static DType dt_of(const Type *t) { return ty_elem(t)->dtype; }
static bool is_unsigned(const Type *t) {
  const Type *e = ty_elem(t);
  return e->kind == TY_SCALAR && dtype_is_int(e->dtype) && !dtype_is_signed(e->dtype) && e->dtype != DT_I1;
}

/* ---- attributes ------------------------------------------------------------------ */

static MlirAttribute i32_list(Gen *G, const IntList *l) { return mlirDenseI32ArrayGet(G->ctx, l->n, l->v); }

/* ---- expressions -------------------------------------------------------------------- */

static MlirValue gen_expr(Gen *G, const TNode *e);
static MlirType with_elem(Gen *G, MlirType t, MlirType el);
static void gen_block(Gen *G, const TNodeList *l, bool top);

static MlirValue gen_const(Gen *G, const TNode *e) {
  MlirType ty = ty_of(G, e->type);
  return constant(G, loc_of(G, e), ty, e->cint, e->cfloat);
}

static const char *arith_name(Gen *G, const TNode *e) {
  bool f = is_float_dt(dt_of(e->type)), u = is_unsigned(e->type);
  switch (e->op) {
  case TK_PLUS: return f ? "arith.addf" : "arith.addi";
  case TK_MINUS: return f ? "arith.subf" : "arith.subi";
  case TK_STAR: return f ? "arith.mulf" : "arith.muli";
  case TK_SLASH: return "arith.divf";
  case TK_DSLASH: return u ? "arith.divui" : "arith.divsi";
  case TK_PERCENT: return f ? "arith.remf" : u ? "arith.remui" : "arith.remsi";
  case TK_AMP: return "arith.andi";
  case TK_PIPE: return "arith.ori";
  case TK_CARET: return "arith.xori";
  case TK_SHL: return "arith.shli";
  case TK_SHR: return u ? "arith.shrui" : "arith.shrsi";
  default: gen_error(G, e, "operator %s has no lowering", tok_kind_name(e->op));
  }
}

static MlirValue gen_cmp(Gen *G, const TNode *e) {
  MlirValue a = gen_expr(G, e->a), b = gen_expr(G, e->b);
  MlirLocation loc = loc_of(G, e);
  const Type *ot = e->a->type;
  bool ptr = ty_elem(ot)->kind == TY_PTR;
  if (ptr) {
    /* pointers compare as unsigned 64-bit addresses */
    MlirType it = with_elem(G, mlirValueGetType(a), mlirIntegerTypeGet(G->ctx, 64));
    a = un(G, "tile.ptr_to_int", loc, it, a);
    b = un(G, "tile.ptr_to_int", loc, it, b);
  }
  bool f = !ptr && is_float_dt(dt_of(ot)), u = ptr || is_unsigned(ot);
  int pred;
  switch (e->op) {
  case TK_EQ: pred = f ? 1 : 0; break;
  case TK_NE: pred = f ? 13 : 1; break;
  case TK_LT: pred = f ? 4 : u ? 6 : 2; break;
  case TK_LE: pred = f ? 5 : u ? 7 : 3; break;
  case TK_GT: pred = f ? 2 : u ? 8 : 4; break;
  case TK_GE: pred = f ? 3 : u ? 9 : 5; break;
  default: gen_error(G, e, "comparison %s has no lowering", tok_kind_name(e->op));
  }
  Attrs as = {0};
  attr(G, &as, "predicate", i64_attr(G, pred));
  MlirValue ops[2] = {a, b};
  return op1(G, f ? "arith.cmpf" : "arith.cmpi", loc, ty_of(G, e->type), 2, ops, &as);
}

/* Conversions between scalar element types, per Triton's cast rules. */
static MlirValue convert(Gen *G, MlirLocation loc, MlirValue x, const Type *from_t, const Type *to_t, const TNode *at) {
  const Type *fe = ty_elem(from_t), *te = ty_elem(to_t);
  MlirType ty = ty_of(G, to_t);
  if (fe == te) return x;
  if (fe->kind == TY_PTR && te->kind == TY_PTR) return un(G, "tile.bitcast", loc, ty, x);
  if (fe->kind == TY_PTR) {
    if (te->dtype == DT_I1) {
      MlirType it = with_elem(G, ty, mlirIntegerTypeGet(G->ctx, 64));
      MlirValue i = un(G, "tile.ptr_to_int", loc, it, x);
      MlirValue zero = constant(G, loc, it, 0, 0);
      Attrs as = {0};
      attr(G, &as, "predicate", i64_attr(G, 1));
      MlirValue ops[2] = {i, zero};
      return op1(G, "arith.cmpi", loc, ty, 2, ops, &as);
    }
    return un(G, "tile.ptr_to_int", loc, ty, x);
  }
  if (te->kind == TY_PTR) return un(G, "tile.int_to_ptr", loc, ty, x);
  DType f = fe->dtype, t = te->dtype;
  bool ff = is_float_dt(f), tf = is_float_dt(t);
  if (t == DT_I1) {
    /* to bool: compare with zero */
    MlirValue zero = constant(G, loc, mlirValueGetType(x), 0, 0.0);
    Attrs as = {0};
    attr(G, &as, "predicate", i64_attr(G, ff ? 13 : 1));
    MlirValue ops[2] = {x, zero};
    return op1(G, ff ? "arith.cmpf" : "arith.cmpi", loc, ty, 2, ops, &as);
  }
  if (ff && tf) {
    int fb = dtype_bits(f), tb = dtype_bits(t);
    if (fb == tb) {
      /* fp16 <-> bf16: through fp32 */
      MlirType mid = with_elem(G, ty, mlirF32TypeGet(G->ctx));
      MlirValue w = un(G, "arith.extf", loc, mid, x);
      return un(G, "arith.truncf", loc, ty, w);
    }
    return un(G, fb < tb ? "arith.extf" : "arith.truncf", loc, ty, x);
  }
  if (!ff && !tf) {
    int fb = dtype_bits(f), tb = dtype_bits(t);
    if (fb == tb) return x; /* signedness only */
    if (fb > tb) return un(G, "arith.trunci", loc, ty, x);
    bool zext = f == DT_I1 || !dtype_is_signed(f);
    return un(G, zext ? "arith.extui" : "arith.extsi", loc, ty, x);
  }
  if (!ff) return un(G, (f == DT_I1 || !dtype_is_signed(f)) ? "arith.uitofp" : "arith.sitofp", loc, ty, x);
  (void)at;
  return un(G, dtype_is_signed(t) ? "arith.fptosi" : "arith.fptoui", loc, ty, x);
}

/* The type of t with element el, as MLIR. */
static MlirType with_elem(Gen *G, MlirType t, MlirType el) {
  if (!mlirTypeIsARankedTensor(t)) return el;
  int64_t shape[MAX_RANK];
  int r = (int)mlirShapedTypeGetRank(t);
  for (int i = 0; i < r; i++) shape[i] = mlirShapedTypeGetDimSize(t, i);
  (void)G;
  return mlirRankedTensorTypeGet(r, shape, el, mlirAttributeGetNull());
}

/* ---- reductions and scans ------------------------------------------------------------ */

/* C_ARGMAX, C_ARGMIN break ties toward the lower index; the _FAST ones
 * (tie_break_left=False) take the second pair on ties, as Triton's
 * combiners do, which saves the index comparison. */
typedef enum Combine { C_SUM, C_PROD, C_MAX, C_MIN, C_XOR, C_ARGMAX, C_ARGMIN, C_ARGMAX_FAST, C_ARGMIN_FAST } Combine;

/* Builds the combiner body: args are a0..a(n-1), b0..b(n-1); yields n values. */
static void combine_body(Gen *G, MlirLocation loc, Combine c, bool is_float, bool is_uns, MlirBlock blk, int n) {
  MlirBlock saved = G->block;
  G->block = blk;
  MlirValue a = mlirBlockGetArgument(blk, 0), b = mlirBlockGetArgument(blk, n);
  MlirValue out[2];
  int nout = 1;
  switch (c) {
  case C_SUM: out[0] = bin(G, is_float ? "arith.addf" : "arith.addi", loc, a, b); break;
  case C_PROD: out[0] = bin(G, is_float ? "arith.mulf" : "arith.muli", loc, a, b); break;
  case C_MAX: out[0] = bin(G, is_float ? "arith.maxnumf" : is_uns ? "arith.maxui" : "arith.maxsi", loc, a, b); break;
  case C_MIN: out[0] = bin(G, is_float ? "arith.minnumf" : is_uns ? "arith.minui" : "arith.minsi", loc, a, b); break;
  case C_XOR: out[0] = bin(G, "arith.xori", loc, a, b); break;
  case C_ARGMAX: case C_ARGMIN: case C_ARGMAX_FAST: case C_ARGMIN_FAST: {
    /* (value, index) pairs: the larger (smaller) value; on ties the lower index, or the second pair */
    MlirValue ia = mlirBlockGetArgument(blk, 1), ib = mlirBlockGetArgument(blk, 3);
    MlirType i1 = mlirIntegerTypeGet(G->ctx, 1);
    bool mx = c == C_ARGMAX || c == C_ARGMAX_FAST;
    Attrs p1 = {0}, p2 = {0}, p3 = {0};
    attr(G, &p1, "predicate", i64_attr(G, is_float ? (mx ? 2 : 4) : is_uns ? (mx ? 8 : 6) : (mx ? 4 : 2)));
    attr(G, &p2, "predicate", i64_attr(G, is_float ? 1 : 0));
    attr(G, &p3, "predicate", i64_attr(G, 2));
    MlirValue ab[2] = {a, b}, iab[2] = {ia, ib};
    MlirValue take = op1(G, is_float ? "arith.cmpf" : "arith.cmpi", loc, i1, 2, ab, &p1);
    if (c == C_ARGMAX || c == C_ARGMIN) {
      MlirValue eq = op1(G, is_float ? "arith.cmpf" : "arith.cmpi", loc, i1, 2, ab, &p2);
      MlirValue lower = op1(G, "arith.cmpi", loc, i1, 2, iab, &p3);
      take = bin(G, "arith.ori", loc, take, bin(G, "arith.andi", loc, eq, lower));
    }
    MlirValue s1[3] = {take, a, b}, s2[3] = {take, ia, ib};
    out[0] = op1(G, "arith.select", loc, mlirValueGetType(a), 3, s1, NULL);
    out[1] = op1(G, "arith.select", loc, mlirValueGetType(ia), 3, s2, NULL);
    nout = 2;
    break;
  }
  }
  build(G, "gpu.yield", loc, 0, NULL, nout, out, NULL, 0, NULL);
  G->block = saved;
}

/* The type of reducing tensor type t along axis. */
static MlirType reduced(MlirType t, int axis) {
  int r = (int)mlirShapedTypeGetRank(t);
  MlirType el = mlirShapedTypeGetElementType(t);
  if (r == 1) return el;
  int64_t shape[MAX_RANK];
  for (int i = 0, k = 0; i < r; i++)
    if (i != axis) shape[k++] = mlirShapedTypeGetDimSize(t, i);
  return mlirRankedTensorTypeGet(r - 1, shape, el, mlirAttributeGetNull());
}

/* tile.reduce / tile.scan of srcs along axis with a region built by fill
 * (NULL: the region of node t, a user's combine function). */
static MlirOperation reduce_op(Gen *G, MlirLocation loc, const char *opname, MlirValue *srcs, int n, int axis,
                               bool scan, bool reverse, Combine c, bool is_float, bool is_uns, const TNode *user) {
  MlirType res[8], args[16];
  MlirLocation locs[16];
  for (int i = 0; i < n; i++) {
    MlirType t = mlirValueGetType(srcs[i]);
    res[i] = scan ? t : reduced(t, axis);
    args[i] = args[n + i] = mlirShapedTypeGetElementType(t);
    locs[i] = locs[n + i] = loc;
  }
  MlirRegion region = new_region(G);
  MlirBlock blk = mlirBlockCreate(2 * n, args, locs);
  mlirRegionAppendOwnedBlock(region, blk);
  if (user) {
    for (int i = 0; i < user->ntargets; i++) G->vals[user->targets[i]->id] = mlirBlockGetArgument(blk, i);
    MlirBlock saved = G->block;
    G->block = blk;
    gen_block(G, &user->body, false);
    MlirValue out[8];
    for (int i = 0; i < user->orelse.n; i++) out[i] = gen_expr(G, user->orelse.v[i]);
    build(G, "gpu.yield", loc, 0, NULL, user->orelse.n, out, NULL, 0, NULL);
    G->block = saved;
  } else {
    combine_body(G, loc, c, is_float, is_uns, blk, n);
  }
  Attrs as = {0};
  attr(G, &as, "axis", i32_attr(G, axis));
  if (reverse) attr(G, &as, "reverse", mlirBoolAttrGet(G->ctx, 1));
  return build(G, opname, loc, n, res, n, srcs, &as, 1, &region);
}

/* A tensor of indices along axis, broadcast to the shape of t. */
static MlirValue axis_indices(Gen *G, MlirLocation loc, MlirType t, int axis) {
  int r = (int)mlirShapedTypeGetRank(t);
  int64_t n = mlirShapedTypeGetDimSize(t, axis);
  MlirType i32 = mlirIntegerTypeGet(G->ctx, 32);
  Attrs as = {0};
  attr(G, &as, "start", i32_attr(G, 0));
  attr(G, &as, "end", i32_attr(G, n));
  MlirValue v = op1(G, "tile.make_range", loc, mlirRankedTensorTypeGet(1, &n, i32, mlirAttributeGetNull()), 0, NULL, &as);
  if (r == 1) return v;
  /* [n] -> [1, .., n, .., 1] -> the shape of t */
  int64_t ones[MAX_RANK], shape[MAX_RANK];
  for (int i = 0; i < r; i++) {
    ones[i] = i == axis ? n : 1;
    shape[i] = mlirShapedTypeGetDimSize(t, i);
  }
  v = un(G, "tile.reshape", loc, mlirRankedTensorTypeGet(r, ones, i32, mlirAttributeGetNull()), v);
  return un(G, "tile.broadcast", loc, mlirRankedTensorTypeGet(r, shape, i32, mlirAttributeGetNull()), v);
}

/* Reshapes to 1-D for a reduction over every axis. */
static MlirValue flatten(Gen *G, MlirLocation loc, MlirValue x) {
  MlirType t = mlirValueGetType(x);
  int r = (int)mlirShapedTypeGetRank(t);
  if (r == 1) return x;
  int64_t n = 1;
  for (int i = 0; i < r; i++) n *= mlirShapedTypeGetDimSize(t, i);
  return un(G, "tile.reshape", loc, mlirRankedTensorTypeGet(1, &n, mlirShapedTypeGetElementType(t), mlirAttributeGetNull()), x);
}

/* Restores reduced axes as size-1 dimensions (keep_dims) to match want. */
static MlirValue keep_dims(Gen *G, MlirLocation loc, MlirValue v, const Type *want, int axis) {
  MlirType wt = ty_of(G, want);
  if (mlirTypeEqual(mlirValueGetType(v), wt)) return v;
  if (axis < 0) return un(G, "tile.reshape", loc, wt, mlirTypeIsARankedTensor(mlirValueGetType(v)) ? v : un(G, "tile.splat", loc, with_elem(G, wt, mlirValueGetType(v)), v));
  Attrs as = {0};
  attr(G, &as, "axis", i32_attr(G, axis));
  if (!mlirTypeIsARankedTensor(mlirValueGetType(v))) return un(G, "tile.splat", loc, wt, v);
  return op1(G, "tile.expand_dims", loc, wt, 1, &v, &as);
}

static Combine combine_of(ReduceKind k, bool tie_break_left) {
  switch (k) {
  case RK_sum: return C_SUM;
  case RK_prod: return C_PROD;
  case RK_max: return C_MAX;
  case RK_min: return C_MIN;
  case RK_xor: return C_XOR;
  case RK_argmax: case RK_max_with_index: return tie_break_left ? C_ARGMAX : C_ARGMAX_FAST;
  case RK_argmin: case RK_min_with_index: return tie_break_left ? C_ARGMIN : C_ARGMIN_FAST;
  case RK_combine: break; /* a region of the user's, no Combine */
  }
  unreachable();
}

/* What reductions and scans share: their inputs, axis and element kind. */
typedef struct Reduction {
  MlirLocation loc;
  ReduceKind kind;
  int axis, n;
  MlirValue srcs[8];
  bool fl, uns;
} Reduction;

static void reduction_inputs(Gen *G, const TNode *e, Reduction *r) {
  r->loc = loc_of(G, e);
  r->kind = e->attrs.reduce;
  r->axis = e->attrs.axis;
  r->n = e->args.n;
  for (int i = 0; i < r->n; i++) r->srcs[i] = gen_expr(G, e->args.v[i]);
  const Type *in = e->args.v[0]->type;
  r->fl = is_float_dt(dt_of(in));
  r->uns = is_unsigned(in);
}

/* Reduction of one call node; results in res[] (n of them). */
static int gen_reduce(Gen *G, const TNode *e, MlirValue *res) {
  Reduction rd;
  reduction_inputs(G, e, &rd);
  MlirLocation loc = rd.loc;
  ReduceKind kind = rd.kind;
  int axis = rd.axis, n = rd.n;
  bool keep = e->attrs.keep_dims, fl = rd.fl, uns = rd.uns;
  MlirValue *srcs = rd.srcs;
  if (axis < 0) {
    for (int i = 0; i < n; i++) srcs[i] = flatten(G, loc, srcs[i]);
  }
  int ax = axis < 0 ? 0 : axis;
  MlirOperation op;
  int nres;
  if (kind == RK_combine) {
    op = reduce_op(G, loc, "tile.reduce", srcs, n, ax, false, false, C_SUM, fl, uns, e);
    nres = n;
  } else {
    Combine c = combine_of(kind, e->attrs.tie_break_left);
    if (c == C_ARGMAX || c == C_ARGMIN || c == C_ARGMAX_FAST || c == C_ARGMIN_FAST) {
      srcs[1] = axis_indices(G, loc, mlirValueGetType(srcs[0]), ax);
      op = reduce_op(G, loc, "tile.reduce", srcs, 2, ax, false, false, c, fl, uns, NULL);
      nres = kind == RK_max_with_index || kind == RK_min_with_index ? 2 : 1;
      if (nres == 1) {
        MlirValue index = mlirOperationGetResult(op, 1);
        res[0] = keep ? keep_dims(G, loc, index, e->type, axis) : index;
        return 1;
      }
    } else {
      op = reduce_op(G, loc, "tile.reduce", srcs, 1, ax, false, false, c, fl, uns, NULL);
      nres = 1;
    }
  }
  for (int i = 0; i < nres; i++) {
    const Type *want = e->nres > 1 ? e->res_types[i] : e->type;
    MlirValue r = mlirOperationGetResult(op, i);
    res[i] = keep ? keep_dims(G, loc, r, want, axis) : r;
  }
  return nres;
}

static int gen_scan(Gen *G, const TNode *e, MlirValue *res) {
  Reduction rd;
  reduction_inputs(G, e, &rd);
  bool reverse = e->attrs.reverse;
  int n = rd.n;
  MlirOperation op = rd.kind == RK_combine
                         ? reduce_op(G, rd.loc, "tile.scan", rd.srcs, n, rd.axis, true, reverse, C_SUM, rd.fl, rd.uns, e)
                         : reduce_op(G, rd.loc, "tile.scan", rd.srcs, 1, rd.axis, true, reverse,
                                     combine_of(rd.kind, false), rd.fl, rd.uns, NULL);
  for (int i = 0; i < n; i++) res[i] = mlirOperationGetResult(op, i);
  return n;
}

/* ---- calls ----------------------------------------------------------------------------- */

/* libdevice's name for a function at an element type. */
static const char *libdevice_symbol(Gen *G, const char *name, DType dt) {
  if (!strncmp(name, "__nv_", 5)) return name; /* already the symbol */
  if (!strncmp(name, "fast_", 5)) return arena_printf(G->a, "__nv_%s", name);
  if (dtype_is_int(dt)) return arena_printf(G->a, "__nv_%s%s", name, dtype_bits(dt) == 64 ? "ll" : "");
  if (dt == DT_F64) return arena_printf(G->a, "__nv_%s", name);
  return arena_printf(G->a, "__nv_%sf", name);
}

/* An elementwise extern call; fp16/bf16 go through fp32 as libdevice has no half forms. */
static MlirValue extern_call(Gen *G, const TNode *e, const char *sym_name) {
  MlirLocation loc = loc_of(G, e);
  int n = e->args.n;
  MlirValue ops[4];
  DType dt = dt_of(e->args.v[0]->type);
  bool widen = dt == DT_F16 || dt == DT_BF16;
  for (int i = 0; i < n; i++) {
    ops[i] = gen_expr(G, e->args.v[i]);
    if (widen && is_float_dt(dt_of(e->args.v[i]->type)))
      ops[i] = un(G, "arith.extf", loc, with_elem(G, mlirValueGetType(ops[i]), mlirF32TypeGet(G->ctx)), ops[i]);
  }
  MlirType rty = ty_of(G, e->type);
  bool rwiden = widen && is_float_dt(dt_of(e->type));
  MlirType call_ty = rwiden ? with_elem(G, rty, mlirF32TypeGet(G->ctx)) : rty;
  Attrs as = {0};
  attr(G, &as, "symbol", str_attr(G, libdevice_symbol(G, sym_name, widen ? DT_F32 : dt)));
  attr(G, &as, "pure", mlirBoolAttrGet(G->ctx, 1));
  MlirValue r = op1(G, "tile.extern_elementwise", loc, call_ty, n, ops, &as);
  return rwiden ? un(G, "arith.truncf", loc, rty, r) : r;
}

static MlirValue minmax(Gen *G, const TNode *e, MlirValue a, MlirValue b, bool is_max) {
  bool f = is_float_dt(dt_of(e->type)), u = is_unsigned(e->type);
  bool nan = e->attrs.propagate_nan;
  const char *name = f ? (is_max ? (nan ? "arith.maximumf" : "arith.maxnumf") : (nan ? "arith.minimumf" : "arith.minnumf"))
                       : (is_max ? (u ? "arith.maxui" : "arith.maxsi") : (u ? "arith.minui" : "arith.minsi"));
  return bin(G, name, loc_of(G, e), a, b);
}

/* x / y; !ieee: Triton's default for tl.fdiv, a division that may be
 * approximate (arith's `afn`), which the GPU end makes div.full.f32 for
 * fp32. MLIR's C API has no builder for arith's fastmath attribute, so it
 * is parsed from its (fixed) syntax. */
static MlirValue divf(Gen *G, MlirLocation loc, MlirValue x, MlirValue y, bool ieee) {
  if (ieee) return bin(G, "arith.divf", loc, x, y);
  Attrs as = {0};
  attr(G, &as, "fastmath", mlirAttributeParseGet(G->ctx, mlirStringRefCreateFromCString("#arith.fastmath<afn>")));
  MlirValue ops[2] = {x, y};
  return op1(G, "arith.divf", loc, mlirValueGetType(x), 2, ops, &as);
}

/* The math dialect's op for the elementwise builtins that have one. */
static const char *math_op(CallKind k) {
  switch (k) {
  case CALL_exp: return "math.exp";
  case CALL_exp2: return "math.exp2";
  case CALL_log: return "math.log";
  case CALL_log2: return "math.log2";
  case CALL_sqrt: return "math.sqrt";
  case CALL_rsqrt: return "math.rsqrt";
  case CALL_sin: return "math.sin";
  case CALL_cos: return "math.cos";
  case CALL_erf: return "math.erf";
  case CALL_floor: return "math.floor";
  case CALL_ceil: return "math.ceil";
  default: return NULL;
  }
}

/* A call with one or several results (written to res). The switch names
 * every CallKind (no default) so that a builtin added to CALL_KINDS without
 * a lowering is a compiler warning. */
static int gen_call(Gen *G, const TNode *e, MlirValue *res) {
  const CallAttrs *ca = &e->attrs;
  MlirLocation loc = loc_of(G, e);
  MlirType rty = e->type && e->type->kind != TY_VOID && e->nres <= 1 ? ty_of(G, e->type) : (MlirType){NULL};
  Attrs as = {0};
  MlirValue ops[1 + 3 * MAX_RANK + 16];
  int n = 0;
  /* all but these take their operands in order */
  switch (e->callee) {
  case CALL_reduce: case CALL_scan: case CALL_load: case CALL_store: case CALL_atomic_rmw: case CALL_libdevice:
  case CALL_div_rn: case CALL_sqrt_rn:
    break;
  default:
    for (int i = 0; i < e->args.n; i++)
      if (e->args.v[i]) ops[n++] = gen_expr(G, e->args.v[i]);
  }

  switch (e->callee) {
  case CALL_reduce: return gen_reduce(G, e, res);
  case CALL_scan: return gen_scan(G, e, res);
  case CALL_program_id: case CALL_num_programs:
    attr(G, &as, "axis", i32_attr(G, ca->axis));
    res[0] = op1(G, e->callee == CALL_program_id ? "tile.program_id" : "tile.num_programs", loc, rty, 0, NULL, &as);
    return 1;
  case CALL_arange:
    attr(G, &as, "start", i32_attr(G, ca->start));
    attr(G, &as, "end", i32_attr(G, ca->end));
    res[0] = op1(G, "tile.make_range", loc, rty, 0, NULL, &as);
    return 1;
  case CALL_load: case CALL_store: case CALL_atomic_rmw: {
    int32_t seg[3];
    for (int i = 0; i < 3; i++) {
      seg[i] = e->args.v[i] != NULL;
      if (e->args.v[i]) ops[n++] = gen_expr(G, e->args.v[i]);
    }
    if (ca->cache && *ca->cache) attr(G, &as, "cache", str_attr(G, ca->cache));
    if (ca->evict && *ca->evict) attr(G, &as, "evict", str_attr(G, ca->evict));
    if (ca->is_volatile) attr(G, &as, "volatile", mlirUnitAttrGet(G->ctx));
    if (ca->boundary_check.n) attr(G, &as, "boundary_check", i32_list(G, &ca->boundary_check));
    if (ca->padding && *ca->padding) attr(G, &as, "padding", str_attr(G, ca->padding));
    if (e->callee == CALL_load) {
      attr(G, &as, "operandSegmentSizes", mlirDenseI32ArrayGet(G->ctx, 3, seg));
      res[0] = op1(G, "tile.load", loc, rty, n, ops, &as);
      return 1;
    }
    if (e->callee == CALL_store) {
      build(G, "tile.store", loc, 0, NULL, n, ops, &as, 0, NULL);
      return 0;
    }
    attr(G, &as, "op", str_attr(G, ca->op));
    attr(G, &as, "sem", str_attr(G, ca->sem));
    attr(G, &as, "scope", str_attr(G, ca->scope));
    res[0] = op1(G, "tile.atomic_rmw", loc, rty, n, ops, &as);
    return 1;
  }
  case CALL_atomic_cas:
    attr(G, &as, "sem", str_attr(G, ca->sem));
    attr(G, &as, "scope", str_attr(G, ca->scope));
    res[0] = op1(G, "tile.atomic_cas", loc, rty, n, ops, &as);
    return 1;
  case CALL_dot:
    if (n == 2) ops[n++] = constant(G, loc, rty, 0, 0.0);
    if (ca->input_precision && *ca->input_precision) attr(G, &as, "input_precision", str_attr(G, ca->input_precision));
    if (ca->has & CA_IMPRECISE_ACC) attr(G, &as, "max_num_imprecise_acc", i32_attr(G, ca->max_num_imprecise_acc));
    res[0] = op1(G, "tile.dot", loc, rty, n, ops, &as);
    return 1;
  case CALL_maximum: case CALL_minimum:
    res[0] = minmax(G, e, ops[0], ops[1], e->callee == CALL_maximum);
    return 1;
  case CALL_clamp: {
    bool nan = ca->propagate_nan;
    MlirValue lo = bin(G, nan ? "arith.maximumf" : "arith.maxnumf", loc, ops[0], ops[1]);
    res[0] = bin(G, nan ? "arith.minimumf" : "arith.minnumf", loc, lo, ops[2]);
    return 1;
  }
  case CALL_fma:
    res[0] = op1(G, "math.fma", loc, rty, 3, ops, NULL);
    return 1;
  case CALL_cdiv: {
    bool u = is_unsigned(e->type);
    MlirValue one = constant(G, loc, rty, 1, 0);
    MlirValue s = bin(G, "arith.subi", loc, bin(G, "arith.addi", loc, ops[0], ops[1]), one);
    res[0] = bin(G, u ? "arith.divui" : "arith.divsi", loc, s, ops[1]);
    return 1;
  }
  case CALL_umulhi: {
    MlirType two[2] = {rty, rty};
    MlirOperation op = build(G, "arith.mului_extended", loc, 2, two, 2, ops, NULL, 0, NULL);
    res[0] = mlirOperationGetResult(op, 1);
    return 1;
  }
  case CALL_fdiv:
    res[0] = divf(G, loc, ops[0], ops[1], ca->ieee_rounding);
    return 1;
  case CALL_div_rn: /* libdevice names these by type in front: __nv_fdiv_rn, __nv_ddiv_rn */
    res[0] = extern_call(G, e, dt_of(e->type) == DT_F64 ? "__nv_ddiv_rn" : "__nv_fdiv_rn");
    return 1;
  case CALL_sqrt_rn:
    res[0] = extern_call(G, e, dt_of(e->type) == DT_F64 ? "__nv_dsqrt_rn" : "__nv_fsqrt_rn");
    return 1;
  case CALL_libdevice:
    res[0] = extern_call(G, e, ca->symbol);
    return 1;
  case CALL_exp: case CALL_exp2: case CALL_log: case CALL_log2: case CALL_sqrt: case CALL_rsqrt: case CALL_sin:
  case CALL_cos: case CALL_erf: case CALL_floor: case CALL_ceil:
    res[0] = un(G, math_op(e->callee), loc, rty, ops[0]);
    return 1;
  case CALL_abs:
    res[0] = un(G, is_float_dt(dt_of(e->type)) ? "math.absf" : "math.absi", loc, rty, ops[0]);
    return 1;
  case CALL_sigmoid: {
    /* 1 / (1 + exp(-x)) */
    MlirValue neg = un(G, "arith.negf", loc, rty, ops[0]);
    MlirValue one = constant(G, loc, rty, 1, 1.0);
    res[0] = bin(G, "arith.divf", loc, one, bin(G, "arith.addf", loc, one, un(G, "math.exp", loc, rty, neg)));
    return 1;
  }
  case CALL_softmax: {
    /* exp(x - max(x)) / sum(exp(x - max(x))) along axis */
    int axis = ca->axis;
    MlirValue x = ops[0];
    MlirOperation mx = reduce_op(G, loc, "tile.reduce", &x, 1, axis, false, false, C_MAX, true, false, NULL);
    Attrs ea = {0};
    attr(G, &ea, "axis", i32_attr(G, axis));
    MlirType t = mlirValueGetType(x);
    int r = (int)mlirShapedTypeGetRank(t);
    int64_t kshape[MAX_RANK];
    for (int i = 0; i < r; i++) kshape[i] = i == axis ? 1 : mlirShapedTypeGetDimSize(t, i);
    MlirType kt = mlirRankedTensorTypeGet(r, kshape, mlirShapedTypeGetElementType(t), mlirAttributeGetNull());
    MlirValue m = mlirOperationGetResult(mx, 0);
    m = r == 1 ? un(G, "tile.splat", loc, kt, m) : op1(G, "tile.expand_dims", loc, kt, 1, &m, &ea);
    m = un(G, "tile.broadcast", loc, t, m);
    MlirValue num = un(G, "math.exp", loc, t, bin(G, "arith.subf", loc, x, m));
    MlirOperation sm = reduce_op(G, loc, "tile.reduce", &num, 1, axis, false, false, C_SUM, true, false, NULL);
    MlirValue s = mlirOperationGetResult(sm, 0);
    s = r == 1 ? un(G, "tile.splat", loc, kt, s) : op1(G, "tile.expand_dims", loc, kt, 1, &s, &ea);
    s = un(G, "tile.broadcast", loc, t, s);
    res[0] = divf(G, loc, num, s, ca->ieee_rounding); /* as Triton's softmax, through fdiv */
    return 1;
  }
  case CALL_fp_downcast:
    /* arith's rounding modes are an i32 enum: 0 to nearest even, 3 toward zero */
    attr(G, &as, "roundingmode", mlirIntegerAttrGet(mlirIntegerTypeGet(G->ctx, 32), ca->round_to_zero ? 3 : 0));
    res[0] = op1(G, "arith.truncf", loc, rty, 1, ops, &as);
    return 1;
  case CALL_reshape:
    if (ca->can_reorder) attr(G, &as, "allow_reorder", mlirUnitAttrGet(G->ctx));
    res[0] = op1(G, "tile.reshape", loc, rty, 1, ops, &as);
    return 1;
  case CALL_trans:
    attr(G, &as, "order", i32_list(G, &ca->order));
    res[0] = op1(G, "tile.trans", loc, rty, 1, ops, &as);
    return 1;
  case CALL_join: case CALL_cat:
    res[0] = op1(G, e->callee == CALL_join ? "tile.join" : "tile.cat", loc, rty, 2, ops, NULL);
    return 1;
  case CALL_split: {
    MlirType two[2] = {ty_of(G, e->res_types[0]), ty_of(G, e->res_types[1])};
    MlirOperation op = build(G, "tile.split", loc, 2, two, 1, ops, NULL, 0, NULL);
    res[0] = mlirOperationGetResult(op, 0);
    res[1] = mlirOperationGetResult(op, 1);
    return 2;
  }
  case CALL_make_block_ptr: {
    int r = (n - 1) / 3;
    int32_t seg[4] = {1, r, r, r};
    attr(G, &as, "operandSegmentSizes", mlirDenseI32ArrayGet(G->ctx, 4, seg));
    attr(G, &as, "order", i32_list(G, &ca->order));
    res[0] = op1(G, "tile.make_block_ptr", loc, rty, n, ops, &as);
    return 1;
  }
  case CALL_advance:
    res[0] = op1(G, "tile.advance", loc, rty, n, ops, NULL);
    return 1;
  /* Tensor descriptors are lowered as block pointers for now: one made at
   * the origin, row-major, and each access advanced to its offsets with
   * every dimension bounds-checked (out of bounds reads give the padding,
   * zero by default; out of bounds writes are dropped), as Triton defines
   * descriptor accesses. */
  case CALL_make_tensor_descriptor: {
    int r = (n - 1) / 2;
    int32_t seg[4] = {1, r, r, r};
    attr(G, &as, "operandSegmentSizes", mlirDenseI32ArrayGet(G->ctx, 4, seg));
    IntList order = {.n = r};
    for (int i = 0; i < r; i++) order.v[i] = r - 1 - i;
    attr(G, &as, "order", i32_list(G, &order));
    for (int i = 0; i < r; i++) ops[n++] = constant(G, loc, ir_scalar_type(G->ic, DT_I32), 0, 0.0);
    res[0] = op1(G, "tile.make_block_ptr", loc, rty, n, ops, &as);
    return 1;
  }
  case CALL_desc_load: case CALL_desc_store: {
    bool load = e->callee == CALL_desc_load;
    const TNode *d = e->args.v[0];
    int r = d->type->elem->rank, first = load ? 1 : 2;
    MlirValue adv[1 + MAX_RANK];
    adv[0] = ops[0];
    for (int i = 0; i < r; i++) adv[1 + i] = ops[first + i];
    MlirValue moved = op1(G, "tile.advance", loc, ty_of(G, d->type), 1 + r, adv, NULL);
    IntList dims = {.n = r};
    for (int i = 0; i < r; i++) dims.v[i] = i;
    attr(G, &as, "boundary_check", i32_list(G, &dims));
    if (load) {
      attr(G, &as, "padding", str_attr(G, "zero"));
      int32_t seg[3] = {1, 0, 0};
      attr(G, &as, "operandSegmentSizes", mlirDenseI32ArrayGet(G->ctx, 3, seg));
      res[0] = op1(G, "tile.load", loc, rty, 1, &moved, &as);
      return 1;
    }
    MlirValue sops[2] = {moved, ops[1]};
    build(G, "tile.store", loc, 0, NULL, 2, sops, &as, 0, NULL);
    return 0;
  }
  case CALL_multiple_of: case CALL_max_contiguous: case CALL_max_constancy:
    attr(G, &as, "values", i32_list(G, &ca->values));
    res[0] = op1(G, arena_printf(G->a, "tile.%s", call_kind_name(e->callee)), loc, rty, 1, ops, &as);
    return 1;
  case CALL_assume:
    build(G, "tile.assume", loc, 0, NULL, 1, ops, NULL, 0, NULL);
    return 0;
  case CALL_device_print:
    attr(G, &as, "prefix", str_attr(G, ca->prefix));
    if (ca->hex) attr(G, &as, "hex", mlirUnitAttrGet(G->ctx));
    build(G, "tile.print", loc, 0, NULL, n, ops, &as, 0, NULL);
    return 0;
  case CALL_device_assert:
    attr(G, &as, "message", str_attr(G, ca->msg));
    attr(G, &as, "file", str_attr(G, e->loc.src ? e->loc.src->name : ""));
    attr(G, &as, "line", i32_attr(G, e->loc.line));
    attr(G, &as, "function", str_attr(G, G->k->name));
    build(G, "tile.assert", loc, 0, NULL, 1, ops, &as, 0, NULL);
    return 0;
  case CALL_gdc:
    attr(G, &as, "kind", str_attr(G, ca->kind));
    build(G, "tile.gdc", loc, 0, NULL, 0, NULL, &as, 0, NULL);
    return 0;
  case CALL_debug_barrier:
    build(G, "tile.barrier", loc, 0, NULL, 0, NULL, NULL, 0, NULL);
    return 0;
  case CALL_random: {
    attr(G, &as, "kind", str_attr(G, ca->kind));
    attr(G, &as, "n_rounds", i32_attr(G, ca->n_rounds));
    int nr = e->nres > 1 ? e->nres : 1;
    MlirType rt[4];
    for (int i = 0; i < nr; i++) rt[i] = ty_of(G, e->nres > 1 ? e->res_types[i] : e->type);
    MlirOperation op = build(G, "tile.random", loc, nr, rt, n, ops, &as, 0, NULL);
    for (int i = 0; i < nr; i++) res[i] = mlirOperationGetResult(op, i);
    return nr;
  }
  case CALL_COUNT: break;
  }
  unreachable();
}

static MlirValue gen_expr(Gen *G, const TNode *e) {
  MlirLocation loc = loc_of(G, e);
  switch (e->kind) {
  case T_CONST: return gen_const(G, e);
  case T_VAR: {
    MlirValue v = G->vals[e->var->id];
    if (mlirValueIsNull(v)) gen_error(G, e, "internal: '%s' is read before it is defined", e->var->name);
    return v;
  }
  case T_BINOP: {
    MlirValue a = gen_expr(G, e->a), b = gen_expr(G, e->b);
    return bin(G, arith_name(G, e), loc, a, b);
  }
  case T_UNOP: {
    MlirValue x = gen_expr(G, e->a);
    MlirType ty = ty_of(G, e->type);
    switch (e->op) {
    case TK_PLUS: return x;
    case TK_MINUS:
      if (is_float_dt(dt_of(e->type))) return un(G, "arith.negf", loc, ty, x);
      return bin(G, "arith.subi", loc, constant(G, loc, ty, 0, 0), x);
    case TK_TILDE: return bin(G, "arith.xori", loc, x, constant(G, loc, ty, -1, 0));
    case TK_KW_not: return bin(G, "arith.xori", loc, x, constant(G, loc, ty, 1, 0));
    default: gen_error(G, e, "unary %s has no lowering", tok_kind_name(e->op));
    }
  }
  case T_CMP: return gen_cmp(G, e);
  case T_CAST: return convert(G, loc, gen_expr(G, e->a), e->a->type, e->type, e);
  case T_BITCAST: {
    MlirValue x = gen_expr(G, e->a);
    bool ptr = ty_elem(e->type)->kind == TY_PTR || ty_elem(e->a->type)->kind == TY_PTR;
    return un(G, ptr ? "tile.bitcast" : "arith.bitcast", loc, ty_of(G, e->type), x);
  }
  case T_SPLAT: return un(G, "tile.splat", loc, ty_of(G, e->type), gen_expr(G, e->a));
  case T_BROADCAST: return un(G, "tile.broadcast", loc, ty_of(G, e->type), gen_expr(G, e->a));
  case T_EXPAND_DIMS: {
    MlirValue x = gen_expr(G, e->a);
    Attrs as = {0};
    attr(G, &as, "axis", i32_attr(G, e->axis));
    return op1(G, "tile.expand_dims", loc, ty_of(G, e->type), 1, &x, &as);
  }
  case T_SELECT: {
    MlirValue ops[3] = {gen_expr(G, e->c), gen_expr(G, e->a), gen_expr(G, e->b)};
    return op1(G, "arith.select", loc, ty_of(G, e->type), 3, ops, NULL);
  }
  case T_ADDPTR: {
    MlirValue ops[2] = {gen_expr(G, e->a), gen_expr(G, e->b)};
    return op1(G, "tile.addptr", loc, ty_of(G, e->type), 2, ops, NULL);
  }
  case T_CALL: {
    MlirValue res[8];
    int n = gen_call(G, e, res);
    if (n == 0) return (MlirValue){NULL}; /* a call with no result */
    return res[0];
  }
  default: gen_error(G, e, "%s", "this expression has no lowering");
  }
}

/* ---- statements -------------------------------------------------------------------------- */

static int var_count(Gen *G) { return G->k->nvars; }

static MlirValue *save_vals(Gen *G) {
  MlirValue *s = arena_alloc(G->a, sizeof(MlirValue) * (size_t)(var_count(G) + 1));
  memcpy(s, G->vals, sizeof(MlirValue) * (size_t)var_count(G));
  return s;
}

static void restore_vals(Gen *G, MlirValue *s) { memcpy(G->vals, s, sizeof(MlirValue) * (size_t)var_count(G)); }

/* What follows a statement list in the kernel's body, outside loops: the
 * rest of each enclosing list, innermost first. */
typedef struct Cont {
  TNodeList rest;
  const struct Cont *next;
} Cont;

/* A return in l or in the branches of its ifs (sema allows none in loops). */
static bool has_return(const TNodeList *l) {
  for (int i = 0; i < l->n; i++)
    if (l->v[i]->kind == T_RETURN || (l->v[i]->kind == T_IF && (has_return(&l->v[i]->body) || has_return(&l->v[i]->orelse))))
      return true;
  return false;
}

static void gen_seq(Gen *G, const TNodeList *l, const Cont *cont);

/* Emits an `if`: results are the statement's target vars. When rest is
 * given, it is the code after an `if` whose branch returns: it runs in the
 * other branch, so that the kernel's early exit needs no unstructured jump. */
/* cont: the if holds a return; each branch runs on to the end of the
 * kernel (what follows the if is generated in the branches that reach it),
 * so the if yields nothing. */
static void gen_if(Gen *G, const TNode *s, const Cont *cont) {
  MlirLocation loc = loc_of(G, s);
  MlirValue cond = gen_expr(G, s->c);
  MlirValue *before = save_vals(G);
  int nt = cont ? 0 : s->ntargets;
  MlirType res[64];
  if (nt > 64) gen_error(G, s, "%s", "an 'if' assigning more than 64 variables is not supported");
  MlirRegion regions[2];
  const TNodeList *bodies[2] = {&s->body, &s->orelse};
  MlirValue *after[2];
  for (int b = 0; b < 2; b++) {
    restore_vals(G, before);
    regions[b] = new_region(G);
    MlirBlock blk = mlirBlockCreate(0, NULL, NULL);
    mlirRegionAppendOwnedBlock(regions[b], blk);
    MlirBlock saved = G->block;
    G->block = blk;
    if (cont) gen_seq(G, bodies[b], cont);
    else gen_block(G, bodies[b], false);
    MlirValue y[64];
    for (int i = 0; i < nt; i++) {
      y[i] = G->vals[s->targets[i]->id];
      if (mlirValueIsNull(y[i])) gen_error(G, s, "internal: '%s' has no value at the end of a branch", s->targets[i]->name);
      res[i] = mlirValueGetType(y[i]);
    }
    build(G, "scf.yield", loc, 0, NULL, nt, y, NULL, 0, NULL);
    after[b] = save_vals(G);
    G->block = saved;
  }
  MlirOperation op = build(G, "scf.if", loc, nt, res, 1, &cond, NULL, 2, regions);
  restore_vals(G, before);
  (void)after;
  for (int i = 0; i < nt; i++) G->vals[s->targets[i]->id] = mlirOperationGetResult(op, i);
}

static MlirValue cmp_sgt(Gen *G, MlirLocation loc, MlirValue x, MlirValue y) {
  Attrs as = {0};
  attr(G, &as, "predicate", i64_attr(G, 4));
  MlirValue ops[2] = {x, y};
  return op1(G, "arith.cmpi", loc, mlirIntegerTypeGet(G->ctx, 1), 2, ops, &as);
}

static MlirValue select3(Gen *G, MlirLocation loc, MlirValue c, MlirValue x, MlirValue y) {
  MlirValue ops[3] = {c, x, y};
  return op1(G, "arith.select", loc, mlirValueGetType(x), 3, ops, NULL);
}

/* Python's len(range(lo, hi, st)): (|hi - lo| - 1) / |st| + 1 when the
 * range is not empty, else 0. The span and |st| are unsigned, so bounds
 * near the type's limits (and st = INT_MIN) do not overflow. down: st is
 * a negative constant; otherwise its sign is tested here, and a zero step
 * gives no iterations (and no division by zero). */
static MlirValue trip_count(Gen *G, MlirLocation loc, MlirValue lo, MlirValue hi, MlirValue st, bool down) {
  MlirType t = mlirValueGetType(lo);
  MlirValue zero = constant(G, loc, t, 0, 0), one = constant(G, loc, t, 1, 0);
  MlirValue span = bin(G, "arith.subi", loc, lo, hi), ok = cmp_sgt(G, loc, lo, hi);
  MlirValue mag = bin(G, "arith.subi", loc, zero, st);
  if (!down) {
    MlirValue up = cmp_sgt(G, loc, st, zero);
    span = select3(G, loc, up, bin(G, "arith.subi", loc, hi, lo), span);
    ok = select3(G, loc, up, cmp_sgt(G, loc, hi, lo), bin(G, "arith.andi", loc, ok, cmp_sgt(G, loc, zero, st)));
    mag = select3(G, loc, ok, select3(G, loc, up, st, mag), one);
  }
  MlirValue q = bin(G, "arith.addi", loc, bin(G, "arith.divui", loc, bin(G, "arith.subi", loc, span, one), mag), one);
  return select3(G, loc, ok, q, zero);
}

/* A step that code generation knows to be positive: a constant, or
 * tl.num_programs (at least 1), the step of grid-stride loops. */
static bool step_positive(const TNode *st_node, MlirValue st) {
  if (st_node->kind == T_CONST) return st_node->cint > 0;
  if (!mlirValueIsAOpResult(st)) return false;
  return mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(mlirOpResultGetOwner(st))),
                            mlirStringRefCreateFromCString("tile.num_programs"));
}

static void gen_for(Gen *G, const TNode *s) {
  MlirLocation loc = loc_of(G, s);
  MlirValue lb = gen_expr(G, s->a), ub = gen_expr(G, s->b), st = gen_expr(G, s->c);
  /* scf.for counts up by a positive step. Any other step (a negative
   * constant, or a runtime one of either sign: Triton 3.9 takes it to be
   * positive, and a negative one silently runs the wrong iterations there) counts
   * the iterations k from 0, Python's len(range), and the induction variable
   * is lo + k * step. */
  bool counted = !step_positive(s->c, st);
  MlirValue lo = lb, step = st;
  if (counted) {
    ub = trip_count(G, loc, lb, ub, st, s->c->kind == T_CONST);
    lb = constant(G, loc, mlirValueGetType(lb), 0, 0);
    st = constant(G, loc, mlirValueGetType(lb), 1, 0);
  }
  int nt = s->ntargets;
  if (nt > 60) gen_error(G, s, "%s", "a loop carrying more than 60 variables is not supported");
  MlirValue ops[64];
  MlirType types[64];
  MlirLocation locs[64];
  ops[0] = lb;
  ops[1] = ub;
  ops[2] = st;
  types[0] = mlirValueGetType(lb);
  locs[0] = loc;
  for (int i = 0; i < nt; i++) {
    ops[3 + i] = G->vals[s->targets[i]->id];
    if (mlirValueIsNull(ops[3 + i])) gen_error(G, s, "internal: loop-carried '%s' has no value", s->targets[i]->name);
    types[1 + i] = mlirValueGetType(ops[3 + i]);
    locs[1 + i] = loc;
  }
  MlirRegion region = new_region(G);
  MlirBlock blk = mlirBlockCreate(1 + nt, types, locs);
  mlirRegionAppendOwnedBlock(region, blk);
  MlirValue *before = save_vals(G);
  G->vals[s->var->id] = mlirBlockGetArgument(blk, 0);
  for (int i = 0; i < nt; i++) G->vals[s->targets[i]->id] = mlirBlockGetArgument(blk, 1 + i);
  MlirBlock saved = G->block;
  G->block = blk;
  if (counted) G->vals[s->var->id] = bin(G, "arith.addi", loc, lo, bin(G, "arith.muli", loc, mlirBlockGetArgument(blk, 0), step));
  gen_block(G, &s->body, false);
  MlirValue y[64];
  for (int i = 0; i < nt; i++) y[i] = G->vals[s->targets[i]->id];
  build(G, "scf.yield", loc, 0, NULL, nt, y, NULL, 0, NULL);
  G->block = saved;
  restore_vals(G, before);
  Attrs as = {0};
  if (s->num_stages) attr(G, &as, "tile.num_stages", i32_attr(G, s->num_stages));
  /* tl.range's loop_unroll_factor and disable_licm, read by passes/licm.c and the GPU lowering */
  if (s->loop_unroll_factor > 1) attr(G, &as, "tile.loop_unroll_factor", i32_attr(G, s->loop_unroll_factor));
  if (s->disable_licm) attr(G, &as, "tile.disable_licm", mlirUnitAttrGet(G->ctx));
  MlirOperation op = build(G, "scf.for", loc, nt, types + 1, 3 + nt, ops, &as, 1, &region);
  for (int i = 0; i < nt; i++) G->vals[s->targets[i]->id] = mlirOperationGetResult(op, i);
}

static void gen_while(Gen *G, const TNode *s) {
  MlirLocation loc = loc_of(G, s);
  int nt = s->ntargets;
  if (nt > 64) gen_error(G, s, "%s", "a loop carrying more than 64 variables is not supported");
  MlirValue init[64];
  MlirType types[64];
  MlirLocation locs[64];
  for (int i = 0; i < nt; i++) {
    init[i] = G->vals[s->targets[i]->id];
    if (mlirValueIsNull(init[i])) gen_error(G, s, "internal: loop-carried '%s' has no value", s->targets[i]->name);
    types[i] = mlirValueGetType(init[i]);
    locs[i] = loc;
  }
  MlirValue *before = save_vals(G);
  MlirRegion regions[2];
  MlirBlock saved = G->block;
  for (int r = 0; r < 2; r++) {
    regions[r] = new_region(G);
    MlirBlock blk = mlirBlockCreate(nt, types, locs);
    mlirRegionAppendOwnedBlock(regions[r], blk);
    restore_vals(G, before);
    for (int i = 0; i < nt; i++) G->vals[s->targets[i]->id] = mlirBlockGetArgument(blk, i);
    G->block = blk;
    MlirValue y[65];
    if (r == 0) {
      gen_block(G, &s->before, false);
      y[0] = gen_expr(G, s->c);
      for (int i = 0; i < nt; i++) y[1 + i] = G->vals[s->targets[i]->id];
      build(G, "scf.condition", loc, 0, NULL, 1 + nt, y, NULL, 0, NULL);
    } else {
      gen_block(G, &s->body, false);
      for (int i = 0; i < nt; i++) y[i] = G->vals[s->targets[i]->id];
      build(G, "scf.yield", loc, 0, NULL, nt, y, NULL, 0, NULL);
    }
  }
  G->block = saved;
  restore_vals(G, before);
  MlirOperation op = build(G, "scf.while", loc, nt, types, nt, init, NULL, 2, regions);
  for (int i = 0; i < nt; i++) G->vals[s->targets[i]->id] = mlirOperationGetResult(op, i);
}

static void gen_stmt(Gen *G, const TNode *s) {
  switch (s->kind) {
  case T_ASSIGN: {
    if (s->ntargets) {
      MlirValue res[8];
      int n = gen_call(G, s->a, res);
      if (n != s->ntargets) gen_error(G, s, "%s", "internal: result count mismatch");
      for (int i = 0; i < n; i++) G->vals[s->targets[i]->id] = res[i];
      return;
    }
    G->vals[s->var->id] = gen_expr(G, s->a);
    return;
  }
  case T_EXPR: gen_expr(G, s->a); return;
  case T_IF: gen_if(G, s, NULL); return;
  case T_FOR: gen_for(G, s); return;
  case T_WHILE: gen_while(G, s); return;
  case T_RETURN: gen_error(G, s, "%s", "internal: a 'return' inside a loop");
  default: gen_error(G, s, "%s", "this statement has no lowering");
  }
}

/* The kernel's body outside loops: a return ends it, and an if holding a
 * return takes what follows it into its branches (Triton's early return at
 * the top level: any depth of runtime ifs, no loops). */
static void gen_seq(Gen *G, const TNodeList *l, const Cont *cont) {
  for (int i = 0; i < l->n; i++) {
    const TNode *s = l->v[i];
    if (s->kind == T_RETURN) return; /* the end of the kernel */
    if (s->kind == T_IF && (has_return(&s->body) || has_return(&s->orelse))) {
      Cont c = {{l->v + i + 1, l->n - i - 1}, cont};
      gen_if(G, s, &c);
      return;
    }
    gen_stmt(G, s);
  }
  if (cont) gen_seq(G, &cont->rest, cont->next);
}

/* top: the kernel's own body. */
static void gen_block(Gen *G, const TNodeList *l, bool top) {
  if (top) {
    gen_seq(G, l, NULL);
    return;
  }
  for (int i = 0; i < l->n; i++) gen_stmt(G, l->v[i]);
}

MlirModule irgen_kernel(IrContext *ic, Arena *a, Diags *d, const Kernel *k) {
  Gen g = {.ic = ic, .ctx = ir_mlir(ic), .a = a, .d = d, .k = k};
  Gen *G = &g;
  MlirLocation kloc = file_loc(G, k->loc);
  MlirModule m = mlirModuleCreateEmpty(kloc);
  jmp_buf jb, *saved = d->unwind;
  d->unwind = &jb;
  if (setjmp(jb)) {
    d->unwind = saved;
    d->site = NULL;
    for (int i = g.npending - 1; i >= 0; i--) mlirRegionDestroy(g.pending[i]);
    mlirModuleDestroy(m);
    return (MlirModule){NULL};
  }
  g.vals = arena_alloc(a, sizeof(MlirValue) * (size_t)(k->nvars + 1));
  int np = k->params.n;
  MlirType *ptypes = arena_alloc(a, sizeof(MlirType) * (size_t)(np + 1));
  MlirLocation *plocs = arena_alloc(a, sizeof(MlirLocation) * (size_t)(np + 1));
  MlirAttribute *pattrs = arena_alloc(a, sizeof(MlirAttribute) * (size_t)(np + 1));
  for (int i = 0; i < np; i++) {
    const SigEntry *e = k->param_sigs.v[i];
    ptypes[i] = ty_of(G, k->param_types.v[i]);
    plocs[i] = kloc;
    Attrs pa = {0};
    if (e->divisibility == 16) attr(G, &pa, "tile.divisibility", i32_attr(G, 16));
    pattrs[i] = mlirDictionaryAttrGet(G->ctx, pa.n, pa.v);
  }
  MlirRegion body = new_region(G);
  MlirBlock entry = mlirBlockCreate(np, ptypes, plocs);
  mlirRegionAppendOwnedBlock(body, entry);
  for (int i = 0; i < np; i++) g.vals[((Var *)k->params.v[i])->id] = mlirBlockGetArgument(entry, i);
  G->block = entry;
  gen_block(G, &k->body, true);
  build(G, "func.return", kloc, 0, NULL, 0, NULL, NULL, 0, NULL);

  G->block = mlirModuleGetBody(m);
  Attrs fa = {0};
  attr(G, &fa, "sym_name", str_attr(G, k->name));
  attr(G, &fa, "function_type", mlirTypeAttrGet(mlirFunctionTypeGet(G->ctx, np, ptypes, 0, NULL)));
  attr(G, &fa, "arg_attrs", mlirArrayAttrGet(G->ctx, np, pattrs));
  attr(G, &fa, "tile.num_warps", i32_attr(G, k->num_warps));
  attr(G, &fa, "tile.num_stages", i32_attr(G, k->num_stages));
  build(G, "func.func", kloc, 0, NULL, 0, NULL, &fa, 1, &body);
  d->unwind = saved;
  return m;
}
