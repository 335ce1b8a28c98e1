/* unit.c — runs a test file's unit_main and reports. */
#include "unit.h"

int unit_failures;

int main(void) {
  unit_main();
  if (unit_failures) fprintf(stderr, "%d check(s) failed\n", unit_failures);
  return unit_failures ? 1 : 0;
}
