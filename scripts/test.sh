#!/usr/bin/env bash
# Sets up, builds, and runs the whole test suite.
# With CI=true: warnings are errors, and a second build with ASan+UBSan runs
# the unit and diag suites.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

werror=false
[ "${CI:-}" = "true" ] && werror=true

if [ ! -f build/build.ninja ]; then
  meson setup build -Dwerror=$werror >/dev/null
else
  meson configure build -Dwerror=$werror >/dev/null
fi
ninja -C build >/dev/null
meson test -C build --print-errorlogs

if [ "${CI:-}" = "true" ]; then
  if [ ! -f build-asan/build.ninja ]; then
    CC=${ASAN_CC:-gcc} meson setup build-asan -Dwerror=true -Db_sanitize=address,undefined \
      -Db_lundef=false -Dbuildtype=debug >/dev/null
  fi
  ninja -C build-asan >/dev/null
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C build-asan --print-errorlogs --suite unit --suite diag
fi
