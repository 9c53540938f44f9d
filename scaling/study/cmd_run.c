/* cmd_run.c — `study run NAME [RUN]` and `study collect NAME RUN`: a study from its
 * settings to its report, or its tables and report again from finished points. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "converge_study.h"
#include "compose_study.h"
#include "fsio.h"
#include "models_study.h"
#include "regime_study.h"
#include "simulate_sweep.h"
#include "study.h"

static const study_def *const studies[] = {&models_study, &converge_study, &compose_study,
                                           &simulate_study, &regime_study};
#define NSTUDIES ((int)(sizeof studies / sizeof studies[0]))

static int drive(int argc, char **argv, int collect_only)
{
    const char *verb = argv[0];
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: study %s NAME %s\nstudies:", verb, collect_only ? "RUN [--partial]" : "[RUN]");
        for (int i = 0; i < NSTUDIES; i++)
            printf(" %s", studies[i]->name);
        printf("\nSettings come from the environment (QUICK=1, the study's names; JOBS), are saved in\n"
               "RUN/NAME_settings.txt and kept by a resumed folder (scaling/study/studies.md).\n");
        if (collect_only)
            printf("A point that never finished (or whose folder is gone) is refused, not read as not\n"
                   "reached; --partial collects the finished points alone (snapshot.sh).\n");
        return 0;
    }
    if (collect_only && argc == 4 && strcmp(argv[3], "--partial") == 0) {
        collect_only = 2;
        argc = 3;
    }
    if (argc < 2 || argc > 3 || (collect_only && argc != 3)) {
        fprintf(stderr, "study %s: expected NAME%s (study %s --help)\n", verb, collect_only ? " and RUN" : " [RUN]", verb);
        return 2;
    }
    for (int i = 0; i < NSTUDIES; i++)
        if (strcmp(argv[1], studies[i]->name) == 0) {
            rs_install_signal_handlers();
            const char *run = argc == 3 ? argv[2] : getenv("RUN");
            int rc = study_drive(studies[i], run && *run ? run : NULL, collect_only);
            if (rc < 0) {
                fprintf(stderr, "%s: %s\n", studies[i]->name, rs_lasterr());
                return 2;
            }
            return rc;
        }
    fprintf(stderr, "study %s: unknown study '%s' (expected", verb, argv[1]);
    for (int i = 0; i < NSTUDIES; i++)
        fprintf(stderr, "%s %s", i == 0 ? "" : i == NSTUDIES - 1 ? " or" : ",", studies[i]->name);
    fprintf(stderr, "; study %s --help)\n", verb);
    return 2;
}

int cmd_run(int argc, char **argv) { return drive(argc, argv, 0); }
int cmd_collect(int argc, char **argv) { return drive(argc, argv, 1); }
