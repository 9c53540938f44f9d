/* ar_twolevel.c — the two-level engine behind hier and torus2d (not an algorithm of the
 * registry; allreduce_hier.c and allreduce_torus2d.c are): ranks in groups (a node, a
 * torus row), then
 *   1. reduce-scatter inside each group (ring): local member i owns block i of count/g,
 *   2. allreduce of block i among the members i of every group (the inner algorithm,
 *      on a communicator of one rank per group: one message per group pair),
 *   3. allgather inside each group (ring).
 * Only n/g bytes per rank cross group boundaries, against 2n(p-1)/p on the flat ring.
 *
 * The group rings are the segmented ring's schedule (ar_segring_steps): each block goes
 * in up to TL_MAX_SEGS segments of at least TL_MIN_SEG_BYTES, and a segment is forwarded
 * as soon as it is reduced.  Where the network moves data while the CPU reduces (a NIC;
 * SimGrid's hosts), reducing segment j then hides behind the transfer of segment j+1:
 * on the TaihuLight model at 800 nodes and 4 MiB, hier went from 770 to 608 us simulated
 * (its reductions, 4 MiB at 30 GB/s, are 136 us of the gamma model).
 * Blocks under 2 x TL_MIN_SEG_BYTES stay whole, so small messages pay no extra latency.
 *
 * Rank reordering: the plan's communicator is renumbered so that each group's members
 * are consecutive (groups in order of their id, members in order of their rank), so
 * the intra-group rings step between neighbours that share a node, whatever the
 * launcher's placement (e.g. mpirun --map-by node).
 *
 * Cut groups (prm.group_max > 0, hier): where groups differ in size or exceed
 * group_max, each is cut into equal groups of c = the largest divisor of the gcd of the
 * sizes with c <= group_max (consecutive members of one group; none straddles two), so
 * 800 nodes in supernodes of 256, 256, 256 and 32 become 25 groups of 32.  A group ring
 * costs 2(c-1) latencies, a smaller c sends more across groups: the cap weighs the two.
 * With a gcd of 1 the groups stay whole, and:
 *
 * Unequal groups (nodes with different rank counts, or a custom group_of): the blocks
 * are cut g_min ways, g_min = the smallest group's size.  In a group of g > g_min,
 * member i >= g_min first sends its whole vector to member i mod g_min, which reduces
 * it in (like MPICH's fold) and sends the result back at the end; phases 1-3 run on
 * members 0..g_min-1 of every group.  So every inner communicator has one member per
 * group, and the extra members cost 2 messages of n bytes each.
 *
 * Bitwise agreement: a block's group partial is made once (by its owner), the inner
 * algorithm gives all group owners the same bits, and phases 3 and the unfold copy. */
#include <stdlib.h>

#include "ar_internal.h"
#include "check.h"

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

enum { TL_MAX_SEGS = 8, TL_MIN_SEG_BYTES = 32 << 10 };

typedef struct {
    MPI_Comm intra;   /* my group, members ordered by rank */
    MPI_Comm inter;   /* member `local` of every group (MPI_COMM_NULL for extras) */
    int local, g;     /* my index in my group, its size */
    int gmin, gmax, ngroups;
    ar_plan *inner;   /* allreduce among the groups (NULL with one group or as extra) */
    MPI_Request *req; /* the group rings' requests: 4 arrays of nseg (ar_segring_bufs) */
    int nseg;
} twolevel;

/* Elements per segment of the group rings for blocks of up to blk elements. */
static size_t tl_seg(size_t blk, size_t esize)
{
    size_t s = (blk + TL_MAX_SEGS - 1) / TL_MAX_SEGS, smin = TL_MIN_SEG_BYTES / esize;
    if (s < smin)
        s = smin;
    return s > blk ? (blk > 0 ? blk : 1) : s;
}

/* Euclid; gcd_int(a, 0) = a. */
static int gcd_int(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int ar_twolevel_setup(ar_plan *pl, int color, const ar_algo *inner, const char *what)
{
    twolevel *tl = calloc(1, sizeof *tl);
    int *colors = malloc(sizeof(int) * (size_t)pl->p);
    long long *key = malloc(sizeof(long long) * (size_t)pl->p);
    int ok = tl && colors && key;
    /* A local failure must not leave the others in a collective: agree first. */
    int all_ok;
    ar_bookkeeping_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, pl->comm);
    if (!all_ok) {
        free(tl);
        free(colors);
        free(key);
        rs_seterr("out of memory for the groups of %s", what);
        return -1;
    }
    tl->intra = tl->inter = MPI_COMM_NULL;
    pl->priv = tl;
    MPI_Allgather(&color, 1, MPI_INT, colors, 1, MPI_INT, pl->comm);

    /* Everyone sees the same colors, so these checks fail on all ranks or none.  Sorting
     * (color, rank) pairs gives the new order and the group sizes in O(p log p): SMPI
     * runs thousands of ranks in one process. */
    const int me = pl->rank, p = pl->p;
    int bad = -1;
    for (int r = 0; r < p; r++)
        if (colors[r] < 0)
            bad = r;
    if (bad >= 0) {
        free(colors);
        free(key);
        rs_seterr("%s: rank %d was given a negative group id", what, bad);
        return -1;
    }
    for (int r = 0; r < p; r++)
        key[r] = (long long)colors[r] * p + r;
    free(colors);
    qsort(key, (size_t)p, sizeof *key, cmp_ll);
    int newpos = -1, gcd = 0;
    tl->gmin = p + 1;
    tl->gmax = tl->ngroups = 0;
    for (int i = 0, start = 0; i < p; i++) {
        if (key[i] % p == me) {
            newpos = i;
            tl->local = i - start;
        }
        if (i + 1 == p || key[i + 1] / p != key[i] / p) {  /* group [start, i] ends */
            int size = i + 1 - start;
            tl->ngroups++;
            tl->gmin = size < tl->gmin ? size : tl->gmin;
            tl->gmax = size > tl->gmax ? size : tl->gmax;
            if (newpos >= start && newpos <= i)
                tl->g = size;
            gcd = gcd_int(size, gcd);
            start = i + 1;
        }
    }
    free(key);
    if (pl->prm.group_max > 0) {  /* the cut (above): same sizes everywhere, same answer */
        int c;
        for (c = gcd; c > 1 && (c > pl->prm.group_max || gcd % c != 0); c--)
            ;
        if (c > 1 && (c < tl->gmax || tl->gmin != tl->gmax)) {
            color = newpos / c;   /* groups are runs of newpos, each a multiple of c long */
            tl->local %= c;
            tl->g = tl->gmin = tl->gmax = c;
            tl->ngroups = p / c;
        }
    }

    MPI_Comm reordered;
    MPI_Comm_split(pl->comm, 0, newpos, &reordered);
    MPI_Comm_free(&pl->comm);
    pl->comm = reordered;
    MPI_Comm_rank(pl->comm, &pl->rank);
    MPI_Comm_split(pl->comm, color, pl->rank, &tl->intra);
    MPI_Comm_split(pl->comm, tl->local < tl->gmin ? tl->local : MPI_UNDEFINED, pl->rank, &tl->inter);
    pl->prm.group_size = tl->gmin;  /* what the model sees */

    int rc = 0;
    if (tl->ngroups > 1 && tl->local < tl->gmin) {
        ar_params ip = ar_params_default();
        ip.granule = pl->prm.granule;   /* the group blocks start on granules already */
        rc = ar_plan_create(inner, &ip, tl->inter, pl->dtype, pl->op, &tl->inner);
    }
    if (tl->gmax == tl->gmin)
        snprintf(pl->describe, sizeof pl->describe, "%s: %d groups of %d ranks, inner %s", what,
                 tl->ngroups, tl->gmin, inner->name);
    else
        snprintf(pl->describe, sizeof pl->describe, "%s: %d groups of %d..%d ranks (blocks cut %d "
                 "ways), inner %s", what, tl->ngroups, tl->gmin, tl->gmax, tl->gmin, inner->name);
    return rc;
}

size_t ar_twolevel_scratch_bytes(const ar_plan *pl, size_t count)
{
    const twolevel *tl = pl->priv;
    size_t blk2 = 2 * ar_block_len(pl, count, tl->gmin, 0);  /* the ring's two step buffers */
    size_t elems = tl->gmax > tl->gmin && count > blk2 ? count : blk2;  /* or the fold's */
    return elems * pl->esize;
}

int ar_twolevel_reserve(ar_plan *pl, size_t count)
{
    twolevel *tl = pl->priv;
    size_t blk = ar_block_len(pl, count, tl->gmin, 0), s = tl_seg(blk, pl->esize);
    int nseg = (int)((blk + s - 1) / s);
    if (nseg < 1)
        nseg = 1;
    if (nseg > tl->nseg) {
        free(tl->req);
        tl->req = malloc(sizeof(MPI_Request) * 4 * (size_t)nseg);
        tl->nseg = tl->req ? nseg : 0;
        RS_CHECK(tl->req, "out of memory for %d segment requests", 4 * nseg);
    }
    return tl->inner ? ar_plan_reserve(tl->inner, blk) : 0;
}

/* The inner plan's mid, translated: its block of the group block at boff is block
 * boff + off of the whole vector, and the buffer the caller's mid returns is spread at
 * the same offsets. */
typedef struct {
    ar_mid_fn mid;
    void *ctx;
    const ar_plan *pl;
    void *buf;   /* the whole vector */
    size_t boff;
    void *dst;   /* what the caller's mid returned */
} tl_mid;

static void *inner_mid(void *arg, void *blockbuf, size_t off, size_t len)
{
    tl_mid *t = arg;
    (void)blockbuf;   /* = buf + boff */
    t->dst = t->mid(t->ctx, t->buf, t->boff + off, len);
    return ar_at(t->pl, t->dst, t->boff);
}

int ar_twolevel_run_mid(ar_plan *pl, void *buf, size_t count, ar_mid_fn mid, void *ctx)
{
    twolevel *tl = pl->priv;
    const int gmin = tl->gmin, local = tl->local;
    const int extra = local >= gmin;
    void *dst = buf;
    if (tl->g > gmin) {  /* fold the extra members in */
        if (extra)
            AR_MPI(MPI_Send(buf, (int)count, pl->mpi_dtype, local % gmin, AR_TAG_FOLD, tl->intra));
        else
            for (int e = local + gmin; e < tl->g; e += gmin) {
                AR_MPI(MPI_Recv(pl->scratch, (int)count, pl->mpi_dtype, e, AR_TAG_FOLD, tl->intra,
                                MPI_STATUS_IGNORE));
                ar_reduce_local(buf, pl->scratch, count, pl->dtype, pl->op);
            }
    }
    if (extra && mid) {
        dst = mid(ctx, buf, 0, 0);   /* no block, but the call is every rank's */
    } else if (!extra) {
        const size_t blk = ar_block_len(pl, count, gmin, 0), n = (size_t)tl->nseg;
        const size_t boff = ar_block_off(pl, count, gmin, local);
        const size_t blen = ar_block_len(pl, count, gmin, local);
        ar_segring_bufs sb = {{pl->scratch, ar_at(pl, pl->scratch, blk)},
                              {tl->req, tl->req + n}, {tl->req + 2 * n, tl->req + 3 * n},
                              tl_seg(blk, pl->esize)};
        if (ar_segring_steps(pl, tl->intra, local, gmin, buf, count, &sb, 0, gmin - 1) != 0)
            return -1;
        if (tl->inner && mid) {
            tl_mid t = {mid, ctx, pl, buf, boff, buf};
            if (ar_allreduce_mid(tl->inner, ar_at(pl, buf, boff), blen, inner_mid, &t) != 0)
                return -1;
            dst = t.dst;
        } else if (tl->inner) {
            if (ar_allreduce(tl->inner, MPI_IN_PLACE, ar_at(pl, buf, boff), blen) != 0)
                return -1;
        } else if (mid) {
            dst = mid(ctx, buf, boff, blen);
        }
        if (ar_segring_steps(pl, tl->intra, local, gmin, dst, count, &sb, gmin - 1,
                             2 * (gmin - 1)) != 0)
            return -1;
    }
    if (tl->g > gmin) {  /* and give them the result */
        if (extra)
            AR_MPI(MPI_Recv(dst, (int)count, pl->mpi_dtype, local % gmin, AR_TAG_FOLD, tl->intra,
                            MPI_STATUS_IGNORE));
        else
            for (int e = local + gmin; e < tl->g; e += gmin)
                AR_MPI(MPI_Send(dst, (int)count, pl->mpi_dtype, e, AR_TAG_FOLD, tl->intra));
    }
    return 0;
}

void ar_twolevel_teardown(ar_plan *pl)
{
    twolevel *tl = pl->priv;
    if (!tl)
        return;
    ar_plan_free(tl->inner);
    free(tl->req);
    if (tl->intra != MPI_COMM_NULL)
        MPI_Comm_free(&tl->intra);
    if (tl->inter != MPI_COMM_NULL)
        MPI_Comm_free(&tl->inter);
    free(tl);
    pl->priv = NULL;
}

/* Cost with groups of g (G = p/g groups), the inner algorithm's model on n/g bytes,
 * blocks of b = n/g in k segments of s = b/k (tl_seg):
 *   reduce-scatter  (g-1)(alpha + b beta + b gamma)                   no overlap
 *                   (g-1)(alpha + b max(beta, gamma)) + (g-1) s gamma   overlap, k > 1
 *   inner(G, b)  +  allgather (g-1)(alpha + b beta).
 * Segments of a step are in flight together, so a step pays one alpha.  One alpha and
 * beta for both levels here; across real nodes the inner term would use the network's
 * and the two ring terms the node's. */
double ar_twolevel_model_s(const ar_model *m, int g, int p, double n, const ar_algo *inner)
{
    if (g < 1 || g > p)
        g = p;
    double blk = n / g, s = blk;
    if (blk >= 2.0 * TL_MIN_SEG_BYTES) {
        s = blk / TL_MAX_SEGS;
        if (s < TL_MIN_SEG_BYTES)
            s = TL_MIN_SEG_BYTES;
    }
    double b = m->beta_s_per_byte, gm = m->gamma_s_per_byte;
    double rs = m->overlap && s < blk ? blk * (b > gm ? b : gm) + s * gm : blk * (b + gm);
    ar_params ip = ar_params_default();
    return (g - 1) * (2 * m->alpha_s + rs + blk * b) +
           (p / g > 1 ? inner->model_s(m, &ip, p / g, blk) : 0);
}
