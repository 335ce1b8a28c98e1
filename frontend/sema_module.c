/*
 * sema_module.c — the module level, read the way Python binds names, without
 * running any of it.
 *
 * A kernel's name that is not local resolves in the module of the function
 * that reads it: through the Bindings parse_module.c recorded (imports, defs,
 * assignments), into Triton's namespaces, into other modules of the user's
 * project (found from the kernel file's package, -I folders and $TILEC_PATH,
 * parsed when first needed: sema_import.c), into `@jit` functions whose decorators — or
 * calls such as `K = triton.jit(f)` — are interpreted here, or into
 * module-level values evaluated by the same interpreter that runs kernels.
 *
 * Python runs whichever branch of a module-level `if`/`try` its host code
 * selects; tilec cannot run that code, so where a name is bound inside such
 * statements after its last unconditional binding, the first of those
 * bindings that resolves is taken (they are, in practice, spellings of one
 * thing for different Triton versions) and --emit=ast says which. Resolving
 * an alternative is tried quietly: its errors are caught and, if no
 * alternative resolves, reported as notes at each binding.
 */
#include "sema.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- trying quietly ----------------------------------------------------------------- */

/* The state an evaluation may leave changed when it fails half-way. */
typedef struct Attempt {
  jmp_buf jb, *unwind;
  DiagMark mark;
  Frame *f;
  PtrVec *out;
  int depth, mod_depth, import_depth, in_module;
  long work;
  const InlineSite *site;
} Attempt;

/* Saves the state; the caller then runs `if (!setjmp(t.jb)) ...`. */
static void attempt_begin(Sema *S, Attempt *t) {
  t->unwind = S->d->unwind;
  t->mark = diag_mark(S->d);
  t->f = S->f;
  t->out = S->out;
  t->depth = S->depth;
  t->mod_depth = S->mod_depth;
  t->import_depth = S->import_depth;
  t->in_module = S->in_module;
  t->work = S->work;
  t->site = S->d->site;
  S->d->unwind = &t->jb;
}

/* Ends an attempt; on failure returns the first line of the error it gave. */
static const char *attempt_end(Sema *S, Attempt *t, bool failed) {
  const char *why = NULL;
  if (failed && S->at_limit) {
    S->d->unwind = t->unwind;
    diag_unwind(S->d);
  }
  if (failed) {
    const char *msg = S->d->out.s ? S->d->out.s + t->mark.len : "";
    const char *e = strstr(msg, "error: ");
    e = e ? e + 7 : msg;
    size_t n = strcspn(e, "\n");
    why = arena_strndup(S->a, e, n);
    diag_rollback(S->d, t->mark);
    S->f = t->f;
    S->out = t->out;
    S->depth = t->depth;
    S->mod_depth = t->mod_depth;
    S->import_depth = t->import_depth;
    S->in_module = t->in_module;
    S->work = t->work;
    S->d->site = t->site;
  }
  S->d->unwind = t->unwind;
  return why;
}

const Module *sema_cur_mod(Sema *S) { return S->f && S->f->mod ? S->f->mod : S->m; }

/* ---- Triton's decorators and module-level calls --------------------------------------------------- */

/* Is path (a resolved V_MODULE's) Triton's `what` ("triton.jit")? Also under
 * its defining module: triton.runtime.jit.jit, triton.runtime.autotuner.autotune. */
bool sema_path_is(const char *path, const char *what) {
  if (!path) return false;
  if (!strcmp(path, what)) return true;
  const char *last = strrchr(path, '.');
  const char *wlast = strrchr(what, '.');
  if (!last || !wlast || strcmp(last, wlast) || strncmp(path, "triton.", 7)) return false;
  bool lang = !strncmp(what, "triton.language.", 16);
  return lang ? !strncmp(path, "triton.language.", 16) : strstr(path, ".language.") == NULL;
}

/* Evaluates a module-level expression of m (a decorator, a value), with
 * errors caught: NULL, and *why the error, when it cannot be. */
static Val *module_value(Sema *S, const Module *m, Node *e, Binding *b);

static Val *try_module_value(Sema *S, const Module *m, Node *e, const char **why) {
  Attempt t;
  Val *volatile v = NULL;
  attempt_begin(S, &t);
  if (!setjmp(t.jb)) v = module_value(S, m, e, NULL);
  const char *w = attempt_end(S, &t, v == NULL);
  if (why) *why = w;
  return v;
}

static const char *module_path_of(Sema *S, const Module *m, Node *e) {
  Val *v = try_module_value(S, m, e, NULL);
  return v && v->kind == V_MODULE && !v->mod ? v->path : NULL;
}

static int literal_int(Sema *S, Node *e, const char *what) {
  if (e->kind != N_INT || e->ival > 1024) {
    diag_warning(S->d, e->tok->loc, "%s is not an integer literal; ignored", what);
    return 0;
  }
  return (int)e->ival;
}

/* num_warps=N of a config or of triton.jit: an error at N unless Triton
 * would take it (a power of 2 from 1 to 32). */
static int literal_warps(Sema *S, Node *e) {
  if (e->kind == N_INT && !num_warps_valid((long long)e->ival))
    diag_error(S->d, e->tok->loc, "num_warps must be a power of 2 from 1 to 32, got %llu", (unsigned long long)e->ival);
  return literal_int(S, e, "num_warps");
}

/* `nargs['NAME']` where nargs is the pre_hook's parameter: the string node of NAME, or NULL. */
static Node *hook_arg(Node *e, const char *param) {
  if (e->kind != N_SUBSCRIPT || e->lhs->kind != N_NAME || strcmp(e->lhs->name, param) || e->rhs->kind != N_STR)
    return NULL;
  return e->rhs;
}

/* One call of a pre_hook whose parameter is `param`: `nargs['A'].zero_()`
 * (*copy_from NULL) or `nargs['A'].copy_(nargs['B'])`; the node of A, or NULL. */
static Node *hook_call(Node *e, const char *param, Node **copy_from) {
  *copy_from = NULL;
  if (e->kind != N_CALL || e->kwargs.n || e->lhs->kind != N_ATTR) return NULL;
  Node *dst = hook_arg(e->lhs->lhs, param);
  if (!strcmp(e->lhs->name, "zero_") && !e->kids.n) return dst;
  if (!strcmp(e->lhs->name, "copy_") && e->kids.n == 1 && (*copy_from = hook_arg(e->kids.v[0], param))) return dst;
  return NULL;
}

/* A config's pre_hook: tilec runs those that zero or copy buffers before a
 * launch, `lambda nargs: nargs['C'].zero_()` or `nargs['A'].copy_(nargs['B'])`
 * (or a tuple of such calls), as Triton runs the hook before each launch of
 * the config; other host code it cannot. */
static void read_pre_hook(Sema *S, AutotuneConfig *cfg, Node *h) {
  if (h->kind == N_NONE) return;
  bool ok = h->kind == N_LAMBDA && h->kids.n == 1 && !h->kids.v[0]->rhs;
  Node *body = ok ? h->lhs : NULL;
  PtrVec calls = {0};
  if (ok && (body->kind == N_TUPLE || body->kind == N_LIST))
    for (int i = 0; i < body->kids.n; i++) vec_push(S->a, &calls, body->kids.v[i]);
  else if (ok)
    vec_push(S->a, &calls, body);
  for (int i = 0; ok && i < calls.n; i++) {
    Node *from, *name = hook_call(calls.v[i], h->kids.v[0]->name, &from);
    if (name && !from) vec_push(S->a, &cfg->pre_zero, name);
    if (name && from) vec_push(S->a, &cfg->pre_copy, name), vec_push(S->a, &cfg->pre_copy, from);
    ok = name != NULL;
  }
  if (!ok)
    diag_error(S->d, h->tok->loc,
               "tilec runs a config's pre_hook only when it zeroes or copies buffers, as in "
               "`lambda nargs: nargs['c_ptr'].zero_()` or `nargs['a'].copy_(nargs['b'])`; other host code cannot run "
               "before a launch");
}

/* triton.Config({'BLOCK': 128, ...}, num_warps=4, num_stages=3) */
static bool read_config(Sema *S, const Module *m, JitFunc *f, Node *c) {
  if (c->kind != N_CALL || !sema_path_is(module_path_of(S, m, c->lhs), "triton.Config") || c->kids.n < 1 ||
      c->kids.v[0]->kind != N_DICT)
    return false;
  AutotuneConfig *cfg = arena_alloc(S->a, sizeof *cfg);
  cfg->tok = c->tok;
  Node *dict = c->kids.v[0];
  PtrVec kw = {0};
  for (int i = 0; i + 1 < dict->kids.n; i += 2) {
    Node *k = dict->kids.v[i];
    if (k->kind != N_STR) return false;
    Node *kv = arena_alloc(S->a, sizeof *kv);
    kv->kind = N_KWARG;
    kv->tok = k->tok;
    kv->name = k->sval;
    kv->lhs = dict->kids.v[i + 1];
    vec_push(S->a, &kw, kv);
  }
  cfg->kwargs.v = (Node **)kw.v;
  cfg->kwargs.n = kw.n;
  for (int i = 0; i < c->kwargs.n; i++) {
    Node *k = c->kwargs.v[i];
    if (!strcmp(k->name, "num_warps")) cfg->num_warps = literal_warps(S, k->lhs);
    if (!strcmp(k->name, "num_stages")) {
      /* 0, as 1, is no pipelining (0 in a config would read as "not given") */
      cfg->num_stages = literal_int(S, k->lhs, "num_stages");
      if (!cfg->num_stages && k->lhs->kind == N_INT) cfg->num_stages = 1;
    }
    if (!strcmp(k->name, "pre_hook")) read_pre_hook(S, cfg, k->lhs);
  }
  vec_push(S->a, &f->configs, cfg);
  return true;
}

static void copy_vec(Sema *S, PtrVec *v) {
  PtrVec c = {0};
  for (int i = 0; i < v->n; i++) vec_push(S->a, &c, v->v[i]);
  *v = c;
}

/* The function `base` with decorator `d` (evaluated in m) applied; `base`
 * itself when d is none of Triton's. call_form: d is `triton.jit(f, ...)`
 * itself, whose first argument is the function. */
static JitFunc *decorate(Sema *S, const Module *m, JitFunc *base, Node *d) {
  Node *callee = d->kind == N_CALL ? d->lhs : d;
  const char *path = module_path_of(S, m, callee);
  bool jit = sema_path_is(path, "triton.jit"), tune = sema_path_is(path, "triton.autotune");
  bool heur = sema_path_is(path, "triton.heuristics");
  bool cfn = sema_path_is(path, "triton.constexpr_function") || sema_path_is(path, "triton.language.constexpr_function");
  if (!jit && !tune && !heur && !cfn) return base;
  JitFunc *f = arena_alloc(S->a, sizeof *f);
  *f = *base;
  PtrVec *vecs[] = {&f->configs, &f->heuristics, &f->autotune_keys, &f->autotune_reset, &f->autotune_restore,
                    &f->do_not_specialize};
  for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++) copy_vec(S, vecs[i]);
  if (cfn) {
    f->constexpr_fn = true;
    return f;
  }
  if (jit) {
    f->is_jit = true;
    for (int i = 0; d->kind == N_CALL && i < d->kwargs.n; i++) {
      Node *k = d->kwargs.v[i];
      if (!strcmp(k->name, "num_warps")) f->jit_num_warps = literal_warps(S, k->lhs);
      if (!strcmp(k->name, "do_not_specialize") && (k->lhs->kind == N_LIST || k->lhs->kind == N_TUPLE))
        for (int j = 0; j < k->lhs->kids.n; j++) vec_push(S->a, &f->do_not_specialize, k->lhs->kids.v[j]);
    }
    return f;
  }
  if (d->kind != N_CALL) return f;
  if (tune) {
    for (int i = 0; i < d->kwargs.n; i++) {
      Node *k = d->kwargs.v[i];
      if (!strcmp(k->name, "configs")) {
        bool ok = k->lhs->kind == N_LIST;
        for (int j = 0; ok && j < k->lhs->kids.n; j++) ok = read_config(S, m, f, k->lhs->kids.v[j]);
        if (!ok) {
          f->configs.n = 0;
          diag_warning(S->d, k->lhs->tok->loc,
                       "autotune configs are computed by host code and cannot be read; "
                       "give the meta-parameters in the signature or with -D");
        }
      } else if (!strcmp(k->name, "warmup") || !strcmp(k->name, "rep")) {
        Node *e = k->lhs;
        double v = e->kind == N_INT ? (double)e->ival : e->kind == N_FLOAT ? e->fval : -1;
        if (v < 0 || v > 100000)
          diag_warning(S->d, e->tok->loc, "autotune %s is a number of ms from 0 to 100000; ignored", k->name);
        else
          *(!strcmp(k->name, "warmup") ? &f->autotune_warmup : &f->autotune_rep) = (int)(v + 0.5);
      } else if (!strcmp(k->name, "prune_configs_by")) {
        diag_warning(S->d, k->tok->loc,
                     "prune_configs_by is host code that tilec does not run: every config is timed");
      } else if (!strcmp(k->name, "do_bench")) {
        diag_warning(S->d, k->tok->loc, "do_bench is host code that tilec does not run: it times configs itself");
      } else if (!strcmp(k->name, "pre_hook") || !strcmp(k->name, "post_hook")) {
        if (k->lhs->kind != N_NONE)
          diag_error(S->d, k->tok->loc,
                     "@triton.autotune's %s is host code that tilec cannot run; a config's pre_hook that zeroes "
                     "buffers can (triton.Config(..., pre_hook=lambda nargs: nargs['c_ptr'].zero_()))", k->name);
      } else if (!strcmp(k->name, "use_cuda_graph") || !strcmp(k->name, "cache_results")) {
        /* tilec times each launch with CUDA events, and always keeps its choices on disk */
      } else if (!strcmp(k->name, "key") || !strcmp(k->name, "reset_to_zero") || !strcmp(k->name, "restore_value")) {
        PtrVec *names = !strcmp(k->name, "key") ? &f->autotune_keys : !strcmp(k->name, "reset_to_zero") ? &f->autotune_reset
                                                                                                        : &f->autotune_restore;
        for (int j = 0; (k->lhs->kind == N_LIST || k->lhs->kind == N_TUPLE) && j < k->lhs->kids.n; j++)
          vec_push(S->a, names, k->lhs->kids.v[j]);
      } else {
        diag_warning(S->d, k->tok->loc, "@triton.autotune has no argument '%s' that tilec knows; it is ignored", k->name);
      }
    }
    return f;
  }
  if (d->kids.n != 1 || d->kids.v[0]->kind != N_DICT) {
    diag_warning(S->d, d->tok->loc, "heuristics that are not a dictionary literal are ignored");
    return f;
  }
  Node *dict = d->kids.v[0];
  for (int i = 0; i + 1 < dict->kids.n; i += 2) {
    Node *k = dict->kids.v[i];
    if (k->kind != N_STR) continue;
    Node *kv = arena_alloc(S->a, sizeof *kv);
    kv->kind = N_KWARG;
    kv->tok = k->tok;
    kv->name = k->sval;
    kv->lhs = dict->kids.v[i + 1];
    vec_push(S->a, &f->heuristics, kv);
  }
  return f;
}

/* A def with its decorators applied, bottom first, as Python applies them. */
static JitFunc *def_func(Sema *S, FuncDef *fd) {
  if (fd->fn) return fd->fn;
  JitFunc *f = arena_alloc(S->a, sizeof *f);
  f->fd = fd;
  f->mod = fd->mod;
  f->name = fd->name;
  fd->fn = f; /* a decorator that names its own function sees it undecorated */
  for (int i = fd->decorators.n - 1; i >= 0; i--) f = decorate(S, fd->mod, f, fd->decorators.v[i]);
  if (f->is_jit && fd->async_tok) diag_error(S->d, fd->async_tok->loc, "a @triton.jit function cannot be 'async'");
  if (!f->is_jit && (f->configs.n || f->heuristics.n))
    diag_error(S->d, fd->def->loc, "autotune/heuristics decorators need @triton.jit below them");
  fd->fn = f;
  return f;
}

Node *sema_func_def(Sema *S, JitFunc *fn) {
  if (fn->def) return fn->def;
  if (!fn->fd->node) fn->fd->node = parse_funcdef(S->a, S->d, fn->fd);
  fn->def = fn->fd->node;
  return fn->def;
}

static Val *func_val(Sema *S, JitFunc *f) {
  Val *v = sema_new_val(S, V_FUNC);
  v->fn = f;
  return v;
}

/* Evaluates e in m's scope, as its module level would: with Triton's
 * function-making calls (`triton.jit(f, ...)`, `triton.heuristics({...})(f)`,
 * `triton.autotune(...)(f)`) and `tl.constexpr(v)` understood. */
static Val *module_value(Sema *S, const Module *m, Node *e, Binding *b) {
  if (b && b->cache) return b->cache;
  Frame gf = {.mod = m, .site = S->f ? S->f->site : NULL};
  Frame *saved = S->f;
  PtrVec *saved_out = S->out, scratch = {0};
  S->f = &gf;
  S->out = &scratch;
  S->in_module++;
  long work = S->work; /* the kernel's budget is for the kernel */
  if (++S->mod_depth > 64) sema_limit_error(S, e, "module-level values refer to each other too deeply");
  sema_enter(S, e);
  Val *v = NULL;
  if (e->kind == N_CALL) {
    Node *callee = e->lhs;
    if (callee->kind == N_CALL && e->kids.n == 1 && !e->kwargs.n) {
      /* decorator(args)(f) */
      const char *p = module_path_of(S, m, callee->lhs);
      if (sema_path_is(p, "triton.autotune") || sema_path_is(p, "triton.heuristics") || sema_path_is(p, "triton.jit")) {
        Val *target = module_value(S, m, e->kids.v[0], NULL);
        if (target->kind != V_FUNC) sema_error(S, e->kids.v[0], "%s applies to a function, not %s", p, val_desc(S, target));
        v = func_val(S, decorate(S, m, target->fn, callee));
      }
    } else if (e->kids.n >= 1) {
      const char *p = module_path_of(S, m, callee);
      if (sema_path_is(p, "triton.jit") || sema_path_is(p, "triton.constexpr_function")) {
        Val *target = module_value(S, m, e->kids.v[0], NULL);
        if (target->kind != V_FUNC) sema_error(S, e->kids.v[0], "%s applies to a function, not %s", p, val_desc(S, target));
        v = func_val(S, decorate(S, m, target->fn, e));
      } else if (sema_path_is(p, "triton.language.constexpr") && e->kids.n == 1 && !e->kwargs.n) {
        v = module_value(S, m, e->kids.v[0], NULL);
      }
    }
  }
  if (!v) v = sema_eval(S, e);
  if (v->kind == V_RT || scratch.n) sema_error(S, e, "this module-level value is computed at run time; it cannot be a global");
  sema_leave(S);
  S->mod_depth--;
  S->in_module--;
  S->work = work;
  S->out = saved_out;
  S->f = saved;
  if (b && v->kind == V_FUNC) b->cache = v;
  return v;
}

/* ---- bindings ------------------------------------------------------------------------------- */

static Val *undef(Sema *S, const char *why) {
  Val *v = sema_new_val(S, V_UNDEF);
  v->why = why;
  return v;
}

static const char *bind_text(Sema *S, const Binding *b) {
  const char *path = b->path ? sema_shown_name(S, b->path) : NULL;
  switch (b->kind) {
  case BIND_IMPORT: return strcmp(b->name, b->path) ? arena_printf(S->a, "import %s as %s", path, b->name)
                                                    : arena_printf(S->a, "import %s", path);
  case BIND_IMPORT_FROM: {
    const char *dots = arena_strndup(S->a, "..........", (size_t)(b->level < 10 ? b->level : 10));
    return strcmp(b->name, b->attr) ? arena_printf(S->a, "from %s%s import %s as %s", dots, path, b->attr, b->name)
                                    : arena_printf(S->a, "from %s%s import %s", dots, path, b->attr);
  }
  case BIND_DEF: return arena_printf(S->a, "def %s", b->name);
  case BIND_CLASS: return arena_printf(S->a, "class %s", b->name);
  case BIND_ASSIGN: return arena_printf(S->a, "%s = ...", b->name);
  case BIND_STAR: return arena_printf(S->a, "from %s import *", path);
  }
  return "";
}

/* The value of a dotted name in the user's modules or Triton's: module
 * `dotted`, or attribute chains inside one. NULL when nothing has it.
 * The longest prefix that is a module is found first, then the names after
 * it are looked up one by one: loops, as a name may have any number of
 * parts. The prefixes of a module are folders, so the first prefix that is
 * no module ends the search (as a prefix too long to be a path does). */
static Val *dotted_value(Sema *S, Node *at, const char *dotted, bool quiet) {
  if (!strcmp(dotted, "triton") || !strncmp(dotted, "triton.", 7)) return sema_triton_path(S, at, dotted, quiet);
  size_t n = strlen(dotted), len = 0;
  const Module *m = NULL;
  for (size_t end = strcspn(dotted, "."); end < PATH_MAX; end += 1 + strcspn(dotted + end + 1, ".")) {
    const Module *p = sema_load_module(S, end == n ? dotted : arena_strndup(S->a, dotted, end));
    if (!p) break;
    m = p;
    len = end;
    if (end == n) break;
  }
  if (!m) return NULL;
  Val *v = sema_new_val(S, V_MODULE);
  v->path = m->name;
  v->mod = m;
  for (const char *p = dotted + len; *p;) {
    const char *part = p + 1, *end = strchr(part, '.');
    p = end ? end : part + strlen(part);
    if (!v || v->kind != V_MODULE || !v->mod) return NULL;
    v = sema_module_name(S, v->mod, at, arena_strndup(S->a, part, (size_t)(p - part)), quiet);
  }
  return v;
}

static Val *import_value(Sema *S, const Module *m, Binding *b, Node *at, bool quiet) {
  const char *path = b->path;
  if (b->kind != BIND_IMPORT && b->level) {
    /* relative: from the module's package, one level up per dot after the first */
    const char *base = m->package;
    for (int i = 1; i < b->level; i++) {
      const char *dot = strrchr(base, '.');
      if (!*base) sema_error(S, at, "'%s' goes above the top of package '%s'", bind_text(S, b), m->package);
      base = dot ? arena_strndup(S->a, base, (size_t)(dot - base)) : "";
    }
    if (!*base) sema_error(S, at, "'%s' is a relative import outside of a package", bind_text(S, b));
    path = *path ? arena_printf(S->a, "%s.%s", base, path) : base;
  }
  if (b->kind == BIND_IMPORT) {
    Val *v = dotted_value(S, at, path, quiet);
    if (v) return v;
    if (quiet) sema_error(S, at, "module '%s' is not one of Triton's, and no search folder has it", sema_shown_name(S, path));
    v = sema_new_val(S, V_MODULE); /* torch and the like: an error where a kernel uses it */
    v->path = path;
    return v;
  }
  Val *os = sema_os_attr(S, path, b->attr);
  if (os) return os;
  Val *mod = dotted_value(S, at, path, true);
  if (mod && mod->kind == V_MODULE && mod->mod) {
    Val *v = sema_module_name(S, mod->mod, at, b->attr, quiet);
    if (!v) v = dotted_value(S, at, arena_printf(S->a, "%s.%s", path, b->attr), quiet);
    if (!v) sema_error(S, at, "module '%s' has no name '%s'", sema_shown_name(S, path), b->attr);
    return v;
  }
  if (mod && mod->kind == V_MODULE) return sema_triton_path(S, at, arena_printf(S->a, "%s.%s", mod->path, b->attr), quiet);
  if (!strncmp(path, "triton.language.extra.hip", 25) || !strncmp(path, "triton.language.extra.amd", 25))
    sema_error(S, at, "'%s': module '%s' is AMD's backend (HIP); tilec compiles for NVIDIA GPUs, whose functions are "
               "in triton.language.extra.cuda", bind_text(S, b), sema_shown_name(S, path));
  sema_error(S, at, "'%s': module '%s' is not one of Triton's, and no search folder has it "
             "(the kernel file's package, -I and TILEC_PATH are searched)", bind_text(S, b), sema_shown_name(S, path));
}

/* Is e an annotation or marker meaning tl.constexpr? */
static bool is_constexpr_annot(Sema *S, const Module *m, Node *e) {
  if (!e) return false;
  if (e->kind == N_STR) return !strcmp(e->sval, "tl.constexpr") || !strcmp(e->sval, "constexpr");
  return sema_path_is(module_path_of(S, m, e), "triton.language.constexpr");
}

static const char *define_for(Sema *S, const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < S->defines.n; i++) {
    const char *d = S->defines.v[i];
    if (!strncmp(d, name, n) && d[n] == '=') return d + n + 1;
  }
  return NULL;
}

static Val *assign_value(Sema *S, const Module *m, Binding *b, Node *at) {
  const char *def = m == S->mods.v[0] ? define_for(S, b->name) : NULL;
  if (def) return val_const(S, sema_define_value(S, def));
  bool marked = is_constexpr_annot(S, m, b->annot);
  Node *value = b->value;
  if (value && value->kind == N_CALL && value->kids.n == 1 && !value->kwargs.n &&
      sema_path_is(module_path_of(S, m, value->lhs), "triton.language.constexpr")) {
    marked = true;
    value = value->kids.v[0];
  }
  const char *why = NULL;
  Val *v = value ? try_module_value(S, m, value, &why) : NULL;
  if (v && b->value == value && v->kind == V_FUNC) b->cache = v;
  if (!v || (marked && v->kind != V_CONST && v->kind != V_TUPLE)) {
    if (marked)
      sema_error(S, at, "constexpr global '%s' (%s:%d) is computed by host code that tilec does not run%s%s; "
                 "set it with -D %s=VALUE", b->name, m->src->name, b->tok->loc.line, why ? ": " : "", why ? why : "", b->name);
    if (!S->in_module)
      sema_error(S, at, "global '%s' is not a tl.constexpr; kernels can only read constexpr globals (write '%s = tl.constexpr(...)')",
                 b->name, b->name);
    sema_error(S, at, "global '%s' (%s:%d) is computed by host code that tilec does not run%s%s; set it with -D %s=VALUE",
               b->name, m->src->name, b->tok->loc.line, why ? ": " : "", why ? why : "", b->name);
  }
  /* Triton lets kernels read constexpr globals, functions and modules; a plain
   * number is for other globals' values only */
  if ((v->kind == V_CONST || v->kind == V_TUPLE) && !marked && !S->in_module)
    sema_error(S, at, "global '%s' is not a tl.constexpr; kernels can only read constexpr globals (write '%s = tl.constexpr(...)')",
               b->name, b->name);
  return v;
}

static Val *binding_value(Sema *S, const Module *m, Binding *b, Node *at, bool quiet) {
  switch (b->kind) {
  case BIND_IMPORT: case BIND_IMPORT_FROM: {
    /* modules may import each other in a cycle, which Python finds when it runs them */
    if (++S->import_depth > 64) {
      S->at_limit = true;
      S->d->site = S->f ? S->f->site : NULL;
      diag_error(S->d, b->line ? b->line->loc : b->tok->loc, "imports refer to each other more than 64 deep "
                 "(a circular import?)");
    }
    sema_enter(S, at);
    Val *v = import_value(S, m, b, at, quiet);
    sema_leave(S);
    S->import_depth--;
    return v;
  }
  case BIND_DEF: return func_val(S, def_func(S, b->def));
  case BIND_CLASS: return undef(S, arena_printf(S->a, "'%s' is a class of host code; kernels cannot use it", b->name));
  case BIND_ASSIGN: return assign_value(S, m, b, at);
  case BIND_STAR: break;
  }
  unreachable();
}

static Val *try_binding(Sema *S, const Module *m, Binding *b, Node *at, const char **why) {
  Attempt t;
  Val *volatile v = NULL;
  attempt_begin(S, &t);
  if (!setjmp(t.jb)) {
    Val *r = binding_value(S, m, b, at, true);
    if (!r) r = binding_value(S, m, b, at, false); /* for its error */
    if (r->kind == V_UNDEF) sema_error(S, at, "%s", r->why);
    v = r;
  }
  *why = attempt_end(S, &t, v == NULL);
  return v;
}

static void note_choice(Sema *S, const Module *m, const char *name, Binding *b, int nalt) {
  sema_note(S, arena_printf(S->a, "%s:%d: '%s' is '%s', the first of %d alternatives that tilec can resolve",
                            m->src->name, b->tok->loc.line, name, bind_text(S, b), nalt));
}

/* A name no statement of m binds, from its `from X import *`s, the last first. */
static Val *star_name(Sema *S, const Module *m, Node *at, const char *name) {
  if (name[0] == '_') return NULL; /* a star import leaves out private names */
  int lo, hi;
  module_bindings_of(m, "*", &lo, &hi);
  for (int k = hi - 1; k >= lo; k--) {
    Binding *b = m->bindings.v[m->by_name[k]];
    if (b->kind != BIND_STAR) continue;
    Binding from = *b;
    from.kind = BIND_IMPORT;
    if (++S->mod_depth > 64) sema_limit_error(S, at, "star imports refer to each other too deeply");
    sema_enter(S, at);
    const char *why;
    Val *mod = try_binding(S, m, &from, at, &why);
    Val *v = NULL;
    if (mod && mod->kind == V_MODULE && mod->mod) v = sema_module_name(S, mod->mod, at, name, true);
    else if (mod && mod->kind == V_MODULE) v = sema_triton_path(S, at, arena_printf(S->a, "%s.%s", mod->path, name), true);
    sema_leave(S);
    S->mod_depth--;
    if (v) return v;
  }
  return NULL;
}

Val *sema_module_name(Sema *S, const Module *m, Node *at, const char *name, bool quiet) {
  /* the bindings of name, in file order (k indexes m->by_name) */
  int lo, hi, last = -1, first_alt = -1, nalt = 0;
  module_bindings_of(m, name, &lo, &hi);
  for (int k = lo; k < hi; k++) {
    Binding *b = m->bindings.v[m->by_name[k]];
    if (b->group == 0) {
      last = m->by_name[k];
      first_alt = -1;
      nalt = 0;
    } else {
      if (first_alt < 0) first_alt = k;
      nalt++;
    }
  }
  if (last < 0 && first_alt < 0) return star_name(S, m, at, name);
  if (first_alt < 0) return binding_value(S, m, m->bindings.v[last], at, quiet);
  PtrVec whys = {0};
  for (int k = first_alt; k < hi; k++) {
    Binding *b = m->bindings.v[m->by_name[k]];
    const char *why;
    Val *v = try_binding(S, m, b, at, &why);
    if (v) {
      if (nalt + (last >= 0) > 1) note_choice(S, m, name, b, nalt + (last >= 0));
      return v;
    }
    vec_push(S->a, &whys, (void *)why);
  }
  if (last >= 0) return binding_value(S, m, m->bindings.v[last], at, quiet);
  if (quiet) sema_error(S, at, "no binding of '%s' resolves", name);
  diag_error_noreturnless(S->d, sema_loc(at), "'%s' is bound only by module-level statements that tilec cannot resolve", name);
  for (int k = first_alt, w = 0; k < hi; k++) {
    Binding *b = m->bindings.v[m->by_name[k]];
    const char *why = whys.v[w++], *what = bind_text(S, b);
    if (strstr(why, what)) diag_note(S->d, b->line ? b->line->loc : b->tok->loc, "%s", why);
    else diag_note(S->d, b->line ? b->line->loc : b->tok->loc, "%s: %s", what, why);
  }
  diag_unwind(S->d);
}

/* ---- the kernel ------------------------------------------------------------------------------ */

/* The kernel chosen, with the warnings its interpretation gave. */
static JitFunc *with_warnings(Sema *S, JitFunc *k, const char *warnings, intptr_t n) {
  sb_append(&S->d->out, warnings, strlen(warnings));
  S->d->warnings += (int)n;
  return k;
}

/* used[i]: whether one of the module's @jit functions other than fns[i]
 * has a NAME token naming fns[i] (fn_at[binding]: its index + 1, 0 for
 * none) in its text. Each function's tokens are read once and looked up
 * in the module's sorted index of bindings, so that a file of many
 * functions costs its length, not its length times their number. */
static void mentioned(const Module *m, const PtrVec *fns, const int *fn_at, bool *used) {
  for (int j = 0; j < fns->n; j++) {
    const JitFunc *g = fns->v[j];
    if (!g->fd || g->fd->mod != m) continue;
    for (const Token *t = g->fd->def + 2; t < g->fd->end; t++) {
      if (t->kind != TK_NAME) continue;
      int lo, hi;
      module_bindings_of(m, t->sval, &lo, &hi);
      for (int k = lo; k < hi; k++) {
        int f = fn_at[m->by_name[k]] - 1;
        if (f >= 0 && f != j) used[f] = true;
      }
    }
  }
}

/* Is e a call that makes a function the way module_value understands:
 * `triton.jit(f)`, `triton.autotune(...)(f)`, `triton.heuristics(...)(f)`?
 * Only the callee is evaluated (a dotted name), never the call: host code
 * that no kernel reaches (`a = torch.randn(...)`) is never run. */
static bool makes_function(Sema *S, const Module *m, Node *e) {
  if (e->kind != N_CALL) return false;
  Node *callee = e->lhs;
  if (callee->kind == N_CALL) callee = callee->lhs;
  if (callee->kind != N_NAME && callee->kind != N_ATTR) return false;
  const char *p = module_path_of(S, m, callee);
  return sema_path_is(p, "triton.jit") || sema_path_is(p, "triton.autotune") || sema_path_is(p, "triton.heuristics");
}

/* The module's kernels, in file order (only those named `only` when it is
 * not NULL): their names, functions, the warnings each gave and their
 * count; fn_at as mentioned() reads it. */
typedef struct {
  PtrVec names, fns, said, nsaid;
  int *fn_at; /* binding i gave fns[fn_at[i] - 1] */
} Kernels;

static void find_kernels(Sema *S, const Module *m, const char *only, Kernels *K) {
  *K = (Kernels){.fn_at = arena_alloc(S->a, sizeof *K->fn_at * (size_t)(m->bindings.n + 1))};
  /* A name bound many times has one value, the module's: it is tried at
   * its first binding that could make a kernel, and, when that one is an
   * assignment and does not give a kernel, once more at its first def,
   * which reports the def's errors. visit[i]: 0 not tried at binding i; 1
   * tried; k + 2 tried unless binding k gave a kernel. */
  int *visit = arena_alloc(S->a, sizeof *visit * (size_t)(m->bindings.n + 1));
  for (int k = 0; k < m->bindings.n;) {
    int lo, hi, first = -1;
    const char *name = ((Binding *)m->bindings.v[m->by_name[k]])->name;
    module_bindings_of(m, name, &lo, &hi);
    for (int j = lo; j < hi && (!only || !strcmp(name, only)); j++) {
      int i = m->by_name[j];
      Binding *b = m->bindings.v[i];
      bool def = b->kind == BIND_DEF;
      if (!def && !(b->kind == BIND_ASSIGN && b->value && makes_function(S, m, b->value))) continue;
      if (first < 0) {
        first = i;
        visit[i] = 1;
        if (def) break;
      } else if (def) {
        visit[i] = first + 2;
        break;
      }
    }
    k = hi;
  }
  for (int i = 0; i < m->bindings.n; i++) {
    Binding *b = m->bindings.v[i];
    if (!visit[i] || (visit[i] > 1 && K->fn_at[visit[i] - 2])) continue;
    /* a def's errors are the kernel's; the warnings its decorators give are
     * kept, and given for the kernel chosen only */
    Val *volatile v = NULL;
    DiagMark mark = diag_mark(S->d);
    if (b->kind == BIND_DEF) {
      v = sema_module_name(S, m, NULL, b->name, false);
    } else {
      Attempt t;
      attempt_begin(S, &t);
      if (!setjmp(t.jb)) v = sema_module_name(S, m, NULL, b->name, true);
      attempt_end(S, &t, v == NULL);
    }
    const char *warnings = arena_strndup(S->a, S->d->out.s ? S->d->out.s + mark.len : "", S->d->out.len - mark.len);
    intptr_t nwarnings = S->d->warnings - mark.warnings;
    diag_rollback(S->d, mark);
    if (!v || v->kind != V_FUNC || !v->fn->is_jit || v->fn->constexpr_fn) continue;
    vec_push(S->a, &K->names, (void *)b->name);
    vec_push(S->a, &K->fns, v->fn);
    K->fn_at[i] = K->fns.n;
    vec_push(S->a, &K->said, (void *)warnings);
    vec_push(S->a, &K->nsaid, (void *)nwarnings);
  }
}

/* The kernel: the one -k names, or the file's only @jit function that no
 * other one of its @jit functions calls. Only the bindings that can make
 * a kernel are evaluated (defs, and assignments of makes_function's
 * forms); with -k, those of that name, and the others only to list them
 * when it names none. */
JitFunc *sema_pick_kernel(Sema *S, const SpecOptions *opt) {
  const Module *m = S->mods.v[0];
  Kernels K;
  if (opt->kernel) {
    find_kernels(S, m, opt->kernel, &K);
    if (K.fns.n) return with_warnings(S, K.fns.v[0], K.said.v[0], (intptr_t)K.nsaid.v[0]);
  }
  find_kernels(S, m, NULL, &K);
  PtrVec names = K.names, fns = K.fns, said = K.said, nsaid = K.nsaid;
  int *fn_at = K.fn_at;
  if (opt->kernel) {
    StrBuf sb = {.arena = S->a};
    for (int i = 0; i < names.n; i++) sb_printf(&sb, "%s'%s'", i ? ", " : "", (const char *)names.v[i]);
    diag_plain_error(S->d, "%s: no @triton.jit function named '%s'%s%s", m->src->name, opt->kernel,
                     names.n ? "; the file has " : " (the file has none)", sb.s ? sb.s : "");
    diag_unwind(S->d);
  }
  PtrVec kernels = {0};
  bool *used = arena_alloc(S->a, sizeof *used * (size_t)(fns.n + 1));
  mentioned(m, &fns, fn_at, used);
  for (int i = 0; i < fns.n; i++)
    if (!used[i]) vec_push(S->a, &kernels, (void *)(intptr_t)i);
  if (kernels.n == 1) {
    intptr_t i = (intptr_t)kernels.v[0];
    return with_warnings(S, fns.v[i], said.v[i], (intptr_t)nsaid.v[i]);
  }
  if (fns.n == 0) {
    diag_plain_error(S->d, "%s: no @triton.jit function in this file", m->src->name);
    diag_unwind(S->d);
  }
  StrBuf sb = {.arena = S->a};
  for (int i = 0; i < (kernels.n ? kernels.n : names.n); i++)
    sb_printf(&sb, "%s'%s'", i ? ", " : "", (const char *)names.v[kernels.n ? (intptr_t)kernels.v[i] : i]);
  diag_plain_error(S->d, "%s: the file has several kernels (%s); choose one with -k", m->src->name, sb.s);
  diag_unwind(S->d);
}

/* What kernel code may read of a module-level value. */
static Val *readable(Sema *S, Node *at, const char *name, Val *v) {
  if (v->kind == V_UNDEF) sema_error(S, at, "%s", v->why);
  if (v->kind == V_FUNC && !v->fn->is_jit && !v->fn->constexpr_fn && !S->in_module)
    sema_error(S, at, "'%s' is a host function, not a @triton.jit function; kernels can only call @jit functions", name);
  return v;
}

Val *sema_read_module_name(Sema *S, Node *at, const char *name) {
  Val *v = sema_module_name(S, sema_cur_mod(S), at, name, false);
  return v ? readable(S, at, name, v) : NULL;
}

Val *sema_user_module_attr(Sema *S, Node *at, Val *mod) {
  Val *v = sema_module_name(S, mod->mod, at, at->name, false);
  if (!v) v = dotted_value(S, at, arena_printf(S->a, "%s.%s", mod->path, at->name), false);
  if (!v) sema_error(S, at, "module '%s' has no name '%s'", sema_shown_name(S, mod->path), at->name);
  return readable(S, at, at->name, v);
}
