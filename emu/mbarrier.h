/*
 * mbarrier.h — the mbarrier object of sm_90 (PTX ISA, "Parallel
 * Synchronization and Communication Instructions: mbarrier") as pure
 * functions of its 64 bits, as it lives in shared memory: the phase it is
 * in, the arrivals still pending in that phase, the arrivals each phase
 * expects, and the transaction count (bytes of asynchronous copies, TMA's,
 * still to land in the phase).
 *
 * What the ISA says, and what the functions do:
 *   - init(count): phase 0, expected = pending = count (1 to 2^20 - 1),
 *     tx-count 0. Initializing an object that is valid is undefined: an
 *     error here, as every operation on an object not initialized is.
 *   - expect-tx(n): tx-count += n. complete-tx(n): tx-count -= n, then the
 *     phase completes if it can. arrive-on(count): pending -= count, then
 *     the phase completes if it can; arrive.expect_tx(n) is expect-tx(n)
 *     then arrive-on(1); arrive_drop also lowers the expected count of
 *     every later phase.
 *   - The phase completes when pending and tx-count are both 0: the phase
 *     advances and pending is reset to the expected count.
 *   - test_wait/try_wait.parity(p): whether the phase of parity p is the
 *     one just completed (the only other valid case being the current,
 *     incomplete phase): complete = p != (phase & 1).
 * The counts stay in the ISA's ranges (pending 0 to 2^20 - 1, tx-count
 * -(2^20 - 1) to 2^20 - 1); an operation that would leave them, or that
 * arrives more times than are pending, is an error, not a wrapped count.
 *
 * The encoding of the 64 bits is this model's own (the ISA calls the
 * contents opaque): bit 63 valid, bits 62..42 tx-count (21 bits, two's
 * complement), 41..22 pending, 21..2 expected, 1..0 the phase's low bits.
 * Nothing here allocates or prints; an error is a string, NULL for none.
 */
#ifndef TILEC_EMU_MBARRIER_H
#define TILEC_EMU_MBARRIER_H

#include <stdbool.h>
#include <stdint.h>

typedef struct EmuMbar {
  bool valid;
  uint32_t phase; /* the low two bits are kept */
  uint32_t expected, pending;
  int32_t tx;
} EmuMbar;

#define EMU_MBAR_MAX_COUNT ((1u << 20) - 1)

EmuMbar emu_mbar_decode(uint64_t bits);
uint64_t emu_mbar_encode(const EmuMbar *m);

/* Each returns NULL, having updated *m, or why the operation is an error
 * (m is then left alone). *completed (may be NULL) says whether it
 * completed the phase. */
const char *emu_mbar_init(EmuMbar *m, uint32_t count);
const char *emu_mbar_inval(EmuMbar *m);
const char *emu_mbar_expect_tx(EmuMbar *m, uint32_t bytes);
const char *emu_mbar_complete_tx(EmuMbar *m, uint32_t bytes, bool *completed);
/* arrive-on of count (1 for a plain arrive), after expect-tx of tx_bytes
 * (0: none); no_complete: .noComplete, which must not complete the phase;
 * drop: arrive_drop. *phase_before gets the phase before the arrive (the
 * state arrive returns). */
const char *emu_mbar_arrive(EmuMbar *m, uint32_t count, uint32_t tx_bytes, bool no_complete, bool drop,
                            uint32_t *phase_before, bool *completed);
/* test_wait.parity / try_wait.parity: whether the phase of that parity is complete. */
const char *emu_mbar_test_parity(const EmuMbar *m, uint32_t parity, bool *complete);

#endif
