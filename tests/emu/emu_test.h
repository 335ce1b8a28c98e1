/* emu_test.h — what the emu suite's programs share: checks that count
 * their failures, random data that is never zero, reading a file. Each
 * program is one file, so the definitions are here, static. */
#ifndef TILEC_EMU_TEST_H
#define TILEC_EMU_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(c)                                                                                                       \
  do {                                                                                                                 \
    if (!(c)) {                                                                                                        \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                                            \
      failures++;                                                                                                      \
    }                                                                                                                  \
  } while (0)

#define CHECK_CONTAINS(s, sub)                                                                                         \
  do {                                                                                                                 \
    const char *s_ = (s);                                                                                              \
    if (!s_ || !strstr(s_, sub)) {                                                                                     \
      fprintf(stderr, "%s:%d: expected \"%s\" in:\n%s\n", __FILE__, __LINE__, sub, s_ ? s_ : "(null)");               \
      failures++;                                                                                                      \
    }                                                                                                                  \
  } while (0)

static uint32_t rng = 0x12345678u;

static inline uint32_t next_u32(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

/* Uniform in [lo, hi), never exactly zero. */
static inline float uniform(float lo, float hi) {
  float u = (next_u32() >> 8) * (1.0f / 16777216.0f);
  float v = lo + (hi - lo) * u;
  return v == 0.0f ? 0.5f * (hi - lo) / 16777216.0f : v;
}

/* A file's contents, NUL-terminated; NULL when it cannot be read. */
static inline char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!s) {
    fclose(f);
    return NULL;
  }
  if (fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
  fclose(f);
  s[n] = 0;
  *len = (size_t)n;
  return s;
}

#ifdef TILEC_RUNTIME_EMU_H
/* Compiles kernel `kernel` of DIR/FILE for the emulator, as for GPU target
 * `arch` (NULL: sm_80), and runs it on a grid of `grid` programs; 0 on
 * success, else the failure is counted and reported. (For the test
 * programs that include emu/emu.h and tilec.h.) */
static inline int emu_run_file_on(const char *arch, const char *dir, const char *file, const char *kernel, const char *sig,
                                  int warps, unsigned grid, void **args, int nargs, EmuBuffer *bufs, int nbufs) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  size_t len;
  char *src = slurp(path, &len);
  if (!src) {
    fprintf(stderr, "cannot read %s\n", path);
    failures++;
    return 1;
  }
  tilec_compile_options o = {.kernel = kernel, .signature = sig, .num_warps = warps, .emit = TILEC_EMIT_CPU, .arch = arch};
  tilec_result *r = NULL;
  int bad = 1;
  if (tilec_compile(file, src, len, &o, &r) == TILEC_OK) {
    size_t n;
    const char *ir = tilec_result_output(r, &n);
    char *err = NULL;
    EmuKernel *k = emu_load_object(ir, n, kernel, &err);
    if (k) {
      EmuLaunch l = {.grid = {grid, 1, 1}, .num_warps = warps, .args = args, .nargs = nargs, .buffers = bufs, .nbuffers = nbufs};
      char *report = NULL;
      bad = !emu_launch(k, &l, &report, NULL);
      if (bad) fprintf(stderr, "%s: %s", kernel, report ? report : "");
      free(report);
      emu_unload(k);
    } else {
      fprintf(stderr, "%s: %s\n", kernel, err);
      free(err);
    }
  } else {
    fprintf(stderr, "%s", tilec_result_diagnostics(r));
  }
  tilec_result_destroy(r);
  free(src);
  if (bad) failures++;
  return bad;
}

static inline int emu_run_file(const char *dir, const char *file, const char *kernel, const char *sig, int warps,
                               unsigned grid, void **args, int nargs, EmuBuffer *bufs, int nbufs) {
  return emu_run_file_on(NULL, dir, file, kernel, sig, warps, grid, args, nargs, bufs, nbufs);
}
#endif

#endif
