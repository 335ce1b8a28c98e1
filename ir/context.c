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
#include <mlir-c/RegisterEverything.h>
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

/* The parse cache: text to type or attribute. The print cache: a type's or
 * attribute's storage (uniqued by the context) to its printed text. Both
 * are open-addressed tables that live as long as the context. */
typedef struct CacheEntry {
  char *text;
  uint64_t hash;
  MlirType type;
  MlirAttribute attr;
} CacheEntry;

/* A map from pointers to pointer-sized values, open-addressed, its slots a
 * power of two: the printed texts of types and attributes, and the numbers
 * the hash gives values. */
typedef struct HeapMap {
  const void **key;
  uintptr_t *val;
  int n, cap;
} HeapMap;

/* The value of key, added as 0 when it is not there (*added says so). */
static uintptr_t *ptrmap_slot(HeapMap *m, const void *key, bool *added) {
  if (2 * (m->n + 1) > m->cap) {
    int cap = m->cap ? m->cap * 2 : 64;
    const void **k = calloc((size_t)cap, sizeof *k);
    uintptr_t *v = calloc((size_t)cap, sizeof *v);
    if (!k || !v) internal_error(__FILE__, __LINE__, "out of memory");
    for (int i = 0; i < m->cap; i++) {
      if (!m->key[i]) continue;
      int j = (int)(((uint64_t)(uintptr_t)m->key[i] * 0x9e3779b97f4a7c15ull) >> 40 & (uint64_t)(cap - 1));
      while (k[j]) j = (j + 1) & (cap - 1);
      k[j] = m->key[i];
      v[j] = m->val[i];
    }
    free(m->key);
    free(m->val);
    m->key = k, m->val = v, m->cap = cap;
  }
  int i = (int)(((uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull) >> 40 & (uint64_t)(m->cap - 1));
  while (m->key[i] && m->key[i] != key) i = (i + 1) & (m->cap - 1);
  *added = !m->key[i];
  if (*added) m->key[i] = key, m->n++;
  return &m->val[i];
}

static void ptrmap_free(HeapMap *m) {
  free(m->key);
  free(m->val);
}

struct IrContext {
  MlirContext ctx;
  CacheEntry *cache; /* cache_cap slots, a power of two */
  int ncache, cache_cap;
  HeapMap printed;    /* type or attribute -> its text (malloc'd) */
  MlirDiagnosticHandlerID handler;
  bool has_handler;
  bool internal; /* errors are tilec's: see ir_capture_diagnostics */
  Diags *diags;
  const Source *src;
  MlirPassManager canonicalizer; /* made on first use, kept: its patterns are set up once */
  struct {
    char *text;
    MlirPassManager pm;
  } pipelines[16]; /* likewise, by their text */
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
    internal_error(__FILE__, __LINE__, "the tile dialect's IRDL does not load");
  mlirModuleDestroy(defs);
  mlirRegisterAllLLVMTranslations(ic->ctx);
  return ic;
}

MlirPassManager ir_canonicalizer(IrContext *ic) {
  if (mlirPassManagerIsNull(ic->canonicalizer)) {
    ic->canonicalizer = mlirPassManagerCreate(ic->ctx);
    mlirPassManagerAddOwnedPass(ic->canonicalizer, mlirCreateTransformsCanonicalizer());
  }
  return ic->canonicalizer;
}

static void pipeline_error(MlirStringRef s, void *user) { sb_append((StrBuf *)user, s.data, s.length); }

MlirPassManager ir_pipeline(IrContext *ic, const char *text, StrBuf *err) {
  int n = (int)(sizeof ic->pipelines / sizeof *ic->pipelines), i = 0;
  for (; i < n && ic->pipelines[i].text; i++)
    if (!strcmp(ic->pipelines[i].text, text)) return ic->pipelines[i].pm;
  MlirPassManager pm = mlirPassManagerCreate(ic->ctx);
  if (mlirLogicalResultIsFailure(mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm), str(text), pipeline_error, err))) {
    mlirPassManagerDestroy(pm);
    return (MlirPassManager){NULL};
  }
  if (i == n) internal_error(__FILE__, __LINE__, "more pass pipelines than the context keeps");
  ic->pipelines[i].text = strdup(text);
  ic->pipelines[i].pm = pm;
  return pm;
}

void ir_context_destroy(IrContext *ic) {
  if (!ic) return;
  if (!mlirPassManagerIsNull(ic->canonicalizer)) mlirPassManagerDestroy(ic->canonicalizer);
  for (size_t i = 0; i < sizeof ic->pipelines / sizeof *ic->pipelines && ic->pipelines[i].text; i++) {
    free(ic->pipelines[i].text);
    mlirPassManagerDestroy(ic->pipelines[i].pm);
  }
  if (ic->has_handler) mlirContextDetachDiagnosticHandler(ic->ctx, ic->handler);
  for (int i = 0; i < ic->cache_cap; i++) free(ic->cache[i].text);
  free(ic->cache);
  for (int i = 0; i < ic->printed.cap; i++) free((char *)ic->printed.val[i]);
  ptrmap_free(&ic->printed);
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

static uint64_t text_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

/* A zeroed table of twice the slots (64 at first); *cap becomes its size. */
static void *grow(int *cap, size_t size) {
  int n = *cap ? *cap * 2 : 64;
  void *t = calloc((size_t)n, size);
  if (!t) internal_error(__FILE__, __LINE__, "out of memory");
  *cap = n;
  return t;
}

static CacheEntry *cache_slot(CacheEntry *t, int cap, const char *text, uint64_t h) {
  for (int i = (int)(h & (uint64_t)(cap - 1));; i = (i + 1) & (cap - 1))
    if (!t[i].text || (t[i].hash == h && !strcmp(t[i].text, text))) return &t[i];
}

static CacheEntry *cache_find(IrContext *ic, const char *text) {
  uint64_t h = text_hash(text);
  if (2 * (ic->ncache + 1) > ic->cache_cap) {
    int old_cap = ic->cache_cap;
    CacheEntry *old = ic->cache;
    ic->cache = grow(&ic->cache_cap, sizeof *old);
    for (int i = 0; i < old_cap; i++)
      if (old[i].text) *cache_slot(ic->cache, ic->cache_cap, old[i].text, old[i].hash) = old[i];
    free(old);
  }
  CacheEntry *e = cache_slot(ic->cache, ic->cache_cap, text, h);
  if (!e->text) {
    e->text = strdup(text);
    if (!e->text) internal_error(__FILE__, __LINE__, "out of memory");
    e->hash = h;
    ic->ncache++;
  }
  return e;
}

MlirType ir_parse_type(IrContext *ic, const char *text) {
  CacheEntry *e = cache_find(ic, text);
  if (mlirTypeIsNull(e->type)) e->type = mlirTypeParseGet(ic->ctx, str(text));
  if (mlirTypeIsNull(e->type)) internal_error(__FILE__, __LINE__, text);
  return e->type;
}

MlirAttribute ir_parse_attr(IrContext *ic, const char *text) {
  CacheEntry *e = cache_find(ic, text);
  if (mlirAttributeIsNull(e->attr)) e->attr = mlirAttributeParseGet(ic->ctx, str(text));
  if (mlirAttributeIsNull(e->attr)) internal_error(__FILE__, __LINE__, text);
  return e->attr;
}

const char *ir_scalar_name(DType dt) { return dtype_ir(dt); }

MlirType ir_scalar_type(IrContext *ic, DType dt) { return ir_parse_type(ic, dtype_ir(dt)); }

/* ---- printing ---------------------------------------------------------------- */

static void print_cb(MlirStringRef s, void *user) {
  sb_printf((StrBuf *)user, "%.*s", (int)s.length, s.data);
}

void ir_type_text(StrBuf *sb, MlirType t) { mlirTypePrint(t, print_cb, sb); }

void ir_attr_text(StrBuf *sb, MlirAttribute a) { mlirAttributePrint(a, print_cb, sb); }

/* The printed text of a type (is_type) or attribute, printed once. */
static const char *printed(IrContext *ic, const void *key, bool is_type) {
  bool added;
  uintptr_t *text = ptrmap_slot(&ic->printed, key, &added);
  if (added) {
    StrBuf sb = {0};
    if (is_type) ir_type_text(&sb, (MlirType){key});
    else ir_attr_text(&sb, (MlirAttribute){key});
    *text = (uintptr_t)(sb.s ? sb.s : strdup(""));
  }
  return (const char *)*text;
}

const char *ir_type_str(IrContext *ic, MlirType t) { return printed(ic, t.ptr, true); }

const char *ir_attr_str(IrContext *ic, MlirAttribute a) { return printed(ic, a.ptr, false); }

MlirType ir_pointee(IrContext *ic, MlirType t) {
  const char *s = ir_type_str(ic, t);
  size_t n = strlen(s);
  if (n < 12 || strncmp(s, "!tile.ptr<", 10) || s[n - 1] != '>') return (MlirType){NULL};
  char buf[256];
  if (n - 11 >= sizeof buf) return (MlirType){NULL};
  memcpy(buf, s + 10, n - 11);
  buf[n - 11] = 0;
  return ir_parse_type(ic, buf);
}

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
    /* IR that tilec made from a kernel and MLIR's verifier rejects ("'op'
     * op ...": tilec's own passes word their errors for the user) is
     * tilec's defect, not the user's: said so, at the kernel line it came
     * from */
    if (ic->internal && msg.s && msg.s[0] == '\'' && strstr(msg.s, "' op "))
      diag_internal_error(ic->diags, loc, "%s (in the IR tilec made for this line; please report it)", msg.s);
    else
      diag_error_noreturnless(ic->diags, loc, "%s", msg.s ? msg.s : "");
    break;
  case MlirDiagnosticWarning: diag_warning(ic->diags, loc, "%s", msg.s ? msg.s : ""); break;
  default: diag_note(ic->diags, loc, "%s", msg.s ? msg.s : ""); break;
  }
  sb_free(&msg);
  return mlirLogicalResultSuccess();
}

void ir_capture_diagnostics(IrContext *ic, Diags *d, const Source *src, bool internal) {
  ic->diags = d;
  ic->src = src;
  ic->internal = internal;
  if (!ic->has_handler) {
    ic->handler = mlirContextAttachDiagnosticHandler(ic->ctx, on_diagnostic, ic, NULL);
    ic->has_handler = true;
  }
}

/* ---- hashing ------------------------------------------------------------------ */

typedef struct Hasher {
  IrContext *ic;
  uint64_t h;
  HeapMap num; /* values numbered in the order they are met */
} Hasher;

static void mix(Hasher *hs, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) hs->h = (hs->h ^ p[i]) * 0x100000001b3ull;
}

static void mix_str(Hasher *hs, const char *s) { mix(hs, s, strlen(s) + 1); }

static void mix_ref(Hasher *hs, MlirStringRef s) {
  mix(hs, s.data, s.length);
  mix(hs, "", 1);
}

/* The number of a value: its place in the order values were first met. */
static void mix_value(Hasher *hs, MlirValue v) {
  bool added;
  uintptr_t *num = ptrmap_slot(&hs->num, v.ptr, &added);
  if (added) *num = (uintptr_t)hs->num.n - 1;
  uint32_t n = (uint32_t)*num;
  mix(hs, &n, sizeof n);
}

static void hash_op(Hasher *hs, MlirOperation op) {
  mix_ref(hs, mlirIdentifierStr(mlirOperationGetName(op)));
  for (intptr_t i = 0, n = mlirOperationGetNumAttributes(op); i < n; i++) {
    MlirNamedAttribute a = mlirOperationGetAttribute(op, i);
    mix_ref(hs, mlirIdentifierStr(a.name));
    mix_str(hs, ir_attr_str(hs->ic, a.attribute));
  }
  intptr_t nops = mlirOperationGetNumOperands(op);
  mix(hs, &nops, sizeof nops);
  for (intptr_t i = 0; i < nops; i++) mix_value(hs, mlirOperationGetOperand(op, i));
  intptr_t nres = mlirOperationGetNumResults(op);
  mix(hs, &nres, sizeof nres);
  for (intptr_t i = 0; i < nres; i++) {
    MlirValue r = mlirOperationGetResult(op, i);
    mix_value(hs, r);
    mix_str(hs, ir_type_str(hs->ic, mlirValueGetType(r)));
  }
  intptr_t nsucc = mlirOperationGetNumSuccessors(op);
  mix(hs, &nsucc, sizeof nsucc);
  for (intptr_t i = 0; i < nsucc; i++) mix_value(hs, (MlirValue){mlirOperationGetSuccessor(op, i).ptr});
  for (intptr_t r = 0, nr = mlirOperationGetNumRegions(op); r < nr; r++) {
    mix(hs, "{", 1);
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b)) {
      mix(hs, "^", 1);
      mix_value(hs, (MlirValue){b.ptr}); /* successors name blocks */
      for (intptr_t i = 0, na = mlirBlockGetNumArguments(b); i < na; i++) {
        MlirValue a = mlirBlockGetArgument(b, i);
        mix_value(hs, a);
        mix_str(hs, ir_type_str(hs->ic, mlirValueGetType(a)));
      }
      for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
        hash_op(hs, o);
    }
    mix(hs, "}", 1);
  }
}

uint64_t ir_hash(IrContext *ic, MlirOperation op) {
  Hasher hs = {.ic = ic, .h = 0xcbf29ce484222325ull};
  hash_op(&hs, op);
  ptrmap_free(&hs.num);
  return hs.h;
}
