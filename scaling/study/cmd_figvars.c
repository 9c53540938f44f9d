/* cmd_figvars.c — `study figure-vars RUN`: the gnuplot -e assignments a convergence
 * run's figures take (plot/scaling_convergence*.gp: per fitted b its S_min, E_min,
 * B_crit and steps at N = 1; the base optimizer), for plot/figures.sh. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "converge_study.h"
#include "study.h"

int cmd_figure_vars(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: study figure-vars RUN\nThe gnuplot -e values of RUN's convergence figures (from its "
               "scaling_convergence.csv and scaling_fit.json).\n");
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "study figure-vars: expected RUN, a convergence study's folder (study figure-vars --help)\n");
        return 2;
    }
    char vars[16384];
    if (conv_figure_vars(argv[1], vars, sizeof vars) != 0) {
        fprintf(stderr, "study figure-vars: %s (run the convergence study on %s first)\n", rs_lasterr(), argv[1]);
        return 2;
    }
    printf("%s\n", vars);
    return 0;
}
