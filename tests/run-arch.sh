#!/usr/bin/env bash
# tilec run --arch: the emulator runs the code compiled for that target.
# An fp8 dot of K = 32 is sm_89's m16n8k32 e4m3 instruction there and
# fp16's m16n8k16 on the widened values on sm_80 (docs/codegen.md): the
# emulator's object for each holds its own instruction, both runs agree
# (the products are exact, the sums within fp32 rounding of each other),
# and an unknown target is a usage error. A host tensor descriptor's
# load is a TMA copy on sm_90a: the same numbers as sm_80's masked load.
#
#   run-arch.sh TILEC
set -u
tilec=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
file=$root/tests/filecheck/ptx_dot.py
sig="*fp8e4nv:16, *fp8e4nv:16, *fp32:16, 32, 32, 32"
args=(rand:fp8e4nv:1024 rand:fp8e4nv:1024 empty:fp32:1024)
fp8=tilec.emu.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32
for arch in sm_80 sm_89; do
  if ! "$tilec" compile "$file" -k dot2d -s "$sig" --arch=$arch --emit=cpu -o "$tmp/$arch.o" 2>"$tmp/err"; then
    echo "FAILED: tilec compile --arch=$arch --emit=cpu"; cat "$tmp/err"; fail=1; continue
  fi
  has=$(grep -c "$fp8" "$tmp/$arch.o")
  if { [ $arch = sm_89 ] && [ "$has" = 0 ]; } || { [ $arch = sm_80 ] && [ "$has" != 0 ]; }; then
    echo "FAILED: the $arch object should$([ $arch = sm_80 ] && echo ' not') call $fp8"
    fail=1
  fi
  if ! "$tilec" run "$file" -k dot2d -s "$sig" -g 1 --device=cpu --arch=$arch "${args[@]}" --print 2:1024 >"$tmp/$arch.txt" 2>"$tmp/err"; then
    echo "FAILED: tilec run --arch=$arch"; cat "$tmp/err"; fail=1
  fi
done
if [ $fail = 0 ]; then
  bad=$(paste -d' ' <(tr ' ' '\n' <"$tmp/sm_80.txt" | tail -n +3) <(tr ' ' '\n' <"$tmp/sm_89.txt" | tail -n +3) |
    awk 'NF == 2 { d = $1 - $2; if (d < 0) d = -d; m = ($1 < 0 ? -$1 : $1) + 1; if (d > 1e-5 * m) bad++; n++ } END { print (n == 1024 ? bad + 0 : "count " n) }')
  if [ "$bad" != 0 ]; then echo "FAILED: sm_80 and sm_89 runs differ: $bad"; fail=1; fi
fi
# a host tensor descriptor: a TMA copy from the map tilec run builds on
# sm_90a, a masked load on sm_80; the same numbers (a view of 19 x 22 of
# a 20 x 24 tensor); a row stride of 23 floats (not a multiple of 16
# bytes, as a tensor descriptor's must be) is an error that names the
# argument
dfile=$root/tests/filecheck/ptx_lang.py
dsig="tensordesc<fp32[16, 8]>, *fp32, i32, i32, i32, 16, 8"
for arch in sm_80 sm_90a; do
  if ! "$tilec" run "$dfile" -k desc_copy -s "$dsig" -g 6 --device=cpu --arch=$arch rand:fp32:480 19 22 24 1 zeros:fp32:480 19 22 24 \
    --print 5:480 >"$tmp/desc_$arch.txt" 2>"$tmp/err"; then
    echo "FAILED: tilec run desc_copy --arch=$arch"; cat "$tmp/err"; fail=1
  fi
done
if ! cmp -s "$tmp/desc_sm_80.txt" "$tmp/desc_sm_90a.txt" || [ "$(wc -w <"$tmp/desc_sm_80.txt")" -lt 480 ]; then
  echo "FAILED: desc_copy on sm_80 and sm_90a differ"; diff "$tmp/desc_sm_80.txt" "$tmp/desc_sm_90a.txt" | head; fail=1
fi
"$tilec" run "$dfile" -k desc_copy -s "$dsig" -g 6 --device=cpu --arch=sm_90a rand:fp32:480 19 22 23 1 zeros:fp32:480 19 22 24 \
  2>"$tmp/err" >/dev/null
rc=$?
if [ $rc != 1 ] || ! grep -q "in_desc_stride0: 23 is not what a tensor descriptor takes: a 16-byte aligned base, every stride but the last a multiple of 16 bytes" "$tmp/err"; then
  echo "FAILED: a row stride of 23 floats on sm_90a: exit $rc, expected 1 and the reason"; cat "$tmp/err"; fail=1
fi
"$tilec" run "$file" -k dot2d -s "$sig" -g 1 --device=cpu --arch=sm_70 "${args[@]}" 2>"$tmp/err"
rc=$?
if [ $rc != 2 ] || ! grep -q "unknown target 'sm_70'" "$tmp/err"; then
  echo "FAILED: --arch=sm_70: exit $rc, expected 2 and the targets"; cat "$tmp/err"; fail=1
fi
exit $fail
