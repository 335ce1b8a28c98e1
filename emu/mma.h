/*
 * mma.h — the tensor-core instructions of sm_80 as pure functions of a whole
 * warp: mma.sync (D = A·B + C) and ldmatrix, each given every lane's
 * registers at once (arrays indexed by lane) and giving every lane's result.
 *
 * These are the models the running emulator (emu/emu.c) calls once the 32
 * lanes of a warp have met at the instruction; they know nothing of fibers,
 * kernels or shared memory, so that tests can hold them to the PTX ISA's
 * fragment tables directly (tests/unit/test_mma.c).
 *
 * Registers are 32-bit words as PTX has them: a .f16x2 or .bf16x2 register
 * holds its lower-numbered element in bits 15:0, a .b32 register of four
 * .s8/.u8/.e4m3/.e5m2 elements holds element i in bits 8i+7:8i, an .f32 or .tf32
 * register holds the value's IEEE bits, an .s32 register the integer.
 *
 * Nothing here allocates, prints or fails: every input has a defined
 * result, as the hardware gives one.
 */
#ifndef TILEC_EMU_MMA_H
#define TILEC_EMU_MMA_H

#include <stdbool.h>
#include <stdint.h>

/* The mma.sync.aligned variants modelled, all .row.col. Every one takes A
 * in 4 registers and B in 2; C and D are 4 registers, except for the f16
 * accumulator (2 registers of .f16x2). */
typedef enum EmuMmaKind {
  EMU_MMA_F32_F16,  /* m16n8k16.row.col.f32.f16.f16.f32 */
  EMU_MMA_F32_BF16, /* m16n8k16.row.col.f32.bf16.bf16.f32 */
  EMU_MMA_F16_F16,  /* m16n8k16.row.col.f16.f16.f16.f16 */
  EMU_MMA_F32_TF32, /* m16n8k8.row.col.f32.tf32.tf32.f32 */
  EMU_MMA_S32_S8S8, /* m16n8k32.row.col.s32.s8.s8.s32 */
  EMU_MMA_S32_S8U8, /* m16n8k32.row.col.s32.s8.u8.s32 */
  EMU_MMA_S32_U8S8, /* m16n8k32.row.col.s32.u8.s8.s32 */
  EMU_MMA_S32_U8U8, /* m16n8k32.row.col.s32.u8.u8.s32 */
  EMU_MMA_F32_E4M3E4M3, /* m16n8k32.row.col.f32.e4m3.e4m3.f32 (sm_89) */
  EMU_MMA_F32_E4M3E5M2, /* m16n8k32.row.col.f32.e4m3.e5m2.f32 */
  EMU_MMA_F32_E5M2E4M3, /* m16n8k32.row.col.f32.e5m2.e4m3.f32 */
  EMU_MMA_F32_E5M2E5M2, /* m16n8k32.row.col.f32.e5m2.e5m2.f32 */
  EMU_MMA_KINDS
} EmuMmaKind;

/* The PTX name of a kind after "mma.sync.aligned.", e.g.
 * "m16n8k16.row.col.f32.f16.f16.f32". */
const char *emu_mma_name(EmuMmaKind kind);
/* The kind of such a name (len bytes, no NUL needed); -1 when none. */
int emu_mma_kind(const char *name, int len);
/* Registers per lane of C and D: 4, or 2 for the f16 accumulator. */
int emu_mma_c_regs(EmuMmaKind kind);

/* D = A·B + C for one warp. a[l], b[l], c[l] are lane l's registers; d[l]
 * gets its result (d may be c: every lane's C is read before any D is
 * written). Numerics, within what the ISA leaves open ("accumulation with
 * at least single precision; order, rounding and subnormals unspecified"):
 *   - f16, bf16: each product exact, the sum taken as c, then + a_k*b_k
 *     for k = 0, 1, ..., K-1, each step one fused multiply-add rounded to
 *     nearest f32. The f16 accumulator is widened to f32 for that and the
 *     result rounded to nearest f16 once at the end (the ISA asks for at
 *     least half precision).
 *   - tf32: each input's low 13 bits of mantissa are dropped (truncated,
 *     as the hardware ignores them), then as f16.
 *   - e4m3/e5m2 (A and B each its own): each product exact, then as f16.
 *     e4m3 is the FN form (no infinities; S.1111.111 is NaN), e5m2 has
 *     IEEE infinities and NaNs.
 *   - s8/u8: exact in 32 bits, wrapping on overflow (no .satfinite). */
void emu_mma_warp(EmuMmaKind kind, const uint32_t a[32][4], const uint32_t b[32][2], const uint32_t c[32][4],
                  uint32_t d[32][4]);

/* The element formats the models share (wgmma.c too): binary16 to float
 * (exact); float to binary16, rounded to nearest even; an 8-bit float of
 * `eb` exponent bits (4: e4m3 in its FN form, 5: e5m2) to float (exact). */
float emu_f16_value(uint32_t h);
uint32_t emu_f16_round(float x);
float emu_f8_value(uint32_t c, int eb);

/* Reads the 16 bytes of one matrix row that lane `lane` gave the address
 * of; false when it cannot (the row then reads as zeros). */
typedef bool (*EmuRowRead)(void *ctx, int lane, const void *row, unsigned char out[16]);

/* ldmatrix.sync.aligned.m8n8.x<num>[.trans].shared.b16: `num` (1, 2 or 4)
 * 8x8 matrices of 16-bit elements. Row r of matrix m starts at rows[8m+r]
 * (the address lane 8m+r gave; the other lanes' addresses are not used).
 * Lane l gets in register m: without .trans, the elements (l/4, 2(l%4))
 * and (l/4, 2(l%4)+1) of matrix m, in its low and high half; with .trans,
 * those of the transposed matrix, (2(l%4), l/4) and (2(l%4)+1, l/4).
 * Each row used is read once, through `read`. out[l][m] for m < num is
 * written, the rest left alone. false when a read failed. */
bool emu_ldmatrix_warp(int num, bool trans, const void *const rows[32], EmuRowRead read, void *ctx,
                       uint32_t out[32][4]);

#endif
