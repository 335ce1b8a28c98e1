#!/usr/bin/env bash
# Runs one diag test: tests/diag/NAME.py must fail to compile with exactly the
# diagnostics in NAME.err and exit code 1 (or the code in an "# EXIT: N" line).
# The first "# ARGS:" line holds the tilec arguments after the file name; a
# test whose source cannot hold that line (binary or empty input) puts them on
# the first line of a sibling NAME.args instead, which then takes precedence.
# A "# COMMAND: run" line runs `tilec run` instead of `tilec compile`.
set -u
tilec=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")  # absolute: the test runs in its folder
test=$2
dir=$(dirname "$test")
name=$(basename "$test" .py)
if [ -f "$dir/$name.args" ]; then
  args=$(head -n 1 "$dir/$name.args")
  want_rc=$(sed -n 's/^# EXIT: //p' "$dir/$name.args" | head -n 1)
  command=$(sed -n 's/^# COMMAND: //p' "$dir/$name.args" | head -n 1)
else
  args=$(sed -n 's/^# ARGS: //p' "$test" | head -n 1)
  want_rc=$(sed -n 's/^# EXIT: //p' "$test" | head -n 1)
  command=$(sed -n 's/^# COMMAND: //p' "$test" | head -n 1)
fi
want_rc=${want_rc:-1}
command=${command:-compile}
unset TILEC_DEVICE TILEC_EMU_SEED  # tests of `tilec run` pick the device themselves
cd "$dir" || exit 1
out=$(eval "\"$tilec\" $command \"$name.py\" $args" 2>&1 >/dev/null)
rc=$?
if [ "$rc" != "$want_rc" ]; then
  echo "$name: exit code $rc, expected $want_rc"
  echo "$out"
  exit 1
fi
if ! diff -u "$name.err" <(printf '%s\n' "$out"); then
  echo "$name: diagnostics differ from $name.err (above: - expected, + actual)"
  exit 1
fi
