/*
 * axis_info.c — what is known about the values of integer and pointer tiles,
 * per dimension: contiguity (runs of consecutive values), divisibility (the
 * first value of a run is a multiple of it; bytes for pointers), constancy
 * (runs of equal values). From make_range, constants, splats, arithmetic,
 * the tl.multiple_of / max_contiguous / max_constancy hints, and the
 * signature's :16 hints on parameters. Coalescing reads it: it is what allows
 * 128-bit accesses.
 *
 * Requires: nothing. The `axis-info` pass (passes/axis_info.c) only
 * annotates ops with the result, for tests.
 *
 * Through control flow it is a fixed point, as Triton's analysis is: a
 * value a loop carries holds its initial value or what the body yields,
 * so its facts are the join (per dimension, the gcd of each) of both,
 * and the body is analyzed again until they stop changing. So a pointer
 * advanced by `ptrs += BLOCK_K * stride` keeps its contiguity and the
 * divisibility the step preserves, and a K loop's loads stay vectors.
 */
#include "axis_info.h"
#include "layout.h"

#include <stdlib.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#define MAX_DIV ((int64_t)1 << 30)

struct AxisAnalysis {
  Compilation *comp;
  /* value -> its info; a value analyzed again (a loop's body, until its
   * fixed point) has its info replaced */
  PtrMap infos;
};

const AxisInfo *axis_info_of(AxisAnalysis *aa, MlirValue v) { return map_get(&aa->infos, v.ptr); }

static void set_info(AxisAnalysis *aa, MlirValue v, const AxisInfo *ai) {
  AxisInfo *slot = map_get(&aa->infos, v.ptr);
  if (!slot) {
    slot = arena_alloc(aa->comp->a, sizeof *slot);
    map_put(aa->comp->a, &aa->infos, v.ptr, slot);
  }
  *slot = *ai;
}

static int64_t gcd(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

static int64_t pow2_divisor(int64_t x) {
  if (x == 0) return MAX_DIV;
  int64_t p = x & -x;
  return p > MAX_DIV ? MAX_DIV : p;
}

static int rank_of(MlirType t) { return mlirTypeIsARankedTensor(t) ? (int)mlirShapedTypeGetRank(t) : 0; }
static int64_t dim(MlirType t, int d) { return mlirShapedTypeGetDimSize(t, d); }

/* The unknown: nothing is contiguous or constant beyond 1 element. */
static AxisInfo unknown(MlirType t) {
  AxisInfo ai = {.rank = rank_of(t)};
  for (int d = 0; d < ai.rank; d++) ai.contiguity[d] = ai.divisibility[d] = ai.constancy[d] = 1;
  if (ai.rank == 0) ai.contiguity[0] = ai.divisibility[0] = ai.constancy[0] = 1;
  return ai;
}

static AxisInfo get(AxisAnalysis *aa, MlirValue v) {
  const AxisInfo *ai = axis_info_of(aa, v);
  return ai ? *ai : unknown(mlirValueGetType(v));
}

static void visit(MlirOperation op, void *user) {
  AxisAnalysis *aa = user;
  intptr_t nres = mlirOperationGetNumResults(op);
  /* block arguments of loops and functions first */
  if (op_is(op, "func.func")) {
    MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
    MlirAttribute args = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("arg_attrs"));
    for (intptr_t i = 0; i < mlirBlockGetNumArguments(b); i++) {
      MlirValue a = mlirBlockGetArgument(b, i);
      AxisInfo ai = unknown(mlirValueGetType(a));
      if (!mlirAttributeIsNull(args) && i < mlirArrayAttrGetNumElements(args)) {
        MlirAttribute d = mlirDictionaryAttrGetElementByName(mlirArrayAttrGetElement(args, i),
                                                              mlirStringRefCreateFromCString("tile.divisibility"));
        if (!mlirAttributeIsNull(d)) ai.divisibility[0] = mlirIntegerAttrGetValueInt(d);
      }
      set_info(aa, a, &ai);
    }
    return;
  }
  if (nres != 1) return;
  MlirValue r = mlirOperationGetResult(op, 0);
  MlirType rt = mlirValueGetType(r);
  AxisInfo out = unknown(rt);
  int rank = out.rank, n = rank ? rank : 1;
  TileOp t = tile_op_of(op);
  MlirValue a0 = mlirOperationGetNumOperands(op) > 0 ? mlirOperationGetOperand(op, 0) : (MlirValue){NULL};
  MlirValue a1 = mlirOperationGetNumOperands(op) > 1 ? mlirOperationGetOperand(op, 1) : (MlirValue){NULL};
  int64_t c;
  if (op_is(op, "arith.constant")) {
    if (!splat_int_constant(r, &c)) return;
    for (int d = 0; d < n; d++) {
      out.divisibility[d] = pow2_divisor(c);
      out.constancy[d] = rank ? dim(rt, d) : 1;
    }
  } else if (t == TOP_make_range) {
    int64_t start = op_int_attr(op, "start", 0), end = op_int_attr(op, "end", 1);
    out.contiguity[0] = end - start;
    out.divisibility[0] = pow2_divisor(start);
  } else if (t == TOP_splat) {
    AxisInfo s = get(aa, a0);
    for (int d = 0; d < n; d++) {
      out.divisibility[d] = s.divisibility[0];
      out.constancy[d] = dim(rt, d);
    }
  } else if (t == TOP_broadcast) {
    AxisInfo s = get(aa, a0);
    MlirType st = mlirValueGetType(a0);
    for (int d = 0; d < rank; d++) {
      bool grown = dim(st, d) == 1 && dim(rt, d) > 1;
      out.contiguity[d] = grown ? 1 : s.contiguity[d];
      out.divisibility[d] = s.divisibility[d];
      out.constancy[d] = grown ? dim(rt, d) : s.constancy[d];
    }
  } else if (t == TOP_expand_dims) {
    AxisInfo s = get(aa, a0);
    int axis = (int)op_int_attr(op, "axis", 0);
    /* along the new dimension every element is a run of its own: what
     * divides all of them (a contiguous dimension holds odd values) */
    int64_t div = MAX_DIV;
    for (int d = 0; d < s.rank; d++) {
      int64_t e = s.contiguity[d] > 1 ? 1 : s.divisibility[d];
      div = div < e ? div : e;
    }
    if (s.rank == 0) div = s.divisibility[0];
    for (int d = 0, k = 0; d < rank; d++) {
      if (d == axis) {
        out.contiguity[d] = out.constancy[d] = 1;
        out.divisibility[d] = div;
      } else {
        out.contiguity[d] = s.contiguity[k];
        out.divisibility[d] = s.divisibility[k];
        out.constancy[d] = s.constancy[k];
        k++;
      }
    }
  } else if (op_is(op, "arith.addi") || op_is(op, "arith.subi") || t == TOP_addptr) {
    AxisInfo x = get(aa, a0), y = get(aa, a1);
    int64_t scale = t == TOP_addptr ? pointee_bytes(aa->comp, rt) : 1;
    bool sub = op_is(op, "arith.subi");
    for (int d = 0; d < n; d++) {
      int64_t cx = gcd(x.contiguity[d], y.constancy[d]), cy = sub ? 1 : gcd(y.contiguity[d], x.constancy[d]);
      out.contiguity[d] = cx > cy ? cx : cy;
      out.divisibility[d] = gcd(x.divisibility[d], y.divisibility[d] * scale);
      out.constancy[d] = gcd(x.constancy[d], y.constancy[d]);
    }
  } else if (op_is(op, "arith.muli")) {
    AxisInfo x = get(aa, a0), y = get(aa, a1);
    int64_t cx = 0, cy = 0;
    bool one_x = splat_int_constant(a0, &cx) && cx == 1, one_y = splat_int_constant(a1, &cy) && cy == 1;
    for (int d = 0; d < n; d++) {
      out.contiguity[d] = one_y ? x.contiguity[d] : one_x ? y.contiguity[d] : 1;
      /* a run [2^k, 2^k + 1, ...] scaled is no longer a run: only what
       * divides every element counts, which is 1 */
      int64_t dx = x.contiguity[d] > 1 && !one_y ? 1 : x.divisibility[d];
      int64_t dy = y.contiguity[d] > 1 && !one_x ? 1 : y.divisibility[d];
      int64_t dv = dx * dy;
      out.divisibility[d] = dv > MAX_DIV || dv <= 0 ? MAX_DIV : dv;
      out.constancy[d] = gcd(x.constancy[d], y.constancy[d]);
    }
  } else if (op_is(op, "arith.divsi") || op_is(op, "arith.divui") || op_is(op, "arith.remsi") || op_is(op, "arith.remui")) {
    AxisInfo x = get(aa, a0), y = get(aa, a1);
    bool rem = op_is(op, "arith.remsi") || op_is(op, "arith.remui");
    bool cst = splat_int_constant(a1, &c) && c > 0;
    for (int d = 0; d < n; d++) {
      out.constancy[d] = gcd(x.constancy[d], y.constancy[d]);
      if (rem && (cst || y.constancy[d] > 1)) {
        /* x % y, y the same over a run: a run of x that starts at a
         * multiple of g, with y a multiple of g too, never wraps inside g
         * elements (t03's (pid*BLOCK + arange) % N, N a multiple of 16,
         * keeps runs of 16). Only what divides both stays a divisor. */
        int64_t ydiv = cst ? pow2_divisor(c) : y.divisibility[d];
        int64_t g = gcd(x.contiguity[d], gcd(x.divisibility[d], ydiv));
        if (!cst) g = gcd(g, y.constancy[d]);
        out.contiguity[d] = g;
        out.divisibility[d] = gcd(x.divisibility[d], ydiv);
      } else if (!rem && cst && x.divisibility[d] % c == 0) {
        out.divisibility[d] = x.divisibility[d] / c;
      }
    }
  } else if (op_is(op, "arith.extsi") || op_is(op, "arith.extui") || op_is(op, "arith.trunci") ||
             op_is(op, "arith.index_cast") || t == TOP_convert_layout) {
    out = get(aa, a0);
  } else if (op_is(op, "arith.cmpi") || op_is(op, "arith.andi") || op_is(op, "arith.ori") || op_is(op, "arith.select")) {
    int base = op_is(op, "arith.select") ? 1 : 0;
    AxisInfo x = get(aa, mlirOperationGetOperand(op, base)), y = get(aa, mlirOperationGetOperand(op, base + 1));
    int64_t pred = op_int_attr(op, "predicate", 0);
    bool ordered = op_is(op, "arith.cmpi") && pred >= 2; /* slt, sle, sgt, sge, ult, ... */
    /* a select's value is constant only where its condition is too (a
     * scalar condition is the same for every element) */
    bool cond = base && mlirTypeIsARankedTensor(mlirValueGetType(a0));
    AxisInfo w = cond ? get(aa, a0) : x;
    for (int d = 0; d < n; d++) {
      out.constancy[d] = gcd(gcd(x.constancy[d], y.constancy[d]), w.constancy[d]);
      /* a run [a, a+1, ..] against a constant c: when both are multiples of
       * g, no run of g straddles c, so the result is constant over it */
      if (ordered && x.contiguity[d] > 1 && y.constancy[d] > 1) {
        int64_t g = gcd(x.contiguity[d], gcd(x.divisibility[d], y.divisibility[d]));
        if (g > out.constancy[d]) out.constancy[d] = g;
      }
      if (ordered && y.contiguity[d] > 1 && x.constancy[d] > 1) {
        int64_t g = gcd(y.contiguity[d], gcd(y.divisibility[d], x.divisibility[d]));
        if (g > out.constancy[d]) out.constancy[d] = g;
      }
    }
  } else if (t == TOP_multiple_of || t == TOP_max_contiguous || t == TOP_max_constancy) {
    out = get(aa, a0);
    MlirAttribute vals = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("values"));
    for (int d = 0; d < n && d < mlirDenseArrayGetNumElements(vals); d++) {
      int64_t v = mlirDenseI32ArrayGetElement(vals, d);
      if (t == TOP_multiple_of) out.divisibility[d] = v;
      if (t == TOP_max_contiguous) out.contiguity[d] = v;
      if (t == TOP_max_constancy) out.constancy[d] = v;
    }
  } else {
    return;
  }
  set_info(aa, r, &out);
}

/* ---- control flow: loops to a fixed point --------------------------------------------------- */

/* What holds of both a and b, values of type t: per dimension, the runs
 * and divisors they share. Where a side's runs shrink, their new first
 * elements lie inside its old runs, so its divisor can only be trusted as
 * far as it divides the new run's length (in bytes, for pointers). */
static AxisInfo join(AxisAnalysis *aa, MlirType t, AxisInfo a, const AxisInfo *b) {
  int64_t unit = pointee_bytes(aa->comp, t); /* 1 for integers */
  for (int d = 0; d < (a.rank ? a.rank : 1); d++) {
    int64_t c = gcd(a.contiguity[d], b->contiguity[d]);
    int64_t da = c < a.contiguity[d] ? gcd(a.divisibility[d], c * unit) : a.divisibility[d];
    int64_t db = c < b->contiguity[d] ? gcd(b->divisibility[d], c * unit) : b->divisibility[d];
    a.contiguity[d] = c;
    a.divisibility[d] = gcd(da, db);
    a.constancy[d] = gcd(a.constancy[d], b->constancy[d]);
  }
  return a;
}

static bool same(const AxisInfo *a, const AxisInfo *b) {
  for (int d = 0; d < (a->rank ? a->rank : 1); d++)
    if (a->contiguity[d] != b->contiguity[d] || a->divisibility[d] != b->divisibility[d] || a->constancy[d] != b->constancy[d])
      return false;
  return true;
}

static MlirBlock first_block(MlirOperation op, int r) { return mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); }

static MlirOperation terminator(MlirBlock b) { return mlirBlockGetTerminator(b); }

static void analyze_block(AxisAnalysis *aa, MlirBlock b);

/* Sets the block's arguments from `ins` (count n, from first on), joined
 * with what they held when `join_old`; whether any changed. */
static bool set_args(AxisAnalysis *aa, MlirBlock b, int first, const AxisInfo *ins, int n, bool join_old) {
  bool changed = false;
  for (int i = 0; i < n; i++) {
    MlirValue a = mlirBlockGetArgument(b, first + i);
    const AxisInfo *old = axis_info_of(aa, a);
    AxisInfo v = join_old && old ? join(aa, mlirValueGetType(a), *old, &ins[i]) : ins[i];
    if (!old || !same(old, &v)) changed = true;
    set_info(aa, a, &v);
  }
  return changed;
}

/* The infos of op's operands from `first`, `n` of them, into out. */
static void operand_infos(AxisAnalysis *aa, MlirOperation op, int first, int n, AxisInfo *out) {
  for (int i = 0; i < n; i++) out[i] = get(aa, mlirOperationGetOperand(op, first + i));
}

/* Rounds of a loop body before its arguments are taken as unknown: each
 * round only lowers a value's facts (gcds), so it ends, and in practice
 * within two or three. */
#define MAX_ROUNDS 16

/* scf.for: the induction variable is lb + k * step; each iter_arg holds
 * its initial value or what the body yields, so its facts are the join of
 * both, found by analyzing the body until they do not change. */
static void analyze_for(AxisAnalysis *aa, MlirOperation op) {
  MlirBlock body = first_block(op, 0);
  AxisInfo lb = get(aa, mlirOperationGetOperand(op, 0)), st = get(aa, mlirOperationGetOperand(op, 2));
  AxisInfo iv = unknown(mlirValueGetType(mlirBlockGetArgument(body, 0)));
  iv.divisibility[0] = gcd(lb.divisibility[0], st.divisibility[0]);
  set_info(aa, mlirBlockGetArgument(body, 0), &iv);
  int n = (int)mlirOperationGetNumOperands(op) - 3;
  AxisInfo *carried = arena_alloc(aa->comp->a, sizeof(AxisInfo) * (size_t)(n > 0 ? n : 1));
  operand_infos(aa, op, 3, n, carried);
  set_args(aa, body, 1, carried, n, false);
  for (int round = 0;; round++) {
    analyze_block(aa, body);
    operand_infos(aa, terminator(body), 0, n, carried);
    if (!set_args(aa, body, 1, carried, n, true)) break;
    if (round == MAX_ROUNDS) {
      for (int i = 0; i < n; i++) carried[i] = unknown(mlirValueGetType(mlirBlockGetArgument(body, 1 + i)));
      set_args(aa, body, 1, carried, n, false);
      analyze_block(aa, body);
      break;
    }
  }
  /* the results: the arguments' facts, which cover the initial values and
   * every yield */
  for (int i = 0; i < n; i++) set_info(aa, mlirOperationGetResult(op, i), axis_info_of(aa, mlirBlockGetArgument(body, 1 + i)));
}

/* scf.while: the before region's arguments hold the initial values or what
 * the after region yields; the after region's and the results, what the
 * condition forwards. */
static void analyze_while(AxisAnalysis *aa, MlirOperation op) {
  MlirBlock before = first_block(op, 0), after = first_block(op, 1);
  int n = (int)mlirOperationGetNumOperands(op), m = (int)mlirOperationGetNumResults(op);
  AxisInfo *carried = arena_alloc(aa->comp->a, sizeof(AxisInfo) * (size_t)(n > 0 ? n : 1));
  AxisInfo *fwd = arena_alloc(aa->comp->a, sizeof(AxisInfo) * (size_t)(m > 0 ? m : 1));
  operand_infos(aa, op, 0, n, carried);
  set_args(aa, before, 0, carried, n, false);
  for (int round = 0;; round++) {
    analyze_block(aa, before);
    operand_infos(aa, terminator(before), 1, m, fwd); /* scf.condition(cond, forwarded...) */
    set_args(aa, after, 0, fwd, m, false);
    analyze_block(aa, after);
    operand_infos(aa, terminator(after), 0, n, carried);
    if (!set_args(aa, before, 0, carried, n, true)) break;
    if (round == MAX_ROUNDS) {
      for (int i = 0; i < n; i++) carried[i] = unknown(mlirValueGetType(mlirBlockGetArgument(before, i)));
      set_args(aa, before, 0, carried, n, false);
      analyze_block(aa, before);
      operand_infos(aa, terminator(before), 1, m, fwd);
      set_args(aa, after, 0, fwd, m, false);
      analyze_block(aa, after);
      break;
    }
  }
  for (int i = 0; i < m; i++) set_info(aa, mlirOperationGetResult(op, i), &fwd[i]);
}

/* scf.if: each result holds what one branch or the other yields. */
static void analyze_if(AxisAnalysis *aa, MlirOperation op) {
  MlirBlock then = first_block(op, 0), els = first_block(op, 1);
  analyze_block(aa, then);
  if (!mlirBlockIsNull(els)) analyze_block(aa, els);
  int m = (int)mlirOperationGetNumResults(op);
  for (int i = 0; i < m && !mlirBlockIsNull(els); i++) {
    AxisInfo a = get(aa, mlirOperationGetOperand(terminator(then), i)), b = get(aa, mlirOperationGetOperand(terminator(els), i));
    AxisInfo r = join(aa, mlirValueGetType(mlirOperationGetResult(op, i)), a, &b);
    set_info(aa, mlirOperationGetResult(op, i), &r);
  }
}

static void analyze_op(AxisAnalysis *aa, MlirOperation op) {
  if (op_is(op, "scf.for")) {
    analyze_for(aa, op);
    return;
  }
  if (op_is(op, "scf.while")) {
    analyze_while(aa, op);
    return;
  }
  if (op_is(op, "scf.if")) {
    analyze_if(aa, op);
    return;
  }
  visit(op, aa);
  /* functions, and regions whose values nothing outside reads (a
   * reduction's combiner): in order */
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = first_block(op, (int)r); !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b)) analyze_block(aa, b);
}

static void analyze_block(AxisAnalysis *aa, MlirBlock b) {
  for (MlirOperation op = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    analyze_op(aa, op);
}

AxisAnalysis *axis_analyze(Compilation *comp, MlirOperation module) {
  AxisAnalysis *aa = arena_alloc(comp->a, sizeof *aa);
  memset(aa, 0, sizeof *aa);
  aa->comp = comp;
  analyze_op(aa, module);
  return aa;
}
