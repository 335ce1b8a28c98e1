/*
 * mma.c — the warp-level models of mma.sync and ldmatrix (mma.h).
 *
 * What the PTX ISA says (its sections "Matrix Fragments for mma.m16n8k8",
 * "... mma.m16n8k16 with floating point type", "... mma.m16n8k32" and
 * "ldmatrix"): the 32 lanes of a warp together hold the matrices A (MxK),
 * B (KxN) and C (MxN), each lane a fragment of each in its registers, and
 * the instruction gives each lane its fragment of D = A·B + C. Where an
 * element sits is given per lane by
 *     groupID = laneid >> 2,   threadID_in_group = laneid % 4
 * and, per element index i of the lane's fragment (element i of a packed
 * fragment is in register i / per_register, at slot i % per_register from
 * the low bits up), a row and a column. The maps below are those formulas,
 * one function per operand and shape.
 *
 * What the model does: it gathers A, B and C whole from the fragments of
 * all 32 lanes, multiplies with a plain loop in a fixed order, and scatters
 * D back through C's map. Gathering first is what lets D alias C. The
 * order and rounding (mma.h) are one choice the ISA allows: it promises
 * products "with at least single precision" (f16) or "with specified
 * precision" (bf16, tf32), accumulation with at least single precision,
 * and leaves the order and rounding of the sum unspecified; tests compare
 * with values whose sums are exact, which every order gives alike.
 *
 * ldmatrix: eight lanes give the row addresses of each 8x8 matrix (lanes
 * 8m..8m+7 for matrix m), and four consecutive lanes receive one row, two
 * 16-bit elements each; .trans hands out the columns instead.
 */
#include "mma.h"

#include <math.h>
#include <string.h>

/* ---- names ------------------------------------------------------------------------------------ */

static const char *const kind_names[EMU_MMA_KINDS] = {
    [EMU_MMA_F32_F16] = "m16n8k16.row.col.f32.f16.f16.f32", [EMU_MMA_F32_BF16] = "m16n8k16.row.col.f32.bf16.bf16.f32",
    [EMU_MMA_F16_F16] = "m16n8k16.row.col.f16.f16.f16.f16", [EMU_MMA_F32_TF32] = "m16n8k8.row.col.f32.tf32.tf32.f32",
    [EMU_MMA_S32_S8S8] = "m16n8k32.row.col.s32.s8.s8.s32",  [EMU_MMA_S32_S8U8] = "m16n8k32.row.col.s32.s8.u8.s32",
    [EMU_MMA_S32_U8S8] = "m16n8k32.row.col.s32.u8.s8.s32",  [EMU_MMA_S32_U8U8] = "m16n8k32.row.col.s32.u8.u8.s32",
    [EMU_MMA_F32_E4M3E4M3] = "m16n8k32.row.col.f32.e4m3.e4m3.f32",
    [EMU_MMA_F32_E4M3E5M2] = "m16n8k32.row.col.f32.e4m3.e5m2.f32",
    [EMU_MMA_F32_E5M2E4M3] = "m16n8k32.row.col.f32.e5m2.e4m3.f32",
    [EMU_MMA_F32_E5M2E5M2] = "m16n8k32.row.col.f32.e5m2.e5m2.f32",
};

const char *emu_mma_name(EmuMmaKind kind) { return (unsigned)kind < EMU_MMA_KINDS ? kind_names[kind] : "?"; }

int emu_mma_kind(const char *name, int len) {
  for (int k = 0; k < EMU_MMA_KINDS; k++)
    if ((int)strlen(kind_names[k]) == len && !memcmp(kind_names[k], name, (size_t)len)) return k;
  return -1;
}

int emu_mma_c_regs(EmuMmaKind kind) { return kind == EMU_MMA_F16_F16 ? 2 : 4; }

/* ---- the fragment maps, per the ISA's formulas ---------------------------------------------- */

typedef enum Shape { M16N8K16, M16N8K8, M16N8K32 } Shape;

static Shape shape_of(EmuMmaKind kind) {
  return kind == EMU_MMA_F32_TF32 ? M16N8K8 : kind >= EMU_MMA_S32_S8S8 ? M16N8K32 : M16N8K16;
}

static bool is_integer(EmuMmaKind kind) { return kind >= EMU_MMA_S32_S8S8 && kind <= EMU_MMA_S32_U8U8; }

static int k_of(Shape s) { return s == M16N8K8 ? 8 : s == M16N8K16 ? 16 : 32; }

/* Elements per 32-bit register of A and B: two 16-bit, one tf32, four 8-bit. */
static int per_reg(Shape s) { return s == M16N8K8 ? 1 : s == M16N8K16 ? 2 : 4; }

/* Element i of lane's A fragment: its row and column of A. */
static void a_pos(Shape s, int lane, int i, int *row, int *col) {
  int g = lane >> 2, t = lane % 4;
  switch (s) {
  case M16N8K16: /* a0..a7 */
    *row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
    *col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
    break;
  case M16N8K8: /* a0..a3, tf32 */
    *row = (i == 0 || i == 2) ? g : g + 8;
    *col = i < 2 ? t : t + 4;
    break;
  case M16N8K32: /* a0..a15 */
    *row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
    *col = t * 4 + (i & 3) + (i >= 8 ? 16 : 0);
    break;
  }
}

/* Element i of lane's B fragment. */
static void b_pos(Shape s, int lane, int i, int *row, int *col) {
  int g = lane >> 2, t = lane % 4;
  switch (s) {
  case M16N8K16: /* b0..b3 */
    *row = t * 2 + (i & 1) + (i >= 2 ? 8 : 0);
    break;
  case M16N8K8: /* b0, b1 */
    *row = i == 0 ? t : t + 4;
    break;
  case M16N8K32: /* b0..b7 */
    *row = t * 4 + (i & 3) + (i >= 4 ? 16 : 0);
    break;
  }
  *col = g;
}

/* Element i (0..3) of lane's C or D fragment: the same for every shape here. */
static void c_pos(int lane, int i, int *row, int *col) {
  int g = lane >> 2, t = lane % 4;
  *row = i < 2 ? g : g + 8;
  *col = t * 2 + (i & 1);
}

/* ---- element formats -------------------------------------------------------------------------- */

static float f32_of(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* binary16 to float: exact, subnormals kept. */
float emu_f16_value(uint32_t h) {
  uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float sign = (h & 0x8000) ? -1.0f : 1.0f;
  if (e == 0x1f) return m ? sign * NAN : sign * INFINITY;
  if (!e) return sign * ldexpf((float)m, -24);
  return sign * ldexpf((float)(m | 0x400), (int)e - 25);
}

/* float to binary16, rounded to nearest even (overflow to infinity,
 * subnormals kept). Every f16 value and halfway point between two is a
 * float, so deciding on the float's bits is exact. */
uint32_t emu_f16_round(float x) {
  uint32_t sign = (bits_of(x) >> 16) & 0x8000;
  float a = fabsf(x);
  if (isnan(x)) return sign | 0x7e00;
  if (a >= 65520.0f) return sign | 0x7c00; /* halfway above the largest, 65504, rounds to infinity */
  if (a < 0x1p-14f) return sign | (uint32_t)nearbyintf(a * 0x1p24f); /* in units of 2^-24; may round up to the least normal */
  int e;
  (void)frexpf(a, &e); /* a = f * 2^e, f in [0.5, 1): 11 significant bits are units of 2^(e-11) */
  uint32_t units = (uint32_t)nearbyintf(ldexpf(a, 11 - e));
  /* units in [2^10, 2^11]; 2^11 carries into the next exponent, which the encoding absorbs */
  return sign | (((uint32_t)(e + 14) << 10) + (units - 0x400));
}

/* An 8-bit float: 1 sign, `eb` exponent and 7 - eb mantissa bits, bias
 * 2^(eb-1) - 1; e4m3 (fn) has no infinities and only S.1111.111 as NaN,
 * e5m2 the IEEE specials. Every value is a float. */
float emu_f8_value(uint32_t c, int eb) {
  int mb = 7 - eb, bias = (1 << (eb - 1)) - 1;
  uint32_t e = (c >> mb) & ((1u << eb) - 1), m = c & ((1u << mb) - 1);
  float sign = (c & 0x80) ? -1.0f : 1.0f;
  if (eb == 4 && e == 15 && m == 7) return NAN;
  if (eb == 5 && e == 31) return m ? NAN : sign * INFINITY;
  if (!e) return sign * ldexpf((float)m, 1 - bias - mb);
  return sign * ldexpf((float)(m | 1u << mb), (int)e - bias - mb);
}

/* The value of element slot `i` of a register, for A's (b false) or B's type. */
static float fp_element(EmuMmaKind kind, bool b, uint32_t reg, int slot) {
  switch (kind) {
  case EMU_MMA_F32_E4M3E4M3:
  case EMU_MMA_F32_E4M3E5M2:
  case EMU_MMA_F32_E5M2E4M3:
  case EMU_MMA_F32_E5M2E5M2: {
    /* A's format: the first of the pair; B's: the second */
    bool e5 = b ? kind == EMU_MMA_F32_E4M3E5M2 || kind == EMU_MMA_F32_E5M2E5M2
                : kind == EMU_MMA_F32_E5M2E4M3 || kind == EMU_MMA_F32_E5M2E5M2;
    return emu_f8_value((reg >> (8 * slot)) & 0xff, e5 ? 5 : 4);
  }
  case EMU_MMA_F32_BF16: return f32_of(((reg >> (16 * slot)) & 0xffff) << 16);
  case EMU_MMA_F32_TF32: return f32_of(reg & 0xffffe000u); /* tf32 reads 10 mantissa bits of the 23 */
  default: return emu_f16_value((reg >> (16 * slot)) & 0xffff);
  }
}

static int32_t int_element(bool is_signed, uint32_t reg, int slot) {
  uint32_t v = (reg >> (8 * slot)) & 0xff;
  return is_signed ? (int32_t)(int8_t)v : (int32_t)v;
}

/* ---- mma ---------------------------------------------------------------------------------------- */

void emu_mma_warp(EmuMmaKind kind, const uint32_t a[32][4], const uint32_t b[32][2], const uint32_t c[32][4],
                  uint32_t d[32][4]) {
  Shape s = shape_of(kind);
  int K = k_of(s), pr = per_reg(s);
  bool integer = is_integer(kind);
  bool a_signed = kind == EMU_MMA_S32_S8S8 || kind == EMU_MMA_S32_S8U8;
  bool b_signed = kind == EMU_MMA_S32_S8S8 || kind == EMU_MMA_S32_U8S8;
  /* the whole matrices, gathered from the fragments */
  float fa[16][32], fb[32][8], fc[16][8];
  int32_t ia[16][32], ib[32][8];
  uint32_t ic[16][8];
  for (int l = 0; l < 32; l++) {
    int row, col;
    for (int i = 0; i < 4 * pr; i++) {
      a_pos(s, l, i, &row, &col);
      uint32_t reg = a[l][i / pr];
      if (integer) ia[row][col] = int_element(a_signed, reg, i % pr);
      else fa[row][col] = fp_element(kind, false, reg, i % pr);
    }
    for (int i = 0; i < 2 * pr; i++) {
      b_pos(s, l, i, &row, &col);
      uint32_t reg = b[l][i / pr];
      if (integer) ib[row][col] = int_element(b_signed, reg, i % pr);
      else fb[row][col] = fp_element(kind, true, reg, i % pr);
    }
    for (int i = 0; i < 4; i++) {
      c_pos(l, i, &row, &col);
      if (kind == EMU_MMA_F16_F16) fc[row][col] = emu_f16_value((c[l][i / 2] >> (16 * (i % 2))) & 0xffff);
      else if (integer) ic[row][col] = c[l][i];
      else fc[row][col] = f32_of(c[l][i]);
    }
  }
  /* D = A·B + C, k in order; the products of f16, bf16, tf32 and fp8 values
   * are exact in a float's 24 bits (at most 11 + 11), so fmaf rounds each
   * step once */
  for (int m = 0; m < 16; m++)
    for (int n = 0; n < 8; n++) {
      if (integer) {
        uint32_t acc = ic[m][n];
        for (int k = 0; k < K; k++) acc += (uint32_t)ia[m][k] * (uint32_t)ib[k][n];
        ic[m][n] = acc;
      } else {
        float acc = fc[m][n];
        for (int k = 0; k < K; k++) acc = fmaf(fa[m][k], fb[k][n], acc);
        fc[m][n] = acc;
      }
    }
  for (int l = 0; l < 32; l++) {
    if (kind == EMU_MMA_F16_F16) d[l][0] = d[l][1] = 0;
    for (int i = 0; i < 4; i++) {
      int row, col;
      c_pos(l, i, &row, &col);
      if (kind == EMU_MMA_F16_F16) d[l][i / 2] |= emu_f16_round(fc[row][col]) << (16 * (i % 2));
      else d[l][i] = integer ? ic[row][col] : bits_of(fc[row][col]);
    }
  }
}

/* ---- ldmatrix ----------------------------------------------------------------------------------- */

bool emu_ldmatrix_warp(int num, bool trans, const void *const rows[32], EmuRowRead read, void *ctx,
                       uint32_t out[32][4]) {
  bool ok = true;
  for (int m = 0; m < num; m++) {
    /* the matrix, element (r, c) at e[r][c] */
    uint16_t e[8][8];
    for (int r = 0; r < 8; r++) {
      unsigned char bytes[16];
      if (!read(ctx, 8 * m + r, rows[8 * m + r], bytes)) {
        memset(bytes, 0, sizeof bytes);
        ok = false;
      }
      for (int c = 0; c < 8; c++) e[r][c] = (uint16_t)(bytes[2 * c] | bytes[2 * c + 1] << 8);
    }
    for (int l = 0; l < 32; l++) {
      int r = l / 4, c = 2 * (l % 4);
      uint32_t lo = trans ? e[c][r] : e[r][c], hi = trans ? e[c + 1][r] : e[r][c + 1];
      out[l][m] = lo | hi << 16;
    }
  }
  return ok;
}
