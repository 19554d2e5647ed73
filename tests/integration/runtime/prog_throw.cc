// prog_throw.cc: a C++ program that throws and catches, built with
// -static-libgcc (its own unwinder). fold must not replace the unwinder the
// program's exceptions use (libunwind's _Unwind_* must stay private).
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

__attribute__((noinline)) static int depth(int n)
{
	if (n == 0)
		throw std::runtime_error("bottom");
	return depth(n - 1) + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? std::atol(argv[1]) : 20000, caught = 0, depth_sum = 0;
	for (long i = 0; i < n; i++) {
		try {
			depth_sum += depth((int)(i % 40));
		} catch (const std::runtime_error &e) {
			caught += e.what()[0] == 'b';
		}
	}
	std::printf("caught %ld of %ld (%ld)\n", caught, n, depth_sum);
	return caught == n ? 0 : 1;
}
