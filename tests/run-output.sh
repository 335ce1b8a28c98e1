#!/usr/bin/env bash
# Output that cannot be written is an error, never a success, and never a
# cut file: every command that prints (compile, opt, run --print, bench's
# table, --json and --csv) exits 1 with a message when standard output is
# /dev/full; and a file that cannot be written whole (here: past a file
# size limit, as a full disk would stop it) is not left behind, empty or
# cut, nor does it replace the file that was there. A path that is no
# regular file (/dev/stdout) is written in place, and a symbolic link's
# file is replaced, the link kept.
#
#   run-output.sh TILEC
set -u
tilec=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
vadd=$root/examples/vector_add.py
sig="*fp32:16, *fp32:16, *fp32:16, i32, 1024"
args=(rand:fp32:1000 rand:fp32:1000 empty:fp32:1000 1000)
bench=(bench "$vadd" -s "$sig" -g "cdiv(n_elements, BLOCK_SIZE)" --device=cpu --warmup 0 --rep 0 "${args[@]}")

# stdout to /dev/full: exit 1, and the message
to_full() {
  "$tilec" "$@" >/dev/full 2>err.txt
  local rc=$?
  if [ "$rc" != 1 ] || [ "$(grep -c "tilec: error: writing standard output failed" err.txt)" != 1 ]; then
    echo "FAILED: tilec $* >/dev/full: exit $rc, expected 1 and a message (once)"
    cat err.txt
    fail=1
  fi
}
to_full compile "$vadd" -s "$sig" --emit=ptx
echo 'module {}' >empty.mlir
to_full opt empty.mlir --pass=cse
to_full run "$vadd" -s "$sig" -g "cdiv(n_elements, BLOCK_SIZE)" "${args[@]}" --print 2
to_full "${bench[@]}"
to_full "${bench[@]}" --json
to_full "${bench[@]}" --csv
to_full --version

# a file size limit of 1 KiB (SIGXFSZ ignored: the write fails instead):
# exit 1, no file where there was none, the old one where there was one,
# and no temporary left
limited() {
  (trap '' XFSZ; ulimit -f 1; exec "$tilec" "$@") 2>err.txt
}
check_none() { # what, files that must not exist
  local what=$1
  shift
  for f in "$@"; do
    [ -e "$f" ] && { echo "FAILED: $what left $f behind"; fail=1; }
  done
  if ls ./*.tmp-* >/dev/null 2>&1; then
    echo "FAILED: $what left a temporary file: $(ls ./*.tmp-*)"
    fail=1
  fi
}
limited compile "$vadd" -s "$sig" --emit=ptx -o add.ptx
rc=$?
[ "$rc" = 1 ] && grep -q "tilec: error: writing '.*add.ptx' failed" err.txt ||
  { echo "FAILED: compile -o past the limit: exit $rc"; cat err.txt; fail=1; }
check_none "compile -o" add.ptx add.ptx.json
echo old >old.ptx
limited compile "$vadd" -s "$sig" --emit=ptx -o old.ptx
[ "$(cat old.ptx)" = old ] || { echo "FAILED: a failed compile -o cut the file that was there"; fail=1; }
limited aot "$vadd" -s "$sig" --ptx-only -o vadd
rc=$?
[ "$rc" = 1 ] || { echo "FAILED: aot -o past the limit: exit $rc"; cat err.txt; fail=1; }
check_none "aot -o" vadd.h vadd.c
limited run "$vadd" -s "$sig" -g "cdiv(n_elements, BLOCK_SIZE)" "${args[@]}" --save 2=out.npy
rc=$?
[ "$rc" = 1 ] || { echo "FAILED: run --save past the limit: exit $rc"; cat err.txt; fail=1; }
check_none "run --save" out.npy
"$tilec" opt /dev/null --pass=cse -o /dev/null 2>err.txt || { echo "FAILED: opt -o /dev/null"; cat err.txt; fail=1; }
[ -c /dev/null ] || { echo "FAILED: /dev/null is no longer a device"; fail=1; }

# in place through /dev/stdout; through a link, its file
"$tilec" compile "$vadd" -s "$sig" --emit=ptx -o /dev/stdout 2>err.txt | grep -q "\.entry add_kernel" ||
  { echo "FAILED: compile -o /dev/stdout"; cat err.txt; fail=1; }
echo old >real.ptx
ln -s real.ptx link.ptx
"$tilec" compile "$vadd" -s "$sig" --emit=ptx -o link.ptx 2>err.txt || { echo "FAILED: compile -o link.ptx"; fail=1; }
[ -L link.ptx ] && grep -q "\.entry add_kernel" real.ptx || { echo "FAILED: -o through a link did not write its file"; fail=1; }
check_none "the writes that succeeded"
[ "$fail" = 0 ] && echo "all outputs checked"
exit "$fail"
