/*
 * aot_xla.c — `tilec aot --xla-ffi`: an XLA FFI handler in the generated C,
 * so that an XLA program (C++ with XLA, or JAX through jax.ffi) calls the
 * AOT kernel with libcuda alone, no libtilec.
 *
 * The handler is plain C against XLA's C API (xla/ffi/api/c_api.h, which
 * jaxlib ships; the generated .c includes it, so compiling it needs that
 * folder on the include path). A call binds as jax-triton's does: the
 * kernel's pointer parameters, in order, take the call's operands and then
 * its results; each scalar parameter is the attribute of its name; the
 * grid is the -g expression's, else the attribute `grid` (1 to 3
 * integers). Each buffer's element type is checked against its parameter,
 * each integer against its parameter's range; the launchers are loaded
 * into the context current at the first call (XLA's), once; every failure
 * is an XLA_FFI_Error with the reason, never an abort.
 */
#include "aot.h"

#include <string.h>

#include "support/dtype.h"

/* XLA's name of a tilec element type; NULL for one XLA has no type for. */
static const char *xla_type(DType t) {
  switch (t) {
  case DT_I1: return "PRED";
  case DT_I8: return "S8";
  case DT_I16: return "S16";
  case DT_I32: return "S32";
  case DT_I64: return "S64";
  case DT_U8: return "U8";
  case DT_U16: return "U16";
  case DT_U32: return "U32";
  case DT_U64: return "U64";
  case DT_F8E4M3: return "F8E4M3FN";
  case DT_F8E5M2: return "F8E5M2";
  case DT_F16: return "F16";
  case DT_BF16: return "BF16";
  case DT_F32: return "F32";
  case DT_F64: return "F64";
  default: return NULL;
  }
}

const char *aot_xla_unsupported(const Aot *o) {
  const KernelMeta *m = &o->sigs[0].images[0].meta;
  for (int i = 0; i < m->nparams; i++) {
    DType d;
    bool ptr;
    if (!dtype_parse_param(m->params[i].type, &d, &ptr)) return m->params[i].name;
    if (ptr ? !xla_type(d) : d == DT_F16 || d == DT_BF16 || d == DT_F8E4M3 || d == DT_F8E5M2) return m->params[i].name;
  }
  return NULL;
}

/* What the handler shares with every kernel: errors, attributes, buffers, the metadata query, the load. */
static const char helpers[] =
    "/* ---- XLA's FFI (tilec aot --xla-ffi) ---- */\n\n"
    "static XLA_FFI_Error *@P@_xla_fail(const XLA_FFI_Api *api, XLA_FFI_Error_Code code, const char *msg) {\n"
    "  XLA_FFI_Error_Create_Args a;\n"
    "  memset(&a, 0, sizeof a);\n"
    "  a.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;\n"
    "  a.message = msg;\n"
    "  a.errc = code;\n"
    "  return api->XLA_FFI_Error_Create(&a);\n"
    "}\n\n"
    "/* The attribute `name` of the given type; NULL when the call has none. */\n"
    "static inline const void *@P@_xla_attr(const XLA_FFI_CallFrame *f, const char *name, XLA_FFI_AttrType type) {\n"
    "  size_t n = strlen(name);\n"
    "  for (int64_t i = 0; i < f->attrs.size; i++) {\n"
    "    const XLA_FFI_ByteSpan *s = f->attrs.names[i];\n"
    "    if (s->len == n && !memcmp(s->ptr, name, n)) return f->attrs.types[i] == type ? f->attrs.attrs[i] : NULL;\n"
    "  }\n"
    "  return NULL;\n"
    "}\n\n"
    "/* Element i of integers of XLA type t at p, as an int64; 0 when t is no integer type or past int64. */\n"
    "static inline int @P@_xla_int_at(XLA_FFI_DataType t, const void *p, size_t i, int64_t *v) {\n"
    "  switch (t) {\n"
    "  case XLA_FFI_DataType_PRED:\n"
    "  case XLA_FFI_DataType_S8: *v = ((const int8_t *)p)[i]; return 1;\n"
    "  case XLA_FFI_DataType_S16: *v = ((const int16_t *)p)[i]; return 1;\n"
    "  case XLA_FFI_DataType_S32: *v = ((const int32_t *)p)[i]; return 1;\n"
    "  case XLA_FFI_DataType_S64: *v = ((const int64_t *)p)[i]; return 1;\n"
    "  case XLA_FFI_DataType_U8: *v = ((const uint8_t *)p)[i]; return 1;\n"
    "  case XLA_FFI_DataType_U16: *v = ((const uint16_t *)p)[i]; return 1;\n"
    "  case XLA_FFI_DataType_U32: *v = ((const uint32_t *)p)[i]; return 1;\n"
    "  case XLA_FFI_DataType_U64:\n"
    "    if (((const uint64_t *)p)[i] > (uint64_t)INT64_MAX) return 0;\n"
    "    *v = (int64_t)((const uint64_t *)p)[i];\n"
    "    return 1;\n"
    "  default: return 0;\n"
    "  }\n"
    "}\n\n"
    "/* The integer attribute `name` within [lo, hi]; else the reason in msg. */\n"
    "static inline int @P@_xla_int(const XLA_FFI_CallFrame *f, const char *name, int64_t lo, int64_t hi, int64_t *v, char *msg,\n"
    "                       size_t n) {\n"
    "  const XLA_FFI_Scalar *s = @P@_xla_attr(f, name, XLA_FFI_AttrType_SCALAR);\n"
    "  if (!s || !@P@_xla_int_at(s->dtype, s->value, 0, v)) {\n"
    "    snprintf(msg, n, \"@P@: the call needs the integer attribute %s\", name);\n"
    "    return 0;\n"
    "  }\n"
    "  if (*v < lo || *v > hi) {\n"
    "    snprintf(msg, n, \"@P@: the attribute %s is %lld, out of its parameter's range\", name, (long long)*v);\n"
    "    return 0;\n"
    "  }\n"
    "  return 1;\n"
    "}\n\n"
    "/* The float attribute `name`; else the reason in msg. */\n"
    "static inline int @P@_xla_float(const XLA_FFI_CallFrame *f, const char *name, double *v, char *msg, size_t n) {\n"
    "  const XLA_FFI_Scalar *s = @P@_xla_attr(f, name, XLA_FFI_AttrType_SCALAR);\n"
    "  if (s && s->dtype == XLA_FFI_DataType_F32) return *v = *(const float *)s->value, 1;\n"
    "  if (s && s->dtype == XLA_FFI_DataType_F64) return *v = *(const double *)s->value, 1;\n"
    "  snprintf(msg, n, \"@P@: the call needs the float attribute %s (f32 or f64)\", name);\n"
    "  return 0;\n"
    "}\n\n"
    ;

static const char helpers2[] =
    "/* Buffer i of the call (its operands, then its results), of XLA type t; NULL and the reason in msg. */\n"
    "static inline const XLA_FFI_Buffer *@P@_xla_buffer(const XLA_FFI_CallFrame *f, int64_t i, XLA_FFI_DataType t, const char *param,\n"
    "                                            char *msg, size_t n) {\n"
    "  int ret = i >= f->args.size;\n"
    "  int64_t j = ret ? i - f->args.size : i;\n"
    "  if (ret ? (int)f->rets.types[j] != (int)XLA_FFI_RetType_BUFFER : (int)f->args.types[j] != (int)XLA_FFI_ArgType_BUFFER) {\n"
    "    snprintf(msg, n, \"@P@: %s %lld (for %s) is not a buffer\", ret ? \"result\" : \"operand\", (long long)j, param);\n"
    "    return NULL;\n"
    "  }\n"
    "  const XLA_FFI_Buffer *b = ret ? (const XLA_FFI_Buffer *)f->rets.rets[j] : (const XLA_FFI_Buffer *)f->args.args[j];\n"
    "  if (b->dtype != t) {\n"
    "    snprintf(msg, n, \"@P@: %s %lld (for %s) has XLA element type %d; the kernel takes type %d there\",\n"
    "             ret ? \"result\" : \"operand\", (long long)j, param, (int)b->dtype, (int)t);\n"
    "    return NULL;\n"
    "  }\n"
    "  return b;\n"
    "}\n\n"
    "/* Answers XLA's query of the handler's metadata: the API version it was built against. */\n"
    "static XLA_FFI_Error *@P@_xla_metadata(const XLA_FFI_CallFrame *f) {\n"
    "  XLA_FFI_Metadata_Extension *e = (XLA_FFI_Metadata_Extension *)f->extension_start;\n"
    "  if (e->extension_base.struct_size < XLA_FFI_Metadata_Extension_STRUCT_SIZE ||\n"
    "      e->metadata->struct_size < XLA_FFI_Metadata_STRUCT_SIZE)\n"
    "    return @P@_xla_fail(f->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, \"@P@: XLA's metadata query is older than its API\");\n"
    "  XLA_FFI_Api_Version v;\n"
    "  memset(&v, 0, sizeof v);\n"
    "  v.struct_size = XLA_FFI_Api_Version_STRUCT_SIZE;\n"
    "  v.major_version = XLA_FFI_API_MAJOR;\n"
    "  v.minor_version = XLA_FFI_API_MINOR;\n"
    "  e->metadata->api_version = v;\n"
    "  e->metadata->traits = 0;\n"
    "  memset(&e->metadata->state_type_id, 0, sizeof e->metadata->state_type_id); /* stateless */\n"
    "  return NULL;\n"
    "}\n\n"
    "/* The launchers, loaded once into the context current at the first call (XLA's). */\n"
    "static once_flag @P@_xla_once = ONCE_FLAG_INIT;\n"
    "static CUresult @P@_xla_loaded;\n"
    "static void @P@_xla_load(void) { @P@_xla_loaded = @P@_load(NULL); }\n\n";

void aot_emit_xla(AotOut *c, const Aot *o) {
  const char *P = o->ident;
  const KernelMeta *m = &o->sigs[0].images[0].meta;
  aot_tpl(c, o, helpers);
  aot_tpl(c, o, helpers2);
  int nptr = 0;
  for (int i = 0; i < m->nparams; i++) nptr += m->params[i].type[0] == '*';
  aot_out(c, "static XLA_FFI_Error *%s_xla_call(XLA_FFI_CallFrame *f) {\n", P);
  aot_out(c, "  if (f->extension_start && f->extension_start->type == XLA_FFI_Extension_Metadata) return %s_xla_metadata(f);\n"
         "  if (f->stage != XLA_FFI_ExecutionStage_EXECUTE) return NULL; /* nothing to prepare */\n"
         "  const XLA_FFI_Api *api = f->api;\n"
         "  char msg[512];\n"
         "  int64_t iv = 0;\n"
         "  double fv = 0;\n"
         "  (void)iv, (void)fv;\n",
      P);
  aot_out(c, "  if (f->args.size + f->rets.size != %d) {\n"
         "    snprintf(msg, sizeof msg, \"%s: the call has %%lld operands and %%lld results; %s takes %d arrays, the operands \"\n"
         "             \"then the results\", (long long)f->args.size, (long long)f->rets.size);\n"
         "    return %s_xla_fail(api, XLA_FFI_Error_Code_INVALID_ARGUMENT, msg);\n"
         "  }\n",
      nptr, P, m->name, nptr, P);
  int b = 0;
  for (int i = 0; i < m->nparams; i++) {
    const char *name = o->cnames[i];
    DType d;
    bool ptr;
    dtype_parse_param(m->params[i].type, &d, &ptr);
    if (ptr) {
      aot_out(c, "  const XLA_FFI_Buffer *b_%s = %s_xla_buffer(f, %d, XLA_FFI_DataType_%s, \"%s\", msg, sizeof msg);\n"
             "  if (!b_%s) return %s_xla_fail(api, XLA_FFI_Error_Code_INVALID_ARGUMENT, msg);\n"
             "  CUdeviceptr %s = (CUdeviceptr)(uintptr_t)b_%s->data;\n",
          name, P, b++, xla_type(d), m->params[i].name, name, P, name, name);
    } else if (dtype_is_int(d)) {
      const char *lo = "INT64_MIN", *hi = "INT64_MAX";
      switch (d) {
      case DT_I1: lo = "0", hi = "1"; break;
      case DT_I8: lo = "INT8_MIN", hi = "INT8_MAX"; break;
      case DT_I16: lo = "INT16_MIN", hi = "INT16_MAX"; break;
      case DT_I32: lo = "INT32_MIN", hi = "INT32_MAX"; break;
      case DT_U8: lo = "0", hi = "UINT8_MAX"; break;
      case DT_U16: lo = "0", hi = "UINT16_MAX"; break;
      case DT_U32: lo = "0", hi = "UINT32_MAX"; break;
      case DT_U64: lo = "0"; break; /* a u64 past int64 has no attribute type that reaches it here */
      default: break;
      }
      aot_out(c, "  if (!%s_xla_int(f, \"%s\", %s, %s, &iv, msg, sizeof msg))\n"
             "    return %s_xla_fail(api, XLA_FFI_Error_Code_INVALID_ARGUMENT, msg);\n"
             "  %s %s = (%s)iv;\n",
          P, m->params[i].name, lo, hi, P, dtype_c_type(d), name, dtype_c_type(d));
    } else {
      aot_out(c, "  if (!%s_xla_float(f, \"%s\", &fv, msg, sizeof msg)) return %s_xla_fail(api, XLA_FFI_Error_Code_INVALID_ARGUMENT, msg);\n"
             "  %s %s = (%s)fv;\n",
          P, m->params[i].name, P, dtype_c_type(d), name, dtype_c_type(d));
    }
  }
  if (!o->grid) {
    aot_out(c, "  const XLA_FFI_Array *grid = %s_xla_attr(f, \"grid\", XLA_FFI_AttrType_ARRAY);\n"
           "  int64_t g[3] = {1, 1, 1};\n"
           "  int grid_ok = grid && grid->size >= 1 && grid->size <= 3;\n"
           "  for (size_t d = 0; grid_ok && d < grid->size; d++)\n"
           "    grid_ok = %s_xla_int_at(grid->dtype, grid->data, d, &g[d]) && g[d] >= 1 && g[d] <= (d ? 65535 : INT32_MAX);\n"
           "  if (!grid_ok)\n"
           "    return %s_xla_fail(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,\n"
           "                      \"%s: the call needs the attribute grid: 1 to 3 integers, x up to 2^31-1, y and z up to 65535\");\n",
        P, P, P, P);
  }
  aot_out(c, "  XLA_FFI_Stream_Get_Args sa;\n"
         "  memset(&sa, 0, sizeof sa);\n"
         "  sa.struct_size = XLA_FFI_Stream_Get_Args_STRUCT_SIZE;\n"
         "  sa.ctx = f->ctx;\n"
         "  XLA_FFI_Error *e = api->XLA_FFI_Stream_Get(&sa);\n"
         "  if (e) return e;\n"
         "  call_once(&%s_xla_once, %s_xla_load);\n"
         "  if (%s_xla_loaded != CUDA_SUCCESS) {\n"
         "    snprintf(msg, sizeof msg, \"%s: the kernels do not load (CUresult %%d): %%s\", (int)%s_xla_loaded, %s_load_log());\n"
         "    return %s_xla_fail(api, XLA_FFI_Error_Code_FAILED_PRECONDITION, msg);\n"
         "  }\n",
      P, P, P, P, P, P, P);
  aot_out(c, "  CUresult r = %s((CUstream)sa.stream", P);
  if (!o->grid) aot_out(c, ", (unsigned)g[0], (unsigned)g[1], (unsigned)g[2]");
  for (int i = 0; i < m->nparams; i++) aot_out(c, ", %s", o->cnames[i]);
  aot_out(c, ");\n"
         "  if (r == CUDA_ERROR_INVALID_VALUE) {\n"
         "    snprintf(msg, sizeof msg, \"%s: no signature fits the arguments, or the grid is out of range\");\n"
         "    return %s_xla_fail(api, XLA_FFI_Error_Code_INVALID_ARGUMENT, msg);\n"
         "  }\n"
         "  if (r != CUDA_SUCCESS) {\n"
         "    const char *name = NULL;\n"
         "    if (!%s_driver.cuGetErrorName || %s_driver.cuGetErrorName(r, &name) != CUDA_SUCCESS) name = \"an unknown error\";\n"
         "    snprintf(msg, sizeof msg, \"%s: the launch failed: %%s (CUresult %%d)\", name, (int)r);\n"
         "    return %s_xla_fail(api, XLA_FFI_Error_Code_INTERNAL, msg);\n"
         "  }\n"
         "  return NULL;\n}\n\n",
      P, P, P, P, P, P);
  aot_out(c, "void *%s_xla_ffi_handler(void) {\n"
         "  XLA_FFI_Handler *h = %s_xla_call;\n"
         "  void *p;\n"
         "  memcpy(&p, &h, sizeof p); /* a function's address as data, as dlsym gives one */\n"
         "  return p;\n}\n",
      P, P);
}
