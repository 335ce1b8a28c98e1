/*
 * sema_arith.c — arithmetic on runtime values: a value made runtime (a
 * constexpr becomes a constant of Triton's default type), casts and
 * broadcasts to a common shape, Triton's promotion rules for the type both
 * operands convert to, and the binary operators, which fold two constexprs
 * with sema_values.c's arithmetic and otherwise make the typed node with
 * every conversion explicit.
 */
#include "sema.h"

/* ---- runtime conversions ------------------------------------------------------ */

/* The dtype a Python scalar takes when it becomes a tensor (Triton's to_tensor). */
const Type *sema_const_default_type(Sema *S, Node *at, CValue *c) {
  switch (c->kind) {
  case CV_BOOL: return ty_scalar(S->tc, DT_I1);
  case CV_INT:
    if (c->is_unsigned_big) return ty_scalar(S->tc, DT_U64);
    if (c->i >= INT32_MIN && c->i <= INT32_MAX) return ty_scalar(S->tc, DT_I32);
    if (c->i > INT32_MAX && c->i <= (int64_t)UINT32_MAX) return ty_scalar(S->tc, DT_U32);
    return ty_scalar(S->tc, DT_I64);
  case CV_FLOAT: return ty_scalar(S->tc, DT_F32);
  default: sema_error(S, at, "a %s cannot be used as a tensor value", c->kind == CV_STR ? "string" : c->kind == CV_NONE ? "None" : c->kind == CV_DTYPE ? "dtype" : "tuple");
  }
}

static TNode *const_node(Sema *S, Node *at, CValue *c, const Type *ty) {
  TNode *t = tnode(S, T_CONST, at, ty);
  const Type *e = ty_elem(ty);
  if (e->kind == TY_SCALAR && dtype_is_float(e->dtype)) {
    t->cfloat = c->kind == CV_FLOAT ? c->f : c->kind == CV_BOOL ? (double)c->b :
                c->is_unsigned_big ? (double)(uint64_t)c->i : (double)c->i;
  } else if (c->kind == CV_FLOAT) {
    t->cint = (int64_t)c->f;
  } else {
    t->cint = c->kind == CV_BOOL ? c->b : c->i;
  }
  if (e->kind == TY_SCALAR && e->dtype == DT_I1) t->cint = t->cint != 0;
  return t;
}

TNode *to_rt(Sema *S, Node *at, Val *v) {
  switch (v->kind) {
  case V_RT: return v->e;
  case V_CONST: return const_node(S, at, v->c, sema_const_default_type(S, at, v->c));
  case V_UNDEF: sema_error(S, at, "%s", v->why);
  default: sema_error(S, at, "expected a tensor or scalar value, got %s", val_desc(S, v));
  }
}

/* The value a constant takes converted to the integer dtype to, as the GPU
   computes it: a float is truncated and saturated to the target's range (NaN
   becomes 0, as cvt.rzi.sat does), an integer wraps to the target's width. */
static int64_t fold_int_cast(bool from_float, double f, int64_t i, DType to) {
  int bits = dtype_bits(to);
  bool sgn = dtype_is_signed(to);
  if (from_float) {
    if (isnan(f)) return 0;
    double lo = sgn ? -ldexp(1, bits - 1) : 0, hi = sgn ? ldexp(1, bits - 1) : ldexp(1, bits);
    if (f <= lo) return sgn ? (int64_t)lo : 0;
    if (f >= hi) return bits == 64 ? (sgn ? INT64_MAX : (int64_t)UINT64_MAX) : (int64_t)(hi - 1);
    i = sgn ? (int64_t)f : (int64_t)(uint64_t)f;
  }
  if (bits >= 64) return i;
  uint64_t m = ((uint64_t)1 << bits) - 1, u = (uint64_t)i & m;
  if (sgn && (u >> (bits - 1))) u |= ~m;
  return (int64_t)u;
}

TNode *cast_to(Sema *S, Node *at, TNode *e, const Type *elem) {
  const Type *from = ty_elem(e->type);
  if (from == elem) return e;
  if (e->kind == T_CONST && e->type->kind == TY_SCALAR && elem->kind == TY_SCALAR) {
    /* fold casts of scalar constants */
    TNode *c = tnode(S, T_CONST, at, elem);
    bool ff = dtype_is_float(from->dtype), tf = dtype_is_float(elem->dtype);
    if (tf) c->cfloat = ff ? e->cfloat : (dtype_is_signed(from->dtype) || from->dtype == DT_I1 ? (double)e->cint : (double)(uint64_t)e->cint);
    else if (elem->dtype == DT_I1) c->cint = ff ? e->cfloat != 0 : e->cint != 0;
    else c->cint = fold_int_cast(ff, e->cfloat, e->cint, elem->dtype);
    return c;
  }
  if ((from->kind == TY_PTR) != (elem->kind == TY_PTR))
    sema_error(S, at, "cannot convert %s to %s implicitly%s", ty_str(S->a, from), ty_str(S->a, elem),
               from->kind == TY_PTR ? "; a pointer becomes an integer only with .to(tl.int64)" : "");
  if (from->kind == TY_PTR && elem->elem != from->elem)
    sema_error(S, at, "cannot convert %s to %s implicitly; use .to(%s)", ty_str(S->a, from), ty_str(S->a, elem),
               ty_str(S->a, elem));
  TNode *c = tnode(S, T_CAST, at, ty_with_elem(S->tc, e->type, elem));
  c->a = e;
  return c;
}

/* Materializes v with scalar element type elem (constants take it directly). */
TNode *to_rt_typed(Sema *S, Node *at, Val *v, const Type *elem) {
  if (v->kind == V_CONST) {
    if (v->c->kind == CV_FLOAT && elem->kind == TY_SCALAR && dtype_is_int(elem->dtype))
      return cast_to(S, at, to_rt(S, at, v), elem);
    (void)sema_const_default_type(S, at, v->c);
    return const_node(S, at, v->c, elem);
  }
  return cast_to(S, at, to_rt(S, at, v), elem);
}

const Type *broadcast_shapes(Sema *S, Node *at, const Type *a, const Type *b) {
  if (a->kind != TY_BLOCK) return b;
  if (b->kind != TY_BLOCK) return a;
  int rank = a->rank > b->rank ? a->rank : b->rank;
  int64_t shape[MAX_RANK];
  for (int i = 0; i < rank; i++) {
    int ia = i - (rank - a->rank), ib = i - (rank - b->rank);
    int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
    if (da != db && da != 1 && db != 1)
      sema_error(S, at, "incompatible shapes for broadcasting: %s and %s", ty_str(S->a, a), ty_str(S->a, b));
    shape[i] = da == 1 ? db : da;
  }
  return check_block_shape(S, at, a->elem, rank, shape);
}

/* Broadcasts e to the shape of shape_like (a block type), splatting scalars. */
TNode *broadcast_to_shape(Sema *S, Node *at, TNode *e, const Type *shape_like) {
  if (shape_like->kind != TY_BLOCK) {
    if (e->type->kind == TY_BLOCK) sema_error(S, at, "cannot use a block where a scalar is required");
    return e;
  }
  const Type *target = ty_block(S->tc, ty_elem(e->type), shape_like->rank, shape_like->shape);
  if (e->type == target) return e;
  if (e->type->kind != TY_BLOCK) {
    if (e->kind == T_CONST) {
      TNode *c = tnode(S, T_CONST, at, target);
      c->cint = e->cint;
      c->cfloat = e->cfloat;
      return c;
    }
    TNode *s = tnode(S, T_SPLAT, at, target);
    s->a = e;
    return s;
  }
  /* left-pad the rank with size-1 dimensions, then broadcast */
  while (e->type->rank < target->rank) {
    int64_t shape[MAX_RANK];
    shape[0] = 1;
    memcpy(shape + 1, e->type->shape, sizeof(int64_t) * (size_t)e->type->rank);
    TNode *x = tnode(S, T_EXPAND_DIMS, at, ty_block(S->tc, e->type->elem, e->type->rank + 1, shape));
    x->a = e;
    x->axis = 0;
    e = x;
  }
  if (e->type == target) return e;
  (void)broadcast_shapes(S, at, e->type, target);
  for (int i = 0; i < target->rank; i++)
    if (e->type->shape[i] != target->shape[i] && e->type->shape[i] != 1)
      sema_error(S, at, "cannot broadcast %s to %s", ty_str(S->a, e->type), ty_str(S->a, target));
  TNode *b = tnode(S, T_BROADCAST, at, target);
  b->a = e;
  return b;
}

void unify_operands(Sema *S, Node *at, TNode **a, TNode **b) {
  const Type *shape = broadcast_shapes(S, at, (*a)->type, (*b)->type);
  if (!shape) return;
  *a = broadcast_to_shape(S, at, *a, shape);
  *b = broadcast_to_shape(S, at, *b, shape);
}

/* ---- Triton's promotion rules ----------------------------------------------- */

/* Triton's dtype kinds: boolean < integral (signed or not) < floating. */
static int dtype_kind_rank(DType t) {
  if (t == DT_I1) return 0;
  return dtype_is_float(t) ? 2 : 1;
}

static const Type *integer_promote(Sema *S, DType a, DType b) {
  int ra = dtype_bits(a), rb = dtype_bits(b);
  bool ua = !dtype_is_signed(a) && a != DT_I1, ub = !dtype_is_signed(b) && b != DT_I1;
  DType r;
  if (ua == ub) r = ra > rb ? a : b;
  else if (ua) r = ra >= rb ? a : b;
  else r = rb >= ra ? b : a;
  return ty_scalar(S->tc, r);
}

/* The type both operands of an arithmetic op convert to. A Python scalar of
 * a lower or equal kind (bool < integer < float) does not take part: `u32 % 64`
 * is a uint32 op. */
static const Type *computation_type(Sema *S, Node *at, const Type *a, bool a_scalar, const Type *b,
                                    bool b_scalar, bool div_or_mod) {
  DType x = a->dtype, y = b->dtype;
  if (a_scalar != b_scalar) {
    DType st = a_scalar ? x : y, tt = a_scalar ? y : x;
    if (dtype_kind_rank(st) <= dtype_kind_rank(tt)) {
      if (div_or_mod && (tt == DT_F16 || tt == DT_BF16)) return ty_scalar(S->tc, DT_F32);
      return ty_scalar(S->tc, tt);
    }
  }
  if (x == DT_F64 || y == DT_F64) return ty_scalar(S->tc, DT_F64);
  if (x == DT_F32 || y == DT_F32) return ty_scalar(S->tc, DT_F32);
  if (x == DT_F16 || y == DT_F16) return ty_scalar(S->tc, div_or_mod ? DT_F32 : DT_F16);
  if (x == DT_BF16 || y == DT_BF16) {
    if (div_or_mod || x != y) return ty_scalar(S->tc, DT_F32);
    return ty_scalar(S->tc, DT_BF16);
  }
  if (dtype_is_float(x) || dtype_is_float(y))
    sema_error(S, at, "arithmetic on fp8 values is not supported; convert them with .to() first");
  if (div_or_mod && dtype_is_signed(x) != dtype_is_signed(y) && x != DT_I1 && y != DT_I1)
    sema_error(S, at, "cannot use / or %% on %s and %s: they differ in signedness", dtype_name(x), dtype_name(y));
  return integer_promote(S, x, y);
}

static bool is_py_scalar(const Val *v) {
  return v->kind == V_CONST && (v->c->kind == CV_INT || v->c->kind == CV_FLOAT || v->c->kind == CV_BOOL);
}

/* ---- runtime binary operators --------------------------------------------------- */

static bool is_cmp(Op op) {
  return op == TK_LT || op == TK_LE || op == TK_GT || op == TK_GE || op == TK_EQ || op == TK_NE;
}

TNode *sema_make_binop(Sema *S, Node *at, TNodeKind k, Op op, TNode *a, TNode *b, const Type *ty) {
  TNode *t = tnode(S, k, at, ty);
  t->op = op;
  t->a = a;
  t->b = b;
  return t;
}

/* The shape-carrying type of a result with element elem over operands a, b. */
static const Type *result_type(Sema *S, TNode *a, const Type *elem) {
  return ty_with_elem(S->tc, a->type, elem);
}

Val *binary_op(Sema *S, Node *at, Op op, Val *va, Val *vb) {
  if (va->kind == V_CONST && vb->kind == V_CONST) return sema_const_binary(S, at, op, va->c, vb->c);
  if (va->kind == V_TUPLE || vb->kind == V_TUPLE) {
    if ((op == TK_EQ || op == TK_NE) && (va->kind != vb->kind))
      return val_const(S, cv_bool(S, op == TK_NE));
    sema_error(S, at, "operator %s is not supported on tuples of runtime values", tok_kind_name(op));
  }
  if (op == TK_KW_is || op == OP_IS_NOT) {
    /* `x is None` with a runtime x is decidable here */
    bool none_a = val_is_none(va), none_b = val_is_none(vb);
    if (none_a || none_b) return val_const(S, cv_bool(S, (op == TK_KW_is) == (none_a && none_b)));
    sema_error(S, at, "'is' is only supported against None and constexprs");
  }
  if (op == TK_KW_in || op == OP_NOT_IN) sema_error(S, at, "'in' is only supported on constexprs");
  bool sa = is_py_scalar(va), sb = is_py_scalar(vb);
  TNode *a = to_rt(S, at, va), *b = to_rt(S, at, vb);
  const Type *ea = ty_elem(a->type), *eb = ty_elem(b->type);

  /* pointer arithmetic */
  if (ea->kind == TY_PTR || eb->kind == TY_PTR) {
    if (ea->kind == TY_PTR && eb->kind == TY_PTR) {
      if (is_cmp(op)) {
        unify_operands(S, at, &a, &b);
        return val_rt(S, sema_make_binop(S, at, T_CMP, op, a, b, result_type(S, a, ty_scalar(S->tc, DT_I1))));
      }
      sema_error(S, at, "operator %s is not supported between two pointers", tok_kind_name(op));
    }
    if (op == TK_PLUS || op == TK_MINUS) {
      if (eb->kind == TY_PTR) {
        if (op == TK_MINUS) sema_error(S, at, "cannot subtract a pointer from an integer");
        TNode *t = a; a = b; b = t;
        const Type *te = ea; ea = eb; eb = te;
      }
      if (eb->kind != TY_SCALAR || !dtype_is_int(eb->dtype))
        sema_error(S, at, "pointer offsets must be integers, got %s", ty_str(S->a, b->type));
      if (ea->elem->kind == TY_BLOCK)
        sema_error(S, at, "block pointers are moved with tl.advance, not with +");
      if (op == TK_MINUS) {
        TNode *n = tnode(S, T_UNOP, at, b->type);
        n->op = TK_MINUS;
        n->a = b;
        b = n;
      }
      unify_operands(S, at, &a, &b);
      TNode *t = sema_make_binop(S, at, T_ADDPTR, TK_PLUS, a, b, a->type);
      return val_rt(S, t);
    }
    if (is_cmp(op) && eb->kind != TY_PTR)
      sema_error(S, at, "cannot compare a pointer with %s", ty_str(S->a, b->type));
    sema_error(S, at, "operator %s is not supported on pointers", tok_kind_name(op));
  }
  if (ea->kind != TY_SCALAR || eb->kind != TY_SCALAR)
    sema_error(S, at, "operator %s is not supported on %s and %s", tok_kind_name(op),
               ty_str(S->a, a->type), ty_str(S->a, b->type));

  switch (op) {
  case TK_PLUS: case TK_MINUS: case TK_STAR: case TK_PERCENT: case TK_DSLASH: {
    bool dm = op == TK_PERCENT || op == TK_DSLASH;
    const Type *ct = computation_type(S, at, ea, sa, eb, sb, dm);
    if (op == TK_DSLASH && dtype_is_float(ct->dtype))
      sema_error(S, at, "'//' is only supported on integers in kernels; use tl.floor(a / b) for floats");
    a = to_rt_typed(S, at, va, ct);
    b = to_rt_typed(S, at, vb, ct);
    unify_operands(S, at, &a, &b);
    return val_rt(S, sema_make_binop(S, at, T_BINOP, op, a, b, result_type(S, a, ct)));
  }
  case TK_SLASH: {
    /* true division: ints go to fp32, mixed int/float to the float type */
    const Type *ct;
    bool fa = dtype_is_float(ea->dtype), fb = dtype_is_float(eb->dtype);
    if (fa && !fb) ct = ea;
    else if (!fa && fb) ct = eb;
    else if (!fa && !fb) ct = ty_scalar(S->tc, DT_F32);
    else ct = computation_type(S, at, ea, sa, eb, sb, false);
    if (sa != sb && fa && fb) ct = sa ? eb : ea;
    a = to_rt_typed(S, at, va, ct);
    b = to_rt_typed(S, at, vb, ct);
    unify_operands(S, at, &a, &b);
    return val_rt(S, sema_make_binop(S, at, T_BINOP, op, a, b, result_type(S, a, ct)));
  }
  case TK_AMP: case TK_PIPE: case TK_CARET: case TK_SHL: case TK_SHR: {
    if (!dtype_is_int(ea->dtype) || !dtype_is_int(eb->dtype))
      sema_error(S, at, "bitwise operator %s needs integer operands, got %s and %s", tok_kind_name(op),
                 ty_str(S->a, a->type), ty_str(S->a, b->type));
    const Type *ct = computation_type(S, at, ea, sa, eb, sb, false);
    a = to_rt_typed(S, at, va, ct);
    b = to_rt_typed(S, at, vb, ct);
    unify_operands(S, at, &a, &b);
    return val_rt(S, sema_make_binop(S, at, T_BINOP, op, a, b, result_type(S, a, ct)));
  }
  case TK_LT: case TK_LE: case TK_GT: case TK_GE: case TK_EQ: case TK_NE: {
    const Type *ct = computation_type(S, at, ea, sa, eb, sb, false);
    a = to_rt_typed(S, at, va, ct);
    b = to_rt_typed(S, at, vb, ct);
    unify_operands(S, at, &a, &b);
    return val_rt(S, sema_make_binop(S, at, T_CMP, op, a, b, result_type(S, a, ty_scalar(S->tc, DT_I1))));
  }
  case TK_POW:
    sema_error(S, at, "'**' on runtime values is not supported; use tl.math.pow or libdevice.pow");
  case TK_AT:
    sema_error(S, at, "'@' on tensors is not supported; use tl.dot");
  default:
    sema_error(S, at, "unsupported operator %s", tok_kind_name(op));
  }
}

/* A value as an int1 scalar or block (conditions, `and`, `not`). */
TNode *sema_to_bool(Sema *S, Node *at, Val *v) {
  TNode *e = to_rt(S, at, v);
  const Type *el = ty_elem(e->type);
  if (el->kind == TY_SCALAR && el->dtype == DT_I1) return e;
  if (el->kind != TY_SCALAR) sema_error(S, at, "expected a boolean condition, got %s", ty_str(S->a, e->type));
  Val *zero = val_const(S, el->dtype >= DT_F8E4M3 ? cv_float(S, 0) : cv_int(S, 0));
  return binary_op(S, at, TK_NE, val_rt(S, e), zero)->e;
}
