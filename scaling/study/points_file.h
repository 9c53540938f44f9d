/* points_file.h — a study's points file, read once in C: one point per line,
 *   NAME WEIGHT OK COMMAND...   run the shell command line COMMAND in RUN/points/NAME/;
 *                               OK: the exit codes that count as done (0 or 0,1);
 *                               WEIGHT: its expected cost, any unit, for the ETA
 *   NAME 0 x REASON...          a point that cannot run here: recorded, not run
 *   # ...                       a comment
 * (study_add writes it; scaling/study.sh hands the pending names to GNU parallel,
 * which runs each with `study point`). */
#ifndef POINTS_FILE_H
#define POINTS_FILE_H

typedef struct {
    char name[256];
    double weight;
    char ok[64];       /* "0", "0,1" or "x" */
    char *command;     /* the rest of the line */
} pf_point;

typedef struct {
    pf_point *p;
    int n;
} pf_points;

/* Reads and checks the file: -1 with "FILE: point K: ..." (a malformed line, a name used
 * twice) in rs_lasterr. */
int pf_read(const char *path, pf_points *out);
void pf_free(pf_points *pts);
/* The point by name or by its 1-based index (a Slurm array task), or NULL. */
const pf_point *pf_find(const pf_points *pts, const char *name_or_index);

typedef enum { PF_PENDING, PF_DONE, PF_FAILED, PF_INFEASIBLE } pf_state;
pf_state pf_state_of(const char *run, const pf_point *p);

#endif
