/* test_nomem.c — the JIT and the runtime beneath it check every
 * allocation, and so do the compiler's entry points for their results:
 * failing any one of them makes the call that made it return
 * TILEC_ERROR_NO_MEMORY (or go on without what it wanted, where that is
 * safe: a warning, a cache entry), never crash or return a wrong status,
 * and leaves nothing leaked (the ASan build checks that).
 *
 * The test is linked with --wrap for malloc, calloc, realloc,
 * aligned_alloc, strdup and mmap: every call the library's own objects make
 * goes through the wrappers below, which fail the Nth. The same program,
 * from opening the device to reading the results back, runs with N = 0, 1,
 * 2, ... until one run makes fewer allocations than N. The kernels are
 * found in the disk cache, so that the compiler, which treats running out
 * of memory as an internal error, does not run; the run whose failed
 * allocation makes the cache miss compiles with no more failures. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tilec/tilec.h"
#include "unit.h"

/* ---- the allocator that fails the Nth call ---------------------------------------------------- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
char *__real_strdup(const char *s);
void *__real_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t align, size_t n);
char *__wrap_strdup(const char *s);
void *__wrap_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off);

static atomic_long countdown = -1; /* allocations before the one that fails; negative: none fails */
static atomic_bool fired;
static atomic_long calls; /* all of them */

static bool fail_now(void) {
  atomic_fetch_add(&calls, 1);
  if (atomic_load(&countdown) < 0) return false;
  if (atomic_fetch_sub(&countdown, 1) != 0) return false;
  atomic_store(&fired, true);
  return true;
}

void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return fail_now() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }
void *__wrap_aligned_alloc(size_t align, size_t n) { return fail_now() ? NULL : __real_aligned_alloc(align, n); }
char *__wrap_strdup(const char *s) { return fail_now() ? NULL : __real_strdup(s); }
void *__wrap_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off) {
  return fail_now() ? MAP_FAILED : __real_mmap(addr, n, prot, flags, fd, off);
}

/* ---- the program -------------------------------------------------------------------------------- */

/* a kernel of one thread per element, and one with a reduction (fibers, shared memory) */
static const char src[] = "import triton\n"
                          "import triton.language as tl\n"
                          "@triton.jit\n"
                          "def scale(x, y, n, s, B: tl.constexpr):\n"
                          "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
                          "    tl.store(y + o, tl.load(x + o, mask=o < n) * s, mask=o < n)\n"
                          "@triton.jit\n"
                          "def rows(x, y, B: tl.constexpr):\n"
                          "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
                          "    tl.store(y + tl.program_id(0), tl.sum(tl.load(x + o), axis=0))\n";

enum { N = 512, B = 128 };

/* What a run came to. */
typedef struct Outcome {
  bool wrong;   /* a status other than OK and NO_MEMORY, a missing message, or a wrong result */
  bool no_mem;  /* a call said TILEC_ERROR_NO_MEMORY */
  char where[64];
} Outcome;

/* A status: OK goes on; NO_MEMORY stops the run; anything else is wrong. */
static bool step(Outcome *o, tilec_status st, char **msg, const char *what) {
  if (st != TILEC_OK && !o->where[0]) snprintf(o->where, sizeof o->where, "%s", what);
  if (st == TILEC_ERROR_NO_MEMORY) o->no_mem = true;
  else if (st != TILEC_OK) {
    fprintf(stderr, "%s: status %d: %s\n", what, (int)st, msg && *msg ? *msg : "");
    o->wrong = true;
  }
  if (msg) {
    free(*msg);
    *msg = NULL;
  }
  return st == TILEC_OK;
}

static Outcome run(const char *dir) {
  Outcome o = {0};
  char *msg = NULL;
  tilec_device *d = NULL;
  tilec_kernel *ks = NULL, *kr = NULL;
  tilec_devptr x = 0, y = 0, r = 0;
  static float in[N], out[N], sums[N / B];
  for (int i = 0; i < N; i++) in[i] = (float)(i % 7) - 2.5f;
  tilec_jit_options so = {.kernel = "scale", .signature = "*fp32, *fp32, i32, fp32, 128", .cache_dir = dir,
                          .grid = "cdiv(n, B)"};
  tilec_jit_options ro = {.kernel = "rows", .signature = "*fp32, *fp32, 128", .cache_dir = dir};
  unsigned grid[3] = {N / B, 1, 1};
  bool ok = step(&o, tilec_device_create(TILEC_DEVICE_CPU, &d, &msg), &msg, "tilec_device_create") &&
            step(&o, tilec_device_alloc(d, sizeof in, &x, &msg), &msg, "tilec_device_alloc") &&
            step(&o, tilec_device_alloc(d, sizeof out, &y, &msg), &msg, "tilec_device_alloc") &&
            step(&o, tilec_device_alloc(d, sizeof sums, &r, &msg), &msg, "tilec_device_alloc") &&
            step(&o, tilec_device_copy_to(d, x, in, sizeof in, &msg), &msg, "tilec_device_copy_to") &&
            step(&o, tilec_kernel_create(d, "k.py", src, sizeof src - 1, &so, &ks, &msg), &msg, "create scale") &&
            step(&o, tilec_kernel_launchv(ks, NULL, NULL, &msg, x, y, N, 2.0), &msg, "launch scale") &&
            step(&o, tilec_kernel_create(d, "k.py", src, sizeof src - 1, &ro, &kr, &msg), &msg, "create rows") &&
            step(&o, tilec_kernel_launchv(kr, grid, NULL, &msg, x, r), &msg, "launch rows") &&
            step(&o, tilec_device_copy_from(d, out, y, sizeof out, &msg), &msg, "tilec_device_copy_from") &&
            step(&o, tilec_device_copy_from(d, sums, r, sizeof sums, &msg), &msg, "tilec_device_copy_from");
  if (ok) {
    for (int i = 0; i < N; i++) o.wrong |= out[i] != 2 * in[i];
    for (int b = 0; b < N / B; b++) {
      float s = 0;
      for (int i = 0; i < B; i++) s += in[b * B + i];
      o.wrong |= sums[b] != s;
    }
    if (o.wrong) fprintf(stderr, "wrong results\n");
  }
  tilec_kernel_destroy(ks);
  tilec_kernel_destroy(kr);
  tilec_device_destroy(d); /* frees the allocations */
  return o;
}

/* The compiler's entry points: their first allocation is their result's,
 * and their last ones copy its parts into it (output, dump, metadata,
 * dependencies, diagnostics); a copy that fails is not a success with a
 * part missing. */
static void compiler(void) {
  tilec_context *ctx = (tilec_context *)&ctx;
  atomic_store(&countdown, 0);
  CHECK(tilec_context_create(&ctx) == TILEC_ERROR_NO_MEMORY && !ctx);
  tilec_result *r = (tilec_result *)&r;
  tilec_compile_options co = {.kernel = "scale", .signature = "*fp32:16, *fp32:16, i32, fp32, 128",
                              .emit = TILEC_EMIT_CPU};
  atomic_store(&countdown, 0);
  CHECK(tilec_compile("k.py", src, sizeof src - 1, &co, &r) == TILEC_ERROR_NO_MEMORY && !r);
  atomic_store(&countdown, 0);
  CHECK(tilec_opt("k.mlir", "", 0, "cse", 0, NULL, &r) == TILEC_ERROR_NO_MEMORY && !r);
  atomic_store(&countdown, -1);
  long before = atomic_load(&calls);
  CHECK(tilec_compile("k.py", src, sizeof src - 1, &co, &r) == TILEC_OK);
  tilec_result_destroy(r);
  long total = atomic_load(&calls) - before;
  for (int last = 1; last <= 5; last++) {
    atomic_store(&countdown, total - last);
    CHECK(tilec_compile("k.py", src, sizeof src - 1, &co, &r) == TILEC_ERROR_NO_MEMORY);
    tilec_result_destroy(r);
  }
  atomic_store(&countdown, -1);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

int unit_main(void) {
  char dir[1024];
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/tilec-nomem-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    fprintf(stderr, "cannot make a cache directory\n");
    unit_failures++;
    return 0;
  }
  /* the first run compiles the kernels into the cache */
  Outcome first = run(dir);
  CHECK(!first.wrong && !first.no_mem);
  int runs = 0, stopped = 0, absorbed = 0;
  for (long n = 0;; n++) {
    atomic_store(&fired, false);
    atomic_store(&countdown, n);
    Outcome o = run(dir);
    atomic_store(&countdown, -1);
    if (!atomic_load(&fired)) {
      CHECK(!o.wrong && !o.no_mem); /* no allocation failed: all is well */
      break;
    }
    runs++;
    if (o.wrong) {
      fprintf(stderr, "allocation %ld failing made the run go wrong (at %s)\n", n, o.where[0] ? o.where : "the end");
      unit_failures++;
    }
    if (o.no_mem) stopped++;
    else absorbed++;
  }
  compiler();
  fprintf(stderr, "%d runs, one failed allocation each: %d said TILEC_ERROR_NO_MEMORY, %d went on without it\n", runs,
          stopped, absorbed);
  /* the loop reached the allocations of every step */
  CHECK(runs > 40 && stopped > 20);
  nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
  return 0;
}
