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

/* Nesting: each level of the tree the parser builds (an operand of an
 * operator, a call, a subscript or an attribute of an expression, a
 * parenthesized or bracketed expression, an elif, a block) and each
 * recursion of the parser counts one, so the depth of every Node tree is
 * bounded and every later walk of one (sema, its helpers) is too. The stack
 * it bounds is measured in tests/unit/test_limits.c; docs/language.md
 * ("Limits") states it. */
#define MAX_DEPTH 200

typedef struct Parser {
  Arena *a;
  Diags *d;
  Module *m;
  Token *tok; /* current token */
  Token *end;
  int depth;
  bool in_kernel;
  bool at_limit; /* the error being raised is MAX_DEPTH's */
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

/* One level deeper, reported at t when it is one too many. */
static void enter_at(Parser *P, Token *t) {
  if (++P->depth > MAX_DEPTH) {
    P->at_limit = true;
    diag_error(P->d, t->loc, "expression or block nested too deeply (more than %d levels)", MAX_DEPTH);
  }
}
static void enter(Parser *P) { enter_at(P, P->tok); }
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

/* comp_tail = ('for' target_list 'in' or_test ('if' or_test)*)+
 * what: the kind of comprehension, plural, for sema's error. */
static Node *comp_tail(Parser *P, Node *elt, Token *t, const char *what) {
  Node *n = new_node(P, N_COMP, t);
  n->lhs = elt;
  n->sval = what;
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
      Node *c = comp_tail(P, first, t, "generator expressions");
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
      Node *c = comp_tail(P, first, t, "list comprehensions");
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
            Node *c = comp_tail(P, val, t, "dictionary comprehensions");
            expect(P, TK_RBRACE, "after dictionary comprehension");
            return c;
          }
          vec_push(P->a, &v, k);
          vec_push(P->a, &v, val);
        }
      }
      if (is_set && v.n == 1 && at(P, TK_KW_for)) {
        Node *c = comp_tail(P, v.v[0], t, "set comprehensions");
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
      if (at(P, TK_KW_for)) e = comp_tail(P, e, t, "generator expressions");
      vec_push(P->a, &args, e);
    }
    if (!accept(P, TK_COMMA)) break;
  }
  expect(P, TK_RPAREN, "to close the call");
  call->kids = to_list(P, &args);
  call->kwargs = to_list(P, &kw);
}

/* primary = atom ('(' call_args ')' | '[' subscripts ']' | '.' NAME)*
 * Each trailer nests the tree one level: `f()()`, `x[0][0]`, `a.b.c`. */
static Node *primary(Parser *P) {
  Token *start = P->tok;
  int depth = P->depth;
  Node *n = atom(P);
  for (;;) {
    Token *t = P->tok;
    if (at(P, TK_LPAREN) || at(P, TK_LBRACKET) || at(P, TK_DOT)) enter(P);
    if (accept(P, TK_LPAREN)) {
      /* a call is reported where its callee starts: `tl.load(` at `tl` */
      Node *c = new_node(P, N_CALL, start);
      c->lhs = n;
      call_args(P, c);
      n = c;
    } else if (accept(P, TK_LBRACKET)) {
      Node *s = new_node(P, N_SUBSCRIPT, t);
      s->lhs = n;
      Node *first = subscript(P);
      if (at(P, TK_COMMA)) {
        PtrVec v = {0};
        vec_push(P->a, &v, first);
        while (accept(P, TK_COMMA) && !at(P, TK_RBRACKET)) vec_push(P->a, &v, subscript(P));
        Node *tup = new_node(P, N_TUPLE, t);
        tup->kids = to_list(P, &v);
        first = tup;
      }
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
      P->depth = depth;
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
    enter_at(P, t);
    b->rhs = factor(P);
    leave(P);
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

/* A left-associative binary level: sub (op sub)*. `a + b + c` nests to the
 * left, one level per operator. */
static Node *binary_level(Parser *P, Node *(*sub)(Parser *), const TokKind *ops) {
  int depth = P->depth;
  Node *n = sub(P);
  for (;;) {
    bool hit = false;
    for (const TokKind *o = ops; *o; o++)
      if (at(P, *o)) hit = true;
    if (!hit) {
      P->depth = depth;
      return n;
    }
    Token *t = next(P);
    enter_at(P, t);
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
  int depth = P->depth;
  Node *n = not_test(P);
  while (at(P, TK_KW_and)) {
    Token *t = next(P);
    enter_at(P, t);
    Node *b = new_node(P, N_AND, t);
    b->lhs = n;
    b->rhs = not_test(P);
    n = b;
  }
  P->depth = depth;
  return n;
}

static Node *or_test(Parser *P) {
  int depth = P->depth;
  Node *n = and_test(P);
  while (at(P, TK_KW_or)) {
    Token *t = next(P);
    enter_at(P, t);
    Node *b = new_node(P, N_OR, t);
    b->lhs = n;
    b->rhs = and_test(P);
    n = b;
  }
  P->depth = depth;
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

static Node *unsupported(Parser *P, Token *t, const char *why) {
  Node *n = new_node(P, N_UNSUPPORTED, t);
  n->sval = why;
  return n;
}

static void skip_statement(Parser *P);

/* A compound statement kernels cannot have, kept as an error for sema:
 * its header, its block and the clauses that continue it are skipped. */
static void unsupported_block(Parser *P, PtrVec *out, Token *t, const char *why) {
  vec_push(P->a, out, unsupported(P, t, why));
  while (at(P, TK_AT)) skip_statement(P); /* decorators, then what they decorate */
  skip_statement(P);
  while (at(P, TK_KW_except) || at(P, TK_KW_finally) || (t->kind == TK_KW_try && at(P, TK_KW_else))) skip_statement(P);
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
  case TK_KW_from: case TK_KW_yield: {
    /* an error only where it runs: Triton never visits a constexpr branch not taken */
    Node *n = unsupported(P, t, arena_printf(P->a, "%s statements are not supported in kernels", tok_kind_name(t->kind)));
    while (!at(P, TK_NEWLINE) && !at(P, TK_SEMI) && !at(P, TK_EOF)) next(P);
    return n;
  }
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
    enter(P); /* an elif is an if inside the else */
    Node *e = if_stmt(P);
    leave(P);
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
    unsupported_block(P, out, t, "nested function definitions are not supported in kernels; define a separate @triton.jit function");
    return;
  case TK_KW_class: unsupported_block(P, out, t, "classes cannot be defined inside kernels"); return;
  case TK_KW_with: unsupported_block(P, out, t, "'with' statements are not supported in kernels"); return;
  case TK_KW_try: unsupported_block(P, out, t, "'try' statements are not supported in kernels"); return;
  case TK_KW_async: unsupported_block(P, out, t, "'async' is not supported in kernels"); return;
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

/* The module level is read the way Python binds names, without running
 * anything: imports, `def`s and `NAME = ...` assignments become Bindings, at
 * any depth of module-level `if`/`try`/`with`, each marked with the
 * compound statement it sits in so that sema can choose among alternatives.
 * Function bodies are not parsed here: a FuncDef keeps its tokens, and
 * parse_funcdef reads it when sema first reaches it, so an error in a
 * function no kernel uses is no error (Triton compiles lazily too).
 * Decorators and assigned values are parsed as expressions when they are
 * ones; host code that is not (comprehensions, dictionaries of lambdas are
 * fine, `yield` is not) is kept as "opaque". */

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

/* Parses with fn, catching errors: NULL (and no diagnostic) when the text
 * there is not an expression tilec reads; the position is then unchanged.
 * With limit_fatal, nesting past MAX_DEPTH stays an error: a decorator that
 * deep is no host code, and skipping it would silently drop a kernel. */
static Node *try_parse(Parser *P, Node *(*fn)(Parser *), bool limit_fatal) {
  Token *start = P->tok;
  int depth = P->depth;
  DiagMark mark = diag_mark(P->d);
  jmp_buf jb, *saved = P->d->unwind;
  P->d->unwind = &jb;
  bool saved_kernel = P->in_kernel;
  P->in_kernel = true;
  Node *n = NULL;
  if (!setjmp(jb)) {
    n = fn(P);
  } else {
    if (limit_fatal && P->at_limit) {
      P->d->unwind = saved;
      diag_unwind(P->d);
    }
    P->at_limit = false;
    P->tok = start;
    P->depth = depth;
    diag_rollback(P->d, mark);
    n = NULL;
  }
  P->in_kernel = saved_kernel;
  P->d->unwind = saved;
  return n;
}

static Node *test_list_any(Parser *P) { return test_list(P, true); }

static Binding *bind(Parser *P, BindKind k, const char *name, Token *t, int group) {
  Binding *b = arena_alloc(P->a, sizeof *b);
  b->kind = k;
  b->name = name;
  b->tok = t;
  b->group = group;
  vec_push(P->a, &P->m->bindings, b);
  return b;
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
 *        | 'from' ('.')* [dotted] 'import' ('*' | NAME ['as' NAME] (',' ...)*) */
static void import_stmt(Parser *P, int group) {
  Token *start = P->tok;
  if (accept(P, TK_KW_import)) {
    for (;;) {
      if (!at(P, TK_NAME)) break;
      Token *t = P->tok;
      const char *path = dotted_name(P);
      Binding *b;
      if (accept(P, TK_KW_as)) {
        b = bind(P, BIND_IMPORT, expect(P, TK_NAME, "after 'as'")->sval, t, group);
      } else {
        /* `import triton.language` binds `triton` */
        const char *dot = strchr(path, '.');
        path = dot ? arena_strndup(P->a, path, (size_t)(dot - path)) : path;
        b = bind(P, BIND_IMPORT, path, t, group);
      }
      b->path = path;
      b->line = start;
      if (!accept(P, TK_COMMA)) break;
    }
  } else if (accept(P, TK_KW_from)) {
    int level = 0;
    while (at(P, TK_DOT) || at(P, TK_ELLIPSIS)) level += next(P)->kind == TK_DOT ? 1 : 3;
    const char *path = at(P, TK_NAME) ? dotted_name(P) : "";
    if (accept(P, TK_KW_import) && at(P, TK_STAR)) {
      Binding *b = bind(P, BIND_STAR, "*", P->tok, group);
      b->path = path;
      b->level = level;
      b->line = start;
    } else if (P->tok[-1].kind == TK_KW_import) {
      bool paren = accept(P, TK_LPAREN);
      while (at(P, TK_NAME)) {
        Token *t = next(P);
        const char *local = t->sval;
        if (accept(P, TK_KW_as)) local = expect(P, TK_NAME, "after 'as'")->sval;
        Binding *b = bind(P, BIND_IMPORT_FROM, local, t, group);
        b->path = path;
        b->attr = t->sval;
        b->level = level;
        b->line = start;
        if (!accept(P, TK_COMMA)) break;
      }
      if (paren) accept(P, TK_RPAREN);
    }
  }
  skip_statement(P);
}

/* A function: its decorators (parsed when they are expressions), its name and
 * its tokens, read later by parse_funcdef. */
static void funcdef(Parser *P, PtrVec *decos, Token *first, bool opaque, int group) {
  FuncDef *f = arena_alloc(P->a, sizeof *f);
  f->mod = P->m;
  f->decorators = to_list(P, decos);
  f->opaque_decorator = opaque;
  f->first = first;
  f->def = P->tok;
  f->name = peek_kind(P, 1) == TK_NAME ? P->tok[1].sval : NULL;
  skip_statement(P);
  f->end = P->tok;
  if (!f->name) return;
  vec_push(P->a, &P->m->defs, f);
  bind(P, BIND_DEF, f->name, f->def + 1, group)->def = f;
}

/* decorated = ('@' expr NEWLINE)+ (def | class) */
static void decorated(Parser *P, int group) {
  PtrVec decos = {0};
  bool opaque = false;
  Token *first = P->tok;
  while (at(P, TK_AT)) {
    next(P);
    Node *d = try_parse(P, expr, true);
    if (d && at(P, TK_NEWLINE)) {
      vec_push(P->a, &decos, d);
    } else {
      opaque = true;
    }
    while (!at(P, TK_NEWLINE) && !at(P, TK_EOF)) next(P);
    accept(P, TK_NEWLINE);
  }
  Token *async_tok = at(P, TK_KW_async) && peek_kind(P, 1) == TK_KW_def ? next(P) : NULL;
  if (!at(P, TK_KW_def)) {
    skip_statement(P);
    return;
  }
  funcdef(P, &decos, first, opaque, group);
  if (async_tok && P->m->defs.n) ((FuncDef *)P->m->defs.v[P->m->defs.n - 1])->async_tok = async_tok;
}

/* `NAME = value` or `NAME: annotation [= value]` at the module level. The
 * value is kept when it parses as an expression: whether it is a constexpr,
 * a Triton function, a kernel made by a call, or host code is for sema to
 * find out when a kernel reads the name. */
static void assign_stmt(Parser *P, int group) {
  Token *name = P->tok;
  Binding *b = bind(P, BIND_ASSIGN, name->sval, name, group);
  next(P);
  if (accept(P, TK_COLON)) {
    b->annot = try_parse(P, expr, false);
    if (!b->annot || !accept(P, TK_ASSIGN)) {
      if (b->annot && (at(P, TK_NEWLINE) || at(P, TK_EOF))) P->m->bindings.n--; /* a bare annotation binds nothing */
      skip_statement(P);
      return;
    }
  } else {
    next(P); /* '=' */
    if (peek_kind(P, 0) == TK_NAME && peek_kind(P, 1) == TK_ASSIGN) {
      /* chained `A = B = value`: B is bound by its own statement */
      skip_statement(P);
      return;
    }
  }
  b->value = try_parse(P, test_list_any, false);
  if (b->value && !at(P, TK_NEWLINE) && !at(P, TK_EOF) && !at(P, TK_SEMI)) b->value = NULL;
  skip_statement(P);
}

static void module_block(Parser *P, int group);

/* Is this `if __name__ == "__main__":`? Its block never runs on import. */
static bool is_main_guard(Parser *P) {
  Token *t = P->tok + 1;
  if (t + 3 >= P->end) return false;
  return t[0].kind == TK_NAME && !strcmp(t[0].sval, "__name__") && t[1].kind == TK_EQ && t[2].kind == TK_STRING &&
         !strcmp(t[2].sval, "__main__") && t[3].kind == TK_COLON;
}

/* A compound statement at the module level (if/elif/else, try/except/else/
 * finally, with): its header is host code, skipped; its blocks bind names
 * under one new group. */
static void compound_stmt(Parser *P) {
  int group = ++P->m->ngroups;
  enter(P);
  for (;;) {
    while (!at(P, TK_COLON) && !at(P, TK_NEWLINE) && !at(P, TK_EOF)) next(P);
    if (!accept(P, TK_COLON)) {
      skip_statement(P);
      break;
    }
    if (accept(P, TK_NEWLINE) && at(P, TK_INDENT)) {
      next(P);
      module_block(P, group);
      accept(P, TK_DEDENT);
    } else {
      skip_statement(P); /* `if x: y` on one line */
    }
    if (!at(P, TK_KW_elif) && !at(P, TK_KW_else) && !at(P, TK_KW_except) && !at(P, TK_KW_finally)) break;
    next(P);
  }
  leave(P);
}

/* One module-level statement. */
static void module_stmt(Parser *P, int group) {
  switch (P->tok->kind) {
  case TK_NEWLINE: case TK_SEMI: next(P); break;
  case TK_KW_import: case TK_KW_from: import_stmt(P, group); break;
  case TK_AT: decorated(P, group); break;
  case TK_KW_def: {
    PtrVec none = {0};
    funcdef(P, &none, P->tok, false, group);
    break;
  }
  case TK_KW_async:
    if (peek_kind(P, 1) == TK_KW_def) {
      next(P);
      PtrVec none = {0};
      funcdef(P, &none, P->tok, false, group);
    } else {
      skip_statement(P);
    }
    break;
  case TK_KW_class:
    if (peek_kind(P, 1) == TK_NAME) bind(P, BIND_CLASS, P->tok[1].sval, P->tok + 1, group);
    skip_statement(P);
    break;
  case TK_KW_if:
    if (is_main_guard(P)) {
      skip_statement(P);
      while (at(P, TK_KW_elif) || at(P, TK_KW_else)) skip_statement(P);
      break;
    }
    compound_stmt(P);
    break;
  case TK_KW_try: case TK_KW_with: compound_stmt(P); break;
  case TK_INDENT: error_at(P, P->tok, "unexpected indent");
  case TK_NAME:
    if (peek_kind(P, 1) == TK_ASSIGN || peek_kind(P, 1) == TK_COLON) {
      assign_stmt(P, group);
      break;
    }
    skip_statement(P);
    break;
  default: skip_statement(P); break;
  }
}

/* Statements up to the end of the block (a DEDENT) or of the file. */
static void module_block(Parser *P, int group) {
  while (!at(P, TK_EOF) && !at(P, TK_DEDENT)) module_stmt(P, group);
}

Module *parse_module(Arena *a, Diags *d, const Source *src, const TokenList *toks) {
  Module *m = arena_alloc(a, sizeof *m);
  m->src = src;
  TokenList *kept = arena_alloc(a, sizeof *kept); /* the caller's list may not outlive the module */
  *kept = *toks;
  m->toks = kept;
  Parser P = {.a = a, .d = d, .m = m, .tok = toks->v, .end = toks->v + toks->n};
  jmp_buf jb, *saved = d->unwind;
  d->unwind = &jb;
  if (setjmp(jb)) {
    d->unwind = saved;
    return NULL;
  }
  while (!at(&P, TK_EOF)) {
    module_block(&P, 0);
    if (at(&P, TK_DEDENT)) next(&P);
  }
  d->unwind = saved;
  return m;
}

/* Parses a function's `def` (errors unwind through d, as any other). */
Node *parse_funcdef(Arena *a, Diags *d, FuncDef *f) {
  const Module *m = f->mod;
  Parser P = {.a = a, .d = d, .m = (Module *)m, .tok = f->def, .end = m->toks->v + m->toks->n};
  PtrVec decos = {0};
  for (int i = 0; i < f->decorators.n; i++) vec_push(a, &decos, f->decorators.v[i]);
  return def_stmt(&P, &decos);
}
