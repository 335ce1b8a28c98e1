/*
 * irgen_call.c — calls of builtins to tile IR: one op, or a short fixed
 * sequence, per CallKind (irgen_call's switch names every one), the
 * libdevice and extern elementwise calls, inline assembly, and reductions
 * and scans, which become tile.reduce and tile.scan with a combiner region
 * built here, so that later stages see one form for both `tl.sum` and a
 * user's combine function.
 */
#define TILEC_IRGEN_INTERNAL
#include "irgen.h"

#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

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
  case C_SUM: out[0] = irgen_bin(G, is_float ? "arith.addf" : "arith.addi", loc, a, b); break;
  case C_PROD: out[0] = irgen_bin(G, is_float ? "arith.mulf" : "arith.muli", loc, a, b); break;
  case C_MAX: out[0] = irgen_bin(G, is_float ? "arith.maxnumf" : is_uns ? "arith.maxui" : "arith.maxsi", loc, a, b); break;
  case C_MIN: out[0] = irgen_bin(G, is_float ? "arith.minnumf" : is_uns ? "arith.minui" : "arith.minsi", loc, a, b); break;
  case C_XOR: out[0] = irgen_bin(G, "arith.xori", loc, a, b); break;
  case C_ARGMAX: case C_ARGMIN: case C_ARGMAX_FAST: case C_ARGMIN_FAST: {
    /* (value, index) pairs: the larger (smaller) value; on ties the lower index, or the second pair */
    MlirValue ia = mlirBlockGetArgument(blk, 1), ib = mlirBlockGetArgument(blk, 3);
    MlirType i1 = mlirIntegerTypeGet(G->ctx, 1);
    bool mx = c == C_ARGMAX || c == C_ARGMAX_FAST;
    Attrs p1 = {0}, p2 = {0}, p3 = {0};
    irgen_attr(G, &p1, "predicate", irgen_i64_attr(G, is_float ? (mx ? 2 : 4) : is_uns ? (mx ? 8 : 6) : (mx ? 4 : 2)));
    irgen_attr(G, &p2, "predicate", irgen_i64_attr(G, is_float ? 1 : 0));
    irgen_attr(G, &p3, "predicate", irgen_i64_attr(G, 2));
    MlirValue ab[2] = {a, b}, iab[2] = {ia, ib};
    MlirValue take = irgen_op1(G, is_float ? "arith.cmpf" : "arith.cmpi", loc, i1, 2, ab, &p1);
    if (c == C_ARGMAX || c == C_ARGMIN) {
      MlirValue eq = irgen_op1(G, is_float ? "arith.cmpf" : "arith.cmpi", loc, i1, 2, ab, &p2);
      MlirValue lower = irgen_op1(G, "arith.cmpi", loc, i1, 2, iab, &p3);
      take = irgen_bin(G, "arith.ori", loc, take, irgen_bin(G, "arith.andi", loc, eq, lower));
    }
    MlirValue s1[3] = {take, a, b}, s2[3] = {take, ia, ib};
    out[0] = irgen_op1(G, "arith.select", loc, mlirValueGetType(a), 3, s1, NULL);
    out[1] = irgen_op1(G, "arith.select", loc, mlirValueGetType(ia), 3, s2, NULL);
    nout = 2;
    break;
  }
  }
  irgen_build(G, "gpu.yield", loc, 0, NULL, nout, out, NULL, 0, NULL);
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
  MlirRegion region = irgen_new_region(G);
  MlirBlock blk = mlirBlockCreate(2 * n, args, locs);
  mlirRegionAppendOwnedBlock(region, blk);
  if (user) {
    for (int i = 0; i < user->ntargets; i++) G->vals[user->targets[i]->id] = mlirBlockGetArgument(blk, i);
    MlirBlock saved = G->block;
    G->block = blk;
    irgen_block(G, &user->body, false);
    MlirValue out[8];
    for (int i = 0; i < user->orelse.n; i++) out[i] = irgen_expr(G, user->orelse.v[i]);
    irgen_build(G, "gpu.yield", loc, 0, NULL, user->orelse.n, out, NULL, 0, NULL);
    G->block = saved;
  } else {
    combine_body(G, loc, c, is_float, is_uns, blk, n);
  }
  Attrs as = {0};
  irgen_attr(G, &as, "axis", irgen_i32_attr(G, axis));
  if (reverse) irgen_attr(G, &as, "reverse", mlirBoolAttrGet(G->ctx, 1));
  return irgen_build(G, opname, loc, n, res, n, srcs, &as, 1, &region);
}

/* A tensor of indices along axis, broadcast to the shape of t. */
static MlirValue axis_indices(Gen *G, MlirLocation loc, MlirType t, int axis) {
  int r = (int)mlirShapedTypeGetRank(t);
  int64_t n = mlirShapedTypeGetDimSize(t, axis);
  MlirType i32 = mlirIntegerTypeGet(G->ctx, 32);
  Attrs as = {0};
  irgen_attr(G, &as, "start", irgen_i32_attr(G, 0));
  irgen_attr(G, &as, "end", irgen_i32_attr(G, n));
  MlirValue v = irgen_op1(G, "tile.make_range", loc, mlirRankedTensorTypeGet(1, &n, i32, mlirAttributeGetNull()), 0, NULL, &as);
  if (r == 1) return v;
  /* [n] -> [1, .., n, .., 1] -> the shape of t */
  int64_t ones[MAX_RANK], shape[MAX_RANK];
  for (int i = 0; i < r; i++) {
    ones[i] = i == axis ? n : 1;
    shape[i] = mlirShapedTypeGetDimSize(t, i);
  }
  v = irgen_un(G, "tile.reshape", loc, mlirRankedTensorTypeGet(r, ones, i32, mlirAttributeGetNull()), v);
  return irgen_un(G, "tile.broadcast", loc, mlirRankedTensorTypeGet(r, shape, i32, mlirAttributeGetNull()), v);
}

/* Reshapes to 1-D for a reduction over every axis. */
static MlirValue flatten(Gen *G, MlirLocation loc, MlirValue x) {
  MlirType t = mlirValueGetType(x);
  int r = (int)mlirShapedTypeGetRank(t);
  if (r == 1) return x;
  int64_t n = 1;
  for (int i = 0; i < r; i++) n *= mlirShapedTypeGetDimSize(t, i);
  return irgen_un(G, "tile.reshape", loc, mlirRankedTensorTypeGet(1, &n, mlirShapedTypeGetElementType(t), mlirAttributeGetNull()), x);
}

/* Restores reduced axes as size-1 dimensions (keep_dims) to match want. */
static MlirValue keep_dims(Gen *G, MlirLocation loc, MlirValue v, const Type *want, int axis) {
  MlirType wt = irgen_type(G, want);
  if (mlirTypeEqual(mlirValueGetType(v), wt)) return v;
  if (axis < 0)
    return irgen_un(G, "tile.reshape", loc, wt,
                    mlirTypeIsARankedTensor(mlirValueGetType(v)) ? v : irgen_un(G, "tile.splat", loc, irgen_with_elem(G, wt, mlirValueGetType(v)), v));
  Attrs as = {0};
  irgen_attr(G, &as, "axis", irgen_i32_attr(G, axis));
  if (!mlirTypeIsARankedTensor(mlirValueGetType(v))) return irgen_un(G, "tile.splat", loc, wt, v);
  return irgen_op1(G, "tile.expand_dims", loc, wt, 1, &v, &as);
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
  r->loc = irgen_loc(G, e);
  r->kind = e->attrs.reduce;
  r->axis = e->attrs.axis;
  r->n = e->args.n;
  for (int i = 0; i < r->n; i++) r->srcs[i] = irgen_expr(G, e->args.v[i]);
  const Type *in = e->args.v[0]->type;
  r->fl = dtype_is_float(irgen_dt_of(in));
  r->uns = irgen_is_unsigned(in);
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

/* libdevice's name for a function at an element type. Most take an f
 * after the name for fp32 (__nv_expf, __nv_exp); the rounded arithmetic
 * takes f or d in front (__nv_fmul_rn, __nv_dmul_rn; fma: __nv_fmaf_rn,
 * __nv_fma_rn); conversions name their types themselves
 * (__nv_float2int_rn, __nv_int_as_float); the predicates end in f or d
 * (__nv_isnanf, __nv_isnand), and finitef and isfinited are the fp32 and
 * fp64 spellings of one. */
static const char *libdevice_symbol(Gen *G, const char *name, DType dt) {
  if (!strncmp(name, "__nv_", 5)) return name; /* already the symbol */
  static const char *const conversions[] = {"2int", "2uint", "2ll", "2ull", "2float", "2double", "2half", "_as_"};
  bool conversion = false;
  for (size_t i = 0; i < sizeof conversions / sizeof *conversions; i++) conversion |= strstr(name, conversions[i]) != NULL;
  if (!strcmp(name, "fast_dividef")) return "__nv_fast_fdividef";
  if (!strncmp(name, "fast_", 5) || conversion || !strcmp(name, "saturatef") || !strcmp(name, "llabs"))
    return arena_printf(G->a, "__nv_%s", name);
  if (dtype_is_int(dt) && dtype_bits(dt) == 64) {
    /* the 64-bit integer forms (those without one are refused by sema) */
    if (!strcmp(name, "abs")) return "__nv_llabs";
    if (!strcmp(name, "max") || !strcmp(name, "min")) return arena_printf(G->a, "__nv_ll%s", name);
    if (!strcmp(name, "umax") || !strcmp(name, "umin")) return arena_printf(G->a, "__nv_ull%s", name + 1);
    if (!strcmp(name, "mulhi") || !strcmp(name, "umulhi")) return name[0] == 'u' ? "__nv_umul64hi" : "__nv_mul64hi";
    return arena_printf(G->a, "__nv_%sll", name);
  }
  if (dtype_is_int(dt)) return arena_printf(G->a, "__nv_%s", name);
  if (!strcmp(name, "abs")) return dt == DT_F64 ? "__nv_fabs" : "__nv_fabsf";
  bool f64 = dt == DT_F64;
  size_t n = strlen(name);
  if (n > 3 && name[n - 3] == '_' && name[n - 2] == 'r' && strchr("nzdu", name[n - 1])) {
    if (!strncmp(name, "fma_", 4)) return arena_printf(G->a, "__nv_fma%s%s", f64 ? "" : "f", name + 3);
    return arena_printf(G->a, "__nv_%c%s", f64 ? 'd' : 'f', name);
  }
  if (!strcmp(name, "finitef") || !strcmp(name, "isfinited")) return f64 ? "__nv_isfinited" : "__nv_finitef";
  if (!strcmp(name, "isinf") || !strcmp(name, "isnan") || !strcmp(name, "signbit"))
    return arena_printf(G->a, "__nv_%s%c", name, f64 ? 'd' : 'f');
  if (f64) return arena_printf(G->a, "__nv_%s", name);
  return arena_printf(G->a, "__nv_%sf", name);
}

/* An elementwise extern call; fp16/bf16 go through fp32 as libdevice has no half forms. */
static MlirValue extern_call(Gen *G, const TNode *e, const char *sym_name) {
  MlirLocation loc = irgen_loc(G, e);
  int n = e->args.n;
  MlirValue ops[4];
  DType dt = irgen_dt_of(e->args.v[0]->type);
  bool widen = dt == DT_F16 || dt == DT_BF16;
  for (int i = 0; i < n; i++) {
    ops[i] = irgen_expr(G, e->args.v[i]);
    if (widen && dtype_is_float(irgen_dt_of(e->args.v[i]->type)))
      ops[i] = irgen_un(G, "arith.extf", loc, irgen_with_elem(G, mlirValueGetType(ops[i]), mlirF32TypeGet(G->ctx)), ops[i]);
  }
  MlirType rty = irgen_type(G, e->type);
  bool rwiden = widen && dtype_is_float(irgen_dt_of(e->type));
  MlirType call_ty = rwiden ? irgen_with_elem(G, rty, mlirF32TypeGet(G->ctx)) : rty;
  Attrs as = {0};
  irgen_attr(G, &as, "symbol", irgen_str_attr(G, libdevice_symbol(G, sym_name, widen ? DT_F32 : dt)));
  irgen_attr(G, &as, "pure", mlirBoolAttrGet(G->ctx, 1));
  MlirValue r = irgen_op1(G, "tile.extern_elementwise", loc, call_ty, n, ops, &as);
  return rwiden ? irgen_un(G, "arith.truncf", loc, rty, r) : r;
}

static MlirValue minmax(Gen *G, const TNode *e, MlirValue a, MlirValue b, bool is_max) {
  bool f = dtype_is_float(irgen_dt_of(e->type)), u = irgen_is_unsigned(e->type);
  bool nan = e->attrs.propagate_nan;
  const char *name = f ? (is_max ? (nan ? "arith.maximumf" : "arith.maxnumf") : (nan ? "arith.minimumf" : "arith.minnumf"))
                       : (is_max ? (u ? "arith.maxui" : "arith.maxsi") : (u ? "arith.minui" : "arith.minsi"));
  return irgen_bin(G, name, irgen_loc(G, e), a, b);
}

/* x / y. IEEE: arith.divf. Else Triton's default for `/` and tl.fdiv, a division
 * that may be approximate (arith's `afn`), which the GPU end makes div.full.f32
 * (fp16 and bf16 through fp32); approx (tl.fdiv(approx=True)) also lets it
 * multiply by the reciprocal (`arcp`): div.approx.f32. MLIR's C API has no
 * builder for arith's fastmath attribute, so it is parsed from its (fixed) syntax. */
MlirValue irgen_divf(Gen *G, MlirLocation loc, MlirValue x, MlirValue y, DivKind kind) {
  if (kind == DIV_IEEE) return irgen_bin(G, "arith.divf", loc, x, y);
  Attrs as = {0};
  const char *fm = kind == DIV_APPROX ? "#arith.fastmath<afn,arcp>" : "#arith.fastmath<afn>";
  irgen_attr(G, &as, "fastmath", mlirAttributeParseGet(G->ctx, mlirStringRefCreateFromCString(fm)));
  MlirValue ops[2] = {x, y};
  return irgen_op1(G, "arith.divf", loc, mlirValueGetType(x), 2, ops, &as);
}

/* The math dialect's op for the elementwise builtins that have one. */
static const char *math_op(CallKind k) {
  switch (k) {
  case CALL_exp: return "math.exp";
  case CALL_exp2: return "math.exp2";
  case CALL_log: return "math.log";
  case CALL_log2: return "math.log2";
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
int irgen_call(Gen *G, const TNode *e, MlirValue *res) {
  const CallAttrs *ca = &e->attrs;
  MlirLocation loc = irgen_loc(G, e);
  MlirType rty = e->type && e->type->kind != TY_VOID && e->nres <= 1 ? irgen_type(G, e->type) : (MlirType){NULL};
  Attrs as = {0};
  MlirValue ops[1 + 3 * MAX_RANK + 16];
  int n = 0;
  /* all but these take their operands in order */
  switch (e->callee) {
  case CALL_reduce: case CALL_scan: case CALL_load: case CALL_store: case CALL_atomic_rmw: case CALL_libdevice:
    break;
  default:
    for (int i = 0; i < e->args.n; i++)
      if (e->args.v[i]) ops[n++] = irgen_expr(G, e->args.v[i]);
  }

  switch (e->callee) {
  case CALL_reduce: return gen_reduce(G, e, res);
  case CALL_scan: return gen_scan(G, e, res);
  case CALL_program_id: case CALL_num_programs:
    irgen_attr(G, &as, "axis", irgen_i32_attr(G, ca->axis));
    res[0] = irgen_op1(G, e->callee == CALL_program_id ? "tile.program_id" : "tile.num_programs", loc, rty, 0, NULL, &as);
    return 1;
  case CALL_arange:
    irgen_attr(G, &as, "start", irgen_i32_attr(G, ca->start));
    irgen_attr(G, &as, "end", irgen_i32_attr(G, ca->end));
    res[0] = irgen_op1(G, "tile.make_range", loc, rty, 0, NULL, &as);
    return 1;
  case CALL_load: case CALL_store: case CALL_atomic_rmw: {
    int32_t seg[3];
    for (int i = 0; i < 3; i++) {
      seg[i] = e->args.v[i] != NULL;
      if (e->args.v[i]) ops[n++] = irgen_expr(G, e->args.v[i]);
    }
    if (ca->cache && *ca->cache) irgen_attr(G, &as, "cache", irgen_str_attr(G, ca->cache));
    if (ca->evict && *ca->evict) irgen_attr(G, &as, "evict", irgen_str_attr(G, ca->evict));
    if (ca->is_volatile) irgen_attr(G, &as, "volatile", mlirUnitAttrGet(G->ctx));
    if (ca->boundary_check.n) irgen_attr(G, &as, "boundary_check", irgen_i32_list(G, &ca->boundary_check));
    if (ca->padding && *ca->padding) irgen_attr(G, &as, "padding", irgen_str_attr(G, ca->padding));
    if (e->callee == CALL_load) {
      irgen_attr(G, &as, "operandSegmentSizes", mlirDenseI32ArrayGet(G->ctx, 3, seg));
      res[0] = irgen_op1(G, "tile.load", loc, rty, n, ops, &as);
      return 1;
    }
    if (e->callee == CALL_store) {
      irgen_build(G, "tile.store", loc, 0, NULL, n, ops, &as, 0, NULL);
      return 0;
    }
    irgen_attr(G, &as, "op", irgen_str_attr(G, ca->op));
    irgen_attr(G, &as, "sem", irgen_str_attr(G, ca->sem));
    irgen_attr(G, &as, "scope", irgen_str_attr(G, ca->scope));
    res[0] = irgen_op1(G, "tile.atomic_rmw", loc, rty, n, ops, &as);
    return 1;
  }
  case CALL_atomic_cas:
    irgen_attr(G, &as, "sem", irgen_str_attr(G, ca->sem));
    irgen_attr(G, &as, "scope", irgen_str_attr(G, ca->scope));
    res[0] = irgen_op1(G, "tile.atomic_cas", loc, rty, n, ops, &as);
    return 1;
  case CALL_dot:
    if (n == 2) ops[n++] = irgen_constant(G, loc, rty, 0, 0.0);
    if (ca->input_precision && *ca->input_precision) irgen_attr(G, &as, "input_precision", irgen_str_attr(G, ca->input_precision));
    if (ca->has & CA_IMPRECISE_ACC) irgen_attr(G, &as, "max_num_imprecise_acc", irgen_i32_attr(G, ca->max_num_imprecise_acc));
    res[0] = irgen_op1(G, "tile.dot", loc, rty, n, ops, &as);
    return 1;
  case CALL_maximum: case CALL_minimum:
    res[0] = minmax(G, e, ops[0], ops[1], e->callee == CALL_maximum);
    return 1;
  case CALL_clamp: {
    bool nan = ca->propagate_nan;
    MlirValue lo = irgen_bin(G, nan ? "arith.maximumf" : "arith.maxnumf", loc, ops[0], ops[1]);
    res[0] = irgen_bin(G, nan ? "arith.minimumf" : "arith.minnumf", loc, lo, ops[2]);
    return 1;
  }
  case CALL_fma:
    res[0] = irgen_op1(G, "math.fma", loc, rty, 3, ops, NULL);
    return 1;
  case CALL_cdiv: {
    bool u = irgen_is_unsigned(e->type);
    MlirValue one = irgen_constant(G, loc, rty, 1, 0);
    MlirValue s = irgen_bin(G, "arith.subi", loc, irgen_bin(G, "arith.addi", loc, ops[0], ops[1]), one);
    res[0] = irgen_bin(G, u ? "arith.divui" : "arith.divsi", loc, s, ops[1]);
    return 1;
  }
  case CALL_umulhi: /* one result, elementwise, as Triton's tt.mulhiui: layouts flow through it */
    res[0] = mlirOperationGetResult(irgen_build(G, "tile.mulhiui", loc, 1, &rty, 2, ops, NULL, 0, NULL), 0);
    return 1;
  case CALL_fdiv:
    res[0] = irgen_divf(G, loc, ops[0], ops[1], ca->approx ? DIV_APPROX : ca->ieee_rounding ? DIV_IEEE : DIV_FULL);
    return 1;
  case CALL_div_rn: /* IEEE's division, as Triton's precise_divf: div.rn, never libdevice's .ftz */
    res[0] = irgen_divf(G, loc, ops[0], ops[1], DIV_IEEE);
    return 1;
  case CALL_sqrt_rn: /* IEEE's root: math.sqrt without fastmath (tl.sqrt has `afn`) */
    res[0] = irgen_un(G, "math.sqrt", loc, rty, ops[0]);
    return 1;
  case CALL_sqrt: { /* approximate where the target has it: sqrt.approx.ftz.f32, as Triton's tl.sqrt */
    Attrs fm = {0};
    irgen_attr(G, &fm, "fastmath", mlirAttributeParseGet(G->ctx, mlirStringRefCreateFromCString("#arith.fastmath<afn>")));
    res[0] = irgen_op1(G, "math.sqrt", loc, rty, 1, ops, &fm);
    return 1;
  }
  case CALL_libdevice:
    res[0] = extern_call(G, e, ca->symbol);
    return 1;
  case CALL_exp: case CALL_exp2: case CALL_log: case CALL_log2: case CALL_rsqrt: case CALL_sin:
  case CALL_cos: case CALL_erf: case CALL_floor: case CALL_ceil:
    res[0] = irgen_un(G, math_op(e->callee), loc, rty, ops[0]);
    return 1;
  case CALL_abs:
    res[0] = irgen_un(G, dtype_is_float(irgen_dt_of(e->type)) ? "math.absf" : "math.absi", loc, rty, ops[0]);
    return 1;
  case CALL_sigmoid: {
    /* 1 / (1 + exp(-x)), the division Triton's `/` is (div.full.f32 for fp32) */
    MlirValue neg = irgen_un(G, "arith.negf", loc, rty, ops[0]);
    MlirValue one = irgen_constant(G, loc, rty, 1, 1.0);
    res[0] = irgen_divf(G, loc, one, irgen_bin(G, "arith.addf", loc, one, irgen_un(G, "math.exp", loc, rty, neg)), DIV_FULL);
    return 1;
  }
  case CALL_softmax: {
    /* exp(x - max(x)) / sum(exp(x - max(x))) along axis */
    int axis = ca->axis;
    MlirValue x = ops[0];
    MlirOperation mx = reduce_op(G, loc, "tile.reduce", &x, 1, axis, false, false, C_MAX, true, false, NULL);
    Attrs ea = {0};
    irgen_attr(G, &ea, "axis", irgen_i32_attr(G, axis));
    MlirType t = mlirValueGetType(x);
    int r = (int)mlirShapedTypeGetRank(t);
    int64_t kshape[MAX_RANK];
    for (int i = 0; i < r; i++) kshape[i] = i == axis ? 1 : mlirShapedTypeGetDimSize(t, i);
    MlirType kt = mlirRankedTensorTypeGet(r, kshape, mlirShapedTypeGetElementType(t), mlirAttributeGetNull());
    MlirValue m = mlirOperationGetResult(mx, 0);
    m = r == 1 ? irgen_un(G, "tile.splat", loc, kt, m) : irgen_op1(G, "tile.expand_dims", loc, kt, 1, &m, &ea);
    m = irgen_un(G, "tile.broadcast", loc, t, m);
    MlirValue num = irgen_un(G, "math.exp", loc, t, irgen_bin(G, "arith.subf", loc, x, m));
    MlirOperation sm = reduce_op(G, loc, "tile.reduce", &num, 1, axis, false, false, C_SUM, true, false, NULL);
    MlirValue s = mlirOperationGetResult(sm, 0);
    s = r == 1 ? irgen_un(G, "tile.splat", loc, kt, s) : irgen_op1(G, "tile.expand_dims", loc, kt, 1, &s, &ea);
    s = irgen_un(G, "tile.broadcast", loc, t, s);
    res[0] = irgen_divf(G, loc, num, s, ca->ieee_rounding ? DIV_IEEE : DIV_FULL); /* as Triton's softmax, through fdiv */
    return 1;
  }
  case CALL_fp_downcast:
    /* arith's rounding modes are an i32 enum: 0 to nearest even, 3 toward zero */
    irgen_attr(G, &as, "roundingmode", mlirIntegerAttrGet(mlirIntegerTypeGet(G->ctx, 32), ca->round_to_zero ? 3 : 0));
    res[0] = irgen_op1(G, "arith.truncf", loc, rty, 1, ops, &as);
    return 1;
  case CALL_reshape:
    if (ca->can_reorder) irgen_attr(G, &as, "allow_reorder", mlirUnitAttrGet(G->ctx));
    res[0] = irgen_op1(G, "tile.reshape", loc, rty, 1, ops, &as);
    return 1;
  case CALL_trans:
    irgen_attr(G, &as, "order", irgen_i32_list(G, &ca->order));
    res[0] = irgen_op1(G, "tile.trans", loc, rty, 1, ops, &as);
    return 1;
  case CALL_join: case CALL_cat:
    res[0] = irgen_op1(G, e->callee == CALL_join ? "tile.join" : "tile.cat", loc, rty, 2, ops, NULL);
    return 1;
  case CALL_split: {
    MlirType two[2] = {irgen_type(G, e->res_types[0]), irgen_type(G, e->res_types[1])};
    MlirOperation op = irgen_build(G, "tile.split", loc, 2, two, 1, ops, NULL, 0, NULL);
    res[0] = mlirOperationGetResult(op, 0);
    res[1] = mlirOperationGetResult(op, 1);
    return 2;
  }
  case CALL_make_block_ptr: {
    int r = (n - 1) / 3;
    int32_t seg[4] = {1, r, r, r};
    irgen_attr(G, &as, "operandSegmentSizes", mlirDenseI32ArrayGet(G->ctx, 4, seg));
    irgen_attr(G, &as, "order", irgen_i32_list(G, &ca->order));
    res[0] = irgen_op1(G, "tile.make_block_ptr", loc, rty, n, ops, &as);
    return 1;
  }
  case CALL_advance:
    res[0] = irgen_op1(G, "tile.advance", loc, rty, n, ops, NULL);
    return 1;
  /* Tensor descriptors are lowered as block pointers for now: one made at
   * the origin, row-major, and each access advanced to its offsets with
   * every dimension bounds-checked (out of bounds reads give the padding,
   * zero by default; out of bounds writes are dropped), as Triton defines
   * descriptor accesses. */
  case CALL_make_tensor_descriptor: {
    int r = (n - 1) / 2;
    int32_t seg[4] = {1, r, r, r};
    irgen_attr(G, &as, "operandSegmentSizes", mlirDenseI32ArrayGet(G->ctx, 4, seg));
    IntList order = {.n = r};
    for (int i = 0; i < r; i++) order.v[i] = r - 1 - i;
    irgen_attr(G, &as, "order", irgen_i32_list(G, &order));
    for (int i = 0; i < r; i++) ops[n++] = irgen_constant(G, loc, ir_scalar_type(G->ic, DT_I32), 0, 0.0);
    res[0] = irgen_op1(G, "tile.make_block_ptr", loc, rty, n, ops, &as);
    return 1;
  }
  case CALL_desc_load: case CALL_desc_store: {
    bool load = e->callee == CALL_desc_load;
    const TNode *d = e->args.v[0];
    int r = d->type->elem->rank, first = load ? 1 : 2;
    MlirValue adv[1 + MAX_RANK];
    adv[0] = ops[0];
    for (int i = 0; i < r; i++) adv[1 + i] = ops[first + i];
    MlirValue moved = irgen_op1(G, "tile.advance", loc, irgen_type(G, d->type), 1 + r, adv, NULL);
    IntList dims = {.n = r};
    for (int i = 0; i < r; i++) dims.v[i] = i;
    irgen_attr(G, &as, "boundary_check", irgen_i32_list(G, &dims));
    if (load) {
      irgen_attr(G, &as, "padding", irgen_str_attr(G, "zero"));
      int32_t seg[3] = {1, 0, 0};
      irgen_attr(G, &as, "operandSegmentSizes", mlirDenseI32ArrayGet(G->ctx, 3, seg));
      res[0] = irgen_op1(G, "tile.load", loc, rty, 1, &moved, &as);
      return 1;
    }
    MlirValue sops[2] = {moved, ops[1]};
    irgen_build(G, "tile.store", loc, 0, NULL, 2, sops, &as, 0, NULL);
    return 0;
  }
  case CALL_multiple_of: case CALL_max_contiguous: case CALL_max_constancy:
    irgen_attr(G, &as, "values", irgen_i32_list(G, &ca->values));
    res[0] = irgen_op1(G, arena_printf(G->a, "tile.%s", call_kind_name(e->callee)), loc, rty, 1, ops, &as);
    return 1;
  case CALL_assume:
    irgen_build(G, "tile.assume", loc, 0, NULL, 1, ops, NULL, 0, NULL);
    return 0;
  case CALL_device_print:
    irgen_attr(G, &as, "prefix", irgen_str_attr(G, ca->prefix));
    if (ca->hex) irgen_attr(G, &as, "hex", mlirUnitAttrGet(G->ctx));
    irgen_build(G, "tile.print", loc, 0, NULL, n, ops, &as, 0, NULL);
    return 0;
  case CALL_device_assert:
    irgen_attr(G, &as, "message", irgen_str_attr(G, ca->msg));
    irgen_attr(G, &as, "file", irgen_str_attr(G, e->loc.src ? e->loc.src->name : ""));
    irgen_attr(G, &as, "line", irgen_i32_attr(G, e->loc.line));
    irgen_attr(G, &as, "function", irgen_str_attr(G, G->k->name));
    irgen_build(G, "tile.assert", loc, 0, NULL, 1, ops, &as, 0, NULL);
    return 0;
  case CALL_gdc:
    irgen_attr(G, &as, "kind", irgen_str_attr(G, ca->kind));
    irgen_build(G, "tile.gdc", loc, 0, NULL, 0, NULL, &as, 0, NULL);
    return 0;
  case CALL_debug_barrier:
    irgen_build(G, "tile.barrier", loc, 0, NULL, 0, NULL, NULL, 0, NULL);
    return 0;
  case CALL_philox: {
    irgen_attr(G, &as, "n_rounds", irgen_i32_attr(G, ca->n_rounds));
    MlirType w = irgen_type(G, e->type), rt[4] = {w, w, w, w};
    MlirOperation op = irgen_build(G, "tile.philox", loc, 4, rt, n, ops, &as, 0, NULL);
    for (int i = 0; i < 4; i++) res[i] = mlirOperationGetResult(op, i);
    return 4;
  }
  case CALL_inline_asm: {
    MlirType rts[8];
    for (int i = 0; i < e->nres; i++) rts[i] = irgen_type(G, e->res_types[i]);
    irgen_attr(G, &as, "asm_string", irgen_str_attr(G, ca->asm_text));
    irgen_attr(G, &as, "constraints", irgen_str_attr(G, ca->constraints));
    irgen_attr(G, &as, "pack", irgen_i32_attr(G, ca->pack));
    if (ca->is_pure) irgen_attr(G, &as, "pure", mlirUnitAttrGet(G->ctx));
    MlirOperation op = irgen_build(G, "tile.elementwise_inline_asm", loc, e->nres, rts, n, ops, &as, 0, NULL);
    for (int i = 0; i < e->nres; i++) res[i] = mlirOperationGetResult(op, i);
    return e->nres;
  }
  case CALL_COUNT: break;
  }
  unreachable();
}
