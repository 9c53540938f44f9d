/* points_file.h — a study's points file, read once in C: one point per line,
 *   NAME WEIGHT OK ARG...   run the argument vector ARG... (argv.h's escaped words; no
 *                           shell) in RUN/points/NAME/; OK: the exit codes that count as
 *                           done (0 or 0,1); WEIGHT: its expected cost, any unit, for the
 *                           ETA and the order
 *   NAME 0 x REASON...      a point that cannot run here: recorded, not run
 *   # ...                   a comment
 * NAME is letters, digits and . _ + - (not starting with a dot), so a point's folder
 * RUN/points/NAME/ stays inside RUN.  study_add writes the file; study run (pool.c)
 * or one `study point` per Slurm array task runs the points.
 *
 * A finished point is sealed: RUN/points/NAME/result lists the size and the FNV-1a
 * 64-bit hash of every file the point left (ckpt/ aside).  A done point whose files no
 * longer match is damaged: it runs again, and no collect reads it. */
#ifndef POINTS_FILE_H
#define POINTS_FILE_H

#include "argv.h"

typedef struct {
    char name[256];
    double weight;
    char ok[64];       /* "0", "0,1" or "x" */
    char *command;     /* the rest of the line: the escaped words, or the reason */
    study_argv argv;   /* the words (none for an infeasible point) */
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

/* 1 when name is a point name (above). */
int pf_name_ok(const char *name);

typedef enum { PF_PENDING, PF_DONE, PF_FAILED, PF_INFEASIBLE, PF_DAMAGED } pf_state;
/* The state from rc and the seal: a done point whose files changed is PF_DAMAGED
 * (rs_lasterr names the file and how).  A done point from before seals (no result
 * file) counts as done. */
pf_state pf_state_of(const char *run, const pf_point *p);
/* The state from rc alone (no hashing: for progress lines). */
pf_state pf_state_quick(const char *run, const pf_point *p);

/* RUN/points/ made, with its mark .sealed, when it does not exist yet: from then on a
 * finished point there without its seal is damaged (a folder from before seals, which
 * has no mark, keeps its points done). */
void pf_mark_sealed(const char *run);
/* Seals the point folder dir (writes dir/result): 0, or -1 (rs_lasterr). */
int pf_seal(const char *dir);
/* 0 when dir's files match its seal (or it has none); -1 with rs_lasterr naming the
 * first file that does not. */
int pf_check_seal(const char *dir);

#endif
