/*
 * grid.h — grid expressions: "X[,Y[,Z]]", each the integer subset of a
 * Python expression as a Triton grid lambda computes it:
 * `cdiv(n_elements, BLOCK_SIZE)`, `meta["BLOCK_M"]`.
 *
 * One parser for every user: the text becomes a tree of at most
 * GRID_MAX_NODES nodes, held in the Grid itself, with each name resolved
 * to its index in the caller's list. `tilec run` and the JIT evaluate the
 * tree with the values of the names (the JIT at every launch, which
 * allocates nothing); `tilec aot` translates it to C (driver/aot_grid.c).
 *
 * The grammar, one function per rule in grid.c:
 *   grid      = expr (',' expr){0,2} ','?
 *   expr      = term (('+' | '-') term)*
 *   term      = unary (('*' | '//' | '/' | '%') unary)*
 *   unary     = ('-' | '+') unary | primary
 *   primary   = number | NAME | call | subscript | '(' expr ')'
 *   call      = ('cdiv' | 'triton.cdiv' | 'min' | 'max') '(' expr (',' expr)* ')'
 *   subscript = ('meta' | 'META') '[' STRING ']'
 *   number    = digits ('_' digits)* | '0x' hexdigits
 * True and False are 1 and 0. Values are int64 and every operation is
 * checked when evaluated: an overflow is an error at the operator, never a
 * wrapped value; // and % round toward -infinity as in Python; / must
 * divide exactly. Nesting is bounded, so no input runs the stack out.
 */
#ifndef TILEC_RUNTIME_GRID_H
#define TILEC_RUNTIME_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GRID_MAX_NODES 256

/* The largest grid CUDA launches (and so the emulator): x up to 2^31-1,
 * y and z up to 65535, each at least 1. */
#define GRID_MAX_X 2147483647u
#define GRID_MAX_YZ 65535u

typedef enum GridOp {
  GRID_INT,  /* value */
  GRID_NAME, /* value: the index of the name */
  GRID_NEG,  /* -a */
  GRID_ADD, GRID_SUB, GRID_MUL, GRID_FLOORDIV, GRID_DIV, GRID_MOD,
  GRID_CDIV, GRID_MIN, GRID_MAX, /* min and max of more than two fold left */
} GridOp;

typedef struct GridNode {
  GridOp op;
  int a, b;      /* the operands, as node indices */
  int pos;       /* the byte offset of the operator (of the call for cdiv, min, max) */
  int64_t value;
} GridNode;

/* A name a grid may use. `unusable`, when set, says why it cannot be used
 * ("a pointer parameter"), for a better message than "unknown name"; such
 * names are not listed among the available ones. */
typedef struct GridName {
  const char *name;
  const char *unusable;
} GridName;

typedef struct Grid {
  int ndims;
  int root[3];   /* each dimension's tree */
  int start[3];  /* where each dimension's text starts */
  int n;
  GridNode node[GRID_MAX_NODES];
} Grid;

/* Where a grid went wrong: the message and the byte offset in the text. */
typedef struct GridError {
  char msg[256];
  size_t pos;
} GridError;

/* Parses text against names; false with *e on a syntax error, an unknown or
 * unusable name, or an expression too long or too deep. */
bool grid_parse(Grid *g, const char *text, const GridName *names, int nnames, GridError *e);

/* Evaluates the grid with values[i] for name i. Missing dimensions are 1;
 * x must be in 1 .. 2^31-1, y and z in 1 .. 65535. False with *e when an
 * operation overflows, divides by zero or is inexact, or a dimension is out
 * of range. Allocates nothing. */
bool grid_eval(const Grid *g, const int64_t *values, unsigned dims[3], GridError *e);

/* Whether dims is a grid a launch may have (GRID_MAX_X, GRID_MAX_YZ); if
 * not, false with why in *e (pos 0): every launch path checks a grid it
 * was given with this, as grid_eval checks one it computes. */
bool grid_check(const unsigned dims[3], GridError *e);

/* Evaluates a grid of one expression, without the range check of a grid
 * dimension: `tilec bench --bytes`. False with *e as grid_eval, or when the
 * text has more than one expression. */
bool grid_eval_value(const Grid *g, const int64_t *values, int64_t *out, GridError *e);

/* Why a parameter of this type (as the signature spells it: "*fp32",
 * "i32", "fp16") cannot be in a grid: a pointer or a float; NULL for an
 * integer or a boolean (a u64 past INT64_MAX is the caller's to refuse). */
const char *grid_unusable_type(const char *type);

#endif
