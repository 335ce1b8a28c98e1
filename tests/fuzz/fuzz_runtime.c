/*
 * fuzz_runtime.c — libFuzzer target for the runtime's readers of outside
 * text: grid expressions (runtime/grid.c, from the command line and from
 * tilec_jit_options), the kernel metadata (runtime/meta.c, from the disk
 * cache and the compiler) and the loader of cached object code
 * (emu/elfload.c). None of them links LLVM or MLIR.
 *
 * Input format: the first byte chooses the reader, the rest is its input:
 *   'g'  a grid expression over the names n, M, BLOCK (values 98432, 1000,
 *        1024) and x (a pointer), evaluated when it parses
 *   'm'  metadata JSON
 *   'e'  an object file, loaded with every undefined symbol resolved to a
 *        dummy address (nothing loaded runs)
 * The contract checked: no crash, no hang, no leak, no UB.
 *
 * Build (clang with libFuzzer; S is the source tree):
 *
 *     clang -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined \
 *       -fno-sanitize-recover=undefined -I$S \
 *       $S/runtime/{grid,meta}.c $S/emu/elfload.c $S/tests/fuzz/fuzz_runtime.c -o fuzz_runtime
 *     ./fuzz_runtime -max_len=65536 -timeout=5 CORPUS_DIR
 *
 * or with Meson: -Dfuzz=true builds tests/fuzz_runtime beside fuzz_frontend.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emu/elfload.h"
#include "runtime/grid.h"
#include "runtime/meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void *resolve(const char *name) {
  (void)name;
  return (void *)(uintptr_t)0x1000;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  char *text = malloc(size);
  memcpy(text, data + 1, size - 1);
  text[size - 1] = 0;
  switch (data[0]) {
  case 'g': {
    static const GridName names[] = {{"n", NULL}, {"M", NULL}, {"BLOCK", NULL}, {"x", "a pointer parameter"}};
    static const int64_t values[] = {98432, 1000, 1024, 0};
    Grid *g = malloc(sizeof *g);
    GridError e;
    unsigned dims[3];
    if (grid_parse(g, text, names, 4, &e)) grid_eval(g, values, dims, &e);
    free(g);
    break;
  }
  case 'm': {
    KernelMeta m;
    char err[256];
    if (meta_parse(text, &m, err, sizeof err, NULL)) meta_free(&m);
    break;
  }
  case 'e': {
    char why[160];
    elf_unload(elf_load(data + 1, size - 1, resolve, why, sizeof why));
    break;
  }
  default: break;
  }
  free(text);
  return 0;
}
