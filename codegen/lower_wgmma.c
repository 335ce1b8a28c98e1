/*
 * lower_wgmma.c — tl.dot on sm_90a's warpgroup tensor cores:
 * wgmma.mma_async.sync.aligned.m64n<n>k<k>.
 *
 * accelerate-matmul gives such a dot #tile.mma<3, [num_warps, 1], [16, n]>:
 * warp w holds rows 16 w .. 16 w + 15 of every 16 x num_warps, each of its
 * lanes what mma.sync's C fragment gives it in every 8 columns (PTX ISA,
 * "Register Fragments" of wgmma's D), so that four warps in a row, a
 * warpgroup, hold the 64 x n result of one instruction. The operands are
 * in shared memory, where lw_mma_buffer lays them out in wgmma's canonical
 * layouts (PTX ISA, "Shared Memory Matrix Layout"):
 *   - the buffer's rows are the operand's M or N (K-major: A [M][K], B
 *     [N][K]) or its K (MN-major: B [K][N], 16-bit types only); its columns
 *     go W bytes at a time (W = 128, 64 or 32, the widest dividing a row):
 *     every row of the first W bytes, then every row of the next;
 *   - within those, row r is W bytes at r W, its 16-byte chunk c at
 *     c ^ ((r W / 128) mod (W / 16)): the swizzle of that width, which the
 *     hardware undoes on the address bits (bits 4.. XOR bits 7..), the
 *     buffer aligned to its period (8 W).
 * A matrix descriptor then says where an instruction's part starts and how
 * the rest follows: K-major, eight rows further is SBO = 8 W on (LBO is not
 * used); MN-major, eight rows of K further is SBO = 8 W, the next W bytes
 * of N is LBO = rows x W on; the swizzle mode in bits 63..62. Each step of
 * K moves the start address along the row (K-major) or down the rows
 * (MN-major).
 *
 * A of 16-bit types may come in registers instead, the MMA result of the
 * dot before (attention's P): its fragment is the D fragment's, as with
 * mma.sync (lw_a_in_registers).
 *
 * The dot is issued as the hardware wants it: fence.proxy.async (the
 * operands were written by ordinary stores or cp.async, the generic proxy;
 * wgmma reads through the async proxy), wgmma.fence (the accumulators were
 * written by other instructions), every step of K for every 64 rows a
 * warpgroup computes and every n columns, one commit_group, and a
 * wait_group 0 through which the accumulators pass (so that nothing reads
 * them before the instructions are done). In a pipelined K loop whose dot
 * only accumulates (its result carried to the next iteration's and read
 * nowhere else) the wait is wait_group 1: the group stays in flight while
 * the next iteration's copies and address arithmetic run, the next
 * iteration's instructions chain on its registers, and the loop waits for
 * the last group after it; the loop's buffers then have S slots instead
 * of S - 1, so that the copies of an iteration go to the slot of the one
 * before, whose group that wait retired (lower_control.c), as Triton's
 * pipeliner does. The calls:
 *   tilec.fence.proxy.async()
 *   tilec.wgmma.fence(), tilec.wgmma.commit()
 *   tilec.wgmma.wait.<0|1>(d...) -> {i32 x nd}
 *   tilec.wgmma.m64n<n>k<k>.<dtype>.<atype>.<btype>[.ta][.tb](d..., a_desc, b_desc, scale_d)
 *   tilec.wgmma.m64n<n>k<k>.<dtype>.<atype>.<btype>.areg[.tb](d..., a0..a3, b_desc, scale_d)
 *       -> {i32 x nd}, nd = n / 2 (n / 4 for an f16 D)
 *   tilec.smem.addr(p) -> i32, p's shared-memory address, tagged with its
 *       buffer (insert-barriers sees the instruction's read there)
 * expand-for-gpu makes them PTX; the emulator binds them to its model
 * (emu/wgmma.h), whose tests hold it to the ISA's tables.
 */
#include "lower.h"

/* What the instruction takes for these element types: its name's types and K. */
typedef struct WgForm {
  const char *dtype, *atype, *btype;
  int k, bits;
  bool f16_d;
} WgForm;

static const char *wg_type(MlirType t) {
  if (mlirTypeIsAF16(t)) return "f16";
  if (mlirTypeIsABF16(t)) return "bf16";
  if (mlirTypeIsAF32(t)) return "tf32";
  int f8 = lw_f8_format(t);
  if (f8 == 0) return "e4m3";
  if (f8 == 1) return "e5m2";
  if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 8) return "s8"; /* the IR's integers carry no sign */
  return NULL;
}

static bool wg_form(MlirType at, MlirType bt, MlirType acc, WgForm *f) {
  f->atype = wg_type(at), f->btype = wg_type(bt);
  if (!f->atype || !f->btype) return false;
  bool fp8 = lw_f8_format(at) >= 0 && lw_f8_format(bt) >= 0;
  if (!fp8 && strcmp(f->atype, f->btype)) return false;
  f->f16_d = mlirTypeIsAF16(acc);
  bool s32 = mlirTypeIsAInteger(acc) && mlirIntegerTypeGetWidth(acc) == 32;
  f->dtype = f->f16_d ? "f16" : s32 ? "s32" : mlirTypeIsAF32(acc) ? "f32" : NULL;
  if (!f->dtype) return false;
  bool integer = !strcmp(f->atype, "s8");
  if (integer != s32 || (f->f16_d && !(fp8 || !strcmp(f->atype, "f16")))) return false;
  f->bits = lw_bits_of(at) == 32 ? 32 : integer || fp8 ? 8 : 16;
  f->k = 256 / f->bits; /* 32 bytes of K a step: k16, k8, k32 */
  return true;
}

static MlirValue const_i64(Lower *L, uint64_t v) {
  MlirType i64 = mlirIntegerTypeGet(L->ctx, 64);
  MlirNamedAttribute a = lw_named(L, "value", mlirIntegerAttrGet(i64, (int64_t)v));
  return lw_emit1(L, "arith.constant", i64, 0, NULL, 1, &a);
}

/* The 64-bit descriptor of a buffer starting at `start` (an i32 shared
 * address): the start's bits 17..4, then constant fields. */
static MlirValue descriptor(Lower *L, MlirValue start, uint64_t fields) {
  MlirValue s = lw_bin(L, "arith.shrui", lw_bin(L, "arith.andi", start, lw_const_i32(L, 0x3ffff)), lw_const_i32(L, 4));
  MlirValue w = lw_emit1(L, "arith.extui", mlirIntegerTypeGet(L->ctx, 64), 1, &s, 0, NULL);
  return lw_bin(L, "arith.ori", w, const_i64(L, fields));
}

/* The descriptor `bytes` (a multiple of 16) further on than `base`'s: its
 * start field plus bytes / 16, as Triton steps its descriptors (the
 * buffers lie below 256 KiB, so the field does not carry). */
static MlirValue descriptor_at(Lower *L, MlirValue base, int64_t bytes) {
  return bytes ? lw_bin(L, "arith.addi", base, const_i64(L, (uint64_t)(bytes >> 4))) : base;
}

/* The fixed fields of z's descriptors: LBO, SBO and the swizzle mode. */
static uint64_t fields_of(const Lazy *z, int64_t rows, bool mn_major) {
  int64_t eb = lw_bits_of(z->et) / 8, w = z->wg_cols * eb;
  uint64_t lbo = mn_major ? (uint64_t)(rows * w) : 16, sbo = (uint64_t)(8 * w);
  uint64_t mode = w == 128 ? 1 : w == 64 ? 2 : 3;
  return (lbo >> 4 & 0x3fff) << 16 | (sbo >> 4 & 0x3fff) << 32 | mode << 62;
}

/* The byte offset in z's buffer (rows x cols, as lw_mma_buffer lays it)
 * of element (row, col), not swizzled: where a descriptor's part starts. */
static int64_t offset_of(const Lazy *z, int64_t rows, int64_t row, int64_t col) {
  int64_t eb = lw_bits_of(z->et) / 8;
  return ((col / z->wg_cols) * rows * z->wg_cols + row * z->wg_cols + col % z->wg_cols) * eb;
}

/* The shared address of z's buffer, as an i32: tagged with the buffer, it
 * is where insert-barriers sees the instructions' reads. */
static MlirValue smem_addr(Lower *L, const Lazy *z) {
  MlirOperation call = lw_call_op(L, "tilec.smem.addr", lw_i32(L), 1, &z->base);
  lw_tag_smem(L, call, z->base);
  return mlirOperationGetResult(call, 0);
}

void lw_lower_wgmma(Lower *L, MlirOperation op) {
  MlirValue a = mlirOperationGetOperand(op, 0), b = mlirOperationGetOperand(op, 1), c = mlirOperationGetOperand(op, 2);
  MlirValue r = mlirOperationGetResult(op, 0);
  MlirType rt = mlirValueGetType(r), acc = lw_scalar_of(L, rt), i32 = lw_i32(L);
  MlirType ae = mlirShapedTypeGetElementType(mlirValueGetType(a)), be = mlirShapedTypeGetElementType(mlirValueGetType(b));
  Vals *va = lw_get(L, a);
  Lazy *za = va->lazy, *zb = lw_get(L, b)->lazy;
  Elems ec, ea;
  Layout ml;
  WgForm f;
  bool areg = lw_a_registers(L, a, va, &ea);
  if (!wg_form(ae, be, acc, &f) || !lw_elems_of(L, rt, &ec) || !ec.mma || !layout_of_type(L->comp, rt, &ml) || ec.rank != 2 ||
      !(za || areg) || !zb || (za && (za->mma_operand != MMA_A || !za->wg_cols)) || (areg && f.bits != 16) || !zb->wg_cols ||
      (zb->mma_operand == MMA_B_ROWS && f.bits != 16) || zb->mma_operand == MMA_A) {
    lw_fail(L, op, "on wgmma with these operands is not supported by the GPU code generator");
    return;
  }
  bool tb = zb->mma_operand == MMA_B_ROWS; /* B MN-major: [K][N] */
  int wm = ml.wpc[0], n = ml.instr[1];
  int64_t M = ec.shape[0], N = ec.shape[1], K = mlirShapedTypeGetDimSize(mlirValueGetType(a), 1);
  int reps_m = (int)(M / (16 * wm)), reps_n = (int)(N / n), steps = (int)(K / f.k);
  int nd = f.f16_d ? n / 4 : n / 2; /* D registers of one instruction */
  if (M % (16 * wm) || N % n || K % f.k || wm % 4 || (tb && reps_n > 1 && n % zb->wg_cols)) {
    lw_fail(L, op, "on wgmma with this tile is not supported by the GPU code generator");
    return;
  }
  /* the accumulators: instruction (rm, rn)'s register q holds D's elements
   * i = 2q, 2q + 1 (f16) or q: row g + 8 ((i >> 1) & 1), column
   * 8 (i >> 2) + 2 t + (i & 1) of the warp's 16 x n */
  int parts = reps_m * reps_n, nregs = parts * nd;
  int *elem = arena_alloc(L->comp->a, sizeof(int) * (size_t)parts * n / 2);
  for (int rm = 0; rm < reps_m; rm++)
    for (int rn = 0; rn < reps_n; rn++)
      for (int i = 0; i < n / 2; i++) {
        int cc[2] = {rm * 2 + ((i >> 1) & 1), (rn * n / 8 + (i >> 2)) * 2 + (i & 1)};
        elem[(rm * reps_n + rn) * (n / 2) + i] = lw_element_of(&ec, cc);
      }
  Vals *vc = lw_get(L, c);
  MlirValue *regs = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)nregs);
  for (int p = 0; p < parts; p++)
    for (int q = 0; q < nd; q++) {
      const int *e = &elem[p * (n / 2)];
      regs[p * nd + q] = f.f16_d ? lw_pack_halves(L, lw_val(L, vc, e[2 * q]), lw_val(L, vc, e[2 * q + 1]))
                                 : lw_as_bits(L, lw_val(L, vc, e[q]));
    }
  /* the descriptors' starts: A's rows of this warpgroup (64 of every
   * 16 x wm), B's from its first element */
  lw_call(L, "tilec.fence.proxy.async", (MlirType){NULL}, 0, NULL);
  MlirValue a_base = (MlirValue){NULL}, b_base = smem_addr(L, zb);
  if (za) {
    MlirValue wg_row = lw_bin(L, "arith.muli", lw_bin(L, "arith.divui", L->warp, lw_const_i32(L, 4)), lw_const_i32(L, 64));
    a_base = lw_bin(L, "arith.addi", smem_addr(L, za), lw_bin(L, "arith.muli", wg_row, lw_const_i32(L, za->wg_cols * f.bits / 8)));
  }
  uint64_t a_fields = za ? fields_of(za, M, false) : 0, b_fields = fields_of(zb, tb ? K : N, tb);
  /* each descriptor its buffer's first, stepped */
  MlirValue a_desc = za ? descriptor(L, a_base, a_fields) : (MlirValue){NULL}, b_desc = descriptor(L, b_base, b_fields);
  char name[96];
  snprintf(name, sizeof name, "tilec.wgmma.m64n%dk%d.%s.%s.%s%s%s", n, f.k, f.dtype, f.atype, f.btype, areg ? ".areg" : "",
           tb ? ".tb" : "");
  MlirType *words = arena_alloc(L->comp->a, sizeof(MlirType) * (size_t)(nregs > nd ? nregs : nd));
  for (int i = 0; i < (nregs > nd ? nregs : nd); i++) words[i] = i32;
  MlirType st = mlirLLVMStructTypeLiteralGet(L->ctx, nd, words, false);
  MlirValue *args = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)(nd + 7));
  MlirValue one = lw_const_i32(L, 1);
  /* A's operands of every step: its descriptor, or its fragment from P's
   * registers, packed before wgmma.fence (the ISA: registers an instruction
   * reads as A are written before the fence) */
  int na = za ? 1 : 4;
  MlirValue *ops = arena_alloc(L->comp->a, sizeof(MlirValue) * (size_t)(steps * reps_m * na));
  for (int step = 0; step < steps; step++)
    for (int rm = 0; rm < reps_m; rm++) {
      MlirValue *ops_a = &ops[(step * reps_m + rm) * na];
      if (za) {
        ops_a[0] = descriptor_at(L, a_desc, offset_of(za, M, (int64_t)rm * 16 * wm, (int64_t)step * f.k));
        continue;
      }
      /* row g + 8 (q % 2), K 2t + 8 (q / 2) of the step */
      for (int q = 0; q < 4; q++) {
        int c0[2] = {rm * 2 + q % 2, step * 4 + 2 * (q / 2)}, c1[2] = {c0[0], c0[1] + 1};
        ops_a[q] = lw_pack_pair(L, va->v[lw_element_of(&ea, c0)], va->v[lw_element_of(&ea, c1)]);
      }
    }
  lw_call(L, "tilec.wgmma.fence", (MlirType){NULL}, 0, NULL);
  for (int step = 0; step < steps; step++)
    for (int rm = 0; rm < reps_m; rm++) {
      const MlirValue *ops_a = &ops[(step * reps_m + rm) * na];
      for (int rn = 0; rn < reps_n; rn++) {
        int p = rm * reps_n + rn, k = 0;
        for (int q = 0; q < nd; q++) args[k++] = regs[p * nd + q];
        for (int i = 0; i < na; i++) args[k++] = ops_a[i];
        int64_t boff = tb ? offset_of(zb, K, (int64_t)step * f.k, (int64_t)rn * n) : offset_of(zb, N, (int64_t)rn * n, (int64_t)step * f.k);
        args[k++] = descriptor_at(L, b_desc, boff);
        args[k++] = one; /* scale-d: D = A B + D */
        MlirValue d = lw_call(L, name, st, k, args);
        for (int q = 0; q < nd; q++) regs[p * nd + q] = lw_extract_i32(L, d, q);
      }
    }
  lw_call(L, "tilec.wgmma.commit", (MlirType){NULL}, 0, NULL);
  MlirType all = mlirLLVMStructTypeLiteralGet(L->ctx, nregs, words, false);
  /* a pipelined loop's accumulating dot leaves its group in flight: the
   * next iteration's instructions take the registers as they are, and the
   * loop waits for the last after it (lower_control.c) */
  bool keep = mlirOperationEqual(op, L->wg_async_dot);
  MlirValue done = lw_call(L, keep ? "tilec.wgmma.wait.1" : "tilec.wgmma.wait.0", all, nregs, regs);
  /* the result's elements from the registers */
  Vals *out = lw_new_vals(L, ec.n);
  for (int p = 0; p < parts; p++)
    for (int i = 0; i < n / 2; i++) {
      MlirValue w = lw_extract_i32(L, done, p * nd + (f.f16_d ? i / 2 : i));
      out->v[elem[p * (n / 2) + i]] = f.f16_d ? lw_unpack_half(L, w, i % 2, acc) : lw_from_bits(L, w, acc);
    }
  lw_put(L, r, out);
}
