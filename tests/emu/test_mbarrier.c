/*
 * test_mbarrier.c — mbarrier as the running emulator binds it
 * (tilec.emu.mbarrier.*), in hand-written kernels of 128 threads:
 *   - phases: thread 0 initializes the object for `count` arrivals; every
 *     thread arrives and waits for phase 0, then again for phase 1;
 *   - transactions, as a TMA load uses them: thread 0 arrives expecting 256
 *     bytes, writes them into shared memory and completes them; every other
 *     thread waits for the phase and then reads the bytes;
 * each under seeded orders of the threads. And what is reported: a phase
 * that can never complete (one arrival too few, bytes short) as a deadlock
 * naming the object, an arrive on an object nothing initialized, a
 * misaligned object.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "tilec/tilec.h"
#include "emu_test.h"

/* What both kernels begin with: their globals and common declarations; the entry's two arguments,
 * the parameters (%par) and the output (%out). */
#define KERNEL_HEAD \
    "@tilec_emu_shared_bytes = constant i64 1024\n" \
    "@tilec_emu_sites = constant [1 x i8] zeroinitializer\n" \
    "declare i32 @tilec.emu.tid.x()\n" \
    "declare ptr addrspace(3) @tilec.emu.smem()\n" \
    "declare void @tilec.emu.barrier()\n"
#define ENTRY_HEAD \
    "define void @tilec_emu_entry(ptr %args) {\n" \
    "entry:\n" \
    "  %p0 = load ptr, ptr %args\n" \
    "  %par = load ptr, ptr %p0\n" \
    "  %q1 = getelementptr ptr, ptr %args, i64 1\n" \
    "  %p1 = load ptr, ptr %q1\n" \
    "  %out = load ptr, ptr %p1\n"

/* params: count (the init's), bar (the object's byte offset), tx (bytes thread 0 completes) */
static const char phases_ir[] =
    KERNEL_HEAD
    "declare void @tilec.emu.mbarrier.init(ptr addrspace(3), i32)\n"
    "declare i64 @tilec.emu.mbarrier.arrive(ptr addrspace(3))\n"
    "declare i1 @tilec.emu.mbarrier.try_wait.parity(ptr addrspace(3), i32)\n"
    ENTRY_HEAD
    "  %count = load i32, ptr %par\n"
    "  %pb = getelementptr i32, ptr %par, i64 1\n"
    "  %off = load i32, ptr %pb\n"
    "  %pi = getelementptr i32, ptr %par, i64 3\n"
    "  %noinit = load i32, ptr %pi\n"
    "  %tid = call i32 @tilec.emu.tid.x()\n"
    "  %s = call ptr addrspace(3) @tilec.emu.smem()\n"
    "  %bar = getelementptr i8, ptr addrspace(3) %s, i32 %off\n"
    "  %first = icmp eq i32 %tid, 0\n"
    "  %doinit = icmp eq i32 %noinit, 0\n"
    "  %init = and i1 %first, %doinit\n"
    "  br i1 %init, label %do_init, label %go\n"
    "do_init:\n"
    "  call void @tilec.emu.mbarrier.init(ptr addrspace(3) %bar, i32 %count)\n"
    "  br label %go\n"
    "go:\n"
    "  call void @tilec.emu.barrier()\n"
    "  %st0 = call i64 @tilec.emu.mbarrier.arrive(ptr addrspace(3) %bar)\n"
    "  %w0 = call i1 @tilec.emu.mbarrier.try_wait.parity(ptr addrspace(3) %bar, i32 0)\n"
    "  %st1 = call i64 @tilec.emu.mbarrier.arrive(ptr addrspace(3) %bar)\n"
    "  %w1 = call i1 @tilec.emu.mbarrier.try_wait.parity(ptr addrspace(3) %bar, i32 1)\n"
    "  %b0 = zext i1 %w0 to i64\n"
    "  %b1 = zext i1 %w1 to i64\n"
    "  %s1 = shl i64 %st1, 8\n"
    "  %x0 = or i64 %st0, %s1\n"
    "  %x1 = shl i64 %b0, 16\n"
    "  %x2 = shl i64 %b1, 17\n"
    "  %x3 = or i64 %x0, %x1\n"
    "  %x = or i64 %x3, %x2\n"
    "  %po = getelementptr i64, ptr %out, i32 %tid\n"
    "  store i64 %x, ptr %po\n"
    "  ret void\n"
    "}\n";

static const char tx_ir[] =
    KERNEL_HEAD
    "declare void @tilec.emu.sts.b32(ptr addrspace(3), i32)\n"
    "declare i32 @tilec.emu.lds.b32(ptr addrspace(3))\n"
    "declare void @tilec.emu.mbarrier.init(ptr addrspace(3), i32)\n"
    "declare i64 @tilec.emu.mbarrier.arrive.expect_tx(ptr addrspace(3), i32)\n"
    "declare void @tilec.emu.mbarrier.complete_tx(ptr addrspace(3), i32)\n"
    "declare i1 @tilec.emu.mbarrier.try_wait.parity(ptr addrspace(3), i32)\n"
    ENTRY_HEAD
    "  %pt = getelementptr i32, ptr %par, i64 2\n"
    "  %tx = load i32, ptr %pt\n"
    "  %tid = call i32 @tilec.emu.tid.x()\n"
    "  %s = call ptr addrspace(3) @tilec.emu.smem()\n"
    "  %first = icmp eq i32 %tid, 0\n"
    "  br i1 %first, label %do_init, label %go\n"
    "do_init:\n"
    "  call void @tilec.emu.mbarrier.init(ptr addrspace(3) %s, i32 1)\n"
    "  br label %go\n"
    "go:\n"
    "  call void @tilec.emu.barrier()\n"
    "  br i1 %first, label %produce, label %wait\n"
    "produce:\n"
    "  %st = call i64 @tilec.emu.mbarrier.arrive.expect_tx(ptr addrspace(3) %s, i32 256)\n"
    "  br label %fill\n"
    "fill:\n"
    "  %i = phi i32 [ 0, %produce ], [ %i1, %fill ]\n"
    "  %w = add i32 %i, 16\n"
    "  %dst = getelementptr i32, ptr addrspace(3) %s, i32 %w\n"
    "  %v = mul i32 %i, 7\n"
    "  call void @tilec.emu.sts.b32(ptr addrspace(3) %dst, i32 %v)\n"
    "  %i1 = add i32 %i, 1\n"
    "  %more = icmp ult i32 %i1, 64\n"
    "  br i1 %more, label %fill, label %landed\n"
    "landed:\n"
    "  call void @tilec.emu.mbarrier.complete_tx(ptr addrspace(3) %s, i32 %tx)\n"
    "  br label %wait\n"
    "wait:\n"
    "  %ok = call i1 @tilec.emu.mbarrier.try_wait.parity(ptr addrspace(3) %s, i32 0)\n"
    "  %j = urem i32 %tid, 64\n"
    "  %wj = add i32 %j, 16\n"
    "  %src = getelementptr i32, ptr addrspace(3) %s, i32 %wj\n"
    "  %got = call i32 @tilec.emu.lds.b32(ptr addrspace(3) %src)\n"
    "  %po = getelementptr i32, ptr %out, i32 %tid\n"
    "  store i32 %got, ptr %po\n"
    "  ret void\n"
    "}\n";

typedef struct Params {
  int32_t count, bar, tx, noinit;
} Params;

static uint64_t out[128];

static bool run(const char *ir, const Params *p, uint64_t seed, char **report) {
  char *err = NULL;
  EmuKernel *k = emu_load(ir, strlen(ir), "mbar", &err);
  if (!k) {
    *report = err;
    return false;
  }
  memset(out, 0xee, sizeof out);
  const void *pp = p;
  void *po = out;
  void *args[2] = {&pp, &po};
  EmuBuffer b[2] = {{(void *)p, sizeof *p, "params"}, {out, sizeof out, "out"}};
  EmuLaunch l = {.grid = {1, 1, 1}, .num_warps = 4, .args = args, .nargs = 2, .buffers = b, .nbuffers = 2, .seed = seed};
  bool ok = emu_launch(k, &l, report, NULL);
  emu_unload(k);
  return ok;
}

/* Runs a kernel that must pass under three seeds; the threads whose output word differs from want(t). */
static void run_seeds(const char *name, const char *ir, Params p, bool wide, uint64_t (*want)(int t)) {
  for (uint64_t seed = 0; seed < 3; seed++) {
    char *report = NULL;
    bool ok = run(ir, &p, seed * 11, &report);
    CHECK(ok);
    if (!ok) fprintf(stderr, "%s: %s\n", name, report ? report : "");
    free(report);
    int bad = 0;
    for (int t = 0; ok && t < 128; t++) bad += (wide ? out[t] : ((const uint32_t *)out)[t]) != want(t);
    CHECK(bad == 0);
  }
}

/* each thread arrived in phase 0, then in phase 1, and both its waits said complete */
static uint64_t phases_want(int t) { return 0 | 1 << 8 | 1 << 16 | 1 << 17; }
/* each thread read word t % 64 of what thread 0 wrote */
static uint64_t tx_want(int t) { return (uint32_t)(t % 64) * 7; }

/* A launch that must fail, its report holding each of the texts given (NULL: none). */
static void expect_report(const char *ir, Params p, const char *text, const char *also) {
  char *report = NULL;
  CHECK(!run(ir, &p, 0, &report));
  CHECK_CONTAINS(report, text);
  if (also) CHECK_CONTAINS(report, also);
  free(report);
}

static void reports(void) {
  /* one arrival too few: phase 0 never completes */
  expect_report(phases_ir, (Params){129, 64, 0, 0}, "deadlock",
                "wait on the mbarrier at offset 64 of shared memory for its phase of parity 0");
  /* 128 of the 256 bytes land */
  expect_report(tx_ir, (Params){1, 0, 128, 0}, "wait on the mbarrier at offset 0 of shared memory for its phase of parity 0",
                NULL);
  /* nothing initialized the object */
  expect_report(phases_ir, (Params){128, 64, 0, 1},
                "mbarrier.arrive on an mbarrier that is not initialized (the mbarrier at offset 64 of shared memory)", NULL);
  /* at an offset not a multiple of 8 */
  expect_report(phases_ir, (Params){128, 12, 0, 0},
                "thread 0: an mbarrier not 8-byte aligned (the mbarrier at offset 12 of shared memory)", NULL);
}

int main(void) {
  run_seeds("phases", phases_ir, (Params){128, 64, 0, 0}, true, phases_want);
  run_seeds("transactions", tx_ir, (Params){1, 0, 256, 0}, false, tx_want);
  reports();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
