/*
 * aot.c — `tilec aot`: one kernel, several signatures and targets, into a
 * C source and header that launch it with libcuda alone (what Triton's
 * compile.py and link.py do, without Python).
 *
 *   FILE.py --tilec_compile(PTX, then cubin) per signature and arch-->
 *     images + metadata --meta_parse--> parameters, constexprs, warps
 *     --aot_grid_to_c--> the grid as C --aot_emit_header, aot_emit_source--> PREFIX.h, PREFIX.c
 *
 * This file is the command: its options, the compilations, the checks
 * that the signatures fit one dispatcher, the grid's translation, the
 * files written. What the generated code says is aot_emit.c's.
 *
 * A cubin needs the toolkit's nvJitLink at generation time; without it the
 * output embeds PTX only, which the driver compiles at load, and a one-line
 * note says so.
 */
#include "cli.h"
#include "aot.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilec/tilec.h"

static const char *prog = "tilec";

/* ==== the command line ============================================================== */

static void usage_aot(FILE *f) {
  fputs("usage: tilec aot FILE.py [-k NAME] -s SIGNATURE [-s SIGNATURE]... [-g GRID] [-w N] [--num-stages N]\n"
        "                 [--config N] [--arch sm_80,sm_90a] [--ptx-only] [--xla-ffi] -o PREFIX\n"
        "\n"
        "Compiles the @triton.jit kernel NAME of FILE.py for each SIGNATURE and each target, and\n"
        "writes PREFIX.h and PREFIX.c: C11 that embeds the cubins and the PTX and launches them\n"
        "through the CUDA driver API, needing only cuda.h to compile and libc to link: the\n"
        "driver (libcuda.so.1) is opened by P_load, which fails with\n"
        "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, saying why in its log, where there is none. The\n"
        "functions are named after PREFIX's file name (letters, digits and '_'):\n"
        "\n"
        "  CUresult P_load(CUcontext ctx)  load into ctx (NULL: the calling thread's current\n"
        "                                  context): for the device's compute capability, the\n"
        "                                  cubin built for it, else the PTX, compiled by the driver\n"
        "  const char *P_load_log(void)    what the last load said (the driver's JIT logs)\n"
        "  void P_unload(void)\n"
        "  CUresult P_I(CUstream, unsigned gx, unsigned gy, unsigned gz, ARGS)\n"
        "                                  launch signature I (0, 1, ...); ARGS are the runtime\n"
        "                                  parameters in order: CUdeviceptr for a pointer, int32_t\n"
        "                                  for i32, float for fp32, uint16_t (the bits) for fp16, ...\n"
        "  CUresult P(CUstream, [gx, gy, gz,] ARGS)\n"
        "                                  launch the first signature whose hints the arguments meet\n"
        "                                  (*T:16 an address that is a multiple of 16, iN:16 a multiple\n"
        "                                  of 16, iN:1 equal to 1), CUDA_ERROR_INVALID_VALUE if none;\n"
        "                                  with -g it computes the grid, else takes it\n"
        "  int P_pick(ARGS)                (inline, in P.h) the signature P would launch, or -1\n"
        "\n",
        f);
  fputs("options:\n"
        "  -k, --kernel NAME     the kernel to compile (default: the file's only kernel)\n"
        "  -I, --include-dir DIR also find imported modules in DIR\n"
        "  -s, --signature SIG   a signature, as for tilec compile: \"*fp32:16, *fp32:16, i32, 1024\";\n"
        "                        give the most specialized first: the dispatcher tries them in order.\n"
        "                        All must agree on the runtime parameters' types\n"
        "  -g, --grid GRID       the grid as an expression of the integer parameters and each\n"
        "                        signature's constexprs, as for tilec run: \"cdiv(n_elements, BLOCK_SIZE)\";\n"
        "                        computed at each launch, where an overflow, a division by zero or a\n"
        "                        dimension out of range returns CUDA_ERROR_INVALID_VALUE\n"
        "  -w, --num-warps N     warps per program (default: autotune config, else 4)\n"
        "  --num-stages N        software pipelining stages (default: config, else 3)\n"
        "  --config N            the @triton.autotune config whose meta-parameters, warps and stages\n"
        "                        apply, numbered from 0 (default: 0, the first)\n"
        "  --arch ARCHS          the targets, comma-separated: sm_80 (default), sm_86, sm_89, sm_90,\n"
        "                        sm_90a\n"
        "  --ptx-only            embed PTX alone, no cubins: smaller, and compiled by the driver at\n"
        "                        load\n"
        "  --xla-ffi             also write an XLA FFI handler, P_xla_ffi_handler(), for XLA's CUDA\n"
        "                        platform (jax.ffi, or XLA from C++): the kernel's pointer parameters\n"
        "                        take the call's operands then its results, each scalar parameter the\n"
        "                        attribute of its name, the grid -g's or the attribute grid; PREFIX.c\n"
        "                        then includes xla/ffi/api/c_api.h (jax.ffi.include_dir())\n"
        "  -o, --output PREFIX   write PREFIX.h and PREFIX.c; PREFIX's file name, a C identifier\n"
        "                        (not a keyword, main, or a name cuda.h or libc has), names the functions\n"
        "  -h, --help            show this help\n"
        "\n"
        "Exit codes: 0 success, 1 a compile error or an output that cannot be written, 2 a usage\n"
        "error.\n"
        "\n"
        "example: vector add, one specialization for aligned buffers and a size divisible by 16,\n"
        "one for anything else, for A100 and H100\n"
        "  tilec aot examples/vector_add.py -k add_kernel \\\n"
        "    -s \"*fp32:16, *fp32:16, *fp32:16, i32:16, 1024\" -s \"*fp32, *fp32, *fp32, i32, 1024\" \\\n"
        "    -g \"cdiv(n_elements, BLOCK_SIZE)\" --arch sm_80,sm_90a -o vadd\n"
        "  gcc -std=c11 -c vadd.c && gcc main.c vadd.o   (main.c calls vadd_load(NULL), vadd(...))\n",
        f);
}

#define AOT_USAGE "tilec aot FILE.py [-k NAME] -s SIGNATURE [-s SIGNATURE]... [-g GRID] [options] -o PREFIX"

/* "sm_80,sm_90a" into o->archs; 0 or the exit code of a usage error. */
static int parse_archs(Aot *o) {
  if (strlen(o->arch_list) >= sizeof o->arch_buf) return cli_usage_error("aot", AOT_USAGE, "--arch: too long a list");
  strcpy(o->arch_buf, o->arch_list);
  for (char *p = o->arch_buf;;) {
    char *comma = strchr(p, ',');
    if (comma) *comma = 0;
    bool ok = false;
    const char *const *known = tilec_targets();
    for (int i = 0; known[i]; i++) ok |= !strcmp(known[i], p);
    if (!ok) {
      char list[128] = "";
      for (int i = 0; known[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s %s", i == 0 ? "" : known[i + 1] ? "," : " and", known[i]);
      return cli_usage_error("aot", AOT_USAGE, "--arch: unknown target '%s'; the targets are%s", p, list);
    }
    for (int i = 0; i < o->narchs; i++)
      if (!strcmp(o->archs[i], p)) return cli_usage_error("aot", AOT_USAGE, "--arch: '%s' is listed twice", p);
    o->archs[o->narchs++] = p;
    if (!comma) return 0;
    p = comma + 1;
  }
}

/* The names the generated files' headers declare besides cuda.h's (which
 * start with CU, or cu and a capital) and <stdint.h>'s (which end in _t,
 * or are INT32_MAX-like macros): a prefix that is one of them redeclares it. */
static const struct {
  const char *header, *names;
} declared[] = {
    {"<stddef.h>", " NULL offsetof "},
    {"<stdio.h>", " FILE EOF BUFSIZ FOPEN_MAX FILENAME_MAX L_tmpnam SEEK_CUR SEEK_END SEEK_SET TMP_MAX stderr stdin "
                  "stdout remove rename tmpfile tmpnam fclose fflush fopen freopen fdopen fileno setbuf setvbuf fprintf "
                  "fscanf printf scanf snprintf sprintf sscanf dprintf vfprintf vfscanf vprintf vscanf vsnprintf "
                  "vsprintf vsscanf vdprintf fgetc fgets fputc fputs getc getchar gets getline getdelim putc putchar "
                  "puts ungetc fread fwrite fgetpos fseek fseeko fsetpos ftell ftello rewind clearerr feof ferror "
                  "perror popen pclose "},
    {"<string.h>", " memcpy memmove memchr memcmp memset memccpy strcpy strncpy stpcpy strcat strncat strcmp "
                   "strncmp strcoll strxfrm strchr strrchr strcspn strspn strpbrk strstr strtok strtok_r strerror "
                   "strlen strnlen strdup strndup "},
};

/* Why name cannot prefix the generated C (into why); false when it can:
 * the C functions, the header's guard and the #include of the header
 * are all spelled with it, so it must be an identifier no header of the
 * generated code or the program around it has. */
static bool ident_refused(const char *name, char *why, size_t n) {
  size_t len = strlen(name), bad = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
  unsigned char c = (unsigned char)name[bad];
  if (bad < len && c == ' ') snprintf(why, n, "a C identifier cannot hold a space");
  else if (bad < len && c > ' ' && c < 0x7f) snprintf(why, n, "a C identifier cannot hold '%c'", c);
  else if (bad < len) snprintf(why, n, "a C identifier cannot hold the byte 0x%02x", c);
  else if (isdigit((unsigned char)name[0])) snprintf(why, n, "a C identifier cannot start with a digit");
  else if (aot_c_keyword(name)) snprintf(why, n, "'%s' is a C keyword", name);
  else if (!strcmp(name, "main")) snprintf(why, n, "'main' is the program's own function");
  else if (name[0] == '_' && (name[1] == '_' || isupper((unsigned char)name[1])))
    snprintf(why, n, "names starting with '__', or '_' and a capital, are reserved to the C implementation");
  else if (!strncmp(name, "CU", 2) || (!strncmp(name, "cu", 2) && isupper((unsigned char)name[2])))
    snprintf(why, n, "names starting with 'CU', or 'cu' and a capital, are cuda.h's");
  else if (len > 2 && !strcmp(name + len - 2, "_t")) snprintf(why, n, "names ending in '_t' are the C library's types");
  else if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == len &&
           (strstr(name, "_MAX") == name + len - 4 || strstr(name, "_MIN") == name + len - 4 || !strcmp(name + len - 2, "_C")))
    snprintf(why, n, "names like '%s' are <stdint.h>'s macros", name);
  else {
    char word[140];
    snprintf(word, sizeof word, " %s ", name);
    for (size_t i = 0; i < sizeof declared / sizeof *declared; i++)
      if (strstr(declared[i].names, word)) {
        snprintf(why, n, "'%s' is declared by %s, which the generated code includes", name, declared[i].header);
        return true;
      }
    return false;
  }
  return true;
}

/* The C prefix: PREFIX's file name, which must be a C identifier the
 * generated code can use (ident_refused). */
static int make_ident(Aot *o) {
  const char *base = strrchr(o->out_path, '/');
  base = base ? base + 1 : o->out_path;
  if (!*base) return cli_usage_error("aot", AOT_USAGE, "-o '%s' has no file name to name the functions after", o->out_path);
  if (strlen(base) + 1 >= sizeof o->ident) return cli_usage_error("aot", AOT_USAGE, "-o '%s': the file name is too long", o->out_path);
  char why[160];
  if (ident_refused(base, why, sizeof why))
    return cli_usage_error("aot", AOT_USAGE, "-o '%s': the file name '%s' names the C functions, and %s", o->out_path,
                           base, why);
  strcpy(o->ident, base);
  return 0;
}

/* 0, -1 for --help, or the exit code of a usage error. */
static int parse_aot_options(int argc, char **argv, Aot *o) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v;
    bool missing = false;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage_aot(stdout);
      return -1;
    }
    if (!strcmp(a, "--ptx-only")) {
      o->ptx_only = true;
      continue;
    }
    if (!strcmp(a, "--xla-ffi")) {
      o->xla = true;
      continue;
    }
    if (a[0] != '-' || !a[1]) {
      if (o->file) return cli_usage_error("aot", AOT_USAGE, "unexpected argument '%s' (one input file at a time)", a);
      o->file = a;
      continue;
    }
    if ((v = cli_opt_value(argc, argv, &i, "-k", "--kernel", &missing))) o->copt.kernel = v;
    else if ((v = cli_opt_value(argc, argv, &i, "-s", "--signature", &missing))) o->sig_texts[o->nsigs++] = v;
    else if ((v = cli_opt_value(argc, argv, &i, "-g", "--grid", &missing))) o->grid = v;
    else if ((v = cli_opt_value(argc, argv, &i, "-o", "--output", &missing))) o->out_path = v;
    else if ((v = cli_opt_value(argc, argv, &i, "-I", "--include-dir", &missing))) o->includes[o->copt.num_include_dirs++] = v;
    else if ((v = cli_opt_value(argc, argv, &i, NULL, "--arch", &missing))) o->arch_list = v;
    else if ((v = cli_opt_value(argc, argv, &i, "-w", "--num-warps", &missing))) {
      int w;
      if (!cli_small_int(v, 1, 32, &w) || (w & (w - 1)))
        return cli_usage_error("aot", AOT_USAGE, "--num-warps expects a power of 2 from 1 to 32, got '%s'", v);
      o->copt.num_warps = w;
    } else if ((v = cli_opt_value(argc, argv, &i, NULL, "--num-stages", &missing))) {
      if (!cli_num_stages(v, &o->copt.num_stages))
        return cli_usage_error("aot", AOT_USAGE, "--num-stages expects a number of stages (0 or 1: no pipelining), got '%s'", v);
    } else if ((v = cli_opt_value(argc, argv, &i, NULL, "--config", &missing))) {
      if (!cli_small_int(v, 0, 100000, &o->copt.config))
        return cli_usage_error("aot", AOT_USAGE, "--config expects a config number from 0, got '%s'", v);
    } else if (missing) {
      return cli_usage_error("aot", AOT_USAGE, "option '%s' needs a value", a);
    } else {
      return cli_usage_error("aot", AOT_USAGE, "unknown option '%s' for 'aot'", a);
    }
    if (missing) return cli_usage_error("aot", AOT_USAGE, "option '%s' needs a value", a);
  }
  if (!o->file) return cli_usage_error("aot", AOT_USAGE, "aot needs an input file");
  if (!o->nsigs) return cli_usage_error("aot", AOT_USAGE, "aot needs a signature (-s \"*fp32:16, i32, 1024\")");
  if (!o->out_path) return cli_usage_error("aot", AOT_USAGE, "aot needs an output prefix (-o PREFIX writes PREFIX.h and PREFIX.c)");
  if (!o->arch_list) o->arch_list = "sm_80";
  int rc = parse_archs(o);
  return rc ? rc : make_ident(o);
}

/* ==== compiling ==================================================================== */

static char *copy_bytes(const char *s, size_t n) {
  char *c = malloc(n + 1);
  if (c) {
    memcpy(c, s, n);
    c[n] = 0;
  }
  return c;
}

/* The first line of a diagnostic, without "tilec: error: ", for the note. */
static void first_line(const char *diag, char *buf, size_t len) {
  const char *s = diag && *diag ? diag : "no reason given";
  const char *tag = strstr(s, "error: ");
  if (tag && (size_t)(tag - s) < 80 && !memchr(s, '\n', (size_t)(tag - s))) s = tag + 7;
  size_t n = strcspn(s, "\n");
  snprintf(buf, len, "%.*s", (int)n, s);
}

/* Compiles signature s for arch a: PTX (its diagnostics printed for the
 * first arch, where they are new), then a cubin if the toolkit allows. */
static int compile_image(Aot *o, const char *src, size_t len, int s, int a, char *why_no_cubin, size_t whylen) {
  AotImage *im = &o->sigs[s].images[a];
  tilec_compile_options copt = o->copt;
  copt.signature = o->sig_texts[s];
  copt.arch = o->archs[a];
  copt.emit = TILEC_EMIT_PTX;
  tilec_result *r = NULL;
  tilec_status st = tilec_compile(o->file, src, len, &copt, &r);
  if (st != TILEC_OK || a == 0) fputs(tilec_result_diagnostics(r), stderr);
  if (st != TILEC_OK) {
    tilec_result_destroy(r);
    /* the diagnostics show the signature's text only where an entry is wrong */
    if (o->nsigs > 1 || o->narchs > 1)
      fprintf(stderr, "%s: note: compiling signature %d (\"%s\") for %s\n", prog, s, o->sig_texts[s], o->archs[a]);
    return st == TILEC_ERROR_USAGE ? 2 : st == TILEC_ERROR_NO_MEMORY ? cli_error("out of memory") : 1;
  }
  char err[512];
  if (!meta_parse(tilec_result_metadata(r), &im->meta, err, sizeof err, NULL)) {
    tilec_result_destroy(r);
    return cli_error("the kernel's metadata cannot be read: %s", err);
  }
  const char *text = tilec_result_output(r, &im->ptx_len);
  im->ptx = copy_bytes(text, im->ptx_len);
  tilec_result_destroy(r);
  if (!im->ptx) return cli_error("out of memory");

  if (o->ptx_only) return 0;
  copt.emit = TILEC_EMIT_CUBIN;
  r = NULL;
  st = tilec_compile(o->file, src, len, &copt, &r);
  if (st == TILEC_OK) {
    text = tilec_result_output(r, &im->cubin_len);
    im->cubin = copy_bytes(text, im->cubin_len);
    if (!im->cubin) {
      tilec_result_destroy(r);
      return cli_error("out of memory");
    }
  } else if (!why_no_cubin[0]) {
    first_line(tilec_result_diagnostics(r), why_no_cubin, whylen);
  }
  tilec_result_destroy(r);
  return 0;
}

/* The runtime parameters must be the same in every signature and for
 * every arch: the dispatcher has one C prototype. */
static int check_params(const Aot *o) {
  const KernelMeta *m0 = &o->sigs[0].images[0].meta;
  for (int s = 0; s < o->nsigs; s++)
    for (int a = 0; a < o->narchs; a++) {
      const KernelMeta *m = &o->sigs[s].images[a].meta;
      if (m->nparams != m0->nparams)
        return cli_error("signature %d (\"%s\") leaves %s %d runtime parameter%s, but signature 0 (\"%s\") %d; "
                         "one dispatcher needs the same runtime parameters in every signature",
                         s, o->sig_texts[s], m->name, m->nparams, m->nparams == 1 ? "" : "s", o->sig_texts[0],
                         m0->nparams);
      for (int i = 0; i < m->nparams; i++)
        if (strcmp(m->params[i].type, m0->params[i].type) || strcmp(m->params[i].name, m0->params[i].name))
          return cli_error("signature %d (\"%s\") gives %s the type %s, but signature 0 (\"%s\") gives it %s; "
                           "one dispatcher needs the same runtime parameter types in every signature",
                           s, o->sig_texts[s], m->params[i].name, m->params[i].type, o->sig_texts[0],
                           m0->params[i].type);
    }
  return 0;
}

/* ==== the command ==================================================================== */

/* Prints a grid error: the message, the expression, a caret under pos. */
static int grid_error(const char *grid, int s, const char *sig, const char *msg, size_t pos) {
  fprintf(stderr, "%s: error: in the grid", prog);
  if (s > 0) fprintf(stderr, " of signature %d (\"%s\")", s, sig);
  fprintf(stderr, ": %s\n  ", msg);
  size_t col = 0;
  for (size_t i = 0; grid[i]; i++) {
    unsigned char ch = (unsigned char)grid[i];
    fputc(ch == '\t' || ch < 0x20 ? ' ' : ch, stderr);
    if (i < pos && (ch & 0xc0) != 0x80) col++;
  }
  fprintf(stderr, "\n  %*s^\n", (int)col, "");
  return 1;
}

/* The grid of each signature as C, over the integer parameters and its constexprs. */
static int translate_grids(Aot *o) {
  const KernelMeta *m0 = &o->sigs[0].images[0].meta;
  for (int s = 0; s < o->nsigs; s++) {
    const KernelMeta *m = &o->sigs[s].images[0].meta;
    AotName *names = calloc((size_t)m0->nparams + (size_t)m->nconsts + 1, sizeof *names);
    if (!names) return cli_error("out of memory");
    int n = 0;
    for (int i = 0; i < m0->nparams; i++, n++) {
      const char *t = m0->params[i].type;
      bool u64;
      names[n] = (AotName){.name = m0->params[i].name, .cname = o->cnames[i]};
      if (t[0] == '*') names[n].unusable = "a pointer parameter";
      else if (!aot_is_integer(t, &u64)) names[n].unusable = "a floating-point parameter";
      else if (u64) names[n].unusable = "a u64, beyond the range of grid arithmetic";
    }
    for (int i = 0; i < m->nconsts; i++, n++) names[n] = (AotName){.name = m->consts[i].name, .value = m->consts[i].value};
    char err[512];
    size_t pos = 0;
    bool ok = aot_grid_to_c(o->grid, names, n, o->ident, o->sigs[s].dims, AOT_DIM_CHARS, &o->uses, err, sizeof err, &pos);
    free(names);
    if (!ok) return grid_error(o->grid, s, o->sig_texts[s], err, pos);
  }
  return 0;
}


static int generate(Aot *o) {
  const KernelMeta *m = &o->sigs[0].images[0].meta;
  for (int i = 0; i < m->nparams; i++)
    if (!aot_c_type(m->params[i].type))
      return cli_error("%s: tilec aot cannot pass a parameter of type %s yet", m->params[i].name, m->params[i].type);
  const char *bad = o->xla ? aot_xla_unsupported(o) : NULL;
  if (bad) return cli_error("%s: --xla-ffi: XLA has no attribute or buffer of its type", bad);
  int rc = 0;
  AotOut h = {0}, c = {0};
  char guard[160];
  snprintf(guard, sizeof guard, "%s_H", o->ident);
  for (char *g = guard; *g; g++) *g = (char)toupper((unsigned char)*g);
  aot_emit_header(&h, o, guard);
  aot_emit_source(&c, o);
  size_t n = strlen(o->out_path);
  char *hpath = malloc(n + 3), *cpath = malloc(n + 3);
  if (h.oom || c.oom || !hpath || !cpath) rc = cli_error("out of memory");
  /* both or neither: the .c becomes visible only once the .h is written,
   * and the .h only once the .c is in place */
  CliFile hf, cf;
  if (!rc) {
    snprintf(hpath, n + 3, "%s.h", o->out_path);
    snprintf(cpath, n + 3, "%s.c", o->out_path);
    rc = cli_file_open(&hf, hpath) ? 0 : 1;
  }
  if (!rc && !cli_file_open(&cf, cpath)) {
    cli_file_close(&hf, false);
    rc = 1;
  }
  if (!rc) {
    fwrite(h.s, 1, h.n, hf.f);
    fwrite(c.s, 1, c.n, cf.f);
    bool h_written = fflush(hf.f) == 0 && !ferror(hf.f);
    rc = cli_file_close(&cf, h_written);
    rc = cli_file_close(&hf, rc == 0) || rc || !h_written ? 1 : 0;
  }
  free(hpath);
  free(cpath);
  free(h.s);
  free(c.s);
  return rc;
}

static int run_aot(Aot *o, const char *src, size_t len) {
  tilec_context *ctx = NULL;
  if (tilec_context_create(&ctx) != TILEC_OK) return cli_error("cannot set up the compiler: out of memory");
  o->copt.context = ctx;
  char why[400] = "";
  int rc = 0, no_cubin = 0;
  for (int s = 0; s < o->nsigs && !rc; s++)
    for (int a = 0; a < o->narchs && !rc; a++) {
      rc = compile_image(o, src, len, s, a, why, sizeof why);
      no_cubin += !rc && !o->sigs[s].images[a].cubin;
    }
  tilec_context_destroy(ctx);
  if (!rc) rc = check_params(o);
  const KernelMeta *m = &o->sigs[0].images[0].meta;
  if (!rc && !(o->cnames = calloc((size_t)m->nparams + 1, sizeof *o->cnames))) rc = cli_error("out of memory");
  for (int i = 0; !rc && i < m->nparams; i++)
    if (!(o->cnames[i] = aot_c_name(m->params[i].name))) rc = cli_error("out of memory");
  for (int s = 0; !rc && o->grid && s < o->nsigs; s++)
    for (int d = 0; d < 3; d++)
      if (!(o->sigs[s].dims[d] = malloc(AOT_DIM_CHARS))) rc = cli_error("out of memory");
  if (!rc && o->grid) rc = translate_grids(o);
  if (!rc) rc = generate(o);
  if (!rc && no_cubin && !o->ptx_only)
    fprintf(stderr, "%s: note: no cubin (%s): %s.c embeds PTX only for %d of %d images, which the driver compiles at load\n",
            prog, why, o->out_path, no_cubin, o->nsigs * o->narchs);
  return rc;
}

int cmd_aot(int argc, char **argv) {
  Aot o = {0};
  o.sig_texts = calloc((size_t)argc + 1, sizeof *o.sig_texts);
  o.sigs = calloc((size_t)argc + 1, sizeof *o.sigs);
  o.includes = calloc((size_t)argc + 1, sizeof *o.includes);
  o.copt.include_dirs = o.includes;
  int rc = 1;
  if (!o.sig_texts || !o.sigs || !o.includes) goto done;
  rc = parse_aot_options(argc, argv, &o);
  if (rc) {
    rc = rc < 0 ? 0 : rc;
    goto done;
  }
  size_t len;
  char *src = cli_read_source(o.file, &len);
  if (!src) {
    rc = 1;
    goto done;
  }
  rc = run_aot(&o, src, len);
  free(src);
done:
  for (int s = 0; o.sigs && s < o.nsigs; s++) {
    for (int a = 0; a < o.narchs; a++) {
      free(o.sigs[s].images[a].ptx);
      free(o.sigs[s].images[a].cubin);
      meta_free(&o.sigs[s].images[a].meta);
    }
    for (int d = 0; d < 3; d++) free(o.sigs[s].dims[d]);
  }
  if (o.cnames) {
    for (int i = 0; o.cnames[i]; i++) free(o.cnames[i]);
    free(o.cnames);
  }
  free(o.sig_texts);
  free(o.sigs);
  free(o.includes);
  return rc;
}
