/*
 * lower_extra.c — lowering Philox's rounds, device_assert, device_print,
 * atomics and inline assembly.
 */
#include "lower.h"

/* ---- Philox: tile.philox ---------------------------------------------------------------- */

static MlirValue const_bits(Lower *L, MlirType t, uint64_t bits) {
  MlirNamedAttribute v = lw_named(L, "value", mlirIntegerAttrGet(t, (int64_t)bits));
  return lw_emit1(L, "arith.constant", t, 0, NULL, 1, &v);
}

/* The rounds of Triton's philox_impl on each element's four counter words
 * and two key words, in 32- or 64-bit arithmetic by the words' type, each
 * width with its own constants (the frontend builds the same rounds from
 * tile ops where the words' shapes differ). */
void lw_lower_philox(Lower *L, MlirOperation op) {
  int rounds = (int)op_int_attr(op, "n_rounds", 10);
  MlirType rt = mlirValueGetType(mlirOperationGetResult(op, 0)), st = lw_scalar_of(L, rt), two[2] = {st, st};
  bool wide = lw_bits_of(st) == 64;
  MlirValue key_a = const_bits(L, st, wide ? 0x9E3779B97F4A7C15u : 0x9E3779B9u);
  MlirValue key_b = const_bits(L, st, wide ? 0xBB67AE8584CAA73Bu : 0xBB67AE85u);
  MlirValue round_a = const_bits(L, st, wide ? 0xD2E7470EE14C6C93u : 0xD2511F53u);
  MlirValue round_b = const_bits(L, st, wide ? 0xCA5A826395121157u : 0xCD9E8D57u);
  Vals *in[6], *out[4];
  for (int i = 0; i < 6; i++) in[i] = lw_get(L, mlirOperationGetOperand(op, i));
  int n = lw_count_of(L, rt);
  for (int i = 0; i < 4; i++) out[i] = lw_new_vals(L, n);
  for (int e = 0; e < n; e++) {
    MlirValue c[4], k[2];
    for (int i = 0; i < 4; i++) c[i] = in[i]->v[in[i]->n == 1 ? 0 : e];
    for (int i = 0; i < 2; i++) k[i] = in[4 + i]->v[in[4 + i]->n == 1 ? 0 : e];
    for (int r = 0; r < rounds; r++) {
      MlirValue c0 = c[0], c2 = c[2];
      MlirValue hb[2] = {round_b, c2}, ha[2] = {round_a, c0};
      MlirValue hi_b = mlirOperationGetResult(lw_emit(L, "arith.mului_extended", 2, two, 2, hb, 0, NULL), 1);
      MlirValue hi_a = mlirOperationGetResult(lw_emit(L, "arith.mului_extended", 2, two, 2, ha, 0, NULL), 1);
      c[0] = lw_bin(L, "arith.xori", lw_bin(L, "arith.xori", hi_b, c[1]), k[0]);
      c[2] = lw_bin(L, "arith.xori", lw_bin(L, "arith.xori", hi_a, c[3]), k[1]);
      c[1] = lw_bin(L, "arith.muli", round_b, c2);
      c[3] = lw_bin(L, "arith.muli", round_a, c0);
      k[0] = lw_bin(L, "arith.addi", k[0], key_a);
      k[1] = lw_bin(L, "arith.addi", k[1], key_b);
    }
    for (int i = 0; i < 4; i++) out[i]->v[e] = c[i];
  }
  for (int i = 0; i < 4; i++) lw_put(L, mlirOperationGetResult(op, i), out[i]);
}

/* ---- device_assert ---------------------------------------------------------------------- */

/* A constant NUL-terminated string in global memory; its generic address. */
static MlirValue string_global(Lower *L, const char *text, size_t len) {
  char name[32];
  snprintf(name, sizeof name, "tilec_str%d", L->nstrings++);
  char *z = arena_alloc(L->comp->a, len + 1);
  memcpy(z, text, len);
  MlirNamedAttribute gattrs[6] = {
      lw_named(L, "sym_name", mlirStringAttrGet(L->ctx, str(name))),
      lw_named(L, "global_type", mlirTypeAttrGet(mlirLLVMArrayTypeGet(mlirIntegerTypeGet(L->ctx, 8), (unsigned)len + 1))),
      lw_named(L, "linkage", ir_parse_attr(L->comp->ic, "#llvm.linkage<internal>")),
      lw_named(L, "value", mlirStringAttrGet(L->ctx, mlirStringRefCreate(z, len + 1))),
      lw_named(L, "constant", mlirUnitAttrGet(L->ctx)),
      lw_named(L, "addr_space", mlirIntegerAttrGet(lw_i32(L), 0)),
  };
  return lw_global(L, name, gattrs, 6, 0);
}

static MlirValue string_attr_global(Lower *L, MlirOperation op, const char *attr) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, str(attr));
  MlirStringRef v = mlirAttributeIsNull(a) ? str("") : mlirStringAttrGetValue(a);
  return string_global(L, v.data, v.length);
}

/* tile.assert: when any element of the condition is false, the thread
 * calls CUDA's __assertfail with the message, file, line and kernel, which
 * stops the kernel and reports them. */
void lw_lower_assert(Lower *L, MlirOperation op) {
  Vals *c = lw_get(L, mlirOperationGetOperand(op, 0));
  MlirValue all = c->v[0];
  for (int k = 1; k < c->n; k++) all = lw_bin(L, "arith.andi", all, c->v[k]);
  MlirType i1 = mlirIntegerTypeGet(L->ctx, 1);
  MlirNamedAttribute one = lw_named(L, "value", mlirIntegerAttrGet(i1, 1));
  MlirValue failed = lw_bin(L, "arith.xori", all, lw_emit1(L, "arith.constant", i1, 0, NULL, 1, &one));
  MlirValue args[5] = {
      string_attr_global(L, op, "message"), string_attr_global(L, op, "file"),
      lw_const_i32(L, op_int_attr(op, "line", 0)), string_attr_global(L, op, "function"),
      lw_emit1(L, "arith.constant", mlirIntegerTypeGet(L->ctx, 64), 0, NULL, 1,
            (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 64), 1))}),
  };
  /* if (failed) __assertfail(...) */
  IfScope s = lw_begin_if(L, failed);
  lw_call(L, "__assertfail", (MlirType){NULL}, 5, args);
  lw_end_if(L, &s);
}

/* ---- device_print ---------------------------------------------------------------------- */

/* tile.print: for each element, one vprintf by its first holder of
 * "pid (x, y, z) idx (i, j) PREFIX v0 v1 ...": the program ids, the
 * element's index, and the value of each argument there; a scalar once,
 * by thread 0. */
void lw_lower_print(Lower *L, MlirOperation op) {
  int n = (int)mlirOperationGetNumOperands(op);
  MlirStringRef prefix = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("prefix")));
  bool hex = !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("hex")));
  /* the elements follow the first tensor argument's layout */
  Elems e = {.n = 1};
  bool tensor = false;
  for (int i = 0; i < n && !tensor; i++) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    if (mlirTypeIsARankedTensor(t)) {
      if (!lw_elems_of(L, t, &e)) {
        lw_fail(L, op, "of this layout is not supported yet by the GPU code generator");
        return;
      }
      tensor = true;
    }
  }
  int rank = tensor ? (int)mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetOperand(op, 0))) : 0;
  /* the format */
  StrBuf fmt = {.arena = L->comp->a};
  sb_printf(&fmt, "pid (%%d, %%d, %%d) idx (");
  for (int d = 0; d < rank; d++) sb_printf(&fmt, "%s%%d", d ? ", " : "");
  sb_printf(&fmt, ") %.*s", (int)prefix.length, prefix.data);
  MlirType f64 = mlirF64TypeGet(L->ctx), i64 = mlirIntegerTypeGet(L->ctx, 64);
  MlirType fields[32];
  int nf = 0;
  for (int i = 0; i < 3 + rank; i++) fields[nf++] = lw_i32(L);
  Vals *args[16];
  for (int i = 0; i < n && i < 16; i++) {
    args[i] = lw_get(L, mlirOperationGetOperand(op, i));
    MlirType et = lw_scalar_of(L, mlirValueGetType(mlirOperationGetOperand(op, i)));
    bool fl = !mlirTypeIsAInteger(et) && !mlirTypeIsALLVMPointerType(et);
    bool wide = mlirTypeIsALLVMPointerType(et) || (mlirTypeIsAInteger(et) && mlirIntegerTypeGetWidth(et) == 64);
    sb_printf(&fmt, " %s", fl ? (hex ? "%a" : "%f") : hex ? (wide ? "0x%llx" : "0x%x") : wide ? "%lld" : "%d");
    fields[nf++] = fl ? f64 : wide ? i64 : lw_i32(L);
  }
  sb_printf(&fmt, "\n");
  MlirValue fmt_ptr = string_global(L, fmt.s, fmt.len);
  MlirType st = mlirLLVMStructTypeLiteralGet(L->ctx, nf, fields, false);
  MlirNamedAttribute aa = lw_named(L, "elem_type", mlirTypeAttrGet(st));
  /* the buffer is allocated once, in the entry block (a print in a loop must
   * not grow the stack) */
  MlirBlock saved_block = L->block;
  MlirOperation saved_term = L->term;
  L->block = L->entry;
  L->term = L->entry_first;
  MlirValue one = lw_const_i32(L, 1);
  MlirValue buf = lw_emit1(L, "llvm.alloca", mlirLLVMPointerTypeGet(L->ctx, 0), 1, &one, 1, &aa);
  L->block = saved_block;
  L->term = saved_term;
  static const char *const ids[3] = {"nvvm.read.ptx.sreg.ctaid.x", "nvvm.read.ptx.sreg.ctaid.y", "nvvm.read.ptx.sreg.ctaid.z"};
  MlirValue pid[3];
  for (int d = 0; d < 3; d++) pid[d] = lw_emit1(L, ids[d], lw_i32(L), 0, NULL, 0, NULL);
  for (int k = 0; k < e.n; k++) {
    MlirValue vals[32];
    int nv = 0;
    for (int d = 0; d < 3; d++) vals[nv++] = pid[d];
    for (int d = 0; d < rank; d++) vals[nv++] = lw_index_of(L, &e, k, d + (e.sliced >= 0 && d >= e.sliced));
    for (int i = 0; i < n && i < 16; i++) {
      MlirValue v = args[i]->v[args[i]->n == 1 ? 0 : k];
      MlirType t = mlirValueGetType(v), want = fields[3 + rank + i];
      if (mlirTypeIsALLVMPointerType(t)) v = lw_emit1(L, "llvm.ptrtoint", i64, 1, &v, 0, NULL);
      else if (mlirTypeEqual(want, f64) && !mlirTypeEqual(t, f64)) v = lw_emit1(L, "arith.extf", f64, 1, &v, 0, NULL);
      else if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) < 32) v = lw_emit1(L, "arith.extsi", lw_i32(L), 1, &v, 0, NULL);
      vals[nv++] = v;
    }
    for (int f = 0; f < nf; f++) {
      MlirNamedAttribute gep[2] = {
          lw_named(L, "elem_type", mlirTypeAttrGet(st)),
          lw_named(L, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 2, (int32_t[]){0, f})),
      };
      MlirValue at = lw_emit1(L, "llvm.getelementptr", mlirLLVMPointerTypeGet(L->ctx, 0), 1, &buf, 2, gep);
      MlirValue sv[2] = {vals[f], at};
      lw_emit(L, "llvm.store", 0, NULL, 2, sv, 0, NULL);
    }
    IfScope s = lw_begin_if(L, lw_holder(L, tensor ? &e : NULL, k)); /* once per element */
    MlirValue cargs[2] = {fmt_ptr, buf};
    lw_call(L, "vprintf", lw_i32(L), 2, cargs);
    lw_end_if(L, &s);
  }
}

/* ---- atomics ------------------------------------------------------------------------ */

/* Whether a 16-bit float atomic add can go two elements at a time: a
 * thread's elements k, k + 1 (k even) are neighbours along the fastest
 * dimension, their addresses consecutive with the first 4-byte aligned
 * (axis info of the pointers) and their mask the same. */
static bool half_pairs(Lower *L, MlirOperation op, const Elems *e) {
  if (!lw_plain(e)) return false;
  int fast = e->l.order[0];
  if (e->l.spt[fast] % 2) return false;
  const AxisInfo *ai = axis_info_of(L->aa, mlirOperationGetOperand(op, 0));
  if (!ai || ai->contiguity[fast] % 2 || ai->divisibility[fast] % 4) return false;
  if (mlirOperationGetNumOperands(op) > 2) {
    const AxisInfo *mi = axis_info_of(L->aa, mlirOperationGetOperand(op, 2));
    if (!mi || mi->constancy[fast] % 2) return false;
  }
  return true;
}

/* tile.atomic_rmw / atomic_cas: each element once, by its first holder (a
 * scalar atomic by thread 0, its result shared through shared memory), as
 * a predicated call tilec.atom.<op>.<sem>.<scope>.<type>(ptr, pred, operands...). */
void lw_lower_atomic(Lower *L, MlirOperation op, bool cas) {
  MlirValue ptr = mlirOperationGetOperand(op, 0), r = mlirOperationGetResult(op, 0);
  MlirType rt = mlirValueGetType(r), et = lw_scalar_of(L, rt);
  const char *kind = "cas";
  char buf[16];
  if (!cas) {
    MlirStringRef k = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("op")));
    snprintf(buf, sizeof buf, "%.*s", (int)k.length, k.data);
    kind = buf;
  }
  MlirStringRef sem = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("sem")));
  MlirStringRef scope = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("scope")));
  int bits = lw_bits_of(et);
  bool fl = mlirTypeIsAF32(et) || mlirTypeIsAF64(et) || mlirTypeIsAF16(et) || mlirTypeIsABF16(et);
  /* PTX type suffix: bit types for exch/cas/bitwise, typed for arithmetic */
  char ty[8];
  if (!strcmp(kind, "xchg") || !strcmp(kind, "cas") || !strcmp(kind, "and") || !strcmp(kind, "or") || !strcmp(kind, "xor"))
    snprintf(ty, sizeof ty, "b%d", bits);
  else if (fl)
    snprintf(ty, sizeof ty, "f%d", bits);
  else
    snprintf(ty, sizeof ty, "%c%d", !strcmp(kind, "add") ? 'u' : 's', bits);
  bool bf = mlirTypeIsABF16(et);
  if (fl && bits < 32) snprintf(ty, sizeof ty, "%s", bf ? "bf16" : "f16"); /* only add reaches here (sema) */
  char name[96];
  snprintf(name, sizeof name, "tilec.atom.%s.%.*s.%.*s.%s", !strcmp(kind, "xchg") ? "exch" : kind, (int)sem.length, sem.data,
           (int)scope.length, scope.data, ty);
  Vals *p = lw_get(L, ptr);
  int nvals = cas ? 2 : 1;
  Vals *ops[2] = {lw_get(L, mlirOperationGetOperand(op, 1)), cas ? lw_get(L, mlirOperationGetOperand(op, 2)) : NULL};
  Vals *mask = !cas && mlirOperationGetNumOperands(op) > 2 ? lw_get(L, mlirOperationGetOperand(op, 2)) : NULL;
  MlirType it = mlirIntegerTypeGet(L->ctx, (unsigned)bits);
  bool scalar = !mlirTypeIsARankedTensor(rt);
  Elems e;
  if (!scalar && !lw_elems_of(L, rt, &e)) {
    lw_fail(L, op, "of this layout is not supported yet by the GPU code generator");
    return;
  }
  Vals *out = lw_new_vals(L, p->n);
  int pairs = !scalar && fl && bits == 16 && half_pairs(L, op, &e);
  for (int k = 0; pairs && k < p->n; k += 2) {
    /* two neighbours in one 32-bit word: one atom.add.noftz.{f16,bf16}x2,
     * the first at the lower address */
    MlirValue pred = lw_bin(L, "arith.andi", lw_owns(L, &e, k), lw_owns(L, &e, k + 1));
    if (mask) pred = lw_bin(L, "arith.andi", pred, mask->v[mask->n == 1 ? 0 : k]);
    MlirType i32 = lw_i32(L);
    MlirValue lo = lw_as_bits(L, ops[0]->v[ops[0]->n == 1 ? 0 : k]), hi = lw_as_bits(L, ops[0]->v[ops[0]->n == 1 ? 0 : k + 1]);
    lo = lw_emit1(L, "arith.extui", i32, 1, &lo, 0, NULL);
    hi = lw_emit1(L, "arith.extui", i32, 1, &hi, 0, NULL);
    MlirValue both = lw_bin(L, "arith.ori", lo, lw_bin(L, "arith.shli", hi, lw_const_i32(L, 16)));
    char xname[104];
    snprintf(xname, sizeof xname, "%sx2", name);
    MlirValue args[3] = {p->v[k], pred, both};
    MlirValue old = lw_call(L, xname, i32, 3, args);
    MlirValue olds[2] = {old, lw_bin(L, "arith.shrui", old, lw_const_i32(L, 16))};
    for (int j = 0; j < 2; j++)
      out->v[k + j] = lw_from_bits(L, lw_emit1(L, "arith.trunci", it, 1, &olds[j], 0, NULL), et);
  }
  for (int k = 0; !pairs && k < p->n; k++) {
    MlirValue pred = lw_holder(L, scalar ? NULL : &e, k);
    if (mask) pred = lw_bin(L, "arith.andi", pred, mask->v[mask->n == 1 ? 0 : k]);
    MlirValue args[4] = {p->v[k], pred};
    for (int i = 0; i < nvals; i++) args[2 + i] = lw_as_bits(L, ops[i]->v[ops[i]->n == 1 ? 0 : k]);
    MlirValue old = lw_from_bits(L, lw_call(L, name, it, 2 + nvals, args), et);
    if (scalar && !op_results_unused(op)) {
      /* thread 0 did it: everyone reads its result (when it is used) */
      MlirValue base = lw_shared_buffer(L, et, 1);
      MlirValue zero = lw_const_i32(L, 0);
      MlirValue at[2] = {base, zero};
      (void)at;
      lw_store_shared_if(L, base, et, pred, old);
      old = lw_load_shared(L, base, et, zero);
    }
    out->v[k] = old;
  }
  lw_put(L, r, out);
}

/* ---- tl.dot with FMAs --------------------------------------------------------------------- */

/* An operand in the accumulator's type: floats widened, integers
 * sign-extended (a narrower accumulator truncates, as out_dtype asks). */
static MlirValue to_acc(Lower *L, MlirValue v, MlirType acc) {
  MlirType t = mlirValueGetType(v);
  if (mlirTypeEqual(t, acc)) return v;
  bool f = !mlirTypeIsAInteger(acc);
  const char *cast = f ? (lw_bits_of(t) < lw_bits_of(acc) ? "arith.extf" : "arith.truncf")
                       : (lw_bits_of(t) < lw_bits_of(acc) ? "arith.extsi" : "arith.trunci");
  return lw_emit1(L, cast, acc, 1, &v, 0, NULL);
}

static MlirValue fma_step(Lower *L, MlirType acc, MlirValue x, MlirValue y, MlirValue sum) {
  x = to_acc(L, x, acc), y = to_acc(L, y, acc);
  if (mlirTypeIsAInteger(acc)) return lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", x, y), sum);
  MlirValue ops[3] = {x, y, sum};
  return lw_emit1(L, "math.fma", acc, 3, ops, 0, NULL);
}

/* The dot with K as a loop (scf.for, the accumulators carried), its
 * operands in shared memory: a step reads each row of A and column of B the
 * thread needs at that k, at its place with K = 0 (computed once, before
 * the loop) plus k times the stride of K. The code is one step, not K. */
static void rolled_dot(Lower *L, Lazy *za, Lazy *zb, const Elems *ea, const Elems *eb, const Elems *ec, MlirType acc,
                       Vals *out) {
  int rank = ec->rank, n = ec->n;
  int64_t K = ea->shape[rank - 1];
  /* the places with K = 0 of the elements the results need, before the loop */
  MlirValue *abase = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)ea->n);
  MlirValue *bbase = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)eb->n);
  memset(abase, 0, sizeof(MlirValue) * (size_t)ea->n);
  memset(bbase, 0, sizeof(MlirValue) * (size_t)eb->n);
  int *ai = arena_alloc(L->comp->a, sizeof(int) * (size_t)n), *bi = arena_alloc(L->comp->a, sizeof(int) * (size_t)n);
  for (int k = 0; k < n; k++) {
    int ca[MAX_RANK], cb[MAX_RANK];
    lw_counters(ec, k, ca);
    memcpy(cb, ca, sizeof cb);
    ca[rank - 1] = 0;
    cb[rank - 2] = 0;
    ai[k] = lw_element_of(ea, ca), bi[k] = lw_element_of(eb, cb);
    if (!abase[ai[k]].ptr) abase[ai[k]] = lw_lazy_index(L, za, ai[k]);
    if (!bbase[bi[k]].ptr) bbase[bi[k]] = lw_lazy_index(L, zb, bi[k]);
  }
  /* scf.for %k = 0 to K step 1 iter_args(the accumulators) */
  MlirValue kk, *acc_in = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)n);
  ForScope loop = lw_begin_for(L, K, n, out->v, &kk, acc_in);
  MlirValue astep = lw_bin(L, "arith.muli", kk, lw_const_i32(L, lw_lazy_stride(za, rank - 1)));
  MlirValue bstep = lw_bin(L, "arith.muli", kk, lw_const_i32(L, lw_lazy_stride(zb, rank - 2)));
  MlirValue *aval = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)ea->n);
  MlirValue *bval = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)eb->n);
  memset(aval, 0, sizeof(MlirValue) * (size_t)ea->n);
  memset(bval, 0, sizeof(MlirValue) * (size_t)eb->n);
  MlirValue *sums = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)n);
  for (int k = 0; k < n; k++) {
    if (!aval[ai[k]].ptr) aval[ai[k]] = lw_smem_get(L, za->base, za->et, lw_bin(L, "arith.addi", abase[ai[k]], astep));
    if (!bval[bi[k]].ptr) bval[bi[k]] = lw_smem_get(L, zb->base, zb->et, lw_bin(L, "arith.addi", bbase[bi[k]], bstep));
    sums[k] = fma_step(L, acc, aval[ai[k]], bval[bi[k]], acc_in[k]);
  }
  lw_end_for(L, &loop, sums, out->v);
}

ForScope lw_begin_for(Lower *L, int64_t trips, int n, const MlirValue *init, MlirValue *iv, MlirValue *carried) {
  ForScope s = {.block = L->block, .term = L->term, .n = n, .trips = trips};
  s.types = arena_alloc(L->comp->a, sizeof(MlirType) * (size_t)(n + 1));
  s.init = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)(n + 1));
  MlirLocation *locs = arena_alloc(L->comp->a, sizeof(MlirLocation) * (size_t)(n + 1));
  s.types[0] = lw_i32(L), locs[0] = L->loc;
  for (int k = 0; k < n; k++) s.types[1 + k] = mlirValueGetType(init[k]), locs[1 + k] = L->loc, s.init[k] = init[k];
  s.body = mlirBlockCreate(n + 1, s.types, locs);
  L->block = s.body;
  L->term = (MlirOperation){NULL};
  *iv = mlirBlockGetArgument(s.body, 0);
  for (int k = 0; k < n; k++) carried[k] = mlirBlockGetArgument(s.body, 1 + k);
  return s;
}

void lw_end_for(Lower *L, ForScope *s, const MlirValue *yields, MlirValue *results) {
  lw_emit(L, "scf.yield", 0, NULL, s->n, yields, 0, NULL);
  L->block = s->block;
  L->term = s->term;
  MlirValue *ops = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)(s->n + 3));
  ops[0] = lw_const_i32(L, 0), ops[1] = lw_const_i32(L, s->trips), ops[2] = lw_const_i32(L, 1);
  for (int k = 0; k < s->n; k++) ops[3 + k] = s->init[k];
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, s->body);
  MlirOperationState st = mlirOperationStateGet(str("scf.for"), L->loc);
  mlirOperationStateAddResults(&st, s->n, s->types + 1);
  mlirOperationStateAddOperands(&st, s->n + 3, ops);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  MlirOperation f = mlirOperationCreate(&st);
  lw_insert_op(L, f);
  for (int k = 0; k < s->n; k++) results[k] = mlirOperationGetResult(f, k);
}

/* C = A @ B + C, Triton's FMA dot: A holds, in each thread, the rows of the
 * C elements the thread holds with all of K, and B their columns (the
 * dot-operand layouts of C's blocked layout), so each element is K fused
 * multiply-adds, in the accumulator's type, over a loop on K that reads the
 * operands from shared memory. That is IEEE arithmetic whatever
 * input_precision asks: tf32 is the tensor cores', and a dot that
 * accelerate-matmul gave an MMA layout is lower_mma.c's. */
void lw_lower_dot(Lower *L, MlirOperation op) {
  MlirValue a = mlirOperationGetOperand(op, 0), b = mlirOperationGetOperand(op, 1), c = mlirOperationGetOperand(op, 2);
  MlirValue r = mlirOperationGetResult(op, 0);
  Layout rl;
  if (layout_of_type(L->comp, mlirValueGetType(r), &rl) && rl.kind == L_MMA) {
    if (rl.version == 3) lw_lower_wgmma(L, op);
    else lw_lower_mma(L, op);
    return;
  }
  MlirType at = mlirShapedTypeGetElementType(mlirValueGetType(a)), acc = mlirShapedTypeGetElementType(mlirValueGetType(r));
  if (lw_f8_format(at) >= 0 || lw_f8_format(mlirShapedTypeGetElementType(mlirValueGetType(b))) >= 0) {
    mlirEmitError(mlirOperationGetLocation(op), "tl.dot of fp8 operands is not supported yet by the GPU code generator");
    L->failed = true;
    return;
  }
  Elems ea, eb, ec;
  if (!lw_elems_of(L, mlirValueGetType(a), &ea) || !lw_elems_of(L, mlirValueGetType(b), &eb) ||
      !lw_elems_of(L, mlirValueGetType(r), &ec) || !lw_plain(&ec) || !ea.whole || !eb.whole ||
      !layout_equal(&ea.l, &ec.l) || !layout_equal(&eb.l, &ec.l)) {
    mlirEmitError(mlirOperationGetLocation(op), "tl.dot with these operand layouts is not supported yet by the GPU code generator");
    L->failed = true;
    return;
  }
  Vals *vc = lw_get(L, c), *out = lw_new_vals(L, ec.n);
  for (int k = 0; k < ec.n; k++) out->v[k] = lw_val(L, vc, k);
  /* the operands are in shared memory already when a conversion put them
   * there (the usual case); else they go there now */
  Lazy *za = lw_lazy_of(L, mlirValueGetType(a), lw_get(L, a)), *zb = lw_lazy_of(L, mlirValueGetType(b), lw_get(L, b));
  if (!za || !zb) {
    mlirEmitError(mlirOperationGetLocation(op), "tl.dot with these operand layouts is not supported yet by the GPU code generator");
    L->failed = true;
    return;
  }
  rolled_dot(L, za, zb, &ea, &eb, &ec, acc, out);
  lw_put(L, r, out);
}

/* ---- inline assembly: tile.elementwise_inline_asm ------------------------------------------ */

/* The bits of a per-thread value's type, a pointer's 64. */
static int asm_bits(MlirType t) { return mlirTypeIsALLVMPointerType(t) ? 64 : lw_bits_of(t); }

/* What one operand or result of the assembly is per thread: its values,
 * their type, and how many of them share one register. */
typedef struct AsmValue {
  Vals *x;
  MlirType t, reg;
  int per;
} AsmValue;

static AsmValue asm_value(Lower *L, MlirType t, Vals *x, int pack) {
  AsmValue a = {.x = x, .t = lw_scalar_of(L, t)};
  a.per = dtype_asm_elems_per_reg(asm_bits(a.t), pack);
  a.reg = a.per > 1 ? mlirVectorTypeGet(1, (int64_t[]){a.per}, a.t) : a.t;
  return a;
}

/* The llvm.inline_asm of one instance, on elements [at, at + pack) of the
 * operands; the undef of each operand's type stands past the n elements a
 * thread holds. */
static MlirValue asm_instance(Lower *L, MlirOperation op, const AsmValue *ins, int nins, MlirType ret, int at, int n,
                              MlirValue *regs, const MlirValue *undef) {
  int pack = (int)op_int_attr(op, "pack", 1), nregs = 0;
  for (int i = 0; i < nins; i++)
    for (int j = 0; j < pack; j += ins[i].per) {
      MlirValue reg = ins[i].per > 1 ? lw_emit1(L, "llvm.mlir.undef", ins[i].reg, 0, NULL, 0, NULL) : (MlirValue){NULL};
      for (int k = 0; k < ins[i].per; k++) {
        int e = at + j + k;
        MlirValue v = e >= n ? undef[i] : lw_val(L, ins[i].x, ins[i].x->n == 1 ? 0 : e);
        if (ins[i].per == 1) {
          reg = v;
          break;
        }
        MlirValue ops[3] = {reg, v, lw_const_i32(L, k)};
        reg = lw_emit1(L, "llvm.insertelement", ins[i].reg, 3, ops, 0, NULL);
      }
      regs[nregs++] = reg;
    }
  MlirNamedAttribute attrs[3] = {
      lw_named(L, "asm_string", mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("asm_string"))),
      lw_named(L, "constraints", mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("constraints"))),
      lw_named(L, "has_side_effects", mlirUnitAttrGet(L->ctx)),
  };
  return lw_emit1(L, "llvm.inline_asm", ret, nregs, regs, op_is_pure(op) ? 2 : 3, attrs);
}

/* tl.inline_asm_elementwise, as Triton lowers it: one llvm.inline_asm per
 * `pack` elements a thread holds. Its operands are those elements of each
 * operand in turn, the narrow ones in vectors of a 32-bit register (4 x
 * i8, 2 x f16); its results come back the same way, in a struct when there
 * are several registers. A thread holding fewer elements than a multiple
 * of pack gives its last instance undef operands and drops the results
 * past its own, as Triton does. Assembly with effects is marked so: LLVM
 * keeps every instance, in order; pure assembly may be merged or dropped. */
void lw_lower_inline_asm(Lower *L, MlirOperation op) {
  int pack = (int)op_int_attr(op, "pack", 1);
  int nins = (int)mlirOperationGetNumOperands(op), nres = (int)mlirOperationGetNumResults(op);
  int n = lw_count_of(L, mlirValueGetType(mlirOperationGetResult(op, 0)));
  if (nins > 16 || nres > 8) {
    lw_fail(L, op, "has more operands or results than the GPU code generator takes");
    return;
  }
  AsmValue ins[16], outs[8];
  MlirValue undef[16];
  int nin_regs = 0;
  for (int i = 0; i < nins; i++) {
    MlirValue v = mlirOperationGetOperand(op, i);
    ins[i] = asm_value(L, mlirValueGetType(v), lw_get(L, v), pack);
    undef[i] = n % pack ? lw_emit1(L, "llvm.mlir.undef", ins[i].t, 0, NULL, 0, NULL) : (MlirValue){NULL};
    nin_regs += (pack + ins[i].per - 1) / ins[i].per;
  }
  MlirType *types = arena_alloc(L->comp->a, sizeof(MlirType) * (size_t)(8 * pack));
  int nout_regs = 0;
  for (int r = 0; r < nres; r++) {
    outs[r] = asm_value(L, mlirValueGetType(mlirOperationGetResult(op, r)), lw_new_vals(L, n), pack);
    for (int j = 0; j < pack; j += outs[r].per) types[nout_regs++] = outs[r].reg;
  }
  MlirType ret = nout_regs == 1 ? types[0] : mlirLLVMStructTypeLiteralGet(L->ctx, nout_regs, types, false);
  MlirValue *regs = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)(nin_regs + 1));
  for (int at = 0; at < n; at += pack) {
    MlirValue got = asm_instance(L, op, ins, nins, ret, at, n, regs, undef);
    int slot = 0;
    for (int r = 0; r < nres; r++)
      for (int j = 0; j < pack; j += outs[r].per) {
        MlirNamedAttribute pos = lw_named(L, "position", mlirDenseI64ArrayGet(L->ctx, 1, (int64_t[]){slot++}));
        MlirValue reg = nout_regs == 1 ? got : lw_emit1(L, "llvm.extractvalue", outs[r].reg, 1, &got, 1, &pos);
        for (int k = 0; k < outs[r].per && at + j + k < n; k++) {
          MlirValue ops[2] = {reg, lw_const_i32(L, k)};
          outs[r].x->v[at + j + k] = outs[r].per == 1 ? reg : lw_emit1(L, "llvm.extractelement", outs[r].t, 2, ops, 0, NULL);
        }
      }
  }
  for (int r = 0; r < nres; r++) lw_put(L, mlirOperationGetResult(op, r), outs[r].x);
}
