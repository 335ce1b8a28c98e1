/*
 * elfload.h — loads the emulator's cached object code (a relocatable
 * x86-64 ELF object, as LLVM emits it for the host) straight into memory.
 *
 * A cache hit must give a launchable kernel in well under a tenth of a
 * millisecond; linking through ORC costs about that much by itself (its
 * graph, its memory manager, a library per kernel). This loader does the
 * little the emulator's objects need: it lays the allocated sections out
 * in one mapping, resolves undefined symbols through the caller, reaches
 * them through stubs and GOT slots placed beside the code, applies the
 * relocations, and makes the code executable. An object that needs more
 * (another machine, TLS, constructors, a relocation it does not know) is
 * refused with the reason, and the caller links it with ORC instead.
 */
#ifndef TILEC_RUNTIME_ELFLOAD_H
#define TILEC_RUNTIME_ELFLOAD_H

#include <stddef.h>

typedef struct ElfImage ElfImage;

/* The address of an undefined symbol, or NULL when there is none. */
typedef void *(*ElfResolve)(const char *name);

/* Loads obj; NULL with *why (static text, or the name of what is missing in
 * why_buf) when it cannot. */
ElfImage *elf_load(const void *obj, size_t len, ElfResolve resolve, char *why, size_t whylen);

/* The address of a symbol the object defines (global or local), or NULL. */
void *elf_symbol(const ElfImage *im, const char *name);

void elf_unload(ElfImage *im); /* NULL is allowed */

#endif
