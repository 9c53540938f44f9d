/* study.h — `build/bin/study`: the one reader of what the studies write.
 *
 * Scripts under scaling/ and plot/ launch runs; everything that reads a result back
 * (a CSV through rs_table_read_csv, a JSON through cJSON's tree) is a subcommand here,
 * one per file (cmd_NAME.c), listed once in main.c. */
#ifndef STUDY_H
#define STUDY_H

#include "opts.h"

typedef struct {
    const char *name;
    const char *what;                   /* one line for `study --help` */
    int (*run)(int argc, char **argv);  /* argv[0] is the subcommand; exit status */
} study_cmd;

/* The body of a subcommand that takes one run folder and options: parses them (usage
 * for --help: exit 0), runs run(RUN); a bad command line or a failed run prints
 * "study NAME: why" on one line and gives exit 2. */
int study_cmd_on_run(int argc, char **argv, const rs_opt *opts, int nopts, const char *usage,
                     const char *name, int (*run)(const char *dir));

int cmd_get(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_netcheck(int argc, char **argv);
int cmd_points(int argc, char **argv);
int cmd_took(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_scaling(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_point(int argc, char **argv);
int cmd_pending(int argc, char **argv);
int cmd_run_points(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_figure_vars(int argc, char **argv);
int cmd_figures(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_roofline(int argc, char **argv);
int cmd_concat(int argc, char **argv);
int cmd_likwid(int argc, char **argv);
int cmd_new_run(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_simulate_report(int argc, char **argv);
int cmd_train_sim(int argc, char **argv);

#endif
