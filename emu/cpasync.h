/*
 * cpasync.h — cp.async as the PTX ISA defines it, for one block: copies
 * from global to shared memory that each thread issues and that land
 * later, in groups.
 *
 * What the ISA says ("Data Movement and Conversion Instructions: cp.async",
 * "cp.async.commit_group", "cp.async.wait_group / wait_all"): a thread's
 * cp.async instructions are asynchronous; cp.async.commit_group closes the
 * thread's pending copies not yet in a group into a new group;
 * cp.async.wait_group N waits until at most the N most recently committed
 * groups of the thread are pending (all older ones complete), and
 * cp.async.wait_all is commit_group then wait_group 0. Copies that no
 * commit has closed are in no group, so no wait_group covers them. Nothing
 * orders a copy with other threads: they see its data after the issuing
 * thread's wait and a barrier. A copy of cp-size bytes with a smaller
 * src-size reads only src-size bytes and fills the rest with zeros.
 *
 * The model: a copy reads its source when issued (the ISA leaves when in
 * that interval open; a kernel whose result depends on it races with
 * itself) and writes its destination at the wait that completes it. Each
 * byte of shared memory has a state: quiet, pending (a copy of thread t
 * will write it), or landed (thread t's wait wrote it after t had passed
 * e barriers). An access to a pending byte, or to a landed byte by another
 * thread that has not passed barrier e + 1 since (which t reached after
 * the landing), is the race pipelined kernels get wrong, and async_check
 * says which.
 *
 * Nothing here knows fibers or kernels: emu/emu.c calls it with the
 * running thread's id, and tests/unit/test_cpasync.c holds it to the ISA.
 */
#ifndef TILEC_EMU_CPASYNC_H
#define TILEC_EMU_CPASYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct AsyncCopy {
  uint32_t dst;      /* offset in shared memory */
  uint32_t group;    /* the thread's group number; ASYNC_OPEN until committed */
  uint32_t site;     /* the issuing access's source position (the emulator's site table) */
  uint8_t n;         /* cp-size: 4, 8 or 16 */
  uint8_t data[16];  /* the source, read at issue; zeros past src-size */
} AsyncCopy;

#define ASYNC_OPEN UINT32_MAX

typedef struct AsyncThread {
  AsyncCopy *v;
  int n, cap;
  uint32_t groups;  /* groups committed so far */
  uint32_t barriers; /* barriers passed so far */
} AsyncThread;

typedef struct AsyncBlock {
  unsigned char *smem;   /* the block's shared memory */
  unsigned char *shadow; /* per byte: written (the emulator's initcheck), set when a copy lands */
  uint16_t *state;       /* per byte: 0 quiet, ASYNC_PENDING | t, or t + 1 (landed by thread t) */
  uint32_t *epoch;       /* per landed byte: the barriers its thread had passed when it landed */
  size_t bytes;
  AsyncThread *t;
  int nthreads;
} AsyncBlock;

#define ASYNC_PENDING 0x8000u

/* Sets up (or resets, at the start of a block) the state of nthreads
 * threads over `bytes` bytes of shared memory; false when out of memory. */
bool async_block_init(AsyncBlock *b, unsigned char *smem, unsigned char *shadow, size_t bytes, int nthreads);
void async_block_reset(AsyncBlock *b);
void async_block_free(AsyncBlock *b);

/* cp.async of thread tid: n bytes to shared offset dst from src, of which
 * src_n (0 or n) are read. False when the destination lies outside shared
 * memory or is not n-aligned, or is pending for another copy (*other: its
 * thread), or the thread is out of memory; nothing is issued then. */
bool async_issue(AsyncBlock *b, int tid, uint32_t dst, const void *src, int n, int src_n, uint32_t site, int *other);
/* cp.async.commit_group of thread tid. */
void async_commit(AsyncBlock *b, int tid);
/* cp.async.wait_group keep of thread tid: its copies in committed groups
 * but the `keep` newest land. */
void async_wait(AsyncBlock *b, int tid, int keep);
/* Thread tid passed a barrier of the block. */
void async_barrier(AsyncBlock *b, int tid);

typedef enum AsyncHazard {
  ASYNC_OK,
  ASYNC_NOT_LANDED,   /* a copy will still write it: no wait of its thread covered it */
  ASYNC_NO_BARRIER,   /* another thread's wait wrote it, and no barrier came since */
} AsyncHazard;

/* Whether thread tid may access [off, off + n) of shared memory now; on a
 * hazard, *thread is the copy's thread and *site its source position. */
AsyncHazard async_check(const AsyncBlock *b, int tid, uint32_t off, size_t n, int *thread, uint32_t *site);

#endif
