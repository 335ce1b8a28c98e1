/* test_usage.c — misuse of the C API is a usage error that names what was
 * wrong, never a crash or a result: NULL entries of the arrays the calls
 * take, grids past CUDA's limits, enum values outside their type, a
 * num_warps Triton would not take, a source larger than the limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tilec/tilec.h"
#include "unit.h"

static const char src[] = "import triton\n"
                          "import triton.language as tl\n"
                          "@triton.jit\n"
                          "def scale(x, y, n, s, B: tl.constexpr):\n"
                          "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
                          "    tl.store(y + o, tl.load(x + o, mask=o < n) * s, mask=o < n)\n";

/* The message of the call just made, freed after the check. */
static char *msg;
#define CHECK_MSG(text)                                                                                                \
  do {                                                                                                                 \
    CHECK_CONTAINS(msg, text);                                                                                         \
    free(msg);                                                                                                         \
    msg = NULL;                                                                                                        \
  } while (0)

/* tilec_compile with o: a usage error whose diagnostics hold text. */
static void compile_refused(const tilec_compile_options *o, const char *text) {
  tilec_result *r = NULL;
  CHECK(tilec_compile("scale.py", src, sizeof src - 1, o, &r) == TILEC_ERROR_USAGE);
  CHECK(tilec_result_output(r, NULL) == NULL);
  CHECK_CONTAINS(tilec_result_diagnostics(r), text);
  tilec_result_destroy(r);
}

static void null_entries(tilec_device *cpu) {
  const char *defines[2] = {"B=256", NULL}, *dirs[2] = {".", NULL};
  tilec_compile_options o = {.signature = "*fp32, *fp32, i32, fp32"};
  o.defines = defines, o.num_defines = 2;
  compile_refused(&o, "tilec_compile: defines[1] is NULL");
  o.defines = NULL;
  compile_refused(&o, "tilec_compile: defines is NULL, but num_defines is 2");
  o.num_defines = -1;
  compile_refused(&o, "tilec_compile: num_defines is -1");
  o.defines = defines, o.num_defines = 1;
  o.include_dirs = dirs, o.num_include_dirs = 2;
  compile_refused(&o, "tilec_compile: include_dirs[1] is NULL");
  o.num_include_dirs = 1; /* and with the arrays whole, it compiles */
  tilec_result *r = NULL;
  CHECK(tilec_compile("scale.py", src, sizeof src - 1, &o, &r) == TILEC_OK);
  tilec_result_destroy(r);

  tilec_jit_options j = {.signature = "*fp32, *fp32, i32, fp32", .no_disk_cache = 1};
  tilec_kernel *k = NULL;
  j.defines = defines, j.num_defines = 2;
  CHECK(tilec_kernel_create(cpu, "scale.py", src, sizeof src - 1, &j, &k, &msg) == TILEC_ERROR_USAGE && !k);
  CHECK_MSG("tilec_kernel_create: defines[1] is NULL");
  j.num_defines = 1;
  j.include_dirs = dirs, j.num_include_dirs = 2;
  CHECK(tilec_kernel_create(cpu, "scale.py", src, sizeof src - 1, &j, &k, &msg) == TILEC_ERROR_USAGE && !k);
  CHECK_MSG("tilec_kernel_create: include_dirs[1] is NULL");
  j.num_include_dirs = -3;
  CHECK(tilec_kernel_create(cpu, "scale.py", src, sizeof src - 1, &j, &k, &msg) == TILEC_ERROR_USAGE && !k);
  CHECK_MSG("tilec_kernel_create: num_include_dirs is -3");
  j.num_include_dirs = 1;
  CHECK(tilec_kernel_create(cpu, "scale.py", src, sizeof src - 1, &j, &k, &msg) == TILEC_OK && k);
  CHECK(msg == NULL);

  tilec_devptr x = 0, y = 0;
  CHECK(tilec_device_alloc(cpu, 1024, &x, NULL) == TILEC_OK && tilec_device_alloc(cpu, 1024, &y, NULL) == TILEC_OK);
  int n = 0;
  float s = 1;
  void *args[4] = {&x, &y, &n, &s};
  unsigned grid[3] = {1, 1, 1};
  CHECK(tilec_kernel_launch(k, grid, args, 4, NULL, &msg) == TILEC_OK);
  args[2] = NULL;
  CHECK(tilec_kernel_launch(k, grid, args, 4, NULL, &msg) == TILEC_ERROR_USAGE);
  CHECK_MSG("tilec_kernel_launch: args[2] is NULL");
  CHECK(tilec_kernel_config_of(k, args, 4) == -1);
  CHECK(tilec_kernel_launch(k, grid, NULL, 4, NULL, &msg) == TILEC_ERROR_USAGE);
  CHECK_MSG("tilec_kernel_launch: args is NULL, but nargs is 4");
  CHECK(tilec_kernel_config_of(k, NULL, 4) == -1);
  args[2] = &n;
  CHECK(tilec_kernel_config_of(k, args, 4) == 0);
  tilec_kernel_destroy(k);
  CHECK(tilec_device_free(cpu, x, NULL) == TILEC_OK && tilec_device_free(cpu, y, NULL) == TILEC_OK);
}

/* A grid CUDA would not launch is a usage error on every device, before
 * any program runs: x up to 2^31-1, y and z up to 65535. */
static void grid_limits(tilec_device *cpu) {
  tilec_jit_options j = {.signature = "*fp32, *fp32, i32, fp32, 256", .no_disk_cache = 1};
  tilec_kernel *k = NULL;
  CHECK(tilec_kernel_create(cpu, "scale.py", src, sizeof src - 1, &j, &k, &msg) == TILEC_OK && k);
  if (!k) return;
  tilec_devptr x = 0, y = 0;
  CHECK(tilec_device_alloc(cpu, 1024, &x, NULL) == TILEC_OK && tilec_device_alloc(cpu, 1024, &y, NULL) == TILEC_OK);
  unsigned wide[3] = {2147483648u, 1, 1}, tall[3] = {1, 70000, 1}, deep[3] = {1, 1, 65536}, most[3] = {1, 65535, 1};
  CHECK(tilec_kernel_launchv(k, wide, NULL, &msg, x, y, 0, 1.0) == TILEC_ERROR_USAGE);
  CHECK_MSG("tilec_kernel_launch: the grid (2147483648, 1, 1): grid dimension x is 2147483648; the most is 2147483647");
  CHECK(tilec_kernel_launchv(k, tall, NULL, &msg, x, y, 0, 1.0) == TILEC_ERROR_USAGE);
  CHECK_MSG("grid dimension y is 70000; the most is 65535");
  CHECK(tilec_kernel_launchv(k, deep, NULL, &msg, x, y, 0, 1.0) == TILEC_ERROR_USAGE);
  CHECK_MSG("grid dimension z is 65536; the most is 65535");
  CHECK(tilec_kernel_launchv(k, most, NULL, &msg, x, y, 0, 1.0) == TILEC_OK);
  CHECK(msg == NULL);
  tilec_kernel_destroy(k);
  CHECK(tilec_device_free(cpu, x, NULL) == TILEC_OK && tilec_device_free(cpu, y, NULL) == TILEC_OK);
}

/* An enum value outside its type is a usage error, not the nearest kind. */
static void enums(void) {
  tilec_device *d = NULL;
  CHECK(tilec_device_create((tilec_device_kind)99, &d, &msg) == TILEC_ERROR_USAGE && !d);
  CHECK_MSG("tilec_device_create: kind 99 is not a device kind");
  CHECK(tilec_device_create((tilec_device_kind)-1, &d, &msg) == TILEC_ERROR_USAGE && !d);
  CHECK_MSG("tilec_device_create: kind -1 is not a device kind");
  tilec_compile_options o = {.signature = "*fp32, *fp32, i32, fp32, 256", .emit = (tilec_emit)-1};
  compile_refused(&o, "tilec_compile: emit -1 is not an emit kind");
  o.emit = (tilec_emit)8;
  compile_refused(&o, "tilec_compile: emit 8 is not an emit kind");
}

/* num_warps is a power of 2 from 1 to 32 (0: the config's, else 4) on
 * every way in: 3 would compile to a block the layouts do not cover, 64
 * to one past 1024 threads, 1 << 30 overflow the thread count. And
 * num_stages is not negative. */
static void warps(tilec_device *cpu) {
  static const int bad[] = {3, 64, 1024, 1 << 30, -4};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char want[128];
    tilec_compile_options o = {.signature = "*fp32, *fp32, i32, fp32, 256", .num_warps = bad[i]};
    snprintf(want, sizeof want, "tilec_compile: num_warps is %d; it must be 0", bad[i]);
    compile_refused(&o, want);
    o.emit = TILEC_EMIT_PTX;
    compile_refused(&o, want);
    tilec_jit_options j = {.signature = "*fp32, *fp32, i32, fp32, 256", .no_disk_cache = 1, .num_warps = bad[i]};
    tilec_kernel *k = NULL;
    CHECK(tilec_kernel_create(cpu, "scale.py", src, sizeof src - 1, &j, &k, &msg) == TILEC_ERROR_USAGE && !k);
    snprintf(want, sizeof want, "tilec_kernel_create: num_warps is %d; it must be 0", bad[i]);
    CHECK_MSG(want);
    tilec_result *r = NULL;
    CHECK(tilec_opt("k.mlir", "module {}", 9, "cse", bad[i], NULL, &r) == TILEC_ERROR_USAGE);
    snprintf(want, sizeof want, "tilec_opt: num_warps is %d; it must be 0", bad[i]);
    CHECK_CONTAINS(tilec_result_diagnostics(r), want);
    tilec_result_destroy(r);
  }
  /* num_stages: 0 or more */
  tilec_compile_options so = {.signature = "*fp32, *fp32, i32, fp32, 256", .num_stages = -5};
  compile_refused(&so, "tilec_compile: num_stages is -5; it must be 0 (the config's, else 3) or more");
  tilec_jit_options sj = {.signature = "*fp32, *fp32, i32, fp32, 256", .no_disk_cache = 1, .num_stages = -1};
  tilec_kernel *sk = NULL;
  CHECK(tilec_kernel_create(cpu, "scale.py", src, sizeof src - 1, &sj, &sk, &msg) == TILEC_ERROR_USAGE && !sk);
  CHECK_MSG("tilec_kernel_create: num_stages is -1");
  for (int w = 1; w <= 32; w *= 2) {
    tilec_compile_options o = {.signature = "*fp32, *fp32, i32, fp32, 256", .num_warps = w, .emit = TILEC_EMIT_PTX};
    tilec_result *r = NULL;
    CHECK(tilec_compile("scale.py", src, sizeof src - 1, &o, &r) == TILEC_OK);
    tilec_result_destroy(r);
  }
}

/* A source larger than TILEC_MAX_SOURCE_BYTES is refused before it is
 * read (its length alone, here far past the bytes given), and so is an
 * imported module that large (a sparse file: no disk space taken). */
static void too_large(tilec_device *cpu) {
  tilec_compile_options o = {.signature = "*fp32, *fp32, i32, fp32, 256"};
  size_t lengths[2] = {TILEC_MAX_SOURCE_BYTES + 1, (size_t)-1};
  for (int i = 0; i < 2; i++) {
    tilec_result *r = NULL;
    CHECK(tilec_compile("big.py", src, lengths[i], &o, &r) == TILEC_ERROR_UNSUPPORTED);
    CHECK_CONTAINS(tilec_result_diagnostics(r), "bytes; tilec compiles sources of at most 64 MiB");
    tilec_result_destroy(r);
    tilec_jit_options j = {.signature = "*fp32, *fp32, i32, fp32, 256", .no_disk_cache = 1};
    tilec_kernel *k = NULL;
    CHECK(tilec_kernel_create(cpu, "big.py", src, lengths[i], &j, &k, &msg) == TILEC_ERROR_UNSUPPORTED && !k);
    CHECK_MSG("tilec_kernel_create: big.py is");
  }
  char dir[] = "/tmp/tilec-usage-XXXXXX", path[64];
  if (!mkdtemp(dir)) return;
  snprintf(path, sizeof path, "%s/huge.py", dir);
  FILE *f = fopen(path, "w");
  CHECK(f && ftruncate(fileno(f), (off_t)TILEC_MAX_SOURCE_BYTES + 1) == 0);
  if (f) fclose(f);
  static const char importer[] = "import triton\n"
                                 "import triton.language as tl\n"
                                 "import huge\n"
                                 "@triton.jit\n"
                                 "def fill(y, B: tl.constexpr):\n"
                                 "    tl.store(y + tl.arange(0, B), huge.VALUE)\n";
  char main_path[64];
  snprintf(main_path, sizeof main_path, "%s/k.py", dir); /* there, for the search of its imports to start there */
  f = fopen(main_path, "w");
  CHECK(f && fputs(importer, f) >= 0);
  if (f) fclose(f);
  o.signature = "*fp32, 64";
  tilec_result *r = NULL;
  CHECK(tilec_compile(main_path, importer, sizeof importer - 1, &o, &r) == TILEC_ERROR_COMPILE);
  CHECK_CONTAINS(tilec_result_diagnostics(r), "huge.py is 67108865 bytes; tilec reads modules of at most 64 MiB");
  tilec_result_destroy(r);
  remove(path);
  remove(main_path);
  rmdir(dir);
}

int unit_main(void) {
  tilec_device *cpu = NULL;
  CHECK(tilec_device_create(TILEC_DEVICE_CPU, &cpu, NULL) == TILEC_OK && cpu);
  if (!cpu) return 0;
  null_entries(cpu);
  grid_limits(cpu);
  enums();
  warps(cpu);
  too_large(cpu);
  tilec_device_destroy(cpu);
  return 0;
}
