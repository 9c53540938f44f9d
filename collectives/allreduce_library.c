/* allreduce_library.c — the MPI library's own MPI_Allreduce, as `library`, and with
 * Open MPI each coll/tuned algorithm forced, as `library:K` (Open MPI 4.1's coll/tuned: 1
 * basic_linear, 2 nonoverlapping, 3 recursive_doubling, 4 ring, 5 segmented_ring,
 * 6 rabenseifner in 4.1).
 *
 * How forcing works (checked on Open MPI 4.1.4): coll/tuned consults the forced
 * algorithm only if coll_tuned_use_dynamic_rules was set when MPI_Init ran, so
 * ar_library_prepare_env() puts OMPI_MCA_coll_tuned_use_dynamic_rules=1 in the
 * environment before MPI_Init (without overriding a value the user set; with no
 * algorithm forced and no rules file, the dynamic decision falls back to the fixed one,
 * so plain `library` is unchanged).  The algorithm itself is read when a communicator
 * is created: setup writes K into the MPI_T control variable
 * coll_tuned_allreduce_algorithm, duplicates the plan's communicator (the duplicate
 * keeps K), and restores the variable.  So several library:K run in one process.
 * Elsewhere (MPICH, SMPI) only `library` exists; library:K fails at plan creation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ar_internal.h"
#include "check.h"

#if defined(OPEN_MPI) && OPEN_MPI
#define AR_TUNED 1
#endif

/* Bytes of scratch that Open MPI 4.1's coll/base algorithm K mallocs and writes inside
 * every call (coll_base_allreduce.c): recursive doubling a copy of the whole vector;
 * ring (and segmented ring, which is the ring at tuned's default segment size) one
 * block of n/p to receive into, two when p > 2; Rabenseifner a vector-sized buffer of
 * which the recursive halving writes n(p'-1)/p'; basic_linear and nonoverlapping
 * reduce into a vector-sized buffer at the root.  Counted by page faults per call at
 * np = 2 and 4 beyond 16 MiB: n/2 per rank, the ring's (below, glibc reuses the
 * memory: no faults).  The model charges it at scratch_s_per_byte. */
static double library_scratch_bytes(int K, int p, double n)
{
    int pof2 = ar_pof2_floor(p);
    switch (K) {
    case 4: case 5: return (p > 2 ? 2.0 : 1.0) * n / p;
    case 6: return n * (pof2 - 1) / pof2;
    default: return p > 1 ? n : 0;
    }
}

/* K's algorithm where forced (basic_linear: p-1 messages into rank 0, then p-1 out,
 * whose latencies overlap at best; nonoverlapping: reduce + bcast ~ binomial; recursive
 * doubling works in its scratch and copies the result back where it ends there), plus
 * its scratch.  With fewer elements than ranks Open MPI's ring runs recursive doubling, and
 * with fewer than pof2(p) its Rabenseifner runs basic_linear (coll_base_allreduce.c). */
static double library_alg_s(const ar_model *m, const ar_params *prm, int K, int p, double n)
{
    double count = prm->elem_bytes > 0 ? n / prm->elem_bytes : n;
    if ((K == 4 || K == 5) && count < p)
        K = 3;
    if (K == 6 && count < ar_pof2_floor(p))
        K = 1;
    double t, lat = m->worst ? 2.0 * (p - 1) : 2.0;
    switch (K) {
    case 1: t = lat * m->alpha_s + 2.0 * (p - 1) * n * m->beta_s_per_byte + (p - 1) * n * m->gamma_s_per_byte; break;
    case 2: t = allreduce_binomial.model_s(m, prm, p, n); break;
    case 3: /* its vector-sized scratch holds the result on some ranks: copied to rbuf */
        t = allreduce_recdbl.model_s(m, prm, p, n) + n * m->copy_s_per_byte; break;
    case 4: case 5: t = allreduce_ring.model_s(m, prm, p, n); break;
    default: t = allreduce_rabenseifner.model_s(m, prm, p, n); break;   /* 6 */
    }
    return t + library_scratch_bytes(K, p, n) * m->scratch_s_per_byte;
}

/* Cost: K's where forced.  Unforced — or a K beyond Open MPI 4.1's 1..6, which another
 * version may define — the library's algorithm is not one we model, so the range spans
 * recursive doubling, ring and Rabenseifner: the fastest candidate at the best case, the
 * slowest at the worst (m->worst). */
static double library_model_s(const ar_model *m, const ar_params *prm, int p, double n)
{
    if (prm->library_alg >= 1 && prm->library_alg <= 6)
        return library_alg_s(m, prm, prm->library_alg, p, n);
    static const int cand[] = {3, 4, 6};
    double t = library_alg_s(m, prm, cand[0], p, n);
    for (int i = 1; i < 3; i++) {
        double c = library_alg_s(m, prm, cand[i], p, n);
        t = m->worst ? (c > t ? c : t) : (c < t ? c : t);
    }
    return t;
}

void ar_library_prepare_env(void)
{
#ifdef AR_TUNED
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 0);
#endif
}

#ifdef AR_TUNED
/* The coll/tuned control variables, looked up once: MPI_T_init_thread costs ~0.2 s in
 * Open MPI 4.1 (it registers every MCA variable), so the session stays open. */
static struct {
    int done, rc;
    int idx, didx;          /* coll_tuned_allreduce_algorithm, coll_tuned_use_dynamic_rules */
    int nalg;               /* algorithms 0..nalg-1 (0 = ignore) */
    char names[16][32];
    char err[256];
} tuned;

static int tuned_lookup(void)
{
    if (tuned.done) {
        if (tuned.rc)
            rs_seterr("%s", tuned.err);
        return tuned.rc;
    }
    tuned.done = 1;
    int prov;
    tuned.rc = -1;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &prov) != MPI_SUCCESS ||
        MPI_T_cvar_get_index("coll_tuned_allreduce_algorithm", &tuned.idx) != MPI_SUCCESS ||
        MPI_T_cvar_get_index("coll_tuned_use_dynamic_rules", &tuned.didx) != MPI_SUCCESS) {
        snprintf(tuned.err, sizeof tuned.err, "library:K needs Open MPI's coll/tuned component "
                 "(no MPI_T control variable coll_tuned_allreduce_algorithm)");
        rs_seterr("%s", tuned.err);
        return -1;
    }
    char name[256], desc[1024];
    int nl = sizeof name, dl = sizeof desc, verb, bind, scope;
    MPI_Datatype dt;
    MPI_T_enum en = MPI_T_ENUM_NULL;
    MPI_T_cvar_get_info(tuned.idx, name, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope);
    if (en != MPI_T_ENUM_NULL) {
        int num;
        char ename[64];
        int el = sizeof ename;
        MPI_T_enum_get_info(en, &num, ename, &el);
        for (int i = 0; i < num; i++) {
            int value;
            char item[64];
            int il = sizeof item;
            MPI_T_enum_get_item(en, i, &value, item, &il);
            if (value >= 0 && value < 16) {
                snprintf(tuned.names[value], 32, "%.31s", item);
                if (value + 1 > tuned.nalg)
                    tuned.nalg = value + 1;
            }
        }
    }
    tuned.rc = 0;
    return 0;
}

static int cvar_rw(int idx, const int *in, int *out)
{
    MPI_T_cvar_handle h;
    int cnt;
    RS_CHECK(MPI_T_cvar_handle_alloc(idx, NULL, &h, &cnt) == MPI_SUCCESS, "MPI_T: cannot bind a control variable");
    int rc = MPI_SUCCESS;
    if (out)
        rc = MPI_T_cvar_read(h, out);
    if (in && rc == MPI_SUCCESS)
        rc = MPI_T_cvar_write(h, in);
    MPI_T_cvar_handle_free(&h);
    RS_CHECK(rc == MPI_SUCCESS, "MPI_T: cannot read or write a coll/tuned control variable");
    return 0;
}
#endif

const char *ar_library_algorithms(void)
{
#ifdef AR_TUNED
    static char buf[512];
    if (tuned_lookup() != 0 || tuned.nalg < 2)
        return NULL;
    size_t n = 0;
    for (int k = 1; k < tuned.nalg && n < sizeof buf; k++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d %s", k > 1 ? ", " : "", k, tuned.names[k]);
    return buf;
#else
    return NULL;
#endif
}

static int library_setup(ar_plan *pl)
{
    int K = pl->prm.library_alg;
    if (K == 0) {
        snprintf(pl->describe, sizeof pl->describe, "library: MPI_Allreduce, the library's own choice");
        return 0;
    }
    snprintf(pl->name, sizeof pl->name, "library:%d", K);
#ifdef AR_TUNED
    int dyn = 0, old = 0;
    if (tuned_lookup() != 0 || cvar_rw(tuned.didx, NULL, &dyn) != 0)
        return -1;
    RS_CHECK(dyn, "library:%d: Open MPI read coll_tuned_use_dynamic_rules=0 at MPI_Init, so "
               "algorithms cannot be forced (unset OMPI_MCA_coll_tuned_use_dynamic_rules or set "
               "it to 1)", K);
    RS_CHECK(tuned.nalg >= 2 && K < tuned.nalg, "library:%d: Open MPI's coll/tuned has allreduce "
          "algorithms 1..%d (see allreduce-bench --list)", K, tuned.nalg - 1);
    if (cvar_rw(tuned.idx, &K, &old) != 0)
        return -1;
    MPI_Comm forced;
    MPI_Comm_dup(pl->comm, &forced);  /* its coll/tuned module copies K now */
    MPI_Comm_free(&pl->comm);
    pl->comm = forced;
    snprintf(pl->describe, sizeof pl->describe, "library:%d: Open MPI coll/tuned %s, forced", K,
             tuned.names[K][0] ? tuned.names[K] : "?");
    return cvar_rw(tuned.idx, &old, NULL);
#else
    rs_seterr("library:%d: forcing an algorithm needs Open MPI's coll/tuned; this MPI offers "
              "only `library`", K);
    return -1;
#endif
}

static int library_run(ar_plan *pl, const void *sendbuf, void *recvbuf, size_t count)
{
    MPI_Op op = ar_library_op(pl->op);  /* MPI_SUM / MPI_MAX, or a simulator's charged ops */
    AR_MPI(MPI_Allreduce(sendbuf, recvbuf, (int)count, pl->mpi_dtype, op, pl->comm));
    return 0;
}

const ar_algo allreduce_library = {
    .name = "library",
    .summary = "the MPI library's MPI_Allreduce (library:K forces Open MPI coll/tuned algorithm K)",
    .cost = "library: recdbl, ring or rabenseifner (lo: fastest, hi: slowest) + its per-call scratch; library:K: K's",
    .model_s = library_model_s,
    .setup = library_setup,
    .run = library_run,
    .flags = AR_OWN_SENDBUF,
};
