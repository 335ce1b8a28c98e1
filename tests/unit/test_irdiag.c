/* test_irdiag.c — MLIR's diagnostics as the user sees them: IR that tilec
 * made from a kernel and MLIR's verifier rejects is an internal error at
 * the kernel line it came from; IR text the user gave (tilec opt) is the
 * user's error; and tilec's own passes' messages stay errors. */
#include "ir/ir.h"
#include "support/support.h"
#include "unit.h"

#include <mlir-c/IR.h>

/* A function whose llvm.mul mixes i32 and i64 (what an i64 loop's step
 * times an i32 constant was), located at line 7, column 5 of k.py. */
static const char *bad_ir =
    "module {\n"
    "  llvm.func @f(%a: i64, %b: i32) -> i64 {\n"
    "    %0 = \"llvm.mul\"(%a, %b) : (i64, i32) -> i64 loc(\"k.py\":7:5)\n"
    "    llvm.return %0 : i64\n"
    "  }\n"
    "}\n";

static const char *parse_with(bool internal, const char *name, Diags *d) {
  static const char text[] = "\n\n\n\n\n\nfor start in range(lo, hi, BLOCK):\n";
  Source src = {.name = name, .text = text, .len = sizeof text - 1};
  IrContext *ic = ir_context_create();
  ir_capture_diagnostics(ic, d, &src, internal);
  MlirModule m = mlirModuleCreateParse(ir_mlir(ic), mlirStringRefCreateFromCString(bad_ir));
  CHECK(mlirModuleIsNull(m));
  if (!mlirModuleIsNull(m)) mlirModuleDestroy(m);
  ir_capture_diagnostics(ic, NULL, NULL, false);
  ir_context_destroy(ic);
  return d->out.s;
}

int unit_main(void) {
  Diags kernel = {0}, text = {0};
  const char *k = parse_with(true, "k.py", &kernel);
  CHECK_CONTAINS(k, "k.py:7:5: internal error: 'llvm.mul' op requires the same type for all operands and results");
  CHECK_CONTAINS(k, "please report it");
  CHECK_CONTAINS(k, "for start in range(lo, hi, BLOCK):");
  CHECK(kernel.errors == 1);
  const char *t = parse_with(false, "k.py", &text);
  CHECK_CONTAINS(t, "k.py:7:5: error: 'llvm.mul' op requires the same type");
  CHECK(!strstr(t ? t : "", "internal error"));
  sb_free(&kernel.out);
  sb_free(&text.out);
  return 0;
}
