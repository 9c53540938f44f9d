/* ar_hooks.c — the hooks of ar_hooks.h: where one is set it is called, else the plain
 * MPI or libc call it stands for.  ar_reduce_local (allreduce.c) reads ar_hooks_now. */
#include <stdlib.h>
#include <string.h>

#include "ar_internal.h"

ar_hooks ar_hooks_now;

void ar_set_hooks(const ar_hooks *h)
{
    if (h)
        ar_hooks_now = *h;
    else
        memset(&ar_hooks_now, 0, sizeof ar_hooks_now);
}

void *ar_big_malloc(size_t bytes)
{
    void *p = ar_hooks_now.alloc ? ar_hooks_now.alloc(bytes) : NULL;
    return p ? p : malloc(bytes);
}

void *ar_big_calloc(size_t n, size_t size)
{
    void *p = NULL;
    if (ar_hooks_now.alloc && n && size <= (size_t)-1 / n)
        p = ar_hooks_now.alloc(n * size);
    if (!p)
        return calloc(n, size);
    memset(p, 0, n * size);
    return p;
}

int ar_big_memalign(void **out, size_t bytes)
{
    /* the hook's memory is 64-byte aligned (its contract in ar_hooks.h) */
    void *p = ar_hooks_now.alloc ? ar_hooks_now.alloc(bytes) : NULL;
    if (!p)
        return posix_memalign(out, 64, bytes);
    *out = p;
    return 0;
}

void ar_big_free(void *p)
{
    if (p && !(ar_hooks_now.release && ar_hooks_now.release(p)))
        free(p);
}

void ar_big_touch(void *p, size_t bytes)
{
    if (!ar_hooks_now.values_unused)
        memset(p, 0, bytes);
}

void ar_local_copy(void *dst, const void *src, size_t bytes)
{
    if (!ar_hooks_now.values_unused)
        memcpy(dst, src, bytes);
}

int ar_split_node(MPI_Comm comm, int key, MPI_Comm *node)
{
    if (ar_hooks_now.split_node)
        return ar_hooks_now.split_node(comm, key, node);
    AR_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, key, MPI_INFO_NULL, node));
    return 0;
}

int ar_barrier(MPI_Comm comm)
{
    return ar_hooks_now.barrier ? ar_hooks_now.barrier(comm) : MPI_Barrier(comm);
}

int ar_bookkeeping_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm)
{
    if (ar_hooks_now.bookkeeping)
        return ar_hooks_now.bookkeeping(sendbuf, recvbuf, count, dt, op, comm);
    return MPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
}

MPI_Op ar_library_op(ar_op op)
{
    return ar_hooks_now.library_op ? ar_hooks_now.library_op(op) : ar_op_mpi(op);
}

int ar_times_exact(void) { return ar_hooks_now.times_exact; }
