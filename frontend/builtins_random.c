/*
 * builtins_random.c — Triton's random numbers (triton.language.random),
 * made of other operations as Triton makes them.
 *
 * Triton writes its generator as @jit functions: philox_impl's rounds are
 * umulhi, xor, multiply and add on four counter words and a two-word key;
 * philox turns a seed into the key; randint4x makes the offsets the first
 * two counter words; rand and randn turn the words into uniform and normal
 * floats with integer-to-float arithmetic and the Box-Muller transform.
 * Each is built here from the typed operations a kernel would write, so
 * every dtype, shape and rounding is Triton's: 32- and 64-bit counters
 * (each width with its own round constants), scalar and tensor seeds,
 * offsets whose high word is the second counter, the words a round or
 * three leave unbroadcast, and the approximate log, sqrt, sin and cos of
 * tl.math in randn. Only the rounds themselves are usually one op,
 * tile.philox, which codegen unrolls per element.
 */
#include "builtins.h"

static const Type *dt(Sema *S, DType d) { return ty_scalar(S->tc, d); }

/* A runtime scalar of dtype el holding `bits` (unsigned dtypes hold them
 * zero-extended, as folded casts leave them). */
static TNode *typed_const(Sema *S, Node *call, uint64_t bits, const Type *el) {
  TNode *t = tnode(S, T_CONST, call, el);
  t->cint = (int64_t)bits;
  return t;
}

static TNode *with_elem(Sema *S, Node *call, TNode *e, DType d, bool bitcast) {
  const Type *el = dt(S, d);
  if (ty_elem(e->type) == el) return e;
  if (!bitcast) return cast_to(S, call, e, el);
  TNode *t = tnode(S, T_BITCAST, call, ty_with_elem(S->tc, e->type, el));
  t->a = e;
  return t;
}

static Val *tuple_of(Sema *S, TNode **e, int n) {
  Val *t = arena_alloc(S->a, sizeof *t);
  t->kind = V_TUPLE;
  t->n = n;
  t->elems = arena_alloc(S->a, sizeof(Val *) * (size_t)n);
  for (int i = 0; i < n; i++) t->elems[i] = val_rt(S, e[i]);
  return t;
}

/* A word read more than once: computed once, in a temporary, unless it is
 * a variable or a constant already. */
static TNode *word(Sema *S, Node *call, TNode *e) { return e->kind == T_VAR || e->kind == T_CONST ? e : bi_keep(S, call, e, "philox"); }

static int rounds_of(Sema *S, Node *call, Val *v) {
  int64_t r = val_is_none(v) ? 10 : const_int(S, call, v, "n_rounds");
  if (r < 0 || r > 64) sema_error(S, call, "%s: n_rounds must be in 0..64, got %lld", bi_cur(S), (long long)r);
  return (int)r;
}

/* ---- Philox ------------------------------------------------------------------------------ */

static bool same_shape(const Type *a, const Type *b) {
  if (a->kind != TY_BLOCK || b->kind != TY_BLOCK) return a->kind != TY_BLOCK && b->kind != TY_BLOCK;
  return a->rank == b->rank && !memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->rank);
}

/* philox_impl's rounds on the counters c[4] and the key k[2], all of c[0]'s
 * dtype (uint32 or uint64); the words are updated in place. Where every
 * word comes out in the broadcast shape of all six (the six share a shape,
 * or four rounds or more have mixed them all), the rounds are one
 * tile.philox op, which codegen unrolls per element and the layout passes
 * move as one. Else (a round or three over words of different shapes,
 * which leave some words of the shapes they came from) they are built
 * round by round as philox_impl writes them, each word computed once, in
 * a temporary: a round reads c0, c2 and the key twice. */
static void philox_rounds(Sema *S, Node *call, TNode **c, TNode **k, int rounds) {
  const Type *el = ty_elem(c[0]->type);
  TNode *all[6] = {c[0], c[1], c[2], c[3], k[0], k[1]};
  const Type *shape = all[0]->type;
  bool same = true;
  for (int i = 1; i < 6; i++) {
    same &= same_shape(all[i]->type, shape);
    shape = broadcast_shapes(S, call, shape, all[i]->type);
  }
  if (same || rounds >= 4) {
    const Type *ty = ty_with_elem(S->tc, shape, el);
    if (ty->kind == TY_BLOCK)
      for (int i = 0; i < 6; i++) all[i] = broadcast_to_shape(S, call, all[i], ty);
    TNode *t = emit_call(S, call, CALL_philox, ty, all, 6);
    t->attrs.has |= CA_N_ROUNDS;
    t->attrs.n_rounds = rounds;
    t->nres = 4;
    t->res_types = arena_alloc(S->a, sizeof(Type *) * 4);
    for (int i = 0; i < 4; i++) t->res_types[i] = ty;
    Val *words = bi_multi_result(S, call, t, 4);
    for (int i = 0; i < 4; i++) c[i] = words->elems[i]->e;
    return;
  }
  bool wide = dtype_bits(el->dtype) == 64;
  TNode *key_a = typed_const(S, call, wide ? 0x9E3779B97F4A7C15u : 0x9E3779B9u, el);
  TNode *key_b = typed_const(S, call, wide ? 0xBB67AE8584CAA73Bu : 0xBB67AE85u, el);
  TNode *round_a = typed_const(S, call, wide ? 0xD2E7470EE14C6C93u : 0xD2511F53u, el);
  TNode *round_b = typed_const(S, call, wide ? 0xCA5A826395121157u : 0xCD9E8D57u, el);
  for (int i = 0; i < 4; i++) c[i] = word(S, call, c[i]);
  for (int i = 0; i < 2; i++) k[i] = word(S, call, k[i]);
  for (int r = 0; r < rounds; r++) {
    TNode *c0 = c[0], *c2 = c[2];
    TNode *hi_b[2] = {broadcast_to_shape(S, call, round_b, c2->type), c2};
    TNode *hi_a[2] = {broadcast_to_shape(S, call, round_a, c0->type), c0};
    TNode *mulhi_b = emit_call(S, call, CALL_umulhi, c2->type, hi_b, 2);
    TNode *mulhi_a = emit_call(S, call, CALL_umulhi, c0->type, hi_a, 2);
    c[0] = bi_keep(S, call, bi_bin(S, call, TK_CARET, bi_bin(S, call, TK_CARET, mulhi_b, c[1]), k[0]), "philox");
    c[2] = bi_keep(S, call, bi_bin(S, call, TK_CARET, bi_bin(S, call, TK_CARET, mulhi_a, c[3]), k[1]), "philox");
    c[1] = bi_keep(S, call, bi_bin(S, call, TK_STAR, round_b, c2), "philox");
    c[3] = bi_keep(S, call, bi_bin(S, call, TK_STAR, round_a, c0), "philox");
    if (r + 1 < rounds) { /* the last round's new key is never read */
      k[0] = bi_keep(S, call, bi_bin(S, call, TK_PLUS, k[0], key_a), "philox");
      k[1] = bi_keep(S, call, bi_bin(S, call, TK_PLUS, k[1], key_b), "philox");
    }
  }
}

/* philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=10): c0 is uint32 or
 * uint64 and picks the width; the other counters are integers of that
 * width (signed ones take part by their bits, and the results are all of
 * c0's dtype, as in Triton), the keys of c0's dtype (a signed key is an
 * error in Triton too: the key's round constant is out of its range).
 * Python integers take c0's dtype. No rounds: the words as given. */
HANDLER(philox_impl) {
  (void)nargs;
  int rounds = rounds_of(S, call, A(6));
  TNode *c[4], *k[2];
  c[0] = bi_rt(S, call, A(0));
  const Type *el = ty_elem(c[0]->type);
  if (el->dtype != DT_U32 && el->dtype != DT_U64)
    sema_error(S, call, "%s needs c0 of dtype uint32 or uint64, got %s", bi_cur(S), ty_str(S->a, c[0]->type));
  static const char *names[6] = {"c0", "c1", "c2", "c3", "k0", "k1"};
  for (int i = 1; i < 6; i++) {
    Val *v = A(i);
    TNode *e = v->kind == V_CONST ? to_rt_typed(S, call, v, el) : bi_rt(S, call, v);
    const Type *ee = ty_elem(e->type);
    if (i < 4 ? !ty_is_int(e->type) || dtype_bits(ee->dtype) != dtype_bits(el->dtype) : ee != el)
      sema_error(S, call, "%s needs %s %s %s, got %s", bi_cur(S), names[i], i < 4 ? "an integer of the width of c0's dtype" : "of c0's dtype",
                 dtype_name(el->dtype), ty_str(S->a, e->type));
    if (i < 4) c[i] = e;
    else k[i - 4] = e;
  }
  if (rounds == 0) return tuple_of(S, c, 4);
  for (int i = 1; i < 4; i++) c[i] = with_elem(S, call, c[i], el->dtype, true);
  philox_rounds(S, call, c, k, rounds);
  return tuple_of(S, c, 4);
}

/* philox's seed and counters: the seed (an integer scalar or tensor) is
 * widened to uint64; with 32-bit counters its low and high words are the
 * key, with 64-bit ones it is the first key word and the second is a
 * zero of shape [1], as Triton makes it (so even scalar counters give
 * tensors of shape [1]). The counters are taken by their bits. */
static Val *philox_seeded(Sema *S, Node *call, TNode *seed, TNode **c, int rounds) {
  if (!ty_is_int(seed->type)) sema_error(S, call, "%s's seed must be an integer, got %s", bi_cur(S), ty_str(S->a, seed->type));
  int bits = ty_elem(c[0]->type)->kind == TY_SCALAR ? dtype_bits(ty_elem(c[0]->type)->dtype) : 0;
  if (bits != 32 && bits != 64)
    sema_error(S, call, "%s's counters must be 32 or 64 bits wide, got %s", bi_cur(S), ty_str(S->a, c[0]->type));
  DType w = bits == 32 ? DT_U32 : DT_U64;
  for (int i = 0; i < 4; i++) {
    const Type *ce = ty_elem(c[i]->type);
    if (ce->kind != TY_SCALAR || dtype_bits(ce->dtype) != bits)
      sema_error(S, call, "%s's counters must all be %d bits wide like the first, got %s", bi_cur(S), bits, ty_str(S->a, c[i]->type));
    c[i] = with_elem(S, call, c[i], w, true);
  }
  if (rounds == 0) return tuple_of(S, c, 4);
  TNode *k[2];
  TNode *seed64 = word(S, call, with_elem(S, call, seed, DT_U64, false));
  if (bits == 32) {
    k[0] = with_elem(S, call, seed64, DT_U32, false);
    k[1] = with_elem(S, call, bi_bin(S, call, TK_SHR, seed64, typed_const(S, call, 32, dt(S, DT_U64))), DT_U32, false);
  } else {
    int64_t one = 1;
    k[0] = seed64;
    k[1] = broadcast_to_shape(S, call, typed_const(S, call, 0, dt(S, DT_U64)), ty_block(S->tc, dt(S, DT_U64), 1, &one));
  }
  philox_rounds(S, call, c, k, rounds);
  return tuple_of(S, c, 4);
}

/* philox(seed, c0, c1, c2, c3, n_rounds=10) */
HANDLER(philox) {
  (void)nargs;
  int rounds = rounds_of(S, call, A(5));
  TNode *c[4];
  for (int i = 0; i < 4; i++) c[i] = bi_rt(S, call, A(1 + i));
  return philox_seeded(S, call, bi_rt(S, call, A(0)), c, rounds);
}

/* randint4x(seed, offset, n_rounds=10): the offsets' low word is the
 * first counter, their high word (64-bit offsets; else 0) the second; four
 * uint32 words per offset, whatever the offsets' width. */
static Val *randint4x_of(Sema *S, Node *call, Val **args) {
  int rounds = rounds_of(S, call, args[2]);
  TNode *seed = bi_rt(S, call, args[0]);
  TNode *off = bi_rt(S, call, args[1]);
  if (!ty_is_int(off->type)) sema_error(S, call, "%s's offsets must be integers, got %s", bi_cur(S), ty_str(S->a, off->type));
  bool wide = dtype_bits(ty_elem(off->type)->dtype) > 32;
  if (wide) off = word(S, call, off);
  TNode *c[4];
  c[0] = with_elem(S, call, off, DT_U32, false);
  c[2] = c[3] = broadcast_to_shape(S, call, typed_const(S, call, 0, dt(S, DT_U32)), c[0]->type);
  c[1] = wide ? with_elem(S, call, bi_bin(S, call, TK_SHR, off, typed_const(S, call, 32, ty_elem(off->type))), DT_U32, false) : c[2];
  return philox_seeded(S, call, seed, c, rounds);
}

HANDLER(randint4x) {
  (void)nargs;
  return randint4x_of(S, call, args);
}

HANDLER(randint) {
  (void)nargs;
  return randint4x_of(S, call, args)->elems[0];
}

/* ---- uniform and normal floats ---------------------------------------------------------- */

/* uint_to_uniform_float(x): the word as a signed integer, folded onto the
 * non-negatives by ~, times the largest scale that keeps the maximum
 * below 1.0: fp32 for either width, as Triton's `x * scale` is. */
static TNode *to_uniform(Sema *S, Node *call, TNode *x) {
  DType d = ty_elem(x->type)->dtype;
  if (d != DT_U32 && d != DT_I32 && d != DT_U64 && d != DT_I64)
    sema_error(S, call, "%s needs uint32, int32, uint64 or int64 values, got %s", bi_cur(S), ty_str(S->a, x->type));
  bool wide = dtype_bits(d) == 64;
  x = bi_keep(S, call, with_elem(S, call, x, wide ? DT_I64 : DT_I32, true), "uniform");
  TNode *neg = binary_op(S, call, TK_LT, val_rt(S, x), val_const(S, cv_int(S, 0)))->e;
  TNode *inv = tnode(S, T_UNOP, call, x->type);
  inv->op = TK_TILDE;
  inv->a = x;
  TNode *folded = tnode(S, T_SELECT, call, x->type);
  folded->c = neg, folded->a = inv, folded->b = x;
  return binary_op(S, call, TK_STAR, val_rt(S, folded), val_const(S, cv_float(S, wide ? 1.0842020432385337e-19 : 4.6566127342e-10)))->e;
}

HANDLER(uint_to_uniform_float) {
  (void)nargs;
  return val_rt(S, to_uniform(S, call, bi_rt(S, call, A(0))));
}

/* pair_uniform_to_normal(u1, u2): Box-Muller, with tl.maximum, tl.log,
 * tl.sqrt, tl.cos and tl.sin as a kernel calls them (so in fp32 their
 * approximate forms, as in Triton): n[0], and n[1] when both. */
static void to_normal(Sema *S, Node *call, Val *u1, Val *u2, bool both, TNode **n) {
  Val *lo[2] = {val_const(S, cv_float(S, 1.0e-7)), u1};
  Val *u = bi_call(S, call, "maximum", lo, 2);
  Val *th = val_rt(S, bi_keep(S, call, binary_op(S, call, TK_STAR, val_const(S, cv_float(S, 6.283185307179586)), u2)->e, "normal"));
  Val *lg = bi_call(S, call, "log", &u, 1);
  Val *sq = binary_op(S, call, TK_STAR, val_const(S, cv_float(S, -2.0)), lg);
  Val *r = val_rt(S, bi_keep(S, call, bi_rt(S, call, bi_call(S, call, "sqrt", &sq, 1)), "normal"));
  n[0] = binary_op(S, call, TK_STAR, r, bi_call(S, call, "cos", &th, 1))->e;
  if (both) n[1] = binary_op(S, call, TK_STAR, r, bi_call(S, call, "sin", &th, 1))->e;
}

HANDLER(pair_uniform_to_normal) {
  (void)nargs;
  TNode *n[2];
  to_normal(S, call, A(0), A(1), true, n);
  return tuple_of(S, n, 2);
}

static void uniforms(Sema *S, Node *call, Val **args, int count, TNode **u) {
  Val *words = randint4x_of(S, call, args);
  for (int i = 0; i < count; i++) u[i] = to_uniform(S, call, words->elems[i]->e);
}

HANDLER(rand_) {
  (void)nargs;
  TNode *u;
  uniforms(S, call, args, 1, &u);
  return val_rt(S, u);
}

HANDLER(rand4x) {
  (void)nargs;
  TNode *u[4];
  uniforms(S, call, args, 4, u);
  return tuple_of(S, u, 4);
}

HANDLER(randn) {
  (void)nargs;
  TNode *u[2], *n[1];
  uniforms(S, call, args, 2, u);
  to_normal(S, call, val_rt(S, u[0]), val_rt(S, u[1]), false, n);
  return val_rt(S, n[0]);
}

HANDLER(randn4x) {
  (void)nargs;
  TNode *u[4], *n[4];
  uniforms(S, call, args, 4, u);
  for (int i = 0; i < 4; i += 2) to_normal(S, call, val_rt(S, u[i]), val_rt(S, u[i + 1]), true, n + i);
  return tuple_of(S, n, 4);
}

/* ---- the table ------------------------------------------------------------------ */

const Builtin builtins_random[] = {
    {"philox_impl", "c0,c1,c2,c3,k0,k1,n_rounds=", philox_impl, 0},
    {"philox", "seed,c0,c1,c2,c3,n_rounds=", philox, 0},
    {"randint", "seed,offset,n_rounds=", randint, 0},
    {"randint4x", "seed,offset,n_rounds=", randint4x, 0},
    {"uint_to_uniform_float", "x", uint_to_uniform_float, 0},
    {"rand", "seed,offset,n_rounds=", rand_, 0},
    {"rand4x", "seed,offsets,n_rounds=", rand4x, 0},
    {"pair_uniform_to_normal", "u1,u2", pair_uniform_to_normal, 0},
    {"randn", "seed,offset,n_rounds=", randn, 0},
    {"randn4x", "seed,offset,n_rounds=", randn4x, 0},
};
const size_t builtins_random_count = sizeof builtins_random / sizeof *builtins_random;
