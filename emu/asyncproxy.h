/*
 * asyncproxy.h — shared memory as sm_90's async proxy sees it, for one
 * block: writes through the generic proxy that wgmma.mma_async may read
 * only after a fence.proxy.async, and the operands an issued wgmma still
 * reads until the wgmma.wait_group that retires its group.
 *
 * What the PTX ISA says ("Memory Consistency Model": proxies;
 * "fence.proxy.async"; "wgmma.mma_async", "wgmma.commit_group",
 * "wgmma.wait_group"): wgmma.mma_async reads its shared-memory operands
 * through the async proxy. A write through the generic proxy (st.shared,
 * cp.async) is visible to the async proxy only when a fence.proxy.async is
 * ordered between the write and the read: executed by the writing thread
 * after its write, or by a thread that a barrier ordered after the write,
 * before its read. The instruction reads its operands at some time before
 * the wgmma.wait_group that covers its group returns; commit_group closes a
 * warpgroup's pending wgmma operations into a group, and wait_group N
 * returns when at most the N most recent groups are pending. Writing an
 * operand before its group is retired races with the instruction.
 *
 * The model: per byte, the last generic write's thread, that thread's
 * count of fences and of barriers at the write; per thread, its fences,
 * its barriers and the barriers it had passed at its last fence. A read by
 * thread r of a byte thread w wrote is fenced when w fenced after the
 * write, or r fenced after passing more barriers than w had passed at the
 * write (a block-wide barrier then ordered the write before r's fence).
 * Per warp, its groups of wgmma reads (the byte ranges each read, counted
 * per byte while in flight): reads go into the open group, commit closes
 * it (or makes an empty group: the ISA's commit_group with nothing
 * pending), wait_group keep retires all closed groups but the keep latest.
 * A writer's fence counts for a read whatever orders the two (a fence
 * after the write that no barrier orders before the read is taken as
 * enough: a report can be missed there). A
 * generic write of a byte in flight is the race. Copies are counted as
 * written when issued (a fence between a copy's issue and its landing is
 * taken as covering it: a report can be missed there, never made wrongly).
 *
 * Nothing here knows fibers or kernels: emu/emu.c calls it with the
 * running thread's id, and tests/unit/test_asyncproxy.c holds it to these
 * rules.
 */
#ifndef TILEC_EMU_ASYNCPROXY_H
#define TILEC_EMU_ASYNCPROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ProxyHazard { PROXY_OK, PROXY_UNFENCED, PROXY_IN_FLIGHT } ProxyHazard;

typedef struct ProxyRange {
  uint32_t off, n;
} ProxyRange;

typedef struct ProxyGroup {
  ProxyRange *v;
  int n, cap;
} ProxyGroup;

typedef struct ProxyWarp {
  ProxyGroup *g; /* oldest first; the last is open when `open` */
  int n, cap;
  bool open;
} ProxyWarp;

typedef struct ProxyThread {
  uint32_t fences, barriers;
  uint32_t fenced_after; /* barriers passed at its last fence, plus 1; 0: no fence yet */
} ProxyThread;

typedef struct ProxyBlock {
  size_t bytes;
  int nthreads, nwarps;
  uint32_t gen;       /* the block's number: a byte whose wgen differs has no write in it */
  uint32_t *wgen;     /* per byte */
  uint16_t *writer;   /* per byte: the thread of its last generic write */
  uint32_t *wfences;  /* per byte: the writer's fences at the write */
  uint32_t *wbarriers; /* per byte: the writer's barriers at the write */
  uint16_t *reads;    /* per byte: wgmma reads in flight */
  ProxyThread *t;
  ProxyWarp *w;
} ProxyBlock;

/* Sets up the state of nthreads threads over `bytes` bytes of shared
 * memory; false when out of memory. proxy_reset starts a new block. */
bool proxy_init(ProxyBlock *b, size_t bytes, int nthreads);
void proxy_reset(ProxyBlock *b);
void proxy_free(ProxyBlock *b);

/* A generic-proxy write of [off, off + n) by thread tid: recorded; PROXY_IN_FLIGHT
 * (and *warp, the reading warp) when a wgmma not yet retired reads a byte of it. */
ProxyHazard proxy_write(ProxyBlock *b, int tid, uint32_t off, uint32_t n, int *warp);
/* A write through the async proxy (a TMA load's landing): PROXY_IN_FLIGHT
 * (and *warp) as for proxy_write; the bytes need no fence for wgmma. */
ProxyHazard proxy_async_write(ProxyBlock *b, uint32_t off, uint32_t n, int *warp);
/* fence.proxy.async of thread tid; a barrier it passed. */
void proxy_fence(ProxyBlock *b, int tid);
void proxy_barrier(ProxyBlock *b, int tid);
/* A wgmma operand read of [off, off + n) by warp `warp` for thread tid (the
 * one whose fences count, any lane of the warp): recorded in the warp's open
 * group; PROXY_UNFENCED (and *writer) when a byte's generic write is not
 * fenced for it. False from `ok` only for want of memory. */
ProxyHazard proxy_read(ProxyBlock *b, int tid, int warp, uint32_t off, uint32_t n, int *writer, bool *ok);
/* wgmma.commit_group and wgmma.wait_group keep of a warp. */
void proxy_commit(ProxyBlock *b, int warp);
void proxy_wait(ProxyBlock *b, int warp, int keep);

#endif
