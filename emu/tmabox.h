/*
 * tmabox.h — when a thread may read what a TMA load wrote, for one block.
 *
 * What the PTX ISA says (cp.async.bulk.tensor, mbarrier): a tiled load
 * writes its box through the async proxy and completes its bytes on an
 * mbarrier (complete_tx); a thread sees the box's data once it has
 * observed the completion of that phase of the mbarrier, by a test_wait
 * or try_wait.parity that returns true for the phase's parity. Reading
 * the box before, or waiting for another phase, is a race: on a GPU the
 * bytes may not be there yet. The emulator's copies are made when issued,
 * so such a kernel reads right there: this model is what reports it, as
 * Triton's ConSan does.
 *
 * The model: a box is a range of shared memory, the mbarrier its copy
 * completes on, the parity of the phase it completes (the phase the
 * mbarrier was in when the copy was issued), and the threads that have
 * observed that phase since. A read of a box's bytes by a thread not among
 * them is the race. A new copy into the memory replaces the boxes it
 * meets; a generic write to it (the memory put to another use) drops them.
 *
 * Nothing here knows fibers or kernels: emu/emu.c calls it with the
 * running thread's id, and tests/unit/test_tmabox.c holds it to the ISA.
 */
#ifndef TILEC_EMU_TMABOX_H
#define TILEC_EMU_TMABOX_H

#include <stdbool.h>
#include <stdint.h>

#define TMABOX_MAX 64       /* boxes tracked at once (a pipeline's slots of every operand) */
#define TMABOX_THREADS 1024 /* a block's threads */

typedef struct TmaBox {
  uint32_t lo, hi;   /* [lo, hi) of shared memory */
  uint32_t mbar;     /* the mbarrier's offset */
  uint32_t parity;   /* the parity of the phase the copy completes */
  uint32_t site;     /* the copy's source position */
  uint64_t seen[TMABOX_THREADS / 64]; /* the threads that observed that phase since */
} TmaBox;

/* A TMA store's box, which the copy reads until its thread waits for its
 * bulk groups (cp.async.bulk.wait_group.read): writing it before is the
 * race of a box reused too early. */
typedef struct TmaStore {
  uint32_t lo, hi, site;
  int tid; /* the thread that issued it */
} TmaStore;

typedef struct TmaBoxes {
  TmaBox box[TMABOX_MAX];
  int n;
  TmaStore store[TMABOX_MAX];
  int nstores;
} TmaBoxes;

/* A TMA load of n bytes at lo, completing on the mbarrier at mbar in its
 * phase of parity `parity`. The oldest box is forgotten when all are
 * taken (a missed report, never a false one). */
void tmabox_copied(TmaBoxes *b, uint32_t lo, uint32_t n, uint32_t mbar, uint32_t parity, uint32_t site);
/* Thread tid observed the completion of the phase of parity `parity` of
 * the mbarrier at mbar. */
void tmabox_waited(TmaBoxes *b, uint32_t mbar, uint32_t parity, int tid);
/* A generic write of n bytes at lo: the boxes it meets are forgotten. */
void tmabox_written(TmaBoxes *b, uint32_t lo, uint32_t n);
/* Whether thread tid may read n bytes at lo; if not, *box is the box it
 * reads too early. */
bool tmabox_read_ok(const TmaBoxes *b, uint32_t lo, uint32_t n, int tid, const TmaBox **box);

/* Thread tid's TMA store of n bytes at lo (the oldest forgotten when all
 * are taken); its wait for all its bulk groups' reads (wait_group.read 0);
 * whether n bytes at lo may be written, else *st is the store still
 * reading them. */
void tmabox_store_issued(TmaBoxes *b, uint32_t lo, uint32_t n, int tid, uint32_t site);
void tmabox_store_waited(TmaBoxes *b, int tid);
bool tmabox_write_ok(const TmaBoxes *b, uint32_t lo, uint32_t n, const TmaStore **st);

#endif
