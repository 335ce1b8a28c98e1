/*
 * emu.c — the lowered kernel, retargeted to the host for the CPU emulator.
 *
 * Requires: the module insert-barriers left (LLVM and NVVM dialects, arith,
 * math, scf; tilec.* calls not yet expanded). Guarantees: no NVVM op and no
 * NVVM intrinsic is left; each became a call of a function the emulator
 * (emu/emu.c) binds to C:
 *
 *   nvvm.read.ptx.sreg.tid.x, ...   tilec.emu.tid.x(), ...
 *   nvvm.barrier0                   tilec.emu.barrier()
 *   nvvm.shfl.sync <kind>           tilec.emu.shfl.<kind>.<i32|f32>(mask, v, b, c)
 *   llvm.nvvm.<name> intrinsics     tilec.emu.<name>(...)
 *   llvm.nvvm.div.full              llvm.fdiv (IEEE, within div.full's 2 ulp)
 *   @tilec_smem                     tilec.emu.smem(): the block's shared memory
 *   a load or store of shared memory tilec.emu.lds.bN(p), tilec.emu.sts.bN(p, v)
 *   tilec.mma.<form>(a, b, c)       tilec.emu.mma.<form>(&d, &a, &b, &c): a warp collective
 *   tilec.ldmatrix.<form>(row)      tilec.emu.ldmatrix.<form>(&d, row): likewise
 *   tilec.wgmma.<form>(d, a, b, s)  tilec.emu.wgmma(&d, &a, a_desc, b_desc, code, s): likewise, per warp
 *   tilec.smem.addr(p)              tilec.emu.smem.addr(p): the offset in shared memory
 *   tilec.cp.async.<n>(dst, src, p) tilec.emu.cp.async.<n>(dst, src, p, site); commit and wait.<k> by name
 *   tilec.tma.load.<r>d(dst, map, c.., bar), tilec.tma.store.<r>d(map, c.., src)
 *                                    tilec.emu.tma.load(dst, map, c0..c4, bar, site), tilec.emu.tma.store(map,
 *                                    c0..c4, src, site); tilec.mbarrier.<op> tilec.emu.mbarrier.<op>; the bulk
 *                                    group's commit goes (the copies are made when issued), its wait.read is
 *                                    tilec.emu.bulk.wait.read()
 *   the tensor maps (the last parameters, by value on the GPU) their addresses
 *   a vector access's alignment      tilec.emu.align(p, pred, bytes, load, site), before its elements
 *                                    (tilec.emu.align.shared for shared memory's)
 *
 * Inline assembly, the kernel's own PTX, cannot run on the host: each
 * llvm.inline_asm is an error at its position.
 *
 * Vector accesses (tilec.ld.v4.b32, ...) become scalar ones: the C calling
 * convention returns no LLVM struct the way LLVM does. Global accesses and
 * atomics become tilec.emu.ld/st/atom.* with one more argument, the number
 * of their source position in tilec_emu_sites ("file:line:col", NUL
 * separated), for the emulator's reports. The kernel becomes
 * an ordinary function, and tilec_emu_entry(void **args) calls it with the
 * arguments as cuLaunchKernel passes them; tilec_emu_shared_bytes holds the
 * size of shared memory, tilec_emu_fibers whether the threads of a block
 * meet (barriers, shuffles) and so must run as fibers (bit 0) and whether
 * the kernel has wgmma, whose async proxy the emulator checks (bit 1). The same IR as NVPTX gets, up to these changes.
 * The pipeline's next stages (to-llvm-dialect, to-llvm-ir, llvm-passes at
 * O2 for the host, host-object) make the object the emulator loads.
 */
#include "codegen.h"
#include "emu/wgmma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/LLVM.h>

enum { WG_D = 16, WG_A = WG_D + 128, FRAME_WORDS = WG_A + 4 };

typedef struct Emu {
  Compilation *comp;
  MlirContext ctx;
  MlirOperation module;
  PtrVec ops;      /* the ops to rewrite */
  PtrVec declared; /* names declared so far */
  PtrVec sites;    /* "file:line:col" of the global accesses, by site number */
  MlirOperation mma_func; /* the function whose entry block holds mma_regs */
  MlirValue mma_regs;     /* frame_words words: an mma.sync's A (4), B (2), C (4) and D (4) registers,
                           * or a wgmma's D (from WG_D, up to 128) and A (WG_A, 4) */
  int frame_words;        /* 14, or FRAME_WORDS where the module has a wgmma */
} Emu;

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static MlirNamedAttribute named(Emu *e, const char *name, MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(e->ctx, str(name)), a);
}

/* Declares `name` once, at the top of the module. */
static void declare(Emu *e, const char *name, MlirType ret, int n, const MlirType *args) {
  for (int i = 0; i < e->declared.n; i++)
    if (!strcmp(e->declared.v[i], name)) return;
  vec_push(e->comp->a, &e->declared, arena_strndup(e->comp->a, name, strlen(name)));
  MlirNamedAttribute attrs[2] = {
      named(e, "sym_name", mlirStringAttrGet(e->ctx, str(name))),
      named(e, "function_type", mlirTypeAttrGet(mlirLLVMFunctionTypeGet(ret, n, args, false))),
  };
  MlirOperationState st = mlirOperationStateGet(str("llvm.func"), mlirLocationUnknownGet(e->ctx));
  mlirOperationStateAddAttributes(&st, 2, attrs);
  MlirRegion r = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&st, 1, &r);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(e->module, 0));
  mlirBlockInsertOwnedOperation(body, 0, mlirOperationCreate(&st));
}

/* A call of `name` before `at`; ret is null for void. */
static MlirValue call_before(Emu *e, MlirOperation at, const char *name, MlirType ret, int n, const MlirValue *args) {
  MlirType types[12];
  for (int i = 0; i < n && i < 12; i++) types[i] = mlirValueGetType(args[i]);
  bool is_void = mlirTypeIsNull(ret);
  declare(e, name, is_void ? mlirLLVMVoidTypeGet(e->ctx) : ret, n, types);
  int32_t seg[2] = {n, 0};
  MlirNamedAttribute attrs[3] = {
      named(e, "callee", mlirFlatSymbolRefAttrGet(e->ctx, str(name))),
      named(e, "operandSegmentSizes", mlirDenseI32ArrayGet(e->ctx, 2, seg)),
      named(e, "op_bundle_sizes", mlirDenseI32ArrayGet(e->ctx, 0, NULL)),
  };
  MlirOperation c = create_before(at, "llvm.call", mlirOperationGetLocation(at), is_void ? 0 : 1, &ret, n, args, 3, attrs);
  return is_void ? (MlirValue){NULL} : mlirOperationGetResult(c, 0);
}

/* Replaces op by a call of `name` with its operands and result. */
static void to_call(Emu *e, MlirOperation op, const char *name) {
  intptr_t n = mlirOperationGetNumOperands(op);
  MlirValue args[8];
  for (intptr_t i = 0; i < n && i < 8; i++) args[i] = mlirOperationGetOperand(op, i);
  bool has_result = mlirOperationGetNumResults(op) == 1;
  MlirType rt = has_result ? mlirValueGetType(mlirOperationGetResult(op, 0)) : (MlirType){NULL};
  MlirValue r = call_before(e, op, name, rt, (int)n, args);
  if (has_result) mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), r);
  op_erase(op);
}

static MlirStringRef op_name(MlirOperation op) { return mlirIdentifierStr(mlirOperationGetName(op)); }

static bool starts(MlirStringRef s, const char *p) {
  size_t n = strlen(p);
  return s.length >= n && !memcmp(s.data, p, n);
}

static MlirStringRef callee_of(MlirOperation op) {
  MlirAttribute c = mlirOperationGetAttributeByName(op, str("callee"));
  return mlirAttributeIsNull(c) ? (MlirStringRef){"", 0} : mlirFlatSymbolRefAttrGetValue(c);
}

static void collect(MlirOperation op, void *user) {
  Emu *e = user;
  MlirStringRef n = op_name(op);
  bool smem = (starts(n, "llvm.load") || starts(n, "llvm.store")) &&
              !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("tilec.smem")));
  bool take = smem || starts(n, "nvvm.") || starts(n, "llvm.call_intrinsic") || starts(n, "llvm.mlir.addressof") ||
              (starts(n, "llvm.call") && (starts(callee_of(op), "tilec.ld.v") || starts(callee_of(op), "tilec.st.v") ||
                                          starts(callee_of(op), "tilec.mma.") || starts(callee_of(op), "tilec.ldmatrix.") ||
                                          starts(callee_of(op), "tilec.cp.async.commit") ||
                                          starts(callee_of(op), "tilec.wgmma.") || starts(callee_of(op), "tilec.smem.addr") ||
                                          starts(callee_of(op), "tilec.fence.proxy.async") ||
                                          starts(callee_of(op), "tilec.tma.") || starts(callee_of(op), "tilec.bulk.") ||
                                          starts(callee_of(op), "tilec.mbarrier.") ||
                                          starts(callee_of(op), "tilec.cp.async.wait.")));
  if (take) vec_push(e->comp->a, &e->ops, op.ptr);
}

/* tilec.ld.vN.bB(p, pred, o_0..o_N-1) -> N scalar loads; tilec.st.vN.bB likewise. */
static void scalarize(Emu *e, MlirOperation call) {
  MlirStringRef n = callee_of(call);
  bool load = starts(n, "tilec.ld.");
  int vec = n.data[10] - '0';
  const char *b = n.length > 10 ? memchr(n.data + 10, 'b', n.length - 10) : NULL;
  int bits = b ? atoi(b + 1) : 32;
  char name[32];
  snprintf(name, sizeof name, "tilec.%s.b%d", load ? "ld" : "st", bits);
  MlirValue ptr = mlirOperationGetOperand(call, 0), pred = mlirOperationGetOperand(call, 1);
  MlirType it = mlirIntegerTypeGet(e->ctx, (unsigned)bits);
  MlirType p1 = mlirValueGetType(ptr);
  MlirLocation loc = mlirOperationGetLocation(call);
  MlirValue parts[4];
  /* the vector's alignment, which its elements one by one would not show:
   * tilec.align(p, pred, bytes, load), given its site like the accesses */
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
  MlirNamedAttribute nb = named(e, "value", mlirIntegerAttrGet(i32, vec * bits / 8)),
                     nl = named(e, "value", mlirIntegerAttrGet(i32, load));
  MlirValue check[4] = {ptr, pred, mlirOperationGetResult(create_before(call, "arith.constant", loc, 1, &i32, 0, NULL, 1, &nb), 0),
                        mlirOperationGetResult(create_before(call, "arith.constant", loc, 1, &i32, 0, NULL, 1, &nl), 0)};
  if (vec > 1) call_before(e, call, "tilec.align", (MlirType){NULL}, 4, check);
  for (int j = 0; j < vec && j < 4; j++) {
    int32_t idx = j;
    MlirNamedAttribute gep[2] = {
        named(e, "elem_type", mlirTypeAttrGet(it)),
        named(e, "rawConstantIndices", mlirDenseI32ArrayGet(e->ctx, 1, &idx)),
    };
    MlirValue pj = mlirOperationGetResult(create_before(call, "llvm.getelementptr", loc, 1, &p1, 1, &ptr, 2, gep), 0);
    MlirValue args[3] = {pj, pred, mlirOperationGetOperand(call, 2 + j)};
    parts[j] = call_before(e, call, name, load ? it : (MlirType){NULL}, 3, args);
  }
  if (load) {
    MlirValue res = mlirOperationGetResult(call, 0);
    MlirType st = mlirValueGetType(res);
    MlirValue agg = mlirOperationGetResult(create_before(call, "llvm.mlir.undef", loc, 1, &st, 0, NULL, 0, NULL), 0);
    for (int j = 0; j < vec && j < 4; j++) {
      int64_t pos = j;
      MlirNamedAttribute at = named(e, "position", mlirDenseI64ArrayGet(e->ctx, 1, &pos));
      MlirValue ops[2] = {agg, parts[j]};
      agg = mlirOperationGetResult(create_before(call, "llvm.insertvalue", loc, 1, &st, 2, ops, 1, &at), 0);
    }
    mlirValueReplaceAllUsesOfWith(res, agg);
  }
  op_erase(call);
}

/* A shared-memory access becomes tilec.emu.lds.bN(p) / tilec.emu.sts.bN(p, v)
 * on the value's bits, so the emulator can tell reads of bytes no thread
 * of the block has written. */
static void checked_smem_vector(Emu *e, MlirOperation op);

static void checked_smem(Emu *e, MlirOperation op) {
  bool load = starts(op_name(op), "llvm.load");
  MlirValue v = load ? mlirOperationGetResult(op, 0) : mlirOperationGetOperand(op, 0);
  MlirValue ptr = mlirOperationGetOperand(op, load ? 0 : 1);
  MlirType t = mlirValueGetType(v);
  if (mlirTypeIsAVector(t)) {
    checked_smem_vector(e, op);
    return;
  }
  int bits = mlirTypeIsAInteger(t) ? (int)mlirIntegerTypeGetWidth(t)
             : mlirTypeIsAF64(t)   ? 64
             : mlirTypeIsAF32(t)   ? 32
                                   : 16;
  MlirType it = mlirIntegerTypeGet(e->ctx, (unsigned)bits);
  MlirLocation loc = mlirOperationGetLocation(op);
  char name[32];
  snprintf(name, sizeof name, "tilec.emu.%s.b%d", load ? "lds" : "sts", bits);
  if (load) {
    MlirValue r = call_before(e, op, name, it, 1, &ptr);
    if (!mlirTypeEqual(t, it)) r = mlirOperationGetResult(create_before(op, "llvm.bitcast", loc, 1, &t, 1, &r, 0, NULL), 0);
    mlirValueReplaceAllUsesOfWith(v, r);
  } else {
    if (!mlirTypeEqual(t, it)) v = mlirOperationGetResult(create_before(op, "llvm.bitcast", loc, 1, &it, 1, &v, 0, NULL), 0);
    MlirValue args[2] = {ptr, v};
    call_before(e, op, name, (MlirType){NULL}, 2, args);
  }
  op_erase(op);
}

static MlirValue constant_before(Emu *e, MlirOperation at, MlirType t, int64_t v) {
  MlirNamedAttribute a = named(e, "value", mlirIntegerAttrGet(t, v));
  return mlirOperationGetResult(create_before(at, "llvm.mlir.constant", mlirOperationGetLocation(at), 1, &t, 0, NULL, 1, &a), 0);
}

/* A vector access of shared memory (a layout conversion's word, up to 16
 * bytes) goes by 32-bit words (or one narrower), after the check of its
 * alignment that a GPU faults on. */
static void checked_smem_vector(Emu *e, MlirOperation op) {
  bool load = starts(op_name(op), "llvm.load");
  MlirValue v = load ? mlirOperationGetResult(op, 0) : mlirOperationGetOperand(op, 0);
  MlirValue ptr = mlirOperationGetOperand(op, load ? 0 : 1);
  MlirType t = mlirValueGetType(v), et = mlirShapedTypeGetElementType(t);
  int elem = mlirTypeIsAInteger(et) ? (int)mlirIntegerTypeGetWidth(et) : mlirTypeIsAF64(et) ? 64 : mlirTypeIsAF32(et) ? 32 : 16;
  int total = elem * (int)mlirShapedTypeGetDimSize(t, 0), word = total < 32 ? total : 32, n = total / word;
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32), it = mlirIntegerTypeGet(e->ctx, (unsigned)word), i8 = mlirIntegerTypeGet(e->ctx, 8);
  MlirType wt = mlirVectorTypeGet(1, (int64_t[]){n}, it), p3 = mlirValueGetType(ptr);
  MlirValue check[4] = {ptr, constant_before(e, op, i32, 1), constant_before(e, op, i32, total / 8), constant_before(e, op, i32, load)};
  call_before(e, op, "tilec.align.shared", (MlirType){NULL}, 4, check); /* its own name: its pointer is of shared memory */
  MlirValue words = load ? mlirOperationGetResult(create_before(op, "llvm.mlir.undef", loc, 1, &wt, 0, NULL, 0, NULL), 0)
                         : mlirOperationGetResult(create_before(op, "llvm.bitcast", loc, 1, &wt, 1, &v, 0, NULL), 0);
  char name[32];
  snprintf(name, sizeof name, "tilec.emu.%s.b%d", load ? "lds" : "sts", word);
  for (int j = 0; j < n; j++) {
    MlirNamedAttribute gep[2] = {named(e, "elem_type", mlirTypeAttrGet(i8)),
                                 named(e, "rawConstantIndices", mlirDenseI32ArrayGet(e->ctx, 1, (int32_t[]){j * word / 8}))};
    MlirValue pj = mlirOperationGetResult(create_before(op, "llvm.getelementptr", loc, 1, &p3, 1, &ptr, 2, gep), 0);
    MlirValue at = constant_before(e, op, mlirIntegerTypeGet(e->ctx, 64), j);
    if (load) {
      MlirValue x = call_before(e, op, name, it, 1, &pj);
      words = mlirOperationGetResult(create_before(op, "llvm.insertelement", loc, 1, &wt, 3, (MlirValue[]){words, x, at}, 0, NULL), 0);
    } else {
      MlirValue x = mlirOperationGetResult(create_before(op, "llvm.extractelement", loc, 1, &it, 2, (MlirValue[]){words, at}, 0, NULL), 0);
      call_before(e, op, name, (MlirType){NULL}, 2, (MlirValue[]){pj, x});
    }
  }
  if (load) mlirValueReplaceAllUsesOfWith(v, mlirOperationGetResult(create_before(op, "llvm.bitcast", loc, 1, &t, 1, &words, 0, NULL), 0));
  op_erase(op);
}

/* The address of word i of the function's mma registers. */
static MlirValue mma_word(Emu *e, MlirOperation at, int i) {
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32), ptr = mlirLLVMPointerTypeGet(e->ctx, 0);
  MlirNamedAttribute gep[2] = {
      named(e, "elem_type", mlirTypeAttrGet(i32)),
      named(e, "rawConstantIndices", mlirDenseI32ArrayGet(e->ctx, 1, (int32_t[]){i})),
  };
  return mlirOperationGetResult(create_before(at, "llvm.getelementptr", mlirOperationGetLocation(at), 1, &ptr, 1, &e->mma_regs, 2, gep), 0);
}

/* The words of the function's frame that warp collectives pass their
 * registers through, allocated once per function, in its entry block. */
static void frame_regs(Emu *e, MlirOperation call) {
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32), ptr = mlirLLVMPointerTypeGet(e->ctx, 0);
  MlirOperation f = call;
  while (!mlirOperationIsNull(f) && !starts(op_name(f), "llvm.func")) f = mlirOperationGetParentOperation(f);
  if (mlirOperationEqual(f, e->mma_func)) return;
  MlirOperation first = mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(f, 0)));
  MlirValue n = constant_before(e, first, i32, e->frame_words);
  MlirNamedAttribute attrs[2] = {named(e, "elem_type", mlirTypeAttrGet(i32)),
                                 named(e, "alignment", mlirIntegerAttrGet(mlirIntegerTypeGet(e->ctx, 64), 16))};
  e->mma_regs = mlirOperationGetResult(create_before(first, "llvm.alloca", mlirOperationGetLocation(first), 1, &ptr, 1, &n, 2, attrs), 0);
  e->mma_func = f;
}

/* The call's struct result from the words at first, first + 1, ... (D),
 * after the emulator's call wrote them; the call goes. */
static void result_from_words(Emu *e, MlirOperation call, int first) {
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
  MlirLocation loc = mlirOperationGetLocation(call);
  MlirValue res = mlirOperationGetResult(call, 0);
  MlirType st = mlirValueGetType(res);
  MlirValue agg = mlirOperationGetResult(create_before(call, "llvm.mlir.undef", loc, 1, &st, 0, NULL, 0, NULL), 0);
  for (int i = 0; i < (int)mlirLLVMStructTypeGetNumElementTypes(st); i++) {
    MlirValue at = mma_word(e, call, first + i);
    MlirValue v = mlirOperationGetResult(create_before(call, "llvm.load", loc, 1, &i32, 1, &at, 0, NULL), 0);
    MlirNamedAttribute pos = named(e, "position", mlirDenseI64ArrayGet(e->ctx, 1, (int64_t[]){i}));
    MlirValue iv[2] = {agg, v};
    agg = mlirOperationGetResult(create_before(call, "llvm.insertvalue", loc, 1, &st, 2, iv, 1, &pos), 0);
  }
  mlirValueReplaceAllUsesOfWith(res, agg);
  op_erase(call);
}

/* tilec.mma.<name>(a0..a3, b0, b1, c...) -> {i32 x nc} becomes
 * tilec.emu.mma.<name>(d, a, b, c), the registers passed in memory (the C
 * calling convention takes no LLVM structs): written to the frame's words
 * (a at 0, b at 4, c at 6) before the call and D (at 10) read after.
 * tilec.ldmatrix.<form>(row) -> {i32 x n} likewise becomes
 * tilec.emu.ldmatrix.<form>(d, row). */
static void warp_call(Emu *e, MlirOperation call) {
  MlirStringRef c = callee_of(call);
  bool mma = starts(c, "tilec.mma.");
  frame_regs(e, call);
  MlirLocation loc = mlirOperationGetLocation(call);
  int nin = mma ? (int)mlirOperationGetNumOperands(call) : 0;
  for (int i = 0; i < nin; i++) {
    MlirValue sv[2] = {mlirOperationGetOperand(call, i), mma_word(e, call, i)};
    create_before(call, "llvm.store", loc, 0, NULL, 2, sv, 0, NULL);
  }
  MlirValue args[4] = {mma_word(e, call, 10)};
  if (mma) args[1] = mma_word(e, call, 0), args[2] = mma_word(e, call, 4), args[3] = mma_word(e, call, 6);
  else args[1] = mlirOperationGetOperand(call, 0);
  char name[96];
  snprintf(name, sizeof name, "tilec.emu.%.*s", (int)c.length - 6, c.data + 6);
  call_before(e, call, name, (MlirType){NULL}, mma ? 4 : 2, args);
  result_from_words(e, call, 10);
}

/* wgmma's calls (lower_wgmma.c). tilec.wgmma.<form>(d..., a_desc | a0..a3,
 * b_desc, scale_d) -> {d...} becomes tilec.emu.wgmma(d, a, a_desc, b_desc,
 * code, scale_d), the registers in the frame's words (D at WG_D, A at WG_A)
 * and the form as emu/wgmma.h encodes it; a warp collective, as mma.sync's.
 * The model computes D when the instruction is issued: the wait's
 * registers are its operands, and wgmma.fence goes. commit, wait.<k> and
 * fence.proxy.async become tilec.emu.wgmma.commit(),
 * tilec.emu.wgmma.wait(k) and tilec.emu.fence.proxy.async(), for the
 * emulator's checks of the async proxy. tilec.smem.addr(p) becomes
 * tilec.emu.smem.addr(p), the offset in the block's shared memory, which
 * the emulator's descriptors hold. */
static EmuWgType wg_type_of(const char *t) {
  return !strcmp(t, "f16") ? EMU_WG_F16 : !strcmp(t, "bf16") ? EMU_WG_BF16 : !strcmp(t, "tf32") ? EMU_WG_TF32
         : !strcmp(t, "e4m3") ? EMU_WG_E4M3 : !strcmp(t, "e5m2") ? EMU_WG_E5M2 : EMU_WG_S8;
}

static void wgmma_call(Emu *e, MlirOperation call) {
  MlirStringRef c = callee_of(call);
  MlirLocation loc = mlirOperationGetLocation(call);
  if (starts(c, "tilec.smem.addr")) {
    to_call(e, call, "tilec.emu.smem.addr");
    return;
  }
  if (starts(c, "tilec.fence.proxy.async") || starts(c, "tilec.wgmma.commit")) {
    to_call(e, call, starts(c, "tilec.fence.") ? "tilec.emu.fence.proxy.async" : "tilec.emu.wgmma.commit");
    return;
  }
  if (starts(c, "tilec.wgmma.fence")) { /* the model's registers are in memory: nothing to order */
    op_erase(call);
    return;
  }
  MlirValue res = mlirOperationGetResult(call, 0);
  MlirType st = mlirValueGetType(res), i32 = mlirIntegerTypeGet(e->ctx, 32), i64 = mlirIntegerTypeGet(e->ctx, 64);
  if (starts(c, "tilec.wgmma.wait.")) {
    MlirValue keep = constant_before(e, call, i32, atoi(c.data + 17));
    call_before(e, call, "tilec.emu.wgmma.wait", (MlirType){NULL}, 1, &keep);
    MlirValue agg = mlirOperationGetResult(create_before(call, "llvm.mlir.undef", loc, 1, &st, 0, NULL, 0, NULL), 0);
    for (int i = 0; i < (int)mlirOperationGetNumOperands(call); i++) {
      MlirNamedAttribute pos = named(e, "position", mlirDenseI64ArrayGet(e->ctx, 1, (int64_t[]){i}));
      MlirValue iv[2] = {agg, mlirOperationGetOperand(call, i)};
      agg = mlirOperationGetResult(create_before(call, "llvm.insertvalue", loc, 1, &st, 2, iv, 1, &pos), 0);
    }
    mlirValueReplaceAllUsesOfWith(res, agg);
    op_erase(call);
    return;
  }
  CgWgmma f;
  cg_wgmma_form(c, &f); /* cg_check_calls let only such names through */
  EmuWgmma w = {.n = f.n, .atype = wg_type_of(f.atype), .btype = wg_type_of(f.btype), .f16_d = !strcmp(f.dtype, "f16"),
                .a_in_registers = f.areg, .trans_b = f.tb};
  frame_regs(e, call);
  int at = 0;
  for (int i = 0; i < f.nd; i++) {
    MlirValue sv[2] = {mlirOperationGetOperand(call, at++), mma_word(e, call, WG_D + i)};
    create_before(call, "llvm.store", loc, 0, NULL, 2, sv, 0, NULL);
  }
  MlirValue a_desc;
  if (f.areg) {
    for (int i = 0; i < 4; i++) {
      MlirValue sv[2] = {mlirOperationGetOperand(call, at++), mma_word(e, call, WG_A + i)};
      create_before(call, "llvm.store", loc, 0, NULL, 2, sv, 0, NULL);
    }
    a_desc = constant_before(e, call, i64, 0);
  } else {
    a_desc = mlirOperationGetOperand(call, at++);
  }
  MlirValue args[6] = {mma_word(e, call, WG_D), mma_word(e, call, WG_A), a_desc, mlirOperationGetOperand(call, at),
                       constant_before(e, call, i32, (int64_t)emu_wgmma_encode(&w)), mlirOperationGetOperand(call, at + 1)};
  call_before(e, call, "tilec.emu.wgmma", (MlirType){NULL}, 6, args);
  result_from_words(e, call, WG_D);
}

static int site_of(Emu *e, MlirLocation loc);

/* TMA's calls (lower_tma.c). tilec.tma.load.<r>d(dst, map, c.., bar)
 * becomes tilec.emu.tma.load(dst, map, c0..c4, bar, site), the
 * coordinates past the rank 0, and tilec.tma.store.<r>d(map, c.., src)
 * tilec.emu.tma.store(map, c0..c4, src, site); the mbarrier's calls keep
 * their operands (tilec.emu.mbarrier.<name>). The emulator's copies are
 * made when issued and a store has read its box then: the bulk group's
 * commit goes, and its wait becomes tilec.emu.bulk.wait.read(), after
 * which the thread's store boxes may be written. */
static void tma_call(Emu *e, MlirOperation call) {
  MlirStringRef c = callee_of(call);
  char name[96];
  if (starts(c, "tilec.bulk.")) {
    /* the wait's reads covered: the emulator's model of a store's box (emu/tmabox.h) */
    if (starts(c, "tilec.bulk.wait.read.")) call_before(e, call, "tilec.emu.bulk.wait.read", (MlirType){NULL}, 0, NULL);
    op_erase(call);
    return;
  }
  if (starts(c, "tilec.mbarrier.")) {
    snprintf(name, sizeof name, "tilec.emu.%.*s", (int)c.length - 6, c.data + 6);
    to_call(e, call, name);
    return;
  }
  bool load = starts(c, "tilec.tma.load.");
  int nops = (int)mlirOperationGetNumOperands(call), r = nops - (load ? 3 : 2), n = 0;
  MlirLocation loc = mlirOperationGetLocation(call);
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
  MlirNamedAttribute zero = named(e, "value", mlirIntegerAttrGet(i32, 0));
  MlirNamedAttribute site = named(e, "value", mlirIntegerAttrGet(i32, site_of(e, loc)));
  MlirValue z = mlirOperationGetResult(create_before(call, "arith.constant", loc, 1, &i32, 0, NULL, 1, &zero), 0);
  MlirValue args[9];
  int first = load ? 2 : 1;
  for (int i = 0; i < first; i++) args[n++] = mlirOperationGetOperand(call, i);
  for (int d = 0; d < 5; d++) args[n++] = d < r ? mlirOperationGetOperand(call, first + d) : z;
  args[n++] = mlirOperationGetOperand(call, nops - 1);
  args[n++] = mlirOperationGetResult(create_before(call, "arith.constant", loc, 1, &i32, 0, NULL, 1, &site), 0);
  call_before(e, call, load ? "tilec.emu.tma.load" : "tilec.emu.tma.store", (MlirType){NULL}, n, args);
  op_erase(call);
}

static void rewrite(Emu *e, MlirOperation op) {
  MlirStringRef n = op_name(op);
  char name[96];
  if ((starts(n, "llvm.load") || starts(n, "llvm.store")) &&
      !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("tilec.smem")))) {
    checked_smem(e, op);
    return;
  }
  if (starts(n, "llvm.call")) {
    MlirStringRef c = callee_of(op);
    if (starts(c, "tilec.ld.v") || starts(c, "tilec.st.v")) scalarize(e, op);
    else if (starts(c, "tilec.mma.") || starts(c, "tilec.ldmatrix.")) warp_call(e, op);
    else if (starts(c, "tilec.wgmma.") || starts(c, "tilec.smem.addr") || starts(c, "tilec.fence.proxy.async")) wgmma_call(e, op);
    else if (starts(c, "tilec.tma.") || starts(c, "tilec.bulk.") || starts(c, "tilec.mbarrier.")) tma_call(e, op);
    else if (starts(c, "tilec.cp.async.commit") || starts(c, "tilec.cp.async.wait.")) {
      snprintf(name, sizeof name, "tilec.emu.%.*s", (int)c.length - 6, c.data + 6);
      to_call(e, op, name);
    }
    else if (starts(n, "llvm.call_intrinsic")) {
      MlirStringRef in = mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, str("intrin")));
      if (!starts(in, "llvm.nvvm.")) return;
      if (in.length == 18 && starts(in, "llvm.nvvm.div.full")) {
        /* within 2 ulp of the IEEE quotient, which the host computes */
        MlirValue ab[2] = {mlirOperationGetOperand(op, 0), mlirOperationGetOperand(op, 1)};
        MlirType f = mlirValueGetType(mlirOperationGetResult(op, 0));
        MlirOperation d = create_before(op, "llvm.fdiv", mlirOperationGetLocation(op), 1, &f, 2, ab, 0, NULL);
        mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), mlirOperationGetResult(d, 0));
        op_erase(op);
        return;
      }
      snprintf(name, sizeof name, "tilec.emu.%.*s", (int)in.length - 10, in.data + 10);
      to_call(e, op, name);
    }
    return;
  }
  if (starts(n, "llvm.mlir.addressof")) {
    MlirStringRef g = mlirFlatSymbolRefAttrGetValue(mlirOperationGetAttributeByName(op, str("global_name")));
    if (g.length != 10 || memcmp(g.data, "tilec_smem", 10)) return;
    MlirValue r = call_before(e, op, "tilec.emu.smem", mlirValueGetType(mlirOperationGetResult(op, 0)), 0, NULL);
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), r);
    op_erase(op);
    return;
  }
  if (starts(n, "nvvm.read.ptx.sreg.")) {
    snprintf(name, sizeof name, "tilec.emu.%.*s", (int)n.length - 19, n.data + 19);
    to_call(e, op, name);
    return;
  }
  if (starts(n, "nvvm.barrier0")) {
    to_call(e, op, "tilec.emu.barrier");
    return;
  }
  if (starts(n, "nvvm.shfl.sync")) {
    StrBuf k = {0};
    ir_attr_text(&k, mlirOperationGetAttributeByName(op, str("kind")));
    const char *kinds[] = {"bfly", "up", "down", "idx"}, *kind = "idx";
    for (int i = 0; i < 4; i++)
      if (k.s && strstr(k.s, kinds[i])) kind = kinds[i];
    sb_free(&k);
    MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
    snprintf(name, sizeof name, "tilec.emu.shfl.%s.%s", kind, mlirTypeIsAF32(t) ? "f32" : "i32");
    to_call(e, op, name);
    return;
  }
  if (starts(n, "nvvm.")) {
    snprintf(name, sizeof name, "tilec.emu.%.*s", (int)n.length - 5, n.data + 5);
    to_call(e, op, name);
  }
}

/* The number of the source position of `loc` in the site table. */
static int site_of(Emu *e, MlirLocation loc) {
  const char *file;
  size_t flen;
  int line, col;
  char text[512] = "an unknown place";
  if (ir_file_pos(loc, &file, &flen, &line, &col))
    snprintf(text, sizeof text, "%.*s:%d:%d", (int)(flen < 400 ? flen : 400), file, line, col);
  for (int i = 0; i < e->sites.n; i++)
    if (!strcmp(e->sites.v[i], text)) return i;
  vec_push(e->comp->a, &e->sites, arena_strndup(e->comp->a, text, strlen(text)));
  return e->sites.n - 1;
}

static void collect_global(MlirOperation op, void *user) {
  Emu *e = user;
  MlirStringRef c = callee_of(op);
  bool copy = starts(c, "tilec.cp.async.") && !starts(c, "tilec.cp.async.commit") && !starts(c, "tilec.cp.async.wait.");
  if (starts(op_name(op), "llvm.call") &&
      (starts(c, "tilec.ld.") || starts(c, "tilec.st.") || starts(c, "tilec.atom.") || starts(c, "tilec.align") || copy))
    vec_push(e->comp->a, &e->ops, op.ptr);
}

/* tilec.ld/st/atom.*(args) -> tilec.emu.ld/st/atom.*(args, site): the
 * emulator's checks then say where in the source an access went wrong. */
static void add_site(Emu *e, MlirOperation call) {
  MlirStringRef c = callee_of(call);
  char name[128];
  snprintf(name, sizeof name, "tilec.emu.%.*s", (int)c.length - 6, c.data + 6);
  intptr_t n = mlirOperationGetNumOperands(call);
  MlirValue args[8];
  for (intptr_t i = 0; i < n && i < 7; i++) args[i] = mlirOperationGetOperand(call, i);
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
  MlirNamedAttribute v = named(e, "value", mlirIntegerAttrGet(i32, site_of(e, mlirOperationGetLocation(call))));
  args[n] = mlirOperationGetResult(create_before(call, "arith.constant", mlirOperationGetLocation(call), 1, &i32, 0, NULL, 1, &v), 0);
  bool has_result = mlirOperationGetNumResults(call) == 1;
  MlirType rt = has_result ? mlirValueGetType(mlirOperationGetResult(call, 0)) : (MlirType){NULL};
  MlirValue r = call_before(e, call, name, rt, (int)n + 1, args);
  if (has_result) mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(call, 0), r);
  op_erase(call);
}

static MlirOperation find_symbol(MlirOperation module, const char *name) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation f = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(f); f = mlirOperationGetNextInBlock(f)) {
    MlirAttribute s = mlirOperationGetAttributeByName(f, str("sym_name"));
    if (!mlirAttributeIsNull(s)) {
      MlirStringRef v = mlirStringAttrGetValue(s);
      if (v.length == strlen(name) && !memcmp(v.data, name, v.length)) return f;
    }
  }
  return (MlirOperation){NULL};
}

/* tilec_emu_entry(void **args): loads each argument from where args[i]
 * points and calls the kernel; and the globals tilec_emu_shared_bytes,
 * tilec_emu_fibers and tilec_emu_sites. */
static bool add_entry(Emu *e) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(e->module, 0));
  MlirOperation k = {NULL};
  for (MlirOperation f = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(f); f = mlirOperationGetNextInBlock(f))
    if (!mlirAttributeIsNull(mlirOperationGetAttributeByName(f, str("nvvm.kernel")))) k = f;
  if (mlirOperationIsNull(k)) return false;
  int64_t shared = 0;
  MlirAttribute sb = mlirOperationGetAttributeByName(k, str("tilec.shared_bytes"));
  if (!mlirAttributeIsNull(sb)) shared = mlirIntegerAttrGetValueInt(sb);
  mlirOperationRemoveAttributeByName(k, str("nvvm.kernel"));
  mlirOperationRemoveAttributeByName(k, str("nvvm.maxntid"));
  MlirStringRef kname = mlirStringAttrGetValue(mlirOperationGetAttributeByName(k, str("sym_name")));
  MlirBlock kb = mlirRegionGetFirstBlock(mlirOperationGetRegion(k, 0));
  int np = (int)mlirBlockGetNumArguments(kb);
  /* the tensor maps, the last parameters, are passed by value on the GPU;
   * here the kernel takes the address of each map's bytes, which args
   * gives (the emulator checks the map as a read of a buffer) */
  MlirAttribute maps = mlirOperationGetAttributeByName(k, str("tilec.tensormaps"));
  int first_map = np - (mlirAttributeIsNull(maps) ? 0 : (int)mlirArrayAttrGetNumElements(maps));
  mlirOperationRemoveAttributeByName(k, str("arg_attrs"));
  StrBuf t = {0};
  /* whether a block's threads must run as fibers: they meet at barriers or in warp collectives
   * (shuffles, mma.sync, ldmatrix) */
  bool fibers = false, proxy = false;
  for (int i = 0; i < e->declared.n; i++) proxy |= !strcmp(e->declared.v[i], "tilec.emu.wgmma");
  for (int i = 0; i < e->declared.n; i++)
    fibers |= !strncmp(e->declared.v[i], "tilec.emu.barrier", 17) || !strncmp(e->declared.v[i], "tilec.emu.shfl", 14) ||
              !strncmp(e->declared.v[i], "tilec.emu.mma.", 14) || !strncmp(e->declared.v[i], "tilec.emu.ldmatrix.", 19) ||
              !strcmp(e->declared.v[i], "tilec.emu.wgmma");
  sb_printf(&t, "module {\n  llvm.mlir.global external constant @tilec_emu_shared_bytes(%lld : i64) : i64\n",
            (long long)shared);
  sb_printf(&t, "  llvm.mlir.global external constant @tilec_emu_fibers(%d : i32) : i32\n", (fibers ? 1 : 0) | (proxy ? 2 : 0));
  /* the source positions of the global accesses, NUL-separated, by site number */
  StrBuf sites = {0};
  size_t bytes = 0;
  for (int i = 0; i < e->sites.n; i++) {
    for (const char *c = e->sites.v[i]; *c; c++, bytes++)
      sb_printf(&sites, *c == '"' || *c == '\\' || (unsigned char)*c < 32 ? "\\%02X" : "%c", *c);
    sb_printf(&sites, "\\00");
    bytes++;
  }
  sb_printf(&sites, "\\00"); /* an empty string ends the table */
  bytes++;
  sb_printf(&t, "  llvm.mlir.global external constant @tilec_emu_sites(\"%s\") : !llvm.array<%zu x i8>\n", sites.s,
            bytes);
  sb_free(&sites);
  /* the kernel, declared so that the text parses on its own */
  sb_printf(&t, "  llvm.func @%.*s(", (int)kname.length, kname.data);
  for (int i = 0; i < np; i++) {
    if (i) sb_printf(&t, ", ");
    ir_type_text(&t, mlirValueGetType(mlirBlockGetArgument(kb, i)));
  }
  sb_printf(&t, ")\n");
  sb_printf(&t, "  llvm.func @tilec_emu_entry(%%args: !llvm.ptr) {\n");
  for (int i = 0; i < np; i++) {
    StrBuf ty = {0};
    ir_type_text(&ty, mlirValueGetType(mlirBlockGetArgument(kb, i)));
    sb_printf(&t, "    %%p%d = llvm.getelementptr %%args[%d] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr\n", i, i);
    if (i >= first_map) {
      sb_printf(&t, "    %%a%d = llvm.load %%p%d : !llvm.ptr -> !llvm.ptr\n", i, i);
    } else {
      sb_printf(&t, "    %%q%d = llvm.load %%p%d : !llvm.ptr -> !llvm.ptr\n", i, i);
      sb_printf(&t, "    %%a%d = llvm.load %%q%d : !llvm.ptr -> %s\n", i, i, ty.s);
    }
    sb_free(&ty);
  }
  sb_printf(&t, "    llvm.call @%.*s(", (int)kname.length, kname.data);
  for (int i = 0; i < np; i++) sb_printf(&t, "%s%%a%d", i ? ", " : "", i);
  sb_printf(&t, ") : (");
  for (int i = 0; i < np; i++) {
    if (i) sb_printf(&t, ", ");
    ir_type_text(&t, mlirValueGetType(mlirBlockGetArgument(kb, i)));
  }
  sb_printf(&t, ") -> ()\n    llvm.return\n  }\n}\n");
  MlirModule m = mlirModuleCreateParse(e->ctx, mlirStringRefCreate(t.s, t.len));
  sb_free(&t);
  if (mlirModuleIsNull(m)) return false;
  /* move the global and the entry into the kernel's module */
  MlirBlock mb = mlirModuleGetBody(m);
  for (MlirOperation op = mlirBlockGetFirstOperation(mb), next; !mlirOperationIsNull(op); op = next) {
    next = mlirOperationGetNextInBlock(op);
    if (op_is(op, "llvm.func") && mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)))) continue;
    mlirOperationRemoveFromParent(op);
    mlirBlockAppendOwnedOperation(body, op);
  }
  mlirModuleDestroy(m);
  return true;
}

/* Inline assembly (tl.inline_asm_elementwise) is PTX, which the host cannot
 * run: an error at each call, once however many instances it became. */
typedef struct Rejected {
  Arena *a;
  PtrVec at; /* the locations reported */
} Rejected;

static void reject_asm(MlirOperation op, void *user) {
  Rejected *r = user;
  if (!op_is(op, "llvm.inline_asm")) return;
  MlirLocation loc = mlirOperationGetLocation(op);
  for (int i = 0; i < r->at.n; i++)
    if (mlirLocationEqual((MlirLocation){r->at.v[i]}, loc)) return;
  vec_push(r->a, &r->at, (void *)loc.ptr);
  mlirEmitError(loc, "the CPU emulator cannot run inline PTX assembly (tl.inline_asm_elementwise): run this kernel on a GPU");
}

bool cg_retarget_host(Compilation *comp, MlirOperation module) {
  if (!cg_check_calls(comp, module, "retarget-host")) return false;
  Rejected rejected = {.a = comp->a};
  walk_ops(module, reject_asm, &rejected, false);
  if (rejected.at.n) return false;
  Emu e = {.comp = comp, .ctx = ir_mlir(comp->ic), .module = module};
  walk_ops(module, collect, &e, false);
  e.frame_words = 14;
  for (int i = 0; i < e.ops.n; i++)
    if (starts(callee_of((MlirOperation){e.ops.v[i]}), "tilec.wgmma.m")) e.frame_words = FRAME_WORDS;
  for (int i = 0; i < e.ops.n; i++) rewrite(&e, (MlirOperation){e.ops.v[i]});
  e.ops.n = 0;
  walk_ops(module, collect_global, &e, false);
  for (int i = 0; i < e.ops.n; i++) add_site(&e, (MlirOperation){e.ops.v[i]});
  /* the old declarations go */
  for (const char *const *p = (const char *const[]){"tilec.ld.", "tilec.st.", "tilec.atom.", "tilec.mma.", "tilec.ldmatrix.", "tilec.cp.async.",
                                                    "tilec.align", "tilec.wgmma.", "tilec.smem.addr", "tilec.fence.proxy.async", NULL};
       *p; p++) {
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
    for (MlirOperation f = mlirBlockGetFirstOperation(body), next; !mlirOperationIsNull(f); f = next) {
      next = mlirOperationGetNextInBlock(f);
      MlirAttribute sn = mlirOperationGetAttributeByName(f, str("sym_name"));
      if (!mlirAttributeIsNull(sn) && starts(mlirStringAttrGetValue(sn), *p)) op_erase(f);
    }
  }
  MlirOperation smem = find_symbol(module, "tilec_smem");
  if (!mlirOperationIsNull(smem)) op_erase(smem);
  mlirOperationRemoveAttributeByName(module, str("llvm.target_triple"));
  if (!add_entry(&e)) {
    diag_plain_error(comp->d, "the emulator's entry function could not be made");
    return false;
  }
  return true;
}

bool cg_emit_host_object(Compilation *comp, LLVMModuleRef lm, StrBuf *out) {
  LLVMTargetMachineRef tm = cg_target_machine(comp, true);
  if (!tm) return false;
  /* nothing unwinds through a kernel: no unwind tables to register */
  LLVMContextRef lctx = LLVMGetModuleContext(lm);
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  for (LLVMValueRef f = LLVMGetFirstFunction(lm); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) {
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(lctx, nounwind, 0));
      LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMGetEnumAttributeKindForName("uwtable", 7));
    }
  char *msg = NULL;
  LLVMMemoryBufferRef buf;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, lm, LLVMObjectFile, &msg, &buf)) {
    diag_plain_error(comp->d, "the host object could not be made: %s", msg ? msg : "");
    if (msg) LLVMDisposeMessage(msg);
    return false;
  }
  sb_append(out, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
  LLVMDisposeMemoryBuffer(buf);
  return true;
}
