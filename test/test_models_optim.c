/* test_models_optim.c — the optimizers and learning-rate schedules: each optimizer and
 * schedule learns the tiny corpus; LARS's and LAMB's per-tensor trust ratios against a
 * hand computation, and a resumed run of each equal to an uninterrupted one; --lr-scale's
 * effective rate.  Runs from the repository root (`make test`). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "optim.h"
#include "train.h"
#include "models_support.h"

/* The valid perplexity of the small model after 80 steps (warmup 5, evaluated at 40
 * and 80); lr < 0: the optimizer's default. */
static double ppl_after_80_steps(optim_kind k, double lr, sched_kind s, cell_kind cell)
{
    char js[300], name[32];
    snprintf(name, sizeof name, "learn-%s-%s.json", optim_name(k), sched_name(s));
    tmp_path(js, sizeof js, name);
    train_opts o;
    small_opts(&o, NULL, NULL, 80);
    o.cfg.cell = cell;
    o.optim = k;
    o.lr = lr;
    o.sched = s;
    o.warmup = 5;
    o.eval_every = 40;
    o.json = js;
    o.gemm = "blocked";   /* --gemm auto's pick depends on timing; the curve must not */
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    return summary_num(js, "valid_ppl");
}

Test(models, every_optimizer_and_schedule_learns)
{
    static const optim_kind k[] = {OPT_SGD, OPT_MOMENTUM, OPT_NESTEROV, OPT_ADAM};
    static const double lr[] = {10.0, 0.3, 2.0, 0.01};
    static const sched_kind s[] = {SCHED_PLATEAU, SCHED_COSINE, SCHED_LINEAR, SCHED_CONST};
    for (int i = 0; i < 4; i++) {
        double ppl = ppl_after_80_steps(k[i], lr[i], s[i], i % 2 ? CELL_ELMAN : CELL_LSTM);
        /* uniform over the 18 ids is 18, the unigram distribution ~12: below 8 the model
         * has learned the grammar, not just the counts (plain SGD and Nesterov at rates
         * a tenth of these stayed at ~12) */
        cr_expect(ppl < 8, "%s: valid ppl %.2f after 80 steps", optim_name(k[i]), ppl);
    }
}

/* LARS and LAMB at their default rates, one cell each; a higher bar than above. */
Test(models, lars_and_lamb_learn)
{
    static const optim_kind k[] = {OPT_LARS, OPT_LAMB};
    for (int i = 0; i < 2; i++) {
        double ppl = ppl_after_80_steps(k[i], -1, SCHED_CONST, i % 2 ? CELL_ELMAN : CELL_LSTM);
        /* the unigram distribution is ~12, the grammar's own entropy ~4 (about 5 choices
         * per word): below 8 the model has learned the grammar, not just the counts */
        cr_expect(ppl < 8, "%s: valid ppl %.2f after 80 steps", optim_name(k[i]), ppl);
    }
}

/* A layout of a weight (|w| = 5), a weight past LAMB's clamp (|w| = 20) and a bias,
 * two floats each, at the layout's 16-float alignment. */
static param_layout trust_layout(float *p, float *g)
{
    param_layout lay = {3, {{"l0.wx", 1, 2, 0}, {"out.w", 1, 2, 16}, {"out.b", 1, 2, 32}}, 48};
    static const float w[6] = {3, 4, 12, 16, 0.5f, -0.5f}, gr[6] = {0.6f, 0.8f, 3, 4, 1, 2};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 2; i++)
            p[16 * k + i] = w[2 * k + i], g[16 * k + i] = gr[2 * k + i];
    return lay;
}

/* Absolute, on values up to 16: float steps, and 1 - 0.999 rounded to float moves LAMB's
 * r by ~7e-6 relative; a wrong ratio or a missed decay is off by > 1e-3. */
#define TRUST_TOL 2e-5
static void expect_tensor(const float *p, int k, double e0, double e1, const char *what)
{
    cr_expect(fabs(p[16 * k] - e0) <= TRUST_TOL && fabs(p[16 * k + 1] - e1) <= TRUST_TOL,
              "%s tensor %d: (%.9g, %.9g), by hand (%.9g, %.9g)", what, k, p[16 * k], p[16 * k + 1], e0, e1);
}

/* One step of each, against the rules of optim.h worked by hand. */
Test(models, trust_ratio_per_tensor_by_hand)
{
    float p[48] = {0}, g[48] = {0};
    param_layout lay = trust_layout(p, g);
    optimizer o;
    cr_assert_eq(optim_init(&o, OPT_LARS, lay.total), 0);
    o.weight_decay = 0.1;
    optim_step(&o, p, g, 10.0, 0.5, &lay);
    /* g scaled by 0.5. l0.wx: q = 0.001*5 / (0.5 + 0.1*5) = 0.005, v = q (g/2 + 0.1 w) =
     * 0.005 (0.6, 0.8), p -= 10 v.  out.w: q = 0.001*20 / (2.5 + 2) = 1/225,
     * v = q (1.5 + 1.2, 2 + 1.6).
     * out.b: q = 1, no decay, v = g/2. */
    expect_tensor(p, 0, 3 - 10 * 0.005 * 0.6, 4 - 10 * 0.005 * 0.8, "lars");
    expect_tensor(p, 1, 12 - 10 * 2.7 / 225, 16 - 10 * 3.6 / 225, "lars");
    expect_tensor(p, 2, 0.5 - 10 * 0.5, -0.5 - 10 * 1.0, "lars");
    optim_free(&o);

    lay = trust_layout(p, g);
    cr_assert_eq(optim_init(&o, OPT_LAMB, lay.total), 0);
    o.eps = 0;   /* then r = sign(g) + wd w exactly at the first step (m_hat = g, v_hat = g^2) */
    optim_step(&o, p, g, 0.1, 1.0, &lay);
    /* l0.wx: r = (1.03, 1.04), q = 5 / |r|.  out.w: r = (1.12, 1.16), q = 10 / |r| (|w| = 20
     * clamped at 10).  out.b: r = (1, 1), q = 1. */
    double n0 = sqrt(1.03 * 1.03 + 1.04 * 1.04), n1 = sqrt(1.12 * 1.12 + 1.16 * 1.16);
    expect_tensor(p, 0, 3 - 0.1 * 5 / n0 * 1.03, 4 - 0.1 * 5 / n0 * 1.04, "lamb");
    expect_tensor(p, 1, 12 - 0.1 * 10 / n1 * 1.12, 16 - 0.1 * 10 / n1 * 1.16, "lamb");
    expect_tensor(p, 2, 0.5 - 0.1, -0.5 - 0.1, "lamb");
    optim_free(&o);
}

/* As same_seed_same_bits_and_resume_equals_uninterrupted, for the layer-wise ones. */
Test(models, lars_and_lamb_resume_bit_identically)
{
    static const optim_kind k[] = {OPT_LARS, OPT_LAMB};
    for (int i = 0; i < 2; i++) {
        char la[300], lc[300], da[300], dc[300], ja[300], jc[300], name[32];
        snprintf(name, sizeof name, "trust-a%d", i), tmp_path(da, sizeof da, name);
        snprintf(name, sizeof name, "trust-c%d", i), tmp_path(dc, sizeof dc, name);
        snprintf(name, sizeof name, "trust-a%d.csv", i), tmp_path(la, sizeof la, name);
        snprintf(name, sizeof name, "trust-c%d.csv", i), tmp_path(lc, sizeof lc, name);
        snprintf(name, sizeof name, "trust-a%d.json", i), tmp_path(ja, sizeof ja, name);
        snprintf(name, sizeof name, "trust-c%d.json", i), tmp_path(jc, sizeof jc, name);
        train_opts o;
        small_opts(&o, la, da, 30);
        o.optim = k[i], o.lr = -1, o.gemm = "blocked", o.json = ja;
        cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
        small_opts(&o, lc, dc, 15);
        o.optim = k[i], o.lr = -1, o.gemm = "blocked", o.ckpt_every = 5;
        cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
        small_opts(&o, lc, dc, 30);
        o.optim = k[i], o.lr = -1, o.resume = 1, o.json = jc;
        cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
        char ha[65], hc[65];
        params_hash(ja, ha), params_hash(jc, hc);
        cr_expect_str_eq(ha, hc, "%s: a resumed run gave other parameters", optim_name(k[i]));
        static char ra[8192], rc[8192];
        log_rows(la, ra, sizeof ra), log_rows(lc, rc, sizeof rc);
        cr_expect_str_eq(ra, rc, "%s: the resumed run's log differs", optim_name(k[i]));
    }
}

/* --lr-scale: the rate the run used, in the header, the lr column and the metadata. */
Test(models, lr_scale_sets_the_effective_lr)
{
    static const char *scale[] = {"linear", "sqrt"};
    static const char *want[] = {"2", "1"};   /* 0.5 x 16/4, 0.5 x sqrt(16/4) */
    for (int i = 0; i < 2; i++) {
        char js[300], name[32], line[128], got[64];
        snprintf(name, sizeof name, "lrscale%d.json", i);
        tmp_path(js, sizeof js, name);
        static char out[1 << 16];
        int rc = run_stdout((const char *[]){"--corpus", tiny_corpus(), "--hidden", "8", "--batch", "16",
                                             "--bptt", "5", "--gemm", "blocked", "--threads", "1",
                                             "--optimizer", "momentum", "--lr", "0.5", "--lr-scale",
                                             scale[i], "--base-batch", "4", "--warmup", "3",
                                             "--steps", "4", "--json", js, NULL},
                            out, sizeof out);
        cr_assert_eq(rc, 0, "exit %d: %s", rc, run_err);
        snprintf(line, sizeof line, "lr-scale %s: lr %s = 0.5 x %s(16/4) (global batch / base "
                 "batch); warmup 3 steps", scale[i], want[i], i ? "sqrt" : "");
        cr_expect(strstr(out, line), "no '%s' in:\n%s", line, out);
        cr_expect_eq(summary_num(js, "lr"), atof(want[i]));
        meta_str(js, "lr_effective", got, sizeof got);
        cr_expect_eq(atof(got), atof(want[i]), "lr_effective '%s'", got);
        meta_str(js, "lr_scale", got, sizeof got);
        cr_expect_str_eq(got, scale[i]);
        meta_str(js, "warmup", got, sizeof got);
        cr_expect_str_eq(got, "3");
    }
    expect_usage((const char *[]){"--lr-scale", "cubic", NULL}, "expected none, linear or sqrt");
    expect_usage((const char *[]){"--optimizer", "lion", NULL}, "adam, lars or lamb");
}
