/* ar_traffic.h — the messages one allreduce call sends, every rank's together, and the
 * bytes of a typical one: what simulating the call costs, since a simulator such as
 * SimGrid spends its time per message.  Each algorithm's model_s (allreduce.h) prices
 * one rank's critical path; this counts the whole job's traffic, for planning
 * simulations (their order, their expected wall time).
 *
 * The rows are the project's algorithms, by registry name, and SMPI's built-in
 * allreduces, by their smpi/allreduce names, each with the project algorithm whose
 * messages it sends.  MPI-free (no mpi.h), so a planner that runs no MPI links it
 * (build/bin/study, scaling/study/simulate_plan.c). */
#ifndef RS_AR_TRAFFIC_H
#define RS_AR_TRAFFIC_H

typedef struct {
    double messages;        /* point-to-point messages in one call, all ranks */
    double message_bytes;   /* the bytes of a typical one */
} ar_traffic;

typedef struct {
    double segment_bytes;   /* segring's pipeline segments (ar_params' default 256 KiB) */
    int group_size;         /* hier's groups: equal groups of at most this many ranks */
} ar_traffic_params;

/* The traffic of NAME at p ranks and `bytes` per rank.  A name with no row (an SMPI
 * built-in not listed) gets the halving-doubling shape most of them share. */
ar_traffic ar_traffic_of(const char *name, const ar_traffic_params *prm, int p, double bytes);

/* 1 when NAME sends the ring's 2p(p-1) messages per call (ring, segring, ordered, SMPI's
 * lr and smp_rsag): the algorithms whose simulation grows with p^2. */
int ar_traffic_ringlike(const char *name);

#endif
