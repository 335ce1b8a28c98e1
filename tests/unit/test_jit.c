/* test_jit.c — the JIT C API on the CPU device: specializations, misuse,
 * what the emulator's checks say through a launch, grid expressions and
 * autotune configs, signatures in every spelling of their types, the CUDA
 * device failing cleanly without a driver. */
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cache.h"
#include "jit/jit.h"
#include "tilec/tilec.h"
#include "unit.h"

#ifndef EXAMPLES_DIR
#define EXAMPLES_DIR "examples"
#endif

static const char src[] = "import triton\n"
                          "import triton.language as tl\n"
                          "@triton.jit\n"
                          "def scale(x, y, n, s, B: tl.constexpr):\n"
                          "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
                          "    tl.store(y + o, tl.load(x + o, mask=o < n) * s, mask=o < n)\n";

/* The number of entries in a cache directory (DIR/xx/KEY.tc), and the path of one. */
static int entries(const char *dir, char *one, size_t n) {
  int count = 0;
  DIR *d = opendir(dir);
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
    DIR *s = opendir(sub);
    if (!s) continue;
    for (struct dirent *f; (f = readdir(s));) {
      size_t l = strlen(f->d_name);
      if (l > 3 && !strcmp(f->d_name + l - 3, ".tc")) {
        count++;
        if (one) snprintf(one, n, "%s/%s", sub, f->d_name);
      }
    }
    closedir(s);
  }
  closedir(d);
  return count;
}

/* Autotuned: a block of B per program along y, so that B = 16 needs a
 * grid y of 65536 for 2^20 elements, one more than a launch may have. */
static const char tuned_src[] = "import triton\n"
                                "import triton.language as tl\n"
                                "@triton.autotune(configs=[triton.Config({'B': 16}), triton.Config({'B': 256}, num_warps=2),\n"
                                "                          triton.Config({'B': 1024}, num_warps=8)], key=['n'])\n"
                                "@triton.jit\n"
                                "def twice(x, y, n, B: tl.constexpr):\n"
                                "    o = tl.program_id(1) * B + tl.arange(0, B)\n"
                                "    tl.store(y + o, tl.load(x + o, mask=o < n) * 2, mask=o < n)\n";

/* Tuning runs a kernel many times on the launch's own arguments:
 * reset_to_zero and restore_value keep an accumulation and an update in
 * place as one launch leaves them. The format's argument is the
 * decorator's extra arguments. Both configs give each thread its own
 * elements (B = 32 * num_warps): what is tested here is tuning, and which
 * config it picks goes by timing, so neither may depend on how a layout
 * wider than its block stores its replicated elements. */
static const char side_effects_fmt[] = "import triton\n"
                                       "import triton.language as tl\n"
                                       "@triton.autotune(configs=[triton.Config({'B': 64}, num_warps=2), triton.Config({'B': 128})],\n"
                                       "                 key=['n']%s)\n"
                                       "@triton.jit\n"
                                       "def acc(x, total, n, B: tl.constexpr):\n"
                                       "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
                                       "    v = tl.load(x + o, mask=o < n, other=0)\n"
                                       "    tl.atomic_add(total + o %% 4, v, mask=o < n)\n"
                                       "    tl.store(x + o, v + 1, mask=o < n)\n";

/* One tuned launch of acc; 0 when total and x are what one run gives (exact)
 * or, with exact 0, when they are not (the runs of tuning show). */
static int tuned_side_effects(tilec_device *dev, const char *decorator_args, bool exact) {
  char text[1024];
  snprintf(text, sizeof text, side_effects_fmt, decorator_args);
  tilec_jit_options o = {.signature = "*i32, *i32, i32", .grid = "cdiv(n, B)", .config = TILEC_CONFIG_TUNE, .no_disk_cache = 1};
  tilec_kernel *k = NULL;
  char *diag = NULL;
  if (tilec_kernel_create(dev, "acc.py", text, strlen(text), &o, &k, &diag) != TILEC_OK) {
    fprintf(stderr, "%s\n", diag ? diag : "");
    free(diag);
    return 1;
  }
  enum { N = 1000 };
  int32_t x[N], total[4] = {5, 6, 7, 8}, want[4] = {5, 6, 7, 8}, out[N];
  for (int i = 0; i < N; i++) x[i] = (int32_t)((i * 37 + 11) % 100) + 1, want[i % 4] += x[i];
  unsigned long long dx, dt;
  int n = N, bad = tilec_device_alloc(dev, sizeof x, &dx, NULL) || tilec_device_alloc(dev, sizeof total, &dt, NULL) ||
                   tilec_device_copy_to(dev, dx, x, sizeof x, NULL) || tilec_device_copy_to(dev, dt, total, sizeof total, NULL);
  void *args[3] = {&dx, &dt, &n};
  char *report = NULL;
  if (!bad && tilec_kernel_launch(k, NULL, args, 3, NULL, &report) != TILEC_OK) {
    fprintf(stderr, "%s\n", report ? report : "");
    bad = 1;
  }
  free(report);
  bad = bad || tilec_device_copy_from(dev, out, dx, sizeof out, NULL) || tilec_device_copy_from(dev, total, dt, sizeof total, NULL);
  int same = !bad && tilec_kernel_config_of(k, args, 3) >= 0;
  for (int i = 0; same && i < 4; i++) same = total[i] == want[i];
  for (int i = 0; same && i < N; i++) same = out[i] == x[i] + 1;
  tilec_device_free(dev, dx, NULL), tilec_device_free(dev, dt, NULL);
  tilec_kernel_destroy(k);
  return bad || same != exact;
}

/* A kernel of text; NULL after printing the diagnostics. */
static tilec_kernel *create_or_say(tilec_device *dev, const char *file, const char *text, const tilec_jit_options *o) {
  tilec_kernel *k = NULL;
  char *diag = NULL;
  if (tilec_kernel_create(dev, file, text, strlen(text), o, &k, &diag) != TILEC_OK) fprintf(stderr, "%s\n", diag ? diag : "");
  free(diag);
  return k;
}

/* Launches k(a, b, n) twice, a and b copied in first (n: a's count), and
 * checks after each launch that b holds want. 0 when it does; destroys k. */
static int twice_expect(tilec_device *dev, tilec_kernel *k, const int32_t *a, int n, int32_t *b, int nb, const int32_t *want) {
  unsigned long long da, db;
  size_t sa = sizeof *a * (size_t)n, sb = sizeof *b * (size_t)nb;
  int bad = tilec_device_alloc(dev, sa, &da, NULL) || tilec_device_alloc(dev, sb, &db, NULL) ||
            tilec_device_copy_to(dev, da, a, sa, NULL) || tilec_device_copy_to(dev, db, b, sb, NULL);
  void *args[3] = {&da, &db, &n};
  for (int launch = 0; launch < 2 && !bad; launch++) {
    char *report = NULL;
    if (tilec_kernel_launch(k, NULL, args, 3, NULL, &report) != TILEC_OK) {
      fprintf(stderr, "%s\n", report ? report : "");
      bad = 1;
    }
    free(report);
    bad = bad || tilec_device_copy_from(dev, b, db, sb, NULL);
    for (int i = 0; !bad && i < nb; i++) bad = b[i] != want[i];
  }
  tilec_device_free(dev, da, NULL), tilec_device_free(dev, db, NULL);
  tilec_kernel_destroy(k);
  return bad;
}

/* A config's pre_hook that zeroes a buffer runs before every launch of
 * the config, tuning's and the caller's, as Triton runs it: the total is
 * one launch's sum, never the initial values' or several launches'. And the
 * decorator's warmup and rep are taken. config: TILEC_CONFIG_TUNE or one. */
static int pre_hook_zeroes(tilec_device *dev, int config) {
  static const char hook_src[] =
      "import triton\n"
      "import triton.language as tl\n"
      "@triton.autotune(configs=[triton.Config({'B': 64}, num_warps=2, pre_hook=lambda nargs: nargs['total'].zero_()),\n"
      "                          triton.Config({'B': 128}, pre_hook=lambda nargs: (nargs['total'].zero_(),))],\n"
      "                 key=['n'], warmup=1, rep=3)\n"
      "@triton.jit\n"
      "def acc(x, total, n, B: tl.constexpr):\n"
      "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
      "    tl.atomic_add(total + o % 4, tl.load(x + o, mask=o < n, other=0), mask=o < n)\n";
  tilec_jit_options o = {.signature = "*i32, *i32, i32", .grid = "cdiv(n, B)", .config = config, .no_disk_cache = 1};
  tilec_kernel *k = create_or_say(dev, "acc.py", hook_src, &o);
  enum { N = 1000 };
  int32_t x[N], total[4] = {5, 6, 7, 8}, want[4] = {0, 0, 0, 0};
  for (int i = 0; i < N; i++) x[i] = (int32_t)((i * 37 + 11) % 100) + 1, want[i % 4] += x[i];
  return !k || twice_expect(dev, k, x, N, total, 4, want);
}

/* A pre_hook that copies a buffer into another before every launch: the
 * kernel adds 1 to dst in place, so dst is src + 1 after any number of
 * launches, tuning's included. 0 when it is. */
static int pre_hook_copies(tilec_device *dev) {
  static const char copy_src[] =
      "import triton\n"
      "import triton.language as tl\n"
      "@triton.autotune(configs=[triton.Config({'B': 64}, pre_hook=lambda nargs: nargs['dst'].copy_(nargs['src'])),\n"
      "                          triton.Config({'B': 128}, pre_hook=lambda nargs: nargs['dst'].copy_(nargs['src']))],\n"
      "                 key=['n'])\n"
      "@triton.jit\n"
      "def bump(src, dst, n, B: tl.constexpr):\n"
      "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
      "    tl.store(dst + o, tl.load(dst + o, mask=o < n) + 1, mask=o < n)\n";
  tilec_jit_options o = {.signature = "*i32, *i32, i32", .grid = "cdiv(n, B)", .config = TILEC_CONFIG_TUNE, .no_disk_cache = 1};
  tilec_kernel *k = create_or_say(dev, "bump.py", copy_src, &o);
  enum { N = 300 };
  int32_t from[N], dst[N], want[N];
  for (int i = 0; i < N; i++) from[i] = i * 7 - 100, dst[i] = -5, want[i] = from[i] + 1;
  return !k || twice_expect(dev, k, from, N, dst, N, want);
}

/* Launches with the grid the options compute; 0 when y = 2 x over n elements. */
static int run_twice(tilec_device *dev, tilec_kernel *k, unsigned long long x, unsigned long long y, int n, float *in,
                     float *out) {
  for (int i = 0; i < n; i++) in[i] = (float)(i % 1000) - 500.0f, out[i] = -1;
  if (tilec_device_copy_to(dev, x, in, (size_t)n * 4, NULL) != TILEC_OK || tilec_device_copy_to(dev, y, out, (size_t)n * 4, NULL))
    return 1;
  char *report = NULL;
  void *args[3] = {&x, &y, &n};
  if (tilec_kernel_launch(k, NULL, args, 3, NULL, &report) != TILEC_OK) {
    fprintf(stderr, "%s\n", report ? report : "");
    free(report);
    return 1;
  }
  if (tilec_device_copy_from(dev, out, y, (size_t)n * 4, NULL) != TILEC_OK) return 1;
  int bad = 0;
  for (int i = 0; i < n; i++) bad += out[i] != 2 * in[i];
  return bad != 0;
}

/* The cache entry under dir whose file holds `needle`: its path and key. */
static bool entry_with(const char *dir, const char *needle, char *path, size_t n, char key[65]) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "grep -rl '%s' '%s' --include='*.tc'", needle, dir);
  FILE *p = popen(cmd, "r");
  bool found = p && fgets(path, (int)n, p);
  if (p) pclose(p);
  if (!found) return false;
  path[strcspn(path, "\n")] = 0;
  const char *base = strrchr(path, '/');
  return base && strlen(base + 1) == 67 && (snprintf(key, 65, "%.64s", base + 1), true);
}

/* A fresh kernel of tuned_src, tuned with the disk cache in dir, launched
 * at n elements: the config taken, what TILEC_PRINT_AUTOTUNING printed,
 * and its warnings. */
static int tune_fresh(tilec_device *cpu, const char *dir, unsigned long long x, unsigned long long y, int n, float *in,
                      float *out, char *printed, size_t plen, char *warnings, size_t wlen) {
  tilec_jit_options o = {.signature = "*fp32, *fp32, i32", .grid = "1, cdiv(n, B)", .config = TILEC_CONFIG_TUNE,
                         .cache_dir = dir};
  tilec_kernel *k = NULL;
  char *diag = NULL;
  printed[0] = warnings[0] = 0;
  if (tilec_kernel_create(cpu, "twice.py", tuned_src, sizeof tuned_src - 1, &o, &k, &diag) != TILEC_OK) {
    free(diag);
    return -2;
  }
  free(diag);
  UnitCapture cap;
  if (!unit_capture_begin(&cap)) return -3;
  setenv("TILEC_PRINT_AUTOTUNING", "1", 1);
  int bad = run_twice(cpu, k, x, y, n, in, out);
  unsetenv("TILEC_PRINT_AUTOTUNING");
  unit_capture_end(&cap, printed, plen);
  void *args[3] = {&x, &y, &n};
  int c = bad ? -4 : tilec_kernel_config_of(k, args, 3);
  snprintf(warnings, wlen, "%s", tilec_kernel_warnings(k));
  tilec_kernel_destroy(k);
  return c;
}

/* The tuning kept on disk: a later kernel (as a later process) takes it
 * without tuning; a stale or corrupt entry is tuned again and replaced; the
 * key's values are part of the key. */
static void autotune_disk(tilec_device *cpu, unsigned long long x, unsigned long long y, float *in, float *out) {
  char dir[] = "/tmp/tilec-tune-cache-XXXXXX", printed[4096], warnings[2048], path[1024], key[65];
  CHECK(mkdtemp(dir) != NULL);
  int c1 = tune_fresh(cpu, dir, x, y, 4099, in, out, printed, sizeof printed, warnings, sizeof warnings);
  CHECK(c1 >= 0 && c1 <= 2);
  CHECK_CONTAINS(printed, "tilec: autotuning twice: 3 configs\n");
  CHECK(entry_with(dir, "tilec tuning 1", path, sizeof path, key));
  int c2 = tune_fresh(cpu, dir, x, y, 4099, in, out, printed, sizeof printed, warnings, sizeof warnings);
  CHECK(c2 == c1);
  char want[128];
  snprintf(want, sizeof want, "tilec: autotuning twice: config %d, from the tuning cache\n", c1);
  CHECK_STR(printed, want);
  CHECK_STR(warnings, "");
  /* another value of the key (n) is tuned on its own */
  int c3 = tune_fresh(cpu, dir, x, y, 777, in, out, printed, sizeof printed, warnings, sizeof warnings);
  CHECK(c3 >= 0 && c3 <= 2);
  CHECK_CONTAINS(printed, "3 configs");
  /* a stale entry: a config the kernel does not have */
  const char stale[] = "tilec tuning 1\nconfigs 3\nconfig 9\n";
  CHECK(cache_put(dir, key, stale, sizeof stale - 1, NULL, 0) == 1);
  int c4 = tune_fresh(cpu, dir, x, y, 4099, in, out, printed, sizeof printed, warnings, sizeof warnings);
  CHECK(c4 >= 0 && c4 <= 2);
  CHECK_CONTAINS(printed, "3 configs");
  CHECK_CONTAINS(warnings, "is stale (no such config); tuning again");
  CHECK(tune_fresh(cpu, dir, x, y, 4099, in, out, printed, sizeof printed, warnings, sizeof warnings) == c4);
  CHECK_CONTAINS(printed, "from the tuning cache");
  /* a corrupt entry: one byte of its payload changed */
  FILE *f = fopen(path, "r+b");
  int byte = f && fseek(f, -3, SEEK_END) == 0 ? fgetc(f) : EOF;
  CHECK(byte != EOF && fseek(f, -3, SEEK_END) == 0 && fputc(byte ^ 1, f) != EOF && fclose(f) == 0);
  int c5 = tune_fresh(cpu, dir, x, y, 4099, in, out, printed, sizeof printed, warnings, sizeof warnings);
  CHECK(c5 >= 0 && c5 <= 2);
  CHECK_CONTAINS(printed, "3 configs");
  CHECK(warnings[0] != 0);
  CHECK(tune_fresh(cpu, dir, x, y, 4099, in, out, printed, sizeof printed, warnings, sizeof warnings) == c5);
  CHECK_CONTAINS(printed, "from the tuning cache");
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

/* Host memory used in place (tilec_device_register_host): a kernel reads
 * and writes it with the emulator's bounds checks, an overlapping or
 * foreign registration is refused, and it is never freed by the device. */
static void host_memory(tilec_device *cpu) {
  enum { N = 300 };
  static float x[N], y[N + 4];
  for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = -1;
  char *msg = NULL;
  CHECK(tilec_device_register_host(cpu, x, sizeof x, &msg) == TILEC_OK && !msg);
  CHECK(tilec_device_register_host(cpu, y, sizeof y, &msg) == TILEC_OK && !msg);
  CHECK(tilec_device_register_host(cpu, x + 10, 8, &msg) == TILEC_ERROR_USAGE);
  CHECK_CONTAINS(msg, "overlaps memory the device has already");
  free(msg);
  CHECK(tilec_device_free(cpu, (unsigned long long)(uintptr_t)x, &msg) == TILEC_ERROR_USAGE);
  free(msg);
  tilec_jit_options o = {.signature = "*fp32, *fp32, i32, fp32, 128", .no_disk_cache = 1};
  tilec_kernel *k = NULL;
  CHECK(tilec_kernel_create(cpu, "scale.py", src, sizeof src - 1, &o, &k, &msg) == TILEC_OK);
  free(msg);
  unsigned long long dx = (uintptr_t)x, dy = (uintptr_t)y;
  int n = N;
  float s = 3;
  void *args[4] = {&dx, &dy, &n, &s};
  unsigned grid[3] = {3, 1, 1};
  CHECK(tilec_kernel_launch(k, grid, args, 4, NULL, &msg) == TILEC_OK && !msg);
  int bad = 0;
  for (int i = 0; i < N; i++) bad += y[i] != 3.0f * (float)i;
  CHECK(bad == 0 && y[N] == 0);
  /* past the registered bytes: the emulator's check, naming the memory */
  n = N + 20;
  CHECK(tilec_kernel_launch(k, grid, args, 4, NULL, &msg) == TILEC_ERROR_CHECK);
  CHECK_CONTAINS(msg, "registered host memory");
  free(msg);
  CHECK(tilec_device_unregister_host(cpu, x, &msg) == TILEC_OK && !msg);
  CHECK(tilec_device_unregister_host(cpu, x, &msg) == TILEC_ERROR_USAGE);
  CHECK_CONTAINS(msg, "is not host memory registered with the device");
  free(msg);
  /* unregistered, x is outside every allocation again */
  n = N;
  CHECK(tilec_kernel_launch(k, grid, args, 4, NULL, &msg) == TILEC_ERROR_CHECK);
  free(msg);
  CHECK(tilec_device_unregister_host(cpu, y, NULL) == TILEC_OK);
  CHECK(tilec_device_register_host(cpu, NULL, 4, &msg) == TILEC_ERROR_USAGE);
  free(msg);
  tilec_kernel_destroy(k);
}

/* tilec_kernel_launch_packed: the arguments in one block laid out as a C
 * struct lays them out (an i32 before a pointer leaves 4 bytes of padding),
 * with or without the struct's padding at the end; any other size refused. */
static void packed_arguments(tilec_device *cpu) {
  static const char text[] = "import triton\n"
                             "import triton.language as tl\n"
                             "@triton.jit\n"
                             "def axpy(n, x, y, a, B: tl.constexpr):\n"
                             "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
                             "    tl.store(y + o, tl.load(x + o, mask=o < n) * a + tl.load(y + o, mask=o < n), mask=o < n)\n";
  enum { N = 100 };
  float *x = NULL, *y = NULL;
  unsigned long long dx, dy;
  char *msg = NULL;
  CHECK(tilec_device_alloc(cpu, N * sizeof(float), &dx, NULL) == TILEC_OK);
  CHECK(tilec_device_alloc(cpu, N * sizeof(float), &dy, NULL) == TILEC_OK);
  x = calloc(N, sizeof *x), y = calloc(N, sizeof *y);
  for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = 1;
  CHECK(tilec_device_copy_to(cpu, dx, x, N * sizeof(float), NULL) == TILEC_OK);
  CHECK(tilec_device_copy_to(cpu, dy, y, N * sizeof(float), NULL) == TILEC_OK);
  tilec_jit_options o = {.signature = "i32, *fp32, *fp32, fp32, 64", .no_disk_cache = 1};
  tilec_kernel *k = NULL;
  CHECK(tilec_kernel_create(cpu, "axpy.py", text, sizeof text - 1, &o, &k, &msg) == TILEC_OK);
  free(msg);
  struct {
    int32_t n;
    unsigned long long x, y;
    float a;
  } block = {N - 3, dx, dy, 2.0f};
  unsigned grid[3] = {2, 1, 1};
  CHECK(tilec_kernel_launch_packed(k, grid, &block, sizeof block, NULL, &msg) == TILEC_OK && !msg);
  CHECK(tilec_kernel_launch_packed(k, grid, &block, offsetof(__typeof__(block), a) + 4, NULL, &msg) == TILEC_OK);
  CHECK(tilec_device_copy_from(cpu, y, dy, N * sizeof(float), NULL) == TILEC_OK);
  int bad = 0;
  for (int i = 0; i < N; i++) bad += y[i] != (i < N - 3 ? 1.0f + 4.0f * (float)i : 1.0f);
  CHECK(bad == 0);
  CHECK(tilec_kernel_launch_packed(k, grid, &block, 24, NULL, &msg) == TILEC_ERROR_USAGE);
  CHECK_CONTAINS(msg, "an argument block of 24 bytes; its 4 runtime arguments take 28");
  free(msg);
  CHECK(tilec_kernel_launch_packed(k, grid, &block, 36, NULL, &msg) == TILEC_ERROR_USAGE);
  free(msg);
  CHECK(tilec_kernel_launch_packed(k, grid, NULL, 0, NULL, &msg) == TILEC_ERROR_USAGE);
  CHECK_CONTAINS(msg, "the argument block is NULL");
  free(msg);
  tilec_kernel_destroy(k);
  /* the target the CPU device's code is compiled for: one of the table's
   * (the emulator runs it; tests/emu/test_examples.c runs wgmma so) */
  o.arch = "sm_90a";
  CHECK(tilec_kernel_create(cpu, "axpy.py", text, sizeof text - 1, &o, &k, &msg) == TILEC_OK);
  free(msg);
  tilec_kernel_destroy(k);
  k = NULL;
  o.arch = "sm_75";
  CHECK(tilec_kernel_create(cpu, "axpy.py", text, sizeof text - 1, &o, &k, &msg) == TILEC_ERROR_USAGE && !k);
  CHECK_CONTAINS(msg, "arch 'sm_75' is not a target tilec knows");
  free(msg);
  tilec_device_free(cpu, dx, NULL), tilec_device_free(cpu, dy, NULL);
  free(x), free(y);
}

/* tilec_describe: the parameters, defaults, configs and heuristics a host
 * builds a signature from; an error with the compiler's diagnostics. */
static void describe(void) {
  static const char text[] = "import triton\n"
                             "import triton.language as tl\n"
                             "@triton.autotune(configs=[triton.Config({'B': 16}, num_warps=2)], key=['n'])\n"
                             "@triton.heuristics({'EVEN': lambda args: args['n'] % args['B'] == 0})\n"
                             "@triton.jit(do_not_specialize=['n'])\n"
                             "def k(x, n, eps=1e-5, B: tl.constexpr = 8, EVEN: tl.constexpr = False, MODE: tl.constexpr = 'a'):\n"
                             "    pass\n";
  tilec_compile_options o = {0};
  tilec_result *r = NULL;
  CHECK(tilec_describe("k.py", text, sizeof text - 1, &o, &r) == TILEC_OK);
  CHECK_STR(tilec_result_output(r, NULL),
            "{\"name\": \"k\", \"line\": 6, \"params\": ["
            "{\"name\": \"x\", \"constexpr\": false, \"specialize\": true, \"default\": null, \"has_default\": false}, "
            "{\"name\": \"n\", \"constexpr\": false, \"specialize\": false, \"default\": null, \"has_default\": false}, "
            "{\"name\": \"eps\", \"constexpr\": false, \"specialize\": true, \"default\": \"1e-05\", \"has_default\": true}, "
            "{\"name\": \"B\", \"constexpr\": true, \"specialize\": true, \"default\": \"8\", \"has_default\": true}, "
            "{\"name\": \"EVEN\", \"constexpr\": true, \"specialize\": true, \"default\": \"False\", \"has_default\": true}, "
            "{\"name\": \"MODE\", \"constexpr\": true, \"specialize\": true, \"default\": \"'a'\", \"has_default\": true}], "
            "\"configs\": [{\"kwargs\": {\"B\": \"16\"}, \"num_warps\": 2, \"num_stages\": 0}], "
            "\"heuristics\": [\"EVEN\"], \"key\": [\"n\"], \"num_warps\": 0}\n");
  tilec_result_destroy(r);
  o.kernel = "nope";
  CHECK(tilec_describe("k.py", text, sizeof text - 1, &o, &r) == TILEC_ERROR_COMPILE);
  CHECK_CONTAINS(tilec_result_diagnostics(r), "nope");
  CHECK(tilec_result_output(r, NULL) == NULL);
  tilec_result_destroy(r);
  CHECK(tilec_describe("k.py", NULL, 0, &o, &r) == TILEC_ERROR_USAGE);
  tilec_result_destroy(r);
}

/* A host's grid for twice: (1, cdiv(n, B)) with B the config's block. */
typedef struct HostGrid {
  int asked[3];
  int fail, empty;
} HostGrid;

static int host_grid(void *user, int config, void **args, unsigned grid[3]) {
  HostGrid *h = user;
  static const int block[3] = {16, 256, 1024};
  if (h->fail || config < 0 || config > 2) return 1;
  h->asked[config]++;
  int n;
  memcpy(&n, args[2], sizeof n);
  grid[0] = 1, grid[1] = h->empty ? 0 : (unsigned)((n + block[config] - 1) / block[config]), grid[2] = 1;
  return 0;
}

static void autotune(tilec_device *cpu) {
  enum { N = 1 << 20 };
  static float in[N], out[N];
  unsigned long long x, y;
  CHECK(tilec_device_alloc(cpu, N * 4, &x, NULL) == TILEC_OK && tilec_device_alloc(cpu, N * 4, &y, NULL) == TILEC_OK);
  tilec_jit_options o = {.signature = "*fp32, *fp32, i32", .grid = "1, cdiv(n, B)", .no_disk_cache = 1};
  tilec_kernel *k = NULL;
  char *diag = NULL;

  /* a config chosen: its block size, warps and grid */
  o.config = 1;
  CHECK(tilec_kernel_create(cpu, "twice.py", tuned_src, sizeof tuned_src - 1, &o, &k, &diag) == TILEC_OK);
  free(diag);
  CHECK(tilec_kernel_configs(k) == 3);
  CHECK(run_twice(cpu, k, x, y, 1000, in, out) == 0);
  CHECK(run_twice(cpu, k, x, y, 4099, in, out) == 0);
  int n = 4099;
  void *args[3] = {&x, &y, &n};
  CHECK(tilec_kernel_config_of(k, args, 3) == 1);
  /* a grid out of range, and no grid at all */
  char *report = NULL;
  n = 0;
  CHECK(tilec_kernel_launch(k, NULL, args, 3, NULL, &report) == TILEC_ERROR_USAGE);
  CHECK_STR(report, "grid '1, cdiv(n, B)': grid dimension y is 0; it must be at least 1 (at byte 3)");
  free(report);
  tilec_kernel_destroy(k);
  o.grid = NULL;
  CHECK(tilec_kernel_create(cpu, "twice.py", tuned_src, sizeof tuned_src - 1, &o, &k, &diag) == TILEC_OK);
  CHECK(tilec_kernel_launch(k, NULL, args, 3, NULL, &report) == TILEC_ERROR_USAGE);
  CHECK_STR(report, "twice: no grid, and no grid expression in its options");
  free(report);
  tilec_kernel_destroy(k);

  /* a grid naming what it cannot, a config that is not there */
  o.grid = "cdiv(n, BLOCK)";
  CHECK(tilec_kernel_create(cpu, "twice.py", tuned_src, sizeof tuned_src - 1, &o, &k, &diag) == TILEC_ERROR_USAGE && !k);
  CHECK_STR(diag, "grid 'cdiv(n, BLOCK)': unknown name 'BLOCK'; the names are n, B (at byte 8)");
  free(diag);
  o.grid = "x";
  CHECK(tilec_kernel_create(cpu, "twice.py", tuned_src, sizeof tuned_src - 1, &o, &k, &diag) == TILEC_ERROR_USAGE && !k);
  CHECK_STR(diag, "grid 'x': 'x' is a pointer parameter; a grid is computed from integers (at byte 0)");
  free(diag);
  o.grid = "1, cdiv(n, B)";
  o.config = 3;
  CHECK(tilec_kernel_create(cpu, "twice.py", tuned_src, sizeof tuned_src - 1, &o, &k, &diag) == TILEC_ERROR_COMPILE && !k);
  CHECK_CONTAINS(diag, "kernel 'twice' has 3 autotune configs, numbered from 0; there is no config 3");
  free(diag);
  o.config = -2;
  CHECK(tilec_kernel_create(cpu, "twice.py", tuned_src, sizeof tuned_src - 1, &o, &k, &diag) == TILEC_ERROR_USAGE && !k);
  free(diag);

  /* tuned: nothing until the first launch of a key, then one of the configs
   * that can run: B = 16 cannot at 2^20 elements (a grid y of 65536) */
  o.config = TILEC_CONFIG_TUNE;
  CHECK(tilec_kernel_create(cpu, "twice.py", tuned_src, sizeof tuned_src - 1, &o, &k, &diag) == TILEC_OK);
  free(diag);
  n = N;
  CHECK(tilec_kernel_config_of(k, args, 3) == -1);
  /* with TILEC_PRINT_AUTOTUNING=1 the tuning prints its table to stderr */
  UnitCapture cap;
  bool captured = unit_capture_begin(&cap);
  CHECK(captured);
  setenv("TILEC_PRINT_AUTOTUNING", "1", 1);
  CHECK(run_twice(cpu, k, x, y, N, in, out) == 0);
  unsetenv("TILEC_PRINT_AUTOTUNING");
  char printed[2048] = "", want[64];
  if (captured) unit_capture_end(&cap, printed, sizeof printed);
  int c = tilec_kernel_config_of(k, args, 3);
  CHECK(c == 1 || c == 2);
  snprintf(want, sizeof want, "chosen: config %d (", c);
  CHECK(strstr(printed, "tilec: autotuning twice: 3 configs\n") && strstr(printed, want));
  CHECK(strstr(printed, "  config 0   does not run: ") && strstr(printed, "  config 1   ") &&
        strstr(printed, " ms\n"));
  int specs = tilec_kernel_specializations(k);
  /* config 0 without hints (at creation), then each config with the hints
   * of these arguments; config 0's compiles, its launch is what fails */
  CHECK(specs == 4);
  CHECK(run_twice(cpu, k, x, y, N, in, out) == 0);
  CHECK(tilec_kernel_specializations(k) == specs); /* the key is tuned: nothing more */
  n = 777;
  CHECK(tilec_kernel_config_of(k, args, 3) == -1);
  CHECK(run_twice(cpu, k, x, y, 777, in, out) == 0);
  c = tilec_kernel_config_of(k, args, 3);
  CHECK(c >= 0 && c <= 2);
  tilec_kernel_destroy(k);

  /* the grid from the host (grid_fn), per config: tuning asks for each
   * config's, the launch for the chosen one's */
  HostGrid hg = {0};
  o.grid = NULL;
  o.grid_fn = host_grid;
  o.grid_user = &hg;
  CHECK(tilec_kernel_create(cpu, "twice.py", tuned_src, sizeof tuned_src - 1, &o, &k, &diag) == TILEC_OK);
  free(diag);
  CHECK(run_twice(cpu, k, x, y, 4099, in, out) == 0);
  n = 4099;
  c = tilec_kernel_config_of(k, args, 3);
  CHECK(c >= 0 && c <= 2);
  CHECK(hg.asked[0] >= 1 && hg.asked[1] >= 1 && hg.asked[2] >= 1);
  int before[3] = {hg.asked[0], hg.asked[1], hg.asked[2]};
  CHECK(run_twice(cpu, k, x, y, 4099, in, out) == 0);
  for (int i = 0; i < 3; i++) CHECK(hg.asked[i] == before[i] + (i == c));
  /* a failure of the host's, and an empty grid: nothing launched */
  hg.fail = 1;
  CHECK(tilec_kernel_launch(k, NULL, args, 3, NULL, &report) == TILEC_ERROR_USAGE);
  CHECK_CONTAINS(report, "twice: the host's grid function failed for config");
  free(report);
  hg.fail = 0;
  hg.empty = 1;
  CHECK(tilec_kernel_launch(k, NULL, args, 3, NULL, &report) == TILEC_OK && !report);
  tilec_kernel_destroy(k);
  o.grid_fn = NULL;
  o.grid_user = NULL;
  o.grid = "1, cdiv(n, B)";

  /* the config is part of the cache's key: each has its entries, found again */
  char dir[] = "/tmp/tilec-jit-cache-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  o.cache_dir = dir;
  o.no_disk_cache = 0;
  int seen[3] = {0, 0, 0};
  for (int round = 0; round < 2; round++)
    for (int cfg = 1; cfg <= 2; cfg++) {
      o.config = cfg;
      CHECK(tilec_kernel_create(cpu, "twice.py", tuned_src, sizeof tuned_src - 1, &o, &k, &diag) == TILEC_OK);
      free(diag);
      CHECK(run_twice(cpu, k, x, y, 4099, in, out) == 0);
      tilec_kernel_destroy(k);
      if (round == 0) seen[cfg] = entries(dir, NULL, 0);
    }
  CHECK(seen[1] == 2 && seen[2] == 4 && entries(dir, NULL, 0) == 4);
  autotune_disk(cpu, x, y, in, out);
  /* tuning's many runs show in what the kernel accumulates and updates,
   * unless reset_to_zero and restore_value name those buffers */
  CHECK(tuned_side_effects(cpu, "", false) == 0);
  CHECK(tuned_side_effects(cpu, ", reset_to_zero=['total'], restore_value=['x']", true) == 0);
  CHECK(pre_hook_zeroes(cpu, TILEC_CONFIG_TUNE) == 0);
  CHECK(pre_hook_zeroes(cpu, 1) == 0);
  CHECK(pre_hook_copies(cpu) == 0);
  /* they name pointer parameters */
  char text[1024];
  snprintf(text, sizeof text, side_effects_fmt, ", reset_to_zero=['n']");
  tilec_jit_options so = {.signature = "*i32, *i32, i32", .config = TILEC_CONFIG_TUNE, .no_disk_cache = 1};
  CHECK(tilec_kernel_create(cpu, "acc.py", text, strlen(text), &so, &k, &diag) == TILEC_ERROR_USAGE && !k);
  CHECK_STR(diag, "acc: autotune reset_to_zero names 'n', which is not a pointer parameter");
  free(diag);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  CHECK(tilec_device_free(cpu, x, NULL) == TILEC_OK && tilec_device_free(cpu, y, NULL) == TILEC_OK);
}

/* Creates the kernel with a cache and runs it once on 100 elements; 0 when
 * it worked and gave 2 * x. */
static int cached_run(tilec_device *dev, const char *dir, const char *source, size_t len, const char *sig, int warps,
                      char *warnings, size_t wlen) {
  tilec_jit_options o = {.signature = sig, .num_warps = warps, .cache_dir = dir};
  tilec_kernel *k = NULL;
  char *diag = NULL;
  if (tilec_kernel_create(dev, "scale.py", source, len, &o, &k, &diag) != TILEC_OK) {
    fprintf(stderr, "%s\n", diag ? diag : "");
    free(diag);
    return 1;
  }
  unsigned long long x, y;
  float in[100], out[100];
  for (int i = 0; i < 100; i++) in[i] = (float)i;
  int bad = tilec_device_alloc(dev, sizeof in, &x, NULL) || tilec_device_alloc(dev, sizeof out, &y, NULL) ||
            tilec_device_copy_to(dev, x, in, sizeof in, NULL);
  unsigned grid[3] = {2, 1, 1}; /* enough for blocks of 64 */
  bad = bad || tilec_kernel_launchv(k, grid, NULL, NULL, x, y, 100, 2.0) != TILEC_OK ||
        tilec_device_copy_from(dev, out, y, sizeof out, NULL) != TILEC_OK;
  for (int i = 0; !bad && i < 100; i++) bad = out[i] != 2.0f * i;
  if (warnings) snprintf(warnings, wlen, "%s", tilec_kernel_warnings(k));
  tilec_device_free(dev, x, NULL), tilec_device_free(dev, y, NULL);
  tilec_kernel_destroy(k);
  return bad;
}

/* A null pointer is C's None: the parameter becomes the constexpr None, in
 * its own specialization (its own cache entry), and `w is not None` holds
 * in the others. */
static const char optional_src[] = "import triton\n"
                                   "import triton.language as tl\n"
                                   "@triton.jit\n"
                                   "def weigh(x, w, y, n, B: tl.constexpr):\n"
                                   "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
                                   "    v = tl.load(x + o, mask=o < n)\n"
                                   "    if w is not None:\n"
                                   "        v = v * tl.load(w + o, mask=o < n)\n"
                                   "    else:\n"
                                   "        v = v + 1\n"
                                   "    tl.store(y + o, v, mask=o < n)\n";

static void none_args(tilec_device *cpu) {
  char dir[] = "/tmp/tilec-test-none-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  tilec_jit_options o = {.signature = "*fp32, *fp32, *fp32, i32, 64", .cache_dir = dir};
  tilec_kernel *k = NULL;
  char *diag = NULL, *report = NULL;
  CHECK(tilec_kernel_create(cpu, "weigh.py", optional_src, sizeof optional_src - 1, &o, &k, &diag) == TILEC_OK);
  free(diag);
  if (!k) return;
  enum { N = 203 };
  unsigned long long x, w, y;
  CHECK(tilec_device_alloc(cpu, N * 4, &x, NULL) == TILEC_OK && tilec_device_alloc(cpu, N * 4, &w, NULL) == TILEC_OK &&
        tilec_device_alloc(cpu, N * 4, &y, NULL) == TILEC_OK);
  float hx[N], hw[N], out[N];
  for (int i = 0; i < N; i++) hx[i] = (float)i * 0.5f - 7, hw[i] = (float)(i % 13) - 6;
  CHECK(tilec_device_copy_to(cpu, x, hx, sizeof hx, NULL) == TILEC_OK && tilec_device_copy_to(cpu, w, hw, sizeof hw, NULL) == TILEC_OK);
  unsigned grid[3] = {4, 1, 1};
  for (int pass = 0; pass < 2; pass++) {
    unsigned long long wp = pass ? 0 : w;
    CHECK(tilec_kernel_launchv(k, grid, NULL, &report, x, wp, y, N) == TILEC_OK);
    free(report);
    report = NULL;
    CHECK(tilec_device_copy_from(cpu, out, y, sizeof out, NULL) == TILEC_OK);
    int wrong = 0;
    for (int i = 0; i < N; i++) wrong += out[i] != (pass ? hx[i] + 1 : hx[i] * hw[i]);
    CHECK(wrong == 0);
  }
  CHECK(tilec_kernel_specializations(k) == 3); /* the plain one, aligned pointers, w None */
  CHECK(entries(dir, NULL, 0) == 3);
  tilec_kernel_destroy(k);
  tilec_device_free(cpu, x, NULL), tilec_device_free(cpu, w, NULL), tilec_device_free(cpu, y, NULL);
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

static void disk_cache(tilec_device *cpu) {
  char dir[] = "/tmp/tilec-jit-cache-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  const char *sig = "*fp32, *fp32, i32, fp32, 128";
  char warnings[1024], entry[2048];
  /* the first run fills it: the unspecialized kernel and the launch's specialization */
  CHECK(cached_run(cpu, dir, src, sizeof src - 1, sig, 4, warnings, sizeof warnings) == 0);
  CHECK(entries(dir, NULL, 0) == 2);
  CHECK_STR(warnings, "");
  /* the same again finds them; each input of the key makes new ones */
  CHECK(cached_run(cpu, dir, src, sizeof src - 1, sig, 4, NULL, 0) == 0);
  CHECK(entries(dir, NULL, 0) == 2);
  CHECK(cached_run(cpu, dir, src, sizeof src - 1, sig, 2, NULL, 0) == 0);
  CHECK(entries(dir, NULL, 0) == 4);
  CHECK(cached_run(cpu, dir, src, sizeof src - 1, "*fp32, *fp32, i32, fp32, 64", 4, NULL, 0) == 0);
  CHECK(entries(dir, NULL, 0) == 6);
  char other[sizeof src + 16];
  snprintf(other, sizeof other, "%s# a comment\n", src);
  CHECK(cached_run(cpu, dir, other, strlen(other), sig, 4, NULL, 0) == 0);
  CHECK(entries(dir, NULL, 0) == 8);
  /* a corrupted entry is compiled again, with a warning */
  entries(dir, entry, sizeof entry);
  FILE *f = fopen(entry, "r+b");
  CHECK(f != NULL);
  if (f) {
    fseek(f, -3, SEEK_END);
    fputc('#', f);
    fclose(f);
  }
  int before = entries(dir, NULL, 0);
  for (int w = 1; w <= 8; w *= 2) CHECK(cached_run(cpu, dir, src, sizeof src - 1, sig, 4, NULL, 0) == 0);
  CHECK(cached_run(cpu, dir, other, strlen(other), sig, 4, NULL, 0) == 0);
  CHECK(cached_run(cpu, dir, src, sizeof src - 1, sig, 2, NULL, 0) == 0);
  CHECK(cached_run(cpu, dir, src, sizeof src - 1, "*fp32, *fp32, i32, fp32, 64", 4, NULL, 0) == 0);
  CHECK(entries(dir, NULL, 0) == before);
  /* 8 processes compiling the same kernel into a fresh cache at once all succeed */
  char fresh[] = "/tmp/tilec-jit-cache-XXXXXX";
  CHECK(mkdtemp(fresh) != NULL);
  pid_t kids[8];
  for (int i = 0; i < 8; i++) {
    kids[i] = fork();
    if (kids[i] == 0) _exit(cached_run(cpu, fresh, src, sizeof src - 1, sig, 4, NULL, 0));
  }
  int ok = 0;
  for (int i = 0; i < 8; i++) {
    int status = 0;
    waitpid(kids[i], &status, 0);
    ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  CHECK(ok == 8);
  CHECK(entries(fresh, NULL, 0) == 2);
  /* a cache that cannot be written: a warning, and the kernel still runs */
  char blocked[1100];
  snprintf(blocked, sizeof blocked, "%s/file", fresh);
  f = fopen(blocked, "w");
  if (f) fclose(f);
  snprintf(blocked, sizeof blocked, "%s/file/cache", fresh);
  CHECK(cached_run(cpu, blocked, src, sizeof src - 1, sig, 4, warnings, sizeof warnings) == 0);
  CHECK(strlen(warnings) > 0);
  char cmd[2200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, fresh);
  CHECK(system(cmd) == 0);
}

/* ---- builds sharing a cache ------------------------------------------------------------- */

/* What a build whose lowering differs might make of src: the same kernel,
 * the same metadata, other code. */
static const char tripled_src[] = "import triton\n"
                                  "import triton.language as tl\n"
                                  "@triton.jit\n"
                                  "def scale(x, y, n, s, B: tl.constexpr):\n"
                                  "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
                                  "    tl.store(y + o, tl.load(x + o, mask=o < n) * s * 3, mask=o < n)\n";

/* Runs `scale` with s = 2 on 100 elements at addresses 4 bytes past 16, so
 * that the kernel's creation and its launch share one specialization (one
 * cache entry); what y is as a multiple of x * s (1 for src), or -1 when
 * it is no multiple or the run fails. */
static float scale_factor(tilec_device *dev, const char *dir, const char *source) {
  const char *sig = "*fp32, *fp32, i32, fp32, 128";
  tilec_jit_options o = {.signature = sig, .cache_dir = dir};
  tilec_kernel *k = NULL;
  char *diag = NULL;
  if (tilec_kernel_create(dev, "scale.py", source, strlen(source), &o, &k, &diag) != TILEC_OK) {
    fprintf(stderr, "%s\n", diag ? diag : "");
    free(diag);
    return -1;
  }
  unsigned long long x, y;
  float in[101], out[101];
  for (int i = 0; i < 101; i++) in[i] = (float)i + 1;
  int bad = tilec_device_alloc(dev, sizeof in, &x, NULL) || tilec_device_alloc(dev, sizeof out, &y, NULL) ||
            tilec_device_copy_to(dev, x, in, sizeof in, NULL);
  unsigned grid[3] = {1, 1, 1};
  bad = bad || tilec_kernel_launchv(k, grid, NULL, NULL, x + 4, y + 4, 100, 2.0) != TILEC_OK ||
        tilec_device_copy_from(dev, out, y, sizeof out, NULL) != TILEC_OK;
  float factor = bad ? -1 : out[1] / (2 * in[1]);
  for (int i = 1; !bad && i < 101; i++)
    if (out[i] != factor * 2 * in[i]) factor = -1;
  tilec_device_free(dev, x, NULL), tilec_device_free(dev, y, NULL);
  tilec_kernel_destroy(k);
  return factor;
}

/* The key of the one entry in dir, from its file name; false when there
 * is not exactly one. */
static bool only_key(const char *dir, char key[65]) {
  char path[2048];
  if (entries(dir, path, sizeof path) != 1) return false;
  const char *name = strrchr(path, '/') + 1;
  snprintf(key, 65, "%.64s", name);
  return strlen(key) == 64;
}

/* The identity in the keys: each part changes them, where it counts. */
static void identity_keys(void) {
  const JitIdentity *own = jit_identity();
  CHECK_STR(own->build, tilec_build_id());
  CHECK(strlen(tilec_build_id()) == 64 && strspn(tilec_build_id(), "0123456789abcdef") == 64);
  CHECK(own->llvm[0] >= '1' && own->llvm[0] <= '9' && strchr(own->llvm, '.'));
  /* the triple, the CPU and its features, as codegen asks LLVM for them */
  CHECK(strchr(own->host, ' ') && strchr(own->host, '+'));
  CHECK(own->toolkit != NULL);

  char host[8192];
  snprintf(host, sizeof host, "%s,-avx2", own->host);
  const JitIdentity other[] = {
      {"another build", own->llvm, own->host, own->toolkit},
      {own->build, "22.1.9", own->host, own->toolkit},
      {own->build, own->llvm, host, own->toolkit},
      {own->build, own->llvm, own->host, "another toolkit"},
  };
  /* which parts count for the CPU's entries, and for the GPU's */
  const bool for_cpu[] = {true, true, true, false}, for_gpu[] = {true, true, false, true};
  tilec_compile_options cpu = {.signature = "*fp32, *fp32, i32, fp32, 128", .emit = TILEC_EMIT_CPU};
  tilec_compile_options gpu = {.signature = "*fp32, *fp32, i32, fp32, 128", .emit = TILEC_EMIT_PTX, .arch = "sm_80"};
  char cpu_key[65], gpu_key[65], again[65], k[65];
  jit_cache_key(own, "scale.py", src, sizeof src - 1, &cpu, cpu_key);
  jit_cache_key(own, "scale.py", src, sizeof src - 1, &gpu, gpu_key);
  jit_cache_key(own, "scale.py", src, sizeof src - 1, &cpu, again);
  CHECK_STR(again, cpu_key);
  CHECK(strcmp(cpu_key, gpu_key));
  for (int i = 0; i < 4; i++) {
    jit_cache_key(&other[i], "scale.py", src, sizeof src - 1, &cpu, k);
    CHECK((strcmp(k, cpu_key) != 0) == for_cpu[i]);
    jit_cache_key(&other[i], "scale.py", src, sizeof src - 1, &gpu, k);
    CHECK((strcmp(k, gpu_key) != 0) == for_gpu[i]);
  }
}

/* Two builds, one cache: build A's entry holds the code A's lowering made
 * (here the tripled kernel's), which A finds again; this build compiles
 * its own and finds that; neither gets the other's. So do a host with
 * other CPU features and another LLVM. */
static void two_builds(tilec_device *cpu) {
  char dir[] = "/tmp/tilec-jit-builds-XXXXXX", elsewhere[] = "/tmp/tilec-jit-builds-XXXXXX";
  CHECK(mkdtemp(dir) && mkdtemp(elsewhere));
  const JitIdentity *own = jit_identity();
  char host[8192];
  snprintf(host, sizeof host, "%s,-avx2", own->host);
  const JitIdentity a = {"a build whose lowering differs", own->llvm, own->host, own->toolkit};
  const JitIdentity no_avx2 = {own->build, own->llvm, host, own->toolkit};
  const JitIdentity llvm = {own->build, "22.1.9", own->host, own->toolkit};
  tilec_device *dev_a = NULL, *dev_h = NULL, *dev_l = NULL;
  CHECK(tilec_device_create(TILEC_DEVICE_CPU, &dev_a, NULL) == TILEC_OK && jit_device_set_identity(dev_a, &a));
  CHECK(tilec_device_create(TILEC_DEVICE_CPU, &dev_h, NULL) == TILEC_OK && jit_device_set_identity(dev_h, &no_avx2));
  CHECK(tilec_device_create(TILEC_DEVICE_CPU, &dev_l, NULL) == TILEC_OK && jit_device_set_identity(dev_l, &llvm));
  if (!dev_a || !dev_h || !dev_l) return;

  /* build A compiles the kernel into the cache, and its entry gets the code
   * A's lowering would make: the tripled kernel's, as A compiled it elsewhere */
  char key_a[65] = "", key_t[65] = "", warn[512];
  CHECK(scale_factor(dev_a, dir, src) == 1);
  CHECK(scale_factor(dev_a, elsewhere, tripled_src) == 3);
  CHECK(only_key(dir, key_a) && only_key(elsewhere, key_t));
  void *payload = NULL;
  size_t len = 0;
  CHECK(cache_get(elsewhere, key_t, &payload, &len, warn, sizeof warn) == 1);
  CHECK(payload && cache_put(dir, key_a, payload, len, warn, sizeof warn) == 1);
  free(payload);
  CHECK(scale_factor(dev_a, dir, src) == 3); /* A finds its own code */
  CHECK(entries(dir, NULL, 0) == 1);

  /* this build does not take it: it compiles its own, then finds that */
  CHECK(scale_factor(cpu, dir, src) == 1);
  CHECK(entries(dir, NULL, 0) == 2);
  CHECK(scale_factor(cpu, dir, src) == 1);
  CHECK(entries(dir, NULL, 0) == 2);
  CHECK(scale_factor(dev_a, dir, src) == 3);

  /* nor does a host without AVX2, or another LLVM */
  CHECK(scale_factor(dev_h, dir, src) == 1);
  CHECK(entries(dir, NULL, 0) == 3);
  CHECK(scale_factor(dev_l, dir, src) == 1);
  CHECK(entries(dir, NULL, 0) == 4);
  CHECK(scale_factor(dev_h, dir, src) == 1 && scale_factor(dev_l, dir, src) == 1);
  CHECK(entries(dir, NULL, 0) == 4);

  tilec_device_destroy(dev_a), tilec_device_destroy(dev_h), tilec_device_destroy(dev_l);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, elsewhere);
  CHECK(system(cmd) == 0);
}

/* A kernel whose helper lives in another module of its package: the disk
 * cache must notice when that module changes, though the kernel's own
 * file did not. Returns 0 when y = FACTOR * x came out, for each FACTOR
 * written into the helper in turn. */
static const char imports_kernel[] =
    "import triton\n"
    "import triton.language as tl\n"
    "from .helpers import scale\n"
    "@triton.jit\n"
    "def k(x, y, n, B: tl.constexpr):\n"
    "    offs = tl.program_id(0) * B + tl.arange(0, B)\n"
    "    tl.store(y + offs, scale(tl.load(x + offs, mask=offs < n)), mask=offs < n)\n";

static int write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return 1;
  fputs(text, f);
  return fclose(f) != 0;
}

static int cached_import(tilec_device *cpu) {
  char root[] = "/tmp/tilec-jit-import-XXXXXX";
  if (!mkdtemp(root)) return 1;
  char pkg[256], path[300], cache[300], cmd[700];
  snprintf(pkg, sizeof pkg, "%s/pkg", root);
  snprintf(cache, sizeof cache, "%s/cache", root);
  int bad = mkdir(pkg, 0700) != 0;
  snprintf(path, sizeof path, "%s/__init__.py", pkg);
  bad |= write_text(path, "");
  snprintf(path, sizeof path, "%s/kern.py", pkg);
  bad |= write_text(path, imports_kernel);
  char kern[300];
  snprintf(kern, sizeof kern, "%s", path);
  snprintf(path, sizeof path, "%s/helpers.py", pkg);
  float in[100], out[100];
  for (int i = 0; i < 100; i++) in[i] = (float)i - 50;
  const int factors[3] = {2, 3, 3};
  for (int round = 0; round < 3 && !bad; round++) {
    char helper[256];
    snprintf(helper, sizeof helper, "import triton\n@triton.jit\ndef scale(v):\n    return v * %d.0\n", factors[round]);
    bad |= write_text(path, helper);
    tilec_jit_options o = {.signature = "*fp32, *fp32, i32, 128", .grid = "cdiv(n, B)", .cache_dir = cache};
    tilec_kernel *k = NULL;
    char *diag = NULL;
    if (tilec_kernel_create(cpu, kern, imports_kernel, sizeof imports_kernel - 1, &o, &k, &diag) != TILEC_OK) {
      fprintf(stderr, "%s\n", diag ? diag : "");
      bad = 1;
    }
    free(diag);
    unsigned long long dx = 0, dy = 0;
    int n = 100;
    bad |= !k || tilec_device_alloc(cpu, sizeof in, &dx, NULL) || tilec_device_alloc(cpu, sizeof out, &dy, NULL) ||
           tilec_device_copy_to(cpu, dx, in, sizeof in, NULL);
    void *args[3] = {&dx, &dy, &n};
    char *report = NULL;
    bad |= bad || tilec_kernel_launch(k, NULL, args, 3, NULL, &report) != TILEC_OK;
    free(report);
    bad |= bad || tilec_device_copy_from(cpu, out, dy, sizeof out, NULL);
    for (int i = 0; i < 100 && !bad; i++)
      if (out[i] != in[i] * (float)factors[round]) {
        fprintf(stderr, "round %d: y[%d] = %g, want %g\n", round, i, (double)out[i], (double)(in[i] * factors[round]));
        bad = 1;
      }
    if (dx) tilec_device_free(cpu, dx, NULL);
    if (dy) tilec_device_free(cpu, dy, NULL);
    tilec_kernel_destroy(k);
  }
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) bad = 1;
  return bad;
}

/* ---- signatures in every spelling ------------------------------------------------------- */

/* A whole file, NUL-terminated; NULL when it cannot be read. */
static char *read_text(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *text = malloc(1 << 16);
  *len = text ? fread(text, 1, (1 << 16) - 1, f) : 0;
  fclose(f);
  if (text) text[*len] = 0;
  return text;
}

/* The bits of an fp16 or a bf16 that holds f exactly (a normal number or 0). */
static uint16_t f16_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  if (!(b << 1)) return (uint16_t)(b >> 16);
  return (uint16_t)((b >> 16 & 0x8000) | (((b >> 23 & 0xff) - 127 + 15) << 10) | (b >> 13 & 0x3ff));
}
static uint16_t bf16_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return (uint16_t)(b >> 16);
}

/* out = a x + y over mixed types: scalars and pointees of every width. */
static const char axpy_src[] = "import triton\n"
                               "import triton.language as tl\n"
                               "@triton.jit\n"
                               "def axpy(x, y, out, n, a, B: tl.constexpr):\n"
                               "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
                               "    m = o < n\n"
                               "    v = a * tl.load(x + o, mask=m).to(tl.float32) + tl.load(y + o, mask=m).to(tl.float32)\n"
                               "    tl.store(out + o, v, mask=m)\n";

static const char cast_src[] = "import triton\n"
                               "import triton.language as tl\n"
                               "@triton.jit\n"
                               "def cast(x, y, DT: tl.constexpr, n, B: tl.constexpr):\n"
                               "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
                               "    tl.store(y + o, tl.load(x + o, mask=o < n).to(DT), mask=o < n)\n";

/* A signature's types may be spelled as Triton names them (int32,
 * float32, bfloat16) or by their aliases (float, half), as tilec compile
 * takes them: each is a runtime parameter of its type, specialized on its
 * hints, passed by tilec_kernel_launch and tilec_kernel_launchv. Checked
 * against the values computed here. */
static void aliased_signatures(tilec_device *cpu) {
  enum { N = 3000 };
  static float hx[N], hy[N], out[N];
  size_t len = 0;
  char *add = read_text(EXAMPLES_DIR "/vector_add.py", &len);
  CHECK(add != NULL);
  if (!add) return;
  unsigned long long x, y, z;
  CHECK(tilec_device_alloc(cpu, N * 4, &x, NULL) == TILEC_OK && tilec_device_alloc(cpu, N * 4, &y, NULL) == TILEC_OK &&
        tilec_device_alloc(cpu, N * 4, &z, NULL) == TILEC_OK);
  for (int i = 0; i < N; i++) hx[i] = (float)(i % 101) * 0.75f - 30, hy[i] = (float)(i % 17) - 8;
  CHECK(tilec_device_copy_to(cpu, x, hx, sizeof hx, NULL) == TILEC_OK && tilec_device_copy_to(cpu, y, hy, sizeof hy, NULL) == TILEC_OK);

  /* examples/vector_add.py's add_kernel, on the grid of its options, then on one given */
  tilec_jit_options o = {.kernel = "add_kernel", .signature = "*float32, *float32, *float32, int32, 1024",
                         .grid = "cdiv(n_elements, BLOCK_SIZE)", .no_disk_cache = 1};
  tilec_kernel *k = NULL;
  char *diag = NULL, *report = NULL;
  CHECK(tilec_kernel_create(cpu, "vector_add.py", add, len, &o, &k, &diag) == TILEC_OK && k);
  free(diag);
  int n = N - 7;
  void *args[5] = {&x, &y, &z, &n};
  bool launched = k && tilec_kernel_launch(k, NULL, args, 4, NULL, &report) == TILEC_OK;
  CHECK(launched);
  if (report) fprintf(stderr, "%s\n", report);
  free(report);
  report = NULL;
  int wrong = 0;
  CHECK(tilec_device_copy_from(cpu, out, z, sizeof out, NULL) == TILEC_OK);
  for (int i = 0; launched && i < n; i++) wrong += out[i] != hx[i] + hy[i];
  CHECK(wrong == 0);
  unsigned grid[3] = {1, 1, 1};
  if (launched) { /* without the four parameters, the varargs would be read past the last */
    CHECK(tilec_kernel_launchv(k, grid, NULL, &report, x + 4, y + 4, z, 1000) == TILEC_OK);
    CHECK(tilec_device_copy_from(cpu, out, z, sizeof out, NULL) == TILEC_OK);
    for (int i = 0; i < 1000; i++) wrong += out[i] != hx[i + 1] + hy[i + 1];
    CHECK(wrong == 0);
    CHECK(tilec_kernel_specializations(k) == 3); /* the plain one, aligned pointers, x and y unaligned */
  }
  tilec_kernel_destroy(k);
  free(add);

  /* a 64-bit integer and a float scalar through the varargs, in other spellings */
  o = (tilec_jit_options){.signature = "*float, *fp32, int64, float, 256", .no_disk_cache = 1};
  k = NULL;
  CHECK(tilec_kernel_create(cpu, "scale.py", src, sizeof src - 1, &o, &k, &diag) == TILEC_OK && k);
  free(diag);
  long long n64 = 992;
  float s = -1.5f;
  void *sargs[4] = {&x, &z, &n64, &s};
  grid[0] = 4;
  launched = k && tilec_kernel_launch(k, grid, sargs, 4, NULL, &report) == TILEC_OK;
  CHECK(launched);
  free(report);
  report = NULL;
  if (launched) {
    CHECK(tilec_kernel_launchv(k, grid, NULL, &report, x, z, 1000LL, 2.5) == TILEC_OK);
    CHECK(tilec_device_copy_from(cpu, out, z, sizeof out, NULL) == TILEC_OK);
    for (int i = 0; i < 1000; i++) wrong += out[i] != 2.5f * hx[i];
    CHECK(wrong == 0);
  }
  tilec_kernel_destroy(k);

  /* pointers to bf16, fp16 and fp32, an unsigned count and a half scalar */
  static uint16_t bx[N], by[N];
  for (int i = 0; i < N; i++) bx[i] = bf16_bits((float)(i % 64) * 0.25f - 8), by[i] = f16_bits((float)(i % 7) * 0.5f);
  CHECK(tilec_device_copy_to(cpu, x, bx, sizeof bx, NULL) == TILEC_OK && tilec_device_copy_to(cpu, y, by, sizeof by, NULL) == TILEC_OK);
  o = (tilec_jit_options){.signature = "*bfloat16, *half, *float32, uint32, float16, 128", .grid = "cdiv(n, B)",
                          .no_disk_cache = 1};
  k = NULL;
  CHECK(tilec_kernel_create(cpu, "axpy.py", axpy_src, sizeof axpy_src - 1, &o, &k, &diag) == TILEC_OK && k);
  free(diag);
  uint32_t un = 2500;
  uint16_t a = f16_bits(1.5f);
  void *aargs[5] = {&x, &y, &z, &un, &a};
  launched = k && tilec_kernel_launch(k, NULL, aargs, 5, NULL, &report) == TILEC_OK;
  CHECK(launched);
  if (report) fprintf(stderr, "%s\n", report);
  free(report);
  report = NULL;
  CHECK(tilec_device_copy_from(cpu, out, z, sizeof out, NULL) == TILEC_OK);
  for (int i = 0; launched && i < (int)un; i++) wrong += out[i] != 1.5f * ((float)(i % 64) * 0.25f - 8) + (float)(i % 7) * 0.5f;
  CHECK(wrong == 0);
  /* varargs cannot carry a half: the message names its type as the table does */
  if (launched) {
    CHECK(tilec_kernel_launchv(k, NULL, NULL, &report, x, y, z, 16, 0) == TILEC_ERROR_USAGE);
    CHECK_STR(report, "tilec_kernel_launchv cannot pass a fp16 argument; use tilec_kernel_launch");
    free(report);
  }
  tilec_kernel_destroy(k);

  /* a dtype for a tl.constexpr reads as a type in the signature: the
   * metadata says which entries are the runtime parameters, so the JIT
   * takes it as the compiler does; a define passes it too */
  const char *dt[1] = {"DT=float16"};
  for (int way = 0; way < 2; way++) {
    /* DT between the runtime parameters: n is the signature's fourth entry */
    o = way ? (tilec_jit_options){.signature = "*fp32, *fp16, i32, 64", .defines = dt, .num_defines = 1,
                                  .grid = "cdiv(n, B)", .no_disk_cache = 1}
            : (tilec_jit_options){.signature = "*fp32, *fp16, float16, i32, 64", .grid = "cdiv(n, B)", .no_disk_cache = 1};
    CHECK(tilec_kernel_create(cpu, "cast.py", cast_src, sizeof cast_src - 1, &o, &k, &diag) == TILEC_OK && k);
    free(diag);
    diag = NULL;
    un = 100;
    void *cargs[3] = {&z, &y, &un};
    CHECK(k && tilec_kernel_launch(k, NULL, cargs, 3, NULL, NULL) == TILEC_OK);
    /* aligned and n a multiple of 16: another specialization, the entries kept apart */
    un = 96;
    CHECK(k && tilec_kernel_launch(k, NULL, cargs, 3, NULL, NULL) == TILEC_OK);
    CHECK(tilec_device_copy_from(cpu, by, y, 200, NULL) == TILEC_OK);
    for (int i = 0; i < 100; i++) wrong += by[i] != f16_bits(1.5f * ((float)(i % 64) * 0.25f - 8) + (float)(i % 7) * 0.5f);
    CHECK(wrong == 0);
    tilec_kernel_destroy(k);
    k = NULL;
  }
  CHECK(tilec_device_free(cpu, x, NULL) == TILEC_OK && tilec_device_free(cpu, y, NULL) == TILEC_OK &&
        tilec_device_free(cpu, z, NULL) == TILEC_OK);
}

/* @triton.jit(do_not_specialize=[...]): the parameters it names (by name
 * or number) get no hint, so values of every divisibility share one
 * specialization; the others still specialize. */
static void do_not_specialize(tilec_device *cpu) {
  static const char dns[] = "import triton\n"
                            "import triton.language as tl\n"
                            "@triton.jit(do_not_specialize=['n', 3])\n"
                            "def scale(x_ptr, y_ptr, n, m, BLOCK: tl.constexpr):\n"
                            "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                            "    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * m, mask=offs < n)\n";
  unsigned long long x, y;
  CHECK(tilec_device_alloc(cpu, 512 * 4, &x, NULL) == TILEC_OK && tilec_device_alloc(cpu, 512 * 4, &y, NULL) == TILEC_OK);
  float host[512], out[512];
  for (int i = 0; i < 512; i++) host[i] = (float)i;
  CHECK(tilec_device_copy_to(cpu, x, host, sizeof host, NULL) == TILEC_OK);
  tilec_jit_options o = {.signature = "*fp32, *fp32, i32, i32, 128", .no_disk_cache = 1};
  tilec_kernel *k = NULL;
  char *diag = NULL;
  CHECK(tilec_kernel_create(cpu, "dns.py", dns, sizeof dns - 1, &o, &k, &diag) == TILEC_OK && k);
  free(diag);
  if (!k) return;
  unsigned grid[3] = {4, 1, 1};
  char *report = NULL;
  int specs = tilec_kernel_specializations(k);
  static const int ns[] = {512, 511, 1, 496}, ms[] = {16, 3, 1, 7};
  for (int t = 0; t < 4; t++) {
    CHECK(tilec_kernel_launchv(k, grid, NULL, &report, x, y, ns[t], ms[t]) == TILEC_OK);
    CHECK(tilec_device_copy_from(cpu, out, y, sizeof out, NULL) == TILEC_OK);
    int wrong = 0;
    for (int i = 0; i < ns[t]; i++) wrong += out[i] != (float)(i * ms[t]);
    CHECK(wrong == 0);
  }
  CHECK(tilec_kernel_specializations(k) == specs + 1); /* aligned pointers; n and m never hinted */
  CHECK(tilec_kernel_launchv(k, grid, NULL, &report, x + 4, y, 100, 2) == TILEC_OK);
  CHECK(tilec_kernel_specializations(k) == specs + 2); /* x unaligned: the pointers still specialize */
  free(report);
  tilec_kernel_destroy(k);
  CHECK(tilec_device_free(cpu, x, NULL) == TILEC_OK && tilec_device_free(cpu, y, NULL) == TILEC_OK);
}

/* A host tensor descriptor parameter: the launch passes its base pointer,
 * shape and strides (i64) in its place, as tilec run does; a block past
 * the shape reads zeros, and the descriptor's parameters get no hints
 * (one specialization for every shape). On sm_90a (arch) the load is a
 * TMA copy from the tensor map the launch builds from those arguments. */
static void tensor_descriptor(tilec_device *cpu, const char *arch) {
  static const char desc_src[] = "import triton\n"
                            "import triton.language as tl\n"
                            "@triton.jit\n"
                            "def twice(in_desc, out_ptr, N, BM: tl.constexpr, BN: tl.constexpr):\n"
                            "    pm, pn = tl.program_id(0), tl.program_id(1)\n"
                            "    x = in_desc.load([pm * BM, pn * BN])\n"
                            "    rm = pm * BM + tl.arange(0, BM)\n"
                            "    rn = pn * BN + tl.arange(0, BN)\n"
                            "    tl.store(out_ptr + rm[:, None] * N + rn[None, :], x * 2)\n";
  enum { M = 20, N = 40, BM = 16, BN = 32, GM = 2, GN = 2 };
  unsigned long long x, y;
  CHECK(tilec_device_alloc(cpu, M * N * 4, &x, NULL) == TILEC_OK && tilec_device_alloc(cpu, GM * BM * GN * BN * 4, &y, NULL) == TILEC_OK);
  float host[M * N], out[GM * BM * GN * BN];
  for (int i = 0; i < M * N; i++) host[i] = (float)i;
  CHECK(tilec_device_copy_to(cpu, x, host, sizeof host, NULL) == TILEC_OK);
  tilec_jit_options o = {.signature = "tensordesc<fp32[16, 32]>, *fp32, i32, 16, 32", .no_disk_cache = 1, .arch = arch};
  tilec_kernel *k = NULL;
  char *diag = NULL;
  CHECK(tilec_kernel_create(cpu, "desc.py", desc_src, sizeof desc_src - 1, &o, &k, &diag) == TILEC_OK && k);
  if (diag) fprintf(stderr, "%s\n", diag);
  free(diag);
  if (!k) return;
  unsigned grid[3] = {GM, GN, 1};
  char *report = NULL;
  int specs = tilec_kernel_specializations(k);
  for (int t = 0; t < 2; t++) {
    long long rows = t ? 17 : M, cols = t ? 33 : N; /* a view of the first rows and columns */
    CHECK(tilec_kernel_launchv(k, grid, NULL, &report, x, rows, cols, (long long)N, 1LL, y, GN * BN) == TILEC_OK);
    if (report) fprintf(stderr, "%s\n", report);
    CHECK(tilec_device_copy_from(cpu, out, y, sizeof out, NULL) == TILEC_OK);
    int wrong = 0;
    for (int i = 0; i < GM * BM; i++)
      for (int j = 0; j < GN * BN; j++) wrong += out[i * GN * BN + j] != (i < rows && j < cols ? 2.0f * host[i * N + j] : 0.0f);
    CHECK(wrong == 0);
  }
  CHECK(tilec_kernel_specializations(k) == specs + 1);
  free(report);
  tilec_kernel_destroy(k);
  CHECK(tilec_device_free(cpu, x, NULL) == TILEC_OK && tilec_device_free(cpu, y, NULL) == TILEC_OK);
}

/* A TMA store through a host descriptor on sm_90a: the box's elements
 * outside the tensor are dropped (the bytes past a view's columns keep
 * their values); a descriptor that breaks what Triton's TensorDescriptor
 * asserts (a row stride not a multiple of 16 bytes, a base not aligned, a
 * last stride not 1), which the kernel assumes, is a usage error that
 * names the argument. */
static void tensor_map_store(tilec_device *cpu) {
  static const char store_src[] = "import triton\n"
                            "import triton.language as tl\n"
                            "@triton.jit\n"
                            "def fill(out_desc, BM: tl.constexpr, BN: tl.constexpr):\n"
                            "    pm, pn = tl.program_id(0), tl.program_id(1)\n"
                            "    rm = pm * BM + tl.arange(0, BM)\n"
                            "    rn = pn * BN + tl.arange(0, BN)\n"
                            "    v = (rm[:, None] * 1000 + rn[None, :]).to(tl.float16)\n"
                            "    out_desc.store([pm * BM, pn * BN], v)\n";
  enum { M = 40, N = 72, BM = 16, BN = 32 };
  unsigned long long y;
  CHECK(tilec_device_alloc(cpu, M * N * 2, &y, NULL) == TILEC_OK);
  tilec_jit_options o = {.signature = "tensordesc<fp16[16, 32]>, 16, 32", .no_disk_cache = 1, .arch = "sm_90a"};
  tilec_kernel *k = NULL;
  char *diag = NULL, *report = NULL;
  CHECK(tilec_kernel_create(cpu, "store.py", store_src, sizeof store_src - 1, &o, &k, &diag) == TILEC_OK && k);
  if (diag) fprintf(stderr, "%s\n", diag);
  free(diag);
  if (!k) return;
  static uint16_t out[M * N];
  memset(out, 0xff, sizeof out);
  CHECK(tilec_device_copy_to(cpu, y, out, sizeof out, NULL) == TILEC_OK);
  long long rows = 35, cols = 56; /* a view: the box past them is dropped */
  unsigned grid[3] = {3, 2, 1};
  CHECK(tilec_kernel_launchv(k, grid, NULL, &report, y, rows, cols, (long long)N, 1LL) == TILEC_OK);
  if (report) fprintf(stderr, "%s\n", report);
  free(report);
  report = NULL;
  CHECK(tilec_device_copy_from(cpu, out, y, sizeof out, NULL) == TILEC_OK);
  int wrong = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float want = (float)(i * 1000 + j);
      uint16_t h = out[i * N + j];
      /* fp16 to float, for the numbers written (normal, positive) */
      int ex = (h >> 10) & 31;
      float got = h == 0xffff ? -1.0f : ex ? ldexpf((float)(1024 + (h & 1023)), ex - 25) : ldexpf((float)(h & 1023), -24);
      bool in = i < rows && j < cols && i < 3 * BM && j < 2 * BN;
      wrong += in ? fabsf(got - want) > want / 512 : h != 0xffff;
    }
  CHECK(wrong == 0);
  /* a row of 36 halves (72 bytes) is not a multiple of 16 bytes */
  CHECK(tilec_kernel_launchv(k, grid, NULL, &report, y, rows, cols, 36LL, 1LL) == TILEC_ERROR_USAGE);
  CHECK_CONTAINS(report, "fill: argument 3 is 36; the kernel takes it a multiple of 8 (a tensor descriptor: a 16-byte aligned base, "
                         "every stride but the last a multiple of 16 bytes, the last 1, as Triton's TensorDescriptor asserts)");
  free(report);
  report = NULL;
  /* a base 2 bytes in, a last stride of 2 */
  CHECK(tilec_kernel_launchv(k, grid, NULL, &report, y + 2, rows, cols, (long long)N, 1LL) == TILEC_ERROR_USAGE);
  CHECK_CONTAINS(report, "argument 0 is");
  CHECK_CONTAINS(report, "the kernel takes it aligned to 16 (a tensor descriptor");
  free(report);
  report = NULL;
  CHECK(tilec_kernel_launchv(k, grid, NULL, &report, y, rows, cols, (long long)N, 2LL) == TILEC_ERROR_USAGE);
  CHECK_CONTAINS(report, "argument 4 is 2; the kernel takes it equal to 1");
  free(report);
  tilec_kernel_destroy(k);
  CHECK(tilec_device_free(cpu, y, NULL) == TILEC_OK);
}

/* A small integer (|v| < 1024) as fp16's bits. */
static uint16_t small_half(int v) {
  if (!v) return 0;
  unsigned m = (unsigned)abs(v);
  int e = 31 - __builtin_clz(m);
  return (uint16_t)((v < 0 ? 0x8000u : 0) | (unsigned)(15 + e) << 10 | ((m << (10 - e)) & 1023));
}

/* A K loop through host descriptors on sm_90a, as tutorial 09's
 * matmul_kernel_tma writes it: A [BM, BK] and B, [BN, BK] read through
 * .T or [BK, BN], copied by TMA into wgmma's operand slots two and three
 * stages ahead (B [K][N] 128 wide: two copies a slot), C stored by TMA;
 * ragged M and N (the boxes past them read
 * zeros, the stores past them are dropped), against a reference. */
static void tma_matmul(tilec_device *cpu) {
  static const char mm_src[] = "import triton\n"
                               "import triton.language as tl\n"
                               "@triton.jit\n"
                               "def mm(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,\n"
                               "       B_KN: tl.constexpr):\n"
                               "    pm, pn = tl.program_id(0), tl.program_id(1)\n"
                               "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
                               "    for k in tl.range(0, tl.cdiv(K, BK)):\n"
                               "        a = a_desc.load([pm * BM, k * BK])\n"
                               "        if B_KN:\n"
                               "            b = b_desc.load([k * BK, pn * BN])\n"
                               "            acc = tl.dot(a, b, acc)\n"
                               "        else:\n"
                               "            b = b_desc.load([pn * BN, k * BK])\n"
                               "            acc = tl.dot(a, b.T, acc)\n"
                               "    c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))\n";
  enum { M = 100, N = 72, K = 96, BM = 64, BK = 32 };
  static uint16_t a[M * K], b[N * K], c[M * N];
  static float ref[M * N], af[M * K], bf[N * K];
  unsigned seed = 7;
  for (int i = 0; i < M * K; i++) {
    seed = seed * 1103515245u + 12345u;
    int v = (int)(seed >> 16) % 17 - 8; /* small integers: exact in fp16 and in the sums */
    af[i] = (float)v;
    a[i] = small_half(v);
  }
  for (int i = 0; i < N * K; i++) {
    seed = seed * 1103515245u + 12345u;
    int v = (int)(seed >> 16) % 9 - 4;
    bf[i] = (float)v;
    b[i] = small_half(v);
  }
  for (int kn = 0; kn < 2; kn++) {
    /* B as [N][K] (read through .T), or as [K][N] */
    static uint16_t bb[N * K];
    for (int n = 0; n < N; n++)
      for (int k = 0; k < K; k++) bb[kn ? k * N + n : n * K + k] = b[n * K + k];
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        float s = 0;
        for (int k = 0; k < K; k++) s += af[i * K + k] * bf[j * K + k];
        ref[i * N + j] = s;
      }
    unsigned long long da, db, dc;
    CHECK(tilec_device_alloc(cpu, sizeof a, &da, NULL) == TILEC_OK && tilec_device_alloc(cpu, sizeof bb, &db, NULL) == TILEC_OK &&
          tilec_device_alloc(cpu, sizeof c, &dc, NULL) == TILEC_OK);
    memset(c, 0xff, sizeof c);
    CHECK(tilec_device_copy_to(cpu, da, a, sizeof a, NULL) == TILEC_OK && tilec_device_copy_to(cpu, db, bb, sizeof bb, NULL) == TILEC_OK &&
          tilec_device_copy_to(cpu, dc, c, sizeof c, NULL) == TILEC_OK);
    char sig[256];
    /* B [K][N] with BN 128: rows of 256 bytes, two 128-byte swizzle atoms, two copies a slot */
    int BN = kn ? 128 : 64;
    snprintf(sig, sizeof sig, "tensordesc<fp16[64, 32]>, tensordesc<fp16[%s]>, tensordesc<fp16[64, %d]>, i32, i32, i32, 64, %d, 32, %s",
             kn ? "32, 128" : "64, 32", BN, BN, kn ? "True" : "False");
    tilec_jit_options o = {.signature = sig, .no_disk_cache = 1, .arch = "sm_90a", .num_warps = 4, .num_stages = kn ? 3 : 2};
    tilec_kernel *k = NULL;
    char *diag = NULL, *report = NULL;
    CHECK(tilec_kernel_create(cpu, "mm.py", mm_src, sizeof mm_src - 1, &o, &k, &diag) == TILEC_OK && k);
    if (diag) fprintf(stderr, "%s\n", diag);
    free(diag);
    if (k) {
      unsigned grid[3] = {(M + BM - 1) / BM, (N + BN - 1) / BN, 1};
      tilec_status st = kn ? tilec_kernel_launchv(k, grid, NULL, &report, da, (long long)M, (long long)K, (long long)K, 1LL, db,
                                                  (long long)K, (long long)N, (long long)N, 1LL, dc, (long long)M, (long long)N,
                                                  (long long)N, 1LL, M, N, K)
                           : tilec_kernel_launchv(k, grid, NULL, &report, da, (long long)M, (long long)K, (long long)K, 1LL, db,
                                                  (long long)N, (long long)K, (long long)K, 1LL, dc, (long long)M, (long long)N,
                                                  (long long)N, 1LL, M, N, K);
      CHECK(st == TILEC_OK);
      if (report) fprintf(stderr, "%s\n", report);
      free(report);
      CHECK(tilec_device_copy_from(cpu, c, dc, sizeof c, NULL) == TILEC_OK);
      int wrong = 0;
      for (int i = 0; i < M * N; i++) {
        uint16_t h = c[i];
        int ex = (h >> 10) & 31;
        float mag = ex ? ldexpf((float)(1024 + (h & 1023)), ex - 25) : ldexpf((float)(h & 1023), -24);
        float got = h & 0x8000 ? -mag : mag;
        wrong += fabsf(got - ref[i]) > fabsf(ref[i]) / 512 + 0.01f;
      }
      if (wrong) fprintf(stderr, "tma_matmul (B %s): %d of %d wrong\n", kn ? "[K][N]" : "[N][K]", wrong, M * N);
      CHECK(wrong == 0);
      tilec_kernel_destroy(k);
    }
    CHECK(tilec_device_free(cpu, da, NULL) == TILEC_OK && tilec_device_free(cpu, db, NULL) == TILEC_OK &&
          tilec_device_free(cpu, dc, NULL) == TILEC_OK);
  }
}

int unit_main(void) {
  /* devices */
  tilec_device *cpu = NULL, *none = NULL;
  char *why = NULL;
  CHECK(tilec_device_create(TILEC_DEVICE_CPU, &cpu, &why) == TILEC_OK && cpu);
  CHECK(tilec_device_kind_of(cpu) == TILEC_DEVICE_CPU);
  CHECK(tilec_device_create(TILEC_DEVICE_CPU, NULL, NULL) == TILEC_ERROR_USAGE);
  if (!getenv("TILEC_TEST_HAS_GPU")) {
    /* without a driver there is no CUDA device (TILEC_ERROR_NO_DEVICE), and AUTO falls back to the CPU */
    CHECK(tilec_device_create(TILEC_DEVICE_CUDA, &none, &why) == TILEC_ERROR_NO_DEVICE && !none);
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
  CHECK(tilec_device_alloc(cpu, 1000 * 4, &x, NULL) == TILEC_OK && x % 16 == 0);
  CHECK(tilec_device_alloc(cpu, 1000 * 4, &y, NULL) == TILEC_OK);
  float host[1000];
  for (int i = 0; i < 1000; i++) host[i] = (float)i;
  CHECK(tilec_device_copy_to(cpu, x, host, sizeof host, NULL) == TILEC_OK);
  CHECK(tilec_device_copy_to(cpu, x + 4, host, sizeof host, NULL) == TILEC_ERROR_USAGE); /* past the end */
  CHECK(tilec_device_copy_to(cpu, 16, host, 4, NULL) == TILEC_ERROR_USAGE);             /* not an allocation */
  CHECK(tilec_device_free(cpu, 12345, NULL) == TILEC_ERROR_USAGE);

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
  CHECK(tilec_device_copy_from(cpu, out, y, sizeof out, NULL) == TILEC_OK);
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
  CHECK(tilec_device_copy_from(cpu, out, y, 8, NULL) == TILEC_OK && out[0] == 0.0f);

  /* the emulator's checks come back as the report: n larger than the buffers */
  CHECK(tilec_kernel_launchv(k, grid, NULL, &report, x, y, 1024, 1.0) == TILEC_ERROR_CHECK);
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
  CHECK_CONTAINS(report, "tilec_kernel_launch: the grid (0, 1, 1): grid dimension x is 0; it must be at least 1");
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

  CHECK(tilec_device_free(cpu, x, NULL) == TILEC_OK && tilec_device_free(cpu, y, NULL) == TILEC_OK);
  disk_cache(cpu);
  identity_keys();
  two_builds(cpu);
  none_args(cpu);
  autotune(cpu);
  host_memory(cpu);
  packed_arguments(cpu);
  describe();
  CHECK(cached_import(cpu) == 0);
  aliased_signatures(cpu);
  do_not_specialize(cpu);
  tensor_descriptor(cpu, NULL);
  tensor_descriptor(cpu, "sm_90a");
  tensor_map_store(cpu);
  tma_matmul(cpu);
  tilec_device_destroy(cpu);
  return 0;
}
