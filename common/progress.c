/* progress.c — a single rewritten progress line with ETA, on a terminal only. */
#include "progress.h"

#include <stdio.h>
#include <unistd.h>

#include "timer.h"

static int total, active;
static uint64_t t_start;

void rs_progress_begin(int n)
{
    total = n;
    active = isatty(2);
    t_start = rs_now_ns();
}

void rs_progress(int done, const char *label)
{
    if (!active || total <= 0)
        return;
    double el = (double)(rs_now_ns() - t_start) * 1e-9;
    char eta[32] = "--:--";
    if (done > 0) {
        long s = (long)(el * (total - done) / done + 0.5);
        snprintf(eta, sizeof eta, "%ld:%02ld", s / 60, s % 60);
    }
    fprintf(stderr, "\r\033[K[%3d/%d] %-40.40s %3d%%  ETA %s", done, total, label,
            100 * done / total, eta);
    fflush(stderr);
}

void rs_progress_done(void)
{
    if (active)
        fputs("\r\033[K", stderr);
    active = 0;
}
