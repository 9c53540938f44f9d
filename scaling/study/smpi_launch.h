/* smpi_launch.h — one smpirun, as an argument vector and environment built here (no
 * shell between the study and SimGrid): the settings every simulation shares, so that
 * `study simulate` and `study train-sim` charge the same network model.
 *
 *   network/model CM02, no cross-traffic, smpi/wtime 0, binomial bcast and reduce,
 *   small messages asynchronous up to EAGER bytes (detached sends up to max(EAGER,
 *   64 KiB)), SimGrid's log at warnings; a large malloc arena (MALLOC_* variables) so
 *   hundreds of ranks in one process do not trim and map on every call; folded runs
 *   (buffers of SMPI_FOLD_BYTES or more shared, scaling/sim/smpi_fold.c preloaded) with
 *   one shared-malloc block covering any folded buffer. */
#ifndef SMPI_LAUNCH_H
#define SMPI_LAUNCH_H

#include "argv.h"

#define SMPI_FOLD_BYTES 1048576L           /* fold every buffer of 1 MiB or more */
#define SMPI_BLOCK_BYTES (256L << 20)      /* one shared-malloc block: any folded buffer */

typedef struct {
    study_argv argv;   /* [GNU time ...] smpirun -np P -platform X -hostfile H --cfg=... PROGRAM ARGS */
    study_argv env;    /* NAME=VALUE, added to the environment */
    int hostfile;      /* argv's index of H */
    int program;       /* argv's index of PROGRAM (smpi_cmd_program), 0 before */
} smpi_cmd;

/* smpirun's head for P ranks on PLAT (PLAT.xml, PLAT.hosts), behind prefix (GNU time
 * and its flags; NULL: none), first_cfg's words, then the shared settings at EAGER
 * bytes; the caller adds its own --cfg=..., the program and its flags. */
void smpi_cmd_start(smpi_cmd *c, const study_argv *prefix, const char *smpirun, long p, const char *plat, long eager,
                    const char *first_cfg);
/* The program smpirun runs; its arguments follow. */
void smpi_cmd_program(smpi_cmd *c, const char *program);
/* 0, or -1 (rs_lasterr: what and why) where smpirun would split an argument: its shell
 * script expands the hostfile and the program's arguments unquoted (the platform and the
 * program's path it quotes), so a path or value with a space became two (a run folder
 * "a b": "Unable to open 'b/.../p2.hosts'"). */
int smpi_path_ok(const char *path, const char *what);
int smpi_cmd_check(const smpi_cmd *c);
/* A run folder whose stage runs smpirun: smpi_path_ok on it (and on the working folder
 * where it is relative). */
int smpi_run_ok(const char *dir);
/* The folded-run settings: the block size, RS_SMPI_FOLD_BYTES and LD_PRELOAD=foldlib. */
void smpi_cmd_fold(smpi_cmd *c, const char *foldlib);
void smpi_cmd_free(smpi_cmd *c);
/* NULL-terminated views for proc_run. */
char **smpi_cmd_envp(smpi_cmd *c);

#endif
