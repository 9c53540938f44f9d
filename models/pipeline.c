/* pipeline.c — the GPU study's two-stage pipeline on CPU threads (`rnn-train --pipeline`):
 * the output layer of step t (its GEMM (B, H) x (H, V) and the fused cross-entropy)
 * runs on one thread while another runs the recurrence of step t+1.
 *
 * Stages and synchronization: thread 0 runs the embedding and every recurrent layer
 * (model_forward_layers); after each step of the top layer the cell publishes t + 1
 * through m->progress (a release store, lstm.c / elman.c).  Thread 1 claims steps in
 * order from a shared counter, waits (acquire load; spinning, then yielding) until
 * the claimed step is published, and computes output rows [t B, (t+1) B) with
 * output_forward_rows.  The output stage costs H V per row against the recurrence's
 * G H, so it is the longer one: when thread 0 has finished the recurrence it claims
 * output steps too (the GPU study's stages, balanced over two cores).  Each step's
 * output is one call at one thread whoever runs it, so which thread ran it changes
 * no bit.  The two threads call GEMM at the same time, so the backend must be
 * re-entrant (gemm_backend.reentrant): OpenBLAS, BLIS (their packing buffers come from
 * locked pools), oneDNN (dnnl_sgemm keeps no state between calls; its scratch is
 * allocated per call), the blocked GEMM (packing buffers per thread) and naive (locals
 * only); not libxsmm's tiled GEMM (untested).  --gemm auto under --pipeline picks among the re-entrant ones; the
 * bit-identity check below runs on every window whichever backend runs.
 *
 * The sequential order is the same operations on one thread, one after the other: the
 * recurrence, then the output of each step in step order.  Every operation has the
 * same inputs, shapes and thread count in both orders, so the losses and dlogits are
 * bit-identical; the run checks that on every window (a difference is a failed
 * correctness check, exit 1).  For context the default path is timed as well: the
 * output batched over the whole window as one GEMM, with all threads.
 *
 * Granularity: the output stage takes its steps one at a time (the GPU study's order),
 * or in chunks of PIPE_CHUNK steps: a (chunk B, H) x (H, V) GEMM packs the weights
 * once per chunk instead of once per step, which a CPU needs more than a GPU.  Both
 * are timed, each against the sequential order of the same granularity.
 *
 * Only the forward pass (with dlogits, as in training) is pipelined: it is where the
 * output stage can start before the recurrence is done.  The speedup is bounded by 2
 * (two cores) and by (input projection + recurrence + output) / (input projection +
 * recurrence) when the recurrence is the longer stage. */
#include "check.h"
#include "pipeline.h"

#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "gemm.h"
#include "matmul.h"
#include "sha256.h"
#include "stats.h"
#include "timer.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* The window's forward with the output in chunks of `chunk` steps; returns the loss sum
 * in row order.  overlap 0: one thread, in order; 1: two threads, pipelined. */
static double forward_staged(model *m, int Tw, int overlap, int chunk)
{
    const model_cfg *c = &m->cfg;
    long B = c->batch, H = c->hidden;
    const float *htop = m->act.h[c->layers - 1] + B * H;   /* (Tw, B, H) */
    int nchunks = (Tw + chunk - 1) / chunk;
    int progress = 0;
    if (!overlap) {
        model_forward_layers(m, Tw);
        for (int k = 0; k < nchunks; k++) {
            int t1 = (k + 1) * chunk < Tw ? (k + 1) * chunk : Tw;
            output_forward_rows(m, htop, (long)k * chunk * B, t1 * B, 1);
        }
    } else {
        int next = 0;   /* the next chunk whose output is unclaimed */
        m->progress = &progress;
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0)
                model_forward_layers(m, Tw);
            for (;;) {
                int k = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
                if (k >= nchunks)
                    break;
                int t1 = (k + 1) * chunk < Tw ? (k + 1) * chunk : Tw;
                for (long spin = 0; __atomic_load_n(&progress, __ATOMIC_ACQUIRE) < t1; spin++)
                    if (spin < 4096)
                        cpu_relax();
                    else
                        sched_yield();   /* a shared machine: give the core back */
                output_forward_rows(m, htop, (long)k * chunk * B, t1 * B, 1);
            }
        }
        m->progress = NULL;
    }
    double sum = 0;
    for (long r = 0; r < Tw * B; r++)
        sum += m->act.loss[r];
    return sum;
}

int pipeline_backend_ok(const char *name)
{
    const gemm_backend *b = gemm_find(name);
    return b && b->reentrant;
}

/* sha256 of the window's losses and dlogits: what must be equal bit for bit. */
static void window_hash(const model *m, int Tw, uint8_t out[32])
{
    long N = (long)Tw * m->cfg.batch;
    struct sha256_ctx h;
    sha256_init(&h);
    sha256_update(&h, (size_t)N * sizeof(float), (const uint8_t *)m->act.loss);
    sha256_update(&h, (size_t)N * m->cfg.vocab * sizeof(float), (const uint8_t *)m->act.dlogits);
    sha256_digest(&h, SHA256_DIGEST_SIZE, out);
}

/* The modes, in the order timed within each window: a pipelined mode is compared with
 * the sequential mode of the same chunk just before it. */
static const struct {
    const char *name;
    int overlap, chunk;   /* chunk 0: the default batched path */
} modes[PIPE_NMODES] = {
    {"batched", 0, 0},
    {"sequential", 0, 1}, {"pipelined", 1, 1},
    {"sequential", 0, PIPE_CHUNK}, {"pipelined", 1, PIPE_CHUNK},
};

int pipeline_bench(model *m, const int *data, long n, int threads, long windows,
                   pipeline_result res[PIPE_NMODES])
{
    const model_cfg *c = &m->cfg;
    stream_set s;
    streams_init(&s, data, n, c->batch);
    long nwin = streams_nwindows(&s, c->bptt);
    double *t = calloc((size_t)(PIPE_NMODES * windows), sizeof *t);
    RS_CHECK(t, "out of memory for --pipeline's %ld windows", windows);
    int identical[PIPE_NMODES];
    for (int k = 0; k < PIPE_NMODES; k++)
        identical[k] = 1;
    for (long i = 0; i <= windows; i++) {   /* window 0: warm-up, untimed */
        long pos = (i % nwin) * c->bptt;
        int Tw = streams_window(&s, pos, c->bptt, m->act.inputs, m->act.targets);
        uint8_t ref[32] = {0}, got[32];
        double lref = 0;
        for (int k = 0; k < PIPE_NMODES; k++) {
            model_reset_state(m);   /* every mode sees the same window from a zero state */
            int th = modes[k].chunk == 0 ? threads : 1;
            mm_set_threads(th);
            omp_set_num_threads(th);
            uint64_t t0 = rs_now_ns();
            double loss = modes[k].chunk == 0
                              ? model_forward(m, Tw, 1)
                              : forward_staged(m, Tw, modes[k].overlap, modes[k].chunk);
            double dt = (double)(rs_now_ns() - t0) * 1e-9;
            if (i > 0)
                t[k * windows + i - 1] = dt;
            if (modes[k].chunk && !modes[k].overlap) {
                window_hash(m, Tw, ref);
                lref = loss;
            } else if (modes[k].overlap) {
                window_hash(m, Tw, got);
                if (memcmp(ref, got, sizeof ref) != 0 || loss != lref)
                    identical[k] = 0;
            }
            res[k].tokens_per_window = (double)Tw * c->batch;
        }
    }
    mm_set_threads(threads);
    omp_set_num_threads(threads);
    int wrong = 0;
    for (int k = 0; k < PIPE_NMODES; k++) {
        rs_stats st;
        rs_stats_compute(t + k * windows, (int)windows, &st);
        res[k].name = modes[k].name;
        res[k].chunk_steps = modes[k].chunk;
        res[k].threads = modes[k].chunk == 0 ? threads : modes[k].overlap ? 2 : 1;
        res[k].ms_median = st.median * 1e3;
        res[k].ms_min = st.min * 1e3;
        res[k].identical = modes[k].overlap ? identical[k] : -1;
        res[k].seq_index = modes[k].overlap ? k - 1 : modes[k].chunk ? k : 1;
        wrong |= !identical[k];
    }
    free(t);
    return wrong;
}
