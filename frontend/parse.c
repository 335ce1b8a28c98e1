/*
 * parse.c — tokens to an AST of the kernels in a Python file.
 *
 * The file is an ordinary Python module. Only three things in it matter: the
 * imports (which names mean `triton` and `triton.language`), the functions
 * decorated with `@triton.jit` (with their `autotune`/`heuristics`
 * decorators), and top-level `tl.constexpr` globals. Every other statement is
 * skipped by its token structure — a logical line, plus the indented block
 * after it — so host code never needs to be understood, only tokenized.
 *
 * Inside a kernel the grammar is Python's, with Python's precedence; each
 * parser function has its grammar rule above it. Constructs Python has and
 * kernels do not (classes, `global`, `with`, comprehensions in statements)
 * are parsed far enough to be reported at their position.
 */
#include "frontend.h"

#include <string.h>

#define MAX_DEPTH 120

typedef struct Parser {
  Arena *a;
  Diags *d;
  Module *m;
  Token *tok; /* current token */
  Token *end;
  int depth;
  bool in_kernel;
} Parser;

/* ---- token helpers ---------------------------------------------------------- */

static bool at(Parser *P, TokKind k) { return P->tok->kind == k; }
static TokKind peek_kind(Parser *P, int n) {
  Token *t = P->tok + n;
  return t < P->end ? t->kind : TK_EOF;
}

static Token *next(Parser *P) {
  Token *t = P->tok;
  if (t->kind != TK_EOF) P->tok++;
  return t;
}

static bool accept(Parser *P, TokKind k) {
  if (!at(P, k)) return false;
  next(P);
  return true;
}

static const char *tok_desc(Parser *P, Token *t) {
  switch (t->kind) {
  case TK_NAME: return arena_printf(P->a, "name '%s'", t->sval);
  case TK_INT: case TK_FLOAT: return arena_printf(P->a, "number '%.*s'", t->len, t->p);
  default: return tok_kind_name(t->kind);
  }
}

_Noreturn static void error_at(Parser *P, Token *t, const char *msg) {
  diag_error(P->d, t->loc, "%s", msg);
}

static Token *expect(Parser *P, TokKind k, const char *context) {
  if (!at(P, k))
    diag_error(P->d, P->tok->loc, "expected %s %s, found %s", tok_kind_name(k), context,
               tok_desc(P, P->tok));
  return next(P);
}

static void enter(Parser *P) {
  if (++P->depth > MAX_DEPTH) error_at(P, P->tok, "expression or block nested too deeply");
}
static void leave(Parser *P) { P->depth--; }

static Node *new_node(Parser *P, NodeKind k, Token *t) {
  Node *n = arena_alloc(P->a, sizeof *n);
  n->kind = k;
  n->tok = t;
  return n;
}

static NodeList to_list(Parser *P, PtrVec *v) {
  NodeList l = {NULL, v->n};
  if (v->n) {
    l.v = arena_alloc(P->a, sizeof(Node *) * (size_t)v->n);
    memcpy(l.v, v->v, sizeof(Node *) * (size_t)v->n);
  }
  return l;
}

/* ---- expressions ------------------------------------------------------------ */

static Node *expr(Parser *P);
static Node *or_test(Parser *P);
static Node *test_list(Parser *P, bool allow_star);
static Node *target_list(Parser *P);

static bool starts_expr(TokKind k) {
  switch (k) {
  case TK_NAME: case TK_INT: case TK_FLOAT: case TK_STRING: case TK_LPAREN: case TK_LBRACKET:
  case TK_LBRACE: case TK_MINUS: case TK_PLUS: case TK_TILDE: case TK_KW_not: case TK_KW_None:
  case TK_KW_True: case TK_KW_False: case TK_KW_lambda: case TK_ELLIPSIS: case TK_KW_await:
  case TK_STAR:
    return true;
  default:
    return false;
  }
}

/* comp_tail = ('for' target_list 'in' or_test ('if' or_test)*)+ */
static Node *comp_tail(Parser *P, Node *elt, Token *t) {
  Node *n = new_node(P, N_COMP, t);
  n->lhs = elt;
  PtrVec parts = {0};
  while (at(P, TK_KW_for) || at(P, TK_KW_async)) {
    accept(P, TK_KW_async);
    Token *ft = next(P);
    Node *f = new_node(P, N_FOR, ft);
    f->lhs = target_list(P);
    expect(P, TK_KW_in, "in comprehension");
    f->cond = or_test(P);
    vec_push(P->a, &parts, f);
    while (accept(P, TK_KW_if)) vec_push(P->a, &parts, or_test(P));
  }
  n->kids = to_list(P, &parts);
  return n;
}

/* atom = NAME | NUMBER | STRING+ | 'None' | 'True' | 'False' | '...'
 *      | '(' [expr_list | comp] ')' | '[' [expr_list | comp] ']' | '{' dict_or_set '}' */
static Node *atom(Parser *P) {
  Token *t = P->tok;
  switch (t->kind) {
  case TK_NAME: {
    next(P);
    Node *n = new_node(P, N_NAME, t);
    n->name = t->sval;
    return n;
  }
  case TK_INT: {
    next(P);
    Node *n = new_node(P, N_INT, t);
    n->ival = t->ival;
    if (t->int_overflow) error_at(P, t, "integer literal does not fit in 64 bits");
    return n;
  }
  case TK_FLOAT: {
    next(P);
    if (t->imag && P->in_kernel) error_at(P, t, "complex numbers are not supported in kernels");
    Node *n = new_node(P, N_FLOAT, t);
    n->fval = t->fval;
    return n;
  }
  case TK_STRING: {
    Node *n = new_node(P, N_STR, t);
    StrBuf sb = {.arena = P->a};
    while (at(P, TK_STRING)) {
      Token *s = next(P);
      if (s->fstring && P->in_kernel) error_at(P, s, "f-strings are not supported in kernels");
      sb_printf(&sb, "%.*s", s->slen, s->sval);
    }
    n->sval = arena_strndup(P->a, sb.s ? sb.s : "", sb.len);
    n->slen = (int)sb.len;
    sb_free(&sb);
    return n;
  }
  case TK_KW_None: next(P); return new_node(P, N_NONE, t);
  case TK_KW_True: next(P); return new_node(P, N_TRUE, t);
  case TK_KW_False: next(P); return new_node(P, N_FALSE, t);
  case TK_ELLIPSIS: next(P); return new_node(P, N_ELLIPSIS, t);
  case TK_LPAREN: {
    next(P);
    if (accept(P, TK_RPAREN)) return new_node(P, N_TUPLE, t);
    Node *first = expr(P);
    if (at(P, TK_WALRUS)) error_at(P, P->tok, "assignment expressions (':=') are not supported");
    if (at(P, TK_KW_for)) {
      Node *c = comp_tail(P, first, t);
      expect(P, TK_RPAREN, "after generator expression");
      return c;
    }
    if (accept(P, TK_RPAREN)) return first; /* parenthesized */
    PtrVec v = {0};
    vec_push(P->a, &v, first);
    while (accept(P, TK_COMMA)) {
      if (at(P, TK_RPAREN)) break;
      vec_push(P->a, &v, expr(P));
    }
    expect(P, TK_RPAREN, "to close the tuple");
    Node *n = new_node(P, N_TUPLE, t);
    n->kids = to_list(P, &v);
    return n;
  }
  case TK_LBRACKET: {
    next(P);
    Node *n = new_node(P, N_LIST, t);
    if (accept(P, TK_RBRACKET)) return n;
    Node *first = expr(P);
    if (at(P, TK_KW_for)) {
      Node *c = comp_tail(P, first, t);
      expect(P, TK_RBRACKET, "after list comprehension");
      return c;
    }
    PtrVec v = {0};
    vec_push(P->a, &v, first);
    while (accept(P, TK_COMMA)) {
      if (at(P, TK_RBRACKET)) break;
      vec_push(P->a, &v, expr(P));
    }
    expect(P, TK_RBRACKET, "to close the list");
    n->kids = to_list(P, &v);
    return n;
  }
  case TK_LBRACE: {
    next(P);
    Node *n = new_node(P, N_DICT, t);
    if (accept(P, TK_RBRACE)) return n;
    PtrVec v = {0};
    bool is_set = false;
    for (;;) {
      if (accept(P, TK_POW)) { /* {**other} */
        Node *s = new_node(P, N_STARRED, P->tok);
        s->lhs = expr(P);
        vec_push(P->a, &v, s);
        vec_push(P->a, &v, s);
      } else {
        Node *k = expr(P);
        if (v.n == 0 && !at(P, TK_COLON)) is_set = true;
        if (is_set) {
          vec_push(P->a, &v, k);
        } else {
          expect(P, TK_COLON, "in dictionary");
          Node *val = expr(P);
          if (v.n == 0 && at(P, TK_KW_for)) {
            Node *c = comp_tail(P, val, t);
            expect(P, TK_RBRACE, "after dictionary comprehension");
            return c;
          }
          vec_push(P->a, &v, k);
          vec_push(P->a, &v, val);
        }
      }
      if (is_set && v.n == 1 && at(P, TK_KW_for)) {
        Node *c = comp_tail(P, v.v[0], t);
        expect(P, TK_RBRACE, "after set comprehension");
        return c;
      }
      if (!accept(P, TK_COMMA) || at(P, TK_RBRACE)) break;
    }
    expect(P, TK_RBRACE, "to close the dictionary");
    if (is_set) {
      n->kind = N_LIST;
      n->op = TK_LBRACE;
    }
    n->kids = to_list(P, &v);
    return n;
  }
  default:
    diag_error(P->d, t->loc, "expected an expression, found %s", tok_desc(P, t));
  }
}

/* subscript = expr | [expr] ':' [expr] [':' [expr]] ; subscripts = subscript (',' subscript)* */
static Node *subscript(Parser *P) {
  Token *t = P->tok;
  Node *lo = NULL;
  if (!at(P, TK_COLON)) {
    lo = expr(P);
    if (!at(P, TK_COLON)) return lo;
  }
  next(P);
  Node *s = new_node(P, N_SLICE, t);
  s->lhs = lo;
  if (!at(P, TK_COLON) && !at(P, TK_COMMA) && !at(P, TK_RBRACKET)) s->rhs = expr(P);
  if (accept(P, TK_COLON) && !at(P, TK_COMMA) && !at(P, TK_RBRACKET)) s->cond = expr(P);
  return s;
}

/* call_args = [arg (',' arg)* [',']] ; arg = expr | NAME '=' expr | '*' expr | '**' expr */
static void call_args(Parser *P, Node *call) {
  PtrVec args = {0}, kw = {0};
  while (!at(P, TK_RPAREN)) {
    Token *t = P->tok;
    if (at(P, TK_NAME) && peek_kind(P, 1) == TK_ASSIGN) {
      next(P);
      next(P);
      Node *k = new_node(P, N_KWARG, t);
      k->name = t->sval;
      k->lhs = expr(P);
      for (int i = 0; i < kw.n; i++)
        if (!strcmp(((Node *)kw.v[i])->name, k->name))
          diag_error(P->d, t->loc, "keyword argument '%s' repeated", k->name);
      vec_push(P->a, &kw, k);
    } else if (at(P, TK_STAR) || at(P, TK_POW)) {
      next(P);
      Node *s = new_node(P, N_STARRED, t);
      s->op = t->kind;
      s->lhs = expr(P);
      vec_push(P->a, &args, s);
    } else {
      if (kw.n) error_at(P, t, "positional argument follows keyword argument");
      Node *e = expr(P);
      if (at(P, TK_KW_for)) e = comp_tail(P, e, t);
      vec_push(P->a, &args, e);
    }
    if (!accept(P, TK_COMMA)) break;
  }
  expect(P, TK_RPAREN, "to close the call");
  call->kids = to_list(P, &args);
  call->kwargs = to_list(P, &kw);
}

/* primary = atom ('(' call_args ')' | '[' subscripts ']' | '.' NAME)* */
static Node *primary(Parser *P) {
  Token *start = P->tok;
  Node *n = atom(P);
  for (;;) {
    Token *t = P->tok;
    if (accept(P, TK_LPAREN)) {
      /* a call is reported where its callee starts: `tl.load(` at `tl` */
      Node *c = new_node(P, N_CALL, start);
      c->lhs = n;
      enter(P);
      call_args(P, c);
      leave(P);
      n = c;
    } else if (accept(P, TK_LBRACKET)) {
      Node *s = new_node(P, N_SUBSCRIPT, t);
      s->lhs = n;
      enter(P);
      Node *first = subscript(P);
      if (at(P, TK_COMMA)) {
        PtrVec v = {0};
        vec_push(P->a, &v, first);
        while (accept(P, TK_COMMA) && !at(P, TK_RBRACKET)) vec_push(P->a, &v, subscript(P));
        Node *tup = new_node(P, N_TUPLE, t);
        tup->kids = to_list(P, &v);
        first = tup;
      }
      leave(P);
      expect(P, TK_RBRACKET, "to close the subscript");
      s->rhs = first;
      n = s;
    } else if (accept(P, TK_DOT)) {
      Token *name = expect(P, TK_NAME, "after '.'");
      Node *a = new_node(P, N_ATTR, name);
      a->lhs = n;
      a->name = name->sval;
      n = a;
    } else {
      return n;
    }
  }
}

static Node *factor(Parser *P);

/* power = ['await'] primary ['**' factor] */
static Node *power(Parser *P) {
  if (at(P, TK_KW_await)) error_at(P, P->tok, "'await' is not supported in kernels");
  Node *n = primary(P);
  Token *t = P->tok;
  if (accept(P, TK_POW)) {
    Node *b = new_node(P, N_BINOP, t);
    b->op = TK_POW;
    b->lhs = n;
    b->rhs = factor(P);
    return b;
  }
  return n;
}

/* factor = ('+' | '-' | '~') factor | power */
static Node *factor(Parser *P) {
  Token *t = P->tok;
  if (at(P, TK_PLUS) || at(P, TK_MINUS) || at(P, TK_TILDE)) {
    next(P);
    enter(P);
    Node *n = new_node(P, N_UNOP, t);
    n->op = t->kind;
    n->lhs = factor(P);
    leave(P);
    return n;
  }
  return power(P);
}

/* A left-associative binary level: sub (op sub)* */
static Node *binary_level(Parser *P, Node *(*sub)(Parser *), const TokKind *ops) {
  Node *n = sub(P);
  for (;;) {
    bool hit = false;
    for (const TokKind *o = ops; *o; o++)
      if (at(P, *o)) hit = true;
    if (!hit) return n;
    Token *t = next(P);
    Node *b = new_node(P, N_BINOP, t);
    b->op = t->kind;
    b->lhs = n;
    b->rhs = sub(P);
    n = b;
  }
}

/* term = factor (('*' | '/' | '//' | '%' | '@') factor)* */
static Node *term(Parser *P) {
  static const TokKind ops[] = {TK_STAR, TK_SLASH, TK_DSLASH, TK_PERCENT, TK_AT, 0};
  return binary_level(P, factor, ops);
}
/* arith = term (('+' | '-') term)* */
static Node *arith(Parser *P) {
  static const TokKind ops[] = {TK_PLUS, TK_MINUS, 0};
  return binary_level(P, term, ops);
}
/* shift = arith (('<<' | '>>') arith)* */
static Node *shift(Parser *P) {
  static const TokKind ops[] = {TK_SHL, TK_SHR, 0};
  return binary_level(P, arith, ops);
}
/* and_expr = shift ('&' shift)* */
static Node *and_expr(Parser *P) {
  static const TokKind ops[] = {TK_AMP, 0};
  return binary_level(P, shift, ops);
}
/* xor_expr = and_expr ('^' and_expr)* */
static Node *xor_expr(Parser *P) {
  static const TokKind ops[] = {TK_CARET, 0};
  return binary_level(P, and_expr, ops);
}
/* or_expr = xor_expr ('|' xor_expr)* */
static Node *or_expr(Parser *P) {
  static const TokKind ops[] = {TK_PIPE, 0};
  return binary_level(P, xor_expr, ops);
}

/* comparison = or_expr (comp_op or_expr)*
 * comp_op = '<' | '>' | '==' | '>=' | '<=' | '!=' | 'in' | 'not' 'in' | 'is' ['not'] */
static Node *comparison(Parser *P) {
  Node *first = or_expr(P);
  PtrVec operands = {0};
  Op ops[64];
  int nops = 0;
  Token *t0 = P->tok;
  for (;;) {
    Op op;
    switch (P->tok->kind) {
    case TK_LT: case TK_GT: case TK_EQ: case TK_GE: case TK_LE: case TK_NE: case TK_KW_in:
      op = next(P)->kind;
      break;
    case TK_KW_not:
      if (peek_kind(P, 1) != TK_KW_in) goto done;
      next(P);
      next(P);
      op = OP_NOT_IN;
      break;
    case TK_KW_is:
      next(P);
      op = accept(P, TK_KW_not) ? OP_IS_NOT : TK_KW_is;
      break;
    default:
      goto done;
    }
    if (nops == 64) error_at(P, P->tok, "comparison chain too long");
    if (!operands.n) vec_push(P->a, &operands, first);
    ops[nops++] = op;
    vec_push(P->a, &operands, or_expr(P));
  }
done:
  if (!nops) return first;
  Node *n = new_node(P, N_COMPARE, t0);
  n->kids = to_list(P, &operands);
  n->ops = arena_alloc(P->a, sizeof(Op) * (size_t)nops);
  memcpy(n->ops, ops, sizeof(Op) * (size_t)nops);
  n->op = ops[0];
  n->lhs = n->kids.v[0];
  n->rhs = n->kids.v[1];
  return n;
}

/* not_test = 'not' not_test | comparison */
static Node *not_test(Parser *P) {
  Token *t = P->tok;
  if (accept(P, TK_KW_not)) {
    enter(P);
    Node *n = new_node(P, N_UNOP, t);
    n->op = TK_KW_not;
    n->lhs = not_test(P);
    leave(P);
    return n;
  }
  return comparison(P);
}

/* and_test = not_test ('and' not_test)* ; or_test = and_test ('or' and_test)* */
static Node *and_test(Parser *P) {
  Node *n = not_test(P);
  while (at(P, TK_KW_and)) {
    Token *t = next(P);
    Node *b = new_node(P, N_AND, t);
    b->lhs = n;
    b->rhs = not_test(P);
    n = b;
  }
  return n;
}

static Node *or_test(Parser *P) {
  Node *n = and_test(P);
  while (at(P, TK_KW_or)) {
    Token *t = next(P);
    Node *b = new_node(P, N_OR, t);
    b->lhs = n;
    b->rhs = and_test(P);
    n = b;
  }
  return n;
}

/* lambda = 'lambda' [NAME (',' NAME)*] ':' expr */
static Node *lambda(Parser *P) {
  Token *t = next(P);
  Node *n = new_node(P, N_LAMBDA, t);
  PtrVec params = {0};
  while (!at(P, TK_COLON)) {
    Token *pt = P->tok;
    if (accept(P, TK_STAR) || accept(P, TK_POW)) pt = P->tok;
    Token *name = expect(P, TK_NAME, "as a lambda parameter");
    Node *p = new_node(P, N_NAME, pt);
    p->name = name->sval;
    if (accept(P, TK_ASSIGN)) p->rhs = expr(P);
    vec_push(P->a, &params, p);
    if (!accept(P, TK_COMMA)) break;
  }
  expect(P, TK_COLON, "after lambda parameters");
  n->kids = to_list(P, &params);
  n->lhs = expr(P);
  return n;
}

/* expr = lambda | or_test ['if' or_test 'else' expr] */
static Node *expr(Parser *P) {
  enter(P);
  Node *n;
  if (at(P, TK_KW_lambda)) {
    n = lambda(P);
  } else {
    n = or_test(P);
    Token *t = P->tok;
    if (accept(P, TK_KW_if)) {
      Node *c = new_node(P, N_IFEXP, t);
      c->lhs = n;
      c->cond = or_test(P);
      expect(P, TK_KW_else, "in conditional expression");
      c->rhs = expr(P);
      n = c;
    }
  }
  leave(P);
  return n;
}

/* test_list = (expr | '*' expr) (',' (expr | '*' expr))* [','] — a tuple when
 * it has a comma. */
static Node *test_list(Parser *P, bool allow_star) {
  Token *t = P->tok;
  PtrVec v = {0};
  bool comma = false;
  for (;;) {
    Node *e;
    if (allow_star && at(P, TK_STAR)) {
      Token *st = next(P);
      e = new_node(P, N_STARRED, st);
      e->lhs = or_expr(P);
    } else {
      e = expr(P);
    }
    vec_push(P->a, &v, e);
    if (!at(P, TK_COMMA)) break;
    next(P);
    comma = true;
    if (!starts_expr(P->tok->kind)) break;
  }
  if (!comma) return v.v[0];
  Node *n = new_node(P, N_TUPLE, t);
  n->kids = to_list(P, &v);
  return n;
}

/* target_list = or_expr (',' or_expr)* [','] — the targets of `for`, which
 * must stop before 'in' */
static Node *target_list(Parser *P) {
  Token *t = P->tok;
  PtrVec v = {0};
  bool comma = false;
  for (;;) {
    vec_push(P->a, &v, or_expr(P));
    if (!accept(P, TK_COMMA)) break;
    comma = true;
    if (at(P, TK_KW_in)) break;
  }
  if (!comma) return v.v[0];
  Node *n = new_node(P, N_TUPLE, t);
  n->kids = to_list(P, &v);
  return n;
}

/* ---- statements ------------------------------------------------------------- */

static void block(Parser *P, NodeList *out);

static void check_target(Parser *P, Node *t) {
  switch (t->kind) {
  case N_NAME: case N_SUBSCRIPT: case N_ATTR: return;
  case N_STARRED: check_target(P, t->lhs); return;
  case N_TUPLE: case N_LIST:
    for (int i = 0; i < t->kids.n; i++) check_target(P, t->kids.v[i]);
    return;
  case N_CALL: error_at(P, t->tok, "cannot assign to a function call");
  default: error_at(P, t->tok, "cannot assign to this expression");
  }
}

static TokKind aug_to_op(TokKind k) {
  switch (k) {
  case TK_PLUSEQ: return TK_PLUS;
  case TK_MINUSEQ: return TK_MINUS;
  case TK_STAREQ: return TK_STAR;
  case TK_SLASHEQ: return TK_SLASH;
  case TK_DSLASHEQ: return TK_DSLASH;
  case TK_PERCENTEQ: return TK_PERCENT;
  case TK_POWEQ: return TK_POW;
  case TK_AMPEQ: return TK_AMP;
  case TK_PIPEEQ: return TK_PIPE;
  case TK_CARETEQ: return TK_CARET;
  case TK_SHLEQ: return TK_SHL;
  case TK_SHREQ: return TK_SHR;
  case TK_ATEQ: return TK_AT;
  default: return TK_EOF;
  }
}

/* small_stmt = 'pass' | 'break' | 'continue' | 'return' [test_list]
 *            | 'assert' expr [',' expr] | expr_stmt
 * expr_stmt  = test_list (('=' test_list)* | augop test_list | ':' expr ['=' test_list]) */
static Node *small_stmt(Parser *P) {
  Token *t = P->tok;
  switch (t->kind) {
  case TK_KW_pass: next(P); return new_node(P, N_PASS, t);
  case TK_KW_break: next(P); return new_node(P, N_BREAK, t);
  case TK_KW_continue: next(P); return new_node(P, N_CONTINUE, t);
  case TK_KW_return: {
    next(P);
    Node *n = new_node(P, N_RETURN, t);
    if (!at(P, TK_NEWLINE) && !at(P, TK_SEMI)) n->lhs = test_list(P, false);
    return n;
  }
  case TK_KW_assert: {
    next(P);
    Node *n = new_node(P, N_ASSERT, t);
    n->cond = expr(P);
    if (accept(P, TK_COMMA)) n->lhs = expr(P);
    return n;
  }
  case TK_KW_global: case TK_KW_nonlocal: case TK_KW_del: case TK_KW_raise: case TK_KW_import:
  case TK_KW_from: case TK_KW_yield:
    diag_error(P->d, t->loc, "%s statements are not supported in kernels", tok_kind_name(t->kind));
  default: break;
  }
  Node *lhs = test_list(P, true);
  if (at(P, TK_ASSIGN)) {
    Node *n = new_node(P, N_ASSIGN, P->tok);
    PtrVec targets = {0};
    check_target(P, lhs);
    vec_push(P->a, &targets, lhs);
    Node *value = NULL;
    while (accept(P, TK_ASSIGN)) {
      value = test_list(P, true);
      if (at(P, TK_ASSIGN)) {
        check_target(P, value);
        vec_push(P->a, &targets, value);
      }
    }
    n->tok = lhs->tok;
    n->kids = to_list(P, &targets);
    n->rhs = value;
    return n;
  }
  TokKind op = aug_to_op(P->tok->kind);
  if (op != TK_EOF) {
    Token *ot = next(P);
    if (lhs->kind != N_NAME && lhs->kind != N_SUBSCRIPT && lhs->kind != N_ATTR)
      error_at(P, lhs->tok, "illegal target for augmented assignment");
    Node *n = new_node(P, N_AUGASSIGN, ot);
    n->op = op;
    n->lhs = lhs;
    n->rhs = test_list(P, false);
    return n;
  }
  if (at(P, TK_COLON)) {
    Token *ct = next(P);
    if (lhs->kind != N_NAME) error_at(P, lhs->tok, "only single names can be annotated");
    Node *n = new_node(P, N_ANNASSIGN, ct);
    n->lhs = lhs;
    n->annot = expr(P);
    if (accept(P, TK_ASSIGN)) n->rhs = test_list(P, false);
    return n;
  }
  if (at(P, TK_WALRUS)) error_at(P, P->tok, "assignment expressions (':=') are not supported");
  Node *n = new_node(P, N_EXPR_STMT, lhs->tok);
  n->lhs = lhs;
  return n;
}

/* simple_stmt = small_stmt (';' small_stmt)* [';'] NEWLINE */
static void simple_stmt(Parser *P, PtrVec *out) {
  for (;;) {
    vec_push(P->a, out, small_stmt(P));
    if (!accept(P, TK_SEMI) || at(P, TK_NEWLINE)) break;
  }
  if (!at(P, TK_NEWLINE) && !at(P, TK_EOF))
    diag_error(P->d, P->tok->loc, "expected end of statement, found %s", tok_desc(P, P->tok));
  accept(P, TK_NEWLINE);
}

static Node *def_stmt(Parser *P, PtrVec *decorators);

/* if_stmt = 'if' expr ':' block ('elif' expr ':' block)* ['else' ':' block] */
static Node *if_stmt(Parser *P) {
  Token *t = next(P);
  Node *n = new_node(P, N_IF, t);
  n->cond = expr(P);
  expect(P, TK_COLON, "after the if condition");
  block(P, &n->body);
  if (at(P, TK_KW_elif)) {
    Node *e = if_stmt(P);
    n->orelse.v = arena_alloc(P->a, sizeof(Node *));
    n->orelse.v[0] = e;
    n->orelse.n = 1;
  } else if (accept(P, TK_KW_else)) {
    expect(P, TK_COLON, "after 'else'");
    block(P, &n->orelse);
  }
  return n;
}

/* compound_stmt = if_stmt | 'for' targets 'in' test_list ':' block
 *               | 'while' expr ':' block | decorated def | unsupported forms */
static void statement(Parser *P, PtrVec *out) {
  Token *t = P->tok;
  switch (t->kind) {
  case TK_KW_if: vec_push(P->a, out, if_stmt(P)); return;
  case TK_KW_for: {
    next(P);
    Node *n = new_node(P, N_FOR, t);
    n->lhs = target_list(P);
    check_target(P, n->lhs);
    expect(P, TK_KW_in, "in for statement");
    n->cond = test_list(P, false);
    expect(P, TK_COLON, "after the for clause");
    block(P, &n->body);
    if (at(P, TK_KW_else)) error_at(P, P->tok, "'else' clauses on loops are not supported in kernels");
    vec_push(P->a, out, n);
    return;
  }
  case TK_KW_while: {
    next(P);
    Node *n = new_node(P, N_WHILE, t);
    n->cond = expr(P);
    expect(P, TK_COLON, "after the while condition");
    block(P, &n->body);
    if (at(P, TK_KW_else)) error_at(P, P->tok, "'else' clauses on loops are not supported in kernels");
    vec_push(P->a, out, n);
    return;
  }
  case TK_KW_def: case TK_AT:
    error_at(P, t, "nested function definitions are not supported in kernels; define a separate @triton.jit function");
  case TK_KW_class: error_at(P, t, "classes cannot be defined inside kernels");
  case TK_KW_with: error_at(P, t, "'with' statements are not supported in kernels");
  case TK_KW_try: error_at(P, t, "'try' statements are not supported in kernels");
  case TK_KW_async: error_at(P, t, "'async' is not supported in kernels");
  case TK_KW_elif: case TK_KW_else: case TK_KW_except: case TK_KW_finally:
    diag_error(P->d, t->loc, "%s without a matching statement before it", tok_kind_name(t->kind));
  case TK_INDENT: error_at(P, t, "unexpected indent");
  default: simple_stmt(P, out); return;
  }
}

/* block = simple_stmt | NEWLINE INDENT statement+ DEDENT */
static void block(Parser *P, NodeList *out) {
  PtrVec v = {0};
  enter(P);
  if (accept(P, TK_NEWLINE)) {
    if (!at(P, TK_INDENT)) error_at(P, P->tok, "expected an indented block");
    next(P);
    while (!at(P, TK_DEDENT) && !at(P, TK_EOF)) statement(P, &v);
    accept(P, TK_DEDENT);
  } else {
    simple_stmt(P, &v);
  }
  leave(P);
  *out = to_list(P, &v);
}

/* def = 'def' NAME '(' [param (',' param)*] ')' ['->' expr] ':' block
 * param = NAME [':' expr] ['=' expr] */
static Node *def_stmt(Parser *P, PtrVec *decorators) {
  Token *t = expect(P, TK_KW_def, "after decorators");
  Token *name = expect(P, TK_NAME, "after 'def'");
  Node *n = new_node(P, N_DEF, name);
  n->name = name->sval;
  (void)t;
  expect(P, TK_LPAREN, "after the function name");
  PtrVec params = {0};
  while (!at(P, TK_RPAREN)) {
    Token *pt = P->tok;
    if ((at(P, TK_STAR) && peek_kind(P, 1) == TK_COMMA) || (at(P, TK_STAR) && peek_kind(P, 1) == TK_RPAREN))
      error_at(P, pt, "keyword-only markers ('*') are not supported in kernel parameters");
    if (at(P, TK_STAR) || at(P, TK_POW))
      error_at(P, pt, "variadic parameters are not supported in kernels");
    if (at(P, TK_SLASH)) error_at(P, pt, "positional-only markers are not supported in kernels");
    Token *pn = expect(P, TK_NAME, "as a parameter name");
    Node *p = new_node(P, N_NAME, pn);
    p->name = pn->sval;
    for (int i = 0; i < params.n; i++)
      if (!strcmp(((Node *)params.v[i])->name, p->name))
        diag_error(P->d, pn->loc, "duplicate parameter '%s'", p->name);
    if (accept(P, TK_COLON)) p->annot = expr(P);
    if (accept(P, TK_ASSIGN)) p->rhs = expr(P);
    else if (params.n && ((Node *)params.v[params.n - 1])->rhs)
      diag_error(P->d, pn->loc, "parameter '%s' without a default follows a parameter with one", p->name);
    vec_push(P->a, &params, p);
    if (!accept(P, TK_COMMA)) break;
  }
  expect(P, TK_RPAREN, "to close the parameter list");
  if (accept(P, TK_ARROW)) (void)expr(P);
  expect(P, TK_COLON, "after the function signature");
  n->kids = to_list(P, &params);
  n->decorators = to_list(P, decorators);
  bool saved = P->in_kernel;
  P->in_kernel = true;
  block(P, &n->body);
  P->in_kernel = saved;
  return n;
}

/* ---- the module level ---------------------------------------------------------- */

/* Skips one logical line and the indented block after it, if any. */
static void skip_statement(Parser *P) {
  while (!at(P, TK_NEWLINE) && !at(P, TK_EOF)) {
    if (at(P, TK_INDENT) || at(P, TK_DEDENT)) break;
    next(P);
  }
  accept(P, TK_NEWLINE);
  if (at(P, TK_INDENT)) {
    int depth = 0;
    do {
      if (at(P, TK_INDENT)) depth++;
      if (at(P, TK_DEDENT)) depth--;
      next(P);
    } while (depth > 0 && !at(P, TK_EOF));
  }
}

static void add_alias(Parser *P, const char *name, const char *path) {
  vec_push(P->a, &P->m->alias_names, (void *)name);
  vec_push(P->a, &P->m->alias_paths, (void *)path);
}

const char *module_alias(const Module *m, const char *name) {
  for (int i = m->alias_names.n - 1; i >= 0; i--)
    if (!strcmp(m->alias_names.v[i], name)) return m->alias_paths.v[i];
  return NULL;
}

JitFunc *module_find_func(const Module *m, const char *name) {
  for (int i = m->funcs.n - 1; i >= 0; i--) {
    JitFunc *f = m->funcs.v[i];
    if (!strcmp(f->name, name)) return f;
  }
  return NULL;
}

/* dotted = NAME ('.' NAME)* */
static const char *dotted_name(Parser *P) {
  StrBuf sb = {.arena = P->a};
  sb_printf(&sb, "%s", expect(P, TK_NAME, "in import")->sval);
  while (at(P, TK_DOT) && peek_kind(P, 1) == TK_NAME) {
    next(P);
    sb_printf(&sb, ".%s", next(P)->sval);
  }
  const char *s = arena_strndup(P->a, sb.s, sb.len);
  sb_free(&sb);
  return s;
}

/* import = 'import' dotted ['as' NAME] (',' ...)*
 *        | 'from' dotted 'import' NAME ['as' NAME] (',' ...)* */
static void import_stmt(Parser *P) {
  Token *start = P->tok;
  if (accept(P, TK_KW_import)) {
    for (;;) {
      if (!at(P, TK_NAME)) break;
      const char *path = dotted_name(P);
      if (accept(P, TK_KW_as)) {
        add_alias(P, expect(P, TK_NAME, "after 'as'")->sval, path);
      } else {
        /* `import triton.language` binds `triton` */
        const char *dot = strchr(path, '.');
        const char *head = dot ? arena_strndup(P->a, path, (size_t)(dot - path)) : path;
        add_alias(P, head, head);
      }
      if (!accept(P, TK_COMMA)) break;
    }
  } else if (accept(P, TK_KW_from)) {
    while (at(P, TK_DOT)) next(P); /* relative imports: not triton */
    if (at(P, TK_NAME)) {
      const char *path = dotted_name(P);
      if (accept(P, TK_KW_import)) {
        bool paren = accept(P, TK_LPAREN);
        while (at(P, TK_NAME)) {
          const char *name = next(P)->sval;
          const char *local = name;
          if (accept(P, TK_KW_as)) local = expect(P, TK_NAME, "after 'as'")->sval;
          add_alias(P, local, arena_printf(P->a, "%s.%s", path, name));
          if (!accept(P, TK_COMMA)) break;
        }
        if (paren) accept(P, TK_RPAREN);
      }
    }
  }
  (void)start;
  skip_statement(P);
}

/* The full dotted path an expression names through the import aliases:
 * `tl.constexpr` -> "triton.language.constexpr"; NULL when not a dotted name. */
static const char *resolve_path(Parser *P, Node *e) {
  if (e->kind == N_NAME) {
    const char *a = module_alias(P->m, e->name);
    return a ? a : NULL;
  }
  if (e->kind == N_ATTR) {
    const char *base = resolve_path(P, e->lhs);
    return base ? arena_printf(P->a, "%s.%s", base, e->name) : NULL;
  }
  return NULL;
}

static bool path_is(const char *path, const char *what) {
  if (!path) return false;
  if (!strcmp(path, what)) return true;
  /* triton.runtime.jit.jit, triton.runtime.autotuner.autotune, ... */
  const char *last = strrchr(path, '.');
  const char *wlast = strrchr(what, '.');
  return !strncmp(path, "triton.", 7) && last && wlast && !strcmp(last, wlast) &&
         strstr(path, ".language.") == NULL;
}

/* Is the decorator at the current token one of triton's? Looks at its dotted
 * head without parsing, since host decorators may hold any Python. */
static bool triton_decorator_ahead(Parser *P) {
  Token *t = P->tok;
  if (t->kind != TK_NAME) return false;
  const char *a = module_alias(P->m, t->sval);
  return a && !strncmp(a, "triton", 6);
}

static Global *find_global(Module *m, const char *name) {
  for (int i = m->globals.n - 1; i >= 0; i--) {
    Global *g = m->globals.v[i];
    if (!strcmp(g->name, name)) return g;
  }
  return NULL;
}

/* A top-level `NAME = tl.constexpr(...)` or `NAME: tl.constexpr = ...`. */
static void global_stmt(Parser *P) {
  Token *name = P->tok;
  Global *g = arena_alloc(P->a, sizeof *g);
  g->name = name->sval;
  g->tok = name;
  vec_push(P->a, &P->m->globals, g);
  /* Look ahead for `tl.constexpr` right after '=' or ':' */
  Token *t = P->tok + 2;
  bool annotated = P->tok[1].kind == TK_COLON;
  if (t->kind != TK_NAME) {
    skip_statement(P);
    return;
  }
  const char *a = module_alias(P->m, t->sval);
  if (!a || strncmp(a, "triton", 6)) {
    skip_statement(P);
    return;
  }
  next(P);
  next(P);
  bool saved = P->in_kernel;
  P->in_kernel = true; /* a constexpr global is kernel code */
  Node *e = expr(P);
  if (annotated) {
    const char *path = resolve_path(P, e);
    if (!path_is(path, "triton.language.constexpr")) {
      P->in_kernel = saved;
      skip_statement(P);
      return;
    }
    if (!accept(P, TK_ASSIGN)) error_at(P, P->tok, "a constexpr global needs a value");
    g->value = expr(P);
  } else {
    if (e->kind == N_CALL && path_is(resolve_path(P, e->lhs), "triton.language.constexpr")) {
      if (e->kids.n != 1 || e->kwargs.n)
        error_at(P, e->tok, "tl.constexpr() takes exactly one value");
      g->value = e->kids.v[0];
    }
  }
  P->in_kernel = saved;
  if (!at(P, TK_NEWLINE) && !at(P, TK_EOF)) {
    g->value = NULL;
    skip_statement(P);
    return;
  }
  accept(P, TK_NEWLINE);
}

static int literal_int(Parser *P, Node *e, const char *what) {
  if (e->kind != N_INT || e->ival > 1024) {
    diag_warning(P->d, e->tok->loc, "%s is not an integer literal; ignored", what);
    return 0;
  }
  return (int)e->ival;
}

/* triton.Config({'BLOCK': 128, ...}, num_warps=4, num_stages=3) */
static bool read_config(Parser *P, JitFunc *f, Node *c) {
  if (c->kind != N_CALL || !path_is(resolve_path(P, c->lhs), "triton.Config") || c->kids.n < 1 ||
      c->kids.v[0]->kind != N_DICT)
    return false;
  AutotuneConfig *cfg = arena_alloc(P->a, sizeof *cfg);
  cfg->tok = c->tok;
  Node *dict = c->kids.v[0];
  PtrVec kw = {0};
  for (int i = 0; i + 1 < dict->kids.n; i += 2) {
    Node *k = dict->kids.v[i];
    if (k->kind != N_STR) return false;
    Node *kv = new_node(P, N_KWARG, k->tok);
    kv->name = k->sval;
    kv->lhs = dict->kids.v[i + 1];
    vec_push(P->a, &kw, kv);
  }
  cfg->kwargs = to_list(P, &kw);
  for (int i = 0; i < c->kwargs.n; i++) {
    Node *k = c->kwargs.v[i];
    if (!strcmp(k->name, "num_warps")) cfg->num_warps = literal_int(P, k->lhs, "num_warps");
    if (!strcmp(k->name, "num_stages")) cfg->num_stages = literal_int(P, k->lhs, "num_stages");
  }
  vec_push(P->a, &f->configs, cfg);
  return true;
}

/* Interprets @triton.autotune / @triton.heuristics / @triton.jit(...). */
static void read_decorator(Parser *P, JitFunc *f, Node *d) {
  Node *callee = d->kind == N_CALL ? d->lhs : d;
  const char *path = resolve_path(P, callee);
  if (path_is(path, "triton.jit")) {
    f->is_jit = true;
    for (int i = 0; d->kind == N_CALL && i < d->kwargs.n; i++) {
      Node *k = d->kwargs.v[i];
      if (!strcmp(k->name, "num_warps")) f->jit_num_warps = literal_int(P, k->lhs, "num_warps");
    }
    return;
  }
  if (path_is(path, "triton.autotune")) {
    if (d->kind != N_CALL) return;
    for (int i = 0; i < d->kwargs.n; i++) {
      Node *k = d->kwargs.v[i];
      if (!strcmp(k->name, "configs")) {
        bool ok = k->lhs->kind == N_LIST;
        for (int j = 0; ok && j < k->lhs->kids.n; j++) ok = read_config(P, f, k->lhs->kids.v[j]);
        if (!ok) {
          f->configs.n = 0;
          diag_warning(P->d, k->lhs->tok->loc,
                       "autotune configs are computed by host code and cannot be read; "
                       "give the meta-parameters in the signature or with -D");
        }
      } else if (k->lhs->kind == N_LIST || k->lhs->kind == N_TUPLE) {
        PtrVec *names = !strcmp(k->name, "key") ? &f->autotune_keys : !strcmp(k->name, "reset_to_zero") ? &f->autotune_reset
                      : !strcmp(k->name, "restore_value") ? &f->autotune_restore : NULL;
        for (int j = 0; names && j < k->lhs->kids.n; j++) vec_push(P->a, names, k->lhs->kids.v[j]);
      }
    }
    return;
  }
  if (path_is(path, "triton.heuristics")) {
    if (d->kind != N_CALL || d->kids.n != 1 || d->kids.v[0]->kind != N_DICT) {
      diag_warning(P->d, d->tok->loc, "heuristics that are not a dictionary literal are ignored");
      return;
    }
    Node *dict = d->kids.v[0];
    for (int i = 0; i + 1 < dict->kids.n; i += 2) {
      Node *k = dict->kids.v[i];
      if (k->kind != N_STR) continue;
      Node *kv = new_node(P, N_KWARG, k->tok);
      kv->name = k->sval;
      kv->lhs = dict->kids.v[i + 1];
      vec_push(P->a, &f->heuristics, kv);
    }
    return;
  }
}

/* decorated = ('@' expr NEWLINE)+ (def | class) */
static void decorated(Parser *P) {
  PtrVec decos = {0};
  bool any_triton = false;
  while (at(P, TK_AT)) {
    next(P);
    if (triton_decorator_ahead(P)) {
      Node *d = expr(P);
      vec_push(P->a, &decos, d);
      any_triton = true;
      if (!accept(P, TK_NEWLINE))
        diag_error(P->d, P->tok->loc, "expected end of decorator, found %s", tok_desc(P, P->tok));
    } else {
      while (!at(P, TK_NEWLINE) && !at(P, TK_EOF)) next(P);
      accept(P, TK_NEWLINE);
    }
  }
  if (any_triton && at(P, TK_KW_async)) error_at(P, P->tok, "a @triton.jit function cannot be 'async'");
  if (!any_triton || !at(P, TK_KW_def)) {
    if (at(P, TK_KW_def) && peek_kind(P, 1) == TK_NAME) vec_push(P->a, &P->m->host_funcs, (void *)P->tok[1].sval);
    skip_statement(P);
    return;
  }
  Token *def_tok = P->tok;
  JitFunc *f = arena_alloc(P->a, sizeof *f);
  for (int i = 0; i < decos.n; i++) read_decorator(P, f, decos.v[i]);
  if (!f->is_jit) {
    if (f->configs.n || f->heuristics.n)
      error_at(P, def_tok, "autotune/heuristics decorators need @triton.jit below them");
    if (peek_kind(P, 1) == TK_NAME) vec_push(P->a, &P->m->host_funcs, (void *)P->tok[1].sval);
    skip_statement(P);
    return;
  }
  f->def = def_stmt(P, &decos);
  f->name = f->def->name;
  vec_push(P->a, &P->m->funcs, f);
}

Module *parse_module(Arena *a, Diags *d, const Source *src, const TokenList *toks) {
  Module *m = arena_alloc(a, sizeof *m);
  m->src = src;
  Parser P = {.a = a, .d = d, .m = m, .tok = toks->v, .end = toks->v + toks->n};
  jmp_buf jb, *saved = d->unwind;
  d->unwind = &jb;
  if (setjmp(jb)) {
    d->unwind = saved;
    return NULL;
  }
  while (!at(&P, TK_EOF)) {
    switch (P.tok->kind) {
    case TK_NEWLINE: case TK_DEDENT: next(&P); break;
    case TK_KW_import: case TK_KW_from: import_stmt(&P); break;
    case TK_AT: decorated(&P); break;
    case TK_INDENT: error_at(&P, P.tok, "unexpected indent");
    case TK_KW_def:
      if (peek_kind(&P, 1) == TK_NAME) vec_push(a, &m->host_funcs, (void *)P.tok[1].sval);
      skip_statement(&P);
      break;
    case TK_NAME:
      if (peek_kind(&P, 1) == TK_ASSIGN || peek_kind(&P, 1) == TK_COLON) {
        global_stmt(&P);
        break;
      }
      skip_statement(&P);
      break;
    default: skip_statement(&P); break;
    }
  }
  (void)find_global;
  d->unwind = saved;
  return m;
}
