/*
 * fuzz_frontend.c — libFuzzer target for the frontend (lex, parse, sema,
 * AST printer) through the public API, tilec_compile() with TILEC_EMIT_AST.
 *
 * Input format: the first line (at most 200 bytes, up to '\n') is the
 * signature, the rest is the Python source. If the first line starts with
 * '@', the word after it (up to the first space) names the kernel and the
 * rest of the line is the signature:
 *
 *     @add_kernel *fp32:16, *fp32:16, *fp32:16, i32, 1024
 *     import triton
 *     ...
 *
 * Without a newline within the first 201 bytes the signature is empty
 * (NULL) and the whole input is the source. The contract checked: no crash,
 * no hang, no leak, no UB; every bad input just gives a diagnostic.
 *
 * Build (needs clang with libFuzzer, e.g. Debian clang-14 + libclang-rt-14-dev).
 * compile/pipeline.c also drives the tile IR, passes and codegen (meson.build's
 * ir_lib), so the target links them and MLIR 22's C API, although the AST path
 * never enters them. With Meson, in a build dir of its own:
 *
 *     CC=clang meson setup /tmp/fuzzmeson /work/main -Dfuzz=true
 *     nice ninja -C /tmp/fuzzmeson tests/fuzz_frontend
 *
 * or the frontend by hand, reusing that dir's libtilec_ir.a (S=/work/main;
 * take the -l list from meson.build's mlir_capi if it has grown):
 *
 *     clang -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined \
 *       -fno-sanitize-recover=undefined -isystem /usr/lib/llvm-22/include \
 *       -I$S/include -I$S -DTILEC_VERSION='"fuzz"' \
 *       $S/frontend/{support,lex,parse,types,sema,builtins,ast}.c \
 *       $S/compile/pipeline.c $S/tests/fuzz/fuzz_frontend.c \
 *       /tmp/fuzzmeson/libtilec_ir.a \
 *       -L/usr/lib/llvm-22/lib -Wl,-rpath,/usr/lib/llvm-22/lib \
 *       -lMLIRCAPIIRDL -lMLIRCAPIRegisterEverything -lMLIRCAPIConversion \
 *       -lMLIRCAPITransforms -lMLIRCAPINVVM -lMLIRCAPILLVM -lMLIRCAPISCF \
 *       -lMLIRCAPIArith -lMLIRCAPIMath -lMLIRCAPIFunc -lMLIRCAPIControlFlow \
 *       -lMLIRCAPIGPU -lMLIRCAPITarget -lMLIRCAPIIR -lMLIR -lLLVM -lstdc++ -lm \
 *       -o fuzz_frontend
 *
 * Run (on a copy of the seed corpus; new inputs go into the copy):
 *
 *     cp -r /work/main/tests/fuzz/corpus /tmp/corpus-run
 *     ./fuzz_frontend -max_len=4096 -timeout=5 -rss_limit_mb=2048 \
 *       -dict=/work/main/tests/fuzz/fuzz_frontend.dict -max_total_time=600 \
 *       /tmp/corpus-run
 *
 * Programs deeper than 4096 bytes can spell (nesting past the limits of
 * docs/language.md) are fuzz_deep.c's, from short recipes.
 *
 * Reproduce one input: ./fuzz_frontend crash-<hash>
 * Minimize one:        ./fuzz_frontend -minimize_crash=1 -runs=10000 crash-<hash>
 * Saved findings live in tests/fuzz/crashes/ (run them as above).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tilec/tilec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_HEADER = 200 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char header[MAX_HEADER + 1];
  char *kernel = NULL, *signature = NULL;
  const char *source = (const char *)data;
  size_t length = size;

  /* The first line, if it ends within MAX_HEADER bytes, is the header. */
  size_t limit = size < MAX_HEADER + 1 ? size : MAX_HEADER + 1;
  const uint8_t *nl = memchr(data, '\n', limit);
  if (nl) {
    size_t n = (size_t)(nl - data);
    memcpy(header, data, n);
    header[n] = 0;
    source = (const char *)nl + 1;
    length = size - n - 1;
    signature = header;
    if (header[0] == '@') {
      kernel = header + 1;
      char *sp = strchr(kernel, ' ');
      if (sp) {
        *sp = 0;
        signature = sp + 1;
      } else {
        signature = header + n; /* "" */
      }
    }
  }

  tilec_compile_options opts = {0};
  opts.kernel = kernel;
  opts.signature = signature;
  opts.emit = TILEC_EMIT_AST;

  tilec_result *r = NULL;
  tilec_status st = tilec_compile("fuzz.py", source, length, &opts, &r);
  if (!r) abort(); /* *out is always set */

  size_t outlen = 0;
  const char *out = tilec_result_output(r, &outlen);
  const char *diags = tilec_result_diagnostics(r);
  if (!diags) abort();
  if (st == TILEC_OK) {
    if (!out || strlen(out) != outlen) abort();
  } else {
    /* Every failure must say why. */
    if (out) abort();
    if (diags[0] == 0) abort();
  }
  tilec_result_destroy(r);
  return 0;
}
