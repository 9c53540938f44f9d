/* main.c — `study SUBCOMMAND ...`: the subcommand table and the dispatch (study.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <string.h>

#include "study.h"

static const study_cmd cmds[] = {
    {"get", "one value of a CSV or JSON file (a column of a row, a dotted JSON key)", cmd_get},
    {"compare", "two tables row by row (two runs' logs): do they agree", cmd_compare},
    {"netcheck", "allreduce on a real network against SMPI on its calibrated platform: the errors", cmd_netcheck},
    {"points", "a study's points table (points.csv) from its run folder's points/", cmd_points},
    {"took", "what a run folder's studies took: wall, job and CPU hours, over its stretches", cmd_took},
    {"advise", "how many nodes pay off: a short run's noise scale and step cost against a cluster", cmd_advise},
    {"scaling", "make scaling: the four studies in one run folder, then its tables and report", cmd_scaling},
    {"run", "a study (converge, regime, compose, models, simulate): settings, points, tables, report", cmd_run},
    {"collect", "a study's tables and report again from its finished points", cmd_collect},
    {"point", "one point of a points file, run in its folder (a Slurm array task)", cmd_point},
    {"run-points", "every pending point of a points file, JOBS at once (what study run does)", cmd_run_points},
    {"pending", "the points of a points file still to run", cmd_pending},
    {"status", "a points file's points counted by state", cmd_status},
    {"figures", "every figure of a run folder drawn again from its CSVs (make figures)", cmd_figures},
    {"figure-vars", "the gnuplot values a run's figure takes from its CSVs (study figures)", cmd_figure_vars},
    {"report", "a run folder's report.md: the machine, the targets, every study, the claims", cmd_report},
    {"roofline", "a run's roofline points (roofline.csv) and roofs for plot/roofline.gp", cmd_roofline},
    {"concat", "one table of several CSVs with the same columns (make bench's parts)", cmd_concat},
    {"likwid", "make bench COUNTERS=likwid's probe: can likwid-perfctr count here", cmd_likwid},
    {"new-run", "a new results/runs/<stamp>-<host>/ folder, created and printed", cmd_new_run},
    {"simulate", "allreduce at scale under SimGrid SMPI (study simulate; --help)", cmd_simulate},
    {"train-sim", "rnn-train's training step at scale under SimGrid SMPI (study train-sim; --help)", cmd_train_sim},
    {"simulate-report", "report.md's section on allreduce at scale from a run folder", cmd_simulate_report},
};
#define NCMDS ((int)(sizeof cmds / sizeof cmds[0]))

static void usage(FILE *f)
{
    fprintf(f, "usage: study SUBCOMMAND [ARGS] (study SUBCOMMAND --help for its own)\n\n");
    for (int i = 0; i < NCMDS; i++)
        fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].what);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    /* started by make (its recipes exec study): a make killed outright (SIGKILL, no
     * handler of its runs) takes the study down with it, and the study its points */
    if (getenv("MAKELEVEL"))
        prctl(PR_SET_PDEATHSIG, SIGTERM);
    for (int i = 0; i < NCMDS; i++)
        if (strcmp(argv[1], cmds[i].name) == 0)
            return cmds[i].run(argc - 1, argv + 1);
    fprintf(stderr, "study: unknown subcommand '%s' (expected", argv[1]);
    for (int i = 0; i < NCMDS; i++)
        fprintf(stderr, "%s %s", i == 0 ? "" : i == NCMDS - 1 ? " or" : ",", cmds[i].name);
    fprintf(stderr, "; study --help)\n");
    return 2;
}
