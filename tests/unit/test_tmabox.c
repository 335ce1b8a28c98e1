/* test_tmabox.c — when a thread may read a TMA load's box (emu/tmabox.h),
 * against what the PTX ISA says:
 *   - cp.async.bulk.tensor's load completes its bytes on an mbarrier in
 *     the phase the mbarrier is in; its data is visible to a thread once
 *     that thread has observed the phase's completion: test_wait or
 *     try_wait.parity(p) true for that phase's parity p;
 *   - observing another phase (the one before, of the other parity) says
 *     nothing of this copy; every thread observes for itself;
 *   - a new copy into the memory needs a new observation; memory written
 *     otherwise is no longer the box;
 *   - a tiled store reads its box until its thread's
 *     cp.async.bulk.wait_group.read covers its group: writing the box
 *     before is a race; another thread's wait covers nothing of it.
 */
#include <stdint.h>

#include "emu/tmabox.h"
#include "unit.h"

static TmaBoxes b;

static void observation_is_per_thread_and_phase(void) {
  b.n = 0;
  tmabox_copied(&b, 1024, 512, 8, 0, 7);
  const TmaBox *x = NULL;
  CHECK(!tmabox_read_ok(&b, 1024, 4, 3, &x));
  CHECK(x && x->mbar == 8 && x->parity == 0 && x->site == 7 && x->lo == 1024 && x->hi == 1536);
  /* the phase before: parity 1 */
  tmabox_waited(&b, 8, 1, 3);
  CHECK(!tmabox_read_ok(&b, 1500, 4, 3, NULL));
  /* another mbarrier's phase */
  tmabox_waited(&b, 16, 0, 3);
  CHECK(!tmabox_read_ok(&b, 1500, 4, 3, NULL));
  /* the phase itself: thread 3 may read, thread 4 may not */
  tmabox_waited(&b, 8, 0, 3);
  CHECK(tmabox_read_ok(&b, 1024, 512, 3, NULL));
  CHECK(!tmabox_read_ok(&b, 1024, 1, 4, NULL));
  /* bytes outside the box: anyone */
  CHECK(tmabox_read_ok(&b, 1536, 16, 4, NULL) && tmabox_read_ok(&b, 1008, 16, 4, NULL));
  /* a read that straddles the box's edge meets it */
  CHECK(!tmabox_read_ok(&b, 1020, 8, 4, NULL));
  /* thread ids across the bitmap's words */
  tmabox_waited(&b, 8, 0, 1023);
  tmabox_waited(&b, 8, 0, 64);
  CHECK(tmabox_read_ok(&b, 1024, 4, 1023, NULL) && tmabox_read_ok(&b, 1024, 4, 64, NULL) && !tmabox_read_ok(&b, 1024, 4, 65, NULL));
}

static void a_new_copy_needs_a_new_wait(void) {
  b.n = 0;
  tmabox_copied(&b, 0, 256, 8, 0, 0);
  tmabox_waited(&b, 8, 0, 0);
  CHECK(tmabox_read_ok(&b, 0, 256, 0, NULL));
  /* the next phase's copy into the same memory (a pipelined slot's next round) */
  tmabox_copied(&b, 0, 256, 8, 1, 0);
  CHECK(b.n == 1);
  CHECK(!tmabox_read_ok(&b, 0, 4, 0, NULL));
  tmabox_waited(&b, 8, 0, 0); /* the old phase again */
  CHECK(!tmabox_read_ok(&b, 0, 4, 0, NULL));
  tmabox_waited(&b, 8, 1, 0);
  CHECK(tmabox_read_ok(&b, 0, 256, 0, NULL));
  /* a copy of half of it replaces the whole box */
  tmabox_copied(&b, 128, 128, 16, 0, 0);
  CHECK(b.n == 1 && tmabox_read_ok(&b, 0, 128, 5, NULL) && !tmabox_read_ok(&b, 128, 4, 0, NULL));
}

static void generic_writes_end_a_box(void) {
  b.n = 0;
  tmabox_copied(&b, 0, 256, 8, 0, 0);
  tmabox_copied(&b, 512, 256, 16, 0, 0);
  tmabox_written(&b, 300, 16); /* between the two: nothing */
  CHECK(b.n == 2);
  tmabox_written(&b, 252, 8); /* the first's last bytes: the memory is put to another use */
  CHECK(b.n == 1 && tmabox_read_ok(&b, 0, 256, 9, NULL) && !tmabox_read_ok(&b, 512, 4, 9, NULL));
}

static void a_full_table_forgets_the_oldest(void) {
  b.n = 0;
  for (int i = 0; i <= TMABOX_MAX; i++) tmabox_copied(&b, (uint32_t)i * 16, 16, 8, 0, 0);
  CHECK(b.n == TMABOX_MAX);
  CHECK(tmabox_read_ok(&b, 0, 16, 0, NULL));                         /* the oldest, forgotten: a missed report, not a false one */
  CHECK(!tmabox_read_ok(&b, (uint32_t)TMABOX_MAX * 16, 16, 0, NULL)); /* the newest */
}

static void a_store_reads_its_box_until_its_wait(void) {
  b.n = b.nstores = 0;
  tmabox_store_issued(&b, 256, 128, 0, 5);
  const TmaStore *st = NULL;
  CHECK(!tmabox_write_ok(&b, 300, 4, &st) && st && st->tid == 0 && st->site == 5);
  CHECK(tmabox_write_ok(&b, 384, 4, NULL) && tmabox_write_ok(&b, 252, 4, NULL));
  tmabox_store_waited(&b, 1); /* another thread's wait */
  CHECK(!tmabox_write_ok(&b, 256, 1, NULL));
  tmabox_store_issued(&b, 1024, 64, 1, 6);
  tmabox_store_waited(&b, 0);
  CHECK(tmabox_write_ok(&b, 256, 128, NULL) && !tmabox_write_ok(&b, 1024, 4, NULL));
  tmabox_store_waited(&b, 1);
  CHECK(b.nstores == 0 && tmabox_write_ok(&b, 1024, 64, NULL));
}

int unit_main(void) {
  a_store_reads_its_box_until_its_wait();
  observation_is_per_thread_and_phase();
  a_new_copy_needs_a_new_wait();
  generic_writes_end_a_box();
  a_full_table_forgets_the_oldest();
  return 0;
}
