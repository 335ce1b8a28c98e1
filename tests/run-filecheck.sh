#!/usr/bin/env bash
# Runs the "RUN:" lines of one test file, as lit would: %s is the file,
# %tilec the compiler, %examples the examples folder, %t a path in a temporary folder
# (removed at the end), FileCheck from LLVM 22.
set -u -o pipefail
tilec=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
filecheck=$2
test=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")  # absolute: RUN lines may change folder
examples=$(cd "$(dirname "$0")/../examples" && pwd)
# %ptxas_check: ptxas accepts the PTX on stdin (sm_80; %ptxas_check_sm89, %ptxas_check_sm90, %ptxas_check_sm90a: those), or the line is skipped without a toolkit
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
runs=$(sed -n 's/^[#/]*[ ]*RUN: //p' "$test")
if [ -z "$runs" ]; then
  echo "$test: no RUN: line"
  exit 1
fi
# %t: a path for a command's own files, in a temporary folder removed at the end
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
while IFS= read -r line; do
  cmd=${line//%tilec/$tilec}
  cmd=${cmd//%examples/$examples}
  cmd=${cmd//%t/$tmp/t}
  if [[ $cmd == *%ptxas_check* ]]; then
    [ -x "$ptxas" ] || continue
    cmd=${cmd//%ptxas_check_sm89/\"$ptxas\" -arch=sm_89 -o /dev/null -}
    cmd=${cmd//%ptxas_check_sm90a/\"$ptxas\" -arch=sm_90a -o /dev/null -}
    cmd=${cmd//%ptxas_check_sm90/\"$ptxas\" -arch=sm_90 -o /dev/null -}
    cmd=${cmd//%ptxas_check/\"$ptxas\" -arch=sm_80 -o /dev/null -}
  fi
  cmd=${cmd//FileCheck/$filecheck}
  cmd=${cmd//%s/$test}
  if ! bash -o pipefail -c "$cmd"; then
    echo "FAILED: $cmd"
    exit 1
  fi
done <<< "$runs"
