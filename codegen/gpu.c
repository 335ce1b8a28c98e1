/*
 * gpu.c — the GPU's tail and what both tails share: expand-for-gpu
 * (tilec.* calls to PTX), to-llvm-dialect and to-llvm-ir (MLIR's LLVM
 * dialect to LLVM IR), libdevice, llvm-passes (LLVM's pass list for a
 * kernel) and nvptx (NVPTX's assembly printer); and the target machines.
 *
 * cg_expand_for_gpu replaces each predicated access function with inline
 * PTX (`@p ld.global.b32`, `@p st.global.b32`): only the GPU path sees it.
 * Output is deterministic: the same module gives the same text.
 */
#include "codegen.h"
#include "tilec/tilec.h"

#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/LLVM.h>
#include <mlir-c/Pass.h>
#include <mlir-c/RegisterEverything.h>
#include <mlir-c/Target/LLVMIR.h>

/* Not declared by llvm-c/Target.h unless NVPTX is LLVM's native target. */
void LLVMInitializeNVPTXTargetInfo(void);
void LLVMInitializeNVPTXTarget(void);
void LLVMInitializeNVPTXTargetMC(void);
void LLVMInitializeNVPTXAsmPrinter(void);

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* Inline PTX before `at`: text with its LLVM constraints, kept even when its
 * result is unused when `effects`; rt NULL for none. */
static MlirOperation inline_asm_before(MlirOperation at, MlirLocation loc, MlirStringRef text, MlirStringRef cons,
                                       bool effects, MlirType *rt, int nops, MlirValue *ops) {
  MlirContext ctx = mlirOperationGetContext(at);
  MlirNamedAttribute attrs[3] = {
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("asm_string")), mlirStringAttrGet(ctx, text)),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("constraints")), mlirStringAttrGet(ctx, cons)),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("has_side_effects")), mlirUnitAttrGet(ctx)),
  };
  return create_before(at, "llvm.inline_asm", loc, rt ? 1 : 0, rt, nops, ops, effects ? 3 : 2, attrs);
}

/* A call's result replaced by what `by` computes (its inline PTX); the call goes. */
static void replace_call(MlirOperation call, MlirOperation by) {
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(call, 0), mlirOperationGetResult(by, 0));
  op_erase(call);
}

typedef struct Calls {
  Arena *a;
  PtrVec v;
} Calls;

static void collect(MlirOperation op, void *user) {
  Calls *c = user;
  if (!op_is(op, "llvm.call")) return;
  MlirAttribute callee = mlirOperationGetAttributeByName(op, str("callee"));
  MlirStringRef n = mlirFlatSymbolRefAttrGetValue(callee);
  if (n.length > 6 && !memcmp(n.data, "tilec.", 6)) vec_push(c->a, &c->v, op.ptr);
}

static char reg_letter(int bits) { return bits == 64 ? 'l' : bits == 32 ? 'r' : 'h'; }

/* tilec.ld.v4.b32(ptr, pred, other x4) -> {i32 x4}, tilec.st.v4.b32(ptr, pred, value x4) */
static void expand_vector(Compilation *comp, MlirOperation call, bool load, int vec, int bits) {
  MlirContext ctx = ir_mlir(comp->ic);
  MlirLocation loc = mlirOperationGetLocation(call);
  MlirType i32 = mlirIntegerTypeGet(ctx, 32);
  MlirValue ops[2 + 4];
  ops[0] = mlirOperationGetOperand(call, 0);
  MlirValue pred = mlirOperationGetOperand(call, 1);
  ops[1] = mlirOperationGetResult(create_before(call, "llvm.zext", loc, 1, &i32, 1, &pred, 0, NULL), 0);
  for (int j = 0; j < vec; j++) ops[2 + j] = mlirOperationGetOperand(call, 2 + j);
  char r = reg_letter(bits);
  StrBuf text = {0}, cons = {0};
  if (load) {
    sb_printf(&text, "{ .reg .pred p; setp.ne.b32 p, $%d, 0; ", vec + 1);
    for (int j = 0; j < vec; j++) sb_printf(&text, "mov.b%d $%d, $%d; ", bits, j, vec + 2 + j);
    sb_printf(&text, "@p ld.global.v%d.b%d {", vec, bits);
    for (int j = 0; j < vec; j++) sb_printf(&text, "%s$%d", j ? ", " : "", j);
    sb_printf(&text, "}, [$%d]; }", vec);
    for (int j = 0; j < vec; j++) sb_printf(&cons, "=%c,", r);
    sb_printf(&cons, "l,r");
    for (int j = 0; j < vec; j++) sb_printf(&cons, ",%c", r);
  } else {
    sb_printf(&text, "{ .reg .pred p; setp.ne.b32 p, $1, 0; @p st.global.v%d.b%d [$0], {", vec, bits);
    for (int j = 0; j < vec; j++) sb_printf(&text, "%s$%d", j ? ", " : "", 2 + j);
    sb_printf(&text, "}; }");
    sb_printf(&cons, "l,r");
    for (int j = 0; j < vec; j++) sb_printf(&cons, ",%c", r);
  }
  MlirType rt = load ? mlirValueGetType(mlirOperationGetResult(call, 0)) : (MlirType){NULL};
  MlirOperation a = inline_asm_before(call, loc, mlirStringRefCreate(text.s, text.len), mlirStringRefCreate(cons.s, cons.len),
                                      !load, load ? &rt : NULL, 2 + vec, ops);
  sb_free(&text);
  sb_free(&cons);
  if (load) mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(call, 0), mlirOperationGetResult(a, 0));
  op_erase(call);
}

/* A bf16 atomic add where the target has none (before sm_90), as LLVM
 * expands it: a compare-and-swap loop on the 16- or 32-bit word, each sum
 * taken in f32 and rounded to nearest bf16 (one rounding: f32 has more than
 * twice bf16's bits), subnormals kept: what atom.add.noftz.bf16 computes.
 * Operands as the other atomics: $0 old, $1 address, $2 predicate, $3 value. */
static void bf16_add_loop(char *text, size_t n, bool pair, const char *sem, const char *scope) {
  if (!pair)
    snprintf(text, n,
             "{ .reg .pred p, q; .reg .b16 c, s; .reg .f32 a, b; setp.ne.b32 p, $2, 0; mov.b16 $0, 0; @!p bra tilec_cas_done_${:uid}; "
             "ld.global.b16 c, [$1]; cvt.f32.bf16 b, $3; tilec_cas_loop_${:uid}: cvt.f32.bf16 a, c; add.rn.f32 a, a, b; "
             "cvt.rn.bf16.f32 s, a; atom%s.%s.global.cas.b16 $0, [$1], c, s; setp.ne.b16 q, $0, c; mov.b16 c, $0; "
             "@q bra tilec_cas_loop_${:uid}; tilec_cas_done_${:uid}: }",
             sem, scope);
  else
    snprintf(text, n,
             "{ .reg .pred p, q; .reg .b32 c, s; .reg .b16 cl, ch, vl, vh, sl, sh; .reg .f32 a, b; setp.ne.b32 p, $2, 0; mov.b32 $0, 0; "
             "@!p bra tilec_cas_done_${:uid}; ld.global.b32 c, [$1]; mov.b32 {vl, vh}, $3; tilec_cas_loop_${:uid}: mov.b32 {cl, ch}, c; "
             "cvt.f32.bf16 a, cl; cvt.f32.bf16 b, vl; add.rn.f32 a, a, b; cvt.rn.bf16.f32 sl, a; "
             "cvt.f32.bf16 a, ch; cvt.f32.bf16 b, vh; add.rn.f32 a, a, b; cvt.rn.bf16.f32 sh, a; mov.b32 s, {sl, sh}; "
             "atom%s.%s.global.cas.b32 $0, [$1], c, s; setp.ne.b32 q, $0, c; mov.b32 c, $0; @q bra tilec_cas_loop_${:uid}; "
             "tilec_cas_done_${:uid}: }",
             sem, scope);
}

/* tilec.atom.<op>.<sem>.<scope>.<type>(ptr, pred, operands...) -> old value;
 * type f16, bf16 (16-bit adds) or f16x2, bf16x2 (two in a 32-bit word). */
static void expand_atomic(Compilation *comp, MlirOperation call, MlirStringRef n, int sm) {
  MlirContext ctx = ir_mlir(comp->ic);
  MlirLocation loc = mlirOperationGetLocation(call);
  char spec[96];
  snprintf(spec, sizeof spec, "%.*s", (int)(n.length - 11), n.data + 11); /* op.sem.scope.type */
  char opn[16], sem[16], scope[16], ty[8];
  if (sscanf(spec, "%15[^.].%15[^.].%15[^.].%7s", opn, sem, scope, ty) != 4)
    internal_error(__FILE__, __LINE__, "malformed atomic name");
  bool half = !strcmp(ty, "f16") || !strcmp(ty, "bf16"), pair = !strcmp(ty, "f16x2") || !strcmp(ty, "bf16x2");
  int bits = pair ? 32 : half ? 16 : atoi(ty + 1);
  char r = reg_letter(bits);
  MlirType i32 = mlirIntegerTypeGet(ctx, 32);
  MlirValue pred = mlirOperationGetOperand(call, 1);
  MlirValue ops[4] = {mlirOperationGetOperand(call, 0),
                      mlirOperationGetResult(create_before(call, "llvm.zext", loc, 1, &i32, 1, &pred, 0, NULL), 0)};
  int nv = (int)mlirOperationGetNumOperands(call) - 2;
  for (int i = 0; i < nv; i++) ops[2 + i] = mlirOperationGetOperand(call, 2 + i);
  char text[1024], cons[64];
  /* relaxed atomics have no ordering suffix in PTX: .relaxed needs a scope too */
  const char *s = !strcmp(sem, "relaxed") ? ".relaxed" : !strcmp(sem, "acquire") ? ".acquire" : !strcmp(sem, "release") ? ".release" : ".acq_rel";
  if ((half || pair) && ty[0] == 'b' && sm < 90)
    bf16_add_loop(text, sizeof text, pair, s, scope);
  else if (half || pair) /* 16-bit float adds keep subnormals: PTX spells it out */
    snprintf(text, sizeof text, "{ .reg .pred p; setp.ne.b32 p, $2, 0; mov.b%d $0, 0; @p atom%s.%s.global.add.noftz.%s $0, [$1], $3; }",
             bits, s, scope, ty);
  else if ((!strcmp(opn, "max") || !strcmp(opn, "min")) && ty[0] == 'f') {
    /* PTX has no float max or min atomic: as Triton, by the bits as
     * integers. A non-negative float orders as a signed integer, a negative
     * one in reverse as an unsigned integer (its sign bit set, above every
     * non-negative one): max is max.s where the value is non-negative and
     * min.u where it is negative; min the other way round. */
    bool max = !strcmp(opn, "max");
    snprintf(text, sizeof text,
             "{ .reg .pred p, n, a, b; setp.ne.b32 p, $2, 0; setp.lt.s%d n, $3, 0; not.pred a, n; and.pred a, a, p; "
             "and.pred b, n, p; mov.b%d $0, 0; @a atom%s.%s.global.%s.s%d $0, [$1], $3; "
             "@b atom%s.%s.global.%s.u%d $0, [$1], $3; }",
             bits, bits, s, scope, max ? "max" : "min", bits, s, scope, max ? "min" : "max", bits);
  } else if (nv == 2)
    snprintf(text, sizeof text, "{ .reg .pred p; setp.ne.b32 p, $2, 0; mov.b%d $0, 0; @p atom%s.%s.global.%s.%s $0, [$1], $3, $4; }",
             bits, s, scope, opn, ty);
  else
    snprintf(text, sizeof text, "{ .reg .pred p; setp.ne.b32 p, $2, 0; mov.b%d $0, 0; @p atom%s.%s.global.%s.%s $0, [$1], $3; }",
             bits, s, scope, opn, ty);
  if (nv == 2) snprintf(cons, sizeof cons, "=%c,l,r,%c,%c", r, r, r);
  else snprintf(cons, sizeof cons, "=%c,l,r,%c", r, r);
  MlirType rt = mlirValueGetType(mlirOperationGetResult(call, 0));
  MlirOperation a = inline_asm_before(call, loc, str(text), str(cons), true, &rt, 2 + nv, ops);
  replace_call(call, a);
}

/* tilec.cvt.rz.<to>.<from>(x): a conversion rounding toward zero, which
 * LLVM's fptrunc cannot say; an f16 or bf16 result comes back as its i16 bits. */
static void expand_cvt(Compilation *comp, MlirOperation call, MlirStringRef n) {
  char text[64], cons[16];
  snprintf(text, sizeof text, "cvt.%.*s $0, $1;", (int)(n.length - 10), n.data + 10);
  MlirValue x = mlirOperationGetOperand(call, 0);
  MlirType rt = mlirValueGetType(mlirOperationGetResult(call, 0));
  snprintf(cons, sizeof cons, "=%c,%c", mlirTypeIsAInteger(rt) ? 'h' : 'f', mlirTypeIsAF64(mlirValueGetType(x)) ? 'd' : 'f');
  MlirOperation a = inline_asm_before(call, mlirOperationGetLocation(call), str(text), str(cons), false, &rt, 1, &x);
  replace_call(call, a);
}

/* tilec.mma.<shape>.row.col.<types>(a0..a3, b0, b1, c...) -> {i32 x nc}:
 * the mma.sync, every register a 32-bit one. */
static void expand_mma(MlirOperation call, MlirStringRef n) {
  int nc = (int)mlirOperationGetNumOperands(call) - 6;
  StrBuf text = {0}, cons = {0};
  sb_printf(&text, "mma.sync.aligned.%.*s {", (int)n.length - 10, n.data + 10);
  for (int i = 0; i < nc; i++) sb_printf(&text, "%s$%d", i ? ", " : "", i);
  sb_printf(&text, "}, {$%d, $%d, $%d, $%d}, {$%d, $%d}, {", nc, nc + 1, nc + 2, nc + 3, nc + 4, nc + 5);
  for (int i = 0; i < nc; i++) sb_printf(&text, "%s$%d", i ? ", " : "", nc + 6 + i);
  sb_printf(&text, "};");
  for (int i = 0; i < nc; i++) sb_printf(&cons, "=r,");
  for (int i = 0; i < 6 + nc; i++) sb_printf(&cons, "%sr", i ? "," : "");
  MlirValue ops[10];
  for (int i = 0; i < 6 + nc; i++) ops[i] = mlirOperationGetOperand(call, i);
  MlirType rt = mlirValueGetType(mlirOperationGetResult(call, 0));
  MlirOperation a = inline_asm_before(call, mlirOperationGetLocation(call), mlirStringRefCreate(text.s, text.len),
                                      mlirStringRefCreate(cons.s, cons.len), false, &rt, 6 + nc, ops);
  sb_free(&text);
  sb_free(&cons);
  replace_call(call, a);
}

/* tilec.ldmatrix.x<n>[.trans].b16(row) -> {i32 x n}: the row's address is
 * a shared-space pointer, 32 bits wide (short pointers, see register_once). */
static void expand_ldmatrix(MlirOperation call, MlirStringRef n) {
  int num = n.data[16] - '0';
  bool trans = n.length > 21 && !memcmp(n.data + 17, ".trans", 6);
  StrBuf text = {0}, cons = {0};
  sb_printf(&text, "ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 {", num, trans ? ".trans" : "");
  for (int i = 0; i < num; i++) sb_printf(&text, "%s$%d", i ? ", " : "", i);
  sb_printf(&text, "}, [$%d];", num);
  for (int i = 0; i < num; i++) sb_printf(&cons, "=r,");
  sb_printf(&cons, "r");
  MlirValue row = mlirOperationGetOperand(call, 0);
  MlirType rt = mlirValueGetType(mlirOperationGetResult(call, 0));
  MlirOperation a = inline_asm_before(call, mlirOperationGetLocation(call), mlirStringRefCreate(text.s, text.len),
                                      mlirStringRefCreate(cons.s, cons.len), true, &rt, 1, &row);
  sb_free(&text);
  sb_free(&cons);
  replace_call(call, a);
}

/* tilec.cp.async.<n>(dst, src, pred): a copy of n bytes from global to
 * shared memory, its source size 0 where pred is false (the destination
 * then filled with zeros, nothing read); .cg (L2 only, as Triton) for 16
 * bytes, .ca for 4 and 8, which .cg does not take. tilec.cp.async.commit()
 * and tilec.cp.async.wait.<k>() are commit_group and wait_group k. */
static void expand_cp_async(Compilation *comp, MlirOperation call, MlirStringRef n) {
  MlirLocation loc = mlirOperationGetLocation(call);
  char text[160];
  const char *rest = n.data + 15;
  int len = (int)n.length - 15;
  if (len == 6 && !memcmp(rest, "commit", 6)) {
    inline_asm_before(call, loc, str("cp.async.commit_group;"), str(""), true, NULL, 0, NULL);
  } else if (len > 5 && !memcmp(rest, "wait.", 5)) {
    snprintf(text, sizeof text, "cp.async.wait_group %.*s;", len - 5, rest + 5);
    inline_asm_before(call, loc, str(text), str(""), true, NULL, 0, NULL);
  } else {
    int bytes = atoi(rest);
    MlirType i32 = mlirIntegerTypeGet(ir_mlir(comp->ic), 32);
    MlirValue pred = mlirOperationGetOperand(call, 2);
    MlirValue ops[3] = {mlirOperationGetOperand(call, 0), mlirOperationGetOperand(call, 1),
                        mlirOperationGetResult(create_before(call, "llvm.zext", loc, 1, &i32, 1, &pred, 0, NULL), 0)};
    snprintf(text, sizeof text,
             "{ .reg .pred p; .reg .b32 n; setp.ne.b32 p, $2, 0; selp.b32 n, %d, 0, p; cp.async.%s.shared.global [$0], [$1], %d, n; }",
             bytes, bytes == 16 ? "cg" : "ca", bytes);
    inline_asm_before(call, loc, str(text), str("r,l,r"), true, NULL, 3, ops); /* 32-bit shared address */
  }
  op_erase(call);
}

/* wgmma's calls (lower_wgmma.c): tilec.wgmma.fence(), commit(), wait.<k>(d...)
 * -> {d...} (the registers tied through it), tilec.wgmma.<form>(d...,
 * a_desc | a0..a3, b_desc, scale_d) -> {d...}, tilec.fence.proxy.async(),
 * and tilec.smem.addr(p) -> i32 (a shared pointer's 32 bits). */
static void expand_wgmma(Compilation *comp, MlirOperation call, MlirStringRef n) {
  MlirLocation loc = mlirOperationGetLocation(call);
  MlirContext ctx = ir_mlir(comp->ic);
  if (n.length == 15 && !memcmp(n.data, "tilec.smem.addr", 15)) {
    MlirType i32 = mlirIntegerTypeGet(ctx, 32);
    MlirValue p = mlirOperationGetOperand(call, 0);
    replace_call(call, create_before(call, "llvm.ptrtoint", loc, 1, &i32, 1, &p, 0, NULL));
    return;
  }
  static const struct {
    const char *name, *ptx;
  } fixed[] = {{"tilec.fence.proxy.async", "fence.proxy.async.shared::cta;"},
               {"tilec.wgmma.fence", "wgmma.fence.sync.aligned;"},
               {"tilec.wgmma.commit", "wgmma.commit_group.sync.aligned;"}};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
    if (n.length == strlen(fixed[i].name) && !memcmp(n.data, fixed[i].name, n.length)) {
      inline_asm_before(call, loc, str(fixed[i].ptx), str(""), true, NULL, 0, NULL);
      op_erase(call);
      return;
    }
  int nops = (int)mlirOperationGetNumOperands(call);
  MlirValue *ops = arena_alloc(comp->a, sizeof(MlirValue) * (size_t)(nops ? nops : 1));
  for (int i = 0; i < nops; i++) ops[i] = mlirOperationGetOperand(call, i);
  MlirType rt = mlirValueGetType(mlirOperationGetResult(call, 0));
  StrBuf text = {0}, cons = {0};
  bool wait = n.length == 18 && !memcmp(n.data, "tilec.wgmma.wait.", 17);
  CgWgmma f;
  if (!wait) cg_wgmma_form(n, &f); /* cg_check_calls let only such names through */
  /* the D registers, outputs tied to the inputs they accumulate */
  int nd = wait ? nops : f.nd;
  for (int i = 0; i < nd; i++) sb_printf(&cons, "%s=r", i ? "," : "");
  for (int i = 0; i < nd; i++) sb_printf(&cons, ",%d", i);
  if (wait) {
    /* the accumulators pass through the wait, so that none is read before it */
    sb_printf(&text, "wgmma.wait_group.sync.aligned %c;", n.data[17]);
  } else {
    int at = 2 * nd; /* the operands after the outputs and the tied inputs */
    sb_printf(&text, "{ .reg .pred p; setp.ne.b32 p, $%d, 0; wgmma.mma_async.sync.aligned.m64n%dk%d.%s.%s.%s {", at + (f.areg ? 5 : 2),
              f.n, f.k, f.dtype, f.atype, f.btype);
    for (int i = 0; i < nd; i++) sb_printf(&text, "%s$%d", i ? ", " : "", i);
    if (f.areg) sb_printf(&text, "}, {$%d, $%d, $%d, $%d}, $%d, p", at, at + 1, at + 2, at + 3, at + 4);
    else sb_printf(&text, "}, $%d, $%d, p", at, at + 1);
    /* imm-scale-a, imm-scale-b (not for integers), imm-trans-a (A in
     * shared memory) and imm-trans-b (16-bit types only) */
    bool sixteen = !strcmp(f.atype, "f16") || !strcmp(f.atype, "bf16");
    if (strcmp(f.atype, "s8")) sb_printf(&text, ", 1, 1");
    if (sixteen) sb_printf(&text, f.areg ? ", %d" : ", 0, %d", f.tb ? 1 : 0);
    sb_printf(&text, "; }");
    sb_printf(&cons, f.areg ? ",r,r,r,r,l,r" : ",l,l,r");
  }
  MlirOperation a = inline_asm_before(call, loc, mlirStringRefCreate(text.s, text.len), mlirStringRefCreate(cons.s, cons.len), true,
                                      &rt, nops, ops);
  sb_free(&text);
  sb_free(&cons);
  replace_call(call, a);
}

/* TMA's calls (lower_tma.c): the mbarrier's, the tiled copies and the
 * bulk group's. try_wait.parity waits until the phase completes (a
 * try_wait may give up after a time the hardware picks: it is asked
 * again), so its result is true. */
static void expand_tma(Compilation *comp, MlirOperation call, MlirStringRef n) {
  MlirLocation loc = mlirOperationGetLocation(call);
  MlirContext ctx = ir_mlir(comp->ic);
  int nops = (int)mlirOperationGetNumOperands(call);
  MlirValue ops[8];
  for (int i = 0; i < nops && i < 8; i++) ops[i] = mlirOperationGetOperand(call, i);
  char text[256], cons[32];
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  if (n.length > 14 && !memcmp(n.data, "tilec.tma.", 10)) {
    bool load = n.data[10] == 'l';
    int r = nops - (load ? 3 : 2);
    StrBuf c = {0};
    for (int d = 0; d < r; d++) sb_printf(&c, "%s$%d", d ? ", " : "", d + (load ? 2 : 1));
    if (load)
      snprintf(text, sizeof text, "cp.async.bulk.tensor.%dd.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {%s}], [$%d];",
               r, c.s, r + 2);
    else
      snprintf(text, sizeof text, "cp.async.bulk.tensor.%dd.global.shared::cta.tile.bulk_group [$0, {%s}], [$%d];", r, c.s, r + 1);
    sb_free(&c);
    snprintf(cons, sizeof cons, "%s", load ? "r,l" : "l");
    for (int d = 0; d < r; d++) strcat(cons, ",r");
    strcat(cons, ",r");
    inline_asm_before(call, loc, str(text), str(cons), true, NULL, nops, ops);
    op_erase(call);
    return;
  }
  static const struct {
    const char *name, *ptx, *cons;
  } fixed[] = {
      {"tilec.bulk.commit", "cp.async.bulk.commit_group;", ""},
      {"tilec.bulk.wait.read.0", "cp.async.bulk.wait_group.read 0;", ""},
      {"tilec.mbarrier.init", "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r"},
      {"tilec.mbarrier.inval", "mbarrier.inval.shared::cta.b64 [$0];", "r"},
      {"tilec.mbarrier.arrive.expect_tx", "mbarrier.arrive.expect_tx.shared::cta.b64 $0, [$1], $2;", "=l,r,r"},
      {"tilec.mbarrier.try_wait.parity",
       "{ .reg .pred p; WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1; @!p bra WAIT; }", "r,r"},
  };
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
    if (n.length != strlen(fixed[i].name) || memcmp(n.data, fixed[i].name, n.length)) continue;
    bool result = fixed[i].cons[0] == '=';
    MlirOperation a = inline_asm_before(call, loc, str(fixed[i].ptx), str(fixed[i].cons), true, result ? &i64 : NULL, nops, ops);
    if (result) {
      replace_call(call, a);
      return;
    }
    if (mlirOperationGetNumResults(call)) {
      MlirType i1 = mlirIntegerTypeGet(ctx, 1);
      MlirNamedAttribute v = mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("value")), mlirIntegerAttrGet(i1, 1));
      replace_call(call, create_before(call, "llvm.mlir.constant", loc, 1, &i1, 0, NULL, 1, &v));
      return;
    }
    op_erase(call);
    return;
  }
}

static void expand_call(Compilation *comp, MlirOperation call, int sm) {
  MlirContext ctx = ir_mlir(comp->ic);
  MlirStringRef n = mlirFlatSymbolRefAttrGetValue(mlirOperationGetAttributeByName(call, str("callee")));
  if (n.length > 10 && !memcmp(n.data, "tilec.cvt.", 10)) {
    expand_cvt(comp, call, n);
    return;
  }
  if (n.length > 11 && !memcmp(n.data, "tilec.atom.", 11)) {
    expand_atomic(comp, call, n, sm);
    return;
  }
  if (n.length > 10 && !memcmp(n.data, "tilec.mma.", 10)) {
    expand_mma(call, n);
    return;
  }
  if (n.length > 15 && !memcmp(n.data, "tilec.cp.async.", 15)) {
    expand_cp_async(comp, call, n);
    return;
  }
  if (n.length > 16 && !memcmp(n.data, "tilec.ldmatrix.", 15)) {
    expand_ldmatrix(call, n);
    return;
  }
  if ((n.length > 12 && !memcmp(n.data, "tilec.wgmma.", 12)) || (n.length == 15 && !memcmp(n.data, "tilec.smem.addr", 15)) ||
      (n.length == 23 && !memcmp(n.data, "tilec.fence.proxy.async", 23))) {
    expand_wgmma(comp, call, n);
    return;
  }
  if ((n.length > 10 && !memcmp(n.data, "tilec.tma.", 10)) || (n.length > 15 && !memcmp(n.data, "tilec.mbarrier.", 15)) ||
      (n.length > 11 && !memcmp(n.data, "tilec.bulk.", 11))) {
    expand_tma(comp, call, n);
    return;
  }
  if (n.length > 10 && !memcmp(n.data, "tilec.gdc.", 10)) {
    /* programmatic dependent launch: sm_90's griddepcontrol; nothing before it */
    if (sm >= 90) {
      char asm_text[64];
      snprintf(asm_text, sizeof asm_text, "griddepcontrol.%.*s;", (int)n.length - 10, n.data + 10);
      inline_asm_before(call, mlirOperationGetLocation(call), str(asm_text), str(""), true, NULL, 0, NULL);
    }
    op_erase(call);
    return;
  }
  bool load = n.length > 9 && !memcmp(n.data, "tilec.ld.", 9);
  if (n.data[9] == 'v') {
    int vec = atoi(n.data + 10);
    const char *b = memchr(n.data + 10, 'b', n.length - 10);
    expand_vector(comp, call, load, vec, b ? atoi(b + 1) : 32);
    return;
  }
  int bits = atoi(n.data + 10);
  MlirLocation loc = mlirOperationGetLocation(call);
  MlirValue ptr = mlirOperationGetOperand(call, 0), pred = mlirOperationGetOperand(call, 1);
  MlirValue data = mlirOperationGetOperand(call, 2);
  /* inline asm takes no i1: the predicate travels as an i32 */
  MlirType i32 = mlirIntegerTypeGet(ctx, 32);
  MlirValue p32 = mlirOperationGetResult(create_before(call, "llvm.zext", loc, 1, &i32, 1, &pred, 0, NULL), 0);
  MlirType it = mlirIntegerTypeGet(ctx, (unsigned)(bits < 16 ? 16 : bits));
  if (bits < 16) {
    data = mlirOperationGetResult(create_before(call, "llvm.zext", loc, 1, &it, 1, &data, 0, NULL), 0);
  }
  char asm_text[256], cons[64];
  char r = reg_letter(bits < 16 ? 16 : bits);
  int mb = bits < 16 ? 16 : bits;
  if (load) {
    snprintf(asm_text, sizeof asm_text,
             "{ .reg .pred p; setp.ne.b32 p, $2, 0; mov.b%d $0, $3; @p ld.global.b%d $0, [$1]; }", mb, bits);
    snprintf(cons, sizeof cons, "=%c,l,r,%c", r, r);
  } else {
    snprintf(asm_text, sizeof asm_text, "{ .reg .pred p; setp.ne.b32 p, $1, 0; @p st.global.b%d [$0], $2; }", bits);
    snprintf(cons, sizeof cons, "l,r,%c", r);
  }
  MlirValue ops[3] = {ptr, p32, data};
  MlirOperation a = inline_asm_before(call, loc, str(asm_text), str(cons), !load, load ? &it : NULL, 3, ops);
  if (load) {
    MlirValue v = mlirOperationGetResult(a, 0);
    MlirType want = mlirValueGetType(mlirOperationGetResult(call, 0));
    if (bits < 16) v = mlirOperationGetResult(create_before(call, "llvm.trunc", loc, 1, &want, 1, &v, 0, NULL), 0);
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(call, 0), v);
  }
  op_erase(call);
}

bool cg_expand_for_gpu(Compilation *comp, MlirOperation module) {
  if (!cg_check_calls(comp, module, "expand-for-gpu")) return false;
  int sm = comp->target->sm;
  Calls c = {.a = comp->a};
  walk_ops(module, collect, &c, false);
  for (int i = 0; i < c.v.n; i++) expand_call(comp, (MlirOperation){c.v.v[i]}, sm);
  /* the declarations go with the calls */
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body), next; !mlirOperationIsNull(op); op = next) {
    next = mlirOperationGetNextInBlock(op);
    MlirStringRef n = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("sym_name")));
    if (n.length > 6 && !memcmp(n.data, "tilec.", 6)) op_erase(op);
  }
  return true;
}

/* When the kernel calls libdevice (__nv_*), links the toolkit's
 * libdevice.10.bc and makes everything but the kernels internal, so that
 * LLVM's passes keep only what is used; NVPTX's NVVMReflect resolves __nvvm_reflect. */
bool cg_link_libdevice(Compilation *comp, LLVMModuleRef lm) {
  LLVMContextRef lctx = LLVMGetModuleContext(lm);
  bool uses = false;
  for (LLVMValueRef f = LLVMGetFirstFunction(lm); f; f = LLVMGetNextFunction(f)) {
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    if (n > 5 && !memcmp(name, "__nv_", 5) && LLVMIsDeclaration(f)) uses = true;
  }
  if (!uses) return true;
  const char *home = TILEC_CUDA_HOME;
  char path[1024];
  snprintf(path, sizeof path, "%s/nvvm/libdevice/libdevice.10.bc", home);
  LLVMMemoryBufferRef buf;
  char *msg = NULL;
  if (!*home || LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg)) {
    diag_plain_error(comp->d, "this kernel needs libdevice, and %s cannot be read%s%s", *home ? path : "no CUDA toolkit was found: libdevice.10.bc",
                     msg ? ": " : "", msg ? msg : "");
    if (msg) LLVMDisposeMessage(msg);
    return false;
  }
  /* read lazily: a function's body is read only when the linker takes it, and it
   * takes only what the kernel calls, directly or not (below, every definition is
   * linkonce, which the linker brings in where referenced): a few of libdevice's
   * ~500 functions, not all of them parsed and then dropped */
  LLVMModuleRef dev;
  bool bad = LLVMGetBitcodeModuleInContext2(lctx, buf, &dev);
  if (bad) {
    LLVMDisposeMemoryBuffer(buf);
    diag_plain_error(comp->d, "%s is not valid bitcode", path);
    return false;
  }
  LLVMSetTarget(dev, "nvptx64-nvidia-cuda");
  LLVMSetDataLayout(dev, LLVMGetDataLayoutStr(lm));
  /* every function the kernel declares must be libdevice's, of its type:
   * the linker would leave an unknown name for ptxas to reject, and call a
   * function of another type with the wrong arguments */
  for (LLVMValueRef f = LLVMGetFirstFunction(lm); f; f = LLVMGetNextFunction(f)) {
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    if (n <= 5 || memcmp(name, "__nv_", 5) || !LLVMIsDeclaration(f)) continue;
    LLVMValueRef d = LLVMGetNamedFunction(dev, name);
    if (!d || LLVMGlobalGetValueType(d) != LLVMGlobalGetValueType(f)) {
      Loc none = {0};
      diag_internal_error(comp->d, none, "libdevice %s function '%s' (please report it)",
                          d ? "has another type for" : "has no", name);
      LLVMDisposeModule(dev);
      return false;
    }
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(dev); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage) LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
  if (LLVMLinkModules2(lm, dev)) {
    diag_plain_error(comp->d, "linking libdevice failed");
    return false;
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(lm); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    if (n > 5 && !memcmp(name, "__nv_", 5)) LLVMSetLinkage(f, LLVMInternalLinkage);
  }
  /* libdevice's flush-to-zero variants (.ftz arithmetic), as Triton 3.9 links it by
   * default (its enable_reflect_ftz); the emulator models them (emu/math.c) */
  LLVMAddModuleFlag(lm, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16,
                    LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(lctx), 1, 0)));
  return true;
}

static void register_once(void) {
  mlirRegisterAllPasses();
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  /* 32-bit pointers to shared memory, as Triton has them: one register per
   * shared address, 32-bit adds, no widening before ld/st.shared. */
  const char *argv[] = {"tilec", "-nvptx-short-ptr"};
  LLVMParseCommandLineOptions(2, argv, NULL);
}

static pthread_once_t registered = PTHREAD_ONCE_INIT;

static const char *target_names[64];
static pthread_once_t named = PTHREAD_ONCE_INIT;

static void name_targets(void) {
  for (int i = 0; i < ntargets && i < 63; i++) target_names[i] = targets[i].name;
}

const char *const *tilec_targets(void) {
  pthread_once(&named, name_targets);
  return target_names;
}

struct CgCache {
  LLVMTargetMachineRef tm[64]; /* by the targets' order in ir/target.c, then again for
                                  PTX 8.4 (fp8 mma) from NEWER_PTX on; the host's last */
};
#define HOST_MACHINE 63
#define NEWER_PTX 32

CgCache *cg_cache_create(void) { return calloc(1, sizeof(CgCache)); }

void cg_cache_destroy(CgCache *c) {
  if (!c) return;
  for (int i = 0; i < 64; i++)
    if (c->tm[i]) LLVMDisposeTargetMachine(c->tm[i]);
  free(c);
}

static LLVMTargetMachineRef make_machine(Compilation *comp, const Target *gpu) {
  pthread_once(&registered, register_once);
  const char *arch = gpu ? gpu->name : NULL;
  char *triple = arch ? NULL : LLVMGetDefaultTargetTriple(), *msg = NULL;
  LLVMTargetRef target;
  LLVMTargetMachineRef tm = NULL;
  if (LLVMGetTargetFromTriple(arch ? "nvptx64-nvidia-cuda" : triple, &target, &msg)) {
    diag_plain_error(comp->d, "no %s target in this LLVM: %s", arch ? "NVPTX" : "host", msg ? msg : "");
  } else if (arch) {
    /* The Default level gives the same PTX as Aggressive for every example
     * and tutorial kernel (it runs EarlyCSE where Aggressive runs GVN
     * twice), 0.1 ms sooner. */
    char features[16];
    snprintf(features, sizeof features, "+ptx%d", comp->ptx_isa > gpu->ptx ? comp->ptx_isa : gpu->ptx);
    tm = LLVMCreateTargetMachine(target, "nvptx64-nvidia-cuda", arch, features, LLVMCodeGenLevelDefault,
                                 LLVMRelocDefault, LLVMCodeModelDefault);
  } else {
    char *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
    tm = LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelDefault, LLVMRelocPIC,
                                 LLVMCodeModelDefault);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
  }
  if (msg) LLVMDisposeMessage(msg);
  if (triple) LLVMDisposeMessage(triple);
  return tm;
}

LLVMTargetMachineRef cg_target_machine(Compilation *comp, bool host) {
  int i = host ? HOST_MACHINE : (int)(comp->target - targets) + (comp->ptx_isa > comp->target->ptx ? NEWER_PTX : 0);
  if (!comp->cg->tm[i]) comp->cg->tm[i] = make_machine(comp, host ? NULL : comp->target);
  return comp->cg->tm[i];
}

/* The dialects MLIR still has to convert to LLVM's, by what their ops'
 * names begin with; the conversion runs only the passes they need. */
enum { HAS_SCF = 1, HAS_CF = 2, HAS_MATH = 4, HAS_ARITH = 8, HAS_CAST = 16 };

static MlirWalkResult dialects_cb(MlirOperation op, void *user) {
  static const struct {
    const char *prefix;
    int flag;
  } known[] = {{"scf.", HAS_SCF}, {"cf.", HAS_CF}, {"math.", HAS_MATH}, {"arith.", HAS_ARITH},
               {"builtin.unrealized_conversion_cast", HAS_CAST}};
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  if (n.length > 5 && !memcmp(n.data, "llvm.", 5)) return MlirWalkResultAdvance;
  for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
    size_t k = strlen(known[i].prefix);
    if (n.length >= k && !memcmp(n.data, known[i].prefix, k)) *(int *)user |= known[i].flag;
  }
  return MlirWalkResultAdvance;
}

/* scf-to-cf leaves a loop's #llvm.loop_annotation on its back edge as the
 * discardable llvm.loop_annotation, which translation ignores; llvm.br
 * reads it as its own loop_annotation. */
static MlirWalkResult loop_annotation_cb(MlirOperation op, void *user) {
  (void)user;
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  if (n.length != 7 || memcmp(n.data, "llvm.br", 7)) return MlirWalkResultAdvance;
  MlirAttribute a = mlirOperationGetAttributeByName(op, str("llvm.loop_annotation"));
  if (mlirAttributeIsNull(a)) return MlirWalkResultAdvance;
  mlirOperationRemoveAttributeByName(op, str("llvm.loop_annotation"));
  mlirOperationSetAttributeByName(op, str("loop_annotation"), a);
  return MlirWalkResultAdvance;
}

/* Whether a loop asks to be unrolled (tl.range's loop_unroll_factor). */
static MlirWalkResult unroll_cb(MlirOperation op, void *user) {
  /* on the loop before to-llvm-dialect, on its back edge after */
  MlirAttribute a = mlirOperationGetAttributeByName(op, str("llvm.loop_annotation"));
  if (mlirAttributeIsNull(a)) a = mlirOperationGetAttributeByName(op, str("loop_annotation"));
  if (mlirAttributeIsNull(a)) return MlirWalkResultAdvance;
  StrBuf t = {0};
  ir_attr_text(&t, a);
  if (t.s && strstr(t.s, "unroll")) *(bool *)user = true;
  sb_free(&t);
  return MlirWalkResultAdvance;
}

bool cg_asks_unroll(MlirOperation module) {
  bool unroll = false;
  mlirOperationWalk(module, unroll_cb, &unroll, MlirWalkPreOrder);
  return unroll;
}

bool cg_to_llvm_dialect(Compilation *comp, MlirOperation module) {
  pthread_once(&registered, register_once);
  int has = 0;
  mlirOperationWalk(module, dialects_cb, &has, MlirWalkPreOrder);
  if (has & HAS_SCF) has |= HAS_CF | HAS_ARITH; /* scf becomes cf, with arith for the loop bounds */
  StrBuf pipeline = {0}, err = {0};
  sb_printf(&pipeline, "builtin.module(%s%s%s%s", has & HAS_SCF ? "convert-scf-to-cf," : "",
            has & HAS_CF ? "convert-cf-to-llvm," : "", has & HAS_MATH ? "convert-math-to-llvm," : "",
            has & HAS_ARITH ? "convert-arith-to-llvm," : "");
  sb_printf(&pipeline, "reconcile-unrealized-casts)");
  bool ok = true;
  if (has) {
    MlirPassManager pm = ir_pipeline(comp->ic, pipeline.s, &err);
    ok = !mlirPassManagerIsNull(pm) && mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, module));
  }
  sb_free(&pipeline);
  if (!ok) {
    diag_plain_error(comp->d, "lowering to the LLVM dialect failed%s%s", err.len ? ": " : "", err.s ? err.s : "");
    sb_free(&err);
    return false;
  }
  sb_free(&err);
  mlirOperationWalk(module, loop_annotation_cb, NULL, MlirWalkPreOrder);
  return true;
}

LLVMModuleRef cg_translate(Compilation *comp, MlirOperation module, LLVMContextRef lctx) {
  pthread_once(&registered, register_once);
  LLVMModuleRef lm = mlirTranslateModuleToLLVMIR(module, lctx);
  if (!lm) diag_plain_error(comp->d, "translation to LLVM IR failed");
  return lm;
}

/* LLVM's passes for a kernel. Not default<O3>: the lowering hands LLVM
 * one function with no allocas, no calls but libdevice's and each index
 * computed once, so O3's module and call-graph machinery finds nothing to
 * do and costs 1 ms (of 3.7 for vector add). What O3 does that matters is
 * here: libdevice resolved (nvvm-reflect, which the Python-free pipeline
 * text must name: the target adds it only to default<On>) and inlined
 * (its functions are alwaysinline), thread-index ranges, instcombine,
 * value ranges, reassociation, LICM and loop rotation, loop clean-up,
 * alignment inference (shared-memory accesses become vectors in NVPTX
 * only with it), SLP vectorization. For the example kernels and the
 * tutorials' (24 kernels, sm_80 and sm_90a) it gives the PTX of a pipeline
 * holding all of O2's function passes; with the Default codegen level
 * that PTX is O3's and Aggressive's for 17 of the 24, differs in register
 * names only for 3, by one instruction for the 3 dw/db kernels, and for
 * block_ptr's row_sum by 3 instructions and 26 registers fewer (sm_80).
 * 0.47 ms for vector add (bench/RESULTS.md). instcombine runs as in O3,
 * without verifying that one iteration reached a fixpoint: that check is a
 * fatal error in LLVM, which some kernels (a matmul with unit strides)
 * trip. */
#define GPU_PIPELINE(UNROLL) \
  "nvvm-reflect,always-inline,globaldce," \
  "function(nvvm-intr-range,sroa,early-cse<memssa>,simplifycfg,instcombine<no-verify-fixpoint>,correlated-propagation,reassociate," \
  "loop-mssa(loop-instsimplify,loop-simplifycfg,licm<no-allowspeculation>,loop-rotate,licm<allowspeculation>," \
  "simple-loop-unswitch<no-nontrivial;trivial>),loop(loop-idiom,indvars,loop-deletion,loop-unroll-full)," UNROLL \
  "sroa,instcombine<no-verify-fixpoint>,adce,infer-alignment,slp-vectorizer,instcombine<no-verify-fixpoint>,simplifycfg)"
static const char *const gpu_pipeline = GPU_PIPELINE("");
/* With a loop_unroll_factor: LLVM's loop unroller for the loops that ask
 * (llvm.loop.unroll.count); its own partial and runtime unrolling stay off
 * so that the other loops are as the pipeline above leaves them. */
static const char *const gpu_pipeline_unroll =
    GPU_PIPELINE("loop-unroll<O3;no-partial;no-runtime;no-upperbound;no-profile-peeling>,simplifycfg,");

/* Floating-point fusion (Compilation.fp_fusion): every float add, subtract
 * and multiply of the kernel's own code (libdevice's functions keep their
 * exact sequences) may contract, so that LLVM makes an fma of a multiply
 * and an add, as Triton's enable_fp_fusion lets NVPTX do. The explicit
 * forms (tl.fma, div_rn, sqrt_rn, ...) are calls, untouched. */
static void allow_contraction(LLVMModuleRef lm) {
  for (LLVMValueRef f = LLVMGetFirstFunction(lm); f; f = LLVMGetNextFunction(f)) {
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    if (n > 5 && !memcmp(name, "__nv_", 5)) continue;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
        LLVMOpcode op = LLVMGetInstructionOpcode(i);
        if ((op == LLVMFAdd || op == LLVMFSub || op == LLVMFMul) && LLVMCanValueUseFastMathFlags(i))
          LLVMSetFastMathFlags(i, LLVMGetFastMathFlags(i) | LLVMFastMathAllowContract);
      }
  }
}

bool cg_optimize(Compilation *comp, LLVMModuleRef lm, bool host, bool unroll) {
  LLVMTargetMachineRef tm = cg_target_machine(comp, host);
  if (!tm) return false;
  if (comp->fp_fusion) allow_contraction(lm);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  char *dls = LLVMCopyStringRepOfTargetData(dl);
  LLVMSetDataLayout(lm, dls);
  LLVMDisposeMessage(dls);
  LLVMDisposeTargetData(dl);
  char *triple = LLVMGetTargetMachineTriple(tm);
  LLVMSetTarget(lm, triple);
  LLVMDisposeMessage(triple);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(lm, host ? "default<O2>" : unroll ? gpu_pipeline_unroll : gpu_pipeline, tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (!e) return true;
  char *em = LLVMGetErrorMessage(e);
  diag_plain_error(comp->d, "LLVM optimization failed: %s", em);
  LLVMDisposeErrorMessage(em);
  return false;
}

bool cg_emit_ptx(Compilation *comp, LLVMModuleRef lm, StrBuf *out) {
  LLVMTargetMachineRef tm = cg_target_machine(comp, false);
  if (!tm) return false;
  char *msg = NULL;
  LLVMMemoryBufferRef buf;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, lm, LLVMAssemblyFile, &msg, &buf)) {
    diag_plain_error(comp->d, "PTX emission failed: %s", msg ? msg : "");
    if (msg) LLVMDisposeMessage(msg);
    return false;
  }
  sb_append(out, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
  LLVMDisposeMemoryBuffer(buf);
  return true;
}
