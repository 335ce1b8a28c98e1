#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build and test tilec:
# LLVM/MLIR 22, Meson, Ninja and a C compiler, from the distribution's own
# package sources; with CI=true also clang 14 and its libFuzzer runtime, for
# the fuzzing run of scripts/test.sh, Python 3, pip and valgrind, for
# bench/compare (pip fetches a pinned nvdisasm; valgrind counts compile
# instructions), venv, for the frameworks suite (NumPy in a virtual
# environment of its own), and PLplot with its cairo driver, which `tilec
# bench --plot` opens at run time and the bench test draws with. Idempotent, and silent
# when everything is already present.
set -euo pipefail

pkgs=(llvm-22-dev libmlir-22-dev mlir-22-tools meson ninja-build gcc g++ pkg-config)
[ "${CI:-}" = "true" ] && pkgs+=(clang-14 libclang-rt-14-dev python3 python3-pip python3-venv valgrind libplplot17 plplot-driver-cairo)
missing=()
for p in "${pkgs[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

say() { echo "setup: $*"; }
cannot() {
  say "$*"
  say "tilec needs these Debian packages: ${pkgs[*]}"
  say "install them (LLVM/MLIR 22 are in bookworm-security, or at https://apt.llvm.org for older sources) and run this again"
  exit 1
}

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || cannot "not root and no sudo: cannot install ${missing[*]}"
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive

# A fresh machine has empty package lists: read them before asking anything of them.
say "missing ${missing[*]}"
say "updating the package lists (apt-get update)"
$sudo apt-get update -q >/dev/null || cannot "apt-get update failed"

# Every missing package must have a candidate in the sources this machine has.
no_candidate=()
for p in "${missing[@]}"; do
  policy=$(apt-cache policy "$p" 2>/dev/null || true)
  case "$policy" in
    *"Candidate: (none)"* | "") no_candidate+=("$p") ;;
    *"Candidate: "*) ;;
    *) no_candidate+=("$p") ;;
  esac
done
[ ${#no_candidate[@]} -eq 0 ] || cannot "no package source of this machine offers ${no_candidate[*]}"

say "installing ${missing[*]} (a few minutes on a fresh machine)"
$sudo apt-get install -y -q "${missing[@]}" >/dev/null ||
  cannot "apt-get install ${missing[*]} failed"
say "done"
