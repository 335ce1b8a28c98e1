/*
 * irgen_stmt.c — statements and control flow to tile IR. An assignment
 * rebinds a Var to a new SSA value; `if`, `for` and `while` become scf ops
 * whose results and iteration arguments are the vars sema lists on them,
 * and a `return` at the kernel's top level takes what follows its `if`
 * into the branches that reach it, so an early exit needs no unstructured
 * jump.
 */
#define TILEC_IRGEN_INTERNAL
#include "irgen.h"

#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

static int var_count(Gen *G) { return G->k->nvars; }

static MlirValue *save_vals(Gen *G) {
  MlirValue *s = arena_alloc(G->a, sizeof(MlirValue) * (size_t)(var_count(G) + 1));
  memcpy(s, G->vals, sizeof(MlirValue) * (size_t)var_count(G));
  return s;
}

static void restore_vals(Gen *G, MlirValue *s) { memcpy(G->vals, s, sizeof(MlirValue) * (size_t)var_count(G)); }

/* What follows a statement list in the kernel's body, outside loops: the
 * rest of each enclosing list, innermost first. */
typedef struct Cont {
  TNodeList rest;
  const struct Cont *next;
} Cont;

/* A return in l or in the branches of its ifs (sema allows none in loops). */
static bool has_return(const TNodeList *l) {
  for (int i = 0; i < l->n; i++)
    if (l->v[i]->kind == T_RETURN || (l->v[i]->kind == T_IF && (has_return(&l->v[i]->body) || has_return(&l->v[i]->orelse))))
      return true;
  return false;
}

static void gen_seq(Gen *G, const TNodeList *l, const Cont *cont);

/* Emits an `if`: results are the statement's target vars. When rest is
 * given, it is the code after an `if` whose branch returns: it runs in the
 * other branch, so that the kernel's early exit needs no unstructured jump. */
/* cont: the if holds a return; each branch runs on to the end of the
 * kernel (what follows the if is generated in the branches that reach it),
 * so the if yields nothing. */
static void gen_if(Gen *G, const TNode *s, const Cont *cont) {
  MlirLocation loc = irgen_loc(G, s);
  MlirValue cond = irgen_expr(G, s->c);
  MlirValue *before = save_vals(G);
  int nt = cont ? 0 : s->ntargets;
  MlirType res[64];
  if (nt > 64) irgen_error(G, s, "%s", "an 'if' assigning more than 64 variables is not supported");
  MlirRegion regions[2];
  const TNodeList *bodies[2] = {&s->body, &s->orelse};
  MlirValue *after[2];
  for (int b = 0; b < 2; b++) {
    restore_vals(G, before);
    regions[b] = irgen_new_region(G);
    MlirBlock blk = mlirBlockCreate(0, NULL, NULL);
    mlirRegionAppendOwnedBlock(regions[b], blk);
    MlirBlock saved = G->block;
    G->block = blk;
    if (cont) gen_seq(G, bodies[b], cont);
    else irgen_block(G, bodies[b], false);
    MlirValue y[64];
    for (int i = 0; i < nt; i++) {
      y[i] = G->vals[s->targets[i]->id];
      if (mlirValueIsNull(y[i])) irgen_error(G, s, "internal: '%s' has no value at the end of a branch", s->targets[i]->name);
      res[i] = mlirValueGetType(y[i]);
    }
    irgen_build(G, "scf.yield", loc, 0, NULL, nt, y, NULL, 0, NULL);
    after[b] = save_vals(G);
    G->block = saved;
  }
  MlirOperation op = irgen_build(G, "scf.if", loc, nt, res, 1, &cond, NULL, 2, regions);
  restore_vals(G, before);
  (void)after;
  for (int i = 0; i < nt; i++) G->vals[s->targets[i]->id] = mlirOperationGetResult(op, i);
}

static MlirValue cmp_sgt(Gen *G, MlirLocation loc, MlirValue x, MlirValue y) {
  Attrs as = {0};
  irgen_attr(G, &as, "predicate", irgen_i64_attr(G, 4));
  MlirValue ops[2] = {x, y};
  return irgen_op1(G, "arith.cmpi", loc, mlirIntegerTypeGet(G->ctx, 1), 2, ops, &as);
}

static MlirValue select3(Gen *G, MlirLocation loc, MlirValue c, MlirValue x, MlirValue y) {
  MlirValue ops[3] = {c, x, y};
  return irgen_op1(G, "arith.select", loc, mlirValueGetType(x), 3, ops, NULL);
}

/* Python's len(range(lo, hi, st)): (|hi - lo| - 1) / |st| + 1 when the
 * range is not empty, else 0. The span and |st| are unsigned, so bounds
 * near the type's limits (and st = INT_MIN) do not overflow. down: st is
 * a negative constant; otherwise its sign is tested here, and a zero step
 * gives no iterations (and no division by zero). */
static MlirValue trip_count(Gen *G, MlirLocation loc, MlirValue lo, MlirValue hi, MlirValue st, bool down) {
  MlirType t = mlirValueGetType(lo);
  MlirValue zero = irgen_constant(G, loc, t, 0, 0), one = irgen_constant(G, loc, t, 1, 0);
  MlirValue span = irgen_bin(G, "arith.subi", loc, lo, hi), ok = cmp_sgt(G, loc, lo, hi);
  MlirValue mag = irgen_bin(G, "arith.subi", loc, zero, st);
  if (!down) {
    MlirValue up = cmp_sgt(G, loc, st, zero);
    span = select3(G, loc, up, irgen_bin(G, "arith.subi", loc, hi, lo), span);
    ok = select3(G, loc, up, cmp_sgt(G, loc, hi, lo), irgen_bin(G, "arith.andi", loc, ok, cmp_sgt(G, loc, zero, st)));
    mag = select3(G, loc, ok, select3(G, loc, up, st, mag), one);
  }
  MlirValue q = irgen_bin(G, "arith.addi", loc, irgen_bin(G, "arith.divui", loc, irgen_bin(G, "arith.subi", loc, span, one), mag), one);
  return select3(G, loc, ok, q, zero);
}

/* A step that code generation knows to be positive: a constant, or
 * tl.num_programs (at least 1), the step of grid-stride loops. */
static bool step_positive(const TNode *st_node, MlirValue st) {
  if (st_node->kind == T_CONST) return st_node->cint > 0;
  if (!mlirValueIsAOpResult(st)) return false;
  return mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(mlirOpResultGetOwner(st))),
                            mlirStringRefCreateFromCString("tile.num_programs"));
}

static void gen_for(Gen *G, const TNode *s) {
  MlirLocation loc = irgen_loc(G, s);
  MlirValue lb = irgen_expr(G, s->a), ub = irgen_expr(G, s->b), st = irgen_expr(G, s->c);
  /* scf.for counts up by a positive step. Any other step (a negative
   * constant, or a runtime one of either sign: Triton 3.9 takes it to be
   * positive, and a negative one silently runs the wrong iterations there) counts
   * the iterations k from 0, Python's len(range), and the induction variable
   * is lo + k * step. */
  bool counted = !step_positive(s->c, st);
  MlirValue lo = lb, step = st;
  if (counted) {
    ub = trip_count(G, loc, lb, ub, st, s->c->kind == T_CONST);
    lb = irgen_constant(G, loc, mlirValueGetType(lb), 0, 0);
    st = irgen_constant(G, loc, mlirValueGetType(lb), 1, 0);
  }
  int nt = s->ntargets;
  if (nt > 60) irgen_error(G, s, "%s", "a loop carrying more than 60 variables is not supported");
  MlirValue ops[64];
  MlirType types[64];
  MlirLocation locs[64];
  ops[0] = lb;
  ops[1] = ub;
  ops[2] = st;
  types[0] = mlirValueGetType(lb);
  locs[0] = loc;
  for (int i = 0; i < nt; i++) {
    ops[3 + i] = G->vals[s->targets[i]->id];
    if (mlirValueIsNull(ops[3 + i])) irgen_error(G, s, "internal: loop-carried '%s' has no value", s->targets[i]->name);
    types[1 + i] = mlirValueGetType(ops[3 + i]);
    locs[1 + i] = loc;
  }
  MlirRegion region = irgen_new_region(G);
  MlirBlock blk = mlirBlockCreate(1 + nt, types, locs);
  mlirRegionAppendOwnedBlock(region, blk);
  MlirValue *before = save_vals(G);
  G->vals[s->var->id] = mlirBlockGetArgument(blk, 0);
  for (int i = 0; i < nt; i++) G->vals[s->targets[i]->id] = mlirBlockGetArgument(blk, 1 + i);
  MlirBlock saved = G->block;
  G->block = blk;
  if (counted) G->vals[s->var->id] = irgen_bin(G, "arith.addi", loc, lo, irgen_bin(G, "arith.muli", loc, mlirBlockGetArgument(blk, 0), step));
  irgen_block(G, &s->body, false);
  MlirValue y[64];
  for (int i = 0; i < nt; i++) y[i] = G->vals[s->targets[i]->id];
  irgen_build(G, "scf.yield", loc, 0, NULL, nt, y, NULL, 0, NULL);
  G->block = saved;
  restore_vals(G, before);
  Attrs as = {0};
  if (s->num_stages) irgen_attr(G, &as, "tile.num_stages", irgen_i32_attr(G, s->num_stages));
  /* tl.range's loop_unroll_factor and disable_licm, read by passes/licm.c and the GPU lowering */
  if (s->loop_unroll_factor > 1) irgen_attr(G, &as, "tile.loop_unroll_factor", irgen_i32_attr(G, s->loop_unroll_factor));
  if (s->disable_licm) irgen_attr(G, &as, "tile.disable_licm", mlirUnitAttrGet(G->ctx));
  MlirOperation op = irgen_build(G, "scf.for", loc, nt, types + 1, 3 + nt, ops, &as, 1, &region);
  for (int i = 0; i < nt; i++) G->vals[s->targets[i]->id] = mlirOperationGetResult(op, i);
}

static void gen_while(Gen *G, const TNode *s) {
  MlirLocation loc = irgen_loc(G, s);
  int nt = s->ntargets;
  if (nt > 64) irgen_error(G, s, "%s", "a loop carrying more than 64 variables is not supported");
  MlirValue init[64];
  MlirType types[64];
  MlirLocation locs[64];
  for (int i = 0; i < nt; i++) {
    init[i] = G->vals[s->targets[i]->id];
    if (mlirValueIsNull(init[i])) irgen_error(G, s, "internal: loop-carried '%s' has no value", s->targets[i]->name);
    types[i] = mlirValueGetType(init[i]);
    locs[i] = loc;
  }
  MlirValue *before = save_vals(G);
  MlirRegion regions[2];
  MlirBlock saved = G->block;
  for (int r = 0; r < 2; r++) {
    regions[r] = irgen_new_region(G);
    MlirBlock blk = mlirBlockCreate(nt, types, locs);
    mlirRegionAppendOwnedBlock(regions[r], blk);
    restore_vals(G, before);
    for (int i = 0; i < nt; i++) G->vals[s->targets[i]->id] = mlirBlockGetArgument(blk, i);
    G->block = blk;
    MlirValue y[65];
    if (r == 0) {
      irgen_block(G, &s->before, false);
      y[0] = irgen_expr(G, s->c);
      for (int i = 0; i < nt; i++) y[1 + i] = G->vals[s->targets[i]->id];
      irgen_build(G, "scf.condition", loc, 0, NULL, 1 + nt, y, NULL, 0, NULL);
    } else {
      irgen_block(G, &s->body, false);
      for (int i = 0; i < nt; i++) y[i] = G->vals[s->targets[i]->id];
      irgen_build(G, "scf.yield", loc, 0, NULL, nt, y, NULL, 0, NULL);
    }
  }
  G->block = saved;
  restore_vals(G, before);
  MlirOperation op = irgen_build(G, "scf.while", loc, nt, types, nt, init, NULL, 2, regions);
  for (int i = 0; i < nt; i++) G->vals[s->targets[i]->id] = mlirOperationGetResult(op, i);
}

static void gen_stmt(Gen *G, const TNode *s) {
  switch (s->kind) {
  case T_ASSIGN: {
    if (s->ntargets) {
      MlirValue res[8];
      int n = irgen_call(G, s->a, res);
      if (n != s->ntargets) irgen_error(G, s, "%s", "internal: result count mismatch");
      for (int i = 0; i < n; i++) G->vals[s->targets[i]->id] = res[i];
      return;
    }
    G->vals[s->var->id] = irgen_expr(G, s->a);
    return;
  }
  case T_EXPR: irgen_expr(G, s->a); return;
  case T_IF: gen_if(G, s, NULL); return;
  case T_FOR: gen_for(G, s); return;
  case T_WHILE: gen_while(G, s); return;
  case T_RETURN: irgen_error(G, s, "%s", "internal: a 'return' inside a loop");
  default: irgen_error(G, s, "%s", "this statement has no lowering");
  }
}

/* The kernel's body outside loops: a return ends it, and an if holding a
 * return takes what follows it into its branches (Triton's early return at
 * the top level: any depth of runtime ifs, no loops). */
static void gen_seq(Gen *G, const TNodeList *l, const Cont *cont) {
  for (int i = 0; i < l->n; i++) {
    const TNode *s = l->v[i];
    if (s->kind == T_RETURN) return; /* the end of the kernel */
    if (s->kind == T_IF && (has_return(&s->body) || has_return(&s->orelse))) {
      Cont c = {{l->v + i + 1, l->n - i - 1}, cont};
      gen_if(G, s, &c);
      return;
    }
    gen_stmt(G, s);
  }
  if (cont) gen_seq(G, &cont->rest, cont->next);
}

/* top: the kernel's own body. */
void irgen_block(Gen *G, const TNodeList *l, bool top) {
  if (top) {
    gen_seq(G, l, NULL);
    return;
  }
  for (int i = 0; i < l->n; i++) gen_stmt(G, l->v[i]);
}
