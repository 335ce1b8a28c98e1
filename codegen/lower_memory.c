/*
 * lower_memory.c — loads and stores of global memory: through tensors of
 * pointers, masked, as wide as the layout and the mask allow, and through
 * block pointers, masked by their boundary checks.
 *
 * Predicated memory accesses are calls to `tilec.ld.<b>` / `tilec.st.<b>`
 * (b = 8, 16, 32, 64 bits; `tilec.ld.v<n>.b<b>` for n at once; elements
 * under 32 bits packed into 32-bit words when they move together):
 * cg_expand_for_gpu turns them into PTX, and codegen/emu.c into the
 * emulator's checked accesses. A store is made by an element's first
 * holder only.
 */
#include "lower.h"

/* How many consecutive elements one access can move: the layout's run
 * along its fastest dimension, at most 128 bits, as far as the pointers
 * are contiguous and aligned (coalesce may give a group of accesses the
 * layout of its widest member) and the mask is constant over it.
 * Elements under 32 bits travel packed in 32-bit words (two bytes in one
 * 16-bit word, for a run of two), so that eight halves are one 128-bit
 * access, as in Triton. */
static int vector_width(Lower *L, MlirValue ptr, MlirValue mask, int bits) {
  Elems e;
  if (!mlirTypeIsARankedTensor(mlirValueGetType(ptr)) || !lw_elems_of(L, mlirValueGetType(ptr), &e) ||
      !(lw_plain(&e) || e.mma))
    return 1;
  int fast = e.l.order[0];
  int vec = e.l.spt[fast];
  while (vec * bits > 128) vec /= 2;
  /* a run must not wrap around the tensor: one holder owns it all */
  while (vec > 1 && e.shape[fast] % vec) vec /= 2;
  const AxisInfo *pi = axis_info_of(L->aa, ptr);
  int64_t align = pi ? pi->divisibility[fast] * 8 / bits : 1; /* elements */
  if (align < 1) align = 1; /* a pointer known aligned to less than its element: to its element only */
  while (vec > 1 && (!pi || pi->contiguity[fast] % vec || align % vec)) vec /= 2;
  if (vec > 1 && !mlirValueIsNull(mask)) {
    const AxisInfo *ai = axis_info_of(L->aa, mask);
    while (vec > 1 && (!ai || ai->constancy[fast] % vec)) vec /= 2;
  }
  return vec;
}

/* The run's elements (bits each, per to a word of per * bits) packed into
 * one word, the first in the low bits: how memory holds them. */
static MlirValue pack(Lower *L, MlirValue *elems, int per, int bits) {
  MlirType wt = mlirIntegerTypeGet(L->ctx, (unsigned)(per * bits));
  MlirValue w = {NULL};
  for (int j = 0; j < per; j++) {
    MlirValue x = lw_emit1(L, "arith.extui", wt, 1, &elems[j], 0, NULL);
    if (j) {
      MlirValue sh = mlirOperationGetResult(lw_emit(L, "arith.constant", 1, &wt, 0, NULL, 1,
                                                   (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(wt, j * bits))}), 0);
      x = lw_bin(L, "arith.shli", x, sh);
    }
    w = j ? lw_bin(L, "arith.ori", w, x) : x;
  }
  return w;
}

/* Two 16-bit floats as one 32-bit word, the first in the low half: built
 * as a vector, so that LLVM makes the pair's conversions from f32 one
 * cvt.rn.f16x2.f32 (bf16x2), as Triton's, not two and a pack. */
MlirValue lw_pack_pair(Lower *L, MlirValue a, MlirValue b) {
  MlirType et = mlirValueGetType(a), vt = mlirVectorTypeGet(1, (int64_t[]){2}, et), i64 = mlirIntegerTypeGet(L->ctx, 64);
  MlirValue vec = lw_emit1(L, "llvm.mlir.undef", vt, 0, NULL, 0, NULL);
  for (int j = 0; j < 2; j++) {
    MlirValue at = mlirOperationGetResult(lw_emit(L, "llvm.mlir.constant", 1, &i64, 0, NULL, 1,
                                                  (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(i64, j))}), 0);
    MlirValue ops[3] = {vec, j ? b : a, at};
    vec = lw_emit1(L, "llvm.insertelement", vt, 3, ops, 0, NULL);
  }
  return lw_emit1(L, "llvm.bitcast", mlirIntegerTypeGet(L->ctx, 32), 1, &vec, 0, NULL);
}

/* Element j of a packed word, as its bits. */
static MlirValue unpack(Lower *L, MlirValue w, int j, int bits) {
  MlirType wt = mlirValueGetType(w), it = mlirIntegerTypeGet(L->ctx, (unsigned)bits);
  if (j) {
    MlirValue sh = mlirOperationGetResult(lw_emit(L, "arith.constant", 1, &wt, 0, NULL, 1,
                                                 (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(wt, j * bits))}), 0);
    w = lw_bin(L, "arith.shrui", w, sh);
  }
  return lw_emit1(L, "arith.trunci", it, 1, &w, 0, NULL);
}

/* Loads and stores through a block pointer: each element's position is the
 * pointer's offsets plus its index; boundary_check dimensions mask it
 * against the shape (padding 0, or NaN for padding="nan"). */
static void lower_block_access(Lower *L, MlirOperation op, bool is_load) {
  MlirValue bp = mlirOperationGetOperand(op, 0);
  int r = lw_block_ptr_rank(L, mlirValueGetType(bp));
  Vals *b = lw_get(L, bp);
  MlirType tt = is_load ? mlirValueGetType(mlirOperationGetResult(op, 0)) : mlirValueGetType(mlirOperationGetOperand(op, 1));
  Elems e;
  if (!lw_elems_of(L, tt, &e) || e.sliced >= 0) {
    lw_fail(L, op, "of this layout is not supported yet by the GPU code generator");
    return;
  }
  bool check[MAX_RANK] = {0};
  MlirAttribute bc = mlirOperationGetAttributeByName(op, str("boundary_check"));
  for (intptr_t i = 0; !mlirAttributeIsNull(bc) && i < mlirDenseArrayGetNumElements(bc); i++) {
    int d = mlirDenseI32ArrayGetElement(bc, i);
    if (d >= 0 && d < r) check[d] = true;
  }
  MlirAttribute pad = mlirOperationGetAttributeByName(op, str("padding"));
  bool nan = !mlirAttributeIsNull(pad) && mlirStringAttrGetValue(pad).length == 3;
  MlirType et = lw_scalar_of(L, tt), i64 = mlirIntegerTypeGet(L->ctx, 64), i1 = mlirIntegerTypeGet(L->ctx, 1);
  int bits = lw_bits_of(et) == 1 ? 8 : lw_bits_of(et); /* booleans are bytes in memory */
  MlirType it = mlirIntegerTypeGet(L->ctx, (unsigned)bits);
  Vals *v = is_load ? NULL : lw_get(L, mlirOperationGetOperand(op, 1));
  Vals *out = is_load ? lw_new_vals(L, e.n) : NULL;
  MlirNamedAttribute gep[2] = {
      lw_named(L, "elem_type", mlirTypeAttrGet(et)),
      lw_named(L, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 1, (int32_t[]){INT32_MIN})),
  };
  MlirNamedAttribute tv = lw_named(L, "value", mlirIntegerAttrGet(i1, 1));
  char name[32];
  for (int k = 0; k < e.n; k++) {
    MlirValue lin = lw_emit1(L, "arith.constant", i64, 0, NULL, 1, (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(i64, 0))});
    MlirValue pred = lw_emit1(L, "arith.constant", i1, 0, NULL, 1, &tv);
    for (int d = 0; d < r; d++) {
      MlirValue pos = lw_bin(L, "arith.addi", b->v[1 + 2 * r + d], lw_index_of(L, &e, k, d));
      MlirValue pos64 = lw_emit1(L, "arith.extsi", i64, 1, &pos, 0, NULL);
      lin = lw_bin(L, "arith.addi", lin, lw_bin(L, "arith.muli", pos64, b->v[1 + r + d]));
      if (check[d]) {
        MlirValue lt[2] = {pos64, b->v[1 + d]}, ge[2] = {pos64, lw_emit1(L, "arith.constant", i64, 0, NULL, 1, (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(i64, 0))})};
        MlirNamedAttribute slt = lw_named(L, "predicate", mlirIntegerAttrGet(i64, 2)), sge = lw_named(L, "predicate", mlirIntegerAttrGet(i64, 5));
        pred = lw_bin(L, "arith.andi", pred, lw_emit1(L, "arith.cmpi", i1, 2, lt, 1, &slt));
        pred = lw_bin(L, "arith.andi", pred, lw_emit1(L, "arith.cmpi", i1, 2, ge, 1, &sge));
      }
    }
    MlirValue ops[2] = {b->v[0], lin};
    MlirValue addr = lw_emit1(L, "llvm.getelementptr", mlirLLVMPointerTypeGet(L->ctx, 1), 2, ops, 2, gep);
    if (is_load) {
      MlirAttribute dflt = nan && mlirTypeIsAFloat(et) ? mlirFloatAttrDoubleGet(L->ctx, et, __builtin_nan(""))
                                                       : mlirTypeIsAInteger(et) ? mlirIntegerAttrGet(et, 0) : mlirFloatAttrDoubleGet(L->ctx, et, 0.0);
      MlirValue other = lw_emit1(L, "arith.constant", et, 0, NULL, 1, (MlirNamedAttribute[]){lw_named(L, "value", dflt)});
      snprintf(name, sizeof name, "tilec.ld.b%d", bits);
      MlirValue args[3] = {addr, pred, lw_as_bits(L, other)};
      out->v[k] = lw_from_bits(L, lw_call(L, name, it, 3, args), et);
    } else {
      snprintf(name, sizeof name, "tilec.st.b%d", bits);
      MlirValue args[3] = {addr, lw_bin(L, "arith.andi", pred, lw_owns(L, &e, k)), lw_as_bits(L, v->v[k])};
      lw_call(L, name, (MlirType){NULL}, 3, args);
    }
  }
  if (is_load) lw_put(L, mlirOperationGetResult(op, 0), out);
}

/* The predicate of element k: the mask's, or true without one. */
static MlirValue pred_of(Lower *L, Vals *m, int k) {
  if (m) return m->v[k];
  MlirType i1 = mlirIntegerTypeGet(L->ctx, 1);
  return lw_emit1(L, "arith.constant", i1, 0, NULL, 1, (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(i1, 1))});
}

/* A load's predicate for element k: its mask's, and where a pipelined
 * loop issues it ahead, whether that iteration exists (its addresses may
 * lie past the data). */
static MlirValue load_pred(Lower *L, Vals *m, int k, MlirValue guard) {
  MlirValue p = pred_of(L, m, k);
  return mlirValueIsNull(guard) ? p : lw_bin(L, "arith.andi", p, guard);
}

/* Whether v is absent or a constant zero (+0.0 for floats). */
static bool zero_or_none(MlirValue v) { return mlirValueIsNull(v) || value_is_zero(v); }

/* A load whose only use is its conversion to an operand of mma.sync of
 * 16-bit elements (sm_80 and later) goes from global memory straight to
 * the operand's shared buffer by cp.async: a run of vec elements along a
 * row, 4, 8 or 16 bytes, is one copy, zero-filled where the mask is off
 * (so `other` must be zero). Each element has one holder (the layout does
 * not wrap), so no two copies meet. The conversion waits for them
 * (lower_mma.c). */
static bool copy_to_operand(Lower *L, MlirOperation op, Vals *p, Vals *m, MlirValue other, int vec, int bits, Lazy *slot,
                            MlirValue guard) {
  MlirValue r = mlirOperationGetResult(op, 0);
  if (L->comp->target->sm < 80 || (vec * bits != 32 && vec * bits != 64 && vec * bits != 128) || !zero_or_none(other))
    return false;
  bool trans;
  MlirOperation cv = operand_conversion(L->comp, op, &trans);
  if (mlirOperationIsNull(cv)) return false;
  /* 16-bit operands; for wgmma (whose buffers keep 16-byte chunks whole
   * for every type) 8- and 32-bit ones too */
  Layout dl;
  bool wgmma = layout_of_type(L->comp, mlirValueGetType(mlirOperationGetResult(cv, 0)), &dl) && dl.kind == L_DOT_OP &&
               dl.parent->kind == L_MMA && dl.parent->version == 3;
  if (bits != 16 && !(wgmma && (bits == 8 || bits == 32))) return false;
  /* runs along the buffer's rows: the load's fastest dimension is the
   * buffer's columns (K of a B laid [N][K] that the load holds as [K, N]) */
  bool kn = operand_kn(L->comp, op, cv, trans);
  Elems e;
  if (!lw_elems_of(L, mlirValueGetType(r), &e) || !lw_plain(&e) || e.rank != 2 || e.l.order[0] != operand_cols(L->comp, op, cv, trans))
    return false;
  for (int d = 0; d < 2; d++)
    if ((int64_t)e.l.spt[d] * e.l.tpw[d] * e.l.wpc[d] > e.shape[d]) return false;
  Lazy *z = slot ? slot : lw_mma_buffer(L, mlirValueGetType(mlirOperationGetResult(cv, 0)), 1, kn);
  if (!z) return false;
  z->copied = true;
  z->e = e;
  if (!slot) z->flipped = trans;
  char name[32];
  snprintf(name, sizeof name, "tilec.cp.async.%d", vec * bits / 8);
  IfScope where;
  bool guarded = slot && !mlirValueIsNull(guard);
  if (guarded) where = lw_begin_if(L, guard);
  for (int k = 0; k < p->n; k += vec) {
    MlirValue pred = pred_of(L, m, k);
    MlirValue at = lw_mma_place(L, z, &e, k, trans);
    MlirValue args[3] = {lw_shared_at(L, z->base, z->et, at), p->v[k], pred};
    lw_tag_smem(L, lw_call_op(L, name, (MlirType){NULL}, 3, args), z->base);
  }
  if (guarded) lw_end_if(L, &where);
  Vals *res = lw_new_vals(L, p->n);
  res->lazy = z;
  lw_put(L, r, res);
  return true;
}

/* A load or store; a load into a pipelined loop's slot when slot is not
 * NULL (lw_load_to_slot), where guard holds when it is not NULL. */
static void load_store(Lower *L, MlirOperation op, bool is_load, Lazy *slot, MlirValue guard) {
  MlirValue ptr = mlirOperationGetOperand(op, 0);
  MlirType pt = mlirValueGetType(ptr);
  if (lw_block_ptr_rank(L, pt)) {
    lower_block_access(L, op, is_load);
    return;
  }
  Vals *p = lw_get(L, ptr);
  MlirValue mask = {NULL}, other = {NULL}, value = {NULL};
  intptr_t nops = mlirOperationGetNumOperands(op);
  if (is_load) {
    MlirAttribute seg = mlirOperationGetAttributeByName(op, str("operandSegmentSizes"));
    int has_mask = mlirDenseI32ArrayGetElement(seg, 1), has_other = mlirDenseI32ArrayGetElement(seg, 2);
    if (has_mask) mask = mlirOperationGetOperand(op, 1);
    if (has_other) other = mlirOperationGetOperand(op, 1 + has_mask);
  } else {
    value = mlirOperationGetOperand(op, 1);
    if (nops > 2) mask = mlirOperationGetOperand(op, 2);
  }
  Vals *m = mlirValueIsNull(mask) ? NULL : lw_get(L, mask);
  Vals *o = mlirValueIsNull(other) ? NULL : lw_get(L, other);
  Vals *v = mlirValueIsNull(value) ? NULL : lw_get(L, value);
  MlirType et = is_load ? lw_scalar_of(L, mlirValueGetType(mlirOperationGetResult(op, 0))) : lw_scalar_of(L, mlirValueGetType(value));
  int bits = lw_bits_of(et) == 1 ? 8 : lw_bits_of(et); /* booleans are bytes in memory */
  MlirType it = mlirIntegerTypeGet(L->ctx, (unsigned)bits);
  Vals *res = is_load ? lw_new_vals(L, p->n) : NULL;
  Elems e;
  bool tensor = mlirTypeIsARankedTensor(pt);
  if (!is_load && tensor && !lw_elems_of(L, pt, &e)) {
    lw_fail(L, op, "of this layout is not supported yet by the GPU code generator");
    return;
  }
  char name[32];
  int vec = vector_width(L, ptr, mask, bits);
  /* a run of vec elements moves as `words` words of wbits: the elements
   * themselves from 32 bits up, else packed, per to a word */
  int wbits = bits >= 32 ? bits : vec * bits >= 32 ? 32 : vec * bits, per = bits >= 32 ? 1 : wbits / bits;
  int words = vec / per;
  MlirType wt = mlirIntegerTypeGet(L->ctx, (unsigned)wbits);
  if (is_load && tensor && copy_to_operand(L, op, p, m, other, vec, bits, slot, guard)) return;
  for (int k = 0; vec > 1 && k < p->n; k += vec) {
    /* vec consecutive elements, one predicate: one access of up to 128 bits */
    MlirValue pred = is_load ? load_pred(L, m, k, guard) : pred_of(L, m, k);
    MlirValue args[2 + 4], bits_of[16];
    args[0] = p->v[k];
    args[1] = pred;
    if (is_load) {
      for (int j = 0; j < vec; j++)
        bits_of[j] = o ? lw_as_bits(L, o->v[k + j]) : mlirOperationGetResult(lw_emit(L, "arith.constant", 1, &it, 0, NULL, 1,
                                                                                  (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(it, 0))}), 0);
      for (int w = 0; w < words; w++) args[2 + w] = per > 1 ? pack(L, &bits_of[w * per], per, bits) : bits_of[w];
      MlirValue got[4];
      if (words == 1) {
        snprintf(name, sizeof name, "tilec.ld.b%d", wbits);
        got[0] = lw_call(L, name, wt, 3, args);
      } else {
        MlirType fields[4] = {wt, wt, wt, wt};
        MlirType st = mlirLLVMStructTypeLiteralGet(L->ctx, words, fields, false);
        snprintf(name, sizeof name, "tilec.ld.v%d.b%d", words, wbits);
        MlirValue agg = lw_call(L, name, st, 2 + words, args);
        for (int w = 0; w < words; w++) {
          MlirNamedAttribute pos = lw_named(L, "position", mlirDenseI64ArrayGet(L->ctx, 1, (int64_t[]){w}));
          got[w] = lw_emit1(L, "llvm.extractvalue", wt, 1, &agg, 1, &pos);
        }
      }
      for (int j = 0; j < vec; j++)
        res->v[k + j] = lw_from_bits(L, per > 1 ? unpack(L, got[j / per], j % per, bits) : got[j], et);
    } else {
      args[1] = lw_bin(L, "arith.andi", pred, lw_holder(L, &e, k)); /* the run's elements share their holder */
      for (int j = 0; j < vec; j++) bits_of[j] = lw_as_bits(L, v->v[k + j]);
      bool halves = per == 2 && (mlirTypeIsAF16(et) || mlirTypeIsABF16(et));
      for (int w = 0; w < words; w++)
        args[2 + w] = halves    ? lw_pack_pair(L, v->v[k + 2 * w], v->v[k + 2 * w + 1])
                      : per > 1 ? pack(L, &bits_of[w * per], per, bits)
                                : bits_of[w];
      if (words == 1) snprintf(name, sizeof name, "tilec.st.b%d", wbits);
      else snprintf(name, sizeof name, "tilec.st.v%d.b%d", words, wbits);
      lw_call(L, name, (MlirType){NULL}, 2 + words, args);
    }
  }
  for (int k = 0; vec == 1 && k < p->n; k++) {
    MlirValue pred = is_load ? load_pred(L, m, k, guard) : pred_of(L, m, k);
    if (is_load) {
      MlirValue dflt = o ? lw_as_bits(L, o->v[k]) : mlirOperationGetResult(lw_emit(L, "arith.constant", 1, &it, 0, NULL, 1,
                                                                             (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(it, 0))}), 0);
      snprintf(name, sizeof name, "tilec.ld.b%d", bits);
      MlirValue args[3] = {p->v[k], pred, dflt};
      res->v[k] = lw_from_bits(L, lw_call(L, name, it, 3, args), et);
    } else {
      snprintf(name, sizeof name, "tilec.st.b%d", bits);
      MlirValue args[3] = {p->v[k], lw_bin(L, "arith.andi", pred, lw_holder(L, tensor ? &e : NULL, k)), lw_as_bits(L, v->v[k])};
      lw_call(L, name, (MlirType){NULL}, 3, args);
    }
  }
  if (is_load) lw_put(L, mlirOperationGetResult(op, 0), res);
}

/* A pipelined load (lower_control.c) into its slot, where the guard holds
 * (the iteration exists): by cp.async, else loaded into registers and
 * stored there. */
void lw_lower_load_store(Lower *L, MlirOperation op, bool is_load) { load_store(L, op, is_load, NULL, (MlirValue){NULL}); }

/* A load into registers, each access predicated on guard too: a load of a
 * pipelined loop's first stage, for an iteration that may not exist. */
void lw_load_guarded(Lower *L, MlirOperation load, MlirValue guard) { load_store(L, load, true, NULL, guard); }

void lw_load_to_slot(Lower *L, MlirOperation load, Lazy *slot, MlirValue guard) {
  /* where the iteration exists only: its addresses may lie past the data,
   * and after the loop the slot's memory may be another buffer's, which a
   * late store would overwrite. A load read only by its conversion to the
   * operand goes whole inside the guard; one read elsewhere too keeps its
   * values outside, each access predicated on the guard. */
  MlirValue r = mlirOperationGetResult(load, 0);
  bool trans;
  bool alone = !mlirOperationIsNull(operand_conversion(L->comp, load, &trans));
  IfScope whole;
  if (alone) whole = lw_begin_if(L, guard);
  load_store(L, load, true, slot, alone ? (MlirValue){NULL} : guard);
  Vals *x = lw_get(L, r);
  Elems e;
  if (!L->failed && !(x && x->lazy == slot)) {
    if (!lw_elems_of(L, mlirValueGetType(r), &e)) {
      lw_fail(L, load, "of this layout is not supported yet by the GPU code generator");
    } else {
      IfScope s;
      if (!alone) s = lw_begin_if(L, guard);
      for (int k = 0; k < e.n; k++)
        lw_smem_put(L, slot->base, slot->et, lw_mma_place(L, slot, &e, k, trans), lw_val(L, x, k));
      if (!alone) lw_end_if(L, &s);
    }
  }
  if (alone) lw_end_if(L, &whole);
}

/* ---- prefetched loads ------------------------------------------------------------------
 * A load that a pipelined loop without a dot runs ahead (passes/pipeline.c)
 * goes to a buffer of its own in shared memory, where each thread keeps
 * the elements it holds and only it reads them back: run r (vec elements,
 * one cp.async of 4, 8 or 16 bytes) of thread t in slot s lies at
 * ((s * runs + r) * threads + t) * vec, so that a warp's copies and reads
 * of a run are consecutive. A thread reads only its own copies, after its
 * own wait: no barrier orders them (the accesses are tagged private for
 * insert-barriers). */
struct Prefetch {
  MlirValue base;
  MlirType et;
  Elems e;
  int vec, runs, threads;
};

Prefetch *lw_prefetch_buffer(Lower *L, MlirOperation load, int slots) {
  MlirValue r = mlirOperationGetResult(load, 0), ptr = mlirOperationGetOperand(load, 0);
  MlirAttribute seg = mlirOperationGetAttributeByName(load, str("operandSegmentSizes"));
  MlirValue mask = mlirDenseI32ArrayGetElement(seg, 1) ? mlirOperationGetOperand(load, 1) : (MlirValue){NULL};
  Prefetch *b = arena_alloc(L->comp->a, sizeof *b);
  if (!lw_elems_of(L, mlirValueGetType(r), &b->e) || !lw_plain(&b->e)) return NULL;
  b->et = lw_scalar_of(L, mlirValueGetType(r));
  int bits = lw_bits_of(b->et);
  if (bits != 32 && bits != 64) return NULL;
  b->vec = vector_width(L, ptr, mask, bits);
  b->runs = b->e.n / b->vec;
  b->threads = L->comp->num_warps * L->comp->threads_per_warp;
  b->base = lw_shared_buffer(L, b->et, (int64_t)slots * b->e.n * b->threads);
  return b;
}

static MlirValue prefetch_place(Lower *L, const Prefetch *b, MlirValue slot, int k) {
  MlirValue run = lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", slot, lw_const_i32(L, b->runs)), lw_const_i32(L, k / b->vec));
  MlirValue at = lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", run, lw_const_i32(L, b->threads)), L->tid);
  return lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", at, lw_const_i32(L, b->vec)), lw_const_i32(L, k % b->vec));
}

static void mark_private(MlirOperation op) {
  mlirOperationSetAttributeByName(op, str("tilec.private"), mlirUnitAttrGet(mlirOperationGetContext(op)));
}

void lw_prefetch_to_slot(Lower *L, MlirOperation load, const Prefetch *b, MlirValue slot, MlirValue guard) {
  MlirAttribute seg = mlirOperationGetAttributeByName(load, str("operandSegmentSizes"));
  Vals *p = lw_get(L, mlirOperationGetOperand(load, 0));
  Vals *m = mlirDenseI32ArrayGetElement(seg, 1) ? lw_get(L, mlirOperationGetOperand(load, 1)) : NULL;
  char name[32];
  snprintf(name, sizeof name, "tilec.cp.async.%d", b->vec * lw_bits_of(b->et) / 8);
  /* where the iteration exists only: its addresses may lie past the data */
  IfScope where = lw_begin_if(L, guard);
  for (int k = 0; k < p->n; k += b->vec) {
    MlirValue args[3] = {lw_shared_at(L, b->base, b->et, prefetch_place(L, b, slot, k)), p->v[k], pred_of(L, m, k)};
    MlirOperation cp = lw_call_op(L, name, (MlirType){NULL}, 3, args);
    lw_tag_smem(L, cp, b->base);
    mark_private(cp);
  }
  lw_end_if(L, &where);
}

Vals *lw_prefetched(Lower *L, const Prefetch *b, MlirValue slot) {
  Vals *x = lw_new_vals(L, b->e.n);
  for (int k = 0; k < b->e.n; k++) {
    x->v[k] = lw_load_shared(L, b->base, b->et, prefetch_place(L, b, slot, k));
    mark_private(mlirOpResultGetOwner(x->v[k]));
  }
  return x;
}
