#!/usr/bin/env bash
# Sets up, builds, and runs tilec on an example kernel: the vector add of
# examples/vector_add.py, specialized for fp32 pointers aligned to 16 bytes
# and n divisible by 16, and a block of 1024. It is compiled to PTX for sm_80 (the head of it is
# shown), then run on 98432 random elements, a ragged last block included,
# on the CPU emulator (the machine needs no GPU; `--device=cuda` runs it on
# one), and the first inputs and sums are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { echo; echo "== $*"; }
step "1/4 checking for LLVM/MLIR 22, Meson and Ninja (installed if missing)"
bash scripts/setup.sh
step "2/4 building tilec into build/ (about a minute the first time)"
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
echo "built build/tilec"
sig="*fp32:16, *fp32:16, *fp32:16, i32:16, 1024"
step "3/4 compiling add_kernel of examples/vector_add.py to PTX for sm_80"
set -x
./build/tilec compile examples/vector_add.py -k add_kernel -s "$sig" --emit=ptx -o build/vector_add.ptx
{ set +x; } 2>/dev/null
echo "build/vector_add.ptx: its target and its global loads and stores:"
grep -E "^\.(version|target)|ld\.global|st\.global" build/vector_add.ptx | head -6
step "4/4 running it on the CPU emulator: 98432 random elements, the last block ragged"
set -x
./build/tilec run examples/vector_add.py -k add_kernel -s "$sig" -g "cdiv(n_elements, BLOCK_SIZE)" \
  rand:fp32:98432 rand:fp32:98432 empty:fp32:98432 98432 --print x_ptr:4 --print y_ptr:4 --print out_ptr:4
