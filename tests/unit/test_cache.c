/* test_cache.c — the kernel cache: SHA-256 against FIPS 180-4's vectors,
 * round trips, every truncation and flipped byte of an entry, caches that
 * cannot be written, processes putting and getting at once, and where the
 * cache lives. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cache.h"
#include "unit.h"

static char root[256];   /* a fresh directory for this run */

static const char *tmp_path(const char *name) {
  static char p[512];
  snprintf(p, sizeof p, "%s/%s", root, name);
  return p;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  return remove(p);
}

static void rm_tree(const char *p) { nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

static void key_of(const char *s, char key[65]) {
  CacheHash h;
  cache_hash_init(&h);
  cache_hash_str(&h, s);
  cache_hash_final(&h, key);
}

/* len bytes that depend on seed and position, so that a swapped or shifted
 * block shows. */
static unsigned char *pattern(size_t len, uint32_t seed) {
  unsigned char *p = malloc(len + 1);
  uint64_t x = 0x9e3779b97f4a7c15u * (seed + 1);
  for (size_t i = 0; i < len; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    p[i] = (unsigned char)(x >> 32);
  }
  return p;
}

static bool exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

/* Temporary files left in a cache subdirectory (their names start with a
 * dot), -1 when it cannot be read. */
static int count_temps(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

static void entry_path(const char *dir, const char *key, char *p, size_t n) {
  snprintf(p, n, "%s/%.2s/%s.tc", dir, key, key);
}

static unsigned char *read_file(const char *p, size_t *len) {
  FILE *f = fopen(p, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  rewind(f);
  unsigned char *b = malloc(*len + 1);
  if (fread(b, 1, *len, f) != *len) *len = 0;
  fclose(f);
  return b;
}

static void write_file(const char *p, const void *b, size_t len) {
  FILE *f = fopen(p, "wb");
  if (!f) return;
  fwrite(b, 1, len, f);
  fclose(f);
}

/* ---- SHA-256 ---------------------------------------------------------------------- */

static void sha(const void *data, size_t len, char hex[65]) {
  CacheHash h;
  cache_hash_init(&h);
  cache_hash_update(&h, data, len);
  cache_hash_final(&h, hex);
}

static void test_sha256_vectors(void) {
  char hex[65];
  sha("", 0, hex);
  CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  sha("abc", 3, hex);
  CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  sha(m448, strlen(m448), hex);
  CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                     "klmnopqrlmnopqrsmnopqrstnopqrstu";
  sha(m896, strlen(m896), hex);
  CHECK_STR(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

  /* One million 'a', fed in pieces of every size from 1 to 97 bytes so that
   * the partial-block path meets every offset. */
  char a[100];
  memset(a, 'a', sizeof a);
  CacheHash h;
  cache_hash_init(&h);
  size_t left = 1000000;
  for (size_t step = 1; left; step = step % 97 + 1) {
    size_t n = step < left ? step : left;
    cache_hash_update(&h, a, n);
    left -= n;
  }
  cache_hash_final(&h, hex);
  CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

  /* cache_hash_str is the length (8 bytes, little-endian), then the bytes. */
  cache_hash_init(&h);
  cache_hash_str(&h, "abc");
  cache_hash_final(&h, hex);
  char want[65];
  sha("\3\0\0\0\0\0\0\0abc", 11, want);
  CHECK_STR(hex, want);
  char k1[65], k2[65];
  cache_hash_init(&h);
  cache_hash_str(&h, "ab");
  cache_hash_str(&h, "c");
  cache_hash_final(&h, k1);
  cache_hash_init(&h);
  cache_hash_str(&h, "a");
  cache_hash_str(&h, "bc");
  cache_hash_final(&h, k2);
  CHECK(strcmp(k1, k2) != 0);
  key_of(NULL, k1);
  key_of("", k2);
  CHECK(strcmp(k1, k2) != 0);
}

/* The vectors with the SHA instructions and without, then random messages
 * of every length up to a few blocks, hashed both ways in pieces. */
static void test_sha256(void) {
  int accel = cache_hash_accel(1);
  test_sha256_vectors();
  CHECK(cache_hash_accel(0) == 0);
  test_sha256_vectors();
  if (!accel) {
    printf("SHA instructions: not available here; the portable code only\n");
    return;
  }
  unsigned char *m = pattern(1000, 11);
  for (size_t len = 0; len <= 1000; len += len < 300 ? 1 : 37) {
    char with[65], without[65];
    for (int a = 1; a >= 0; a--) {
      cache_hash_accel(a);
      CacheHash h;
      cache_hash_init(&h);
      for (size_t off = 0, step = 1 + len % 5; off < len; off += step, step = step * 3 % 131 + 1)
        cache_hash_update(&h, m + off, step < len - off ? step : len - off);
      cache_hash_final(&h, a ? with : without);
    }
    CHECK_STR(with, without);
  }
  free(m);
  CHECK(cache_hash_accel(1) == 1);
}

/* ---- round trips ------------------------------------------------------------------ */

static void round_trip(const char *dir, const char *name, size_t len, uint32_t seed) {
  char key[65], warn[512];
  key_of(name, key);
  unsigned char *want = pattern(len, seed);
  CHECK(cache_put(dir, key, want, len, warn, sizeof warn) == 1);
  CHECK_STR(warn, "");
  void *got = NULL;
  size_t n = 12345;
  CHECK(cache_get(dir, key, &got, &n, warn, sizeof warn) == 1);
  CHECK_STR(warn, "");
  CHECK(got != NULL && n == len && (len == 0 || !memcmp(got, want, len)));
  char p[600];
  entry_path(dir, key, p, sizeof p);
  struct stat st;
  CHECK(stat(p, &st) == 0 && (size_t)st.st_size == 120 + len);
  free(got);
  free(want);
}

static void test_round_trips(void) {
  const char *dir = tmp_path("rt/nested/cache");  /* none of it exists yet */
  round_trip(dir, "empty", 0, 1);
  round_trip(dir, "small", 37, 2);
  round_trip(dir, "large", 5u << 20, 3);
  struct stat st;
  CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);

  /* A put replaces the entry; no temporary file is left beside it. */
  round_trip(dir, "small", 1000, 4);
  char key[65], sub[600];
  key_of("small", key);
  snprintf(sub, sizeof sub, "%s/%.2s", dir, key);
  CHECK(count_temps(sub) == 0);

  /* A miss, in an existing cache and in one that does not exist. */
  char warn[512] = "x";
  void *got = (void *)1;
  size_t n = 7;
  key_of("never put", key);
  CHECK(cache_get(dir, key, &got, &n, warn, sizeof warn) == 0);
  CHECK(got == NULL && n == 0);
  CHECK_STR(warn, "");
  CHECK(cache_get(tmp_path("nowhere"), key, &got, &n, warn, sizeof warn) == 0);
  CHECK_STR(warn, "");
  CHECK(!exists(tmp_path("nowhere")));

  /* Keys are exactly 64 lowercase hex digits; nothing else touches the disk. */
  const char *bad[] = {"", "abc", "../../../../../../../../../../../../../../../../../../../../etc/x",
                       "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
                       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b8555",
                       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85", NULL};
  const char *bdir = tmp_path("badkeys");
  for (int i = 0; i < (int)(sizeof bad / sizeof *bad); i++) {
    CHECK(cache_put(bdir, bad[i], "x", 1, warn, sizeof warn) == 0);
    CHECK_STR(warn, "cache: invalid key (want 64 lowercase hex digits)");
    CHECK(cache_get(bdir, bad[i], &got, &n, warn, sizeof warn) == 0);
    CHECK_STR(warn, "cache: invalid key (want 64 lowercase hex digits)");
  }
  CHECK(!exists(bdir));
}

/* ---- damaged entries --------------------------------------------------------------- */

/* Writes bytes as the entry for key and expects a miss that names the
 * reason and removes the file. */
static void expect_bad(const char *dir, const char *key, const void *bytes, size_t len, const char *why) {
  char p[600], warn[1024], want[1200];
  entry_path(dir, key, p, sizeof p);
  write_file(p, bytes, len);
  void *got = (void *)1;
  size_t n = 7;
  CHECK(cache_get(dir, key, &got, &n, warn, sizeof warn) == 0);
  CHECK(got == NULL && n == 0);
  snprintf(want, sizeof want, "cache: removed corrupt entry %s (%s)", p, why);
  CHECK_STR(warn, want);
  CHECK(!exists(p));
}

static void test_damaged(void) {
  const char *dir = tmp_path("damaged");
  char key[65], other[65], warn[512], p[600];
  key_of("damaged", key);
  key_of("another", other);
  unsigned char *payload = pattern(300, 5);
  CHECK(cache_put(dir, key, payload, 300, warn, sizeof warn) == 1);
  entry_path(dir, key, p, sizeof p);
  size_t len = 0;
  unsigned char *good = read_file(p, &len);
  CHECK(good && len == 420);
  if (!good || len != 420) return;
  CHECK(!memcmp(good, "TILECC1\n", 8));

  /* Every truncation, from nothing to one byte short. */
  for (size_t n = 0; n < len; n++)
    expect_bad(dir, key, good, n, n < 120 ? "truncated header" : "length does not match the file size");
  /* One byte too many. */
  unsigned char *longer = malloc(len + 1);
  memcpy(longer, good, len);
  longer[len] = 0;
  expect_bad(dir, key, longer, len + 1, "length does not match the file size");

  /* Every byte flipped, in the header and in the payload. */
  unsigned char *bad = malloc(len);
  for (size_t i = 0; i < len; i++) {
    memcpy(bad, good, len);
    bad[i] ^= 0x20;
    const char *why = i < 8     ? "not a cache entry"
                      : i < 12  ? "unknown format version"
                      : i < 16  ? "bad header"
                      : i < 24  ? "length does not match the file size"
                      : i < 88  ? "written for another key"
                                : "checksum mismatch";
    expect_bad(dir, key, bad, len, why);
  }

  /* A valid entry under another key's name, and files that are no entry. */
  char po[600];
  entry_path(dir, other, po, sizeof po);
  CHECK(cache_put(dir, other, payload, 300, warn, sizeof warn) == 1);
  size_t olen;
  unsigned char *obytes = read_file(po, &olen);
  expect_bad(dir, key, obytes, olen, "written for another key");
  expect_bad(dir, key, "#!/bin/sh\necho hello\n", 21, "truncated header");
  memset(bad, 'x', len);
  expect_bad(dir, key, bad, len, "not a cache entry");

  /* After all that, the entry can be put again and read back. */
  CHECK(cache_put(dir, key, payload, 300, warn, sizeof warn) == 1);
  void *got = NULL;
  size_t n = 0;
  CHECK(cache_get(dir, key, &got, &n, warn, sizeof warn) == 1);
  CHECK(n == 300 && got && !memcmp(got, payload, 300));
  free(got);

  /* A FIFO where the entry should be: a miss that does not wait for a
   * writer, and the FIFO is removed. */
  CHECK(remove(p) == 0 && mkfifo(p, 0600) == 0);
  CHECK(cache_get(dir, key, &got, &n, warn, sizeof warn) == 0);
  char want[1200];
  snprintf(want, sizeof want, "cache: removed corrupt entry %s (not a regular file)", p);
  CHECK_STR(warn, want);
  CHECK(!exists(p));

  /* A directory where the entry should be: a miss with a warning, and a put
   * that fails cleanly. */
  CHECK(mkdir(p, 0700) == 0);
  CHECK(cache_get(dir, key, &got, &n, warn, sizeof warn) == 0);
  CHECK_CONTAINS(warn, "(not a regular file)");
  CHECK(cache_put(dir, key, payload, 300, warn, sizeof warn) == 0);
  CHECK_CONTAINS(warn, "cache: cannot rename ");
  char sub[600];
  snprintf(sub, sizeof sub, "%s/%.2s", dir, key);
  CHECK(count_temps(sub) == 0);
  free(obytes), free(bad), free(longer), free(good), free(payload);
}

/* ---- headers that claim more than an entry may hold ------------------------------------ */

/* Makes the entry for key a copy of header (an entry's first 120 bytes)
 * that claims `claim` payload bytes, in a file of 120 + claim bytes whose
 * payload is a hole: the file's size agrees with the header, yet there is
 * nothing in it to read. */
static bool sparse_entry(const char *dir, const char *key, const unsigned char *header, uint64_t claim) {
  char p[600];
  unsigned char hdr[120];
  entry_path(dir, key, p, sizeof p);
  memcpy(hdr, header, sizeof hdr);
  for (int i = 0; i < 8; i++) hdr[16 + i] = (unsigned char)(claim >> (8 * i));
  int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  bool ok = fd >= 0 && write(fd, hdr, sizeof hdr) == (ssize_t)sizeof hdr && ftruncate(fd, (off_t)(sizeof hdr + claim)) == 0;
  if (fd >= 0) close(fd);
  return ok;
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static long max_rss_kb(void) {
  struct rusage u;
  return getrusage(RUSAGE_SELF, &u) ? 0 : u.ru_maxrss;
}

/* A header whose length matches its (sparse) file but is over the limit is
 * rejected from the header alone: no allocation, no read, a miss that
 * removes the file, and the entry can be put again. Believing it cost 30 s
 * and 4.3 GB for 4 GiB. */
static void test_huge_claims(void) {
  const char *dir = tmp_path("huge");
  char key[65], warn[1024], want[1200], p[600];
  key_of("huge", key);
  unsigned char *payload = pattern(100, 9);
  CHECK(cache_put(dir, key, payload, 100, warn, sizeof warn) == 1);
  entry_path(dir, key, p, sizeof p);
  size_t len = 0;
  unsigned char *good = read_file(p, &len);
  CHECK(good && len == 220);
  if (!good || len != 220) return;
  const uint64_t claims[] = {CACHE_MAX_PAYLOAD + 1, (uint64_t)4 << 30};
  for (int i = 0; i < 2; i++) {
    CHECK(sparse_entry(dir, key, good, claims[i]));
    long rss = max_rss_kb();
    double t0 = seconds();
    void *got = (void *)1;
    size_t n = 7;
    CHECK(cache_get(dir, key, &got, &n, warn, sizeof warn) == 0);
    double took = seconds() - t0;
    CHECK(got == NULL && n == 0);
    snprintf(want, sizeof want, "cache: removed corrupt entry %s (payload larger than the cache's limit)", p);
    CHECK_STR(warn, want);
    CHECK(!exists(p));
    if (took > 1.0 || max_rss_kb() - rss > 64 * 1024)
      fprintf(stderr, "claim of %llu bytes: %.2f s, max RSS +%ld KB\n", (unsigned long long)claims[i], took,
              max_rss_kb() - rss);
    CHECK(took < 1.0);
    CHECK(max_rss_kb() - rss < 64 * 1024);
    /* the caller compiles again and puts the entry back */
    CHECK(cache_put(dir, key, payload, 100, warn, sizeof warn) == 1);
    CHECK(cache_get(dir, key, &got, &n, warn, sizeof warn) == 1);
    CHECK(n == 100 && got && !memcmp(got, payload, 100));
    free(got);
  }
  /* nor is such an entry written: the put fails before it reads the data */
  char big[65];
  key_of("too big", big);
  CHECK(cache_put(dir, big, payload, CACHE_MAX_PAYLOAD + 1, warn, sizeof warn) == 0);
  snprintf(want, sizeof want, "cache: %zu bytes is more than an entry may hold (%zu)", (size_t)CACHE_MAX_PAYLOAD + 1,
           (size_t)CACHE_MAX_PAYLOAD);
  CHECK_STR(warn, want);
  entry_path(dir, big, p, sizeof p);
  CHECK(!exists(p));
  free(good), free(payload);
}

/* ---- caches that cannot be written --------------------------------------------------- */

static void test_unwritable(void) {
  char key[65], warn[512];
  key_of("unwritable", key);
  /* The cache directory's parent is a regular file. */
  const char *file = tmp_path("plainfile");
  write_file(file, "x", 1);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/cache", file);
  CHECK(cache_put(dir, key, "abc", 3, warn, sizeof warn) == 0);
  char want[1200];
  snprintf(want, sizeof want, "cache: cannot create directory %s: Not a directory", dir);
  CHECK_STR(warn, want);
  CHECK(strchr(warn, '\n') == NULL);
  void *got;
  size_t n;
  CHECK(cache_get(dir, key, &got, &n, warn, sizeof warn) == 0);
  CHECK_STR(warn, "");
  /* The cache directory is itself a regular file. */
  CHECK(cache_put(file, key, "abc", 3, warn, sizeof warn) == 0);
  snprintf(want, sizeof want, "cache: cannot create directory %s/%.2s: Not a directory", file, key);
  CHECK_STR(warn, want);
  /* No cache directory at all. */
  CHECK(cache_put("", key, "abc", 3, warn, sizeof warn) == 0);
  CHECK_STR(warn, "cache: no cache directory");

  /* A disk that fills up mid-write (a file size limit stands in for ENOSPC,
   * which root cannot be denied): the put fails, the old entry survives and
   * no temporary file is left behind. In a child, for the limit's sake. */
  const char *cdir = tmp_path("full");
  unsigned char *big = pattern(1u << 20, 6);
  CHECK(cache_put(cdir, key, "old", 3, warn, sizeof warn) == 1);
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {100000, 100000};
    setrlimit(RLIMIT_FSIZE, &rl);
    int r = cache_put(cdir, key, big, 1u << 20, warn, sizeof warn);
    _exit(r == 0 && strstr(warn, "cache: cannot write ") && strstr(warn, "File too large") ? 0 : 1);
  }
  int status = -1;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(cache_get(cdir, key, &got, &n, warn, sizeof warn) == 1);
  CHECK(n == 3 && !memcmp(got, "old", 3));
  free(got);
  char sub[600];
  snprintf(sub, sizeof sub, "%s/%.2s", cdir, key);
  CHECK(count_temps(sub) == 0);
  free(big);
}

/* ---- processes at once -------------------------------------------------------------------- */

enum { NPROC = 8 };

/* Forks NPROC children running fn(i) and returns how many exited 0. */
static int run_children(int (*fn)(const char *dir, int i), const char *dir) {
  pid_t pids[NPROC];
  for (int i = 0; i < NPROC; i++) {
    pids[i] = fork();
    if (pids[i] == 0) _exit(fn(dir, i));
  }
  int ok = 0;
  for (int i = 0; i < NPROC; i++) {
    int status = -1;
    if (pids[i] > 0 && waitpid(pids[i], &status, 0) == pids[i] && WIFEXITED(status) && WEXITSTATUS(status) == 0)
      ok++;
  }
  return ok;
}

enum { SHARED_LEN = 3u << 20 };

static int put_same(const char *dir, int i) {
  (void)i;
  char key[65], warn[512];
  key_of("shared", key);
  unsigned char *p = pattern(SHARED_LEN, 7);
  if (!cache_put(dir, key, p, SHARED_LEN, warn, sizeof warn)) return 1;
  void *got;
  size_t n;
  if (!cache_get(dir, key, &got, &n, warn, sizeof warn)) return 2;
  return n == SHARED_LEN && !memcmp(got, p, n) ? 0 : 3;
}

static int put_own(const char *dir, int i) {
  char key[65], name[32], warn[512];
  snprintf(name, sizeof name, "own %d", i);
  key_of(name, key);
  size_t len = 100000 + 1000 * (size_t)i;
  unsigned char *p = pattern(len, 100 + (uint32_t)i);
  if (!cache_put(dir, key, p, len, warn, sizeof warn)) return 1;
  void *got;
  size_t n;
  if (!cache_get(dir, key, &got, &n, warn, sizeof warn)) return 2;
  return n == len && !memcmp(got, p, n) ? 0 : 3;
}

static void test_processes(void) {
  const char *dir = tmp_path("same");
  CHECK(run_children(put_same, dir) == NPROC);
  char key[65], warn[512], sub[600];
  key_of("shared", key);
  void *got = NULL;
  size_t n = 0;
  unsigned char *want = pattern(SHARED_LEN, 7);
  CHECK(cache_get(dir, key, &got, &n, warn, sizeof warn) == 1);
  CHECK(n == SHARED_LEN && got && !memcmp(got, want, n));
  snprintf(sub, sizeof sub, "%s/%.2s", dir, key);
  CHECK(count_temps(sub) == 0);
  free(got), free(want);

  dir = tmp_path("own");
  CHECK(run_children(put_own, dir) == NPROC);
  for (int i = 0; i < NPROC; i++) {
    char name[32];
    snprintf(name, sizeof name, "own %d", i);
    key_of(name, key);
    size_t len = 100000 + 1000 * (size_t)i;
    want = pattern(len, 100 + (uint32_t)i);
    CHECK(cache_get(dir, key, &got, &n, warn, sizeof warn) == 1);
    CHECK(n == len && got && !memcmp(got, want, n));
    free(got), free(want);
  }
}

/* Readers while a writer replaces one entry, over and over, with one of two
 * payloads of different lengths: every hit must be one of them, whole. */
enum { RW_A = 200000, RW_B = 150001 };
static volatile sig_atomic_t stop_writer;
static void on_term(int sig) { (void)sig, stop_writer = 1; }

static int reader(const char *dir, int i) {
  (void)i;
  char key[65], warn[512];
  key_of("contended", key);
  unsigned char *a = pattern(RW_A, 8), *b = pattern(RW_B, 9);
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int hits = 0;
  do {
    void *got;
    size_t n;
    if (cache_get(dir, key, &got, &n, warn, sizeof warn)) {
      bool whole = (n == RW_A && !memcmp(got, a, n)) || (n == RW_B && !memcmp(got, b, n));
      free(got);
      if (!whole) return 1;
      hits++;
    } else if (warn[0]) {
      return 2;   /* a reader saw something it took for corrupt */
    }
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 1500);
  return hits > 0 ? 0 : 3;
}

static void test_readers_and_writer(void) {
  const char *dir = tmp_path("contended");
  char key[65], warn[512];
  key_of("contended", key);
  unsigned char *a = pattern(RW_A, 8), *b = pattern(RW_B, 9);
  CHECK(cache_put(dir, key, a, RW_A, warn, sizeof warn) == 1);
  pid_t writer = fork();
  if (writer == 0) {
    signal(SIGTERM, on_term);
    int fails = 0;
    for (unsigned i = 0; !stop_writer; i++)
      fails += !(i & 1 ? cache_put(dir, key, a, RW_A, warn, sizeof warn)
                       : cache_put(dir, key, b, RW_B, warn, sizeof warn));
    _exit(fails ? 1 : 0);
  }
  CHECK(run_children(reader, dir) == NPROC);
  kill(writer, SIGTERM);
  int status = -1;
  waitpid(writer, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  free(a), free(b);
}

/* ---- where the cache lives ----------------------------------------------------------------- */

static void test_default_dir(void) {
  char buf[256];
  setenv("TILEC_CACHE_DIR", "/tc", 1);
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  setenv("HOME", "/home/u", 1);
  CHECK_STR(cache_default_dir(buf, sizeof buf), "/tc");
  setenv("TILEC_CACHE_DIR", "", 1);
  CHECK_STR(cache_default_dir(buf, sizeof buf), "/xdg/tilec");
  unsetenv("TILEC_CACHE_DIR");
  CHECK_STR(cache_default_dir(buf, sizeof buf), "/xdg/tilec");
  setenv("XDG_CACHE_HOME", "relative", 1);   /* the XDG spec says to ignore it */
  CHECK_STR(cache_default_dir(buf, sizeof buf), "/home/u/.cache/tilec");
  unsetenv("XDG_CACHE_HOME");
  CHECK_STR(cache_default_dir(buf, sizeof buf), "/home/u/.cache/tilec");
  CHECK(cache_default_dir(buf, 10) == NULL);   /* does not fit */
  unsetenv("HOME");
  CHECK(cache_default_dir(buf, sizeof buf) == NULL);
  setenv("HOME", "", 1);
  CHECK(cache_default_dir(buf, sizeof buf) == NULL);
  setenv("TILEC_CACHE_DIR", "rel/cache", 1);
  CHECK_STR(cache_default_dir(buf, sizeof buf), "rel/cache");
}

int unit_main(void) {
  const char *t = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/tilec-cache-XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(root)) {
    fprintf(stderr, "cannot create a temporary directory under %s\n", t && *t ? t : "/tmp");
    return 1;
  }
  test_sha256();
  test_round_trips();
  test_damaged();
  test_huge_claims();
  test_unwritable();
  test_processes();
  test_readers_and_writer();
  test_default_dir();
  rm_tree(root);
  return 0;
}
