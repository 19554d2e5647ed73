/* html_views.c: the report's answers before any region: where the CPUs
 * worked and where the threads spent wall time (with a selector by rank and
 * thread), the threads with their class and busy share, and the imbalance
 * over ranks and threads with the slowest named; the warnings grouped by
 * kind (warn_group.c), each kind once with its count and every message in a
 * collapsed list.
 *
 * Invariants: every name from the trace is escaped; function names are
 * shortened for people (names.c) with the full name in the title (hover);
 * idle helper threads are never in the "all threads" lists; the page works
 * without script (all tables are there, the selector only hides).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "names.h"
#include "warn_group.h"

#define HOT_ROWS 15

const char report_html_views_css[] =
    ".imb{display:inline-flex;gap:2px;align-items:flex-end;height:22px;vertical-align:middle}\n"
    ".imb span{display:inline-block;width:9px;background:var(--accent);opacity:.7;border-radius:1px}\n"
    ".imb span.slow{background:var(--bad);opacity:.9}\n"
    ".cls{font-size:11.5px;padding:0 6px;border-radius:8px;background:#e2e8f0}\n"
    ".cls.idle{background:#f1f5f9;color:var(--ink2)}\n"
    ".cls.omp{background:#dbeafe;color:#1d4ed8}\n"
    "details.warns summary{cursor:pointer}\n";

/* The selector: shows the tbody of the chosen thread (or all), in every table of #cpu,
 * and what the shares are of (#cpu-of: the option's data-of, else its data-all). */
const char report_html_views_js[] =
    "(function(){var s=document.getElementById('thread-select');if(!s)return;\n"
    "var of=document.getElementById('cpu-of');\n"
    "s.addEventListener('change',function(){document.querySelectorAll('#cpu tbody[data-thread]')"
    ".forEach(function(tb){tb.classList.toggle('hidden',tb.getAttribute('data-thread')!==s.value);});\n"
    "if(of)of.textContent=s.options[s.selectedIndex].getAttribute('data-of')||of.getAttribute('data-all');});"
    "})();"
    "\n";

static const char *class_label(unsigned k)
{
	return k == FOLD_THREAD_OPENMP         ? "OpenMP worker"
	       : k == FOLD_THREAD_RUNTIME_IDLE ? "idle helper"
	                                       : "application";
}

static const char *class_css(unsigned k)
{
	return k == FOLD_THREAD_OPENMP ? "cls omp" : k == FOLD_THREAD_RUNTIME_IDLE ? "cls idle" : "cls";
}

/* A function cell: the shortened name, the full one on hover. */
static void fn_cell(html_ctx *h, const char *full)
{
	char s[512];
	report_short_name(full, 70, s, sizeof s);
	util_buf_puts(h->b, "<td class=\"fn\" title=\"");
	report_html_text(h, full);
	util_buf_puts(h->b, "\">");
	report_html_text(h, s);
	util_buf_puts(h->b, "</td>");
}

static void thread_label(html_ctx *h, const fold_thread_summary *t, int mpi)
{
	char v[160];
	const fold_process *pr = t->proc < h->a->nprocs ? &h->a->procs[t->proc] : NULL;
	const char *exe = pr && pr->exe ? strrchr(pr->exe, '/') : NULL;
	exe = exe ? exe + 1 : pr ? pr->exe : NULL;
	if (mpi && t->rank < 0) /* a launcher's daemon traced with the ranks */
		snprintf(v, sizeof v, "%s (pid %ld%s), thread #%u", exe ? exe : "process", pr ? pr->pid : -1L,
		         pr && pr->exec_replaced ? ", before its exec" : "", t->index);
	else if (mpi)
		snprintf(v, sizeof v, "rank %ld, thread #%u", t->rank, t->index);
	else if (h->a->nprocs > 1)
		snprintf(v, sizeof v, "process %u, thread #%u", t->proc, t->index);
	else
		snprintf(v, sizeof v, "thread #%u", t->index);
	report_html_text(h, v);
	if (t->name) {
		util_buf_puts(h->b, " (");
		report_html_text(h, t->name);
		util_buf_puts(h->b, ")");
	}
}

static int is_mpi(const fold_analysis *a)
{
	for (size_t i = 0; i < a->nprocs; i++)
		if (a->procs[i].rank >= 0)
			return 1;
	return 0;
}

/* Rows of functions; by_cpu: CPU time and share of it, else samples, share and off-CPU share.
 * Shares are of cpu and smp, the CPU time and samples of all the rows stand for
 * (the lists keep their top rows only). */
static void hot_body(html_ctx *h, const char *key, int hidden, const fold_hot_function *f, size_t n,
                     int by_cpu, int cpu_known, double cpu, unsigned long smp)
{
	util_buf_printf(h->b, "<tbody data-thread=\"%s\"%s>", key, hidden ? " class=\"hidden\"" : "");
	if (!n)
		util_buf_puts(h->b, "<tr><td colspan=\"5\" class=\"note\">No samples.</td></tr>");
	for (size_t i = 0; i < n && i < HOT_ROWS; i++) {
		char buf[64];
		util_buf_puts(h->b, "<tr>");
		fn_cell(h, f[i].function);
		if (by_cpu && cpu_known) {
			report_fmt_ns(buf, sizeof buf, f[i].cpu_ns);
			report_html_num_cell(h, f[i].cpu_ns, buf);
			snprintf(buf, sizeof buf, "%.1f%%", cpu > 0 ? 100 * f[i].cpu_ns / cpu : 0);
			report_html_num_cell(h, cpu > 0 ? f[i].cpu_ns / cpu : 0, buf);
		} else {
			double wall = f[i].cpu_ns + f[i].off_cpu_ns;
			snprintf(buf, sizeof buf, "%.0f%%", wall > 0 ? 100 * f[i].off_cpu_ns / wall : 0);
			report_html_num_cell(h, wall > 0 ? f[i].off_cpu_ns / wall : 0, cpu_known ? buf : "-");
			snprintf(buf, sizeof buf, "%.1f%%",
			         smp ? 100.0 * (double)f[i].samples / (double)smp : 0);
			report_html_num_cell(h, smp ? (double)f[i].samples / (double)smp : 0, buf);
		}
		snprintf(buf, sizeof buf, "%lu", f[i].samples);
		report_html_num_cell(h, (double)f[i].samples, buf);
		util_buf_puts(h->b, "<td>");
		if (f[i].file)
			report_html_loc(h, f[i].file, f[i].line);
		else
			report_html_text(
			    h, f[i].module
			           ? (strrchr(f[i].module, '/') ? strrchr(f[i].module, '/') + 1 : f[i].module)
			           : "?");
		util_buf_puts(h->b, "</td></tr>");
	}
	util_buf_puts(h->b, "</tbody>\n");
}

static void hot_table(html_ctx *h, int by_cpu)
{
	const fold_analysis *a = h->a;
	util_buf_printf(
	    h->b, "<div class=\"tablewrap\"><table class=\"hot\" id=\"%s\"><thead><tr><th>function</th>",
	    by_cpu ? "hot-cpu" : "hot-wall");
	if (by_cpu)
		util_buf_puts(h->b, "<th class=\"n\">CPU time</th><th class=\"n\">share</th>");
	else
		util_buf_puts(h->b, "<th class=\"n\">off CPU</th><th class=\"n\">share</th>");
	util_buf_puts(h->b, "<th class=\"n\">samples</th><th>hottest line</th></tr></thead>\n");
	hot_body(h, "all", 0, by_cpu ? a->hot_cpu : a->hot_wall, by_cpu ? a->nhot_cpu : a->nhot_wall, by_cpu,
	         a->cpu_weighted, a->hot_cpu_total_ns, a->hot_samples_total);
	for (size_t k = 0; k < a->nthreads; k++) {
		char key[32];
		snprintf(key, sizeof key, "%zu", k);
		const fold_thread_summary *t = &a->threads[k];
		/* the wall view has no before-wait row: the wait holds its samples */
		fold_hot_function *rows = t->top;
		size_t nrows = t->ntop;
		fold_hot_function wall_rows[32];
		if (!by_cpu) {
			nrows = 0;
			for (size_t i = 0; i < t->ntop && nrows < sizeof wall_rows / sizeof *wall_rows; i++)
				if (strcmp(t->top[i].function, FOLD_BEFORE_WAIT_FUNCTION))
					wall_rows[nrows++] = t->top[i];
			rows = wall_rows;
		}
		hot_body(h, key, 1, rows, nrows, by_cpu, t->cpu_known, t->cpu_ns, t->samples);
	}
	util_buf_puts(h->b, "</table></div>\n");
}

static void threads_table(html_ctx *h)
{
	const fold_analysis *a = h->a;
	int mpi = is_mpi(a);
	util_buf_puts(h->b,
	              "<h3>Threads</h3><p class=\"note\">busy: CPU time over wall time; waits: share of "
	              "samples in kernel waits (epoll_wait, poll, futex, nanosleep...). Idle helpers "
	              "(MPI progress and runtime threads) are kept out of the lists above.</p>"
	              "<div class=\"tablewrap\"><table class=\"sortable\" id=\"threads\"><thead><tr>"
	              "<th>thread</th><th>class</th><th class=\"n\">samples</th><th class=\"n\">CPU "
	              "time</th><th class=\"n\">busy</th><th class=\"n\">waits</th><th>top function</th>"
	              "</tr></thead><tbody>\n");
	for (size_t k = 0; k < a->nthreads; k++) {
		const fold_thread_summary *t = &a->threads[k];
		char buf[64];
		util_buf_puts(h->b, "<tr><td>");
		thread_label(h, t, mpi);
		util_buf_printf(h->b, "</td><td><span class=\"%s\">%s</span></td>", class_css(t->klass),
		                class_label(t->klass));
		snprintf(buf, sizeof buf, "%lu", t->samples);
		report_html_num_cell(h, (double)t->samples, buf);
		report_fmt_ns(buf, sizeof buf, t->cpu_ns);
		report_html_num_cell(h, t->cpu_ns, t->cpu_known ? buf : "-");
		double busy = t->cpu_known && t->wall_ns > 0 ? fmin(1, t->cpu_ns / t->wall_ns) : 0;
		snprintf(buf, sizeof buf, "%.0f%%", 100 * busy);
		report_html_num_cell(h, busy, t->cpu_known ? buf : "-");
		double w = t->samples ? (double)t->wait_samples / (double)t->samples : 0;
		snprintf(buf, sizeof buf, "%.0f%%", 100 * w);
		report_html_num_cell(h, w, buf);
		fn_cell(h, t->top_function ? t->top_function : "-");
		util_buf_puts(h->b, "</tr>\n");
	}
	util_buf_puts(h->b, "</tbody></table></div>\n");
}

void report_html_cpu_views(html_ctx *h)
{
	const fold_analysis *a = h->a;
	if (!a->nthreads)
		return;
	int mpi = is_mpi(a);
	double cpu = 0;
	size_t busy = 0;
	for (size_t k = 0; k < a->nthreads; k++)
		if (a->threads[k].klass != FOLD_THREAD_RUNTIME_IDLE) {
			cpu += a->threads[k].cpu_ns;
			busy++;
		}
	/* and what the samples the runtime dropped measured, a row of its own */
	cpu += a->dropped_cpu_ns;
	char d[32], dropped[160] = "";
	report_fmt_ns(d, sizeof d, cpu);
	if (a->dropped_cpu_ns > 0) {
		char x[32];
		report_fmt_ns(x, sizeof x, a->dropped_cpu_ns);
		snprintf(dropped, sizeof dropped,
		         " (%s of it in %lu samples the runtime dropped, which no function is charged with)",
		         x, a->dropped_cpu_samples);
	}
	util_buf_puts(h->b, "<section id=\"cpu\"><h2>Where the CPUs worked</h2>");
	util_buf_puts(h->b, "<p><label>Threads: <select id=\"thread-select\" aria-label=\"thread\">"
	                    "<option value=\"all\">all but idle helpers</option>");
	for (size_t k = 0; k < a->nthreads; k++) {
		char of[64] = "";
		if (a->cpu_weighted && a->threads[k].cpu_known) {
			report_fmt_ns(of, sizeof of, a->threads[k].cpu_ns);
			strncat(of, " on this thread", sizeof of - strlen(of) - 1);
		}
		util_buf_printf(h->b, "<option value=\"%zu\"", k);
		if (*of) {
			util_buf_puts(h->b, " data-of=\"");
			report_html_text(h, of);
			util_buf_puts(h->b, "\"");
		}
		util_buf_puts(h->b, ">");
		thread_label(h, &a->threads[k], mpi);
		util_buf_printf(h->b, ": %s</option>", class_label(a->threads[k].klass));
	}
	util_buf_puts(h->b, "</select></label></p>");
	if (a->cpu_weighted) {
		char all[384];
		snprintf(all, sizeof all, "%s on %zu thread%s%s", d, busy, busy == 1 ? "" : "s", dropped);
		util_buf_puts(
		    h->b, "<p class=\"note\">CPU time: each sample weighted by the CPU time its thread used "
		          "since the previous one (a sample that found its thread blocked in a wait gives it "
		          "to \"" FOLD_BEFORE_WAIT_FUNCTION "\": it ran before the wait); shares of "
		          "<span id=\"cpu-of\" data-all=\"");
		report_html_text(h, all);
		util_buf_puts(h->b, "\">");
		report_html_text(h, all);
		util_buf_puts(h->b, "</span>.</p>");
	} else
		util_buf_puts(h->b,
		              "<p class=\"note\">No thread measured its CPU time: functions by samples.</p>");
	hot_table(h, 1);
	util_buf_puts(h->b,
	              "<h3>Where the threads spent wall time</h3><p class=\"note\">By samples of the wall "
	              "clock; off CPU: the share of that time the thread was not running (waiting, or "
	              "preempted).</p>");
	hot_table(h, 0);
	threads_table(h);
	util_buf_puts(h->b, "</section>\n");
}

void report_html_imbalance(html_ctx *h)
{
	const fold_analysis *a = h->a;
	if (!a->nimbalance)
		return;
	int mpi = is_mpi(a);
	util_buf_puts(h->b,
	              "<section id=\"imbalance\"><h2>Imbalance</h2><p class=\"note\">Per rank: the time of "
	              "each rank in the region (its threads summed; the computation outside MPI is the "
	              "main thread's wall time minus its MPI calls). Per thread: each thread's time in an "
	              "OpenMP region. LB, the load-balance efficiency, is mean / max: 1 is balanced.</p>"
	              "<div class=\"tablewrap\"><table class=\"sortable\" id=\"imbalance-table\"><thead><tr>"
	              "<th>region</th><th>over</th><th class=\"n\">min</th><th class=\"n\">mean</th>"
	              "<th class=\"n\">max</th><th class=\"n\">max/mean</th><th class=\"n\">LB</th>"
	              "<th>slowest</th><th>per rank / thread</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < a->nimbalance; i++) {
		const fold_imbalance *m = &a->imbalance[i];
		char buf[96];
		util_buf_puts(h->b, "<tr>");
		fn_cell(h, m->region);
		if (m->by_thread && mpi)
			snprintf(buf, sizeof buf, "threads of rank %ld", a->procs[m->proc].rank);
		else if (m->by_thread)
			snprintf(buf, sizeof buf, "threads");
		else
			snprintf(buf, sizeof buf, mpi ? "ranks" : "processes");
		util_buf_puts(h->b, "<td>");
		report_html_text(h, buf);
		util_buf_puts(h->b, "</td>");
		report_fmt_ns(buf, sizeof buf, m->min_ns);
		report_html_num_cell(h, m->min_ns, buf);
		report_fmt_ns(buf, sizeof buf, m->mean_ns);
		report_html_num_cell(h, m->mean_ns, buf);
		report_fmt_ns(buf, sizeof buf, m->max_ns);
		report_html_num_cell(h, m->max_ns, buf);
		snprintf(buf, sizeof buf, "%.2f", m->mean_ns > 0 ? m->max_ns / m->mean_ns : 0);
		report_html_num_cell(h, m->mean_ns > 0 ? m->max_ns / m->mean_ns : 0, buf);
		snprintf(buf, sizeof buf, "%.2f", m->lb);
		report_html_num_cell(h, m->lb, buf);
		unsigned idx = 0;
		if (m->by_thread)
			for (size_t k = 0; k < a->nthreads; k++)
				if (a->threads[k].proc == m->proc &&
				    a->threads[k].stream == (unsigned)m->slowest)
					idx = a->threads[k].index;
		if (m->by_thread)
			snprintf(buf, sizeof buf, "thread #%u", idx);
		else
			snprintf(buf, sizeof buf, "%s %ld", mpi ? "rank" : "process", m->slowest);
		/* Named in bold when the imbalance matters (LB below 0.9). */
		util_buf_puts(h->b, m->lb < 0.9 ? "<td class=\"slowest\"><b>" : "<td>");
		report_html_text(h, buf);
		util_buf_puts(h->b, m->lb < 0.9 ? "</b></td>" : "</td>");
		/* One bar per rank (thread), the slowest in red, full value on hover. */
		util_buf_puts(h->b, "<td><span class=\"imb\">");
		for (size_t k = 0; k < m->n && k < 64; k++) {
			char v[32];
			report_fmt_ns(v, sizeof v, m->values_ns[k]);
			util_buf_printf(h->b, "<span%s style=\"height:%.0f%%\" title=\"%s %ld: %s\"></span>",
			                m->who[k] == m->slowest ? " class=\"slow\"" : "",
			                m->max_ns > 0 ? fmax(4, 100 * m->values_ns[k] / m->max_ns) : 0,
			                m->by_thread ? "stream"
			                : mpi        ? "rank"
			                             : "process",
			                m->who[k], v);
		}
		util_buf_puts(h->b, "</span></td></tr>\n");
	}
	util_buf_puts(h->b, "</tbody></table></div></section>\n");
}

/* A warning, the region or function it is about named as in the other
 * views (its full name on hover); from byte from of its text on. */
static void warning_text(html_ctx *h, const fold_warning *w, size_t from)
{
	size_t len = strlen(w->what);
	if (!w->name_len || w->name_at < from || w->name_at + w->name_len > len) {
		report_html_text(h, w->what + from);
		return;
	}
	char *name = strndup(w->what + w->name_at, w->name_len);
	char *head = strndup(w->what + from, w->name_at - from);
	if (!name || !head) {
		report_html_text(h, w->what + from);
	} else {
		report_html_text(h, head);
		report_html_fn_cols(h, name, 40);
		report_html_text(h, w->what + w->name_at + w->name_len);
	}
	free(name);
	free(head);
}

void report_html_warnings(html_ctx *h)
{
	const fold_analysis *a = h->a;
	size_t nsalvage = 0;
	for (size_t i = 0; i < a->nprocs; i++)
		nsalvage += a->procs[i].nsalvage;
	util_buf_printf(h->b, "<h3>Warnings (%zu)</h3><div id=\"warnings\">", a->nwarnings + nsalvage);
	if (!a->nwarnings && !nsalvage)
		util_buf_puts(h->b, "<p class=\"note\">None.</p>");
	size_t *order = a->nwarnings ? malloc(a->nwarnings * sizeof *order) : NULL;
	report_warn_group *groups = a->nwarnings ? malloc(a->nwarnings * sizeof *groups) : NULL;
	long ng = order && groups ? report_warn_groups(a, order, groups) : 0;
	if (a->nwarnings && ng <= 0)
		util_buf_puts(h->b,
		              "<div class=\"warn\">Out of memory: the warnings are in the JSON.</div>\n");
	for (long g = 0; g < ng; g++) {
		const size_t *o = order + groups[g].first;
		size_t n = groups[g].n;
		const fold_warning *w = &a->warnings[o[0]];
		util_buf_printf(h->b, "<div class=\"warn\" data-kind=\"%s\">", fold_diag_kind_id(w->kind));
		if (n == 1) {
			warning_text(h, w, 0);
			util_buf_puts(h->b, "</div>\n");
			continue;
		}
		/* Each kind once: the first whole, how many more of its kind (a
		 * count in front, "2x 18 instance(s) ...", read as a product),
		 * every message in a collapsed list. */
		util_buf_puts(h->b, "<details class=\"warns\"><summary>");
		warning_text(h, w, 0);
		util_buf_printf(h->b, " <span class=\"unit\">(and %zu more like it)</span>", n - 1);
		util_buf_puts(h->b, "</summary><ul>");
		for (size_t k = 0; k < n; k++) {
			util_buf_puts(h->b, "<li>");
			warning_text(h, &a->warnings[o[k]], 0);
			util_buf_puts(h->b, "</li>");
		}
		util_buf_puts(h->b, "</ul></details></div>\n");
	}
	free(order);
	free(groups);
	for (size_t i = 0; i < a->nprocs; i++)
		for (size_t k = 0; k < a->procs[i].nsalvage; k++) {
			util_buf_puts(h->b, "<div class=\"warn bad\">");
			report_html_text(h, a->procs[i].trace_path);
			util_buf_puts(h->b, ": ");
			report_html_text(h, a->procs[i].salvage_messages[k]);
			util_buf_puts(h->b, "</div>\n");
		}
	util_buf_puts(h->b, "</div>\n");
}
