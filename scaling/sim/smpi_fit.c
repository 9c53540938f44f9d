/* smpi_fit.c — ar_fit_from_platform() (collectives/bench_fit.h) for `allreduce-bench-smpi`:
 * the model's parameters come from the simulated platform instead of being measured.
 *
 * The real-MPI build measures them (collectives/bench_fit.c: ping-pongs and ring steps
 * from 8 B to 64 MiB, hundreds of repetitions, every rank reducing 64 MiB).  Under SMPI
 * that measurement is exact but not free: at 800 simulated ranks its ring steps alone
 * are as many messages as two ring allreduces, i.e. minutes of wall time per run, and
 * 800 x 64 MiB of fit buffers.  The platform already knows the answer, so the
 * generator (scaling/sim/platforms/) writes it into every host's properties:
 *   rs_alpha_us              smallest node-to-node latency        -> lo alpha
 *   rs_alpha_hi_us           largest node-to-node latency          -> hi alpha
 *   rs_link_gbytes_per_s     node injection bandwidth B            -> lo beta = 1/B
 *   rs_link_hi_gbytes_per_s  B / oversubscription (a node's share
 *                            of its group's uplink, all sending)   -> hi beta
 *   rs_reduce_gbytes_per_s   the gamma model (smpi_hooks.c)        -> gamma, lo and hi
 * Copies cost nothing in the simulation (memcpy is not charged), so copy = 0; the
 * simulated network moves data while a rank's host computes, so overlap = 1.
 * On a platform without these properties this returns 0 and bench_fit.c measures, as on
 * a real machine (in simulated time: exact, and slow at large p). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/host.h>

#include "bench_fit.h"

static double prop(const char *name)
{
    const char *v = sg_host_get_property_value(sg_host_self(), name);
    return v ? strtod(v, NULL) : 0;
}

int ar_fit_from_platform(MPI_Comm comm, ar_model_range *m, char *how, size_t howlen)
{
    /* rank 0's host speaks for the platform; everyone takes its numbers */
    double v[5] = {prop("rs_alpha_us"), prop("rs_alpha_hi_us"), prop("rs_link_gbytes_per_s"),
                   prop("rs_link_hi_gbytes_per_s"), prop("rs_reduce_gbytes_per_s")};
    MPI_Bcast(v, 5, MPI_DOUBLE, 0, comm);
    if (!(v[0] > 0 && v[2] > 0))
        return 0;   /* not one of platform-gen's: bench_fit.c measures (simulated, exact) */
    const char *env = getenv("RS_SMPI_REDUCE_GBYTES_PER_S");
    if (env && strtod(env, NULL) > 0)
        v[4] = strtod(env, NULL);
    double gamma = v[4] > 0 ? 1e-9 / v[4] : 0;
    double ahi = v[1] > v[0] ? v[1] : v[0], bhi = v[3] > 0 && v[3] < v[2] ? v[3] : v[2];
    m->lo = (ar_model){.alpha_s = v[0] * 1e-6, .beta_s_per_byte = 1e-9 / v[2],
                       .gamma_s_per_byte = gamma, .copy_s_per_byte = 0, .overlap = 1};
    m->hi = (ar_model){.alpha_s = ahi * 1e-6, .beta_s_per_byte = 1e-9 / bhi,
                       .gamma_s_per_byte = gamma, .copy_s_per_byte = 0, .overlap = 1,
                       .worst = 1};
    snprintf(how, howlen, "SMPI platform properties: lo alpha %g us (nearest nodes), link %g GB/s "
             "(node injection); hi alpha %g us (farthest nodes), link %g GB/s (injection / "
             "oversubscription); reduce %g GB/s (gamma model); copies not charged",
             v[0], v[2], ahi, bhi, v[4]);
    return 1;
}
