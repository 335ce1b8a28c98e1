/*
 * aot_emit.c — what `tilec aot` writes: PREFIX.h (the launch functions,
 * the dispatcher's pick as an inline function) and PREFIX.c (the images,
 * the loader, one launch per signature, the grid helpers, the dispatcher),
 * from the compiled signatures aot.c gathered in an Aot.
 *
 * The generated code is written for the reader who debugs a launch at two in
 * the morning: plain C11, one table of images, one function per signature,
 * a dispatcher that reads as the list of hint checks it is. It returns every
 * error as a CUresult, never exits or prints, and keeps no state but the
 * module and function handles and the load log.
 */
#include "aot.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/jit.h"
#include "support/dtype.h"

static const char *prog = "tilec";

/* Appends printf-style text to o; after a failure, nothing more (o->oom). */
void aot_out(AotOut *o, const char *fmt, ...) {
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

/* ==== C names and types ================================================================ */

/* A parameter's C type (its metadata type, "*fp32", as support/dtype.h
 * gives it); NULL when it has none. */
const char *aot_c_type(const char *t) {
  DType d;
  bool ptr;
  if (!dtype_parse_param(t, &d, &ptr)) return NULL;
  return ptr ? "CUdeviceptr" : dtype_c_type(d);
}

/* Whether a parameter is an integer scalar; *u64 whether it is a u64. */
bool aot_is_integer(const char *t, bool *u64) {
  DType d;
  bool ptr;
  bool yes = dtype_parse_param(t, &d, &ptr) && !ptr && dtype_is_int(d);
  if (u64) *u64 = yes && d == DT_U64;
  return yes;
}

bool aot_c_keyword(const char *name) {
  /* C11's, and C23's (bool, true and false are <stdbool.h>'s macros before it) */
  static const char *const keywords[] = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "alignas",
      "alignof", "bool", "constexpr", "false", "nullptr", "static_assert", "thread_local", "true", "typeof",
      "typeof_unqual"};
  for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
    if (!strcmp(name, keywords[i])) return true;
  return false;
}

/* A parameter's name in C: Python's identifiers are C's but for C's
 * keywords and the generated code's own names, which get a '_'. */
char *aot_c_name(const char *name) {
  static const char *const taken[] = {"stream", "gx", "gy", "gz", "bad", "args"};
  size_t n = strlen(name);
  char *c = malloc(n + 2);
  if (!c) return NULL;
  for (size_t i = 0; i <= n; i++) c[i] = isalnum((unsigned char)name[i]) || name[i] == '_' || !name[i] ? name[i] : '_';
  bool clash = aot_c_keyword(c);
  for (size_t i = 0; i < sizeof taken / sizeof *taken; i++) clash |= !strcmp(c, taken[i]);
  if (clash) {
    c[n] = '_';
    c[n + 1] = 0;
  }
  return c;
}

/* ==== the generated code ================================================================ */

static void emit_params(AotOut *h, const Aot *o, bool lead_comma) {
  const KernelMeta *m = &o->sigs[0].images[0].meta;
  for (int i = 0; i < m->nparams; i++)
    aot_out(h, "%s%s %s", i || lead_comma ? ", " : "", aot_c_type(m->params[i].type), o->cnames[i]);
  if (!m->nparams && !lead_comma) aot_out(h, "void");
}

static void emit_args(AotOut *h, const Aot *o, bool lead_comma) {
  const KernelMeta *m = &o->sigs[0].images[0].meta;
  for (int i = 0; i < m->nparams; i++) aot_out(h, "%s%s", i || lead_comma ? ", " : "", o->cnames[i]);
}

/* The hint checks of signature s, "" when it fits any arguments. */
static void emit_hint_checks(AotOut *h, const Aot *o, int s) {
  const KernelMeta *m = &o->sigs[s].images[0].meta;
  int n = 0;
  for (int i = 0; i < m->nparams; i++) {
    const KernelParam *p = &m->params[i];
    bool ptr = p->type[0] == '*';
    if (p->divisibility <= 0 || (!ptr && !aot_is_integer(p->type, NULL)) || (ptr && p->divisibility == 1)) continue;
    if (p->divisibility == 1) aot_out(h, "%s%s == 1", n++ ? " && " : "", o->cnames[i]);
    else aot_out(h, "%s%s %% %d == 0", n++ ? " && " : "", o->cnames[i], p->divisibility);
  }
}

void aot_emit_header(AotOut *h, const Aot *o, const char *guard) {
  const char *P = o->ident;
  const KernelMeta *m = &o->sigs[0].images[0].meta;
  aot_out(h, "/*\n * %s.h — kernel %s of %s, compiled ahead of time by tilec %s. Generated: do not edit.\n *\n", P,
      m->name, o->file, tilec_version());
  aot_out(h, " * Signatures, in the order %s() tries them:\n", P);
  for (int s = 0; s < o->nsigs; s++) aot_out(h, " *   %s_%d: \"%s\"\n", P, s, o->sig_texts[s]);
  aot_out(h, " * Targets: ");
  for (int a = 0; a < o->narchs; a++)
    aot_out(h, "%s%s (%s)", a ? ", " : "", o->archs[a], o->sigs[0].images[a].cubin ? "cubin and PTX" : "PTX");
  if (o->grid) aot_out(h, ".\n * Grid: %s.\n", o->grid);
  else aot_out(h, ".\n");
  aot_out(h,
      " *\n"
      " * %s_load(ctx) opens the CUDA driver (libcuda.so.1, with dlopen: link with libc\n"
      " * alone; CUDA_ERROR_SHARED_OBJECT_INIT_FAILED where it cannot be opened) and loads\n"
      " * the kernels into ctx (NULL: the calling thread's current\n"
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
  aot_out(h, "#ifndef %s\n#define %s\n\n#include <cuda.h>\n#include <stdbool.h>\n#include <stdint.h>\n\n", guard, guard);
  aot_out(h, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  aot_out(h, "CUresult %s_load(CUcontext ctx);\nvoid %s_unload(void);\nconst char *%s_load_log(void);\n\n", P, P, P);
  for (int s = 0; s < o->nsigs; s++) {
    const KernelMeta *ms = &o->sigs[s].images[0].meta;
    aot_out(h, "/* \"%s\": %d warps, %d threads per program */\n", o->sig_texts[s], ms->num_warps, 32 * ms->num_warps);
    aot_out(h, "CUresult %s_%d(CUstream stream, unsigned gx, unsigned gy, unsigned gz", P, s);
    emit_params(h, o, true);
    aot_out(h, ");\n");
  }
  aot_out(h, "\n/* Launches the first signature that fits the arguments%s. */\nCUresult %s(CUstream stream", 
      o->grid ? ", on the grid computed from them" : "", P);
  if (!o->grid) aot_out(h, ", unsigned gx, unsigned gy, unsigned gz");
  emit_params(h, o, true);
  aot_out(h, ");\n\n");

  if (o->xla)
    aot_out(h, "/* The XLA FFI handler (an XLA_FFI_Handler *), for XLA's CUDA platform: the kernel's pointer\n"
               " * parameters take the call's operands, then its results, in order; each scalar parameter is\n"
               " * the attribute of its name; %s. The kernels are loaded into the context current at\n"
               " * the first call (XLA's), once. Every failure is an XLA error with the reason.\n"
               " *   jax.ffi.register_ffi_target(\"%s\", jax.ffi.pycapsule(handler), platform=\"CUDA\") */\n"
               "void *%s_xla_ffi_handler(void);\n\n",
            o->grid ? "the grid is computed from them" : "the grid is the attribute grid (1 to 3 integers)", P, P);

  aot_out(h, "/* The signature %s() launches for these arguments, or -1 when none fits. */\nstatic inline int %s_pick(", P,
      P);
  emit_params(h, o, false);
  aot_out(h, ") {\n");
  for (int i = 0; i < m->nparams; i++) aot_out(h, "  (void)%s;\n", o->cnames[i]);
  bool always = false;
  for (int s = 0; s < o->nsigs && !always; s++) {
    AotOut c = {0};
    emit_hint_checks(&c, o, s);
    if (c.oom) h->oom = true;
    if (c.n) aot_out(h, "  if (%s) return %d;\n", c.s, s);
    else {
      aot_out(h, "  return %d;\n", s);
      always = true;
      if (s + 1 < o->nsigs)
        fprintf(stderr, "%s: warning: signature %d (\"%s\") fits any arguments: %s() never launches the ones after it\n",
                prog, s, o->sig_texts[s], P);
    }
    free(c.s);
  }
  if (!always) aot_out(h, "  return -1;\n");
  aot_out(h, "}\n\n#ifdef __cplusplus\n}\n#endif\n#endif\n");
}

static void emit_bytes(AotOut *c, const char *P, int s, const char *arch, const char *kind, const char *bytes,
                       size_t n, bool nul) {
  aot_out(c, "static _Alignas(16) const unsigned char %s_s%d_%s_%s[%zu] = {", P, s, arch, kind, n + nul);
  for (size_t i = 0; i < n + nul; i++)
    aot_out(c, "%s0x%02x,", i % 16 ? " " : "\n  ", i < n ? (unsigned char)bytes[i] : 0);
  aot_out(c, "\n};\n");
}

/* Writes a template of generated code: @P@ is the prefix, @ARCHS@ the
 * targets; everything else is literal, '%' included. */
void aot_tpl(AotOut *c, const Aot *o, const char *t) {
  for (const char *p = t; *p;) {
    const char *at = strchr(p, '@');
    if (!at) {
      aot_out(c, "%s", p);
      return;
    }
    aot_out(c, "%.*s", (int)(at - p), p);
    if (!strncmp(at, "@P@", 3)) {
      aot_out(c, "%s", o->ident);
      p = at + 3;
    } else if (!strncmp(at, "@ARCHS@", 7)) {
      aot_out(c, "%s", o->arch_list);
      p = at + 7;
    } else {
      aot_out(c, "@");
      p = at + 1;
    }
  }
}

/* The grid helpers, each only when a grid calls it (an unused static
 * function is a warning). Python's integers, in int64: what would
 * overflow, divide by zero or not divide exactly sets *bad. */
static void emit_grid_helpers(AotOut *c, const Aot *o) {
  unsigned uses = o->uses;
  if (uses & AOT_USES_DIV) uses |= AOT_USES_MOD | AOT_USES_FLOORDIV;
  if (uses & AOT_USES_CDIV) uses |= AOT_USES_ADD | AOT_USES_SUB | AOT_USES_FLOORDIV;
  if (uses & AOT_USES_ADD)
    aot_tpl(c, o, "static int64_t @P@_add(int64_t a, int64_t b, int *bad) {\n"
              "  if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return *bad = 1, 0;\n"
              "  return a + b;\n}\n\n");
  if (uses & AOT_USES_SUB)
    aot_tpl(c, o, "static int64_t @P@_sub(int64_t a, int64_t b, int *bad) {\n"
              "  if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return *bad = 1, 0;\n"
              "  return a - b;\n}\n\n");
  if (uses & AOT_USES_MUL)
    aot_tpl(c, o, "static int64_t @P@_mul(int64_t a, int64_t b, int *bad) {\n"
              "  if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)\n"
              "            : (b > 0 ? a < INT64_MIN / b : a != 0 && b < INT64_MAX / a))\n"
              "    return *bad = 1, 0;\n"
              "  return a * b;\n}\n\n");
  if (uses & AOT_USES_FLOORDIV)
    aot_tpl(c, o, "/* a // b: the quotient rounded toward -infinity */\n"
              "static int64_t @P@_floordiv(int64_t a, int64_t b, int *bad) {\n"
              "  if (b == 0 || (a == INT64_MIN && b == -1)) return *bad = 1, 0;\n"
              "  return a / b - (a % b != 0 && (a < 0) != (b < 0));\n}\n\n");
  if (uses & AOT_USES_MOD)
    aot_tpl(c, o, "/* a % b: the remainder takes the divisor's sign */\n"
              "static int64_t @P@_mod(int64_t a, int64_t b, int *bad) {\n"
              "  if (b == 0) return *bad = 1, 0;\n"
              "  if (b == -1) return 0;\n"
              "  int64_t r = a % b;\n"
              "  return r != 0 && (r < 0) != (b < 0) ? r + b : r;\n}\n\n");
  if (uses & AOT_USES_DIV)
    aot_tpl(c, o, "/* a / b, which a grid allows only when it divides exactly */\n"
              "static int64_t @P@_div(int64_t a, int64_t b, int *bad) {\n"
              "  if (b == 0 || @P@_mod(a, b, bad) != 0) return *bad = 1, 0;\n"
              "  return @P@_floordiv(a, b, bad);\n}\n\n");
  if (uses & AOT_USES_CDIV)
    aot_tpl(c, o, "/* Triton's cdiv: (a + b - 1) // b */\n"
              "static int64_t @P@_cdiv(int64_t a, int64_t b, int *bad) {\n"
              "  return @P@_floordiv(@P@_sub(@P@_add(a, b, bad), 1, bad), b, bad);\n}\n\n");
  if (uses & AOT_USES_NEG)
    aot_tpl(c, o, "static int64_t @P@_neg(int64_t a, int *bad) {\n"
              "  if (a == INT64_MIN) return *bad = 1, 0;\n"
              "  return -a;\n}\n\n");
  if (uses & AOT_USES_MIN) aot_tpl(c, o, "static int64_t @P@_min(int64_t a, int64_t b) { return a < b ? a : b; }\n\n");
  if (uses & AOT_USES_MAX) aot_tpl(c, o, "static int64_t @P@_max(int64_t a, int64_t b) { return a > b ? a : b; }\n\n");
}

/* The tensor map of a launch (a host descriptor copied by TMA): from the
 * arguments of its base, shape and strides (elements, outermost first),
 * as the JIT builds it (jit/launch.c); CUDA_ERROR_INVALID_VALUE for a
 * tensor TMA cannot copy, CUDA_ERROR_NOT_SUPPORTED without the driver's
 * cuTensorMapEncodeTiled. */
static void emit_tensor_map(AotOut *c, const Aot *o) {
  aot_tpl(c, o,
      "static CUresult @P@_tensor_map(CUtensorMap *map, const int *t, void **args) {\n"
      "  static const int bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};\n"
      "  int p = t[0], r = t[1];\n"
      "  if (!@P@_driver.cuTensorMapEncodeTiled) return CUDA_ERROR_NOT_SUPPORTED;\n"
      "  if (r < 1 || r > 5 || t[2] < 0 || t[2] > 12 || t[4] < 0 || t[4] > 3) return CUDA_ERROR_INVALID_VALUE;\n"
      "  cuuint64_t dims[5], strides[5];\n"
      "  cuuint32_t box[5], ones[5] = {1, 1, 1, 1, 1};\n"
      "  for (int d = 0; d < r; d++) {\n"
      "    int64_t n = *(const int64_t *)args[p + r - d], st = *(const int64_t *)args[p + 2 * r - d];\n"
      "    if (n < 1 || st < 1 || (d == 0 && st != 1)) return CUDA_ERROR_INVALID_VALUE;\n"
      "    dims[d] = (cuuint64_t)n;\n"
      "    strides[d] = (cuuint64_t)st * (cuuint64_t)bytes[t[2]];\n"
      "    box[d] = (cuuint32_t)t[5 + d];\n"
      "  }\n"
      "  return @P@_driver.cuTensorMapEncodeTiled(map, (CUtensorMapDataType)t[2], (cuuint32_t)r, *(void *const *)args[p], dims,\n"
      "                                          strides + 1, box, ones, CU_TENSOR_MAP_INTERLEAVE_NONE,\n"
      "                                          (CUtensorMapSwizzle)t[4], CU_TENSOR_MAP_L2_PROMOTION_L2_128B,\n"
      "                                          t[3] ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA\n"
      "                                               : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n"
      "}\n\n");
}

static void emit_load(AotOut *c, const Aot *o) {
  aot_tpl(c, o,
      "/* The driver, opened at the first load (dlopen, as the CUDA runtime opens\n"
      " * it), so that a program using these launchers starts, and says why, where\n"
      " * no driver is installed. */\n"
      "static struct {\n"
      "  CUresult (*cuGetErrorName)(CUresult, const char **);\n"
      "  CUresult (*cuGetErrorString)(CUresult, const char **);\n"
      "  CUresult (*cuCtxGetCurrent)(CUcontext *);\n"
      "  CUresult (*cuCtxPushCurrent)(CUcontext);\n"
      "  CUresult (*cuCtxPopCurrent)(CUcontext *);\n"
      "  CUresult (*cuCtxGetDevice)(CUdevice *);\n"
      "  CUresult (*cuDeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);\n"
      "  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, CUjit_option *, void **);\n"
      "  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);\n"
      "  CUresult (*cuModuleUnload)(CUmodule);\n"
      "  CUresult (*cuFuncSetAttribute)(CUfunction, CUfunction_attribute, int);\n"
      "  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,\n"
      "                             CUstream, void **, void **);\n"
      "  /* optional (CUDA 12.0 on): the tensor maps of kernels that copy by TMA */\n"
      "  CUresult (*cuTensorMapEncodeTiled)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,\n"
      "                                     const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,\n"
      "                                     CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);\n"
      "} @P@_driver;\n\n"
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
      "  if (@P@_driver.cuGetErrorName(r, &name) != CUDA_SUCCESS) name = NULL;\n"
      "  if (@P@_driver.cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;\n"
      "  if (!name && (int)r == 34)\n"
      "    name = \"CUDA_ERROR_STUB_LIBRARY\", text = \"libcuda.so.1 is the CUDA toolkit's link-only stub, not a driver\";\n"
      "  snprintf(line, sizeof line, \"@P@_load: %s: %s (CUresult %d)%s%s\\n\", what, name ? name : \"unknown error\", (int)r,\n"
      "           text ? \": \" : \"\", text ? text : \"\");\n"
      "  @P@_log_add(line);\n"
      "}\n\n");
  aot_tpl(c, o,
      "/* Opens the driver once; a failure is logged. */\n"
      "static CUresult @P@_open_driver(void) {\n"
      "  static void *lib;\n"
      "  if (lib) return CUDA_SUCCESS;\n"
      "  void *l = dlopen(\"libcuda.so.1\", RTLD_NOW | RTLD_LOCAL);\n"
      "  if (!l) {\n"
      "    const char *why = dlerror();\n"
      "    @P@_log_add(\"@P@_load: the CUDA driver (libcuda.so.1) cannot be opened: \");\n"
      "    @P@_log_add(why ? why : \"no reason given\");\n"
      "    @P@_log_add(\"\\n\");\n"
      "    return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;\n"
      "  }\n"
      "  /* the entry points cuda.h's names stand for (its _v2 names, and with\n"
      "   * CUDA_API_PER_THREAD_DEFAULT_STREAM the per-thread stream's launch) */\n"
      "  struct { void **at; const char *name; } sym[] = {\n"
      "    {(void **)&@P@_driver.cuGetErrorName, \"cuGetErrorName\"},\n"
      "    {(void **)&@P@_driver.cuGetErrorString, \"cuGetErrorString\"},\n"
      "    {(void **)&@P@_driver.cuCtxGetCurrent, \"cuCtxGetCurrent\"},\n"
      "    {(void **)&@P@_driver.cuCtxPushCurrent, \"cuCtxPushCurrent_v2\"},\n"
      "    {(void **)&@P@_driver.cuCtxPopCurrent, \"cuCtxPopCurrent_v2\"},\n"
      "    {(void **)&@P@_driver.cuCtxGetDevice, \"cuCtxGetDevice\"},\n"
      "    {(void **)&@P@_driver.cuDeviceGetAttribute, \"cuDeviceGetAttribute\"},\n"
      "    {(void **)&@P@_driver.cuModuleLoadDataEx, \"cuModuleLoadDataEx\"},\n"
      "    {(void **)&@P@_driver.cuModuleGetFunction, \"cuModuleGetFunction\"},\n"
      "    {(void **)&@P@_driver.cuModuleUnload, \"cuModuleUnload\"},\n"
      "    {(void **)&@P@_driver.cuFuncSetAttribute, \"cuFuncSetAttribute\"},\n"
      "#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM\n"
      "    {(void **)&@P@_driver.cuLaunchKernel, \"cuLaunchKernel_ptsz\"},\n"
      "#else\n"
      "    {(void **)&@P@_driver.cuLaunchKernel, \"cuLaunchKernel\"},\n"
      "#endif\n"
      "  };\n"
      "  for (size_t i = 0; i < sizeof sym / sizeof sym[0]; i++) {\n"
      "    *sym[i].at = dlsym(l, sym[i].name);\n"
      "    if (!*sym[i].at) {\n"
      "      @P@_log_add(\"@P@_load: the CUDA driver (libcuda.so.1) has no \");\n"
      "      @P@_log_add(sym[i].name);\n"
      "      @P@_log_add(\": it is older than this launcher needs\\n\");\n"
      "      memset(&@P@_driver, 0, sizeof @P@_driver);\n"
      "      dlclose(l);\n"
      "      return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;\n"
      "    }\n"
      "  }\n"
      "  *(void **)&@P@_driver.cuTensorMapEncodeTiled = dlsym(l, \"cuTensorMapEncodeTiled\");\n"
      "  lib = l;\n"
      "  return CUDA_SUCCESS;\n"
      "}\n\n");
  aot_tpl(c, o,
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
  aot_tpl(c, o,
      "/* Unloads the modules; their context is current. */\n"
      "static void @P@_release(void) {\n"
      "  for (int s = 0; s < @P@_NSIG; s++) {\n"
      "    if (@P@_modules[s]) @P@_driver.cuModuleUnload(@P@_modules[s]);\n"
      "    @P@_modules[s] = NULL;\n"
      "    @P@_functions[s] = NULL;\n"
      "  }\n"
      "}\n\n"
      "void @P@_unload(void) {\n"
      "  if (!@P@_context) return;\n"
      "  int pushed = @P@_driver.cuCtxPushCurrent(@P@_context) == CUDA_SUCCESS;\n"
      "  @P@_release();\n"
      "  if (pushed) @P@_driver.cuCtxPopCurrent(NULL);\n"
      "  @P@_context = NULL;\n"
      "}\n\n"
      "const char *@P@_load_log(void) { return @P@_log; }\n\n"
      "/* Loads into the current context. */\n"
      "static CUresult @P@_load_here(void) {\n"
      "  CUdevice dev;\n"
      "  int major = 0, minor = 0, optin = 0;\n"
      "  char line[256];\n"
      "  CUresult r = @P@_driver.cuCtxGetDevice(&dev);\n"
      "  if (r == CUDA_SUCCESS) r = @P@_driver.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);\n"
      "  if (r == CUDA_SUCCESS) r = @P@_driver.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);\n"
      "  if (r == CUDA_SUCCESS)\n"
      "    r = @P@_driver.cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);\n"
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
  aot_tpl(c, o,
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
      "    r = @P@_driver.cuModuleLoadDataEx(&@P@_modules[s], cubin ? im->cubin : im->ptx, 4, opt, val);\n"
      "    info[sizeof info - 1] = error[sizeof error - 1] = 0;\n"
      "    @P@_log_add(info);\n"
      "    if (info[0] && info[strlen(info) - 1] != '\\n') @P@_log_add(\"\\n\");\n"
      "    @P@_log_add(error);\n"
      "    if (error[0] && error[strlen(error) - 1] != '\\n') @P@_log_add(\"\\n\");\n"
      "    if (r == CUDA_SUCCESS) r = @P@_driver.cuModuleGetFunction(&@P@_functions[s], @P@_modules[s], im->entry);\n"
      "    @P@_chosen[s] = a;\n"
      "    /* past 48 KB a block must opt in */\n"
      "    if (r == CUDA_SUCCESS && im->shared_bytes > 48 * 1024)\n"
      "      r = @P@_driver.cuFuncSetAttribute(@P@_functions[s], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, im->shared_bytes);\n"
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
      "  CUresult r = @P@_open_driver();\n"
      "  if (r != CUDA_SUCCESS) return r;\n"
      "  r = ctx ? @P@_driver.cuCtxPushCurrent(ctx) : CUDA_SUCCESS;\n"
      "  if (r != CUDA_SUCCESS) {\n"
      "    @P@_log_error(\"the context cannot be made current\", r);\n"
      "    return r;\n"
      "  }\n"
      "  CUcontext here = NULL;\n"
      "  r = @P@_driver.cuCtxGetCurrent(&here);\n"
      "  if (r != CUDA_SUCCESS) {\n"
      "    @P@_log_error(\"cuCtxGetCurrent\", r);\n"
      "  } else if (!here) {\n"
      "    @P@_log_add(\"@P@_load: no context is current on this thread: pass one, or make one current\\n\");\n"
      "    r = CUDA_ERROR_INVALID_CONTEXT;\n"
      "  } else {\n"
      "    r = @P@_load_here();\n"
      "  }\n"
      "  if (r == CUDA_SUCCESS) @P@_context = here;\n"
      "  if (ctx) @P@_driver.cuCtxPopCurrent(NULL);\n"
      "  return r;\n"
      "}\n\n");
}

void aot_emit_source(AotOut *c, const Aot *o) {
  const char *P = o->ident;
  aot_out(c, "/*\n * %s.c — kernel %s of %s, compiled ahead of time by tilec %s. Generated: do not edit.\n"
         " * The API and its contracts are in %s.h.\n */\n",
      P, o->sigs[0].images[0].meta.name, o->file, tilec_version(), P);
  aot_out(c, "#include \"%s.h\"\n\n#include <dlfcn.h>\n#include <stddef.h>\n#include <stdio.h>\n#include <string.h>\n", P);
  if (o->xla) aot_out(c, "#include <threads.h>\n\n#include \"xla/ffi/api/c_api.h\"\n");
  aot_out(c, "\n");
  aot_out(c, "enum { %s_NSIG = %d, %s_NARCH = %d };\n\n", P, o->nsigs, P, o->narchs);
  for (int s = 0; s < o->nsigs; s++)
    for (int a = 0; a < o->narchs; a++) {
      const AotImage *im = &o->sigs[s].images[a];
      aot_out(c, "/* %s_%d for %s: .entry %s */\n", P, s, o->archs[a], im->meta.name);
      if (im->cubin) emit_bytes(c, P, s, o->archs[a], "cubin", im->cubin, im->cubin_len, false);
      emit_bytes(c, P, s, o->archs[a], "ptx", im->ptx, im->ptx_len, true);
      aot_out(c, "\n");
    }
  aot_out(c, "struct %s_image {\n"
         "  const char *arch, *entry;\n"
         "  int major, minor, exact; /* exact: an arch-specific target, for that compute capability only */\n"
         "  const unsigned char *cubin, *ptx; /* cubin: NULL when none was built */\n"
         "  int shared_bytes;\n"
         "  int nmaps; /* the tensor maps it takes after its parameters, and each one's: */\n"
         "  const int (*maps)[10]; /* base parameter, rank, CUtensorMapDataType, NaN fill, swizzle, box (innermost first) */\n"
         "};\n\n",
      P);
  bool any_maps = false;
  for (int s = 0; s < o->nsigs; s++)
    for (int a = 0; a < o->narchs; a++) {
      const KernelMeta *im = &o->sigs[s].images[a].meta;
      if (!im->nmaps) continue;
      any_maps = true;
      aot_out(c, "static const int %s_s%d_%s_maps[%d][10] = {", P, s, o->archs[a], im->nmaps);
      for (int i = 0; i < im->nmaps; i++) {
        const KernelTensorMap *t = &im->maps[i];
        DType dt;
        bool is_ptr;
        int type = dtype_parse_param(im->params[t->param].type, &dt, &is_ptr) ? jit_tensor_map_type(dt) : -1;
        aot_out(c, "%s{%d, %d, %d, %d, %d", i ? ", " : "", t->param, t->rank, type, t->nan ? 1 : 0, t->swizzle);
        for (int d = 0; d < 5; d++) aot_out(c, ", %" PRId64, d < t->rank ? t->box[t->rank - 1 - d] : (int64_t)0);
        aot_out(c, "}");
      }
      aot_out(c, "};\n");
    }
  if (any_maps) aot_out(c, "\n");
  aot_out(c, "static const struct %s_image %s_images[%s_NSIG][%s_NARCH] = {\n", P, P, P, P);
  for (int s = 0; s < o->nsigs; s++) {
    aot_out(c, "  {\n");
    for (int a = 0; a < o->narchs; a++) {
      const AotImage *im = &o->sigs[s].images[a];
      const char *ar = o->archs[a];
      int major = (ar[3] - '0'), minor = ar[4] - '0';
      char cubin[160];
      if (im->cubin) snprintf(cubin, sizeof cubin, "%s_s%d_%s_cubin", P, s, ar);
      else snprintf(cubin, sizeof cubin, "NULL");
      char maps[160];
      if (im->meta.nmaps) snprintf(maps, sizeof maps, "%d, %s_s%d_%s_maps", im->meta.nmaps, P, s, ar);
      else snprintf(maps, sizeof maps, "0, NULL");
      aot_out(c, "    {\"%s\", \"%s\", %d, %d, %d, %s, %s_s%d_%s_ptx, %" PRId64 ", %s},\n", ar, im->meta.name, major, minor,
          ar[5] == 'a', cubin, P, s, ar, im->meta.shared_bytes, maps);
    }
    aot_out(c, "  },\n");
  }
  aot_out(c, "};\n\nstatic CUmodule %s_modules[%s_NSIG];\nstatic CUfunction %s_functions[%s_NSIG];\n", P, P, P, P);
  aot_out(c, "static unsigned %s_shared[%s_NSIG]; /* the loaded image's shared bytes, given at each launch */\n", P, P);
  aot_out(c, "static CUcontext %s_context; /* where they are loaded */\n", P);
  aot_out(c, "static int %s_chosen[%s_NSIG]; /* the image each signature loaded */\n", P, P);
  aot_out(c, "static char %s_log[8192];\n\n", P);
  emit_load(c, o);

  const KernelMeta *m = &o->sigs[0].images[0].meta;
  if (any_maps) emit_tensor_map(c, o);
  for (int s = 0; s < o->nsigs; s++) {
    bool maps = false;
    for (int a = 0; a < o->narchs; a++) maps |= o->sigs[s].images[a].meta.nmaps > 0;
    aot_out(c, "CUresult %s_%d(CUstream stream, unsigned gx, unsigned gy, unsigned gz", P, s);
    emit_params(c, o, true);
    aot_out(c, ") {\n  if (!%s_functions[%d]) return CUDA_ERROR_NOT_INITIALIZED;\n", P, s);
    if (m->nparams || maps) {
      aot_out(c, "  void *args[%d] = {", m->nparams + (maps ? MAX_MAPS : 0));
      for (int i = 0; i < m->nparams; i++) aot_out(c, "%s&%s", i ? ", " : "", o->cnames[i]);
      aot_out(c, "};\n");
    }
    if (maps) {
      aot_out(c, "  /* the tensor maps, after the parameters, built from their bases, shapes and strides */\n"
                 "  const struct %s_image *im = &%s_images[%d][%s_chosen[%d]];\n"
                 "  CUtensorMap maps[%d];\n"
                 "  for (int i = 0; i < im->nmaps; i++) {\n"
                 "    CUresult r = %s_tensor_map(&maps[i], im->maps[i], args);\n"
                 "    if (r != CUDA_SUCCESS) return r;\n"
                 "    args[%d + i] = &maps[i];\n"
                 "  }\n",
          P, P, s, P, s, MAX_MAPS, P, m->nparams);
    }
    aot_out(c, "  return %s_driver.cuLaunchKernel(%s_functions[%d], gx, gy, gz, %d, 1, 1, %s_shared[%d], stream, %s, NULL);\n}\n\n",
        P, P, s, 32 * o->sigs[s].images[0].meta.num_warps, P, s, m->nparams ? "args" : "NULL");
  }

  if (o->grid) emit_grid_helpers(c, o);
  aot_out(c, "CUresult %s(CUstream stream", P);
  if (!o->grid) aot_out(c, ", unsigned gx, unsigned gy, unsigned gz");
  emit_params(c, o, true);
  aot_out(c, ") {\n  switch (%s_pick(", P);
  emit_args(c, o, false);
  aot_out(c, ")) {\n");
  for (int s = 0; s < o->nsigs; s++) {
    aot_out(c, "  case %d: {\n", s);
    if (o->grid) {
      char *const *d = o->sigs[s].dims;
      aot_out(c, "    int bad = 0;\n"
             "    const int64_t gx = %s;\n    const int64_t gy = %s;\n    const int64_t gz = %s;\n"
             "    if (bad || gx < 1 || gx > INT32_MAX || gy < 1 || gy > 65535 || gz < 1 || gz > 65535)\n"
             "      return CUDA_ERROR_INVALID_VALUE;\n"
             "    return %s_%d(stream, (unsigned)gx, (unsigned)gy, (unsigned)gz",
          d[0], d[1], d[2], P, s);
    } else {
      aot_out(c, "    return %s_%d(stream, gx, gy, gz", P, s);
    }
    emit_args(c, o, true);
    aot_out(c, ");\n  }\n");
  }
  aot_out(c, "  default:\n    return CUDA_ERROR_INVALID_VALUE;\n  }\n}\n");
  if (o->xla) {
    aot_out(c, "\n");
    aot_emit_xla(c, o);
  }
}
