/* ar_hooks.h — where a simulator adapts the library and `allreduce-bench` without
 * changing them: big buffers, the arithmetic of ar_reduce_local, hier's node groups, the
 * barrier before timed calls, the allreduce the benchmark keeps its books with, and the
 * MPI_Op of `library`.  The SimGrid SMPI build sets them once after MPI_Init
 * (scaling/sim/smpi_hooks.c); everywhere else they stay unset: plain MPI and libc.
 *
 *     ar_hooks h = {.barrier = my_barrier};
 *     ar_set_hooks(&h);                  // after MPI_Init, before any plan
 *     ar_barrier(MPI_COMM_WORLD);        // my_barrier, else MPI_Barrier
 *
 * The gamma charge per reduced byte stays ar_set_reduce_charge() (allreduce.h). */
#ifndef RS_AR_HOOKS_H
#define RS_AR_HOOKS_H

#include "allreduce.h"

typedef struct {
    /* Big buffers (messages, scratch, the fit's): alloc returns memory aligned to 64
     * bytes at least, or declines with NULL (then libc allocates); release returns 1
     * if p was alloc's, else 0 (then libc frees). */
    void *(*alloc)(size_t bytes);
    int (*release)(void *p);
    /* Replaces the arithmetic of ar_reduce_local (the charge is still made). */
    ar_reduce_fn reduce;
    /* Collective: the ranks of comm that hier takes for one node (default
     * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)); 0 or -1 with rs_seterr. */
    int (*split_node)(MPI_Comm comm, int key, MPI_Comm *node);
    /* The barrier before timed calls (default MPI_Barrier); an MPI error code. */
    int (*barrier)(MPI_Comm comm);
    /* The allreduce for agreeing on errors, counts and statistics (default
     * MPI_Allreduce); MPI_IN_PLACE as there; an MPI error code. */
    int (*bookkeeping)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                       MPI_Op op, MPI_Comm comm);
    /* The MPI_Op `library` passes for op (default MPI_SUM / MPI_MAX). */
    MPI_Op (*library_op)(ar_op op);
    /* 1 where no value in a big buffer is ever used (a folded simulation: reduce does no
     * arithmetic, nothing is checked): ar_allreduce skips copying its input into its
     * output and ar_big_touch writes nothing, work that would cost the simulator's own
     * time and never the simulated time. */
    int values_unused;
    /* 1 where a timing is the same every time it is taken (a simulator's clock): auto's
     * tuning takes one round per candidate, not the several a noisy machine needs. */
    int times_exact;
} ar_hooks;

/* Copies *h (NULL: all unset).  Call before any plan exists. */
void ar_set_hooks(const ar_hooks *h);

/* The hooked calls: each is the hook where set, else what the comment above says. */
void *ar_big_malloc(size_t bytes);
void *ar_big_calloc(size_t n, size_t size);
int ar_big_memalign(void **out, size_t bytes);   /* 64-byte aligned: 0 or an errno */
void ar_big_free(void *p);
void ar_big_touch(void *p, size_t bytes);   /* zeros, faulting its pages in before timing */
void ar_local_copy(void *dst, const void *src, size_t bytes);   /* memcpy */
int ar_split_node(MPI_Comm comm, int key, MPI_Comm *node);
int ar_barrier(MPI_Comm comm);
int ar_bookkeeping_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm);
MPI_Op ar_library_op(ar_op op);
int ar_times_exact(void);

#endif
