/*
 * parse_stmt.c — the statements of a function body, and its `def`: what
 * parse_funcdef reads when sema first reaches a function (parse_module.c
 * only kept its tokens).
 *
 * The grammar is Python's; each parser function has its grammar rule above
 * it. Constructs Python has and kernels do not (classes, `global`, `with`,
 * nested `def`s) are parsed far enough to be reported at their position:
 * as N_UNSUPPORTED nodes, an error only if sema reaches them, as Triton
 * never visits a constexpr branch not taken.
 */
#include "parse.h"

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

/* A compound statement kernels cannot have, kept as an error for sema:
 * its header, its block and the clauses that continue it are skipped. */
static void unsupported_block(Parser *P, PtrVec *out, Token *t, const char *why) {
  vec_push(P->a, out, unsupported(P, t, why));
  while (at(P, TK_AT)) parse_skip_statement(P); /* decorators, then what they decorate */
  parse_skip_statement(P);
  while (at(P, TK_KW_except) || at(P, TK_KW_finally) || (t->kind == TK_KW_try && at(P, TK_KW_else))) parse_skip_statement(P);
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
    if (!at(P, TK_NEWLINE) && !at(P, TK_SEMI)) n->lhs = parse_test_list(P, false);
    return n;
  }
  case TK_KW_assert: {
    next(P);
    Node *n = new_node(P, N_ASSERT, t);
    n->cond = parse_expr(P);
    if (accept(P, TK_COMMA)) n->lhs = parse_expr(P);
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
  Node *lhs = parse_test_list(P, true);
  if (at(P, TK_ASSIGN)) {
    Node *n = new_node(P, N_ASSIGN, P->tok);
    PtrVec targets = {0};
    check_target(P, lhs);
    vec_push(P->a, &targets, lhs);
    Node *value = NULL;
    while (accept(P, TK_ASSIGN)) {
      value = parse_test_list(P, true);
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
    n->rhs = parse_test_list(P, false);
    return n;
  }
  if (at(P, TK_COLON)) {
    Token *ct = next(P);
    if (lhs->kind != N_NAME) error_at(P, lhs->tok, "only single names can be annotated");
    Node *n = new_node(P, N_ANNASSIGN, ct);
    n->lhs = lhs;
    n->annot = parse_expr(P);
    if (accept(P, TK_ASSIGN)) n->rhs = parse_test_list(P, false);
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
  n->cond = parse_expr(P);
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
    n->lhs = parse_target_list(P);
    check_target(P, n->lhs);
    expect(P, TK_KW_in, "in for statement");
    n->cond = parse_test_list(P, false);
    expect(P, TK_COLON, "after the for clause");
    block(P, &n->body);
    if (at(P, TK_KW_else)) error_at(P, P->tok, "'else' clauses on loops are not supported in kernels");
    vec_push(P->a, out, n);
    return;
  }
  case TK_KW_while: {
    next(P);
    Node *n = new_node(P, N_WHILE, t);
    n->cond = parse_expr(P);
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
  bool saved = P->in_kernel;
  P->in_kernel = true; /* defaults are read as kernel code reads them */
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
    if (accept(P, TK_COLON)) p->annot = parse_expr(P);
    if (accept(P, TK_ASSIGN)) p->rhs = parse_expr(P);
    else if (params.n && ((Node *)params.v[params.n - 1])->rhs)
      diag_error(P->d, pn->loc, "parameter '%s' without a default follows a parameter with one", p->name);
    vec_push(P->a, &params, p);
    if (!accept(P, TK_COMMA)) break;
  }
  expect(P, TK_RPAREN, "to close the parameter list");
  if (accept(P, TK_ARROW)) (void)parse_expr(P);
  expect(P, TK_COLON, "after the function signature");
  n->kids = to_list(P, &params);
  n->decorators = to_list(P, decorators);
  block(P, &n->body);
  P->in_kernel = saved;
  return n;
}
/* Parses a function's `def` (errors unwind through d, as any other). */
Node *parse_funcdef(Arena *a, Diags *d, FuncDef *f) {
  const Module *m = f->mod;
  Parser P = {.a = a, .d = d, .m = (Module *)m, .tok = f->def, .end = m->toks->v + m->toks->n};
  PtrVec decos = {0};
  for (int i = 0; i < f->decorators.n; i++) vec_push(a, &decos, f->decorators.v[i]);
  return def_stmt(&P, &decos);
}
