/* stats.c — min, median, max, mean and coefficient of variation of samples. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int rs_stats_compute(const double *x, int n, rs_stats *out)
{
    if (n < 1)
        return -1;
    double *s = malloc(sizeof *s * (size_t)n);
    if (!s)
        return -1;
    memcpy(s, x, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_dbl);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += s[i];
    double mean = sum / n, ss = 0;
    for (int i = 0; i < n; i++)
        ss += (s[i] - mean) * (s[i] - mean);
    out->n = n;
    out->min = s[0];
    out->max = s[n - 1];
    long k99 = (long)ceil(0.99 * n) - 1;
    out->p99 = s[k99 < 0 ? 0 : k99];
    out->median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    out->mean = mean;
    out->cv = (n > 1 && mean != 0) ? sqrt(ss / (n - 1)) / fabs(mean) : 0;
    free(s);
    return 0;
}
