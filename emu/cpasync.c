/*
 * cpasync.c — the model of cp.async, commit_group and wait_group
 * (cpasync.h).
 */
#include "cpasync.h"

#include <stdlib.h>
#include <string.h>

bool async_block_init(AsyncBlock *b, unsigned char *smem, unsigned char *shadow, size_t bytes, int nthreads) {
  memset(b, 0, sizeof *b);
  b->smem = smem, b->shadow = shadow, b->bytes = bytes, b->nthreads = nthreads;
  b->state = calloc(bytes ? bytes : 1, sizeof *b->state);
  b->epoch = calloc(bytes ? bytes : 1, sizeof *b->epoch);
  b->t = calloc((size_t)nthreads, sizeof *b->t);
  if (!b->state || !b->epoch || !b->t) {
    async_block_free(b);
    return false;
  }
  return true;
}

void async_block_reset(AsyncBlock *b) {
  bool used = false;
  for (int i = 0; i < b->nthreads && !used; i++) used = b->t[i].n || b->t[i].groups;
  if (used) memset(b->state, 0, (b->bytes ? b->bytes : 1) * sizeof *b->state);
  for (int i = 0; i < b->nthreads; i++) b->t[i].n = 0, b->t[i].groups = 0, b->t[i].barriers = 0;
}

void async_block_free(AsyncBlock *b) {
  if (b->t)
    for (int i = 0; i < b->nthreads; i++) free(b->t[i].v);
  free(b->t);
  free(b->state);
  free(b->epoch);
  b->t = NULL, b->state = NULL, b->epoch = NULL;
}

bool async_issue(AsyncBlock *b, int tid, uint32_t dst, const void *src, int n, int src_n, uint32_t site, int *other) {
  *other = -1;
  if ((size_t)dst + (size_t)n > b->bytes || dst % (uint32_t)n) return false;
  for (int i = 0; i < n; i++)
    if (b->state[dst + i] & ASYNC_PENDING) {
      *other = b->state[dst + i] & ~ASYNC_PENDING;
      return false;
    }
  AsyncThread *t = &b->t[tid];
  if (t->n == t->cap) {
    int cap = t->cap ? t->cap * 2 : 16;
    AsyncCopy *v = realloc(t->v, sizeof *v * (size_t)cap);
    if (!v) return false;
    t->v = v, t->cap = cap;
  }
  AsyncCopy *c = &t->v[t->n++];
  *c = (AsyncCopy){.dst = dst, .group = ASYNC_OPEN, .site = site, .n = (uint8_t)n};
  memcpy(c->data, src, (size_t)src_n);
  for (int i = 0; i < n; i++) b->state[dst + i] = (uint16_t)(ASYNC_PENDING | (unsigned)tid);
  return true;
}

void async_commit(AsyncBlock *b, int tid) {
  AsyncThread *t = &b->t[tid];
  for (int i = 0; i < t->n; i++)
    if (t->v[i].group == ASYNC_OPEN) t->v[i].group = t->groups;
  t->groups++; /* an empty group is a group too: wait_group counts it */
}

void async_wait(AsyncBlock *b, int tid, int keep) {
  AsyncThread *t = &b->t[tid];
  uint32_t limit = t->groups > (uint32_t)keep ? t->groups - (uint32_t)keep : 0; /* groups below it complete */
  int kept = 0;
  for (int i = 0; i < t->n; i++) {
    AsyncCopy *c = &t->v[i];
    if (c->group == ASYNC_OPEN || c->group >= limit) {
      t->v[kept++] = *c;
      continue;
    }
    memcpy(b->smem + c->dst, c->data, c->n);
    memset(b->shadow + c->dst, 1, c->n);
    for (int j = 0; j < c->n; j++) b->state[c->dst + j] = (uint16_t)(tid + 1), b->epoch[c->dst + j] = t->barriers;
  }
  t->n = kept;
}

void async_barrier(AsyncBlock *b, int tid) { b->t[tid].barriers++; }

AsyncHazard async_check(const AsyncBlock *b, int tid, uint32_t off, size_t n, int *thread, uint32_t *site) {
  for (size_t i = 0; i < n && off + i < b->bytes; i++) {
    uint16_t s = b->state[off + i];
    if (!s) continue;
    if (s & ASYNC_PENDING) {
      int t = s & ~ASYNC_PENDING;
      *thread = t, *site = 0;
      for (int j = 0; j < b->t[t].n; j++)
        if (off + i >= b->t[t].v[j].dst && off + i < b->t[t].v[j].dst + b->t[t].v[j].n) *site = b->t[t].v[j].site;
      return ASYNC_NOT_LANDED;
    }
    if (s - 1 != tid && b->t[tid].barriers <= b->epoch[off + i]) {
      *thread = s - 1, *site = 0;
      return ASYNC_NO_BARRIER;
    }
  }
  return ASYNC_OK;
}
