/* bench_output.c — what `allreduce-bench` prints and writes: the table block per size
 * for people, OSU's layout (--osu), --list, the header, and the CSV/JSON files with
 * their metadata (rank 0; common/record.c).  Apart from the measurement
 * (bench_measure.c), so that a column's definition lives in one place.
 *
 * Per row: time_us_min/avg/max = min/mean/max over ranks of each rank's mean time per
 * call (OSU's min/avg/max); p50_us / p99_us = percentiles over iterations of the
 * slowest rank's time for that iteration (the collective's completion time).
 *
 * Bandwidth (nccl-tests' definitions, doc/PERFORMANCE.md), from the median p50_us:
 *   algbw = bytes / p50                  (GB/s, 10^9 bytes per second)
 *   busbw = algbw * 2(p-1)/p             (what each rank's link carries in a
 *                                         bandwidth-optimal allreduce: comparable
 *                                         across p and with link bandwidth)
 * model_us / model_hi_us = the algorithm's alpha-beta-gamma cost (its model_s, plus the
 * copy-in when not in place) with best-case / worst-case parameters measured at start
 * (bench_fit.c) or given; in_model_range = model_us <= p50_us <= model_hi_us;
 * model_ratio = p50_us / model_us. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "allreduce.h"
#include "bench_state.h"
#include "check.h"
#include "fsio.h"
#include "meta.h"
#include "progress.h"
#include "record.h"

/* ---- the columns ---- */
static const rs_col columns[] = {
    {"algo", RS_STR, 0},            {"p", RS_INT, 0},               {"bytes", RS_INT, 0},
    {"dtype", RS_STR, 0},           {"op", RS_STR, 0},              {"inplace", RS_INT, 0},
    {"mode", RS_STR, 0},            {"iters", RS_INT, 0},           {"time_us_avg", RS_DBL, 4},
    {"time_us_min", RS_DBL, 4},     {"time_us_max", RS_DBL, 4},     {"p50_us", RS_DBL, 4},
    {"p99_us", RS_DBL, 4},          {"algbw_gbytes_per_s", RS_DBL, 4}, {"busbw_gbytes_per_s", RS_DBL, 4},
    {"model_us", RS_DBL, 4},        {"model_hi_us", RS_DBL, 4},     {"model_ratio", RS_DBL, 3},
    {"in_model_range", RS_INT, 0},  {"wrong", RS_INT, 0},
};
static const char table_cols[] =
    "algo,bytes,dtype,mode,iters,time_us_avg,time_us_min,time_us_max,p50_us,p99_us,"
    "algbw_gbytes_per_s,busbw_gbytes_per_s,model_us,model_hi_us,in_model_range,wrong";

rs_table *bench_new_table(void) { return rs_table_new("allreduce", columns, RS_ARRAY_LEN(columns)); }

static void add_row(rs_table *t, const row *r)
{
    int i = rs_table_row(t);
    rs_set_str(t, i, "algo", r->algo);
    rs_set_int(t, i, "p", bench_run.p);
    rs_set_int(t, i, "bytes", r->bytes);
    rs_set_str(t, i, "dtype", ar_dtype_name(r->dtype));
    rs_set_str(t, i, "op", ar_op_name(bench_run.op));
    rs_set_int(t, i, "inplace", bench_opt.inplace);
    rs_set_str(t, i, "mode", bench_mode_name(r->mode));
    rs_set_int(t, i, "iters", r->iters);
    rs_set_dbl(t, i, "time_us_avg", r->avg_us);
    rs_set_dbl(t, i, "time_us_min", r->min_us);
    rs_set_dbl(t, i, "time_us_max", r->max_us);
    rs_set_dbl(t, i, "p50_us", r->p50_us);
    rs_set_dbl(t, i, "p99_us", r->p99_us);
    if (r->p50_us > 0) {
        /* the one place bandwidths are derived (formula in this file's header comment) */
        double algbw = (double)r->bytes / (r->p50_us * 1e-6) / 1e9;
        rs_set_dbl(t, i, "algbw_gbytes_per_s", algbw);
        rs_set_dbl(t, i, "busbw_gbytes_per_s", algbw * 2.0 * (bench_run.p - 1) / bench_run.p);
    }
    if (r->model_us > 0) {
        rs_set_dbl(t, i, "model_us", r->model_us);
        rs_set_dbl(t, i, "model_hi_us", r->model_hi_us);
        rs_set_dbl(t, i, "model_ratio", r->p50_us / r->model_us);
        rs_set_int(t, i, "in_model_range", r->p50_us >= r->model_us && r->p50_us <= r->model_hi_us);
    }
    rs_set_int(t, i, "wrong", r->wrong);
}

/* ---- for people ---- */
static double gbs(double s_per_byte) { return s_per_byte > 0 ? 1e-9 / s_per_byte : INFINITY; }

void bench_print_header(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = 0;
    char *comma = strchr(lib, ',');
    if (comma)
        *comma = 0;
    printf("# allreduce-bench: p=%d (%d per node), op %s, %s, check %s, seed %ld\n", bench_run.p,
           bench_run.ranks_per_node, ar_op_name(bench_run.op), bench_opt.inplace ? "in place" : "not in place",
           bench_opt.no_check ? "off" : "on", bench_opt.seed);
    printf("# MPI: %s\n", lib);
    const ar_model *lo = &bench_run.model.lo, *hi = &bench_run.model.hi;
    printf("# model lo: alpha %.3g us, link %.3g GB/s, reduce %.3g GB/s, copy %.3g GB/s, "
           "library scratch free\n"
           "# model hi: alpha %.3g us, link %.3g GB/s, reduce %.3g GB/s, copy %.3g GB/s, "
           "library scratch %.3g GB/s\n# (%s)\n",
           lo->alpha_s * 1e6, gbs(lo->beta_s_per_byte), gbs(lo->gamma_s_per_byte),
           gbs(lo->copy_s_per_byte), hi->alpha_s * 1e6, gbs(hi->beta_s_per_byte),
           gbs(hi->gamma_s_per_byte), gbs(hi->copy_s_per_byte), gbs(hi->scratch_s_per_byte),
           bench_run.model_how);
    printf("# algbw = bytes / p50_us; busbw = algbw * 2(p-1)/p; in_model_range: model_us <= p50_us <= model_hi_us\n");
    fflush(stdout);
}

static void osu_block_header(const char *algo, int mode, ar_dtype t)
{
    printf("\n# OSU MPI Allreduce Latency Test (allreduce-bench: %s, %s, %s, p=%d)\n", algo,
           bench_mode_name(mode), ar_dtype_name(t), bench_run.p);
    printf("%-10s%18s%18s%18s%12s\n", "# Size", "Avg Latency(us)", "Min Latency(us)",
           "Max Latency(us)", "Iterations");
}

void bench_list_algorithms(void)
{
    printf("%-13s %-70s\n%13s cost: a = alpha, b = beta, g = gamma, n bytes, p ranks, p' = pof2(p)\n",
           "algorithm", "what", "");
    for (int i = 0; i < ar_registry_len; i++)
        printf("%-13s %s\n%13s cost: %s\n", ar_registry[i]->name, ar_registry[i]->summary, "",
               ar_registry[i]->cost);
    const char *lib = ar_library_algorithms();
    printf("library:K     %s\n", lib ? lib : "(not available: needs Open MPI's coll/tuned)");
}

/* Rank 0: one size's rows as a table block for people. */
void bench_print_block(row *rows, int mi, int s, long bytes, ar_dtype t, int mode)
{
    rs_table *block = rs_table_new("allreduce", columns, RS_ARRAY_LEN(columns));
    for (int a = 0; a < bench_run.nsel; a++)
        add_row(block, bench_row_at(rows, mi, s, a));
    rs_progress_done();
    printf("\n# %ld bytes, %s, %s\n", bytes, ar_dtype_name(t), bench_mode_name(mode));
    rs_table_print(block, stdout, table_cols);
    fflush(stdout);
    rs_table_free(block);
}

/* Rank 0: one mode's rows into the file's table, algorithm by algorithm (one curve per
 * algorithm); with --osu, also OSU's blocks. */
void bench_add_file_rows(rs_table *all, row *rows, int mi, int mode, ar_dtype t)
{
    for (int a = 0; a < bench_run.nsel; a++) {
        if (bench_opt.osu) {
            rs_progress_done();
            osu_block_header(bench_run.sel[a].plan_name, mode, t);
        }
        for (int s = 0; s < bench_run.nsizes; s++) {
            const row *r = bench_row_at(rows, mi, s, a);
            if (!r->algo)
                continue;
            add_row(all, r);
            if (bench_opt.osu)
                printf("%-10ld%18.2f%18.2f%18.2f%12ld\n", r->bytes, r->avg_us, r->min_us,
                       r->max_us, r->iters);
        }
        fflush(stdout);
    }
}

/* ---- the files ---- */
static void fill_meta(rs_table *t, int argc, char **argv)
{
    char buf[512];
    rs_table_meta_std(t, argc, argv);
    int len;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = 0;
    rs_table_meta(t, "mpi", lib);
    snprintf(buf, sizeof buf, "%d", bench_run.p);
    rs_table_meta(t, "p", buf);
    snprintf(buf, sizeof buf, "%d", bench_run.ranks_per_node);
    rs_table_meta(t, "ranks_per_node", buf);
    snprintf(buf, sizeof buf, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    rs_table_meta(t, "cpus_rank0_node", buf);
    const ar_model *ends[2] = {&bench_run.model.lo, &bench_run.model.hi};
    const char *endname[2] = {"lo", "hi"};
    for (int e = 0; e < 2; e++) {
        char key[64];
        snprintf(key, sizeof key, "model_%s_alpha_us", endname[e]);
        snprintf(buf, sizeof buf, "%.6g", ends[e]->alpha_s * 1e6);
        rs_table_meta(t, key, buf);
        snprintf(key, sizeof key, "model_%s_link_gbytes_per_s", endname[e]);
        snprintf(buf, sizeof buf, "%.6g", gbs(ends[e]->beta_s_per_byte));
        rs_table_meta(t, key, buf);
        snprintf(key, sizeof key, "model_%s_reduce_gbytes_per_s", endname[e]);
        snprintf(buf, sizeof buf, "%.6g", gbs(ends[e]->gamma_s_per_byte));
        rs_table_meta(t, key, buf);
        snprintf(key, sizeof key, "model_%s_copy_gbytes_per_s", endname[e]);
        snprintf(buf, sizeof buf, "%.6g", gbs(ends[e]->copy_s_per_byte));
        rs_table_meta(t, key, buf);
        snprintf(key, sizeof key, "model_%s_library_scratch_gbytes_per_s", endname[e]);
        snprintf(buf, sizeof buf, "%.6g", gbs(ends[e]->scratch_s_per_byte));
        rs_table_meta(t, key, buf);
    }
    rs_table_meta(t, "model_source", bench_run.model_how);
    snprintf(buf, sizeof buf, "%ld", bench_opt.seed);
    rs_table_meta(t, "seed", buf);
    rs_table_meta(t, "check", bench_opt.no_check ? "off" : "bitwise against the closed-form result (ar_pattern.h)");
    rs_table_meta(t, "busbw", "algbw * 2(p-1)/p; algbw = bytes / p50_us");
    rs_table_meta(t, "iterations", bench_opt.iters >= 0 ? "as given (--iters)"
                  : "OSU defaults (1000/200 warm-up up to 8 KiB, 100/10 above), capped at "
                    "--max-time per row and 2 GiB per row, at least 5");
    snprintf(buf, sizeof buf, "%g", bench_opt.max_time);
    rs_table_meta(t, "max_time_s", buf);
    for (int i = 0; i < bench_run.nsel; i++)
        if (bench_run.sel[i].plan_name[0]) {
            char key[64];
            snprintf(key, sizeof key, "algo_%s", bench_run.sel[i].plan_name);
            rs_table_meta(t, key, bench_run.sel[i].describe);
        }
    const char *la = ar_library_algorithms();
    if (la)
        rs_table_meta(t, "library_algorithms", la);
    rs_table_meta(t, "reduce_isa", ar_reduce_isa());
}

/* Rank 0 writes the files; every rank learns whether that worked (-1: it did not). */
int bench_write_files(rs_table *all, int argc, char **argv, long long wrong_total)
{
    int frc = 0;
    if (bench_run.rank == 0) {
        /* Only rank 0 writes, and only now: a signal while writing removes the temporary
         * (fsio.h).  Earlier, the default action suits: nothing is half-written, and
         * mpirun's SIGTERM to ranks that are already finalizing stays silent. */
        rs_install_signal_handlers();
        fill_meta(all, argc, argv);
        if (bench_opt.c.csv && rs_table_write_csv(all, bench_opt.c.csv) != 0)
            frc = -1;
        if (frc == 0 && bench_opt.c.json && rs_table_write_json(all, bench_opt.c.json) != 0)
            frc = -1;
        if (frc != 0)
            fprintf(stderr, "%s: %s\n", rs_progname(), rs_lasterr());
        if (wrong_total)
            fprintf(stderr, "%s: %lld wrong elements in total: results are not to be trusted\n",
                    rs_progname(), wrong_total);
    }
    MPI_Bcast(&frc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return frc;
}
