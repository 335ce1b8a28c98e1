/*
 * main.c — the `tilec` command line.
 *
 * Exit codes: 0 success, 1 compile error (diagnostics on stderr), 2 usage
 * error. The CLI is a thin layer over the library: it reads files, parses
 * options, calls tilec_compile(), and prints what comes back.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "cli.h"
#include "tilec/tilec.h"
#include "aot.h"
#include "run.h"


static const char *prog = "tilec";

static void usage_main(FILE *f) {
  fprintf(f,
          "usage: tilec <command> [options]\n"
          "\n"
          "Compiles GPU kernels written in the Triton language.\n"
          "\n"
          "commands:\n"
          "  compile FILE.py -s SIGNATURE   compile one kernel of a Python file\n"
          "  opt FILE.mlir --pass=NAMES     run tile IR passes on IR text\n"
          "  run FILE.py -s SIG -g GRID ARG...\n"
          "                                 run one kernel on the GPU or the CPU emulator, on .npy arrays\n"
          "  bench FILE.py -s SIG -g GRID ARG...\n"
          "                                 time one kernel (each config, over a sweep): a table,\n"
          "                                 JSON, CSV or a plot\n"
          "  aot FILE.py -s SIG [-s SIG]... -o PREFIX\n"
          "                                 compile one kernel into C (PREFIX.c, PREFIX.h) that\n"
          "                                 launches it with libcuda alone\n"
          "\n"
          "options:\n"
          "  -h, --help       show this help (tilec <command> --help for a command)\n"
          "  --version        show the version\n");
}

static void usage_compile(FILE *f) {
  fprintf(f,
          "usage: tilec compile FILE.py [-k NAME] -s SIGNATURE [-D NAME=VALUE]... [-I DIR]... [--emit=KIND]\n"
          "                     [-w N] [--num-stages N] [--config N] [--arch=sm_80|sm_86|sm_89|sm_90|sm_90a]\n"
          "                     [--dump-after=PASS] [--time] [--verify-each] [--fp-fusion=0|1] [-o OUT]\n"
          "\n"
          "Compiles the @triton.jit kernel NAME of FILE.py, specialized by SIGNATURE.\n"
          "\n"
          "options:\n"
          "  -k, --kernel NAME     the kernel to compile (default: the file's only kernel)\n"
          "  -s, --signature SIG   parameter types and constexpr values, in Triton's AOT form:\n"
          "                        \"*fp32:16, *fp32:16, i32, 1024\" (a pointer with a 16-byte\n"
          "                        alignment hint, an i32 scalar, a constexpr); constexprs may\n"
          "                        be numbers, quoted strings ('leaky_relu'), True or False\n"
          "  -D NAME=VALUE         set the constexpr NAME, in place of its signature entry, or the\n"
          "                        module-level constexpr global NAME\n"
          "  -I, --include-dir DIR also find imported modules in DIR (after the file's own folder and\n"
          "                        package; then $TILEC_PATH)\n"
          "  --emit=KIND|STAGE     what to write: ast (the typed, specialized AST), tile (tile IR\n"
          "                        with source locations), tile-gpu (tile IR with layouts),\n"
          "                        llvm-mlir (LLVM/NVVM dialect), llvm (LLVM IR), ptx, cubin, or\n"
          "                        cpu (the CPU emulator's object); or the IR after any STAGE\n"
          "                        (default: ast)\n"
          "  --dump-after=STAGE    also print the IR after STAGE to standard error\n"
          "  --time                also print the wall time of each stage to standard error\n"
          "  --verify-each         verify the IR after every pass (by default: after the first and last)\n"
          "  --fp-fusion=0|1       whether a float multiply and add may become one fma (Triton's\n"
          "                        enable_fp_fusion; default 1, or 0 with TILEC_ENABLE_FP_FUSION=0)\n"
          "  -w, --num-warps N     warps per program (default: autotune config, else 4)\n"
          "  --num-stages N        software pipelining stages (default: config, else 3)\n"
          "  --config N            the @triton.autotune config whose meta-parameters, warps and stages\n"
          "                        apply, numbered from 0 (default: 0, the first)\n"
          "  --arch ARCH           the GPU target: sm_80 (default), sm_86, sm_89, sm_90, sm_90a\n"
          "  -o, --output OUT      write to OUT instead of standard output (and, for\n"
          "                        llvm-mlir, llvm, ptx, cubin, the kernel's metadata to OUT.json)\n"
          "  -h, --help            show this help\n"
          "\n"
          "stages, in order:");
  const char *const *st = tilec_stages();
  for (int i = 0, col = 80; st[i]; i++) {
    int w = (int)strlen(st[i]) + 1;
    if (col + w > 78) {
      fprintf(f, "\n ");
      col = 1;
    }
    fprintf(f, " %s", st[i]);
    col += w;
  }
  fprintf(f, "\n");
}

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "%s: error: ", prog);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(see '%s --help')\n", prog);
  return 2;
}




static int write_output(const tilec_result *r, const char *out_path);

static int cmd_compile(int argc, char **argv) {
  const char *file = NULL, *out_path = NULL, *emit = "ast";
  tilec_compile_options opt = {0};
  const char **defines = calloc((size_t)argc + 1, sizeof(char *));
  const char **includes = calloc((size_t)argc + 1, sizeof(char *));
  int ndefines = 0, nincludes = 0;
  if (!defines || !includes) {
    free(defines);
    free(includes);
    return 2;
  }
  int rc = 2;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v;
    bool bad = false;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage_compile(stdout);
      free(defines);
      free(includes);
      return 0;
    }
    if ((v = cli_opt_value(argc, argv, &i, "-k", "--kernel", &bad))) opt.kernel = v;
    else if ((v = cli_opt_value(argc, argv, &i, "-s", "--signature", &bad))) opt.signature = v;
    else if ((v = cli_opt_value(argc, argv, &i, "-D", "--define", &bad))) {
      if (!strchr(v, '=')) {
        rc = usage_error("-D expects NAME=VALUE, got '%s'", v);
        goto done;
      }
      defines[ndefines++] = v;
    } else if ((v = cli_opt_value(argc, argv, &i, "-I", "--include-dir", &bad))) includes[nincludes++] = v;
    else if ((v = cli_opt_value(argc, argv, &i, "-o", "--output", &bad))) out_path = v;
    else if ((v = cli_opt_value(argc, argv, &i, NULL, "--emit", &bad))) emit = v;
    else if ((v = cli_opt_value(argc, argv, &i, NULL, "--dump-after", &bad))) opt.dump_after = v;
    else if (!strcmp(a, "--time")) opt.time_stages = 1;
    else if (!strcmp(a, "--verify-each")) opt.verify_each = 1;
    else if (!strcmp(a, "--fp-fusion=0")) opt.fp_fusion = -1;
    else if (!strcmp(a, "--fp-fusion=1")) opt.fp_fusion = 1;
    else if ((v = cli_opt_value(argc, argv, &i, NULL, "--arch", &bad))) opt.arch = v;
    else if ((v = cli_opt_value(argc, argv, &i, "-w", "--num-warps", &bad))) {
      if (!cli_small_int(v, 1, 32, &opt.num_warps) || (opt.num_warps & (opt.num_warps - 1))) {
        rc = usage_error("--num-warps expects a power of 2 from 1 to 32, got '%s'", v);
        goto done;
      }
    } else if ((v = cli_opt_value(argc, argv, &i, NULL, "--num-stages", &bad))) {
      if (!cli_num_stages(v, &opt.num_stages)) {
        rc = usage_error("--num-stages expects a number of stages (0 or 1: no pipelining), got '%s'", v);
        goto done;
      }
    } else if ((v = cli_opt_value(argc, argv, &i, NULL, "--config", &bad))) {
      if (!cli_small_int(v, 0, 100000, &opt.config)) {
        rc = usage_error("--config expects a config number from 0, got '%s'", v);
        goto done;
      }
    } else if (bad) {
      rc = usage_error("option '%s' needs a value", a);
      goto done;
    } else if (a[0] == '-' && a[1]) {
      rc = usage_error("unknown option '%s' for 'compile'", a);
      goto done;
    } else if (!file) {
      file = a;
    } else {
      rc = usage_error("unexpected argument '%s' (one input file is compiled at a time)", a);
      goto done;
    }
    if (bad) {
      rc = usage_error("option '%s' needs a value", a);
      goto done;
    }
  }
  if (!file) {
    rc = usage_error("%s", "compile needs an input file");
    goto done;
  }
  if (!opt.signature) {
    rc = usage_error("%s", "compile needs a signature (-s \"*fp32:16, i32, 1024\")");
    goto done;
  }
  static const char *const kinds[] = {
      [TILEC_EMIT_AST] = "ast", [TILEC_EMIT_TILE] = "tile", [TILEC_EMIT_TILE_GPU] = "tile-gpu",
      [TILEC_EMIT_LLVM_MLIR] = "llvm-mlir", [TILEC_EMIT_LLVM] = "llvm", [TILEC_EMIT_PTX] = "ptx",
      [TILEC_EMIT_CUBIN] = "cubin", [TILEC_EMIT_CPU] = "cpu",
  };
  opt.emit = TILEC_EMIT_PTX;
  opt.stop_after = emit; /* a stage's name, unless it is a kind's */
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
    if (!strcmp(emit, kinds[k])) {
      opt.emit = (tilec_emit)k;
      opt.stop_after = NULL;
    }
  bool known = !opt.stop_after;
  for (const char *const *st = tilec_stages(); *st && !known; st++) known = !strcmp(*st, emit);
  if (!known) {
    fprintf(stderr, "%s: error: unknown --emit kind '%s': expected ast, tile, tile-gpu, llvm-mlir, llvm, ptx, cubin,\n"
                    "cpu, or the name of a stage to stop after:", prog, emit);
    for (const char *const *st = tilec_stages(); *st; st++) fprintf(stderr, " %s", *st);
    fprintf(stderr, "\n(see '%s compile --help')\n", prog);
    rc = 2;
    goto done;
  }
  opt.defines = defines;
  opt.num_defines = ndefines;
  opt.include_dirs = includes;
  opt.num_include_dirs = nincludes;

  size_t len;
  char *src = cli_read_source(file, &len);
  if (!src) {
    rc = 1;
    goto done;
  }
  tilec_result *r = NULL;
  tilec_status st = tilec_compile(file, src, len, &opt, &r);
  free(src);
  fputs(tilec_result_diagnostics(r), stderr);
  fputs(tilec_result_dump(r), stderr);
  fputs(tilec_result_times(r), stderr);
  if (st == TILEC_OK) rc = write_output(r, out_path);
  else rc = st == TILEC_ERROR_USAGE ? 2 : st == TILEC_ERROR_NO_MEMORY ? cli_error("out of memory") : 1;
  /* beside a PTX or cubin file: OUT.json, the kernel's metadata */
  if (rc == 0 && out_path && tilec_result_metadata(r)) {
    size_t n = strlen(out_path);
    char *meta_path = malloc(n + 6);
    if (meta_path) {
      snprintf(meta_path, n + 6, "%s.json", out_path);
      const char *meta = tilec_result_metadata(r);
      rc = cli_write_file(meta_path, meta, strlen(meta));
      free(meta_path);
    }
  }
  tilec_result_destroy(r);
done:
  free(defines);
  free(includes);
  return rc;
}

static void usage_opt(FILE *f) {
  fprintf(f,
          "usage: tilec opt FILE.mlir --pass=NAME[,NAME...] [-w N] [--arch ARCH] [--split-input-file] [-o OUT]\n"
          "\n"
          "Runs passes on IR text (as printed by --emit=STAGE) and prints the result: tile\n"
          "IR passes on tile IR (--emit=tile), allocate-shared, insert-barriers and the\n"
          "later passes on the LLVM dialect (--emit=lower).\n"
          "\n"
          "passes: tma-lowering, rewrite-block-pointers, canonicalize, cse, dce, licm,\n"
          "        axis-info, convert-to-gpu, coalesce, accelerate-matmul,\n"
          "        remove-layout-conversions, pipeline,\n"
          "        allocate-shared, insert-barriers, expand-for-gpu, retarget-host,\n"
          "        to-llvm-dialect\n"
          "options:\n"
          "  --pass=NAMES          the passes, in order\n"
          "  -w, --num-warps N     warps per program for layout passes (default 4)\n"
          "  --arch ARCH           the GPU target (default sm_80)\n"
          "  --split-input-file    run on each '// -----' separated piece on its own\n"
          "  -o, --output OUT      write to OUT instead of standard output\n");
}

/* Writes a result's output to a file (whole or not at all) or stdout; the
 * exit code. */
static int write_output(const tilec_result *r, const char *out_path) {
  size_t n;
  const char *text = tilec_result_output(r, &n);
  if (out_path) return cli_write_file(out_path, text, n);
  fwrite(text, 1, n, stdout);
  return cli_stdout_check();
}

static int cmd_opt(int argc, char **argv) {
  const char *file = NULL, *out_path = NULL, *passes = NULL, *arch = NULL;
  int warps = 0;
  bool split = false;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v;
    bool bad = false;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage_opt(stdout);
      return 0;
    }
    if (!strcmp(a, "--split-input-file")) {
      split = true;
      continue;
    }
    if ((v = cli_opt_value(argc, argv, &i, NULL, "--pass", &bad))) passes = v;
    else if ((v = cli_opt_value(argc, argv, &i, "-o", "--output", &bad))) out_path = v;
    else if ((v = cli_opt_value(argc, argv, &i, NULL, "--arch", &bad))) arch = v;
    else if ((v = cli_opt_value(argc, argv, &i, "-w", "--num-warps", &bad))) {
      if (!cli_small_int(v, 1, 32, &warps) || (warps & (warps - 1)))
        return usage_error("--num-warps expects a power of 2 from 1 to 32, got '%s'", v);
    } else if (bad) return usage_error("option '%s' needs a value", a);
    else if (a[0] == '-' && a[1]) return usage_error("unknown option '%s' for 'opt'", a);
    else if (!file) file = a;
    else return usage_error("unexpected argument '%s'", a);
  }
  if (!file) return usage_error("%s", "opt needs an input file");
  if (!passes) return usage_error("%s", "opt needs --pass=NAME[,NAME...]");
  size_t len;
  char *src = cli_read_source(file, &len);
  if (!src) return 1;
  /* --split-input-file: each "// -----" piece is its own module; blank lines
   * in front keep its line numbers those of the file */
  int rc = 0;
  const char *p = src, *end = src + len;
  CliFile sink = {.f = stdout};
  if (out_path && !cli_file_open(&sink, out_path)) {
    free(src);
    return 1;
  }
  FILE *out = sink.f;
  int line = 1;
  for (int piece = 0; p <= end; piece++) {
    const char *sep = split ? strstr(p, "\n// -----") : NULL;
    const char *stop = sep ? sep + 1 : end;
    size_t plen = (size_t)(stop - p);
    char *text = malloc((size_t)line + plen + 1);
    if (!text) break;
    memset(text, '\n', (size_t)line - 1);
    memcpy(text + line - 1, p, plen);
    text[line - 1 + plen] = 0;
    tilec_result *r = NULL;
    tilec_status st = tilec_opt(file, text, (size_t)line - 1 + plen, passes, warps, arch, &r);
    free(text);
    fputs(tilec_result_diagnostics(r), stderr);
    if (piece) fputs("// -----\n", out);
    if (st == TILEC_OK) {
      size_t n;
      const char *o = tilec_result_output(r, &n);
      fwrite(o, 1, n, out);
    } else if (!rc) {
      rc = st == TILEC_ERROR_USAGE ? 2 : st == TILEC_ERROR_NO_MEMORY ? cli_error("out of memory") : 1;
    }
    tilec_result_destroy(r);
    for (const char *c = p; c < stop; c++) line += *c == '\n';
    if (!sep) break;
    p = strchr(sep + 1, '\n');
    if (!p) break;
    p++;
    line++;
  }
  int written = out_path ? cli_file_close(&sink, true) : cli_stdout_check();
  free(src);
  return rc ? rc : written;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage_main(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    usage_main(stdout);
    return cli_stdout_check();
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
    unsigned maj, min, patch;
    LLVMGetVersion(&maj, &min, &patch);
    printf("tilec %s (LLVM %u.%u.%u)\nbuild %s\nXLA FFI handler: %s\n", tilec_version(), maj, min, patch, tilec_build_id(),
           tilec_xla_ffi_handler() ? "yes" : "no (built without jaxlib's xla/ffi/api/c_api.h)");
    return cli_stdout_check();
  }
  int rc;
  if (!strcmp(cmd, "compile")) rc = cmd_compile(argc - 2, argv + 2);
  else if (!strcmp(cmd, "opt")) rc = cmd_opt(argc - 2, argv + 2);
  else if (!strcmp(cmd, "run")) rc = cmd_run(argc - 2, argv + 2);
  else if (!strcmp(cmd, "bench")) rc = cmd_bench(argc - 2, argv + 2);
  else if (!strcmp(cmd, "aot")) rc = cmd_aot(argc - 2, argv + 2);
  else if (cmd[0] == '-') return usage_error("unknown option '%s'", cmd);
  else return usage_error("unknown command '%s'", cmd);
  /* what the command printed (bench's table, JSON or CSV, run --print)
   * must have reached standard output, or the exit code says it did not */
  int out = cli_stdout_check();
  return rc ? rc : out;
}
