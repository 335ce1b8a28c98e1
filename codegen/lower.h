/*
 * lower.h — what the pieces of the lowering share (lower.c and the
 * lower_*.c files): the lowering's state, the per-thread values of a tile,
 * the layout arithmetic, and the helpers that emit ops. Internal to
 * codegen; the lw_ prefix keeps the names apart from the rest of libtilec.
 */
#ifndef TILEC_CODEGEN_LOWER_H
#define TILEC_CODEGEN_LOWER_H

#include "codegen.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/LLVM.h>

typedef struct Vals {
  int n;
  MlirValue *v;
  struct Lazy *lazy; /* NULL, or where an element not yet in v is read from when first needed */
} Vals;

/* tile value -> Vals*: open addressing on the value's pointer, a power of
 * 2 of slots, at most half full (a linear search made the lowering
 * quadratic in the size of the kernel). */
typedef struct ValMap {
  const void **key;
  Vals **val;
  int n, cap;
} ValMap;

typedef struct Lower {
  Compilation *comp;
  MlirContext ctx;
  MlirModule out;
  MlirBlock block;    /* where ops go */
  MlirOperation term; /* ops are inserted before it */
  MlirValue tid, lane, warp;
  ValMap map;         /* tile value -> Vals* */
  PtrVec declared;    /* names of tilec.* functions declared */
  AxisAnalysis *aa;
  int nbuffers;       /* shared-memory buffers made so far */
  int nstrings;       /* constant strings made so far */
  MlirBlock entry;    /* the kernel's entry block and its first op: allocas go there */
  MlirOperation entry_first;
  bool in_helper;     /* emitting a helper function's body, not the kernel's */
  int nconsts;        /* i32 constants made once, at the top of the entry block */
  int64_t const_vals[256];
  MlirValue consts[256];
  struct BinMemo *memo; /* integer ops already emitted: (op, a, b) -> result */
  MlirLocation loc;     /* the tile op being lowered: what it becomes carries its source position */
  MlirOperation wg_async_dot; /* a pipelined loop's wgmma dot whose group stays in flight into the
                               * next iteration (wgmma.wait_group 1; lower_control.c) */
  struct TensorMap *maps; /* the kernel's tensor maps, its parameters after the others (lower_tma.c) */
  int nmaps;
  PtrVec *mbars;          /* the mbarrier buffers (their global's name attribute, then their count) */
  PtrVec *stores;         /* the TMA stores' boxes (their global's name attribute) */
  bool failed;
} Lower;

/* A binary integer op already emitted in `block`. */
typedef struct BinMemo {
  const char *name;
  const void *a, *b;
  MlirBlock block;
  MlirValue r;
} BinMemo;

#define MEMO_SLOTS 4096

/* The most elements one thread may hold of a tensor. Each is its own
 * registers and its own code, fully unrolled: LLVM's codegen grows with
 * the square of a block's code (vector add: 1.4 s at 128 elements per
 * thread, 70 s at 1024), ptxas worse, and past 255 registers a thread
 * spills. Triton takes minutes past 1024 too (bench/RESULTS.md). */
#define LW_MAX_THREAD_ELEMS 1024

typedef struct Elems {
  int rank, n;
  int64_t shape[MAX_RANK];
  int per[MAX_RANK];  /* elements per thread along each dim */
  Layout l;           /* the blocked layout (the parent for slices and dot operands) */
  int sliced;         /* the removed dim of a slice layout, else -1 */
  unsigned whole;     /* dims every thread holds whole (a dot operand's K): bit d */
  bool mma;           /* an mma.sync result (#tile.mma<2>): l is blocked-like, [2, 2] per thread of
                       * [8, 4] lanes, but a warp's two rows along M are 8 apart, in a part of 16 */
} Elems;

/* A value kept in shared memory, its elements read where they are used
 * (a dot operand: read at each step of K, so that a dot's operands are not
 * all live at once). */
typedef struct Lazy {
  MlirValue base;
  MlirType et, type;
  Elems e;
  int64_t pad;
  int mma_operand;    /* an operand of mma.sync (lower_mma.c): 1 for A, row-major [M][K + pad]; 2 for
                       * B transposed, [N][K + pad]; 3 for B row-major, [K][N + pad]; else 0, and the
                       * place is padded_index's */
  int per_phase, max_phase; /* an mma operand's swizzle (lower_mma.c); 0: none, rows padded */
  int wg_cols;        /* a wgmma operand's (lower_wgmma.c): the columns of one swizzle atom's width
                       * (128, 64 or 32 bytes), the buffer that many columns at a time; 0: not one */
  bool copied;        /* written by cp.async, which lands at a wait (lower_memory.c) */
  bool pipelined;     /* one of a pipelined loop's buffers, which the loop waits for */
  bool flipped;       /* an mma operand's buffer held by the transpose of a value of `type` (a load
                       * whose conversion goes through tl.trans); lw_mma_operand reads it as another
                       * operand type through lw_mma_view */
} Lazy;

/* Element k of x, read now if it is lazy and not read yet. */
MlirValue lw_val(Lower *L, Vals *x, int k);
/* Where element k of a lazy value lies in its buffer (in elements), and
 * how far apart the places of consecutive indices along dim d are. */
MlirValue lw_lazy_index(Lower *L, const Lazy *z, int k);
/* A conversion from es to ed through shared memory by words of up to 16
 * bytes both layouts hold in registers (lower_convert.c); false, emitting
 * nothing, where the layouts are not linear or share no such words. */
bool lw_convert_by_words(Lower *L, MlirType st, const Elems *es, Vals *in, MlirType rt, const Elems *ed, Vals *out);
/* x (of type t) in shared memory: x's own buffer when it is lazy, else a
 * new one it is written to. NULL when its layout is not one the lowering
 * knows. */
Lazy *lw_lazy_of(Lower *L, MlirType t, Vals *x);
int64_t lw_lazy_stride(const Lazy *z, int d);

/* A blocked layout, or a slice of one: what the lowerings that move
 * values between lanes and warps understand. A dot operand's layout holds
 * its K whole in every thread, so those lowerings go through shared memory
 * or say it is not supported. So does an MMA layout, whose rows are not
 * a blocked layout's. */
static inline bool lw_plain(const Elems *e) { return e->sliced < 0 && !e->whole && !e->mma; }

/* A loop the lowering makes, `scf.for %i = 0 to trips step 1` carrying n
 * values: begin_for moves the lowering into its body (iv and the carried
 * values are the body's arguments); end_for yields and puts the loop where
 * the lowering was, its results in `results`. */
typedef struct ForScope {
  MlirBlock body, block;
  MlirOperation term;
  int n;
  MlirType *types;
  MlirValue *init;
  int64_t trips;
} ForScope;
ForScope lw_begin_for(Lower *L, int64_t trips, int n, const MlirValue *init, MlirValue *iv, MlirValue *carried);
void lw_end_for(Lower *L, ForScope *s, const MlirValue *yields, MlirValue *results);

/* A per-thread `if (pred) { ... }`: begin_if moves the lowering into the
 * then block; end_if puts the scf.if where the lowering was, marked
 * tilec.divergent (no barrier may go inside). */
typedef struct IfScope {
  MlirBlock block;
  MlirOperation term;
  MlirRegion then_r;
  MlirValue pred;
} IfScope;

static inline MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

MlirValue lw_as_bits(Lower *L, MlirValue v);
IfScope lw_begin_if(Lower *L, MlirValue pred);
MlirValue lw_bin(Lower *L, const char *name, MlirValue a, MlirValue b);
int lw_bits_of(MlirType t);
int lw_block_ptr_rank(Lower *L, MlirType t);
MlirValue lw_call(Lower *L, const char *name, MlirType ret, int n, const MlirValue *args);
MlirOperation lw_call_op(Lower *L, const char *name, MlirType ret, int n, const MlirValue *args);
MlirValue lw_cmp_u32(Lower *L, int pred, MlirValue a, MlirValue b);
MlirValue lw_const_f32(Lower *L, double v);
MlirValue lw_const_i32(Lower *L, int64_t v);
MlirValue lw_const_like(Lower *L, MlirValue like, int64_t v); /* of like's integer type */
int lw_count_of(Lower *L, MlirType t);
void lw_counters(const Elems *e, int k, int *c);
void lw_declare(Lower *L, const char *name, MlirType ret, int nargs, const MlirType *args);
int lw_element_of(const Elems *e, const int *c);
void lw_index_at(const Elems *e, int tid, int k, int64_t *idx); /* thread tid's element k, at compile time */
bool lw_elems_of(Lower *L, MlirType t, Elems *e);
MlirOperation lw_emit(Lower *L, const char *name, int nres, const MlirType *res, int nops, const MlirValue *ops, int nattrs, const MlirNamedAttribute *attrs);
MlirValue lw_emit1(Lower *L, const char *name, MlirType t, int nops, const MlirValue *ops, int nattrs, const MlirNamedAttribute *attrs);
void lw_end_if(Lower *L, IfScope *s);
int lw_f8_bits(double v, int fmt, bool rtz);
int lw_f8_format(MlirType t);
void lw_fail(Lower *L, MlirOperation op, const char *msg);
bool lw_fast_math(Lower *L, MlirOperation op, MlirValue r, int n);
MlirValue lw_from_bits(Lower *L, MlirValue v, MlirType t);
Vals *lw_get(Lower *L, MlirValue v);
MlirType lw_i32(Lower *L);
MlirValue lw_index_of(Lower *L, const Elems *e, int k, int dim);
void lw_insert_op(Lower *L, MlirOperation op);
MlirValue lw_intrinsic(Lower *L, const char *name, MlirValue x);
bool lw_libdevice_math(Lower *L, MlirOperation op, MlirValue r, int n);
MlirValue lw_linear_index(Lower *L, const Elems *e, MlirType t, int k);
MlirValue lw_load_shared(Lower *L, MlirValue base, MlirType t, MlirValue idx);
void lw_lower_philox(Lower *L, MlirOperation op);
void lw_lower_inline_asm(Lower *L, MlirOperation op);
void lw_lower_assert(Lower *L, MlirOperation op);
void lw_lower_atomic(Lower *L, MlirOperation op, bool cas);
void lw_lower_convert(Lower *L, MlirOperation op);
bool lw_lower_f8(Lower *L, MlirOperation op, MlirValue r, int n);
void lw_lower_dot(Lower *L, MlirOperation op);
void lw_lower_mma(Lower *L, MlirOperation op);
void lw_lower_wgmma(Lower *L, MlirOperation op);
void lw_lower_tma_load(Lower *L, MlirOperation op);
void lw_lower_tma_store(Lower *L, MlirOperation op);
/* The kernel's tensor maps as its last parameters, in its type, and as
 * the attribute tilec.tensormaps the metadata reads (lower_tma.c). */
void lw_finish_tensor_maps(Lower *L, MlirOperation kernel);
/* A pipelined loop's descriptor load into its operand's slotted buffer
 * (lower_control.c): its mbarriers (one a slot) and the parity of each
 * slot's next phase; the copy of one iteration into slot `slot` by
 * thread 0 where guard holds; the wait for the copy of slot `slot`. */
typedef struct TmaSlots TmaSlots;
TmaSlots *lw_tma_slots(Lower *L, MlirOperation load, Lazy *buf, int slots, TmaSlots *share); /* share: the stage's first */
void lw_tma_to_slot(Lower *L, MlirOperation load, TmaSlots *t, MlirValue slot, MlirValue guard);
void lw_tma_wait_slot(Lower *L, TmaSlots *t, MlirValue slot);
/* Whether its copies go straight into the slots (a barrier before them). */
bool lw_tma_direct(const TmaSlots *t);
/* How a tensor-core operand lies in shared memory (Lazy.mma_operand). */
enum { MMA_A = 1, MMA_B_COLS = 2, MMA_B_ROWS = 3 };
/* Word i of an LLVM struct of i32s (an instruction's registers). */
MlirValue lw_extract_i32(Lower *L, MlirValue s, int i);
/* f16 accumulators travel as pairs in one 32-bit register, low first. */
MlirValue lw_pack_halves(Lower *L, MlirValue lo, MlirValue hi);
MlirValue lw_unpack_half(Lower *L, MlirValue w, int half, MlirType f16);
/* Whether src, in an MMA layout, becomes rt, operand A of a dot of that
 * layout, in registers: attention's P (lower_mma.c). */
bool lw_a_in_registers(Lower *L, MlirValue src, MlirType rt);
/* Whether a dot's A (its values va) is held in registers as that
 * conversion left it; *ea: the elements of the MMA layout it came from. */
bool lw_a_registers(Lower *L, MlirValue a, const Vals *va, Elems *ea);
Vals *lw_mma_operand(Lower *L, MlirValue src, MlirType rt);
/* The shared buffer of a tensor-core operand of type rt (`slots` of
 * them); kn: a 16-bit B laid [N][K], as a load of its transpose copies it. */
Lazy *lw_mma_buffer(Lower *L, MlirType rt, int slots, bool kn);
Lazy *lw_mma_slot(Lower *L, const Lazy *buf, MlirValue slot);
/* The dims of z's type that are its buffer's rows and columns. */
void lw_mma_dims(const Lazy *z, int *rd, int *cd);
/* The buffer z holds read as operand type rt (a dot_op layout of an MMA
 * layout) of the value z is held by: the same memory, its rows and columns
 * named in rt's terms. NULL when rt cannot read it so. */
Lazy *lw_mma_view(Lower *L, const Lazy *z, MlirType rt);
void lw_load_to_slot(Lower *L, MlirOperation load, Lazy *slot, MlirValue guard);
/* A load a pipelined loop without a dot prefetches (lower_memory.c): its
 * buffer of `slots` slots in shared memory, its copy into a slot where
 * guard holds, and its value read back from a slot. */
typedef struct Prefetch Prefetch;
Prefetch *lw_prefetch_buffer(Lower *L, MlirOperation load, int slots);
void lw_prefetch_to_slot(Lower *L, MlirOperation load, const Prefetch *b, MlirValue slot, MlirValue guard);
Vals *lw_prefetched(Lower *L, const Prefetch *b, MlirValue slot);
/* Two 16-bit floats as one 32-bit word, the first in the low half, built
 * as a vector so that LLVM converts a pair from f32 by one cvt.rn.f16x2.f32
 * (lower_memory.c). */
MlirValue lw_pack_pair(Lower *L, MlirValue a, MlirValue b);
MlirValue lw_mma_place(Lower *L, const Lazy *z, const Elems *e, int k, bool trans); /* trans: e is of the operand transposed */
void lw_lower_load_store(Lower *L, MlirOperation op, bool is_load);
void lw_load_guarded(Lower *L, MlirOperation load, MlirValue guard);
void lw_lower_op(Lower *L, MlirOperation op);
void lw_lower_print(Lower *L, MlirOperation op);
void lw_lower_reduce(Lower *L, MlirOperation op);
void lw_lower_scan(Lower *L, MlirOperation op);
void lw_lower_scf(Lower *L, MlirOperation op);
void lw_lower_shape(Lower *L, MlirOperation op, TileOp t);
MlirNamedAttribute lw_named(Lower *L, const char *name, MlirAttribute a);
Vals *lw_new_vals(Lower *L, int n);
int64_t lw_numel_of(MlirType t);
MlirValue lw_owns(Lower *L, const Elems *e, int k);
MlirValue lw_holder(Lower *L, const Elems *e, int k);
MlirValue lw_pick(Lower *L, MlirValue c, MlirValue a, MlirValue b);
void lw_put(Lower *L, MlirValue v, Vals *x);
MlirType lw_scalar_of(Lower *L, MlirType t);
/* A global of the kernel's module (@name, with attrs), at its top; its
 * address in addr_space. */
MlirValue lw_global(Lower *L, const char *name, const MlirNamedAttribute *attrs, int nattrs, unsigned addr_space);
MlirValue lw_shared_buffer(Lower *L, MlirType t, int64_t n);
/* The same, its place a multiple of align bytes (a power of two, 16 or more). */
MlirValue lw_shared_buffer_aligned(Lower *L, MlirType t, int64_t n, int align);
/* The address of element idx (of type t) of a shared buffer, and the tag
 * that names the buffer an access (a load, a store, an ldmatrix) uses. */
MlirValue lw_shared_at(Lower *L, MlirValue base, MlirType t, MlirValue idx);
void lw_tag_smem(Lower *L, MlirOperation access, MlirValue base);
MlirValue lw_smem_get(Lower *L, MlirValue base, MlirType et, MlirValue idx);
void lw_smem_put(Lower *L, MlirValue base, MlirType et, MlirValue idx, MlirValue v);
MlirType lw_smem_type(Lower *L, MlirType et);
void lw_store_shared(Lower *L, MlirValue base, MlirType t, MlirValue idx, MlirValue v);
void lw_store_shared_at_if(Lower *L, MlirValue base, MlirType t, MlirValue idx, MlirValue pred, MlirValue v);
void lw_store_shared_if(Lower *L, MlirValue base, MlirType t, MlirValue pred, MlirValue v);

#endif
