#!/usr/bin/env bash
# Usage: run-exports.sh NM LIBTILEC_SO INCLUDE_DIR
#
# libtilec.so exports its API and nothing else: the symbols it defines in
# its dynamic table are exactly the functions the public headers
# (INCLUDE_DIR/*.h) declare. A symbol exported but not declared leaks an
# internal function (or one of a linked archive's); a function declared
# but not exported lacks its TILEC_API mark.
set -euo pipefail
nm=$1 lib=$2 inc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$nm" -D --defined-only "$lib" | awk '{ sub(/@.*/, "", $NF); print $NF }' | sort -u > "$tmp/exported"

# The declared functions: with comments and preprocessor lines removed, each
# statement (up to a ';') that has a '(' and is not a typedef or a
# function pointer (a struct's member: "int (*f)(...)") declares the
# function named just before its first '('.
for h in "$inc"/*.h; do
  perl -0777 -pe 's{/\*.*?\*/}{ }gs; s{//[^\n]*}{}g; s{^\s*#[^\n]*}{}gm' "$h"
done | tr '\n' ' ' | tr ';' '\n' | grep '(' | grep -v '\btypedef\b' | grep -v -E '^[^(]*\([[:space:]]*\*' |
  sed -E 's/^([^(]*[^A-Za-z0-9_(])?([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\(.*/\2/' | sort -u > "$tmp/declared"

n=$(wc -l < "$tmp/declared")
if [ "$n" -lt 40 ]; then
  echo "only $n functions found in $inc/*.h: the header reader is broken" >&2
  exit 1
fi
status=0
if comm -23 "$tmp/exported" "$tmp/declared" | grep . > "$tmp/extra"; then
  echo "exported by $lib but declared in no public header:" >&2
  sed 's/^/  /' "$tmp/extra" >&2
  status=1
fi
if comm -13 "$tmp/exported" "$tmp/declared" | grep . > "$tmp/missing"; then
  echo "declared in $inc but not exported by $lib (is it marked TILEC_API?):" >&2
  sed 's/^/  /' "$tmp/missing" >&2
  status=1
fi
[ "$status" = 0 ] && echo "$n functions, each declared and exported"
exit "$status"
