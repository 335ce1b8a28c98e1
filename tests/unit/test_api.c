/* test_api.c — the public C API: results, diagnostics, misuse. */
#include <stdlib.h>

#include "tilec/tilec.h"
#include "unit.h"

static const char src[] =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def add(x, y, n, B: tl.constexpr):\n"
    "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
    "    tl.store(y + o, tl.load(x + o, mask=o < n), mask=o < n)\n";

int unit_main(void) {
  CHECK_STR(tilec_version(), TILEC_VERSION);

  tilec_compile_options o = {.signature = "*fp32:16, *fp32:16, i32, 256"};
  tilec_result *r = NULL;
  CHECK(tilec_compile("add.py", src, sizeof src - 1, &o, &r) == TILEC_OK);
  size_t n = 0;
  CHECK_CONTAINS(tilec_result_output(r, &n), "kernel add(x: *fp32 :16, y: *fp32 :16, n: i32)");
  CHECK(n > 0);
  CHECK_STR(tilec_result_diagnostics(r), "");
  tilec_result_destroy(r);

  /* a compile error: no output, diagnostics with position and caret */
  o.signature = "*fp32:16, *fp32:16, i32";
  CHECK(tilec_compile("add.py", src, sizeof src - 1, &o, &r) == TILEC_ERROR_COMPILE);
  CHECK(tilec_result_output(r, &n) == NULL && n == 0);
  CHECK_CONTAINS(tilec_result_diagnostics(r), "add.py:4:5: error: the signature has 3 entries but kernel 'add' needs 4 (x, y, n, B)");
  CHECK_CONTAINS(tilec_result_diagnostics(r), "    ^\n");
  tilec_result_destroy(r);

  /* misuse */
  CHECK(tilec_compile("x.py", NULL, 0, &o, &r) == TILEC_ERROR_USAGE);
  CHECK_CONTAINS(tilec_result_diagnostics(r), "needs a source");
  tilec_result_destroy(r);
  CHECK(tilec_compile("x.py", src, sizeof src - 1, NULL, &r) == TILEC_ERROR_USAGE);
  tilec_result_destroy(r);
  CHECK(tilec_compile("x.py", src, sizeof src - 1, &o, NULL) == TILEC_ERROR_USAGE);
  tilec_result_destroy(NULL);
  CHECK(tilec_result_output(NULL, &n) == NULL);
  CHECK_STR(tilec_result_diagnostics(NULL), "");

  /* unknown kernel name lists the kernels */
  o.signature = "*fp32, *fp32, i32, 64";
  o.kernel = "nope";
  CHECK(tilec_compile("add.py", src, sizeof src - 1, &o, &r) == TILEC_ERROR_COMPILE);
  CHECK_CONTAINS(tilec_result_diagnostics(r), "no @triton.jit function named 'nope'; the file has 'add'");
  tilec_result_destroy(r);
  return 0;
}
