/* pingpong.c — build/bin/pingpong-bench: the point-to-point cost between two hosts, as
 * OSU's osu_latency measures it, and the line t(m) = alpha + m / beta through it, from
 * which a SimGrid platform of the same hosts is generated (scaling/net/netcheck.sh).
 *
 * Ranks 0 and P-1 ping-pong one buffer (the others wait): per size, BATCHES batches of
 * --reps round trips, each round trip's half its sample.  The median is the figure (a
 * shaped link's token bucket lets the first bytes after a pause through at the wire's
 * speed, so the fastest sample is not the rate a stream sees).  alpha is the fastest
 * sample at the smallest size, which no bucket speeds up: on cores shared with other
 * work a round trip can only be slowed (one median of 4 ms was seen beside a study,
 * against 10 us quiet); 1/beta the least-squares slope of the medians over the sizes
 * from --fit-from up, where the rate, not the latency, sets the time.  Every message is
 * checked: its first and last bytes carry the round trip's mark both ways, else exit 1
 * (a message cut short or stale; the allreduce benchmarks check every element).
 * Exit: 0 ok, 1 a wrong message, 2 bad usage, 3 medians that do not rise with the size
 * (a stall in the fit's range: the measurement, not the answer, failed; run it again). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "meta.h"
#include "opts.h"
#include "record.h"
#include "stats.h"

#define BATCHES 5
#define MAX_SIZES 40
#define MAX_REPS 1000

static struct {
    const char *sizes;
    long reps, fit_from;
    rs_common_opts c;
} opt = {.sizes = "8:16M", .reps = 20, .fit_from = 256 * 1024};

static const rs_opt options[] = {
    {"sizes", RS_OPT_STR, &opt.sizes, "MIN:MAX", "message sizes in bytes, doubling (default 8:16M)", 0, 0},
    {"reps", RS_OPT_INT, &opt.reps, "N", "round trips per batch (5 batches; default 20)", 1, MAX_REPS},
    {"fit-from", RS_OPT_SIZE, &opt.fit_from, "BYTES", "fit the rate over sizes from this up (default 256k)", 1, 1L << 31},
    RS_COMMON_OPTS(opt.c),
};
#define NOPTS ((int)(sizeof options / sizeof options[0]))
static const char usage[] = "usage: mpirun -np P pingpong-bench [options]\n"
    "Half round trips between ranks 0 and P-1 per size, and the line alpha + m/beta through\n"
    "their medians (beta from the sizes >= --fit-from).\n"
    "Exit: 0 ok, 1 a wrong message, 2 bad usage, 3 no rate (medians that do not rise: run again).";

static int parse_sizes(long *sizes)
{
    char buf[64], *colon;
    long lo, hi;
    snprintf(buf, sizeof buf, "%s", opt.sizes);
    colon = strchr(buf, ':');
    RS_CHECK(colon, "--sizes %s: expected MIN:MAX (e.g. 8:16M)", opt.sizes);
    *colon = 0;
    RS_CHECK(rs_parse_size(buf, &lo) == 0 && rs_parse_size(colon + 1, &hi) == 0 && lo >= 1 && hi >= lo &&
             hi <= (1L << 30), "--sizes %s: expected MIN:MAX in bytes, 1 <= MIN <= MAX <= 1G", opt.sizes);
    int n = 0;
    for (long m = lo; m <= hi && n < MAX_SIZES; m *= 2)
        sizes[n++] = m;
    return n;
}

/* One size: the median and fastest half round trip; *wrong counts bad messages. */
static void measure(int me, int peer, char *buf, long bytes, rs_stats *st, long *wrong)
{
    static double t[BATCHES * MAX_REPS];
    int n = 0;
    for (int b = 0; b < BATCHES; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (long r = 0; peer >= 0 && r < opt.reps; r++) {
            char mark = (char)(1 + (b * opt.reps + r) % 250);
            double t0 = MPI_Wtime();
            if (me == 0) {
                buf[0] = buf[bytes - 1] = mark;
                MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
            }
            t[n++] = (MPI_Wtime() - t0) / 2.0;
            *wrong += buf[0] != mark || buf[bytes - 1] != mark;
        }
    }
    if (peer >= 0)
        rs_stats_compute(t, n, st);
}

/* Least squares of t against m over the sizes from --fit-from: slope (s per byte). */
static double fit_slope(const long *m, const double *t, int n, int *used)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (m[i] >= opt.fit_from) {
            sx += (double)m[i], sy += t[i], sxx += (double)m[i] * m[i], sxy += (double)m[i] * t[i];
            k++;
        }
    *used = k;
    double d = k * sxx - sx * sx;
    return k >= 2 && d > 0 ? (k * sxy - sx * sy) / d : 0;
}

static int report(int argc, char **argv, int p, const long *sizes, const double *med, const double *lo, int n)
{
    int used;
    double slope = fit_slope(sizes, med, n, &used), alpha = lo[0];
    if (slope <= 0) {   /* the medians say why: a stall in the fit's range, or no link to time */
        fprintf(stderr, "pingpong-bench: no rate: the medians from --fit-from %ld do not rise (", opt.fit_from);
        for (int i = 0; i < n; i++)
            if (sizes[i] >= opt.fit_from)
                fprintf(stderr, "%s%ld B %.4g us", sizes[i] > opt.fit_from ? ", " : "", sizes[i], med[i] * 1e6);
        fprintf(stderr, "); run it again, or widen --sizes\n");
        return 3;
    }
    static const rs_col cols[] = {{"bytes", RS_INT, 0}, {"median_us", RS_DBL, 5}, {"min_us", RS_DBL, 5},
                                  {"line_us", RS_DBL, 5}, {"line_error", RS_DBL, 3}};
    rs_table *t = rs_table_new("pingpong", cols, 5);
    char v[64];
    rs_table_meta_std(t, argc, argv);
    snprintf(v, sizeof v, "%d", p);
    rs_table_meta(t, "p", v);
    snprintf(v, sizeof v, "%.6g", alpha * 1e6);
    rs_table_meta(t, "alpha_us", v);
    /* a path through one switch crosses two node links: a platform's link latency */
    snprintf(v, sizeof v, "%.6g", alpha * 1e6 / 2);
    rs_table_meta(t, "node_lat_us", v);
    snprintf(v, sizeof v, "%.6g", 1e-9 / slope);
    rs_table_meta(t, "link_gbytes_per_s", v);
    snprintf(v, sizeof v, "%ld", opt.fit_from);
    rs_table_meta(t, "fit_from_bytes", v);
    rs_table_meta(t, "method", "median of 5 x --reps half round trips, ranks 0 and P-1; alpha the fastest at "
                  "the smallest size, 1/beta the least-squares slope of the medians from fit_from_bytes");
    for (int i = 0; i < n; i++) {
        int r = rs_table_row(t);
        double line = alpha + sizes[i] * slope;
        rs_set_int(t, r, "bytes", sizes[i]);
        rs_set_dbl(t, r, "median_us", med[i] * 1e6);
        rs_set_dbl(t, r, "min_us", lo[i] * 1e6);
        rs_set_dbl(t, r, "line_us", line * 1e6);
        rs_set_dbl(t, r, "line_error", line / med[i] - 1);
    }
    rs_table_print(t, stdout, NULL);
    printf("alpha %.4g us, beta %.4g GB/s (line through the medians from %ld bytes, %d sizes)\n", alpha * 1e6,
           1e-9 / slope, opt.fit_from, used);
    int rc = (opt.c.csv && rs_table_write_csv(t, opt.c.csv) != 0) || (opt.c.json && rs_table_write_json(t, opt.c.json) != 0);
    if (rc)
        fprintf(stderr, "pingpong-bench: %s\n", rs_lasterr());
    rs_table_free(t);
    return rc ? 2 : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, p, rc = rs_opts_parse(argc, argv, options, NOPTS, usage, NULL, NULL), n = 0;
    long sizes[MAX_SIZES];
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (rc == 0 && (n = parse_sizes(sizes)) <= 0)
        rc = -1;
    if (rc == 0 && (n < 2 || sizes[n - 2] < opt.fit_from)) {
        rs_seterr("--sizes %s: the rate needs two sizes from --fit-from %ld up; widen --sizes or lower --fit-from",
                  opt.sizes, opt.fit_from);
        rc = -1;
    }
    if (rc == 0 && p < 2) {
        rs_seterr("needs two ranks or more (mpirun -np 2)");
        rc = -1;
    }
    if (rc == 0 && me == 0 && rs_common_check_outputs(&opt.c) != 0)
        rc = -1;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rc != 0) {
        if (rc < 0 && me == 0)
            fprintf(stderr, "pingpong-bench: %s (pingpong-bench --help)\n", rs_lasterr());
        MPI_Finalize();
        return rc < 0 ? 2 : 0;
    }
    int peer = me == 0 ? p - 1 : me == p - 1 ? 0 : -1;
    char *buf = calloc(1, (size_t)sizes[n - 1]);
    int have = buf != NULL;
    MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!have) {
        if (me == 0)
            fprintf(stderr, "pingpong-bench: no memory for a %ld-byte message on some rank: lower --sizes' MAX\n",
                    sizes[n - 1]);
        free(buf);
        MPI_Finalize();
        return 2;
    }
    double med[MAX_SIZES], lo[MAX_SIZES];
    long wrong = 0;
    for (int i = 0; i < n; i++) {
        rs_stats st = {0};
        measure(me, peer, buf, sizes[i], &st, &wrong);
        med[i] = st.median, lo[i] = st.min;
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    rc = 0;
    if (wrong)
        fprintf(stderr, "pingpong-bench: %ld messages arrived wrong\n", wrong), rc = 1;
    else if (me == 0)
        rc = report(argc, argv, p, sizes, med, lo, n);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(buf);
    MPI_Finalize();
    return rc;
}
