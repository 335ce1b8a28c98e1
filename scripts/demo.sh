#!/usr/bin/env bash
# Sets up, builds, and runs tilec on an example kernel: the vector add of
# examples/vector_add.py, specialized for fp32 pointers aligned to 16 bytes,
# n divisible by 16 and a block of 1024, compiled to PTX for sm_80 (its
# typed AST and tile IR are a flag away: --emit=ast, --emit=tile-gpu).
# Running it waits for the CPU emulator and the CUDA runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
set -x
./build/tilec compile examples/vector_add.py -k add_kernel \
  -s "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024" --emit=ptx
