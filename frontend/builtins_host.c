/*
 * builtins_host.c — the Python that module-level values are computed with,
 * over literals: str(), repr(), format(), round(), sum(), int() of a
 * string, the string methods, and os.environ.get / os.getenv, which take
 * their default: tilec does not read the compiling machine's environment
 * (--emit=ast says so; -D sets the global). Kernels cannot call them, as
 * in Triton, where a kernel sees only its globals and Triton's builtins.
 */
#include "builtins.h"

#include <ctype.h>

/* ---- str, repr, format, round, sum ---------------------------------------------------- */

HANDLER(py_str) {
  (void)nargs;
  return A(0) ? sema_format(S, call, A(0), 's', "") : val_const(S, cv_str(S, ""));
}

HANDLER(py_repr) {
  (void)nargs;
  return sema_format(S, call, A(0), 'r', "");
}

HANDLER(py_format) {
  (void)nargs;
  return sema_format(S, call, A(0), 0, A(1) ? const_str(S, call, A(1), "format()'s spec") : "");
}

static int64_t pow10_int(Sema *S, Node *call, int64_t k) {
  int64_t p = 1;
  for (int64_t i = 0; i < k; i++)
    if (__builtin_mul_overflow(p, 10, &p)) sema_error(S, call, "round() to %lld digits does not fit 64 bits", (long long)-k);
  return p;
}

/* round(x, ndigits=None): to the nearest, ties to even, as Python rounds;
 * a float to ndigits decimals is the float nearest the correctly rounded
 * decimal (printf's %.*f rounds so). */
HANDLER(py_round) {
  (void)nargs;
  Val *x = A(0);
  if (x->kind != V_CONST || (x->c->kind != CV_INT && x->c->kind != CV_BOOL && x->c->kind != CV_FLOAT))
    sema_error(S, call, "round() of %s", val_desc(S, x));
  bool none = !A(1) || val_is_none(A(1));
  int64_t nd = none ? 0 : const_int(S, call, A(1), "round()'s ndigits");
  if (x->c->kind != CV_FLOAT) {
    int64_t v = x->c->kind == CV_BOOL ? x->c->b : x->c->i;
    if (nd >= 0) return val_const(S, cv_int(S, v));
    if (nd < -18) return val_const(S, cv_int(S, 0));
    int64_t p = pow10_int(S, call, -nd), q = v / p, r = v % p;
    if (r < 0) q--, r += p;
    if (2 * r > p || (2 * r == p && (q & 1))) q++;
    int64_t out;
    if (__builtin_mul_overflow(q, p, &out)) sema_error(S, call, "constexpr integer overflow in round()");
    return val_const(S, cv_int(S, out));
  }
  double f = x->c->f;
  if (none) {
    if (!isfinite(f)) sema_error(S, call, "round() of %s float", isnan(f) ? "a NaN" : "an infinite");
    double r = nearbyint(f);
    if (fabs(r) >= 9.2e18) sema_error(S, call, "round() of a float that does not fit 64 bits");
    return val_const(S, cv_int(S, (int64_t)r));
  }
  if (!isfinite(f) || nd > 330) return x;
  if (nd < -330) return val_const(S, cv_float(S, copysign(0.0, f)));
  if (nd >= 0) {
    char buf[400];
    snprintf(buf, sizeof buf, "%.*f", (int)nd, f);
    return val_const(S, cv_float(S, strtod(buf, NULL)));
  }
  double p = pow(10.0, (double)-nd);
  return val_const(S, cv_float(S, nearbyint(f / p) * p));
}

/* sum(iterable, start=0): the items added left to right */
HANDLER(py_sum) {
  (void)nargs;
  Val *t = A(0), *acc = A(1) ? A(1) : val_const(S, cv_int(S, 0));
  if (acc->kind == V_CONST && acc->c->kind == CV_STR) sema_error(S, call, "sum() can't sum strings (use ''.join(seq))");
  if (t->kind == V_CONST && t->c->kind == CV_TUPLE) {
    for (int i = 0; i < t->c->nelems; i++) acc = binary_op(S, call, TK_PLUS, acc, val_const(S, t->c->elems[i]));
  } else if (t->kind == V_TUPLE) {
    for (int i = 0; i < t->n; i++) acc = binary_op(S, call, TK_PLUS, acc, t->elems[i]);
  } else {
    sema_error(S, call, "sum() of %s", val_desc(S, t));
  }
  return acc;
}

/* int(s, base): Python's integer literal rules for a string (surrounding
 * spaces, a sign, '_' between digits, a 0x/0o/0b prefix where base is 0 or
 * the prefix's own). */
Val *bi_int_of_string(Sema *S, Node *call, const char *text, int64_t base) {
  if (base != 0 && (base < 2 || base > 36)) sema_error(S, call, "int() base must be >= 2 and <= 36, or 0");
  const char *s = text;
  while (isspace((unsigned char)*s)) s++;
  bool neg = *s == '-';
  if (*s == '-' || *s == '+') s++;
  int64_t b = base;
  char p = s[0] == '0' ? (char)tolower((unsigned char)s[1]) : 0;
  int pb = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
  bool prefixed = pb && (b == 0 || b == pb);
  if (prefixed) b = pb, s += 2;
  else if (b == 0) b = 10;
  if (base == 0 && !prefixed && s[0] == '0') /* Python: no leading zeros in base 0 but for zero itself */
    for (const char *q = s; *q && !isspace((unsigned char)*q); q++)
      if (*q != '0' && *q != '_') sema_error(S, call, "invalid literal for int() with base 0: '%s'", text);
  uint64_t v = 0;
  int digits = 0;
  bool last_us = false; /* one '_' between digits, or after the prefix */
  for (; *s && !isspace((unsigned char)*s); s++) {
    if (*s == '_' && !last_us && (digits || prefixed)) {
      last_us = true;
      continue;
    }
    int d = isdigit((unsigned char)*s) ? *s - '0' : isalpha((unsigned char)*s) ? tolower((unsigned char)*s) - 'a' + 10 : 99;
    if (d >= b) sema_error(S, call, "invalid literal for int() with base %lld: '%s'", (long long)base, text);
    if (__builtin_mul_overflow(v, (uint64_t)b, &v) || __builtin_add_overflow(v, (uint64_t)d, &v) || v > (uint64_t)INT64_MAX + neg)
      sema_error(S, call, "int('%s') does not fit 64 bits", text);
    digits++;
    last_us = false;
  }
  while (isspace((unsigned char)*s)) s++;
  if (!digits || last_us || *s) sema_error(S, call, "invalid literal for int() with base %lld: '%s'", (long long)base, text);
  return val_const(S, cv_int(S, neg ? (int64_t)(0 - v) : (int64_t)v));
}

/* ---- os.environ.get, os.getenv ----------------------------------------------------------- */

HANDLER(os_getenv) {
  (void)nargs;
  const char *key = const_str(S, call, A(0), "the environment variable's name");
  Val *dflt = A(1) ? A(1) : val_const(S, cv_none(S));
  if (dflt->kind != V_CONST) sema_error(S, call, "the default of os.environ.get must be a constant, got %s", val_desc(S, dflt));
  Loc at = sema_loc(call);
  StrBuf sb = {.arena = S->a};
  sb_printf(&sb, "%s:%d: environment variable %s is not read: its default, %s, is taken (-D NAME=VALUE sets the global)",
            at.src->name, at.line, key, sema_format(S, call, dflt, 'r', "")->c->s);
  sema_note(S, sb.s);
  return dflt;
}

/* ---- string methods -------------------------------------------------------------------- */

static const char *self_str(Sema *S, Node *call, Val **args) { return const_str(S, call, args[0], "the string"); }

static Val *str_of(Sema *S, const char *s, size_t n) { return val_const(S, cv_str(S, arena_strndup(S->a, s, n))); }

static Val *cased(Sema *S, Node *call, Val **args, int (*f)(int)) {
  const char *s = self_str(S, call, args);
  char *r = arena_strndup(S->a, s, strlen(s));
  for (char *p = r; *p; p++)
    if (!((unsigned char)*p & 0x80)) *p = (char)f((unsigned char)*p);
  return val_const(S, cv_str(S, r));
}
HANDLER(str_upper) { (void)nargs; return cased(S, call, args, toupper); }
HANDLER(str_lower) { (void)nargs; return cased(S, call, args, tolower); }

/* strip(chars=None) and its one-sided forms: whitespace by default */
static Val *stripped(Sema *S, Node *call, Val **args, int nargs, bool left, bool right) {
  const char *s = self_str(S, call, args), *chars = A(1) && !val_is_none(A(1)) ? const_str(S, call, A(1), "the characters") : NULL;
  size_t lo = 0, hi = strlen(s);
#define STRIPS(c) (chars ? strchr(chars, (c)) != NULL : isspace((unsigned char)(c)))
  while (left && lo < hi && STRIPS(s[lo])) lo++;
  while (right && hi > lo && STRIPS(s[hi - 1])) hi--;
#undef STRIPS
  return str_of(S, s + lo, hi - lo);
}
HANDLER(str_strip) { return stripped(S, call, args, nargs, true, true); }
HANDLER(str_lstrip) { return stripped(S, call, args, nargs, true, false); }
HANDLER(str_rstrip) { return stripped(S, call, args, nargs, false, true); }

/* startswith/endswith(affix): affix a string or a tuple of them */
static Val *affixed(Sema *S, Node *call, Val **args, bool end) {
  const char *s = self_str(S, call, args);
  Val *a = args[1];
  int n = a->kind == V_CONST && a->c->kind == CV_TUPLE ? a->c->nelems : 1;
  bool hit = false;
  for (int i = 0; i < n && !hit; i++) {
    Val *x = n == 1 && !(a->kind == V_CONST && a->c->kind == CV_TUPLE) ? a : val_const(S, a->c->elems[i]);
    const char *t = const_str(S, call, x, end ? "endswith's suffix" : "startswith's prefix");
    size_t ls = strlen(s), lt = strlen(t);
    hit = lt <= ls && !memcmp(end ? s + ls - lt : s, t, lt);
  }
  return val_const(S, cv_bool(S, hit));
}
HANDLER(str_startswith) { (void)nargs; return affixed(S, call, args, false); }
HANDLER(str_endswith) { (void)nargs; return affixed(S, call, args, true); }

HANDLER(str_replace) {
  (void)nargs;
  const char *s = self_str(S, call, args), *old = const_str(S, call, A(1), "replace's old"), *new = const_str(S, call, A(2), "replace's new");
  int64_t count = A(3) && !val_is_none(A(3)) ? const_int(S, call, A(3), "replace's count") : -1;
  StrBuf sb = {.arena = S->a};
  size_t lo = strlen(old), ls = strlen(s);
  for (size_t i = 0; i <= ls;) {
    if (count != 0 && !strncmp(s + i, old, lo)) {
      sb_printf(&sb, "%s", new);
      if (count > 0) count--;
      if (!lo) {
        if (i < ls) sb_printf(&sb, "%c", s[i]);
        i++;
      } else {
        i += lo;
      }
      continue;
    }
    if (i < ls) sb_printf(&sb, "%c", s[i]);
    i++;
  }
  if (sb.len > (1 << 20)) sema_error(S, call, "a constexpr string of %zu bytes is too long", sb.len);
  return val_const(S, cv_str(S, sb.s ? sb.s : ""));
}

/* split(sep=None, maxsplit=-1): a tuple of strings (Python gives a list,
 * which tilec reads as a tuple) */
HANDLER(str_split) {
  (void)nargs;
  const char *s = self_str(S, call, args);
  const char *sep = A(1) && !val_is_none(A(1)) ? const_str(S, call, A(1), "split's separator") : NULL;
  int64_t max = A(2) ? const_int(S, call, A(2), "split's maxsplit") : -1;
  if (sep && !*sep) sema_error(S, call, "empty separator");
  PtrVec parts = {0};
  size_t ls = strlen(s), i = 0;
  if (!sep) {
    for (;;) {
      while (i < ls && isspace((unsigned char)s[i])) i++;
      if (i == ls) break;
      size_t j = i;
      if (max >= 0 && (int64_t)parts.n == max) {
        j = ls;
        while (j > i && isspace((unsigned char)s[j - 1])) j--;
      } else {
        while (j < ls && !isspace((unsigned char)s[j])) j++;
      }
      vec_push(S->a, &parts, cv_str(S, arena_strndup(S->a, s + i, j - i)));
      i = j;
    }
  } else {
    size_t lsep = strlen(sep);
    for (;;) {
      const char *hit = max >= 0 && (int64_t)parts.n == max ? NULL : strstr(s + i, sep);
      size_t j = hit ? (size_t)(hit - s) : ls;
      vec_push(S->a, &parts, cv_str(S, arena_strndup(S->a, s + i, j - i)));
      if (!hit) break;
      i = j + lsep;
    }
  }
  return val_const(S, cv_tuple(S, call, (CValue *const *)parts.v, parts.n));
}

HANDLER(str_join) {
  (void)nargs;
  const char *sep = self_str(S, call, args);
  Val *t = A(1);
  if (!(t->kind == V_CONST && t->c->kind == CV_TUPLE)) sema_error(S, call, "join() takes a tuple or list of strings, got %s", val_desc(S, t));
  StrBuf sb = {.arena = S->a};
  for (int i = 0; i < t->c->nelems; i++) {
    Val *x = val_const(S, t->c->elems[i]);
    sb_printf(&sb, "%s%s", i ? sep : "", const_str(S, call, x, "join()'s items"));
    if (sb.len > (1 << 20)) sema_error(S, call, "a constexpr string of %zu bytes is too long", sb.len);
  }
  return val_const(S, cv_str(S, sb.s ? sb.s : ""));
}

/* ---- the table ------------------------------------------------------------------------------- */

const Builtin builtins_host[] = {
    {"py.str", "object=", py_str, 0},
    {"py.repr", "object", py_repr, 0},
    {"py.format", "value,format_spec=", py_format, 0},
    {"py.round", "number,ndigits=", py_round, 0},
    {"py.sum", "iterable,start=", py_sum, 0},
    {"os.getenv", "key,default=", os_getenv, 0},
    {"str.upper", "self", str_upper, B_METHOD},
    {"str.lower", "self", str_lower, B_METHOD},
    {"str.strip", "self,chars=", str_strip, B_METHOD},
    {"str.lstrip", "self,chars=", str_lstrip, B_METHOD},
    {"str.rstrip", "self,chars=", str_rstrip, B_METHOD},
    {"str.startswith", "self,prefix", str_startswith, B_METHOD},
    {"str.endswith", "self,suffix", str_endswith, B_METHOD},
    {"str.replace", "self,old,new,count=", str_replace, B_METHOD},
    {"str.split", "self,sep=,maxsplit=", str_split, B_METHOD},
    {"str.join", "self,iterable", str_join, B_METHOD},
};
const size_t builtins_host_count = sizeof builtins_host / sizeof *builtins_host;
