/*
 * cli.h — what the tilec subcommands (compile, opt, run, aot) share: reading
 * a source file, option values, small integers.
 */
#ifndef TILEC_DRIVER_CLI_H
#define TILEC_DRIVER_CLI_H

#include <stdbool.h>
#include <stddef.h>

#define CLI_MAX_SOURCE_BYTES (64u << 20)

/* The whole file, NUL-terminated, malloc'd; NULL after printing
 * "tilec: error: ..." (cannot open, larger than 64 MiB, cannot read). */
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

/* "tilec: error: MESSAGE" on stderr; returns 1, the exit code. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A usage error of subcommand cmd: the message, the usage line, and a
 * pointer to `tilec CMD --help`; returns 2, the exit code. */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
