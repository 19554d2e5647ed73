/* export_run.c: report_export (report_export.h): loads the traces, runs the
 * exporter of the requested format into a buffer and writes it to a file
 * (atomically) or standard output. */
#include <errno.h>
#include <stdio.h>

#include "export.h"

static int write_out(const util_buf *out, const char *out_path, char *err, size_t errlen)
{
	if (out_path)
		return report_buf_write_file(out, out_path, err, errlen);
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

int report_export(const char *const *paths, size_t n, const export_options *opt, const char *out_path,
                  trace_diag_fn diag, void *diag_arg, export_stats *st, char *err, size_t errlen)
{
	export_ctx ctx = {opt, NULL};
	fold_export_filter filter = {opt->region, opt->from_s, opt->to_s, opt->allow_mixed};
	int rc = fold_export_open(&ctx.x, paths, n, &filter, diag, diag_arg, err, errlen);
	if (rc)
		return rc;
	util_buf out;
	util_buf_init(&out);
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
