#!/usr/bin/env bash
# Every example kernel (the "# tilec:" lines of examples/*.py) through all
# passes to tile IR with layouts, for num_warps 1, 4 and 8, and through
# both tails (PTX, the CPU emulator's object) at 4; the IR is verified
# after every stage, so a failure names the stage that broke it.
set -u
tilec=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/../examples" || exit 1
fail=0 count=0
for f in *.py; do
  while IFS= read -r line; do
    for w in 1 4 8; do
      count=$((count + 1))
      if ! out=$(eval "\"$tilec\" compile \"$f\" $line -w $w --emit=tile-gpu --verify-each" 2>&1 >/dev/null); then
        echo "FAILED: tilec compile $f $line -w $w --emit=tile-gpu"
        echo "$out"
        fail=1
      fi
    done
    for emit in ptx cpu; do
      count=$((count + 1))
      if ! out=$(eval "\"$tilec\" compile \"$f\" $line --emit=$emit --verify-each" 2>&1 >/dev/null); then
        echo "FAILED: tilec compile $f $line --emit=$emit --verify-each"
        echo "$out"
        fail=1
      fi
    done
  done < <(sed -n 's/^# tilec: //p' "$f")
done
echo "$count compilations"
[ "$count" -gt 0 ] && [ "$fail" = 0 ]
