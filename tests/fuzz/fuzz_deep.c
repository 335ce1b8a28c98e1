/*
 * fuzz_deep.c — libFuzzer target for the frontend on deep and long
 * programs: the input is a recipe that expands to a source many times its
 * size, so that nesting 100,000 deep (which no 4096-byte input of
 * fuzz_frontend can reach) is a few bytes of mutation away.
 *
 * Input: as fuzz_frontend's, a first line with the signature (at most 200
 * bytes), then the recipe: text, in which
 *
 *     0x01 C0 C1 L FRAGMENT   repeats the L bytes of FRAGMENT 4 * (C0 + 256 * C1) times,
 *
 * and, inside a fragment, 0x02 is the repetition's index, 0x03 the index
 * plus one (names f0, f1, ... of a chain of helpers: `def f\x02(x): return
 * f\x03(x)`) and 0x04 as many spaces as the index (indentation that grows).
 * The source is cut at 2 MB. So "\x01\x50\xc3\x01(" is 200,000 '('.
 *
 * The frontend runs (lex, parse, sema, the AST printer) on a thread of its
 * own with 2 MB of stack, as a JIT user's thread might have: every nesting
 * limit must stop a program before the stack does, under ASan too. The
 * contract checked, as for fuzz_frontend: no crash, no hang, no leak, no UB;
 * a bad program gives a diagnostic.
 *
 * Build (clang with libFuzzer, e.g. Debian clang-14 + libclang-rt-14-dev),
 * in a build dir of its own; the target is the frontend alone:
 *
 *     CC=clang-14 meson setup build-fuzz -Dfuzz=true
 *     ninja -C build-fuzz tests/fuzz_deep
 *
 * Run (scripts/test.sh runs it for 60 s under CI=true):
 *
 *     cp -r tests/fuzz/corpus_deep /tmp/corpus-deep
 *     build-fuzz/tests/fuzz_deep -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
 *       -dict=tests/fuzz/fuzz_deep.dict -max_total_time=60 /tmp/corpus-deep
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_HEADER = 200, MAX_SOURCE = 2 << 20, STACK = 2 << 20 };

typedef struct Job {
  const char *source;
  size_t length;
  const char *signature;
} Job;

/* Appends n bytes, as far as the cap allows. */
static void put(StrBuf *sb, const void *p, size_t n) {
  if (sb->len + n > MAX_SOURCE) n = MAX_SOURCE > sb->len ? MAX_SOURCE - sb->len : 0;
  if (n) sb_append(sb, p, n);
}

static void expand(StrBuf *sb, const uint8_t *p, size_t n) {
  const uint8_t *end = p + n;
  while (p < end && sb->len < MAX_SOURCE) {
    if (*p != 1 || end - p < 4) {
      put(sb, p++, 1);
      continue;
    }
    long count = 4L * (p[1] | p[2] << 8);
    size_t len = p[3];
    p += 4;
    if (len > (size_t)(end - p)) len = (size_t)(end - p);
    for (long i = 0; i < count && sb->len < MAX_SOURCE; i++)
      for (size_t k = 0; k < len; k++) {
        char num[24];
        if (p[k] == 2 || p[k] == 3) {
          int m = snprintf(num, sizeof num, "%ld", i + (p[k] == 3));
          put(sb, num, (size_t)m);
        } else if (p[k] == 4) {
          for (long s = 0; s < i && sb->len < MAX_SOURCE; s++) put(sb, " ", 1);
        } else {
          put(sb, p + k, 1);
        }
      }
    p += len;
  }
}

static void *run(void *arg) {
  Job *j = arg;
  Arena *a = arena_create();
  Diags d = {0};
  Source src = {.name = "fuzz.py", .len = j->length};
  src.text = arena_strndup(a, j->source, j->length);
  TokenList toks;
  Module *m = NULL;
  Kernel *k = NULL;
  if (lex_file(a, &d, &src, &toks)) m = parse_module(a, &d, &src, &toks);
  if (m) {
    SpecOptions so = {.signature = j->signature};
    k = sema_kernel(a, &d, types_create(a), m, &so);
  }
  if (k && !d.errors) {
    StrBuf sb = {0};
    ast_print_kernel(&sb, k);
    if (!sb.s) abort();
    sb_free(&sb);
  } else if (!d.out.s || !strstr(d.out.s, "error")) {
    abort(); /* every failure says why */
  }
  sb_free(&d.out);
  arena_destroy(a);
  return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char header[MAX_HEADER + 1];
  const char *signature = NULL;
  size_t limit = size < MAX_HEADER + 1 ? size : MAX_HEADER + 1;
  const uint8_t *nl = memchr(data, '\n', limit);
  if (nl) {
    size_t n = (size_t)(nl - data);
    memcpy(header, data, n);
    header[n] = 0;
    signature = header;
    size -= n + 1;
    data = nl + 1;
  }
  StrBuf sb = {0};
  expand(&sb, data, size);
  Job j = {sb.s ? sb.s : "", sb.len, signature};
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setstacksize(&at, STACK);
  pthread_t t;
  if (pthread_create(&t, &at, run, &j)) abort();
  pthread_join(t, NULL);
  pthread_attr_destroy(&at);
  sb_free(&sb);
  return 0;
}
