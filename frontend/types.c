/*
 * types.c — the interned types of the typed AST.
 *
 * Types are compared by pointer everywhere after sema, so every constructor
 * goes through one cache (a list per kind is enough: kernels use a few dozen
 * distinct types).
 */
#include "frontend.h"

#include <string.h>

/* ---- the type cache ------------------------------------------------------ */

struct TypeCache {
  Arena *a;
  Type scalars[DT_COUNT];
  Type void_type;
  PtrVec all; /* every non-scalar type made so far */
};

TypeCache *types_create(Arena *a) {
  TypeCache *tc = arena_alloc(a, sizeof *tc);
  tc->a = a;
  for (int i = 0; i < DT_COUNT; i++) {
    tc->scalars[i].kind = TY_SCALAR;
    tc->scalars[i].dtype = (DType)i;
  }
  tc->void_type.kind = TY_VOID;
  return tc;
}

const Type *ty_void(TypeCache *tc) { return &tc->void_type; }
const Type *ty_scalar(TypeCache *tc, DType dt) { return &tc->scalars[dt]; }

static const Type *intern(TypeCache *tc, const Type *t) {
  for (int i = 0; i < tc->all.n; i++) {
    const Type *u = tc->all.v[i];
    if (u->kind == t->kind && u->dtype == t->dtype && u->elem == t->elem && u->rank == t->rank &&
        u->addrspace == t->addrspace &&
        !memcmp(u->shape, t->shape, sizeof(int64_t) * (size_t)t->rank))
      return u;
  }
  Type *n = arena_alloc(tc->a, sizeof *n);
  *n = *t;
  vec_push(tc->a, &tc->all, n);
  return n;
}

const Type *ty_ptr(TypeCache *tc, const Type *pointee) {
  Type t = {.kind = TY_PTR, .elem = pointee, .addrspace = 1};
  return intern(tc, &t);
}

const Type *ty_block(TypeCache *tc, const Type *elem, int rank, const int64_t *shape) {
  if (rank == 0) return elem;
  Type t = {.kind = TY_BLOCK, .elem = elem, .rank = rank};
  memcpy(t.shape, shape, sizeof(int64_t) * (size_t)rank);
  return intern(tc, &t);
}

const Type *ty_desc(TypeCache *tc, const Type *block) {
  Type t = {.kind = TY_DESC, .elem = block};
  return intern(tc, &t);
}

const Type *ty_elem(const Type *t) { return t->kind == TY_BLOCK ? t->elem : t; }

const Type *ty_with_elem(TypeCache *tc, const Type *like, const Type *elem) {
  return like->kind == TY_BLOCK ? ty_block(tc, elem, like->rank, like->shape) : elem;
}

bool ty_is_block(const Type *t) { return t->kind == TY_BLOCK; }
bool ty_is_ptr(const Type *t) { return ty_elem(t)->kind == TY_PTR; }
bool ty_is_float(const Type *t) {
  const Type *e = ty_elem(t);
  return e->kind == TY_SCALAR && dtype_is_float(e->dtype);
}
bool ty_is_int(const Type *t) {
  const Type *e = ty_elem(t);
  return e->kind == TY_SCALAR && dtype_is_int(e->dtype);
}

void ty_print(StrBuf *sb, const Type *t) {
  switch (t->kind) {
  case TY_VOID: sb_printf(sb, "void"); return;
  case TY_SCALAR: sb_printf(sb, "%s", dtype_short(t->dtype)); return;
  case TY_PTR:
    sb_putc(sb, '*');
    ty_print(sb, t->elem);
    return;
  case TY_DESC:
    sb_printf(sb, "desc<");
    ty_print(sb, t->elem);
    sb_putc(sb, '>');
    return;
  case TY_BLOCK:
    sb_putc(sb, '<');
    for (int i = 0; i < t->rank; i++) sb_printf(sb, "%lldx", (long long)t->shape[i]);
    ty_print(sb, t->elem);
    sb_putc(sb, '>');
    return;
  }
}

const char *ty_str(Arena *a, const Type *t) {
  StrBuf sb = {0};
  ty_print(&sb, t);
  char *s = arena_strndup(a, sb.s, sb.len);
  sb_free(&sb);
  return s;
}
