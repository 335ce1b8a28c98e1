/*
 * sema.c — the kernel's AST to a typed, specialized AST.
 *
 * Sema is an abstract interpreter of the kernel body, in the way Triton's
 * code generator is: constexpr values (ints, floats, bools, strings, dtypes,
 * tuples) are computed here, so an `if` on a constexpr keeps one branch, a
 * `tl.static_range` loop is unrolled, and a call of another `@jit` function is
 * inlined with its own constexpr arguments. What remains is runtime work,
 * written out as typed TNodes with every implicit conversion made explicit
 * (casts, splats of scalars to blocks, broadcasts), so that the IR builder
 * never needs to know Triton's promotion rules.
 *
 * Python variables become Vars: one per name per inlined function. A runtime
 * `if` or loop merges what its branches assigned; a constexpr that a loop
 * re-assigns becomes a runtime value before the loop, as in Triton.
 */
#include "sema.h"

/* ---- environments ----------------------------------------------------------- */

Val *sema_env_get(Env *e, const char *name) {
  for (int i = e->n - 1; i >= 0; i--)
    if (!strcmp(e->names[i], name)) return e->vals[i];
  return NULL;
}

void sema_env_set(Sema *S, Env *e, const char *name, Val *v) {
  for (int i = 0; i < e->n; i++)
    if (!strcmp(e->names[i], name)) {
      e->vals[i] = v;
      return;
    }
  if (e->n == e->cap) {
    int cap = e->cap ? e->cap * 2 : 16;
    const char **names = arena_alloc(S->a, sizeof(char *) * (size_t)cap);
    Val **vals = arena_alloc(S->a, sizeof(Val *) * (size_t)cap);
    if (e->n) {
      memcpy(names, e->names, sizeof(char *) * (size_t)e->n);
      memcpy(vals, e->vals, sizeof(Val *) * (size_t)e->n);
    }
    e->names = names;
    e->vals = vals;
    e->cap = cap;
  }
  e->names[e->n] = name;
  e->vals[e->n++] = v;
}

Env sema_env_copy(Sema *S, const Env *e) {
  Env c = {0};
  for (int i = 0; i < e->n; i++) sema_env_set(S, &c, e->names[i], e->vals[i]);
  return c;
}

/* ---- errors and nodes --------------------------------------------------------- */

Loc sema_loc(Node *n) { return n && n->tok ? n->tok->loc : (Loc){0}; }

void sema_note(Sema *S, const char *note) {
  for (int i = 0; i < S->notes.n; i++)
    if (!strcmp(S->notes.v[i], note)) return;
  vec_push(S->a, &S->notes, (void *)note);
}

_Noreturn void sema_error(Sema *S, Node *at, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  S->d->site = S->f ? S->f->site : NULL;
  diag_error(S->d, sema_loc(at), "%s", buf);
}

_Noreturn void sema_limit_error(Sema *S, Node *at, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  S->at_limit = true;
  sema_error(S, at, "%s", buf);
}

void sema_enter(Sema *S, Node *at) {
  if (++S->depth > SEMA_MAX_DEPTH)
    sema_limit_error(S, at, "code nested too deeply: more than %d levels of expressions, blocks and inlined calls",
                     SEMA_MAX_DEPTH);
}

void sema_leave(Sema *S) { S->depth--; }

TNode *tnode(Sema *S, TNodeKind k, Node *at, const Type *ty) {
  TNode *t = arena_alloc(S->a, sizeof *t);
  t->kind = k;
  t->type = ty;
  t->loc = sema_loc(at);
  t->site = S->f ? S->f->site : NULL;
  return t;
}

void emit_stmt(Sema *S, TNode *t) { vec_push(S->a, S->out, t); }

TNodeList sema_to_tlist(Sema *S, PtrVec *v) {
  TNodeList l = {NULL, v->n};
  if (v->n) {
    l.v = arena_alloc(S->a, sizeof(TNode *) * (size_t)v->n);
    memcpy(l.v, v->v, sizeof(TNode *) * (size_t)v->n);
  }
  return l;
}

TNode *emit_call(Sema *S, Node *at, CallKind callee, const Type *ty, TNode **ops, int nops) {
  TNode *t = tnode(S, T_CALL, at, ty);
  t->callee = callee;
  t->args.n = nops;
  if (nops) {
    t->args.v = arena_alloc(S->a, sizeof(TNode *) * (size_t)nops);
    memcpy(t->args.v, ops, sizeof(TNode *) * (size_t)nops);
  }
  return t;
}

/* ---- signatures and the kernel ------------------------------------------------------ */

/* Parses one signature entry; the text is trimmed. */
static SigEntry *parse_sig_entry(Sema *S, const char *txt, Loc loc, const char *where) {
  SigEntry *e = arena_alloc(S->a, sizeof *e);
  e->loc = loc;
  size_t n = strlen(txt);
  if (n == 0) diag_error(S->d, loc, "empty signature entry");
  if (txt[0] == '\'' || txt[0] == '"') {
    if (n < 2 || txt[n - 1] != txt[0]) diag_error(S->d, loc, "unterminated string in signature: %s", txt);
    e->kind = SIG_CONST;
    e->value = cv_str(S, arena_strndup(S->a, txt + 1, n - 2));
    return e;
  }
  if (!strcmp(txt, "True") || !strcmp(txt, "False")) {
    e->kind = SIG_CONST;
    e->value = cv_bool(S, txt[0] == 'T');
    return e;
  }
  if (!strcmp(txt, "None")) {
    e->kind = SIG_CONST;
    e->value = cv_none(S);
    return e;
  }
  if ((txt[0] >= '0' && txt[0] <= '9') || txt[0] == '-' || txt[0] == '.') {
    char *end;
    e->kind = SIG_CONST;
    if (!strpbrk(txt, ".eEn") || !strncmp(txt, "0x", 2)) {
      errno = 0;
      long long v = strtoll(txt, &end, 0);
      if (*end || errno) diag_error(S->d, loc, "bad constant '%s' in %s", txt, where);
      e->value = cv_int(S, v);
    } else {
      double v = strtod(txt, &end);
      if (*end) diag_error(S->d, loc, "bad constant '%s' in %s", txt, where);
      e->value = cv_float(S, v);
    }
    return e;
  }
  if (!strcmp(txt, "nvTmaDesc"))
    diag_error(S->d, loc, "'nvTmaDesc' (a TMA descriptor that host code builds) is not supported yet: it needs TMA, which "
               "comes with the Hopper work; a host descriptor written tensordesc<DTYPE[BLOCK]> is supported");
  if (!strncmp(txt, "tensordesc<", 11)) {
    /* tensordesc<DTYPE[B0, B1, ...]> */
    const char *lb = strchr(txt, '['), *rb = lb ? strchr(lb, ']') : NULL;
    if (!lb || !rb || strcmp(rb, "]>"))
      diag_error(S->d, loc, "bad tensor descriptor type '%s' in %s: expected tensordesc<DTYPE[B0, B1, ...]>", txt, where);
    char ty[32];
    size_t tn = (size_t)(lb - (txt + 11));
    if (tn >= sizeof ty || !tn) diag_error(S->d, loc, "bad tensor descriptor type '%s' in %s", txt, where);
    memcpy(ty, txt + 11, tn);
    ty[tn] = 0;
    if (!dtype_parse(ty, &e->dtype)) diag_error(S->d, loc, "unknown type '%s' in tensor descriptor '%s'", ty, txt);
    e->kind = SIG_DESC;
    for (const char *q = lb + 1; q < rb;) {
      char *end;
      errno = 0;
      long long v = strtoll(q, &end, 10);
      if (end == q || errno || v <= 0 || e->rank == MAX_RANK)
        diag_error(S->d, loc, "bad block shape in tensor descriptor '%s' (at most %d positive sizes)", txt, MAX_RANK);
      e->block[e->rank++] = v;
      q = end;
      while (*q == ' ') q++;
      if (*q == ',') q++;
      while (*q == ' ') q++;
    }
    if (!e->rank) diag_error(S->d, loc, "tensor descriptor '%s' has an empty block shape", txt);
    return e;
  }
  const char *p = txt;
  bool ptr = *p == '*';
  if (ptr) p++;
  char ty[32];
  size_t k = 0;
  while (p[k] && p[k] != ':' && k < sizeof ty - 1) {
    ty[k] = p[k];
    k++;
  }
  ty[k] = 0;
  if (ptr && ty[0] == '*')
    diag_error(S->d, loc, "unknown type '%s' in %s: pointers to pointers are not supported", txt, where);
  if (!dtype_parse(ty, &e->dtype))
    diag_error(S->d, loc, "unknown type '%s' in %s (expected a type like *fp32, i32, fp16 or a constant)", ty, where);
  e->kind = ptr ? SIG_PTR : SIG_SCALAR;
  p += k;
  if (*p == ':') {
    p++;
    char *end;
    long v = strtol(p, &end, 10);
    if (*end || (v != 16 && v != 1)) diag_error(S->d, loc, "bad hint ':%s' in signature: expected ':16' or ':1'", p);
    if (v == 1 && ptr) diag_error(S->d, loc, "':1' is a hint for integers, not pointers");
    if (v == 1 && !dtype_is_int(e->dtype)) diag_error(S->d, loc, "':1' is a hint for integers");
    e->divisibility = (int)v;
  }
  return e;
}

/* The signature text is its own little source, so its errors get a caret too. */
static PtrVec parse_signature(Sema *S, const char *sig) {
  Source *src = arena_alloc(S->a, sizeof *src);
  src->name = "<signature>";
  src->text = arena_strndup(S->a, sig, strlen(sig));
  src->len = strlen(sig);
  for (size_t i = 0; i < src->len; i++)
    if (sig[i] == '\n' || sig[i] == '\r') ((char *)src->text)[i] = ' ';
  PtrVec out = {0};
  const char *p = src->text;
  while (*p == ' ') p++;
  if (!*p) return out;
  for (;;) {
    const char *start = p;
    char q = 0;
    int depth = 0; /* tensordesc<bf16[64, 64]> holds commas */
    while (*p && (q || depth || *p != ',')) {
      if (!q && (*p == '\'' || *p == '"')) q = *p;
      else if (q && *p == q) q = 0;
      else if (!q && (*p == '[' || *p == '<')) depth++;
      else if (!q && (*p == ']' || *p == '>') && depth) depth--;
      p++;
    }
    const char *s = start, *e = p;
    while (s < e && *s == ' ') s++;
    while (e > s && e[-1] == ' ') e--;
    Loc loc = {src, 1, (int)(s - src->text) + 1};
    SigEntry *entry = parse_sig_entry(S, arena_strndup(S->a, s, (size_t)(e - s)), loc, "signature");
    entry->index = out.n;
    vec_push(S->a, &out, entry);
    if (!*p) break;
    p++;
  }
  return out;
}

/* Parses a -D value: a number, a quoted string, True/False, or a dtype name. */
CValue *sema_define_value(Sema *S, const char *txt) {
  Loc none = {0};
  SigEntry *e = parse_sig_entry(S, txt, none, "-D value");
  e->index = -1;
  if (e->kind == SIG_CONST) return e->value;
  if (e->kind == SIG_SCALAR && !e->divisibility) return cv_dtype(S, ty_scalar(S->tc, e->dtype));
  diag_plain_error(S->d, "-D value '%s' must be a number, a quoted string, True or False", txt);
  diag_unwind(S->d);
}

/* Evaluates a heuristics lambda `lambda args: ...` over the known constexprs. */
static Val *eval_heuristic(Sema *S, Node *lam, PtrVec *names, PtrVec *vals, Node *def) {
  if (lam->kind != N_LAMBDA || lam->kids.n != 1)
    sema_error(S, lam, "a heuristic must be a lambda of one argument");
  Frame hf = {.mod = S->f ? S->f->mod : NULL};
  Frame *saved = S->f;
  S->f = &hf;
  /* args['X'] reads are rewritten as names bound in this frame */
  for (int i = 0; i < names->n; i++) sema_env_set(S, &hf.env, names->v[i], vals->v[i]);
  for (int i = 0; i < def->kids.n; i++) {
    const char *pn = def->kids.v[i]->name;
    if (!sema_env_get(&hf.env, pn)) {
      Val *u = sema_new_val(S, V_UNDEF);
      u->why = arena_printf(S->a, "this heuristic depends on the runtime argument '%s'; give its result in the signature or with -D", pn);
      sema_env_set(S, &hf.env, pn, u);
    }
  }
  const char *argname = lam->kids.v[0]->name;
  Val *marker = sema_new_val(S, V_MODULE);
  marker->path = "heuristic.args";
  sema_env_set(S, &hf.env, argname, marker);
  Val *v = sema_eval(S, lam->lhs);
  S->f = saved;
  return v;
}

/* The parameters a host tensor descriptor NAME of rank r becomes: part 0 is
 * NAME (its base), 1..r NAME_shape0.., r+1..2r NAME_stride0.. */
static const char *desc_part(Arena *a, const char *name, int rank, int q) {
  if (q == 0) return name;
  return arena_printf(a, "%s_%s%d", name, q <= rank ? "shape" : "stride", (q - 1) % rank);
}

/* Whether @triton.jit(do_not_specialize=[...]) names parameter `name`, the
 * def's parameter number `index`: by its name, or by its number. */
static bool named_in(PtrVec list, const char *name, int index) {
  for (int i = 0; i < list.n; i++) {
    const Node *n = list.v[i];
    if ((n->kind == N_STR && !strcmp(n->sval, name)) || (n->kind == N_INT && (int64_t)n->ival == index)) return true;
  }
  return false;
}

/* The module read, the kernel opt names picked and its def parsed; f its
 * frame, entered. */
static Node *enter_kernel(Sema *S, const SpecOptions *opt, Frame *f) {
  sema_module_init(S, (Module *)S->m, opt);
  /* before the kernel is picked: the module-level values that picking it
   * evaluates may run @triton.constexpr_function helpers, whose variables
   * the kernel numbers */
  S->k = arena_alloc(S->a, sizeof *S->k);
  JitFunc *fn = sema_pick_kernel(S, opt);
  Node *def = sema_func_def(S, fn);
  *f = (Frame){.fn = fn, .is_kernel = true, .mod = fn->mod};
  S->f = f;
  return def;
}

/* What is made of the kernel opt names, its def and frame entered (out: what it makes). */
typedef bool KernelWork(Sema *S, const SpecOptions *opt, Node *def, Frame *f, void *out);

/* Runs work on the kernel opt names with sema's errors unwinding to here;
 * false on an error. */
static bool on_kernel(Arena *a, Diags *d, TypeCache *tc, const Module *m, const SpecOptions *opt, KernelWork *work,
                      void *out) {
  Sema s = {.a = a, .d = d, .tc = tc, .m = m, .src = m->src};
  jmp_buf jb, *saved = d->unwind;
  d->unwind = &jb;
  if (setjmp(jb)) {
    d->unwind = saved;
    d->site = NULL;
    return false;
  }
  Frame f;
  Node *def = enter_kernel(&s, opt, &f);
  bool ok = work(&s, opt, def, &f, out);
  d->unwind = saved;
  d->site = NULL;
  return ok;
}

static bool make_kernel(Sema *S, const SpecOptions *opt, Node *def, Frame *f, void *out) {
  Arena *a = S->a;
  Diags *d = S->d;
  TypeCache *tc = S->tc;
  const Module *m = S->m;
  JitFunc *fn = f->fn;
  Kernel *k = S->k;
  k->name = fn->name;
  k->loc = sema_loc(def);

  int np = def->kids.n;
  CValue **consts = arena_alloc(a, sizeof(CValue *) * (size_t)(np + 1));
  const char **origin = arena_alloc(a, sizeof(char *) * (size_t)(np + 1));
  /* -D first: they take a parameter out of the positional list */
  for (int i = 0; i < opt->ndefines; i++) {
    const char *eq = strchr(opt->defines[i], '=');
    if (!eq) {
      diag_plain_error(d, "-D expects NAME=VALUE, got '%s'", opt->defines[i]);
      diag_unwind(d);
    }
    const char *name = arena_strndup(a, opt->defines[i], (size_t)(eq - opt->defines[i]));
    int j = 0;
    while (j < np && strcmp(def->kids.v[j]->name, name)) j++;
    if (j == np) {
      bool global = false;
      int lo, hi;
      module_bindings_of(m, name, &lo, &hi);
      for (int b = lo; b < hi && !global; b++) global = ((const Binding *)m->bindings.v[m->by_name[b]])->kind == BIND_ASSIGN;
      if (global) continue; /* sets a module-level global */
      diag_plain_error(d, "-D %s: kernel '%s' has no parameter named '%s'", opt->defines[i], fn->name, name);
      diag_unwind(d);
    }
    if (origin[j]) {
      diag_plain_error(d, "-D sets '%s' twice", name);
      diag_unwind(d);
    }
    consts[j] = sema_define_value(S, eq + 1);
    /* None specializes any parameter, as Triton's JIT makes a None argument a constexpr */
    if (consts[j]->kind != CV_NONE && !sema_param_is_constexpr(S, def->kids.v[j])) {
      diag_plain_error(d, "-D %s: parameter '%s' is not a tl.constexpr", opt->defines[i], name);
      diag_unwind(d);
    }
    origin[j] = "-D";
  }
  /* the chosen autotune config (the first by default) supplies its meta-parameters */
  if (opt->config < 0 || (opt->config > 0 && opt->config >= fn->configs.n)) {
    if (fn->configs.n)
      diag_error(d, sema_loc(def), "kernel '%s' has %d autotune configs, numbered from 0; there is no config %d", fn->name,
                 fn->configs.n, opt->config);
    diag_error(d, sema_loc(def), "kernel '%s' has no autotune configs; there is no config %d", fn->name, opt->config);
  }
  AutotuneConfig *cfg = fn->configs.n ? fn->configs.v[opt->config] : NULL;
  k->nconfigs = fn->configs.n;
  k->config = opt->config;
  /* the names @triton.autotune gives: each a parameter of the kernel */
  const PtrVec *lists[3] = {&fn->autotune_keys, &fn->autotune_reset, &fn->autotune_restore};
  PtrVec *outs[3] = {&k->autotune_keys, &k->autotune_reset, &k->autotune_restore};
  static const char *const what[3] = {"key", "reset_to_zero", "restore_value"};
  for (int l = 0; l < 3; l++)
    for (int i = 0; i < lists[l]->n; i++) {
      Node *name = lists[l]->v[i];
      int j = 0;
      while (name->kind == N_STR && j < np && strcmp(def->kids.v[j]->name, name->sval)) j++;
      if (name->kind != N_STR) diag_error(d, sema_loc(name), "an autotune %s entry is a parameter's name, in quotes", what[l]);
      if (j == np && l == 0) {
        /* Triton's autotuner skips a key that names no argument */
        diag_warning(d, sema_loc(name), "autotune key '%s' is not a parameter of kernel '%s'; it is ignored", name->sval, fn->name);
        continue;
      }
      if (j == np)
        diag_error(d, sema_loc(name), "autotune %s '%s' is not a parameter of kernel '%s'", what[l], name->sval, fn->name);
      vec_push(a, outs[l], (void *)name->sval);
    }
  /* the buffers the config's pre_hook zeroes, and copies into and from: parameters of the kernel */
  for (int i = 0; cfg && i < cfg->pre_zero.n + cfg->pre_copy.n; i++) {
    bool zero = i < cfg->pre_zero.n;
    int c = i - cfg->pre_zero.n;
    Node *name = zero ? cfg->pre_zero.v[i] : cfg->pre_copy.v[c];
    int j = 0;
    while (j < np && strcmp(def->kids.v[j]->name, name->sval)) j++;
    if (j == np)
      diag_error(d, sema_loc(name), "the pre_hook of config %d %s '%s', which is not a parameter of kernel '%s'",
                 opt->config, zero ? "zeroes" : c % 2 ? "copies from" : "copies into", name->sval, fn->name);
    vec_push(a, zero ? &k->pre_zero : &k->pre_copy, (void *)name->sval);
  }
  k->tune_warmup = fn->autotune_warmup;
  k->tune_rep = fn->autotune_rep;
  SigEntry **descs = arena_alloc(a, sizeof(SigEntry *) * (size_t)(np + 1));
  bool *from_cfg = arena_alloc(a, sizeof(bool) * (size_t)(np + 1));
  bool *from_heur = arena_alloc(a, sizeof(bool) * (size_t)(np + 1));
  for (int j = 0; j < np; j++) {
    const char *pn = def->kids.v[j]->name;
    for (int c = 0; cfg && c < cfg->kwargs.n; c++)
      if (!strcmp(cfg->kwargs.v[c]->name, pn)) from_cfg[j] = true;
    for (int h = 0; h < fn->heuristics.n; h++)
      if (!strcmp(((Node *)fn->heuristics.v[h])->name, pn)) from_heur[j] = true;
  }
  PtrVec sig = parse_signature(S, opt->signature ? opt->signature : "");
  /* Which parameters the positional entries cover. */
  int n_free = 0, n_free_nometa = 0;
  for (int j = 0; j < np; j++) {
    if (origin[j]) continue;
    n_free++;
    if (!from_cfg[j] && !from_heur[j]) n_free_nometa++;
  }
  bool skip_meta = sig.n != n_free && sig.n <= n_free_nometa;
  int si = 0;
  for (int j = 0; j < np; j++) {
    Node *p = def->kids.v[j];
    if (origin[j]) continue;
    if (skip_meta && (from_cfg[j] || from_heur[j])) continue;
    if (si >= sig.n) {
      if (p->rhs || from_cfg[j] || from_heur[j]) continue; /* a default or a meta-parameter */
      StrBuf sb = {.arena = S->a};
      for (int q = 0; q < np; q++) sb_printf(&sb, "%s%s", q ? ", " : "", def->kids.v[q]->name);
      diag_error(d, sema_loc(def), "the signature has %d entr%s but kernel '%s' needs %d (%s)", sig.n,
                 sig.n == 1 ? "y" : "ies", fn->name, si + 1 + (np - j - 1), sb.s);
    }
    SigEntry *e = sig.v[si++];
    bool ce = sema_param_is_constexpr(S, p);
    if (ce && e->kind != SIG_CONST) {
      if (e->kind == SIG_SCALAR && !e->divisibility) {
        consts[j] = cv_dtype(S, ty_scalar(tc, e->dtype)); /* a dtype constexpr */
        origin[j] = "signature";
        continue;
      }
      diag_error_noreturnless(d, sema_loc(p), "parameter '%s' is a tl.constexpr, but the signature gives it a type", p->name);
      diag_note(d, e->loc, "this entry");
      diag_unwind(d);
    }
    if (!ce && e->kind == SIG_CONST && e->value->kind == CV_NONE) {
      consts[j] = e->value; /* None: the parameter becomes the constexpr None */
      origin[j] = "signature";
      continue;
    }
    if (!ce && e->kind == SIG_CONST) {
      diag_error_noreturnless(d, sema_loc(p), "parameter '%s' is not a tl.constexpr, but the signature gives it a constant", p->name);
      diag_note(d, e->loc, "this entry");
      diag_unwind(d);
    }
    if (ce) {
      consts[j] = e->value;
      origin[j] = "signature";
    } else if (e->kind == SIG_DESC) {
      /* a descriptor: its base pointer, then its shape and its strides, as
       * parameters of their own; the kernel's value is made from them */
      origin[j] = "param";
      SigEntry *parts = arena_alloc(a, sizeof *parts * (size_t)(1 + 2 * e->rank));
      /* what Triton's TensorDescriptor asserts of them, which the kernel
       * may assume and every launch checks: a 16-byte aligned base, the
       * strides but the last multiples of 16 bytes, the last 1 */
      int eb = dtype_bytes(e->dtype);
      for (int q = 0; q < 1 + 2 * e->rank; q++) {
        parts[q] = (SigEntry){.kind = q ? SIG_SCALAR : SIG_PTR, .dtype = q ? DT_I64 : e->dtype, .loc = e->loc, .index = e->index};
        if (q == 0) parts[q].divisibility = 16;
        else if (q == 2 * e->rank) parts[q].divisibility = 1;
        else if (q > e->rank && eb <= 16) parts[q].divisibility = 16 / eb;
        Var *v = sema_frame_var(S, desc_part(a, p->name, e->rank, q));
        v->is_param = true;
        v->param_index = k->params.n;
        v->type = q ? ty_scalar(tc, DT_I64) : ty_ptr(tc, ty_scalar(tc, e->dtype));
        vec_push(a, &k->param_sigs, &parts[q]);
        vec_push(a, &k->params, v);
        vec_push(a, &k->param_types, (void *)v->type);
      }
      descs[j] = e;
    } else {
      vec_push(a, &k->param_sigs, e);
      origin[j] = "param";
      Var *v = sema_frame_var(S, p->name);
      v->is_param = true;
      v->param_index = k->params.n;
      v->type = e->kind == SIG_PTR ? ty_ptr(tc, ty_scalar(tc, e->dtype)) : ty_scalar(tc, e->dtype);
      v->no_specialize = named_in(fn->do_not_specialize, p->name, j);
      vec_push(a, &k->params, v);
      vec_push(a, &k->param_types, (void *)v->type);
      if (e->divisibility == 1) {
        /* specialized to the value 1 */
        consts[j] = cv_int(S, 1);
      }
    }
  }
  if (si < sig.n) {
    SigEntry *e = sig.v[si];
    int ndef = 0;
    for (int q = 0; q < np; q++) ndef += origin[q] && !strcmp(origin[q], "-D");
    if (ndef)
      diag_error_noreturnless(d, sema_loc(def), "the signature has %d entries but kernel '%s' takes %d besides the %d set with -D",
                              sig.n, fn->name, si, ndef);
    else
      diag_error_noreturnless(d, sema_loc(def), "the signature has %d entries but kernel '%s' takes %d", sig.n, fn->name, si);
    diag_note(d, e->loc, "first extra entry");
    diag_unwind(d);
  }
  /* meta-parameters from the config, then heuristics, then defaults */
  for (int j = 0; j < np; j++) {
    Node *p = def->kids.v[j];
    if (origin[j] || !from_cfg[j]) continue;
    for (int c = 0; c < cfg->kwargs.n; c++)
      if (!strcmp(cfg->kwargs.v[c]->name, p->name)) {
        Val *v = sema_eval(S, cfg->kwargs.v[c]->lhs);
        if (v->kind != V_CONST) sema_error(S, cfg->kwargs.v[c]->lhs, "autotune config values must be constants");
        consts[j] = v->c;
        origin[j] = "config";
      }
  }
  PtrVec known_names = {0}, known_vals = {0};
  for (int j = 0; j < np; j++)
    if (consts[j] && strcmp(origin[j], "param")) {
      vec_push(a, &known_names, (void *)def->kids.v[j]->name);
      vec_push(a, &known_vals, val_const(S, consts[j]));
    }
  for (int h = 0; h < fn->heuristics.n; h++) {
    Node *kv = fn->heuristics.v[h];
    int j = 0;
    while (j < np && strcmp(def->kids.v[j]->name, kv->name)) j++;
    if (j == np) sema_error(S, kv, "heuristic for '%s': kernel '%s' has no such parameter", kv->name, fn->name);
    if (origin[j]) continue;
    Val *v = eval_heuristic(S, kv->lhs, &known_names, &known_vals, def);
    if (v->kind != V_CONST) sema_error(S, kv->lhs, "heuristic for '%s' does not give a constant", kv->name);
    consts[j] = v->c;
    origin[j] = "heuristic";
    vec_push(a, &known_names, (void *)kv->name);
    vec_push(a, &known_vals, v);
  }
  for (int j = 0; j < np; j++) {
    Node *p = def->kids.v[j];
    if (origin[j]) continue;
    if (!p->rhs) diag_error(d, sema_loc(p), "parameter '%s' has no value: give it in the signature or with -D %s=...", p->name, p->name);
    Val *v = sema_eval(S, p->rhs);
    if (v->kind != V_CONST) sema_error(S, p->rhs, "the default of '%s' must be a constant", p->name);
    if (!sema_param_is_constexpr(S, p))
      diag_error(d, sema_loc(p), "parameter '%s' is not a tl.constexpr and needs a signature entry", p->name);
    consts[j] = v->c;
    origin[j] = "default";
  }
  k->num_warps = opt->num_warps ? opt->num_warps : cfg && cfg->num_warps ? cfg->num_warps : fn->jit_num_warps ? fn->jit_num_warps : 4;
  k->num_stages = opt->num_stages ? opt->num_stages : cfg && cfg->num_stages ? cfg->num_stages : 3;

  /* bind parameters and run the body */
  PtrVec body = {0};
  S->out = &body;
  for (int j = 0; j < np; j++) {
    Node *p = def->kids.v[j];
    if (descs[j]) {
      const SigEntry *e = descs[j];
      TNode *ops[1 + 2 * MAX_RANK];
      for (int q = 0; q < 1 + 2 * e->rank; q++) {
        Var *v = sema_frame_var(S, desc_part(a, p->name, e->rank, q));
        ops[q] = to_rt(S, p, sema_read_val(S, p, sema_held_var_val(S, v, v->type)));
      }

      const Type *block = check_block_shape(S, p, ty_scalar(tc, e->dtype), e->rank, e->block);
      TNode *t = emit_call(S, p, CALL_make_tensor_descriptor, ty_desc(tc, block), ops, 1 + 2 * e->rank);
      sema_env_set(S, &f->env, p->name, sema_store_rt(S, p, arena_printf(a, "%s_desc", p->name), t));
      continue;
    }
    if (!strcmp(origin[j], "param")) {
      Var *v = sema_frame_var(S, p->name);
      if (consts[j]) {
        sema_env_set(S, &f->env, p->name, val_const(S, consts[j]));
        continue;
      }
      sema_env_set(S, &f->env, p->name, sema_held_var_val(S, v, v->type));
    } else {
      vec_push(a, &k->const_names, (void *)p->name);
      vec_push(a, &k->const_values, consts[j]);
      sema_env_set(S, &f->env, p->name, val_const(S, consts[j]));
    }
  }
  sema_exec_function_body(S, fn);
  k->body = sema_to_tlist(S, &body);
  k->notes = S->notes;
  sema_module_deps(S, k);
  *(Kernel **)out = k;
  return true;
}

Kernel *sema_kernel(Arena *a, Diags *d, TypeCache *tc, const Module *m, const SpecOptions *opt) {
  Kernel *k = NULL;
  return on_kernel(a, d, tc, m, opt, make_kernel, &k) ? k : NULL;
}

/* ---- a kernel's parameters, for hosts that build its signature (tilec_describe) ---------- */

/* s as a JSON string. */
static void json_str(StrBuf *sb, const char *s) {
  sb_putc(sb, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') sb_printf(sb, "\\%c", c);
    else if (c < 0x20) sb_printf(sb, "\\u%04x", c);
    else sb_putc(sb, (char)c);
  }
  sb_putc(sb, '"');
}

/* A constant as the Python literal cvalue_print writes, in a JSON string. */
static void json_value(Sema *S, StrBuf *sb, Node *n) {
  Val *v = sema_eval(S, n);
  if (v->kind != V_CONST) {
    sb_printf(sb, "null");
    return;
  }
  StrBuf lit = {.arena = S->a};
  cvalue_print(&lit, v->c);
  json_str(sb, lit.s ? lit.s : "");
}

static void json_names(StrBuf *sb, const char *key, const PtrVec *names) {
  sb_printf(sb, ", \"%s\": [", key);
  for (int i = 0, k = 0; i < names->n; i++) {
    const Node *n = names->v[i];
    if (n->kind != N_STR) continue;
    sb_printf(sb, "%s", k++ ? ", " : "");
    json_str(sb, n->sval);
  }
  sb_putc(sb, ']');
}

static bool describe(Sema *S, const SpecOptions *opt, Node *def, Frame *f, void *sb) {
  (void)opt;
  StrBuf *out = sb;
  JitFunc *fn = f->fn;
  sb_printf(out, "{\"name\": ");
  json_str(out, fn->name);
  sb_printf(out, ", \"line\": %d, \"params\": [", sema_loc(def).line);
  for (int j = 0; j < def->kids.n; j++) {
    Node *p = def->kids.v[j];
    sb_printf(out, "%s{\"name\": ", j ? ", " : "");
    json_str(out, p->name);
    sb_printf(out, ", \"constexpr\": %s, \"specialize\": %s, \"default\": ", sema_param_is_constexpr(S, p) ? "true" : "false",
              named_in(fn->do_not_specialize, p->name, j) ? "false" : "true");
    if (p->rhs) json_value(S, out, p->rhs);
    else sb_printf(out, "null");
    sb_printf(out, ", \"has_default\": %s}", p->rhs ? "true" : "false");
  }
  sb_printf(out, "], \"configs\": [");
  for (int c = 0; c < fn->configs.n; c++) {
    AutotuneConfig *cfg = fn->configs.v[c];
    sb_printf(out, "%s{\"kwargs\": {", c ? ", " : "");
    for (int i = 0; i < cfg->kwargs.n; i++) {
      sb_printf(out, "%s", i ? ", " : "");
      json_str(out, cfg->kwargs.v[i]->name);
      sb_printf(out, ": ");
      json_value(S, out, cfg->kwargs.v[i]->lhs);
    }
    sb_printf(out, "}, \"num_warps\": %d, \"num_stages\": %d}", cfg->num_warps, cfg->num_stages);
  }
  sb_printf(out, "], \"heuristics\": [");
  for (int h = 0; h < fn->heuristics.n; h++) {
    sb_printf(out, "%s", h ? ", " : "");
    json_str(out, ((Node *)fn->heuristics.v[h])->name);
  }
  sb_putc(out, ']');
  json_names(out, "key", &fn->autotune_keys);
  sb_printf(out, ", \"num_warps\": %d}\n", fn->jit_num_warps);
  return !S->d->errors;
}

bool sema_describe(Arena *a, Diags *d, TypeCache *tc, const Module *m, const SpecOptions *opt, StrBuf *out) {
  return on_kernel(a, d, tc, m, opt, describe, out);
}
