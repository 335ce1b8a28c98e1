#!/usr/bin/env bash
# Runs the cases of one kernel file of tests/emu/checks with `tilec run` on
# the CPU emulator. Each "# CASE: ARGS" line is one run (ARGS: what follows
# the file name); the "# REPORT: TEXT" lines after it are what its report
# must contain, each TEXT a substring of standard error. A case with reports
# must exit 1; a case without must exit 0 and print nothing on standard
# error: the checks stay silent on a correct kernel.
#
#   run-emu-checks.sh TILEC FILE.py
set -u
tilec=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")  # absolute: the cases run in the file's folder
test=$2
dir=$(dirname "$test")
name=$(basename "$test")
unset TILEC_DEVICE TILEC_EMU_SEED
cd "$dir" || exit 1
fail=0
ncases=0

# run_case ARGS REPORT...
run_case() {
  local args=$1
  shift
  ncases=$((ncases + 1))
  local err
  err=$(eval "\"$tilec\" run \"$name\" --device=cpu $args" 2>&1 >/dev/null)
  local rc=$? want=0
  [ $# -gt 0 ] && want=1
  if [ "$rc" != "$want" ]; then
    echo "FAILED: $name $args: exit code $rc, expected $want"
    printf '%s\n' "$err"
    fail=1
    return
  fi
  if [ $# -eq 0 ] && [ -n "$err" ]; then
    echo "FAILED: $name $args: a correct kernel, but the emulator said:"
    printf '%s\n' "$err"
    fail=1
    return
  fi
  local r
  for r in "$@"; do
    if [[ $err != *"$r"* ]]; then
      echo "FAILED: $name $args: the report lacks: $r"
      echo "it was:"
      printf '%s\n' "$err"
      fail=1
    fi
  done
}

args=""
reports=()
have=0
while IFS= read -r line; do
  case $line in
  "# CASE: "*)
    [ $have = 1 ] && run_case "$args" "${reports[@]+"${reports[@]}"}"
    args=${line#"# CASE: "}
    reports=()
    have=1
    ;;
  "# REPORT: "*) reports+=("${line#"# REPORT: "}") ;;
  esac
done <"$name"
[ $have = 1 ] && run_case "$args" "${reports[@]+"${reports[@]}"}"
if [ $ncases = 0 ]; then
  echo "FAILED: $name has no '# CASE:' line"
  exit 1
fi
exit $fail
