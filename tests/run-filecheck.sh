#!/usr/bin/env bash
# Runs the "RUN:" lines of one test file, as lit would: %s is the file,
# %tilec the compiler, %examples the examples folder, FileCheck from LLVM 22.
set -u -o pipefail
tilec=$1
filecheck=$2
test=$3
examples=$(cd "$(dirname "$0")/../examples" && pwd)
runs=$(sed -n 's/^[#/]*[ ]*RUN: //p' "$test")
if [ -z "$runs" ]; then
  echo "$test: no RUN: line"
  exit 1
fi
while IFS= read -r line; do
  cmd=${line//%tilec/$tilec}
  cmd=${cmd//%examples/$examples}
  cmd=${cmd//FileCheck/$filecheck}
  cmd=${cmd//%s/$test}
  if ! bash -o pipefail -c "$cmd"; then
    echo "FAILED: $cmd"
    exit 1
  fi
done <<< "$runs"
