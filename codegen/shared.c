/*
 * shared.c — shared memory after lowering: allocate-shared and
 * insert-barriers.
 *
 * Requires: the lowered LLVM-dialect module, still structured (scf.if,
 * scf.for, scf.while), in which every use of shared memory has a buffer of
 * its own (@tilec_smem_<n>, its size in tilec.bytes) and every shared load
 * and store is tagged with its buffer (tilec.smem = n).
 *
 * allocate-shared numbers the kernel's ops in program order and gives each
 * buffer the interval from its first access to its last, widened to the
 * whole of any loop it crosses. Buffers are placed first fit, in order of
 * first access, 16-byte aligned (more where a buffer's global asks: wgmma's
 * swizzled operands, 1024 bytes); two buffers share memory only when their
 * intervals do not overlap, and they do share it, as Triton's allocator:
 * memory comes first. Sharing can cost a barrier between one use's reads
 * and the next one's writes; while all of them side by side fit in 16 KiB,
 * a buffer whose first fit costs one (insert-barriers, run dry on the
 * placement so far, needs more, weighted by the loops around them) takes
 * instead a place that costs none where that takes no more memory (a place
 * below the end so far). The
 * addresses become offsets into one buffer, @tilec_smem: the block's
 * dynamic shared memory (an external array of no size, `.extern .shared`
 * in PTX), whose size, the kernel's shared bytes, the launch gives. Being
 * dynamic, it may pass 48 KiB, up to what the target allows a block. The
 * placement stays on the kernel as attributes
 * (tilec.smem_offsets and tilec.smem_sizes, by buffer; tilec.shared_bytes,
 * which the metadata reports), so that insert-barriers reads it from the IR
 * and either pass runs alone on IR text (`tilec opt`).
 *
 * insert-barriers walks the program with the set of buffers written and
 * read since the last barrier. An access that would race with one of them
 * (a read of memory written, a write of memory read) gets a barrier before
 * it, which empties the sets; a loop that would race with what came before
 * it, but not with itself, gets the barrier before it, once. A use's
 * writes after its own writes need none (the lowering's uses write each
 * place once, or the same value from every holder); a write of memory
 * another use wrote with no read between (its reads in a loop that ran no
 * iteration) gets one. Both branches of an if are
 * walked and their sets joined; a loop is walked to a fixed point of its
 * entry set before barriers go in. An if with a per-thread condition
 * (tilec.divergent) counts as one access at its place, so no barrier is
 * ever put where only some threads would reach it.
 */
#include "codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/LLVM.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* The buffer an access is tagged with; -1 for none (or a tag that is not
 * a buffer's number, in IR text). */
static int smem_tag(MlirOperation op) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, str("tilec.smem"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a)) return -1;
  int64_t v = mlirIntegerAttrGetValueInt(a);
  return v >= 0 && v <= 65535 ? (int)v : -1;
}

static bool has_prefix(MlirStringRef s, const char *p) {
  size_t n = strlen(p);
  return s.length >= n && !memcmp(s.data, p, n);
}

/* The kernel: the function with nvvm.kernel. */
static MlirOperation kernel_of(MlirOperation module) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation f = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(f); f = mlirOperationGetNextInBlock(f))
    if (!mlirAttributeIsNull(mlirOperationGetAttributeByName(f, str("nvvm.kernel")))) return f;
  return (MlirOperation){NULL};
}

/* ---- allocate-shared --------------------------------------------------------------------- */

typedef struct Live {
  Compilation *comp;
  int n;
  int64_t *first, *last; /* per buffer: program positions, -1 when unused */
  bool *private;         /* per buffer: each thread reads only what it wrote */
  int pos;
  int64_t *loop_start, *loop_end; /* the spans of the loops */
  int nloops, cap_loops;
} Live;

static void number_ops(Live *lv, MlirBlock b);

static void number_op(Live *lv, MlirOperation op) {
  int here = lv->pos++;
  int id = smem_tag(op);
  if (id >= 0 && id < lv->n) {
    if (lv->first[id] < 0) lv->first[id] = here;
    lv->last[id] = here;
    if (!mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("tilec.private")))) lv->private[id] = true;
  }
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      number_ops(lv, b);
  if (op_is(op, "scf.for") || op_is(op, "scf.while")) {
    if (lv->nloops == lv->cap_loops) {
      lv->cap_loops = lv->cap_loops ? 2 * lv->cap_loops : 16;
      lv->loop_start = realloc(lv->loop_start, sizeof(int64_t) * (size_t)lv->cap_loops);
      lv->loop_end = realloc(lv->loop_end, sizeof(int64_t) * (size_t)lv->cap_loops);
    }
    lv->loop_start[lv->nloops] = here;
    lv->loop_end[lv->nloops++] = lv->pos - 1;
  }
}

static void number_ops(Live *lv, MlirBlock b) {
  for (MlirOperation op = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    number_op(lv, op);
}

/* n of @tilec_smem_<n>; -1 for another name (or past 65535 buffers) */
static int buffer_id(MlirStringRef s) {
  if (!has_prefix(s, "tilec_smem_") || s.length == 11 || s.length > 16) return -1;
  int id = 0;
  for (size_t i = 11; i < s.length; i++) {
    if (s.data[i] < '0' || s.data[i] > '9') return -1;
    id = id * 10 + (s.data[i] - '0');
  }
  return id <= 65535 ? id : -1;
}

static int64_t align16(int64_t x) { return (x + 15) & ~(int64_t)15; }

/* Past this many bytes side by side, buffers take their first fit, without
 * insert-barriers' dry runs. */
#define SHARE_ABOVE 16384

typedef struct Refs {
  Compilation *comp;
  PtrVec v;
} Refs;

static void collect_refs(MlirOperation op, void *user) {
  Refs *r = user;
  if (!op_is(op, "llvm.mlir.addressof")) return;
  if (has_prefix(mlirFlatSymbolRefAttrGetValue(mlirOperationGetAttributeByName(op, str("global_name"))), "tilec_smem_"))
    vec_push(r->comp->a, &r->v, op.ptr);
}

/* Where each buffer lies in the kernel's one buffer. */
typedef struct SharedPlan {
  int n;           /* buffers */
  int64_t *offset; /* where buffer i lies */
  int64_t *size;
  int64_t *align;  /* what its offset must be a multiple of: 16, or its global's alignment */
  int64_t total;   /* the kernel's shared bytes */
} SharedPlan;

static bool place_buffers(Compilation *comp, MlirOperation module, SharedPlan *plan);
static int64_t barrier_cost(MlirOperation k, int n, const int64_t *offset, const int64_t *size, const bool *placed);

/* The kernel's name, for messages. */
static MlirStringRef kernel_name(MlirOperation k) {
  return mlirStringAttrGetValue(mlirOperationGetAttributeByName(k, str("sym_name")));
}

bool cg_allocate_shared(Compilation *comp, MlirOperation module) {
  MlirOperation k = kernel_of(module);
  if (mlirOperationIsNull(k)) {
    diag_plain_error(comp->d, "allocate-shared: the module has no kernel (a function with nvvm.kernel)");
    return false;
  }
  SharedPlan plan;
  if (!place_buffers(comp, module, &plan)) return false;
  MlirContext ctx = ir_mlir(comp->ic);
  mlirOperationSetAttributeByName(k, str("tilec.smem_offsets"), mlirDenseI64ArrayGet(ctx, plan.n, plan.offset));
  mlirOperationSetAttributeByName(k, str("tilec.smem_sizes"), mlirDenseI64ArrayGet(ctx, plan.n, plan.size));
  mlirOperationSetAttributeByName(k, str("tilec.shared_bytes"), mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), plan.total));
  /* the kernel's shared memory is dynamic: the launch gives it, up to what
   * the target allows a block */
  const Target *t = comp->target;
  if (plan.total > t->max_shared) {
    comp->shared_overflow = true;
    MlirStringRef nm = kernel_name(k);
    char msg[200];
    snprintf(msg, sizeof msg, "kernel '%.*s' needs %lld bytes of shared memory per block; %s allows %lld", (int)nm.length,
             nm.data, (long long)plan.total, t->name, (long long)t->max_shared);
    mlirEmitError(mlirOperationGetLocation(k), msg);
    return false;
  }
  return true;
}

/* The first offset for buffer order[i] clear of the buffers placed before
 * it that are live at the same time or marked in avoid; of all of them
 * when avoid is NULL. A buffer of private accesses (a thread's prefetched
 * copies, which no barrier orders) shares with none. */
static int64_t first_fit(const SharedPlan *plan, const Live *lv, const int *order, int i, const bool *avoid) {
  int b = order[i];
  int64_t at = 0;
  for (bool moved = true; moved;) {
    moved = false;
    for (int j = 0; j < i; j++) {
      int p = order[j];
      bool in_time = !avoid || avoid[p] || lv->private[b] || lv->private[p] || (lv->first[b] >= 0 && lv->first[p] >= 0 && lv->first[b] <= lv->last[p] && lv->first[p] <= lv->last[b]);
      bool in_memory = at < plan->offset[p] + plan->size[p] && plan->offset[p] < at + plan->size[b];
      if (in_time && in_memory) {
        at = (plan->offset[p] + plan->size[p] + plan->align[b] - 1) & ~(plan->align[b] - 1);
        moved = true;
      }
    }
  }
  return at;
}

static bool place_buffers(Compilation *comp, MlirOperation module, SharedPlan *plan) {
  memset(plan, 0, sizeof *plan);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirContext ctx = ir_mlir(comp->ic);
  /* the buffers */
  PtrVec globals = {0};
  for (MlirOperation g = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(g); g = mlirOperationGetNextInBlock(g)) {
    MlirAttribute name = mlirOperationGetAttributeByName(g, str("sym_name"));
    if (!mlirAttributeIsNull(name) && has_prefix(mlirStringAttrGetValue(name), "tilec_smem_")) vec_push(comp->a, &globals, g.ptr);
  }
  int n = 0;
  for (int i = 0; i < globals.n; i++) {
    MlirOperation g = {globals.v[i]};
    MlirStringRef s = mlirStringAttrGetValue(mlirOperationGetAttributeByName(g, str("sym_name")));
    MlirAttribute bytes = mlirOperationGetAttributeByName(g, str("tilec.bytes"));
    int id = buffer_id(s);
    if (id < 0 || mlirAttributeIsNull(bytes) || !mlirAttributeIsAInteger(bytes) || mlirIntegerAttrGetValueInt(bytes) < 0 ||
        mlirIntegerAttrGetValueInt(bytes) > ((int64_t)1 << 40)) {
      diag_plain_error(comp->d, "allocate-shared: '%.*s' is not a shared buffer of the lowering (@tilec_smem_<n>, tilec.bytes)",
                       (int)s.length, s.data);
      return false;
    }
    if (id + 1 > n) n = id + 1;
  }
  plan->n = n;
  plan->offset = arena_alloc(comp->a, sizeof(int64_t) * (size_t)(n ? n : 1));
  memset(plan->offset, 0, sizeof(int64_t) * (size_t)(n ? n : 1));
  plan->size = arena_alloc(comp->a, sizeof(int64_t) * (size_t)(n ? n : 1));
  memset(plan->size, 0, sizeof(int64_t) * (size_t)n);
  if (!n) return true; /* no shared memory, and no @tilec_smem */
  plan->align = arena_alloc(comp->a, sizeof(int64_t) * (size_t)n);
  for (int i = 0; i < n; i++) plan->align[i] = 16;
  for (int i = 0; i < globals.n; i++) {
    MlirOperation g = {globals.v[i]};
    int id = buffer_id(mlirStringAttrGetValue(mlirOperationGetAttributeByName(g, str("sym_name"))));
    plan->size[id] = mlirIntegerAttrGetValueInt(mlirOperationGetAttributeByName(g, str("tilec.bytes")));
    MlirAttribute al = mlirOperationGetAttributeByName(g, str("alignment"));
    if (!mlirAttributeIsNull(al) && mlirAttributeIsAInteger(al)) {
      int64_t v = mlirIntegerAttrGetValueInt(al);
      if (v > 16 && v <= 4096 && !(v & (v - 1))) plan->align[id] = v;
    }
  }
  if (!n) return true;
  /* liveness */
  Live lv = {.comp = comp, .n = n};
  lv.first = arena_alloc(comp->a, sizeof(int64_t) * (size_t)n);
  lv.last = arena_alloc(comp->a, sizeof(int64_t) * (size_t)n);
  lv.private = arena_alloc(comp->a, sizeof(bool) * (size_t)n);
  memset(lv.private, 0, sizeof(bool) * (size_t)n);
  for (int i = 0; i < n; i++) lv.first[i] = lv.last[i] = -1;
  MlirOperation k = kernel_of(module);
  if (!mlirOperationIsNull(k)) number_op(&lv, k);
  for (bool changed = true; changed;) {
    changed = false;
    for (int b = 0; b < n; b++) {
      if (lv.first[b] < 0) continue;
      for (int l = 0; l < lv.nloops; l++) {
        bool meets = lv.first[b] <= lv.loop_end[l] && lv.last[b] >= lv.loop_start[l];
        bool inside = lv.first[b] >= lv.loop_start[l] && lv.last[b] <= lv.loop_end[l];
        if (meets && !inside) {
          if (lv.loop_start[l] < lv.first[b]) lv.first[b] = lv.loop_start[l], changed = true;
          if (lv.loop_end[l] > lv.last[b]) lv.last[b] = lv.loop_end[l], changed = true;
        }
      }
    }
  }
  free(lv.loop_start);
  free(lv.loop_end);
  /* placement: first fit, in order of first access */
  int *order = arena_alloc(comp->a, sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) order[i] = i;
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && lv.first[order[j]] < lv.first[order[j - 1]]; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  /* Memory first, as Triton's allocator: a buffer goes apart from those
   * it could share with only where that costs no memory (a place below
   * the end so far). Among such places, small buffers take one where
   * sharing costs no barrier: where one that is done is separated from the
   * next one's writes by a barrier that is there anyway. Past 16 KiB side
   * by side, first fit. */
  int64_t side_by_side = 0;
  for (int i = 0; i < n; i++) side_by_side += align16(plan->size[i]);
  bool share = side_by_side > SHARE_ABOVE || mlirOperationIsNull(k);
  bool *placed = arena_alloc(comp->a, sizeof(bool) * (size_t)n), *avoid = arena_alloc(comp->a, sizeof(bool) * (size_t)n);
  memset(placed, 0, sizeof(bool) * (size_t)n);
  /* the barriers the placement so far needs, the buffers not placed yet apart */
  int64_t need = share ? 0 : barrier_cost(k, n, plan->offset, plan->size, placed);
  int64_t total = 0;
  for (int i = 0; i < n; i++) {
    int b = order[i];
    memset(avoid, 0, sizeof(bool) * (size_t)n);
    int64_t at = first_fit(plan, &lv, order, i, avoid), alone = first_fit(plan, &lv, order, i, NULL);
    /* where sharing with some buffer would cost a barrier, avoid it and
     * those beside it, and try the next place */
    while (!share && at != alone) {
      plan->offset[b] = at;
      placed[b] = true;
      if (barrier_cost(k, n, plan->offset, plan->size, placed) <= need) break;
      for (int j = 0; j < i; j++) {
        int p = order[j];
        if (at < plan->offset[p] + plan->size[p] && plan->offset[p] < at + plan->size[b]) avoid[p] = true;
      }
      int64_t next = first_fit(plan, &lv, order, i, avoid);
      int64_t end_at = at + plan->size[b] > total ? at + plan->size[b] : total;
      if (next + plan->size[b] > end_at) {
        /* apart would grow the memory: share, and pay the barrier */
        need = barrier_cost(k, n, plan->offset, plan->size, placed);
        break;
      }
      at = next;
    }
    plan->offset[b] = at;
    placed[b] = true;
    if (at + plan->size[b] > total) total = at + plan->size[b];
  }
  plan->total = total;
  int64_t max_align = 16;
  for (int i = 0; i < n; i++)
    if (plan->align[i] > max_align) max_align = plan->align[i];
  /* one buffer: each buffer's address becomes an offset into it */
  MlirType arr = mlirLLVMArrayTypeGet(mlirIntegerTypeGet(ctx, 8), 0);
  MlirNamedAttribute gattrs[5] = {
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("sym_name")), mlirStringAttrGet(ctx, str("tilec_smem"))),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("global_type")), mlirTypeAttrGet(arr)),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("linkage")), ir_parse_attr(comp->ic, "#llvm.linkage<external>")),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("addr_space")), mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), 3)),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("alignment")), mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), max_align)),
  };
  MlirOperationState gs = mlirOperationStateGet(str("llvm.mlir.global"), mlirLocationUnknownGet(ctx));
  mlirOperationStateAddAttributes(&gs, 5, gattrs);
  MlirRegion init = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&gs, 1, &init);
  mlirBlockInsertOwnedOperation(body, 0, mlirOperationCreate(&gs));
  Refs refs = {.comp = comp};
  walk_ops(module, collect_refs, &refs, false);
  MlirType p3 = mlirLLVMPointerTypeGet(ctx, 3);
  for (int i = 0; i < refs.v.n; i++) {
    MlirOperation a = {refs.v.v[i]};
    MlirLocation loc = mlirOperationGetLocation(a);
    int id = buffer_id(mlirFlatSymbolRefAttrGetValue(mlirOperationGetAttributeByName(a, str("global_name"))));
    if (id < 0 || id >= n) {
      diag_plain_error(comp->d, "allocate-shared: a reference to a shared buffer that does not exist");
      return false;
    }
    MlirNamedAttribute ga = mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("global_name")), mlirFlatSymbolRefAttrGet(ctx, str("tilec_smem")));
    MlirValue base = mlirOperationGetResult(create_before(a, "llvm.mlir.addressof", loc, 1, &p3, 0, NULL, 1, &ga), 0);
    if (plan->offset[id]) {
      int32_t off = (int32_t)plan->offset[id];
      MlirNamedAttribute gep[2] = {
          mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("elem_type")), mlirTypeAttrGet(mlirIntegerTypeGet(ctx, 8))),
          mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("rawConstantIndices")), mlirDenseI32ArrayGet(ctx, 1, &off)),
      };
      base = mlirOperationGetResult(create_before(a, "llvm.getelementptr", loc, 1, &p3, 1, &base, 2, gep), 0);
    }
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(a, 0), base);
    op_erase(a);
  }
  for (int i = 0; i < globals.n; i++) op_erase((MlirOperation){globals.v[i]});
  return true;
}

/* ---- insert-barriers --------------------------------------------------------------------- */

/* Buffers since the last barrier, as bit sets (buffers past 63 share the
 * last bit, which is taken to overlap everything): written, read, and
 * written by cp.async copies not yet waited for. A copy writes at some
 * time between its issue and the wait that completes it: it is a write at
 * its issue (what was read before must not be overwritten) and again at
 * the wait (what is read after it needs a barrier then, whatever barrier
 * came between the issue and the wait). */
typedef struct Sets {
  uint64_t w, r, p;
} Sets;

typedef struct Fence {
  uint64_t overlap[64]; /* per buffer bit: the bits whose memory meets it */
  int64_t *cost;        /* when set, barriers are counted here, not inserted */
} Fence;

static int bit_of(int id) { return id < 63 ? id : 63; }

static uint64_t meets(const Fence *f, uint64_t m) {
  uint64_t r = 0;
  for (int i = 0; i < 64; i++)
    if (m >> i & 1) r |= f->overlap[i];
  return r;
}

/* Whether op is a cp.async: a write of shared memory (tagged), as far as
 * barriers go; the wait before the barrier is the lowering's. */
static bool calls(MlirOperation op, const char *prefix) {
  if (!op_is(op, "llvm.call")) return false;
  MlirAttribute c = mlirOperationGetAttributeByName(op, str("callee"));
  return !mlirAttributeIsNull(c) && has_prefix(mlirFlatSymbolRefAttrGetValue(c), prefix);
}

static bool is_copy(MlirOperation op) { return calls(op, "tilec.cp.async.") && smem_tag(op) >= 0; }

/* The buffers an op writes and reads, with those of the ops inside it. */

static void accesses(MlirOperation op, uint64_t *w, uint64_t *r) {
  int id = smem_tag(op);
  /* a thread's accesses to memory only it uses (a prefetched load's
   * copies) are ordered by its own wait */
  bool private = !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("tilec.private")));
  /* a TMA copy's or an mbarrier's use of its buffer is ordered by the
   * barriers and waits its lowering makes (lower_tma.c) */
  bool async = !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("tilec.async")));
  if (id >= 0 && !private && !async) {
    if (op_is(op, "llvm.store") || is_copy(op)) *w |= 1ull << bit_of(id);
    else *r |= 1ull << bit_of(id);
  }
  for (intptr_t i = 0; i < mlirOperationGetNumRegions(op); i++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, i)); !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
        accesses(o, w, r);
}

static Sets walk_block(const Fence *f, MlirBlock b, Sets s, bool insert);

/* What a barrier before op costs: 16 for each loop around it. */
static int64_t loop_weight(MlirOperation op) {
  int64_t w = 1;
  for (MlirOperation p = mlirOperationGetParentOperation(op); !mlirOperationIsNull(p) && w < ((int64_t)1 << 40);
       p = mlirOperationGetParentOperation(p))
    if (op_is(p, "scf.for") || op_is(p, "scf.while")) w *= 16;
  return w;
}

/* Whether writes w meet memory another buffer wrote (s.w) with no read
 * between, as when a buffer's reads are in a loop that ran no iteration:
 * the two uses' writes of one place by different threads are unordered
 * (a buffer's own writes are not: each place once, or the same value). */
static bool overwrites(const Fence *f, uint64_t w, uint64_t sw) {
  for (int i = 0; i < 64; i++)
    if (w >> i & 1 && f->overlap[i] & sw & ~(i == 63 ? 0 : 1ull << i)) return true;
  return false;
}

/* A barrier before op when its writes w and reads r would race with s;
 * the sets after it. */
static Sets fence(const Fence *f, MlirOperation op, Sets s, uint64_t w, uint64_t r, bool insert) {
  if (!(w & meets(f, s.r)) && !(r & meets(f, s.w)) && !overwrites(f, w, s.w)) return s;
  if (insert && f->cost) *f->cost += loop_weight(op);
  else if (insert) create_before(op, "nvvm.barrier0", mlirOperationGetLocation(op), 0, NULL, 0, NULL, 0, NULL);
  return (Sets){0, 0, s.p}; /* copies in flight stay so */
}

static Sets access(const Fence *f, MlirOperation op, Sets s, uint64_t w, uint64_t r, bool insert) {
  s = fence(f, op, s, w, r, insert);
  s.w |= w;
  s.r |= r;
  if (is_copy(op)) s.p |= w;
  return s;
}

static MlirBlock region_block(MlirOperation op, int i) {
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(op, i));
}

/* The sets at a loop's head: what comes in (s), joined with what the body
 * leaves, until nothing changes (virtual barriers reset them). */
static Sets loop_head(const Fence *f, MlirOperation op, Sets s, bool is_while) {
  Sets head = s, end;
  for (int guard = 0; guard < 64; guard++) {
    end = walk_block(f, region_block(op, 0), head, false);
    if (is_while) end = walk_block(f, region_block(op, 1), end, false);
    Sets next = {s.w | end.w, s.r | end.r, s.p | end.p};
    if (next.w == head.w && next.r == head.r && next.p == head.p) break;
    head = next;
  }
  return head;
}

static Sets walk_op(const Fence *f, MlirOperation op, Sets s, bool insert) {
  if (op_is(op, "nvvm.barrier0")) return (Sets){0, 0, s.p};
  if (calls(op, "tilec.cp.async.wait.")) {
    /* the copies land here (wait_group 0: all of them; N > 0 may leave
     * some in flight, so they stay pending too) */
    MlirStringRef c = mlirFlatSymbolRefAttrGetValue(mlirOperationGetAttributeByName(op, str("callee")));
    s.w |= s.p;
    if (c.length == strlen("tilec.cp.async.wait.0") && c.data[c.length - 1] == '0') s.p = 0;
    return s;
  }
  bool divergent = !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("tilec.divergent")));
  if (op_is(op, "scf.if") && !divergent) {
    Sets t = walk_block(f, region_block(op, 0), s, insert);
    MlirBlock eb = region_block(op, 1);
    Sets e = mlirBlockIsNull(eb) ? s : walk_block(f, eb, s, insert);
    return (Sets){t.w | e.w, t.r | e.r, t.p | e.p};
  }
  bool is_for = op_is(op, "scf.for"), is_while = op_is(op, "scf.while");
  if (is_for || is_while) {
    /* a loop whose body races only with what came before it, not with its
     * own previous iteration, gets its barrier before the loop, once, not
     * in the body at every iteration */
    uint64_t lw = 0, lr = 0;
    accesses(op, &lw, &lr);
    if (is_for && !(lw | lr)) return s; /* no shared memory in it: nothing to walk, nothing changes */
    if ((lw & meets(f, s.r)) || (lr & meets(f, s.w))) {
      Sets own = loop_head(f, op, (Sets){0, 0, 0}, is_while);
      if (!(lw & meets(f, own.r)) && !(lr & meets(f, own.w))) s = fence(f, op, s, lw, lr, insert);
    }
    Sets head = loop_head(f, op, s, is_while);
    Sets after_cond = walk_block(f, region_block(op, 0), head, insert);
    if (is_while) walk_block(f, region_block(op, 1), after_cond, insert);
    /* a for exits at its head; a while after its condition */
    return is_while ? after_cond : head;
  }
  uint64_t w = 0, r = 0;
  accesses(op, &w, &r);
  return w | r ? access(f, op, s, w, r, insert) : s;
}

static Sets walk_block(const Fence *f, MlirBlock b, Sets s, bool insert) {
  for (MlirOperation op = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    s = walk_op(f, op, s, insert);
  return s;
}

static Fence fence_of(int n, const int64_t *offset, const int64_t *size, const bool *placed, int64_t *cost);

bool cg_insert_barriers(Compilation *comp, MlirOperation module) {
  MlirOperation k = kernel_of(module);
  MlirAttribute offs = mlirOperationIsNull(k) ? (MlirAttribute){NULL} : mlirOperationGetAttributeByName(k, str("tilec.smem_offsets"));
  MlirAttribute sizes = mlirOperationIsNull(k) ? (MlirAttribute){NULL} : mlirOperationGetAttributeByName(k, str("tilec.smem_sizes"));
  if (mlirAttributeIsNull(offs) || mlirAttributeIsNull(sizes) || !mlirAttributeIsADenseI64Array(offs) ||
      !mlirAttributeIsADenseI64Array(sizes) || mlirDenseArrayGetNumElements(offs) != mlirDenseArrayGetNumElements(sizes)) {
    diag_plain_error(comp->d, "insert-barriers: the kernel has no placement of its shared memory (run allocate-shared first)");
    return false;
  }
  int n = (int)mlirDenseArrayGetNumElements(offs);
  if (!n) return true;
  int64_t *offset = malloc(sizeof(int64_t) * (size_t)n), *size = malloc(sizeof(int64_t) * (size_t)n);
  bool *placed = malloc(sizeof(bool) * (size_t)n);
  if (!offset || !size || !placed) {
    free(offset), free(size), free(placed);
    diag_plain_error(comp->d, "insert-barriers: out of memory");
    return false;
  }
  for (int i = 0; i < n; i++) {
    offset[i] = mlirDenseI64ArrayGetElement(offs, i);
    size[i] = mlirDenseI64ArrayGetElement(sizes, i);
    placed[i] = true;
  }
  Fence f = fence_of(n, offset, size, placed, NULL);
  free(offset), free(size), free(placed);
  walk_block(&f, region_block(k, 0), (Sets){0, 0, 0}, true);
  return true;
}

/* Which buffers' memory meets which: those placed by their offsets, the
 * others only themselves. */
static Fence fence_of(int n, const int64_t *offset, const int64_t *size, const bool *placed, int64_t *cost) {
  Fence f = {.cost = cost};
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      bool overlap = i == j || (placed[i] && placed[j] && offset[i] < offset[j] + size[j] && offset[j] < offset[i] + size[i]);
      if (overlap || i >= 63 || j >= 63) f.overlap[bit_of(i)] |= 1ull << bit_of(j);
    }
  return f;
}

/* The barriers a placement needs, each weighted by the loops around it. */
static int64_t barrier_cost(MlirOperation k, int n, const int64_t *offset, const int64_t *size, const bool *placed) {
  int64_t cost = 0;
  Fence f = fence_of(n, offset, size, placed, &cost);
  walk_block(&f, region_block(k, 0), (Sets){0, 0, 0}, true);
  return cost;
}
