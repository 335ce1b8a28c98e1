/*
 * bench_out.c — what `tilec bench` prints: the table, CSV and JSON of its
 * rows, and the plot of a sweep (bench.c measures them).
 */
#include "bench.h"
#include "cli.h"
#include "plot.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bench_line_name(const Line *ln) {
  return ln->k.has_meta ? ln->k.meta.name : ln->name[0] ? ln->name : ln->kernel ? ln->kernel : "the kernel";
}

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

double bench_gbps(const Row *r) { return (double)r->bytes / (r->median * 1e6); }
double bench_tflops(const Row *r) { return (double)r->flops / (r->median * 1e9); }


void bench_table_header(const Bench *b, const Columns *c) {
  if (c->x) printf("%12s  ", b->sweep_name);
  if (c->kernel) printf("%-24s  ", "kernel");
  if (c->config) printf("%-32s  ", "config");
  printf("%11s %11s %11s %6s", "median ms", "q20 ms", "q80 ms", "runs");
  if (b->bytes) printf(" %10s", "GB/s");
  if (b->flops) printf(" %10s", "TFLOP/s");
  putchar('\n');
}

void bench_table_row(const Bench *b, const Columns *c, const Line *ln, const Row *r) {
  if (c->x) printf("%12" PRId64 "  ", r->x);
  if (c->kernel) printf("%-24s  ", bench_line_name(ln));
  if (c->config) {
    char cfg[200];
    if (ln->shown_config >= 0) snprintf(cfg, sizeof cfg, "%d: %s", ln->shown_config, ln->desc);
    else snprintf(cfg, sizeof cfg, "%s", ln->desc);
    printf("%-32s  ", cfg);
  }
  if (!r->ok) {
    printf("%11s\n", "failed");
    return;
  }
  printf("%11.4f %11.4f %11.4f %6d", r->median, r->q20, r->q80, r->runs);
  if (b->bytes) printf(" %10.2f", bench_gbps(r));
  if (b->flops) printf(" %10.4f", bench_tflops(r));
  putchar('\n');
}

void bench_csv_header(const Bench *b) {
  printf("device,kernel,config,num_warps,num_stages,%s%smedian_ms,q20_ms,q80_ms,min_ms,max_ms,mean_ms,runs%s%s\n",
         b->nsweep ? b->sweep_name : "", b->nsweep ? "," : "", b->bytes ? ",bytes,gbps" : "",
         b->flops ? ",flops,tflops" : "");
}

void bench_csv_row(const Bench *b, const Line *ln, const Row *r) {
  printf("%s,%s,%d,%d,%d,", b->run.cuda ? "cuda" : "cpu-emulator", bench_line_name(ln), ln->shown_config, ln->num_warps,
         ln->num_stages);
  if (b->nsweep) printf("%" PRId64 ",", r->x);
  if (!r->ok) {
    printf(",,,,,,0%s%s\n", b->bytes ? ",," : "", b->flops ? ",," : "");
    return;
  }
  printf("%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d", r->median, r->q20, r->q80, r->min, r->max, r->mean, r->runs);
  if (b->bytes) printf(",%" PRId64 ",%.6g", r->bytes, bench_gbps(r));
  if (b->flops) printf(",%" PRId64 ",%.6g", r->flops, bench_tflops(r));
  putchar('\n');
}

void bench_json_output(const Bench *b, const Line *lines, const Row *rows, int nrows, const int *best, int npoints) {
  printf("{\n  \"device\": \"%s\",\n", b->run.cuda ? "cuda" : "cpu");
  if (b->run.cuda) printf("  \"arch\": \"%s\",\n", tilec_cuda_target(b->run.cuda));
  else printf("  \"note\": \"%s\",\n", BENCH_CPU_NOTE);
  printf("  \"warmup_ms\": %g,\n  \"rep_ms\": %g,\n  \"l2_flush\": %s,\n", b->warmup_ms, b->rep_ms,
         b->run.cuda && !b->no_flush ? "true" : "false");
  printf("  \"sweep\": ");
  if (b->nsweep) json_string(stdout, b->sweep_name);
  else fputs("null", stdout);
  printf(",\n  \"results\": [");
  for (int i = 0; i < nrows; i++) {
    const Row *r = &rows[i];
    const Line *ln = &lines[r->line];
    const KernelMeta *m = &ln->k.meta;
    printf("%s\n    {\"kernel\": ", i ? "," : "");
    json_string(stdout, bench_line_name(ln));
    printf(", \"config\": %d, \"num_warps\": %d, \"num_stages\": %d, \"constexprs\": {", ln->shown_config,
           ln->num_warps, ln->num_stages);
    for (int c = 0; c < m->nconsts; c++) {
      printf("%s", c ? ", " : "");
      json_string(stdout, m->consts[c].name);
      printf(": %" PRId64, m->consts[c].value);
    }
    printf("}");
    if (b->nsweep) printf(", \"x\": %" PRId64, r->x);
    printf(", \"ok\": %s", r->ok ? "true" : "false");
    if (r->ok) {
      printf(", \"runs\": %d, \"median_ms\": %.6g, \"q20_ms\": %.6g, \"q80_ms\": %.6g, \"min_ms\": %.6g, "
             "\"max_ms\": %.6g, \"mean_ms\": %.6g",
             r->runs, r->median, r->q20, r->q80, r->min, r->max, r->mean);
      if (b->bytes) printf(", \"bytes\": %" PRId64 ", \"gbps\": %.6g", r->bytes, bench_gbps(r));
      if (b->flops) printf(", \"flops\": %" PRId64 ", \"tflops\": %.6g", r->flops, bench_tflops(r));
    }
    printf("}");
  }
  printf("\n  ]");
  if (best) {
    printf(",\n  \"best\": [");
    for (int p = 0; p < npoints; p++) {
      printf("%s\n    {", p ? "," : "");
      if (b->nsweep) printf("\"x\": %" PRId64 ", ", b->sweep[p]);
      if (best[p] < 0) printf("\"config\": null}");
      else {
        printf("\"kernel\": ");
        json_string(stdout, bench_line_name(&lines[best[p]]));
        printf(", \"config\": %d}", lines[best[p]].shown_config);
      }
    }
    printf("\n  ]");
  }
  printf("\n}\n");
}

int bench_draw(const Bench *b, const Line *lines, int nlines, const Row *rows, int nrows) {
  PlotSeries *series = calloc((size_t)nlines, sizeof *series);
  double *xs = calloc((size_t)nrows + 1, sizeof *xs), *ys = calloc((size_t)nrows + 1, sizeof *ys);
  double *los = calloc((size_t)nrows + 1, sizeof *los), *his = calloc((size_t)nrows + 1, sizeof *his);
  char(*labels)[240] = calloc((size_t)nlines, sizeof *labels);
  if (!series || !xs || !ys || !los || !his || !labels) {
    free(series), free(xs), free(ys), free(los), free(his), free(labels);
    return cli_error("out of memory");
  }
  bool kernels = false;
  for (int l = 1; l < nlines; l++) kernels |= strcmp(bench_line_name(&lines[l]), bench_line_name(&lines[0])) != 0;
  int used = 0;
  for (int l = 0; l < nlines; l++) {
    const Line *ln = &lines[l];
    PlotSeries *s = &series[l];
    s->x = xs + used;
    s->y = ys + used;
    s->lo = los + used;
    s->hi = his + used;
    for (int i = 0; i < nrows; i++)
      if (rows[i].line == l && rows[i].ok) {
        const Row *r = &rows[i];
        xs[used] = (double)r->x;
        ys[used] = b->bytes ? bench_gbps(r) : b->flops ? bench_tflops(r) : r->median;
        /* the band of the 20th to 80th percentile times; a rate's is the other way up */
        if (b->bytes || b->flops) {
          double amount = b->bytes ? (double)r->bytes / 1e6 : (double)r->flops / 1e9;
          los[used] = amount / r->q80;
          his[used] = amount / r->q20;
        } else {
          los[used] = r->q20;
          his[used] = r->q80;
        }
        used++;
        s->n++;
      }
    int p = snprintf(labels[l], sizeof labels[l], "%s", kernels ? bench_line_name(ln) : "");
    if (ln->shown_config >= 0)
      snprintf(labels[l] + p, sizeof labels[l] - (size_t)p, "%sconfig %d: %s", p ? " " : "", ln->shown_config, ln->desc);
    else if (!p)
      snprintf(labels[l], sizeof labels[l], "%s", bench_line_name(ln));
    s->label = labels[l];
  }
  char title[200];
  snprintf(title, sizeof title, "%s%s", bench_line_name(&lines[0]), b->run.cuda ? "" : " (CPU emulator)");
  Plot p = {.path = b->plot, .title = title, .xlabel = b->sweep_name,
            .ylabel = b->bytes ? "GB/s" : b->flops ? "TFLOP/s" : "median time (ms)", .xlog = b->sweep_log,
            .series = series, .nseries = nlines};
  char err[512];
  int rc = plot_write(&p, err, sizeof err) ? 0 : cli_error("--plot %s: %s", b->plot, err);
  free(series);
  free(xs);
  free(ys);
  free(los);
  free(his);
  free(labels);
  return rc;
}

