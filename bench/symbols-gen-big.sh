#!/bin/sh
# symbols-gen-big.sh DIR [N]: builds DIR/big, a C++ program of N translation
# units (default 64) compiled with g++ -g -O2, whose DWARF is ~100 MB: the
# "large debug file" for bench/symbols-bench.sh. Each unit instantiates STL
# containers, <regex> and its own inlined helpers, as real C++ code does, so
# the DWARF is mostly types, with a realistic share of functions, inline
# scopes and line rows. Takes a few minutes on 2 cores.
set -eu
dir=${1:?usage: $0 DIR [N]}
n=${2:-64}
mkdir -p "$dir"
cat > "$dir/tu.cpp" <<'CPP'
#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>
namespace NS {
struct Cell { double v; int k; };
static inline int helper(int x) { return x * 3 + 1; }
template <typename K, typename V> __attribute__((noinline)) V fold_map(const std::map<K, V> &m)
{
	V s{};
	for (auto &kv : m)
		s = s + kv.second;
	return s;
}
__attribute__((noinline)) int work(int n)
{
	std::map<int, int> m;
	std::unordered_map<std::string, double> u;
	std::vector<std::string> v;
	std::vector<Cell> cells;
	for (int i = 0; i < n; i++) {
		m[i] = helper(i);
		u[std::to_string(i)] = i * 0.5;
		v.push_back(std::to_string(i));
		cells.push_back(Cell{i * 1.5, i});
	}
	std::sort(v.begin(), v.end());
	std::sort(cells.begin(), cells.end(), [](const Cell &a, const Cell &b) { return a.v > b.v; });
	std::regex re("[0-9]+");
	int c = 0;
	for (auto &s : v)
		c += std::regex_match(s, re);
	std::ostringstream os;
	os << c << fold_map(m) << cells.front().k;
	return (int)os.str().size() + (int)u.size();
}
} // namespace NS
CPP
main="$dir/main.cpp"
echo "#include <cstdio>" > "$main"
i=0
while [ $i -lt "$n" ]; do
	echo "namespace tu$i { int work(int); }" >> "$main"
	i=$((i + 1))
done
echo "int main(int argc, char **) { int s = 0;" >> "$main"
i=0
while [ $i -lt "$n" ]; do
	echo "s += tu$i::work(argc);" >> "$main"
	i=$((i + 1))
done
printf '%s\n' 'std::printf("%d\n", s); return 0; }' >> "$main"
seq 0 $((n - 1)) | xargs -P 2 -I{} g++ -g -O2 -DNS=tu{} -c "$dir/tu.cpp" -o "$dir/tu{}.o"
g++ -g -O2 -c "$main" -o "$dir/main.o"
g++ -o "$dir/big" "$dir"/tu*.o "$dir/main.o"
rm -f "$dir"/tu*.o "$dir/main.o"
ls -l "$dir/big"
size -A "$dir/big" | awk '/^\.debug/ { s += $2 } END { printf "DWARF sections: %.1f MB\n", s / 1e6 }'
