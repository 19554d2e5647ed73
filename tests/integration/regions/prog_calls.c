/* prog_calls.c: instrumented programs whose call counts and times are known.
 *
 * Built with -finstrument-functions; main itself is not instrumented, so the
 * profile holds exactly the functions below. Modes:
 *   counts N        outer() N times; each calls middle() 3 times, each of
 *                   those calls leaf() 7 times; tiny() (tens of ns) once
 *   recursive N     fib(N) (2*fib(N+1)-1 calls), is_even/is_odd(N) (N+1)
 *   filter          hot() 300000 times (throttled), skipped() 100 times
 *                   (FOLD_FILTER: excluded by name), lib_helper() 50 times
 *                   (excluded by file), kept() 10 times, small() 20 times
 *                   (excluded by FOLD_MIN_FUNC_BYTES)
 *   accuracy N      N rounds of outer_phase() { phase_a(); phase_b(); } each
 *                   timed by the program with CLOCK_MONOTONIC; prints
 *                   "own NAME inclusive_ns exclusive_ns" for each. One untimed
 *                   round of zero length first, called from main: the hooks'
 *                   one-time costs (start-up, the first decision about each
 *                   function) then fall outside every measured interval.
 *   stream N        N calls of stream_leaf() (~20 us of streaming three
 *                   arrays) and one first call, each timed with the TSC
 *                   right around it: prints "own stream_leaf TICKS ticks
 *                   CALLS calls TIMER timer" (TIMER: the timer's own cost
 *                   per interval, in ticks)
 *   return N        N pairs of calls of far_leaf(), which reads 64 MB (one
 *                   double per line), so its caller's code and page
 *                   translation are evicted when it returns: one from this
 *                   program's code, one through a trampoline made at run
 *                   time in an execute-only page (code the runtime must not
 *                   read); prints "ret elf TICK" and "ret jit TICK" per
 *                   call, the fenced TSC right after its return
 *   longjmp         deep() left by longjmp 5 times, then normal calls
 *   deep KIND       more nested calls than the runtime's shadow stack holds
 *                   (65536), on a thread of its own (64 MB of stack), under
 *                   deep_main(), which then calls leaf() 5 times. KIND:
 *                   longjmp: 3 times climb() 100000 deep, left by longjmp
 *                   from the deepest call back to deep_main(); mix: 3 times
 *                   lower() 30000 deep, then ledge(), which calls upper()
 *                   up to depth 100000, left by longjmp back to ledge(),
 *                   which returns; plain: 3 times plain_run(), which calls
 *                   plain() 100000 deep, every call returning (each does
 *                   a little work after its inner call returns)
 *   hooked N        skipped() N times in a row (FOLD_FILTER leaves it out:
 *                   its hooks still run, most of the loop's time)
 *   throttled N     busy() (2 us of work) N times, timed as a whole by the
 *                   program: prints "own busy total_ns calls"
 *   first           the first call of first_call() (200 us of work),
 *                   timed by the program: prints "own first_call ns"; the
 *                   runtime's decision about the function runs in its enter
 *                   hook, inside that timer. Before it 0.3 s of
 *                   uninstrumented work and one call of skipped(), which
 *                   starts the runtime and has the dynamic linker bind the
 *                   hooks.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#define NOINST __attribute__((no_instrument_function))
#define KEEP __attribute__((noinline, noclone))

volatile double sink;

KEEP static void leaf(int i)
{
	sink += i * 0.5;
}
KEEP static void middle(int i)
{
	for (int k = 0; k < 7; k++)
		leaf(i + k);
}
KEEP static void outer(int i)
{
	for (int k = 0; k < 3; k++)
		middle(i + k);
}
KEEP static void tiny(void)
{
	for (int k = 0; k < 20; k++)
		sink += k;
}

KEEP static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
KEEP static int is_odd(int n);
KEEP static int is_even(int n)
{
	return n == 0 ? 1 : is_odd(n - 1);
}
KEEP static int is_odd(int n)
{
	return n == 0 ? 0 : is_even(n - 1);
}

KEEP static void hot(int i)
{
	sink += i;
}
KEEP static void skipped(int i)
{
	sink -= i;
}
KEEP static void kept(void)
{
	for (int k = 0; k < 1000; k++)
		sink += k * 0.25;
}
KEEP int small(int x);
KEEP int small(int x)
{
	return x + 1;
}
void lib_helper(int i); /* prog_filter_lib.c */

/* Busy work of a given length on this thread's CPU clock, so each phase is
 * long enough that timing a call costs < 1e-6 of it. */
NOINST static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
NOINST static void spin(uint64_t ns)
{
	uint64_t end = now_ns() + ns;
	while (now_ns() < end)
		sink += 1;
}
static uint64_t own_a, own_b, own_outer;
static uint64_t scale = 1;
KEEP static void phase_a(void)
{
	spin(3000000 * scale);
}
KEEP static void phase_b(void)
{
	spin(1500000 * scale);
}
KEEP static void outer_phase(void)
{
	uint64_t t0 = now_ns();
	phase_a();
	uint64_t t1 = now_ns();
	phase_b();
	uint64_t t2 = now_ns();
	spin(500000 * scale); /* outer's own work */
	own_a += t1 - t0;
	own_b += t2 - t1;
}

KEEP static void busy(void)
{
	spin(2000);
}
KEEP static void first_call(void)
{
	spin(200000);
}

/* stream: a leaf that streams three arrays (a WAXPBY of ~20 us, as a
 * solver's vector kernels), so the runtime's data are out of the L1/L2
 * caches and the TLB when its exit hook runs; and a few us of the program's
 * own (uninstrumented) streaming before each call, so its enter hook runs
 * cold too. Timed with the TSC right around each call: a timer as tight as
 * the hooks' own clock. */
NOINST static inline uint64_t tsc(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#else
	return 0;
#endif
}
#define STREAM_N (1u << 20) /* doubles per array: 3 x 8 MB, beyond L2 */
#define STREAM_CHUNK 16384u /* doubles per call: ~20 us */
static double *sa, *sb, *sc;
static unsigned soff;
KEEP static void stream_leaf(double alpha)
{
	double *x = sa + soff, *y = sb + soff, *w = sc + soff;
	for (unsigned i = 0; i < STREAM_CHUNK; i++)
		w[i] = x[i] + alpha * y[i];
}
NOINST static void stream_between(void)
{
	unsigned o = (soff + STREAM_N / 2) % (STREAM_N - STREAM_CHUNK);
	for (unsigned i = 0; i < STREAM_CHUNK / 4; i++)
		sc[o + i] += sa[o + i];
}
/* The TSC timer's own cost in an interval (two reads, nothing between),
 * the median of 1001: the program's timer holds it on top of the call. */
NOINST static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}
NOINST static uint64_t tsc_timer_cost(void)
{
	static uint64_t d[1001];
	for (int i = 0; i < 1001; i++) {
		uint64_t t0 = tsc();
		d[i] = tsc() - t0;
	}
	qsort(d, 1001, sizeof *d, cmp_u64);
	return d[500];
}
NOINST static uint64_t stream_run(int n)
{
	sa = calloc(STREAM_N, sizeof *sa);
	sb = calloc(STREAM_N, sizeof *sb);
	sc = calloc(STREAM_N, sizeof *sc);
	if (!sa || !sb || !sc)
		exit(1);
	for (unsigned i = 0; i < STREAM_N; i++)
		sa[i] = sb[i] = sc[i] = i;
	skipped(0); /* the runtime's start-up, the dynamic linker's binding of the hooks */
	/* the first call, with the decision about the function, timed too */
	uint64_t own = tsc();
	stream_leaf(0);
	own = tsc() - own;
	for (int i = 0; i < n; i++) {
		soff = (soff + STREAM_CHUNK * 7) % (STREAM_N - STREAM_CHUNK);
		stream_between();
		uint64_t t0 = tsc();
		stream_leaf(0.5);
		own += tsc() - t0;
	}
	return own;
}

/* return: a leaf that evicts its caller's code (see the mode's comment) */
#define FAR_BYTES (64u << 20)
static double *far;
KEEP static void far_leaf(void)
{
	double x = 0;
	for (size_t i = 0; i < FAR_BYTES / sizeof *far; i += 8)
		x += far[i];
	sink += x;
}
/* uint64_t trampoline(void (*f)(void)): calls f, then returns the fenced
 * TSC right after f returned into it (x86-64) */
static const unsigned char trampoline_code[] = {
    0x53,                   /* push %rbx (aligns the stack for the call) */
    0xff, 0xd7,             /* call *%rdi */
    0x0f, 0xae, 0xe8,       /* lfence */
    0x0f, 0x31,             /* rdtsc */
    0x48, 0xc1, 0xe2, 0x20, /* shl $32, %rdx */
    0x48, 0x09, 0xd0,       /* or %rdx, %rax */
    0x5b,                   /* pop %rbx */
    0xc3,                   /* ret */
};
NOINST static void return_run(int n)
{
	far = malloc(FAR_BYTES);
	if (!far)
		exit(1);
	memset(far, 1, FAR_BYTES);
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		exit(1);
	memcpy(page, trampoline_code, sizeof trampoline_code);
	if (mprotect(page, 4096, PROT_EXEC)) {
		fprintf(stderr, "prog_calls: no executable page made at run time\n");
		exit(77);
	}
	uint64_t (*trampoline)(void (*)(void));
	memcpy(&trampoline, &page, sizeof page);
	static uint64_t elf[1000], jit[1000];
	if (n > 1000)
		n = 1000;
	for (int i = 0; i < n; i++) {
		far_leaf();
#if defined(__x86_64__)
		__builtin_ia32_lfence();
		elf[i] = __builtin_ia32_rdtsc();
#endif
		jit[i] = trampoline(far_leaf);
	}
	for (int i = 0; i < n; i++)
		printf("ret elf %llu\nret jit %llu\n", (unsigned long long)elf[i],
		       (unsigned long long)jit[i]);
}

static jmp_buf jb;
NOINST __attribute__((noinline)) static void escape(void)
{
	longjmp(jb, 1);
}
KEEP static void deep(int d)
{
	if (d < 0)
		return;
	if (d > 0)
		deep(d - 1);
	else
		escape();
	sink += d;
}

/* deep: DEEP_N nested calls, beyond the 65536 the runtime records */
#define DEEP_N 100000
#define DEEP_MID 30000
static jmp_buf deep_jb;
NOINST __attribute__((noinline)) static void deep_escape(void)
{
	longjmp(deep_jb, 1);
}
KEEP static void climb(long d)
{
	if (d < 0)
		return;
	if (d < DEEP_N)
		climb(d + 1);
	else
		deep_escape();
	sink += d;
}
KEEP static void upper(long d)
{
	if (d < 0)
		return;
	if (d < DEEP_N)
		upper(d + 1);
	else
		deep_escape();
	sink += d;
}
KEEP static void ledge(long d)
{
	if (!setjmp(deep_jb))
		upper(d + 1);
	sink += d;
}
KEEP static void lower(long d)
{
	if (d < DEEP_MID)
		lower(d + 1);
	else
		ledge(d + 1);
	sink += d;
}
KEEP static void plain(long d)
{
	if (d < DEEP_N)
		plain(d + 1);
	for (int k = 0; k < 50; k++)
		sink += k;
}
KEEP static void plain_run(void)
{
	plain(1);
}
KEEP static void deep_main(const char *kind)
{
	for (int r = 0; r < 3; r++) {
		if (!strcmp(kind, "longjmp")) {
			if (!setjmp(deep_jb))
				climb(1);
		} else if (!strcmp(kind, "mix")) {
			lower(1);
		} else {
			plain_run();
		}
	}
	for (int i = 0; i < 5; i++)
		leaf(i);
}
NOINST static void *deep_thread(void *kind)
{
	deep_main(kind);
	return NULL;
}
NOINST static int deep_run(const char *kind)
{
	pthread_attr_t attr;
	pthread_t t;
	if (pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, (size_t)64 << 20) ||
	    pthread_create(&t, &attr, deep_thread, (void *)kind) || pthread_join(t, NULL)) {
		fprintf(stderr, "prog_calls: cannot run a thread with a 64 MB stack\n");
		return 1;
	}
	return 0;
}

NOINST int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "counts";
	int n = argc > 2 ? atoi(argv[2]) : 100;
	if (!strcmp(mode, "counts")) {
		for (int i = 0; i < n; i++)
			outer(i);
		tiny();
	} else if (!strcmp(mode, "hooked")) {
		for (int i = 0; i < n; i++)
			skipped(i);
	} else if (!strcmp(mode, "recursive")) {
		printf("fib %ld even %d\n", fib(n), is_even(n));
	} else if (!strcmp(mode, "filter")) {
		for (int i = 0; i < 300000; i++)
			hot(i);
		for (int i = 0; i < 100; i++)
			skipped(i);
		for (int i = 0; i < 50; i++)
			lib_helper(i);
		for (int i = 0; i < 10; i++)
			kept();
		int x = 0;
		for (int i = 0; i < 20; i++)
			x = small(x);
		sink += x;
	} else if (!strcmp(mode, "accuracy")) {
		scale = 0;
		phase_a();
		phase_b();
		outer_phase();
		own_a = own_b = 0;
		scale = 1;
		for (int i = 0; i < n; i++) {
			uint64_t t0 = now_ns();
			outer_phase();
			own_outer += now_ns() - t0;
		}
		printf("own phase_a %llu %llu\n", (unsigned long long)own_a, (unsigned long long)own_a);
		printf("own phase_b %llu %llu\n", (unsigned long long)own_b, (unsigned long long)own_b);
		printf("own outer_phase %llu %llu\n", (unsigned long long)own_outer,
		       (unsigned long long)(own_outer - own_a - own_b));
	} else if (!strcmp(mode, "stream")) {
#if !defined(__x86_64__)
		fprintf(stderr, "prog_calls: stream needs the TSC (x86_64)\n");
		return 77;
#endif
		uint64_t own = stream_run(n);
		printf("own stream_leaf %llu ticks %d calls %llu timer\n", (unsigned long long)own, n + 1,
		       (unsigned long long)tsc_timer_cost());
	} else if (!strcmp(mode, "return")) {
#if !defined(__x86_64__)
		fprintf(stderr, "prog_calls: return needs the TSC (x86_64)\n");
		return 77;
#endif
		return_run(n);
	} else if (!strcmp(mode, "first")) {
		spin(300000000); /* not instrumented: long enough to measure the CPU share */
		skipped(0);      /* the runtime's start-up, the dynamic linker's binding of the hooks */
		uint64_t t0 = now_ns();
		first_call();
		printf("own first_call %llu\n", (unsigned long long)(now_ns() - t0));
	} else if (!strcmp(mode, "throttled")) {
		uint64_t t0 = now_ns();
		for (int i = 0; i < n; i++)
			busy();
		printf("own busy %llu %d\n", (unsigned long long)(now_ns() - t0), n);
	} else if (!strcmp(mode, "deep")) {
		return deep_run(argc > 2 ? argv[2] : "plain");
	} else if (!strcmp(mode, "longjmp")) {
		for (int i = 0; i < 5; i++)
			if (!setjmp(jb))
				deep(3);
		for (int i = 0; i < 4; i++)
			leaf(i);
	} else {
		fprintf(stderr, "prog_calls: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
