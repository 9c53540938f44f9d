/* counters.c — PAPI counters and likwid markers, used when present, never fatal.
 *
 * In a VM without a PMU PAPI_library_init succeeds but PAPI_add_event fails
 * (PAPI_ECMP_DISABLED, -25): the reason is recorded in machine.json and the results'
 * metadata, and the counter cells stay empty.  PAPI counts per thread, so every
 * thread that counts builds its own event set of the same events on first use. */
#include "counters.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_PAPI
#include <papi.h>
#endif
#ifdef HAVE_LIKWID
#define LIKWID_PERFMON
#include <likwid-marker.h>
#endif

static char papi_status[200] = "papi: not initialised";
static char likwid_status[160] = "likwid: markers off (not built with likwid)";
static int papi_ok;
#ifdef HAVE_PAPI
/* Cycles and instructions, then the first FP event the CPU counts (kernels are fp32). */
static int events[3] = {PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_NULL};
static int nevents = 2;
static __thread int evset = PAPI_NULL;
static __thread int evset_failed;   /* this thread's set could not be built: not counted */

static unsigned long thread_id(void) { return (unsigned long)pthread_self(); }

static const char *papi_code_name(int rc)
{
    return rc == PAPI_ECMP_DISABLED ? "PAPI_ECMP_DISABLED"
           : rc == PAPI_ENOEVNT     ? "PAPI_ENOEVNT"
           : rc == PAPI_EPERM       ? "PAPI_EPERM"
                                    : "error";
}

/* The calling thread's event set of events[0..nevents): PAPI_OK or a PAPI error. */
static int build_evset(void)
{
    int rc = PAPI_create_eventset(&evset);
    for (int i = 0; i < nevents && rc == PAPI_OK; i++)
        rc = PAPI_add_event(evset, events[i]);
    return rc;
}

/* A floating-point event this CPU counts: added to the main thread's set if it fits. */
static const char *add_fp_event(void)
{
    static const struct { int code; const char *name; } fp[] = {
        {PAPI_SP_OPS, "PAPI_SP_OPS"}, {PAPI_FP_OPS, "PAPI_FP_OPS"}, {PAPI_DP_OPS, "PAPI_DP_OPS"},
    };
    for (size_t i = 0; i < sizeof fp / sizeof fp[0]; i++)
        if (PAPI_query_event(fp[i].code) == PAPI_OK && PAPI_add_event(evset, fp[i].code) == PAPI_OK) {
            events[nevents++] = fp[i].code;
            return fp[i].name;
        }
    return NULL;
}
#endif

int rs_counters_init(void)
{
#ifdef HAVE_PAPI
    static int done;
    if (done)
        return papi_ok;
    done = 1;
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        snprintf(papi_status, sizeof papi_status, "papi: unavailable: PAPI_library_init = %d (%s)",
                 rc, rc < 0 ? PAPI_strerror(rc) : "version mismatch");
        return 0;
    }
    if ((rc = PAPI_thread_init(thread_id)) != PAPI_OK || (rc = build_evset()) != PAPI_OK) {
        snprintf(papi_status, sizeof papi_status,
                 "papi: unavailable: adding PAPI_TOT_CYC/PAPI_TOT_INS gave %s (%d): %s",
                 papi_code_name(rc), rc, PAPI_strerror(rc));
        return 0;
    }
    const char *fp = add_fp_event();
    papi_ok = 1;
    snprintf(papi_status, sizeof papi_status, "papi: ok (PAPI_TOT_CYC, PAPI_TOT_INS, %s)",
             fp ? fp : "no floating-point event on this CPU");
#else
    snprintf(papi_status, sizeof papi_status, "papi: unavailable: not built with PAPI");
#endif
    return papi_ok;
}

const char *rs_counters_status(void) { return papi_status; }

void rs_counters_start(void)
{
#ifdef HAVE_PAPI
    if (!papi_ok || evset_failed)
        return;
    if (evset == PAPI_NULL && build_evset() != PAPI_OK) {
        evset_failed = 1;   /* its stop then gives -1s, and the sample is not counted */
        if (evset != PAPI_NULL) {
            PAPI_cleanup_eventset(evset);
            PAPI_destroy_eventset(&evset);
        }
        evset = PAPI_NULL;
        return;
    }
    PAPI_start(evset);
#endif
}

void rs_counters_stop(rs_counts *out)
{
    out->cycles = out->instructions = out->fp_ops = -1;
#ifdef HAVE_PAPI
    long long v[3];
    if (papi_ok && evset != PAPI_NULL && PAPI_stop(evset, v) == PAPI_OK) {
        out->cycles = v[0];
        out->instructions = v[1];
        if (nevents > 2)
            out->fp_ops = v[2];
    }
#endif
}

/* likwid-perfctr -m sets LIKWID_MODE (and LIKWID_FILEPATH) for the program it runs;
 * without it the marker API would only print a notice, so markers stay off. */
static int markers_on;

void rs_markers_init(void)
{
#ifdef HAVE_LIKWID
    if (getenv("LIKWID_MODE") && getenv("LIKWID_FILEPATH")) {
        LIKWID_MARKER_INIT;
        markers_on = 1;
        snprintf(likwid_status, sizeof likwid_status, "likwid: markers on (under likwid-perfctr -m)");
    } else {
        snprintf(likwid_status, sizeof likwid_status,
                 "likwid: markers off (not run under likwid-perfctr -m)");
    }
#endif
}

const char *rs_markers_status(void) { return likwid_status; }

void rs_marker_start(const char *region)
{
#ifdef HAVE_LIKWID
    if (markers_on)
        LIKWID_MARKER_START(region);
#else
    (void)region;
#endif
}

void rs_marker_stop(const char *region)
{
#ifdef HAVE_LIKWID
    if (markers_on)
        LIKWID_MARKER_STOP(region);
#else
    (void)region;
#endif
}

void rs_markers_close(void)
{
#ifdef HAVE_LIKWID
    if (markers_on)
        LIKWID_MARKER_CLOSE;
#endif
    markers_on = 0;
}
