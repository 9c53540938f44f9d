/* simulate_files.c — the files of a planned simulate folder WORK and the programs its
 * jobs run: settings (what --run-job needs: the programs, the SMPI settings), jobs/list
 * ("ID W" a line, in plan order), and per job jobs/ID.env (KEY=VALUE lines) and
 * jobs/ID.sizes (one size a line); written by --plan, read back by --run-job. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "simulate.h"
#include "study_def.h"
#include "fsio.h"

int sim_opts_programs(sim_opts *o)
{
    study_program(o->bench, sizeof o->bench, "RS_SMPI_BENCH", "build/bin/allreduce-bench-smpi");
    study_program(o->gen, sizeof o->gen, "RS_PLATFORM_GEN", "build/bin/platform-gen");
    study_program(o->foldlib, sizeof o->foldlib, "RS_SMPI_FOLDLIB", "build/lib/rs-smpi-fold.so");
    const char *e = getenv("SMPIRUN");
    snprintf(o->smpirun, sizeof o->smpirun, "%s", e && *e ? e : "smpirun");
    RS_CHECK(access(o->bench, X_OK) == 0, "%s is missing: build it with 'make' (needs libsimgrid-dev: make deps)", o->bench);
    RS_CHECK(access(o->gen, X_OK) == 0, "%s is missing: build it with 'make'", o->gen);
    RS_CHECK(access(o->foldlib, F_OK) == 0, "%s is missing: build it with 'make'", o->foldlib);
    RS_CHECK(study_runnable(o->smpirun), "%s not found (make deps installs libsimgrid-dev)", o->smpirun);
    return 0;
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    RS_CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

int sim_plan_write(const sim_opts *o, const sim_plan *pl, const char *work)
{
    char path[4400], text[16384];
    snprintf(text, sizeof text, "eager=%lld\nhier_groups=%s\nhier_max=%d\nreduce=%s\nplatform=%s\n"
             "bench=%s\nfoldlib=%s\nsmpirun=%s\n", o->eager, o->hier_groups, o->hier_max,
             o->reduce ? o->reduce : "", o->platform, o->bench, o->foldlib, o->smpirun);
    snprintf(path, sizeof path, "%s/settings", work);
    if (write_text(path, text) != 0)
        return -1;
    size_t n = 0;
    static char list[1 << 20];
    list[0] = 0;
    for (int i = 0; i < pl->njobs; i++) {
        const sim_job *j = &pl->job[i];
        snprintf(text, sizeof text, "P=%d\nKIND=%s\nNAME=%s\nALGOS=%s\nFOLD=%d\nSEL=%s\nW=%lld\nNS=%d\n", j->p,
                 j->kind, j->name, j->algos, j->fold, j->sel, j->w, j->ns);
        snprintf(path, sizeof path, "%s/jobs/%s.env", work, j->id);
        if (write_text(path, text) != 0)
            return -1;
        size_t t = 0;
        for (int s = 0; s < j->ns; s++)
            t += (size_t)snprintf(text + t, sizeof text - t, "%lld\n", j->sizes[s]);
        snprintf(path, sizeof path, "%s/jobs/%s.sizes", work, j->id);
        if (write_text(path, text) != 0)
            return -1;
        if (n < sizeof list - 64)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s %lld\n", j->id, j->w);
    }
    snprintf(path, sizeof path, "%s/jobs/list", work);
    return write_text(path, list);
}

/* KEY=VALUE lines of a file: VALUE of KEY into buf ("" if none); 0 if the file is there. */
int sim_kv(const char *path, const char *key, char *buf, size_t len)
{
    FILE *f = rs_fopen_read(path);
    char line[8192];
    size_t n = strlen(key);
    buf[0] = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == '=') {
            line[strcspn(line, "\n")] = 0;
            snprintf(buf, len, "%s", line + n + 1);
            break;
        }
    fclose(f);
    return 0;
}

int sim_plan_read_job(const char *work, const char *id, sim_job *j)
{
    char path[4300], v[64];
    memset(j, 0, sizeof *j);
    snprintf(path, sizeof path, "%s/jobs/%s.env", work, id);
    RS_CHECK(access(path, R_OK) == 0, "--run-job: no simulation %s in %s", id, work);
    snprintf(j->id, sizeof j->id, "%s", id);
    sim_kv(path, "P", v, sizeof v);
    j->p = atoi(v);
    sim_kv(path, "FOLD", v, sizeof v);
    j->fold = atoi(v);
    sim_kv(path, "KIND", j->kind, sizeof j->kind);
    sim_kv(path, "NAME", j->name, sizeof j->name);
    sim_kv(path, "ALGOS", j->algos, sizeof j->algos);
    sim_kv(path, "SEL", j->sel, sizeof j->sel);
    snprintf(path, sizeof path, "%s/jobs/%s.sizes", work, id);
    FILE *f = rs_fopen_read(path);
    RS_CHECK(f, "--run-job: %s has no sizes in %s", id, work);
    while (j->ns < SIM_MAXS && fscanf(f, "%lld", &j->sizes[j->ns]) == 1)
        j->ns++;
    fclose(f);
    return 0;
}
