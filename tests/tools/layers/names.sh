#!/bin/sh
# names.sh LIBFOLD FOLD TRACE_LIB: no name is defined with two meanings in
# the two programs (docs/architecture.md, Names). The runtime (libfold.so)
# and the offline tool (fold) share only the trace layer (TRACE_LIB, linked
# into both); any other global function or variable defined in both is a
# collision a reader would trip over. File-local helpers (a static
# "resolve" in each program, the header-only util_nearest.h) are not names
# of the programs, and an unoptimised build keeps more of them.
lib=$1 exe=$2 trace=$3
defined() {
	nm --defined-only "$1" 2>/dev/null | awk '$2 ~ /^[TDBR]$/ {print $3}' |
		grep -v -e '\.' -e '^_' -e '^main$' -e '_tm_clones$' -e '^frame_dummy$' | sort -u
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
defined "$lib" >"$tmp/rt"
defined "$exe" >"$tmp/cli"
defined "$trace" >"$tmp/trace"
if [ ! -s "$tmp/rt" ] || [ ! -s "$tmp/cli" ] || [ ! -s "$tmp/trace" ]; then
	echo "FAIL: no symbols read (nm missing, or stripped binaries?)"
	exit 1
fi
comm -12 "$tmp/rt" "$tmp/cli" | comm -23 - "$tmp/trace" >"$tmp/both"
if [ -s "$tmp/both" ]; then
	echo "FAIL: defined in both libfold.so and fold, outside the shared trace layer:"
	sed 's/^/  /' "$tmp/both"
	exit 1
fi
echo "ok: $(wc -l <"$tmp/rt") runtime and $(wc -l <"$tmp/cli") fold names, none shared outside the trace layer ($(wc -l <"$tmp/trace") names)"
