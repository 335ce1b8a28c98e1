/*
 * parse_module.c — the module level of a Python file: the names it binds.
 *
 * The file is an ordinary Python module. Only three things in it matter: the
 * imports (which names mean `triton` and `triton.language`), the functions
 * decorated with `@triton.jit` (with their `autotune`/`heuristics`
 * decorators), and the module-level globals kernels read. Every other
 * statement is skipped by its token structure — a logical line, plus the
 * indented block after it — so host code never needs to be understood, only
 * tokenized. That is why the module level is apart from the kernel grammar
 * (parse.c, parse_stmt.c): there, text outside the grammar is an error;
 * here it is host code, skipped.
 *
 * The module level is read the way Python binds names, without running
 * anything: imports, `def`s and `NAME = ...` assignments become Bindings, at
 * any depth of module-level `if`/`try`/`with`, each marked with the
 * compound statement it sits in so that sema can choose among alternatives.
 * Function bodies are not parsed here: a FuncDef keeps its tokens, and
 * parse_funcdef reads it when sema first reaches it, so an error in a
 * function no kernel uses is no error (Triton compiles lazily too).
 * Decorators and assigned values are parsed as expressions when they are
 * ones; host code that is not (comprehensions, dictionaries of lambdas are
 * fine, `yield` is not) is kept as "opaque".
 */
#include "parse.h"

/* Skips one logical line and the indented block after it, if any. */
void parse_skip_statement(Parser *P) {
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
 * With limit_fatal, nesting past PARSE_MAX_DEPTH stays an error: a decorator that
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

static Node *test_list_any(Parser *P) { return parse_test_list(P, true); }

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
  parse_skip_statement(P);
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
  parse_skip_statement(P);
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
    Node *d = try_parse(P, parse_expr, true);
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
    parse_skip_statement(P);
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
    b->annot = try_parse(P, parse_expr, false);
    if (!b->annot || !accept(P, TK_ASSIGN)) {
      if (b->annot && (at(P, TK_NEWLINE) || at(P, TK_EOF))) P->m->bindings.n--; /* a bare annotation binds nothing */
      parse_skip_statement(P);
      return;
    }
  } else {
    next(P); /* '=' */
    if (peek_kind(P, 0) == TK_NAME && peek_kind(P, 1) == TK_ASSIGN) {
      /* chained `A = B = value`: B is bound by its own statement */
      parse_skip_statement(P);
      return;
    }
  }
  b->value = try_parse(P, test_list_any, false);
  if (b->value && !at(P, TK_NEWLINE) && !at(P, TK_EOF) && !at(P, TK_SEMI)) b->value = NULL;
  parse_skip_statement(P);
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
      parse_skip_statement(P);
      break;
    }
    if (accept(P, TK_NEWLINE) && at(P, TK_INDENT)) {
      next(P);
      module_block(P, group);
      accept(P, TK_DEDENT);
    } else {
      parse_skip_statement(P); /* `if x: y` on one line */
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
      parse_skip_statement(P);
    }
    break;
  case TK_KW_class:
    if (peek_kind(P, 1) == TK_NAME) bind(P, BIND_CLASS, P->tok[1].sval, P->tok + 1, group);
    parse_skip_statement(P);
    break;
  case TK_KW_if:
    if (is_main_guard(P)) {
      parse_skip_statement(P);
      while (at(P, TK_KW_elif) || at(P, TK_KW_else)) parse_skip_statement(P);
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
    parse_skip_statement(P);
    break;
  default: parse_skip_statement(P); break;
  }
}

/* Statements up to the end of the block (a DEDENT) or of the file. */
static void module_block(Parser *P, int group) {
  while (!at(P, TK_EOF) && !at(P, TK_DEDENT)) module_stmt(P, group);
}

/* m->by_name: the bindings' indices, by name and then file order. */
typedef struct NamedIndex {
  const char *name;
  int i;
} NamedIndex;

static int named_index_cmp(const void *pa, const void *pb) {
  const NamedIndex *x = pa, *y = pb;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->i > y->i) - (x->i < y->i);
}

static void index_bindings(Arena *a, Module *m) {
  int n = m->bindings.n;
  NamedIndex *t = arena_alloc(a, sizeof *t * (size_t)(n + 1)); /* the arena unwinds when out of memory */
  m->by_name = arena_alloc(a, sizeof *m->by_name * (size_t)(n + 1));
  for (int i = 0; i < n; i++) t[i] = (NamedIndex){((Binding *)m->bindings.v[i])->name, i};
  qsort(t, (size_t)n, sizeof *t, named_index_cmp);
  for (int i = 0; i < n; i++) m->by_name[i] = t[i].i;
}

void module_bindings_of(const Module *m, const char *name, int *lo, int *hi) {
  int a = 0, b = m->by_name ? m->bindings.n : 0;
  while (a < b) { /* the first not below name */
    int mid = a + (b - a) / 2;
    if (strcmp(((Binding *)m->bindings.v[m->by_name[mid]])->name, name) < 0) a = mid + 1;
    else b = mid;
  }
  *lo = a;
  b = m->by_name ? m->bindings.n : 0;
  while (a < b) { /* the first above name */
    int mid = a + (b - a) / 2;
    if (strcmp(((Binding *)m->bindings.v[m->by_name[mid]])->name, name) <= 0) a = mid + 1;
    else b = mid;
  }
  *hi = a;
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
  index_bindings(a, m);
  return m;
}
