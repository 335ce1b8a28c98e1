/* run-emu-data.c — inputs and checks for tests/run-emu.sh, so that no
 * Python is needed to test `tilec run`:
 *
 *   run-emu-data rand SEED N OUT.npy        N fp32 values in [-1, 1), none zero
 *   run-emu-data add X.npy Y.npy OUT.npy    OUT[i] == X[i] + Y[i] within 1e-6
 *                                           relative, and every element of OUT
 *                                           past X's end still 0xCD poison
 *
 * Exit 0 when the check holds, 1 with the first mismatches on stdout. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/npy.h"

static int fail(const char *what) {
  fprintf(stderr, "run-emu-data: %s\n", what);
  return 1;
}

static int cmd_rand(unsigned long long seed, unsigned long long n, const char *path) {
  float *v = malloc(n ? n * sizeof *v : 1);
  if (!v) return fail("out of memory");
  unsigned long long s = seed * 0x9e3779b97f4a7c15ull + 1;
  for (unsigned long long i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    float x = (float)(s >> 40) / (float)(1 << 24) * 2.0f - 1.0f;
    v[i] = x == 0.0f ? 0.5f : x;
  }
  char err[256];
  uint64_t shape[1] = {n};
  bool ok = npy_write_file(path, "<f4", 1, shape, v, err, sizeof err);
  free(v);
  return ok ? 0 : fail(err);
}

static int cmd_add(const char *xp, const char *yp, const char *op) {
  NpyArray x, y, o;
  char err[256];
  if (!npy_read_file(xp, &x, err, sizeof err) || !npy_read_file(yp, &y, err, sizeof err) ||
      !npy_read_file(op, &o, err, sizeof err))
    return fail(err);
  if (strcmp(x.dtype, "<f4") || strcmp(y.dtype, "<f4") || strcmp(o.dtype, "<f4")) return fail("expected <f4 arrays");
  if (y.count != x.count || o.count < x.count) return fail("the arrays' sizes do not fit");
  const float *a = x.data, *b = y.data, *c = o.data;
  size_t bad = 0;
  for (size_t i = 0; i < x.count; i++) {
    float ref = a[i] + b[i];
    if (!(fabsf(c[i] - ref) <= 1e-6f * fmaxf(1.0f, fabsf(ref)))) {
      if (bad++ < 5) printf("out[%zu] = %.9g, expected %.9g + %.9g = %.9g\n", i, c[i], a[i], b[i], ref);
    }
  }
  const unsigned char *tail = (const unsigned char *)o.data + x.nbytes;
  for (size_t i = 0; i < o.nbytes - x.nbytes; i++)
    if (tail[i] != 0xCD && bad++ < 5) printf("byte %zu past the end was written: 0x%02x\n", i, tail[i]);
  if (bad) printf("%zu mismatches in %zu elements\n", bad, o.count);
  npy_free(&x);
  npy_free(&y);
  npy_free(&o);
  return bad ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && !strcmp(argv[1], "rand"))
    return cmd_rand(strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10), argv[4]);
  if (argc == 5 && !strcmp(argv[1], "add")) return cmd_add(argv[2], argv[3], argv[4]);
  return fail("usage: run-emu-data rand SEED N OUT.npy | add X.npy Y.npy OUT.npy");
}
