/* gemm_context.c — `--gemm auto` finished in context: the trainer's own step timed
 * under the per-shape plan and under each candidate backend alone (matmul.h's
 * variants), and the fastest kept.
 *
 * The per-shape plan times each product alone.  In a step the products run beside one
 * another and beside the trainer's own threads: a library's pool spinning after its
 * call takes the core another library's next call wants, and a plan that won every
 * product can lose the step (on a 2-vCPU Zen 4 a plan of three libraries ran
 * LSTM-512's 100-class step at 546 ms, oneDNN alone at 131).  So each variant runs the
 * model's forward and backward on the run's first window (worker 0's streams, the
 * carried state untouched; model_backward overwrites the gradient, so nothing
 * carries into training) once untimed, then in rounds, the variants in turn; a
 * variant's figure is its least step time (the machine's noise only ever adds).
 * Rounds fit TRIAL_S of steps, at least one; a model whose step takes under
 * SKIP_BELOW_S (a test's) keeps the per-shape plan.  A one-backend variant within
 * PREFER_ONE of the per-shape plan is kept instead of it: fewer libraries, fewer
 * ways to interfere. */
#include <omp.h>

#include "matmul.h"
#include "timer.h"
#include "train_platform.h"

#define TRIAL_S 3.0
#define MAX_ROUNDS 3
#define MIN_TIMED_S 0.01   /* shorter steps are timed several to a figure */
#define SKIP_BELOW_S 0.002 /* a step this short: the trial would cost more than it saves */
#define PREFER_ONE 0.02

static double step_s(model *m, int Tw, int reps)
{
    uint64_t t0 = rs_now_ns();
    for (int k = 0; k < reps; k++) {
        model_forward(m, Tw, 1);
        model_backward(m, Tw);
    }
    return (double)(rs_now_ns() - t0) * 1e-9 / reps;
}

int gemm_auto_in_context(run_ctx *r, int threads, int reentrant)
{
    model *m = &r->m;
    if (mm_init_auto(&m->cfg, threads, reentrant) != 0)
        return -1;
    int nv = mm_auto_variants();
    if (nv == 0)
        return 0;
    uint64_t t0 = rs_now_ns();
    stream_set ws = train_dp_worker_streams(&r->train, 0, m->cfg.batch);
    int Tw = streams_window(&ws, 0, m->cfg.bptt, m->act.inputs, m->act.targets);
    if (Tw <= 0)
        return 0;
    omp_set_num_threads(threads);
    double best[GA_MAX_CANDS + 1], total = 0;
    int reps[GA_MAX_CANDS + 1];
    for (int v = 0; v < nv; v++) {   /* untimed: a library's first call sets itself up */
        mm_use_variant(v);
        best[v] = step_s(m, Tw, 1);
        if (v == 0 && best[0] < SKIP_BELOW_S)
            return 0;   /* the per-shape plan stands */
        reps[v] = best[v] < MIN_TIMED_S ? (int)(MIN_TIMED_S / (best[v] + 1e-6)) + 1 : 1;
        total += best[v] * reps[v];
    }
    int rounds = total > 0 ? (int)(TRIAL_S / total) : MAX_ROUNDS;
    rounds = rounds < 1 ? 1 : rounds > MAX_ROUNDS ? MAX_ROUNDS : rounds;
    for (int v = 0; v < nv; v++)
        best[v] = 1e300;
    for (int k = 0; k < rounds; k++)
        for (int i = 0; i < nv; i++) {
            int v = (i + k) % nv;   /* each round starts at another variant */
            mm_use_variant(v);
            double s = step_s(m, Tw, reps[v]);
            best[v] = s < best[v] ? s : best[v];
        }
    int keep = 0;
    for (int v = 1; v < nv; v++)
        if (best[v] < best[keep])
            keep = v;
    if (keep == 0)
        for (int v = 1; v < nv; v++)
            if (best[v] <= best[0] * (1 + PREFER_ONE) && (keep == 0 || best[v] < best[keep]))
                keep = v;
    double ms[GA_MAX_CANDS + 1];
    for (int v = 0; v < nv; v++)
        ms[v] = best[v] * 1e3;
    mm_keep_variant(keep, ms, rounds, (double)(rs_now_ns() - t0) * 1e-9);
    return 0;
}
