/*
 * run.h — `tilec run`: compile one kernel, launch it once on the CPU
 * emulator with arrays from .npy files, save what it wrote.
 *
 * The command itself is cmd_run. The pieces below it are here so that unit
 * tests reach them without running a kernel: the evaluator of grid
 * expressions over named values, and the float conversions for 16-bit
 * scalar arguments. The metadata reader is runtime/meta.h's.
 */
#ifndef TILEC_DRIVER_RUN_H
#define TILEC_DRIVER_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/meta.h"

/* A name a grid expression may use. `unusable`, when set, says why it
 * cannot be used ("a pointer parameter"), for a better message than
 * "unknown name"; such names are not listed among the available ones. */
typedef struct RunName {
  const char *name;
  int64_t value;
  const char *unusable;
} RunName;

/* Parses and evaluates GRID, "X[,Y[,Z]]" (the language of runtime/grid.h),
 * with the names' values. Missing dimensions are 1; x must be in
 * 1 .. 2^31-1, y and z in 1 .. 65535. On failure err holds the message and
 * *errpos the byte offset in `grid` it points at. */
bool run_grid_eval(const char *grid, const RunName *names, int nnames, unsigned dims[3], char *err,
                   size_t errlen, size_t *errpos);

/* The bits of the fp16 and bf16 nearest to v (ties to even; overflow to
 * infinity; NaN stays a quiet NaN of the same sign). */
uint16_t run_f16_bits(double v);
uint16_t run_bf16_bits(double v);

/* `tilec run ARGS...` (argv without "tilec run"); the exit code. */
int cmd_run(int argc, char **argv);

#endif
