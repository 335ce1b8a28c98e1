/*
 * sema_vars.c — variables: a Python name assigned a runtime value in a
 * frame becomes a Var of the typed AST, named uniquely across the kernel
 * and its inlined calls so that dumps read; an assignment stores to it and
 * each read is a fresh reference. A tuple's runtime elements get a Var
 * each; constexprs stay values in the frame's environment.
 */
#include "sema.h"

/* The set of var names in the kernel: open addressing, so that inlining
 * many calls stays linear; each name remembers the next suffix to try for
 * a new var of that base name. */
typedef struct NameEntry {
  const char *name;
  int next_suffix;
} NameEntry;

static unsigned name_hash(const char *s) {
  unsigned h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static NameEntry *name_find(Sema *S, const char *u) {
  if (!S->names.cap) return NULL;
  for (unsigned i = name_hash(u) & (unsigned)(S->names.cap - 1);; i = (i + 1) & (unsigned)(S->names.cap - 1)) {
    NameEntry *e = S->names.v[i];
    if (!e) return NULL;
    if (!strcmp(e->name, u)) return e;
  }
}

static NameEntry *name_add(Sema *S, NameEntry *e) {
  if (2 * (S->names.n + 1) > S->names.cap) {
    PtrVec old = S->names;
    int cap = old.cap ? old.cap * 2 : 256;
    S->names.v = arena_alloc(S->a, sizeof(void *) * (size_t)cap);
    S->names.cap = cap;
    S->names.n = 0;
    for (int i = 0; i < old.cap; i++)
      if (old.v[i]) name_add(S, old.v[i]);
  }
  unsigned i = name_hash(e->name) & (unsigned)(S->names.cap - 1);
  while (S->names.v[i]) i = (i + 1) & (unsigned)(S->names.cap - 1);
  S->names.v[i] = e;
  S->names.n++;
  return e;
}

/* A kernel-unique spelling of name: name, name_1, name_2, ... */
static const char *unique_name(Sema *S, const char *name) {
  NameEntry *base = name_find(S, name);
  const char *u = name;
  if (base) {
    do u = arena_printf(S->a, "%s_%d", name, base->next_suffix++);
    while (name_find(S, u));
  }
  NameEntry *e = arena_alloc(S->a, sizeof *e);
  e->name = u;
  e->next_suffix = 1;
  name_add(S, e);
  return u;
}

Var *sema_frame_var(Sema *S, const char *name) {
  Frame *f = S->f;
  for (int i = 0; i < f->var_names.n; i++)
    if (!strcmp(f->var_names.v[i], name)) return f->vars.v[i];
  Var *v = arena_alloc(S->a, sizeof *v);
  /* unique within the kernel, for readable dumps */
  const char *u = unique_name(S, name);
  v->name = u;
  v->id = S->k->nvars++;
  vec_push(S->a, &f->var_names, (void *)name);
  vec_push(S->a, &f->vars, v);
  return v;
}

static Val *var_ref(Sema *S, Node *at, Var *var, const Type *ty) {
  TNode *t = tnode(S, T_VAR, at, ty);
  t->var = var;
  Val *v = val_rt(S, t);
  return v;
}

/* Stores a runtime value in the frame's Var for name; the env then refers to it. */
Val *sema_store_rt(Sema *S, Node *at, const char *name, TNode *e) {
  Var *var = sema_frame_var(S, name);
  TNode *as = tnode(S, T_ASSIGN, at, e->type);
  as->var = var;
  as->a = e;
  var->type = e->type;
  emit_stmt(S, as);
  Val *v = sema_new_val(S, V_RT);
  v->ty = e->type;
  v->e = NULL;
  v->path = (const char *)var; /* marks a var-held value; see read_name */
  return v;
}

Val *sema_held_var_val(Sema *S, Var *var, const Type *ty) {
  Val *v = sema_new_val(S, V_RT);
  v->ty = ty;
  v->path = (const char *)var;
  (void)S;
  return v;
}

Var *sema_held_var(const Val *v) { return v->kind == V_RT && !v->e ? (Var *)v->path : NULL; }

/* The value to give a reader of an env entry: a fresh reference for vars. */
Val *sema_read_val(Sema *S, Node *at, Val *v) {
  if (!v) return v;
  Var *var = sema_held_var(v);
  if (var) return var_ref(S, at, var, v->ty);
  if (v->kind == V_TUPLE) {
    /* a copy: its values count as work, or a tuple read in a loop would not */
    sema_count_work_n(S, at, v->n);
    Val *t = sema_new_val(S, V_TUPLE);
    t->n = v->n;
    t->depth = v->depth;
    t->size = v->size;
    t->elems = arena_alloc(S->a, sizeof(Val *) * (size_t)(v->n + 1));
    for (int i = 0; i < v->n; i++) t->elems[i] = sema_read_val(S, at, v->elems[i]);
    return t;
  }
  return v;
}

/* Binds name to v, emitting an assignment for runtime values. */
void sema_bind(Sema *S, Node *at, const char *name, Val *v) {
  if (v->kind == V_RT) {
    Var *held = sema_held_var(v);
    if (held && held == sema_frame_var(S, name)) {
      sema_env_set(S, &S->f->env, name, v);
      return;
    }
    TNode *e = held ? var_ref(S, at, held, v->ty)->e : v->e;
    sema_env_set(S, &S->f->env, name, sema_store_rt(S, at, name, e));
    return;
  }
  if (v->kind == V_TUPLE) {
    Val *t = sema_new_val(S, V_TUPLE);
    t->n = v->n;
    t->depth = v->depth;
    t->size = v->size;
    t->elems = arena_alloc(S->a, sizeof(Val *) * (size_t)(v->n + 1));
    for (int i = 0; i < v->n; i++) {
      Val *e = v->elems[i];
      if (e->kind == V_RT && e->e && e->e->kind != T_VAR)
        e = sema_store_rt(S, at, arena_printf(S->a, "%s.%d", name, i), e->e);
      else if (e->kind == V_RT && e->e)
        e = sema_held_var_val(S, e->e->var, e->ty);
      t->elems[i] = e;
    }
    sema_env_set(S, &S->f->env, name, t);
    return;
  }
  sema_env_set(S, &S->f->env, name, v);
}
