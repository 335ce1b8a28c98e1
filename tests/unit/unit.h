/* unit.h — a minimal test harness: CHECK records a failure and goes on. */
#ifndef TILEC_UNIT_H
#define TILEC_UNIT_H
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

extern int unit_failures;
#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) {                                                          \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      unit_failures++;                                                      \
    }                                                                       \
  } while (0)
#define CHECK_STR(a, b)                                                                 \
  do {                                                                                  \
    const char *a_ = (a), *b_ = (b);                                                    \
    if (!a_ || !b_ || strcmp(a_, b_)) {                                                 \
      fprintf(stderr, "%s:%d: expected \"%s\"\n  got \"%s\"\n", __FILE__, __LINE__,     \
              b_ ? b_ : "(null)", a_ ? a_ : "(null)");                                  \
      unit_failures++;                                                                  \
    }                                                                                   \
  } while (0)
#define CHECK_CONTAINS(hay, needle)                                                     \
  do {                                                                                  \
    const char *h_ = (hay), *n_ = (needle);                                             \
    if (!h_ || !strstr(h_, n_)) {                                                       \
      fprintf(stderr, "%s:%d: expected to find \"%s\" in:\n%s\n", __FILE__, __LINE__,   \
              n_, h_ ? h_ : "(null)");                                                  \
      unit_failures++;                                                                  \
    }                                                                                   \
  } while (0)

int unit_main(void); /* each test file defines it */

/* Standard error into a temporary file (begin), and back (end: what was
 * written meanwhile, in out). begin is false when it cannot redirect. */
typedef struct UnitCapture {
  FILE *t;
  int saved;
} UnitCapture;
bool unit_capture_begin(UnitCapture *c);
void unit_capture_end(UnitCapture *c, char *out, size_t n);
#endif
