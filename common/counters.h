/* counters.h — hardware counters (PAPI) and likwid marker regions, never fatal.
 *
 * rs_counters_init() tries PAPI (PAPI_TOT_CYC and PAPI_TOT_INS, plus one floating-point
 * event where PAPI_query_event finds it); where that fails — as in a VM without a PMU,
 * where PAPI_add_event gives PAPI_ECMP_DISABLED — it records why in
 * rs_counters_status() and every later call does nothing.  Counting is per thread:
 * each thread that calls rs_counters_start() counts its own work (bench.c sums them).
 * Marker regions are active only when the program runs under `likwid-perfctr -m`. */
#ifndef RS_COUNTERS_H
#define RS_COUNTERS_H

typedef struct {
    long long cycles;       /* -1 where unavailable */
    long long instructions; /* -1 where unavailable */
    long long fp_ops;       /* -1 where unavailable or the CPU counts no FP event */
} rs_counts;

int rs_counters_init(void);            /* 1 counting available, 0 not (never fails) */
const char *rs_counters_status(void);  /* "papi: ok (...)" or "papi: unavailable: <why>" */
/* Count on the calling thread from start to stop; stop gives -1s where it cannot. */
void rs_counters_start(void);
void rs_counters_stop(rs_counts *out);

void rs_markers_init(void);            /* likwid: only if run under likwid-perfctr -m */
const char *rs_markers_status(void);
void rs_marker_start(const char *region);
void rs_marker_stop(const char *region);
void rs_markers_close(void);

#endif
