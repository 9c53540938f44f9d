/* test_models_output.c — the output stage: the word classes by unigram frequency; the
 * class-factorized softmax (its threaded word part gives one thread's bits; training
 * with it); the two-stage pipeline (step t's output on a second thread while the
 * recurrence runs step t+1) equal to the sequential order bit for bit.  Runs from the
 * repository root (`make test`). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "corpus.h"
#include "matmul.h"
#include "model.h"
#include "pipeline.h"
#include "train.h"
#include "models_support.h"

/* ---- the two-stage pipeline ---- */

/* The pipelined forward (output of step t on a second thread while the recurrence runs
 * step t+1) gives the sequential order's losses and dlogits bit for bit, for both
 * cells, on every window. */
static void pipeline_identical_on(cell_kind cell, const char *gemm)
{
    corpus c;
    cr_assert_eq(corpus_load(&c, tiny_corpus(), LEVEL_WORD, 0, 0), 0, "%s", rs_lasterr());
    model_cfg cfg = {cell, 2, 24, 16, c.vocab, 8, 12, 0};
    if (strcmp(gemm, "auto") == 0) {   /* auto under --pipeline: re-entrant backends only */
        cr_assert_eq(mm_init_auto(&cfg, 2, 1), 0, "%s", rs_lasterr());
        cr_expect(mm_reentrant(), "auto picked a backend that is not re-entrant: %s", mm_record());
        cr_expect(!strstr(mm_record(), "=libxsmm"), "%s", mm_record());
    } else {
        need_backend(gemm);
        cr_assert_eq(mm_init(gemm, 2), 0, "%s", rs_lasterr());
        cr_assert(pipeline_backend_ok(gemm) && mm_reentrant());
    }
    cr_assert_eq(output_init(), 0);
    model m;
    cr_assert_eq(model_create(&m, &cfg), 0, "%s", rs_lasterr());
    model_init_params(&m, 3);
    pipeline_result res[PIPE_NMODES];
    cr_expect_eq(pipeline_bench(&m, c.train, c.ntrain, 2, 4, res), 0,
                 "%s: pipelined forward differs from the sequential order", model_cell(cell)->name);
    for (int k = 0; k < PIPE_NMODES; k++) {
        cr_expect(res[k].ms_median > 0, "%s: no time", res[k].name);
        if (strcmp(res[k].name, "pipelined") == 0) {
            cr_expect_eq(res[k].identical, 1, "chunk %d", res[k].chunk_steps);
            cr_expect_eq(res[k].threads, 2);
            cr_expect_str_eq(res[res[k].seq_index].name, "sequential");
            cr_expect_eq(res[res[k].seq_index].chunk_steps, res[k].chunk_steps);
        }
    }
    cr_expect(m.progress == NULL, "the progress hook is left set");
    model_destroy(&m);
    corpus_free(&c);
}

static void pipeline_identical(cell_kind cell) { pipeline_identical_on(cell, "openblas"); }

Test(models, pipeline_bit_identical_lstm) { pipeline_identical(CELL_LSTM); }
Test(models, pipeline_bit_identical_elman) { pipeline_identical(CELL_ELMAN); }
Test(models, pipeline_bit_identical_lstm_onednn) { pipeline_identical_on(CELL_LSTM, "onednn"); }
Test(models, pipeline_bit_identical_lstm_blis) { pipeline_identical_on(CELL_LSTM, "blis"); }
Test(models, pipeline_bit_identical_lstm_auto) { pipeline_identical_on(CELL_LSTM, "auto"); }
Test(models, pipeline_bit_identical_lstm_blocked) { pipeline_identical_on(CELL_LSTM, "blocked"); }
Test(models, pipeline_refuses_libxsmm) { cr_expect(!pipeline_backend_ok("libxsmm")); }

/* ---- classes by unigram frequency ---- */

Test(models, class_map_by_frequency)
{
    enum { V = 40, C = 6 };
    long counts[V];
    for (int i = 0; i < V; i++)   /* Zipf-like, not sorted by id */
        counts[i] = 1000 / (1 + (i * 7) % V);
    class_map cm;
    cr_assert_eq(class_map_build(&cm, counts, V, C), 0, "%s", rs_lasterr());
    cr_expect_eq(cm.off[0], 0);
    cr_expect_eq(cm.off[C], V);
    int seen[V] = {0};
    for (int w = 0; w < V; w++) {
        cr_expect(cm.pos[w] >= cm.off[cm.of[w]] && cm.pos[w] < cm.off[cm.of[w] + 1],
                  "word %d: row %d outside its class %d", w, cm.pos[w], cm.of[w]);
        seen[cm.pos[w]]++;
        for (int u = 0; u < V; u++)   /* rows in decreasing count: classes in frequency order */
            if (counts[u] > counts[w])
                cr_expect(cm.pos[u] < cm.pos[w] && cm.of[u] <= cm.of[w]);
    }
    for (int i = 0; i < V; i++)
        cr_expect_eq(seen[i], 1, "row %d used %d times", i, seen[i]);
    for (int k = 0; k < C; k++)
        cr_expect(cm.off[k + 1] > cm.off[k], "class %d is empty", k);
    /* the most frequent word's class is the smallest */
    int first = cm.off[1] - cm.off[0];
    cr_expect(first <= cm.off[C] - cm.off[C - 1], "class sizes %d .. %d", first, cm.off[C] - cm.off[C - 1]);
    class_map_free(&cm);
    cr_expect_eq(class_map_build(&cm, counts, V, V + 1), -1);
}

/* The class softmax's word part at 2 threads: its rows and classes split over the
 * threads, each product on one thread (mm_split_begin), gives the bits of 1 thread (the
 * same products in the same order per class).  OpenBLAS and BLIS split the other
 * products' rows and columns over threads, never their sums, so the whole step must
 * match bit for bit; a race on a class's rows of dW would not. */
static double class_step(const char *gemm, int threads, float *grads)
{
    model_cfg c = {CELL_LSTM, 1, 16, 8, 37, 6, 8, 5};
    cr_assert_eq(mm_init(gemm, threads), 0, "%s", rs_lasterr());
    omp_set_num_threads(threads);
    int n = mm_split_begin();
    cr_expect_eq(n, threads, "%s at %d threads: the word part runs on %d", gemm, threads, n);
    mm_split_end(n);
    model m;
    cr_assert_eq(model_create(&m, &c), 0, "%s", rs_lasterr());
    long counts[37];
    test_counts(counts, 37);
    cr_assert_eq(model_set_classes(&m, counts), 0, "%s", rs_lasterr());
    double *p = calloc((size_t)m.lay.total, sizeof *p);
    fill_params(&m.lay, 31, p);
    for (long i = 0; i < m.lay.total; i++)
        m.params[i] = (float)p[i];
    double h0[6 * 16], c0[6 * 16];   /* layers x batch x hidden */
    fill_state(&c, 32, h0, c0);
    for (int i = 0; i < 6 * 16; i++)
        m.state_h[i] = (float)h0[i], m.state_c[i] = (float)c0[i];
    fill_inputs(&c, 8, 33, m.act.inputs, m.act.targets);
    double loss = model_forward(&m, 8, 1);
    model_backward(&m, 8);
    memcpy(grads, m.grads, (size_t)m.lay.total * sizeof *grads);
    model_destroy(&m);
    free(p);
    omp_set_num_threads(1);
    mm_set_threads(1);
    return loss;
}

static void classes_split_identical(const char *gemm)
{
    need_backend(gemm);
    cr_assert_eq(output_init(), 0);
    float g1[40000], g2[40000];
    model_cfg c = {CELL_LSTM, 1, 16, 8, 37, 6, 8, 5};
    param_layout lay;
    model_layout(&c, &lay);
    cr_assert(lay.total <= 40000, "%ld parameters", lay.total);
    double l1 = class_step(gemm, 1, g1), l2 = class_step(gemm, 2, g2);
    cr_expect(l1 == l2, "%s: loss %.17g at 1 thread, %.17g at 2", gemm, l1, l2);
    cr_expect(memcmp(g1, g2, (size_t)lay.total * sizeof *g1) == 0, "%s: gradients differ", gemm);
}

/* Each row's loss (what --completion scores answers by) is that row's token's own:
 * -log p(class) - log p(word | class), recomputed here in double from the row's h_top
 * and the parameters.  The word part runs class by class on gathered rows, so a loss
 * credited to another row of the class would leave the total and the gradients right. */
Test(models, class_rows_own_loss)
{
    cr_assert_eq(output_init(), 0);
    cr_assert_eq(mm_init("blocked", 1), 0, "%s", rs_lasterr());
    model_cfg c = {CELL_LSTM, 1, 16, 8, 37, 6, 8, 5};
    model m;
    cr_assert_eq(model_create(&m, &c), 0, "%s", rs_lasterr());
    long counts[37];
    test_counts(counts, 37);
    cr_assert_eq(model_set_classes(&m, counts), 0, "%s", rs_lasterr());
    model_init_params(&m, 5);
    fill_inputs(&c, 8, 34, m.act.inputs, m.act.targets);
    model_forward(&m, 8, 1);
    const class_map *cm = &m.cls;
    const float *W = m.params + m.lay.t[P_WOUT(1)].offset, *b = m.params + m.lay.t[P_BOUT(1)].offset;
    const float *Wc = m.params + m.lay.t[P_WCLS(1)].offset, *bc = m.params + m.lay.t[P_BCLS(1)].offset;
    long H = c.hidden, N = (long)c.bptt * c.batch;
    for (long r = 0; r < N; r++) {
        const float *h = m.act.h[0] + c.batch * H + r * H;   /* h_top of row r */
        int cls = cm->of[m.act.targets[r]], o = cm->off[cls], S = cm->off[cls + 1] - o;
        double want = 0;
        for (int part = 0; part < 2; part++) {   /* the class, then the word in it */
            int n = part ? S : c.classes, at = part ? cm->pos[m.act.targets[r]] - o : cls;
            const float *w = part ? W + (long)o * H : Wc, *bias = part ? b + o : bc;
            double z[64], mx = -INFINITY, sum = 0;
            cr_assert(n <= 64);
            for (int k = 0; k < n; k++) {
                z[k] = bias[k];
                for (long j = 0; j < H; j++)
                    z[k] += (double)w[k * H + j] * h[j];
                mx = z[k] > mx ? z[k] : mx;
            }
            for (int k = 0; k < n; k++)
                sum += exp(z[k] - mx);
            want += mx + log(sum) - z[at];
        }
        cr_expect(fabs(m.act.loss[r] - want) <= 1e-5 * fmax(1, want), "row %ld: loss %.9g, its own %.9g", r,
                  (double)m.act.loss[r], want);
    }
    model_destroy(&m);
}

Test(models, classes_split_identical_openblas) { classes_split_identical("openblas"); }
Test(models, classes_split_identical_blis) { classes_split_identical("blis"); }
Test(models, classes_split_identical_blocked) { classes_split_identical("blocked"); }
Test(models, classes_split_identical_onednn) { classes_split_identical("onednn"); }

Test(models, classes_train_and_report)
{
    char js[300];
    tmp_path(js, sizeof js, "classes.json");
    train_opts o;
    small_opts(&o, NULL, NULL, 60);
    o.cfg.classes = 4;
    o.json = js;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    double ppl = summary_num(js, "valid_ppl");
    cr_expect(ppl < 9, "class softmax: valid ppl %.2f after 60 steps", ppl);
    cr_expect_eq(summary_num(js, "classes"), 4);
}
