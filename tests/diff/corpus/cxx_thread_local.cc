// cxx_thread_local: C++ thread_local objects with destructors in std::threads
// and in main, static objects destroyed at exit, and a thread that ends
// through an exception caught at its top: the destructors run, in their
// order, as without fold.
//
// diff: build=-pthread
// diff: expect-status=exit 0
// diff: trace-check=--min-threads 3
#include <cstdio>
#include <stdexcept>
#include <thread>

struct Noisy {
	const char *name;
	explicit Noisy(const char *n) : name(n) {}
	~Noisy()
	{
		std::printf("destroy %s\n", name);
		std::fflush(stdout);
	}
};

static Noisy global("global");
thread_local Noisy per_thread("thread_local");

static volatile unsigned long sink;

static void busy(int ms)
{
	for (int i = 0; i < ms * 20000; i++)
		sink += i;
}

int main()
{
	std::thread a([] {
		(void)per_thread.name;
		busy(30);
	});
	a.join();
	std::thread b([] {
		try {
			(void)per_thread.name;
			busy(30);
			throw std::runtime_error("thread b");
		} catch (const std::exception &e) {
			std::printf("caught in thread: %s\n", e.what());
		}
	});
	b.join();
	(void)per_thread.name;
	std::printf("main done\n");
	return 0;
}
