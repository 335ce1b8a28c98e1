/*
 * cli.c — what the tilec subcommands share (cli.h).
 */
#include "cli.h"

#include "tilec/tilec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    if (n > TILEC_MAX_SOURCE_BYTES) {
      fprintf(stderr, "tilec: error: '%s' is larger than %zu MiB\n", path, TILEC_MAX_SOURCE_BYTES >> 20);
      free(buf);
      fclose(f);
      return NULL;
    }
    /* read no more than one byte past the most a source may have */
    cap = 2 * cap > TILEC_MAX_SOURCE_BYTES ? TILEC_MAX_SOURCE_BYTES + 1 : 2 * cap;
    char *b = realloc(buf, cap + 1);
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

char *cli_temp_beside(const char *path) {
  size_t n = strlen(path) + sizeof ".tmp-XXXXXX";
  char *tmp = malloc(n);
  if (!tmp) return NULL;
  snprintf(tmp, n, "%s.tmp-XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    free(tmp);
    return NULL;
  }
  /* the mode a plain fopen would give, not mkstemp's 0600 */
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  close(fd);
  return tmp;
}

bool cli_file_open(CliFile *cf, const char *path) {
  *cf = (CliFile){.path = path};
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    cf->f = fopen(path, "wb");
  } else {
    /* through a symbolic link, the file it names is replaced, not the link */
    char *real = realpath(path, NULL);
    cf->target = real ? real : strdup(path);
    cf->tmp = cf->target ? cli_temp_beside(cf->target) : NULL;
    cf->f = cf->tmp ? fopen(cf->tmp, "wb") : NULL;
    if (!cf->f && cf->tmp) remove(cf->tmp);
  }
  if (!cf->f) {
    fprintf(stderr, "tilec: error: cannot write '%s': %s\n", path, strerror(errno));
    free(cf->target);
    free(cf->tmp);
    return false;
  }
  return true;
}

int cli_file_close(CliFile *cf, bool keep) {
  int err = ferror(cf->f) ? (errno ? errno : EIO) : 0;
  if (fclose(cf->f) != 0 && !err) err = errno ? errno : EIO;
  if (!err && keep && cf->tmp && rename(cf->tmp, cf->target) != 0) err = errno;
  if (cf->tmp && (err || !keep)) remove(cf->tmp);
  if (err) fprintf(stderr, "tilec: error: writing '%s' failed: %s\n", cf->path, strerror(err));
  free(cf->target);
  free(cf->tmp);
  *cf = (CliFile){0};
  return err ? 1 : 0;
}

int cli_write_file(const char *path, const void *data, size_t n) {
  CliFile cf;
  if (!cli_file_open(&cf, path)) return 1;
  if (n) fwrite(data, 1, n, cf.f);
  return cli_file_close(&cf, true);
}

int cli_stdout_check(void) {
  static bool said; /* once: a command's own check and main's see the same failure */
  errno = 0;
  bool ok = fflush(stdout) == 0 && !ferror(stdout);
  if (ok) return 0;
  if (!said)
    fprintf(stderr, "tilec: error: writing standard output failed%s%s\n", errno ? ": " : "", errno ? strerror(errno) : "");
  said = true;
  return 1;
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
