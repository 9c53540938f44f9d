/* ar_internal.h — what the algorithm files share: the plan's layout, block partitions,
 * MPICH's non-power-of-two fold, and the ring phases that ring, hier and torus2d reuse.
 * Not for callers of the library (they use allreduce.h). */
#ifndef RS_AR_INTERNAL_H
#define RS_AR_INTERNAL_H

#include "allreduce.h"
#include "ar_hooks.h"

struct ar_plan {
    const ar_algo *algo;
    ar_params prm;
    MPI_Comm comm;          /* the plan's own communicator (a dup or a reordering) */
    int rank, p;
    ar_dtype dtype;
    ar_op op;
    MPI_Datatype mpi_dtype;
    MPI_Op mpi_op;
    size_t esize;           /* bytes per element */
    size_t max_count;       /* ar_plan_reserve: scratch suffices up to this count */
    void *scratch;          /* algo->scratch_bytes(max_count) bytes, 64-byte aligned */
    size_t scratch_size;
    int scratch_owned;      /* allocated by ar_plan_reserve (else the caller's) */
    void *priv;             /* the algorithm's own state (setup/teardown) */
    char name[32];          /* "ring", "library:4" */
    char describe[160];     /* parameters as chosen, for metadata */
};

/* Tags: every algorithm runs on the plan's own communicator, so one tag suffices per
 * phase; different phases use different tags to make traces readable. */
enum { AR_TAG_FOLD = 101, AR_TAG_RS = 102, AR_TAG_AG = 103, AR_TAG_XCHG = 104,
       AR_TAG_REDUCE = 105, AR_TAG_BCAST = 106 };

/* The hooks set with ar_set_hooks (ar_hooks.c): all NULL unless a simulator set them. */
extern ar_hooks ar_hooks_now;

/* Byte address of element i of buf. */
static inline char *ar_at(const ar_plan *pl, const void *buf, size_t i)
{
    return (char *)buf + i * pl->esize;
}

/* count elements split into n blocks as evenly as possible, in whole granules of
 * pl->prm.granule elements (1 when unset; the last granule may be short): the first
 * blocks get one granule more.  Blocks may be empty (count < n granules). */
static inline size_t ar_block_off(const ar_plan *pl, size_t count, int n, int i)
{
    size_t g = pl->prm.granule > 1 ? pl->prm.granule : 1, units = (count + g - 1) / g;
    size_t q = units / (size_t)n, r = units % (size_t)n;
    size_t off = ((size_t)i * q + ((size_t)i < r ? (size_t)i : r)) * g;
    return off < count ? off : count;
}
static inline size_t ar_block_len(const ar_plan *pl, size_t count, int n, int i)
{
    return ar_block_off(pl, count, n, i + 1) - ar_block_off(pl, count, n, i);
}
static inline int ar_mod(int a, int n) { return ((a % n) + n) % n; }

/* MPI call that returns -1 with a recorded error from the enclosing function.  With the
 * default MPI_ERRORS_ARE_FATAL handler MPI aborts first; this catches the rest. */
int ar_mpi_fail(int rc, const char *what, const char *file, int line);
#define AR_MPI(call)                                                            \
    do {                                                                        \
        int ar_rc_ = (call);                                                    \
        if (ar_rc_ != MPI_SUCCESS)                                              \
            return ar_mpi_fail(ar_rc_, #call, __FILE__, __LINE__);              \
    } while (0)

/* ---- MPICH's fold for non-power-of-two p (Thakur, Rabenseifner, Gropp 2005) --------
 * p' = largest power of two <= p, r = p - p'.  Among the first 2r ranks the even ones
 * send their whole vector to rank+1 and sit out; the odd ones reduce it in.  The p'
 * ranks left are renumbered 0..p'-1 (newrank); ar_fold_end sends results back. */
typedef struct {
    int newrank;  /* 0..p'-1, or -1 for a rank that sits out */
    int pof2;     /* p' */
    int rem;      /* r */
} ar_fold;

int ar_fold_begin(ar_plan *pl, void *buf, size_t count, void *tmp, ar_fold *f);
int ar_fold_end(ar_plan *pl, void *buf, size_t count, const ar_fold *f);
static inline int ar_fold_real(const ar_fold *f, int newrank)
{
    return newrank < f->rem ? newrank * 2 + 1 : newrank + f->rem;
}

/* ---- ring phases over members 0..n-1 of comm (me = this rank's index) --------------
 * Blocks: buf's count elements split n ways (ar_block_*).  After the reduce-scatter
 * member me holds block me fully reduced; the allgather then spreads every member's
 * block me to all.  tmp holds one block (ceil(count/n) elements).  n-1 steps each,
 * each step one MPI_Sendrecv to the right neighbour / from the left. */
int ar_ring_reduce_scatter(const ar_plan *pl, MPI_Comm comm, int me, int n, void *buf,
                           size_t count, void *tmp);
int ar_ring_allgather(const ar_plan *pl, MPI_Comm comm, int me, int n, void *buf,
                      size_t count);

/* ---- the segmented ring's schedule (allreduce_segring.c; hier's groups reuse it) ----
 * Steps t0..t1-1 of the 2(n-1)-step ring over members 0..n-1 of comm: steps t < n-1
 * reduce-scatter (receive into scr[t & 1], reduce), steps t >= n-1 allgather in place.
 * Each block is sent in segments of `seg` elements with Isend/Irecv, and a segment is
 * forwarded the moment it is reduced, so a segment's reduction overlaps the next one's
 * transfer.  [0, n-1) then [n-1, 2n-2) is the same schedule as [0, 2n-2), with room
 * between the two to work on the reduced block me.  scr: two buffers of one block
 * (ceil(count/n) elements); rreq, sreq: two arrays of ceil(block/seg) requests. */
typedef struct {
    char *scr[2];
    MPI_Request *rreq[2], *sreq[2];
    size_t seg;
} ar_segring_bufs;
int ar_segring_steps(const ar_plan *pl, MPI_Comm comm, int me, int n, void *buf,
                     size_t count, const ar_segring_bufs *sb, int t0, int t1);

/* The registry entries, one per file. */
extern const ar_algo allreduce_ring, allreduce_segring, allreduce_recdbl,
    allreduce_rabenseifner, allreduce_binomial, allreduce_hier, allreduce_torus2d,
    allreduce_ordered, allreduce_library, allreduce_auto;

/* The two-level engine behind hier and torus2d (ar_twolevel.c).  setup is
 * collective: `color` is this rank's group id (>= 0, any numbering), `inner` the
 * allreduce among groups, `what` names the caller in messages and ar_plan_describe. */
int ar_twolevel_setup(ar_plan *pl, int color, const ar_algo *inner, const char *what);
size_t ar_twolevel_scratch_bytes(const ar_plan *pl, size_t count);
int ar_twolevel_reserve(ar_plan *pl, size_t count);
int ar_twolevel_run_mid(ar_plan *pl, void *buf, size_t count, ar_mid_fn mid, void *ctx);
void ar_twolevel_teardown(ar_plan *pl);
double ar_twolevel_model_s(const ar_model *m, int g, int p, double n, const ar_algo *inner);

#endif
