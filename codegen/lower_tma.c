/*
 * lower_tma.c — tile.descriptor_load and tile.descriptor_store
 * (passes/tma_lowering.c) as TMA copies: cp.async.bulk.tensor between a
 * tensor map the host built and a box in shared memory, as Triton lowers
 * a descriptor access outside a pipelined loop.
 *
 * The kernel's maps are its last parameters, one for each descriptor and
 * box and swizzle its copies use, each a 128-byte CUtensorMap passed by
 * value (`.param .align 64 .b8 [128]`, a grid constant whose generic
 * address the copies take); the kernel's tilec.tensormaps lists them for
 * the metadata: [base parameter, NaN fill, swizzle, box...].
 *
 * A load has a box buffer of its own (dense, rows of the block's last
 * dimension, 128-byte aligned, no swizzle) and an mbarrier, which thread 0
 * initializes once, at the kernel's start, for one arrival. Each time the
 * load runs: a barrier (the threads' reads of the box from the last time
 * are done, and the mbarrier's initialization is seen); thread 0 arms the
 * mbarrier with the box's bytes and issues the copy; every thread waits
 * for the phase, whose parity the kernel keeps (a local the optimizer puts
 * in a register: 0, 1, 0, ... each time), then reads its elements. The
 * bytes outside the tensor are the map's fill. The mbarriers keep their
 * memory to the kernel's end, where thread 0 invalidates them after a
 * barrier (the memory of a valid mbarrier is used for nothing else).
 *
 * A store: thread 0 waits until its copies have read the box
 * (cp.async.bulk.wait_group.read 0: this op's last copy, a loop's previous
 * iteration's), a barrier, every thread writes its elements to the box's
 * buffer and makes them visible to the async proxy (fence.proxy.async), a
 * barrier, then thread 0 issues the copy and commits it: the copy runs on
 * while the program goes on (a persistent kernel's next tile loads and
 * computes). The box is the store's to the kernel's end, where thread 0
 * waits for its copies again. The copy drops the elements outside the
 * tensor.
 *
 * The buffers' accesses by the copies and the mbarrier's initialization
 * and arming are tagged tilec.smem with tilec.async: allocate-shared keeps
 * the memory theirs while they use it; insert-barriers leaves them to the
 * barriers here. The wait is an ordinary read of the mbarrier, so that
 * memory placed over it later is written after every thread's wait.
 */
#include "lower.h"

/* The most tensor maps a kernel takes (the runtime builds up to 16). */
enum { KERNEL_MAPS = 16 };

static MlirType ptr3(Lower *L) { return mlirLLVMPointerTypeGet(L->ctx, 3); }

/* A call whose shared-memory operand at `base` is the copy's or the
 * mbarrier's, not a generic access. */
static MlirOperation async_call(Lower *L, const char *name, MlirType ret, int n, const MlirValue *args, MlirValue base) {
  MlirOperation op = lw_call_op(L, name, ret, n, args);
  lw_tag_smem(L, op, base);
  mlirOperationSetAttributeByName(op, str("tilec.async"), mlirUnitAttrGet(L->ctx));
  return op;
}

/* An i32 local for the parities of an mbarrier's phases, at the very top
 * of the kernel's entry block, where LLVM's SROA finds it and keeps it in a
 * register (an alloca after the entry's first branch would stay in local
 * memory). */
static MlirValue parity_local(Lower *L) {
  MlirBlock saved_block = L->block;
  MlirOperation saved_term = L->term;
  L->block = L->entry;
  L->term = mlirBlockGetFirstOperation(L->entry);
  MlirType i32 = lw_i32(L);
  MlirNamedAttribute v = lw_named(L, "value", mlirIntegerAttrGet(i32, 1));
  MlirValue one = lw_emit1(L, "llvm.mlir.constant", i32, 0, NULL, 1, &v);
  MlirNamedAttribute ea = lw_named(L, "elem_type", mlirTypeAttrGet(i32));
  MlirValue p = lw_emit1(L, "llvm.alloca", mlirLLVMPointerTypeGet(L->ctx, 0), 1, &one, 1, &ea);
  L->block = saved_block;
  L->term = saved_term;
  return p;
}

/* An mbarrier buffer of n objects, each initialized by thread 0 at the
 * kernel's start for one arrival, and *parity the local that keeps the
 * parity of each one's next phase (bit k for object k, all 0). The buffer
 * is kept for the whole kernel: its objects are invalidated at the end
 * (lw_finish_tensor_maps), never reused. */
static MlirValue mbarriers(Lower *L, int n, MlirValue *parity) {
  MlirType i32 = lw_i32(L), i64 = mlirIntegerTypeGet(L->ctx, 64);
  MlirValue b = lw_shared_buffer_aligned(L, i64, n, 8);
  MlirAttribute name = mlirOperationGetAttributeByName(mlirOpResultGetOwner(b), str("global_name"));
  if (!L->mbars) L->mbars = arena_alloc(L->comp->a, sizeof(PtrVec));
  vec_push(L->comp->a, L->mbars, (void *)name.ptr);
  vec_push(L->comp->a, L->mbars, (void *)(intptr_t)n);
  MlirBlock saved_block = L->block;
  MlirOperation saved_term = L->term;
  L->block = L->entry;
  L->term = L->entry_first;
  MlirValue one = lw_const_i32(L, 1);
  MlirValue tid = lw_emit1(L, "nvvm.read.ptx.sreg.tid.x", i32, 0, NULL, 0, NULL);
  MlirValue at = lw_emit1(L, "llvm.mlir.addressof", ptr3(L), 0, NULL, 1, (MlirNamedAttribute[]){lw_named(L, "global_name", name)});
  IfScope init = lw_begin_if(L, lw_cmp_u32(L, 0, tid, lw_const_i32(L, 0)));
  for (int k = 0; k < n; k++)
    async_call(L, "tilec.mbarrier.init", (MlirType){NULL}, 2, (MlirValue[]){lw_shared_at(L, at, i64, lw_const_i32(L, k)), one}, at);
  lw_end_if(L, &init);
  *parity = parity_local(L);
  lw_emit(L, "llvm.store", 0, NULL, 2, (MlirValue[]){lw_const_i32(L, 0), *parity}, 0, NULL);
  L->block = saved_block;
  L->term = saved_term;
  return b;
}

static MlirValue thread0(Lower *L) { return lw_cmp_u32(L, 0 /* eq */, L->tid, lw_const_i32(L, 0)); }

static void barrier(Lower *L) { lw_emit(L, "nvvm.barrier0", 0, NULL, 0, NULL, 0, NULL); }

/* A tensor map the kernel takes: the descriptor's base parameter, the
 * box (outermost first), the swizzle (CUtensorMapSwizzle: 0 none, 1 32B,
 * 2 64B, 3 128B), the fill, and the kernel's parameter that holds it. */
typedef struct TensorMap {
  int param, rank, swizzle;
  int64_t box[5];
  bool nan;
  MlirValue arg;
} TensorMap;

/* The map of those properties: the same one for every access that asks
 * for it, else a new parameter of the kernel's. */
static MlirValue tensor_map(Lower *L, int param, int rank, const int64_t *box, int swizzle, bool nan) {
  for (int i = 0; i < L->nmaps; i++) {
    const TensorMap *t = &L->maps[i];
    if (t->param == param && t->rank == rank && t->swizzle == swizzle && t->nan == nan && !memcmp(t->box, box, sizeof(int64_t) * (size_t)rank))
      return t->arg;
  }
  if (L->nmaps == KERNEL_MAPS) return (MlirValue){NULL};
  if (!L->maps) L->maps = arena_alloc(L->comp->a, sizeof(TensorMap) * KERNEL_MAPS);
  TensorMap *t = &L->maps[L->nmaps++];
  *t = (TensorMap){.param = param, .rank = rank, .swizzle = swizzle, .nan = nan};
  memcpy(t->box, box, sizeof(int64_t) * (size_t)rank);
  t->arg = mlirBlockAddArgument(L->entry, mlirLLVMPointerTypeGet(L->ctx, 0), mlirLocationUnknownGet(L->ctx));
  return t->arg;
}

void lw_finish_tensor_maps(Lower *L, MlirOperation kernel) {
  if (L->stores) {
    /* thread 0's stores have read their boxes before the block's shared
     * memory goes; each box is the store's until then */
    L->block = L->entry;
    L->term = mlirBlockGetTerminator(L->entry);
    IfScope s = lw_begin_if(L, thread0(L));
    for (int i = 0; i < L->stores->n; i++) {
      MlirNamedAttribute g = lw_named(L, "global_name", (MlirAttribute){L->stores->v[i]});
      MlirValue b = lw_emit1(L, "llvm.mlir.addressof", ptr3(L), 0, NULL, 1, &g);
      async_call(L, "tilec.bulk.wait.read.0", (MlirType){NULL}, 0, NULL, b);
    }
    lw_end_if(L, &s);
  }
  if (L->mbars) {
    /* the mbarriers invalidated at the kernel's end, after every thread's
     * last wait: their memory is theirs until then */
    L->block = L->entry;
    L->term = mlirBlockGetTerminator(L->entry);
    MlirType i64 = mlirIntegerTypeGet(L->ctx, 64);
    barrier(L);
    IfScope s = lw_begin_if(L, thread0(L));
    for (int i = 0; i + 1 < L->mbars->n; i += 2) {
      MlirNamedAttribute g = lw_named(L, "global_name", (MlirAttribute){L->mbars->v[i]});
      MlirValue b = lw_emit1(L, "llvm.mlir.addressof", ptr3(L), 0, NULL, 1, &g);
      for (int k = 0; k < (int)(intptr_t)L->mbars->v[i + 1]; k++)
        async_call(L, "tilec.mbarrier.inval", (MlirType){NULL}, 1, (MlirValue[]){lw_shared_at(L, b, i64, lw_const_i32(L, k))}, b);
    }
    lw_end_if(L, &s);
  }
  if (!L->nmaps) return;
  int n = (int)mlirBlockGetNumArguments(L->entry);
  MlirType *types = arena_alloc(L->comp->a, sizeof(MlirType) * (size_t)n);
  MlirAttribute *attrs = arena_alloc(L->comp->a, sizeof(MlirAttribute) * (size_t)n);
  MlirAttribute none = ir_parse_attr(L->comp->ic, "{}"),
                byval = ir_parse_attr(L->comp->ic, "{llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}");
  for (int i = 0; i < n; i++) {
    types[i] = mlirValueGetType(mlirBlockGetArgument(L->entry, i));
    attrs[i] = i < n - L->nmaps ? none : byval;
  }
  MlirType ft = mlirLLVMFunctionTypeGet(mlirLLVMVoidTypeGet(L->ctx), n, types, false);
  mlirOperationSetAttributeByName(kernel, str("function_type"), mlirTypeAttrGet(ft));
  mlirOperationSetAttributeByName(kernel, str("arg_attrs"), mlirArrayAttrGet(L->ctx, n, attrs));
  MlirAttribute *maps = arena_alloc(L->comp->a, sizeof(MlirAttribute) * (size_t)L->nmaps);
  for (int i = 0; i < L->nmaps; i++) {
    const TensorMap *t = &L->maps[i];
    int64_t v[3 + 5] = {t->param, t->nan, t->swizzle};
    memcpy(v + 3, t->box, sizeof(int64_t) * (size_t)t->rank);
    maps[i] = mlirDenseI64ArrayGet(L->ctx, 3 + t->rank, v);
  }
  mlirOperationSetAttributeByName(kernel, str("tilec.tensormaps"), mlirArrayAttrGet(L->ctx, L->nmaps, maps));
}

/* The map of a descriptor op whose box is its block, without swizzle. */
static MlirValue map_of(Lower *L, MlirOperation op, MlirType block) {
  int r = (int)mlirShapedTypeGetRank(block);
  int64_t box[5];
  for (int d = 0; d < r && d < 5; d++) box[d] = mlirShapedTypeGetDimSize(block, d);
  bool nan = !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("nan")));
  return r > 5 ? (MlirValue){NULL} : tensor_map(L, (int)op_int_attr(op, "param", 0), r, box, 0, nan);
}

/* The coordinates of the box, innermost first, as the copy takes them. */
static int coords(Lower *L, MlirOperation op, int first, int r, MlirValue *out) {
  for (int d = 0; d < r; d++) out[d] = lw_val(L, lw_get(L, mlirOperationGetOperand(op, first + r - 1 - d)), 0);
  return r;
}

/* The map of a descriptor op whose block has type t, and the block's
 * elements in its layout; false (L fails) when there is none. */
static bool tma_setup(Lower *L, MlirOperation op, MlirType t, MlirValue *map, Elems *e) {
  *map = map_of(L, op, t);
  if (!mlirValueIsNull(*map) && lw_elems_of(L, t, e)) return true;
  lw_fail(L, op, "of this descriptor is not supported by the GPU code generator");
  return false;
}

void lw_lower_tma_load(Lower *L, MlirOperation op) {
  MlirValue r = mlirOperationGetResult(op, 0), map;
  MlirType rt = mlirValueGetType(r), et = lw_scalar_of(L, rt);
  Elems e;
  if (!tma_setup(L, op, rt, &map, &e)) return;
  int rank = (int)mlirShapedTypeGetRank(rt);
  int64_t numel = lw_numel_of(rt), bytes = numel * ((lw_bits_of(et) + 7) / 8);
  MlirType st = lw_smem_type(L, et), i32 = lw_i32(L), i64 = mlirIntegerTypeGet(L->ctx, 64);
  MlirValue box = lw_shared_buffer_aligned(L, st, numel, 128);
  MlirValue parity, bar = mbarriers(L, 1, &parity);

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
  lw_emit(L, "llvm.store", 0, NULL, 2, (MlirValue[]){lw_bin(L, "arith.xori", ph, lw_const_i32(L, 1)), parity}, 0, NULL);
  Vals *x = lw_new_vals(L, e.n);
  for (int k = 0; k < e.n; k++) x->v[k] = lw_smem_get(L, box, et, lw_linear_index(L, &e, rt, k));
  lw_put(L, r, x);
}

void lw_lower_tma_store(Lower *L, MlirOperation op) {
  MlirValue v = mlirOperationGetOperand(op, 1), map;
  MlirType vt = mlirValueGetType(v), et = lw_scalar_of(L, vt);
  Elems e;
  if (!tma_setup(L, op, vt, &map, &e)) return;
  int rank = (int)mlirShapedTypeGetRank(vt);
  MlirValue box = lw_shared_buffer_aligned(L, lw_smem_type(L, et), lw_numel_of(vt), 128);
  Vals *x = lw_get(L, v);
  for (int k = 0; k < e.n; k++) lw_val(L, x, k); /* read before the box is written: they may be lazy */
  /* the copy this op issued last time has read the box (thread 0's bulk groups) */
  IfScope done = lw_begin_if(L, thread0(L));
  async_call(L, "tilec.bulk.wait.read.0", (MlirType){NULL}, 0, NULL, box);
  lw_end_if(L, &done);
  barrier(L);
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
  lw_end_if(L, &issue);
  /* the box stays the store's to the kernel's end, where thread 0 waits
   * for its copies again (lw_finish_tensor_maps) */
  if (!L->stores) L->stores = arena_alloc(L->comp->a, sizeof(PtrVec));
  vec_push(L->comp->a, L->stores, (void *)mlirOperationGetAttributeByName(mlirOpResultGetOwner(box), str("global_name")).ptr);
}

/* ---- a pipelined loop's descriptor loads -----------------------------------------------
 * A load of the first stage of a pipelined wgmma loop (lower_control.c)
 * goes to its operand's slotted buffer, whose canonical layout (atoms of
 * rows x W bytes, swizzled: lw_mma_buffer) is what a TMA box of rows x
 * W/size elements with the swizzle of W writes: one copy for each atom,
 * its columns further on, into the slot's atom after atom. That holds
 * where the buffer's columns are the tensor's innermost dimension (its
 * rows and columns as loaded, or transposed where a tl.trans reads it as
 * B); the others are loaded whole into registers by a copy of their own
 * and stored into the slot. Each slot has an mbarrier the stage's copies
 * share (as Triton's pipeliner), armed by thread 0 with all their bytes
 * where the iteration exists, after a barrier the loop puts before them (the reads of the slot, the wgmma
 * groups that read it retired before, are done); each iteration waits for its slot's phase, whose parity the
 * kernel keeps per slot (bit s of a local). */
struct TmaSlots {
  Lazy *buf;
  bool direct;      /* the copies fill the buffer as wgmma reads it */
  bool trans;       /* the load reaches the dot through tl.trans */
  MlirValue map, bars, parity;
  int atoms;        /* copies a slot takes */
  int64_t atom_elems, atom_cols, bytes;
  TmaSlots *owner;  /* the stage's first direct load, whose mbarriers and parities this one shares; NULL: it */
  int64_t stage_bytes; /* the owner's: the bytes of all the stage's copies of a slot, what it arms for */
};

TmaSlots *lw_tma_slots(Lower *L, MlirOperation load, Lazy *buf, int slots, TmaSlots *share) {
  TmaSlots *t = arena_alloc(L->comp->a, sizeof *t);
  *t = (TmaSlots){.buf = buf, .trans = buf->flipped};
  int rd, cd;
  lw_mma_dims(buf, &rd, &cd);
  MlirType lt = mlirValueGetType(mlirOperationGetResult(load, 0));
  int eb = lw_bits_of(buf->et) / 8;
  t->direct = buf->wg_cols && mlirShapedTypeGetRank(buf->type) == 2 && cd == (t->trans ? 0 : 1) && slots <= 8;
  if (!t->direct) return t;
  int64_t rows = mlirShapedTypeGetDimSize(buf->type, rd), cols = mlirShapedTypeGetDimSize(buf->type, cd);
  int w = buf->wg_cols * eb;
  int64_t box[2] = {rows, buf->wg_cols};
  bool nan = !mlirAttributeIsNull(mlirOperationGetAttributeByName(load, str("nan")));
  t->map = tensor_map(L, (int)op_int_attr(load, "param", 0), 2, box, w == 128 ? 3 : w == 64 ? 2 : 1, nan);
  if (mlirValueIsNull(t->map) || mlirShapedTypeGetDimSize(lt, 1) != cols) {
    t->direct = false;
    return t;
  }
  t->atoms = (int)(cols / buf->wg_cols);
  t->atom_cols = buf->wg_cols;
  t->atom_elems = rows * buf->wg_cols;
  t->bytes = t->stage_bytes = rows * cols * eb;
  if (share && share->direct) {
    /* one mbarrier a slot for the stage's copies, as Triton's pipeliner: armed once, waited for once */
    t->owner = share->owner ? share->owner : share;
    t->owner->stage_bytes += t->bytes;
    t->bars = t->owner->bars, t->parity = t->owner->parity;
    return t;
  }
  t->bars = mbarriers(L, slots, &t->parity);
  return t;
}

void lw_tma_to_slot(Lower *L, MlirOperation load, TmaSlots *t, MlirValue slot, MlirValue guard) {
  Lazy *z = lw_mma_slot(L, t->buf, slot);
  if (!t->direct) {
    /* a copy of the whole block, then its elements into the slot, where the iteration exists */
    lw_lower_tma_load(L, load);
    MlirValue r = mlirOperationGetResult(load, 0);
    Elems e;
    if (L->failed || !lw_elems_of(L, mlirValueGetType(r), &e)) {
      if (!L->failed) lw_fail(L, load, "of this layout is not supported yet by the GPU code generator");
      return;
    }
    Vals *x = lw_get(L, r);
    IfScope s = lw_begin_if(L, guard);
    for (int k = 0; k < e.n; k++) lw_smem_put(L, z->base, z->et, lw_mma_place(L, z, &e, k, t->trans), lw_val(L, x, k));
    lw_end_if(L, &s);
    return;
  }
  MlirType i64 = mlirIntegerTypeGet(L->ctx, 64);
  MlirValue bar = lw_shared_at(L, t->bars, i64, slot);
  MlirValue outer = lw_val(L, lw_get(L, mlirOperationGetOperand(load, 1)), 0);
  MlirValue inner = lw_val(L, lw_get(L, mlirOperationGetOperand(load, 2)), 0);
  IfScope issue = lw_begin_if(L, lw_bin(L, "arith.andi", thread0(L), guard));
  if (!t->owner)
    async_call(L, "tilec.mbarrier.arrive.expect_tx", i64, 2, (MlirValue[]){bar, lw_const_i32(L, t->stage_bytes)}, t->bars);
  for (int j = 0; j < t->atoms; j++) {
    MlirValue dst = lw_shared_at(L, z->base, z->et, lw_const_i32(L, j * t->atom_elems));
    MlirValue c0 = j ? lw_bin(L, "arith.addi", inner, lw_const_i32(L, j * t->atom_cols)) : inner;
    async_call(L, "tilec.tma.load.2d", (MlirType){NULL}, 5, (MlirValue[]){dst, t->map, c0, outer, bar}, t->buf->base);
  }
  lw_end_if(L, &issue);
}

bool lw_tma_direct(const TmaSlots *t) { return t->direct; }

void lw_tma_wait_slot(Lower *L, TmaSlots *t, MlirValue slot) {
  if (!t->direct || t->owner) return; /* the owner's wait covers the stage's copies */
  MlirType i32 = lw_i32(L), i64 = mlirIntegerTypeGet(L->ctx, 64);
  MlirValue mask = lw_emit1(L, "llvm.load", i32, 1, &t->parity, 0, NULL);
  MlirValue bit = lw_bin(L, "arith.shli", lw_const_i32(L, 1), slot);
  MlirValue ph = lw_bin(L, "arith.andi", lw_bin(L, "arith.shrui", mask, slot), lw_const_i32(L, 1));
  MlirValue bar = lw_shared_at(L, t->bars, i64, slot);
  lw_tag_smem(L, lw_call_op(L, "tilec.mbarrier.try_wait.parity", mlirIntegerTypeGet(L->ctx, 1), 2, (MlirValue[]){bar, ph}), t->bars);
  lw_emit(L, "llvm.store", 0, NULL, 2, (MlirValue[]){lw_bin(L, "arith.xori", mask, bit), t->parity}, 0, NULL);
}
