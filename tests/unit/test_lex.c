/* test_lex.c — the Python tokenizer: indentation, joining, strings, numbers,
 * and the memory its tokens take. */
#include "frontend/frontend.h"
#include "unit.h"

/* Tokenizes text and renders the kinds as a compact string: names and
 * numbers by their text, structure as <NL> <IN> <DE>. */
static const char *kinds_n(Arena *a, const char *text, size_t len, Diags *d) {
  Source *src = arena_alloc(a, sizeof *src);
  src->name = "t.py";
  src->text = text;
  src->len = len;
  TokenList tl;
  if (!lex_file(a, d, src, &tl)) return NULL;
  StrBuf sb = {0};
  for (int i = 0; i < tl.n; i++) {
    Token *t = &tl.v[i];
    if (i) sb_putc(&sb, ' ');
    switch (t->kind) {
    case TK_NEWLINE: sb_printf(&sb, "<NL>"); break;
    case TK_INDENT: sb_printf(&sb, "<IN>"); break;
    case TK_DEDENT: sb_printf(&sb, "<DE>"); break;
    case TK_EOF: sb_printf(&sb, "<EOF>"); break;
    case TK_STRING: sb_printf(&sb, "S[%s]", t->sval); break;
    case TK_INT: sb_printf(&sb, "I[%llu]", (unsigned long long)t->ival); break;
    case TK_FLOAT: sb_printf(&sb, "F[%g]", t->fval); break;
    default: sb_printf(&sb, "%.*s", t->len, t->p); break;
    }
  }
  char *s = arena_strndup(a, sb.s, sb.len);
  sb_free(&sb);
  return s;
}

static const char *kinds(Arena *a, const char *text, Diags *d) { return kinds_n(a, text, strlen(text), d); }

static void expect(const char *text, const char *want) {
  Arena *a = arena_create();
  Diags d = {0};
  const char *got = kinds(a, text, &d);
  if (!got) fprintf(stderr, "lex error: %s\n", d.out.s);
  CHECK_STR(got, want);
  sb_free(&d.out);
  arena_destroy(a);
}

static void expect_error(const char *text, const char *want) {
  Arena *a = arena_create();
  Diags d = {0};
  const char *got = kinds(a, text, &d);
  CHECK(got == NULL);
  CHECK_CONTAINS(d.out.s, want);
  sb_free(&d.out);
  arena_destroy(a);
}

/* The memory a large file's tokens take, per byte of source: every copy
 * the token array ever had counted (the arena's total), so that a growth
 * that keeps old copies shows, as does a fat token. Small functions are
 * the densest code: about one token per 2.7 bytes. */
static void memory_per_byte(void) {
  StrBuf sb = {0};
  for (int i = 0; sb.len < (4u << 20); i++)
    sb_printf(&sb, "def helper_%d(a, b):\n    c = a * %d + b\n    return c - 1\n\n\n", i, i);
  Arena *a = arena_create();
  Diags d = {0};
  Source src = {.name = "big.py", .text = sb.s, .len = sb.len};
  TokenList tl;
  CHECK(lex_file(a, &d, &src, &tl));
  double per_byte = (double)a->total / (double)sb.len;
  if (per_byte > 24) fprintf(stderr, "the tokens of %zu bytes take %.1f bytes per byte\n", sb.len, per_byte);
  CHECK(per_byte <= 24);
  CHECK(sizeof(Token) <= 48);
  sb_free(&d.out);
  arena_destroy(a);
  sb_free(&sb);
}

int unit_main(void) {
  expect("x = 1\n", "x = I[1] <NL> <EOF>");
  expect("x = 1", "x = I[1] <NL> <EOF>");
  expect("if a:\n    b\n    if c:\n        d\ne\n",
         "if a : <NL> <IN> b <NL> if c : <NL> <IN> d <NL> <DE> <DE> e <NL> <EOF>");
  /* blank lines, comments and brackets do not break lines */
  expect("f(a,\n  b)  # c\n\n   # only a comment\ng\n", "f ( a , b ) <NL> g <NL> <EOF>");
  expect("x = 1 + \\\n    2\n", "x = I[1] + I[2] <NL> <EOF>");
  expect("def f():\n\tx\n", "def f ( ) : <NL> <IN> x <NL> <DE> <EOF>");
  /* numbers */
  expect("1_000 0x1F 0o17 0b101 1e-5 .5 2. 3j", "I[1000] I[31] I[15] I[5] F[1e-05] F[0.5] F[2] F[3] <NL> <EOF>");
  /* strings: every prefix and quoting */
  expect("'a' \"b\" r'\\n' b'x' '''t\nq''' u'u'", "S[a] S[b] S[\\n] S[x] S[t\nq] S[u] <NL> <EOF>");
  expect("'\\t\\x41\\101'", "S[\tAA] <NL> <EOF>");
  expect("f'{x[\"k\"]:>{w}} {{lit}}'", "S[ {lit}] <NL> <EOF>");
  expect("rf'{a}\\d' Rb'\\x'", "S[\\d] S[\\x] <NL> <EOF>");
  expect("s = '''a\n\n  b'''\nx\n", "s = S[a\n\n  b] <NL> x <NL> <EOF>");
  /* operators: longest match */
  expect("a //= b ** c >>= d -> e := f ... @", "a //= b ** c >>= d -> e := f ... @ <NL> <EOF>");
  /* errors */
  expect_error("x = 'abc\n", "t.py:1:5: error: unterminated string literal");
  expect_error("x = '''abc\n", "unterminated triple-quoted string literal");
  expect_error("if a:\n    b\n  c\n", "t.py:3:3: error: unindent does not match any outer indentation level");
  expect_error("f(a\n", "t.py:1:2: error: '(' was never closed");
  expect_error("a)\n", "t.py:1:2: error: unmatched ')'");
  expect_error("f(a]\n", "closing ']' does not match opening '('");
  expect_error("x = $\n", "invalid character '$' in source");
  {
    Arena *a = arena_create();
    Diags d = {0};
    CHECK(kinds_n(a, "x = 1\0\n", 7, &d) == NULL);
    CHECK_CONTAINS(d.out.s, "t.py:1:6: error: source contains a null byte");
    sb_free(&d.out);
    arena_destroy(a);
  }
  expect_error("x = 0x\n", "invalid integer literal");
  expect_error("x = 1 \\ 2\n", "unexpected character after line continuation");
  memory_per_byte();
  return 0;
}
