#!/usr/bin/env bash
# install_test.sh BUILD_DIR SOURCE_DIR: `cmake --install` produces the
# documented layout, the installed tools find their data without any
# environment variable, and pkg-config builds a program against fold.h.
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
p="$tmp/prefix with space"
cmake --install "$build" --prefix "$p" >/dev/null
for f in bin/fold bin/foldrun lib/libfold.so include/fold.h lib/pkgconfig/fold.pc \
         share/man/man1/fold.1 share/man/man1/foldrun.1 share/man/man3/libfold.3; do
  [ -e "$p/$f" ] || fail "missing $f after install"
done
[ -d "$p/share/fold/models" ] || fail "missing share/fold/models"
# pkg-config against the installed tree (prefix without spaces: pkg-config
# does not quote them, as with every .pc file).
q="$tmp/prefix"
cmake --install "$build" --prefix "$q" >/dev/null
flags=$(PKG_CONFIG_PATH="$q/lib/pkgconfig" pkg-config --cflags --libs fold) || fail "pkg-config fold"
cat >"$tmp/app.c" <<'C'
#include <fold.h>
#include <stdio.h>
int main(void)
{
	uint32_t r = fold_region("step");
	fold_enter(r);
	fold_exit(r);
	puts(r ? "ok" : "zero id");
	return 0;
}
C
# shellcheck disable=SC2086
cc "$tmp/app.c" -o "$tmp/app" $flags || fail "compiling against pkg-config fold"
[ "$("$tmp/app")" = ok ] || fail "program linked with the stub does not run"
# The installed fold runs from anywhere without FOLD_HOME or similar.
grep -q '^fold ' <<<"$(cd / && env -u FOLD_HOME "$q/bin/fold" --version)" || fail "installed fold --version"
echo "PASS: install"
