#!/bin/sh
# regions-hooks.sh BUILD_DIR: cost of the compiler hooks per event (enter or
# exit), from bench_regions_hooks (fib(27), 635621 calls, thread CPU time,
# best of 7), in four configurations.
#   sh bench/regions-hooks.sh build
set -eu
build=$(cd "${1:?usage: regions-hooks.sh BUILD_DIR}" && pwd)
bin=$build/bench/bench_regions_hooks
lib=$build/src/runtime/libfold.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
echo 'exclude function fib' >rules
export FOLD_QUIET=1
printf '%-44s' "no libfold (glibc's empty hooks):"; "$bin"
printf '%-44s' "libfold, recording (FOLD_THROTTLE=off):"; FOLD_THROTTLE=off LD_PRELOAD=$lib "$bin"
printf '%-44s' "libfold, throttled after 100000 calls:"; LD_PRELOAD=$lib "$bin"
printf '%-44s' "libfold, filtered (FOLD_FILTER):"; FOLD_FILTER=rules LD_PRELOAD=$lib "$bin"
