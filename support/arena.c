/*
 * arena.c — the arena every compilation allocates from, growable arrays and
 * text buffers, the stage clock, and the internal-error exit.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

_Noreturn void internal_error(const char *file, int line, const char *what) {
  fprintf(stderr, "tilec: internal error at %s:%d: %s\n", file, line, what);
  abort();
}

/* ---- arena -------------------------------------------------------------- */

struct ArenaChunk {
  ArenaChunk *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
};

/* arena_grow's blocks, each malloc'd alone, in a list for arena_destroy */
struct ArenaBlock {
  ArenaBlock *prev, *next;
  size_t size;
  _Alignas(16) unsigned char data[];
};

Arena *arena_create(void) {
  Arena *a = calloc(1, sizeof *a);
  if (!a) internal_error(__FILE__, __LINE__, "out of memory");
  return a;
}

void arena_destroy(Arena *a) {
  if (!a) return;
  for (ArenaChunk *c = a->head, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  for (ArenaBlock *b = a->blocks, *next; b; b = next) {
    next = b->next;
    free(b);
  }
  free(a);
}

void *arena_grow(Arena *a, void *p, size_t n) {
  ArenaBlock *b = p ? (ArenaBlock *)((unsigned char *)p - offsetof(ArenaBlock, data)) : NULL;
  size_t old = b ? b->size : 0;
  if (n > old && a->cap && a->total + (n - old) > a->cap && a->oom) longjmp(*a->oom, 1);
  /* realloc: a large block grows in place or is moved by the kernel (mremap), not copied and kept */
  ArenaBlock *nb = realloc(b, sizeof *nb + n);
  if (!nb) internal_error(__FILE__, __LINE__, "out of memory");
  if (!b) {
    nb->prev = NULL;
    nb->next = a->blocks;
    if (a->blocks) a->blocks->prev = nb;
    a->blocks = nb;
  } else {
    if (nb->prev) nb->prev->next = nb;
    else a->blocks = nb;
    if (nb->next) nb->next->prev = nb;
  }
  nb->size = n;
  a->total = a->total - old + n;
  return nb->data;
}

void *arena_alloc(Arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  ArenaChunk *c = a->head;
  if (!c || c->size - c->used < n) {
    size_t size = n > 60000 ? n : 60000;
    if (a->cap && a->total + size > a->cap && a->oom) longjmp(*a->oom, 1);
    c = malloc(sizeof *c + size);
    if (!c) internal_error(__FILE__, __LINE__, "out of memory");
    c->next = a->head;
    c->used = 0;
    c->size = size;
    a->head = c;
    a->total += size;
  }
  void *p = c->data + c->used;
  c->used += n;
  memset(p, 0, n);
  return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = arena_alloc(a, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

void vec_push(Arena *a, PtrVec *vec, void *p) {
  if (vec->n == vec->cap) {
    int cap = vec->cap ? vec->cap * 2 : 8;
    void **v = arena_alloc(a, sizeof(void *) * (size_t)cap);
    if (vec->n) memcpy(v, vec->v, sizeof(void *) * (size_t)vec->n);
    vec->v = v;
    vec->cap = cap;
  }
  vec->v[vec->n++] = p;
}

/* ---- pointer maps --------------------------------------------------------- */

static size_t map_slot(const PtrMap *m, const void *key) {
  size_t i = (size_t)(((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull) & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
  return i;
}

void *map_get(const PtrMap *m, const void *key) {
  if (!m->cap) return NULL;
  size_t i = map_slot(m, key);
  return m->keys[i] ? m->vals[i] : NULL;
}

void map_put(Arena *a, PtrMap *m, const void *key, void *val) {
  if (2 * (m->n + 1) > m->cap) {
    PtrMap old = *m;
    m->cap = old.cap ? 2 * old.cap : 256;
    m->keys = arena_alloc(a, m->cap * sizeof *m->keys);
    m->vals = arena_alloc(a, m->cap * sizeof *m->vals);
    for (size_t i = 0; i < old.cap; i++)
      if (old.keys[i]) {
        size_t j = map_slot(m, old.keys[i]);
        m->keys[j] = old.keys[i];
        m->vals[j] = old.vals[i];
      }
  }
  size_t i = map_slot(m, key);
  if (!m->keys[i]) m->keys[i] = key, m->n++;
  m->vals[i] = val;
}

/* ---- text buffers --------------------------------------------------------- */

void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return;
  if (sb->len + (size_t)n + 1 > sb->cap) {
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + (size_t)n + 1) cap *= 2;
    char *s;
    if (sb->arena) {
      s = arena_alloc(sb->arena, cap);
      if (sb->len) memcpy(s, sb->s, sb->len);
    } else {
      s = realloc(sb->s, cap);
      if (!s) internal_error(__FILE__, __LINE__, "out of memory");
    }
    sb->s = s;
    sb->cap = cap;
  }
  vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, ap);
  sb->len += (size_t)n;
}

void sb_printf(StrBuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

void sb_putc(StrBuf *sb, char c) { sb_append(sb, &c, 1); }

void sb_append(StrBuf *sb, const void *data, size_t n) {
  if (sb->len + n + 1 > sb->cap) {
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + n + 1) cap *= 2;
    char *s;
    if (sb->arena) {
      s = arena_alloc(sb->arena, cap);
      if (sb->len) memcpy(s, sb->s, sb->len);
    } else {
      s = realloc(sb->s, cap);
      if (!s) internal_error(__FILE__, __LINE__, "out of memory");
    }
    sb->s = s;
    sb->cap = cap;
  }
  memcpy(sb->s + sb->len, data, n);
  sb->len += n;
  sb->s[sb->len] = 0;
}

void sb_free(StrBuf *sb) {
  if (!sb->arena) free(sb->s);
  sb->s = NULL;
  sb->len = sb->cap = 0;
}

void stage_time(StageClock *c, const char *fmt, ...) {
  if (!c || !c->out) return;
  double now = clock_ms();
  char stage[96];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(stage, sizeof stage, fmt, ap);
  va_end(ap);
  sb_printf(c->out, "%-32s %8.3f ms\n", stage, now - c->mark);
  c->mark = clock_ms();
}
