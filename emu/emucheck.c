/*
 * emucheck.c — initcheck and racecheck of global memory for the emulator
 * (the contract is in emucheck.h, what users see in docs/emulator.md).
 *
 * Three structures, one per question:
 *   - initcheck: the caller's map, a bit per byte (EmuBuffer.init).
 *   - within a program: a table per host thread of who wrote and read each
 *     byte since the block's last barrier, a Slot per 4-byte granule, in
 *     Runs of 64 neighbouring granules found through a small cache and a
 *     hash index. A barrier starts a new generation, which empties it in O(1).
 *   - between programs: a Granule per 4 bytes of each buffer, in memory
 *     mapped without reserve (only touched pages cost), owned by the first
 *     program that touches it; when a second comes, the granule's bytes get
 *     records (Bytes) naming up to two writers and two readers each. Each
 *     granule has a one-byte spin lock: programs on other host threads may
 *     touch it at the same time, which is the race being looked for.
 *
 * Replicated elements: a layout wider than its tile gives an element to
 * several threads; all of them load it, the first (the lowest thread) stores
 * it. So a read that copies a read the writer itself made at the same
 * source position before writing is not a race within the program: per
 * byte the table keeps the places it was read at with the lowest thread
 * that read it there, and which of them the writer had read it at.
 *
 * Lock sets are interned (LockSet, numbered from 1; 0 is the empty set)
 * so that a shadow entry holds one 16-bit number per kind of access.
 *
 * One file, near 800 lines, on purpose: every part reads the structures
 * above, and ck_access runs for each global access the emulated kernel
 * makes, so the checks it calls stay static here, where the compiler
 * inlines them; a split would put those structures in a header for no
 * other reader.
 */
#include "emucheck.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define NONE 0xFFFF         /* no thread, no site */
#define UNKNOWN_SITE 0xFFFE /* a site number past what 16 bits hold */
#define MAX_HELD 4          /* locks a thread holds at once */
#define MAX_PENDING 4       /* masked atomics whose outcome the thread has not seen yet */
#define MAX_ASITES 32       /* atomic source positions followed for locks */
#define LOCKS_UNKNOWN 0xFFFF /* a lock set past the table: taken to protect what it meets */
#define MAX_SEEN 1024       /* distinct findings remembered, so that each is reported once */
#define CHUNK 1024          /* granules of Bytes records per allocation */
#define MAX_CHUNKS 65536

/* ---- the launch -------------------------------------------------------------------------------- */

/* A granule of 4 bytes of a buffer, between programs. */
typedef struct Granule {
  unsigned char busy;   /* the spin lock */
  uint8_t wmask, rmask; /* owned: the bytes its program wrote and read */
  uint8_t shared;       /* prog is then the number of its Bytes records */
  uint32_t prog;        /* the program that owns it + 1; 0: untouched */
  uint16_t wsite, rsite;
  uint16_t wlocks, rlocks; /* the locks every write held, every read */
} Granule;

/* A byte that several programs touched: two of the programs that wrote it
 * and two that read it (+1, 0: none), where, and the locks every write and
 * every read held. Two distinct programs are enough: one of them is not the
 * program asking. */
typedef struct Bytes {
  uint32_t w[2], r[2];
  uint16_t ws[2], rs[2];
  uint16_t wlocks, rlocks;
} Bytes;

typedef struct Shadow {
  uintptr_t lo, hi, base; /* the buffer's bytes; base: lo rounded down to 4 */
  Granule *g;
  size_t map_bytes;
  unsigned char *init;
  const char *name;
} Shadow;

typedef struct LockSet {
  uintptr_t a[MAX_HELD]; /* sorted */
  int n;
} LockSet;

struct CkLaunch {
  CkConfig c;
  Shadow *buf;
  pthread_mutex_t lock; /* the lock sets, the Bytes chunks, the findings seen */
  LockSet *sets;
  int nsets, capsets;
  Bytes (**chunks)[4];
  uint32_t granules; /* Bytes records handed out, 4 a granule */
  uint64_t seen[MAX_SEEN];
  int nseen;
  atomic_long races, uninit;
};

/* ---- a host thread ----------------------------------------------------------------------------- */

/* A granule's accesses by the threads of the running block since its last barrier. */
typedef struct Slot {
  _Alignas(64) uint32_t gen;                /* the generation it belongs to; another: empty */
  bool whole;                  /* every access took all 4 bytes: only byte 0's entries are kept */
  uint8_t pre[4];              /* per byte: which of the two places below the writer read it at before writing (bits 1, 2) */
  uint16_t wt[4], ws[4];       /* per byte: the last thread that wrote it, where */
  uint16_t rs[2][4], rt[2][4]; /* per byte: two places it was read at, the lowest thread there */
} Slot;

/* The slots of 64 neighbouring granules (256 bytes of data): a tile's
 * accesses walk them as they walk memory. */
#define RUN_SHIFT 8
#define RUN_SLOTS 64
typedef struct Run {
  uintptr_t key; /* the address >> RUN_SHIFT */
  Slot s[RUN_SLOTS];
} Run;

typedef struct RunRef {
  uintptr_t key;
  uint32_t gen;
  Run *run;
} RunRef;

typedef struct Pending {
  uintptr_t a;
  uint32_t k;
  int as;
} Pending;

typedef struct Thread {
  uintptr_t held[MAX_HELD];
  int nheld, npend;
  uint16_t locks; /* held, interned */
  Pending pend[MAX_PENDING];
} Thread;

/* An acquire of the running program: the k-th pass of atomic site as took the lock at a. */
typedef Pending Acquire;

struct CkWorker {
  CkLaunch *l;
  uint32_t prog; /* the running program + 1 */
  unsigned ctaid[3];
  /* the runs of this generation: an open-addressing index over them, a cache
   * of the last few found, and the runs themselves, kept for the next */
  RunRef *index, cache[16];
  size_t cap, used; /* index entries, runs of this generation */
  Run **pool;
  size_t npool;
  uint32_t gen, epoch;
  uint32_t *barriers; /* per thread: barriers passed in this program */
  bool barriers_used, locks_used;
  Thread *th;
  uint32_t *pass; /* [atomic site][thread]: times passed in this program */
  int8_t *asite;  /* per site: its number among atomic sites, -1 none yet, -2 no room */
  int nasites;
  uint32_t exec[MAX_ASITES]; /* per atomic site: the most passes a thread that made it made */
  Acquire *acq;
  int nacq, capacq;
  struct {
    uint16_t x, y, r;
  } inter_cache[16];
  LockSet recent[4]; /* sets interned lately, and their numbers: the threads of a block take the same locks */
  uint16_t recent_id[4];
  int next_recent;
  uint64_t seen[4]; /* findings reported lately (never 0: a key has its kind in the top bits) */
  int next_seen;
};

/* ---- findings ---------------------------------------------------------------------------------- */

static uint16_t site16(uint32_t site) { return site < UNKNOWN_SITE ? (uint16_t)site : UNKNOWN_SITE; }

static const char *site_text(const CkLaunch *l, uint16_t site) {
  return site < l->c.nsites ? l->c.sites[site] : "an unknown place";
}

/* Whether a finding of this key is new (and now remembered). A racy kernel
 * repeats one finding per element: the worker's last few keys answer
 * without the lock. */
static bool first_time(CkWorker *w, uint64_t key) {
  for (int i = 0; i < 4; i++)
    if (w->seen[i] == key) return false;
  w->seen[w->next_seen++ & 3] = key;
  CkLaunch *l = w->l;
  pthread_mutex_lock(&l->lock);
  bool fresh = true;
  for (int i = 0; i < l->nseen && fresh; i++) fresh = l->seen[i] != key;
  if (fresh && l->nseen < MAX_SEEN) l->seen[l->nseen++] = key;
  pthread_mutex_unlock(&l->lock);
  return fresh;
}

static void say(CkLaunch *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(CkLaunch *l, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  l->c.report(l->c.ctx, line);
}

static void block_of(const CkLaunch *l, uint32_t prog, unsigned out[3]) {
  long b = (long)prog - 1;
  out[0] = (unsigned)(b % l->c.grid[0]);
  out[1] = (unsigned)(b / l->c.grid[0] % l->c.grid[1]);
  out[2] = (unsigned)(b / ((long)l->c.grid[0] * l->c.grid[1]));
}

typedef struct Access {
  int buf;
  uintptr_t a;
  unsigned n;
  bool write;
  int tid;
  uint16_t site;
} Access;

static void uninit_read(CkWorker *w, const Access *x) {
  CkLaunch *l = w->l;
  atomic_fetch_add(&l->uninit, 1);
  if (!first_time(w, (uint64_t)1 << 62 | (uint64_t)x->buf << 32 | x->site)) return;
  const Shadow *s = &l->buf[x->buf];
  say(l,
      "%s: read of uninitialized global memory: %u byte%s at offset %zu of '%s' in kernel '%s', block (%u, %u, %u), "
      "thread %d; no thread wrote %s and the host did not fill %s",
      site_text(l, x->site), x->n, x->n == 1 ? "" : "s", (size_t)(x->a - s->lo), s->name, l->c.kernel, w->ctaid[0],
      w->ctaid[1], w->ctaid[2], x->tid, x->n == 1 ? "it" : "them", x->n == 1 ? "it" : "them");
}

/* other_tid: the other thread of the program; other_prog: the other program (+1) */
static void race(CkWorker *w, const Access *x, bool other_wrote, int other_tid, uint32_t other_prog,
                 uint16_t other_site) {
  CkLaunch *l = w->l;
  atomic_fetch_add(&l->races, 1);
  uint64_t key = (uint64_t)(other_prog ? 2 : 3) << 62 | (uint64_t)x->write << 61 | (uint64_t)other_wrote << 60 |
                 (uint64_t)(x->buf & 0xfff) << 32 | (uint64_t)x->site << 16 | other_site;
  if (!first_time(w, key)) return;
  const Shadow *s = &l->buf[x->buf];
  const char *verb = x->write ? "writes" : "reads", *done = other_wrote ? "wrote" : "read";
  size_t off = (size_t)(x->a - s->lo);
  if (!other_prog) {
    say(l,
        "%s: data race on global memory in kernel '%s', block (%u, %u, %u): thread %d %s %u byte%s at offset %zu of "
        "'%s', which thread %d %s at %s, with no barrier between them (tl.debug_barrier)",
        site_text(l, x->site), l->c.kernel, w->ctaid[0], w->ctaid[1], w->ctaid[2], x->tid, verb, x->n,
        x->n == 1 ? "" : "s", off, s->name, other_tid, done, site_text(l, other_site));
    return;
  }
  unsigned ob[3];
  block_of(l, other_prog, ob);
  say(l,
      "%s: data race on global memory between programs of kernel '%s': block (%u, %u, %u), thread %d %s %u byte%s at "
      "offset %zu of '%s', which block (%u, %u, %u) %s at %s; neither access is atomic and no lock is held by both",
      site_text(l, x->site), l->c.kernel, w->ctaid[0], w->ctaid[1], w->ctaid[2], x->tid, verb, x->n,
      x->n == 1 ? "" : "s", off, s->name, ob[0], ob[1], ob[2], done, site_text(l, other_site));
}

/* ---- initcheck --------------------------------------------------------------------------------- */

/* The bits of bytes [off, off + n) of the map, a byte of the map at a time. */
static bool init_all(const unsigned char *m, size_t off, unsigned n) {
  for (size_t i = off, end = off + n; i < end;) {
    unsigned bit = (unsigned)(i & 7), take = end - i < 8 - bit ? (unsigned)(end - i) : 8 - bit;
    unsigned want = ((1u << take) - 1) << bit;
    if ((__atomic_load_n(&m[i >> 3], __ATOMIC_RELAXED) & want) != want) return false;
    i += take;
  }
  return true;
}

static void init_set(unsigned char *m, size_t off, unsigned n) {
  for (size_t i = off, end = off + n; i < end;) {
    unsigned bit = (unsigned)(i & 7), take = end - i < 8 - bit ? (unsigned)(end - i) : 8 - bit;
    unsigned char want = (unsigned char)(((1u << take) - 1) << bit);
    if ((__atomic_load_n(&m[i >> 3], __ATOMIC_RELAXED) & want) != want) __atomic_fetch_or(&m[i >> 3], want, __ATOMIC_RELAXED);
    i += take;
  }
}

static void initcheck(CkWorker *w, const Access *x, bool reads) {
  Shadow *s = &w->l->buf[x->buf];
  size_t off = (size_t)(x->a - s->lo);
  if (reads && !init_all(s->init, off, x->n)) uninit_read(w, x);
  if (x->write) init_set(s->init, off, x->n);
}

/* ---- lock sets --------------------------------------------------------------------------------- */

/* The number of the set a[0..n) (sorted); called with l->lock held. */
static uint16_t intern_locked(CkLaunch *l, const uintptr_t *a, int n) {
  if (!n) return 0;
  for (int i = 1; i < l->nsets; i++)
    if (l->sets[i].n == n && !memcmp(l->sets[i].a, a, (size_t)n * sizeof *a)) return (uint16_t)i;
  if (l->nsets >= LOCKS_UNKNOWN) return LOCKS_UNKNOWN;
  if (l->nsets == l->capsets) {
    int cap = l->capsets ? 2 * l->capsets : 16;
    LockSet *grown = realloc(l->sets, (size_t)cap * sizeof *grown);
    if (!grown) return LOCKS_UNKNOWN;
    l->sets = grown, l->capsets = cap;
  }
  LockSet *s = &l->sets[l->nsets];
  memcpy(s->a, a, (size_t)n * sizeof *a);
  s->n = n;
  return (uint16_t)l->nsets++;
}

static uint16_t intern(CkLaunch *l, const uintptr_t *a, int n) {
  if (!n) return 0;
  pthread_mutex_lock(&l->lock);
  uint16_t id = intern_locked(l, a, n);
  pthread_mutex_unlock(&l->lock);
  return id;
}

/* The locks held by both x and y. */
static uint16_t inter(CkWorker *w, uint16_t x, uint16_t y) {
  if (x == y || y == LOCKS_UNKNOWN) return x;
  if (!x || !y) return 0;
  if (x == LOCKS_UNKNOWN) return y;
  int h = (x * 31 + y) & 15;
  if (w->inter_cache[h].x == x && w->inter_cache[h].y == y) return w->inter_cache[h].r;
  CkLaunch *l = w->l;
  pthread_mutex_lock(&l->lock);
  const LockSet *a = &l->sets[x], *b = &l->sets[y];
  uintptr_t both[MAX_HELD];
  int n = 0;
  for (int i = 0, j = 0; i < a->n && j < b->n;) {
    if (a->a[i] == b->a[j]) both[n++] = a->a[i], i++, j++;
    else if (a->a[i] < b->a[j]) i++;
    else j++;
  }
  uint16_t r = intern_locked(l, both, n);
  pthread_mutex_unlock(&l->lock);
  w->inter_cache[h].x = x, w->inter_cache[h].y = y, w->inter_cache[h].r = r;
  return r;
}

/* ---- racecheck within a program ---------------------------------------------------------------- */

static void new_epoch(CkWorker *w) {
  w->used = 0;
  if (++w->gen == 0) { /* wrapped: old generations would look current */
    memset(w->index, 0, w->cap * sizeof *w->index);
    memset(w->cache, 0, sizeof w->cache);
    for (size_t i = 0; i < w->npool; i++)
      for (int j = 0; j < RUN_SLOTS; j++) w->pool[i]->s[j].gen = 0;
    w->gen = 1;
  }
}

static size_t hash_run(uintptr_t key) { return (size_t)((uint64_t)key * 0x9E3779B97F4A7C15ull >> 32); }

/* Doubles the index, keeping this generation's entries; false without memory. */
static bool grow_index(CkWorker *w) {
  size_t cap = 2 * w->cap;
  RunRef *x = calloc(cap, sizeof *x);
  if (!x) return false;
  for (size_t i = 0; i < w->cap; i++) {
    if (w->index[i].gen != w->gen) continue;
    size_t j = hash_run(w->index[i].key) & (cap - 1);
    while (x[j].gen == w->gen) j = (j + 1) & (cap - 1);
    x[j] = w->index[i];
  }
  free(w->index);
  w->index = x, w->cap = cap;
  return true;
}

/* The run of key (an address >> RUN_SHIFT), new and empty if this generation has none; NULL when
 * memory is short or the generation holds CK_TABLE_MAX granules (then it starts over). */
static Run *run_of(CkWorker *w, uintptr_t key) {
  RunRef *c = &w->cache[hash_run(key) & 15];
  if (c->key == key && c->gen == w->gen) return c->run;
  size_t i = hash_run(key) & (w->cap - 1);
  for (; w->index[i].gen == w->gen; i = (i + 1) & (w->cap - 1))
    if (w->index[i].key == key) return *c = w->index[i], c->run;
  if ((w->used + 1) * RUN_SLOTS > CK_TABLE_MAX) {
    new_epoch(w); /* full: what this epoch touched so far is forgotten */
    return run_of(w, key);
  }
  if ((w->used + 1) * 2 > w->cap) {
    if (!grow_index(w)) return NULL;
    return run_of(w, key);
  }
  if (w->used == w->npool) {
    Run **grown = realloc(w->pool, (w->npool + 1) * sizeof *grown);
    Run *r = grown ? aligned_alloc(64, sizeof *r) : NULL;
    if (r) memset(r, 0, sizeof *r);
    if (grown) w->pool = grown;
    if (!r) return NULL;
    w->pool[w->npool++] = r;
  }
  Run *r = w->pool[w->used++];
  r->key = key;
  w->index[i] = (RunRef){key, w->gen, r};
  *c = w->index[i];
  return r;
}

static Slot *slot_of(CkWorker *w, uintptr_t key) {
  Run *r = run_of(w, key >> RUN_SHIFT);
  if (!r) return NULL;
  Slot *s = &r->s[(key >> 2) & (RUN_SLOTS - 1)];
  if (s->gen != w->gen) {
    s->gen = w->gen, s->whole = true;
    s->pre[0] = 0;
    s->wt[0] = s->ws[0] = s->rs[0][0] = s->rs[1][0] = s->rt[0][0] = s->rt[1][0] = NONE;
  }
  return s;
}

typedef struct Finding {
  bool found, wrote;
  int tid;         /* within a program: the other thread */
  uint32_t prog;   /* between programs: the other program + 1 */
  uint16_t site;
} Finding;

/* Byte b of the slot, accessed by thread t. */
static void within_byte(Slot *s, unsigned b, const Access *x, uint16_t t, Finding *f) {
  if (x->write) {
    if (!f->found && s->wt[b] != NONE && s->wt[b] != t) *f = (Finding){true, true, s->wt[b], 0, s->ws[b]};
    uint8_t pre = 0;
    for (int c = 0; c < 2; c++) {
      if (s->rt[c][b] == t) pre |= (uint8_t)(1 << c);
      /* the lowest reader there is another thread: not a copy of this thread's read */
      else if (!f->found && s->rt[c][b] != NONE) *f = (Finding){true, false, s->rt[c][b], 0, s->rs[c][b]};
    }
    s->wt[b] = t, s->ws[b] = x->site, s->pre[b] = pre;
    return;
  }
  if (!f->found && s->wt[b] != NONE && s->wt[b] != t && !((s->pre[b] & 1) && s->rs[0][b] == x->site) &&
      !((s->pre[b] & 2) && s->rs[1][b] == x->site))
    *f = (Finding){true, true, s->wt[b], 0, s->ws[b]};
  for (int c = 0; c < 2; c++) {
    if (s->rs[c][b] == NONE) {
      s->rs[c][b] = x->site, s->rt[c][b] = t;
      return;
    }
    if (s->rs[c][b] == x->site) {
      if (t < s->rt[c][b]) s->rt[c][b] = t;
      return;
    }
  }
}

/* Byte 0's history for all 4 bytes: a slot that stops being whole. */
static void split(Slot *s) {
  for (int b = 1; b < 4; b++) {
    s->wt[b] = s->wt[0], s->ws[b] = s->ws[0], s->pre[b] = s->pre[0];
    for (int c = 0; c < 2; c++) s->rs[c][b] = s->rs[c][0], s->rt[c][b] = s->rt[c][0];
  }
  s->whole = false;
}

/* One access of the granule at key, bytes [lo, hi) of it. While every
 * access takes all 4 bytes (4- and 8-byte elements), byte 0 stands for all. */
static void within_granule(CkWorker *w, const Access *x, uintptr_t key, unsigned lo, unsigned hi, Finding *f) {
  Slot *s = slot_of(w, key);
  if (!s) return;
  uint16_t t = (uint16_t)x->tid;
  if (s->whole && lo == 0 && hi == 4) {
    within_byte(s, 0, x, t, f);
  } else {
    if (s->whole) split(s);
    for (unsigned b = lo; b < hi; b++) within_byte(s, b, x, t, f);
  }
}


/* ---- racecheck between programs ---------------------------------------------------------------- */

static void lock_granule(Granule *g) {
  for (int spins = 0; __atomic_test_and_set(&g->busy, __ATOMIC_ACQUIRE); spins++)
    if (spins > 64) sched_yield();
}

static void unlock_granule(Granule *g) { __atomic_clear(&g->busy, __ATOMIC_RELEASE); }

/* The 4 records of granule record number i. */
static Bytes *bytes_of(CkLaunch *l, uint32_t i) { return l->chunks[i / CHUNK][i % CHUNK]; }

/* Gives the granule per-byte records made from what its owner did; false without memory. */
static bool share(CkLaunch *l, Granule *g) {
  pthread_mutex_lock(&l->lock);
  uint32_t i = l->granules;
  bool ok = i / CHUNK < MAX_CHUNKS;
  if (ok && !l->chunks) ok = (l->chunks = calloc(MAX_CHUNKS, sizeof *l->chunks)) != NULL;
  if (ok && !l->chunks[i / CHUNK]) ok = (l->chunks[i / CHUNK] = calloc(CHUNK, sizeof **l->chunks)) != NULL;
  if (ok) l->granules++;
  pthread_mutex_unlock(&l->lock);
  if (!ok) return false;
  Bytes *r = bytes_of(l, i);
  for (int b = 0; b < 4; b++) {
    r[b] = (Bytes){.wlocks = g->wlocks, .rlocks = g->rlocks};
    if (g->wmask >> b & 1) r[b].w[0] = g->prog, r[b].ws[0] = g->wsite;
    if (g->rmask >> b & 1) r[b].r[0] = g->prog, r[b].rs[0] = g->rsite;
  }
  g->shared = 1;
  g->prog = i;
  return true;
}

/* A program other than p among two. */
static int other_of(const uint32_t two[2], uint32_t p) { return two[0] && two[0] != p ? 0 : two[1] && two[1] != p ? 1 : -1; }

static void note(uint32_t two[2], uint16_t sites[2], uint32_t p, uint16_t site) {
  if (!two[0]) two[0] = p, sites[0] = site;
  else if (two[0] != p && !two[1]) two[1] = p, sites[1] = site;
}

static void between_byte(CkWorker *w, Bytes *r, const Access *x, uint16_t locks, Finding *c) {
  uint32_t p = w->prog;
  int ow = other_of(r->w, p), orr = other_of(r->r, p);
  if (!c->found && ow >= 0 && !inter(w, locks, r->wlocks)) *c = (Finding){true, true, 0, r->w[ow], r->ws[ow]};
  if (!c->found && x->write && orr >= 0 && !inter(w, locks, r->rlocks))
    *c = (Finding){true, false, 0, r->r[orr], r->rs[orr]};
  if (x->write) {
    r->wlocks = r->w[0] ? inter(w, r->wlocks, locks) : locks;
    note(r->w, r->ws, p, x->site);
  } else {
    r->rlocks = r->r[0] ? inter(w, r->rlocks, locks) : locks;
    note(r->r, r->rs, p, x->site);
  }
}

static void between_granule(CkWorker *w, Granule *g, const Access *x, uint16_t locks, unsigned lo, unsigned hi,
                            Finding *c) {
  uint8_t m = (uint8_t)(((1u << (hi - lo)) - 1) << lo);
  lock_granule(g);
  if (!g->shared && !g->prog) {
    g->prog = w->prog;
    if (x->write) g->wmask = m, g->wsite = x->site, g->wlocks = locks;
    else g->rmask = m, g->rsite = x->site, g->rlocks = locks;
  } else if (!g->shared && g->prog == w->prog) {
    if (x->write) g->wlocks = g->wmask ? inter(w, g->wlocks, locks) : locks, g->wmask |= m, g->wsite = x->site;
    else g->rlocks = g->rmask ? inter(w, g->rlocks, locks) : locks, g->rmask |= m, g->rsite = x->site;
  } else if (g->shared || share(w->l, g)) {
    Bytes *r = bytes_of(w->l, g->prog);
    for (unsigned b = lo; b < hi; b++) between_byte(w, &r[b], x, locks, c);
  }
  unlock_granule(g);
}


/* ---- locks ------------------------------------------------------------------------------------- */

static bool holds(const Thread *t, uintptr_t a) {
  for (int i = 0; i < t->nheld; i++)
    if (t->held[i] == a) return true;
  return false;
}

/* The number of the thread's set of held locks. */
static uint16_t held_set(CkWorker *w, const Thread *t) {
  if (!t->nheld) return 0;
  for (int i = 0; i < 4; i++)
    if (w->recent_id[i] && w->recent[i].n == t->nheld && !memcmp(w->recent[i].a, t->held, (size_t)t->nheld * sizeof *t->held))
      return w->recent_id[i];
  uint16_t id = intern(w->l, t->held, t->nheld);
  int i = w->next_recent++ & 3;
  memcpy(w->recent[i].a, t->held, (size_t)t->nheld * sizeof *t->held);
  w->recent[i].n = t->nheld, w->recent_id[i] = id;
  return id;
}

static void hold(CkWorker *w, Thread *t, uintptr_t a) {
  if (holds(t, a)) return;
  if (t->nheld == MAX_HELD) memmove(t->held, t->held + 1, --t->nheld * sizeof *t->held); /* the oldest goes */
  int i = t->nheld++;
  for (; i > 0 && t->held[i - 1] > a; i--) t->held[i] = t->held[i - 1];
  t->held[i] = a;
  t->locks = held_set(w, t);
}

static void release(CkWorker *w, Thread *t, uintptr_t a) {
  int j = 0;
  for (int i = 0; i < t->nheld; i++)
    if (t->held[i] != a) t->held[j++] = t->held[i];
  t->nheld = j;
  t->locks = held_set(w, t);
}

static bool acquired(const CkWorker *w, int as, uint32_t k, uintptr_t a) {
  for (int i = w->nacq - 1; i >= 0; i--)
    if (w->acq[i].as == as && w->acq[i].k == k && w->acq[i].a == a) return true;
  return false;
}

/* The masked atomics of t whose outcome the threads that made them have decided since. */
static void resolve(CkWorker *w, Thread *t) {
  int j = 0;
  for (int i = 0; i < t->npend; i++) {
    Pending p = t->pend[i];
    if (w->exec[p.as] < p.k) t->pend[j++] = p;
    else if (acquired(w, p.as, p.k, p.a)) hold(w, t, p.a);
  }
  t->npend = j;
}

static int atomic_site(CkWorker *w, uint32_t site) {
  if (site >= (uint32_t)w->l->c.nsites) return -1;
  int8_t *x = &w->asite[site];
  if (*x == -1) *x = w->nasites < MAX_ASITES ? (int8_t)w->nasites++ : -2;
  return *x;
}

/* ---- the interface ----------------------------------------------------------------------------- */

CkLaunch *ck_launch_create(const CkConfig *c, bool *oom) {
  *oom = false;
  bool any = c->races;
  for (int i = 0; i < c->nbuffers; i++) any |= c->buffers[i].init != NULL;
  if (!any) return NULL;
  CkLaunch *l = calloc(1, sizeof *l);
  if (!l || !(l->buf = calloc((size_t)c->nbuffers + 1, sizeof *l->buf))) {
    free(l);
    *oom = true;
    return NULL;
  }
  l->c = *c;
  pthread_mutex_init(&l->lock, NULL);
  l->sets = calloc(16, sizeof *l->sets);
  if (!l->sets) {
    ck_launch_destroy(l);
    *oom = true;
    return NULL;
  }
  l->nsets = 1, l->capsets = 16; /* 0: no lock */
  for (int i = 0; i < c->nbuffers; i++) {
    Shadow *s = &l->buf[i];
    const EmuBuffer *b = &c->buffers[i];
    s->lo = (uintptr_t)b->data, s->hi = s->lo + b->bytes, s->base = s->lo & ~(uintptr_t)3;
    s->init = b->init;
    s->name = b->name ? b->name : "?";
    if (!c->races || !b->bytes) continue;
    s->map_bytes = (s->hi - s->base + 3) / 4 * sizeof(Granule);
    void *m = mmap(NULL, s->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
      s->map_bytes = 0;
      ck_launch_destroy(l);
      *oom = true;
      return NULL;
    }
    s->g = m;
#ifdef MADV_HUGEPAGE
    /* a fault per 2 MiB instead of per 4 KiB: most of a kernel's buffers get touched */
    if (s->map_bytes >= (2u << 20)) madvise(m, s->map_bytes, MADV_HUGEPAGE);
#endif
  }
  return l;
}

void ck_launch_destroy(CkLaunch *l) {
  if (!l) return;
  for (int i = 0; i < l->c.nbuffers; i++)
    if (l->buf[i].map_bytes) munmap(l->buf[i].g, l->buf[i].map_bytes);
  if (l->chunks)
    for (int i = 0; i < MAX_CHUNKS; i++) free(l->chunks[i]);
  free(l->chunks);
  free(l->sets);
  free(l->buf);
  pthread_mutex_destroy(&l->lock);
  free(l);
}

long ck_races(const CkLaunch *l) { return l ? atomic_load(&((CkLaunch *)l)->races) : 0; }
long ck_uninit(const CkLaunch *l) { return l ? atomic_load(&((CkLaunch *)l)->uninit) : 0; }

CkWorker *ck_worker_create(CkLaunch *l) {
  CkWorker *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->l = l;
  int n = l->c.nthreads;
  w->cap = 64, w->gen = 1;
  w->index = calloc(w->cap, sizeof *w->index);
  w->barriers = calloc((size_t)n, sizeof *w->barriers);
  w->th = calloc((size_t)n, sizeof *w->th);
  w->pass = calloc((size_t)n * MAX_ASITES, sizeof *w->pass);
  w->asite = malloc((size_t)l->c.nsites + 1);
  if (!w->index || !w->barriers || !w->th || !w->pass || !w->asite) {
    ck_worker_destroy(w);
    return NULL;
  }
  memset(w->asite, -1, (size_t)l->c.nsites + 1);
  return w;
}

void ck_worker_destroy(CkWorker *w) {
  if (!w) return;
  free(w->index);
  for (size_t i = 0; i < w->npool; i++) free(w->pool[i]);
  free(w->pool);
  free(w->barriers);
  free(w->th);
  free(w->pass);
  free(w->asite);
  free(w->acq);
  free(w);
}

void ck_program_begin(CkWorker *w, long block, const unsigned ctaid[3]) {
  w->prog = (uint32_t)(block % 0xFFFFFFFFl) + 1;
  memcpy(w->ctaid, ctaid, sizeof w->ctaid);
  new_epoch(w);
  w->epoch = 0;
  int n = w->l->c.nthreads;
  if (w->barriers_used) memset(w->barriers, 0, (size_t)n * sizeof *w->barriers);
  if (w->locks_used) {
    memset(w->th, 0, (size_t)n * sizeof *w->th);
    memset(w->pass, 0, (size_t)n * (size_t)w->nasites * sizeof *w->pass);
    memset(w->exec, 0, sizeof w->exec);
    w->nacq = 0;
  }
  w->barriers_used = w->locks_used = false;
}

void ck_program_end(CkWorker *w) { new_epoch(w); }

void ck_barrier(CkWorker *w, int tid) {
  w->barriers_used = true;
  if (++w->barriers[tid] > w->epoch) {
    w->epoch = w->barriers[tid];
    new_epoch(w);
  }
}

void ck_access(CkWorker *w, int buf, const void *p, unsigned n, CkOp op, int tid, uint32_t site) {
  CkLaunch *l = w->l;
  Access x = {buf, (uintptr_t)p, n, op == CK_STORE, tid, site16(site)};
  if (l->buf[buf].init) initcheck(w, &x, !x.write);
  if (!l->c.races) return;
  Thread *t = &w->th[tid];
  if (t->npend) resolve(w, t);
  Shadow *s = &l->buf[buf];
  Finding in = {false}, across = {false};
  for (uintptr_t a = x.a, end = x.a + n; a < end;) {
    uintptr_t key = a & ~(uintptr_t)3;
    unsigned lo = (unsigned)(a - key), hi = end - key < 4 ? (unsigned)(end - key) : 4;
    within_granule(w, &x, key, lo, hi, &in);
    between_granule(w, &s->g[(key - s->base) >> 2], &x, t->locks, lo, hi, &across);
    a = key + 4;
  }
  if (in.found) race(w, &x, in.wrote, in.tid, 0, in.site);
  if (across.found) race(w, &x, across.wrote, 0, across.prog, across.site);
  /* a plain store to a lock the thread holds gives it back (after the store, which it protects) */
  if (x.write && t->nheld && holds(t, x.a)) release(w, t, x.a);
}

void ck_masked_store(CkWorker *w, const void *p, int tid) {
  Thread *t = &w->th[tid];
  if (t->npend) resolve(w, t);
  if (t->nheld && holds(t, (uintptr_t)p)) release(w, t, (uintptr_t)p);
}

void ck_atomic(CkWorker *w, int buf, const void *p, unsigned n, CkAtom kind, bool active, bool changed, int tid,
               uint32_t site) {
  CkLaunch *l = w->l;
  uintptr_t a = (uintptr_t)p;
  if (active && l->buf[buf].init) {
    Access x = {buf, a, n, true, tid, site16(site)};
    initcheck(w, &x, true);
  }
  if (!l->c.races) return;
  w->locks_used = true;
  Thread *t = &w->th[tid];
  if (t->npend) resolve(w, t);
  int as = atomic_site(w, site);
  uint32_t k = as >= 0 ? ++w->pass[(size_t)as * (size_t)l->c.nthreads + (size_t)tid] : 0;
  if (active && as >= 0 && k > w->exec[as]) w->exec[as] = k;
  if (t->nheld && holds(t, a)) {
    release(w, t, a);
    return;
  }
  if (as < 0 || kind == CK_ATOM_OTHER) return;
  if (active) {
    if (!changed) return;
    if (w->nacq == w->capacq) {
      int cap = w->capacq ? 2 * w->capacq : 16;
      Acquire *grown = realloc(w->acq, (size_t)cap * sizeof *grown);
      if (!grown) return;
      w->acq = grown, w->capacq = cap;
    }
    w->acq[w->nacq++] = (Acquire){a, k, as};
    hold(w, t, a);
  } else if (w->exec[as] >= k) {
    if (acquired(w, as, k, a)) hold(w, t, a);
  } else {
    if (t->npend == MAX_PENDING) memmove(t->pend, t->pend + 1, --t->npend * sizeof *t->pend);
    t->pend[t->npend++] = (Pending){a, k, as};
  }
}
