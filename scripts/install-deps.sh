#!/usr/bin/env bash
# Installs every Debian package fold's build, examples and tests need.
# Idempotent and non-interactive: packages already present are skipped, and
# apt-get is only called when something is missing.
#
# Usage: scripts/install-deps.sh [--build-only]
#   --build-only  exactly what building fold and running the demo need
#                 (compilers for the C and Fortran APIs, the libraries fold
#                 links, MPI headers for the PMPI wrappers); without it, also
#                 what the tests and benchmarks need.
set -euo pipefail

# libdw1 is not linked: libfold.so loads it with dlopen for FOLD_FILTER's
# file rules, so nothing at build time says it is missing.
build_pkgs=(
  build-essential gcc gfortran cmake pkg-config
  libunwind-dev libpapi-dev libdwarf-dev libelf-dev libdw1
  libgsl-dev libopenblas-dev zlib1g-dev libzstd-dev
  openmpi-bin libopenmpi-dev
)
# g++ and clang build the symbol tests' C++ and clang programs and the fuzz
# targets; stress-ng loads the machine for the load-robustness check; gdb,
# strace and valgrind run programs of the differential corpus (tests/diff)
# under them.
test_pkgs=(
  g++ clang libcmocka-dev libclang-rt-14-dev valgrind gdb strace python3 git
  chromium protobuf-compiler hyperfine papi-tools stress-ng
)

pkgs=("${build_pkgs[@]}")
if [ "${1:-}" != "--build-only" ]; then
  pkgs+=("${test_pkgs[@]}")
fi

missing=()
for p in "${pkgs[@]}"; do
  if ! grep -q 'install ok installed' <<<"$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
