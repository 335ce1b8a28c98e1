/*
 * dtype.c — Triton's dtypes: the one table (dtype.h's DTYPES) as an array
 * indexed by DType, and the parsers of every spelling a signature, a `tl.`
 * attribute or the kernel's metadata may use.
 */
#include "dtype.h"

#include <string.h>

static const struct {
  const char *name, *short_name, *ir, *aliases;
  char cls;
  int bits, bytes, ebits, mbits;
  const char *c_type, *npy, *npy_alt;
} dtypes[DT_COUNT] = {
#define X(k, name, short_name, ir, aliases, cls, bits, bytes, ebits, mbits, ctype, npy, npy_alt) \
  [DT_##k] = {name, short_name, ir, aliases, cls, bits, bytes, ebits, mbits, ctype, npy, npy_alt},
    DTYPES(X)
#undef X
};

const char *dtype_name(DType t) { return dtypes[t].name; }
const char *dtype_short(DType t) { return dtypes[t].short_name; }
const char *dtype_ir(DType t) { return dtypes[t].ir; }
int dtype_bits(DType t) { return dtypes[t].bits; }
int dtype_bytes(DType t) { return dtypes[t].bytes; }
bool dtype_is_int(DType t) { return dtypes[t].cls != 'f'; }
bool dtype_is_signed(DType t) { return dtypes[t].cls == 's'; }
bool dtype_is_float(DType t) { return dtypes[t].cls == 'f'; }
const char *dtype_c_type(DType t) { return dtypes[t].c_type; }
const char *dtype_npy(DType t) { return dtypes[t].npy; }
const char *dtype_npy_alt(DType t) { return *dtypes[t].npy_alt ? dtypes[t].npy_alt : NULL; }

bool dtype_float_format(DType t, int *ebits, int *mbits) {
  *ebits = dtypes[t].ebits;
  *mbits = dtypes[t].mbits;
  return dtype_is_float(t);
}

/* Whether the n bytes at s are one of the words of `list` (space-separated). */
static bool among(const char *list, const char *s, size_t n) {
  for (const char *w = list; *w;) {
    size_t len = strcspn(w, " ");
    if (len == n && !memcmp(w, s, n)) return true;
    w += len + (w[len] == ' ');
  }
  return false;
}

bool dtype_parse_n(const char *s, size_t n, DType *out) {
  for (int t = 0; t < DT_COUNT; t++)
    if (among(dtypes[t].name, s, n) || among(dtypes[t].short_name, s, n) || among(dtypes[t].aliases, s, n)) {
      *out = (DType)t;
      return true;
    }
  return false;
}

bool dtype_parse(const char *s, DType *out) { return dtype_parse_n(s, strlen(s), out); }

bool dtype_parse_param(const char *s, DType *out, bool *is_ptr) {
  *is_ptr = *s == '*';
  return dtype_parse(s + *is_ptr, out);
}

int dtype_asm_elems_per_reg(int bits, int pack) {
  int n = bits < 32 ? 32 / bits : 1;
  return n < pack ? n : pack;
}
