/*
 * calls.c — the tilec.* calls the lowering makes, checked before a tail
 * rewrites them.
 *
 * expand-for-gpu and retarget-host read these calls by their names and
 * operands: `tilec.ld.b32(ptr, pred, other)`, `tilec.st.v4.b32(ptr, pred,
 * v0..v3)`, `tilec.atom.<op>.<sem>.<scope>.<type>(ptr, pred, v[, v2])`,
 * `tilec.cvt.rz.<to>.<from>(x)`, `tilec.gdc.<wait|launch_dependents>()`,
 * `tilec.mma.<shape>.row.col.<types>(a0..a3, b0, b1, c...) -> {i32...}`,
 * `tilec.ldmatrix.x<1|2|4>[.trans].b16(row) -> {i32...}`,
 * `tilec.cp.async.<4|8|16>(dst, src, pred)`, `tilec.cp.async.commit()`,
 * `tilec.cp.async.wait.<0-7>()`.
 * In the pipeline the lowering makes them, but either pass also runs alone
 * on IR text (`tilec opt`), where a call of another shape must be an
 * error at its position, not a crash or PTX that says something else.
 */
#include "codegen.h"

#include <stdio.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/LLVM.h>

static bool prefix(MlirStringRef s, const char *p, size_t *rest) {
  size_t n = strlen(p);
  if (s.length < n || memcmp(s.data, p, n)) return false;
  *rest = n;
  return true;
}

/* A number spelled in s from *at to the next '.' or the end; false when
 * there is none or it is not one of the allowed. */
static bool number(MlirStringRef s, size_t *at, const int *allowed, int *out) {
  int v = 0;
  size_t i = *at;
  while (i < s.length && s.data[i] >= '0' && s.data[i] <= '9' && v < 1000) v = v * 10 + (s.data[i++] - '0');
  if (i == *at || (i < s.length && s.data[i] != '.')) return false;
  *at = i;
  for (; *allowed; allowed++)
    if (*allowed == v) {
      *out = v;
      return true;
    }
  return false;
}

/* The shape a call of this name must have: operands and results; false
 * for a tilec.* name the lowering does not make. */
static bool shape_of(MlirStringRef n, int *nops, int *nres, bool *addressed) {
  static const int bits[] = {8, 16, 32, 64, 0}, widths[] = {2, 4, 0};
  size_t at;
  *addressed = false;
  if (prefix(n, "tilec.ld.", &at) || prefix(n, "tilec.st.", &at)) {
    bool load = n.data[6] == 'l';
    int vec = 1, b;
    if (at < n.length && n.data[at] == 'v') {
      at++;
      if (!number(n, &at, widths, &vec) || at >= n.length) return false;
      at++;
    }
    if (at >= n.length || n.data[at] != 'b') return false;
    at++;
    if (!number(n, &at, bits, &b) || at != n.length) return false;
    *nops = 2 + vec;
    *nres = load ? 1 : 0;
    *addressed = true;
    return true;
  }
  if (prefix(n, "tilec.atom.", &at)) {
    /* op.sem.scope.type: four names, each short */
    int dots = 0;
    size_t part = 0;
    for (size_t i = at; i < n.length; i++) {
      if (n.data[i] == '.') {
        if (!part) return false;
        dots++, part = 0;
      } else if (++part > 15) {
        return false;
      }
    }
    if (dots != 3 || !part) return false;
    *nops = !memcmp(n.data + at, "cas.", 4) ? 4 : 3;
    *nres = 1;
    *addressed = true;
    return true;
  }
  if (prefix(n, "tilec.cvt.rz.", &at)) {
    static const char *const forms[] = {"f16.f32", "bf16.f32", "f32.f64"};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
      if (n.length - at == strlen(forms[i]) && !memcmp(n.data + at, forms[i], n.length - at)) {
        *nops = 1;
        *nres = 1;
        return true;
      }
    return false;
  }
  if (prefix(n, "tilec.mma.", &at)) {
    int nc = cg_mma_c_regs(n.data + at, n.length - at);
    *nops = 6 + nc;
    *nres = 1;
    return nc > 0;
  }
  if (prefix(n, "tilec.ldmatrix.x", &at)) {
    static const int nums[] = {1, 2, 4, 0};
    int num;
    if (!number(n, &at, nums, &num)) return false;
    const char *rest = n.data + at;
    size_t len = n.length - at;
    *nops = *nres = 1;
    return (len == 4 && !memcmp(rest, ".b16", 4)) || (len == 10 && !memcmp(rest, ".trans.b16", 10));
  }
  if (prefix(n, "tilec.cp.async.", &at)) {
    static const int sizes[] = {4, 8, 16, 0}, keeps[] = {1, 2, 3, 4, 5, 6, 7, 0};
    const char *rest = n.data + at;
    size_t len = n.length - at;
    int v;
    *nres = 0;
    if (len == 6 && !memcmp(rest, "commit", 6)) return (*nops = 0), true;
    if (len == 6 && !memcmp(rest, "wait.0", 6)) return (*nops = 0), true;
    if (len > 5 && !memcmp(rest, "wait.", 5)) {
      at += 5;
      *nops = 0;
      return number(n, &at, keeps, &v) && at == n.length;
    }
    *nops = 3;
    return number(n, &at, sizes, &v) && at == n.length;
  }
  if (prefix(n, "tilec.gdc.", &at)) {
    *nops = *nres = 0;
    return (n.length - at == 4 && !memcmp(n.data + at, "wait", 4)) ||
           (n.length - at == 17 && !memcmp(n.data + at, "launch_dependents", 17));
  }
  return false;
}

typedef struct Check {
  Compilation *comp;
  const char *pass;
  bool ok;
} Check;

static void check_call(MlirOperation op, void *user) {
  Check *c = user;
  if (!c->ok || !op_is(op, "llvm.call")) return;
  MlirAttribute callee = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("callee"));
  if (mlirAttributeIsNull(callee) || !mlirAttributeIsAFlatSymbolRef(callee)) return;
  MlirStringRef n = mlirFlatSymbolRefAttrGetValue(callee);
  size_t at;
  if (!prefix(n, "tilec.", &at) || prefix(n, "tilec.emu.", &at)) return;
  int nops = 0, nres = 0;
  bool addressed = false;
  const char *why = NULL;
  if (!shape_of(n, &nops, &nres, &addressed)) why = "is not a call the lowering makes";
  else if (mlirOperationGetNumOperands(op) != nops || mlirOperationGetNumResults(op) != nres)
    why = "has other operands or results than the lowering gives it";
  else if (addressed && (!mlirTypeIsALLVMPointerType(mlirValueGetType(mlirOperationGetOperand(op, 0))) ||
                         !mlirTypeIsAInteger(mlirValueGetType(mlirOperationGetOperand(op, 1))) ||
                         mlirIntegerTypeGetWidth(mlirValueGetType(mlirOperationGetOperand(op, 1))) != 1))
    why = "takes a pointer and an i1 predicate first";
  if (!why) return;
  char msg[256];
  snprintf(msg, sizeof msg, "%s: '%.*s' %s", c->pass, (int)(n.length > 100 ? 100 : n.length), n.data, why);
  mlirEmitError(mlirOperationGetLocation(op), msg);
  c->ok = false;
}

bool cg_check_calls(Compilation *comp, MlirOperation module, const char *pass) {
  Check c = {.comp = comp, .pass = pass, .ok = true};
  walk_ops(module, check_call, &c, false);
  return c.ok;
}
