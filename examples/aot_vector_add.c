/*
 * aot_vector_add.c — vector add from C with nothing but libcuda, through the
 * launcher `tilec aot` writes (tests/run-aot.sh builds it):
 *
 *   tilec aot examples/vector_add.py -k add_kernel \
 *     -s "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024" -s "*fp32, *fp32, *fp32, i32, 1024" \
 *     -g "cdiv(n_elements, BLOCK_SIZE)" --arch sm_80,sm_90a -o vadd
 *   gcc -std=c11 aot_vector_add.c vadd.c -lcuda
 *
 * It adds two vectors of random floats twice: once aligned, with a length
 * divisible by 16 (vadd_0, the specialized kernel), once starting one float
 * into each buffer with a ragged length (vadd_1), and checks both against
 * the sum on the host. Exit code 0 when every element matches.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>

#include "vadd.h"

#define CHECK(call)                                                                          \
  do {                                                                                       \
    CUresult r_ = (call);                                                                    \
    if (r_ != CUDA_SUCCESS) {                                                                \
      const char *name_ = NULL;                                                              \
      cuGetErrorName(r_, &name_);                                                            \
      fprintf(stderr, "aot_vector_add: %s failed: %s\n", #call, name_ ? name_ : "unknown"); \
      goto done;                                                                             \
    }                                                                                        \
  } while (0)

/* Uniform floats in [-1, 1) from a fixed seed: a failure can be repeated. */
static float next_random(uint64_t *x) {
  *x ^= *x >> 12, *x ^= *x << 25, *x ^= *x >> 27;
  return (float)((*x * 0x2545F4914F6CDD1Dull) >> 40) / 8388608.0f - 1.0f;
}

/* Adds n floats starting `skip` floats into each buffer; the number of mismatches, -1 on an error. */
static long add_and_check(CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, const float *hx, const float *hy,
                          float *hout, int skip, int32_t n) {
  long bad = -1;
  size_t off = (size_t)skip * sizeof(float);
  int picked = vadd_pick(x + off, y + off, out + off, n);
  CHECK(cuMemsetD8(out, 0xCD, (size_t)(n + skip) * sizeof(float)));
  CHECK(vadd(NULL, x + off, y + off, out + off, n));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(hout, out + off, (size_t)n * sizeof(float)));
  bad = 0;
  for (int32_t i = 0; i < n; i++)
    if (hout[i] != hx[skip + i] + hy[skip + i]) {
      if (bad++ < 5)
        fprintf(stderr, "aot_vector_add: out[%d] = %g, expected %g\n", (int)i, (double)hout[i],
                (double)(hx[skip + i] + hy[skip + i]));
    }
  printf("aot_vector_add: n=%d at offset %d: signature %d, %ld mismatches\n", (int)n, skip, picked, bad);
done:
  return bad;
}

int main(void) {
  enum { N = 98432 };
  int rc = 1;
  CUcontext ctx = NULL;
  CUdevice dev;
  CUdeviceptr x = 0, y = 0, out = 0;
  float *hx = malloc(N * sizeof *hx), *hy = malloc(N * sizeof *hy), *hout = malloc(N * sizeof *hout);
  if (!hx || !hy || !hout) goto done;
  uint64_t seed = 42;
  for (int i = 0; i < N; i++) {
    hx[i] = next_random(&seed);
    hy[i] = next_random(&seed);
  }
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  if (vadd_load(NULL) != CUDA_SUCCESS) {
    fprintf(stderr, "aot_vector_add: vadd_load failed:\n%s", vadd_load_log());
    goto done;
  }
  CHECK(cuMemAlloc(&x, N * sizeof(float)));
  CHECK(cuMemAlloc(&y, N * sizeof(float)));
  CHECK(cuMemAlloc(&out, N * sizeof(float)));
  CHECK(cuMemcpyHtoD(x, hx, N * sizeof(float)));
  CHECK(cuMemcpyHtoD(y, hy, N * sizeof(float)));
  long aligned = add_and_check(x, y, out, hx, hy, hout, 0, N);
  long ragged = add_and_check(x, y, out, hx, hy, hout, 1, N - 1 - 1000);
  rc = aligned == 0 && ragged == 0 ? 0 : 1;
done:
  if (x) cuMemFree(x);
  if (y) cuMemFree(y);
  if (out) cuMemFree(out);
  vadd_unload();
  if (ctx) cuDevicePrimaryCtxRelease(dev);
  free(hx);
  free(hy);
  free(hout);
  printf("aot_vector_add: %s\n", rc ? "FAILED" : "ok");
  return rc;
}
