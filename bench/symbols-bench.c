/* symbols-bench.c: symbolisation speed: indexing one object's debug info, then
 * unique-address lookups per second and cached lookups per second.
 *
 * Usage: symbols-bench [-n N] object   (default object: this system's libc)
 * Addresses are N distinct pseudo-random bytes of the object's executable
 * segments (mapped at a load bias of 0x7f0000000000), looked up once each
 * (each a cache miss), then all again (cache hits). Built and run by
 * bench/symbols-bench.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbols.h"
#include "symbols_internal.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process: on a shared VM the wall clock also measures the neighbours. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void diag_print(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "symbols-bench: %s\n", msg);
}

int main(int argc, char **argv)
{
	size_t n = 1000000;
	int opt;
	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt == 'n')
			n = strtoull(optarg, NULL, 10);
		else {
			fprintf(stderr, "usage: %s [-n lookups] [object]\n", argv[0]);
			return 2;
		}
	}
	const char *object = optind < argc ? argv[optind] : "/lib/x86_64-linux-gnu/libc.so.6";
	const uint64_t bias = 0x7f0000000000ull;
	sym_elf_facts facts;
	if (symbols__elf_facts(object, &facts) < 0) {
		fprintf(stderr, "symbols-bench: %s: not a readable ELF file\n", object);
		return 1;
	}
	symtab *s;
	if (symbols__new(&s, diag_print, NULL) < 0)
		return 1;
	symbols__add_module(s, 0,
	                    &(symbols__module){1, object, facts.build_id, facts.build_id_len, bias,
	                                       facts.loads, facts.nloads});

	double t0 = now(), c0 = cpu_now();
	symtab_module_info info;
	if (symbols__module_info_get(s, 0, 1, &info) < 0)
		return 1;
	double t_index = now() - t0, c_index = cpu_now() - c0;
	struct stat st;
	double mb = info.file_used && stat(info.file_used, &st) == 0 ? (double)st.st_size / 1e6 : 0;

	/* Distinct addresses spread over the executable segments. */
	uint64_t text = 0;
	for (unsigned i = 0; i < facts.nloads; i++)
		if (facts.loads[i].prot & 1)
			text += facts.loads[i].memsz;
	if (text == 0)
		return 1;
	if (n > text)
		n = text;
	uint64_t *addrs = malloc(n * sizeof *addrs);
	if (!addrs)
		return 1;
	uint64_t step = text / n, x = 88172645463325252ull;
	for (size_t k = 0; k < n; k++) {
		uint64_t off = k * step; /* distinct by construction */
		for (unsigned i = 0; i < facts.nloads; i++) {
			if (!(facts.loads[i].prot & 1))
				continue;
			if (off < facts.loads[i].memsz) {
				addrs[k] = bias + facts.loads[i].vaddr + off;
				break;
			}
			off -= facts.loads[i].memsz;
		}
	}
	for (size_t k = n; k > 1; k--) { /* shuffle: samples do not arrive sorted */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t j = x % k;
		uint64_t tmp = addrs[k - 1];
		addrs[k - 1] = addrs[j];
		addrs[j] = tmp;
	}
	size_t with_line = 0, inlined = 0;
	t0 = now();
	c0 = cpu_now();
	for (size_t k = 0; k < n; k++) {
		const symtab_result *r;
		symbols__lookup(s, 0, addrs[k], 0, &r);
		with_line += r && r->frames[0].line != 0;
		inlined += r && r->nframes > 1;
	}
	double t_unique = now() - t0, c_unique = cpu_now() - c0;
	t0 = now();
	c0 = cpu_now();
	for (size_t k = 0; k < n; k++) {
		const symtab_result *r;
		symbols__lookup(s, 0, addrs[k], 0, &r);
	}
	double t_cached = now() - t0, c_cached = cpu_now() - c0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);

	printf("object        %s\n", object);
	printf("debug file    %s (%.1f MB on disk)\n", info.file_used ? info.file_used : "(none)", mb);
	printf("index         %.3f s wall, %.3f s CPU: %zu functions, %zu line rows, %zu inlined scopes\n",
	       t_index, c_index, info.nfunctions, info.nlines, info.ninlines);
	printf(
	    "unique        %zu lookups: %.2f M/s wall, %.2f M/s CPU (%.0f%% with a line, %.0f%% inlined)\n",
	    n, (double)n / t_unique / 1e6, (double)n / c_unique / 1e6, 100.0 * (double)with_line / (double)n,
	    100.0 * (double)inlined / (double)n);
	printf("cached        %zu lookups: %.2f M/s wall, %.2f M/s CPU\n", n, (double)n / t_cached / 1e6,
	       (double)n / c_cached / 1e6);
	printf("peak RSS      %.0f MB\n", (double)ru.ru_maxrss / 1024.0);
	free(addrs);
	symbols__free(s);
	return 0;
}
