/* simulate_sweep.h — the study "simulate" (make simulate): the allreduce sweep under
 * SimGrid SMPI as parts, each one `study simulate` run (study simulate's options),
 * planned first, then every part's simulations run as one list of points, the longest
 * first, then each part's CSV and JSON, the joined tables, the figures and the report
 * section.  simulate_sweep.c: the study (settings, plan, points); simulate_parts.c: the
 * presets; simulate_sweep_out.c: the collect. */
#ifndef SIMULATE_SWEEP_H
#define SIMULATE_SWEEP_H

#include "study_def.h"

typedef struct {
    char name[128];     /* the part: its files are RUN/NAME.csv, .json, .txt, .log */
    char args[4096];    /* its options as written */
    char *argv[160];    /* the same as words (argv[0] "simulate"), NULL-ended */
    int argc;
    char store[4096];
} sim_part;

/* The parts of the preset (QUICK, FULL or the default) or of the file SIM_PARTS (lines
 * "NAME options", # comments): their count (*parts malloc'd), or -1 (rs_lasterr). */
int sim_parts(const study_run *r, sim_part **parts);

/* ARGS split into words as the shell would ('...', "...", \x), into argv from index 1. */
int sim_split_words(const char *args, char *store, size_t len, char **argv, int most);

/* The collect (simulate_sweep_out.c); plan_failed: a part could not be planned. */
int sim_sweep_collect(study_run *r, int plan_failed, long long t0);

extern const study_def simulate_study;

/* `study simulate ARGS...` run as a program (the tool itself): its exit status. */
int sim_self(const sim_part *p, const char *const *more, const char *out, const char *err);

/* RUN/train_dp_sim.csv from the data-parallel points (simulate_sweep.c): 0, or 1 when
 * none wrote a table. */
int sim_dp_collect(study_run *r);

#endif
