/* html_profile.c: the profiles section of the HTML report: the exact region
 * profile (calls, inclusive/exclusive time), caller-callee pairs, a flat
 * sampled function table, and the sampled call tree top-down and bottom-up.
 *
 * Trees are nested <details> elements so they fold open without a script.
 * Nodes under REPORT_TREE_MIN_SHARE of all samples are left out (the tree
 * says how many) to keep big programs' reports small; the top-down tree
 * comes from fold_analysis.cct, the bottom-up tree from fold_analysis.bottom_up
 * (both built by the analysis; this file only lays them out).
 */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "profile_cost.h"

#define REPORT_TREE_MIN_SHARE 0.001
#define REPORT_TREE_OPEN_SHARE 0.05

/* Rows of the per-thread table at most: a run with thousands of threads
 * must not turn the report into megabytes of table. */
#define REPORT_PROFILE_THREAD_ROWS 2000

/* The same profile per (process, thread), for regions that ran on more than
 * one thread: where the aggregate hides imbalance. Folded away by default. */
static void profile_thread_table(html_ctx *h)
{
	const fold_analysis *a = h->a;
	char buf[64];
	size_t rows = 0, shown = 0;
	for (size_t i = 0; i < a->nprofile; i++)
		if (a->profile[i].nper_thread > 1)
			rows += a->profile[i].nper_thread;
	if (!rows)
		return;
	util_buf_printf(h->b,
	                "<details id=\"profile-threads\"><summary>Per thread (%zu rows)</summary>"
	                "<div class=\"tablewrap\"><table class=\"sortable\"><thead><tr><th>region</th>"
	                "<th class=\"n\">rank</th><th class=\"n\">thread</th><th class=\"n\">calls</th>"
	                "<th class=\"n\">inclusive</th><th class=\"n\">exclusive</th><th class=\"n\">min</th>"
	                "<th class=\"n\">max</th></tr></thead><tbody>\n",
	                rows);
	for (size_t i = 0; i < a->nprofile && shown < REPORT_PROFILE_THREAD_ROWS; i++) {
		const fold_profile_entry *e = &a->profile[i];
		if (e->nper_thread < 2)
			continue;
		for (size_t k = 0; k < e->nper_thread && shown < REPORT_PROFILE_THREAD_ROWS; k++, shown++) {
			const fold_profile_thread *t = &e->per_thread[k];
			util_buf_puts(h->b, "<tr><td class=\"fn\">");
			report_html_fn(h, e->name);
			util_buf_puts(h->b, "</td>");
			if (t->rank >= 0)
				snprintf(buf, sizeof buf, "%ld", t->rank);
			else
				snprintf(buf, sizeof buf, "-");
			report_html_num_cell(h, (double)t->rank, buf);
			snprintf(buf, sizeof buf, "%u", t->thread);
			report_html_num_cell(h, t->thread, buf);
			snprintf(buf, sizeof buf, "%lu", t->calls);
			report_html_num_cell(h, (double)t->calls, buf);
			report_fmt_ns(buf, sizeof buf, t->inclusive_ns);
			report_html_num_cell(h, t->inclusive_ns, buf);
			report_fmt_ns(buf, sizeof buf, t->exclusive_ns);
			report_html_num_cell(h, t->exclusive_ns, buf);
			report_fmt_ns(buf, sizeof buf, t->min_ns);
			report_html_num_cell(h, t->min_ns, buf);
			report_fmt_ns(buf, sizeof buf, t->max_ns);
			report_html_num_cell(h, t->max_ns, buf);
			util_buf_puts(h->b, "</tr>\n");
		}
	}
	util_buf_puts(h->b, "</tbody></table></div>");
	if (shown < rows)
		util_buf_printf(h->b,
		                "<p class=\"note\">%zu more rows not shown; fold --csv has them all.</p>",
		                rows - shown);
	util_buf_puts(h->b, "</details>\n");
}

/* One row for the profile entries from `from` on (aggregate.h): their
 * calls and exclusive time summed (inclusive times of nested regions do
 * not add up). */
static void profile_rest_row(html_ctx *h, size_t from, double total_excl, int cost, int unbalanced)
{
	const fold_analysis *a = h->a;
	unsigned long calls = 0;
	double excl = 0;
	char buf[64];
	for (size_t i = from; i < a->nprofile; i++) {
		calls += a->profile[i].calls;
		excl += a->profile[i].exclusive_ns;
	}
	util_buf_printf(h->b,
	                "<tfoot><tr class=\"rest\" id=\"profile-rest\"><td>%zu more regions (the whole "
	                "profile: JSON, CSV, <code>fold profile</code>)</td><td></td>",
	                a->nprofile - from);
	snprintf(buf, sizeof buf, "%lu", calls);
	report_html_num_cell(h, (double)calls, buf);
	util_buf_puts(h->b, cost ? "<td></td><td></td>" : "<td></td>");
	report_fmt_ns(buf, sizeof buf, excl);
	report_html_num_cell(h, excl, buf);
	snprintf(buf, sizeof buf, "%.1f%%", total_excl > 0 ? 100 * excl / total_excl : 0);
	report_html_num_cell(h, total_excl > 0 ? 100 * excl / total_excl : 0, buf);
	util_buf_puts(h->b, unbalanced ? "<td></td><td></td><td></td><td></td><td></td></tr></tfoot>"
	                               : "<td></td><td></td><td></td><td></td></tr></tfoot>");
}

static void profile_table(html_ctx *h)
{
	const fold_analysis *a = h->a;
	char buf[128];
	util_buf_puts(h->b, "<h3>Exact region profile</h3>");
	if (!a->nprofile) {
		util_buf_puts(h->b, "<p class=\"note\">No instrumented regions were recorded.</p>");
		return;
	}
	double total_excl = 0;
	unsigned long unbalanced = 0;
	for (size_t i = 0; i < a->nprofile; i++) {
		total_excl += a->profile[i].exclusive_ns;
		unbalanced += a->profile[i].unbalanced;
	}
	int cost = report_profile_has_cost(a);
	if (a->hook_overhead_ns > 0 || cost) {
		util_buf_puts(h->b, "<p class=\"note\" id=\"hook-overhead\">");
		if (a->hook_overhead_ns > 0)
			util_buf_printf(
			    h->b,
			    "fold's compiler hooks cost %.1f ns per call when their code and data "
			    "are cached (calibrated when the run started), more after code that "
			    "evicted them (measured per call). ",
			    a->hook_overhead_ns);
		if (cost)
			util_buf_puts(h->b,
			              "What fold measured of its own work inside the calls (their hooks, "
			              "the nested calls' hooks, trace writing) is taken out of these times "
			              "and shown as <b>fold's cost</b>: a timer the program keeps right "
			              "around the calls holds inclusive + fold's cost, and the way into "
			              "and out of the hooks beyond their calibrated cost, which no clock "
			              "of fold's sees (10-60 ns per call after a kernel that evicted the "
			              "caches).");
		else
			util_buf_puts(h->b, "It is subtracted from these times.");
		util_buf_puts(h->b, "</p>");
	}
	util_buf_puts(h->b,
	              "<div class=\"tablewrap\"><table class=\"sortable\" id=\"profile-table\"><thead><tr>"
	              "<th>region</th><th>kind</th><th class=\"n\">calls</th><th class=\"n\">inclusive</th>");
	if (cost)
		util_buf_puts(h->b,
		              "<th class=\"n\" title=\"fold's own measured work inside these calls "
		              "(their hooks, nested calls' hooks, trace writing), taken out of "
		              "the times; in parentheses its share of inclusive + it\">fold's cost</th>");
	util_buf_puts(h->b,
	              "<th class=\"n\">exclusive</th><th class=\"n\">excl. %</th><th class=\"n\">min</th>"
	              "<th class=\"n\">mean</th><th class=\"n\">max</th><th class=\"n\">threads</th>");
	if (unbalanced)
		util_buf_puts(h->b, "<th class=\"n\" title=\"enters without exit and exits without enter\">"
		                    "unbalanced</th>");
	util_buf_puts(h->b, "</tr></thead><tbody>\n");
	size_t rows = a->nprofile < REPORT_PROFILE_HTML_ROWS ? a->nprofile : REPORT_PROFILE_HTML_ROWS;
	for (size_t i = 0; i < rows; i++) {
		const fold_profile_entry *e = &a->profile[i];
		util_buf_puts(h->b, e->throttled ? "<tr class=\"throttled\"><td class=\"fn\">"
		                                 : "<tr><td class=\"fn\">");
		report_html_fn(h, e->name);
		if (e->throttled)
			util_buf_puts(
			    h->b, " <span class=\"badge\" title=\"calls after the throttling were not "
			          "recorded: calls, exclusive and per-call times are the recorded calls\">"
			          "throttled</span>");
		util_buf_printf(h->b, "</td><td>%s</td>", fold_region_kind_label(e->kind));
		snprintf(buf, sizeof buf, e->throttled ? "%lu+" : "%lu", e->calls);
		report_html_num_cell(h, (double)e->calls, buf);
		if (e->throttled && e->est_samples) {
			char est[32], err[32];
			report_fmt_ns(est, sizeof est, e->est_inclusive_ns);
			report_fmt_ns(err, sizeof err, e->est_inclusive_err_ns);
			snprintf(buf, sizeof buf, "~%s \u00b1 %s (%lu samples)", est, err, e->est_samples);
			report_html_num_cell(h, e->est_inclusive_ns, buf);
		} else {
			report_fmt_ns(buf, sizeof buf, e->inclusive_ns);
			report_html_num_cell(h, e->inclusive_ns, buf);
		}
		if (cost) {
			double c = report_profile_cost_ns(e);
			char v[32];
			report_fmt_ns(v, sizeof v, c);
			double pc = 100 * c / (e->inclusive_ns + c);
			if (c > 0 && pc < 0.001)
				snprintf(buf, sizeof buf, "%s (<0.001%%)", v);
			else if (c > 0) /* two digits below 1%: 0.021%, not "0.0%" */
				snprintf(buf, sizeof buf, pc < 1 ? "%s (%.2g%%)" : "%s (%.1f%%)", v, pc);
			else
				snprintf(buf, sizeof buf, "-");
			report_html_num_cell(h, c, buf);
		}
		report_fmt_ns(buf, sizeof buf, e->exclusive_ns);
		report_html_num_cell(h, e->exclusive_ns, buf);
		double pct = total_excl > 0 ? 100 * e->exclusive_ns / total_excl : 0;
		snprintf(buf, sizeof buf, "%.1f%%", pct);
		report_html_num_cell(h, pct, buf);
		report_fmt_ns(buf, sizeof buf, e->min_ns);
		report_html_num_cell(h, e->min_ns, buf);
		report_fmt_ns(buf, sizeof buf, e->mean_ns);
		report_html_num_cell(h, e->mean_ns, buf);
		report_fmt_ns(buf, sizeof buf, e->max_ns);
		report_html_num_cell(h, e->max_ns, buf);
		snprintf(buf, sizeof buf, "%u", e->nthreads);
		report_html_num_cell(h, e->nthreads, buf);
		if (unbalanced) {
			snprintf(buf, sizeof buf, "%lu", e->unbalanced);
			report_html_num_cell(h, (double)e->unbalanced, buf);
		}
		util_buf_puts(h->b, "</tr>\n");
	}
	util_buf_puts(h->b, "</tbody>");
	if (rows < a->nprofile)
		profile_rest_row(h, rows, total_excl, cost, unbalanced != 0);
	util_buf_puts(h->b, "</table></div>\n");
	profile_thread_table(h);
}

static void callpair_table(html_ctx *h)
{
	const fold_analysis *a = h->a;
	char buf[64];
	if (!a->ncallpairs)
		return;
	util_buf_puts(h->b,
	              "<h3>Callers and callees</h3><div class=\"tablewrap\"><table class=\"sortable\" "
	              "id=\"callpairs\"><thead><tr><th>caller</th><th>callee</th><th class=\"n\">calls</th>"
	              "<th class=\"n\">inclusive</th></tr></thead><tbody>\n");
	size_t rows = a->ncallpairs < REPORT_PROFILE_HTML_ROWS ? a->ncallpairs : REPORT_PROFILE_HTML_ROWS;
	for (size_t i = 0; i < rows; i++) {
		const fold_callpair *c = &a->callpairs[i];
		util_buf_puts(h->b, "<tr><td class=\"fn\">");
		report_html_fn(h, c->caller);
		util_buf_puts(h->b, "</td><td class=\"fn\">");
		report_html_fn(h, c->callee);
		util_buf_puts(h->b, "</td>");
		snprintf(buf, sizeof buf, "%lu", c->calls);
		report_html_num_cell(h, (double)c->calls, buf);
		report_fmt_ns(buf, sizeof buf, c->inclusive_ns);
		report_html_num_cell(h, c->inclusive_ns, buf);
		util_buf_puts(h->b, "</tr>\n");
	}
	util_buf_puts(h->b, "</tbody>");
	if (rows < a->ncallpairs) {
		unsigned long calls = 0;
		for (size_t i = rows; i < a->ncallpairs; i++)
			calls += a->callpairs[i].calls;
		util_buf_printf(
		    h->b,
		    "<tfoot><tr class=\"rest\"><td colspan=\"2\">%zu more pairs (all of them: JSON, "
		    "CSV)</td><td class=\"n\">%lu</td><td></td></tr></tfoot>",
		    a->ncallpairs - rows, calls);
	}
	util_buf_puts(h->b, "</table></div>\n");
}

static int same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Flat table: self samples and total samples per function (a function that
 * recurses is counted once per sample for its total). */
typedef struct flat_entry {
	const char *function, *file;
	unsigned line;
	unsigned long self, total;
} flat_entry;

static int cmp_flat(const void *a, const void *b)
{
	const flat_entry *x = a, *y = b;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return (x->total < y->total) - (x->total > y->total);
}

static void flat_table(html_ctx *h, unsigned long total)
{
	const fold_analysis *a = h->a;
	flat_entry *fl = calloc(a->ncct ? a->ncct : 1, sizeof *fl);
	if (!fl) {
		h->b->oom = 1;
		return;
	}
	size_t n = 0;
	for (size_t i = 0; i < a->ncct; i++) {
		const fold_cct_node *c = &a->cct[i];
		size_t k = 0;
		while (k < n && !same_name(fl[k].function, c->function))
			k++;
		if (k == n)
			fl[n++] = (flat_entry){c->function, c->file, c->line, 0, 0};
		fl[k].self += c->self_samples;
		int outer = 1;
		for (size_t p = c->parent; p != SIZE_MAX && p < a->ncct && outer; p = a->cct[p].parent)
			outer = !same_name(a->cct[p].function, c->function);
		if (outer)
			fl[k].total += c->total_samples;
	}
	qsort(fl, n, sizeof *fl, cmp_flat);
	char buf[64];
	util_buf_puts(
	    h->b, "<h3>Sampled functions</h3><div class=\"tablewrap\"><table class=\"sortable\" "
	          "id=\"functions\"><thead><tr><th>function</th><th>location</th><th class=\"n\">self</th>"
	          "<th class=\"n\">self %</th><th class=\"n\">total</th><th class=\"n\">total %</th>"
	          "</tr></thead><tbody>\n");
	for (size_t i = 0; i < n && i < 500; i++) {
		util_buf_puts(h->b, "<tr><td class=\"fn\">");
		report_html_fn(h, fl[i].function);
		util_buf_puts(h->b, "</td><td>");
		report_html_loc(h, fl[i].file, fl[i].line);
		util_buf_puts(h->b, "</td>");
		snprintf(buf, sizeof buf, "%lu", fl[i].self);
		report_html_num_cell(h, (double)fl[i].self, buf);
		double sp = total ? 100.0 * (double)fl[i].self / (double)total : 0;
		snprintf(buf, sizeof buf, "%.1f%%", sp);
		report_html_num_cell(h, sp, buf);
		snprintf(buf, sizeof buf, "%lu", fl[i].total);
		report_html_num_cell(h, (double)fl[i].total, buf);
		double tp = total ? 100.0 * (double)fl[i].total / (double)total : 0;
		snprintf(buf, sizeof buf, "%.1f%%", tp);
		report_html_num_cell(h, tp, buf);
		util_buf_puts(h->b, "</tr>\n");
	}
	util_buf_puts(h->b, "</tbody></table></div>\n");
	if (n > 500)
		util_buf_printf(h->b, "<p class=\"note\">500 of %zu functions shown.</p>", n);
	free(fl);
}

/* A generic tree for rendering: the CCT top-down, or the bottom-up tree. */
typedef struct tree_node {
	const char *function, *file;
	unsigned line;
	unsigned long self, total;
	size_t first_child, next_sibling;
} tree_node;

/* The sampled flat profile by source line (fold_analysis.lines). */
static void line_table(html_ctx *h)
{
	const fold_analysis *a = h->a;
	if (!a->nlines)
		return;
	char buf[64];
	util_buf_puts(h->b, "<h3>Sampled lines</h3><div class=\"tablewrap\"><table class=\"sortable\" "
	                    "id=\"lines\"><thead><tr><th>line</th><th>function</th><th>inlined into</th>"
	                    "<th class=\"n\">samples</th><th class=\"n\">share</th></tr></thead><tbody>\n");
	size_t shown = a->nlines < 500 ? a->nlines : 500;
	for (size_t i = 0; i < shown; i++) {
		const fold_attribution *l = &a->lines[i];
		util_buf_puts(h->b, "<tr><td>");
		report_html_loc(h, l->file, l->line);
		util_buf_puts(h->b, "</td><td class=\"fn\">");
		report_html_fn(h, l->function);
		util_buf_puts(h->b, "</td><td class=\"fn\">");
		/* the out-of-line function the line was inlined into, if any */
		report_html_fn(h, l->ninline > 1 ? l->inline_chain[l->ninline - 1].function : "");
		util_buf_puts(h->b, "</td>");
		snprintf(buf, sizeof buf, "%lu", l->samples);
		report_html_num_cell(h, (double)l->samples, buf);
		snprintf(buf, sizeof buf, "%.1f%%", 100 * l->share);
		report_html_num_cell(h, l->share, buf);
		util_buf_puts(h->b, "</tr>\n");
	}
	util_buf_puts(h->b, "</tbody></table></div>\n");
	if (a->nlines > shown)
		util_buf_printf(h->b,
		                "<p class=\"note\">%zu of %zu lines shown; fold --json has them all.</p>",
		                shown, a->nlines);
}

static int cmp_index_by_total(const void *a, const void *b, void *arg)
{
	const tree_node *t = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (t[x].total != t[y].total)
		return t[x].total < t[y].total ? 1 : -1;
	return (x > y) - (x < y);
}

static void tree_render(html_ctx *h, const tree_node *t, size_t first, unsigned long grand, size_t *hidden,
                        unsigned depth)
{
	size_t n = 0;
	for (size_t c = first; c != SIZE_MAX; c = t[c].next_sibling)
		n++;
	if (!n)
		return;
	size_t *order = malloc(n * sizeof *order);
	if (!order) {
		h->b->oom = 1;
		return;
	}
	n = 0;
	for (size_t c = first; c != SIZE_MAX; c = t[c].next_sibling)
		order[n++] = c;
	qsort_r(order, n, sizeof *order, cmp_index_by_total, (void *)t);
	for (size_t k = 0; k < n; k++) {
		const tree_node *x = &t[order[k]];
		double share = grand ? (double)x->total / (double)grand : 0;
		if (share < REPORT_TREE_MIN_SHARE) {
			(*hidden)++;
			continue;
		}
		int leaf = x->first_child == SIZE_MAX;
		util_buf_printf(h->b, "<details class=\"tree%s\"%s><summary>", leaf ? " leaf" : "",
		                !leaf && share >= REPORT_TREE_OPEN_SHARE && depth < 12 ? " open" : "");
		util_buf_printf(h->b,
		                "<span class=\"tv\">%.1f%%</span><span class=\"tv self\">%.1f%%</span><code>",
		                100 * share, grand ? 100.0 * (double)x->self / (double)grand : 0);
		report_html_fn(h, x->function);
		util_buf_puts(h->b, "</code> ");
		if (x->file)
			report_html_loc(h, x->file, x->line);
		util_buf_puts(h->b, "</summary>");
		if (!leaf)
			tree_render(h, t, x->first_child, grand, hidden, depth + 1);
		util_buf_puts(h->b, "</details>\n");
	}
	free(order);
}

static void tree_section(html_ctx *h, const char *id, const char *title, const char *what, const tree_node *t,
                         size_t first, unsigned long grand)
{
	size_t hidden = 0;
	util_buf_printf(h->b,
	                "<div><h3>%s</h3><div class=\"tree-root\" id=\"%s\"><div class=\"note\">"
	                "<span class=\"tv\">total</span><span class=\"tv self\">self</span>%s</div>\n",
	                title, id, what);
	tree_render(h, t, first, grand, &hidden, 0);
	if (hidden)
		util_buf_printf(h->b, "<p class=\"note\">%zu node%s under %.1f%% of samples not shown.</p>",
		                hidden, hidden == 1 ? "" : "s", 100 * REPORT_TREE_MIN_SHARE);
	util_buf_puts(h->b, "</div></div>\n");
}

/* The analysis' tree as the renderer's nodes; roots of the top-down tree
 * (not linked by the contract) are chained from *first_root. */
static tree_node *tree_nodes(const fold_cct_node *n, size_t len, int chain_roots, size_t *first_root,
                             unsigned long *grand)
{
	tree_node *t = calloc(len ? len : 1, sizeof *t);
	size_t last_root = SIZE_MAX;
	if (!t)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		const fold_cct_node *c = &n[i];
		t[i] = (tree_node){c->function,      c->file,        c->line,        c->self_samples,
		                   c->total_samples, c->first_child, c->next_sibling};
		if (chain_roots && c->parent == SIZE_MAX) {
			*grand += c->total_samples;
			t[i].next_sibling = SIZE_MAX;
			if (last_root == SIZE_MAX)
				*first_root = i;
			else
				t[last_root].next_sibling = i;
			last_root = i;
		}
	}
	return t;
}

static void call_trees(html_ctx *h)
{
	const fold_analysis *a = h->a;
	unsigned long grand = 0, unused = 0;
	size_t first_root = SIZE_MAX, bu_root = a->nbottom_up ? a->bottom_up_root : SIZE_MAX;
	tree_node *td = tree_nodes(a->cct, a->ncct, 1, &first_root, &grand);
	tree_node *bu = tree_nodes(a->bottom_up, a->nbottom_up, 0, NULL, &unused);
	if (!td || !bu) {
		h->b->oom = 1;
		goto out;
	}
	util_buf_puts(h->b, "<section id=\"calltree\"><h2>Sampled call tree</h2>");
	if (!a->ncct) {
		util_buf_puts(h->b, "<p class=\"note\">No call stacks were sampled.</p></section>\n");
		goto out;
	}
	util_buf_puts(h->b, "<div class=\"trees\">");
	tree_section(h, "topdown", "Top-down", "callers above callees", td, first_root, grand);
	tree_section(h, "bottomup", "Bottom-up", "where samples landed, then their callers", bu, bu_root,
	             grand);
	util_buf_puts(h->b, "</div>");
	flat_table(h, grand);
	line_table(h);
	util_buf_puts(h->b, "</section>\n");
out:
	free(bu);
	free(td);
}

void report_html_profile(html_ctx *h)
{
	util_buf_puts(h->b, "<section id=\"profile\"><h2>Profile</h2>");
	profile_table(h);
	callpair_table(h);
	util_buf_puts(h->b, "</section>\n");
	call_trees(h);
}
