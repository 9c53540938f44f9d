/* bench_main.c — `allreduce-bench`: every allreduce of the registry, checked and timed
 * on real MPI (mpirun) or simulated (smpirun), per message size.
 *
 *   mpirun -np 4 build/bin/allreduce-bench                       # all, 4 B .. 256 MiB
 *   mpirun -np 4 build/bin/allreduce-bench --algo ring,library -m 1M:64M --mode both
 *   mpirun -np 4 build/bin/allreduce-bench --osu --algo library  # OSU's columns
 *
 * For each element type, timing mode, size and algorithm:
 *   1. check (unless --no-check), outside any timed region: inputs are a pure function
 *      of (seed, rank, index) with an exact closed-form result (ar_pattern.h), compared
 *      bitwise on every rank; the output of the last timed iteration is checked again
 *      (not in place); mismatching elements over all ranks are the `wrong` column;
 *      --timed-only skips that check but for a small first size (under a simulator,
 *      where a call takes the same time every time, it doubled the cost) and checks
 *      the timed output;
 *   2. warm-up, then iterations: OSU's defaults (1000 + 200 warm-up up to 8 KiB, 100 +
 *      10 above), capped like IMB by time (--max-time per row) and volume (2 GiB moved
 *      per row), never below 5; --iters / --warmup given are used exactly;
 *   3. timing: `isolated` puts an untimed barrier (ar_barrier: MPI_Barrier unless a
 *      simulator hooks its own) before every iteration and times each call alone;
 *      `backtoback` times consecutive calls with nothing between (what a training
 *      loop does); both are labelled in the `mode` column.  The algorithms'
 *      iterations alternate in ROUNDS rounds (bench_measure.c), so that on a shared
 *      machine a slow spell hits every algorithm alike.
 * The columns (time, percentiles, algbw, busbw, the model's range) are defined in
 * bench_output.c.  Bad input exits 2 with one line (bench_options.c); exit 1 if any
 * element was wrong.
 *
 * This file is main and its steps, in order: the options, the memory, the model, the
 * buffers and the plans, then every type, mode and size.  The driver's other files
 * are listed in bench_state.h, what they share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allreduce.h"
#include "ar_hooks.h"
#include "bench_fit.h"
#include "bench_platform.h"
#include "bench_state.h"
#include "check.h"
#include "progress.h"
#include "record.h"

bench_state bench_run;   /* what to run (bench_state.h): set by the options, then main */

/* ---- main's steps ---- */

static long largest_size(void)
{
    long maxb = 0;
    for (int i = 0; i < bench_run.nsizes; i++)
        maxb = bench_run.sizes[i] > maxb ? bench_run.sizes[i] : maxb;
    return maxb;
}

/* Memory per rank: send + receive buffers and up to one vector of scratch. */
static void check_memory(void)
{
    long maxb = largest_size();
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, bench_run.rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &bench_run.ranks_per_node);
    MPI_Comm_free(&node);
    int rpn = bench_run.ranks_per_node;
    ar_bookkeeping_allreduce(MPI_IN_PLACE, &rpn, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    bench_run.ranks_per_node = rpn;
    double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    ar_bookkeeping_allreduce(MPI_IN_PLACE, &mem, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    double need = 3.0 * (double)maxb * rpn;
    if (need > 0.8 * mem) {
        char msg[256];
        snprintf(msg, sizeof msg, "sizes up to %ld bytes need %.1f GiB on a node of %d ranks, more "
                 "than 80%% of its %.1f GiB (lower -m MAX)", maxb, need / (1 << 30), rpn, mem / (1 << 30));
        bench_usage_exit(msg);
    }
}

/* The model: fitted (or the platform's), then what the command line gives replaces
 * both ends of the range. */
static void fit_model(void)
{
    /* both network parameters given: no ping-pong (at 100 Mbit/s its 64 MiB messages
     * alone take minutes) */
    int net = !(bench_opt.alpha_us > 0 && bench_opt.link_gbs > 0);
    ar_fit_model(MPI_COMM_WORLD, bench_run.dtypes[0], bench_run.op, bench_opt.c.quick, net, &bench_run.model,
                 bench_run.model_how, sizeof bench_run.model_how);
    if (!(bench_opt.alpha_us > 0 || bench_opt.link_gbs > 0 || bench_opt.reduce_gbs > 0))
        return;
    ar_model *ends[2] = {&bench_run.model.lo, &bench_run.model.hi};
    for (int e = 0; e < 2; e++) {
        if (bench_opt.alpha_us > 0)
            ends[e]->alpha_s = bench_opt.alpha_us * 1e-6;
        if (bench_opt.link_gbs > 0)
            ends[e]->beta_s_per_byte = 1e-9 / bench_opt.link_gbs;
        if (bench_opt.reduce_gbs > 0)
            ends[e]->gamma_s_per_byte = 1e-9 / bench_opt.reduce_gbs;
    }
    size_t n = strlen(bench_run.model_how);
    snprintf(bench_run.model_how + n, sizeof bench_run.model_how - n, "; overridden by%s%s%s",
             bench_opt.alpha_us > 0 ? " --alpha-us" : "", bench_opt.link_gbs > 0 ? " --link-gbytes-per-s" : "",
             bench_opt.reduce_gbs > 0 ? " --reduce-gbytes-per-s" : "");
}

/* The largest size's buffers, shared by every algorithm, and the rows of one element
 * type ([mode][size][algorithm]); exits 2 on every rank if any rank lacks the memory. */
static row *alloc_buffers(buffers *b)
{
    long maxb = largest_size(), max_iters = bench_opt.iters > 1000 ? bench_opt.iters : 1000;
    *b = (buffers){.max_iters = max_iters};
    b->send = ar_big_malloc((size_t)maxb + 64);
    b->recv = ar_big_malloc((size_t)maxb + 64);
    b->t_iter = malloc(sizeof(double) * (size_t)max_iters * (size_t)bench_run.nsel);
    b->t_slow = malloc(sizeof(double) * (size_t)max_iters);
    row *rows = calloc((size_t)bench_run.nmodes * (size_t)bench_run.nsizes * (size_t)bench_run.nsel, sizeof(row));
    int ok = b->send && b->recv && b->t_iter && b->t_slow && rows;
    ar_bookkeeping_allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok)
        bench_usage_exit("out of memory for the message buffers (lower -m MAX)");
    /* touched once here; zeros (never denormals) when --no-check leaves them unset */
    ar_big_touch(b->send, (size_t)maxb + 64);
    ar_big_touch(b->recv, (size_t)maxb + 64);
    return rows;
}

static void free_buffers(buffers *b, row *rows)
{
    ar_big_free(b->send);
    ar_big_free(b->recv);
    free(b->t_iter);
    free(b->t_slow);
    free(rows);
}

/* Every algorithm's plan for type t and one scratch buffer they share (returned; the
 * caller frees it after the plans); exits 2 on every rank where that fails. */
static void *make_plans(ar_dtype t, size_t maxcount, ar_plan **plans)
{
    size_t need = 0;
    for (int a = 0; a < bench_run.nsel; a++) {
        if (ar_plan_create(bench_run.sel[a].algo, &bench_run.sel[a].prm, MPI_COMM_WORLD, t, bench_run.op,
                           &plans[a]) != 0)
            bench_usage_exit(rs_lasterr());  /* every rank has the same verdict */
        size_t s = ar_plan_scratch_bytes(plans[a], maxcount);
        need = s > need ? s : need;
        snprintf(bench_run.sel[a].plan_name, sizeof bench_run.sel[a].plan_name, "%s", ar_plan_name(plans[a]));
        snprintf(bench_run.sel[a].describe, sizeof bench_run.sel[a].describe, "%s", ar_plan_describe(plans[a]));
    }
    void *scratch = NULL;
    int rc = need && ar_big_memalign(&scratch, (need + 63) / 64 * 64) != 0 ? -1 : 0;
    for (int a = 0; a < bench_run.nsel && rc == 0; a++)
        rc = ar_plan_reserve_in(plans[a], maxcount, scratch, need);
    ar_bookkeeping_allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rc != 0)
        bench_usage_exit("out of memory for the algorithms' scratch (lower -m MAX)");
    return scratch;
}

/* One element type, every mode and size: measured, printed, kept in `all`.  Returns the
 * wrong elements; *done counts the progress line's steps. */
static long long run_type(ar_dtype t, buffers *b, row *rows, rs_table *all, int *done)
{
    size_t es = ar_dtype_size(t), maxcount = (size_t)largest_size() / es;
    ar_plan *plans[MAX_ALGOS];
    void *scratch = make_plans(t, maxcount, plans);
    long long wrong = 0;
    for (int mi = 0; mi < bench_run.nmodes; mi++) {
        int mode = bench_run.modes[mi];
        for (int s = 0; s < bench_run.nsizes; s++) {
            long bytes = bench_run.sizes[s] / (long)es * (long)es;
            if (bench_run.rank == 0) {
                char label[96];
                snprintf(label, sizeof label, "%s %s %ld bytes", ar_dtype_name(t), bench_mode_name(mode), bytes);
                rs_progress(*done, label);
            }
            (*done)++;
            if (bytes == 0 && bench_run.sizes[s] != 0)
                continue;  /* smaller than one element */
            if (bench_measure_size(plans, t, bytes, s, mode, b, bench_row_at(rows, mi, s, 0)) != 0) {
                fprintf(stderr, "%s: rank %d: %s\n", rs_progname(), bench_run.rank, rs_lasterr());
                MPI_Abort(MPI_COMM_WORLD, RS_EXIT_WRONG);
            }
            for (int a = 0; a < bench_run.nsel; a++)
                wrong += bench_row_at(rows, mi, s, a)->wrong;
            if (bench_run.rank == 0 && !bench_opt.osu)
                bench_print_block(rows, mi, s, bytes, t, mode);
        }
        if (bench_run.rank == 0)
            bench_add_file_rows(all, rows, mi, mode, t);
        memset(bench_row_at(rows, mi, 0, 0), 0, sizeof(row) * (size_t)bench_run.nsizes * (size_t)bench_run.nsel);
    }
    for (int a = 0; a < bench_run.nsel; a++)
        ar_plan_free(plans[a]);
    ar_big_free(scratch);
    return wrong;
}

int main(int argc, char **argv)
{
    rs_set_progname("allreduce-bench");
    if (bench_wants_forced_library(argc, argv))
        ar_library_prepare_env();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &bench_run.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &bench_run.p);
    if (ar_platform_start() != 0)  /* the build's hooks; every rank reads the same settings */
        bench_usage_exit(rs_lasterr());

    char **args = bench_translate_short(argc, argv);
    int rc = 0;
    if (bench_parse_options(argc, args, &rc)) {
        MPI_Finalize();
        return RS_EXIT_OK;
    }
    if (bench_opt.c.quick && bench_opt.max_time == 1.0)
        bench_opt.max_time = 0.1;
    if (rc == 0)
        rc = bench_validate();
    bench_agree_on_input(rc);
    check_memory();
    fit_model();
    if (bench_run.rank == 0 && !bench_opt.osu)
        bench_print_header();

    buffers b;
    row *rows = alloc_buffers(&b);
    rs_table *all = bench_new_table();
    long long wrong_total = 0;
    int done = 0;
    if (bench_run.rank == 0)
        rs_progress_begin(bench_run.ndtypes * bench_run.nmodes * bench_run.nsizes);
    for (int d = 0; d < bench_run.ndtypes; d++)
        wrong_total += run_type(bench_run.dtypes[d], &b, rows, all, &done);
    if (bench_run.rank == 0)
        rs_progress_done();

    int frc = bench_write_files(all, argc, argv, wrong_total);
    rs_table_free(all);
    free_buffers(&b, rows);
    free(args);
    MPI_Finalize();
    return wrong_total ? RS_EXIT_WRONG : frc ? RS_EXIT_USAGE : RS_EXIT_OK;
}
