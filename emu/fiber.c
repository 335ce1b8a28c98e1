/*
 * fiber.c — the threads of one emulated block as fibers: stacks, the context
 * switch, the scheduler, and the rendezvous of barriers and warp collectives.
 *
 * The switch is a dozen instructions of assembly (below) rather than
 * swapcontext, which makes a sigprocmask system call each way: a block of
 * 1024 threads that meets at a barrier in a loop switches millions of times.
 * It saves what the System V ABI says a callee keeps (rbx, rbp, r12-r15, the
 * stack pointer, the MXCSR and x87 control words) on the stack it leaves and
 * restores the same from the stack it enters.
 *
 * The scheduler is a loop on the host thread's own stack. It resumes each
 * runnable fiber in turn; a fiber runs until it waits (barrier, collective)
 * or returns, then switches back. A rendezvous is completed by the last
 * thread to arrive, which computes every participant's result and marks them
 * runnable. A pass over the block that finds no runnable fiber while some
 * have not returned is a deadlock.
 *
 * Under AddressSanitizer each switch is announced with
 * __sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber, and the
 * stacks are unpoisoned before each run, since fibers that an error stopped
 * leave their frames' redzones behind.
 */
#include "fiber.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FIBER_ASAN 1
#endif
#endif
#ifdef FIBER_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

/* ---- the context switch ----------------------------------------------------- */

#if defined(__x86_64__)
#define FIBER_HAVE_SWITCH 1
/* rt_fiber_switch(save, to): pushes the callee-saved state, stores the stack
 * pointer in *save, loads `to` and pops the state saved there.
 * rt_fiber_start is where a new fiber's first switch returns to: it calls
 * r12(r13) from the frame fiber_prepare built, on a 16-byte aligned stack. The
 * entry never returns; the CFI marks the return address undefined so that
 * unwinders stop here. (Not shadow-stack clean: a fiber's first `ret` lands
 * where no call was made.) */
__asm__(".pushsection .text\n"
        ".globl rt_fiber_switch\n"
        ".hidden rt_fiber_switch\n"
        ".type rt_fiber_switch,@function\n"
        ".p2align 4\n"
        "rt_fiber_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $8, %rsp\n"
        "  stmxcsr (%rsp)\n"
        "  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n"
        "  fldcw 4(%rsp)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size rt_fiber_switch, .-rt_fiber_switch\n"
        ".globl rt_fiber_start\n"
        ".hidden rt_fiber_start\n"
        ".type rt_fiber_start,@function\n"
        ".p2align 4\n"
        "rt_fiber_start:\n"
        "  .cfi_startproc\n"
        "  .cfi_undefined rip\n"
        "  movq %r13, %rdi\n"
        "  callq *%r12\n"
        "  ud2\n"
        "  .cfi_endproc\n"
        ".size rt_fiber_start, .-rt_fiber_start\n"
        ".popsection\n");
__attribute__((visibility("hidden"))) void rt_fiber_switch(void **save, void *to);
__attribute__((visibility("hidden"))) void rt_fiber_start(void);
#endif

/* ---- shuffles: the source lane --------------------------------------------------- */

/* Which lane a shuffle reads, as the pseudo-code of PTX shfl.sync computes
 * it; false (and the caller's own lane) when the source is out of range. */
static bool shfl_source(int lane, int mode, uint32_t b, uint32_t c, int *src) {
  int bval = (int)(b & 31), cval = (int)(c & 31), seg = (int)(c >> 8 & 31);
  int max = (lane & seg) | (cval & ~seg), min = lane & seg;
  int j;
  bool p;
  switch (mode) {
  case FIBER_SHFL_UP: j = lane - bval; p = j >= max; break;
  case FIBER_SHFL_DOWN: j = lane + bval; p = j <= max; break;
  case FIBER_SHFL_BFLY: j = lane ^ bval; p = j <= max; break;
  default: j = min | (bval & ~seg); p = j <= max; break;
  }
  *src = p ? j : lane;
  return p;
}

#ifdef FIBER_HAVE_SWITCH

/* ---- state -------------------------------------------------------------------- */

enum { F_READY, F_BARRIER, F_WARP, F_DONE, F_FAILED, F_PARKED };

/* Collective kinds: the four shuffle modes, the four vote modes, the warp
 * barrier, a call (fiber_warp_call). A rendezvous needs the same kind and
 * the same mask in every lane, and for a call the same function and context. */
enum { OP_SHFL = 0, OP_VOTE = 4, OP_SYNC = 8, OP_CALL = 9 };
static const char *const op_names[] = {
    "shfl.sync.idx", "shfl.sync.up",     "shfl.sync.down",   "shfl.sync.bfly", "vote.sync.all",
    "vote.sync.any", "vote.sync.uni",    "vote.sync.ballot", "bar.warp.sync",
};

typedef struct Fiber {
  void *sp; /* saved stack pointer while not running */
  FiberSched *sched;
  unsigned char *stack_lo; /* lowest usable byte, just above the guard page */
  int tid;
  unsigned char state, op; /* op, mask and the operands: while in a collective */
  uint32_t mask, value, b, c;
  uint32_t result; /* a collective's outcome, set by the lane that completed it */
  bool pred;
  const char *call_name; /* a call's: its name, function, context and the lane's data */
  FiberWarpFn call_fn;
  void *call_ctx, *data;
  void *fake_stack; /* AddressSanitizer's, while switched out */
  bool (*park_ready)(void *); /* while parked (fiber_park): what it waits for, and its name */
  void *park_ctx;
  const char *park_what;
} Fiber;

struct FiberSched {
  int n;
  size_t stack_size, slot; /* usable bytes; stack plus guard */
  unsigned char *map;
  size_t map_len;
  Fiber *fibers;
  int *order;
  /* the current run */
  void (*fn)(void *, int);
  void *arg;
  uint64_t seed, rng, switches;
  int ndone, nbarrier;
  void *main_sp;
  void *main_fake;
  const void *main_lo;
  size_t main_size;
  FiberError err;
};

static _Thread_local Fiber *tls_fiber;

/* ---- AddressSanitizer's view of the stacks ------------------------------------ */

static void asan_start(void **fake_save, const void *lo, size_t size) {
#ifdef FIBER_ASAN
  __sanitizer_start_switch_fiber(fake_save, lo, size);
#else
  (void)fake_save, (void)lo, (void)size;
#endif
}

static void asan_finish(void *fake, const void **lo, size_t *size) {
#ifdef FIBER_ASAN
  __sanitizer_finish_switch_fiber(fake, lo, size);
#else
  (void)fake, (void)lo, (void)size;
#endif
}

/* ---- creating and destroying ---------------------------------------------------- */

FiberSched *fiber_sched_create(int nthreads, size_t stack_size) {
  if (nthreads < 1 || nthreads > FIBER_MAX_THREADS) return NULL;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (stack_size == 0) stack_size = FIBER_DEFAULT_STACK;
  if (stack_size < 16 * 1024) stack_size = 16 * 1024;
  if (stack_size > ((size_t)1 << 30)) return NULL;
  stack_size = (stack_size + page - 1) / page * page;
  FiberSched *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->n = nthreads;
  s->stack_size = stack_size;
  s->slot = stack_size + page;
  s->map_len = s->slot * (size_t)nthreads;
  s->fibers = calloc((size_t)nthreads, sizeof *s->fibers);
  s->order = calloc((size_t)nthreads, sizeof *s->order);
  void *map = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
  if (map == MAP_FAILED || !s->fibers || !s->order) {
    if (map != MAP_FAILED) munmap(map, s->map_len);
    free(s->fibers);
    free(s->order);
    free(s);
    return NULL;
  }
  s->map = map;
  for (int i = 0; i < nthreads; i++) {
    unsigned char *slot = s->map + s->slot * (size_t)i;
    if (mprotect(slot, page, PROT_NONE) != 0) {
      fiber_sched_destroy(s);
      return NULL;
    }
    s->fibers[i].stack_lo = slot + page;
    s->fibers[i].tid = i;
    s->fibers[i].sched = s;
  }
  return s;
}

void fiber_sched_destroy(FiberSched *s) {
  if (!s) return;
#ifdef FIBER_ASAN
  __asan_unpoison_memory_region(s->map, s->map_len);
#endif
  munmap(s->map, s->map_len);
  free(s->fibers);
  free(s->order);
  free(s);
}

uint64_t fiber_sched_switches(const FiberSched *s) { return s ? s->switches : 0; }

/* ---- switching ------------------------------------------------------------------ */

/* A fiber gives control back to the scheduler and returns when resumed. */
static void to_sched(FiberSched *s, Fiber *f) {
  s->switches++;
  asan_start(&f->fake_stack, s->main_lo, s->main_size);
  rt_fiber_switch(&f->sp, s->main_sp);
  asan_finish(f->fake_stack, &s->main_lo, &s->main_size);
}

static void resume(FiberSched *s, Fiber *f) {
  s->switches++;
  tls_fiber = f;
  asan_start(&s->main_fake, f->stack_lo, s->stack_size);
  rt_fiber_switch(&s->main_sp, f->sp);
  asan_finish(s->main_fake, NULL, NULL);
  tls_fiber = NULL;
}

static void release_barrier(FiberSched *s) {
  for (int i = 0; i < s->n; i++)
    if (s->fibers[i].state == F_BARRIER) s->fibers[i].state = F_READY;
  s->nbarrier = 0;
}

/* Every fiber starts here and ends by switching to the scheduler for good. */
static void fiber_entry(void *p) {
  Fiber *f = p;
  FiberSched *s = f->sched;
  asan_finish(NULL, &s->main_lo, &s->main_size);
  s->fn(s->arg, f->tid);
  f->state = F_DONE;
  s->ndone++;
  if (s->nbarrier && s->nbarrier + s->ndone == s->n) release_barrier(s);
  s->switches++;
  asan_start(NULL, s->main_lo, s->main_size); /* NULL: this fiber's fake stack dies */
  rt_fiber_switch(&f->sp, s->main_sp);
  __builtin_unreachable();
}

/* The frame that rt_fiber_switch pops on a fiber's first resume: the control
 * words of the host thread, r15..r12, rbx, rbp (0 ends frame-pointer chains),
 * and the return address rt_fiber_start. */
static void fiber_prepare(FiberSched *s, Fiber *f, uint64_t fpctl) {
  uint64_t *top = (uint64_t *)(void *)(f->stack_lo + s->stack_size);
  uint64_t *sp = top - 8;
  sp[0] = fpctl;
  sp[1] = 0;                          /* r15 */
  sp[2] = 0;                          /* r14 */
  sp[3] = (uint64_t)(uintptr_t)f;     /* r13: the argument */
  sp[4] = (uint64_t)(uintptr_t)fiber_entry; /* r12: the entry */
  sp[5] = 0;                          /* rbx */
  sp[6] = 0;                          /* rbp */
  sp[7] = (uint64_t)(uintptr_t)rt_fiber_start;
  f->sp = sp;
  f->state = F_READY;
  f->fake_stack = NULL;
}

/* ---- error messages -------------------------------------------------------------- */

typedef struct Msg {
  char *s;
  size_t cap, len;
  bool full;
} Msg;

static void msg_printf(Msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void msg_printf(Msg *m, const char *fmt, ...) {
  static const char more[] = "  ...\n";
  if (m->full) return;
  /* room is kept for the mark of a cut */
  size_t room = m->cap - m->len - sizeof more;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(m->s + m->len, room, fmt, ap);
  va_end(ap);
  if (k < 0 || (size_t)k >= room) {
    m->full = true;
    memcpy(m->s + m->len, more, sizeof more);
    m->len += sizeof more - 1;
    return;
  }
  m->len += (size_t)k;
}

/* "thread 5" or "threads 5-9" */
static void msg_threads(Msg *m, int lo, int hi) {
  if (lo == hi) msg_printf(m, "thread %d", lo);
  else msg_printf(m, "threads %d-%d", lo, hi);
}

static Msg run_msg(FiberSched *s) {
  Msg m = {s->err.msg, sizeof s->err.msg, 0, false};
  return m;
}

/* Ends the calling fiber's part in the run with an error; the scheduler
 * stops the block and never resumes it. */
static _Noreturn void fiber_fail(FiberSched *s, Fiber *f, FiberStatus status) {
  s->err.status = status;
  f->state = F_FAILED;
  for (;;) to_sched(s, f);
}

static const char *op_name(const Fiber *f) { return f->op == OP_CALL ? f->call_name : op_names[f->op]; }

/* Whether g waits in the collective f is in (or is entering). */
static bool same_collective(const Fiber *g, const Fiber *f) {
  return g->state == F_WARP && g->op == f->op && g->mask == f->mask &&
         (f->op != OP_CALL || (g->call_fn == f->call_fn && g->call_ctx == f->call_ctx));
}

static void describe_op(Msg *m, const Fiber *f) {
  msg_printf(m, "%s (mask 0x%08x)", op_name(f), f->mask);
}

/* What a blocked thread waits for. The lanes a collective still lacks are
 * named by thread id and grouped by what they are doing instead. */
static void describe_wait(FiberSched *s, const Fiber *f, Msg *m) {
  if (f->state == F_BARRIER) {
    msg_printf(m, "wait at the barrier");
    return;
  }
  if (f->state == F_PARKED) {
    msg_printf(m, "wait %s", f->park_what);
    return;
  }
  int base = f->tid & ~31;
  const Fiber *w = &s->fibers[base];
  msg_printf(m, "wait in %s (mask 0x%08x) for ", op_name(f), f->mask);
  int lo = 0, hi = 0;
  char prev[64] = "", cur[64];
  bool first = true;
  for (int l = 0; l <= 32; l++) {
    cur[0] = 0;
    if (l < 32 && (f->mask >> l & 1) && base + l < s->n) {
      const Fiber *g = &w[l];
      if (g->state == F_DONE) snprintf(cur, sizeof cur, "returned");
      else if (g->state == F_BARRIER) snprintf(cur, sizeof cur, "at the barrier");
      else if (g->state == F_PARKED) snprintf(cur, sizeof cur, "parked");
      else if (g->state == F_WARP && !same_collective(g, f))
        snprintf(cur, sizeof cur, "in %s (mask 0x%08x)", op_name(g), g->mask);
    }
    if (cur[0] && !strcmp(cur, prev)) {
      hi = base + l;
      continue;
    }
    if (prev[0]) {
      if (!first) msg_printf(m, ", ");
      msg_threads(m, lo, hi);
      msg_printf(m, " (%s)", prev);
      first = false;
    }
    memcpy(prev, cur, sizeof prev);
    lo = hi = base + l;
  }
}

/* The deadlock report: one line per run of consecutive threads that wait
 * for the same thing. */
static void report_deadlock(FiberSched *s) {
  s->err.status = FIBER_ERR_DEADLOCK;
  Msg m = run_msg(s);
  msg_printf(&m, "deadlock: no thread can run (%d waiting, %d returned, of %d)\n", s->n - s->ndone,
             s->ndone, s->n);
  char bufs[2][2048];
  int lo = 0, k = 0;
  bufs[0][0] = 0;
  for (int t = 0; t <= s->n; t++) {
    char *cur = bufs[(k + 1) & 1], *prev = bufs[k & 1];
    Msg d = {cur, sizeof bufs[0], 0, false};
    cur[0] = 0;
    if (t < s->n && s->fibers[t].state != F_DONE) describe_wait(s, &s->fibers[t], &d);
    if (cur[0] && !strcmp(cur, prev)) continue;
    if (prev[0]) {
      /* a line at a time, so that a cut report ends with a whole line */
      char line[2176];
      Msg l = {line, sizeof line, 0, false};
      msg_printf(&l, "  ");
      msg_threads(&l, lo, t - 1);
      msg_printf(&l, ": %s\n", prev);
      msg_printf(&m, "%s", line);
    }
    lo = t;
    k++;
  }
}

/* ---- the block barrier and the warp collectives ---------------------------------- */

/* After completing a rendezvous the last thread goes on, except under a
 * seeded order, where it yields so that the order after the rendezvous is
 * drawn too. */
static void after_rendezvous(FiberSched *s, Fiber *f) {
  if (s->seed) to_sched(s, f);
}

/* Every lane of `mask` is waiting in the same collective: compute each
 * one's result and let them all go. */
static void complete(FiberSched *s, Fiber *f, Fiber *w, uint32_t mask, int op) {
  if (op < OP_VOTE) {
    for (uint32_t m = mask; m; m &= m - 1) {
      int l = __builtin_ctz(m), j;
      Fiber *g = &w[l];
      g->pred = shfl_source(l, op, g->b, g->c, &j);
      if (!(mask >> j & 1)) {
        Msg msg = run_msg(s);
        msg_printf(&msg, "thread %d (warp %d, lane %d): %s (mask 0x%08x) reads lane %d, which is not in the mask\n",
                   g->tid, g->tid / 32, l, op_names[op], mask, j);
        fiber_fail(s, f, FIBER_ERR_MASK);
      }
      g->result = w[j].value;
    }
  } else if (op == OP_CALL) {
    void *lanes[32] = {0};
    for (uint32_t m = mask; m; m &= m - 1) lanes[__builtin_ctz(m)] = w[__builtin_ctz(m)].data;
    f->call_fn(f->call_ctx, lanes);
  } else if (op < OP_SYNC) {
    uint32_t ballot = 0;
    for (uint32_t m = mask; m; m &= m - 1)
      if (w[__builtin_ctz(m)].value) ballot |= m & -m;
    uint32_t r = op == OP_VOTE + FIBER_VOTE_ALL   ? ballot == mask
                 : op == OP_VOTE + FIBER_VOTE_ANY ? ballot != 0
                 : op == OP_VOTE + FIBER_VOTE_UNI ? ballot == 0 || ballot == mask
                                                  : ballot;
    for (uint32_t m = mask; m; m &= m - 1) w[__builtin_ctz(m)].result = r;
  }
  for (uint32_t m = mask; m; m &= m - 1) w[__builtin_ctz(m)].state = F_READY;
}

/* The rendezvous of a warp collective; the caller's result is in f->result. */
static void collective(FiberSched *s, Fiber *f, uint32_t mask, int op, uint32_t value, uint32_t b,
                       uint32_t c) {
  int lane = f->tid & 31, base = f->tid & ~31;
  uint32_t exist = s->n - base >= 32 ? ~0u : (1u << (s->n - base)) - 1;
  if (!(mask >> lane & 1)) {
    Msg m = run_msg(s);
    msg_printf(&m, "thread %d (warp %d, lane %d): %s with mask 0x%08x, which does not include the calling lane\n",
               f->tid, f->tid / 32, lane, op == OP_CALL ? f->call_name : op_names[op], mask);
    fiber_fail(s, f, FIBER_ERR_MASK);
  }
  if (mask & ~exist) {
    Msg m = run_msg(s);
    int first = __builtin_ctz(mask & ~exist);
    msg_printf(&m, "thread %d (warp %d, lane %d): %s with mask 0x%08x names lane %d, which does not exist (the block has %d threads)\n",
               f->tid, f->tid / 32, lane, op == OP_CALL ? f->call_name : op_names[op], mask, first, s->n);
    fiber_fail(s, f, FIBER_ERR_MASK);
  }
  f->op = (unsigned char)op;
  f->mask = mask;
  f->value = value;
  f->b = b;
  f->c = c;
  f->state = F_WARP;
  Fiber *w = &s->fibers[base];
  bool all = true;
  for (uint32_t m = mask & ~(1u << lane); m; m &= m - 1) {
    Fiber *g = &w[__builtin_ctz(m)];
    if (same_collective(g, f)) continue;
    all = false;
    /* Two lanes that wait for each other in different collectives never
     * leave them. */
    if (g->state == F_WARP && (g->mask >> lane & 1)) {
      Msg msg = run_msg(s);
      msg_printf(&msg, "divergent warp collective in warp %d: thread %d waits in ", f->tid / 32, f->tid);
      describe_op(&msg, f);
      msg_printf(&msg, ", thread %d in ", g->tid);
      describe_op(&msg, g);
      msg_printf(&msg, "\n");
      fiber_fail(s, f, FIBER_ERR_DIVERGENT);
    }
  }
  if (all) {
    complete(s, f, w, mask, op);
    after_rendezvous(s, f);
  } else {
    to_sched(s, f);
  }
}

int fiber_current_tid(void) { return tls_fiber ? tls_fiber->tid : -1; }

bool fiber_park(bool (*ready)(void *ctx), void *ctx, const char *what) {
  if (ready(ctx)) return true;
  Fiber *f = tls_fiber;
  if (!f) return false;
  f->park_ready = ready, f->park_ctx = ctx, f->park_what = what;
  f->state = F_PARKED;
  to_sched(f->sched, f); /* back when the scheduler finds it ready */
  return true;
}

void fiber_barrier(void) {
  Fiber *f = tls_fiber;
  if (!f) return;
  FiberSched *s = f->sched;
  f->state = F_BARRIER;
  if (++s->nbarrier + s->ndone == s->n) {
    release_barrier(s);
    after_rendezvous(s, f);
  } else {
    to_sched(s, f);
  }
}

uint32_t fiber_shfl_p(uint32_t mask, uint32_t value, FiberShflMode mode, uint32_t b, uint32_t c,
                      bool *in_range) {
  bool p = true;
  uint32_t r = value;
  Fiber *f = tls_fiber;
  if (f) {
    collective(f->sched, f, mask, OP_SHFL + ((int)mode & 3), value, b, c);
    p = f->pred;
    r = f->result;
  } else {
    int j;
    p = shfl_source(0, (int)mode & 3, b, c, &j);
  }
  if (in_range) *in_range = p;
  return r;
}

uint32_t fiber_shfl(uint32_t mask, uint32_t value, FiberShflMode mode, uint32_t b, uint32_t c) {
  return fiber_shfl_p(mask, value, mode, b, c, NULL);
}

uint32_t fiber_vote(uint32_t mask, bool pred, FiberVoteMode mode) {
  Fiber *f = tls_fiber;
  if (f) {
    collective(f->sched, f, mask, OP_VOTE + ((int)mode & 3), pred, 0, 0);
    return f->result;
  }
  return mode == FIBER_VOTE_UNI ? 1u : (uint32_t)pred;
}

void fiber_warp_sync(uint32_t mask) {
  Fiber *f = tls_fiber;
  if (f) collective(f->sched, f, mask, OP_SYNC, 0, 0, 0);
}

void fiber_warp_call(uint32_t mask, const char *name, FiberWarpFn fn, void *ctx, void *data) {
  Fiber *f = tls_fiber;
  if (!f) {
    void *lanes[32] = {data};
    fn(ctx, lanes);
    return;
  }
  f->call_name = name;
  f->call_fn = fn;
  f->call_ctx = ctx;
  f->data = data;
  collective(f->sched, f, mask, OP_CALL, 0, 0, 0);
}

/* ---- the scheduler --------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

FiberStatus fiber_sched_run(FiberSched *s, void (*fn)(void *arg, int tid), void *arg, uint64_t seed,
                            FiberError *err) {
  FiberStatus st = FIBER_ERR_USAGE;
  if (!s || !fn) {
    if (err) {
      err->status = st;
      snprintf(err->msg, sizeof err->msg, "fiber_sched_run: %s is NULL\n", s ? "the kernel" : "the scheduler");
    }
    return st;
  }
  s->err.status = FIBER_OK;
  s->err.msg[0] = 0;
  s->switches = 0;
  if (tls_fiber) {
    s->err.status = FIBER_ERR_USAGE;
    snprintf(s->err.msg, sizeof s->err.msg, "fiber_sched_run called from inside a fiber (thread %d)\n",
             tls_fiber->tid);
    goto out;
  }
  s->fn = fn;
  s->arg = arg;
  s->seed = seed;
  s->rng = seed;
  s->ndone = s->nbarrier = 0;
  /* Fibers start with the host thread's floating-point control words. */
  uint32_t mxcsr;
  uint16_t fcw;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(fcw));
  for (int i = 0; i < s->n; i++) {
#ifdef FIBER_ASAN
    __asan_unpoison_memory_region(s->fibers[i].stack_lo, s->stack_size);
#endif
    fiber_prepare(s, &s->fibers[i], mxcsr | (uint64_t)fcw << 32);
    s->order[i] = i;
  }
  while (s->ndone < s->n) {
    if (seed) {
      for (int i = s->n - 1; i > 0; i--) {
        int j = (int)(splitmix64(&s->rng) % (uint64_t)(i + 1));
        int t = s->order[i];
        s->order[i] = s->order[j];
        s->order[j] = t;
      }
    }
    int ran = 0;
    for (int i = 0; i < s->n; i++) {
      Fiber *f = &s->fibers[s->order[i]];
      if (f->state == F_PARKED && f->park_ready(f->park_ctx)) f->state = F_READY;
      if (f->state != F_READY) continue;
      ran++;
      resume(s, f);
      if (s->err.status != FIBER_OK) goto out;
    }
    if (!ran) {
      report_deadlock(s);
      break;
    }
  }
out:
  if (err) *err = s->err;
  return s->err.status;
}

#else /* no context switch for this architecture: a block of one thread, no schedulers */

FiberSched *fiber_sched_create(int nthreads, size_t stack_size) { return NULL; }
void fiber_sched_destroy(FiberSched *s) {}
uint64_t fiber_sched_switches(const FiberSched *s) { return 0; }

FiberStatus fiber_sched_run(FiberSched *s, void (*fn)(void *arg, int tid), void *arg, uint64_t seed,
                            FiberError *err) {
  if (err) {
    err->status = FIBER_ERR_USAGE;
    snprintf(err->msg, sizeof err->msg,
             "this kernel synchronizes threads (barriers, shuffles or cross-warp reductions), and the CPU "
             "emulator runs such kernels only on x86-64 hosts\n");
  }
  return FIBER_ERR_USAGE;
}

int fiber_current_tid(void) { return -1; }
bool fiber_park(bool (*ready)(void *ctx), void *ctx, const char *what) { return ready(ctx); }
void fiber_barrier(void) {}
void fiber_warp_sync(uint32_t mask) {}

uint32_t fiber_shfl_p(uint32_t mask, uint32_t value, FiberShflMode mode, uint32_t b, uint32_t c,
                      bool *in_range) {
  int j;
  bool p = shfl_source(0, (int)mode & 3, b, c, &j);
  if (in_range) *in_range = p;
  return value;
}

uint32_t fiber_shfl(uint32_t mask, uint32_t value, FiberShflMode mode, uint32_t b, uint32_t c) {
  return fiber_shfl_p(mask, value, mode, b, c, NULL);
}

uint32_t fiber_vote(uint32_t mask, bool pred, FiberVoteMode mode) {
  return mode == FIBER_VOTE_UNI ? 1u : (uint32_t)pred;
}

void fiber_warp_call(uint32_t mask, const char *name, FiberWarpFn fn, void *ctx, void *data) {
  void *lanes[32] = {data};
  fn(ctx, lanes);
}

#endif
