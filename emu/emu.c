/*
 * emu.c — the CPU emulator's C side of every GPU operation, and the
 * running of a kernel's grid (emu/load.c loads the kernel).
 *
 * Every function a kernel calls is bound to a C implementation here
 * (emu_bind: bind_table and the atomics and mma tables; the conversions and
 * math in math.c); a name the
 * emulator does not know is a load error that names it. The state of the
 * running thread (its ids, its block's shared memory, the launch) is
 * thread-local: blocks run in parallel on host threads, and the threads of
 * a block run as fibers (emu/fiber.h) when the kernel has barriers or
 * warp collectives, else one after another on their host thread.
 *
 * Checks: a global access outside every buffer of the launch, a read of
 * shared memory no thread of the block has written (a shadow byte per
 * byte), and a device assertion are counted and the first few reported; an
 * out-of-bounds access is not made (a load gives its `other` value). A
 * deadlock or a divergent collective stops the block. Shared memory is also
 * filled with 0xCD before each block.
 *
 * One file, near 1,000 lines, because the operations and the launch share
 * the running thread's state (Cur and Run, thread-local and static): the
 * launch sets it up, every operation reads it, and nothing else may see it;
 * split, each part would need that state, and the reporting on it, made
 * visible to the others. What needs no thread state is elsewhere:
 * conversions, math and libdevice in math.c, the tensor cores' warp models
 * in mma.c, cp.async's model in cpasync.c, the race and initialization
 * checks in emucheck.c, the loading of the kernel in load.c.
 */
#include "emu.h"

#include "emu_internal.h"
#include "emucheck.h"
#include "fiber.h"
#include "cpasync.h"
#include "mma.h"
#include "wgmma.h"
#include "asyncproxy.h"
#include "tma.h"
#include "mbarrier.h"
#include "tmabox.h"
#include "runtime/grid.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#define MAX_REPORTS 8


/* One launch. */
typedef struct Run {
  EmuKernel *k;
  const EmuLaunch *l;
  atomic_long next_block;
  long nblocks;
  int nthreads;
  atomic_bool stop;
  pthread_mutex_t lock;
  char *report;
  size_t report_len;
  long oob, asserts, uninit, misaligned; /* counts */
  int reports;
  bool oom; /* a worker could not allocate what a block needs */
  FILE *out;
  CkLaunch *ck;    /* the checks of global memory (emucheck.h); NULL: none */
  long ck_reports; /* findings it passed on, reported or not */
} Run;

/* The thread (of the GPU) running now on this host thread. */
typedef struct Cur {
  Run *run;
  unsigned ctaid[3];
  int tid; /* without fibers */
  bool fibers;
  unsigned char *smem;
  unsigned char *shadow; /* per byte of shared memory: written in this block */
  size_t smem_bytes;
  CkWorker *cw; /* this host thread's part of the checks of global memory */
  int last_buf; /* the buffer of the last access: the next is most often in it too */
  AsyncBlock async; /* the block's cp.async copies (cpasync.h) */
  bool async_used;  /* a cp.async was issued in this block: shared accesses are checked against them */
  ProxyBlock proxy; /* the async proxy's view of shared memory (asyncproxy.h), for kernels with wgmma */
  bool proxy_on;
  TmaBoxes *boxes;  /* the TMA loads' boxes and who has waited for them (tmabox.h); NULL until the first */
} Cur;

static _Thread_local Cur *cur;

static void report(Run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void report(Run *r, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof line) n = sizeof line - 1;
  char *grown = realloc(r->report, r->report_len + (size_t)n + 2);
  if (!grown) return;
  r->report = grown;
  memcpy(r->report + r->report_len, line, (size_t)n);
  r->report_len += (size_t)n;
  r->report[r->report_len++] = '\n';
  r->report[r->report_len] = 0;
}

static int tid_of(const Cur *c) { return c->fibers ? fiber_current_tid() : c->tid; }
static int cur_tid(void) { return tid_of(cur); }

/* A finding of the checks of global memory (emucheck.h). */
static void ck_report(void *ctx, const char *line) {
  Run *r = ctx;
  pthread_mutex_lock(&r->lock);
  r->ck_reports++;
  if (r->reports++ < MAX_REPORTS) report(r, "%s", line);
  pthread_mutex_unlock(&r->lock);
}

/* ---- ids, barriers, shuffles, shared memory ------------------------------------------------ */

static uint32_t emu_tid_x(void) { return (uint32_t)cur_tid(); }
static uint32_t emu_zero(void) { return 0; }
static uint32_t emu_one(void) { return 1; }
static uint32_t emu_ntid_x(void) { return (uint32_t)cur->run->nthreads; }
static uint32_t emu_ctaid_x(void) { return cur->ctaid[0]; }
static uint32_t emu_ctaid_y(void) { return cur->ctaid[1]; }
static uint32_t emu_ctaid_z(void) { return cur->ctaid[2]; }
static uint32_t emu_nctaid_x(void) { return cur->run->l->grid[0]; }
static uint32_t emu_nctaid_y(void) { return cur->run->l->grid[1]; }
static uint32_t emu_nctaid_z(void) { return cur->run->l->grid[2]; }
static uint32_t emu_laneid(void) { return (uint32_t)cur_tid() % 32; }
static void emu_barrier(void) {
  if (!cur->fibers) return;
  fiber_barrier();
  if (cur->cw) ck_barrier(cur->cw, fiber_current_tid());
  async_barrier(&cur->async, fiber_current_tid()); /* counted always: a copy may come after */
  if (cur->proxy_on) proxy_barrier(&cur->proxy, fiber_current_tid());
}
static void *emu_smem(void) { return cur->smem; }
/* A shared pointer as the offset the emulator's wgmma descriptors hold (on
 * the GPU, its address in the shared window) */
static uint32_t emu_smem_addr(const char *p) { return (uint32_t)(p - (const char *)cur->smem); }
/* griddepcontrol: the emulator runs a launch's grid after the one before it */
static void emu_gdc(void) {}

static uint32_t shfl_i(FiberShflMode m, uint32_t mask, uint32_t v, uint32_t b, uint32_t c) {
  return fiber_shfl(mask, v, m, b, c);
}
static float shfl_f(FiberShflMode m, uint32_t mask, float v, uint32_t b, uint32_t c) {
  uint32_t x;
  memcpy(&x, &v, 4);
  x = fiber_shfl(mask, x, m, b, c);
  memcpy(&v, &x, 4);
  return v;
}
#define SHFL(kind, mode)                                                                                               \
  static uint32_t emu_shfl_##kind##_i32(uint32_t mask, uint32_t v, uint32_t b, uint32_t c) {                         \
    return shfl_i(mode, mask, v, b, c);                                                                                \
  }                                                                                                                    \
  static float emu_shfl_##kind##_f32(uint32_t mask, float v, uint32_t b, uint32_t c) { return shfl_f(mode, mask, v, b, c); }
SHFL(bfly, FIBER_SHFL_BFLY)
SHFL(up, FIBER_SHFL_UP)
SHFL(down, FIBER_SHFL_DOWN)
SHFL(idx, FIBER_SHFL_IDX)

/* ---- shared memory: reads of bytes no thread of the block wrote ------------------------------- */

/* Whether [p, p+n) was written; if not, reports it as read by thread tid. */
static bool smem_written_by(const void *p, size_t n, int tid) {
  size_t off = (size_t)((const unsigned char *)p - cur->smem);
  bool ok = off + n <= cur->smem_bytes;
  for (size_t i = 0; ok && i < n; i++) ok = cur->shadow[off + i];
  if (ok) return true;
  Run *r = cur->run;
  pthread_mutex_lock(&r->lock);
  if (r->reports++ < MAX_REPORTS)
    report(r, "read of uninitialized shared memory (%zu bytes at offset %zu of %zu) in kernel '%s', block (%u, %u, %u), "
              "thread %d: no thread of the block wrote it (a missing barrier or a wrong index)",
           n, off, cur->smem_bytes, r->k->name, cur->ctaid[0], cur->ctaid[1], cur->ctaid[2], tid);
  r->uninit++;
  pthread_mutex_unlock(&r->lock);
  return false;
}

static bool smem_written(const void *p, size_t n) { return smem_written_by(p, n, cur_tid()); }

static const char *site_name(uint32_t site);

/* A generic-proxy write of shared memory by the running thread, for the
 * async proxy's checks (asyncproxy.h): one that overwrites an operand a
 * wgmma.mma_async still reads is reported. */
static void proxy_written(const void *p, size_t n) {
  int warp, tid = cur_tid();
  uint32_t off = (uint32_t)((const unsigned char *)p - cur->smem);
  if (proxy_write(&cur->proxy, tid, off, (uint32_t)n, &warp) == PROXY_OK) return;
  Run *r = cur->run;
  pthread_mutex_lock(&r->lock);
  if (r->reports++ < MAX_REPORTS)
    report(r, "race in kernel '%s', block (%u, %u, %u): thread %d writes shared memory (offset %u) that a wgmma.mma_async of "
              "warp %d still reads (no wgmma.wait_group of that warp has retired its group)",
           r->k->name, cur->ctaid[0], cur->ctaid[1], cur->ctaid[2], tid, off, warp);
  pthread_mutex_unlock(&r->lock);
}

/* An access to shared memory that a cp.async still writes, or that
 * another thread's wait wrote with no barrier since: reported (cpasync.h). */
static void async_access(const void *p, size_t n, bool store, int tid) {
  int t;
  uint32_t site;
  uint32_t off = (uint32_t)((const unsigned char *)p - cur->smem);
  AsyncHazard h = async_check(&cur->async, tid, off, n, &t, &site);
  if (h == ASYNC_OK) return;
  Run *r = cur->run;
  pthread_mutex_lock(&r->lock);
  if (r->reports++ < MAX_REPORTS) {
    if (h == ASYNC_NOT_LANDED)
      report(r, "%s: race in kernel '%s', block (%u, %u, %u): thread %d %s shared memory (offset %u) that the cp.async "
                "of thread %d at this line has not landed yet (no cp.async.wait_group of thread %d covers it)",
             site_name(site), r->k->name, cur->ctaid[0], cur->ctaid[1], cur->ctaid[2], tid, store ? "writes" : "reads", off, t,
             t);
    else
      report(r, "race in kernel '%s', block (%u, %u, %u): thread %d %s shared memory (offset %u) that a cp.async of thread "
                "%d wrote at its cp.async.wait_group, with no barrier between",
             r->k->name, cur->ctaid[0], cur->ctaid[1], cur->ctaid[2], tid, store ? "writes" : "reads", off, t);
  }
  pthread_mutex_unlock(&r->lock);
}

/* A read of a TMA load's box by a thread that has not observed the phase
 * its copy completes (tmabox.h): reported, once a box and thread. */
static void box_read(const void *p, size_t n, int tid, const char *by) {
  uint32_t off = (uint32_t)((const unsigned char *)p - cur->smem);
  const TmaBox *x;
  if (tmabox_read_ok(cur->boxes, off, (uint32_t)n, tid, &x)) return;
  Run *r = cur->run;
  pthread_mutex_lock(&r->lock);
  if (r->reports++ < MAX_REPORTS)
    report(r, "%s: race in kernel '%s', block (%u, %u, %u): %s %d reads shared memory (offset %u) that the TMA load at this "
              "line writes, before it waited for the phase of parity %u of the mbarrier at offset %u that the copy completes",
           site_name(x->site), r->k->name, cur->ctaid[0], cur->ctaid[1], cur->ctaid[2], by, tid, off, x->parity, x->mbar);
  pthread_mutex_unlock(&r->lock);
  tmabox_waited(cur->boxes, x->mbar, x->parity, tid); /* once */
}

/* A generic write of a TMA store's box before the issuing thread waited
 * for its reads (tmabox.h): reported once a store; the write then ends any
 * load's box it meets. */
static void box_written(const void *p, size_t n) {
  uint32_t off = (uint32_t)((const unsigned char *)p - cur->smem);
  const TmaStore *st;
  if (!tmabox_write_ok(cur->boxes, off, (uint32_t)n, &st)) {
    Run *r = cur->run;
    pthread_mutex_lock(&r->lock);
    if (r->reports++ < MAX_REPORTS)
      report(r, "%s: race in kernel '%s', block (%u, %u, %u): thread %d writes shared memory (offset %u) that the TMA store of "
                "thread %d at this line still reads (no cp.async.bulk.wait_group.read of thread %d covers it)",
             site_name(st->site), r->k->name, cur->ctaid[0], cur->ctaid[1], cur->ctaid[2], cur_tid(), off, st->tid, st->tid);
    pthread_mutex_unlock(&r->lock);
    tmabox_store_waited(cur->boxes, st->tid); /* once */
  }
  tmabox_written(cur->boxes, off, (uint32_t)n);
}

#define SMEM(bits, T)                                                                                                  \
  static T emu_lds_b##bits(const void *p) {                                                                            \
    T v;                                                                                                               \
    if (cur->async_used) async_access(p, sizeof v, false, cur_tid());                                                  \
    if (cur->boxes) box_read(p, sizeof v, cur_tid(), "thread");                                                         \
    smem_written(p, sizeof v);                                                                                         \
    memcpy(&v, p, sizeof v);                                                                                           \
    return v;                                                                                                          \
  }                                                                                                                    \
  static void emu_sts_b##bits(void *p, T v) {                                                                          \
    if (cur->async_used) async_access(p, sizeof v, true, cur_tid());                                                   \
    if (cur->proxy_on) proxy_written(p, sizeof v);                                                                     \
    size_t off = (size_t)((unsigned char *)p - cur->smem);                                                             \
    if (cur->boxes) box_written(p, sizeof v);                                                                         \
    if (off + sizeof v <= cur->smem_bytes) memset(cur->shadow + off, 1, sizeof v);                                     \
    memcpy(p, &v, sizeof v);                                                                                           \
  }
SMEM(8, uint8_t)
SMEM(16, uint16_t)
SMEM(32, uint32_t)
SMEM(64, uint64_t)

/* ---- global memory: predicated, checked ------------------------------------------------------ */

/* Whether [p, p+n) lies in one buffer of the launch; if not, reports it. */
static const char *site_name(uint32_t site) {
  EmuKernel *k = cur->run->k;
  return site < (uint32_t)k->nsites ? k->sites[site] : "an unknown place";
}

/* Whether [a, a+n) lies in [b, b+len), by offsets so that no sum wraps: a
 * kernel's pointer may be anything, the top of the address space too. */
static bool within(uintptr_t a, size_t n, uintptr_t b, size_t len) {
  return a >= b && a - b <= len && n <= len - (a - b);
}

/* The buffer of the launch that holds [p, p+n); -1 (reported as an
 * out-of-bounds `what`: "load", "store", "atomic") when none does. */
static int find_buffer(Cur *c, const void *p, size_t n, const char *what, uint32_t site) {
  Run *r = c->run;
  const EmuLaunch *l = r->l;
  uintptr_t a = (uintptr_t)p;
  if (c->last_buf < l->nbuffers) {
    const EmuBuffer *last = &l->buffers[c->last_buf];
    if (within(a, n, (uintptr_t)last->data, last->bytes)) return c->last_buf;
  }
  for (int i = 0; i < l->nbuffers; i++)
    if (within(a, n, (uintptr_t)l->buffers[i].data, l->buffers[i].bytes)) return c->last_buf = i;
  pthread_mutex_lock(&r->lock);
  if (r->reports++ < MAX_REPORTS) {
    /* the nearest buffer, by the distance to its bytes, to say where the access went */
    int near = -1;
    long long off = 0;
    unsigned long long gap = 0;
    for (int i = 0; i < l->nbuffers; i++) {
      uintptr_t lo = (uintptr_t)l->buffers[i].data, hi = lo + l->buffers[i].bytes;
      unsigned long long g = a < lo ? lo - a : a >= hi ? a - hi : 0;
      if (near < 0 || g < gap) near = i, gap = g, off = (long long)(a - lo);
    }
    char where[192] = "";
    if (near >= 0)
      snprintf(where, sizeof where, " (%lld bytes %s the start of '%s', which has %zu bytes)", llabs(off),
               off < 0 ? "before" : "after", l->buffers[near].name ? l->buffers[near].name : "?",
               l->buffers[near].bytes);
    report(r, "%s: out-of-bounds %s of %zu bytes at %p in kernel '%s', block (%u, %u, %u), thread %d%s",
           site_name(site), what, n, p, r->k->name, c->ctaid[0], c->ctaid[1], c->ctaid[2],
           tid_of(c), where);
  }
  r->oob++;
  pthread_mutex_unlock(&r->lock);
  return -1;
}

/* Whether an access of `bytes` at p is aligned to them, as a GPU requires of a
 * global access (an element's, or a vector's of several: ld.global.v4.b32 at an
 * address that is not a multiple of 16 faults with "misaligned address");
 * reported where not. */
static bool aligned(Cur *c, const void *p, size_t bytes, const char *what, uint32_t site) {
  if ((uintptr_t)p % bytes == 0) return true;
  Run *r = c->run;
  pthread_mutex_lock(&r->lock);
  if (r->reports++ < MAX_REPORTS)
    report(r, "%s: misaligned %s of %zu bytes at %p in kernel '%s', block (%u, %u, %u), thread %d (a GPU faults: "
           "the address must be a multiple of %zu; did a tl.multiple_of or a ':16' of the signature promise more "
           "alignment than the pointer has?)",
           site_name(site), what, bytes, p, r->k->name, c->ctaid[0], c->ctaid[1], c->ctaid[2], tid_of(c), bytes);
  r->misaligned++;
  pthread_mutex_unlock(&r->lock);
  return false;
}

/* tilec.emu.align(p, pred, bytes, load, site): the alignment of a vector access
 * before its elements go one by one (codegen/emu.c's scalarize) */
static void emu_align(const void *p, uint32_t pred, uint32_t bytes, uint32_t load, uint32_t site) {
  if (pred & 1) aligned(cur, p, bytes, load ? "vector load" : "vector store", site);
}

/* A masked-off lane makes no access, but may pass the release of a lock. */
#define LDST(bits, T, A)                                                                                               \
  static T emu_ld_b##bits(const void *p, uint32_t pred, A other, uint32_t site) {                                      \
    Cur *c = cur;                                                                                                      \
    int b;                                                                                                             \
    if (!(pred & 1) || !aligned(c, p, sizeof(T), "load", site) || (b = find_buffer(c, p, sizeof(T), "load", site)) < 0) \
      return (T)other;                                                                                                 \
    if (c->cw) ck_access(c->cw, b, p, sizeof(T), CK_LOAD, tid_of(c), site);                                            \
    T v;                                                                                                               \
    memcpy(&v, p, sizeof v);                                                                                           \
    return v;                                                                                                          \
  }                                                                                                                    \
  static void emu_st_b##bits(void *p, uint32_t pred, A v, uint32_t site) {                                             \
    Cur *c = cur;                                                                                                      \
    int b;                                                                                                             \
    if (!(pred & 1)) {                                                                                                 \
      if (c->cw) ck_masked_store(c->cw, p, tid_of(c));                                                                 \
      return;                                                                                                          \
    }                                                                                                                  \
    if (!aligned(c, p, sizeof(T), "store", site) || (b = find_buffer(c, p, sizeof(T), "store", site)) < 0) return;     \
    if (c->cw) ck_access(c->cw, b, p, sizeof(T), CK_STORE, tid_of(c), site);                                           \
    T x = (T)v;                                                                                                        \
    memcpy(p, &x, sizeof x);                                                                                           \
  }
LDST(8, uint8_t, uint32_t)
LDST(16, uint16_t, uint32_t)
LDST(32, uint32_t, uint32_t)
LDST(64, uint64_t, uint64_t)

/* ---- cp.async: tilec.emu.cp.async.<n>(dst, src, pred, site), commit, wait.<k> (cpasync.h) ------- */

/* A copy of n bytes; a masked-off one (src-size 0) reads nothing and
 * fills its destination with zeros, as the ISA's zero fill. */
static void cp_async(void *dst, const void *src, uint32_t pred, uint32_t site, int n) {
  Cur *c = cur;
  int tid = tid_of(c), b = -1, other;
  if ((pred & 1) && aligned(c, src, (size_t)n, "cp.async source", site) && (b = find_buffer(c, src, (size_t)n, "load", site)) >= 0 &&
      c->cw)
    ck_access(c->cw, b, src, (unsigned)n, CK_LOAD, tid, site);
  c->async_used = true;
  if (c->proxy_on) proxy_written(dst, (size_t)n);
  uint32_t off = (uint32_t)((unsigned char *)dst - c->smem);
  if (async_issue(&c->async, tid, off, src, n, b >= 0 ? n : 0, site, &other)) return;
  Run *r = c->run;
  pthread_mutex_lock(&r->lock);
  if (r->reports++ < MAX_REPORTS) {
    if (other >= 0)
      report(r, "%s: race in kernel '%s', block (%u, %u, %u): thread %d's cp.async writes shared memory (offset %u) that a "
                "cp.async of thread %d has not landed yet",
             site_name(site), r->k->name, c->ctaid[0], c->ctaid[1], c->ctaid[2], tid, off, other);
    else
      report(r, "%s: cp.async of %d bytes in kernel '%s', block (%u, %u, %u), thread %d: the destination (offset %u of %zu "
                "bytes of shared memory) is outside it or not %d-byte aligned",
             site_name(site), n, r->k->name, c->ctaid[0], c->ctaid[1], c->ctaid[2], tid, off, c->smem_bytes, n);
  }
  pthread_mutex_unlock(&r->lock);
}

#define CP_ASYNC(n)                                                                                                    \
  static void emu_cp_async_##n(void *dst, const void *src, uint32_t pred, uint32_t site) {                           \
    cp_async(dst, src, pred, site, n);                                                                                 \
  }
CP_ASYNC(4)
CP_ASYNC(8)
CP_ASYNC(16)
static void emu_cp_async_commit(void) { async_commit(&cur->async, cur_tid()); }
#define CP_WAIT(k)                                                                                                     \
  static void emu_cp_async_wait_##k(void) { async_wait(&cur->async, cur_tid(), k); }
CP_WAIT(0)
CP_WAIT(1)
CP_WAIT(2)
CP_WAIT(3)
CP_WAIT(4)
CP_WAIT(5)
CP_WAIT(6)
CP_WAIT(7)

/* ---- atomics: tilec.emu.atom.<op>.<sem>.<scope>.<type>(ptr, pred, v[, v2], site) ------------- */

/* Whether the atomic is made: the lane is on and the address in a buffer
 * (its number in *b). Every lane tells the checks it passed, made or not:
 * the threads a scalar atomic masks off take and give back its locks too. */
static bool atom_begin(void *p, uint32_t pred, size_t n, CkAtom kind, uint32_t site, int *b) {
  Cur *c = cur;
  *b = (pred & 1) ? find_buffer(c, p, n, "atomic", site) : -1;
  if (*b < 0 && c->cw) ck_atomic(c->cw, -1, p, (unsigned)n, kind, false, false, tid_of(c), site);
  return *b >= 0;
}

static void atom_end(void *p, size_t n, CkAtom kind, bool changed, uint32_t site, int b) {
  if (cur->cw) ck_atomic(cur->cw, b, p, (unsigned)n, kind, true, changed, cur_tid(), site);
}

/* All atomics are sequentially consistent here, which every sem allows. */
#define ATOM_RMW(name, T, S, bits, kind, call, changed)                                                                \
  static T atom_##name##_##S##bits(T *p, uint32_t pred, T v, uint32_t site) {                                          \
    int b;                                                                                                             \
    if (!atom_begin(p, pred, sizeof(T), kind, site, &b)) return 0;                                                     \
    T old = call(p, v, __ATOMIC_SEQ_CST);                                                                              \
    atom_end(p, sizeof(T), kind, changed, site, b);                                                                    \
    return old;                                                                                                        \
  }
#define ATOM_INT(T, S, bits)                                                                                           \
  ATOM_RMW(add, T, S, bits, CK_ATOM_OTHER, __atomic_fetch_add, false)                                                  \
  ATOM_RMW(and, T, S, bits, CK_ATOM_OTHER, __atomic_fetch_and, false)                                                  \
  ATOM_RMW(or, T, S, bits, CK_ATOM_OTHER, __atomic_fetch_or, false)                                                    \
  ATOM_RMW(xor, T, S, bits, CK_ATOM_OTHER, __atomic_fetch_xor, false)                                                  \
  ATOM_RMW(exch, T, S, bits, CK_ATOM_EXCH, __atomic_exchange_n, old != v)                                              \
  static T atom_cas_##S##bits(T *p, uint32_t pred, T cmp, T v, uint32_t site) {                                        \
    int b;                                                                                                             \
    if (!atom_begin(p, pred, sizeof(T), CK_ATOM_CAS, site, &b)) return 0;                                              \
    T want = cmp;                                                                                                      \
    __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                                \
    atom_end(p, sizeof(T), CK_ATOM_CAS, cmp == want && v != want, site, b);                                            \
    return cmp;                                                                                                        \
  }
ATOM_INT(uint32_t, u, 32)
ATOM_INT(uint64_t, u, 64)

#define ATOM_MINMAX(T, S, bits)                                                                                        \
  static T atom_max_##S##bits(T *p, uint32_t pred, T v, uint32_t site) {                                               \
    int b;                                                                                                             \
    if (!atom_begin(p, pred, sizeof(T), CK_ATOM_OTHER, site, &b)) return 0;                                            \
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                                      \
    while (old < v && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {           \
    }                                                                                                                  \
    atom_end(p, sizeof(T), CK_ATOM_OTHER, false, site, b);                                                             \
    return old;                                                                                                        \
  }                                                                                                                    \
  static T atom_min_##S##bits(T *p, uint32_t pred, T v, uint32_t site) {                                               \
    int b;                                                                                                             \
    if (!atom_begin(p, pred, sizeof(T), CK_ATOM_OTHER, site, &b)) return 0;                                            \
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                                      \
    while (old > v && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {           \
    }                                                                                                                  \
    atom_end(p, sizeof(T), CK_ATOM_OTHER, false, site, b);                                                             \
    return old;                                                                                                        \
  }
ATOM_MINMAX(uint32_t, u, 32)
ATOM_MINMAX(uint64_t, u, 64)
ATOM_MINMAX(int32_t, s, 32)
ATOM_MINMAX(int64_t, s, 64)

/* Float atomics: the value travels as its bits; a compare-and-swap loop. */
#define ATOM_FLOAT(F, U, bits, name, expr)                                                                             \
  static U atom_##name##_f##bits(U *p, uint32_t pred, U vb, uint32_t site) {                                           \
    int b;                                                                                                             \
    if (!atom_begin(p, pred, sizeof(U), CK_ATOM_OTHER, site, &b)) return 0;                                            \
    U old = __atomic_load_n(p, __ATOMIC_SEQ_CST), nb;                                                                  \
    do {                                                                                                               \
      F a, v, r;                                                                                                       \
      memcpy(&a, &old, sizeof a);                                                                                      \
      memcpy(&v, &vb, sizeof v);                                                                                       \
      r = (expr);                                                                                                      \
      memcpy(&nb, &r, sizeof nb);                                                                                      \
    } while (!__atomic_compare_exchange_n(p, &old, nb, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));                     \
    atom_end(p, sizeof(U), CK_ATOM_OTHER, false, site, b);                                                             \
    return old;                                                                                                        \
  }
ATOM_FLOAT(float, uint32_t, 32, add, a + v)
ATOM_FLOAT(double, uint64_t, 64, add, a + v)
ATOM_FLOAT(float, uint32_t, 32, max, fmaxf(a, v))
ATOM_FLOAT(double, uint64_t, 64, max, fmax(a, v))
ATOM_FLOAT(float, uint32_t, 32, min, fminf(a, v))
ATOM_FLOAT(double, uint64_t, 64, min, fmin(a, v))

/* 16-bit float adds, as atom.add.noftz.{f16,bf16}{,x2} define them: the sum
 * rounded once to nearest even, subnormal inputs and results kept (noftz).
 * Two f16 or bf16 values add exactly in a double's 53 bits, or (bf16 of far
 * apart exponents) round there first, which cannot change the rounding to
 * 8 or 11 bits (53 >= 2p + 2); so the sum is taken in double and rounded
 * to the 16-bit format here. */
static double half_value(uint32_t h, int mbits) { /* f16: 10, bf16: 7 */
  int ebits = 15 - mbits, bias = (1 << (ebits - 1)) - 1;
  uint32_t e = (h >> mbits) & ((1u << ebits) - 1), m = h & ((1u << mbits) - 1);
  double sign = (h >> 15) & 1 ? -1.0 : 1.0;
  if (e == (1u << ebits) - 1) return m ? NAN : sign * INFINITY;
  if (!e) return sign * ldexp(m, 1 - bias - mbits);
  return sign * ldexp((double)(m | (1u << mbits)), (int)e - bias - mbits);
}

static uint32_t half_round(double x, int mbits) {
  int ebits = 15 - mbits, bias = (1 << (ebits - 1)) - 1;
  uint32_t sign = signbit(x) ? 0x8000u : 0, inf = ((1u << ebits) - 1) << mbits;
  if (isnan(x)) return inf | (1u << (mbits - 1)); /* a quiet NaN */
  double a = fabs(x);
  if (isinf(a)) return sign | inf;
  if (a == 0) return sign;
  int exp;
  (void)frexp(a, &exp);                                            /* a = f * 2^exp, f in [0.5, 1) */
  int q = exp - 1 < 1 - bias ? 1 - bias - mbits : exp - 1 - mbits; /* the unit in the last place: 2^q */
  double units = ldexp(a, -q), whole = floor(units), frac = units - whole;
  uint64_t u = (uint64_t)whole;
  if (frac > 0.5 || (frac == 0.5 && (u & 1))) u++;
  /* u * 2^q; u may have grown to the next binade, which the encoding absorbs */
  uint64_t bits;
  if (q == 1 - bias - mbits && u < (1u << mbits)) bits = u;                     /* subnormal */
  else bits = ((uint64_t)(q + mbits + bias) << mbits) + (u - (1u << mbits)); /* normal: u in [2^m, 2^(m+1)] */
  if (bits >= inf) return sign | inf;
  return sign | (uint32_t)bits;
}

static uint32_t half_add(uint32_t a, uint32_t b, int mbits) {
  return half_round(half_value(a & 0xffff, mbits) + half_value(b & 0xffff, mbits), mbits);
}

/* The value travels as its bits (in 32 bits, of which 16 are used for one
 * half); a compare-and-swap loop on the 16- or 32-bit word. */
#define ATOM_HALF(name, mbits)                                                                                         \
  static uint16_t atom_add_##name(uint16_t *p, uint32_t pred, uint32_t v, uint32_t site) {                             \
    int b;                                                                                                             \
    if (!atom_begin(p, pred, 2, CK_ATOM_OTHER, site, &b)) return 0;                                                    \
    uint16_t old = __atomic_load_n(p, __ATOMIC_SEQ_CST), nb;                                                           \
    do nb = (uint16_t)half_add(old, v, mbits);                                                                         \
    while (!__atomic_compare_exchange_n(p, &old, nb, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));                       \
    atom_end(p, 2, CK_ATOM_OTHER, false, site, b);                                                                     \
    return old;                                                                                                        \
  }                                                                                                                    \
  static uint32_t atom_add_##name##x2(uint32_t *p, uint32_t pred, uint32_t v, uint32_t site) {                         \
    int b;                                                                                                             \
    if (!atom_begin(p, pred, 4, CK_ATOM_OTHER, site, &b)) return 0;                                                    \
    uint32_t old = __atomic_load_n(p, __ATOMIC_SEQ_CST), nb;                                                           \
    do nb = half_add(old, v, mbits) | half_add(old >> 16, v >> 16, mbits) << 16;                                       \
    while (!__atomic_compare_exchange_n(p, &old, nb, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));                       \
    atom_end(p, 4, CK_ATOM_OTHER, false, site, b);                                                                     \
    return old;                                                                                                        \
  }
ATOM_HALF(f16, 10)
ATOM_HALF(bf16, 7)

/* keyed "<op>.<type>": PTX's type names (b: bits, u: unsigned, s: signed, f: float) */
static const Named atomics[] = {
    {"add.u32", FN(atom_add_u32)},   {"add.u64", FN(atom_add_u64)},   {"add.s32", FN(atom_add_u32)},
    {"add.s64", FN(atom_add_u64)},   {"add.f32", FN(atom_add_f32)},   {"add.f64", FN(atom_add_f64)},
    {"and.b32", FN(atom_and_u32)},   {"and.b64", FN(atom_and_u64)},   {"or.b32", FN(atom_or_u32)},
    {"or.b64", FN(atom_or_u64)},     {"xor.b32", FN(atom_xor_u32)},   {"xor.b64", FN(atom_xor_u64)},
    {"exch.b32", FN(atom_exch_u32)}, {"exch.b64", FN(atom_exch_u64)}, {"cas.b32", FN(atom_cas_u32)},
    {"cas.b64", FN(atom_cas_u64)},   {"max.s32", FN(atom_max_s32)},   {"max.s64", FN(atom_max_s64)},
    {"max.u32", FN(atom_max_u32)},   {"max.u64", FN(atom_max_u64)},   {"min.s32", FN(atom_min_s32)},
    {"min.s64", FN(atom_min_s64)},   {"min.u32", FN(atom_min_u32)},   {"min.u64", FN(atom_min_u64)},
    {"max.f32", FN(atom_max_f32)},   {"max.f64", FN(atom_max_f64)},   {"min.f32", FN(atom_min_f32)},
    {"min.f64", FN(atom_min_f64)},   {"add.f16", FN(atom_add_f16)},   {"add.f16x2", FN(atom_add_f16x2)},
    {"add.bf16", FN(atom_add_bf16)}, {"add.bf16x2", FN(atom_add_bf16x2)},
};

/* ---- tensor cores: mma.sync and ldmatrix, warp collectives (emu/mma.h) ------------------------ */

/* Each lane calls tilec.emu.mma.<shape...>(d, a, b, c) with pointers to its
 * registers in memory (the C calling convention takes no LLVM vectors or
 * structs), and tilec.emu.ldmatrix.x<n>[.trans].b16(d, p) with its own row
 * address. The 32 lanes meet (fiber_warp_call); the last to arrive runs the
 * warp's model once and writes every lane's registers, so every lane's
 * inputs are read before any lane's outputs are written, and no lane goes
 * on before its registers are done. A lane that returned, or lanes of one
 * warp in different instructions, stop the block as a deadlock or a
 * divergent collective, as for shuffles. */

/* The instructions need the warp's threads to run as fibers; a kernel that
 * says it needs none (tilec_emu_fibers) is reported, not run wrong. */
static bool warp_meets(const char *what) {
  if (cur->fibers) return true;
  Run *r = cur->run;
  pthread_mutex_lock(&r->lock);
  if (r->reports++ < MAX_REPORTS)
    report(r, "kernel '%s', block (%u, %u, %u), thread %d: %s needs the 32 threads of its warp to meet, but the "
              "kernel's threads do not run as fibers (tilec_emu_fibers is 0)",
           r->k->name, cur->ctaid[0], cur->ctaid[1], cur->ctaid[2], cur_tid(), what);
  pthread_mutex_unlock(&r->lock);
  return false;
}

typedef struct MmaLane {
  uint32_t *d;
  const uint32_t *a, *b, *c;
} MmaLane;

/* per kind: the context that tells the lanes' calls apart, and the name for reports */
typedef struct MmaOp {
  EmuMmaKind kind;
  const char *name;
} MmaOp;
static const MmaOp mma_ops[EMU_MMA_KINDS] = {
    {EMU_MMA_F32_F16, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"},
    {EMU_MMA_F32_BF16, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"},
    {EMU_MMA_F16_F16, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"},
    {EMU_MMA_F32_TF32, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"},
    {EMU_MMA_S32_S8S8, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"},
    {EMU_MMA_S32_S8U8, "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32"},
    {EMU_MMA_S32_U8S8, "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32"},
    {EMU_MMA_S32_U8U8, "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32"},
    {EMU_MMA_F32_E4M3E4M3, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"},
    {EMU_MMA_F32_E4M3E5M2, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32"},
    {EMU_MMA_F32_E5M2E4M3, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32"},
    {EMU_MMA_F32_E5M2E5M2, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32"},
};

static void mma_complete(void *ctx, void *const lanes[32]) {
  EmuMmaKind kind = ((const MmaOp *)ctx)->kind;
  uint32_t a[32][4], b[32][2], c[32][4] = {{0}}, d[32][4];
  int nc = emu_mma_c_regs(kind);
  for (int l = 0; l < 32; l++) {
    const MmaLane *x = lanes[l];
    memcpy(a[l], x->a, sizeof a[l]);
    memcpy(b[l], x->b, sizeof b[l]);
    memcpy(c[l], x->c, (size_t)nc * 4);
  }
  emu_mma_warp(kind, (const uint32_t(*)[4])a, (const uint32_t(*)[2])b, (const uint32_t(*)[4])c, d);
  for (int l = 0; l < 32; l++) memcpy(((const MmaLane *)lanes[l])->d, d[l], (size_t)nc * 4);
}

static void mma_lane(EmuMmaKind kind, uint32_t *d, const uint32_t *a, const uint32_t *b, const uint32_t *c) {
  const MmaOp *op = &mma_ops[kind];
  if (!warp_meets(op->name)) return;
  MmaLane me = {d, a, b, c};
  fiber_warp_call(~0u, op->name, mma_complete, (void *)op, &me);
}

#define MMA(id, kind)                                                                                                  \
  static void emu_mma_##id(uint32_t *d, const uint32_t *a, const uint32_t *b, const uint32_t *c) {                    \
    mma_lane(kind, d, a, b, c);                                                                                        \
  }
MMA(f32_f16, EMU_MMA_F32_F16)
MMA(f32_bf16, EMU_MMA_F32_BF16)
MMA(f16_f16, EMU_MMA_F16_F16)
MMA(f32_tf32, EMU_MMA_F32_TF32)
MMA(s8s8, EMU_MMA_S32_S8S8)
MMA(s8u8, EMU_MMA_S32_S8U8)
MMA(u8s8, EMU_MMA_S32_U8S8)
MMA(u8u8, EMU_MMA_S32_U8U8)
MMA(e4e4, EMU_MMA_F32_E4M3E4M3)
MMA(e4e5, EMU_MMA_F32_E4M3E5M2)
MMA(e5e4, EMU_MMA_F32_E5M2E4M3)
MMA(e5e5, EMU_MMA_F32_E5M2E5M2)
/* by EmuMmaKind: tilec.emu.mma.<emu_mma_name(kind)> */
static void *const mma_fns[EMU_MMA_KINDS] = {
    FN(emu_mma_f32_f16), FN(emu_mma_f32_bf16), FN(emu_mma_f16_f16), FN(emu_mma_f32_tf32),
    FN(emu_mma_s8s8),    FN(emu_mma_s8u8),     FN(emu_mma_u8s8),    FN(emu_mma_u8u8),
    FN(emu_mma_e4e4),    FN(emu_mma_e4e5),     FN(emu_mma_e5e4),    FN(emu_mma_e5e5),
};

/* ldmatrix.sync.aligned.m8n8.x<num>[.trans].shared.b16 */
typedef struct LdmOp {
  int num;
  bool trans;
  const char *name;
} LdmOp;
static const LdmOp ldm_ops[6] = {
    {1, false, "ldmatrix.sync.aligned.m8n8.x1.shared.b16"},
    {2, false, "ldmatrix.sync.aligned.m8n8.x2.shared.b16"},
    {4, false, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"},
    {1, true, "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16"},
    {2, true, "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"},
    {4, true, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"},
};

typedef struct LdmLane {
  uint32_t *d;
  const unsigned char *row;
} LdmLane;

typedef struct LdmRead {
  const LdmOp *op;
  int base; /* the tid of the warp's lane 0 */
} LdmRead;

/* A row of 16 bytes, read for the thread of lane `lane`, which gave its
 * address: it must lie in shared memory, 16-byte aligned (the ISA asks
 * rows to be naturally aligned), and have been written. A report names the
 * thread that gave the address, not the one that completed the warp. */
static bool ldm_read(void *ctx, int lane, const void *row, unsigned char out[16]) {
  const LdmRead *rd = ctx;
  int tid = rd->base + lane;
  Run *r = cur->run;
  uintptr_t a = (uintptr_t)row, lo = (uintptr_t)cur->smem;
  const char *why = a < lo || a - lo + 16 > cur->smem_bytes ? "outside the block's shared memory"
                    : (a - lo) % 16                           ? "not 16-byte aligned"
                                                              : NULL;
  if (why) {
    pthread_mutex_lock(&r->lock);
    if (r->reports++ < MAX_REPORTS)
      report(r, "%s in kernel '%s', block (%u, %u, %u): thread %d gave the row address %p (offset %lld of %zu bytes "
                "of shared memory), %s",
             rd->op->name, r->k->name, cur->ctaid[0], cur->ctaid[1], cur->ctaid[2], tid, row,
             (long long)(a - lo), cur->smem_bytes, why);
    pthread_mutex_unlock(&r->lock);
    return false;
  }
  if (cur->async_used) async_access(row, 16, false, tid);
  smem_written_by(row, 16, tid);
  memcpy(out, row, 16);
  return true;
}

static void ldm_complete(void *ctx, void *const lanes[32]) {
  const LdmOp *op = ctx;
  const void *rows[32];
  for (int l = 0; l < 32; l++) rows[l] = ((const LdmLane *)lanes[l])->row;
  LdmRead rd = {op, cur_tid() & ~31};
  uint32_t out[32][4];
  emu_ldmatrix_warp(op->num, op->trans, rows, ldm_read, &rd, out);
  for (int l = 0; l < 32; l++) memcpy(((const LdmLane *)lanes[l])->d, out[l], (size_t)op->num * 4);
}

static void ldm_lane(const LdmOp *op, uint32_t *d, const unsigned char *row) {
  if (!warp_meets(op->name)) return;
  LdmLane me = {d, row};
  fiber_warp_call(~0u, op->name, ldm_complete, (void *)op, &me);
}

#define LDM(i, id)                                                                                                     \
  static void emu_ldmatrix_##id(uint32_t *d, const unsigned char *row) { ldm_lane(&ldm_ops[i], d, row); }
LDM(0, x1)
LDM(1, x2)
LDM(2, x4)
LDM(3, x1_trans)
LDM(4, x2_trans)
LDM(5, x4_trans)

/* ---- wgmma.mma_async, one warp's part at a time (emu/wgmma.h) --------------------------------- */

/* Each lane calls tilec.emu.wgmma(d, a, a_desc, b_desc, op, scale_d): d and
 * a point to its registers (N/2 words of D, N/4 for an f16 D; 4 of A when
 * A is in registers), op is the instruction (emu_wgmma_encode), scale_d its
 * predicate. The 32 lanes of a warp meet; the last to arrive computes the
 * warp's 16 rows of D (they depend on no other warp's registers) from A
 * and B in shared memory, where the descriptors' addresses are offsets. The
 * model runs when the instruction is issued and D is written at once, which
 * the asynchronous instruction allows (a kernel must wait for the group
 * before it reads D). */
#define WGMMA_NAME "wgmma.mma_async.sync.aligned"

typedef struct WgLane {
  uint32_t *d;
  const uint32_t *a;
  uint64_t a_desc, b_desc;
  int scale_d;
} WgLane;

typedef struct WgRead {
  int tid;       /* the warp's lane 0 */
  bool reported; /* a read was reported: the model's failure is not again */
  bool unfenced; /* an unfenced read was reported */
} WgRead;

static void wg_report(int tid, const char *what) {
  Run *r = cur->run;
  pthread_mutex_lock(&r->lock);
  if (r->reports++ < MAX_REPORTS)
    report(r, WGMMA_NAME " in kernel '%s', block (%u, %u, %u), warp of thread %d: %s", r->k->name, cur->ctaid[0],
           cur->ctaid[1], cur->ctaid[2], tid, what);
  pthread_mutex_unlock(&r->lock);
}

/* Bytes of A or B, at a shared-memory offset a descriptor led to: inside
 * the block's shared memory, and written before (a read of bytes nothing
 * wrote, or that a cp.async has not landed yet, is reported as for loads). */
static bool wg_read(void *ctx, uint32_t address, void *out, int bytes) {
  WgRead *rd = ctx;
  if ((size_t)address + (size_t)bytes > cur->smem_bytes) {
    char what[160];
    snprintf(what, sizeof what, "a descriptor leads to offset %u, past the block's %zu bytes of shared memory", address,
             cur->smem_bytes);
    wg_report(rd->tid, what);
    rd->reported = true;
    return false;
  }
  const unsigned char *p = (const unsigned char *)cur->smem + address;
  if (cur->async_used) async_access(p, (size_t)bytes, false, rd->tid);
  if (cur->boxes) box_read(p, (size_t)bytes, rd->tid, "the wgmma.mma_async of the warp of thread");
  smem_written_by(p, (size_t)bytes, rd->tid);
  if (cur->proxy_on) {
    int writer;
    bool ok;
    if (proxy_read(&cur->proxy, rd->tid, rd->tid / 32, address, (uint32_t)bytes, &writer, &ok) == PROXY_UNFENCED && !rd->unfenced) {
      char what[256];
      snprintf(what, sizeof what,
               "it reads shared memory (offset %u) that thread %d wrote through the generic proxy with no fence.proxy.async "
               "between (by the writer after its write, or by the reader after a barrier that follows it)",
               address, writer);
      wg_report(rd->tid, what);
      rd->unfenced = true; /* once an instruction */
    }
    if (!ok) wg_report(rd->tid, "out of memory");
  }
  memcpy(out, p, (size_t)bytes);
  return true;
}

static void wgmma_complete(void *ctx, void *const lanes[32]) {
  EmuWgmma op;
  int tid = cur_tid() & ~31;
  if (!emu_wgmma_decode((uint32_t)((uintptr_t)ctx >> 1), &op)) {
    wg_report(tid, "the call's instruction code is not one tilec.emu.wgmma knows");
    return;
  }
  const WgLane *l0 = lanes[0];
  for (int l = 1; l < 32; l++) {
    const WgLane *x = lanes[l];
    if (x->a_desc != l0->a_desc || x->b_desc != l0->b_desc || x->scale_d != l0->scale_d) {
      wg_report(tid, "its lanes give different descriptors or scale-d (the instruction takes the same in every thread)");
      return;
    }
  }
  op.scale_d = l0->scale_d != 0;
  int nd = op.f16_d ? op.n / 4 : op.n / 2;
  uint32_t(*a)[4] = calloc(32, sizeof *a), (*d)[128] = calloc(32, sizeof *d);
  if (!a || !d) {
    free(a), free(d);
    wg_report(tid, "out of memory");
    return;
  }
  for (int l = 0; l < 32; l++) {
    const WgLane *x = lanes[l];
    if (op.a_in_registers) memcpy(a[l], x->a, sizeof a[l]);
    memcpy(d[l], x->d, (size_t)nd * 4);
  }
  WgRead rd = {tid, false, false};
  const char *why = NULL;
  if (emu_wgmma_warp(&op, (tid / 32) % 4, a, l0->a_desc, l0->b_desc, d, wg_read, &rd, &why)) {
    for (int l = 0; l < 32; l++) memcpy(((const WgLane *)lanes[l])->d, d[l], (size_t)nd * 4);
  } else if (!rd.reported) {
    wg_report(tid, why);
  }
  free(a), free(d);
}

static void emu_wgmma_call(uint32_t *d, const uint32_t *a, uint64_t a_desc, uint64_t b_desc, uint32_t code,
                           int32_t scale_d) {
  if (!warp_meets(WGMMA_NAME)) return;
  WgLane me = {d, a, a_desc, b_desc, scale_d};
  /* the code tells the lanes' instructions apart: lanes of a warp in different ones are divergent */
  fiber_warp_call(~0u, WGMMA_NAME, wgmma_complete, (void *)(((uintptr_t)code << 1) | 1), &me);
}

/* wgmma.commit_group and wgmma.wait_group keep: collectives of the warp
 * (.sync.aligned), so that no lane goes past a wait before its warp's
 * groups are retired; the last lane to arrive closes or retires them for
 * the async proxy's checks (asyncproxy.h). The model wrote D at issue, so
 * that is all they do. fence.proxy.async: the running thread's fence. */
static void wg_commit_complete(void *ctx, void *const lanes[32]) {
  (void)ctx, (void)lanes;
  if (cur->proxy_on) proxy_commit(&cur->proxy, cur_tid() / 32);
}

static void wg_wait_complete(void *ctx, void *const lanes[32]) {
  (void)lanes;
  if (cur->proxy_on) proxy_wait(&cur->proxy, cur_tid() / 32, (int)((uintptr_t)ctx >> 1));
}

static void emu_wgmma_commit(void) {
  if (!warp_meets("wgmma.commit_group.sync.aligned")) return;
  int me = 0;
  fiber_warp_call(~0u, "wgmma.commit_group.sync.aligned", wg_commit_complete, (void *)1, &me);
}

static void emu_wgmma_wait(int32_t keep) {
  if (!warp_meets("wgmma.wait_group.sync.aligned")) return;
  int me = 0;
  fiber_warp_call(~0u, "wgmma.wait_group.sync.aligned", wg_wait_complete, (void *)(((uintptr_t)(uint32_t)keep << 1) | 1), &me);
}

static void emu_fence_proxy_async(void) {
  if (cur->proxy_on) proxy_fence(&cur->proxy, cur_tid());
}

/* ---- TMA: cp.async.bulk.tensor (emu/tma.h) ------------------------------------------------------ */

/* tilec.emu.tma.load(dst, map, c0..c4, mbar, site): the tiled load of the
 * box at (c0, ..) of the tensor map at `map` (128 bytes of global memory
 * in the emulator's encoding) into shared memory at dst, then complete-tx
 * of the box's bytes on the mbarrier at mbar. tilec.emu.tma.store(map,
 * c0..c4, src, site): the box at src to the tensor. The copies are made
 * when issued: a load's bytes are in place when its mbarrier's phase can
 * complete, and a store's when its bulk group is waited for, which the
 * instructions allow. Each access is checked: the tensor's bytes as global
 * accesses (bounds, the race checks), the map as a read of a buffer, shared
 * memory against its bounds, unwritten bytes (a store's source) and the
 * wgmma operands still in flight (a load's destination). */
typedef struct TmaAccess {
  int tid;
  uint32_t site;
  const char *op; /* "TMA load", "TMA store" */
} TmaAccess;

static bool tma_global(void *ctx, uint64_t address, void *data, uint32_t n, bool store) {
  const TmaAccess *t = ctx;
  Cur *c = cur;
  void *p = (void *)(uintptr_t)address;
  int b = find_buffer(c, p, n, t->op, t->site);
  if (b < 0) return false;
  if (c->cw) ck_access(c->cw, b, p, n, store ? CK_STORE : CK_LOAD, t->tid, t->site);
  if (store) memcpy(p, data, n);
  else memcpy(data, p, n);
  return true;
}

static bool tma_read_global(void *ctx, uint64_t a, void *out, uint32_t n) { return tma_global(ctx, a, out, n, false); }
static bool tma_write_global(void *ctx, uint64_t a, const void *in, uint32_t n) { return tma_global(ctx, a, (void *)in, n, true); }

static bool tma_read_smem(void *ctx, uint32_t off, void *out, uint32_t n) {
  const TmaAccess *t = ctx;
  if ((size_t)off + n > cur->smem_bytes) return false;
  smem_written_by(cur->smem + off, n, t->tid);
  memcpy(out, cur->smem + off, n);
  return true;
}

static bool tma_write_smem(void *ctx, uint32_t off, const void *in, uint32_t n) {
  const TmaAccess *t = ctx;
  if ((size_t)off + n > cur->smem_bytes) return false;
  int warp;
  if (cur->proxy_on && proxy_async_write(&cur->proxy, off, n, &warp) != PROXY_OK) {
    Run *r = cur->run;
    pthread_mutex_lock(&r->lock);
    if (r->reports++ < MAX_REPORTS)
      report(r, "%s: race in kernel '%s', block (%u, %u, %u): the TMA load of thread %d writes shared memory (offset %u) "
                "that a wgmma.mma_async of warp %d still reads",
             site_name(t->site), r->k->name, cur->ctaid[0], cur->ctaid[1], cur->ctaid[2], t->tid, off, warp);
    pthread_mutex_unlock(&r->lock);
  }
  memcpy(cur->smem + off, in, n);
  memset(cur->shadow + off, 1, n);
  return true;
}

static void tma_failed(const TmaAccess *t, const char *why) {
  Run *r = cur->run;
  pthread_mutex_lock(&r->lock);
  if (r->reports++ < MAX_REPORTS)
    report(r, "%s: %s in kernel '%s', block (%u, %u, %u), thread %d: %s", site_name(t->site), t->op, r->k->name, cur->ctaid[0],
           cur->ctaid[1], cur->ctaid[2], t->tid, why);
  pthread_mutex_unlock(&r->lock);
}

/* The map at p, decoded; false (reported) when p holds none. */
static bool tma_map(const void *p, const TmaAccess *t, EmuTensorMap *m) {
  unsigned char bytes[EMU_TMA_BYTES];
  const char *why = NULL;
  if (find_buffer(cur, p, EMU_TMA_BYTES, "tensor-map read", t->site) < 0) return false;
  memcpy(bytes, p, sizeof bytes);
  if (emu_tma_decode(bytes, m, &why)) return true;
  tma_failed(t, why);
  return false;
}

static void emu_mbar_complete_tx_call(void *p, uint32_t bytes);

/* A tiled copy of the map at `map` between the tensor at coords and the
 * box at `box` in shared memory; the box's bytes (0 when it failed,
 * reported). */
static uint32_t tma_copy(const void *map, const int32_t coords[5], const void *box, uint32_t site, bool store) {
  TmaAccess t = {cur_tid(), site, store ? "TMA store" : "TMA load"};
  EmuTensorMap m;
  if (!tma_map(map, &t, &m)) return 0;
  const EmuTmaMemory mem = {tma_read_global, tma_write_global, tma_read_smem, tma_write_smem, &t};
  const char *why = NULL;
  uintptr_t a = (uintptr_t)box, lo = (uintptr_t)cur->smem;
  uint32_t bytes = emu_tma_box_bytes(&m);
  if (a < lo || a - lo + bytes > cur->smem_bytes) why = "its box lies outside the block's shared memory";
  else if (!(store ? emu_tma_store : emu_tma_load)(&m, coords, (uint32_t)(a - lo), &mem, &why)) why = why ? why : "it failed";
  if (!why) return bytes;
  tma_failed(&t, why);
  return 0;
}

static void emu_mbar_complete_tx_call(void *p, uint32_t bytes);

static uint64_t *mbar_word(void *p);
static TmaBoxes *block_boxes(void);

static void emu_tma_load_call(void *dst, const void *map, int32_t c0, int32_t c1, int32_t c2, int32_t c3, int32_t c4, void *mbar,
                              uint32_t site) {
  uint32_t bytes = tma_copy(map, (const int32_t[5]){c0, c1, c2, c3, c4}, dst, site, false);
  if (!bytes) return;
  /* the box, for the threads that read it: after they waited for the phase this copy completes */
  uint64_t *w = mbar_word(mbar);
  if (w && block_boxes())
    tmabox_copied(cur->boxes, (uint32_t)((unsigned char *)dst - cur->smem), bytes, (uint32_t)((unsigned char *)mbar - cur->smem),
                  emu_mbar_decode(*w).phase & 1, site);
  emu_mbar_complete_tx_call(mbar, bytes);
}

static TmaBoxes *block_boxes(void) {
  if (!cur->boxes && !(cur->boxes = calloc(1, sizeof *cur->boxes))) {
    Run *r = cur->run;
    pthread_mutex_lock(&r->lock);
    r->oom = true;
    pthread_mutex_unlock(&r->lock);
  }
  return cur->boxes;
}

static void emu_tma_store_call(const void *map, int32_t c0, int32_t c1, int32_t c2, int32_t c3, int32_t c4, const void *src,
                               uint32_t site) {
  uint32_t bytes = tma_copy(map, (const int32_t[5]){c0, c1, c2, c3, c4}, src, site, true);
  /* the box is read until this thread's wait_group.read */
  if (bytes && block_boxes())
    tmabox_store_issued(cur->boxes, (uint32_t)((const unsigned char *)src - cur->smem), bytes, cur_tid(), site);
}

/* cp.async.bulk.wait_group.read 0: the thread's stores have read their boxes. */
static void emu_bulk_wait_read(void) {
  if (cur->boxes) tmabox_store_waited(cur->boxes, cur_tid());
}

/* ---- mbarrier (emu/mbarrier.h) ------------------------------------------------------------------ */

/* The object is the 8 bytes at its shared-memory address, in mbarrier.h's
 * encoding. Each call checks the address (in the block's shared memory,
 * 8-byte aligned) and the operation (mbarrier.h's errors), and reports what
 * is wrong with the thread and the object's offset; the object is then left
 * as it was. try_wait.parity parks the thread until the phase of that
 * parity completes (the ISA lets try_wait return false on a time limit; the
 * emulator waits instead), so a phase that can never complete is the
 * scheduler's deadlock, which names the object and the phase. */
static void mbar_report(const void *p, const char *what) {
  Run *r = cur->run;
  pthread_mutex_lock(&r->lock);
  if (r->reports++ < MAX_REPORTS)
    report(r, "kernel '%s', block (%u, %u, %u), thread %d: %s (the mbarrier at offset %lld of shared memory)", r->k->name,
           cur->ctaid[0], cur->ctaid[1], cur->ctaid[2], cur_tid(), what,
           (long long)((const unsigned char *)p - cur->smem));
  pthread_mutex_unlock(&r->lock);
}

/* The object's word, or NULL (reported) when p is no place for one. */
static uint64_t *mbar_word(void *p) {
  uintptr_t a = (uintptr_t)p, lo = (uintptr_t)cur->smem;
  if (a < lo || a - lo + 8 > cur->smem_bytes || (a - lo) % 8) {
    mbar_report(p, a < lo || a - lo + 8 > cur->smem_bytes ? "an mbarrier outside the block's shared memory"
                                                          : "an mbarrier not 8-byte aligned");
    return NULL;
  }
  return p;
}

/* The object at p, or false (reported) when there is none. */
static bool mbar_get(void *p, uint64_t **w, EmuMbar *m) {
  if (!(*w = mbar_word(p))) return false;
  size_t off = (size_t)((unsigned char *)p - cur->smem);
  *m = cur->shadow[off] ? emu_mbar_decode(**w) : (EmuMbar){0}; /* memory nothing wrote holds no object */
  return true;
}

static void mbar_put(void *p, uint64_t *w, EmuMbar *m, const char *why) {
  if (why) mbar_report(p, why);
  else *w = emu_mbar_encode(m);
}

static void emu_mbar_init_call(void *p, uint32_t count) {
  uint64_t *w;
  EmuMbar m;
  if (!mbar_get(p, &w, &m)) return;
  const char *why = emu_mbar_init(&m, count);
  mbar_put(p, w, &m, why);
  if (!why) memset(cur->shadow + ((unsigned char *)p - cur->smem), 1, 8); /* the object's bytes are written */
}

static uint64_t mbar_arrive(void *p, uint32_t count, uint32_t tx, bool drop) {
  uint64_t *w;
  EmuMbar m;
  uint32_t before = 0;
  if (!mbar_get(p, &w, &m)) return 0;
  mbar_put(p, w, &m, emu_mbar_arrive(&m, count, tx, false, drop, &before, NULL));
  return before; /* the state: the phase before the arrive */
}

static uint64_t emu_mbar_arrive_call(void *p) { return mbar_arrive(p, 1, 0, false); }
static uint64_t emu_mbar_arrive_count_call(void *p, uint32_t count) { return mbar_arrive(p, count, 0, false); }
static uint64_t emu_mbar_arrive_expect_tx_call(void *p, uint32_t bytes) { return mbar_arrive(p, 1, bytes, false); }
static uint64_t emu_mbar_arrive_drop_call(void *p) { return mbar_arrive(p, 1, 0, true); }

static void emu_mbar_expect_tx_call(void *p, uint32_t bytes) {
  uint64_t *w;
  EmuMbar m;
  if (mbar_get(p, &w, &m)) mbar_put(p, w, &m, emu_mbar_expect_tx(&m, bytes));
}

static void emu_mbar_complete_tx_call(void *p, uint32_t bytes) {
  uint64_t *w;
  EmuMbar m;
  if (mbar_get(p, &w, &m)) mbar_put(p, w, &m, emu_mbar_complete_tx(&m, bytes, NULL));
}

static void emu_mbar_inval_call(void *p) {
  uint64_t *w;
  EmuMbar m;
  if (mbar_get(p, &w, &m)) mbar_put(p, w, &m, emu_mbar_inval(&m));
}

typedef struct MbarWait {
  const uint64_t *w;
  uint32_t parity;
} MbarWait;

static bool mbar_phase_done(void *ctx) {
  const MbarWait *x = ctx;
  EmuMbar m = emu_mbar_decode(*x->w);
  bool done = false;
  return !m.valid || (emu_mbar_test_parity(&m, x->parity, &done) == NULL && done);
}

static bool emu_mbar_test_wait_parity_call(void *p, uint32_t parity) {
  uint64_t *w;
  EmuMbar m;
  bool done = false;
  if (!mbar_get(p, &w, &m)) return true;
  const char *why = emu_mbar_test_parity(&m, parity, &done);
  if (why) mbar_report(p, why);
  if (done && cur->boxes) tmabox_waited(cur->boxes, (uint32_t)((unsigned char *)p - cur->smem), parity, cur_tid());
  return why || done;
}

static bool emu_mbar_try_wait_parity_call(void *p, uint32_t parity) {
  if (!emu_mbar_test_wait_parity_call(p, parity)) {
    MbarWait x = {mbar_word(p), parity};
    char what[96];
    snprintf(what, sizeof what, "on the mbarrier at offset %lld of shared memory for its phase of parity %u",
             (long long)((unsigned char *)p - cur->smem), parity);
    if (!fiber_park(mbar_phase_done, &x, what)) {
      mbar_report(p, "mbarrier.try_wait for a phase that has not completed, in a kernel whose threads do not run as "
                     "fibers (tilec_emu_fibers is 0): no other thread can complete it");
      return true;
    }
    if (!emu_mbar_decode(*x.w).valid) mbar_report(p, "mbarrier.try_wait on an mbarrier invalidated while it waited");
    else if (cur->boxes) tmabox_waited(cur->boxes, (uint32_t)((unsigned char *)p - cur->smem), parity, cur_tid());
  }
  return true;
}

/* ---- vprintf and __assertfail ----------------------------------------------------------------- */

/* CUDA's vprintf: the arguments are packed in `buf`, each aligned to its
 * size; %f and friends are doubles. */
static int emu_vprintf(const char *fmt, const unsigned char *buf) {
  Run *r = cur->run;
  char out[1024];
  size_t n = 0, at = 0;
  for (const char *p = fmt; *p && n < sizeof out - 64; p++) {
    if (*p != '%') {
      out[n++] = *p;
      continue;
    }
    if (p[1] == '%') {
      out[n++] = '%';
      p++;
      continue;
    }
    char spec[32];
    size_t s = 0;
    spec[s++] = *p++;
    int longs = 0;
    while (*p && strchr("0123456789.-+ #l", *p) && s < sizeof spec - 2) {
      if (*p == 'l') longs++;
      spec[s++] = *p++;
    }
    if (!*p) break;
    char c = *p;
    spec[s++] = c;
    spec[s] = 0;
    size_t size = c == 's' || c == 'p' || c == 'f' || c == 'e' || c == 'g' || c == 'E' || c == 'G' || longs ? 8 : 4;
    at = (at + size - 1) / size * size;
    int w = 0;
    if (c == 's') {
      const char *str;
      memcpy(&str, buf + at, 8);
      w = snprintf(out + n, sizeof out - n, spec, str ? str : "(null)");
    } else if (c == 'f' || c == 'e' || c == 'g' || c == 'E' || c == 'G') {
      double d;
      memcpy(&d, buf + at, 8);
      w = snprintf(out + n, sizeof out - n, spec, d);
    } else if (c == 'p') {
      void *v;
      memcpy(&v, buf + at, 8);
      w = snprintf(out + n, sizeof out - n, spec, v);
    } else if (size == 8) {
      long long v;
      memcpy(&v, buf + at, 8);
      w = snprintf(out + n, sizeof out - n, spec, v);
    } else {
      int v;
      memcpy(&v, buf + at, 4);
      w = snprintf(out + n, sizeof out - n, spec, v);
    }
    at += size;
    if (w > 0) n += (size_t)w < sizeof out - n ? (size_t)w : sizeof out - n - 1;
  }
  out[n] = 0;
  pthread_mutex_lock(&r->lock);
  fputs(out, r->out);
  pthread_mutex_unlock(&r->lock);
  return (int)n;
}

static void emu_assertfail(const char *msg, const char *file, uint32_t line, const char *func, size_t size) {
  (void)size;
  Run *r = cur->run;
  pthread_mutex_lock(&r->lock);
  if (r->reports++ < MAX_REPORTS)
    report(r, "%s:%u: device assertion failed in kernel '%s', block (%u, %u, %u), thread %d: %s", file, line, func,
           cur->ctaid[0], cur->ctaid[1], cur->ctaid[2], cur_tid(), msg);
  r->asserts++;
  pthread_mutex_unlock(&r->lock);
}

/* ---- the binding table ------------------------------------------------------------------------ */

static const Named bind_table[] = {
    {"tilec.emu.tid.x", FN(emu_tid_x)}, {"tilec.emu.tid.y", FN(emu_zero)},
    {"tilec.emu.tid.z", FN(emu_zero)}, {"tilec.emu.ntid.x", FN(emu_ntid_x)},
    {"tilec.emu.ntid.y", FN(emu_one)}, {"tilec.emu.ntid.z", FN(emu_one)},
    {"tilec.emu.ctaid.x", FN(emu_ctaid_x)}, {"tilec.emu.ctaid.y", FN(emu_ctaid_y)},
    {"tilec.emu.ctaid.z", FN(emu_ctaid_z)}, {"tilec.emu.nctaid.x", FN(emu_nctaid_x)},
    {"tilec.emu.nctaid.y", FN(emu_nctaid_y)}, {"tilec.emu.nctaid.z", FN(emu_nctaid_z)},
    {"tilec.emu.laneid", FN(emu_laneid)}, {"tilec.emu.barrier", FN(emu_barrier)},
    {"tilec.emu.cp.async.4", FN(emu_cp_async_4)}, {"tilec.emu.cp.async.8", FN(emu_cp_async_8)},
    {"tilec.emu.cp.async.16", FN(emu_cp_async_16)}, {"tilec.emu.cp.async.commit", FN(emu_cp_async_commit)},
    {"tilec.emu.cp.async.wait.0", FN(emu_cp_async_wait_0)}, {"tilec.emu.cp.async.wait.1", FN(emu_cp_async_wait_1)},
    {"tilec.emu.cp.async.wait.2", FN(emu_cp_async_wait_2)}, {"tilec.emu.cp.async.wait.3", FN(emu_cp_async_wait_3)},
    {"tilec.emu.cp.async.wait.4", FN(emu_cp_async_wait_4)}, {"tilec.emu.cp.async.wait.5", FN(emu_cp_async_wait_5)},
    {"tilec.emu.cp.async.wait.6", FN(emu_cp_async_wait_6)}, {"tilec.emu.cp.async.wait.7", FN(emu_cp_async_wait_7)},
    {"tilec.gdc.wait", FN(emu_gdc)}, {"tilec.gdc.launch_dependents", FN(emu_gdc)},
    {"tilec.emu.smem", FN(emu_smem)}, {"tilec.emu.lds.b8", FN(emu_lds_b8)},
    {"tilec.emu.lds.b16", FN(emu_lds_b16)}, {"tilec.emu.lds.b32", FN(emu_lds_b32)},
    {"tilec.emu.lds.b64", FN(emu_lds_b64)}, {"tilec.emu.sts.b8", FN(emu_sts_b8)},
    {"tilec.emu.sts.b16", FN(emu_sts_b16)}, {"tilec.emu.sts.b32", FN(emu_sts_b32)},
    {"tilec.emu.sts.b64", FN(emu_sts_b64)}, {"tilec.emu.shfl.bfly.i32", FN(emu_shfl_bfly_i32)},
    {"tilec.emu.shfl.bfly.f32", FN(emu_shfl_bfly_f32)}, {"tilec.emu.shfl.up.i32", FN(emu_shfl_up_i32)},
    {"tilec.emu.shfl.up.f32", FN(emu_shfl_up_f32)}, {"tilec.emu.shfl.down.i32", FN(emu_shfl_down_i32)},
    {"tilec.emu.shfl.down.f32", FN(emu_shfl_down_f32)}, {"tilec.emu.shfl.idx.i32", FN(emu_shfl_idx_i32)},
    {"tilec.emu.shfl.idx.f32", FN(emu_shfl_idx_f32)}, {"tilec.emu.ld.b8", FN(emu_ld_b8)},
    {"tilec.emu.ld.b16", FN(emu_ld_b16)}, {"tilec.emu.ld.b32", FN(emu_ld_b32)}, {"tilec.emu.align", FN(emu_align)}, {"tilec.emu.align.shared", FN(emu_align)},
    {"tilec.emu.ld.b64", FN(emu_ld_b64)}, {"tilec.emu.st.b8", FN(emu_st_b8)},
    {"tilec.emu.st.b16", FN(emu_st_b16)}, {"tilec.emu.st.b32", FN(emu_st_b32)},
    {"tilec.emu.st.b64", FN(emu_st_b64)},
    {"vprintf", FN(emu_vprintf)}, {"__assertfail", FN(emu_assertfail)},
    {"tilec.emu.ldmatrix.x1.b16", FN(emu_ldmatrix_x1)}, {"tilec.emu.ldmatrix.x1.trans.b16", FN(emu_ldmatrix_x1_trans)},
    {"tilec.emu.ldmatrix.x2.b16", FN(emu_ldmatrix_x2)}, {"tilec.emu.ldmatrix.x2.trans.b16", FN(emu_ldmatrix_x2_trans)},
    {"tilec.emu.ldmatrix.x4.b16", FN(emu_ldmatrix_x4)}, {"tilec.emu.ldmatrix.x4.trans.b16", FN(emu_ldmatrix_x4_trans)},
    {"tilec.emu.wgmma", FN(emu_wgmma_call)}, {"tilec.emu.smem.addr", FN(emu_smem_addr)},
    {"tilec.emu.wgmma.commit", FN(emu_wgmma_commit)}, {"tilec.emu.wgmma.wait", FN(emu_wgmma_wait)},
    {"tilec.emu.fence.proxy.async", FN(emu_fence_proxy_async)},
    {"tilec.emu.tma.load", FN(emu_tma_load_call)}, {"tilec.emu.tma.store", FN(emu_tma_store_call)},
    {"tilec.emu.bulk.wait.read", FN(emu_bulk_wait_read)},
    {"tilec.emu.mbarrier.init", FN(emu_mbar_init_call)}, {"tilec.emu.mbarrier.inval", FN(emu_mbar_inval_call)},
    {"tilec.emu.mbarrier.arrive", FN(emu_mbar_arrive_call)},
    {"tilec.emu.mbarrier.arrive.count", FN(emu_mbar_arrive_count_call)},
    {"tilec.emu.mbarrier.arrive.expect_tx", FN(emu_mbar_arrive_expect_tx_call)},
    {"tilec.emu.mbarrier.arrive_drop", FN(emu_mbar_arrive_drop_call)},
    {"tilec.emu.mbarrier.expect_tx", FN(emu_mbar_expect_tx_call)},
    {"tilec.emu.mbarrier.complete_tx", FN(emu_mbar_complete_tx_call)},
    {"tilec.emu.mbarrier.test_wait.parity", FN(emu_mbar_test_wait_parity_call)},
    {"tilec.emu.mbarrier.try_wait.parity", FN(emu_mbar_try_wait_parity_call)},
};

/* The C implementation of a declared function; NULL when there is none. */
void *emu_bind(const char *name, size_t len) {
  void *f = emu_find(bind_table, sizeof bind_table / sizeof *bind_table, name, len);
  if (f || (f = emu_bind_math(name, len))) return f;
  if (len > 14 && !memcmp(name, "tilec.emu.mma.", 14)) { /* tilec.emu.mma.<shape>.row.col.<types> */
    int kind = emu_mma_kind(name + 14, (int)len - 14);
    return kind < 0 ? NULL : mma_fns[kind];
  }
  if (len > 15 && !memcmp(name, "tilec.emu.atom.", 15)) {
    /* tilec.emu.atom.<op>.<sem>.<scope>.<type>: the op and the type */
    const char *op = name + 15, *end = name + len;
    const char *d1 = memchr(op, '.', (size_t)(end - op));
    const char *ty = end;
    while (ty > op && ty[-1] != '.') ty--;
    if (!d1) return NULL;
    char key[32];
    snprintf(key, sizeof key, "%.*s.%.*s", (int)(d1 - op), op, (int)(end - ty), ty);
    return emu_find(atomics, sizeof atomics / sizeof *atomics, key, strlen(key));
  }
  return NULL;
}

/* ---- running ---------------------------------------------------------------------------------- */

static void run_thread(void *arg, int tid) {
  (void)tid;
  Run *r = arg;
  r->k->entry((void **)r->l->args);
}

typedef struct Worker {
  Run *run;
  pthread_t thread;
} Worker;

static void *worker(void *arg) {
  Run *r = ((Worker *)arg)->run;
  const EmuLaunch *l = r->l;
  Cur c = {.run = r, .fibers = r->k->fibers};
  size_t smem_bytes = (size_t)(r->k->shared_bytes > 0 ? r->k->shared_bytes : 1);
  c.smem = aligned_alloc(16, (smem_bytes + 15) / 16 * 16);
  c.shadow = malloc(smem_bytes);
  c.smem_bytes = (size_t)(r->k->shared_bytes > 0 ? r->k->shared_bytes : 0);
  FiberSched *s = c.fibers ? fiber_sched_create(r->nthreads, 0) : NULL;
  c.cw = r->ck ? ck_worker_create(r->ck) : NULL;
  bool async_ok = c.smem && c.shadow && async_block_init(&c.async, c.smem, c.shadow, c.smem_bytes, r->nthreads);
  c.proxy_on = r->k->async_proxy;
  bool proxy_ok = !c.proxy_on || proxy_init(&c.proxy, c.smem_bytes, r->nthreads);
  cur = &c;
  if (!c.smem || !c.shadow || !async_ok || !proxy_ok || (c.fibers && !s) || (r->ck && !c.cw)) {
    pthread_mutex_lock(&r->lock);
    report(r, "emulator: out of memory for a block's shared memory, thread stacks or checks");
    r->oom = true;
    pthread_mutex_unlock(&r->lock);
    atomic_store(&r->stop, true);
  }
  while (!atomic_load(&r->stop)) {
    long b = atomic_fetch_add(&r->next_block, 1);
    if (b >= r->nblocks) break;
    c.ctaid[0] = (unsigned)(b % l->grid[0]);
    c.ctaid[1] = (unsigned)(b / l->grid[0] % l->grid[1]);
    c.ctaid[2] = (unsigned)(b / ((long)l->grid[0] * l->grid[1]));
    memset(c.smem, 0xcd, smem_bytes);
    memset(c.shadow, 0, smem_bytes);
    async_block_reset(&c.async);
    c.async_used = false;
    if (c.proxy_on) proxy_reset(&c.proxy);
    if (c.boxes) c.boxes->n = 0;
    if (c.cw) ck_program_begin(c.cw, b, c.ctaid);
    if (!c.fibers) {
      for (c.tid = 0; c.tid < r->nthreads; c.tid++) r->k->entry((void **)l->args);
      if (c.cw) ck_program_end(c.cw);
      continue;
    }
    FiberError fe;
    FiberStatus st = fiber_sched_run(s, run_thread, r, l->seed, &fe);
    if (c.cw) ck_program_end(c.cw);
    if (st != FIBER_OK) {
      pthread_mutex_lock(&r->lock);
      report(r, "kernel '%s', block (%u, %u, %u): %s", r->k->name, c.ctaid[0], c.ctaid[1], c.ctaid[2], fe.msg);
      r->reports++;
      pthread_mutex_unlock(&r->lock);
      atomic_store(&r->stop, true);
    }
  }
  cur = NULL;
  fiber_sched_destroy(s);
  ck_worker_destroy(c.cw);
  if (async_ok) async_block_free(&c.async);
  if (c.proxy_on && proxy_ok) proxy_free(&c.proxy);
  free(c.smem);
  free(c.shadow);
  free(c.boxes);
  return NULL;
}

bool emu_launch(EmuKernel *k, const EmuLaunch *l, char **out_report, EmuFailure *why) {
  *out_report = NULL;
  EmuFailure none;
  if (!why) why = &none;
  *why = EMU_FAILED_LAUNCH;
  Run r = {.k = k, .l = l, .out = l->print_to ? l->print_to : stdout};
  pthread_mutex_init(&r.lock, NULL);
  for (int d = 0; d < 3; d++)
    if (l->grid[d] < 1 || l->grid[d] > (d ? GRID_MAX_YZ : GRID_MAX_X)) {
      /* as CUDA would refuse it: a program past these has no ctaid to run as */
      char text[128];
      snprintf(text, sizeof text, "emulator: grid dimension %c is %u; it must be 1 to %u", "xyz"[d], l->grid[d],
               d ? GRID_MAX_YZ : GRID_MAX_X);
      *out_report = strdup(text);
      return false;
    }
  if (l->num_warps < 1 || l->num_warps > 32) {
    *out_report = strdup("emulator: num_warps must be 1 to 32");
    return false;
  }
  r.nthreads = 32 * l->num_warps;
  r.nblocks = (long)l->grid[0] * l->grid[1] * l->grid[2];
  CkConfig cc = {
      .buffers = l->buffers,
      .nbuffers = l->nbuffers,
      .kernel = k->name,
      .sites = k->sites,
      .nsites = k->nsites,
      .grid = {l->grid[0], l->grid[1], l->grid[2]},
      .nthreads = r.nthreads,
      .races = !l->no_racecheck,
      .report = ck_report,
      .ctx = &r,
  };
  bool oom;
  r.ck = ck_launch_create(&cc, &oom);
  if (oom) {
    pthread_mutex_destroy(&r.lock);
    *why = EMU_FAILED_NO_MEMORY;
    *out_report = strdup("emulator: out of memory for the shadow of global memory (EmuLaunch.no_racecheck goes without)");
    return false;
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int nworkers = l->host_threads > 0 ? l->host_threads : (int)(cores > 0 ? cores : 1);
  if (nworkers > r.nblocks) nworkers = (int)r.nblocks;
  if (nworkers > 64) nworkers = 64;
  Worker w[64];
  int started = 0;
  for (int i = 1; i < nworkers; i++) {
    w[i].run = &r;
    if (pthread_create(&w[i].thread, NULL, worker, &w[i])) break;
    started = i;
  }
  w[0].run = &r;
  worker(&w[0]); /* this thread works too */
  for (int i = 1; i <= started; i++) pthread_join(w[i].thread, NULL);
  fflush(r.out);
  pthread_mutex_destroy(&r.lock);
  long races = ck_races(r.ck), guninit = ck_uninit(r.ck);
  ck_launch_destroy(r.ck);
  /* a check that fired counts even when its report could not be allocated */
  bool ok = !r.oom && !r.report && !r.reports && !r.oob && !r.misaligned && !r.asserts && !r.uninit && !races && !guninit;
  *why = r.oom ? EMU_FAILED_NO_MEMORY : EMU_FAILED_CHECK;
  if (!ok) {
    char tail[320] = "";
    /* what was not shown: past the first few, and the findings of the checks of
     * global memory that repeat one already shown (the same places) */
    long hidden = (r.reports > MAX_REPORTS ? r.reports - MAX_REPORTS : 0) + races + guninit - r.ck_reports;
    if (hidden > 0)
      snprintf(tail, sizeof tail,
               "... and %ld more (%ld out-of-bounds accesses, %ld misaligned ones, %ld reads of uninitialized shared "
               "memory, %ld reads of uninitialized global memory, %ld data races on global memory, %ld failed "
               "assertions in all)\n",
               hidden, r.oob, r.misaligned, r.uninit, guninit, races, r.asserts);
    size_t n = r.report_len + strlen(tail) + 1;
    *out_report = malloc(n);
    if (*out_report) snprintf(*out_report, n, "%s%s", r.report ? r.report : "", tail);
  }
  free(r.report);
  return ok;
}
