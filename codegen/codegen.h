/*
 * codegen.h — tile IR with layouts to PTX, a cubin, or a host object.
 *
 *   tile-gpu --lower--> LLVM/NVVM dialect (one value per thread per element)
 *     --allocate-shared, insert-barriers--> (the kernel the GPU and the CPU share)
 *     --expand-for-gpu--> --to-llvm-dialect, to-llvm-ir--> LLVM IR
 *     --libdevice, llvm-passes--> --nvptx--> PTX text --cubin--> cubin
 *   or, for the CPU emulator, after insert-barriers:
 *     --retarget-host, to-llvm-dialect, to-llvm-ir, llvm-passes (O2)--> --host-object--> ELF
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

/* The target machine of the compilation's GPU target, or of the host
 * (host true); kept in comp->cg. NULL with a diagnostic when LLVM lacks
 * the target. */
LLVMTargetMachineRef cg_target_machine(Compilation *comp, bool host);

/* The stages of code generation, in the order compile/pipeline.c runs them.
 * Each says what it requires of the module and what it leaves. */

/* lower: the kernel of a tile-gpu module to a new module in the LLVM and
 * NVVM dialects (arith, math and scf still in it), one value per thread per
 * element; requires comp->axis (the axis-analysis stage). A null module
 * with diagnostics when an op has no lowering. Every use of shared memory
 * gets a buffer of its own (@tilec_smem_<n>, its size in tilec.bytes) and
 * every shared access is tagged with its buffer (tilec.smem = n); no
 * barriers are put for them (shared.c does). */
MlirModule cg_lower(Compilation *comp, MlirOperation tile_module);

/* allocate-shared: places the buffers in one (@tilec_smem), sharing memory
 * between buffers whose accesses do not overlap in time (intervals of the
 * program order, widened over loops they cross). The placement stays on
 * the kernel (tilec.smem_offsets, tilec.smem_sizes, tilec.shared_bytes), so
 * insert-barriers can run alone on IR text; a kernel needing more than the
 * target allows a block is an error at the kernel. */
bool cg_allocate_shared(Compilation *comp, MlirOperation llvm_module);

/* insert-barriers: a barrier before each access that would race with an
 * access since the last barrier (a read after a write, a write after a
 * read, of overlapping memory), through ifs and loops; never inside a
 * per-thread (tilec.divergent) condition. Requires allocate-shared. */
bool cg_insert_barriers(Compilation *comp, MlirOperation llvm_module);

/* Whether every tilec.* call of the module has a shape the lowering gives
 * it (calls.c); an error at the first that does not, naming pass. The
 * tails check this before they read the calls. */
bool cg_check_calls(Compilation *comp, MlirOperation llvm_module, const char *pass);
/* The C (and D) registers of tilec.mma.<name>, an mma.sync the lowering
 * makes (lower_mma.c): 4, or 2 for an f16 accumulator; 0 for another name. */
int cg_mma_c_regs(const char *name, size_t len);
/* A wgmma.mma_async call's form, from its name (lower_wgmma.c):
 * tilec.wgmma.m64n<n>k<k>.<dtype>.<atype>.<btype>[.areg][.tb]; the types
 * as PTX spells them. false for a name that is not one such instruction. */
typedef struct CgWgmma {
  int n, k, nd;               /* nd: D registers, n / 2 (n / 4 for f16) */
  char dtype[8], atype[8], btype[8];
  bool areg, tb;
} CgWgmma;
bool cg_wgmma_form(MlirStringRef name, CgWgmma *f);

/* expand-for-gpu: the tilec.* calls become predicated PTX for the target. */
bool cg_expand_for_gpu(Compilation *comp, MlirOperation llvm_module);

/* retarget-host (emu.c): the module for the CPU emulator: GPU operations
 * become calls the emulator binds, shared memory its per-block arena,
 * vector accesses scalar ones; adds the entry tilec_emu_entry(void **args)
 * and the tables the emulator reads. */
bool cg_retarget_host(Compilation *comp, MlirOperation llvm_module);

/* to-llvm-dialect: MLIR's conversions of scf, cf, arith and math to the
 * LLVM dialect, only those the module needs. */
bool cg_to_llvm_dialect(Compilation *comp, MlirOperation llvm_module);

/* Whether a loop of the module asks to be unrolled (tl.range's
 * loop_unroll_factor): LLVM's pass list then holds the unroller. */
bool cg_asks_unroll(MlirOperation llvm_module);

/* to-llvm-ir: the LLVM-dialect module to LLVM IR in lctx; NULL with a
 * diagnostic on failure. */
LLVMModuleRef cg_translate(Compilation *comp, MlirOperation llvm_module, LLVMContextRef lctx);

/* libdevice: when the kernel calls libdevice (__nv_*), links the toolkit's
 * libdevice.10.bc, its functions internal. */
bool cg_link_libdevice(Compilation *comp, LLVMModuleRef lm);

/* llvm-passes: the module gets the target machine's triple and data layout
 * and LLVM's pass list for a kernel (gpu.c says which), or O2 for the host;
 * false with a diagnostic on failure. */
bool cg_optimize(Compilation *comp, LLVMModuleRef lm, bool host, bool unroll);

/* nvptx: PTX text, appended to out. */
bool cg_emit_ptx(Compilation *comp, LLVMModuleRef lm, StrBuf *out);

/* host-object: an ELF object for the host (the emulator loads it), appended
 * to out. */
bool cg_emit_host_object(Compilation *comp, LLVMModuleRef lm, StrBuf *out);

/* cubin: PTX to a cubin through nvJitLink (dlopen'ed); appended to out. */
bool cg_cubin(Compilation *comp, const char *ptx, size_t len, StrBuf *out);

#endif
