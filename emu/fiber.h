/*
 * fiber.h — the threads of one emulated CUDA block, run as fibers on one
 * host thread.
 *
 * A scheduler owns one stack per thread of the block (allocated once, with a
 * guard page below each). fiber_sched_run starts fn(arg, tid) for every tid
 * and switches between the fibers only where a GPU thread could wait for
 * another: the block barrier and the warp collectives. Everything else runs
 * straight through, so a thread runs until it reaches one of those points.
 *
 * The rendezvous rules follow PTX for sm_70 and later:
 *   - fiber_barrier (bar.sync 0) waits for every thread of the block; threads
 *     that have returned count as arrived.
 *   - a warp collective (shfl.sync, vote.sync, bar.warp.sync, and those the
 *     emulator computes itself: fiber_warp_call) waits until
 *     every lane named in its member mask has reached a collective of the
 *     same kind with the same mask. The lanes may call from different places
 *     in the program. The calling lane must be in the mask, and the mask may
 *     only name lanes that exist (a partial last warp has fewer than 32).
 *
 * What a GPU would silently get wrong is an error here: a full pass over the
 * block in which no fiber can run is a deadlock (threads at a barrier while
 * others wait in a shuffle, a mask that names a lane that has returned); two
 * lanes that name each other in collectives with different masks or kinds
 * are divergent; a shuffle that reads a lane outside its mask is an error.
 * fiber_sched_run then stops and returns the error with a message that names
 * the threads and what each waits for. The fibers it stopped are abandoned
 * (their stacks are reused by the next run); nothing unwinds them, so a
 * kernel must not hold resources across a collective it might never leave.
 * Nothing here calls exit() or abort(), and a stack overflow hits the guard
 * page (a SIGSEGV at a known place rather than silent corruption).
 *
 * Seeds: with seed 0 runnable fibers are resumed in tid order; any other
 * seed resumes them in a permutation drawn from the seed, new for every pass,
 * and the last thread to reach a rendezvous yields too instead of going on.
 * The same seed gives the same order, so a race (a missing barrier) that one
 * seed exposes stays reproducible.
 *
 * Threads: each scheduler is used by one host thread at a time; several
 * schedulers may run at once on different host threads. The fiber_* calls
 * that a kernel makes act on the scheduler running on the calling host
 * thread. Outside of fiber_sched_run they act as a block of one thread: the
 * barrier returns, a collective sees only its caller, fiber_current_tid
 * returns -1.
 *
 * Only x86-64 (System V) has a context switch so far; elsewhere
 * fiber_sched_create returns NULL.
 */
#ifndef TILEC_RUNTIME_FIBER_H
#define TILEC_RUNTIME_FIBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FIBER_MAX_THREADS 1024
#define FIBER_DEFAULT_STACK (64 * 1024)

typedef struct FiberSched FiberSched;

typedef enum FiberStatus {
  FIBER_OK = 0,
  FIBER_ERR_DEADLOCK,  /* no fiber could run while some had not returned */
  FIBER_ERR_DIVERGENT, /* lanes wait for each other in different collectives */
  FIBER_ERR_MASK,      /* a member mask without the caller, with missing lanes, or a shuffle
                          reading a lane outside its mask */
  FIBER_ERR_USAGE,     /* a bad argument, or a run started from inside a fiber */
} FiberStatus;

typedef struct FiberError {
  FiberStatus status;
  char msg[2048]; /* one line per group of threads; "" when status is FIBER_OK */
} FiberError;

/* Shuffle modes, the operands b and c as in PTX shfl.sync: b is the source
 * lane (idx) or the lane offset (up, down, bfly); c packs the segment mask in
 * bits 12:8 and the clamp lane in bits 4:0. CUDA's __shfl*_sync(mask, v, x,
 * width) pass c = ((32 - width) << 8) | 31, and __shfl_up_sync passes
 * c = (32 - width) << 8. */
typedef enum FiberShflMode { FIBER_SHFL_IDX, FIBER_SHFL_UP, FIBER_SHFL_DOWN, FIBER_SHFL_BFLY } FiberShflMode;

/* vote.sync modes: all, any and uni return 0 or 1, ballot the lanes (of the
 * mask) whose pred is nonzero. uni: whether pred is the same in every lane. */
typedef enum FiberVoteMode { FIBER_VOTE_ALL, FIBER_VOTE_ANY, FIBER_VOTE_UNI, FIBER_VOTE_BALLOT } FiberVoteMode;

/* nthreads: 1..FIBER_MAX_THREADS; stack_size: bytes per fiber, at least
 * 16 KiB, at most 1 GiB, rounded up to whole pages; 0 means
 * FIBER_DEFAULT_STACK. NULL on a bad argument, when the stacks cannot be
 * mapped, or on an architecture without a context switch. */
FiberSched *fiber_sched_create(int nthreads, size_t stack_size);
void fiber_sched_destroy(FiberSched *s);

/* Runs fn(arg, tid) for tid 0..nthreads-1 until all return, or until an
 * error stops the block. Returns err->status (err may be NULL). May be
 * called again for the next block. */
FiberStatus fiber_sched_run(FiberSched *s, void (*fn)(void *arg, int tid), void *arg, uint64_t seed,
                            FiberError *err);

/* Context switches in the last run, counting both directions. */
uint64_t fiber_sched_switches(const FiberSched *s);

/* ---- called by the threads of a running block ------------------------------ */

int fiber_current_tid(void);
void fiber_barrier(void);
/* Parks the calling thread until ready(ctx) holds (the scheduler asks it
 * before each turn of the thread): true once it does. A block whose threads
 * are all parked or blocked with nothing ready is a deadlock, and the
 * report says each parked thread waits `what` (it must live while parked).
 * Outside a run: whether ready(ctx) holds now. */
bool fiber_park(bool (*ready)(void *ctx), void *ctx, const char *what);
uint32_t fiber_shfl(uint32_t mask, uint32_t value, FiberShflMode mode, uint32_t b, uint32_t c);
/* As fiber_shfl; *in_range is PTX's predicate result: whether the source lane
 * was inside the segment and clamp (if not, the caller's own value comes back). */
uint32_t fiber_shfl_p(uint32_t mask, uint32_t value, FiberShflMode mode, uint32_t b, uint32_t c,
                      bool *in_range);
uint32_t fiber_vote(uint32_t mask, bool pred, FiberVoteMode mode);
void fiber_warp_sync(uint32_t mask);

/* A warp collective whose result its caller computes (mma.sync, ldmatrix):
 * each lane of `mask` calls it with its own `data` and the same `fn` and
 * `ctx` (which say what instruction this is; lanes that wait for each other
 * with another fn or ctx are divergent, as with another kind of shuffle).
 * The lane that completes the rendezvous calls fn(ctx, lanes) once, lanes[l]
 * being lane l's data (NULL outside the mask), before any lane goes on: so
 * fn sees every lane's inputs before it writes any lane's outputs. `name`
 * (e.g. "mma.sync.aligned.m16n8k16...") names it in reports. Outside a run
 * fn sees the caller alone, as lane 0. */
typedef void (*FiberWarpFn)(void *ctx, void *const lanes[32]);
void fiber_warp_call(uint32_t mask, const char *name, FiberWarpFn fn, void *ctx, void *data);

#endif
