/*
 * types.c — Triton's dtypes and the interned types of the typed AST.
 *
 * Types are compared by pointer everywhere after sema, so every constructor
 * goes through one cache (a list per kind is enough: kernels use a few dozen
 * distinct types).
 */
#include "frontend.h"

#include <string.h>

static const struct {
  const char *name, *short_name;
  int bits;
} dtypes[] = {
#define X(k, s, b) {s, NULL, b},
    DTYPES(X)
#undef X
};

static const char *const short_names[DT_COUNT] = {
    [DT_I1] = "i1",      [DT_I8] = "i8",       [DT_I16] = "i16",  [DT_I32] = "i32",
    [DT_I64] = "i64",    [DT_U8] = "u8",       [DT_U16] = "u16",  [DT_U32] = "u32",
    [DT_U64] = "u64",    [DT_F8E4M3] = "fp8e4nv", [DT_F8E5M2] = "fp8e5", [DT_F16] = "fp16",
    [DT_BF16] = "bf16",  [DT_F32] = "fp32",    [DT_F64] = "fp64",
};

const char *dtype_name(DType t) { return dtypes[t].name; }
const char *dtype_short(DType t) { return short_names[t]; }
int dtype_bits(DType t) { return dtypes[t].bits; }
bool dtype_is_int(DType t) { return t <= DT_U64; }
bool dtype_is_signed(DType t) { return t >= DT_I8 && t <= DT_I64; }
bool dtype_is_float(DType t) { return t >= DT_F8E4M3; }

/* Every spelling a signature or `tl.` attribute may use. */
static const struct {
  const char *s;
  DType t;
} spellings[] = {
    {"i1", DT_I1},        {"int1", DT_I1},         {"i8", DT_I8},         {"int8", DT_I8},
    {"i16", DT_I16},      {"int16", DT_I16},       {"i32", DT_I32},       {"int32", DT_I32},
    {"i64", DT_I64},      {"int64", DT_I64},       {"u1", DT_I1},         {"u8", DT_U8},
    {"uint8", DT_U8},     {"u16", DT_U16},         {"uint16", DT_U16},    {"u32", DT_U32},
    {"uint32", DT_U32},   {"u64", DT_U64},         {"uint64", DT_U64},    {"fp8e4nv", DT_F8E4M3},
    {"float8e4nv", DT_F8E4M3}, {"float8_e4m3fn", DT_F8E4M3}, {"fp8e4m3", DT_F8E4M3},
    {"fp8e5", DT_F8E5M2}, {"float8e5", DT_F8E5M2}, {"float8_e5m2", DT_F8E5M2},
    {"fp8e5m2", DT_F8E5M2}, {"fp16", DT_F16},      {"float16", DT_F16},   {"half", DT_F16},
    {"bf16", DT_BF16},    {"bfloat16", DT_BF16},   {"fp32", DT_F32},      {"float32", DT_F32},
    {"float", DT_F32},    {"fp64", DT_F64},        {"float64", DT_F64},   {"double", DT_F64},
};

bool dtype_parse(const char *s, DType *out) {
  for (size_t i = 0; i < sizeof spellings / sizeof *spellings; i++)
    if (!strcmp(spellings[i].s, s)) {
      *out = spellings[i].t;
      return true;
    }
  return false;
}

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
