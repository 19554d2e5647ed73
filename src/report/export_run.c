/* export_run.c: report_export (report_export.h): loads the traces, runs the
 * exporter of the requested format into a buffer and writes it to a file
 * (atomically) or standard output. */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "export.h"

static int write_out(const util_buf *out, const char *out_path, char *err, size_t errlen)
{
	if (out_path)
		return report_out_buf(out, out_path, err, errlen);
	if (out->len && fwrite(out->data, 1, out->len, stdout) != out->len) {
		snprintf(err, errlen, "standard output: write failed");
		return -EIO;
	}
	if (fflush(stdout)) {
		snprintf(err, errlen, "standard output: write failed");
		return -EIO;
	}
	return 0;
}

/* The default limit of a Chrome export: 64 MiB, or 20 times the traces. */
static unsigned long long default_max_size(const char *const *paths, size_t n)
{
	unsigned long long total = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat sb;
		if (!stat(paths[i], &sb))
			total += (unsigned long long)sb.st_size;
	}
	return total * 20 > 64ull << 20 ? total * 20 : 64ull << 20;
}

int report_export(const char *const *paths, size_t n, const export_options *opt, const char *out_path,
                  trace_diag_fn diag, void *diag_arg, export_stats *st, char *err, size_t errlen)
{
	export_ctx ctx = {opt, NULL, 0};
	fold_export_filter filter = {opt->region, opt->from_s, opt->to_s, opt->allow_mixed};
	int rc = fold_export_open(&ctx.x, paths, n, &filter, diag, diag_arg, err, errlen);
	if (rc)
		return rc;
	util_buf out;
	util_buf_init(&out);
	if (opt->format == EXPORT_CHROME) {
		ctx.max_size =
		    opt->max_size >= 0 ? (unsigned long long)opt->max_size : default_max_size(paths, n);
		st->max_size = ctx.max_size;
	}
	switch (opt->format) {
	case EXPORT_PPROF: rc = export_pprof(&ctx, &out, st, err, errlen); break;
	case EXPORT_CHROME: rc = export_chrome(&ctx, &out, st, err, errlen); break;
	case EXPORT_FOLDED: rc = export_folded(&ctx, &out, st, err, errlen); break;
	default:
		rc = -EINVAL;
		snprintf(err, errlen, "export: unknown format %d", (int)opt->format);
		break;
	}
	fold_export_close(ctx.x);
	if (!rc)
		rc = write_out(&out, out_path, err, errlen);
	util_buf_free(&out);
	return rc;
}
