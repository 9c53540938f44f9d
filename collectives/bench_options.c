/* bench_options.c — the options of `allreduce-bench` (its --help): the table (common/opts.c
 * parses it), OSU's short spellings, and every check of the input, before any message
 * is sent.  Kept apart from the measurement (bench_measure.c) and the output
 * (bench_output.c) so that what a command line means is read in one place.
 *
 * Bad input exits 2 with one line from rank 0, after every rank has seen the same
 * verdict: options are validated identically on every rank, and what only rank 0
 * checks (the --sizes file, output paths) is broadcast, then all ranks MPI_Finalize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allreduce.h"
#include "bench_sizes.h"
#include "bench_state.h"
#include "check.h"
#include "opts.h"

#define DEFAULT_MIN 4L

/* ---- options: the defaults here, the fields in bench_state.h ---- */
bench_options bench_opt = {.iters = -1, .warmup = -1, .seed = 1, .mode = "isolated", .op = "sum",
                           .dtypes = "float", .max_time = 1.0};

static const rs_opt options[] = {
    {"algo", RS_OPT_STR, &bench_opt.algos, "LIST", "algorithms, e.g. ring,library,library:4 or all (default all)", 0, 0},
    {"message-size", RS_OPT_STR, &bench_opt.msize, "[MIN:]MAX", "sizes in bytes, doubling from MIN (also -m; default 4:256M)", 0, 0},
    {"sizes", RS_OPT_STR, &bench_opt.sizes_file, "FILE", "sizes in bytes from FILE, one per line (4096, 64k, 1M; # comments)", 0, 0},
    {"dtype", RS_OPT_STR, &bench_opt.dtypes, "LIST", "element types: float,double,int32 or all (default float)", 0, 0},
    {"op", RS_OPT_STR, &bench_opt.op, "OP", "reduction: sum or max (default sum)", 0, 0},
    {"inplace", RS_OPT_FLAG, &bench_opt.inplace, NULL, "reduce in place (MPI_IN_PLACE)", 0, 0},
    {"iters", RS_OPT_INT, &bench_opt.iters, "N", "timed iterations per row, exactly (also -i; default OSU's, capped)", 1, 1e7},
    {"warmup", RS_OPT_INT, &bench_opt.warmup, "N", "untimed iterations first, exactly (also -x; default OSU's, capped)", 0, 1e7},
    {"max-time", RS_OPT_DBL, &bench_opt.max_time, "S", "cap default iterations to about S seconds per row (default 1; --quick 0.1)", 1e-3, 3600},
    {"mode", RS_OPT_STR, &bench_opt.mode, "MODE", "isolated (barrier before each call), backtoback, or both", 0, 0},
    {"group-size", RS_OPT_INT, &bench_opt.group_size, "G", "hier: ranks per group (default: the node); torus2d: row length", 1, 1 << 20},
    {"segment-size", RS_OPT_SIZE, &bench_opt.segment, "BYTES", "segring: segment size (default 256k)", 1, 1L << 30},
    {"inner", RS_OPT_STR, &bench_opt.inner, "NAME", "hier: allreduce among groups (default rabenseifner)", 0, 0},
    {"granule", RS_OPT_INT, &bench_opt.granule, "N", "cut the reduce-scatter's blocks in whole granules of N elements, as rnn-train's exchange does (4096) (default 1)", 1, 1 << 30},
    {"group-max", RS_OPT_INT, &bench_opt.group_max, "G", "hier: cut unequal or larger groups into equal ones of at most G ranks (default: never)", 1, 1 << 20},
    {"seed", RS_OPT_INT, &bench_opt.seed, "N", "seed of the checking inputs (default 1)", 0, 1e18},
    {"no-check", RS_OPT_FLAG, &bench_opt.no_check, NULL, "skip the correctness checks (not recommended)", 0, 0},
    {"timed-only", RS_OPT_FLAG, &bench_opt.timed_only, NULL, "no checked call before timing (but for a first size <= 64 KiB): only the --warmup and --iters calls run, the last one checked (needs both; for a simulator)", 0, 0},
    {"osu", RS_OPT_FLAG, &bench_opt.osu, NULL, "print OSU osu_allreduce's layout (-f): size, avg/min/max latency, iterations", 0, 0},
    {"alpha-us", RS_OPT_DBL, &bench_opt.alpha_us, "US", "model: latency per message (default: ping-pong fit)", 1e-6, 1e9},
    {"link-gbytes-per-s", RS_OPT_DBL, &bench_opt.link_gbs, "X", "model: link bandwidth, 1/beta (default: ping-pong fit)", 1e-6, 1e9},
    {"reduce-gbytes-per-s", RS_OPT_DBL, &bench_opt.reduce_gbs, "X", "model: local reduction rate, 1/gamma (default: timed)", 1e-6, 1e9},
    {"list", RS_OPT_FLAG, &bench_opt.list, NULL, "list the algorithms and their cost models, then exit", 0, 0},
    RS_COMMON_OPTS(bench_opt.c),
};

static const char usage[] =
    "usage: mpirun -np P allreduce-bench [options]\n"
    "Checks, then times, every allreduce algorithm (ring, segring, recdbl, rabenseifner,\n"
    "binomial, hier, torus2d, library = MPI_Allreduce, library:K = Open MPI's algorithm K\n"
    "forced) per message size: min/avg/max over ranks, p50/p99 over iterations, algbw,\n"
    "busbw = algbw * 2(p-1)/p, and the alpha-beta-gamma model's prediction.\n"
    "Exit: 0 ok, 1 a result was wrong, 2 bad usage or input.";

/* ---- bad input: one line from rank 0, everyone finalizes, exit 2 ---- */
void bench_usage_exit(const char *msg)
{
    if (bench_run.rank == 0)
        fprintf(stderr, "%s: %s\n", rs_progname(), msg);
    MPI_Finalize();
    exit(RS_EXIT_USAGE);
}

/* ---- parsing ---- */

/* Does any argument ask for library:K?  Decided before MPI_Init, from argv alone. */
int bench_wants_forced_library(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strstr(argv[i], "library:"))
            return 1;
    return 0;
}

/* OSU users type -m 4:1M, -i 100, -x 10: translate them for the shared parser. */
char **bench_translate_short(int argc, char **argv)
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

/* --help and --list are answered here (1: main finalizes and exits 0); otherwise the
 * parser's status goes to *rc. */
int bench_parse_options(int argc, char **args, int *rc)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(args[i], "--help") == 0 || strcmp(args[i], "-h") == 0) {
            if (bench_run.rank == 0)
                rs_opts_usage(stdout, options, RS_ARRAY_LEN(options), usage);
            return 1;
        }
    *rc = rs_opts_parse(argc, args, options, RS_ARRAY_LEN(options), usage, NULL, NULL);
    if (*rc == 0 && bench_opt.list) {
        if (bench_run.rank == 0)
            bench_list_algorithms();
        return 1;
    }
    return 0;
}

/* ---- checking: everything decided from argv and p, then rank 0's own checks ---- */

static int add_size(long bytes)
{
    RS_CHECK(bench_run.nsizes < MAX_SIZES, "too many sizes (at most %d)", MAX_SIZES);
    for (int i = 0; i < bench_run.nsizes; i++)
        if (bench_run.sizes[i] == bytes)
            return 0;
    bench_run.sizes[bench_run.nsizes++] = bytes;
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
        rc = sizes_parse(got > 0 ? text : "", path, bench_run.sizes, MAX_SIZES, &bench_run.nsizes);
    free(text);
    return rc;
}

static int add_selection(const char *name)
{
    selection s = {.prm = ar_params_default()};
    if (ar_algo_parse(name, &s.algo, &s.prm) != 0)
        return -1;
    if (bench_opt.group_size > 0)
        s.prm.group_size = (int)bench_opt.group_size;
    if (bench_opt.segment > 0)
        s.prm.segment_bytes = bench_opt.segment;
    if (bench_opt.inner)
        s.prm.inner = bench_opt.inner;
    if (bench_opt.group_max > 0)
        s.prm.group_max = (int)bench_opt.group_max;
    if (bench_opt.granule > 0)
        s.prm.granule = (size_t)bench_opt.granule;
    snprintf(s.name, sizeof s.name, "%s", name);
    for (int i = 0; i < bench_run.nsel; i++)
        if (strcmp(bench_run.sel[i].name, s.name) == 0)
            return 0;
    RS_CHECK(bench_run.nsel < MAX_ALGOS, "--algo: too many algorithms (at most %d)", MAX_ALGOS);
    bench_run.sel[bench_run.nsel++] = s;
    return 0;
}

/* Everything decided from argv and p: identical on every rank. */
int bench_validate(void)
{
    char buf[512], *items[MAX_ALGOS];
    /* algorithms */
    snprintf(buf, sizeof buf, "%s", bench_opt.algos ? bench_opt.algos : "all");
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
    for (int i = 0; i < bench_run.nsel; i++) {
        int k = bench_run.sel[i].prm.library_alg;
        if (k == 0)
            continue;
        const char *lib = ar_library_algorithms();  /* MPI_T: ~0.2 s, so only if needed */
        RS_CHECK(lib, "--algo %s: forcing an algorithm needs Open MPI's coll/tuned; this MPI offers "
                   "only `library`", bench_run.sel[i].name);
        int nalg = 1;
        for (const char *c = lib; *c; c++)
            nalg += *c == ',';
        RS_CHECK(k <= nalg, "--algo %s: Open MPI's coll/tuned has allreduce algorithms 1..%d (%s)",
              bench_run.sel[i].name, nalg, lib);
    }
    if (bench_opt.inner) {
        char names[256];
        ar_inner_names(names, sizeof names);
        RS_CHECK(ar_algo_inner_ok(ar_algo_find(bench_opt.inner)), "--inner: '%s' is not an algorithm "
                 "hier can use among groups (expected one of: %s)", bench_opt.inner, names);
    }
    /* types, operation, mode */
    const char *tnames[AR_NDTYPES];
    for (int i = 0; i < AR_NDTYPES; i++)
        tnames[i] = ar_dtype_name((ar_dtype)i);
    if (rs_list_check("dtype", "type", bench_opt.dtypes, tnames, AR_NDTYPES) != 0)
        return -1;
    for (int i = 0; i < AR_NDTYPES; i++)  /* float, double, int32 order */
        if (rs_list_has(bench_opt.dtypes, tnames[i]))
            bench_run.dtypes[bench_run.ndtypes++] = (ar_dtype)i;
    RS_CHECK(ar_op_from_name(bench_opt.op, &bench_run.op) == 0,
             "--op: unknown operation '%s' (expected sum or max)", bench_opt.op);
    if (strcmp(bench_opt.mode, "isolated") == 0)
        bench_run.modes[bench_run.nmodes++] = 0;
    else if (strcmp(bench_opt.mode, "backtoback") == 0)
        bench_run.modes[bench_run.nmodes++] = 1;
    else if (strcmp(bench_opt.mode, "both") == 0)
        bench_run.modes[bench_run.nmodes++] = 0, bench_run.modes[bench_run.nmodes++] = 1;
    else
        RS_CHECK(0, "--mode: unknown mode '%s' (expected isolated, backtoback or both)", bench_opt.mode);
    /* topology */
    if (bench_opt.group_size > 0)
        RS_CHECK(bench_run.p % bench_opt.group_size == 0, "--group-size %ld does not divide the %d ranks "
              "(hier and torus2d need equal groups; use a divisor of %d)", bench_opt.group_size, bench_run.p,
              bench_run.p);
    RS_CHECK(!bench_opt.timed_only || (bench_opt.iters >= 0 && bench_opt.warmup >= 0 && !bench_opt.inplace),
             "--timed-only: give --iters and --warmup, without --inplace (the timed output is what is checked)");
    /* sizes */
    RS_CHECK(!(bench_opt.msize && bench_opt.sizes_file), "-m and --sizes: give one of them");
    const char *range = bench_opt.msize ? bench_opt.msize : bench_opt.c.quick ? "4:1M" : "4:256M";
    if (!bench_opt.sizes_file && parse_range(range, bench_opt.c.quick) != 0)
        return -1;
    return 0;
}

/* Rank 0's own checks, then everyone learns the verdict and the sizes. */
void bench_agree_on_input(int rc)
{
    char msg[512] = "";
    if (rc != 0)
        snprintf(msg, sizeof msg, "%s", rs_lasterr());
    int rc0 = rc;
    if (bench_run.rank == 0 && rc0 == 0 && bench_opt.sizes_file && read_sizes_file(bench_opt.sizes_file) != 0)
        rc0 = -1;
    if (bench_run.rank == 0 && rc0 == 0 && rs_common_check_outputs(&bench_opt.c) != 0)
        rc0 = -1;
    if (bench_run.rank == 0 && rc0 != 0 && rc == 0)
        snprintf(msg, sizeof msg, "%s", rs_lasterr());
    MPI_Bcast(&rc0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc0 != 0)
        bench_usage_exit(msg);
    MPI_Bcast(&bench_run.nsizes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(bench_run.sizes, MAX_SIZES, MPI_LONG, 0, MPI_COMM_WORLD);
}
