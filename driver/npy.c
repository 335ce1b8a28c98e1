/*
 * npy.c — reading and writing NumPy .npy files.
 *
 * A .npy file is a preamble (magic "\x93NUMPY", a version, the header
 * length), a header that is a Python dict literal
 *
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 *
 * padded with spaces to a multiple of 64 bytes and ended by '\n', then the
 * raw data. The header is parsed by a small recursive reader of exactly
 * the literals numpy writes (strings, True/False, tuples of integers), never
 * by anything that evaluates it. Every length the file states is checked
 * against what is there before it is used: the header length against the
 * bytes after the preamble, each dimension against int64, the element count
 * and byte size against overflow, the data size against the file size
 * (before anything is allocated for it).
 */
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NPY_MAX_HEADER (1u << 20)

static const char magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

static bool fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return false;
}

/* ---- dtypes ----------------------------------------------------------------- */

/* Writes the normalized spelling into norm; returns the item size, 0 when
 * the dtype is not one we accept, and sets *big for a big-endian wide one. */
static size_t dtype_normalize(const char *d, char norm[4], bool *big) {
  *big = false;
  if (!d || strlen(d) != 3) return 0;
  char order = d[0], kind = d[1], size = d[2];
  if (!strchr("<>=|", order)) return 0;
  size_t n = 0;
  switch (kind) {
  case 'f': n = size == '2' ? 2 : size == '4' ? 4 : size == '8' ? 8 : 0; break;
  case 'i':
  case 'u': n = size == '1' ? 1 : size == '2' ? 2 : size == '4' ? 4 : size == '8' ? 8 : 0; break;
  case 'b': n = size == '1' ? 1 : 0; break;
  default: return 0;
  }
  if (!n) return 0;
  if (n == 1) order = '|';
  else if (order == '=') order = '<';
  else if (order == '|') return 0;
  else if (order == '>') {
    *big = true;
    return 0;
  }
  norm[0] = order;
  norm[1] = kind;
  norm[2] = size;
  norm[3] = 0;
  return n;
}

size_t npy_dtype_size(const char *dtype) {
  char norm[4];
  bool big;
  return dtype_normalize(dtype, norm, &big);
}

/* ---- the header ----------------------------------------------------------------- */

typedef struct Parser {
  const char *p, *end, *start;
  char *err;
  size_t errlen;
} Parser;

static bool perr(Parser *ps, const char *what) {
  return fail(ps->err, ps->errlen, "bad header at byte %zu: %s", (size_t)(ps->p - ps->start), what);
}

static void skip_ws(Parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) ps->p++;
}

static bool accept(Parser *ps, char c) {
  skip_ws(ps);
  if (ps->p < ps->end && *ps->p == c) {
    ps->p++;
    return true;
  }
  return false;
}

/* A quoted string of at most cap-1 characters, without escapes. */
static bool parse_string(Parser *ps, char *out, size_t cap) {
  skip_ws(ps);
  if (ps->p >= ps->end || (*ps->p != '\'' && *ps->p != '"')) return perr(ps, "expected a string");
  char q = *ps->p++;
  size_t n = 0;
  while (ps->p < ps->end && *ps->p != q) {
    unsigned char c = (unsigned char)*ps->p;
    if (c == '\\' || c < 0x20 || c >= 0x7f) return perr(ps, "unsupported character in a string");
    if (n + 1 >= cap) return perr(ps, "string too long");
    out[n++] = (char)c;
    ps->p++;
  }
  if (ps->p >= ps->end) return perr(ps, "unterminated string");
  ps->p++;
  out[n] = 0;
  return true;
}

static bool parse_word(Parser *ps, const char *w) {
  skip_ws(ps);
  size_t n = strlen(w);
  if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n)) return false;
  ps->p += n;
  return true;
}

/* (), (n,), (n, m, ...) with an optional trailing comma; each n a
 * non-negative integer that fits int64 (Python 2 wrote a trailing L). */
static bool parse_shape(Parser *ps, NpyArray *a) {
  if (!accept(ps, '(')) return perr(ps, "'shape' must be a tuple");
  a->ndim = 0;
  bool comma = true;
  while (!accept(ps, ')')) {
    if (!comma) return perr(ps, "expected ',' or ')' in the shape");
    skip_ws(ps);
    if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') return perr(ps, "expected a non-negative integer in the shape");
    uint64_t v = 0;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
      unsigned d = (unsigned)(*ps->p++ - '0');
      if (v > ((uint64_t)INT64_MAX - d) / 10) return perr(ps, "dimension too large");
      v = v * 10 + d;
    }
    if (ps->p < ps->end && *ps->p == 'L') ps->p++;
    if (a->ndim == NPY_MAX_DIMS) return fail(ps->err, ps->errlen, "more than %d dimensions", NPY_MAX_DIMS);
    a->shape[a->ndim++] = v;
    comma = accept(ps, ',');
    if (a->ndim == 1 && !comma) {
      if (accept(ps, ')')) return perr(ps, "'shape' must be a tuple (a one-element tuple needs a trailing comma)");
    }
  }
  return true;
}

enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4 };

static bool parse_header(const char *h, size_t n, NpyArray *a, char *err, size_t errlen) {
  Parser ps = {h, h + n, h, err, errlen};
  int seen = 0;
  char descr[16] = "";
  if (!accept(&ps, '{')) return perr(&ps, "expected '{'");
  bool comma = true;
  while (!accept(&ps, '}')) {
    if (!comma) return perr(&ps, "expected ',' or '}'");
    char key[32];
    if (!parse_string(&ps, key, sizeof key)) return false;
    if (!accept(&ps, ':')) return perr(&ps, "expected ':'");
    int k = !strcmp(key, "descr") ? KEY_DESCR : !strcmp(key, "fortran_order") ? KEY_FORTRAN
            : !strcmp(key, "shape") ? KEY_SHAPE : 0;
    if (!k) return fail(err, errlen, "bad header: unexpected key '%s'", key);
    if (seen & k) return fail(err, errlen, "bad header: duplicate key '%s'", key);
    seen |= k;
    if (k == KEY_DESCR) {
      skip_ws(&ps);
      if (ps.p < ps.end && *ps.p == '[') return fail(err, errlen, "unsupported dtype: a structured dtype");
      if (!parse_string(&ps, descr, sizeof descr)) return false;
    } else if (k == KEY_FORTRAN) {
      if (parse_word(&ps, "True")) return fail(err, errlen, "Fortran-order arrays are not supported");
      if (!parse_word(&ps, "False")) return perr(&ps, "'fortran_order' must be True or False");
    } else if (!parse_shape(&ps, a)) {
      return false;
    }
    comma = accept(&ps, ',');
  }
  skip_ws(&ps);
  if (ps.p != ps.end) return perr(&ps, "unexpected text after the dict");
  for (int k = KEY_DESCR; k <= KEY_SHAPE; k *= 2)
    if (!(seen & k))
      return fail(err, errlen, "bad header: no '%s'", k == KEY_DESCR ? "descr" : k == KEY_FORTRAN ? "fortran_order" : "shape");
  bool big;
  a->itemsize = dtype_normalize(descr, a->dtype, &big);
  if (big) return fail(err, errlen, "big-endian dtype '%s' is not supported", descr);
  if (!a->itemsize) return fail(err, errlen, "unsupported dtype '%s'", descr);
  /* Any zero dimension makes the array empty whatever the others are. */
  size_t count = 1;
  bool empty = false;
  for (int i = 0; i < a->ndim; i++) empty |= a->shape[i] == 0;
  for (int i = 0; i < a->ndim && !empty; i++) {
    if (a->shape[i] > SIZE_MAX / count) return fail(err, errlen, "the array's size overflows");
    count *= (size_t)a->shape[i];
  }
  if (empty) count = 0;
  if (count > SIZE_MAX / a->itemsize) return fail(err, errlen, "the array's size overflows");
  a->count = count;
  a->nbytes = count * a->itemsize;
  return true;
}

/* The preamble: where the header starts and how long it is. */
static bool parse_preamble(const unsigned char *b, size_t len, size_t *hstart, size_t *hlen, char *err,
                           size_t errlen) {
  if (len < 8 || memcmp(b, magic, 6)) {
    if (len >= 6 && memcmp(b, magic, 6)) return fail(err, errlen, "not a .npy file (bad magic string)");
    return fail(err, errlen, "truncated: %zu bytes, shorter than the .npy preamble", len);
  }
  if (b[6] < 1 || b[6] > 3 || b[7] != 0) return fail(err, errlen, "unsupported .npy format version %d.%d", b[6], b[7]);
  if (b[6] == 1) {
    if (len < 10) return fail(err, errlen, "truncated: %zu bytes, shorter than the .npy preamble", len);
    *hstart = 10;
    *hlen = (size_t)b[8] | (size_t)b[9] << 8;
  } else {
    if (len < 12) return fail(err, errlen, "truncated: %zu bytes, shorter than the .npy preamble", len);
    *hstart = 12;
    *hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
  }
  if (*hlen > NPY_MAX_HEADER) return fail(err, errlen, "a header of %zu bytes is too long", *hlen);
  return true;
}

static bool size_matches(const NpyArray *a, size_t have, char *err, size_t errlen) {
  if (have != a->nbytes)
    return fail(err, errlen, "%sthe data has %zu bytes, the shape and dtype '%s' need %zu",
                have < a->nbytes ? "truncated: " : "", have, a->dtype, a->nbytes);
  return true;
}

/* ---- reading ---------------------------------------------------------------------- */

void npy_free(NpyArray *a) {
  if (!a) return;
  free(a->data);
  memset(a, 0, sizeof *a);
}

bool npy_read_mem(const void *buf, size_t len, NpyArray *out, char *err, size_t errlen) {
  NpyArray a = {0};
  memset(out, 0, sizeof *out);
  const unsigned char *b = buf;
  size_t hstart, hlen;
  if (!b) return fail(err, errlen, "no data");
  if (!parse_preamble(b, len, &hstart, &hlen, err, errlen)) return false;
  if (hlen > len - hstart)
    return fail(err, errlen, "truncated: the header says %zu bytes, %zu follow the preamble", hlen, len - hstart);
  if (!parse_header((const char *)b + hstart, hlen, &a, err, errlen)) return false;
  if (!size_matches(&a, len - hstart - hlen, err, errlen)) return false;
  a.data = malloc(a.nbytes ? a.nbytes : 1);
  if (!a.data) return fail(err, errlen, "out of memory for %zu bytes", a.nbytes);
  if (a.nbytes) memcpy(a.data, b + hstart + hlen, a.nbytes);
  *out = a;
  return true;
}

static bool read_file(FILE *f, NpyArray *out, char *err, size_t errlen) {
  NpyArray a = {0};
  unsigned char pre[12];
  size_t got = fread(pre, 1, sizeof pre, f), hstart, hlen;
  if (!parse_preamble(pre, got, &hstart, &hlen, err, errlen)) return false;
  char *h = malloc(hlen + 1);
  if (!h) return fail(err, errlen, "out of memory");
  /* the preamble read may have taken the header's first bytes */
  size_t over = got - hstart;
  if (over > hlen) over = hlen;
  memcpy(h, pre + hstart, over);
  size_t hgot = over + fread(h + over, 1, hlen - over, f);
  if (hgot < hlen) {
    free(h);
    return fail(err, errlen, "truncated: the header says %zu bytes, %zu follow the preamble", hlen, hgot);
  }
  bool ok = parse_header(h, hlen, &a, err, errlen);
  free(h);
  if (!ok) return false;
  size_t extra = got - hstart - over; /* data bytes already in pre */
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
    uint64_t size = (uint64_t)st.st_size, at = hstart + hlen;
    if (size < at) size = at;
    if (!size_matches(&a, size - at > SIZE_MAX ? SIZE_MAX : (size_t)(size - at), err, errlen)) return false;
  }
  a.data = malloc(a.nbytes ? a.nbytes : 1);
  if (!a.data) return fail(err, errlen, "out of memory for %zu bytes", a.nbytes);
  size_t have = extra < a.nbytes ? extra : a.nbytes;
  memcpy(a.data, pre + hstart + over, have);
  have += fread((char *)a.data + have, 1, a.nbytes - have, f);
  size_t more = extra - (extra < a.nbytes ? extra : a.nbytes);
  while (getc(f) != EOF) more++;
  if (ferror(f)) {
    free(a.data);
    return fail(err, errlen, "read error: %s", strerror(errno));
  }
  if (have < a.nbytes || more) {
    free(a.data);
    return size_matches(&a, have + more, err, errlen);
  }
  *out = a;
  return true;
}

bool npy_read_file(const char *path, NpyArray *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return fail(err, errlen, "%s: %s", path, strerror(errno));
  char e[512] = "";
  bool ok = read_file(f, out, e, sizeof e);
  fclose(f);
  if (!ok) fail(err, errlen, "%s: %s", path, e);
  return ok;
}

/* ---- writing ---------------------------------------------------------------------- */

/* The preamble and header for an array; returns its length (a multiple of 64). */
static size_t make_header(char *buf, size_t cap, const char *dtype, int ndim, const uint64_t *shape) {
  char dict[512];
  int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", dtype);
  for (int i = 0; i < ndim; i++)
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%llu", i ? ", " : "", (unsigned long long)shape[i]);
  n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }", ndim == 1 ? "," : "");
  /* 1.0 while the header's length fits 16 bits, which it always does with
   * NPY_MAX_DIMS dimensions; 2.0 otherwise, as numpy does. */
  size_t pre = 10, total = (pre + (size_t)n + 1 + 63) / 64 * 64;
  if (total - pre > 65535) {
    pre = 12;
    total = (pre + (size_t)n + 1 + 63) / 64 * 64;
  }
  size_t hlen = total - pre;
  if (total > cap) return 0;
  memcpy(buf, magic, 6);
  buf[6] = pre == 10 ? 1 : 2;
  buf[7] = 0;
  buf[8] = (char)(hlen & 0xff);
  buf[9] = (char)(hlen >> 8 & 0xff);
  if (pre == 12) {
    buf[10] = (char)(hlen >> 16 & 0xff);
    buf[11] = (char)(hlen >> 24 & 0xff);
  }
  memcpy(buf + pre, dict, (size_t)n);
  memset(buf + pre + n, ' ', total - pre - (size_t)n - 1);
  buf[total - 1] = '\n';
  return total;
}

/* Checks the arguments and builds the header; *nbytes is the data size. */
static size_t prepare(const char *dtype, int ndim, const uint64_t *shape, const void *data, char *hdr, size_t cap,
                      size_t *nbytes, char *err, size_t errlen) {
  char norm[4];
  bool big;
  size_t item = dtype_normalize(dtype, norm, &big);
  if (!item) {
    if (big) fail(err, errlen, "big-endian dtype '%s' is not supported", dtype);
    else fail(err, errlen, "unsupported dtype '%s'", dtype ? dtype : "(null)");
    return 0;
  }
  if (ndim < 0 || ndim > NPY_MAX_DIMS || (ndim && !shape)) {
    fail(err, errlen, "%d dimensions: the shape must have 0 to %d", ndim, NPY_MAX_DIMS);
    return 0;
  }
  size_t count = 1;
  bool empty = false;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] > (uint64_t)INT64_MAX) {
      fail(err, errlen, "dimension %d is too large", i);
      return 0;
    }
    empty |= shape[i] == 0;
  }
  for (int i = 0; i < ndim && !empty; i++) {
    if (shape[i] > SIZE_MAX / count) {
      fail(err, errlen, "the array's size overflows");
      return 0;
    }
    count *= (size_t)shape[i];
  }
  if (empty) count = 0;
  if (count > SIZE_MAX / item) {
    fail(err, errlen, "the array's size overflows");
    return 0;
  }
  *nbytes = count * item;
  if (*nbytes && !data) {
    fail(err, errlen, "no data");
    return 0;
  }
  return make_header(hdr, cap, norm, ndim, shape);
}

bool npy_write_mem(const char *dtype, int ndim, const uint64_t *shape, const void *data, void **out,
                   size_t *outlen, char *err, size_t errlen) {
  char hdr[1024];
  size_t nbytes, hn = prepare(dtype, ndim, shape, data, hdr, sizeof hdr, &nbytes, err, errlen);
  *out = NULL;
  *outlen = 0;
  if (!hn) return false;
  if (nbytes > SIZE_MAX - hn) return fail(err, errlen, "the array's size overflows");
  char *b = malloc(hn + nbytes);
  if (!b) return fail(err, errlen, "out of memory for %zu bytes", hn + nbytes);
  memcpy(b, hdr, hn);
  if (nbytes) memcpy(b + hn, data, nbytes);
  *out = b;
  *outlen = hn + nbytes;
  return true;
}

bool npy_write_stream(FILE *f, const char *dtype, int ndim, const uint64_t *shape, const void *data, char *err,
                      size_t errlen) {
  char hdr[1024];
  size_t nbytes, hn = prepare(dtype, ndim, shape, data, hdr, sizeof hdr, &nbytes, err, errlen);
  if (!hn) return false;
  if (fwrite(hdr, 1, hn, f) != hn || (nbytes && fwrite(data, 1, nbytes, f) != nbytes))
    return fail(err, errlen, "write error: %s", strerror(errno));
  return true;
}

bool npy_write_file(const char *path, const char *dtype, int ndim, const uint64_t *shape, const void *data,
                    char *err, size_t errlen) {
  char hdr[1024], e[256];
  size_t nbytes; /* checked before the file is made */
  if (!prepare(dtype, ndim, shape, data, hdr, sizeof hdr, &nbytes, e, sizeof e)) return fail(err, errlen, "%s: %s", path, e);
  FILE *f = fopen(path, "wb");
  if (!f) return fail(err, errlen, "%s: %s", path, strerror(errno));
  bool ok = npy_write_stream(f, dtype, ndim, shape, data, e, sizeof e);
  int saved = errno;
  if (fclose(f) != 0 && ok) {
    ok = false;
    saved = errno;
    snprintf(e, sizeof e, "write error: %s", strerror(saved));
  }
  if (!ok) remove(path); /* no cut file left behind */
  return ok ? true : fail(err, errlen, "%s: %s", path, e);
}
