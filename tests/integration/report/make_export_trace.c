/* make_export_trace: writes a small, fully known trace for the `fold export`
 * tests, and the numbers the exports must reproduce.
 *
 * usage: make_export_trace TRACE EXPECT [wall|cputime-rt|cputime|overflow|off]
 * The MODULE_LOAD record describes this very executable (its real load bias,
 * PT_LOAD segments and build-id), and sample frames are addresses of the
 * functions below, so the exports symbolise them to names a test can check.
 * Stream 1: 20 iterations of outer { inner { } } with 5 samples each (4 in
 * outer, 2 of them in inner, 1 outside). Stream 2: an outer entered and never
 * left, an exit without enter, 10 samples. EXPECT gets key=value lines.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_writer.h"

__attribute__((noinline)) void export_leaf_alpha(void);
__attribute__((noinline)) void export_leaf_beta(void);
__attribute__((noinline)) void export_middle(void);
__attribute__((noinline)) void export_top(void);
__attribute__((noinline)) void export_leaf_alpha(void)
{
	__asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop");
}
__attribute__((noinline)) void export_leaf_beta(void)
{
	__asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop");
}
__attribute__((noinline)) void export_middle(void)
{
	export_leaf_alpha();
	export_leaf_beta();
}
__attribute__((noinline)) void export_top(void)
{
	export_middle();
	export_middle();
}

typedef struct self_module {
	uint64_t bias;
	trace_segment segs[16];
	unsigned nseg;
	uint8_t build_id[64];
	size_t build_id_len;
} self_module;

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	self_module *m = arg;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0; /* the main program comes first, with an empty name */
	m->bias = info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && m->nseg < 16)
			m->segs[m->nseg++] = (trace_segment){ph->p_vaddr, ph->p_memsz, (uint8_t)ph->p_flags};
		if (ph->p_type == PT_NOTE) {
			const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
			while (p + sizeof(ElfW(Nhdr)) <= end) {
				const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
				const char *name = p + sizeof *nh, *desc = name + ((nh->n_namesz + 3) & ~3u);
				if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
				    !memcmp(name, "GNU", 4) && nh->n_descsz <= sizeof m->build_id) {
					memcpy(m->build_id, desc, nh->n_descsz);
					m->build_id_len = nh->n_descsz;
				}
				p = desc + ((nh->n_descsz + 3) & ~3u);
			}
		}
	}
	return 1;
}

#define CHECK(x)                                                                                             \
	do {                                                                                                 \
		int rc_ = (x);                                                                               \
		if (rc_) {                                                                                   \
			fprintf(stderr, "make_export_trace: %s failed: %d\n", #x, rc_);                      \
			return 1;                                                                            \
		}                                                                                            \
	} while (0)

#define PUT(stream, fn, ...)                                                                                 \
	do {                                                                                                 \
		int put_rc_;                                                                                 \
		TRACE_PUT(put_rc_, w, stream, fn, __VA_ARGS__);                                              \
		CHECK(put_rc_);                                                                              \
	} while (0)

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s TRACE EXPECT\n", argv[0]);
		return 2;
	}
	self_module self = {0};
	dl_iterate_phdr(find_self, &self);
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0 || !self.nseg) {
		fprintf(stderr, "make_export_trace: cannot describe this executable\n");
		return 1;
	}
	exe[n] = 0;

	/* Leaf frames are the function entries; callers are return addresses inside them. */
	const uint64_t alpha = (uint64_t)(uintptr_t)&export_leaf_alpha,
	               beta = (uint64_t)(uintptr_t)&export_leaf_beta;
	const uint64_t middle = (uint64_t)(uintptr_t)&export_middle + 4,
	               top = (uint64_t)(uintptr_t)&export_top + 4;
	const uint64_t stack_alpha[] = {alpha, middle, top}, stack_beta[] = {beta, middle, top};
	const uint64_t ms = 1000000, t0 = 5000000000ull;

	trace_writer *w;
	CHECK(trace_writer_open(&w, argv[1], 0, 6, 4096));
	char pid[32];
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	PUT(0, trace_enc_info, "fold.version", "test");
	PUT(0, trace_enc_info, "host", "testhost");
	PUT(0, trace_enc_info, "pid", pid);
	PUT(0, trace_enc_info, "exe", exe);
	PUT(0, trace_enc_info, "cmdline", "make_export_trace");
	PUT(0, trace_enc_info, "clock.source", "monotonic");
	PUT(0, trace_enc_info, "clock.tick_hz", "1000000000");
	/* The sampling as each FOLD_SAMPLE form records it (docs/configuration.md):
	 * wall (time@1ms, as hand-made traces say it: no event), cputime-rt
	 * (cputime@1ms as the runtime writes it), cputime (as fold-synth does),
	 * overflow (PAPI_TOT_CYC@2000000), off. */
	const char *mode = argc > 3 ? argv[3] : "wall";
	if (!strcmp(mode, "wall")) {
		PUT(0, trace_enc_info, "sample.source", "time");
		PUT(0, trace_enc_info, "sample.period", "1000000");
	} else if (!strcmp(mode, "cputime-rt") || !strcmp(mode, "cputime")) {
		PUT(0, trace_enc_info, "sample.source", strcmp(mode, "cputime") ? "time" : "cputime");
		PUT(0, trace_enc_info, "sample.event", "CLOCK_THREAD_CPUTIME_ID");
		PUT(0, trace_enc_info, "sample.period", "1000000");
	} else if (!strcmp(mode, "overflow")) {
		PUT(0, trace_enc_info, "sample.source", "papi");
		PUT(0, trace_enc_info, "sample.event", "PAPI_TOT_CYC");
		PUT(0, trace_enc_info, "sample.period", "2000000");
	} else if (!strcmp(mode, "off")) {
		PUT(0, trace_enc_info, "sample.source", "off");
	} else {
		fprintf(stderr, "make_export_trace: unknown sampling mode %s\n", mode);
		return 2;
	}
	PUT(0, trace_enc_info, "start.realtime_ns", "1700000000000000000");
	PUT(0, trace_enc_info, "start.monotonic_ns", "5000000000");
	PUT(0, trace_enc_clock, t0, t0, 1700000000000000000ull);
	PUT(0, trace_enc_region_def, 1, TRACE_REGION_API, 0, "outer<T>");
	PUT(0, trace_enc_region_def, 2, TRACE_REGION_API, 0, "inner");
	PUT(0, trace_enc_module_load, 1, t0, self.bias, self.build_id, self.build_id_len, exe, self.segs,
	    self.nseg);

	unsigned long total = 0, in_outer = 0, in_inner = 0, in_window = 0, in_window2 = 0;
	unsigned long alpha_samples = 0, beta_samples = 0;
	/* Window 2 starts inside an inner and ends inside an outer: regions are clipped. */
	const double from_s = 0.05, to_s = 0.1, from2_s = 0.053, to2_s = 0.0575;
	PUT(1, trace_enc_thread_start, 1001, 0, t0, "main");
	for (unsigned i = 0; i < 20; i++) {
		uint64_t base = t0 + i * 10 * ms;
		struct {
			uint64_t at;
			int alpha, outer, inner;
		} smp[] = {{1, 0, 1, 0}, {3, 1, 1, 1}, {5, 1, 1, 1}, {7, 0, 1, 0}, {9, 0, 0, 0}};
		PUT(1, trace_enc_enter, base, 1, NULL);
		for (unsigned k = 0; k < 5; k++) {
			if (k == 1)
				PUT(1, trace_enc_enter, base + 2 * ms, 2, NULL);
			if (k == 3)
				PUT(1, trace_enc_exit, base + 6 * ms, 2, NULL);
			if (k == 4)
				PUT(1, trace_enc_exit, base + 8 * ms, 1, NULL);
			uint64_t at = base + smp[k].at * ms;
			PUT(1, trace_enc_sample, at, smp[k].alpha ? stack_alpha : stack_beta, 3, 1000000,
			    NULL);
			double t = (double)(at - t0) / 1e9;
			total++;
			in_outer += (unsigned long)smp[k].outer;
			in_inner += (unsigned long)smp[k].inner;
			in_window += t >= from_s && t <= to_s;
			in_window2 += t >= from2_s && t <= to2_s;
			alpha_samples += (unsigned long)smp[k].alpha;
			beta_samples += (unsigned long)!smp[k].alpha;
		}
	}
	PUT(1, trace_enc_thread_end, t0 + 200 * ms);

	PUT(2, trace_enc_thread_start, 1002, 1, t0 + 1 * ms, "worker");
	PUT(2, trace_enc_exit, t0 + 2 * ms, 2, NULL);  /* exit without enter */
	PUT(2, trace_enc_enter, t0 + 3 * ms, 1, NULL); /* never left */
	for (unsigned k = 0; k < 10; k++) {
		uint64_t at = t0 + (4 + 10 * k) * ms;
		PUT(2, trace_enc_sample, at, stack_alpha, 3, 1000000, NULL);
		double t = (double)(at - t0) / 1e9;
		total++;
		in_outer++;
		alpha_samples++;
		in_window += t >= from_s && t <= to_s;
		in_window2 += t >= from2_s && t <= to2_s;
	}
	PUT(0, trace_enc_clock, t0 + 300 * ms, t0 + 300 * ms, 1700000000000000000ull + 300 * ms);
	CHECK(trace_writer_close(w));

	FILE *f = fopen(argv[2], "w");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	char bid[129] = "";
	for (size_t i = 0; i < self.build_id_len; i++)
		snprintf(bid + 2 * i, 3, "%02x", self.build_id[i]);
	fprintf(f, "total=%lu\nin_outer=%lu\nin_inner=%lu\nin_window=%lu\nfrom=%g\nto=%g\n", total, in_outer,
	        in_inner, in_window, from_s, to_s);
	fprintf(f, "in_window2=%lu\nfrom2=%g\nto2=%g\n", in_window2, from2_s, to2_s);
	fprintf(f, "alpha=%lu\nbeta=%lu\nbuild_id=%s\nexe=%s\ncpu_ns_per_sample=1000000\n", alpha_samples,
	        beta_samples, bid, exe);
	fclose(f);
	return 0;
}
