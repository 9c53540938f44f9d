/* simulate_out.c — a simulate run's files and its summary: the rows typed as a CSV
 * reader types them (rs_table_typed), the metadata that says what was simulated and how
 * (the platform's parameters with their sources, the SMPI settings, the gamma model, the
 * folding, the bound), the CSV and JSON written by common/record.c (atomic, never
 * overwriting), and a table for people on stdout. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cpu.h"
#include "meta.h"
#include "proc.h"
#include "simulate.h"
#include "smpi_launch.h"
#include "study_def.h"
#include "fsio.h"

/* One metadata value, on one line. */
static void meta(rs_table *t, const char *key, const char *value)
{
    char v[8192];
    snprintf(v, sizeof v, "%s", value);
    for (char *c = v; *c; c++)
        if (*c == '\n')
            *c = ' ';
    rs_table_meta(t, key, v);
}

/* The largest platform's parameters ("KEY VALUE  # source" lines) as platform_KEY and
 * platform_KEY_source. */
static void platform_meta(rs_table *t, const sim_opts *o, const char *work)
{
    char path[4300], line[8192], key[512];
    snprintf(path, sizeof path, "%s/plat/p%d.params", work, o->maxp);
    FILE *f = rs_fopen_read(path);
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *k = line + strspn(line, " \t"), *v = k + strcspn(k, " \t");
        if (*v)
            *v++ = 0;
        v += strspn(v, " \t");
        char *rest = v + strcspn(v, " \t");
        if (*rest)
            *rest++ = 0;
        rest += strspn(rest, " \t");
        size_t l = strlen(rest);
        while (l > 0 && (rest[l - 1] == ' ' || rest[l - 1] == '\t'))
            rest[--l] = 0;
        snprintf(key, sizeof key, "platform_%s", k);
        meta(t, key, v);
        if (*rest == '#')
            rest += 1 + strspn(rest + 1, " ");
        if (*rest) {
            snprintf(key, sizeof key, "platform_%s_source", k);
            meta(t, key, rest);
        }
    }
    if (f)
        fclose(f);
}

/* A command's first line of output ("" if none). */
static void first_line(char *const argv[], char *buf, size_t len)
{
    proc_capture(argv, 0, buf, len);
    buf[strcspn(buf, "\n")] = 0;
}

int sim_write(const sim_opts *o, const sim_plan *pl, const char *work, const rs_table *rows,
              long long elapsed_s)
{
    if (!o->csv && !o->json)
        return 0;
    rs_table *t = rs_table_typed(rows, o->experiment ? "caffe" : "simulate");
    char buf[8192], host[256] = "", fold[64];
    meta(t, "command", o->cmdline);
    rs_utc_now(buf, sizeof buf);
    meta(t, "date_utc", buf);
    gethostname(host, sizeof host);
    meta(t, "host", host);
    meta(t, "commit", getenv("RS_COMMIT") && *getenv("RS_COMMIT") ? getenv("RS_COMMIT") : rs_build_commit());
    char *version[] = {(char *)o->smpirun, "-version", NULL};
    first_line(version, buf, sizeof buf);
    meta(t, "simgrid", buf);
    meta(t, "platform", o->platform);
    meta(t, "placement", o->placement);
    meta(t, "seed", o->seed_text);
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < o->nnodes; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d", i ? "," : "", o->nodes[i]);
    meta(t, "nodes", buf);
    platform_meta(t, o, work);
    snprintf(buf, sizeof buf, "network/model:CM02 crosstraffic:0 simulate-computation:no wtime:0 "
             "coll-selector:ompi (mpich, mvapich2, impi for their own built-ins) allreduce:NAME for smpi:NAME "
             "(rdb otherwise; bookkeeping: recursive doubling as rdb, scaling/sim/smpi_hooks.c) "
             "bcast:binomial_tree reduce:binomial async-small-thresh:%lld", o->eager);
    meta(t, "smpi_config", buf);
    snprintf(buf, sizeof buf, "every local reduction charged bytes / (%s GB/s) on the rank's host, project and "
             "built-in algorithms alike (scaling/sim/smpi_hooks.c)", pl->reduce_gbs);
    meta(t, "gamma", buf);
    meta(t, "barrier", "isolated mode: the barrier releases every rank at the same simulated instant "
         "(scaling/sim/smpi_hooks.c)");
    snprintf(buf, sizeof buf, "%s: platform groups (host names PREFIX-gG-nN or RS_SMPI_GROUPS) cut by the library "
             "(allreduce-bench --group-max %d) into equal groups of the largest divisor of gcd(group sizes) up "
             "to %d ranks", o->hier_groups, o->hier_max, o->hier_max);
    meta(t, "hier_groups", buf);
    snprintf(fold, sizeof fold, "%ld", SMPI_FOLD_BYTES);   /* the runs' threshold (smpi_launch.h) */
    snprintf(buf, sizeof buf, "buffers real and checked while 4 x bytes x p <= %lld bytes; above, every buffer >= "
             "%s bytes (SMPI built-ins' temporaries too) is SMPI shared memory: checked = 0, results validated "
             "where buffers are real", o->budget, fold);
    meta(t, "folding", buf);
    snprintf(buf, sizeof buf, "ceil(log2 p) * %s us + 2(p-1)/p * bytes / (%s GB/s)", pl->alpha_us, pl->link_gbs);
    meta(t, "bound", buf);
    snprintf(buf, sizeof buf, "%lld", elapsed_s);
    meta(t, "elapsed_s", buf);
    meta(t, "simulated", "1");
    int rc = 0;
    if (o->csv)
        rc = rs_table_write_csv(t, o->csv);
    if (rc == 0 && o->json)
        rc = rs_table_write_json(t, o->json);
    rs_table_free(t);
    if (rc != 0)
        return -1;
    if (o->csv)
        fprintf(stderr, "simulate: wrote %s\n", o->csv);
    if (o->json)
        fprintf(stderr, "simulate: wrote %s\n", o->json);
    return 0;
}

/* Per (p, size), in the rows' order: the best project algorithm, the best SMPI
 * built-in, the bound, and the better of the two against the bound. */
static void summary_sweep(const rs_table *rows, FILE *f)
{
    int n = rs_table_nrows(rows), nk = 0;
    typedef struct {
        const char *p, *bytes, *bpn, *bsn;
        double bp, bs, bound;
        int has_bp, has_bs, has_bound;
    } key;
    key *k = calloc((size_t)n + 1, sizeof *k);
    RS_ASSERT(k != NULL);
    for (int r = 0; r < n; r++) {
        const char *p50 = sim_cell(rows, r, "p50_us"), *a = sim_cell(rows, r, "algo");
        if (!*p50)
            continue;
        const char *p = sim_cell(rows, r, "p"), *b = sim_cell(rows, r, "bytes");
        int i = 0;
        while (i < nk && !(strcmp(k[i].p, p) == 0 && strcmp(k[i].bytes, b) == 0))
            i++;
        if (i == nk)
            k[nk++] = (key){.p = p, .bytes = b, .bpn = "", .bsn = ""};
        double t = atof(p50);
        if (strcmp(a, "bound") == 0)
            k[i].bound = t, k[i].has_bound = 1;
        else if (strncmp(a, "smpi:", 5) == 0) {
            if (!k[i].has_bs || t < k[i].bs)
                k[i].bs = t, k[i].bsn = a, k[i].has_bs = 1;
        } else if (!k[i].has_bp || t < k[i].bp)
            k[i].bp = t, k[i].bpn = a, k[i].has_bp = 1;
    }
    fprintf(f, "# p50 (us) per node count and size: the best project algorithm, the best SMPI built-in, the bound\n");
    fprintf(f, "%6s %10s  %-13s %11s  %-24s %11s %11s %9s\n", "p", "bytes", "project", "us", "smpi", "us",
            "bound_us", "best/bnd");
    for (int i = 0; i < nk; i++) {
        double best = k[i].has_bp ? k[i].bp : 0;
        if (k[i].has_bs && (best == 0 || k[i].bs < best))
            best = k[i].bs;
        char ratio[32] = "-";
        if (k[i].has_bound && k[i].bound > 0 && best > 0)
            snprintf(ratio, sizeof ratio, "%.3g", best / k[i].bound);
        fprintf(f, "%6d %10d  %-13s %11.5g  %-24s %11.5g %11.5g %9s\n", atoi(k[i].p), atoi(k[i].bytes), k[i].bpn,
                k[i].bp, k[i].bsn, k[i].bs, k[i].bound, ratio);
    }
    free(k);
}

static void summary_caffe(const sim_opts *o, const rs_table *rows, FILE *f)
{
    const char *base = strrchr(o->preset, '/') ? strrchr(o->preset, '/') + 1 : o->preset;
    fprintf(f, "# the Sunway TaihuLight study's experiment: LSTM-512 gradients (%s), %s, %s\n", base, o->platform,
            o->placement);
    fprintf(f, "%8s %16s %16s %14s %18s %14s\n", "nodes", "caffe_style_us", "fused_hier_us", "improvement",
            "caffe_style_cell_us", "improvement");
    int n = rs_table_nrows(rows);
    for (int r = 0; r < n; r++) {
        if (strcmp(sim_cell(rows, r, "algo"), "fused_hier") != 0)
            continue;
        const char *p = sim_cell(rows, r, "p");
        const char *t[3] = {"", "", ""}, *imp[3] = {"", "", ""};
        static const char *const algos[3] = {"caffe_style", "fused_hier", "caffe_style_cell"};
        for (int q = 0; q < n; q++)
            for (int a = 0; a < 3; a++)
                if (strcmp(sim_cell(rows, q, "algo"), algos[a]) == 0 && strcmp(sim_cell(rows, q, "p"), p) == 0)
                    t[a] = sim_cell(rows, q, "time_us"), imp[a] = sim_cell(rows, q, "improvement");
        char i0[32] = "-", i2[32] = "-";
        if (*imp[0])
            snprintf(i0, sizeof i0, "%.3gx", atof(imp[0]));
        if (*imp[2])
            snprintf(i2, sizeof i2, "%.3gx", atof(imp[2]));
        fprintf(f, "%8d %16.6g %16.6g %14s %18.6g %14s\n", atoi(p), atof(t[0]), atof(t[1]), i0, atof(t[2]), i2);
    }
}

void sim_summary(const sim_opts *o, const rs_table *rows, FILE *f)
{
    if (o->experiment)
        summary_caffe(o, rows, f);
    else
        summary_sweep(rows, f);
}
