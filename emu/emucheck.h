/*
 * emucheck.h — the emulator's checks of global memory: reads of bytes that
 * nothing wrote (initcheck), and data races within a program and between
 * the programs of a launch (racecheck). emu/emu.c calls these from its
 * global loads, stores and atomics, its barrier, and around each program;
 * docs/emulator.md says what is reported and what is modelled.
 *
 * initcheck: a buffer may come with a map of a bit per byte, set once the
 * byte is written (EmuBuffer.init). A plain or atomic read of a byte whose
 * bit is clear is reported; every write sets the bits. The map is the
 * caller's and outlives the launch, so that what a launch wrote counts as
 * written for the next.
 *
 * racecheck, within a program: two threads of one program that touch the
 * same byte between the same two barriers, at least one writing, neither
 * through an atomic. Each host thread keeps a table of the bytes its
 * program touched since the last barrier (who wrote each, who read it);
 * every barrier empties it. Whatever order the fibers ran in, the pair is
 * found when its second access comes.
 *
 * racecheck, between programs: two programs of the launch that touch the
 * same byte, at least one writing, neither through an atomic, with no lock
 * held by both. A shadow of 16 bytes per 4 bytes of each buffer, mapped as
 * it is touched, holds the program that owns each 4-byte granule and the
 * bytes it wrote and read; a granule a second program touches gets a record
 * per byte naming two writers and two readers. The verdict does not depend
 * on the order in which programs run, one after another or at once.
 *
 * Locks: a program takes a lock when one of its threads changes a word with
 * atomic_cas (the compare matched and the new value differs) or atomic_xchg
 * (a different value); it gives it back at its next atomic (or plain store)
 * on that word. The threads of the program that pass the same atomic
 * masked off (a scalar atomic is made by one thread) take and give it back
 * at the same place in their own order, found by the atomic's source
 * position and how many times the thread passed it. An access holds the
 * locks its thread holds; the shadow keeps, per byte, the locks that every
 * write held and those that every read held (Eraser's lockset).
 *
 * Costs: the shadow (4 bytes per byte touched), a record of 112 bytes per
 * granule that two programs share, and the per-program table (64 bytes per
 * granule touched between two barriers, at most CK_TABLE_MAX granules; past
 * that the table is emptied and races across the cut are missed).
 *
 * Threads: a CkLaunch is shared by the host threads of one launch; a
 * CkWorker belongs to one of them. Nothing here prints or exits: findings
 * go to the launch's report function.
 */
#ifndef TILEC_RUNTIME_EMUCHECK_H
#define TILEC_RUNTIME_EMUCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu.h"

#define CK_TABLE_MAX (1u << 20)

typedef struct CkLaunch CkLaunch;
typedef struct CkWorker CkWorker;

typedef struct CkConfig {
  const EmuBuffer *buffers;
  int nbuffers;
  const char *kernel;
  const char *const *sites; /* "file:line:col" by site number */
  int nsites;
  unsigned grid[3];
  int nthreads;
  bool races; /* racecheck; initcheck is on for every buffer with a map */
  /* takes one finding, a line without its newline; called from any host thread */
  void (*report)(void *ctx, const char *line);
  void *ctx;
} CkConfig;

/* NULL when nothing is to be checked or memory is short (then *oom). */
CkLaunch *ck_launch_create(const CkConfig *c, bool *oom);
void ck_launch_destroy(CkLaunch *l);
long ck_races(const CkLaunch *l);
long ck_uninit(const CkLaunch *l);

CkWorker *ck_worker_create(CkLaunch *l);
void ck_worker_destroy(CkWorker *w);

/* Around each program (block) the worker runs; block is its linear number. */
void ck_program_begin(CkWorker *w, long block, const unsigned ctaid[3]);
void ck_program_end(CkWorker *w);

/* Thread tid returned from a barrier of its block. */
void ck_barrier(CkWorker *w, int tid);

typedef enum CkOp { CK_LOAD, CK_STORE } CkOp;

/* A plain access of n bytes at p, in buffer buf (as emu.c found it). */
void ck_access(CkWorker *w, int buf, const void *p, unsigned n, CkOp op, int tid, uint32_t site);

/* A masked-off store: only a lock's release can come of it. */
void ck_masked_store(CkWorker *w, const void *p, int tid);

typedef enum CkAtom { CK_ATOM_CAS, CK_ATOM_EXCH, CK_ATOM_OTHER } CkAtom;

/* An atomic of n bytes at p, passed by thread tid: made (active, in buffer
 * buf) or masked off (buf < 0). changed: whether a cas or an exch that was
 * made replaced the value by a different one. */
void ck_atomic(CkWorker *w, int buf, const void *p, unsigned n, CkAtom kind, bool active, bool changed, int tid,
               uint32_t site);

#endif
