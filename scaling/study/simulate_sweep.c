/* simulate_sweep.c — the study "simulate": what `make simulate` runs (study run simulate
 * launches `study run simulate [RUN]`).  Settings: SIM_PARTS (a file of "NAME options"
 * lines instead of a preset), FULL=1 (every algorithm at every size and node count,
 * hours), QUICK=1 (a few points of each, up to 256 nodes: make bench); SIM_JOBS
 * simulations at once (default: the cores).  Every part is planned first (`study
 * simulate OPTIONS --keep RUN/simulate_work/NAME --plan`), then all their simulations
 * run as one list of points (the pool, pool.c: a rerun with the same RUN resumes), the
 * longest first, the cheap ones of a part grouped so that no point is more than a small
 * share of the sweep and few are tiny; then the collect (simulate_sweep_out.c).  A part
 * whose CSV or JSON is in RUN is left alone: results are never overwritten.  NETCHECK=1
 * (not QUICK) runs the real-network check into RUN/netcheck before the simulations. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "proc.h"
#include "simulate.h"
#include "simulate_sweep.h"
#include "smpi_launch.h"
#include "study.h"
#include "fsio.h"

static const study_setting settings[] = {
    {"SIM_PARTS", "", NULL, SET_TEXT, NULL},
    {"FULL", "", NULL, SET_TEXT, NULL},
    {"QUICK", "", "1", SET_TEXT, NULL},
    /* the scaling study's training step data-parallel on simulated TaihuLight nodes
     * (study train-sim): weak scaling at these node counts (empty: none); 800 nodes
     * needs the big corpus */
    {"DP_SIM_NODES", "1 16 100 800", "1 16", SET_OPT_INTS, NULL},
    /* 1: the simulator held against a real network first (netcheck_first), 0: not; make
     * bench runs that itself before its QUICK simulate */
    {"NETCHECK", "1", "0", SET_TEXT, NULL},
};

/* NETCHECK=1 and no RUN/netcheck yet: scaling/net/netcheck.sh --quick into it (two
 * namespace hosts on 100 Mbit/s links against study simulate on their calibrated
 * platform, ~30 s), before any simulation takes the cores; its output in
 * RUN/netcheck.txt, whose last line the report gives where the machine cannot make the
 * hosts (exit 3).  A failure is said and does not stop the sweep. */
static void netcheck_first(study_run *r)
{
    char script[4200], out[4200], txt[4200];
    snprintf(out, sizeof out, "%s/netcheck", r->dir);
    snprintf(txt, sizeof txt, "%s/netcheck.txt", r->dir);
    if (strcmp(study_value(r, "NETCHECK"), "1") != 0 || access(out, F_OK) == 0)
        return;
    snprintf(script, sizeof script, "%s/scaling/net/netcheck.sh", study_root());
    char *argv[] = {"sh", script, out, "--quick", NULL};
    printf("simulate: held against a real network first (scaling/net/netcheck.sh --quick, ~30 s)\n");
    fflush(stdout);
    int rc = proc_run(argv, NULL, txt, txt, 0, NULL);
    if (rc != 0 && rc != 3)
        fprintf(stderr, "simulate: netcheck.sh ended with exit %d (its output: %s); the sweep goes on\n", rc, txt);
}

/* The data-parallel step's exchanges: fused, bucketed (1 MiB buckets), bucketed with
 * the embedding's touched rows alone, fused with each node updating its block. */
static const struct {
    const char *mode, *sync, *more;
} dp_modes[] = {{"fused", "fused", ""},
                {"bucketed", "bucketed", ""},
                {"bucketed-sparse", "bucketed", "--embed-exchange sparse"},
                {"sharded", "fused", "--shard-update"}};
#define NDP ((int)(sizeof dp_modes / sizeof dp_modes[0]))

/* The step at DP_SIM_NODES, one point per exchange: 0, or -1. */
static int add_dp_points(study_run *r)
{
    char nodes[1024], work[4096];
    snprintf(nodes, sizeof nodes, "%s", study_value(r, "DP_SIM_NODES"));
    for (char *c = nodes; *c; c++)   /* "1 16 100" -> train-sim's "1,16,100" */
        *c = *c == ' ' ? ',' : *c;
    if (!nodes[strspn(nodes, ",")])
        return 0;
    RS_CHECK(realpath(r->work, work), "cannot resolve %s", r->work);
    for (int i = 0; i < NDP; i++) {
        char name[64];
        snprintf(name, sizeof name, "dp-sim-%s", dp_modes[i].mode);
        study_argv c = {0};
        if (study_train_sim_cmd(&c) != 0)
            return -1;
        sa_words(&c, "--allreduce hier --bench 2");
        sa_opt(&c, "--nodes", "%s", nodes);
        sa_opt(&c, "--sync", "%s", dp_modes[i].sync);
        sa_opt(&c, "--csv", "%s/points/%s/%s.csv", work, name, dp_modes[i].mode);
        sa_words(&c, "-- --model lstm --hidden 128 --classes 100 --batch 4 --optimizer momentum --corpus big "
                     "--bucket-mib 1");
        sa_words(&c, dp_modes[i].more);
        if (study_add(r, name, 4000, "0", &c) != 0)
            return -1;
    }
    return 0;
}

int sim_dp_collect(study_run *r)
{
    char out[4400], dir[4400];
    snprintf(out, sizeof out, "%s/train_dp_sim.csv", r->dir);
    const char *dn = study_value(r, "DP_SIM_NODES");
    if (!dn[strspn(dn, " ")] || access(out, F_OK) == 0)
        return 0;
    char *argv[NDP + 5], parts[NDP][4400];
    int n = 0;
    argv[n++] = "concat";
    argv[n++] = out;
    for (int i = 0; i < NDP; i++) {
        snprintf(dir, sizeof dir, "%s/points/dp-sim-%s/%s.csv", r->work, dp_modes[i].mode, dp_modes[i].mode);
        if (access(dir, F_OK) == 0)
            snprintf(parts[i], sizeof parts[i], "%s", dir), argv[n++] = parts[i];
    }
    if (n == 2)
        return 1;   /* every dp point failed: their logs stay in the work folder */
    argv[n++] = "--label";
    argv[n++] = "dp_mode";
    argv[n] = NULL;
    return cmd_concat(n, argv) != 0;
}

static struct {
    long long t0;       /* the sweep's start */
    int planned;        /* the parts were planned in this process */
    int plan_failed;    /* a part could not be planned */
} sweep;

int sim_self(const sim_part *p, const char *const *more, const char *out, const char *err)
{
    char *argv[200];
    int n = 0;
    argv[n++] = (char *)study_self();
    for (int i = 0; i < p->argc && n < 180; i++)
        argv[n++] = i == 0 ? "simulate" : p->argv[i];
    for (int i = 0; more[i] && n < 198; i++)
        argv[n++] = (char *)more[i];
    argv[n] = NULL;
    return proc_run(argv, NULL, out, err, 0, NULL);
}

/* Every part's options are study simulate's (checked here, before anything is made;
 * the programs and the platforms are checked when the part is planned). */
static int check(study_run *r)
{
    sweep.t0 = (long long)time(NULL);
    const char *nc = study_value(r, "NETCHECK");
    RS_CHECK(!strcmp(nc, "0") || !strcmp(nc, "1"), "NETCHECK=%s: expected 1 (the real-network check first) or 0", nc);
    if (smpi_run_ok(r->dir) != 0)
        return -1;
    sim_part *parts;
    int n = sim_parts(r, &parts);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        sim_opts o;
        char *argv[170];   /* with the --jobs the plan adds (SIM_JOBS is the driver's to check) */
        memcpy(argv, parts[i].argv, sizeof(char *) * (size_t)parts[i].argc);
        argv[parts[i].argc] = "--jobs";
        argv[parts[i].argc + 1] = "1";
        argv[parts[i].argc + 2] = NULL;
        if (sim_opts_parse(&o, parts[i].argc + 2, argv) != 0) {
            char why[1024];
            snprintf(why, sizeof why, "%s", rs_lasterr());
            rs_seterr("the part %s (%s): %s", parts[i].name, parts[i].args, why);
            free(parts);
            return -1;
        }
    }
    free(parts);
    return 0;
}

static int exists(const char *dir, const char *name, const char *ext, char *path, size_t len)
{
    snprintf(path, len, "%s/%s%s", dir, name, ext);
    return access(path, F_OK) == 0;
}

/* One part planned into WORK/NAME (unless its results are there, or it was planned). */
static void plan_part(study_run *r, const sim_part *p)
{
    char path[4400], keep[4400], log[4400], jobs[16];
    if (exists(r->dir, p->name, ".csv", path, sizeof path) || exists(r->dir, p->name, ".json", path, sizeof path)) {
        printf("simulate: %s exists; skipping %s (results are never overwritten)\n", path, p->name);
        return;
    }
    if (exists(r->work, p->name, "/settings", path, sizeof path))
        return;   /* planned by an earlier, interrupted sweep */
    printf("== %s: study simulate %s\n", p->name, p->args);
    fflush(stdout);
    snprintf(keep, sizeof keep, "%s/%s", r->work, p->name);
    snprintf(log, sizeof log, "%s/%s.plan.log", r->work, p->name);
    snprintf(jobs, sizeof jobs, "%d", r->jobs);
    const char *more[] = {"--jobs", jobs, "--keep", keep, "--plan", NULL};
    if (sim_self(p, more, NULL, log) != 0) {
        char line[4096] = "", last[4096] = "";
        FILE *f = rs_fopen_read(log);
        while (f && fgets(line, sizeof line, f))
            snprintf(last, sizeof last, "%s", line);
        if (f)
            fclose(f);
        last[strcspn(last, "\n")] = 0;
        printf("simulate: %s: %s\n", p->name, last);
        sweep.plan_failed = 1;
        study_remove_tree(keep);
    }
}

typedef struct {
    const char *part;
    char id[16];
    double w;
    char line[256];   /* "PART ID W", the order of ties */
} sim_point;

static int heaviest(const void *a, const void *b)
{
    const sim_point *x = a, *y = b;
    return x->w != y->w ? (x->w < y->w ? 1 : -1) : strcmp(x->line, y->line);
}

typedef struct {
    char name[300], part[128], ids[8192], line[8600];   /* line: the order of ties */
    double w;
} sim_group;

static int group_heaviest(const void *a, const void *b)
{
    const sim_group *x = a, *y = b;
    return x->w != y->w ? (x->w < y->w ? 1 : -1) : strcmp(x->line, y->line);
}

/* A point of the ids of one part: NAME.FIRST(+K) running them one after another. */
static void group(sim_group *g, int *ng, const char *work, const char *part, const char *ids, int k, double w)
{
    sim_group *e = &g[(*ng)++];
    snprintf(e->name, sizeof e->name, "%s.%.5s", part, ids);
    if (k > 1)
        snprintf(e->name + strlen(e->name), sizeof e->name - strlen(e->name), "+%d", k - 1);
    snprintf(e->part, sizeof e->part, "%s", part);
    snprintf(e->ids, sizeof e->ids, "%s", ids);
    e->w = w;
    snprintf(e->line, sizeof e->line, "%s %.1f 0 study simulate --keep '%s/%s' --run-job %s", e->name, w, work,
             part, ids);
}

/* Every planned simulation as a point, the longest first; the cheap ones of a part
 * grouped, so that no point is more than ~5% of a core's share. */
static int add_points(study_run *r, const sim_part *parts, int nparts)
{
    char work[4200], path[4400], id[64];
    if (!realpath(r->work, work))
        snprintf(work, sizeof work, "%s", r->work);
    sim_point *pt = NULL;
    int n = 0;
    double total = 0, w;
    for (int i = 0; i < nparts; i++) {
        if (!exists(r->work, parts[i].name, "/settings", path, sizeof path))
            continue;
        snprintf(path, sizeof path, "%s/%s/jobs/list", r->work, parts[i].name);
        FILE *f = rs_fopen_read(path);
        while (f && fscanf(f, "%63s %lf", id, &w) == 2) {
            pt = realloc(pt, sizeof *pt * (size_t)(n + 1));
            RS_ASSERT(pt != NULL);
            pt[n] = (sim_point){.part = parts[i].name, .w = w};
            snprintf(pt[n].id, sizeof pt[n].id, "%.15s", id);
            snprintf(pt[n].line, sizeof pt[n].line, "%s %s %.0f", parts[i].name, id, w);
            total += w;
            n++;
        }
        if (f)
            fclose(f);
    }
    if (n > 0)   /* qsort of NULL is undefined even for 0 items */
        qsort(pt, (size_t)n, sizeof *pt, heaviest);
    sim_group *g = calloc((size_t)n + (size_t)nparts + 1, sizeof *g);
    RS_ASSERT(g != NULL);
    int ng = 0;
    double small = total / (20.0 * r->jobs);
    /* per part, the cheap ones gathered until they weigh `small` */
    char (*ids)[8192] = calloc((size_t)nparts + 1, sizeof *ids);
    int *k = calloc((size_t)nparts + 1, sizeof *k);
    double *sum = calloc((size_t)nparts + 1, sizeof *sum);
    RS_ASSERT(ids && k && sum);
    for (int i = 0; i < n; i++) {
        if (pt[i].w >= small) {
            group(g, &ng, work, pt[i].part, pt[i].id, 1, pt[i].w);
            continue;
        }
        int q = 0;
        while (strcmp(parts[q].name, pt[i].part) != 0)
            q++;
        snprintf(ids[q] + strlen(ids[q]), sizeof ids[q] - strlen(ids[q]), "%s%s", ids[q][0] ? "," : "", pt[i].id);
        k[q]++;
        sum[q] += pt[i].w;
        if (sum[q] >= small) {
            group(g, &ng, work, pt[i].part, ids[q], k[q], sum[q]);
            ids[q][0] = 0, k[q] = 0, sum[q] = 0;
        }
    }
    for (int q = 0; q < nparts; q++)
        if (ids[q][0])
            group(g, &ng, work, parts[q].name, ids[q], k[q], sum[q]);
    qsort(g, (size_t)ng, sizeof *g, group_heaviest);
    int rc = 0;
    for (int i = 0; i < ng && rc == 0; i++) {
        study_argv c = {0};
        sa_add(&c, "%s", study_self());
        sa_add(&c, "simulate");
        sa_opt(&c, "--keep", "%s/%s", work, g[i].part);
        sa_opt(&c, "--run-job", "%s", g[i].ids);
        rc = study_add(r, g[i].name, g[i].w, "0", &c);
    }
    free(pt), free(g), free(ids), free(k), free(sum);
    return rc;
}

static int plan(study_run *r)
{
    if (sweep.planned)
        return 0;
    sweep.planned = 1;
    if (sweep.t0 == 0)
        sweep.t0 = (long long)time(NULL);
    netcheck_first(r);
    sim_part *parts;
    int n = sim_parts(r, &parts);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++)
        plan_part(r, &parts[i]);
    int rc = add_points(r, parts, n);
    if (rc == 0)
        rc = add_dp_points(r);
    if (r->added)
        printf("simulate: %d points, %d at once, the longest first\n", r->added, r->jobs);
    free(parts);
    return rc;
}

static int collect(study_run *r)
{
    return sim_sweep_collect(r, sweep.plan_failed, sweep.t0);
}

/* a folder made before the data-parallel points ran none */
static const char *const absent[] = {"DP_SIM_NODES=", NULL};

const study_def simulate_study = {
    .name = "simulate",
    .absent = absent,
    .settings = settings,
    .nsettings = (int)(sizeof settings / sizeof settings[0]),
    .jobs = 0,   /* the cores */
    .jobs_var = "SIM_JOBS",
    .work = "simulate_work",
    .check = check,
    .plan = plan,
    .collect = collect,
};
