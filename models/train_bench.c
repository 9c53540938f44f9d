/* train_bench.c — rnn-train's benchmark modes, run instead of training on the same
 * set-up: --bench N (N training steps timed one by one: tokens/s, GFLOP/s, fraction of
 * peak; with --eval-every k, blocks of k steps with an evaluation and without, in turn:
 * the exposed evaluation time) and --pipeline (the two-stage pipelined forward against the sequential order,
 * pipeline.c).  One table each, written by train_report.c.  Not common/bench.h's loop:
 * a step changes the model and the optimizer state, so it is timed once per step in
 * sequence, not repeated in place until the samples are long enough. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "matmul.h"
#include "pipeline.h"
#include "stats.h"
#include "train_ctx.h"
#include "train_platform.h"

/* The medians of the step's parts (train_dp.c) over the timed steps, in ms. */
typedef struct {
    double compute, exchange, optimizer;
    double exchange_total;   /* in allreduce calls, hidden or not */
} step_parts;

static double median_ms(double *v, long n)
{
    rs_stats st;
    rs_stats_compute(v, (int)n, &st);
    return st.median * 1e3;
}

/* N steps timed one by one into t (seconds) and their parts into *parts.  0, or an
 * exit code. */
static int time_steps(run_ctx *r, long N, double *t, step_parts *parts)
{
    double *part = malloc((size_t)4 * N * sizeof *part), loss = 0;
    RS_CHECK(part, "out of memory for --bench %ld's timings", N);
    int rc = 0, w = train_bench_warmup();
    for (long i = 0; i < N + w && rc == 0; i++) {   /* untimed steps first */
        uint64_t t0 = train_now_ns();
        if (train_step(r, &loss) != 0) {
            rs_seterr("loss became %g during --bench (lower --lr)", loss);
            rc = -1;   /* as RS_CHECK returned it here before */
        } else if (i >= w) {
            t[i - w] = train_seconds_since(t0);
            part[i - w] = r->dp.compute_s;
            part[N + i - w] = r->dp.exchange_s;
            part[2 * N + i - w] = r->dp.optimizer_s;
            part[3 * N + i - w] = r->dp.exchange_total_s;
        }
        if (rc == 0 && train_stop_agreed(r)) {
            rs_seterr("interrupted during --bench (nothing written)");
            rc = train_stop_code(r);
        }
    }
    if (rc == 0)
        *parts = (step_parts){median_ms(part, N), median_ms(part + N, N),
                              median_ms(part + 2 * N, N), median_ms(part + 3 * N, N)};
    free(part);
    return rc;
}

/* --bench with --eval-every k: the evaluation's cost alone and in the training loop. */
typedef struct {
    long every, evals;   /* k, and the evaluations timed (N/k) */
    double alone_s;      /* one evaluation (valid, sharded), the trainer idle */
    double without_s, with_s;   /* N/k blocks of k steps without evaluation, and with */
    double held_s;       /* the time the evaluations held the loop (the log's exposed) */
} eval_bench;

/* k steps, after an evaluation started when `with` (synchronous: done first; async:
 * running beside the steps, waited for at the end).  0, or an exit code as
 * time_steps's. */
static int time_block(run_ctx *r, long k, int with, double *seconds)
{
    double loss = 0;
    uint64_t t0 = train_now_ns();
    if (with && train_eval_bench_start(r) != 0)
        return -1;
    for (long i = 0; i < k; i++) {
        if (train_step(r, &loss) != 0) {
            rs_seterr("loss became %g during --bench (lower --lr)", loss);
            return -1;
        }
        if (train_eval_poll(r) != 0)
            return -1;
        if (train_stop_agreed(r)) {
            rs_seterr("interrupted during --bench (nothing written)");
            return train_stop_code(r);
        }
    }
    if (with && train_eval_settle(r, 0) != 0)
        return -1;
    *seconds += train_seconds_since(t0);
    return 0;
}

/* One evaluation alone, then N/k blocks of k steps without evaluation and N/k with one,
 * alternating, so that a load drifting over the run weighs on both alike. */
static int time_with_eval(run_ctx *r, long N, eval_bench *eb)
{
    eval_result ev;
    uint64_t t0 = train_now_ns();
    train_phase(r, "during --bench's evaluation: nothing was written", 0);
    train_eval_split(r, r->corp.valid, r->corp.nvalid, &ev);
    train_phase(r, "during --bench: nothing was written", 1);
    eb->alone_s = train_seconds_since(t0);
    long n0 = r->eval_count;
    double held0 = r->eval_exposed_total_s, scored0 = r->eval_total_s;
    int rc = 0;
    for (long b = 0; b < N / eb->every && rc == 0; b++) {
        rc = time_block(r, eb->every, 0, &eb->without_s);
        if (rc == 0)
            rc = time_block(r, eb->every, 1, &eb->with_s);
    }
    eb->evals = r->eval_count - n0;
    eb->held_s = r->eval_exposed_total_s - held0;
    if (dp_comm_eval_ranks() > 0 && eb->evals > 0)   /* the eval ranks' own scoring time */
        eb->alone_s = (r->eval_total_s - scored0) / (double)eb->evals;
    return rc;
}

/* The evaluation's cells, and the report: the evaluation alone (--eval-ranks: the eval
 * ranks' scoring), the N steps with and without, the exposed fraction ((with - without)
 * / evaluation time). */
static void set_eval_cells(rs_table *tb, int row, const run_ctx *r, const eval_bench *eb, long N)
{
    double eval_s = eb->evals * eb->alone_s, exposed = eb->with_s - eb->without_s;
    long steps = N / eb->every * eb->every;   /* in each of the two kinds of block */
    rs_set_int(tb, row, "eval_every", eb->every);
    rs_set_dbl(tb, row, "eval_ms", eb->alone_s * 1e3);
    rs_set_dbl(tb, row, "eval_exposed_ms", eb->held_s / steps * 1e3);
    rs_set_dbl(tb, row, "eval_exposed_fraction", exposed / eval_s);
    if (!run_says(r))
        return;
    int K = dp_comm_eval_ranks(), P = K ? K : r->dp.P;
    printf("\neval     every %ld steps, %s, valid scored on %d %srank%s: one evaluation alone "
           "%.4f s\n", eb->every, !r->async ? "synchronous" : K ? "beside training" :
           "async (a spare thread)", P, K ? "eval " : "", P > 1 ? "s (sharded)" : "", eb->alone_s);
    printf("         %ld steps in blocks of %ld, alternating: %.4f s without evaluation, %.4f s "
           "with %ld (serial cost %.1f%% of training)\n", steps, eb->every, eb->without_s,
           eb->with_s, eb->evals, 100 * eval_s / eb->without_s);
    printf("         exposed %.4f s = %.1f%% of the evaluation time; the loop was held %.4f s "
           "(%.3f ms per step)\n", exposed, 100 * exposed / eval_s, eb->held_s,
           eb->held_s / steps * 1e3);
}

/* The data-parallel cells of the row; under mpirun, a line with the totals. */
static void set_dp_cells(rs_table *tb, int row, const run_ctx *r, const step_parts *p,
                         double tok_per_s)
{
    const dp_ctx *d = &r->dp;
    rs_set_int(tb, row, "ranks", d->P);
    rs_set_int(tb, row, "workers", d->N);
    rs_set_str(tb, row, "sync", r->o->sync);
    rs_set_str(tb, row, "allreduce", dp_exchange_name(d->exchange));
    rs_set_dbl(tb, row, "compute_ms", p->compute);
    rs_set_dbl(tb, row, "exchange_ms", p->exchange_total);
    rs_set_dbl(tb, row, "exchange_exposed_ms", p->exchange);
    rs_set_dbl(tb, row, "optimizer_ms", p->optimizer);
    /* sparse: the mean fraction of the embedding's rows in the union (sent when sparse) */
    double rows = d->rows_steps ? d->rows_sum / (double)d->rows_steps : 1;
    rs_set_str(tb, row, "embed_exchange", r->o->embed_exchange);
    rs_set_dbl(tb, row, "embed_rows", rows);
    if (run_says(r) && d->P > 1 && d->sparse)
        printf("\nsparse   the embedding's touched rows: %.1f%% of %ld on average over the %ld "
               "steps\n", 100 * rows, (long)r->m.lay.t[P_EMBED].rows, d->rows_steps);
    if (run_says(r) && (d->P > 1 || d->N > 1))
        printf("\nbench    %d rank%s x %d worker%s of batch %d: %.0f tokens/s in total, %.0f per "
               "rank; step: compute %.2f ms, exchange (%s, %s) %.2f ms of which exposed %.2f ms, "
               "optimizer %.2f ms\n",
               d->P, d->P > 1 ? "s" : "", d->local, d->local > 1 ? "s" : "", r->m.cfg.batch,
               tok_per_s, tok_per_s / d->P, p->compute, r->o->sync, dp_exchange_name(d->exchange),
               p->exchange_total, p->exchange, p->optimizer);
}

/* --bench N: untimed steps (train_bench_warmup), then N steps timed one by one. */
int train_bench(run_ctx *r)
{
    const model_cfg *c = &r->m.cfg;
    long N = r->o->bench;
    double *t = malloc((size_t)N * sizeof *t);
    if (!t) {
        rs_seterr("out of memory for --bench %ld's timings", N);
        return RS_EXIT_USAGE;
    }
    step_parts parts;
    eval_bench eb = {r->o->eval_every, 0, 0, 0, 0, 0};
    train_phase(r, "during --bench: nothing was written", 1);   /* stops between steps */
    int code = time_steps(r, N, t, &parts);
    if (code == 0 && eb.every)
        code = time_with_eval(r, N, &eb);
    if (code != 0) {
        free(t);
        return code;
    }
    train_phase(r, "while writing --bench's results: no partial file left", 0);
    rs_stats st;
    rs_stats_compute(t, (int)N, &st);
    free(t);
    /* this rank's GEMM work (its N/P workers), and the tokens of all N workers */
    double flops = model_step_flops(c, c->bptt) * r->dp.local;
    double tok = (double)c->batch * c->bptt * r->dp.N;
    double peak = train_peak_gflops(r->o->threads);
    static const rs_col cols[] = {
        TRAIN_CONFIG_COLS,
        {"gemm", RS_STR, 0},
        {"steps", RS_INT, 0},
        {"step_ms_median", RS_DBL, 4},
        {"step_ms_min", RS_DBL, 4},
        {"step_ms_max", RS_DBL, 4},
        {"tokens_per_s", RS_DBL, 4},
        {"gflops", RS_DBL, 4},
        {"peak_gflops", RS_DBL, 4},
        {"frac_of_peak", RS_DBL, 3},
        {"gflop_per_step", RS_DBL, 4},
        {"arena_mib", RS_DBL, 4},
        {"naive_mib", RS_DBL, 4},
        {"params_mib", RS_DBL, 4},
        {"params", RS_INT, 0},
        {"ranks", RS_INT, 0},
        {"workers", RS_INT, 0},
        {"sync", RS_STR, 0},
        {"allreduce", RS_STR, 0},
        {"compute_ms", RS_DBL, 4},
        {"exchange_ms", RS_DBL, 4},
        {"exchange_exposed_ms", RS_DBL, 4},
        {"optimizer_ms", RS_DBL, 4},
        {"embed_exchange", RS_STR, 0},
        {"embed_rows", RS_DBL, 4},
        {"eval_every", RS_INT, 0},
        {"eval_ms", RS_DBL, 4},
        {"eval_exposed_ms", RS_DBL, 4},
        {"eval_exposed_fraction", RS_DBL, 4},
    };
    rs_table *tb = rs_table_new("rnn_train_bench", cols, RS_ARRAY_LEN(cols));
    int row = rs_table_row(tb);
    train_set_config_cells(tb, row, r);
    rs_set_str(tb, row, "gemm", mm_backend_name());
    rs_set_int(tb, row, "steps", N);
    rs_set_dbl(tb, row, "step_ms_median", st.median * 1e3);
    rs_set_dbl(tb, row, "step_ms_min", st.min * 1e3);
    rs_set_dbl(tb, row, "step_ms_max", st.max * 1e3);
    rs_set_dbl(tb, row, "tokens_per_s", tok / st.median);
    rs_set_dbl(tb, row, "gflops", flops / st.median * 1e-9);
    rs_set_dbl(tb, row, "gflop_per_step", flops * 1e-9);
    if (peak > 0) {
        rs_set_dbl(tb, row, "peak_gflops", peak);
        rs_set_dbl(tb, row, "frac_of_peak", flops / st.median * 1e-9 / peak);
    }
    rs_set_dbl(tb, row, "arena_mib", r->m.arena.bytes / 1048576.0);
    rs_set_dbl(tb, row, "naive_mib", r->m.arena.naive_bytes / 1048576.0);
    rs_set_dbl(tb, row, "params_mib",
               r->m.lay.total * 4.0 * (2 + optim_nstate(r->opt.kind)) / 1048576.0);
    rs_set_int(tb, row, "params", r->m.lay.total);   /* the fused gradient's floats */
    set_dp_cells(tb, row, r, &parts, tok / st.median);
    if (eb.every)
        set_eval_cells(tb, row, r, &eb, N);
    int rc = train_write_table(r, tb,
                         "model,hidden,layers,batch,bptt,vocab,threads,step_ms_median,tokens_per_s,"
                         "gflops,frac_of_peak,arena_mib,naive_mib");
    rs_table_free(tb);
    return rc == 0 ? RS_EXIT_OK : RS_EXIT_USAGE;
}

/* --pipeline: the output stage overlapping the recurrence, against the sequential
 * order (pipeline.c); exit 1 if the two differ in any bit. */
int train_pipeline(run_ctx *r)
{
    pipeline_result res[PIPE_NMODES];
    if (r->m.cfg.classes > 0) {
        rs_seterr("--pipeline times the full-softmax output layer: drop --classes");
        return RS_EXIT_USAGE;
    }
    if (!mm_reentrant()) {
        rs_seterr("--pipeline calls GEMM from two threads at once, which --gemm %s does not "
                  "allow (libxsmm is not known to be re-entrant): use --gemm auto, openblas, blis, "
                  "onednn or blocked",
                  mm_backend_name());
        return RS_EXIT_USAGE;
    }
    int wrong = pipeline_bench(&r->m, r->corp.train, r->corp.ntrain, r->o->threads,
                               r->o->pipeline, res);
    if (wrong < 0)
        return RS_EXIT_USAGE;
    static const rs_col cols[] = {
        TRAIN_CONFIG_COLS,
        {"mode", RS_STR, 0},
        {"mode_threads", RS_INT, 0},
        {"chunk_steps", RS_INT, 0},
        {"windows", RS_INT, 0},
        {"ms_per_window_median", RS_DBL, 4},
        {"ms_per_window_min", RS_DBL, 4},
        {"tokens_per_s", RS_DBL, 4},
        {"speedup_vs_sequential", RS_DBL, 4},
        {"bit_identical", RS_STR, 0},
    };
    rs_table *t = rs_table_new("rnn_train_pipeline", cols, RS_ARRAY_LEN(cols));
    double best = 0;
    for (int k = 0; k < PIPE_NMODES; k++) {
        double seq = res[res[k].seq_index].ms_median;
        int row = rs_table_row(t);
        train_set_config_cells(t, row, r);
        rs_set_str(t, row, "mode", res[k].name);
        rs_set_int(t, row, "mode_threads", res[k].threads);
        rs_set_int(t, row, "chunk_steps", res[k].chunk_steps);
        if (res[k].identical >= 0 && seq / res[k].ms_median > best)
            best = seq / res[k].ms_median;
        rs_set_int(t, row, "windows", r->o->pipeline);
        rs_set_dbl(t, row, "ms_per_window_median", res[k].ms_median);
        rs_set_dbl(t, row, "ms_per_window_min", res[k].ms_min);
        rs_set_dbl(t, row, "tokens_per_s", res[k].tokens_per_window / (res[k].ms_median * 1e-3));
        rs_set_dbl(t, row, "speedup_vs_sequential", seq / res[k].ms_median);
        rs_set_str(t, row, "bit_identical", res[k].identical < 0 ? "-" : res[k].identical ? "yes" : "NO");
    }
    int rc = train_write_table(r, t, "model,hidden,vocab,batch,bptt,mode,mode_threads,chunk_steps,ms_per_window_median,"
                               "tokens_per_s,speedup_vs_sequential,bit_identical");
    rs_table_free(t);
    if (run_says(r))
        printf("\npipeline forward (output of step t overlapping the recurrence of t+1): "
               "up to %.2fx over the sequential order; %s\n", best,
               wrong ? "NOT bit-identical (a bug)" : "bit-identical on every window");
    if (wrong) {
        rs_seterr("--pipeline: the pipelined forward differs from the sequential order");
        return RS_EXIT_WRONG;
    }
    return rc == 0 ? RS_EXIT_OK : RS_EXIT_USAGE;
}