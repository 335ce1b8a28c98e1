/* test_fiber.c — the block's threads as fibers: barriers, shuffles and votes
 * against references computed in C, seeded orders, deadlock and divergence
 * reports, and schedulers on several host threads at once. */
#include <fenv.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "emu/fiber.h"
#include "unit.h"

static uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

/* ---- a barrier-separated tree reduction in shared memory ---------------------- */

typedef struct Reduce {
  int n;
  uint32_t shared[FIBER_MAX_THREADS];
  uint32_t out[FIBER_MAX_THREADS];
  int log[FIBER_MAX_THREADS], nlog; /* the order in which threads started */
  bool skip_barrier;
} Reduce;

static void reduce_kernel(void *arg, int tid) {
  Reduce *r = arg;
  r->log[r->nlog++] = tid;
  r->shared[tid] = hash32((uint32_t)tid + 1);
  int half = 1;
  while (half * 2 < r->n) half *= 2;
  for (int stride = half; stride >= 1; stride /= 2) {
    if (!r->skip_barrier) fiber_barrier();
    if (tid < stride && tid + stride < r->n) r->shared[tid] += r->shared[tid + stride];
  }
  fiber_barrier();
  r->out[tid] = r->shared[0];
}

static uint32_t reduce_ref(int n) {
  uint32_t sum = 0;
  for (int t = 0; t < n; t++) sum += hash32((uint32_t)t + 1);
  return sum;
}

static bool run_reduce(FiberSched *s, Reduce *r, int n, uint64_t seed, bool skip_barrier) {
  memset(r, 0, sizeof *r);
  r->n = n;
  r->skip_barrier = skip_barrier;
  FiberError err;
  FiberStatus st = fiber_sched_run(s, reduce_kernel, r, seed, &err);
  if (st != FIBER_OK) fprintf(stderr, "%s", err.msg);
  CHECK(st == FIBER_OK);
  CHECK_STR(err.msg, "");
  bool all = true;
  for (int t = 0; t < n; t++) all &= r->out[t] == reduce_ref(n);
  return all;
}

static void test_reduce(void) {
  static Reduce r;
  int sizes[] = {1, 2, 31, 32, 33, 100, 1000, 1024};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    int n = sizes[i];
    FiberSched *s = fiber_sched_create(n, 0);
    CHECK(s != NULL);
    if (!s) continue;
    CHECK(run_reduce(s, &r, n, 0, false));
    for (int t = 0; t < n; t++) CHECK(r.log[t] == t); /* seed 0: tid order */
    if (n > 1) CHECK(fiber_sched_switches(s) > 0);
    for (uint64_t seed = 1; seed <= 3; seed++) CHECK(run_reduce(s, &r, n, seed, false));
    fiber_sched_destroy(s);
  }
}

/* Seeds permute the order; the same seed gives the same order; a kernel
 * with its barriers gives the same result under every order, and one that
 * lacks them gives a wrong result under some. */
static void test_seeds(void) {
  static Reduce r;
  int n = 256;
  FiberSched *s = fiber_sched_create(n, 0);
  int first[256];
  CHECK(run_reduce(s, &r, n, 42, false));
  bool identity = true, perm = true;
  char seen[256] = {0};
  for (int t = 0; t < n; t++) {
    first[t] = r.log[t];
    identity &= r.log[t] == t;
    perm &= r.log[t] >= 0 && r.log[t] < n && !seen[r.log[t]];
    if (r.log[t] >= 0 && r.log[t] < n) seen[r.log[t]] = 1;
  }
  CHECK(!identity);
  CHECK(perm);
  CHECK(run_reduce(s, &r, n, 42, false));
  CHECK(!memcmp(first, r.log, sizeof first));
  CHECK(run_reduce(s, &r, n, 43, false));
  CHECK(memcmp(first, r.log, sizeof first) != 0);

  int wrong = 0;
  for (uint64_t seed = 1; seed <= 8; seed++) wrong += !run_reduce(s, &r, n, seed, true);
  CHECK(wrong > 0);
  fiber_sched_destroy(s);
}

/* Under a seed the order after a barrier is drawn anew: the last thread to
 * arrive does not simply go on first. */
typedef struct Order {
  int pre[64], post[64], npre, npost;
} Order;

static void order_kernel(void *arg, int tid) {
  Order *o = arg;
  o->pre[o->npre++] = tid;
  fiber_barrier();
  o->post[o->npost++] = tid;
}

static void test_order_after_barrier(void) {
  FiberSched *s = fiber_sched_create(64, 0);
  int redrawn = 0;
  for (uint64_t seed = 1; seed <= 4; seed++) {
    Order o = {0};
    CHECK(fiber_sched_run(s, order_kernel, &o, seed, NULL) == FIBER_OK);
    CHECK(o.npre == 64 && o.npost == 64);
    redrawn += o.post[0] != o.pre[63];
  }
  CHECK(redrawn > 0);
  fiber_sched_destroy(s);
}

/* Threads that return count as arrived at the barrier. */
static void early_return_kernel(void *arg, int tid) {
  uint32_t *a = arg;
  if (tid % 3 == 1) return;
  a[tid] = (uint32_t)tid * 7;
  fiber_barrier();
  a[64 + tid] = a[(tid + 3) % 64];
  fiber_barrier();
  fiber_barrier();
}

static void test_early_return(void) {
  FiberSched *s = fiber_sched_create(64, 0);
  for (uint64_t seed = 0; seed < 4; seed++) {
    uint32_t a[128] = {0};
    CHECK(fiber_sched_run(s, early_return_kernel, a, seed, NULL) == FIBER_OK);
    for (int t = 0; t < 64; t++) {
      int src = (t + 3) % 64;
      uint32_t want = t % 3 == 1 ? 0 : src % 3 == 1 ? 0 : (uint32_t)src * 7;
      CHECK(a[64 + t] == want);
    }
  }
  fiber_sched_destroy(s);
}

/* ---- shuffles ------------------------------------------------------------------ */

/* CUDA's __shfl*_sync(mask, v, x, width) as documented, independent of PTX's
 * formulation: the lane read, and whether it was in range. */
static int cuda_shfl_src(int lane, FiberShflMode mode, int x, int width, bool *in_range) {
  int seg = lane / width * width;
  *in_range = true;
  switch (mode) {
  case FIBER_SHFL_IDX: return seg + x % width;
  case FIBER_SHFL_UP: *in_range = lane - seg >= x; return *in_range ? lane - x : lane;
  case FIBER_SHFL_DOWN: *in_range = lane - seg + x < width; return *in_range ? lane + x : lane;
  case FIBER_SHFL_BFLY: *in_range = ((lane ^ x) / width) <= lane / width; return *in_range ? lane ^ x : lane;
  }
  return lane;
}

static uint32_t cuda_c(FiberShflMode mode, int width) {
  return ((uint32_t)(32 - width) << 8) | (mode == FIBER_SHFL_UP ? 0 : 31);
}

enum { NWIDTH = 6, NB = 10 };
static const int widths[NWIDTH] = {1, 2, 4, 8, 16, 32};
static const int bs[NB] = {0, 1, 2, 3, 5, 7, 8, 15, 16, 31};

typedef struct Shfl {
  int n, maxwidth;
  uint32_t mask_last; /* the mask the partial last warp uses */
  uint32_t out[64][4][NWIDTH][NB];
  bool pred[64][4][NWIDTH][NB];
} Shfl;

static void shfl_kernel(void *arg, int tid) {
  Shfl *sh = arg;
  uint32_t mask = tid / 32 == (sh->n - 1) / 32 ? sh->mask_last : ~0u;
  for (int m = 0; m < 4; m++)
    for (int w = 0; w < NWIDTH && widths[w] <= sh->maxwidth; w++)
      for (int k = 0; k < NB; k++)
        sh->out[tid][m][w][k] = fiber_shfl_p(mask, hash32((uint32_t)tid * 131 + (uint32_t)(m * 7 + k)),
                                             (FiberShflMode)m, (uint32_t)bs[k], cuda_c(m, widths[w]),
                                             &sh->pred[tid][m][w][k]);
}

static void check_shfl(int n, int maxwidth, uint32_t mask_last, uint64_t seed) {
  static Shfl sh;
  memset(&sh, 0, sizeof sh);
  sh.n = n;
  sh.maxwidth = maxwidth;
  sh.mask_last = mask_last;
  FiberSched *s = fiber_sched_create(n, 0);
  FiberError err;
  CHECK(fiber_sched_run(s, shfl_kernel, &sh, seed, &err) == FIBER_OK);
  CHECK_STR(err.msg, "");
  int bad = 0;
  for (int t = 0; t < n; t++)
    for (int m = 0; m < 4; m++)
      for (int w = 0; w < NWIDTH && widths[w] <= maxwidth; w++)
        for (int k = 0; k < NB; k++) {
          bool p;
          int src = t / 32 * 32 + cuda_shfl_src(t % 32, (FiberShflMode)m, bs[k], widths[w], &p);
          uint32_t want = hash32((uint32_t)src * 131 + (uint32_t)(m * 7 + k));
          if (sh.out[t][m][w][k] != want || sh.pred[t][m][w][k] != p) {
            if (bad++ < 5)
              fprintf(stderr, "thread %d mode %d width %d b %d: got %08x/%d, want %08x/%d\n", t, m, widths[w],
                      bs[k], sh.out[t][m][w][k], sh.pred[t][m][w][k], want, p);
          }
        }
  CHECK(bad == 0);
  fiber_sched_destroy(s);
}

typedef struct Raw {
  uint32_t mask, b, c;
  FiberShflMode mode;
  uint32_t out[32];
  bool pred[32];
} Raw;

static void raw_kernel(void *arg, int tid) {
  Raw *r = arg;
  if (r->mask >> tid & 1) r->out[tid] = fiber_shfl_p(r->mask, 100 + (uint32_t)tid, r->mode, r->b, r->c, &r->pred[tid]);
}

/* Clamp values that CUDA's intrinsics never pass, and masks with holes. */
static void check_raw(uint32_t mask, FiberShflMode mode, uint32_t b, uint32_t c, const int *want_src) {
  Raw r = {.mask = mask, .b = b, .c = c, .mode = mode};
  FiberSched *s = fiber_sched_create(32, 0);
  FiberError err;
  CHECK(fiber_sched_run(s, raw_kernel, &r, 7, &err) == FIBER_OK);
  CHECK_STR(err.msg, "");
  for (int l = 0; l < 32; l++) {
    if (!(mask >> l & 1)) continue;
    int src = want_src[l] < 0 ? l : want_src[l];
    if (r.out[l] != 100 + (uint32_t)src || r.pred[l] != (want_src[l] >= 0)) {
      fprintf(stderr, "lane %d: got %u/%d, want %d\n", l, r.out[l], r.pred[l], want_src[l]);
      CHECK(0);
    }
  }
  fiber_sched_destroy(s);
}

static void test_shfl(void) {
  check_shfl(64, 32, ~0u, 0);
  check_shfl(64, 32, ~0u, 99);
  check_shfl(48, 16, 0xffff, 0);  /* a partial last warp of 16 lanes */
  check_shfl(40, 8, 0xff, 5);     /* and of 8 */

  int src[32];
  /* down with the clamp at lane 15 and no segments: lane + 3 <= 15 */
  for (int l = 0; l < 32; l++) src[l] = l + 3 <= 15 ? l + 3 : -1;
  check_raw(~0u, FIBER_SHFL_DOWN, 3, 15, src);
  /* up with the clamp at lane 4: lane - 2 >= 4 */
  for (int l = 0; l < 32; l++) src[l] = l - 2 >= 4 ? l - 2 : -1;
  check_raw(~0u, FIBER_SHFL_UP, 2, 4, src);
  /* idx beyond the clamp: own value, predicate false */
  for (int l = 0; l < 32; l++) src[l] = -1;
  check_raw(~0u, FIBER_SHFL_IDX, 20, 15, src);
  /* idx in segments of 8 with the clamp at 5 within each segment */
  for (int l = 0; l < 32; l++) src[l] = (l & ~7) + 3;
  check_raw(~0u, FIBER_SHFL_IDX, 3, (24u << 8) | 5, src);
  for (int l = 0; l < 32; l++) src[l] = -1;
  check_raw(~0u, FIBER_SHFL_IDX, 6, (24u << 8) | 5, src);
  /* odd lanes only: butterfly by 2 stays among them */
  for (int l = 0; l < 32; l++) src[l] = l ^ 2;
  check_raw(0xaaaaaaaau, FIBER_SHFL_BFLY, 2, 31, src);
  /* a single lane reads itself */
  src[9] = 9;
  check_raw(1u << 9, FIBER_SHFL_IDX, 9, 31, src);
}

/* ---- votes and the warp barrier ---------------------------------------------- */

typedef struct Vote {
  int n;
  uint32_t r[4][96];
  uint32_t pred_bits[3];
} Vote;

static void vote_kernel(void *arg, int tid) {
  Vote *v = arg;
  bool p = v->pred_bits[tid / 32] >> (tid % 32) & 1;
  uint32_t mask = tid / 32 == (v->n - 1) / 32 && v->n % 32 ? (1u << (v->n % 32)) - 1 : ~0u;
  for (int m = 0; m < 4; m++) v->r[m][tid] = fiber_vote(mask, p, (FiberVoteMode)m);
  fiber_warp_sync(mask);
}

static void test_vote(void) {
  uint32_t cases[][3] = {
      {0, 0, 0}, {~0u, ~0u, 0x3f}, {0x12345678, 0x80000001, 0x20}, {~0u, 1, 0x1f},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    Vote v = {.n = 70};
    memcpy(v.pred_bits, cases[c], sizeof v.pred_bits);
    FiberSched *s = fiber_sched_create(v.n, 0);
    CHECK(fiber_sched_run(s, vote_kernel, &v, c, NULL) == FIBER_OK);
    for (int t = 0; t < v.n; t++) {
      int w = t / 32;
      uint32_t mask = w == 2 ? 0x3f : ~0u, ballot = v.pred_bits[w] & mask;
      CHECK(v.r[FIBER_VOTE_ALL][t] == (ballot == mask));
      CHECK(v.r[FIBER_VOTE_ANY][t] == (ballot != 0));
      CHECK(v.r[FIBER_VOTE_UNI][t] == (ballot == 0 || ballot == mask));
      CHECK(v.r[FIBER_VOTE_BALLOT][t] == ballot);
    }
    fiber_sched_destroy(s);
  }
}

/* Lanes 1 and 2 meet in one shuffle, lanes 0 and 1 in the next: lane 0 may
 * wait for lane 1 while lane 1 waits for lane 2, which is no divergence. */
static void chain_kernel(void *arg, int tid) {
  uint32_t *out = arg;
  uint32_t v = 10 + (uint32_t)tid;
  if (tid == 1 || tid == 2) v = fiber_shfl(0x6, v, FIBER_SHFL_IDX, 2, 31);
  if (tid == 0 || tid == 1) v = fiber_shfl(0x3, v, FIBER_SHFL_IDX, 1, 31);
  out[tid] = v;
}

static void test_chain(void) {
  FiberSched *s = fiber_sched_create(3, 0);
  for (uint64_t seed = 0; seed < 20; seed++) {
    uint32_t out[3] = {0};
    FiberError err;
    CHECK(fiber_sched_run(s, chain_kernel, out, seed, &err) == FIBER_OK);
    CHECK_STR(err.msg, "");
    CHECK(out[0] == 12 && out[1] == 12 && out[2] == 12);
  }
  fiber_sched_destroy(s);
}

/* ---- errors ----------------------------------------------------------------------- */

static void barrier_vs_shuffle_kernel(void *arg, int tid) {
  if (tid < 32 || tid == 63) fiber_barrier();
  else fiber_shfl(~0u, 1, FIBER_SHFL_IDX, 0, 31);
}

static void exited_lane_kernel(void *arg, int tid) {
  if (tid % 32 == 5) return;
  fiber_shfl(~0u, 1, FIBER_SHFL_BFLY, 1, 31);
}

static void divergent_mask_kernel(void *arg, int tid) {
  fiber_shfl(tid == 0 ? 0x3 : 0x7, 1, FIBER_SHFL_IDX, 0, 31);
}

static void divergent_kind_kernel(void *arg, int tid) {
  if (tid % 2) fiber_vote(~0u, true, FIBER_VOTE_ANY);
  else fiber_warp_sync(~0u);
}

static void not_in_mask_kernel(void *arg, int tid) { fiber_shfl(0x1, 1, FIBER_SHFL_IDX, 0, 31); }
static void missing_lane_kernel(void *arg, int tid) { fiber_warp_sync(~0u); }
static void outside_mask_kernel(void *arg, int tid) {
  if (tid < 16) fiber_shfl(0xffff, 1, FIBER_SHFL_DOWN, 8, 31);
}

static void expect_error(int n, void (*fn)(void *, int), uint64_t seed, FiberStatus want, const char *msg) {
  FiberSched *s = fiber_sched_create(n, 0);
  FiberError err;
  CHECK(fiber_sched_run(s, fn, NULL, seed, &err) == want);
  CHECK(err.status == want);
  CHECK_STR(err.msg, msg);
  /* the stopped fibers are abandoned: the scheduler runs the next block */
  static Reduce r;
  CHECK(run_reduce(s, &r, n, seed, false));
  fiber_sched_destroy(s);
}

static void test_errors(void) {
  expect_error(64, barrier_vs_shuffle_kernel, 0, FIBER_ERR_DEADLOCK,
               "deadlock: no thread can run (64 waiting, 0 returned, of 64)\n"
               "  threads 0-31: wait at the barrier\n"
               "  threads 32-62: wait in shfl.sync.idx (mask 0xffffffff) for thread 63 (at the barrier)\n"
               "  thread 63: wait at the barrier\n");
  expect_error(32, exited_lane_kernel, 3, FIBER_ERR_DEADLOCK,
               "deadlock: no thread can run (31 waiting, 1 returned, of 32)\n"
               "  threads 0-4: wait in shfl.sync.bfly (mask 0xffffffff) for thread 5 (returned)\n"
               "  threads 6-31: wait in shfl.sync.bfly (mask 0xffffffff) for thread 5 (returned)\n");
  expect_error(3, divergent_mask_kernel, 0, FIBER_ERR_DIVERGENT,
               "divergent warp collective in warp 0: thread 1 waits in shfl.sync.idx (mask 0x00000007), "
               "thread 0 in shfl.sync.idx (mask 0x00000003)\n");
  expect_error(32, divergent_kind_kernel, 0, FIBER_ERR_DIVERGENT,
               "divergent warp collective in warp 0: thread 1 waits in vote.sync.any (mask 0xffffffff), "
               "thread 0 in bar.warp.sync (mask 0xffffffff)\n");
  expect_error(2, not_in_mask_kernel, 0, FIBER_ERR_MASK,
               "thread 1 (warp 0, lane 1): shfl.sync.idx with mask 0x00000001, which does not include the calling lane\n");
  expect_error(40, missing_lane_kernel, 0, FIBER_ERR_MASK,
               "thread 32 (warp 1, lane 0): bar.warp.sync with mask 0xffffffff names lane 8, which does not exist "
               "(the block has 40 threads)\n");
  expect_error(32, outside_mask_kernel, 0, FIBER_ERR_MASK,
               "thread 8 (warp 0, lane 8): shfl.sync.down (mask 0x0000ffff) reads lane 16, which is not in the mask\n");

  /* a long report is cut after its last whole line */
  FiberSched *s = fiber_sched_create(1024, 0);
  FiberError big;
  CHECK(fiber_sched_run(s, exited_lane_kernel, NULL, 0, &big) == FIBER_ERR_DEADLOCK);
  size_t len = strlen(big.msg);
  CHECK(len < sizeof big.msg && len > 1000);
  CHECK(!strncmp(big.msg, "deadlock: no thread can run (992 waiting, 32 returned, of 1024)\n", 60));
  CHECK(len > 6 && !strcmp(big.msg + len - 6, "  ...\n"));
  fiber_sched_destroy(s);

  /* misuse */
  CHECK(fiber_sched_create(0, 0) == NULL);
  CHECK(fiber_sched_create(1025, 0) == NULL);
  FiberError err;
  CHECK(fiber_sched_run(NULL, reduce_kernel, NULL, 0, &err) == FIBER_ERR_USAGE);
  CHECK_STR(err.msg, "fiber_sched_run: the scheduler is NULL\n");
}

/* A run started from inside a fiber is refused, not nested. */
static void nested_kernel(void *arg, int tid) {
  FiberSched *inner = arg;
  FiberError err;
  FiberStatus st = fiber_sched_run(inner, reduce_kernel, NULL, 0, &err);
  if (st != FIBER_ERR_USAGE || strcmp(err.msg, "fiber_sched_run called from inside a fiber (thread 0)\n"))
    unit_failures++;
}

/* Outside a run the calls act as a block of one thread. */
static void test_outside(void) {
  CHECK(fiber_current_tid() == -1);
  fiber_barrier();
  fiber_warp_sync(1);
  CHECK(fiber_shfl(1, 77, FIBER_SHFL_DOWN, 3, 31) == 77);
  CHECK(fiber_vote(1, true, FIBER_VOTE_ALL) == 1);
  CHECK(fiber_vote(1, true, FIBER_VOTE_BALLOT) == 1);
  FiberSched *inner = fiber_sched_create(1, 0), *outer = fiber_sched_create(1, 0);
  CHECK(fiber_sched_run(outer, nested_kernel, inner, 0, NULL) == FIBER_OK);
  fiber_sched_destroy(inner);
  fiber_sched_destroy(outer);
}

/* ---- per-fiber state ---------------------------------------------------------------- */

/* Each fiber keeps its own floating-point control (rounding mode) across
 * switches, and the host thread's comes back after the run. */
static void rounding_kernel(void *arg, int tid) {
  int *modes = arg;
  if (tid == 0) fesetround(FE_UPWARD);
  if (tid == 1) fesetround(FE_TOWARDZERO);
  fiber_barrier();
  fiber_barrier();
  volatile double one = 1, three = 3;
  modes[tid] = fegetround();
  modes[4 + tid] = one / three > 0.3333333333333333 ? 1 : 0; /* rounded up */
  modes[8 + tid] = fiber_current_tid();
}

/* A deep stack: 96 KiB of locals in a fiber of 128 KiB. */
static void deep_kernel(void *arg, int tid) {
  volatile unsigned char buf[96 * 1024];
  for (size_t i = 0; i < sizeof buf; i += 512) buf[i] = (unsigned char)(i + (size_t)tid);
  fiber_barrier();
  unsigned sum = 0;
  for (size_t i = 0; i < sizeof buf; i += 512) sum += buf[i];
  ((unsigned *)arg)[tid] = sum;
}

static void test_fiber_state(void) {
  int modes[12];
  FiberSched *s = fiber_sched_create(3, 0);
  CHECK(fiber_sched_run(s, rounding_kernel, modes, 0, NULL) == FIBER_OK);
  CHECK(modes[0] == FE_UPWARD && modes[1] == FE_TOWARDZERO && modes[2] == FE_TONEAREST);
  CHECK(modes[4] == 1 && modes[5] == 0 && modes[6] == 0);
  CHECK(modes[8] == 0 && modes[9] == 1 && modes[10] == 2);
  CHECK(fegetround() == FE_TONEAREST);
  fiber_sched_destroy(s);

  unsigned sums[4];
  s = fiber_sched_create(4, 128 * 1024);
  CHECK(fiber_sched_run(s, deep_kernel, sums, 1, NULL) == FIBER_OK);
  for (unsigned t = 0; t < 4; t++) {
    unsigned want = 0;
    for (size_t i = 0; i < 96 * 1024; i += 512) want += (unsigned char)(i + t);
    CHECK(sums[t] == want);
  }
  fiber_sched_destroy(s);
}

/* ---- several blocks at once on several host threads ------------------------------- */

static void *host_thread(void *arg) {
  int *ok = arg;
  static _Thread_local Reduce r;
  FiberSched *s = fiber_sched_create(256, 0);
  *ok = s != NULL;
  for (int i = 0; s && i < 20; i++) *ok &= run_reduce(s, &r, 256, (uint64_t)i, false);
  fiber_sched_destroy(s);
  return NULL;
}

static void test_host_threads(void) {
  pthread_t th[4];
  int ok[4] = {0};
  for (int i = 0; i < 4; i++) CHECK(pthread_create(&th[i], NULL, host_thread, &ok[i]) == 0);
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++) CHECK(ok[i]);
}

int unit_main(void) {
  test_reduce();
  test_seeds();
  test_order_after_barrier();
  test_early_return();
  test_shfl();
  test_vote();
  test_chain();
  test_errors();
  test_outside();
  test_fiber_state();
  test_host_threads();
  return 0;
}
