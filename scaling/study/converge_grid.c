/* converge_grid.c — the convergence grid's arithmetic and its points: the GEMM plan
 * points, the base grid, refinement and widening (converge_study.h).  Each training
 * point is one rnn-train command line in converge_points.txt and one row of
 * converge_grid.csv (point,N,b,optimizer,lr,warmup,eval_every,steps_cap,refines). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "converge_study.h"
#include "json.h"
#include "fsio.h"
#include "points_file.h"

/* The centre learning rate at B = 4 and its ceiling per optimizer: sqrt scaling from
 * there, capped (past B_crit a larger batch no longer allows a larger step); LARS and
 * LAMB at their defaults, which their trust ratio makes batch-independent. */
static const struct {
    const char *name;
    double ref, top, fixed;
} optimizers[] = {
    {"momentum", 1, 4, 0}, {"nesterov", 1, 4, 0}, {"sgd", 10, 40, 0},
    {"adam", 0.002, 0.02, 0}, {"lars", 0, 0, 10}, {"lamb", 0, 0, 0.1},
};
#define NOPT ((int)(sizeof optimizers / sizeof optimizers[0]))

int conv_optimizer_known(const char *name)
{
    for (int i = 0; i < NOPT; i++)
        if (strcmp(optimizers[i].name, name) == 0)
            return 1;
    return 0;
}

typedef struct {
    study_run *r;
    const conv_base *base;
    double ntrain, capx;
    long cape, bptt, eval_streams;
    char model[2048];   /* MODEL's words, one space apart (as a shell splits them) */
} grid;

static void grid_of(study_run *r, const conv_base *b, grid *g)
{
    char copy[2048], *w[256];
    snprintf(copy, sizeof copy, "%s", study_value(r, "MODEL"));
    int n = conv_words(copy, w, 256);
    g->r = r;
    g->base = b;
    g->ntrain = b ? atof(b->ntrain) : 0;
    g->capx = atof(study_value(r, "CAP_X"));
    g->cape = atol(study_value(r, "CAP_EPOCHS"));
    g->eval_streams = atol(study_value(r, "EVAL_STREAMS"));
    g->bptt = 35;   /* rnn-train's default */
    g->model[0] = 0;
    for (int i = 0; i < n; i++) {
        if (i + 1 < n && strcmp(w[i], "--bptt") == 0)
            g->bptt = atol(w[i + 1]);
        snprintf(g->model + strlen(g->model), sizeof g->model - strlen(g->model), "%s%s", i ? " " : "", w[i]);
    }
}

/* Steps the target could take at global batch B, guessed: S_min + E_min / B. */
static double est_steps(long B) { return 60 + 1600.0 / (double)B; }
static long streams_len(const grid *g, long B) { return (long)(g->ntrain / (double)B); }

/* The step cap: CAP_X x the guess, at most CAP_EPOCHS epochs, at least 20. */
static long cap_steps(const grid *g, long B)
{
    long spe = (long)((double)(streams_len(g, B) - 1 + g->bptt - 1) / (double)g->bptt);
    long cap = (long)(g->capx * est_steps(B));
    if (cap > g->cape * spe)
        cap = g->cape * spe;
    return cap < 20 ? 20 : cap;
}

/* The evaluation interval: ~1/20 of the fewest steps the target could take (guessed
 * low), so the first evaluation under the target is within 10% of the crossing. */
static long eval_every(long B)
{
    double least = 1600.0 / (double)B;
    long k = (long)((least < 40 ? 40 : least) / 20);
    return k < 1 ? 1 : k;
}

/* The centre learning rate of opt at B times f, as the grid names it (%.4g). */
static void lr_text(const char *opt, long B, double f, char *buf, size_t len)
{
    double lr = 0;
    for (int i = 0; i < NOPT; i++)
        if (strcmp(optimizers[i].name, opt) == 0) {
            double c = optimizers[i].ref * sqrt((double)B / 4);
            lr = optimizers[i].fixed ? optimizers[i].fixed : c > optimizers[i].top ? optimizers[i].top : c;
        }
    snprintf(buf, len, "%.4g", f * lr);
}

/* EVAL_STREAMS rounded up to a multiple of b (rnn-train's layout). */
static long eval_streams(const grid *g, long b) { return (g->eval_streams + b - 1) / b * b; }

/* K, the workers a group runs as one: the N workers run as N/K groups of K (--workers
 * N/K --batch K b), the same streams and summed gradient in wider, faster GEMMs.  K: the
 * largest divisor of N below N (b_simple needs two groups) whose K b streams divide the
 * valid layout. */
static long group_of(const grid *g, long N, long b)
{
    long es = eval_streams(g, b), K = N > 1 ? N / 2 : N;
    while (K > 1 && (N % K != 0 || es % (K * b) != 0))
        K--;
    return K;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int conv_gemm_points(study_run *r)
{
    grid g;
    grid_of(r, NULL, &g);
    char bl[1024], nl[1024], *bw[256], *nw[256];
    snprintf(bl, sizeof bl, "%s", study_value(r, "B_LIST"));
    snprintf(nl, sizeof nl, "%s", study_value(r, "N_LIST"));
    int nb = conv_words(bl, bw, 256), nn = conv_words(nl, nw, 256), nx = 0, rc = 0;
    long *x = malloc(sizeof *x * (size_t)(nb * nn + 1));
    RS_ASSERT(x != NULL);
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < nn; j++)
            x[nx++] = group_of(&g, atol(nw[j]), atol(bw[i])) * atol(bw[i]);
    qsort(x, (size_t)nx, sizeof *x, cmp_long);
    for (int i = 0; i < nx; i++) {
        char name[64];
        snprintf(name, sizeof name, "gemm-b%ld", x[i]);
        if (i > 0 && x[i] == x[i - 1])
            continue;
        study_argv c = {0};
        sa_add(&c, "rnn-train");
        sa_words(&c, g.model);
        sa_opt(&c, "--threads", "%s", study_value(r, "THREADS"));
        sa_opt(&c, "--seed", "%s", study_value(r, "SEED"));
        sa_opt(&c, "--batch", "%ld", x[i]);
        sa_words(&c, "--bench 1 --json summary.json");
        if (study_add(r, name, 1, "0", &c) != 0)
            rc = -1;
    }
    free(x);
    return rc;
}

/* --gemm's value for the points at batch x: GEMM=plan: the picks gemm-bX recorded. */
static int gemm_of(const grid *g, long x, char *buf, size_t len)
{
    const char *gemm = study_value(g->r, "GEMM");
    if (strcmp(gemm, "plan") == 0)
        return study_gemm_plan(g->r, "", x, buf, len);
    snprintf(buf, len, "%s", gemm);
    return 0;
}

/* Appends the grid row of a point just added. */
static int grid_row(const study_run *r, const char *name, const char *row)
{
    char path[2600];
    snprintf(path, sizeof path, "%s/converge_grid.csv", r->dir);
    FILE *f = fopen(path, "a");
    RS_CHECK(f, "cannot write %s", path);
    fprintf(f, "%s,%s\n", name, row);
    RS_CHECK(fclose(f) == 0, "cannot write %s", path);
    return 0;
}

/* One training point of the grid: N workers of b streams, opt at lr (text, as named),
 * wu warmup steps.  0, 1 its GEMM plan point failed, -1 a file. */
static int lr_point(const grid *g, const char *Nt, const char *bt, const char *opt, const char *lr, const char *wu)
{
    study_run *r = g->r;
    long N = atol(Nt), b = atol(bt), B = N * b, len = streams_len(g, B);
    char name[512], row[1024];
    snprintf(name, sizeof name, "b%s-n%s-%s-lr%s-w%s", bt, Nt, opt, lr, wu);
    int before = r->added;
    if (len < g->bptt) {
        snprintf(row, sizeof row, "%s,%s,%s,%s,%s,,,", Nt, bt, opt, lr, wu);
        study_argv why = {0};
        sa_add(&why, "infeasible: %s train tokens as %ld streams of %ld tokens, shorter than bptt %ld",
               g->base->ntrain, B, len, g->bptt);
        if (study_add(r, name, 0, "x", &why) != 0)
            return -1;
        return r->added > before ? grid_row(r, name, row) : 0;
    }
    long ev = eval_every(B), cap = cap_steps(g, B), K = group_of(g, N, b);
    double est = est_steps(B);
    char gemm[8192];
    if (gemm_of(g, K * b, gemm, sizeof gemm) != 0)
        return 1;
    snprintf(row, sizeof row, "%s,%s,%s,%s,%s,%ld,%ld,", Nt, bt, opt, lr, wu, ev, cap);
    study_argv c = {0};
    sa_add(&c, "rnn-train");
    sa_words(&c, g->model);
    sa_opt(&c, "--gemm", "%s", gemm);
    sa_opt(&c, "--threads", "%s", study_value(r, "THREADS"));
    sa_opt(&c, "--seed", "%s", study_value(r, "SEED"));
    sa_words(&c, "--schedule const");
    sa_opt(&c, "--eval-streams", "%ld", eval_streams(g, b));
    sa_opt(&c, "--batch", "%ld", K * b);
    sa_opt(&c, "--workers", "%ld", N / K);
    sa_opt(&c, "--optimizer", "%s", opt);
    sa_opt(&c, "--lr", "%s", lr);
    sa_opt(&c, "--warmup", "%s", wu);
    sa_opt(&c, "--target-ppl", "%s", g->base->target);
    sa_opt(&c, "--eval-every", "%ld", ev);
    sa_opt(&c, "--steps", "%ld", cap);
    sa_words(&c, "--checkpoint ckpt");
    sa_opt(&c, "--checkpoint-every", "%ld", study_ckpt_every(cap));
    sa_words(&c, "--resume-if-any --log log.csv --csv summary.csv --json summary.json");
    if (study_add(r, name, nearbyint((est < (double)cap ? est : (double)cap) * (double)B * (double)g->bptt), "0,1",
                  &c) != 0)
        return -1;
    return r->added > before ? grid_row(r, name, row) : 0;
}

/* word is one of the space-separated list's words. */
static int listed_in(const char *list, const char *word)
{
    char copy[1024], *w[256];
    snprintf(copy, sizeof copy, "%s", list);
    int n = conv_words(copy, w, 256);
    for (int i = 0; i < n; i++)
        if (strcmp(w[i], word) == 0)
            return 1;
    return 0;
}

int conv_base_grid(study_run *r, const conv_base *base)
{
    grid g;
    grid_of(r, base, &g);
    char bl[1024], nl[1024], fl[1024], ol[1024], *bw[256], *nw[256], *fw[256], *ow[257];
    snprintf(bl, sizeof bl, "%s", study_value(r, "B_LIST"));
    snprintf(nl, sizeof nl, "%s", study_value(r, "N_LIST"));
    snprintf(fl, sizeof fl, "%s", study_value(r, "LR_FACTORS"));
    snprintf(ol, sizeof ol, "%s", study_value(r, "OPT_LIST"));
    int nb = conv_words(bl, bw, 256), nn = conv_words(nl, nw, 256), nf = conv_words(fl, fw, 256);
    ow[0] = "momentum";
    int no = 1 + conv_words(ol, ow + 1, 256);
    const char *wus[2] = {"0", study_value(r, "WARMUP")};
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < nn; j++) {
            long B = atol(nw[j]) * atol(bw[i]);
            int opts = listed_in(study_value(r, "OPT_N"), nw[j]) ? no : 1;
            int nwu = listed_in(study_value(r, "WARMUP_N"), nw[j]) ? 2 : 1;
            for (int o = 0; o < opts; o++)
                for (int k = 0; k < nf; k++)
                    for (int w = 0; w < nwu; w++) {
                        char lr[64];
                        lr_text(ow[o], B, atof(fw[k]), lr, sizeof lr);
                        int rc = lr_point(&g, nw[j], bw[i], ow[o], lr, wus[w]);
                        if (rc != 0)
                            return rc;
                    }
        }
    return 0;
}

/* cmd with the value after FLAG replaced. */
static void set_flag(study_argv *cmd, const char *flag, const char *value)
{
    for (int k = 0; k + 1 < cmd->n; k++)
        if (strcmp(cmd->v[k], flag) == 0) {
            free(cmd->v[k + 1]);
            cmd->v[k + 1] = strdup(value);
            RS_ASSERT(cmd->v[k + 1] != NULL);
            return;
        }
}

int conv_refine(study_run *r, const conv_rows *rows)
{
    pf_points pts;
    if (pf_read(r->points, &pts) != 0)
        return -1;
    for (int i = 0; i < rows->n; i++) {
        char (*x)[512] = rows->row[i].f;
        size_t l = strlen(x[CR_POINT]);
        if (!x[CR_STEPS][0] || strcmp(x[CR_RES], "0") != 0 || (l > 5 && strcmp(x[CR_POINT] + l - 5, "-fine") == 0))
            continue;
        const pf_point *p = pf_find(&pts, x[CR_POINT]);
        if (!p || !p->argv.n)
            continue;
        long s = atol(x[CR_STEPS]), ev = s / 20 >= 1 ? s / 20 : 1;
        char evt[32], name[600], row[2048];
        snprintf(evt, sizeof evt, "%ld", ev);
        study_argv cmd = {0};
        sa_cat(&cmd, &p->argv);
        set_flag(&cmd, "--eval-every", evt);
        set_flag(&cmd, "--steps", x[CR_STEPS]);
        snprintf(name, sizeof name, "%s-fine", x[CR_POINT]);
        snprintf(row, sizeof row, "%s,%s,%s,%s,%s,%ld,%s,%s", x[CR_N], x[CR_B], x[CR_OPT], x[CR_LR], x[CR_WU], ev,
                 x[CR_STEPS], x[CR_POINT]);
        int before = r->added;
        if (study_add(r, name, p->weight, "0,1", &cmd) != 0 ||
            (r->added > before && grid_row(r, name, row) != 0)) {
            pf_free(&pts);
            return -1;
        }
    }
    pf_free(&pts);
    return 0;
}

/* A learning rate as the grid names it: awk's print of x (%.6g), then %.4g. */
static void widened(double x, char *buf, size_t len)
{
    char p[64];
    if (x == floor(x) && fabs(x) < 1e15)
        snprintf(p, sizeof p, "%.0f", x);
    else
        snprintf(p, sizeof p, "%.6g", x);
    snprintf(buf, len, "%.4g", atof(p));
}

int conv_widen(study_run *r, const conv_base *base, const conv_rows *rows, int *listed)
{
    grid g;
    grid_of(r, base, &g);
    *listed = 0;
    for (int i = 0; i < rows->n; i++) {
        char (*x)[512] = rows->row[i].f;
        int first = 1, any = 0;
        double lo = 0, hi = 0, best = 0, blr = 0;
        for (int j = 0; j < rows->n && first; j++) {   /* each key once, where it first shows */
            char (*y)[512] = rows->row[j].f;
            int same = !strcmp(x[CR_N], y[CR_N]) && !strcmp(x[CR_B], y[CR_B]) && !strcmp(x[CR_OPT], y[CR_OPT]) &&
                       !strcmp(x[CR_WU], y[CR_WU]);
            if (same && j < i)
                first = 0;
        }
        for (int j = i; j < rows->n && first; j++) {
            char (*y)[512] = rows->row[j].f;
            if (strcmp(x[CR_N], y[CR_N]) || strcmp(x[CR_B], y[CR_B]) || strcmp(x[CR_OPT], y[CR_OPT]) ||
                strcmp(x[CR_WU], y[CR_WU]))
                continue;
            double lr = atof(y[CR_LR]);
            lo = j == i || lr < lo ? lr : lo;
            hi = j == i || lr > hi ? lr : hi;
            if (y[CR_STEPS][0] && (!any || atof(y[CR_STEPS]) < best)) {
                best = atof(y[CR_STEPS]);
                blr = lr;
                any = 1;
            }
        }
        if (!first || !any)
            continue;
        double next[2] = {hi * 2, lo / 2};
        int edge[2] = {blr == hi, blr == lo};
        for (int e = 0; e < 2; e++)
            if (edge[e]) {
                char lr[64];
                widened(next[e], lr, sizeof lr);
                int rc = lr_point(&g, x[CR_N], x[CR_B], x[CR_OPT], lr, x[CR_WU]);
                if (rc != 0)
                    return rc;
                ++*listed;
            }
    }
    return 0;
}
