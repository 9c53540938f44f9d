/* allreduce_hier.c — topology-mapped hierarchical allreduce (HCCL; Jia et al. 2018;
 * the Sunway study's redesign): reduce-scatter inside each group, allreduce among the
 * ranks that hold the same block in every group, allgather inside each group — see
 * ar_twolevel.c for the engine, the rank reordering and unequal groups.
 *
 * Groups, in order of precedence:
 *   prm.group_of(rank, p, arg)  a custom topology (tests),
 *                                group ids in 0..p-1, unequal sizes allowed;
 *   prm.group_size = G          consecutive ranks in groups of G (G must divide p);
 *   default                     the shared-memory node (ar_split_node: MPI's, or a
 *                                simulator's platform group), so one machine is one
 *                                group and hier is a ring there.
 * The inner allreduce among groups is prm.inner (default rabenseifner). */
#include <string.h>

#include "ar_internal.h"
#include "check.h"

/* Cost: ar_twolevel_model_s with g = the group size (one node of p ranks when the
 * node decides and the plan is not built yet). */
static double hier_model_s(const ar_model *m, const ar_params *prm, int p, double n)
{
    const ar_algo *inner = ar_algo_find(prm->inner ? prm->inner : "rabenseifner");
    return ar_twolevel_model_s(m, prm->group_size > 0 ? prm->group_size : p, p, n,
                               inner ? inner : &allreduce_rabenseifner);
}

static int hier_setup(ar_plan *pl)
{
    const char *iname = pl->prm.inner ? pl->prm.inner : "rabenseifner";
    const ar_algo *inner = ar_algo_find(iname);
    if (!ar_algo_inner_ok(inner)) {
        char names[256];
        ar_inner_names(names, sizeof names);
        rs_seterr("hier: inner algorithm '%s' must be one of %s", iname, names);
        return -1;
    }
    int color;
    const char *what;
    if (pl->prm.group_of) {
        color = pl->prm.group_of(pl->rank, pl->p, pl->prm.group_arg);
        what = "hier (custom groups)";
    } else if (pl->prm.group_size > 0) {
        RS_CHECK(pl->p % pl->prm.group_size == 0,
              "--group-size %d does not divide the %d ranks (hier needs equal groups; "
              "use a divisor of %d)", pl->prm.group_size, pl->p, pl->p);
        color = pl->rank / pl->prm.group_size;
        what = "hier (--group-size)";
    } else {
        MPI_Comm node;
        if (ar_split_node(pl->comm, pl->rank, &node) != 0)
            return -1;
        /* the node's lowest rank */
        ar_bookkeeping_allreduce(&pl->rank, &color, 1, MPI_INT, MPI_MIN, node);
        MPI_Comm_free(&node);
        what = "hier (shared-memory nodes)";
    }
    return ar_twolevel_setup(pl, color, inner, what);
}

const ar_algo allreduce_hier = {
    .name = "hier",
    .summary = "reduce-scatter in groups, allreduce across groups, allgather (--group-size; default: node)",
    .cost = "(G-1)(2a + (n/G)(2b + g)) + inner(p/G ranks, n/G), G = group size",
    .model_s = hier_model_s,
    .setup = hier_setup,
    .scratch_bytes = ar_twolevel_scratch_bytes,
    .reserve = ar_twolevel_reserve,
    .run_mid = ar_twolevel_run_mid,
    .teardown = ar_twolevel_teardown,
};
