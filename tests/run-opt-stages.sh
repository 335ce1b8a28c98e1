#!/usr/bin/env bash
# For every example kernel (the "# tilec:" lines of examples/*.py): the
# lowered kernel printed as text (--emit=lower) and run through
# `tilec opt --pass=allocate-shared,insert-barriers` is the kernel the
# pipeline itself has after insert-barriers (--emit=insert-barriers), byte
# for byte: the passes take everything they need from the IR.
set -u
tilec=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/../examples" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 count=0
for f in *.py; do
  while IFS= read -r line; do
    for w in 1 4; do
      count=$((count + 1))
      if ! eval "\"$tilec\" compile \"$f\" $line -w $w --emit=lower" >"$tmp/lower.mlir" ||
         ! eval "\"$tilec\" compile \"$f\" $line -w $w --emit=insert-barriers" >"$tmp/want.mlir" ||
         ! "$tilec" opt "$tmp/lower.mlir" --pass=allocate-shared,insert-barriers -w $w >"$tmp/got.mlir"; then
        echo "FAILED: tilec compile $f $line -w $w"
        fail=1
      elif ! cmp -s "$tmp/want.mlir" "$tmp/got.mlir"; then
        echo "DIFFERS: tilec compile $f $line -w $w: opt on --emit=lower's text"
        diff "$tmp/want.mlir" "$tmp/got.mlir" | head -20
        fail=1
      fi
    done
  done < <(sed -n 's/^# tilec: //p' "$f")
done
echo "$count kernels"
[ "$count" -gt 0 ] && [ "$fail" = 0 ]
