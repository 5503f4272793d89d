#!/usr/bin/env bash
# Installs the Debian 12 packages damas builds, tests and runs with, if any is missing.
# Idempotent: does nothing (and needs no network) when everything is already there.
# usage: scripts/install-deps.sh [fuzz]   (fuzz: also clang with libFuzzer, for make fuzz)
set -euo pipefail

packages=(
  build-essential pkg-config
  libcriterion-dev
  libhdf5-dev hdf5-tools hdf5-filter-plugin
  liblz4-dev lz4 xz-utils gnuplot-nox
  openmpi-bin libopenmpi-dev
  python3 python3-h5py python3-hdf5plugin
  libmicrohttpd-dev chromium
)
[ "${1:-}" = fuzz ] && packages+=(clang libclang-rt-14-dev libomp-14-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "error: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
