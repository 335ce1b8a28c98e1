/*
 * compile_growth.c — how compile time grows with the size of a kernel, in
 * process, source text to PTX. Three families, each generated here:
 *   static_range N   a tl.static_range(N) loop of a multiply-add on a tile
 *                    of 128 (N unrolled copies of its body);
 *   straight_line N  N statements `acc = acc * x + k`, written out;
 *   block N          the vector add of examples/vector_add.py at BLOCK = 2^N
 *                    on 4 warps (2^N / 128 elements per thread).
 * A pass or stage that is linear keeps its time per unit of size as the
 * size doubles; one that is quadratic doubles it.
 *
 * usage: compile_growth [RUNS] [static_range|straight_line|block|all] [SIZE...]
 * prints: family, size, median and spread (min..max) of RUNS compilations in
 * ms, and the median of the stages that grew (cse, remove-layout-conversions,
 * lower, NVPTX, summed over their runs in one compilation); or the first line
 * of the diagnostic when the kernel does not compile.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "tilec/tilec.h"

typedef struct Text {
  char *s;
  size_t len, cap;
} Text;

static void put(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Text *t, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (t->s && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return;
    }
    t->cap = 2 * (t->cap + (size_t)n + 64);
    t->s = realloc(t->s, t->cap);
    if (!t->s) abort();
  }
}

static const char *const header = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n";

/* The kernel of a family at a size, and its signature. */
static void make(const char *family, long size, Text *src, char *sig, size_t nsig) {
  put(src, "%s", header);
  if (!strcmp(family, "static_range")) {
    put(src, "def kernel(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):\n"
             "    offs = tl.arange(0, BLOCK)\n"
             "    x = tl.load(x_ptr + offs)\n"
             "    acc = tl.zeros([BLOCK], dtype=tl.float32)\n"
             "    for i in tl.static_range(N):\n"
             "        acc = acc * x + i\n"
             "    tl.store(out_ptr + offs, acc)\n");
    snprintf(sig, nsig, "*fp32:16, *fp32:16, %ld, 128", size);
  } else if (!strcmp(family, "straight_line")) {
    put(src, "def kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):\n"
             "    offs = tl.arange(0, BLOCK)\n"
             "    x = tl.load(x_ptr + offs)\n"
             "    acc = x\n");
    for (long i = 0; i < size; i++) put(src, "    acc = acc * x + %ld\n", i % 7);
    put(src, "    tl.store(out_ptr + offs, acc)\n");
    snprintf(sig, nsig, "*fp32:16, *fp32:16, 128");
  } else {
    put(src, "def kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):\n"
             "    pid = tl.program_id(axis=0)\n"
             "    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n"
             "    mask = offsets < n_elements\n"
             "    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)\n"
             "    y = tl.load(y_ptr + offsets, mask=mask, other=0.0)\n"
             "    tl.store(out_ptr + offsets, x + y, mask=mask)\n");
    snprintf(sig, nsig, "*fp32:16, *fp32:16, *fp32:16, i32, %ld", 1L << size);
  }
}

/* The stages reported, by the start of their names in tilec_result_times. */
static const char *const shown[] = {"cse", "remove-layout-conversions", "lower", "nvptx"};
enum { NSHOWN = sizeof shown / sizeof *shown };

static void add_times(const char *text, double *ms) {
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    if (!nl) break;
    const char *num = nl - 3; /* "NAME   12.345 ms" */
    while (num > p && num[-1] != ' ') num--;
    for (int i = 0; i < NSHOWN; i++) {
      size_t k = strlen(shown[i]);
      if (!strncmp(p, shown[i], k) && p[k] == ' ') ms[i] += atof(num);
    }
    p = nl + 1;
  }
}

static void run(const char *family, long size, int runs) {
  Text src = {0};
  char sig[128];
  make(family, size, &src, sig, sizeof sig);
  double *t = calloc((size_t)runs, sizeof *t), *st[NSHOWN];
  for (int i = 0; i < NSHOWN; i++) st[i] = calloc((size_t)runs, sizeof(double));
  tilec_compile_options o = {.kernel = "kernel", .signature = sig, .emit = TILEC_EMIT_PTX, .time_stages = true};
  for (int r = 0; r < runs; r++) {
    tilec_result *res = NULL;
    double t0 = clock_ms();
    tilec_status rc = tilec_compile("growth.py", src.s, src.len, &o, &res);
    t[r] = clock_ms() - t0;
    if (rc != TILEC_OK) {
      const char *d = tilec_result_diagnostics(res);
      const char *nl = strchr(d, '\n');
      printf("%-14s %8ld %10.1f  %.*s\n", family, size, t[r], nl ? (int)(nl - d) : (int)strlen(d), d);
      tilec_result_destroy(res);
      goto done;
    }
    double ms[NSHOWN] = {0};
    add_times(tilec_result_times(res), ms);
    for (int i = 0; i < NSHOWN; i++) st[i][r] = ms[i];
    tilec_result_destroy(res);
  }
  sort_doubles(t, runs);
  printf("%-14s %8ld %10.1f %10.1f..%-10.1f", family, size, t[runs / 2], t[0], t[runs - 1]);
  for (int i = 0; i < NSHOWN; i++) {
    sort_doubles(st[i], runs);
    printf(" %10.1f", st[i][runs / 2]);
  }
  printf("\n");
done:
  fflush(stdout);
  for (int i = 0; i < NSHOWN; i++) free(st[i]);
  free(t);
  free(src.s);
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 1;
  const char *only = argc > 2 && strcmp(argv[2], "all") ? argv[2] : NULL;
  if (runs < 1 || runs > 1000) runs = 1;
  static const struct {
    const char *family;
    long sizes[8];
  } plan[] = {
      {"static_range", {512, 1024, 2048, 4096}},
      {"straight_line", {5000, 10000, 20000}},
      {"block", {14, 15, 16, 17, 18, 19, 20}},
  };
  printf("%-14s %8s %10s %22s %10s %10s %10s %10s\n", "family", "size", "median ms", "spread ms (min..max)", "cse",
         "rm-layout", "lower", "NVPTX");
  for (size_t f = 0; f < sizeof plan / sizeof *plan; f++) {
    if (only && strcmp(only, plan[f].family)) continue;
    if (argc > 3) {
      for (int i = 3; i < argc; i++) run(plan[f].family, atol(argv[i]), runs);
      continue;
    }
    for (int i = 0; i < 8 && plan[f].sizes[i]; i++) run(plan[f].family, plan[f].sizes[i], runs);
  }
  return 0;
}
