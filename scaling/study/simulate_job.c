/* simulate_job.c — one planned simulation (--run-job ID): all its sizes in one smpirun;
 * if that run dies (not just "wrong"), each size alone, so that one crashing point does
 * not lose the others, and a note per size that failed.  smpirun's command is built
 * here (smpi_launch.h: the settings every simulation shares), never by a shell.
 *
 * Beside the job's files it writes ID.csv (or ID.sK.csv, one per size run alone),
 * ID.log and ID.err (smpirun's output), ID.failed ("SIZE exit RC: WHY" lines), ID.rss
 * (peak memory, KB, with GNU time), ID.seconds, ID.cpu and ID.rc, written last. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "proc.h"
#include "simulate.h"
#include "smpi_launch.h"
#include "study_def.h"
#include "fsio.h"

static int nonempty(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}

/* One smpirun of job j over the sizes in SIZES into OUT: its exit status. */
static int run_one(const char *work, const sim_job *j, const char *sizes, const char *out, double *cpu)
{
    char set[4300], v[8][4200], plat[4300], log[4300], err[4300], rss[4300];
    snprintf(set, sizeof set, "%s/settings", work);
    static const char *const keys[] = {"eager", "hier_groups", "hier_max", "reduce", "platform",
                                       "bench", "foldlib", "smpirun"};
    for (int i = 0; i < 8; i++)
        sim_kv(set, keys[i], v[i], sizeof v[i]);
    snprintf(plat, sizeof plat, "%s/plat/p%d", work, j->p);
    snprintf(log, sizeof log, "%s/jobs/%s.log", work, j->id);
    snprintf(err, sizeof err, "%s/jobs/%s.err", work, j->id);
    snprintf(rss, sizeof rss, "%s/jobs/%s.rss", work, j->id);
    /* smpi:NAME is `library` under smpi/allreduce:NAME; the benchmark's own allreduces
     * stay recursive doubling (scaling/sim/smpi_hooks.c), whatever NAME is */
    study_argv gnu_time = {0};   /* peak memory (KB), appended to ID.rss */
    sa_words(&gnu_time, "/usr/bin/time -a -f %M");
    sa_opt(&gnu_time, "-o", "%s", rss);
    smpi_cmd c;
    smpi_cmd_start(&c, access("/usr/bin/time", X_OK) == 0 ? &gnu_time : NULL, v[7], j->p, plat, atol(v[0]),
                   "--cfg=smpi/simulate-computation:no");
    sa_free(&gnu_time);
    sa_add(&c.argv, "--cfg=smpi/coll-selector:%s", j->sel);
    sa_add(&c.argv, "--cfg=smpi/allreduce:%s", strcmp(j->kind, "smpi") == 0 ? j->name : "rdb");
    if (v[3][0])
        sa_add(&c.env, "RS_SMPI_REDUCE_GBYTES_PER_S=%s", v[3]);
    if (strcmp(v[4], "torus") == 0)
        sa_add(&c.env, "RS_SMPI_GROUPS=%s.groups", plat);
    if (j->fold)
        smpi_cmd_fold(&c, v[6]);
    smpi_cmd_program(&c, v[5]);
    sa_opt(&c.argv, "--algo", "%s", j->algos);
    sa_opt(&c.argv, "--sizes", "%s", sizes);
    /* one call per point: a simulated call takes the same time every time, so a checked
     * call before each timed one doubled the cost (the timed output is checked) */
    sa_words(&c.argv, "--iters 1 --warmup 0 --mode isolated --timed-only");
    if (strcmp(v[1], "equal") == 0)   /* hier's unequal platform groups cut into equal ones */
        sa_opt(&c.argv, "--group-max", "%s", v[2]);
    if (j->fold)
        sa_add(&c.argv, "--no-check");
    sa_opt(&c.argv, "--csv", "%s", out);
    if (smpi_cmd_check(&c) != 0) {
        fprintf(stderr, "%s\n", rs_lasterr());
        smpi_cmd_free(&c);
        return 2;
    }
    double cp = 0;
    int rc = proc_run(c.argv.v, smpi_cmd_envp(&c), log, err, 1, &cp);
    smpi_cmd_free(&c);
    *cpu += cp;
    return rc;
}

/* The last line of the job's stderr that says something (not a backtrace), as a CSV
 * note can hold it: commas and double quotes replaced, at most 160 bytes. */
static void last_words(const char *work, const char *id, char *why, size_t len)
{
    char path[4300], line[4096];
    snprintf(path, sizeof path, "%s/jobs/%s.err", work, id);
    FILE *f = rs_fopen_read(path);
    why[0] = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!line[0] || strncmp(line + strspn(line, " "), "->", 2) == 0 || strncmp(line, "Backtrace", 9) == 0)
            continue;
        snprintf(why, len < 161 ? len : 161, "%.160s", line);
    }
    if (f)
        fclose(f);
    for (char *c = why; *c; c++)
        *c = *c == ',' ? ';' : *c == '"' ? '\'' : *c;
}

/* ID.s*.csv of an earlier attempt. */
static void remove_parts(const char *work, const char *id)
{
    char dir[4300], path[4600], prefix[64];
    snprintf(dir, sizeof dir, "%s/jobs", work);
    snprintf(prefix, sizeof prefix, "%s.s", id);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && l > 4 && strcmp(e->d_name + l - 4, ".csv") == 0) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    }
    if (d)
        closedir(d);
}

/* WORK/jobs/ID.EXT written (mode "w") or appended to ("a"). */
static void write_file(const char *work, const char *id, const char *ext, const char *mode, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void write_file(const char *work, const char *id, const char *ext, const char *mode, const char *fmt, ...)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/jobs/%s.%s", work, id, ext);
    FILE *f = fopen(path, mode);
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
}

int sim_run_job(const char *work, const char *id)
{
    sim_job j;
    if (sim_plan_read_job(work, id, &j) != 0)
        return -1;
    char csv[4300], sizes[4300], failed[4300], path[4300];
    snprintf(csv, sizeof csv, "%s/jobs/%s.csv", work, id);
    snprintf(sizes, sizeof sizes, "%s/jobs/%s.sizes", work, id);
    snprintf(failed, sizeof failed, "%s/jobs/%s.failed", work, id);
    time_t t0 = time(NULL);
    double cpu = 0;
    unlink(csv);
    unlink(failed);
    remove_parts(work, id);
    snprintf(path, sizeof path, "%s/jobs/%s.rss", work, id);
    unlink(path);
    snprintf(path, sizeof path, "%s/jobs/%s.rc", work, id);
    unlink(path);
    int rc = run_one(work, &j, sizes, csv, &cpu), ran = 0;
    if ((rc != 0 && rc != 1) || !nonempty(csv)) {   /* it died: each size alone */
        unlink(csv);
        for (int k = 1; k <= j.ns; k++) {
            char one[4300], out[4300];
            snprintf(one, sizeof one, "%s/jobs/%s.s%d.sizes", work, id, k);
            snprintf(out, sizeof out, "%s/jobs/%s.s%d.csv", work, id, k);
            FILE *f = fopen(one, "w");
            RS_CHECK(f && fprintf(f, "%lld\n", j.sizes[k - 1]) > 0 && fclose(f) == 0, "cannot write %s", one);
            int r = run_one(work, &j, one, out, &cpu);
            if ((r != 0 && r != 1) || !nonempty(out)) {
                char why[256];
                last_words(work, id, why, sizeof why);
                write_file(work, id, "failed", "a", "%lld exit %d: %s\n", j.sizes[k - 1], r, why);
                unlink(out);
            } else
                ran = 1;
        }
        rc = nonempty(failed) ? 3 : 0;
    } else
        ran = 1;
    write_file(work, id, "seconds", "w", "%lld\n", (long long)(time(NULL) - t0));
    write_file(work, id, "cpu", "w", "%.1f\n", cpu);
    snprintf(path, sizeof path, "%s/jobs/%s.rc.tmp", work, id);
    FILE *f = fopen(path, "w");
    RS_CHECK(f && fprintf(f, "%d\n", rc) > 0 && fclose(f) == 0, "cannot write %s", path);
    char done[4300];
    snprintf(done, sizeof done, "%s/jobs/%s.rc", work, id);
    RS_CHECK(rename(path, done) == 0, "cannot write %s: %s", done, strerror(errno));
    return ran;
}
