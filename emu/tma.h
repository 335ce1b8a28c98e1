/*
 * tma.h — Hopper's tensor memory accelerator as a pure function: tensor
 * maps in the emulator's own 128-byte encoding, and the tiled copies of
 * cp.async.bulk.tensor between global and shared memory.
 *
 * What the CUDA driver API says of a tiled tensor map
 * (cuTensorMapEncodeTiled, cuda.h): rank 1 to 5, dimension 0 the
 * innermost; a 16-byte aligned global address; each globalDim 1 to 2^32;
 * the strides of dimensions 1.. in bytes, multiples of 16 below 2^40; a
 * box of 1 to 256 elements along each dimension, its inner row
 * (boxDim[0] x element size) a multiple of 16 bytes and, with a swizzle,
 * no wider than the swizzle's span (32, 64 or 128 bytes); element strides
 * 1 to 8, that of dimension 0 ignored, ceil(boxDim[i] / elementStrides[i])
 * elements traversed along dimension i; out-of-bound elements filled with
 * zeros, or with a NaN for floating types with
 * CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA; the swizzle moves
 * 16-byte chunks within the span. The real CUtensorMap is opaque; the
 * emulator's encoding (emu_tma_encode) is its own, 128 bytes as the
 * driver's, with a mark that tells a map from other bytes.
 *
 * What the PTX ISA says of cp.async.bulk.tensor (.tile): the box starts
 * at the given signed coordinates; a load writes it to shared memory as a
 * dense array, dimension 0 fastest, each row of boxDim[0] elements, the
 * swizzle applied to the shared address bits (bits 4.. XORed with bits
 * 7.., as wgmma's canonical layouts read them); elements outside the
 * tensor are filled, and a store skips them; the mbarrier's tx-count is
 * completed by the box's bytes, filled elements included.
 *
 * Modelled: interleave NONE and the swizzles NONE, 32B, 64B and 128B (the
 * 128B atom variants of sm_100 and interleaved layouts are refused, with
 * the reason). The copies go through callbacks, so that tests hold them to
 * these statements directly (tests/unit/test_tma.c) and the running
 * emulator checks each access.
 */
#ifndef TILEC_EMU_TMA_H
#define TILEC_EMU_TMA_H

#include <stdbool.h>
#include <stdint.h>

#define EMU_TMA_BYTES 128

/* CUtensorMapDataType's values (cuda.h), those of whole bytes. */
typedef enum EmuTmaType {
  EMU_TMA_U8 = 0, EMU_TMA_U16, EMU_TMA_U32, EMU_TMA_I32, EMU_TMA_U64, EMU_TMA_I64, EMU_TMA_F16, EMU_TMA_F32, EMU_TMA_F64,
  EMU_TMA_BF16, EMU_TMA_F32_FTZ, EMU_TMA_TF32, EMU_TMA_TF32_FTZ
} EmuTmaType;

typedef struct EmuTensorMap {
  uint64_t address;
  int rank;
  EmuTmaType type;
  uint64_t dims[5];     /* elements, dimension 0 innermost */
  uint64_t strides[5];  /* bytes; strides[1..rank-1] as given (strides[0], the element's size, is not read) */
  uint32_t box[5];
  uint32_t estrides[5];
  int swizzle;          /* CUtensorMapSwizzle: 0 none, 1 32B, 2 64B, 3 128B */
  int interleave;       /* CUtensorMapInterleave: 0 none */
  int oob_nan;          /* CUtensorMapFloatOOBfill: 1 NaN */
  int l2_promotion;     /* kept, no effect */
} EmuTensorMap;

/* Bytes of one element. */
int emu_tma_elem_bytes(EmuTmaType t);
/* Checks m against the driver's rules and writes its 128 bytes; false,
 * with *why, for a map the driver refuses or the model does not have. */
bool emu_tma_encode(const EmuTensorMap *m, unsigned char out[EMU_TMA_BYTES], const char **why);
/* The map 128 bytes hold; false, with *why, for bytes that are not one
 * (no mark: never encoded, or overwritten) or break the rules. */
bool emu_tma_decode(const unsigned char in[EMU_TMA_BYTES], EmuTensorMap *m, const char **why);
/* Elements along dimension d of the box in shared memory, and the box's
 * bytes (what complete_tx counts). */
uint32_t emu_tma_box_elems(const EmuTensorMap *m, int d);
uint32_t emu_tma_box_bytes(const EmuTensorMap *m);
/* The shared-memory byte offset of box element idx (per dimension) for a
 * box written at offset dst: the dense place, then the swizzle on the
 * address bits. */
uint32_t emu_tma_smem_offset(const EmuTensorMap *m, uint32_t dst, const uint32_t idx[5]);

/* Global reads and writes of n bytes at a global address; shared ones at
 * an offset. Each false when it cannot (the copy then stops, false). */
typedef struct EmuTmaMemory {
  bool (*read_global)(void *ctx, uint64_t address, void *out, uint32_t n);
  bool (*write_global)(void *ctx, uint64_t address, const void *in, uint32_t n);
  bool (*read_smem)(void *ctx, uint32_t offset, void *out, uint32_t n);
  bool (*write_smem)(void *ctx, uint32_t offset, const void *in, uint32_t n);
  void *ctx;
} EmuTmaMemory;

/* cp.async.bulk.tensor.<rank>d.shared::cta.global.tile: the box at coords
 * (signed, coords[d] for d < rank) into shared memory at dst (16-byte
 * aligned; with a swizzle, the pattern follows the address bits);
 * elements outside the tensor filled. The store direction: the box at dst
 * to the tensor at coords, elements outside it skipped. false, with *why,
 * for a destination the ISA does not allow or a failed access. */
bool emu_tma_load(const EmuTensorMap *m, const int32_t coords[5], uint32_t dst, const EmuTmaMemory *mem, const char **why);
bool emu_tma_store(const EmuTensorMap *m, const int32_t coords[5], uint32_t src, const EmuTmaMemory *mem, const char **why);

#endif
