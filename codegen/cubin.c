/*
 * cubin.c — PTX to a cubin, in process, through the CUDA toolkit's
 * nvJitLink, loaded with dlopen: tilec does not link CUDA, and without a
 * toolkit the request fails with a message saying so.
 */
#include "codegen.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*CreateFn)(void **h, unsigned n, const char **opts);
typedef int (*AddDataFn)(void *h, int kind, const void *data, size_t size, const char *name);
typedef int (*CompleteFn)(void *h);
typedef int (*SizeFn)(void *h, size_t *size);
typedef int (*GetFn)(void *h, void *out);
typedef int (*DestroyFn)(void **h);


/* The entry points carry the toolkit's version in their names. */
static void *sym(void *lib, const char *fn) {
  static const char *const versions[] = {"_13_0", "_12_9", "_12_8", "_12_6", "_12_4", "_12_0", ""};
  char name[96];
  for (size_t i = 0; i < sizeof versions / sizeof *versions; i++) {
    snprintf(name, sizeof name, "__nvJitLink%s%s", fn, versions[i]);
    void *p = dlsym(lib, name);
    if (p) return p;
  }
  snprintf(name, sizeof name, "nvJitLink%s", fn);
  return dlsym(lib, name);
}

/* nvJitLink is opened once and stays loaded: unloading it after each cubin
 * would leak what it allocates at load time, and cost a load per compile. */
static void *jitlink;
static pthread_once_t jitlink_once = PTHREAD_ONCE_INIT;

static void open_jitlink(void) {
  const char *home = TILEC_CUDA_HOME;
  char path[1024];
  snprintf(path, sizeof path, "%s/lib64/libnvJitLink.so", home);
  jitlink = *home ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
  if (!jitlink) jitlink = dlopen("libnvJitLink.so", RTLD_NOW | RTLD_LOCAL);
}

bool cg_cubin(Compilation *comp, const char *ptx, size_t len, StrBuf *out) {
  const char *arch = comp->target->name;
  const char *home = TILEC_CUDA_HOME;
  pthread_once(&jitlink_once, open_jitlink);
  void *lib = jitlink;
  if (!lib) {
    diag_plain_error(comp->d, "--emit=cubin needs the CUDA toolkit's libnvJitLink.so, which was not found%s%s",
                     *home ? " under " : "", home);
    return false;
  }
  /* ISO C has no cast from object to function pointers: copy the bits */
  CreateFn create;
  AddDataFn add;
  CompleteFn complete;
  SizeFn cubin_size, log_size;
  GetFn cubin, log;
  DestroyFn destroy;
  struct {
    void *fnp;
    const char *name;
    size_t size;
  } fns[] = {
      {&create, "Create", sizeof create},       {&add, "AddData", sizeof add},
      {&complete, "Complete", sizeof complete}, {&cubin_size, "GetLinkedCubinSize", sizeof cubin_size},
      {&log_size, "GetErrorLogSize", sizeof log_size}, {&cubin, "GetLinkedCubin", sizeof cubin},
      {&log, "GetErrorLog", sizeof log},         {&destroy, "Destroy", sizeof destroy},
  };
  bool found = true;
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
    void *p = sym(lib, fns[i].name);
    found &= p != NULL;
    memcpy(fns[i].fnp, &p, fns[i].size);
  }
  if (!found) {
    diag_plain_error(comp->d, "libnvJitLink.so lacks the functions tilec uses");
    return false;
  }
  char opt[32];
  snprintf(opt, sizeof opt, "-arch=%s", arch);
  const char *opts[1] = {opt};
  void *h = NULL;
  bool ok = create(&h, 1, opts) == 0;
  /* nvJitLinkInputType: NONE, CUBIN, PTX, ... */
  if (ok) ok = add(h, 2, ptx, len, "kernel.ptx") == 0;
  if (ok) ok = complete(h) == 0;
  size_t n = 0;
  if (ok) ok = cubin_size(h, &n) == 0;
  if (ok) {
    char *buf = malloc(n ? n : 1);
    ok = buf && cubin(h, buf) == 0;
    if (ok) sb_append(out, buf, n);
    free(buf);
  } else if (h) {
    size_t ln = 0;
    char *msg = log_size(h, &ln) == 0 && ln ? malloc(ln + 1) : NULL;
    if (msg && log(h, msg) == 0) {
      msg[ln] = 0;
      diag_plain_error(comp->d, "nvJitLink could not build a cubin for %s:\n%s", arch, msg);
    } else {
      diag_plain_error(comp->d, "nvJitLink could not build a cubin for %s", arch);
    }
    free(msg);
  }
  if (h) destroy(&h);
  return ok;
}
