/*
 * test_pick.c — the dispatchers `tilec aot` generates, without a GPU.
 *
 * Built by run-aot.sh against three generated launchers: vadd (vector add,
 * an aligned signature before an unaligned one, with a grid expression),
 * vone (only the aligned signature, the grid given at launch) and vgrid
 * (a grid that calls every helper). It links against the toolkit's
 * link-only libcuda, whose every call fails: what it checks is what the generated code decides
 * before it reaches the driver — the signature the hints pick, the errors
 * for no fit, a grid out of range, and a launch before load.
 */
#include <stdio.h>
#include <string.h>

#include "vadd.h"
#include "vgrid.h"
#include "vone.h"

static int failures;

#define EXPECT_EQ(got, want)                                                                           \
  do {                                                                                                 \
    long long g_ = (long long)(got), w_ = (long long)(want);                                           \
    if (g_ != w_) {                                                                                    \
      fprintf(stderr, "%s:%d: %s is %lld, expected %lld\n", __FILE__, __LINE__, #got, g_, w_);         \
      failures++;                                                                                      \
    }                                                                                                  \
  } while (0)

#define EXPECT_LOG(got, want)                                                                          \
  do {                                                                                                 \
    const char *g_ = (got), *w_ = (want);                                                              \
    if (strcmp(g_, w_)) {                                                                              \
      fprintf(stderr, "%s:%d: the log is\n%s\nexpected\n%s\n", __FILE__, __LINE__, g_, w_);            \
      failures++;                                                                                      \
    }                                                                                                  \
  } while (0)

int main(void) {
  /* aligned pointers and n % 16 == 0 pick the specialized signature 0 */
  EXPECT_EQ(vadd_pick(0x1000, 0x2000, 0x3000, 1024), 0);
  EXPECT_EQ(vadd_pick(0, 16, 32, 16), 0);
  /* any unaligned pointer, or a ragged n, falls through to signature 1 */
  EXPECT_EQ(vadd_pick(0x1004, 0x2000, 0x3000, 1024), 1);
  EXPECT_EQ(vadd_pick(0x1000, 0x2008, 0x3000, 1024), 1);
  EXPECT_EQ(vadd_pick(0x1000, 0x2000, 0x3001, 1024), 1);
  EXPECT_EQ(vadd_pick(0x1000, 0x2000, 0x3000, 1000), 1);
  EXPECT_EQ(vadd_pick(0x1000, 0x2000, 0x3000, -16), 0);
  /* with only the aligned signature, nothing fits an unaligned pointer */
  EXPECT_EQ(vone_pick(0x1000, 0x2000, 0x3000, 1024), 0);
  EXPECT_EQ(vone_pick(0x1004, 0x2000, 0x3000, 1024), -1);
  EXPECT_EQ(vone(NULL, 1, 1, 1, 0x1004, 0x2000, 0x3000, 1024), CUDA_ERROR_INVALID_VALUE);

  /* before load: every launch is refused, whichever signature it picks */
  EXPECT_EQ(vadd_0(NULL, 1, 1, 1, 0x1000, 0x2000, 0x3000, 1024), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(vadd_1(NULL, 1, 1, 1, 0x1004, 0x2000, 0x3000, 1000), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(vadd(NULL, 0x1000, 0x2000, 0x3000, 1024), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(vadd(NULL, 0x1004, 0x2000, 0x3000, 1000), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(vone(NULL, 1, 1, 1, 0x1000, 0x2000, 0x3000, 1024), CUDA_ERROR_NOT_INITIALIZED);

  /* the grid is checked before the launch: cdiv(0, 1024) is 0 programs, and
   * cdiv(-5, 1024) fewer */
  EXPECT_EQ(vadd(NULL, 0x1000, 0x2000, 0x3000, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(vadd(NULL, 0x1004, 0x2000, 0x3000, -5), CUDA_ERROR_INVALID_VALUE);
  /* vgrid's y is (n // 16) % 7 + 1 ... and z = 65536 // n: too large for n = 1 */
  EXPECT_EQ(vgrid(NULL, 0x1000, 0x2000, 0x3000, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(vgrid(NULL, 0x1000, 0x2000, 0x3000, 2), CUDA_ERROR_NOT_INITIALIZED);
  /* a division by zero in the grid (n == 0) is an error, not a crash */
  EXPECT_EQ(vgrid(NULL, 0x1000, 0x2000, 0x3000, 0), CUDA_ERROR_INVALID_VALUE);

  /* load on the stub: an error, and a log that says what the driver said */
  EXPECT_EQ(vadd_load(NULL), 34);
  EXPECT_LOG(vadd_load_log(), "vadd_load: cuCtxGetCurrent: CUDA_ERROR_STUB_LIBRARY (CUresult 34): libcuda.so.1 is "
                              "the CUDA toolkit's link-only stub, not a driver\n");
  EXPECT_EQ(vadd_load((CUcontext)&failures), 34); /* the stub reads no context */
  EXPECT_LOG(vadd_load_log(), "vadd_load: the context cannot be made current: CUDA_ERROR_STUB_LIBRARY (CUresult 34): "
                              "libcuda.so.1 is the CUDA toolkit's link-only stub, not a driver\n");
  vadd_unload();
  vadd_unload(); /* twice is harmless */

  if (failures) {
    fprintf(stderr, "test_pick: %d failures\n", failures);
    return 1;
  }
  printf("test_pick: ok\n");
  return 0;
}
