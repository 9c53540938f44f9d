/* gemm_report.h — summaries `microbench gemm` derives from its result table. */
#ifndef RS_GEMM_REPORT_H
#define RS_GEMM_REPORT_H

#include "record.h"

/* gain_vs_default on each corrected row that has a ":default" row for the same
 * problem: gflops(corrected) / gflops(default), > 1 where the fix paid. */
void gemm_report_gains(rs_table *t);

/* One line per library (OpenBLAS, BLIS): what it picks by itself, whether and how it
 * was corrected; also recorded in the table's metadata. */
void gemm_report_dispatch(rs_table *t);

/* The targets: on every 1-thread shape of `set` with this N, the best corrected
 * backend (not naive, not a :default copy) as a fraction of peak; the worst such shape
 * is what counts.  Prints one "target:" line (nothing if no such rows). */
void gemm_report_target(const rs_table *t, const char *what, const char *set, long n, double goal);

#endif
