/*
 * lex.c — Python source to tokens.
 *
 * The whole file is tokenized up front, host code included: the parser skips
 * host statements by their token structure, so the lexer must understand every
 * form Python accepts (indentation, implicit joining inside brackets,
 * backslash continuations, every string prefix and quoting, f-strings with
 * nested strings, all number forms). Logical lines end in NEWLINE; changes of
 * indentation become INDENT/DEDENT, as in CPython's tokenizer.
 */
#include "frontend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {
#define X(k, s) s,
    TOKEN_KINDS(X)
#undef X
};

const char *tok_kind_name(TokKind k) { return k < TK_COUNT ? kind_names[k] : "?"; }

typedef struct Lexer {
  Arena *a;
  Diags *d;
  const Source *src;
  const char *p, *end;
  const char *line_start;
  int line;
  Token *toks;
  int n, cap;
  int *indents;    /* indentation stack, tabs to multiples of 8 */
  int *altindents; /* the same with tabs as 1 column, to catch tab/space mixes */
  int nindent, indent_cap;
  int brackets[200]; /* open brackets' tokens, for "never closed" errors; CPython's limit too */
  int depth;
} Lexer;

static Loc loc_at(Lexer *L, const char *p) {
  return (Loc){L->src, L->line, (int)(p - L->line_start) + 1};
}

_Noreturn static void lex_error(Lexer *L, const char *p, const char *fmt, const char *arg) {
  diag_error(L->d, loc_at(L, p), fmt, arg);
}

/* A new token at the end. The array grows in place (arena_grow), so a
 * token is kept by its index, not its address, across pushes. */
static Token *push(Lexer *L, TokKind k, const char *p, int len) {
  if (L->n == L->cap) {
    int cap = L->cap ? L->cap * 2 : 1024;
    L->toks = arena_grow(L->a, L->toks, sizeof(Token) * (size_t)cap);
    L->cap = cap;
  }
  Token *t = &L->toks[L->n++];
  memset(t, 0, sizeof *t);
  t->kind = k;
  t->p = p;
  t->len = len;
  t->loc = loc_at(L, p);
  return t;
}

static void newline_at(Lexer *L, const char *after) {
  L->line++;
  L->line_start = after;
}

/* ---- keywords and punctuation --------------------------------------------- */

static const struct {
  const char *s;
  TokKind k;
} keywords[] = {
    {"and", TK_KW_and},         {"as", TK_KW_as},         {"assert", TK_KW_assert},
    {"async", TK_KW_async},     {"await", TK_KW_await},   {"break", TK_KW_break},
    {"class", TK_KW_class},     {"continue", TK_KW_continue}, {"def", TK_KW_def},
    {"del", TK_KW_del},         {"elif", TK_KW_elif},     {"else", TK_KW_else},
    {"except", TK_KW_except},   {"False", TK_KW_False},   {"finally", TK_KW_finally},
    {"for", TK_KW_for},         {"from", TK_KW_from},     {"global", TK_KW_global},
    {"if", TK_KW_if},           {"import", TK_KW_import}, {"in", TK_KW_in},
    {"is", TK_KW_is},           {"lambda", TK_KW_lambda}, {"None", TK_KW_None},
    {"nonlocal", TK_KW_nonlocal}, {"not", TK_KW_not},     {"or", TK_KW_or},
    {"pass", TK_KW_pass},       {"raise", TK_KW_raise},   {"return", TK_KW_return},
    {"True", TK_KW_True},       {"try", TK_KW_try},       {"while", TK_KW_while},
    {"with", TK_KW_with},       {"yield", TK_KW_yield},
};

/* Longest first, so that a prefix never shadows a longer operator. */
static const struct {
  const char *s;
  TokKind k;
} puncts[] = {
    {"**=", TK_POWEQ}, {"//=", TK_DSLASHEQ}, {"<<=", TK_SHLEQ}, {">>=", TK_SHREQ},
    {"...", TK_ELLIPSIS}, {"->", TK_ARROW},  {":=", TK_WALRUS}, {"**", TK_POW},
    {"//", TK_DSLASH},  {"<<", TK_SHL},      {">>", TK_SHR},    {"<=", TK_LE},
    {">=", TK_GE},      {"==", TK_EQ},       {"!=", TK_NE},     {"+=", TK_PLUSEQ},
    {"-=", TK_MINUSEQ}, {"*=", TK_STAREQ},   {"/=", TK_SLASHEQ}, {"%=", TK_PERCENTEQ},
    {"&=", TK_AMPEQ},   {"|=", TK_PIPEEQ},   {"^=", TK_CARETEQ}, {"@=", TK_ATEQ},
    {"(", TK_LPAREN},   {")", TK_RPAREN},    {"[", TK_LBRACKET}, {"]", TK_RBRACKET},
    {"{", TK_LBRACE},   {"}", TK_RBRACE},    {",", TK_COMMA},   {":", TK_COLON},
    {";", TK_SEMI},     {".", TK_DOT},       {"@", TK_AT},      {"=", TK_ASSIGN},
    {"+", TK_PLUS},     {"-", TK_MINUS},     {"*", TK_STAR},    {"/", TK_SLASH},
    {"%", TK_PERCENT},  {"~", TK_TILDE},     {"&", TK_AMP},     {"|", TK_PIPE},
    {"^", TK_CARET},    {"<", TK_LT},        {">", TK_GT},
};

static bool is_ident_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
static bool is_ident_char(unsigned char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

/* The character at p, which must be valid UTF-8 wherever it is (code,
 * strings, comments), as Python reads a file: the error is at its first byte. */
static Utf8 utf8_at(Lexer *L, const char *p) {
  Utf8 u = utf8_next(p, L->end);
  if (!u.err) return u;
  char bytes[32] = "", why[80];
  for (int i = 0; i < u.len; i++)
    snprintf(bytes + strlen(bytes), sizeof bytes - strlen(bytes), "%s0x%02x", i ? " " : "", (unsigned char)p[i]);
  switch (u.err) {
  case UTF8_STRAY: snprintf(why, sizeof why, "a continuation byte with no lead byte"); break;
  case UTF8_BAD_LEAD: snprintf(why, sizeof why, "no UTF-8 sequence starts with it"); break;
  case UTF8_TRUNCATED:
    if (p + u.len < L->end) snprintf(why, sizeof why, "truncated: 0x%02x does not continue it", (unsigned char)p[u.len]);
    else snprintf(why, sizeof why, "truncated by the end of the file");
    break;
  case UTF8_OVERLONG: snprintf(why, sizeof why, "an overlong encoding of U+%04X", (unsigned)u.cp); break;
  case UTF8_SURROGATE: snprintf(why, sizeof why, "the surrogate U+%04X", (unsigned)u.cp); break;
  default: snprintf(why, sizeof why, "U+%X, above U+10FFFF", (unsigned)u.cp); break;
  }
  diag_error(L->d, loc_at(L, p), "invalid UTF-8 %s %s in source (%s); tilec reads UTF-8 files",
             u.len > 1 ? "sequence" : "byte", bytes, why);
}

/* Skips a comment, up to the end of its line. */
static const char *skip_comment(Lexer *L, const char *p) {
  while (p < L->end && *p != '\n') p += (unsigned char)*p < 0x80 ? 1 : utf8_at(L, p).len;
  return p;
}

/* Code points that Python does not take as letters: punctuation, symbols,
 * spaces and operators that sneak in from documents (×, “, —, NBSP). A
 * coarse table; everything else above ASCII is a letter. */
static bool unicode_letter(uint32_t c) {
  if (c < 0x80) return false;
  if (c <= 0xbf || c == 0xd7 || c == 0xf7) return false;
  if (c >= 0x2000 && c <= 0x2bff) return false; /* punctuation, arrows, math, boxes, symbols */
  if (c >= 0x3000 && c <= 0x303f) return false; /* CJK punctuation */
  if (c >= 0xfe30 && c <= 0xfe4f) return false;
  if (c >= 0xff00 && c <= 0xff20) return false; /* fullwidth punctuation */
  if (c >= 0xd800 && c <= 0xdfff) return false;
  if (c == 0xfeff || c >= 0x1f000) return false; /* BOM inside, emoji */
  return true;
}

/* Rejects a non-letter code point at p (UTF-8) with its name. */
static int check_unicode(Lexer *L, const char *p) {
  Utf8 u = utf8_at(L, p);
  if (!unicode_letter(u.cp))
    diag_error(L->d, loc_at(L, p), "invalid character '%.*s' (U+%04X) in source", u.len, p, (unsigned)u.cp);
  return u.len;
}
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* ---- numbers -------------------------------------------------------------- */

static int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

static const char *lex_number(Lexer *L, const char *p) {
  const char *start = p;
  int base = 10;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) base = 16;
  if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O')) base = 8;
  if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) base = 2;
  if (base != 10) {
    p += 2;
    uint64_t v = 0;
    bool overflow = false, any = false;
    for (;; p++) {
      if (*p == '_') continue;
      int dv = digit_value(*p);
      if (dv >= base) break;
      any = true;
      if (v > (UINT64_MAX - (uint64_t)dv) / (uint64_t)base) overflow = true;
      v = v * (uint64_t)base + (uint64_t)dv;
    }
    if (!any || is_ident_char((unsigned char)*p)) lex_error(L, start, "invalid %s literal", "integer");
    Token *t = push(L, TK_INT, start, (int)(p - start));
    t->ival = v;
    t->int_overflow = overflow;
    return p;
  }
  bool is_float = false;
  while (is_digit(*p) || (*p == '_' && is_digit(p[1]))) p++;
  if (start[0] == '0' && p - start > 1 && *p != '.' && *p != 'e' && *p != 'E' && *p != 'j' && *p != 'J') {
    for (const char *z = start; z < p; z++)
      if (*z != '0' && *z != '_')
        lex_error(L, start, "leading zeros in decimal integer literals are not permitted; use 0o for octal%s", "");
  }
  if (*p == '.' && !(p[1] == '.' && p[2] == '.')) {
    is_float = true;
    p++;
    while (is_digit(*p) || (*p == '_' && is_digit(p[1]))) p++;
  }
  if (*p == 'e' || *p == 'E') {
    const char *q = p + 1;
    if (*q == '+' || *q == '-') q++;
    if (is_digit(*q)) {
      is_float = true;
      p = q;
      while (is_digit(*p) || (*p == '_' && is_digit(p[1]))) p++;
    } else {
      lex_error(L, start, "invalid %s literal", "decimal");
    }
  }
  bool imag = false;
  if (*p == 'j' || *p == 'J') {
    imag = true;
    p++;
  }
  if (is_ident_char((unsigned char)*p)) lex_error(L, start, "invalid %s literal", "decimal");
  /* Copy without underscores for the conversion. */
  char buf[128];
  int n = 0;
  for (const char *q = start; q < p && n < (int)sizeof buf - 1; q++)
    if (*q != '_' && *q != 'j' && *q != 'J') buf[n++] = *q;
  buf[n] = 0;
  if (is_float || imag || p - start >= (int)sizeof buf - 1) {
    Token *t = push(L, TK_FLOAT, start, (int)(p - start));
    t->fval = strtod(buf, NULL);
    t->imag = imag;
    return p;
  }
  Token *t = push(L, TK_INT, start, (int)(p - start));
  uint64_t v = 0;
  for (int i = 0; i < n; i++) {
    uint64_t dv = (uint64_t)(buf[i] - '0');
    if (v > (UINT64_MAX - dv) / 10) t->int_overflow = true;
    v = v * 10 + dv;
  }
  t->ival = v;
  return p;
}

/* ---- strings -------------------------------------------------------------- */

/* Appends the UTF-8 encoding of code point c. */
static int put_utf8(char *out, uint32_t c) {
  if (c < 0x80) {
    out[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    out[0] = (char)(0xc0 | (c >> 6));
    out[1] = (char)(0x80 | (c & 0x3f));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = (char)(0xe0 | (c >> 12));
    out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
    out[2] = (char)(0x80 | (c & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | ((c >> 18) & 0x07));
  out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
  out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
  out[3] = (char)(0x80 | (c & 0x3f));
  return 4;
}

/* A replacement field of an f-string as scan_string finds it: where its
 * value goes in the decoded text, and its source between the braces. */
typedef struct RawField {
  char *out;
  const char *p, *end;
  Loc loc, open; /* where its text starts; its '{' */
} RawField;

/* Scans a string body after its opening quote(s); returns the position after
 * the closing quote(s). Decoded text goes to *outp (when non-NULL), and an
 * f-string's replacement fields to `fields` (RawField*, when non-NULL). In an
 * f-string, replacement fields may hold nested strings of any quoting; one
 * of those that never ends is reported as the field's missing '}' (`field`,
 * the field's '{'), as Python reports `f"{x"`. */
static const char *scan_string(Lexer *L, const char *p, Loc start, char q, bool triple, bool raw,
                               bool fstr, char **outp, PtrVec *fields, const Loc *field) {
  int brace = 0, parens = 0;
  bool spec = false; /* in a field's format spec, where '#' and quotes are text */
  RawField *cur = NULL;
  Loc open = start;
  for (;;) {
    if (p >= L->end || *p == 0) {
      if (p < L->end) lex_error(L, p, "null byte in %s", "string literal");
      if (field) diag_error(L->d, *field, "f-string: expecting '}'%s", "");
      diag_error(L->d, start, "unterminated %sstring literal", triple ? "triple-quoted " : "");
    }
    char c = *p;
    if (fstr && brace > 0) {
      if (c == '{') brace++;
      else if (c == '}') {
        if (--brace == 0 && cur) cur->end = p;
        if (brace == 0) spec = false, parens = 0;
      } else if (spec && brace == 1 && c == q && (!triple || (p[1] == q && p[2] == q))) {
        diag_error(L->d, open, "f-string: expecting '}'%s", "");
      } else if (spec && brace == 1 && c != '\n') {
        p += (unsigned char)c < 0x80 ? 1 : utf8_at(L, p).len;
        continue;
      } else if (c == '(' || c == '[') {
        parens++;
      } else if (c == ')' || c == ']') {
        parens--;
      } else if (c == ':' && brace == 1 && parens <= 0) {
        spec = true;
      } else if (c == '\'' || c == '"') {
        /* a nested string inside a replacement field */
        bool t3 = p[1] == c && p[2] == c;
        p = scan_string(L, p + (t3 ? 3 : 1), loc_at(L, p), c, t3, false, false, NULL, NULL, c == q && !triple ? &open : NULL);
        continue;
      } else if (c == '\n') {
        if (!triple) diag_error(L->d, start, "unterminated %sstring literal", "f-");
        newline_at(L, p + 1);
      } else if (c == '#') {
        lex_error(L, p, "f-string expression part cannot include %s", "'#'");
      } else if ((unsigned char)c >= 0x80) {
        p += utf8_at(L, p).len;
        continue;
      }
      p++;
      continue;
    }
    if (c == q && (!triple || (p[1] == q && p[2] == q))) return p + (triple ? 3 : 1);
    if (c == '\n') {
      if (!triple && field) diag_error(L->d, *field, "f-string: expecting '}'%s", "");
      if (!triple) diag_error(L->d, start, "unterminated %sstring literal", "");
      newline_at(L, p + 1);
    }
    if (fstr && c == '}' && p[1] != '}' && fields) lex_error(L, p, "f-string: single '}' is not allowed%s", "");
    if (fstr && c == '}' && p[1] == '}') {
      if (outp) *(*outp)++ = '}';
      p += 2;
      continue;
    }
    if (fstr && c == '{') {
      if (p[1] == '{') {
        if (outp) *(*outp)++ = '{';
        p += 2;
        continue;
      }
      brace = 1;
      open = loc_at(L, p);
      p++;
      if (fields) {
        cur = arena_alloc(L->a, sizeof *cur);
        *cur = (RawField){.out = outp ? *outp : NULL, .p = p, .loc = loc_at(L, p), .open = open};
        vec_push(L->a, fields, cur);
      }
      continue;
    }
    if (c == '\\' && p + 1 < L->end) {
      char e = p[1];
      if (e == '\n') { /* line continuation inside the literal */
        newline_at(L, p + 2);
        if (raw && outp) {
          *(*outp)++ = '\\';
          *(*outp)++ = '\n';
        }
        p += 2;
        continue;
      }
      if (raw) {
        if (outp) {
          *(*outp)++ = '\\';
          *(*outp)++ = e;
        }
        p += 2;
        continue;
      }
      p += 2;
      char dec = 0;
      bool have = true;
      switch (e) {
      case 'n': dec = '\n'; break;
      case 't': dec = '\t'; break;
      case 'r': dec = '\r'; break;
      case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        int v = e - '0';
        for (int i = 0; i < 2 && *p >= '0' && *p <= '7'; i++) v = v * 8 + (*p++ - '0');
        dec = (char)v;
        break;
      }
      case 'x': {
        int v = 0;
        for (int i = 0; i < 2; i++) {
          int dv = digit_value(*p);
          if (dv >= 16) lex_error(L, p, "invalid %s escape", "\\x");
          v = v * 16 + dv;
          p++;
        }
        dec = (char)v;
        break;
      }
      case 'u': case 'U': {
        uint32_t v = 0;
        for (int i = 0; i < (e == 'u' ? 4 : 8); i++) {
          int dv = digit_value(*p);
          if (dv >= 16) lex_error(L, p, "invalid %s escape", "unicode");
          v = v * 16 + (uint32_t)dv;
          p++;
        }
        if (v > 0x10ffff) lex_error(L, p, "invalid %s escape", "unicode");
        if (outp) *outp += put_utf8(*outp, v);
        have = false;
        break;
      }
      case '\\': case '\'': case '"': dec = e; break;
      case 'a': dec = '\a'; break;
      case 'b': dec = '\b'; break;
      case 'f': dec = '\f'; break;
      case 'v': dec = '\v'; break;
      default: /* unknown escapes keep their backslash, as in Python */
        if (outp) *(*outp)++ = '\\';
        p--;
        have = false;
        break;
      }
      if (have && outp) *(*outp)++ = dec;
      continue;
    }
    int n = (unsigned char)c < 0x80 ? 1 : utf8_at(L, p).len;
    if (outp) {
      memcpy(*outp, p, (size_t)n);
      *outp += n;
    }
    p += n;
  }
}

/* A string literal whose prefix (possibly empty) starts at `start` and whose
 * opening quote is at p. */
static const char *lex_string(Lexer *L, const char *start, const char *p) {
  bool raw = false, fstr = false, bytes = false;
  for (const char *c = start; c < p; c++) {
    if (*c == 'r' || *c == 'R') raw = true;
    if (*c == 'f' || *c == 'F') fstr = true;
    if (*c == 'b' || *c == 'B') bytes = true;
  }
  char q = *p;
  bool triple = p[1] == q && p[2] == q;
  int line = L->line;
  const char *line_start = L->line_start;
  /* First pass measures, second decodes: strings are rare and short. */
  const char *body = p + (triple ? 3 : 1);
  Loc start_loc = loc_at(L, start);
  const char *after = scan_string(L, body, start_loc, q, triple, raw, fstr, NULL, NULL, NULL);
  char *buf = arena_alloc(L->a, (size_t)(after - body) * 2 + 8);
  char *out = buf;
  int end_line = L->line;
  const char *end_line_start = L->line_start;
  L->line = line;
  L->line_start = line_start;
  scan_string(L, body, start_loc, q, triple, raw, fstr, &out, NULL, NULL);
  *out = 0;
  Token *t = push(L, TK_STRING, start, (int)(after - start));
  t->loc = (Loc){L->src, line, (int)(start - line_start) + 1};
  t->sval = buf;
  t->slen = (int)(out - buf);
  t->fstring = fstr;
  t->bytes = bytes;
  L->line = end_line;
  L->line_start = end_line_start;
  return after;
}

static bool string_prefix(const char *p, int *len) {
  int n = 0;
  while (n < 2 && strchr("rRbBuUfF", p[n]) && p[n]) n++;
  for (int k = n; k >= 0; k--) {
    if (p[k] != '\'' && p[k] != '"') continue;
    /* valid combinations: one letter, or r with b/f in either order */
    if (k == 2) {
      char a = (char)(p[0] | 0x20), b = (char)(p[1] | 0x20);
      bool ok = (a == 'r' && (b == 'b' || b == 'f')) || (b == 'r' && (a == 'b' || a == 'f'));
      if (!ok) continue;
    }
    *len = k;
    return true;
  }
  return false;
}

/* ---- indentation -------------------------------------------------------- */

/* As CPython's tokenizer: a deeper block is an error. Nesting by indentation
 * needs quadratic text, so this bounds block nesting in files of any size. */
#define MAX_INDENT 100

static void push_indent(Lexer *L, int col, int altcol) {
  if (L->nindent == L->indent_cap) {
    int cap = L->indent_cap * 2;
    int *v = arena_alloc(L->a, sizeof(int) * (size_t)cap), *w = arena_alloc(L->a, sizeof(int) * (size_t)cap);
    memcpy(v, L->indents, sizeof(int) * (size_t)L->nindent);
    memcpy(w, L->altindents, sizeof(int) * (size_t)L->nindent);
    L->indents = v;
    L->altindents = w;
    L->indent_cap = cap;
  }
  L->altindents[L->nindent] = altcol;
  L->indents[L->nindent++] = col;
}

/* At the start of a logical line: measures the indentation, skips blank and
 * comment-only lines, and emits INDENT/DEDENT. Returns the first token's
 * position, or NULL at end of file. */
static const char *line_start(Lexer *L, const char *p) {
  for (;;) {
    int col = 0, altcol = 0;
    const char *q = p;
    for (;; q++) {
      if (*q == ' ') col++, altcol++;
      else if (*q == '\t') col = (col / 8 + 1) * 8, altcol++;
      else if (*q == '\f') col = altcol = 0;
      else break;
    }
    if (q >= L->end) return NULL;
    if (*q == '#') q = skip_comment(L, q);
    if (*q == '\r' && q[1] == '\n') q++;
    if (*q == '\n' || *q == '\r') {
      newline_at(L, q + 1);
      p = q + 1;
      continue;
    }
    if (*q == '\\' && (q[1] == '\n' || (q[1] == '\r' && q[2] == '\n'))) {
      /* a continuation on an otherwise empty line: indentation continues */
      q += q[1] == '\n' ? 2 : 3;
      newline_at(L, q);
      p = q;
      continue;
    }
    /* As CPython: the indentation must compare the same whether a tab is 8
     * columns or 1, or its meaning depends on the reader's tab width. */
    const char *tab_error = "inconsistent use of tabs and spaces in indentation%s";
    int top = L->indents[L->nindent - 1], alttop = L->altindents[L->nindent - 1];
    if (col > top) {
      if (altcol <= alttop) diag_error(L->d, (Loc){L->src, L->line, 1}, tab_error, "");
      if (L->nindent > MAX_INDENT)
        diag_error(L->d, loc_at(L, q), "too many levels of indentation (more than %d)", MAX_INDENT);
      push_indent(L, col, altcol);
      push(L, TK_INDENT, q, 0);
    } else if (col == top) {
      if (altcol != alttop) diag_error(L->d, (Loc){L->src, L->line, 1}, tab_error, "");
    } else {
      while (col < L->indents[L->nindent - 1]) {
        L->nindent--;
        push(L, TK_DEDENT, q, 0);
      }
      if (col != L->indents[L->nindent - 1])
        lex_error(L, q, "unindent does not match any outer indentation level%s", "");
      if (altcol != L->altindents[L->nindent - 1]) diag_error(L->d, (Loc){L->src, L->line, 1}, tab_error, "");
    }
    return q;
  }
}

/* One token at p, the first character of one (not a space, newline or
 * comment: the callers skip those): returns the position after it. */
static const char *lex_token(Lexer *L, const char *p) {
  char c = *p;
  if (c == 0) lex_error(L, p, "source contains a null byte%s", "");
  int plen;
  if ((c == '\'' || c == '"') || (is_ident_start((unsigned char)c) && string_prefix(p, &plen))) {
    if (c == '\'' || c == '"') plen = 0;
    return lex_string(L, p, p + plen);
  }
  if (is_ident_start((unsigned char)c)) {
    const char *s = p;
    while (is_ident_char((unsigned char)*p)) {
      if ((unsigned char)*p >= 0x80) {
        p += check_unicode(L, p);
      } else {
        p++;
      }
    }
    TokKind k = TK_NAME;
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
      if ((size_t)(p - s) == strlen(keywords[i].s) && !memcmp(s, keywords[i].s, (size_t)(p - s)))
        k = keywords[i].k;
    Token *t = push(L, k, s, (int)(p - s));
    if (k == TK_NAME) t->sval = arena_strndup(L->a, s, (size_t)(p - s));
    return p;
  }
  if (is_digit(c) || (c == '.' && is_digit(p[1]))) return lex_number(L, p);
  for (size_t i = 0; i < sizeof puncts / sizeof *puncts; i++) {
    size_t n = strlen(puncts[i].s);
    if ((size_t)(L->end - p) >= n && !memcmp(p, puncts[i].s, n)) {
      Token *t = push(L, puncts[i].k, p, (int)n);
      TokKind k = puncts[i].k;
      if (k == TK_LPAREN || k == TK_LBRACKET || k == TK_LBRACE) {
        if (L->depth == (int)(sizeof L->brackets / sizeof *L->brackets))
          lex_error(L, p, "too many nested brackets%s", "");
        L->brackets[L->depth++] = (int)(t - L->toks);
      } else if (k == TK_RPAREN || k == TK_RBRACKET || k == TK_RBRACE) {
        if (L->depth == 0) diag_error(L->d, loc_at(L, p), "unmatched '%c'", *p);
        const Token *open = &L->toks[L->brackets[--L->depth]];
        char want = open->kind == TK_LPAREN ? ')' : open->kind == TK_LBRACKET ? ']' : '}';
        if (*p != want) {
          char msg[80];
          snprintf(msg, sizeof msg, "closing '%c' does not match opening '%c' on line %d", *p,
                   *open->p, open->loc.line);
          lex_error(L, p, "%s", msg);
        }
      }
      return p + n;
    }
  }
  if ((unsigned char)c < 0x20 || c == 0x7f)
    diag_error(L->d, loc_at(L, p), "invalid character (byte 0x%02x) in source", (unsigned char)c);
  diag_error(L->d, loc_at(L, p), "invalid character '%c' in source", c);
}

/* A UTF-16 byte order mark followed by a character with a zero byte. */
static void check_encoding(Lexer *L, const char *p) {
  if (L->end - p >= 4 && (((unsigned char)p[0] == 0xff && (unsigned char)p[1] == 0xfe && p[3] == 0) ||
                          ((unsigned char)p[0] == 0xfe && (unsigned char)p[1] == 0xff && p[2] == 0)))
    diag_error(L->d, (Loc){L->src, 1, 1}, "the file is UTF-16 encoded; tilec reads UTF-8 files%s", "");
}

bool lex_file(Arena *a, Diags *d, const Source *src, TokenList *out) {
  Lexer L = {.a = a, .d = d, .src = src, .p = src->text, .end = src->text + src->len};
  L.line = 1;
  L.line_start = src->text;
  L.indent_cap = 16;
  L.indents = arena_alloc(a, sizeof(int) * 16);
  L.altindents = arena_alloc(a, sizeof(int) * 16);
  L.indents[L.nindent++] = 0;
  jmp_buf jb, *saved = d->unwind;
  d->unwind = &jb;
  if (setjmp(jb)) {
    d->unwind = saved;
    return false;
  }
  const char *p = src->text;
  check_encoding(&L, p);
  /* A UTF-8 byte order mark is allowed at the very start. */
  if (L.end - p >= 3 && (unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb &&
      (unsigned char)p[2] == 0xbf) {
    p += 3;
    L.line_start = p;
  }
  bool at_line_start = true;
  bool line_has_tokens = false;
  for (;;) {
    if (at_line_start && L.depth == 0) {
      p = line_start(&L, p);
      at_line_start = false;
      if (!p) break;
    }
    if (p >= L.end) break;
    char c = *p;
    if (c == ' ' || c == '\t' || c == '\f') {
      p++;
      continue;
    }
    if (c == '#') {
      p = skip_comment(&L, p);
      continue;
    }
    if (c == '\r' && p[1] == '\n') {
      p++;
      continue;
    }
    if (c == '\n' || c == '\r') {
      if (L.depth == 0 && line_has_tokens) {
        push(&L, TK_NEWLINE, p, 0);
        line_has_tokens = false;
      }
      newline_at(&L, p + 1);
      p++;
      at_line_start = L.depth == 0;
      continue;
    }
    if (c == '\\') {
      const char *q = p + 1;
      if (*q == '\r') q++;
      if (q >= L.end) lex_error(&L, p, "unexpected end of file after line continuation%s", "");
      if (*q != '\n') lex_error(&L, p, "unexpected character after line continuation%s", "");
      newline_at(&L, q + 1);
      p = q + 1;
      continue;
    }
    line_has_tokens = true;
    p = lex_token(&L, p);
  }
  if (L.depth > 0) {
    const Token *open = &L.toks[L.brackets[L.depth - 1]];
    diag_error(d, open->loc, "'%c' was never closed", *open->p);
  }
  if (line_has_tokens) push(&L, TK_NEWLINE, L.end, 0);
  while (L.nindent > 1) {
    L.nindent--;
    push(&L, TK_DEDENT, L.end, 0);
  }
  push(&L, TK_EOF, L.end, 0);
  d->unwind = saved;
  out->v = arena_grow(a, L.toks, sizeof(Token) * (size_t)L.n); /* no room past the last */
  out->n = L.n;
  return true;
}

/* ---- f-strings, where a kernel reads one ----------------------------------- */

/* As Python: a spec's fields may have specs with fields, no deeper. */
#define MAX_SPEC_NESTING 2

/* A lexer positioned at p, on the line that the location of p gives. */
static Lexer lexer_at(Arena *a, Diags *d, Loc loc, const char *p) {
  return (Lexer){.a = a, .d = d, .src = loc.src, .p = p, .end = loc.src->text + loc.src->len, .line = loc.line,
                 .line_start = p - (loc.col - 1)};
}

/* The tokens of a field's expression, p..end, read as inside brackets:
 * newlines only join lines. An EOF ends them. */
static TokenList lex_field_expr(Lexer *L, const char *p, const char *end) {
  Lexer F = lexer_at(L->a, L->d, loc_at(L, p), p);
  F.end = end;
  F.cap = 16; /* fields are short: not the file's 1024 */
  F.toks = arena_grow(F.a, NULL, sizeof(Token) * (size_t)F.cap);
  while (p < end) {
    char c = *p;
    if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
      p++;
    } else if (c == '\n') {
      newline_at(&F, ++p);
    } else if (c == '\\' && p + 1 < end && p[1] == '\n') {
      newline_at(&F, p += 2);
    } else {
      p = lex_token(&F, p);
    }
  }
  if (F.depth > 0) {
    const Token *open = &F.toks[F.brackets[F.depth - 1]];
    diag_error(L->d, open->loc, "'%c' was never closed", *open->p);
  }
  push(&F, TK_EOF, end, 0);
  return (TokenList){F.toks, F.n};
}

/* Past a nested string that opens at p (its quote, the prefix already
 * passed), or past one character; newlines counted. */
static const char *skip_char(Lexer *L, const char *p) {
  char c = *p;
  if (c == '\'' || c == '"') {
    bool t3 = p[1] == c && p[2] == c;
    return scan_string(L, p + (t3 ? 3 : 1), loc_at(L, p), c, t3, false, false, NULL, NULL, NULL);
  }
  if (c == '\n') newline_at(L, p + 1);
  return p + ((unsigned char)c < 0x80 ? 1 : utf8_at(L, p).len);
}

static FString *lex_spec(Lexer *L, const char *p, const char *end, int nesting);

/* One replacement field: its text p..end between the braces, L at p.
 * `{expr=!c:spec}`: the expression stops at a '!' (not '!='), a ':' or a
 * lone '=' outside brackets. The text of a `{expr=}` field, up to the '='
 * and the spaces after it, goes to `text`, as Python puts it before the
 * value, which it then shows by its repr unless a conversion or a spec
 * says otherwise. */
static void lex_field(Lexer *L, const char *p, const char *end, int nesting, StrBuf *text, FField *out) {
  Lexer E = *L; /* at the expression */
  const char *q = p;
  int depth = 0;
  while (q < end) {
    char c = *q;
    bool two = q + 1 < end && q[1] == '=' && strchr("=!<>", c); /* '==', '!=', '<=', '>=' */
    if (depth == 0 && !two && (c == '!' || c == ':' || c == '=')) break;
    if (c == '(' || c == '[' || c == '{') depth++;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
    q = two ? q + 2 : skip_char(L, q);
  }
  const char *s = p;
  while (s < q && strchr(" \t\f\r\n", *s)) s++;
  if (s == q) diag_error(L->d, loc_at(L, q), "f-string: valid expression required before '%c'", q < end ? *q : '}');
  out->expr = lex_field_expr(&E, p, q);
  bool self_doc = q < end && *q == '=';
  if (self_doc) {
    q++;
    while (q < end && strchr(" \t\f\r\n", *q)) q = skip_char(L, q);
    sb_append(text, p, (size_t)(q - p));
  }
  if (q < end && *q == '!') {
    const char *c = q + 1, *ce = c;
    while (ce < end && is_ident_char((unsigned char)*ce)) ce++;
    if (ce == c) lex_error(L, c, "f-string: missing conversion character after '!'%s", "");
    if (ce - c > 1 || !strchr("rsa", *c))
      diag_error(L->d, loc_at(L, c), "f-string: invalid conversion character '%.*s': expected 's', 'r', or 'a'",
                 (int)(ce - c), c);
    out->conversion = *c;
    q = ce;
  } else if (self_doc && (q == end || *q != ':')) {
    out->conversion = 'r';
  }
  if (q < end && *q == ':') {
    q++;
    if (nesting >= MAX_SPEC_NESTING) lex_error(L, q, "f-string: expressions nested too deeply%s", "");
    out->spec_loc = loc_at(L, q);
    out->spec = lex_spec(L, q, end, nesting + 1);
  } else if (q < end) {
    lex_error(L, q, "f-string: expecting %s", self_doc ? "'!', or ':', or '}'" : "':' or '}'");
  }
}

/* A format spec, p..end: text, and fields in braces. */
static FString *lex_spec(Lexer *L, const char *p, const char *end, int nesting) {
  FString *fs = arena_alloc(L->a, sizeof *fs);
  PtrVec texts = {0}, fields = {0};
  StrBuf text = {.arena = L->a};
  while (p < end) {
    if (*p != '{') { /* text, quotes included */
      const char *n = *p == '\n' || *p == '\'' || *p == '"' ? p + 1 : skip_char(L, p);
      if (*p == '\n') newline_at(L, n);
      sb_append(&text, p, (size_t)(n - p));
      p = n;
      continue;
    }
    /* a nested field: up to its '}' */
    const char *q = ++p;
    Lexer at = *L;
    int depth = 0;
    while (q < end && (depth > 0 || *q != '}')) {
      if (*q == '(' || *q == '[' || *q == '{') depth++;
      if ((*q == ')' || *q == ']' || *q == '}') && depth > 0) depth--;
      q = skip_char(L, q);
    }
    FField *f = arena_alloc(L->a, sizeof *f);
    vec_push(L->a, &texts, arena_strndup(L->a, text.s ? text.s : "", text.len));
    text.len = 0;
    lex_field(&at, p, q, nesting, &text, f);
    vec_push(L->a, &fields, f);
    p = q + 1;
  }
  vec_push(L->a, &texts, arena_strndup(L->a, text.s ? text.s : "", text.len));
  sb_free(&text);
  fs->text = (const char **)texts.v;
  fs->nfields = fields.n;
  fs->fields = arena_alloc(L->a, sizeof(FField) * (size_t)(fields.n + 1));
  for (int i = 0; i < fields.n; i++) fs->fields[i] = *(FField *)fields.v[i];
  return fs;
}

void lex_fstring(Arena *a, Diags *d, const Token *t, FString *out) {
  Lexer L = lexer_at(a, d, t->loc, t->p);
  const char *p = t->p;
  bool raw = false;
  for (; *p != '\'' && *p != '"'; p++)
    if ((*p | 0x20) == 'r') raw = true;
  char q = *p;
  bool triple = p[1] == q && p[2] == q;
  char *buf = arena_alloc(a, (size_t)t->len * 2 + 8), *o = buf;
  PtrVec raws = {0};
  scan_string(&L, p + (triple ? 3 : 1), t->loc, q, triple, raw, true, &o, &raws, NULL);
  *o = 0;
  out->nfields = raws.n;
  out->fields = arena_alloc(a, sizeof(FField) * (size_t)(raws.n + 1));
  out->text = arena_alloc(a, sizeof(char *) * (size_t)(raws.n + 1));
  StrBuf text = {.arena = a};
  const char *from = buf;
  for (int i = 0; i < raws.n; i++) {
    RawField *f = raws.v[i];
    sb_append(&text, from, (size_t)(f->out - from));
    from = f->out;
    Lexer F = lexer_at(a, d, f->loc, f->p);
    memset(&out->fields[i], 0, sizeof out->fields[i]);
    lex_field(&F, f->p, f->end, 0, &text, &out->fields[i]);
    out->text[i] = arena_strndup(a, text.s ? text.s : "", text.len);
    text.len = 0;
  }
  out->text[raws.n] = arena_strndup(a, from, (size_t)(o - from));
  sb_free(&text);
}
