/* test_status.c — the status of a call says what happened, and its
 * message why (common.h: a malloc'd text on failure, NULL on success): an
 * emulator check that fires through the JIT is TILEC_ERROR_CHECK, an
 * allocation the device cannot make TILEC_ERROR_NO_MEMORY, a driver call
 * that fails TILEC_ERROR_DEVICE; in runtime.h, TILEC_RT_NO_MEMORY,
 * TILEC_RT_LOAD_ERROR and TILEC_RT_CUDA_ERROR.
 *
 * The CUDA half runs on tests/unit/fake_cuda.c (FAKE_CUDA), loaded before
 * the runtime first opens a driver: its soname is libcuda.so.1, so the
 * runtime's dlopen("libcuda.so.1") finds it, on a machine with a real
 * driver as well. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

#include "tilec/runtime.h"
#include "tilec/tilec.h"
#include "unit.h"

/* A huge request must come back NULL under ASan too, not stop the test. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

static const char src[] = "import triton\n"
                          "import triton.language as tl\n"
                          "@triton.jit\n"
                          "def scale(x, y, n, s, B: tl.constexpr):\n"
                          "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
                          "    tl.store(y + o, tl.load(x + o, mask=o < n) * s, mask=o < n)\n";

/* The message of the call just made: set to a mark before each call, so
 * that a call that leaves it alone is caught. */
static char *msg;
#define CALL(call) (msg = (char *)&msg, (call))
/* Success leaves no message. */
#define CHECK_NONE() CHECK(msg == NULL)
/* A failure's message holds `text`; freed. */
#define CHECK_MSG(text)                                                                                                \
  do {                                                                                                                 \
    CHECK(msg != (char *)&msg);                                                                                        \
    if (msg != (char *)&msg) {                                                                                         \
      CHECK_CONTAINS(msg, text);                                                                                       \
      free(msg);                                                                                                       \
    }                                                                                                                  \
    msg = NULL;                                                                                                        \
  } while (0)

static void on_cpu(void) {
  tilec_device *cpu = NULL;
  CHECK(CALL(tilec_device_create(TILEC_DEVICE_CPU, &cpu, &msg)) == TILEC_OK);
  CHECK_NONE();
  tilec_devptr x = 0, y = 0, huge = 0;
  CHECK(CALL(tilec_device_alloc(cpu, 1000 * 4, &x, &msg)) == TILEC_OK);
  CHECK_NONE();
  CHECK(CALL(tilec_device_alloc(cpu, 1000 * 4, &y, &msg)) == TILEC_OK);
  CHECK_NONE();

  /* memory the device cannot give is not a usage error */
  CHECK(CALL(tilec_device_alloc(cpu, SIZE_MAX / 2, &huge, &msg)) == TILEC_ERROR_NO_MEMORY && !huge);
  CHECK_MSG("tilec_device_alloc: out of memory for");
  CHECK(CALL(tilec_device_alloc(cpu, SIZE_MAX, &huge, &msg)) == TILEC_ERROR_NO_MEMORY && !huge);
  CHECK_MSG("tilec_device_alloc: out of memory for");
  /* an address outside every allocation is */
  float host[8] = {0};
  CHECK(CALL(tilec_device_copy_to(cpu, x + 4000, host, sizeof host, &msg)) == TILEC_ERROR_USAGE);
  CHECK_MSG("tilec_device_copy_to: [0x");
  CHECK(CALL(tilec_device_copy_from(cpu, host, 16, sizeof host, &msg)) == TILEC_ERROR_USAGE);
  CHECK_MSG("is not within an allocation of the device");
  /* sizes and addresses whose sum wraps are outside too, not a copy past the heap */
  CHECK(CALL(tilec_device_copy_to(cpu, x + 8, host, SIZE_MAX - 4, &msg)) == TILEC_ERROR_USAGE);
  CHECK_MSG("is not within an allocation of the device");
  CHECK(CALL(tilec_device_copy_from(cpu, host, x, SIZE_MAX, &msg)) == TILEC_ERROR_USAGE);
  CHECK_MSG("is not within an allocation of the device");
  CHECK(CALL(tilec_device_copy_to(cpu, ~0ull - 7, host, sizeof host, &msg)) == TILEC_ERROR_USAGE);
  CHECK_MSG("is not within an allocation of the device");
  CHECK(CALL(tilec_device_copy_to(cpu, x + 3996, host, 4, &msg)) == TILEC_OK); /* the last 4 bytes */
  CHECK_NONE();
  CHECK(CALL(tilec_device_free(cpu, x + 4, &msg)) == TILEC_ERROR_USAGE);
  CHECK_MSG("is not an allocation of the device");
  CHECK(CALL(tilec_device_alloc(NULL, 4, &huge, &msg)) == TILEC_ERROR_USAGE);
  CHECK_MSG("tilec_device_alloc: the device is NULL");

  tilec_jit_options o = {.signature = "*fp32, *fp32, i32, fp32, 256", .no_disk_cache = 1};
  tilec_kernel *k = NULL;
  CHECK(CALL(tilec_kernel_create(cpu, "scale.py", src, sizeof src - 1, &o, &k, &msg)) == TILEC_OK && k);
  CHECK_NONE();
  unsigned grid[3] = {4, 1, 1};
  float in[1000]; /* the emulator reports reads of device memory nothing wrote */
  for (int i = 0; i < 1000; i++) in[i] = (float)i;
  CHECK(tilec_device_copy_to(cpu, x, in, sizeof in, NULL) == TILEC_OK);
  CHECK(CALL(tilec_kernel_launchv(k, grid, NULL, &msg, x, y, 1000, 2.0)) == TILEC_OK);
  CHECK_NONE();
  /* an emulator check that fires at run time: n past the buffers' end */
  CHECK(CALL(tilec_kernel_launchv(k, grid, NULL, &msg, x, y, 1024, 2.0)) == TILEC_ERROR_CHECK);
  CHECK_MSG("scale.py:6:5: out-of-bounds store");
  CHECK(CALL(tilec_kernel_launchv(NULL, grid, NULL, &msg, x, y, 1000, 2.0)) == TILEC_ERROR_USAGE);
  CHECK_MSG("tilec_kernel_launchv: the kernel is NULL");
  tilec_kernel_destroy(k);

  CHECK(CALL(tilec_device_free(cpu, x, &msg)) == TILEC_OK);
  CHECK_NONE();
  CHECK(tilec_device_free(cpu, y, NULL) == TILEC_OK);
  tilec_device_destroy(cpu);
}

static void on_fake_cuda(void) {
  tilec_device *d = NULL;
  CHECK(CALL(tilec_device_create(TILEC_DEVICE_CUDA, &d, &msg)) == TILEC_OK && d);
  CHECK_NONE();
  if (!d) return;
  CHECK(tilec_device_kind_of(d) == TILEC_DEVICE_CUDA);
  tilec_devptr x = 0, y = 0, huge = 0;
  CHECK(CALL(tilec_device_alloc(d, (size_t)1 << 41, &huge, &msg)) == TILEC_ERROR_NO_MEMORY && !huge);
  CHECK_MSG("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory");
  CHECK(tilec_device_alloc(d, 1000 * 4, &x, NULL) == TILEC_OK && tilec_device_alloc(d, 1000 * 4, &y, NULL) == TILEC_OK);
  float host[1000];
  for (int i = 0; i < 1000; i++) host[i] = (float)i + 0.5f;
  CHECK(CALL(tilec_device_copy_to(d, x, host, sizeof host, &msg)) == TILEC_OK);
  CHECK_NONE();
  CHECK(CALL(tilec_device_free(d, x + 4, &msg)) == TILEC_ERROR_USAGE); /* the driver's CUDA_ERROR_INVALID_VALUE */
  CHECK_MSG("cuMemFree failed: CUDA_ERROR_INVALID_VALUE (1): invalid argument");

  tilec_jit_options o = {.signature = "*fp32, *fp32, i32, fp32, 256", .no_disk_cache = 1};
  tilec_kernel *k = NULL;
  CHECK(CALL(tilec_kernel_create(d, "scale.py", src, sizeof src - 1, &o, &k, &msg)) == TILEC_OK && k);
  CHECK_NONE();
  /* a failed driver launch is the device's failure, not "unsupported" */
  unsigned grid[3] = {4, 1, 1};
  CHECK(CALL(tilec_kernel_launchv(k, grid, NULL, &msg, x, y, 1000, 2.0)) == TILEC_ERROR_DEVICE);
  CHECK_MSG("cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED (719): unspecified launch failure");
  tilec_kernel_destroy(k);
  CHECK(tilec_device_free(d, x, NULL) == TILEC_OK && tilec_device_free(d, y, NULL) == TILEC_OK);
  tilec_device_destroy(d);

  /* runtime.h on the same driver */
  tilec_cuda *c = NULL;
  CHECK(CALL(tilec_cuda_open(0, &c, &msg)) == TILEC_RT_OK && c);
  CHECK_NONE();
  CHECK(tilec_cuda_arch(c) == 80);
  CHECK(CALL(tilec_cuda_alloc(c, (size_t)1 << 41, &huge, &msg)) == TILEC_RT_NO_MEMORY);
  CHECK_MSG("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2)");
  size_t bytes = 0;
  CHECK(CALL(tilec_cuda_extent(c, 16, &bytes, &msg)) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_extent: 0x10 is not in an allocation");
  /* memset writes the byte over the range, and no further */
  tilec_devptr z = 0;
  unsigned char back[64];
  CHECK(tilec_cuda_alloc(c, sizeof back, &z, NULL) == TILEC_RT_OK && z);
  CHECK(tilec_cuda_memset(c, z, 0, sizeof back, NULL) == TILEC_RT_OK);
  CHECK(CALL(tilec_cuda_memset(c, z + 8, 0xab, 16, &msg)) == TILEC_RT_OK);
  CHECK_NONE();
  CHECK(tilec_cuda_copy_from(c, back, z, sizeof back, NULL) == TILEC_RT_OK);
  CHECK(back[7] == 0 && back[8] == 0xab && back[23] == 0xab && back[24] == 0);
  CHECK(tilec_cuda_free(c, z, NULL) == TILEC_RT_OK);
  /* events: elapsed time between two records, never negative */
  tilec_cuda_event *e0 = NULL, *e1 = NULL;
  float ms = -1;
  CHECK(tilec_cuda_event_create(c, &e0, NULL) == TILEC_RT_OK && tilec_cuda_event_create(c, &e1, NULL) == TILEC_RT_OK);
  CHECK(tilec_cuda_event_record(e0, NULL, NULL) == TILEC_RT_OK && tilec_cuda_event_record(e1, NULL, NULL) == TILEC_RT_OK);
  CHECK(CALL(tilec_cuda_event_elapsed(e0, e1, &ms, &msg)) == TILEC_RT_OK && ms >= 0);
  CHECK_NONE();
  tilec_cuda_event_destroy(e0);
  tilec_cuda_event_destroy(e1);
  tilec_cuda_module *m = NULL;
  static const char bad[] = "bad image";
  CHECK(CALL(tilec_cuda_module_load(c, bad, sizeof bad, "k", 4, 0, &m, &msg)) == TILEC_RT_LOAD_ERROR && !m);
  CHECK_MSG("the kernel image does not load: CUDA_ERROR_INVALID_PTX (218): a PTX JIT compilation failed\n"
            "ptxas fatal: the image is not PTX");
  static const char good[] = ".version 8.0";
  CHECK(CALL(tilec_cuda_module_load(c, good, sizeof good, "k", 4, 0, &m, &msg)) == TILEC_RT_OK && m);
  CHECK_NONE();
  unsigned long long arg0 = 0;
  void *one[1] = {&arg0}, *none[1] = {NULL};
  CHECK(CALL(tilec_cuda_launch(m, grid, one, NULL, &msg)) == TILEC_RT_CUDA_ERROR);
  CHECK_MSG("cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED (719)");
  /* the driver says the kernel has a parameter: its argument must be there */
  CHECK(CALL(tilec_cuda_launch(m, grid, none, NULL, &msg)) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_launch: args[0] is NULL");
  CHECK(CALL(tilec_cuda_launch(m, grid, NULL, NULL, &msg)) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_launch: args is NULL");
  /* a grid past CUDA's limits is refused before the driver sees it */
  unsigned tall[3] = {1, 70000, 1};
  CHECK(CALL(tilec_cuda_launch(m, tall, one, NULL, &msg)) == TILEC_RT_INVALID);
  CHECK_MSG("tilec_cuda_launch: the grid (1, 70000, 1): grid dimension y is 70000; the most is 65535");
  CHECK(CALL(tilec_cuda_synchronize(c, &msg)) == TILEC_RT_OK);
  CHECK_NONE();
  tilec_cuda_module_unload(m);
  tilec_cuda_close(c);
}

int unit_main(void) {
  on_cpu();
  if (!dlopen(FAKE_CUDA, RTLD_NOW | RTLD_LOCAL)) {
    fprintf(stderr, "the fake driver %s does not load: %s\n", FAKE_CUDA, dlerror());
    unit_failures++;
    return 0;
  }
  on_fake_cuda();
  return 0;
}
