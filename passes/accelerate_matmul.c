/*
 * accelerate_matmul.c — tl.dot on tensor cores: the MMA layouts.
 *
 * Requires: tile IR with layouts (convert-to-gpu). Guarantees: a 2-D or
 * batched 3-D tile.dot that an sm_80 mma.sync can compute on the target has its result
 * (and accumulator) in #tile.mma<2, warps, instr> and its operands in the
 * dot_op layouts of that layout; the values around it are converted from
 * and to the layouts they had, for remove-layout-conversions to clean (a
 * loop-carried accumulator then stays in the MMA layout across the loop).
 * Every other dot is left as it is, on FMAs.
 *
 * What an mma.sync takes, by operand type (instr: the result's M x N per
 * instruction; K per instruction):
 *   f16 x f16 -> f32 or f16, bf16 x bf16 -> f32   m16n8k16
 *   f32 x f32 -> f32 with input_precision="tf32"  m16n8k8 (Triton's default for f32),
 *                      or "tf32x3"              three of them (the operands split in two tf32)
 *   i8 x i8 -> i32                                m16n8k32 (.s8: the IR's
 *                                                 integers carry no sign)
 *   e4m3/e5m2 x e4m3/e5m2 -> f32 on sm_89+           m16n8k32 (PTX 8.4)
 *                         -> f32 or f16 otherwise     two m16n8k16 f16 per 32 of K
 * fp8 operands reach the dot widened to f16 (sema), which is exact: when K
 * is a multiple of 32 the dot takes them as they were loaded (fp8_source)
 * and the lowering widens them after shared memory, else the f16 form. input_precision "ieee" and the bf16 splits, f64,
 * other accumulators, targets before sm_80 and warps other than 32 threads
 * stay on FMAs, as do tiles an instruction does not divide or too small for
 * every warp to have its own part (M/16 * N/8 < num_warps). A batched
 * (3-D) dot puts as many warps on its batch as divide it, the others over
 * M and N: #tile.mma<2, [wb, wm, wn], [1, 16, 8]>.
 *
 * The warps: as many as the tile has room for along M (16 rows each) and N
 * (8 columns each), doubling along M while a warp's part is at least as
 * tall as it is wide in 16x16 units, else along N, until there are
 * num_warps of them (Triton's choice for mma.sync). Chained dots (one's
 * result reaches the other, as attention's P reaches PV): the warps the
 * other dot has already, else all of them along the longer side, as
 * Triton's warpsPerTileV2, where the tile divides so.
 *
 * On sm_90a a 2-D dot whose tile a warpgroup's wgmma.mma_async divides
 * takes #tile.mma<3, [num_warps, 1], [16, n]> instead (wgmma_n): the same
 * types, each warp 16 rows of every 16 x num_warps, the instruction n
 * columns wide; its operands are read from shared memory through matrix
 * descriptors (lower_wgmma.c).
 */
#include "passes.h"

#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

static bool is_fp8(MlirType t) { return mlirTypeIsAFloat8E4M3FN(t) || mlirTypeIsAFloat8E5M2(t); }

/* The fp8 value an f16 dot operand was widened from (through layout
 * conversions), or a null value. */
static MlirValue fp8_source(MlirValue v) {
  MlirOperation op = value_owner(v);
  while (!mlirOperationIsNull(op) && op_is(op, "tile.convert_layout")) op = value_owner(mlirOperationGetOperand(op, 0));
  if (mlirOperationIsNull(op) || !op_is(op, "arith.extf")) return (MlirValue){NULL};
  MlirValue src = mlirOperationGetOperand(op, 0);
  return is_fp8(mlirShapedTypeGetElementType(mlirValueGetType(src))) ? src : (MlirValue){NULL};
}

/* The K of one instruction for these operand and accumulator types; 0 when
 * no mma.sync computes them. */
static int mma_k(MlirType a, MlirType b, MlirType acc, MlirOperation dot) {
  /* either format with either; before sm_89 or into f16, on fp16's
   * instruction (lower_mma.c widens them), two per step of 32 */
  if (is_fp8(a) && is_fp8(b)) return mlirTypeIsAF32(acc) || mlirTypeIsAF16(acc) ? 32 : 0;
  if (!mlirTypeEqual(a, b) && !(mlirTypeIsAInteger(a) && mlirTypeIsAInteger(b))) return 0;
  if (mlirTypeIsAF16(a)) return mlirTypeIsAF32(acc) || mlirTypeIsAF16(acc) ? 16 : 0;
  if (mlirTypeIsABF16(a)) return mlirTypeIsAF32(acc) ? 16 : 0;
  if (mlirTypeIsAF32(a)) {
    MlirAttribute p = mlirOperationGetAttributeByName(dot, mlirStringRefCreateFromCString("input_precision"));
    if (mlirAttributeIsNull(p) || !mlirAttributeIsAString(p)) return 0;
    MlirStringRef s = mlirStringAttrGetValue(p);
    /* tf32x3: three tf32 products of the split operands (lower_mma.c) */
    bool tf32 = (s.length == 4 && !memcmp(s.data, "tf32", 4)) || (s.length == 6 && !memcmp(s.data, "tf32x3", 6));
    return mlirTypeIsAF32(acc) && tf32 ? 8 : 0;
  }
  if (mlirTypeIsAInteger(a) && mlirIntegerTypeGetWidth(a) == 8 && mlirTypeIsAInteger(b) && mlirIntegerTypeGetWidth(b) == 8)
    return mlirTypeIsAInteger(acc) && mlirIntegerTypeGetWidth(acc) == 32 ? 32 : 0;
  return 0;
}

/* The warps over M and N for an M x N result; false when the tile has
 * fewer 16x8 parts than warps. */
static bool mma_warps(int64_t M, int64_t N, int warps, int *wm, int *wn) {
  if ((M / 16) * (N / 8) < warps) return false;
  *wm = *wn = 1;
  while (*wm * *wn < warps) {
    bool taller = M / (16 * *wm) >= N / (16 * *wn);
    bool more_m = *wm * 2 * 16 <= M, more_n = *wn * 2 * 8 <= N;
    if ((taller && more_m) || !more_n) *wm *= 2;
    else *wn *= 2;
  }
  return true;
}

/* The N of one wgmma.mma_async for an M x N x K dot with operands of type
 * `a` into `acc`, on a target that has it; 0 where the dot stays on
 * mma.sync. A warpgroup (4 warps) computes 64 rows; the warps all go along
 * M (#tile.mma<3, [num_warps, 1], [16, n]>), which is Triton's choice
 * (warpsPerTileV3) wherever M has 16 rows for each warp, and its choice
 * for chained dots always. Where Triton would put warps along N (M below
 * 16 x num_warps), the dot stays on mma.sync. n: the largest multiple of 8
 * (of 16 past 32 for integers, as the ISA lists their N) up to 256 that
 * divides N. f32 operands with tf32x3 stay on mma.sync too. */
static int wgmma_n(Compilation *comp, MlirOperation dot, int64_t M, int64_t N, int64_t K, MlirType a, MlirType acc) {
  if (!comp->target->wgmma || comp->num_warps % 4 || M % (16 * comp->num_warps) || N % 8 || K % 8) return 0;
  if (mlirTypeIsAF32(a)) {
    MlirAttribute p = mlirOperationGetAttributeByName(dot, mlirStringRefCreateFromCString("input_precision"));
    if (mlirAttributeIsNull(p) || !mlirAttributeIsAString(p)) return 0;
    MlirStringRef s = mlirStringAttrGetValue(p);
    if (s.length != 4 || memcmp(s.data, "tf32", 4)) return 0;
  }
  bool integer = mlirTypeIsAInteger(acc);
  for (int n = 256; n >= 8; n -= 8)
    if (N % n == 0 && !(integer && n > 32 && n % 16)) return n;
  return 0;
}

static MlirValue convert_before(Compilation *comp, MlirOperation at, MlirValue v, const Layout *l) {
  MlirType nt = with_layout(comp, mlirValueGetType(v), layout_attr(comp, l));
  return mlirOperationGetResult(create_before(at, "tile.convert_layout", mlirOperationGetLocation(at), 1, &nt, 1, &v, 0, NULL), 0);
}

typedef struct Accel {
  Compilation *comp;
  PtrVec dots;
} Accel;

static void collect(MlirOperation op, void *user) {
  Accel *a = user;
  if (tile_op_of(op) == TOP_dot) vec_push(a->comp->a, &a->dots, op.ptr);
}

/* Another dot that op's values reach, or that reaches them, in op's block
 * (a forward and a backward walk, at most `budget` ops): attention's two
 * dots, P = softmax(QK^T) feeding PV. */
static MlirOperation chained_dot(Arena *a, MlirOperation dot, MlirOperation op, PtrMap *seen, int *budget, bool forward) {
  if (map_get(seen, op.ptr) || --*budget < 0) return (MlirOperation){NULL};
  map_put(a, seen, op.ptr, (void *)op.ptr);
  if (!mlirOperationEqual(op, dot) && tile_op_of(op) == TOP_dot) return op;
  MlirBlock b = mlirOperationGetBlock(dot);
  if (forward) {
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); r++)
      for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(op, r)); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
        MlirOperation o = mlirOpOperandGetOwner(u);
        if (!mlirBlockEqual(mlirOperationGetBlock(o), b)) continue;
        MlirOperation found = chained_dot(a, dot, o, seen, budget, true);
        if (!mlirOperationIsNull(found)) return found;
      }
  } else {
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) {
      MlirOperation d = value_owner(mlirOperationGetOperand(op, i));
      if (mlirOperationIsNull(d) || !mlirBlockEqual(mlirOperationGetBlock(d), b)) continue;
      MlirOperation found = chained_dot(a, dot, d, seen, budget, false);
      if (!mlirOperationIsNull(found)) return found;
    }
  }
  return (MlirOperation){NULL};
}

static void accelerate(Compilation *comp, MlirOperation dot) {
  MlirValue r = mlirOperationGetResult(dot, 0);
  MlirType rt = mlirValueGetType(r);
  int rank = (int)mlirShapedTypeGetRank(rt);
  if (rank != 2 && rank != 3) return;
  MlirValue oa = mlirOperationGetOperand(dot, 0), ob = mlirOperationGetOperand(dot, 1);
  int64_t B = rank == 3 ? mlirShapedTypeGetDimSize(rt, 0) : 1;
  int64_t M = mlirShapedTypeGetDimSize(rt, rank - 2), N = mlirShapedTypeGetDimSize(rt, rank - 1);
  int64_t K = mlirShapedTypeGetDimSize(mlirValueGetType(oa), rank - 1);
  /* a batched dot: the warps over the batch first, as many as divide it,
   * the rest over each product's M and N */
  int wb = 1, wm, wn;
  while (wb * 2 <= comp->num_warps && B % (wb * 2) == 0) wb *= 2;
  if (M % 16 || N % 8 || !mma_warps(M, N, comp->num_warps / wb, &wm, &wn) || M % (16 * wm) || N % (8 * wn)) return;
  if (rank == 2) {
    /* chained dots (one's result feeds the other): the warps of the other
     * where it has them already, else all along the longer side, as
     * Triton's warpsPerTileV2 places them, so that each warp holds whole
     * rows of P and P goes to the next dot in registers */
    int budget = 256, w = comp->num_warps;
    PtrMap seen = {0};
    MlirOperation other = chained_dot(comp->a, dot, dot, &seen, &budget, true);
    if (mlirOperationIsNull(other)) {
      seen = (PtrMap){0};
      budget = 256;
      other = chained_dot(comp->a, dot, dot, &seen, &budget, false);
    }
    Layout ol;
    if (!mlirOperationIsNull(other)) {
      int cm = 0, cn = 0;
      if (layout_of_type(comp, mlirValueGetType(mlirOperationGetResult(other, 0)), &ol) && ol.kind == L_MMA && ol.rank == 2)
        cm = ol.wpc[0], cn = ol.wpc[1];
      else if (M >= N)
        cm = w, cn = 1;
      else
        cm = 1, cn = w;
      if (M % (16 * cm) == 0 && N % (8 * cn) == 0) wm = cm, wn = cn;
    }
  }
  MlirType acc = mlirShapedTypeGetElementType(rt);
  if ((mlirTypeIsAF32(acc) || mlirTypeIsAF16(acc)) && K % 32 == 0) {
    /* fp8 operands as they were loaded where K allows (the widening to f16
     * is left to dce): on sm_89+ into f32 its own instruction, else widened
     * to f16 in registers, after shared memory, which then holds bytes */
    MlirValue fa = fp8_source(oa), fb = fp8_source(ob);
    if (!mlirValueIsNull(fa) && !mlirValueIsNull(fb)) oa = fa, ob = fb;
  }
  MlirType ta = mlirValueGetType(oa), tb = mlirValueGetType(ob);
  int k = mma_k(mlirShapedTypeGetElementType(ta), mlirShapedTypeGetElementType(tb), acc, dot);
  if (!k || K % k) return;
  Layout *mma = arena_alloc(comp->a, sizeof *mma);
  int wg_n = rank == 2 ? wgmma_n(comp, dot, M, N, K, mlirShapedTypeGetElementType(ta), acc) : 0;
  if (wg_n) *mma = (Layout){.kind = L_MMA, .rank = 2, .version = 3, .wpc = {comp->num_warps, 1}, .instr = {16, wg_n}};
  else if (rank == 3) *mma = (Layout){.kind = L_MMA, .rank = 3, .version = 2, .wpc = {wb, wm, wn}, .instr = {1, 16, 8}};
  else *mma = (Layout){.kind = L_MMA, .rank = 2, .version = 2, .wpc = {wm, wn}, .instr = {16, 8}};
  /* the result in the MMA layout, converted back to what its users had */
  Layout old;
  if (!layout_of_type(comp, rt, &old)) return;
  mlirValueSetType(r, with_layout(comp, rt, layout_attr(comp, mma)));
  MlirOperation next = mlirOperationGetNextInBlock(dot);
  MlirValue back = convert_before(comp, next, r, &old);
  MlirOperation back_op = value_owner(back);
  mlirValueReplaceAllUsesExcept(r, back, 1, &back_op);
  /* operands: A and B in its dot-operand layouts (k_width: the elements of
   * one 32-bit register), the accumulator in it */
  for (int i = 0; i < 2; i++) {
    MlirType et = mlirShapedTypeGetElementType(i ? tb : ta);
    int bits = mlirTypeIsAInteger(et) ? (int)mlirIntegerTypeGetWidth(et) : mlirTypeIsAF32(et) ? 32 : is_fp8(et) ? 8 : 16;
    Layout d = {.kind = L_DOT_OP, .rank = rank, .dim = i, .parent = mma, .k_width = 32 / bits};
    mlirOperationSetOperand(dot, i, convert_before(comp, dot, i ? ob : oa, &d));
  }
  mlirOperationSetOperand(dot, 2, convert_before(comp, dot, mlirOperationGetOperand(dot, 2), mma));
}

bool pass_accelerate_matmul(Compilation *comp, MlirOperation module) {
  if (comp->target->sm < 80 || comp->threads_per_warp != 32) return true;
  Accel a = {.comp = comp};
  walk_ops(module, collect, &a, false);
  for (int i = 0; i < a.dots.n; i++) accelerate(comp, (MlirOperation){a.dots.v[i]});
  return true;
}
