/*
 * test_libdevice.c — libdevice's rounded arithmetic, conversions and
 * integer functions on the CPU emulator, against results written here from
 * the PTX ISA's definitions of add/mul/div/rcp/sqrt/fma with .rn .rz .rd
 * .ru, cvt.rni/.rzi.s32.f32, prmt, sad, brev, clz, bfind/ffs, popc,
 * mul.hi and the halving adds: the kernels of filecheck/ptx_libdevice_values.py.
 *
 * usage: test_libdevice FILECHECK_DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emu/emu.h"
#include "tilec/tilec.h"
#include "emu_test.h"

static const char *dir;

static void check_all(const char *kernel, const int32_t *got, const int32_t *want, int n) {
  for (int i = 0; i < n; i++)
    if (got[i] != want[i]) {
      fprintf(stderr, "%s: result %d is 0x%08x, expected 0x%08x\n", kernel, i, (unsigned)got[i], (unsigned)want[i]);
      failures++;
    }
}

static void rounded(void) {
  float x[8] = {1.0f, 0x1p-30f, 3.0f, 2.0f, 2.5f};
  int32_t out[16];
  memset(out, 0, sizeof out);
  EmuBuffer bf[2] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}};
  void *p[2] = {x, out};
  void *a[2] = {&p[0], &p[1]};
  if (emu_run_file(dir, "ptx_libdevice_values.py", "rounded", "*fp32, *i32", 4, 1, a, 2, bf, 2)) return;
  static const int32_t want[16] = {
      0x3f800000,                 /* 1 + 2^-30 to nearest: 1 */
      0x3f800000,                 /* toward zero: 1 */
      0x3f800001,                 /* up: the next float above 1 */
      (int32_t)0xbf800001,        /* -1 - 2^-30 down: the next float below -1 */
      0x3eaaaaaa,                 /* 1/3 toward zero */
      0x3eaaaaab,                 /* 1/3 up */
      0x3fb504f3,                 /* sqrt(2) to nearest */
      0x3fb504f4,                 /* sqrt(2) up */
      0x3eaaaaaa,                 /* 1/3 down */
      0x3f800001,                 /* 3 fl(1/3) = 1 + 2^-25 up: the float above 1 */
      0x33000000,                 /* fma 3 fl(1/3) - 1 = 2^-25, exact (fl(1/3) = 11184811 2^-25) */
      2,                          /* cvt.rni 2.5: to even */
      4,                          /* 3.5: to even */
      -2,                         /* -2.5: to even */
      -2,                         /* cvt.rzi -2.7: toward zero */
      (int32_t)0xc0000000,        /* the bits of -2.0 */
  };
  check_all("rounded", out, want, 16);
}

static void integers(void) {
  int32_t x[8] = {0x33221100, 0x77665544, 0x7531, 5, 9, -1};
  int32_t out[16];
  memset(out, 0, sizeof out);
  EmuBuffer bf[2] = {{x, sizeof x, "x"}, {out, sizeof out, "out"}};
  void *p[2] = {x, out};
  void *a[2] = {&p[0], &p[1]};
  if (emu_run_file(dir, "ptx_libdevice_values.py", "integers", "*i32, *i32", 4, 1, a, 2, bf, 2)) return;
  static const int32_t want[16] = {
      0x77553311,         /* prmt: bytes 1, 3, 5, 7 of {b, a} */
      104,                /* sad.s32: |5 - 9| + 100 */
      104,                /* sad.u32 */
      (int32_t)0x80000000, /* brev 1 */
      31,                 /* clz 1 */
      4,                  /* ffs 8: bit 3, counted from 1 */
      32,                 /* popc -1 */
      1,                  /* mul.hi.s32 0x33221100 * 8: 0x1_99108800 >> 32 */
      (int32_t)0xfffffffe, /* mul.hi.u32 0xffffffff^2 */
      4,                  /* hadd (-1 + 9) >> 1 */
      (int32_t)0x80000002, /* urhadd (0xffffffff + 5 + 1) >> 1 */
      5,                  /* umin(0xffffffff, 5) */
      5,                  /* max(-1, 5) */
      32,                 /* clz 0 */
      0,                  /* ffs 0 */
      -1,                 /* rhadd (-1 + -2 + 1) >> 1 */
  };
  check_all("integers", out, want, 16);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_libdevice FILECHECK_DIR\n");
    return 2;
  }
  dir = argv[1];
  rounded();
  integers();
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
