/* allreduce.c — the library's core: element types, the one local reduction (and its
 * gamma hook), the registry table, plans (create / reserve / run / free) and MPICH's
 * non-power-of-two fold.  The algorithms themselves are one per allreduce_*.c file. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ar_internal.h"
#include "ar_reduce_loops.h"
#include "check.h"
#include "cpu.h"
#include "registry.h"

/* ---- the registry: adding an algorithm = one file + one row here ------------------ */
const ar_algo *const ar_registry[] = {
    &allreduce_ring,      &allreduce_segring, &allreduce_recdbl,  &allreduce_rabenseifner,
    &allreduce_binomial,  &allreduce_hier,    &allreduce_torus2d, &allreduce_ordered,
    &allreduce_library,   &allreduce_auto,
};
const int ar_registry_len = RS_ARRAY_LEN(ar_registry);

const rs_registry ar_algo_registry = RS_REGISTRY_PTRS(ar_registry, ar_algo, name);

const ar_algo *ar_algo_find(const char *name)
{
    return rs_registry_find(&ar_algo_registry, name, RS_REGISTRY_ANY_ISA);
}

int ar_algo_inner_ok(const ar_algo *a)
{
    return a && a != &allreduce_hier && a != &allreduce_torus2d && a != &allreduce_auto;
}

void ar_inner_names(char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < ar_registry_len && n < len; i++)
        if (ar_algo_inner_ok(ar_registry[i]))
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", ar_registry[i]->name);
}

int ar_algo_parse(const char *name, const ar_algo **algo, ar_params *prm)
{
    if (strncmp(name, "library:", 8) == 0) {
        const char *k = name + 8;
        char *end;
        long v = strtol(k, &end, 10);
        RS_CHECK(*k && !*end && v >= 1 && v <= 99,
              "algorithm '%s': expected library:K with K an Open MPI coll/tuned allreduce "
              "algorithm number (1..6 in Open MPI 4.1)", name);
        *algo = &allreduce_library;
        prm->library_alg = (int)v;
        return 0;
    }
    const ar_algo *a = ar_algo_find(name);
    if (!a) {
        char names[256];
        rs_registry_names(&ar_algo_registry, names, sizeof names);
        rs_seterr("unknown algorithm '%s' (expected one of: %s or library:K)", name, names);
        return -1;
    }
    *algo = a;
    prm->library_alg = 0;
    return 0;
}

ar_params ar_params_default(void)
{
    ar_params p = {0};
    p.segment_bytes = 256 << 10;
    p.inner = "rabenseifner";
    return p;
}

/* ---- element types and operations -------------------------------------------------- */
static const struct {
    const char *name;
    size_t size;
} dtypes[AR_NDTYPES] = {
    [AR_FLOAT] = {"float", sizeof(float)},
    [AR_DOUBLE] = {"double", sizeof(double)},
    [AR_INT32] = {"int32", sizeof(int32_t)},
};

const char *ar_dtype_name(ar_dtype t) { return dtypes[t].name; }
size_t ar_dtype_size(ar_dtype t) { return dtypes[t].size; }

int ar_dtype_from_name(const char *s, ar_dtype *t)
{
    for (int i = 0; i < AR_NDTYPES; i++)
        if (strcmp(s, dtypes[i].name) == 0) {
            *t = (ar_dtype)i;
            return 0;
        }
    return -1;
}

MPI_Datatype ar_dtype_mpi(ar_dtype t)
{
    switch (t) {
    case AR_FLOAT: return MPI_FLOAT;
    case AR_DOUBLE: return MPI_DOUBLE;
    case AR_INT32: return MPI_INT32_T;
    default: return MPI_DATATYPE_NULL;
    }
}

const char *ar_op_name(ar_op op) { return op == AR_SUM ? "sum" : "max"; }

int ar_op_from_name(const char *s, ar_op *op)
{
    if (strcmp(s, "sum") == 0)
        *op = AR_SUM;
    else if (strcmp(s, "max") == 0)
        *op = AR_MAX;
    else
        return -1;
    return 0;
}

MPI_Op ar_op_mpi(ar_op op) { return op == AR_SUM ? MPI_SUM : MPI_MAX; }

/* ---- the one local reduction -------------------------------------------------------
 * The loops live in ar_reduce_loops.h, built for baseline x86-64 here and for AVX2 in
 * ar_reduce_avx2.c; the first call picks by CPUID (common/cpu.h).  Every variant gives
 * the same bits (test/mpi/test_allreduce.c compares each with the portable one).
 * The gamma hook is charged here, once per call, also where the reduce hook
 * (ar_hooks.h) replaced the arithmetic. */
static ar_charge_fn charge_fn;
static void *charge_arg;

void ar_set_reduce_charge(ar_charge_fn fn, void *arg)
{
    charge_fn = fn;
    charge_arg = arg;
}

AR_DEFINE_REDUCE(ar_reduce_portable)

/* Widest first; the first one this CPU runs is used. */
const ar_reduce_impl ar_reduce_impls[] = {
    {.name = "avx2", .isa = RS_ISA_AVX2, .run = ar_reduce_avx2},
    {.name = "portable", .isa = RS_ISA_PORTABLE, .run = ar_reduce_portable},
};
const int ar_nreduce_impls = RS_ARRAY_LEN(ar_reduce_impls);
static const rs_registry reduce_registry =
    RS_REGISTRY_ROWS(ar_reduce_impls, ar_reduce_impl, name, isa);

static const ar_reduce_impl *reduce_impl;

static const ar_reduce_impl *reduce_pick(void)
{
    if (!reduce_impl)  /* a benign race: every thread stores the same pointer */
        reduce_impl = rs_registry_first_supported(&reduce_registry);
    return reduce_impl;
}

void ar_reduce_local(void *inout, const void *in, size_t count, ar_dtype t, ar_op op)
{
    if (ar_hooks_now.reduce)
        ar_hooks_now.reduce(inout, in, count, t, op);
    else
        reduce_pick()->run(inout, in, count, t, op);
    if (charge_fn)
        charge_fn(count * dtypes[t].size, charge_arg);
}

const char *ar_reduce_isa(void) { return reduce_pick()->name; }

/* ---- plans ---------------------------------------------------------------------------- */
int ar_mpi_fail(int rc, const char *what, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    rs_seterr("%s:%d: %s failed: %s", file, line, what, msg);
    return -1;
}

int ar_agree(MPI_Comm comm, int rc)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int mine = rc != 0 ? rank : p, first;
    ar_bookkeeping_allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == p)
        return 0;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", rs_lasterr());
    MPI_Bcast(msg, sizeof msg, MPI_CHAR, first, comm);
    rs_seterr("%s", msg);
    return -1;
}

int ar_plan_create(const ar_algo *algo, const ar_params *prm, MPI_Comm comm, ar_dtype t,
                   ar_op op, ar_plan **out)
{
    *out = NULL;
    ar_plan *pl = calloc(1, sizeof *pl);
    int rc = pl ? 0 : -1;
    if (!pl)
        rs_seterr("out of memory for an allreduce plan");
    if (ar_agree(comm, rc) != 0) {
        free(pl);
        return -1;
    }
    pl->algo = algo;
    pl->prm = *prm;
    pl->dtype = t;
    pl->op = op;
    pl->mpi_dtype = ar_dtype_mpi(t);
    pl->mpi_op = ar_op_mpi(op);
    pl->esize = ar_dtype_size(t);
    pl->prm.elem_bytes = (int)pl->esize;
    MPI_Comm_dup(comm, &pl->comm);
    MPI_Comm_rank(pl->comm, &pl->rank);
    MPI_Comm_size(pl->comm, &pl->p);
    snprintf(pl->name, sizeof pl->name, "%s", algo->name);
    snprintf(pl->describe, sizeof pl->describe, "%s", algo->name);
    rc = algo->setup ? algo->setup(pl) : 0;
    if (ar_agree(pl->comm, rc) != 0) {
        ar_plan_free(pl);
        return -1;
    }
    *out = pl;
    return 0;
}

size_t ar_plan_scratch_bytes(const ar_plan *pl, size_t max_count)
{
    return pl->algo->scratch_bytes ? pl->algo->scratch_bytes(pl, max_count) : 0;
}

static void release_scratch(ar_plan *pl)
{
    if (pl->scratch_owned)
        ar_big_free(pl->scratch);
    pl->scratch = NULL;
    pl->scratch_size = 0;
    pl->scratch_owned = 0;
    pl->max_count = 0;
}

int ar_plan_reserve(ar_plan *pl, size_t max_count)
{
    RS_CHECK(max_count <= INT_MAX, "%zu elements: more than one MPI message can carry (%d)",
          max_count, INT_MAX);
    size_t need = ar_plan_scratch_bytes(pl, max_count);
    release_scratch(pl);
    if (need > 0) {
        void *m = NULL;
        RS_CHECK(ar_big_memalign(&m, (need + 63) / 64 * 64) == 0,
              "out of memory: %s needs %.1f MiB of scratch for %zu elements", pl->name,
              need / 1048576.0, max_count);
        pl->scratch = m;
        pl->scratch_size = need;
        pl->scratch_owned = 1;
    }
    pl->max_count = max_count;
    return pl->algo->reserve ? pl->algo->reserve(pl, max_count) : 0;
}

int ar_plan_reserve_in(ar_plan *pl, size_t max_count, void *scratch, size_t bytes)
{
    RS_CHECK(max_count <= INT_MAX, "%zu elements: more than one MPI message can carry (%d)",
          max_count, INT_MAX);
    size_t need = ar_plan_scratch_bytes(pl, max_count);
    RS_CHECK(bytes >= need, "%s needs %zu bytes of scratch for %zu elements, got %zu", pl->name,
          need, max_count, bytes);
    release_scratch(pl);
    pl->scratch = scratch;
    pl->scratch_size = bytes;
    pl->max_count = max_count;
    return pl->algo->reserve ? pl->algo->reserve(pl, max_count) : 0;
}

int ar_allreduce(ar_plan *pl, const void *sendbuf, void *recvbuf, size_t count)
{
    RS_CHECK(count <= pl->max_count, "ar_allreduce: %zu elements but the plan reserved %zu "
                                  "(call ar_plan_reserve first)", count, pl->max_count);
    if (pl->algo->flags & AR_OWN_SENDBUF)
        return pl->algo->run(pl, sendbuf, recvbuf, count);
    if (count == 0)
        return 0;
    if (sendbuf != MPI_IN_PLACE && sendbuf != recvbuf)
        ar_local_copy(recvbuf, sendbuf, count * pl->esize);
    if (pl->p == 1)
        return 0;
    if (!pl->algo->run)   /* the allreduce with nothing in its middle */
        return pl->algo->run_mid(pl, recvbuf, count, NULL, NULL);
    return pl->algo->run(pl, sendbuf, recvbuf, count);
}

int ar_algo_has_mid(const ar_algo *a, const ar_params *prm)
{
    if (a == &allreduce_hier) {
        const ar_algo *in = ar_algo_find(prm->inner ? prm->inner : "rabenseifner");
        return in && in->run_mid;
    }
    return a->run_mid != NULL;   /* torus2d's inner is the ring */
}

int ar_plan_has_mid(const ar_plan *pl) { return ar_algo_has_mid(pl->algo, &pl->prm); }

int ar_allreduce_mid(ar_plan *pl, void *buf, size_t count, ar_mid_fn mid, void *ctx)
{
    RS_CHECK(count <= pl->max_count, "ar_allreduce_mid: %zu elements but the plan reserved %zu "
                                  "(call ar_plan_reserve first)", count, pl->max_count);
    RS_CHECK(ar_plan_has_mid(pl), "%s has no reduce-scatter and allgather to work between (use "
             "ring, segring, rabenseifner, ordered, or hier or torus2d with one of them inside)", pl->name);
    if (pl->p == 1 || count == 0) {   /* the whole vector is this rank's block */
        (void)mid(ctx, buf, 0, count);
        return 0;
    }
    return pl->algo->run_mid(pl, buf, count, mid, ctx);
}

void ar_plan_free(ar_plan *pl)
{
    if (!pl)
        return;
    if (pl->algo->teardown)
        pl->algo->teardown(pl);
    if (pl->comm != MPI_COMM_NULL)
        MPI_Comm_free(&pl->comm);
    release_scratch(pl);
    free(pl);
}

const char *ar_plan_name(const ar_plan *pl) { return pl->name; }
const char *ar_plan_describe(const ar_plan *pl) { return pl->describe; }

double ar_plan_model_s(const ar_plan *pl, const ar_model *m, double bytes, int inplace)
{
    double copy = inplace ? 0 : bytes * m->copy_s_per_byte;
    return pl->algo->model_s(m, &pl->prm, pl->p, bytes) + copy;
}

int ar_ceil_log2(int p)
{
    int k = 0;
    while ((1L << k) < p)
        k++;
    return k;
}

int ar_pof2_floor(int p)
{
    int v = 1;
    while (v * 2 <= p)
        v *= 2;
    return v;
}

/* ---- MPICH's fold for non-power-of-two p ------------------------------------------- */
int ar_fold_begin(ar_plan *pl, void *buf, size_t count, void *tmp, ar_fold *f)
{
    f->pof2 = ar_pof2_floor(pl->p);
    f->rem = pl->p - f->pof2;
    int rank = pl->rank;
    if (rank >= 2 * f->rem) {
        f->newrank = rank - f->rem;
        return 0;
    }
    if (rank % 2 == 0) {
        AR_MPI(MPI_Send(buf, (int)count, pl->mpi_dtype, rank + 1, AR_TAG_FOLD, pl->comm));
        f->newrank = -1;
    } else {
        AR_MPI(MPI_Recv(tmp, (int)count, pl->mpi_dtype, rank - 1, AR_TAG_FOLD, pl->comm,
                        MPI_STATUS_IGNORE));
        ar_reduce_local(buf, tmp, count, pl->dtype, pl->op);
        f->newrank = rank / 2;
    }
    return 0;
}

int ar_fold_end(ar_plan *pl, void *buf, size_t count, const ar_fold *f)
{
    int rank = pl->rank;
    if (rank >= 2 * f->rem)
        return 0;
    if (rank % 2 == 1)
        AR_MPI(MPI_Send(buf, (int)count, pl->mpi_dtype, rank - 1, AR_TAG_FOLD, pl->comm));
    else
        AR_MPI(MPI_Recv(buf, (int)count, pl->mpi_dtype, rank + 1, AR_TAG_FOLD, pl->comm,
                        MPI_STATUS_IGNORE));
    return 0;
}
