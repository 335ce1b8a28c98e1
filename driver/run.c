/*
 * run.c — `tilec run`: compile a kernel for the CPU, launch it once on
 * arrays from .npy files, and save the buffers it wrote.
 *
 *   FILE.py --tilec_compile(TILEC_EMIT_CPU)--> host object + metadata JSON
 *     --meta_parse--> parameters and constexprs
 *     --ARGs--> buffers (.npy, empty:, rand: or zeros:DTYPE:SHAPE) and typed scalar slots
 *     --run_grid_eval (runtime/grid.c)--> grid --emu_load_object, emu_launch--> --save--> .npy files
 *
 * Everything the user gives is checked before anything runs, and every
 * mismatch is a message naming the parameter, the value and what was
 * expected: a kernel that reads a buffer of the wrong dtype does not crash,
 * it computes garbage, and that costs more time than an error. Buffers the
 * launch creates are filled with 0xCD so that reads of unwritten elements
 * are visible in the output; on the emulator, an empty: buffer's map of
 * written bytes (EmuBuffer.init) makes such a read an error.
 *
 * This file is the command: its options, the device, the checks, the
 * launch, --save and --print; each argument's parsing is run_args.c's.
 * The metadata reader (runtime/meta.c) and grid expressions
 * (runtime/grid.c) are shared with the JIT and `tilec aot`.
 */
#include "cli.h"
#include "run.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "jit/jit.h"
#include "runtime/grid.h"
#include "support/support.h"
#include "tilec/runtime.h"
#include "tilec/tilec.h"

static const char *prog = "tilec";

/* ==== the command ================================================================== */

static void usage_run(FILE *f) {
  fputs(
          "usage: tilec run FILE.py [-k NAME] -s SIGNATURE -g GRID [-w N] [--num-stages N] [--config N] [-D NAME=VALUE]...\n"
          "                 [--arch ARCH] [--device=cpu|cuda|auto] [--seed N] [--no-racecheck] ARG...\n"
          "                 [--save I=PATH.npy]...\n"
          "\n"
          "Compiles the @triton.jit kernel NAME of FILE.py, specialized by SIGNATURE, launches it\n"
          "once on GRID with the ARGs, and saves the buffers asked for. The ARGs are the runtime\n"
          "parameters in order; constexprs take their values from SIGNATURE or -D.\n"
          "\n"
          "arguments:\n"
          "  FILE.npy              for a pointer parameter: a NumPy array whose dtype matches the\n"
          "                        pointee: *fp32 <f4, *fp16 <f2, *bf16 <u2 (the raw bits), *fp64 <f8,\n"
          "                        *i8 |i1, *i16 <i2, *i32 <i4, *i64 <i8, *u8 |u1, *u16 <u2, *u32 <u4,\n"
          "                        *u64 <u8, *i1 |b1 or |u1, *fp8e4nv and *fp8e5 |u1 (the raw bits)\n"
          "  rand:DTYPE:SHAPE      for a pointer parameter: a new buffer of random values (floats in\n"
          "                        [-1, 1), integers in [-100, 100)), the same on every run\n"
          "  empty:DTYPE:SHAPE     for a pointer parameter: a new buffer of the pointee's DTYPE, filled\n"
          "                        with the byte 0xCD so that reads of unwritten elements show; on\n"
          "                        the CPU such a read is an error: empty:fp32:4096, empty:fp16:128x64\n"
          "  zeros:DTYPE:SHAPE     for a pointer parameter: a new buffer of zeros (a lock, a counter, an\n"
          "                        output the kernel accumulates into)\n"
          "  NUMBER                for a scalar parameter: an integer within its type's range (decimal\n"
          "                        or 0x hex), a float (1.5, 1e-6, inf, nan), True or False for i1\n"
          "\n",
        f);
  fputs("options:\n"
          "  -k, --kernel NAME     the kernel to run (default: the file's only kernel)\n"
          "  -s, --signature SIG   parameter types and constexpr values, as for tilec compile:\n"
          "                        \"*fp32:16, *fp32:16, i32, 1024\"\n"
          "  -D NAME=VALUE         set the constexpr NAME, in place of its signature entry\n"
          "  -I, --include-dir DIR also find imported modules in DIR\n"
          "  -g, --grid GRID       the programs to launch, X[,Y[,Z]]: each an integer or an expression\n"
          "                        over the integer arguments and the constexprs, as a Triton grid\n"
          "                        lambda computes it: + - * // % (Python's floor semantics), / (when\n"
          "                        it divides exactly), unary -, parentheses, cdiv(a, b) or\n"
          "                        triton.cdiv(a, b), min(...), max(...), meta[\"NAME\"]; X is 1 to\n"
          "                        2^31-1, Y and Z 1 to 65535, a missing Y or Z is 1\n"
          "  -w, --num-warps N     warps per program (default: autotune config, else 4)\n"
          "  --num-stages N        software pipelining stages (default: config, else 3)\n"
          "  --config N            the @triton.autotune config whose meta-parameters, warps and stages\n"
          "                        apply, numbered from 0 (default: the tuned one: the tuning cache's,\n"
          "                        else every config is timed on these arguments and the fastest kept\n"
          "                        in the cache; TILEC_PRINT_AUTOTUNING=1 prints the times)\n"
          "  --arch ARCH           the target the code is compiled for: sm_80, sm_86, sm_89, sm_90, sm_90a\n"
          "                        (default: the GPU's; on the CPU sm_80): the emulator runs the code\n"
          "                        compiled for it, its instructions (sm_89's fp8 mma.sync) included\n"
          "  --device DEVICE       cpu (the emulator), cuda (the GPU) or auto (the default: the GPU\n"
          "                        when there is one); without it, the TILEC_DEVICE environment variable\n"
          "  --seed N              run the threads of each block in an order drawn from N, to expose\n"
          "                        missing barriers (default: TILEC_EMU_SEED, else 0: in order)\n"
          "  --no-racecheck        on the CPU, skip the race check of global memory (within a program\n"
          "                        and between programs), which a memory-bound kernel runs several\n"
          "                        times slower with; the other checks stay\n"
          "  --save I=PATH.npy     after the launch, write buffer I (a 0-based argument index or the\n"
          "                        parameter's name) to PATH.npy, in the dtype and shape it came in;\n"
          "                        also when a check fails, so that the output can be inspected\n"
          "  --print I[:N]         after the launch, print the first N (8) elements of buffer I\n"
          "  -h, --help            show this help\n"
          "\n"
          "Exit codes: 0 success (nothing is printed but what the kernel prints), 1 a bad argument,\n"
          "a compile error, or a check the emulator tripped (its report on standard error), 2 a\n"
          "usage error.\n"
          "\n"
          "example: add two vectors of 98432 elements, in blocks of 1024\n"
          "  tilec run examples/vector_add.py -k add_kernel -s \"*fp32:16, *fp32:16, *fp32:16, i32, 1024\" \\\n"
          "    -g \"cdiv(n_elements, BLOCK_SIZE)\" x.npy y.npy empty:fp32:98432 98432 --save 2=out.npy\n",
        f);
}

#define RUN_USAGE "tilec run FILE.py [-k NAME] -s SIGNATURE -g GRID [options] ARG... [--save I=PATH.npy]..."

/* A negative number is an argument, not an option. */
static bool looks_negative_number(const char *a) {
  return a[0] == '-' && (isdigit((unsigned char)a[1]) || a[1] == '.' || !strcmp(a, "-inf") || !strcmp(a, "-nan"));
}

static bool parse_seed(const char *s, uint64_t *out) {
  bool neg;
  return run_parse_integer(s, &neg, out) && !neg && *s != '+';
}

int run_expr_error(const char *what, const char *grid, const char *msg, size_t pos) {
  fprintf(stderr, "%s: error: in %s: %s\n  ", prog, what, msg);
  size_t col = 0;
  for (size_t i = 0; grid[i]; i++) {
    unsigned char c = (unsigned char)grid[i];
    fputc(c == '\t' || c < 0x20 ? ' ' : c, stderr);
    if (i < pos && (c & 0xc0) != 0x80) col++; /* a column per character, not per UTF-8 byte */
  }
  fprintf(stderr, "\n  %*s^\n", (int)col, "");
  return 1;
}


int run_parse_options(int argc, char **argv, RunOptions *o, RunExtraOption extra, void *ctx) {
  if (!o->cmd) {
    o->cmd = "run";
    o->usage = RUN_USAGE;
    o->help = usage_run;
  }
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v;
    bool missing = false;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      o->help(stdout);
      return -1;
    }
    if (extra && a[0] == '-' && a[1] && !looks_negative_number(a)) {
      int took = extra(argc, argv, &i, ctx);
      if (took == 1) continue;
      if (took) return took;
    }
    if (!strcmp(a, "--")) {
      for (i++; i < argc; i++) o->args[o->nargs++] = argv[i];
      break;
    }
    if (!strcmp(a, "--no-racecheck")) {
      o->no_racecheck = true;
      continue;
    }
    if (a[0] != '-' || !a[1] || looks_negative_number(a)) {
      if (!o->file) o->file = a;
      else o->args[o->nargs++] = a;
      continue;
    }
    if ((v = cli_opt_value(argc, argv, &i, "-k", "--kernel", &missing))) o->compile.kernel = v;
    else if ((v = cli_opt_value(argc, argv, &i, "-s", "--signature", &missing))) o->compile.signature = v;
    else if ((v = cli_opt_value(argc, argv, &i, "-g", "--grid", &missing))) o->grid = v;
    else if ((v = cli_opt_value(argc, argv, &i, "-D", "--define", &missing))) {
      if (!strchr(v, '=')) return cli_usage_error(o->cmd, o->usage, "-D expects NAME=VALUE, got '%s'", v);
      o->defines[o->compile.num_defines++] = v;
    } else if ((v = cli_opt_value(argc, argv, &i, "-I", "--include-dir", &missing))) {
      o->includes[o->compile.num_include_dirs++] = v;
    } else if ((v = cli_opt_value(argc, argv, &i, "-w", "--num-warps", &missing))) {
      int w;
      if (!cli_small_int(v, 1, 32, &w) || (w & (w - 1)))
        return cli_usage_error(o->cmd, o->usage, "--num-warps expects a power of 2 from 1 to 32, got '%s'", v);
      o->compile.num_warps = w;
    } else if ((v = cli_opt_value(argc, argv, &i, NULL, "--num-stages", &missing))) {
      if (!cli_num_stages(v, &o->compile.num_stages))
        return cli_usage_error(o->cmd, o->usage, "--num-stages expects a number of stages (0 or 1: no pipelining), got '%s'", v);
    } else if ((v = cli_opt_value(argc, argv, &i, NULL, "--config", &missing))) {
      if (!cli_small_int(v, 0, 100000, &o->compile.config))
        return cli_usage_error(o->cmd, o->usage, "--config expects a config number from 0, got '%s'", v);
      o->has_config = true;
    } else if ((v = cli_opt_value(argc, argv, &i, NULL, "--device", &missing))) {
      o->device = v;
    } else if ((v = cli_opt_value(argc, argv, &i, NULL, "--arch", &missing))) {
      o->compile.arch = v;
    } else if ((v = cli_opt_value(argc, argv, &i, NULL, "--seed", &missing))) {
      if (!parse_seed(v, &o->seed)) return cli_usage_error(o->cmd, o->usage, "--seed expects a non-negative integer, got '%s'", v);
      o->has_seed = true;
    } else if ((v = cli_opt_value(argc, argv, &i, NULL, "--save", &missing))) {
      const char *eq = strchr(v, '=');
      if (!eq || eq == v || !eq[1]) return cli_usage_error(o->cmd, o->usage, "--save expects I=PATH.npy, got '%s'", v);
      o->saves[o->nsaves++] = v;
    } else if ((v = cli_opt_value(argc, argv, &i, NULL, "--print", &missing))) {
      o->prints[o->nprints++] = v;
    } else if (missing) {
      return cli_usage_error(o->cmd, o->usage, "option '%s' needs a value", a);
    } else {
      return cli_usage_error(o->cmd, o->usage, "unknown option '%s' for '%s'", a, o->cmd);
    }
    if (missing) return cli_usage_error(o->cmd, o->usage, "option '%s' needs a value", a);
  }
  if (!o->file) return cli_usage_error(o->cmd, o->usage, "%s needs an input file", o->cmd);
  if (!o->compile.signature) return cli_usage_error(o->cmd, o->usage, "%s needs a signature (-s \"*fp32:16, i32, 1024\")", o->cmd);
  if (!o->grid) return cli_usage_error(o->cmd, o->usage, "%s needs a grid (-g \"cdiv(n_elements, BLOCK_SIZE)\")", o->cmd);
  return 0;
}

int run_pick_device(RunOptions *o) {
  const char *dev = o->device, *from = "--device";
  if (!dev && (dev = getenv("TILEC_DEVICE")) && *dev) from = "TILEC_DEVICE";
  if (!dev || !*dev) dev = "auto";
  if (!strcmp(dev, "cpu")) return 0;
  if (strcmp(dev, "cuda") && strcmp(dev, "auto"))
    return cli_usage_error(o->cmd, o->usage, "%s expects cpu, cuda or auto, got '%s'", from, dev);
  char *err = NULL, old[160] = "";
  if (tilec_cuda_open(0, &o->cuda, &err) == TILEC_RT_OK && !tilec_cuda_target(o->cuda)) {
    int a = tilec_cuda_arch(o->cuda);
    snprintf(old, sizeof old, "device 0 has compute capability %d.%d; tilec compiles for 8.0 (sm_80) and newer", a / 10,
             a % 10);
    tilec_cuda_close(o->cuda);
    o->cuda = NULL;
  }
  int rc = o->cuda || !strcmp(dev, "auto")
               ? 0
               : cli_error("no CUDA device: %s; run on the CPU emulator with --device=cpu%s", err ? err : old,
                           !strcmp(from, "TILEC_DEVICE") ? " (TILEC_DEVICE=cuda asked for CUDA)" : "");
  free(err);
  return rc;
}

/* The buffer --save (or --print) names: an argument index or a parameter's
 * name, up to `end` ('=' or ':') or the end of spec. */
static int resolve_buffer(const KernelMeta *m, const Arg *args, const char *flag, const char *spec, char end_at, int *out) {
  const char *eq = strchr(spec, end_at);
  if (!eq) eq = spec + strlen(spec);
  int len = (int)(eq - spec), idx = -1;
  char *end;
  long n = strtol(spec, &end, 10);
  if (isdigit((unsigned char)spec[0]) && end == eq) {
    if (n >= m->nparams)
      return cli_error("%s %.*s: %s has %d runtime arguments, numbered 0 to %d", flag, len, spec, m->name, m->nparams,
                       m->nparams - 1);
    idx = (int)n;
  } else {
    for (int i = 0; i < m->nparams; i++)
      if ((int)strlen(m->params[i].name) == len && !memcmp(m->params[i].name, spec, (size_t)len)) idx = i;
    if (idx < 0) {
      fprintf(stderr, "%s: error: %s %.*s: %s has no runtime parameter named '%.*s'; they are", prog, flag, len, spec,
              m->name, len, spec);
      for (int i = 0; i < m->nparams; i++) fprintf(stderr, "%s %s", i ? "," : "", m->params[i].name);
      fputc('\n', stderr);
      return 1;
    }
  }
  if (!args[idx].is_ptr)
    return cli_error("%s %.*s: %s is a scalar (%s), not a buffer", flag, len, spec, m->params[idx].name,
                     m->params[idx].type);
  *out = idx;
  return 0;
}

/* Parses text over the names and evaluates it: a grid into dims, or (dims
 * NULL) one expression into *value. */
static bool eval_over(const char *text, const RunName *names, int nnames, unsigned dims[3], int64_t *value, char *err,
                      size_t errlen, size_t *errpos) {
  GridName *gn = calloc((size_t)nnames + 1, sizeof *gn);
  int64_t *values = calloc((size_t)nnames + 1, sizeof *values);
  Grid *g = malloc(sizeof *g);
  GridError e = {.msg = "out of memory"};
  for (int i = 0; gn && values && i < nnames; i++) {
    gn[i] = (GridName){.name = names[i].name, .unusable = names[i].unusable};
    values[i] = names[i].value;
  }
  bool ok = gn && values && g && grid_parse(g, text, gn, nnames, &e) &&
            (dims ? grid_eval(g, values, dims, &e) : grid_eval_value(g, values, value, &e));
  free(gn);
  free(values);
  free(g);
  if (!ok && err && errlen) snprintf(err, errlen, "%s", e.msg);
  if (!ok && errpos) *errpos = e.pos;
  return ok;
}

bool run_grid_eval(const char *grid, const RunName *names, int nnames, unsigned dims[3], char *err, size_t errlen,
                   size_t *errpos) {
  return eval_over(grid, names, nnames, dims, NULL, err, errlen, errpos);
}

bool run_value_eval(const char *text, const RunName *names, int nnames, int64_t *value, char *err, size_t errlen,
                    size_t *errpos) {
  return eval_over(text, names, nnames, NULL, value, err, errlen, errpos);
}

/* Writes the buffers --save names; 0, or the exit code. */
static int save_buffers(const RunOptions *o, const Arg *args, const int *saves) {
  int rc = 0;
  for (int i = 0; i < o->nsaves; i++) {
    const NpyArray *b = &args[saves[i]].buf;
    const char *path = strchr(o->saves[i], '=') + 1;
    char err[512];
    CliFile f;
    if (!cli_file_open(&f, path)) {
      rc = 1;
    } else if (!npy_write_stream(f.f, b->dtype, b->ndim, b->shape, b->data, err, sizeof err)) {
      cli_file_close(&f, false);
      rc = cli_error("--save %.*s: %s: %s", (int)(path - 1 - o->saves[i]), o->saves[i], path, err);
    } else if (cli_file_close(&f, true)) {
      rc = 1;
    }
  }
  return rc;
}

/* The launch on the GPU: the buffers are copied to it and back, the PTX
 * (or cubin) is loaded through runtime.h. No checks but the driver's. */
static int launch_cuda(const RunOptions *o, const tilec_result *r, const KernelMeta *m, Arg *args, const int *saves,
                       const unsigned grid[3]) {
  void **argv = calloc((size_t)(m->nparams + m->nmaps) + 1, sizeof *argv);
  tilec_devptr *dev = calloc((size_t)m->nparams + 1, sizeof *dev);
  _Alignas(64) unsigned char maps[MAX_MAPS][128];
  char *log = NULL; /* runtime.h's message of the call that failed */
  int rc = 0;
  tilec_cuda_module *mod = NULL;
  size_t len;
  const char *image = tilec_result_output(r, &len);
  if (!argv || !dev) rc = cli_error("out of memory");
  if (!rc && tilec_cuda_module_load(o->cuda, image, len + 1, m->name, m->num_warps, (size_t)m->shared_bytes, &mod,
                                    &log) != TILEC_RT_OK)
    rc = cli_error("the GPU cannot load the kernel: %s", log ? log : "out of memory");
  for (int i = 0; i < m->nparams && !rc; i++) {
    Arg *a = &args[i];
    if (a->is_ptr) {
      if (tilec_cuda_alloc(o->cuda, a->buf.nbytes, &dev[i], &log) != TILEC_RT_OK ||
          tilec_cuda_copy_to(o->cuda, dev[i], a->buf.data, a->buf.nbytes, &log) != TILEC_RT_OK)
        rc = cli_error("%s: %s", a->param->name, log ? log : "out of memory");
      a->slot.u64 = dev[i];
    }
    argv[i] = &a->slot;
  }
  if (!rc) rc = run_tensor_maps(m, o->cuda, argv, maps, NULL, NULL);
  if (!rc && (tilec_cuda_launch(mod, grid, argv, NULL, &log) != TILEC_RT_OK ||
              tilec_cuda_synchronize(o->cuda, &log) != TILEC_RT_OK))
    rc = cli_error("the launch failed: %s", log ? log : "out of memory");
  for (int i = 0; i < m->nparams; i++)
    if (dev && dev[i]) {
      if (!rc && tilec_cuda_copy_from(o->cuda, args[i].buf.data, dev[i], args[i].buf.nbytes, &log) != TILEC_RT_OK)
        rc = cli_error("%s: %s", args[i].param->name, log ? log : "out of memory");
      tilec_cuda_free(o->cuda, dev[i], NULL);
    }
  free(log);
  tilec_cuda_module_unload(mod);
  int saved = rc ? 0 : save_buffers(o, args, saves);
  free(argv);
  free(dev);
  return rc ? rc : saved;
}

/* Loads the kernel on the emulator, launches it, writes the buffers --save
 * names (also after a failed launch: they show how far it got); the exit
 * code. */
static int launch(const RunOptions *o, const tilec_result *r, const KernelMeta *m, Arg *args, const int *saves,
                  const unsigned grid[3]) {
  void **argv = calloc((size_t)(m->nparams + m->nmaps) + 1, sizeof *argv);
  EmuBuffer *bufs = calloc((size_t)m->nparams + 2, sizeof *bufs);
  _Alignas(64) unsigned char maps[MAX_MAPS][128];
  if (!argv || !bufs) {
    free(argv);
    free(bufs);
    return cli_error("out of memory");
  }
  int nbufs;
  run_emu_args(m, args, argv, bufs, &nbufs);
  int rc = run_tensor_maps(m, NULL, argv, maps, bufs, &nbufs);
  if (rc) {
    free(argv);
    free(bufs);
    return rc;
  }
  size_t olen;
  const char *obj = tilec_result_output(r, &olen);
  char *msg = NULL;
  EmuKernel *k = emu_load_object(obj, olen, m->name, &msg);
  if (!k) {
    rc = cli_error("%s", msg ? msg : "the emulator cannot load the kernel");
    goto done;
  }
  EmuLaunch l = {
      .grid = {grid[0], grid[1], grid[2]},
      .num_warps = m->num_warps,
      .args = argv,
      .nargs = m->nparams + m->nmaps,
      .buffers = bufs,
      .nbuffers = nbufs,
      .seed = o->seed,
      .no_racecheck = o->no_racecheck,
  };
  fflush(stdout); /* the kernel's prints come after the host's */
  bool ok = emu_launch(k, &l, &msg, NULL);
  fflush(stdout);
  emu_unload(k);
  rc = save_buffers(o, args, saves);
  if (!ok) {
    const char *rep = msg ? msg : "the launch failed";
    size_t n = strlen(rep);
    fprintf(stderr, "%s%s", rep, n && rep[n - 1] == '\n' ? "" : "\n");
    rc = 1;
  }
done:
  free(msg);
  free(argv);
  free(bufs);
  return rc;
}

/* Prints the argument count error, with the parameters expected. */
static int count_error(const KernelMeta *m, int got) {
  fprintf(stderr, "%s: error: %s takes %d runtime argument%s", prog, m->name, m->nparams, m->nparams == 1 ? "" : "s");
  for (int i = 0; i < m->nparams; i++)
    fprintf(stderr, "%s%s %s", i ? ", " : " (", m->params[i].type, m->params[i].name);
  fprintf(stderr, "%s, got %d", m->nparams ? ")" : "", got);
  if (got > m->nparams && m->nconsts)
    fprintf(stderr, "; constexprs such as %s take their values from -s or -D", m->consts[0].name);
  fputc('\n', stderr);
  return 1;
}

int run_compile(const RunOptions *o, const char *src, size_t len, RunKernel *k) {
  memset(k, 0, sizeof *k);
  tilec_compile_options copt = o->compile;
  copt.emit = TILEC_EMIT_CPU;
  if (o->cuda) {
    copt.emit = TILEC_EMIT_PTX;
    if (!copt.arch) copt.arch = tilec_cuda_target(o->cuda); /* --arch: its PTX, which the driver JIT-compiles for the device */
  }
  copt.defines = o->defines;
  copt.include_dirs = o->includes;
  tilec_status st = tilec_compile(o->file, src, len, &copt, &k->result);
  if (!o->quiet) fputs(tilec_result_diagnostics(k->result), stderr);
  if (st != TILEC_OK)
    return st == TILEC_ERROR_USAGE ? 2 : st == TILEC_ERROR_NO_MEMORY ? cli_error("out of memory") : 1;
  char err[512];
  if (!meta_parse(tilec_result_metadata(k->result), &k->meta, err, sizeof err, NULL))
    return cli_error("the kernel's metadata cannot be read: %s", err);
  k->has_meta = true;
  return 0;
}

typedef struct CompileAll {
  RunCompileJob *jobs;
  const char *src;
  size_t len;
} CompileAll;

static void compile_job(void *ctx, int i) {
  CompileAll *c = ctx;
  RunOptions o = c->jobs[i].o;
  o.quiet = true; /* the diagnostics are printed after, in order */
  c->jobs[i].rc = run_compile(&o, c->src, c->len, &c->jobs[i].k);
}

void run_compile_all(RunCompileJob *jobs, int n, const char *src, size_t len) {
  CompileAll c = {.jobs = jobs, .src = src, .len = len};
  parallel_for(n, 16, compile_job, &c);
  for (int i = 0; i < n; i++)
    if (!jobs[i].o.quiet && jobs[i].k.result) fputs(tilec_result_diagnostics(jobs[i].k.result), stderr);
}

int run_bind(const RunOptions *o, RunKernel *k) {
  const KernelMeta *m = &k->meta;
  int rc = 0;
  k->args = calloc((size_t)m->nparams + 1, sizeof *k->args);
  k->saves = calloc((size_t)o->nsaves + 1, sizeof *k->saves);
  k->prints = calloc((size_t)o->nprints + 1, sizeof *k->prints);
  k->names = calloc((size_t)m->nparams + (size_t)m->nconsts + 1, sizeof *k->names);
  if (!k->args || !k->saves || !k->prints || !k->names) return cli_error("out of memory");
  Arg *args = k->args;

  /* the arguments: one per runtime parameter, each of its type; then the
   * buffers --save names */
  if (o->nargs != m->nparams) rc = count_error(m, o->nargs);
  for (int i = 0; i < m->nparams && !rc; i++) rc = run_type_arg(&args[i], &m->params[i]);
  for (int i = 0; i < o->nsaves && !rc; i++) rc = resolve_buffer(m, args, "--save", o->saves[i], '=', &k->saves[i]);
  for (int i = 0; i < o->nprints && !rc; i++) rc = resolve_buffer(m, args, "--print", o->prints[i], ':', &k->prints[i]);
  for (int i = 0; i < m->nparams && !rc; i++)
    rc = args[i].is_ptr ? run_buffer_arg(&args[i], o->args[i], i) : run_scalar_arg(&args[i], o->args[i]);
  for (int i = 0; i < m->nparams && !rc; i++) rc = run_check_hint(&args[i]);
  k->bound = m->nparams;
  if (rc) return rc;

  /* the grid, over the integer arguments and the constexprs */
  int n = 0;
  for (int i = 0; i < m->nparams; i++, n++) {
    k->names[n].name = m->params[i].name;
    k->names[n].unusable = run_grid_value(&args[i], &k->names[n].value);
  }
  for (int i = 0; i < m->nconsts; i++, n++) k->names[n] = (RunName){.name = m->consts[i].name, .value = m->consts[i].value};
  k->nnames = n;
  size_t pos;
  char err[512];
  if (!run_grid_eval(o->grid, k->names, n, k->grid, err, sizeof err, &pos)) {
    size_t sn = o->sweep_name ? strlen(o->sweep_name) : 0;
    if (sn && !strncmp(err, "unknown name '", 14) && !strncmp(err + 14, o->sweep_name, sn) && err[14 + sn] == '\'') {
      /* the sweep's name written bare: its value is {NAME} */
      size_t len = strlen(err);
      snprintf(err + len, sizeof err - len, " (the sweep's value is written {%s})", o->sweep_name);
    }
    return run_expr_error("the grid", o->grid, err, pos);
  }
  return 0;
}

void run_unbind(RunKernel *k) {
  for (int i = 0; k->args && i < k->bound; i++) {
    npy_free(&k->args[i].buf);
    free(k->args[i].init);
  }
  free(k->args);
  free(k->saves);
  free(k->prints);
  free(k->names);
  k->args = NULL;
  k->saves = k->prints = NULL;
  k->names = NULL;
  k->bound = k->nnames = 0;
}

void run_release(RunKernel *k) {
  run_unbind(k);
  if (k->has_meta) meta_free(&k->meta);
  tilec_result_destroy(k->result);
  memset(k, 0, sizeof *k);
}

int run_check_buffers(const RunKernel *k) {
  const KernelMeta *m = &k->meta;
  for (int l = 0; l < 4; l++) {
    char **names = l == 0 ? m->reset : l == 1 ? m->restore : l == 2 ? m->pre_zero : m->pre_copy;
    int n = l == 0 ? m->nreset : l == 1 ? m->nrestore : l == 2 ? m->npre_zero : m->npre_copy;
    for (int j = 0; j < n; j++) {
      const Arg *a = run_arg_named(k, names[j]);
      if (!a || !a->is_ptr)
        return cli_error("%s: %s names '%s', which is not a pointer parameter", m->name,
                         l == 0 ? "autotune's reset_to_zero" : l == 1 ? "autotune's restore_value" : "the config's pre_hook",
                         names[j]);
    }
  }
  for (int j = 0; j + 1 < m->npre_copy; j += 2) {
    const Arg *dst = run_arg_named(k, m->pre_copy[j]), *src = run_arg_named(k, m->pre_copy[j + 1]);
    if (dst->buf.nbytes != src->buf.nbytes)
      return cli_error("%s: the config's pre_hook copies '%s' (%zu bytes) into '%s' (%zu bytes); they must be the same size",
                       m->name, m->pre_copy[j + 1], src->buf.nbytes, m->pre_copy[j], dst->buf.nbytes);
  }
  return 0;
}

int run_param_index(const KernelMeta *m, const char *name) {
  for (int i = 0; i < m->nparams; i++)
    if (!strcmp(m->params[i].name, name)) return i;
  return -1;
}

Arg *run_arg_named(const RunKernel *k, const char *name) {
  int i = run_param_index(&k->meta, name);
  return i < 0 ? NULL : &k->args[i];
}

void run_pre_hook(RunKernel *k) {
  const KernelMeta *m = &k->meta;
  for (int j = 0; j < m->npre_zero; j++) run_zero_buffer(run_arg_named(k, m->pre_zero[j]));
  for (int j = 0; j + 1 < m->npre_copy; j += 2) {
    Arg *dst = run_arg_named(k, m->pre_copy[j]), *src = run_arg_named(k, m->pre_copy[j + 1]);
    memmove(dst->buf.data, src->buf.data, dst->buf.nbytes);
    if (dst->init) {
      if (src->init) memmove(dst->init, src->init, (dst->buf.nbytes + 7) / 8);
      else memset(dst->init, 0xff, (dst->buf.nbytes + 7) / 8);
    }
  }
}

void run_zero_buffer(Arg *a) {
  memset(a->buf.data, 0, a->buf.nbytes);
  if (a->init) memset(a->init, 0xff, (a->buf.nbytes + 7) / 8);
}

int run_tensor_maps(const KernelMeta *m, tilec_cuda *cuda, void **argv, unsigned char (*maps)[128], EmuBuffer *bufs, int *nbufs) {
  if (!m->nmaps) return 0;
  if (m->nmaps > MAX_MAPS) return cli_error("%s takes %d tensor maps; tilec run builds up to %d", m->name, m->nmaps, MAX_MAPS);
  int types[MAX_MAPS];
  for (int i = 0; i < m->nmaps; i++) {
    DType t;
    bool is_ptr;
    types[i] = dtype_parse_param(m->params[m->maps[i].param].type, &t, &is_ptr) ? jit_tensor_map_type(t) : -1;
    if (types[i] < 0) return cli_error("%s: tensor map %d is of %s, which TMA does not copy", m->name, i, m->params[m->maps[i].param].type);
  }
  char *why = NULL;
  if (jit_tensor_maps(cuda, m->name, m->maps, types, m->nmaps, argv, maps, &why) != TILEC_OK) {
    int rc = cli_error("%s", why ? why : "out of memory");
    free(why);
    return rc;
  }
  for (int i = 0; i < m->nmaps; i++) argv[m->nparams + i] = maps[i];
  if (bufs) bufs[(*nbufs)++] = (EmuBuffer){.data = maps, .bytes = (size_t)m->nmaps * 128, .name = "the launch's tensor maps"};
  return 0;
}

void run_emu_args(const KernelMeta *m, Arg *args, void **argv, EmuBuffer *bufs, int *nbufs) {
  *nbufs = 0;
  for (int i = 0; i < m->nparams; i++) {
    Arg *a = &args[i];
    if (a->is_ptr) {
      a->slot.ptr = a->buf.data;
      bufs[(*nbufs)++] = (EmuBuffer){.data = a->buf.data, .bytes = a->buf.nbytes, .name = a->param->name, .init = a->init};
    }
    argv[i] = &a->slot;
  }
}

bool run_options_init(RunOptions *o, int argc) {
  memset(o, 0, sizeof *o);
  o->args = calloc((size_t)argc + 1, sizeof *o->args);
  o->saves = calloc((size_t)argc + 1, sizeof *o->saves);
  o->prints = calloc((size_t)argc + 1, sizeof *o->prints);
  o->defines = calloc((size_t)argc + 1, sizeof *o->defines);
  o->includes = calloc((size_t)argc + 1, sizeof *o->includes);
  return o->args && o->saves && o->prints && o->defines && o->includes;
}

void run_options_free(RunOptions *o) {
  tilec_cuda_close(o->cuda);
  free(o->args);
  free(o->saves);
  free(o->prints);
  free(o->defines);
  free(o->includes);
  o->cuda = NULL;
}

int run_seed_from_env(RunOptions *o) {
  const char *s = getenv("TILEC_EMU_SEED");
  if (o->has_seed || !s || !*s) return 0;
  if (!parse_seed(s, &o->seed))
    return cli_usage_error(o->cmd, o->usage, "TILEC_EMU_SEED expects a non-negative integer, got '%s'", s);
  return 0;
}

int cmd_run(int argc, char **argv) {
  RunOptions o;
  int rc = 1;
  if (!run_options_init(&o, argc)) goto done;
  rc = run_parse_options(argc, argv, &o, NULL, NULL);
  if (rc) {
    rc = rc < 0 ? 0 : rc;
    goto done;
  }
  if ((rc = run_pick_device(&o)) || (rc = run_seed_from_env(&o))) goto done;
  size_t len;
  char *src = cli_read_source(o.file, &len);
  if (!src) {
    rc = 1;
    goto done;
  }
  RunKernel k;
  rc = run_compile(&o, src, len, &k);
  if (!rc) rc = run_bind(&o, &k);
  /* an autotuned kernel runs in its tuned config, unless --config names one */
  int tuned;
  if (!rc && !o.has_config && k.meta.nconfigs > 1 && !(rc = run_tuned_config(&o, src, len, &k, &tuned)) &&
      tuned != k.meta.config) {
    run_release(&k);
    o.compile.config = tuned;
    rc = run_compile(&o, src, len, &k);
    if (!rc) rc = run_bind(&o, &k);
  }
  free(src);
  /* the config's pre_hook: its buffers zeroed and copied before the launch */
  if (!rc) rc = run_check_buffers(&k);
  if (!rc) run_pre_hook(&k);
  if (!rc) {
    rc = o.cuda ? launch_cuda(&o, k.result, &k.meta, k.args, k.saves, k.grid)
                : launch(&o, k.result, &k.meta, k.args, k.saves, k.grid);
    for (int i = 0; i < o.nprints; i++) run_print_buffer(&k.args[k.prints[i]], o.prints[i]);
  }
  run_release(&k);
done:
  run_options_free(&o);
  return rc;
}
