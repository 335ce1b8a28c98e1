/* test_npy.c — .npy files: round trips of every dtype, files numpy wrote
 * (tests/unit/data), and malformed files, each with its exact message. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "driver/npy.h"
#include "unit.h"

#ifndef UNIT_DATA_DIR
#define UNIT_DATA_DIR "tests/unit/data"
#endif

static uint64_t rng = 0x243f6a8885a308d3u;
static uint8_t rand8(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint8_t)(rng >> 24);
}

static const char *const dtypes[] = {"<f2", "<f4", "<f8", "|i1", "<i2", "<i4",
                                     "<i8", "|u1", "<u2", "<u4", "<u8", "|b1"};
enum { NDTYPES = sizeof dtypes / sizeof *dtypes };

static char tmpdir_path[256];

static const char *tmp_path(const char *name) {
  static char p[512];
  snprintf(p, sizeof p, "%s/%s", tmpdir_path, name);
  return p;
}

static bool same_array(const NpyArray *a, const char *dtype, int ndim, const uint64_t *shape, const void *data,
                       size_t nbytes) {
  bool ok = !strcmp(a->dtype, dtype) && a->ndim == ndim && a->nbytes == nbytes && a->data != NULL;
  for (int i = 0; ok && i < ndim; i++) ok = a->shape[i] == shape[i];
  return ok && (nbytes == 0 || !memcmp(a->data, data, nbytes)) && a->nbytes == a->count * a->itemsize;
}

/* ---- round trips ------------------------------------------------------------------ */

static void round_trip(const char *dtype, int ndim, const uint64_t *shape) {
  size_t item = npy_dtype_size(dtype), count = 1;
  for (int i = 0; i < ndim; i++) count *= shape[i];
  size_t nbytes = count * item;
  unsigned char *data = malloc(nbytes + 1);
  for (size_t i = 0; i < nbytes; i++) data[i] = dtype[1] == 'b' ? rand8() & 1 : rand8();

  void *buf;
  size_t len;
  char err[256] = "";
  CHECK(npy_write_mem(dtype, ndim, shape, data, &buf, &len, err, sizeof err));
  CHECK_STR(err, "");
  CHECK((len - nbytes) % 64 == 0);
  CHECK(len > 8 && ((unsigned char *)buf)[6] == 1 && ((unsigned char *)buf)[len - nbytes - 1] == '\n');
  NpyArray a;
  CHECK(npy_read_mem(buf, len, &a, err, sizeof err));
  CHECK_STR(err, "");
  CHECK(same_array(&a, dtype, ndim, shape, data, nbytes));
  npy_free(&a);
  CHECK(a.data == NULL);

  const char *path = tmp_path("round.npy");
  CHECK(npy_write_file(path, dtype, ndim, shape, data, err, sizeof err));
  CHECK(npy_read_file(path, &a, err, sizeof err));
  CHECK_STR(err, "");
  CHECK(same_array(&a, dtype, ndim, shape, data, nbytes));
  npy_free(&a);
  /* the file holds what the memory writer made */
  FILE *f = fopen(path, "rb");
  unsigned char *back = malloc(len + 1);
  CHECK(f && fread(back, 1, len + 1, f) == len && !memcmp(back, buf, len));
  if (f) fclose(f);
  free(back);
  free(buf);
  free(data);
}

static void test_round_trips(void) {
  const uint64_t shapes[][NPY_MAX_DIMS] = {{7}, {3, 5}, {2, 3, 4}, {2, 1, 2, 1, 2, 1, 3, 2}, {4, 0, 3}, {1000}};
  const int ndims[] = {1, 2, 3, 8, 3, 1};
  for (int d = 0; d < NDTYPES; d++) {
    CHECK(npy_dtype_size(dtypes[d]) == (size_t)(dtypes[d][2] - '0'));
    round_trip(dtypes[d], 0, NULL);
    for (size_t s = 0; s < sizeof ndims / sizeof *ndims; s++) round_trip(dtypes[d], ndims[s], shapes[s]);
  }
  /* other spellings of the same dtypes read and write as the normal one */
  CHECK(npy_dtype_size("=f4") == 4 && npy_dtype_size("<u1") == 1 && npy_dtype_size(">i1") == 1);
  CHECK(npy_dtype_size("|f4") == 0 && npy_dtype_size(">f4") == 0 && npy_dtype_size("<c8") == 0);
  CHECK(npy_dtype_size("<f4 ") == 0 && npy_dtype_size("") == 0 && npy_dtype_size(NULL) == 0);
  uint64_t shape[1] = {2};
  int8_t v[2] = {-3, 4};
  void *buf;
  size_t len;
  char err[256];
  CHECK(npy_write_mem("<i1", 1, shape, v, &buf, &len, err, sizeof err));
  NpyArray a;
  CHECK(npy_read_mem(buf, len, &a, err, sizeof err));
  CHECK_STR(a.dtype, "|i1");
  CHECK(same_array(&a, "|i1", 1, shape, v, 2));
  npy_free(&a);
  free(buf);
}

/* ---- files numpy wrote ---------------------------------------------------------------- */

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char *b = malloc(1 << 16);
  *len = fread(b, 1, 1 << 16, f);
  fclose(f);
  return b;
}

static void read_fixture(const char *name, const char *dtype, int ndim, const uint64_t *shape, const void *want,
                         size_t nbytes, int version) {
  char path[512], err[256] = "";
  snprintf(path, sizeof path, "%s/%s", UNIT_DATA_DIR, name);
  NpyArray a;
  bool ok = npy_read_file(path, &a, err, sizeof err);
  CHECK_STR(err, "");
  CHECK(ok && same_array(&a, dtype, ndim, shape, want, nbytes));
  /* what we write from it is numpy's file byte for byte (numpy's 1.0 files) */
  size_t len = 0;
  unsigned char *orig = slurp(path, &len);
  CHECK(orig != NULL);
  void *buf = NULL;
  size_t blen = 0;
  if (ok && orig && npy_write_mem(a.dtype, a.ndim, a.shape, a.data, &buf, &blen, err, sizeof err)) {
    if (version == 1) CHECK(blen == len && !memcmp(buf, orig, len));
    NpyArray b;
    CHECK(npy_read_mem(orig, len, &b, err, sizeof err) && same_array(&b, dtype, ndim, shape, want, nbytes));
    npy_free(&b);
  }
  free(buf);
  free(orig);
  npy_free(&a);
}

static void expect_file_error(const char *name, const char *want) {
  char path[512], err[256] = "", full[768];
  snprintf(path, sizeof path, "%s/%s", UNIT_DATA_DIR, name);
  snprintf(full, sizeof full, "%s: %s", path, want);
  NpyArray a;
  CHECK(!npy_read_file(path, &a, err, sizeof err));
  CHECK(a.data == NULL && a.ndim == 0);
  CHECK_STR(err, full);
}

static void test_numpy_files(void) {
  float f4[6] = {-1.25f, -0.75f, -0.25f, 0.25f, 0.75f, 1.25f};
  read_fixture("f4_2x3.npy", "<f4", 2, (uint64_t[]){2, 3}, f4, sizeof f4, 1);
  int64_t i8 = -1234567890123;
  read_fixture("i8_scalar.npy", "<i8", 0, NULL, &i8, 8, 1);
  uint8_t b1[5] = {1, 0, 0, 1, 1};
  read_fixture("b1_5.npy", "|b1", 1, (uint64_t[]){5}, b1, 5, 1);
  uint16_t u2[8] = {1, 2, 300, 65535, 0, 7, 4096, 12345};
  read_fixture("u2_2x2x2.npy", "<u2", 3, (uint64_t[]){2, 2, 2}, u2, sizeof u2, 1);
  uint16_t f2[3] = {0x3e00, 0xb400, 0x7bff}; /* 1.5, -0.25, 65504 as binary16 */
  read_fixture("f2_3.npy", "<f2", 1, (uint64_t[]){3}, f2, sizeof f2, 1);
  int8_t i1[4] = {-128, -1, 0, 127};
  read_fixture("i1_4.npy", "|i1", 1, (uint64_t[]){4}, i1, 4, 1);
  read_fixture("f4_0x3.npy", "<f4", 2, (uint64_t[]){0, 3}, NULL, 0, 1);
  double f8[2] = {3.141592653589793, -2.5e-300};
  read_fixture("f8_v2.npy", "<f8", 2, (uint64_t[]){1, 2}, f8, sizeof f8, 2);
  int32_t i4[3] = {1, -2, 2147483647};
  read_fixture("i4_v3.npy", "<i4", 1, (uint64_t[]){3}, i4, sizeof i4, 3);
  expect_file_error("f4_fortran.npy", "Fortran-order arrays are not supported");
  expect_file_error("f4_big.npy", "big-endian dtype '>f4' is not supported");
  expect_file_error("missing.npy", "No such file or directory");
}

/* ---- malformed files --------------------------------------------------------------- */

/* A file with the given header dict, padded as numpy pads it, and data. */
static size_t make_file(unsigned char *out, int version, const char *dict, const void *data, size_t n) {
  size_t pre = version == 1 ? 10 : 12, dl = strlen(dict);
  size_t total = (pre + dl + 1 + 63) / 64 * 64, hlen = total - pre;
  memcpy(out, "\x93NUMPY", 6);
  out[6] = (unsigned char)version;
  out[7] = 0;
  out[8] = (unsigned char)hlen;
  out[9] = (unsigned char)(hlen >> 8);
  if (pre == 12) out[10] = out[11] = 0;
  memcpy(out + pre, dict, dl);
  memset(out + pre + dl, ' ', hlen - dl - 1);
  out[total - 1] = '\n';
  if (n) memcpy(out + total, data, n);
  return total + n;
}

static void expect_error(const unsigned char *b, size_t len, const char *want) {
  NpyArray a;
  char err[256] = "";
  CHECK(!npy_read_mem(b, len, &a, err, sizeof err));
  CHECK(a.data == NULL);
  CHECK_STR(err, want);
}

static void expect_dict_error(const char *dict, size_t ndata, const char *want) {
  static unsigned char b[4096], zeros[256];
  size_t n = make_file(b, 1, dict, zeros, ndata);
  expect_error(b, n, want);
}

static void test_malformed(void) {
  unsigned char b[4096];
  const char *ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  float data[6] = {1, 2, 3, 4, 5, 6};
  size_t n = make_file(b, 1, ok, data, sizeof data);
  NpyArray a;
  char err[256] = "";
  CHECK(npy_read_mem(b, n, &a, err, sizeof err) && same_array(&a, "<f4", 2, (uint64_t[]){2, 3}, data, 24));
  npy_free(&a);

  expect_error(b, 0, "truncated: 0 bytes, shorter than the .npy preamble");
  expect_error(b, 9, "truncated: 9 bytes, shorter than the .npy preamble");
  expect_error(b, 70, "truncated: the header says 118 bytes, 60 follow the preamble");
  expect_error(b, n - 1, "truncated: the data has 23 bytes, the shape and dtype '<f4' need 24");
  expect_error(b, 128, "truncated: the data has 0 bytes, the shape and dtype '<f4' need 24");
  b[n] = 0;
  expect_error(b, n + 1, "the data has 25 bytes, the shape and dtype '<f4' need 24");
  b[0] = 'X';
  expect_error(b, n, "not a .npy file (bad magic string)");
  b[0] = 0x93;
  b[6] = 4;
  expect_error(b, n, "unsupported .npy format version 4.0");
  b[6] = 1;
  b[7] = 1;
  expect_error(b, n, "unsupported .npy format version 1.1");
  b[7] = 0;
  /* the header length lies */
  b[8] = 200;
  expect_error(b, n, "truncated: the header says 200 bytes, 142 follow the preamble");
  b[8] = 64;
  expect_error(b, n, "the data has 78 bytes, the shape and dtype '<f4' need 24");
  b[8] = 30;
  expect_error(b, n, "bad header at byte 30: unterminated string");
  b[8] = 0xff, b[9] = 0xff;
  expect_error(b, n, "truncated: the header says 65535 bytes, 142 follow the preamble");
  n = make_file(b, 2, ok, data, sizeof data);
  b[11] = 0x7f;
  expect_error(b, n, "a header of 2130706548 bytes is too long");
  b[11] = 0;
  b[10] = 1;
  expect_error(b, n, "truncated: the header says 65652 bytes, 140 follow the preamble");

  expect_dict_error("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24,
                    "Fortran-order arrays are not supported");
  expect_dict_error("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", 8, "big-endian dtype '>i4' is not supported");
  expect_dict_error("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16, "unsupported dtype '<c8'");
  expect_dict_error("{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }", 4, "unsupported dtype '<V2'");
  expect_dict_error("{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }", 8, "unsupported dtype '|f4'");
  expect_dict_error("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8,
                    "unsupported dtype: a structured dtype");
  expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }", 0,
                    "the array's size overflows");
  expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (9223372036854775807, 3), }", 0,
                    "the array's size overflows");
  expect_dict_error("{'descr': '<u2', 'fortran_order': False, 'shape': (99999999999999999999,), }", 0,
                    "bad header at byte 70: dimension too large");
  expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }", 8,
                    "truncated: the data has 8 bytes, the shape and dtype '<f8' need 8000000000000");
  expect_dict_error("{'descr': '|u1', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1), }", 1,
                    "more than 8 dimensions");
  expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", 0,
                    "bad header at byte 51: expected a non-negative integer in the shape");
  expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (5), }", 20,
                    "bad header at byte 53: 'shape' must be a tuple (a one-element tuple needs a trailing comma)");
  expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': 5, }", 20,
                    "bad header at byte 50: 'shape' must be a tuple");
  expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (1 2), }", 8,
                    "bad header at byte 53: expected ',' or ')' in the shape");
  expect_dict_error("{'descr': '<f4', 'fortran_order': False}", 4, "bad header: no 'shape'");
  expect_dict_error("{'fortran_order': False, 'shape': ()}", 4, "bad header: no 'descr'");
  expect_dict_error("{'descr': '<f4', 'fortran_order': 0, 'shape': ()}", 4,
                    "bad header at byte 34: 'fortran_order' must be True or False");
  expect_dict_error("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}", 4,
                    "bad header: duplicate key 'descr'");
  expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}", 4,
                    "bad header: unexpected key 'x'");
  expect_dict_error("{'descr': '<f4' 'fortran_order': False, 'shape': ()}", 4, "bad header at byte 16: expected ',' or '}'");
  expect_dict_error("{'descr: '<f4', 'fortran_order': False, 'shape': ()}", 4,
                    "bad header at byte 10: expected ':'");
  expect_dict_error("{'descr': '<f4", 4, "bad header at byte 26: string too long");
  expect_dict_error("['descr', '<f4']", 4, "bad header at byte 0: expected '{'");
  expect_dict_error("{'descr': '<f4', 'fortran_order': False, 'shape': ()} x", 4,
                    "bad header at byte 54: unexpected text after the dict");
  /* what numpy accepts beside its own spelling: double quotes, Python 2's
   * long integers, no trailing comma, no spaces */
  n = make_file(b, 1, "{\"shape\":(2L,),\"descr\":\"=i2\",\"fortran_order\":False}", data, 4);
  CHECK(npy_read_mem(b, n, &a, err, sizeof err) && same_array(&a, "<i2", 1, (uint64_t[]){2}, data, 4));
  npy_free(&a);
}

/* A zero dimension makes the array empty whatever the other dimensions are. */
static void test_empty_huge(void) {
  unsigned char b[4096];
  size_t n = make_file(b, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 0, 9223372036854775807), }", NULL, 0);
  NpyArray a;
  char err[256] = "";
  CHECK(npy_read_mem(b, n, &a, err, sizeof err));
  CHECK(a.count == 0 && a.nbytes == 0 && a.ndim == 3 && a.shape[2] == 9223372036854775807u);
  npy_free(&a);
}

/* Every prefix of a valid file, and every byte of it changed, is read or
 * rejected without touching memory it should not (the ASan build checks). */
static void test_mutations(void) {
  unsigned char b[4096], m[4096];
  float data[6] = {1, 2, 3, 4, 5, 6};
  for (int version = 1; version <= 3; version += 2) {
    size_t n = make_file(b, version, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data, sizeof data);
    NpyArray a;
    char err[256];
    for (size_t len = 0; len < n; len++) {
      unsigned char *exact = malloc(len ? len : 1);
      memcpy(exact, b, len);
      CHECK(!npy_read_mem(exact, len, &a, err, sizeof err));
      free(exact);
    }
    const unsigned char subs[] = {0, 0xff, '(', ')', ',', ' ', '9', '\'', '}', '{', 'L', ':'};
    int accepted = 0;
    for (size_t i = 0; i < n; i++)
      for (size_t k = 0; k < sizeof subs; k++) {
        memcpy(m, b, n);
        m[i] = subs[k];
        unsigned char *exact = malloc(n);
        memcpy(exact, m, n);
        if (npy_read_mem(exact, n, &a, err, sizeof err)) {
          accepted++;
          CHECK(a.nbytes == a.count * a.itemsize && a.nbytes <= n);
          npy_free(&a);
        }
        free(exact);
      }
    CHECK(accepted > 0); /* the padding and the data may change */
  }
}

/* Truncated and padded files read from disk give the messages of the
 * in-memory reader, after the path. */
static void test_file_errors(void) {
  unsigned char b[4096];
  float data[6] = {1, 2, 3, 4, 5, 6};
  size_t n = make_file(b, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data, sizeof data);
  const char *path = tmp_path("bad.npy");
  struct {
    size_t len;
    const char *msg;
  } cases[] = {
      {3, "truncated: 3 bytes, shorter than the .npy preamble"},
      {11, "truncated: the header says 118 bytes, 1 follow the preamble"},
      {n - 5, "truncated: the data has 19 bytes, the shape and dtype '<f4' need 24"},
      {n + 3, "the data has 27 bytes, the shape and dtype '<f4' need 24"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, cases[i].len, f) == cases[i].len);
    if (f) fclose(f);
    NpyArray a;
    char err[512], want[768];
    snprintf(want, sizeof want, "%s: %s", path, cases[i].msg);
    CHECK(!npy_read_file(path, &a, err, sizeof err));
    CHECK_STR(err, want);
  }
  /* a pipe has no size to check in advance */
  for (int truncated = 0; truncated <= 1; truncated++) {
    int fds[2];
    CHECK(pipe(fds) == 0);
    size_t len = truncated ? n - 5 : n;
    CHECK(write(fds[1], b, len) == (ssize_t)len);
    close(fds[1]);
    char fdpath[64], err[256] = "";
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fds[0]);
    NpyArray a;
    bool ok = npy_read_file(fdpath, &a, err, sizeof err);
    if (truncated) {
      char want[256];
      snprintf(want, sizeof want, "%s: truncated: the data has 19 bytes, the shape and dtype '<f4' need 24", fdpath);
      CHECK(!ok);
      CHECK_STR(err, want);
    } else {
      CHECK_STR(err, "");
      CHECK(ok && same_array(&a, "<f4", 2, (uint64_t[]){2, 3}, data, sizeof data));
    }
    npy_free(&a);
    close(fds[0]);
  }
}

/* ---- writing: what it refuses -------------------------------------------------------- */

static void test_write_errors(void) {
  char err[256];
  void *buf;
  size_t len;
  uint64_t shape[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
  float data[4] = {0};
  CHECK(!npy_write_mem("<c8", 1, shape, data, &buf, &len, err, sizeof err));
  CHECK_STR(err, "unsupported dtype '<c8'");
  CHECK(buf == NULL && len == 0);
  CHECK(!npy_write_mem(">f4", 1, shape, data, &buf, &len, err, sizeof err));
  CHECK_STR(err, "big-endian dtype '>f4' is not supported");
  CHECK(!npy_write_mem("<f4", 9, shape, data, &buf, &len, err, sizeof err));
  CHECK_STR(err, "9 dimensions: the shape must have 0 to 8");
  CHECK(!npy_write_mem("<f4", 1, shape, NULL, &buf, &len, err, sizeof err));
  CHECK_STR(err, "no data");
  uint64_t huge[2] = {(uint64_t)1 << 62, (uint64_t)1 << 62};
  CHECK(!npy_write_mem("<f4", 2, huge, data, &buf, &len, err, sizeof err));
  CHECK_STR(err, "the array's size overflows");
  huge[0] = UINT64_MAX;
  CHECK(!npy_write_mem("<f4", 1, huge, data, &buf, &len, err, sizeof err));
  CHECK_STR(err, "dimension 0 is too large");
  CHECK(!npy_write_file("/nonexistent-dir/x.npy", "<f4", 1, shape, data, err, sizeof err));
  CHECK_STR(err, "/nonexistent-dir/x.npy: No such file or directory");
  /* an empty array needs no data */
  uint64_t zero[1] = {0};
  CHECK(npy_write_mem("<f4", 1, zero, NULL, &buf, &len, err, sizeof err) && len == 128);
  free(buf);
}

int unit_main(void) {
  const char *t = getenv("TMPDIR");
  snprintf(tmpdir_path, sizeof tmpdir_path, "%s/tilec-npy-XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(tmpdir_path)) {
    fprintf(stderr, "cannot make a temporary directory %s\n", tmpdir_path);
    return unit_failures = 1;
  }
  test_round_trips();
  test_numpy_files();
  test_malformed();
  test_empty_huge();
  test_mutations();
  test_file_errors();
  test_write_errors();
  remove(tmp_path("round.npy"));
  remove(tmp_path("bad.npy"));
  rmdir(tmpdir_path);
  return 0;
}
