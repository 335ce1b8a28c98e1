/*
 * irgen.h — the typed AST to tile IR: the one place where the frontend's
 * data meets MLIR.
 */
#ifndef TILEC_IRGEN_H
#define TILEC_IRGEN_H

#include "frontend/frontend.h"
#include "ir/ir.h"

/* Builds the kernel as a builtin.module holding one func.func. */
MlirModule irgen_kernel(IrContext *ic, Arena *a, Diags *d, const Kernel *k);

#endif
