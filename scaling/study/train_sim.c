/* train_sim.c — `study train-sim` (study train-sim; --help): rnn-train's training step
 * at scale under SimGrid SMPI.  Per node count P and allreduce algorithm, in a work
 * folder (--keep DIR, else a temporary one): platform-gen's platform pP (made once),
 * then one smpirun of build/bin/rnn-train-smpi --bench through smpirun (smpi_launch.h)
 * (the smpirun settings, GNU time -v), then its CSV's rows with platform, compute,
 * folded and this machine's cost, wall_s and rss_mib (from GNU time's report).  The
 * rows go to --csv FILE, else to the console as a table.
 * Exit: 0 ok, 1 a simulation failed (the tail of its stderr is shown), 2 bad usage (one
 * line), 130 interrupted. */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fsio.h"
#include "proc.h"
#include "record.h"
#include "simulate.h"
#include "study.h"
#include "smpi_launch.h"
#include "study_def.h"
#include "train_sim.h"

static volatile sig_atomic_t stopped;
static void stop(int sig) { stopped = sig; }

static const char *const added[] = {"platform", "compute", "folded", "wall_s", "rss_mib"};

static int work_folder(const ts_opts *o, char *work, size_t len)
{
    if (o->keep) {   /* a new or empty folder: what a run leaves there is never reused */
        RS_CHECK(rs_mkdir_p(o->keep) == 0 && realpath(o->keep, work), "--keep: cannot create %s", o->keep);
        DIR *d = opendir(work);
        struct dirent *e;
        int empty = d != NULL;
        while (d && empty && (e = readdir(d)))
            empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
        if (d)
            closedir(d);
        RS_CHECK(empty, "--keep %s is not empty: give a new folder (what a run leaves there is never "
                 "overwritten or reused)", o->keep);
        return 0;
    }
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(work, len, "%s/rnnscale-train-sim-XXXXXX", tmp);
    RS_CHECK(mkdtemp(work), "cannot create a work folder");
    return 0;
}

/* PLAT (.xml, .hosts, .groups, .params) for P nodes, unless made already; the node's
 * speed in flop/s as its host_gflops gives it. */
static int platform(const ts_opts *o, const char *plat, const char *p, char *speed, size_t len)
{
    char xml[4400], out[8192], params[4400], gflops[256], words[4096], *argv[80] = {
        (char *)o->gen, "--platform", (char *)o->platform, "--nodes", (char *)p, "--out", (char *)plat};
    int n = 7;
    if (o->platform_args)
        n += ts_words(o->platform_args, words, sizeof words, argv + n, 70);
    argv[n] = NULL;
    snprintf(xml, sizeof xml, "%s.xml", plat);
    if (access(xml, F_OK) != 0) {
        if (proc_capture(argv, 1, out, sizeof out) != 0) {
            size_t n = strlen(out);
            while (n > 0 && out[n - 1] == '\n')
                out[--n] = 0;
            RS_CHECK(0, "platform-gen: %s", strncmp(out, "platform-gen: ", 14) == 0 ? out + 14 : out);
        }
    }
    snprintf(params, sizeof params, "%s.params", plat);
    speed[0] = 0;
    if (sim_platform_param(params, "host_gflops", gflops, sizeof gflops) == 0)
        sim_awk_num(strtod(gflops, NULL) * 1e9, speed, len);
    return 0;
}

/* One smpirun into OUT.{csv,log,err,time}: its exit status. */
static int launch(const ts_opts *o, const char *plat, const char *out, const char *p, const char *algo,
                  const char *speed, int folded)
{
    char log[4500], err[4500], csv[4500], first[512];
    snprintf(csv, sizeof csv, "%s.csv", out);
    snprintf(log, sizeof log, "%s.log", out);
    snprintf(err, sizeof err, "%s.err", out);
    study_argv gnu_time = {0};   /* wall time and peak memory into OUT.time */
    sa_words(&gnu_time, "/usr/bin/time -v");
    sa_opt(&gnu_time, "-o", "%s.time", out);
    snprintf(first, sizeof first, "--cfg=smpi/simulate-computation:%s --cfg=smpi/host-speed:%sf",
             strcmp(o->compute, "run") == 0 ? "yes" : "no", speed);
    smpi_cmd c;
    smpi_cmd_start(&c, &gnu_time, o->smpirun, atol(p), plat, 65536, first);
    sa_free(&gnu_time);
    sa_words(&c.argv, "--cfg=smpi/coll-selector:ompi --cfg=smpi/allreduce:rdb");
    sa_add(&c.env, "RS_SMPI_COMPUTE=%s", o->compute);
    if (strcmp(o->platform, "torus") == 0)
        sa_add(&c.env, "RS_SMPI_GROUPS=%s.groups", plat);
    if (folded)
        smpi_cmd_fold(&c, o->foldlib);
    /* rnn-train's flags: ours, --gemm blocked (a later --gemm replaces it), the user's */
    smpi_cmd_program(&c, o->train);
    sa_opt(&c.argv, "--bench", "%s", o->bench);
    sa_opt(&c.argv, "--sync", "%s", o->sync);
    sa_opt(&c.argv, "--allreduce", "%s", algo);
    sa_opt(&c.argv, "--group-max", "%s", o->hier_max);
    sa_opt(&c.argv, "--csv", "%s", csv);
    sa_words(&c.argv, "--gemm blocked");
    for (int i = 0; i < o->ntrain; i++)
        sa_add(&c.argv, "%s", o->train_args[i]);
    if (o->eval_every)
        sa_opt(&c.argv, "--eval-every", "%s", o->eval_every);
    if (strtol(o->eval_ranks, NULL, 10) != 0)
        sa_opt(&c.argv, "--eval-ranks", "%s", o->eval_ranks);
    if (smpi_cmd_check(&c) != 0) {
        fprintf(stderr, "%s\n", rs_lasterr());
        smpi_cmd_free(&c);
        return 2;
    }
    int rc = proc_run(c.argv.v, smpi_cmd_envp(&c), log, err, 0, NULL);
    smpi_cmd_free(&c);
    return rc;
}

/* GNU time -v's wall clock (h:mm:ss or m:ss, in seconds) and peak memory (MiB). */
static void cost(const char *out, char *wall, char *rss, size_t len)
{
    char path[4500], line[8192];
    snprintf(path, sizeof path, "%s.time", out);
    FILE *f = rs_fopen_read(path);
    wall[0] = rss[0] = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *v = strstr(line, ": ");
        if (!v)
            continue;
        v += 2;
        if (strstr(line, "Elapsed (wall clock)")) {
            double s = 0;
            for (char *t = v, *end; *t && *t != '\n'; t = *end == ':' ? end + 1 : end) {
                s = s * 60 + strtod(t, &end);
                if (end == t)
                    break;
            }
            sim_awk_num(s, wall, len);
        } else if (strstr(line, "Maximum resident set size"))
            snprintf(rss, len, "%.0f", strtod(v, NULL) / 1024);
    }
    if (f)
        fclose(f);
}

/* The run's rows (OUT.csv) added to *rows, the table made from its header if none. */
static int add_rows(rs_table **rows, const char *out, const ts_opts *o, int folded, const char *wall,
                    const char *rss)
{
    char path[4500];
    snprintf(path, sizeof path, "%s.csv", out);
    rs_table *t = rs_table_read_csv_text(path);
    if (!t)
        return -1;
    int nc = rs_table_ncols(t);
    if (!*rows) {
        rs_col *cols = calloc((size_t)nc + 5, sizeof *cols);
        RS_ASSERT(cols != NULL);
        for (int c = 0; c < nc; c++)
            cols[c] = (rs_col){rs_table_col(t, c)->name, RS_STR, 0};
        for (int c = 0; c < 5; c++)
            cols[nc + c] = (rs_col){added[c], RS_STR, 0};
        *rows = rs_table_new("train-sim", cols, nc + 5);
        free(cols);
    }
    int same = rs_table_ncols(*rows) == nc + 5;
    for (int c = 0; same && c < nc; c++)
        same = strcmp(rs_table_col(*rows, c)->name, rs_table_col(t, c)->name) == 0;
    if (!same) {
        rs_seterr("%s: its columns are not the first run's", path);
        rs_table_free(t);
        return -1;
    }
    const char *ours[] = {o->platform, o->compute, folded ? "1" : "0", wall, rss};
    for (int r = 0; r < rs_table_nrows(t); r++) {
        int row = rs_table_row(*rows);
        for (int c = 0; c < nc; c++)
            if (rs_cell_isset(t, r, c))
                rs_set_str(*rows, row, rs_table_col(t, c)->name, rs_cell_str(t, r, c));
        for (int c = 0; c < 5; c++)
            if (*ours[c])
                rs_set_str(*rows, row, added[c], ours[c]);
    }
    rs_table_free(t);
    return 0;
}

/* The last 5 lines of FILE on stderr. */
static void tail5(const char *file)
{
    char *line[5] = {0};
    size_t cap[5] = {0};
    long n = 0;
    FILE *f = rs_fopen_read(file);
    while (f && getline(&line[n % 5], &cap[n % 5], f) >= 0)
        n++;
    for (long i = n > 5 ? n - 5 : 0; i < n; i++)
        fputs(line[i % 5], stderr);
    for (int i = 0; i < 5; i++)
        free(line[i]);
    if (f)
        fclose(f);
}

static int nonempty(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}

/* P nodes, ALGO: 0 rows, 1 failed, -1 bad input (platform-gen refused), 130 stopped. */
static int run_one(const ts_opts *o, const char *work, const char *p, const char *algo, rs_table **rows)
{
    char plat[4300], out[4400], speed[64], csv[4500], wall[64], rss[64];
    snprintf(plat, sizeof plat, "%s/p%s", work, p);
    snprintf(out, sizeof out, "%s/p%s-%s", work, p, algo);
    if (platform(o, plat, p, speed, sizeof speed) != 0)
        return -1;
    int folded = strcmp(o->fold, "yes") == 0 || (strcmp(o->fold, "auto") == 0 && strtol(p, NULL, 10) > 16);
    int rc = launch(o, plat, out, p, algo, speed, folded);
    if (stopped)
        return 130;
    snprintf(csv, sizeof csv, "%s.csv", out);
    if (rc == 0 && nonempty(csv)) {
        cost(out, wall, rss, sizeof wall);
        if (add_rows(rows, out, o, folded, wall, rss) == 0) {
            printf("%s s, %s MiB\n", wall, rss);
            return 0;
        }
        printf("FAILED\n");
        fprintf(stderr, "train-sim: %s\n", rs_lasterr());
        return 1;
    }
    printf("FAILED\n");
    fflush(stdout);
    char err[4500];
    snprintf(err, sizeof err, "%s.err", out);
    tail5(err);
    return 1;
}

static int run_all(const ts_opts *o, const char *work)
{
    char nbuf[4096], abuf[4096], *nodes[1024], *algos[256];
    int nn = ts_words(o->nodes, nbuf, sizeof nbuf, nodes, 1024), na = ts_words(o->algos, abuf, sizeof abuf, algos, 256);
    rs_table *rows = NULL;
    int fail = 0;
    for (int i = 0; i < nn; i++)
        for (int j = 0; j < na; j++) {
            int rc = 130;
            if (!stopped) {
                printf("train-sim: %s nodes, %s, %s ... ", nodes[i], algos[j], o->compute);
                fflush(stdout);
                rc = run_one(o, work, nodes[i], algos[j], &rows);
            }
            if (rc == 130) {
                printf("\ntrain-sim: interrupted\n");
                rs_table_free(rows);
                return 130;
            }
            if (rc < 0) {
                fprintf(stderr, "train-sim: %s\n", rs_lasterr());
                rs_table_free(rows);
                return 2;
            }
            fail |= rc;
        }
    if (rows && o->csv) {
        if (rs_table_write_csv(rows, o->csv) == 0)
            printf("train-sim: wrote %s\n", o->csv);
        else {
            fprintf(stderr, "train-sim: %s\n", rs_lasterr());
            fail = 1;
        }
    } else if (rows)
        rs_table_print(rows, stdout, NULL);
    rs_table_free(rows);
    return fail;
}

int cmd_train_sim(int argc, char **argv)
{
    ts_opts o;
    char work[4096];
    int rc = ts_opts_parse(&o, argc, argv);
    if (rc == 1)
        return 0;
    if (rc != 0 || work_folder(&o, work, sizeof work) != 0) {
        fprintf(stderr, "train-sim: %s\n", rs_lasterr());
        return 2;
    }
    /* Ctrl-C reaches the simulation too: this waits for it, then stops */
    struct sigaction note = {.sa_handler = stop};
    sigaction(SIGINT, &note, NULL);
    sigaction(SIGTERM, &note, NULL);
    rc = run_all(&o, work);
    if (!o.keep)
        study_remove_tree(work);
    return rc;
}
