/* compose_tables.c — the composition study's tables from its facts (compose_facts.c):
 *   scaling_weak.csv             per-node batch b fixed (the study's B_LIST)
 *   scaling_strong.csv           global batch STRONG_B fixed, b = STRONG_B / N where integral
 *   scaling_time_to_target.csv   steps-to-target x T(N): the convergence study's best point
 *                                per (N, b), and the regime study's best rate per (target,
 *                                optimizer, N) where the folder has it
 *   scaling_regime_time.csv      the regime study's time to target per (target, optimizer) on
 *                                N nodes of the compose grid, at the global batch of its
 *                                counts that reaches the target first there (b = B / N a
 *                                node, a batch whose compute was measured)
 *   scaling_compose_check.csv    the composed step against study train-sim's simulated one
 * T(N) = compute(b) + optimizer + exchange(N) + evaluation / eval_every (0 when async),
 * for the exchange schemes (the algorithm in column algo): fused-library (one allreduce
 * of the flat gradient as Open MPI would choose it: SMPI's ompi selector), fused-mpich
 * (MPICH's selector), fused-best (the fastest SMPI built-in at that N and size),
 * fused-rdb (recursive doubling: train-sim's `library`), fused-hier (the faster of hier's
 * default groups and groups of 16) and per-tensor (Open MPI's choice, one allreduce per
 * tensor per unrolled step), and (but the check) for two nodes: `core`, this machine's core as measured, and `gflops`, a node
 * of NODE_GFLOPS: compute = the step's flops / NODE_GFLOPS, optimizer = its memory
 * traffic at the platform's gamma rate (as train-sim charges it), evaluation scaled by
 * this core's GFLOP/s over NODE_GFLOPS.  A part that a missing point would give leaves
 * its row out (counted on stderr).  Numbers are written with 6 significant digits.
 * efficiency_lo/_hi, on fused-library rows at the largest N: the efficiency's range with
 * that exchange simulated on the platform with its bandwidths or latencies x2 and /2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "compose_study.h"

static const char *const schemes[] = {"fused-library", "fused-mpich", "fused-best", "fused-rdb", "fused-hier",
                                      "per-tensor"};
enum { FUSED_LIBRARY, FUSED_MPICH, FUSED_BEST, FUSED_RDB, FUSED_HIER, PER_TENSOR, NSCHEMES };

typedef struct {
    const compose_facts *f;
    const char *G_text;          /* NODE_GFLOPS as the settings say it */
    double G, gamma, every;
    int async;
    const compose_batch *b0;     /* the study's first per-node batch */
    double momentum_ms;          /* momentum on this core: its fastest time at b0 */
    double pc, po, px, pe;       /* the parts of the last step() */
    char algo[32];               /* the last exchange's algorithm */
    long max_b;                  /* COMPUTE_MAX_B */
    int missing;                 /* rows left out */
} composer;

static const compose_batch *batch_of(const compose_facts *f, double b)
{
    for (int i = 0; i < f->nbatch; i++)
        if (f->batch[i].batch == b)
            return &f->batch[i];
    return NULL;
}

/* Each part in ms, NAN where the point it needs is missing.  A batch past COMPUTE_MAX_B
 * was measured as groups of a divisor (compose_measured_batch): their times add up. */
static double compute_ms(const composer *c, int core, double b, double g)
{
    const compose_batch *x = batch_of(c->f, b);
    double groups = 1;
    if (!x) {
        double m = (double)compose_measured_batch((long)b, c->max_b);
        x = batch_of(c->f, m);
        groups = b / m;
    }
    return !x ? NAN : groups * (core ? x->ms_min : x->gflop / g * 1e3);
}

/* Adam and LAMB keep two state vectors, SGD none, the others one (models/optim.c). */
static int nstate(const char *o)
{
    return strcmp(o, "adam") == 0 || strcmp(o, "lamb") == 0 ? 2 : strcmp(o, "sgd") == 0 ? 0 : 1;
}

/* train-sim charges 4 + 2 x states float passes over the parameters at the gamma rate */
static double optimizer_ms(const composer *c, int core, const char *o)
{
    if (!core)
        return 4.0 * c->f->params * (4 + 2 * nstate(o)) / (c->gamma * 1e9) * 1e3;
    for (int i = 0; i < c->f->nopt; i++)
        if (strcmp(c->f->opt[i].name, o) == 0)
            return c->f->opt[i].ms;
    return strcmp(o, "momentum") == 0 ? c->momentum_ms : NAN;
}

static double eval_ms(const composer *c, int core, double ev)
{
    if (c->async || !c->f->have_eval)
        return 0;
    return (core ? c->f->eval_ms : c->f->eval_ms * c->b0->gflops_max / c->G) / ev;
}

/* study simulate's time of one allreduce (the last row read), ms */
static double simulated_ms(const composer *c, const char *algo, double N, double bytes)
{
    for (int i = c->f->nx - 1; i >= 0; i--)
        if (c->f->x[i].p == N && c->f->x[i].bytes == bytes && strcmp(c->f->x[i].algo, algo) == 0)
            return c->f->x[i].us / 1e3;
    return NAN;
}

/* The fastest simulated algorithm at (N, bytes) whose name starts with prefix. */
static double fastest_ms(composer *c, const char *prefix, double N, double bytes)
{
    double best = NAN;
    for (int i = 0; i < c->f->nx; i++) {
        const compose_exchange *x = &c->f->x[i];
        if (x->p == N && x->bytes == bytes && strncmp(x->algo, prefix, strlen(prefix)) == 0 &&
            !strchr(x->algo, '@') && !(x->us / 1e3 >= best)) {   /* not the band's platforms */
            best = x->us / 1e3;
            snprintf(c->algo, sizeof c->algo, "%s", x->algo);
        }
    }
    return best;
}

/* hier: the simulated trainer's exchange at N (check-nN-hier) where the benchmark's hier
 * with the same groups is more than 5% off it (the trainer's is then the measure); else
 * the fastest benchmarked groups. */
static double hier_ms(composer *c, double N)
{
    double bench = simulated_ms(c, "hier", N, c->f->params * 4), best = fastest_ms(c, "hier", N, c->f->params * 4);
    for (int j = 0; j < c->f->ncheck; j++) {
        const compose_check *k = &c->f->check[j];
        if (k->nodes == N && strcmp(k->allreduce, "hier") == 0 && fabs(bench / k->exchange_ms - 1) > 0.05) {
            snprintf(c->algo, sizeof c->algo, "hier (train-sim)");
            return k->exchange_ms;
        }
    }
    return best;
}

static double exchange_ms(composer *c, int scheme, double N)
{
    static const char *const algo[] = {"smpi:ompi", "smpi:mpich", NULL, "smpi:rdb", NULL, "smpi:ompi"};
    c->algo[0] = 0;
    if (N == 1)
        return 0;
    if (scheme == FUSED_HIER)
        return hier_ms(c, N);
    if (scheme == FUSED_BEST)
        return fastest_ms(c, "smpi:", N, c->f->params * 4);
    snprintf(c->algo, sizeof c->algo, "%s", algo[scheme]);
    if (scheme != PER_TENSOR)
        return simulated_ms(c, algo[scheme], N, c->f->params * 4);
    double sum = 0;
    for (int i = 0; i < c->f->ntensor; i++)
        sum += simulated_ms(c, algo[scheme], N, c->f->tensor[i]);   /* NAN if one is missing */
    return c->f->bptt * sum;
}

/* The platform's band (compose_plan.c): the step of the last step() with its fused
 * library exchange simulated on the platform with bandwidths and latencies x2 and /2
 * instead, lo and hi of the efficiency that step gives (eff(step)); 0 where a variant is
 * missing (only the largest N has them). */
static int band(const composer *c, double N, double (*eff)(const void *, double), const void *ctx, double *lo,
                double *hi)
{
    static const char *const v[] = {"smpi:ompi@bw2", "smpi:ompi@bwhalf", "smpi:ompi@lat2", "smpi:ompi@lathalf"};
    double base = c->pc + c->po + c->pe;
    *lo = INFINITY, *hi = -INFINITY;
    for (int i = 0; i < 4; i++) {
        double x = simulated_ms(c, v[i], N, c->f->params * 4), e = eff(ctx, base + x);
        if (isnan(x))
            return 0;
        *lo = e < *lo ? e : *lo;
        *hi = e > *hi ? e : *hi;
    }
    return 1;
}

/* The step (ms) and its parts, or NAN (counted) when a part is missing. */
static double step(composer *c, int core, double b, const char *o, int scheme, double N, double ev)
{
    c->pc = compute_ms(c, core, b, c->G);
    c->po = optimizer_ms(c, core, o);
    c->px = exchange_ms(c, scheme, N);
    c->pe = eval_ms(c, core, ev);
    if (isnan(c->pc) || isnan(c->po) || isnan(c->px)) {
        c->missing++;
        return NAN;
    }
    return c->pc + c->po + c->px + c->pe;
}

/* A number as awk writes one: whole within an int, else 6 significant digits. */
static void awk_number(double v, char *buf, size_t len)
{
    if (v == (double)(long)v && fabs(v) <= 2147483647.0)
        snprintf(buf, len, "%ld", (long)v);
    else
        snprintf(buf, len, "%.6g", v);
}

static const rs_col step_cols[] = {
    {"node", RS_STR, 0}, {"node_gflops", RS_STR, 0}, {"b", RS_STR, 0}, {"nodes", RS_INT, 0},
    {"global_batch", RS_INT, 0}, {"scheme", RS_STR, 0}, {"algo", RS_STR, 0}, {"compute_ms", RS_DBL, 6},
    {"optimizer_ms", RS_DBL, 6}, {"exchange_ms", RS_DBL, 6}, {"eval_ms", RS_DBL, 6}, {"step_ms", RS_DBL, 6},
    {"compute_ms_min", RS_STR, 0}, {"compute_ms_max", RS_STR, 0}, {"tokens_per_s", RS_DBL, 6},
    {"speedup", RS_DBL, 6}, {"efficiency", RS_DBL, 6}, {"efficiency_lo", RS_DBL, 6}, {"efficiency_hi", RS_DBL, 6}};

/* One row of the weak or strong table, up to tokens/s: its index. */
static int step_row(rs_table *t, const composer *c, int core, const char *b, double N, double bv, int scheme,
                    double st, double tok)
{
    int row = rs_table_row(t);
    char buf[64];
    rs_set_str(t, row, "node", core ? "core" : "gflops");
    if (!core)
        rs_set_str(t, row, "node_gflops", c->G_text);
    rs_set_str(t, row, "b", b);
    rs_set_int(t, row, "nodes", (long long)N);
    rs_set_int(t, row, "global_batch", (long long)(N * bv));
    rs_set_str(t, row, "scheme", schemes[scheme]);
    if (c->algo[0])
        rs_set_str(t, row, "algo", c->algo);
    rs_set_dbl(t, row, "compute_ms", c->pc);
    rs_set_dbl(t, row, "optimizer_ms", c->po);
    rs_set_dbl(t, row, "exchange_ms", c->px);
    rs_set_dbl(t, row, "eval_ms", c->pe);
    rs_set_dbl(t, row, "step_ms", st);
    if (core) {
        double m = (double)compose_measured_batch((long)bv, c->max_b), groups = batch_of(c->f, bv) ? 1 : bv / m;
        const compose_batch *x = batch_of(c->f, groups == 1 ? bv : m);
        awk_number(groups * x->ms_min, buf, sizeof buf);
        rs_set_str(t, row, "compute_ms_min", buf);
        awk_number(groups * x->ms_max, buf, sizeof buf);
        rs_set_str(t, row, "compute_ms_max", buf);
    }
    rs_set_dbl(t, row, "tokens_per_s", tok);
    return row;
}

typedef struct {
    composer c;
    double N[256];               /* N_LIST */
    int nN;
    char b_text[64][32];         /* B_LIST, as written */
    int nb;
    double strong_b;
} grid;

/* The efficiency of a step of st ms: weak scaling's (tokens/s over N = 1's, per node)
 * and strong scaling's (N = 1's step over N steps). */
typedef struct {
    double N, b, bptt, base;     /* base: N = 1's tokens/s (weak) or step ms (strong) */
} eff_ctx;
static double weak_eff(const void *ctx, double st)
{
    const eff_ctx *e = ctx;
    return e->N * e->b * e->bptt / st * 1e3 / e->base / e->N;
}
static double strong_eff(const void *ctx, double st)
{
    const eff_ctx *e = ctx;
    return e->base / st / e->N;
}

/* A fused-library row's band, where the platform's variants were simulated. */
static void set_band(rs_table *t, int row, const composer *c, int scheme, double (*eff)(const void *, double),
                     const eff_ctx *e)
{
    double lo, hi;
    if (scheme == FUSED_LIBRARY && band(c, e->N, eff, e, &lo, &hi)) {
        rs_set_dbl(t, row, "efficiency_lo", lo);
        rs_set_dbl(t, row, "efficiency_hi", hi);
    }
}

/* Per-node batch b fixed: speedup and efficiency in tokens/s against N = 1 (none in
 * rows before N = 1's). */
static void weak(grid *g, rs_table *t, int core, int bi, int scheme)
{
    composer *c = &g->c;
    double b = strtod(g->b_text[bi], NULL), tok1 = 0;
    for (int i = 0; i < g->nN; i++) {
        double N = g->N[i], st = step(c, core, b, "momentum", scheme, N, c->every);
        if (isnan(st))
            continue;
        double tok = N * b * c->f->bptt / st * 1e3;
        if (N == 1)
            tok1 = tok;
        int row = step_row(t, c, core, g->b_text[bi], N, b, scheme, st, tok);
        if (tok1 != 0) {
            rs_set_dbl(t, row, "speedup", tok / tok1);
            rs_set_dbl(t, row, "efficiency", tok / tok1 / N);
            set_band(t, row, c, scheme, weak_eff, &(eff_ctx){N, b, c->f->bptt, tok1});
        }
    }
}

/* Global batch fixed: speedup and efficiency in step time against N = 1. */
static void strong(grid *g, rs_table *t, int core, int scheme)
{
    composer *c = &g->c;
    double st1 = 0;
    for (int i = 0; i < g->nN; i++) {
        double N = g->N[i];
        if (N <= 0 || fmod(g->strong_b, N) != 0)
            continue;
        double b = g->strong_b / N, st = step(c, core, b, "momentum", scheme, N, c->every);
        if (isnan(st))
            continue;
        if (N == 1)
            st1 = st;
        char bt[64];
        awk_number(b, bt, sizeof bt);
        int row = step_row(t, c, core, bt, N, b, scheme, st, g->strong_b * c->f->bptt / st * 1e3);
        if (st1 != 0) {
            rs_set_dbl(t, row, "speedup", st1 / st);
            rs_set_dbl(t, row, "efficiency", st1 / st / N);
            set_band(t, row, c, scheme, strong_eff, &(eff_ctx){N, b, c->f->bptt, st1});
        }
    }
}

static const rs_col target_cols[] = {
    {"node", RS_STR, 0}, {"node_gflops", RS_STR, 0}, {"study", RS_STR, 0}, {"target", RS_STR, 0},
    {"b", RS_STR, 0}, {"nodes", RS_INT, 0},
    {"global_batch", RS_INT, 0}, {"scheme", RS_STR, 0}, {"algo", RS_STR, 0}, {"optimizer", RS_STR, 0},
    {"steps_to_target", RS_INT, 0}, {"eval_every", RS_INT, 0}, {"step_ms", RS_DBL, 6},
    {"time_to_target_s", RS_DBL, 6}, {"speedup", RS_DBL, 6}, {"fastest", RS_INT, 0}};

/* Rows of the same series: the convergence study's of one b; the regime study's of one
 * target and optimizer. */
static int same_series(const compose_conv_point *x, const compose_conv_point *y)
{
    return x->b == y->b && strcmp(x->target, y->target) == 0 &&
           (!x->target[0] || strcmp(x->optimizer, y->optimizer) == 0);
}

/* One row per study point; the speedup against the N = 1 point of the same series, and
 * the fastest N flagged, per (node, series, scheme).  Evaluation as in the other tables: the
 * study's own interval (~1/20 of the steps, to resolve the crossing) is not what a run
 * to a known target needs. */
static void time_to_target(grid *g, rs_table *t, int core, int scheme)
{
    composer *c = &g->c;
    const compose_facts *f = c->f;
    int first = rs_table_nrows(t), *point = calloc((size_t)f->nconv + 1, sizeof *point);
    double *secs = calloc((size_t)f->nconv + 1, sizeof *secs);
    RS_ASSERT(point && secs);
    for (int j = 0; j < f->nconv; j++) {
        const compose_conv_point *v = &f->conv[j];
        double st = step(c, core, v->b, v->cost_opt[0] ? v->cost_opt : v->optimizer, scheme, v->nodes, c->every);
        if (isnan(st))
            continue;
        int row = rs_table_row(t);
        point[row - first] = j;
        secs[row - first] = v->steps * st / 1e3;
        rs_set_str(t, row, "node", core ? "core" : "gflops");
        if (!core)
            rs_set_str(t, row, "node_gflops", c->G_text);
        rs_set_str(t, row, "study", v->target[0] ? "regime" : "converge");
        if (v->target[0])
            rs_set_str(t, row, "target", v->target);
        rs_set_str(t, row, "b", v->b_text);
        rs_set_int(t, row, "nodes", (long long)v->nodes);
        rs_set_int(t, row, "global_batch", (long long)(v->nodes * v->b));
        rs_set_str(t, row, "scheme", schemes[scheme]);
        if (c->algo[0])
            rs_set_str(t, row, "algo", c->algo);
        rs_set_str(t, row, "optimizer", v->optimizer);
        rs_set_int(t, row, "steps_to_target", (long long)v->steps);
        rs_set_int(t, row, "eval_every", (long long)c->every);
        rs_set_dbl(t, row, "step_ms", st);
        rs_set_dbl(t, row, "time_to_target_s", secs[row - first]);
    }
    int n = rs_table_nrows(t) - first;
    for (int i = 0; i < n; i++) {
        double one = NAN, best = secs[i];
        for (int k = 0; k < n; k++)
            if (same_series(&f->conv[point[k]], &f->conv[point[i]])) {
                if (f->conv[point[k]].nodes == 1)
                    one = secs[k];
                best = secs[k] < best ? secs[k] : best;
            }
        if (!isnan(one))
            rs_set_dbl(t, first + i, "speedup", one / secs[i]);
        rs_set_int(t, first + i, "fastest", secs[i] == best);
    }
    free(point);
    free(secs);
}

static const rs_col regime_cols[] = {
    {"node", RS_STR, 0}, {"node_gflops", RS_STR, 0}, {"scheme", RS_STR, 0}, {"target", RS_STR, 0},
    {"optimizer", RS_STR, 0}, {"nodes", RS_INT, 0}, {"global_batch", RS_INT, 0}, {"b", RS_DBL, 6},
    {"steps_to_target", RS_INT, 0}, {"step_ms", RS_DBL, 6}, {"time_to_target_s", RS_DBL, 6},
    {"speedup", RS_DBL, 6}, {"efficiency", RS_DBL, 6}};

/* The regime study's rows at every N of the grid: of its counts of (target, optimizer),
 * S(B) at each B it measured, the B whose S(B) x T(N, b = B / N) is least (b whole, its
 * compute measured; the update the optimizer that did best there pays). */
static void regime_time(grid *g, rs_table *t, int core, int scheme)
{
    composer *c = &g->c;
    const compose_facts *f = c->f;
    for (int j = 0; j < f->nconv; j++) {
        const compose_conv_point *s = &f->conv[j];
        int first = 1;   /* the series' first point, once */
        for (int k = 0; k < j; k++)
            first &= !(f->conv[k].target[0] && strcmp(f->conv[k].target, s->target) == 0 &&
                       strcmp(f->conv[k].optimizer, s->optimizer) == 0);
        if (!s->target[0] || !first)
            continue;
        double one = NAN;
        for (int i = 0; i < g->nN; i++) {
            double N = g->N[i], best = INFINITY, bst = NAN;
            const compose_conv_point *at = NULL;
            int missing = c->missing;
            for (int k = 0; k < f->nconv; k++) {
                const compose_conv_point *v = &f->conv[k];
                double B = v->nodes * v->b, b = B / N;
                if (strcmp(v->target, s->target) || strcmp(v->optimizer, s->optimizer) || b < 1 || b != floor(b))
                    continue;
                double st = step(c, core, b, v->cost_opt, scheme, N, c->every);
                if (v->steps * st < best)
                    best = v->steps * st, bst = st, at = v;
            }
            c->missing = missing;   /* a B whose b was not measured is not a row left out */
            if (!at)
                continue;
            one = N == 1 ? best : one;
            int row = rs_table_row(t);
            rs_set_str(t, row, "node", core ? "core" : "gflops");
            rs_set_str(t, row, "node_gflops", core ? "" : c->G_text);
            rs_set_str(t, row, "scheme", schemes[scheme]);
            rs_set_str(t, row, "target", s->target);
            rs_set_str(t, row, "optimizer", s->optimizer);
            rs_set_int(t, row, "nodes", (long long)N);
            rs_set_int(t, row, "global_batch", (long long)(at->nodes * at->b));
            rs_set_dbl(t, row, "b", at->nodes * at->b / N);
            rs_set_int(t, row, "steps_to_target", (long long)at->steps);
            rs_set_dbl(t, row, "step_ms", bst);
            rs_set_dbl(t, row, "time_to_target_s", best / 1e3);
            if (!isnan(one)) {
                rs_set_dbl(t, row, "speedup", one / best);
                rs_set_dbl(t, row, "efficiency", one / best / N);
            }
        }
    }
}

static const rs_col check_cols[] = {
    {"nodes", RS_INT, 0}, {"scheme", RS_STR, 0}, {"node_gflops", RS_STR, 0}, {"b", RS_STR, 0},
    {"composed_step_ms", RS_DBL, 6}, {"simulated_step_ms", RS_DBL, 6}, {"rel_diff", RS_DBL, 6},
    {"composed_compute_ms", RS_DBL, 6}, {"simulated_compute_ms", RS_DBL, 6},
    {"composed_exchange_ms", RS_DBL, 6}, {"simulated_exchange_ms", RS_DBL, 6},
    {"composed_optimizer_ms", RS_DBL, 6}, {"simulated_optimizer_ms", RS_DBL, 6}, {"within_10pct", RS_INT, 0}};

/* The composed step (a node of train-sim's speed, b0) against train-sim's. */
static void check(grid *g, rs_table *t, const char *b0)
{
    composer *c = &g->c;
    for (int j = 0; j < c->f->ncheck; j++) {
        const compose_check *k = &c->f->check[j];
        /* train-sim's algorithms exactly: its library is rdb, its hier the default groups */
        int hier = strcmp(k->allreduce, "hier") == 0, scheme = hier ? FUSED_HIER : FUSED_RDB;
        const char *gt = strncmp(k->compute, "flops:", 6) == 0 ? k->compute + 6 : k->compute;
        double pc = compute_ms(c, 0, c->b0->batch, strtod(gt, NULL)), po = optimizer_ms(c, 0, "momentum"),
               px = hier ? simulated_ms(c, "hier", k->nodes, c->f->params * 4) : exchange_ms(c, scheme, k->nodes);
        if (isnan(px)) {
            c->missing++;
            continue;
        }
        double st = pc + po + px, d = st / k->step_ms - 1;
        int row = rs_table_row(t);
        rs_set_int(t, row, "nodes", (long long)k->nodes);
        rs_set_str(t, row, "scheme", schemes[scheme]);
        rs_set_str(t, row, "node_gflops", gt);
        rs_set_str(t, row, "b", b0);
        rs_set_dbl(t, row, "composed_step_ms", st);
        rs_set_dbl(t, row, "simulated_step_ms", k->step_ms);
        rs_set_dbl(t, row, "rel_diff", d);
        rs_set_dbl(t, row, "composed_compute_ms", pc);
        rs_set_dbl(t, row, "simulated_compute_ms", k->compute_ms);
        rs_set_dbl(t, row, "composed_exchange_ms", px);
        rs_set_dbl(t, row, "simulated_exchange_ms", k->exchange_ms);
        rs_set_dbl(t, row, "composed_optimizer_ms", po);
        rs_set_dbl(t, row, "simulated_optimizer_ms", k->optimizer_ms);
        rs_set_int(t, row, "within_10pct", d < 0.1 && d > -0.1);
    }
}

/* The grid and the composer from the settings and the facts: 0, or -1 (rs_lasterr). */
static int setup(const study_run *r, const compose_facts *f, grid *g, char *b0, size_t len)
{
    char list[4096], *save;
    snprintf(list, sizeof list, "%s", compose_conv(r, "N_LIST"));
    for (char *t = strtok_r(list, " \t", &save); t && g->nN < 256; t = strtok_r(NULL, " \t", &save))
        g->N[g->nN++] = strtod(t, NULL);
    snprintf(list, sizeof list, "%s", compose_conv(r, "B_LIST"));
    for (char *t = strtok_r(list, " \t", &save); t && g->nb < 64; t = strtok_r(NULL, " \t", &save))
        snprintf(g->b_text[g->nb++], sizeof g->b_text[0], "%s", t);
    snprintf(b0, len, "%s", g->nb ? g->b_text[0] : "");
    long rb = atol(compose_regime(r, "B"));   /* weak scaling at the regime's b too */
    if (rb > 0 && g->nb < 64) {
        int known = 0;
        for (int i = 0; i < g->nb; i++)
            known |= atol(g->b_text[i]) == rb;
        if (!known)
            snprintf(g->b_text[g->nb++], sizeof g->b_text[0], "%ld", rb);
    }
    composer *c = &g->c;
    c->f = f;
    c->G_text = study_value(r, "NODE_GFLOPS");
    c->G = strtod(c->G_text, NULL);
    c->gamma = strtod(study_value(r, "GAMMA_GBYTES_PER_S"), NULL);
    c->every = strtod(study_value(r, "EVAL_EVERY"), NULL);
    c->async = strcmp(study_value(r, "EVAL_ASYNC"), "1") == 0;
    g->strong_b = strtod(study_value(r, "STRONG_B"), NULL);
    c->max_b = atol(study_value(r, "COMPUTE_MAX_B"));
    c->b0 = batch_of(f, strtod(b0, NULL));
    RS_CHECK(f->bptt != 0 && c->b0, "no compute point at b = %s", b0);
    c->momentum_ms = c->b0->opt_min;
    return 0;
}

/* The four tables, from the facts; the earlier ones kept aside. */
static int write_tables(const study_run *r, grid *g, const char *b0)
{
    rs_table *t[5] = {rs_table_new("scaling_weak", step_cols, RS_ARRAY_LEN(step_cols)),
                      rs_table_new("scaling_strong", step_cols, RS_ARRAY_LEN(step_cols)),
                      rs_table_new("scaling_time_to_target", target_cols, RS_ARRAY_LEN(target_cols)),
                      rs_table_new("scaling_compose_check", check_cols, RS_ARRAY_LEN(check_cols)),
                      rs_table_new("scaling_regime_time", regime_cols, RS_ARRAY_LEN(regime_cols))};
    for (int core = 1; core >= 0; core--)
        for (int s = 0; s < NSCHEMES; s++) {
            for (int bi = 0; bi < g->nb; bi++)
                weak(g, t[0], core, bi, s);
            strong(g, t[1], core, s);
            time_to_target(g, t[2], core, s);
            regime_time(g, t[4], core, s);
        }
    check(g, t[3], b0);
    if (g->c.missing)
        fprintf(stderr, "compose: %d rows left out: a point they need is missing (failed or not run)\n",
                g->c.missing);
    static const char *const names[] = {"weak", "strong", "time_to_target", "compose_check", "regime_time"};
    int status = 0;
    for (int i = 0; i < 5; i++) {
        char file[64], path[2400];
        snprintf(file, sizeof file, "scaling_%s.csv", names[i]);
        snprintf(path, sizeof path, "%s/%s", r->dir, file);
        if (status == 0 && (study_keep_aside(r, file) != 0 || rs_table_write_csv(t[i], path) != 0)) {
            fprintf(stderr, "compose: %s\n", rs_lasterr());
            status = 1;
        } else if (status == 0)
            printf("compose: %s\n", path);
        rs_table_free(t[i]);
    }
    return status;
}

int compose_tables(const study_run *r)
{
    static const char *const need[] = {"converge_settings.txt", "compose_settings.txt", "compose_preset.txt"};
    char path[2400], b0[32];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", r->dir, need[i]);
        RS_CHECK(access(path, R_OK) == 0, "%s missing: run study run compose %s", path, r->dir);
    }
    sscanf(compose_conv(r, "B_LIST"), "%31s", b0);
    snprintf(path, sizeof path, "%s/points/compute-b%s-r1/bench.csv", r->dir, b0);
    RS_CHECK(access(path, R_OK) == 0, "%s missing: rerun study run compose %s", path, r->dir);
    compose_facts f;
    static grid g;
    memset(&g, 0, sizeof g);
    int rc = compose_facts_read(r, &f);
    if (rc == 0)
        rc = setup(r, &f, &g, b0, sizeof b0);
    if (rc == 0)
        rc = write_tables(r, &g, b0);
    compose_facts_free(&f);
    return rc;
}
