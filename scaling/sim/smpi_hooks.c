/* smpi_hooks.c — smpi_hooks_install() (smpi_hooks.h): after MPI_Init it sets the hooks
 * of collectives/ar_hooks.h that SimGrid SMPI needs, for `allreduce-bench-smpi` (as its
 * ar_platform_start, collectives/bench_platform.h) and `rnn-train-smpi`
 * (scaling/sim/train_smpi.c).  Settings, read once per simulated rank:
 *
 *   gamma   RS_SMPI_REDUCE_GBYTES_PER_S, else the host property rs_reduce_gbytes_per_s
 *           (scaling/sim/platforms/ writes it), else none.  Every ar_reduce_local() of n
 *           bytes executes n / (rate * 1e9) seconds on the rank's host, in the project's
 *           algorithms and, through two user-defined MPI_Ops that `library` passes, in
 *           SMPI's built-in ones (SMPI 3.32 charges nothing for their arithmetic).  With
 *           smpi/simulate-computation:no nothing else is charged: times are deterministic.
 *   fold    RS_SMPI_FOLD_BYTES: big buffers of at least that many bytes are slots of the
 *           pool in build/lib/rs-smpi-fold.so (preloaded; scaling/sim/smpi_fold.c), the same
 *           memory for every rank, so 800 ranks x 64 MiB fit.  Contents are garbage, so
 *           results are not checked and reductions are charged but not computed.
 *   groups  hier's node (split_node) is the rank's platform group: the file named by
 *           RS_SMPI_GROUPS (lines "HOSTNAME GROUP", '#' comments), else G in a host name
 *           PREFIX-gG-nN (TaihuLight's tl-g2-n17: supernode 2), else the host alone.
 *           Unequal groups are the library's business (--group-max, ar_twolevel.c).
 *   barrier every rank released at the same simulated instant: a real barrier releases
 *           ranks latencies apart, and each rank's timed call would include that skew.
 *   books   the benchmark's own allreduces cost no simulated time and no message on
 *           MPI_COMM_WORLD (below), and are recursive doubling on other communicators,
 *           so smpi/allreduce:NAME picks the algorithm of `library` alone: under a ring
 *           algorithm each integer the benchmark agrees on would cost 2(p-1) steps.
 *   values  folded runs never use a big buffer's values (ar_hooks.h values_unused).
 *   RS_SMPI_SKEW_NS=S (diagnosis): the barrier releases rank r r*S ns late (S < 0:
 *           (p-1-r)*|S|), so that ranks arrive at timed calls skewed as in a program.
 *   RS_SMPI_NATIVE_OPS=1 (diagnosis): `library` with SMPI's own, uncharged ops. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>
#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/host.h>
#include <smpi/smpi.h>

#include "ar_hooks.h"
#include "bench_platform.h"
#include "check.h"
#include "host_groups.h"
#include "smpi_hooks.h"

/* per simulated rank: SMPI privatizes these globals */
static double gamma_s_per_byte;  /* 0: reductions are free */
static double host_flops;        /* this rank's host speed (flop/s) */
static void *(*fold_alloc)(size_t); /* the preloaded pool (smpi_fold.c), when folding */
static int (*fold_free)(void *);
static size_t fold_bytes;
static MPI_Op op_sum_charged = MPI_OP_NULL, op_max_charged = MPI_OP_NULL;
static double skew_s;            /* the barrier releases rank r r*skew_s late (< 0: p-1-r) */

static double env_double(const char *name, double dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    double x = strtod(v, &end);
    return *end ? dflt : x;
}

/* ---- the gamma model and the folded reduction ------------------------------------- */
static void charge_reduce(size_t bytes, void *arg)
{
    (void)arg;
    if (bytes > 0)
        smpi_execute_flops((double)bytes * gamma_s_per_byte * host_flops);
}

/* Folded buffers are shared garbage: the arithmetic is skipped, the charge stays. */
static void reduce_nothing(void *inout, const void *in, size_t count, ar_dtype t, ar_op op)
{
    (void)inout, (void)in, (void)count, (void)t, (void)op;
}

static int dtype_of(MPI_Datatype dt, ar_dtype *t)
{
    if (dt == MPI_FLOAT)
        *t = AR_FLOAT;
    else if (dt == MPI_DOUBLE)
        *t = AR_DOUBLE;
    else if (dt == MPI_INT32_T || dt == MPI_INT)
        *t = AR_INT32;
    else
        return -1;
    return 0;
}

/* SMPI's built-ins call these for every partial reduction (inout = in op inout): the
 * same loops and charge as the project's.  An MPI_Op has no error return: abort. */
static void user_reduce(void *in, void *inout, int *len, MPI_Datatype *dt, ar_op op)
{
    ar_dtype t = AR_FLOAT;
    if (dtype_of(*dt, &t) != 0) {
        fprintf(stderr, "%s: charged reduction on an unknown datatype\n", rs_progname());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    ar_reduce_local(inout, in, (size_t)*len, t, op);
}
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt) { user_reduce(in, inout, len, dt, AR_SUM); }
static void user_max(void *in, void *inout, int *len, MPI_Datatype *dt) { user_reduce(in, inout, len, dt, AR_MAX); }

static MPI_Op library_op(ar_op op) { return op == AR_SUM ? op_sum_charged : op_max_charged; }

/* ---- folded memory: the pool's regions are SMPI shared-malloc blocks, page-aligned ---- */
static void *fold_get(size_t size) { return size >= fold_bytes ? fold_alloc(size) : NULL; }

/* ---- the benchmark's books and the ideal barrier ------------------------------------
 * On MPI_COMM_WORLD both go through the simulator's kernel, not its network: every
 * rank is a thread of one process, so a SimGrid barrier and a table of the ranks'
 * contributions cost no message and no simulated time (an allreduce of messages costs
 * the simulator p log p of them, several times per timed call).  Rank 0 makes them on
 * the first call and broadcasts their address.  Other communicators' books use SMPI's
 * allreduce__rdb message for message (a copy to self, MPICH's fold for non-power-of-two
 * p, pairwise exchanges), whatever algorithm smpi/allreduce names for `library`. */
enum { BOOKS_TAG = 31500 };

typedef struct { sg_bar_t barrier; const void **slot; void *result; } world_books;

static world_books *world(void)
{
    static world_books *w;   /* per rank: the same pointer in each */
    if (!w) {
        int me, p;
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        MPI_Comm_size(MPI_COMM_WORLD, &p);
        world_books *mine = NULL;
        if (me == 0) {
            mine = calloc(1, sizeof *mine);
            if (!mine || !(mine->slot = calloc((size_t)p, sizeof *mine->slot))) {
                fprintf(stderr, "%s: out of memory for %d ranks' books\n", rs_progname(), p);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            mine->barrier = sg_barrier_init((unsigned)p);
        }
        uintptr_t addr = (uintptr_t)mine;
        MPI_Bcast(&addr, sizeof addr, MPI_BYTE, 0, MPI_COMM_WORLD);
        w = (world_books *)addr;
    }
    return w;
}

/* The world's allreduce: rank 0 reduces the contributions in rank order between two
 * barriers (once: each MPI_Reduce_local costs SMPI two clock reads) into a table every
 * rank then copies; rank 0 replaces it only after the next call's first barrier. */
static int world_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                           MPI_Op op, size_t bytes)
{
    world_books *w = world();
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    char *mine = malloc(bytes + 1);
    if (!mine)
        return MPI_ERR_NO_MEM;
    memcpy(mine, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, bytes);
    w->slot[me] = mine;
    sg_barrier_wait(w->barrier);
    if (me == 0) {
        char *res = malloc(bytes + 1);
        if (!res) {
            fprintf(stderr, "%s: out of memory for the books\n", rs_progname());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memcpy(res, w->slot[0], bytes);
        for (int r = 1; r < p; r++)
            MPI_Reduce_local(w->slot[r], res, count, dt, op);
        free(w->result);
        w->result = res;
    }
    sg_barrier_wait(w->barrier);
    memcpy(recvbuf, w->result, bytes);
    free(mine);
    return MPI_SUCCESS;
}

static void books_exchange(void *buf, void *tmp, int count, MPI_Datatype dt, MPI_Op op,
                           MPI_Comm comm, int me, int dst)
{
    MPI_Sendrecv(buf, count, dt, dst, BOOKS_TAG, tmp, count, dt, dst, BOOKS_TAG, comm,
                 MPI_STATUS_IGNORE);
    if (dst < me) {
        MPI_Reduce_local(tmp, buf, count, dt, op);
    } else {  /* rdb's order for non-commutative ops, and its copy back */
        MPI_Reduce_local(buf, tmp, count, dt, op);
        MPI_Sendrecv(tmp, count, dt, me, BOOKS_TAG, buf, count, dt, me, BOOKS_TAG, comm,
                     MPI_STATUS_IGNORE);
    }
}

static int books_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                           MPI_Op op, MPI_Comm comm)
{
    int p, me, size;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    MPI_Type_size(dt, &size);
    size_t bytes = (size_t)count * (size_t)size;
    if (comm == MPI_COMM_WORLD)
        return world_allreduce(sendbuf, recvbuf, count, dt, op, bytes);
    char *tmp = malloc(bytes + 1);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    if (sendbuf == MPI_IN_PLACE) {
        memcpy(tmp, recvbuf, bytes);
        sendbuf = tmp;
    }
    MPI_Sendrecv(sendbuf, count, dt, me, BOOKS_TAG, recvbuf, count, dt, me, BOOKS_TAG, comm,
                 MPI_STATUS_IGNORE);
    int pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    int rem = p - pof2, newrank = me >= 2 * rem ? me - rem : me % 2 ? me / 2 : -1;
    if (me < 2 * rem && me % 2 == 0) {
        MPI_Send(recvbuf, count, dt, me + 1, BOOKS_TAG, comm);
    } else if (me < 2 * rem) {
        MPI_Recv(tmp, count, dt, me - 1, BOOKS_TAG, comm, MPI_STATUS_IGNORE);
        MPI_Reduce_local(tmp, recvbuf, count, dt, op);
    }
    for (int mask = 1; newrank >= 0 && mask < pof2; mask <<= 1) {
        int nd = newrank ^ mask;
        books_exchange(recvbuf, tmp, count, dt, op, comm, me, nd < rem ? nd * 2 + 1 : nd + rem);
    }
    if (me < 2 * rem && me % 2)
        MPI_Send(recvbuf, count, dt, me - 1, BOOKS_TAG, comm);
    else if (me < 2 * rem)
        MPI_Recv(recvbuf, count, dt, me + 1, BOOKS_TAG, comm, MPI_STATUS_IGNORE);
    free(tmp);
    return MPI_SUCCESS;
}

/* All of MPI_COMM_WORLD wait at the world's barrier, which releases them together at
 * the last arrival's simulated instant t; each then sleeps until t + SYNC_GUARD_S, so
 * that the network is idle when timed calls start.  Other communicators agree on t with
 * an allreduce of the arrival times. */
#define SYNC_GUARD_S 1e-3

static int ideal_barrier(MPI_Comm comm)
{
    static int warned;
    double t = MPI_Wtime(), tmax = t;
    if (comm == MPI_COMM_WORLD) {
        sg_barrier_wait(world()->barrier);
        tmax = MPI_Wtime();
    } else {
        int rc = books_allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    double wait = tmax + SYNC_GUARD_S - MPI_Wtime();
    if (skew_s != 0) {
        int me, p;
        MPI_Comm_rank(comm, &me);
        MPI_Comm_size(comm, &p);
        wait += skew_s > 0 ? skew_s * me : -skew_s * (p - 1 - me);
    }
    if (wait > 0)
        sg_actor_sleep_for(wait);
    else if (!warned++)
        fprintf(stderr, "%s: the synchronizing barrier's guard (%g s) was too short by %g s: "
                "timed calls may start up to that far apart\n", rs_progname(), SYNC_GUARD_S, -wait);
    return MPI_SUCCESS;
}

/* ---- groups for hier ------------------------------------------------------------------ */
static int split_by_group(MPI_Comm comm, int key, MPI_Comm *node)
{
    char host[MPI_MAX_PROCESSOR_NAME];
    int len = 0, me, p;
    MPI_Get_processor_name(host, &len);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    const char *file = getenv("RS_SMPI_GROUPS");
    long mine = host_group_from_name(host);
    if (file && *file && host_group_from_file(file, host, &mine) != 0)
        return -1;   /* every rank reads the same file: all fail alike */
    if (mine < 0)
        mine = (long)p + me; /* unknown: a group of its own, after every known group */
    RS_CHECK(MPI_Comm_split(comm, (int)mine, key, node) == MPI_SUCCESS, "MPI_Comm_split failed");
    return 0;
}

/* ---- start-up ------------------------------------------------------------------------- */
static int start_fold(ar_hooks *h)
{
    double fold = env_double("RS_SMPI_FOLD_BYTES", 0);
    fold_bytes = fold > 0 ? (size_t)fold : 0;
    if (!fold_bytes)
        return 0;
    fold_alloc = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "rs_fold_alloc");
    fold_free = (int (*)(void *))dlsym(RTLD_DEFAULT, "rs_fold_free");
    RS_CHECK(fold_alloc && fold_free, "RS_SMPI_FOLD_BYTES needs build/lib/rs-smpi-fold.so "
          "preloaded (LD_PRELOAD; study simulate does it)");
    h->alloc = fold_get;
    h->release = fold_free;
    h->reduce = reduce_nothing;
    h->values_unused = 1;
    return 0;
}

size_t smpi_hooks_fold_bytes(void) { return fold_bytes; }
double smpi_hooks_seconds_per_byte(void) { return gamma_s_per_byte; }

void smpi_hooks_charge_seconds(double seconds)
{
    if (seconds > 0)
        smpi_execute_flops(seconds * host_flops);
}

int ar_platform_start(void) { return smpi_hooks_install(); }

int smpi_hooks_install(void)
{
    RS_CHECK(!getenv("RS_SMPI_BUILTIN"), "RS_SMPI_BUILTIN is gone: choose library's algorithm "
          "with smpirun --cfg=smpi/allreduce:NAME");
    ar_hooks h = {.split_node = split_by_group, .barrier = ideal_barrier,
                  .bookkeeping = books_allreduce, .times_exact = 1};
    sg_host_t host = sg_host_self();
    host_flops = sg_host_get_speed(host);
    double rate = env_double("RS_SMPI_REDUCE_GBYTES_PER_S", 0);
    if (rate <= 0) {
        const char *v = sg_host_get_property_value(host, "rs_reduce_gbytes_per_s");
        rate = v ? strtod(v, NULL) : 0;
    }
    gamma_s_per_byte = rate > 0 ? 1e-9 / rate : 0;
    skew_s = env_double("RS_SMPI_SKEW_NS", 0) * 1e-9;
    if (gamma_s_per_byte > 0)
        ar_set_reduce_charge(charge_reduce, NULL);
    if (start_fold(&h) != 0)
        return -1;
    const char *native = getenv("RS_SMPI_NATIVE_OPS");
    if (!(native && strcmp(native, "1") == 0)) {
        MPI_Op_create(user_sum, 1, &op_sum_charged);
        MPI_Op_create(user_max, 1, &op_max_charged);
        h.library_op = library_op;
    }
    ar_set_hooks(&h);
    return 0;
}
