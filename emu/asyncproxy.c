/*
 * asyncproxy.c — the async proxy's view of a block's shared memory
 * (asyncproxy.h).
 */
#include "asyncproxy.h"

#include <stdlib.h>
#include <string.h>

bool proxy_init(ProxyBlock *b, size_t bytes, int nthreads) {
  memset(b, 0, sizeof *b);
  size_t n = bytes ? bytes : 1;
  b->bytes = bytes, b->nthreads = nthreads, b->nwarps = (nthreads + 31) / 32, b->gen = 1;
  b->wgen = calloc(n, sizeof *b->wgen);
  b->writer = calloc(n, sizeof *b->writer);
  b->wfences = calloc(n, sizeof *b->wfences);
  b->wbarriers = calloc(n, sizeof *b->wbarriers);
  b->reads = calloc(n, sizeof *b->reads);
  b->t = calloc((size_t)nthreads, sizeof *b->t);
  b->w = calloc((size_t)b->nwarps, sizeof *b->w);
  if (!b->wgen || !b->writer || !b->wfences || !b->wbarriers || !b->reads || !b->t || !b->w) {
    proxy_free(b);
    return false;
  }
  return true;
}

/* The reads of group g of w no longer in flight. */
static void retire(ProxyBlock *b, ProxyGroup *g) {
  for (int i = 0; i < g->n; i++)
    for (uint32_t j = 0; j < g->v[i].n; j++) b->reads[g->v[i].off + j]--;
  free(g->v);
  *g = (ProxyGroup){0};
}

void proxy_reset(ProxyBlock *b) {
  b->gen++; /* every byte's write is of a block before */
  for (int w = 0; w < b->nwarps; w++) {
    for (int i = 0; i < b->w[w].n; i++) retire(b, &b->w[w].g[i]);
    b->w[w].n = 0, b->w[w].open = false;
  }
  memset(b->t, 0, sizeof *b->t * (size_t)b->nthreads);
}

void proxy_free(ProxyBlock *b) {
  if (b->w)
    for (int w = 0; w < b->nwarps; w++) {
      for (int i = 0; i < b->w[w].n; i++) free(b->w[w].g[i].v);
      free(b->w[w].g);
    }
  free(b->wgen), free(b->writer), free(b->wfences), free(b->wbarriers), free(b->reads), free(b->t), free(b->w);
  memset(b, 0, sizeof *b);
}

/* A warp whose wgmma in flight reads byte i; -1 for none. */
static int reading_warp(const ProxyBlock *b, uint32_t i) {
  for (int w = 0; w < b->nwarps; w++)
    for (int g = 0; g < b->w[w].n; g++)
      for (int r = 0; r < b->w[w].g[g].n; r++)
        if (i >= b->w[w].g[g].v[r].off && i < b->w[w].g[g].v[r].off + b->w[w].g[g].v[r].n) return w;
  return -1;
}

ProxyHazard proxy_write(ProxyBlock *b, int tid, uint32_t off, uint32_t n, int *warp) {
  if ((size_t)off + n > b->bytes || tid < 0 || tid >= b->nthreads) return PROXY_OK;
  ProxyHazard h = PROXY_OK;
  for (uint32_t i = off; i < off + n; i++) {
    if (b->reads[i] && h == PROXY_OK) {
      h = PROXY_IN_FLIGHT;
      *warp = reading_warp(b, i);
    }
    b->wgen[i] = b->gen;
    b->writer[i] = (uint16_t)tid;
    b->wfences[i] = b->t[tid].fences;
    b->wbarriers[i] = b->t[tid].barriers;
  }
  return h;
}

ProxyHazard proxy_async_write(ProxyBlock *b, uint32_t off, uint32_t n, int *warp) {
  if ((size_t)off + n > b->bytes) return PROXY_OK;
  ProxyHazard h = PROXY_OK;
  for (uint32_t i = off; i < off + n; i++) {
    if (b->reads[i] && h == PROXY_OK) {
      h = PROXY_IN_FLIGHT;
      *warp = reading_warp(b, i);
    }
    b->wgen[i] = 0; /* no generic write to fence */
  }
  return h;
}

void proxy_fence(ProxyBlock *b, int tid) {
  if (tid < 0 || tid >= b->nthreads) return;
  b->t[tid].fences++;
  b->t[tid].fenced_after = b->t[tid].barriers + 1;
}

void proxy_barrier(ProxyBlock *b, int tid) {
  if (tid >= 0 && tid < b->nthreads) b->t[tid].barriers++;
}

ProxyHazard proxy_read(ProxyBlock *b, int tid, int warp, uint32_t off, uint32_t n, int *writer, bool *ok) {
  *ok = true;
  if ((size_t)off + n > b->bytes || tid < 0 || tid >= b->nthreads || warp < 0 || warp >= b->nwarps) return PROXY_OK;
  ProxyHazard h = PROXY_OK;
  const ProxyThread *r = &b->t[tid];
  for (uint32_t i = off; i < off + n && h == PROXY_OK; i++) {
    if (b->wgen[i] != b->gen) continue; /* no write in this block: initcheck's business */
    int w = b->writer[i];
    bool by_writer = b->t[w].fences > b->wfences[i];
    bool by_reader = r->fenced_after > b->wbarriers[i] + 1; /* r fenced after passing more barriers than w had */
    if (!by_writer && !by_reader) {
      h = PROXY_UNFENCED;
      *writer = w;
    }
  }
  /* the read stays in flight, in the warp's open group, until a wait retires it */
  ProxyWarp *pw = &b->w[warp];
  if (!pw->open) {
    if (pw->n == pw->cap) {
      int cap = pw->cap ? 2 * pw->cap : 4;
      ProxyGroup *g = realloc(pw->g, sizeof *g * (size_t)cap);
      if (!g) return (*ok = false), h;
      pw->g = g, pw->cap = cap;
    }
    pw->g[pw->n++] = (ProxyGroup){0};
    pw->open = true;
  }
  ProxyGroup *g = &pw->g[pw->n - 1];
  if (g->n && g->v[g->n - 1].off + g->v[g->n - 1].n == off) {
    g->v[g->n - 1].n += n; /* runs of one operand's rows join */
  } else {
    if (g->n == g->cap) {
      int cap = g->cap ? 2 * g->cap : 16;
      ProxyRange *v = realloc(g->v, sizeof *v * (size_t)cap);
      if (!v) return (*ok = false), h;
      g->v = v, g->cap = cap;
    }
    g->v[g->n++] = (ProxyRange){off, n};
  }
  for (uint32_t i = off; i < off + n; i++) b->reads[i]++;
  return h;
}

void proxy_commit(ProxyBlock *b, int warp) {
  if (warp < 0 || warp >= b->nwarps) return;
  ProxyWarp *pw = &b->w[warp];
  if (!pw->open) {
    /* nothing pending: the ISA's commit still makes a group, an empty one */
    if (pw->n == pw->cap) {
      int cap = pw->cap ? 2 * pw->cap : 4;
      ProxyGroup *g = realloc(pw->g, sizeof *g * (size_t)cap);
      if (!g) return; /* the empty group is forgotten: a wait then retires more, never less */
      pw->g = g, pw->cap = cap;
    }
    pw->g[pw->n++] = (ProxyGroup){0};
  }
  pw->open = false;
}

void proxy_wait(ProxyBlock *b, int warp, int keep) {
  if (warp < 0 || warp >= b->nwarps || keep < 0) return;
  ProxyWarp *pw = &b->w[warp];
  int closed = pw->n - (pw->open ? 1 : 0), drop = closed - keep;
  if (drop <= 0) return;
  for (int i = 0; i < drop; i++) retire(b, &pw->g[i]);
  memmove(pw->g, pw->g + drop, sizeof *pw->g * (size_t)(pw->n - drop));
  pw->n -= drop;
}
