/*
 * parse.c — tokens to an AST of the kernels in a Python file: the
 * expressions.
 *
 * The parser is in three pieces, one for each way it reads the file:
 * parse_module.c binds the module level's names and skips its host code by
 * token structure; parse_stmt.c parses a function's body when sema first
 * reaches it; and this file parses the expressions both of them read.
 * parse.h holds the state and the token helpers they share.
 *
 * Inside a kernel the grammar is Python's, with Python's precedence; each
 * parser function has its grammar rule above it, and each level of binary
 * operators is one call of binary_level with the table of its operators.
 */
#include "parse.h"

static Node *or_test(Parser *P);

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
    f->lhs = parse_target_list(P);
    expect(P, TK_KW_in, "in comprehension");
    f->cond = or_test(P);
    vec_push(P->a, &parts, f);
    while (accept(P, TK_KW_if)) vec_push(P->a, &parts, or_test(P));
  }
  n->kids = to_list(P, &parts);
  return n;
}

/* An N_STR of text, reported at t. */
static Node *str_node(Parser *P, Token *t, const char *text) {
  Node *n = new_node(P, N_STR, t);
  n->sval = text;
  n->slen = (int)strlen(text);
  return n;
}

/* A field's expression, from the tokens lex_fstring made of it:
 * expr_list, as Python reads one (`f"{a, b}"` shows a tuple). */
static Node *field_expr(Parser *P, TokenList toks) {
  Parser Q = *P;
  Q.tok = toks.v;
  Q.end = toks.v + toks.n;
  enter(&Q);
  Node *e = parse_test_list(&Q, true);
  if (!at(&Q, TK_EOF))
    diag_error(P->d, Q.tok->loc, "expected '}' after the f-string field's expression, found %s", tok_desc(P, Q.tok));
  return e;
}

/* Appends an f-string's parts to parts: its text as N_STR (joined with
 * what precedes it in *text) and its fields as N_FIELD. */
static void fstring_parts(Parser *P, Token *t, const FString *fs, PtrVec *parts, StrBuf *text) {
  for (int i = 0; i <= fs->nfields; i++) {
    sb_printf(text, "%s", fs->text[i]);
    if (i == fs->nfields) break;
    const FField *f = &fs->fields[i];
    if (text->len) vec_push(P->a, parts, str_node(P, t, arena_strndup(P->a, text->s, text->len)));
    text->len = 0;
    Node *n = new_node(P, N_FIELD, f->expr.v);
    n->lhs = field_expr(P, f->expr);
    n->ival = (unsigned char)f->conversion;
    if (f->spec) {
      /* the spec is reported where it starts */
      Token *st = arena_alloc(P->a, sizeof *st);
      *st = *t;
      st->loc = f->spec_loc;
      Node *spec = new_node(P, N_FSTRING, st);
      PtrVec sparts = {0};
      StrBuf stext = {.arena = P->a};
      fstring_parts(P, st, f->spec, &sparts, &stext);
      if (stext.len) vec_push(P->a, &sparts, str_node(P, st, arena_strndup(P->a, stext.s, stext.len)));
      spec->kids = to_list(P, &sparts);
      n->rhs = spec;
    }
    vec_push(P->a, parts, n);
  }
}

/* fstring = STRING+, one of them an f-string: its text and fields, which
 * sema evaluates at compile time, as Triton does. */
static Node *fstring(Parser *P) {
  Token *t = P->tok;
  Node *n = new_node(P, N_FSTRING, t);
  PtrVec parts = {0};
  StrBuf text = {.arena = P->a};
  while (at(P, TK_STRING)) {
    Token *s = next(P);
    if (!s->fstring) {
      sb_append(&text, s->sval, (size_t)s->slen);
      continue;
    }
    FString fs;
    lex_fstring(P->a, P->d, s, &fs);
    fstring_parts(P, s, &fs, &parts, &text);
  }
  if (text.len || !parts.n) vec_push(P->a, &parts, str_node(P, t, arena_strndup(P->a, text.s ? text.s : "", text.len)));
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
    /* in kernels, their parameters' defaults and the module-level values
     * kernels read, f-strings are evaluated from constants as Python would */
    for (Token *s = t; s < P->end && s->kind == TK_STRING; s++)
      if (s->fstring && P->in_kernel) return fstring(P);
    Node *n = new_node(P, N_STR, t);
    StrBuf sb = {.arena = P->a};
    while (at(P, TK_STRING)) {
      Token *s = next(P);
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
    Node *first = parse_expr(P);
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
      vec_push(P->a, &v, parse_expr(P));
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
    Node *first = parse_expr(P);
    if (at(P, TK_KW_for)) {
      Node *c = comp_tail(P, first, t, "list comprehensions");
      expect(P, TK_RBRACKET, "after list comprehension");
      return c;
    }
    PtrVec v = {0};
    vec_push(P->a, &v, first);
    while (accept(P, TK_COMMA)) {
      if (at(P, TK_RBRACKET)) break;
      vec_push(P->a, &v, parse_expr(P));
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
        s->lhs = parse_expr(P);
        vec_push(P->a, &v, s);
        vec_push(P->a, &v, s);
      } else {
        Node *k = parse_expr(P);
        if (v.n == 0 && !at(P, TK_COLON)) is_set = true;
        if (is_set) {
          vec_push(P->a, &v, k);
        } else {
          expect(P, TK_COLON, "in dictionary");
          Node *val = parse_expr(P);
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
    lo = parse_expr(P);
    if (!at(P, TK_COLON)) return lo;
  }
  next(P);
  Node *s = new_node(P, N_SLICE, t);
  s->lhs = lo;
  if (!at(P, TK_COLON) && !at(P, TK_COMMA) && !at(P, TK_RBRACKET)) s->rhs = parse_expr(P);
  if (accept(P, TK_COLON) && !at(P, TK_COMMA) && !at(P, TK_RBRACKET)) s->cond = parse_expr(P);
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
      k->lhs = parse_expr(P);
      for (int i = 0; i < kw.n; i++)
        if (!strcmp(((Node *)kw.v[i])->name, k->name))
          diag_error(P->d, t->loc, "keyword argument '%s' repeated", k->name);
      vec_push(P->a, &kw, k);
    } else if (at(P, TK_STAR) || at(P, TK_POW)) {
      next(P);
      Node *s = new_node(P, N_STARRED, t);
      s->op = t->kind;
      s->lhs = parse_expr(P);
      vec_push(P->a, &args, s);
    } else {
      if (kw.n) error_at(P, t, "positional argument follows keyword argument");
      Node *e = parse_expr(P);
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
    if (accept(P, TK_ASSIGN)) p->rhs = parse_expr(P);
    vec_push(P->a, &params, p);
    if (!accept(P, TK_COMMA)) break;
  }
  expect(P, TK_COLON, "after lambda parameters");
  n->kids = to_list(P, &params);
  n->lhs = parse_expr(P);
  return n;
}

/* expr = lambda | or_test ['if' or_test 'else' expr] */
Node *parse_expr(Parser *P) {
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
      c->rhs = parse_expr(P);
      n = c;
    }
  }
  leave(P);
  return n;
}

/* test_list = (expr | '*' expr) (',' (expr | '*' expr))* [','] — a tuple when
 * it has a comma. */
Node *parse_test_list(Parser *P, bool allow_star) {
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
      e = parse_expr(P);
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
Node *parse_target_list(Parser *P) {
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
