/*
 * irgen_expr.c — expressions to tile IR: constants, arithmetic and
 * comparisons by the element type (float, signed, unsigned, pointers as
 * 64-bit addresses), the casts sema made explicit (Triton's cast rules),
 * splats, broadcasts, selects and pointer arithmetic. A call goes to
 * irgen_call.c.
 */
#define TILEC_IRGEN_INTERNAL
#include "irgen.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

static MlirValue gen_const(Gen *G, const TNode *e) {
  MlirType ty = irgen_type(G, e->type);
  return irgen_constant(G, irgen_loc(G, e), ty, e->cint, e->cfloat);
}

static const char *arith_name(Gen *G, const TNode *e) {
  bool f = dtype_is_float(irgen_dt_of(e->type)), u = irgen_is_unsigned(e->type);
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
  default: irgen_error(G, e, "operator %s has no lowering", tok_kind_name(e->op));
  }
}

static MlirValue gen_cmp(Gen *G, const TNode *e) {
  MlirValue a = irgen_expr(G, e->a), b = irgen_expr(G, e->b);
  MlirLocation loc = irgen_loc(G, e);
  const Type *ot = e->a->type;
  bool ptr = ty_elem(ot)->kind == TY_PTR;
  if (ptr) {
    /* pointers compare as unsigned 64-bit addresses */
    MlirType it = irgen_with_elem(G, mlirValueGetType(a), mlirIntegerTypeGet(G->ctx, 64));
    a = irgen_un(G, "tile.ptr_to_int", loc, it, a);
    b = irgen_un(G, "tile.ptr_to_int", loc, it, b);
  }
  bool f = !ptr && dtype_is_float(irgen_dt_of(ot)), u = ptr || irgen_is_unsigned(ot);
  int pred;
  switch (e->op) {
  case TK_EQ: pred = f ? 1 : 0; break;
  case TK_NE: pred = f ? 13 : 1; break;
  case TK_LT: pred = f ? 4 : u ? 6 : 2; break;
  case TK_LE: pred = f ? 5 : u ? 7 : 3; break;
  case TK_GT: pred = f ? 2 : u ? 8 : 4; break;
  case TK_GE: pred = f ? 3 : u ? 9 : 5; break;
  default: irgen_error(G, e, "comparison %s has no lowering", tok_kind_name(e->op));
  }
  Attrs as = {0};
  irgen_attr(G, &as, "predicate", irgen_i64_attr(G, pred));
  MlirValue ops[2] = {a, b};
  return irgen_op1(G, f ? "arith.cmpf" : "arith.cmpi", loc, irgen_type(G, e->type), 2, ops, &as);
}

/* Conversions between scalar element types, per Triton's cast rules. */
static MlirValue convert(Gen *G, MlirLocation loc, MlirValue x, const Type *from_t, const Type *to_t, const TNode *at) {
  const Type *fe = ty_elem(from_t), *te = ty_elem(to_t);
  MlirType ty = irgen_type(G, to_t);
  if (fe == te) return x;
  if (fe->kind == TY_PTR && te->kind == TY_PTR) return irgen_un(G, "tile.bitcast", loc, ty, x);
  if (fe->kind == TY_PTR) {
    if (te->dtype == DT_I1) {
      MlirType it = irgen_with_elem(G, ty, mlirIntegerTypeGet(G->ctx, 64));
      MlirValue i = irgen_un(G, "tile.ptr_to_int", loc, it, x);
      MlirValue zero = irgen_constant(G, loc, it, 0, 0);
      Attrs as = {0};
      irgen_attr(G, &as, "predicate", irgen_i64_attr(G, 1));
      MlirValue ops[2] = {i, zero};
      return irgen_op1(G, "arith.cmpi", loc, ty, 2, ops, &as);
    }
    return irgen_un(G, "tile.ptr_to_int", loc, ty, x);
  }
  if (te->kind == TY_PTR) return irgen_un(G, "tile.int_to_ptr", loc, ty, x);
  DType f = fe->dtype, t = te->dtype;
  bool ff = dtype_is_float(f), tf = dtype_is_float(t);
  if (t == DT_I1) {
    /* to bool: compare with zero */
    MlirValue zero = irgen_constant(G, loc, mlirValueGetType(x), 0, 0.0);
    Attrs as = {0};
    irgen_attr(G, &as, "predicate", irgen_i64_attr(G, ff ? 13 : 1));
    MlirValue ops[2] = {x, zero};
    return irgen_op1(G, ff ? "arith.cmpf" : "arith.cmpi", loc, ty, 2, ops, &as);
  }
  if (ff && tf) {
    int fb = dtype_bits(f), tb = dtype_bits(t);
    if (fb == tb) {
      /* fp16 <-> bf16: through fp32 */
      MlirType mid = irgen_with_elem(G, ty, mlirF32TypeGet(G->ctx));
      MlirValue w = irgen_un(G, "arith.extf", loc, mid, x);
      return irgen_un(G, "arith.truncf", loc, ty, w);
    }
    return irgen_un(G, fb < tb ? "arith.extf" : "arith.truncf", loc, ty, x);
  }
  if (!ff && !tf) {
    int fb = dtype_bits(f), tb = dtype_bits(t);
    if (fb == tb) return x; /* signedness only */
    if (fb > tb) return irgen_un(G, "arith.trunci", loc, ty, x);
    bool zext = f == DT_I1 || !dtype_is_signed(f);
    return irgen_un(G, zext ? "arith.extui" : "arith.extsi", loc, ty, x);
  }
  if (!ff) return irgen_un(G, (f == DT_I1 || !dtype_is_signed(f)) ? "arith.uitofp" : "arith.sitofp", loc, ty, x);
  (void)at;
  return irgen_un(G, dtype_is_signed(t) ? "arith.fptosi" : "arith.fptoui", loc, ty, x);
}

/* The type of t with element el, as MLIR. */
MlirType irgen_with_elem(Gen *G, MlirType t, MlirType el) {
  if (!mlirTypeIsARankedTensor(t)) return el;
  int64_t shape[MAX_RANK];
  int r = (int)mlirShapedTypeGetRank(t);
  for (int i = 0; i < r; i++) shape[i] = mlirShapedTypeGetDimSize(t, i);
  (void)G;
  return mlirRankedTensorTypeGet(r, shape, el, mlirAttributeGetNull());
}

MlirValue irgen_expr(Gen *G, const TNode *e) {
  MlirLocation loc = irgen_loc(G, e);
  switch (e->kind) {
  case T_CONST: return gen_const(G, e);
  case T_VAR: {
    MlirValue v = G->vals[e->var->id];
    if (mlirValueIsNull(v)) irgen_error(G, e, "internal: '%s' is read before it is defined", e->var->name);
    return v;
  }
  case T_BINOP: {
    MlirValue a = irgen_expr(G, e->a), b = irgen_expr(G, e->b);
    if (e->op == TK_SLASH) return irgen_divf(G, loc, a, b, DIV_FULL); /* as Triton: div.full.f32 (fp16 and bf16 through fp32) */
    return irgen_bin(G, arith_name(G, e), loc, a, b);
  }
  case T_UNOP: {
    MlirValue x = irgen_expr(G, e->a);
    MlirType ty = irgen_type(G, e->type);
    switch (e->op) {
    case TK_PLUS: return x;
    case TK_MINUS:
      if (dtype_is_float(irgen_dt_of(e->type))) return irgen_un(G, "arith.negf", loc, ty, x);
      return irgen_bin(G, "arith.subi", loc, irgen_constant(G, loc, ty, 0, 0), x);
    case TK_TILDE: return irgen_bin(G, "arith.xori", loc, x, irgen_constant(G, loc, ty, -1, 0));
    case TK_KW_not: return irgen_bin(G, "arith.xori", loc, x, irgen_constant(G, loc, ty, 1, 0));
    default: irgen_error(G, e, "unary %s has no lowering", tok_kind_name(e->op));
    }
  }
  case T_CMP: return gen_cmp(G, e);
  case T_CAST: return convert(G, loc, irgen_expr(G, e->a), e->a->type, e->type, e);
  case T_BITCAST: {
    MlirValue x = irgen_expr(G, e->a);
    bool ptr = ty_elem(e->type)->kind == TY_PTR || ty_elem(e->a->type)->kind == TY_PTR;
    return irgen_un(G, ptr ? "tile.bitcast" : "arith.bitcast", loc, irgen_type(G, e->type), x);
  }
  case T_SPLAT: return irgen_un(G, "tile.splat", loc, irgen_type(G, e->type), irgen_expr(G, e->a));
  case T_BROADCAST: return irgen_un(G, "tile.broadcast", loc, irgen_type(G, e->type), irgen_expr(G, e->a));
  case T_EXPAND_DIMS: {
    MlirValue x = irgen_expr(G, e->a);
    /* a scalar's new axis (pid[None]) is a block of one: a splat */
    if (e->a->type->kind != TY_BLOCK) return irgen_un(G, "tile.splat", loc, irgen_type(G, e->type), x);
    Attrs as = {0};
    irgen_attr(G, &as, "axis", irgen_i32_attr(G, e->axis));
    return irgen_op1(G, "tile.expand_dims", loc, irgen_type(G, e->type), 1, &x, &as);
  }
  case T_SELECT: {
    MlirValue ops[3] = {irgen_expr(G, e->c), irgen_expr(G, e->a), irgen_expr(G, e->b)};
    return irgen_op1(G, "arith.select", loc, irgen_type(G, e->type), 3, ops, NULL);
  }
  case T_ADDPTR: {
    MlirValue ops[2] = {irgen_expr(G, e->a), irgen_expr(G, e->b)};
    return irgen_op1(G, "tile.addptr", loc, irgen_type(G, e->type), 2, ops, NULL);
  }
  case T_CALL: {
    MlirValue res[8];
    int n = irgen_call(G, e, res);
    if (n == 0) return (MlirValue){NULL}; /* a call with no result */
    return res[0];
  }
  default: irgen_error(G, e, "%s", "this expression has no lowering");
  }
}
