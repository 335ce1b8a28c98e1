/*
 * passes.h — passes on tile IR, one per file, and what they share.
 *
 * A pass is a function of the module; the pipeline (driver/pipeline.c) calls
 * them in order and can dump the IR after any of them. Each file's first
 * comment says what the pass requires and what it guarantees.
 */
#ifndef TILEC_PASSES_H
#define TILEC_PASSES_H

#include "../ir/ir.h"

typedef struct PassCtx {
  IrContext *ic;
  Arena *a;
  Diags *d;
  int num_warps;
  int threads_per_warp; /* 32 */
  struct CgCache *cg;   /* the code generator's state kept with the context (codegen.h) */
  StageClock *clock;    /* the time of each stage, when asked */
} PassCtx;

typedef bool (*PassFn)(PassCtx *pc, MlirOperation module);

typedef struct Pass {
  const char *name;
  PassFn run;
  const char *summary;
} Pass;

/* Every pass, in pipeline order; NULL-terminated. */
extern const Pass pass_list[];
const Pass *pass_find(const char *name);

bool pass_canonicalize(PassCtx *pc, MlirOperation module);
bool pass_cse(PassCtx *pc, MlirOperation module);
bool pass_dce(PassCtx *pc, MlirOperation module);
bool pass_licm(PassCtx *pc, MlirOperation module);
bool pass_axis_info(PassCtx *pc, MlirOperation module);
bool pass_convert_to_gpu(PassCtx *pc, MlirOperation module);
bool pass_coalesce(PassCtx *pc, MlirOperation module);
bool pass_remove_layout_conversions(PassCtx *pc, MlirOperation module);

/* ---- shared helpers (passes/util.c) -------------------------------------------- */

bool op_is(MlirOperation op, const char *name);
bool op_is_pure(MlirOperation op);        /* no side effects: removable, CSE-able, hoistable */
bool op_results_unused(MlirOperation op);
void op_erase(MlirOperation op);
int64_t op_int_attr(MlirOperation op, const char *name, int64_t dflt);
MlirOperation value_owner(MlirValue v);    /* defining op, or null for block arguments */
bool value_defined_in(MlirValue v, MlirOperation region_op); /* inside region_op's regions */
/* Calls fn on every op in post-order (operands before users within a block). */
typedef void (*OpFn)(MlirOperation op, void *user);
void walk_ops(MlirOperation root, OpFn fn, void *user, bool post_order);
/* The ops of a block, collected first, so the block can change while visited. */
int block_ops(Arena *a, MlirBlock b, MlirOperation **out);
MlirOperation create_before(MlirOperation before, const char *name, MlirLocation loc, int nres,
                            const MlirType *res, int nops, const MlirValue *ops, int nattrs,
                            const MlirNamedAttribute *attrs);
MlirValue const_int_value(MlirValue v, bool *ok); /* the op's arith.constant (scalar or splat) */
bool splat_int_constant(MlirValue v, int64_t *out); /* arith.constant splat or scalar */

/* ---- layouts ----------------------------------------------------------------- */

typedef enum LayoutKind { L_NONE, L_BLOCKED, L_SLICE, L_DOT_OP, L_MMA, L_SHARED } LayoutKind;

typedef struct Layout {
  LayoutKind kind;
  int rank;
  int spt[MAX_RANK], tpw[MAX_RANK], wpc[MAX_RANK], order[MAX_RANK];
  int dim;                 /* slice: the removed dimension; dot_op: operand index */
  int k_width;             /* dot_op */
  const struct Layout *parent; /* slice, dot_op */
} Layout;

/* Triton's default blocked layout for a shape (sizePerThread all 1 unless given). */
Layout layout_blocked(PassCtx *pc, int rank, const int64_t *shape, const int *spt, const int *order);
MlirAttribute layout_attr(PassCtx *pc, const Layout *l);
bool layout_of_type(PassCtx *pc, MlirType t, Layout *out); /* false: no encoding */
bool layout_equal(const Layout *a, const Layout *b);
MlirType with_layout(PassCtx *pc, MlirType t, MlirAttribute layout); /* tensor types only */
MlirType without_layout(MlirType t);
MlirAttribute type_layout(MlirType t); /* null attribute when none */
/* Bytes per element a pointer (or a tensor of pointers) points to; 1 for
 * anything else. */
int64_t pointee_bytes(PassCtx *pc, MlirType t);

/* ---- axis info (passes/axis_info.c) --------------------------------------------- */

typedef struct AxisInfo {
  int rank;
  int64_t contiguity[MAX_RANK];   /* runs of consecutive values (+1 each) along each dim */
  int64_t divisibility[MAX_RANK]; /* the first value of each run divides this (bytes for pointers) */
  int64_t constancy[MAX_RANK];    /* runs of equal values */
} AxisInfo;

typedef struct AxisAnalysis AxisAnalysis;
AxisAnalysis *axis_analyze(PassCtx *pc, MlirOperation module);
const AxisInfo *axis_info_of(AxisAnalysis *aa, MlirValue v); /* NULL when unknown */

#endif
