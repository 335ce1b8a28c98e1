/*
 * test_checks.c — each check of the CPU emulator fires: an out-of-bounds
 * store, a read of uninitialized shared memory, a missing barrier exposed by
 * a seeded thread order, a divergent shuffle, a deadlock, an unknown
 * function, a device assertion; a race between programs whether they run
 * one after another or at once; a read of a device allocation nothing
 * wrote; an atomic out of bounds; a grid larger than CUDA's. The kernels that the compiler could not produce (it never forgets
 * a barrier) are written in LLVM IR here, in the form codegen/emu.c gives
 * the emulator. (tests/emu/checks has the races and reads of unwritten
 * memory that `tilec run` reports.)
 *
 * usage: test_checks EXAMPLES_DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "tilec/tilec.h"
#include "emu_test.h"

static const char prelude[] =
    "@tilec_emu_shared_bytes = constant i64 512\n"
    "declare i32 @tilec.emu.tid.x()\n"
    "declare ptr addrspace(3) @tilec.emu.smem()\n"
    "declare void @tilec.emu.barrier()\n"
    "declare i32 @tilec.emu.lds.b32(ptr addrspace(3))\n"
    "declare void @tilec.emu.sts.b32(ptr addrspace(3), i32)\n"
    "@tilec_emu_sites = constant [14 x i8] c\"race.ll:20:3\\00\\00\"\n"
    "declare void @tilec.emu.st.b32(ptr addrspace(1), i1, i32, i32)\n"
    "declare i32 @tilec.emu.shfl.bfly.i32(i32, i32, i32, i32)\n";

/* Runs `body` (the instructions of tilec_emu_entry after %tid, %s and %out
 * are defined) on one block of 128 threads; out gets 128 ints. */
static bool run_ir(const char *body, uint64_t seed, int32_t *out, char **report) {
  char ir[8192];
  snprintf(ir, sizeof ir,
           "%s"
           "define void @tilec_emu_entry(ptr %%args) {\n"
           "  %%pp = load ptr, ptr %%args\n"
           "  %%out = load ptr addrspace(1), ptr %%pp\n"
           "  %%tid = call i32 @tilec.emu.tid.x()\n"
           "  %%s = call ptr addrspace(3) @tilec.emu.smem()\n"
           "%s"
           "  ret void\n"
           "}\n",
           prelude, body);
  char *err = NULL;
  EmuKernel *k = emu_load(ir, strlen(ir), "race", &err);
  if (!k) {
    *report = err;
    return false;
  }
  void *o = out;
  void *args[1] = {&o};
  EmuBuffer b = {out, 128 * 4, "out"};
  EmuLaunch l = {.grid = {1, 1, 1}, .num_warps = 4, .args = args, .nargs = 1, .buffers = &b, .nbuffers = 1, .seed = seed};
  bool ok = emu_launch(k, &l, report, NULL);
  emu_unload(k);
  return ok;
}

/* smem[tid] = tid; barrier; x = smem[tid+1]; [barrier;] smem[tid] = x + 100;
 * barrier; out[tid] = smem[tid+1]: with the middle barrier every thread
 * gets tid + 102 (mod 128), whatever the order; without it, a thread may
 * read its neighbour's slot after the neighbour overwrote it. */
static const char *exchange(bool middle_barrier) {
  static char body[2048];
  snprintf(body, sizeof body,
           "  %%a = getelementptr i32, ptr addrspace(3) %%s, i32 %%tid\n"
           "  call void @tilec.emu.sts.b32(ptr addrspace(3) %%a, i32 %%tid)\n"
           "  call void @tilec.emu.barrier()\n"
           "  %%t1 = add i32 %%tid, 1\n"
           "  %%n = and i32 %%t1, 127\n"
           "  %%b = getelementptr i32, ptr addrspace(3) %%s, i32 %%n\n"
           "  %%x = call i32 @tilec.emu.lds.b32(ptr addrspace(3) %%b)\n"
           "  %%x2 = add i32 %%x, 100\n"
           "%s"
           "  call void @tilec.emu.sts.b32(ptr addrspace(3) %%a, i32 %%x2)\n"
           "  call void @tilec.emu.barrier()\n"
           "  %%y = call i32 @tilec.emu.lds.b32(ptr addrspace(3) %%b)\n"
           "  %%o = getelementptr i32, ptr addrspace(1) %%out, i32 %%tid\n"
           "  call void @tilec.emu.st.b32(ptr addrspace(1) %%o, i1 true, i32 %%y, i32 0)\n",
           middle_barrier ? "  call void @tilec.emu.barrier()\n" : "");
  return body;
}

static void missing_barrier(void) {
  int32_t out[128];
  char *report = NULL;
  /* with the barrier: the right answer in every order */
  for (uint64_t seed = 0; seed < 4; seed++) {
    memset(out, 0, sizeof out);
    CHECK(run_ir(exchange(true), seed, out, &report));
    free(report);
    int bad = 0;
    for (int t = 0; t < 128; t++) bad += out[t] != (t + 2) % 128 + 100;
    CHECK(bad == 0);
  }
  /* without it: the answer depends on the order, and some seed shows it */
  int differ = 0;
  for (uint64_t seed = 1; seed < 9; seed++) {
    memset(out, 0, sizeof out);
    CHECK(run_ir(exchange(false), seed, out, &report));
    free(report);
    for (int t = 0; t < 128; t++) differ += out[t] != (t + 2) % 128 + 100;
  }
  CHECK(differ > 0);
}

static void uninitialized_shared(void) {
  /* each thread reads its neighbour's slot with no barrier after the writes:
   * thread 0 runs first and reads slot 1 before thread 1 wrote it */
  const char *body = "  %a = getelementptr i32, ptr addrspace(3) %s, i32 %tid\n"
                     "  call void @tilec.emu.sts.b32(ptr addrspace(3) %a, i32 %tid)\n"
                     "  %t1 = add i32 %tid, 1\n"
                     "  %n = and i32 %t1, 127\n"
                     "  %b = getelementptr i32, ptr addrspace(3) %s, i32 %n\n"
                     "  %x = call i32 @tilec.emu.lds.b32(ptr addrspace(3) %b)\n"
                     "  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid\n"
                     "  call void @tilec.emu.st.b32(ptr addrspace(1) %o, i1 true, i32 %x, i32 0)\n";
  int32_t out[128];
  char *report = NULL;
  CHECK(!run_ir(body, 0, out, &report));
  CHECK_CONTAINS(report, "read of uninitialized shared memory (4 bytes at offset 4 of 512) in kernel 'race', "
                         "block (0, 0, 0), thread 0");
  free(report);
}

static void divergent_shuffle(void) {
  /* lanes 0-15 shuffle with the full mask, lanes 16-31 with their half */
  const char *body = "  %lo = icmp ult i32 %tid, 16\n"
                     "  %mask = select i1 %lo, i32 -1, i32 -65536\n"
                     "  %v = call i32 @tilec.emu.shfl.bfly.i32(i32 %mask, i32 %tid, i32 1, i32 31)\n"
                     "  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid\n"
                     "  call void @tilec.emu.st.b32(ptr addrspace(1) %o, i1 true, i32 %v, i32 0)\n";
  int32_t out[128];
  char *report = NULL;
  CHECK(!run_ir(body, 0, out, &report));
  CHECK_CONTAINS(report, "kernel 'race', block (0, 0, 0)");
  CHECK(report && (strstr(report, "diverg") || strstr(report, "mask")));
  free(report);
}

static void deadlock(void) {
  /* in the first warp, half the lanes wait at a barrier, the other half in a
   * shuffle with the whole warp */
  const char *body = "  %lo = icmp ult i32 %tid, 16\n"
                     "  br i1 %lo, label %bar, label %shfl\n"
                     "bar:\n"
                     "  call void @tilec.emu.barrier()\n"
                     "  br label %done\n"
                     "shfl:\n"
                     "  %v = call i32 @tilec.emu.shfl.bfly.i32(i32 -1, i32 %tid, i32 1, i32 31)\n"
                     "  call void @tilec.emu.barrier()\n"
                     "  br label %done\n"
                     "done:\n";
  int32_t out[128];
  char *report = NULL;
  CHECK(!run_ir(body, 0, out, &report));
  CHECK_CONTAINS(report, "kernel 'race', block (0, 0, 0)");
  CHECK(report && strstr(report, "deadlock"));
  free(report);
}

static void unknown_function(void) {
  const char *ir = "@tilec_emu_shared_bytes = constant i64 0\n"
                   "@tilec_emu_sites = constant [1 x i8] zeroinitializer\n"
                   "declare void @tilec.emu.warp.teleport()\n"
                   "define void @tilec_emu_entry(ptr %args) {\n"
                   "  call void @tilec.emu.warp.teleport()\n"
                   "  ret void\n"
                   "}\n";
  char *err = NULL;
  EmuKernel *k = emu_load(ir, strlen(ir), "k", &err);
  CHECK(!k);
  CHECK_CONTAINS(err, "the kernel calls 'tilec.emu.warp.teleport', which the emulator does not implement");
  free(err);
  emu_unload(k);
}

static EmuKernel *compile_source(const char *name, const char *src, size_t len, const char *kernel, const char *sig) {
  tilec_compile_options o = {.kernel = kernel, .signature = sig, .emit = TILEC_EMIT_CPU};
  tilec_result *r = NULL;
  EmuKernel *k = NULL;
  if (tilec_compile(name, src, len, &o, &r) == TILEC_OK) {
    size_t n;
    const char *ir = tilec_result_output(r, &n);
    char *err = NULL;
    k = emu_load_object(ir, n, kernel, &err);
    if (!k) fprintf(stderr, "%s\n", err);
    free(err);
  } else {
    fprintf(stderr, "%s", tilec_result_diagnostics(r));
  }
  tilec_result_destroy(r);
  CHECK(k != NULL);
  return k;
}

/* examples/NAME's text (NULL, a failed check, where it cannot be read) */
static char *example_source(const char *examples, const char *name, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", examples, name);
  char *src = slurp(path, len);
  CHECK(src != NULL);
  return src;
}

/* vector add with an output buffer 5 elements short: the stores past it
 * are reported with the buffer's name, and not made */
static void out_of_bounds(const char *examples) {
  size_t len;
  char *src = example_source(examples, "vector_add.py", &len);
  if (!src) return;
  EmuKernel *k = compile_source("vector_add.py", src, len, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024");
  free(src);
  if (!k) return;
  int n = 3000;
  float *x = calloc((size_t)n, 4), *y = calloc((size_t)n, 4), *out = calloc((size_t)n, 4);
  for (int i = 0; i < n; i++) x[i] = (float)i, y[i] = 1;
  EmuBuffer b[3] = {{x, n * 4u, "x_ptr"}, {y, n * 4u, "y_ptr"}, {out, (n - 5) * 4u, "out_ptr"}};
  void *a[4] = {&b[0].data, &b[1].data, &b[2].data, &n};
  EmuLaunch l = {.grid = {3, 1, 1}, .num_warps = 4, .args = a, .nargs = 4, .buffers = b, .nbuffers = 3};
  char *report = NULL;
  CHECK(!emu_launch(k, &l, &report, NULL));
  CHECK_CONTAINS(report, "vector_add.py:17:5: out-of-bounds store of 4 bytes");
  CHECK_CONTAINS(report, "in kernel 'add_kernel', block (2, 0, 0)");
  CHECK_CONTAINS(report, "bytes after the start of 'out_ptr', which has 11980 bytes");
  int bad = 0;
  for (int i = 0; i < n - 5; i++) bad += out[i] != x[i] + 1;
  CHECK(bad == 0);
  free(report);
  emu_unload(k);
  free(x), free(y), free(out);
}

/* A signature that promises more alignment than the pointer has: vector_add
 * with x_ptr:16 run on x + 1 (4-byte aligned) loads 16-byte vectors at
 * addresses that are not multiples of 16, which a GPU faults on; the
 * emulator reports the first ones at the load's source line. With x_ptr
 * unhinted, the same pointer runs clean (4-byte loads). */
static void misaligned_vector(const char *examples) {
  size_t len;
  char *src = example_source(examples, "vector_add.py", &len);
  if (!src) return;
  for (int hinted = 1; hinted >= 0; hinted--) {
    EmuKernel *k = compile_source("vector_add.py", src, len, "add_kernel",
                                  hinted ? "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024" : "*fp32, *fp32:16, *fp32:16, i32:16, 1024");
    if (!k) break;
    int n = 1024;
    float *x = calloc((size_t)n + 4, 4), *y = calloc((size_t)n, 4), *out = calloc((size_t)n, 4);
    float *x1 = x + 1;
    EmuBuffer b[3] = {{x1, n * 4u, "x_ptr"}, {y, n * 4u, "y_ptr"}, {out, n * 4u, "out_ptr"}};
    void *a[4] = {&b[0].data, &b[1].data, &b[2].data, &n};
    EmuLaunch l = {.grid = {1, 1, 1}, .num_warps = 4, .args = a, .nargs = 4, .buffers = b, .nbuffers = 3};
    char *report = NULL;
    bool ok = emu_launch(k, &l, &report, NULL);
    if (hinted) {
      CHECK(!ok);
      CHECK_CONTAINS(report, "misaligned vector load of 16 bytes");
      CHECK_CONTAINS(report, "the address must be a multiple of 16");
    } else {
      CHECK(ok);
    }
    free(report);
    emu_unload(k);
    free(x), free(y), free(out);
  }
  free(src);
  /* the same promise broken for a tensor-core operand: examples/matmul.py with
   * a:16 on a + 1 (2-byte aligned) copies A's rows by 16-byte cp.async */
  if (!(src = example_source(examples, "matmul.py", &len))) return;
  EmuKernel *k = compile_source("matmul.py", src, len, "matmul_kernel",
                                "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, "
                                "i32:1, 64, 64, 32, 8, ''");
  free(src);
  if (!k) return;
  enum { S = 64 };
  uint16_t *a = calloc(S * S + 8, 2), *b = calloc(S * S, 2), *c = calloc(S * S, 2);
  int32_t dims[9] = {S, S, S, S, 1, S, 1, S, 1};
  EmuBuffer bf[3] = {{a + 1, S * S * 2u, "a_ptr"}, {b, S * S * 2u, "b_ptr"}, {c, S * S * 2u, "c_ptr"}};
  void *args[12] = {&bf[0].data, &bf[1].data, &bf[2].data};
  for (int i = 0; i < 9; i++) args[3 + i] = &dims[i];
  EmuLaunch l = {.grid = {1, 1, 1}, .num_warps = 4, .args = args, .nargs = 12, .buffers = bf, .nbuffers = 3};
  char *report = NULL;
  CHECK(!emu_launch(k, &l, &report, NULL));
  CHECK_CONTAINS(report, "misaligned cp.async source of 16 bytes");
  free(report);
  emu_unload(k);
  free(a), free(b), free(c);
}

/* tl.device_assert reports the source line, the kernel, block and thread */
static void device_assert(void) {
  static const char src[] = "import triton\n"
                            "import triton.language as tl\n"
                            "@triton.jit\n"
                            "def check_positive(x_ptr, n, BLOCK: tl.constexpr):\n"
                            "    offs = tl.arange(0, BLOCK)\n"
                            "    x = tl.load(x_ptr + offs, mask=offs < n, other=1.0)\n"
                            "    tl.device_assert(x > 0, 'x must be positive')\n";
  EmuKernel *k = compile_source("assert.py", src, sizeof src - 1, "check_positive", "*fp32, i32, 128");
  if (!k) return;
  float x[100];
  for (int i = 0; i < 100; i++) x[i] = i == 37 ? -1.0f : 1.0f;
  int n = 100;
  EmuBuffer b = {x, sizeof x, "x_ptr"};
  void *p = x;
  void *a[2] = {&p, &n};
  EmuLaunch l = {.grid = {1, 1, 1}, .num_warps = 4, .args = a, .nargs = 2, .buffers = &b, .nbuffers = 1};
  char *report = NULL;
  CHECK(!emu_launch(k, &l, &report, NULL));
  CHECK_CONTAINS(report, "assert.py:7: device assertion failed in kernel 'check_positive', block (0, 0, 0), thread 37");
  CHECK_CONTAINS(report, "x must be positive");
  free(report);
  emu_unload(k);
}

/* A counter read and written back by 200 programs: reported when the blocks
 * run one after another on one host thread (which gives the right count) as
 * when they run on four at once; the atomic counter is silent both ways, and
 * no_racecheck turns the check off. */
static void race_between_programs(void) {
  static const char src[] = "import triton\n"
                            "import triton.language as tl\n"
                            "@triton.jit\n"
                            "def counter(p):\n"
                            "    c = tl.load(p)\n"
                            "    tl.store(p, c + 1)\n"
                            "@triton.jit\n"
                            "def counter_atomic(p):\n"
                            "    tl.atomic_add(p, 1)\n";
  EmuKernel *plain = compile_source("counter.py", src, sizeof src - 1, "counter", "*i32");
  EmuKernel *atomic = compile_source("counter.py", src, sizeof src - 1, "counter_atomic", "*i32");
  if (!plain || !atomic) return;
  static const int hosts[] = {1, 4};
  for (int h = 0; h < 2; h++) {
    int32_t c = 0;
    void *pc = &c;
    void *a[1] = {&pc};
    EmuBuffer b = {&c, sizeof c, "p"};
    EmuLaunch l = {.grid = {200, 1, 1}, .num_warps = 4, .args = a, .nargs = 1, .buffers = &b, .nbuffers = 1,
                   .host_threads = hosts[h]};
    char *report = NULL;
    CHECK(!emu_launch(plain, &l, &report, NULL));
    CHECK_CONTAINS(report, "counter.py:5:9: data race on global memory between programs of kernel 'counter': block (");
    CHECK_CONTAINS(report, "wrote at counter.py:6:5; neither access is atomic and no lock is held by both");
    if (hosts[h] == 1) CHECK(c == 200);
    free(report);
    c = 0;
    CHECK(emu_launch(atomic, &l, &report, NULL));
    CHECK(c == 200);
    free(report);
    l.no_racecheck = true;
    CHECK(emu_launch(plain, &l, &report, NULL));
    free(report);
  }
  emu_unload(plain);
  emu_unload(atomic);
}

/* The CPU device's allocations: read before a copy or a launch wrote them is
 * an error; what a copy filled, or a launch wrote, reads well afterwards. */
static void jit_allocation_initcheck(void) {
  static const char src[] = "import triton\n"
                            "import triton.language as tl\n"
                            "@triton.jit\n"
                            "def add_one(src, dst, n, B: tl.constexpr):\n"
                            "    o = tl.arange(0, B)\n"
                            "    m = o < n\n"
                            "    tl.store(dst + o, tl.load(src + o, mask=m) + 1, mask=m)\n";
  tilec_device *d = NULL;
  CHECK(tilec_device_create(TILEC_DEVICE_CPU, &d, NULL) == TILEC_OK);
  tilec_jit_options o = {.signature = "*i32, *i32, i32, 128", .grid = "1", .no_disk_cache = 1};
  tilec_kernel *k = NULL;
  char *diag = NULL;
  CHECK(tilec_kernel_create(d, "add_one.py", src, sizeof src - 1, &o, &k, &diag) == TILEC_OK);
  free(diag);
  tilec_devptr x = 0, y = 0;
  CHECK(tilec_device_alloc(d, 128 * 4, &x, NULL) == TILEC_OK && tilec_device_alloc(d, 128 * 4, &y, NULL) == TILEC_OK);
  int n = 128;
  char *report = NULL;
  /* x was never filled */
  CHECK(tilec_kernel_launchv(k, NULL, NULL, &report, x, y, n) != TILEC_OK);
  CHECK_CONTAINS(report, "add_one.py:7:23: read of uninitialized global memory: 4 bytes at offset 0 of 'an allocation' "
                         "in kernel 'add_one', block (0, 0, 0), thread 0");
  free(report), report = NULL;
  /* half of it filled: a read of the first unfilled element is reported, none before */
  int32_t v[128];
  for (int i = 0; i < 128; i++) v[i] = i * 3 - 100;
  CHECK(tilec_device_copy_to(d, x, v, 64 * 4, NULL) == TILEC_OK);
  CHECK(tilec_kernel_launchv(k, NULL, NULL, &report, x, y, 64) == TILEC_OK);
  free(report), report = NULL;
  CHECK(tilec_kernel_launchv(k, NULL, NULL, &report, x, y, 65) != TILEC_OK);
  CHECK_CONTAINS(report, "4 bytes at offset 256 of 'an allocation'");
  free(report), report = NULL;
  /* all of it; then y, which that launch wrote, as the input of the next */
  CHECK(tilec_device_copy_to(d, x, v, sizeof v, NULL) == TILEC_OK);
  CHECK(tilec_kernel_launchv(k, NULL, NULL, &report, x, y, n) == TILEC_OK);
  free(report), report = NULL;
  CHECK(tilec_kernel_launchv(k, NULL, NULL, &report, y, x, n) == TILEC_OK);
  free(report), report = NULL;
  int32_t back[128];
  CHECK(tilec_device_copy_from(d, back, x, sizeof back, NULL) == TILEC_OK);
  int bad = 0;
  for (int i = 0; i < 128; i++) bad += back[i] != v[i] + 2;
  CHECK(bad == 0);
  tilec_device_free(d, x, NULL), tilec_device_free(d, y, NULL);
  tilec_kernel_destroy(k);
  tilec_device_destroy(d);
}

/* An atomic outside every buffer is reported as an atomic, not a store,
 * and not made */
static void atomic_out_of_bounds(void) {
  static const char src[] = "import triton\n"
                            "import triton.language as tl\n"
                            "@triton.jit\n"
                            "def bump(p):\n"
                            "    tl.atomic_add(p + 1, 1)\n";
  EmuKernel *k = compile_source("bump.py", src, sizeof src - 1, "bump", "*i32");
  if (!k) return;
  int32_t c[2] = {0, 0};
  void *pc = c;
  void *a[1] = {&pc};
  EmuBuffer b = {c, sizeof c[0], "p"};
  EmuLaunch l = {.grid = {1, 1, 1}, .num_warps = 1, .args = a, .nargs = 1, .buffers = &b, .nbuffers = 1};
  char *report = NULL;
  CHECK(!emu_launch(k, &l, &report, NULL));
  CHECK_CONTAINS(report, "bump.py:5:5: out-of-bounds atomic of 4 bytes");
  CHECK_CONTAINS(report, "4 bytes after the start of 'p', which has 4 bytes");
  CHECK(c[1] == 0);
  free(report);
  emu_unload(k);
}

/* A grid CUDA would not launch is refused before any program runs: x past
 * 2^31-1, y or z past 65535. */
static void grid_out_of_range(void) {
  static const char src[] = "import triton\n"
                            "@triton.jit\n"
                            "def one(p):\n"
                            "    pass\n";
  EmuKernel *k = compile_source("one.py", src, sizeof src - 1, "one", "*i32");
  if (!k) return;
  int32_t c = 0;
  void *pc = &c;
  void *a[1] = {&pc};
  EmuBuffer b = {&c, sizeof c, "p"};
  static const unsigned grids[3][3] = {{2147483648u, 1, 1}, {1, 70000, 1}, {1, 1, 65536}};
  static const char *const why[3] = {"emulator: grid dimension x is 2147483648; it must be 1 to 2147483647",
                                     "emulator: grid dimension y is 70000; it must be 1 to 65535",
                                     "emulator: grid dimension z is 65536; it must be 1 to 65535"};
  for (int i = 0; i < 3; i++) {
    EmuLaunch l = {.grid = {grids[i][0], grids[i][1], grids[i][2]}, .num_warps = 1, .args = a, .nargs = 1,
                   .buffers = &b, .nbuffers = 1};
    char *report = NULL;
    EmuFailure f = EMU_FAILED_CHECK;
    CHECK(!emu_launch(k, &l, &report, &f) && f == EMU_FAILED_LAUNCH);
    CHECK_CONTAINS(report, why[i]);
    free(report);
  }
  emu_unload(k);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_checks EXAMPLES_DIR\n");
    return 2;
  }
  missing_barrier();
  uninitialized_shared();
  divergent_shuffle();
  deadlock();
  unknown_function();
  out_of_bounds(argv[1]);
  misaligned_vector(argv[1]);
  device_assert();
  race_between_programs();
  jit_allocation_initcheck();
  grid_out_of_range();
  atomic_out_of_bounds();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
