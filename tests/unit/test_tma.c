/* test_tma.c — tensor maps and cp.async.bulk.tensor's tiled copies
 * (emu/tma.h) against what the CUDA driver API says of
 * cuTensorMapEncodeTiled and the PTX ISA of the tensor copies:
 *   - the map's rules: a 16-byte aligned address, rank 1 to 5, globalDim
 *     1 to 2^32, strides multiples of 16 below 2^40, boxDim 1 to 256, the
 *     box's inner row a multiple of 16 bytes and no wider than the
 *     swizzle's span, element strides 1 to 8;
 *   - "TMA loads ceil(boxDim[i] / elementStrides[i]) elements along the
 *     i-th dimension", dimension 0's stride ignored;
 *   - the box in shared memory is dense, dimension 0 fastest; "swizzle 16B
 *     chunks within [a] 32B / 64B / 128B span": with rows as wide as the
 *     span, chunk c of row r at c XOR ((r x span / 128) mod (span / 16)),
 *     which is where wgmma's K-major canonical layout of that swizzle
 *     (emu/wgmma.h, held to the ISA's own tables) reads the same element;
 *   - elements outside the tensor: zeros on a load (a NaN for a float map
 *     that asks it), skipped by a store; the box's bytes, filled ones
 *     included, are what the mbarrier's tx-count completes.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "emu/tma.h"
#include "emu/wgmma.h"
#include "unit.h"

enum { ROWS = 50, COLS = 100, PITCH = 208 }; /* a 50 x 100 f16 tensor, rows padded to 208 bytes */

static uint16_t tensor[ROWS * PITCH / 2], out_tensor[ROWS * PITCH / 2];
static unsigned char smem[65536];
static uint64_t base; /* the tensor's "global address" */

static uint16_t value(int r, int c) { return (uint16_t)(1 + r * 1000 + c); }

static bool rd_global(void *ctx, uint64_t a, void *out, uint32_t n) {
  (void)ctx;
  if (a < base || a + n > base + sizeof tensor) return false;
  memcpy(out, (const unsigned char *)tensor + (a - base), n);
  return true;
}
static bool wr_global(void *ctx, uint64_t a, const void *in, uint32_t n) {
  (void)ctx;
  if (a < base || a + n > base + sizeof out_tensor) return false;
  memcpy((unsigned char *)out_tensor + (a - base), in, n);
  return true;
}
static bool rd_smem(void *ctx, uint32_t off, void *out, uint32_t n) {
  (void)ctx;
  if ((size_t)off + n > sizeof smem) return false;
  memcpy(out, smem + off, n);
  return true;
}
static bool wr_smem(void *ctx, uint32_t off, const void *in, uint32_t n) {
  (void)ctx;
  if ((size_t)off + n > sizeof smem) return false;
  memcpy(smem + off, in, n);
  return true;
}
static const EmuTmaMemory mem = {rd_global, wr_global, rd_smem, wr_smem, NULL};

static EmuTensorMap map2d(uint32_t box0, uint32_t box1, int swizzle) {
  EmuTensorMap m = {.address = base, .rank = 2, .type = EMU_TMA_F16, .dims = {COLS, ROWS}, .strides = {2, PITCH},
                    .box = {box0, box1}, .estrides = {1, 1}, .swizzle = swizzle};
  return m;
}

static void setup(void) {
  base = 0x10000;
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < PITCH / 2; c++) tensor[r * PITCH / 2 + c] = c < COLS ? value(r, c) : 0xdead;
}

static void rules(void) {
  unsigned char b[EMU_TMA_BYTES];
  const char *why = NULL;
  EmuTensorMap ok = map2d(64, 32, 3), m;
  CHECK(emu_tma_encode(&ok, b, &why));
  EmuTensorMap back;
  CHECK(emu_tma_decode(b, &back, &why) && back.rank == 2 && back.dims[0] == COLS && back.dims[1] == ROWS &&
        back.strides[1] == PITCH && back.box[0] == 64 && back.box[1] == 32 && back.swizzle == 3 && back.address == base);
  m = ok, m.address = base + 8;
  CHECK(!emu_tma_encode(&m, b, &why));
  CHECK_CONTAINS(why, "16-byte aligned");
  m = ok, m.rank = 6;
  CHECK(!emu_tma_encode(&m, b, &why));
  m = ok, m.rank = 0;
  CHECK(!emu_tma_encode(&m, b, &why));
  CHECK_CONTAINS(why, "rank");
  m = ok, m.strides[1] = 200;
  CHECK(!emu_tma_encode(&m, b, &why));
  CHECK_CONTAINS(why, "multiple of 16");
  m = ok, m.box[1] = 257;
  CHECK(!emu_tma_encode(&m, b, &why));
  CHECK_CONTAINS(why, "boxDim");
  m = ok, m.box[0] = 4; /* 8 bytes */
  CHECK(!emu_tma_encode(&m, b, &why));
  CHECK_CONTAINS(why, "multiple of 16 bytes");
  m = ok, m.box[0] = 128; /* 256 bytes in a 128-byte span */
  CHECK(!emu_tma_encode(&m, b, &why));
  CHECK_CONTAINS(why, "no wider than the swizzle's span");
  m = ok, m.swizzle = 0, m.box[0] = 128; /* without a swizzle, fine */
  CHECK(emu_tma_encode(&m, b, &why));
  m = ok, m.estrides[1] = 9;
  CHECK(!emu_tma_encode(&m, b, &why));
  m = ok, m.dims[1] = 0;
  CHECK(!emu_tma_encode(&m, b, &why));
  m = ok, m.type = EMU_TMA_I32, m.oob_nan = 1, m.box[0] = 32;
  CHECK(!emu_tma_encode(&m, b, &why));
  CHECK_CONTAINS(why, "floating-point");
  m = ok, m.swizzle = 4;
  CHECK(!emu_tma_encode(&m, b, &why));
  /* bytes that are no map */
  memset(b, 0, sizeof b);
  CHECK(!emu_tma_decode(b, &m, &why));
  CHECK_CONTAINS(why, "not a tensor map");
}

/* A load partly outside the tensor, without a swizzle: each element where
 * it belongs, zeros outside. */
static void load_bounds(void) {
  EmuTensorMap m = map2d(64, 32, 0);
  CHECK(emu_tma_box_bytes(&m) == 64 * 32 * 2);
  memset(smem, 0xcd, sizeof smem);
  const char *why = NULL;
  int32_t at[5] = {-8, 40};
  CHECK(emu_tma_load(&m, at, 1024, &mem, &why));
  int bad = 0;
  for (int r = 0; r < 32; r++)
    for (int c = 0; c < 64; c++) {
      int gr = 40 + r, gc = -8 + c;
      uint16_t want = gr < ROWS && gc >= 0 && gc < COLS ? value(gr, gc) : 0, got;
      memcpy(&got, smem + 1024 + (r * 64 + c) * 2, 2);
      bad += got != want;
    }
  CHECK(bad == 0);
  /* nothing written past the box */
  CHECK(smem[1024 + 4096] == 0xcd && smem[1023] == 0xcd);
  /* past the end of dimension 0 too */
  int32_t right[5] = {72, 0};
  CHECK(emu_tma_load(&m, right, 0, &mem, &why));
  uint16_t x;
  memcpy(&x, smem + (3 * 64 + 27) * 2, 2);
  CHECK(x == value(3, 99));
  memcpy(&x, smem + (3 * 64 + 28) * 2, 2);
  CHECK(x == 0);
  /* a misaligned shared address */
  CHECK(!emu_tma_load(&m, at, 1040, &mem, &why));
  CHECK_CONTAINS(why, "128-byte aligned");
}

/* The swizzles: 16-byte chunk c of row r at c ^ ((r span / 128) % (span / 16)),
 * and where wgmma's K-major canonical layout of that swizzle reads (m, k). */
static void swizzles(void) {
  static const int spans[] = {32, 64, 128};
  for (int s = 0; s < 3; s++) {
    int span = spans[s], cols = span / 2;
    EmuTensorMap m = map2d((uint32_t)cols, 16, s + 1);
    memset(smem, 0, sizeof smem);
    const char *why = NULL;
    int32_t at[5] = {4, 3};
    CHECK(emu_tma_load(&m, at, 2048, &mem, &why));
    /* wgmma: K-major, the same swizzle, eight rows of `span` bytes apart by SBO */
    uint64_t desc = (uint64_t)(2048 >> 4) | (uint64_t)1 << 16 | (uint64_t)((8 * span) >> 4) << 32 |
                    (uint64_t)(span == 128 ? 1 : span == 64 ? 2 : 3) << 62;
    EmuWgDesc d = emu_wgmma_desc(desc);
    int bad = 0, bad_wg = 0;
    for (int r = 0; r < 16; r++)
      for (int c = 0; c < cols; c++) {
        int chunk = (c * 2) / 16, phase = (r * span / 128) % (span / 16);
        uint32_t place = 2048 + (uint32_t)(r * span + ((chunk ^ phase) * 16) + (c * 2) % 16);
        uint16_t got;
        memcpy(&got, smem + place, 2);
        bad += got != value(3 + r, 4 + c);
        bad_wg += emu_wgmma_address(&d, false, 16, r, c) != place;
      }
    CHECK(bad == 0);
    CHECK(bad_wg == 0);
  }
}

/* Element strides: ceil(box / stride) rows, every stride-th; a 3-D map. */
static void strides_and_rank(void) {
  EmuTensorMap m = map2d(16, 7, 0);
  m.estrides[1] = 2;
  m.estrides[0] = 5; /* ignored */
  CHECK(emu_tma_box_elems(&m, 1) == 4 && emu_tma_box_elems(&m, 0) == 16 && emu_tma_box_bytes(&m) == 4 * 16 * 2);
  memset(smem, 0, sizeof smem);
  const char *why = NULL;
  int32_t at[5] = {0, 10};
  CHECK(emu_tma_load(&m, at, 0, &mem, &why));
  int bad = 0;
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 16; c++) {
      uint16_t got;
      memcpy(&got, smem + (r * 16 + c) * 2, 2);
      bad += got != value(10 + 2 * r, c);
    }
  CHECK(bad == 0);
  /* 3-D: the 50 rows as 5 planes of 10 */
  EmuTensorMap t = {.address = base, .rank = 3, .type = EMU_TMA_F16, .dims = {COLS, 10, 5}, .strides = {2, PITCH, 10 * PITCH},
                    .box = {8, 4, 2}, .estrides = {1, 1, 1}};
  int32_t at3[5] = {96, 8, 4};
  memset(smem, 0xcd, sizeof smem);
  CHECK(emu_tma_load(&t, at3, 0, &mem, &why));
  bad = 0;
  for (int p = 0; p < 2; p++)
    for (int r = 0; r < 4; r++)
      for (int c = 0; c < 8; c++) {
        int gp = 4 + p, gr = 8 + r, gc = 96 + c;
        uint16_t want = gp < 5 && gr < 10 && gc < COLS ? value(gp * 10 + gr, gc) : 0, got;
        memcpy(&got, smem + ((p * 4 + r) * 8 + c) * 2, 2);
        bad += got != want;
      }
  CHECK(bad == 0);
}

/* A store: the box's elements inside the tensor written, the others skipped. */
static void store_bounds(void) {
  EmuTensorMap m = map2d(32, 8, 2);
  memset(out_tensor, 0xee, sizeof out_tensor);
  for (int r = 0; r < 8; r++)
    for (int c = 0; c < 32; c++) {
      uint32_t idx[5] = {(uint32_t)c, (uint32_t)r};
      uint16_t v = (uint16_t)(r * 100 + c);
      memcpy(smem + emu_tma_smem_offset(&m, 512, idx), &v, 2);
    }
  const char *why = NULL;
  int32_t at[5] = {80, 45};
  CHECK(emu_tma_store(&m, at, 512, &mem, &why));
  int bad = 0;
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < PITCH / 2; c++) {
      bool in = r >= 45 && r < 53 && c >= 80 && c < 112 && r < ROWS && c < COLS;
      uint16_t want = in ? (uint16_t)((r - 45) * 100 + (c - 80)) : 0xeeee;
      bad += out_tensor[r * PITCH / 2 + c] != want;
    }
  CHECK(bad == 0);
}

/* The NaN fill of a float map. */
static void nan_fill(void) {
  static float f[4 * 8];
  for (int i = 0; i < 32; i++) f[i] = (float)i;
  uint64_t saved = base;
  base = 0x20000;
  EmuTensorMap m = {.address = base, .rank = 2, .type = EMU_TMA_F32, .dims = {8, 4}, .strides = {4, 32}, .box = {8, 2},
                    .estrides = {1, 1}, .oob_nan = 1};
  memcpy(tensor, f, sizeof f);
  const char *why = NULL;
  int32_t at[5] = {-4, 3};
  CHECK(emu_tma_load(&m, at, 0, &mem, &why));
  float got[16];
  memcpy(got, smem, sizeof got);
  CHECK(isnan(got[0]) && isnan(got[3]) && got[4] == 24.0f && got[7] == 27.0f && isnan(got[8]) && isnan(got[15]));
  base = saved;
  setup();
}

int unit_main(void) {
  setup();
  rules();
  load_bounds();
  swizzles();
  strides_and_rank();
  store_bounds();
  nan_fill();
  return 0;
}
