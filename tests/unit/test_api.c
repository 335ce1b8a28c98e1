/* test_api.c — the public C API: results, diagnostics, misuse. */
#include <stdlib.h>
#include <string.h>

#include "tilec/tilec.h"
#include "unit.h"

static const char src[] =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def add(x, y, n, B: tl.constexpr):\n"
    "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
    "    tl.store(y + o, tl.load(x + o, mask=o < n), mask=o < n)\n";

static const char dot_src[] =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def mm(a, c):\n"
    "    r = tl.arange(0, 256)\n"
    "    x = tl.load(a + r[:, None] * 256 + r[None, :])\n"
    "    tl.store(c + r[:, None] * 256 + r[None, :], tl.dot(x, x))\n";

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

  /* a reused context gives the same PTX as a fresh one, also after an
   * error in an earlier compilation with it, and between compilations for
   * other targets (the context keeps a target machine for each) */
  o.kernel = NULL;
  o.signature = "*fp32:16, *fp32:16, i32, 256";
  o.emit = TILEC_EMIT_PTX;
  CHECK(tilec_compile("add.py", src, sizeof src - 1, &o, &r) == TILEC_OK);
  char *fresh = strdup(tilec_result_output(r, NULL));
  tilec_result_destroy(r);
  o.arch = "sm_90a";
  CHECK(tilec_compile("add.py", src, sizeof src - 1, &o, &r) == TILEC_OK);
  char *fresh90 = strdup(tilec_result_output(r, NULL));
  tilec_result_destroy(r);
  o.emit = TILEC_EMIT_CPU;
  CHECK(tilec_compile("add.py", src, sizeof src - 1, &o, &r) == TILEC_OK);
  /* the host object: binary, NULs in it */
  size_t cpu_len = 0;
  const char *cpu = tilec_result_output(r, &cpu_len);
  CHECK(cpu_len > 64 && !memcmp(cpu, "\x7f" "ELF", 4));
  char *fresh_cpu = malloc(cpu_len);
  memcpy(fresh_cpu, cpu, cpu_len);
  tilec_result_destroy(r);
  o.arch = NULL;
  o.emit = TILEC_EMIT_PTX;
  CHECK(strcmp(fresh, fresh90) != 0);
  tilec_context *ctx = NULL;
  CHECK(tilec_context_create(&ctx) == TILEC_OK && ctx);
  o.context = ctx;
  for (int i = 0; i < 3; i++) {
    CHECK(tilec_compile("add.py", src, sizeof src - 1, &o, &r) == TILEC_OK);
    CHECK_STR(tilec_result_output(r, NULL), fresh);
    tilec_result_destroy(r);
    o.arch = "sm_90a";
    CHECK(tilec_compile("add.py", src, sizeof src - 1, &o, &r) == TILEC_OK);
    CHECK_STR(tilec_result_output(r, NULL), fresh90);
    tilec_result_destroy(r);
    o.emit = TILEC_EMIT_CPU;
    CHECK(tilec_compile("add.py", src, sizeof src - 1, &o, &r) == TILEC_OK);
    size_t again_len = 0;
    const char *again = tilec_result_output(r, &again_len);
    CHECK(again_len == cpu_len && !memcmp(again, fresh_cpu, again_len));
    tilec_result_destroy(r);
    o.arch = NULL;
    o.emit = TILEC_EMIT_PTX;
    o.signature = "*fp32:16, *fp32:16, i32";
    CHECK(tilec_compile("add.py", src, sizeof src - 1, &o, &r) == TILEC_ERROR_COMPILE);
    tilec_result_destroy(r);
    /* an error found in the code generator, with the context's MLIR */
    o.signature = "*fp32:16, *fp32:16";
    CHECK(tilec_compile("dot.py", dot_src, sizeof dot_src - 1, &o, &r) == TILEC_ERROR_COMPILE);
    CHECK_CONTAINS(tilec_result_diagnostics(r), "dot.py:4:5: error: kernel 'mm' needs 532480 bytes of shared memory per block");
    tilec_result_destroy(r);
    o.signature = "*fp32:16, *fp32:16, i32, 256";
  }
  tilec_context_destroy(ctx);
  o.context = NULL;

  /* stop after any stage: its IR is the output */
  o.stop_after = "lower";
  CHECK(tilec_compile("add.py", src, sizeof src - 1, &o, &r) == TILEC_OK);
  CHECK_CONTAINS(tilec_result_output(r, NULL), "llvm.func @add(");
  CHECK(strstr(tilec_result_output(r, NULL), "nvvm.barrier0") == NULL);
  CHECK(tilec_result_metadata(r) == NULL); /* the metadata stage comes later */
  tilec_result_destroy(r);
  o.stop_after = "retarget-host"; /* the CPU emulator's tail, whatever emit says */
  CHECK(tilec_compile("add.py", src, sizeof src - 1, &o, &r) == TILEC_OK);
  CHECK_CONTAINS(tilec_result_output(r, NULL), "@tilec_emu_entry");
  CHECK(tilec_result_metadata(r) != NULL);
  tilec_result_destroy(r);
  o.stop_after = "vectorize";
  CHECK(tilec_compile("add.py", src, sizeof src - 1, &o, &r) == TILEC_ERROR_USAGE);
  CHECK_CONTAINS(tilec_result_diagnostics(r), "no stage named 'vectorize' to stop after; the stages are frontend, irgen,");
  tilec_result_destroy(r);
  o.stop_after = "axis-info"; /* a pass for tilec_opt only */
  CHECK(tilec_compile("add.py", src, sizeof src - 1, &o, &r) == TILEC_ERROR_USAGE);
  tilec_result_destroy(r);
  o.stop_after = NULL;
  const char *const *stages = tilec_stages();
  int nstages = 0;
  while (stages[nstages]) nstages++;
  CHECK(nstages > 20 && !strcmp(stages[0], "frontend") && !strcmp(stages[nstages - 1], "host-object"));

  /* passes on IR text: allocate-shared needs a kernel; an unknown pass or
   * target is a usage error before any work */
  CHECK(tilec_opt("k.mlir", "module {}", 9, "allocate-shared", 0, NULL, &r) == TILEC_ERROR_COMPILE);
  CHECK_CONTAINS(tilec_result_diagnostics(r), "allocate-shared: the module has no kernel");
  tilec_result_destroy(r);
  CHECK(tilec_opt("k.mlir", "module {}", 9, "lower", 0, NULL, &r) == TILEC_ERROR_USAGE);
  CHECK_CONTAINS(tilec_result_diagnostics(r), "stage 'lower' is not a pass on IR text; the passes are tma-lowering, rewrite-block-pointers, canonicalize,");
  tilec_result_destroy(r);
  CHECK(tilec_opt("k.mlir", "module {}", 9, "cse", 0, "sm_70", &r) == TILEC_ERROR_USAGE);
  CHECK_CONTAINS(tilec_result_diagnostics(r), "unknown target 'sm_70'");
  tilec_result_destroy(r);
  tilec_context_destroy(NULL);
  CHECK(tilec_context_create(NULL) == TILEC_ERROR_USAGE);
  free(fresh);
  free(fresh90);
  free(fresh_cpu);
  return 0;
}
