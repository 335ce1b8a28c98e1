/*
 * load.c — loading a kernel's code into the process: the object the
 * compiler made (emu_load_object) straight into memory through elfload.c,
 * or through LLVM's ORC when the loader does not take it; or a module of
 * LLVM IR text (emu_load), which ORC compiles. One JIT per process, a
 * library per kernel, one load at a time. Every name the code calls is
 * bound through emu_bind (emu.c).
 */
#include "emu_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>

/* ---- loading ---------------------------------------------------------------------------------- */

static char *dup_msg(const char *fmt, const char *a, const char *b) {
  size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
  char *s = malloc(n);
  if (s) snprintf(s, n, fmt, a, b);
  return s;
}

static char *take_error(LLVMErrorRef e, const char *what) {
  char *m = LLVMGetErrorMessage(e);
  char *s = dup_msg("emulator: %s: %s", what, m);
  LLVMDisposeErrorMessage(m);
  return s;
}

/* The symbols a kernel's object defines for the emulator (codegen/emu.c). */
static const char *const table_names[] = {"tilec_emu_entry", "tilec_emu_shared_bytes", "tilec_emu_sites", "tilec_emu_fibers"};
enum { TABLE_FIBERS = 3, NTABLES = 4 };

/* ---- the JIT: one per process, a library per kernel ------------------------------------------- */

static struct {
  pthread_once_t once;
  pthread_mutex_t lock; /* one load at a time: the object capture below is shared */
  LLVMOrcLLJITRef jit;
  LLVMOrcExecutionSessionRef es;
  char error[512];
  unsigned next;     /* for the libraries' names */
  EmuKernel *capture; /* the kernel whose object code is being made */
} G = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

/* Keeps a copy of the object code compiled for the kernel being loaded. */
static LLVMErrorRef keep_object(void *ctx, LLVMMemoryBufferRef *obj) {
  (void)ctx;
  EmuKernel *k = G.capture;
  if (k && !k->object) {
    size_t n = LLVMGetBufferSize(*obj);
    k->object = malloc(n ? n : 1);
    if (k->object) {
      memcpy(k->object, LLVMGetBufferStart(*obj), n);
      k->object_len = n;
    }
  }
  return NULL;
}

static void init_jit(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
  LLVMOrcJITTargetMachineBuilderRef jtmb;
  LLVMErrorRef e = LLVMOrcJITTargetMachineBuilderDetectHost(&jtmb);
  if (!e) {
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb);
    e = LLVMOrcCreateLLJIT(&G.jit, builder);
  } else {
    LLVMOrcDisposeLLJITBuilder(builder);
  }
  if (e) {
    char *m = LLVMGetErrorMessage(e);
    snprintf(G.error, sizeof G.error, "emulator: cannot create the JIT: %s", m);
    LLVMDisposeErrorMessage(m);
    G.jit = NULL;
    return;
  }
  G.es = LLVMOrcLLJITGetExecutionSession(G.jit);
  LLVMOrcObjectTransformLayerSetTransform(LLVMOrcLLJITGetObjTransformLayer(G.jit), keep_object, NULL);
}

/* Binds, when a kernel's library looks them up, the names the emulator
 * implements, and the process's own (libc, libm) for what code generation
 * calls by itself. */
static LLVMErrorRef generate(LLVMOrcDefinitionGeneratorRef gen, void *ctx, LLVMOrcLookupStateRef *state,
                             LLVMOrcLookupKind kind, LLVMOrcJITDylibRef jd, LLVMOrcJITDylibLookupFlags flags,
                             LLVMOrcCLookupSet set, size_t n) {
  (void)gen, (void)ctx, (void)state, (void)kind, (void)flags;
  LLVMOrcCSymbolMapPair *pairs = malloc((n ? n : 1) * sizeof *pairs);
  if (!pairs) return NULL;
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    const char *name = LLVMOrcSymbolStringPoolEntryStr(set[i].Name);
    void *impl = emu_bind(name, strlen(name));
    if (!impl) impl = dlsym(RTLD_DEFAULT, name); /* what code generation calls itself: memcpy, fmaf, ... */
    if (!impl) continue;
    LLVMOrcRetainSymbolStringPoolEntry(set[i].Name);
    pairs[m].Name = set[i].Name;
    pairs[m].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)impl;
    pairs[m].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
    pairs[m].Sym.Flags.TargetFlags = 0;
    m++;
  }
  LLVMErrorRef e = m ? LLVMOrcJITDylibDefine(jd, LLVMOrcAbsoluteSymbols(pairs, m)) : NULL;
  free(pairs);
  return e;
}

typedef struct Found {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool done;
  LLVMErrorRef error;
  LLVMOrcSymbolStringPoolEntryRef names[NTABLES];
  uint64_t addr[NTABLES];
} Found;

static void on_found(LLVMErrorRef err, LLVMOrcCSymbolMapPairs res, size_t n, void *ctx) {
  Found *f = ctx;
  pthread_mutex_lock(&f->lock);
  f->error = err;
  for (size_t i = 0; !err && i < n; i++)
    for (int j = 0; j < NTABLES; j++)
      if (res[i].Name == f->names[j]) f->addr[j] = res[i].Sym.Address;
  f->done = true;
  pthread_cond_signal(&f->cond);
  pthread_mutex_unlock(&f->lock);
}

/* Finds the entry and the tables (table_names) in the kernel's library
 * (compiling or linking it on the way); tilec_emu_fibers may be missing. */
static LLVMErrorRef find_symbols(EmuKernel *k, uint64_t addr[NTABLES]) {
  Found f = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
  LLVMOrcCLookupSetElement set[NTABLES];
  for (int j = 0; j < NTABLES; j++) {
    f.names[j] = LLVMOrcLLJITMangleAndIntern(G.jit, table_names[j]);
    LLVMOrcRetainSymbolStringPoolEntry(f.names[j]); /* one for the lookup to take */
    set[j].Name = f.names[j];
    set[j].LookupFlags = j == TABLE_FIBERS ? LLVMOrcSymbolLookupFlagsWeaklyReferencedSymbol : LLVMOrcSymbolLookupFlagsRequiredSymbol;
  }
  LLVMOrcCJITDylibSearchOrderElement order = {k->jd, LLVMOrcJITDylibLookupFlagsMatchExportedSymbolsOnly};
  LLVMOrcExecutionSessionLookup(G.es, LLVMOrcLookupKindStatic, &order, 1, set, NTABLES, on_found, &f);
  pthread_mutex_lock(&f.lock);
  while (!f.done) pthread_cond_wait(&f.cond, &f.lock);
  pthread_mutex_unlock(&f.lock);
  for (int j = 0; j < NTABLES; j++) {
    addr[j] = f.addr[j];
    LLVMOrcReleaseSymbolStringPoolEntry(f.names[j]);
  }
  return f.error;
}

/* A new kernel with a library of its own; NULL with *err set. */
static EmuKernel *new_kernel(const char *kernel, char **err) {
  pthread_once(&G.once, init_jit);
  if (!G.jit) {
    *err = strdup(G.error);
    return NULL;
  }
  EmuKernel *k = calloc(1, sizeof *k);
  if (k) k->name = strdup(kernel);
  if (!k || !k->name) {
    free(k);
    return NULL; /* out of memory: *err stays NULL */
  }
  char name[64];
  snprintf(name, sizeof name, "tilec.kernel.%u", G.next++);
  k->jd = LLVMOrcExecutionSessionCreateBareJITDylib(G.es, name);
  LLVMOrcJITDylibAddGenerator(k->jd, LLVMOrcCreateCustomCAPIDefinitionGenerator(generate, NULL, NULL));
  return k;
}

/* Reads the entry, the shared-memory size, the site table and, where the
 * object has it, whether the kernel needs fibers (bit 0 of
 * tilec_emu_fibers) and the async proxy's checks (bit 1), at their addresses;
 * false when out of memory. */
static bool take_tables(EmuKernel *k, const uint64_t addr[NTABLES]) {
  k->entry = (void (*)(void **))(uintptr_t)addr[0];
  memcpy(&k->shared_bytes, (const void *)(uintptr_t)addr[1], sizeof k->shared_bytes);
  if (addr[TABLE_FIBERS]) {
    int32_t fibers;
    memcpy(&fibers, (const void *)(uintptr_t)addr[TABLE_FIBERS], sizeof fibers);
    k->fibers = fibers != 0;
    k->async_proxy = (fibers & 2) != 0; /* bit 1: wgmma, whose async proxy is checked */
  }
  /* the site table: strings, ended by an empty one */
  for (const char *p = (const char *)(uintptr_t)addr[2]; *p; p += strlen(p) + 1) {
    const char **grown = realloc(k->sites, (size_t)(k->nsites + 1) * sizeof *grown);
    if (!grown) return false;
    k->sites = grown;
    k->sites[k->nsites++] = p;
  }
  return true;
}

/* Links what was added to the kernel's library and reads its tables. */
static EmuKernel *finish(EmuKernel *k, char **err) {
  uint64_t addr[NTABLES] = {0};
  LLVMErrorRef e = find_symbols(k, addr);
  if (e) {
    *err = take_error(e, "cannot compile the kernel");
    emu_unload(k);
    return NULL;
  }
  if (!take_tables(k, addr)) {
    emu_unload(k);
    return NULL; /* out of memory: *err stays NULL */
  }
  return k;
}

static void *resolve_name(const char *name) {
  void *impl = emu_bind(name, strlen(name));
  return impl ? impl : dlsym(RTLD_DEFAULT, name);
}

/* Object code the loader takes (elfload.h): no JIT, no lock. NULL when it
 * does not, and the JIT links it instead. */
static EmuKernel *load_image(const void *object, size_t len, const char *kernel) {
  char why[160];
  ElfImage *im = elf_load(object, len, resolve_name, why, sizeof why);
  uint64_t addr[NTABLES] = {0};
  for (int j = 0; im && j < NTABLES; j++)
    if (!(addr[j] = (uint64_t)(uintptr_t)elf_symbol(im, table_names[j])) && j != TABLE_FIBERS) {
      elf_unload(im);
      im = NULL;
    }
  EmuKernel *k = im ? calloc(1, sizeof *k) : NULL;
  if (!k) {
    elf_unload(im);
    return NULL;
  }
  k->image = im;
  k->name = strdup(kernel);
  k->fibers = true; /* unless the object says otherwise */
  if (!k->name || !take_tables(k, addr)) {
    emu_unload(k);
    return NULL;
  }
  return k;
}

EmuKernel *emu_load(const char *ir, size_t len, const char *kernel, char **err) {
  *err = NULL;
  pthread_mutex_lock(&G.lock);
  EmuKernel *k = new_kernel(kernel, err);
  if (!k) {
    pthread_mutex_unlock(&G.lock);
    return NULL;
  }
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, len, "kernel");
  LLVMModuleRef m = NULL;
  char *msg = NULL;
  if (LLVMParseIRInContext(ctx, buf, &m, &msg)) {
    *err = dup_msg("emulator: the kernel's IR does not parse: %s%s", msg ? msg : "", "");
    LLVMDisposeMessage(msg);
    LLVMContextDispose(ctx);
    emu_unload(k);
    pthread_mutex_unlock(&G.lock);
    return NULL;
  }
  /* every declaration must be one the emulator implements: say which is not */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (!LLVMIsDeclaration(f) || LLVMGetIntrinsicID(f)) continue;
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    if (!emu_bind(name, n)) {
      char nm[256];
      snprintf(nm, sizeof nm, "%.*s", (int)n, name);
      *err = dup_msg("emulator: the kernel calls '%s', which the emulator does not implement%s", nm, "");
      LLVMDisposeModule(m);
      LLVMContextDispose(ctx);
      emu_unload(k);
      pthread_mutex_unlock(&G.lock);
      return NULL;
    }
    if ((n >= 17 && !memcmp(name, "tilec.emu.barrier", 17)) || (n >= 14 && !memcmp(name, "tilec.emu.shfl", 14)) ||
        (n >= 14 && !memcmp(name, "tilec.emu.mma.", 14)) || (n >= 19 && !memcmp(name, "tilec.emu.ldmatrix.", 19)))
      k->fibers = true;
    if (n >= 15 && !memcmp(name, "tilec.emu.wgmma", 15)) k->fibers = k->async_proxy = true;
  }
  /* nothing unwinds through a kernel: no unwind tables for the JIT to register */
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) {
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, nounwind, 0));
      LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMGetEnumAttributeKindForName("uwtable", 7));
    }
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContextFromLLVMContext(ctx);
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
  LLVMOrcDisposeThreadSafeContext(tsc);
  LLVMErrorRef e = LLVMOrcLLJITAddLLVMIRModule(G.jit, k->jd, tsm);
  if (e) {
    LLVMOrcDisposeThreadSafeModule(tsm);
    *err = take_error(e, "cannot add the kernel");
    emu_unload(k);
    pthread_mutex_unlock(&G.lock);
    return NULL;
  }
  G.capture = k;
  k = finish(k, err);
  G.capture = NULL;
  pthread_mutex_unlock(&G.lock);
  return k;
}

EmuKernel *emu_load_object(const void *object, size_t len, const char *kernel, char **err) {
  *err = NULL;
  EmuKernel *direct = load_image(object, len, kernel);
  if (direct) return direct;
  pthread_mutex_lock(&G.lock);
  EmuKernel *k = new_kernel(kernel, err);
  if (!k) {
    pthread_mutex_unlock(&G.lock);
    return NULL;
  }
  k->fibers = true; /* unless the object says otherwise */
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(object, len, "kernel.o");
  LLVMErrorRef e = LLVMOrcLLJITAddObjectFile(G.jit, k->jd, buf);
  if (e) {
    *err = take_error(e, "cannot add the kernel's object code");
    emu_unload(k);
    pthread_mutex_unlock(&G.lock);
    return NULL;
  }
  k = finish(k, err);
  pthread_mutex_unlock(&G.lock);
  return k;
}

const void *emu_object(const EmuKernel *k, size_t *len) {
  *len = k ? k->object_len : 0;
  return k ? k->object : NULL;
}

bool emu_uses_fibers(const EmuKernel *k) { return k && k->fibers; }

bool emu_loaded_directly(const EmuKernel *k) { return k && k->image; }

void emu_unload(EmuKernel *k) {
  if (!k) return;
  if (k->jd) {
    LLVMErrorRef e = LLVMOrcJITDylibClear(k->jd);
    if (e) LLVMConsumeError(e);
  }
  elf_unload(k->image);
  free(k->object);
  free(k->sites);
  free(k->name);
  free(k);
}

