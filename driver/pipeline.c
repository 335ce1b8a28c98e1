/*
 * pipeline.c — the one function that lists every stage, in order.
 *
 *   source --lex--> tokens --parse--> AST --sema--> typed AST
 *          --irgen--> tile IR --verify-->
 *
 * Later stages (tile IR, passes, codegen) are added here, in plain calls, so
 * that a reader sees the whole compiler in one screen.
 */
#include "tilec/tilec.h"

#include <stdlib.h>
#include <string.h>

#include "../frontend/frontend.h"
#include "../ir/ir.h"

struct tilec_result {
  char *output;
  size_t output_len;
  char *diagnostics;
};

const char *tilec_version(void) { return TILEC_VERSION; }

static char *dup_text(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (!p) return NULL;
  if (n) memcpy(p, s, n);
  p[n] = 0;
  return p;
}

tilec_status tilec_compile(const char *filename, const char *source, size_t length,
                           const tilec_compile_options *options, tilec_result **out) {
  if (!out) return TILEC_ERROR_USAGE;
  tilec_result *r = calloc(1, sizeof *r);
  *out = r;
  if (!r) return TILEC_ERROR_USAGE;
  if (!source || !options) {
    r->diagnostics = dup_text("tilec: error: tilec_compile needs a source and options\n", 56);
    return TILEC_ERROR_USAGE;
  }
  Arena *a = arena_create();
  Diags d = {0};
  Source src = {.name = filename ? filename : "<source>", .len = length};
  src.text = arena_strndup(a, source, length);
  tilec_status status = TILEC_ERROR_COMPILE;

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
    };
    k = sema_kernel(a, &d, tc, m, &so);
  }
  StrBuf sb = {0};
  bool ok = k && d.errors == 0;
  if (ok && options->emit == TILEC_EMIT_AST) ast_print_kernel(&sb, k);
  if (ok && options->emit == TILEC_EMIT_TILE) {
    IrContext *ic = ir_context_create();
    ir_capture_diagnostics(ic, &d, &src);
    MlirModule mod = irgen_kernel(ic, a, &d, k);
    ok = !mlirModuleIsNull(mod) && ir_verify(ic, mlirModuleGetOperation(mod), &d);
    if (!mlirModuleIsNull(mod)) {
      if (ok) ir_print(&sb, mlirModuleGetOperation(mod), true);
      mlirModuleDestroy(mod);
    }
    ir_context_destroy(ic);
  }
  if (ok) {
    r->output = dup_text(sb.s ? sb.s : "", sb.len);
    r->output_len = sb.len;
    status = TILEC_OK;
  }
  sb_free(&sb);
  r->diagnostics = dup_text(d.out.s ? d.out.s : "", d.out.len);
  sb_free(&d.out);
  arena_destroy(a);
  return status;
}

const char *tilec_result_output(const tilec_result *r, size_t *length) {
  if (length) *length = r && r->output ? r->output_len : 0;
  return r ? r->output : NULL;
}

const char *tilec_result_diagnostics(const tilec_result *r) {
  return r && r->diagnostics ? r->diagnostics : "";
}

void tilec_result_destroy(tilec_result *r) {
  if (!r) return;
  free(r->output);
  free(r->diagnostics);
  free(r);
}
