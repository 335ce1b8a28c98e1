/*
 * pipeline.c — the one list of stages, and the functions that run it.
 *
 * A compilation is the table `stages` below, run in order, as QBE's func()
 * lists its passes: from source to the typed AST, the tile passes, axis
 * analysis, the lowering to the LLVM/NVVM dialect, shared memory, and then
 * one of two tails, the GPU's (PTX, a cubin) or the CPU emulator's (a host
 * object). Every stage is named there, and that name is the one
 * everywhere: `--emit=NAME` stops after it (tilec_compile_options's
 * stop_after), `--dump-after=NAME` prints the IR it leaves, `--time` times
 * it, and a stage that is a pass on an MLIR module runs alone on IR text
 * through `tilec opt --pass=NAME` (tilec_opt). Each stage reads and leaves
 * the IR in one form (the AST, tile IR, the LLVM dialect, LLVM IR, PTX, a
 * binary); the emit kinds of tilec.h are the stages where each of them ends.
 *
 * The MLIR forms are verified (MLIR's verifier and the tile verifier) after
 * irgen and after the last tile pass, and after every stage with
 * verify_each, which also verifies LLVM IR; a stage that breaks the IR is
 * caught where it did.
 */
#include "tilec/tilec.h"

#include "build_id.h" /* generated: TILEC_BUILD_ID (compile/build_id.c) */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/IR.h>

#include "codegen/codegen.h"
#include "ir/ir.h"
#include "ir/irgen.h"
#include "passes/passes.h"
#include "runtime/cache.h"

struct tilec_context {
  IrContext *ic;
  CgCache *cg;
};

tilec_status tilec_context_create(tilec_context **out) {
  if (!out) return TILEC_ERROR_USAGE;
  *out = NULL;
  tilec_context *c = calloc(1, sizeof *c);
  if (!c) return TILEC_ERROR_NO_MEMORY;
  c->ic = ir_context_create();
  c->cg = cg_cache_create();
  if (!c->ic || !c->cg) {
    tilec_context_destroy(c);
    return TILEC_ERROR_NO_MEMORY;
  }
  *out = c;
  return TILEC_OK;
}

void tilec_context_destroy(tilec_context *ctx) {
  if (!ctx) return;
  ir_context_destroy(ctx->ic);
  cg_cache_destroy(ctx->cg);
  free(ctx);
}

struct tilec_result {
  char *output;
  size_t output_len;
  char *metadata;
  char *dump;
  char *times;
  char *diagnostics;
  char *deps;
};

const char *tilec_version(void) { return TILEC_VERSION; }
const char *tilec_build_id(void) { return TILEC_BUILD_ID; }

int tilec_fp_fusion_enabled(int fp_fusion) {
  if (fp_fusion) return fp_fusion > 0;
  const char *v = getenv("TILEC_ENABLE_FP_FUSION");
  return !(v && !strcmp(v, "0"));
}

static char *dup_text(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (!p) return NULL;
  if (n) memcpy(p, s, n);
  p[n] = 0;
  return p;
}

/* What the stages hand on: the kernel in the form the last one left. */
typedef struct Work {
  const tilec_compile_options *o;
  Kernel *k;           /* frontend */
  MlirModule tile;     /* irgen to the last tile pass */
  MlirModule llvm;     /* lower to to-llvm-dialect: the LLVM and NVVM dialects */
  LLVMContextRef lctx; /* to-llvm-ir on: LLVM IR */
  LLVMModuleRef lm;
  bool host;           /* the CPU emulator's tail */
  bool unroll;         /* a loop asks LLVM to unroll it */
  StrBuf code;         /* PTX, a cubin, or the host object */
  StrBuf meta;         /* the metadata's JSON */
} Work;

/* The form of the kernel a stage leaves. */
typedef enum Form { FORM_AST, FORM_TILE, FORM_LLVM_DIALECT, FORM_LLVM_IR, FORM_CODE } Form;

/* The tails a stage belongs to: both, the GPU's, the CPU emulator's; or
 * none, a pass for `tilec opt` alone. */
enum { GPU = 1, CPU = 2, BOTH = GPU | CPU, OPT_ONLY = 0 };

typedef struct Stage {
  const char *name;
  Form form;
  int paths;
  bool (*run)(Compilation *comp, Work *w);              /* a stage of the driver's, or */
  bool (*pass)(Compilation *comp, MlirOperation module); /* a pass on the module in its form */
  int ends;      /* the tilec_emit whose output this stage's is, or -1 */
  bool verify;   /* its IR is always verified */
  const char *summary;
} Stage;

static bool frontend(Compilation *comp, Work *w);
static bool irgen(Compilation *comp, Work *w);
static bool axis_analysis(Compilation *comp, Work *w);
static bool lower(Compilation *comp, Work *w);
static bool metadata(Compilation *comp, Work *w);
static bool to_llvm_ir(Compilation *comp, Work *w);
static bool libdevice(Compilation *comp, Work *w);
static bool llvm_passes(Compilation *comp, Work *w);
static bool nvptx(Compilation *comp, Work *w);
static bool cubin(Compilation *comp, Work *w);
static bool host_object(Compilation *comp, Work *w);

/* Every stage, in order. */
static const Stage stages[] = {
    /* source to the typed, specialized AST (frontend/) */
    {"frontend", FORM_AST, BOTH, frontend, NULL, TILEC_EMIT_AST, false,
     "lex, parse, resolve the module level, type and specialize the kernel"},
    {"irgen", FORM_TILE, BOTH, irgen, NULL, TILEC_EMIT_TILE, true, "the typed AST to tile IR (ir/irgen.c)"},
    /* tile IR to tile IR with layouts (passes/) */
    {"tma-lowering", FORM_TILE, BOTH, NULL, pass_tma_lowering, -1, false,
     "host tensor descriptors' loads and stores as TMA copies (sm_90 and later)"},
    {"rewrite-block-pointers", FORM_TILE, BOTH, NULL, pass_rewrite_block_pointers, -1, false,
     "accesses through block pointers and descriptors as pointer tensors with masks"},
    {"canonicalize", FORM_TILE, BOTH, NULL, pass_canonicalize, -1, false, "upstream canonicalization and tile folds"},
    {"cse", FORM_TILE, BOTH, NULL, pass_cse, -1, false, "common subexpression elimination of pure ops"},
    {"dce", FORM_TILE, BOTH, NULL, pass_dce, -1, false, "removal of unused pure ops"},
    {"licm", FORM_TILE, BOTH, NULL, pass_licm, -1, false, "hoisting of loop-invariant pure ops"},
    {"convert-to-gpu", FORM_TILE, BOTH, NULL, pass_convert_to_gpu, -1, false, "gives every tensor a layout (Triton's default blocked)"},
    {"coalesce", FORM_TILE, BOTH, NULL, pass_coalesce, -1, false, "vectorized, coalesced layouts for memory ops"},
    {"accelerate-matmul", FORM_TILE, BOTH, NULL, pass_accelerate_matmul, -1, false,
     "MMA layouts for the dots tensor cores compute (mma.sync)"},
    {"remove-layout-conversions", FORM_TILE, BOTH, NULL, pass_remove_layout_conversions, -1, false,
     "folds and rematerializes convert_layout"},
    {"canonicalize", FORM_TILE, BOTH, NULL, pass_canonicalize, -1, false, "again, after the layouts"},
    {"cse", FORM_TILE, BOTH, NULL, pass_cse, -1, false, "again"},
    {"dce", FORM_TILE, BOTH, NULL, pass_dce, -1, false, "again"},
    {"pipeline", FORM_TILE, BOTH, NULL, pass_pipeline, TILEC_EMIT_TILE_GPU, true,
     "marks the first stage of K loops to run num_stages - 1 iterations ahead"},
    {"axis-analysis", FORM_TILE, BOTH, axis_analysis, NULL, -1, false,
     "contiguity, divisibility and constancy of every value, for the lowering (ir/axis_info.c)"},
    /* to the kernel the GPU and the CPU share (codegen/) */
    {"lower", FORM_LLVM_DIALECT, BOTH, lower, NULL, -1, false, "tile IR with layouts to per-thread LLVM/NVVM dialect"},
    {"allocate-shared", FORM_LLVM_DIALECT, BOTH, NULL, cg_allocate_shared, -1, false,
     "places the shared-memory buffers in one, by liveness"},
    {"insert-barriers", FORM_LLVM_DIALECT, BOTH, NULL, cg_insert_barriers, -1, false,
     "a barrier before each shared access that would race"},
    {"metadata", FORM_LLVM_DIALECT, BOTH, metadata, NULL, TILEC_EMIT_LLVM_MLIR, false,
     "what the runtime needs beside the code, as JSON"},
    /* the two tails: the GPU's and the CPU emulator's */
    {"expand-for-gpu", FORM_LLVM_DIALECT, GPU, NULL, cg_expand_for_gpu, -1, false, "tilec.* calls to predicated PTX"},
    {"retarget-host", FORM_LLVM_DIALECT, CPU, NULL, cg_retarget_host, -1, false,
     "GPU operations to calls of the emulator, the entry and its tables"},
    {"to-llvm-dialect", FORM_LLVM_DIALECT, BOTH, NULL, cg_to_llvm_dialect, -1, false,
     "MLIR's conversions of scf, cf, arith and math"},
    {"to-llvm-ir", FORM_LLVM_IR, BOTH, to_llvm_ir, NULL, -1, false, "translation to LLVM IR"},
    {"libdevice", FORM_LLVM_IR, GPU, libdevice, NULL, -1, false, "links the toolkit's libdevice when the kernel calls it"},
    {"llvm-passes", FORM_LLVM_IR, BOTH, llvm_passes, NULL, TILEC_EMIT_LLVM, false,
     "LLVM's pass list for a kernel (O2 for the host)"},
    {"nvptx", FORM_CODE, GPU, nvptx, NULL, TILEC_EMIT_PTX, false, "NVPTX's assembly printer: PTX"},
    {"cubin", FORM_CODE, GPU, cubin, NULL, TILEC_EMIT_CUBIN, false, "PTX to a cubin through nvJitLink"},
    {"host-object", FORM_CODE, CPU, host_object, NULL, TILEC_EMIT_CPU, false, "an object for the host: what the emulator loads"},
    /* by `tilec opt` only */
    {"axis-info", FORM_TILE, OPT_ONLY, NULL, pass_axis_info, -1, false,
     "annotates tensors with contiguity, divisibility, constancy (for tests)"},
};
#define NSTAGES (int)(sizeof stages / sizeof *stages)

static const Stage *stage_named(const char *name) {
  for (int i = 0; name && i < NSTAGES; i++)
    if (!strcmp(stages[i].name, name)) return &stages[i];
  return NULL;
}

static const char *stage_names[NSTAGES + 1];
static pthread_once_t stages_named = PTHREAD_ONCE_INIT;

static void name_stages(void) {
  int n = 0;
  for (int i = 0; i < NSTAGES; i++) {
    bool again = !stages[i].paths;
    for (int j = 0; j < i; j++) again |= !strcmp(stages[j].name, stages[i].name);
    if (!again) stage_names[n++] = stages[i].name;
  }
}

const char *const *tilec_stages(void) {
  pthread_once(&stages_named, name_stages);
  return stage_names;
}

/* ---- the stages the driver runs itself ---------------------------------------------------- */

static bool frontend(Compilation *comp, Work *w) {
  const tilec_compile_options *o = w->o;
  TokenList toks;
  if (!lex_file(comp->a, comp->d, comp->src, &toks)) return false;
  Module *m = parse_module(comp->a, comp->d, comp->src, &toks);
  if (!m) return false;
  SpecOptions so = {
      .kernel = o->kernel,
      .signature = o->signature,
      .defines = (const char **)o->defines,
      .ndefines = o->num_defines,
      .num_warps = o->num_warps,
      .num_stages = o->num_stages,
      .config = o->config,
      .path = comp->src->name,
      .include_dirs = o->include_dirs,
      .ninclude_dirs = o->num_include_dirs,
  };
  w->k = sema_kernel(comp->a, comp->d, types_create(comp->a), m, &so);
  if (!w->k || comp->d->errors) return false;
  comp->num_warps = w->k->num_warps;
  return true;
}

static bool irgen(Compilation *comp, Work *w) {
  w->tile = irgen_kernel(comp->ic, comp->a, comp->d, w->k);
  return !mlirModuleIsNull(w->tile);
}

static bool axis_analysis(Compilation *comp, Work *w) {
  comp->axis = axis_analyze(comp, mlirModuleGetOperation(w->tile));
  return true;
}

static bool lower(Compilation *comp, Work *w) {
  w->llvm = cg_lower(comp, mlirModuleGetOperation(w->tile));
  return !mlirModuleIsNull(w->llvm);
}

/* What the runtime needs beside the code, as JSON: the entry name, launch
 * shape and the parameters in order. lowered_hash: the GPU and the CPU
 * emulator start from the same lowered kernel, and the metadata of each
 * says which. */
static bool metadata(Compilation *comp, Work *w) {
  StrBuf *sb = &w->meta;
  const Kernel *k = w->k;
  MlirOperation module = mlirModuleGetOperation(w->llvm);
  uint64_t hash = ir_hash(comp->ic, module);
  int64_t shared = 0;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("tilec.shared_bytes"));
    if (!mlirAttributeIsNull(a)) shared = mlirIntegerAttrGetValueInt(a);
  }
  sb_printf(sb, "{\n  \"name\": \"%s\",\n  \"arch\": \"%s\",\n  \"num_warps\": %d,\n  \"num_stages\": %d,\n"
                "  \"shared_bytes\": %lld,\n  \"params\": [",
            k->name, comp->target->name, k->num_warps, k->num_stages, (long long)shared);
  for (int i = 0; i < k->params.n; i++) {
    const Var *v = k->params.v[i];
    const SigEntry *e = k->param_sigs.v[i];
    sb_printf(sb, "%s\n    {\"name\": \"%s\", \"type\": \"", i ? "," : "", v->name);
    ty_print(sb, k->param_types.v[i]);
    sb_printf(sb, "\", \"divisibility\": %d, \"entry\": %d%s}", e->divisibility, e->index,
              v->no_specialize ? ", \"specialize\": 0" : "");
  }
  /* the constexprs that are numbers or booleans, for grid expressions */
  sb_printf(sb, "\n  ],\n  \"constexprs\": {");
  int nc = 0;
  for (int i = 0; i < k->const_names.n; i++) {
    const CValue *c = k->const_values.v[i];
    if (c->kind != CV_INT && c->kind != CV_BOOL) continue;
    sb_printf(sb, "%s\"%s\": %lld", nc++ ? ", " : "", (const char *)k->const_names.v[i],
              c->kind == CV_BOOL ? (long long)c->b : (long long)c->i);
  }
  /* @triton.autotune: how many configs, the one taken, its warmup and rep
   * (0: not given), the key's parameters, those tuning zeroes before each
   * run and those it restores after, and those the config's pre_hook zeroes
   * before every launch, and copies (into, from: in pairs) */
  sb_printf(sb, "},\n  \"autotune\": {\"configs\": %d, \"config\": %d", k->nconfigs, k->config);
  const PtrVec *lists[5] = {&k->autotune_keys, &k->autotune_reset, &k->autotune_restore, &k->pre_zero, &k->pre_copy};
  static const char *const names[5] = {"key", "reset", "restore", "pre_zero", "pre_copy"};
  sb_printf(sb, ", \"warmup_ms\": %d, \"rep_ms\": %d", k->tune_warmup, k->tune_rep);
  for (int l = 0; l < 5; l++) {
    sb_printf(sb, ", \"%s\": [", names[l]);
    for (int i = 0; i < lists[l]->n; i++) sb_printf(sb, "%s\"%s\"", i ? ", " : "", (const char *)lists[l]->v[i]);
    sb_putc(sb, ']');
  }
  sb_printf(sb, "}");
  /* the tensor maps the kernel takes after its parameters (codegen/lower_tma.c) */
  MlirAttribute maps = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    if (mlirAttributeIsNull(maps)) maps = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("tilec.tensormaps"));
  if (!mlirAttributeIsNull(maps)) {
    sb_printf(sb, ",\n  \"tensormaps\": [");
    for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(maps); i++) {
      MlirAttribute t = mlirArrayAttrGetElement(maps, i);
      sb_printf(sb, "%s{\"param\": %lld, \"fill\": \"%s\", \"swizzle\": %lld, \"box\": [", i ? ", " : "",
                (long long)mlirDenseI64ArrayGetElement(t, 0), mlirDenseI64ArrayGetElement(t, 1) ? "nan" : "zero",
                (long long)mlirDenseI64ArrayGetElement(t, 2));
      for (intptr_t d = 3; d < mlirDenseArrayGetNumElements(t); d++)
        sb_printf(sb, "%s%lld", d > 3 ? ", " : "", (long long)mlirDenseI64ArrayGetElement(t, d));
      sb_printf(sb, "]}");
    }
    sb_printf(sb, "]");
  }
  sb_printf(sb, ",\n  \"lowered_hash\": \"%016llx\"\n}\n", (unsigned long long)hash);
  return true;
}

static bool to_llvm_ir(Compilation *comp, Work *w) {
  MlirOperation module = mlirModuleGetOperation(w->llvm);
  w->unroll = cg_asks_unroll(module);
  w->lctx = LLVMContextCreate();
  w->lm = cg_translate(comp, module, w->lctx);
  return w->lm != NULL;
}

static bool libdevice(Compilation *comp, Work *w) { return cg_link_libdevice(comp, w->lm); }

static bool llvm_passes(Compilation *comp, Work *w) {
  return cg_optimize(comp, w->lm, w->host, w->unroll);
}

static bool nvptx(Compilation *comp, Work *w) { return cg_emit_ptx(comp, w->lm, &w->code); }

static bool cubin(Compilation *comp, Work *w) {
  StrBuf bin = {0};
  bool ok = cg_cubin(comp, w->code.s, w->code.len, &bin);
  sb_free(&w->code);
  w->code = bin;
  return ok;
}

static bool host_object(Compilation *comp, Work *w) { return cg_emit_host_object(comp, w->lm, &w->code); }

/* ---- running them ------------------------------------------------------------------------- */

/* The kernel in the form st left it, appended to sb. */
static void print_form(StrBuf *sb, const Stage *st, const Work *w) {
  switch (st->form) {
  case FORM_AST: ast_print_kernel(sb, w->k); break;
  case FORM_TILE: ir_print(sb, mlirModuleGetOperation(w->tile), st->run == irgen); break;
  case FORM_LLVM_DIALECT: ir_print(sb, mlirModuleGetOperation(w->llvm), false); break;
  case FORM_LLVM_IR: {
    char *text = LLVMPrintModuleToString(w->lm);
    sb_printf(sb, "%s", text);
    LLVMDisposeMessage(text);
    break;
  }
  case FORM_CODE: sb_append(sb, w->code.s ? w->code.s : "", w->code.len); break;
  }
}

/* Verifies the kernel in the form st left it: MLIR's verifier and the tile
 * rules, or LLVM's verifier. */
static bool verify_form(Compilation *comp, const Stage *st, const Work *w) {
  bool ok = true;
  if (st->form == FORM_TILE || st->form == FORM_LLVM_DIALECT) {
    ok = ir_verify(comp->ic, mlirModuleGetOperation(st->form == FORM_TILE ? w->tile : w->llvm), comp->d);
  } else if (st->form == FORM_LLVM_IR) {
    char *msg = NULL;
    ok = !LLVMVerifyModule(w->lm, LLVMReturnStatusAction, &msg);
    if (!ok) diag_plain_error(comp->d, "LLVM IR does not verify: %s", msg ? msg : "");
    LLVMDisposeMessage(msg);
  }
  if (!ok) diag_plain_error(comp->d, "the IR does not verify after stage '%s'", st->name);
  stage_time(comp->clock, "verify");
  return ok;
}

/* Runs one stage on w (a pass on the module of its form), then verifies
 * and dumps as asked; false with diagnostics when it failed. */
static bool run_stage(Compilation *comp, const Stage *st, Work *w, bool last) {
  bool ok;
  if (st->pass) ok = st->pass(comp, mlirModuleGetOperation(st->form == FORM_TILE ? w->tile : w->llvm));
  else ok = st->run(comp, w);
  if (!ok) {
    if (!comp->d->errors) diag_plain_error(comp->d, "stage '%s' failed", st->name);
    return false;
  }
  stage_time(comp->clock, "%s", st->name);
  bool dumped = comp->dump_after && !strcmp(comp->dump_after, st->name);
  if ((comp->verify_each || st->verify || dumped || last) && st->form != FORM_AST && st->form != FORM_CODE &&
      !verify_form(comp, st, w))
    return false;
  if (dumped) print_form(comp->dump, st, w);
  return true;
}

/* The stage a compilation stops after, on its tail: options' stop_after,
 * else where the emit kind's form ends; NULL with an error when stop_after
 * names no stage of that tail. */
static const Stage *last_stage(const tilec_compile_options *o, int path, Diags *d) {
  for (int i = 0; i < NSTAGES; i++) {
    const Stage *st = &stages[i];
    if (!(st->paths & path)) continue;
    if (o->stop_after ? !strcmp(st->name, o->stop_after) : st->ends == (int)o->emit) return st;
  }
  if (o->stop_after) diag_plain_error(d, "the %s has no stage named '%s'", path == CPU ? "CPU emulator's pipeline" : "pipeline", o->stop_after);
  else diag_plain_error(d, "unknown emit kind %d", (int)o->emit);
  return NULL;
}

/* The stages' names, for messages: " a, b and c". */
static void list_stages(StrBuf *sb, int paths) {
  int n = 0, k = 0;
  for (int i = 0; i < NSTAGES; i++) n += (stages[i].paths & paths) || (!paths && !stages[i].paths) ? 1 : 0;
  for (int i = 0; i < NSTAGES; i++) {
    if (!(stages[i].paths & paths) && !(!paths && !stages[i].paths)) continue;
    bool again = false;
    for (int j = 0; j < i; j++) again |= !strcmp(stages[j].name, stages[i].name);
    if (again) {
      n--;
      continue;
    }
    sb_printf(sb, "%s %s", k == 0 ? "" : k == n - 1 ? " and" : ",", stages[i].name);
    k++;
  }
}

/* A usage error before any work: the message is the whole result. */
static tilec_status usage(tilec_result *r, StrBuf *sb) {
  sb_putc(sb, '\n');
  r->diagnostics = sb->s;
  return r->diagnostics ? TILEC_ERROR_USAGE : TILEC_ERROR_NO_MEMORY;
}

/* Whether the options' array `name` holds its n strings (count names n);
 * if not, says why in msg: a negative count, no array, or a NULL entry,
 * which the compiler would otherwise read. */
static bool array_given(StrBuf *msg, const char *fn, const char *name, const char *count, const char *const *v, int n) {
  int bad = n < 0 || (n && !v) ? -1 : n; /* the entry that is NULL; -1: the array */
  for (int i = 0; bad == n && i < n; i++)
    if (!v[i]) bad = i;
  if (n >= 0 && bad == n) return true;
  if (n < 0) sb_printf(msg, "tilec: error: %s: %s is %d", fn, count, n);
  else if (bad < 0) sb_printf(msg, "tilec: error: %s: %s is NULL, but %s is %d", fn, name, count, n);
  else sb_printf(msg, "tilec: error: %s: %s[%d] is NULL", fn, name, bad);
  return false;
}

/* What every entry point does first: the result for *out, and the checks
 * of its input (a source and options, a size it compiles, the options'
 * arrays). NULL when there is nothing more to do: *st says why, and so
 * does the result's diagnostics when there is a result. */
static tilec_result *begin(const char *fn, const char *filename, const char *source, size_t length,
                           const tilec_compile_options *o, tilec_result **out, tilec_status *st) {
  *st = TILEC_ERROR_USAGE;
  if (!out) return NULL;
  tilec_result *r = calloc(1, sizeof *r);
  *out = r;
  *st = TILEC_ERROR_NO_MEMORY;
  if (!r) return NULL;
  StrBuf msg = {0};
  if (!source || !o) {
    sb_printf(&msg, "tilec: error: %s needs a source and options\n", fn);
    r->diagnostics = msg.s;
    *st = r->diagnostics ? TILEC_ERROR_USAGE : TILEC_ERROR_NO_MEMORY;
    return NULL;
  }
  if (length > TILEC_MAX_SOURCE_BYTES) {
    sb_printf(&msg, "tilec: error: %s is %zu bytes; tilec compiles sources of at most %zu MiB\n",
              filename ? filename : "the source", length, TILEC_MAX_SOURCE_BYTES >> 20);
    r->diagnostics = msg.s;
    *st = r->diagnostics ? TILEC_ERROR_UNSUPPORTED : TILEC_ERROR_NO_MEMORY;
    return NULL;
  }
  if (!array_given(&msg, fn, "defines", "num_defines", o->defines, o->num_defines) ||
      !array_given(&msg, fn, "include_dirs", "num_include_dirs", o->include_dirs, o->num_include_dirs)) {
    *st = usage(r, &msg);
    return NULL;
  }
  return r;
}

static tilec_status compile_once(const char *filename, const char *source, size_t length,
                                 const tilec_compile_options *options, tilec_result **out, bool keep_operands, bool *again);

tilec_status tilec_compile(const char *filename, const char *source, size_t length,
                           const tilec_compile_options *options, tilec_result **out) {
  bool again = false;
  tilec_status s = compile_once(filename, source, length, options, out, false, &again);
  if (again) {
    /* the operands converted before their loops took more shared memory
     * than the target has: once more with them converted in the loops */
    tilec_result_destroy(*out);
    *out = NULL;
    s = compile_once(filename, source, length, options, out, true, &again);
  }
  return s;
}

tilec_status tilec_describe(const char *filename, const char *source, size_t length, const tilec_compile_options *options,
                            tilec_result **out) {
  tilec_status st;
  tilec_result *r = begin("tilec_describe", filename, source, length, options, out, &st);
  if (!r) return st;
  Arena *a = arena_create();
  Diags d = {0};
  Source src = {.name = filename ? filename : "<source>", .len = length};
  src.text = arena_strndup(a, source, length);
  StrBuf json = {0};
  TokenList toks;
  Module *m = lex_file(a, &d, &src, &toks) ? parse_module(a, &d, &src, &toks) : NULL;
  SpecOptions so = {.kernel = options->kernel, .path = src.name, .include_dirs = options->include_dirs,
                    .ninclude_dirs = options->num_include_dirs};
  bool ok = m && sema_describe(a, &d, types_create(a), m, &so, &json) && !d.errors;
  if (ok) {
    r->output = dup_text(json.s, json.len);
    r->output_len = json.len;
  }
  r->diagnostics = dup_text(d.out.s ? d.out.s : "", d.out.len);
  st = !r->diagnostics || (ok && !r->output) ? TILEC_ERROR_NO_MEMORY : ok ? TILEC_OK : TILEC_ERROR_COMPILE;
  sb_free(&json);
  sb_free(&d.out);
  arena_destroy(a);
  return st;
}

static tilec_status compile_once(const char *filename, const char *source, size_t length,
                                 const tilec_compile_options *options, tilec_result **out, bool keep_operands, bool *again) {
  tilec_status begun;
  tilec_result *r = begin("tilec_compile", filename, source, length, options, out, &begun);
  if (!r) return begun;
  const tilec_compile_options *o = options;
  StrBuf msg = {0};
  if (o->num_warps && !num_warps_valid(o->num_warps)) {
    sb_printf(&msg, "tilec: error: tilec_compile: num_warps is %d; it must be 0 (the config's, else 4) or a power of 2 "
                    "from 1 to 32", o->num_warps);
    return usage(r, &msg);
  }
  if (o->num_stages < 0) {
    sb_printf(&msg, "tilec: error: tilec_compile: num_stages is %d; it must be 0 (the config's, else 3) or more",
              o->num_stages);
    return usage(r, &msg);
  }
  if ((int)o->emit < TILEC_EMIT_AST || (int)o->emit > TILEC_EMIT_CPU) {
    sb_printf(&msg, "tilec: error: tilec_compile: emit %d is not an emit kind (TILEC_EMIT_AST to TILEC_EMIT_CPU)",
              (int)o->emit);
    return usage(r, &msg);
  }
  if (o->dump_after && !stage_named(o->dump_after)) {
    sb_printf(&msg, "tilec: error: no stage named '%s'; the stages are", o->dump_after);
    list_stages(&msg, BOTH);
    return usage(r, &msg);
  }
  const Stage *named = o->stop_after ? stage_named(o->stop_after) : NULL;
  if (o->stop_after && (!named || !named->paths)) {
    sb_printf(&msg, "tilec: error: no stage named '%s' to stop after; the stages are", o->stop_after);
    list_stages(&msg, BOTH);
    return usage(r, &msg);
  }
  const char *arch = o->arch ? o->arch : "sm_80";
  const Target *target = target_find(arch);
  if (!target) {
    sb_printf(&msg, "tilec: error: unknown target '%s'; the targets are", arch);
    for (int i = 0; i < ntargets; i++) sb_printf(&msg, "%s %s", i == 0 ? "" : i == ntargets - 1 ? " and" : ",", targets[i].name);
    return usage(r, &msg);
  }
  /* the CPU emulator's tail for its emit kind and for a stage only it has */
  int path = o->emit == TILEC_EMIT_CPU || (named && named->paths == CPU) ? CPU : GPU;

  StrBuf times = {0}, output = {0}, dump = {0};
  StageClock clock = {.out = o->time_stages ? &times : NULL, .mark = clock_ms()};
  double start = clock.mark;
  Arena *a = arena_create();
  Diags d = {0};
  Source src = {.name = filename ? filename : "<source>", .len = length};
  src.text = arena_strndup(a, source, length);
  Compilation comp = {
      .a = a,
      .d = &d,
      .src = &src,
      .target = target,
      .threads_per_warp = target->threads_per_warp,
      .clock = &clock,
      .dump_after = o->dump_after,
      .dump = &dump,
      .verify_each = o->verify_each != 0,
      .fp_fusion = tilec_fp_fusion_enabled(o->fp_fusion) != 0,
      .keep_operands = keep_operands,
  };
  Work w = {.o = o, .host = path == CPU};
  const Stage *stop = last_stage(o, path, &d);
  bool ok = stop != NULL;
  for (int i = 0; ok && i < NSTAGES; i++) {
    const Stage *st = &stages[i];
    if (!(st->paths & path)) continue;
    if (st->run == irgen) {
      /* from here on, MLIR: the context's diagnostics point into the source */
      comp.ic = o->context ? o->context->ic : ir_context_create();
      comp.cg = o->context ? o->context->cg : cg_cache_create();
      ir_capture_diagnostics(comp.ic, &d, &src, true);
    }
    ok = run_stage(&comp, st, &w, st == stop);
    if (ok && st == stop) {
      print_form(&output, st, &w);
      break;
    }
  }
  if (w.lm) LLVMDisposeModule(w.lm);
  if (w.lctx) LLVMContextDispose(w.lctx);
  if (!mlirModuleIsNull(w.llvm)) mlirModuleDestroy(w.llvm);
  if (!mlirModuleIsNull(w.tile)) mlirModuleDestroy(w.tile);
  if (comp.ic) {
    ir_capture_diagnostics(comp.ic, NULL, NULL, false);
    if (!o->context) {
      ir_context_destroy(comp.ic);
      cg_cache_destroy(comp.cg);
    }
  }
  tilec_status status = TILEC_ERROR_COMPILE;
  *again = !ok && comp.hoisted && comp.shared_overflow;
  if (ok) {
    r->output = dup_text(output.s ? output.s : "", output.len);
    r->output_len = output.len;
    status = TILEC_OK;
  }
  r->dump = dup_text(dump.s ? dump.s : "", dump.len);
  if (clock.out) {
    stage_time(&clock, "(the rest)");
    sb_printf(&times, "%-32s %8.3f ms\n", "total", clock.mark - start);
    r->times = times.s;
  }
  if (ok && w.meta.len) r->metadata = dup_text(w.meta.s, w.meta.len);
  const Kernel *k = w.k;
  if (k) {
    StrBuf deps = {0};
    for (int i = 0; i < k->deps.n; i++) {
      /* the hash of the text the compiler read, so that a file changed since cannot pass for it */
      const Module *dm = k->deps.v[i];
      CacheHash h;
      char hex[65];
      cache_hash_init(&h);
      cache_hash_update(&h, dm->src->text, dm->src->len);
      cache_hash_final(&h, hex);
      sb_printf(&deps, "%s %s\n", hex, dm->file);
    }
    r->deps = dup_text(deps.s ? deps.s : "", deps.len);
    sb_free(&deps);
  }
  r->diagnostics = dup_text(d.out.s ? d.out.s : "", d.out.len);
  /* a part of the result that could not be copied: the result is not there */
  if (!r->diagnostics || !r->dump || (ok && (!r->output || (w.meta.len && !r->metadata))) || (k && !r->deps))
    status = TILEC_ERROR_NO_MEMORY;
  sb_free(&output);
  sb_free(&dump);
  sb_free(&w.code);
  sb_free(&w.meta);
  sb_free(&d.out);
  arena_destroy(a);
  return status;
}

tilec_status tilec_opt(const char *filename, const char *ir, size_t length, const char *passes, int num_warps,
                       const char *arch, tilec_result **out) {
  if (!out) return TILEC_ERROR_USAGE;
  tilec_result *r = calloc(1, sizeof *r);
  *out = r;
  if (!r) return TILEC_ERROR_NO_MEMORY;
  Arena *a = arena_create();
  Diags d = {0};
  Source src = {.name = filename ? filename : "<ir>", .len = length};
  src.text = arena_strndup(a, ir ? ir : "", ir ? length : 0);
  tilec_status status = TILEC_ERROR_COMPILE;
  StrBuf sb = {0};
  const Target *target = target_find(arch ? arch : "sm_80");
  if (!target) {
    diag_plain_error(&d, "unknown target '%s'", arch);
    status = TILEC_ERROR_USAGE;
    goto done;
  }
  if (num_warps && !num_warps_valid(num_warps)) {
    diag_plain_error(&d, "tilec_opt: num_warps is %d; it must be 0 (for 4) or a power of 2 from 1 to 32", num_warps);
    status = TILEC_ERROR_USAGE;
    goto done;
  }
  /* the pass list is checked before any work: every stage that is a pass
   * on an MLIR module may run alone */
  const Stage *list[64];
  int n = 0;
  const char *p = passes ? passes : "";
  while (*p) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char *name = arena_strndup(a, p, len);
    const Stage *st = len ? stage_named(name) : NULL;
    if (!st || !st->pass || n == 64) {
      StrBuf why = {0};
      if (st && !st->pass) sb_printf(&why, "stage '%s' is not a pass on IR text; the passes are", name);
      else sb_printf(&why, "no pass named '%s'; the passes are", name);
      int shown = 0;
      for (int i = 0; i < NSTAGES; i++) {
        bool again = false;
        for (int j = 0; j < i; j++) again |= !strcmp(stages[j].name, stages[i].name);
        if (stages[i].pass && !again) sb_printf(&why, "%s %s", shown++ ? "," : "", stages[i].name);
      }
      diag_plain_error(&d, "%s", why.s);
      sb_free(&why);
      status = TILEC_ERROR_USAGE;
      goto done;
    }
    list[n++] = st;
    p = e ? e + 1 : p + len;
  }
  IrContext *ic = ir_context_create();
  ir_capture_diagnostics(ic, &d, &src, false);
  MlirModule mod = mlirModuleCreateParse(ir_mlir(ic), mlirStringRefCreate(src.text, src.len));
  bool ok = !mlirModuleIsNull(mod) && ir_verify(ic, mlirModuleGetOperation(mod), &d);
  Compilation comp = {.ic = ic, .a = a, .d = &d, .target = target, .num_warps = num_warps ? num_warps : 4,
                      .threads_per_warp = target->threads_per_warp};
  for (int i = 0; ok && i < n; i++) {
    ok = list[i]->pass(&comp, mlirModuleGetOperation(mod));
    if (!ok && !d.errors) diag_plain_error(&d, "pass '%s' failed", list[i]->name);
    if (ok && !ir_verify(ic, mlirModuleGetOperation(mod), &d)) {
      diag_plain_error(&d, "the IR does not verify after pass '%s'", list[i]->name);
      ok = false;
    }
  }
  if (ok) {
    ir_print(&sb, mlirModuleGetOperation(mod), false);
    r->output = dup_text(sb.s, sb.len);
    r->output_len = sb.len;
    status = TILEC_OK;
  }
  if (!mlirModuleIsNull(mod)) mlirModuleDestroy(mod);
  ir_context_destroy(ic);
done:
  r->diagnostics = dup_text(d.out.s ? d.out.s : "", d.out.len);
  if (!r->diagnostics || (status == TILEC_OK && !r->output)) status = TILEC_ERROR_NO_MEMORY;
  sb_free(&sb);
  sb_free(&d.out);
  arena_destroy(a);
  return status;
}

const char *tilec_result_output(const tilec_result *r, size_t *length) {
  if (length) *length = r && r->output ? r->output_len : 0;
  return r ? r->output : NULL;
}

const char *tilec_result_dump(const tilec_result *r) { return r && r->dump ? r->dump : ""; }

const char *tilec_result_times(const tilec_result *r) { return r && r->times ? r->times : ""; }

const char *tilec_result_metadata(const tilec_result *r) { return r ? r->metadata : NULL; }

const char *tilec_result_dependencies(const tilec_result *r) { return r && r->deps ? r->deps : ""; }

const char *tilec_result_diagnostics(const tilec_result *r) {
  return r && r->diagnostics ? r->diagnostics : "";
}

void tilec_result_destroy(tilec_result *r) {
  if (!r) return;
  free(r->output);
  free(r->metadata);
  free(r->dump);
  free(r->times);
  free(r->diagnostics);
  free(r->deps);
  free(r);
}
