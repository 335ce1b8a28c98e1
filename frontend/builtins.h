/*
 * builtins.h — what the pieces of the `tl.*` surface share (builtins.c and
 * the builtins_*.c files): the handler signature, the helpers the handlers
 * call, and each file's table of builtins. Internal to the frontend.
 */
#ifndef TILEC_FRONTEND_BUILTINS_H
#define TILEC_FRONTEND_BUILTINS_H

#define TILEC_SEMA_INTERNAL
#include "frontend.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define A(i) (i < nargs ? args[i] : NULL)
#define HANDLER(name) static Val *name(Sema *S, Node *call, Val **args, int nargs)

const Type *bi_F32(Sema *S);
const Type *bi_I1(Sema *S);
const Type *bi_I32(Sema *S);
const char *bi_cur(Sema *S);
CallKind bi_call_kind(Sema *S); /* the call the builtin being bound emits, by its name */
void bi_emit_expr_stmt(Sema *S, Node *at, TNode *e);
Val *bi_multi_result(Sema *S, Node *call, TNode *t, int n);
void bi_need_float(Sema *S, Node *at, TNode *e);
void bi_need_int(Sema *S, Node *at, TNode *e);
Val *bi_none(Sema *S);
const Type *bi_promote_all(Sema *S, Node *at, Val **vals, TNode **out, int n, bool float_only);
TNode *bi_rt(Sema *S, Node *at, Val *v);
/* e assigned to the var `name`, and a value reading it (sema_expr.c) */
Val *sema_store_rt(Sema *S, Node *at, const char *name, TNode *e);
Val *sema_read_val(Sema *S, Node *at, Val *v);
const Builtin *bi_libdevice_find(const char *name);
extern const Builtin builtins_core[];
extern const size_t builtins_core_count;
extern const Builtin builtins_memory[];
extern const size_t builtins_memory_count;
extern const Builtin builtins_tensor[];
extern const size_t builtins_tensor_count;
/* Shared by the tensor builtins and those made of other operations. */
int64_t bi_numel(const Type *t);
TNode *bi_reduce_node(Sema *S, Node *call, ReduceKind kind, TNode *in, int axis, bool keep, const Type *elem);
int bi_norm_axis(Sema *S, Node *call, Val *axis, const Type *t, bool allow_none);
TNode *bi_block_input(Sema *S, Node *call, Val *v);
extern const Builtin builtins_host[];
extern const size_t builtins_host_count;
/* int() of a string, by Python's rules for integer literals */
Val *bi_int_of_string(Sema *S, Node *call, const char *text, int64_t base);
extern const Builtin builtins_compose[];
extern const size_t builtins_compose_count;
extern const Builtin builtins_random[];
extern const size_t builtins_random_count;
extern const Builtin builtins_asm[];
extern const size_t builtins_asm_count;
/* For the builtins made of others (builtins_compose.c): e in a temporary,
 * read where it is used; a binary operator on runtime values; the builtin
 * `name` called on positional values, as a kernel calls it. */
TNode *bi_keep(Sema *S, Node *call, TNode *e, const char *what);
TNode *bi_bin(Sema *S, Node *call, Op op, TNode *a, TNode *b);
Val *bi_call(Sema *S, Node *call, const char *name, Val **vals, int n);

#endif
