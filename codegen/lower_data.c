/*
 * lower_data.c — lowering what moves or reinterprets data: the shape ops
 * (trans, permute, join, split, reshape, cat), in registers or through
 * shared memory, and fp8 conversions. Layout conversions are
 * lower_shared.c's.
 */
#include "lower.h"

/* ---- shape ops: trans, join, split, reshape, cat ------------------------------------------ */

/* Whether dim da of layout a and dim db of layout b split the same way. */
static bool same_dim(const Elems *a, int da, const Elems *b, int db) {
  return a->l.spt[da] == b->l.spt[db] && a->l.tpw[da] == b->l.tpw[db] && a->l.wpc[da] == b->l.wpc[db] &&
         a->per[da] == b->per[db];
}

/* Whether the last dim of e has its 2 elements in each thread, fastest. */
static bool pair_in_thread(const Elems *e) {
  int d = e->rank - 1;
  return e->l.spt[d] == 2 && e->l.tpw[d] == 1 && e->l.wpc[d] == 1 && e->l.order[0] == d && e->shape[d] == 2;
}

/* The permutation of a trans: result dim i is operand dim perm[i]. */
static void trans_perm(MlirOperation op, int r, int *perm) {
  MlirAttribute oa = mlirOperationGetAttributeByName(op, str("order"));
  for (int i = 0; i < r; i++) perm[i] = mlirDenseI32ArrayGetElement(oa, i);
}

/* trans, join and split in registers, when the layouts the GPU conversion
 * gave them still hold (each result element is held by the thread that
 * holds its source); false otherwise. */
static bool shape_in_registers(Lower *L, MlirOperation op, TileOp t) {
  MlirValue src = mlirOperationGetOperand(op, 0);
  Elems es, ed;
  if (!lw_elems_of(L, mlirValueGetType(src), &es) || !lw_elems_of(L, mlirValueGetType(mlirOperationGetResult(op, 0)), &ed) ||
      !lw_plain(&es) || !lw_plain(&ed))
    return false;
  int c[MAX_RANK], ci[MAX_RANK], perm[MAX_RANK];
  if (t == TOP_trans) {
    trans_perm(op, es.rank, perm);
    for (int i = 0; i < es.rank; i++)
      if (!same_dim(&ed, i, &es, perm[i]) || es.l.order[i] != perm[ed.l.order[i]]) return false;
    Vals *in = lw_get(L, src), *out = lw_new_vals(L, ed.n);
    for (int k = 0; k < ed.n; k++) {
      lw_counters(&ed, k, c);
      for (int i = 0; i < es.rank; i++) ci[perm[i]] = c[i];
      out->v[k] = in->v[lw_element_of(&es, ci)];
    }
    lw_put(L, mlirOperationGetResult(op, 0), out);
    return true;
  }
  Elems *whole = t == TOP_join ? &ed : &es, *part = t == TOP_join ? &es : &ed;
  if (!pair_in_thread(whole) || whole->rank != part->rank + 1) return false;
  for (int i = 0; i < part->rank; i++)
    if (!same_dim(whole, i, part, i) || whole->l.order[i + 1] != part->l.order[i]) return false;
  if (t == TOP_join) {
    Elems eb;
    Vals *ins[2] = {lw_get(L, src), lw_get(L, mlirOperationGetOperand(op, 1))}, *out = lw_new_vals(L, ed.n);
    if (!lw_elems_of(L, mlirValueGetType(mlirOperationGetOperand(op, 1)), &eb) || !lw_plain(&eb)) return false;
    for (int i = 0; i < eb.rank; i++)
      if (!same_dim(&eb, i, &es, i) || eb.l.order[i] != es.l.order[i]) return false;
    for (int k = 0; k < ed.n; k++) {
      lw_counters(&ed, k, c);
      out->v[k] = ins[c[es.rank]]->v[lw_element_of(&es, c)];
    }
    lw_put(L, mlirOperationGetResult(op, 0), out);
    return true;
  }
  Vals *in = lw_get(L, src);
  for (int j = 0; j < 2; j++) {
    Vals *out = lw_new_vals(L, ed.n);
    for (int k = 0; k < ed.n; k++) {
      lw_counters(&ed, k, c);
      c[ed.rank] = j;
      out->v[k] = in->v[lw_element_of(&es, c)];
    }
    lw_put(L, mlirOperationGetResult(op, j), out);
  }
  return true;
}

/* The row-major offset of the coordinates c in a shape. */
static MlirValue row_major(Lower *L, int r, const int64_t *shape, const MlirValue *c) {
  MlirValue lin = lw_const_i32(L, 0);
  for (int d = 0; d < r; d++) lin = lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", lin, lw_const_i32(L, shape[d])), c[d]);
  return lin;
}

/* Any shape op through shared memory: the operands' elements go to their
 * row-major places (join interleaves its two, cat puts the second after the
 * first), and each result element is read from where its value lies. */
static void shape_through_shared(Lower *L, MlirOperation op, TileOp t) {
  int nsrc = (int)mlirOperationGetNumOperands(op), nres = (int)mlirOperationGetNumResults(op);
  MlirType t0 = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirType et = lw_scalar_of(L, t0);
  int64_t n0 = lw_numel_of(t0);
  MlirValue base = lw_shared_buffer(L, lw_smem_type(L, et), n0 * nsrc);
  for (int s = 0; s < nsrc; s++) {
    MlirValue src = mlirOperationGetOperand(op, s);
    Elems es;
    if (!lw_elems_of(L, mlirValueGetType(src), &es)) {
      lw_fail(L, op, "on an operand in this layout is not supported yet by the GPU code generator");
      return;
    }
    Vals *in = lw_get(L, src);
    for (int k = 0; k < es.n; k++) {
      MlirValue off = lw_linear_index(L, &es, mlirValueGetType(src), k);
      if (t == TOP_join) off = lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", off, lw_const_i32(L, 2)), lw_const_i32(L, s));
      if (t == TOP_cat) off = lw_bin(L, "arith.addi", off, lw_const_i32(L, s * n0));
      lw_smem_put(L, base, et, off, in->v[k]);
    }
  }
  for (int j = 0; j < nres; j++) {
    MlirValue r = mlirOperationGetResult(op, j);
    MlirType rt = mlirValueGetType(r);
    Elems ed;
    if (!lw_elems_of(L, rt, &ed)) {
      lw_fail(L, op, "with a result in this layout is not supported yet by the GPU code generator");
      return;
    }
    Vals *out = lw_new_vals(L, ed.n);
    for (int k = 0; k < ed.n; k++) {
      MlirValue off;
      if (t == TOP_trans) {
        int rank = (int)mlirShapedTypeGetRank(t0), perm[MAX_RANK];
        int64_t shape[MAX_RANK];
        MlirValue ci[MAX_RANK];
        trans_perm(op, rank, perm);
        for (int i = 0; i < rank; i++) {
          shape[i] = mlirShapedTypeGetDimSize(t0, i);
          ci[perm[i]] = lw_index_of(L, &ed, k, i);
        }
        off = row_major(L, rank, shape, ci);
      } else {
        off = lw_linear_index(L, &ed, rt, k);
        if (t == TOP_split) off = lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", off, lw_const_i32(L, 2)), lw_const_i32(L, j));
      }
      out->v[k] = lw_smem_get(L, base, et, off);
    }
    lw_put(L, r, out);
  }
}

void lw_lower_shape(Lower *L, MlirOperation op, TileOp t) {
  Vals *in = lw_get(L, mlirOperationGetOperand(op, 0));
  if (t == TOP_trans && in->lazy && (in->lazy->copied || in->lazy->pipelined)) {
    /* a load that cp.async copied into an operand's buffer (operand_conversion,
     * ir/layout.c), K^T into B's laid [N][K]: the transpose is in how the
     * dot reads it (lw_mma_view) */
    Vals *x = lw_new_vals(L, 0);
    x->lazy = arena_alloc(L->comp->a, sizeof *x->lazy);
    *x->lazy = *in->lazy;
    x->lazy->flipped = !in->lazy->flipped;
    lw_put(L, mlirOperationGetResult(op, 0), x);
    return;
  }
  if ((t == TOP_trans || t == TOP_join || t == TOP_split) && shape_in_registers(L, op, t)) return;
  shape_through_shared(L, op, t);
}

/* ---- fp8 -------------------------------------------------------------------------------------
 * LLVM has no fp8 types: an fp8 value is its i8 bits, and conversions go
 * through f32 in integer arithmetic, the same on every target and on the
 * emulator: round to nearest even (or toward zero), saturate to the largest
 * finite value (as cvt.rn.satfinite does), keep NaN. */

typedef struct F8Format {
  const char *name;
  int mbits, bias, maxcode; /* mantissa bits, exponent bias, largest finite code */
  bool has_inf;
} F8Format;

static const F8Format f8_formats[] = {
    {"e4m3", 3, 7, 0x7e, false}, /* f8E4M3FN: no infinities, 0x7f is NaN */
    {"e5m2", 2, 15, 0x7b, true}, /* f8E5M2: IEEE-like */
};

/* The fp8 format of a type: 0 (e4m3), 1 (e5m2), or -1 for other types. */
int lw_f8_format(MlirType t) {
  if (mlirTypeIsAFloat8E4M3FN(t)) return 0;
  if (mlirTypeIsAFloat8E5M2(t)) return 1;
  return -1;
}

/* The code of a constant, as the conversion functions below compute it. */
int lw_f8_bits(double v, int fmt, bool rtz) {
  const F8Format *f = &f8_formats[fmt];
  float x = (float)v;
  uint32_t u;
  memcpy(&u, &x, 4);
  uint32_t sign = (u >> 24) & 0x80, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return 0x7f;
  int shift = 23 - f->mbits;
  int64_t code;
  float ax;
  memcpy(&ax, &a, 4);
  if (ax < ldexpf(1.0f, 1 - f->bias)) {
    float scaled = ax * ldexpf(1.0f, f->bias - 1 + f->mbits);
    code = (int64_t)(rtz ? truncf(scaled) : nearbyintf(scaled));
  } else {
    uint32_t rnd = rtz ? a : a + ((1u << (shift - 1)) - 1) + ((a >> shift) & 1);
    code = (int64_t)(rnd >> shift) - ((int64_t)(127 - f->bias) << f->mbits);
  }
  if (code > f->maxcode) code = f->maxcode;
  return (int)(sign | (uint32_t)code);
}

static MlirValue c32(Lower *L, int64_t v) { return lw_const_i32(L, v); }

/* The body of f32 -> fp8, as a function taking f32 and returning i8. */
static void emit_f32_to_f8(Lower *L, MlirValue x, int fmt, bool rtz) {
  const F8Format *f = &f8_formats[fmt];
  MlirType i8 = mlirIntegerTypeGet(L->ctx, 8), f32 = mlirF32TypeGet(L->ctx);
  int shift = 23 - f->mbits;
  MlirValue u = lw_emit1(L, "arith.bitcast", lw_i32(L), 1, &x, 0, NULL);
  MlirValue sign = lw_bin(L, "arith.andi", lw_bin(L, "arith.shrui", u, c32(L, 24)), c32(L, 0x80));
  MlirValue a = lw_bin(L, "arith.andi", u, c32(L, 0x7fffffff));
  /* normal: round the mantissa at bit `shift`, then rebias (a carry moves
   * into the exponent by itself) */
  MlirValue rnd = a;
  if (!rtz)
    rnd = lw_bin(L, "arith.addi", lw_bin(L, "arith.addi", a, c32(L, (1 << (shift - 1)) - 1)),
              lw_bin(L, "arith.andi", lw_bin(L, "arith.shrui", a, c32(L, shift)), c32(L, 1)));
  MlirValue normal = lw_bin(L, "arith.subi", lw_bin(L, "arith.shrui", rnd, c32(L, shift)), c32(L, (int64_t)(127 - f->bias) << f->mbits));
  /* subnormal: the magnitude in units of the smallest subnormal, rounded */
  MlirValue ax = lw_emit1(L, "arith.bitcast", f32, 1, &a, 0, NULL);
  MlirValue scaled = lw_bin(L, "arith.mulf", ax, lw_const_f32(L, ldexp(1.0, f->bias - 1 + f->mbits)));
  MlirValue rounded = lw_emit1(L, rtz ? "llvm.intr.trunc" : "llvm.intr.roundeven", f32, 1, &scaled, 0, NULL);
  MlirValue sub = lw_emit1(L, "arith.fptoui", lw_i32(L), 1, &rounded, 0, NULL);
  MlirValue small = lw_cmp_u32(L, 6 /* ult */, a, c32(L, (int64_t)(127 + 1 - f->bias) << 23));
  MlirValue code = lw_bin(L, "arith.minui", lw_pick(L, small, sub, normal), c32(L, f->maxcode));
  MlirValue nan = lw_cmp_u32(L, 8 /* ugt */, a, c32(L, 0x7f800000));
  code = lw_pick(L, nan, c32(L, 0x7f), lw_bin(L, "arith.ori", code, sign));
  MlirValue r = lw_emit1(L, "arith.trunci", i8, 1, &code, 0, NULL);
  lw_emit(L, "llvm.return", 0, NULL, 1, &r, 0, NULL);
}

/* The body of fp8 -> f32. */
static void emit_f8_to_f32(Lower *L, MlirValue b, int fmt) {
  const F8Format *f = &f8_formats[fmt];
  MlirType f32 = mlirF32TypeGet(L->ctx);
  MlirValue c = lw_emit1(L, "arith.extui", lw_i32(L), 1, &b, 0, NULL);
  MlirValue sign = lw_bin(L, "arith.shli", lw_bin(L, "arith.andi", c, c32(L, 0x80)), c32(L, 24));
  MlirValue mag = lw_bin(L, "arith.andi", c, c32(L, 0x7f));
  MlirValue exp = lw_bin(L, "arith.shrui", mag, c32(L, f->mbits));
  MlirValue mant = lw_bin(L, "arith.andi", mag, c32(L, (1 << f->mbits) - 1));
  MlirValue normal = lw_bin(L, "arith.addi", lw_bin(L, "arith.shli", mag, c32(L, 23 - f->mbits)), c32(L, (int64_t)(127 - f->bias) << 23));
  MlirValue fm = lw_emit1(L, "arith.uitofp", f32, 1, &mant, 0, NULL);
  MlirValue subf = lw_bin(L, "arith.mulf", fm, lw_const_f32(L, ldexp(1.0, 1 - f->bias - f->mbits)));
  MlirValue sub = lw_emit1(L, "arith.bitcast", lw_i32(L), 1, &subf, 0, NULL);
  MlirValue bits = lw_pick(L, lw_cmp_u32(L, 0 /* eq */, exp, c32(L, 0)), sub, normal);
  int top = (1 << (8 - 1 - f->mbits)) - 1; /* the all-ones exponent */
  if (f->has_inf) {
    MlirValue special = lw_bin(L, "arith.ori", c32(L, 0x7f800000), lw_bin(L, "arith.shli", mant, c32(L, 23 - f->mbits)));
    bits = lw_pick(L, lw_cmp_u32(L, 0, exp, c32(L, top)), special, bits);
  } else {
    bits = lw_pick(L, lw_cmp_u32(L, 0, mag, c32(L, 0x7f)), c32(L, 0x7fc00000), bits);
  }
  bits = lw_bin(L, "arith.ori", bits, sign);
  MlirValue r = lw_emit1(L, "arith.bitcast", f32, 1, &bits, 0, NULL);
  lw_emit(L, "llvm.return", 0, NULL, 1, &r, 0, NULL);
}

/* A call of the conversion function `to` (f32 -> fp8) or not (fp8 -> f32),
 * defined in the module on first use. */
static MlirValue f8_convert(Lower *L, MlirValue v, int fmt, bool to, bool rtz) {
  char name[48];
  snprintf(name, sizeof name, "tilec_%s_%s%s", to ? "f32_to" : "to_f32", f8_formats[fmt].name, rtz ? "_rtz" : "");
  MlirType i8 = mlirIntegerTypeGet(L->ctx, 8), f32 = mlirF32TypeGet(L->ctx);
  MlirType arg = to ? f32 : i8, ret = to ? i8 : f32;
  for (int i = 0; i < L->declared.n; i++)
    if (!strcmp(L->declared.v[i], name)) return lw_call(L, name, ret, 1, &v);
  lw_declare(L, name, ret, 1, &arg); /* records the name; the body is added here */
  MlirOperation fn = mlirBlockGetFirstOperation(mlirModuleGetBody(L->out));
  for (; !mlirOperationIsNull(fn); fn = mlirOperationGetNextInBlock(fn)) {
    MlirStringRef s = mlirStringAttrGetValue(mlirOperationGetAttributeByName(fn, str("sym_name")));
    if (s.length == strlen(name) && !memcmp(s.data, name, s.length)) break;
  }
  MlirLocation loc = mlirLocationUnknownGet(L->ctx);
  MlirBlock body = mlirBlockCreate(1, &arg, &loc);
  mlirRegionAppendOwnedBlock(mlirOperationGetRegion(fn, 0), body);
  mlirOperationSetAttributeByName(fn, str("linkage"), ir_parse_attr(L->comp->ic, "#llvm.linkage<internal>"));
  /* inlined: a call per element would cost the GPU its calling convention
   * (arguments through memory, registers spilled around every call) */
  mlirOperationSetAttributeByName(fn, str("passthrough"), ir_parse_attr(L->comp->ic, "[\"alwaysinline\"]"));
  MlirBlock saved_block = L->block;
  MlirOperation saved_term = L->term;
  L->block = body;
  L->term = (MlirOperation){NULL};
  L->in_helper = true;
  if (to) emit_f32_to_f8(L, mlirBlockGetArgument(body, 0), fmt, rtz);
  else emit_f8_to_f32(L, mlirBlockGetArgument(body, 0), fmt);
  L->in_helper = false;
  L->block = saved_block;
  L->term = saved_term;
  return lw_call(L, name, ret, 1, &v);
}

static MlirValue c16(Lower *L, int64_t v) {
  MlirType i16 = mlirIntegerTypeGet(L->ctx, 16);
  MlirNamedAttribute a = lw_named(L, "value", mlirIntegerAttrGet(i16, v));
  return lw_emit1(L, "arith.constant", i16, 0, NULL, 1, &a);
}

/* fp8 widened to f16, exact (both formats' values are f16 values), in a
 * few integer operations: e5m2 is an f16's top byte; e4m3's magnitude
 * moved to an f16's bit positions is its value times 2^-8 (normal or not,
 * as f16's exponent bias is 8 more), so one exact f16 multiply by 2^8
 * rescales it; its NaN (S.1111.111) stays NaN. */
static MlirValue f8_to_f16(Lower *L, MlirValue b, int fmt) {
  MlirType i16 = mlirIntegerTypeGet(L->ctx, 16), f16 = mlirF16TypeGet(L->ctx);
  MlirValue c = lw_emit1(L, "arith.extui", i16, 1, &b, 0, NULL), v;
  if (fmt == 1) {
    v = lw_bin(L, "arith.shli", c, c16(L, 8));
  } else {
    MlirValue mag = lw_bin(L, "arith.andi", c, c16(L, 0x7f));
    MlirValue scaled = lw_emit1(L, "arith.bitcast", f16, 1, (MlirValue[]){lw_bin(L, "arith.shli", mag, c16(L, 7))}, 0, NULL);
    MlirNamedAttribute k = lw_named(L, "value", mlirFloatAttrDoubleGet(L->ctx, f16, 256.0));
    MlirValue k256 = lw_emit1(L, "arith.constant", f16, 0, NULL, 1, &k);
    v = lw_emit1(L, "arith.bitcast", i16, 1, (MlirValue[]){lw_bin(L, "arith.mulf", scaled, k256)}, 0, NULL);
    v = lw_pick(L, lw_cmp_u32(L, 0 /* eq */, mag, c16(L, 0x7f)), c16(L, 0x7e00), v);
    v = lw_bin(L, "arith.ori", v, lw_bin(L, "arith.shli", lw_bin(L, "arith.andi", c, c16(L, 0x80)), c16(L, 8)));
  }
  return lw_emit1(L, "arith.bitcast", f16, 1, &v, 0, NULL);
}

/* A scalar as f32, from any float or integer type (signed unless told). */
static MlirValue to_f32(Lower *L, MlirValue v, MlirType from, bool is_unsigned) {
  MlirType f32 = mlirF32TypeGet(L->ctx);
  int fmt = lw_f8_format(from);
  if (fmt >= 0) return f8_convert(L, v, fmt, false, false);
  if (mlirTypeIsAF32(from)) return v;
  if (mlirTypeIsAFloat(from)) return lw_emit1(L, lw_bits_of(from) > 32 ? "arith.truncf" : "arith.extf", f32, 1, &v, 0, NULL);
  return lw_emit1(L, is_unsigned ? "arith.uitofp" : "arith.sitofp", f32, 1, &v, 0, NULL);
}

/* A float down-cast rounding toward zero, which LLVM's fptrunc cannot say:
 * through tilec.cvt.rz.* (one PTX cvt each; f64 to 16 bits goes through
 * f32, exact for truncation). */
static bool lower_truncf_rtz(Lower *L, MlirValue src, MlirValue r, MlirType from, MlirType to, int n) {
  MlirType f32 = mlirF32TypeGet(L->ctx), i16 = mlirIntegerTypeGet(L->ctx, 16);
  const char *dst = mlirTypeIsAF16(to) ? "f16" : mlirTypeIsABF16(to) ? "bf16" : mlirTypeIsAF32(to) ? "f32" : NULL;
  if (!dst || !(mlirTypeIsAF32(from) || mlirTypeIsAF64(from))) return false;
  Vals *in = lw_get(L, src), *x = lw_new_vals(L, n);
  char name[48];
  for (int k = 0; k < n; k++) {
    MlirValue v = in->v[in->n == 1 ? 0 : k];
    if (mlirTypeIsAF64(from)) v = lw_call(L, "tilec.cvt.rz.f32.f64", f32, 1, &v);
    if (!mlirTypeIsAF32(to)) {
      snprintf(name, sizeof name, "tilec.cvt.rz.%s.f32", dst);
      v = lw_call(L, name, i16, 1, &v);
      v = lw_emit1(L, "arith.bitcast", to, 1, &v, 0, NULL);
    }
    x->v[k] = v;
  }
  lw_put(L, r, x);
  return true;
}

/* Conversions to and from fp8, elementwise; false when op is not one. */
bool lw_lower_f8(Lower *L, MlirOperation op, MlirValue r, int n) {
  if (!op_is(op, "arith.truncf") && !op_is(op, "arith.extf") && !op_is(op, "arith.sitofp") &&
      !op_is(op, "arith.uitofp") && !op_is(op, "arith.fptosi") && !op_is(op, "arith.fptoui"))
    return false;
  MlirValue src = mlirOperationGetOperand(op, 0);
  MlirType from = mlirValueGetType(src), to = mlirValueGetType(r);
  from = mlirTypeIsARankedTensor(from) ? mlirShapedTypeGetElementType(from) : from;
  to = mlirTypeIsARankedTensor(to) ? mlirShapedTypeGetElementType(to) : to;
  int ff = lw_f8_format(from), tf = lw_f8_format(to);
  MlirAttribute rm = mlirOperationGetAttributeByName(op, str("roundingmode"));
  bool rtz = !mlirAttributeIsNull(rm) && mlirAttributeIsAInteger(rm) && mlirIntegerAttrGetValueInt(rm) == 3;
  if (ff < 0 && tf < 0) return rtz && lower_truncf_rtz(L, src, r, from, to, n);
  Vals *in = lw_get(L, src), *x = lw_new_vals(L, n);
  MlirValue memo[2] = {{NULL}, {NULL}}; /* splat inputs convert once */
  for (int k = 0; k < n; k++) {
    MlirValue v = in->v[in->n == 1 ? 0 : k];
    if (in->n == 1 && memo[0].ptr) {
      x->v[k] = memo[0];
      continue;
    }
    if (ff >= 0 && mlirTypeIsAF16(to)) {
      x->v[k] = memo[0] = f8_to_f16(L, v, ff);
      continue;
    }
    MlirValue f = to_f32(L, v, from, op_is(op, "arith.uitofp"));
    if (tf >= 0) {
      v = f8_convert(L, f, tf, true, rtz);
    } else if (mlirTypeIsAFloat(to)) {
      v = mlirTypeIsAF32(to) ? f : lw_emit1(L, lw_bits_of(to) > 32 ? "arith.extf" : "arith.truncf", to, 1, &f, 0, NULL);
    } else {
      v = lw_emit1(L, op_is(op, "arith.fptoui") ? "arith.fptoui" : "arith.fptosi", to, 1, &f, 0, NULL);
    }
    x->v[k] = memo[0] = v;
  }
  lw_put(L, r, x);
  return true;
}
