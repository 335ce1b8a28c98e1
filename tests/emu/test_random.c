/*
 * test_random.c — Triton's random numbers on the CPU emulator, against the
 * numbers Triton itself gave: the kernels of filecheck/ptx_random.py, run
 * with the seeds and offsets of random_ref.h, which gen_random_ref.py made
 * in Triton's interpreter. Philox's words (randint, randint4x, philox,
 * philox_impl, 32- and 64-bit) must match to the bit, and so must the
 * uniform floats (rand, rand4x, uint_to_uniform_float: exact integer to
 * float conversion and one multiplication). The normal floats (randn,
 * randn4x, pair_uniform_to_normal) go through log, sqrt, cos and sin, which
 * tilec computes as Triton does on a GPU (sqrt.approx.ftz, and libdevice's
 * logf, cosf and sinf; the emulator with the C library's functions), and
 * Triton's interpreter with NumPy's: they are compared within NORMAL_TOL,
 * absolute, plus NORMAL_REL of the value. On the emulator they differ by
 * 3 ulp at most (2.4e-7); the bound also holds on a GPU, whose libdevice
 * functions are within 2 ulp.
 *
 * usage: test_random FILECHECK_DIR
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emu/emu.h"
#include "tilec/tilec.h"
#include "emu_test.h"
#include "random_ref.h"

#define NORMAL_TOL 4e-6
#define NORMAL_REL 2e-6

static const char *dir;

static float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* Counts the elements of got that differ from want: bits, or within the
 * normals' tolerance; reports the first few. */
static int compare(const char *what, int n_case, const uint32_t *got, const uint32_t *want, int n, bool normal) {
  int bad = 0;
  for (int i = 0; i < n; i++) {
    float g = float_of(got[i]), w = float_of(want[i]);
    bool ok = normal ? fabsf(g - w) <= NORMAL_TOL + NORMAL_REL * fabsf(w) : got[i] == want[i];
    if (!ok && bad++ < 4) fprintf(stderr, "case %d: %s[%d] = %08x (%.9g), Triton %08x (%.9g)\n", n_case, what, i, got[i], g, want[i], w);
  }
  return bad;
}

static int compare64(const char *what, int n_case, const uint64_t *got, const uint64_t *want, int n) {
  int bad = 0;
  for (int i = 0; i < n; i++)
    if (got[i] != want[i] && bad++ < 4)
      fprintf(stderr, "case %d: %s[%d] = %016llx, Triton %016llx\n", n_case, what, i, (unsigned long long)got[i],
              (unsigned long long)want[i]);
  return bad;
}

/* A scalar argument of the signature's type `ty` ("i32", "u64", ...). */
typedef union Scalar {
  int32_t i32;
  int64_t i64;
} Scalar;

static void *scalar(Scalar *s, const char *ty, int64_t v) {
  if (ty[1] == '3') s->i32 = (int32_t)v;
  else s->i64 = v;
  return s;
}

/* rand_forms: randint, randint4x, rand, rand4x, randn and randn4x at
 * offsets base + i, every seed and offset dtype of the cases. */
static void rand_forms(void) {
  enum { B = RAND_BLOCK };
  for (int c = 0; c < (int)(sizeof rand_cases / sizeof *rand_cases); c++) {
    const struct RandCase *rc = &rand_cases[c];
    uint32_t words[5 * B], floats[10 * B];
    memset(words, 0xee, sizeof words), memset(floats, 0xee, sizeof floats);
    char sig[128];
    snprintf(sig, sizeof sig, "*u32, *fp32, %s, %s, %d, %d", rc->seed_type, rc->base_type, B, rc->rounds);
    Scalar seed, base;
    EmuBuffer bf[2] = {{words, sizeof words, "words"}, {floats, sizeof floats, "floats"}};
    void *p[2] = {words, floats};
    void *a[4] = {&p[0], &p[1], scalar(&seed, rc->seed_type, (int64_t)rc->seed), scalar(&base, rc->base_type, rc->base)};
    if (emu_run_file(dir, "ptx_random.py", "rand_forms", sig, 4, 1, a, 4, bf, 2)) continue;
    int bad = compare("randint, randint4x", c, words, rc->words, 5 * B, false);
    bad += compare("rand, rand4x", c, floats, rc->floats, 5 * B, false);
    bad += compare("randn, randn4x", c, floats + 5 * B, rc->floats + 5 * B, 5 * B, true);
    CHECK(bad == 0);
  }
}

/* philox_forms: tl.philox and tl.philox_impl in 32 and 64 bits, tensor
 * seeds, scalar counters, one round over words of different shapes, and
 * the floats of 64-bit words. */
static void philox_forms(void) {
  enum { B = RAND_BLOCK, S = PHILOX_SIDE, N32 = 9 * B + 4 + S * S + 3 * S, N64 = 6 * B + 2 };
  for (int c = 0; c < (int)(sizeof philox_cases / sizeof *philox_cases); c++) {
    const struct PhiloxCase *pc = &philox_cases[c];
    uint32_t w32[N32], floats[5 * B];
    uint64_t w64[N64];
    memset(w32, 0xee, sizeof w32), memset(w64, 0xee, sizeof w64), memset(floats, 0xee, sizeof floats);
    char sig[128];
    snprintf(sig, sizeof sig, "*u32, *u64, *fp32, i64, i32, i64, %d, %d", B, S);
    int64_t seed = pc->seed, base64 = pc->base64;
    int32_t base = pc->base;
    EmuBuffer bf[3] = {{w32, sizeof w32, "w32"}, {w64, sizeof w64, "w64"}, {floats, sizeof floats, "floats"}};
    void *p[3] = {w32, w64, floats};
    void *a[6] = {&p[0], &p[1], &p[2], &seed, &base, &base64};
    if (emu_run_file(dir, "ptx_random.py", "philox_forms", sig, 4, 1, a, 6, bf, 3)) continue;
    int bad = compare("32-bit words", c, w32, pc->w32, N32, false);
    bad += compare64("64-bit words", c, w64, pc->w64, N64);
    bad += compare("uniform floats", c, floats, pc->floats, 3 * B, false);
    bad += compare("normal floats", c, floats + 3 * B, pc->floats + 3 * B, 2 * B, true);
    CHECK(bad == 0);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILECHECK_DIR\n", argv[0]);
    return 2;
  }
  dir = argv[1];
  rand_forms();
  philox_forms();
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  else printf("test_random: all passed\n");
  return failures ? 1 : 0;
}
