/*
 * test_wgmma.c — wgmma.mma_async as the running emulator binds it
 * (tilec.emu.wgmma): a hand-written kernel of one warpgroup (128 threads)
 * fills shared memory from an image the ISA's layouts made
 * (tests/unit/wgmma_layouts.h), meets at a barrier, and each thread passes
 * its registers, in memory, with the descriptors; the warps compute their
 * rows of D and the kernel stores every thread's D. Checked against the
 * triple loop, with two seeds of the threads' order and the two places of
 * fence.proxy.async (every reader after the barrier, every writer before
 * it). And what is reported: a descriptor that leads past shared memory,
 * operands nothing wrote, lanes that give different descriptors, a thread
 * that returned before the instruction (a deadlock), operands written with
 * no fence.proxy.async, and an operand overwritten before the
 * wgmma.wait_group that retires the instruction's group (the same store
 * after the wait and a barrier is silent).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "tilec/tilec.h"
#include "emu_test.h"
#include "../unit/wgmma_layouts.h"

enum { SMEM = 65536, WORDS_PER_THREAD = SMEM / 4 / 128 };

/* args: the shared-memory image (SMEM bytes), per thread 4 words of A and 128 of D in, 128 of D out, and
 * the parameters: a_desc, b_desc (i64), op, scale_d, the thread that skips the fill (-1: none), the thread
 * that gives a_desc + 16 (-1: none), the thread that returns first (-1: none) (i32) */
static const char kernel_ir[] =
    "@tilec_emu_shared_bytes = constant i64 65536\n"
    "@tilec_emu_sites = constant [1 x i8] zeroinitializer\n"
    "declare i32 @tilec.emu.tid.x()\n"
    "declare ptr addrspace(3) @tilec.emu.smem()\n"
    "declare void @tilec.emu.barrier()\n"
    "declare void @tilec.emu.sts.b32(ptr addrspace(3), i32)\n"
    "declare void @tilec.emu.wgmma(ptr, ptr, i64, i64, i32, i32)\n"
    "declare void @tilec.emu.fence.proxy.async()\n"
    "declare void @tilec.emu.wgmma.commit()\n"
    "declare void @tilec.emu.wgmma.wait(i32)\n"
    "define void @tilec_emu_entry(ptr %args) {\n"
    "entry:\n"
    "  %p0 = load ptr, ptr %args\n"
    "  %img = load ptr, ptr %p0\n"
    "  %q1 = getelementptr ptr, ptr %args, i64 1\n"
    "  %p1 = load ptr, ptr %q1\n"
    "  %regs = load ptr, ptr %p1\n"
    "  %q2 = getelementptr ptr, ptr %args, i64 2\n"
    "  %p2 = load ptr, ptr %q2\n"
    "  %out = load ptr, ptr %p2\n"
    "  %q3 = getelementptr ptr, ptr %args, i64 3\n"
    "  %p3 = load ptr, ptr %q3\n"
    "  %par = load ptr, ptr %p3\n"
    "  %adesc0 = load i64, ptr %par\n"
    "  %pb = getelementptr i64, ptr %par, i64 1\n"
    "  %bdesc = load i64, ptr %pb\n"
    "  %pi = getelementptr i64, ptr %par, i64 2\n"
    "  %op = load i32, ptr %pi\n"
    "  %ps = getelementptr i32, ptr %pi, i64 1\n"
    "  %scale = load i32, ptr %ps\n"
    "  %pn = getelementptr i32, ptr %pi, i64 2\n"
    "  %nofill = load i32, ptr %pn\n"
    "  %pd = getelementptr i32, ptr %pi, i64 3\n"
    "  %odd = load i32, ptr %pd\n"
    "  %pq = getelementptr i32, ptr %pi, i64 4\n"
    "  %quitter = load i32, ptr %pq\n"
    "  %pf = getelementptr i32, ptr %pi, i64 5\n"
    "  %fence = load i32, ptr %pf\n"
    "  %pl = getelementptr i32, ptr %pi, i64 6\n"
    "  %late = load i32, ptr %pl\n"
    "  %pbo = getelementptr i32, ptr %pi, i64 7\n"
    "  %boff = load i32, ptr %pbo\n"
    "  %tid = call i32 @tilec.emu.tid.x()\n"
    "  %s = call ptr addrspace(3) @tilec.emu.smem()\n"
    "  %ra = alloca [4 x i32], align 16\n"
    "  %rd = alloca [128 x i32], align 16\n"
    "  %skip = icmp eq i32 %tid, %nofill\n"
    "  br i1 %skip, label %filled, label %fill\n"
    "fill:\n"
    "  %i = phi i32 [ 0, %entry ], [ %i1, %fill ]\n"
    "  %t0 = mul i32 %tid, 128\n"
    "  %w = add i32 %t0, %i\n"
    "  %src = getelementptr i32, ptr %img, i32 %w\n"
    "  %v = load i32, ptr %src\n"
    "  %dst = getelementptr i32, ptr addrspace(3) %s, i32 %w\n"
    "  call void @tilec.emu.sts.b32(ptr addrspace(3) %dst, i32 %v)\n"
    "  %i1 = add i32 %i, 1\n"
    "  %more = icmp ult i32 %i1, 128\n"
    "  br i1 %more, label %fill, label %filled\n"
    "filled:\n"
    "  %f2 = icmp eq i32 %fence, 2\n"
    "  br i1 %f2, label %wfence, label %bar\n"
    "wfence:\n"
    "  call void @tilec.emu.fence.proxy.async()\n"
    "  br label %bar\n"
    "bar:\n"
    "  call void @tilec.emu.barrier()\n"
    "  %f1 = icmp eq i32 %fence, 1\n"
    "  br i1 %f1, label %rfence, label %afterbar\n"
    "rfence:\n"
    "  call void @tilec.emu.fence.proxy.async()\n"
    "  br label %afterbar\n"
    "afterbar:\n"
    "  %quit = icmp eq i32 %tid, %quitter\n"
    "  br i1 %quit, label %done, label %regs_in\n"
    "regs_in:\n"
    "  %j = phi i32 [ 0, %afterbar ], [ %j1, %regs_in ]\n"
    "  %r0 = mul i32 %tid, 132\n"
    "  %rw = add i32 %r0, %j\n"
    "  %rsrc = getelementptr i32, ptr %regs, i32 %rw\n"
    "  %rv = load i32, ptr %rsrc\n"
    "  %isa = icmp ult i32 %j, 4\n"
    "  %dj = sub i32 %j, 4\n"
    "  %pa = getelementptr i32, ptr %ra, i32 %j\n"
    "  %pdd = getelementptr i32, ptr %rd, i32 %dj\n"
    "  %rdst = select i1 %isa, ptr %pa, ptr %pdd\n"
    "  store i32 %rv, ptr %rdst\n"
    "  %j1 = add i32 %j, 1\n"
    "  %jm = icmp ult i32 %j1, 132\n"
    "  br i1 %jm, label %regs_in, label %call\n"
    "";

/* the kernel's second half: C99 promises string literals of 4095 bytes */
static const char kernel_ir2[] =
    "call:\n"
    "  %isodd = icmp eq i32 %tid, %odd\n"
    "  %adesc1 = add i64 %adesc0, 1\n"
    "  %adesc = select i1 %isodd, i64 %adesc1, i64 %adesc0\n"
    "  call void @tilec.emu.wgmma(ptr %rd, ptr %ra, i64 %adesc, i64 %bdesc, i32 %op, i32 %scale)\n"
    "  %first = icmp eq i32 %tid, 0\n"
    "  %bptr = getelementptr i8, ptr addrspace(3) %s, i32 %boff\n"
    "  %l1 = icmp eq i32 %late, 1\n"
    "  %early = and i1 %l1, %first\n"
    "  br i1 %early, label %estore, label %cw\n"
    "estore:\n"
    "  call void @tilec.emu.sts.b32(ptr addrspace(3) %bptr, i32 0)\n"
    "  br label %cw\n"
    "cw:\n"
    "  call void @tilec.emu.wgmma.commit()\n"
    "  call void @tilec.emu.wgmma.wait(i32 0)\n"
    "  call void @tilec.emu.barrier()\n"
    "  %l2 = icmp eq i32 %late, 2\n"
    "  %after = and i1 %l2, %first\n"
    "  br i1 %after, label %lstore, label %regs_out\n"
    "lstore:\n"
    "  call void @tilec.emu.sts.b32(ptr addrspace(3) %bptr, i32 0)\n"
    "  br label %regs_out\n"
    "regs_out:\n"
    "  %k = phi i32 [ 0, %cw ], [ 0, %lstore ], [ %k1, %regs_out ]\n"
    "  %o0 = mul i32 %tid, 128\n"
    "  %ow = add i32 %o0, %k\n"
    "  %psrc = getelementptr i32, ptr %rd, i32 %k\n"
    "  %ov = load i32, ptr %psrc\n"
    "  %odst = getelementptr i32, ptr %out, i32 %ow\n"
    "  store i32 %ov, ptr %odst\n"
    "  %k1 = add i32 %k, 1\n"
    "  %km = icmp ult i32 %k1, 128\n"
    "  br i1 %km, label %regs_out, label %done\n"
    "done:\n"
    "  ret void\n"
    "}\n";

typedef struct Params {
  uint64_t a_desc, b_desc;
  uint32_t op;
  int32_t scale_d, nofill, odd, quitter;
  int32_t fence;      /* fence.proxy.async: 0 none, 1 by every thread after the barrier, 2 before it */
  int32_t late_store; /* thread 0 stores into B: 0 never, 1 before its warp's wait, 2 after the wait and a barrier */
  int32_t b_offset;   /* where */
} Params;

static uint32_t regs[128][132], out[128][128];

/* Runs the kernel on the trial's shared memory and registers; false with the report on a failure. */
static bool run(const WgTrial *t, const Params *p, uint64_t seed, char **report) {
  char *err = NULL, ir[sizeof kernel_ir + sizeof kernel_ir2];
  snprintf(ir, sizeof ir, "%s%s", kernel_ir, kernel_ir2);
  EmuKernel *k = emu_load(ir, strlen(ir), "wgmma", &err);
  if (!k) {
    *report = err;
    return false;
  }
  for (int th = 0; th < 128; th++) {
    memcpy(regs[th], t->a[th], 16);
    memcpy(regs[th] + 4, t->d[th], 512);
  }
  memset(out, 0, sizeof out);
  const void *img = t->smem;
  void *pr = regs, *po = out;
  const void *pp = p;
  void *args[4] = {&img, &pr, &po, &pp};
  EmuBuffer b[4] = {{(void *)t->smem, SMEM, "image"}, {regs, sizeof regs, "regs"}, {out, sizeof out, "out"},
                    {(void *)p, sizeof *p, "params"}};
  EmuLaunch l = {.grid = {1, 1, 1}, .num_warps = 4, .args = args, .nargs = 4, .buffers = b, .nbuffers = 4, .seed = seed};
  bool ok = emu_launch(k, &l, report, NULL);
  emu_unload(k);
  return ok;
}

static WgTrial trial;

static Params params_of(const WgCase *c, const WgTrial *t) {
  Params p = {t->a_desc, t->b_desc, emu_wgmma_encode(&c->op), c->op.scale_d, -1, -1, -1, 1, 0, (int32_t)WG_B_AT};
  return p;
}

static void instructions(void) {
  const WgCase cases[] = {
      {"f16, K-major, 128B, N=64", {.n = 64, .atype = EMU_WG_F16, .btype = EMU_WG_F16, .scale_d = true}, 3, 3},
      {"bf16, MN-major B, 64B, N=128",
       {.n = 128, .atype = EMU_WG_BF16, .btype = EMU_WG_BF16, .trans_b = true, .scale_d = true}, 2, 2},
      {"f16 A in registers, f16 accumulator, N=256",
       {.n = 256, .atype = EMU_WG_F16, .btype = EMU_WG_F16, .a_in_registers = true, .f16_d = true, .scale_d = true}, 0, 1},
      {"tf32, no swizzle, scale-d false", {.n = 32, .atype = EMU_WG_TF32, .btype = EMU_WG_TF32}, 0, 0},
      {"e4m3 x e5m2, 32B, -A", {.n = 16, .atype = EMU_WG_E4M3, .btype = EMU_WG_E5M2, .neg_a = true, .scale_d = true}, 1, 1},
      {"s8 x u8 A in registers, satfinite, N=48",
       {.n = 48, .atype = EMU_WG_S8, .btype = EMU_WG_U8, .a_in_registers = true, .satfinite = true, .scale_d = true}, 0, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    for (uint64_t seed = 0; seed < 2; seed++) {
      wg_trial_make(&cases[i], &trial);
      for (size_t b = SMEM; b < sizeof trial.smem; b++)
        if (trial.smem[b]) {
          fprintf(stderr, "%s: the trial's image is past the kernel's shared memory\n", cases[i].name);
          failures++;
          break;
        }
      Params p = params_of(&cases[i], &trial);
      p.fence = seed ? 2 : 1; /* the reader fences after the barrier, or the writer before it */
      char *report = NULL;
      bool ok = run(&trial, &p, seed * 5, &report);
      CHECK(ok);
      if (!ok) fprintf(stderr, "%s: %s\n", cases[i].name, report ? report : "");
      free(report);
      char what[64];
      snprintf(what, sizeof what, "tilec.emu.wgmma, seed %d", (int)seed * 5);
      if (ok) CHECK(wg_trial_check(&cases[i], &trial, out, what) == 0);
    }
}

/* A run of the kernel with p that fails with a report saying first (and second). */
static void reported(const Params *p, const char *first, const char *second) {
  char *report = NULL;
  CHECK(!run(&trial, p, 0, &report));
  CHECK_CONTAINS(report, first);
  if (second) CHECK_CONTAINS(report, second);
  free(report);
}

static void reports(void) {
  const WgCase c = {"f16, K-major, 128B, N=64", {.n = 64, .atype = EMU_WG_F16, .btype = EMU_WG_F16, .scale_d = true}, 3, 3};
  wg_trial_make(&c, &trial);
  Params p = params_of(&c, &trial), x;
  /* B past shared memory: its start at 0xfff0 */
  x = p, x.b_desc = (x.b_desc & ~0x3fffULL) | (0xfff0 >> 4);
  reported(&x, "wgmma.mma_async.sync.aligned in kernel 'wgmma', block (0, 0, 0), warp of thread ",
           ": a descriptor leads to offset 65536, past the block's 65536 bytes of shared memory");
  /* thread 68 does not fill its 512 bytes at 0x8800, inside B */
  x = p, x.nofill = (int)(WG_B_AT / 512) + 4;
  reported(&x, "uninitialized shared memory", NULL);
  /* lane 5 of warp 2 gives another A descriptor */
  x = p, x.odd = 69;
  reported(&x, "warp of thread 64: its lanes give different descriptors or scale-d", NULL);
  /* thread 100 returns before the instruction: warp 3 never meets */
  x = p, x.quitter = 100;
  reported(&x, "deadlock", NULL);
  /* the async proxy: operands written by st.shared with no fence.proxy.async */
  x = p, x.fence = 0;
  reported(&x, "reads shared memory (offset ", "wrote through the generic proxy with no fence.proxy.async between");
  /* B overwritten while warp 0's wgmma may still read it; after its wait and a barrier, not */
  x = p, x.late_store = 1;
  reported(&x, "thread 0 writes shared memory (offset ",
           "that a wgmma.mma_async of warp 0 still reads (no wgmma.wait_group of that warp has retired its group)");
  char *report = NULL;
  x = p, x.late_store = 2;
  CHECK(run(&trial, &x, 0, &report));
  CHECK(wg_trial_check(&c, &trial, out, "a store after the wait") == 0);
  free(report);
}

int main(void) {
  instructions();
  reports();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
