/*
 * expect.h — the check the tests of generated launchers share: a failed
 * condition is reported with its line and counted in `failures`, which the
 * including file defines, and the test goes on.
 */
#ifndef TILEC_TESTS_AOT_EXPECT_H
#define TILEC_TESTS_AOT_EXPECT_H

#include <stdio.h>

#define EXPECT(cond, ...)                                                                              \
  do {                                                                                                 \
    if (!(cond)) {                                                                                     \
      fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                                  \
      fprintf(stderr, __VA_ARGS__);                                                                    \
      fprintf(stderr, "\n");                                                                           \
      failures++;                                                                                      \
    }                                                                                                  \
  } while (0)

#endif
