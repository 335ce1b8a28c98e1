/*
 * tma_lowering.c — loads and stores through host tensor descriptors as
 * TMA copies on sm_90 and later, as Triton's TMALowering does.
 *
 * Requires: tile IR without layouts, before rewrite-block-pointers (irgen
 * makes a host descriptor `tensordesc<T[B0, ..]>` the block pointer
 * tile.make_block_ptr(base, shape.., strides..) of the kernel's own
 * consecutive parameters, at the origin, each access an advance by its
 * offsets with every dimension bounds-checked). Guarantees: on a target
 * with TMA (sm_90 and later), such a tile.load becomes
 *
 *     tile.descriptor_load(base, o_0, .., o_{r-1}) {param = P}
 *
 * and such a tile.store tile.descriptor_store(base, value, o_0, ..)
 * {param = P}, o_d the block's offset along d (i32) and P the kernel
 * parameter of the descriptor's base (`nan` marks a load whose padding is
 * NaN). The lowering copies through tensor maps the kernel takes after
 * its parameters, which the host builds from the base, shape and strides
 * (codegen/lower_tma.c). The accesses the hardware cannot serve stay as
 * they are: an element of other than 1, 2, 4 or 8 bytes, a box row of
 * other than a multiple of 16 bytes, a box past 256 along a dimension, a
 * rank past 5. So do the loads inside a loop the pipeliner runs ahead
 * (stages of 2 or more), which it copies by cp.async, but on a target
 * with wgmma (sm_90a) those of a 2-D 16-bit dot operand, which it copies
 * into the operand's slots by TMA.
 */
#include "passes.h"

#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

static MlirStringRef sref(const char *s) { return mlirStringRefCreateFromCString(s); }

typedef struct Tma {
  Compilation *comp;
  MlirContext ctx;
  PtrVec accesses;
} Tma;

/* The kernel parameter v is, or -1. */
static int param_of(MlirValue v) {
  if (!mlirValueIsABlockArgument(v)) return -1;
  MlirOperation owner = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
  return op_is(owner, "func.func") ? (int)mlirBlockArgumentGetArgNumber(v) : -1;
}

/* A host descriptor's block pointer: its base, shape and strides the
 * parameters p, p+1, .., p+2r in order (the last stride the constant 1),
 * its offsets constants 0. */
static int host_descriptor(MlirOperation make, int r) {
  if (mlirOperationGetNumOperands(make) != 1 + 3 * (intptr_t)r) return -1;
  int p = param_of(mlirOperationGetOperand(make, 0));
  if (p < 0) return -1;
  for (int i = 1; i <= 2 * r; i++) {
    int64_t one;
    /* the last stride is the constant 1 the descriptor's contract makes it (frontend/sema.c) */
    if (i == 2 * r && splat_int_constant(mlirOperationGetOperand(make, i), &one) && one == 1) continue;
    if (param_of(mlirOperationGetOperand(make, i)) != p + i) return -1;
  }
  for (int d = 0; d < r; d++) {
    int64_t c;
    if (!splat_int_constant(mlirOperationGetOperand(make, 1 + 2 * r + d), &c) || c) return -1;
  }
  return p;
}

/* Whether the hardware copies a box of type t (rank, element size, the
 * 16-byte rows, at most 256 elements along each dimension). */
static bool box_ok(MlirType t) {
  MlirType et = mlirShapedTypeGetElementType(t);
  int r = (int)mlirShapedTypeGetRank(t);
  int bits = mlirTypeIsAInteger(et) ? (int)mlirIntegerTypeGetWidth(et) : mlirTypeIsAFloat(et) ? (int)mlirFloatTypeGetWidth(et) : 0;
  if (r < 1 || r > 5 || (bits != 8 && bits != 16 && bits != 32 && bits != 64)) return false;
  for (int d = 0; d < r; d++)
    if (mlirShapedTypeGetDimSize(t, d) > 256) return false;
  return mlirShapedTypeGetDimSize(t, r - 1) * bits / 8 % 16 == 0;
}

/* Whether op sits in a loop the pipeliner may run ahead. */
static bool in_pipelined_loop(MlirOperation op) {
  int64_t kernel = 0;
  for (MlirOperation f = op; !mlirOperationIsNull(f); f = mlirOperationGetParentOperation(f))
    if (op_is(f, "func.func")) kernel = op_int_attr(f, "tile.num_stages", 0);
  for (MlirOperation f = mlirOperationGetParentOperation(op); !mlirOperationIsNull(f); f = mlirOperationGetParentOperation(f))
    if (op_is(f, "scf.for") && op_int_attr(f, "tile.num_stages", kernel) >= 2) return true;
  return false;
}

/* Whether a load's only use is a tl.dot operand, directly or through a
 * transpose, in 16 bits and 2-D: what the pipeliner copies into the
 * operand's slots (passes/pipeline.c). */
static bool feeds_dot(MlirOperation op, MlirType block) {
  MlirType et = mlirShapedTypeGetElementType(block);
  if (mlirShapedTypeGetRank(block) != 2 || !(mlirTypeIsAF16(et) || mlirTypeIsABF16(et))) return false;
  MlirValue v = mlirOperationGetResult(op, 0);
  for (;;) {
    MlirOpOperand u = mlirValueGetFirstUse(v);
    if (mlirOpOperandIsNull(u) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(u))) return false;
    MlirOperation w = mlirOpOperandGetOwner(u);
    if (tile_op_of(w) == TOP_dot) return mlirOpOperandGetOperandNumber(u) < 2;
    if (tile_op_of(w) != TOP_trans) return false;
    v = mlirOperationGetResult(w, 0);
  }
}

static void rewrite(Tma *m, MlirOperation op) {
  bool is_load = tile_op_of(op) == TOP_load;
  MlirValue bp = mlirOperationGetOperand(op, 0);
  MlirOperation make, adv[64];
  int nadv = 0;
  if (!block_ptr_chain(bp, &make, adv, &nadv)) return;
  MlirType block = ir_pointee(m->comp->ic, mlirValueGetType(bp));
  if (mlirTypeIsNull(block) || !mlirTypeIsARankedTensor(block) || !box_ok(block)) return;
  int r = (int)mlirShapedTypeGetRank(block);
  int p = host_descriptor(make, r);
  if (p < 0) return;
  /* every dimension bounds-checked: the map's bounds are the tensor's */
  MlirAttribute bc = mlirOperationGetAttributeByName(op, sref("boundary_check"));
  unsigned checked = 0;
  for (intptr_t i = 0; !mlirAttributeIsNull(bc) && i < mlirDenseArrayGetNumElements(bc); i++) {
    int d = mlirDenseI32ArrayGetElement(bc, i);
    if (d >= 0 && d < r) checked |= 1u << d;
  }
  if (checked != (1u << r) - 1) return;
  if (is_load && (mlirOperationGetNumOperands(op) != 1 ||
                  (in_pipelined_loop(op) && !(m->comp->target->wgmma && feeds_dot(op, block)))))
    return;
  MlirAttribute pad = mlirOperationGetAttributeByName(op, sref("padding"));
  bool nan = is_load && !mlirAttributeIsNull(pad) && mlirStringAttrGetValue(pad).length == 3 &&
             mlirTypeIsAFloat(mlirShapedTypeGetElementType(block));
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirType i32 = mlirIntegerTypeGet(m->ctx, 32);
  MlirValue ops[2 + MAX_RANK];
  int n = 0;
  ops[n++] = mlirOperationGetOperand(make, 0);
  if (!is_load) ops[n++] = mlirOperationGetOperand(op, 1);
  for (int d = 0; d < r; d++) {
    /* the offsets of the advances, i32 as tl.advance's and desc.load's are */
    MlirValue off = mlirOperationGetOperand(make, 1 + 2 * r + d);
    for (int i = nadv - 1; i >= 0; i--) {
      MlirValue o = mlirOperationGetOperand(adv[i], 1 + d);
      if (!mlirTypeEqual(mlirValueGetType(o), i32))
        o = mlirOperationGetResult(create_before(op, "arith.trunci", loc, 1, &i32, 1, &o, 0, NULL), 0);
      off = mlirOperationGetResult(create_before(op, "arith.addi", loc, 1, &i32, 2, (MlirValue[]){off, o}, 0, NULL), 0);
    }
    ops[n++] = off;
  }
  MlirNamedAttribute attrs[16];
  int na = op_attrs_except(op, (const char *const[]){"boundary_check", "padding", "operandSegmentSizes", NULL}, attrs, 15);
  attrs[na++] = mlirNamedAttributeGet(mlirIdentifierGet(m->ctx, sref("param")), mlirIntegerAttrGet(i32, p));
  if (nan) attrs[na++] = mlirNamedAttributeGet(mlirIdentifierGet(m->ctx, sref("nan")), mlirUnitAttrGet(m->ctx));
  if (is_load) {
    MlirOperation nl = create_before(op, "tile.descriptor_load", loc, 1, &block, n, ops, na, attrs);
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), mlirOperationGetResult(nl, 0));
  } else {
    create_before(op, "tile.descriptor_store", loc, 0, NULL, n, ops, na, attrs);
  }
  mlirOperationDestroy(op);
  block_ptr_chain_erase(make, adv, nadv);
}

bool pass_tma_lowering(Compilation *comp, MlirOperation module) {
  if (comp->target->sm < 90) return true;
  Tma m = {.comp = comp, .ctx = mlirOperationGetContext(module)};
  block_ptr_accesses(comp, module, &m.accesses);
  for (int i = 0; i < m.accesses.n; i++) rewrite(&m, (MlirOperation){m.accesses.v[i]});
  return true;
}
