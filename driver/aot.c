/*
 * aot.c — `tilec aot`: one kernel, several signatures and targets, into a
 * C source and header that launch it with libcuda alone (what Triton's
 * compile.py and link.py do, without Python).
 *
 *   FILE.py --tilec_compile(PTX, then cubin) per signature and arch-->
 *     images + metadata --meta_parse--> parameters, constexprs, warps
 *     --aot_grid_to_c--> the grid as C --emit_header, emit_source--> PREFIX.h, PREFIX.c
 *
 * The generated code is written for the reader who debugs a launch at two in
 * the morning: plain C11, one table of images, one function per signature,
 * a dispatcher that reads as the list of hint checks it is. It returns every
 * error as a CUresult, never exits or prints, and keeps no state but the
 * module and function handles and the load log.
 *
 * A cubin needs the toolkit's nvJitLink at generation time; without it the
 * output embeds PTX only, which the driver compiles at load, and a one-line
 * note says so.
 */
#include "cli.h"
#include "aot.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "support/dtype.h"
#include "tilec/tilec.h"

#define AOT_MAX_ARCHS 8
#define AOT_DIM_CHARS 4096

static const char *prog = "tilec";

/* ==== output text ================================================================== */

typedef struct Out {
  char *s;
  size_t n, cap;
  bool oom;
} Out;

static void out(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(Out *o, const char *fmt, ...) {
  if (o->oom) return;
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (w < 0) {
    o->oom = true;
    return;
  }
  if (o->n + (size_t)w + 1 > o->cap) {
    size_t cap = o->cap ? o->cap : 4096;
    while (cap < o->n + (size_t)w + 1) cap *= 2;
    char *s = realloc(o->s, cap);
    if (!s) {
      o->oom = true;
      return;
    }
    o->s = s;
    o->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(o->s + o->n, (size_t)w + 1, fmt, ap);
  va_end(ap);
  o->n += (size_t)w;
}

/* ==== what is generated from =========================================================== */

/* One signature compiled for one arch. */
typedef struct AotImage {
  char *ptx;
  size_t ptx_len;
  char *cubin; /* NULL when no cubin could be built */
  size_t cubin_len;
  KernelMeta meta;
} AotImage;

typedef struct AotSig {
  const char *text;
  AotImage images[AOT_MAX_ARCHS];
  char *dims[3]; /* the grid as C, when -g is given */
} AotSig;

typedef struct Aot {
  const char *file, *grid, *out_path, *arch_list;
  const char **sig_texts;
  int nsigs;
  const char **includes;
  bool ptx_only;
  tilec_compile_options copt;
  const char *archs[AOT_MAX_ARCHS];
  char arch_buf[256];
  int narchs;
  char ident[128]; /* the C prefix */
  AotSig *sigs;
  char **cnames; /* the parameters' names in C */
  unsigned uses; /* the grid helpers the translated grids call */
} Aot;


/* ==== the command line ============================================================== */

static void usage_aot(FILE *f) {
  fputs("usage: tilec aot FILE.py [-k NAME] -s SIGNATURE [-s SIGNATURE]... [-g GRID] [-w N] [--num-stages N]\n"
        "                 [--config N] [--arch sm_80,sm_90a] [--ptx-only] -o PREFIX\n"
        "\n"
        "Compiles the @triton.jit kernel NAME of FILE.py for each SIGNATURE and each target, and\n"
        "writes PREFIX.h and PREFIX.c: C11 that embeds the cubins and the PTX and launches them\n"
        "through the CUDA driver API, needing only cuda.h to compile and libcuda to link. The\n"
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
        "\n"
        "options:\n"
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
        "  -o, --output PREFIX   write PREFIX.h and PREFIX.c\n"
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
        "  gcc -std=c11 -c vadd.c && gcc main.c vadd.o -lcuda   (main.c calls vadd_load(NULL), vadd(...))\n",
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

/* The C prefix: PREFIX's file name, with each byte that cannot be in a C
 * identifier as '_', and '_' in front of a leading digit. */
static int make_ident(Aot *o) {
  const char *base = strrchr(o->out_path, '/');
  base = base ? base + 1 : o->out_path;
  size_t n = 0;
  if (isdigit((unsigned char)*base)) o->ident[n++] = '_';
  for (const char *c = base; *c && n + 1 < sizeof o->ident; c++)
    o->ident[n++] = isalnum((unsigned char)*c) || *c == '_' ? *c : '_';
  o->ident[n] = 0;
  if (!n) return cli_usage_error("aot", AOT_USAGE, "-o '%s' has no file name to name the functions after", o->out_path);
  if (strlen(base) + 1 >= sizeof o->ident) return cli_usage_error("aot", AOT_USAGE, "-o '%s': the file name is too long", o->out_path);
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
      if (!cli_small_int(v, 1, 1 << 30, &o->copt.num_stages))
        return cli_usage_error("aot", AOT_USAGE, "--num-stages expects a positive number (of stages), got '%s'", v);
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

/* ==== C names and types ================================================================ */

/* A parameter's C type (its metadata type, "*fp32", as support/dtype.h
 * gives it); NULL when it has none. */
static const char *c_type(const char *t) {
  DType d;
  bool ptr;
  if (!dtype_parse_param(t, &d, &ptr)) return NULL;
  return ptr ? "CUdeviceptr" : dtype_c_type(d);
}

/* Whether a parameter is an integer scalar; *u64 whether it is a u64. */
static bool is_integer_type(const char *t, bool *u64) {
  DType d;
  bool ptr;
  bool yes = dtype_parse_param(t, &d, &ptr) && !ptr && dtype_is_int(d);
  if (u64) *u64 = yes && d == DT_U64;
  return yes;
}

/* A parameter's name in C: Python's identifiers are C's but for C's
 * keywords and the generated code's own names, which get a '_'. */
static char *c_name(const char *name) {
  static const char *const taken[] = {
      "auto", "bool", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
      "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
      "stream", "gx", "gy", "gz", "bad", "args", "true", "false"};
  size_t n = strlen(name);
  char *c = malloc(n + 2);
  if (!c) return NULL;
  for (size_t i = 0; i <= n; i++) c[i] = isalnum((unsigned char)name[i]) || name[i] == '_' || !name[i] ? name[i] : '_';
  for (size_t i = 0; i < sizeof taken / sizeof *taken; i++)
    if (!strcmp(c, taken[i])) {
      c[n] = '_';
      c[n + 1] = 0;
      break;
    }
  return c;
}

/* ==== the generated code ================================================================ */

static void emit_params(Out *h, const Aot *o, bool lead_comma) {
  const KernelMeta *m = &o->sigs[0].images[0].meta;
  for (int i = 0; i < m->nparams; i++)
    out(h, "%s%s %s", i || lead_comma ? ", " : "", c_type(m->params[i].type), o->cnames[i]);
  if (!m->nparams && !lead_comma) out(h, "void");
}

static void emit_args(Out *h, const Aot *o, bool lead_comma) {
  const KernelMeta *m = &o->sigs[0].images[0].meta;
  for (int i = 0; i < m->nparams; i++) out(h, "%s%s", i || lead_comma ? ", " : "", o->cnames[i]);
}

/* The hint checks of signature s, "" when it fits any arguments. */
static void emit_hint_checks(Out *h, const Aot *o, int s) {
  const KernelMeta *m = &o->sigs[s].images[0].meta;
  int n = 0;
  for (int i = 0; i < m->nparams; i++) {
    const KernelParam *p = &m->params[i];
    bool ptr = p->type[0] == '*';
    if (p->divisibility <= 0 || (!ptr && !is_integer_type(p->type, NULL)) || (ptr && p->divisibility == 1)) continue;
    if (p->divisibility == 1) out(h, "%s%s == 1", n++ ? " && " : "", o->cnames[i]);
    else out(h, "%s%s %% %d == 0", n++ ? " && " : "", o->cnames[i], p->divisibility);
  }
}

static void emit_header(Out *h, const Aot *o, const char *guard) {
  const char *P = o->ident;
  const KernelMeta *m = &o->sigs[0].images[0].meta;
  out(h, "/*\n * %s.h — kernel %s of %s, compiled ahead of time by tilec %s. Generated: do not edit.\n *\n", P,
      m->name, o->file, tilec_version());
  out(h, " * Signatures, in the order %s() tries them:\n", P);
  for (int s = 0; s < o->nsigs; s++) out(h, " *   %s_%d: \"%s\"\n", P, s, o->sig_texts[s]);
  out(h, " * Targets: ");
  for (int a = 0; a < o->narchs; a++)
    out(h, "%s%s (%s)", a ? ", " : "", o->archs[a], o->sigs[0].images[a].cubin ? "cubin and PTX" : "PTX");
  if (o->grid) out(h, ".\n * Grid: %s.\n", o->grid);
  else out(h, ".\n");
  out(h,
      " *\n"
      " * %s_load(ctx) loads the kernels into ctx (NULL: the calling thread's current\n"
      " * context), picking for its device the cubin built for it, else the PTX, which the\n"
      " * driver compiles; %s_load_log() returns what the driver said. Launch with that\n"
      " * context current. Every function returns a CUresult: CUDA_ERROR_NOT_INITIALIZED\n"
      " * before %s_load(),\n"
      " * CUDA_ERROR_INVALID_VALUE from %s() when no signature fits the arguments%s.\n"
      " *\n"
      " * Threads: %s_load() and %s_unload() are not thread-safe: call them from one\n"
      " * thread, with no launch in flight. Launches are thread-safe: they only read the\n"
      " * handles %s_load() wrote.\n"
      " *\n"
      " *   if (%s_load(NULL) != CUDA_SUCCESS) fprintf(stderr, \"%%s\", %s_load_log());\n"
      " *   CUresult r = %s(stream, ...);\n"
      " *   %s_unload();\n"
      " */\n",
      P, P, P, P, o->grid ? " or the grid is out of range" : "", P, P, P, P, P, P, P);
  out(h, "#ifndef %s\n#define %s\n\n#include <cuda.h>\n#include <stdbool.h>\n#include <stdint.h>\n\n", guard, guard);
  out(h, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  out(h, "CUresult %s_load(CUcontext ctx);\nvoid %s_unload(void);\nconst char *%s_load_log(void);\n\n", P, P, P);
  for (int s = 0; s < o->nsigs; s++) {
    const KernelMeta *ms = &o->sigs[s].images[0].meta;
    out(h, "/* \"%s\": %d warps, %d threads per program */\n", o->sig_texts[s], ms->num_warps, 32 * ms->num_warps);
    out(h, "CUresult %s_%d(CUstream stream, unsigned gx, unsigned gy, unsigned gz", P, s);
    emit_params(h, o, true);
    out(h, ");\n");
  }
  out(h, "\n/* Launches the first signature that fits the arguments%s. */\nCUresult %s(CUstream stream", 
      o->grid ? ", on the grid computed from them" : "", P);
  if (!o->grid) out(h, ", unsigned gx, unsigned gy, unsigned gz");
  emit_params(h, o, true);
  out(h, ");\n\n");

  out(h, "/* The signature %s() launches for these arguments, or -1 when none fits. */\nstatic inline int %s_pick(", P,
      P);
  emit_params(h, o, false);
  out(h, ") {\n");
  for (int i = 0; i < m->nparams; i++) out(h, "  (void)%s;\n", o->cnames[i]);
  bool always = false;
  for (int s = 0; s < o->nsigs && !always; s++) {
    Out c = {0};
    emit_hint_checks(&c, o, s);
    if (c.oom) h->oom = true;
    if (c.n) out(h, "  if (%s) return %d;\n", c.s, s);
    else {
      out(h, "  return %d;\n", s);
      always = true;
      if (s + 1 < o->nsigs)
        fprintf(stderr, "%s: warning: signature %d (\"%s\") fits any arguments: %s() never launches the ones after it\n",
                prog, s, o->sig_texts[s], P);
    }
    free(c.s);
  }
  if (!always) out(h, "  return -1;\n");
  out(h, "}\n\n#ifdef __cplusplus\n}\n#endif\n#endif\n");
}

static void emit_bytes(Out *c, const char *P, int s, const char *arch, const char *kind, const char *bytes,
                       size_t n, bool nul) {
  out(c, "static _Alignas(16) const unsigned char %s_s%d_%s_%s[%zu] = {", P, s, arch, kind, n + nul);
  for (size_t i = 0; i < n + nul; i++)
    out(c, "%s0x%02x,", i % 16 ? " " : "\n  ", i < n ? (unsigned char)bytes[i] : 0);
  out(c, "\n};\n");
}

/* Writes a template of generated code: @P@ is the prefix, @ARCHS@ the
 * targets; everything else is literal, '%' included. */
static void tpl(Out *c, const Aot *o, const char *t) {
  for (const char *p = t; *p;) {
    const char *at = strchr(p, '@');
    if (!at) {
      out(c, "%s", p);
      return;
    }
    out(c, "%.*s", (int)(at - p), p);
    if (!strncmp(at, "@P@", 3)) {
      out(c, "%s", o->ident);
      p = at + 3;
    } else if (!strncmp(at, "@ARCHS@", 7)) {
      out(c, "%s", o->arch_list);
      p = at + 7;
    } else {
      out(c, "@");
      p = at + 1;
    }
  }
}

/* The grid helpers, each only when a grid calls it (an unused static
 * function is a warning). Python's integers, in int64: what would
 * overflow, divide by zero or not divide exactly sets *bad. */
static void emit_grid_helpers(Out *c, const Aot *o) {
  unsigned uses = o->uses;
  if (uses & AOT_USES_DIV) uses |= AOT_USES_MOD | AOT_USES_FLOORDIV;
  if (uses & AOT_USES_CDIV) uses |= AOT_USES_ADD | AOT_USES_SUB | AOT_USES_FLOORDIV;
  if (uses & AOT_USES_ADD)
    tpl(c, o, "static int64_t @P@_add(int64_t a, int64_t b, int *bad) {\n"
              "  if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return *bad = 1, 0;\n"
              "  return a + b;\n}\n\n");
  if (uses & AOT_USES_SUB)
    tpl(c, o, "static int64_t @P@_sub(int64_t a, int64_t b, int *bad) {\n"
              "  if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return *bad = 1, 0;\n"
              "  return a - b;\n}\n\n");
  if (uses & AOT_USES_MUL)
    tpl(c, o, "static int64_t @P@_mul(int64_t a, int64_t b, int *bad) {\n"
              "  if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)\n"
              "            : (b > 0 ? a < INT64_MIN / b : a != 0 && b < INT64_MAX / a))\n"
              "    return *bad = 1, 0;\n"
              "  return a * b;\n}\n\n");
  if (uses & AOT_USES_FLOORDIV)
    tpl(c, o, "/* a // b: the quotient rounded toward -infinity */\n"
              "static int64_t @P@_floordiv(int64_t a, int64_t b, int *bad) {\n"
              "  if (b == 0 || (a == INT64_MIN && b == -1)) return *bad = 1, 0;\n"
              "  return a / b - (a % b != 0 && (a < 0) != (b < 0));\n}\n\n");
  if (uses & AOT_USES_MOD)
    tpl(c, o, "/* a % b: the remainder takes the divisor's sign */\n"
              "static int64_t @P@_mod(int64_t a, int64_t b, int *bad) {\n"
              "  if (b == 0) return *bad = 1, 0;\n"
              "  if (b == -1) return 0;\n"
              "  int64_t r = a % b;\n"
              "  return r != 0 && (r < 0) != (b < 0) ? r + b : r;\n}\n\n");
  if (uses & AOT_USES_DIV)
    tpl(c, o, "/* a / b, which a grid allows only when it divides exactly */\n"
              "static int64_t @P@_div(int64_t a, int64_t b, int *bad) {\n"
              "  if (b == 0 || @P@_mod(a, b, bad) != 0) return *bad = 1, 0;\n"
              "  return @P@_floordiv(a, b, bad);\n}\n\n");
  if (uses & AOT_USES_CDIV)
    tpl(c, o, "/* Triton's cdiv: (a + b - 1) // b */\n"
              "static int64_t @P@_cdiv(int64_t a, int64_t b, int *bad) {\n"
              "  return @P@_floordiv(@P@_sub(@P@_add(a, b, bad), 1, bad), b, bad);\n}\n\n");
  if (uses & AOT_USES_NEG)
    tpl(c, o, "static int64_t @P@_neg(int64_t a, int *bad) {\n"
              "  if (a == INT64_MIN) return *bad = 1, 0;\n"
              "  return -a;\n}\n\n");
  if (uses & AOT_USES_MIN) tpl(c, o, "static int64_t @P@_min(int64_t a, int64_t b) { return a < b ? a : b; }\n\n");
  if (uses & AOT_USES_MAX) tpl(c, o, "static int64_t @P@_max(int64_t a, int64_t b) { return a > b ? a : b; }\n\n");
}

static void emit_load(Out *c, const Aot *o) {
  tpl(c, o,
      "static void @P@_log_add(const char *text) {\n"
      "  size_t n = strlen(@P@_log), m = strlen(text);\n"
      "  if (m > sizeof @P@_log - 1 - n) m = sizeof @P@_log - 1 - n;\n"
      "  memcpy(@P@_log + n, text, m);\n"
      "  @P@_log[n + m] = 0;\n"
      "}\n\n"
      "/* Logs that `what` failed with r, as the driver names and describes it. The\n"
      " * toolkit's link-only stub answers CUDA_ERROR_STUB_LIBRARY (34) to every call,\n"
      " * cuGetErrorName's included, so that one is known here. */\n"
      "static void @P@_log_error(const char *what, CUresult r) {\n"
      "  const char *name = NULL, *text = NULL;\n"
      "  char line[512];\n"
      "  if (cuGetErrorName(r, &name) != CUDA_SUCCESS) name = NULL;\n"
      "  if (cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;\n"
      "  if (!name && (int)r == 34)\n"
      "    name = \"CUDA_ERROR_STUB_LIBRARY\", text = \"libcuda.so.1 is the CUDA toolkit's link-only stub, not a driver\";\n"
      "  snprintf(line, sizeof line, \"@P@_load: %s: %s (CUresult %d)%s%s\\n\", what, name ? name : \"unknown error\", (int)r,\n"
      "           text ? \": \" : \"\", text ? text : \"\");\n"
      "  @P@_log_add(line);\n"
      "}\n\n"
      "/* The image of signature s for a device of compute capability major.minor:\n"
      " * a cubin built for it (the same major and a minor no higher, or exactly it\n"
      " * for an arch-specific target such as sm_90a), else PTX the driver can compile\n"
      " * for it; the newest target wins. -1 when there is none. */\n"
      "static int @P@_choose(int s, int major, int minor, int *cubin) {\n"
      "  for (int pass = 0; pass < 2; pass++) {\n"
      "    int best = -1;\n"
      "    for (int a = 0; a < @P@_NARCH; a++) {\n"
      "      const struct @P@_image *im = &@P@_images[s][a];\n"
      "      int fits = pass == 0 ? im->cubin && major == im->major && (im->exact ? minor == im->minor : minor >= im->minor)\n"
      "                 : im->exact ? major == im->major && minor == im->minor\n"
      "                             : major > im->major || (major == im->major && minor >= im->minor);\n"
      "      const struct @P@_image *b = best < 0 ? NULL : &@P@_images[s][best];\n"
      "      if (fits && (!b || im->major > b->major || (im->major == b->major && im->minor > b->minor))) best = a;\n"
      "    }\n"
      "    if (best >= 0) {\n"
      "      *cubin = pass == 0;\n"
      "      return best;\n"
      "    }\n"
      "  }\n"
      "  return -1;\n"
      "}\n\n");
  tpl(c, o,
      "/* Unloads the modules; their context is current. */\n"
      "static void @P@_release(void) {\n"
      "  for (int s = 0; s < @P@_NSIG; s++) {\n"
      "    if (@P@_modules[s]) cuModuleUnload(@P@_modules[s]);\n"
      "    @P@_modules[s] = NULL;\n"
      "    @P@_functions[s] = NULL;\n"
      "  }\n"
      "}\n\n"
      "void @P@_unload(void) {\n"
      "  if (!@P@_context) return;\n"
      "  int pushed = cuCtxPushCurrent(@P@_context) == CUDA_SUCCESS;\n"
      "  @P@_release();\n"
      "  if (pushed) cuCtxPopCurrent(NULL);\n"
      "  @P@_context = NULL;\n"
      "}\n\n"
      "const char *@P@_load_log(void) { return @P@_log; }\n\n"
      "/* Loads into the current context. */\n"
      "static CUresult @P@_load_here(void) {\n"
      "  CUdevice dev;\n"
      "  int major = 0, minor = 0, optin = 0;\n"
      "  char line[256];\n"
      "  CUresult r = cuCtxGetDevice(&dev);\n"
      "  if (r == CUDA_SUCCESS) r = cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);\n"
      "  if (r == CUDA_SUCCESS) r = cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);\n"
      "  if (r == CUDA_SUCCESS)\n"
      "    r = cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);\n"
      "  if (r != CUDA_SUCCESS) {\n"
      "    @P@_log_error(\"the current context's device cannot be read\", r);\n"
      "    return r;\n"
      "  }\n"
      "  for (int s = 0; s < @P@_NSIG; s++) {\n"
      "    int cubin = 0, a = @P@_choose(s, major, minor, &cubin);\n"
      "    if (a < 0) {\n"
      "      snprintf(line, sizeof line, \"@P@_load: nothing to load on a device of compute capability %d.%d; \"\n"
      "               \"built for @ARCHS@\\n\", major, minor);\n"
      "      @P@_log_add(line);\n"
      "      @P@_release();\n"
      "      return CUDA_ERROR_NO_BINARY_FOR_GPU;\n"
      "    }\n"
      "    const struct @P@_image *im = &@P@_images[s][a];\n");
  tpl(c, o,
      "    /* the kernels' shared memory is dynamic: each launch gives it */\n"
      "    if (im->shared_bytes > optin) {\n"
      "      snprintf(line, sizeof line, \"@P@_load: @P@_%d needs %d bytes of shared memory per block; \"\n"
      "               \"the device has %d\\n\", s, im->shared_bytes, optin);\n"
      "      @P@_log_add(line);\n"
      "      @P@_release();\n"
      "      return CUDA_ERROR_NOT_SUPPORTED;\n"
      "    }\n"
      "    snprintf(line, sizeof line, \"@P@_%d: the %s for %s, on compute capability %d.%d\\n\", s,\n"
      "             cubin ? \"cubin\" : \"PTX\", im->arch, major, minor);\n"
      "    @P@_log_add(line);\n"
      "    char info[2048] = \"\", error[2048] = \"\";\n"
      "    CUjit_option opt[4] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,\n"
      "                           CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};\n"
      "    void *val[4] = {info, (void *)(uintptr_t)sizeof info, error, (void *)(uintptr_t)sizeof error};\n"
      "    r = cuModuleLoadDataEx(&@P@_modules[s], cubin ? im->cubin : im->ptx, 4, opt, val);\n"
      "    info[sizeof info - 1] = error[sizeof error - 1] = 0;\n"
      "    @P@_log_add(info);\n"
      "    if (info[0] && info[strlen(info) - 1] != '\\n') @P@_log_add(\"\\n\");\n"
      "    @P@_log_add(error);\n"
      "    if (error[0] && error[strlen(error) - 1] != '\\n') @P@_log_add(\"\\n\");\n"
      "    if (r == CUDA_SUCCESS) r = cuModuleGetFunction(&@P@_functions[s], @P@_modules[s], im->entry);\n"
      "    /* past 48 KB a block must opt in */\n"
      "    if (r == CUDA_SUCCESS && im->shared_bytes > 48 * 1024)\n"
      "      r = cuFuncSetAttribute(@P@_functions[s], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, im->shared_bytes);\n"
      "    if (r == CUDA_SUCCESS) @P@_shared[s] = (unsigned)im->shared_bytes;\n"
      "    if (r != CUDA_SUCCESS) {\n"
      "      snprintf(line, sizeof line, \"@P@_%d does not load\", s);\n"
      "      @P@_log_error(line, r);\n"
      "      @P@_release();\n"
      "      return r;\n"
      "    }\n"
      "  }\n"
      "  return CUDA_SUCCESS;\n"
      "}\n\n"
      "CUresult @P@_load(CUcontext ctx) {\n"
      "  @P@_unload();\n"
      "  @P@_log[0] = 0;\n"
      "  CUresult r = ctx ? cuCtxPushCurrent(ctx) : CUDA_SUCCESS;\n"
      "  if (r != CUDA_SUCCESS) {\n"
      "    @P@_log_error(\"the context cannot be made current\", r);\n"
      "    return r;\n"
      "  }\n"
      "  CUcontext here = NULL;\n"
      "  r = cuCtxGetCurrent(&here);\n"
      "  if (r != CUDA_SUCCESS) {\n"
      "    @P@_log_error(\"cuCtxGetCurrent\", r);\n"
      "  } else if (!here) {\n"
      "    @P@_log_add(\"@P@_load: no context is current on this thread: pass one, or make one current\\n\");\n"
      "    r = CUDA_ERROR_INVALID_CONTEXT;\n"
      "  } else {\n"
      "    r = @P@_load_here();\n"
      "  }\n"
      "  if (r == CUDA_SUCCESS) @P@_context = here;\n"
      "  if (ctx) cuCtxPopCurrent(NULL);\n"
      "  return r;\n"
      "}\n\n");
}

static void emit_source(Out *c, const Aot *o) {
  const char *P = o->ident;
  out(c, "/*\n * %s.c — kernel %s of %s, compiled ahead of time by tilec %s. Generated: do not edit.\n"
         " * The API and its contracts are in %s.h.\n */\n",
      P, o->sigs[0].images[0].meta.name, o->file, tilec_version(), P);
  out(c, "#include \"%s.h\"\n\n#include <stddef.h>\n#include <stdio.h>\n#include <string.h>\n\n", P);
  out(c, "enum { %s_NSIG = %d, %s_NARCH = %d };\n\n", P, o->nsigs, P, o->narchs);
  for (int s = 0; s < o->nsigs; s++)
    for (int a = 0; a < o->narchs; a++) {
      const AotImage *im = &o->sigs[s].images[a];
      out(c, "/* %s_%d for %s: .entry %s */\n", P, s, o->archs[a], im->meta.name);
      if (im->cubin) emit_bytes(c, P, s, o->archs[a], "cubin", im->cubin, im->cubin_len, false);
      emit_bytes(c, P, s, o->archs[a], "ptx", im->ptx, im->ptx_len, true);
      out(c, "\n");
    }
  out(c, "struct %s_image {\n"
         "  const char *arch, *entry;\n"
         "  int major, minor, exact; /* exact: an arch-specific target, for that compute capability only */\n"
         "  const unsigned char *cubin, *ptx; /* cubin: NULL when none was built */\n"
         "  int shared_bytes;\n"
         "};\n\n",
      P);
  out(c, "static const struct %s_image %s_images[%s_NSIG][%s_NARCH] = {\n", P, P, P, P);
  for (int s = 0; s < o->nsigs; s++) {
    out(c, "  {\n");
    for (int a = 0; a < o->narchs; a++) {
      const AotImage *im = &o->sigs[s].images[a];
      const char *ar = o->archs[a];
      int major = (ar[3] - '0'), minor = ar[4] - '0';
      char cubin[160];
      if (im->cubin) snprintf(cubin, sizeof cubin, "%s_s%d_%s_cubin", P, s, ar);
      else snprintf(cubin, sizeof cubin, "NULL");
      out(c, "    {\"%s\", \"%s\", %d, %d, %d, %s, %s_s%d_%s_ptx, %" PRId64 "},\n", ar, im->meta.name, major, minor,
          ar[5] == 'a', cubin, P, s, ar, im->meta.shared_bytes);
    }
    out(c, "  },\n");
  }
  out(c, "};\n\nstatic CUmodule %s_modules[%s_NSIG];\nstatic CUfunction %s_functions[%s_NSIG];\n", P, P, P, P);
  out(c, "static unsigned %s_shared[%s_NSIG]; /* the loaded image's shared bytes, given at each launch */\n", P, P);
  out(c, "static CUcontext %s_context; /* where they are loaded */\n", P);
  out(c, "static char %s_log[8192];\n\n", P);
  emit_load(c, o);

  const KernelMeta *m = &o->sigs[0].images[0].meta;
  for (int s = 0; s < o->nsigs; s++) {
    out(c, "CUresult %s_%d(CUstream stream, unsigned gx, unsigned gy, unsigned gz", P, s);
    emit_params(c, o, true);
    out(c, ") {\n  if (!%s_functions[%d]) return CUDA_ERROR_NOT_INITIALIZED;\n", P, s);
    if (m->nparams) {
      out(c, "  void *args[%d] = {", m->nparams);
      for (int i = 0; i < m->nparams; i++) out(c, "%s&%s", i ? ", " : "", o->cnames[i]);
      out(c, "};\n");
    }
    out(c, "  return cuLaunchKernel(%s_functions[%d], gx, gy, gz, %d, 1, 1, %s_shared[%d], stream, %s, NULL);\n}\n\n", P,
        s, 32 * o->sigs[s].images[0].meta.num_warps, P, s, m->nparams ? "args" : "NULL");
  }

  if (o->grid) emit_grid_helpers(c, o);
  out(c, "CUresult %s(CUstream stream", P);
  if (!o->grid) out(c, ", unsigned gx, unsigned gy, unsigned gz");
  emit_params(c, o, true);
  out(c, ") {\n  switch (%s_pick(", P);
  emit_args(c, o, false);
  out(c, ")) {\n");
  for (int s = 0; s < o->nsigs; s++) {
    out(c, "  case %d: {\n", s);
    if (o->grid) {
      char *const *d = o->sigs[s].dims;
      out(c, "    int bad = 0;\n"
             "    const int64_t gx = %s;\n    const int64_t gy = %s;\n    const int64_t gz = %s;\n"
             "    if (bad || gx < 1 || gx > INT32_MAX || gy < 1 || gy > 65535 || gz < 1 || gz > 65535)\n"
             "      return CUDA_ERROR_INVALID_VALUE;\n"
             "    return %s_%d(stream, (unsigned)gx, (unsigned)gy, (unsigned)gz",
          d[0], d[1], d[2], P, s);
    } else {
      out(c, "    return %s_%d(stream, gx, gy, gz", P, s);
    }
    emit_args(c, o, true);
    out(c, ");\n  }\n");
  }
  out(c, "  default:\n    return CUDA_ERROR_INVALID_VALUE;\n  }\n}\n");
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
      else if (!is_integer_type(t, &u64)) names[n].unusable = "a floating-point parameter";
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

/* Writes a whole file; the exit code. */
static int write_file(const char *path, const Out *text) {
  FILE *f = fopen(path, "wb");
  if (!f) return cli_error("cannot write '%s': %s", path, strerror(errno));
  bool ok = fwrite(text->s, 1, text->n, f) == text->n;
  ok &= fclose(f) == 0;
  return ok ? 0 : cli_error("writing '%s' failed", path);
}

static int generate(Aot *o) {
  const KernelMeta *m = &o->sigs[0].images[0].meta;
  for (int i = 0; i < m->nparams; i++)
    if (!c_type(m->params[i].type))
      return cli_error("%s: tilec aot cannot pass a parameter of type %s yet", m->params[i].name, m->params[i].type);
  int rc = 0;
  Out h = {0}, c = {0};
  char guard[160];
  snprintf(guard, sizeof guard, "%s_H", o->ident);
  for (char *g = guard; *g; g++) *g = (char)toupper((unsigned char)*g);
  emit_header(&h, o, guard);
  emit_source(&c, o);
  size_t n = strlen(o->out_path);
  char *path = malloc(n + 3);
  if (h.oom || c.oom || !path) rc = cli_error("out of memory");
  if (!rc) {
    snprintf(path, n + 3, "%s.h", o->out_path);
    rc = write_file(path, &h);
  }
  if (!rc) {
    snprintf(path, n + 3, "%s.c", o->out_path);
    rc = write_file(path, &c);
  }
  free(path);
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
    if (!(o->cnames[i] = c_name(m->params[i].name))) rc = cli_error("out of memory");
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
