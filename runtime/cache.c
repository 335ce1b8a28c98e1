/*
 * cache.c — SHA-256 and the kernel cache on disk (see cache.h for the
 * contract).
 *
 * SHA-256 is here rather than taken from a library because the runtime links
 * nothing it does not need; it follows FIPS 180-4 §6.2 directly and is
 * checked against the standard's test vectors.
 *
 * The cache's robustness comes from two rules. Writers never modify a file
 * that a reader could open: each put writes its own temporary file (named
 * with a leading dot and no ".tc", so a get never looks at it), fsyncs it so
 * that a crash cannot leave a renamed but empty file, and renames it over the
 * entry; rename is atomic within a directory, so an entry file, once it has
 * its name, never changes. Readers believe nothing they have not checked:
 * the magic, version and key, the stated length against the file's size and
 * CACHE_MAX_PAYLOAD (before reading or allocating for it: a sparse file of
 * 4 GiB matches its header's length, and would otherwise be read whole
 * before the checksum rejects it), the payload against its SHA-256. What fails a
 * check is removed — but only if the name still refers to the file that was
 * read, so a reader does not delete the good entry a writer has just put in
 * its place.
 */
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

/* ---- SHA-256 ----------------------------------------------------------------------- */

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static uint32_t load_be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* One 64-byte block into the state (FIPS 180-4 §6.2.2). */
static void sha_block(uint32_t s[8], const unsigned char *p) {
  uint32_t w[64];
  for (int t = 0; t < 16; t++) w[t] = load_be32(p + 4 * t);
  for (int t = 16; t < 64; t++) {
    uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
  for (int t = 0; t < 64; t++) {
    uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + sha_k[t] + w[t];
    uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  s[0] += a, s[1] += b, s[2] += c, s[3] += d, s[4] += e, s[5] += f, s[6] += g, s[7] += h;
}

/* The same, many blocks at a time, with the x86 SHA extensions (SHA-NI):
 * about six times as fast, which is most of a cache hit's time. The state
 * is kept as ABEF and CDGH, the order sha256rnds2 wants; each group of four
 * rounds adds K to four message words, runs two rounds with the low half
 * and two with the high, and extends the message schedule four words
 * ahead (msg1 three groups before msg2, as FIPS 180-4's W recurrence
 * needs). */
#ifdef HAVE_SHA_NI
__attribute__((target("sha,sse4.1,ssse3"))) static void sha_blocks_ni(uint32_t s[8], const unsigned char *p,
                                                                        size_t n) {
  const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&s[0]), 0xb1); /* CDAB */
  __m128i st1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&s[4]), 0x1b); /* EFGH */
  __m128i st0 = _mm_alignr_epi8(tmp, st1, 8);                                     /* ABEF */
  st1 = _mm_blend_epi16(st1, tmp, 0xf0);                                          /* CDGH */
  for (; n; n--, p += 64) {
    __m128i abef = st0, cdgh = st1, w[4];
    for (int i = 0; i < 4; i++) w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) {
      __m128i m = _mm_add_epi32(w[i & 3], _mm_loadu_si128((const __m128i *)&sha_k[4 * i]));
      st1 = _mm_sha256rnds2_epu32(st1, st0, m);
      if (i >= 3 && i <= 14) {
        __m128i next = _mm_add_epi32(w[(i + 1) & 3], _mm_alignr_epi8(w[i & 3], w[(i - 1) & 3], 4));
        w[(i + 1) & 3] = _mm_sha256msg2_epu32(next, w[i & 3]);
      }
      st0 = _mm_sha256rnds2_epu32(st0, st1, _mm_shuffle_epi32(m, 0x0e));
      if (i >= 1 && i <= 12) w[(i - 1) & 3] = _mm_sha256msg1_epu32(w[(i - 1) & 3], w[i & 3]);
    }
    st0 = _mm_add_epi32(st0, abef);
    st1 = _mm_add_epi32(st1, cdgh);
  }
  tmp = _mm_shuffle_epi32(st0, 0x1b);    /* FEBA */
  st1 = _mm_shuffle_epi32(st1, 0xb1);    /* DCHG */
  _mm_storeu_si128((__m128i *)&s[0], _mm_blend_epi16(tmp, st1, 0xf0));
  _mm_storeu_si128((__m128i *)&s[4], _mm_alignr_epi8(st1, tmp, 8));
}

/* -1: not asked yet; 0 or 1: whether the CPU has SHA, SSE4.1 and SSSE3.
 * cpuid can cost microseconds under a hypervisor, so it is asked once. */
static int sha_ni = -1;

static bool use_sha_ni(void) {
  int v = __atomic_load_n(&sha_ni, __ATOMIC_RELAXED);
  if (v < 0) {
    unsigned a, b, c, d;
    bool sse = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_1) && (c & bit_SSSE3);
    v = sse && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
    __atomic_store_n(&sha_ni, v, __ATOMIC_RELAXED);
  }
  return v > 0;
}
#endif

static void sha_blocks(uint32_t s[8], const unsigned char *p, size_t n) {
#ifdef HAVE_SHA_NI
  if (use_sha_ni()) {
    sha_blocks_ni(s, p, n);
    return;
  }
#endif
  for (; n; n--, p += 64) sha_block(s, p);
}

int cache_hash_accel(int enable) {
#ifdef HAVE_SHA_NI
  if (!enable) __atomic_store_n(&sha_ni, 0, __ATOMIC_RELAXED);
  else __atomic_store_n(&sha_ni, -1, __ATOMIC_RELAXED);
  return use_sha_ni();
#else
  (void)enable;
  return 0;
#endif
}


void cache_hash_init(CacheHash *h) {
  static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(h->state, iv, sizeof iv);
  h->nbytes = 0;
}

void cache_hash_update(CacheHash *h, const void *data, size_t len) {
  const unsigned char *p = data;
  size_t fill = (size_t)(h->nbytes % 64);
  h->nbytes += len;
  if (fill) {
    size_t take = len < 64 - fill ? len : 64 - fill;
    memcpy(h->block + fill, p, take);
    p += take, len -= take, fill += take;
    if (fill < 64) return;
    sha_blocks(h->state, h->block, 1);
  }
  sha_blocks(h->state, p, len / 64);
  p += len / 64 * 64;
  if (len % 64) memcpy(h->block, p, len % 64);
}

void cache_hash_str(CacheHash *h, const char *s) {
  uint64_t n = s ? strlen(s) : UINT64_MAX;
  unsigned char le[8];
  for (int i = 0; i < 8; i++) le[i] = (unsigned char)(n >> (8 * i));
  cache_hash_update(h, le, 8);
  if (s) cache_hash_update(h, s, (size_t)n);
}

/* The digest as 32 bytes (FIPS 180-4 §5.1.1 padding: 0x80, zeros, the
 * length in bits as a big-endian 64-bit number). */
static void hash_final_raw(CacheHash *h, unsigned char out[32]) {
  uint64_t bits = h->nbytes * 8;
  unsigned char pad[72] = {0x80};
  size_t fill = (size_t)(h->nbytes % 64);
  size_t npad = (fill < 56 ? 56 : 120) - fill;
  for (int i = 0; i < 8; i++) pad[npad + i] = (unsigned char)(bits >> (56 - 8 * i));
  cache_hash_update(h, pad, npad + 8);
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 4; j++) out[4 * i + j] = (unsigned char)(h->state[i] >> (24 - 8 * j));
}

static void to_hex(const unsigned char *b, size_t n, char *hex) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    hex[2 * i] = digits[b[i] >> 4];
    hex[2 * i + 1] = digits[b[i] & 15];
  }
  hex[2 * n] = 0;
}

void cache_hash_final(CacheHash *h, char hex[65]) {
  unsigned char d[32];
  hash_final_raw(h, d);
  to_hex(d, 32, hex);
}

/* ---- the entry format ---------------------------------------------------------------- */

/* Little-endian, no padding:
 *   0  magic "TILECC1\n"        8
 *   8  format version (u32)     4
 *  12  reserved, 0 (u32)        4
 *  16  payload length (u64)     8
 *  24  key, 64 hex digits      64
 *  88  SHA-256 of the payload  32
 * 120  the payload */
#define ENTRY_VERSION 1u
#define HEADER_SIZE 120
static const char entry_magic[8] = {'T', 'I', 'L', 'E', 'C', 'C', '1', '\n'};

static void put_le(unsigned char *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static int warnf(char *warn, size_t wlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int warnf(char *warn, size_t wlen, const char *fmt, ...) {
  if (warn && wlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(warn, wlen, fmt, ap);
    va_end(ap);
  }
  return 0;
}

static bool valid_key(const char *key) {
  if (!key) return false;
  for (int i = 0; i < 64; i++)
    if (!((key[i] >= '0' && key[i] <= '9') || (key[i] >= 'a' && key[i] <= 'f'))) return false;
  return key[64] == 0;
}

/* DIR/ab and DIR/ab/<key>.tc; false when they do not fit. */
static bool entry_paths(const char *dir, const char *key, char sub[PATH_MAX], char path[PATH_MAX]) {
  int n = snprintf(sub, PATH_MAX, "%s/%.2s", dir, key);
  int m = snprintf(path, PATH_MAX, "%s/%s.tc", sub, key);
  return n > 0 && n < PATH_MAX && m > 0 && m < PATH_MAX;
}

/* Reads exactly n bytes; false on an error or an early end of file. */
static bool read_all(int fd, void *buf, size_t n) {
  unsigned char *p = buf;
  while (n) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r, n -= (size_t)r;
  }
  return true;
}

static bool write_all(int fd, const void *buf, size_t n) {
  const unsigned char *p = buf;
  while (n) {
    ssize_t r = write(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;
    if (r == 0) {
      errno = ENOSPC;
      return false;
    }
    p += r, n -= (size_t)r;
  }
  return true;
}

/* ---- get --------------------------------------------------------------------------------- */

/* Why the open file fd (whose stat is st) is not a valid entry for key, or
 * NULL when it is; on success the payload is in *data, *len. Sets *oom
 * when the only trouble is memory. */
static const char *read_entry(int fd, const struct stat *st, const char *key, void **data, size_t *len,
                              bool *oom) {
  unsigned char hdr[HEADER_SIZE];
  if (!S_ISREG(st->st_mode)) return "not a regular file";
  if (st->st_size < HEADER_SIZE) return "truncated header";
  if (!read_all(fd, hdr, HEADER_SIZE)) return "cannot read the header";
  if (memcmp(hdr, entry_magic, 8)) return "not a cache entry";
  if (get_le(hdr + 8, 4) != ENTRY_VERSION) return "unknown format version";
  if (get_le(hdr + 12, 4) != 0) return "bad header";
  uint64_t n = get_le(hdr + 16, 8);
  if (n != (uint64_t)st->st_size - HEADER_SIZE) return "length does not match the file size";
  if (memcmp(hdr + 24, key, 64)) return "written for another key";
  if (n > CACHE_MAX_PAYLOAD) return "payload larger than the cache's limit";
  unsigned char *buf = malloc((size_t)n + 1);
  if (!buf) {
    *oom = true;
    return "out of memory";
  }
  if (!read_all(fd, buf, (size_t)n)) {
    free(buf);
    return "cannot read the payload";
  }
  CacheHash h;
  unsigned char sum[32];
  cache_hash_init(&h);
  cache_hash_update(&h, buf, (size_t)n);
  hash_final_raw(&h, sum);
  if (memcmp(sum, hdr + 88, 32)) {
    free(buf);
    return "checksum mismatch";
  }
  *data = buf;
  *len = (size_t)n;
  return NULL;
}

int cache_get(const char *dir, const char *key, void **data, size_t *len, char *warn, size_t wlen) {
  char sub[PATH_MAX], path[PATH_MAX];
  *data = NULL;
  *len = 0;
  if (warn && wlen) warn[0] = 0;
  if (!valid_key(key)) return warnf(warn, wlen, "cache: invalid key (want 64 lowercase hex digits)");
  if (!dir || !*dir) return warnf(warn, wlen, "cache: no cache directory");
  if (!entry_paths(dir, key, sub, path)) return warnf(warn, wlen, "cache: path too long under %s", dir);

  /* O_NONBLOCK so that a FIFO in the entry's place cannot hang the open. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return 0;
    return warnf(warn, wlen, "cache: cannot open %s: %s", path, strerror(errno));
  }
  struct stat st;
  bool oom = false;
  const char *why = fstat(fd, &st) ? "cannot stat" : read_entry(fd, &st, key, data, len, &oom);
  close(fd);
  if (!why) return 1;
  if (oom) return warnf(warn, wlen, "cache: %s reading %s", why, path);

  /* Remove the bad file unless a writer has already replaced it. */
  struct stat now;
  if (stat(path, &now) || now.st_dev != st.st_dev || now.st_ino != st.st_ino)
    return warnf(warn, wlen, "cache: corrupt entry %s (%s)", path, why);
  if (unlink(path) && errno != ENOENT)
    return warnf(warn, wlen, "cache: corrupt entry %s (%s); cannot remove it: %s", path, why, strerror(errno));
  return warnf(warn, wlen, "cache: removed corrupt entry %s (%s)", path, why);
}

/* ---- put --------------------------------------------------------------------------------- */

/* mkdir -p, each directory it creates mode 0700. On failure *bad names the
 * directory that could not be created and errno says why. */
static bool make_dirs(const char *path, char bad[PATH_MAX]) {
  char p[PATH_MAX];
  snprintf(p, sizeof p, "%s", path);
  size_t n = strlen(p);
  while (n > 1 && p[n - 1] == '/') p[--n] = 0;
  for (char *s = p + 1;; s++) {
    if (*s != '/' && *s != 0) continue;
    char c = *s;
    *s = 0;
    if (mkdir(p, 0700) && errno != EEXIST) {
      snprintf(bad, PATH_MAX, "%s", p);
      return false;
    }
    *s = c;
    if (!c) break;
  }
  struct stat st;
  if (stat(p, &st)) {
    snprintf(bad, PATH_MAX, "%s", p);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(bad, PATH_MAX, "%s", p);
    errno = ENOTDIR;
    return false;
  }
  return true;
}

int cache_put(const char *dir, const char *key, const void *data, size_t len, char *warn, size_t wlen) {
  char sub[PATH_MAX], path[PATH_MAX], tmp[PATH_MAX], bad[PATH_MAX];
  if (warn && wlen) warn[0] = 0;
  if (!valid_key(key)) return warnf(warn, wlen, "cache: invalid key (want 64 lowercase hex digits)");
  if (!dir || !*dir) return warnf(warn, wlen, "cache: no cache directory");
  if (!data && len) return warnf(warn, wlen, "cache: no data");
  if (len > CACHE_MAX_PAYLOAD)
    return warnf(warn, wlen, "cache: %zu bytes is more than an entry may hold (%zu)", len, (size_t)CACHE_MAX_PAYLOAD);
  int t = snprintf(tmp, sizeof tmp, "%s/%.2s/.%s.XXXXXX", dir, key, key);
  if (!entry_paths(dir, key, sub, path) || t <= 0 || t >= PATH_MAX)
    return warnf(warn, wlen, "cache: path too long under %s", dir);

  unsigned char hdr[HEADER_SIZE] = {0};
  memcpy(hdr, entry_magic, 8);
  put_le(hdr + 8, ENTRY_VERSION, 4);
  put_le(hdr + 16, len, 8);
  memcpy(hdr + 24, key, 64);
  CacheHash h;
  cache_hash_init(&h);
  cache_hash_update(&h, data, len);
  hash_final_raw(&h, hdr + 88);

  /* The directories usually exist: try first, create them when missing. */
  int fd = mkstemp(tmp);
  if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
    if (!make_dirs(sub, bad))
      return warnf(warn, wlen, "cache: cannot create directory %s: %s", bad, strerror(errno));
    snprintf(tmp, sizeof tmp, "%s/%.2s/.%s.XXXXXX", dir, key, key);
    fd = mkstemp(tmp);
  }
  if (fd < 0) return warnf(warn, wlen, "cache: cannot create a file in %s: %s", sub, strerror(errno));

  const char *what = "write";
  bool ok = write_all(fd, hdr, HEADER_SIZE) && write_all(fd, data, len);
  if (ok) what = "sync", ok = fsync(fd) == 0;
  int err = errno;
  if (close(fd) && ok) what = "close", ok = false, err = errno;
  if (ok) what = "rename", ok = rename(tmp, path) == 0, err = errno;
  if (!ok) {
    unlink(tmp);
    return warnf(warn, wlen, "cache: cannot %s %s: %s", what, path, strerror(err));
  }
  return 1;
}

/* ---- the directory ------------------------------------------------------------------------ */

const char *cache_default_dir(char *buf, size_t n) {
  const char *v = getenv("TILEC_CACHE_DIR");
  int r = -1;
  if (v && *v) r = snprintf(buf, n, "%s", v);
  else if ((v = getenv("XDG_CACHE_HOME")) && v[0] == '/') r = snprintf(buf, n, "%s/tilec", v);
  else if ((v = getenv("HOME")) && *v) r = snprintf(buf, n, "%s/.cache/tilec", v);
  return r >= 0 && (size_t)r < n ? buf : NULL;
}
