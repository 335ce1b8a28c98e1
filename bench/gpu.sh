#!/usr/bin/env bash
# bench/gpu.sh — what needs a GPU, as one command, on a machine with one:
# the gpu test suite (the example kernels through the JIT on CUDA, the JIT
# example, the AOT example); every memory-bound example's throughput with
# `tilec bench` over a sweep of sizes, against a copy's (bench/kernels/copy.py: what
# the memory delivers to a streaming kernel), one JSON file and one plot
# each, and a table; the runtime's benchmarks on CUDA: a cache hit (a cubin,
# from source text to a launchable kernel), the host time of a launch
# against a bare cuLaunchKernel (from C, and from the Python package:
# bench/py_launch.py), and the fp16 matmul example at 4096^3
# against cuBLAS (goal: 90% of it). Everything lands in build/gpu-bench/;
# results go to bench/RESULTS.md by hand. Exits with the test suite's
# status, or 1 when a benchmark fails or the matmul's result is wrong.
#
#   bash bench/gpu.sh              on a GPU machine (under ten minutes)
#   bash bench/gpu.sh --cpu-check  the same tilec bench commands on the CPU
#                                  emulator, at small sizes: that they are
#                                  well-formed (the emu test suite runs it)
set -u
cd "$(dirname "$0")/.."
cpu=0
[ "${1:-}" = "--cpu-check" ] && cpu=1
# TILEC_BUILD: a build folder already built (the test suite's); else build/, built here
build=${TILEC_BUILD:-}
if [ -z "$build" ]; then
  build=build
  [ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null || exit 1
  ninja -C "$build" >/dev/null || exit 1
fi
out=$build/gpu-bench
mkdir -p "$out"
rc=0

if [ $cpu = 0 ]; then
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
  meson test -C "$build" --suite gpu --print-errorlogs || rc=$?
  sizes=262144:67108864:x4   # 1 MiB to 256 MiB per fp32 buffer: past any L2
  rows=4096 cols=256:8192:x2
  device=(--device=cuda)
  plot=1
  ldconfig -p 2>/dev/null | grep -q 'libplplot\.so\.17 ' || { plot=0; echo "no PLplot: tables without plots"; }
else
  sizes=1000,4096            # ragged and whole blocks
  rows=8 cols=256,512
  device=(--device=cpu --warmup 0 --rep 0 --no-racecheck)
  plot=0
fi

# bench NAME FILE KERNEL SIGNATURE GRID BYTES SWEEP ARG...: tilec bench over
# the sweep, into NAME.json (and NAME.png)
bench() {
  local name=$1 file=$2 kernel=$3 sig=$4 grid=$5 bytes=$6 sweep=$7
  shift 7
  local p=()
  [ $plot = 1 ] && p=(--plot "$out/$name.png")
  if ! "$build/tilec" bench "$file" -k "$kernel" -s "$sig" -g "$grid" --bytes "$bytes" --sweep "$sweep" \
    "${device[@]}" --json "${p[@]}" "$@" >"$out/$name.json" 2>"$out/$name.err"; then
    echo "bench $name failed:"
    cat "$out/$name.err"
    rc=1
  fi
}
f32=fp32
bench copy bench/kernels/copy.py copy_kernel "*fp32:16, *fp32:16, i32, 1024" "cdiv(n_elements, BLOCK_SIZE)" \
  "x_ptr + y_ptr" N=$sizes rand:$f32:{N} empty:$f32:{N} {N}
bench vector_add examples/vector_add.py add_kernel "*fp32:16, *fp32:16, *fp32:16, i32, 1024" \
  "cdiv(n_elements, BLOCK_SIZE)" "x_ptr + y_ptr + out_ptr" N=$sizes rand:$f32:{N} rand:$f32:{N} empty:$f32:{N} {N}
bench axpy examples/autotune.py axpy_kernel "*fp32:16, *fp32:16, *fp32:16, fp32, i32" \
  "cdiv(n_elements, meta['BLOCK_SIZE'])" "x_ptr + y_ptr + out_ptr" N=$sizes \
  rand:$f32:{N} rand:$f32:{N} empty:$f32:{N} 2.0 {N}
bench dropout examples/dropout.py dropout_kernel "*fp32:16, *fp32:16, i32, fp32, i32, 1024" \
  "cdiv(n_elements, BLOCK_SIZE)" "x_ptr + output_ptr" N=$sizes rand:$f32:{N} empty:$f32:{N} {N} 0.5 123
bench poly examples/static_range.py poly_kernel "*fp32:16, *fp32:16, *fp32:16, i32, 4, 1024" \
  "cdiv(n_elements, BLOCK_SIZE)" "x_ptr + out_ptr" N=$sizes rand:$f32:{N} rand:$f32:5 empty:$f32:{N} {N}
bench window_sum examples/static_range.py window_sum_kernel "*fp32:16, *fp32:16, i32, 8, 512" \
  "cdiv(n_elements, BLOCK_SIZE)" "x_ptr + out_ptr" N=$sizes rand:$f32:{N} empty:$f32:{N} {N}
bench softmax examples/softmax.py softmax_kernel "*fp32:16, *fp32:16, i32, i32, i32, i32, {N}" \
  "n_rows" "out_ptr + in_ptr" N=$cols empty:$f32:${rows}x{N} rand:$f32:${rows}x{N} {N} {N} $rows {N}
bench layer_norm_fwd examples/layer_norm.py layer_norm_fwd_kernel \
  "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, fp32, 1024" \
  "$rows" "X + Y + W + B + Mean + Rstd" N=$cols rand:$f32:${rows}x{N} empty:$f32:${rows}x{N} rand:$f32:{N} \
  rand:$f32:{N} empty:$f32:$rows empty:$f32:$rows {N} {N} 1e-5
bench row_absmax examples/reduce_combine.py row_absmax_kernel "*fp32:16, *fp32:16, *i32:16, i32, i32, {N}" \
  "$rows" "x_ptr + absmax_ptr + index_ptr" N=$cols rand:$f32:${rows}x{N} empty:$f32:$rows empty:i32:$rows {N} {N}

# the table: each benchmark's GB/s at its largest size, against the copy's
# at the same size (the elementwise kernels) or at its largest
gbps() { # FILE X: the gbps of the row with "x": X (the last row without X)
  grep '"gbps"' "$1" | { [ -n "${2:-}" ] && grep "\"x\": $2," || cat; } | tail -n 1 |
    sed 's/.*"gbps": \([0-9.e+-]*\).*/\1/'
}
xmax() { grep -o '"x": [0-9]*' "$1" | tail -n 1 | cut -d' ' -f2; }
{
  echo "benchmark        size         GB/s   % of copy"
  ref_x=$(xmax "$out/copy.json")
  ref_max=$(gbps "$out/copy.json")
  for f in "$out"/*.json; do
    name=$(basename "$f" .json)
    x=$(xmax "$f")
    g=$(gbps "$f")
    [ -n "$g" ] || continue
    ref=$(gbps "$out/copy.json" "$x")
    [ -n "$ref" ] || ref=$ref_max
    awk -v n="$name" -v x="$x" -v g="$g" -v r="$ref" 'BEGIN { printf "%-16s %-10s %8.1f %8.1f%%\n", n, x, g, 100 * g / r }'
  done
} | tee "$out/table.txt"
[ $cpu = 1 ] && exit $rc

TILEC_DEVICE=cuda "$build/jit_cache_hit" examples 200 || rc=1
"$build/launch_overhead" examples 100000 || rc=1
# the Python package's launch on CUDA: its host time against a direct tilec_kernel_launch
TILEC_LIBRARY=$build/compile/libtilec.so PYTHONPATH=python timeout 120 python3 bench/py_launch.py examples \
  --device cuda --check || rc=1
timeout 300 "$build/matmul_cublas" examples 4096 20
[ $? -eq 1 ] && rc=1
exit $rc
