/* simulate_opts.c — the options of `study simulate` (study simulate --help): parsed by
 * common/opts.c from one table (--opt VALUE or --opt=VALUE), then every value checked,
 * in the order the errors are reported, before anything is made.  A bad value is one
 * line (rs_lasterr), the caller prints it and exits 2. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "meta.h"
#include "opts.h"
#include "simulate.h"
#include "smpi_launch.h"
#include "study_def.h"

/* The project's algorithms simulate runs (collectives/allreduce.c's registry, but
 * ordered, a test oracle, and library, which is SMPI's own MPI_Allreduce here). */
static const char *const project_algos[] = {"ring", "segring", "recdbl", "rabenseifner",
                                            "binomial", "hier", "torus2d"};
/* SMPI 3.32 built-ins run by `--algo smpi`: the classic families (recursive doubling,
 * Rabenseifner, ring, SMP-aware, two-level, Open MPI's and MPICH's selections).  Any of
 * --cfg=smpi/allreduce:help works. */
static const char *const smpi_algos[] = {"rdb", "rab1", "rab_rdb", "lr", "smp_rsag", "ompi",
                                         "mpich", "mvapich2", "mvapich2_two_level"};
#define NPROJECT ((int)(sizeof project_algos / sizeof project_algos[0]))
#define NSMPI ((int)(sizeof smpi_algos / sizeof smpi_algos[0]))

static const char usage[] =
    "usage: study simulate [options]        (allreduce at scale under SimGrid SMPI)\n"
    "Exit: 0 ok, 1 a project algorithm gave a wrong result or could not be simulated\n"
    "(SMPI built-ins' failures are reported, not counted), 2 bad usage.";

long long sim_bytes_of(const char *s)
{
    size_t l = strlen(s);
    double m = 1;
    if (l > 0) {
        switch (s[l - 1]) {
        case 'k': case 'K': m = 1024; break;
        case 'm': case 'M': m = 1048576; break;
        case 'g': case 'G': m = 1073741824; break;
        }
    }
    if (m > 1)
        l--;
    if (l == 0 || strspn(s, "0123456789") < l || l > 15)
        return -1;
    return (long long)(strtod(s, NULL) * m);
}

/* A size list (LIST, MIN:MAX or MIN:MAX:F) into out; what: the option, for messages. */
static int expand_sizes(const char *spec, const char *what, sim_list *out)
{
    out->n = 0;
    const char *colon = strchr(spec, ':');
    if (colon) {
        char lo_s[64], hi_s[64];
        const char *rest = colon + 1, *c2 = strchr(rest, ':');
        snprintf(lo_s, sizeof lo_s, "%.*s", (int)(colon - spec), spec);
        snprintf(hi_s, sizeof hi_s, "%.*s", (int)(c2 ? c2 - rest : (long)strlen(rest)), rest);
        long long lo = sim_bytes_of(lo_s), hi = sim_bytes_of(hi_s);
        RS_CHECK(lo >= 1 && hi >= lo, "%s: '%s' is not MIN:MAX with 1 <= MIN <= MAX (e.g. 4:64M)", what, spec);
        const char *f = c2 ? c2 + 1 : "2";
        RS_CHECK(*f && f[strspn(f, "0123456789")] == 0 && strlen(f) < 10 && atol(f) >= 2,
                 "%s: '%s': the factor must be an integer >= 2", what, spec);
        for (double s = (double)lo; s <= (double)hi; s *= atol(f)) {
            RS_CHECK(out->n < SIM_MAXS, "%s: '%s' makes more than %d sizes", what, spec, SIM_MAXS);
            out->v[out->n++] = (long long)s;
        }
        return 0;
    }
    char copy[4096], *save;
    snprintf(copy, sizeof copy, "%s", spec);
    for (char *t = strtok_r(copy, ", \t\n", &save); t; t = strtok_r(NULL, ", \t\n", &save)) {
        long long b = sim_bytes_of(t);
        RS_CHECK(b >= 1, "%s: '%s' is not a size in bytes (e.g. 4, 64k, 1M)", what, t);
        RS_CHECK(out->n < SIM_MAXS, "%s: more than %d sizes", what, SIM_MAXS);
        out->v[out->n++] = b;
    }
    return 0;
}

static int is_uint(const char *s) { return *s && s[strspn(s, "0123456789")] == 0 && strlen(s) < 10; }

static int by_value(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static int parse_nodes(sim_opts *o)
{
    const char *arg = o->nodes_arg;
    if (!arg)
        arg = o->experiment ? "1,2,4,8,16,32,64,128,256,512,800"
              : o->quick    ? "4,16,64,256"
                            : "2,4,8,16,32,64,128,256,512,800,1024";
    char copy[4096], *save;
    snprintf(copy, sizeof copy, "%s", arg);
    o->nnodes = 0;
    for (char *t = strtok_r(copy, ", \t\n", &save); t; t = strtok_r(NULL, ", \t\n", &save)) {
        RS_CHECK(is_uint(t) && atoi(t) >= 1, "--nodes: '%s' is not a node count >= 1 (e.g. --nodes 2,64,800)", t);
        int p = atoi(t);
        RS_CHECK(p >= 2 || o->experiment, "--nodes: %d: an allreduce needs at least 2 nodes", p);
        RS_CHECK(p <= 32768, "--nodes: %d: more than the checking inputs support (32768)", p);
        RS_CHECK(o->nnodes < SIM_MAXN, "--nodes: more than %d node counts", SIM_MAXN);
        o->nodes[o->nnodes++] = p;
    }
    RS_CHECK(o->nnodes > 0, "--nodes: '%s' names no node count (e.g. --nodes 2,64,800)", arg);
    qsort(o->nodes, (size_t)o->nnodes, sizeof o->nodes[0], by_value);
    int n = 0;
    for (int i = 0; i < o->nnodes; i++)
        if (n == 0 || o->nodes[i] != o->nodes[n - 1])
            o->nodes[n++] = o->nodes[i];
    o->nnodes = n;
    o->maxp = o->nodes[n - 1];
    return 0;
}

static void add_name(char (*list)[32], int *n, const char *name)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(list[i], name) == 0)
            return;
    if (*n < SIM_MAXA)
        snprintf(list[(*n)++], 32, "%s", name);
}

static int parse_algos(sim_opts *o)
{
    char copy[4096], *save;
    snprintf(copy, sizeof copy, "%s", o->algos ? o->algos : "all");
    for (char *a = strtok_r(copy, ", \t\n", &save); a; a = strtok_r(NULL, ", \t\n", &save)) {
        int all = strcmp(a, "all") == 0, known = 0;
        if (all || strcmp(a, "project") == 0)
            for (int i = 0; i < NPROJECT; i++)
                add_name(o->project, &o->nproject, project_algos[i]);
        if (all || strcmp(a, "smpi") == 0)
            for (int i = 0; i < NSMPI; i++)
                add_name(o->smpi, &o->nsmpi, smpi_algos[i]);
        if (all || strcmp(a, "bound") == 0)
            o->bound = 1;
        if (all || strcmp(a, "project") == 0 || strcmp(a, "smpi") == 0 || strcmp(a, "bound") == 0)
            continue;
        if (strncmp(a, "smpi:", 5) == 0) {
            const char *n = a + 5;
            RS_CHECK(*n && n[strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789_")] == 0 && strlen(n) < 32,
                     "--algo: '%s' is not an SMPI algorithm name (e.g. smpi:rdb)", a);
            add_name(o->smpi, &o->nsmpi, n);
            continue;
        }
        RS_CHECK(strcmp(a, "library") != 0, "--algo: 'library' is SMPI's MPI_Allreduce here: name the "
                 "built-in, e.g. smpi:ompi (SMPI's default choice)");
        for (int i = 0; i < NPROJECT; i++)
            known |= strcmp(a, project_algos[i]) == 0;
        RS_CHECK(known, "--algo: unknown algorithm '%s' (expected one of: ring,segring,recdbl,rabenseifner,"
                 "binomial,hier,torus2d, smpi:NAME, bound, project, smpi, all)", a);
        add_name(o->project, &o->nproject, a);
    }
    if (o->experiment) {
        o->nproject = o->nsmpi = o->bound = 0;
        add_name(o->project, &o->nproject, "hier");
        add_name(o->smpi, &o->nsmpi, "ompi");
    }
    return 0;
}

static int oneof(const char *v, const char *a, const char *b, const char *c)
{
    return strcmp(v, a) == 0 || strcmp(v, b) == 0 || (c && strcmp(v, c) == 0);
}

/* Every value, in the order study simulate has always reported them. */
static int check(sim_opts *o, const char *jobs, const char *hier_max, const char *eager)
{
    RS_CHECK(oneof(o->platform, "taihulight", "fattree", "torus"),
             "--platform: unknown platform '%s' (expected taihulight, fattree or torus)", o->platform);
    RS_CHECK(oneof(o->placement, "consecutive", "roundrobin", "random"),
             "--placement: unknown placement '%s' (expected consecutive, roundrobin or random)", o->placement);
    RS_CHECK(oneof(o->hier_groups, "equal", "whole", NULL), "--hier-groups: '%s' (expected equal or whole)",
             o->hier_groups);
    RS_CHECK(!o->experiment || strcmp(o->experiment, "caffe") == 0,
             "--experiment: unknown experiment '%s' (expected caffe)", o->experiment);
    RS_CHECK(is_uint(jobs) && atoi(jobs) >= 1, "--jobs: '%s' is not a positive integer", jobs);
    RS_CHECK(is_uint(hier_max) && atoi(hier_max) >= 1, "--hier-max-group: '%s' is not a positive integer", hier_max);
    RS_CHECK((is_uint(o->seed_text) && atol(o->seed_text) >= 1) || strcmp(o->seed_text, "0") == 0,
             "--seed: '%s' is not an integer >= 0", o->seed_text);
    RS_CHECK(*eager && eager[strspn(eager, "0123456789")] == 0 && strlen(eager) < 16,
             "--eager-bytes: '%s' is not a size in bytes", eager);
    o->jobs = atoi(jobs);
    o->hier_max = atoi(hier_max);
    o->eager = atoll(eager);
    o->budget = sim_bytes_of(o->mem_budget);
    RS_CHECK(o->budget >= 0, "--mem-budget: '%s' is not a size (e.g. 2G)", o->mem_budget);
    if (o->reduce)
        RS_CHECK(o->reduce[strspn(o->reduce, "0123456789.eE+-")] == 0 && strtod(o->reduce, NULL) > 0,
                 "--reduce-gbytes-per-s: '%s' is not a rate > 0 (GB/s)", o->reduce);
    if (parse_nodes(o) != 0)
        return -1;
    if (expand_sizes(o->sizes ? o->sizes : o->quick ? "4,1k,64k,1M,4M" : "4:64M:4", "--sizes", &o->small) != 0 ||
        expand_sizes(o->sizes_large ? o->sizes_large : o->sizes ? o->sizes : o->quick ? "4,1k,64k,1M,4M" : "4:64M:4",
                     "--sizes-large", &o->large) != 0)
        return -1;
    for (int i = 0; i < o->nsizes_at; i++) {
        const char *spec = o->sizes_at[i], *colon = strchr(spec, ':');
        char p[32] = "";
        if (colon)
            snprintf(p, sizeof p, "%.*s", (int)(colon - spec), spec);
        RS_CHECK(colon && is_uint(p) && atoi(p) >= 1, "--sizes-at: '%s' is not P:LIST (e.g. 800:4,1M,64M)", spec);
        o->at_p[i] = atoi(p);
        if (expand_sizes(colon + 1, "--sizes-at", &o->at[i]) != 0)
            return -1;
    }
    o->ring = o->large;
    if (o->sizes_ring && expand_sizes(o->sizes_ring, "--sizes-ring", &o->ring) != 0)
        return -1;
    const sim_list *lists[SIM_MAXAT + 2] = {&o->small, &o->large};
    for (int i = 0; i < o->nsizes_at; i++)
        lists[2 + i] = &o->at[i];
    for (int l = 0; l < 2 + o->nsizes_at; l++)
        for (int i = 0; i < lists[l]->n; i++)
            RS_CHECK(lists[l]->v[i] <= 1073741824, "--sizes: %lld bytes is more than this driver simulates "
                     "(at most 1G)", lists[l]->v[i]);
    if (parse_algos(o) != 0)
        return -1;
    RS_CHECK(!o->experiment || access(o->preset, R_OK) == 0, "--preset: cannot open %s", o->preset);
    const char *out[2] = {o->csv, o->json};
    for (int i = 0; i < 2; i++) {
        if (!out[i])
            continue;
        RS_CHECK(access(out[i], F_OK) != 0, "%s exists; results are never overwritten (choose another name)", out[i]);
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", out[i]);
        char *slash = strrchr(dir, '/');
        if (slash)
            slash == dir ? (void)(dir[1] = 0) : (void)(*slash = 0);
        else
            snprintf(dir, sizeof dir, ".");
        RS_CHECK(access(dir, W_OK | X_OK) == 0, "cannot write %s (no such folder, or not writable)", out[i]);
    }
    return 0;
}

const sim_list *sim_sizes_for(const sim_opts *o, int p)
{
    for (int i = 0; i < o->nsizes_at; i++)
        if (o->at_p[i] == p)
            return &o->at[i];
    return p >= 512 ? &o->large : &o->small;
}

int sim_opts_parse(sim_opts *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->platform = "taihulight";
    o->placement = "consecutive";
    o->hier_groups = "equal";
    o->mem_budget = "2G";
    o->seed_text = "1";
    static char preset[4200];
    snprintf(preset, sizeof preset, "%s/scaling/sim/presets/caffe_lstm512.txt", study_root());
    o->preset = preset;
    const char *jobs = getenv("SIM_JOBS") && *getenv("SIM_JOBS") ? getenv("SIM_JOBS") : "2";
    const char *hier_max = "32", *eager = "65536";
    snprintf(o->cmdline, sizeof o->cmdline, "study ");   /* argv[0] is "simulate" */
    rs_command_line(argc, argv, o->cmdline + 6, sizeof o->cmdline - 6);
    /* every value as given (text: check() below says what is wrong with it) */
    rs_opt_strs sizes_at = {o->sizes_at, 0, SIM_MAXAT};
    const rs_opt options[] = {
        {"platform", RS_OPT_STR, &o->platform, "NAME", "taihulight (default), fattree or torus "
         "(scaling/sim/platforms/README.md)", 0, 0},
        {"nodes", RS_OPT_STR, &o->nodes_arg, "LIST", "node counts, one rank per node "
         "(default 2,4,8,...,512,800,1024)", 0, 0},
        {"sizes", RS_OPT_STR, &o->sizes, "LIST", "message sizes in bytes: 4,64k,1M or MIN:MAX (doubling) or "
         "MIN:MAX:F (times F); default 4:64M:4", 0, 0},
        {"sizes-large", RS_OPT_STR, &o->sizes_large, "LIST", "sizes for node counts >= 512 (default: --sizes)", 0, 0},
        {"sizes-at", RS_OPT_STRS, &sizes_at, "P:LIST", "the sizes at node count P alone (e.g. 800:4,1M,64M; "
         "default: the above; may be given for several P)", 0, 0},
        {"sizes-ring", RS_OPT_STR, &o->sizes_ring, "LIST", "of those, the sizes the ring-like algorithms (ring, "
         "segring, smpi:lr, smpi:smp_rsag) run at node counts >= 512 (default: all): they cost ~2p^2 simulated "
         "messages, 1.5-5 min of wall time per call at 800 nodes; the others get a row saying they were not run", 0, 0},
        {"algo", RS_OPT_STR, &o->algos, "LIST", "project algorithms (ring,segring,recdbl,rabenseifner,binomial,"
         "hier,torus2d), SMPI built-ins as smpi:NAME (smpi:rdb, smpi:lr, ...), bound, or the groups project, "
         "smpi, all (default all)", 0, 0},
        {"placement", RS_OPT_STR, &o->placement, "HOW", "consecutive (default), roundrobin or random "
         "(rank -> node order)", 0, 0},
        {"seed", RS_OPT_STR, &o->seed_text, "N", "seed of the random placement (default 1)", 0, 0},
        {"experiment", RS_OPT_STR, &o->experiment, "caffe", "the Sunway TaihuLight study's experiment instead: "
         "Caffe-style per-tensor, per-time-step allreduces (SMPI's default algorithm) against one fused "
         "allreduce with hier, for the LSTM-512 gradients (--preset FILE)", 0, 0},
        {"preset", RS_OPT_STR, &o->preset, "FILE", "the experiment's tensors (default "
         "scaling/sim/presets/caffe_lstm512.txt)", 0, 0},
        {"csv", RS_OPT_STR, &o->csv, "FILE", "write the results as CSV (never overwrites)", 0, 0},
        {"json", RS_OPT_STR, &o->json, "FILE", "write the results as JSON (never overwrites)", 0, 0},
        {"jobs", RS_OPT_STR, &jobs, "N", "simulations at once (default 2; each is one process)", 0, 0},
        {"reduce-gbytes-per-s", RS_OPT_STR, &o->reduce, "X", "the gamma model (default: the platform's, 30)", 0, 0},
        {"platform-args", RS_OPT_STR, &o->platform_args, "\"ARGS\"", "more platform-gen options "
         "(e.g. \"--oversubscription 8\")", 0, 0},
        {"hier-groups", RS_OPT_STR, &o->hier_groups, "HOW", "equal (default: platform groups cut to equal size) "
         "or whole", 0, 0},
        {"hier-max-group", RS_OPT_STR, &hier_max, "N", "equal groups of at most N ranks (default 32; "
         "allreduce-bench --group-max)", 0, 0},
        {"eager-bytes", RS_OPT_STR, &eager, "N", "messages up to N bytes go eagerly, without waiting for the "
         "receiver (smpi/async-small-thresh; default 65536)", 0, 0},
        {"mem-budget", RS_OPT_STR, &o->mem_budget, "BYTES", "real (checked) buffers allowed in all ranks "
         "together; larger sizes are folded and not checked (default 2G)", 0, 0},
        {"skip-ring-repeats", RS_OPT_FLAG, &o->skip_repeats, NULL, "leave out segring and smpi:lr where they "
         "send the ring's messages exactly (a count p divides; segring with one segment per chunk): a row says "
         "so (with ring in --algo)", 0, 0},
        {"quick", RS_OPT_FLAG, &o->quick, NULL, "a few small points (smoke test)", 0, 0},
        {"keep", RS_OPT_STR, &o->keep, "DIR", "keep the work folder (platforms, logs) in DIR", 0, 0},
        {"plan", RS_OPT_FLAG, &o->plan, NULL, "with --keep: write the platforms and the simulations to run "
         "there, run none (make simulate schedules every part's together)", 0, 0},
        {"run-job", RS_OPT_STR, &o->run_ids, "ID[,ID]", "with --keep: run those simulations of a planned folder "
         "(exit 1 when none of them gave a row)", 0, 0},
        {"collect", RS_OPT_FLAG, &o->collect, NULL, "with --keep and the options given to --plan: the table, "
         "CSV, JSON and summary from the simulations that ran", 0, 0},
    };
    int rc = rs_opts_parse(argc, argv, options, RS_ARRAY_LEN(options), usage, NULL, NULL);
    o->nsizes_at = sizes_at.n;
    if (rc != 0)
        return rc;
    if (check(o, jobs, hier_max, eager) != 0)
        return -1;
    RS_CHECK(!(o->plan || o->run_ids || o->collect) || o->keep,
             "--plan, --run-job and --collect need --keep DIR (the planned folder)");
    if (o->keep && smpi_path_ok(o->keep, "--keep") != 0)   /* its platforms and logs go to smpirun */
        return -1;
    RS_CHECK(!o->run_ids || o->run_ids[strspn(o->run_ids, "abcdefghijklmnopqrstuvwxyz0123456789,")] == 0,
             "--run-job: '%s' is not a list of simulation ids (e.g. j0001,j0002)", o->run_ids);
    return 0;
}
