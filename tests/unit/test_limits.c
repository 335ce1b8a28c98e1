/* test_limits.c — nesting limits: every construct nested 100,000 deep (or as
 * deep as its text allows) is a positioned error, exit 1 from the CLI, and
 * never a stack overflow; and the deepest program of each form that tilec
 * accepts compiles to PTX and for the emulator within the stack
 * docs/language.md ("Limits") promises, on a thread of its own as a JIT
 * user would run it.
 *
 * The stack a compilation uses is measured, not guessed: it runs on a
 * thread whose stack this test allocates and paints, and the deepest byte
 * overwritten is its peak. The thread's stack is large, so that a
 * compilation over the budget fails the check instead of crashing.
 *
 * Usage: test_limits TILEC (the CLI, for the exit codes). */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tilec/tilec.h"
#include "unit.h"

int unit_failures;

/* The stack the deepest accepted program may use: docs/language.md says
 * 512 KB for an optimized build; a build without optimization (and
 * AddressSanitizer's redzones above all) takes several times more. */
#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif
#if defined(__OPTIMIZE__) && !defined(ASAN)
#define BUDGET (512u << 10)
#else
#define BUDGET (2u << 20)
#endif
#define THREAD_STACK (64u << 20)

/* ---- text -------------------------------------------------------------------- */

typedef struct Buf {
  char *s;
  size_t n, cap;
} Buf;

static void put(Buf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    b->cap = (b->n + n + 1) * 2;
    b->s = realloc(b->s, b->cap);
    if (!b->s) abort();
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = 0;
}
static void puts_(Buf *b, const char *s) { put(b, s, strlen(s)); }
static void rep(Buf *b, const char *s, int n) {
  size_t len = strlen(s);
  for (int i = 0; i < n; i++) put(b, s, len);
}
static void printf_(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(Buf *b, const char *fmt, ...) {
  char tmp[256];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  put(b, tmp, (size_t)k);
}
static void indent(Buf *b, int n) {
  for (int i = 0; i < n; i++) put(b, " ", 1);
}

static const char header[] = "import triton\nimport triton.language as tl\n\n\n";
static const char kernel_def[] = "@triton.jit\ndef kernel(x_ptr, n, BLOCK: tl.constexpr):\n";

/* ---- the forms --------------------------------------------------------------- */

/* `c = EXPR` in a kernel that stores c: EXPR is pre * n, leaf, post * n. */
typedef struct ExprForm {
  const char *pre, *leaf, *post, *store;
} ExprForm;

static void expr_kernel(Buf *b, const ExprForm *e, int n) {
  puts_(b, header);
  puts_(b, "@triton.jit\ndef f(x):\n    return x\n\n\n");
  puts_(b, kernel_def);
  puts_(b, "    c = ");
  rep(b, e->pre, n);
  puts_(b, e->leaf);
  rep(b, e->post, n);
  puts_(b, "\n    ");
  puts_(b, e->store ? e->store : "tl.store(x_ptr, c)");
  puts_(b, "\n");
}

/* n blocks nested by indentation, the innermost storing */
static void blocks(Buf *b, int n, const char *head) {
  puts_(b, header);
  puts_(b, kernel_def);
  for (int i = 0; i < n; i++) {
    indent(b, 4 + i);
    puts_(b, head);
  }
  indent(b, 4 + n);
  puts_(b, "tl.store(x_ptr, n)\n");
}

static void gen_if(Buf *b, int n) { blocks(b, n, "if n > 0:\n"); }
static void gen_for(Buf *b, int n) { blocks(b, n, "for i in range(n):\n"); }
static void gen_while(Buf *b, int n) { blocks(b, n, "while n > 0:\n"); }

static void gen_elif(Buf *b, int n) {
  puts_(b, header);
  puts_(b, kernel_def);
  puts_(b, "    if n == 0:\n        tl.store(x_ptr, 0)\n");
  for (int i = 1; i <= n; i++) printf_(b, "    elif n == %d:\n        tl.store(x_ptr, %d)\n", i, i);
}

/* 95 nested ifs, then an expression n deep */
static void gen_if_expr(Buf *b, int n) {
  puts_(b, header);
  puts_(b, kernel_def);
  for (int i = 0; i < 95; i++) {
    indent(b, 4 + i);
    puts_(b, "if n > 0:\n");
  }
  indent(b, 4 + 95);
  puts_(b, "tl.store(x_ptr, ");
  rep(b, "-", n);
  puts_(b, "n)\n");
}

/* helpers f0 .. f(n-1), each calling the next: inlining n deep */
static void chain(Buf *b, int n, const char *decorator) {
  puts_(b, header);
  for (int i = 0; i < n; i++) printf_(b, "@%s\ndef f%d(x):\n    return f%d(x) + 1\n\n\n", decorator, i, i + 1);
  printf_(b, "@%s\ndef f%d(x):\n    return x\n\n\n", decorator, n);
  puts_(b, kernel_def);
}
static void gen_helpers(Buf *b, int n) {
  chain(b, n, "triton.jit");
  puts_(b, "    tl.store(x_ptr, f0(n))\n");
}
static void gen_constexpr_fns(Buf *b, int n) {
  chain(b, n, "triton.constexpr_function");
  puts_(b, "    tl.store(x_ptr, f0(1))\n");
}

/* helpers calling each other, each from inside n nested blocks (or an
 * expression n deep): the nesting of a kernel counts that of the helpers
 * inlined into it */
static void inlined(Buf *b, int n, int helpers, const char *head) {
  puts_(b, header);
  for (int i = 0; i < helpers; i++) {
    printf_(b, "@triton.jit\ndef f%d(x):\n    y = x\n", i);
    for (int j = 0; j < n; j++) {
      indent(b, 4 + 4 * j);
      puts_(b, head);
    }
    indent(b, 4 + 4 * n);
    printf_(b, "y = f%d(x)\n", i + 1);
    puts_(b, "    return y\n\n\n");
  }
  printf_(b, "@triton.jit\ndef f%d(x):\n    return x + 1\n\n\n", helpers);
  puts_(b, kernel_def);
  puts_(b, "    tl.store(x_ptr, f0(n))\n");
}
/* at most 100 runtime ifs and loops around each other: 50 helpers, n each */
static void gen_inlined_if(Buf *b, int n) { inlined(b, n, 50, "if x > 0:\n"); }
static void gen_inlined_for(Buf *b, int n) { inlined(b, n, 50, "for i in range(x):\n"); }
static void gen_inlined_while(Buf *b, int n) { inlined(b, n, 50, "while x > 0:\n"); }
/* the deepest of everything at once: the parser's deepest recursion (a
 * helper is parsed when it is first called) at the bottom of 100 nested
 * runtime loops of 50 helpers */
static void gen_everything(Buf *b, int n) {
  puts_(b, header);
  for (int i = 0; i < 50; i++) {
    printf_(b, "@triton.jit\ndef f%d(x):\n    y = x\n", i);
    puts_(b, "    for i in range(x):\n        for j in range(x):\n");
    printf_(b, "            y = f%d(x)\n    return y\n\n\n", i + 1);
  }
  puts_(b, "@triton.jit\ndef f50(x):\n    return ");
  rep(b, "(", n);
  puts_(b, "x");
  rep(b, ")", n);
  puts_(b, "\n\n\n");
  puts_(b, kernel_def);
  puts_(b, "    tl.store(x_ptr, f0(n))\n");
}
/* n while loops around a reduction whose combiner reduces with another,
 * 62 deep: regions in regions, more than 256 of them open at once */
static void gen_while_reduce(Buf *b, int n) {
  puts_(b, header);
  puts_(b, "@triton.jit\ndef c62(a, b):\n    return a + b\n\n\n");
  for (int i = 61; i >= 0; i--)
    printf_(b, "@triton.jit\ndef c%d(a, b):\n    return tl.reduce(tl.full((2,), a, tl.int32), 0, c%d) + b\n\n\n", i,
            i + 1);
  puts_(b, kernel_def);
  for (int i = 0; i < n; i++) {
    indent(b, 4 + i);
    puts_(b, "while n > 0:\n");
  }
  indent(b, 4 + n);
  puts_(b, "tl.store(x_ptr, tl.reduce(tl.arange(0, 16), 0, c0))\n");
}
/* constexpr ifs: sema's budget of 400 levels, not the runtime nesting */
static void gen_inlined_const_if(Buf *b, int n) { inlined(b, n, 63, "if True:\n"); }
static void gen_inlined_expr(Buf *b, int n) {
  puts_(b, header);
  for (int i = 0; i < 63; i++) {
    printf_(b, "@triton.jit\ndef f%d(x):\n    return ", i);
    rep(b, "-", n);
    printf_(b, "f%d(x)\n\n\n", i + 1);
  }
  puts_(b, "@triton.jit\ndef f63(x):\n    return x + 1\n\n\n");
  puts_(b, kernel_def);
  puts_(b, "    tl.store(x_ptr, f0(n))\n");
}

/* module level: a global's value n deep, globals naming each other, ifs
 * nested by indentation, a dotted import path */
static void gen_global_value(Buf *b, int n) {
  puts_(b, header);
  puts_(b, "X: tl.constexpr = ");
  rep(b, "-", n);
  puts_(b, "1\n\n\n");
  puts_(b, kernel_def);
  puts_(b, "    tl.store(x_ptr, X)\n");
}
static void gen_decorator(Buf *b, int n) {
  puts_(b, header);
  puts_(b, "@triton.jit(debug=");
  rep(b, "not ", n);
  puts_(b, "False)\ndef kernel(x_ptr, n, BLOCK: tl.constexpr):\n    tl.store(x_ptr, n)\n");
}
static void gen_global_chain(Buf *b, int n) {
  puts_(b, header);
  puts_(b, "X0: tl.constexpr = 1\n");
  for (int i = 1; i <= n; i++) printf_(b, "X%d: tl.constexpr = X%d\n", i, i - 1);
  puts_(b, "\n\n");
  puts_(b, kernel_def);
  printf_(b, "    tl.store(x_ptr, X%d)\n", n);
}
static void gen_module_if(Buf *b, int n) {
  puts_(b, header);
  for (int i = 0; i < n; i++) {
    indent(b, i);
    puts_(b, "if True:\n");
  }
  indent(b, n);
  puts_(b, "X: tl.constexpr = 1\n\n\n");
  puts_(b, kernel_def);
  puts_(b, "    tl.store(x_ptr, X)\n");
}
static void gen_import(Buf *b, int n) {
  puts_(b, header);
  puts_(b, "import m");
  rep(b, ".m", n);
  puts_(b, " as deep\n\n\n");
  puts_(b, kernel_def);
  puts_(b, "    tl.store(x_ptr, deep.X)\n");
}

/* a tuple nesting one level deeper per iteration of unrolled loops */
static void gen_tuple_loop(Buf *b, int n) {
  puts_(b, header);
  puts_(b, kernel_def);
  printf_(b, "    c = 1\n    for i in tl.static_range(%d):\n", n > 4096 ? 4096 : n);
  printf_(b, "        for j in tl.static_range(%d):\n", n > 4096 ? (n + 4095) / 4096 : 1);
  puts_(b, "            c = (c,)\n    tl.store(x_ptr, n)\n");
}

/* a tuple of runtime values doubling at each iteration */
static void gen_tuple_double(Buf *b, int n) {
  puts_(b, header);
  puts_(b, kernel_def);
  printf_(b, "    c = n\n    for i in tl.static_range(%d):\n        c = (c, c)\n    tl.store(x_ptr, n)\n", n);
}

static const ExprForm
    parens = {"(", "n", ")", NULL}, neg = {"-", "n", "", NULL}, inv = {"~", "n", "", NULL},
    not_ = {"not ", "n", "", NULL}, power = {"1 ** ", "1", "", NULL}, plus = {"n + ", "n", "", NULL},
    times = {"n * ", "n", "", NULL}, shl = {"n << ", "n", "", NULL}, bitor = {"n | ", "n", "", NULL},
    and_ = {"n and ", "n", "", NULL}, or_ = {"n or ", "n", "", NULL}, cmp = {"n < ", "n", "", NULL},
    ternary = {"n if n else ", "n", "", NULL}, calls = {"f(", "n", ")", NULL},
    kwcalls = {"f(x=", "n", ")", NULL}, lambda = {"lambda: ", "n", "", "tl.store(x_ptr, n)"},
    lists = {"[", "n", "]", "tl.store(x_ptr, n)"}, tuples = {"(", "n", ",)", "tl.store(x_ptr, n)"},
    dicts = {"{1: ", "n", "}", "tl.store(x_ptr, n)"},
    attrs = {"", "tl.zeros((16, 16), tl.float32)", ".T",
             "tl.store(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], c)"},
    methods = {"", "tl.zeros((16, 16), tl.float32)", ".trans()",
               "tl.store(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], c)"},
    subs = {"", "tl.zeros((16,), tl.float32)", "[:]", "tl.store(x_ptr + tl.arange(0, 16), c)"},
    nested_subs = {"tl.zeros((16,), tl.int32)[", "0", "]", NULL};

typedef struct Form {
  const char *name;
  const ExprForm *expr;        /* or */
  void (*gen)(Buf *b, int n);
  int deep;                    /* the depth rejected */
  const char *error;           /* what its error says */
  int ok;                      /* the deepest accepted: one more is a limit's error; 0: none is */
  bool valid;                  /* that program compiles (else its error, if any, is not a limit's) */
} Form;

#define NEST "nested too deeply"
static const Form forms[] = {
    {"parentheses", &parens, NULL, 100000, "too many nested brackets", 198, true},
    {"unary minus", &neg, NULL, 100000, NEST, 198, true},
    {"unary ~", &inv, NULL, 100000, NEST, 198, true},
    {"not", &not_, NULL, 100000, NEST, 198, true},
    {"** chain", &power, NULL, 100000, NEST, 198, true},
    {"+ chain", &plus, NULL, 100000, NEST, 198, true},
    {"* chain", &times, NULL, 100000, NEST, 198, true},
    {"<< chain", &shl, NULL, 100000, NEST, 198, true},
    {"| chain", &bitor, NULL, 100000, NEST, 198, true},
    {"and chain", &and_, NULL, 100000, NEST, 198, true},
    {"or chain", &or_, NULL, 100000, NEST, 198, true},
    {"comparison chain", &cmp, NULL, 100000, "comparison chain too long", 64, true},
    {"conditional expressions", &ternary, NULL, 100000, NEST, 198, true},
    {"nested calls", &calls, NULL, 100000, "too many nested brackets", 99, true},
    {"nested keyword arguments", &kwcalls, NULL, 100000, "too many nested brackets", 99, true},
    {"lambdas", &lambda, NULL, 100000, NEST, 198, false},
    {"lists", &lists, NULL, 100000, "too many nested brackets", 64, true},
    {"tuples", &tuples, NULL, 100000, "too many nested brackets", 64, true},
    {"dictionaries", &dicts, NULL, 100000, "too many nested brackets", 198, false},
    {"attribute chain", &attrs, NULL, 100000, NEST, 196, true},
    {"method call chain", &methods, NULL, 100000, NEST, 98, true},
    {"subscript chain", &subs, NULL, 100000, NEST, 196, true},
    {"nested subscripts", &nested_subs, NULL, 100000, "too many nested brackets", 49, false},
    /* text nested by indentation grows as the square of its depth */
    {"if blocks", NULL, gen_if, 1000, "too many levels of indentation", 99, true},
    {"for blocks", NULL, gen_for, 1000, "too many levels of indentation", 99, true},
    {"while blocks", NULL, gen_while, 1000, "too many levels of indentation", 99, true},
    {"elif chain", NULL, gen_elif, 100000, NEST, 99, true},
    {"if blocks around an expression", NULL, gen_if_expr, 100000, NEST, 100, true},
    {"helper chain", NULL, gen_helpers, 10000, "calls nested more than 64 deep", 63, true},
    {"constexpr_function chain", NULL, gen_constexpr_fns, 10000, "calls nested more than 64 deep", 63, true},
    {"helpers inlined in if blocks", NULL, gen_inlined_if, 99, "runtime ifs and loops nested more than 100", 2, true},
    {"helpers inlined in for blocks", NULL, gen_inlined_for, 99, "runtime ifs and loops nested more than 100", 2, true},
    {"helpers inlined in while blocks", NULL, gen_inlined_while, 99, "runtime ifs and loops nested more than 100", 2, true},
    {"helpers inlined in constexpr ifs", NULL, gen_inlined_const_if, 99, NEST, 4, true},
    {"helpers inlined in expressions", NULL, gen_inlined_expr, 100000, NEST, 4, true},
    /* irgen nests its regions; the GPU code generator does not take a reduction in a combiner yet */
    {"reductions in while blocks", NULL, gen_while_reduce, 1000, "too many levels of indentation", 99, false},
    {"parentheses in helpers in loops", NULL, gen_everything, 100000, "too many nested brackets", 198, true},
    {"a global's value", NULL, gen_global_value, 100000, "computed by host code", 199, true},
    {"a decorator's argument", NULL, gen_decorator, 100000, NEST, 196, true},
    {"globals naming each other", NULL, gen_global_chain, 100000, "refer to each other too deeply", 63, true},
    {"module-level if blocks", NULL, gen_module_if, 1000, "too many levels of indentation", 100, true},
    {"a dotted import", NULL, gen_import, 100000, "cannot be used in a kernel", 0, false},
    {"a tuple built in a loop", NULL, gen_tuple_loop, 100000, "tuples nested more than 64 deep", 64, true},
    {"a tuple doubled in a loop", NULL, gen_tuple_double, 4096, "a tuple of more than 65536 values", 15, true},
};

static void gen(Buf *b, const Form *f, int n) {
  b->n = 0;
  if (f->expr) expr_kernel(b, f->expr, n);
  else f->gen(b, n);
}

/* ---- compiling on a measured stack --------------------------------------------- */

typedef struct Job {
  const char *src;
  size_t len;
  tilec_emit emit;
  tilec_status st;
  char *diags;
} Job;

static void *run_job(void *arg) {
  Job *j = arg;
  tilec_compile_options o = {.kernel = "kernel", .signature = "*fp32, i32, 64", .emit = j->emit};
  tilec_result *r = NULL;
  j->st = tilec_compile("deep.py", j->src, j->len, &o, &r);
  j->diags = strdup(tilec_result_diagnostics(r));
  tilec_result_destroy(r);
  return NULL;
}

static unsigned char *stack_mem;

/* Compiles on a fresh thread; returns the bytes of stack it used. */
static size_t compile(Job *j) {
  const unsigned char paint = 0xa5;
  memset(stack_mem, paint, THREAD_STACK);
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setstack(&at, stack_mem, THREAD_STACK);
  pthread_t t;
  if (pthread_create(&t, &at, run_job, j)) abort();
  pthread_join(t, NULL);
  pthread_attr_destroy(&at);
  size_t low = 0;
  while (low < THREAD_STACK && stack_mem[low] == paint) low++;
  return THREAD_STACK - low;
}

/* ---- checks ------------------------------------------------------------------ */

/* "deep.py:L:C: error: ...", the line, a caret under column C */
static bool positioned(const char *d, const char *file) {
  int line = 0, col = 0;
  char pre[64];
  snprintf(pre, sizeof pre, "%s:%%d:%%d: error: ", file);
  if (sscanf(d, pre, &line, &col) != 2 || line < 1 || col < 1) return false;
  const char *l2 = strchr(d, '\n');
  const char *l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
  if (!l3) return false;
  const char *caret = l3 + 1;
  while (*caret == ' ' || *caret == '\t' || *caret == '.') caret++;
  return *caret == '^';
}

/* Is d the error of a limit (any form's, as one form may reach another's
 * limit first: nested calls reach the parser's before the lexer's)? */
static bool limit_error(const char *d, const Form *f) {
  static const char *const limits[] = {NEST, "too many nested brackets", "too many levels of indentation",
                                       "nested more than", "comparison chain too long", "refer to each other",
                                       "a tuple of more than"};
  for (size_t i = 0; i < sizeof limits / sizeof *limits; i++)
    if (strstr(d, limits[i])) return true;
  return strstr(d, f->error) != NULL;
}

static char dir[512]; /* the test's files: deep.py for the CLI, modules */

static void write_file(const char *name, const char *text, size_t n) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(text, 1, n, f) != n || fclose(f)) abort();
}

static void remove_file(const char *name) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  unlink(path);
}

/* Runs the CLI on the source; its exit status and what it printed. */
static int run_cli(const char *tilec, const Buf *b, char *out, size_t cap) {
  write_file("deep.py", b->s, b->n);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s' compile deep.py -k kernel -s '*fp32, i32, 64' 2>&1 >/dev/null", dir, tilec);
  FILE *p = popen(cmd, "r");
  if (!p) abort();
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = 0;
  while (fread(cmd, 1, sizeof cmd, p) > 0) {
  }
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static size_t worst;
static const char *worst_form = "";

static void note_stack(const char *name, size_t used) {
  if (used > worst) {
    worst = used;
    worst_form = name;
  }
  if (used > BUDGET) {
    fprintf(stderr, "%s: %zu KB of stack, over the %u KB budget\n", name, used >> 10, BUDGET >> 10);
    unit_failures++;
  }
}

static void check_form(const Form *f, const char *tilec, Buf *b) {
  /* too deep: a positioned error, from the library and from the CLI */
  gen(b, f, f->deep);
  Job j = {b->s, b->n, TILEC_EMIT_AST, TILEC_OK, NULL};
  note_stack(f->name, compile(&j));
  if (j.st != TILEC_ERROR_COMPILE || !positioned(j.diags, "deep.py") || !strstr(j.diags, f->error)) {
    fprintf(stderr, "%s, %d deep: expected a positioned error saying '%s', got status %d:\n%.2000s\n", f->name,
            f->deep, f->error, j.st, j.diags);
    unit_failures++;
  }
  free(j.diags);
  static char out[1 << 16];
  int rc = run_cli(tilec, b, out, sizeof out);
  if (rc != 1 || !positioned(out, "deep.py") || !strstr(out, f->error)) {
    fprintf(stderr, "%s, %d deep: tilec exits %d, expected 1 with a positioned error:\n%.2000s\n", f->name, f->deep,
            rc, out);
    unit_failures++;
  }
  if (!f->ok) return;

  /* one level more than the deepest accepted is the error of a limit ... */
  gen(b, f, f->ok + 1);
  Job over = {b->s, b->n, TILEC_EMIT_AST, TILEC_OK, NULL};
  compile(&over);
  if (!limit_error(over.diags, f)) {
    fprintf(stderr, "%s, %d deep: expected the error of a limit, got status %d:\n%.2000s\n", f->name, f->ok + 1,
            over.st, over.diags);
    unit_failures++;
  }
  free(over.diags);
  /* ... and the deepest accepted compiles to its AST's text, to PTX and for
   * the emulator, every stage of it within the budget */
  gen(b, f, f->ok);
  size_t most = 0;
  static const tilec_emit emits[] = {TILEC_EMIT_AST, TILEC_EMIT_PTX, TILEC_EMIT_CPU};
  static const char *const emit_names[] = {"the AST", "PTX", "the CPU"};
  for (int e = 0; e < 3; e++) {
    Job k = {b->s, b->n, emits[e], TILEC_OK, NULL};
    size_t used = compile(&k);
    note_stack(f->name, used);
    if (used > most) most = used;
    if (f->valid ? k.st != TILEC_OK : limit_error(k.diags, f)) {
      fprintf(stderr, "%s, %d deep, for %s: expected %s, got status %d:\n%.2000s\n", f->name, f->ok, emit_names[e],
              f->valid ? "it to compile" : "no limit's error", k.st, k.diags);
      unit_failures++;
    }
    free(k.diags);
  }
  printf("%-34s deepest accepted %3d, %4zu KB of stack\n", f->name, f->ok, most >> 10);
}

/* A diagnostic on a line of 4 MB (a flat tuple, which no nesting limit
 * stops first) shows a window of it, the caret under the error's column. */
static void check_long_line(Buf *b) {
  b->n = 0;
  puts_(b, header);
  puts_(b, kernel_def);
  puts_(b, "    c = (n");
  rep(b, ", n", 700000);
  puts_(b, ", oops");
  rep(b, ", n", 700000);
  puts_(b, ")\n    tl.store(x_ptr, c)\n");
  Job j = {b->s, b->n, TILEC_EMIT_AST, TILEC_OK, NULL};
  compile(&j);
  CHECK(j.st == TILEC_ERROR_COMPILE);
  CHECK(strlen(j.diags) < 400);
  CHECK_CONTAINS(j.diags, "deep.py:7:2100013: error: name 'oops' is not defined\n...");
  const char *line = strchr(j.diags, '\n') + 1, *caret = strchr(line, '\n') + 1;
  const char *oops = strstr(line, "oops");
  CHECK(oops && strchr(caret, '^') && strchr(caret, '^') - caret == oops - line);
  free(j.diags);
}

/* Modules importing each other in a cycle: an error at an import. */
static void check_circular_import(void) {
  write_file("a.py", "from b import X\n", 16);
  write_file("b.py", "from a import X\n", 16);
  static const char src[] = "import triton\nimport triton.language as tl\nfrom a import X\n\n\n@triton.jit\n"
                            "def kernel(x_ptr, n, BLOCK: tl.constexpr):\n    tl.store(x_ptr, X)\n";
  const char *inc[] = {dir};
  tilec_compile_options o = {.signature = "*fp32, i32, 64", .include_dirs = inc, .num_include_dirs = 1};
  tilec_result *r = NULL;
  CHECK(tilec_compile("k.py", src, sizeof src - 1, &o, &r) == TILEC_ERROR_COMPILE);
  const char *d = tilec_result_diagnostics(r);
  CHECK_CONTAINS(d, "imports refer to each other more than 64 deep (a circular import?)\nfrom ");
  CHECK_CONTAINS(d, ".py:1:1: error: ");
  tilec_result_destroy(r);
  remove_file("a.py");
  remove_file("b.py");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s TILEC\n", argv[0]);
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  stack_mem = mmap(NULL, THREAD_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack_mem == MAP_FAILED) abort();
  char *tilec = realpath(argv[1], NULL);
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/tilec-limits-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!tilec || !mkdtemp(dir)) {
    fprintf(stderr, "no %s, or no temporary folder\n", argv[1]);
    return 2;
  }
  Buf b = {0};
  for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) check_form(&forms[i], tilec, &b);
  check_circular_import();
  check_long_line(&b);
  printf("most stack: %zu KB (%s), budget %u KB\n", worst >> 10, worst_form, BUDGET >> 10);
  remove_file("deep.py");
  rmdir(dir);
  free(b.s);
  free(tilec);
  munmap(stack_mem, THREAD_STACK);
  if (unit_failures) fprintf(stderr, "%d check(s) failed\n", unit_failures);
  return unit_failures ? 1 : 0;
}
