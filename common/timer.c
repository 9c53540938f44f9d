/* timer.c — monotonic and TSC clocks; TSC rate calibration; timer granularity. */
#include "timer.h"

#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define RS_HAVE_TSC 1
#endif

uint64_t rs_now_ns(void)
{
    struct timespec ts;
    /* Parenthesized: the host's clock even where SMPI's smpi_helpers.h makes
     * clock_gettime a macro for simulated time (ETAs, TSC calibration want real time). */
    (clock_gettime)(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t rs_cycles(void)
{
#ifdef RS_HAVE_TSC
    return __rdtsc();
#else
    return rs_now_ns();
#endif
}

/* Calibrate over ~50 ms three times and keep the median: one slow descheduling of
 * this vCPU during a window would otherwise skew the rate. */
double rs_tsc_ghz(void)
{
    static double ghz;
    if (ghz > 0)
        return ghz;
#ifdef RS_HAVE_TSC
    double r[3];
    for (int i = 0; i < 3; i++) {
        uint64_t t0 = rs_now_ns(), c0 = rs_cycles(), t1;
        do
            t1 = rs_now_ns();
        while (t1 - t0 < 50000000u);
        uint64_t c1 = rs_cycles();
        r[i] = (double)(c1 - c0) / (double)(t1 - t0);
    }
    double lo = r[0] < r[1] ? r[0] : r[1], hi = r[0] < r[1] ? r[1] : r[0];
    ghz = r[2] < lo ? lo : (r[2] > hi ? hi : r[2]);
#else
    ghz = 1.0;
#endif
    return ghz;
}

/* The smallest nonzero difference between successive readings over many tries:
 * what a sample must exceed (x20) to be measured to 5%. */
double rs_timer_granularity_ns(void)
{
    static double gran;
    if (gran > 0)
        return gran;
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 1000; i++) {
        uint64_t a = rs_now_ns(), b;
        do
            b = rs_now_ns();
        while (b == a);
        if (b - a < best)
            best = b - a;
    }
    gran = (double)best;
    return gran;
}
