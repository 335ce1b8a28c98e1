/*
 * layout.c — layouts, the tensor encodings of tile IR with layouts, in the
 * C form passes and codegen read.
 *
 * Layout attributes are IRDL attributes, which the C API can build only by
 * parsing text and read only by printing it; Layout is their C form.
 */
#include "layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

/* ---- layouts ------------------------------------------------------------------------ */

static void list_text(StrBuf *sb, const int *v, int n) {
  sb_putc(sb, '[');
  for (int i = 0; i < n; i++) sb_printf(sb, "%s%d", i ? ", " : "", v[i]);
  sb_putc(sb, ']');
}

static void layout_text(StrBuf *sb, const Layout *l) {
  switch (l->kind) {
  case L_BLOCKED:
    sb_printf(sb, "#tile.blocked<");
    list_text(sb, l->spt, l->rank);
    sb_printf(sb, ", ");
    list_text(sb, l->tpw, l->rank);
    sb_printf(sb, ", ");
    list_text(sb, l->wpc, l->rank);
    sb_printf(sb, ", ");
    list_text(sb, l->order, l->rank);
    sb_putc(sb, '>');
    return;
  case L_SLICE:
    sb_printf(sb, "#tile.slice<%d, ", l->dim);
    layout_text(sb, l->parent);
    sb_putc(sb, '>');
    return;
  case L_MMA:
    sb_printf(sb, "#tile.mma<%d, ", l->version);
    list_text(sb, l->wpc, l->rank);
    sb_printf(sb, ", ");
    list_text(sb, l->instr, l->rank);
    sb_putc(sb, '>');
    return;
  case L_DOT_OP:
    sb_printf(sb, "#tile.dot_op<%d, ", l->dim);
    layout_text(sb, l->parent);
    sb_printf(sb, ", %d>", l->k_width);
    return;
  default: internal_error(__FILE__, __LINE__, "layout kind has no text");
  }
}

MlirAttribute layout_attr(Compilation *comp, const Layout *l) {
  StrBuf sb = {0};
  layout_text(&sb, l);
  MlirAttribute a = ir_parse_attr(comp->ic, sb.s);
  sb_free(&sb);
  return a;
}

Layout layout_blocked(Compilation *comp, int rank, const int64_t *shape, const int *spt, const int *order) {
  Layout l = {.kind = L_BLOCKED, .rank = rank};
  for (int i = 0; i < rank; i++) {
    l.spt[i] = spt ? spt[i] : 1;
    l.order[i] = order ? order[i] : rank - 1 - i;
  }
  /* threads of a warp from the fastest dimension out, warps likewise; what is
   * left over goes to the slowest dimension (Triton's distribution) */
  int threads = comp->threads_per_warp, warps = comp->num_warps;
  for (int k = 0; k < rank; k++) {
    int d = l.order[k];
    int64_t room = shape[d] / l.spt[d];
    if (room < 1) room = 1;
    int t = 1;
    while (t * 2 <= threads && t * 2 <= room) t *= 2;
    l.tpw[d] = t;
    threads /= t;
  }
  l.tpw[l.order[rank - 1]] *= threads;
  for (int k = 0; k < rank; k++) {
    int d = l.order[k];
    int64_t room = shape[d] / ((int64_t)l.spt[d] * l.tpw[d]);
    if (room < 1) room = 1;
    int w = 1;
    while (w * 2 <= warps && w * 2 <= room) w *= 2;
    l.wpc[d] = w;
    warps /= w;
  }
  l.wpc[l.order[rank - 1]] *= warps;
  return l;
}

bool layout_equal(const Layout *a, const Layout *b) {
  if (a->kind != b->kind || a->rank != b->rank || a->dim != b->dim || a->k_width != b->k_width ||
      a->version != b->version)
    return false;
  for (int i = 0; i < a->rank; i++)
    if (a->spt[i] != b->spt[i] || a->tpw[i] != b->tpw[i] || a->wpc[i] != b->wpc[i] || a->order[i] != b->order[i] ||
        a->instr[i] != b->instr[i])
      return false;
  if (!a->parent || !b->parent) return a->parent == b->parent;
  return layout_equal(a->parent, b->parent);
}

MlirAttribute type_layout(MlirType t) {
  if (!mlirTypeIsARankedTensor(t)) return (MlirAttribute){NULL};
  return mlirRankedTensorTypeGetEncoding(t);
}

MlirType with_layout(Compilation *comp, MlirType t, MlirAttribute layout) {
  (void)comp;
  int r = (int)mlirShapedTypeGetRank(t);
  int64_t shape[MAX_RANK];
  for (int i = 0; i < r; i++) shape[i] = mlirShapedTypeGetDimSize(t, i);
  return mlirRankedTensorTypeGet(r, shape, mlirShapedTypeGetElementType(t), layout);
}

MlirType without_layout(MlirType t) {
  if (!mlirTypeIsARankedTensor(t)) return t;
  int r = (int)mlirShapedTypeGetRank(t);
  int64_t shape[MAX_RANK];
  for (int i = 0; i < r; i++) shape[i] = mlirShapedTypeGetDimSize(t, i);
  return mlirRankedTensorTypeGet(r, shape, mlirShapedTypeGetElementType(t), mlirAttributeGetNull());
}

/* Parsing the printed form: "#tile.blocked<[1, 4], [32], ...>" */
typedef struct Reader {
  const char *p;
  bool ok;
} Reader;

static void skip(Reader *r) {
  while (*r->p == ' ') r->p++;
}
static bool lit(Reader *r, const char *s) {
  skip(r);
  size_t n = strlen(s);
  if (strncmp(r->p, s, n)) return r->ok = false;
  r->p += n;
  return true;
}
static int num(Reader *r) {
  skip(r);
  char *end;
  long v = strtol(r->p, &end, 10);
  if (end == r->p) r->ok = false;
  r->p = end;
  /* integer attributes print with their type: "4 : i64" */
  skip(r);
  if (r->p[0] == ':' ) {
    r->p++;
    skip(r);
    while (*r->p && *r->p != ',' && *r->p != ']' && *r->p != '>') r->p++;
  }
  return (int)v;
}
static int list(Reader *r, int *out) {
  int n = 0;
  if (!lit(r, "[")) return 0;
  skip(r);
  while (r->ok && *r->p != ']' && n < MAX_RANK) {
    out[n++] = num(r);
    skip(r);
    if (*r->p == ',') r->p++;
  }
  lit(r, "]");
  return n;
}

static bool read_layout(Compilation *comp, Reader *r, Layout *l) {
  memset(l, 0, sizeof *l);
  skip(r);
  if (!strncmp(r->p, "#tile.blocked<", 14)) {
    r->p += 14;
    l->kind = L_BLOCKED;
    l->rank = list(r, l->spt);
    lit(r, ",");
    list(r, l->tpw);
    lit(r, ",");
    list(r, l->wpc);
    lit(r, ",");
    list(r, l->order);
    lit(r, ">");
    return r->ok;
  }
  if (!strncmp(r->p, "#tile.mma<", 10)) {
    r->p += 10;
    l->kind = L_MMA;
    l->version = num(r);
    lit(r, ",");
    l->rank = list(r, l->wpc);
    lit(r, ",");
    if (list(r, l->instr) != l->rank) r->ok = false;
    lit(r, ">");
    return r->ok;
  }
  bool slice = !strncmp(r->p, "#tile.slice<", 12), dot = !strncmp(r->p, "#tile.dot_op<", 13);
  if (slice || dot) {
    r->p += slice ? 12 : 13;
    l->kind = slice ? L_SLICE : L_DOT_OP;
    l->dim = num(r);
    lit(r, ",");
    Layout *parent = arena_alloc(comp->a, sizeof *parent);
    if (!read_layout(comp, r, parent)) return false;
    l->parent = parent;
    if (dot) {
      lit(r, ",");
      l->k_width = num(r);
    }
    lit(r, ">");
    l->rank = slice ? parent->rank - 1 : parent->rank;
    return r->ok;
  }
  return false;
}

bool layout_of_type(Compilation *comp, MlirType t, Layout *out) {
  MlirAttribute a = type_layout(t);
  if (mlirAttributeIsNull(a)) return false;
  Reader r = {ir_attr_str(comp->ic, a), true};
  return read_layout(comp, &r, out);
}

int64_t pointee_bytes(Compilation *comp, MlirType t) {
  MlirType p = ir_pointee(comp->ic, mlirTypeIsARankedTensor(t) ? mlirShapedTypeGetElementType(t) : t);
  if (mlirTypeIsNull(p)) return 1;
  if (mlirTypeIsARankedTensor(p)) p = mlirShapedTypeGetElementType(p);
  int64_t bits = mlirTypeIsAInteger(p) ? mlirIntegerTypeGetWidth(p) : mlirTypeIsAFloat(p) ? mlirFloatTypeGetWidth(p) : 8;
  return bits < 8 ? 1 : bits / 8;
}

/* One use of a load's value as a tensor-core operand: its conversion to a
 * dot_op layout of an MMA layout in the load's block, directly or through a
 * 2-D transpose to a 16-bit float B (*trans: attention's K^T). */
static bool operand_use(Compilation *comp, MlirOperation load, MlirOpOperand u, MlirOperation *cv, bool *trans) {
  MlirValue v = mlirOperationGetResult(load, 0);
  *trans = false;
  if (!mlirTypeIsARankedTensor(mlirValueGetType(v))) return false;
  MlirType et = mlirShapedTypeGetElementType(mlirValueGetType(v));
  for (int hop = 0; hop < 2; hop++) {
    if (hop) {
      /* the transpose's one use */
      u = mlirValueGetFirstUse(v);
      if (mlirOpOperandIsNull(u) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(u))) return false;
    }
    MlirOperation o = mlirOpOperandGetOwner(u);
    if (!mlirBlockEqual(mlirOperationGetBlock(o), mlirOperationGetBlock(load))) return false;
    Layout d;
    if (tile_op_of(o) == TOP_convert_layout) {
      if (!layout_of_type(comp, mlirValueGetType(mlirOperationGetResult(o, 0)), &d) || d.kind != L_DOT_OP ||
          d.parent->kind != L_MMA || (*trans && (d.dim != 1 || !(mlirTypeIsAF16(et) || mlirTypeIsABF16(et)))))
        return false;
      *cv = o;
      return true;
    }
    MlirAttribute order = mlirOperationGetAttributeByName(o, mlirStringRefCreateFromCString("order"));
    if (hop || tile_op_of(o) != TOP_trans || mlirShapedTypeGetRank(mlirValueGetType(v)) != 2 || mlirAttributeIsNull(order) ||
        mlirDenseI32ArrayGetElement(order, 0) != 1)
      return false;
    *trans = true;
    v = mlirOperationGetResult(o, 0);
  }
  return false;
}

int operand_cols(Compilation *comp, MlirOperation load, MlirOperation cv, bool trans) {
  Layout l, d;
  MlirType lt = mlirValueGetType(mlirOperationGetResult(load, 0)), et = mlirShapedTypeGetElementType(lt);
  if (!layout_of_type(comp, mlirValueGetType(mlirOperationGetResult(cv, 0)), &d) || d.kind != L_DOT_OP) return 1;
  int lead = (int)mlirShapedTypeGetRank(lt) - 2;
  if (d.dim == 0) return lead + (trans ? 0 : 1); /* A: K */
  if (!(mlirTypeIsAF16(et) || mlirTypeIsABF16(et))) return lead + (trans ? 1 : 0); /* B of 32-bit words along K */
  /* 16-bit B: as the load lies, its fastest dimension along the rows */
  return lead + !(layout_of_type(comp, lt, &l) && l.kind == L_BLOCKED && l.rank == 2 && l.order[0] == 0 && l.spt[0] > 1);
}

MlirOperation operand_conversion(Compilation *comp, MlirOperation load, bool *trans) {
  MlirOperation first = {NULL};
  bool ft = false;
  int cols = -1, uses = 0;
  for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(load, 0)); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation cv;
    bool t;
    if (++uses > 4 || !operand_use(comp, load, u, &cv, &t)) {
      first.ptr = NULL;
      break;
    }
    /* every use reads the one buffer: it must lie the same way for each */
    int c = operand_cols(comp, load, cv, t);
    if (cols >= 0 && c != cols) {
      first.ptr = NULL;
      break;
    }
    cols = c;
    if (mlirOperationIsNull(first)) first = cv, ft = t;
  }
  *trans = !mlirOperationIsNull(first) && ft;
  return first;
}

bool operand_kn(Compilation *comp, MlirOperation load, MlirOperation cv, bool trans) {
  int lead = (int)mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetResult(load, 0))) - 2;
  return operand_cols(comp, load, cv, trans) == lead + (trans ? 1 : 0);
}
