/* foldrun.c: run a program under libfold.so.
 *
 *   foldrun [-e EVENT@PERIOD] [-c COUNTERS] [-o PATTERN] [-q] [--] program args
 *   foldrun --list-events
 *
 * Owns finding libfold.so relative to foldrun's own location (../lib when
 * installed, the same directory in the build tree: no FOLD_HOME), checking
 * the options with the runtime's own parsers, setting FOLD_* and LD_PRELOAD
 * and exec'ing the program (same pid, so `mpirun -np 4 foldrun ./app` and
 * `srun foldrun ./app` measure the ranks, not the launcher).
 *
 * It reads the program's ELF file first (the one execvp would run):
 *  - a program the dynamic loader will not preload into (statically linked:
 *    no PT_INTERP; setuid, setgid or with file capabilities: secure-execution
 *    mode ignores LD_PRELOAD) is said plainly, then run unmeasured, with its
 *    own exit status;
 *  - a sanitizer runtime the program needs (DT_NEEDED) or LD_PRELOAD holds
 *    (libasan, libtsan, libubsan, liblsan, libhwasan) goes first in
 *    LD_PRELOAD and libfold.so after it, as the sanitizers require; under
 *    ThreadSanitizer fold takes no samples unless -e asks (see
 *    docs/configuration.md, "Programs fold cannot measure").
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <linux/perf_event.h>
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fold_rt.h"
#include "fold_version.h"

#ifndef FOLD_LIBDIR_REL
#define FOLD_LIBDIR_REL "../lib"
#endif

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: foldrun [-e EVENT@PERIOD] [-c COUNTERS] [-o PATTERN] [-q] [--] program [args...]\n"
	        "       foldrun --list-events\n"
	        "  -e, --event EVENT@PERIOD  sample source: time@10ms (default), cputime@10ms,\n"
	        "                            perf::TASK-CLOCK@1000000, PAPI_TOT_CYC@2000000, off\n"
	        "  -c, --counters LIST       counters read at every sample, comma separated\n"
	        "                            (PAPI presets or perf:: events; \"none\" for none)\n"
	        "  -o, --output PATTERN      trace file pattern: %%p pid, %%r rank, %%h host,\n"
	        "                            %%e executable, %%n generation (default fold.%%e.%%p.trace)\n"
	        "  -q, --quiet               no summary line at exit (FOLD_QUIET=1)\n"
	        "      --list-events         what this machine can sample and count\n"
	        "  -h, --help, --version\n"
	        "See foldrun(1) and docs/configuration.md for every FOLD_* variable.\n");
}

static int find_runtime(char *out, size_t len)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return -errno;
	self[n] = 0;
	char *dir = dirname(self);
	const char *candidates[] = {FOLD_LIBDIR_REL "/libfold.so", "libfold.so", "../lib/libfold.so",
	                            "../lib64/libfold.so"};
	for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
		snprintf(out, len, "%s/%s", dir, candidates[i]);
		char real[4096];
		if (access(out, R_OK) == 0 && realpath(out, real)) {
			snprintf(out, len, "%s", real);
			return 0;
		}
	}
	return -ENOENT;
}

/* ---------------------------------------------------------------- --list-events */

static int perf_works(uint32_t type, uint64_t config, char *why, size_t len)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = type;
	attr.config = config;
	int fd = rt__perf_open_for(&attr, -1);
	if (fd < 0) {
		if (errno == EACCES && rt__perf_kernel_side(type, config))
			snprintf(why, len, "%s", RT_PERF_KERNEL_SIDE_WHY);
		else
			snprintf(why, len, "perf_event_open: %s", strerror(errno));
		return 0;
	}
	close(fd);
	return 1;
}

static int papi_works(const char *name, char *why, size_t len)
{
	int es = PAPI_NULL, rc;
	if ((rc = PAPI_create_eventset(&es)) != PAPI_OK)
		goto out;
	if ((rc = PAPI_add_named_event(es, name)) == PAPI_OK) {
		if ((rc = PAPI_start(es)) == PAPI_OK) {
			long long v;
			PAPI_stop(es, &v);
		}
		PAPI_cleanup_eventset(es);
	}
	PAPI_destroy_eventset(&es);
out:
	if (rc != PAPI_OK)
		snprintf(why, len, "PAPI: %s", PAPI_strerror(rc));
	return rc == PAPI_OK;
}

static int list_events(void)
{
	printf("Sample sources (FOLD_SAMPLE / foldrun -e):\n");
	printf("  time@PERIOD        yes  per-thread CLOCK_MONOTONIC timer (wall time), default time@10ms\n");
	printf("  cputime@PERIOD     yes  per-thread CPU-time timer (at most the kernel tick rate)\n");
	printf(
	    "  EVENT@COUNT        overflow of any countable EVENT below (periods: events; ns for *-CLOCK)\n");
	printf("  off                no samples (regions and counters only)\n\n");

	int papi_rc = PAPI_library_init(PAPI_VER_CURRENT);
	int papi_ok = papi_rc == PAPI_VER_CURRENT;
	int perf_component = 0;
	if (papi_ok) {
		int cidx = PAPI_get_component_index("perf_event");
		const PAPI_component_info_t *ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
		perf_component = ci && !ci->disabled;
		printf("PAPI %d.%d: perf_event component %s%s%s\n", PAPI_VERSION_MAJOR(PAPI_VERSION),
		       PAPI_VERSION_MINOR(PAPI_VERSION), perf_component ? "enabled" : "disabled",
		       ci && ci->disabled ? ": " : "", ci && ci->disabled ? ci->disabled_reason : "");
	} else {
		printf("PAPI: library init failed (%s): events are tested with perf_event_open only\n",
		       papi_rc < 0 ? PAPI_strerror(papi_rc) : "version mismatch");
	}
	printf("\nCounters and overflow events (tested by adding and starting them):\n");
	unsigned usable = 0;
	for (unsigned i = 0; i < rt__perf_name_count; i++) {
		const struct rt_perf_name *p = &rt__perf_names[i];
		char name[160], why[256] = "";
		snprintf(name, sizeof name, "%s%s", strncmp(p->name, "PAPI_", 5) ? "perf::" : "", p->name);
		int ok;
		if (papi_ok && perf_component)
			ok = papi_works(name, why, sizeof why) &&
			     perf_works(p->type, p->config, why, sizeof why);
		else
			ok = perf_works(p->type, p->config, why, sizeof why);
		usable += ok;
		printf("  %-32s %-3s %-8s %s\n", name, ok ? "yes" : "no",
		       p->hardware ? "hardware" : "software", ok ? "" : why);
	}
	if (papi_ok && perf_component) {
		/* PAPI native events beyond our table: usable as sampling events. */
		int code = PAPI_NATIVE_MASK, first = 1;
		if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) == PAPI_OK) {
			do {
				PAPI_event_info_t info;
				char why[256];
				if (PAPI_get_event_info(code, &info) != PAPI_OK)
					continue;
				if (!papi_works(info.symbol, why, sizeof why))
					continue;
				if (first) {
					printf("\nMore PAPI native events (sampling only: EVENT@COUNT):\n");
					first = 0;
				}
				printf("  %s\n", info.symbol);
			} while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
		}
	}
	printf("\n%u of %u counters usable here. Default counters: PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_L3_TCM,\n"
	       "falling back to perf::TASK-CLOCK,perf::PAGE-FAULTS,perf::CONTEXT-SWITCHES.\n",
	       usable, rt__perf_name_count);
	return 0;
}

/* ------------------------------------------------------ the program's ELF */

/* What foldrun learnt of the program before running it. */
typedef struct program_facts {
	char path[4096];        /* what execvp runs; empty when not found */
	int elf, dynamic;       /* an ELF file; one with a dynamic loader (PT_INTERP) */
	char sanitizers[4][64]; /* DT_NEEDED sanitizer runtimes, in order */
	int nsanitizers;
} program_facts;

static const char *const sanitizer_prefixes[] = {
    "libasan.so",       "libtsan.so",       "libubsan.so",       "liblsan.so",        "libhwasan.so",
    "libclang_rt.asan", "libclang_rt.tsan", "libclang_rt.ubsan", "libclang_rt.hwasan"};

/* The sanitizer runtime a library name (or path) is, or -1. */
static int sanitizer_of(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	for (size_t i = 0; i < sizeof sanitizer_prefixes / sizeof sanitizer_prefixes[0]; i++)
		if (!strncmp(base, sanitizer_prefixes[i], strlen(sanitizer_prefixes[i])))
			return (int)i;
	return -1;
}

/* The file execvp(name) would run: name itself when it holds a '/', else
 * the first executable regular file of that name on PATH. */
static void find_program(const char *name, char *out, size_t len)
{
	out[0] = 0;
	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;;) {
		size_t n = strcspn(p, ":");
		struct stat st;
		snprintf(out, len, "%.*s%s%s", (int)n, p, n ? "/" : "", name);
		if (!stat(out, &st) && S_ISREG(st.st_mode) && !access(out, X_OK))
			return;
		if (!p[n])
			break;
		p += n + 1;
	}
	out[0] = 0;
}

/* Reads n bytes at off of fd; 0 or -1. */
static int read_at(int fd, uint64_t off, void *buf, size_t n)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* The file offset of virtual address va in a PT_LOAD segment, or 0. */
static uint64_t file_offset(const Elf64_Phdr *ph, unsigned n, uint64_t va)
{
	for (unsigned i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr && va - ph[i].p_vaddr < ph[i].p_filesz)
			return ph[i].p_offset + (va - ph[i].p_vaddr);
	return 0;
}

/* The DT_NEEDED sanitizer runtimes of a 64-bit ELF (ph: its program
 * headers, n of them), into f. */
static void needed_sanitizers(int fd, const Elf64_Phdr *ph, unsigned n, program_facts *f)
{
	const Elf64_Phdr *dyn = NULL;
	for (unsigned i = 0; i < n; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = &ph[i];
	if (!dyn || dyn->p_filesz > (1u << 20))
		return;
	size_t nd = dyn->p_filesz / sizeof(Elf64_Dyn);
	Elf64_Dyn *d = malloc(nd * sizeof *d + 1);
	if (!d || read_at(fd, dyn->p_offset, d, nd * sizeof *d)) {
		free(d);
		return;
	}
	uint64_t strtab = 0, strsz = 0;
	for (size_t i = 0; i < nd && d[i].d_tag != DT_NULL; i++) {
		if (d[i].d_tag == DT_STRTAB)
			strtab = file_offset(ph, n, d[i].d_un.d_ptr);
		else if (d[i].d_tag == DT_STRSZ)
			strsz = d[i].d_un.d_val;
	}
	for (size_t i = 0; strtab && i < nd && d[i].d_tag != DT_NULL; i++) {
		char name[64] = "";
		if (d[i].d_tag != DT_NEEDED || d[i].d_un.d_val >= strsz ||
		    pread(fd, name, sizeof name - 1, (off_t)(strtab + d[i].d_un.d_val)) <= 0)
			continue;
		name[sizeof name - 1] = 0;
		if (sanitizer_of(name) >= 0 && f->nsanitizers < 4)
			snprintf(f->sanitizers[f->nsanitizers++], sizeof f->sanitizers[0], "%s", name);
	}
	free(d);
}

/* Fills f from the program's file: is it an ELF file, does it have a
 * dynamic loader, which sanitizer runtimes does it need. A 32-bit ELF
 * file counts as dynamic without its needs read. */
static void read_program(const char *name, program_facts *f)
{
	memset(f, 0, sizeof *f);
	find_program(name, f->path, sizeof f->path);
	int fd = f->path[0] ? open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	Elf64_Ehdr eh;
	if (fd < 0)
		return;
	if (read_at(fd, 0, &eh, sizeof eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG)) {
		close(fd);
		return;
	}
	f->elf = 1;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 4096) {
		f->dynamic = 1; /* not ours to judge: the loader says what it does */
		close(fd);
		return;
	}
	Elf64_Phdr *ph = malloc((size_t)eh.e_phnum * sizeof *ph + 1);
	if (ph && !read_at(fd, eh.e_phoff, ph, (size_t)eh.e_phnum * sizeof *ph)) {
		for (unsigned i = 0; i < eh.e_phnum; i++)
			f->dynamic |= ph[i].p_type == PT_INTERP;
		needed_sanitizers(fd, ph, eh.e_phnum, f);
	} else {
		f->dynamic = 1;
	}
	free(ph);
	close(fd);
}

/* Why the dynamic loader will not preload libfold.so into the program, or
 * NULL: statically linked, or secure-execution mode (setuid or setgid to
 * someone else, file capabilities), which ignores LD_PRELOAD. */
static const char *why_unmeasurable(const program_facts *f, char *buf, size_t len)
{
	struct stat st;
	if (!f->path[0] || stat(f->path, &st))
		return NULL;
	if (f->elf && !f->dynamic)
		return "it is statically linked: without a dynamic loader nothing can preload libfold.so "
		       "into "
		       "it (link it dynamically to measure it)";
	if ((st.st_mode & S_ISUID) && st.st_uid != getuid()) {
		snprintf(buf, len,
		         "it is setuid (to uid %u): the dynamic loader runs it in secure-execution mode, "
		         "which ignores LD_PRELOAD",
		         (unsigned)st.st_uid);
		return buf;
	}
	if ((st.st_mode & S_ISGID) && st.st_gid != getgid()) {
		snprintf(buf, len,
		         "it is setgid (to gid %u): the dynamic loader runs it in secure-execution mode, "
		         "which ignores LD_PRELOAD",
		         (unsigned)st.st_gid);
		return buf;
	}
	/* capabilities the program gains put a user other than root in that
	 * mode (root gains none) */
	if (getuid() != 0 && getxattr(f->path, "security.capability", NULL, 0) > 0)
		return "it has file capabilities (getcap): the dynamic loader runs it in secure-execution "
		       "mode, which ignores LD_PRELOAD";
	return NULL;
}

/* LD_PRELOAD for the program: the sanitizer runtimes first (those the
 * program needs, then those LD_PRELOAD holds), then the rest of LD_PRELOAD,
 * then lib. A fresh string, or NULL. */
static char *preload_list(const program_facts *f, const char *old, const char *lib, int *tsan)
{
	size_t n = strlen(lib) + (old ? strlen(old) : 0) + 4 * 64 + 8;
	char *out = calloc(1, n), *rest = calloc(1, n), *copy = strdup(old ? old : "");
	if (!out || !rest || !copy) {
		free(out);
		free(rest);
		free(copy);
		return NULL;
	}
	for (int i = 0; i < f->nsanitizers; i++) {
		*tsan |= strstr(f->sanitizers[i], "tsan") != NULL;
		snprintf(out + strlen(out), n - strlen(out), "%s%s", *out ? ":" : "", f->sanitizers[i]);
	}
	char *save = NULL;
	for (char *e = strtok_r(copy, ": ", &save); e; e = strtok_r(NULL, ": ", &save)) {
		if (!strcmp(e, lib))
			continue;
		int san = sanitizer_of(e) >= 0;
		*tsan |= san && strstr(e, "tsan") != NULL;
		char *to = san ? out : rest;
		if (san && strstr(out, e))
			continue; /* named by the program already */
		snprintf(to + strlen(to), n - strlen(to), "%s%s", *to ? ":" : "", e);
	}
	snprintf(out + strlen(out), n - strlen(out), "%s%s%s%s", *out && *rest ? ":" : "", rest,
	         *out || *rest ? ":" : "", lib);
	free(rest);
	free(copy);
	return out;
}

/* ---------------------------------------------------------------- main */

static void set(const char *var, const char *value)
{
	if (setenv(var, value, 1)) {
		fprintf(stderr, "foldrun: cannot set %s: %s\n", var, strerror(errno));
		exit(125);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"event", required_argument, NULL, 'e'},  {"counters", required_argument, NULL, 'c'},
	    {"output", required_argument, NULL, 'o'}, {"quiet", no_argument, NULL, 'q'},
	    {"list-events", no_argument, NULL, 'L'},  {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0},
	};
	const char *event = NULL, *counters = NULL, *output = NULL;
	int quiet = 0, c;
	/* "+": stop at the program name, its options are its own. */
	while ((c = getopt_long(argc, argv, "+e:c:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'e': event = optarg; break;
		case 'c': counters = optarg; break;
		case 'o': output = optarg; break;
		case 'q': quiet = 1; break;
		case 'L': return list_events();
		case 'h': usage(stdout); return 0;
		case 'V': printf("foldrun (fold) %s\n", FOLD_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "foldrun: no program given\n");
		usage(stderr);
		return 2;
	}
	if (event) {
		rt_config cfg;
		char msg[256];
		memset(&cfg, 0, sizeof cfg);
		if (rt__parse_sample(event, &cfg, msg, sizeof msg)) {
			fprintf(stderr, "foldrun: -e \"%s\": %s\n", event, msg);
			return 2;
		}
		set("FOLD_SAMPLE", event);
	}
	if (counters)
		set("FOLD_COUNTERS", counters);
	if (output) {
		if (!*output) {
			fprintf(stderr, "foldrun: -o needs a file name pattern\n");
			return 2;
		}
		set("FOLD_OUTPUT", output);
	}
	if (quiet)
		set("FOLD_QUIET", "1");

	char lib[4096];
	if (find_runtime(lib, sizeof lib)) {
		fprintf(stderr, "foldrun: libfold.so not found next to foldrun or in %s relative to it\n",
		        FOLD_LIBDIR_REL);
		return 125;
	}
	program_facts facts;
	char why_buf[256];
	read_program(argv[optind], &facts);
	const char *why = why_unmeasurable(&facts, why_buf, sizeof why_buf);
	if (why) {
		/* Said whatever -q: the run leaves no trace. */
		fprintf(stderr, "foldrun: %s cannot be measured: %s; running it without fold\n", argv[optind],
		        why);
	} else {
		int tsan = 0;
		char *preload = preload_list(&facts, getenv("LD_PRELOAD"), lib, &tsan);
		if (!preload)
			return 125;
		set("LD_PRELOAD", preload);
		free(preload);
		if (tsan && !event && !getenv("FOLD_SAMPLE")) {
			set("FOLD_SAMPLE", "off");
			fprintf(stderr,
			        "foldrun: %s uses ThreadSanitizer: fold records its regions and counters but "
			        "takes no samples (FOLD_SAMPLE=off), which would crash it (fold's unwinder "
			        "outlives TSan's thread state); -e forces sampling\n",
			        argv[optind]);
		}
	}
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "foldrun: cannot run %s: %s\n", argv[optind], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
