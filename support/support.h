/*
 * support.h — what every layer of the compiler stands on: the memory arena,
 * growable arrays and text buffers, the stage clock, source files and
 * positions, and the diagnostics sink. Nothing here knows Python, MLIR or
 * LLVM.
 *
 * Ownership: everything a compilation allocates (tokens, nodes, strings,
 * types) lives in one Arena and dies with it. User errors are reported into a
 * Diags sink and unwind with longjmp to the stage's entry point, so no stage
 * has to thread error codes through hundreds of recursive calls; the arena
 * makes the unwinding leak-free.
 */
#ifndef TILEC_SUPPORT_H
#define TILEC_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timing.h"

/* The most dimensions a tensor may have. */
#define MAX_RANK 8

/* num_warps as Triton takes it: a power of 2 from 1 to 32 (a block of at
 * most 1024 threads); checked wherever it enters (the API, a config, the
 * CLI), since codegen, the metadata and the emulator's checks rely on it. */
static inline bool num_warps_valid(long long w) { return w >= 1 && w <= 32 && (w & (w - 1)) == 0; }

#define unreachable() internal_error(__FILE__, __LINE__, "unreachable")
_Noreturn void internal_error(const char *file, int line, const char *what);

/* ---- threads ------------------------------------------------------------ */

/* Runs fn(ctx, i) for each i in [0, n) on up to one thread per CPU (and
 * at most max_threads), the calling thread among them, each taking the
 * next item when it is free; returns when every item is done. With one CPU,
 * or when no thread can be started, the calling thread does them all. */
void parallel_for(int n, int max_threads, void (*fn)(void *ctx, int i), void *ctx);

/* ---- arena ------------------------------------------------------------ */

typedef struct ArenaChunk ArenaChunk;
typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
  ArenaChunk *head;
  ArenaBlock *blocks; /* arena_grow's */
  size_t total; /* bytes handed out, for the memory cap */
  size_t cap;   /* 0: no cap */
  jmp_buf *oom; /* where to unwind when the cap is hit */
} Arena;

Arena *arena_create(void);
void arena_destroy(Arena *a);
void *arena_alloc(Arena *a, size_t n); /* zeroed */
/* A block of n bytes that may grow (or shrink) again, owned by the arena:
 * p NULL makes one, else p (a block this made) is resized, its bytes kept,
 * and the old block freed, where growing an arena_alloc'd array would
 * leave every old copy in the arena. The bytes past the old size are not
 * zeroed. For an array whose size is known only at its end (the tokens). */
void *arena_grow(Arena *a, void *p, size_t n);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A growable array of pointers, reallocated in the arena. */
typedef struct PtrVec {
  void **v;
  int n, cap;
} PtrVec;
void vec_push(Arena *a, PtrVec *vec, void *p);

/* A map from non-null pointers (IR handles, say) to pointers, open
 * addressing in the arena. Zero-initialized, it is empty. */
typedef struct PtrMap {
  const void **keys;
  void **vals;
  size_t cap, n;
} PtrMap;
void *map_get(const PtrMap *m, const void *key); /* NULL when absent */
void map_put(Arena *a, PtrMap *m, const void *key, void *val);

/* A growable text buffer: on the heap, or in an arena when `arena` is set —
 * the form to use wherever an error may unwind past the buffer. */
typedef struct StrBuf {
  char *s;
  size_t len, cap;
  Arena *arena;
} StrBuf;
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap);
void sb_putc(StrBuf *sb, char c);
void sb_append(StrBuf *sb, const void *data, size_t n); /* bytes, NULs included */
void sb_free(StrBuf *sb);

/* Stage times: when out is set, appends "STAGE  MS" with the wall time
 * since *mark (a monotonic clock in ms, which it advances). */
typedef struct StageClock {
  StrBuf *out; /* NULL: not timing */
  double mark;
} StageClock;
void stage_time(StageClock *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- sources and diagnostics -------------------------------------------- */

/* UTF-8 as Python reads a file: strict, so that no byte sequence but the
 * shortest encoding of a scalar value (not a surrogate, at most U+10FFFF)
 * is a character. */
typedef enum Utf8Error {
  UTF8_OK,
  UTF8_STRAY,     /* a continuation byte where a character starts */
  UTF8_BAD_LEAD,  /* a byte no sequence starts with: 0xf8..0xff */
  UTF8_TRUNCATED, /* the sequence ends early: a byte that does not continue it, or the end */
  UTF8_OVERLONG,  /* a longer encoding than the code point needs (0xc0 0x80 for U+0000) */
  UTF8_SURROGATE, /* U+D800..U+DFFF */
  UTF8_TOO_BIG,   /* above U+10FFFF */
} Utf8Error;
typedef struct Utf8 {
  Utf8Error err;
  int len;     /* bytes of the character; when err is set, of the bad sequence as far as it goes */
  uint32_t cp; /* the code point (also of an overlong form, a surrogate or one too big) */
} Utf8;
Utf8 utf8_next(const char *p, const char *end); /* p < end */

typedef struct Source {
  const char *name; /* as the user named it */
  const char *text; /* NUL-terminated copy */
  size_t len;
} Source;

typedef struct Loc {
  const Source *src;
  int line, col; /* 1-based; col counts bytes */
} Loc;

/* A chain of call sites, for "in 'f' inlined from here" notes. */
typedef struct InlineSite {
  const char *callee;
  Loc call;
  const struct InlineSite *parent;
} InlineSite;

typedef struct Diags {
  StrBuf out;       /* rendered diagnostics */
  int errors, warnings;
  jmp_buf *unwind;  /* where an error jumps to */
  const InlineSite *site; /* notes appended to every error while set */
  /* the line shown last, where finding the next one starts */
  const Source *shown_src;
  const char *shown_at;
  int shown_line;
} Diags;

_Noreturn void diag_error(Diags *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_error_noreturnless(Diags *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A defect of tilec's own (invalid IR it made), at the kernel line being
 * compiled: "file:line:col: internal error: ...". */
void diag_internal_error(Diags *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warning(Diags *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_note(Diags *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_plain_error(Diags *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void diag_unwind(Diags *d);
/* What has been said so far, to take back what is said after it: for
 * attempts whose failure is not the user's error (a host-code expression
 * tried as a kernel expression, an alternative import). */
typedef struct DiagMark {
  size_t len;
  int errors, warnings;
} DiagMark;
DiagMark diag_mark(const Diags *d);
void diag_rollback(Diags *d, DiagMark m);

#endif
