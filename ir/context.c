/*
 * context.c — the MLIR context of a compilation: the upstream dialects tilec
 * uses, the tile dialect loaded from its IRDL text, a cache of the types and
 * attributes that can only be made by parsing, the op property table, and
 * the bridge from MLIR's diagnostics to the project's printer.
 *
 * Every dialect is loaded eagerly: Debian's MLIR has no assertions, and an
 * op of an unloaded dialect would crash instead of failing.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#include <mlir-c/Diagnostics.h>
#include <mlir-c/Pass.h>
#include <mlir-c/Transforms.h>
#include <mlir-c/Dialect/Arith.h>
#include <mlir-c/Dialect/ControlFlow.h>
#include <mlir-c/Dialect/Func.h>
#include <mlir-c/Dialect/GPU.h>
#include <mlir-c/Dialect/IRDL.h>
#include <mlir-c/Dialect/LLVM.h>
#include <mlir-c/Dialect/Math.h>
#include <mlir-c/Dialect/NVVM.h>
#include <mlir-c/Dialect/SCF.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
#include "tile_irdl.h"
#pragma GCC diagnostic pop

typedef struct CacheEntry {
  char *text;
  MlirType type;
  MlirAttribute attr;
} CacheEntry;

struct IrContext {
  MlirContext ctx;
  CacheEntry *cache;
  int ncache, cache_cap;
  MlirDiagnosticHandlerID handler;
  bool has_handler;
  Diags *diags;
  const Source *src;
  MlirPassManager canonicalizer; /* made on first use, kept: its patterns are set up once */
};

MlirContext ir_mlir(IrContext *ic) { return ic->ctx; }

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

IrContext *ir_context_create(void) {
  IrContext *ic = calloc(1, sizeof *ic);
  if (!ic) return NULL;
  ic->ctx = mlirContextCreateWithThreading(false);
  MlirDialectHandle handles[] = {
      mlirGetDialectHandle__func__(), mlirGetDialectHandle__arith__(), mlirGetDialectHandle__math__(),
      mlirGetDialectHandle__scf__(),  mlirGetDialectHandle__cf__(),    mlirGetDialectHandle__llvm__(),
      mlirGetDialectHandle__nvvm__(), mlirGetDialectHandle__gpu__(),   mlirGetDialectHandle__irdl__(),
  };
  for (size_t i = 0; i < sizeof handles / sizeof *handles; i++) {
    mlirDialectHandleRegisterDialect(handles[i], ic->ctx);
    mlirDialectHandleLoadDialect(handles[i], ic->ctx);
  }
  MlirModule defs = mlirModuleCreateParse(ic->ctx, str(tile_irdl));
  if (mlirModuleIsNull(defs) || mlirLogicalResultIsFailure(mlirLoadIRDLDialects(defs)))
    fe_internal_error(__FILE__, __LINE__, "the tile dialect's IRDL does not load");
  mlirModuleDestroy(defs);
  return ic;
}

MlirPassManager ir_canonicalizer(IrContext *ic) {
  if (mlirPassManagerIsNull(ic->canonicalizer)) {
    ic->canonicalizer = mlirPassManagerCreate(ic->ctx);
    mlirPassManagerAddOwnedPass(ic->canonicalizer, mlirCreateTransformsCanonicalizer());
  }
  return ic->canonicalizer;
}

void ir_context_destroy(IrContext *ic) {
  if (!ic) return;
  if (!mlirPassManagerIsNull(ic->canonicalizer)) mlirPassManagerDestroy(ic->canonicalizer);
  if (ic->has_handler) mlirContextDetachDiagnosticHandler(ic->ctx, ic->handler);
  for (int i = 0; i < ic->ncache; i++) free(ic->cache[i].text);
  free(ic->cache);
  mlirContextDestroy(ic->ctx);
  free(ic);
}

/* ---- the op table ---------------------------------------------------------- */

static const struct {
  const char *name;
  int flags;
} tile_ops[] = {
#define X(name, flags) {"tile." #name, flags},
    TILE_OPS(X)
#undef X
};

const char *tile_op_name(TileOp t) { return tile_ops[t].name; }
int tile_op_flags(TileOp t) { return tile_ops[t].flags; }

TileOp tile_op_of(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length < 6 || memcmp(name.data, "tile.", 5)) return TOP_NONE;
  for (int i = 0; i < TOP_COUNT; i++)
    if (strlen(tile_ops[i].name) == name.length && !memcmp(tile_ops[i].name, name.data, name.length))
      return (TileOp)i;
  return TOP_NONE;
}

/* ---- types and attributes ------------------------------------------------------ */

static CacheEntry *cache_find(IrContext *ic, const char *text) {
  for (int i = 0; i < ic->ncache; i++)
    if (!strcmp(ic->cache[i].text, text)) return &ic->cache[i];
  if (ic->ncache == ic->cache_cap) {
    int cap = ic->cache_cap ? ic->cache_cap * 2 : 64;
    CacheEntry *c = realloc(ic->cache, sizeof *c * (size_t)cap);
    if (!c) fe_internal_error(__FILE__, __LINE__, "out of memory");
    ic->cache = c;
    ic->cache_cap = cap;
  }
  CacheEntry *e = &ic->cache[ic->ncache++];
  memset(e, 0, sizeof *e);
  e->text = strdup(text);
  return e;
}

MlirType ir_parse_type(IrContext *ic, const char *text) {
  CacheEntry *e = cache_find(ic, text);
  if (mlirTypeIsNull(e->type)) e->type = mlirTypeParseGet(ic->ctx, str(text));
  if (mlirTypeIsNull(e->type)) fe_internal_error(__FILE__, __LINE__, text);
  return e->type;
}

MlirAttribute ir_parse_attr(IrContext *ic, const char *text) {
  CacheEntry *e = cache_find(ic, text);
  if (mlirAttributeIsNull(e->attr)) e->attr = mlirAttributeParseGet(ic->ctx, str(text));
  if (mlirAttributeIsNull(e->attr)) fe_internal_error(__FILE__, __LINE__, text);
  return e->attr;
}

static const char *const mlir_scalar[DT_COUNT] = {
    [DT_I1] = "i1",     [DT_I8] = "i8",     [DT_I16] = "i16",          [DT_I32] = "i32",
    [DT_I64] = "i64",   [DT_U8] = "i8",     [DT_U16] = "i16",          [DT_U32] = "i32",
    [DT_U64] = "i64",   [DT_F8E4M3] = "f8E4M3FN", [DT_F8E5M2] = "f8E5M2", [DT_F16] = "f16",
    [DT_BF16] = "bf16", [DT_F32] = "f32",   [DT_F64] = "f64",
};

MlirType ir_scalar_type(IrContext *ic, DType dt) { return ir_parse_type(ic, mlir_scalar[dt]); }

static void type_text(StrBuf *sb, const Type *t) {
  switch (t->kind) {
  case TY_SCALAR: sb_printf(sb, "%s", mlir_scalar[t->dtype]); return;
  case TY_PTR:
    sb_printf(sb, "!tile.ptr<");
    type_text(sb, t->elem);
    sb_putc(sb, '>');
    return;
  case TY_DESC:
    sb_printf(sb, "!tile.desc<");
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

MlirType ir_type(IrContext *ic, const Type *t) {
  if (t->kind == TY_SCALAR) return ir_scalar_type(ic, t->dtype);
  StrBuf sb = {0};
  type_text(&sb, t);
  MlirType r = ir_parse_type(ic, sb.s);
  sb_free(&sb);
  return r;
}

/* ---- printing ---------------------------------------------------------------- */

static void print_cb(MlirStringRef s, void *user) {
  sb_printf((StrBuf *)user, "%.*s", (int)s.length, s.data);
}

void ir_type_text(StrBuf *sb, MlirType t) { mlirTypePrint(t, print_cb, sb); }

void ir_attr_text(StrBuf *sb, MlirAttribute a) { mlirAttributePrint(a, print_cb, sb); }

void ir_print(StrBuf *sb, MlirOperation op, bool with_locations) {
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  if (with_locations) mlirOpPrintingFlagsEnableDebugInfo(flags, true, false);
  mlirOperationPrintWithFlags(op, flags, print_cb, sb);
  mlirOpPrintingFlagsDestroy(flags);
  if (!sb->len || sb->s[sb->len - 1] != '\n') sb_putc(sb, '\n');
}

/* ---- diagnostics ---------------------------------------------------------------- */

/* The innermost file position of a location: the callee end of call sites. */
bool ir_file_pos(MlirLocation l, const char **file, size_t *flen, int *line, int *col) {
  for (int guard = 0; guard < 64; guard++) {
    if (mlirLocationIsACallSite(l)) {
      l = mlirLocationCallSiteGetCallee(l);
      continue;
    }
    if (mlirLocationIsAFused(l) && mlirLocationFusedGetNumLocations(l) > 0) {
      MlirLocation first[64];
      intptr_t n = mlirLocationFusedGetNumLocations(l);
      if (n > 64) return false;
      mlirLocationFusedGetLocations(l, first);
      l = first[0];
      continue;
    }
    if (mlirLocationIsAFileLineColRange(l)) {
      MlirStringRef f = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(l));
      *file = f.data;
      *flen = f.length;
      *line = mlirLocationFileLineColRangeGetStartLine(l);
      *col = mlirLocationFileLineColRangeGetStartColumn(l);
      return true;
    }
    return false;
  }
  return false;
}

static MlirLogicalResult on_diagnostic(MlirDiagnostic diag, void *user) {
  IrContext *ic = user;
  if (!ic->diags) return mlirLogicalResultFailure();
  StrBuf msg = {0};
  mlirDiagnosticPrint(diag, print_cb, &msg);
  const char *file;
  size_t flen;
  int line, col;
  Loc loc = {0};
  /* IR parsed from text has the buffer name "-": it is the source given */
  if (ir_file_pos(mlirDiagnosticGetLocation(diag), &file, &flen, &line, &col) && ic->src &&
      ((strlen(ic->src->name) == flen && !memcmp(ic->src->name, file, flen)) || (flen == 1 && file[0] == '-')))
    loc = (Loc){ic->src, line, col};
  switch (mlirDiagnosticGetSeverity(diag)) {
  case MlirDiagnosticError:
    diag_error_noreturnless(ic->diags, loc, "%s", msg.s ? msg.s : "");
    break;
  case MlirDiagnosticWarning: diag_warning(ic->diags, loc, "%s", msg.s ? msg.s : ""); break;
  default: diag_note(ic->diags, loc, "%s", msg.s ? msg.s : ""); break;
  }
  sb_free(&msg);
  return mlirLogicalResultSuccess();
}

void ir_capture_diagnostics(IrContext *ic, Diags *d, const Source *src) {
  ic->diags = d;
  ic->src = src;
  if (!ic->has_handler) {
    ic->handler = mlirContextAttachDiagnosticHandler(ic->ctx, on_diagnostic, ic, NULL);
    ic->has_handler = true;
  }
}
