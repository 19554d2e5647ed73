/* The HTML report on the hostile fixture: hostile names cannot inject markup
 * or script, the data block is safe inside <script>, the file is valid UTF-8
 * with no external URL, everything a user looks for is there, and huge
 * sample sets are downsampled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "report.h"
#include "report_text.h"

static char path[256];

static char *slurp(const char *p, size_t *len)
{
	FILE *f = fopen(p, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *d = malloc((size_t)n + 1);
	assert_non_null(d);
	assert_int_equal(fread(d, 1, (size_t)n, f), (size_t)n);
	d[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return d;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The report of a, as written to path (a failure to write fails the test). */
static char *written(const fold_analysis *a, size_t *len)
{
	char err[256] = "";
	int rc = report_html_write(a, path, err, sizeof err);
	if (rc)
		fail_msg("report_html_write: %s", err);
	return slurp(path, len);
}

static char *render(size_t points, size_t *len)
{
	fold_analysis *a = report_fixture_new(points);
	char *html = written(a, len);
	fold_analysis_free(a);
	return html;
}

/* A fixture whose durations span five decades (1 us to 100 ms). */
static fold_analysis *fixture_over_decades(void)
{
	fold_analysis *a = report_fixture_new(50);
	fold_region_result *r = &a->regions[0];
	for (size_t i = 0; i < r->ninst; i++)
		r->inst[i].duration_ns = 1e3 * pow(10, 5.0 * (double)i / (double)(r->ninst - 1));
	return a;
}

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof path, "/tmp/fold-test-report-%d.html", (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void test_hostile_names_cannot_inject(void **state)
{
	(void)state;
	size_t len;
	char *html = render(400, &len);
	/* Exactly the script elements fold writes: window.onerror, data, main. */
	assert_int_equal(count(html, "<script"), 3);
	assert_int_equal(count(html, "</script"), 3);
	assert_int_equal(count(html, "<img"), 0);
	assert_int_equal(count(html, "alert(1)</"), 0);
	assert_int_equal(count(html, "<script>alert"), 0);
	/* The hostile strings are there, as text. */
	assert_non_null(
	    strstr(html, "solve&lt;std::vector&lt;double, std::allocator&lt;double&gt; &gt;&amp;&gt;"));
	assert_non_null(strstr(html, "&lt;img src=x onerror=alert(1)&gt;"));
	assert_non_null(strstr(html, "we&quot;ird/&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;.c"));
	/* In an attribute (full path in title=), the quote cannot close it. */
	assert_non_null(strstr(html, "title=\"/src/we&quot;ird/&lt;/script&gt;"));
	assert_null(strstr(html, "we\"ird"));
	/* No raw control character (the ANSI escape in a name) reaches the page. */
	assert_null(memchr(html, 0x1b, len));
	free(html);
}

static void test_data_block_is_script_safe(void **state)
{
	(void)state;
	size_t len;
	char *html = render(400, &len);
	const char *open = "<script type=\"application/json\" id=\"fold-data\">";
	char *start = strstr(html, open);
	assert_non_null(start);
	start += strlen(open);
	char *end = strstr(start, "</script>");
	assert_non_null(end);
	*end = 0;
	assert_null(strstr(start, "</"));
	assert_null(strstr(start, "<!--"));
	assert_null(strstr(start, "\xe2\x80\xa8"));
	assert_null(strstr(start, "\xe2\x80\xa9"));
	assert_non_null(strstr(start, "\\u2028"));
	assert_null(strchr(start, '<'));
	assert_non_null(strstr(start, "\\u003c/script\\u003e"));
	free(html);
}

static void test_valid_utf8_and_offline(void **state)
{
	(void)state;
	size_t len;
	char *html = render(400, &len);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = report_utf8_next(html + i, &cp);
		if (cp == 0xfffd && n == 1)
			fail_msg("invalid UTF-8 at byte %zu", i);
		i += n;
	}
	assert_null(strstr(html, "http:"));
	assert_null(strstr(html, "https:"));
	assert_null(strstr(html, "src=\""));
	assert_null(strstr(html, "@import"));
	assert_null(strstr(html, "url(http"));
	free(html);
}

static void test_everything_a_user_looks_for(void **state)
{
	(void)state;
	size_t len;
	char *html = render(400, &len);
	static const char *const want[] = {
	    "id=\"overview\"",
	    "id=\"command\"",
	    "node&lt;002&gt;&amp;co",
	    "time@10ms jitter 10%",
	    "perf::TASK-CLOCK",
	    "PAPI_L2_DCM",
	    "no hardware PMU",
	    "throttled after 100000 calls",
	    "checksum mismatch",
	    "id=\"ranking\"",
	    "compute_flux",
	    "MPI_Allreduce",
	    "too few samples (3 &lt; 20) &lt;script&gt;",
	    "kernel_stencil&lt;float, 3&gt;",
	    "operator&lt;&lt;(std::ostream&amp;, Grid const&amp;)",
	    ">P1<",
	    ">P3<",
	    "Routine timeline",
	    "stacked model",
	    "branch&lt;mispredict&gt;",
	    "Instance durations",
	    "Variation across threads",
	    "rank 1 #1", /* numbered as in the threads table */
	    "Instance groups",
	    "Exact region profile",
	    "id=\"profile-threads\"",
	    "Sampled lines",
	    "axpy.h:18",
	    ">unbalanced</th>",
	    "7.2 ns per call",
	    "cpi&lt;stack&gt;",
	    "no counter for slots (perf::slots) in the trace",
	    "Callers and callees",
	    "id=\"topdown\"",
	    "id=\"bottomup\"",
	    "Sampled functions",
	    "axpy_inner",
	    "inlined:",
	    "matern52",
	    "class=\"sortable\"",
	    "class=\"chart zoomable\"",
	    "<use href=\"#fx\"",
	    /* where the CPUs worked, with the thread selector and one list per thread */
	    "Where the CPUs worked",
	    "id=\"thread-select\"",
	    "<tbody data-thread=\"4\" class=\"hidden\">",
	    "3.30 s",
	    /* shortened names, the full one on hover */
	    ">parallel region 3 in Integrate::run(…)<",
	    "title=\"Integrate::run(Atom&amp;, Force*, Neighbor&amp;, Comm&amp;, Thermo&amp;, Timer&amp;) "
	    "[clone "
	    "._omp_fn.3]\"",
	    "libgomp (no symbols)",
	    /* threads classed, names escaped */
	    "idle helper",
	    "OpenMP worker",
	    "(&lt;b&gt;progress&lt;/b&gt;)",
	    /* imbalance: LB, the slowest rank in bold, a bar per rank */
	    "id=\"imbalance-table\"",
	    "computation (outside MPI)",
	    "<b>rank 1</b>",
	    "class=\"imb\"",
	    /* warnings grouped by kind, counted */
	    "Warnings (5)",
	    /* a warning's region named as in the tables, its full name on hover */
	    "<span title=\"void miniFE::waxpby&lt;miniFE::Vector&lt;double, int, int&gt; "
	    "&gt;(miniFE::Vector&lt;double, int, int&gt;::ScalarType, miniFE::Vector&lt;double, int, "
	    "int&gt; const&amp;)\">miniFE::waxpby&lt;\xe2\x80\xa6&gt;(\xe2\x80\xa6)</span>: 2 "
	    "instance(s)",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (!strstr(html, want[i]))
			fail_msg("report lacks %s", want[i]);
	free(html);
}

static void test_huge_sample_sets_are_downsampled(void **state)
{
	(void)state;
	size_t small_len, big_len;
	free(render(1000, &small_len));
	char *html = render(40000, &big_len);
	/* 3 counters in 2 folded regions, each capped. */
	assert_true(count(html, "<use href=\"#fx\"") <= 6 * 1500);
	assert_non_null(strstr(html, "1500 of 40000 drawn"));
	assert_true(big_len < 3 * small_len);
	free(html);
}

static void test_unwritable_path_is_reported(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(10);
	char err[256] = "";
	int rc = report_html_write(a, "/nonexistent-dir/report.html", err, sizeof err);
	assert_true(rc < 0);
	assert_non_null(strstr(err, "/nonexistent-dir/report.html"));
	fold_analysis_free(a);
}

static void test_empty_analysis_still_renders(void **state)
{
	(void)state;
	fold_analysis *a = calloc(1, sizeof *a);
	char err[256] = "";
	assert_int_equal(report_html_write(a, path, err, sizeof err), 0);
	size_t len;
	char *html = slurp(path, &len);
	assert_non_null(strstr(html, "No call stacks were sampled"));
	assert_non_null(strstr(html, "</html>"));
	free(html);
	fold_analysis_free(a);
}

/* Durations over five decades: a log-scale histogram, ticks at the decades;
 * the fit's parameters folded into a details element. */
static void test_durations_over_decades_on_log_scale(void **state)
{
	(void)state;
	fold_analysis *a = fixture_over_decades();
	size_t len;
	char *html = written(a, &len);
	assert_non_null(strstr(html, "instance duration (log scale)"));
	assert_non_null(strstr(html, ">1.00 us</text>"));
	assert_non_null(strstr(html, ">100 ms</text>"));
	assert_non_null(strstr(html, "<details class=\"fitparams\"><summary class=\"note\">fit parameters"));
	/* the variation across threads on the same scale, its ticks at the decades */
	const char *var = strstr(html, "instance duration: range and mean (log scale)");
	assert_non_null(var);
	const char *tick = strstr(var, ">10.0 us</text>"), *end = strstr(var, "</figure>");
	assert_true(tick && end && tick < end);
	free(html);
	fold_analysis_free(a);
}

/* A duration of 0 (an instance a sample's cost took all of, once
 * compensated) among durations over decades: still a log scale, from the
 * shortest positive duration, the 0 counted in the first bin. */
static void test_zero_duration_keeps_the_log_scale(void **state)
{
	(void)state;
	fold_analysis *a = fixture_over_decades();
	a->regions[0].inst[3].duration_ns = 0;
	size_t len;
	char *html = written(a, &len);
	assert_non_null(strstr(html, "instance duration (log scale)"));
	assert_non_null(strstr(html, ">100 ms</text>"));
	/* the first bin holds the 0 and the shortest positive durations */
	const char *first = strstr(html, "<rect class=\"used\" x=\"48.5\"");
	assert_non_null(first);
	free(html);
	fold_analysis_free(a);
}

/* A trace's statistics: the program's and the trace's figures in the
 * cell, the runtime's measurements of its own hooks (overhead.*) collapsed
 * after them and counted. */
static void test_hook_figures_collapsed(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(50);
	fold_process *p = &a->procs[0];
	fold_kv *kv = realloc(p->stats, (p->nstats + 2) * sizeof *kv);
	assert_non_null(kv);
	p->stats = kv;
	memset(&kv[p->nstats], 0, 2 * sizeof *kv);
	kv[p->nstats].key = strdup("overhead.cold_exit_ticks.4");
	kv[p->nstats].value = strdup("316900");
	kv[p->nstats + 1].key = strdup("overhead.cold_exits.4");
	kv[p->nstats + 1].value = strdup("595");
	p->nstats += 2;
	size_t len;
	char *html = written(a, &len);
	const char *taken = strstr(html, "samples.taken 1523");
	const char *more =
	    strstr(html, "<details><summary>the hooks' own cost, measured (2 figures)</summary>");
	const char *bin =
	    strstr(html, "overhead.cold_exit_ticks.4 316900, overhead.cold_exits.4 595</details>");
	assert_non_null(taken);
	assert_non_null(more);
	assert_non_null(bin);
	assert_true(taken < more && more < bin);
	free(html);
	fold_analysis_free(a);
}

/* The phases' top lines in their source: counts per line, the phases,
 * the text escaped; a file that cannot be read is said. */
static void test_source_excerpt(void **state)
{
	(void)state;
	char src[64];
	snprintf(src, sizeof src, "/tmp/fold-test-src-%d.c", (int)getpid());
	FILE *f = fopen(src, "w");
	assert_non_null(f);
	for (int i = 1; i <= 20; i++)
		fprintf(f,
		        i == 7 ? "\tx = a < b && c; /* </script><script>alert(3)</script> */\n" : "line %d\n",
		        i);
	fclose(f);
	fold_analysis *a = report_fixture_new(50);
	fold_phase_result *p = &a->regions[0].phases[0];
	assert_true(p->ntop > 0);
	free(p->top[0].file);
	p->top[0].file = strdup(src);
	p->top[0].line = 7;
	p->top[0].samples = 42;
	char err[256] = "";
	assert_int_equal(report_html_write(a, path, err, sizeof err), 0);
	size_t len;
	char *html = slurp(path, &len);
	assert_non_null(strstr(html, "Source of the phases' top lines"));
	assert_non_null(strstr(html, "<tr class=\"hot\"><td class=\"n\">7</td>"));
	assert_non_null(strstr(html, ">42</td><td><span class=\"pill\">P1</span>"));
	assert_non_null(strstr(html, "x = a &lt; b &amp;&amp; c; /* &lt;/script&gt;&lt;script&gt;alert(3)"));
	assert_non_null(strstr(html, ">line 4</td>"));                    /* context above */
	assert_null(strstr(html, ">line 2</td>"));                        /* not the whole file */
	assert_non_null(strstr(html, "The source is not readable here")); /* the fixture's other files */
	free(html);
	fold_analysis_free(a);
	unlink(src);
}

/* A region whose folded group is one of several: the header gives the
 * folded instances' own mean, which the phases add up to, next to the
 * region's; not when the two agree. */
static void test_folded_group_mean_in_the_header(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(50);
	fold_region_result *r = &a->regions[0];
	assert_true(r->folded);
	r->mean_duration_ns = 1.10e6;
	r->folded_mean_duration_ns = 2.20e6;
	size_t len;
	char *html = written(a, &len);
	char want[96];
	snprintf(want, sizeof want, "(%lu folded, their mean 2.20 ms) &middot;", r->instances_used);
	assert_non_null(strstr(html, want));
	assert_non_null(strstr(html, "mean 1.10 ms &middot;"));
	free(html);
	r->folded_mean_duration_ns = 1.11e6;
	html = written(a, &len);
	assert_null(strstr(html, "their mean"));
	free(html);
	fold_analysis_free(a);
}

/* A series of time (cpu_time, wall_time: ns per instance, s/s) or of a
 * CPU-clock counter (ns of CPU) gives its time per instance as a duration,
 * and the counter's rate also in CPUs, as the phase table does: XSBench's
 * 1.65 us calls read "1.65 k per instance". */
static void test_time_per_instance_as_a_duration(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(50);
	fold_region_result *r = &a->regions[0];
	fold_series *clk = &r->series[0], *wall = &r->series[2];
	assert_string_equal(clk->name, "perf::TASK-CLOCK");
	clk->total_per_instance = 60.3e3;
	clk->mean_rate = 0.999e9;
	free(wall->name);
	free(wall->unit);
	wall->name = strdup("wall_time");
	wall->unit = strdup("s/s");
	wall->total_per_instance = 1651;
	wall->mean_rate = 1;
	size_t len;
	char *html = written(a, &len);
	assert_non_null(strstr(html, "mean 999 M (1.00 CPUs) &middot; 60.3 us per instance"));
	assert_non_null(strstr(html, "mean 1.00 &middot; 1.65 us per instance"));
	assert_null(strstr(html, "1.65 k per instance"));
	/* any other counter keeps its events */
	assert_non_null(strstr(html, "42.0 M per instance"));
	free(html);
	fold_analysis_free(a);
}

/* A phase's top line and a region in an OpenMP outlined function are
 * named as the other views name them, the raw name on hover (CloverLeaf's read
 * "calc_dt_kernel_module::calc_dt_kernel._omp_fn.0" next to a CPU view
 * saying "parallel region 0 in ..."). */
static void test_top_lines_named_as_elsewhere(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(50);
	fold_phase_result *p = &a->regions[0].phases[0];
	assert_true(p->ntop > 0);
	free(p->top[0].function);
	p->top[0].function = strdup("calc_dt_kernel_module::calc_dt_kernel._omp_fn.0");
	free(a->regions[0].name);
	a->regions[0].name = strdup("pdv_kernel_module::pdv_kernel._omp_fn.1");
	size_t len;
	char *html = written(a, &len);
	assert_non_null(
	    strstr(html, "<code><span title=\"calc_dt_kernel_module::calc_dt_kernel._omp_fn.0\">parallel "
	                 "region 0 in calc_dt_kernel_module::calc_dt_kernel</span></code>"));
	/* the exact profile and the sampled views name them so too */
	free(a->profile[0].name);
	a->profile[0].name = strdup("main._omp_fn.3");
	free(html);
	html = written(a, &len);
	assert_non_null(strstr(html, "<span title=\"main._omp_fn.3\">parallel region 3 in main</span>"));
	/* the region too, in its heading and in the regions table */
	const char *want = "title=\"pdv_kernel_module::pdv_kernel._omp_fn.1\">parallel region 1 in "
	                   "pdv_kernel_module::pdv_kernel</";
	const char *first = strstr(html, want);
	assert_non_null(first);
	assert_non_null(strstr(first + 1, want));
	free(html);
	fold_analysis_free(a);
}

/* The same in the report's phase table. */
static void test_wall_time_only_said(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(50);
	report_fixture_wall_time_only(&a->regions[0].phases[0]);
	size_t len;
	char *html = written(a, &len);
	assert_non_null(strstr(html, "no counter measured inside its instances: wall time only"));
	assert_null(strstr(html, "<code>wall_time</code>"));
	free(html);
	fold_analysis_free(a);
}

/* fold's cost in a row's calls as a share of their time: two digits
 * below 1% ("0.021%", not "0.0%", which read as none). */
static void test_cost_share_two_digits(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(50);
	fold_profile_entry *e = &a->profile[0];
	e->inclusive_ns = 8.26e9;
	e->hooks_ns = 1.77e6;
	a->profile[1].hooks_ns = 10; /* 10 ns in 3.1 s: below what two digits show */
	size_t len;
	char *html = written(a, &len);
	assert_non_null(strstr(html, ">1.77 ms (0.021%)<"));
	assert_non_null(strstr(html, "(&lt;0.001%)"));
	free(html);
	fold_analysis_free(a);
}

/* A timeline span's label names the routine as the other views do in the
 * room it has, not its demangled signature cut at the start ("void
 * miniFE::waxpby<miniFE::Vec..."); the title keeps the full name. */
static void test_timeline_labels_are_short_names(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(50);
	fold_timeline_span *sp = &a->regions[0].timeline[0].spans[0];
	free(sp->function);
	sp->function = strdup(FIXTURE_FUNC_WARNED);
	size_t len;
	char *html = written(a, &len);
	assert_non_null(strstr(html, "<text class=\"spl\""));
	assert_null(strstr(html, "\">void miniFE::waxpby&lt;miniFE::Vec"));
	assert_non_null(strstr(html, "\">miniFE::waxpby&lt;\xe2\x80\xa6&gt;(\xe2\x80\xa6)</text>"));
	assert_non_null(
	    strstr(html, "<title>void miniFE::waxpby&lt;miniFE::Vector&lt;double, int, int&gt; "));
	free(html);
	fold_analysis_free(a);
}

/* The variation chart numbers threads as the threads table does (#0 the
 * main thread), not by their stream ids ("rank 0 t1"). */
static void test_variation_rows_number_threads_as_the_table(void **state)
{
	(void)state;
	size_t len;
	char *html = render(50, &len);
	const char *v = strstr(html, "Variation across threads and ranks");
	assert_non_null(v);
	const char *end = strstr(v, "</figure>");
	const char *r0 = strstr(v, "text-anchor=\"end\">rank 0 #0</text>");
	const char *r1 = strstr(v, "text-anchor=\"end\">rank 1 #1</text>");
	assert_true(r0 && r0 < end && r1 && r1 < end);
	assert_null(strstr(html, "rank 0 t1"));
	free(html);
}

/* Warnings of one kind about two regions: the first whole, then how many
 * more, never "2x 18 instance(s)", which reads as a product. */
static void test_warnings_of_a_kind_say_how_many_more(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(50);
	fold_warning *w = realloc(a->warnings, (a->nwarnings + 1) * sizeof *w);
	assert_non_null(w);
	a->warnings = w;
	/* of the fixture's kind "outliers_excluded", about another region */
	fold_warning *d = &w[a->nwarnings++];
	*d = (fold_warning){.kind = FOLD_DIAG_OUTLIERS_EXCLUDED,
	                    .severity = FOLD_DIAG_NOTE,
	                    .subject = fold_diag_subject_none(),
	                    .what = strdup("region compute_flux: 5 instance(s) of the folded group "
	                                   "excluded as duration outliers"),
	                    .name_at = strlen("region "),
	                    .name_len = strlen("compute_flux")};
	d->subject.type = FOLD_SUBJECT_REGION;
	d->subject.region = strdup("compute_flux");
	size_t len;
	char *html = written(a, &len);
	const char *g = strstr(html, "<details class=\"warns\"><summary>region ");
	assert_non_null(g);
	const char *end = strstr(g, "</summary>");
	const char *first = strstr(g, ": 2 instance(s) of the folded group");
	const char *more = strstr(g, "(and 1 more like it)");
	assert_true(first && more && first < more && more < end);
	assert_null(strstr(html, "&times; 2 instance(s)"));
	free(html);
	fold_analysis_free(a);
}

/* The groups table marks the chosen group "folded" only when the region
 * was: miniMD's OpenMP region of 2 instances read "0 folded" under "not
 * folded". */
/* A rate's interval gives each bound with its own prefix, apart: a page-fault
 * phase of 13.1 k/s with [164, 811 k] had read "[164&ndash;811 k]", as if both
 * bounds were thousands and the interval missed its own rate. */
static void test_rate_interval_bounds_read_apart(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(50);
	fold_phase_result *p = &a->regions[0].phases[0];
	free(p->rate_names[0]);
	p->rate_names[0] = strdup("perf::PAGE-FAULTS"); /* not a CPU clock: in events */
	assert_non_null(p->rate_names[0]);
	p->rates[0] = 13086.7;
	p->rate_lo = calloc(1, sizeof *p->rate_lo);
	p->rate_hi = calloc(1, sizeof *p->rate_hi);
	assert_non_null(p->rate_lo);
	assert_non_null(p->rate_hi);
	p->rate_lo[0] = 164.0;
	p->rate_hi[0] = 811295.0;
	p->nrate_ci = 1;
	size_t len;
	char *html = written(a, &len);
	assert_non_null(strstr(html, "13.1 k"));
	assert_non_null(strstr(html, "[164, 811 k]"));
	assert_null(strstr(html, "164&ndash;811"));
	free(html);
	fold_analysis_free(a);
}

/* The figure of series si in html (its <figure> element), or NULL. */
static char *series_figure(const char *html, size_t si)
{
	char open[48];
	snprintf(open, sizeof open, "<figure class=\"series\" data-s=\"%zu\">", si);
	const char *a = strstr(html, open), *b = a ? strstr(a, "</figure>") : NULL;
	return b ? strndup(a, (size_t)(b - a)) : NULL;
}

/* Where a curve has no data (a phase without the samples to give it a
 * rate) nothing is drawn: a cpu_time curve without data in any phase had
 * been drawn as a rate of 0 under "mean 1.00" and phases saying "no data". */
static void test_curve_without_data_is_not_drawn_as_zero(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(50);
	fold_curve *c = &a->regions[0].series[0].fit;
	for (size_t i = c->n / 2; i < c->n; i++)
		c->value[i] = NAN; /* the second half: no data */
	size_t len;
	char *html = written(a, &len);
	char *fig = series_figure(html, 0);
	assert_non_null(fig);
	assert_int_equal(count(fig, "<polyline class=\"rate\""), 1);
	assert_null(strstr(fig, "no rate:"));
	free(fig);
	free(html);
	for (size_t i = 0; i < c->n; i++)
		c->value[i] = NAN;
	html = written(a, &len);
	fig = series_figure(html, 0);
	assert_non_null(fig);
	assert_int_equal(count(fig, "<polyline class=\"rate\""), 0);
	assert_non_null(strstr(fig, "no rate: no phase has the samples to measure it"));
	assert_null(strstr(fig, "fit error")); /* of a curve not drawn: says nothing */
	free(fig);
	free(html);
	fold_analysis_free(a);
}

/* The stacked model's figure in html, or NULL. */
static char *model_figure(const char *html)
{
	const char *a = strstr(html, "<figure class=\"wide model\">"), *b = a ? strstr(a, "</figure>") : NULL;
	return b ? strndup(a, (size_t)(b - a)) : NULL;
}

/* A model's stack where one component has no data is not drawn there: it
 * had stacked as 0, drawing the others as the whole. Each component is one
 * polygon per stretch with data. */
static void test_model_stack_without_data_is_not_drawn(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(50);
	size_t len;
	char *html = written(a, &len);
	char *fig = model_figure(html);
	assert_non_null(fig);
	assert_int_equal(count(fig, "<polygon "), 3); /* cpi/base, memory, branch */
	free(fig);
	free(html);
	fold_curve *c = &a->regions[0].series[5].fit; /* cpi/memory */
	for (size_t i = c->n / 3; i < 2 * c->n / 3; i++)
		c->value[i] = NAN;
	html = written(a, &len);
	fig = model_figure(html);
	assert_non_null(fig);
	assert_int_equal(count(fig, "<polygon "), 6); /* each component before and after the gap */
	free(fig);
	free(html);
	fold_analysis_free(a);
}

static void test_chosen_group_of_an_unfolded_region(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(50);
	fold_region_result *r = &a->regions[0];
	assert_true(r->ngroups > 0 && r->folded);
	size_t len;
	char *html = written(a, &len);
	const char *t = strstr(html, "<h3>Instance groups</h3>");
	assert_non_null(t);
	assert_non_null(strstr(t, "<span class=\"pill ok\">folded</span>"));
	free(html);
	r->folded = 0;
	r->reason = strdup("2 instance(s) usable in group 0, at least 3 needed to fold");
	html = written(a, &len);
	t = strstr(html, "<h3>Instance groups</h3>");
	assert_non_null(t);
	const char *end = strstr(t, "</table>");
	const char *pill = strstr(t, "chosen, not folded");
	assert_true(pill && pill < end);
	const char *ok = strstr(t, "pill ok\">folded");
	assert_true(!ok || ok > end);
	free(html);
	fold_analysis_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hostile_names_cannot_inject),
	    cmocka_unit_test(test_data_block_is_script_safe),
	    cmocka_unit_test(test_valid_utf8_and_offline),
	    cmocka_unit_test(test_everything_a_user_looks_for),
	    cmocka_unit_test(test_huge_sample_sets_are_downsampled),
	    cmocka_unit_test(test_unwritable_path_is_reported),
	    cmocka_unit_test(test_empty_analysis_still_renders),
	    cmocka_unit_test(test_durations_over_decades_on_log_scale),
	    cmocka_unit_test(test_zero_duration_keeps_the_log_scale),
	    cmocka_unit_test(test_hook_figures_collapsed),
	    cmocka_unit_test(test_source_excerpt),
	    cmocka_unit_test(test_folded_group_mean_in_the_header),
	    cmocka_unit_test(test_time_per_instance_as_a_duration),
	    cmocka_unit_test(test_top_lines_named_as_elsewhere),
	    cmocka_unit_test(test_wall_time_only_said),
	    cmocka_unit_test(test_cost_share_two_digits),
	    cmocka_unit_test(test_rate_interval_bounds_read_apart),
	    cmocka_unit_test(test_curve_without_data_is_not_drawn_as_zero),
	    cmocka_unit_test(test_model_stack_without_data_is_not_drawn),
	    cmocka_unit_test(test_chosen_group_of_an_unfolded_region),
	    cmocka_unit_test(test_warnings_of_a_kind_say_how_many_more),
	    cmocka_unit_test(test_timeline_labels_are_short_names),
	    cmocka_unit_test(test_variation_rows_number_threads_as_the_table),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
