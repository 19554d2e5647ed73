/* write_fixture_report: writes the HTML report of the hostile fixture
 * (tests/unit/report/fixture.h) to argv[1], for the Chromium test and the
 * report-size benchmark (argv[2]: folded samples per counter, default 600). */
#include <stdio.h>
#include <stdlib.h>

#include "fixture.h"
#include "report.h"

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: %s OUT.html [POINTS_PER_COUNTER]\n", argv[0]);
		return 2;
	}
	fold_analysis *a = report_fixture_new(argc > 2 ? (size_t)atol(argv[2]) : 600);
	char err[256];
	int rc = report_html_write(a, argv[1], err, sizeof err);
	if (rc)
		fprintf(stderr, "fold: %s\n", err);
	fold_analysis_free(a);
	return rc ? 1 : 0;
}
