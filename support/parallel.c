/*
 * parallel.c — a loop over items on threads (support.h).
 */
#include "support.h"

#include <pthread.h>
#include <unistd.h>

typedef struct Loop {
  int n;
  void (*fn)(void *ctx, int i);
  void *ctx;
  _Atomic int next;
} Loop;

static void *worker(void *arg) {
  Loop *l = arg;
  for (int i; (i = l->next++) < l->n;) l->fn(l->ctx, i);
  return NULL;
}

void parallel_for(int n, int max_threads, void (*fn)(void *ctx, int i), void *ctx) {
  enum { MOST = 64 };
  Loop l = {.n = n, .fn = fn, .ctx = ctx};
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int nthreads = (int)(cpus < 1 ? 1 : cpus);
  if (nthreads > max_threads) nthreads = max_threads;
  if (nthreads > MOST) nthreads = MOST;
  if (nthreads > n) nthreads = n;
  pthread_t t[MOST];
  int started = 0;
  for (int i = 1; i < nthreads; i++)
    if (pthread_create(&t[started], NULL, worker, &l) == 0) started++;
  worker(&l); /* this thread too, and alone if none started */
  for (int i = 0; i < started; i++) pthread_join(t[i], NULL);
}
