/*
 * jit.h — what the JIT's disk cache keys hold besides a compilation's own
 * inputs (jit/jit.c), open to the tests that hold the keys to it.
 *
 * An entry must reach only a process that would have compiled the same
 * bytes: one running the same build of the compiler (its sources, tile
 * dialect and toolchain: tilec_build_id), on the same LLVM (a library
 * upgraded in place keeps its soname, and its code generation may differ),
 * and, for the CPU device, whose object code is compiled for the host CPU,
 * on a host of the same triple, CPU and features (code that uses AVX-512
 * must not reach a machine without it); for CUDA, with the same toolkit
 * (libdevice and nvJitLink).
 */
#ifndef TILEC_RUNTIME_JIT_H
#define TILEC_RUNTIME_JIT_H

#include "tilec/tilec.h"

#include <stdbool.h>

typedef struct JitIdentity {
  const char *build;   /* tilec_build_id() */
  const char *llvm;    /* the LLVM this process runs: "22.1.8" */
  const char *host;    /* the triple, CPU name and feature string the host's code is compiled for */
  const char *toolkit; /* the CUDA toolkit compiling for the GPU: its version.json, "" when there is none */
} JitIdentity;

/* The process's own, computed once. */
const JitIdentity *jit_identity(void);

/* The cache key of compiling `source` (named filename) with o, under id:
 * 64 hex digits in hex. host counts for the CPU's entries only (o->emit is
 * TILEC_EMIT_CPU), toolkit for the GPU's only. */
void jit_cache_key(const JitIdentity *id, const char *filename, const char *source, size_t length,
                   const tilec_compile_options *o, char hex[65]);

/* Makes the kernels of d read and write the disk cache as a process with
 * identity id would (the strings are copied; NULL: the process's own), so
 * that a test can put two builds on one cache. Not while d has kernels.
 * false when out of memory. */
bool jit_device_set_identity(tilec_device *d, const JitIdentity *id);

#endif
