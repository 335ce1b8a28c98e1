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

/* ---- irgen internals (irgen.c, irgen_expr.c, irgen_call.c, irgen_stmt.c) ---- */
#ifdef TILEC_IRGEN_INTERNAL

typedef struct Gen {
  IrContext *ic;
  MlirContext ctx;
  Arena *a;
  Diags *d;
  const Kernel *k;
  MlirValue *vals; /* by Var id */
  MlirBlock block; /* where ops are appended */
  /* Regions being filled, not yet given to their op: destroyed if an error
   * unwinds, as nothing else owns them. Up to two per level of nesting
   * (a while's condition and body), which the language bounds, not this
   * array. */
  MlirRegion *pending;
  int npending, cap_pending;
} Gen;

/* The attributes of an op being built. */
typedef struct Attrs {
  MlirNamedAttribute v[12];
  int n;
} Attrs;

/* irgen.c: errors, locations, and building ops */
_Noreturn void irgen_error(Gen *G, const TNode *at, const char *fmt, const char *arg);
MlirLocation irgen_loc(Gen *G, const TNode *t);
MlirRegion irgen_new_region(Gen *G); /* pending until the op built with it owns it */
void irgen_attr(Gen *G, Attrs *as, const char *name, MlirAttribute a);
MlirAttribute irgen_i32_attr(Gen *G, int64_t v);
MlirAttribute irgen_i64_attr(Gen *G, int64_t v);
MlirAttribute irgen_str_attr(Gen *G, const char *s);
MlirAttribute irgen_i32_list(Gen *G, const IntList *l);
/* An op appended to G->block. as may be NULL. */
MlirOperation irgen_build(Gen *G, const char *name, MlirLocation loc, int nres, const MlirType *res,
                          int nops, const MlirValue *ops, Attrs *as, int nregions, MlirRegion *regions);
MlirValue irgen_op1(Gen *G, const char *name, MlirLocation loc, MlirType ty, int nops, const MlirValue *ops, Attrs *as);
MlirValue irgen_un(Gen *G, const char *name, MlirLocation loc, MlirType ty, MlirValue x);
MlirValue irgen_bin(Gen *G, const char *name, MlirLocation loc, MlirValue x, MlirValue y);
/* x / y of floats: IEEE, or (!ieee) allowed to be approximate, which fp32
 * lowers to div.full.f32 (Triton's `/` and tl.fdiv) */
typedef enum { DIV_FULL, DIV_IEEE, DIV_APPROX } DivKind; /* irgen_divf's division */
MlirValue irgen_divf(Gen *G, MlirLocation loc, MlirValue x, MlirValue y, DivKind kind);
MlirType irgen_type(Gen *G, const Type *t);
MlirValue irgen_constant(Gen *G, MlirLocation loc, MlirType ty, int64_t i, double f);
DType irgen_dt_of(const Type *t); /* its element's dtype */
bool irgen_is_unsigned(const Type *t);

/* irgen_expr.c */
MlirValue irgen_expr(Gen *G, const TNode *e);
MlirType irgen_with_elem(Gen *G, MlirType t, MlirType el);
/* irgen_call.c: a call with one or several results (written to res); how many */
int irgen_call(Gen *G, const TNode *e, MlirValue *res);
/* irgen_stmt.c; top: the kernel's own body */
void irgen_block(Gen *G, const TNodeList *l, bool top);

#endif
#endif
