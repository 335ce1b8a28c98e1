#!/usr/bin/env bash
# `tilec bench` end to end: on the emulator (a sweep as JSON, GB/s from
# --bytes, --tune's choice, CSV, a plot) and on the fake CUDA driver, whose
# trace shows the L2 flush between launches and the events around each.
# Arguments: the tilec binary, the examples folder, the fake libcuda's folder.
set -u
tilec=$1
examples=$2
fake=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset TILEC_DEVICE TILEC_EMU_SEED
fail() {
  echo "FAIL: $*"
  exit 1
}
add_sig='*fp32:16, *fp32:16, *fp32:16, i32, 1024'
axpy_sig='*fp32:16, *fp32:16, *fp32:16, fp32, i32'

# ---- a sweep on the emulator, as JSON: one result per value, the bytes of
# --bytes (a pointer's name is its buffer's size), GB/s from the median, and
# the least number of timed launches when --rep is 0
"$tilec" bench "$examples/vector_add.py" -s "$add_sig" -g "cdiv(n_elements, BLOCK_SIZE)" --device=cpu \
  rand:fp32:{N} rand:fp32:{N} empty:fp32:{N} {N} --sweep N=1000,3000,5000 --bytes "x_ptr + y_ptr + out_ptr" \
  --warmup 0 --rep 0 --json >"$tmp/sweep.json" 2>"$tmp/sweep.err" || fail "sweep: exit $?: $(cat "$tmp/sweep.err")"
grep -q '"device": "cpu"' "$tmp/sweep.json" || fail "sweep: no device"
grep -q '"note": "the times are the CPU emulator' "$tmp/sweep.json" || fail "sweep: the JSON does not say the times are the emulator's"
grep -q "the times are the CPU emulator's" "$tmp/sweep.err" || fail "sweep: no notice on stderr"
[ "$(grep -c '"kernel": "add_kernel"' "$tmp/sweep.json")" = 3 ] || fail "sweep: expected 3 results"
for n in 1000 3000 5000; do
  line=$(grep "\"x\": $n," "$tmp/sweep.json") || fail "sweep: no result for N=$n"
  [[ $line == *"\"bytes\": $((12 * n)),"* ]] || fail "sweep: N=$n: bytes is not 3 buffers of 4*N: $line"
  [[ $line == *'"runs": 3,'* ]] || fail "sweep: N=$n: --rep 0 should time 3 launches: $line"
  # GB/s = bytes / (median ms * 1e6)
  awk -v l="$line" 'BEGIN {
    match(l, /"median_ms": [0-9.e+-]+/); m = substr(l, RSTART + 13, RLENGTH - 13)
    match(l, /"bytes": [0-9]+/); b = substr(l, RSTART + 9, RLENGTH - 9)
    match(l, /"gbps": [0-9.e+-]+/); g = substr(l, RSTART + 8, RLENGTH - 8)
    want = b / (m * 1e6); d = g - want; if (d < 0) d = -d
    exit !(m > 0 && d <= want * 1e-4)
  }' || fail "sweep: N=$n: gbps is not bytes / median: $line"
done

# ---- --tune on the emulator: every config timed, and the best is the one
# with the least median
"$tilec" bench "$examples/autotune.py" -s "$axpy_sig" -g "cdiv(n_elements, meta['BLOCK_SIZE'])" --device=cpu \
  rand:fp32:5000 rand:fp32:5000 empty:fp32:5000 2.0 5000 --tune --warmup 0 --rep 5 --json >"$tmp/tune.json" \
  2>"$tmp/tune.err" || fail "tune: exit $?: $(cat "$tmp/tune.err")"
for c in 0 1 2; do
  grep -q "\"config\": $c, \"num_warps\"" "$tmp/tune.json" || fail "tune: config $c was not timed"
done
grep -q '"BLOCK_SIZE": 4096' "$tmp/tune.json" || fail "tune: config 2's BLOCK_SIZE is missing"
fastest=$(grep '"median_ms"' "$tmp/tune.json" | sed 's/.*"config": \([0-9]*\),.*"median_ms": \([0-9.e+-]*\),.*/\2 \1/' |
  sort -g | head -n 1 | cut -d' ' -f2)
chosen=$(sed -n '/"best"/,$p' "$tmp/tune.json" | grep -o '"config": [0-9]*' | cut -d' ' -f2)
[ -n "$fastest" ] && [ "$fastest" = "$chosen" ] || fail "tune: best is config '$chosen', the least median is config '$fastest'"

# ---- CSV, a table: a header and one row per config
"$tilec" bench "$examples/autotune.py" -s "$axpy_sig" -g "cdiv(n_elements, meta['BLOCK_SIZE'])" --device=cpu \
  rand:fp32:2000 rand:fp32:2000 empty:fp32:2000 2.0 2000 --config 1,2 --warmup 0 --rep 0 --csv >"$tmp/out.csv" \
  2>/dev/null || fail "csv: exit $?"
head -n 1 "$tmp/out.csv" | grep -q '^device,kernel,config,num_warps,num_stages,median_ms,q20_ms,q80_ms' ||
  fail "csv: header: $(head -n 1 "$tmp/out.csv")"
[ "$(grep -c '^cpu-emulator,axpy_kernel,[12],' "$tmp/out.csv")" = 2 ] || fail "csv: expected configs 1 and 2: $(cat "$tmp/out.csv")"
"$tilec" bench "$examples/vector_add.py" -s "$add_sig" -g "cdiv(n_elements, BLOCK_SIZE)" --device=cpu \
  rand:fp32:3000 rand:fp32:3000 empty:fp32:3000 3000 --warmup 0 --rep 0 >"$tmp/table.txt" 2>&1 || fail "table: exit $?"
grep -q "median ms" "$tmp/table.txt" && grep -Eq '^ +[0-9.]+ +[0-9.]+ +[0-9.]+ +3$' "$tmp/table.txt" ||
  fail "table: $(cat "$tmp/table.txt")"

# ---- a launch the emulator stops: exit 1 with its report
"$tilec" bench "$examples/vector_add.py" -s "$add_sig" -g "cdiv(n_elements, BLOCK_SIZE)" --device=cpu \
  rand:fp32:100 rand:fp32:100 empty:fp32:100 3000 --warmup 0 --rep 0 >/dev/null 2>"$tmp/oob.err"
rc=$?
[ $rc = 1 ] && grep -q "out-of-bounds load" "$tmp/oob.err" || fail "out of bounds: exit $rc: $(cat "$tmp/oob.err")"

# ---- a config's pre_hook that zeroes a buffer runs before tilec run's
# launch (and its tuning's): a sum of zeros into a random total is 0
cat >"$tmp/acc.py" <<'PY'
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'B': 64}, pre_hook=lambda nargs: nargs['total'].zero_()),
                          triton.Config({'B': 128}, pre_hook=lambda nargs: nargs['total'].zero_())], key=['n'])
@triton.jit
def acc(x, total, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.atomic_add(total + o % 4, tl.load(x + o, mask=o < n, other=0), mask=o < n)
PY
for config in "" "--config 1"; do
  got=$(TILEC_CACHE_DIR="$tmp/cache" "$tilec" run "$tmp/acc.py" -s "*fp32:16, *fp32:16, i32" -g "cdiv(n, meta['B'])" \
    --device=cpu $config zeros:fp32:1000 rand:fp32:4 1000 --print 1 2>&1)
  [ "$got" = "total[0:4] = 0 0 0 0" ] || fail "pre_hook $config: $got"
done

# ---- a pre_hook that copies: dst is src before every launch, which adds 1
cat >"$tmp/bump.py" <<'PY'
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'B': 64}, pre_hook=lambda nargs: nargs['dst'].copy_(nargs['src'])),
                          triton.Config({'B': 128}, pre_hook=lambda nargs: nargs['dst'].copy_(nargs['src']))],
                 key=['n'])
@triton.jit
def bump(src, dst, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(dst + o, tl.load(dst + o, mask=o < n) + 1, mask=o < n)
PY
got=$(TILEC_CACHE_DIR="$tmp/cache" "$tilec" run "$tmp/bump.py" -s "*fp32:16, *fp32:16, i32" -g "cdiv(n, meta['B'])" \
  --device=cpu zeros:fp32:300 rand:fp32:300 300 --print 1:3 2>&1)
[ "$got" = "dst[0:3] = 1 1 1" ] || fail "pre_hook copy: $got"
"$tilec" run "$tmp/bump.py" -s "*fp32:16, *fp32:16, i32" -g "cdiv(n, meta['B'])" --device=cpu --config 0 \
  zeros:fp32:300 rand:fp32:200 300 >/dev/null 2>"$tmp/bump.err" && fail "pre_hook copy between sizes: exit 0"
grep -q "copies 'src' (1200 bytes) into 'dst' (800 bytes); they must be the same size" "$tmp/bump.err" ||
  fail "pre_hook copy between sizes: $(cat "$tmp/bump.err")"

# ---- --tune with a config that does not compile (BLOCK 3 is no power of
# 2): it is reported and left out, its row says so, the others are timed
cat >"$tmp/fill.py" <<'PY'
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 64}), triton.Config({'BLOCK': 3}), triton.Config({'BLOCK': 128})],
                 key=['n'])
@triton.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 1.0, mask=offs < n)
PY
TILEC_CACHE_DIR="$tmp/cache" "$tilec" bench "$tmp/fill.py" -s "*fp32:16, i32" -g "cdiv(n, meta['BLOCK'])" --device=cpu \
  empty:fp32:1000 1000 --tune --warmup 0 --rep 0 --json >"$tmp/fill.json" 2>"$tmp/fill.err" ||
  fail "tune with a bad config: exit $?: $(cat "$tmp/fill.err")"
grep -q "config 1 does not compile; it is left out" "$tmp/fill.err" || fail "tune with a bad config: $(cat "$tmp/fill.err")"
grep -q '"kernel": "fill", "config": 1, .*"ok": false}' "$tmp/fill.json" || fail "tune with a bad config: $(cat "$tmp/fill.json")"
[ "$(grep -c '"ok": true' "$tmp/fill.json")" = 2 ] || fail "tune with a bad config: configs 0 and 2 should run"
grep -A2 '"best"' "$tmp/fill.json" | grep -Eq '"config": (0|2)' || fail "tune with a bad config: best: $(cat "$tmp/fill.json")"

# ---- a plot: a PNG and an SVG of the sweep, when PLplot is installed
if ldconfig -p | grep -q 'libplplot\.so\.17 '; then
  for ext in png svg; do
    "$tilec" bench "$examples/autotune.py" -s "$axpy_sig" -g "cdiv(n_elements, meta['BLOCK_SIZE'])" --device=cpu \
      rand:fp32:{N} rand:fp32:{N} empty:fp32:{N} 2.0 {N} --sweep N=1024:4096:x2 --tune --warmup 0 --rep 0 \
      --plot "$tmp/plot.$ext" >/dev/null 2>"$tmp/plot.err" || fail "plot $ext: exit $?: $(cat "$tmp/plot.err")"
  done
  [ "$(head -c 8 "$tmp/plot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "plot: not a PNG"
  [ "$(stat -c %s "$tmp/plot.png")" -gt 10000 ] || fail "plot: the PNG is too small to hold a plot"
  grep -q '<svg' "$tmp/plot.svg" || fail "plot: not an SVG"
else
  echo "PLplot is not installed: the plot is not tested"
fi

# ---- on the fake CUDA driver: each timed launch is an L2 flush (256 MiB
# written), then an event, the launch, an event; the estimate is five
# flushed launches between two events
LD_LIBRARY_PATH=$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} FAKE_CUDA_TRACE="$tmp/trace" \
  "$tilec" bench "$examples/vector_add.py" -s "$add_sig" -g "cdiv(n_elements, BLOCK_SIZE)" --device=cuda \
  rand:fp32:5000 rand:fp32:5000 empty:fp32:5000 5000 --warmup 0 --rep 0 --json >"$tmp/gpu.json" 2>"$tmp/gpu.err" ||
  fail "fake GPU: exit $?: $(cat "$tmp/gpu.err")"
grep -q '"device": "cuda"' "$tmp/gpu.json" && grep -q '"l2_flush": true' "$tmp/gpu.json" &&
  grep -q '"runs": 3,' "$tmp/gpu.json" || fail "fake GPU: $(cat "$tmp/gpu.json")"
launch="launch 5 1 1, 128 threads, argument 0 in allocation 0"
flushed="memset 268435456,$launch"
timed="memset 268435456,record,$launch,record"
want="record,$flushed,$flushed,$flushed,$flushed,$flushed,record,$timed,$timed,$timed"
got=$(paste -sd, "$tmp/trace")
[ "$got" = "$want" ] || fail "fake GPU: the launches were
  $got
expected
  $want"
# --no-flush: no memset; --rotate 2 alternates two copies of the buffers
LD_LIBRARY_PATH=$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} FAKE_CUDA_TRACE="$tmp/trace" \
  "$tilec" bench "$examples/vector_add.py" -s "$add_sig" -g "cdiv(n_elements, BLOCK_SIZE)" --device=cuda \
  rand:fp32:5000 rand:fp32:5000 empty:fp32:5000 5000 --warmup 0 --rep 0 --no-flush --rotate 2 >/dev/null 2>&1 ||
  fail "fake GPU --no-flush: exit $?"
! grep -q memset "$tmp/trace" || fail "fake GPU: --no-flush flushed"
got=$(grep -o 'allocation [0-9]*' "$tmp/trace" | cut -d' ' -f2 | paste -sd,)
[ "$got" = 0,3,0,3,0,0,3,0 ] || fail "fake GPU: --rotate 2: the first buffer's copies were $got, expected 0,3,0,3,0 then 0,3,0"
echo "ok"
