/*
 * sema_import.c — the modules of the user's project: where an import
 * finds them (the kernel file's folder and the folder above its package,
 * -I folders, then $TILEC_PATH, as Python's sys.path would have them),
 * each read, lexed and parsed once, on the first import that needs it.
 * It is apart from sema_module.c, which resolves names in the modules, as
 * the one part of sema that touches the file system.
 */
#include "sema.h"

#include "tilec/tilec.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}
static bool is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A path as diagnostics show it: relative to the working folder when under it. */
static const char *shown_path(Arena *a, const char *path) {
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) return path;
  size_t n = strlen(cwd);
  if (n > 1 && !strncmp(path, cwd, n) && path[n] == '/') return arena_strndup(a, path + n + 1, strlen(path + n + 1));
  return path;
}

/* A module's text, NUL-terminated, read at its size into one block of
 * the arena; NULL when it cannot be read. One larger than a source may be
 * is an error, as the main file's is. */
static char *read_file(Sema *S, const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || st.st_size < 0) {
    fclose(f);
    return NULL;
  }
  if ((unsigned long long)st.st_size > TILEC_MAX_SOURCE_BYTES) {
    fclose(f);
    diag_plain_error(S->d, "%s is %lld bytes; tilec reads modules of at most %zu MiB", shown_path(S->a, path),
                     (long long)st.st_size, TILEC_MAX_SOURCE_BYTES >> 20);
    diag_unwind(S->d);
  }
  char *text = arena_alloc(S->a, (size_t)st.st_size + 1);
  *len = fread(text, 1, (size_t)st.st_size, f);
  fclose(f);
  text[*len] = 0;
  return text;
}

static const char *dir_of(Arena *a, const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? arena_strndup(a, path, (size_t)(slash > path ? slash - path : 1)) : ".";
}

/* The folders imports are searched in, in order: the kernel file's folder,
 * the folder above its outermost package, -I, then $TILEC_PATH. */
static void search_roots(Sema *S, PtrVec *roots) {
  const Module *main = S->mods.v[0];
  if (main->dir) vec_push(S->a, roots, (void *)main->dir);
  if (main->dir && main->package[0]) {
    const char *root = main->dir;
    for (const char *p = main->package; p; p = strchr(p + 1, '.')) root = dir_of(S->a, root);
    vec_push(S->a, roots, (void *)root);
  }
  for (int i = 0; S->opt && i < S->opt->ninclude_dirs; i++) vec_push(S->a, roots, (void *)S->opt->include_dirs[i]);
  const char *env = getenv("TILEC_PATH");
  while (env && *env) {
    size_t n = strcspn(env, ":");
    if (n) vec_push(S->a, roots, arena_strndup(S->a, env, n));
    env += n + (env[n] == ':');
  }
}

static Module *new_module(Sema *S, const char *name, const char *package, const char *dir) {
  Module *m = arena_alloc(S->a, sizeof *m);
  m->name = name;
  m->package = package;
  m->dir = dir;
  return m;
}

/* Finds, reads and parses module `dotted`; NULL when no search folder has
 * it. A file that does not lex or parse is an error pointing into it. */
const Module *sema_load_module(Sema *S, const char *dotted) {
  for (int i = 0; i < S->mods.n; i++) {
    const Module *m = S->mods.v[i];
    if (!strcmp(m->name, dotted)) return m;
  }
  for (int i = 0; i < S->missing.n; i++)
    if (!strcmp(S->missing.v[i], dotted)) return NULL;
  StrBuf rel = {.arena = S->a};
  for (const char *p = dotted; *p; p++) sb_putc(&rel, *p == '.' ? '/' : *p);
  PtrVec roots = {0};
  search_roots(S, &roots);
  for (int r = 0; r < roots.n; r++) {
    const char *base = arena_printf(S->a, "%s/%s", (const char *)roots.v[r], rel.s);
    const char *file = NULL, *package = NULL;
    const char *init = arena_printf(S->a, "%s/__init__.py", base);
    const char *py = arena_printf(S->a, "%s.py", base);
    if (is_file(init)) {
      file = init;
      package = dotted;
    } else if (is_file(py)) {
      file = py;
      const char *dot = strrchr(dotted, '.');
      package = dot ? arena_strndup(S->a, dotted, (size_t)(dot - dotted)) : "";
    } else if (is_dir(base)) {
      /* a namespace package: a folder without __init__.py */
      Module *m = new_module(S, dotted, dotted, base);
      vec_push(S->a, &S->mods, m);
      return m;
    } else {
      continue;
    }
    size_t len;
    char *text = read_file(S, file, &len);
    if (!text) continue;
    Source *src = arena_alloc(S->a, sizeof *src);
    src->name = shown_path(S->a, file);
    src->text = text;
    src->len = len;
    TokenList *toks = arena_alloc(S->a, sizeof *toks);
    Module *m = NULL;
    if (lex_file(S->a, S->d, src, toks)) m = parse_module(S->a, S->d, src, toks);
    if (!m) diag_unwind(S->d);
    m->name = dotted;
    m->package = package;
    m->dir = dir_of(S->a, file);
    char *real = realpath(file, NULL);
    m->file = real ? arena_strndup(S->a, real, strlen(real)) : file;
    free(real);
    vec_push(S->a, &S->mods, m);
    return m;
  }
  vec_push(S->a, &S->missing, (void *)dotted);
  return NULL;
}

void sema_module_init(Sema *S, Module *main, const SpecOptions *opt) {
  S->opt = opt;
  main->name = "";
  main->package = "";
  char *real = opt->path ? realpath(opt->path, NULL) : NULL;
  if (real) {
    /* the package it is in: the folders above it that have __init__.py */
    const char *path = arena_strndup(S->a, real, strlen(real));
    free(real);
    const char *dir = dir_of(S->a, path);
    main->dir = dir;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 3 && !strcmp(base + n - 3, ".py")) n -= 3;
    const char *stem = arena_strndup(S->a, base, n);
    const char *pkg = "";
    for (int depth = 0; depth < 32 && is_file(arena_printf(S->a, "%s/__init__.py", dir)); depth++) {
      const char *slash = strrchr(dir, '/');
      const char *leaf = slash ? slash + 1 : dir;
      if (!*leaf || !strcmp(leaf, ".") || !strcmp(leaf, "..")) break;
      pkg = *pkg ? arena_printf(S->a, "%s.%s", leaf, pkg) : leaf;
      if (!slash) break;
      dir = dir_of(S->a, dir);
    }
    main->package = pkg;
    main->name = strcmp(stem, "__init__") ? (*pkg ? arena_printf(S->a, "%s.%s", pkg, stem) : stem) : pkg;
  }
  vec_push(S->a, &S->mods, main);
  for (int i = 0; i < opt->ndefines; i++) vec_push(S->a, &S->defines, (void *)opt->defines[i]);
}

/* The other files the compilation read, for the kernel cache. */
void sema_module_deps(Sema *S, Kernel *k) {
  for (int i = 1; i < S->mods.n; i++) {
    const Module *m = S->mods.v[i];
    if (m->file && m->src) vec_push(S->a, &k->deps, (void *)m);
  }
}
