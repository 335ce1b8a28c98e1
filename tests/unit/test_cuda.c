/* test_cuda.c — runtime.h without a GPU: every function given a NULL handle
 * or argument fails with a message that names it, nothing crashes, a NULL
 * device has no compiler target; and on the CUDA toolkit's link-only stub
 * (CUDA_STUB, where the toolkit has one) tilec_cuda_open says what the
 * driver said.
 *
 * The stub is loaded before the runtime first opens the driver: its soname
 * is libcuda.so.1, so the runtime's dlopen("libcuda.so.1") finds it already
 * loaded, on a machine with a real driver as well. */
#include <dlfcn.h>
#include <stdint.h>

#include "tilec/runtime.h"
#include "unit.h"

/* err is cleared before each call, so that a message must come from it. */
static char err[512];
#define CLEAR() (err[0] = 0)

static void null_handles(void) {
  uint64_t p = 0;
  size_t bytes = 0;
  char buf[16] = "";
  unsigned grid[3] = {1, 1, 1};
  tilec_cuda_module *m = (tilec_cuda_module *)&m; /* must not be touched */

  CLEAR();
  CHECK(tilec_cuda_open(0, NULL, err, sizeof err) == TILEC_RT_INVALID);
  CHECK_STR(err, "tilec_cuda_open: out is NULL");
  CLEAR();
  CHECK(tilec_cuda_alloc(NULL, 16, &p, err, sizeof err) == TILEC_RT_INVALID);
  CHECK_STR(err, "tilec_cuda_alloc: the device is NULL");
  CLEAR();
  CHECK(tilec_cuda_copy_to(NULL, 0, buf, sizeof buf, err, sizeof err) == TILEC_RT_INVALID);
  CHECK_STR(err, "tilec_cuda_copy_to: the device is NULL");
  CLEAR();
  CHECK(tilec_cuda_copy_from(NULL, buf, 0, sizeof buf, err, sizeof err) == TILEC_RT_INVALID);
  CHECK_STR(err, "tilec_cuda_copy_from: the device is NULL");
  CLEAR();
  CHECK(tilec_cuda_synchronize(NULL, err, sizeof err) == TILEC_RT_INVALID);
  CHECK_STR(err, "tilec_cuda_synchronize: the device is NULL");
  CLEAR();
  CHECK(tilec_cuda_module_load(NULL, "", 1, "k", 4, 0, &m, err, sizeof err) == TILEC_RT_INVALID);
  CHECK_STR(err, "tilec_cuda_module_load: the device is NULL");
  CHECK(m == NULL);
  CLEAR();
  CHECK(tilec_cuda_module_load(NULL, "", 1, "k", 4, 0, NULL, err, sizeof err) == TILEC_RT_INVALID);
  CHECK_STR(err, "tilec_cuda_module_load: out is NULL");
  CLEAR();
  CHECK(tilec_cuda_launch(NULL, grid, NULL, NULL, err, sizeof err) == TILEC_RT_INVALID);
  CHECK_STR(err, "tilec_cuda_launch: the module is NULL");

  /* the functions without an err buffer fail too, and err may be NULL */
  CHECK(tilec_cuda_free(NULL, 0) == TILEC_RT_INVALID);
  CHECK(tilec_cuda_extent(NULL, 0, &bytes) == TILEC_RT_INVALID);
  CHECK(tilec_cuda_alloc(NULL, 16, &p, NULL, 0) == TILEC_RT_INVALID);
  CHECK(tilec_cuda_open(0, NULL, NULL, 0) == TILEC_RT_INVALID);
  tilec_cuda_close(NULL);
  tilec_cuda_module_unload(NULL);

  /* no device: no compute capability and no target (not a silent sm_80) */
  CHECK(tilec_cuda_arch(NULL) == 0);
  CHECK(tilec_cuda_target(NULL) == NULL);
}

/* On the stub, opening fails with the driver's own error, named. */
static void on_stub(void) {
#ifdef CUDA_STUB
  if (!dlopen(CUDA_STUB, RTLD_NOW | RTLD_LOCAL)) {
    fprintf(stderr, "skip: the stub %s does not load: %s\n", CUDA_STUB, dlerror());
    return;
  }
  tilec_cuda *c = (tilec_cuda *)&c;
  CLEAR();
  CHECK(tilec_cuda_open(0, &c, err, sizeof err) == TILEC_RT_NO_DRIVER);
  CHECK(c == NULL);
  CHECK_STR(err, "the CUDA driver does not initialize: cuInit failed: CUDA_ERROR_STUB_LIBRARY (34): libcuda.so.1 is "
                 "the CUDA toolkit's link-only stub, not a driver");
  /* the answer is kept: a second open says the same */
  char again[512] = "";
  CHECK(tilec_cuda_open(0, &c, again, sizeof again) == TILEC_RT_NO_DRIVER);
  CHECK_STR(again, err);
#else
  fprintf(stderr, "skip: no CUDA toolkit stub to test against\n");
#endif
}

int unit_main(void) {
  null_handles();
  on_stub();
  return 0;
}
