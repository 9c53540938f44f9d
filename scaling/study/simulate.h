/* simulate.h — `study simulate` (study simulate): allreduce at scale under SimGrid
 * SMPI.  The unchanged allreduce-bench, built with smpicc (build/bin/allreduce-bench-smpi),
 * runs on a generated platform (platform-gen) for every node count, size and algorithm
 * asked, plus SMPI's built-in algorithms and the alpha-beta lower bound, into one
 * CSV/JSON (allreduce-bench's columns plus platform, placement, simulated, checked,
 * note); or, with --experiment caffe, the Sunway TaihuLight study's experiment.
 *
 * The steps, one file each:
 *   simulate_opts.c   the options (--help), checked before anything is made
 *   simulate_plan.c   the platforms and the simulations (jobs) to run, their expected cost
 *   simulate_files.c  a planned folder's files, and the programs its jobs run
 *   simulate_job.c    --run-job: one job's smpirun (built by smpi_launch.c)
 *   simulate_rows.c   the jobs' CSVs merged, failed and skipped points, the bound
 *   simulate_caffe.c  the Caffe-style comparison from those rows
 *   simulate_out.c    the metadata, the files (common/record.c), the summary for people
 *   cmd_simulate.c    the subcommand: plan, run (the pool, pool.c), collect
 * The sweep of `make simulate` is the study "simulate" (simulate_sweep.c), its report
 * section simulate_report*.c. */
#ifndef SIMULATE_H
#define SIMULATE_H

#include <stdio.h>

#include "record.h"

#define SIM_MAXN 128    /* node counts */
#define SIM_MAXS 128    /* sizes in one list */
#define SIM_MAXA 32     /* algorithms */
#define SIM_MAXAT 16    /* --sizes-at options */

typedef struct {
    int n;
    long long v[SIM_MAXS];
} sim_list;

typedef struct {
    /* as given (NULL: not given) */
    const char *platform, *placement, *experiment, *preset, *csv, *json, *reduce, *platform_args;
    const char *hier_groups, *keep, *run_ids, *nodes_arg, *sizes, *sizes_large, *sizes_ring, *algos;
    const char *mem_budget, *seed_text;
    const char *sizes_at[SIM_MAXAT];
    int nsizes_at;
    int quick, plan, collect, skip_repeats;
    /* what they mean */
    int nodes[SIM_MAXN], nnodes, maxp;       /* sorted, unique */
    sim_list small, large, ring;             /* --sizes, --sizes-large, --sizes-ring */
    int at_p[SIM_MAXAT];
    sim_list at[SIM_MAXAT];
    char project[SIM_MAXA][32], smpi[SIM_MAXA][32];
    int nproject, nsmpi, bound;
    long long budget, eager;
    int jobs, hier_max;
    char cmdline[8192];                      /* "study simulate ARGS", for the metadata */
    char bench[4096], gen[4096], foldlib[4096], smpirun[4096];
} sim_opts;

/* 0, 1 (--help printed), or -1 (rs_lasterr: the one line, without "simulate: "). */
int sim_opts_parse(sim_opts *o, int argc, char **argv);
/* The programs the simulations need (bench, platform-gen, the fold library, smpirun). */
int sim_opts_programs(sim_opts *o);
const sim_list *sim_sizes_for(const sim_opts *o, int p);
/* A size as the options take it (4, 64k, 1M): bytes, or -1. */
long long sim_bytes_of(const char *s);

/* ---- the plan (simulate_plan.c) ---- */
typedef struct {
    char id[8];           /* j0001 */
    int p, fold, ns;      /* nodes; 1: folded buffers; sizes */
    char kind[8];         /* project or smpi */
    char name[32];        /* the algorithm (SMPI's own name for kind smpi) */
    char algos[32];       /* allreduce-bench --algo: NAME, or library for SMPI's */
    char sel[16];         /* smpi/coll-selector */
    long long w;          /* expected wall time, ms */
    long long sizes[SIM_MAXS];
} sim_job;

typedef struct {
    int p;
    char algo[40], bytes[24], note[256];   /* bytes "" when none */
} sim_skip;

typedef struct {
    sim_job *job;
    int njobs;
    sim_skip *skip;
    int nskip;
    char alpha_us[64], link_gbs[64], reduce_gbs[64];   /* the largest platform's, as written */
    long long fused;                                   /* caffe: the gradient's bytes */
} sim_plan;

/* Platforms into WORK/plat (unless there; regenerate 0: keep a planned folder's), then
 * the jobs; write 1: their files in WORK/jobs (and WORK/settings). -1 (rs_lasterr). */
int sim_plan_make(const sim_opts *o, const char *work, int regenerate, int write, sim_plan *pl);
void sim_plan_free(sim_plan *pl);
/* WORK/settings and the jobs' files (simulate_files.c): 0, or -1. */
int sim_plan_write(const sim_opts *o, const sim_plan *pl, const char *work);
/* VALUE of KEY in a file of KEY=VALUE lines into buf ("" if none): 0, or -1 (no file). */
int sim_kv(const char *path, const char *key, char *buf, size_t len);
/* WORK/jobs/ID.env and .sizes read back for --run-job: 0, or -1. */
int sim_plan_read_job(const char *work, const char *id, sim_job *j);

/* ---- one job (simulate_job.c) ---- */
/* Runs job ID of a planned WORK (its sizes together; each alone if that run dies):
 * 1 when it gave rows, 0 none, -1 (rs_lasterr) a bad folder. */
int sim_run_job(const char *work, const char *id);

/* ---- collect (simulate_rows.c, simulate_caffe.c, simulate_out.c) ---- */
/* Every row as text (allreduce-bench's columns + platform, placement, simulated, checked,
 * note): the jobs' CSVs, their failed sizes, the skipped points, the bound.  *status
 * becomes 1 where a project algorithm was wrong or could not be simulated. */
rs_table *sim_rows(const sim_opts *o, const sim_plan *pl, const char *work, int *status);
rs_table *sim_caffe(const sim_opts *o, const rs_table *rows);
/* The CSV/JSON (as asked) with the metadata; elapsed_s: the simulations' wall time.
 * 0, or -1 (rs_lasterr). */
int sim_write(const sim_opts *o, const sim_plan *pl, const char *work, const rs_table *rows,
              long long elapsed_s);
void sim_summary(const sim_opts *o, const rs_table *rows, FILE *f);

/* ---- the report section (simulate_report.c, simulate_report_more.c) ---- */
/* report.md's section from RUN's files, Markdown into f: 0, or -1 (rs_lasterr: no
 * simulate.csv or caffe.csv in RUN). */
int sim_report(const char *run, FILE *f);
void sim_report_caffe(const char *run, FILE *f);
/* The 20x's band: the lowest and highest improvement at p nodes of caffe_style [0] and
 * caffe_style_cell [1] over RUN's caffe_platform_{bw2,bwhalf,lat2,lathalf}.csv (the
 * experiment on the platform off by 2x each way); 1, or 0 where one is missing. */
int sim_caffe_band(const char *run, double p, double lo[2], double hi[2]);
void sim_report_placement(const char *run, FILE *f);
void sim_report_platforms(const char *run, FILE *f);
/* Bytes for people: "4 B", "64 KiB", "1 MiB". */
void sim_human(double bytes, char *buf, size_t len);

/* The text of column COL in row R of a text table ("" if none). */
const char *sim_cell(const rs_table *t, int r, const char *col);
/* The value of KEY in a platform's parameters (platform-gen's PREFIX.params: "KEY VALUE
 * # source" lines) into buf: 0, or -1 ("" in buf) where the file or the key is missing. */
int sim_platform_param(const char *params, const char *key, char *buf, size_t len);
/* A number as awk prints one: integers in int range as integers, else %.6g. */
void sim_awk_num(double x, char *buf, size_t len);

#endif
