/*
 * mbarrier.c — the mbarrier object's operations (mbarrier.h).
 */
#include "mbarrier.h"

#include <stddef.h>

#define MAX ((int64_t)EMU_MBAR_MAX_COUNT)

EmuMbar emu_mbar_decode(uint64_t bits) {
  EmuMbar m;
  m.valid = bits >> 63;
  uint32_t tx = (uint32_t)(bits >> 42) & 0x1fffff;
  m.tx = (int32_t)(tx & 0x100000 ? tx | 0xffe00000u : tx); /* 21 bits, two's complement */
  m.pending = (uint32_t)(bits >> 22) & EMU_MBAR_MAX_COUNT;
  m.expected = (uint32_t)(bits >> 2) & EMU_MBAR_MAX_COUNT;
  m.phase = (uint32_t)bits & 3;
  return m;
}

uint64_t emu_mbar_encode(const EmuMbar *m) {
  return (uint64_t)m->valid << 63 | (uint64_t)((uint32_t)m->tx & 0x1fffff) << 42 |
         (uint64_t)(m->pending & EMU_MBAR_MAX_COUNT) << 22 | (uint64_t)(m->expected & EMU_MBAR_MAX_COUNT) << 2 |
         (m->phase & 3);
}

/* The phase completes when nothing is pending: arrivals and transactions. */
static bool complete_if_done(EmuMbar *m) {
  if (m->pending || m->tx) return false;
  m->phase = (m->phase + 1) & 3;
  m->pending = m->expected;
  return true;
}

const char *emu_mbar_init(EmuMbar *m, uint32_t count) {
  if (m->valid) return "mbarrier.init of an mbarrier that is already initialized (mbarrier.inval it first)";
  if (count < 1 || count > EMU_MBAR_MAX_COUNT) return "mbarrier.init with a count outside 1 to 2^20 - 1";
  *m = (EmuMbar){.valid = true, .phase = 0, .expected = count, .pending = count, .tx = 0};
  return NULL;
}

const char *emu_mbar_inval(EmuMbar *m) {
  if (!m->valid) return "mbarrier.inval of an mbarrier that is not initialized";
  m->valid = false;
  return NULL;
}

const char *emu_mbar_expect_tx(EmuMbar *m, uint32_t bytes) {
  if (!m->valid) return "mbarrier expect-tx on an mbarrier that is not initialized";
  if ((int64_t)m->tx + bytes > MAX) return "mbarrier expect-tx past the tx-count's range (2^20 - 1)";
  m->tx += (int32_t)bytes;
  return NULL;
}

const char *emu_mbar_complete_tx(EmuMbar *m, uint32_t bytes, bool *completed) {
  if (completed) *completed = false;
  if (!m->valid) return "mbarrier complete-tx on an mbarrier that is not initialized";
  if ((int64_t)m->tx - bytes < -MAX) return "mbarrier complete-tx past the tx-count's range (-(2^20 - 1))";
  EmuMbar n = *m;
  n.tx -= (int32_t)bytes;
  bool done = complete_if_done(&n);
  *m = n;
  if (completed) *completed = done;
  return NULL;
}

const char *emu_mbar_arrive(EmuMbar *m, uint32_t count, uint32_t tx_bytes, bool no_complete, bool drop,
                            uint32_t *phase_before, bool *completed) {
  if (completed) *completed = false;
  if (!m->valid) return "mbarrier.arrive on an mbarrier that is not initialized";
  if (count < 1 || count > EMU_MBAR_MAX_COUNT) return "mbarrier.arrive with a count outside 1 to 2^20 - 1";
  EmuMbar n = *m;
  if (tx_bytes) {
    if ((int64_t)n.tx + tx_bytes > MAX) return "mbarrier.arrive.expect_tx past the tx-count's range (2^20 - 1)";
    n.tx += (int32_t)tx_bytes;
  }
  if (count > n.pending) return "mbarrier.arrive of more arrivals than the phase has pending";
  if (drop) {
    if (count >= n.expected) return "mbarrier.arrive_drop that leaves the mbarrier expecting no arrivals";
    n.expected -= count;
  }
  if (phase_before) *phase_before = n.phase;
  n.pending -= count;
  bool done = complete_if_done(&n);
  if (done && no_complete) return "mbarrier.arrive.noComplete completed the phase";
  *m = n;
  if (completed) *completed = done;
  return NULL;
}

const char *emu_mbar_test_parity(const EmuMbar *m, uint32_t parity, bool *complete) {
  if (!m->valid) return "mbarrier wait on an mbarrier that is not initialized";
  if (parity > 1) return "mbarrier wait with a phase parity other than 0 or 1";
  *complete = parity != (m->phase & 1);
  return NULL;
}
