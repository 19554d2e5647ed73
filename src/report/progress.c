/* progress.c: the progress bar fold draws on stderr during long analyses.
 *
 * Drawn only when stderr is a terminal and -q was not given, so logs and
 * pipes never see carriage returns. Redraws are rate-limited (100 ms) because
 * the analysis may report progress very often.
 */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report_text.h"

struct report_progress {
	int active;
	double last_draw;
	int last_percent;
	unsigned width;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

report_progress *report_progress_new(int quiet)
{
	report_progress *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->active = !quiet && isatty(STDERR_FILENO);
	p->last_percent = -1;
	p->width = 80;
	const char *cols = getenv("COLUMNS");
	if (cols && atoi(cols) >= 40 && atoi(cols) <= 1000)
		p->width = (unsigned)atoi(cols);
	return p;
}

void report_progress_update(report_progress *p, double fraction, const char *what)
{
	if (!p || !p->active)
		return;
	if (!(fraction >= 0))
		fraction = 0;
	if (fraction > 1)
		fraction = 1;
	int percent = (int)(fraction * 100);
	double t = now_s();
	if (percent == p->last_percent && t - p->last_draw < 0.1)
		return;
	if (t - p->last_draw < 0.1 && percent < 100)
		return;
	p->last_draw = t;
	p->last_percent = percent;
	enum { BAR = 30 };
	char bar[BAR + 1];
	int filled = (int)(fraction * BAR + 0.5);
	for (int i = 0; i < BAR; i++)
		bar[i] = i < filled ? '#' : '-';
	bar[BAR] = 0;
	util_buf b;
	util_buf_init(&b);
	util_buf_printf(&b, "\r[%s] %3d%% ", bar, percent);
	unsigned used = BAR + 8;
	if (what && p->width > used + 1)
		report_esc_term(&b, what, p->width - used - 1);
	util_buf_puts(&b, "\x1b[K");
	if (!b.oom)
		fputs(b.data, stderr);
	fflush(stderr);
	util_buf_free(&b);
}

void report_progress_done(report_progress *p)
{
	if (!p)
		return;
	if (p->active && p->last_percent >= 0) {
		fputs("\r\x1b[K", stderr);
		fflush(stderr);
	}
	free(p);
}
