#!/bin/sh
# layers.sh BUILD_DIR PROBE...: builds each layer probe (tests/tools/layers/
# CMakeLists.txt) and checks the outcome: "ok" probes compile; "missing"
# probes fail because the wrong-way header is not on their include path.
# PROBE is "cmake_target|layer|header|ok|missing".
build=$1
shift
fail=0
for p in "$@"; do
	target=${p%%|*}; rest=${p#*|}
	layer=${rest%%|*}; rest=${rest#*|}
	header=${rest%%|*}; expect=${rest#*|}
	out=$(cmake --build "$build" --target "$target" 2>&1)
	rc=$?
	if [ "$expect" = ok ]; then
		if [ $rc -eq 0 ]; then
			echo "ok: $layer may include $header"
		else
			echo "FAIL: $layer should be able to include $header, but the probe did not compile:"
			echo "$out" | tail -5
			fail=1
		fi
	elif [ $rc -ne 0 ] && echo "$out" | grep -q "$header: No such file"; then
		echo "ok: $layer cannot include $header"
	elif [ $rc -eq 0 ]; then
		echo "FAIL: $layer includes $header and compiles: a wrong-way include (docs/architecture.md, Layers)"
		fail=1
	else
		echo "FAIL: the probe of $layer including $header failed for another reason:"
		echo "$out" | tail -5
		fail=1
	fi
done
exit $fail
