/* allreduce.h — the allreduce library: one algorithm per file behind one small struct,
 * one registry table that drives `allreduce-bench`, the MPI tests and the trainer.
 *
 * Use:
 *     ar_params prm = ar_params_default();
 *     const ar_algo *a = ar_algo_find("ring");
 *     ar_plan *pl;
 *     ar_plan_create(a, &prm, MPI_COMM_WORLD, AR_FLOAT, AR_SUM, &pl);   // collective
 *     ar_plan_reserve(pl, max_count);      // scratch for up to max_count elements
 *     ar_allreduce(pl, sendbuf, recvbuf, count);   // sendbuf may be MPI_IN_PLACE
 *     ar_plan_free(pl);                             // collective
 *
 * Every algorithm: correct for any p >= 1 (non-power-of-two p folded as MPICH does),
 * count = 0 and count < p, MPI_IN_PLACE, float / double / int32, sum and max; all
 * ranks end with bitwise-identical results; no allocation inside ar_allreduce()
 * (scratch comes from ar_plan_reserve, called once per size outside any timed region).
 * Each algorithm states its alpha-beta-gamma cost in one place: its model_s function.
 *
 * The algorithm files use only MPI point-to-point calls and plain C (no OpenMP, no
 * Linux calls), so SimGrid SMPI (smpicc) compiles them unchanged.  All reduction
 * arithmetic goes through ar_reduce_local(), which calls the hook set with
 * ar_set_reduce_charge() so that a simulator can charge gamma per byte reduced; its
 * other hooks (buffers, groups, barrier, bookkeeping) are in ar_hooks.h.
 *
 * Library code returns 0 or -1 with one line in rs_lasterr() (common/check.h). */
#ifndef RS_ALLREDUCE_H
#define RS_ALLREDUCE_H

#include <mpi.h>
#include <stddef.h>

#include "cpu.h"
#include "registry.h"

/* ---- element types and operations ------------------------------------------------ */
typedef enum { AR_FLOAT, AR_DOUBLE, AR_INT32, AR_NDTYPES } ar_dtype;
typedef enum { AR_SUM, AR_MAX, AR_NOPS } ar_op;

const char *ar_dtype_name(ar_dtype t);              /* "float", "double", "int32" */
int ar_dtype_from_name(const char *s, ar_dtype *t); /* 0 ok, -1 unknown */
size_t ar_dtype_size(ar_dtype t);
MPI_Datatype ar_dtype_mpi(ar_dtype t);
const char *ar_op_name(ar_op op);                   /* "sum", "max" */
int ar_op_from_name(const char *s, ar_op *op);
MPI_Op ar_op_mpi(ar_op op);

/* inout[i] = inout[i] op in[i] for i < count: the only place where an algorithm does
 * arithmetic.  int32 sums wrap (two's complement) instead of being undefined.  Built
 * per ISA (ar_reduce_loops.h), picked by CPUID: ar_reduce_isa() says which ran. */
void ar_reduce_local(void *inout, const void *in, size_t count, ar_dtype t, ar_op op);
const char *ar_reduce_isa(void);

/* The builds of that loop, widest first, ending with the portable one (the reference
 * the others must equal bit for bit). */
typedef void (*ar_reduce_fn)(void *inout, const void *in, size_t count, ar_dtype t, ar_op op);
typedef struct {
    const char *name;   /* "avx2", "portable" */
    rs_isa isa;
    ar_reduce_fn run;
} ar_reduce_impl;
extern const ar_reduce_impl ar_reduce_impls[];
extern const int ar_nreduce_impls;
void ar_reduce_avx2(void *inout, const void *in, size_t count, ar_dtype t, ar_op op);
void ar_reduce_portable(void *inout, const void *in, size_t count, ar_dtype t, ar_op op);

/* The gamma hook: fn(bytes, arg) is called after every ar_reduce_local() with the bytes
 * of `in` that were reduced (SMPI: charge bytes * gamma with smpi_execute_benched or
 * smpi_execute_flops).  NULL (the default) charges nothing. */
typedef void (*ar_charge_fn)(size_t bytes, void *arg);
void ar_set_reduce_charge(ar_charge_fn fn, void *arg);

/* ---- the cost model ----------------------------------------------------------------
 * Hockney / Thakur-Rabenseifner-Gropp: a message of n bytes costs alpha + n*beta, and
 * reducing n bytes locally costs n*gamma.  Each algorithm's model_s() returns its
 * predicted time in seconds for an allreduce of `bytes` on p ranks.  The messages a
 * call sends, every rank's (what simulating it costs), are ar_traffic.h's. */
typedef struct {
    double alpha_s;          /* latency per message (s) */
    double beta_s_per_byte;  /* transfer time per byte (s/B) = 1 / link bandwidth */
    double gamma_s_per_byte; /* local reduction time per byte (s/B) */
    double copy_s_per_byte;  /* local copy time per byte (s/B): ar_plan_model_s adds
                                n * copy for the send-to-receive buffer copy that every
                                algorithm (and MPI_Allreduce) makes when not in place */
    int overlap;             /* 1: the transport moves data while the CPU reduces (NIC
                                DMA), so pipelined algorithms hide gamma; 0: the CPU does
                                both (shared memory, TCP) */
    double scratch_s_per_byte; /* a scratch buffer allocated afresh inside the call: first
                                touch of its pages and their unmapping (s/B).  Only
                                `library` pays it — Open MPI mallocs its scratch per call,
                                and beyond glibc's mmap threshold that is fresh pages each
                                time; the project's algorithms set theirs up once */
    int worst;               /* 1: the worst case: where an algorithm is the library's
                                own unstated choice, the slowest candidate; 0: the fastest */
} ar_model;

/* ---- parameters of the algorithms (one struct; defaults from ar_params_default) --- */
typedef int (*ar_group_fn)(int rank, int p, void *arg);

typedef struct {
    long segment_bytes;   /* segring: pipeline segment size (default 256 KiB) */
    int group_size;       /* hier: ranks per group; torus2d: ranks per row; 0 = default
                             (hier: the shared-memory node; torus2d: near-square grid).
                             Must divide p (ar_plan_create refuses otherwise). */
    ar_group_fn group_of; /* hier: custom topology, rank -> group id (overrides both;
                             unequal groups allowed): tests, SimGrid host names */
    void *group_arg;
    const char *inner;    /* hier: allreduce among the groups (default "rabenseifner") */
    int group_max;        /* hier: groups of unequal size, or larger than this, are cut
                             into equal groups of the largest divisor of the gcd of their
                             sizes that is at most group_max (0, the default: never; the
                             library then folds the extra members, ar_twolevel.c) */
    int library_alg;      /* library: Open MPI coll/tuned algorithm K forced (0 = MPI's
                             own choice); set by ar_algo_parse from "library:K" */
    int elem_bytes;       /* the plan's element size, set by ar_plan_create (the library's
                             model needs counts: Open MPI changes algorithm below p) */
    size_t granule;       /* reduce-scatter blocks are whole granules of this many elements
                             (the last may be short), so a caller's work between the phases
                             (ar_allreduce_mid) can keep to its own fixed chunks; 0 or 1:
                             blocks of any length.  Only where blocks end changes. */
} ar_params;

ar_params ar_params_default(void);

/* ---- the algorithm interface (nccl-tests' struct testColl) ------------------------ */
typedef struct ar_plan ar_plan;

/* Work between an algorithm's reduce-scatter and its allgather (ar_allreduce_mid):
 * buf[off, off + len) (elements) is this rank's block of the finished result (len may
 * be 0); the function returns the buffer whose blocks the allgather spreads: buf, or
 * another of the same count whose block [off, off + len) it has filled. */
typedef void *(*ar_mid_fn)(void *ctx, void *buf, size_t off, size_t len);

typedef struct ar_algo {
    const char *name;     /* the CLI and CSV name: "ring" */
    const char *summary;  /* one line for --list */
    const char *cost;     /* the model as a formula, for --list and the docs */
    /* Predicted seconds for `bytes` on p ranks (the one place that states the cost). */
    double (*model_s)(const ar_model *m, const ar_params *prm, int p, double bytes);
    /* Optional, collective: build sub-communicators etc. after the plan exists. */
    int (*setup)(ar_plan *pl);
    /* Scratch bytes needed for count elements (0: none). */
    size_t (*scratch_bytes)(const ar_plan *pl, size_t count);
    /* Optional: reserve nested plans' scratch for count elements. */
    int (*reserve)(ar_plan *pl, size_t count);
    /* The allreduce of count > 0 elements, in place on buf (p > 1), unless the algorithm
     * sets AR_OWN_SENDBUF, when it gets (sendbuf, recvbuf) as the caller gave them. */
    int (*run)(ar_plan *pl, const void *sendbuf, void *buf, size_t count);
    /* Where an algorithm has a reduce-scatter and an allgather, instead of run: the
     * allreduce in place with work in its middle (ar_allreduce_mid); mid NULL is the
     * plain allreduce. */
    int (*run_mid)(ar_plan *pl, void *buf, size_t count, ar_mid_fn mid, void *ctx);
    void (*teardown)(ar_plan *pl);  /* optional: free what setup made */
    int flags;
} ar_algo;

enum { AR_OWN_SENDBUF = 1 };

/* The registry: every algorithm, in display order. */
extern const ar_algo *const ar_registry[];
extern const int ar_registry_len;
extern const rs_registry ar_algo_registry;   /* the same rows, for registry.h's lookups */
const ar_algo *ar_algo_find(const char *name);  /* NULL if none */
/* hier's inner algorithm among groups: any row but the two-level ones (hier, torus2d).
 * ar_inner_names joins those names by ", " into buf, for the messages. */
int ar_algo_inner_ok(const ar_algo *a);
void ar_inner_names(char *buf, size_t len);

/* Parse an algorithm name as the CLI takes it: a registry name, or "library:K" (Open
 * MPI coll/tuned algorithm K), which sets prm->library_alg.  0, or -1 (rs_lasterr says
 * what is expected).  Purely syntactic: whether K exists is checked at plan creation. */
int ar_algo_parse(const char *name, const ar_algo **algo, ar_params *prm);

/* ---- plans ------------------------------------------------------------------------ */
/* Collective over comm.  The plan works on its own duplicate of comm (or a reordered
 * one), so its messages never match the caller's. */
int ar_plan_create(const ar_algo *algo, const ar_params *prm, MPI_Comm comm, ar_dtype t,
                   ar_op op, ar_plan **out);
/* Local: make scratch for up to max_count elements (frees what was there).  Call
 * outside timed regions; ar_allreduce never allocates. */
int ar_plan_reserve(ar_plan *pl, size_t max_count);
/* The same with the caller's scratch: `bytes` (>= ar_plan_scratch_bytes) at `scratch`,
 * 64-byte aligned, kept by the caller.  Plans that never run at the same time may share
 * one buffer (allreduce-bench interleaves algorithms on one). */
size_t ar_plan_scratch_bytes(const ar_plan *pl, size_t max_count);
int ar_plan_reserve_in(ar_plan *pl, size_t max_count, void *scratch, size_t bytes);
/* Collective over the plan's communicator. */
int ar_allreduce(ar_plan *pl, const void *sendbuf, void *recvbuf, size_t count);
/* Collective, in place, for plans whose algorithm has a reduce-scatter and an allgather
 * (ar_plan_has_mid): mid is called once on every rank between the two (ar_mid_fn), and
 * the blocks it returns are what every rank ends with.  Weight-update sharding: each
 * rank updates its block of the parameters from its block of the summed gradient, and
 * the allgather spreads parameters instead of gradients.  The result in buf is the
 * allreduce's, bit for bit, when mid returns buf unchanged. */
int ar_allreduce_mid(ar_plan *pl, void *buf, size_t count, ar_mid_fn mid, void *ctx);
int ar_plan_has_mid(const ar_plan *pl);
/* The same asked before any plan exists (no MPI): the algorithm with these parameters
 * (hier's inner) has a middle. */
int ar_algo_has_mid(const ar_algo *a, const ar_params *prm);
void ar_plan_free(ar_plan *pl);
/* Collective: all ranks of comm learn whether any failed (rc != 0); the lowest failing
 * rank's message is copied to all, so rank 0 can print it.  0 or -1 everywhere. */
int ar_agree(MPI_Comm comm, int rc);

/* The name this plan reports ("ring", "library:4"), and a line describing its choices
 * (segment size, groups, grid) for metadata and logs. */
const char *ar_plan_name(const ar_plan *pl);
const char *ar_plan_describe(const ar_plan *pl);

/* The model of a plan's algorithm with the plan's parameters (seconds), plus the
 * copy-in (bytes * m->copy_s_per_byte) unless in place. */
double ar_plan_model_s(const ar_plan *pl, const ar_model *m, double bytes, int inplace);

/* Open MPI only: the coll/tuned allreduce algorithms that library:K can force, as
 * "1 basic_linear, 2 nonoverlapping, ..." (after MPI_Init); NULL where unavailable. */
const char *ar_library_algorithms(void);
/* Call before MPI_Init when any library:K will be used: forcing needs
 * coll_tuned_use_dynamic_rules, which Open MPI reads only at MPI_Init. */
void ar_library_prepare_env(void);

/* ---- helpers shared by the models -------------------------------------------------- */
int ar_ceil_log2(int p);   /* smallest k with 2^k >= p */
int ar_pof2_floor(int p);  /* largest power of two <= p */

#endif
