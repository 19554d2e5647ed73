#!/bin/sh
# symbols-bench.sh [object] [-n N]: builds bench/symbols-bench from the symbolisation
# sources (no CMake target needed) and runs it. Without an object it uses libc
# (its DWARF comes from libc6-dbg's build-id file if installed).
# Reproduce the docs/performance.md figures:
#   bench/symbols-bench.sh                       # libc
#   bench/symbols-gen-big.sh /tmp/symbig && bench/symbols-bench.sh /tmp/symbig/big
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../src
out=${TMPDIR:-/tmp}/fold-symbols-bench
gcc -std=gnu11 -O2 -g -Wall -Wextra -I"$src/fold/symbols" -I"$src/trace" -I"$src/util" \
	"$here/symbols-bench.c" "$src/fold/symbols/symbols.c" "$src/fold/symbols/symbols_elf.c" "$src/fold/symbols/symbols_dwarf.c" \
	"$src/trace/trace_reader.c" "$src/trace/trace_chunk.c" "$src/trace/trace_encode.c" \
	-ldwarf -lelf -lz -ldl -lpthread -o "$out"
echo "command: $0 $*"
n=1000000
obj=
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift 2 ;;
	*) obj=$1; shift ;;
	esac
done
exec "$out" -n "$n" $obj
