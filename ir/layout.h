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
 * layout) that a load's value alone reaches, in the load's block: directly,
 * or through a 2-D transpose to a 16-bit float B (*trans: attention's K^T);
 * null when none. What the pipeliner marks and the lowering copies. */
MlirOperation operand_conversion(Compilation *comp, MlirOperation load, bool *trans);
/* Whether the buffer of B that load fills for its conversion cv lies [N][K],
 * K contiguous (read by ldmatrix without .trans): the load is of B
 * transposed (trans), or holds a 16-bit B with K its fastest dimension
 * (x @ W with W stored [N][K], nn.Linear's weight, as tutorial 09 passes b). */
bool operand_kn(Compilation *comp, MlirOperation load, MlirOperation cv, bool trans);

#endif
