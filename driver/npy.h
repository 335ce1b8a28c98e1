/*
 * npy.h — NumPy .npy files: the arrays `tilec run` reads as kernel inputs
 * and writes as outputs.
 *
 * Reading accepts format versions 1.0, 2.0 and 3.0, little-endian data in C
 * order, of the dtypes below. Writing produces version 1.0, or 2.0 when the
 * header would not fit 1.0's 16-bit length, with the header padded to a
 * multiple of 64 bytes as numpy does.
 *
 *   <f2 <f4 <f8   |i1 <i2 <i4 <i8   |u1 <u2 <u4 <u8   |b1
 *
 * bfloat16 has no standard .npy dtype (numpy itself has none; ml_dtypes
 * writes it as the opaque '<V2'). It is stored as '<u2', the raw 16 bits,
 * and the caller keeps track that those are bf16.
 *
 * One-byte dtypes may be written with '<', '>', '=' or '|' by other writers;
 * they are read as '|'. A '=' (native order) on a wider dtype is read as '<'.
 * Everything else the reader does not accept — a bad magic string or
 * version, a truncated file, a header that is not a dict of exactly 'descr',
 * 'fortran_order' and 'shape', Fortran order, big-endian or unknown dtypes,
 * more than NPY_MAX_DIMS dimensions, a size that overflows, data shorter or
 * longer than the shape says — is an error. Errors are a message in the
 * caller's buffer and a false return; nothing here exits or aborts, and no
 * input can make the reader read or write out of bounds.
 */
#ifndef TILEC_RUNTIME_NPY_H
#define TILEC_RUNTIME_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NPY_MAX_DIMS 8

typedef struct NpyArray {
  char dtype[4];                /* normalized: "<f4", "|u1", ... */
  size_t itemsize;
  int ndim;                     /* 0 (a scalar) .. NPY_MAX_DIMS */
  uint64_t shape[NPY_MAX_DIMS];
  size_t count;                 /* elements: the product of the shape */
  size_t nbytes;                /* count * itemsize */
  void *data;                   /* malloc'd, at least one byte; free with npy_free */
} NpyArray;

/* The item size of a dtype this module accepts (in any of the spellings
 * above), else 0. */
size_t npy_dtype_size(const char *dtype);

/* On failure *out is left empty ({0}) and err holds a message (without a
 * trailing newline; the file functions start it with the path). */
bool npy_read_file(const char *path, NpyArray *out, char *err, size_t errlen);
bool npy_read_mem(const void *buf, size_t len, NpyArray *out, char *err, size_t errlen);
void npy_free(NpyArray *a);

/* Writes `data` (C order, little-endian, shape[0..ndim-1]) with dtype; on
 * failure the file is removed. */
bool npy_write_file(const char *path, const char *dtype, int ndim, const uint64_t *shape, const void *data,
                    char *err, size_t errlen);
/* As npy_write_file, to an open stream (whose close may still fail: the
 * caller's to check). */
bool npy_write_stream(FILE *f, const char *dtype, int ndim, const uint64_t *shape, const void *data, char *err,
                      size_t errlen);
/* As npy_write_file, into a malloc'd buffer (*out, *outlen). */
bool npy_write_mem(const char *dtype, int ndim, const uint64_t *shape, const void *data, void **out,
                   size_t *outlen, char *err, size_t errlen);

#endif
