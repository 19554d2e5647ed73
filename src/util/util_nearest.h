/* util_nearest.h: "did you mean": the edit distance between two names and
 * the nearest few of a list of known names. Header-only and allocation-free
 * (a bounded row on the stack), so the runtime (src/runtime) uses it at
 * library constructor time as well as the CLI and the analysis, which get
 * it through util.h.
 *
 * Names are compared ASCII case-insensitively (FOLD_sample is one edit from
 * nothing: it is FOLD_SAMPLE); names longer than UTIL_NEAREST_MAXLEN are
 * compared on their first UTIL_NEAREST_MAXLEN characters.
 */
#ifndef FOLD_UTIL_NEAREST_H
#define FOLD_UTIL_NEAREST_H

#include <stddef.h>

#define UTIL_NEAREST_MAXLEN 255
#define UTIL_NEAREST_MAX 8 /* most suggestions util_nearest returns */

static inline char util_nearest_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Levenshtein distance (insertions, deletions, substitutions) of a and b. */
static inline unsigned util_edit_distance(const char *a, const char *b)
{
	unsigned row[UTIL_NEAREST_MAXLEN + 1];
	size_t nb = 0;
	while (b[nb] && nb < UTIL_NEAREST_MAXLEN)
		nb++;
	for (size_t j = 0; j <= nb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 0; a[i] && i < UTIL_NEAREST_MAXLEN; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i + 1;
		for (size_t j = 1; j <= nb; j++) {
			unsigned up = row[j];
			unsigned sub = diag + (util_nearest_lower(a[i]) != util_nearest_lower(b[j - 1]));
			unsigned best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
			row[j] = sub < best ? sub : best;
			diag = up;
		}
	}
	return row[nb];
}

/* How far a name may be from a known one to be offered as "did you mean":
 * a third of its length, at least 2. */
static inline unsigned util_typo_bound(const char *name)
{
	size_t n = 0;
	while (name[n])
		n++;
	return n / 3 > 2 ? (unsigned)(n / 3) : 2;
}

/* The name of candidate i of a caller's table. */
typedef const char *(*util_nearest_name_fn)(const void *arg, size_t i);

/* The up to k (at most UTIL_NEAREST_MAX) candidates nearest to name, among
 * the n that name_of gives, that are at most max_dist edits away: their
 * indexes into idx, nearest first (ties in table order). Candidates equal
 * to name and NULL names are skipped. Returns how many. */
static inline size_t util_nearest(const char *name, util_nearest_name_fn name_of, const void *arg, size_t n,
                                  unsigned max_dist, size_t k, size_t *idx)
{
	unsigned dist[UTIL_NEAREST_MAX];
	size_t got = 0;
	if (k > UTIL_NEAREST_MAX)
		k = UTIL_NEAREST_MAX;
	for (size_t i = 0; i < n && k; i++) {
		const char *cand = name_of(arg, i);
		if (!cand)
			continue;
		size_t e = 0;
		while (name[e] && name[e] == cand[e])
			e++;
		if (!name[e] && !cand[e])
			continue; /* the name itself */
		unsigned d = util_edit_distance(name, cand);
		if (d > max_dist || (got == k && d >= dist[got - 1]))
			continue;
		size_t at = got < k ? got++ : k - 1;
		while (at > 0 && dist[at - 1] > d) {
			dist[at] = dist[at - 1];
			idx[at] = idx[at - 1];
			at--;
		}
		dist[at] = d;
		idx[at] = i;
	}
	return got;
}

#endif
