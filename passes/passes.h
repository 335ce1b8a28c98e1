/*
 * passes.h — passes on tile IR, one per file, and what they share.
 *
 * A pass is a function of the module; the pipeline's table of stages
 * (compile/pipeline.c) names them, calls them in order and can dump the IR
 * after any of them. Each file's first
 * comment says what the pass requires and what it guarantees.
 */
#ifndef TILEC_PASSES_H
#define TILEC_PASSES_H

#include "ir/axis_info.h"
#include "ir/layout.h"

bool pass_tma_lowering(Compilation *comp, MlirOperation module);
bool pass_rewrite_block_pointers(Compilation *comp, MlirOperation module);
/* What rewrite-block-pointers and tma-lowering share: the loads and stores
 * through block pointers (a scalar pointer operand); the chain from
 * make_block_ptr through advances (at most 64) to one, false when it is
 * none (a loop's or a branch's); and the chain's ops no longer read, erased. */
void block_ptr_accesses(Compilation *comp, MlirOperation module, PtrVec *out);
bool block_ptr_chain(MlirValue ptr, MlirOperation *make, MlirOperation *adv, int *nadv);
void block_ptr_chain_erase(MlirOperation make, const MlirOperation *adv, int nadv);
bool pass_canonicalize(Compilation *comp, MlirOperation module);
bool pass_cse(Compilation *comp, MlirOperation module);
bool pass_dce(Compilation *comp, MlirOperation module);
bool pass_licm(Compilation *comp, MlirOperation module);
bool pass_axis_info(Compilation *comp, MlirOperation module);
bool pass_convert_to_gpu(Compilation *comp, MlirOperation module);
bool pass_coalesce(Compilation *comp, MlirOperation module);
bool pass_accelerate_matmul(Compilation *comp, MlirOperation module);
bool pass_remove_layout_conversions(Compilation *comp, MlirOperation module);
bool propagate_layouts(Compilation *comp, MlirOperation module); /* its first step: loads' layouts carried forward */
/* A transpose's layouts (propagate_layouts.c): its result's from its
 * operand's (forward) or its operand's from its result's (back), blocked
 * only: result dim d is operand dim order[d]. */
bool trans_layout(MlirOperation op, const Layout *l, bool forward, Layout *out);
bool pass_pipeline(Compilation *comp, MlirOperation module);

#endif
