/*
 * aot.h — `tilec aot`: compile one kernel for several signatures and
 * targets into a C source and header that embed the images and launch them
 * through the CUDA driver API, with nothing else to link but libcuda.
 *
 * The command is cmd_aot. The grid translator is declared here so that it
 * can be tested on its own: it turns a grid expression (the language of
 * `tilec run -g`, see runtime/grid.h) into C arithmetic at generation time, where
 * `tilec run` evaluates the same expression at launch.
 */
#ifndef TILEC_DRIVER_AOT_H
#define TILEC_DRIVER_AOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* `tilec aot ARGS...` (argv without "tilec aot"); the exit code. */
int cmd_aot(int argc, char **argv);

#endif
