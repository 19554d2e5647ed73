/* models.c: model files and metric evaluation (see models.h).
 *
 * An expression is a small tree stored in a flat node array; leaves are
 * numbers or alias indices. Parsing is recursive descent:
 *   expr := term (('+'|'-') term)*     term := unary (('*'|'/') unary)*
 *   unary := '-' unary | primary        primary := NUMBER | ALIAS | FUNC '(' expr ',' expr ')' | '(' expr ')'
 */
#define _GNU_SOURCE
#include "models.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fold_version.h"

enum { N_NUM, N_VAR, N_ADD, N_SUB, N_MUL, N_DIV, N_NEG, N_MIN, N_MAX };

typedef struct node {
	int op;
	double num;
	int var;
	int l, r; /* child node indices */
} node;

typedef struct alias {
	char *name;
	char **names; /* candidate counter names, first present wins */
	size_t nnames, cap_names;
} alias;

typedef struct metric {
	char *name, *unit;
	node *nodes;
	size_t nnodes;
	int root;
} metric;

typedef struct model {
	char *id, *title, *origin;
	alias *al;
	size_t nal, cap_al;
	metric *mt;
	size_t nmt, cap_mt;
} model;

struct models__set {
	model *m;
	size_t n, cap;
};

models__set *models__new(void)
{
	return calloc(1, sizeof(models__set));
}

static void model_free(model *m)
{
	free(m->id);
	free(m->title);
	free(m->origin);
	for (size_t i = 0; i < m->nal; i++) {
		free(m->al[i].name);
		for (size_t k = 0; k < m->al[i].nnames; k++)
			free(m->al[i].names[k]);
		free(m->al[i].names);
	}
	free(m->al);
	for (size_t i = 0; i < m->nmt; i++) {
		free(m->mt[i].name);
		free(m->mt[i].unit);
		free(m->mt[i].nodes);
	}
	free(m->mt);
}

void models__free(models__set *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		model_free(&m->m[i]);
	free(m->m);
	free(m);
}

size_t models__count(const models__set *m)
{
	return m ? m->n : 0;
}

size_t models__max_metrics(const models__set *m)
{
	size_t t = 0;
	for (size_t i = 0; m && i < m->n; i++)
		t += m->m[i].nmt;
	return t;
}

const char *models__metric_name(const models__set *m, size_t mi, size_t k)
{
	if (!m || mi >= m->n || k >= m->m[mi].nmt)
		return NULL;
	return m->m[mi].mt[k].name;
}

/* --- expression parser --- */

typedef struct parser {
	const char *p;
	const model *md;
	metric *mt;
	size_t cap;
	char *err;
	size_t errlen;
} parser;

static void skip_ws(parser *P)
{
	while (*P->p == ' ' || *P->p == '\t')
		P->p++;
}

static int new_node(parser *P, node n)
{
	if (util_grow((void **)&P->mt->nodes, &P->cap, P->mt->nnodes + 1, sizeof *P->mt->nodes))
		return -1;
	P->mt->nodes[P->mt->nnodes] = n;
	return (int)P->mt->nnodes++;
}

static int parse_expr(parser *P);

static int parse_primary(parser *P)
{
	skip_ws(P);
	const char *s = P->p;
	if (*s == '(') {
		P->p++;
		int e = parse_expr(P);
		skip_ws(P);
		if (e < 0)
			return -1;
		if (*P->p != ')') {
			snprintf(P->err, P->errlen, "expected ')' at \"%.20s\"", P->p);
			return -1;
		}
		P->p++;
		return e;
	}
	if (isdigit((unsigned char)*s) || *s == '.') {
		char *end;
		double v = strtod(s, &end);
		if (end == s) {
			snprintf(P->err, P->errlen, "bad number at \"%.20s\"", s);
			return -1;
		}
		P->p = end;
		return new_node(P, (node){N_NUM, v, 0, -1, -1});
	}
	if (isalpha((unsigned char)*s) || *s == '_') {
		size_t len = 0;
		while (isalnum((unsigned char)s[len]) || s[len] == '_')
			len++;
		P->p = s + len;
		if ((len == 3 && !strncmp(s, "min", 3)) || (len == 3 && !strncmp(s, "max", 3))) {
			int op = s[1] == 'i' ? N_MIN : N_MAX;
			skip_ws(P);
			if (*P->p != '(') {
				snprintf(P->err, P->errlen, "expected '(' after %.3s", s);
				return -1;
			}
			P->p++;
			int l = parse_expr(P);
			skip_ws(P);
			if (l < 0 || *P->p != ',') {
				if (l >= 0)
					snprintf(P->err, P->errlen, "expected ',' in %.3s(a, b)", s);
				return -1;
			}
			P->p++;
			int r = parse_expr(P);
			skip_ws(P);
			if (r < 0 || *P->p != ')') {
				if (r >= 0)
					snprintf(P->err, P->errlen, "expected ')' closing %.3s(a, b)", s);
				return -1;
			}
			P->p++;
			return new_node(P, (node){op, 0, 0, l, r});
		}
		for (size_t i = 0; i < P->md->nal; i++)
			if (strlen(P->md->al[i].name) == len && !strncmp(P->md->al[i].name, s, len))
				return new_node(P, (node){N_VAR, 0, (int)i, -1, -1});
		snprintf(P->err, P->errlen,
		         "unknown counter alias \"%.*s\" (declare it with a counter line first)", (int)len,
		         s);
		return -1;
	}
	snprintf(P->err, P->errlen, "unexpected \"%.20s\"", s);
	return -1;
}

static int parse_unary(parser *P)
{
	skip_ws(P);
	if (*P->p == '-') {
		P->p++;
		int e = parse_unary(P);
		return e < 0 ? -1 : new_node(P, (node){N_NEG, 0, 0, e, -1});
	}
	return parse_primary(P);
}

static int parse_term(parser *P)
{
	int l = parse_unary(P);
	for (;;) {
		if (l < 0)
			return -1;
		skip_ws(P);
		char c = *P->p;
		if (c != '*' && c != '/')
			return l;
		P->p++;
		int r = parse_unary(P);
		if (r < 0)
			return -1;
		l = new_node(P, (node){c == '*' ? N_MUL : N_DIV, 0, 0, l, r});
	}
}

static int parse_expr(parser *P)
{
	int l = parse_term(P);
	for (;;) {
		if (l < 0)
			return -1;
		skip_ws(P);
		char c = *P->p;
		if (c != '+' && c != '-')
			return l;
		P->p++;
		int r = parse_term(P);
		if (r < 0)
			return -1;
		l = new_node(P, (node){c == '+' ? N_ADD : N_SUB, 0, 0, l, r});
	}
}

static double eval_node(const metric *mt, int i, const double *vals)
{
	const node *n = &mt->nodes[i];
	switch (n->op) {
	case N_NUM: return n->num;
	case N_VAR: return vals[n->var];
	case N_NEG: return -eval_node(mt, n->l, vals);
	default: break;
	}
	double a = eval_node(mt, n->l, vals), b = eval_node(mt, n->r, vals);
	switch (n->op) {
	case N_ADD: return a + b;
	case N_SUB: return a - b;
	case N_MUL: return a * b;
	case N_DIV: return b != 0 ? a / b : NAN;
	case N_MIN: return a < b ? a : b;
	case N_MAX: return a > b ? a : b;
	default: return NAN;
	}
}

/* --- file parser --- */

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return s;
}

/* Next whitespace-delimited token, or a "quoted string". */
static char *token(char **sp)
{
	char *s = *sp;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return NULL;
	char *start;
	if (*s == '"') {
		start = ++s;
		while (*s && *s != '"')
			s++;
	} else {
		start = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
	}
	if (*s)
		*s++ = 0;
	*sp = s;
	return start;
}

int models__parse(models__set *ms, const char *text, const char *origin, char *err, size_t errlen)
{
	model md;
	memset(&md, 0, sizeof md);
	md.origin = strdup(origin ? origin : "(model)");
	char *copy = strdup(text);
	int rc = -ENOMEM;
	unsigned lineno = 0;
	char msg[256] = "";
	if (!copy || !md.origin)
		goto fail;
	rc = -EINVAL;
	for (char *line = copy, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *s = trim(line);
		if (!*s)
			continue;
		char *kw = token(&s);
		if (!strcmp(kw, "model")) {
			char *id = token(&s);
			if (!id || md.id) {
				snprintf(msg, sizeof msg, "%s",
				         id ? "a second model line" : "model needs a name");
				goto bad;
			}
			md.id = strdup(id);
		} else if (!strcmp(kw, "title")) {
			free(md.title);
			md.title = strdup(trim(s));
		} else if (!strcmp(kw, "counter")) {
			char *name = token(&s);
			char *eq = token(&s);
			if (!name || !eq || strcmp(eq, "=")) {
				snprintf(msg, sizeof msg, "expected: counter ALIAS = NAME | NAME ...");
				goto bad;
			}
			if (util_grow((void **)&md.al, &md.cap_al, md.nal + 1, sizeof *md.al))
				goto fail_nomem;
			alias *a = &md.al[md.nal++];
			memset(a, 0, sizeof *a);
			a->name = strdup(name);
			char *save = NULL;
			for (char *alt = strtok_r(s, "|", &save); alt; alt = strtok_r(NULL, "|", &save)) {
				char *t = trim(alt);
				if (!*t)
					continue;
				if (util_grow((void **)&a->names, &a->cap_names, a->nnames + 1,
				              sizeof *a->names))
					goto fail_nomem;
				a->names[a->nnames++] = strdup(t);
			}
			if (!a->nnames) {
				snprintf(msg, sizeof msg, "counter %s lists no counter name", name);
				goto bad;
			}
		} else if (!strcmp(kw, "metric")) {
			char *name = token(&s), *unit = token(&s), *eq = token(&s);
			if (!name || !unit || !eq || strcmp(eq, "=")) {
				snprintf(msg, sizeof msg, "expected: metric NAME UNIT = EXPRESSION");
				goto bad;
			}
			if (util_grow((void **)&md.mt, &md.cap_mt, md.nmt + 1, sizeof *md.mt))
				goto fail_nomem;
			metric *mt = &md.mt[md.nmt++];
			memset(mt, 0, sizeof *mt);
			mt->name = strdup(name);
			mt->unit = strdup(unit);
			parser P = {s, &md, mt, 0, msg, sizeof msg};
			mt->root = parse_expr(&P);
			if (mt->root < 0)
				goto bad;
			skip_ws(&P);
			if (*P.p) {
				snprintf(msg, sizeof msg, "unexpected \"%.20s\" after the expression", P.p);
				goto bad;
			}
		} else {
			snprintf(msg, sizeof msg,
			         "unknown keyword \"%s\" (expected model, title, counter or metric)", kw);
			goto bad;
		}
	}
	if (!md.id || !md.nmt) {
		snprintf(err, errlen, "%s: a model needs a model line and at least one metric line",
		         md.origin);
		goto fail;
	}
	if (util_grow((void **)&ms->m, &ms->cap, ms->n + 1, sizeof *ms->m))
		goto fail_nomem;
	ms->m[ms->n++] = md;
	free(copy);
	return 0;
bad:
	snprintf(err, errlen, "%s:%u: %s", md.origin, lineno, msg);
	goto fail;
fail_nomem:
	rc = -ENOMEM;
	snprintf(err, errlen, "%s: out of memory", md.origin);
fail:
	model_free(&md);
	free(copy);
	return rc;
}

static int try_dir(const char *share, char *out, size_t len)
{
	int n = snprintf(out, len, "%s/models", share);
	return n > 0 && (size_t)n < len && access(out, R_OK | X_OK) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int models__load(const char *dir, models__set **out, trace_diag_fn diag, void *diag_arg)
{
	char path[PATH_MAX + 16], exe[PATH_MAX], cand[PATH_MAX + 64];
	int found = 0;
	models__set *ms = models__new();
	if (!ms)
		return -ENOMEM;
	*out = ms;
	const char *env = getenv("FOLD_SHARE_DIR");
	if (dir)
		found = try_dir(dir, path, sizeof path);
	if (!found && env && *env)
		found = try_dir(env, path, sizeof path);
	if (!found) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n > 0) {
			exe[n] = 0;
			char *slash = strrchr(exe, '/');
			if (slash)
				*slash = 0;
			int w = snprintf(cand, sizeof cand, "%s/../%s", exe, FOLD_SHARE_RELDIR);
			found = w > 0 && (size_t)w < sizeof cand && try_dir(cand, path, sizeof path);
		}
	}
	if (!found)
		found = try_dir(FOLD_SOURCE_SHARE_DIR, path, sizeof path);
	if (!found)
		return 0;
	DIR *d = opendir(path);
	if (!d)
		return 0;
	char **names = NULL;
	size_t nn = 0, cap_names = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 7 || strcmp(de->d_name + l - 6, ".model"))
			continue;
		if (util_grow((void **)&names, &cap_names, nn + 1, sizeof *names))
			break;
		names[nn++] = strdup(de->d_name);
	}
	closedir(d);
	/* Sorted, so the order of metrics in the output is deterministic. */
	qsort(names, nn, sizeof *names, cmp_str);
	for (size_t i = 0; i < nn; i++) {
		char file[PATH_MAX + 256];
		snprintf(file, sizeof file, "%s/%s", path, names[i]);
		int fd = util_open_regular(file, NULL);
		FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
		free(names[i]);
		if (!f) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		char *text = NULL;
		size_t cap = 0;
		ssize_t got = getdelim(&text, &cap, '\0', f);
		fclose(f);
		if (got < 0) {
			free(text);
			continue;
		}
		char err[512];
		int rc = models__parse(ms, text, file, err, sizeof err);
		free(text);
		if (rc && diag) {
			char line[600];
			snprintf(line, sizeof line, "model skipped: %s", err);
			diag(diag_arg, line);
		}
	}
	free(names);
	return 0;
}

/* Index in names[] of the alias's first present counter, or -1. */
static int resolve(const alias *a, const char *const *names, size_t n)
{
	for (size_t k = 0; k < a->nnames; k++)
		for (size_t i = 0; i < n; i++)
			if (names[i] && !strcmp(a->names[k], names[i]))
				return (int)i;
	return -1;
}

static void alias_list(const alias *a, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	for (size_t k = 0; k < a->nnames && o < len; k++) {
		int w = snprintf(buf + o, len - o, "%s%s", k ? " | " : "", a->names[k]);
		if (w < 0)
			break;
		o += (size_t)w;
	}
}

int models__classify(const models__set *m, fold_analysis *a)
{
	if (!m || !m->n)
		return 0;
	const char **names = calloc(a->ncounters + 1, sizeof *names);
	a->models_skipped = calloc(m->n, sizeof *a->models_skipped);
	a->models_used = calloc(m->n, sizeof *a->models_used);
	if (!names || !a->models_skipped || !a->models_used) {
		free(names);
		return -ENOMEM;
	}
	for (size_t i = 0; i < a->ncounters; i++)
		names[i] = a->counters[i].name;
	for (size_t j = 0; j < m->n; j++) {
		const model *md = &m->m[j];
		size_t k;
		for (k = 0; k < md->nal; k++)
			if (resolve(&md->al[k], names, a->ncounters) < 0)
				break;
		if (k == md->nal) {
			a->models_used[a->nmodels_used] = strdup(md->id);
			if (a->models_used[a->nmodels_used])
				a->nmodels_used++;
			continue;
		}
		char alts[256];
		alias_list(&md->al[k], alts, sizeof alts);
		fold_kv *kv = &a->models_skipped[a->nmodels_skipped];
		kv->key = strdup(md->id);
		if (asprintf(&kv->value, "no counter for %s (%s) in the trace", md->al[k].name, alts) < 0)
			kv->value = NULL;
		if (!kv->key || !kv->value) {
			free(kv->key);
			free(kv->value);
			free(names);
			return -ENOMEM;
		}
		a->nmodels_skipped++;
	}
	free(names);
	return 0;
}

int models__eval(const models__set *m, size_t mi, size_t k, const char *const *names, const double *rates,
                 size_t n, double *out)
{
	if (!m || mi >= m->n || k >= m->m[mi].nmt)
		return -EINVAL;
	const model *md = &m->m[mi];
	double vals[64];
	if (md->nal > 64)
		return -E2BIG;
	for (size_t i = 0; i < md->nal; i++) {
		int ix = resolve(&md->al[i], names, n);
		if (ix < 0)
			return -ENOENT;
		vals[i] = rates[ix];
	}
	*out = eval_node(&md->mt[k], md->mt[k].root, vals);
	return 0;
}

int models__apply(const models__set *m, fold_region_result *r)
{
	if (!m || !r->nseries)
		return 0;
	size_t nbase = r->nseries;
	const char **names = calloc(nbase, sizeof *names);
	double *rates = calloc(nbase, sizeof *rates);
	int rc = -ENOMEM;
	if (!names || !rates)
		goto out;
	for (size_t i = 0; i < nbase; i++)
		names[i] = r->series[i].derived ? NULL : r->series[i].name;
	size_t G = r->series[0].fit.n;
	for (size_t j = 0; j < m->n; j++) {
		const model *md = &m->m[j];
		int ix[64];
		int ok = md->nal <= 64;
		for (size_t k = 0; ok && k < md->nal; k++)
			ok = (ix[k] = resolve(&md->al[k], names, nbase)) >= 0;
		if (!ok)
			continue;
		/* A breakdown (every metric a share, at least two) is named
		 * "<model>/<metric>", which the report draws as one stacked chart. */
		int breakdown = md->nmt >= 2;
		for (size_t q = 0; breakdown && q < md->nmt; q++)
			breakdown = !strcmp(md->mt[q].unit, "share");
		for (size_t q = 0; q < md->nmt; q++) {
			const metric *mt = &md->mt[q];
			/* The caller sized r->series and the phase arrays for every metric of every model. */
			fold_series *s = &r->series[r->nseries];
			memset(s, 0, sizeof *s);
			if (breakdown) {
				size_t len = strlen(md->id) + strlen(mt->name) + 2;
				s->name = malloc(len);
				if (s->name)
					snprintf(s->name, len, "%s/%s", md->id, mt->name);
			} else {
				s->name = strdup(mt->name);
			}
			s->unit = strdup(mt->unit);
			s->derived = 1;
			/* measured at the boundaries only if all its inputs are */
			for (size_t k = 0; k < md->nal; k++)
				s->boundaries_estimated |= r->series[ix[k]].boundaries_estimated;
			s->fit.n = G;
			s->fit.x = malloc(G * sizeof(double));
			s->fit.value = malloc(G * sizeof(double));
			r->nseries++;
			if (!s->name || !s->unit || !s->fit.x || !s->fit.value)
				goto out;
			double vals[64];
			for (size_t g = 0; g < G; g++) {
				for (size_t k = 0; k < md->nal; k++)
					vals[k] = r->series[ix[k]].fit.value[g];
				s->fit.x[g] = r->series[0].fit.x[g];
				s->fit.value[g] = eval_node(mt, mt->root, vals);
			}
			for (size_t k = 0; k < md->nal; k++)
				vals[k] = r->series[ix[k]].mean_rate;
			s->mean_rate = eval_node(mt, mt->root, vals);
			for (size_t p = 0; p < r->nphases; p++) {
				fold_phase_result *ph = &r->phases[p];
				for (size_t k = 0; k < md->nal; k++) {
					vals[k] = NAN;
					for (size_t t = 0; t < ph->nrates; t++)
						if (!strcmp(ph->rate_names[t], r->series[ix[k]].name))
							vals[k] = ph->rates[t];
				}
				ph->rate_names[ph->nrates] = strdup(mt->name);
				if (!ph->rate_names[ph->nrates])
					goto out;
				ph->rates[ph->nrates++] = eval_node(mt, mt->root, vals);
			}
		}
	}
	rc = 0;
out:
	free(names);
	free(rates);
	return rc;
}
