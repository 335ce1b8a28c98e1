#!/usr/bin/env bash
# A host program builds against the build tree through pkg-config's
# uninstalled file (tilec-uninstalled.pc): its Cflags find <tilec/tilec.h>
# and its Libs libtilec.so. Skipped without pkg-config or a C compiler.
#   run-pkgconfig.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
command -v pkg-config >/dev/null || { echo "SKIP: no pkg-config"; exit 77; }
cc=${CC:-cc}
command -v "$cc" >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
export PKG_CONFIG_PATH=$build/meson-uninstalled
flags=$(pkg-config --cflags --libs tilec) || { echo "FAILED: pkg-config knows no tilec in $PKG_CONFIG_PATH"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# shellcheck disable=SC2086 # flags are words
if ! "$cc" -std=c11 -o "$out/jit_host" "$src/examples/jit_host.c" $flags -lm 2>"$out/cc.log"; then
  cat "$out/cc.log"
  echo "FAILED: examples/jit_host.c does not build with: pkg-config --cflags --libs tilec (uninstalled): $flags"
  exit 1
fi
echo "ok: examples/jit_host.c builds with $flags"
