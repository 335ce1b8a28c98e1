/*
 * diag.c — strict UTF-8 decoding and the diagnostic printer.
 *
 * Diagnostics are rendered into a text buffer, never printed: the library is
 * silent unless its caller prints what it returns. Each one reads
 * `file:line:col: error: message`, then the source line, then a caret under
 * the column (tabs in the line are kept so the caret lines up), then one note
 * per call site the code was inlined through.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- UTF-8 ---------------------------------------------------------------- */

Utf8 utf8_next(const char *p, const char *end) {
  const unsigned char *u = (const unsigned char *)p;
  if (u[0] < 0x80) return (Utf8){UTF8_OK, 1, u[0]};
  if (u[0] < 0xc0) return (Utf8){UTF8_STRAY, 1, u[0]};
  int n = u[0] < 0xe0 ? 2 : u[0] < 0xf0 ? 3 : u[0] < 0xf8 ? 4 : 0;
  if (!n) return (Utf8){UTF8_BAD_LEAD, 1, u[0]};
  uint32_t c = u[0] & (0x7fu >> n);
  for (int i = 1; i < n; i++) {
    if (p + i >= end || (u[i] & 0xc0) != 0x80) return (Utf8){UTF8_TRUNCATED, i, 0};
    c = c << 6 | (u[i] & 0x3f);
  }
  static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < least[n]) return (Utf8){UTF8_OVERLONG, n, c};
  if (c >= 0xd800 && c <= 0xdfff) return (Utf8){UTF8_SURROGATE, n, c};
  if (c > 0x10ffff) return (Utf8){UTF8_TOO_BIG, n, c};
  return (Utf8){UTF8_OK, n, c};
}

/* ---- diagnostics ---------------------------------------------------------- */

/* A line longer than this many characters is shown cut to as many around
 * the caret, at most CUT_BEFORE of them before it, with "..." where it is
 * cut: a diagnostic on a line of megabytes stays a few lines. */
#define CUT_WIDTH 120
#define CUT_BEFORE 60

/* The bytes of the character at c (before q): one for a byte that is no
 * character, which is shown as '?'. */
static int char_bytes(const char *c, const char *q) {
  Utf8 u = utf8_next(c, q);
  return u.err ? 1 : u.len;
}

/* The first byte of line `line` of src, found from the line shown last,
 * forward or back: thousands of diagnostics in one file (most of them
 * taken back) cost their distance, not the file's length each. */
static const char *line_start(Diags *d, const Source *src, int line) {
  const char *p = src->text, *end = src->text + src->len;
  int at = 1;
  if (d->shown_src == src) p = d->shown_at, at = d->shown_line;
  for (; at > line; at--) /* p is at the start of line at, after a newline */
    for (p--; p > src->text && p[-1] != '\n'; p--) {}
  for (; at < line && p < end; p++)
    if (*p == '\n') at++;
  if (at == line) d->shown_src = src, d->shown_at = p, d->shown_line = at;
  return p;
}

/* Prints the source line of loc and a caret under its column. */
static void show_line(Diags *d, StrBuf *sb, Loc loc) {
  const Source *src = loc.src;
  if (!src || loc.line <= 0) return;
  const char *p = line_start(d, src, loc.line), *end = src->text + src->len;
  const char *q = p;
  while (q < end && *q != '\n' && *q != '\r') q++;
  /* the caret counts characters, not the bytes of multi-byte ones */
  long col = loc.col > 0 ? loc.col - 1 : 0;
  const char *at = col < q - p ? p + col : q;
  long nchars = 0, caret = 0;
  for (const char *c = p; c < q; c += char_bytes(c, q)) {
    if (c < at) caret++;
    nchars++;
  }
  long first = 0, last = nchars;
  if (nchars > CUT_WIDTH) {
    first = caret > CUT_BEFORE ? caret - CUT_BEFORE : 0;
    last = first + CUT_WIDTH < nchars ? first + CUT_WIDTH : nchars;
    first = last - CUT_WIDTH;
  }
  StrBuf marks = {.arena = sb->arena};
  if (first > 0) {
    sb_printf(sb, "...");
    sb_printf(&marks, "   ");
  }
  long i = 0;
  for (const char *c = p; c < q && i < last; i++) {
    int n = char_bytes(c, q);
    if (i >= first) {
      /* control bytes and invalid UTF-8 would garble a terminal: shown as '?' */
      unsigned char ch = (unsigned char)*c;
      if (ch >= 0x80) {
        if (n > 1) sb_append(sb, c, (size_t)n);
        else sb_putc(sb, '?');
      } else {
        sb_putc(sb, (ch < 0x20 && ch != '\t') || ch == 0x7f ? '?' : (char)ch);
      }
      if (i < caret) sb_putc(&marks, ch == '\t' ? '\t' : ' ');
    }
    c += n;
  }
  if (last < nchars) sb_printf(sb, "...");
  sb_putc(sb, '\n');
  if (marks.len) sb_append(sb, marks.s, marks.len);
  sb_printf(sb, "^\n");
  sb_free(&marks);
}

static void emit(Diags *d, const char *kind, Loc loc, const char *fmt, va_list ap) {
  if (loc.src)
    sb_printf(&d->out, "%s:%d:%d: %s: ", loc.src->name, loc.line, loc.col, kind);
  else
    sb_printf(&d->out, "tilec: %s: ", kind);
  sb_vprintf(&d->out, fmt, ap);
  sb_putc(&d->out, '\n');
  show_line(d, &d->out, loc);
}

static void emit_sites(Diags *d) {
  int depth = 0, i = 0;
  for (const InlineSite *s = d->site; s; s = s->parent) depth++;
  /* a deep chain (recursion) shows its innermost and outermost calls */
  for (const InlineSite *s = d->site; s; s = s->parent, i++) {
    if (depth > 8 && i == 4)
      sb_printf(&d->out, "note: ... %d more inlined calls ...\n", depth - 6);
    if (depth > 8 && i >= 4 && i < depth - 2) continue;
    sb_printf(&d->out, "%s:%d:%d: note: in '%s' inlined from here\n", s->call.src->name,
              s->call.line, s->call.col, s->callee);
    show_line(d, &d->out, s->call);
  }
}

DiagMark diag_mark(const Diags *d) { return (DiagMark){d->out.len, d->errors, d->warnings}; }

void diag_rollback(Diags *d, DiagMark m) {
  d->out.len = m.len;
  if (d->out.s) d->out.s[m.len] = 0;
  d->errors = m.errors;
  d->warnings = m.warnings;
}

_Noreturn void diag_unwind(Diags *d) {
  if (!d->unwind) internal_error(__FILE__, __LINE__, "diagnostic with nowhere to unwind");
  longjmp(*d->unwind, 1);
}

/* An error of this kind ("error", "internal error"), with the inline sites. */
static void emit_error(Diags *d, const char *kind, Loc loc, const char *fmt, va_list ap) {
  emit(d, kind, loc, fmt, ap);
  emit_sites(d);
  d->errors++;
}

void diag_error_noreturnless(Diags *d, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit_error(d, "error", loc, fmt, ap);
  va_end(ap);
}

void diag_internal_error(Diags *d, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit_error(d, "internal error", loc, fmt, ap);
  va_end(ap);
}

_Noreturn void diag_error(Diags *d, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit_error(d, "error", loc, fmt, ap);
  va_end(ap);
  diag_unwind(d);
}

void diag_warning(Diags *d, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(d, "warning", loc, fmt, ap);
  va_end(ap);
  d->warnings++;
}

void diag_note(Diags *d, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(d, "note", loc, fmt, ap);
  va_end(ap);
}

void diag_plain_error(Diags *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  Loc none = {0};
  emit(d, "error", none, fmt, ap);
  va_end(ap);
  d->errors++;
}
