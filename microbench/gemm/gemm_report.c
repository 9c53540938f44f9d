/* gemm_report.c — what `microbench gemm` derives from its table after the run: the
 * gain of the dispatch correction, the dispatch summary and the targets
 * (gemm_report.h).  Rows are matched by problem (m, n, k, trans, threads). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "gemm_dl.h"
#include "gemm_report.h"

static int col(const rs_table *t, const char *name) { return rs_table_col_index(t, name); }

static int same_problem(const rs_table *t, int r, int q)
{
    const char *keys[] = {"m", "n", "k", "threads"};
    for (int i = 0; i < 4; i++)
        if (rs_cell_int(t, r, col(t, keys[i])) != rs_cell_int(t, q, col(t, keys[i])))
            return 0;
    return strcmp(rs_cell_str(t, r, col(t, "trans")), rs_cell_str(t, q, col(t, "trans"))) == 0;
}

void gemm_report_gains(rs_table *t)
{
    int nb = col(t, "backend"), ng = col(t, "gflops");
    for (int r = 0; r < rs_table_nrows(t); r++) {
        const gemm_backend *d = gemm_find(rs_cell_str(t, r, nb));
        if (!d || !d->pair || !rs_cell_isset(t, r, ng))
            continue;
        for (int q = 0; q < rs_table_nrows(t); q++)
            if (strcmp(rs_cell_str(t, q, nb), d->pair) == 0 && same_problem(t, r, q) &&
                rs_cell_isset(t, q, ng))
                rs_set_dbl(t, q, "gain_vs_default", rs_cell_dbl(t, q, ng) / rs_cell_dbl(t, r, ng));
    }
}

void gemm_report_target(const rs_table *t, const char *what, const char *set, long n, double goal)
{
    int worst_row = -1, shapes = 0;
    double worst = INFINITY;
    int nb = col(t, "backend"), nf = col(t, "frac_of_peak");
    for (int r = 0; r < rs_table_nrows(t); r++) {
        if (rs_cell_int(t, r, col(t, "threads")) != 1 || rs_cell_int(t, r, col(t, "n")) != n ||
            strcmp(rs_cell_str(t, r, col(t, "set")), set) != 0)
            continue;
        int first = 1;   /* each shape once: at its first row */
        for (int q = 0; q < r; q++)
            first &= !same_problem(t, r, q);
        if (!first)
            continue;
        int best = -1;
        for (int q = 0; q < rs_table_nrows(t); q++) {
            const gemm_backend *b = gemm_find(rs_cell_str(t, q, nb));
            if (!same_problem(t, r, q) || !b || b->pair || b == &gemm_backend_naive ||
                !rs_cell_isset(t, q, nf))
                continue;
            if (best < 0 || rs_cell_dbl(t, q, nf) > rs_cell_dbl(t, best, nf))
                best = q;
        }
        if (best < 0)
            continue;
        shapes++;
        if (rs_cell_dbl(t, best, nf) < worst) {
            worst = rs_cell_dbl(t, best, nf);
            worst_row = best;
        }
    }
    if (worst_row < 0)
        return;
    /* The median decides; the fastest sample shows what noise on a shared machine hid. */
    int nmax = col(t, "gflops_max"), npk = col(t, "peak_gflops");
    char best[64] = "";
    if (nmax >= 0 && npk >= 0 && rs_cell_isset(t, worst_row, nmax) && rs_cell_isset(t, worst_row, npk))
        snprintf(best, sizeof best, "; fastest sample %.3f", rs_cell_dbl(t, worst_row, nmax) /
                 rs_cell_dbl(t, worst_row, npk));
    printf("target: %s, 1 thread: %s%s %ldx%ldx%ld:%s %.1f GFLOP/s = %.3f of peak%s (goal >= %.2f: %s)\n",
           what, shapes > 1 ? "worst shape's best backend " : "best backend ", rs_cell_str(t, worst_row, nb),
           (long)rs_cell_int(t, worst_row, col(t, "m")), (long)rs_cell_int(t, worst_row, col(t, "n")),
           (long)rs_cell_int(t, worst_row, col(t, "k")), rs_cell_str(t, worst_row, col(t, "trans")),
           rs_cell_dbl(t, worst_row, col(t, "gflops")), worst, best, goal, worst >= goal ? "met" : "NOT met");
}

void gemm_report_dispatch(rs_table *t)
{
    const char *libs[2] = {"openblas", "blis"};
    for (int i = 0; i < 2; i++) {
        const peak_blas *pb = gemm_blas_probe(libs[i]);
        const char *var = i == 0 ? "OPENBLAS_CORETYPE" : "BLIS_ARCH_TYPE", *user = getenv(var);
        char buf[320], below[64] = "";
        if (pb && pb->below_cpu)
            snprintf(below, sizeof below, ", below this CPU's %s", rs_isa_name(rs_isa_best()));
        if (!pb)
            snprintf(buf, sizeof buf, "not found");
        else if (pb->fix_applied)
            snprintf(buf, sizeof buf, "%s picks %s by itself (%s, below the CPU's %s); fixed with %s -> %s",
                     pb->version, pb->detected, rs_isa_name(pb->detected_isa), rs_isa_name(rs_isa_best()),
                     pb->fix, pb->used);
        else if (strcmp(pb->chosen_by, "environment") == 0)
            snprintf(buf, sizeof buf, "%s picks %s by itself; %s=%s from the environment selects %s "
                     "(%s)%s; respected", pb->version, pb->detected, var, user ? user : "?", pb->used,
                     rs_isa_name(pb->used_isa), below);
        else if (pb->below_cpu)
            snprintf(buf, sizeof buf, "%s picks %s, below the CPU's %s; not fixed (%s)", pb->version,
                     pb->detected, rs_isa_name(rs_isa_best()), pb->fix[0] ? "fix not allowed" : "no fix known");
        else
            snprintf(buf, sizeof buf, "%s picks %s by itself: right for this CPU, no fix needed",
                     pb->version, pb->detected);
        printf("dispatch: %s %s\n", libs[i], buf);
        rs_table_meta(t, libs[i], buf);
    }
}
