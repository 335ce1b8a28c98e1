/*
 * target.c — the table of GPU targets (target.h).
 *
 * Shared memory per block with the opt-in, from the CUDA programming
 * guide's table of compute capabilities: 163 KiB on 8.0, 99 KiB on 8.6 and
 * 8.9, 227 KiB on 9.0. Only sm_90a, not sm_90, has wgmma (the "a": features
 * of that chip alone). sm_90a needs PTX 8.0; the others are content with it. Code that
 * needs more says so (fp8 mma.sync: 8.4), and only that code declares it,
 * so that every other kernel loads on drivers as old as 8.0's.
 */
#include "target.h"

#include <string.h>

const Target targets[] = {
    {"sm_80", 80, 32, 163 * 1024, 80}, {"sm_86", 86, 32, 99 * 1024, 80}, {"sm_89", 89, 32, 99 * 1024, 80},
    {"sm_90", 90, 32, 227 * 1024, 80}, {"sm_90a", 90, 32, 227 * 1024, 80, 1},
};
const int ntargets = (int)(sizeof targets / sizeof *targets);

const Target *target_find(const char *name) {
  for (int i = 0; name && i < ntargets; i++)
    if (!strcmp(targets[i].name, name)) return &targets[i];
  return NULL;
}
