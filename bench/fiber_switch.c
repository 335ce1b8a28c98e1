/*
 * fiber_switch.c — what a fiber context switch costs: blocks whose threads
 * meet at a barrier, or in a warp barrier, in a loop, so that nearly all the
 * time goes into switching and the rendezvous bookkeeping.
 *
 * usage: fiber_switch [ROUNDS]    (default 20000 rounds per thread)
 * prints: kernel, threads, switches, ns per switch (median of 5 runs).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "emu/fiber.h"

static int rounds = 20000;

static void barrier_loop(void *arg, int tid) {
  for (int i = 0; i < rounds; i++) fiber_barrier();
}

static void warp_sync_loop(void *arg, int tid) {
  for (int i = 0; i < rounds; i++) fiber_warp_sync(~0u);
}

static void shfl_loop(void *arg, int tid) {
  uint32_t v = (uint32_t)tid;
  for (int i = 0; i < rounds; i++) v += fiber_shfl(~0u, v, FIBER_SHFL_BFLY, 1, 31);
  *(volatile uint32_t *)arg = v;
}

static int bench(const char *name, void (*fn)(void *, int), int nthreads) {
  FiberSched *s = fiber_sched_create(nthreads, 0);
  if (!s) {
    fprintf(stderr, "fiber_switch: cannot create a scheduler of %d threads\n", nthreads);
    return 1;
  }
  double ns[5];
  uint64_t switches = 0;
  uint32_t sink = 0;
  for (int r = 0; r < 5; r++) {
    FiberError err;
    double t0 = clock_ms() * 1e6;
    if (fiber_sched_run(s, fn, &sink, 0, &err) != FIBER_OK) {
      fprintf(stderr, "fiber_switch: %s", err.msg);
      fiber_sched_destroy(s);
      return 1;
    }
    switches = fiber_sched_switches(s);
    ns[r] = (clock_ms() * 1e6 - t0) / (double)switches;
  }
  sort_doubles(ns, 5);
  printf("%-14s %5d %12llu %8.1f\n", name, nthreads, (unsigned long long)switches, ns[2]);
  fiber_sched_destroy(s);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1) rounds = atoi(argv[1]);
  if (rounds < 1) rounds = 1;
  printf("%-14s %5s %12s %8s\n", "kernel", "thr", "switches", "ns/sw");
  int rc = 0;
  rc |= bench("barrier", barrier_loop, 2);
  rc |= bench("barrier", barrier_loop, 128);
  rc |= bench("barrier", barrier_loop, 1024);
  rc |= bench("warp_sync", warp_sync_loop, 32);
  rc |= bench("warp_sync", warp_sync_loop, 1024);
  rc |= bench("shfl.bfly", shfl_loop, 1024);
  return rc;
}
