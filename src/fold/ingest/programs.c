/* programs.c: which program each trace comes from (programs.h). */
#include "programs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The module loaded from the exe (its build-id identifies the program). */
static const ingest__module *main_module(const ingest__trace *t)
{
	const char *exe = t->facts.exe;
	if (!exe)
		return NULL;
	for (size_t m = 0; m < t->nmod; m++)
		if (t->mod[m].path && !strcmp(t->mod[m].path, exe))
			return &t->mod[m];
	return NULL;
}

/* 1 when a and b are of one program, or when either does not say. */
static int same_program(const ingest__trace *a, const ingest__trace *b)
{
	const ingest__module *ma = main_module(a), *mb = main_module(b);
	if (ma && mb && ma->build_id_len && mb->build_id_len)
		return ma->build_id_len == mb->build_id_len &&
		       !memcmp(ma->build_id, mb->build_id, ma->build_id_len);
	const char *ea = a->facts.exe, *eb = b->facts.exe;
	return !ea || !eb || !strcmp(ea, eb);
}

size_t programs__number(ingest__trace *const *tr, size_t n, unsigned *prog)
{
	size_t nprog = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < i && !same_program(tr[k], tr[i]))
			k++;
		prog[i] = k < i ? prog[k] : (unsigned)nprog++;
	}
	return nprog;
}

const char *programs__label(const ingest__trace *t)
{
	const char *exe = t->facts.exe;
	if (!exe)
		return "unknown program";
	const char *slash = strrchr(exe, '/');
	return slash && slash[1] ? slash + 1 : exe;
}

unsigned programs__main(ingest__trace *const *tr, const unsigned *prog, size_t n, size_t nprog)
{
	unsigned best = 0;
	size_t bestn = 0;
	uint64_t bestspan = 0;
	for (size_t p = 0; p < nprog; p++) {
		size_t c = 0;
		uint64_t span = 0;
		for (size_t i = 0; i < n; i++)
			if (prog[i] == p) {
				c++;
				uint64_t s = tr[i]->clk_real1 - tr[i]->clk_real0;
				span = s > span ? s : span;
			}
		if (c > bestn || (c == bestn && span > bestspan)) {
			bestn = c;
			bestspan = span;
			best = (unsigned)p;
		}
	}
	return best;
}

size_t programs__first(const unsigned *prog, size_t n, unsigned p)
{
	size_t i = 0;
	while (i < n && prog[i] != p)
		i++;
	return i < n ? i : 0;
}

/* Did traces a and b run at the same time (their wall-clock spans overlap:
 * a launcher's daemon spans the program, a child runs inside it)? */
static int same_time(const ingest__trace *a, const ingest__trace *b)
{
	if (!a->nclock || !b->nclock || !a->clk_real0 || !b->clk_real0)
		return 0;
	return a->clk_real0 <= b->clk_real1 && b->clk_real0 <= a->clk_real1;
}

int programs__check(ingest__trace *const *tr, size_t n, int allow_mixed, char *err, size_t errlen)
{
	if (allow_mixed || n < 2)
		return 0;
	unsigned *prog = calloc(n, sizeof *prog);
	if (!prog)
		return -ENOMEM;
	size_t nprog = programs__number(tr, n, prog);
	unsigned mp = programs__main(tr, prog, n, nprog);
	int helpers = nprog > 1;
	for (size_t i = 0; i < n && helpers; i++)
		if (prog[i] != mp) {
			int overlap = 0;
			for (size_t k = 0; k < n && !overlap; k++)
				overlap = prog[k] == mp && same_time(tr[k], tr[i]);
			helpers = overlap;
		}
	free(prog);
	if (helpers)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if (same_program(tr[0], tr[i]))
			continue;
		const char *a = tr[0]->facts.exe, *b = tr[i]->facts.exe;
		int rebuilt = !strcmp(a, b); /* same path, other build-id */
		snprintf(err, errlen,
		         "%s and %s come from different programs (%s, %s%s): give one program's traces, or "
		         "--allow-mixed to analyse them together",
		         tr[0]->path, tr[i]->path, a, rebuilt ? "rebuilt in between: " : "", b);
		return -PROGRAMS_MIXED_ERRNO;
	}
	return 0;
}
