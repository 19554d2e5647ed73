/* html_source.c: the source next to the numbers: for a folded region, an
 * excerpt of each source file that holds its phases' hottest lines, every
 * line with the samples the phases' top lines put there and the phases
 * they came from (as hpcviewer's source pane does).
 *
 * Invariants: a file is read only when it is a regular file the report's
 * writer can open, at most MAX_FILE_BYTES; a missing or unreadable file is
 * said, never fatal; the excerpt's text is escaped like every other string.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "html.h"

#define MAX_FILES 3
#define CONTEXT 3
#define MAX_FILE_BYTES (4 << 20)
#define MAX_HOT 64

typedef struct hot_line {
	unsigned line;
	unsigned long samples;
	unsigned phases; /* bit k: phase k+1 has the line among its top lines */
} hot_line;

typedef struct hot_file {
	const char *file;
	unsigned long samples;
	hot_line lines[MAX_HOT];
	size_t n;
} hot_file;

static void add(hot_file *files, size_t *nfiles, size_t cap, const fold_attribution *t, size_t phase)
{
	if (!t->file || !t->line)
		return;
	size_t f = 0;
	while (f < *nfiles && strcmp(files[f].file, t->file))
		f++;
	if (f == *nfiles) {
		if (*nfiles == cap)
			return;
		memset(&files[f], 0, sizeof files[f]);
		files[f].file = t->file;
		(*nfiles)++;
	}
	hot_file *hf = &files[f];
	hf->samples += t->samples;
	size_t k = 0;
	while (k < hf->n && hf->lines[k].line != t->line)
		k++;
	if (k == hf->n) {
		if (hf->n == MAX_HOT)
			return;
		hf->lines[hf->n++] = (hot_line){t->line, 0, 0};
	}
	hf->lines[k].samples += t->samples;
	if (phase < 32)
		hf->lines[k].phases |= 1u << phase;
}

static int cmp_file(const void *a, const void *b)
{
	const hot_file *x = a, *y = b;
	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

static const hot_line *find(const hot_file *hf, unsigned line)
{
	for (size_t k = 0; k < hf->n; k++)
		if (hf->lines[k].line == line)
			return &hf->lines[k];
	return NULL;
}

/* Whether line is within CONTEXT lines of a hot one. */
static int near(const hot_file *hf, unsigned line)
{
	for (size_t k = 0; k < hf->n; k++)
		if (line + CONTEXT >= hf->lines[k].line && line <= hf->lines[k].line + CONTEXT)
			return 1;
	return 0;
}

static char *read_source(const char *path, size_t *len)
{
	struct stat st;
	int fd = util_open_regular(path, &st); /* a path from debug info: never a FIFO or device */
	if (fd < 0)
		return NULL;
	FILE *f = st.st_size <= MAX_FILE_BYTES ? fdopen(fd, "rb") : NULL;
	if (!f) {
		close(fd);
		return NULL;
	}
	char *buf = malloc((size_t)st.st_size + 1);
	size_t n = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
	fclose(f);
	if (!buf)
		return NULL;
	buf[n] = 0;
	*len = n;
	return buf;
}

static void excerpt(html_ctx *h, const hot_file *hf, unsigned long total)
{
	size_t len = 0;
	char *src = read_source(hf->file, &len);
	util_buf_puts(h->b, "<figure class=\"source\"><figcaption class=\"mono\" title=\"");
	report_html_text(h, hf->file);
	util_buf_puts(h->b, "\">");
	const char *base = strrchr(hf->file, '/');
	report_html_text(h, base ? base + 1 : hf->file);
	util_buf_printf(h->b, " <span class=\"unit\">%lu samples at its top lines</span></figcaption>",
	                hf->samples);
	if (!src) {
		util_buf_puts(h->b,
		              "<p class=\"note\">The source is not readable here (the report shows the files "
		              "it can open where fold runs).</p></figure>\n");
		return;
	}
	util_buf_puts(h->b, "<table class=\"src\"><tbody>");
	unsigned line = 1, last = 0;
	const char *p = src;
	while (*p || p == src) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (near(hf, line)) {
			if (last && line > last + 1)
				util_buf_puts(
				    h->b,
				    "<tr class=\"gap\"><td></td><td></td><td></td><td>&#8942;</td></tr>");
			const hot_line *hl = find(hf, line);
			util_buf_printf(h->b, "<tr%s><td class=\"n\">%u</td>", hl ? " class=\"hot\"" : "",
			                line);
			if (hl) {
				util_buf_printf(
				    h->b,
				    "<td class=\"n\" title=\"%.1f%% of the phases' samples\">%lu</td><td>",
				    total ? 100.0 * (double)hl->samples / (double)total : 0, hl->samples);
				for (unsigned k = 0; k < 32; k++)
					if (hl->phases & (1u << k))
						util_buf_printf(h->b, "<span class=\"pill\">P%u</span>",
						                k + 1);
				util_buf_puts(h->b, "</td>");
			} else {
				util_buf_puts(h->b, "<td></td><td></td>");
			}
			char *text = strndup(p, n);
			util_buf_puts(h->b, "<td class=\"code\">");
			report_html_text(h, text ? text : "");
			util_buf_puts(h->b, "</td></tr>");
			free(text);
			last = line;
		}
		if (!e)
			break;
		p = e + 1;
		line++;
	}
	util_buf_puts(h->b, "</tbody></table></figure>\n");
	free(src);
}

void report_html_source(html_ctx *h, const fold_region_result *r)
{
	if (!r->folded || !r->nphases)
		return;
	hot_file files[8];
	size_t nfiles = 0;
	unsigned long total = 0;
	for (size_t k = 0; k < r->nphases; k++) {
		total += r->phases[k].samples;
		for (size_t i = 0; i < r->phases[k].ntop; i++)
			add(files, &nfiles, sizeof files / sizeof *files, &r->phases[k].top[i], k);
	}
	if (!nfiles)
		return;
	qsort(files, nfiles, sizeof *files, cmp_file);
	util_buf_puts(h->b,
	              "<details class=\"sources\" open><summary>Source of the phases' top lines "
	              "<span class=\"note\">(samples per line, and the phases it is a top line of)</span>"
	              "</summary>\n");
	for (size_t f = 0; f < nfiles && f < MAX_FILES; f++)
		excerpt(h, &files[f], total);
	util_buf_puts(h->b, "</details>\n");
}

const char report_html_source_css[] =
    "table.src{border-collapse:collapse;font:12px/1.35 ui-monospace,monospace;width:100%}\n"
    "table.src td{padding:0 6px;border:0;white-space:pre;vertical-align:top}\n"
    "table.src td.code{white-space:pre-wrap;word-break:break-all}\n"
    "table.src tr.hot td{background:#fef3c7}\n"
    "table.src tr.gap td{color:var(--ink2);text-align:left}\n"
    "figure.source figcaption{margin:8px 0 4px}\n";
