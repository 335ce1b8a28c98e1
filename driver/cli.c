/*
 * cli.c — what the tilec subcommands share (cli.h).
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *cli_read_source(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "tilec: error: cannot open '%s': %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    if (cap >= CLI_MAX_SOURCE_BYTES) {
      fprintf(stderr, "tilec: error: '%s' is larger than %u MiB\n", path, CLI_MAX_SOURCE_BYTES >> 20);
      free(buf);
      fclose(f);
      return NULL;
    }
    char *b = realloc(buf, (cap *= 2) + 1);
    if (!b) free(buf);
    buf = b;
  }
  bool bad = !buf || ferror(f);
  fclose(f);
  if (bad) {
    fprintf(stderr, "tilec: error: cannot read '%s'\n", path);
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  *len = n;
  return buf;
}

const char *cli_opt_value(int argc, char **argv, int *i, const char *shrt, const char *lng, bool *missing) {
  const char *a = argv[*i];
  size_t ll = strlen(lng);
  if (!strncmp(a, lng, ll) && a[ll] == '=') return a + ll + 1;
  if ((shrt && !strcmp(a, shrt)) || !strcmp(a, lng)) {
    if (*i + 1 >= argc) {
      *missing = true;
      return NULL;
    }
    return argv[++*i];
  }
  if (shrt && strlen(shrt) == 2 && shrt[1] != '-' && !strncmp(a, shrt, 2) && a[2]) return a + 2;
  return NULL;
}

bool cli_small_int(const char *s, int lo, int hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (!*s || *end || errno || v < lo || v > hi) return false;
  *out = (int)v;
  return true;
}

int cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tilec: error: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tilec: error: ");
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nusage: %s\n(see 'tilec %s --help')\n", usage, cmd);
  return 2;
}

bool cli_num_stages(const char *s, int *out) {
  if (!cli_small_int(s, 0, 1 << 30, out)) return false;
  if (*out == 0) *out = 1;
  return true;
}
