/*
 * run.h — `tilec run`: compile one kernel, launch it once on the CPU
 * emulator with arrays from .npy files, save what it wrote.
 *
 * The command itself is cmd_run (run.c). The pieces below it are here so
 * that unit tests reach them without running a kernel: the evaluator of
 * grid expressions over named values, and the float conversions for 16-bit
 * scalar arguments; and so that run.c reaches the arguments run_args.c
 * parses. The metadata reader is runtime/meta.h's.
 */
#ifndef TILEC_DRIVER_RUN_H
#define TILEC_DRIVER_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emu/emu.h"
#include "npy.h"
#include "runtime/meta.h"
#include "support/dtype.h"
#include "tilec/runtime.h"
#include "tilec/tilec.h"

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

/* Evaluates one expression of the same language (no range check of a
 * dimension): `tilec bench --bytes`. Errors as run_grid_eval's. */
bool run_value_eval(const char *text, const RunName *names, int nnames, int64_t *value, char *err, size_t errlen,
                    size_t *errpos);

/* The bits of the fp16 and bf16 nearest to v (ties to even; overflow to
 * infinity; NaN stays a quiet NaN of the same sign). */
uint16_t run_f16_bits(double v);
uint16_t run_bf16_bits(double v);

/* ---- the arguments (run_args.c) ---------------------------------------------------------- */

/* One runtime argument: where its value lives, as the launch passes it. */
typedef struct Arg {
  const KernelParam *param;
  DType type; /* the pointee of a pointer, else the scalar's type */
  bool is_ptr;
  union {
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float f32;
    double f64;
    void *ptr;
  } slot;
  NpyArray buf; /* a pointer's buffer, with the dtype and shape --save writes */
  unsigned char *init; /* an empty: buffer's bytes the kernel wrote, a bit each (EmuBuffer.init) */
} Arg;

/* Types the argument of parameter p ("*fp32": a pointer to fp32); 0, or 1
 * (with a message) when tilec run cannot pass it. */
int run_type_arg(Arg *a, const KernelParam *p);
/* The argument's value from its text, a scalar or a buffer (index seeds
 * rand:); 0, or 1 with a message naming the parameter. */
int run_scalar_arg(Arg *a, const char *text);
int run_buffer_arg(Arg *a, const char *text, int index);
/* 0 when the argument keeps its signature entry's hint (`i32:16`,
 * `i32:1`, `*fp32:16`), else 1 with a message naming the parameter, its
 * value and the hint. */
int run_check_hint(const Arg *a);
/* What a grid expression sees of an argument: NULL and its value for an
 * integer scalar, else why it cannot be used. */
const char *run_grid_value(const Arg *a, int64_t *v);
/* --print I[:N]: the first N (8) elements of the argument's buffer. */
void run_print_buffer(const Arg *a, const char *spec);
/* "0x1F", "-12", "+7": *neg and the magnitude; false if not an integer. */
bool run_parse_integer(const char *s, bool *neg, uint64_t *mag);

/* ---- the command's pieces, which `tilec bench` (bench.c) shares --------------------------- */

/* The command line of `tilec run` (or of a command built on it), as given. */
typedef struct RunOptions {
  const char *cmd, *usage;    /* "run" and its usage line, for messages */
  void (*help)(FILE *f);      /* --help */
  const char *file, *grid, *device;
  tilec_cuda *cuda; /* the GPU, when the run goes there */
  const char **args, **saves, **prints;
  int nargs, nsaves, nprints;
  bool has_seed;
  uint64_t seed;
  bool no_racecheck;
  bool has_config; /* --config was given */
  bool quiet;      /* no compile diagnostics (autotuning's compiles of each config) */
  const char *sweep_name; /* tilec bench --sweep NAME: a bare NAME in the grid gets a hint to write {NAME} */
  tilec_compile_options compile;
  const char **defines;
  const char **includes;
} RunOptions;

/* Room for the lists of a command line of argc words; false when out of memory. */
bool run_options_init(RunOptions *o, int argc);
void run_options_free(RunOptions *o); /* closes the GPU too */

/* An option of the command built on run's, offered each option first:
 * 1 when it took argv[*i] (and *i moved past its value), 0 when it is not
 * its own, else the exit code of a usage error. */
typedef int (*RunExtraOption)(int argc, char **argv, int *i, void *ctx);

/* Parses the command line; 0, or the exit code of a usage error (-1 after
 * --help). o->cmd, usage and help default to run's. */
int run_parse_options(int argc, char **argv, RunOptions *o, RunExtraOption extra, void *ctx);
/* Chooses the device: the GPU for cuda, and for auto when there is one;
 * the emulator for cpu and otherwise. 0, or the exit code. */
int run_pick_device(RunOptions *o);
/* --seed's default from TILEC_EMU_SEED; 0, or the exit code. */
int run_seed_from_env(RunOptions *o);

/* One kernel compiled for the device, then bound to the arguments. */
typedef struct RunKernel {
  tilec_result *result;
  KernelMeta meta;
  bool has_meta;
  Arg *args; /* one per runtime parameter */
  int bound; /* how many of args hold something to free */
  int *saves, *prints; /* the argument each --save, --print names */
  RunName *names;      /* what a grid sees: the arguments, then the constexprs */
  int nnames;
  unsigned grid[3];
} RunKernel;

/* Compiles o's kernel of src (diagnostics on stderr); 0, or the exit code.
 * Either way run_release(k) follows. */
int run_compile(const RunOptions *o, const char *src, size_t len, RunKernel *k);
/* Compiles of several kernels, run in parallel (autotune's configs). */
typedef struct RunCompileJob {
  RunOptions o; /* what to compile; its strings stay the caller's */
  RunKernel k;  /* the result, to run_release */
  int rc;       /* run_compile's */
} RunCompileJob;

/* Compiles each job on up to one thread per CPU, then prints the
 * diagnostics of those whose options are not quiet, in order. */
void run_compile_all(RunCompileJob *jobs, int n, const char *src, size_t len);

/* The arguments, --save and --print, and the grid; 0, or the exit code. */
int run_bind(const RunOptions *o, RunKernel *k);
void run_unbind(RunKernel *k);  /* the arguments only: bind again, to other values */
void run_release(RunKernel *k); /* everything */
/* That the buffers autotune's reset_to_zero and restore_value and the
 * config's pre_hook name are pointer parameters, and that those the hook
 * copies between are the same size; 0, or 1 with a message. */
int run_check_buffers(const RunKernel *k);
/* Zeroes a buffer argument, and marks it written (its bytes are values). */
void run_zero_buffer(Arg *a);
/* The index of the runtime parameter named so, or -1; and its argument, or NULL. */
int run_param_index(const KernelMeta *m, const char *name);
Arg *run_arg_named(const RunKernel *k, const char *name);
/* What the config's pre_hook does before a launch: its buffers zeroed, then copied. */
void run_pre_hook(RunKernel *k);
/* The emulator's view of the arguments: argv[i] for each parameter, and a
 * buffer for each pointer (bufs has room for one per parameter). */
void run_emu_args(const KernelMeta *m, Arg *args, void **argv, EmuBuffer *bufs, int *nbufs);
/* The tensor maps the kernel takes after its parameters (m->maps), built
 * from argv's bases, shapes and strides into maps (MAX_MAPS of them) and
 * appended to argv, which has room; on the emulator (cuda NULL) their
 * bytes also go to bufs. 0, or the exit code after the error. */
int run_tensor_maps(const KernelMeta *m, tilec_cuda *cuda, void **argv, unsigned char (*maps)[128], EmuBuffer *bufs, int *nbufs);

/* Prints an error in an expression: "in WHAT: MSG", the text, a caret under
 * byte pos; returns 1. */
int run_expr_error(const char *what, const char *text, const char *msg, size_t pos);

/* `tilec run ARGS...` (argv without "tilec run"); the exit code. */
int cmd_run(int argc, char **argv);

/* The config of an autotuned kernel for these options and k's arguments
 * (k compiled in any config, and bound): the one the tuning cache
 * (jit/tuning.h) holds, else the fastest of all, timed on fresh copies of
 * the arguments and then kept in the cache. *config is k's own config for
 * a kernel with fewer than two configs. 0, or the exit code (bench.c). */
int run_tuned_config(const RunOptions *o, const char *src, size_t len, const RunKernel *k, int *config);

/* `tilec bench ARGS...` (bench.c); the exit code. */
int cmd_bench(int argc, char **argv);

#endif
