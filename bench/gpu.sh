#!/usr/bin/env bash
# bench/gpu.sh — what needs a GPU, as one command, on a machine with one:
# the gpu test suite (the example kernels through the JIT on CUDA, the JIT
# example, the AOT example), then the runtime's benchmarks on CUDA: a cache
# hit (a cubin, from source text to a launchable kernel), the host time
# of a launch against a bare cuLaunchKernel, and the fp16 matmul example at
# 4096^3 against cuBLAS (goal: 90% of it). Results go to bench/RESULTS.md
# by hand. Exits with the test suite's status, or 1 when the matmul's
# result is wrong.
#
#   bash bench/gpu.sh
set -u
cd "$(dirname "$0")/.."
[ -f build/build.ninja ] || meson setup build >/dev/null || exit 1
ninja -C build >/dev/null || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
meson test -C build --suite gpu --print-errorlogs
rc=$?
TILEC_DEVICE=cuda build/jit_cache_hit examples 200
build/launch_overhead examples 100000
timeout 300 build/matmul_cublas examples 4096 20
[ $? -eq 1 ] && rc=1
exit $rc
