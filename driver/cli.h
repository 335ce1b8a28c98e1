/*
 * cli.h — what the tilec subcommands (compile, opt, run, aot) share: reading
 * a source file, writing output files, option values, small integers.
 */
#ifndef TILEC_DRIVER_CLI_H
#define TILEC_DRIVER_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The whole file, NUL-terminated, malloc'd; NULL after printing
 * "tilec: error: ..." (cannot open, larger than TILEC_MAX_SOURCE_BYTES,
 * cannot read). */
char *cli_read_source(const char *path, size_t *len);

/* Matches "-x VALUE", "-xVALUE" (for two-letter short options), "--long
 * VALUE" and "--long=VALUE" at argv[*i], moving *i past a separate value.
 * NULL when argv[*i] is not this option, or when its value is missing
 * (then *missing is set). */
const char *cli_opt_value(int argc, char **argv, int *i, const char *shrt, const char *lng, bool *missing);

/* A decimal integer in [lo, hi], the whole string. */
bool cli_small_int(const char *s, int lo, int hi, int *out);
/* --num-stages: 0 or more; 0 asks, as in Triton, for no pipelining, which
 * 1 says too (0 in tilec's options means "the config's, else 3"). */
bool cli_num_stages(const char *s, int *out);

/* An output file written whole or not at all: the bytes go to a temporary
 * file beside path, renamed over it once every byte is written and the
 * file closed; on a failure the temporary is removed and path is left as
 * it was (a disk that fills up leaves no empty or cut file). A path that
 * is not a regular file (/dev/stdout, a pipe) is written in place. */
typedef struct CliFile {
  FILE *f;
  const char *path; /* the caller's, for messages */
  char *target;     /* what the temporary becomes: path, or the file a link at path names */
  char *tmp;        /* NULL when written in place */
} CliFile;
/* Opens it; false after printing "tilec: error: cannot write ...". */
bool cli_file_open(CliFile *cf, const char *path);
/* Closes it, and renames it over path when keep (else removes it): 0, or
 * 1 after printing why a write failed. */
int cli_file_close(CliFile *cf, bool keep);
/* The whole of data into path, as above: 0, or 1 after printing why. */
int cli_write_file(const char *path, const void *data, size_t n);
/* A temporary file created beside path, for a writer that takes a name
 * (PLplot): malloc'd; NULL with errno set. The caller renames it over path
 * or removes it. */
char *cli_temp_beside(const char *path);

/* Whether all that was written to standard output reached it (a full
 * disk, a closed pipe): 0, or 1 after printing "tilec: error: writing
 * standard output failed: ...". Every command ends with it. */
int cli_stdout_check(void);

/* "tilec: error: MESSAGE" on stderr; returns 1, the exit code. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A usage error of subcommand cmd: the message, the usage line, and a
 * pointer to `tilec CMD --help`; returns 2, the exit code. */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
