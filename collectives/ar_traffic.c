/* ar_traffic.c — ar_traffic_of (ar_traffic.h): one table, a name to the shape of the
 * messages it sends; the shapes are counted below, one function each.  p ranks, n bytes
 * per rank, l = ceil(lg p). */
#include "ar_traffic.h"

#include <math.h>
#include <string.h>

/* ring: reduce-scatter + allgather, 2(p-1) steps of n/p bytes on every rank; segring
 * cuts each step's block into ceil(n/p / segment) messages. */
static ar_traffic ring(const ar_traffic_params *prm, int p, double n)
{
    (void)prm;
    return (ar_traffic){2.0 * p * (p - 1), n / p};
}

static ar_traffic segring(const ar_traffic_params *prm, int p, double n)
{
    ar_traffic t = ring(prm, p, n);
    double s = prm->segment_bytes;
    if (s > 0 && t.message_bytes > s)
        t.messages *= floor((t.message_bytes + s - 1) / s);
    return t;
}

/* torus2d: row rings and column rings on a near-square grid, ~4 sqrt(p) steps of
 * n / sqrt(p) bytes per rank. */
static ar_traffic torus2d(const ar_traffic_params *prm, int p, double n)
{
    (void)prm;
    return (ar_traffic){4.0 * p * sqrt(p), n / sqrt(p)};
}

/* hier: rings inside groups of G (counted as 4 G steps per rank, the ring's 2(G-1)
 * with its pairwise setup), halving-doubling among the groups on n/G bytes. */
static ar_traffic hier(const ar_traffic_params *prm, int p, double n, int l)
{
    int g = prm->group_size > 0 ? prm->group_size : p;
    return (ar_traffic){4.0 * p * (p < g ? p : g) + 2.0 * p * l, n / g};
}

static int ceil_log2(int p)
{
    int l = 0;
    while ((1L << l) < p)
        l++;
    return l;
}

typedef enum { RING, SEGRING, TORUS2D, HIER, BINOMIAL, DOUBLING, HALVING } shape;

/* The project's algorithms (collectives/allreduce.c's registry) and SMPI 3.32's
 * built-ins with their own shape; any other name is HALVING. */
static const struct {
    const char *name;
    shape s;
} rows[] = {
    {"ring", RING},         {"segring", SEGRING},      {"ordered", RING},
    {"recdbl", DOUBLING},   {"rabenseifner", HALVING}, {"binomial", BINOMIAL},
    {"hier", HIER},         {"torus2d", TORUS2D},
    /* SMPI: lr (logical ring) and smp_rsag (one rank per node) are rings; rdb, and
     * mpich's and mvapich2's two-level selections at one rank per node, are recursive
     * doubling; rab1, rab_rdb, ompi, mvapich2 halve and double */
    {"lr", RING},           {"smp_rsag", RING},        {"rdb", DOUBLING},
    {"mpich", DOUBLING},    {"mvapich2_two_level", DOUBLING},
};

static shape shape_of(const char *name)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (strcmp(rows[i].name, name) == 0)
            return rows[i].s;
    return HALVING;
}

int ar_traffic_ringlike(const char *name)
{
    shape s = shape_of(name);
    return s == RING || s == SEGRING;
}

ar_traffic ar_traffic_of(const char *name, const ar_traffic_params *prm, int p, double n)
{
    int l = ceil_log2(p);
    switch (shape_of(name)) {
    case RING: return ring(prm, p, n);
    case SEGRING: return segring(prm, p, n);
    case TORUS2D: return torus2d(prm, p, n);
    case HIER: return hier(prm, p, n, l);
    case BINOMIAL: return (ar_traffic){2.0 * p, n};   /* reduce + bcast trees, whole vectors */
    case DOUBLING: break;
    case HALVING:
        /* recursive halving + doubling, 2 l steps of n/2 on average; small vectors go
         * by recursive doubling (Open MPI and MPICH switch below ~10 kB) */
        if (n >= 10000)
            return (ar_traffic){2.0 * p * l, n / 2};
        break;
    }
    return (ar_traffic){(double)p * l, n};   /* recursive doubling: l steps of n */
}
