/*
 * lower_tma.c — tile.descriptor_load and tile.descriptor_store
 * (passes/tma_lowering.c) as TMA copies: cp.async.bulk.tensor between a
 * tensor map the host built and a box in shared memory, as Triton lowers
 * a descriptor access outside a pipelined loop.
 *
 * The kernel's maps are its last parameters, one per entry of the
 * function's tile.tensormaps, each a 128-byte CUtensorMap passed by value
 * (`.param .align 64 .b8 [128]`, a grid constant whose generic address
 * the copies take).
 *
 * A load has a box buffer of its own (dense, rows of the block's last
 * dimension, 128-byte aligned, no swizzle) and an mbarrier, which thread 0
 * initializes once, at the kernel's start, for one arrival. Each time the
 * load runs: a barrier (the threads' reads of the box from the last time
 * are done, and the mbarrier's initialization is seen); thread 0 arms the
 * mbarrier with the box's bytes and issues the copy; every thread waits
 * for the phase, whose parity the kernel keeps (a local the optimizer puts
 * in a register: 0, 1, 0, ... each time), then reads its elements. The
 * bytes outside the tensor are the map's fill.
 *
 * A store: every thread writes its elements to the box's buffer, makes
 * them visible to the async proxy (fence.proxy.async), a barrier, then
 * thread 0 issues the copy, commits it and waits until it has read the
 * box; a barrier after, so that whatever next writes that memory does so
 * after the copy read it. The copy drops the elements outside the tensor.
 *
 * The buffers' accesses by the copies and the mbarrier's initialization
 * and arming are tagged tilec.smem with tilec.async: allocate-shared keeps
 * the memory theirs while they use it; insert-barriers leaves them to the
 * barriers here. The wait is an ordinary read of the mbarrier, so that
 * memory placed over it later is written after every thread's wait.
 */
#include "lower.h"

static MlirType ptr3(Lower *L) { return mlirLLVMPointerTypeGet(L->ctx, 3); }

/* A call whose shared-memory operand at `base` is the copy's or the
 * mbarrier's, not a generic access. */
static MlirOperation async_call(Lower *L, const char *name, MlirType ret, int n, const MlirValue *args, MlirValue base) {
  MlirOperation op = lw_call_op(L, name, ret, n, args);
  lw_tag_smem(L, op, base);
  mlirOperationSetAttributeByName(op, str("tilec.async"), mlirUnitAttrGet(L->ctx));
  return op;
}

static MlirValue thread0(Lower *L) { return lw_cmp_u32(L, 0 /* eq */, L->tid, lw_const_i32(L, 0)); }

static void barrier(Lower *L) { lw_emit(L, "nvvm.barrier0", 0, NULL, 0, NULL, 0, NULL); }

/* The map of op (its tensormap attribute), or a null value when the kernel
 * has none of that number. */
static MlirValue map_of(Lower *L, MlirOperation op) {
  int64_t m = op_int_attr(op, "tensormap", -1);
  return m >= 0 && m < L->nmaps ? L->maps[m] : (MlirValue){NULL};
}

/* The coordinates of the box, innermost first, as the copy takes them. */
static int coords(Lower *L, MlirOperation op, int first, int r, MlirValue *out) {
  for (int d = 0; d < r; d++) out[d] = lw_val(L, lw_get(L, mlirOperationGetOperand(op, first + r - 1 - d)), 0);
  return r;
}

void lw_lower_tma_load(Lower *L, MlirOperation op) {
  MlirValue r = mlirOperationGetResult(op, 0), map = map_of(L, op);
  MlirType rt = mlirValueGetType(r), et = lw_scalar_of(L, rt);
  Elems e;
  if (mlirValueIsNull(map) || !lw_elems_of(L, rt, &e)) {
    lw_fail(L, op, "of this descriptor is not supported by the GPU code generator");
    return;
  }
  int rank = (int)mlirShapedTypeGetRank(rt);
  int64_t numel = lw_numel_of(rt), bytes = numel * ((lw_bits_of(et) + 7) / 8);
  MlirType st = lw_smem_type(L, et), i32 = lw_i32(L), i64 = mlirIntegerTypeGet(L->ctx, 64);
  MlirValue box = lw_shared_buffer_aligned(L, st, numel, 128);
  MlirValue bar = lw_shared_buffer_aligned(L, i64, 1, 8);
  /* at the kernel's start: the mbarrier for one arrival, and the phase's parity */
  MlirBlock saved_block = L->block;
  MlirOperation saved_term = L->term;
  L->block = L->entry;
  L->term = L->entry_first;
  MlirValue one = lw_const_i32(L, 1);
  MlirValue tid = lw_emit1(L, "nvvm.read.ptx.sreg.tid.x", i32, 0, NULL, 0, NULL);
  MlirValue bar0 = lw_emit1(L, "llvm.mlir.addressof", ptr3(L), 0, NULL, 1,
                            (MlirNamedAttribute[]){lw_named(L, "global_name", mlirOperationGetAttributeByName(mlirOpResultGetOwner(bar), str("global_name")))});
  IfScope init = lw_begin_if(L, lw_cmp_u32(L, 0, tid, lw_const_i32(L, 0)));
  async_call(L, "tilec.mbarrier.init", (MlirType){NULL}, 2, (MlirValue[]){bar0, one}, bar0);
  lw_end_if(L, &init);
  MlirNamedAttribute ea = lw_named(L, "elem_type", mlirTypeAttrGet(i32));
  MlirValue parity = lw_emit1(L, "llvm.alloca", mlirLLVMPointerTypeGet(L->ctx, 0), 1, &one, 1, &ea);
  lw_emit(L, "llvm.store", 0, NULL, 2, (MlirValue[]){lw_const_i32(L, 0), parity}, 0, NULL);
  L->block = saved_block;
  L->term = saved_term;

  barrier(L);
  IfScope issue = lw_begin_if(L, thread0(L));
  async_call(L, "tilec.mbarrier.arrive.expect_tx", i64, 2, (MlirValue[]){bar, lw_const_i32(L, bytes)}, bar);
  MlirValue args[3 + MAX_RANK];
  int n = 0;
  args[n++] = box;
  args[n++] = map;
  n += coords(L, op, 1, rank, args + n);
  args[n++] = bar;
  char name[32];
  snprintf(name, sizeof name, "tilec.tma.load.%dd", rank);
  async_call(L, name, (MlirType){NULL}, n, args, box);
  lw_end_if(L, &issue);
  MlirValue ph = lw_emit1(L, "llvm.load", i32, 1, &parity, 0, NULL);
  /* the wait a read of the mbarrier, as insert-barriers sees it: memory
   * placed over it after its last use waits for every thread's wait */
  lw_tag_smem(L, lw_call_op(L, "tilec.mbarrier.try_wait.parity", mlirIntegerTypeGet(L->ctx, 1), 2, (MlirValue[]){bar, ph}), bar);
  lw_emit(L, "llvm.store", 0, NULL, 2, (MlirValue[]){lw_bin(L, "arith.xori", ph, one), parity}, 0, NULL);
  Vals *x = lw_new_vals(L, e.n);
  for (int k = 0; k < e.n; k++) x->v[k] = lw_smem_get(L, box, et, lw_linear_index(L, &e, rt, k));
  lw_put(L, r, x);
}

void lw_lower_tma_store(Lower *L, MlirOperation op) {
  MlirValue v = mlirOperationGetOperand(op, 1), map = map_of(L, op);
  MlirType vt = mlirValueGetType(v), et = lw_scalar_of(L, vt);
  Elems e;
  if (mlirValueIsNull(map) || !lw_elems_of(L, vt, &e)) {
    lw_fail(L, op, "of this descriptor is not supported by the GPU code generator");
    return;
  }
  int rank = (int)mlirShapedTypeGetRank(vt);
  MlirValue box = lw_shared_buffer_aligned(L, lw_smem_type(L, et), lw_numel_of(vt), 128);
  Vals *x = lw_get(L, v);
  for (int k = 0; k < e.n; k++) lw_smem_put(L, box, et, lw_linear_index(L, &e, vt, k), lw_val(L, x, k));
  lw_call(L, "tilec.fence.proxy.async", (MlirType){NULL}, 0, NULL);
  barrier(L);
  IfScope issue = lw_begin_if(L, thread0(L));
  MlirValue args[2 + MAX_RANK];
  int n = 0;
  args[n++] = map;
  n += coords(L, op, 2, rank, args + n);
  args[n++] = box;
  char name[32];
  snprintf(name, sizeof name, "tilec.tma.store.%dd", rank);
  async_call(L, name, (MlirType){NULL}, n, args, box);
  lw_call(L, "tilec.bulk.commit", (MlirType){NULL}, 0, NULL);
  lw_call(L, "tilec.bulk.wait.read.0", (MlirType){NULL}, 0, NULL);
  lw_end_if(L, &issue);
  barrier(L);
}
