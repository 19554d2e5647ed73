/* region_match.c: regions matched by name across processes. Every trace
 * numbers its regions itself; the analysis folds by name, so each trace's
 * ids map to one analyze_region_def per distinct name (c->map), found through
 * a hash map of the names. A region defined without a name takes its
 * function's name; ids used without a definition become "region#ID". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_ctx.h"
#include "programs.h"
#include "region_suggest.h"

typedef struct name_key {
	const analyze_ctx *c;
	const char *name;
} name_key;

static int same_name(const void *arg, size_t value)
{
	const name_key *k = arg;
	return !strcmp(k->c->reg[value].name, k->name);
}

/* The index of the region called name, added (with kind and address) when
 * it is new. */
static int region_index(analyze_ctx *c, const char *name, unsigned kind, uint64_t address, uint32_t *out)
{
	uint64_t h = util_hash_str(name);
	name_key key = {c, name};
	const size_t *found = util_hmap_find(&c->reg_by_name, h, same_name, &key);
	if (found) {
		*out = (uint32_t)*found;
		return 0;
	}
	if (util_grow((void **)&c->reg, &c->cap_reg, c->nreg + 1, sizeof *c->reg))
		return -ENOMEM;
	analyze_region_def *d = &c->reg[c->nreg];
	d->name = util_strdup(name);
	d->kind = kind;
	d->address = address;
	if (!d->name || util_hmap_insert(&c->reg_by_name, h, c->nreg)) {
		free(d->name);
		return -ENOMEM;
	}
	*out = (uint32_t)c->nreg++;
	return 0;
}

/* A function's name without its signature: "T<int>::type ns::dot<V<int>
 * >(V<int> const&) [clone .isra.0]:37" -> "ns::dot [clone .isra.0]:37" (a
 * burst's name says where, not the types): parameter lists and template
 * arguments dropped, then the return type (what precedes the last space
 * outside the clone suffix). */
static void strip_params(const char *in, char *out, size_t n)
{
	const char *clone = strstr(in, " [clone ");
	size_t end = clone ? (size_t)(clone - in) : strlen(in);
	char tmp[256];
	size_t o = 0;
	int depth = 0;
	for (size_t i = 0; i < end && o + 1 < sizeof tmp; i++) {
		char ch = in[i];
		if ((ch == '(' || ch == '<') && !(ch == '<' && i >= 8 && !strncmp(in + i - 8, "operator", 8)))
			depth++;
		else if ((ch == ')' || ch == '>') && depth > 0)
			depth--;
		else if (depth == 0)
			tmp[o++] = ch;
	}
	tmp[o] = 0;
	const char *name = strrchr(tmp, ' ');
	name = name && name[1] ? name + 1 : tmp;
	snprintf(out, n, "%s%s", name, clone ? clone : "");
}

/* A burst's name for people: "burst after MPI_Allreduce in allsum (from
 * main:50)", from the runtime's "burst after MPI_Allreduce[ #k]", its call
 * site (the region's address, a return address in the function that made
 * the MPI call) and the return address above it (info burst.caller.ID).
 * Readable names are the same on every rank, so ranks' bursts match by
 * them. NULL: keep the runtime's name. */
static const char *burst_name(analyze_ctx *c, size_t proc, const ingest__region_def *d, char *buf, size_t len)
{
	const char *prefix = "burst after ";
	if (d->kind != TRACE_REGION_BURST || !d->name || strncmp(d->name, prefix, strlen(prefix)) ||
	    !d->address)
		return NULL;
	const char *call = d->name + strlen(prefix);
	size_t cl = strcspn(call, " ");
	char site[256], from[256], key[40];
	const char *s = attribution__call_site(c->attrib, (unsigned)proc, d->address, site, sizeof site);
	if (!s)
		return NULL;
	snprintf(key, sizeof key, "burst.caller.%u", d->id);
	const char *v = ingest__trace_info(c->tr[proc], key);
	const char *f =
	    v ? attribution__call_site(c->attrib, (unsigned)proc, strtoull(v, NULL, 10), from, sizeof from)
	      : NULL;
	if (f && !strncmp(f, "__libc_start", 12))
		f = NULL; /* main's caller says nothing */
	char ss[256], fs[256];
	strip_params(s, ss, sizeof ss);
	if (f) {
		/* the site's function, then where it was called from */
		strip_params(f, fs, sizeof fs);
		char *colon = strrchr(ss, ':');
		if (colon && colon[1] >= '0' && colon[1] <= '9')
			*colon = 0; /* the site's own line: the caller's says where */
		snprintf(buf, len, "burst after %.*s in %.100s (from %.100s)", (int)cl, call, ss, fs);
	} else {
		snprintf(buf, len, "burst after %.*s in %.200s", (int)cl, call, ss);
	}
	return buf;
}

typedef struct names_probe {
	char (*names)[256];
	const char *name;
} names_probe;

static int same_burst_name(const void *arg, size_t k)
{
	const names_probe *q = arg;
	return !strcmp(q->names[k], q->name);
}

/* Bursts of one trace with the same readable name (no line information,
 * one caller line) keep the runtime's distinct names. Linear: a hash of
 * the names (a trace may hold any number of regions). */
static int burst_names_unique(char (*names)[256], const ingest__trace *t)
{
	util_hmap seen = {0};
	unsigned char *dup = calloc(t->nreg + 1, 1);
	int rc = dup ? 0 : -ENOMEM;
	for (size_t k = 0; k < t->nreg && !rc; k++) {
		if (!names[k][0])
			continue;
		names_probe q = {names, names[k]};
		uint64_t h = util_hash_str(names[k]);
		const size_t *first = util_hmap_find(&seen, h, same_burst_name, &q);
		if (first)
			dup[*first] = dup[k] = 1;
		else
			rc = util_hmap_insert(&seen, h, k);
	}
	for (size_t k = 0; k < t->nreg && !rc; k++)
		if (dup[k])
			names[k][0] = 0;
	free(dup);
	util_hmap_free(&seen);
	return rc;
}

/* region_index for a region of trace i: with several programs, the regions
 * of all but the run's main program apart, as "name [program]". */
static int trace_region_index(analyze_ctx *c, size_t i, const char *name, unsigned kind, uint64_t address,
                              uint32_t *out)
{
	if (c->nprog < 2 || c->prog[i] == c->main_prog)
		return region_index(c, name, kind, address, out);
	char *full = util_asprintf("%s [%s]", name, programs__label(c->tr[i]));
	if (!full)
		return -ENOMEM;
	int rc = region_index(c, full, kind, address, out);
	free(full);
	return rc;
}

/* Maps trace i's regions (t->reg, dense) to the run's, by name. */
static int map_trace_regions(analyze_ctx *c, size_t i)
{
	const ingest__trace *t = c->tr[i];
	c->nmap[i] = t->nreg;
	c->map[i] = malloc((t->nreg ? t->nreg : 1) * sizeof **c->map);
	char(*bn)[256] = calloc(t->nreg + 1, sizeof *bn);
	if (!c->map[i] || !bn) {
		free(bn);
		return -ENOMEM;
	}
	for (size_t k = 0; k < t->nreg; k++)
		if (!t->reg[k].defined || !burst_name(c, i, &t->reg[k], bn[k], sizeof bn[k]))
			bn[k][0] = 0;
	int rc = burst_names_unique(bn, t);
	size_t undefined = 0;
	for (size_t k = 0; k < t->nreg && !rc; k++) {
		const ingest__region_def *d = &t->reg[k];
		char buf[64];
		const char *name = d->name;
		if (!d->defined) {
			/* Events of regions that were never defined still count, under a made-up name. */
			snprintf(buf, sizeof buf, "region#%u", d->id);
			rc = trace_region_index(c, i, buf, TRACE_REGION_API, 0, &c->map[i][k]);
			undefined++;
			continue;
		}
		if (!name || !*name)
			name =
			    attribution__function_name(c->attrib, (unsigned)i, d->address, buf, sizeof buf);
		if (bn[k][0])
			name = bn[k];
		rc = trace_region_index(c, i, name, d->kind, d->address, &c->map[i][k]);
	}
	free(bn);
	fold_diag_subject ps = analyze__subject_process(c, i);
	if (!rc && undefined)
		analyze__diag(c, FOLD_DIAG_REGIONS_UNDEFINED, &ps,
		              ANALYZE_VALUES({"regions", "count", (double)undefined}), NULL,
		              "%s: %zu region id(s) used without a definition; shown as region#ID", t->path,
		              undefined);
	return rc;
}

int analyze__map_regions(analyze_ctx *c)
{
	c->map = calloc(c->ntr, sizeof *c->map);
	c->nmap = calloc(c->ntr, sizeof *c->nmap);
	if (!c->map || !c->nmap)
		return -ENOMEM;
	for (size_t i = 0; i < c->ntr; i++) {
		int rc = map_trace_regions(c, i);
		if (rc)
			return rc;
	}
	return 0;
}

void analyze__regions_free(analyze_ctx *c)
{
	if (c->map)
		for (size_t i = 0; i < c->ntr; i++)
			free(c->map[i]);
	free(c->map);
	free(c->nmap);
	for (size_t g = 0; g < c->nreg; g++)
		free(c->reg[g].name);
	free(c->reg);
	util_hmap_free(&c->reg_by_name);
	c->map = NULL;
	c->nmap = NULL;
	c->reg = NULL;
	c->nreg = c->cap_reg = 0;
}

static const char *region_def_name(const void *arg, size_t i)
{
	return ((const analyze_ctx *)arg)->reg[i].name;
}

int analyze__region_selected(const analyze_ctx *c, const char *name)
{
	const char *want = c->opt->region;
	if (!want)
		return 1;
	if (!strcmp(name, want))
		return 1;
	size_t n = strlen(want);
	return c->nprog > 1 && !strncmp(name, want, n) && !strncmp(name + n, " [", 2);
}

int analyze__check_region(const analyze_ctx *c, const char *const *paths, size_t npaths, char *err,
                          size_t errlen)
{
	const char *want = c->opt->region;
	if (!want)
		return 0;
	for (size_t g = 0; g < c->nreg; g++)
		if (analyze__region_selected(c, c->reg[g].name))
			return 0;
	return region_suggest__unknown(err, errlen, want, region_def_name, c, c->nreg, paths, npaths);
}
