/*
 * sema.h — what the pieces of semantic analysis share (sema.c and the
 * sema_*.c files): the environments and frames of the abstract
 * interpreter, and the functions one piece calls in another. Internal to
 * the frontend; the sema_ prefix keeps the names apart from the rest of
 * libtilec.
 */
#ifndef TILEC_FRONTEND_SEMA_H
#define TILEC_FRONTEND_SEMA_H

#define TILEC_SEMA_INTERNAL
#include "frontend.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Env {
  const char **names;
  Val **vals;
  int n, cap;
} Env;

typedef struct Frame {
  Env env;
  JitFunc *fn;
  const Module *mod; /* where its free names resolve (NULL: the kernel's module) */
  const InlineSite *site;
  bool is_kernel;
  Val *ret;        /* an inlined function's return value */
  bool returned;   /* a return ran at this level: skip the rest */
  int rt_depth;    /* nesting of runtime if/loops */
  int outer_rt;    /* the runtime if/loops around the call of this frame (all its callers') */
  int loop_depth;  /* runtime loops, for break/continue */
  int static_depth; /* static_range loops */
  PtrVec var_names; /* Var* per name, shared by every assignment in the frame */
  PtrVec vars;
  PtrVec conts;     /* NodeList*: the statements after the runtime ifs that return being run (sema_stmt.c) */
} Frame;

#define MAX_INLINE_DEPTH 64
/* Sema recurses once per nested expression, block of statements, inlined
 * call and module-level value: one budget for them together bounds its
 * stack whatever mix a program nests (docs/language.md, "Limits"). */
#define SEMA_MAX_DEPTH 400
/* Tuples built in a loop would nest without end (`t = (t,)`) or double
 * (`t = (t, t)`), and printing, comparing and copying them recurse. */
#define MAX_TUPLE_DEPTH 64
#define MAX_TUPLE_SIZE (1 << 16)
/* Runtime ifs and loops become nested regions, which every later stage
 * recurses over with frames of its own: as many as Python's indentation. */
#define MAX_RT_NESTING 100

void sema_enter(Sema *S, Node *at); /* one level deeper; an error past SEMA_MAX_DEPTH */
void sema_leave(Sema *S);

void sema_bind(Sema *S, Node *at, const char *name, Val *v);
bool sema_c_is_num(const CValue *c);
double sema_cf(const CValue *c);
int64_t sema_ci(const CValue *c);
const Type *sema_const_default_type(Sema *S, Node *at, CValue *c);
void sema_count_work(Sema *S, Node *at);
void sema_count_work_n(Sema *S, Node *at, long n);
bool sema_cv_equal(const CValue *a, const CValue *b);
Val *sema_const_binary(Sema *S, Node *at, Op op, CValue *a, CValue *b); /* a op b, both constexprs */
CValue *sema_cv_new(Sema *S, CKind k);
Env sema_env_copy(Sema *S, const Env *e);
Val *sema_env_get(Env *e, const char *name);
void sema_env_set(Sema *S, Env *e, const char *name, Val *v);
Val *sema_eval(Sema *S, Node *n);
void sema_exec_block(Sema *S, NodeList *body);
void sema_exec_function_body(Sema *S, JitFunc *fn);
Var *sema_frame_var(Sema *S, const char *name);
Var *sema_held_var(const Val *v);
Val *sema_held_var_val(Sema *S, Var *var, const Type *ty);
TNode *sema_make_binop(Sema *S, Node *at, TNodeKind k, Op op, TNode *a, TNode *b, const Type *ty);
Val *sema_new_val(Sema *S, VKind k);
bool sema_param_is_constexpr(Sema *S, Node *p);
Val *sema_read_name(Sema *S, Node *n);
CValue *sema_define_value(Sema *S, const char *txt);

/* A dotted name as a message shows it: a long one cut in the middle. */
const char *sema_shown_name(Sema *S, const char *name);

/* sema_import.c: the modules of the user's project */
void sema_module_init(Sema *S, Module *main, const SpecOptions *opt);
void sema_module_deps(Sema *S, Kernel *k);
/* Finds, reads and parses module `dotted` once; NULL when no search folder has it */
const Module *sema_load_module(Sema *S, const char *dotted);
/* sema_module.c: the module level */
const Module *sema_cur_mod(Sema *S);
bool sema_path_is(const char *path, const char *what);
Val *sema_module_name(Sema *S, const Module *m, Node *at, const char *name, bool quiet); /* NULL: not bound */
Val *sema_user_module_attr(Sema *S, Node *at, Val *mod);
Val *sema_read_module_name(Sema *S, Node *at, const char *name); /* NULL: not bound */
JitFunc *sema_pick_kernel(Sema *S, const SpecOptions *opt);
/* sema_expr.c: Triton's namespaces by dotted path ("triton.language.math.exp"); quiet: NULL when unknown */
Val *sema_triton_path(Sema *S, Node *at, const char *path, bool quiet);
Val *sema_read_val(Sema *S, Node *at, Val *v);
Val *sema_store_rt(Sema *S, Node *at, const char *name, TNode *e);
TNode *sema_to_bool(Sema *S, Node *at, Val *v);
TNodeList sema_to_tlist(Sema *S, PtrVec *v);
/* sema_format.c: an f-string's text, its fields evaluated at compile time */
Val *sema_fstring(Sema *S, Node *n);


#endif
