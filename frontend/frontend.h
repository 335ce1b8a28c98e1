/*
 * frontend.h — the frontend's one internal header: tokens, the AST, types,
 * constexpr values, the typed AST, and the entry points of the stages
 * (lex_, parse_, sema_, ast_). It stands on support/support.h (arena,
 * diagnostics) and knows no MLIR.
 */
#ifndef TILEC_FRONTEND_H
#define TILEC_FRONTEND_H

#include "support/support.h"
#include "support/dtype.h"

/* ---- tokens ------------------------------------------------------------- */

#define TOKEN_KINDS(X) \
  X(EOF, "end of file") X(NEWLINE, "newline") X(INDENT, "indent") X(DEDENT, "dedent") \
  X(NAME, "name") X(INT, "integer") X(FLOAT, "number") X(STRING, "string") \
  X(LPAREN, "'('") X(RPAREN, "')'") X(LBRACKET, "'['") X(RBRACKET, "']'") \
  X(LBRACE, "'{'") X(RBRACE, "'}'") X(COMMA, "','") X(COLON, "':'") X(SEMI, "';'") \
  X(DOT, "'.'") X(ELLIPSIS, "'...'") X(ARROW, "'->'") X(AT, "'@'") X(WALRUS, "':='") \
  X(ASSIGN, "'='") X(PLUS, "'+'") X(MINUS, "'-'") X(STAR, "'*'") X(SLASH, "'/'") \
  X(DSLASH, "'//'") X(PERCENT, "'%'") X(POW, "'**'") X(TILDE, "'~'") X(AMP, "'&'") \
  X(PIPE, "'|'") X(CARET, "'^'") X(SHL, "'<<'") X(SHR, "'>>'") \
  X(LT, "'<'") X(GT, "'>'") X(LE, "'<='") X(GE, "'>='") X(EQ, "'=='") X(NE, "'!='") \
  X(PLUSEQ, "'+='") X(MINUSEQ, "'-='") X(STAREQ, "'*='") X(SLASHEQ, "'/='") \
  X(DSLASHEQ, "'//='") X(PERCENTEQ, "'%='") X(POWEQ, "'**='") X(AMPEQ, "'&='") \
  X(PIPEEQ, "'|='") X(CARETEQ, "'^='") X(SHLEQ, "'<<='") X(SHREQ, "'>>='") X(ATEQ, "'@='") \
  X(KW_and, "'and'") X(KW_as, "'as'") X(KW_assert, "'assert'") X(KW_async, "'async'") \
  X(KW_await, "'await'") X(KW_break, "'break'") X(KW_class, "'class'") \
  X(KW_continue, "'continue'") X(KW_def, "'def'") X(KW_del, "'del'") X(KW_elif, "'elif'") \
  X(KW_else, "'else'") X(KW_except, "'except'") X(KW_False, "'False'") \
  X(KW_finally, "'finally'") X(KW_for, "'for'") X(KW_from, "'from'") \
  X(KW_global, "'global'") X(KW_if, "'if'") X(KW_import, "'import'") X(KW_in, "'in'") \
  X(KW_is, "'is'") X(KW_lambda, "'lambda'") X(KW_None, "'None'") \
  X(KW_nonlocal, "'nonlocal'") X(KW_not, "'not'") X(KW_or, "'or'") X(KW_pass, "'pass'") \
  X(KW_raise, "'raise'") X(KW_return, "'return'") X(KW_True, "'True'") X(KW_try, "'try'") \
  X(KW_while, "'while'") X(KW_with, "'with'") X(KW_yield, "'yield'")

typedef enum TokKind {
#define X(k, s) TK_##k,
  TOKEN_KINDS(X)
#undef X
  TK_COUNT
} TokKind;

const char *tok_kind_name(TokKind k);

/* A source of n bytes has up to about n / 3 of these, so they are packed
 * (48 bytes): the payload is the one its kind has. */
typedef struct Token {
  TokKind kind;
  int len;
  Loc loc;
  const char *p; /* start in the source text */
  union {
    uint64_t ival;    /* INT */
    double fval;      /* FLOAT */
    const char *sval; /* NAME's name, STRING's decoded text (arena), NUL-terminated; NULL for a keyword */
  };
  int slen;          /* STRING */
  bool int_overflow; /* INT: the literal does not fit 64 bits */
  bool fstring, bytes, imag;
} Token;

typedef struct TokenList {
  Token *v;
  int n;
} TokenList;

/* Tokenizes a whole file; false with diagnostics in d on a lexical error. */
bool lex_file(Arena *a, Diags *d, const Source *src, TokenList *out);

/* An f-string in a kernel, lexed again when the parser reaches it (host
 * code's are only scanned): its text and its replacement fields, each
 * field's expression tokenized with its own source positions. */
typedef struct FString FString;

/* One replacement field, `{expr=!r:spec}`. */
typedef struct FField {
  TokenList expr;  /* the expression's tokens, then an EOF */
  char conversion; /* 'r', 's', 'a', or 0 (a `{x=}` field without a spec: 'r') */
  FString *spec;   /* its format spec, with fields of its own; NULL when absent */
  Loc spec_loc;    /* where the spec starts */
} FField;

/* text[0] fields[0] text[1] ... fields[n-1] text[n]: the text decoded, and
 * that before a `{x=}` field ending in its "x=". */
struct FString {
  const char **text;
  FField *fields;
  int nfields;
};

/* The parts of f-string token t; errors unwind through d. */
void lex_fstring(Arena *a, Diags *d, const Token *t, FString *out);

/* ---- AST ---------------------------------------------------------------- */

#define NODE_KINDS(X) \
  /* statements */ \
  X(ASSIGN) X(AUGASSIGN) X(ANNASSIGN) X(IF) X(FOR) X(WHILE) X(BREAK) X(CONTINUE) \
  X(RETURN) X(PASS) X(EXPR_STMT) X(ASSERT) X(DEF) \
  X(UNSUPPORTED) /* a statement kernels cannot have: an error where sema reaches it (sval: why) */ \
  /* expressions */ \
  X(NAME) X(INT) X(FLOAT) X(STR) X(TRUE) X(FALSE) X(NONE) X(ELLIPSIS) \
  X(BINOP) X(UNOP) X(AND) X(OR) X(COMPARE) X(IFEXP) X(CALL) X(ATTR) X(SUBSCRIPT) \
  X(SLICE) X(TUPLE) X(LIST) X(DICT) X(LAMBDA) X(COMP) X(STARRED) X(KWARG) \
  X(FSTRING) /* an f-string in a kernel: kids, STR text and FIELDs */ \
  X(FIELD)   /* one of its fields: lhs the expression, ival the conversion ('r', 's', 'a', 0), rhs the spec (an FSTRING) */

typedef enum NodeKind {
#define X(k) N_##k,
  NODE_KINDS(X)
#undef X
  N_COUNT
} NodeKind;

/* Operators of BINOP/UNOP/AUGASSIGN/COMPARE, named by their token; the two
 * two-word comparisons borrow keyword kinds that never are operators. */
typedef TokKind Op;
#define OP_NOT_IN TK_KW_not
#define OP_IS_NOT TK_KW_nonlocal

typedef struct Node Node;
typedef struct NodeList {
  Node **v;
  int n;
} NodeList;

struct Node {
  NodeKind kind;
  Token *tok;     /* the token the node is reported at */
  Node *lhs, *rhs; /* BINOP; ASSIGN value in rhs; SUBSCRIPT value/index; ATTR object */
  Node *cond;     /* IF/WHILE/IFEXP/ASSERT; FOR iterable */
  Op op;
  NodeList body, orelse; /* IF/FOR/WHILE/DEF bodies */
  NodeList kids;  /* TUPLE/LIST elements, CALL positional args, ASSIGN targets,
                     COMPARE operands, DEF params, DICT keys+values interleaved */
  NodeList kwargs; /* CALL keyword args (KWARG nodes: name + lhs value) */
  Op *ops;         /* COMPARE operators (kids.n - 1) */
  const char *name; /* NAME, ATTR attribute, KWARG/param name, DEF name */
  Node *annot;      /* parameter / ANNASSIGN annotation; param default in rhs */
  NodeList decorators; /* DEF */
  uint64_t ival;
  double fval;
  const char *sval;
  int slen;
};

/* A parsed `@jit` function with its decorators interpreted. */
typedef struct AutotuneConfig {
  NodeList kwargs;   /* meta-parameter name = value */
  int num_warps, num_stages; /* 0 when not given */
  PtrVec pre_zero;   /* Node* strings: the buffers its pre_hook zeroes before each launch */
  PtrVec pre_copy;   /* Node* strings, in pairs: the buffer its pre_hook copies into, and from */
  Token *tok;
} AutotuneConfig;

typedef struct Module Module;
typedef struct FuncDef FuncDef;

/* A function as sema sees it: a `def` with the Triton decorators (or calls
 * of them, `K = triton.jit(f)`) that apply to it interpreted. */
typedef struct JitFunc {
  Node *def;          /* the parsed def, once sema needs it (sema_func_def) */
  FuncDef *fd;
  const Module *mod;  /* where its names resolve */
  const char *name;
  bool is_jit;        /* decorated with triton.jit (else a host function) */
  bool constexpr_fn;  /* @triton.constexpr_function: run at compile time */
  PtrVec configs;     /* AutotuneConfig*, from @triton.autotune */
  PtrVec heuristics;  /* KWARG nodes: name -> lambda, from @triton.heuristics */
  PtrVec autotune_keys; /* Node* strings */
  PtrVec autotune_reset, autotune_restore; /* Node* strings: reset_to_zero, restore_value */
  int autotune_warmup, autotune_rep; /* ms, from @triton.autotune(warmup=, rep=); 0 when not given */
  PtrVec do_not_specialize; /* Node*: names (strings) or indices, from @triton.jit(do_not_specialize=) */
  int jit_num_warps;  /* from @triton.jit(...) kwargs when given, else 0 */
} JitFunc;

/* A module-level `def`, decorated or not; its body is parsed on first use. */
struct FuncDef {
  const char *name;
  const Module *mod;
  Token *first;        /* its first decorator's '@', or the 'def' */
  Token *def, *end;    /* the 'def' token, and one past its last token */
  NodeList decorators; /* those that parse as expressions, top first */
  bool opaque_decorator; /* some decorator is host code tilec cannot read */
  Token *async_tok;    /* 'async def' */
  Node *node;          /* parsed, once needed */
  JitFunc *fn;         /* interpreted, once needed */
};

/* How a module-level statement binds a name. */
typedef enum BindKind {
  BIND_IMPORT,      /* import a.b [as x]: path "a" (or "a.b" with as) */
  BIND_IMPORT_FROM, /* from [.]path import attr [as x] */
  BIND_DEF,         /* def */
  BIND_ASSIGN,      /* NAME = value, NAME: annot = value */
  BIND_CLASS,       /* class: host code */
  BIND_STAR,        /* from [.]path import *: name "*" */
} BindKind;

typedef struct Binding {
  BindKind kind;
  const char *name;
  Token *tok;     /* where the name is bound */
  Token *line;    /* imports: the statement's first token */
  int group;      /* 0 at the module's top level; else the module-level if/try/with it is in */
  const char *path, *attr; /* imports */
  int level;      /* from-imports: the leading dots of a relative import */
  FuncDef *def;   /* BIND_DEF */
  Node *value, *annot; /* BIND_ASSIGN; value NULL when it is not an expression */
  void *cache;    /* sema: the function a kernel-making assignment gives */
} Binding;

struct Module {
  const Source *src;
  const TokenList *toks;
  const char *name;    /* dotted module name ("" for a file outside any package) */
  const char *package; /* for relative imports */
  const char *dir;     /* its file's folder; NULL when not from a file */
  const char *file;    /* its file, as found (imported modules) */
  PtrVec bindings;     /* Binding*, in file order */
  int *by_name;        /* the indices of bindings, sorted by name and then file order
                          (module_bindings_of), so that a lookup does not scan them all */
  PtrVec defs;         /* FuncDef*, in file order */
  int ngroups;
};

/* The bindings of `name` ("*" for the star imports), in file order: the
 * indices m->by_name[*lo .. *hi) of m->bindings. */
void module_bindings_of(const Module *m, const char *name, int *lo, int *hi);

/* Parses a whole Python file's module level; NULL with diagnostics on a
 * syntax error. Function bodies are parsed by parse_funcdef, on demand. */
Module *parse_module(Arena *a, Diags *d, const Source *src, const TokenList *toks);
Node *parse_funcdef(Arena *a, Diags *d, FuncDef *f);


/* ---- types -------------------------------------------------------------- */

typedef enum TypeKind {
  TY_VOID,
  TY_SCALAR, /* dtype */
  TY_PTR,    /* pointee: elem (a scalar type, or a block type for block pointers) */
  TY_BLOCK,  /* elem (scalar or pointer) with shape */
  TY_DESC,   /* tensor descriptor: elem is the block type it loads */
} TypeKind;

typedef struct Type Type;
struct Type {
  TypeKind kind;
  DType dtype;
  const Type *elem;
  int rank;
  int64_t shape[MAX_RANK];
  int addrspace;
};

/* Types are interned: equal types are the same pointer. */
typedef struct TypeCache TypeCache;
TypeCache *types_create(Arena *a);
const Type *ty_void(TypeCache *tc);
const Type *ty_scalar(TypeCache *tc, DType dt);
const Type *ty_ptr(TypeCache *tc, const Type *pointee);
const Type *ty_block(TypeCache *tc, const Type *elem, int rank, const int64_t *shape);
const Type *ty_desc(TypeCache *tc, const Type *block);
const Type *ty_elem(const Type *t);  /* scalar element of a block, or t itself */
const Type *ty_with_elem(TypeCache *tc, const Type *like, const Type *elem);
bool ty_is_block(const Type *t);
bool ty_is_ptr(const Type *t);       /* scalar pointer or block of pointers */
bool ty_is_float(const Type *t);     /* by element */
bool ty_is_int(const Type *t);
void ty_print(StrBuf *sb, const Type *t);
const char *ty_str(Arena *a, const Type *t);

/* ---- the typed, specialized AST (sema's output) -------------------------- */

#define TNODE_KINDS(X) \
  /* statements */ \
  X(ASSIGN) X(IF) X(FOR) X(WHILE) X(RETURN) X(EXPR) \
  /* expressions */ \
  X(CONST) X(VAR) X(BINOP) X(UNOP) X(CMP) X(CAST) X(BITCAST) X(SPLAT) X(BROADCAST) \
  X(EXPAND_DIMS) X(SELECT) X(CALL) X(ADDPTR)

typedef enum TNodeKind {
#define X(k) T_##k,
  TNODE_KINDS(X)
#undef X
  T_COUNT
} TNodeKind;

typedef struct Var {
  const char *name;  /* unique within the kernel: "x", "x_1" for inlined shadows */
  const Type *type;  /* type of the value it holds now */
  int id;
  bool is_param;
  bool no_specialize; /* a parameter @triton.jit(do_not_specialize=) names: the JIT gives it no hint */
  int param_index;   /* for parameters */
} Var;

typedef struct TNode TNode;
typedef struct TNodeList {
  TNode **v;
  int n;
} TNodeList;

/* The builtins a T_CALL names, each lowered by irgen; X(kind), the name
 * --emit=ast prints (a libdevice call prints "libdevice.<symbol>"). */
#define CALL_KINDS(X) \
  X(program_id) X(num_programs) X(arange) \
  X(load) X(store) X(atomic_rmw) X(atomic_cas) X(dot) X(philox) \
  X(make_block_ptr) X(advance) X(make_tensor_descriptor) X(desc_load) X(desc_store) \
  X(maximum) X(minimum) X(clamp) X(fma) X(cdiv) X(umulhi) X(fdiv) X(div_rn) X(sqrt_rn) X(abs) \
  X(exp) X(exp2) X(log) X(log2) X(sqrt) X(rsqrt) X(sin) X(cos) X(erf) X(floor) X(ceil) \
  X(sigmoid) X(softmax) X(libdevice) X(fp_downcast) \
  X(reduce) X(scan) X(reshape) X(trans) X(join) X(cat) X(split) \
  X(multiple_of) X(max_contiguous) X(max_constancy) X(assume) \
  X(device_print) X(device_assert) X(gdc) X(debug_barrier) X(inline_asm)

typedef enum CallKind {
#define X(k) CALL_##k,
  CALL_KINDS(X)
#undef X
  CALL_COUNT
} CallKind;

/* What a reduce or scan combines with; X(kind) as --emit=ast prints it. */
#define REDUCE_KINDS(X) \
  X(sum) X(prod) X(max) X(min) X(xor) X(argmax) X(argmin) X(max_with_index) X(min_with_index) X(combine)

typedef enum ReduceKind {
#define X(k) RK_##k,
  REDUCE_KINDS(X)
#undef X
} ReduceKind;

typedef struct IntList {
  int n;
  int32_t v[MAX_RANK];
} IntList;

/* The constant arguments of a call, checked by sema and read by irgen.
 * Each field belongs to the builtins named beside it; `has` marks the
 * numbers that were given (flags and strings need no mark). */
typedef struct CallAttrs {
  unsigned has;              /* CA_* */
  const char *symbol;        /* libdevice: the function, "pow" */
  ReduceKind reduce;         /* reduce, scan */
  const char *kind;          /* gdc ("wait", ...) */
  int n_rounds;              /* philox */
  const char *op, *sem, *scope; /* atomic_rmw ("add", ...), atomics */
  int64_t start, end;        /* arange */
  int axis;                  /* program_id, num_programs, reduce, scan, softmax */
  bool keep_dims, tie_break_left, reverse; /* reduce, scan */
  bool ieee_rounding;        /* fdiv, softmax: IEEE division, else the approximate one */
  bool approx;               /* fdiv(approx=True): div.approx.f32, a * (1 / b) */
  IntList boundary_check;    /* load, store through block pointers */
  const char *padding, *cache, *evict; /* load, store ("" when absent) */
  bool is_volatile;          /* load */
  const char *input_precision; /* dot */
  int max_num_imprecise_acc; /* dot */
  IntList order;             /* make_block_ptr, trans */
  IntList values;            /* multiple_of, max_contiguous, max_constancy */
  bool can_reorder;          /* reshape */
  bool round_to_zero;        /* fp_downcast: rtz, else rtne */
  bool propagate_nan;        /* maximum, minimum, clamp */
  const char *prefix;        /* device_print */
  bool hex;                  /* device_print */
  const char *msg;           /* device_assert */
  const char *asm_text, *constraints; /* inline_asm: the assembly and its LLVM constraints */
  int pack;                  /* inline_asm: elements per instance */
  bool is_pure;              /* inline_asm: free of side effects */
} CallAttrs;
enum { CA_AXIS = 1, CA_RANGE = 2, CA_N_ROUNDS = 4, CA_IMPRECISE_ACC = 8, CA_REDUCE = 16, CA_ROUNDING = 32 };

/* ast.c */
CallKind call_kind_of(const char *name); /* CALL_COUNT when no builtin call has that name */
const char *call_kind_name(CallKind k);
const char *reduce_kind_name(ReduceKind k);
void call_attrs_print(StrBuf *sb, const CallAttrs *a); /* as --emit=ast shows them */

/* Builtins named by sema and lowered by irgen; attributes ride in `attrs`. */
struct TNode {
  TNodeKind kind;
  const Type *type;         /* expressions: result type (tuple results: see nres) */
  Loc loc;
  const InlineSite *site;
  Op op;                    /* BINOP/UNOP/CMP */
  Var *var;                 /* VAR, ASSIGN target, FOR induction variable */
  TNode *a, *b, *c;         /* operands; IF/WHILE cond in c; FOR lo/hi/step in a/b/c */
  TNodeList args;           /* CALL operands */
  TNodeList body, orelse;   /* IF/FOR/WHILE bodies; WHILE: body is the loop */
  TNodeList before;         /* WHILE: statements computing the condition */
  CallKind callee;          /* CALL: the builtin */
  CallAttrs attrs;          /* CALL: its constant arguments */
  int64_t axis;             /* EXPAND_DIMS axis */
  /* CONST */
  bool cbool;
  int64_t cint;
  double cfloat;
  /* calls with several results (split, reduce with tuples, max with indices) */
  const Type **res_types;
  int nres;
  /* ASSIGN of several results: one var per result; IF/FOR/WHILE: the vars
   * live after the statement that it assigns (scf results / iter_args);
   * CALL of reduce/scan with a combiner: the combiner's parameters, whose
   * statements are in body and yielded values in orelse */
  Var **targets;
  int ntargets;
  /* FOR from tl.range(..., num_stages=, loop_unroll_factor=, disable_licm=); 0 when absent */
  int num_stages;
  int loop_unroll_factor;
  bool disable_licm;
};

/* What the signature says about one kernel parameter. */
typedef struct SigEntry {
  /* SIG_DESC: a host tensor descriptor, `tensordesc<bf16[64, 64]>`: the
   * kernel gets its base pointer, shape and strides as parameters */
  enum { SIG_PTR, SIG_SCALAR, SIG_CONST, SIG_OMITTED, SIG_DESC } kind;
  int rank;                 /* SIG_DESC: the block's rank and shape */
  int64_t block[MAX_RANK];
  DType dtype;
  int divisibility; /* 16 or 1 (":1" means the value equals 1), 0 when absent */
  int index;        /* its position in the signature, from 0 (-1 for a -D value) */
  struct CValue *value; /* SIG_CONST */
  Loc loc;              /* in the signature string, for diagnostics */
} SigEntry;

/* constexpr values */
typedef enum CKind {
  CV_NONE, CV_INT, CV_FLOAT, CV_BOOL, CV_STR, CV_DTYPE, CV_TUPLE,
} CKind;

typedef struct CValue {
  CKind kind;
  int64_t i;
  bool is_unsigned_big; /* int literal in [2^63, 2^64): held as uint64 bits */
  double f;
  bool b;
  const char *s;
  const Type *dtype; /* CV_DTYPE: a scalar or pointer type */
  struct CValue **elems;
  int nelems;
  int depth, size; /* CV_TUPLE: how deeply tuples nest in it (1: flat), and its values, nested ones included */
} CValue;

typedef struct Kernel {
  const char *name;
  Loc loc;
  PtrVec params;        /* Var* of runtime parameters, in order */
  PtrVec param_types;   /* const Type*: each parameter's type (its Var may be re-assigned) */
  PtrVec param_sigs;    /* SigEntry* of runtime parameters */
  PtrVec const_names;   /* const char*, constexpr parameters */
  PtrVec const_values;  /* CValue* */
  TNodeList body;
  int num_warps, num_stages;
  int nvars;
  int nconfigs, config;  /* @triton.autotune's configs, and the one this specialization takes */
  PtrVec autotune_keys;  /* const char*: the parameters whose values key the tuning */
  PtrVec autotune_reset, autotune_restore; /* const char*: pointer parameters tuning zeroes, or restores */
  PtrVec pre_zero;       /* const char*: pointer parameters the config's pre_hook zeroes before each launch */
  PtrVec pre_copy;       /* const char*, in pairs: those it copies into, and from which */
  int tune_warmup, tune_rep; /* ms, @triton.autotune's warmup and rep (0: not given) */
  PtrVec notes;          /* const char*: how module-level names were resolved, for --emit=ast */
  PtrVec deps;           /* const Module*: the other files its compilation read (imported modules) */
} Kernel;

/* Options of one specialization. */
typedef struct SpecOptions {
  const char *kernel;    /* NULL: the file's only kernel */
  const char *signature; /* Triton AOT signature */
  const char **defines;  /* "NAME=VALUE", from -D */
  int ndefines;
  int num_warps;         /* 0: from autotune config / default 4 */
  int num_stages;        /* 0: from autotune config / default 3 */
  int config;            /* the autotune config whose meta-parameters apply: 0 the first */
  const char *path;      /* the kernel file's path on disk (its package and folder are searched); NULL: none */
  const char *const *include_dirs; /* more folders to find imported modules in (-I), then $TILEC_PATH */
  int ninclude_dirs;
} SpecOptions;

Kernel *sema_kernel(Arena *a, Diags *d, TypeCache *tc, const Module *m, const SpecOptions *opt);
/* The kernel's parameters, autotune configs and heuristics as JSON (tilec_describe). */
bool sema_describe(Arena *a, Diags *d, TypeCache *tc, const Module *m, const SpecOptions *opt, StrBuf *out);

/* Printing (the --emit=ast form). */
void ast_print_kernel(StrBuf *sb, const Kernel *k);
void cvalue_print(StrBuf *sb, const CValue *v);

#endif

/* ---- sema internals (sema.c, builtins.c) ---------------------------------- */
#ifdef TILEC_SEMA_INTERNAL

typedef enum VKind {
  V_CONST,   /* a constexpr value */
  V_RT,      /* a runtime value: expression e of type ty */
  V_TUPLE,   /* a tuple of values */
  V_FUNC,    /* a @jit function */
  V_MODULE,  /* a Python module or namespace: path */
  V_BUILTIN, /* a builtin function: builtin */
  V_METHOD,  /* a builtin bound to self */
  V_UNDEF,   /* a name that is not defined on every path */
} VKind;

typedef struct Builtin Builtin;
typedef struct Val Val;
struct Val {
  VKind kind;
  CValue *c;
  TNode *e;
  const Type *ty;
  Val **elems;
  int n;
  JitFunc *fn;
  const char *path;
  const Builtin *builtin;
  Val *self;
  const Module *mod; /* V_MODULE: a module of the user's (path is its dotted name) */
  Loc where; /* V_UNDEF: where the name lost its definition */
  const char *why;
  int depth, size; /* V_TUPLE: as CValue's */
};

typedef struct Sema Sema;
typedef Val *(*BuiltinFn)(Sema *S, Node *call, Val **args, int nargs);

struct Builtin {
  const char *name;   /* "load", "math.exp", "libdevice.pow" */
  const char *params; /* "pointer,mask=,other=" ; '=' optional, '*' varargs */
  BuiltinFn fn;
  int flags;
};
enum { B_METHOD = 1, B_MATH = 2 };

struct Sema {
  Arena *a;
  Diags *d;
  TypeCache *tc;
  const Module *m;
  const Source *src;
  struct Frame *f;
  Kernel *k;
  PtrVec *out; /* statements are appended here */
  int depth;        /* levels of recursion: see sema_enter */
  int mod_depth;    /* module-level values being evaluated, one inside another */
  int import_depth; /* imports being resolved, one inside another */
  bool at_limit;    /* a nesting limit was passed: no attempt takes that error back */
  PtrVec names; /* hash set of the kernel's var names (v has cap slots) */
  long work;    /* statements executed and calls inlined: bounded */
  const struct Builtin *builtin; /* the builtin being called, for its messages */
  const SpecOptions *opt;
  PtrVec mods;       /* Module*: the modules read so far, the kernel's own first */
  PtrVec missing;    /* const char*: dotted names looked for and not found */
  PtrVec defines;    /* const char* "NAME=VALUE": -D for module-level globals */
  PtrVec notes;      /* const char*: how module-level names were resolved */
  int in_module;     /* evaluating a module-level value, not kernel code */
  int ntemps;   /* temporaries made by builtins that use a value more than once */
};

/* sema.c, for builtins.c */
_Noreturn void sema_error(Sema *S, Node *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The error of a nesting limit: it ends the compilation, even inside an
 * attempt (a module-level value tried, which would call it host code). */
_Noreturn void sema_limit_error(Sema *S, Node *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
Loc sema_loc(Node *n);
TNode *tnode(Sema *S, TNodeKind k, Node *at, const Type *ty);
Val *val_rt(Sema *S, TNode *e);
Val *val_const(Sema *S, CValue *c);
CValue *cv_int(Sema *S, int64_t i);
CValue *cv_float(Sema *S, double f);
CValue *cv_bool(Sema *S, bool b);
CValue *cv_str(Sema *S, const char *s);
CValue *cv_tuple(Sema *S, Node *at, CValue *const *elems, int64_t n);
CValue *cv_dtype(Sema *S, const Type *t);
CValue *cv_none(Sema *S);
Val *val_none(Sema *S);
bool val_is_none(const Val *v);
const char *val_desc(Sema *S, const Val *v);
TNode *to_rt(Sema *S, Node *at, Val *v);             /* materialize as a runtime expression */
TNode *to_rt_typed(Sema *S, Node *at, Val *v, const Type *elem); /* with a given scalar type */
TNode *cast_to(Sema *S, Node *at, TNode *e, const Type *elem);
TNode *broadcast_to_shape(Sema *S, Node *at, TNode *e, const Type *shape_like);
const Type *broadcast_shapes(Sema *S, Node *at, const Type *a, const Type *b);
void unify_operands(Sema *S, Node *at, TNode **a, TNode **b); /* broadcast to one shape */
Val *binary_op(Sema *S, Node *at, Op op, Val *a, Val *b);
const Type *check_block_shape(Sema *S, Node *at, const Type *elem, int rank, const int64_t *shape);
int64_t const_int(Sema *S, Node *at, Val *v, const char *what);
bool const_bool(Sema *S, Node *at, Val *v, const char *what);
const char *const_str(Sema *S, Node *at, Val *v, const char *what);
/* sema_format.c: format(v, spec) after the conversion conv ('s' str, 'r'
 * repr, 'a' ascii; 0 none) */
Val *sema_format(Sema *S, Node *at, Val *v, int conv, const char *spec);
/* builtins_host.c: os.environ, os.environ.get and os.getenv in module-level
 * values (NULL for any other name of module path) */
Val *sema_os_attr(Sema *S, const char *path, const char *name);
/* a note for --emit=ast (once, however often it is made) */
void sema_note(Sema *S, const char *note);
const Type *const_dtype(Sema *S, Node *at, Val *v, const char *what);
int const_int_list(Sema *S, Node *at, Val *v, int64_t *out, int max, const char *what);
/* The depth and size of a tuple of these n values; an error past the limits. */
void sema_tuple_nest(Sema *S, Node *at, Val **elems, int n, int *depth, int *size);
Val *sema_tuple_of(Sema *S, Node *at, Val **elems, int n);
/* The evaluated arguments of a call. */
typedef struct Args {
  Val **pos;
  int npos;
  const char **kwn;
  Val **kwv;
  int nkw;
} Args;
Val *call_value(Sema *S, Node *call, Val *callee, Args *args);
TNode *emit_call(Sema *S, Node *at, CallKind callee, const Type *ty, TNode **ops, int nops);
void emit_stmt(Sema *S, TNode *t);

Node *sema_func_def(Sema *S, JitFunc *fn); /* the function's def, parsed on first use */

/* sema_format.c: str() of a Triton dtype ('fp32', 'bf16', 'int32', 'uint8') */
const char *sema_dtype_str(DType d);

/* builtins.c */
const Builtin *builtin_find(const char *name);
Val *builtin_call(Sema *S, Node *call, const Builtin *b, Val *self, Args *args);
bool builtin_is_namespace(const char *path);

#endif
