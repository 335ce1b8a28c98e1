/*
 * codegen.h — tile IR with layouts to PTX.
 *
 *   tile-gpu --lower--> LLVM/NVVM dialect (one value per thread per element)
 *            --translate--> LLVM IR --O3--> NVPTX --> PTX text
 *
 * Memory accesses that need a predicate are calls to `tilec.*` functions in
 * the LLVM dialect; the GPU step expands them into PTX (the CPU emulator
 * binds the same names to C), so no inline assembly is in the IR the two
 * share.
 */
#ifndef TILEC_CODEGEN_H
#define TILEC_CODEGEN_H

#include "passes/passes.h"

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/* What the code generator keeps as long as a context lives: the target
 * machines, made on first use (each takes a tenth of a millisecond to set
 * up). Used by one compilation at a time, like the context. */
typedef struct CgCache CgCache;
CgCache *cg_cache_create(void);
void cg_cache_destroy(CgCache *c); /* NULL is allowed */

/* The GPU targets, sm_80 .. sm_90a, and what code generation needs to
 * know of each. */
typedef struct CgTarget {
  const char *name;
  int sm;             /* the compute capability: 80 for sm_80, 90 for sm_90 and sm_90a */
  int64_t max_shared; /* the shared memory a block may have, opting in past 48 KiB */
} CgTarget;
extern const CgTarget cg_targets[];
extern const int cg_ntargets;
const CgTarget *cg_target_find(const char *name); /* NULL when unknown */

/* The target machine for arch ("sm_80" .. "sm_90a"), or for the host
 * with arch NULL; kept in comp->cg. NULL with a diagnostic when LLVM lacks
 * the target. */
LLVMTargetMachineRef cg_target_machine(Compilation *comp, const char *arch);

/* Lowers the kernel of a tile-gpu module to a new module in the LLVM and
 * NVVM dialects; a null module with diagnostics when an op has no lowering. */
MlirModule cg_lower(Compilation *comp, MlirOperation tile_module, const char *arch);

/* Shared memory after lowering (shared.c). The lowering gives every use
 * a buffer (@tilec_smem_<n>) and tags each access with its buffer
 * (tilec.smem = n); it puts no barriers for them. */
typedef struct SharedPlan {
  int n;              /* buffers */
  int64_t *offset;    /* where buffer i lies in the kernel's one buffer */
  int64_t *size;
  int64_t total;      /* the kernel's shared bytes */
} SharedPlan;

/* allocate-shared: places the buffers in one (@tilec_smem), sharing memory
 * between buffers whose accesses do not overlap in time (intervals of the
 * program order, widened over loops they cross). */
bool cg_allocate_shared(Compilation *comp, MlirOperation llvm_module, SharedPlan *plan);

/* insert-barriers: a barrier before each access that would race with an
 * access since the last barrier (a read after a write, a write after a
 * read, of overlapping memory), through ifs and loops; never inside a
 * per-thread (tilec.divergent) condition. */
bool cg_insert_barriers(Compilation *comp, MlirOperation llvm_module, const SharedPlan *plan);

/* Expands the tilec.* calls for the GPU (predicated PTX). */
bool cg_expand_for_gpu(Compilation *comp, MlirOperation llvm_module, const char *arch);

/* The LLVM-dialect module (arith, math, scf and cf still in it) to LLVM IR
 * in lctx; NULL with a diagnostic on failure. */
LLVMModuleRef cg_translate(Compilation *comp, MlirOperation llvm_module, LLVMContextRef lctx);

/* Gives lm the target machine's triple and data layout and runs the LLVM
 * pass pipeline on it; false with a diagnostic on failure. */
bool cg_optimize(Compilation *comp, LLVMModuleRef lm, LLVMTargetMachineRef tm, const char *pipeline);

/* Retargets the lowered module to the host for the CPU emulator (emu.c):
 * GPU operations become calls the emulator binds, shared memory its
 * per-block arena, vector accesses scalar ones; adds the entry
 * tilec_emu_entry(void **args). Then LLVM IR text for the host, after O2,
 * appended to out. */
bool cg_emit_cpu(Compilation *comp, MlirOperation llvm_module, StrBuf *out);

/* LLVM dialect -> LLVM IR text (emit_llvm) or PTX text; appended to out. */
bool cg_emit(Compilation *comp, MlirOperation llvm_module, const char *arch, bool emit_llvm, StrBuf *out);

/* PTX to a cubin through nvJitLink (dlopen'ed); appended to out. */
bool cg_cubin(Compilation *comp, const char *ptx, size_t len, const char *arch, StrBuf *out);

#endif
