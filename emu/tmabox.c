/*
 * tmabox.c — when a thread may read what a TMA load wrote (tmabox.h).
 */
#include "tmabox.h"

#include <string.h>

static bool meets(const TmaBox *x, uint32_t lo, uint32_t n) { return lo < x->hi && lo + n > x->lo; }

static void drop(TmaBoxes *b, int i) {
  b->box[i] = b->box[b->n - 1];
  b->n--;
}

void tmabox_copied(TmaBoxes *b, uint32_t lo, uint32_t n, uint32_t mbar, uint32_t parity, uint32_t site) {
  for (int i = b->n - 1; i >= 0; i--)
    if (meets(&b->box[i], lo, n)) drop(b, i);
  if (b->n == TMABOX_MAX) {
    memmove(&b->box[0], &b->box[1], sizeof(TmaBox) * (TMABOX_MAX - 1));
    b->n--;
  }
  TmaBox *x = &b->box[b->n++];
  memset(x, 0, sizeof *x);
  x->lo = lo, x->hi = lo + n, x->mbar = mbar, x->parity = parity & 1, x->site = site;
}

void tmabox_waited(TmaBoxes *b, uint32_t mbar, uint32_t parity, int tid) {
  if (tid < 0 || tid >= TMABOX_THREADS) return;
  for (int i = 0; i < b->n; i++)
    if (b->box[i].mbar == mbar && b->box[i].parity == (parity & 1)) b->box[i].seen[tid / 64] |= 1ull << (tid % 64);
}

void tmabox_written(TmaBoxes *b, uint32_t lo, uint32_t n) {
  for (int i = b->n - 1; i >= 0; i--)
    if (meets(&b->box[i], lo, n)) drop(b, i);
}

bool tmabox_read_ok(const TmaBoxes *b, uint32_t lo, uint32_t n, int tid, const TmaBox **box) {
  for (int i = 0; i < b->n; i++) {
    const TmaBox *x = &b->box[i];
    if (!meets(x, lo, n)) continue;
    if (tid >= 0 && tid < TMABOX_THREADS && (x->seen[tid / 64] >> (tid % 64) & 1)) continue;
    if (box) *box = x;
    return false;
  }
  return true;
}

void tmabox_store_issued(TmaBoxes *b, uint32_t lo, uint32_t n, int tid, uint32_t site) {
  if (b->nstores == TMABOX_MAX) {
    memmove(&b->store[0], &b->store[1], sizeof(TmaStore) * (TMABOX_MAX - 1));
    b->nstores--;
  }
  b->store[b->nstores++] = (TmaStore){lo, lo + n, site, tid};
}

void tmabox_store_waited(TmaBoxes *b, int tid) {
  for (int i = b->nstores - 1; i >= 0; i--)
    if (b->store[i].tid == tid) b->store[i] = b->store[--b->nstores];
}

bool tmabox_write_ok(const TmaBoxes *b, uint32_t lo, uint32_t n, const TmaStore **st) {
  for (int i = 0; i < b->nstores; i++)
    if (lo < b->store[i].hi && lo + n > b->store[i].lo) {
      if (st) *st = &b->store[i];
      return false;
    }
  return true;
}
