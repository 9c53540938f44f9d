/* regime_grid.c — the Sunway regime study's points (regime_study.h): the learning-rate
 * rules, the command lines, regime_grid.csv (one row per training point:
 * point,N,b,optimizer,rule,lr,warmup,seed,eval_every,steps_cap,role,schedule,clip), and
 * the best point per (N, optimizer). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "regime_study.h"
#include "fsio.h"

/* The centre learning rate at b = 80 sequences (a step's mean loss per token), scaled
 * by sqrt(b / 80) for another b; the N = 1 grid is it x LR_FACTORS, widened. */
static const struct {
    const char *name;
    double lr80;
} optimizers[] = {{"adam", 0.003}, {"lamb", 0.03}, {"momentum", 0.5}};
#define NOPT ((int)(sizeof optimizers / sizeof optimizers[0]))

int regime_optimizer_known(const char *name)
{
    for (int i = 0; i < NOPT; i++)
        if (strcmp(optimizers[i].name, name) == 0)
            return 1;
    return 0;
}

static int words(char *list, char **w, int most)
{
    int n = 0;
    for (char *t = strtok(list, " \t"); t && n < most; t = strtok(NULL, " \t"))
        w[n++] = t;
    return n;
}

/* A space-separated setting as numbers: how many. */
static int numbers(const study_run *r, const char *name, double *v, int most)
{
    char copy[1024], *w[64];
    snprintf(copy, sizeof copy, "%s", study_value(r, name));
    int n = words(copy, w, most < 64 ? most : 64);
    for (int i = 0; i < n; i++)
        v[i] = atof(w[i]);
    return n;
}

static long bptt_of(const study_run *r)
{
    const char *m = strstr(study_value(r, "MODEL"), "--bptt ");
    return m ? atol(m + 7) : 35;
}

/* K, the workers a group runs as one (--workers N/K --batch K b): the largest divisor
 * of N below N (B_simple needs two groups) whose K b streams divide EVAL_STREAMS and
 * stay within GROUP_MAX. */
static long group_of(const study_run *r, long N)
{
    long b = atol(study_value(r, "B")), es = atol(study_value(r, "EVAL_STREAMS"));
    long most = atol(study_value(r, "GROUP_MAX")), K = N > 1 ? N - 1 : 1;
    while (K > 1 && (N % K != 0 || es % (K * b) != 0 || K * b > most))
        K--;
    return K;
}

/* The step cap: EPOCHS epochs of the train split at global batch B. */
static long epochs_steps(const study_run *r, const regime_targets *t, const char *setting, long B)
{
    double s = atof(study_value(r, setting)) * t->ntrain / ((double)B * (double)bptt_of(r));
    return s < 2 ? 2 : (long)ceil(s);
}

int regime_add_kn3(study_run *r)
{
    study_argv c = {0};
    sa_words(&c, "rnn-train --model kn3");
    sa_opt(&c, "--corpus", "%s", study_value(r, "CORPUS"));
    sa_opt(&c, "--vocab", "%s", study_value(r, "VOCAB"));
    sa_opt(&c, "--eval-tokens", "%s", study_value(r, "EVAL_TOKENS"));
    sa_words(&c, "--csv summary.csv");
    return study_add(r, "regime-kn3", 1, "0", &c);
}

int regime_add_gemm(study_run *r)
{
    double N[64];
    int n = numbers(r, "N_LIST", N, 64), rc = 0;
    long b = atol(study_value(r, "B"));
    for (int i = 0; i < n && rc == 0; i++) {
        char name[64];
        long X = group_of(r, (long)N[i]) * b;
        snprintf(name, sizeof name, "regime-gemm-b%ld", X);
        study_argv c = {0};
        sa_add(&c, "rnn-train");
        sa_words(&c, study_value(r, "MODEL"));
        sa_opt(&c, "--corpus", "%s", study_value(r, "CORPUS"));
        sa_opt(&c, "--vocab", "%s", study_value(r, "VOCAB"));
        sa_opt(&c, "--threads", "%s", study_value(r, "THREADS"));
        sa_words(&c, "--seed 1");
        sa_opt(&c, "--batch", "%ld", X);
        sa_words(&c, "--bench 1 --json summary.json");
        rc = study_add(r, name, 1, "0", &c);
    }
    return rc;
}

/* The grid's setting at (N, optimizer): WARMUP steps at N > 1, a constant rate, and the
 * clip CLIP (MOMENTUM_CLIP for momentum). */
static regime_point default_setting(const study_run *r, long N, const char *opt, double lr)
{
    regime_point s = {0};
    s.lr = lr;
    s.warmup = N > 1 ? atol(study_value(r, "WARMUP")) : 0;
    snprintf(s.sched, sizeof s.sched, "const");
    s.clip = atof(study_value(r, strcmp(opt, "momentum") == 0 ? "MOMENTUM_CLIP" : "CLIP"));
    return s;
}

int regime_same_setting(const regime_point *a, const regime_point *b)
{
    return a->lr == b->lr && a->warmup == b->warmup && strcmp(a->sched, b->sched) == 0 && a->clip == b->clip;
}

/* One training point at setting s (its rate, warmup, schedule, clip); the grid row
 * appended when it is new.  Its name: n<N>-<opt>-lr<rate>, then what differs from the
 * grid's setting (-w<warmup>, -cos, -clip<X>), -long for a LONG_EPOCHS cap, -s<seed>.
 * 0, 1 its GEMM plan point failed (rs_lasterr), -1 a file. */
static int add_point(study_run *r, const regime_targets *t, long N, const char *opt, const char *rule,
                     const regime_point *s, long seed, long cap, long ev, const char *role)
{
    long b = atol(study_value(r, "B")), B = N * b, K = group_of(r, N), wu = s->warmup;
    double lr = s->lr;
    regime_point d = default_setting(r, N, opt, lr);
    char name[160], lrt[32], gemm[8192], target[64] = "", var[96] = "";
    snprintf(lrt, sizeof lrt, "%.4g", lr);
    if (wu != d.warmup)
        snprintf(var + strlen(var), sizeof var - strlen(var), "-w%ld", wu);
    if (strcmp(s->sched, d.sched) != 0)
        snprintf(var + strlen(var), sizeof var - strlen(var), "-%.3s", s->sched);
    if (s->clip != d.clip)
        snprintf(var + strlen(var), sizeof var - strlen(var), "-clip%g", s->clip);
    if (strcmp(role, "long") == 0)
        snprintf(var + strlen(var), sizeof var - strlen(var), "-long");
    snprintf(name, sizeof name, "n%ld-%s-lr%s%s-s%ld", N, opt, lrt, var, seed);
    if (N > 1 && t->have_hard)
        snprintf(target, sizeof target, " --target-ppl %.2f", t->ppl[t->n - 1]);
    if (study_gemm_plan(r, "regime-", K * b, gemm, sizeof gemm) != 0)
        return 1;
    /* the grid row first (once): a point stopped between the two still has its row */
    char path[2600], line[512];
    snprintf(path, sizeof path, "%s/regime_grid.csv", r->dir);
    FILE *f = rs_fopen_read(path);
    int listed = 0;
    size_t nl = strlen(name);
    while (f && !listed && fgets(line, sizeof line, f))
        listed = strncmp(line, name, nl) == 0 && line[nl] == ',';
    if (f)
        fclose(f);
    if (!listed) {
        RS_CHECK((f = fopen(path, "a")), "cannot write %s", path);
        if (ftell(f) == 0)
            fprintf(f, "point,N,b,optimizer,rule,lr,warmup,seed,eval_every,steps_cap,role,schedule,clip\n");
        fprintf(f, "%s,%ld,%ld,%s,%s,%s,%ld,%ld,%ld,%ld,%s,%s,%g\n", name, N, b, opt, rule, lrt, wu, seed, ev, cap,
                role, s->sched, s->clip);
        RS_CHECK(fclose(f) == 0, "cannot write %s", path);
    }
    study_argv c = {0};
    sa_add(&c, "rnn-train");
    sa_words(&c, study_value(r, "MODEL"));
    sa_opt(&c, "--corpus", "%s", study_value(r, "CORPUS"));
    sa_opt(&c, "--vocab", "%s", study_value(r, "VOCAB"));
    sa_opt(&c, "--gemm", "%s", gemm);
    sa_opt(&c, "--threads", "%s", study_value(r, "THREADS"));
    sa_opt(&c, "--seed", "%ld", seed);
    sa_opt(&c, "--schedule", "%s", s->sched);
    sa_opt(&c, "--clip", "%g", s->clip);
    sa_opt(&c, "--eval-streams", "%s", study_value(r, "EVAL_STREAMS"));
    sa_opt(&c, "--eval-tokens", "%s", study_value(r, "EVAL_TOKENS"));
    sa_opt(&c, "--eval-every", "%ld", ev);
    sa_opt(&c, "--eval-growth", "%g", REGIME_GROWTH);
    double gate = atof(study_value(r, "EVAL_GATE"));
    if (gate > 0 && t->n > 0)   /* first windows only while far above every target */
        sa_opt(&c, "--eval-gate", "%.2f", gate * t->ppl[0]);
    sa_opt(&c, "--batch", "%ld", K * b);
    sa_opt(&c, "--workers", "%ld", N / K);
    sa_opt(&c, "--optimizer", "%s", opt);
    sa_opt(&c, "--lr", "%s", lrt);
    sa_opt(&c, "--warmup", "%ld", wu);
    if (target[0])
        sa_words(&c, target);
    sa_opt(&c, "--diverge-ppl", "%s", study_value(r, "VOCAB"));
    sa_opt(&c, "--steps", "%ld", cap);
    sa_words(&c, "--checkpoint ckpt");
    sa_opt(&c, "--checkpoint-every", "%ld", study_ckpt_every(cap));
    sa_words(&c, "--resume-if-any --log log.csv --csv summary.csv --json summary.json");
    if (study_add(r, name, (double)cap * (double)B * (double)bptt_of(r), "0,1", &c) != 0)
        return -1;
    return 0;
}

/* The rates (x lr1) and their rule names a grid at N tries, centre first. */
static int rates(const study_run *r, const char *opt, long N, double *x, const char **rule)
{
    if (N == 1 || strcmp(opt, "momentum") != 0) {
        double f[16];
        int n = numbers(r, "LR_FACTORS", f, 15), k = 1;   /* 15 + the centre: x[16] */
        x[0] = sqrt((double)N);
        rule[0] = N == 1 ? "grid" : "sqrt";
        for (int i = 0; i < n; i++)
            if (f[i] != 1) {
                x[k] = f[i] * sqrt((double)N);
                rule[k++] = N == 1 ? "grid" : "sqrt-grid";
            }
        return k;
    }
    x[0] = pow((double)N, 0.75), rule[0] = "between";
    x[1] = sqrt((double)N), rule[1] = "sqrt";
    x[2] = (double)N, rule[2] = "linear";
    return 3;
}

/* A point of the rate grid (roles grid, widenK): the study's default setting. */
static int grid_role(const regime_point *p)
{
    return strcmp(p->role, "grid") == 0 || strncmp(p->role, "widen", 5) == 0;
}

/* (N, opt)'s grid points of seed 1 and the rates they tried. */
static void tried(const regime_grid *g, long N, const char *opt, double *lo, double *hi)
{
    *lo = *hi = NAN;
    for (int i = 0; i < g->n; i++) {
        const regime_point *p = &g->p[i];
        if (p->N != N || p->seed != 1 || !grid_role(p) || strcmp(p->opt, opt) != 0)
            continue;
        *lo = isnan(*lo) || p->lr < *lo ? p->lr : *lo;
        *hi = isnan(*hi) || p->lr > *hi ? p->lr : *hi;
    }
}

/* Some seed-1 grid point of (N, opt) ran (diverged or not). */
static int ran_any(const regime_grid *g, long N, const char *opt)
{
    for (int i = 0; i < g->n; i++)
        if (g->p[i].N == N && g->p[i].seed == 1 && g->p[i].ran && grid_role(&g->p[i]) &&
            strcmp(g->p[i].opt, opt) == 0)
            return 1;
    return 0;
}

/* Is N in the list setting NAME? */
static int listed_in(const study_run *r, const char *name, long N)
{
    double want[64];
    int nn = numbers(r, name, want, 64), in = 0;
    for (int i = 0; i < nn; i++)
        in |= (long)want[i] == N;
    return in;
}

/* tune: the grid's best rate with one thing changed each: a cosine schedule to the cap,
 * a long warmup (TUNE_WARMUP of the cap, and more than the grid's), the clip switched
 * (CLIP <-> none). */
static int tune(study_run *r, const regime_targets *t, long N, const char *opt, const regime_point *best, long cap,
                long ev)
{
    if (!listed_in(r, "TUNE_N", N))
        return 0;
    regime_point v[3] = {*best, *best, *best};
    snprintf(v[0].sched, sizeof v[0].sched, "cosine");
    long wu = (long)(atof(study_value(r, "TUNE_WARMUP")) * (double)cap + 0.5);
    v[1].warmup = wu > best->warmup ? wu : best->warmup + 1;
    v[2].clip = best->clip > 0 ? 0 : atof(study_value(r, "CLIP"));
    int rc = 0;
    for (int i = 0; i < 3 && rc == 0; i++)
        if (!regime_same_setting(&v[i], best))
            rc = add_point(r, t, N, opt, best->rule, &v[i], 1, cap, ev, "tune");
    return rc;
}

/* seeds: SEEDS at the best setting (over the grid and the tuning) where N is in SEED_N
 * or opt did best at N; at N >= LONG_N each runs to the hard target or LONG_EPOCHS,
 * seed 1 again too where it stopped at its cap short of the hard target. */
static int seeds(study_run *r, const regime_targets *t, const regime_grid *g, long N, const char *opt, long ev,
                 int hard)
{
    const regime_point *best = regime_best(g, N, opt, hard), *top = regime_best(g, N, NULL, hard);
    if (!best || !top || (!listed_in(r, "SEED_N", N) && strcmp(top->opt, opt) != 0))
        return 0;
    long b = atol(study_value(r, "B")), cap = epochs_steps(r, t, N == 1 ? "REF_EPOCHS" : "CAP_EPOCHS", N * b);
    int lng = N > 1 && N >= atol(study_value(r, "LONG_N")), rc = 0;
    if (lng && epochs_steps(r, t, "LONG_EPOCHS", N * b) > cap)
        cap = epochs_steps(r, t, "LONG_EPOCHS", N * b);
    else
        lng = 0;   /* the usual cap is as long */
    double s[16];
    int ns = numbers(r, "SEEDS", s, 16);
    for (int i = 0; i < ns && rc == 0; i++)
        if ((long)s[i] != 1 || (lng && hard >= 0 && best->steps[hard] == 0))
            rc = add_point(r, t, N, opt, best->rule, best, (long)s[i], cap, ev, lng ? "long" : "seed");
    return rc;
}

static int one_stage(study_run *r, const regime_targets *t, const regime_grid *g, const char *stage, long N,
                     const char *opt)
{
    long b = atol(study_value(r, "B")), cap = epochs_steps(r, t, N == 1 ? "REF_EPOCHS" : "CAP_EPOCHS", N * b);
    int hard = t->have_hard ? t->n - 1 : -1;   /* before it is set: the lowest ppl */
    double lr1 = NAN;
    for (int i = 0; i < NOPT; i++)
        if (strcmp(optimizers[i].name, opt) == 0)
            lr1 = optimizers[i].lr80 * sqrt((double)b / 80);
    if (N > 1) {
        const regime_point *best1 = regime_best_rate(g, 1, opt, hard);
        if (!best1)
            return 0;   /* no N = 1 run of it: nothing to scale from */
        lr1 = best1->lr;
    }
    /* the first evaluation near 1/20 of the steps the easiest target could take (at
     * perfect scaling from N = 1's; N = 1: 1/500 of its steps), then every 5% (--eval-growth) */
    const regime_point *ref = N > 1 ? regime_best_rate(g, 1, opt, 0) : NULL;
    long ev = N == 1 ? cap / 500 : ref && ref->steps[0] > 0 ? (long)(ref->steps[0] / (double)N / 20) : 1;
    ev = ev < 1 ? 1 : ev;
    if (strcmp(stage, "seeds") == 0)
        return seeds(r, t, g, N, opt, ev, hard);
    double x[16];
    const char *rule[16];
    int n = rates(r, opt, N, x, rule), rc = 0;
    const regime_point *best = regime_best_rate(g, N, opt, hard);
    if (N > 1 && best && best->steps[hard] > 0)
        cap = (long)best->steps[hard] < cap ? (long)best->steps[hard] : cap;   /* a slower rate cannot win */
    regime_point set = default_setting(r, N, opt, 0);
    if (strcmp(stage, "grid") == 0)
        for (int i = 0; i < (N == 1 ? n : 1) && rc == 0; i++) {
            set.lr = lr1 * x[i];
            rc = add_point(r, t, N, opt, rule[i], &set, 1, cap, ev, "grid");
        }
    else if (strcmp(stage, "others") == 0 && (best || ran_any(g, N, opt)))   /* a diverged centre too */
        for (int i = 1; i < n && rc == 0; i++) {
            set.lr = lr1 * x[i];
            rc = add_point(r, t, N, opt, rule[i], &set, 1, cap, ev, "grid");
        }
    else if (strncmp(stage, "widen", 5) == 0) {   /* the role: widenK, the round */
        double lo, hi;
        tried(g, N, opt, &lo, &hi);
        if (atoi(stage + 5) > atoi(study_value(r, "EXTEND")) && best)
            return 0;   /* past EXTEND: only down, where every rate diverged */
        if (best && best->lr == hi) {
            set.lr = hi * 2;
            rc = add_point(r, t, N, opt, "wider", &set, 1, cap, ev, stage);
        }
        if (rc == 0 && !isnan(lo) && (!best || best->lr == lo)) {   /* every rate diverged: a smaller one */
            set.lr = lo / 2;
            rc = add_point(r, t, N, opt, "wider", &set, 1, cap, ev, stage);
        }
    } else if (strcmp(stage, "tune") == 0 && best)
        rc = tune(r, t, N, opt, best, cap, ev);
    return rc;
}

int regime_add_stage(study_run *r, const regime_targets *t, const char *stage, int n1)
{
    double N[64];
    char list[1024], *o[16];
    snprintf(list, sizeof list, "%s", study_value(r, "OPT_LIST"));
    int nn = numbers(r, "N_LIST", N, 64), no = words(list, o, 16), rc = 0;
    regime_grid *g = regime_grid_read(r, t);
    if (!g)
        return -1;
    for (int i = 0; i < nn && rc == 0; i++)
        for (int k = 0; k < no && rc == 0; k++)
            if ((N[i] == 1) == (n1 != 0))
                rc = one_stage(r, t, g, stage, (long)N[i], o[k]);
    regime_grid_free(g);
    return rc;
}

static const regime_point *best_of(const regime_grid *g, long N, const char *opt, int target, int grid_only)
{
    const regime_point *best = NULL;
    for (int i = 0; i < g->n; i++) {
        const regime_point *p = &g->p[i];
        if (p->N != N || p->seed != 1 || !p->ran || p->diverged || (opt && strcmp(p->opt, opt) != 0) ||
            (grid_only && !grid_role(p)))
            continue;
        int reached = target >= 0 && p->steps[target] > 0, had = best && target >= 0 && best->steps[target] > 0;
        int beats = !best || (reached && !had) || (!reached && !had && p->min_ppl < best->min_ppl) ||
                    (reached && (p->steps[target] < best->steps[target] ||
                                 (p->steps[target] == best->steps[target] && p->ppl_at[target] < best->ppl_at[target])));
        if (beats)
            best = p;
    }
    return best;
}

const regime_point *regime_best(const regime_grid *g, long N, const char *opt, int target)
{
    return best_of(g, N, opt, target, 0);
}

const regime_point *regime_best_rate(const regime_grid *g, long N, const char *opt, int target)
{
    return best_of(g, N, opt, target, 1);
}

int regime_widen_rounds(const study_run *r, const regime_targets *t, int n1)
{
    regime_grid *g = regime_grid_read(r, t);
    int most = 0;
    for (int i = 0; g && i < g->n; i++) {
        const regime_point *p = &g->p[i];
        if ((p->N == 1) != (n1 != 0) || strncmp(p->role, "widen", 5) != 0)
            continue;
        int k = p->role[5] ? atoi(p->role + 5) : 1;
        most = k > most ? k : most;
    }
    regime_grid_free(g);
    return most;
}

regime_grid *regime_grid_read(const study_run *r, const regime_targets *t)
{
    regime_grid *g = calloc(1, sizeof *g);
    RS_ASSERT(g != NULL);
    char path[2600];
    snprintf(path, sizeof path, "%s/regime_grid.csv", r->dir);
    FILE *f = rs_fopen_read(path);
    if (!f)
        return g;   /* no point yet */
    rs_table *csv = rs_table_read_csv_text(path);
    fclose(f);
    if (!csv) {
        free(g);
        return NULL;
    }
    int n = rs_table_nrows(csv);
    g->p = calloc((size_t)n + 1, sizeof *g->p);
    RS_ASSERT(g->p != NULL);
    char v[13][200];
    static const char *const cols[] = {"point", "N", "b", "optimizer", "rule", "lr", "warmup", "seed",
                                       "eval_every", "steps_cap", "role", "schedule", "clip"};
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < 13; c++)
            study_cell_at(csv, i, cols[c], v[c], sizeof v[c]);
        regime_point *p = &g->p[g->n++];
        snprintf(p->point, sizeof p->point, "%.159s", v[0]);
        snprintf(p->opt, sizeof p->opt, "%.15s", v[3]);
        snprintf(p->rule, sizeof p->rule, "%.15s", v[4]);
        snprintf(p->role, sizeof p->role, "%.15s", v[10]);
        p->N = atol(v[1]), p->b = atol(v[2]), p->B = p->N * p->b, p->lr = atof(v[5]), p->warmup = atol(v[6]);
        p->seed = atol(v[7]), p->eval_every = atol(v[8]), p->cap = atol(v[9]);
        /* a grid from before these columns: a constant rate, rnn-train's default clip 5 */
        snprintf(p->sched, sizeof p->sched, "%.15s", v[11][0] ? v[11] : "const");
        p->clip = v[12][0] ? atof(v[12]) : 5;
        regime_point_results(r, t, p);
    }
    rs_table_free(csv);
    return g;
}

void regime_grid_free(regime_grid *g)
{
    if (g) {
        free(g->p);
        free(g);
    }
}
