/*
 * sema_format.c — f-strings in kernels, evaluated at compile time as Triton
 * evaluates them: every replacement field must be a value known at compile
 * time (a constexpr, a literal, a dtype, a shape, a tuple of them), and the
 * f-string is then a constexpr string, good wherever a string literal is
 * (`tl.dtype(f"uint{bits}")`, messages, `tl.static_print`, comparisons).
 * A runtime value in a field is an error at the field, as Triton's is.
 *
 * Values are shown as Python shows them, that being the text Triton's
 * compiler makes: str(), or repr() or ascii() after `!r`/`!a` (a `{x=}`
 * field shows repr), floats by their shortest round-trip repr (`1e-05`,
 * `1e+20`, `inf`), dtypes by Triton's names (str `fp32`, repr
 * `triton.language.float32`). A format spec follows Python's format
 * mini-language for ints, floats and strings, computed with the C
 * library's conversions; a spec Python rejects, or one on a value that
 * takes none (None, a dtype, a tuple), is an error at the spec.
 */
#include "sema.h"

/* ---- str() and repr() ------------------------------------------------------- */

/* Python's repr of a float: the shortest digits that read back the same,
 * fixed-point from 1e-4 up to 1e16 (with at least one decimal), else
 * scientific with an exponent of two digits or more. */
static void float_repr(StrBuf *sb, double x) {
  if (isnan(x)) {
    sb_printf(sb, "nan");
    return;
  }
  if (isinf(x)) {
    sb_printf(sb, x < 0 ? "-inf" : "inf");
    return;
  }
  char buf[64];
  for (int prec = 0; prec < 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec, x);
    if (strtod(buf, NULL) == x) break;
  }
  /* buf: [-]d[.ddd]e±XX */
  char digits[32];
  int nd = 0;
  const char *p = buf;
  if (*p == '-') sb_putc(sb, *p++);
  for (; *p != 'e'; p++)
    if (*p != '.') digits[nd++] = *p;
  int exp = atoi(p + 1);
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  if (exp < -4 || exp >= 16) {
    sb_putc(sb, digits[0]);
    if (nd > 1) {
      sb_putc(sb, '.');
      sb_append(sb, digits + 1, (size_t)(nd - 1));
    }
    sb_printf(sb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  } else if (exp < 0) {
    sb_printf(sb, "0.");
    for (int i = -1; i > exp; i--) sb_putc(sb, '0');
    sb_append(sb, digits, (size_t)nd);
  } else {
    for (int i = 0; i <= exp; i++) sb_putc(sb, i < nd ? digits[i] : '0');
    sb_putc(sb, '.');
    if (nd > exp + 1) sb_append(sb, digits + exp + 1, (size_t)(nd - exp - 1));
    else sb_putc(sb, '0');
  }
}

/* Python's repr of a string (quoted with ' unless it holds ' and no "),
 * or ascii's, which escapes every character past ASCII. A byte that is no
 * UTF-8 (a "\xe9" escape holds one) shows as that code point. */
static void str_repr(StrBuf *sb, const char *s, bool ascii) {
  char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
  sb_putc(sb, q);
  const char *end = s + strlen(s);
  while (s < end) {
    Utf8 u = utf8_next(s, end);
    uint32_t c = u.err ? (unsigned char)*s : u.cp;
    int len = u.err ? 1 : u.len;
    if (c == (uint32_t)q || c == '\\') sb_printf(sb, "\\%c", (char)c);
    else if (c == '\n') sb_printf(sb, "\\n");
    else if (c == '\r') sb_printf(sb, "\\r");
    else if (c == '\t') sb_printf(sb, "\\t");
    else if (c < 0x20 || c == 0x7f || (c >= 0x80 && (ascii || c <= 0xa0 || c == 0xad || u.err)))
      sb_printf(sb, c <= 0xff ? "\\x%02x" : c <= 0xffff ? "\\u%04x" : "\\U%08x", (unsigned)c);
    else if (ascii && c > 0xff)
      sb_printf(sb, c <= 0xffff ? "\\u%04x" : "\\U%08x", (unsigned)c);
    else if (c == 0x2028 || c == 0x2029)
      sb_printf(sb, "\\u%04x", (unsigned)c);
    else sb_append(sb, s, (size_t)len);
    s += len;
  }
  sb_putc(sb, q);
}

/* A dtype as Triton names it: str(tl.float32) is 'fp32', str(tl.int32)
 * 'int32', repr(tl.float32) 'triton.language.float32'; a pointer type is
 * 'pointer<fp32>' either way. */
const char *sema_dtype_str(DType d) { return dtype_is_float(d) ? dtype_short(d) : dtype_name(d); }

static void dtype_text(StrBuf *sb, const Type *t, bool repr) {
  if (t->kind == TY_SCALAR) {
    DType d = t->dtype;
    if (repr) sb_printf(sb, "triton.language.%s", dtype_name(d));
    else sb_printf(sb, "%s", sema_dtype_str(d));
  } else if (t->kind == TY_PTR) {
    sb_printf(sb, "pointer<");
    dtype_text(sb, t->elem, false);
    sb_putc(sb, '>');
  } else {
    ty_print(sb, t);
  }
}

/* str(v), or repr(v) (ascii(v) with `ascii`). */
static void value_text(StrBuf *sb, const CValue *v, bool repr, bool ascii) {
  switch (v->kind) {
  case CV_NONE: sb_printf(sb, "None"); return;
  case CV_BOOL: sb_printf(sb, v->b ? "True" : "False"); return;
  case CV_INT:
    if (v->is_unsigned_big) sb_printf(sb, "%llu", (unsigned long long)v->i);
    else sb_printf(sb, "%lld", (long long)v->i);
    return;
  case CV_FLOAT: float_repr(sb, v->f); return;
  case CV_STR:
    if (repr) str_repr(sb, v->s, ascii);
    else sb_printf(sb, "%s", v->s);
    return;
  case CV_DTYPE: dtype_text(sb, v->dtype, repr); return;
  case CV_TUPLE:
    /* a tuple shows its items' repr, str() or not */
    sb_putc(sb, '(');
    for (int i = 0; i < v->nelems; i++) {
      if (i) sb_printf(sb, ", ");
      value_text(sb, v->elems[i], true, ascii);
    }
    sb_printf(sb, v->nelems == 1 ? ",)" : ")");
    return;
  }
}

/* ---- the format mini-language ------------------------------------------------- */

/* [[fill]align][sign]['z']['#']['0'][width][grouping]['.' precision][type] */
typedef struct Spec {
  const char *text; /* as written, for messages */
  char fill[5];     /* one character, UTF-8; "" when not given */
  char align;       /* '<', '>', '=', '^'; 0 when not given */
  char sign;        /* '+', '-', ' '; 0 when not given */
  bool z, alt, zero;
  int width, prec;  /* -1 when not given */
  char group;       /* ',' or '_'; 0 */
  char type;        /* 0 when not given */
} Spec;

/* Past Python's own limits nobody formats; these keep the text bounded. */
#define MAX_FORMAT_WIDTH 10000

_Noreturn static void spec_error(Sema *S, Node *at, const Spec *sp, const char *why) {
  sema_error(S, at, "format spec '%s': %s", sp->text, why);
}

static int spec_number(Sema *S, Node *at, Spec *sp, const char **p) {
  long v = 0;
  while (**p >= '0' && **p <= '9') {
    v = v * 10 + (**p - '0');
    if (v > MAX_FORMAT_WIDTH)
      spec_error(S, at, sp, arena_printf(S->a, "a width or precision above %d is not supported", MAX_FORMAT_WIDTH));
    (*p)++;
  }
  return (int)v;
}

static bool is_align(char c) { return c && strchr("<>=^", c); }

static void parse_spec(Sema *S, Node *at, const char *text, Spec *sp) {
  *sp = (Spec){.text = text, .width = -1, .prec = -1};
  const char *p = text, *end = text + strlen(text);
  Utf8 u = p < end ? utf8_next(p, end) : (Utf8){0};
  int flen = u.err ? 1 : u.len;
  if (p < end && is_align(p[flen])) {
    memcpy(sp->fill, p, (size_t)flen);
    sp->align = p[flen];
    p += flen + 1;
  } else if (is_align(*p)) {
    sp->align = *p++;
  }
  if (*p == '+' || *p == '-' || *p == ' ') sp->sign = *p++;
  if (*p == 'z') sp->z = true, p++;
  if (*p == '#') sp->alt = true, p++;
  if (*p == '0' && !*sp->fill) sp->zero = true, p++;
  if (*p >= '0' && *p <= '9') sp->width = spec_number(S, at, sp, &p);
  if (*p == ',' || *p == '_') {
    sp->group = *p++;
    if (*p == ',' || *p == '_') spec_error(S, at, sp, "cannot specify both ',' and '_'");
  }
  if (*p == '.') {
    p++;
    if (*p < '0' || *p > '9') spec_error(S, at, sp, "the precision is missing after '.'");
    sp->prec = spec_number(S, at, sp, &p);
  }
  if (end - p > 1) spec_error(S, at, sp, "invalid format specifier");
  sp->type = *p;
}

/* Pads body (in code points: UTF-8 continuation bytes do not count) to the
 * width with the fill: '<' after, '>' before, '^' around (the extra one
 * after), '=' between its first `lead` bytes (a sign, a 0x) and the rest. */
static void put_padded(StrBuf *sb, const Spec *sp, const char *body, size_t n, size_t lead, char align) {
  int len = 0;
  for (size_t i = 0; i < n; i++) len += ((unsigned char)body[i] & 0xc0) != 0x80;
  int pad = sp->width > len ? sp->width - len : 0;
  int before = align == '<' ? 0 : align == '^' ? pad / 2 : pad;
  const char *fill = *sp->fill ? sp->fill : sp->zero ? "0" : " ";
  if (align == '=') sb_append(sb, body, lead);
  for (int i = 0; i < before; i++) sb_printf(sb, "%s", fill);
  if (align == '=') sb_append(sb, body + lead, n - lead);
  else sb_append(sb, body, n);
  for (int i = before; i < pad; i++) sb_printf(sb, "%s", fill);
}

/* Groups the n digits at d by `every` with sep, as many zeros before them
 * as make the result min_width long (zero-padding with grouping pads with
 * grouped zeros: format(1234, "09,d") is '0,001,234'). */
static void put_grouped(StrBuf *sb, const char *d, int n, char sep, int every, int min_width) {
  int total = n;
  while (total + (total - 1) / every < min_width) total++;
  for (int i = 0; i < total; i++) {
    sb_putc(sb, i < total - n ? '0' : d[i - (total - n)]);
    int left = total - 1 - i;
    if (sep && left > 0 && left % every == 0) sb_putc(sb, sep);
  }
}

/* A number: its sign (negative or not), a prefix (0x), the digits of its
 * integer part, and what follows them (".5e+03", "%"), put together as the
 * spec says. */
static void put_number(StrBuf *sb, const Spec *sp, bool neg, const char *prefix, const char *digits, int nd,
                       const char *rest, int every) {
  StrBuf b = {.arena = sb->arena};
  char sign = neg ? '-' : sp->sign == '+' ? '+' : sp->sign == ' ' ? ' ' : 0;
  if (sign) sb_putc(&b, sign);
  sb_printf(&b, "%s", prefix);
  size_t lead = b.len;
  char align = sp->align ? sp->align : sp->zero ? '=' : '>';
  bool zero_fill = (sp->zero && !*sp->fill) || !strcmp(sp->fill, "0");
  int min_width = 0;
  if (sp->group && zero_fill && align == '=' && sp->width > 0)
    min_width = sp->width - (int)lead - (int)strlen(rest);
  bool all_digits = nd > 0;
  for (int i = 0; i < nd; i++) all_digits &= digits[i] >= '0' && digits[i] <= '9';
  if (all_digits) put_grouped(&b, digits, nd, sp->group, every, min_width);
  else sb_append(&b, digits, (size_t)nd);
  sb_printf(&b, "%s", rest);
  put_padded(sb, sp, b.s, b.len, lead, align);
}

static void format_int(Sema *S, Node *at, StrBuf *sb, const Spec *sp, const CValue *v);

/* format(x, spec) of a float (or of an int with a float's type). */
static void format_float(Sema *S, Node *at, StrBuf *sb, const Spec *sp, double x, const char *tname) {
  char type = sp->type;
  if (type && !strchr("eEfFgGn%", type))
    spec_error(S, at, sp, arena_printf(S->a, "unknown format code '%c' for a %s", type, tname));
  bool upper = type == 'E' || type == 'F' || type == 'G';
  bool neg = signbit(x) && !isnan(x);
  double a = fabs(x);
  StrBuf num = {.arena = S->a};
  if (isnan(a) || isinf(a)) {
    sb_printf(&num, isnan(a) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"));
    if (type == '%') sb_putc(&num, '%');
  } else if (!type && sp->prec < 0) {
    float_repr(&num, a);
    if (sp->alt && !strchr(num.s, '.')) { /* '#': a point always, even before the exponent */
      char *e = strchr(num.s, 'e');
      size_t at_e = e ? (size_t)(e - num.s) : num.len;
      StrBuf t = {.arena = S->a};
      sb_append(&t, num.s, at_e);
      sb_putc(&t, '.');
      sb_printf(&t, "%s", num.s + at_e);
      num = t;
    }
  } else {
    int prec = sp->prec >= 0 ? sp->prec : 6;
    char conv = type == 'e' || type == 'E' ? 'e' : type == 'f' || type == 'F' || type == '%' ? 'f' : 'g';
    if (conv == 'g' && prec == 0) prec = 1;
    if (!type) {
      /* no type: 'g' that turns scientific one digit earlier and keeps a
       * point (format(12.0, ".2") is '1.2e+01', format(1.0, ".3") '1.0') */
      char e[64];
      snprintf(e, sizeof e, "%.*e", prec - 1, a);
      int exp = atoi(strchr(e, 'e') + 1);
      if (exp >= prec - 1 && exp >= -4) {
        char *m = strchr(e, 'e'), *z = m;
        if (!sp->alt && strchr(e, '.') && strchr(e, '.') < m) {
          while (z[-1] == '0') z--;
          if (z[-1] == '.') z--;
        }
        sb_append(&num, e, (size_t)(z - e));
        if (sp->alt && !memchr(e, '.', (size_t)(m - e))) sb_putc(&num, '.');
        sb_printf(&num, "%s", m);
        conv = 0;
      }
    }
    double y = type == '%' ? a * 100 : a;
    if (conv) {
      char fmt[16];
      snprintf(fmt, sizeof fmt, "%%%s.*%c", sp->alt ? "#" : "", conv);
      int n = snprintf(NULL, 0, fmt, prec, y);
      char *buf = arena_alloc(S->a, (size_t)n + 1);
      snprintf(buf, (size_t)n + 1, fmt, prec, y);
      sb_printf(&num, "%s", buf);
    }
    /* no type: 'g' with a point always (format(1.0, ".3") is '1.0') */
    if (!type && !strpbrk(num.s, ".e")) sb_printf(&num, ".0");
    if (type == '%') sb_putc(&num, '%');
    if (upper)
      for (size_t i = 0; i < num.len; i++)
        if (num.s[i] >= 'a' && num.s[i] <= 'z') num.s[i] = (char)(num.s[i] - 'a' + 'A');
  }
  if (sp->z && neg && !strpbrk(num.s, "123456789")) neg = false; /* 'z': -0.0 rounds to 0.0 */
  size_t nd = strcspn(num.s, ".eE%");
  put_number(sb, sp, neg, "", num.s, (int)nd, num.s + nd, 3);
}

/* format(n, spec) of an int (a bool is one). */
static void format_int(Sema *S, Node *at, StrBuf *sb, const Spec *sp, const CValue *v) {
  char type = sp->type ? sp->type : 'd';
  uint64_t mag;
  bool neg = false;
  if (v->kind == CV_BOOL) mag = v->b;
  else if (v->is_unsigned_big || v->i >= 0) mag = (uint64_t)v->i;
  else neg = true, mag = (uint64_t)0 - (uint64_t)v->i;
  if (strchr("eEfFgG%", type)) {
    double x = v->kind == CV_BOOL ? v->b : v->is_unsigned_big ? (double)(uint64_t)v->i : (double)v->i;
    format_float(S, at, sb, sp, x, "int");
    return;
  }
  if (!strchr("dnbxXoc", type)) spec_error(S, at, sp, arena_printf(S->a, "unknown format code '%c' for an int", type));
  if (sp->prec >= 0) spec_error(S, at, sp, "a precision is not allowed for an int");
  if (sp->z) spec_error(S, at, sp, "'z' (negative zero) is not allowed for an int");
  if (sp->group == ',' && type != 'd') spec_error(S, at, sp, arena_printf(S->a, "cannot specify ',' with '%c'", type));
  if (sp->group == '_' && (type == 'c' || type == 'n'))
    spec_error(S, at, sp, arena_printf(S->a, "cannot specify '_' with '%c'", type));
  if (type == 'c') {
    if (sp->sign) spec_error(S, at, sp, "a sign is not allowed with 'c'");
    if (sp->alt) spec_error(S, at, sp, "'#' is not allowed with 'c'");
    if (neg || mag > 0x10ffff) spec_error(S, at, sp, "'c' takes an int in range(0x110000)");
    char ch[4];
    int len = 0;
    uint32_t c = (uint32_t)mag;
    if (c < 0x80) ch[len++] = (char)c;
    else if (c < 0x800) ch[len++] = (char)(0xc0 | (c >> 6)), ch[len++] = (char)(0x80 | (c & 0x3f));
    else if (c < 0x10000)
      ch[len++] = (char)(0xe0 | (c >> 12)), ch[len++] = (char)(0x80 | ((c >> 6) & 0x3f)), ch[len++] = (char)(0x80 | (c & 0x3f));
    else
      ch[len++] = (char)(0xf0 | (c >> 18)), ch[len++] = (char)(0x80 | ((c >> 12) & 0x3f)),
      ch[len++] = (char)(0x80 | ((c >> 6) & 0x3f)), ch[len++] = (char)(0x80 | (c & 0x3f));
    put_padded(sb, sp, ch, (size_t)len, 0, sp->align ? sp->align : '<');
    return;
  }
  int base = type == 'b' ? 2 : type == 'o' ? 8 : type == 'x' || type == 'X' ? 16 : 10;
  const char *hexd = type == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  char digits[72];
  int nd = 0;
  char rev[72];
  do {
    rev[nd++] = hexd[mag % (uint64_t)base];
    mag /= (uint64_t)base;
  } while (mag);
  for (int i = 0; i < nd; i++) digits[i] = rev[nd - 1 - i];
  const char *prefix = !sp->alt || base == 10 ? "" : base == 2 ? "0b" : base == 8 ? "0o" : type == 'X' ? "0X" : "0x";
  put_number(sb, sp, neg, prefix, digits, nd, "", base == 10 ? 3 : 4);
}

/* format(s, spec) of a string. */
static void format_str(Sema *S, Node *at, StrBuf *sb, const Spec *sp, const char *s) {
  if (sp->type && sp->type != 's') spec_error(S, at, sp, arena_printf(S->a, "unknown format code '%c' for a string", sp->type));
  if (sp->sign) spec_error(S, at, sp, "a sign is not allowed for a string");
  if (sp->alt) spec_error(S, at, sp, "'#' is not allowed for a string");
  if (sp->z) spec_error(S, at, sp, "'z' (negative zero) is not allowed for a string");
  if (sp->align == '=') spec_error(S, at, sp, "'=' alignment is not allowed for a string");
  if (sp->group) spec_error(S, at, sp, arena_printf(S->a, "cannot specify '%c' with a string", sp->group));
  size_t n = strlen(s);
  if (sp->prec >= 0) { /* at most prec characters */
    int chars = 0;
    size_t i = 0;
    for (; i < n; i++) {
      if (((unsigned char)s[i] & 0xc0) == 0x80) continue;
      if (chars++ == sp->prec) break;
    }
    n = i;
  }
  put_padded(sb, sp, s, n, 0, sp->align ? sp->align : '<');
}

/* format(v, spec), v having been through the field's conversion. */
static void format_value(Sema *S, Node *at, StrBuf *sb, const CValue *v, const char *spec) {
  if (!*spec) {
    value_text(sb, v, false, false);
    return;
  }
  Spec sp;
  parse_spec(S, at, spec, &sp);
  switch (v->kind) {
  case CV_INT: case CV_BOOL: format_int(S, at, sb, &sp, v); return;
  case CV_FLOAT: format_float(S, at, sb, &sp, v->f, "float"); return;
  case CV_STR: format_str(S, at, sb, &sp, v->s); return;
  default:
    spec_error(S, at, &sp, arena_printf(S->a, "%s takes no format spec (numbers and strings do)",
                                        v->kind == CV_NONE ? "None" : v->kind == CV_DTYPE ? "a dtype" : "a tuple"));
  }
}

/* ---- f-strings ------------------------------------------------------------------- */

/* The compile-time value of a field: a constexpr, or a tuple of them. */
static CValue *field_value(Sema *S, Node *at, Val *v) {
  if (v->kind == V_CONST) return v->c;
  if (v->kind == V_TUPLE) {
    CValue **c = arena_alloc(S->a, sizeof(CValue *) * (size_t)(v->n + 1));
    for (int i = 0; i < v->n; i++) c[i] = field_value(S, at, v->elems[i]);
    return cv_tuple(S, at, c, v->n);
  }
  sema_error(S, at, "an f-string's fields are evaluated at compile time: this one is %s, not a constexpr", val_desc(S, v));
}

/* format(v, spec) after the conversion conv ('s' str, 'r' repr, 'a' ascii;
 * 0 none), appended to sb. */
static void convert_format(Sema *S, Node *at, StrBuf *sb, CValue *v, int conv, const char *spec) {
  if (conv) {
    StrBuf t = {.arena = S->a};
    value_text(&t, v, conv != 's', conv == 'a');
    v = cv_str(S, t.s ? t.s : "");
  }
  format_value(S, at, sb, v, spec);
}

Val *sema_format(Sema *S, Node *at, Val *v, int conv, const char *spec) {
  StrBuf sb = {.arena = S->a};
  convert_format(S, at, &sb, field_value(S, at, v), conv, spec);
  return val_const(S, cv_str(S, sb.s ? sb.s : ""));
}

Val *sema_fstring(Sema *S, Node *n) {
  StrBuf sb = {.arena = S->a};
  for (int i = 0; i < n->kids.n; i++) {
    Node *k = n->kids.v[i];
    if (k->kind == N_STR) {
      sb_printf(&sb, "%s", k->sval);
      continue;
    }
    CValue *v = field_value(S, k, sema_eval(S, k->lhs));
    const char *spec = k->rhs ? sema_fstring(S, k->rhs)->c->s : "";
    convert_format(S, k->rhs ? k->rhs : k, &sb, v, (int)k->ival, spec);
  }
  return val_const(S, cv_str(S, sb.s ? sb.s : ""));
}
