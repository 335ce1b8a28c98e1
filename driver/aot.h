/*
 * aot.h — `tilec aot`: compile one kernel for several signatures and
 * targets into a C source and header that embed the images and launch them
 * through the CUDA driver API, with nothing else to link but libcuda.
 *
 * The command is cmd_aot (aot.c), and what it writes is aot_emit.c's; the
 * types they share are below. The grid translator (aot_grid.c) is declared
 * here so that it can be tested on its own: it turns a grid expression (the language of
 * `tilec run -g`, see runtime/grid.h) into C arithmetic at generation time, where
 * `tilec run` evaluates the same expression at launch.
 */
#ifndef TILEC_DRIVER_AOT_H
#define TILEC_DRIVER_AOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/meta.h"
#include "tilec/tilec.h"

/* A name a grid expression may use: a runtime parameter, which the C code
 * reads from the variable `cname`, or a constexpr with its value. `unusable`,
 * when set, says why the name cannot be used ("a pointer parameter"). */
typedef struct AotName {
  const char *name;
  const char *cname; /* NULL for a constexpr */
  int64_t value;
  const char *unusable;
} AotName;

/* The helpers a translated grid calls; the generator defines just these. */
enum {
  AOT_USES_ADD = 1, AOT_USES_SUB = 2, AOT_USES_MUL = 4, AOT_USES_FLOORDIV = 8, AOT_USES_MOD = 16,
  AOT_USES_DIV = 32, AOT_USES_CDIV = 64, AOT_USES_NEG = 128, AOT_USES_MIN = 256, AOT_USES_MAX = 512,
};

/* Translates GRID, "X[,Y[,Z]]", into three C expressions of type int64_t
 * (a missing dimension is "1"), each in a buffer of the caller (dimlen
 * bytes). The helpers are named PREFIX_add(a, b, &bad) and so on: every
 * operation that Python would make a float of, divide by zero or overflow
 * sets `bad` at run time instead of wrapping. *uses collects the helpers
 * used. On failure err holds the message and *errpos the offset in grid. */
bool aot_grid_to_c(const char *grid, const AotName *names, int nnames, const char *prefix, char *dims[3],
                   size_t dimlen, unsigned *uses, char *err, size_t errlen, size_t *errpos);

/* ---- what aot.c gathers and aot_emit.c writes out ----------------------------------------- */

#define AOT_MAX_ARCHS 8
#define AOT_DIM_CHARS 4096

/* Text being generated; oom when memory ran out on the way. */
typedef struct AotOut {
  char *s;
  size_t n, cap;
  bool oom;
} AotOut;

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
  bool xla; /* --xla-ffi */
  tilec_compile_options copt;
  const char *archs[AOT_MAX_ARCHS];
  char arch_buf[256];
  int narchs;
  char ident[128]; /* the C prefix */
  AotSig *sigs;
  char **cnames; /* the parameters' names in C */
  unsigned uses; /* the grid helpers the translated grids call */
} Aot;

/* A parameter's C type in the launchers, from its type in the metadata
 * ("*fp32": CUdeviceptr); NULL when it has none. */
const char *aot_c_type(const char *type);
/* Whether a parameter is an integer scalar; *u64 (u64 may be NULL) whether it is a u64. */
bool aot_is_integer(const char *type, bool *u64);
/* Whether name is a C keyword (C11's or C23's). */
bool aot_c_keyword(const char *name);
/* A parameter's name in C, malloc'd; NULL when out of memory. */
char *aot_c_name(const char *name);
/* Appends printf-style text to o; after a failure, nothing more (o->oom). */
void aot_out(AotOut *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends template text t, with @P@ the prefix and @ARCHS@ the targets. */
void aot_tpl(AotOut *c, const Aot *o, const char *t);
/* --xla-ffi: the first parameter XLA cannot pass (a pointer to a type XLA
 * has none for, or a 16- or 8-bit float scalar); NULL when none. */
const char *aot_xla_unsupported(const Aot *o);
/* --xla-ffi: the handler, appended to c (aot_xla.c). */
void aot_emit_xla(AotOut *c, const Aot *o);
/* PREFIX.h and PREFIX.c of o, appended to h and c. */
void aot_emit_header(AotOut *h, const Aot *o, const char *guard);
void aot_emit_source(AotOut *c, const Aot *o);

/* `tilec aot ARGS...` (argv without "tilec aot"); the exit code. */
int cmd_aot(int argc, char **argv);

#endif
