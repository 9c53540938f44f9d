/* study_def.h — one study's shape: its settings, its points, its tables, declared once.
 *
 * A study (models.c, ...) is a study_def: a table of settings (name, default, QUICK=1
 * default, what a value must be), a check of what only rnn-train can judge, a plan that
 * adds points (an argument vector each, run by the pool in RUN/points/NAME/), and
 * a collect that turns the finished points into tables and a report section.
 * driver.c runs every study the same way: settings (saved in RUN/NAME_settings.txt, a
 * resumed folder keeps them; a study may derive some first, `prepare`) -> checks ->
 * plan -> points -> plan again, until the plan adds none -> collect.
 * Exit: 0, 1 a point failed, 2 bad settings, 130/143 stopped. */
#ifndef STUDY_DEF_H
#define STUDY_DEF_H

#include "argv.h"
#include "record.h"

typedef enum {
    SET_TEXT,       /* anything (rnn-train judges it in the study's check) */
    SET_POS_INTS,   /* a list of integers > 0 */
    SET_POS_NUM,    /* one number > 0 */
    SET_UINT,       /* one integer >= 0 */
    SET_POS_NUMS,   /* a list of numbers > 0 */
    SET_OPT_INTS,   /* a list of integers > 0, or empty: given empty, it stays empty */
    SET_OPT_NUMS,   /* a list of numbers > 0, or empty: given empty, it stays empty */
} set_kind;

typedef struct {
    const char *name;     /* HIDDEN_LIST: the environment variable and the saved key */
    const char *def;      /* its default */
    const char *quick;    /* its default under QUICK=1 (NULL: def) */
    set_kind kind;
    const char *expect;   /* SET_POS_NUM, SET_UINT: the words after "not", e.g. "a number
                             of seconds > 0" */
} study_setting;

#define STUDY_MAX_SETTINGS 32
#define STUDY_MOST_INT 1000000   /* a count setting's bound (N, b, hidden size, seeds) */
#define STUDY_MOST_LIST 256      /* values in a list setting */
/* study_drive's status (the exit status) when PLAN=1 left a round's points in
 * WORK/array_points.txt for a cluster's job array (scaling/slurm/scaling.sh) */
#define STUDY_PLANNED 4

typedef struct study_def study_def;

typedef struct {
    const study_def *def;
    char dir[2048];                        /* the run folder */
    char work[2200];                       /* where the points run: RUN, or RUN/def->work */
    char points[2300];                     /* WORK/NAME_points.txt */
    const char *value[STUDY_MAX_SETTINGS]; /* the settings, in def->settings order */
    int added;                             /* points the last plan call added */
    void *state;                           /* the study's own, between plan calls */
    int jobs;                              /* points run at once */
} study_run;

struct study_def {
    const char *name;
    const study_setting *settings;
    int nsettings;
    int jobs;                              /* JOBS when the environment gives none (0: the
                                              cores) */
    const char *jobs_var;                  /* that variable's name (NULL: JOBS) */
    /* NULL: the settings, the points file and points/ in RUN; else in RUN/WORK, the
     * study's scratch (its collect may remove it once the results are written) */
    const char *work;
    /* "NAME=value": a saved settings file without NAME (a folder made before the
     * setting was) ran value; NULL-terminated (NULL: such a file is refused) */
    const char *const *absent;
    /* NULL, or called before the settings are read (saved: the folder has them): sets
     * in the environment the values a new folder derives (the platform's, say), or
     * reconciles one given now with the saved one.  0, or -1 (rs_lasterr). */
    int (*prepare)(study_run *r, int saved);
    int (*check)(study_run *r);            /* 0, or -1 (rs_lasterr: the setting and why) */
    /* 0 (the driver runs what it added and calls it again), 1 a point it needed failed
     * (rs_lasterr says which), -1 bad input */
    int (*plan)(study_run *r);
    /* 0, 1 (nothing to tabulate, or a file failed), -1 bad input (rs_lasterr) */
    int (*collect)(study_run *r);
};

/* Runs study d in folder run (NULL: a new results/runs/ folder), or only its collect
 * (collect_only 1; 2: of the finished points alone, the others left out), or its points
 * without the collect (STUDY_NO_COLLECT: study scaling's PLAN=1 rounds, which must not
 * collect a finished study again at every round): the exit status, or -1 for bad
 * settings (rs_lasterr). */
#define STUDY_NO_COLLECT 3
int study_drive(const study_def *d, const char *run, int collect_only);

/* 0 when a run folder's path has no quote, backslash or control character (spaces are
 * fine): -1 naming it (rs_lasterr), before anything is made. */
int study_path_ok(const char *what, const char *path);
/* A new run folder's name, results/runs/<UTC stamp>-<host>: made here only (driver.c). */
void study_new_run_name(char *buf, size_t len);
/* The pending points of the points file run in DIR, JOBS at once (pool.c; the lines it
 * prints to out_fd, unless -1): 0 all done, 1 some failed, 130/143 stopped (every point
 * stopped too), 2 or -1 a file could not be read or written (rs_lasterr). */
int study_run_points(const char *dir, const char *points, int jobs, int out_fd);
/* PLAN=1's round: the points of POINTS still to run in DIR (pending, or damaged) written
 * to OUT, a points file for a job array (none: OUT removed); failed: those that failed,
 * left out (a run here retries them).  The count, or -1 (rs_lasterr). */
int study_array_points(const char *dir, const char *points, const char *out, int *failed);

/* The run folder RUN locked for this process's life (run_lock.c): 0, or -1 naming the
 * holder (rs_lasterr).  doing: what the lock file says of the holder. */
int study_hold(const char *run, const char *doing);
/* RUN held shared, and its point NAME exclusively (`study point`, a Slurm array task). */
int study_hold_point(const char *run, const char *name);

/* ---- for the studies (study_lib.c) ---- */
/* The repository's root: the folder above build/bin/study (the current folder if the
 * program runs from elsewhere). */
const char *study_root(void);
/* This program's own path (ROOT/build/bin/study): what a point runs to call a subcommand. */
const char *study_self(void);
/* A program on PATH (or a path): 1 when it can run. */
int study_runnable(const char *prog);
/* PATH: the environment's VAR where set (the tests' and a user's stand-ins), else the
 * build's FILE under the root. */
void study_program(char *path, size_t len, const char *var, const char *file);
const char *study_value(const study_run *r, const char *name);
/* A setting's value replaced (one the study settles itself; study_save_settings keeps it). */
void study_set_value(study_run *r, const char *name, const char *value);
/* The value of NAME in a settings file (NAME="value" lines; malloc'd), or NULL (driver.c). */
char *study_saved_value(const char *file, const char *name);
/* RUN/NAME_settings.txt written again from r->value, a value the plan settled (driver.c). */
int study_save_settings(const study_run *r);
/* A point (NAME WEIGHT OK ARG...: points_file.h), unless the file has it: its command
 * the vector cmd (freed here).  OK "x": an infeasible point, cmd's words its reason. */
int study_add(study_run *r, const char *name, double weight, const char *ok, study_argv *cmd);
/* 1 done (rc 0), 0 not run yet, -1 failed: rs_lasterr names it and its last stderr line. */
int study_point_state(const study_run *r, const char *name);
/* The number a point folder's one-line file holds (DIR/FILE: "seconds",
 * "cpu_seconds"), 0 when absent. */
double study_point_number(const char *dir, const char *file);
/* RUN/points/NAME/FILE read (NULL if absent or malformed). */
rs_table *study_point_csv(const study_run *r, const char *name, const char *file);
/* The text of column COL in the table's last row ("" if none). */
const char *study_cell(const rs_table *t, const char *col, char *buf, size_t len);
/* The same in row ROW (0-based). */
const char *study_cell_at(const rs_table *t, int row, const char *col, char *buf, size_t len);
/* 1 if DIR/points/NAME/stderr.txt has WORD on a line ("diverg": the run diverged). */
int study_point_says(const char *dir, const char *name, const char *word);
/* The metadata every study table starts with: command, date_utc, the build's commit. */
void study_meta_std(rs_table *t, const char *command);
/* `rnn-train --check-args ARGS` (ARGS split at spaces): -1 with "WHAT: rnn-train says: ..." */
int study_train_check(const char *what, const char *args);
/* A plan in stages (converge, regime): stage(r, state) advances *at and may add points;
 * called from *at on until one adds points or fails, or *at is done.  A session's first
 * call returns after its first stage, so the driver runs what a stopped session left
 * pending before a later stage reads the results. */
int study_stages(study_run *r, int *at, int done, int (*stage)(study_run *r, void *state), void *state);
/* The last line of the file PATH that says something ("" if none): why a point failed. */
void study_last_line(const char *path, char *buf, size_t len);
/* `env -C ROOT ROOT/build/bin/study train-sim` into c: the trainer under SMPI, run from
 * the repository's root, where rnn-train-smpi finds the corpora (env: a program, not a
 * shell).  0, or -1 (rs_lasterr). */
int study_train_sim_cmd(study_argv *c);
/* 1, with rs_lasterr: the point NAME a plan needed failed or wrote nothing usable. */
int study_point_failed(const study_run *r, const char *name);
/* The GEMM plan the point PREFIXgemm-bX (an `rnn-train --bench 1 --json summary.json` at
 * --batch X under --gemm auto) recorded, quoted for a command line ('...'), so the points
 * at batch X run the same backends: 0, or 1 when that point failed or recorded none
 * (rs_lasterr).  The prefix keeps apart the studies that share a run folder. */
int study_gemm_plan(const study_run *r, const char *prefix, long batch, char *buf, size_t len);
/* PATH and all below it removed (rm -rf). */
void study_remove_tree(const char *path);
/* A training point's --checkpoint-every for a cap of `steps`: ~50 checkpoints a point,
 * so a stopped point loses at most 2% of it and writing them costs little. */
long study_ckpt_every(long steps);
/* RUN/PATH moved to RUN/old-K/ (the first K free for its name), so nothing is overwritten. */
int study_keep_aside(const study_run *r, const char *path);
/* The one layout of a report section: <!-- NAME -->, the file MD with its trailing
 * newlines trimmed to one, <!-- /NAME -->; so a report is the same bytes whichever study
 * wrote it last (a missing MD: an empty section). */
void study_put_section(FILE *out, const char *name, const char *md);
/* The section between <!-- NAME --> marks of RUN/scaling_report.md replaced (or added). */
int study_report_section(const study_run *r, const char *name, const char *md_file);
/* The same, but a section new to the report goes first (the study the report leads with). */
int study_report_first(const study_run *r, const char *name, const char *md_file);

#endif
