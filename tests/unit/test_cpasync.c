/* test_cpasync.c — the model of cp.async (emu/cpasync.h) against what the
 * PTX ISA says of cp.async, cp.async.commit_group and cp.async.wait_group:
 *   - "cp.async.wait_group N waits till only N or fewer of the most recent
 *     cp.async-groups are pending and all the prior cp.async-groups
 *     committed by the executing threads are complete";
 *   - copies not yet committed belong to no group, so no wait_group waits
 *     for them, and cp.async.wait_all is commit_group then wait_group 0;
 *   - an empty group is still a group;
 *   - with src-size smaller than cp-size the rest of the destination is
 *     zero-filled, and src-size 0 reads nothing;
 *   - the writes are not visible to other threads without a barrier after
 *     the wait (the model reports such a read, and a read before the wait).
 */
#include <stdint.h>
#include <string.h>

#include "emu/cpasync.h"
#include "unit.h"

enum { BYTES = 256, THREADS = 4 };

static unsigned char smem[BYTES], shadow[BYTES];

static void fill(unsigned char *p, int n, int v) {
  for (int i = 0; i < n; i++) p[i] = (unsigned char)(v + i);
}

/* Whether the 16 bytes at off hold fill(v). */
static bool holds(uint32_t off, int v) {
  unsigned char want[16];
  fill(want, 16, v);
  return !memcmp(smem + off, want, 16);
}

static void groups(void) {
  AsyncBlock b;
  CHECK(async_block_init(&b, smem, shadow, BYTES, THREADS));
  memset(smem, 0xcd, sizeof smem);
  memset(shadow, 0, sizeof shadow);
  unsigned char src[4][16];
  int other;
  /* thread 1: group 0 = {0}, group 1 = {16}, group 2 = {32}, then {48} uncommitted */
  for (int g = 0; g < 4; g++) {
    fill(src[g], 16, 10 * (g + 1));
    CHECK(async_issue(&b, 1, (uint32_t)(16 * g), src[g], 16, 16, 100 + (uint32_t)g, &other));
    if (g < 3) async_commit(&b, 1);
  }
  /* the source is read at issue: changing it afterwards changes nothing */
  memset(src, 0, sizeof src);
  CHECK(!holds(0, 10));
  async_wait(&b, 1, 2); /* two newest pending: group 0 lands */
  CHECK(holds(0, 10) && !holds(16, 20) && !holds(32, 30));
  CHECK(shadow[0] && shadow[15] && !shadow[16]);
  async_wait(&b, 1, 1); /* group 1 lands */
  CHECK(holds(16, 20) && !holds(32, 30));
  async_wait(&b, 1, 0); /* group 2 lands; the uncommitted copy does not */
  CHECK(holds(32, 30) && !holds(48, 40));
  async_commit(&b, 1); /* wait_all = commit + wait_group 0 */
  async_wait(&b, 1, 0);
  CHECK(holds(48, 40));
  /* an empty group counts: after it, wait_group 1 leaves it pending, not
   * the group before */
  fill(src[0], 16, 50);
  CHECK(async_issue(&b, 2, 64, src[0], 16, 16, 7, &other));
  async_commit(&b, 2);
  async_commit(&b, 2); /* empty */
  async_wait(&b, 2, 1);
  CHECK(holds(64, 50));
  /* a thread's waits do not complete another thread's copies */
  fill(src[1], 16, 60);
  CHECK(async_issue(&b, 3, 80, src[1], 16, 16, 8, &other));
  async_commit(&b, 3);
  async_wait(&b, 0, 0);
  CHECK(!holds(80, 60));
  async_wait(&b, 3, 0);
  CHECK(holds(80, 60));
  async_block_free(&b);
}

static void zero_fill_and_sizes(void) {
  AsyncBlock b;
  CHECK(async_block_init(&b, smem, shadow, BYTES, THREADS));
  memset(smem, 0xcd, sizeof smem);
  unsigned char src[16];
  fill(src, 16, 1);
  int other;
  CHECK(async_issue(&b, 0, 0, src, 16, 0, 1, &other)); /* src-size 0: zeros */
  CHECK(async_issue(&b, 0, 16, src, 8, 8, 1, &other));
  CHECK(async_issue(&b, 0, 24, src, 4, 4, 1, &other));
  async_commit(&b, 0);
  async_wait(&b, 0, 0);
  unsigned char zeros[16] = {0};
  CHECK(!memcmp(smem, zeros, 16));
  CHECK(!memcmp(smem + 16, src, 8) && !memcmp(smem + 24, src, 4));
  CHECK(smem[28] == 0xcd);
  /* the destination must be cp-size aligned and inside shared memory */
  CHECK(!async_issue(&b, 0, 8, src, 16, 16, 1, &other) && other < 0);
  CHECK(!async_issue(&b, 0, BYTES - 8, src, 16, 16, 1, &other) && other < 0);
  /* two copies pending to the same bytes race */
  CHECK(async_issue(&b, 1, 32, src, 16, 16, 1, &other));
  CHECK(!async_issue(&b, 2, 40, src, 8, 8, 1, &other) && other == 1);
  async_block_free(&b);
}

static void hazards(void) {
  AsyncBlock b;
  CHECK(async_block_init(&b, smem, shadow, BYTES, THREADS));
  unsigned char src[16];
  fill(src, 16, 3);
  int other, t;
  uint32_t site;
  CHECK(async_issue(&b, 2, 32, src, 16, 16, 42, &other));
  /* before the wait: pending, for every thread, the issuing one too */
  CHECK(async_check(&b, 2, 40, 4, &t, &site) == ASYNC_NOT_LANDED && t == 2 && site == 42);
  CHECK(async_check(&b, 0, 32, 16, &t, &site) == ASYNC_NOT_LANDED && t == 2);
  CHECK(async_check(&b, 0, 48, 16, &t, &site) == ASYNC_OK);
  async_commit(&b, 2);
  async_wait(&b, 2, 0);
  /* after it: the issuing thread may read; the others after a barrier */
  CHECK(async_check(&b, 2, 32, 16, &t, &site) == ASYNC_OK);
  CHECK(async_check(&b, 0, 32, 16, &t, &site) == ASYNC_NO_BARRIER && t == 2);
  for (int i = 0; i < THREADS; i++) async_barrier(&b, i);
  CHECK(async_check(&b, 0, 32, 16, &t, &site) == ASYNC_OK);
  /* a thread that is behind (it has not passed the barrier that follows
   * the landing) still races */
  CHECK(async_issue(&b, 1, 64, src, 16, 16, 43, &other));
  async_commit(&b, 1);
  async_wait(&b, 1, 0);
  async_barrier(&b, 1);
  CHECK(async_check(&b, 3, 64, 16, &t, &site) == ASYNC_NO_BARRIER && t == 1);
  async_barrier(&b, 3);
  CHECK(async_check(&b, 3, 64, 16, &t, &site) == ASYNC_OK);
  /* a new block starts quiet */
  CHECK(async_issue(&b, 0, 96, src, 16, 16, 44, &other));
  async_block_reset(&b);
  CHECK(async_check(&b, 1, 96, 16, &t, &site) == ASYNC_OK);
  async_block_free(&b);
}

int unit_main(void) {
  groups();
  zero_fill_and_sizes();
  hazards();
  return 0;
}
