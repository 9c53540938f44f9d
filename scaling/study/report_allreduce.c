/* report_allreduce.c — the report's allreduce section (allreduce.csv: allreduce-bench
 * under mpirun at np = 2 and 4): the 1 and 16 MiB rows, then the targets (the best
 * project algorithm within 1.2x of MPI_Allreduce from 1 MiB on; auto, which may choose
 * the library, within 1.05x at every size), the model check, the wrong-element count
 * and the winner per size (auto not among them). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report.h"

/* One (p, bytes) of the float isolated rows, keyed by the cells' text. */
typedef struct {
    const char *p, *bytes, *who;   /* who: the fastest project algorithm */
    int has_lib, has_best, has_auto;
    double lib, best, autot;       /* p50_us */
} ar_size;

static int float_isolated(const rs_table *t, int i)
{
    return strcmp(rp_cell(t, i, "dtype"), "float") == 0 && strcmp(rp_cell(t, i, "mode"), "isolated") == 0;
}

static int table_row(const rs_table *t, int i)
{
    double b = rp_num(rp_cell(t, i, "bytes"));
    return float_isolated(t, i) && strncmp(rp_cell(t, i, "algo"), "library:", 8) != 0 &&
           (b == 1048576 || b == 16777216);
}

static ar_size *size_of(ar_size *s, int *n, const char *p, const char *bytes)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(s[i].p, p) == 0 && strcmp(s[i].bytes, bytes) == 0)
            return &s[i];
    s[*n] = (ar_size){.p = p, .bytes = bytes};
    return &s[(*n)++];
}

/* The winner per size at np = P, as a list of changes: "ring from 2097152 B, ...". */
static void winners(report_ctx *r, const ar_size *s, int n, int p)
{
    char pt[32], bt[32], line[8192] = "";
    const char *prev = "";
    size_t len = 0;
    snprintf(pt, sizeof pt, "%d", p);
    for (long long b = 4; b <= 268435456; b *= 2) {
        snprintf(bt, sizeof bt, "%lld", b);
        for (int i = 0; i < n; i++)
            if (s[i].has_best && strcmp(s[i].p, pt) == 0 && strcmp(s[i].bytes, bt) == 0 &&
                strcmp(s[i].who, prev) != 0) {
                len += (size_t)snprintf(line + len, len < sizeof line ? sizeof line - len : 0, "%s%s from %lld B",
                                        len ? ", " : "", s[i].who, b);
                prev = s[i].who;
            }
    }
    if (len)
        fprintf(r->out, "- winners at np = %d: %s\n", p, line);
}

static void targets(report_ctx *r, const rs_table *t)
{
    int nrows = t ? rs_table_nrows(t) : 0, n = 0, nmod = 0, nout = 0;
    ar_size *s = calloc((size_t)nrows + 1, sizeof *s);
    RS_ASSERT(s != NULL);
    double wrong = 0, inr = 0;
    char out[8192] = "";
    size_t olen = 0;
    for (int i = 0; i < nrows; i++) {
        if (!float_isolated(t, i))
            continue;
        const char *algo = rp_cell(t, i, "algo"), *range = rp_cell(t, i, "in_model_range");
        ar_size *z = size_of(s, &n, rp_cell(t, i, "p"), rp_cell(t, i, "bytes"));
        double us = rp_num(rp_cell(t, i, "p50_us"));
        wrong += rp_num(rp_cell(t, i, "wrong"));
        if (strcmp(algo, "library") == 0) {
            z->has_lib = 1;
            z->lib = us;
        } else if (strcmp(algo, "auto") == 0) {   /* a choice among the others, the library's too */
            z->has_auto = 1;
            z->autot = us;
        } else if (strncmp(algo, "library:", 8) != 0 && (!z->has_best || us < z->best)) {
            z->has_best = 1;
            z->best = us;
            z->who = algo;
        }
        if (*range) {
            inr += rp_num(range);
            nmod++;
            if (rp_num(range) == 0 && ++nout <= 8 && olen < sizeof out)
                olen += (size_t)snprintf(out + olen, sizeof out - olen, "%s %s B at np = %s (%.4g us, range %.4g-%.4g); ",
                                         algo, z->bytes, z->p, us, rp_num(rp_cell(t, i, "model_us")),
                                         rp_num(rp_cell(t, i, "model_hi_us")));
        }
    }
    int npair = 0;
    const ar_size *w = NULL;
    double worst = 0;
    for (int i = 0; i < n; i++)
        if (rp_cmp(s[i].bytes, 1048576) >= 0 && s[i].has_lib && s[i].has_best) {
            double ratio = s[i].best / s[i].lib;
            if (!npair++ || ratio > worst) {
                worst = ratio;
                w = &s[i];
            }
        }
    if (!w)
        fprintf(r->out, "- best project algorithm vs MPI_Allreduce, >= 1 MiB: not measured (no size has both a "
                        "library row and a project algorithm's)\n");
    else
        fprintf(r->out, "- best project algorithm vs MPI_Allreduce, >= 1 MiB, np = 2 and 4: worst ratio %.2f "
                        "(p = %s, %s bytes); target <= 1.2: %s\n", worst, w->p, w->bytes,
                worst <= 1.2 ? "met" : "NOT met");
    int nauto = 0;
    const ar_size *wa = NULL;
    double worst_auto = 0;
    for (int i = 0; i < n; i++)
        if (s[i].has_lib && s[i].has_auto && (!nauto++ || s[i].autot / s[i].lib > worst_auto)) {
            worst_auto = s[i].autot / s[i].lib;
            wa = &s[i];
        }
    if (wa)
        fprintf(r->out, "- auto (per size band, the library unless a project algorithm measures >= 10%% faster) vs "
                        "MPI_Allreduce, every size, np = 2 and 4: worst ratio %.2f (p = %s, %s bytes); target "
                        "<= 1.05: %s\n", worst_auto, wa->p, wa->bytes, worst_auto <= 1.05 ? "met" : "NOT met");
    fprintf(r->out, "- medians within their model range (every algorithm, the library included): %lld of %d rows%s%s%s\n",
            (long long)inr, nmod, nout ? "; outside: " : "", nout ? out : "", nout > 8 ? "..." : "");
    fprintf(r->out, "- wrong elements over all rows: %lld\n", (long long)wrong);
    for (int p = 2; p <= 4; p += 2)
        winners(r, s, n, p);
    free(s);
}

void report_allreduce(report_ctx *r)
{
    if (!rp_has(r, "allreduce.csv"))
        return;
    rs_table *t = rp_csv(r, "allreduce.csv");
    fprintf(r->out, "## allreduce (`allreduce-bench` under mpirun, np = 2 and 4 on this machine)\n\n"
                    "![latency and bus bandwidth against size](figures/allreduce.png)\n\n"
                    "Float sum, isolated timing, 1 MiB and 16 MiB (every size is in allreduce.csv): median time\n"
                    "per algorithm next to the MPI library's MPI_Allreduce, bus bandwidth = algbw x 2(p-1)/p, and the\n"
                    "alpha-beta-gamma model's range (model_us .. model_hi_us) fitted at start:\n\n");
    rp_md_table(r, t, "algo,p,bytes,p50_us,p99_us,busbw_gbytes_per_s,model_us,model_hi_us,in_model_range,wrong",
                table_row);
    fprintf(r->out, "\n### Targets and winners (this run, side by side)\n\n");
    targets(r, t);
    fprintf(r->out, "\n");
    rs_table_free(t);
}
