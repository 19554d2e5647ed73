// prog_stl.cc: C++ library code inlined into an instrumented program.
// Built with -finstrument-functions, so every inlined std::set helper calls
// the hooks; run with a filter that records nothing, they are fold's work
// that no record shows. Looks up N keys in a set of 1000.
#include <cstdio>
#include <cstdlib>
#include <set>

int main(int argc, char **argv)
{
	long n = argc > 1 ? std::atol(argv[1]) : 1000000;
	std::set<int> s;
	for (int i = 0; i < 1000; i++)
		s.insert(i * 7);
	long found = 0;
	for (long i = 0; i < n; i++)
		found += s.find((int)(i % 7000)) != s.end();
	std::printf("%ld\n", found);
	return 0;
}
