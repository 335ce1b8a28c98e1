/*
 * test_tma.c — cp.async.bulk.tensor as the running emulator binds it
 * (tilec.emu.tma.load, tilec.emu.tma.store), in a hand-written kernel of
 * 128 threads, as Triton's TMA kernels use it: thread 0 initializes an
 * mbarrier, arrives on it expecting the box's bytes and issues the load;
 * every thread waits for phase 0 and copies the box out of shared memory;
 * thread 0 then stores the box to a second tensor. Checked against the box
 * cut out of the tensor by hand (zeros outside it; the store's elements
 * outside its tensor left alone), for boxes inside, across and outside
 * the edges, under seeded orders of the threads. And what is reported: an
 * mbarrier armed with fewer or more bytes than the box (a deadlock naming
 * the object), bytes that are no tensor map, a map whose tensor lies
 * outside the launch's buffers, and threads that read the box without
 * waiting for the phase its copy completes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "emu/tma.h"
#include "tilec/tilec.h"
#include "emu_test.h"

enum { ROWS = 40, COLS = 72, PITCH = 160, BOX_C = 64, BOX_R = 16 }; /* f16, rows padded to 160 bytes; a 64 x 16 box */

/* params: x, y (the box's start), tx (the bytes thread 0 expects), the parity every thread waits for (2: a barrier
 * instead, the buggy twin that reads the box without waiting for its phase; 3: thread 0 does not wait for its store's
 * reads before the barrier after which every thread writes the box, the other buggy twin); maps: the load's and the
 * store's 128 bytes */
static const char kernel_ir[] =
    "@tilec_emu_shared_bytes = constant i64 4096\n"
    "@tilec_emu_sites = constant [1 x i8] zeroinitializer\n"
    "declare i32 @tilec.emu.tid.x()\n"
    "declare ptr addrspace(3) @tilec.emu.smem()\n"
    "declare void @tilec.emu.barrier()\n"
    "declare void @tilec.emu.mbarrier.init(ptr addrspace(3), i32)\n"
    "declare i64 @tilec.emu.mbarrier.arrive.expect_tx(ptr addrspace(3), i32)\n"
    "declare i1 @tilec.emu.mbarrier.try_wait.parity(ptr addrspace(3), i32)\n"
    "declare void @tilec.emu.tma.load(ptr addrspace(3), ptr, i32, i32, i32, i32, i32, ptr addrspace(3), i32)\n"
    "declare void @tilec.emu.tma.store(ptr, i32, i32, i32, i32, i32, ptr addrspace(3), i32)\n"
    "declare i16 @tilec.emu.lds.b16(ptr addrspace(3))\n"
    "declare void @tilec.emu.sts.b16(ptr addrspace(3), i16)\n"
    "declare void @tilec.emu.bulk.wait.read()\n"
    "define void @tilec_emu_entry(ptr %args) {\n"
    "entry:\n"
    "  %p0 = load ptr, ptr %args\n"
    "  %par = load ptr, ptr %p0\n"
    "  %q1 = getelementptr ptr, ptr %args, i64 1\n"
    "  %p1 = load ptr, ptr %q1\n"
    "  %maps = load ptr, ptr %p1\n"
    "  %q2 = getelementptr ptr, ptr %args, i64 2\n"
    "  %p2 = load ptr, ptr %q2\n"
    "  %out = load ptr, ptr %p2\n"
    "  %x = load i32, ptr %par\n"
    "  %py = getelementptr i32, ptr %par, i64 1\n"
    "  %y = load i32, ptr %py\n"
    "  %pt = getelementptr i32, ptr %par, i64 2\n"
    "  %tx = load i32, ptr %pt\n"
    "  %pw = getelementptr i32, ptr %par, i64 3\n"
    "  %wp = load i32, ptr %pw\n"
    "  %smap = getelementptr i8, ptr %maps, i64 128\n"
    "  %tid = call i32 @tilec.emu.tid.x()\n"
    "  %t2 = mul i32 %tid, 2\n"
    "  %s = call ptr addrspace(3) @tilec.emu.smem()\n"
    "  %bar = getelementptr i8, ptr addrspace(3) %s, i32 2048\n"
    "  %first = icmp eq i32 %tid, 0\n"
    "  br i1 %first, label %init, label %go\n"
    "init:\n"
    "  call void @tilec.emu.mbarrier.init(ptr addrspace(3) %bar, i32 1)\n"
    "  br label %go\n"
    "go:\n"
    "  call void @tilec.emu.barrier()\n"
    "  br i1 %first, label %issue, label %wait\n"
    "issue:\n"
    "  %st = call i64 @tilec.emu.mbarrier.arrive.expect_tx(ptr addrspace(3) %bar, i32 %tx)\n"
    "  call void @tilec.emu.tma.load(ptr addrspace(3) %s, ptr %maps, i32 %x, i32 %y, i32 0, i32 0, i32 0, ptr addrspace(3) %bar, i32 0)\n"
    "  br label %wait\n"
    "wait:\n"
    "  %skip = icmp eq i32 %wp, 2\n"
    "  br i1 %skip, label %nowait, label %dowait\n"
    "nowait:\n"
    "  call void @tilec.emu.barrier()\n"
    "  br label %copy\n"
    "dowait:\n"
    "  %three = icmp eq i32 %wp, 3\n"
    "  %wpar = select i1 %three, i32 0, i32 %wp\n"
    "  %w = call i1 @tilec.emu.mbarrier.try_wait.parity(ptr addrspace(3) %bar, i32 %wpar)\n"
    "  br label %copy\n"
    "copy:\n"
    "  %i = phi i32 [ 0, %nowait ], [ 0, %dowait ], [ %i1, %copy ]\n"
    "  %t8 = mul i32 %tid, 8\n"
    "  %e = add i32 %t8, %i\n"
    "  %b2 = mul i32 %e, 2\n"
    "  %src = getelementptr i8, ptr addrspace(3) %s, i32 %b2\n"
    "  %v = call i16 @tilec.emu.lds.b16(ptr addrspace(3) %src)\n"
    "  %dst = getelementptr i16, ptr %out, i32 %e\n"
    "  store i16 %v, ptr %dst\n"
    "  %i1 = add i32 %i, 1\n"
    "  %more = icmp ult i32 %i1, 8\n"
    "  br i1 %more, label %copy, label %done\n"
    "done:\n"
    "  call void @tilec.emu.barrier()\n"
    "  br i1 %first, label %store, label %end\n"
    "store:\n"
    "  call void @tilec.emu.tma.store(ptr %smap, i32 %x, i32 %y, i32 0, i32 0, i32 0, ptr addrspace(3) %s, i32 0)\n"
    "  %waits = icmp ne i32 %wp, 3\n"
    "  br i1 %waits, label %drain, label %end\n"
    "drain:\n"
    "  call void @tilec.emu.bulk.wait.read()\n"
    "  br label %end\n"
    "end:\n"
    "  call void @tilec.emu.barrier()\n"
    "  %mine = getelementptr i8, ptr addrspace(3) %s, i32 %t2\n"
    "  call void @tilec.emu.sts.b16(ptr addrspace(3) %mine, i16 0)\n"
    "  ret void\n"
    "}\n";

static uint16_t tensor[ROWS * PITCH / 2], stored[ROWS * PITCH / 2], box[BOX_R * BOX_C];
static unsigned char maps[2 * EMU_TMA_BYTES];

static uint16_t value(int r, int c) { return (uint16_t)(1 + r * 100 + c); }

static EmuTensorMap map_of(void *base) {
  EmuTensorMap m = {.address = (uint64_t)(uintptr_t)base, .rank = 2, .type = EMU_TMA_F16, .dims = {COLS, ROWS},
                    .strides = {2, PITCH}, .box = {BOX_C, BOX_R}, .estrides = {1, 1}};
  return m;
}

static bool run_waiting(int32_t x, int32_t y, int32_t tx, int32_t wait_parity, uint64_t seed, char **report) {
  char *err = NULL;
  EmuKernel *k = emu_load(kernel_ir, strlen(kernel_ir), "tma", &err);
  if (!k) {
    *report = err;
    return false;
  }
  int32_t par[4] = {x, y, tx, wait_parity};
  void *pp = par, *pm = maps, *po = box;
  void *args[3] = {&pp, &pm, &po};
  EmuBuffer b[5] = {{par, sizeof par, "params"}, {maps, sizeof maps, "maps"}, {box, sizeof box, "box"},
                    {tensor, sizeof tensor, "tensor"}, {stored, sizeof stored, "stored"}};
  EmuLaunch l = {.grid = {1, 1, 1}, .num_warps = 4, .args = args, .nargs = 3, .buffers = b, .nbuffers = 5, .seed = seed};
  bool ok = emu_launch(k, &l, report, NULL);
  emu_unload(k);
  return ok;
}

static bool run(int32_t x, int32_t y, int32_t tx, uint64_t seed, char **report) { return run_waiting(x, y, tx, 0, seed, report); }

static void setup(void) {
  const char *why = NULL;
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < PITCH / 2; c++) tensor[r * PITCH / 2 + c] = c < COLS ? value(r, c) : 0;
  EmuTensorMap lm = map_of(tensor), sm = map_of(stored);
  CHECK(emu_tma_encode(&lm, maps, &why) && emu_tma_encode(&sm, maps + EMU_TMA_BYTES, &why));
}

static void boxes(void) {
  static const int32_t at[][2] = {{0, 0}, {8, 24}, {-16, -4}, {40, 30}, {100, 0}};
  for (size_t i = 0; i < sizeof at / sizeof *at; i++)
    for (uint64_t seed = 0; seed < 2; seed++) {
      memset(box, 0xab, sizeof box);
      memset(stored, 0xee, sizeof stored);
      char *report = NULL;
      bool ok = run(at[i][0], at[i][1], BOX_R * BOX_C * 2, seed * 3, &report);
      CHECK(ok);
      if (!ok) fprintf(stderr, "box at (%d, %d): %s\n", at[i][0], at[i][1], report ? report : "");
      free(report);
      int bad = 0, bad_store = 0;
      for (int r = 0; r < BOX_R; r++)
        for (int c = 0; c < BOX_C; c++) {
          int gr = at[i][1] + r, gc = at[i][0] + c;
          bool in = gr >= 0 && gr < ROWS && gc >= 0 && gc < COLS;
          bad += box[r * BOX_C + c] != (in ? value(gr, gc) : 0);
        }
      for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < PITCH / 2; c++) {
          int br = r - at[i][1], bc = c - at[i][0];
          bool in = c < COLS && br >= 0 && br < BOX_R && bc >= 0 && bc < BOX_C;
          bad_store += stored[r * PITCH / 2 + c] != (in ? value(r, c) : 0xeeee);
        }
      CHECK(bad == 0);
      CHECK(bad_store == 0);
    }
}

static void reports(void) {
  char *report = NULL;
  /* armed with a byte too few and a byte too many: the phase never completes */
  CHECK(!run(8, 8, BOX_R * BOX_C * 2 - 2, 0, &report));
  CHECK_CONTAINS(report, "deadlock");
  CHECK_CONTAINS(report, "mbarrier");
  free(report);
  CHECK(!run(8, 8, BOX_R * BOX_C * 2 + 2, 0, &report));
  CHECK_CONTAINS(report, "deadlock");
  free(report);
  /* bytes that are no map */
  unsigned char saved[EMU_TMA_BYTES];
  memcpy(saved, maps, sizeof saved);
  memset(maps, 0, EMU_TMA_BYTES);
  CHECK(!run(0, 0, BOX_R * BOX_C * 2, 0, &report));
  CHECK_CONTAINS(report, "TMA load in kernel 'tma', block (0, 0, 0), thread 0: the 128 bytes are not a tensor map");
  free(report);
  /* a tensor past the launch's buffers: rows 20.. of a map twice as tall */
  const char *why = NULL;
  EmuTensorMap tall = map_of(tensor);
  tall.dims[1] = 2 * ROWS;
  CHECK(emu_tma_encode(&tall, maps, &why));
  CHECK(!run(0, 36, BOX_R * BOX_C * 2, 0, &report));
  CHECK_CONTAINS(report, "out-of-bounds TMA load of 128 bytes");
  free(report);
  memcpy(maps, saved, sizeof saved);
  /* the twins of a read of the box before its copy's phase (Triton's ConSan's check): every thread waits for
   * parity 0, the phase the copy completes (silent, boxes() above); or meets the others at a barrier after
   * thread 0 issued the copy and reads the box, which the emulator's copy has written, but a GPU's may not
   * have yet */
  for (uint64_t seed = 0; seed < 2; seed++) {
    CHECK(!run_waiting(0, 0, BOX_R * BOX_C * 2, 2, seed, &report));
    CHECK_CONTAINS(report, "that the TMA load at this line writes, before it waited for the phase of parity 0 of the mbarrier at "
                           "offset 2048 that the copy completes");
    free(report);
  }
  /* and of a store's box reused too early: every thread writes the box after a barrier; thread 0 waited for its
   * store's reads before it (silent, boxes() above) or did not */
  for (uint64_t seed = 0; seed < 2; seed++) {
    CHECK(!run_waiting(0, 0, BOX_R * BOX_C * 2, 3, seed, &report));
    CHECK_CONTAINS(report, "that the TMA store of thread 0 at this line still reads (no cp.async.bulk.wait_group.read of thread 0 "
                           "covers it)");
    free(report);
  }
}

int main(void) {
  setup();
  boxes();
  reports();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
