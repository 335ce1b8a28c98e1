/*
 * lower_shared.c — shared memory: its buffers and their accesses, the
 * padded row-major places values are written at, the values kept there and
 * read when used (a dot's operands), and the layout conversions that go
 * through it. Each buffer is its own global here; codegen/shared.c places
 * them by liveness and fences the accesses that race.
 */
#include "lower.h"

/* Shared memory: every use gets a buffer of its own, a global
 * @tilec_smem_<n>, and tags its loads and stores with n (tilec.smem).
 * allocate-shared then places the buffers in one by liveness, and
 * insert-barriers puts a barrier where an access would race (shared.c). */
MlirValue lw_shared_buffer(Lower *L, MlirType t, int64_t n) { return lw_shared_buffer_aligned(L, t, n, 16); }

MlirValue lw_shared_buffer_aligned(Lower *L, MlirType t, int64_t n, int align) {
  int64_t bytes = n * ((lw_bits_of(t) + 7) / 8);
  if (mlirTypeIsALLVMPointerType(t)) bytes = n * 8;
  char name[32];
  snprintf(name, sizeof name, "tilec_smem_%d", L->nbuffers++);
  MlirType arr = mlirLLVMArrayTypeGet(mlirIntegerTypeGet(L->ctx, 8), (unsigned)bytes);
  MlirNamedAttribute gattrs[6] = {
      lw_named(L, "sym_name", mlirStringAttrGet(L->ctx, str(name))),
      lw_named(L, "global_type", mlirTypeAttrGet(arr)),
      lw_named(L, "linkage", ir_parse_attr(L->comp->ic, "#llvm.linkage<internal>")),
      lw_named(L, "addr_space", mlirIntegerAttrGet(lw_i32(L), 3)),
      lw_named(L, "alignment", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), align)),
      lw_named(L, "tilec.bytes", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), bytes)),
  };
  return lw_global(L, name, gattrs, 6, 3);
}

MlirValue lw_global(Lower *L, const char *name, const MlirNamedAttribute *attrs, int nattrs, unsigned addr_space) {
  MlirOperationState gs = mlirOperationStateGet(str("llvm.mlir.global"), mlirLocationUnknownGet(L->ctx));
  mlirOperationStateAddAttributes(&gs, nattrs, attrs);
  MlirRegion init = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&gs, 1, &init);
  mlirBlockInsertOwnedOperation(mlirModuleGetBody(L->out), 0, mlirOperationCreate(&gs));
  MlirNamedAttribute ga = lw_named(L, "global_name", mlirFlatSymbolRefAttrGet(L->ctx, str(name)));
  return lw_emit1(L, "llvm.mlir.addressof", mlirLLVMPointerTypeGet(L->ctx, addr_space), 0, NULL, 1, &ga);
}

/* Tags a shared-memory access with the buffer its base pointer names. */
void lw_tag_smem(Lower *L, MlirOperation access, MlirValue base) {
  MlirOperation a = mlirOpResultGetOwner(base);
  while (op_is(a, "llvm.getelementptr")) a = mlirOpResultGetOwner(mlirOperationGetOperand(a, 0)); /* a slot of it */
  MlirStringRef g = mlirFlatSymbolRefAttrGetValue(mlirOperationGetAttributeByName(a, str("global_name")));
  int id = 0;
  for (size_t i = 11; i < g.length && g.data[i] >= '0' && g.data[i] <= '9'; i++) id = id * 10 + (g.data[i] - '0');
  mlirOperationSetAttributeByName(access, str("tilec.smem"), mlirIntegerAttrGet(lw_i32(L), id));
}

MlirValue lw_shared_at(Lower *L, MlirValue base, MlirType t, MlirValue idx) {
  MlirNamedAttribute gep[2] = {
      lw_named(L, "elem_type", mlirTypeAttrGet(t)),
      lw_named(L, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 1, (int32_t[]){INT32_MIN})),
  };
  MlirValue ops[2] = {base, idx};
  return lw_emit1(L, "llvm.getelementptr", mlirLLVMPointerTypeGet(L->ctx, 3), 2, ops, 2, gep);
}

void lw_store_shared(Lower *L, MlirValue base, MlirType t, MlirValue idx, MlirValue v) {
  MlirValue sv[2] = {v, lw_shared_at(L, base, t, idx)};
  lw_tag_smem(L, lw_emit(L, "llvm.store", 0, NULL, 2, sv, 0, NULL), base);
}

MlirValue lw_load_shared(Lower *L, MlirValue base, MlirType t, MlirValue idx) {
  MlirValue at = lw_shared_at(L, base, t, idx);
  MlirOperation ld = lw_emit(L, "llvm.load", 1, &t, 1, &at, 0, NULL);
  lw_tag_smem(L, ld, base);
  return mlirOperationGetResult(ld, 0);
}

/* A store to shared memory by the threads where pred holds. */
void lw_store_shared_if(Lower *L, MlirValue base, MlirType t, MlirValue pred, MlirValue v) {
  lw_store_shared_at_if(L, base, t, lw_const_i32(L, 0), pred, v);
}

void lw_store_shared_at_if(Lower *L, MlirValue base, MlirType t, MlirValue idx, MlirValue pred, MlirValue v) {
  MlirValue at = lw_shared_at(L, base, t, idx);
  IfScope s = lw_begin_if(L, pred);
  MlirValue sv[2] = {v, at};
  lw_tag_smem(L, lw_emit(L, "llvm.store", 0, NULL, 2, sv, 0, NULL), base);
  lw_end_if(L, &s);
}

/* Shared memory holds pointers as i64 and booleans as i8. */
MlirType lw_smem_type(Lower *L, MlirType et) {
  if (mlirTypeIsALLVMPointerType(et)) return mlirIntegerTypeGet(L->ctx, 64);
  if (mlirTypeIsAInteger(et) && mlirIntegerTypeGetWidth(et) == 1) return mlirIntegerTypeGet(L->ctx, 8);
  return et;
}

/* A conversion lays its elements out row-major with the rows padded by one
 * 4-byte word when a row is a multiple of 128 bytes (the 32 banks): the
 * columns a transposing conversion walks then fall on different banks,
 * and each element's place stays the thread's base plus a constant. */
static int64_t smem_pad(Lower *L, MlirType t) {
  int r = (int)mlirShapedTypeGetRank(t);
  MlirType et = lw_smem_type(L, lw_scalar_of(L, t));
  int bytes = mlirTypeIsALLVMPointerType(et) ? 8 : (lw_bits_of(et) + 7) / 8;
  int64_t row = mlirShapedTypeGetDimSize(t, r - 1) * bytes;
  return r >= 2 && row % 128 == 0 ? (bytes < 4 ? 4 / bytes : 1) : 0;
}

/* The padded row-major place of element k of a tensor of type t in layout e. */
static MlirValue padded_index(Lower *L, const Elems *e, MlirType t, int k, int64_t pad) {
  int r = (int)mlirShapedTypeGetRank(t);
  MlirValue lin = lw_const_i32(L, 0);
  for (int td = 0, d = 0; td < r; td++, d++) {
    if (d == e->sliced) d++;
    int64_t size = mlirShapedTypeGetDimSize(t, td) + (td == r - 1 ? pad : 0);
    lin = lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", lin, lw_const_i32(L, size)), lw_index_of(L, e, k, d));
  }
  return lin;
}

/* The row-major offset of element k of a tensor of type t in layout e. */
MlirValue lw_linear_index(Lower *L, const Elems *e, MlirType t, int k) { return padded_index(L, e, t, k, 0); }

void lw_smem_put(Lower *L, MlirValue base, MlirType et, MlirValue idx, MlirValue v) {
  MlirType mt = lw_smem_type(L, et);
  if (mlirTypeIsALLVMPointerType(et)) v = lw_emit1(L, "llvm.ptrtoint", mt, 1, &v, 0, NULL);
  else if (!mlirTypeEqual(mt, et)) v = lw_emit1(L, "arith.extui", mt, 1, &v, 0, NULL);
  lw_store_shared(L, base, mt, idx, v);
}

MlirValue lw_smem_get(Lower *L, MlirValue base, MlirType et, MlirValue idx) {
  MlirType mt = lw_smem_type(L, et);
  MlirValue v = lw_load_shared(L, base, mt, idx);
  if (mlirTypeIsALLVMPointerType(et)) return lw_emit1(L, "llvm.inttoptr", et, 1, &v, 0, NULL);
  if (!mlirTypeEqual(mt, et)) return lw_emit1(L, "arith.trunci", et, 1, &v, 0, NULL);
  return v;
}

/* Writes value `in` (of type st, its elements in layout es) to a new
 * shared buffer, row-major with rows padded against bank conflicts, from
 * where a value of type rt in layout ed reads its elements. */
static Lazy *to_shared(Lower *L, MlirType st, const Elems *es, Vals *in, MlirType rt, const Elems *ed) {
  Lazy *z = arena_alloc(L->comp->a, sizeof *z);
  *z = (Lazy){.et = lw_scalar_of(L, rt), .type = rt, .e = *ed, .pad = smem_pad(L, rt)};
  int64_t row = mlirShapedTypeGetDimSize(rt, mlirShapedTypeGetRank(rt) - 1);
  z->base = lw_shared_buffer(L, lw_smem_type(L, z->et), lw_numel_of(rt) / row * (row + z->pad));
  for (int k = 0; k < es->n; k++) lw_smem_put(L, z->base, z->et, padded_index(L, es, st, k, z->pad), lw_val(L, in, k));
  return z;
}

/* Whether every use of v is a tile.dot (in its block, or in a loop it was
 * hoisted before: remove_layout_conversions.c). */
static bool only_dots_use(MlirValue v) {
  bool any = false;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    if (tile_op_of(mlirOpOperandGetOwner(u)) != TOP_dot) return false;
    any = true;
  }
  return any;
}

/* A layout conversion: nothing to do between equal layouts, else through
 * shared memory: every thread writes the elements it holds at their
 * row-major places, and after a barrier reads those the new layout gives
 * it. A barrier before the writes keeps a loop's next conversion from
 * overwriting what slower threads still read. */
/* Thread t's element k of e, by the tensor's own dims (a slice's parent
 * has one more); its rank is returned. */
static int tensor_index(const Elems *e, int t, int k, int64_t *idx) {
  int64_t full[MAX_RANK];
  lw_index_at(e, t, k, full);
  int r = 0;
  for (int d = 0; d < e->rank; d++)
    if (d != e->sliced) idx[r++] = full[d];
  return r;
}

static bool same_index(const Elems *a, int ta, int ka, const Elems *b, int tb, int kb) {
  int64_t x[MAX_RANK], y[MAX_RANK];
  int r = tensor_index(a, ta, ka, x);
  if (tensor_index(b, tb, kb, y) != r) return false;
  for (int d = 0; d < r; d++)
    if (x[d] != y[d]) return false;
  return true;
}

/* A conversion where every thread already holds the elements it needs, in
 * the same registers whichever the thread (a reduction's slice and the
 * 1-D layout that spreads the same columns the same way): out takes them,
 * no data moves. */
static bool in_registers(Lower *L, const Elems *es, const Elems *ed, Vals *in, Vals *out) {
  int threads = L->comp->num_warps * L->comp->threads_per_warp;
  if ((int64_t)threads * ed->n > (1 << 20) || (int64_t)ed->n * es->n > (1 << 20)) return false; /* not worth the check */
  int *from = arena_alloc(L->comp->a, sizeof(int) * (size_t)(ed->n + 1));
  /* thread 0 finds where each element is; every other thread must agree */
  for (int k = 0; k < ed->n; k++) {
    from[k] = -1;
    for (int j = 0; j < es->n && from[k] < 0; j++)
      if (same_index(ed, 0, k, es, 0, j)) from[k] = j;
    if (from[k] < 0) return false;
  }
  for (int t = 1; t < threads; t++)
    for (int k = 0; k < ed->n; k++)
      if (!same_index(ed, t, k, es, t, from[k])) return false;
  for (int k = 0; k < ed->n; k++) out->v[k] = lw_val(L, in, from[k]);
  return true;
}

void lw_lower_convert(Lower *L, MlirOperation op) {
  MlirValue src = mlirOperationGetOperand(op, 0), r = mlirOperationGetResult(op, 0);
  MlirType st = mlirValueGetType(src), rt = mlirValueGetType(r);
  Layout a, b;
  bool known = layout_of_type(L->comp, st, &a) && layout_of_type(L->comp, rt, &b);
  if (known && layout_equal(&a, &b)) {
    lw_put(L, r, lw_get(L, src));
    return;
  }
  if (known && b.kind == L_DOT_OP && b.parent->kind == L_MMA) {
    /* an operand of mma.sync: in shared memory as lower_mma.c reads it */
    if (!only_dots_use(r)) {
      lw_fail(L, op, "to a tensor-core dot operand's layout, for other uses than tl.dot, is not supported by the GPU code generator");
      return;
    }
    Vals *x = lw_mma_operand(L, src, rt);
    if (x) lw_put(L, r, x);
    else lw_fail(L, op, "between these layouts is not supported yet by the GPU code generator");
    return;
  }
  Elems es, ed;
  if (!lw_elems_of(L, st, &es) || !lw_elems_of(L, rt, &ed)) {
    lw_fail(L, op, "between these layouts is not supported yet by the GPU code generator");
    return;
  }
  Vals *out = lw_new_vals(L, ed.n);
  if (!ed.whole && !es.whole && in_registers(L, &es, &ed, lw_get(L, src), out)) {
    lw_put(L, r, out);
    return;
  }
  if (!ed.whole && lw_convert_by_words(L, st, &es, lw_get(L, src), rt, &ed, out)) {
    lw_put(L, r, out);
    return;
  }
  Lazy *z = to_shared(L, st, &es, lw_get(L, src), rt, &ed);
  if (ed.whole && only_dots_use(r)) out->lazy = z; /* a dot operand: each element is read at the step of K that needs it */
  else
    for (int k = 0; k < ed.n; k++) out->v[k] = lw_smem_get(L, z->base, z->et, lw_lazy_index(L, z, k));
  lw_put(L, r, out);
}

Lazy *lw_lazy_of(Lower *L, MlirType t, Vals *x) {
  if (x->lazy) return x->lazy;
  Elems e;
  if (!lw_elems_of(L, t, &e)) return NULL;
  return to_shared(L, t, &e, x, t, &e);
}

MlirValue lw_lazy_index(Lower *L, const Lazy *z, int k) { return padded_index(L, &z->e, z->type, k, z->pad); }

int64_t lw_lazy_stride(const Lazy *z, int d) {
  int r = (int)mlirShapedTypeGetRank(z->type);
  int64_t s = 1;
  for (int td = r - 1; td > d; td--) s *= mlirShapedTypeGetDimSize(z->type, td) + (td == r - 1 ? z->pad : 0);
  return s;
}

MlirValue lw_val(Lower *L, Vals *x, int k) {
  if (!x->v[k].ptr && x->lazy) {
    const Lazy *z = x->lazy;
    x->v[k] = lw_smem_get(L, z->base, z->et, padded_index(L, &z->e, z->type, k, z->pad));
  }
  return x->v[k];
}
