/*
 * emu.h — the CPU emulator: runs a kernel on the CPU, from the object code
 * that tilec_compile gives with TILEC_EMIT_CPU (the same kernel that goes to
 * NVPTX, retargeted to the host: DESIGN.md §5).
 *
 * emu_load_object loads it straight into memory, or links it with LLVM's
 * ORC (one JIT per process, each kernel in a library of its own); emu_load
 * JIT-compiles a module of LLVM IR text (tests write such kernels by
 * hand). Either binds every GPU
 * operation it calls (thread and block ids, barriers, shuffles, mma.sync
 * and ldmatrix (emu/mma.h), predicated global accesses, atomics, vprintf,
 * __assertfail, libdevice math) to a C
 * implementation; a call the emulator does not know is a load error naming
 * it. emu_launch runs the grid: blocks in parallel on host threads, the
 * threads of a block as fibers (emu/fiber.h) when the kernel has
 * barriers or warp collectives, else one after another.
 *
 * The checks a GPU does not make: a global access outside every buffer of
 * the launch, a device assertion, a deadlock or a divergent collective
 * stop the launch (or, for accesses and assertions, are counted and the
 * first few reported) and make emu_launch return false with the report.
 * So do, from emu/emucheck.h, a read of global memory nothing wrote
 * (for buffers with an init map) and a data race on global memory, within
 * a program or between the programs of the launch (unless no_racecheck).
 *
 * Nothing here calls exit(); a kernel and its launches may be used from
 * one host thread at a time.
 */
#ifndef TILEC_RUNTIME_EMU_H
#define TILEC_RUNTIME_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct EmuKernel EmuKernel;

/* Memory the kernel may touch: a global access outside all of them is an
 * error. */
typedef struct EmuBuffer {
  void *data;
  size_t bytes;
  const char *name; /* for reports, e.g. the parameter's name */
  /* NULL: every byte holds a value. Else a bit per byte ((bytes + 7) / 8
   * bytes, bit i % 8 of byte i / 8), set once byte i is written: a read of
   * a byte whose bit is clear is reported, and the launch sets the bits of
   * what it writes. The caller's, for as long as the memory lives. */
  unsigned char *init;
} EmuBuffer;

typedef struct EmuLaunch {
  unsigned grid[3];       /* blocks in x, y, z: as CUDA's (runtime/grid.h's grid_check) */
  int num_warps;          /* threads per block = 32 * num_warps */
  void *const *args;      /* per runtime parameter, a pointer to its value (as cuLaunchKernel) */
  int nargs;
  const EmuBuffer *buffers;
  int nbuffers;
  uint64_t seed;          /* 0: threads in order; else a permutation drawn from it */
  int host_threads;       /* 0: one per core */
  FILE *print_to;         /* device_print output; NULL: stdout */
  bool no_racecheck;      /* skip the race check of global memory (its time and shadow memory) */
} EmuLaunch;

/* JIT-compiles the module `ir` (LLVM IR text, as the retarget-host stage
 * leaves it after llvm-passes) and finds `kernel` in it.
 * NULL on failure, with a malloc'd message in *err; *err is NULL when
 * memory ran out. */
EmuKernel *emu_load(const char *ir, size_t len, const char *kernel, char **err);

/* Why a launch failed. */
typedef enum EmuFailure {
  EMU_FAILED_CHECK,     /* a check fired: the report says which */
  EMU_FAILED_NO_MEMORY, /* host memory for the launch ran out: shared memory, thread stacks, the checks' shadow */
  EMU_FAILED_LAUNCH,    /* a grid dimension outside 1 to GRID_MAX_X (x) or GRID_MAX_YZ (y, z), or num_warps
                           outside 1 to 32 */
} EmuFailure;

/* Runs one launch. true when it ran to the end and no check fired; false
 * otherwise, with a malloc'd report in *report (kernel, block, thread,
 * address or source line, as known; NULL when memory ran out) and, when
 * why is not NULL, the kind of failure in *why. */
bool emu_launch(EmuKernel *k, const EmuLaunch *launch, char **report, EmuFailure *why);

void emu_unload(EmuKernel *k);

/* The object code emu_load compiled for the host (NULL for a kernel made
 * by emu_load_object): what a cache keeps so that a later load skips the
 * compilation. */
const void *emu_object(const EmuKernel *k, size_t *len);
bool emu_uses_fibers(const EmuKernel *k);

/* Loads a kernel from object code: what tilec_compile gives with
 * TILEC_EMIT_CPU, or what emu_object gave. Straight into memory
 * (emu/elfload.h) when the loader takes the object, else through the JIT.
 * The object says whether the kernel's threads must run as fibers
 * (tilec_emu_fibers); without that symbol they do. NULL with a malloc'd
 * message on failure, as emu_load. */
EmuKernel *emu_load_object(const void *object, size_t len, const char *kernel, char **err);
/* Whether the kernel was loaded straight into memory, without the JIT. */
bool emu_loaded_directly(const EmuKernel *k);

#endif
