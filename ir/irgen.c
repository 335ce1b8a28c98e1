/*
 * irgen.c — the typed AST to tile IR.
 *
 * Sema has made every conversion explicit and named every builtin, so this
 * is a direct translation: one MLIR op (or a short fixed sequence) per typed
 * node. Python variables become SSA values through a table indexed by Var id;
 * the vars sema lists on an `if` or a loop become the scf op's results and
 * iteration arguments. Builtin reductions and scans become tile.reduce and
 * tile.scan with a combiner region built here, so that later stages see one
 * form for both `tl.sum` and a user's combine function.
 *
 * Every op carries its source location; code inlined from a @jit helper
 * carries a call-site location whose caller is the call.
 *
 * This file holds the generator's state and what every piece builds with
 * (errors, locations, attributes, types, ops), and irgen_kernel. The
 * pieces: expressions in irgen_expr.c, calls of builtins with reductions
 * and scans in irgen_call.c, statements and control flow in irgen_stmt.c.
 */
#define TILEC_IRGEN_INTERNAL
#include "irgen.h"

#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

MlirRegion irgen_new_region(Gen *G) {
  if (G->npending == G->cap_pending) {
    int cap = G->cap_pending ? 2 * G->cap_pending : 64;
    MlirRegion *p = arena_alloc(G->a, sizeof *p * (size_t)cap);
    if (G->npending) memcpy(p, G->pending, sizeof *p * (size_t)G->npending);
    G->pending = p;
    G->cap_pending = cap;
  }
  MlirRegion r = mlirRegionCreate();
  G->pending[G->npending++] = r;
  return r;
}

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

_Noreturn void irgen_error(Gen *G, const TNode *at, const char *fmt, const char *arg) {
  G->d->site = at ? at->site : NULL;
  diag_error(G->d, at ? at->loc : (Loc){0}, fmt, arg);
}

/* ---- locations ---------------------------------------------------------------- */

static MlirLocation file_loc(Gen *G, Loc l) {
  if (!l.src) return mlirLocationUnknownGet(G->ctx);
  return mlirLocationFileLineColGet(G->ctx, str(l.src->name), (unsigned)l.line, (unsigned)l.col);
}

static MlirLocation site_loc(Gen *G, const InlineSite *s) {
  MlirLocation call = file_loc(G, s->call);
  return s->parent ? mlirLocationCallSiteGet(call, site_loc(G, s->parent)) : call;
}

MlirLocation irgen_loc(Gen *G, const TNode *t) {
  MlirLocation l = file_loc(G, t->loc);
  return t->site ? mlirLocationCallSiteGet(l, site_loc(G, t->site)) : l;
}

/* ---- building ops --------------------------------------------------------------- */

void irgen_attr(Gen *G, Attrs *as, const char *name, MlirAttribute a) {
  if (as->n == 12) internal_error(__FILE__, __LINE__, "too many attributes");
  as->v[as->n++] = mlirNamedAttributeGet(mlirIdentifierGet(G->ctx, str(name)), a);
}

MlirAttribute irgen_i32_attr(Gen *G, int64_t v) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(G->ctx, 32), v);
}
MlirAttribute irgen_i64_attr(Gen *G, int64_t v) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(G->ctx, 64), v);
}
MlirAttribute irgen_str_attr(Gen *G, const char *s) { return mlirStringAttrGet(G->ctx, str(s)); }

/* Ops whose operands (results) are a list of optional slots: see tile.irdl. */
static const struct {
  const char *name;
  int operand_slots, result_slots;
} slotted[] = {
    {"tile.reduce", 8, 8}, {"tile.scan", 8, 8}, {"tile.print", 16, 0}, {"tile.extern_elementwise", 3, 0},
    {"tile.elementwise_inline_asm", 16, 8},
};

static void slot_sizes(Gen *G, Attrs *as, const char *key, int slots, int used) {
  int32_t seg[16];
  for (int i = 0; i < slots; i++) seg[i] = i < used;
  irgen_attr(G, as, key, mlirDenseI32ArrayGet(G->ctx, slots, seg));
}

MlirOperation irgen_build(Gen *G, const char *name, MlirLocation loc, int nres, const MlirType *res,
                          int nops, const MlirValue *ops, Attrs *as, int nregions, MlirRegion *regions) {
  Attrs local = {0};
  for (size_t i = 0; i < sizeof slotted / sizeof *slotted; i++) {
    if (strcmp(slotted[i].name, name)) continue;
    if (!as) as = &local;
    if (nops > slotted[i].operand_slots || nres > (slotted[i].result_slots ? slotted[i].result_slots : 1))
      internal_error(__FILE__, __LINE__, "too many operands for a slotted op");
    slot_sizes(G, as, "operandSegmentSizes", slotted[i].operand_slots, nops);
    if (slotted[i].result_slots) slot_sizes(G, as, "resultSegmentSizes", slotted[i].result_slots, nres);
  }
  MlirOperationState st = mlirOperationStateGet(str(name), loc);
  if (nres) mlirOperationStateAddResults(&st, nres, res);
  if (nops) mlirOperationStateAddOperands(&st, nops, ops);
  if (as && as->n) mlirOperationStateAddAttributes(&st, as->n, as->v);
  if (nregions) mlirOperationStateAddOwnedRegions(&st, nregions, regions);
  MlirOperation op = mlirOperationCreate(&st);
  if (mlirOperationIsNull(op)) internal_error(__FILE__, __LINE__, name);
  /* the op owns its regions now: they are the last ones begun */
  for (int i = 0; i < nregions; i++)
    for (int k = G->npending - 1; k >= 0; k--)
      if (G->pending[k].ptr == regions[i].ptr) {
        G->pending[k] = G->pending[--G->npending];
        break;
      }
  mlirBlockAppendOwnedOperation(G->block, op);
  return op;
}

/* One result, operands, optional attributes. */
MlirValue irgen_op1(Gen *G, const char *name, MlirLocation loc, MlirType ty, int nops, const MlirValue *ops, Attrs *as) {
  return mlirOperationGetResult(irgen_build(G, name, loc, 1, &ty, nops, ops, as, 0, NULL), 0);
}

MlirValue irgen_un(Gen *G, const char *name, MlirLocation loc, MlirType ty, MlirValue x) {
  return irgen_op1(G, name, loc, ty, 1, &x, NULL);
}
MlirValue irgen_bin(Gen *G, const char *name, MlirLocation loc, MlirValue x, MlirValue y) {
  MlirValue ops[2] = {x, y};
  return irgen_op1(G, name, loc, mlirValueGetType(x), 2, ops, NULL);
}

/* The MLIR type of a frontend type: tensor<...>, !tile.ptr<...>. */
static void type_text(StrBuf *sb, const Type *t) {
  switch (t->kind) {
  case TY_SCALAR: sb_printf(sb, "%s", ir_scalar_name(t->dtype)); return;
  case TY_PTR:
    sb_printf(sb, "!tile.ptr<");
    type_text(sb, t->elem);
    sb_putc(sb, '>');
    return;
  case TY_DESC:
    /* a tensor descriptor is, for now, a block pointer at its origin (TMA comes with sm_90's) */
    sb_printf(sb, "!tile.ptr<");
    type_text(sb, t->elem);
    sb_putc(sb, '>');
    return;
  case TY_BLOCK:
    sb_printf(sb, "tensor<");
    for (int i = 0; i < t->rank; i++) sb_printf(sb, "%lldx", (long long)t->shape[i]);
    type_text(sb, t->elem);
    sb_putc(sb, '>');
    return;
  case TY_VOID: sb_printf(sb, "none"); return;
  }
}

static MlirType ir_type(IrContext *ic, const Type *t) {
  if (t->kind == TY_SCALAR) return ir_scalar_type(ic, t->dtype);
  StrBuf sb = {0};
  type_text(&sb, t);
  MlirType r = ir_parse_type(ic, sb.s);
  sb_free(&sb);
  return r;
}

MlirType irgen_type(Gen *G, const Type *t) { return ir_type(G->ic, t); }

/* A scalar or splat constant of type ty (ints for integer types, else floats). */
MlirValue irgen_constant(Gen *G, MlirLocation loc, MlirType ty, int64_t i, double f) {
  MlirType el = mlirTypeIsARankedTensor(ty) ? mlirShapedTypeGetElementType(ty) : ty;
  MlirAttribute a = mlirTypeIsAInteger(el) ? mlirIntegerAttrGet(el, i) : mlirFloatAttrDoubleGet(G->ctx, el, f);
  if (mlirTypeIsARankedTensor(ty)) a = mlirDenseElementsAttrSplatGet(ty, a);
  Attrs as = {0};
  irgen_attr(G, &as, "value", a);
  return irgen_op1(G, "arith.constant", loc, ty, 0, NULL, &as);
}

DType irgen_dt_of(const Type *t) { return ty_elem(t)->dtype; }
bool irgen_is_unsigned(const Type *t) {
  const Type *e = ty_elem(t);
  return e->kind == TY_SCALAR && dtype_is_int(e->dtype) && !dtype_is_signed(e->dtype) && e->dtype != DT_I1;
}
MlirAttribute irgen_i32_list(Gen *G, const IntList *l) { return mlirDenseI32ArrayGet(G->ctx, l->n, l->v); }

MlirModule irgen_kernel(IrContext *ic, Arena *a, Diags *d, const Kernel *k) {
  Gen g = {.ic = ic, .ctx = ir_mlir(ic), .a = a, .d = d, .k = k};
  Gen *G = &g;
  MlirLocation kloc = file_loc(G, k->loc);
  MlirModule m = mlirModuleCreateEmpty(kloc);
  jmp_buf jb, *saved = d->unwind;
  d->unwind = &jb;
  if (setjmp(jb)) {
    d->unwind = saved;
    d->site = NULL;
    for (int i = g.npending - 1; i >= 0; i--) mlirRegionDestroy(g.pending[i]);
    mlirModuleDestroy(m);
    return (MlirModule){NULL};
  }
  g.vals = arena_alloc(a, sizeof(MlirValue) * (size_t)(k->nvars + 1));
  int np = k->params.n;
  MlirType *ptypes = arena_alloc(a, sizeof(MlirType) * (size_t)(np + 1));
  MlirLocation *plocs = arena_alloc(a, sizeof(MlirLocation) * (size_t)(np + 1));
  MlirAttribute *pattrs = arena_alloc(a, sizeof(MlirAttribute) * (size_t)(np + 1));
  for (int i = 0; i < np; i++) {
    const SigEntry *e = k->param_sigs.v[i];
    ptypes[i] = irgen_type(G, k->param_types.v[i]);
    plocs[i] = kloc;
    Attrs pa = {0};
    if (e->divisibility > 1) irgen_attr(G, &pa, "tile.divisibility", irgen_i32_attr(G, e->divisibility));
    pattrs[i] = mlirDictionaryAttrGet(G->ctx, pa.n, pa.v);
  }
  MlirRegion body = irgen_new_region(G);
  MlirBlock entry = mlirBlockCreate(np, ptypes, plocs);
  mlirRegionAppendOwnedBlock(body, entry);
  for (int i = 0; i < np; i++) g.vals[((Var *)k->params.v[i])->id] = mlirBlockGetArgument(entry, i);
  G->block = entry;
  irgen_block(G, &k->body, true);
  irgen_build(G, "func.return", kloc, 0, NULL, 0, NULL, NULL, 0, NULL);

  G->block = mlirModuleGetBody(m);
  Attrs fa = {0};
  irgen_attr(G, &fa, "sym_name", irgen_str_attr(G, k->name));
  irgen_attr(G, &fa, "function_type", mlirTypeAttrGet(mlirFunctionTypeGet(G->ctx, np, ptypes, 0, NULL)));
  irgen_attr(G, &fa, "arg_attrs", mlirArrayAttrGet(G->ctx, np, pattrs));
  irgen_attr(G, &fa, "tile.num_warps", irgen_i32_attr(G, k->num_warps));
  irgen_attr(G, &fa, "tile.num_stages", irgen_i32_attr(G, k->num_stages));
  irgen_build(G, "func.func", kloc, 0, NULL, 0, NULL, &fa, 1, &body);
  d->unwind = saved;
  return m;
}
