/*
 * parse.h — what the pieces of the parser share (parse.c, the expressions;
 * parse_stmt.c, the statements of a function body; parse_module.c, the
 * module level): the parser's state, its token helpers, and the rules one
 * piece calls in another. Internal to the frontend; the helpers are static
 * inline so that the grammar functions keep their short calls (`at`,
 * `expect`, `next`) and no name leaves an object file, and the shared rules
 * take the parse_ prefix.
 */
#ifndef TILEC_FRONTEND_PARSE_H
#define TILEC_FRONTEND_PARSE_H

#include "frontend.h"

#include <string.h>

/* Nesting: each level of the tree the parser builds (an operand of an
 * operator, a call, a subscript or an attribute of an expression, a
 * parenthesized or bracketed expression, an elif, a block) and each
 * recursion of the parser counts one, so the depth of every Node tree is
 * bounded and every later walk of one (sema, its helpers) is too. The stack
 * it bounds is measured in tests/unit/test_limits.c; docs/language.md
 * ("Limits") states it. */
#define PARSE_MAX_DEPTH 200

typedef struct Parser {
  Arena *a;
  Diags *d;
  Module *m;
  Token *tok; /* current token */
  Token *end;
  int depth;
  bool in_kernel;
  bool at_limit; /* the error being raised is PARSE_MAX_DEPTH's */
} Parser;

/* ---- token helpers ---------------------------------------------------------- */

static inline bool at(Parser *P, TokKind k) { return P->tok->kind == k; }
static inline TokKind peek_kind(Parser *P, int n) {
  Token *t = P->tok + n;
  return t < P->end ? t->kind : TK_EOF;
}

static inline Token *next(Parser *P) {
  Token *t = P->tok;
  if (t->kind != TK_EOF) P->tok++;
  return t;
}

static inline bool accept(Parser *P, TokKind k) {
  if (!at(P, k)) return false;
  next(P);
  return true;
}

static inline const char *tok_desc(Parser *P, Token *t) {
  switch (t->kind) {
  case TK_NAME: return arena_printf(P->a, "name '%s'", t->sval);
  case TK_INT: case TK_FLOAT: return arena_printf(P->a, "number '%.*s'", t->len, t->p);
  default: return tok_kind_name(t->kind);
  }
}

_Noreturn static inline void error_at(Parser *P, Token *t, const char *msg) {
  diag_error(P->d, t->loc, "%s", msg);
}

static inline Token *expect(Parser *P, TokKind k, const char *context) {
  if (!at(P, k))
    diag_error(P->d, P->tok->loc, "expected %s %s, found %s", tok_kind_name(k), context,
               tok_desc(P, P->tok));
  return next(P);
}

/* One level deeper, reported at t when it is one too many. */
static inline void enter_at(Parser *P, Token *t) {
  if (++P->depth > PARSE_MAX_DEPTH) {
    P->at_limit = true;
    diag_error(P->d, t->loc, "expression or block nested too deeply (more than %d levels)", PARSE_MAX_DEPTH);
  }
}
static inline void enter(Parser *P) { enter_at(P, P->tok); }
static inline void leave(Parser *P) { P->depth--; }

static inline Node *new_node(Parser *P, NodeKind k, Token *t) {
  Node *n = arena_alloc(P->a, sizeof *n);
  n->kind = k;
  n->tok = t;
  return n;
}

static inline NodeList to_list(Parser *P, PtrVec *v) {
  NodeList l = {NULL, v->n};
  if (v->n) {
    l.v = arena_alloc(P->a, sizeof(Node *) * (size_t)v->n);
    memcpy(l.v, v->v, sizeof(Node *) * (size_t)v->n);
  }
  return l;
}

/* ---- the rules the pieces share ------------------------------------------------ */

/* parse.c */
Node *parse_expr(Parser *P);
/* allow_star: starred items (`*x`), as in an assignment or a module-level value */
Node *parse_test_list(Parser *P, bool allow_star);
Node *parse_target_list(Parser *P); /* the targets of `for`: stops before 'in' */
/* parse_module.c: skips one logical line and the indented block after it */
void parse_skip_statement(Parser *P);

#endif
