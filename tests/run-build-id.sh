#!/usr/bin/env bash
# compile/build_id.c, the build's identity: the same sources give the same
# identity wherever they are; a byte changed in a source, in a header beside
# one, in a header of a -d folder, a header added there, or a -s text
# changed, gives another; headers elsewhere do not count. The header is not
# rewritten when the identity stays, and the depfile names every file and
# folder read. With TILEC and the build's header, tilec --version shows the
# identity the build computed.
# Usage: run-build-id.sh BUILD_ID [TILEC BUILD_ID_H]
set -eu
tool=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")  # absolute: it runs in the trees below
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "run-build-id: $*"
  exit 1
}

# id TREE [TEXT]: the identity of TREE's sources, with TEXT as the toolchain
id() {
  (cd "$1" && "$tool" out.h out.d -s "${2:-llvm 22}" -d inc lib/a.c lib/b.c other/c.irdl) || fail "build_id failed in $1"
  sed -n 's/^#define TILEC_BUILD_ID "\([0-9a-f]*\)"$/\1/p' "$1/out.h"
}

mkdir -p "$tmp/one/lib" "$tmp/one/inc" "$tmp/one/other" "$tmp/one/elsewhere"
printf 'int a(void) { return 1; }\n' >"$tmp/one/lib/a.c"
printf 'int b(void) { return 2; }\n' >"$tmp/one/lib/b.c"
printf '#define LIB 1\n' >"$tmp/one/lib/lib.h"
printf 'int api(void);\n' >"$tmp/one/inc/api.h"
printf 'irdl\n' >"$tmp/one/other/c.irdl"
printf 'unrelated\n' >"$tmp/one/elsewhere/x.h"
base=$(id "$tmp/one")
[[ $base =~ ^[0-9a-f]{64}$ ]] || fail "no identity in out.h: $(cat "$tmp/one/out.h")"
[ "$(id "$tmp/one")" = "$base" ] || fail "the same sources give another identity"
cp -r "$tmp/one" "$tmp/two"
[ "$(id "$tmp/two")" = "$base" ] || fail "the same sources in another folder give another identity"

# each change gives its own identity, and undoing it gives the first back
seen="$base"
change() { # what, then the commands that make and undo the change
  local what=$1 make=$2 undo=$3 got
  (cd "$tmp/two" && eval "$make")
  got=$(id "$tmp/two" "${text:-}")
  [ "$got" != "$base" ] || fail "$what does not change the identity"
  grep -q "$got" <<<"$seen" && fail "$what gives an identity seen before"
  seen="$seen $got"
  (cd "$tmp/two" && eval "$undo")
  [ "$(id "$tmp/two")" = "$base" ] || fail "undoing $what does not give the first identity back"
}
change "a byte of a source" "sed -i 's/1/3/' lib/a.c" "sed -i 's/3/1/' lib/a.c"
change "a header beside a source" "sed -i 's/1/2/' lib/lib.h" "sed -i 's/2/1/' lib/lib.h"
change "a header added beside a source" "echo '#define NEW 1' >lib/new.h" "rm lib/new.h"
change "a header of a -d folder" "sed -i 's/api/apj/' inc/api.h" "sed -i 's/apj/api/' inc/api.h"
change "a file without a header beside it" "echo x >>other/c.irdl" "sed -i '\$d' other/c.irdl"
change "two sources swapped" "cp lib/a.c t && cp lib/b.c lib/a.c && cp t lib/b.c && rm t" \
  "cp lib/a.c t && cp lib/b.c lib/a.c && cp t lib/b.c && rm t"
text="llvm 23" change "the toolchain's text" ":" ":"
text=""

# what no source includes from here does not count
echo 'changed' >"$tmp/two/elsewhere/x.h"
echo 'int c;' >"$tmp/two/elsewhere/y.c"
[ "$(id "$tmp/two")" = "$base" ] || fail "a header in an unrelated folder changes the identity"

# an unchanged identity leaves out.h as it was, for the build to skip what includes it
before=$(stat -c %y "$tmp/two/out.h")
sleep 0.05
id "$tmp/two" >/dev/null
[ "$(stat -c %y "$tmp/two/out.h")" = "$before" ] || fail "out.h was rewritten with the same identity"

# the depfile: out.h, then every file hashed and every folder searched
d=$(tr -d '\\\n' <"$tmp/two/out.d")
[[ $d == out.h:* ]] || fail "the depfile does not start with out.h: $d"
for f in lib/a.c lib/b.c lib/lib.h lib inc inc/api.h other/c.irdl other; do
  grep -qw -- "$f" <<<"${d#out.h:}" || fail "the depfile does not list $f: $d"
done
grep -q elsewhere <<<"$d" && fail "the depfile lists a folder no source is in: $d"

if [ $# -ge 3 ]; then
  own=$(sed -n 's/^#define TILEC_BUILD_ID "\([0-9a-f]\{64\}\)"$/\1/p' "$3")
  [ -n "$own" ] || fail "no identity in $3"
  "$2" --version | grep -qx "build $own" || fail "tilec --version does not show build $own: $("$2" --version)"
fi
echo "run-build-id: ok"
