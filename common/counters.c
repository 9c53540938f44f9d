/* counters.c — PAPI counters and likwid markers, used when present, never fatal.
 *
 * In a VM without a PMU PAPI_library_init succeeds but PAPI_add_event fails
 * (PAPI_ECMP_DISABLED, -25): the reason is recorded in machine.json and results
 * simply carry no counter columns. */
#include "counters.h"

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

static char papi_status[160] = "papi: not initialised";
static char likwid_status[160] = "likwid: markers off (not built with likwid)";
static int papi_ok;
#ifdef HAVE_PAPI
static int evset = -1;
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
    if ((rc = PAPI_create_eventset(&evset)) != PAPI_OK ||
        (rc = PAPI_add_event(evset, PAPI_TOT_CYC)) != PAPI_OK ||
        (rc = PAPI_add_event(evset, PAPI_TOT_INS)) != PAPI_OK) {
        const char *name = rc == PAPI_ECMP_DISABLED ? "PAPI_ECMP_DISABLED"
                           : rc == PAPI_ENOEVNT     ? "PAPI_ENOEVNT"
                           : rc == PAPI_EPERM       ? "PAPI_EPERM"
                                                    : "error";
        snprintf(papi_status, sizeof papi_status,
                 "papi: unavailable: adding PAPI_TOT_CYC/PAPI_TOT_INS gave %s (%d): %s", name, rc,
                 PAPI_strerror(rc));
        return 0;
    }
    papi_ok = 1;
    snprintf(papi_status, sizeof papi_status, "papi: ok (PAPI_TOT_CYC, PAPI_TOT_INS)");
#else
    snprintf(papi_status, sizeof papi_status, "papi: unavailable: not built with PAPI");
#endif
    return papi_ok;
}

const char *rs_counters_status(void) { return papi_status; }

void rs_counters_start(void)
{
#ifdef HAVE_PAPI
    if (papi_ok)
        PAPI_start(evset);
#endif
}

void rs_counters_stop(rs_counts *out)
{
    out->cycles = out->instructions = -1;
#ifdef HAVE_PAPI
    long long v[2];
    if (papi_ok && PAPI_stop(evset, v) == PAPI_OK) {
        out->cycles = v[0];
        out->instructions = v[1];
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
