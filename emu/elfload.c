/*
 * elfload.c — a loader for the emulator's relocatable x86-64 objects
 * (elfload.h says why). The layout, in one private mapping:
 *
 *   [code and read-only sections][a trampoline per symbol][a GOT slot per symbol] | page | [writable sections]
 *
 * The first part becomes read-and-execute once relocated; the writable
 * sections stay read-write. A call to a symbol out of a 32-bit reach goes
 * through its trampoline (jmp *0(%rip), then the address); a GOTPCREL reference
 * reads its slot. Every offset and index in the object is checked against
 * its bounds before use.
 */
#include "elfload.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__linux__)
#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct Sym {
  const char *name; /* into names */
  void *addr;
} Sym;

struct ElfImage {
  unsigned char *base;
  size_t size;
  char *names; /* a copy of the string table */
  Sym *syms;   /* the defined symbols */
  int nsyms;
};

typedef struct Loader {
  const unsigned char *obj;
  size_t len;
  Elf64_Ehdr eh;
  Elf64_Shdr *sh;
  size_t *off;       /* where each allocated section lies in the mapping; SIZE_MAX otherwise */
  Elf64_Sym *sym;
  size_t nsym;
  const char *strtab;
  size_t strtab_len;
  uint64_t *addr;    /* each symbol's address */
  unsigned char *trampolines, *got;
  ElfImage *im;
  char *why;
  size_t whylen;
} Loader;

static bool refuse(Loader *L, const char *fmt, const char *arg) {
  snprintf(L->why, L->whylen, fmt, arg);
  return false;
}

static const char *sym_name(const Loader *L, const Elf64_Sym *s) {
  return s->st_name < L->strtab_len ? L->strtab + s->st_name : "";
}

static const char *section_name(const Loader *L, size_t i) {
  if (L->eh.e_shstrndx >= L->eh.e_shnum) return "";
  const Elf64_Shdr *t = &L->sh[L->eh.e_shstrndx];
  if (t->sh_type != SHT_STRTAB || L->sh[i].sh_name >= t->sh_size) return ""; /* its bounds are checked */
  const char *s = (const char *)L->obj + t->sh_offset + L->sh[i].sh_name;
  return memchr(s, 0, t->sh_size - L->sh[i].sh_name) ? s : "";
}

/* The header, the section table, the symbol table: in bounds, and of a kind the loader handles. */
static bool read_tables(Loader *L) {
  if (L->len < sizeof L->eh) return refuse(L, "%s", "not an ELF object");
  memcpy(&L->eh, L->obj, sizeof L->eh);
  const Elf64_Ehdr *e = &L->eh;
  if (memcmp(e->e_ident, ELFMAG, SELFMAG) || e->e_ident[EI_CLASS] != ELFCLASS64 || e->e_ident[EI_DATA] != ELFDATA2LSB)
    return refuse(L, "%s", "not a 64-bit little-endian ELF object");
  if (e->e_type != ET_REL || e->e_machine != EM_X86_64) return refuse(L, "%s", "not a relocatable x86-64 object");
  if (e->e_shentsize != sizeof(Elf64_Shdr) || !e->e_shnum || e->e_shoff > L->len ||
      (L->len - e->e_shoff) / sizeof(Elf64_Shdr) < e->e_shnum)
    return refuse(L, "%s", "a section table out of bounds");
  L->sh = calloc(e->e_shnum, sizeof *L->sh);
  L->off = calloc(e->e_shnum, sizeof *L->off);
  if (!L->sh || !L->off) return refuse(L, "%s", "out of memory");
  memcpy(L->sh, L->obj + e->e_shoff, e->e_shnum * sizeof *L->sh);
  for (size_t i = 0; i < e->e_shnum; i++) {
    const Elf64_Shdr *s = &L->sh[i];
    if (s->sh_type != SHT_NOBITS && (s->sh_offset > L->len || L->len - s->sh_offset < s->sh_size))
      return refuse(L, "%s", "a section out of bounds");
  }
  for (size_t i = 0; i < e->e_shnum; i++) {
    const Elf64_Shdr *s = &L->sh[i];
    if (s->sh_flags & SHF_TLS) return refuse(L, "%s", "thread-local storage");
    if (s->sh_type == SHT_INIT_ARRAY || s->sh_type == SHT_FINI_ARRAY || s->sh_type == SHT_PREINIT_ARRAY ||
        !strncmp(section_name(L, i), ".ctors", 6) || !strncmp(section_name(L, i), ".dtors", 6))
      return refuse(L, "%s", "constructors or destructors");
    if (s->sh_type == SHT_REL) return refuse(L, "%s", "REL relocations");
    if ((s->sh_flags & SHF_ALLOC) && s->sh_addralign > 4096) return refuse(L, "%s", "a section aligned past a page");
    if (s->sh_type == SHT_SYMTAB) {
      if (L->sym) return refuse(L, "%s", "two symbol tables");
      if (s->sh_entsize != sizeof(Elf64_Sym) || s->sh_link >= e->e_shnum || L->sh[s->sh_link].sh_type != SHT_STRTAB)
        return refuse(L, "%s", "a malformed symbol table");
      L->nsym = s->sh_size / sizeof(Elf64_Sym);
      L->sym = calloc(L->nsym + 1, sizeof *L->sym);
      if (!L->sym) return refuse(L, "%s", "out of memory");
      memcpy(L->sym, L->obj + s->sh_offset, L->nsym * sizeof *L->sym);
      L->strtab = (const char *)L->obj + L->sh[s->sh_link].sh_offset;
      L->strtab_len = L->sh[s->sh_link].sh_size;
      if (!L->strtab_len || L->strtab[L->strtab_len - 1]) return refuse(L, "%s", "an unterminated string table");
    }
  }
  if (!L->sym) return refuse(L, "%s", "no symbol table");
  return true;
}

static size_t align_up(size_t x, size_t a) { return a > 1 ? (x + a - 1) / a * a : x; }

/* Places the allocated sections, maps the memory, copies their contents. */
static bool lay_out(Loader *L) {
  size_t at = 0, page = (size_t)sysconf(_SC_PAGESIZE);
  for (int writable = 0; writable < 2; writable++) {
    if (writable) {
      /* the trampolines and GOT slots after the read-only part, then a page boundary */
      at = align_up(at, 16);
      L->trampolines = (unsigned char *)(uintptr_t)at;
      at += 16 * L->nsym;
      L->got = (unsigned char *)(uintptr_t)at;
      at = align_up(at + 8 * L->nsym, page);
    }
    for (size_t i = 0; i < L->eh.e_shnum; i++) {
      const Elf64_Shdr *s = &L->sh[i];
      if (i == 0 || !(s->sh_flags & SHF_ALLOC) || !!(s->sh_flags & SHF_WRITE) != writable) continue;
      at = align_up(at, s->sh_addralign);
      L->off[i] = at;
      at += s->sh_size;
    }
  }
  size_t size = align_up(at ? at : 1, page);
  void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return refuse(L, "%s", "no memory to map");
  L->im->base = base;
  L->im->size = size;
  L->trampolines = L->im->base + (uintptr_t)L->trampolines;
  L->got = L->im->base + (uintptr_t)L->got;
  for (size_t i = 1; i < L->eh.e_shnum; i++) {
    const Elf64_Shdr *s = &L->sh[i];
    if ((s->sh_flags & SHF_ALLOC) && s->sh_type != SHT_NOBITS)
      memcpy(L->im->base + L->off[i], L->obj + s->sh_offset, s->sh_size);
  }
  return true;
}

static bool is_placed(const Loader *L, size_t shndx) {
  return shndx > 0 && shndx < L->eh.e_shnum && (L->sh[shndx].sh_flags & SHF_ALLOC);
}

/* Every symbol's address; the undefined ones through resolve, each with
 * its trampoline. The defined ones are kept for elf_symbol. */
static bool resolve_symbols(Loader *L, ElfResolve resolve) {
  L->addr = calloc(L->nsym + 1, sizeof *L->addr);
  L->im->syms = calloc(L->nsym + 1, sizeof *L->im->syms);
  L->im->names = malloc(L->strtab_len);
  if (!L->addr || !L->im->syms || !L->im->names) return refuse(L, "%s", "out of memory");
  memcpy(L->im->names, L->strtab, L->strtab_len);
  for (size_t i = 1; i < L->nsym; i++) {
    const Elf64_Sym *s = &L->sym[i];
    const char *name = sym_name(L, s);
    if (s->st_shndx == SHN_UNDEF) {
      void *a = resolve(name);
      if (!a && ELF64_ST_BIND(s->st_info) != STB_WEAK) return refuse(L, "the symbol '%s' is not defined", name);
      L->addr[i] = (uint64_t)(uintptr_t)a;
      unsigned char *trampoline = L->trampolines + 16 * i;
      static const unsigned char jmp[6] = {0xff, 0x25, 0, 0, 0, 0}; /* jmp *0(%rip): the address follows */
      memcpy(trampoline, jmp, sizeof jmp);
      memcpy(trampoline + 6, &L->addr[i], 8);
    } else if (s->st_shndx == SHN_ABS) {
      L->addr[i] = s->st_value;
    } else if (s->st_shndx == SHN_COMMON) {
      return refuse(L, "the common symbol '%s'", name);
    } else if (is_placed(L, s->st_shndx)) {
      if (s->st_value > L->sh[s->st_shndx].sh_size) return refuse(L, "the symbol '%s' lies outside its section", name);
      L->addr[i] = (uint64_t)(uintptr_t)(L->im->base + L->off[s->st_shndx] + s->st_value);
      if (*name && ELF64_ST_TYPE(s->st_info) != STT_SECTION)
        L->im->syms[L->im->nsyms++] = (Sym){L->im->names + s->st_name, (void *)(uintptr_t)L->addr[i]};
    }
    memcpy(L->got + 8 * i, &L->addr[i], 8);
  }
  return true;
}

static bool put32(Loader *L, unsigned char *p, uint64_t v, bool is_signed) {
  if (is_signed ? (int64_t)v != (int32_t)v : v > UINT32_MAX) return refuse(L, "%s", "a relocation out of 32-bit reach");
  uint32_t w = (uint32_t)v;
  memcpy(p, &w, 4);
  return true;
}

/* Applies the relocations of every allocated section. */
static bool relocate(Loader *L) {
  for (size_t r = 1; r < L->eh.e_shnum; r++) {
    const Elf64_Shdr *rs = &L->sh[r];
    if (rs->sh_type != SHT_RELA || !is_placed(L, rs->sh_info)) continue;
    if (rs->sh_entsize != sizeof(Elf64_Rela) || rs->sh_link >= L->eh.e_shnum || L->sh[rs->sh_link].sh_type != SHT_SYMTAB)
      return refuse(L, "%s", "a malformed relocation section");
    const Elf64_Shdr *target = &L->sh[rs->sh_info];
    unsigned char *tbase = L->im->base + L->off[rs->sh_info];
    size_t n = rs->sh_size / sizeof(Elf64_Rela);
    for (size_t i = 0; i < n; i++) {
      Elf64_Rela e;
      memcpy(&e, L->obj + rs->sh_offset + i * sizeof e, sizeof e);
      uint32_t type = ELF64_R_TYPE(e.r_info);
      size_t si = ELF64_R_SYM(e.r_info);
      size_t width = type == R_X86_64_64 || type == R_X86_64_PC64 ? 8 : 4;
      if (type == R_X86_64_NONE) continue;
      if (si >= L->nsym || e.r_offset > target->sh_size || target->sh_size - e.r_offset < width)
        return refuse(L, "%s", "a relocation out of bounds");
      if (target->sh_type == SHT_NOBITS) return refuse(L, "%s", "a relocation in a section without contents");
      const Elf64_Sym *s = &L->sym[si];
      if (s->st_shndx != SHN_UNDEF && s->st_shndx != SHN_ABS && !is_placed(L, s->st_shndx))
        return refuse(L, "a relocation against '%s', which is not loaded", sym_name(L, s));
      /* the arithmetic wraps, as the machine's does; the checks are on the result */
      unsigned char *p = tbase + e.r_offset;
      uint64_t P = (uint64_t)(uintptr_t)p, S = L->addr[si], A = (uint64_t)e.r_addend, v;
      switch (type) {
      case R_X86_64_64: v = S + A; memcpy(p, &v, 8); break;
      case R_X86_64_PC64: v = S + A - P; memcpy(p, &v, 8); break;
      case R_X86_64_PC32:
      case R_X86_64_PLT32:
        v = S + A - P;
        /* out of reach: a call goes through the symbol's trampoline */
        if ((int64_t)v != (int32_t)v && type == R_X86_64_PLT32 && s->st_shndx == SHN_UNDEF)
          v = (uint64_t)(uintptr_t)(L->trampolines + 16 * si) + A - P;
        if (!put32(L, p, v, true)) return false;
        break;
      case R_X86_64_GOTPCREL:
      case R_X86_64_GOTPCRELX:
      case R_X86_64_REX_GOTPCRELX:
        if (!put32(L, p, (uint64_t)(uintptr_t)(L->got + 8 * si) + A - P, true)) return false;
        break;
      case R_X86_64_32: if (!put32(L, p, S + A, false)) return false; break;
      case R_X86_64_32S: if (!put32(L, p, S + A, true)) return false; break;
      default: {
        char t[16];
        snprintf(t, sizeof t, "%u", type);
        return refuse(L, "the relocation type %s", t);
      }
      }
    }
  }
  return true;
}

ElfImage *elf_load(const void *obj, size_t len, ElfResolve resolve, char *why, size_t whylen) {
  char none[8];
  Loader L = {.obj = obj, .len = len, .why = why && whylen ? why : none, .whylen = why && whylen ? whylen : sizeof none};
  L.why[0] = 0;
  L.im = calloc(1, sizeof *L.im);
  bool ok = L.im && obj && resolve && read_tables(&L) && lay_out(&L) && resolve_symbols(&L, resolve) && relocate(&L);
  /* the code, the trampolines and the GOT become read-only and executable */
  size_t ro = ok ? align_up((size_t)(L.got - L.im->base) + 8 * L.nsym, (size_t)sysconf(_SC_PAGESIZE)) : 0;
  if (ok && ro && mprotect(L.im->base, ro, PROT_READ | PROT_EXEC)) ok = refuse(&L, "%s", "mprotect failed");
  if (!ok && L.im && !L.why[0]) refuse(&L, "%s", "a malformed object");
  free(L.sh);
  free(L.off);
  free(L.sym);
  free(L.addr);
  if (!ok) {
    elf_unload(L.im);
    return NULL;
  }
  return L.im;
}

void *elf_symbol(const ElfImage *im, const char *name) {
  for (int i = 0; im && i < im->nsyms; i++)
    if (!strcmp(im->syms[i].name, name)) return im->syms[i].addr;
  return NULL;
}

void elf_unload(ElfImage *im) {
  if (!im) return;
  if (im->base) munmap(im->base, im->size);
  free(im->names);
  free(im->syms);
  free(im);
}

#else /* not x86-64 Linux: every object goes to ORC */

ElfImage *elf_load(const void *obj, size_t len, ElfResolve resolve, char *why, size_t whylen) {
  (void)obj, (void)len, (void)resolve;
  if (why && whylen) snprintf(why, whylen, "the object loader is for x86-64 Linux");
  return NULL;
}

void *elf_symbol(const ElfImage *im, const char *name) {
  (void)im, (void)name;
  return NULL;
}

void elf_unload(ElfImage *im) { (void)im; }

#endif
