/*
 * dtype.h — Triton's element types: one table for every part of tilec that
 * names, sizes or spells them (the frontend, the IR, the JIT, `tilec run`,
 * `tilec aot`). LLVM-free.
 *
 * A row of DTYPES gives, in order: the enum's tail; Triton's name; the
 * short name signatures and the kernel's metadata spell it with; the MLIR
 * type the tile IR holds it as (signless integers: u32 is i32); the other
 * spellings a signature or a `tl.` attribute may use, space-separated; its
 * class ('s' a signed integer, 'u' an unsigned one, int1 included, 'f' a
 * float); the bits of a value; the bytes a value takes in memory (an int1 takes a
 * byte, as Triton stores it); for a float, the bits of its exponent and
 * mantissa (0 for integers); the C type a generated launcher passes it as
 * (16- and 8-bit floats as their bits); the .npy descriptor of its arrays,
 * and another accepted on input, "" when none (NumPy has no bf16 or fp8:
 * their arrays hold the bits).
 */
#ifndef TILEC_DTYPE_H
#define TILEC_DTYPE_H

#include <stdbool.h>
#include <stddef.h>

#define DTYPES(X) \
  X(I1,     "int1",       "i1",      "i1",       "u1",                    'u', 1,  1, 0, 0,  "bool",     "|b1", "|u1") \
  X(I8,     "int8",       "i8",      "i8",       "",                      's', 8,  1, 0, 0,  "int8_t",   "|i1", "")    \
  X(I16,    "int16",      "i16",     "i16",      "",                      's', 16, 2, 0, 0,  "int16_t",  "<i2", "")    \
  X(I32,    "int32",      "i32",     "i32",      "",                      's', 32, 4, 0, 0,  "int32_t",  "<i4", "")    \
  X(I64,    "int64",      "i64",     "i64",      "",                      's', 64, 8, 0, 0,  "int64_t",  "<i8", "")    \
  X(U8,     "uint8",      "u8",      "i8",       "",                      'u', 8,  1, 0, 0,  "uint8_t",  "|u1", "")    \
  X(U16,    "uint16",     "u16",     "i16",      "",                      'u', 16, 2, 0, 0,  "uint16_t", "<u2", "")    \
  X(U32,    "uint32",     "u32",     "i32",      "",                      'u', 32, 4, 0, 0,  "uint32_t", "<u4", "")    \
  X(U64,    "uint64",     "u64",     "i64",      "",                      'u', 64, 8, 0, 0,  "uint64_t", "<u8", "")    \
  X(F8E4M3, "float8e4nv", "fp8e4nv", "f8E4M3FN", "float8_e4m3fn fp8e4m3", 'f', 8,  1, 4, 3,  "uint8_t",  "|u1", "")    \
  X(F8E5M2, "float8e5",   "fp8e5",   "f8E5M2",   "float8_e5m2 fp8e5m2",   'f', 8,  1, 5, 2,  "uint8_t",  "|u1", "")    \
  X(F16,    "float16",    "fp16",    "f16",      "half",                  'f', 16, 2, 5, 10, "uint16_t", "<f2", "")    \
  X(BF16,   "bfloat16",   "bf16",    "bf16",     "",                      'f', 16, 2, 8, 7,  "uint16_t", "<u2", "")    \
  X(F32,    "float32",    "fp32",    "f32",      "float",                 'f', 32, 4, 8, 23, "float",    "<f4", "")    \
  X(F64,    "float64",    "fp64",    "f64",      "double",                'f', 64, 8, 11, 52, "double",   "<f8", "")

typedef enum DType {
#define X(k, name, short_name, ir, aliases, class, bits, bytes, ebits, mbits, ctype, npy, npy_alt) DT_##k,
  DTYPES(X)
#undef X
  DT_COUNT
} DType;

const char *dtype_name(DType t);   /* Triton's name: "float32" */
const char *dtype_short(DType t);  /* signature/metadata name: "fp32", "i32" */
const char *dtype_ir(DType t);     /* the MLIR type: "f32", "i32" (also for uint32), "f8E4M3FN" */
int dtype_bits(DType t);
int dtype_bytes(DType t);          /* in memory: 1 for int1 */
bool dtype_is_int(DType t);        /* int1 included */
bool dtype_is_signed(DType t);
bool dtype_is_float(DType t);
/* A float's exponent and mantissa bits (fp16: 5 and 10); false for an integer. */
bool dtype_float_format(DType t, int *ebits, int *mbits);
const char *dtype_c_type(DType t); /* in a generated launcher: "int32_t", "float", "uint16_t" for fp16 */
const char *dtype_npy(DType t);    /* its arrays' .npy descriptor: "<f4" */
const char *dtype_npy_alt(DType t); /* another accepted on input, NULL when none */

/* Inline assembly (tl.inline_asm_elementwise) takes its operands and
 * results in registers as Triton passes them: each instance handles `pack`
 * elements of every value, and values narrower than 32 bits share 32-bit
 * registers. The elements of `bits` bits (64 for a pointer) one register
 * holds: 32 / bits for the narrow ones, at most pack; else 1. */
int dtype_asm_elems_per_reg(int bits, int pack);

/* Every spelling: "fp32", "float32", "float", "i32", "int32", ... */
bool dtype_parse(const char *s, DType *out);
/* The same, of the n bytes at s ("rand:float32:1024" names one inside). */
bool dtype_parse_n(const char *s, size_t n, DType *out);
/* A parameter's type as a signature or the kernel's metadata spells it,
 * without a hint: "*fp32" (a pointer to fp32, *is_ptr set), "int32". */
bool dtype_parse_param(const char *s, DType *out, bool *is_ptr);

#endif
