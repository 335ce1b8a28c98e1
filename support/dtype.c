/*
 * dtype.c — Triton's dtypes: names, sizes, and every spelling a signature
 * or a `tl.` attribute may use.
 */
#include "dtype.h"

#include <stddef.h>
#include <string.h>

static const struct {
  const char *name, *short_name;
  int bits;
} dtypes[] = {
#define X(k, s, b) {s, NULL, b},
    DTYPES(X)
#undef X
};

static const char *const short_names[DT_COUNT] = {
    [DT_I1] = "i1",      [DT_I8] = "i8",       [DT_I16] = "i16",  [DT_I32] = "i32",
    [DT_I64] = "i64",    [DT_U8] = "u8",       [DT_U16] = "u16",  [DT_U32] = "u32",
    [DT_U64] = "u64",    [DT_F8E4M3] = "fp8e4nv", [DT_F8E5M2] = "fp8e5", [DT_F16] = "fp16",
    [DT_BF16] = "bf16",  [DT_F32] = "fp32",    [DT_F64] = "fp64",
};

const char *dtype_name(DType t) { return dtypes[t].name; }
const char *dtype_short(DType t) { return short_names[t]; }
int dtype_bits(DType t) { return dtypes[t].bits; }
bool dtype_is_int(DType t) { return t <= DT_U64; }
bool dtype_is_signed(DType t) { return t >= DT_I8 && t <= DT_I64; }
bool dtype_is_float(DType t) { return t >= DT_F8E4M3; }

/* Every spelling a signature or `tl.` attribute may use. */
static const struct {
  const char *s;
  DType t;
} spellings[] = {
    {"i1", DT_I1},        {"int1", DT_I1},         {"i8", DT_I8},         {"int8", DT_I8},
    {"i16", DT_I16},      {"int16", DT_I16},       {"i32", DT_I32},       {"int32", DT_I32},
    {"i64", DT_I64},      {"int64", DT_I64},       {"u1", DT_I1},         {"u8", DT_U8},
    {"uint8", DT_U8},     {"u16", DT_U16},         {"uint16", DT_U16},    {"u32", DT_U32},
    {"uint32", DT_U32},   {"u64", DT_U64},         {"uint64", DT_U64},    {"fp8e4nv", DT_F8E4M3},
    {"float8e4nv", DT_F8E4M3}, {"float8_e4m3fn", DT_F8E4M3}, {"fp8e4m3", DT_F8E4M3},
    {"fp8e5", DT_F8E5M2}, {"float8e5", DT_F8E5M2}, {"float8_e5m2", DT_F8E5M2},
    {"fp8e5m2", DT_F8E5M2}, {"fp16", DT_F16},      {"float16", DT_F16},   {"half", DT_F16},
    {"bf16", DT_BF16},    {"bfloat16", DT_BF16},   {"fp32", DT_F32},      {"float32", DT_F32},
    {"float", DT_F32},    {"fp64", DT_F64},        {"float64", DT_F64},   {"double", DT_F64},
};

bool dtype_parse(const char *s, DType *out) {
  for (size_t i = 0; i < sizeof spellings / sizeof *spellings; i++)
    if (!strcmp(spellings[i].s, s)) {
      *out = spellings[i].t;
      return true;
    }
  return false;
}
