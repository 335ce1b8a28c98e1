/* test_parse.c — the module level (imports, decorators, globals, skipping host
 * code, the bindings of module-level if/try) and expression precedence. */
#include "frontend/frontend.h"
#include "unit.h"

#include <setjmp.h>

static Module *parse(Arena *a, Diags *d, const char *text) {
  Source *src = arena_alloc(a, sizeof *src);
  src->name = "t.py";
  src->text = text;
  src->len = strlen(text);
  TokenList tl;
  if (!lex_file(a, d, src, &tl)) return NULL;
  return parse_module(a, d, src, &tl);
}

/* The first def's parsed node; NULL with diagnostics on a syntax error in it. */
static Node *parse_first_def(Arena *a, Diags *d, Module *m) {
  if (!m || !m->defs.n) return NULL;
  jmp_buf jb, *saved = d->unwind;
  d->unwind = &jb;
  Node *n = NULL;
  if (!setjmp(jb)) n = parse_funcdef(a, d, m->defs.v[0]);
  d->unwind = saved;
  return n;
}

static const Binding *find_binding(const Module *m, const char *name, int nth) {
  for (int i = 0; i < m->bindings.n; i++) {
    const Binding *b = m->bindings.v[i];
    if (!strcmp(b->name, name) && nth-- == 0) return b;
  }
  return NULL;
}

/* An S-expression of an untyped expression, to check precedence. */
static void sexpr(StrBuf *sb, Node *n) {
  switch (n->kind) {
  case N_NAME: sb_printf(sb, "%s", n->name); return;
  case N_INT: sb_printf(sb, "%llu", (unsigned long long)n->ival); return;
  case N_BINOP: case N_UNOP: {
    const char *op = tok_kind_name(n->op);
    sb_printf(sb, "(%.*s ", (int)strlen(op) - 2, op + 1);
    sexpr(sb, n->lhs);
    if (n->rhs) {
      sb_putc(sb, ' ');
      sexpr(sb, n->rhs);
    }
    sb_putc(sb, ')');
    return;
  }
  case N_AND: case N_OR:
    sb_printf(sb, "(%s ", n->kind == N_AND ? "and" : "or");
    sexpr(sb, n->lhs);
    sb_putc(sb, ' ');
    sexpr(sb, n->rhs);
    sb_putc(sb, ')');
    return;
  case N_COMPARE:
    sb_printf(sb, "(cmp");
    for (int i = 0; i < n->kids.n; i++) {
      sb_putc(sb, ' ');
      sexpr(sb, n->kids.v[i]);
    }
    sb_putc(sb, ')');
    return;
  case N_IFEXP:
    sb_printf(sb, "(if ");
    sexpr(sb, n->cond);
    sb_putc(sb, ' ');
    sexpr(sb, n->lhs);
    sb_putc(sb, ' ');
    sexpr(sb, n->rhs);
    sb_putc(sb, ')');
    return;
  case N_CALL:
    sb_printf(sb, "(call ");
    sexpr(sb, n->lhs);
    for (int i = 0; i < n->kids.n; i++) {
      sb_putc(sb, ' ');
      sexpr(sb, n->kids.v[i]);
    }
    for (int i = 0; i < n->kwargs.n; i++) {
      sb_printf(sb, " %s=", n->kwargs.v[i]->name);
      sexpr(sb, n->kwargs.v[i]->lhs);
    }
    sb_putc(sb, ')');
    return;
  case N_ATTR:
    sexpr(sb, n->lhs);
    sb_printf(sb, ".%s", n->name);
    return;
  case N_SUBSCRIPT:
    sb_printf(sb, "(index ");
    sexpr(sb, n->lhs);
    sb_putc(sb, ' ');
    sexpr(sb, n->rhs);
    sb_putc(sb, ')');
    return;
  case N_TUPLE:
    sb_printf(sb, "(tuple");
    for (int i = 0; i < n->kids.n; i++) {
      sb_putc(sb, ' ');
      sexpr(sb, n->kids.v[i]);
    }
    sb_putc(sb, ')');
    return;
  case N_SLICE: sb_printf(sb, ":"); return;
  case N_NONE: sb_printf(sb, "None"); return;
  default: sb_printf(sb, "?"); return;
  }
}

/* Parses `def k():\n    x = EXPR` and renders EXPR. */
static void expect_expr(const char *expr, const char *want) {
  Arena *a = arena_create();
  Diags d = {0};
  char text[512];
  snprintf(text, sizeof text, "import triton\n@triton.jit\ndef k():\n    x = %s\n", expr);
  Module *m = parse(a, &d, text);
  Node *def = parse_first_def(a, &d, m);
  CHECK(def != NULL);
  if (def) {
    StrBuf sb = {0};
    sexpr(&sb, def->body.v[0]->rhs);
    CHECK_STR(sb.s, want);
    sb_free(&sb);
  } else {
    fprintf(stderr, "%s", d.out.s);
  }
  sb_free(&d.out);
  arena_destroy(a);
}

/* A syntax error in a function is found when the function is parsed, not
 * when its module is: only functions a kernel reaches are. */
static void expect_parse_error(const char *text, const char *want) {
  Arena *a = arena_create();
  Diags d = {0};
  Module *m = parse(a, &d, text);
  if (m) CHECK(parse_first_def(a, &d, m) == NULL); /* else a lexical error: the whole file's */
  CHECK_CONTAINS(d.out.s, want);
  sb_free(&d.out);
  arena_destroy(a);
}

static void expect_deferred(const char *text, const char *want) {
  Arena *a = arena_create();
  Diags d = {0};
  Node *def = parse_first_def(a, &d, parse(a, &d, text));
  CHECK(def != NULL && def->body.n == 1);
  if (def && def->body.n == 1) {
    CHECK(def->body.v[0]->kind == N_UNSUPPORTED);
    CHECK_STR(def->body.v[0]->sval, want);
  } else {
    fprintf(stderr, "%s", d.out.s ? d.out.s : "");
  }
  sb_free(&d.out);
  arena_destroy(a);
}

static const char host_file[] =
    "import torch\n"
    "import triton\n"
    "import triton.language as tl\n"
    "from triton import jit as J\n"
    "DEVICE = triton.runtime.driver.active.get_active_torch_device()\n"
    "BLOCK = tl.constexpr(128)\n"
    "SCALE: tl.constexpr = 2\n"
    "class Host:\n"
    "    def f(self, x):\n"
    "        return [i for i in x if i]  # comprehension in host code\n"
    "def get_configs():\n"
    "    return [triton.Config({'B': b}) for b in (1, 2)]\n"
    "@triton.autotune(configs=[triton.Config({'BLOCK_M': 64}, num_warps=8, num_stages=2),\n"
    "                          triton.Config({'BLOCK_M': 32}, num_warps=4)], key=['n'])\n"
    "@triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK_M'] == 0})\n"
    "@triton.jit\n"
    "def kern(x, n, BLOCK_M: tl.constexpr, EVEN: tl.constexpr):\n"
    "    pass\n"
    "@J\n"
    "def helper(a):\n"
    "    return a\n"
    "@torch.no_grad()\n"
    "def host(x):\n"
    "    print(f\"{x!r:>10} {'nested'}\")\n"
    "if __name__ == \"__main__\":\n"
    "    host(1)\n"
    "else:\n"
    "    pass\n";

int unit_main(void) {
  /* precedence: ** binds tighter than unary minus on its left, not its right */
  expect_expr("-a ** -b", "(- (** a (- b)))");
  expect_expr("a + b * c - d", "(- (+ a (* b c)) d)");
  expect_expr("a << 1 + b", "(<< a (+ 1 b))");
  expect_expr("a & b | c ^ d", "(| (& a b) (^ c d))");
  expect_expr("a < b <= c", "(cmp a b c)");
  expect_expr("not a == b and c or d", "(or (and (not (cmp a b)) c) d)");
  expect_expr("a if b else c if d else e", "(if b a (if d c e))");
  expect_expr("x[:, None] @ y.T", "(@ (index x (tuple : None)) y.T)");
  expect_expr("tl.load(p + o, mask=m, other=0.0)", "(call tl.load (+ p o) mask=m other=?)");
  expect_expr("a // b % c", "(% (// a b) c)");
  expect_expr("~a - -b", "(- (~ a) (- b))");

  Arena *a = arena_create();
  Diags d = {0};
  Module *m = parse(a, &d, host_file);
  CHECK(m != NULL);
  if (m) {
    /* every module-level def, decorated or not; the class's method is not one */
    CHECK(m->defs.n == 4);
    const char *defs[] = {"get_configs", "kern", "helper", "host"};
    for (int i = 0; i < 4 && i < m->defs.n; i++) CHECK_STR(((FuncDef *)m->defs.v[i])->name, defs[i]);
    const FuncDef *k = m->defs.n > 1 ? m->defs.v[1] : NULL;
    CHECK(k && k->decorators.n == 3 && !k->opaque_decorator);
    const Binding *b = find_binding(m, "tl", 0);
    CHECK(b && b->kind == BIND_IMPORT && !strcmp(b->path, "triton.language"));
    b = find_binding(m, "J", 0);
    CHECK(b && b->kind == BIND_IMPORT_FROM && !strcmp(b->path, "triton") && !strcmp(b->attr, "jit"));
    b = find_binding(m, "BLOCK", 0);
    CHECK(b && b->kind == BIND_ASSIGN && b->value && b->value->kind == N_CALL);
    b = find_binding(m, "SCALE", 0);
    CHECK(b && b->kind == BIND_ASSIGN && b->annot && b->value && b->value->kind == N_INT);
    b = find_binding(m, "DEVICE", 0);
    CHECK(b && b->kind == BIND_ASSIGN && b->group == 0);
    CHECK(find_binding(m, "Host", 0) && find_binding(m, "Host", 0)->kind == BIND_CLASS);
    /* the __main__ block never runs on import: nothing in it binds */
    CHECK(find_binding(m, "host", 1) == NULL);
  } else {
    fprintf(stderr, "%s", d.out.s);
  }
  CHECK(d.errors == 0);
  sb_free(&d.out);
  arena_destroy(a);

  /* imports at any depth of module-level if/try bind, each under its statement */
  a = arena_create();
  d = (Diags){0};
  m = parse(a, &d,
            "import triton\n"
            "if compare_version('triton', operator.ge, '3.0.0'):\n"
            "    try:\n"
            "        from triton.language.extra.libdevice import rsqrt\n"
            "    except ModuleNotFoundError:\n"
            "        from triton.language.extra.cuda.libdevice import rsqrt\n"
            "else:\n"
            "    from triton.language.math import rsqrt\n"
            "from ..utils import helper as h\n"
            "@triton.jit\n"
            "def k(x):\n"
            "    y = f'{x}'  # not read until a kernel reaches k\n");
  CHECK(m != NULL);
  if (m) {
    const Binding *r0 = find_binding(m, "rsqrt", 0), *r1 = find_binding(m, "rsqrt", 1), *r2 = find_binding(m, "rsqrt", 2);
    CHECK(r0 && r1 && r2 && r0->group && r1->group && r2->group);
    CHECK(r0 && !strcmp(r0->path, "triton.language.extra.libdevice") && !strcmp(r0->attr, "rsqrt"));
    CHECK(r2 && !strcmp(r2->path, "triton.language.math"));
    const Binding *h = find_binding(m, "h", 0);
    CHECK(h && h->level == 2 && !strcmp(h->path, "utils") && !strcmp(h->attr, "helper") && h->group == 0);
    CHECK(m->defs.n == 1);
    Node *def = parse_first_def(a, &d, m); /* the f-string is sema's to evaluate */
    CHECK(def && def->body.n == 1 && def->body.v[0]->rhs->kind == N_FSTRING);
  }
  sb_free(&d.out);
  arena_destroy(a);

  /* statements kernels cannot have are errors where sema reaches them, so
   * that a constexpr branch not taken may hold them */
  expect_deferred("import triton\n@triton.jit\ndef k(x):\n    class A: pass\n", "classes cannot be defined inside kernels");
  expect_deferred("import triton\n@triton.jit\ndef k(x):\n    global y\n", "'global' statements are not supported in kernels");
  expect_deferred("import triton\n@triton.jit\ndef k(x):\n    try:\n        pass\n    except E:\n        pass\n"
                  "    else:\n        pass\n",
                  "'try' statements are not supported in kernels");
  expect_parse_error("import triton\n@triton.jit\ndef k(x):\n    y = (\n", "'(' was never closed");
  expect_parse_error("import triton\n@triton.jit\ndef k(x, x):\n    pass\n", "duplicate parameter 'x'");
  expect_parse_error("import triton\n@triton.jit\ndef k(x):\n    1 = x\n", "cannot assign to this expression");
  return 0;
}
