/* train_sim.h — `study train-sim` (study train-sim launches it): rnn-train's training
 * step at scale under SimGrid SMPI, one smpirun per node count and allreduce algorithm.
 * train_sim_opts.c: the options, every value checked before anything runs;
 * train_sim.c: the runs (one smpirun each, smpi_launch.c) and their rows. */
#ifndef STUDY_TRAIN_SIM_H
#define STUDY_TRAIN_SIM_H

typedef struct {
    /* the options as given (the messages and rnn-train's flags quote them) */
    const char *platform, *nodes, *algos, *sync, *compute, *fold, *bench, *eval_every, *eval_ranks,
        *hier_max, *csv, *keep, *platform_args;
    char **train_args;   /* rnn-train's flags, after -- */
    int ntrain;
    char train[4200], gen[4200], foldlib[4200], smpirun[4200];   /* the programs */
} ts_opts;

/* argv (argv[0] the subcommand) into o: 0, 1 when --help was printed, -1 (rs_lasterr:
 * one line) on bad input or a program missing. */
int ts_opts_parse(ts_opts *o, int argc, char **argv);

/* The words of a list of them ("16,256,800": split at commas and blanks) into words[],
 * cut in the copy buf: how many. */
int ts_words(const char *list, char *buf, size_t len, char **words, int most);

#endif
