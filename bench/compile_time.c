/*
 * compile_time.c — how long tilec takes to compile each example kernel, in
 * process, through the library: source text in, PTX (or the IR of an
 * earlier stage) out. Cold: each compilation makes its own context; warm:
 * all reuse one tilec_context. The first call of the process is reported
 * apart (it initializes LLVM's NVPTX target, and warm, makes the context).
 *
 * usage: compile_time EXAMPLES_DIR [RUNS] [EMIT] [cold|warm] [KERNEL] [stages]   (EMIT: ptx, tile-gpu, tile, ast)
 * prints: kernel, emit, mode, first call, median and spread (min..max) of RUNS calls, in ms;
 * with `stages`, also the median of each stage (tilec_result_times) over the RUNS calls.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "tilec/tilec.h"

/* The kernels measured: file, kernel, signature. */
static const struct {
  const char *file, *kernel, *sig;
} kernels[] = {
    {"vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024"},
    {"softmax.py", "softmax_kernel", "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024"},
    {"layer_norm.py", "layer_norm_fwd_kernel", "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, fp32, 1024"},
    {"reduce_combine.py", "row_argmax_kernel", "*fp32:16, *fp32:16, *i32:16, i32, i32, 1024"},
    {"static_range.py", "window_sum_kernel", "*fp32:16, *fp32:16, i32, 8, 512"},
    {"matmul.py", "matmul_kernel", "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 128, 128, 32, 8, 'leaky_relu'"},
};

/* The stage times of every run: stage i of run r in ms[i][r]. A stage
 * that runs more than once (verify) is summed within a run. */
#define MAX_STAGES 64
typedef struct Stages {
  int n;
  char name[MAX_STAGES][40];
  double *ms[MAX_STAGES];
} Stages;

static void add_stages(Stages *st, const char *text, int r, int runs) {
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    if (!nl) break;
    /* "NAME   MS ms": the name ends where the run of spaces before the number begins */
    const char *num = nl - 3;
    while (num > p && num[-1] != ' ') num--;
    const char *end = num;
    while (end > p && end[-1] == ' ') end--;
    char name[40];
    snprintf(name, sizeof name, "%.*s", (int)(end - p), p);
    int i = 0;
    while (i < st->n && strcmp(st->name[i], name)) i++;
    if (i == st->n && st->n < MAX_STAGES) {
      snprintf(st->name[st->n], sizeof st->name[0], "%s", name);
      st->ms[st->n++] = calloc((size_t)runs, sizeof(double));
    }
    if (i < st->n) st->ms[i][r] += atof(num);
    p = nl + 1;
  }
}

static void print_stages(Stages *st, int runs) {
  for (int i = 0; i < st->n; i++) {
    sort_doubles(st->ms[i], runs);
    printf("    %-36s %8.3f ms  (%.3f..%.3f)\n", st->name[i], st->ms[i][runs / 2], st->ms[i][0], st->ms[i][runs - 1]);
    free(st->ms[i]);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: compile_time EXAMPLES_DIR [RUNS] [ptx|tile-gpu|tile|ast] [cold|warm] [KERNEL|all] [stages]\n");
    return 2;
  }
  int runs = argc > 2 ? atoi(argv[2]) : 20;
  const char *emit_name = argc > 3 ? argv[3] : "ptx";
  tilec_emit emit = !strcmp(emit_name, "ast") ? TILEC_EMIT_AST : !strcmp(emit_name, "tile") ? TILEC_EMIT_TILE
                  : !strcmp(emit_name, "tile-gpu") ? TILEC_EMIT_TILE_GPU : TILEC_EMIT_PTX;
  bool warm = argc > 4 && !strcmp(argv[4], "warm");
  const char *only = argc > 5 && strcmp(argv[5], "all") ? argv[5] : NULL; /* one kernel, by name */
  bool stages = argc > 6 && !strcmp(argv[6], "stages");
  if (runs < 1 || runs > 10000) runs = 20;
  double *t = calloc((size_t)runs, sizeof *t);
  printf("%-24s %-9s %-5s %10s %10s %22s\n", "kernel", "emit", "mode", "first ms", "median ms", "spread ms (min..max)");
  for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
    if (only && strcmp(only, kernels[k].kernel)) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", argv[1], kernels[k].file);
    size_t len;
    char *src = slurp(path, &len);
    if (!src) {
      fprintf(stderr, "cannot read %s\n", path);
      return 1;
    }
    tilec_compile_options o = {.kernel = kernels[k].kernel, .signature = kernels[k].sig, .emit = emit, .time_stages = stages};
    Stages st = {0};
    double first = 0;
    tilec_context *ctx = NULL;
    bool ok = true;
    for (int r = -1; r < runs; r++) {
      tilec_result *res = NULL;
      double t0 = clock_ms();
      if (warm && !ctx) tilec_context_create(&ctx);
      o.context = ctx;
      tilec_status rc = tilec_compile(kernels[k].file, src, len, &o, &res);
      double dt = clock_ms() - t0;
      if (rc != TILEC_OK) {
        printf("%-24s %-9s %s", kernels[k].kernel, emit_name, tilec_result_diagnostics(res));
        ok = false;
      }
      if (!ok) {
        tilec_result_destroy(res);
        break;
      }
      if (r < 0) first = dt;
      else t[r] = dt;
      if (r >= 0 && stages) add_stages(&st, tilec_result_times(res), r, runs);
      tilec_result_destroy(res);
    }
    free(src);
    tilec_context_destroy(ctx);
    if (!ok) continue;
    sort_doubles(t, runs);
    printf("%-24s %-9s %-5s %10.2f %10.2f %10.2f..%-10.2f\n", kernels[k].kernel, emit_name, warm ? "warm" : "cold", first,
           t[runs / 2], t[0], t[runs - 1]);
    print_stages(&st, runs);
  }
  free(t);
  return 0;
}
