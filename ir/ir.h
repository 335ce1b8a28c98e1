/*
 * ir.h — the tile IR: one internal header for ir/ and passes/.
 *
 * The IR is MLIR: builtin tensors of scalars or of !tile.ptr<T>, upstream
 * arith/math/scf for computation and control flow, and the `tile` dialect
 * (ir/tile.irdl, loaded at run time) for what is specific to tiles. IRDL ops
 * carry no traits, so what passes need to know about tile ops — pure or not,
 * memory effects, regions — is in the table below.
 */
#ifndef TILEC_IR_H
#define TILEC_IR_H

#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>

#include "support/support.h"
#include "support/dtype.h"
#include "ir/target.h"

struct CgCache;
struct AxisAnalysis;

/* Properties of tile ops. */
enum {
  OP_PURE = 1,       /* no side effects: removable when unused, CSE-able */
  OP_READS = 2,      /* reads memory */
  OP_WRITES = 4,     /* writes memory (or has another effect: print, assert) */
  OP_REGION = 8,     /* has a combiner region */
  OP_SEGMENTS = 16,  /* several optional/variadic operand groups: needs operandSegmentSizes */
  OP_PURE_IF_MARKED = 32, /* pure when it carries the unit attribute `pure` (inline assembly
                             the kernel declares free of side effects), else it has effects */
};

#define TILE_OPS(X)                                                                        \
  X(program_id, OP_PURE) X(num_programs, OP_PURE) X(make_range, OP_PURE) X(splat, OP_PURE)  \
  X(broadcast, OP_PURE) X(expand_dims, OP_PURE) X(reshape, OP_PURE) X(trans, OP_PURE)        \
  X(join, OP_PURE) X(split, OP_PURE) X(cat, OP_PURE) X(addptr, OP_PURE)                      \
  X(load, OP_READS | OP_SEGMENTS) X(store, OP_WRITES) X(atomic_rmw, OP_READS | OP_WRITES)   \
  X(atomic_cas, OP_READS | OP_WRITES) X(dot, OP_PURE) X(reduce, OP_PURE | OP_REGION | OP_SEGMENTS)         \
  X(scan, OP_PURE | OP_REGION | OP_SEGMENTS) X(convert_layout, OP_PURE)                                    \
  X(make_block_ptr, OP_PURE | OP_SEGMENTS) X(advance, OP_PURE)                               \
  X(make_tensor_descriptor, OP_PURE | OP_SEGMENTS) X(descriptor_load, OP_READS)              \
  X(descriptor_store, OP_WRITES) X(extern_elementwise, OP_PURE | OP_SEGMENTS)            \
  X(print, OP_WRITES | OP_SEGMENTS) X(assert, OP_WRITES) X(barrier, OP_WRITES) X(gdc, OP_WRITES) X(assume, OP_WRITES)        \
  X(multiple_of, OP_PURE) X(max_contiguous, OP_PURE) X(max_constancy, OP_PURE)               \
  X(ptr_to_int, OP_PURE) X(int_to_ptr, OP_PURE) X(bitcast, OP_PURE) X(mulhiui, OP_PURE) X(philox, OP_PURE) \
  X(elementwise_inline_asm, OP_PURE_IF_MARKED | OP_SEGMENTS)

typedef enum TileOp {
#define X(name, flags) TOP_##name,
  TILE_OPS(X)
#undef X
  TOP_COUNT,
  TOP_NONE = -1, /* not a tile op */
} TileOp;

/* The tile op an operation is, or TOP_NONE. */
TileOp tile_op_of(MlirOperation op);
const char *tile_op_name(TileOp t); /* "tile.load" */
int tile_op_flags(TileOp t);

/* A context with every dialect tilec uses loaded, and the tile dialect. */
typedef struct IrContext IrContext;
IrContext *ir_context_create(void);
void ir_context_destroy(IrContext *ic);
/* MLIR's canonicalizer, made once per context (its patterns take time to set up). */
MlirPassManager ir_canonicalizer(IrContext *ic);
/* A pass pipeline from its textual form, parsed once per context and kept;
 * the null pass manager, with the parser's message in err, when the text
 * does not parse. */
MlirPassManager ir_pipeline(IrContext *ic, const char *text, StrBuf *err);
MlirContext ir_mlir(IrContext *ic);

/* MLIR's diagnostics go to d while set (source locations map back to the
 * kernel's file, with its line and caret); internal: the IR is tilec's own,
 * made from a kernel, so that an error in it is an internal error. */
void ir_capture_diagnostics(IrContext *ic, Diags *d, const Source *src, bool internal);

/* Types and attributes. */
MlirType ir_scalar_type(IrContext *ic, DType dt);
const char *ir_scalar_name(DType dt); /* "f32", "i8" (unsigned types too) */
MlirType ir_parse_type(IrContext *ic, const char *text); /* cached */
MlirAttribute ir_parse_attr(IrContext *ic, const char *text);

/* Verifies upstream invariants and the tile rules IRDL cannot express. */
bool ir_verify(IrContext *ic, MlirOperation module, Diags *d);

/* Prints a type to sb (IRDL types have no accessors: passes read the text). */
void ir_type_text(StrBuf *sb, MlirType t);
void ir_attr_text(StrBuf *sb, MlirAttribute a);
/* The same text, printed once per context and kept as long as it lives. */
const char *ir_type_str(IrContext *ic, MlirType t);
const char *ir_attr_str(IrContext *ic, MlirAttribute a);
/* T of !tile.ptr<T> (a scalar or, for a block pointer, a tensor type); the
 * null type for any other type. */
MlirType ir_pointee(IrContext *ic, MlirType t);
/* The innermost file position of a location (the callee end of call sites). */
bool ir_file_pos(MlirLocation l, const char **file, size_t *flen, int *line, int *col);

/* Prints an operation with source locations to sb. */
void ir_print(StrBuf *sb, MlirOperation op, bool with_locations);
/* A 64-bit hash of op and everything in it: op names, attributes, types,
 * which value each operand is, the shape of regions and blocks (not the
 * locations). Equal IR hashes equal in any process. */
uint64_t ir_hash(IrContext *ic, MlirOperation op);

/* ---- the state of a compilation that passes and codegen read ------------------------ */

typedef struct Compilation {
  IrContext *ic;
  Arena *a;               /* what the compilation allocates, freed with it */
  Diags *d;
  const Source *src;      /* the kernel's file (NULL for IR text) */
  const Target *target;   /* resolved once, from the options' arch */
  int num_warps;
  int threads_per_warp;   /* the target's */
  int ptx_isa;            /* the PTX ISA version the code needs if newer than the target's
                             (84 for fp8 mma.sync), set by the lowering; else 0 */
  struct CgCache *cg;     /* the code generator's state kept with the context (codegen.h) */
  StageClock *clock;      /* the time of each stage, when asked */
  struct AxisAnalysis *axis; /* the axis-analysis stage's result, for the lowering */
  /* the dump request: the IR after each stage named dump_after goes to dump */
  const char *dump_after;
  StrBuf *dump;
  bool verify_each;       /* verify the IR after every stage, not only at the ends */
  bool fp_fusion;         /* a float multiply and add may fuse (Triton's enable_fp_fusion) */
  /* operand conversions a loop does not compute go before it (remove-layout-conversions)
   * unless keep_operands is set: the compilation is run again so when the buffers they
   * keep across the loop took more shared memory than the target has (shared_overflow) */
  bool keep_operands, hoisted, shared_overflow;
} Compilation;

/* ---- ops, for passes and codegen (util.c) -------------------------------------------- */

bool op_is(MlirOperation op, const char *name);
bool op_is_pure(MlirOperation op);        /* no side effects: removable, CSE-able, hoistable */
bool op_is_plain_load(MlirOperation op);  /* a tile.load that only reads (not volatile): removable, mergeable, movable */
/* Pure, without regions, its results tensors of the shape of every tensor
 * operand, of which it has one at least: what acts element by element when
 * its kind does (the callers name the kinds). */
bool op_is_shape_preserving(MlirOperation op);
bool op_results_unused(MlirOperation op);
void op_erase(MlirOperation op);
int64_t op_int_attr(MlirOperation op, const char *name, int64_t dflt);
/* op's attributes but those named in skip (NULL-terminated), into out (at
 * most cap of them): how many. For an op remade with other operands. */
int op_attrs_except(MlirOperation op, const char *const *skip, MlirNamedAttribute *out, int cap);
MlirOperation value_owner(MlirValue v);    /* defining op, or null for block arguments */
bool value_is_zero(MlirValue v);           /* a constant tensor of zeros (+0.0 for floats) */
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

#endif
