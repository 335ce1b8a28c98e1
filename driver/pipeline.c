/*
 * pipeline.c — the one function that lists every stage, in order.
 *
 *   source --lex--> tokens --parse--> AST --sema--> typed AST
 *     --irgen--> tile IR --canonicalize, cse, dce, licm-->
 *     --convert-to-gpu, coalesce, remove-layout-conversions--> tile IR with layouts
 *     --canonicalize, cse, dce--> tile-gpu
 *
 * The IR is verified after every pass (MLIR's verifier and the tile
 * verifier), so a pass that breaks it is caught where it did.
 */
#include "tilec/tilec.h"

#include "build_id.h" /* generated: TILEC_BUILD_ID (driver/build_id.c) */

#include <stdlib.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/IR.h>

#include "ir/irgen.h"
#include "runtime/cache.h"
#include "ir/ir.h"
#include "codegen/codegen.h"
#include "passes/passes.h"

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

static char *dup_text(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (!p) return NULL;
  if (n) memcpy(p, s, n);
  p[n] = 0;
  return p;
}

/* Runs a pass; verifies the IR after it when asked, and always before
 * dumping it. */
static bool run_pass(Compilation *comp, const Pass *p, MlirOperation m, bool verify, const char *dump_after, StrBuf *dump) {
  if (!p->run(comp, m)) {
    if (!comp->d->errors) diag_plain_error(comp->d, "pass '%s' failed", p->name);
    return false;
  }
  stage_time(comp->clock, "pass %s", p->name);
  bool dumped = dump_after && !strcmp(dump_after, p->name);
  if ((verify || dumped) && !ir_verify(comp->ic, m, comp->d)) {
    diag_plain_error(comp->d, "the IR does not verify after pass '%s'", p->name);
    return false;
  }
  if (verify || dumped) stage_time(comp->clock, "verify");
  if (dumped) ir_print(dump, m, false);
  return true;
}

/* What the runtime needs beside the PTX, as JSON: the entry name, launch
 * shape and the parameters in order. lowered_hash: the GPU and the CPU
 * emulator start from the same lowered kernel, and the metadata of each
 * says which. */
static void kernel_metadata(StrBuf *sb, IrContext *ic, const Kernel *k, const char *arch, MlirOperation llvm_module) {
  uint64_t hash = ir_hash(ic, llvm_module);
  int64_t shared = 0;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(llvm_module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("tilec.shared_bytes"));
    if (!mlirAttributeIsNull(a)) shared = mlirIntegerAttrGetValueInt(a);
  }
  sb_printf(sb, "{\n  \"name\": \"%s\",\n  \"arch\": \"%s\",\n  \"num_warps\": %d,\n  \"num_stages\": %d,\n"
                "  \"shared_bytes\": %lld,\n  \"params\": [",
            k->name, arch, k->num_warps, k->num_stages, (long long)shared);
  for (int i = 0; i < k->params.n; i++) {
    const Var *v = k->params.v[i];
    const SigEntry *e = k->param_sigs.v[i];
    sb_printf(sb, "%s\n    {\"name\": \"%s\", \"type\": \"", i ? "," : "", v->name);
    ty_print(sb, k->param_types.v[i]);
    sb_printf(sb, "\", \"divisibility\": %d}", e->divisibility);
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
  /* @triton.autotune: how many configs, the one taken, the key's parameters,
   * those tuning zeroes before each run and those it restores after */
  sb_printf(sb, "},\n  \"autotune\": {\"configs\": %d, \"config\": %d", k->nconfigs, k->config);
  const PtrVec *lists[3] = {&k->autotune_keys, &k->autotune_reset, &k->autotune_restore};
  static const char *const names[3] = {"key", "reset", "restore"};
  for (int l = 0; l < 3; l++) {
    sb_printf(sb, ", \"%s\": [", names[l]);
    for (int i = 0; i < lists[l]->n; i++) sb_printf(sb, "%s\"%s\"", i ? ", " : "", (const char *)lists[l]->v[i]);
    sb_putc(sb, ']');
  }
  sb_printf(sb, "},\n  \"lowered_hash\": \"%016llx\"\n}\n", (unsigned long long)hash);
}

/* The passes from tile IR to tile IR with layouts, in order. The IR is
 * verified after the last (after each with verify_each). */
static bool tile_to_gpu(Compilation *comp, MlirOperation m, bool verify_each, const char *dump_after, StrBuf *dump) {
  static const char *const order[] = {
      "canonicalize", "cse", "dce", "licm",                          /* clean-up */
      "convert-to-gpu", "coalesce", "remove-layout-conversions",      /* layouts */
      "canonicalize", "cse", "dce",                                   /* clean-up */
  };
  size_t n = sizeof order / sizeof *order;
  for (size_t i = 0; i < n; i++)
    if (!run_pass(comp, pass_find(order[i]), m, verify_each || i == n - 1, dump_after, dump)) return false;
  return true;
}

tilec_status tilec_compile(const char *filename, const char *source, size_t length,
                           const tilec_compile_options *options, tilec_result **out) {
  if (!out) return TILEC_ERROR_USAGE;
  tilec_result *r = calloc(1, sizeof *r);
  *out = r;
  if (!r) return TILEC_ERROR_NO_MEMORY;
  if (!source || !options) {
    r->diagnostics = dup_text("tilec: error: tilec_compile needs a source and options\n", 56);
    return r->diagnostics ? TILEC_ERROR_USAGE : TILEC_ERROR_NO_MEMORY;
  }
  if (options->dump_after && !pass_find(options->dump_after)) {
    StrBuf sb = {0};
    sb_printf(&sb, "tilec: error: no pass named '%s'; the passes are", options->dump_after);
    for (const Pass *p = pass_list; p->name; p++) sb_printf(&sb, " %s", p->name);
    sb_putc(&sb, '\n');
    r->diagnostics = sb.s;
    return TILEC_ERROR_USAGE;
  }
  const char *arch = options->arch ? options->arch : "sm_80";
  if (!cg_target_find(arch)) {
    StrBuf sb = {0};
    sb_printf(&sb, "tilec: error: unknown target '%s'; the targets are", arch);
    for (int i = 0; i < cg_ntargets; i++)
      sb_printf(&sb, "%s %s", i == 0 ? "" : i == cg_ntargets - 1 ? " and" : ",", cg_targets[i].name);
    sb_putc(&sb, '\n');
    r->diagnostics = sb.s;
    return TILEC_ERROR_USAGE;
  }
  StrBuf times = {0};
  StageClock clock = {.out = options->time_stages ? &times : NULL, .mark = clock_ms()};
  double start = clock.mark;
  Arena *a = arena_create();
  Diags d = {0};
  Source src = {.name = filename ? filename : "<source>", .len = length};
  src.text = arena_strndup(a, source, length);

  TokenList toks;
  Module *m = NULL;
  Kernel *k = NULL;
  if (lex_file(a, &d, &src, &toks)) m = parse_module(a, &d, &src, &toks);
  if (m) {
    TypeCache *tc = types_create(a);
    SpecOptions so = {
        .kernel = options->kernel,
        .signature = options->signature,
        .defines = (const char **)options->defines,
        .ndefines = options->num_defines,
        .num_warps = options->num_warps,
        .num_stages = options->num_stages,
        .config = options->config,
        .path = filename,
        .include_dirs = options->include_dirs,
        .ninclude_dirs = options->num_include_dirs,
    };
    k = sema_kernel(a, &d, tc, m, &so);
  }
  StrBuf sb = {0}, dump = {0}, dump_ptx = {0}, meta = {0};
  bool ok = k && d.errors == 0;
  stage_time(&clock, "frontend");
  if (ok && options->emit == TILEC_EMIT_AST) ast_print_kernel(&sb, k);
  if (ok && options->emit != TILEC_EMIT_AST) {
    IrContext *ic = options->context ? options->context->ic : ir_context_create();
    ir_capture_diagnostics(ic, &d, &src);
    MlirModule mod = irgen_kernel(ic, a, &d, k);
    ok = !mlirModuleIsNull(mod) && ir_verify(ic, mlirModuleGetOperation(mod), &d);
    stage_time(&clock, "irgen");
    if (ok) {
      /* the target rides on the kernel for the passes and codegen that depend on it */
      MlirOperation fn = mlirBlockGetFirstOperation(mlirModuleGetBody(mod));
      mlirOperationSetAttributeByName(fn, mlirStringRefCreateFromCString("tile.target"),
                                      mlirStringAttrGet(ir_mlir(ic), mlirStringRefCreateFromCString(arch)));
    }
    CgCache *cg = options->context ? options->context->cg : cg_cache_create();
    Compilation comp = {.ic = ic, .a = a, .d = &d, .num_warps = k->num_warps, .threads_per_warp = 32, .cg = cg, .clock = &clock};
    if (ok && options->emit >= TILEC_EMIT_TILE_GPU) ok = tile_to_gpu(&comp, mlirModuleGetOperation(mod), options->verify_each, options->dump_after, &dump);
    if (ok && options->emit <= TILEC_EMIT_TILE_GPU) ir_print(&sb, mlirModuleGetOperation(mod), options->emit == TILEC_EMIT_TILE);
    if (ok && options->emit >= TILEC_EMIT_LLVM_MLIR) {
      /* codegen: per-thread LLVM/NVVM dialect, then LLVM IR, then PTX */
      MlirModule llvm = cg_lower(&comp, mlirModuleGetOperation(mod), arch);
      ok = !mlirModuleIsNull(llvm);
      stage_time(&clock, "lower");
      if (ok) kernel_metadata(&meta, ic, k, arch, mlirModuleGetOperation(llvm));
      stage_time(&clock, "metadata");
      if (ok && options->emit == TILEC_EMIT_LLVM_MLIR) ir_print(&sb, mlirModuleGetOperation(llvm), false);
      if (ok && options->emit == TILEC_EMIT_CPU) ok = cg_emit_cpu(&comp, mlirModuleGetOperation(llvm), &sb);
      if (ok && options->emit > TILEC_EMIT_LLVM_MLIR && options->emit != TILEC_EMIT_CPU) {
        StrBuf *text = options->emit == TILEC_EMIT_CUBIN ? &dump_ptx : &sb;
        ok = cg_expand_for_gpu(&comp, mlirModuleGetOperation(llvm), arch);
        stage_time(&clock, "expand for the GPU");
        ok = ok && cg_emit(&comp, mlirModuleGetOperation(llvm), arch, options->emit == TILEC_EMIT_LLVM, text);
        if (ok && options->emit == TILEC_EMIT_CUBIN) ok = cg_cubin(&comp, dump_ptx.s, dump_ptx.len, arch, &sb);
        if (options->emit == TILEC_EMIT_CUBIN) stage_time(&clock, "cubin");
      }
      if (!mlirModuleIsNull(llvm)) mlirModuleDestroy(llvm);
    }
    if (!mlirModuleIsNull(mod)) mlirModuleDestroy(mod);
    ir_capture_diagnostics(ic, NULL, NULL);
    if (!options->context) {
      ir_context_destroy(ic);
      cg_cache_destroy(cg);
    }
  }
  tilec_status status = TILEC_ERROR_COMPILE;
  if (ok) {
    r->output = dup_text(sb.s ? sb.s : "", sb.len);
    r->output_len = sb.len;
    status = TILEC_OK;
  }
  r->dump = dup_text(dump.s ? dump.s : "", dump.len);
  if (clock.out) {
    stage_time(&clock, "(the rest)");
    sb_printf(&times, "%-32s %8.3f ms\n", "total", clock.mark - start);
    r->times = times.s;
  }
  if (ok && meta.len) r->metadata = dup_text(meta.s, meta.len);
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
  if (!r->diagnostics || !r->dump || (ok && (!r->output || (meta.len && !r->metadata))) || (k && !r->deps))
    status = TILEC_ERROR_NO_MEMORY;
  sb_free(&sb);
  sb_free(&dump);
  sb_free(&dump_ptx);
  sb_free(&meta);
  sb_free(&d.out);
  arena_destroy(a);
  return status;
}

tilec_status tilec_opt(const char *filename, const char *ir, size_t length, const char *passes, int num_warps,
                       tilec_result **out) {
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
  /* the pass list is checked before any work */
  const Pass *list[64];
  int n = 0;
  const char *p = passes ? passes : "";
  while (*p) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char *name = arena_strndup(a, p, len);
    const Pass *ps = len ? pass_find(name) : NULL;
    if (!ps || n == 64) {
      diag_plain_error(&d, "no pass named '%s'", name);
      status = TILEC_ERROR_USAGE;
      goto done;
    }
    list[n++] = ps;
    p = e ? e + 1 : p + len;
  }
  IrContext *ic = ir_context_create();
  ir_capture_diagnostics(ic, &d, &src);
  MlirModule mod = mlirModuleCreateParse(ir_mlir(ic), mlirStringRefCreate(src.text, src.len));
  bool ok = !mlirModuleIsNull(mod) && ir_verify(ic, mlirModuleGetOperation(mod), &d);
  Compilation comp = {.ic = ic, .a = a, .d = &d, .num_warps = num_warps ? num_warps : 4, .threads_per_warp = 32};
  for (int i = 0; ok && i < n; i++) ok = run_pass(&comp, list[i], mlirModuleGetOperation(mod), true, NULL, NULL);
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
