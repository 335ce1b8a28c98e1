/*
 * cache.h — the kernel cache on disk: compiled kernels (PTX, cubin, LLVM IR
 * text and their metadata), stored under a key, found again by later runs.
 *
 * The caller computes the key: a SHA-256 (CacheHash below) of everything the
 * compiled output depends on — source, signature, options, target, the
 * compiler's build (jit/jit.h) — written as 64 lowercase hex digits. The cache stores opaque
 * bytes under that key; what they mean is the caller's business.
 *
 * An entry is the file DIR/<key[0..1]>/<key>.tc: a header (magic "TILECC1\n",
 * the format version, the payload length, the key, the payload's SHA-256)
 * followed by the payload. Guarantees:
 *   - cache_put writes a temporary file beside the entry, fsyncs it and
 *     renames it over the entry, so a reader, in this process or another,
 *     sees the old entry, the new one or none, never a part of one.
 *   - cache_get checks every field of the header against the file before it
 *     believes it (the stated length against the file's size and against
 *     CACHE_MAX_PAYLOAD, before it reads or allocates for the payload), and
 *     the payload against its checksum. A truncated,
 *     corrupted or foreign file is a miss: it is removed (best effort) and
 *     the warning says so, so the caller compiles again and puts the result.
 *   - A cache that cannot be written (read-only or full disk, no permission,
 *     a path through a regular file) makes cache_put return 0 with a
 *     warning; the caller goes on without caching.
 * Warnings are one line, without a trailing newline, in the caller's buffer
 * (warn, wlen; either may be NULL/0 to ignore them); it is set to "" when
 * there is nothing to say. Nothing here prints, exits or aborts.
 *
 * Thread safety: there is no shared state; any number of threads and
 * processes may call these functions on one cache directory at once.
 */
#ifndef TILEC_RUNTIME_CACHE_H
#define TILEC_RUNTIME_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* ---- SHA-256 (FIPS 180-4) ---------------------------------------------------- */

typedef struct CacheHash {
  uint32_t state[8];
  uint64_t nbytes;           /* bytes hashed so far */
  unsigned char block[64];   /* the partial block: nbytes % 64 bytes of it */
} CacheHash;

void cache_hash_init(CacheHash *h);
void cache_hash_update(CacheHash *h, const void *data, size_t len);
/* Hashes strlen(s) as 8 little-endian bytes, then the bytes of s, so that
 * consecutive fields cannot run into each other ("ab","c" differs from
 * "a","bc"). NULL hashes as the length 2^64-1 alone, unlike "". */
void cache_hash_str(CacheHash *h, const char *s);
/* Writes the digest as 64 lowercase hex digits and a NUL. h is spent. */
void cache_hash_final(CacheHash *h, char hex[65]);
/* Where the CPU has them (x86-64 with the SHA extensions), the hash uses
 * the SHA instructions. cache_hash_accel(0) turns that off for the whole
 * process, cache_hash_accel(1) back on where available; it returns whether
 * they are in use. For tests and benchmarks, which compare the two. */
int cache_hash_accel(int enable);

/* ---- the cache ------------------------------------------------------------------- */

/* The cache directory: $TILEC_CACHE_DIR if set and non-empty, else
 * $XDG_CACHE_HOME/tilec if that is an absolute path, else
 * $HOME/.cache/tilec. Returns buf, or NULL when none of these is set or the
 * path does not fit in n bytes. The only function here that reads the
 * environment. */
const char *cache_default_dir(char *buf, size_t n);

/* The largest payload an entry may hold: cache_put refuses more, and
 * cache_get rejects a header that claims more before reading or allocating
 * anything for it (a sparse file can claim gigabytes it does not hold). */
#define CACHE_MAX_PAYLOAD ((size_t)256 << 20)

/* 1 on a hit: *data is a malloc'd copy of the payload (at least one byte
 * allocated, even for an empty payload; the caller frees it) and *len its
 * length. 0 on a miss: *data is NULL and *len 0; warn is "" for a plain miss
 * (no such entry, no such directory), else says what was wrong. */
int cache_get(const char *dir, const char *key, void **data, size_t *len, char *warn, size_t wlen);

/* Stores data[0..len) under key, replacing any entry, creating dir (mode
 * 0700) and its subdirectories as needed. 1 on success; 0 when the entry
 * could not be written (or len is over CACHE_MAX_PAYLOAD), with the reason
 * in warn. */
int cache_put(const char *dir, const char *key, const void *data, size_t len, char *warn, size_t wlen);

#endif
