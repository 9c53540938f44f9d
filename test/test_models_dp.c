/* test_models_dp.c — data-parallel training in one process (--workers N emulated):
 * --workers 4 of batch 2 against --batch 8 (the rows' bits, the gradient and one SGD
 * step within the bound of their sums' order); grad_tree's canonical order of the sum;
 * the gradient noise scale B_simple; --sync modes against fused; --eval-streams.
 * Runs from the repository root (`make test`). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "checkpoint.h"
#include "corpus.h"
#include "grad_noise.h"
#include "grad_tree.h"
#include "matmul.h"
#include "model.h"
#include "rng.h"
#include "train.h"
#include "models_support.h"

/* The log's rows as (step, tokens, train_loss, valid_ppl, b_simple: NAN when empty);
 * returns the count. */
static int log_curve(const char *path, double (*row)[5], int max)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "no log %s", path);
    char line[512];
    int n = 0;
    while (n < max && fgets(line, sizeof line, f)) {
        double s, lr;
        if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf", &row[n][0], &row[n][1], &s, &row[n][2],
                   &row[n][3], &lr) != 6)
            continue;
        const char *b = line;   /* b_simple: the 7th column */
        for (int c = 0; c < 6 && b; c++)
            b = strchr(b, ',') ? strchr(b, ',') + 1 : NULL;
        row[n++][4] = !b || *b == ',' || *b == '\n' || *b == 0 ? NAN : strtod(b, NULL);
    }
    fclose(f);
    return n;
}

/* sum_r |a_r| for every gradient entry of a 1-layer model after model_backward: a_r
 * the product that row r adds to the entry (out.w: s dlogits h_top, out.b: s dlogits,
 * wx: dpre x0, wh: dpre h, b: dpre, embed: the rows of d x0 whose input is the word;
 * s = 1/(Tw B), the mean's scale), in double from the float operands. */
static void row_abs_sums(const model *g, int Tw, double *A)
{
    const activations *ag = &g->act;
    const long B = g->cfg.batch, H = g->cfg.hidden, D = g->cfg.embed, V = g->cfg.vocab;
    const long G = (long)model_gates(&g->cfg) * H, K = (long)Tw * B;
    cr_assert_eq(g->cfg.layers, 1);
    cr_assert_eq(g->cfg.classes, 0);
    const float s = 1.0f / (float)K;   /* output_backward's scale */
    const float *dl = ag->dlogits, *dp = ag->dpre, *dx = ag->dB, *x0 = ag->x0;
    const float *h = ag->h[0], *htop = ag->h[0] + B * H;
    memset(A, 0, (size_t)g->lay.total * sizeof *A);
    for (int ti = 0; ti < g->lay.n; ti++) {
        const param_info *pi = &g->lay.t[ti];
        double *a = A + pi->offset;
        for (long r = 0; r < K; r++)
            for (long e = 0; e < pi->rows * pi->cols; e++) {
                long o = e / pi->cols, i = e % pi->cols;   /* output row, input column */
                if (ti == P_WOUT(1))
                    a[e] += fabs((double)s * dl[r * V + o] * htop[r * H + i]);
                else if (ti == P_BOUT(1))
                    a[e] += fabs((double)s * dl[r * V + i]);
                else if (ti == P_WX(0))
                    a[e] += fabs((double)dp[r * G + o] * x0[r * D + i]);
                else if (ti == P_WH(0))
                    a[e] += fabs((double)dp[r * G + o] * h[r * H + i]);
                else if (ti == P_B(0))
                    a[e] += fabs((double)dp[r * G + i]);
                else if (ti == P_EMBED && ag->inputs[r] == o)
                    a[e] += fabs((double)dx[r * D + i]);
            }
    }
}

/* --workers N of batch b against --batch N*b.  Worker w owns streams [w*b, (w+1)*b)
 * (train_dp.c); every row's forward and backward is computed alone (the GEMMs' rows
 * do not mix), so each token's loss, activations and deltas are the same bits in both
 * layouts (the GEMMs' edge tiles and the point-wise kernels' tails give an element
 * the bits a full tile or vector would), the deltas scaled by exactly N (the loss
 * mean's 1/(Tw*b) and 1/(Tw*N*b) round to floats N apart, N a power of two).  Only
 * the sums over rows differ in order: every weight gradient is S = sum_r a_r (the
 * K = Tw*N*b row products a_r of one entry).  Each a_r passes through at most K + 2
 * roundings in either layout (its product and the alpha scale, K - 1 row additions in
 * one GEMM, or Tw*b - 1 in a worker's plus log2 N in the tree of grad_tree.h; /N is
 * exact), so each computed sum is within gamma_{K+2} sum_r |a_r| of the exact S in any
 * order (Higham, Accuracy and Stability of Numerical Algorithms, ch. 4), gamma_k =
 * k u / (1 - k u), u = 2^-24, and the two within twice that of each other.
 * sum_r |a_r| is computed in double from the shared float operands (row_abs_sums). */
Test(models, workers_gradient_is_the_global_batch_up_to_the_sum_order)
{
    enum { NW = 4, BW = 2, T = 12, H = 24, D = 16, V = 37, G = 4 * H };
    const long B = NW * BW, K = (long)T * B;
    model_cfg cg = {CELL_LSTM, 1, H, D, V, NW * BW, T, 0}, cw = cg;
    cw.batch = BW;
    cr_assert_eq(mm_init("blocked", 1), 0, "%s", rs_lasterr());
    cr_assert_eq(output_init(), 0);
    model g, w;
    cr_assert_eq(model_create(&g, &cg), 0, "%s", rs_lasterr());
    cr_assert_eq(model_create(&w, &cw), 0, "%s", rs_lasterr());
    model_init_params(&g, 31);
    memcpy(w.params, g.params, (size_t)g.lay.total * sizeof(float));
    for (long i = 0; i < B * H; i++) {
        g.state_h[i] = (float)(0.8 * rng_sym(32, 8, (uint64_t)i));
        g.state_c[i] = (float)(0.8 * rng_sym(32, 9, (uint64_t)i));
    }
    fill_inputs(&cg, T, 33, g.act.inputs, g.act.targets);
    double loss_g = model_forward(&g, T, 1), loss_w = 0, loss_abs = 0;
    model_backward(&g, T);
    grad_tree tree;
    cr_assert_eq(grad_tree_create(&tree, NW, g.lay.total), 0, "%s", rs_lasterr());
    const activations *ag = &g.act, *aw = &w.act;
    long differ = 0;   /* rows of a worker that are not the global batch's */
    for (int k = 0; k < NW; k++) {
        for (int t = 0; t < T; t++)
            for (int j = 0; j < BW; j++) {
                w.act.inputs[t * BW + j] = ag->inputs[t * B + k * BW + j];
                w.act.targets[t * BW + j] = ag->targets[t * B + k * BW + j];
            }
        memcpy(w.state_h, g.state_h + k * BW * H, BW * H * sizeof(float));
        memcpy(w.state_c, g.state_c + k * BW * H, BW * H * sizeof(float));
        loss_w += model_forward(&w, T, 1);
        model_backward(&w, T);
        for (int t = 0; t < T; t++)
            for (int j = 0; j < BW; j++) {
                long rw = t * BW + j, rg = t * B + k * BW + j;
                differ += aw->loss[rw] != ag->loss[rg];
                loss_abs += fabs(aw->loss[rw]);
                for (long i = 0; i < H; i++)   /* h[t+1], c[t+1]: step t's outputs */
                    differ += aw->h[0][(rw + BW) * H + i] != ag->h[0][(rg + B) * H + i] ||
                              aw->c[0][(rw + BW) * H + i] != ag->c[0][(rg + B) * H + i];
                for (long i = 0; i < V; i++)
                    differ += aw->dlogits[rw * V + i] != ag->dlogits[rg * V + i];
                for (long i = 0; i < G; i++)   /* scaled by 1/(T BW) against 1/(T B) */
                    differ += aw->dpre[rw * G + i] != (float)NW * ag->dpre[rg * G + i];
                for (long i = 0; i < D; i++)   /* d x0, left in dB by model_backward */
                    differ += aw->dB[rw * D + i] != (float)NW * ag->dB[rg * D + i];
            }
        grad_tree_add(&tree, k, w.grads, 0, w.lay.total);
    }
    cr_expect_eq(differ, 0, "%ld values of the workers' rows are not the global batch's bits "
                 "(losses, h, c, dlogits, 4 dpre, 4 dx)", differ);
    /* the double sums of the same token losses in another order: 2 (K - 1) 2^-53 */
    cr_expect(fabs(loss_g - loss_w) <= 2.0 * (double)K * 0x1p-53 * loss_abs,
              "loss sums %.17g and %.17g", loss_g, loss_w);
    const float *sum = grad_tree_sum(&tree);
    const double u = 0x1p-24, gam = (double)(K + 2) * u / (1 - (double)(K + 2) * u);
    double *A = malloc((size_t)g.lay.total * sizeof *A);
    cr_assert(A);
    row_abs_sums(&g, T, A);
    long n = 0, ndiff = 0, beyond = 0, caught = 0;
    double worst = 0;
    for (int ti = 0; ti < g.lay.n; ti++)
        for (long at = g.lay.t[ti].offset; at < g.lay.t[ti].offset + g.lay.t[ti].rows *
                                                  g.lay.t[ti].cols; at++) {
            double bound = 2 * gam * A[at] * (1 + 1e-12);   /* A's own rounding: < K 2^-53 */
            double a = g.grads[at], b = sum[at] / (float)NW;
            n++, ndiff += a != b;
            beyond += fabs(a - b) > bound;
            /* the bound must tell a 1e-3 error in the mean apart (any entry of it) */
            caught += fabs(a - b * (1 + 1e-3)) > bound;
            if (bound > 0)
                worst = fmax(worst, fabs(a - b) / bound);
        }
    free(A);
    cr_log_info("workers' mean against the global batch: %ld of %ld entries differ, largest "
                "|difference| / bound %.3g", ndiff, n, worst);
    cr_expect_eq(beyond, 0, "%ld of %ld gradient entries beyond gamma_{K+2} bounds "
                 "(largest |difference| / bound %.3g)", beyond, n, worst);
    cr_expect(caught > n / 2, "a 1e-3 error in the workers' mean passes as rounding in %ld of "
              "%ld entries", n - caught, n);
    grad_tree_free(&tree);
    model_destroy(&g);
    model_destroy(&w);
}

/* The newest checkpoint's parameters in DIR (n floats) into p. */
static void ckpt_params(const char *dir, float *p, long n)
{
    char path[4200];
    cr_assert_eq(ckpt_latest(dir, path, sizeof path), 0, "no checkpoint in %s", dir);
    size_t nb;
    char *b = slurp(path, &nb);
    uint32_t hb;
    int64_t np;
    cr_assert(nb > 16);
    memcpy(&hb, b + 12, 4);   /* ckpt_header.header_bytes; .nparams 16 bytes before its end */
    cr_assert(nb >= 8 + (size_t)hb + (size_t)n * sizeof(float));
    memcpy(&np, b + 8 + hb - 16, 8);
    cr_assert_eq(np, n, "%s holds %lld parameters, want %ld", path, (long long)np, n);
    memcpy(p, b + 8 + hb, (size_t)n * sizeof(float));
    free(b);
}

/* The trainer's emulation (--workers 4 --batch 2) against --batch 8: one plain SGD
 * step (--clip 0: a multi-step trajectory would amplify rounding) from the same x0.
 * The first step's train loss: the same token losses (above), their double sum in
 * another order, so as printed (6 decimals) equal or one unit apart.  The parameters:
 * x = fl(x0 - fl(a g)), a = lr (optim.c: the workers' 1/N = 1/4 is exact), and
 * |g_8 - g_4| <= 2 gamma A, |g| <= (1 + gamma) A (above; A = sum_r |a_r| of the
 * trainer's first window, recomputed here), so, to first order in u,
 *   |x_8 - x_4| <= a (2 gamma + 2 u (1 + gamma)) A + u (|x_8| + |x_4|)
 * (times 1 + 1e-6 for the O(u^2) terms).  An update off by 1e-3 must fall outside. */
Test(models, workers_emulation_equals_the_global_batch)
{
    char l[2][300], d[2][300];
    tmp_path(l[0], sizeof l[0], "batch8.csv"), tmp_path(l[1], sizeof l[1], "workers4.csv");
    tmp_path(d[0], sizeof d[0], "ckpt-batch8"), tmp_path(d[1], sizeof d[1], "ckpt-workers4");
    train_opts o;
    for (int k = 0; k < 2; k++) {
        small_opts(&o, l[k], d[k], 1);
        o.cfg.layers = 1;
        o.gemm = "blocked";
        o.optim = OPT_SGD;
        o.lr = 0.5;
        o.clip = 0;
        o.eval_every = 1;
        o.ckpt_every = 1;
        if (k)
            o.cfg.batch = 2, o.workers = 4;
        cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    }
    static double a[4][5], b[4][5];
    cr_assert_eq(log_curve(l[0], a, 4), 1);
    cr_assert_eq(log_curve(l[1], b, 4), 1);
    cr_expect_eq(a[0][1], b[0][1], "tokens %g vs %g", a[0][1], b[0][1]);
    cr_expect(fabs(a[0][2] - b[0][2]) <= 1.5e-6, "train loss %.6f (batch 8) vs %.6f (4 workers)",
              a[0][2], b[0][2]);
    /* the first window of the global batch, from the trainer's x0 (train_setup.c) */
    corpus corp;
    cr_assert_eq(corpus_load(&corp, o.corpus, LEVEL_WORD, 0, 0), 0, "%s", rs_lasterr());
    model_cfg c = o.cfg;
    c.vocab = corp.vocab, c.batch = 8;
    cr_assert_eq(mm_init("blocked", 1), 0, "%s", rs_lasterr());
    cr_assert_eq(output_init(), 0);
    model m;
    cr_assert_eq(model_create(&m, &c), 0, "%s", rs_lasterr());
    model_init_params(&m, o.seed);
    model_reset_state(&m);
    stream_set st;
    streams_init(&st, corp.train, corp.ntrain, c.batch);
    int Tw = streams_window(&st, 0, c.bptt, m.act.inputs, m.act.targets);
    cr_assert_eq(Tw, c.bptt);
    double loss0 = model_forward(&m, Tw, 1) / ((double)Tw * c.batch);
    model_backward(&m, Tw);
    long n = m.lay.total, K = (long)Tw * c.batch;
    /* the trainer's own window: its first loss, printed to 6 decimals, is this one */
    cr_expect(fabs(loss0 - a[0][2]) <= 5e-7 + 1e-12, "first window's loss %.9f, the "
              "trainer's %.6f", loss0, a[0][2]);
    double *A = malloc((size_t)n * sizeof *A);
    float *x8 = malloc((size_t)n * sizeof *x8), *x4 = malloc((size_t)n * sizeof *x4);
    cr_assert(A && x8 && x4);
    row_abs_sums(&m, Tw, A);
    ckpt_params(d[0], x8, n);
    ckpt_params(d[1], x4, n);
    const double u = 0x1p-24, gam = (double)(K + 2) * u / (1 - (double)(K + 2) * u), lr = 0.5;
    long ndiff = 0, beyond = 0, caught = 0, moved = 0;
    double worst = 0;
    for (long i = 0; i < n; i++) {
        double bound = (lr * (2 * gam + 2 * u * (1 + gam)) * A[i] +
                        u * (fabs(x8[i]) + fabs(x4[i]))) * (1 + 1e-6);
        double diff = fabs((double)x8[i] - x4[i]), step = (double)x8[i] - m.params[i];
        ndiff += diff > 0;
        beyond += diff > bound;
        moved += step != 0;
        caught += fabs(step) * 1e-3 > bound;   /* lr 0.5005's step would differ by this */
        if (bound > 0)
            worst = fmax(worst, diff / bound);
    }
    cr_log_info("one SGD step, 4 workers against batch 8: %ld of %ld parameters differ, "
                "largest |difference| / bound %.3g", ndiff, n, worst);
    cr_expect_eq(beyond, 0, "%ld of %ld parameters beyond the bound (largest |difference| / "
                 "bound %.3g)", beyond, n, worst);
    /* where u |x| dominates a small step a 1e-3 change hides: a tenth must show it */
    cr_expect(moved > n / 2 && caught > moved / 10, "the bound lets a 1e-3 error in the update "
              "pass in %ld of the %ld moved parameters", moved - caught, moved);
    free(A), free(x8), free(x4);
    model_destroy(&m);
    corpus_free(&corp);
}

/* Small and big batch norms made from a known |G|^2 and tr(Sigma) (E|g_B|^2 =
 * |G|^2 + tr(Sigma)/B) give back B_simple = tr(Sigma)/|G|^2, whatever the step count. */
Test(models, grad_noise_recovers_a_known_noise_scale)
{
    grad_noise gn = {0};
    cr_expect(isnan(grad_noise_bsimple(&gn)), "B_simple before any step");
    double G2 = 0.5, trace = 40, Bs = 8, Bb = 32;
    for (int i = 0; i < 3; i++) {
        grad_noise_add(&gn, G2 + trace / Bs, G2 + trace / Bb, Bs, Bb);
        cr_expect(fabs(grad_noise_bsimple(&gn) - trace / G2) < 1e-9 * trace / G2,
                  "B_simple %.12g after %d steps, want %g", grad_noise_bsimple(&gn), i + 1,
                  trace / G2);
    }
    grad_noise_add(&gn, NAN, 1, Bs, Bb);   /* skipped */
    cr_expect_eq(gn.n, 3);
}

/* The estimator on sampled gradients: per-example g = G + e, e ~ N(0, sigma^2 I) in D =
 * 1000 dimensions (tr(Sigma) = D sigma^2 = 1000, |G|^2 = 20: B_simple = 50), N = 8
 * workers of Bs = 8 examples (Bb = 64), 400 steps.  The norms are formed as train_step.c
 * forms them.  The last average's sampling error is ~2% (|G|^2's per-step error ~8%,
 * averaged over the ~39 steps the 0.95 decay weighs), so 10% is five of its deviations;
 * an estimator off by the batch ratio (Bs for Bb) or by N misses it by far. */
Test(models, grad_noise_estimates_a_sampled_noise_scale)
{
    enum { D = 1000, N = 8, BS = 8 };
    const double sigma = 1, g = sqrt(20.0 / D);   /* every component of G */
    double *mean = calloc(D, sizeof *mean), *own = calloc(D, sizeof *own);
    cr_assert(mean && own);
    grad_noise gn = {0};
    uint64_t k = 0;
    for (int step = 0; step < 400; step++) {
        double small_sq = 0, big_sq = 0;
        for (int d = 0; d < D; d++)
            mean[d] = 0;
        for (int w = 0; w < N; w++) {
            double sq = 0;
            for (int d = 0; d < D; d++) {
                double sum = 0;
                for (int e = 0; e < BS; e++, k += 2) {   /* Box-Muller from two uniforms */
                    double u1 = (rng_sym(7, 1, k) + 1) / 2, u2 = (rng_sym(7, 1, k + 1) + 1) / 2;
                    sum += g + sigma * sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2);
                }
                own[d] = sum / BS;
                mean[d] += own[d] / N;
                sq += own[d] * own[d];
            }
            small_sq += sq / N;
        }
        for (int d = 0; d < D; d++)
            big_sq += mean[d] * mean[d];
        grad_noise_add(&gn, small_sq, big_sq, BS, BS * N);
    }
    double b = grad_noise_bsimple(&gn);
    cr_expect(fabs(b / 50 - 1) < 0.10, "B_simple %.4g, the sampled gradients' is 50", b);
    free(mean), free(own);
}

/* b_simple needs N >= 2 workers: finite and positive with 4 (early on the gradient is
 * far from noise-dominated, but a tiny batch makes the noise visible), empty with 1. */
Test(models, b_simple_logged_with_workers_only)
{
    char l4[300], l1[300];
    tmp_path(l4, sizeof l4, "bsimple4.csv"), tmp_path(l1, sizeof l1, "bsimple1.csv");
    train_opts o;
    small_opts(&o, l4, NULL, 20);
    o.cfg.batch = 2;
    o.workers = 4;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    small_opts(&o, l1, NULL, 20);
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    double r4[8][5], r1[8][5];
    cr_assert_eq(log_curve(l4, r4, 8), 2);
    cr_assert_eq(log_curve(l1, r1, 8), 2);
    for (int i = 0; i < 2; i++) {
        cr_expect(isfinite(r4[i][4]) && r4[i][4] > 0, "b_simple %g at step %g", r4[i][4], r4[i][0]);
        cr_expect(isnan(r1[i][4]), "b_simple %g with one worker", r1[i][4]);
    }
}

/* The canonical order from its definition (grad_tree.h): the binary digits of n from the
 * highest give complete subtrees of 2^j leaves, each the sum of its halves, added as
 * B1 + (B2 + (... + Bk)). */
static float tree_def(const float *x, int n)
{
    int hi = 1;
    while (hi * 2 <= n)
        hi *= 2;
    if (n == 1)
        return x[0];
    if (hi == n)
        return tree_def(x, n / 2) + tree_def(x + n / 2, n / 2);
    return tree_def(x, hi) + tree_def(x + hi, n - hi);
}

/* grad_tree's planned schedule sums in the defined order, bit for bit, for 2..70 leaves,
 * fed whole or, for the last leaf, range by range (bucketed); 4 leaves summed as two
 * trees of 2 added give the same bits (what makes P ranks equal one process). */
Test(models, grad_tree_sums_in_the_canonical_order)
{
    enum { N = 67, LEAVES = 70 };
    static float g[LEAVES][N], x[LEAVES];
    for (int k = 0; k < LEAVES; k++)
        for (int e = 0; e < N; e++)   /* 24-bit values of mixed scale: order shows */
            g[k][e] = (float)(((k * 7919 + e * 104729) % 16777213) - 8388606) *
                      ldexpf(1, (k * 5 + e) % 40 - 40);
    for (int leaves = 2; leaves <= LEAVES; leaves++) {
        grad_tree t;
        cr_assert_eq(grad_tree_create(&t, leaves, N), 0, "%s", rs_lasterr());
        cr_expect(t.nbuf <= 7, "%d leaves: %d buffers, want O(log2)", leaves, t.nbuf);
        for (int step = 0; step < 2; step++) {   /* the buffers are reused as they are */
            for (int k = 0; k < leaves; k++) {
                if (k < leaves - 1 || step == 0)
                    grad_tree_add(&t, k, g[k], 0, N);
                else   /* from the end down, as the backward readies them */
                    for (long to = N; to > 0; to -= 10)
                        grad_tree_add(&t, k, g[k], to > 10 ? to - 10 : 0, to);
            }
            const float *sum = grad_tree_sum(&t);
            int bad = 0;
            for (int e = 0; e < N; e++) {
                for (int k = 0; k < leaves; k++)
                    x[k] = g[k][e];
                float want = tree_def(x, leaves);
                bad += memcmp(&want, &sum[e], sizeof want) != 0;
            }
            cr_expect_eq(bad, 0, "%d leaves (step %d): %d elements not the canonical tree's",
                         leaves, step, bad);
        }
        grad_tree_free(&t);
    }
    for (int e = 0; e < N; e++) {
        float a = (g[0][e] + g[1][e]) + (g[2][e] + g[3][e]), b = tree_def((float[]){g[0][e], g[1][e],
                  g[2][e], g[3][e]}, 4);
        cr_expect(memcmp(&a, &b, sizeof a) == 0, "4 leaves as 2 + 2 at %d", e);
    }
}

/* In one process there is nothing to exchange: bucketed (its per-range sums of the
 * workers' gradients) and per-tensor give fused's log and parameters bit for bit. */
Test(models, sync_modes_equal_fused_in_one_process)
{
    static const char *const modes[][3] = {{"fused", "sync-f.csv", "sync-f.json"},
                                           {"bucketed", "sync-b.csv", "sync-b.json"},
                                           {"per-tensor", "sync-p.csv", "sync-p.json"}};
    static char rows[3][8192];
    char hash[3][65];
    for (int k = 0; k < 3; k++) {
        char log[300], json[300];
        tmp_path(log, sizeof log, modes[k][1]);
        tmp_path(json, sizeof json, modes[k][2]);
        train_opts o;
        small_opts(&o, log, NULL, 20);
        o.gemm = "blocked";
        o.cfg.batch = 2;
        o.workers = 4;
        o.sync = modes[k][0];
        o.bucket_mib = 0.002;
        o.json = json;
        cr_assert_eq(train_run(&o), 0, "%s: %s", modes[k][0], rs_lasterr());
        log_rows(log, rows[k], sizeof rows[k]);
        params_hash(json, hash[k]);
    }
    for (int k = 1; k < 3; k++) {
        cr_expect_str_eq(rows[0], rows[k], "--sync %s: the log differs from fused's", modes[k][0]);
        cr_expect_str_eq(hash[0], hash[k], "--sync %s: other parameters than fused", modes[k][0]);
    }
}

/* The valid ppl of the log's last row after `steps` steps with lr 0 (the initial weights)
 * for N workers of b streams, valid scored as `streams` streams (0: the default). */
static double untrained_ppl(int b, int workers, long streams, const char *name)
{
    char l[300];
    tmp_path(l, sizeof l, name);
    train_opts o;
    small_opts(&o, l, NULL, 1);
    o.eval_every = 1;
    o.lr = 0;
    o.cfg.batch = b;
    o.workers = workers;
    o.eval_streams = streams;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    static double row[4][5];
    cr_assert_eq(log_curve(l, row, 4), 1);
    return row[0][3];
}

/* --eval-streams: the same weights score the same at any global batch, and the layout it
 * names is the one scored (2 streams keep more context than 8: another perplexity). */
Test(models, eval_streams_score_every_global_batch_alike)
{
    double b8 = untrained_ppl(8, 1, 0, "es_b8.csv");
    double w4 = untrained_ppl(2, 4, 8, "es_w4.csv");
    double w1 = untrained_ppl(2, 1, 8, "es_w1.csv");
    double two = untrained_ppl(2, 4, 2, "es_two.csv");
    cr_expect(fabs(w4 - b8) <= 1e-6 * b8, "4 workers of 2, 8 streams: %.6f vs batch 8: %.6f", w4, b8);
    cr_expect(fabs(w1 - b8) <= 1e-6 * b8, "1 worker of 2, 8 streams: %.6f vs batch 8: %.6f", w1, b8);
    cr_expect(fabs(two - b8) > 1e-6 * b8, "2 streams scored like 8: %.6f", two);
    train_opts o;
    small_opts(&o, NULL, NULL, 1);
    o.cfg.batch = 4;
    o.eval_streams = 6;
    cr_expect_eq(train_run(&o), RS_EXIT_USAGE, "--eval-streams 6 with --batch 4 was accepted");
    cr_expect(strstr(rs_lasterr(), "--eval-streams"), "%s", rs_lasterr());
}
