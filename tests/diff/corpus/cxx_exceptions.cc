// cxx_exceptions: C++ exceptions thrown through -finstrument-functions
// instrumented frames (up to 40 deep) and caught at several levels, 600
// times: the program's results are unchanged and the exact profile stays
// consistent (the hooks' exits are skipped by the unwinder).
//
// diff: build=-finstrument-functions
// diff: expect-status=exit 0
// diff: check=[ $MODE = plain ] || python3 {tools}/profile_check.py $FOLD $TRACE --calls main=1
#include <cstdio>
#include <stdexcept>
#include <string>

static int depth_thrown;

__attribute__((noinline)) static int dive(int depth, int limit)
{
	if (depth == limit)
		throw std::runtime_error("at " + std::to_string(depth));
	return dive(depth + 1, limit) + 1;
}

__attribute__((noinline)) static int catcher(int limit)
{
	try {
		return dive(0, limit);
	} catch (const std::runtime_error &e) {
		depth_thrown += limit;
		if (limit % 10 == 0)
			throw;
		return -1;
	}
}

int main()
{
	int caught = 0, rethrown = 0;
	for (int i = 0; i < 600; i++) {
		try {
			if (catcher(i % 40) < 0)
				caught++;
		} catch (const std::exception &) {
			rethrown++;
		}
	}
	std::printf("caught %d, rethrown %d, depth %d\n", caught, rethrown, depth_thrown);
	return 0;
}
