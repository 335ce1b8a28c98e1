/* unit.c — runs a test file's unit_main and reports. */
#include "unit.h"

#include <unistd.h>

int unit_failures;

bool unit_capture_begin(UnitCapture *c) {
  fflush(stderr);
  c->t = tmpfile();
  c->saved = dup(2);
  if (c->t && c->saved >= 0 && dup2(fileno(c->t), 2) == 2) return true;
  if (c->t) fclose(c->t);
  if (c->saved >= 0) close(c->saved);
  return false;
}

void unit_capture_end(UnitCapture *c, char *out, size_t n) {
  fflush(stderr);
  dup2(c->saved, 2);
  close(c->saved);
  rewind(c->t);
  out[fread(out, 1, n - 1, c->t)] = 0;
  fclose(c->t);
}

int main(void) {
  unit_main();
  if (unit_failures) fprintf(stderr, "%d check(s) failed\n", unit_failures);
  return unit_failures ? 1 : 0;
}
