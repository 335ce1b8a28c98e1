#!/usr/bin/env bash
# tilec aot end to end, as a deployment would use it: generate launchers for
# examples/vector_add.py, compile them with a strict C11 compiler line that
# sees only cuda.h, link them against libcuda's stub, and check what the
# objects define and embed. Then:
#   build: run tests/aot/test_pick.c, the dispatchers' decisions, on the stub
#          (every driver call fails there; the decisions come before them);
#   gpu:   run examples/aot_vector_add.c on the real driver.
#   build: also run tests/aot/test_driver.c, a program that links without
#          libcuda, where no driver can be found (when none is installed)
#          and on the fake driver of the tests (FAKE_CUDA_DIR).
#   build: and with XLA_INCLUDE_DIR, the handlers of --xla-ffi (tests/aot/test_xla.c).
# Usage: run-aot.sh build|gpu TILEC CUDA_HOME SOURCE_ROOT [FAKE_CUDA_DIR [XLA_INCLUDE_DIR]]
# Exit 77 (skip) without the toolkit's cuda.h and stub, or, for gpu, without libcuda.so.1.
set -eu
mode=$1
tilec=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")  # absolute: the script works in the source tree
cuda=$3
root=$4
fake=${5:-}
stub=$cuda/lib64/stubs/libcuda.so
[ -f "$stub" ] || stub=$cuda/lib/stubs/libcuda.so
if [ ! -f "$cuda/include/cuda.h" ] || [ ! -f "$stub" ]; then
  echo "skip: no cuda.h or stub libcuda.so under $cuda"
  exit 77
fi
if [ "$mode" = gpu ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  echo "skip: no libcuda.so.1 (no NVIDIA driver)"
  exit 77
fi
cc=$(command -v gcc || command -v cc)
cflags=(-std=c11 -Wall -Wextra -Werror "-I$cuda/include")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"

fail() {
  echo "run-aot: $*"
  exit 1
}

# the launchers: vadd (two signatures and a grid, for two targets), vone
# (the aligned signature alone, the grid given at launch, PTX only), vgrid (a grid
# that calls every helper the generator can emit)
aligned="*fp32:16, *fp32:16, *fp32:16, i32:16, 1024"
"$tilec" aot examples/vector_add.py -k add_kernel -s "$aligned" -s "*fp32, *fp32, *fp32, i32, 1024" \
  -g "cdiv(n_elements, BLOCK_SIZE)" --arch sm_80,sm_90a -o "$tmp/vadd" 2>"$tmp/vadd.err" ||
  { cat "$tmp/vadd.err"; fail "tilec aot failed"; }
cat "$tmp/vadd.err"
"$tilec" aot examples/vector_add.py -s "$aligned" --ptx-only -o "$tmp/vone" 2>/dev/null || fail "tilec aot (vone) failed"
grep -q 'Targets: sm_80 (PTX)\.' "$tmp/vone.h" || fail "vone.h, built with --ptx-only, does not say it holds PTX only"
grep -q '_cubin' "$tmp/vone.c" && fail "vone.c, built with --ptx-only, embeds a cubin"
"$tilec" aot examples/vector_add.py -s "*fp32, *fp32, *fp32, i32, 1024" -o "$tmp/vgrid" 2>/dev/null \
  -g "max(cdiv(n_elements, BLOCK_SIZE), 1) * 2 - 1, (n_elements // 16) % 7 + 1 + min(BLOCK_SIZE / 512, 3) - 2, 65536 // -(-n_elements)" ||
  fail "tilec aot (vgrid) failed"

# a host tensor descriptor: on sm_90a its load is a TMA copy, and the launcher
# builds the tensor map (cuTensorMapEncodeTiled) from the base, shape and strides
"$tilec" aot tests/filecheck/ptx_lang.py -k desc_copy -s "tensordesc<fp32[16, 8]>, *fp32, i32, i32, i32, 16, 8" \
  -g "cdiv(M, BM) * cdiv(N, BN)" --arch sm_80,sm_90a -o "$tmp/vdesc" 2>/dev/null || fail "tilec aot (vdesc) failed"
grep -q 'static const int vdesc_s0_sm_90a_maps\[1\]\[10\] = {{0, 2, 7, 0, 0, 8, 16, 0, 0, 0}};' "$tmp/vdesc.c" ||
  fail "vdesc.c does not describe sm_90a's tensor map (base 0, rank 2, float32, zero fill, no swizzle, box 8 x 16)"
grep -q 'vdesc_s0_sm_80_maps' "$tmp/vdesc.c" && fail "vdesc.c gives sm_80, which copies no tensor, a tensor map"
grep -q 'cuTensorMapEncodeTiled' "$tmp/vdesc.c" || fail "vdesc.c does not build tensor maps"

for p in vadd vone vgrid vdesc; do
  "$cc" "${cflags[@]}" -c "$tmp/$p.c" -o "$tmp/$p.o" || fail "$p.c does not compile with ${cflags[*]}"
done
"$cc" "${cflags[@]}" -x c -fsyntax-only - <<<'#include "vadd.h"' -I"$tmp" || fail "vadd.h does not stand alone"

# what the object defines, and that the PTX it embeds is the kernel's
defined=$(nm "$tmp/vadd.o" | awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')
for f in vadd vadd_0 vadd_1 vadd_load vadd_load_log vadd_unload; do
  grep -qw -- "$f" <<<"$defined" || fail "vadd.o does not define $f (it defines: $defined)"
done
[ "$(wc -w <<<"$defined")" = 6 ] || fail "vadd.o defines more than its API: $defined"
# libc alone: the driver is opened when the launchers load (dlopen)
undefined=$(nm -u "$tmp/vadd.o" | awk '{ print $2 }' |
  grep -v -E '^(memcpy|memset|strlen|snprintf|dlopen|dlsym|dlerror|dlclose)$' || true)
[ -z "$undefined" ] || fail "vadd.o needs more than libc: $undefined"
n=$(grep -a -c '\.entry add_kernel' "$tmp/vadd.o" || true)
[ "$n" = 4 ] || fail "vadd.o embeds $n PTX images with '.entry add_kernel', expected 4 (2 signatures x 2 targets)"
if grep -q 'note: no cubin' "$tmp/vadd.err"; then
  grep -q 'sm_80 (PTX)' "$tmp/vadd.h" || fail "vadd.h does not say it holds PTX only"
else
  grep -q 'sm_80 (cubin and PTX), sm_90a (cubin and PTX)' "$tmp/vadd.h" || fail "vadd.h does not list its cubins"
fi

# the example links against the stub with -lcuda alone
"$cc" "${cflags[@]}" -I"$tmp" examples/aot_vector_add.c "$tmp/vadd.o" -L"$(dirname "$stub")" -lcuda \
  -o "$tmp/aot_vector_add" || fail "examples/aot_vector_add.c does not build"

if [ "$mode" = gpu ]; then
  "$tmp/aot_vector_add"
  exit
fi

# the dispatchers' decisions, on the stub (its soname is libcuda.so.1), which
# the launchers open: the program links without libcuda
"$cc" "${cflags[@]}" -I"$tmp" tests/aot/test_pick.c "$tmp/vadd.o" "$tmp/vone.o" "$tmp/vgrid.o" \
  -o "$tmp/test_pick" || fail "tests/aot/test_pick.c does not build"
mkdir "$tmp/stub"
ln -s "$stub" "$tmp/stub/libcuda.so.1"
LD_LIBRARY_PATH="$tmp/stub" "$tmp/test_pick"

# a program that links without libcuda: where no driver can be found it
# starts, and the launcher's load says why; on the fake driver it loads,
# launches each signature and unloads
"$cc" "${cflags[@]}" -I"$tmp" tests/aot/test_driver.c "$tmp/vadd.o" -o "$tmp/test_driver" ||
  fail "tests/aot/test_driver.c does not build"
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  echo "a libcuda.so.1 is installed: the case without a driver is not run"
else
  LD_LIBRARY_PATH= "$tmp/test_driver" missing "$tmp/trace" || fail "test_driver missing"
fi
[ -n "$fake" ] || fail "no fake driver given"
LD_LIBRARY_PATH="$fake" FAKE_CUDA_TRACE="$tmp/trace" "$tmp/test_driver" fake "$tmp/trace" || fail "test_driver fake"

# --xla-ffi: the handlers, against XLA's own header (XLA_INCLUDE_DIR, from
# jaxlib), called as XLA calls them, on the fake driver
xla=${6:-}
if [ -z "$xla" ] || [ ! -f "$xla/xla/ffi/api/c_api.h" ]; then
  echo "no xla/ffi/api/c_api.h (jaxlib's): --xla-ffi is not tested"
  exit 0
fi
"$tilec" aot examples/vector_add.py -k add_kernel -s "$aligned" -s "*fp32, *fp32, *fp32, i32, 1024" \
  -g "cdiv(n_elements, BLOCK_SIZE)" --xla-ffi -o "$tmp/vx" 2>/dev/null || fail "tilec aot --xla-ffi (vx) failed"
"$tilec" aot examples/vector_add.py -k add_kernel -s "*fp32, *fp32, *fp32, i32, 1024" --xla-ffi -o "$tmp/vy" \
  2>/dev/null || fail "tilec aot --xla-ffi (vy) failed"
for p in vx vy; do
  "$cc" "${cflags[@]}" -I"$xla" -c "$tmp/$p.c" -o "$tmp/$p.o" || fail "$p.c does not compile with ${cflags[*]} -I$xla"
done
grep -q 'void \*vx_xla_ffi_handler(void);' "$tmp/vx.h" || fail "vx.h does not declare vx_xla_ffi_handler"
"$cc" "${cflags[@]}" -I"$xla" -I"$tmp" tests/aot/test_xla.c "$tmp/vx.o" "$tmp/vy.o" -o "$tmp/test_xla" ||
  fail "tests/aot/test_xla.c does not build"
rm -f "$tmp/trace"
LD_LIBRARY_PATH="$fake" FAKE_CUDA_TRACE="$tmp/trace" "$tmp/test_xla" "$tmp/trace" || fail "test_xla"
# a parameter XLA cannot pass is refused
printf 'import triton\nimport triton.language as tl\n@triton.jit\ndef k(x, h):\n    pass\n' > "$tmp/h.py"
if "$tilec" aot "$tmp/h.py" -s "*fp32, fp16" --xla-ffi -o "$tmp/h" 2>"$tmp/h.err"; then
  fail "tilec aot --xla-ffi took an fp16 scalar"
fi
grep -q "h: --xla-ffi: XLA has no attribute or buffer of its type" "$tmp/h.err" || fail "fp16 scalar: $(cat "$tmp/h.err")"
