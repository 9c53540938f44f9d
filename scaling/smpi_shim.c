/* smpi_shim.c — the SimGrid SMPI side of `allreduce-bench-smpi` (see smpi_shim.h for
 * what is redirected here and why).  Settings, read once per simulated rank:
 *
 *   gamma   RS_SMPI_REDUCE_GBYTES_PER_S in the environment, else the host property
 *           rs_reduce_gbytes_per_s of the platform (scaling/platforms/ writes it), else
 *           none: reductions then cost no simulated time.  Every ar_reduce_local() of
 *           n bytes — in the project's algorithms and, through the user-defined ops,
 *           in SMPI's built-in ones — executes n / (rate * 1e9) seconds on the rank's
 *           host (smpi_execute_flops with the host's own speed).  The arithmetic itself
 *           is real (results are checked); with smpi/simulate-computation:no nothing
 *           else is charged, so simulated times are deterministic.
 *   fold    RS_SMPI_FOLD_BYTES: malloc/calloc/posix_memalign of at least that many
 *           bytes return a slot of the pool in build/lib/rs-smpi-fold.so (preloaded by
 *           the simulate driver; scaling/smpi_fold.c): every rank's k-th big buffer is
 *           the same SMPI shared region, so contents are garbage, results are not
 *           checked, and reductions are charged but not computed (rs_smpi_reduce_local).
 *   groups  for hier (MPI_COMM_TYPE_SHARED), a rank's platform group is, in order:
 *           the file named by RS_SMPI_GROUPS (lines "HOSTNAME GROUP", '#' comments),
 *           else the number after "-g" in a host name of the form PREFIX-gG-nN
 *           (scaling/platforms/ names TaihuLight hosts tl-g2-n17: supernode 2), else
 *           the host alone.
 *           Unequal groups (800 TaihuLight nodes fill supernodes with 256, 256, 256
 *           and 32 ranks) are the library's business: scaling/simulate passes
 *           --group-max (collectives/ar_twolevel.c cuts them into equal ones). */
#include "smpi_shim.h" /* built with -DRS_SMPI_SHIM_IMPL: the real calls below */

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/host.h>
#include <smpi/smpi.h>

#include "allreduce.h"

/* ---- settings (per simulated rank: SMPI privatizes these globals) ---------------- */
static double gamma_s_per_byte;  /* 0: reductions are free */
static double host_flops;        /* this rank's host speed (flop/s) */
static size_t fold_bytes;        /* 0: never fold */
static void *(*fold_alloc)(size_t); /* the preloaded pool (smpi_fold.c) */
static int (*fold_free)(void *);
static MPI_Op op_sum_charged = MPI_OP_NULL, op_max_charged = MPI_OP_NULL;

static double env_double(const char *name, double dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    double x = strtod(v, &end);
    return *end ? dflt : x;
}

/* ---- the gamma model ----------------------------------------------------------------- */
static void charge_reduce(size_t bytes, void *arg)
{
    (void)arg;
    if (bytes > 0)
        smpi_execute_flops((double)bytes * gamma_s_per_byte * host_flops);
}

/* SMPI's built-in algorithms call these for every partial reduction: inout = in op
 * inout, the same loops and the same charge as the project's algorithms. */
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

/* The project's algorithms' ar_reduce_local (renamed here by RS_SMPI_REDUCE) and the
 * built-ins' user ops: in a folded run (fold_bytes set: unchecked, the buffers are
 * shared garbage) only the charge; otherwise the real loops, which charge through the
 * hook. */
void rs_smpi_reduce_local(void *inout, const void *in, size_t count, ar_dtype t, ar_op op);
void rs_smpi_reduce_local(void *inout, const void *in, size_t count, ar_dtype t, ar_op op)
{
    if (fold_bytes) {
        if (gamma_s_per_byte > 0)
            charge_reduce(count * ar_dtype_size(t), NULL);
        return;
    }
    ar_reduce_local(inout, in, count, t, op);
}

static void user_reduce(void *in, void *inout, int *len, MPI_Datatype *dt, ar_op op)
{
    ar_dtype t = AR_FLOAT;
    if (dtype_of(*dt, &t) != 0) {
        fprintf(stderr, "allreduce-bench-smpi: charged reduction on an unknown datatype\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    rs_smpi_reduce_local(inout, in, (size_t)*len, t, op);
}
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt) { user_reduce(in, inout, len, dt, AR_SUM); }
static void user_max(void *in, void *inout, int *len, MPI_Datatype *dt) { user_reduce(in, inout, len, dt, AR_MAX); }

int rs_smpi_init(int *argc, char ***argv)
{
    int rc = MPI_Init(argc, argv);
    if (rc != MPI_SUCCESS)
        return rc;
    sg_host_t host = sg_host_self();
    host_flops = sg_host_get_speed(host);
    double rate = env_double("RS_SMPI_REDUCE_GBYTES_PER_S", 0);
    if (rate <= 0) {
        const char *v = sg_host_get_property_value(host, "rs_reduce_gbytes_per_s");
        rate = v ? strtod(v, NULL) : 0;
    }
    gamma_s_per_byte = rate > 0 ? 1e-9 / rate : 0;
    if (gamma_s_per_byte > 0)
        ar_set_reduce_charge(charge_reduce, NULL);
    double fold = env_double("RS_SMPI_FOLD_BYTES", 0);
    fold_bytes = fold > 0 ? (size_t)fold : 0;
    if (fold_bytes) {
        fold_alloc = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "rs_fold_alloc");
        fold_free = (int (*)(void *))dlsym(RTLD_DEFAULT, "rs_fold_free");
        if (!fold_alloc || !fold_free) {
            fprintf(stderr, "allreduce-bench-smpi: RS_SMPI_FOLD_BYTES needs build/lib/rs-smpi-fold.so "
                    "preloaded (LD_PRELOAD; scaling/simulate does it)\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    const char *native = getenv("RS_SMPI_NATIVE_OPS"); /* diagnosis: SMPI's own ops, uncharged */
    if (!(native && strcmp(native, "1") == 0)) {
        MPI_Op_create(user_sum, 1, &op_sum_charged);
        MPI_Op_create(user_max, 1, &op_max_charged);
    }
    return rc;
}

/* ---- memory ---------------------------------------------------------------------------- */
/* The pool's regions are SMPI shared-malloc blocks: mmap'ed, so page-aligned, which
 * covers any `align`.  Below the threshold (or when the pool is full) the usual
 * allocators: here malloc/calloc/free are smpi_helpers.h's (SMPI's shared-malloc
 * interceptors, plain malloc unless smpi/auto-shared-malloc-thresh is set). */
static void *fold_get(size_t size)
{
    return fold_bytes && size >= fold_bytes ? fold_alloc(size) : NULL;
}

void *rs_smpi_malloc(size_t size, const char *file, int line)
{
    void *p = fold_get(size);
    return p ? p : smpi_shared_malloc_intercept(size, file, line);
}

void *rs_smpi_calloc(size_t n, size_t size, const char *file, int line)
{
    void *p = n && size <= (size_t)-1 / n ? fold_get(n * size) : NULL;
    if (p) {
        memset(p, 0, n * size);
        return p;
    }
    return smpi_shared_calloc_intercept(n, size, file, line);
}

void rs_smpi_free(void *p)
{
    if (p && !(fold_free && fold_free(p)))
        smpi_shared_free(p);
}

int rs_smpi_posix_memalign(void **out, size_t align, size_t size)
{
    void *p = fold_get(size);
    if (p) {
        *out = p;
        return 0;
    }
    return posix_memalign(out, align, size);
}

/* ---- the library algorithm: one SMPI built-in, with the charged operations ---------
 * RS_SMPI_BUILTIN=NAME makes `library` run SMPI's allreduce algorithm NAME (rdb, lr,
 * ompi, mvapich2_two_level, ...) by calling it directly, while every other
 * MPI_Allreduce of the program (allreduce-bench's bookkeeping: agreeing on errors,
 * iteration counts, statistics) keeps the algorithm smpi/allreduce selects — the simulate
 * driver sets rdb there.  Why: smpi/allreduce applies to every call, and SMPI's ring
 * algorithms take 2(p-1) steps even for one integer: at 800 ranks each bookkeeping call
 * under smpi/allreduce:lr cost ~40 s of wall time, several per message size.  The
 * built-ins are the exported C++ functions simgrid::smpi::allreduce__NAME(sendbuf,
 * recvbuf, count, datatype, op, comm), found by their mangled names; SMPI's MPI handles
 * are pointers to those C++ objects, so C passes them unchanged.  What PMPI_Allreduce
 * adds around the call — MPI_IN_PLACE as a copy of recvbuf — is done here too. */
typedef int (*smpi_allreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
static smpi_allreduce_fn builtin_fn;
static int builtin_looked_up;

static smpi_allreduce_fn builtin(void)
{
    if (builtin_looked_up)
        return builtin_fn;
    builtin_looked_up = 1;
    const char *name = getenv("RS_SMPI_BUILTIN");
    if (!name || !*name)
        return NULL;
    char fn[256], sym[320];
    snprintf(fn, sizeof fn, "allreduce__%s", name);
    snprintf(sym, sizeof sym, "_ZN7simgrid4smpi%zu%sEPKvPviPNS0_8DatatypeEPNS0_2OpEPNS0_4CommE",
             strlen(fn), fn);
    builtin_fn = (smpi_allreduce_fn)dlsym(RTLD_DEFAULT, sym);
    if (!builtin_fn) {
        fprintf(stderr, "allreduce-bench-smpi: RS_SMPI_BUILTIN=%s: SMPI has no allreduce algorithm "
                "of that name (see smpirun --cfg=smpi/allreduce:help)\n", name);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return builtin_fn;
}

int rs_smpi_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                      MPI_Comm comm)
{
    if (op == MPI_SUM && op_sum_charged != MPI_OP_NULL)
        op = op_sum_charged;
    else if (op == MPI_MAX && op_max_charged != MPI_OP_NULL)
        op = op_max_charged;
    smpi_allreduce_fn fn = builtin();
    if (!fn)
        return MPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
    if (sendbuf != MPI_IN_PLACE)
        return fn(sendbuf, recvbuf, count, dt, op, comm);
    int size;
    MPI_Type_size(dt, &size);
    void *tmp = NULL;
    if (rs_smpi_posix_memalign(&tmp, 64, (size_t)count * (size_t)size + 1) != 0)
        return MPI_ERR_NO_MEM;
    memcpy(tmp, recvbuf, (size_t)count * (size_t)size);
    int rc = fn(tmp, recvbuf, count, dt, op, comm);
    rs_smpi_free(tmp);
    return rc;
}

/* ---- groups for hier ----------------------------------------------------------------- */
/* This rank's platform group, or -1 if the platform does not say. */
static long host_group(void)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(name, &len);
    const char *file = getenv("RS_SMPI_GROUPS");
    if (file && *file) {
        FILE *f = fopen(file, "r");
        if (!f) {
            fprintf(stderr, "allreduce-bench-smpi: RS_SMPI_GROUPS: cannot open %s\n", file);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        char line[512], h[256];
        long g, found = -1;
        while (found < 0 && fgets(line, sizeof line, f))
            if (line[0] != '#' && sscanf(line, "%255s %ld", h, &g) == 2 && strcmp(h, name) == 0)
                found = g;
        fclose(f);
        return found;
    }
    /* PREFIX-gG-nN: the last "-g<digits>-n" */
    long found = -1;
    for (const char *s = strstr(name, "-g"); s; s = strstr(s + 1, "-g")) {
        char *end;
        long g = strtol(s + 2, &end, 10);
        if (end > s + 2 && strncmp(end, "-n", 2) == 0)
            found = g;
    }
    return found;
}

int rs_smpi_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out)
{
    if (type != MPI_COMM_TYPE_SHARED)
        return MPI_Comm_split_type(comm, type, key, info, out);
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    long mine = host_group();
    if (mine < 0)
        mine = (long)p + me; /* unknown: a group of its own, after every known group */
    return MPI_Comm_split(comm, (int)mine, key, out);
}

/* ---- the ideal barrier ------------------------------------------------------------------
 * Every rank reads the simulated clock on arrival; an allreduce (max) gives all of them
 * the last arrival's time t; each then sleeps until t + SYNC_GUARD_S, the same instant
 * everywhere.  The guard only has to exceed the allreduce's own duration after the last
 * arrival (recursive doubling: ~30 us at 1024 ranks here); a rank that wakes too late
 * says so once.  Nothing else is simulated in between, so the guard costs no wall time. */
#define SYNC_GUARD_S 1e-3

int rs_smpi_barrier(MPI_Comm comm)
{
    static int warned;
    double t = MPI_Wtime(), tmax = t;
    int rc = MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    double wait = tmax + SYNC_GUARD_S - MPI_Wtime();
    if (wait > 0)
        sg_actor_sleep_for(wait);
    else if (!warned++)
        fprintf(stderr, "allreduce-bench-smpi: the synchronizing barrier's guard (%g s) was too short "
                "by %g s: timed calls may start up to that far apart\n", SYNC_GUARD_S, -wait);
    return MPI_SUCCESS;
}
