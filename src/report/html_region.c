/* html_region.c: one HTML section per region: folded counters and derived
 * metrics (crosses for the folded samples, the fitted cumulative curve, the
 * fitted rate as a line), phases shaded with their top source lines, the
 * routine timeline strip, stacked model plots, the instance-duration
 * distribution and the variation across threads and ranks.
 *
 * Charts over the normalised instance time are "zoomable": their data lives
 * in a <g class="zd"> whose x coordinates the script remaps, so the SVG here
 * is the static picture and also the zoomed one. Stacked models are derived
 * series named "<model>/<component>" sharing a prefix (e.g. "cpi/base",
 * "cpi/memory"); see docs/report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "names.h"

typedef struct frame {
	double w, h;   /* viewBox */
	double l, t;   /* plot area origin */
	double pw, ph; /* plot area size */
} frame;

static frame make_frame(double w, double h, double l, double r, double t, double b)
{
	frame f = {w, h, l, t, w - l - r, h - t - b};
	return f;
}

/* The bottom axis of a duration chart: a line and ticks+1 labels from mn to
 * mx nanoseconds, the first flush left, the last flush right. */
static void ns_axis(html_ctx *h, const frame *f, double mn, double mx, int ticks)
{
	double y = f->t + f->ph;
	util_buf_printf(h->b, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", f->l,
	                f->l + f->pw, y, y);
	for (int i = 0; i <= ticks; i++) {
		char lab[32];
		report_fmt_ns(lab, sizeof lab, mn + (mx - mn) * i / ticks);
		util_buf_printf(h->b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>",
		                f->l + f->pw * i / ticks, y + 14,
		                i == 0       ? "start"
		                : i == ticks ? "end"
		                             : "middle",
		                lab);
	}
}

static double fx(const frame *f, double x)
{
	return f->l + x * f->pw;
}

/* 1, 2, 2.5 or 5 times a power of ten, giving about n intervals over range. */
static double nice_step(double range, int n)
{
	if (!(range > 0) || !isfinite(range))
		return 1;
	double raw = range / n, p = pow(10, floor(log10(raw))), m = raw / p;
	return p * (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10);
}

static double nice_max(double v)
{
	if (!(v > 0) || !isfinite(v))
		return 1;
	double st = nice_step(v, 4);
	return ceil(v / st - 1e-9) * st;
}

static const char *phase_top_function(const fold_phase_result *p)
{
	return p->ntop ? p->top[0].function : NULL;
}

static unsigned open_chart(html_ctx *h, const frame *f, int zoomable, long series, const char *label)
{
	unsigned id = h->next_id++;
	util_buf_printf(h->b,
	                "<svg class=\"chart%s\" viewBox=\"0 0 %.0f %.0f\" data-l=\"%.1f\" data-w=\"%.1f\" "
	                "data-t=\"%.1f\" data-h=\"%.1f\"",
	                zoomable ? " zoomable" : "", f->w, f->h, f->l, f->pw, f->t, f->ph);
	if (series >= 0)
		util_buf_printf(h->b, " data-s=\"%ld\"", series);
	util_buf_puts(h->b, " role=\"img\" aria-label=\"");
	report_esc_html(h->b, label);
	util_buf_printf(h->b,
	                "\"><defs><clipPath id=\"c%u\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
	                "height=\"%.1f\"/></clipPath></defs>\n",
	                id, f->l, f->t - 1, f->pw, f->ph + 2);
	return id;
}

static void x_axis_normalised(html_ctx *h, const frame *f, const char *title)
{
	double y = f->t + f->ph;
	util_buf_printf(h->b, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", f->l,
	                f->l + f->pw, y, y);
	util_buf_puts(h->b, "<g class=\"xa\">");
	for (int i = 0; i <= 10; i++) {
		double x = fx(f, i / 10.0);
		util_buf_printf(h->b,
		                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.1f</text>"
		                "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
		                x, y + 14, i / 10.0, x, x, y, y + 4);
	}
	util_buf_puts(h->b, "</g>");
	if (title)
		util_buf_printf(h->b,
		                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"10\">%s</text>",
		                f->l + f->pw, f->h - 2, title);
}

/* Horizontal grid and labels of a value axis on the left (or right). */
static void y_axis(html_ctx *h, const frame *f, double max, int right, int percent, int grid)
{
	double st = nice_step(max, 4);
	char lab[48];
	if (grid)
		util_buf_puts(h->b, "<g class=\"grid\">");
	for (double v = 0; v <= max * (1 + 1e-9); v += st) {
		double y = f->t + f->ph * (1 - v / max);
		if (grid)
			util_buf_printf(h->b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", f->l,
			                f->l + f->pw, y, y);
		if (percent)
			snprintf(lab, sizeof lab, "%.0f%%", v * 100);
		else
			report_fmt_si(lab, sizeof lab, v);
		util_buf_printf(h->b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>",
		                right ? f->l + f->pw + 6 : f->l - 6, y + 3.5, right ? "start" : "end", lab);
	}
	if (grid)
		util_buf_puts(h->b, "</g>");
}

static void phase_title(html_ctx *h, const fold_region_result *r, size_t k)
{
	const fold_phase_result *p = &r->phases[k];
	char d[32];
	report_fmt_ns(d, sizeof d, fold_phase_duration_ns(r, p));
	util_buf_printf(h->b, "<title>Phase %zu: %.3f to %.3f (%s, %lu samples)", k + 1, p->start, p->end, d,
	                p->samples);
	for (size_t i = 0; i < p->ntop && i < 3; i++) {
		util_buf_printf(h->b, "\n%.0f%% ", 100 * p->top[i].share);
		report_esc_html(h->b, p->top[i].function);
		if (p->top[i].file) {
			util_buf_puts(h->b, " ");
			report_esc_html(h->b, p->top[i].file);
			util_buf_printf(h->b, ":%u", p->top[i].line);
		}
	}
	util_buf_puts(h->b, "</title>");
}

static void phase_bands(html_ctx *h, const fold_region_result *r, const frame *f, int labels)
{
	for (size_t k = 0; k < r->nphases; k++) {
		const fold_phase_result *p = &r->phases[k];
		util_buf_printf(h->b,
		                "<rect class=\"ph%zu\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">",
		                k % 2, fx(f, p->start), f->t, (p->end - p->start) * f->pw, f->ph);
		phase_title(h, r, k);
		util_buf_puts(h->b, "</rect>");
		if (k > 0)
			util_buf_printf(
			    h->b, "<line class=\"pb\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
			    fx(f, p->start), fx(f, p->start), f->t, f->t + f->ph);
		if (labels && (p->end - p->start) * f->pw >= 20)
			util_buf_printf(h->b, "<text class=\"phl\" x=\"%.1f\" y=\"%.1f\">P%zu</text>",
			                fx(f, p->start) + 4, f->t + 11, k + 1);
	}
}

/* One polyline per run of finite values: where a curve has no data (a phase
 * without the samples to give it a rate) nothing is drawn, not a rate of 0.
 * Returns how many points were drawn. */
static size_t polyline(html_ctx *h, const char *cls, const frame *f, const double *x, const double *y,
                       size_t n, double ymax)
{
	size_t drawn = 0;
	for (size_t i = 0; i < n;) {
		if (!isfinite(y[i])) {
			i++;
			continue;
		}
		util_buf_printf(h->b, "<polyline class=\"%s\" points=\"", cls);
		for (size_t j = i; i < n && isfinite(y[i]); i++, drawn++)
			util_buf_printf(h->b, "%s%.1f,%.1f", i > j ? " " : "", fx(f, x[i]),
			                f->t + f->ph * (1 - y[i] / ymax));
		util_buf_puts(h->b, "\"/>");
	}
	return drawn;
}

static void band(html_ctx *h, const frame *f, const fold_curve *c, double ymax)
{
	if (!c->lo || !c->hi || !c->n)
		return;
	util_buf_puts(h->b, "<polygon class=\"band\" points=\"");
	for (size_t i = 0; i < c->n; i++)
		util_buf_printf(h->b, "%.1f,%.1f ", fx(f, c->x[i]), f->t + f->ph * (1 - c->hi[i] / ymax));
	for (size_t i = c->n; i-- > 0;)
		util_buf_printf(h->b, "%.1f,%.1f%s", fx(f, c->x[i]), f->t + f->ph * (1 - c->lo[i] / ymax),
		                i ? " " : "");
	util_buf_puts(h->b, "\"/>");
}

static void series_chart(html_ctx *h, const fold_region_result *r, size_t si)
{
	const fold_series *s = &r->series[si];
	const fold_curve *c = &s->fit;
	frame f = make_frame(640, 230, 58, s->px && s->npoints ? 48 : 16, 10, 32);
	char a[48], b[48];
	double ymax = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (isfinite(c->value[i]))
			ymax = fmax(ymax, c->value[i]);
		if (c->hi && isfinite(c->hi[i]))
			ymax = fmax(ymax, c->hi[i]);
	}
	ymax = nice_max(ymax * 1.04);
	int has_points = s->px && s->py && s->npoints;
	int has_cum = c->cum != NULL;

	util_buf_printf(h->b, "<figure class=\"series\" data-s=\"%zu\"><figcaption>", si);
	report_esc_html(h->b, s->name);
	util_buf_puts(h->b, " <span class=\"unit\">");
	report_esc_html(h->b, s->unit);
	report_fmt_si(a, sizeof a, s->mean_rate);
	util_buf_printf(h->b, " &middot; mean %s", a);
	if (!s->derived) {
		/* time per instance as a duration: cpu_time and wall_time add up
		 * ns, a CPU-clock counter counts ns of CPU (its rate in CPUs, as
		 * the phase table gives it) */
		char cpus[32];
		int clock = report_cpu_rate(s->name, s->mean_rate, cpus, sizeof cpus);
		if (clock)
			util_buf_printf(h->b, " (%s)", cpus);
		if (clock || !strcmp(s->unit, "s/s"))
			report_fmt_ns(b, sizeof b, s->total_per_instance);
		else
			report_fmt_si(b, sizeof b, s->total_per_instance);
		util_buf_printf(h->b, " &middot; %s per instance", b);
		/* a fit error of a curve with no point to draw says nothing */
		int any = 0;
		for (size_t i = 0; i < c->n && !any; i++)
			any = isfinite(c->value[i]);
		if (any)
			util_buf_printf(h->b, " &middot; fit error %.3f", s->fit_error);
	}
	util_buf_puts(h->b, "</span>");
	/* fit_kriging.c withheld the curve's shape in some phases */
	for (size_t i = 0; i < r->nfit_notes; i++) {
		const char *k = r->fit_notes[i].key, *pre = "curve.shape_withheld.";
		if (!strncmp(k, pre, strlen(pre)) && !strcmp(k + strlen(pre), s->name)) {
			util_buf_puts(h->b, "<span class=\"withheld\">shape withheld in ");
			report_esc_html(h->b, r->fit_notes[i].value);
			util_buf_puts(h->b, ": the instances' points contradict each other, the line is the "
			                    "phase's mean rate</span>");
		}
	}
	util_buf_puts(h->b, "</figcaption>\n");
	open_chart(h, &f, 1, (long)si, s->name);
	y_axis(h, &f, ymax, 0, 0, 1);
	if (has_points || has_cum)
		y_axis(h, &f, 1, 1, 1, 0);
	util_buf_printf(h->b, "<g class=\"zd\" clip-path=\"url(#c%u)\">", h->next_id - 1);
	phase_bands(h, r, &f, 1);
	band(h, &f, c, ymax);
	if (has_points) {
		size_t shown = s->npoints > REPORT_HTML_MAX_POINTS ? REPORT_HTML_MAX_POINTS : s->npoints;
		util_buf_puts(h->b, "<g class=\"pts\">");
		for (size_t k = 0; k < shown; k++) {
			size_t i = shown == s->npoints
			               ? k
			               : (size_t)((double)k * (double)s->npoints / (double)shown);
			double x = fmin(1, fmax(0, s->px[i])), y = fmin(1, fmax(0, s->py[i]));
			util_buf_printf(h->b, "<use href=\"#fx\" x=\"%.1f\" y=\"%.1f\"/>", fx(&f, x),
			                f.t + f.ph * (1 - y));
		}
		util_buf_puts(h->b, "</g>");
	}
	if (has_cum)
		polyline(h, "cum", &f, c->x, c->cum, c->n, 1);
	size_t drawn = polyline(h, "rate", &f, c->x, c->value, c->n, ymax);
	util_buf_puts(h->b, "</g>");
	if (!drawn && c->n)
		util_buf_printf(
		    h->b,
		    "<text class=\"nodata\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no rate: "
		    "no phase has the samples to measure it</text>",
		    fx(&f, 0.5), f.t + 0.45 * f.ph);
	x_axis_normalised(h, &f, "normalised time in instance");
	util_buf_puts(h->b, "</svg>\n<div class=\"legend\"><span><i style=\"background:#2563eb\"></i>rate "
	                    "fit (left axis)</span>");
	if (has_points) {
		util_buf_printf(h->b,
		                "<span><i class=\"x\">&times;</i>folded samples (cumulative, right axis)");
		if (s->npoints > REPORT_HTML_MAX_POINTS)
			util_buf_printf(h->b, ": %d of %zu drawn", REPORT_HTML_MAX_POINTS, s->npoints);
		util_buf_puts(h->b, "</span>");
	}
	if (has_cum)
		util_buf_puts(h->b, "<span><i style=\"background:#475569\"></i>cumulative fit</span>");
	if (c->lo && c->hi)
		util_buf_puts(h->b, "<span><i style=\"background:#c7d7fb;height:8px\"></i>band</span>");
	util_buf_puts(h->b, "</div></figure>\n");
}

/* Models: derived series named "<model>/<component>", stacked per model. */
static size_t model_prefix_len(const fold_series *s)
{
	if (!s->derived || !s->name)
		return 0;
	const char *slash = strchr(s->name, '/');
	return slash && slash != s->name && slash[1] ? (size_t)(slash - s->name) : 0;
}

static double curve_at(const fold_curve *c, double x)
{
	if (!c->n)
		return 0;
	if (x <= c->x[0])
		return c->value[0];
	for (size_t i = 1; i < c->n; i++)
		if (x <= c->x[i]) {
			double span = c->x[i] - c->x[i - 1], t = span > 0 ? (x - c->x[i - 1]) / span : 0;
			return c->value[i - 1] + t * (c->value[i] - c->value[i - 1]);
		}
	return c->value[c->n - 1];
}

static void model_chart(html_ctx *h, const fold_region_result *r, size_t first)
{
	const fold_series *s0 = &r->series[first];
	size_t plen = model_prefix_len(s0);
	size_t members[64], nm = 0;
	for (size_t i = first; i < r->nseries && nm < 64; i++)
		if (model_prefix_len(&r->series[i]) == plen && !strncmp(r->series[i].name, s0->name, plen))
			members[nm++] = i;
	if (nm < 2 || !s0->fit.n)
		return;
	const fold_curve *grid = &s0->fit;
	size_t n = grid->n;
	double *acc = calloc(n * (nm + 1), sizeof(double));
	if (!acc) {
		h->b->oom = 1;
		return;
	}
	/* acc[k*n + i]: top of component k-1 at grid point i (row 0 is the zero
	 * baseline); NaN through the stack where a component has no data (a
	 * phase without the samples for its rate), which is then not drawn,
	 * rather than stacked as 0. */
	double ymax = 0;
	for (size_t k = 0; k < nm; k++)
		for (size_t i = 0; i < n; i++) {
			double v = curve_at(&r->series[members[k]].fit, grid->x[i]);
			acc[(k + 1) * n + i] = acc[k * n + i] + (isfinite(v) ? fmax(v, 0) : NAN);
			if (isfinite(acc[(k + 1) * n + i]))
				ymax = fmax(ymax, acc[(k + 1) * n + i]);
		}
	for (size_t i = 0; i < n; i++)
		if (!isfinite(acc[nm * n + i]))
			for (size_t k = 1; k <= nm; k++)
				acc[k * n + i] = NAN;
	ymax = nice_max(ymax * 1.04);
	frame f = make_frame(1240, 240, 58, 16, 10, 32);
	char *model = strndup(s0->name, plen);
	util_buf_puts(h->b, "<figure class=\"wide model\"><figcaption>");
	report_esc_html(h->b, model);
	util_buf_puts(h->b, " <span class=\"unit\">stacked model &middot; ");
	report_esc_html(h->b, s0->unit);
	util_buf_puts(h->b, "</span></figcaption>\n");
	open_chart(h, &f, 1, -1, model ? model : "model");
	y_axis(h, &f, ymax, 0, 0, 1);
	util_buf_printf(h->b, "<g class=\"zd\" clip-path=\"url(#c%u)\">", h->next_id - 1);
	phase_bands(h, r, &f, 1);
	for (size_t k = 0; k < nm; k++)
		for (size_t a = 0; a < n;) { /* one polygon per run of grid points with data */
			if (!isfinite(acc[nm * n + a])) {
				a++;
				continue;
			}
			size_t b = a;
			while (b < n && isfinite(acc[nm * n + b]))
				b++;
			util_buf_printf(h->b, "<polygon fill=\"%s\" fill-opacity=\"0.85\" points=\"",
			                report_html_color(r->series[members[k]].name));
			for (size_t i = a; i < b; i++)
				util_buf_printf(h->b, "%.1f,%.1f ", fx(&f, grid->x[i]),
				                f.t + f.ph * (1 - acc[(k + 1) * n + i] / ymax));
			for (size_t i = b; i-- > a;)
				util_buf_printf(h->b, "%.1f,%.1f%s", fx(&f, grid->x[i]),
				                f.t + f.ph * (1 - acc[k * n + i] / ymax), i > a ? " " : "");
			util_buf_puts(h->b, "\"><title>");
			report_esc_html(h->b, r->series[members[k]].name);
			util_buf_puts(h->b, "</title></polygon>");
			a = b;
		}
	util_buf_puts(h->b, "</g>");
	x_axis_normalised(h, &f, "normalised time in instance");
	util_buf_puts(h->b, "</svg><div class=\"legend\">");
	for (size_t k = 0; k < nm; k++) {
		util_buf_printf(h->b, "<span><i style=\"background:%s;height:9px\"></i>",
		                report_html_color(r->series[members[k]].name));
		report_esc_html(h->b, r->series[members[k]].name + plen + 1);
		util_buf_puts(h->b, "</span>");
	}
	util_buf_puts(h->b, "</div></figure>\n");
	free(model);
	free(acc);
}

static void model_charts(html_ctx *h, const fold_region_result *r)
{
	for (size_t i = 0; i < r->nseries; i++) {
		size_t plen = model_prefix_len(&r->series[i]);
		if (!plen)
			continue;
		int first = 1;
		for (size_t k = 0; k < i && first; k++)
			first = !(model_prefix_len(&r->series[k]) == plen &&
			          !strncmp(r->series[k].name, r->series[i].name, plen));
		if (first)
			model_chart(h, r, i);
	}
}

static void timeline_chart(html_ctx *h, const fold_region_result *r)
{
	if (!r->ntimeline)
		return;
	double row = 20;
	frame f = make_frame(1240, 12 + row * (double)r->ntimeline + 30, 58, 16, 8, 30);
	util_buf_puts(h->b,
	              "<figure class=\"wide timeline\"><figcaption>Routine timeline "
	              "<span class=\"unit\">innermost routine below the region, by stack depth; blank where "
	              "the routine above runs its own code</span>"
	              "</figcaption>\n");
	open_chart(h, &f, 1, -1, "routine timeline");
	for (size_t lv = 0; lv < r->ntimeline; lv++)
		util_buf_printf(h->b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">depth %u</text>",
		                f.l - 6, f.t + row * (double)lv + row / 2 + 4, r->timeline[lv].depth);
	util_buf_printf(h->b, "<g class=\"zd\" clip-path=\"url(#c%u)\">", h->next_id - 1);
	for (size_t lv = 0; lv < r->ntimeline; lv++) {
		const fold_timeline_level *L = &r->timeline[lv];
		double y = f.t + row * (double)lv;
		for (size_t k = 0; k < L->nspans; k++) {
			const fold_timeline_span *sp = &L->spans[k];
			double x0 = fx(&f, sp->start), w = (sp->end - sp->start) * f.pw;
			util_buf_printf(
			    h->b,
			    "<rect class=\"span\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			    "fill=\"%s\"><title>",
			    x0, y, w > 0 ? w : 0, row - 2, report_html_color(sp->function));
			report_esc_html(h->b, sp->function ? sp->function : "?");
			if (sp->file) {
				util_buf_puts(h->b, "\n");
				report_esc_html(h->b, sp->file);
				util_buf_printf(h->b, ":%u", sp->line);
			}
			util_buf_printf(h->b, "\n%.3f to %.3f</title></rect>", sp->start, sp->end);
			unsigned fit = (unsigned)((w - 6) / 6.4);
			if (fit >= 4 && sp->function) {
				/* named as the other views name it in that room (the full
				 * name in the title): a demangled signature cut at its start
				 * read "miniFE::TypeTraits<mini…" for dot() */
				char nm[512];
				report_short_name(sp->function, fit, nm, sizeof nm);
				util_buf_printf(h->b, "<text class=\"spl\" x=\"%.1f\" y=\"%.1f\">", x0 + 3,
				                y + row / 2 + 3);
				report_html_text_max(h, nm, fit);
				util_buf_puts(h->b, "</text>");
			}
		}
	}
	for (size_t k = 1; k < r->nphases; k++)
		util_buf_printf(h->b, "<line class=\"pb\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
		                fx(&f, r->phases[k].start), fx(&f, r->phases[k].start), f.t, f.t + f.ph);
	util_buf_puts(h->b, "</g>");
	x_axis_normalised(h, &f, NULL);
	util_buf_puts(h->b, "</svg></figure>\n");
}

static void attribution(html_ctx *h, const fold_attribution *t)
{
	util_buf_printf(h->b, "<span class=\"attr\"><b>%.0f%%</b> <code>", 100 * t->share);
	report_html_fn(h, t->function);
	util_buf_puts(h->b, "</code> ");
	report_html_loc(h, t->file, t->line);
	if (t->ninline > 1) {
		util_buf_puts(h->b, " <span class=\"inl\">inlined: ");
		for (size_t i = 0; i < t->ninline; i++) {
			const fold_source_frame *fr = &t->inline_chain[i];
			if (i)
				util_buf_puts(h->b, " &larr; ");
			report_html_text(h, fr->function);
			if (fr->call_line) {
				util_buf_puts(h->b, " (called at ");
				report_html_loc(h, fr->call_file, fr->call_line);
				util_buf_puts(h->b, ")");
			}
		}
		util_buf_puts(h->b, "</span>");
	}
	util_buf_puts(h->b, "</span>");
}

/* Unit shown after a phase rate: "/s" for counters, nothing for ratios. */
static const char *rate_unit(const fold_region_result *r, const char *name)
{
	for (size_t i = 0; i < r->nseries; i++) {
		const fold_series *s = &r->series[i];
		if (!name || !s->name || strcmp(name, s->name))
			continue;
		if (!s->unit || !*s->unit || !strcmp(s->unit, "ratio"))
			return "";
		return !strcmp(s->unit, "events/s") ? "/s" : s->unit;
	}
	return "";
}

static void phase_table(html_ctx *h, const fold_region_result *r)
{
	char d[32], v[32];
	if (r->self_check.done) {
		const fold_self_check *sc = &r->self_check;
		util_buf_printf(
		    h->b,
		    "<p class=\"note\">Self-check: the odd and the even instances (%lu and %lu), "
		    "folded apart, give %zu and %zu phase(s); their boundaries are %.1f%% of the "
		    "instance and their rates %.1f%% apart, where their sampling noise allows "
		    "%.1f%% and %.1f%%: <b>%s</b>. Intervals: 90%% of %u bootstrap "
		    "resamples of the instances.</p>\n",
		    sc->instances_a, sc->instances_b, sc->phases_a, sc->phases_b, 100 * sc->boundary,
		    100 * sc->rate, 100 * sc->boundary_allowed, 100 * sc->rate_allowed,
		    sc->reproducible ? "reproducible" : "not reproducible", r->bootstrap_replicates);
	} else if (r->self_check.why_not) {
		util_buf_puts(h->b, "<p class=\"note\">Self-check: not done: ");
		report_html_text(h, r->self_check.why_not);
		util_buf_puts(h->b, ". These phases' reproducibility is not measured.</p>\n");
	}
	util_buf_puts(h->b,
	              "<h3>Phases</h3><table class=\"phases\"><thead><tr><th>phase</th>"
	              "<th class=\"n\">span</th><th class=\"n\">duration</th><th class=\"n\">samples</th>"
	              "<th>rates</th><th>top source lines</th></tr></thead><tbody>\n");
	for (size_t k = 0; k < r->nphases; k++) {
		const fold_phase_result *p = &r->phases[k];
		report_fmt_ns(d, sizeof d, fold_phase_duration_ns(r, p));
		util_buf_printf(h->b, "<tr><td><b>P%zu</b></td><td class=\"n\">%.3f&ndash;%.3f", k + 1,
		                p->start, p->end);
		if (k && isfinite(p->start_lo) && isfinite(p->start_hi))
			util_buf_printf(h->b, "<br><small>start %.3f&ndash;%.3f</small>", p->start_lo,
			                p->start_hi);
		util_buf_printf(h->b, "</td><td class=\"n\">%s</td><td class=\"n\">%lu</td><td>", d,
		                p->samples);
		for (size_t i = 0; i < p->nrates; i++) {
			/* wall time is folded only when nothing else could be (see
			 * region_pipeline.c): its rate is 1 by definition */
			if (!strcmp(p->rate_names[i], "wall_time")) {
				util_buf_puts(h->b,
				              "<span class=\"attr note\">no counter measured inside its "
				              "instances: wall time only</span>");
				continue;
			}
			int cpus = report_cpu_rate(p->rate_names[i], p->rates[i], v, sizeof v);
			int nodata = isnan(p->rates[i]); /* the samples do not cover it */
			if (nodata)
				snprintf(v, sizeof v, "no data");
			else if (!cpus)
				report_fmt_si(v, sizeof v, p->rates[i]);
			util_buf_puts(h->b, "<span class=\"attr\"><code>");
			report_html_text(h, p->rate_names[i]);
			util_buf_printf(h->b, "</code> %s", v);
			if (!cpus && !nodata) {
				/* "/s" joins the number; a named unit is a word */
				const char *u = rate_unit(r, p->rate_names[i]);
				if (*u && strcmp(u, "/s"))
					util_buf_puts(h->b, " ");
				report_html_text(h, u);
			}
			if (i < p->nrate_ci && isfinite(p->rate_lo[i]) && isfinite(p->rate_hi[i])) {
				char a[32], z[32];
				if (!report_cpu_rate(p->rate_names[i], p->rate_lo[i], a, sizeof a))
					report_fmt_si(a, sizeof a, p->rate_lo[i]);
				if (!report_cpu_rate(p->rate_names[i], p->rate_hi[i], z, sizeof z))
					report_fmt_si(z, sizeof z, p->rate_hi[i]);
				/* each bound with its own prefix, apart: "[164&ndash;811 k]"
				 * read as 164 k to 811 k around a rate of 13.1 k */
				util_buf_printf(h->b, " <small>[%s, %s]</small>", a, z);
			}
			if (p->gradual && i < p->nrange) {
				char a[32], z[32];
				if (!report_cpu_rate(p->rate_names[i], p->rate_from[i], a, sizeof a))
					report_fmt_si(a, sizeof a, p->rate_from[i]);
				if (!report_cpu_rate(p->rate_names[i], p->rate_to[i], z, sizeof z))
					report_fmt_si(z, sizeof z, p->rate_to[i]);
				util_buf_printf(h->b, " (gradual: %s &rarr; %s)", a, z);
			}
			util_buf_puts(h->b, "</span>");
		}
		util_buf_puts(h->b, "</td><td>");
		for (size_t i = 0; i < p->ntop && i < 5; i++)
			attribution(h, &p->top[i]);
		if (!p->ntop)
			util_buf_puts(h->b, "<span class=\"note\">no source attribution</span>");
		util_buf_puts(h->b, "</td></tr>\n");
	}
	util_buf_puts(h->b, "</tbody></table>\n");
}

/* Position of duration v in [mn, mx] on the histogram's axis, in [0, 1];
 * at most mn (a duration of 0 on a log axis too): 0. */
static double hist_pos(double v, double mn, double mx, int logx)
{
	if (!(v > mn))
		return 0;
	double p = logx ? log10(v / mn) / log10(mx / mn) : (v - mn) / (mx - mn);
	return p < 0 ? 0 : p > 0.999999 ? 0.999999 : p;
}

/* A log-scale duration axis: a tick at every power of ten in [mn, mx]. */
static void log_ns_axis(html_ctx *h, const frame *f, double mn, double mx)
{
	double y = f->t + f->ph;
	util_buf_printf(h->b, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", f->l,
	                f->l + f->pw, y, y);
	for (double d = pow(10, ceil(log10(mn))); d <= mx * 1.000001; d *= 10) {
		char lab[32];
		report_fmt_ns(lab, sizeof lab, d);
		double x = f->l + log10(d / mn) / log10(mx / mn) * f->pw;
		util_buf_printf(h->b,
		                "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
		                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
		                x, x, y, y + 4, x, y + 14, lab);
	}
}

static void duration_histogram(html_ctx *h, const fold_region_result *r)
{
	if (!r->ninst)
		return;
	enum { NBINS = 40 };
	unsigned long used[NBINS] = {0}, excl[NBINS] = {0};
	double mn = INFINITY, mx = 0, mn_pos = INFINITY;
	for (size_t i = 0; i < r->ninst; i++) {
		double d = r->inst[i].duration_ns;
		mn = fmin(mn, d);
		mx = fmax(mx, d);
		if (d > 0)
			mn_pos = fmin(mn_pos, d);
	}
	/* Durations spanning two decades or more are binned on a log scale:
	 * linear bins would put all but the longest in the first bin. The
	 * decades are those of the positive durations: an instance that the
	 * samples' cost took all of (duration 0 once compensated) goes in the
	 * first bin rather than turning the axis linear. */
	int logx = mn_pos < INFINITY && mx / mn_pos >= 100;
	if (logx)
		mn = mn_pos;
	if (!(mx > mn))
		mx = mn + 1;
	unsigned long top = 0;
	for (size_t i = 0; i < r->ninst; i++) {
		int bin = (int)(hist_pos(r->inst[i].duration_ns, mn, mx, logx) * NBINS);
		bin = bin < 0 ? 0 : bin >= NBINS ? NBINS - 1 : bin;
		if (r->inst[i].used)
			used[bin]++;
		else
			excl[bin]++;
		if (used[bin] + excl[bin] > top)
			top = used[bin] + excl[bin];
	}
	frame f = make_frame(620, 220, 48, 14, 10, 34);
	double ymax = nice_max((double)top);
	util_buf_puts(h->b, "<figure class=\"hist\"><figcaption>Instance durations <span class=\"unit\">"
	                    "used and excluded instances</span></figcaption>\n");
	open_chart(h, &f, 0, -1, "instance duration distribution");
	y_axis(h, &f, ymax, 0, 0, 1);
	double bw = f.pw / NBINS;
	for (int i = 0; i < NBINS; i++) {
		double hu = f.ph * (double)used[i] / ymax, he = f.ph * (double)excl[i] / ymax;
		double y0 = f.t + f.ph;
		if (used[i])
			util_buf_printf(
			    h->b,
			    "<rect class=\"used\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
			    "<title>%lu used</title></rect>",
			    f.l + i * bw + 0.5, y0 - hu, bw - 1, hu, used[i]);
		if (excl[i])
			util_buf_printf(
			    h->b,
			    "<rect class=\"excl\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
			    "<title>%lu excluded</title></rect>",
			    f.l + i * bw + 0.5, y0 - hu - he, bw - 1, he, excl[i]);
	}
	if (r->selected_group < r->ngroups) {
		const fold_group *g = &r->groups[r->selected_group];
		double med = g->median_duration_ns;
		if (med >= mn && med <= mx) {
			double x = f.l + hist_pos(med, mn, mx, logx) * f.pw;
			util_buf_printf(h->b,
			                "<line class=\"med\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
			                "y2=\"%.1f\"><title>median "
			                "of group %u</title></line>",
			                x, x, f.t, f.t + f.ph, g->id);
		}
	}
	if (logx)
		log_ns_axis(h, &f, mn, mx);
	else
		ns_axis(h, &f, mn, mx, 4);
	util_buf_printf(
	    h->b,
	    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"10\">instance duration%s</text>",
	    f.l + f.pw, f.h - 2, logx ? " (log scale)" : "");
	util_buf_puts(h->b,
	              "</svg><div class=\"legend\"><span><i style=\"background:#2563eb;height:9px\"></i>used"
	              "</span><span><i style=\"background:#f97316;height:9px\"></i>excluded</span>"
	              "<span><i style=\"background:#0f172a;height:1px\"></i>median (folded group)</span>"
	              "</div></figure>\n");
}

typedef struct thread_row {
	long rank;
	unsigned thread;
	unsigned long n, excluded;
	double sum, mn, mx;
} thread_row;

static int cmp_row(const void *a, const void *b)
{
	const thread_row *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

/* The thread of stream id stream (of rank, -1 for none) as the threads
 * table numbers it (#0 the main thread); the stream id when unknown. */
static unsigned thread_number(const fold_analysis *a, long rank, unsigned stream)
{
	for (size_t i = 0; i < a->nthreads; i++)
		if (a->threads[i].stream == stream && a->threads[i].rank == rank)
			return a->threads[i].index;
	return stream;
}

/* Mean and range of instance durations per (rank, thread). */
static void variation_chart(html_ctx *h, const fold_region_result *r)
{
	if (!r->ninst)
		return;
	thread_row *rows = calloc(r->ninst, sizeof *rows);
	if (!rows) {
		h->b->oom = 1;
		return;
	}
	size_t nrows = 0;
	double mn = INFINITY, mx = 0, mn_pos = INFINITY;
	for (size_t i = 0; i < r->ninst; i++) {
		const fold_instance_info *in = &r->inst[i];
		size_t k = 0;
		while (k < nrows && !(rows[k].rank == in->rank && rows[k].thread == in->thread))
			k++;
		if (k == nrows) {
			rows[nrows++] = (thread_row){in->rank, in->thread, 0, 0, 0, INFINITY, 0};
		}
		thread_row *t = &rows[k];
		t->n++;
		t->excluded += !in->used;
		t->sum += in->duration_ns;
		t->mn = fmin(t->mn, in->duration_ns);
		t->mx = fmax(t->mx, in->duration_ns);
		mn = fmin(mn, in->duration_ns);
		mx = fmax(mx, in->duration_ns);
		if (in->duration_ns > 0)
			mn_pos = fmin(mn_pos, in->duration_ns);
	}
	qsort(rows, nrows, sizeof *rows, cmp_row);
	/* on a log scale as the histogram (see duration_histogram): one stalled
	 * instance of 462 us put XSBench's 1.7 us means at the axis' left end */
	int logx = mn_pos < INFINITY && mx / mn_pos >= 100;
	if (logx)
		mn = mn_pos;
	size_t shown = nrows > 48 ? 48 : nrows;
	if (!(mx > mn))
		mx = mn + 1;
	double rowh = 16;
	frame f = make_frame(620, 10 + rowh * (double)shown + 34, 78, 60, 8, 34);
	if (f.h < 120)
		f = make_frame(620, 120, 78, 60, 8, 120 - 8 - rowh * (double)shown);
	util_buf_printf(h->b,
	                "<figure class=\"var\"><figcaption>Variation across threads and ranks "
	                "<span class=\"unit\">instance duration: range and mean%s</span></figcaption>\n",
	                logx ? " (log scale)" : "");
	open_chart(h, &f, 0, -1, "variation across threads");
	for (size_t k = 0; k < shown; k++) {
		const thread_row *t = &rows[k];
		double y = f.t + rowh * (double)k + rowh / 2;
		double x0 = f.l + hist_pos(t->mn, mn, mx, logx) * f.pw,
		       x1 = f.l + hist_pos(t->mx, mn, mx, logx) * f.pw;
		double xm = f.l + hist_pos(t->sum / (double)t->n, mn, mx, logx) * f.pw;
		char mean[32];
		report_fmt_ns(mean, sizeof mean, t->sum / (double)t->n);
		/* threads numbered as the threads table numbers them ("rank 0,
		 * thread #1"), not by their stream ids ("rank 0 t4") */
		unsigned num = thread_number(h->a, t->rank, t->thread);
		if (t->rank >= 0)
			util_buf_printf(h->b,
			                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">rank %ld #%u</text>",
			                f.l - 6, y + 3.5, t->rank, num);
		else
			util_buf_printf(h->b,
			                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">thread #%u</text>",
			                f.l - 6, y + 3.5, num);
		util_buf_printf(
		    h->b,
		    "<g><title>%lu instances (%lu excluded), mean %s</title><line class=\"rng\" "
		    "x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/><circle class=\"mean\" cx=\"%.1f\" "
		    "cy=\"%.1f\" r=\"3.5\"/></g><text x=\"%.1f\" y=\"%.1f\">%s</text>",
		    t->n, t->excluded, mean, x0, x1 + 0.5, y, y, xm, y, f.l + f.pw + 6, y + 3.5, mean);
	}
	if (logx)
		log_ns_axis(h, &f, mn, mx);
	else
		ns_axis(h, &f, mn, mx, 2);
	util_buf_puts(h->b, "</svg>");
	if (shown < nrows)
		util_buf_printf(h->b, "<p class=\"note\">First %zu of %zu threads shown.</p>", shown, nrows);
	util_buf_puts(h->b, "</figure>\n");
	free(rows);
}

/* The groups with what decides which is folded: their share of the
 * region's time, their samples and how much of their time ran on a CPU. */
static void groups_table(html_ctx *h, const fold_region_result *r)
{
	if (!r->ngroups)
		return;
	char a[32], b[32], c[32], d[32], cpu[16];
	double all = 0;
	for (size_t i = 0; i < r->ngroups; i++)
		all += r->groups[i].total_ns;
	util_buf_puts(
	    h->b, "<h3>Instance groups</h3><table class=\"groups\"><thead><tr><th>group</th>"
	          "<th class=\"n\">instances</th><th class=\"n\">used</th><th class=\"n\">outliers</th>"
	          "<th class=\"n\">other excluded</th><th class=\"n\">median</th><th class=\"n\">MAD</th>"
	          "<th class=\"n\" title=\"of the used instances without a sample, when they are most of "
	          "them: a sampled instance's duration is an estimate, its samples' cost taken out\">min</th>"
	          "<th class=\"n\">max</th><th class=\"n\">time</th>"
	          "<th class=\"n\">samples</th><th class=\"n\">on CPU</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < r->ngroups; i++) {
		const fold_group *g = &r->groups[i];
		report_fmt_ns(a, sizeof a, g->median_duration_ns);
		report_fmt_ns(b, sizeof b, g->mad_duration_ns);
		report_fmt_ns(c, sizeof c, g->min_duration_ns);
		report_fmt_ns(d, sizeof d, g->max_duration_ns);
		if (isfinite(g->cpu_share))
			snprintf(cpu, sizeof cpu, "%.0f%%", 100 * g->cpu_share);
		else
			snprintf(cpu, sizeof cpu, "-");
		char tail[80] = "";
		if (g->tail_of >= 0)
			snprintf(tail, sizeof tail, " <span class=\"note\">slow tail of %d</span>",
			         g->tail_of);
		util_buf_printf(h->b,
		                "<tr><td>%u%s%s</td><td class=\"n\">%lu</td><td class=\"n\">%lu</td><td "
		                "class=\"n\">%lu</td>"
		                "<td class=\"n\">%lu</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		                "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%.0f%%</td>"
		                "<td class=\"n\">%lu</td><td class=\"n\">%s</td></tr>\n",
		                g->id, tail,
		                g->id != r->selected_group ? ""
		                : r->folded                ? " <span class=\"pill ok\">folded</span>"
		                            : " <span class=\"pill\">chosen, not folded</span>",
		                g->instances, g->used, g->excluded_outliers, g->excluded_other, a, b, c, d,
		                all > 0 ? 100 * g->total_ns / all : 0, g->samples, cpu);
	}
	util_buf_puts(h->b, "</tbody></table>\n");
}

/* The fit's parameters (value and unit) and notes, folded away: evidence
 * for who asks, not the first thing to read. */
static void fit_table(html_ctx *h, const fold_region_result *r)
{
	util_buf_printf(h->b,
	                "<details class=\"fitparams\"><summary class=\"note\">fit parameters (%zu)</summary>"
	                "<table><tbody>",
	                r->nfit_params + r->nfit_notes);
	for (size_t i = 0; i < r->nfit_params; i++) {
		const fold_fit_param *p = &r->fit_params[i];
		util_buf_puts(h->b, "<tr><td class=\"mono\">");
		report_html_text(h, p->name);
		util_buf_puts(h->b, "</td><td class=\"mono\">");
		if (p->kind == FOLD_FIT_WORD)
			report_html_text(h, p->word);
		else if (p->kind == FOLD_FIT_INTEGER)
			util_buf_printf(h->b, "%llu", (unsigned long long)p->integer);
		else
			util_buf_printf(h->b, "%.6g", p->value);
		if (p->unit && *p->unit) {
			util_buf_puts(h->b, " ");
			report_html_text(h, p->unit);
		}
		util_buf_puts(h->b, "</td></tr>");
	}
	for (size_t i = 0; i < r->nfit_notes; i++) {
		util_buf_puts(h->b, "<tr><td class=\"mono\">");
		report_html_text(h, r->fit_notes[i].key);
		util_buf_puts(h->b, "</td><td>");
		report_html_text(h, r->fit_notes[i].value);
		util_buf_puts(h->b, "</td></tr>");
	}
	util_buf_puts(h->b, "</tbody></table></details>\n");
}

void report_html_region(html_ctx *h, size_t ri)
{
	const fold_region_result *r = &h->a->regions[ri];
	char tot[32], mean[32];
	report_fmt_ns(tot, sizeof tot, r->total_ns);
	report_fmt_ns(mean, sizeof mean, r->mean_duration_ns);
	util_buf_printf(
	    h->b, "<section class=\"region\" id=\"region-%zu\" data-r=\"%zu\"><h2><span class=\"mono\">", ri,
	    ri);
	report_html_fn(h, r->name);
	util_buf_printf(h->b, "</span><span class=\"pill\">%s</span>%s</h2>\n",
	                fold_region_kind_label(r->kind),
	                r->folded ? "<span class=\"pill ok\">folded</span>"
	                          : "<span class=\"pill no\">not folded</span>");
	/* a region that was not folded has usable instances and samples in
	 * them, none folded; the folded instances' own mean where it is not
	 * the region's (one group of several), which the phases' durations
	 * add up to */
	char their[64] = "";
	double fm = r->folded_mean_duration_ns;
	if (r->folded && fm > 0 && fabs(fm - r->mean_duration_ns) > 0.05 * r->mean_duration_ns) {
		char m[32];
		report_fmt_ns(m, sizeof m, fm);
		snprintf(their, sizeof their, ", their mean %s", m);
	}
	util_buf_printf(
	    h->b,
	    "<p class=\"sub\">%lu instances (%lu %s%s) &middot; total %s &middot; mean %s &middot; "
	    "%lu samples (%lu %s)",
	    r->instances, r->instances_used, r->folded ? "folded" : "usable", their, tot, mean, r->samples,
	    r->samples_folded, r->folded ? "folded" : "in them");
	if (r->fit_method) {
		util_buf_puts(h->b, " &middot; fit ");
		report_html_text(h, r->fit_method);
	}
	util_buf_puts(h->b, "</p>\n");
	/* The fit's parameters are evidence for who asks, not the first thing to read. */
	if (r->nfit_params || r->nfit_notes)
		fit_table(h, r);
	if (!r->folded) {
		util_buf_puts(h->b, "<div class=\"warn\">Not folded: ");
		report_html_text(h, r->reason ? r->reason : "no reason given");
		util_buf_puts(h->b, "</div>\n");
	}
	if (r->folded && r->nseries) {
		util_buf_puts(h->b, "<div class=\"regiontools\">Counter <select class=\"series-select\" "
		                    "aria-label=\"counter\"><option value=\"all\">all</option>");
		for (size_t i = 0; i < r->nseries; i++) {
			util_buf_printf(h->b, "<option value=\"%zu\">", i);
			report_html_text_max(h, r->series[i].name, 60);
			util_buf_puts(h->b, "</option>");
		}
		util_buf_puts(h->b, "</select><button class=\"unzoom\" disabled>Reset zoom</button>"
		                    "<span class=\"zoomlabel\">drag across a chart to zoom</span></div>\n");
		util_buf_puts(h->b, "<div class=\"plots\">\n");
		for (size_t i = 0; i < r->nseries; i++)
			series_chart(h, r, i);
		model_charts(h, r);
		timeline_chart(h, r);
		util_buf_puts(h->b, "</div>\n");
		phase_table(h, r);
		report_html_source(h, r);
	}
	util_buf_puts(h->b, "<div class=\"plots\" style=\"margin-top:12px\">\n");
	duration_histogram(h, r);
	variation_chart(h, r);
	util_buf_puts(h->b, "</div>\n");
	groups_table(h, r);
	util_buf_puts(h->b, "</section>\n");
}

static void json_numbers(util_buf *b, const double *v, size_t n, size_t stride_n)
{
	char num[40];
	util_buf_putc(b, '[');
	for (size_t k = 0; k < stride_n; k++) {
		size_t i = stride_n == n ? k : (size_t)((double)k * (double)(n - 1) / (double)(stride_n - 1));
		if (isfinite(v[i]))
			report_fmt_num(num, sizeof num, v[i]);
		else
			snprintf(num, sizeof num, "null"); /* no data: the hover says so, not 0 */
		util_buf_printf(b, "%s%s", k ? "," : "", num);
	}
	util_buf_putc(b, ']');
}

void report_html_region_data(html_ctx *h)
{
	util_buf *b = h->b;
	char num[40];
	/* an object by region index: the regions shown one by one only */
	util_buf_puts(b, "{\"regions\":{");
	for (size_t ri = 0, first = 1; ri < h->a->nregions; ri++) {
		const fold_region_result *r = &h->a->regions[ri];
		if (!report_region_shown(h->a, &h->agg, ri))
			continue;
		util_buf_printf(b, "%s\n\"%zu\":{\"name\":", first ? "" : ",", ri);
		first = 0;
		report_esc_json(b, r->name);
		report_fmt_num(num, sizeof num, r->folded_mean_duration_ns);
		util_buf_printf(b, ",\"mean_ns\":%s,\"phases\":[", num);
		for (size_t k = 0; k < r->nphases; k++) {
			const fold_phase_result *p = &r->phases[k];
			util_buf_printf(b, "%s[%.6g,%.6g,", k ? "," : "", p->start, p->end);
			report_esc_json(b, phase_top_function(p));
			util_buf_putc(b, ',');
			report_esc_json(b, p->ntop ? p->top[0].file : NULL);
			util_buf_printf(b, ",%u]", p->ntop ? p->top[0].line : 0);
		}
		util_buf_puts(b, "],\"series\":[");
		for (size_t si = 0; si < r->nseries && r->folded; si++) {
			const fold_series *s = &r->series[si];
			const fold_curve *c = &s->fit;
			size_t n = c->n > REPORT_HTML_MAX_CURVE ? REPORT_HTML_MAX_CURVE : c->n;
			util_buf_puts(b, si ? ",{\"name\":" : "{\"name\":");
			report_esc_json(b, s->name);
			util_buf_puts(b, ",\"unit\":");
			report_esc_json(b, s->unit);
			util_buf_puts(b, ",\"x\":");
			json_numbers(b, c->x, c->n, n);
			util_buf_puts(b, ",\"v\":");
			json_numbers(b, c->value, c->n, n);
			util_buf_puts(b, ",\"c\":");
			if (c->cum)
				json_numbers(b, c->cum, c->n, n);
			else
				util_buf_puts(b, "null");
			util_buf_putc(b, '}');
		}
		util_buf_puts(b, "]}");
	}
	util_buf_puts(b, "}}");
}

/* A table row of one aggregated region. */
static void aggregated_row(html_ctx *h, size_t i)
{
	const fold_region_result *r = &h->a->regions[i];
	char buf[64];
	util_buf_puts(h->b, "<tr><td class=\"fn\">");
	report_html_fn(h, r->name);
	util_buf_printf(h->b, "</td><td>%s</td>", fold_region_kind_label(r->kind));
	report_fmt_ns(buf, sizeof buf, r->total_ns);
	report_html_num_cell(h, r->total_ns, buf);
	snprintf(buf, sizeof buf, "%lu", r->instances);
	report_html_num_cell(h, (double)r->instances, buf);
	snprintf(buf, sizeof buf, "%lu", r->samples);
	report_html_num_cell(h, (double)r->samples, buf);
	util_buf_puts(h->b, "<td class=\"note\">");
	report_html_text(h, r->reason ? r->reason : "not folded");
	util_buf_puts(h->b, "</td></tr>\n");
}

void report_html_aggregated(html_ctx *h)
{
	const report_aggregate *g = &h->agg;
	const fold_analysis *a = h->a;
	if (!g->n)
		return;
	char t[32];
	report_fmt_ns(t, sizeof t, g->total_ns);
	util_buf_printf(
	    h->b,
	    "<section class=\"aggregated\" id=\"aggregated\"><h2>%zu more region%s, not "
	    "folded</h2>\n<p class=\"sub\">%lu instances &middot; %s in all &middot; %lu samples. "
	    "Beyond the %d unfolded regions with the most time, regions that were not folded "
	    "are summed up here; every one is in the exact profile (JSON, CSV, "
	    "<code>fold profile</code>).</p>\n<ul class=\"reasons\">",
	    g->n, g->n == 1 ? "" : "s", g->instances, t, g->samples, REPORT_UNFOLDED_SHOWN);
	for (size_t k = 0; k < REPORT_AGGREGATE_REASONS && g->reason[k]; k++) {
		util_buf_printf(h->b, "<li>%zu: ", g->nreason[k]);
		report_html_text(h, g->reason[k]);
		util_buf_puts(h->b, "</li>");
	}
	if (g->other_reasons)
		util_buf_printf(h->b, "<li>%zu: other reasons</li>", g->other_reasons);
	util_buf_printf(h->b,
	                "</ul>\n<div class=\"tablewrap\"><table class=\"sortable\" id=\"aggregated-table\">"
	                "<thead><tr><th>region</th><th>kind</th><th class=\"n\">total time</th><th "
	                "class=\"n\">instances</th><th class=\"n\">samples</th><th>not folded</th></tr>"
	                "</thead><tbody>\n");
	size_t listed = 0;
	unsigned long inst = 0, smp = 0;
	double tot = 0;
	for (size_t i = g->cut; i < a->nregions; i++) {
		if (report_region_shown(a, g, i))
			continue;
		if (listed < REPORT_AGGREGATE_LISTED) {
			aggregated_row(h, i);
			listed++;
		} else {
			inst += a->regions[i].instances;
			smp += a->regions[i].samples;
			tot += a->regions[i].total_ns;
		}
	}
	util_buf_puts(h->b, "</tbody>");
	if (listed < g->n) {
		report_fmt_ns(t, sizeof t, tot);
		util_buf_printf(
		    h->b,
		    "<tfoot><tr class=\"rest\"><td>%zu more</td><td></td><td class=\"n\">%s</td><td "
		    "class=\"n\">%lu</td><td class=\"n\">%lu</td><td></td></tr></tfoot>",
		    g->n - listed, t, inst, smp);
	}
	util_buf_puts(h->b, "</table></div></section>\n");
}
