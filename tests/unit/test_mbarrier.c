/*
 * test_mbarrier.c — the mbarrier object's model (emu/mbarrier.h) against
 * what the PTX ISA states of it: init's contents; a phase completing when
 * its pending arrivals and its tx-count both reach 0, then the next phase
 * with the expected count pending again; expect-tx before the arrive of
 * arrive.expect_tx; bytes landing (complete-tx) before they are expected;
 * .noComplete; arrive_drop; test_wait/try_wait.parity for the current and
 * the previous phase; the counts' ranges; and errors leaving the object
 * as it was.
 */
#include <stdint.h>
#include <string.h>

#include "emu/mbarrier.h"
#include "unit.h"

static bool same(const EmuMbar *a, const EmuMbar *b) {
  return a->valid == b->valid && a->phase == b->phase && a->expected == b->expected && a->pending == b->pending &&
         a->tx == b->tx;
}

static bool complete_parity(const EmuMbar *m, uint32_t p) {
  bool c = false;
  CHECK(emu_mbar_test_parity(m, p, &c) == NULL);
  return c;
}

static void test_init(void) {
  EmuMbar m = {0};
  bool done;
  uint32_t before;
  /* every operation on an object not initialized is an error */
  CHECK_CONTAINS(emu_mbar_arrive(&m, 1, 0, false, false, &before, &done), "not initialized");
  CHECK_CONTAINS(emu_mbar_expect_tx(&m, 16), "not initialized");
  CHECK_CONTAINS(emu_mbar_complete_tx(&m, 16, &done), "not initialized");
  CHECK_CONTAINS(emu_mbar_test_parity(&m, 0, &done), "not initialized");
  CHECK_CONTAINS(emu_mbar_inval(&m), "not initialized");
  /* init: phase 0, expected = pending = count, tx-count 0; count in 1 .. 2^20 - 1 */
  CHECK_CONTAINS(emu_mbar_init(&m, 0), "outside 1 to 2^20 - 1");
  CHECK_CONTAINS(emu_mbar_init(&m, 1u << 20), "outside 1 to 2^20 - 1");
  CHECK(emu_mbar_init(&m, (1u << 20) - 1) == NULL);
  CHECK(m.valid && m.phase == 0 && m.expected == (1u << 20) - 1 && m.pending == (1u << 20) - 1 && m.tx == 0);
  EmuMbar was = m;
  CHECK_CONTAINS(emu_mbar_init(&m, 4), "already initialized");
  CHECK(same(&m, &was));
  CHECK(emu_mbar_inval(&m) == NULL && !m.valid);
  CHECK(emu_mbar_init(&m, 4) == NULL && m.expected == 4);
}

static void test_phases(void) {
  EmuMbar m = {0};
  bool done = true;
  uint32_t before = 9;
  CHECK(emu_mbar_init(&m, 3) == NULL);
  /* the current phase (0) is incomplete: parity 0 is not complete; parity 1 names the phase before it,
   * which counts as complete */
  CHECK(!complete_parity(&m, 0) && complete_parity(&m, 1));
  for (int i = 0; i < 2; i++) {
    CHECK(emu_mbar_arrive(&m, 1, 0, false, false, &before, &done) == NULL && !done && before == 0);
    CHECK(!complete_parity(&m, 0));
  }
  CHECK(m.pending == 1);
  CHECK(emu_mbar_arrive(&m, 1, 0, false, false, &before, &done) == NULL && done && before == 0);
  CHECK(m.phase == 1 && m.pending == 3 && complete_parity(&m, 0) && !complete_parity(&m, 1));
  /* an arrive of count 3 completes phase 1 at once */
  CHECK(emu_mbar_arrive(&m, 3, 0, false, false, &before, &done) == NULL && done && before == 1);
  CHECK(m.phase == 2 && complete_parity(&m, 1) && !complete_parity(&m, 0));
  /* more than are pending is an error, and changes nothing */
  EmuMbar was = m;
  CHECK_CONTAINS(emu_mbar_arrive(&m, 4, 0, false, false, &before, &done), "more arrivals than the phase has pending");
  CHECK(same(&m, &was) && !done);
  CHECK_CONTAINS(emu_mbar_test_parity(&m, 2, &done), "other than 0 or 1");
}

static void test_transactions(void) {
  EmuMbar m = {0};
  bool done = true;
  uint32_t before;
  /* arrive.expect_tx: expect-tx first, then the arrive: the phase waits for the bytes */
  CHECK(emu_mbar_init(&m, 1) == NULL);
  CHECK(emu_mbar_arrive(&m, 1, 1024, false, false, &before, &done) == NULL && !done);
  CHECK(m.pending == 0 && m.tx == 1024 && !complete_parity(&m, 0));
  CHECK(emu_mbar_complete_tx(&m, 512, &done) == NULL && !done && m.tx == 512);
  CHECK(emu_mbar_complete_tx(&m, 512, &done) == NULL && done);
  CHECK(m.phase == 1 && m.pending == 1 && m.tx == 0 && complete_parity(&m, 0));
  /* bytes that land before they are expected: the tx-count goes below 0, the arrive brings it back */
  CHECK(emu_mbar_complete_tx(&m, 256, &done) == NULL && !done && m.tx == -256);
  CHECK(emu_mbar_arrive(&m, 1, 256, false, false, &before, &done) == NULL && done && before == 1);
  CHECK(m.phase == 2 && m.tx == 0);
  /* expect-tx alone, then arrivals and bytes in either order */
  CHECK(emu_mbar_expect_tx(&m, 64) == NULL && m.tx == 64);
  CHECK(emu_mbar_arrive(&m, 1, 0, false, false, &before, &done) == NULL && !done);
  CHECK(emu_mbar_complete_tx(&m, 64, &done) == NULL && done && m.phase == 3);
  /* the ranges: tx-count within +-(2^20 - 1) */
  EmuMbar was = m;
  CHECK_CONTAINS(emu_mbar_expect_tx(&m, 1u << 20), "past the tx-count's range");
  CHECK_CONTAINS(emu_mbar_complete_tx(&m, 1u << 20, &done), "past the tx-count's range");
  CHECK_CONTAINS(emu_mbar_arrive(&m, 1, 1u << 20, false, false, &before, &done), "past the tx-count's range");
  CHECK(same(&m, &was));
  CHECK(emu_mbar_expect_tx(&m, (1u << 20) - 1) == NULL && m.tx == (1 << 20) - 1);
}

static void test_no_complete_and_drop(void) {
  EmuMbar m = {0};
  bool done;
  uint32_t before;
  CHECK(emu_mbar_init(&m, 2) == NULL);
  CHECK(emu_mbar_arrive(&m, 1, 0, true, false, &before, &done) == NULL && !done && m.pending == 1);
  EmuMbar was = m;
  CHECK_CONTAINS(emu_mbar_arrive(&m, 1, 0, true, false, &before, &done), "noComplete completed the phase");
  CHECK(same(&m, &was));
  CHECK(emu_mbar_arrive(&m, 1, 0, false, false, &before, &done) == NULL && done && m.pending == 2);
  /* arrive_drop: one fewer expected from now on, this phase included */
  CHECK(emu_mbar_arrive(&m, 1, 0, false, true, &before, &done) == NULL && !done && m.expected == 1 && m.pending == 1);
  CHECK(emu_mbar_arrive(&m, 1, 0, false, false, &before, &done) == NULL && done && m.pending == 1);
  CHECK_CONTAINS(emu_mbar_arrive(&m, 1, 0, false, true, &before, &done), "expecting no arrivals");
}

static void test_encoding(void) {
  EmuMbar cases[] = {{true, 3, 1, 0, -1}, {true, 0, (1u << 20) - 1, (1u << 20) - 1, (1 << 20) - 1},
                     {true, 2, 5, 3, -((1 << 20) - 1)}, {false, 0, 0, 0, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    EmuMbar d = emu_mbar_decode(emu_mbar_encode(&cases[i]));
    CHECK(same(&d, &cases[i]));
  }
  /* zeroed memory is an mbarrier not initialized */
  CHECK(!emu_mbar_decode(0).valid);
  /* the phase runs on past 3: its parity is what waits see */
  EmuMbar m = {0};
  bool done;
  uint32_t before;
  CHECK(emu_mbar_init(&m, 1) == NULL);
  for (int i = 0; i < 9; i++) {
    CHECK(emu_mbar_arrive(&m, 1, 0, false, false, &before, &done) == NULL && done);
    m = emu_mbar_decode(emu_mbar_encode(&m));
    CHECK(complete_parity(&m, (uint32_t)i & 1) && !complete_parity(&m, (uint32_t)(i + 1) & 1));
  }
}

int unit_main(void) {
  test_init();
  test_phases();
  test_transactions();
  test_no_complete_and_drop();
  test_encoding();
  return unit_failures != 0;
}
