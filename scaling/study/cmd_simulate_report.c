/* cmd_simulate_report.c — `study simulate-report RUN`: report.md's section on allreduce at
 * scale, in Markdown on stdout, from the files make simulate wrote in RUN (simulate_report.c;
 * P=N in the environment: the node count of the per-size tables).  Exit 0, or 2 with one
 * line when RUN holds neither simulate.csv nor caffe.csv. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "simulate.h"
#include "study.h"

int cmd_simulate_report(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: study simulate-report RUN   (P=N: the per-size tables at N nodes; default 800, else the\n"
               "largest below)\nThe allreduce-at-scale section of report.md, from RUN's simulate.csv, caffe.csv,\n"
               "simulate_placement.csv, simulate_platforms.csv and simulate_cost.txt.\n");
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "study simulate-report: expected RUN (study simulate-report --help)\n");
        return 2;
    }
    char run[4096];
    snprintf(run, sizeof run, "%s", argv[1]);
    size_t l = strlen(run);
    while (l > 1 && run[l - 1] == '/')
        run[--l] = 0;
    if (sim_report(run, stdout) != 0) {
        fprintf(stderr, "%s\n", rs_lasterr());
        return 2;
    }
    return 0;
}
