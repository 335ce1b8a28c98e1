/*
 * test_xla.c — the XLA FFI handlers `tilec aot --xla-ffi` writes, called
 * as XLA calls them, on the tests' fake CUDA driver (unit/fake_cuda.c,
 * first on LD_LIBRARY_PATH, its launches written to TRACE).
 *
 * Built by run-aot.sh against two launchers of examples/vector_add.py: vx
 * (two signatures, with a grid expression) and vy (one signature, the grid
 * an attribute). The XLA side is this file's: an XLA_FFI_Api with the two
 * entry points a handler calls (errors, the stream) and call frames laid
 * out as xla/ffi/api/c_api.h defines them. Checked: the metadata query,
 * launches (against the trace: grid and first argument), and each error a
 * call can get.
 *
 *   test_xla TRACE
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "vx.h"
#include "vy.h"
#include "xla/ffi/api/c_api.h"

static int failures;

/* XLA's side: an error is its message and code */
struct XLA_FFI_Error {
  char message[1024];
  XLA_FFI_Error_Code code;
};
static struct XLA_FFI_Error last_error;

static XLA_FFI_Error *error_create(XLA_FFI_Error_Create_Args *a) {
  snprintf(last_error.message, sizeof last_error.message, "%s", a->message);
  last_error.code = a->errc;
  return &last_error;
}

static XLA_FFI_Error *stream_get(XLA_FFI_Stream_Get_Args *a) {
  a->stream = NULL; /* the default stream */
  return NULL;
}

static XLA_FFI_Api api;

/* One call: operands, results (buffers), and scalar attributes s32 or s64. */
typedef struct Call {
  XLA_FFI_Buffer bufs[4];
  int64_t dims[4];
  XLA_FFI_ArgType arg_types[4];
  XLA_FFI_RetType ret_types[4];
  void *args[4], *rets[4];
  XLA_FFI_ByteSpan spans[4];
  XLA_FFI_ByteSpan *names[4];
  XLA_FFI_AttrType attr_types[4];
  void *attrs[4];
  XLA_FFI_Scalar scalars[4];
  XLA_FFI_Array arrays[4];
  int64_t values[4][3];
  XLA_FFI_CallFrame frame;
} Call;

static void call_init(Call *c) {
  memset(c, 0, sizeof *c);
  c->frame.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE;
  c->frame.api = &api;
  c->frame.ctx = (XLA_FFI_ExecutionContext *)&api; /* opaque to the handler: it passes it back */
  c->frame.stage = XLA_FFI_ExecutionStage_EXECUTE;
  c->frame.args.struct_size = XLA_FFI_Args_STRUCT_SIZE;
  c->frame.args.types = c->arg_types;
  c->frame.args.args = c->args;
  c->frame.rets.struct_size = XLA_FFI_Rets_STRUCT_SIZE;
  c->frame.rets.types = c->ret_types;
  c->frame.rets.rets = c->rets;
  c->frame.attrs.struct_size = XLA_FFI_Attrs_STRUCT_SIZE;
  c->frame.attrs.types = c->attr_types;
  c->frame.attrs.names = c->names;
  c->frame.attrs.attrs = c->attrs;
}

static void add_buffer(Call *c, int ret, XLA_FFI_DataType t, CUdeviceptr p, int64_t n) {
  int i = (int)(c->frame.args.size + c->frame.rets.size);
  c->dims[i] = n;
  c->bufs[i] = (XLA_FFI_Buffer){XLA_FFI_Buffer_STRUCT_SIZE, NULL, t, (void *)(uintptr_t)p, 1, &c->dims[i]};
  if (ret) {
    c->ret_types[c->frame.rets.size] = XLA_FFI_RetType_BUFFER;
    c->rets[c->frame.rets.size++] = &c->bufs[i];
  } else {
    c->arg_types[c->frame.args.size] = XLA_FFI_ArgType_BUFFER;
    c->args[c->frame.args.size++] = &c->bufs[i];
  }
}

/* A scalar attribute (n = 0: of type t) or an array of n s64 (t ignored). */
static void add_attr(Call *c, const char *name, XLA_FFI_DataType t, int n, int64_t v0, int64_t v1) {
  int i = (int)c->frame.attrs.size++;
  c->spans[i] = (XLA_FFI_ByteSpan){name, strlen(name)};
  c->names[i] = &c->spans[i];
  c->values[i][0] = v0, c->values[i][1] = v1;
  if (n) {
    c->arrays[i] = (XLA_FFI_Array){XLA_FFI_DataType_S64, (size_t)n, c->values[i]};
    c->attr_types[i] = XLA_FFI_AttrType_ARRAY;
    c->attrs[i] = &c->arrays[i];
    return;
  }
  if (t == XLA_FFI_DataType_S32) {
    int32_t v = (int32_t)v0;
    memcpy(c->values[i], &v, sizeof v);
  }
  c->scalars[i] = (XLA_FFI_Scalar){t, c->values[i]};
  c->attr_types[i] = XLA_FFI_AttrType_SCALAR;
  c->attrs[i] = &c->scalars[i];
}

static XLA_FFI_Error *run(void *handler, Call *c) {
  XLA_FFI_Handler *h;
  memcpy(&h, &handler, sizeof h);
  return h(&c->frame);
}

/* The call's error message contains want. */
static void expect_error(void *handler, Call *c, const char *want, int line) {
  XLA_FFI_Error *e = run(handler, c);
  if (!e || !strstr(e->message, want)) {
    fprintf(stderr, "%s:%d: the call's error is '%s', expected one with '%s'\n", __FILE__, line, e ? e->message : "(none)",
            want);
    failures++;
  }
}

static int count_launches(const char *trace, char *last, size_t n) {
  FILE *f = fopen(trace, "r");
  int count = 0;
  char line[256];
  last[0] = 0;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "launch", 6)) {
      count++;
      line[strcspn(line, "\n")] = 0;
      snprintf(last, n, "%s", line);
    }
  if (f) fclose(f);
  return count;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_xla TRACE\n");
    return 2;
  }
  const char *trace = argv[1];
  api.struct_size = XLA_FFI_Api_STRUCT_SIZE;
  api.XLA_FFI_Error_Create = error_create;
  api.XLA_FFI_Stream_Get = stream_get;

  /* the host program: a context current (XLA's), and device memory */
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return fprintf(stderr, "the fake driver does not open: %s\n", dlerror()), 1;
  CUresult (*retain)(CUcontext *, CUdevice) = NULL;
  CUresult (*push)(CUcontext) = NULL;
  CUresult (*alloc)(CUdeviceptr *, size_t) = NULL;
  *(void **)&retain = dlsym(lib, "cuDevicePrimaryCtxRetain");
  *(void **)&push = dlsym(lib, "cuCtxPushCurrent_v2");
  *(void **)&alloc = dlsym(lib, "cuMemAlloc_v2");
  CUcontext ctx = NULL;
  CUdeviceptr x = 0, y = 0, out = 0;
  if (!retain || !push || !alloc || retain(&ctx, 0) || push(ctx) || alloc(&x, 16384) || alloc(&y, 16384) ||
      alloc(&out, 16384))
    return fprintf(stderr, "no context or memory on the fake driver\n"), 1;

  /* XLA's metadata query: the API version the handler was built against */
  Call c;
  call_init(&c);
  XLA_FFI_Metadata md;
  memset(&md, 0, sizeof md);
  md.struct_size = XLA_FFI_Metadata_STRUCT_SIZE;
  XLA_FFI_Metadata_Extension ext = {{XLA_FFI_Metadata_Extension_STRUCT_SIZE, XLA_FFI_Extension_Metadata, NULL}, &md};
  c.frame.extension_start = &ext.extension_base;
  EXPECT(run(vx_xla_ffi_handler(), &c) == NULL, "the metadata query failed");
  EXPECT(md.api_version.major_version == XLA_FFI_API_MAJOR && md.api_version.minor_version == XLA_FFI_API_MINOR,
         "the metadata says API %d.%d", md.api_version.major_version, md.api_version.minor_version);

  char last[256];
  /* vx: x, y operands, out the result, n_elements an attribute; the grid from it */
  const struct {
    XLA_FFI_DataType t;
    int64_t n;
    const char *launch;
  } ok[] = {
      {XLA_FFI_DataType_S32, 1000, "launch 1 1 1, 128 threads, argument 0 in allocation 0"},
      {XLA_FFI_DataType_S64, 3000, "launch 3 1 1, 128 threads, argument 0 in allocation 0"},
  };
  for (int i = 0; i < 2; i++) {
    call_init(&c);
    add_buffer(&c, 0, XLA_FFI_DataType_F32, x, ok[i].n);
    add_buffer(&c, 0, XLA_FFI_DataType_F32, y, ok[i].n);
    add_buffer(&c, 1, XLA_FFI_DataType_F32, out, ok[i].n);
    add_attr(&c, "n_elements", ok[i].t, 0, ok[i].n, 0);
    XLA_FFI_Error *e = run(vx_xla_ffi_handler(), &c);
    EXPECT(!e, "vx's call %d failed: %s", i, e ? e->message : "");
    int n = count_launches(trace, last, sizeof last);
    EXPECT(n == i + 1 && !strcmp(last, ok[i].launch), "after call %d: %d launches, the last '%s', expected '%s'", i, n,
           last, ok[i].launch);
  }

  /* what a call can get wrong */
  call_init(&c);
  add_buffer(&c, 0, XLA_FFI_DataType_F32, x, 10);
  add_buffer(&c, 0, XLA_FFI_DataType_F16, y, 10);
  add_buffer(&c, 1, XLA_FFI_DataType_F32, out, 10);
  add_attr(&c, "n_elements", XLA_FFI_DataType_S32, 0, 10, 0);
  expect_error(vx_xla_ffi_handler(), &c, "vx: operand 1 (for y_ptr) has XLA element type 10; the kernel takes type 11",
               __LINE__);
  EXPECT(last_error.code == XLA_FFI_Error_Code_INVALID_ARGUMENT, "the error's code is %d", (int)last_error.code);
  call_init(&c);
  add_buffer(&c, 0, XLA_FFI_DataType_F32, x, 10);
  add_buffer(&c, 1, XLA_FFI_DataType_F32, out, 10);
  add_attr(&c, "n_elements", XLA_FFI_DataType_S32, 0, 10, 0);
  expect_error(vx_xla_ffi_handler(), &c, "vx: the call has 1 operands and 1 results; add_kernel takes 3 arrays", __LINE__);
  call_init(&c);
  add_buffer(&c, 0, XLA_FFI_DataType_F32, x, 10);
  add_buffer(&c, 0, XLA_FFI_DataType_F32, y, 10);
  add_buffer(&c, 1, XLA_FFI_DataType_F32, out, 10);
  expect_error(vx_xla_ffi_handler(), &c, "vx: the call needs the integer attribute n_elements", __LINE__);
  add_attr(&c, "n_elements", XLA_FFI_DataType_S64, 0, 1LL << 40, 0);
  expect_error(vx_xla_ffi_handler(), &c, "vx: the attribute n_elements is 1099511627776, out of its parameter's range",
               __LINE__);
  call_init(&c);
  add_buffer(&c, 0, XLA_FFI_DataType_F32, x, 10);
  add_buffer(&c, 0, XLA_FFI_DataType_F32, y, 10);
  add_buffer(&c, 1, XLA_FFI_DataType_F32, out, 10);
  add_attr(&c, "n_elements", XLA_FFI_DataType_S32, 0, 0, 0); /* cdiv(0, 1024): an empty grid */
  expect_error(vx_xla_ffi_handler(), &c, "vx: no signature fits the arguments, or the grid is out of range", __LINE__);
  EXPECT(count_launches(trace, last, sizeof last) == 2, "a failed call launched");

  /* vy: the grid an attribute */
  call_init(&c);
  add_buffer(&c, 0, XLA_FFI_DataType_F32, y, 2048);
  add_buffer(&c, 0, XLA_FFI_DataType_F32, x, 2048);
  add_buffer(&c, 1, XLA_FFI_DataType_F32, out, 2048);
  add_attr(&c, "n_elements", XLA_FFI_DataType_S32, 0, 2048, 0);
  expect_error(vy_xla_ffi_handler(), &c, "vy: the call needs the attribute grid: 1 to 3 integers", __LINE__);
  add_attr(&c, "grid", XLA_FFI_DataType_S64, 2, 2, 3);
  XLA_FFI_Error *e = run(vy_xla_ffi_handler(), &c);
  EXPECT(!e, "vy's call failed: %s", e ? e->message : "");
  EXPECT(count_launches(trace, last, sizeof last) == 3 &&
             !strcmp(last, "launch 2 3 1, 128 threads, argument 0 in allocation 1"),
         "vy launched '%s'", last);
  if (!failures) printf("ok: xla\n");
  return failures != 0;
}
