/* bench_main.c — `allreduce-bench`: every allreduce of the registry, checked and timed
 * on real MPI (mpirun) or simulated (smpirun), per message size.
 *
 *   mpirun -np 4 build/bin/allreduce-bench                       # all, 4 B .. 256 MiB
 *   mpirun -np 4 build/bin/allreduce-bench --algo ring,library -m 1M:64M --mode both
 *   mpirun -np 4 build/bin/allreduce-bench --osu --algo library  # OSU's columns
 *
 * For each element type, timing mode, size and algorithm:
 *   1. check (unless --no-check), outside any timed region: inputs are a pure function
 *      of (seed, rank, index) with an exact closed-form result (ar_pattern.h), compared
 *      bitwise on every rank; the output of the last timed iteration is checked again
 *      (not in place); mismatching elements over all ranks are the `wrong` column;
 *      --timed-only skips that check but for a small first size (under a simulator,
 *      where a call takes the same time every time, it doubled the cost) and checks
 *      the timed output;
 *   2. warm-up, then iterations: OSU's defaults (1000 + 200 warm-up up to 8 KiB, 100 +
 *      10 above), capped like IMB by time (--max-time per row) and volume (2 GiB moved
 *      per row), never below 5; --iters / --warmup given are used exactly;
 *   3. timing: `isolated` puts an untimed barrier (ar_barrier: MPI_Barrier unless a
 *      simulator hooks its own) before every iteration and times each call alone;
 *      `backtoback` times consecutive calls with nothing between (what a training
 *      loop does); both are labelled in the `mode` column.  The algorithms'
 *      iterations alternate in ROUNDS rounds (measure_size), so that on a shared
 *      machine a slow spell hits every algorithm alike.
 * Per row: time_us_min/avg/max = min/mean/max over ranks of each rank's mean time per
 * call (OSU's min/avg/max); p50_us / p99_us = percentiles over iterations of the
 * slowest rank's time for that iteration (the collective's completion time).
 *
 * Bandwidth (nccl-tests' definitions, doc/PERFORMANCE.md), from the median p50_us:
 *   algbw = bytes / p50                  (GB/s, 10^9 bytes per second)
 *   busbw = algbw * 2(p-1)/p             (what each rank's link carries in a
 *                                         bandwidth-optimal allreduce: comparable
 *                                         across p and with link bandwidth)
 * model_us / model_hi_us = the algorithm's alpha-beta-gamma cost (its model_s, plus the
 * copy-in when not in place) with best-case / worst-case parameters measured at start
 * (bench_fit.c) or given; in_model_range = model_us <= p50_us <= model_hi_us;
 * model_ratio = p50_us / model_us.
 *
 * Bad input exits 2 with one line from rank 0, after every rank has seen the same
 * verdict: options are validated identically on every rank, and what only rank 0
 * checks (the --sizes file, output paths) is broadcast, then all ranks MPI_Finalize.
 * Exit 1 if any element was wrong. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allreduce.h"
#include "ar_hooks.h"
#include "ar_pattern.h"
#include "bench_sizes.h"
#include "bench_fit.h"
#include "bench_platform.h"
#include "check.h"
#include "fsio.h"
#include "meta.h"
#include "opts.h"
#include "progress.h"
#include "record.h"
#include "stats.h"

#define MAX_SIZES 64
#define MAX_ALGOS 32
#define DEFAULT_MIN 4L
#define SMALL_BYTES 8192          /* OSU's LARGE_MESSAGE_SIZE: defaults switch here */
#define MIN_ITERS 5               /* caps never go below this */
#define VOLUME_CAP (2.0 * (1L << 30)) /* bytes reduced per row, like IMB's OVERALL_VOL */

/* ---- options: one static struct, a line per field ---- */
static struct {
    rs_common_opts c;
    const char *algos;      /* --algo LIST|all */
    const char *msize;      /* --message-size / -m [MIN:]MAX */
    const char *sizes_file; /* --sizes FILE */
    const char *dtypes;     /* --dtype LIST */
    const char *op;         /* --op sum|max */
    int inplace;            /* --inplace: MPI_IN_PLACE */
    long iters, warmup;     /* --iters / --warmup (-1: OSU defaults with caps) */
    double max_time;        /* --max-time S per row */
    const char *mode;       /* --mode isolated|backtoback|both */
    long group_size;        /* --group-size G (hier, torus2d) */
    long segment;           /* --segment-size BYTES (segring) */
    const char *inner;      /* --inner NAME (hier) */
    long group_max;         /* --group-max G (hier) */
    long granule;           /* --granule N: reduce-scatter blocks in whole N elements */
    long seed;              /* --seed N for the checking inputs */
    int no_check;           /* --no-check */
    int timed_only;         /* --timed-only: no checked call before the timed ones */
    int osu;                /* --osu: OSU's output layout */
    double alpha_us;        /* --alpha-us: model latency (default: fitted) */
    double link_gbs;        /* --link-gbytes-per-s: 1/beta (default: fitted) */
    double reduce_gbs;      /* --reduce-gbytes-per-s: 1/gamma (default: fitted) */
    int list;               /* --list */
} opt = {.iters = -1, .warmup = -1, .seed = 1, .mode = "isolated", .op = "sum",
         .dtypes = "float", .max_time = 1.0};

static const rs_opt options[] = {
    {"algo", RS_OPT_STR, &opt.algos, "LIST", "algorithms, e.g. ring,library,library:4 or all (default all)", 0, 0},
    {"message-size", RS_OPT_STR, &opt.msize, "[MIN:]MAX", "sizes in bytes, doubling from MIN (also -m; default 4:256M)", 0, 0},
    {"sizes", RS_OPT_STR, &opt.sizes_file, "FILE", "sizes in bytes from FILE, one per line (4096, 64k, 1M; # comments)", 0, 0},
    {"dtype", RS_OPT_STR, &opt.dtypes, "LIST", "element types: float,double,int32 or all (default float)", 0, 0},
    {"op", RS_OPT_STR, &opt.op, "OP", "reduction: sum or max (default sum)", 0, 0},
    {"inplace", RS_OPT_FLAG, &opt.inplace, NULL, "reduce in place (MPI_IN_PLACE)", 0, 0},
    {"iters", RS_OPT_INT, &opt.iters, "N", "timed iterations per row, exactly (also -i; default OSU's, capped)", 1, 1e7},
    {"warmup", RS_OPT_INT, &opt.warmup, "N", "untimed iterations first, exactly (also -x; default OSU's, capped)", 0, 1e7},
    {"max-time", RS_OPT_DBL, &opt.max_time, "S", "cap default iterations to about S seconds per row (default 1; --quick 0.1)", 1e-3, 3600},
    {"mode", RS_OPT_STR, &opt.mode, "MODE", "isolated (barrier before each call), backtoback, or both", 0, 0},
    {"group-size", RS_OPT_INT, &opt.group_size, "G", "hier: ranks per group (default: the node); torus2d: row length", 1, 1 << 20},
    {"segment-size", RS_OPT_SIZE, &opt.segment, "BYTES", "segring: segment size (default 256k)", 1, 1L << 30},
    {"inner", RS_OPT_STR, &opt.inner, "NAME", "hier: allreduce among groups (default rabenseifner)", 0, 0},
    {"granule", RS_OPT_INT, &opt.granule, "N", "cut the reduce-scatter's blocks in whole granules of N elements, as rnn-train's exchange does (4096) (default 1)", 1, 1 << 30},
    {"group-max", RS_OPT_INT, &opt.group_max, "G", "hier: cut unequal or larger groups into equal ones of at most G ranks (default: never)", 1, 1 << 20},
    {"seed", RS_OPT_INT, &opt.seed, "N", "seed of the checking inputs (default 1)", 0, 1e18},
    {"no-check", RS_OPT_FLAG, &opt.no_check, NULL, "skip the correctness checks (not recommended)", 0, 0},
    {"timed-only", RS_OPT_FLAG, &opt.timed_only, NULL, "no checked call before timing (but for a first size <= 64 KiB): only the --warmup and --iters calls run, the last one checked (needs both; for a simulator)", 0, 0},
    {"osu", RS_OPT_FLAG, &opt.osu, NULL, "print OSU osu_allreduce's layout (-f): size, avg/min/max latency, iterations", 0, 0},
    {"alpha-us", RS_OPT_DBL, &opt.alpha_us, "US", "model: latency per message (default: ping-pong fit)", 1e-6, 1e9},
    {"link-gbytes-per-s", RS_OPT_DBL, &opt.link_gbs, "X", "model: link bandwidth, 1/beta (default: ping-pong fit)", 1e-6, 1e9},
    {"reduce-gbytes-per-s", RS_OPT_DBL, &opt.reduce_gbs, "X", "model: local reduction rate, 1/gamma (default: timed)", 1e-6, 1e9},
    {"list", RS_OPT_FLAG, &opt.list, NULL, "list the algorithms and their cost models, then exit", 0, 0},
    RS_COMMON_OPTS(opt.c),
};

static const char usage[] =
    "usage: mpirun -np P allreduce-bench [options]\n"
    "Checks, then times, every allreduce algorithm (ring, segring, recdbl, rabenseifner,\n"
    "binomial, hier, torus2d, library = MPI_Allreduce, library:K = Open MPI's algorithm K\n"
    "forced) per message size: min/avg/max over ranks, p50/p99 over iterations, algbw,\n"
    "busbw = algbw * 2(p-1)/p, and the alpha-beta-gamma model's prediction.\n"
    "Exit: 0 ok, 1 a result was wrong, 2 bad usage or input.";

/* ---- what to run ---- */
typedef struct {
    const ar_algo *algo;
    ar_params prm;
    char name[32];
    char plan_name[32], describe[160];  /* as its plan reported them (metadata) */
} selection;

static struct {
    int rank, p;
    selection sel[MAX_ALGOS];
    int nsel;
    ar_dtype dtypes[AR_NDTYPES];
    int ndtypes;
    ar_op op;
    int modes[2], nmodes;      /* 0 isolated, 1 backtoback */
    long sizes[MAX_SIZES];
    int nsizes;
    int ranks_per_node;
    ar_model_range model;
    char model_how[384];
} run;

static const char *mode_name(int m) { return m == 0 ? "isolated" : "backtoback"; }

/* ---- bad input: one line from rank 0, everyone finalizes, exit 2 ---- */
static void usage_exit(const char *msg)
{
    if (run.rank == 0)
        fprintf(stderr, "%s: %s\n", rs_progname(), msg);
    MPI_Finalize();
    exit(RS_EXIT_USAGE);
}

/* OSU users type -m 4:1M, -i 100, -x 10: translate them for the shared parser. */
static char **translate_short(int argc, char **argv)
{
    char **out = malloc(sizeof(char *) * (size_t)(argc + 1));
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        out[i] = argv[i];
        if (strcmp(a, "-m") == 0)
            out[i] = "--message-size";
        else if (strcmp(a, "-i") == 0)
            out[i] = "--iters";
        else if (strcmp(a, "-x") == 0)
            out[i] = "--warmup";
    }
    out[argc] = NULL;
    return out;
}

static int add_size(long bytes)
{
    RS_CHECK(run.nsizes < MAX_SIZES, "too many sizes (at most %d)", MAX_SIZES);
    for (int i = 0; i < run.nsizes; i++)
        if (run.sizes[i] == bytes)
            return 0;
    run.sizes[run.nsizes++] = bytes;
    return 0;
}

static int parse_range(const char *s, int quick)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    char *colon = strchr(buf, ':');
    long lo = DEFAULT_MIN, hi;
    if (colon) {
        *colon = 0;
        RS_CHECK(rs_parse_size(buf, &lo) == 0, "-m: '%s' is not a size (expected [MIN:]MAX like 4:1M)", buf);
    }
    const char *h = colon ? colon + 1 : buf;
    RS_CHECK(rs_parse_size(h, &hi) == 0, "-m: '%s' is not a size (expected [MIN:]MAX like 4:1M)", h);
    RS_CHECK(lo <= hi, "-m: MIN %ld is larger than MAX %ld (expected MIN:MAX like 4:1M)", lo, hi);
    RS_CHECK(hi <= SIZES_MAX_BYTES, "-m: %ld bytes is more than this benchmark runs (at most 2G)", hi);
    if (lo == 0) {
        add_size(0);
        lo = 1;
    }
    for (long b = lo; b <= hi && b > 0; b *= quick ? 4 : 2)
        if (add_size(b) != 0)
            return -1;
    return 0;
}

/* Rank 0 only: the file may exist on rank 0's node alone. */
static int read_sizes_file(const char *path)
{
    FILE *f = fopen(path, "r");
    RS_CHECK(f, "--sizes: cannot open %s", path);
    char *text = NULL;
    size_t cap = 0;
    ssize_t got = getdelim(&text, &cap, '\0', f);   /* the whole file, or up to a NUL */
    fclose(f);
    int rc = got > 0 && text[got - 1] == 0 ? -1 : 0;
    if (rc != 0)
        rs_seterr("--sizes: %s is not a text file (it holds a NUL byte)", path);
    else
        rc = sizes_parse(got > 0 ? text : "", path, run.sizes, MAX_SIZES, &run.nsizes);
    free(text);
    return rc;
}

static int add_selection(const char *name)
{
    selection s = {.prm = ar_params_default()};
    if (ar_algo_parse(name, &s.algo, &s.prm) != 0)
        return -1;
    if (opt.group_size > 0)
        s.prm.group_size = (int)opt.group_size;
    if (opt.segment > 0)
        s.prm.segment_bytes = opt.segment;
    if (opt.inner)
        s.prm.inner = opt.inner;
    if (opt.group_max > 0)
        s.prm.group_max = (int)opt.group_max;
    if (opt.granule > 0)
        s.prm.granule = (size_t)opt.granule;
    snprintf(s.name, sizeof s.name, "%s", name);
    for (int i = 0; i < run.nsel; i++)
        if (strcmp(run.sel[i].name, s.name) == 0)
            return 0;
    RS_CHECK(run.nsel < MAX_ALGOS, "--algo: too many algorithms (at most %d)", MAX_ALGOS);
    run.sel[run.nsel++] = s;
    return 0;
}

/* Everything decided from argv and p: identical on every rank. */
static int validate(void)
{
    char buf[512], *items[MAX_ALGOS];
    /* algorithms */
    snprintf(buf, sizeof buf, "%s", opt.algos ? opt.algos : "all");
    int n = rs_split_list(buf, items, MAX_ALGOS);
    RS_CHECK(n > 0, "--algo: empty list (expected e.g. ring,library or all)");
    for (int i = 0; i < n; i++) {
        if (strcmp(items[i], "all") == 0) {
            for (int k = 0; k < ar_registry_len; k++)
                if (add_selection(ar_registry[k]->name) != 0)
                    return -1;
        } else if (strncmp(items[i], "library:", 8) != 0 && !ar_algo_find(items[i])) {
            char names[512] = "";   /* here, unlike rnn-train's --allreduce, all is a choice */
            size_t len = 0;
            for (int k = 0; k < ar_registry_len && len < sizeof names; k++)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s, ", ar_registry[k]->name);
            RS_CHECK(0, "--algo: unknown algorithm '%s' (expected one of: %slibrary:K or all)",
                     items[i], names);
        } else if (add_selection(items[i]) != 0) {
            return -1;
        }
    }
    for (int i = 0; i < run.nsel; i++) {
        int k = run.sel[i].prm.library_alg;
        if (k == 0)
            continue;
        const char *lib = ar_library_algorithms();  /* MPI_T: ~0.2 s, so only if needed */
        RS_CHECK(lib, "--algo %s: forcing an algorithm needs Open MPI's coll/tuned; this MPI offers "
                   "only `library`", run.sel[i].name);
        int nalg = 1;
        for (const char *c = lib; *c; c++)
            nalg += *c == ',';
        RS_CHECK(k <= nalg, "--algo %s: Open MPI's coll/tuned has allreduce algorithms 1..%d (%s)",
              run.sel[i].name, nalg, lib);
    }
    if (opt.inner) {
        char names[256];
        ar_inner_names(names, sizeof names);
        RS_CHECK(ar_algo_inner_ok(ar_algo_find(opt.inner)), "--inner: '%s' is not an algorithm "
                 "hier can use among groups (expected one of: %s)", opt.inner, names);
    }
    /* types, operation, mode */
    const char *tnames[AR_NDTYPES];
    for (int i = 0; i < AR_NDTYPES; i++)
        tnames[i] = ar_dtype_name((ar_dtype)i);
    if (rs_list_check("dtype", "type", opt.dtypes, tnames, AR_NDTYPES) != 0)
        return -1;
    for (int i = 0; i < AR_NDTYPES; i++)  /* float, double, int32 order */
        if (rs_list_has(opt.dtypes, tnames[i]))
            run.dtypes[run.ndtypes++] = (ar_dtype)i;
    RS_CHECK(ar_op_from_name(opt.op, &run.op) == 0, "--op: unknown operation '%s' (expected sum or max)", opt.op);
    if (strcmp(opt.mode, "isolated") == 0)
        run.modes[run.nmodes++] = 0;
    else if (strcmp(opt.mode, "backtoback") == 0)
        run.modes[run.nmodes++] = 1;
    else if (strcmp(opt.mode, "both") == 0)
        run.modes[run.nmodes++] = 0, run.modes[run.nmodes++] = 1;
    else
        RS_CHECK(0, "--mode: unknown mode '%s' (expected isolated, backtoback or both)", opt.mode);
    /* topology */
    if (opt.group_size > 0)
        RS_CHECK(run.p % opt.group_size == 0, "--group-size %ld does not divide the %d ranks "
              "(hier and torus2d need equal groups; use a divisor of %d)", opt.group_size, run.p, run.p);
    RS_CHECK(!opt.timed_only || (opt.iters >= 0 && opt.warmup >= 0 && !opt.inplace),
             "--timed-only: give --iters and --warmup, without --inplace (the timed output is what is checked)");
    /* sizes */
    RS_CHECK(!(opt.msize && opt.sizes_file), "-m and --sizes: give one of them");
    if (!opt.sizes_file && parse_range(opt.msize ? opt.msize : opt.c.quick ? "4:1M" : "4:256M", opt.c.quick) != 0)
        return -1;
    return 0;
}

/* Rank 0's own checks, then everyone learns the verdict and the sizes. */
static void agree_on_input(int rc)
{
    char msg[512] = "";
    if (rc != 0)
        snprintf(msg, sizeof msg, "%s", rs_lasterr());
    int rc0 = rc;
    if (run.rank == 0 && rc0 == 0 && opt.sizes_file && read_sizes_file(opt.sizes_file) != 0)
        rc0 = -1;
    if (run.rank == 0 && rc0 == 0 && rs_common_check_outputs(&opt.c) != 0)
        rc0 = -1;
    if (run.rank == 0 && rc0 != 0 && rc == 0)
        snprintf(msg, sizeof msg, "%s", rs_lasterr());
    MPI_Bcast(&rc0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc0 != 0)
        usage_exit(msg);
    MPI_Bcast(&run.nsizes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(run.sizes, MAX_SIZES, MPI_LONG, 0, MPI_COMM_WORLD);
}

static long largest_size(void)
{
    long maxb = 0;
    for (int i = 0; i < run.nsizes; i++)
        maxb = run.sizes[i] > maxb ? run.sizes[i] : maxb;
    return maxb;
}

/* Memory per rank: send + receive buffers and up to one vector of scratch. */
static void check_memory(void)
{
    long maxb = largest_size();
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, run.rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &run.ranks_per_node);
    MPI_Comm_free(&node);
    int rpn = run.ranks_per_node;
    ar_bookkeeping_allreduce(MPI_IN_PLACE, &rpn, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    run.ranks_per_node = rpn;
    double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    ar_bookkeeping_allreduce(MPI_IN_PLACE, &mem, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    double need = 3.0 * (double)maxb * rpn;
    if (need > 0.8 * mem) {
        char msg[256];
        snprintf(msg, sizeof msg, "sizes up to %ld bytes need %.1f GiB on a node of %d ranks, more "
                 "than 80%% of its %.1f GiB (lower -m MAX)", maxb, need / (1 << 30), rpn, mem / (1 << 30));
        usage_exit(msg);
    }
}

/* ---- results ---- */
static const rs_col columns[] = {
    {"algo", RS_STR, 0},            {"p", RS_INT, 0},               {"bytes", RS_INT, 0},
    {"dtype", RS_STR, 0},           {"op", RS_STR, 0},              {"inplace", RS_INT, 0},
    {"mode", RS_STR, 0},            {"iters", RS_INT, 0},           {"time_us_avg", RS_DBL, 4},
    {"time_us_min", RS_DBL, 4},     {"time_us_max", RS_DBL, 4},     {"p50_us", RS_DBL, 4},
    {"p99_us", RS_DBL, 4},          {"algbw_gbytes_per_s", RS_DBL, 4}, {"busbw_gbytes_per_s", RS_DBL, 4},
    {"model_us", RS_DBL, 4},        {"model_hi_us", RS_DBL, 4},     {"model_ratio", RS_DBL, 3},
    {"in_model_range", RS_INT, 0},  {"wrong", RS_INT, 0},
};
static const char table_cols[] =
    "algo,bytes,dtype,mode,iters,time_us_avg,time_us_min,time_us_max,p50_us,p99_us,"
    "algbw_gbytes_per_s,busbw_gbytes_per_s,model_us,model_hi_us,in_model_range,wrong";

typedef struct {
    const char *algo;
    long bytes;
    ar_dtype dtype;
    int mode;
    long iters;
    double avg_us, min_us, max_us, p50_us, p99_us, model_us, model_hi_us;
    long long wrong;
} row;

static void add_row(rs_table *t, const row *r)
{
    int i = rs_table_row(t);
    rs_set_str(t, i, "algo", r->algo);
    rs_set_int(t, i, "p", run.p);
    rs_set_int(t, i, "bytes", r->bytes);
    rs_set_str(t, i, "dtype", ar_dtype_name(r->dtype));
    rs_set_str(t, i, "op", ar_op_name(run.op));
    rs_set_int(t, i, "inplace", opt.inplace);
    rs_set_str(t, i, "mode", mode_name(r->mode));
    rs_set_int(t, i, "iters", r->iters);
    rs_set_dbl(t, i, "time_us_avg", r->avg_us);
    rs_set_dbl(t, i, "time_us_min", r->min_us);
    rs_set_dbl(t, i, "time_us_max", r->max_us);
    rs_set_dbl(t, i, "p50_us", r->p50_us);
    rs_set_dbl(t, i, "p99_us", r->p99_us);
    if (r->p50_us > 0) {
        /* the one place bandwidths are derived (formula in the header comment) */
        double algbw = (double)r->bytes / (r->p50_us * 1e-6) / 1e9;
        rs_set_dbl(t, i, "algbw_gbytes_per_s", algbw);
        rs_set_dbl(t, i, "busbw_gbytes_per_s", algbw * 2.0 * (run.p - 1) / run.p);
    }
    if (r->model_us > 0) {
        rs_set_dbl(t, i, "model_us", r->model_us);
        rs_set_dbl(t, i, "model_hi_us", r->model_hi_us);
        rs_set_dbl(t, i, "model_ratio", r->p50_us / r->model_us);
        rs_set_int(t, i, "in_model_range", r->p50_us >= r->model_us && r->p50_us <= r->model_hi_us);
    }
    rs_set_int(t, i, "wrong", r->wrong);
}

/* ---- one size: check every algorithm, then time them in interleaved rounds ----
 * Rounds: each algorithm's iterations are split into ROUNDS chunks and the chunks of
 * all algorithms alternate (round 1: a b c, round 2: a b c, ...), so a slow spell of a
 * shared machine hits every algorithm alike instead of whichever ran then: the
 * comparison stays side by side.  One scratch buffer serves every plan
 * (ar_plan_reserve_in), so interleaving costs no memory. */
#define ROUNDS 5

typedef struct {
    char *send, *recv;  /* max-size buffers, first-touched by the checks */
    double *t_iter;     /* [nsel][max_iters]: per-iteration times of this rank */
    double *t_slow;     /* per-iteration maximum over ranks (rank 0) */
    long max_iters;
} buffers;

/* Time k calls: isolated = an untimed barrier before each; backtoback = one barrier,
 * then each call timed from the end of the previous one. */
static int timed_chunk(ar_plan *pl, const void *src, void *recv, size_t count, int mode, long k,
                       double *t)
{
    if (mode == 0) {
        for (long i = 0; i < k; i++) {
            ar_barrier(MPI_COMM_WORLD);
            double s = MPI_Wtime();
            if (ar_allreduce(pl, src, recv, count) != 0)
                return -1;
            t[i] = MPI_Wtime() - s;
        }
    } else {
        ar_barrier(MPI_COMM_WORLD);
        double prev = MPI_Wtime();
        for (long i = 0; i < k; i++) {
            if (ar_allreduce(pl, src, recv, count) != 0)
                return -1;
            double now = MPI_Wtime();
            t[i] = now - prev;
            prev = now;
        }
    }
    return 0;
}

/* Elements of recv that are wrong (0 with --no-check); one line per rank that found any. */
static long long check_output(ar_plan *pl, ar_dtype t, const char *recv, size_t count,
                              uint64_t seed, long bytes, const char *when)
{
    size_t first, bad = ar_pattern_check(recv, count, t, run.op, seed, run.p, &first);
    if (bad)
        fprintf(stderr, "%s: WRONG: %s %s %ld bytes%s, rank %d: %zu elements differ, first at "
                "[%zu]\n", rs_progname(), ar_plan_name(pl), ar_dtype_name(t), bytes, when,
                run.rank, bad, first);
    return (long long)bad;
}

/* One algorithm's warm-up calls, each timed; their median replaces *est (the checked
 * call's time, which capped their number). */
static int warm_up(ar_plan *pl, const void *src, buffers *b, size_t count, long bytes,
                   double *est)
{
    long warmup = opt.warmup;
    if (warmup < 0) {
        warmup = bytes <= SMALL_BYTES ? 200 : 10;
        double cap = *est > 0 ? 0.25 * opt.max_time / *est : 1e9;
        if (warmup > cap)
            warmup = cap > 1 ? (long)cap : 1;
    }
    if (warmup > b->max_iters)
        warmup = b->max_iters;
    for (long i = 0; i < warmup; i++) {
        double s = MPI_Wtime();
        if (ar_allreduce(pl, src, b->recv, count) != 0)
            return -1;
        b->t_slow[i] = MPI_Wtime() - s;
    }
    if (warmup > 0) {
        rs_stats st;
        rs_stats_compute(b->t_slow, (int)warmup, &st);
        *est = st.median;
    }
    return 0;
}

static int measure_size(ar_plan **plans, ar_dtype t, long bytes, int size_index, int mode,
                        buffers *b, row *rows)
{
    const int n = run.nsel;
    size_t es = ar_dtype_size(t), count = (size_t)bytes / es;
    const void *src = opt.inplace ? MPI_IN_PLACE : b->send;
    uint64_t seed = (uint64_t)opt.seed * 1000003u + (uint64_t)size_index;
    long long wrong[MAX_ALGOS] = {0};
    long iters[MAX_ALGOS], done[MAX_ALGOS] = {0};
    double est[MAX_ALGOS] = {0};

    /* 1. every algorithm checked once (its time is a first estimate); --timed-only keeps
     * it only for a first size of at most 64 KiB (a simulator's first small call of some
     * algorithms comes out up to 0.05% off), iterations being given and the last timed
     * output checked instead */
    static int first_done;  /* per rank (SMPI privatizes statics) */
    int precheck = !opt.timed_only || (!first_done && bytes <= 65536);
    first_done = 1;
    if (!opt.no_check && !opt.inplace)
        ar_pattern_fill(b->send, count, t, seed, run.rank);
    for (int a = 0; a < n && precheck; a++) {
        if (!opt.no_check) {
            if (opt.inplace)
                ar_pattern_fill(b->recv, count, t, seed, run.rank);
            else
                memset(b->recv, 0xA5, count * es);
        }
        ar_barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (ar_allreduce(plans[a], src, b->recv, count) != 0)
            return -1;
        est[a] = MPI_Wtime() - t0;
        if (!opt.no_check)
            wrong[a] += check_output(plans[a], t, b->recv, count, seed, bytes, "");
    }
    /* the slowest rank's estimate sizes the warm-up and the iterations, unless both are
     * given (a simulator's every agreement is p log p messages of its own time) */
    int need_est = opt.iters < 0 || opt.warmup < 0;
    if (need_est)
        ar_bookkeeping_allreduce(MPI_IN_PLACE, est, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    /* 2. warm-up: OSU's count capped by the checked call's time, each call timed; the
     * slowest rank's median warm-up call sizes the iterations (one call alone is a poor
     * estimate where ranks share cores) */
    for (int a = 0; a < n; a++)
        if (warm_up(plans[a], src, b, count, bytes, &est[a]) != 0)
            return -1;
    if (need_est)
        ar_bookkeeping_allreduce(MPI_IN_PLACE, est, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int a = 0; a < n; a++) {
        iters[a] = opt.iters;
        if (iters[a] < 0) {
            /* OSU's count, capped like IMB by time and by volume, never below MIN_ITERS */
            iters[a] = bytes <= SMALL_BYTES ? 1000 : 100;
            double cap_t = est[a] > 0 ? opt.max_time / est[a] : 1e9;
            double cap_v = bytes > 0 ? VOLUME_CAP / (double)bytes : 1e9;
            double cap = cap_t < cap_v ? cap_t : cap_v;
            if (iters[a] > cap)
                iters[a] = cap > MIN_ITERS ? (long)cap : MIN_ITERS;
        }
        RS_ASSERT(iters[a] <= b->max_iters);
    }

    /* 3. the timed rounds (no allocation, no checks inside a chunk); an algorithm's
     * last chunk's output is checked before the next algorithm overwrites it */
    for (int r = 0; r < ROUNDS; r++)
        for (int a = 0; a < n; a++) {
            long k = iters[a] / ROUNDS + (r < iters[a] % ROUNDS);
            if (k == 0)
                continue;
            if (done[a] == 0 && !precheck && !opt.no_check)  /* not the previous output */
                memset(b->recv, 0xA5, count * ar_dtype_size(t));
            if (timed_chunk(plans[a], src, b->recv, count, mode, k,
                            b->t_iter + (size_t)a * (size_t)b->max_iters + done[a]) != 0)
                return -1;
            done[a] += k;
            if (done[a] == iters[a] && !opt.no_check && !opt.inplace)
                wrong[a] += check_output(plans[a], t, b->recv, count, seed, bytes, " (after timing)");
        }

    /* 4. statistics over ranks and iterations */
    ar_bookkeeping_allreduce(MPI_IN_PLACE, wrong, n, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int a = 0; a < n; a++) {
        const double *ti = b->t_iter + (size_t)a * (size_t)b->max_iters;
        double sum = 0;
        for (long i = 0; i < iters[a]; i++)
            sum += ti[i];
        double mean = sum / (double)iters[a], lo, hi, tot;
        /* the books, not MPI_Reduce: a simulator's books cost no message */
        ar_bookkeeping_allreduce(&mean, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        ar_bookkeeping_allreduce(&mean, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        ar_bookkeeping_allreduce(&mean, &tot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        ar_bookkeeping_allreduce(ti, b->t_slow, (int)iters[a], MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        row *rw = &rows[a];
        rw->algo = ar_plan_name(plans[a]);
        rw->bytes = bytes;
        rw->dtype = t;
        rw->mode = mode;
        rw->iters = iters[a];
        rw->wrong = wrong[a];
        if (run.rank == 0) {
            rs_stats st;
            rs_stats_compute(b->t_slow, (int)iters[a], &st);
            rw->min_us = lo * 1e6;
            rw->max_us = hi * 1e6;
            rw->avg_us = tot / run.p * 1e6;
            rw->p50_us = st.median * 1e6;
            rw->p99_us = st.p99 * 1e6;
            rw->model_us = ar_plan_model_s(plans[a], &run.model.lo, (double)bytes, opt.inplace) * 1e6;
            rw->model_hi_us = ar_plan_model_s(plans[a], &run.model.hi, (double)bytes, opt.inplace) * 1e6;
        }
    }
    return 0;
}

/* ---- output ---- */
static double gbs(double s_per_byte) { return s_per_byte > 0 ? 1e-9 / s_per_byte : INFINITY; }

static void print_header(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = 0;
    char *comma = strchr(lib, ',');
    if (comma)
        *comma = 0;
    printf("# allreduce-bench: p=%d (%d per node), op %s, %s, check %s, seed %ld\n", run.p,
           run.ranks_per_node, ar_op_name(run.op), opt.inplace ? "in place" : "not in place",
           opt.no_check ? "off" : "on", opt.seed);
    printf("# MPI: %s\n", lib);
    const ar_model *lo = &run.model.lo, *hi = &run.model.hi;
    printf("# model lo: alpha %.3g us, link %.3g GB/s, reduce %.3g GB/s, copy %.3g GB/s, "
           "library scratch free\n"
           "# model hi: alpha %.3g us, link %.3g GB/s, reduce %.3g GB/s, copy %.3g GB/s, "
           "library scratch %.3g GB/s\n# (%s)\n",
           lo->alpha_s * 1e6, gbs(lo->beta_s_per_byte), gbs(lo->gamma_s_per_byte),
           gbs(lo->copy_s_per_byte), hi->alpha_s * 1e6, gbs(hi->beta_s_per_byte),
           gbs(hi->gamma_s_per_byte), gbs(hi->copy_s_per_byte), gbs(hi->scratch_s_per_byte),
           run.model_how);
    printf("# algbw = bytes / p50_us; busbw = algbw * 2(p-1)/p; in_model_range: model_us <= p50_us <= model_hi_us\n");
    fflush(stdout);
}

static void osu_block_header(const char *algo, int mode, ar_dtype t)
{
    printf("\n# OSU MPI Allreduce Latency Test (allreduce-bench: %s, %s, %s, p=%d)\n", algo,
           mode_name(mode), ar_dtype_name(t), run.p);
    printf("%-10s%18s%18s%18s%12s\n", "# Size", "Avg Latency(us)", "Min Latency(us)",
           "Max Latency(us)", "Iterations");
}

static void list_algorithms(void)
{
    printf("%-13s %-70s\n%13s cost: a = alpha, b = beta, g = gamma, n bytes, p ranks, p' = pof2(p)\n",
           "algorithm", "what", "");
    for (int i = 0; i < ar_registry_len; i++)
        printf("%-13s %s\n%13s cost: %s\n", ar_registry[i]->name, ar_registry[i]->summary, "",
               ar_registry[i]->cost);
    const char *lib = ar_library_algorithms();
    printf("library:K     %s\n", lib ? lib : "(not available: needs Open MPI's coll/tuned)");
}

static void fill_meta(rs_table *t, int argc, char **argv)
{
    char buf[512];
    rs_table_meta_std(t, argc, argv);
    int len;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = 0;
    rs_table_meta(t, "mpi", lib);
    snprintf(buf, sizeof buf, "%d", run.p);
    rs_table_meta(t, "p", buf);
    snprintf(buf, sizeof buf, "%d", run.ranks_per_node);
    rs_table_meta(t, "ranks_per_node", buf);
    snprintf(buf, sizeof buf, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    rs_table_meta(t, "cpus_rank0_node", buf);
    const ar_model *ends[2] = {&run.model.lo, &run.model.hi};
    const char *endname[2] = {"lo", "hi"};
    for (int e = 0; e < 2; e++) {
        char key[64];
        snprintf(key, sizeof key, "model_%s_alpha_us", endname[e]);
        snprintf(buf, sizeof buf, "%.6g", ends[e]->alpha_s * 1e6);
        rs_table_meta(t, key, buf);
        snprintf(key, sizeof key, "model_%s_link_gbytes_per_s", endname[e]);
        snprintf(buf, sizeof buf, "%.6g", gbs(ends[e]->beta_s_per_byte));
        rs_table_meta(t, key, buf);
        snprintf(key, sizeof key, "model_%s_reduce_gbytes_per_s", endname[e]);
        snprintf(buf, sizeof buf, "%.6g", gbs(ends[e]->gamma_s_per_byte));
        rs_table_meta(t, key, buf);
        snprintf(key, sizeof key, "model_%s_copy_gbytes_per_s", endname[e]);
        snprintf(buf, sizeof buf, "%.6g", gbs(ends[e]->copy_s_per_byte));
        rs_table_meta(t, key, buf);
        snprintf(key, sizeof key, "model_%s_library_scratch_gbytes_per_s", endname[e]);
        snprintf(buf, sizeof buf, "%.6g", gbs(ends[e]->scratch_s_per_byte));
        rs_table_meta(t, key, buf);
    }
    rs_table_meta(t, "model_source", run.model_how);
    snprintf(buf, sizeof buf, "%ld", opt.seed);
    rs_table_meta(t, "seed", buf);
    rs_table_meta(t, "check", opt.no_check ? "off" : "bitwise against the closed-form result (ar_pattern.h)");
    rs_table_meta(t, "busbw", "algbw * 2(p-1)/p; algbw = bytes / p50_us");
    rs_table_meta(t, "iterations", opt.iters >= 0 ? "as given (--iters)"
                  : "OSU defaults (1000/200 warm-up up to 8 KiB, 100/10 above), capped at "
                    "--max-time per row and 2 GiB per row, at least 5");
    snprintf(buf, sizeof buf, "%g", opt.max_time);
    rs_table_meta(t, "max_time_s", buf);
    for (int i = 0; i < run.nsel; i++)
        if (run.sel[i].plan_name[0]) {
            char key[64];
            snprintf(key, sizeof key, "algo_%s", run.sel[i].plan_name);
            rs_table_meta(t, key, run.sel[i].describe);
        }
    const char *la = ar_library_algorithms();
    if (la)
        rs_table_meta(t, "library_algorithms", la);
    rs_table_meta(t, "reduce_isa", ar_reduce_isa());
}

/* Does any argument ask for library:K?  Decided before MPI_Init, from argv alone. */
static int wants_forced_library(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strstr(argv[i], "library:"))
            return 1;
    return 0;
}

/* ---- main's steps ---- */

/* --help and --list are answered here (1: main finalizes and exits 0); otherwise the
 * parser's status goes to *rc. */
static int parse_options(int argc, char **args, int *rc)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(args[i], "--help") == 0 || strcmp(args[i], "-h") == 0) {
            if (run.rank == 0)
                rs_opts_usage(stdout, options, RS_ARRAY_LEN(options), usage);
            return 1;
        }
    *rc = rs_opts_parse(argc, args, options, RS_ARRAY_LEN(options), usage, NULL, NULL);
    if (*rc == 0 && opt.list) {
        if (run.rank == 0)
            list_algorithms();
        return 1;
    }
    return 0;
}

/* The model: fitted (or the platform's), then what the command line gives replaces
 * both ends of the range. */
static void fit_model(void)
{
    ar_fit_model(MPI_COMM_WORLD, run.dtypes[0], run.op, opt.c.quick, &run.model, run.model_how,
                 sizeof run.model_how);
    if (!(opt.alpha_us > 0 || opt.link_gbs > 0 || opt.reduce_gbs > 0))
        return;
    ar_model *ends[2] = {&run.model.lo, &run.model.hi};
    for (int e = 0; e < 2; e++) {
        if (opt.alpha_us > 0)
            ends[e]->alpha_s = opt.alpha_us * 1e-6;
        if (opt.link_gbs > 0)
            ends[e]->beta_s_per_byte = 1e-9 / opt.link_gbs;
        if (opt.reduce_gbs > 0)
            ends[e]->gamma_s_per_byte = 1e-9 / opt.reduce_gbs;
    }
    size_t n = strlen(run.model_how);
    snprintf(run.model_how + n, sizeof run.model_how - n, "; overridden by%s%s%s",
             opt.alpha_us > 0 ? " --alpha-us" : "", opt.link_gbs > 0 ? " --link-gbytes-per-s" : "",
             opt.reduce_gbs > 0 ? " --reduce-gbytes-per-s" : "");
}

/* The largest size's buffers, shared by every algorithm, and the rows of one element
 * type ([mode][size][algorithm]); exits 2 on every rank if any rank lacks the memory. */
static row *alloc_buffers(buffers *b)
{
    long maxb = largest_size(), max_iters = opt.iters > 1000 ? opt.iters : 1000;
    *b = (buffers){.max_iters = max_iters};
    b->send = ar_big_malloc((size_t)maxb + 64);
    b->recv = ar_big_malloc((size_t)maxb + 64);
    b->t_iter = malloc(sizeof(double) * (size_t)max_iters * (size_t)run.nsel);
    b->t_slow = malloc(sizeof(double) * (size_t)max_iters);
    row *rows = calloc((size_t)run.nmodes * (size_t)run.nsizes * (size_t)run.nsel, sizeof(row));
    int ok = b->send && b->recv && b->t_iter && b->t_slow && rows;
    ar_bookkeeping_allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok)
        usage_exit("out of memory for the message buffers (lower -m MAX)");
    /* touched once here; zeros (never denormals) when --no-check leaves them unset */
    ar_big_touch(b->send, (size_t)maxb + 64);
    ar_big_touch(b->recv, (size_t)maxb + 64);
    return rows;
}

static void free_buffers(buffers *b, row *rows)
{
    ar_big_free(b->send);
    ar_big_free(b->recv);
    free(b->t_iter);
    free(b->t_slow);
    free(rows);
}

static row *row_at(row *rows, int mi, int s, int a)
{
    return &rows[((size_t)mi * (size_t)run.nsizes + (size_t)s) * (size_t)run.nsel + (size_t)a];
}

/* Every algorithm's plan for type t and one scratch buffer they share (returned; the
 * caller frees it after the plans); exits 2 on every rank where that fails. */
static void *make_plans(ar_dtype t, size_t maxcount, ar_plan **plans)
{
    size_t need = 0;
    for (int a = 0; a < run.nsel; a++) {
        if (ar_plan_create(run.sel[a].algo, &run.sel[a].prm, MPI_COMM_WORLD, t, run.op, &plans[a]) != 0)
            usage_exit(rs_lasterr());  /* every rank has the same verdict */
        size_t s = ar_plan_scratch_bytes(plans[a], maxcount);
        need = s > need ? s : need;
        snprintf(run.sel[a].plan_name, sizeof run.sel[a].plan_name, "%s", ar_plan_name(plans[a]));
        snprintf(run.sel[a].describe, sizeof run.sel[a].describe, "%s", ar_plan_describe(plans[a]));
    }
    void *scratch = NULL;
    int rc = need && ar_big_memalign(&scratch, (need + 63) / 64 * 64) != 0 ? -1 : 0;
    for (int a = 0; a < run.nsel && rc == 0; a++)
        rc = ar_plan_reserve_in(plans[a], maxcount, scratch, need);
    ar_bookkeeping_allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rc != 0)
        usage_exit("out of memory for the algorithms' scratch (lower -m MAX)");
    return scratch;
}

/* Rank 0: one size's rows as a table block for people. */
static void print_block(row *rows, int mi, int s, long bytes, ar_dtype t, int mode)
{
    rs_table *block = rs_table_new("allreduce", columns, RS_ARRAY_LEN(columns));
    for (int a = 0; a < run.nsel; a++)
        add_row(block, row_at(rows, mi, s, a));
    rs_progress_done();
    printf("\n# %ld bytes, %s, %s\n", bytes, ar_dtype_name(t), mode_name(mode));
    rs_table_print(block, stdout, table_cols);
    fflush(stdout);
    rs_table_free(block);
}

/* Rank 0: one mode's rows into the file's table, algorithm by algorithm (one curve per
 * algorithm); with --osu, also OSU's blocks. */
static void add_file_rows(rs_table *all, row *rows, int mi, int mode, ar_dtype t)
{
    for (int a = 0; a < run.nsel; a++) {
        if (opt.osu) {
            rs_progress_done();
            osu_block_header(run.sel[a].plan_name, mode, t);
        }
        for (int s = 0; s < run.nsizes; s++) {
            const row *r = row_at(rows, mi, s, a);
            if (!r->algo)
                continue;
            add_row(all, r);
            if (opt.osu)
                printf("%-10ld%18.2f%18.2f%18.2f%12ld\n", r->bytes, r->avg_us, r->min_us,
                       r->max_us, r->iters);
        }
        fflush(stdout);
    }
}

/* One element type, every mode and size: measured, printed, kept in `all`.  Returns the
 * wrong elements; *done counts the progress line's steps. */
static long long run_type(ar_dtype t, buffers *b, row *rows, rs_table *all, int *done)
{
    size_t es = ar_dtype_size(t), maxcount = (size_t)largest_size() / es;
    ar_plan *plans[MAX_ALGOS];
    void *scratch = make_plans(t, maxcount, plans);
    long long wrong = 0;
    for (int mi = 0; mi < run.nmodes; mi++) {
        int mode = run.modes[mi];
        for (int s = 0; s < run.nsizes; s++) {
            long bytes = run.sizes[s] / (long)es * (long)es;
            if (run.rank == 0) {
                char label[96];
                snprintf(label, sizeof label, "%s %s %ld bytes", ar_dtype_name(t), mode_name(mode), bytes);
                rs_progress(*done, label);
            }
            (*done)++;
            if (bytes == 0 && run.sizes[s] != 0)
                continue;  /* smaller than one element */
            if (measure_size(plans, t, bytes, s, mode, b, row_at(rows, mi, s, 0)) != 0) {
                fprintf(stderr, "%s: rank %d: %s\n", rs_progname(), run.rank, rs_lasterr());
                MPI_Abort(MPI_COMM_WORLD, RS_EXIT_WRONG);
            }
            for (int a = 0; a < run.nsel; a++)
                wrong += row_at(rows, mi, s, a)->wrong;
            if (run.rank == 0 && !opt.osu)
                print_block(rows, mi, s, bytes, t, mode);
        }
        if (run.rank == 0)
            add_file_rows(all, rows, mi, mode, t);
        memset(row_at(rows, mi, 0, 0), 0, sizeof(row) * (size_t)run.nsizes * (size_t)run.nsel);
    }
    for (int a = 0; a < run.nsel; a++)
        ar_plan_free(plans[a]);
    ar_big_free(scratch);
    return wrong;
}

/* Rank 0 writes the files; every rank learns whether that worked (-1: it did not). */
static int write_files(rs_table *all, int argc, char **argv, long long wrong_total)
{
    int frc = 0;
    if (run.rank == 0) {
        /* Only rank 0 writes, and only now: a signal while writing removes the temporary
         * (fsio.h).  Earlier, the default action suits: nothing is half-written, and
         * mpirun's SIGTERM to ranks that are already finalizing stays silent. */
        rs_install_signal_handlers();
        fill_meta(all, argc, argv);
        if (opt.c.csv && rs_table_write_csv(all, opt.c.csv) != 0)
            frc = -1;
        if (frc == 0 && opt.c.json && rs_table_write_json(all, opt.c.json) != 0)
            frc = -1;
        if (frc != 0)
            fprintf(stderr, "%s: %s\n", rs_progname(), rs_lasterr());
        if (wrong_total)
            fprintf(stderr, "%s: %lld wrong elements in total: results are not to be trusted\n",
                    rs_progname(), wrong_total);
    }
    MPI_Bcast(&frc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return frc;
}

int main(int argc, char **argv)
{
    rs_set_progname("allreduce-bench");
    if (wants_forced_library(argc, argv))
        ar_library_prepare_env();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &run.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &run.p);
    if (ar_platform_start() != 0)  /* the build's hooks; every rank reads the same settings */
        usage_exit(rs_lasterr());

    char **args = translate_short(argc, argv);
    int rc = 0;
    if (parse_options(argc, args, &rc)) {
        MPI_Finalize();
        return RS_EXIT_OK;
    }
    if (opt.c.quick && opt.max_time == 1.0)
        opt.max_time = 0.1;
    if (rc == 0)
        rc = validate();
    agree_on_input(rc);
    check_memory();
    fit_model();
    if (run.rank == 0 && !opt.osu)
        print_header();

    buffers b;
    row *rows = alloc_buffers(&b);
    rs_table *all = rs_table_new("allreduce", columns, RS_ARRAY_LEN(columns));
    long long wrong_total = 0;
    int done = 0;
    if (run.rank == 0)
        rs_progress_begin(run.ndtypes * run.nmodes * run.nsizes);
    for (int d = 0; d < run.ndtypes; d++)
        wrong_total += run_type(run.dtypes[d], &b, rows, all, &done);
    if (run.rank == 0)
        rs_progress_done();

    int frc = write_files(all, argc, argv, wrong_total);
    rs_table_free(all);
    free_buffers(&b, rows);
    free(args);
    MPI_Finalize();
    return wrong_total ? RS_EXIT_WRONG : frc ? RS_EXIT_USAGE : RS_EXIT_OK;
}
