#!/usr/bin/env bash
# The ptx suite: kernels the GPU code generator handles compile to PTX that
# ptxas accepts for sm_80 and sm_90a, with no spills and no stack frame, and
# the same input gives byte-identical PTX. Skips (77) without ptxas.
set -u
tilec=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ptxas=$2
[ -x "$ptxas" ] || { echo "no ptxas at $ptxas: skipped"; exit 77; }
cd "$(dirname "$0")/../examples" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# kernel file, then tilec arguments
kernels=(
  "vector_add.py|-k add_kernel -s '*fp32:16, *fp32:16, *fp32:16, i32:16, 1024'"
  "vector_add.py|-k add_kernel -s '*fp16, *fp16, *fp16, i32, 256' -w 2"
  "static_range.py|-k poly_kernel -s '*fp32:16, *fp32:16, *fp32:16, i32, 4, 1024'"
  "static_range.py|-k window_sum_kernel -s '*fp32:16, *fp32:16, i32, 8, 512'"
  "block_ptr.py|-k row_sum_kernel -s '*fp32:16, *fp32:16, i32, i32, i32, i32, 64, 128'"
  "block_ptr.py|-k scale_copy_kernel -s '*fp32:16, *fp16:16, i32, i32, i32, i32, i32, i32, fp32, 32, 64'"
  "dropout.py|-k dropout_kernel -s '*fp32:16, *fp32:16, i32, fp32, i32, 1024'"
  "softmax.py|-k softmax_kernel -s '*fp32:16, *fp32:16, i32, i32, i32, i32, 1024'"
  "layer_norm.py|-k layer_norm_fwd_kernel -s '*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, fp32, 1024'"
  "layer_norm.py|-k layer_norm_fwd_kernel -s '*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, fp32, 8192'"
  "layer_norm.py|-k layer_norm_bwd_dx_kernel -s '*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *i32:16, *i32:16, i32, i32, 64, 1024'"
  "layer_norm.py|-k layer_norm_bwd_dwdb_kernel -s '*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, 32, 128'"
  "reduce_combine.py|-k row_absmax_kernel -s '*fp32:16, *fp32:16, *i32:16, i32, i32, 1024'"
  "reduce_combine.py|-k row_argmax_kernel -s '*fp32:16, *fp32:16, *i32:16, i32, i32, 1024'"
  "reduce_combine.py|-k linear_recurrence_kernel -s '*fp32:16, *fp32:16, *fp32:16, i32, i32, 1024'"
  "matmul.py|-k matmul_kernel -s '*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 32, 32, 16, 8, \"leaky_relu\"'"
  # tensor-core tiles, M, N and K divisible by 16 as Triton specializes them: wgmma.mma_async
  # on sm_90a, fp16 and fp8 operands copied by cp.async, tf32
  "matmul.py|-k matmul_kernel -s '*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 128, 32, 8, \"\"' -w 4 --num-stages 4"
  "matmul.py|-k matmul_kernel -s '*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 64, 128, 32, 8, \"\"' -w 4 --num-stages 4"
  "matmul.py|-k matmul_kernel -s '*fp8e5:16, *fp8e5:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:1, i32:16, i32:16, i32:1, 128, 256, 128, 8, \"\"' -w 8 --num-stages 3"
  "matmul.py|-k matmul_kernel -s '*fp32:16, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 64, 64, 32, 8, \"\"' -w 4 --num-stages 3"
)
for entry in "${kernels[@]}"; do
  file=${entry%%|*}
  args=${entry#*|}
  for arch in sm_80 sm_90a; do
    if ! eval "\"$tilec\" compile $file $args --arch=$arch --emit=ptx --verify-each -o \"$tmp/k.ptx\""; then
      echo "FAILED: tilec compile $file $args --arch=$arch --emit=ptx"
      fail=1
      continue
    fi
    if ! info=$("$ptxas" -arch="$arch" -v "$tmp/k.ptx" -o "$tmp/k.cubin" 2>&1); then
      echo "FAILED: ptxas -arch=$arch -v on the PTX of $file $args"
      echo "$info"
      fail=1
      continue
    fi
    if ! grep -q "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" <<< "$info"; then
      echo "SPILLS: $file $args ($arch):"
      echo "$info"
      fail=1
    fi
    eval "\"$tilec\" compile $file $args --arch=$arch --emit=ptx -o \"$tmp/again.ptx\""
    if ! cmp -s "$tmp/k.ptx" "$tmp/again.ptx"; then
      echo "NOT DETERMINISTIC: $file $args ($arch)"
      fail=1
    fi
  done
done
# the metadata beside the PTX names the kernel and gives its shared memory,
# which is dynamic: ptxas counts no static shared memory
eval "\"$tilec\" compile softmax.py -k softmax_kernel -s '*fp32:16, *fp32:16, i32, i32, i32, i32, 1024' --emit=ptx -o \"$tmp/s.ptx\""
smem=$("$ptxas" -arch=sm_80 -v "$tmp/s.ptx" -o "$tmp/s.cubin" 2>&1 | sed -n 's/.*, \([0-9]*\) bytes smem.*/\1/p')
if ! grep -q '"name": "softmax_kernel"' "$tmp/s.ptx.json" || ! grep -Eq '"shared_bytes": [1-9][0-9]*,' "$tmp/s.ptx.json" ||
   ! grep -q '^.extern .shared .align 16 .b8 tilec_smem\[\];' "$tmp/s.ptx" || [ -n "$smem" ]; then
  echo "FAILED: dynamic shared memory, its size in the metadata (ptxas counts ${smem:-no} static bytes):"
  cat "$tmp/s.ptx.json"
  fail=1
fi
# past 48 KB: a 128x128 fp32 transpose through shared memory (66048 bytes)
for arch in sm_80 sm_90a; do
  if ! "$tilec" compile ../tests/filecheck/shared_memory.py -k two_transposes -s '*fp32:16, *fp32:16, 128, 128' -w 8 \
       --arch=$arch --emit=ptx -o "$tmp/t.ptx" || ! grep -q '"shared_bytes": 66048,' "$tmp/t.ptx.json" ||
     ! "$ptxas" -arch=$arch "$tmp/t.ptx" -o "$tmp/t.cubin"; then
    echo "FAILED: a kernel with 66048 bytes of shared memory ($arch)"
    fail=1
  fi
done

# a cubin, in process through nvJitLink: an ELF image holding the kernel
if eval "\"$tilec\" compile vector_add.py -k add_kernel -s '*fp32:16, *fp32:16, *fp32:16, i32:16, 1024' --emit=cubin -o \"$tmp/k.cubin\""; then
  if [ "$(head -c 4 "$tmp/k.cubin" | od -An -c | tr -d ' ')" != "177ELF" ] || ! grep -q add_kernel "$tmp/k.cubin"; then
    echo "FAILED: --emit=cubin did not give an ELF image with add_kernel"
    fail=1
  fi
else
  echo "FAILED: tilec compile vector_add.py --emit=cubin"
  fail=1
fi
exit $fail
