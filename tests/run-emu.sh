#!/usr/bin/env bash
# `tilec run` end to end on the CPU emulator: examples/vector_add.py on
# random fp32 data of ragged sizes (the masked tail block), compared with a
# reference computed in C; an output buffer longer than the data must keep
# its 0xCD poison past the end. Then a launch that goes out of bounds must
# exit 1 with the emulator's report, and still save its output. And
# rand: inputs with --print.
#
#   run-emu.sh TILEC [DATA]
#
# DATA is the run-emu-data helper (tests/run-emu-data.c); without it the
# script builds one with $CC (default cc) from the sources.
set -u
tilec=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data=${2:-}
if [ -z "$data" ]; then
  data=$tmp/run-emu-data
  if ! ${CC:-cc} -std=gnu11 -O1 -I"$root" -o "$data" "$root/tests/run-emu-data.c" "$root/driver/npy.c" -lm; then
    echo "cannot build the run-emu-data helper"
    exit 1
  fi
fi
cd "$tmp" || exit 1
fail=0
sig="*fp32:16, *fp32:16, *fp32:16, i32, 1024"

# size, extra output elements, then more tilec run options
cases=(
  "1|0|"
  "1000|0|"
  "3089|7|-w 2"
  "98432|0|--seed 7"
  "4096|1024|-w 8"
)
seed=1
for c in "${cases[@]}"; do
  IFS='|' read -r n extra opts <<<"$c"
  "$data" rand $seed "$n" x.npy && "$data" rand $((seed + 100)) "$n" y.npy || { fail=1; continue; }
  seed=$((seed + 1))
  rm -f out.npy
  # shellcheck disable=SC2086 # opts are words
  if ! "$tilec" run "$root/examples/vector_add.py" -k add_kernel -s "$sig" -g "cdiv(n_elements, BLOCK_SIZE)" \
       $opts x.npy y.npy "empty:fp32:$((n + extra))" "$n" --save 2=out.npy; then
    echo "FAILED: tilec run of vector_add, $n elements ($opts)"
    fail=1
    continue
  fi
  if ! "$data" add x.npy y.npy out.npy; then
    echo "FAILED: vector_add's output differs from x + y, $n elements ($opts)"
    fail=1
  fi
done

# A grid in y, with an out_ptr named by --save: the same sum
"$data" rand 41 2000 x.npy && "$data" rand 42 2000 y.npy
if ! "$tilec" run "$root/examples/vector_add.py" -k add_kernel -s "$sig" -g "triton.cdiv(n_elements, 1024), 1" \
     x.npy y.npy empty:fp32:2000 2000 --save out_ptr=out.npy || ! "$data" add x.npy y.npy out.npy; then
  echo "FAILED: vector_add with a 2-D grid and --save by name"
  fail=1
fi

# An output shorter than n_elements: out-of-bounds stores are reported,
# exit 1, and the output is saved all the same
rm -f out.npy
"$tilec" run "$root/examples/vector_add.py" -k add_kernel -s "$sig" -g "cdiv(n_elements, BLOCK_SIZE)" \
  x.npy y.npy empty:fp32:1500 2000 --save 2=out.npy 2>err.txt
rc=$?
if [ "$rc" != 1 ] || ! grep -q "out-of-bounds" err.txt || [ ! -s out.npy ]; then
  echo "FAILED: an out-of-bounds launch must exit 1 (got $rc) with the emulator's report and save its output"
  cat err.txt
  fail=1
fi

# rand: inputs and --print: the printed sums are the printed inputs' sums
if ! "$tilec" run "$root/examples/vector_add.py" -k add_kernel -s "$sig" -g "cdiv(n_elements, BLOCK_SIZE)" \
     rand:fp32:3000 rand:fp32:3000 empty:fp32:3000 3000 --print 0:16 --print 1:16 --print out_ptr:16 >print.txt ||
   ! awk 'NR <= 3 { for (i = 3; i <= NF; i++) v[NR, i] = $i; n = NF }
          END { if (NR != 3 || n != 18) exit 1
                for (i = 3; i <= n; i++) { d = v[1, i] + v[2, i] - v[3, i]; if (d > 1e-6 || d < -1e-6) exit 1
                                           if (v[1, i] == v[2, i]) exit 1 } }' print.txt; then
  echo "FAILED: rand: inputs and --print"
  cat print.txt
  fail=1
fi

# booleans: a mask stored as bytes, then loaded back
cat > bool.py <<'PY'
import triton
import triton.language as tl

@triton.jit
def bool_mask(x_ptr, m_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(m_ptr + offs, x > 0)
    tl.store(x_ptr + offs, tl.where(tl.load(m_ptr + offs), x, 0.0))
PY
if ! "$tilec" run bool.py -s "*fp32, *i1, 128" -g 1 rand:fp32:128 empty:i1:128 --print 0:128 --print 1:128 >bool.txt ||
   ! awk 'NR <= 2 { for (i = 3; i <= NF; i++) v[NR, i] = $i; n = NF }
          END { if (NR != 2 || n != 130) exit 1
                for (i = 3; i <= n; i++) if ((v[1, i] > 0) != (v[2, i] == 1) || v[1, i] < 0) exit 1 }' bool.txt; then
  echo "FAILED: booleans in memory"
  cat bool.txt
  fail=1
fi

# device_print: once per element, by its first holder (the layout of 4
# elements over 32 threads repeats each 8 times), a scalar once
cat > show.py <<'PY'
import triton
import triton.language as tl

@triton.jit
def show(x_ptr, n, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.device_print("x = ", x)
    tl.device_print("n is ", n)
PY
"$tilec" run show.py -s "*i32, i32, 4" -g 2 -w 1 rand:i32:4 7 | sort >show.txt
cat >want.txt <<'TXT'
pid (0, 0, 0) idx () n is  7
pid (0, 0, 0) idx (0) x =  -90
pid (0, 0, 0) idx (1) x =  -13
pid (0, 0, 0) idx (2) x =  12
pid (0, 0, 0) idx (3) x =  -83
pid (1, 0, 0) idx () n is  7
pid (1, 0, 0) idx (0) x =  -90
pid (1, 0, 0) idx (1) x =  -13
pid (1, 0, 0) idx (2) x =  12
pid (1, 0, 0) idx (3) x =  -83
TXT
if ! cmp -s show.txt want.txt; then
  echo "FAILED: device_print"
  diff want.txt show.txt
  fail=1
fi

exit $fail
