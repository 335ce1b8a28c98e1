/*
 * wgmma.c — the warpgroup model of wgmma.mma_async (wgmma.h).
 *
 * The descriptor: bits 13..0 the start address, 29..16 the leading
 * dimension byte offset (LBO), 45..32 the stride dimension byte offset
 * (SBO), each the byte value's bits 17..4; bits 51..49 the base offset;
 * bits 63..62 the swizzle mode (0 none, 1 128B, 2 64B, 3 32B).
 *
 * The canonical layouts (in elements; T = 128 / element bits, so that T
 * elements are 16 bytes; W the swizzle width in bytes): an operand is rows
 * of the M or N dimension (mn) and columns of K.
 *   K-major, no swizzle:   ((8,m),(T,2k)) : ((T,SBO),(1,LBO))
 *       eight rows of 16 bytes make a block; blocks follow each other
 *       along K by LBO and along mn by SBO.
 *   K-major, swizzled:     ((8,m),(T,2k)) : ((W/eb,SBO),(1,T))
 *       eight rows of W bytes, K contiguous in a row; groups of eight rows
 *       SBO apart (LBO unused).
 *   MN-major, no swizzle:  ((T,1,m),(8,k)) : ((1,T,SBO),(T,LBO))
 *       eight rows (k) of 16 bytes of mn make a block; blocks follow along
 *       mn by SBO and along K by LBO.
 *   MN-major, swizzled:    ((T,W/16,m),(8,k)) : ((1,T,LBO),(W/eb,SBO))
 *       eight rows (k) of W bytes of mn; W bytes of mn further is LBO on,
 *       eight k further SBO on.
 * Then the swizzle, on the byte address: bits 4.. XORed with bits 7..,
 * three bits for 128B, two for 64B, one for 32B (CuTe's Swizzle<B,4,3>,
 * which the ISA names; its period, 1024, 512 or 256 bytes, is where the
 * ISA says the repeating pattern starts).
 *
 * The fragments (thread t of the warpgroup, w = t / 32 its warp,
 * g = (t % 32) / 4, q = t % 4; element i in the order the ISA lists them,
 * two to a register for 16-bit types, four for 8-bit): each warp holds 16
 * rows, as mma.sync's m16 fragments do:
 *   D (every type), A of 16-bit types: row 16w + g + 8((i>>1)&1),
 *                                      col 8(i>>2) + 2q + (i&1)
 *   A of tf32:                         row 16w + g + 8(i&1), col q + 4(i>>1)
 *   A of 8-bit types:                  row 16w + g + 8((i>>2)&1),
 *                                      col 4q + (i&3) + 16(i>>3)
 */
#include "wgmma.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mma.h"

EmuWgDesc emu_wgmma_desc(uint64_t desc) {
  static const int widths[4] = {0, 128, 64, 32};
  EmuWgDesc d = {
      .start = (uint32_t)(desc & 0x3fff) << 4,
      .lbo = (uint32_t)((desc >> 16) & 0x3fff) << 4,
      .sbo = (uint32_t)((desc >> 32) & 0x3fff) << 4,
      .base_offset = (int)((desc >> 49) & 7),
      .swizzle = widths[(desc >> 62) & 3],
  };
  return d;
}

uint32_t emu_wgmma_address(const EmuWgDesc *d, bool mn_major, int bits, int mn, int k) {
  uint32_t eb = (uint32_t)bits / 8, T = 128u / (uint32_t)bits, W = (uint32_t)d->swizzle, m = (uint32_t)mn,
           kk = (uint32_t)k, off;
  if (!mn_major) off = W ? (m % 8) * W + (m / 8) * d->sbo + kk * eb
                         : (m % 8) * 16 + (m / 8) * d->sbo + (kk % T) * eb + (kk / T) * d->lbo;
  else if (!W) off = (m % T) * eb + (m / T) * d->sbo + (kk % 8) * 16 + (kk / 8) * d->lbo;
  else off = (m % (W / eb)) * eb + (m / (W / eb)) * d->lbo + (kk % 8) * W + (kk / 8) * d->sbo;
  uint32_t a = d->start + off;
  if (W) a ^= (a >> 3) & ((W / 16 - 1) << 4);
  return a;
}

void emu_wgmma_d_pos(int t, int i, int *row, int *col) {
  int w = t / 32, g = (t % 32) / 4, q = t % 4;
  *row = 16 * w + g + 8 * ((i >> 1) & 1);
  *col = 8 * (i >> 2) + 2 * q + (i & 1);
}

void emu_wgmma_a_pos(EmuWgType type, int t, int i, int *row, int *col) {
  int w = t / 32, g = (t % 32) / 4, q = t % 4;
  switch (type) {
  case EMU_WG_TF32:
    *row = 16 * w + g + 8 * (i & 1);
    *col = q + 4 * (i >> 1);
    break;
  case EMU_WG_E4M3:
  case EMU_WG_E5M2:
  case EMU_WG_S8:
  case EMU_WG_U8:
    *row = 16 * w + g + 8 * ((i >> 2) & 1);
    *col = 4 * q + (i & 3) + 16 * (i >> 3);
    break;
  default: emu_wgmma_d_pos(t, i, row, col); break;
  }
}

bool emu_wgmma_decode(uint32_t code, EmuWgmma *op) {
  uint32_t at = code >> 9 & 7, bt = code >> 12 & 7;
  if (at > EMU_WG_U8 || bt > EMU_WG_U8 || code >> 22) return false;
  *op = (EmuWgmma){.n = (int)(code & 0x1ff), .atype = (EmuWgType)at, .btype = (EmuWgType)bt, .f16_d = code >> 15 & 1,
                   .a_in_registers = code >> 16 & 1, .trans_a = code >> 17 & 1, .trans_b = code >> 18 & 1,
                   .neg_a = code >> 19 & 1, .neg_b = code >> 20 & 1, .satfinite = code >> 21 & 1};
  return true;
}

static int bits_of_type(EmuWgType t) {
  return t == EMU_WG_TF32 ? 32 : t == EMU_WG_F16 || t == EMU_WG_BF16 ? 16 : 8;
}

static bool is_int(EmuWgType t) { return t == EMU_WG_S8 || t == EMU_WG_U8; }

/* An element's value from its bits (the low `bits` of raw). */
static double value_of(EmuWgType t, uint32_t raw) {
  float f;
  switch (t) {
  case EMU_WG_F16: return emu_f16_value(raw & 0xffff);
  case EMU_WG_BF16: raw = (raw & 0xffff) << 16; break;
  case EMU_WG_TF32: raw &= 0xffffe000u; break; /* the ISA: the low 13 bits are truncated */
  case EMU_WG_E4M3: return emu_f8_value(raw & 0xff, 4);
  case EMU_WG_E5M2: return emu_f8_value(raw & 0xff, 5);
  case EMU_WG_S8: return (int8_t)(raw & 0xff);
  case EMU_WG_U8: return raw & 0xff;
  }
  memcpy(&f, &raw, 4);
  return f;
}

/* Reads operand elements from shared memory, one 16-byte chunk at a time
 * (the swizzle moves whole chunks, so an element never straddles two). */
typedef struct Reader {
  EmuWgRead read;
  void *ctx;
  uint32_t chunk;
  bool have;
  unsigned char bytes[16];
} Reader;

static bool element_at(Reader *r, uint32_t address, int bits, uint32_t *raw) {
  uint32_t chunk = address & ~15u;
  if (!r->have || r->chunk != chunk) {
    if (!r->read(r->ctx, chunk, r->bytes, 16)) return false;
    r->chunk = chunk, r->have = true;
  }
  uint32_t v = 0;
  memcpy(&v, r->bytes + (address & 15), (size_t)bits / 8);
  *raw = v;
  return true;
}

/* The instruction as the ISA allows it; NULL, or why not. */
static const char *check(const EmuWgmma *op, const EmuWgDesc *a, const EmuWgDesc *b) {
  bool fp8a = op->atype == EMU_WG_E4M3 || op->atype == EMU_WG_E5M2, fp8b = op->btype == EMU_WG_E4M3 || op->btype == EMU_WG_E5M2;
  if (op->atype != op->btype && !(fp8a && fp8b) && !(is_int(op->atype) && is_int(op->btype)))
    return "A and B have different types (only the 8-bit floats, and s8/u8, mix)";
  if (op->n < 8 || op->n > 256 || op->n % 8 || (is_int(op->atype) && op->n > 32 && op->n % 16))
    return "N is not one the instruction has";
  if ((op->trans_a && !op->a_in_registers) || op->trans_b)
    if (op->atype != EMU_WG_F16 && op->atype != EMU_WG_BF16) return "a transpose of a type other than f16 and bf16";
  if (op->trans_a && op->a_in_registers) return "imm-trans-a with A in registers";
  if (op->f16_d && (op->atype == EMU_WG_BF16 || op->atype == EMU_WG_TF32 || is_int(op->atype)))
    return "an f16 accumulator for a type that has none";
  if (is_int(op->atype) && (op->neg_a || op->neg_b)) return "imm-scale of an integer type";
  if ((!op->a_in_registers && a->base_offset) || b->base_offset)
    return "a matrix base offset other than 0 (the model has only patterns at their boundary)";
  return NULL;
}

/* Warp w's rows of A (16 x K, from its lanes' registers or shared memory) and all of B (K x N). */
static bool load(const EmuWgmma *op, int w, uint32_t a[32][4], const EmuWgDesc *da, const EmuWgDesc *db,
                 EmuWgRead read, void *ctx, double A[16][32], double B[32][256], const char **why) {
  int bits = bits_of_type(op->atype), K = 256 / bits, N = op->n, per = 32 / bits;
  Reader r = {.read = read, .ctx = ctx};
  if (op->a_in_registers) {
    for (int l = 0; l < 32; l++)
      for (int i = 0; i < 4 * per; i++) {
        int row, col;
        emu_wgmma_a_pos(op->atype, 32 * w + l, i, &row, &col);
        A[row - 16 * w][col] = value_of(op->atype, a[l][i / per] >> (bits * (i % per)));
      }
  } else {
    for (int m = 0; m < 16; m++)
      for (int k = 0; k < K; k++) {
        uint32_t raw;
        if (!element_at(&r, emu_wgmma_address(da, op->trans_a, bits, 16 * w + m, k), bits, &raw)) {
          *why = "a read of A from shared memory failed";
          return false;
        }
        A[m][k] = value_of(op->atype, raw);
      }
  }
  r.have = false;
  for (int n = 0; n < N; n++)
    for (int k = 0; k < K; k++) {
      uint32_t raw;
      if (!element_at(&r, emu_wgmma_address(db, op->trans_b, bits, n, k), bits, &raw)) {
        *why = "a read of B from shared memory failed";
        return false;
      }
      B[k][n] = value_of(op->btype, raw);
    }
  return true;
}

/* Warp w's rows of D = A·B + D (or A·B), in its lanes' registers. */
static void multiply(const EmuWgmma *op, int w, uint32_t d[32][128], double A[16][32], double B[32][256],
                     double C[16][256]) {
  int K = 256 / bits_of_type(op->atype), N = op->n, elems = N / 2;
  bool integer = is_int(op->atype);
  for (int l = 0; l < 32; l++) /* D's input */
    for (int i = 0; i < elems; i++) {
      int row, col;
      emu_wgmma_d_pos(32 * w + l, i, &row, &col);
      uint32_t reg = op->f16_d ? (d[l][i / 2] >> (16 * (i % 2))) & 0xffff : d[l][i];
      float f;
      memcpy(&f, &reg, 4);
      C[row - 16 * w][col] = !op->scale_d ? 0 : op->f16_d ? emu_f16_value(reg) : integer ? (double)(int32_t)reg : f;
    }
  double sa = op->neg_a ? -1 : 1, sb = op->neg_b ? -1 : 1;
  /* k in order: exact for integers (in 64 bits), each step one f32 rounding
   * for floats (every product of these types is exact in f32) */
  for (int m = 0; m < 16; m++)
    for (int n = 0; n < N; n++) {
      if (integer) {
        int64_t acc = (int64_t)C[m][n];
        for (int k = 0; k < K; k++) acc += (int64_t)A[m][k] * (int64_t)B[k][n];
        if (op->satfinite) acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
        C[m][n] = (double)(int32_t)(uint32_t)acc;
      } else {
        float acc = (float)C[m][n];
        for (int k = 0; k < K; k++) acc = fmaf((float)(sa * A[m][k]), (float)(sb * B[k][n]), acc);
        C[m][n] = acc;
      }
    }
  for (int l = 0; l < 32; l++) {
    if (op->f16_d)
      for (int j = 0; j < elems / 2; j++) d[l][j] = 0;
    for (int i = 0; i < elems; i++) {
      int row, col;
      emu_wgmma_d_pos(32 * w + l, i, &row, &col);
      double v = C[row - 16 * w][col];
      if (op->f16_d) {
        d[l][i / 2] |= emu_f16_round((float)v) << (16 * (i % 2));
      } else if (integer) {
        d[l][i] = (uint32_t)(int32_t)v;
      } else {
        float f = (float)v;
        memcpy(&d[l][i], &f, 4);
      }
    }
  }
}

bool emu_wgmma_warp(const EmuWgmma *op, int w, uint32_t a[32][4], uint64_t a_desc, uint64_t b_desc, uint32_t d[32][128],
                    EmuWgRead read, void *ctx, const char **why) {
  EmuWgDesc da = emu_wgmma_desc(a_desc), db = emu_wgmma_desc(b_desc);
  const char *bad = w < 0 || w > 3 ? "a warp outside the warpgroup" : check(op, &da, &db);
  if (bad) {
    *why = bad;
    return false;
  }
  /* on the heap: the emulator's fibers have small stacks */
  double(*A)[32] = malloc(sizeof(double[16][32])), (*B)[256] = malloc(sizeof(double[32][256])),
  (*C)[256] = malloc(sizeof(double[16][256]));
  bool ok = A && B && C && load(op, w, a, &da, &db, read, ctx, A, B, why);
  if (!A || !B || !C) *why = "out of memory";
  if (ok) multiply(op, w, d, A, B, C);
  free(A), free(B), free(C);
  return ok;
}

bool emu_wgmma(const EmuWgmma *op, uint32_t a[128][4], uint64_t a_desc, uint64_t b_desc, uint32_t d[128][128],
               EmuWgRead read, void *ctx, const char **why) {
  uint32_t(*out)[128] = malloc(sizeof(uint32_t[128][128]));
  if (!out) {
    *why = "out of memory";
    return false;
  }
  memcpy(out, d, sizeof(uint32_t[128][128]));
  bool ok = true;
  for (int w = 0; w < 4 && ok; w++) ok = emu_wgmma_warp(op, w, a + 32 * w, a_desc, b_desc, out + 32 * w, read, ctx, why);
  if (ok) memcpy(d, out, sizeof(uint32_t[128][128]));
  free(out);
  return ok;
}
