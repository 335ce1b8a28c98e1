/*
 * bench.c — `tilec bench`: the time of a kernel's launch, on the GPU or on
 * the CPU emulator, for each of its autotune configs and over a sweep of
 * one value; as a table, JSON or CSV, and as a plot.
 *
 *   tilec run's options and ARGs --{NAME} <- each sweep value--> RunOptions
 *     --run_compile--> a kernel per (kernel, config) line --run_bind--> arguments, grid
 *     --measure_cpu | measure_cuda--> times --summarize--> median, q20, q80 --> a row
 *
 * The measurement is Triton's do_bench: a few launches estimate the time of
 * one, which sizes the warm-up (--warmup MS) and the timed repetitions
 * (--rep MS); each timed launch is its own sample, and the row reports the
 * median and the 20th and 80th percentiles. On a GPU, a 256 MiB buffer
 * (larger than any GPU's L2) is written before every launch, outside the
 * events that time it, so that each launch starts with a cold L2; --rotate N
 * rotates N copies of the buffers besides. Buffers the kernel's
 * @triton.autotune names in reset_to_zero are zeroed, and those in
 * restore_value restored, before every launch, also outside the time.
 *
 * On the CPU the times are the emulator's, and the output says that they
 * tell nothing of a GPU's speed. The output formats are bench_out.c's.
 */
#include "bench.h"
#include "cli.h"
#include "plot.h"
#include "run.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit/tuning.h"
#include "runtime/cache.h"
#include "support/timing.h"

#define BENCH_USAGE "tilec bench FILE.py [-k NAME]... -s SIGNATURE -g GRID [options] ARG..."
#define FLUSH_BYTES ((size_t)256 << 20)
#define MIN_REPS 3
#define MAX_REPS 10000


static void usage_bench(FILE *f) {
  fputs("usage: tilec bench FILE.py [-k NAME]... -s SIGNATURE -g GRID [options] ARG...\n"
        "\n"
        "Times the @triton.jit kernel NAME of FILE.py launched on GRID with the ARGs, as Triton's\n"
        "do_bench does: warm-up launches, then timed launches until a time budget is spent; it\n"
        "prints the median time and the 20th and 80th percentiles. The kernel, SIGNATURE, GRID,\n"
        "-D, the ARGs and the device are those of tilec run (see tilec run --help).\n"
        "\n"
        "options:\n"
        "  --warmup MS           warm-up time before the measurement (default 25)\n"
        "  --rep MS              time of the timed launches (default 100); at least 3 launches,\n"
        "                        at most 10000\n"
        "  --bytes EXPR          the bytes one launch moves, for GB/s: an expression of the grid's\n"
        "                        language over the scalar arguments and constexprs, where a pointer\n"
        "                        parameter's name is its buffer's size in bytes: \"x_ptr + y_ptr + out_ptr\"\n"
        "  --flops EXPR          the floating-point operations of one launch, for TFLOP/s: \"2 * M * N * K\"\n"
        "  --config N[,N...]     the @triton.autotune configs to time (default: the tuned one, as\n"
        "                        tilec run takes it: the tuning cache's, else the fastest, kept there)\n"
        "  --tune                time every config, name the fastest and keep it in the tuning cache\n"
        "  -k, --kernel NAME     the kernel; given more than once, each is timed with the same arguments\n"
        "  --sweep NAME=SPEC     time each value of NAME, written {NAME} in the ARGs, -s, -D, -g,\n"
        "                        --bytes and --flops: START:END:xF (START, START*F, ... up to END),\n"
        "                        START:END:+S (START, START+S, ...) or V,V,... (at most 64 values)\n"
        "  --plot FILE           draw the sweep, a line per kernel and config: GB/s with --bytes,\n"
        "                        else TFLOP/s with --flops, else the median time; FILE.png, .svg or\n"
        "                        .pdf (needs PLplot: Debian's libplplot17 and plplot-driver-cairo)\n"
        "  --json                print the results as JSON\n"
        "  --csv                 print the results as CSV\n"
        "  --rotate N            on a GPU, rotate N copies of the buffers from launch to launch\n"
        "  --no-flush            on a GPU, do not flush the L2 cache between launches\n"
        "  --no-racecheck        on the CPU, skip the emulator's race check (faster, fewer checks)\n"
        "  -h, --help            show this help\n"
        "\n"
        "On the CPU (--device=cpu, or without a GPU) the times are the emulator's: they show how\n"
        "the emulator runs the compiled code, not how fast a GPU would.\n"
        "\n"
        "Exit codes: 0 success, 1 a bad argument, a compile error or a failed launch, 2 a usage error.\n"
        "\n"
        "example: vector add over sizes from 2^12 to 2^20, in GB/s, with a plot\n"
        "  tilec bench examples/vector_add.py -s \"*fp32:16, *fp32:16, *fp32:16, i32, 1024\" \\\n"
        "    -g \"cdiv(n_elements, BLOCK_SIZE)\" rand:fp32:{N} rand:fp32:{N} empty:fp32:{N} {N} \\\n"
        "    --sweep N=4096:1048576:x4 --bytes \"x_ptr + y_ptr + out_ptr\" --plot add.png\n",
        f);
}

/* ==== options ====================================================================== */

static bool parse_ms(const char *s, double *out) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end || !(v >= 0) || v > 1e7) return false;
  *out = v;
  return true;
}

static bool parse_i64(const char *s, const char **end, int64_t *out) {
  bool neg;
  uint64_t mag;
  size_t n = strcspn(s, ":,");
  char buf[32];
  if (!n || n >= sizeof buf) return false;
  memcpy(buf, s, n);
  buf[n] = 0;
  if (!run_parse_integer(buf, &neg, &mag) || mag > (uint64_t)INT64_MAX) return false;
  *out = neg ? -(int64_t)mag : (int64_t)mag;
  *end = s + n;
  return true;
}

/* NAME=START:END:xF, NAME=START:END:+S, NAME=V,V,...; 0 or the exit code. */
static int parse_sweep(Bench *b, const char *spec) {
  const char *eq = strchr(spec, '=');
  size_t n = eq ? (size_t)(eq - spec) : 0;
  if (!eq || !n || n >= sizeof b->sweep_name)
    return cli_usage_error("bench", BENCH_USAGE, "--sweep expects NAME=START:END:xF, NAME=START:END:+S or NAME=V,V,..., got '%s'", spec);
  for (size_t i = 0; i < n; i++)
    if (!(spec[i] == '_' || (spec[i] >= 'a' && spec[i] <= 'z') || (spec[i] >= 'A' && spec[i] <= 'Z') ||
          (i && spec[i] >= '0' && spec[i] <= '9')))
      return cli_usage_error("bench", BENCH_USAGE, "--sweep: '%.*s' is not a name (letters, digits, _)", (int)n, spec);
  memcpy(b->sweep_name, spec, n);
  b->sweep_name[n] = 0;
  const char *p = eq + 1, *end;
  int64_t start, stop, step;
  if (strchr(p, ':')) {
    bool ok = parse_i64(p, &end, &start) && *end == ':' && parse_i64(end + 1, &end, &stop) && *end == ':';
    bool mul = ok && end[1] == 'x';
    ok = ok && (end[1] == 'x' || end[1] == '+') && parse_i64(end + 2, &end, &step) && !*end;
    if (!ok)
      return cli_usage_error("bench", BENCH_USAGE, "--sweep %s: expected START:END:xF or START:END:+S, got '%s'", b->sweep_name, p);
    if (stop < start || step < (mul ? 2 : 1) || (mul && start < 1))
      return cli_usage_error("bench", BENCH_USAGE,
                             "--sweep %s: %s needs START <= END and %s, got '%s'", b->sweep_name, mul ? "xF" : "+S",
                             mul ? "START >= 1, F >= 2" : "S >= 1", p);
    b->sweep_log = mul;
    for (int64_t v = start; v <= stop;) {
      if (b->nsweep == MAX_SWEEP)
        return cli_usage_error("bench", BENCH_USAGE, "--sweep %s: more than %d values", b->sweep_name, MAX_SWEEP);
      b->sweep[b->nsweep++] = v;
      if (mul ? __builtin_mul_overflow(v, step, &v) : __builtin_add_overflow(v, step, &v)) break;
    }
    return 0;
  }
  for (;;) {
    if (b->nsweep == MAX_SWEEP)
      return cli_usage_error("bench", BENCH_USAGE, "--sweep %s: more than %d values", b->sweep_name, MAX_SWEEP);
    if (!parse_i64(p, &end, &b->sweep[b->nsweep]) || (*end && *end != ','))
      return cli_usage_error("bench", BENCH_USAGE, "--sweep %s: '%s' is not a list of integers", b->sweep_name, eq + 1);
    b->nsweep++;
    if (!*end) return 0;
    p = end + 1;
  }
}

/* bench's own options, offered before run's (RunExtraOption). */
static int bench_option(int argc, char **argv, int *i, void *ctx) {
  Bench *b = ctx;
  const char *a = argv[*i], *v;
  bool missing = false;
  if (!strcmp(a, "--json")) return b->json = true, 1;
  if (!strcmp(a, "--csv")) return b->csv = true, 1;
  if (!strcmp(a, "--tune")) return b->tune = true, 1;
  if (!strcmp(a, "--no-flush")) return b->no_flush = true, 1;
  if ((v = cli_opt_value(argc, argv, i, NULL, "--warmup", &missing))) {
    if (!parse_ms(v, &b->warmup_ms)) return cli_usage_error("bench", BENCH_USAGE, "--warmup expects milliseconds, got '%s'", v);
  } else if ((v = cli_opt_value(argc, argv, i, NULL, "--rep", &missing))) {
    if (!parse_ms(v, &b->rep_ms)) return cli_usage_error("bench", BENCH_USAGE, "--rep expects milliseconds, got '%s'", v);
  } else if ((v = cli_opt_value(argc, argv, i, NULL, "--bytes", &missing))) {
    b->bytes = v;
  } else if ((v = cli_opt_value(argc, argv, i, NULL, "--flops", &missing))) {
    b->flops = v;
  } else if ((v = cli_opt_value(argc, argv, i, NULL, "--plot", &missing))) {
    if (!plot_device(v)) return cli_usage_error("bench", BENCH_USAGE, "--plot expects FILE.png, FILE.svg or FILE.pdf, got '%s'", v);
    b->plot = v;
  } else if ((v = cli_opt_value(argc, argv, i, NULL, "--rotate", &missing))) {
    if (!cli_small_int(v, 1, 64, &b->rotate)) return cli_usage_error("bench", BENCH_USAGE, "--rotate expects 1 to 64 copies, got '%s'", v);
  } else if ((v = cli_opt_value(argc, argv, i, "-k", "--kernel", &missing))) {
    b->kernels[b->nkernels++] = v;
  } else if ((v = cli_opt_value(argc, argv, i, NULL, "--config", &missing))) {
    for (const char *p = v;;) {
      char *end;
      long c = strtol(p, &end, 10);
      if (end == p || c < 0 || c > 100000 || (*end && *end != ',') || b->nconfigs == 64)
        return cli_usage_error("bench", BENCH_USAGE, "--config expects config numbers from 0, N[,N...], got '%s'", v);
      b->configs[b->nconfigs++] = (int)c;
      if (!*end) break;
      p = end + 1;
    }
  } else if ((v = cli_opt_value(argc, argv, i, NULL, "--sweep", &missing))) {
    if (b->sweep_spec) return cli_usage_error("bench", BENCH_USAGE, "one --sweep at a time");
    b->sweep_spec = v;
    return parse_sweep(b, v) ? 2 : 1;
  } else if ((v = cli_opt_value(argc, argv, i, NULL, "--save", &missing)) ||
             (v = cli_opt_value(argc, argv, i, NULL, "--print", &missing))) {
    return cli_usage_error("bench", BENCH_USAGE, "'%s' is tilec run's: bench keeps no outputs", a);
  } else if (missing) {
    return cli_usage_error("bench", BENCH_USAGE, "option '%s' needs a value", a);
  } else {
    return 0;
  }
  return missing ? cli_usage_error("bench", BENCH_USAGE, "option '%s' needs a value", a) : 1;
}

/* ==== {NAME} ======================================================================= */

/* t with each {NAME} replaced by v (malloc'd); NULL for NULL. */
static char *subst(const char *t, const char *name, int64_t v, bool *used) {
  if (!t) return NULL;
  char key[80], num[24];
  snprintf(key, sizeof key, "{%s}", name);
  snprintf(num, sizeof num, "%" PRId64, v);
  size_t kn = strlen(key), nn = strlen(num), n = 0;
  for (const char *p = t; (p = *name ? strstr(p, key) : NULL); p += kn) n++;
  char *out = malloc(strlen(t) + n * nn + 1), *o = out;
  if (!out) return NULL;
  for (const char *p = t, *q;; p = q + kn) {
    q = *name ? strstr(p, key) : NULL;
    if (!q) {
      strcpy(o, p);
      break;
    }
    memcpy(o, p, (size_t)(q - p));
    o += q - p;
    memcpy(o, num, nn);
    o += nn;
    *used = true;
  }
  return out;
}

/* ==== lines, rows ================================================================== */

/* The sample quantile q of sorted x (numpy's "linear"). */
static double quantile(const double *x, int n, double q) {
  double pos = q * (n - 1);
  int i = (int)pos;
  return i + 1 < n ? x[i] + (pos - i) * (x[i + 1] - x[i]) : x[n - 1];
}

static void summarize(double *t, int n, Row *r) {
  sort_doubles(t, n);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += t[i];
  r->runs = n;
  r->median = quantile(t, n, 0.5);
  r->q20 = quantile(t, n, 0.2);
  r->q80 = quantile(t, n, 0.8);
  r->min = t[0];
  r->max = t[n - 1];
  r->mean = sum / n;
  r->ok = true;
}

/* How many warm-up and timed launches, from the estimated time of one. */
static void plan(const Bench *b, double est_ms, double spent_ms, int *warm, int *reps) {
  if (est_ms < 1e-6) est_ms = 1e-6;
  double w = (b->warmup_ms - spent_ms) / est_ms, r = b->rep_ms / est_ms;
  *warm = w < 0 ? 0 : w > MAX_REPS ? MAX_REPS : (int)w;
  *reps = r < MIN_REPS ? MIN_REPS : r > MAX_REPS ? MAX_REPS : (int)r;
}

/* The progress line: on a terminal, once the command has run a second. */
static void progress(Bench *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(Bench *b, const char *fmt, ...) {
  double now = clock_ms();
  if (!b->tty || now - b->start_ms < 1000 || now - b->shown_ms < 100) return;
  va_list ap;
  va_start(ap, fmt);
  fputs("\r\033[K", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fflush(stderr);
  b->shown_ms = now;
  b->shown = true;
}

static void progress_clear(Bench *b) {
  if (!b->shown) return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
  b->shown = false;
}

/* ==== the CPU ===================================================================== */

typedef struct CpuRun {
  bool quiet;
  EmuKernel *ek;
  EmuLaunch l;
  RunKernel *k;
  unsigned char **saved; /* restore_value buffers, as they came */
} CpuRun;

/* One launch: the buffers reset, then the timed launch. False after printing the report. */
static bool cpu_once(CpuRun *c, double *ms) {
  const KernelMeta *m = &c->k->meta;
  for (int j = 0; j < m->nreset; j++) run_zero_buffer(run_arg_named(c->k, m->reset[j]));
  run_pre_hook(c->k);
  for (int j = 0; j < m->nrestore; j++) {
    Arg *a = run_arg_named(c->k, m->restore[j]);
    memcpy(a->buf.data, c->saved[j], a->buf.nbytes);
  }
  char *msg = NULL;
  fflush(stdout);
  double t0 = clock_ms();
  bool ok = emu_launch(c->ek, &c->l, &msg, NULL);
  *ms = clock_ms() - t0;
  fflush(stdout);
  if (!ok && !c->quiet) {
    const char *rep = msg ? msg : "the launch failed";
    size_t n = strlen(rep);
    fprintf(stderr, "%s%s", rep, n && rep[n - 1] == '\n' ? "" : "\n");
  }
  free(msg);
  return ok;
}

static int measure_cpu(Bench *b, Line *ln, Row *row, const char *what) {
  RunKernel *k = &ln->k;
  const KernelMeta *m = &k->meta;
  CpuRun c = {.k = k, .quiet = b->quiet};
  void **argv = calloc((size_t)(m->nparams + m->nmaps) + 1, sizeof *argv);
  EmuBuffer *bufs = calloc((size_t)m->nparams + 2, sizeof *bufs);
  _Alignas(64) unsigned char maps[MAX_MAPS][128];
  double *t = malloc(MAX_REPS * sizeof *t);
  c.saved = calloc((size_t)m->nrestore + 1, sizeof *c.saved);
  int rc = 0, nbufs;
  if (!argv || !bufs || !t || !c.saved) rc = cli_error("out of memory");
  if (!rc) rc = run_check_buffers(k);
  for (int j = 0; j < m->nrestore && !rc; j++) {
    const Arg *a = run_arg_named(k, m->restore[j]);
    if (!(c.saved[j] = malloc(a->buf.nbytes + 1))) rc = cli_error("out of memory");
    else memcpy(c.saved[j], a->buf.data, a->buf.nbytes);
  }
  char *msg = NULL;
  if (!rc) {
    run_emu_args(m, k->args, argv, bufs, &nbufs);
    rc = run_tensor_maps(m, NULL, argv, maps, bufs, &nbufs);
  }
  if (!rc) {
    size_t olen;
    const char *obj = tilec_result_output(k->result, &olen);
    if (!(c.ek = emu_load_object(obj, olen, m->name, &msg)))
      rc = cli_error("%s", msg ? msg : "the emulator cannot load the kernel");
  }
  if (!rc) {
    c.l = (EmuLaunch){.grid = {k->grid[0], k->grid[1], k->grid[2]}, .num_warps = m->num_warps, .args = argv,
                      .nargs = m->nparams + m->nmaps, .buffers = bufs, .nbuffers = nbufs, .seed = b->run.seed,
                      .no_racecheck = b->run.no_racecheck};
    /* the estimate: the fastest of up to five launches (the first pays for
     * the emulator's first touches) */
    double spent = 0, dt, est = 0;
    int n = 0, warm, reps;
    while (!rc && n < 5 && (n == 0 || spent < b->warmup_ms)) {
      progress(b, "%s: estimating", what);
      rc = cpu_once(&c, &dt) ? 0 : 1;
      est = n == 0 || dt < est ? dt : est;
      spent += dt;
      n++;
    }
    if (!rc) plan(b, est, spent, &warm, &reps);
    for (int i = 0; !rc && i < warm; i++) {
      progress(b, "%s: warm-up %d of %d", what, i + 1, warm);
      rc = cpu_once(&c, &dt) ? 0 : 1;
    }
    for (int i = 0; !rc && i < reps; i++) {
      progress(b, "%s: run %d of %d", what, i + 1, reps);
      rc = cpu_once(&c, &t[i]) ? 0 : 1;
    }
    if (!rc) summarize(t, reps, row);
  }
  emu_unload(c.ek);
  for (int j = 0; j < m->nrestore && c.saved; j++) free(c.saved[j]);
  free(c.saved);
  free(msg);
  free(argv);
  free(bufs);
  free(t);
  return rc;
}

/* ==== the GPU ===================================================================== */

typedef struct GpuRun {
  tilec_cuda *cuda;
  tilec_cuda_module *mod;
  RunKernel *k;
  int rotate;
  tilec_devptr *dev;  /* [rotate][nparams] */
  void **slots;       /* [rotate][nparams + nmaps]: what argv[i] points to, the tensor maps last */
  uint64_t *ptrs;     /* [rotate][nparams]: the pointer arguments' values */
  unsigned char (*maps)[128]; /* [rotate][MAX_MAPS]: each copy's tensor maps, built from its buffers */
  tilec_devptr flush;
  size_t flush_bytes;
  char *log;
} GpuRun;

/* Before launch i: the reset and restored buffers of its copy, and the L2 flush. */
static bool gpu_prepare(GpuRun *g, int i) {
  const KernelMeta *m = &g->k->meta;
  int r = i % g->rotate;
  for (int j = 0; j < m->nreset + m->npre_zero; j++) {
    int p = run_param_index(m, j < m->nreset ? m->reset[j] : m->pre_zero[j - m->nreset]);
    if (tilec_cuda_memset(g->cuda, g->dev[r * m->nparams + p], 0, g->k->args[p].buf.nbytes, &g->log) != TILEC_RT_OK)
      return false;
  }
  for (int j = 0; j < m->nrestore; j++) {
    int p = run_param_index(m, m->restore[j]);
    if (tilec_cuda_copy_to(g->cuda, g->dev[r * m->nparams + p], g->k->args[p].buf.data, g->k->args[p].buf.nbytes,
                           &g->log) != TILEC_RT_OK)
      return false;
  }
  /* the pre_hook's copies, device to device through the host */
  for (int j = 0; j + 1 < m->npre_copy; j += 2) {
    int d = run_param_index(m, m->pre_copy[j]), s = run_param_index(m, m->pre_copy[j + 1]);
    size_t n = g->k->args[d].buf.nbytes;
    void *tmp = malloc(n + 1);
    bool ok = tmp && tilec_cuda_copy_from(g->cuda, tmp, g->dev[r * m->nparams + s], n, &g->log) == TILEC_RT_OK &&
              tilec_cuda_copy_to(g->cuda, g->dev[r * m->nparams + d], tmp, n, &g->log) == TILEC_RT_OK;
    free(tmp);
    if (!ok) return false;
  }
  return !g->flush || tilec_cuda_memset(g->cuda, g->flush, (unsigned char)i, g->flush_bytes, &g->log) == TILEC_RT_OK;
}

static bool gpu_launch(GpuRun *g, int i) {
  int n = g->k->meta.nparams + g->k->meta.nmaps, r = i % g->rotate;
  return tilec_cuda_launch(g->mod, g->k->grid, &g->slots[r * n], NULL, &g->log) == TILEC_RT_OK;
}

static int measure_cuda(Bench *b, Line *ln, Row *row, const char *what) {
  RunKernel *k = &ln->k;
  const KernelMeta *m = &k->meta;
  int n = m->nparams, rc = 0;
  GpuRun g = {.cuda = b->run.cuda, .k = k, .rotate = b->rotate};
  g.dev = calloc((size_t)g.rotate * (size_t)n + 1, sizeof *g.dev);
  int stride = n + m->nmaps;
  g.slots = calloc((size_t)g.rotate * (size_t)stride + 1, sizeof *g.slots);
  g.maps = m->nmaps ? aligned_alloc(64, (size_t)g.rotate * MAX_MAPS * 128) : NULL;
  g.ptrs = calloc((size_t)g.rotate * (size_t)n + 1, sizeof *g.ptrs);
  tilec_cuda_event **ev = calloc(2 * (MAX_REPS + 1), sizeof *ev);
  double *t = malloc(MAX_REPS * sizeof *t);
  if (!g.dev || !g.slots || !g.ptrs || !ev || !t || (m->nmaps && !g.maps)) rc = cli_error("out of memory");
  if (!rc) rc = run_check_buffers(k);
  size_t len;
  const char *image = tilec_result_output(k->result, &len);
  if (!rc && tilec_cuda_module_load(g.cuda, image, len + 1, m->name, m->num_warps, (size_t)m->shared_bytes, &g.mod,
                                    &g.log) != TILEC_RT_OK)
    rc = cli_error("the GPU cannot load the kernel: %s", g.log ? g.log : "out of memory");
  for (int r = 0; r < g.rotate && !rc; r++) {
    for (int i = 0; i < n && !rc; i++) {
      Arg *a = &k->args[i];
      int s = r * n + i;
      g.slots[r * stride + i] = &a->slot;
      if (!a->is_ptr) continue;
      if (tilec_cuda_alloc(g.cuda, a->buf.nbytes ? a->buf.nbytes : 1, &g.dev[s], &g.log) != TILEC_RT_OK ||
          tilec_cuda_copy_to(g.cuda, g.dev[s], a->buf.data, a->buf.nbytes, &g.log) != TILEC_RT_OK)
        rc = cli_error("%s: %s", a->param->name, g.log ? g.log : "out of memory");
      g.ptrs[s] = g.dev[s];
      g.slots[r * stride + i] = &g.ptrs[s];
    }
    /* this copy's tensor maps, from its own buffers, after its parameters */
    if (!rc) rc = run_tensor_maps(m, g.cuda, &g.slots[r * stride], &g.maps[r * MAX_MAPS], NULL, NULL);
  }
  if (!rc && !b->no_flush) {
    g.flush_bytes = FLUSH_BYTES;
    if (tilec_cuda_alloc(g.cuda, g.flush_bytes, &g.flush, &g.log) != TILEC_RT_OK)
      rc = cli_error("the L2 flush buffer (%zu MiB): %s; --no-flush measures without it", g.flush_bytes >> 20,
                     g.log ? g.log : "out of memory");
  }
  for (int i = 0; i < 2 && !rc; i++)
    if (tilec_cuda_event_create(g.cuda, &ev[i], &g.log) != TILEC_RT_OK) rc = cli_error("%s", g.log);
  /* the estimate: five launches between two events, each with its flush, as do_bench's */
  float est = 0;
  if (!rc) {
    progress(b, "%s: estimating", what);
    bool ok = tilec_cuda_event_record(ev[0], NULL, &g.log) == TILEC_RT_OK;
    for (int i = 0; i < 5 && ok; i++) ok = gpu_prepare(&g, i) && gpu_launch(&g, i);
    ok = ok && tilec_cuda_event_record(ev[1], NULL, &g.log) == TILEC_RT_OK &&
         tilec_cuda_synchronize(g.cuda, &g.log) == TILEC_RT_OK &&
         tilec_cuda_event_elapsed(ev[0], ev[1], &est, &g.log) == TILEC_RT_OK;
    if (!ok) rc = cli_error("the launch failed: %s", g.log ? g.log : "out of memory");
  }
  int warm = 0, reps = 0;
  if (!rc) plan(b, est / 5, 0, &warm, &reps);
  for (int i = 2; i < 2 * reps && !rc; i++)
    if (tilec_cuda_event_create(g.cuda, &ev[i], &g.log) != TILEC_RT_OK) rc = cli_error("%s", g.log);
  for (int i = 0; i < warm && !rc; i++)
    if (!gpu_prepare(&g, i) || !gpu_launch(&g, i)) rc = cli_error("the launch failed: %s", g.log ? g.log : "out of memory");
  for (int i = 0; i < reps && !rc; i++) {
    progress(b, "%s: run %d of %d", what, i + 1, reps);
    if (!gpu_prepare(&g, i) || tilec_cuda_event_record(ev[2 * i], NULL, &g.log) != TILEC_RT_OK || !gpu_launch(&g, i) ||
        tilec_cuda_event_record(ev[2 * i + 1], NULL, &g.log) != TILEC_RT_OK)
      rc = cli_error("the launch failed: %s", g.log ? g.log : "out of memory");
  }
  if (!rc && tilec_cuda_synchronize(g.cuda, &g.log) != TILEC_RT_OK) rc = cli_error("the launch failed: %s", g.log);
  for (int i = 0; i < reps && !rc; i++) {
    float ms;
    if (tilec_cuda_event_elapsed(ev[2 * i], ev[2 * i + 1], &ms, &g.log) != TILEC_RT_OK) rc = cli_error("%s", g.log);
    t[i] = ms;
  }
  if (!rc) summarize(t, reps, row);
  for (int i = 0; ev && i < 2 * (MAX_REPS + 1); i++) tilec_cuda_event_destroy(ev[i]);
  for (int i = 0; g.dev && i < g.rotate * n; i++)
    if (g.dev[i]) tilec_cuda_free(g.cuda, g.dev[i], NULL);
  if (g.flush) tilec_cuda_free(g.cuda, g.flush, NULL);
  tilec_cuda_module_unload(g.mod);
  free(g.log);
  free(g.dev);
  free(g.slots);
  free(g.maps);
  free(g.ptrs);
  free(ev);
  free(t);
  return rc;
}

/* ==== the tuning cache ============================================================= */

/* The key of k's tuning choice on disk (jit/tuning.h), the same the JIT
 * computes for the same file, kernel, signature and key values; false when
 * a key parameter is a pointer (or a u64 past INT64_MAX), which is not kept. */
static bool tuning_key(const RunOptions *o, const char *src, size_t len, const RunKernel *k, char hex[65]) {
  const KernelMeta *m = &k->meta;
  int64_t vals[64];
  if (m->nkeys > 64) return false;
  for (int i = 0; i < m->nkeys; i++) {
    int p = run_param_index(m, m->keys[i]);
    if (p < 0 || k->args[p].is_ptr || !tune_scalar_value(k->args[p].type, &k->args[p].slot, &vals[i])) return false;
  }
  TuneIdentity id = {
      .device = o->cuda ? tilec_cuda_target(o->cuda) : "cpu-emulator",
      .kernel = m->name,
      .source = src,
      .length = len,
      .signature = o->compile.signature,
      .defines = o->defines,
      .ndefines = o->compile.num_defines,
      .num_warps = o->compile.num_warps,
      .num_stages = o->compile.num_stages,
      .keys = vals,
      .nkeys = m->nkeys,
  };
  tune_key(&id, hex);
  return true;
}

/* Keeps the choice; a warning when it cannot be written. */
static void keep_choice(const char *dir, const char *hex, int nconfigs, int config, double ms) {
  char w[512];
  if (!tune_put(dir, hex, nconfigs, config, ms, w, sizeof w)) fprintf(stderr, "tilec: warning: %s\n", w);
}

static int measure(Bench *b, Line *ln, Row *row, const char *what);

/* run_tuned_config, with the time budget of each config's measurement. */
static int tuned_config(const RunOptions *o, const char *src, size_t len, const RunKernel *k, double warmup_ms,
                        double rep_ms, int *config) {
  const KernelMeta *m = &k->meta;
  *config = m->config;
  if (m->nconfigs < 2) return 0;
  char dirbuf[1024], hex[65], w[512] = "";
  const char *dir = cache_default_dir(dirbuf, sizeof dirbuf);
  bool disk = dir && tuning_key(o, src, len, k, hex);
  FILE *table = tune_table();
  if (disk && tune_get(dir, hex, m->nconfigs, config, w, sizeof w)) {
    tune_print_cached(table, m->name, *config);
    return 0;
  }
  if (*w) fprintf(stderr, "tilec: warning: %s\n", w);
  /* as Triton's autotuner: do_bench on a GPU; on the emulator the fewest runs */
  Bench tb = {.run = *o, .warmup_ms = warmup_ms, .rep_ms = rep_ms, .rotate = 1, .quiet = true};
  double started = clock_ms(), best_ms = 0;
  int best = -1;
  tune_print_start(table, m->name, m->nconfigs);
  /* the configs compiled in parallel, then timed one by one */
  RunCompileJob *jobs = calloc((size_t)m->nconfigs, sizeof *jobs);
  if (!jobs) return cli_error("out of memory");
  for (int c = 0; c < m->nconfigs; c++) {
    jobs[c].o = *o;
    jobs[c].o.compile.config = c;
    jobs[c].o.quiet = true;
  }
  run_compile_all(jobs, m->nconfigs, src, len);
  tb.tty = isatty(STDERR_FILENO);
  tb.start_ms = started;
  for (int c = 0; c < m->nconfigs; c++) {
    Line ln = {.config = c, .k = jobs[c].k};
    Row row = {0};
    char what[200];
    int at = snprintf(what, sizeof what, "autotuning %s: config %d (%d of %d)", m->name, c, c + 1, m->nconfigs);
    if (best >= 0) snprintf(what + at, sizeof what - (size_t)at, ", best so far config %d, %.4f ms", best, best_ms);
    int rc = jobs[c].rc;
    if (!rc) rc = run_bind(&jobs[c].o, &ln.k);
    if (!rc) rc = measure(&tb, &ln, &row, what);
    progress_clear(&tb);
    run_release(&ln.k);
    tune_print_row(table, c, row.median, rc ? "compile or run" : NULL, NULL);
    if (!rc && (best < 0 || row.median < best_ms)) best = c, best_ms = row.median;
  }
  free(jobs);
  if (best < 0) return cli_error("%s: no @triton.autotune config compiles and runs on these arguments", m->name);
  tune_print_chosen(table, m->name, clock_ms() - started, best, best_ms);
  if (disk) keep_choice(dir, hex, m->nconfigs, best, best_ms);
  *config = best;
  return 0;
}

int run_tuned_config(const RunOptions *o, const char *src, size_t len, const RunKernel *k, int *config) {
  /* as Triton's autotuner: do_bench's budget on a GPU (the decorator's warmup
   * and rep, else 25 and 100 ms); on the emulator the fewest runs */
  const KernelMeta *m = &k->meta;
  double warmup = m->warmup_ms ? m->warmup_ms : 25, rep = m->rep_ms ? m->rep_ms : 100;
  return tuned_config(o, src, len, k, o->cuda ? warmup : 0, o->cuda ? rep : 0, config);
}

/* ==== one point of the sweep ======================================================= */

/* --bytes or --flops: the expression over the scalar arguments, the
 * constexprs, and the pointers' buffer sizes. 0, or the exit code. */
static int eval_amount(const char *flag, const char *text, const RunKernel *k, int64_t *out) {
  const KernelMeta *m = &k->meta;
  RunName *names = calloc((size_t)k->nnames + 1, sizeof *names);
  if (!names) return cli_error("out of memory");
  for (int i = 0; i < k->nnames; i++) {
    names[i] = k->names[i];
    if (i < m->nparams && k->args[i].is_ptr) names[i] = (RunName){.name = names[i].name, .value = (int64_t)k->args[i].buf.nbytes};
  }
  char err[256];
  size_t pos = 0;
  bool ok = run_value_eval(text, names, k->nnames, out, err, sizeof err, &pos);
  free(names);
  if (ok && *out < 0) {
    snprintf(err, sizeof err, "it is %" PRId64 ", less than 0", *out);
    pos = 0;
    ok = false;
  }
  return ok ? 0 : run_expr_error(flag, text, err, pos);
}

/* The run options of one line at sweep value x: the template with {NAME}
 * replaced; they hold until the next call. False when out of memory. */
static bool point_options(Bench *b, const Line *ln, int64_t x, RunOptions *o, bool *used) {
  for (int i = 0; i < b->nowned; i++) free(b->owned[i]);
  b->nowned = 0;
  *o = b->run;
  o->args = b->pargs;
  o->defines = b->pdefines;
  const char *name = b->nsweep ? b->sweep_name : "";
  o->sweep_name = b->nsweep ? b->sweep_name : NULL;
  const char **dst[] = {&o->compile.signature, &o->grid};
  const char *src[] = {b->run.compile.signature, b->run.grid};
  for (int i = 0; i < 2 + b->run.nargs + b->run.compile.num_defines; i++) {
    const char **d = i < 2 ? dst[i] : i < 2 + b->run.nargs ? &o->args[i - 2] : &o->defines[i - 2 - b->run.nargs];
    const char *t = i < 2 ? src[i] : i < 2 + b->run.nargs ? b->run.args[i - 2] : b->run.defines[i - 2 - b->run.nargs];
    if (!t) continue;
    if (!(b->owned[b->nowned] = subst(t, name, x, used))) return false;
    *d = b->owned[b->nowned++];
  }
  o->compile.kernel = ln->kernel;
  if (ln->config >= 0) o->compile.config = ln->config;
  return true;
}

/* Compiles the line for its options (again only when they changed); 0 or the exit code. */
static char *compile_key(const Line *ln, const RunOptions *o);
static void line_compiled(Line *ln);

static int compile_line(Line *ln, const RunOptions *o, const char *src, size_t len) {
  char *key = compile_key(ln, o);
  if (!key) return cli_error("out of memory");
  if (ln->key && !strcmp(ln->key, key)) {
    free(key);
    return 0;
  }
  free(ln->key);
  ln->key = key;
  run_release(&ln->k);
  int rc = run_compile(o, src, len, &ln->k);
  if (!rc) line_compiled(ln);
  return rc;
}

/* The key of what a line is compiled from: its kernel, config, signature and -D. */
static char *compile_key(const Line *ln, const RunOptions *o) {
  size_t n = strlen(o->compile.signature) + 64;
  for (int i = 0; i < o->compile.num_defines; i++) n += strlen(o->defines[i]) + 1;
  char *key = malloc(n);
  if (!key) return NULL;
  int p = snprintf(key, n, "%s|%d|%s", ln->kernel ? ln->kernel : "", o->compile.config, o->compile.signature);
  for (int i = 0; i < o->compile.num_defines; i++) p += snprintf(key + p, n - (size_t)p, "|%s", o->defines[i]);
  return key;
}

/* What a line takes from its compile. */
static void line_compiled(Line *ln) {
  const KernelMeta *m = &ln->k.meta;
  snprintf(ln->name, sizeof ln->name, "%s", m->name);
  ln->shown_config = m->nconfigs ? m->config : -1;
  ln->num_warps = m->num_warps;
  ln->num_stages = m->num_stages;
}

/* Compiles, in parallel, the lines whose options at sweep value x differ
 * from those they were compiled from. A line that does not compile is left
 * out with --tune (its key cleared, so that the next value tries again);
 * otherwise it is the command's error. 0, or the exit code. */
static int compile_lines(Bench *b, Line *lines, int nlines, int64_t x, const char *src, size_t len, bool *used) {
  RunCompileJob *jobs = calloc((size_t)nlines + 1, sizeof *jobs);
  char **keys = calloc((size_t)nlines + 1, sizeof *keys), **sigs = calloc((size_t)nlines + 1, sizeof *sigs);
  char ***defs = calloc((size_t)nlines + 1, sizeof *defs);
  int *which = calloc((size_t)nlines + 1, sizeof *which), njobs = 0, rc = 0, nd = b->run.compile.num_defines;
  if (!jobs || !keys || !sigs || !defs || !which) rc = cli_error("out of memory");
  for (int l = 0; l < nlines && !rc; l++) {
    RunOptions o;
    char *key = NULL;
    if (!point_options(b, &lines[l], x, &o, used) || !(key = compile_key(&lines[l], &o))) {
      rc = cli_error("out of memory");
      break;
    }
    if (lines[l].key && !strcmp(lines[l].key, key)) {
      free(key);
      continue;
    }
    /* the job's own copies of what point_options' next call frees */
    sigs[l] = strdup(o.compile.signature);
    defs[l] = calloc((size_t)nd + 1, sizeof *defs[l]);
    for (int i = 0; defs[l] && i < nd; i++) defs[l][i] = strdup(o.defines[i]);
    bool ok = sigs[l] && defs[l];
    for (int i = 0; ok && i < nd; i++) ok = defs[l][i] != NULL;
    if (!ok) {
      free(key);
      rc = cli_error("out of memory");
      break;
    }
    keys[l] = key;
    o.compile.signature = sigs[l];
    o.defines = (const char **)defs[l];
    o.quiet = b->tune;
    jobs[njobs].o = o;
    which[njobs++] = l;
  }
  if (!rc) run_compile_all(jobs, njobs, src, len);
  for (int j = 0; j < njobs; j++) {
    Line *ln = &lines[which[j]];
    if (rc) {
      run_release(&jobs[j].k);
      continue;
    }
    run_release(&ln->k);
    ln->k = jobs[j].k;
    free(ln->key);
    ln->key = keys[which[j]];
    keys[which[j]] = NULL;
    if (!jobs[j].rc) {
      line_compiled(ln);
    } else if (b->tune) {
      ln->shown_config = ln->config; /* the row names the config that did not compile */
      fprintf(stderr, "tilec: config %d does not compile; it is left out\n", ln->config);
      free(ln->key);
      ln->key = NULL;
    } else {
      rc = jobs[j].rc;
    }
  }
  /* a line that did not compile takes its name from one of the same kernel that did */
  for (int l = 0; l < nlines && !rc; l++)
    for (int o = 0; o < nlines && !lines[l].name[0]; o++)
      if (lines[o].name[0] && lines[o].kernel == lines[l].kernel) memcpy(lines[l].name, lines[o].name, sizeof lines[l].name);
  for (int l = 0; l < nlines; l++) {
    free(keys ? keys[l] : NULL);
    free(sigs ? sigs[l] : NULL);
    for (int i = 0; defs && defs[l] && i < nd; i++) free(defs[l][i]);
    free(defs ? defs[l] : NULL);
  }
  free(jobs);
  free(keys);
  free(sigs);
  free(defs);
  free(which);
  return rc;
}

/* "BLOCK_SIZE=1024 w4 s3": the constexprs in which the lines of one kernel
 * differ, and the warps and stages. */
static void describe_lines(Line *lines, int nlines) {
  for (int l = 0; l < nlines; l++) {
    Line *ln = &lines[l];
    const KernelMeta *m = &ln->k.meta;
    int p = 0;
    ln->desc[0] = 0;
    if (!ln->k.has_meta) continue;
    int same = 0; /* the lines of this kernel */
    for (int o = 0; o < nlines; o++) same += lines[o].k.has_meta && !strcmp(lines[o].k.meta.name, m->name);
    for (int c = 0; c < m->nconsts; c++) {
      bool differs = same == 1 && ln->shown_config >= 0; /* a tuned config: all of them */
      for (int o = 0; o < nlines && !differs; o++) {
        const KernelMeta *om = &lines[o].k.meta;
        if (!lines[o].k.has_meta || strcmp(om->name, m->name)) continue;
        for (int d = 0; d < om->nconsts; d++)
          if (!strcmp(om->consts[d].name, m->consts[c].name)) differs |= om->consts[d].value != m->consts[c].value;
      }
      if (differs && p < (int)sizeof ln->desc)
        p += snprintf(ln->desc + p, sizeof ln->desc - (size_t)p, "%s=%" PRId64 " ", m->consts[c].name, m->consts[c].value);
    }
    if (p < (int)sizeof ln->desc) snprintf(ln->desc + p, sizeof ln->desc - (size_t)p, "w%d s%d", m->num_warps, m->num_stages);
  }
}

/* The time of the line's launch, on the device of the run. */
static int measure(Bench *b, Line *ln, Row *row, const char *what) {
  return b->run.cuda ? measure_cuda(b, ln, row, what) : measure_cpu(b, ln, row, what);
}

/* ==== the command ================================================================== */

/* The lines: each kernel, in each config asked for (every config with --tune). */
static int make_lines(Bench *b, const char *src, size_t len, Line **out, int *nout) {
  const char *none[1] = {NULL};
  const char **kernels = b->nkernels ? b->kernels : none;
  int nk = b->nkernels ? b->nkernels : 1, cap = 0, n = 0;
  Line *lines = NULL;
  for (int ki = 0; ki < nk; ki++) {
    int configs[64], nc = b->nconfigs;
    memcpy(configs, b->configs, sizeof configs);
    if (!nc) configs[nc++] = -1;
    if (b->tune) {
      /* how many configs: compile the first */
      Line probe = {.kernel = kernels[ki], .config = 0};
      RunOptions o;
      bool used = false;
      int rc = point_options(b, &probe, b->nsweep ? b->sweep[0] : 0, &o, &used) ? 0 : cli_error("out of memory");
      if (!rc) rc = compile_line(&probe, &o, src, len);
      int total = rc ? 0 : probe.k.meta.nconfigs;
      const char *kname = probe.k.has_meta ? probe.k.meta.name : "the kernel";
      if (!rc && !total) rc = cli_error("--tune: %s has no @triton.autotune configs", kname);
      if (!rc && total > 64) rc = cli_error("--tune: %s has %d configs; --config picks at most 64", kname, total);
      free(probe.key);
      run_release(&probe.k);
      if (rc) {
        free(lines);
        return rc;
      }
      nc = total;
      for (int c = 0; c < nc; c++) configs[c] = c;
    }
    for (int c = 0; c < nc; c++) {
      if (n == cap) {
        cap = cap ? 2 * cap : 8;
        Line *nl = realloc(lines, (size_t)cap * sizeof *nl);
        if (!nl) {
          free(lines);
          return cli_error("out of memory");
        }
        lines = nl;
      }
      lines[n++] = (Line){.kernel = kernels[ki], .config = configs[c], .shown_config = -1};
    }
  }
  *out = lines;
  *nout = n;
  return 0;
}

static int bench(Bench *b, const char *src, size_t len) {
  Line *lines = NULL;
  int nlines = 0, rc = make_lines(b, src, len, &lines, &nlines);
  if (rc) return rc;
  int npoints = b->nsweep ? b->nsweep : 1;
  Row *rows = calloc((size_t)npoints * (size_t)nlines + 1, sizeof *rows);
  int *best = b->tune ? calloc((size_t)npoints + 1, sizeof *best) : NULL;
  int nrows = 0;
  bool used = false, failed = false;
  Columns cols = {.x = b->nsweep > 0};
  if (!rows || (b->tune && !best)) rc = cli_error("out of memory");
  if (!rc && !b->run.cuda) fprintf(b->json || b->csv ? stderr : stdout, "tilec bench: %s\n", BENCH_CPU_NOTE);
  if (!rc && b->csv) bench_csv_header(b);
  for (int p = 0; p < npoints && !rc; p++) {
    int64_t x = b->nsweep ? b->sweep[p] : 0;
    int base = nrows;
    char hex[65], dirbuf[1024];
    bool have_key = false;
    /* every line compiled first, in parallel, so that the first table row knows the configs apart */
    rc = compile_lines(b, lines, nlines, x, src, len, &used);
    if (rc) break;
    if (p == 0) {
      describe_lines(lines, nlines);
      bool kernels = false;
      for (int l = 1; l < nlines; l++) kernels |= lines[l].kernel != lines[0].kernel;
      cols.kernel = kernels;
      cols.config = nlines > 1 || lines[0].shown_config >= 0;
      if (!b->json && !b->csv) bench_table_header(b, &cols);
    }
    if (best) best[p] = -1;
    for (int l = 0; l < nlines && !rc; l++) {
      Line *ln = &lines[l];
      Row *r = &rows[nrows++];
      *r = (Row){.line = l, .x = x};
      if (!ln->k.has_meta) {
        failed = true;
        goto print;
      }
      RunOptions o;
      if (!point_options(b, ln, x, &o, &used)) rc = cli_error("out of memory");
      if (!rc) rc = run_bind(&o, &ln->k);
      if (!rc && b->tune && b->nkernels <= 1 && !have_key) have_key = tuning_key(&o, src, len, &ln->k, hex);
      /* an autotuned kernel without --config or --tune: its tuned config */
      int c;
      if (!rc && !b->tune && !b->nconfigs && ln->k.meta.nconfigs > 1 &&
          !(rc = tuned_config(&o, src, len, &ln->k, b->warmup_ms, b->rep_ms, &c)) && c != ln->k.meta.config) {
        ln->config = c;
        if (!point_options(b, ln, x, &o, &used)) rc = cli_error("out of memory");
        if (!rc) rc = compile_line(ln, &o, src, len);
        if (!rc) rc = run_bind(&o, &ln->k);
        describe_lines(lines, nlines);
      }
      if (!rc && b->bytes) {
        char *t = subst(b->bytes, b->nsweep ? b->sweep_name : "", x, &used);
        rc = t ? eval_amount("--bytes", t, &ln->k, &r->bytes) : cli_error("out of memory");
        r->has_bytes = !rc;
        free(t);
      }
      if (!rc && b->flops) {
        char *t = subst(b->flops, b->nsweep ? b->sweep_name : "", x, &used);
        rc = t ? eval_amount("--flops", t, &ln->k, &r->flops) : cli_error("out of memory");
        r->has_flops = !rc;
        free(t);
      }
      if (!rc && b->nsweep && !used)
        rc = cli_usage_error("bench", BENCH_USAGE, "--sweep %s: no {%s} in the ARGs, -s, -D, -g, --bytes or --flops",
                             b->sweep_name, b->sweep_name);
      if (!rc) {
        char what[160];
        int w = snprintf(what, sizeof what, "%s", bench_line_name(ln));
        if (b->nsweep) w += snprintf(what + w, sizeof what - (size_t)w, " %s=%" PRId64, b->sweep_name, x);
        if (ln->shown_config >= 0) w += snprintf(what + w, sizeof what - (size_t)w, " config %d", ln->shown_config);
        if (best && best[p] >= 0 && w < (int)sizeof what)
          snprintf(what + w, sizeof what - (size_t)w, " (%d of %d; best so far config %d, %.4f ms)", l + 1, nlines,
                   lines[best[p]].shown_config, rows[base + best[p]].median);
        rc = measure(b, ln, r, what);
        progress_clear(b);
        if (rc && b->tune) {
          fprintf(stderr, "tilec: config %d does not run; it is left out\n", ln->shown_config);
          failed = true;
          rc = 0;
        }
      }
      run_unbind(&ln->k);
      if (rc) break;
      if (best && r->ok && (best[p] < 0 || r->median < rows[base + best[p]].median)) best[p] = l;
    print:
      if (b->csv) bench_csv_row(b, ln, r);
      else if (!b->json) bench_table_row(b, &cols, ln, r);
      fflush(stdout);
    }
    const char *dir = cache_default_dir(dirbuf, sizeof dirbuf);
    if (!rc && best && best[p] >= 0 && have_key && dir)
      keep_choice(dir, hex, lines[best[p]].k.meta.nconfigs, lines[best[p]].shown_config, rows[base + best[p]].median);
    if (!rc && best && !b->json && !b->csv) {
      if (best[p] < 0) printf("no config ran\n");
      else {
        const Line *bl = &lines[best[p]];
        printf("best%s%s", b->nsweep ? " at " : "", b->nsweep ? b->sweep_name : "");
        if (b->nsweep) printf("=%" PRId64, x);
        printf(": config %d (%s), %.4f ms\n", bl->shown_config, bl->desc, rows[base + best[p]].median);
      }
    }
  }
  if (!rc && b->json) bench_json_output(b, lines, rows, nrows, best, npoints);
  if (!rc && b->plot) rc = bench_draw(b, lines, nlines, rows, nrows);
  if (!rc && failed) {
    bool any = false;
    for (int i = 0; i < nrows; i++) any |= rows[i].ok;
    if (!any) rc = cli_error("no config compiled and ran");
  }
  for (int l = 0; l < nlines; l++) {
    run_release(&lines[l].k);
    free(lines[l].key);
  }
  free(lines);
  free(rows);
  free(best);
  return rc;
}

int cmd_bench(int argc, char **argv) {
  Bench b = {.warmup_ms = 25, .rep_ms = 100, .rotate = 1};
  int rc = 1;
  if (!run_options_init(&b.run, argc) || !(b.kernels = calloc((size_t)argc + 1, sizeof *b.kernels))) {
    run_options_free(&b.run);
    return cli_error("out of memory");
  }
  b.run.cmd = "bench";
  b.run.usage = BENCH_USAGE;
  b.run.help = usage_bench;
  rc = run_parse_options(argc, argv, &b.run, bench_option, &b);
  if (rc) {
    rc = rc < 0 ? 0 : rc;
    goto done;
  }
  if (b.json + b.csv > 1) {
    rc = cli_usage_error("bench", BENCH_USAGE, "--json and --csv: one output format at a time");
    goto done;
  }
  if (b.tune && b.nconfigs) {
    rc = cli_usage_error("bench", BENCH_USAGE, "--tune times every config; --config names some");
    goto done;
  }
  if (b.plot && !b.nsweep) {
    rc = cli_usage_error("bench", BENCH_USAGE, "--plot draws a sweep: it needs --sweep NAME=...");
    goto done;
  }
  if (b.plot) { /* before anything runs: a missing PLplot is known now */
    char err[256];
    if (!plot_available(b.plot, err, sizeof err)) {
      rc = cli_error("--plot %s: %s", b.plot, err);
      goto done;
    }
  }
  if ((rc = run_pick_device(&b.run)) || (rc = run_seed_from_env(&b.run))) goto done;
  size_t nlists = (size_t)b.run.nargs + (size_t)b.run.compile.num_defines + 3;
  b.pargs = calloc(nlists, sizeof *b.pargs);
  b.pdefines = calloc(nlists, sizeof *b.pdefines);
  b.owned = calloc(nlists, sizeof *b.owned);
  if (!b.pargs || !b.pdefines || !b.owned) {
    rc = cli_error("out of memory");
    goto done;
  }
  b.tty = isatty(STDERR_FILENO);
  b.start_ms = clock_ms();
  size_t len;
  char *src = cli_read_source(b.run.file, &len);
  if (!src) {
    rc = 1;
    goto done;
  }
  rc = bench(&b, src, len);
  free(src);
done:
  for (int i = 0; i < b.nowned; i++) free(b.owned[i]);
  run_options_free(&b.run);
  free(b.kernels);
  free(b.pargs);
  free(b.pdefines);
  free(b.owned);
  return rc;
}
