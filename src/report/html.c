/* html.c: the self-contained HTML report: page skeleton, overview (run,
 * counters, warnings, region ranking) and the shared escaping helpers.
 *
 * Invariants: no external URL of any kind is written (no links, fonts or
 * scripts from elsewhere: clusters are offline); every string that came from
 * a trace is escaped; the page is complete without its script.
 */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold_version.h"
#include "html.h"
#include "names.h"
#include "run_end.h"
#include "trace_format.h"

void report_html_text(html_ctx *h, const char *s)
{
	if (!s) {
		util_buf_puts(h->b, "-");
		return;
	}
	report_esc_html(h->b, s);
}

void report_html_fn(html_ctx *h, const char *full)
{
	report_html_fn_cols(h, full, 200);
}

void report_html_fn_cols(html_ctx *h, const char *full, unsigned maxcols)
{
	if (!full) {
		util_buf_puts(h->b, "-");
		return;
	}
	char nm[1024];
	report_short_name(full, maxcols, nm, sizeof nm);
	if (!strcmp(nm, full)) {
		report_esc_html(h->b, full);
		return;
	}
	util_buf_puts(h->b, "<span title=\"");
	report_esc_html(h->b, full);
	util_buf_puts(h->b, "\">");
	report_esc_html(h->b, nm);
	util_buf_puts(h->b, "</span>");
}

void report_html_text_max(html_ctx *h, const char *s, unsigned maxcp)
{
	if (!s)
		return;
	if (report_term_width(s) <= maxcp) {
		report_esc_html(h->b, s);
		return;
	}
	/* Copy whole code points only, then escape the cut string. */
	size_t len = 0;
	for (unsigned k = 0; k + 1 < maxcp && s[len]; k++) {
		uint32_t cp;
		len += report_utf8_next(s + len, &cp);
	}
	char *cut = strndup(s, len);
	if (!cut) {
		h->b->oom = 1;
		return;
	}
	report_esc_html(h->b, cut);
	util_buf_puts(h->b, "\xe2\x80\xa6");
	free(cut);
}

void report_html_loc(html_ctx *h, const char *file, unsigned line)
{
	if (!file || !*file) {
		util_buf_puts(h->b, "<span class=\"loc\">?</span>");
		return;
	}
	const char *base = strrchr(file, '/');
	base = base && base[1] ? base + 1 : file;
	util_buf_puts(h->b, "<span class=\"loc\" title=\"");
	report_esc_html(h->b, file);
	util_buf_puts(h->b, "\">");
	report_esc_html(h->b, base);
	if (line)
		util_buf_printf(h->b, ":%u", line);
	util_buf_puts(h->b, "</span>");
}

void report_html_num_cell(html_ctx *h, double v, const char *shown)
{
	char num[64];
	report_fmt_num(num, sizeof num, v);
	util_buf_printf(h->b, "<td class=\"n\" data-v=\"%s\">", num);
	report_esc_html(h->b, shown);
	util_buf_puts(h->b, "</td>");
}

const char *report_html_color(const char *name)
{
	static const char *const palette[] = {"#93c5fd", "#fdba74", "#86efac", "#f9a8d4", "#c4b5fd",
	                                      "#fcd34d", "#67e8f9", "#fca5a5", "#a5b4fc", "#bef264"};
	uint32_t hsh = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)(name ? name : ""); *p; p++)
		hsh = (hsh ^ *p) * 16777619u;
	return palette[hsh % (sizeof palette / sizeof palette[0])];
}

static const char *counter_kind_label(unsigned kind)
{
	switch (kind) {
	case TRACE_COUNTER_HARDWARE: return "hardware";
	case TRACE_COUNTER_SOFTWARE: return "software";
	case TRACE_COUNTER_APP: return "application";
	default: return "unknown";
	}
}

static void kpi(html_ctx *h, const char *label, const char *value)
{
	/* Long values (a sampling configuration) get a smaller font, not a taller card. */
	util_buf_puts(h->b, value && report_term_width(value) > 18 ? "<div class=\"kpi long\"><b>"
	                                                           : "<div class=\"kpi\"><b>");
	report_html_text(h, value);
	util_buf_printf(h->b, "</b><span>%s</span></div>\n", label);
}

/* Distinct values of a process field, joined with ", " (at most 8 shown). */
static void distinct_hosts(html_ctx *h)
{
	const fold_analysis *a = h->a;
	size_t shown = 0, distinct = 0;
	for (size_t i = 0; i < a->nprocs; i++) {
		const char *v = a->procs[i].host;
		int seen = 0;
		for (size_t k = 0; k < i && !seen; k++)
			seen = a->procs[k].host && v && !strcmp(a->procs[k].host, v);
		if (seen || !v)
			continue;
		distinct++;
		if (shown < 8) {
			if (shown++)
				util_buf_puts(h->b, ", ");
			report_esc_html(h->b, v);
		}
	}
	if (distinct > shown)
		util_buf_printf(h->b, " and %zu more", distinct - shown);
	if (!distinct)
		util_buf_puts(h->b, "unknown");
}

static void overview_run(html_ctx *h)
{
	const fold_analysis *a = h->a;
	char buf[64];
	unsigned threads = 0;
	double duration = 0;
	long ranks = 0;
	for (size_t i = 0; i < a->nprocs; i++) {
		threads += a->procs[i].nthreads;
		if (a->procs[i].duration_ns > duration)
			duration = a->procs[i].duration_ns;
		if (a->procs[i].rank >= 0)
			ranks++;
	}
	util_buf_puts(h->b, "<section id=\"overview\"><h1>Run overview</h1>\n");
	const char *cmd = a->nprocs ? a->procs[0].cmdline : NULL;
	if (!cmd && a->nprocs)
		cmd = a->procs[0].exe;
	util_buf_puts(h->b, "<div class=\"cmd mono\" id=\"command\">");
	report_html_text(h, cmd ? cmd : "(command line not recorded)");
	util_buf_puts(h->b, "</div>\n<div class=\"kpis\">\n");
	snprintf(buf, sizeof buf, "%zu", a->nprocs);
	/* Helpers of an MPI run (Open MPI's orted) are processes, not ranks. */
	char label[64];
	if (ranks && (size_t)ranks == a->nprocs)
		snprintf(label, sizeof label, "processes (MPI ranks)");
	else if (ranks)
		snprintf(label, sizeof label, "processes (%ld MPI rank%s)", ranks, ranks == 1 ? "" : "s");
	else
		snprintf(label, sizeof label, "processes");
	kpi(h, label, buf);
	util_buf_puts(h->b, "<div class=\"kpi\"><b>");
	distinct_hosts(h);
	util_buf_puts(h->b, "</b><span>hosts</span></div>\n");
	snprintf(buf, sizeof buf, "%u", threads);
	kpi(h, "threads", buf);
	report_fmt_ns(buf, sizeof buf, duration);
	kpi(h, "duration (longest process)", buf);
	snprintf(buf, sizeof buf, "%lu", a->total_samples);
	kpi(h, "samples", buf);
	kpi(h, "sampling", a->sample_config ? a->sample_config : "unknown");
	size_t folded = 0;
	for (size_t i = 0; i < a->nregions; i++)
		folded += a->regions[i].folded != 0;
	snprintf(buf, sizeof buf, "%zu of %zu", folded, a->nregions);
	kpi(h, "regions folded", buf);
	util_buf_puts(h->b, "</div>\n");

	/* Per-process detail, collapsed: with hundreds of ranks it is long. */
	util_buf_printf(h->b, "<details class=\"card\"%s><summary>%zu trace file%s</summary>\n",
	                a->nprocs <= 4 ? " open" : "", a->nprocs, a->nprocs == 1 ? "" : "s");
	util_buf_puts(h->b, "<div class=\"tablewrap\"><table class=\"sortable\" id=\"processes\"><thead><tr>"
	                    "<th>trace</th><th>host</th><th class=\"n\">pid</th><th class=\"n\">rank</th>"
	                    "<th class=\"n\">threads</th><th class=\"n\">duration</th><th>statistics</th>"
	                    "</tr></thead><tbody>\n");
	for (size_t i = 0; i < a->nprocs; i++) {
		const fold_process *p = &a->procs[i];
		util_buf_puts(h->b, "<tr><td class=\"fn\">");
		report_html_text(h, p->trace_path);
		util_buf_puts(h->b, "</td><td>");
		report_html_text(h, p->host);
		util_buf_puts(h->b, "</td>");
		snprintf(buf, sizeof buf, "%ld", p->pid);
		report_html_num_cell(h, (double)p->pid, buf);
		snprintf(buf, sizeof buf, p->rank >= 0 ? "%ld" : "-", p->rank);
		report_html_num_cell(h, (double)p->rank, buf);
		snprintf(buf, sizeof buf, "%u", p->nthreads);
		report_html_num_cell(h, p->nthreads, buf);
		report_fmt_ns(buf, sizeof buf, p->duration_ns);
		report_html_num_cell(h, p->duration_ns, buf);
		util_buf_puts(h->b, "<td class=\"note\">");
		/* The per-function calibration of first calls (two figures per
		 * instrumented function) is fold's input, not a statistic a
		 * reader scans: counted, not listed. The runtime's measurements
		 * of its own hooks (overhead.*: dozens of cold-hook bins) are
		 * evidence for who asks, collapsed after the rest. */
		size_t firsts = 0, shown = 0, own = 0;
		for (size_t k = 0; k < p->nstats; k++) {
			if (!strncmp(p->stats[k].key, "overhead.first_enter_", 21)) {
				firsts++;
				continue;
			}
			if (!strncmp(p->stats[k].key, "overhead.", 9)) {
				own++;
				continue;
			}
			if (shown++)
				util_buf_puts(h->b, ", ");
			report_html_text(h, p->stats[k].key);
			util_buf_puts(h->b, " ");
			report_html_text(h, p->stats[k].value);
		}
		if (firsts)
			util_buf_printf(h->b, "%sfirst calls measured for %zu functions", shown ? ", " : "",
			                firsts / 2);
		if (own) {
			util_buf_printf(
			    h->b, "<details><summary>the hooks' own cost, measured (%zu figures)</summary>",
			    own);
			size_t n = 0;
			for (size_t k = 0; k < p->nstats; k++) {
				const char *key = p->stats[k].key;
				if (strncmp(key, "overhead.", 9) ||
				    !strncmp(key, "overhead.first_enter_", 21))
					continue;
				if (n++)
					util_buf_puts(h->b, ", ");
				report_html_text(h, key);
				util_buf_puts(h->b, " ");
				report_html_text(h, p->stats[k].value);
			}
			util_buf_puts(h->b, "</details>");
		}
		util_buf_puts(h->b, "</td></tr>\n");
	}
	util_buf_puts(h->b, "</tbody></table></div></details>\n");
}

static void overview_counters(html_ctx *h)
{
	const fold_analysis *a = h->a;
	util_buf_puts(h->b, "<h3>Counters</h3><div class=\"card\" id=\"counters\">");
	if (!a->ncounters)
		util_buf_puts(h->b, "<p class=\"note\">No counters were recorded (timer sampling only).</p>");
	for (size_t i = 0; i < a->ncounters; i++) {
		unsigned k = a->counters[i].kind;
		util_buf_printf(h->b, "<span class=\"mono\">");
		report_html_text(h, a->counters[i].name);
		util_buf_printf(h->b, "</span><span class=\"pill%s\">%s</span>%s",
		                k == TRACE_COUNTER_HARDWARE ? " hw" : "", counter_kind_label(k),
		                i + 1 < a->ncounters ? " &nbsp; " : "");
	}
	if (a->nmissing) {
		util_buf_puts(h->b, "<table id=\"missing\" style=\"margin-top:10px\"><thead><tr>"
		                    "<th>unavailable counter</th><th>reason</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < a->nmissing; i++) {
			util_buf_puts(h->b, "<tr><td class=\"fn\">");
			report_html_text(h, a->missing[i].name);
			util_buf_puts(h->b, "</td><td>");
			report_html_text(h, a->missing[i].reason);
			util_buf_puts(h->b, "</td></tr>\n");
		}
		util_buf_puts(h->b, "</tbody></table>");
	}
	/* Derived metrics: which models applied, and why the others did not. */
	if (a->nmodels_used || a->nmodels_skipped) {
		util_buf_puts(h->b, "<p id=\"models\" style=\"margin-top:10px\">Derived-metric models: ");
		if (!a->nmodels_used)
			util_buf_puts(h->b, "none applies to these counters");
		for (size_t i = 0; i < a->nmodels_used; i++) {
			util_buf_puts(h->b, "<span class=\"mono\">");
			report_html_text(h, a->models_used[i]);
			util_buf_puts(h->b, i + 1 < a->nmodels_used ? "</span>, " : "</span>");
		}
		util_buf_puts(h->b, "</p>");
		if (a->nmodels_skipped) {
			util_buf_printf(
			    h->b,
			    "<details id=\"models-skipped\"><summary>%zu model(s) skipped</summary>"
			    "<table><thead><tr><th>model</th><th>why</th></tr></thead><tbody>\n",
			    a->nmodels_skipped);
			for (size_t i = 0; i < a->nmodels_skipped; i++) {
				util_buf_puts(h->b, "<tr><td class=\"fn\">");
				report_html_text(h, a->models_skipped[i].key);
				util_buf_puts(h->b, "</td><td>");
				report_html_text(h, a->models_skipped[i].value);
				util_buf_puts(h->b, "</td></tr>\n");
			}
			util_buf_puts(h->b, "</tbody></table></details>");
		}
	}
	util_buf_puts(h->b, "</div>\n");
}

static void overview_ranking(html_ctx *h)
{
	const fold_analysis *a = h->a;
	char buf[96];
	double top = 0;
	for (size_t i = 0; i < a->nregions; i++)
		top = fmax(top, a->regions[i].throttled && a->regions[i].est_samples
		                    ? fmax(a->regions[i].est_total_ns, a->regions[i].total_ns)
		                    : a->regions[i].total_ns);
	util_buf_puts(h->b, "<h3>Regions by time</h3><div class=\"tablewrap\"><table class=\"sortable\" "
	                    "id=\"ranking\"><thead><tr><th class=\"n\">#</th><th>region</th><th>kind</th>"
	                    "<th class=\"n\">total time</th><th></th><th class=\"n\">instances</th>"
	                    "<th class=\"n\">used</th><th class=\"n\">mean</th><th class=\"n\">samples</th>"
	                    "<th>folded</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < a->nregions; i++) {
		const fold_region_result *r = &a->regions[i];
		if (!report_region_shown(a, &h->agg, i))
			continue;
		snprintf(buf, sizeof buf, "%zu", i + 1);
		util_buf_puts(h->b, "<tr>");
		report_html_num_cell(h, (double)i + 1, buf);
		util_buf_printf(h->b, "<td class=\"fn\"><a href=\"#region-%zu\">", i);
		report_html_fn(h, r->name);
		util_buf_printf(h->b, "</a></td><td>%s</td>", fold_region_kind_label(r->kind));
		double shown = r->total_ns;
		if (r->throttled && r->est_samples) {
			char e[32], err[32];
			report_fmt_ns(e, sizeof e, r->est_total_ns);
			report_fmt_ns(err, sizeof err, r->est_total_err_ns);
			snprintf(buf, sizeof buf, "~%s \u00b1 %s", e, err);
			shown = r->est_total_ns;
			util_buf_printf(
			    h->b,
			    "<td class=\"n\" data-v=\"%.6g\" title=\"throttled: estimated from %lu "
			    "samples; the recorded calls took ",
			    shown, r->est_samples);
			report_fmt_ns(e, sizeof e, r->total_ns);
			util_buf_printf(h->b, "%s\">", e);
			report_esc_html(h->b, buf);
			util_buf_puts(h->b, " <span class=\"badge\">throttled</span></td>");
		} else {
			report_fmt_ns(buf, sizeof buf, r->total_ns);
			report_html_num_cell(h, r->total_ns, buf);
		}
		util_buf_printf(
		    h->b, "<td style=\"width:160px\"><span class=\"bar\" style=\"width:%.1f%%\"></span></td>",
		    top > 0 ? 100 * shown / top : 0);
		snprintf(buf, sizeof buf, r->throttled ? "%lu+" : "%lu", r->instances);
		report_html_num_cell(h, (double)r->instances, buf);
		snprintf(buf, sizeof buf, "%lu", r->instances_used);
		report_html_num_cell(h, (double)r->instances_used, buf);
		report_fmt_ns(buf, sizeof buf, r->mean_duration_ns);
		report_html_num_cell(h, r->mean_duration_ns, buf);
		snprintf(buf, sizeof buf, "%lu", r->samples);
		report_html_num_cell(h, (double)r->samples, buf);
		if (r->folded) {
			util_buf_printf(h->b, "<td><span class=\"pill ok\">%zu phase%s</span></td>",
			                r->nphases, r->nphases == 1 ? "" : "s");
		} else {
			util_buf_puts(h->b, "<td class=\"note\">");
			report_html_text(h, r->reason ? r->reason : "not folded");
			util_buf_puts(h->b, "</td>");
		}
		util_buf_puts(h->b, "</tr>\n");
	}
	util_buf_puts(h->b, "</tbody></table></div>");
	if (h->agg.n) {
		char t[32];
		report_fmt_ns(t, sizeof t, h->agg.total_ns);
		util_buf_printf(h->b,
		                "<p class=\"note\" id=\"ranking-aggregated\">and <a href=\"#aggregated\">%zu "
		                "more region%s, not folded</a>: %lu instances, %lu samples, %s in all</p>",
		                h->agg.n, h->agg.n == 1 ? "" : "s", h->agg.instances, h->agg.samples, t);
	}
	util_buf_puts(h->b, "</section>\n");
}

static void page_head(html_ctx *h)
{
	const fold_analysis *a = h->a;
	util_buf_puts(h->b,
	              "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	              "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
	              "<meta name=\"generator\" content=\"fold " FOLD_VERSION "\">\n<title>fold report: ");
	const char *exe = a->nprocs ? a->procs[0].exe : NULL;
	const char *base = exe ? strrchr(exe, '/') : NULL;
	report_html_text(h, base ? base + 1 : exe ? exe : "run");
	util_buf_puts(h->b, "</title>\n<style>\n");
	util_buf_puts(h->b, report_html_css);
	util_buf_puts(h->b, report_html_views_css);
	util_buf_puts(h->b, report_html_source_css);
	/* Report errors of the main script in the page itself, where tests (and users) can see them. */
	util_buf_puts(h->b, "</style>\n<script>window.onerror=function(m,s,l){var e=document.getElementById("
	                    "'fold-js-errors');if(e){e.textContent+=m+' (line '+l+')\\n';"
	                    "e.setAttribute('data-errors','1');}};</script>\n</head>\n<body>\n");
	util_buf_puts(h->b,
	              "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>"
	              "<path id=\"fx\" d=\"M-2.5-2.5l5 5m0-5l-5 5\"/></defs></svg>\n");
	util_buf_puts(h->b, "<header class=\"top\"><div class=\"brand\">fold<span>.</span></div><nav>"
	                    "<a href=\"#overview\">Overview</a>");
	if (a->nthreads)
		util_buf_puts(h->b, "<a href=\"#cpu\">CPU</a>");
	if (a->nimbalance)
		util_buf_puts(h->b, "<a href=\"#imbalance\">Imbalance</a>");
	for (size_t i = 0; i < a->nregions && i < 6; i++) {
		if (!a->regions[i].folded)
			continue;
		char nm[256];
		report_short_name(a->regions[i].name, 32, nm, sizeof nm);
		util_buf_printf(h->b, "<a href=\"#region-%zu\" title=\"", i);
		report_html_text(h, a->regions[i].name);
		util_buf_puts(h->b, "\">");
		report_html_text(h, nm);
		util_buf_puts(h->b, "</a>");
	}
	util_buf_puts(h->b, "<a href=\"#profile\">Profile</a><a href=\"#calltree\">Call tree</a></nav>");
	util_buf_puts(h->b, "<select id=\"region-select\" class=\"js-only\" aria-label=\"region\">"
	                    "<option value=\"all\">All regions</option>");
	for (size_t i = 0; i < a->nregions; i++) {
		char nm[256];
		if (!report_region_shown(a, &h->agg, i))
			continue;
		report_short_name(a->regions[i].name, 60, nm, sizeof nm);
		util_buf_printf(h->b, "<option value=\"%zu\">", i);
		report_html_text(h, nm);
		util_buf_puts(h->b, "</option>");
	}
	util_buf_puts(h->b, "</select></header>\n<main>\n");
	/* A cut or crashed run is said first: everything below covers part of it. */
	char end[512];
	if (report_run_end_text(a, end, sizeof end)) {
		util_buf_printf(
		    h->b, "<div class=\"warn bad run-end\" id=\"run-end\" role=\"alert\" data-status=\"%s\">",
		    report_run_end_status(a));
		report_html_text(h, end);
		util_buf_puts(h->b, "</div>\n");
	}
}

static void page_tail(html_ctx *h)
{
	util_buf_puts(h->b, "<footer>Generated by fold " FOLD_VERSION ". This file is self-contained: "
	                    "it loads nothing from the network.</footer>\n</main>\n"
	                    "<div id=\"tip\"></div><pre id=\"fold-js-errors\"></pre>\n"
	                    "<script type=\"application/json\" id=\"fold-data\">");
	report_html_region_data(h);
	util_buf_puts(h->b, "</script>\n<script>\n");
	util_buf_puts(h->b, report_html_js);
	util_buf_puts(h->b, report_html_views_js);
	util_buf_puts(h->b, "</script>\n</body></html>\n");
}

int report_html_write(const fold_analysis *a, const char *path, char *err, size_t errlen)
{
	if (!a || !path) {
		snprintf(err, errlen, "report: no analysis or no output path");
		return -EINVAL;
	}
	util_buf b;
	util_buf_init(&b);
	html_ctx h = {.b = &b, .a = a, .next_id = 0};
	if (report_aggregate_regions(a, &h.agg)) {
		snprintf(err, errlen, "%s: out of memory", path);
		util_buf_free(&b);
		return -ENOMEM;
	}
	page_head(&h);
	overview_run(&h);
	overview_counters(&h);
	report_html_warnings(&h);
	overview_ranking(&h);
	report_html_cpu_views(&h);
	report_html_imbalance(&h);
	for (size_t i = 0; i < a->nregions; i++)
		if (report_region_shown(a, &h.agg, i))
			report_html_region(&h, i);
	report_html_aggregated(&h);
	report_html_profile(&h);
	page_tail(&h);
	int rc = report_out_buf(&b, path, err, errlen);
	util_buf_free(&b);
	return rc;
}
