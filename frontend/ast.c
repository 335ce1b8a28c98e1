/*
 * ast.c — the typed AST in text (`tilec compile --emit=ast`).
 *
 * The form is stable for golden tests: one statement per line, expressions
 * as S-expressions with their result type after a colon, and each statement's
 * source line:col at the end of its line.
 */
#include "frontend.h"

#include <string.h>

static const char *op_name(TNodeKind k, Op op) {
  switch (op) {
  case TK_PLUS: return k == T_UNOP ? "pos" : "add";
  case TK_MINUS: return k == T_UNOP ? "neg" : "sub";
  case TK_STAR: return "mul";
  case TK_SLASH: return "div";
  case TK_DSLASH: return "floordiv";
  case TK_PERCENT: return "mod";
  case TK_AMP: return "and";
  case TK_PIPE: return "or";
  case TK_CARET: return "xor";
  case TK_SHL: return "shl";
  case TK_SHR: return "shr";
  case TK_TILDE: return "invert";
  case TK_KW_not: return "not";
  case TK_LT: return "lt";
  case TK_LE: return "le";
  case TK_GT: return "gt";
  case TK_GE: return "ge";
  case TK_EQ: return "eq";
  case TK_NE: return "ne";
  default: return "?";
  }
}

/* ---- builtin calls ------------------------------------------------------------ */

static const char *const call_names[] = {
#define X(k) #k,
    CALL_KINDS(X)
#undef X
};

static const char *const reduce_names[] = {
#define X(k) #k,
    REDUCE_KINDS(X)
#undef X
};

const char *call_kind_name(CallKind k) { return k < CALL_COUNT ? call_names[k] : "?"; }
const char *reduce_kind_name(ReduceKind k) { return reduce_names[k]; }

CallKind call_kind_of(const char *name) {
  for (int k = 0; k < CALL_COUNT; k++)
    if (!strcmp(call_names[k], name)) return (CallKind)k;
  return CALL_COUNT;
}

static void print_list(StrBuf *sb, const char *name, const IntList *l) {
  sb_printf(sb, " %s=", name);
  for (int i = 0; i < l->n; i++) sb_printf(sb, "%s%d", i ? "," : "", (int)l->v[i]);
}

/* "key=value" and flags, space separated, in one order for every builtin
 * (each builtin's own attributes keep the order the goldens show). */
/* Text on one line: newlines and tabs as Python writes them. */
static void print_escaped(StrBuf *sb, const char *s) {
  for (; *s; s++) {
    if (*s == '\n') sb_printf(sb, "\\n");
    else if (*s == '\t') sb_printf(sb, "\\t");
    else sb_putc(sb, *s);
  }
}

void call_attrs_print(StrBuf *sb, const CallAttrs *a) {
  StrBuf t = {.arena = sb->arena};
  if (a->has & CA_REDUCE) sb_printf(&t, " kind=%s", reduce_names[a->reduce]);
  if (a->kind) sb_printf(&t, " kind=%s", a->kind);
  if (a->has & CA_N_ROUNDS) sb_printf(&t, " n_rounds=%d", a->n_rounds);
  if (a->op) sb_printf(&t, " op=%s", a->op);
  if (a->sem) sb_printf(&t, " sem=%s", a->sem);
  if (a->scope) sb_printf(&t, " scope=%s", a->scope);
  if (a->has & CA_RANGE) sb_printf(&t, " start=%lld end=%lld", (long long)a->start, (long long)a->end);
  if (a->has & CA_AXIS) sb_printf(&t, " axis=%d", a->axis);
  if (a->keep_dims) sb_printf(&t, " keep_dims");
  if (a->tie_break_left) sb_printf(&t, " tie_break_left");
  if (a->reverse) sb_printf(&t, " reverse");
  if (a->ieee_rounding) sb_printf(&t, " ieee_rounding");
  if (a->approx) sb_printf(&t, " approx");
  if (a->boundary_check.n) print_list(&t, "boundary_check", &a->boundary_check);
  if (a->padding && *a->padding) sb_printf(&t, " padding=%s", a->padding);
  if (a->cache && *a->cache) sb_printf(&t, " cache=%s", a->cache);
  if (a->evict && *a->evict) sb_printf(&t, " evict=%s", a->evict);
  if (a->is_volatile) sb_printf(&t, " volatile");
  if (a->input_precision && *a->input_precision) sb_printf(&t, " input_precision=%s", a->input_precision);
  if (a->has & CA_IMPRECISE_ACC) sb_printf(&t, " max_num_imprecise_acc=%d", a->max_num_imprecise_acc);
  if (a->order.n) print_list(&t, "order", &a->order);
  if (a->values.n) print_list(&t, "values", &a->values);
  if (a->can_reorder) sb_printf(&t, " can_reorder");
  if (a->has & CA_ROUNDING) sb_printf(&t, " rounding=%s", a->round_to_zero ? "rtz" : "rtne");
  if (a->propagate_nan) sb_printf(&t, " propagate_nan");
  if (a->prefix) sb_printf(&t, " prefix='%s'", a->prefix);
  if (a->hex) sb_printf(&t, " hex");
  if (a->msg) sb_printf(&t, " msg='%s'", a->msg);
  if (a->asm_text) {
    sb_printf(&t, " asm='");
    print_escaped(&t, a->asm_text);
    sb_printf(&t, "' constraints='%s' pack=%d%s", a->constraints, a->pack, a->is_pure ? " pure" : "");
  }
  if (t.len) sb_printf(sb, "%s", t.s + 1);
  sb_free(&t);
}

/* ---- expressions and statements -------------------------------------------------- */

static void print_expr(StrBuf *sb, const TNode *e, int indent);
static void print_block(StrBuf *sb, const TNodeList *l, int indent);

static void print_const(StrBuf *sb, const TNode *e) {
  const Type *el = ty_elem(e->type);
  if (el->kind == TY_SCALAR && dtype_is_float(el->dtype)) {
    CValue c = {.kind = CV_FLOAT, .f = e->cfloat};
    cvalue_print(sb, &c);
  } else if (el->kind == TY_SCALAR && el->dtype == DT_I1) {
    sb_printf(sb, e->cint ? "true" : "false");
  } else if (el->kind == TY_SCALAR && !dtype_is_signed(el->dtype)) {
    sb_printf(sb, "%llu", (unsigned long long)e->cint);
  } else {
    sb_printf(sb, "%lld", (long long)e->cint);
  }
}

static void print_region(StrBuf *sb, const TNode *e, int indent) {
  sb_printf(sb, " combine(");
  for (int i = 0; i < e->ntargets; i++) {
    sb_printf(sb, "%s%s: ", i ? ", " : "", e->targets[i]->name);
    ty_print(sb, e->targets[i]->type);
  }
  sb_printf(sb, ") {\n");
  print_block(sb, &e->body, indent + 2);
  sb_printf(sb, "%*syield", indent + 2, "");
  for (int i = 0; i < e->orelse.n; i++) {
    sb_printf(sb, "%s ", i ? "," : "");
    print_expr(sb, e->orelse.v[i], indent + 2);
  }
  sb_printf(sb, "\n%*s}", indent, "");
}

static void print_expr(StrBuf *sb, const TNode *e, int indent) {
  if (!e) {
    sb_putc(sb, '_');
    return;
  }
  switch (e->kind) {
  case T_CONST:
    print_const(sb, e);
    sb_putc(sb, ':');
    ty_print(sb, e->type);
    return;
  case T_VAR:
    sb_printf(sb, "%s:", e->var->name);
    ty_print(sb, e->type);
    return;
  default: break;
  }
  sb_putc(sb, '(');
  switch (e->kind) {
  case T_BINOP: case T_UNOP: case T_CMP: sb_printf(sb, "%s", op_name(e->kind, e->op)); break;
  case T_CAST: sb_printf(sb, "cast"); break;
  case T_BITCAST: sb_printf(sb, "bitcast"); break;
  case T_SPLAT: sb_printf(sb, "splat"); break;
  case T_BROADCAST: sb_printf(sb, "broadcast"); break;
  case T_EXPAND_DIMS: sb_printf(sb, "expand_dims"); break;
  case T_SELECT: sb_printf(sb, "where"); break;
  case T_ADDPTR: sb_printf(sb, "addptr"); break;
  case T_CALL:
    if (e->callee == CALL_libdevice) sb_printf(sb, "libdevice.%s", e->attrs.symbol);
    else sb_printf(sb, "%s", call_kind_name(e->callee));
    break;
  default: sb_printf(sb, "?"); break;
  }
  if (e->kind == T_SELECT) {
    sb_putc(sb, ' ');
    print_expr(sb, e->c, indent);
  }
  if (e->kind == T_CALL) {
    for (int i = 0; i < e->args.n; i++) {
      sb_putc(sb, ' ');
      print_expr(sb, e->args.v[i], indent);
    }
  } else {
    if (e->a) {
      sb_putc(sb, ' ');
      print_expr(sb, e->a, indent);
    }
    if (e->b) {
      sb_putc(sb, ' ');
      print_expr(sb, e->b, indent);
    }
  }
  if (e->kind == T_EXPAND_DIMS) sb_printf(sb, " axis=%lld", (long long)e->axis);
  if (e->kind == T_CALL) {
    StrBuf a = {.arena = sb->arena};
    call_attrs_print(&a, &e->attrs);
    if (a.len) sb_printf(sb, " [%s]", a.s);
    sb_free(&a);
  }
  if (e->kind == T_CALL && e->ntargets) print_region(sb, e, indent);
  sb_printf(sb, " : ");
  if (e->nres > 1) {
    sb_putc(sb, '(');
    for (int i = 0; i < e->nres; i++) {
      if (i) sb_printf(sb, ", ");
      ty_print(sb, e->res_types[i]);
    }
    sb_putc(sb, ')');
  } else {
    ty_print(sb, e->type);
  }
  sb_putc(sb, ')');
}

static void print_loc(StrBuf *sb, const TNode *s) {
  sb_printf(sb, "  @%d:%d", s->loc.line, s->loc.col);
  if (s->site) sb_printf(sb, " in %s", s->site->callee);
  sb_putc(sb, '\n');
}

static void print_targets(StrBuf *sb, const TNode *s) {
  if (!s->ntargets) return;
  sb_printf(sb, " -> ");
  for (int i = 0; i < s->ntargets; i++) sb_printf(sb, "%s%s", i ? ", " : "", s->targets[i]->name);
}

static void print_stmt(StrBuf *sb, const TNode *s, int indent) {
  sb_printf(sb, "%*s", indent, "");
  switch (s->kind) {
  case T_ASSIGN:
    if (s->ntargets) {
      for (int i = 0; i < s->ntargets; i++) sb_printf(sb, "%s%s", i ? ", " : "", s->targets[i]->name);
    } else {
      sb_printf(sb, "%s", s->var->name);
    }
    sb_printf(sb, " = ");
    print_expr(sb, s->a, indent);
    print_loc(sb, s);
    return;
  case T_EXPR:
    print_expr(sb, s->a, indent);
    print_loc(sb, s);
    return;
  case T_RETURN: sb_printf(sb, "return"); print_loc(sb, s); return;
  case T_IF:
    sb_printf(sb, "if ");
    print_expr(sb, s->c, indent);
    print_targets(sb, s);
    print_loc(sb, s);
    print_block(sb, &s->body, indent + 2);
    if (s->orelse.n) {
      sb_printf(sb, "%*selse\n", indent, "");
      print_block(sb, &s->orelse, indent + 2);
    }
    return;
  case T_FOR:
    sb_printf(sb, "for %s in range(", s->var->name);
    print_expr(sb, s->a, indent);
    sb_printf(sb, ", ");
    print_expr(sb, s->b, indent);
    sb_printf(sb, ", ");
    print_expr(sb, s->c, indent);
    sb_putc(sb, ')');
    if (s->num_stages) sb_printf(sb, " num_stages=%d", s->num_stages);
    if (s->loop_unroll_factor) sb_printf(sb, " loop_unroll_factor=%d", s->loop_unroll_factor);
    if (s->disable_licm) sb_printf(sb, " disable_licm=True");
    print_targets(sb, s);
    print_loc(sb, s);
    print_block(sb, &s->body, indent + 2);
    return;
  case T_WHILE:
    sb_printf(sb, "while");
    print_targets(sb, s);
    print_loc(sb, s);
    if (s->before.n) {
      sb_printf(sb, "%*sbefore\n", indent + 2, "");
      print_block(sb, &s->before, indent + 4);
    }
    sb_printf(sb, "%*scondition ", indent + 2, "");
    print_expr(sb, s->c, indent + 2);
    sb_printf(sb, "\n%*sdo\n", indent + 2, "");
    print_block(sb, &s->body, indent + 4);
    return;
  default:
    sb_printf(sb, "?\n");
    return;
  }
}

static void print_block(StrBuf *sb, const TNodeList *l, int indent) {
  for (int i = 0; i < l->n; i++) print_stmt(sb, l->v[i], indent);
}

void ast_print_kernel(StrBuf *sb, const Kernel *k) {
  for (int i = 0; i < k->notes.n; i++) sb_printf(sb, "# %s\n", (const char *)k->notes.v[i]);
  sb_printf(sb, "kernel %s(", k->name);
  for (int i = 0; i < k->params.n; i++) {
    const Var *v = k->params.v[i];
    const SigEntry *e = k->param_sigs.v[i];
    sb_printf(sb, "%s%s: ", i ? ", " : "", v->name);
    ty_print(sb, k->param_types.v[i]);
    if (e->divisibility) sb_printf(sb, " :%d", e->divisibility);
  }
  sb_printf(sb, ")\n");
  for (int i = 0; i < k->const_names.n; i++) {
    sb_printf(sb, "  constexpr %s = ", (const char *)k->const_names.v[i]);
    cvalue_print(sb, k->const_values.v[i]);
    sb_putc(sb, '\n');
  }
  sb_printf(sb, "  num_warps = %d, num_stages = %d\n", k->num_warps, k->num_stages);
  sb_printf(sb, "body\n");
  print_block(sb, &k->body, 2);
}
