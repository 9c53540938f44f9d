/* smpi_fit.c — ar_fit_model() (collectives/bench.h) for `allreduce-bench-smpi`: the
 * model's parameters come from the simulated platform instead of being measured.
 *
 * The real-MPI build measures them (collectives/bench_fit.c: ping-pongs and ring steps
 * from 8 B to 16 MiB, hundreds of repetitions, every rank reducing 32 MiB).  Under SMPI
 * that measurement is exact but not free: at 800 simulated ranks its ring steps alone
 * are as many messages as two ring allreduces, i.e. minutes of wall time per run, and
 * 800 x 64 MiB of fit buffers.  The platform already knows the answer, so the
 * generator (scaling/platforms/) writes it into every host's properties:
 *   rs_alpha_us              smallest node-to-node latency        -> lo alpha
 *   rs_alpha_hi_us           largest node-to-node latency          -> hi alpha
 *   rs_link_gbytes_per_s     node injection bandwidth B            -> lo beta = 1/B
 *   rs_link_hi_gbytes_per_s  B / oversubscription (a node's share
 *                            of its group's uplink, all sending)   -> hi beta
 *   rs_reduce_gbytes_per_s   the gamma model (smpi_shim.c)         -> gamma, lo and hi
 * Copies cost nothing in the simulation (memcpy is not charged), so copy = 0; the
 * simulated network moves data while a rank's host computes, so overlap = 1.
 * A platform without these properties gets a measured two-point fit instead: one
 * ping-pong of 8 B and one of 1 MiB between ranks 0 and p-1 (simulated, so exact). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/host.h>

#include "../collectives/bench.h" /* not common/bench.h, which -Icommon finds first */

static double prop(const char *name)
{
    const char *v = sg_host_get_property_value(sg_host_self(), name);
    return v ? strtod(v, NULL) : 0;
}

static double pingpong_s(MPI_Comm comm, int me, int peer, char *buf, int bytes)
{
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    if (peer >= 0) {
        if (me < peer) {
            MPI_Send(buf, bytes, MPI_BYTE, peer, 7, comm);
            MPI_Recv(buf, bytes, MPI_BYTE, peer, 7, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, peer, 7, comm, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, peer, 7, comm);
        }
    }
    return (MPI_Wtime() - t0) / 2;
}

void ar_fit_model(MPI_Comm comm, ar_dtype t, ar_op op, int quick, ar_model_range *m,
                  char *how, size_t howlen)
{
    (void)t, (void)op, (void)quick;
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    /* rank 0's host speaks for the platform; everyone takes its numbers */
    double v[5] = {prop("rs_alpha_us"), prop("rs_alpha_hi_us"), prop("rs_link_gbytes_per_s"),
                   prop("rs_link_hi_gbytes_per_s"), prop("rs_reduce_gbytes_per_s")};
    MPI_Bcast(v, 5, MPI_DOUBLE, 0, comm);
    const char *env = getenv("RS_SMPI_REDUCE_GBYTES_PER_S");
    if (env && strtod(env, NULL) > 0)
        v[4] = strtod(env, NULL);
    double gamma = v[4] > 0 ? 1e-9 / v[4] : 0;
    if (v[0] > 0 && v[2] > 0) {
        double ahi = v[1] > v[0] ? v[1] : v[0], bhi = v[3] > 0 && v[3] < v[2] ? v[3] : v[2];
        m->lo = (ar_model){.alpha_s = v[0] * 1e-6, .beta_s_per_byte = 1e-9 / v[2],
                           .gamma_s_per_byte = gamma, .copy_s_per_byte = 0, .overlap = 1};
        m->hi = (ar_model){.alpha_s = ahi * 1e-6, .beta_s_per_byte = 1e-9 / bhi,
                           .gamma_s_per_byte = gamma, .copy_s_per_byte = 0, .overlap = 1};
        snprintf(how, howlen, "SMPI platform properties: lo alpha %g us (nearest nodes), link %g GB/s "
                 "(node injection); hi alpha %g us (farthest nodes), link %g GB/s (injection / "
                 "oversubscription); reduce %g GB/s (gamma model); copies not charged",
                 v[0], v[2], ahi, bhi, v[4]);
        return;
    }
    /* no properties: two simulated ping-pongs */
    enum { BIG = 1 << 20 };
    char *buf = calloc(BIG, 1);
    int peer = p < 2 ? -1 : me == 0 ? p - 1 : me == p - 1 ? 0 : -1;
    double t8 = 0, tbig = 0;
    if (buf) {
        t8 = pingpong_s(comm, me, peer, buf, 8);
        tbig = pingpong_s(comm, me, peer, buf, BIG);
    }
    free(buf);
    double ab[2] = {t8, (tbig - t8) / (BIG - 8)};
    MPI_Bcast(ab, 2, MPI_DOUBLE, 0, comm);
    if (ab[1] <= 0)
        ab[1] = 1e-12;
    m->lo = m->hi = (ar_model){.alpha_s = ab[0], .beta_s_per_byte = ab[1], .gamma_s_per_byte = gamma,
                               .copy_s_per_byte = 0, .overlap = 1};
    snprintf(how, howlen, "SMPI, no platform properties: simulated ping-pong rank 0 <-> %d at 8 B and "
             "1 MiB; reduce %g GB/s; copies not charged", p - 1, v[4]);
}
