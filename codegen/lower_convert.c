/*
 * lower_convert.c — a layout conversion through shared memory by vectors.
 *
 * Where a tensor's dimensions, its elements per thread and the block's
 * threads are powers of two, a layout is a linear map over GF(2): the bits
 * of a register's number, of the lane and of the warp each move an element's
 * row-major index by a fixed set of bits, XOR-ed together. Read that way,
 * the elements that both the writing and the reading thread hold in
 * registers (a basis common to the two layouts' registers, the MMA
 * accumulator's column pair and its rows 8 apart, say, against a store
 * layout that repeats along the rows) can go through shared memory as one
 * word of up to 16 bytes: one vector store, one vector load, where
 * element-by-element conversion makes one access per element or pair.
 * The words are swizzled, the low bits of a word's number XOR-ed with
 * higher bits, so that the lanes one shared-memory access serves at a time
 * fall on different banks on both sides. Where the reader holds no such
 * word but its elements are 16-bit, it reads the writer's 16-byte words by
 * ldmatrix, each lane a 32-bit piece of four of them. This is how Triton converts
 * layouts (its linear layouts and their swizzled shared layouts); the
 * padded, element-by-element conversion of lower_shared.c remains for the
 * rest.
 */
#include "lower.h"

#define LIN_BITS 24

/* Thread t's element k, each basis image a row-major index of the tensor. */
typedef struct Linear {
  int nreg, nthread;                            /* bits of a register number; of a thread id (lane, then warp) */
  uint32_t reg[LIN_BITS], thread[LIN_BITS];
} Linear;

static bool pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

static int log2i(int64_t x) {
  int b = 0;
  while ((int64_t)1 << b < x) b++;
  return b;
}

/* The row-major index in a tensor of type t of thread tid's element k. */
static uint32_t flat_of(const Elems *e, MlirType t, int tid, int k) {
  int64_t full[MAX_RANK];
  lw_index_at(e, tid, k, full);
  uint32_t flat = 0;
  for (int d = 0, td = 0; d < e->rank; d++) {
    if (d == e->sliced) continue;
    flat = (uint32_t)(flat * mlirShapedTypeGetDimSize(t, td++) + full[d]);
  }
  return flat;
}

/* e (of a tensor of type t) as a linear map, if it is one: every basis
 * image one bit of the index or none (a replica), those of the registers
 * all different. */
static bool linear_of(const Elems *e, MlirType t, int threads, Linear *m) {
  if (e->whole || !pow2(e->n) || !pow2(threads) || lw_numel_of(t) > (1 << LIN_BITS)) return false;
  for (int d = 0; d < mlirShapedTypeGetRank(t); d++)
    if (!pow2(mlirShapedTypeGetDimSize(t, d))) return false;
  if ((int64_t)threads * e->n > (1 << 20) || flat_of(e, t, 0, 0) != 0) return false;
  m->nreg = log2i(e->n);
  m->nthread = log2i(threads);
  uint32_t seen = 0;
  for (int i = 0; i < m->nreg; i++) {
    m->reg[i] = flat_of(e, t, 0, 1 << i);
    if (m->reg[i] & (m->reg[i] - 1) || m->reg[i] & seen) return false;
    seen |= m->reg[i];
  }
  for (int i = 0; i < m->nthread; i++) {
    m->thread[i] = flat_of(e, t, 1 << i, 0);
    if (m->thread[i] & (m->thread[i] - 1)) return false;
  }
  for (int tid = 0; tid < threads; tid++) {
    uint32_t th = 0;
    for (int i = 0; i < m->nthread; i++)
      if (tid >> i & 1) th ^= m->thread[i];
    for (int k = 0; k < e->n; k++) {
      uint32_t f = th;
      for (int i = 0; i < m->nreg; i++)
        if (k >> i & 1) f ^= m->reg[i];
      if (f != flat_of(e, t, tid, k)) return false;
    }
  }
  return true;
}

/* Where the elements go: bit j < vbits of an element's place (in
 * elements) is its index's bit vec[j]; the index's other bits follow in
 * order as the word's number, whose low bank_bits are XOR-ed with
 * swz[p] for each higher bit p of it that is set. */
typedef struct Placing {
  int vbits, nbits, bank_bits;
  uint32_t vec[4], vmask;
  int pos[LIN_BITS];       /* index bit -> bit of the word's number; -1 for the vector's */
  uint32_t swz[LIN_BITS];  /* by word bit */
} Placing;

/* The place (in elements) of the element at row-major index f. */
static uint32_t place_of(const Placing *p, uint32_t f) {
  uint32_t off = 0;
  for (int b = 0; b < p->nbits; b++) {
    if (!(f >> b & 1)) continue;
    int q = p->pos[b];
    if (q < 0) {
      for (int j = 0; j < p->vbits; j++)
        if (p->vec[j] == 1u << b) off ^= 1u << j;
    } else {
      off ^= (1u << q | p->swz[q]) << p->vbits;
    }
  }
  return off;
}

/* Bank bits the word bits of a side's lanes that share an access already
 * take; swizzles the others' onto free ones. */
static void swizzle_side(Placing *p, const Linear *x, int lanes, uint32_t *used, const Linear *y, uint32_t *used_y) {
  for (int i = 0; i < lanes; i++) {
    uint32_t f = x->thread[i];
    if (!f || f & p->vmask) continue;
    int q = p->pos[log2i(f)];
    if (q < p->bank_bits) continue;
    if (p->swz[q]) {
      *used |= p->swz[q];
      continue;
    }
    bool in_y = false;
    for (int j = 0; j < lanes; j++) in_y |= y->thread[j] == f;
    for (int b = 0; b < p->bank_bits; b++) {
      uint32_t c = 1u << b;
      if (*used & c || (in_y && *used_y & c)) continue;
      p->swz[q] = c;
      *used |= c;
      if (in_y) *used_y |= c;
      break;
    }
  }
}

/* The bank bits the lanes of an access take without a swizzle. */
static uint32_t low_banks(const Placing *p, const Linear *x, int lanes) {
  uint32_t used = 0;
  for (int i = 0; i < lanes; i++) {
    uint32_t f = x->thread[i];
    if (!f || f & p->vmask) continue;
    int q = p->pos[log2i(f)];
    if (q < p->bank_bits) used |= 1u << q;
  }
  return used;
}

/* The placing of the elements for writes by w and reads by r (each the map
 * from a thread's id and a register's number to the element its access
 * reaches), with words of the vbits elements' bits vec when given, else of
 * the bits both sides' registers hold (up to 16 bytes; false when that is
 * less). */
static bool plan(const Linear *w, const Linear *r, int64_t numel, int bytes, const uint32_t *vec, int vbits, Placing *p) {
  memset(p, 0, sizeof *p);
  p->nbits = log2i(numel);
  for (int j = 0; j < vbits; j++) {
    p->vec[p->vbits++] = vec[j];
    p->vmask |= vec[j];
  }
  uint32_t held = 0; /* bits some thread id moves: no word's */
  for (int i = 0; i < w->nthread; i++) held |= w->thread[i] | r->thread[i];
  int max_v = log2i(16 / bytes);
  for (int i = 0; i < w->nreg && p->vbits < max_v && !vbits; i++) {
    uint32_t f = w->reg[i];
    if (!f || f & held) continue;
    for (int j = 0; j < r->nreg; j++)
      if (r->reg[j] == f) {
        p->vec[p->vbits++] = f;
        p->vmask |= f;
        break;
      }
  }
  int unit = bytes << p->vbits;
  if (unit < 16) return false; /* narrower words cost more in addresses and moves than the padded conversion saves */
  for (int b = 0, q = 0; b < p->nbits; b++) p->pos[b] = p->vmask >> b & 1 ? -1 : q++;
  int words = p->nbits - p->vbits;
  p->bank_bits = log2i(128 / unit);
  if (p->bank_bits > words) p->bank_bits = words;
  /* an access of 8 bytes a lane serves 16 lanes at a time, of 16 bytes 8 */
  int lanes = unit >= 16 ? 3 : 4;
  uint32_t used_w = low_banks(p, w, lanes), used_r = low_banks(p, r, lanes);
  swizzle_side(p, w, lanes, &used_w, r, &used_r);
  swizzle_side(p, r, lanes, &used_r, w, &used_w);
  return true;
}

/* A side's thread part of its places: for each bit of the thread id, the
 * place of its basis image when the bit is set, XOR-ed together. Computed
 * by the shift each (thread bit, place bit) pair needs: all the thread's
 * bits that move by one shift are one mask and one shift. */
static MlirValue thread_place(Lower *L, const Placing *p, const Linear *x) {
  uint32_t mask[2 * LIN_BITS + 1] = {0}; /* by shift + LIN_BITS */
  for (int i = 0; i < x->nthread; i++) {
    uint32_t c = place_of(p, x->thread[i]);
    for (int j = 0; j < LIN_BITS; j++)
      if (c >> j & 1) mask[j - i + LIN_BITS] |= 1u << i;
  }
  MlirValue off = (MlirValue){NULL};
  for (int s = 0; s <= 2 * LIN_BITS; s++) {
    if (!mask[s]) continue;
    MlirValue part = lw_bin(L, "arith.andi", L->tid, lw_const_i32(L, mask[s]));
    if (s > LIN_BITS) part = lw_bin(L, "arith.shli", part, lw_const_i32(L, s - LIN_BITS));
    if (s < LIN_BITS) part = lw_bin(L, "arith.shrui", part, lw_const_i32(L, LIN_BITS - s));
    off = off.ptr ? lw_bin(L, "arith.xori", off, part) : part;
  }
  return off.ptr ? off : lw_const_i32(L, 0);
}

static uint32_t reg_part(const Linear *x, int k) {
  uint32_t f = 0;
  for (int i = 0; i < x->nreg; i++)
    if (k >> i & 1) f ^= x->reg[i];
  return f;
}

/* The registers of a word's first element (none of its vector bits and no
 * replica's bit set) and, for each vector element j, the bits that make
 * its register from the first's. */
static bool word_regs(const Placing *p, const Linear *x, int *vreg, int *skip) {
  *skip = 0;
  for (int i = 0; i < x->nreg; i++)
    if (!x->reg[i]) *skip |= 1 << i;
  for (int j = 0; j < p->vbits; j++) {
    vreg[j] = -1;
    for (int i = 0; i < x->nreg; i++)
      if (x->reg[i] == p->vec[j]) vreg[j] = i;
    if (vreg[j] < 0) return false;
    *skip |= 1 << vreg[j];
  }
  return true;
}

static int reg_of(const Placing *p, const int *vreg, int k0, int j) {
  for (int b = 0; b < p->vbits; b++)
    if (j >> b & 1) k0 |= 1 << vreg[b];
  return k0;
}

/* The bits a side's thread part of a place may have set. */
static uint32_t thread_bits(const Placing *p, const Linear *x) {
  uint32_t m = 0;
  for (int i = 0; i < x->nthread; i++) m |= place_of(p, x->thread[i]);
  return m;
}

/* The place thread ^ c: XOR-ed only in the bits the thread part may have
 * (a few distinct bases, made once each), added in the others (an offset
 * the load or store carries). */
static MlirValue word_at(Lower *L, MlirValue base, MlirType mt, MlirValue thread, uint32_t tbits, uint32_t c) {
  MlirValue at = thread;
  if (c & tbits) at = lw_bin(L, "arith.xori", at, lw_const_i32(L, c & tbits));
  if (c & ~tbits) at = lw_bin(L, "arith.addi", at, lw_const_i32(L, c & ~tbits));
  return lw_shared_at(L, base, mt, at);
}

/* The register of x whose image is f, or -1. */
static int reg_with(const Linear *x, uint32_t f) {
  for (int i = 0; i < x->nreg; i++)
    if (f && x->reg[i] == f) return i;
  return -1;
}

/* Reading 16-bit elements by ldmatrix (Triton's form where a reading
 * thread holds no 16-byte word of the writer's): lane l of the reader gets,
 * of each 8x8 matrix, the 32-bit piece l % 4 of its row l / 4, a 16-byte
 * word. So a word holds a pair (a register bit both sides have, v0) times
 * the images of the reader's lane bits 0 and 1, which the writer must hold
 * in registers; the reader's lane bits 2-4 pick the row, two more of its
 * register bits the matrix. ra is the map the addresses follow: lane L of
 * the ldmatrix gives the row L % 8 of matrix L / 8. */
typedef struct LdmPlan {
  Linear ra;
  uint32_t vec[3];
  int v0, m[2], nm; /* the reader's registers: the pair's, the matrices' */
} LdmPlan;

static bool plan_ldmatrix(const Linear *w, const Linear *r, LdmPlan *q) {
  if (r->nthread < 5) return false;
  memset(q, 0, sizeof *q);
  uint32_t v1 = r->thread[0], v2 = r->thread[1];
  if (reg_with(w, v1) < 0 || reg_with(w, v2) < 0 || v1 == v2) return false;
  q->v0 = -1;
  for (int i = 0; i < r->nreg && q->v0 < 0; i++)
    if (r->reg[i] && reg_with(w, r->reg[i]) >= 0 && r->reg[i] != v1 && r->reg[i] != v2) q->v0 = i;
  if (q->v0 < 0) return false;
  q->vec[0] = r->reg[q->v0], q->vec[1] = v1, q->vec[2] = v2;
  uint32_t word = q->vec[0] | v1 | v2;
  for (int i = 2; i < 5; i++)
    if (r->thread[i] & word) return false;
  for (int i = 0; i < r->nreg && q->nm < 2; i++)
    if (i != q->v0 && r->reg[i] && !(r->reg[i] & word)) q->m[q->nm++] = i;
  if (q->nm < 2) return false; /* an x4 per 8 elements, or not worth it */
  q->ra = *r;
  q->ra.thread[0] = r->thread[2], q->ra.thread[1] = r->thread[3], q->ra.thread[2] = r->thread[4];
  q->ra.thread[3] = r->reg[q->m[0]], q->ra.thread[4] = r->reg[q->m[1]];
  /* a word's place is 16-byte aligned: no address part may move its bits */
  for (int i = 0; i < q->ra.nthread; i++)
    if (q->ra.thread[i] & word) return false;
  for (int i = 0; i < r->nreg; i++)
    if (i != q->v0 && r->reg[i] & word) return false;
  return true;
}

static MlirValue i64_const(Lower *L, int64_t v) {
  MlirType i64 = mlirIntegerTypeGet(L->ctx, 64);
  return lw_emit1(L, "llvm.mlir.constant", i64, 0, NULL, 1, (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(i64, v))});
}

/* The reads of a conversion by ldmatrix.x4, into out. */
static void read_by_ldmatrix(Lower *L, const Placing *p, const LdmPlan *q, const Linear *r, MlirValue base, MlirType mt,
                             int n, Vals *out) {
  MlirValue th = thread_place(L, p, &q->ra);
  uint32_t tbits = thread_bits(p, &q->ra);
  int skip = 1 << q->v0 | 1 << q->m[0] | 1 << q->m[1];
  for (int i = 0; i < r->nreg; i++)
    if (!r->reg[i]) skip |= 1 << i;
  MlirType i32 = lw_i32(L), st = mlirLLVMStructTypeLiteralGet(L->ctx, 4, (MlirType[]){i32, i32, i32, i32}, false);
  MlirType pair = mlirVectorTypeGet(1, (int64_t[]){2}, mt);
  for (int k0 = 0; k0 < n; k0++) {
    if (k0 & skip) continue;
    MlirValue at = word_at(L, base, mt, th, tbits, place_of(p, reg_part(r, k0)));
    MlirOperation call = lw_call_op(L, "tilec.ldmatrix.x4.b16", st, 1, &at);
    lw_tag_smem(L, call, base);
    for (int j = 0; j < 4; j++) {
      MlirNamedAttribute pos = lw_named(L, "position", mlirDenseI64ArrayGet(L->ctx, 1, (int64_t[]){j}));
      MlirValue wj = lw_emit1(L, "llvm.extractvalue", i32, 1, (MlirValue[]){mlirOperationGetResult(call, 0)}, 1, &pos);
      MlirValue v2 = lw_emit1(L, "llvm.bitcast", pair, 1, &wj, 0, NULL);
      int k = k0 | (j & 1 ? 1 << q->m[0] : 0) | (j & 2 ? 1 << q->m[1] : 0);
      for (int h = 0; h < 2; h++)
        out->v[k | (h ? 1 << q->v0 : 0)] = lw_emit1(L, "llvm.extractelement", mt, 2, (MlirValue[]){v2, i64_const(L, h)}, 0, NULL);
    }
  }
}

bool lw_convert_by_words(Lower *L, MlirType st, const Elems *es, Vals *in, MlirType rt, const Elems *ed, Vals *out) {
  int threads = L->comp->num_warps * L->comp->threads_per_warp;
  Linear w, r;
  if (!linear_of(es, st, threads, &w) || !linear_of(ed, rt, threads, &r)) return false;
  MlirType et = lw_scalar_of(L, rt), mt = lw_smem_type(L, et);
  int bytes = mlirTypeIsALLVMPointerType(et) ? 8 : (lw_bits_of(mt) + 7) / 8;
  if (bytes > 8 || !pow2(bytes)) return false;
  Placing p;
  LdmPlan q;
  int wreg[4], rreg[4], wskip, rskip;
  bool ldm = false;
  if (!plan(&w, &r, lw_numel_of(rt), bytes, NULL, 0, &p) || !word_regs(&p, &r, rreg, &rskip)) {
    /* no 16-byte word both hold: 16-bit elements may still be read by ldmatrix */
    ldm = bytes == 2 && !mlirTypeIsALLVMPointerType(et) && plan_ldmatrix(&w, &r, &q) &&
          plan(&w, &q.ra, lw_numel_of(rt), bytes, q.vec, 3, &p);
    if (!ldm) return false;
  }
  if (!word_regs(&p, &w, wreg, &wskip)) return false;
  int n = 1 << p.vbits;
  MlirType vt = mlirVectorTypeGet(1, (int64_t[]){n}, mt), i64 = mlirIntegerTypeGet(L->ctx, 64);
  MlirNamedAttribute align = lw_named(L, "alignment", mlirIntegerAttrGet(i64, (int64_t)bytes * n));
  MlirValue base = lw_shared_buffer(L, mt, lw_numel_of(rt));
  MlirValue wt = thread_place(L, &p, &w);
  for (int k0 = 0; k0 < es->n; k0++) {
    if (k0 & wskip) continue;
    MlirValue vec = lw_emit1(L, "llvm.mlir.undef", vt, 0, NULL, 0, NULL);
    for (int j = 0; j < n; j++) {
      MlirValue v = lw_val(L, in, reg_of(&p, wreg, k0, j));
      if (mlirTypeIsALLVMPointerType(et)) v = lw_emit1(L, "llvm.ptrtoint", mt, 1, &v, 0, NULL);
      else if (!mlirTypeEqual(mt, et)) v = lw_emit1(L, "arith.extui", mt, 1, &v, 0, NULL);
      MlirValue at = lw_emit1(L, "llvm.mlir.constant", i64, 0, NULL, 1,
                              (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(i64, j))});
      vec = lw_emit1(L, "llvm.insertelement", vt, 3, (MlirValue[]){vec, v, at}, 0, NULL);
    }
    MlirValue sv[2] = {vec, word_at(L, base, mt, wt, thread_bits(&p, &w), place_of(&p, reg_part(&w, k0)))};
    lw_tag_smem(L, lw_emit(L, "llvm.store", 0, NULL, 2, sv, 1, &align), base);
  }
  if (ldm) {
    read_by_ldmatrix(L, &p, &q, &r, base, mt, ed->n, out);
    return true;
  }
  MlirValue rth = thread_place(L, &p, &r);
  for (int k0 = 0; k0 < ed->n; k0++) {
    if (k0 & rskip) continue;
    MlirValue at = word_at(L, base, mt, rth, thread_bits(&p, &r), place_of(&p, reg_part(&r, k0)));
    MlirOperation ld = lw_emit(L, "llvm.load", 1, &vt, 1, &at, 1, &align);
    lw_tag_smem(L, ld, base);
    for (int j = 0; j < n; j++) {
      MlirValue idx = lw_emit1(L, "llvm.mlir.constant", i64, 0, NULL, 1,
                               (MlirNamedAttribute[]){lw_named(L, "value", mlirIntegerAttrGet(i64, j))});
      MlirValue v = lw_emit1(L, "llvm.extractelement", mt, 2, (MlirValue[]){mlirOperationGetResult(ld, 0), idx}, 0, NULL);
      if (mlirTypeIsALLVMPointerType(et)) v = lw_emit1(L, "llvm.inttoptr", et, 1, &v, 0, NULL);
      else if (!mlirTypeEqual(mt, et)) v = lw_emit1(L, "arith.trunci", et, 1, &v, 0, NULL);
      out->v[reg_of(&p, rreg, k0, j)] = v;
    }
  }
  /* a replica's register: the value of the one without its bits */
  int replicas = 0;
  for (int i = 0; i < r.nreg; i++)
    if (!r.reg[i]) replicas |= 1 << i;
  for (int k = 0; k < ed->n; k++)
    if (k & replicas) out->v[k] = out->v[k & ~replicas];
  return true;
}
