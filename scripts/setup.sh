#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build and test tilec.
# Idempotent, and silent when everything is already present.
set -euo pipefail

pkgs=(llvm-22-dev libmlir-22-dev mlir-22-tools meson ninja-build gcc g++ pkg-config)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
if ! apt-cache policy llvm-22-dev 2>/dev/null | grep -q 'Candidate: [0-9]'; then
  # LLVM 22 is not in this machine's sources yet: add apt.llvm.org for bookworm.
  $sudo apt-get update -q >/dev/null
  $sudo apt-get install -y -q wget gnupg ca-certificates >/dev/null
  wget -qO- https://apt.llvm.org/llvm-snapshot.gpg.key | $sudo tee /etc/apt/trusted.gpg.d/apt.llvm.org.asc >/dev/null
  echo "deb http://apt.llvm.org/bookworm/ llvm-toolchain-bookworm-22 main" |
    $sudo tee /etc/apt/sources.list.d/llvm-22.list >/dev/null
fi
$sudo apt-get update -q >/dev/null
$sudo apt-get install -y -q "${missing[@]}" >/dev/null
