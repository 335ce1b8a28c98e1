/*
 * xla_ffi.c — an XLA FFI handler that launches a JIT kernel
 * (tilec_xla_ffi_handler gives it), in plain C against XLA's C API (xla/ffi/api/c_api.h, the
 * header jaxlib ships): JAX's `jax.ffi.ffi_call` reaches a tilec kernel
 * through it, on the CPU (the emulator, the call's buffers registered in
 * place for the launch) and on CUDA (on the stream XLA gives).
 *
 * The call's attributes say what to launch (the Python package sets them,
 * python/tilec/jax.py): `kernel`, the tilec_kernel's address (u64);
 * `grid`, three integers; `bind`, for each runtime parameter of the kernel
 * in order, the buffer it takes (0.. the operands, then the results) or
 * -1 - j, the j-th of `scalars`, each scalar's bits as an int64. Every
 * failure is an XLA_FFI_Error with tilec's message: a buffer whose element
 * type is not the parameter's, an attribute missing, a launch the
 * emulator's checks stopped; nothing aborts.
 */
#include "jit.h"

#if TILEC_XLA_FFI
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xla/ffi/api/c_api.h"

/* An error for XLA, with a message (XLA copies it). */
static XLA_FFI_Error *fail(const XLA_FFI_Api *api, XLA_FFI_Error_Code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static XLA_FFI_Error *fail(const XLA_FFI_Api *api, XLA_FFI_Error_Code code, const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  XLA_FFI_Error_Create_Args a = {.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE, .message = msg, .errc = code};
  return api->XLA_FFI_Error_Create(&a);
}

/* The attribute `name`, of the given type; NULL when the call has none. */
static void *attr(const XLA_FFI_CallFrame *f, const char *name, XLA_FFI_AttrType type) {
  size_t n = strlen(name);
  for (int64_t i = 0; i < f->attrs.size; i++) {
    const XLA_FFI_ByteSpan *s = f->attrs.names[i];
    if (s->len == n && !memcmp(s->ptr, name, n)) return f->attrs.types[i] == type ? f->attrs.attrs[i] : NULL;
  }
  return NULL;
}

/* The tilec dtype an XLA element type is; false for one tilec has no type for. */
static bool dtype_of(XLA_FFI_DataType t, DType *out) {
  switch (t) {
  case XLA_FFI_DataType_PRED: *out = DT_I1; return true;
  case XLA_FFI_DataType_S8: *out = DT_I8; return true;
  case XLA_FFI_DataType_S16: *out = DT_I16; return true;
  case XLA_FFI_DataType_S32: *out = DT_I32; return true;
  case XLA_FFI_DataType_S64: *out = DT_I64; return true;
  case XLA_FFI_DataType_U8: *out = DT_U8; return true;
  case XLA_FFI_DataType_U16: *out = DT_U16; return true;
  case XLA_FFI_DataType_U32: *out = DT_U32; return true;
  case XLA_FFI_DataType_U64: *out = DT_U64; return true;
  case XLA_FFI_DataType_F16: *out = DT_F16; return true;
  case XLA_FFI_DataType_BF16: *out = DT_BF16; return true;
  case XLA_FFI_DataType_F32: *out = DT_F32; return true;
  case XLA_FFI_DataType_F64: *out = DT_F64; return true;
  case XLA_FFI_DataType_F8E4M3FN: *out = DT_F8E4M3; return true;
  case XLA_FFI_DataType_F8E5M2: *out = DT_F8E5M2; return true;
  default: return false;
  }
}

static size_t buffer_bytes(const XLA_FFI_Buffer *b, DType t) {
  size_t n = (size_t)dtype_bytes(t);
  for (int64_t d = 0; d < b->rank; d++) n *= (size_t)b->dims[d];
  return n;
}

/* Answers XLA's query of the handler's metadata: the API version it was built against. */
static XLA_FFI_Error *metadata(const XLA_FFI_CallFrame *f) {
  XLA_FFI_Metadata_Extension *e = (XLA_FFI_Metadata_Extension *)f->extension_start;
  if (e->extension_base.struct_size < XLA_FFI_Metadata_Extension_STRUCT_SIZE ||
      e->metadata->struct_size < XLA_FFI_Metadata_STRUCT_SIZE)
    return fail(f->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "tilec: XLA's metadata query is older than its API %d.%d",
                XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR);
  e->metadata->api_version = (XLA_FFI_Api_Version){XLA_FFI_Api_Version_STRUCT_SIZE, NULL, XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR};
  e->metadata->traits = 0;
  e->metadata->state_type_id = (XLA_FFI_TypeId){0}; /* stateless */
  return NULL;
}

static XLA_FFI_Error *tilec_xla_ffi(XLA_FFI_CallFrame *f) {
  if (f->extension_start && f->extension_start->type == XLA_FFI_Extension_Metadata) return metadata(f);
  const XLA_FFI_Api *api = f->api;
  if (f->stage != XLA_FFI_ExecutionStage_EXECUTE) return NULL; /* nothing to prepare */
  const XLA_FFI_Scalar *ks = attr(f, "kernel", XLA_FFI_AttrType_SCALAR);
  const XLA_FFI_Array *grid = attr(f, "grid", XLA_FFI_AttrType_ARRAY), *bind = attr(f, "bind", XLA_FFI_AttrType_ARRAY);
  const XLA_FFI_Array *scal = attr(f, "scalars", XLA_FFI_AttrType_ARRAY);
  if (!ks || (ks->dtype != XLA_FFI_DataType_U64 && ks->dtype != XLA_FFI_DataType_S64) || !grid || grid->size != 3 ||
      grid->dtype != XLA_FFI_DataType_S64 || !bind || bind->dtype != XLA_FFI_DataType_S64 || !scal ||
      scal->dtype != XLA_FFI_DataType_S64)
    return fail(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                "tilec: the call needs the attributes kernel (u64), grid (3 x s64), bind and scalars (s64 arrays); "
                "call it through tilec.jax.call");
  tilec_kernel *k = (tilec_kernel *)(uintptr_t)(*(const uint64_t *)ks->value);
  const int64_t *g = grid->data, *b = bind->data, *sv = scal->data;
  if ((int)bind->size != k->nparams)
    return fail(api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "tilec: %s takes %d runtime arguments; the call binds %zu", k->name,
                k->nparams, bind->size);
  int64_t nbuf = f->args.size + f->rets.size;
  uint64_t words[MAX_PARAMS];
  void *args[MAX_PARAMS];
  void *host[MAX_PARAMS];
  size_t host_bytes[MAX_PARAMS];
  int nhost = 0;
  bool cpu = k->dev->kind == TILEC_DEVICE_CPU;
  for (int i = 0; i < k->nparams; i++) {
    if (b[i] >= 0) {
      if (b[i] >= nbuf)
        return fail(api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "tilec: %s's argument %d binds buffer %lld of %lld", k->name, i,
                    (long long)b[i], (long long)nbuf);
      bool ret = b[i] >= f->args.size;
      if (ret ? (int)f->rets.types[b[i] - f->args.size] != (int)XLA_FFI_RetType_BUFFER
              : (int)f->args.types[b[i]] != (int)XLA_FFI_ArgType_BUFFER)
        return fail(api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "tilec: %s's argument %d is not a buffer", k->name, i);
      const XLA_FFI_Buffer *buf = ret ? f->rets.rets[b[i] - f->args.size] : f->args.args[b[i]];
      DType t;
      if (k->kind[i] != P_PTR)
        return fail(api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "tilec: %s's argument %d is a %s scalar, given an array", k->name, i,
                    dtype_short(k->dtype[i]));
      if (!dtype_of(buf->dtype, &t) || t != k->dtype[i])
        return fail(api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "tilec: %s's argument %d points to %s, given an array of XLA type %d",
                    k->name, i, dtype_short(k->dtype[i]), (int)buf->dtype);
      words[i] = (uint64_t)(uintptr_t)buf->data;
      size_t bytes = buffer_bytes(buf, t);
      bool inside = false;
      for (int h = 0; h < nhost && !inside; h++)
        inside = (char *)buf->data >= (char *)host[h] && (char *)buf->data + bytes <= (char *)host[h] + host_bytes[h];
      if (cpu && bytes && !inside) host[nhost] = buf->data, host_bytes[nhost++] = bytes;
    } else {
      int64_t j = -1 - b[i];
      if (j >= (int64_t)scal->size)
        return fail(api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "tilec: %s's argument %d binds scalar %lld of %zu", k->name, i,
                    (long long)j, scal->size);
      words[i] = (uint64_t)sv[j]; /* little-endian: its first bytes are the parameter's value */
    }
    args[i] = &words[i];
  }
  unsigned gr[3];
  for (int d = 0; d < 3; d++) {
    if (g[d] < 1 || g[d] > 0x7fffffff)
      return fail(api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "tilec: grid dimension %d is %lld", d, (long long)g[d]);
    gr[d] = (unsigned)g[d];
  }
  void *stream = NULL;
  if (!cpu) {
    XLA_FFI_Stream_Get_Args sa = {.struct_size = XLA_FFI_Stream_Get_Args_STRUCT_SIZE, .ctx = f->ctx};
    XLA_FFI_Error *e = api->XLA_FFI_Stream_Get(&sa);
    if (e) return e;
    stream = sa.stream;
  }
  char *msg = NULL;
  tilec_status st = TILEC_OK;
  int registered = 0;
  for (; cpu && registered < nhost && st == TILEC_OK; registered++) {
    st = tilec_device_register_host(k->dev, host[registered], host_bytes[registered], &msg);
    if (st != TILEC_OK) break;
  }
  if (st == TILEC_OK) st = tilec_kernel_launch(k, gr, args, k->nparams, stream, &msg);
  for (int h = 0; h < registered; h++) tilec_device_unregister_host(k->dev, host[h], NULL);
  if (st == TILEC_OK) return NULL;
  XLA_FFI_Error *e = fail(api, st == TILEC_ERROR_USAGE ? XLA_FFI_Error_Code_INVALID_ARGUMENT : XLA_FFI_Error_Code_INTERNAL, "%s",
                          msg ? msg : "tilec: the launch failed");
  free(msg);
  return e;
}

void *tilec_xla_ffi_handler(void) {
  /* a function's address as data, as dlsym gives one */
  XLA_FFI_Handler *h = tilec_xla_ffi;
  void *p;
  memcpy(&p, &h, sizeof p);
  return p;
}
#else
void *tilec_xla_ffi_handler(void) { return NULL; } /* built without XLA's header */
#endif
