/* test_allreduce.c — the MPI correctness matrix for every allreduce in the registry,
 * run under mpirun by test/mpi/run.sh for p = 1..9, 13, 16.
 *
 * For each configuration (algorithm + parameters: segment sizes, group sizes, custom
 * unequal groups, inner algorithms, forced Open MPI algorithms), element type (float,
 * double, int32), operation (sum, max), count (0, 1, 2, p-1, p, p+1, 2p+1, 37, 1000,
 * 4099) and in-place or not:
 *   - the result is bitwise the closed-form answer (collectives/ar_pattern.h: small
 *     integers, so float and double sums are exact in any order);
 *   - nothing past `count` in the receive buffer is touched (a guard zone);
 *   - the send buffer is unchanged.
 * Then, per configuration, float sums of non-integer inputs (24-bit random in [-1, 1)):
 *   - within the summation bound of the exact (double) sum: |got - ref| <= p 2^-24
 *     sum_r |x_r|  (the stated tolerance; abs 0);
 *   - bitwise identical when repeated, and identical on every rank;
 *   - ordered: bitwise the canonical tree sum over ranks computed on one rank;
 *   - a hash of all of them is printed, so run.sh can compare two separate runs (auto
 *     left out: its choice per size is measured in each run);
 * Plus: a group size that does not divide p fails plan creation on every rank (no
 * hang); a count beyond the reserved scratch is refused; every ISA build of the local
 * reduction equals the portable one bit for bit (at p = 1; a build this CPU cannot
 * run is reported as skipped, by name).
 * Prints one summary line on rank 0; exit 1 if anything failed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allreduce.h"
#include "ar_pattern.h"
#include "check.h"

static int rank, P;
static long failures, cases;
static uint64_t results_hash = 1469598103934665603ull;  /* over the random-float results */

#define FAIL(...)                                                               \
    do {                                                                        \
        if (failures < 20) {                                                    \
            fprintf(stderr, "FAIL p=%d rank %d: ", P, rank);                    \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
        failures++;                                                             \
    } while (0)

/* ---- configurations ---- */
typedef struct {
    char label[64];
    const char *algo;
    ar_params prm;
} config;

/* Unequal groups, interleaved: rank r in group r % 3 (sizes differ unless 3 | p), so
 * the reordering and the fold of extra members both run. */
static int group_mod3(int r, int p, void *arg) { return r % 3; }
/* Two groups, the first one larger: ranks 0..ceil(p/2)-1 and the rest. */
static int group_halves(int r, int p, void *arg) { return r < (p + 1) / 2 ? 0 : 1; }

static int make_configs(config *c, int max, int have_tuned, int nalg)
{
    int n = 0;
#define ADD(ALGO, LABEL, ...)                                                   \
    do {                                                                        \
        if (n < max) {                                                          \
            c[n].algo = ALGO;                                                   \
            c[n].prm = ar_params_default();                                     \
            snprintf(c[n].label, sizeof c[n].label, "%s", LABEL);               \
            ar_params *pp = &c[n].prm;                                          \
            (void)pp;                                                           \
            __VA_ARGS__;                                                        \
            n++;                                                                \
        }                                                                       \
    } while (0)
    ADD("ring", "ring");
    ADD("segring", "segring");
    ADD("segring", "segring seg=8B", pp->segment_bytes = 8);
    ADD("segring", "segring seg=12B", pp->segment_bytes = 12);
    ADD("recdbl", "recdbl");
    ADD("rabenseifner", "rabenseifner");
    ADD("binomial", "binomial");
    ADD("hier", "hier (node)");
    for (int g = 2; g < P; g++)
        if (P % g == 0) {
            char l[64];
            snprintf(l, sizeof l, "hier G=%d", g);
            ADD("hier", l, pp->group_size = g);
        }
    if (P >= 2)
        ADD("hier", "hier G=1 inner=ring", pp->group_size = 1; pp->inner = "ring");
    ADD("hier", "hier groups=r%3", pp->group_of = group_mod3);
    ADD("hier", "hier groups=halves inner=recdbl", pp->group_of = group_halves; pp->inner = "recdbl");
    /* the library's cut (group_max): unequal or large groups into equal ones */
    ADD("hier", "hier groups=r%3 max=2", pp->group_of = group_mod3; pp->group_max = 2);
    ADD("hier", "hier groups=halves max=2", pp->group_of = group_halves; pp->group_max = 2);
    ADD("torus2d", "torus2d");
    for (int g = 2; g < P; g++)
        if (P % g == 0) {
            char l[64];
            snprintf(l, sizeof l, "torus2d C=%d", g);
            ADD("torus2d", l, pp->group_size = g);
        }
    ADD("ordered", "ordered");
    /* blocks in whole granules (what weight-update sharding asks for) */
    ADD("ring", "ring granule=16", pp->granule = 16);
    ADD("segring", "segring seg=12B granule=16", pp->segment_bytes = 12; pp->granule = 16);
    ADD("rabenseifner", "rabenseifner granule=16", pp->granule = 16);
    ADD("ordered", "ordered granule=16", pp->granule = 16);
    ADD("hier", "hier groups=r%3 granule=16", pp->group_of = group_mod3; pp->granule = 16);
    if (P % 2 == 0)
        ADD("hier", "hier G=2 inner=ring granule=16", pp->group_size = 2; pp->inner = "ring";
            pp->granule = 16);
    ADD("library", "library");
    ADD("auto", "auto");
    if (have_tuned)
        for (int k = 1; k < nalg; k++) {
            char l[64];
            snprintf(l, sizeof l, "library:%d", k);
            ADD("library", l, pp->library_alg = k);
        }
#undef ADD
    return n;
}

/* ---- buffers with a guard zone ---- */
enum { GUARD = 64 };  /* bytes after the data that must stay untouched */
static const unsigned char GUARD_BYTE = 0xA5;

static int guard_ok(const void *buf, size_t bytes)
{
    const unsigned char *g = (const unsigned char *)buf + bytes;
    for (int i = 0; i < GUARD; i++)
        if (g[i] != GUARD_BYTE)
            return 0;
    return 1;
}

/* 24-bit random floats in [-1, 1): sums of up to 2^29 of them are exact in double. */
static float rnd_float(uint64_t seed, int r, size_t i)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull ^ ((uint64_t)r << 40) ^ i;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)((double)(z >> 40) * 0x1p-23 - 1.0);
}

static uint64_t fnv(const void *b, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)b)[i]) * 1099511628211ull;
    return h;
}

/* ---- one plan: every count, in place and not ---- */
static void run_exact(ar_plan *pl, const config *c, ar_dtype t, ar_op op, const size_t *counts,
                      int ncounts, char *send, char *recv)
{
    size_t es = ar_dtype_size(t);
    for (int k = 0; k < ncounts; k++)
        for (int inplace = 0; inplace < 2; inplace++) {
            size_t n = counts[k], bytes = n * es;
            uint64_t seed = 1000 + k * 7 + (uint64_t)inplace;
            ar_pattern_fill(send, n, t, seed, rank);
            memset(send + bytes, GUARD_BYTE, GUARD);
            memset(recv, 0x5A, bytes);
            memset(recv + bytes, GUARD_BYTE, GUARD);
            if (inplace)
                memcpy(recv, send, bytes);
            cases++;
            if (ar_allreduce(pl, inplace ? MPI_IN_PLACE : send, recv, n) != 0) {
                FAIL("%s %s %s count=%zu%s: %s", c->label, ar_dtype_name(t), ar_op_name(op), n,
                     inplace ? " in-place" : "", rs_lasterr());
                continue;
            }
            size_t first;
            size_t bad = ar_pattern_check(recv, n, t, op, seed, P, &first);
            if (bad)
                FAIL("%s %s %s count=%zu%s: %zu wrong elements, first [%zu] want %g", c->label,
                     ar_dtype_name(t), ar_op_name(op), n, inplace ? " in-place" : "", bad, first,
                     ar_pattern_expect(seed, P, first, op));
            if (!guard_ok(recv, bytes))
                FAIL("%s %s %s count=%zu%s: wrote past the end of the receive buffer", c->label,
                     ar_dtype_name(t), ar_op_name(op), n, inplace ? " in-place" : "");
            if (!inplace) {
                /* the send buffer must still hold this rank's own pattern */
                char *orig = malloc(bytes + 1);
                ar_pattern_fill(orig, n, t, seed, rank);
                if (memcmp(orig, send, bytes) != 0 || !guard_ok(send, bytes))
                    FAIL("%s %s %s count=%zu: the send buffer was modified", c->label,
                         ar_dtype_name(t), ar_op_name(op), n);
                free(orig);
            }
        }
}

/* The canonical tree (allreduce_ordered.c) over ranks [lo, lo + n) at element i, written
 * from its definition: the binary digits of n from the highest give complete subtrees of
 * 2^j leaves (each the sum of its two halves), added as B1 + (B2 + (... + Bk)). */
static float tree_full(size_t i, int lo, int n)
{
    if (n == 1)
        return rnd_float(7, lo, i);
    return tree_full(i, lo, n / 2) + tree_full(i, lo + n / 2, n / 2);
}
static float tree_ref(size_t i, int lo, int n)
{
    int hi = 1;
    while (hi * 2 <= n)
        hi *= 2;
    if (hi == n)
        return tree_full(i, lo, n);
    return tree_full(i, lo, hi) + tree_ref(i, lo + hi, n - hi);
}

/* Float sums of non-integer inputs: tolerance, repeatability, agreement across ranks;
 * ordered's result bitwise the one-rank tree sum. */
static void run_float_determinism(ar_plan *pl, const config *c, size_t n, char *send, char *recv)
{
    float *x = (float *)send, *y = (float *)recv;
    float *first = malloc(n * sizeof(float) + 1);
    for (int rep = 0; rep < 2; rep++) {
        for (size_t i = 0; i < n; i++)
            x[i] = rnd_float(7, rank, i);
        cases++;
        if (ar_allreduce(pl, x, y, n) != 0) {
            FAIL("%s float sum random count=%zu: %s", c->label, n, rs_lasterr());
            free(first);
            return;
        }
        if (rep == 0) {
            memcpy(first, y, n * sizeof(float));
            size_t worst = n;
            double worst_err = 0;
            for (size_t i = 0; i < n; i++) {
                double ref = 0, mag = 0;
                for (int r = 0; r < P; r++) {
                    double v = rnd_float(7, r, i);
                    ref += v;
                    mag += fabs(v);
                }
                double err = fabs((double)y[i] - ref), tol = P * 0x1p-24 * mag;
                if (err > tol && err > worst_err) {
                    worst = i;
                    worst_err = err;
                }
            }
            if (worst < n)
                FAIL("%s float sum random count=%zu: error %.3g at [%zu] beyond p 2^-24 sum|x|",
                     c->label, n, worst_err, worst);
            if (strcmp(c->algo, "ordered") == 0) {
                size_t off = n, k = 0;
                for (size_t i = 0; i < n; i++) {
                    float want = tree_ref(i, 0, P);
                    if (memcmp(&want, &y[i], sizeof want) != 0)
                        off = off == n ? i : off, k++;
                }
                cases++;
                if (k)
                    FAIL("%s float sum random count=%zu: %zu elements differ from the tree sum on "
                         "one rank, first [%zu]", c->label, n, k, off);
            }
        } else if (memcmp(first, y, n * sizeof(float)) != 0) {
            FAIL("%s float sum random count=%zu: a repeated run gave different bits", c->label, n);
        }
    }
    /* every rank holds the same bits */
    uint64_t h = fnv(y, n * sizeof(float)), lo, hi;
    if (strcmp(c->algo, "auto") != 0)   /* its choice, hence its order, is timed afresh */
        results_hash = (results_hash ^ h) * 1099511628211ull;
    MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    cases++;
    if (lo != hi)
        FAIL("%s float sum random count=%zu: ranks hold different results", c->label, n);
    free(first);
}

/* ---- work between the phases (ar_allreduce_mid) ---- */
typedef struct {
    const float *want;   /* the plain allreduce's result */
    float *dst;          /* where the mid writes 2 want + 1 over its block */
    size_t off, len;
    int calls, block_ok;
} mid_probe;

static void *probe_mid(void *arg, void *buf, size_t off, size_t len)
{
    mid_probe *m = arg;
    const float *b = buf;
    m->calls++;
    m->off = off, m->len = len;
    m->block_ok = memcmp(b + off, m->want + off, len * sizeof(float)) == 0;
    for (size_t i = off; i < off + len; i++)
        m->dst[i] = 2 * m->want[i] + 1;
    int one = 1, all;   /* a collective in the middle: every rank must get here */
    MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return m->dst;
}

/* Every rank's mid sees its block of the plain result, once; the blocks tile the vector
 * on granule boundaries; every rank ends with every block the mids wrote. */
static void run_mid(ar_plan *pl, const config *c, size_t n, char *send, char *recv)
{
    cases++;
    if (!ar_plan_has_mid(pl)) {
        if (ar_allreduce_mid(pl, recv, n, probe_mid, NULL) == 0)
            FAIL("%s: ar_allreduce_mid ran without a middle to work in", c->label);
        return;
    }
    float *x = (float *)send, *want = malloc(n * sizeof(float) + 1);
    float *dst = malloc(n * sizeof(float) + 1);
    for (size_t i = 0; i < n; i++)
        x[i] = rnd_float(11, rank, i);
    if (ar_allreduce(pl, x, want, n) != 0) {
        FAIL("%s mid count=%zu: plain: %s", c->label, n, rs_lasterr());
        free(want), free(dst);
        return;
    }
    memcpy(recv, x, n * sizeof(float));
    memset(dst, 0xFF, n * sizeof(float));   /* NaN everywhere the gather misses */
    mid_probe m = {want, dst, 0, 0, 0, 0};
    if (ar_allreduce_mid(pl, recv, n, probe_mid, &m) != 0) {
        FAIL("%s mid count=%zu: %s", c->label, n, rs_lasterr());
        free(want), free(dst);
        return;
    }
    if (m.calls != 1 || !m.block_ok)
        FAIL("%s mid count=%zu: %d calls, block [%zu, +%zu) %s the plain result", c->label, n,
             m.calls, m.off, m.len, m.block_ok ? "equals" : "differs from");
    size_t g = c->prm.granule > 1 ? c->prm.granule : 1;
    if (m.len > 0 && m.off % g != 0)
        FAIL("%s mid count=%zu: block at %zu is not on a granule of %zu", c->label, n, m.off, g);
    long mine[2] = {(long)m.off, (long)m.len}, *all = malloc(sizeof(long) * 2 * (size_t)P);
    MPI_Allgather(mine, 2, MPI_LONG, all, 2, MPI_LONG, MPI_COMM_WORLD);
    long covered = 0;
    for (int r = 0; r < P; r++) {
        covered += all[2 * r + 1];
        for (int q = 0; q < r; q++)   /* non-empty blocks never overlap */
            if (all[2 * r + 1] && all[2 * q + 1] && all[2 * r] < all[2 * q] + all[2 * q + 1] &&
                all[2 * q] < all[2 * r] + all[2 * r + 1])
                FAIL("%s mid count=%zu: blocks of ranks %d and %d overlap", c->label, n, q, r);
    }
    if (covered != (long)n)
        FAIL("%s mid count=%zu: the blocks cover %ld elements", c->label, n, covered);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        float w = 2 * want[i] + 1;
        bad += memcmp(&w, &dst[i], sizeof w) != 0;
    }
    if (bad)
        FAIL("%s mid count=%zu: %zu elements of the gathered blocks are wrong", c->label, n, bad);
    free(all), free(want), free(dst);
}

/* ---- error paths: refused everywhere, nobody hangs ---- */
static void run_error_paths(void)
{
    if (P < 2)
        return;
    int bad_g = 0;
    for (int g = 2; g < P + 3 && !bad_g; g++)
        if (P % g != 0)
            bad_g = g;
    const char *names[] = {"hier", "torus2d"};
    for (int i = 0; i < 2; i++) {
        ar_params prm = ar_params_default();
        prm.group_size = bad_g;
        ar_plan *pl = NULL;
        cases++;
        if (ar_plan_create(ar_algo_find(names[i]), &prm, MPI_COMM_WORLD, AR_FLOAT, AR_SUM, &pl) == 0) {
            FAIL("%s --group-size %d with p=%d: plan created, expected a refusal", names[i], bad_g, P);
            ar_plan_free(pl);
        } else if (!strstr(rs_lasterr(), "does not divide")) {
            FAIL("%s bad group size: unexpected message '%s'", names[i], rs_lasterr());
        }
    }
    ar_params prm = ar_params_default();
    ar_plan *pl;
    cases++;
    if (ar_plan_create(ar_algo_find("ring"), &prm, MPI_COMM_WORLD, AR_INT32, AR_SUM, &pl) == 0) {
        ar_plan_reserve(pl, 4);
        int32_t b[8] = {0};
        if (ar_allreduce(pl, MPI_IN_PLACE, b, 8) == 0)
            FAIL("ring: count 8 beyond the 4 reserved was accepted");
        ar_plan_free(pl);
    }
}

/* The closed forms of ar_pattern against brute force. */
static void check_pattern_closed_form(void)
{
    if (rank != 0)
        return;
    const int ps[] = {1, 2, 3, 7, 16, 1020, 1021, 1022, 2100};
    for (int k = 0; k < (int)(sizeof ps / sizeof ps[0]); k++)
        for (size_t i = 0; i < 200; i++) {
            double s = 0, m = -1e9;
            for (int r = 0; r < ps[k]; r++) {
                double v = ar_pattern_value(3, r, i);
                s += v;
                m = v > m ? v : m;
            }
            cases++;
            if (s != ar_pattern_expect(3, ps[k], i, AR_SUM) || m != ar_pattern_expect(3, ps[k], i, AR_MAX)) {
                FAIL("ar_pattern_expect wrong at p=%d i=%zu", ps[k], i);
                return;
            }
        }
}

/* Each ISA build of the local reduction against the portable one, bit for bit: every
 * type and op, counts around the vector widths, values with NaN, infinities, signed
 * zeros, subnormals and int32 overflow mixed in. */
static void check_reduce_builds(void)
{
    if (rank != 0 || P != 1)
        return;
    enum { N = 1031 };
    static const double edge[] = {0.0, -0.0, 1.0, -1.0, 1e-310, -1e-40, 3e38, -3e38, 1e308};
    for (int k = 0; k < ar_nreduce_impls; k++) {
        const ar_reduce_impl *im = &ar_reduce_impls[k];
        if (im->run == ar_reduce_portable)
            continue;
        if (!rs_isa_supported(im->isa)) {
            printf("skipped: ar_reduce %s (this CPU lacks %s)\n", im->name, rs_isa_name(im->isa));
            continue;
        }
        long n_in = 0;
        for (int t = 0; t < AR_NDTYPES; t++)
            for (int op = 0; op < AR_NOPS; op++)
                for (size_t n = 0; n <= N; n += n < 40 ? 1 : 331) {
                    size_t sz = ar_dtype_size((ar_dtype)t);
                    char a[N * 8], b[N * 8], ref[N * 8];
                    for (size_t i = 0; i < n; i++) {
                        double x = rnd_float(11, 0, i) * 1e3, y = rnd_float(12, 1, i) * 1e3;
                        if (i % 7 == 3)
                            x = edge[i % 9];
                        if (i % 11 == 5)
                            y = i % 2 ? NAN : -INFINITY;
                        if (t == AR_FLOAT) {
                            float fx = (float)x, fy = (float)y;
                            memcpy(a + i * sz, &fx, sz);
                            memcpy(b + i * sz, &fy, sz);
                        } else if (t == AR_DOUBLE) {
                            memcpy(a + i * sz, &x, sz);
                            memcpy(b + i * sz, &y, sz);
                        } else {
                            int32_t ix = (int32_t)(i * 2654435761u), iy = (int32_t)(i * 40503u + 0x7ffffff0u);
                            memcpy(a + i * sz, &ix, sz);
                            memcpy(b + i * sz, &iy, sz);
                        }
                    }
                    memcpy(ref, a, n * sz);
                    ar_reduce_portable(ref, b, n, (ar_dtype)t, (ar_op)op);
                    im->run(a, b, n, (ar_dtype)t, (ar_op)op);
                    cases++;
                    n_in += (long)n;
                    if (memcmp(a, ref, n * sz) != 0)
                        FAIL("ar_reduce %s %s %s n=%zu differs from the portable build", im->name,
                             ar_dtype_name((ar_dtype)t), ar_op_name((ar_op)op), n);
                }
        printf("ar_reduce %s: equals the portable build bit for bit (%ld elements)\n", im->name, n_in);
    }
}

int main(int argc, char **argv)
{
    ar_library_prepare_env();  /* before MPI_Init: lets library:K force algorithms */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    rs_set_progname("test_allreduce");
    double t0 = MPI_Wtime();

    const char *algs = ar_library_algorithms();
    int nalg = 0;
    if (algs)
        for (const char *s = algs; *s; s++)
            nalg += *s == ',';
    nalg = algs ? nalg + 2 : 0;  /* "1 a, 2 b, ..., k z": k = commas + 1; plus 0 */
    /* Open MPI always lists its coll/tuned algorithms: without them library:K would go
     * untested unnoticed.  Other MPIs have no library:K; say so once. */
#ifdef OPEN_MPI
    if (!algs)
        FAIL("library:K: Open MPI gave no coll/tuned allreduce algorithm list (MPI_T)");
#else
    if (!algs && rank == 0)
        printf("library:K: not tested (this MPI is not Open MPI: no coll/tuned algorithms)\n");
#endif
    if (algs && rank == 0)
        printf("library:K: K = 1..%d of Open MPI coll/tuned (%s)\n", nalg - 1, algs);

    static config cfg[80];
    int ncfg = make_configs(cfg, 80, algs != NULL, nalg);
    size_t counts[16];
    int nc = 0;
    const size_t want[] = {0, 1, 2, (size_t)P - 1, (size_t)P, (size_t)P + 1, 2 * (size_t)P + 1, 37, 1000, 4099};
    for (int i = 0; i < (int)(sizeof want / sizeof want[0]); i++) {
        int dup = 0;
        for (int j = 0; j < nc; j++)
            dup |= counts[j] == want[i];
        if (!dup)
            counts[nc++] = want[i];
    }
    size_t maxn = 4099;
    char *send = malloc(maxn * 8 + GUARD), *recv = malloc(maxn * 8 + GUARD);

    check_pattern_closed_form();
    check_reduce_builds();
    for (int c = 0; c < ncfg; c++) {
        const ar_algo *a;
        ar_params prm = cfg[c].prm;
        if (ar_algo_parse(cfg[c].algo, &a, &prm) != 0) {
            FAIL("%s: %s", cfg[c].label, rs_lasterr());
            continue;
        }
        prm.library_alg = cfg[c].prm.library_alg;
        for (int t = 0; t < AR_NDTYPES; t++)
            for (int op = 0; op < AR_NOPS; op++) {
                ar_plan *pl;
                cases++;
                if (ar_plan_create(a, &prm, MPI_COMM_WORLD, (ar_dtype)t, (ar_op)op, &pl) != 0) {
                    FAIL("%s: plan: %s", cfg[c].label, rs_lasterr());
                    continue;
                }
                if (ar_plan_reserve(pl, maxn) != 0) {
                    FAIL("%s: reserve: %s", cfg[c].label, rs_lasterr());
                    ar_plan_free(pl);
                    continue;
                }
                run_exact(pl, &cfg[c], (ar_dtype)t, (ar_op)op, counts, nc, send, recv);
                if (t == AR_FLOAT && op == AR_SUM) {
                    run_float_determinism(pl, &cfg[c], 4099, send, recv);
                    run_float_determinism(pl, &cfg[c], (size_t)P + 1, send, recv);
                    for (int k = 0; k < nc; k++)
                        run_mid(pl, &cfg[c], counts[k], send, recv);
                }
                ar_plan_free(pl);
            }
    }
    run_error_paths();

    long tot_fail, tot_cases;
    MPI_Reduce(&failures, &tot_fail, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cases, &tot_cases, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi allreduce p=%-2d: %d configurations, %ld checks over all ranks, %ld failed (%.1f s); "
               "float results hash %016llx\n", P, ncfg, tot_cases, tot_fail, MPI_Wtime() - t0,
               (unsigned long long)results_hash);
    MPI_Bcast(&tot_fail, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    free(send);
    free(recv);
    MPI_Finalize();
    return tot_fail ? 1 : 0;
}
