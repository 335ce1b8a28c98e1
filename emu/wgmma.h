/*
 * wgmma.h — Hopper's warpgroup MMA (wgmma.mma_async, sm_90a) as a pure
 * function of a whole warpgroup: its 128 threads' registers at once, and
 * shared memory read through the two 64-bit matrix descriptors.
 *
 * What the PTX ISA says (section "Asynchronous Warpgroup Level Matrix
 * Multiply-Accumulate", its "Matrix Descriptor Format", "Strides",
 * "Canonical Layouts" and register fragment figures): a warpgroup of four
 * warps computes D = A·B + D (D = A·B when scale-d is false) for A of
 * 64 x K, B of K x N and D of 64 x N, K being 16 for f16/bf16, 8 for tf32,
 * 32 for the 8-bit types. B is in shared memory; A in shared memory or in
 * registers; D in registers. A descriptor gives an operand's start address,
 * its leading and stride dimension byte offsets and a swizzle mode; the
 * operand is K-major, or MN-major where imm-trans-a/b says so (f16 and bf16
 * only), and its elements sit where the ISA's canonical layout for that
 * major-ness and swizzle puts them (emu_wgmma_address).
 *
 * This is the model the running emulator is to call once a warpgroup has
 * met at the instruction; it knows nothing of fibers or kernels, so that
 * tests hold it to the ISA's tables directly (tests/unit/test_wgmma.c).
 * Registers are 32-bit words as in mma.h. Numerics follow mma.h: each
 * product exact, accumulated in k order with one f32 rounding a step
 * (the ISA leaves order and rounding open; tests use exact sums).
 */
#ifndef TILEC_EMU_WGMMA_H
#define TILEC_EMU_WGMMA_H

#include <stdbool.h>
#include <stdint.h>

/* An operand's element type. */
typedef enum EmuWgType { EMU_WG_F16, EMU_WG_BF16, EMU_WG_TF32, EMU_WG_E4M3, EMU_WG_E5M2, EMU_WG_S8, EMU_WG_U8 } EmuWgType;

/* A decoded matrix descriptor: the ISA's fields, in bytes (the encoding
 * keeps bits 17..4 of each). swizzle: the mode's width in bytes, 0 for none
 * (the 2-bit field: 0 none, 1 128B, 2 64B, 3 32B). */
typedef struct EmuWgDesc {
  uint32_t start, lbo, sbo;
  int base_offset;
  int swizzle;
} EmuWgDesc;

EmuWgDesc emu_wgmma_desc(uint64_t desc);

/* The shared-memory byte address of element (mn, k) of an operand with
 * `bits`-bit elements, K-major or MN-major: the canonical layout of the
 * descriptor's swizzle mode, then the swizzle (address bits 4.. XORed with
 * bits 7.., as many as the mode has: 3 for 128B, 2 for 64B, 1 for 32B). */
uint32_t emu_wgmma_address(const EmuWgDesc *d, bool mn_major, int bits, int mn, int k);

/* Element i of thread t's (0..127) fragment of D (every shape and type),
 * and of A in registers for an operand type: its row and column. */
void emu_wgmma_d_pos(int t, int i, int *row, int *col);
void emu_wgmma_a_pos(EmuWgType type, int t, int i, int *row, int *col);

/* One wgmma.mma_async. */
typedef struct EmuWgmma {
  int n;                   /* N: 8 to 256, a multiple of 8 (of 16 for s32 past 64... as the ISA lists) */
  EmuWgType atype, btype;  /* equal but for the 8-bit floats, which mix */
  bool f16_d;              /* .dtype .f16 (N/4 registers of .f16x2); else .f32, or .s32 for integers (N/2) */
  bool a_in_registers;     /* A in 4 registers a thread, else in shared memory through a_desc */
  bool trans_a, trans_b;   /* imm-trans-a/b: MN-major A, B */
  bool neg_a, neg_b;       /* imm-scale-a/b of -1 */
  bool scale_d;            /* false: D = A·B */
  bool satfinite;          /* integers: clamp the s32 results instead of wrapping */
} EmuWgmma;

/* The instruction as one integer, as the running emulator's call takes it
 * (tilec.emu.wgmma): N in bits 8..0, A's type in 11..9, B's in 14..12
 * (EmuWgType), then a bit each: f16_d 15, a_in_registers 16, trans_a 17,
 * trans_b 18, neg_a 19, neg_b 20, satfinite 21. scale_d, a predicate at run
 * time, goes apart. Decoding gives false for bits no instruction has.
 * The encoding is inline, so that the compiler's retargeting (codegen/emu.c),
 * which makes the calls, needs none of the emulator's code. */
static inline uint32_t emu_wgmma_encode(const EmuWgmma *op) {
  return (uint32_t)op->n | (uint32_t)op->atype << 9 | (uint32_t)op->btype << 12 | (uint32_t)op->f16_d << 15 |
         (uint32_t)op->a_in_registers << 16 | (uint32_t)op->trans_a << 17 | (uint32_t)op->trans_b << 18 |
         (uint32_t)op->neg_a << 19 | (uint32_t)op->neg_b << 20 | (uint32_t)op->satfinite << 21;
}
bool emu_wgmma_decode(uint32_t code, EmuWgmma *op);

/* Reads `bytes` bytes of shared memory at `address`; false when it cannot. */
typedef bool (*EmuWgRead)(void *ctx, uint32_t address, void *out, int bytes);

/* D for the warpgroup: a[t] is thread t's A registers (a_in_registers),
 * d[t] its D registers, read (scale_d) and written. false, with *why, when
 * the instruction is not one the ISA allows or this model has (a transpose
 * of a type other than f16/bf16, a nonzero base offset, N out of range), or
 * when a read of shared memory failed; d is then left alone. */
bool emu_wgmma(const EmuWgmma *op, uint32_t a[128][4], uint64_t a_desc, uint64_t b_desc, uint32_t d[128][128],
               EmuWgRead read, void *ctx, const char **why);

/* Warp w's (0..3) part of it: its 16 rows of D, from its own A rows (its
 * lanes' registers a[lane], or shared memory) and all of B. The rows of D
 * a warp holds depend on nothing another warp holds, so the running
 * emulator lets each warp compute its part when its 32 lanes meet. */
bool emu_wgmma_warp(const EmuWgmma *op, int w, uint32_t a[32][4], uint64_t a_desc, uint64_t b_desc, uint32_t d[32][128],
                    EmuWgRead read, void *ctx, const char **why);

#endif
