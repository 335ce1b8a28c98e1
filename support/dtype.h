/*
 * dtype.h — Triton's element types: one table for every part of tilec that
 * names, sizes or spells them (the frontend, the IR, the JIT, `tilec run`,
 * `tilec aot`). LLVM-free.
 */
#ifndef TILEC_DTYPE_H
#define TILEC_DTYPE_H

#include <stdbool.h>

#define DTYPES(X) \
  X(I1, "int1", 1) X(I8, "int8", 8) X(I16, "int16", 16) X(I32, "int32", 32) \
  X(I64, "int64", 64) X(U8, "uint8", 8) X(U16, "uint16", 16) X(U32, "uint32", 32) \
  X(U64, "uint64", 64) X(F8E4M3, "float8e4nv", 8) X(F8E5M2, "float8e5", 8) \
  X(F16, "float16", 16) X(BF16, "bfloat16", 16) X(F32, "float32", 32) X(F64, "float64", 64)

typedef enum DType {
#define X(k, s, b) DT_##k,
  DTYPES(X)
#undef X
  DT_COUNT
} DType;

const char *dtype_name(DType t);   /* Triton's name: "float32" */
const char *dtype_short(DType t);  /* signature/IR name: "fp32", "i32" */
int dtype_bits(DType t);
bool dtype_is_int(DType t);        /* int1 included */
bool dtype_is_signed(DType t);
bool dtype_is_float(DType t);
bool dtype_parse(const char *s, DType *out); /* "fp32", "float32", "i32", "int32", ... */

#endif
