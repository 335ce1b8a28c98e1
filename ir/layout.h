/*
 * layout.h — the layout model: the tensor encodings of tile IR with layouts
 * in the C form that passes and codegen read (layout.c).
 */
#ifndef TILEC_LAYOUT_H
#define TILEC_LAYOUT_H

#include "ir.h"

/* ---- layouts ----------------------------------------------------------------- */

typedef enum LayoutKind { L_NONE, L_BLOCKED, L_SLICE, L_DOT_OP, L_MMA, L_SHARED } LayoutKind;

typedef struct Layout {
  LayoutKind kind;
  int rank;
  int spt[MAX_RANK], tpw[MAX_RANK], wpc[MAX_RANK], order[MAX_RANK];
  int dim;                 /* slice: the removed dimension; dot_op: operand index */
  int k_width;             /* dot_op */
  int version;             /* mma: 2 (mma.sync) */
  int instr[MAX_RANK];     /* mma: the instruction's shape of the result, [16, 8] (batched: [1, 16, 8]) */
  const struct Layout *parent; /* slice, dot_op */
} Layout;

/* Triton's default blocked layout for a shape (sizePerThread all 1 unless given). */
Layout layout_blocked(Compilation *comp, int rank, const int64_t *shape, const int *spt, const int *order);
MlirAttribute layout_attr(Compilation *comp, const Layout *l);
bool layout_of_type(Compilation *comp, MlirType t, Layout *out); /* false: no encoding */
bool layout_equal(const Layout *a, const Layout *b);
MlirType with_layout(Compilation *comp, MlirType t, MlirAttribute layout); /* tensor types only */
MlirType without_layout(MlirType t);
MlirAttribute type_layout(MlirType t); /* null attribute when none */
/* Bytes per element a pointer (or a tensor of pointers) points to; 1 for
 * anything else. */
int64_t pointee_bytes(Compilation *comp, MlirType t);
/* The conversion to a tensor-core operand (a dot_op layout of an MMA
 * layout) that a load's value reaches in the load's block: directly, or
 * through a 2-D transpose to a 16-bit float B (*trans: attention's K^T);
 * null when none. Every use of the value must be such a conversion (one
 * shared copy that each dot reads its own way: attention backward's Q^T,
 * B of one dot and, transposed, of another), the buffer lying the same way
 * for each (operand_cols); the one returned is the first use's. What the
 * pipeliner marks and the lowering copies. */
MlirOperation operand_conversion(Compilation *comp, MlirOperation load, bool *trans);
/* The dimension of the load that runs along the rows of the operand buffer
 * its conversion cv reads: A's K; a 16-bit B's as the load lies (its
 * fastest dimension, by default the last), read by ldmatrix with or
 * without .trans; other B's K. */
int operand_cols(Compilation *comp, MlirOperation load, MlirOperation cv, bool trans);
/* Whether the buffer of B that load fills for its conversion cv lies [N][K],
 * K contiguous (read by ldmatrix without .trans): its rows run along K
 * (x @ W with W stored [N][K], nn.Linear's weight, as tutorial 09 passes b;
 * attention's K^T). */
bool operand_kn(Compilation *comp, MlirOperation load, MlirOperation cv, bool trans);

#endif
