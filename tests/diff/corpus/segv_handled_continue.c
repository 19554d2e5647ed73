/* segv_handled_continue: a garbage collector's write barrier: a page is
 * protected, each write faults, the SIGSEGV handler unprotects it and
 * returns, 200 times, then 100 regions run: the program carries on as
 * without fold, and fold keeps recording after the first fault (regions
 * after the faults are in the trace; the run is not reported as a crash).
 *
 * diff: build={stub}
 * diff: expect-status=exit 0
 * diff: expect-stdout=^faults handled: 200$
 * diff: trace-check=--regions after=100
 * diff: summary-not=died of|did not end normally
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fold.h"
#include "common.h"

static char *page;
static long pagesz;
static volatile sig_atomic_t faults;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	char *a = si->si_addr;
	if (a >= page && a < page + pagesz) {
		faults++;
		mprotect(page, (size_t)pagesz, PROT_READ | PROT_WRITE);
		return;
	}
	signal(SIGSEGV, SIG_DFL);
}

int main(void)
{
	pagesz = sysconf(_SC_PAGESIZE);
	page = mmap(NULL, (size_t)pagesz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	for (int i = 0; i < 200; i++) {
		mprotect(page, (size_t)pagesz, PROT_READ);
		page[i] = (char)i;
		burn_ms(0.2);
	}
	uint32_t r = fold_region("after");
	for (int i = 0; i < 100; i++) {
		fold_enter(r);
		burn_ms(1);
		fold_exit(r);
	}
	printf("faults handled: %d\n", (int)faults);
	return 0;
}
