/*
 * emu_internal.h — what emu.c (the C side of GPU operations, running) and
 * load.c (loading a kernel's code) share.
 */
#ifndef TILEC_EMU_INTERNAL_H
#define TILEC_EMU_INTERNAL_H

#include "emu.h"
#include "elfload.h"

#include <stdint.h>
#include <string.h>

#include <llvm-c/Orc.h>

struct EmuKernel {
  LLVMOrcJITDylibRef jd; /* the kernel's own library in the process's JIT */
  ElfImage *image;       /* or its object code, loaded without the JIT (elfload.h) */
  void *object;          /* its object code, as compiled from IR (NULL when loaded from one) */
  size_t object_len;
  void (*entry)(void **args);
  int64_t shared_bytes;
  bool fibers; /* barriers or warp collectives: the threads of a block need fibers */
  bool async_proxy; /* wgmma: shared memory's async proxy is checked (asyncproxy.h) */
  char *name;
  const char **sites; /* "file:line:col" of each global access, by site number */
  int nsites;
};

/* The C implementation of a function a kernel calls, by its name; NULL
 * for one the emulator does not implement. */
void *emu_bind(const char *name, size_t len);
/* The same for the conversions and math (math.c). */
void *emu_bind_math(const char *name, size_t len);

/* A table of C functions by name. */
typedef struct Named {
  const char *name;
  void *fn;
} Named;

#define FN(f) ((void *)(uintptr_t)(f))

static inline void *emu_find(const Named *t, size_t n, const char *name, size_t len) {
  for (size_t i = 0; i < n; i++)
    if (strlen(t[i].name) == len && !memcmp(t[i].name, name, len)) return t[i].fn;
  return NULL;
}

#endif
