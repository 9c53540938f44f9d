/* allreduce_torus2d.c — 2D-torus allreduce (Sony, Mikami et al. 2018): ranks on an
 * R x C grid, row-major; reduce-scatter along each row (ring), allreduce of each block
 * along its column (ring), allgather along each row (ring).  Per rank the column phase
 * moves n/C bytes instead of n, and the latency is 2(C-1) + 2(R-1) steps instead of
 * 2(p-1).  Same engine as hier (ar_twolevel.c) with rows as groups.
 * Rows of C = prm.group_size ranks (must divide p), or by default the near-square grid:
 * C = the smallest divisor of p with C >= sqrt(p) (4 -> 2x2, 8 -> 2x4, 13 -> 1x13). */
#include "ar_internal.h"
#include "check.h"

static int default_row(int p)
{
    int c = 1;
    while (c * c < p)
        c++;
    while (p % c != 0)
        c++;
    return c;
}

/* Cost (C columns per row, R = p/C rows):
 *   2(C-1) alpha + 2n(C-1)/C beta + n(C-1)/C gamma              (row phases)
 * + 2(R-1) alpha + 2(n/C)(R-1)/R beta + (n/C)(R-1)/R gamma      (column ring). */
static double torus2d_model_s(const ar_model *m, const ar_params *prm, int p, double n)
{
    int c = prm->group_size > 0 ? prm->group_size : default_row(p);
    return ar_twolevel_model_s(m, c, p, n, &allreduce_ring);
}

static int torus2d_setup(ar_plan *pl)
{
    int c = pl->prm.group_size > 0 ? pl->prm.group_size : default_row(pl->p);
    RS_CHECK(pl->p % c == 0, "--group-size %d does not divide the %d ranks (torus2d needs rows "
                          "of equal length; use a divisor of %d)", c, pl->p, pl->p);
    if (ar_twolevel_setup(pl, pl->rank / c, &allreduce_ring, "torus2d") != 0)
        return -1;
    snprintf(pl->describe, sizeof pl->describe, "torus2d: %d x %d grid (rows of %d)", pl->p / c, c, c);
    return 0;
}

const ar_algo allreduce_torus2d = {
    .name = "torus2d",
    .summary = "2D torus: ring reduce-scatter on rows, ring allreduce on columns, allgather",
    .cost = "2(C-1) a + 2n(C-1)/C b + n(C-1)/C g + ring(R, n/C)",
    .model_s = torus2d_model_s,
    .setup = torus2d_setup,
    .scratch_bytes = ar_twolevel_scratch_bytes,
    .reserve = ar_twolevel_reserve,
    .run_mid = ar_twolevel_run_mid,
    .teardown = ar_twolevel_teardown,
};
