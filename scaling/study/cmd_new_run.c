/* cmd_new_run.c — `study new-run`: a new, empty run folder for a campaign (make bench),
 * named where every study's is (study_new_run_name), created, and printed; with --name
 * only its name (make scaling: its studies check their settings before any is made). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fsio.h"
#include "study.h"
#include "study_def.h"

int cmd_new_run(int argc, char **argv)
{
    int name_only = argc == 2 && strcmp(argv[1], "--name") == 0;
    if (argc != 1 && !name_only) {
        int help = argc == 2 && strcmp(argv[1], "--help") == 0;
        fprintf(help ? stdout : stderr, "usage: study new-run [--name]\nCreates a new results/runs/<UTC "
                "stamp>-<host>/ and prints its name (--name: only the name, nothing created).\n");
        return help ? 0 : 2;
    }
    char run[1024];
    study_new_run_name(run, sizeof run);
    if (name_only) {
        printf("%s\n", run);
        return 0;
    }
    if (rs_mkdir_p("results/runs") != 0 || mkdir(run, 0777) != 0) {
        fprintf(stderr, "study new-run: cannot create %s: %s%s\n", run, strerror(errno),
                errno == EEXIST ? " (not overwriting it; start again in a second)" : "");
        return 2;
    }
    printf("%s\n", run);
    return 0;
}
