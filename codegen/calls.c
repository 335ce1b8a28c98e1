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
 * `tilec.cp.async.wait.<0-7>()`, and wgmma's (lower_wgmma.c): `tilec.wgmma.fence()`,
 * `tilec.wgmma.commit()`, `tilec.wgmma.wait.<0|1>(d...)`, `tilec.wgmma.<form>(d..., a, b_desc,
 * scale_d)`, `tilec.smem.addr(p)`, `tilec.fence.proxy.async()`, and TMA's (lower_tma.c):
 * `tilec.mbarrier.init(bar, count)`, `tilec.mbarrier.inval(bar)`, `tilec.mbarrier.arrive.expect_tx(bar, bytes) -> i64`,
 * `tilec.mbarrier.try_wait.parity(bar, parity) -> i1` (on the GPU a wait until the phase
 * completes), `tilec.tma.load.<r>d(dst, map, c_0..c_{r-1}, bar)`,
 * `tilec.tma.store.<r>d(map, c_0..c_{r-1}, src)`, `tilec.bulk.commit()`,
 * `tilec.bulk.wait.read.0()`.
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

/* One dot-separated word of s at *at into out (up to 7 characters). */
static bool word(MlirStringRef s, size_t *at, char out[8]) {
  size_t i = *at, n = 0;
  while (i < s.length && s.data[i] != '.' && n < 7) out[n++] = s.data[i++];
  out[n] = 0;
  if (!n || (i < s.length && s.data[i] != '.')) return false;
  *at = i < s.length ? i + 1 : i;
  return true;
}

static bool one_of(const char *w, const char *const *list) {
  for (; *list; list++)
    if (!strcmp(w, *list)) return true;
  return false;
}

bool cg_wgmma_form(MlirStringRef s, CgWgmma *f) {
  static const int ns[] = {8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184,
                           192, 200, 208, 216, 224, 232, 240, 248, 256, 0};
  static const int ks[] = {8, 16, 32, 0};
  static const char *const sixteen[] = {"f16", "bf16", NULL}, *const eight[] = {"e4m3", "e5m2", NULL};
  size_t at;
  memset(f, 0, sizeof *f);
  if (!prefix(s, "tilec.wgmma.m64n", &at)) return false;
  /* n then 'k': number() stops at '.', so read n up to the 'k' by hand */
  int n = 0;
  while (at < s.length && s.data[at] >= '0' && s.data[at] <= '9' && n < 1000) n = n * 10 + (s.data[at++] - '0');
  if (at >= s.length || s.data[at] != 'k') return false;
  at++;
  bool n_ok = false;
  for (const int *p = ns; *p; p++) n_ok |= *p == n;
  if (!n_ok || !number(s, &at, ks, &f->k) || at >= s.length) return false;
  at++;
  if (!word(s, &at, f->dtype) || !word(s, &at, f->atype) || !word(s, &at, f->btype)) return false;
  char w[8];
  while (at < s.length) {
    if (!word(s, &at, w)) return false;
    if (!strcmp(w, "areg") && !f->areg && !f->tb) f->areg = true;
    else if (!strcmp(w, "tb") && !f->tb) f->tb = true;
    else return false;
  }
  f->n = n;
  bool a16 = one_of(f->atype, sixteen), a8 = one_of(f->atype, eight) && one_of(f->btype, eight);
  bool ints = !strcmp(f->atype, "s8") && !strcmp(f->btype, "s8"), tf32 = !strcmp(f->atype, "tf32") && !strcmp(f->btype, "tf32");
  bool types = (a16 && !strcmp(f->atype, f->btype) && f->k == 16) || (tf32 && f->k == 8) || ((a8 || ints) && f->k == 32);
  bool d = ints ? !strcmp(f->dtype, "s32") : !strcmp(f->dtype, "f32") || (!strcmp(f->dtype, "f16") && strcmp(f->atype, "bf16") && !tf32);
  /* MN-major operands and A in registers are for 16-bit types; integers' N past 32 by 16 */
  if (!types || !d || ((f->tb || f->areg) && !a16) || (ints && n > 32 && n % 16)) return false;
  f->nd = !strcmp(f->dtype, "f16") ? n / 4 : n / 2;
  return true;
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
  if (prefix(n, "tilec.wgmma.", &at)) {
    CgWgmma f;
    *nops = 0;
    *nres = 0;
    if (n.length - at == 5 && !memcmp(n.data + at, "fence", 5)) return true;
    if (n.length - at == 6 && !memcmp(n.data + at, "commit", 6)) return true;
    if (n.length - at == 6 && (!memcmp(n.data + at, "wait.0", 6) || !memcmp(n.data + at, "wait.1", 6))) {
      *nops = -1; /* any number of registers, as many results */
      *nres = 1;
      return true;
    }
    if (!cg_wgmma_form(n, &f)) return false;
    *nops = f.nd + (f.areg ? 4 : 1) + 2;
    *nres = 1;
    return true;
  }
  if (prefix(n, "tilec.smem.addr", &at)) {
    *nops = *nres = 1;
    return at == n.length;
  }
  if (prefix(n, "tilec.fence.proxy.async", &at)) {
    *nops = *nres = 0;
    return at == n.length;
  }
  if (prefix(n, "tilec.mbarrier.", &at)) {
    /* init(bar, count), arrive.expect_tx(bar, bytes) -> state, try_wait.parity(bar, parity) -> done */
    size_t len = n.length - at;
    if (len == 5 && !memcmp(n.data + at, "inval", 5)) {
      *nops = 1, *nres = 0;
      return true;
    }
    *nops = 2;
    *nres = !(len == 4 && !memcmp(n.data + at, "init", 4));
    return !*nres || (len == 16 && !memcmp(n.data + at, "arrive.expect_tx", 16)) ||
           (len == 15 && !memcmp(n.data + at, "try_wait.parity", 15));
  }
  if (prefix(n, "tilec.tma.", &at)) {
    /* load.<r>d(dst, map, c_0..c_{r-1}, bar), store.<r>d(map, c_0..c_{r-1}, src) */
    static const int ranks[] = {1, 2, 3, 4, 5, 0};
    bool load = n.length - at > 5 && !memcmp(n.data + at, "load.", 5);
    if (!load && !(n.length - at > 6 && !memcmp(n.data + at, "store.", 6))) return false;
    at += load ? 5 : 6;
    int r = 0;
    size_t i = at;
    while (i < n.length && n.data[i] != 'd') i++;
    MlirStringRef num = {n.data, i};
    if (i + 1 != n.length || !number(num, &at, ranks, &r)) return false;
    *nops = r + (load ? 3 : 2);
    *nres = 0;
    return true;
  }
  if (prefix(n, "tilec.bulk.", &at)) {
    *nops = *nres = 0;
    return (n.length - at == 6 && !memcmp(n.data + at, "commit", 6)) || (n.length - at == 11 && !memcmp(n.data + at, "wait.read.0", 11));
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
  else if ((nops >= 0 && mlirOperationGetNumOperands(op) != nops) || mlirOperationGetNumResults(op) != nres)
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
