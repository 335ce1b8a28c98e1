/*
 * compile_count.c — compiles kernels to PTX in one process, for bench/compare:
 * the instructions each compile executes (under valgrind's callgrind, which
 * counts the same on every run) and, without it, each compile's wall time.
 *
 * usage: compile_count count|time RUNS < KERNELS
 * KERNELS: lines "FILE<TAB>KERNEL<TAB>SIGNATURE<TAB>CONFIG<TAB>ARCH[<TAB>WARPS<TAB>STAGES]" (warps and
 *          stages for kernels whose autotune configs tilec cannot read).
 *
 * All compiles share one tilec_context. The process's first compile (which
 * initializes LLVM's targets and makes the context) goes through
 * first_compile, every kernel's warm-up through tilec_compile, and the
 * compiles measured through measured_compile, so that
 *   valgrind --tool=callgrind --toggle-collect=measured_compile \
 *            --dump-after=measured_compile compile_count count 1
 * writes one dump per kernel, in input order (count prints nothing but
 * failures), and `--toggle-collect=first_compile` counts the cold one.
 * time prints, per kernel, the median and spread of RUNS warm compiles in ms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "tilec/tilec.h"

typedef struct Job {
  const char *file, *src;
  size_t len;
  tilec_compile_options o;
} Job;

/* One compile; 0 when it succeeded. Not inlined: callgrind counts by name. */
__attribute__((noinline)) static int compile_once(const Job *j) {
  tilec_result *res = NULL;
  tilec_status rc = tilec_compile(j->file, j->src, j->len, &j->o, &res);
  if (rc != TILEC_OK) fprintf(stderr, "%s: %s: %s", j->file, j->o.kernel, res ? tilec_result_diagnostics(res) : "failed\n");
  tilec_result_destroy(res);
  return rc != TILEC_OK;
}

__attribute__((noinline)) int first_compile(const Job *j);
__attribute__((noinline)) int measured_compile(const Job *j);
int first_compile(const Job *j) { return compile_once(j); }
int measured_compile(const Job *j) { return compile_once(j); }

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "count") && strcmp(argv[1], "time")) || atoi(argv[2]) < 1) {
    fprintf(stderr, "usage: compile_count count|time RUNS < KERNELS (lines FILE\\tKERNEL\\tSIGNATURE\\tCONFIG\\tARCH)\n");
    return 2;
  }
  int timing = !strcmp(argv[1], "time"), runs = atoi(argv[2]), failed = 0, first = 1;
  tilec_context *ctx = NULL;
  if (tilec_context_create(&ctx) != TILEC_OK) {
    fprintf(stderr, "compile_count: cannot make a context\n");
    return 1;
  }
  char line[4096];
  double *ms = calloc((size_t)runs, sizeof *ms);
  while (ms && fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\n")] = 0;
    char *f[7] = {0};
    char *p = line;
    int n = 0;
    for (; n < 7 && p; n++) {
      f[n] = p;
      p = strchr(p, '\t');
      if (p) *p++ = 0;
    }
    if ((n != 5 && n != 7) || p) {
      fprintf(stderr, "compile_count: not FILE\\tKERNEL\\tSIGNATURE\\tCONFIG\\tARCH[\\tWARPS\\tSTAGES]: %s\n", line);
      failed = 1;
      continue;
    }
    Job j = {.file = f[0]};
    char *src = slurp(f[0], &j.len);
    if (!src) {
      fprintf(stderr, "compile_count: cannot read %s\n", f[0]);
      failed = 1;
      continue;
    }
    j.src = src;
    j.o = (tilec_compile_options){.kernel = f[1], .signature = f[2], .config = atoi(f[3]), .arch = f[4],
                                  .emit = TILEC_EMIT_PTX, .context = ctx};
    if (n == 7) { /* warps and stages given: a kernel whose autotune configs are host code (the tutorials') */
      j.o.num_warps = atoi(f[5]);
      j.o.num_stages = atoi(f[6]);
    }
    if (first) {
      failed |= first_compile(&j);
      first = 0;
    }
    failed |= compile_once(&j); /* warm-up: the kernel's imports, caches */
    if (timing) {
      for (int r = 0; r < runs; r++) {
        double t0 = clock_ms();
        failed |= measured_compile(&j);
        ms[r] = clock_ms() - t0;
      }
      sort_doubles(ms, runs);
      printf("%s\t%s\t%s\t%.3f\t%.3f\t%.3f\n", f[0], f[1], f[4], ms[runs / 2], ms[0], ms[runs - 1]);
    } else {
      failed |= measured_compile(&j);
    }
    free(src);
  }
  free(ms);
  tilec_context_destroy(ctx);
  return failed;
}
