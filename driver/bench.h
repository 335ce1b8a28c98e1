/*
 * bench.h — what the pieces of `tilec bench` share: the command's options
 * (bench.c), its lines and rows, and the output formats (bench_out.c).
 */
#ifndef TILEC_DRIVER_BENCH_H
#define TILEC_DRIVER_BENCH_H

#include "run.h"

#include <stdbool.h>
#include <stdint.h>

#define MAX_SWEEP 64

/* What the output says of times taken on the CPU. */
#define BENCH_CPU_NOTE "the times are the CPU emulator's; they say nothing of a GPU's speed"

typedef struct Bench {
  RunOptions run; /* the template: its strings may hold {NAME} */
  double warmup_ms, rep_ms;
  const char *bytes, *flops, *plot;
  bool json, csv, tune, no_flush;
  bool quiet; /* autotuning's runs: a failed launch's report is not printed */
  int rotate;
  const char **kernels;
  int nkernels;
  int configs[64];
  int nconfigs;
  const char *sweep_spec;
  char sweep_name[64];
  int64_t sweep[MAX_SWEEP];
  int nsweep;
  bool sweep_log; /* the values grow by a factor: a log axis */
  /* the run options of one line at one point: their lists and the strings
   * with {NAME} replaced, kept until the next point_options */
  const char **pargs, **pdefines;
  char **owned;
  int nowned;
  /* the progress line */
  bool tty;
  double start_ms, shown_ms;
  bool shown;
} Bench;

/* A line of the table and the plot: one kernel in one config. */
typedef struct Line {
  const char *kernel;
  int config;      /* the config asked for (-1: the kernel's default) */
  int shown_config; /* the config the metadata names (-1 without @triton.autotune) */
  RunKernel k;     /* compiled; bound for its measurement only */
  char *key;       /* what it was compiled from, to compile again only when that changes */
  char desc[160];  /* "BLOCK_SIZE=1024 w4 s3": what sets the config apart */
  char name[128];  /* the kernel's name, from its compile or a sibling line's */
  int num_warps, num_stages;
} Line;

typedef struct Row {
  int line;
  int64_t x;
  bool ok;
  int runs;
  double median, q20, q80, min, max, mean;
  bool has_bytes, has_flops;
  int64_t bytes, flops;
} Row;

typedef struct Columns {
  bool x, kernel, config;
} Columns;

/* ---- the output (bench_out.c) ------------------------------------------------------------- */

/* The line's kernel, by name: the compiled one's, or as -k gave it when it
 * did not compile (at this point of a sweep). */
const char *bench_line_name(const Line *ln);
double bench_gbps(const Row *r);
double bench_tflops(const Row *r);
void bench_table_header(const Bench *b, const Columns *c);
void bench_table_row(const Bench *b, const Columns *c, const Line *ln, const Row *r);
void bench_csv_header(const Bench *b);
void bench_csv_row(const Bench *b, const Line *ln, const Row *r);
void bench_json_output(const Bench *b, const Line *lines, const Row *rows, int nrows, const int *best, int npoints);
/* --plot: the sweep, a line per kernel and config; 0, or the exit code */
int bench_draw(const Bench *b, const Line *lines, int nlines, const Row *rows, int nrows);

#endif
