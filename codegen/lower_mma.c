/*
 * lower_mma.c — tl.dot on tensor cores: mma.sync.aligned.m16n8k<K>.row.col.
 *
 * accelerate-matmul gives the dot's result an MMA layout, #tile.mma<2,
 * [wm, wn], [16, 8]>: the warps tile the result in a grid of wm x wn, each
 * warp a 16 x 8 part of every 16wm x 8wn block, and a lane holds in each part
 * what the PTX ISA's C/D fragment gives it (lower_elems.c reads it as such).
 * The operands come in its dot-operand layouts, which this file's
 * conversion puts in shared memory in the form the A and B fragments read
 * best:
 *   - 16-bit operands: A row-major [M][K], B row-major [K][N], swizzled
 *     (place(): 16-byte chunks XORed with a phase of the row) so that the 8
 *     rows an ldmatrix phase reads fall on different banks; a step's A
 *     registers are one ldmatrix.x4 per 16-row part (rows 0-7 and 8-15, K
 *     0-7 then 8-15), and B's one ldmatrix.x4.trans per two 8-column parts
 *     (K 0-7 and 8-15 of each; .x2 for a last odd part);
 *   - tf32, int8 and fp8: A row-major, B transposed [N][K], so that each 32-bit
 *     register of either fragment (one tf32, four bytes, along K) is one
 *     aligned word, read by a 32-bit load; rows padded to 4 mod 8 words, so
 *     that the 8 rows x 4 words of a register lie on 32 banks.
 *
 * The fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16 / k8 / k32"),
 * with g = lane / 4, t = lane % 4 and e the elements of one register:
 *   A reg r (0..3): row g + 8 (r % 2), elements e t .. e t + e - 1 of K
 *                   from (K/2) (r / 2), K being the instruction's;
 *   B reg r (0..1): column g, elements e t .. of K from (K/2) r;
 *   C/D reg q:      row g + 8 (q / 2), column 2 t + q % 2 (the f16
 *                   accumulator: reg i holds columns 2t and 2t + 1 of row
 *                   g + 8 i, low half first).
 * The dot is K's steps of the instruction's K one after another, straight-
 * line code, the accumulators in registers; every step loads each warp's A
 * and B registers (A from the registers of a 16-bit MMA result where it is
 * one: a_in_registers) and issues one instruction per 16 x 8 part the
 * thread's warp computes. The instruction is the call tilec.mma.<shape>.row.col.<types>
 * (a0..a3, b0, b1, c...) -> {i32 x 4 (2)}, and ldmatrix the call
 * tilec.ldmatrix.x<n>[.trans].b16(row) -> {i32 x n} tagged with its buffer
 * (insert-barriers sees a read): expand-for-gpu makes them the PTX
 * instructions, and the emulator binds them to its warp models (emu/mma.h).
 */
#include "lower.h"

/* What one instruction computes for these operand and result types. */
typedef struct MmaForm {
  const char *name; /* after tilec.mma. */
  int k;            /* the K of one step: the instruction's, or two of them (widen) */
  int nc;           /* C and D registers */
  int bits;         /* operand element bits */
  bool widen;       /* fp8 operands on fp16's instruction, widened in registers */
} MmaForm;

static const MmaForm forms[] = {
    {"m16n8k16.row.col.f32.f16.f16.f32", 16, 4, 16, false},  {"m16n8k16.row.col.f16.f16.f16.f16", 16, 2, 16, false},
    {"m16n8k16.row.col.f32.bf16.bf16.f32", 16, 4, 16, false}, {"m16n8k8.row.col.f32.tf32.tf32.f32", 8, 4, 32, false},
    {"m16n8k32.row.col.s32.s8.s8.s32", 32, 4, 8, false},
    /* sm_89 and PTX 8.4: A and B each e4m3 or e5m2 */
    {"m16n8k32.row.col.f32.e4m3.e4m3.f32", 32, 4, 8, false}, {"m16n8k32.row.col.f32.e4m3.e5m2.f32", 32, 4, 8, false},
    {"m16n8k32.row.col.f32.e5m2.e4m3.f32", 32, 4, 8, false}, {"m16n8k32.row.col.f32.e5m2.e5m2.f32", 32, 4, 8, false},
    /* fp8 elsewhere (before sm_89, or into f16): read as int8 is, widened */
    {"m16n8k16.row.col.f32.f16.f16.f32", 32, 4, 8, true},     {"m16n8k16.row.col.f16.f16.f16.f16", 32, 2, 8, true},
};

/* The form for operand element types at, bt (as the tile IR has them: fp8
 * is not yet its bits) and accumulator acc on target sm; false when there
 * is none. */
static bool mma_form(MlirType at, MlirType bt, MlirType acc, int sm, MmaForm *f) {
  bool i8 = mlirTypeIsAInteger(at) && mlirIntegerTypeGetWidth(at) == 8;
  bool i32 = mlirTypeIsAInteger(acc) && mlirIntegerTypeGetWidth(acc) == 32;
  int f8a = lw_f8_format(at), f8b = lw_f8_format(bt);
  bool f8 = f8a >= 0 && f8b >= 0;
  int i = mlirTypeIsAF16(at) && mlirTypeIsAF32(acc)                 ? 0
          : mlirTypeIsAF16(at) && mlirTypeIsAF16(acc)               ? 1
          : mlirTypeIsABF16(at) && mlirTypeIsAF32(acc)              ? 2
          : mlirTypeIsAF32(at) && mlirTypeIsAF32(acc)               ? 3
          : i8 && i32                                               ? 4
          : f8 && sm >= 89 && mlirTypeIsAF32(acc)                   ? 5 + 2 * f8a + f8b
          : f8 && (mlirTypeIsAF32(acc) || mlirTypeIsAF16(acc))      ? (mlirTypeIsAF32(acc) ? 9 : 10)
                                                                    : -1;
  if (i < 0) return false;
  *f = forms[i];
  return true;
}

/* Two fp8 elements of a 32-bit register of four (half 0: bytes 0 and 1,
 * half 1: bytes 2 and 3) as an f16x2 register, low first, in 32-bit
 * arithmetic on both at once. e5m2 is an f16's top byte: one byte shuffle.
 * e4m3 (lower_data.c's f8_to_f16, on both at once): the magnitude at an
 * f16's bit positions is the value times 2^-8, rescaled by one f16x2
 * multiply by 2^8; S.1111.111 becomes NaN. (Not through i8 or i16 values:
 * LLVM 22's SLP vectorizer narrows trunc(w >> 8) to i8 and widens it
 * wrongly, rebuilding w's low 16 bits from its low byte.) */
/* The bytes of w rearranged: byte i of the result is byte sel[i] of w, or
 * zero for 4 (a byte shuffle: one prmt on the GPU). */
static MlirValue byte_shuffle(Lower *L, MlirValue w, const int32_t sel[4]) {
  MlirType v4 = mlirVectorTypeGet(1, (int64_t[]){4}, mlirIntegerTypeGet(L->ctx, 8));
  MlirValue v = lw_emit1(L, "llvm.bitcast", v4, 1, &w, 0, NULL);
  MlirNamedAttribute z = lw_named(L, "value", mlirDenseElementsAttrSplatGet(v4, mlirIntegerAttrGet(mlirIntegerTypeGet(L->ctx, 8), 0)));
  MlirValue zero = lw_emit1(L, "arith.constant", v4, 0, NULL, 1, &z);
  MlirNamedAttribute m = lw_named(L, "mask", mlirDenseI32ArrayGet(L->ctx, 4, sel));
  MlirValue r = lw_emit1(L, "llvm.shufflevector", v4, 2, (MlirValue[]){v, zero}, 1, &m);
  return lw_emit1(L, "llvm.bitcast", lw_i32(L), 1, &r, 0, NULL);
}

static MlirValue widen_pair(Lower *L, MlirValue w, int half, int fmt) {
  int b0 = 2 * half, b1 = 2 * half + 1;
  /* e5m2: its bytes as the high bytes of two halves */
  if (fmt == 1) return byte_shuffle(L, w, (int32_t[]){4, b0, 4, b1});
  /* byte 0 at bits 0-7, byte 1 at bits 16-23 */
  MlirValue s = byte_shuffle(L, w, (int32_t[]){b0, 4, b1, 4});
  MlirValue mag = lw_bin(L, "arith.andi", s, lw_const_i32(L, 0x007f007f));
  MlirValue sign = lw_bin(L, "arith.shli", lw_bin(L, "arith.andi", s, lw_const_i32(L, 0x00800080)), lw_const_i32(L, 8));
  MlirType f16 = mlirF16TypeGet(L->ctx), v2 = mlirVectorTypeGet(1, (int64_t[]){2}, f16);
  MlirValue scaled = lw_emit1(L, "llvm.bitcast", v2, 1, (MlirValue[]){lw_bin(L, "arith.shli", mag, lw_const_i32(L, 7))}, 0, NULL);
  MlirNamedAttribute k = lw_named(L, "value", mlirDenseElementsAttrSplatGet(v2, mlirFloatAttrDoubleGet(L->ctx, f16, 256.0)));
  MlirValue k256 = lw_emit1(L, "arith.constant", v2, 0, NULL, 1, &k);
  MlirValue p = lw_emit1(L, "llvm.bitcast", lw_i32(L), 1, (MlirValue[]){lw_bin(L, "arith.mulf", scaled, k256)}, 0, NULL);
  /* 0xffff in a lane whose magnitude is 0x7f (its + 1 carries into bit 7) */
  MlirValue nan = lw_bin(L, "arith.shrui", lw_bin(L, "arith.andi", lw_bin(L, "arith.addi", mag, lw_const_i32(L, 0x00010001)), lw_const_i32(L, 0x00800080)),
                         lw_const_i32(L, 7));
  nan = lw_bin(L, "arith.muli", nan, lw_const_i32(L, 0xffff));
  MlirValue keep = lw_bin(L, "arith.andi", p, lw_bin(L, "arith.xori", nan, lw_const_i32(L, -1)));
  MlirValue r = lw_bin(L, "arith.ori", keep, lw_bin(L, "arith.andi", nan, lw_const_i32(L, 0x7e007e00)));
  return lw_bin(L, "arith.ori", r, sign);
}

int cg_mma_c_regs(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
    if (strlen(forms[i].name) == len && !memcmp(forms[i].name, name, len)) return forms[i].nc;
  return 0;
}

/* 32-bit words of a row of K elements of `bits`, padded to 4 mod 8. */
static int64_t row_words(int64_t K, int bits) {
  int64_t w = (K * bits + 31) / 32;
  return w + ((12 - w % 8) % 8);
}

MlirValue lw_extract_i32(Lower *L, MlirValue s, int i) {
  MlirNamedAttribute pos = lw_named(L, "position", mlirDenseI64ArrayGet(L->ctx, 1, (int64_t[]){i}));
  return lw_emit1(L, "llvm.extractvalue", lw_i32(L), 1, &s, 1, &pos);
}

/* The shared buffer of an operand of type rt (a dot-operand layout of an
 * MMA layout), each row padded (row_words), for lw_lower_mma to read: A
 * row-major, [M][K]; B row-major too, [K][N], when its elements are 16-bit
 * (ldmatrix.trans reads it), else transposed, [N][K], so that a 32-bit word
 * holds consecutive elements of K; a batched operand one such matrix after
 * another. lw_mma_place: where element k of a value in layout e lies in it.
 * lw_mma_operand: `src` converted to rt, written there (or already there,
 * copied by cp.async). */

/* The dims of z's operand that are the buffer's rows and columns. */
static void row_col_dims(const Lazy *z, int *rd, int *cd) {
  int lead = (int)mlirShapedTypeGetRank(z->type) - 2;
  *rd = lead + (z->mma_operand == MMA_B_COLS ? 1 : 0);
  *cd = lead + (z->mma_operand == MMA_B_COLS ? 0 : 1);
}

void lw_mma_dims(const Lazy *z, int *rd, int *cd) { row_col_dims(z, rd, cd); }

/* Elements of one matrix (one batch element) of z's buffer. */
static int64_t matrix_elems(const Lazy *z) {
  int rd, cd;
  row_col_dims(z, &rd, &cd);
  return mlirShapedTypeGetDimSize(z->type, rd) * (mlirShapedTypeGetDimSize(z->type, cd) + z->pad);
}

Lazy *lw_mma_buffer(Lower *L, MlirType rt, int slots, bool kn) {
  Layout d;
  int r = (int)mlirShapedTypeGetRank(rt);
  if (!layout_of_type(L->comp, rt, &d) || d.kind != L_DOT_OP || (r != 2 && r != 3)) return NULL;
  MlirType et = lw_scalar_of(L, rt);
  int bits = lw_bits_of(et);
  Lazy *z = arena_alloc(L->comp->a, sizeof *z);
  *z = (Lazy){.et = et, .type = rt, .mma_operand = d.dim == 0 ? MMA_A : bits == 16 && !kn ? MMA_B_ROWS : MMA_B_COLS};
  int rd, cd;
  row_col_dims(z, &rd, &cd);
  int64_t cols = mlirShapedTypeGetDimSize(rt, cd), chunks = cols / 8;
  int align = 16;
  if (d.parent->kind == L_MMA && d.parent->version == 3) {
    /* wgmma's canonical layout (lower_wgmma.c): atoms of 8 rows of W bytes,
     * the widest W of 128, 64 and 32 bytes that divides a row */
    int64_t row_bytes = cols * bits / 8;
    int w = row_bytes % 128 == 0 ? 128 : row_bytes % 64 == 0 ? 64 : row_bytes % 32 == 0 ? 32 : 0;
    if (!w || r != 2 || mlirShapedTypeGetDimSize(rt, rd) % 8) return NULL;
    z->wg_cols = w * 8 / bits;
    z->per_phase = 128 / w;
    z->max_phase = w / 16;
    align = 8 * w; /* the swizzle's period: its pattern starts there */
  } else if (bits == 16 && cols % 8 == 0 && !(chunks & (chunks - 1))) {
    /* ldmatrix reads 16-byte chunks: swizzled, no padding */
    z->per_phase = cols * 2 >= 128 ? 1 : (int)(128 / (cols * 2));
    z->max_phase = (int)(8 / z->per_phase < chunks ? 8 / z->per_phase : chunks);
    if (z->max_phase < 1) z->max_phase = 1;
  } else {
    z->pad = row_words(cols, bits) * 32 / bits - cols;
  }
  int64_t batch = r == 3 ? mlirShapedTypeGetDimSize(rt, 0) : 1;
  z->base = lw_shared_buffer_aligned(L, et, batch * matrix_elems(z) * slots, align);
  return z;
}

/* Slot `slot` (an i32) of a buffer of several: the same operand, further on. */
Lazy *lw_mma_slot(Lower *L, const Lazy *buf, MlirValue slot) {
  Lazy *z = arena_alloc(L->comp->a, sizeof *z);
  *z = *buf;
  int64_t batch = mlirShapedTypeGetRank(buf->type) == 3 ? mlirShapedTypeGetDimSize(buf->type, 0) : 1;
  z->base = lw_shared_at(L, buf->base, buf->et, lw_bin(L, "arith.muli", slot, lw_const_i32(L, batch * matrix_elems(buf))));
  z->copied = z->pipelined = true;
  return z;
}

Lazy *lw_mma_view(Lower *L, const Lazy *z, MlirType rt) {
  Layout d;
  if (!z->mma_operand || !layout_of_type(L->comp, rt, &d) || d.kind != L_DOT_OP) return NULL;
  if (!z->flipped && mlirTypeEqual(z->type, rt)) return (Lazy *)z;
  int r = (int)mlirShapedTypeGetRank(rt), rd, cd;
  if (r != (int)mlirShapedTypeGetRank(z->type) || (z->flipped && r != 2)) return NULL;
  /* the dimension of rt along the buffer's rows */
  row_col_dims(z, &rd, &cd);
  int lead = r - 2, c = z->flipped ? 2 * lead + 1 - cd : cd;
  int mode = d.dim == 0 ? (c == lead + 1 ? MMA_A : 0) : c == lead ? MMA_B_COLS : lw_bits_of(z->et) == 16 ? MMA_B_ROWS : 0;
  if (!mode) return NULL;
  for (int i = 0; i < r; i++)
    if (mlirShapedTypeGetDimSize(rt, i) != mlirShapedTypeGetDimSize(z->type, z->flipped ? 1 - i : i)) return NULL;
  Lazy *v = arena_alloc(L->comp->a, sizeof *v);
  *v = *z;
  v->type = rt;
  v->mma_operand = mode;
  v->flipped = false;
  return v;
}

/* Where element (row, col) of z's buffer lies (row counting the matrices
 * before its own): padded rows, or swizzled ones, whose 16-byte chunk c
 * lies at c ^ ((row / per_phase) % max_phase), so that the 8 rows an
 * ldmatrix phase reads fall on 8 different 16-byte parts of the banks
 * (Triton's swizzle for mma.sync operands). A wgmma operand's rows are
 * W bytes (its atom's width): there the same XOR is the one the hardware
 * applies to address bits 4.. from bits 7.. */
static MlirValue place(Lower *L, const Lazy *z, MlirValue row, MlirValue col) {
  int rd, cd;
  row_col_dims(z, &rd, &cd);
  int64_t width = mlirShapedTypeGetDimSize(z->type, cd) + z->pad;
  MlirValue start;
  if (z->wg_cols) {
    /* a wgmma operand: wg_cols columns at a time, every row of them, then
     * the next wg_cols (lower_wgmma.c) */
    MlirValue atom = lw_bin(L, "arith.divui", col, lw_const_i32(L, z->wg_cols));
    col = lw_bin(L, "arith.remui", col, lw_const_i32(L, z->wg_cols));
    start = lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", atom, lw_const_i32(L, mlirShapedTypeGetDimSize(z->type, rd) * z->wg_cols)),
                   lw_bin(L, "arith.muli", row, lw_const_i32(L, z->wg_cols)));
  } else {
    start = lw_bin(L, "arith.muli", row, lw_const_i32(L, width));
  }
  if (!z->per_phase) return lw_bin(L, "arith.addi", start, col);
  int chunk_elems = 128 / lw_bits_of(z->et); /* 16 bytes */
  MlirValue phase = lw_bin(L, "arith.remui", lw_bin(L, "arith.divui", row, lw_const_i32(L, z->per_phase)), lw_const_i32(L, z->max_phase));
  MlirValue chunk = lw_bin(L, "arith.xori", lw_bin(L, "arith.divui", col, lw_const_i32(L, chunk_elems)), phase);
  return lw_bin(L, "arith.addi", start,
                lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", chunk, lw_const_i32(L, chunk_elems)),
                       lw_bin(L, "arith.remui", col, lw_const_i32(L, chunk_elems))));
}

MlirValue lw_mma_place(Lower *L, const Lazy *z, const Elems *e, int k, bool trans) {
  int rd, cd;
  row_col_dims(z, &rd, &cd);
  if (trans) {
    /* e is of the operand transposed: its dims the other way round */
    int t = rd;
    rd = cd, cd = t;
  }
  MlirValue row = lw_index_of(L, e, k, rd), col = lw_index_of(L, e, k, cd);
  if (e->rank == 3)
    row = lw_bin(L, "arith.addi", row,
                 lw_bin(L, "arith.muli", lw_index_of(L, e, k, 0), lw_const_i32(L, mlirShapedTypeGetDimSize(z->type, rd))));
  return place(L, z, row, col);
}

/* Whether src, in an MMA layout, converts to rt, operand A of a dot in
 * that same layout, without moving: its 16-bit elements are, per thread,
 * the A fragments' (the C fragment of two 16x8 parts side by side is the A
 * fragment of a 16x16 step, rows g and g + 8, K 2t, 2t + 1 and 8 more) when
 * each warp holds whole rows (no warps along N). Attention's P goes so from
 * the first dot to the second, as Triton converts an MMA accumulator to a
 * dot operand in registers. */
bool lw_a_in_registers(Lower *L, MlirValue src, MlirType rt) {
  Layout sl, dl;
  MlirType st = mlirValueGetType(src), et = mlirShapedTypeGetElementType(st);
  if (!layout_of_type(L->comp, st, &sl) || !layout_of_type(L->comp, rt, &dl) || sl.kind != L_MMA || dl.kind != L_DOT_OP ||
      dl.dim != 0 || !layout_equal(&sl, dl.parent) || sl.rank != 2 || sl.wpc[1] != 1 || !(mlirTypeIsAF16(et) || mlirTypeIsABF16(et)))
    return false;
  Elems e;
  return lw_elems_of(L, st, &e) && e.mma && mlirShapedTypeGetDimSize(st, 1) % 16 == 0 && mlirShapedTypeGetDimSize(st, 0) % (16 * sl.wpc[0]) == 0;
}

bool lw_a_registers(Lower *L, MlirValue a, const Vals *va, Elems *ea) {
  MlirOperation from = value_owner(a);
  return !va->lazy && va->n > 0 && !mlirOperationIsNull(from) && tile_op_of(from) == TOP_convert_layout &&
         lw_elems_of(L, mlirValueGetType(mlirOperationGetOperand(from, 0)), ea) && ea->mma;
}

Vals *lw_mma_operand(Lower *L, MlirValue src, MlirType rt) {
  Vals *in = lw_get(L, src);
  if (lw_a_in_registers(L, src, rt)) {
    /* the elements as they are: lw_lower_mma packs them into fragments */
    Vals *out = lw_new_vals(L, in->n);
    for (int k = 0; k < in->n; k++) out->v[k] = lw_val(L, in, k);
    return out;
  }
  Lazy *z = in->lazy;
  if (z && z->mma_operand && (z->copied || z->pipelined) && !(z = lw_mma_view(L, z, rt))) return NULL;
  if (z && z->pipelined) {
    /* the loop waited for it (lower_control.c) */
  } else if (z && z->copied) {
    /* cp.async put it there (lower_memory.c): it lands at the wait, and the
     * barrier insert-barriers puts before the first read shows it to all */
    lw_call(L, "tilec.cp.async.commit", (MlirType){NULL}, 0, NULL);
    lw_call(L, "tilec.cp.async.wait.0", (MlirType){NULL}, 0, NULL);
  } else {
    Elems es;
    if (!lw_elems_of(L, mlirValueGetType(src), &es) || !(z = lw_mma_buffer(L, rt, 1, false))) return NULL;
    for (int k = 0; k < es.n; k++) lw_smem_put(L, z->base, z->et, lw_mma_place(L, z, &es, k, false), lw_val(L, in, k));
  }
  Vals *out = lw_new_vals(L, 0);
  out->lazy = z;
  return out;
}

/* ldmatrix.sync.aligned.m8n8.x<n>[.trans].shared.b16 of the rows at element
 * `idx` of z's buffer (this lane's row): n registers. */
static void ldmatrix(Lower *L, const Lazy *z, MlirValue idx, int n, bool trans, MlirValue *out) {
  char name[48];
  snprintf(name, sizeof name, "tilec.ldmatrix.x%d%s.b16", n, trans ? ".trans" : "");
  MlirType i32 = lw_i32(L);
  MlirType st = mlirLLVMStructTypeLiteralGet(L->ctx, n, (MlirType[]){i32, i32, i32, i32}, false);
  MlirValue at = lw_shared_at(L, z->base, z->et, idx);
  MlirOperation call = lw_call_op(L, name, st, 1, &at);
  lw_tag_smem(L, call, z->base);
  MlirValue r = mlirOperationGetResult(call, 0);
  for (int i = 0; i < n; i++) out[i] = lw_extract_i32(L, r, i);
}

MlirValue lw_pack_halves(Lower *L, MlirValue lo, MlirValue hi) {
  MlirType i32 = lw_i32(L);
  MlirValue l = lw_emit1(L, "arith.extui", i32, 1, (MlirValue[]){lw_as_bits(L, lo)}, 0, NULL);
  MlirValue h = lw_emit1(L, "arith.extui", i32, 1, (MlirValue[]){lw_as_bits(L, hi)}, 0, NULL);
  return lw_bin(L, "arith.ori", l, lw_bin(L, "arith.shli", h, lw_const_i32(L, 16)));
}

MlirValue lw_unpack_half(Lower *L, MlirValue w, int half, MlirType f16) {
  if (half) w = lw_bin(L, "arith.shrui", w, lw_const_i32(L, 16));
  MlirValue b = lw_emit1(L, "arith.trunci", mlirIntegerTypeGet(L->ctx, 16), 1, &w, 0, NULL);
  return lw_from_bits(L, b, f16);
}

void lw_lower_mma(Lower *L, MlirOperation op) {
  MlirValue a = mlirOperationGetOperand(op, 0), b = mlirOperationGetOperand(op, 1), c = mlirOperationGetOperand(op, 2);
  MlirValue r = mlirOperationGetResult(op, 0);
  MlirType rt = mlirValueGetType(r), acc = lw_scalar_of(L, rt), i32 = lw_i32(L);
  MmaForm f;
  Elems ec;
  Layout ml;
  Vals *va = lw_get(L, a);
  Lazy *za = va->lazy, *zb = lw_get(L, b)->lazy;
  Elems ea; /* A in registers (a_in_registers): its MMA layout's elements */
  bool areg = lw_a_registers(L, a, va, &ea);
  MlirType ae = mlirShapedTypeGetElementType(mlirValueGetType(a)), be = mlirShapedTypeGetElementType(mlirValueGetType(b));
  if (!mma_form(ae, be, acc, L->comp->target->sm, &f) ||
      !lw_elems_of(L, rt, &ec) || !ec.mma ||
      !layout_of_type(L->comp, rt, &ml) || !(za || areg) || !zb || (za && za->mma_operand != MMA_A) || (areg && f.bits != 16) ||
      (zb->mma_operand != MMA_B_COLS && !(f.bits == 16 && zb->mma_operand == MMA_B_ROWS))) {
    lw_fail(L, op, "on tensor cores with these operands is not supported by the GPU code generator");
    return;
  }
  if (f.bits == 8 && !f.widen && lw_f8_format(ae) >= 0 && L->comp->ptx_isa < 84) L->comp->ptx_isa = 84; /* fp8 mma.sync */
  bool ldm = f.bits == 16; /* fragments by ldmatrix, else by 32-bit loads */
  /* 16-bit B as [N][K] (copied from a load of K^T): ldmatrix without .trans,
   * as A's, each 8x8 matrix 8 columns of N and 8 elements of K */
  bool bkn = ldm && zb && zb->mma_operand == MMA_B_COLS;
  int lead = ec.rank - 2; /* a batched dot's M and N are dims 1 and 2 */
  int wb = lead ? ml.wpc[0] : 1, wm = ml.wpc[lead], wn = ml.wpc[lead + 1];
  int64_t M = ec.shape[lead], N = ec.shape[lead + 1], K = mlirShapedTypeGetDimSize(mlirValueGetType(a), ec.rank - 1);
  /* a batch element's parts, and the batch elements a warp takes in turn */
  int reps_b = lead ? (int)(ec.shape[0] / wb) : 1, reps_m = (int)(M / (16 * wm)), reps_n = (int)(N / (8 * wn));
  int parts = reps_b * reps_m * reps_n;
  int e = 32 / f.bits;
  /* the thread's place: g, t, and its warp's part of a block */
  MlirValue g = lw_bin(L, "arith.divui", L->lane, lw_const_i32(L, 4));
  MlirValue t = lw_bin(L, "arith.remui", L->lane, lw_const_i32(L, 4));
  MlirValue warp_n = lw_bin(L, "arith.remui", L->warp, lw_const_i32(L, wn));
  MlirValue warp_m = lw_bin(L, "arith.remui", lw_bin(L, "arith.divui", L->warp, lw_const_i32(L, wn)), lw_const_i32(L, wm));
  MlirValue warp_b = lw_bin(L, "arith.remui", lw_bin(L, "arith.divui", L->warp, lw_const_i32(L, wn * wm)), lw_const_i32(L, wb));
  MlirValue wrow = lw_bin(L, "arith.muli", warp_m, lw_const_i32(L, 16)), wcol = lw_bin(L, "arith.muli", warp_n, lw_const_i32(L, 8));
  /* the (row, column) of the buffers where the thread's loads start at K =
   * 0, a row counting the batch elements' matrices before it; place()
   * makes them addresses at each step. With ldmatrix, lane l gives row l %
   * 8 of matrix l / 8 (A: rows 0-7 and 8-15 of a part, then the same 8
   * elements of K further; B: 8 rows of K, then 8 more, then the next
   * part's); else each A row (block rm, half h) and B column (block rn) at
   * the thread's word of K. rm and rn run over the batch elements' parts
   * one after another: rm = b * reps_m + m. */
  MlirValue *arow = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)reps_b * reps_m * 2);
  MlirValue *brow = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)reps_b * reps_n);
  MlirValue *bcol = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)reps_b * reps_n);
  MlirValue mat = lw_bin(L, "arith.divui", L->lane, lw_const_i32(L, 8)), r8 = lw_bin(L, "arith.remui", L->lane, lw_const_i32(L, 8));
  MlirValue mlo = lw_bin(L, "arith.remui", mat, lw_const_i32(L, 2)), mhi = lw_bin(L, "arith.divui", mat, lw_const_i32(L, 2));
  MlirValue te = lw_bin(L, "arith.muli", t, lw_const_i32(L, e));
  MlirValue acol = ldm ? lw_bin(L, "arith.muli", mhi, lw_const_i32(L, 8)) : te;
  for (int bm = 0; bm < reps_b * reps_m; bm++)
    for (int h = 0; h < (ldm ? 1 : 2); h++) {
      int64_t part = (int64_t)(bm % reps_m) * 16 * wm;
      MlirValue batch = lw_bin(L, "arith.addi", warp_b, lw_const_i32(L, (int64_t)(bm / reps_m) * wb));
      MlirValue row = ldm ? lw_bin(L, "arith.addi", lw_bin(L, "arith.addi", wrow, lw_bin(L, "arith.muli", mlo, lw_const_i32(L, 8))),
                                   lw_bin(L, "arith.addi", r8, lw_const_i32(L, part)))
                          : lw_bin(L, "arith.addi", wrow, lw_bin(L, "arith.addi", g, lw_const_i32(L, part + 8 * h)));
      arow[bm * 2 + h] = lw_bin(L, "arith.addi", row, lw_bin(L, "arith.muli", batch, lw_const_i32(L, M)));
    }
  for (int bn = 0; bn < reps_b * reps_n; bn++) {
    int rn = bn % reps_n;
    if (ldm && rn % 2) continue;
    MlirValue batch = lw_bin(L, "arith.addi", warp_b, lw_const_i32(L, (int64_t)(bn / reps_n) * wb));
    MlirValue row;
    if (bkn) {
      /* x4: matrices (part rn, K 0-7), (rn, 8-15), (rn + 1, 0-7), (rn + 1, 8-15); x2 for a last odd one */
      MlirValue next = rn + 1 < reps_n ? lw_bin(L, "arith.muli", mhi, lw_const_i32(L, 8 * wn)) : lw_const_i32(L, 0);
      row = lw_bin(L, "arith.addi", lw_bin(L, "arith.addi", wcol, next), lw_bin(L, "arith.addi", r8, lw_const_i32(L, (int64_t)rn * 8 * wn)));
      bcol[bn] = lw_bin(L, "arith.muli", mlo, lw_const_i32(L, 8));
    } else if (ldm) {
      /* x4.trans: parts rn and rn + 1; x2.trans for a last odd one */
      MlirValue next = rn + 1 < reps_n ? lw_bin(L, "arith.muli", mhi, lw_const_i32(L, 8 * wn)) : lw_const_i32(L, 0);
      row = lw_bin(L, "arith.addi", lw_bin(L, "arith.muli", mlo, lw_const_i32(L, 8)), r8);
      bcol[bn] = lw_bin(L, "arith.addi", lw_bin(L, "arith.addi", wcol, next), lw_const_i32(L, (int64_t)rn * 8 * wn));
    } else {
      row = lw_bin(L, "arith.addi", wcol, lw_bin(L, "arith.addi", g, lw_const_i32(L, (int64_t)rn * 8 * wn)));
      bcol[bn] = te;
    }
    brow[bn] = lw_bin(L, "arith.addi", row, lw_bin(L, "arith.muli", batch, lw_const_i32(L, ldm && !bkn ? K : N)));
  }
  /* the accumulators: C's elements in registers, part by part */
  int nregs = parts * f.nc;
  Vals *vc = lw_get(L, c);
  MlirValue *regs = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)nregs);
  int *elem = arena_alloc(L->comp->a, sizeof(int) * (size_t)parts * 4); /* part p, value q (row half q/2, col q%2) */
  for (int bm = 0; bm < reps_b * reps_m; bm++)
    for (int rn = 0; rn < reps_n; rn++)
      for (int q = 0; q < 4; q++) {
        int rm = bm % reps_m, c3[3] = {bm / reps_m, rm * 2 + q / 2, rn * 2 + q % 2};
        elem[(bm * reps_n + rn) * 4 + q] = lw_element_of(&ec, lead ? c3 : c3 + 1);
      }
  for (int p = 0; p < parts; p++)
    for (int q = 0; q < f.nc; q++) {
      if (f.nc == 2) regs[p * 2 + q] = lw_pack_halves(L, lw_val(L, vc, elem[p * 4 + q * 2]), lw_val(L, vc, elem[p * 4 + q * 2 + 1]));
      else regs[p * 4 + q] = lw_as_bits(L, lw_val(L, vc, elem[p * 4 + q])); /* f32 or i32: 32 bits */
    }
  /* each step of K in turn, straight-line as Triton's code is (each
   * step's fragment addresses fold to constant offsets, and ptxas
   * schedules across the steps): load the step's registers, one
   * instruction per part */
  int all_m = reps_b * reps_m, all_n = reps_b * reps_n;
  /* tf32x3: each fp32 operand as big + small, big its tf32 part (the low 13
   * bits of the mantissa cleared) and small the rest, rounded by the
   * instruction to tf32 in turn; the product as small*big + big*small +
   * big*big, small*small dropped (Triton's tf32x3) */
  MlirAttribute prec = mlirOperationGetAttributeByName(op, str("input_precision"));
  MlirStringRef ps = !mlirAttributeIsNull(prec) && mlirAttributeIsAString(prec) ? mlirStringAttrGetValue(prec) : str("");
  bool x3 = f.bits == 32 && ps.length == 6 && !memcmp(ps.data, "tf32x3", 6);
  int subs = f.widen ? 2 : 1; /* fp8 on fp16's instruction: two of them a step (below) */
  char name[64];
  snprintf(name, sizeof name, "tilec.mma.%s", f.name);
  MlirType st = mlirLLVMStructTypeLiteralGet(L->ctx, f.nc, (MlirType[]){i32, i32, i32, i32}, false);
  MlirValue *carried = regs;
  for (int step = 0; step < K / f.k; step++) {
    MlirValue *ra = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)reps_b * reps_m * 4);
    MlirValue *rb = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)reps_b * reps_n * 2);
    MlirValue ka = lw_const_i32(L, (int64_t)step * f.k); /* the step's first element of K */
    for (int rm = 0; rm < all_m; rm++) {
      if (areg) {
        /* rows g (q even) and g + 8 (q odd) of part rm, K 2t, 2t + 1 (q < 2)
         * and 8 further (q >= 2): the C fragments' elements (2 rm + q % 2,
         * 4 step + 2 (q / 2) + {0, 1}) */
        for (int q = 0; q < 4; q++) {
          int c0[2] = {rm * 2 + q % 2, step * 4 + 2 * (q / 2)}, c1[2] = {c0[0], c0[1] + 1};
          ra[rm * 4 + q] = lw_pack_pair(L, va->v[lw_element_of(&ea, c0)], va->v[lw_element_of(&ea, c1)]);
        }
        continue;
      }
      if (ldm) {
        ldmatrix(L, za, place(L, za, arow[rm * 2], lw_bin(L, "arith.addi", acol, ka)), 4, false, &ra[rm * 4]);
        continue;
      }
      for (int q = 0; q < 4; q++) {
        MlirValue col = lw_bin(L, "arith.addi", acol, lw_bin(L, "arith.addi", ka, lw_const_i32(L, f.k / 2 * (q / 2))));
        MlirValue at = place(L, za, arow[rm * 2 + q % 2], col);
        ra[rm * 4 + q] = lw_load_shared(L, za->base, i32, lw_bin(L, "arith.divui", at, lw_const_i32(L, e)));
      }
    }
    for (int rn = 0; rn < all_n; rn++) {
      if (ldm) {
        if (rn % reps_n % 2 == 0) {
          MlirValue at = bkn ? place(L, zb, brow[rn], lw_bin(L, "arith.addi", bcol[rn], ka))
                             : place(L, zb, lw_bin(L, "arith.addi", brow[rn], ka), bcol[rn]);
          ldmatrix(L, zb, at, rn % reps_n + 1 < reps_n ? 4 : 2, !bkn, &rb[rn * 2]);
        }
        continue;
      }
      for (int q = 0; q < 2; q++) {
        MlirValue col = lw_bin(L, "arith.addi", bcol[rn], lw_bin(L, "arith.addi", ka, lw_const_i32(L, f.k / 2 * q)));
        rb[rn * 2 + q] = lw_load_shared(L, zb->base, i32, lw_bin(L, "arith.divui", place(L, zb, brow[rn], col), lw_const_i32(L, e)));
      }
    }
    MlirValue *sa = NULL, *sb = NULL; /* tf32x3's small parts */
    if (x3) {
      sa = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)all_m * 4);
      sb = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)all_n * 2);
      for (int i = 0; i < all_m * 4 + all_n * 2; i++) {
        MlirValue *x = i < all_m * 4 ? &ra[i] : &rb[i - all_m * 4], *small = i < all_m * 4 ? &sa[i] : &sb[i - all_m * 4];
        MlirValue big = lw_bin(L, "arith.andi", *x, lw_const_i32(L, (int64_t)(int32_t)0xffffe000u));
        MlirType f32 = mlirF32TypeGet(L->ctx);
        MlirValue xf = lw_emit1(L, "arith.bitcast", f32, 1, x, 0, NULL), bf = lw_emit1(L, "arith.bitcast", f32, 1, &big, 0, NULL);
        MlirValue d = lw_bin(L, "arith.subf", xf, bf);
        *small = lw_emit1(L, "arith.bitcast", i32, 1, &d, 0, NULL);
        *x = big;
      }
    }
    /* fp8 on fp16's instruction: a step's 32 elements of K are two
     * instructions. The sum over K does not care in which order the elements
     * meet, only that A's and B's meet alike: register q of A (row g + 8(q %
     * 2), K 4t .. 4t + 3 of half q / 2) gives, widened, the instruction's a0
     * (bytes 0, 1) and a2 (bytes 2, 3), or a1 and a3, and B's register of
     * that half its b0 and b1 the same way, so that the pairs a0/b0 and
     * a2/b1 hold the same elements of K. */
    MlirValue *xa = ra, *xb = rb;
    if (f.widen) {
      int fa = lw_f8_format(ae), fb = lw_f8_format(be);
      xa = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)all_m * 8);
      xb = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)all_n * 4);
      for (int rm = 0; rm < all_m; rm++)
        for (int sub = 0; sub < 2; sub++)
          for (int q = 0; q < 4; q++) xa[rm * 8 + sub * 4 + q] = widen_pair(L, ra[rm * 4 + 2 * sub + q % 2], q / 2, fa);
      for (int rn = 0; rn < all_n; rn++)
        for (int sub = 0; sub < 2; sub++)
          for (int q = 0; q < 2; q++) xb[rn * 4 + sub * 2 + q] = widen_pair(L, rb[rn * 2 + sub], q, fb);
    }
    MlirValue *next = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)nregs);
    for (int rm = 0; rm < all_m; rm++)
      for (int n = 0; n < reps_n; n++) {
        int p = rm * reps_n + n, rn = rm / reps_m * reps_n + n; /* the same batch element's */
        MlirValue args[10];
        for (int q = 0; q < f.nc; q++) args[6 + q] = carried[p * f.nc + q];
        for (int sub = 0; sub < subs; sub++)
          for (int term = x3 ? 0 : 2; term < 3; term++) {
            /* tf32x3: small*big, big*small, then big*big */
            for (int q = 0; q < 4; q++) args[q] = term == 0 ? sa[rm * 4 + q] : xa[rm * 4 * subs + sub * 4 + q];
            for (int q = 0; q < 2; q++) args[4 + q] = term == 1 ? sb[rn * 2 + q] : xb[rn * 2 * subs + sub * 2 + q];
            MlirValue d = lw_call(L, name, st, 6 + f.nc, args);
            for (int q = 0; q < f.nc; q++) args[6 + q] = lw_extract_i32(L, d, q);
          }
        for (int q = 0; q < f.nc; q++) next[p * f.nc + q] = args[6 + q];
      }
    carried = next;
  }
  regs = carried;
  /* the result's elements from the registers */
  Vals *out = lw_new_vals(L, ec.n);
  for (int p = 0; p < parts; p++)
    for (int q = 0; q < 4; q++) {
      MlirValue w = regs[p * f.nc + (f.nc == 2 ? q / 2 : q)];
      out->v[elem[p * 4 + q]] = f.nc == 2 ? lw_unpack_half(L, w, q % 2, acc) : lw_from_bits(L, w, acc);
    }
  lw_put(L, r, out);
}
