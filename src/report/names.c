/* names.c: function names for people (see names.h).
 *
 * A full name is shortened only as far as the room asks, in this order,
 * each step keeping what tells two functions apart: the parameter list
 * becomes "(…)", template arguments become "<…>", outer namespaces are
 * dropped (the class and function stay), and only then is the front cut
 * with "…". Suffixes that distinguish clones ("[clone ._omp_fn.3]",
 * ".isra.0", "._omp_fn.1") are kept in every step. OpenMP outlined
 * functions read "parallel region N in FUNCTION"; glibc's internal
 * aliases (__GI___poll, __libc_recv) their public names; an address in a
 * module without symbols ("[libgomp.so.1+0x1f6a7]") "libgomp (no symbols)";
 * a burst "burst after MPI_Allreduce in main:26" drops "burst", then
 * "after", before anything else.
 */
#include "names.h"

#include <math.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "report_text.h"

/* The clone suffix of s (" [clone ...]", or GCC's ".isra.0",
 * ".constprop.1", ".part.0", ".cold"), as an offset into s; strlen(s)
 * when none. */
static size_t suffix_at(const char *s)
{
	const char *c = strstr(s, " [clone ");
	if (c)
		return (size_t)(c - s);
	static const char *const gcc[] = {".isra.", ".constprop.", ".part.", ".cold", ".lto_priv."};
	size_t at = strlen(s);
	for (size_t i = 0; i < sizeof gcc / sizeof *gcc; i++) {
		const char *m = strstr(s, gcc[i]);
		if (m && (size_t)(m - s) < at)
			at = (size_t)(m - s);
	}
	return at;
}

/* The part of an outlined OpenMP function's name before "._omp_fn." and
 * its number (-1 when name is not one). */
static long omp_fn(const char *s, size_t *base_len)
{
	const char *m = strstr(s, "._omp_fn.");
	if (!m)
		return -1;
	/* a burst named by its caller ("burst after MPI_Sendrecv in
	 * Comm::communicate (from Integrate::run [clone ._omp_fn.0]:105)") is
	 * not the outlined function */
	const char *from = strstr(s, " (from ");
	if (from && from < m)
		return -1;
	long num = 0;
	for (const char *p = m + 9; *p >= '0' && *p <= '9'; p++)
		num = num * 10 + (*p - '0');
	const char *b = strstr(s, " [clone ");
	*base_len = b && b < m ? (size_t)(b - s) : (size_t)(m - s);
	return num;
}

/* Copies src[0..n) into out replacing every top-level bracketed group
 * opened by open (at depth >= min_depth of that bracket kind) with
 * open…close. */
static void collapse(const char *src, size_t n, char open, char close, int min_depth, char *out, size_t outn)
{
	size_t o = 0;
	int depth = 0;
	for (size_t i = 0; i < n && o + 4 < outn; i++) {
		char ch = src[i];
		/* "operator()" is a name, not a parameter list. */
		if (ch == '(' && open == '(' && depth == 0 && src[i + 1] == ')' && i >= 8 &&
		    !strncmp(src + i - 8, "operator", 8)) {
			out[o++] = '(';
			out[o++] = ')';
			i++;
			continue;
		}
		/* A parameter list follows a name ("f(", "g<int>(", "operator()("): "x (y)" is prose. */
		if (ch == open && open == '(' && depth == 0 && i > 0 && src[i - 1] == ' ') {
			out[o++] = ch;
			continue;
		}
		if (ch == open) {
			depth++;
			if (depth == min_depth) {
				out[o++] = ch;
				memcpy(out + o, "\xe2\x80\xa6", 3);
				o += 3;
				continue;
			}
		} else if (ch == close && depth > 0) {
			depth--;
			if (depth == min_depth - 1) {
				out[o++] = ch;
				continue;
			}
		}
		if (depth < min_depth)
			out[o++] = ch;
	}
	out[o] = 0;
}

/* Drops namespace qualifiers before the last two components of the
 * qualified name before any "(" (ns::Class::f -> Class::f). */
static const char *drop_namespaces(const char *s)
{
	const char *end = strchr(s, '(');
	if (!end)
		end = s + strlen(s);
	const char *seps[64];
	size_t ns = 0;
	int depth = 0;
	for (const char *p = s; p + 1 < end; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth)
			depth--;
		else if (!depth && p[0] == ':' && p[1] == ':' && ns < 64)
			seps[ns++] = p;
	}
	return ns >= 2 ? seps[ns - 2] + 2 : s;
}

/* A burst's name "X (from CALLER:LINE)" with CALLER shorter into out:
 * level 1 without an OpenMP outlined function's suffix ("f._omp_fn.2",
 * "f [clone ._omp_fn.2]" -> "f"), level 2 also without its qualifiers
 * ("Integrate::run" -> "run"), level 3 also the function that made the
 * call. Returns 0 when there is no such part or nothing changed. */
static int burst_caller(const char *full, int level, char *out, size_t outn)
{
	const char *from = strstr(full, " (from ");
	if (!from)
		return 0;
	const char *c = from + 7, *colon = strrchr(c, ':'), *close = strrchr(c, ')');
	if (!colon || !close || colon > close)
		colon = close;
	if (!colon)
		return 0;
	size_t n = (size_t)(colon - c);
	char caller[512];
	snprintf(caller, sizeof caller, "%.*s", (int)(n < sizeof caller ? n : sizeof caller - 1), c);
	char *sfx = strstr(caller, " [clone ._omp_fn.");
	if (!sfx)
		sfx = strstr(caller, "._omp_fn.");
	if (sfx)
		*sfx = 0;
	const char *name = caller;
	if (level >= 2)
		for (const char *p = caller; *p; p++)
			if (p[0] == ':' && p[1] == ':')
				name = p + 2;
	/* level 3: the function that made the call without its qualifiers too
	 * ("MPI_Sendrecv in Comm::communicate" -> "... in communicate") */
	const char *in = level >= 3 ? strstr(full, " in ") : NULL;
	size_t head = (size_t)(from - full);
	const char *fn = in && in < from ? in + 4 : NULL;
	if (fn)
		for (const char *p = fn; p < from; p++)
			if (p[0] == ':' && p[1] == ':')
				fn = p + 2;
	if (fn && fn == in + 4)
		fn = NULL;
	char tmp[1024]; /* full may be out */
	if (fn)
		snprintf(tmp, sizeof tmp, "%.*s%.*s (from %s%s", (int)(in + 4 - full), full, (int)(from - fn),
		         fn, name, colon);
	else if (!sfx && name == caller)
		return 0;
	else
		snprintf(tmp, sizeof tmp, "%.*s (from %s%s", (int)head, full, name, colon);
	snprintf(out, outn, "%s", tmp);
	return 1;
}

/* fn shortened to room columns into a; when that cuts its front and proc
 * (a module procedure's own name, see below) fits whole, proc. */
static void omp_name(const char *fn, const char *proc, unsigned room, char *a, size_t an)
{
	report_short_name(fn, room, a, an);
	if (strncmp(a, "\xe2\x80\xa6", 3) || !proc)
		return;
	char b[1024];
	report_short_name(proc + 1, room, b, sizeof b);
	if (strncmp(b, "\xe2\x80\xa6", 3))
		snprintf(a, an, "%s", b);
}

/* The name after a demangled template function's return type ("void
 * ForceLJ::compute<0, 1>(…)" -> "ForceLJ::compute<0, 1>(…)"): the first
 * word, when a space outside brackets follows it and a qualified or
 * template name with a parameter list comes after; s itself otherwise
 * ("operator new(…)", "(anonymous namespace)::f", "fold measurement (libfold)"). */
static const char *after_return_type(const char *s)
{
	int depth = 0;
	for (const char *p = s; *p; p++) {
		if (*p == '<' || *p == '(' || *p == '[')
			depth++;
		else if ((*p == '>' || *p == ')' || *p == ']') && depth)
			depth--;
		else if (*p == ' ' && !depth) {
			const char *rest = p + 1;
			size_t n = (size_t)(p - s);
			if (n == 0 || (n >= 8 && !strncmp(p - 8, "operator", 8)) || !strchr(rest, '(') ||
			    !(strstr(rest, "::") || strchr(rest, '<')) ||
			    !(isalpha((unsigned char)*rest) || *rest == '_'))
				return s;
			return rest;
		}
	}
	return s;
}

/* full without glibc's internal prefix ("__GI___poll" is poll), or, for an
 * address in a module without symbols, "libname (no symbols)" in lib. */
static const char *plain_name(const char *full, char *lib, size_t libn)
{
	/* glibc's internal aliases: "__GI___poll", "__libc_recv" are poll, recv. */
	if (!strncmp(full, "__GI___libc_", 12) && full[12]) /* __libc_write: write */
		full += 12;
	else if (!strncmp(full, "__GI___", 7))
		full += 7;
	else if (!strncmp(full, "__GI_", 5))
		full += 5;
	else if (!strncmp(full, "__libc_", 7) && full[7])
		full += 7;
	/* "[libopen-pal.so.40+0x878b3]": an address in a module without
	 * symbols reads "libopen-pal (no symbols)", as in the hot views */
	size_t fl = strlen(full);
	const char *plus = fl > 4 && full[0] == '[' && full[fl - 1] == ']' ? strstr(full, "+0x") : NULL;
	if (plus) {
		const char *so = strstr(full, ".so");
		const char *end = so && so < plus ? so : plus;
		snprintf(lib, libn, "%.*s (no symbols)", (int)(end - full - 1), full + 1);
		full = lib;
	}
	return full;
}

/* A burst's name ("burst after MPI_Allreduce in main:26") made to fit
 * maxcols as far as its words allow (in burst when its caller changes). */
static const char *shorter_burst(const char *full, unsigned maxcols, char *burst, size_t burstn)
{
	/* a burst: "burst after MPI_Allreduce in main:26" loses its first word
	 * first, so the call and the place stay */
	if (!strncmp(full, "burst after ", 12) && report_term_width(full) > maxcols) {
		full += 6;
		if (report_term_width(full) > maxcols)
			full += 6;
		/* then its caller ("(from Integrate::run [clone ._omp_fn.0]:105)"):
		 * without the outlined function's suffix, the line is in its
		 * source function's; then without its class or namespaces */
		for (int level = 1; level <= 3 && report_term_width(full) > maxcols; level++)
			if (burst_caller(full, level, burst, burstn))
				full = burst;
	}
	return full;
}

/* An OpenMP outlined function's name: "parallel region num in FUNCTION"
 * (FUNCTION the first base bytes of full), shortened to maxcols. */
static void parallel_region_name(const char *full, long num, size_t base, unsigned maxcols, char *out,
                                 size_t outn)
{
	char a[1024];
	/* "parallel region 2 in Integrate::run(Atom&, ...)": the name of its function, shortened in
	 * turn. */
	char fn[1024];
	snprintf(fn, sizeof fn, "%.*s", (int)(base < sizeof fn - 1 ? base : sizeof fn - 1), full);
	char head[48];
	int hn = snprintf(head, sizeof head, "parallel region %ld in ", num);
	unsigned room = maxcols > (unsigned)hn + 8 ? maxcols - (unsigned)hn : 8;
	/* A Fortran module procedure ("advec_cell_kernel_module::
	 * advec_cell_kernel": no parameter list, unlike C++) by its own
	 * name when the module's does not fit: "parallel region 0 in
	 * advec_cell_kernel", not "omp 0 …_cell_kernel_module::advec_cell_kernel". */
	const char *proc = strchr(fn, '(') ? NULL : strrchr(fn, ':');
	if (!(proc && proc > fn && proc[-1] == ':' && proc[1]))
		proc = NULL;
	omp_name(fn, proc, room, a, sizeof a);
	if (!strncmp(a, "\xe2\x80\xa6", 3) && maxcols >= 12) {
		/* No room for the words: "omp 3 Integrate::run(…)". */
		hn = snprintf(head, sizeof head, "omp %ld ", num);
		omp_name(fn, proc, maxcols - (unsigned)hn, a, sizeof a);
	}
	snprintf(out, outn, "%s%s", head, a);
}

void report_short_name(const char *full, unsigned maxcols, char *out, size_t outn)
{
	if (!outn)
		return;
	out[0] = 0;
	if (!full)
		full = "[unknown]";
	char a[1024], b[1024], lib[512];
	full = plain_name(full, lib, sizeof lib);
	char burst[1024];
	full = shorter_burst(full, maxcols, burst, sizeof burst);
	size_t base;
	long num = omp_fn(full, &base);
	if (num >= 0) {
		parallel_region_name(full, num, base, maxcols, out, outn);
		return;
	}
	if (report_term_width(full) <= maxcols) {
		snprintf(out, outn, "%s", full);
		return;
	}
	size_t cut = suffix_at(full);
	const char *suffix = full + cut;
	unsigned sw = report_term_width(suffix);
	/* 1: parameters as (…) */
	collapse(full, cut, '(', ')', 1, a, sizeof a);
	/* 1b: a template function's return type ("void ForceLJ::compute<0, 1>(…)"):
	 * it tells nothing apart, its template arguments do */
	if (report_term_width(a) + sw > maxcols) {
		const char *rest = after_return_type(a);
		if (rest != a) {
			snprintf(b, sizeof b, "%s", rest);
			snprintf(a, sizeof a, "%s", b);
		}
	}
	/* 2: template arguments as <…> (not in "operator<" names: those have no matching '>') */
	if (report_term_width(a) + sw > maxcols) {
		collapse(a, strlen(a), '<', '>', 1, b, sizeof b);
		snprintf(a, sizeof a, "%s", b);
	}
	/* 3: outer namespaces */
	if (report_term_width(a) + sw > maxcols) {
		snprintf(b, sizeof b, "%s", drop_namespaces(a));
		snprintf(a, sizeof a, "%s", b);
	}
	/* 3b: a function object's call operator by its class ("matvec_std<…>::
	 * operator()(…)" -> "matvec_std<…>()"): the front cut would leave
	 * "……>::operator()(…)", which names nothing */
	if (report_term_width(a) + sw > maxcols) {
		char *op = strstr(a, "::operator()(");
		if (op && op > a) {
			snprintf(op, sizeof a - (size_t)(op - a), "()");
			snprintf(b, sizeof b, "%s", drop_namespaces(a));
			snprintf(a, sizeof a, "%s", b);
		}
	}
	unsigned aw = report_term_width(a);
	if (aw + sw <= maxcols) {
		snprintf(out, outn, "%s%s", a, suffix);
		return;
	}
	/* 4: the front cut, the suffix kept whole when it leaves room for a name */
	if (sw + 6 > maxcols) {
		suffix = "";
		sw = 0;
	}
	unsigned keep = maxcols > sw + 1 ? maxcols - sw - 1 : 0;
	const char *p = a;
	for (unsigned skip = aw - keep; skip > 0 && *p; skip--) {
		uint32_t cp;
		p += report_utf8_next(p, &cp);
	}
	/* a cut inside a qualifier moves on to the next name: "…waxpby<…>(…)",
	 * not "…iFE::waxpby<…>(…)" */
	if (p > a && p[-1] != ':') {
		const char *q = strstr(p, "::"), *br = strpbrk(p, "<(");
		if (q && (!br || q < br) && q[2])
			p = q + 2;
	}
	snprintf(out, outn, "\xe2\x80\xa6%s%s", p, suffix);
}

int report_cpu_rate(const char *counter, double rate, char *out, size_t n)
{
	if (!counter || !(strstr(counter, "TASK-CLOCK") || strstr(counter, "TASK_CLOCK") ||
	                  strstr(counter, "CPU-CLOCK") || strstr(counter, "CPU_CLOCK")))
		return 0;
	/* Nanoseconds of CPU per second of wall time: CPUs in use. */
	if (isnan(rate))
		snprintf(out, n, "no data");
	else
		snprintf(out, n, "%.2f CPUs", rate / 1e9);
	return 1;
}
