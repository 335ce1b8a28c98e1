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
#include <stdlib.h>

#include "tilec/runtime.h"
#include "unit.h"

/* The message of the call just made (common.h): set before each call, so
 * that a call that leaves it alone is caught; checked, then freed. */
static char *msg;
#define CLEAR() (msg = (char *)&msg)
#define CHECK_MSG(expected)                                                                                            \
  do {                                                                                                                 \
    CHECK(msg != (char *)&msg);                                                                                        \
    if (msg != (char *)&msg) {                                                                                         \
      CHECK_STR(msg, expected);                                                                                        \
      free(msg);                                                                                                       \
    }                                                                                                                  \
    msg = NULL;                                                                                                        \
  } while (0)

static void null_handles(void) {
  tilec_devptr p = 0;
  size_t bytes = 0;
  char buf[16] = "";
  unsigned grid[3] = {1, 1, 1};
  tilec_cuda_module *m = (tilec_cuda_module *)&m; /* must not be touched */

  CLEAR();
  CHECK(tilec_cuda_open(0, NULL, &msg) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_open: out is NULL");
  CLEAR();
  CHECK(tilec_cuda_alloc(NULL, 16, &p, &msg) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_alloc: the device is NULL");
  CLEAR();
  CHECK(tilec_cuda_free(NULL, 0, &msg) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_free: the device is NULL");
  CLEAR();
  CHECK(tilec_cuda_copy_to(NULL, 0, buf, sizeof buf, &msg) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_copy_to: the device is NULL");
  CLEAR();
  CHECK(tilec_cuda_copy_from(NULL, buf, 0, sizeof buf, &msg) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_copy_from: the device is NULL");
  CLEAR();
  CHECK(tilec_cuda_synchronize(NULL, &msg) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_synchronize: the device is NULL");
  CLEAR();
  CHECK(tilec_cuda_extent(NULL, 0, &bytes, &msg) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_extent: the device is NULL");
  CLEAR();
  CHECK(tilec_cuda_memset(NULL, 0, 0, 16, &msg) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_memset: the device is NULL");
  CLEAR();
  tilec_cuda_event *ev = (tilec_cuda_event *)1;
  CHECK(tilec_cuda_event_create(NULL, &ev, &msg) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_event_create: the device is NULL");
  CHECK(ev == NULL);
  CLEAR();
  CHECK(tilec_cuda_event_record(NULL, NULL, &msg) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_event_record: the event is NULL");
  CLEAR();
  float ms = 0;
  CHECK(tilec_cuda_event_elapsed(NULL, NULL, &ms, &msg) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_event_elapsed: an event or ms is NULL");
  tilec_cuda_event_destroy(NULL);
  CLEAR();
  CHECK(tilec_cuda_module_load(NULL, "", 1, "k", 4, 0, &m, &msg) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_module_load: the device is NULL");
  CHECK(m == NULL);
  CLEAR();
  CHECK(tilec_cuda_module_load(NULL, "", 1, "k", 4, 0, NULL, &msg) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_module_load: out is NULL");
  CLEAR();
  CHECK(tilec_cuda_launch(NULL, grid, NULL, NULL, &msg) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_launch: the module is NULL");

  /* the message may be NULL */
  CHECK(tilec_cuda_free(NULL, 0, NULL) == TILEC_RT_INVALID);
  CHECK(tilec_cuda_extent(NULL, 0, &bytes, NULL) == TILEC_RT_INVALID);
  CHECK(tilec_cuda_alloc(NULL, 16, &p, NULL) == TILEC_RT_INVALID);
  CHECK(tilec_cuda_open(0, NULL, NULL) == TILEC_RT_INVALID);
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
  const char *said = "the CUDA driver does not initialize: cuInit failed: CUDA_ERROR_STUB_LIBRARY (34): libcuda.so.1 "
                     "is the CUDA toolkit's link-only stub, not a driver";
  CLEAR();
  CHECK(tilec_cuda_open(0, &c, &msg) == TILEC_RT_NO_DRIVER);
  CHECK(c == NULL);
  CHECK_MSG(said);
  /* the answer is kept: a second open says the same */
  CLEAR();
  CHECK(tilec_cuda_open(0, &c, &msg) == TILEC_RT_NO_DRIVER);
  CHECK_MSG(said);
#else
  fprintf(stderr, "skip: no CUDA toolkit stub to test against\n");
#endif
}

int unit_main(void) {
  null_handles();
  on_stub();
  return 0;
}
