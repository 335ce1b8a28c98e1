/*
 * tma.c — tensor maps and cp.async.bulk.tensor's tiled copies (tma.h).
 *
 * The encoding, little-endian:
 *   0   address (8 bytes)        8   dims[5] (8 bytes each)
 *   48  strides[1..4] (8 each)   80  box[5] (2 bytes each)
 *   90  estrides[5] (1 each)     95  rank
 *   96  type, swizzle, interleave, oob fill, L2 promotion (1 each)
 *   124 the mark "TMAP"; the rest zero.
 */
#include "tma.h"

#include <string.h>

static const unsigned char mark[4] = {'T', 'M', 'A', 'P'};

int emu_tma_elem_bytes(EmuTmaType t) {
  switch (t) {
  case EMU_TMA_U8: return 1;
  case EMU_TMA_U16:
  case EMU_TMA_F16:
  case EMU_TMA_BF16: return 2;
  case EMU_TMA_U32:
  case EMU_TMA_I32:
  case EMU_TMA_F32:
  case EMU_TMA_F32_FTZ:
  case EMU_TMA_TF32:
  case EMU_TMA_TF32_FTZ: return 4;
  case EMU_TMA_U64:
  case EMU_TMA_I64:
  case EMU_TMA_F64: return 8;
  }
  return 0;
}

static bool is_float(EmuTmaType t) { return t >= EMU_TMA_F16; }

static bool check(const EmuTensorMap *m, const char **why) {
  int eb = emu_tma_elem_bytes(m->type);
  if (!eb) return (*why = "the data type is not one of CUtensorMapDataType's whole-byte types"), false;
  if (m->rank < 1 || m->rank > 5) return (*why = "the rank must be 1 to 5"), false;
  if (m->address % 16) return (*why = "the global address must be 16-byte aligned"), false;
  if (m->interleave) return (*why = "interleaved layouts are not modelled (interleave must be NONE)"), false;
  if (m->swizzle < 0 || m->swizzle > 3) return (*why = "the swizzle must be NONE, 32B, 64B or 128B (the 128B atom modes are sm_100's)"), false;
  if (m->oob_nan && !is_float(m->type)) return (*why = "a NaN fill needs a floating-point data type"), false;
  for (int d = 0; d < m->rank; d++) {
    if (m->dims[d] < 1 || m->dims[d] > ((uint64_t)1 << 32)) return (*why = "each globalDim must be 1 to 2^32"), false;
    if (m->box[d] < 1 || m->box[d] > 256) return (*why = "each boxDim must be 1 to 256"), false;
    if (m->estrides[d] < 1 || m->estrides[d] > 8) return (*why = "each elementStride must be 1 to 8"), false;
    if (d >= 1 && (m->strides[d] % 16 || m->strides[d] >= ((uint64_t)1 << 40)))
      return (*why = "each globalStride must be a multiple of 16 below 2^40"), false;
  }
  uint64_t bytes = (uint64_t)eb;
  for (int d = 0; d < m->rank; d++) bytes *= (m->box[d] + (d ? m->estrides[d] : 1) - 1) / (d ? m->estrides[d] : 1);
  if (bytes > ((uint64_t)1 << 24)) return (*why = "the box has more bytes than shared memory holds"), false;
  uint64_t inner = (uint64_t)m->box[0] * (uint64_t)eb;
  if (inner % 16) return (*why = "the box's inner dimension (boxDim[0] x element size) must be a multiple of 16 bytes"), false;
  if (m->swizzle && inner > (16u << m->swizzle))
    return (*why = "the box's inner dimension must be no wider than the swizzle's span"), false;
  return true;
}

static void put(unsigned char *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

bool emu_tma_encode(const EmuTensorMap *m, unsigned char out[EMU_TMA_BYTES], const char **why) {
  if (!check(m, why)) return false;
  memset(out, 0, EMU_TMA_BYTES);
  put(out, m->address, 8);
  for (int d = 0; d < 5; d++) {
    bool in = d < m->rank;
    put(out + 8 + 8 * d, in ? m->dims[d] : 0, 8);
    if (d >= 1) put(out + 48 + 8 * (d - 1), in ? m->strides[d] : 0, 8);
    put(out + 80 + 2 * d, in ? m->box[d] : 0, 2);
    out[90 + d] = (unsigned char)(in ? m->estrides[d] : 0);
  }
  out[95] = (unsigned char)m->rank;
  out[96] = (unsigned char)m->type, out[97] = (unsigned char)m->swizzle, out[98] = (unsigned char)m->interleave;
  out[99] = (unsigned char)m->oob_nan, out[100] = (unsigned char)m->l2_promotion;
  memcpy(out + 124, mark, 4);
  return true;
}

bool emu_tma_decode(const unsigned char in[EMU_TMA_BYTES], EmuTensorMap *m, const char **why) {
  if (memcmp(in + 124, mark, 4)) return (*why = "the 128 bytes are not a tensor map the emulator encoded"), false;
  memset(m, 0, sizeof *m);
  m->address = get(in, 8);
  m->rank = in[95];
  m->type = (EmuTmaType)in[96], m->swizzle = in[97], m->interleave = in[98], m->oob_nan = in[99], m->l2_promotion = in[100];
  for (int d = 0; d < 5 && d < m->rank; d++) {
    m->dims[d] = get(in + 8 + 8 * d, 8);
    if (d >= 1) m->strides[d] = get(in + 48 + 8 * (d - 1), 8);
    m->box[d] = (uint32_t)get(in + 80 + 2 * d, 2);
    m->estrides[d] = in[90 + d];
  }
  return check(m, why);
}

uint32_t emu_tma_box_elems(const EmuTensorMap *m, int d) {
  if (d >= m->rank) return 1;
  uint32_t s = d ? m->estrides[d] : 1; /* dimension 0's stride is ignored */
  return (m->box[d] + s - 1) / s;
}

uint32_t emu_tma_box_bytes(const EmuTensorMap *m) {
  uint32_t n = (uint32_t)emu_tma_elem_bytes(m->type);
  for (int d = 0; d < m->rank; d++) n *= emu_tma_box_elems(m, d);
  return n;
}

uint32_t emu_tma_smem_offset(const EmuTensorMap *m, uint32_t dst, const uint32_t idx[5]) {
  uint32_t lin = 0;
  for (int d = m->rank - 1; d >= 0; d--) lin = lin * emu_tma_box_elems(m, d) + idx[d];
  uint32_t a = dst + lin * (uint32_t)emu_tma_elem_bytes(m->type);
  if (m->swizzle) a ^= (a >> 3) & ((((16u << m->swizzle) / 16) - 1) << 4);
  return a;
}

/* The box's rows (dimension 0 runs) one after another: calls fn for each
 * with its box index (idx[0] = 0) and its global coordinates. */
typedef bool (*RowFn)(const EmuTensorMap *m, const uint32_t idx[5], const int64_t g[5], uint32_t at, const EmuTmaMemory *mem,
                      const char **why);

static bool each_row(const EmuTensorMap *m, const int32_t coords[5], uint32_t at, const EmuTmaMemory *mem, RowFn fn, const char **why) {
  uint32_t n[5], idx[5] = {0};
  uint64_t rows = 1;
  for (int d = 0; d < 5; d++) n[d] = emu_tma_box_elems(m, d);
  for (int d = 1; d < m->rank; d++) rows *= n[d];
  for (uint64_t r = 0; r < rows; r++) {
    uint64_t rest = r;
    int64_t g[5] = {coords[0], 0, 0, 0, 0};
    for (int d = 1; d < m->rank; d++) {
      idx[d] = (uint32_t)(rest % n[d]);
      rest /= n[d];
      g[d] = (int64_t)coords[d] + (int64_t)idx[d] * m->estrides[d];
    }
    if (!fn(m, idx, g, at, mem, why)) return false;
  }
  return true;
}

/* Whether the row's outer coordinates are inside the tensor. */
static bool row_inside(const EmuTensorMap *m, const int64_t g[5]) {
  for (int d = 1; d < m->rank; d++)
    if (g[d] < 0 || (uint64_t)g[d] >= m->dims[d]) return false;
  return true;
}

static uint64_t address_of(const EmuTensorMap *m, const int64_t g[5], int64_t x0) {
  uint64_t a = m->address + (uint64_t)x0 * (uint64_t)emu_tma_elem_bytes(m->type);
  for (int d = 1; d < m->rank; d++) a += (uint64_t)g[d] * m->strides[d];
  return a;
}

/* The fill of an element outside the tensor: zeros, or the type's quiet NaN. */
static void fill_of(const EmuTensorMap *m, unsigned char *out) {
  int eb = emu_tma_elem_bytes(m->type);
  memset(out, 0, (size_t)eb);
  if (!m->oob_nan) return;
  uint64_t nan = m->type == EMU_TMA_F16 ? 0x7e00 : m->type == EMU_TMA_BF16 ? 0x7fc0 : m->type == EMU_TMA_F64 ? 0x7ff8000000000000ull : 0x7fc00000;
  put(out, nan, eb);
}

static bool load_row(const EmuTensorMap *m, const uint32_t idx0[5], const int64_t g[5], uint32_t dst, const EmuTmaMemory *mem,
                     const char **why) {
  int eb = emu_tma_elem_bytes(m->type);
  uint32_t n0 = m->box[0], idx[5];
  memcpy(idx, idx0, sizeof idx);
  unsigned char row[256 * 8], fill[8];
  fill_of(m, fill);
  for (uint32_t i = 0; i < n0; i++) memcpy(row + i * (uint32_t)eb, fill, (size_t)eb);
  if (row_inside(m, g)) {
    /* the elements of the row inside dimension 0, read as one run */
    int64_t lo = g[0] < 0 ? 0 : g[0], hi = g[0] + (int64_t)n0;
    if (hi > (int64_t)m->dims[0]) hi = (int64_t)m->dims[0];
    if (lo < hi && !mem->read_global(mem->ctx, address_of(m, g, lo), row + (lo - g[0]) * eb, (uint32_t)((hi - lo) * eb)))
      return (*why = "a read of the tensor failed"), false;
  }
  /* 16 bytes at a time: a swizzle moves whole 16-byte chunks */
  for (uint32_t i = 0; i < n0; i += 16 / (uint32_t)eb) {
    idx[0] = i;
    if (!mem->write_smem(mem->ctx, emu_tma_smem_offset(m, dst, idx), row + i * (uint32_t)eb, 16))
      return (*why = "a write of shared memory failed"), false;
  }
  return true;
}

static bool store_row(const EmuTensorMap *m, const uint32_t idx0[5], const int64_t g[5], uint32_t src, const EmuTmaMemory *mem,
                      const char **why) {
  int eb = emu_tma_elem_bytes(m->type);
  uint32_t n0 = m->box[0], idx[5];
  memcpy(idx, idx0, sizeof idx);
  unsigned char row[256 * 8];
  for (uint32_t i = 0; i < n0; i += 16 / (uint32_t)eb) {
    idx[0] = i;
    if (!mem->read_smem(mem->ctx, emu_tma_smem_offset(m, src, idx), row + i * (uint32_t)eb, 16))
      return (*why = "a read of shared memory failed"), false;
  }
  if (!row_inside(m, g)) return true;
  int64_t lo = g[0] < 0 ? 0 : g[0], hi = g[0] + (int64_t)n0;
  if (hi > (int64_t)m->dims[0]) hi = (int64_t)m->dims[0];
  if (lo < hi && !mem->write_global(mem->ctx, address_of(m, g, lo), row + (lo - g[0]) * eb, (uint32_t)((hi - lo) * eb)))
    return (*why = "a write of the tensor failed"), false;
  return true;
}

static bool destination_ok(const EmuTensorMap *m, uint32_t at, const char **why) {
  /* the ISA asks 128-byte alignment of the shared box; the swizzle's
   * pattern repeats every 8 rows of its span */
  if (at % 128) return (*why = "the shared-memory address must be 128-byte aligned"), false;
  (void)m;
  return true;
}

bool emu_tma_load(const EmuTensorMap *m, const int32_t coords[5], uint32_t dst, const EmuTmaMemory *mem, const char **why) {
  return destination_ok(m, dst, why) && each_row(m, coords, dst, mem, load_row, why);
}

bool emu_tma_store(const EmuTensorMap *m, const int32_t coords[5], uint32_t src, const EmuTmaMemory *mem, const char **why) {
  return destination_ok(m, src, why) && each_row(m, coords, src, mem, store_row, why);
}
