/*
 * builtins_asm.c — tl.inline_asm_elementwise: the kernel's own assembly,
 * run over the elements of its arguments.
 *
 * As Triton defines it: the arguments (tensors or scalars, each keeping its
 * dtype) broadcast to one shape, and there is one result of that shape per
 * dtype (a tuple of them when dtype is a tuple or a list). Each instance of
 * the assembly takes `pack` elements of every argument and makes `pack` of
 * every result, in registers as Triton passes them: a value narrower than
 * 32 bits shares a 32-bit register with its neighbours (int8 with pack=4 is
 * one register, dtype_asm_elems_per_reg). The constraint string is LLVM's,
 * outputs first; it is checked here against those registers, since LLVM
 * rejects a mismatch by aborting, without a position. With is_pure=False
 * the assembly runs where it is written, also when nothing reads its
 * results: it is assigned there, as a statement, and the IR op is marked
 * as having effects.
 */
#include "builtins.h"

/* What the IR op holds (ir/tile.irdl). */
#define MAX_ASM_ARGS 16
#define MAX_ASM_RESULTS 8

/* The registers one instance takes for the elements of type t, also
 * written to `what` for a message ("i8 takes 1"). */
static int regs_of(Sema *S, Node *call, const Type *t, int pack, StrBuf *what) {
  const Type *e = ty_elem(t);
  int bits = e->kind == TY_PTR ? 64 : dtype_bits(e->dtype);
  int per = dtype_asm_elems_per_reg(bits, pack);
  if (bits == 1 && pack > 1)
    sema_error(S, call, "%s cannot pack int1 values into registers (pack=%d); convert them to int8 or int32 first",
               bi_cur(S), pack);
  if (pack % per)
    sema_error(S, call, "%s: pack=%d does not fill whole 32-bit registers of %s (%d to a register)", bi_cur(S), pack,
               ty_str(S->a, e), per);
  sb_printf(what, "%s%s takes %d", what->len ? ", " : "", ty_str(S->a, e), pack / per);
  return pack / per;
}

/* An error about one entry of the constraints. */
_Noreturn static void bad_entry(Sema *S, Node *call, const char *cons, const char *entry, int len, const char *why) {
  sema_error(S, call, "%s's constraints '%s': '%.*s' %s", bi_cur(S), cons, len, entry, why);
}

/* The outputs and inputs of an LLVM constraint string ("=r,=r,r,0,~{memory}"),
 * each entry in LLVM's grammar: a prefix ('=' an output, '~' a clobber,
 * written ~{name}), modifiers ('&' an output's early clobber, '%'), then
 * codes: letters of NVPTX's ("r", "l", "h") or the number of an earlier
 * output the input shares. Outputs come first, then inputs, then clobbers.
 * What LLVM cannot parse makes it crash rather than complain, so every
 * entry is checked here; the forms NVPTX or elementwise assembly has no use
 * for (named registers '{r1}', labels '!', memory through '*', alternatives
 * '|', multi-letter '^' and '@') are refused. */
static void constraint_counts(Sema *S, Node *call, const char *cons, int *outs, int *ins) {
  static const char *const phases[] = {"an output", "an input", "a clobber"};
  static const char codes[] = "bchrlqfdnimX"; /* NVPTX's register classes and LLVM's generic ones */
  int nentries = 1;
  for (const char *q = cons; *q; q++) nentries += *q == ',';
  bool *is_out = arena_alloc(S->a, (size_t)nentries), *tied = arena_alloc(S->a, (size_t)nentries);
  *outs = *ins = 0;
  int phase = 0; /* 0: outputs, 1: inputs, 2: clobbers */
  for (const char *p = cons; *cons; p++) {
    const char *end = strchr(p, ',');
    if (!end) end = p + strlen(p);
    int len = (int)(end - p), k = *outs + *ins;
    const char *c = p;
    int kind = *c == '=' ? 0 : *c == '~' ? 2 : 1;
    if (!len) bad_entry(S, call, cons, p, len, "is empty");
    if (*c == '!') bad_entry(S, call, cons, p, len, "is a label, which elementwise assembly cannot take");
    if (kind < phase)
      sema_error(S, call, "%s's constraints '%s' have %s ('%.*s') after %s: outputs come first, then inputs, then clobbers",
                 bi_cur(S), cons, phases[kind], len, p, phases[phase]);
    phase = kind;
    c += kind != 1;
    if (kind == 2) {
      if (c == end || *c != '{' || memchr(c, '}', (size_t)(end - c)) != end - 1)
        bad_entry(S, call, cons, p, len, "is not a clobber of the form ~{name}");
    } else {
      if (c < end && *c == '*') bad_entry(S, call, cons, p, len, "is indirect (memory through '*'), which elementwise assembly cannot take");
      bool early = false, comm = false;
      for (; c < end && (*c == '&' || *c == '%'); c++) {
        if ((*c == '&' && (kind != 0 || early)) || (*c == '%' && comm))
          bad_entry(S, call, cons, p, len, "repeats a modifier, or has '&' on an input");
        early |= *c == '&';
        comm |= *c == '%';
      }
      if (c == end) bad_entry(S, call, cons, p, len, "has no constraint code");
      while (c < end) {
        if (*c >= '0' && *c <= '9') {
          int m = 0;
          for (; c < end && *c >= '0' && *c <= '9'; c++) m = m < 100000 ? m * 10 + (*c - '0') : m;
          if (kind != 1 || m >= k || !is_out[m] || tied[m])
            sema_error(S, call, "%s's constraints '%s': '%.*s' ties to operand %d, but only an input may share a register, "
                       "with an earlier output that no other input shares", bi_cur(S), cons, len, p, m);
          tied[m] = true;
        } else if (*c && strchr(codes, *c)) {
          c++;
        } else {
          bad_entry(S, call, cons, p, len, "has a code NVPTX does not take: registers are b, c, h, r, l, q, f, d; "
                                           "constants n, i; memory m; anything X");
        }
      }
      is_out[k] = kind == 0;
      if (kind == 0) (*outs)++;
      else (*ins)++;
    }
    if (!*end) break;
    p = end;
  }
}

/* Every '$' of the assembly, as LLVM's printer reads it: $$ is a '$', $(,
 * $| and $) mark variants, $N and ${N} or ${N:m} an operand, which must
 * exist, and ${:uid}, ${:comment}, ${:private} its own strings. LLVM ends
 * the process on any other. */
static void check_operands(Sema *S, Node *call, const char *text, int nops) {
  for (const char *p = strchr(text, '$'); p; p = strchr(p, '$')) {
    const char *at = p++;
    if (*p == '$' || *p == '(' || *p == '|' || *p == ')') {
      p++;
      continue;
    }
    bool braced = *p == '{';
    p += braced;
    if (braced && *p == ':') {
      const char *r = strchr(p, '}');
      size_t n = r ? (size_t)(r - p - 1) : 0;
      if (!r || !((n == 3 && !memcmp(p + 1, "uid", 3)) || (n == 7 && !memcmp(p + 1, "comment", 7)) ||
                  (n == 7 && !memcmp(p + 1, "private", 7))))
        sema_error(S, call, "%s's assembly has '%.*s', which is none of ${:uid}, ${:comment} and ${:private}", bi_cur(S),
                   r ? (int)(r - at + 1) : (int)strlen(at), at);
      p = r + 1;
      continue;
    }
    int m = 0;
    const char *digits = p;
    for (; *p >= '0' && *p <= '9'; p++) m = m < 100000 ? m * 10 + (*p - '0') : m;
    if (p == digits)
      sema_error(S, call, "%s's assembly has a '$' that starts no operand ('%.8s'): write $0, ${0}, or $$ for a '$'", bi_cur(S), at);
    if (braced && *p == ':' && p[1]) p += 2;
    if (braced && *p++ != '}') sema_error(S, call, "%s's assembly has '%.*s' without its '}'", bi_cur(S), (int)(p - at - 1), at);
    if (m >= nops)
      sema_error(S, call, "%s's assembly reads $%d, but its constraints give %d operand%s ($0 to $%d)", bi_cur(S), m, nops,
                 nops == 1 ? "" : "s", nops - 1);
  }
}

/* The values of a tuple (a constexpr tuple or one holding runtime values). */
static int tuple_items(Sema *S, Val *v, Val ***items) {
  if (v->kind == V_TUPLE) {
    *items = v->elems;
    return v->n;
  }
  if (v->kind != V_CONST || v->c->kind != CV_TUPLE) return -1;
  int n = v->c->nelems;
  *items = arena_alloc(S->a, sizeof(Val *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) (*items)[i] = val_const(S, v->c->elems[i]);
  return n;
}

/* inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack) */
HANDLER(inline_asm_elementwise) {
  (void)nargs;
  const char *text = const_str(S, call, A(0), "asm");
  const char *cons = const_str(S, call, A(1), "constraints");
  bool pure = const_bool(S, call, A(4), "is_pure");
  int64_t pack = const_int(S, call, A(5), "pack");
  if (pack < 1 || pack > 1024) sema_error(S, call, "%s's pack must be from 1 to 1024, got %lld", bi_cur(S), (long long)pack);

  Val **items;
  int n = tuple_items(S, A(2), &items);
  if (n < 0) sema_error(S, call, "%s's args must be a list or tuple of tensors and scalars, got %s", bi_cur(S), val_desc(S, A(2)));
  if (n > MAX_ASM_ARGS) sema_error(S, call, "%s takes at most %d args, got %d", bi_cur(S), MAX_ASM_ARGS, n);
  TNode *ops[MAX_ASM_ARGS];
  const Type *shape = NULL;
  for (int i = 0; i < n; i++) {
    Val *v = items[i];
    bool number = v->kind == V_CONST && (v->c->kind == CV_INT || v->c->kind == CV_FLOAT || v->c->kind == CV_BOOL);
    const Type *e = v->kind == V_RT ? ty_elem(v->ty) : NULL;
    bool value = e && (e->kind == TY_SCALAR || (e->kind == TY_PTR && e->elem->kind == TY_SCALAR));
    if (!number && !value)
      sema_error(S, call, "%s's args[%d] must be a tensor or a scalar, got %s", bi_cur(S), i, val_desc(S, v));
    ops[i] = bi_rt(S, call, v);
    shape = shape ? broadcast_shapes(S, call, shape, ops[i]->type) : ops[i]->type;
  }
  for (int i = 0; i < n; i++) ops[i] = broadcast_to_shape(S, call, ops[i], shape);

  Val **dts;
  int nres = tuple_items(S, A(3), &dts);
  bool several = nres >= 0;
  if (!several) {
    dts = &args[3];
    nres = 1;
  }
  if (nres == 0)
    sema_error(S, call, "%s needs a dtype: the assembly must make a result (a dummy one when it needs none)", bi_cur(S));
  if (nres > MAX_ASM_RESULTS) sema_error(S, call, "%s makes at most %d results, got %d dtypes", bi_cur(S), MAX_ASM_RESULTS, nres);
  const Type **res = arena_alloc(S->a, sizeof(Type *) * (size_t)nres);
  for (int i = 0; i < nres; i++) {
    const Type *dt = const_dtype(S, call, dts[i], "dtype");
    if (dt->kind == TY_PTR && dt->elem->kind != TY_SCALAR)
      sema_error(S, call, "%s's dtype must be a scalar or pointer type, got %s", bi_cur(S), ty_str(S->a, dt));
    res[i] = shape ? ty_with_elem(S->tc, shape, dt) : dt;
  }

  /* the registers of one instance against the constraints */
  StrBuf out_what = {.arena = S->a}, in_what = {.arena = S->a};
  int want_outs = 0, want_ins = 0, outs, ins;
  for (int i = 0; i < nres; i++) want_outs += regs_of(S, call, res[i], (int)pack, &out_what);
  for (int i = 0; i < n; i++) want_ins += regs_of(S, call, ops[i]->type, (int)pack, &in_what);
  constraint_counts(S, call, cons, &outs, &ins);
  check_operands(S, call, text, outs + ins);
  if (outs != want_outs)
    sema_error(S, call, "%s's constraints '%s' have %d output%s, but its results take %d register%s (pack=%d: %s)",
               bi_cur(S), cons, outs, outs == 1 ? "" : "s", want_outs, want_outs == 1 ? "" : "s", (int)pack, out_what.s);
  if (ins != want_ins)
    sema_error(S, call, "%s's constraints '%s' have %d input%s, but its args take %d register%s (pack=%d%s%s)", bi_cur(S),
               cons, ins, ins == 1 ? "" : "s", want_ins, want_ins == 1 ? "" : "s", (int)pack, n ? ": " : "", n ? in_what.s : "");

  TNode *t = emit_call(S, call, CALL_inline_asm, res[0], ops, n);
  t->nres = nres;
  t->res_types = res;
  t->attrs.asm_text = text;
  t->attrs.constraints = cons;
  t->attrs.pack = (int)pack;
  t->attrs.is_pure = pure;
  if (nres > 1) return bi_multi_result(S, call, t, nres);
  /* assembly with effects runs here, once, whether or not its result is read */
  Val *r = val_rt(S, pure ? t : bi_keep(S, call, t, "asm"));
  if (!several) return r;
  /* dtype=(tl.int32,): a tuple of one */
  Val *one = arena_alloc(S->a, sizeof *one);
  one->kind = V_TUPLE;
  one->n = 1;
  one->elems = arena_alloc(S->a, sizeof(Val *) * 2);
  one->elems[0] = r;
  sema_tuple_nest(S, call, one->elems, 1, &one->depth, &one->size);
  return one;
}

/* ---- the table ------------------------------------------------------------------ */

const Builtin builtins_asm[] = {
    {"inline_asm_elementwise", "asm,constraints,args,dtype,is_pure,pack", inline_asm_elementwise, 0},
};
const size_t builtins_asm_count = sizeof builtins_asm / sizeof *builtins_asm;
