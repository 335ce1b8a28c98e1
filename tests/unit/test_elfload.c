/* test_elfload.c — the loader of the emulator's cached object code: a real
 * kernel's object loads and names its symbols; every prefix of it, and the
 * object with each byte replaced by a few troublesome values, loads or is
 * refused, never crashes (nothing loaded here runs); what it refuses says
 * why. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emu/elfload.h"
#include "emu/emu.h"
#include "tilec/tilec.h"
#include "unit.h"

static const char src[] = "import triton\n"
                          "import triton.language as tl\n"
                          "@triton.jit\n"
                          "def k(x, y, n, B: tl.constexpr):\n"
                          "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
                          "    v = tl.load(x + o, mask=o < n)\n"
                          "    tl.store(y + o, tl.exp(v) / tl.sum(v, axis=0), mask=o < n)\n";

static int resolved;
static void *resolve(const char *name) {
  (void)name;
  resolved++;
  return (void *)(uintptr_t)0x1000; /* never called: nothing loaded here runs */
}

static void *resolve_nothing(const char *name) {
  (void)name;
  return NULL;
}

int unit_main(void) {
  if (!elf_load(NULL, 0, resolve, NULL, 0) && !elf_symbol(NULL, "x")) elf_unload(NULL);
#if !(defined(__x86_64__) && defined(__linux__))
  return 0; /* the loader is for x86-64 Linux; elsewhere every object goes to ORC */
#endif
  tilec_compile_options o = {.signature = "*fp32:16, *fp32:16, i32, 256", .emit = TILEC_EMIT_CPU};
  tilec_result *r = NULL;
  CHECK(tilec_compile("k.py", src, sizeof src - 1, &o, &r) == TILEC_OK);
  size_t len = 0;
  const unsigned char *obj = (const unsigned char *)tilec_result_output(r, &len);
  CHECK(obj && len > 64);
  if (!obj) return 0;

  /* the object itself: its symbols, its undefined names resolved */
  char why[160] = "";
  ElfImage *im = elf_load(obj, len, resolve, why, sizeof why);
  CHECK(im != NULL);
  CHECK_STR(why, "");
  CHECK(resolved > 0);
  CHECK(elf_symbol(im, "tilec_emu_entry") && elf_symbol(im, "tilec_emu_shared_bytes") && elf_symbol(im, "tilec_emu_sites") &&
        elf_symbol(im, "tilec_emu_fibers"));
  CHECK(elf_symbol(im, "no_such_symbol") == NULL);
  int64_t shared;
  memcpy(&shared, elf_symbol(im, "tilec_emu_shared_bytes"), sizeof shared);
  CHECK(shared > 0); /* the sum goes through shared memory across warps */
  elf_unload(im);

  /* what it refuses, it names */
  CHECK(!elf_load(obj, len, resolve_nothing, why, sizeof why));
  CHECK_CONTAINS(why, "is not defined");
  CHECK(!elf_load("\x7f" "ELF", 4, resolve, why, sizeof why));
  CHECK_STR(why, "not an ELF object");
  unsigned char *bad = malloc(len);
  memcpy(bad, obj, len);
  bad[18] = 0xb7; /* e_machine: AArch64 */
  CHECK(!elf_load(bad, len, resolve, why, sizeof why));
  CHECK_STR(why, "not a relocatable x86-64 object");

  /* every prefix, and every byte replaced by a few values: never a crash */
  for (size_t i = 0; i < len; i++) elf_unload(elf_load(obj, i, resolve, why, sizeof why));
  static const unsigned char values[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
  int loaded = 0, refused = 0;
  for (size_t i = 0; i < len; i++)
    for (size_t v = 0; v < sizeof values; v++) {
      memcpy(bad, obj, len);
      if (bad[i] == values[v]) continue;
      bad[i] = values[v];
      ElfImage *m = elf_load(bad, len, resolve, why, sizeof why);
      if (m) {
        loaded++;
      } else {
        refused++;
        CHECK(why[0] != 0);
      }
      elf_unload(m);
    }
  CHECK(loaded > 0 && refused > 0);
  /* and a few bytes at a time, anywhere, with any value */
  uint32_t rng = 12345;
  for (int round = 0; round < 20000; round++) {
    memcpy(bad, obj, len);
    for (int b = 0; b < 1 + round % 4; b++) {
      rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
      bad[rng % len] = (unsigned char)(rng >> 24);
    }
    elf_unload(elf_load(bad, len, resolve, why, sizeof why));
  }
  free(bad);
  tilec_result_destroy(r);
  return 0;
}
