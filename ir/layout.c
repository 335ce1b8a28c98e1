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

MlirOperation operand_conversion(Compilation *comp, MlirOperation load, bool *trans) {
  *trans = false;
  MlirValue v = mlirOperationGetResult(load, 0);
  for (int hop = 0; hop < 2; hop++) {
    MlirOpOperand u = mlirValueGetFirstUse(v);
    if (mlirOpOperandIsNull(u) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(u))) break;
    MlirOperation o = mlirOpOperandGetOwner(u);
    if (!mlirBlockEqual(mlirOperationGetBlock(o), mlirOperationGetBlock(load))) break;
    Layout d;
    if (tile_op_of(o) == TOP_convert_layout) {
      MlirType et = mlirShapedTypeGetElementType(mlirValueGetType(v));
      if (!layout_of_type(comp, mlirValueGetType(mlirOperationGetResult(o, 0)), &d) || d.kind != L_DOT_OP ||
          d.parent->kind != L_MMA || (*trans && (d.dim != 1 || !(mlirTypeIsAF16(et) || mlirTypeIsABF16(et)))))
        break;
      return o;
    }
    /* a 2-D transpose: the load holds B's columns, K contiguous (K^T) */
    MlirAttribute order = mlirOperationGetAttributeByName(o, mlirStringRefCreateFromCString("order"));
    if (hop || tile_op_of(o) != TOP_trans || mlirShapedTypeGetRank(mlirValueGetType(v)) != 2 || mlirAttributeIsNull(order) ||
        mlirDenseI32ArrayGetElement(order, 0) != 1)
      break;
    *trans = true;
    v = mlirOperationGetResult(o, 0);
  }
  *trans = false;
  return (MlirOperation){NULL};
}

bool operand_kn(Compilation *comp, MlirOperation load, MlirOperation cv, bool trans) {
  if (trans) return true;
  Layout l, d;
  MlirType lt = mlirValueGetType(mlirOperationGetResult(load, 0)), et = mlirShapedTypeGetElementType(lt);
  return layout_of_type(comp, lt, &l) && l.kind == L_BLOCKED && l.rank == 2 && l.order[0] == 0 && l.spt[0] > 1 &&
         layout_of_type(comp, mlirValueGetType(mlirOperationGetResult(cv, 0)), &d) && d.kind == L_DOT_OP && d.dim == 1 &&
         (mlirTypeIsAF16(et) || mlirTypeIsABF16(et));
}
