/* cmd_new_run.c — `study new-run`: a new, empty run folder for a campaign (make bench),
 * named where every study's is (study_new_run_name), created, and printed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fsio.h"
#include "study.h"
#include "study_def.h"

int cmd_new_run(int argc, char **argv)
{
    if (argc != 1) {
        int help = argc == 2 && strcmp(argv[1], "--help") == 0;
        fprintf(help ? stdout : stderr, "usage: study new-run\nCreates a new results/runs/<UTC stamp>-<host>/ "
                "and prints its name.\n");
        return help ? 0 : 2;
    }
    char run[1024];
    study_new_run_name(run, sizeof run);
    if (rs_mkdir_p("results/runs") != 0 || mkdir(run, 0777) != 0) {
        fprintf(stderr, "study new-run: cannot create %s: %s%s\n", run, strerror(errno),
                errno == EEXIST ? " (not overwriting it; start again in a second)" : "");
        return 2;
    }
    printf("%s\n", run);
    return 0;
}
