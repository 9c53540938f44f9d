/* cmd_figvars.c — `study figure-vars RUN FIGURE`: the gnuplot -e assignments
 * plot/FIGURE.gp takes computed from RUN's CSVs (figure_vars.c says which), for
 * study figures; nothing for a figure that takes none. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "figures.h"
#include "study.h"

int cmd_figure_vars(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: study figure-vars RUN FIGURE\nThe gnuplot -e values plot/FIGURE.gp takes from RUN's CSVs "
               "(a convergence run's fits, a first row's values, the sizes present, sorted series).\n");
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "study figure-vars: expected RUN FIGURE, a run folder and a plot/FIGURE.gp "
                        "(study figure-vars --help)\n");
        return 2;
    }
    char vars[32768];
    if (figure_vars(argv[1], argv[2], vars, sizeof vars) != 0) {
        fprintf(stderr, "study figure-vars: %s\n", rs_lasterr());
        return 2;
    }
    printf("%s\n", vars);
    return 0;
}
