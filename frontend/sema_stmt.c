/*
 * sema_stmt.c — statements: blocks, assignments, if, for (range,
 * tl.range, tl.static_range), while, return, and the budget that bounds
 * unrolling and inlining.
 */
#include "sema.h"

/* ---- statements ----------------------------------------------------------------- */

static void assign_target(Sema *S, Node *target, Val *v) {
  switch (target->kind) {
  case N_NAME: sema_bind(S, target, target->name, v); return;
  case N_TUPLE: case N_LIST: {
    int n = target->kids.n;
    /* before the count: `a, *b = t` is short of names only for want of '*' */
    for (int i = 0; i < n; i++)
      if (target->kids.v[i]->kind == N_STARRED)
        sema_error(S, target->kids.v[i], "starred assignment targets are not supported in kernels, as in Triton; "
                   "name every element (a, b, c = t), or index the tuple (t[1])");
    int have = v->kind == V_TUPLE ? v->n : (v->kind == V_CONST && v->c->kind == CV_TUPLE) ? v->c->nelems : -1;
    if (have < 0) sema_error(S, target, "cannot unpack %s into %d names", val_desc(S, v), n);
    if (have != n) sema_error(S, target, "cannot unpack a tuple of %d values into %d names", have, n);
    for (int i = 0; i < n; i++) {
      Val *e = v->kind == V_TUPLE ? v->elems[i] : val_const(S, v->c->elems[i]);
      assign_target(S, target->kids.v[i], e);
    }
    return;
  }
  case N_SUBSCRIPT: sema_error(S, target, "blocks are immutable: assigning to an element is not supported");
  case N_ATTR: sema_error(S, target, "assigning to an attribute is not supported in kernels");
  case N_STARRED: sema_error(S, target, "starred assignment targets are not supported in kernels, as in Triton");
  default: sema_error(S, target, "cannot assign to this expression");
  }
}

/* Names a statement list assigns (syntactically), for loop-carried values. */
static void collect_assigned(Sema *S, NodeList *body, PtrVec *out);

static void add_name(Sema *S, PtrVec *out, const char *name) {
  for (int i = 0; i < out->n; i++)
    if (!strcmp(out->v[i], name)) return;
  vec_push(S->a, out, (void *)name);
}

static void collect_target(Sema *S, Node *t, PtrVec *out) {
  if (t->kind == N_NAME) add_name(S, out, t->name);
  if (t->kind == N_TUPLE || t->kind == N_LIST)
    for (int i = 0; i < t->kids.n; i++) collect_target(S, t->kids.v[i], out);
}

static void collect_assigned(Sema *S, NodeList *body, PtrVec *out) {
  for (int i = 0; i < body->n; i++) {
    Node *s = body->v[i];
    switch (s->kind) {
    case N_ASSIGN:
      for (int j = 0; j < s->kids.n; j++) collect_target(S, s->kids.v[j], out);
      break;
    case N_AUGASSIGN: case N_ANNASSIGN: collect_target(S, s->lhs, out); break;
    case N_FOR:
      collect_target(S, s->lhs, out);
      collect_assigned(S, &s->body, out);
      break;
    case N_IF:
      collect_assigned(S, &s->body, out);
      collect_assigned(S, &s->orelse, out);
      break;
    case N_WHILE: collect_assigned(S, &s->body, out); break;
    default: break;
    }
  }
}

/* Before a runtime loop: constexpr values the loop re-assigns become runtime
 * values, so every iteration sees one type. */
static void materialize_carried(Sema *S, Node *at, PtrVec *names) {
  for (int i = 0; i < names->n; i++) {
    const char *name = names->v[i];
    Val *v = sema_env_get(&S->f->env, name);
    if (v && v->kind == V_CONST && (v->c->kind == CV_INT || v->c->kind == CV_FLOAT || v->c->kind == CV_BOOL))
      sema_bind(S, at, name, val_rt(S, to_rt(S, at, v)));
  }
}

/* After the body: each carried value must come back with its entry type. */
static void check_carried(Sema *S, Node *at, PtrVec *names, Env *before, PtrVec *body_out, const char *what) {
  for (int i = 0; i < names->n; i++) {
    const char *name = names->v[i];
    Val *b = sema_env_get(before, name), *e = sema_env_get(&S->f->env, name);
    if (!b || b->kind == V_UNDEF) {
      Val *u = sema_new_val(S, V_UNDEF);
      u->why = arena_printf(S->a, "'%s' is assigned inside the %s at line %d but not before it; "
                           "define it before the %s", name, what, sema_loc(at).line, what);
      sema_env_set(S, &S->f->env, name, u);
      continue;
    }
    if (!e || b == e) continue;
    Var *vb = sema_held_var(b);
    if (!vb) {
      if (b->kind == V_CONST && e->kind == V_CONST && sema_cv_equal(b->c, e->c)) continue;
      if (b->kind == V_FUNC && e->kind == V_FUNC && b->fn == e->fn) continue;
      if (b->kind == V_TUPLE) {
        if (e->kind == V_TUPLE && e->n == b->n) {
          bool same = true;
          for (int j = 0; j < b->n; j++) {
            Var *x = sema_held_var(b->elems[j]), *y = sema_held_var(e->elems[j]);
            same &= (x && x == y && b->elems[j]->ty == e->elems[j]->ty) ||
                    (b->elems[j]->kind == V_CONST && e->elems[j]->kind == V_CONST && sema_cv_equal(b->elems[j]->c, e->elems[j]->c));
          }
          if (same) continue;
        }
        sema_error(S, at, "tuple '%s' is re-assigned inside the %s; carry its elements in separate variables", name, what);
      }
      sema_error(S, at, "'%s' holds %s before the %s but is re-assigned inside it", name, val_desc(S, b), what);
    }
    if (e->kind == V_CONST) {
      /* the body ends with a constant: store it in the carried var */
      PtrVec *saved = S->out;
      S->out = body_out;
      TNode *c = to_rt_typed(S, at, e, ty_elem(b->ty));
      c = broadcast_to_shape(S, at, c, b->ty);
      sema_env_set(S, &S->f->env, name, sema_store_rt(S, at, name, c));
      S->out = saved;
      continue;
    }
    if (e->kind != V_RT || sema_held_var(e) != vb)
      sema_error(S, at, "'%s' changes from %s to %s inside the %s", name, val_desc(S, b), val_desc(S, e), what);
    if (e->ty != b->ty)
      sema_error(S, at, "loop-carried variable '%s' has type %s before the %s but %s at the end of its body",
                 name, ty_str(S->a, b->ty), what, ty_str(S->a, e->ty));
  }
}

/* The vars that names hold (tuple elements included), for scf results. */
static void held_vars_of(Sema *S, PtrVec *names, Env *env, TNode *t) {
  PtrVec vars = {0};
  for (int i = 0; i < names->n; i++) {
    Val *v = sema_env_get(env, names->v[i]);
    if (!v) continue;
    Val *one[1] = {v};
    Val **items = v->kind == V_TUPLE ? v->elems : one;
    int n = v->kind == V_TUPLE ? v->n : 1;
    for (int j = 0; j < n; j++) {
      Var *var = sema_held_var(items[j]);
      bool dup = false;
      for (int k = 0; k < vars.n; k++) dup |= vars.v[k] == var;
      if (var && !dup) vec_push(S->a, &vars, var);
    }
  }
  t->ntargets = vars.n;
  t->targets = (Var **)vars.v;
}

static void exec_stmt(Sema *S, Node *s);

/* Whether a statement list returns somewhere inside (not in nested defs). */
static bool has_return(const NodeList *body) {
  for (int i = 0; i < body->n; i++) {
    const Node *s = body->v[i];
    if (s->kind == N_RETURN) return true;
    if ((s->kind == N_IF || s->kind == N_FOR || s->kind == N_WHILE) && (has_return(&s->body) || has_return(&s->orelse)))
      return true;
  }
  return false;
}

static bool exec_if(Sema *S, Node *s, NodeList *rest);

void sema_exec_block(Sema *S, NodeList *body) {
  if (!body->n) return;
  sema_enter(S, body->v[0]);
  if (S->f->outer_rt + S->f->rt_depth > MAX_RT_NESTING)
    sema_limit_error(S, body->v[0], "runtime ifs and loops nested more than %d deep (counting those around the "
                     "calls inlined here)", MAX_RT_NESTING);
  for (int i = 0; i < body->n && !S->f->returned; i++) {
    Node *st = body->v[i];
    /* an inlined helper's runtime if that returns: the statements after it
     * run in the branches that do not return (exec_if) */
    if (st->kind == N_IF && !S->f->is_kernel && S->f->loop_depth == 0 && (has_return(&st->body) || has_return(&st->orelse))) {
      NodeList rest = {body->v + i + 1, body->n - i - 1};
      sema_enter(S, st);
      bool runtime = exec_if(S, st, &rest);
      sema_leave(S);
      if (runtime) break;
      continue;
    }
    exec_stmt(S, st);
  }
  sema_leave(S);
}

/* Runs body with its own statement list; returns that list. */
static TNodeList exec_nested(Sema *S, NodeList *body, PtrVec *out) {
  PtrVec *saved = S->out;
  S->out = out;
  sema_exec_block(S, body);
  S->out = saved;
  return sema_to_tlist(S, out);
}

/* The merged value of name after a runtime if. */
static void merge_branch(Sema *S, Node *at, const char *name, Env *then_env, Env *else_env,
                         PtrVec *then_out, PtrVec *else_out) {
  Val *t = sema_env_get(then_env, name), *e = sema_env_get(else_env, name);
  if (t == e) {
    if (t) sema_env_set(S, &S->f->env, name, t);
    return;
  }
  if (!t || !e || t->kind == V_UNDEF || e->kind == V_UNDEF) {
    Val *u = sema_new_val(S, V_UNDEF);
    u->why = arena_printf(S->a, "'%s' is defined in only one branch of the 'if' at line %d", name, sema_loc(at).line);
    sema_env_set(S, &S->f->env, name, u);
    return;
  }
  if (t->kind == V_CONST && e->kind == V_CONST && sema_cv_equal(t->c, e->c)) {
    sema_env_set(S, &S->f->env, name, t);
    return;
  }
  Var *vt = sema_held_var(t), *ve = sema_held_var(e);
  if (vt && ve && vt == ve) {
    if (t->ty != e->ty)
      sema_error(S, at, "'%s' has type %s in the 'then' branch but %s in the 'else' branch", name,
                 ty_str(S->a, t->ty), ty_str(S->a, e->ty));
    sema_env_set(S, &S->f->env, name, t);
    return;
  }
  bool tn = t->kind == V_CONST || vt, en = e->kind == V_CONST || ve;
  if (!tn || !en)
    sema_error(S, at, "'%s' holds %s in one branch of this 'if' and %s in the other", name, val_desc(S, t), val_desc(S, e));
  /* a constant on one side (or on both): store both sides in one var */
  const Type *ty;
  if (vt) ty = t->ty;
  else if (ve) ty = e->ty;
  else {
    Val *r = binary_op(S, at, TK_PLUS, val_rt(S, to_rt(S, at, t)), val_rt(S, to_rt(S, at, e)));
    ty = r->ty;
  }
  if (vt && ve) sema_error(S, at, "'%s' is assigned different variables in the two branches", name);
  Val *result = NULL;
  PtrVec *saved = S->out;
  if (!vt) {
    S->out = then_out;
    result = sema_store_rt(S, at, name, broadcast_to_shape(S, at, to_rt_typed(S, at, t, ty_elem(ty)), ty));
  }
  if (!ve) {
    S->out = else_out;
    result = sema_store_rt(S, at, name, broadcast_to_shape(S, at, to_rt_typed(S, at, e, ty_elem(ty)), ty));
  }
  S->out = saved;
  Var *var = sema_frame_var(S, name);
  if ((vt && vt != var) || (ve && ve != var))
    sema_error(S, at, "'%s' is assigned different variables in the two branches", name);
  sema_env_set(S, &S->f->env, name, result);
}

static void exec_return(Sema *S, Node *s);

/* The end of one path through an inlined helper's if that returns: unless
 * the branch returned, the statements after the if, then those after each
 * if around it that returns (f->conts, innermost first), then, if none
 * returned, the helper's implicit `return None`. Each list runs with only
 * the lists outside it pending, as the ifs it holds see them. */
static void finish_path(Sema *S, Node *at, NodeList *rest, PtrVec *out) {
  if (S->f->returned) return;
  PtrVec *saved = S->out;
  S->out = out;
  sema_exec_block(S, rest);
  PtrVec *conts = &S->f->conts;
  int n = conts->n;
  for (int k = n - 1; k >= 0 && !S->f->returned; k--) {
    conts->n = k;
    sema_exec_block(S, conts->v[k]);
  }
  conts->n = n;
  if (!S->f->returned) {
    Node none = {.kind = N_RETURN, .tok = at->tok};
    exec_return(S, &none);
  }
  S->out = saved;
}

/* One branch of an if into out; with rest, the ifs in it that return
 * finish their paths with rest too, and so does the branch (finish_path). */
static void run_branch(Sema *S, Node *at, NodeList *body, NodeList *rest, PtrVec *out) {
  if (rest) vec_push(S->a, &S->f->conts, rest);
  exec_nested(S, body, out);
  if (!rest) return;
  S->f->conts.n--;
  finish_path(S, at, rest, out);
}

/* The name an inlined helper's result is held under while returns in
 * runtime ifs are merged (a keyword: no variable of the user's has it). */
#define RETURN_NAME "return"

/* An if statement. With rest (an inlined helper's if that returns, and the
 * statements after it in its block), a runtime if runs rest at the end of
 * each branch that does not return, so that every path of the helper
 * ends in a return, and the branches' results are merged like a
 * variable; returns whether it did (a constexpr if runs one branch and
 * leaves rest to the caller). */
static bool exec_if(Sema *S, Node *s, NodeList *rest) {
  Val *c = sema_eval(S, s->cond);
  if (c->kind == V_CONST) {
    bool taken;
    if (c->c->kind == CV_NONE) taken = false;
    else if (c->c->kind == CV_STR) taken = c->c->s[0] != 0;
    else if (c->c->kind == CV_TUPLE) taken = c->c->nelems != 0;
    else if (c->c->kind == CV_DTYPE) taken = true;
    else taken = sema_cf(c->c) != 0;
    sema_exec_block(S, taken ? &s->body : &s->orelse);
    return false;
  }
  if (c->kind != V_RT) sema_error(S, s->cond, "the condition of 'if' must be a value, got %s", val_desc(S, c));
  TNode *cond = sema_to_bool(S, s->cond, c);
  if (cond->type->kind == TY_BLOCK)
    sema_error(S, s->cond, "the condition of 'if' must be a scalar, got %s; use tl.where for blocks", ty_str(S->a, cond->type));
  TNode *t = tnode(S, T_IF, s, ty_void(S->tc));
  t->c = cond;
  Env before = sema_env_copy(S, &S->f->env);
  S->f->rt_depth++;
  PtrVec then_out = {0}, else_out = {0};
  run_branch(S, s, &s->body, rest, &then_out);
  bool then_returned = S->f->returned;
  S->f->returned = false;
  Env then_env = S->f->env;
  S->f->env = sema_env_copy(S, &before);
  run_branch(S, s, &s->orelse, rest, &else_out);
  bool else_returned = S->f->returned;
  S->f->returned = false;
  Env else_env = S->f->env;
  S->f->rt_depth--;
  /* merge: a branch that returned does not reach the join; with rest both
   * paths ended in a return, whose results merge as a variable */
  S->f->env = sema_env_copy(S, &before);
  if (rest) {
    if (val_is_none(sema_env_get(&then_env, RETURN_NAME)) != val_is_none(sema_env_get(&else_env, RETURN_NAME)))
      sema_error(S, s, "this helper returns a value on some paths of this 'if' and None on others (a bare "
                 "'return', or the end of the helper)");
    merge_branch(S, s, RETURN_NAME, &then_env, &else_env, &then_out, &else_out);
  } else if (then_returned && !else_returned) {
    S->f->env = else_env;
  } else if (else_returned && !then_returned) {
    S->f->env = then_env;
  } else if (!then_returned && !else_returned) {
    PtrVec names = {0};
    for (int i = 0; i < then_env.n; i++) add_name(S, &names, then_env.names[i]);
    for (int i = 0; i < else_env.n; i++) add_name(S, &names, else_env.names[i]);
    for (int i = 0; i < names.n; i++) merge_branch(S, s, names.v[i], &then_env, &else_env, &then_out, &else_out);
  }
  PtrVec assigned = {0};
  collect_assigned(S, &s->body, &assigned);
  collect_assigned(S, &s->orelse, &assigned);
  if (rest) {
    collect_assigned(S, rest, &assigned);
    add_name(S, &assigned, RETURN_NAME);
  }
  held_vars_of(S, &assigned, &S->f->env, t);
  t->body = sema_to_tlist(S, &then_out);
  t->orelse = sema_to_tlist(S, &else_out);
  emit_stmt(S, t);
  if (rest && S->f->rt_depth == 0) S->f->ret = sema_read_val(S, s, sema_env_get(&S->f->env, RETURN_NAME));
  if (rest || (then_returned && else_returned)) S->f->returned = true;
  return true;
}

/* range(stop) / range(start, stop[, step]) / tl.range(..., num_stages=) / tl.static_range(...) */
typedef struct RangeSpec {
  Val *lo, *hi, *step;
  bool is_static;
  int num_stages;
  int unroll;        /* loop_unroll_factor; 0 when absent */
  bool disable_licm;
} RangeSpec;

static void range_args(Sema *S, Node *it, RangeSpec *r) {
  if (it->kind != N_CALL) sema_error(S, it, "kernels can only loop over range(), tl.range() or tl.static_range()");
  Val *callee = sema_eval(S, it->lhs);
  const char *name = callee->kind == V_BUILTIN ? callee->builtin->name : "";
  if (strcmp(name, "py.range") && strcmp(name, "range") && strcmp(name, "static_range"))
    sema_error(S, it, "kernels can only loop over range(), tl.range() or tl.static_range()");
  r->is_static = !strcmp(name, "static_range");
  int n = it->kids.n;
  if (n > 3) sema_error(S, it, "range expects 1 to 3 arguments, got %d", n);
  /* tl.range and tl.static_range name their bounds arg1, arg2, step (a
   * None arg2 makes arg1 the end), and take them as keywords too */
  Val *a[3] = {0};
  for (int i = 0; i < n; i++) {
    if (it->kids.v[i]->kind == N_STARRED) sema_error(S, it->kids.v[i], "'*' arguments are not supported in range");
    a[i] = sema_eval(S, it->kids.v[i]);
  }
  static const char *const bound_names[3] = {"arg1", "arg2", "step"};
  for (int i = 0; i < it->kwargs.n; i++) {
    Node *k = it->kwargs.v[i];
    if (!strcmp(name, "py.range")) sema_error(S, k, "range() takes no keyword arguments");
    for (int j = 0; j < 3; j++)
      if (!strcmp(k->name, bound_names[j])) {
        if (a[j]) sema_error(S, k, "%s() got multiple values for argument '%s'", r->is_static ? "tl.static_range" : "tl.range", k->name);
        a[j] = sema_eval(S, k->lhs);
      }
  }
  for (int j = 0; j < 3; j++)
    if (a[j] && val_is_none(a[j])) a[j] = NULL;
  if (!a[0]) sema_error(S, it, "range expects 1 to 3 arguments, got %d", n);
  r->lo = !a[1] ? val_const(S, cv_int(S, 0)) : a[0];
  r->hi = !a[1] ? a[0] : a[1];
  r->step = a[2] ? a[2] : val_const(S, cv_int(S, 1));
  for (int i = 0; i < it->kwargs.n; i++) {
    Node *k = it->kwargs.v[i];
    if (!strcmp(k->name, "arg1") || !strcmp(k->name, "arg2") || !strcmp(k->name, "step")) continue;
    if (r->is_static) sema_error(S, k, "tl.static_range() got an unexpected keyword argument '%s'", k->name);
    Val *v = sema_eval(S, k->lhs);
    if (!strcmp(k->name, "num_stages")) {
      /* 0, as 1, is no pipelining (0 here would read as "the kernel's") */
      if (!val_is_none(v)) r->num_stages = (int)const_int(S, k->lhs, v, "num_stages");
      if (!val_is_none(v) && r->num_stages == 0) r->num_stages = 1;
    } else if (!strcmp(k->name, "loop_unroll_factor")) {
      if (val_is_none(v)) continue;
      if (v->kind != V_CONST) sema_error(S, k->lhs, "'%s' must be a constexpr", k->name);
      int64_t f = const_int(S, k->lhs, v, "loop_unroll_factor");
      if (f < 1 || f > 4096) sema_error(S, k->lhs, "loop_unroll_factor must be in 1..4096, got %lld", (long long)f);
      r->unroll = (int)f;
    } else if (!strcmp(k->name, "disable_licm")) {
      if (val_is_none(v)) continue;
      if (v->kind != V_CONST) sema_error(S, k->lhs, "'%s' must be a constexpr", k->name);
      r->disable_licm = const_bool(S, k->lhs, v, "disable_licm");
    } else if (!strcmp(k->name, "flatten") || !strcmp(k->name, "warp_specialize")) {
      /* Optimizations that leave the loop's meaning as it is: the loop runs
       * as written (nested loops stay nested, one warp group does all), and
       * --emit=ast says so */
      if (val_is_none(v)) continue;
      if (v->kind != V_CONST) sema_error(S, k->lhs, "'%s' must be a constexpr", k->name);
      if (const_bool(S, k->lhs, v, k->name)) {
        Loc at = sema_loc(k);
        const char *note = arena_printf(S->a, "%s:%d: tl.range's %s=True is not applied: %s", at.src->name, at.line, k->name,
                                        !strcmp(k->name, "flatten") ? "the loops run nested, as written"
                                                                    : "the loop runs without warp specialization");
        sema_note(S, note);
      }
    } else if (!strcmp(k->name, "disallow_acc_multi_buffer")) {
      /* tilec never multi-buffers a dot's accumulator, so either value holds */
      if (!val_is_none(v) && v->kind != V_CONST) sema_error(S, k->lhs, "'%s' must be a constexpr", k->name);
    } else {
      sema_error(S, k, "%s() got an unexpected keyword argument '%s'", r->is_static ? "tl.static_range" : "tl.range", k->name);
    }
  }
}

/* The body of a runtime loop t, and the vars it carries. */
static void loop_body(Sema *S, Node *s, TNode *t, PtrVec *names, Env *before) {
  S->f->rt_depth++;
  S->f->loop_depth++;
  PtrVec body = {0};
  exec_nested(S, &s->body, &body);
  if (S->f->returned && !S->f->is_kernel)
    sema_error(S, s, "'return' inside a loop of an inlined function is not supported yet");
  S->f->returned = false;
  S->f->loop_depth--;
  S->f->rt_depth--;
  check_carried(S, s, names, before, &body, "loop");
  held_vars_of(S, names, before, t);
  t->body = sema_to_tlist(S, &body);
}

static void exec_for(Sema *S, Node *s) {
  RangeSpec r = {0};
  range_args(S, s->cond, &r);
  if (s->lhs->kind != N_NAME) sema_error(S, s->lhs, "the loop variable must be a single name");
  const char *iv = s->lhs->name;
  bool all_const = r.lo->kind == V_CONST && r.hi->kind == V_CONST && r.step->kind == V_CONST;
  if (r.is_static) {
    if (!all_const) sema_error(S, s->cond, "tl.static_range bounds must be constexprs");
    int64_t lo = const_int(S, s->cond, r.lo, "the range start"), hi = const_int(S, s->cond, r.hi, "the range end"),
            st = const_int(S, s->cond, r.step, "the range step");
    if (st == 0) sema_error(S, s->cond, "range step must not be zero");
    /* in unsigned arithmetic: bounds near the int64 limits must not overflow */
    uint64_t span = 0, ast = st > 0 ? (uint64_t)st : -(uint64_t)st;
    if (st > 0 && hi > lo) span = (uint64_t)hi - (uint64_t)lo;
    if (st < 0 && lo > hi) span = (uint64_t)lo - (uint64_t)hi;
    uint64_t ucount = span ? (span - 1) / ast + 1 : 0;
    if (ucount > 4096) sema_error(S, s->cond, "tl.static_range unrolls %llu iterations; at most 4096 are allowed", (unsigned long long)ucount);
    int64_t count = (int64_t)ucount;
    S->f->static_depth++;
    for (int64_t i = 0; i < count && !S->f->returned; i++) {
      sema_bind(S, s->lhs, iv, val_const(S, cv_int(S, (int64_t)((uint64_t)lo + (uint64_t)i * (uint64_t)st))));
      sema_exec_block(S, &s->body);
    }
    S->f->static_depth--;
    return;
  }
  /* a runtime loop */
  TNode *lo = to_rt(S, s->cond, r.lo), *hi = to_rt(S, s->cond, r.hi), *st = to_rt(S, s->cond, r.step);
  const TNode *bounds[3] = {lo, hi, st};
  for (int i = 0; i < 3; i++)
    if (!ty_is_int(bounds[i]->type) || bounds[i]->type->kind == TY_BLOCK || ty_elem(bounds[i]->type)->dtype == DT_I1)
      sema_error(S, s->cond, "range bounds must be integer scalars, got %s", ty_str(S->a, bounds[i]->type));
  if (r.step->kind == V_CONST && const_int(S, s->cond, r.step, "the step") == 0)
    sema_error(S, s->cond, "range step must not be zero");
  /* the induction variable takes the widest bound type (i32 unless one is 64-bit) */
  const Type *ity = ty_scalar(S->tc, DT_I32);
  for (int i = 0; i < 3; i++)
    if (dtype_bits(ty_elem(bounds[i]->type)->dtype) == 64) ity = ty_scalar(S->tc, DT_I64);
  lo = cast_to(S, s->cond, lo, ity);
  hi = cast_to(S, s->cond, hi, ity);
  st = cast_to(S, s->cond, st, ity);
  PtrVec names = {0};
  collect_assigned(S, &s->body, &names);
  materialize_carried(S, s, &names);
  Env before = sema_env_copy(S, &S->f->env);
  TNode *t = tnode(S, T_FOR, s, ty_void(S->tc));
  t->a = lo;
  t->b = hi;
  t->c = st;
  t->num_stages = r.num_stages;
  t->loop_unroll_factor = r.unroll;
  t->disable_licm = r.disable_licm;
  t->var = sema_frame_var(S, iv);
  t->var->type = ity;
  sema_env_set(S, &S->f->env, iv, sema_held_var_val(S, t->var, ity));
  loop_body(S, s, t, &names, &before);
  for (int i = 0; i < t->ntargets; i++)
    if (t->targets[i] == t->var) t->targets[i--] = t->targets[--t->ntargets];
  emit_stmt(S, t);
}

static void exec_while(Sema *S, Node *s) {
  PtrVec names = {0};
  collect_assigned(S, &s->body, &names);
  materialize_carried(S, s, &names);
  Env before = sema_env_copy(S, &S->f->env);
  TNode *t = tnode(S, T_WHILE, s, ty_void(S->tc));
  PtrVec cond_out = {0};
  PtrVec *saved = S->out;
  S->out = &cond_out;
  Val *c = sema_eval(S, s->cond);
  if (c->kind == V_CONST) {
    if (!const_bool(S, s->cond, c, "the condition"))
      sema_error(S, s->cond, "this while loop never runs: its condition is a constexpr False");
    c = val_rt(S, to_rt(S, s->cond, c));
  }
  TNode *cond = sema_to_bool(S, s->cond, c);
  if (cond->type->kind == TY_BLOCK)
    sema_error(S, s->cond, "the condition of 'while' must be a scalar, got %s", ty_str(S->a, cond->type));
  S->out = saved;
  t->c = cond;
  t->before = sema_to_tlist(S, &cond_out);
  loop_body(S, s, t, &names, &before);
  emit_stmt(S, t);
}

static void exec_return(Sema *S, Node *s) {
  Frame *f = S->f;
  if (f->loop_depth > 0)
    sema_error(S, s, "a 'return' inside a 'for' or 'while' loop is not allowed, as in Triton; "
               "leave the loop by its condition instead");
  if (f->is_kernel) {
    if (s->lhs) {
      Val *v = sema_eval(S, s->lhs);
      if (!val_is_none(v)) sema_error(S, s, "kernels cannot return a value");
    }
    emit_stmt(S, tnode(S, T_RETURN, s, ty_void(S->tc)));
    f->returned = true;
    return;
  }
  if (f->rt_depth > 0) {
    /* in a runtime if (exec_if merges the paths' results) */
    Val *v = s->lhs ? sema_eval(S, s->lhs) : val_none(S);
    /* every path's result in the one variable the merge joins */
    if (v->kind == V_RT) v = sema_store_rt(S, s, RETURN_NAME, v->e ? v->e : sema_read_val(S, s, v)->e);
    sema_env_set(S, &f->env, RETURN_NAME, v);
    f->returned = true;
    return;
  }
  f->ret = s->lhs ? sema_eval(S, s->lhs) : val_none(S);
  /* hold runtime results in vars, so a caller can use them more than once */
  if (f->ret->kind == V_RT && f->ret->e && f->ret->e->kind != T_VAR) {
    Val *held = sema_store_rt(S, s, "ret", f->ret->e);
    f->ret = sema_read_val(S, s, held);
  }
  f->returned = true;
}

/* Unrolling and inlining multiply code: a kernel may not expand without
 * bound (nested static_range loops, a helper calling another twice, a wide
 * expression in an unrolled loop). Statements, calls and expressions count. */
#define MAX_WORK (1 << 20)

void sema_count_work_n(Sema *S, Node *at, long n) {
  S->work += n;
  if (S->work > MAX_WORK)
    sema_error(S, at, "the kernel expands to more than %d operations after unrolling and inlining", MAX_WORK);
}

void sema_count_work(Sema *S, Node *at) { sema_count_work_n(S, at, 1); }

static void exec_stmt(Sema *S, Node *s) {
  sema_count_work(S, s);
  switch (s->kind) {
  case N_ASSIGN: {
    Val *v = sema_eval(S, s->rhs);
    for (int i = 0; i < s->kids.n; i++) {
      Val *use = v;
      if (i + 1 < s->kids.n && v->kind == V_RT) {
        /* a = b = expr: evaluate once, read back for each target */
        Val *held = sema_store_rt(S, s, "chain", v->e);
        v = sema_read_val(S, s, held);
        use = sema_read_val(S, s, held);
      }
      assign_target(S, s->kids.v[i], use);
    }
    return;
  }
  case N_AUGASSIGN: {
    Node *t = s->lhs;
    if (t->kind != N_NAME) sema_error(S, t, "only names can be targets of augmented assignment in kernels");
    Val *cur = sema_read_name(S, t);
    Val *rhs = sema_eval(S, s->rhs);
    Val *r = binary_op(S, s, s->op, cur, rhs);
    sema_bind(S, t, t->name, r);
    return;
  }
  case N_ANNASSIGN: {
    if (!s->rhs) return;
    Val *v = sema_eval(S, s->rhs);
    /* only tl.constexpr means something; others (tl.dtype, tl.tensor) are
     * not evaluated, as Python leaves a local's annotation alone */
    Node *an = s->annot;
    bool ce_syntax = (an->kind == N_NAME || an->kind == N_ATTR) && !strcmp(an->name, "constexpr");
    Val *ann = ce_syntax ? sema_eval(S, an) : NULL;
    if (ann && ann->kind == V_BUILTIN && !strcmp(ann->builtin->name, "constexpr") && v->kind != V_CONST)
      sema_error(S, s->rhs, "'%s' is annotated tl.constexpr but its value is not a constexpr", s->lhs->name);
    assign_target(S, s->lhs, v);
    return;
  }
  case N_IF: exec_if(S, s, NULL); return;
  case N_FOR: exec_for(S, s); return;
  case N_WHILE: exec_while(S, s); return;
  case N_BREAK:
    /* Triton rejects both in every loop (static_range too); only a dead
     * constexpr branch may hold them */
    if (S->f->loop_depth == 0 && S->f->static_depth == 0) sema_error(S, s, "'break' outside a loop");
    sema_error(S, s, "'break' is not supported in kernels, as in Triton; "
               "end the loop by its condition instead (a 'while' that tests a flag)");
  case N_CONTINUE:
    if (S->f->loop_depth == 0 && S->f->static_depth == 0) sema_error(S, s, "'continue' outside a loop");
    sema_error(S, s, "'continue' is not supported in kernels, as in Triton; "
               "put the rest of the iteration under an 'if' instead");
  case N_RETURN: exec_return(S, s); return;
  case N_PASS: return;
  case N_UNSUPPORTED: sema_error(S, s, "%s", s->sval);
  case N_EXPR_STMT: {
    if (s->lhs->kind == N_STR) return; /* a docstring */
    Val *v = sema_eval(S, s->lhs);
    /* `tl.multiple_of(x, ...)` as a statement: Triton marks x's value itself
     * (its defining op, or the loop of a loop-carried x), so the hint holds
     * for x though the result is dropped (tutorial 08's a_ptrs). Here x is
     * bound to the hinted value from this statement on. */
    if (v->kind == V_RT && v->e && v->e->kind == T_CALL &&
        (v->e->callee == CALL_multiple_of || v->e->callee == CALL_max_contiguous || v->e->callee == CALL_max_constancy) &&
        s->lhs->kind == N_CALL && s->lhs->kids.n >= 1 && s->lhs->kids.v[0]->kind == N_NAME) {
      sema_bind(S, s, s->lhs->kids.v[0]->name, v);
      return;
    }
    if (v->kind == V_RT && v->e) {
      TNode *t = tnode(S, T_EXPR, s, ty_void(S->tc));
      t->a = v->e;
      emit_stmt(S, t);
    }
    return;
  }
  case N_ASSERT: {
    Val *c = sema_eval(S, s->cond);
    Val *msg = s->lhs ? sema_eval(S, s->lhs) : NULL;
    if (c->kind == V_CONST) {
      if (!const_bool(S, s->cond, c, "the assertion"))
        sema_error(S, s, "assertion failed%s%s", msg && msg->kind == V_CONST && msg->c->kind == CV_STR ? ": " : "",
                   msg && msg->kind == V_CONST && msg->c->kind == CV_STR ? msg->c->s : "");
      return;
    }
    Args args = {.pos = (Val *[]){c, msg ? msg : val_const(S, cv_str(S, ""))}, .npos = 2};
    builtin_call(S, s, builtin_find("device_assert"), NULL, &args);
    return;
  }
  case N_DEF: sema_error(S, s, "nested functions are not supported in kernels");
  default: sema_error(S, s, "this statement is not supported in kernels");
  }
}

void sema_exec_function_body(Sema *S, JitFunc *fn) { sema_exec_block(S, &sema_func_def(S, fn)->body); }
