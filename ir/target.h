/*
 * target.h — the GPU targets tilec compiles for, and what the passes and
 * the code generator need to know of each. The arch a compilation names is
 * resolved here once, into the compilation's target (ir.h's Compilation);
 * nothing after that looks a name up again.
 */
#ifndef TILEC_TARGET_H
#define TILEC_TARGET_H

#include <stdint.h>

typedef struct Target {
  const char *name;         /* "sm_80" .. "sm_90a" */
  int sm;                   /* the compute capability: 80 for sm_80, 90 for sm_90 and sm_90a */
  int threads_per_warp;     /* 32 on every NVIDIA GPU */
  int64_t max_shared;       /* the shared memory a block may have, opting in past 48 KiB */
  int ptx;                  /* the PTX ISA version its code declares, 80 for 8.0, unless
                               the code needs a newer one (Compilation.ptx_isa) */
  int wgmma;                /* 1 where the arch-specific features of sm_90a are there:
                               wgmma.mma_async (and setmaxnreg) */
} Target;

extern const Target targets[];
extern const int ntargets;
const Target *target_find(const char *name); /* NULL when unknown */

#endif
