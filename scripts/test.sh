#!/usr/bin/env bash
# Sets up, builds, and runs the whole test suite.
# With CI=true: warnings are errors, a second build with ASan+UBSan runs
# the unit, diag and emu suites (the emulator's runtime, fibers included, under the sanitizers),
# a third, with clang, fuzzes the frontend on deep programs for a minute,
# `pip install .` builds the Python package, whose NumPy test then runs, and
# bench/compare checks the deterministic code metrics and compile instruction
# counts against bench/baseline.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# Runs a command quietly; on failure shows what it printed.
quiet() {
  local log
  log=$(mktemp)
  if ! "$@" >"$log" 2>&1; then
    cat "$log"
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
}

werror=false
[ "${CI:-}" = "true" ] && werror=true

if [ ! -f build/build.ninja ]; then
  quiet meson setup build -Dwerror=$werror
else
  quiet meson configure build -Dwerror=$werror
fi
quiet ninja -C build
meson test -C build --print-errorlogs

if [ "${CI:-}" = "true" ]; then
  if [ ! -f build-asan/build.ninja ]; then
    CC=${ASAN_CC:-gcc} quiet meson setup build-asan -Dwerror=true -Db_sanitize=address,undefined \
      -Db_lundef=false -Dbuildtype=debug
  fi
  quiet ninja -C build-asan
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C build-asan --print-errorlogs --suite unit --suite diag --suite emu

  # programs nested past every limit, which no input of 4096 bytes reaches
  # unexpanded (tests/fuzz/fuzz_deep.c); new inputs go to a copy of the corpus
  if [ ! -f build-fuzz/build.ninja ]; then
    CC=clang-14 quiet meson setup build-fuzz -Dfuzz=true -Dwerror=true
  fi
  quiet ninja -C build-fuzz tests/fuzz_deep
  rm -rf build-fuzz/corpus-deep
  cp -r tests/fuzz/corpus_deep build-fuzz/corpus-deep
  (cd build-fuzz && tests/fuzz_deep -max_len=4096 -timeout=10 -rss_limit_mb=2048 -max_total_time=60 \
    -dict=../tests/fuzz/fuzz_deep.dict corpus-deep 2>fuzz-deep.log) || {
    tail -n 60 build-fuzz/fuzz-deep.log
    exit 1
  }

  # pip install . into a new virtual environment (meson-python builds libtilec
  # into the package), then the NumPy test on the installed package alone
  pipenv=$(mktemp -d)
  python3 -m venv "$pipenv/venv"
  quiet "$pipenv/venv/bin/pip" install -q numpy .
  root=$PWD
  (cd "$pipenv" && env -u TILEC_LIBRARY -u PYTHONPATH TILEC_CACHE_DIR="$pipenv/cache" \
    "$pipenv/venv/bin/python" "$root/tests/frameworks/test_numpy.py" "$root/examples")
  rm -rf "$pipenv"

  # static code metrics and callgrind compile counts against the committed baseline;
  # wall times are left out here (they are noisy and only ever reported)
  python3 bench/compare --build build --no-time
fi
