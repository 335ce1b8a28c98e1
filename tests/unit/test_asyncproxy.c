/* test_asyncproxy.c — the async proxy's view of shared memory
 * (emu/asyncproxy.h) against what the PTX ISA says:
 *   - wgmma.mma_async reads shared memory through the async proxy; a write
 *     through the generic proxy reaches it only with a fence.proxy.async
 *     ordered between the two: after the write by the writing thread, or by
 *     the reading thread after a barrier that orders the write before it
 *     (a fence before the write, or before that barrier, does not);
 *   - "wgmma.commit_group ... commits all prior uncommitted wgmma.mma_async
 *     operations into a wgmma-group"; "wgmma.wait_group N waits till N or
 *     fewer of the most recent wgmma-groups are pending": until then the
 *     operands may still be read, and writing them is a race; operations
 *     not committed are in no group, so no wait covers them.
 */
#include <stdint.h>

#include "emu/asyncproxy.h"
#include "unit.h"

enum { BYTES = 256, THREADS = 64 };

static ProxyHazard read_of(ProxyBlock *b, int tid, uint32_t off, uint32_t n, int *writer) {
  bool ok;
  ProxyHazard h = proxy_read(b, tid, tid / 32, off, n, writer, &ok);
  CHECK(ok);
  return h;
}

/* A read whose group is committed and retired at once. */
static ProxyHazard done_read(ProxyBlock *b, int tid, uint32_t off, uint32_t n, int *writer) {
  ProxyHazard h = read_of(b, tid, off, n, writer);
  proxy_commit(b, tid / 32);
  proxy_wait(b, tid / 32, 0);
  return h;
}

static void fences(void) {
  ProxyBlock b;
  CHECK(proxy_init(&b, BYTES, THREADS));
  int w = -1, warp;
  /* the writer's own read, unfenced then fenced */
  CHECK(proxy_write(&b, 3, 0, 16, &warp) == PROXY_OK);
  CHECK(done_read(&b, 3, 0, 16, &w) == PROXY_UNFENCED && w == 3);
  proxy_fence(&b, 3);
  CHECK(done_read(&b, 3, 0, 16, &w) == PROXY_OK);
  /* a fence before the write covers nothing of it */
  CHECK(proxy_write(&b, 3, 0, 4, &warp) == PROXY_OK);
  CHECK(done_read(&b, 3, 0, 16, &w) == PROXY_UNFENCED);
  /* another thread's write: the reader's fence counts after a barrier that follows the write */
  CHECK(proxy_write(&b, 40, 64, 16, &warp) == PROXY_OK);
  proxy_fence(&b, 5); /* before the barrier: no */
  for (int t = 0; t < THREADS; t++) proxy_barrier(&b, t);
  CHECK(done_read(&b, 5, 64, 16, &w) == PROXY_UNFENCED && w == 40);
  proxy_fence(&b, 5); /* after it: yes */
  CHECK(done_read(&b, 5, 64, 16, &w) == PROXY_OK);
  /* or the writer's fence after its write */
  CHECK(proxy_write(&b, 41, 96, 16, &warp) == PROXY_OK);
  CHECK(done_read(&b, 6, 96, 16, &w) == PROXY_UNFENCED && w == 41);
  proxy_fence(&b, 41);
  CHECK(done_read(&b, 6, 96, 16, &w) == PROXY_OK);
  /* bytes nothing wrote in this block are not the proxy's concern; a new block forgets the last one's writes */
  CHECK(done_read(&b, 7, 200, 16, &w) == PROXY_OK);
  CHECK(proxy_write(&b, 8, 128, 16, &warp) == PROXY_OK);
  proxy_reset(&b);
  CHECK(done_read(&b, 9, 128, 16, &w) == PROXY_OK);
  proxy_free(&b);
}

static void groups(void) {
  ProxyBlock b;
  CHECK(proxy_init(&b, BYTES, THREADS));
  int w, warp = -1;
  for (int t = 0; t < THREADS; t++) proxy_fence(&b, t);
  /* warp 1 reads [32, 48): in flight, uncommitted; no wait covers it */
  CHECK(read_of(&b, 32, 32, 16, &w) == PROXY_OK);
  CHECK(proxy_write(&b, 0, 40, 4, &warp) == PROXY_IN_FLIGHT && warp == 1);
  proxy_wait(&b, 1, 0);
  CHECK(proxy_write(&b, 0, 40, 4, &warp) == PROXY_IN_FLIGHT);
  /* committed: wait_group 1 leaves the one group pending, wait_group 0 retires it */
  proxy_commit(&b, 1);
  proxy_wait(&b, 1, 1);
  CHECK(proxy_write(&b, 0, 32, 1, &warp) == PROXY_IN_FLIGHT);
  proxy_wait(&b, 1, 0);
  CHECK(proxy_write(&b, 0, 32, 16, &warp) == PROXY_OK);
  /* two groups: wait_group 1 retires the older only */
  for (int t = 0; t < THREADS; t++) proxy_fence(&b, t);
  CHECK(read_of(&b, 0, 0, 16, &w) == PROXY_OK);
  proxy_commit(&b, 0);
  CHECK(read_of(&b, 0, 16, 16, &w) == PROXY_OK);
  proxy_commit(&b, 0);
  proxy_wait(&b, 0, 1);
  CHECK(proxy_write(&b, 5, 0, 16, &warp) == PROXY_OK);
  CHECK(proxy_write(&b, 5, 16, 16, &warp) == PROXY_IN_FLIGHT && warp == 0);
  /* another warp's wait retires nothing of warp 0's */
  proxy_wait(&b, 1, 0);
  CHECK(proxy_write(&b, 5, 20, 4, &warp) == PROXY_IN_FLIGHT);
  proxy_wait(&b, 0, 0);
  CHECK(proxy_write(&b, 5, 16, 16, &warp) == PROXY_OK);
  /* two warps read one byte: it is free when both retired */
  for (int t = 0; t < THREADS; t++) proxy_fence(&b, t);
  CHECK(read_of(&b, 0, 100, 4, &w) == PROXY_OK);
  CHECK(read_of(&b, 33, 100, 4, &w) == PROXY_OK);
  proxy_commit(&b, 0), proxy_commit(&b, 1);
  proxy_wait(&b, 0, 0);
  CHECK(proxy_write(&b, 2, 100, 4, &warp) == PROXY_IN_FLIGHT && warp == 1);
  proxy_wait(&b, 1, 0);
  CHECK(proxy_write(&b, 2, 100, 4, &warp) == PROXY_OK);
  /* a commit with nothing pending makes an empty group, which a wait counts */
  CHECK(read_of(&b, 0, 120, 4, &w) == PROXY_OK);
  proxy_commit(&b, 0);
  proxy_commit(&b, 0);
  proxy_wait(&b, 0, 1);
  CHECK(proxy_write(&b, 2, 120, 4, &warp) == PROXY_OK);
  /* a new block has nothing in flight */
  CHECK(read_of(&b, 0, 200, 8, &w) == PROXY_OK);
  proxy_reset(&b);
  CHECK(proxy_write(&b, 0, 200, 8, &warp) == PROXY_OK);
  proxy_free(&b);
}

int unit_main(void) {
  fences();
  groups();
  return 0;
}
