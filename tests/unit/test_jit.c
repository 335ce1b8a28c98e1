/* test_jit.c — the JIT C API on the CPU device: specializations, misuse,
 * what the emulator's checks say through a launch, the CUDA device failing
 * cleanly without a driver. */
#include <stdlib.h>
#include <string.h>

#include "tilec/tilec.h"
#include "unit.h"

static const char src[] = "import triton\n"
                          "import triton.language as tl\n"
                          "@triton.jit\n"
                          "def scale(x, y, n, s, B: tl.constexpr):\n"
                          "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
                          "    tl.store(y + o, tl.load(x + o, mask=o < n) * s, mask=o < n)\n";

int unit_main(void) {
  /* devices */
  tilec_device *cpu = NULL, *none = NULL;
  char *why = NULL;
  CHECK(tilec_device_create(TILEC_DEVICE_CPU, &cpu, &why) == TILEC_OK && cpu);
  CHECK(tilec_device_kind_of(cpu) == TILEC_DEVICE_CPU);
  CHECK(tilec_device_create(TILEC_DEVICE_CPU, NULL, NULL) == TILEC_ERROR_USAGE);
  if (!getenv("TILEC_TEST_HAS_GPU")) {
    /* without a driver the CUDA device says so, and AUTO falls back to the CPU */
    CHECK(tilec_device_create(TILEC_DEVICE_CUDA, &none, &why) == TILEC_ERROR_UNSUPPORTED && !none);
    CHECK_CONTAINS(why, "no CUDA device");
    free(why);
    why = NULL;
    setenv("TILEC_DEVICE", "gpu", 1);
    CHECK(tilec_device_create(TILEC_DEVICE_AUTO, &none, &why) == TILEC_ERROR_USAGE);
    CHECK_CONTAINS(why, "TILEC_DEVICE must be cpu, cuda or auto, not 'gpu'");
    free(why);
    why = NULL;
    unsetenv("TILEC_DEVICE");
    CHECK(tilec_device_create(TILEC_DEVICE_AUTO, &none, &why) == TILEC_OK && tilec_device_kind_of(none) == TILEC_DEVICE_CPU);
    tilec_device_destroy(none);
  }
  tilec_device_destroy(NULL);

  /* memory */
  unsigned long long x, y;
  CHECK(tilec_device_alloc(cpu, 1000 * 4, &x) == TILEC_OK && x % 16 == 0);
  CHECK(tilec_device_alloc(cpu, 1000 * 4, &y) == TILEC_OK);
  float host[1000];
  for (int i = 0; i < 1000; i++) host[i] = (float)i;
  CHECK(tilec_device_copy_to(cpu, x, host, sizeof host) == TILEC_OK);
  CHECK(tilec_device_copy_to(cpu, x + 4, host, sizeof host) == TILEC_ERROR_USAGE); /* past the end */
  CHECK(tilec_device_copy_to(cpu, 16, host, 4) == TILEC_ERROR_USAGE);             /* not an allocation */
  CHECK(tilec_device_free(cpu, 12345) == TILEC_ERROR_USAGE);

  /* a kernel: its hints come from the arguments */
  tilec_jit_options o = {.signature = "*fp32, *fp32, i32, fp32, 256", .no_disk_cache = 1};
  tilec_kernel *k = NULL;
  char *diag = NULL;
  CHECK(tilec_kernel_create(cpu, "scale.py", src, sizeof src - 1, &o, &k, &diag) == TILEC_OK && k);
  CHECK(tilec_kernel_specializations(k) == 1);
  unsigned grid[3] = {4, 1, 1};
  char *report = NULL;
  CHECK(tilec_kernel_launchv(k, grid, NULL, &report, x, y, 1000, 2.5) == TILEC_OK);
  CHECK(tilec_kernel_specializations(k) == 2); /* aligned pointers; 1000 is not a multiple of 16 */
  float out[1000];
  CHECK(tilec_device_copy_from(cpu, out, y, sizeof out) == TILEC_OK);
  int wrong = 0;
  for (int i = 0; i < 1000; i++) wrong += out[i] != 2.5f * i;
  CHECK(wrong == 0);
  /* the same hints again: no new specialization; others: one each */
  CHECK(tilec_kernel_launchv(k, grid, NULL, &report, x, y, 999, 1.0) == TILEC_OK);
  CHECK(tilec_kernel_specializations(k) == 2);
  CHECK(tilec_kernel_launchv(k, grid, NULL, &report, x, y, 992, 1.0) == TILEC_OK); /* n % 16 == 0 */
  CHECK(tilec_kernel_specializations(k) == 3);
  CHECK(tilec_kernel_launchv(k, grid, NULL, &report, x + 4, y, 999, 1.0) == TILEC_OK); /* x unaligned */
  CHECK(tilec_kernel_specializations(k) == 4);
  CHECK(tilec_kernel_launchv(k, grid, NULL, &report, x, y, 1, 1.0) == TILEC_OK); /* n == 1 */
  CHECK(tilec_kernel_specializations(k) == 5);
  CHECK(tilec_device_copy_from(cpu, out, y, 8) == TILEC_OK && out[0] == 0.0f);

  /* the emulator's checks come back as the report: n larger than the buffers */
  CHECK(tilec_kernel_launchv(k, grid, NULL, &report, x, y, 1024, 1.0) != TILEC_OK);
  CHECK_CONTAINS(report, "scale.py:6:5: out-of-bounds store");
  free(report);
  report = NULL;

  /* misuse */
  void *args[2] = {&x, &y};
  CHECK(tilec_kernel_launch(k, grid, args, 2, NULL, &report) == TILEC_ERROR_USAGE);
  CHECK_CONTAINS(report, "scale takes 4 runtime arguments, got 2");
  free(report);
  unsigned zero[3] = {0, 1, 1};
  int n = 10;
  float s = 1;
  void *four[4] = {&x, &y, &n, &s};
  CHECK(tilec_kernel_launch(k, zero, four, 4, NULL, &report) == TILEC_ERROR_USAGE);
  CHECK_CONTAINS(report, "every grid dimension must be at least 1");
  free(report);
  CHECK(tilec_kernel_launch(NULL, grid, four, 4, NULL, NULL) == TILEC_ERROR_USAGE);
  tilec_kernel_destroy(k);
  tilec_kernel_destroy(NULL);

  /* the JIT adds the hints itself; compile errors come back as diagnostics */
  o.signature = "*fp32:16, *fp32, i32, fp32, 256";
  CHECK(tilec_kernel_create(cpu, "scale.py", src, sizeof src - 1, &o, &k, &diag) == TILEC_ERROR_USAGE && !k);
  CHECK_CONTAINS(diag, "the JIT adds the hints: write '*fp32' without ':16'");
  free(diag);
  o.signature = "*fp32, *fp32, i32, fp32, 100";
  CHECK(tilec_kernel_create(cpu, "scale.py", src, sizeof src - 1, &o, &k, &diag) == TILEC_ERROR_COMPILE && !k);
  CHECK_CONTAINS(diag, "scale.py:5:");
  free(diag);
  CHECK(tilec_kernel_create(cpu, "scale.py", NULL, 0, &o, &k, &diag) == TILEC_ERROR_USAGE);
  free(diag);

  CHECK(tilec_device_free(cpu, x) == TILEC_OK && tilec_device_free(cpu, y) == TILEC_OK);
  tilec_device_destroy(cpu);
  return 0;
}
