/* cmd_figures.c — `study figures [RUN]`: every figure of a run folder drawn again from
 * its CSVs (make figures; make bench's last step).  Each plot/NAME.gp whose CSV RUN
 * has draws RUN/figures/NAME.png (draw.c): NAME.csv, or else the longest prefix of
 * NAME up to a '_' that names one (exp.csv for exp_speed.gp); the roofline's points
 * and roofs come from `study roofline`.  RUN defaults to the newest run in results/runs/,
 * then results/reference.  Exit: 0, 1 a figure failed, 2 no such folder or no gnuplot. */
#define _GNU_SOURCE
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "draw.h"
#include "proc.h"
#include "study.h"
#include "study_def.h"

/* RUN/X.csv for the longest X of NAME, NAME less its last _part, ...: 1 found. */
static int csv_of(const char *run, const char *name, char *csv, size_t len)
{
    char n[256];
    snprintf(n, sizeof n, "%s", name);
    for (;;) {
        snprintf(csv, len, "%s/%s.csv", run, n);
        if (access(csv, F_OK) == 0)
            return 1;
        char *u = strrchr(n, '_');
        if (!u)
            return 0;
        *u = 0;
    }
}

static int newest_run(char *run, size_t len)
{
    glob_t g;
    int found = glob("results/runs/*/", 0, NULL, &g) == 0 && g.gl_pathc > 0;
    snprintf(run, len, "%s", found ? g.gl_pathv[g.gl_pathc - 1] : "results/reference");
    if (found)
        globfree(&g);
    return 0;
}

int cmd_figures(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
        int help = argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0);
        fprintf(help ? stdout : stderr, "usage: study figures [RUN]\nRedraws every figure of RUN (default: the "
                "newest results/runs/*, else results/reference) from its CSVs: plot/NAME.gp -> RUN/figures/NAME.png.\n");
        return help ? 0 : 2;
    }
    char run[4096];
    if (argc == 2)
        snprintf(run, sizeof run, "%s", argv[1]);
    else
        newest_run(run, sizeof run);
    for (size_t n = strlen(run); n > 1 && run[n - 1] == '/'; n--)
        run[n - 1] = 0;
    struct stat st;
    if (study_path_ok("RUN", run) != 0 || stat(run, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "study figures: %s\n", stat(run, &st) != 0 || !S_ISDIR(st.st_mode)
                ? "RUN is not a folder (give RUN=results/runs/...)" : rs_lasterr());
        return 2;
    }
    if (!study_runnable("gnuplot")) {
        fprintf(stderr, "study figures: gnuplot is missing (make deps)\n");
        return 2;
    }
    if (study_hold(run, "study figures") != 0) {
        fprintf(stderr, "study figures: %s\n", rs_lasterr());
        return 2;
    }
    /* the roofline's points (RUN/roofline.csv) and its roofs, as gnuplot assignments */
    char roofs[4096] = "";
    char *rargv[] = {(char *)study_self(), "roofline", run, NULL};
    int status = proc_capture(rargv, 0, roofs, sizeof roofs) != 0;
    for (char *c = roofs; *c; c++)
        *c = *c == '\n' ? ' ' : *c;
    char pattern[4300];
    snprintf(pattern, sizeof pattern, "%s/plot/*.gp", study_root());
    glob_t g;
    int drawn = 0;
    if (glob(pattern, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            char name[256], csv[4400], extra[9216] = "";
            const char *base = strrchr(g.gl_pathv[i], '/') + 1;
            snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 3), base);
            int have = csv_of(run, name, csv, sizeof csv);
            if (strcmp(name, "scaling_breakdown") == 0 || strcmp(name, "scaling_efficiency") == 0) {
                char strong[4400];   /* both read the weak-scaling table; efficiency the strong too */
                snprintf(csv, sizeof csv, "%s/scaling_weak.csv", run);
                snprintf(strong, sizeof strong, "%s/scaling_strong.csv", run);
                have = access(csv, F_OK) == 0;
                if (strcmp(name, "scaling_efficiency") == 0) {
                    snprintf(extra, sizeof extra, "weak='%s'; strong='%s';", csv, strong);
                    have = have && access(strong, F_OK) == 0;
                }
            }
            if (!have)
                continue;
            snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " %s", roofs);
            int rc = study_draw(run, name, csv, extra, "figures");
            drawn += rc == 0;
            status |= rc != 0;
        }
        globfree(&g);
    }
    if (!drawn)
        fprintf(stderr, "figures: no CSV in %s that a plot/*.gp script draws\n", run);
    return status;
}
