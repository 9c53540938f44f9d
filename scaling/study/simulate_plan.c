/* simulate_plan.c — what a simulate run simulates: one platform per node count (the same
 * machine, sized for the largest), then one job (one smpirun) per node count, algorithm
 * and checked-or-folded set of sizes, each with its expected wall time for the order
 * (longest first) and the ETA.  Points that are not run become skip rows with a note.
 *
 * The platforms are WORK/plat/pP.{xml,hosts,groups,params} (platform-gen); the jobs'
 * files, simulate_files.c's. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ar_traffic.h"
#include "check.h"
#include "fsio.h"
#include "proc.h"
#include "simulate.h"

/* ---- platforms ------------------------------------------------------------------ */

/* The platform-gen options every node count shares, split into words in args. */
static int platform_args(const sim_opts *o, char *store, size_t len, char **args, int most)
{
    int n = 0;
    size_t used = 0;
#define ADD(s)                                                                      \
    do {                                                                            \
        RS_CHECK(n < most - 8 && used + strlen(s) + 1 < len, "--platform-args: too long"); \
        args[n++] = strcpy(store + used, s);                                        \
        used += strlen(s) + 1;                                                      \
    } while (0)
    ADD("--platform"); ADD(o->platform);
    ADD("--placement"); ADD(o->placement);
    ADD("--seed"); ADD(o->seed_text);
    char copy[4096], *save;
    snprintf(copy, sizeof copy, "%s", o->platform_args ? o->platform_args : "");
    for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
        ADD(w);
    if (o->reduce) {
        ADD("--reduce-gbytes-per-s"); ADD(o->reduce);
    }
#undef ADD
    args[n] = NULL;
    return n;
}

/* The first line of platform-gen's output, without its name. */
static void gen_error(const char *out)
{
    const char *m = strncmp(out, "platform-gen: ", 14) == 0 ? out + 14 : out;
    rs_seterr("platform-gen: %.*s", (int)strcspn(m, "\n"), m);
}

static int make_platforms(const sim_opts *o, const char *work, int regenerate)
{
    char store[8192], out[8192], groups[32], prefix[4200], nodes[32], *args[160];
    int n = platform_args(o, store, sizeof store, args, 150);
    if (n < 0)
        return -1;
    char *argv[170] = {(char *)o->gen};
    memcpy(argv + 1, args, sizeof(char *) * (size_t)(n + 1));
    int has_groups = 0;
    for (int i = 0; i < n; i++)
        has_groups |= strcmp(args[i], "--groups") == 0;
    if (strcmp(o->platform, "torus") != 0) {
        /* the same number of groups for every p: the machine does not shrink with the job */
        argv[n + 1] = "--describe";
        argv[n + 2] = NULL;
        proc_capture(argv, 1, out, sizeof out);
        const char *g = strncmp(out, "group_size ", 11) == 0 ? out : strstr(out, "\ngroup_size ");
        if (!g) {
            gen_error(out);
            return -1;
        }
        int gs = atoi(g + (g == out ? 11 : 12));
        RS_CHECK(gs > 0, "platform-gen --describe: group_size %d", gs);
        if (!has_groups) {
            snprintf(groups, sizeof groups, "%d", (o->maxp + gs - 1) / gs);
            argv[++n] = "--groups";
            argv[++n] = groups;
        }
    }
    for (int i = 0; i < o->nnodes; i++) {
        snprintf(prefix, sizeof prefix, "%s/plat/p%d", work, o->nodes[i]);
        char params[4300];
        snprintf(params, sizeof params, "%s.params", prefix);
        if (!regenerate && access(params, F_OK) == 0)
            continue;   /* planned with them */
        snprintf(nodes, sizeof nodes, "%d", o->nodes[i]);
        char *more[] = {"--nodes", nodes, "--out", prefix, NULL};
        memcpy(argv + n + 1, more, sizeof more);
        if (proc_capture(argv, 1, out, sizeof out) != 0) {
            gen_error(out);
            return -1;
        }
    }
    return 0;
}

int sim_platform_param(const char *params, const char *key, char *buf, size_t len)
{
    char line[4096], k[256], v[256];
    FILE *f = rs_fopen_read(params);
    buf[0] = 0;
    while (f && !buf[0] && fgets(line, sizeof line, f))
        if (sscanf(line, "%255s %255s", k, v) == 2 && strcmp(k, key) == 0)
            snprintf(buf, len, "%.*s", (int)len - 1, v);
    if (f)
        fclose(f);
    return buf[0] ? 0 : -1;
}

/* Parameter KEY of the largest platform. */
static void param(const sim_opts *o, const char *work, const char *key, char *buf, size_t len)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/plat/p%d.params", work, o->maxp);
    sim_platform_param(path, key, buf, len);
}

/* ---- jobs ----------------------------------------------------------------------- */

/* A simulation's expected wall time (ms) here, for the ETA and the order: ~40 + 0.04 p us
 * per simulated message (collectives/ar_traffic.c counts them), a rendezvous message
 * (over the eager limit) ~1.8 eager ones, the benchmark's bookkeeping (~3 p lg p
 * messages a size), the buffers (~0.2 ns a byte and rank), the start (~10 ms a rank) and
 * a small first size's checked call (allreduce-bench --timed-only). */
static long long cost_ms(const sim_opts *o, const char *name, int p, const long long *sizes, int ns)
{
    ar_traffic_params prm = {.segment_bytes = 262144, .group_size = o->hier_max};
    int l = 0;
    while ((1L << l) < p)
        l++;
    double u = 40e-6 + 0.04e-6 * p, t = 0.01 * p;
    for (int i = 0; i < ns; i++) {
        double s = (double)sizes[i];
        ar_traffic tr = ar_traffic_of(name, &prm, p, s);
        double c = tr.messages * (tr.message_bytes > (double)o->eager ? 1.8 : 1) * u;
        if (i == 0 && s <= 65536)
            t += c;   /* the checked first call */
        t += c + 3 * p * l * u + 2e-10 * s * p;
    }
    return (long long)nearbyint(t * 1000);   /* as printf's %.0f rounds */
}

static void add_skip(sim_plan *pl, int p, const char *algo, long long bytes, const char *note)
{
    pl->skip = realloc(pl->skip, sizeof *pl->skip * (size_t)(pl->nskip + 1));
    RS_ASSERT(pl->skip != NULL);
    sim_skip *s = &pl->skip[pl->nskip++];
    s->p = p;
    snprintf(s->algo, sizeof s->algo, "%s", algo);
    if (bytes >= 0)
        snprintf(s->bytes, sizeof s->bytes, "%lld", bytes);
    else
        s->bytes[0] = 0;
    snprintf(s->note, sizeof s->note, "%s", note);
}

static void add_job(const sim_opts *o, sim_plan *pl, int p, const char *kind, const char *name,
                    const char *algos, int fold, const sim_list *sizes)
{
    if (sizes->n == 0)
        return;
    pl->job = realloc(pl->job, sizeof *pl->job * (size_t)(pl->njobs + 1));
    RS_ASSERT(pl->job != NULL);
    sim_job *j = &pl->job[pl->njobs++];
    memset(j, 0, sizeof *j);
    snprintf(j->id, sizeof j->id, "j%04d", pl->njobs);
    j->p = p;
    j->fold = fold;
    snprintf(j->kind, sizeof j->kind, "%s", kind);
    snprintf(j->name, sizeof j->name, "%s", name);
    snprintf(j->algos, sizeof j->algos, "%s", algos);
    /* the selector whose built-ins these are (SMPI's allreduce:NAME needs its own) */
    const char *sel = strcmp(name, "mpich") == 0              ? "mpich"
                      : strncmp(name, "mvapich2", 8) == 0     ? "mvapich2"
                      : strcmp(name, "impi") == 0             ? "impi"
                                                              : "ompi";
    snprintf(j->sel, sizeof j->sel, "%s", sel);
    j->ns = sizes->n;
    memcpy(j->sizes, sizes->v, sizeof(long long) * (size_t)sizes->n);
    j->w = cost_ms(o, name, p, j->sizes, j->ns);
}

static void push(sim_list *l, long long v)
{
    if (l->n < SIM_MAXS)
        l->v[l->n++] = v;
}

static int in_list(const sim_list *l, long long v)
{
    for (int i = 0; i < l->n; i++)
        if (l->v[i] == v)
            return 1;
    return 0;
}

static int by_size(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* The experiment's tensors (NAME ELEMENTS PER_STEP lines): their sizes in bytes, sorted,
 * and the fused gradient's. */
static int preset_sizes(const char *preset, sim_list *sizes, long long *fused)
{
    FILE *f = rs_fopen_read(preset);
    RS_CHECK(f, "--preset: cannot open %s", preset);
    char line[4096], a[256], b[256], c[256];
    sizes->n = 0;
    *fused = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "#")] = 0;
        if (sscanf(line, "%255s %255s %255s", a, b, c) < 3)
            continue;
        long long s = (long long)(strtod(b, NULL) * 4);
        *fused += s;
        if (!in_list(sizes, s))
            push(sizes, s);
    }
    fclose(f);
    qsort(sizes->v, (size_t)sizes->n, sizeof sizes->v[0], by_size);
    return 0;
}

/* With a count that p divides, SMPI's lr is the ring, and so is segring when each chunk
 * is one segment: those sizes get a skip row (--skip-ring-repeats). */
static void drop_ring_repeats(sim_plan *pl, const char *algo, int p, sim_list *l)
{
    sim_list keep = {0};
    for (int i = 0; i < l->n; i++) {
        long long s = l->v[i], c = s / 4;
        if (c >= p && c % p == 0 && (strcmp(algo, "smpi:lr") == 0 || s / p <= 262144))
            add_skip(pl, p, algo, s, "not run: the ring's messages exactly (--skip-ring-repeats; the ring row's time)");
        else
            push(&keep, s);
    }
    *l = keep;
}

static void plan_jobs(const sim_opts *o, sim_plan *pl, const sim_list *preset)
{
    int ring = 0;
    for (int i = 0; i < o->nproject; i++)
        ring |= strcmp(o->project[i], "ring") == 0;
    for (int k = 0; k < o->nnodes; k++) {
        int p = o->nodes[k];
        if (p < 2)
            continue;
        const sim_list *sl = o->experiment ? preset : sim_sizes_for(o, p);
        /* buffers are real while every rank's send + receive + scratch + an SMPI
         * temporary fit the budget; larger sizes run folded (shared memory, unchecked) */
        sim_list real = {0}, folded = {0};
        for (int i = 0; i < sl->n; i++)
            push(4 * sl->v[i] * p <= o->budget ? &real : &folded, sl->v[i]);
        if (o->experiment) {   /* hier on the fused buffer; SMPI's default choice on every tensor */
            sim_list fused = {1, {pl->fused}};
            add_job(o, pl, p, "project", "hier", "hier", 4 * pl->fused * p > o->budget, &fused);
            add_job(o, pl, p, "smpi", "ompi", "library", 0, &real);
            add_job(o, pl, p, "smpi", "ompi", "library", 1, &folded);
            continue;
        }
        /* one simulation per algorithm: they then share the CPUs evenly */
        for (int a = 0; a < o->nproject + o->nsmpi; a++) {
            int smpi = a >= o->nproject;
            const char *n = smpi ? o->smpi[a - o->nproject] : o->project[a];
            char label[48];
            snprintf(label, sizeof label, "%s%s", smpi ? "smpi:" : "", n);
            if (strcmp(n, "rab1") == 0 && (p & (p - 1)) != 0) {
                add_skip(pl, p, label, -1, "rab1 aborts for a non-power-of-two p in SMPI 3.32: not run");
                continue;
            }
            sim_list r = real, f = folded;
            if (p >= 512 && ar_traffic_ringlike(n) && strcmp(n, "ordered") != 0) {
                r.n = f.n = 0;
                for (int i = 0; i < real.n + folded.n; i++) {
                    long long s = i < real.n ? real.v[i] : folded.v[i - real.n];
                    if (in_list(&o->ring, s))
                        push(in_list(&real, s) ? &r : &f, s);
                    else
                        add_skip(pl, p, label, s, "not run: ring-like at p >= 512 only at --sizes-ring "
                                 "(2p^2 simulated messages per call)");
                }
            }
            if (o->skip_repeats && ring && (strcmp(label, "segring") == 0 || strcmp(label, "smpi:lr") == 0)) {
                drop_ring_repeats(pl, label, p, &r);
                drop_ring_repeats(pl, label, p, &f);
            }
            add_job(o, pl, p, smpi ? "smpi" : "project", n, smpi ? "library" : n, 0, &r);
            add_job(o, pl, p, smpi ? "smpi" : "project", n, smpi ? "library" : n, 1, &f);
        }
    }
}

int sim_plan_make(const sim_opts *o, const char *work, int regenerate, int write, sim_plan *pl)
{
    memset(pl, 0, sizeof *pl);
    char dir[4300];
    snprintf(dir, sizeof dir, "%s/plat", work);
    RS_CHECK(rs_mkdir_p(dir) == 0, "cannot create %s: %s", dir, strerror(errno));
    snprintf(dir, sizeof dir, "%s/jobs", work);
    RS_CHECK(rs_mkdir_p(dir) == 0, "cannot create %s: %s", dir, strerror(errno));
    if (make_platforms(o, work, regenerate) != 0)
        return -1;
    param(o, work, "alpha_us", pl->alpha_us, sizeof pl->alpha_us);
    param(o, work, "node_gbytes_per_s", pl->link_gbs, sizeof pl->link_gbs);
    param(o, work, "reduce_gbytes_per_s", pl->reduce_gbs, sizeof pl->reduce_gbs);
    sim_list preset = {0};
    if (o->experiment && preset_sizes(o->preset, &preset, &pl->fused) != 0)
        return -1;
    plan_jobs(o, pl, &preset);
    return write ? sim_plan_write(o, pl, work) : 0;
}

void sim_plan_free(sim_plan *pl)
{
    free(pl->job);
    free(pl->skip);
    memset(pl, 0, sizeof *pl);
}

