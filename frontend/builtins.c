/*
 * builtins.c — the `tl.*` surface: argument binding and type rules.
 *
 * One table lists every builtin with its Python parameter list, written as a
 * string ("pointer,mask=,other=": '=' marks an optional parameter, '*' a
 * variadic one), and its handler. Binding follows Python (positional, then
 * keywords, each once) so an error names the builtin and the parameter the
 * way Triton's documentation does. Handlers check types and emit typed nodes;
 * builtins with side effects and no result (store, assert, print, barrier)
 * emit their statement themselves and return None.
 */
#include "builtins.h"

const Type *bi_I1(Sema *S) { return ty_scalar(S->tc, DT_I1); }
const Type *bi_I32(Sema *S) { return ty_scalar(S->tc, DT_I32); }
const Type *bi_F32(Sema *S) { return ty_scalar(S->tc, DT_F32); }

static const char *bname(Sema *S, const Builtin *b) {
  if (!strncmp(b->name, "py.", 3)) return arena_printf(S->a, "%s()", b->name + 3);
  if (!strncmp(b->name, "math.", 5)) return arena_printf(S->a, "tl.%s()", b->name);
  if (!strncmp(b->name, "libdevice.", 10)) return arena_printf(S->a, "%s()", b->name);
  if (!strncmp(b->name, "desc.", 5)) return arena_printf(S->a, "tensor_descriptor.%s()", b->name + 5);
  if (!strncmp(b->name, "triton.", 7)) return arena_printf(S->a, "%s()", b->name);
  if (!strncmp(b->name, "cuda.", 5)) return arena_printf(S->a, "tl.extra.%s()", b->name);
  return arena_printf(S->a, "tl.%s()", b->name);
}

const char *bi_cur(Sema *S) { return bname(S, S->builtin); }

CallKind bi_call_kind(Sema *S) {
  const char *n = S->builtin->name;
  CallKind k = call_kind_of(!strncmp(n, "math.", 5) ? n + 5 : n);
  if (k == CALL_COUNT) unreachable();
  return k;
}

TNode *bi_rt(Sema *S, Node *at, Val *v) { return to_rt(S, at, v); }

void bi_need_float(Sema *S, Node *at, TNode *e) {
  if (!ty_is_float(e->type))
    sema_error(S, at, "%s expects a floating-point argument, got %s", bi_cur(S), ty_str(S->a, e->type));
}

void bi_need_int(Sema *S, Node *at, TNode *e) {
  if (!ty_is_int(e->type))
    sema_error(S, at, "%s expects an integer argument, got %s", bi_cur(S), ty_str(S->a, e->type));
}

Val *bi_none(Sema *S) { return val_none(S); }

void bi_emit_expr_stmt(Sema *S, Node *at, TNode *e) {
  TNode *t = tnode(S, T_EXPR, at, ty_void(S->tc));
  t->a = e;
  emit_stmt(S, t);
}

/* Promotes runtime/constexpr operands to one element type and one shape. */
const Type *bi_promote_all(Sema *S, Node *at, Val **vals, TNode **out, int n, bool float_only) {
  const Type *ct = NULL;
  Val *acc = NULL;
  for (int i = 0; i < n; i++) {
    if (!acc) {
      acc = vals[i];
      continue;
    }
    /* the promotion of a "+" gives Triton's common type */
    Val *r = binary_op(S, at, TK_PLUS, acc, vals[i]);
    acc = r;
  }
  TNode *e = to_rt(S, at, acc);
  ct = ty_elem(e->type);
  if (float_only && !dtype_is_float(ct->dtype))
    sema_error(S, at, "%s expects floating-point arguments, got %s", bi_cur(S), ty_str(S->a, ct));
  const Type *shape = NULL;
  for (int i = 0; i < n; i++) {
    out[i] = to_rt_typed(S, at, vals[i], ct);
    shape = shape ? broadcast_shapes(S, at, shape, out[i]->type) : out[i]->type;
  }
  for (int i = 0; i < n; i++) out[i] = broadcast_to_shape(S, at, out[i], shape);
  return ty_with_elem(S->tc, shape, ct);
}

/* ---- the table ------------------------------------------------------------------ */

/* The builtins, in the files that hold their handlers. */
static const struct {
  const Builtin *v;
  const size_t *n;
} tables[] = {{builtins_core, &builtins_core_count}, {builtins_memory, &builtins_memory_count},
              {builtins_tensor, &builtins_tensor_count}, {builtins_compose, &builtins_compose_count},
              {builtins_random, &builtins_random_count}, {builtins_asm, &builtins_asm_count}, {builtins_host, &builtins_host_count}};

const Builtin *builtin_find(const char *name) {
  bool math = !strncmp(name, "math.", 5);
  if (!strncmp(name, "libdevice.", 10)) return bi_libdevice_find(name + 10);
  for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
    for (size_t i = 0; i < *tables[t].n; i++) {
      const Builtin *b = &tables[t].v[i];
      if (math ? (b->flags & B_MATH) && !strcmp(b->name, name + 5) : !strcmp(b->name, name)) return b;
    }
  return NULL;
}

/* ---- binding ----------------------------------------------------------------------- */

typedef struct Param {
  char name[40];
  bool optional, variadic;
} Param;

static int parse_params(const char *spec, Param *out) {
  int n = 0;
  const char *p = spec;
  while (*p) {
    Param *q = &out[n++];
    memset(q, 0, sizeof *q);
    if (*p == '*') {
      q->variadic = true;
      p++;
    }
    size_t k = 0;
    while (*p && *p != ',' && *p != '=' && k < sizeof q->name - 1) q->name[k++] = *p++;
    q->name[k] = 0;
    if (*p == '=') {
      q->optional = true;
      p++;
    }
    if (*p == ',') p++;
  }
  return n;
}

Val *builtin_call(Sema *S, Node *call, const Builtin *b, Val *self, Args *args) {
  const Builtin *saved = S->builtin;
  S->builtin = b;
  if (!strcmp(b->name, "py.constant_method")) {
    S->builtin = saved;
    return self;
  }
  Param ps[16];
  int np = parse_params(b->params, ps);
  Val *bound[16] = {0};
  bool given[16] = {0};
  int pi = 0;
  if (self) {
    bound[0] = self;
    given[0] = true;
    pi = 1;
  }
  for (int i = 0; i < args->npos; i++) {
    if (pi >= np) {
      int max = np - (self ? 1 : 0);
      sema_error(S, call, "%s takes at most %d argument%s (%d given)", bname(S, b), max, max == 1 ? "" : "s", args->npos);
    }
    if (ps[pi].variadic) {
      /* the rest of the positional arguments form one tuple */
      int rest = args->npos - i;
      Val **elems = arena_alloc(S->a, sizeof(Val *) * (size_t)(rest + 1));
      memcpy(elems, args->pos + i, sizeof(Val *) * (size_t)rest);
      Val *t = sema_tuple_of(S, call, elems, rest);
      bound[pi] = t;
      given[pi] = true;
      pi++;
      break;
    }
    bound[pi] = args->pos[i];
    given[pi] = true;
    pi++;
  }
  for (int k = 0; k < args->nkw; k++) {
    int j = 0;
    while (j < np && strcmp(ps[j].name, args->kwn[k])) j++;
    /* Triton spells some parameters two ways */
    if (j == np && !strcmp(args->kwn[k], "dim")) {
      j = 0;
      while (j < np && strcmp(ps[j].name, "axis")) j++;
    }
    if (j == np && !strcmp(args->kwn[k], "axis")) {
      j = 0;
      while (j < np && strcmp(ps[j].name, "dim")) j++;
    }
    if (j == np || ps[j].variadic)
      sema_error(S, call, "%s got an unexpected keyword argument '%s'", bname(S, b), args->kwn[k]);
    if (given[j]) sema_error(S, call, "%s got multiple values for argument '%s'", bname(S, b), ps[j].name);
    bound[j] = args->kwv[k];
    given[j] = true;
  }
  for (int j = 0; j < np; j++) {
    if (given[j] || ps[j].optional) continue;
    if (ps[j].variadic) {
      CValue *c = cv_none(S);
      c->kind = CV_TUPLE;
      bound[j] = val_const(S, c);
      continue;
    }
    sema_error(S, call, "%s missing required argument '%s'", bname(S, b), ps[j].name);
  }
  for (int j = 0; j < np; j++)
    if (bound[j] && bound[j]->kind == V_UNDEF) sema_error(S, call, "%s", bound[j]->why);
  Val *r = b->fn(S, call, bound, np);
  S->builtin = saved;
  return r;
}

Val *bi_call(Sema *S, Node *call, const char *name, Val **vals, int n) {
  const Builtin *b = builtin_find(name);
  if (!b) unreachable();
  Args a = {.pos = vals, .npos = n};
  return builtin_call(S, call, b, NULL, &a);
}

bool builtin_is_namespace(const char *path) { return path && !strcmp(path, "tl"); }
