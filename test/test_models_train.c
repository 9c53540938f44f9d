/* test_models_train.c — the trainer end to end, in process and as build/bin/rnn-train:
 * the loss decreases on a tiny corpus; --target-ppl and --max-seconds stop where they
 * say; --eval-tokens scores a prefix of valid, --eval-gate its first windows far from
 * the gate, --eval-growth spaces the evaluations;
 * --eval-async logs what the synchronous evaluation logs and resumes alike; a
 * sharded evaluation adds up to the whole split; bad input exits 2 with exactly one
 * line on stderr.  Runs from the repository root (`make test`). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "corpus.h"
#include "json.h"
#include "matmul.h"
#include "model.h"
#include "train.h"
#include "models_support.h"

/* ---- training, in process ---- */

Test(models, loss_decreases_on_tiny_corpus)
{
    train_opts o;
    char log[300];
    tmp_path(log, sizeof log, "decrease.csv");
    small_opts(&o, log, NULL, 60);
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    FILE *f = fopen(log, "r");
    char line[256];
    double first = 0, last = 0, ppl = 0;
    int rows = 0;
    cr_assert(fgets(line, sizeof line, f));
    cr_expect_str_eq(line, "step,tokens,seconds,train_loss,valid_ppl,lr,b_simple,eval_seconds,"
                     "eval_exposed_seconds,eval_tokens,first_window_ppl\n");
    while (fgets(line, sizeof line, f)) {
        long step, tok;
        double s, tl, vp, lr;
        cr_assert_eq(sscanf(line, "%ld,%ld,%lf,%lf,%lf,%lf", &step, &tok, &s, &tl, &vp, &lr), 6);
        if (rows++ == 0)
            first = tl;
        last = tl, ppl = vp;
    }
    fclose(f);
    cr_expect_eq(rows, 6);
    cr_expect(last < first - 1.0, "train loss %.3f -> %.3f: not learning", first, last);
    /* the grammar allows ~5 choices per word: a model that learned it is far below V */
    cr_expect(ppl < 8, "valid ppl %.2f", ppl);
}

Test(models, target_ppl_stops_and_reports)
{
    char js[300];
    tmp_path(js, sizeof js, "target.json");
    train_opts o;
    small_opts(&o, NULL, NULL, 200);
    o.target_ppl = 9;
    o.json = js;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    double steps = summary_num(js, "steps_to_target"), total = summary_num(js, "steps");
    cr_expect(steps > 0 && steps < 200 && fmod(steps, 10) == 0, "steps_to_target %g", steps);
    cr_expect_eq(steps, total, "the run stops at the evaluation that reached the target");
    cr_expect(summary_num(js, "tokens_to_target") == steps * 8 * 12);
    cr_expect(summary_num(js, "valid_ppl") <= 9);
}

/* The summary JSON's string column `col` of its one row ("" if absent). */
static void summary_str(const char *json, const char *col, char *out, size_t n)
{
    rs_json *j = rs_json_load(json);
    cr_assert(j, "%s: %s", json, rs_lasterr());
    const rs_json *rows = rs_json_get(j, "rows");
    cr_assert(rows && rows->type == RS_JARR && rows->n == 1);
    const rs_json *v = rs_json_get(rows->items[0], col);
    snprintf(out, n, "%s", v && v->type == RS_JSTR ? v->str : "");
    rs_json_free(j);
}

/* --max-seconds: the step that reaches the budget is the last, long before --steps. */
Test(models, max_seconds_stops_at_the_budget)
{
    char js[300], stop[64];
    tmp_path(js, sizeof js, "budget.json");
    train_opts o;
    small_opts(&o, NULL, NULL, 100000000);
    o.max_seconds = 0.3;
    o.json = js;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    double secs = summary_num(js, "seconds"), steps = summary_num(js, "steps");
    summary_str(js, "stop", stop, sizeof stop);
    cr_expect_str_eq(stop, "time budget");
    cr_expect(secs >= 0.3, "stopped at %g s, before the 0.3 s budget", secs);
    cr_expect(steps > 1 && steps < 100000000, "%g steps", steps);
}

/* The log's column `name` in every row; returns the rows. */
static int log_column(const char *path, const char *name, double *v, int max)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "no log %s", path);
    char line[512];
    int at = -1, n = 0;
    for (int row = 0; fgets(line, sizeof line, f) && n < max; row++) {
        int col = 0;
        line[strcspn(line, "\n")] = 0;
        for (char *rest = line, *cell = strsep(&rest, ","); cell;
             cell = strsep(&rest, ","), col++) {
            if (row == 0 && strcmp(cell, name) == 0)
                at = col;
            else if (row > 0 && col == at)
                v[n++] = strtod(cell, NULL);
        }
        cr_assert(at >= 0, "%s: no column %s", path, name);
    }
    fclose(f);
    return n;
}

/* --eval-async scores a snapshot of the same parameters with the same code as the
 * synchronous evaluation, so it logs the same perplexities, to the bit, at the same
 * steps (one trainer thread, as the evaluator has one). */
Test(models, async_eval_logs_what_sync_logs)
{
    need_backend("openblas");
    char log[2][300], js[2][300];
    tmp_path(log[0], 300, "sync.csv"), tmp_path(log[1], 300, "async.csv");
    tmp_path(js[0], 300, "sync.json"), tmp_path(js[1], 300, "async.json");
    train_opts o;
    for (int k = 0; k < 2; k++) {
        small_opts(&o, log[k], NULL, 40);
        o.gemm = "openblas", o.threads = 1, o.json = js[k], o.eval_async = k;
        cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    }
    static char rs[8192], ra[8192];
    log_rows(log[0], rs, sizeof rs), log_rows(log[1], ra, sizeof ra);
    cr_expect_str_eq(rs, ra, "async evaluation logged other rows");
    for (int i = 0; i < 2; i++) {
        const char *col = i ? "test_ppl" : "valid_ppl";
        double a = summary_num(js[0], col), b = summary_num(js[1], col);
        cr_expect(a == b && isfinite(a), "%s: %.17g sync, %.17g async", col, a, b);
    }
    char hs[65], ha[65];
    params_hash(js[0], hs), params_hash(js[1], ha);
    cr_expect_str_eq(hs, ha);
    double ev[2][8], ex[2][8];
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(log_column(log[k], "eval_seconds", ev[k], 8), 4);
        cr_assert_eq(log_column(log[k], "eval_exposed_seconds", ex[k], 8), 4);
        for (int i = 0; i < 4; i++)
            cr_expect(ev[k][i] > 0 && ex[k][i] >= 0, "row %d: eval %g s, exposed %g s", i,
                      ev[k][i], ex[k][i]);
    }
    for (int i = 0; i < 4; i++)   /* synchronous: the loop is held for all of it */
        cr_expect_eq(ev[0][i], ex[0][i]);
}

/* --eval-tokens T scores the first T valid tokens during training: with T past the
 * split the log is the same to the bit, with a short T the logged perplexities differ
 * while training and the final valid (all of it) stay the same to the bit. */
Test(models, eval_tokens_scores_a_prefix_during_training)
{
    char log[3][300], js[3][300];
    const long T[3] = {0, 1L << 30, 200};
    train_opts o;
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "et%d.csv", k), tmp_path(log[k], 300, name);
        snprintf(name, sizeof name, "et%d.json", k), tmp_path(js[k], 300, name);
        small_opts(&o, log[k], NULL, 40);
        o.gemm = "blocked", o.threads = 1, o.json = js[k], o.eval_tokens = T[k];
        cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    }
    static char r0[8192], r1[8192];
    log_rows(log[0], r0, sizeof r0), log_rows(log[1], r1, sizeof r1);
    cr_expect_str_eq(r0, r1, "--eval-tokens past the split logged other rows");
    double all[8], part[8];
    cr_assert_eq(log_column(log[0], "valid_ppl", all, 8), 4);
    cr_assert_eq(log_column(log[2], "valid_ppl", part, 8), 4);
    for (int i = 0; i < 4; i++)
        cr_expect(all[i] != part[i] && isfinite(part[i]), "row %d: %.17g on all of valid and on 200 tokens", i,
                  all[i]);
    cr_expect(summary_num(js[0], "valid_ppl") == summary_num(js[2], "valid_ppl"), "final valid %.17g, %.17g",
              summary_num(js[0], "valid_ppl"), summary_num(js[2], "valid_ppl"));
    o.eval_tokens = 3;   /* fewer than 2 tokens a stream */
    o.log = NULL, o.json = NULL;
    cr_expect_eq(train_run(&o), RS_EXIT_USAGE);
    cr_expect(strstr(rs_lasterr(), "--eval-tokens") != NULL, "%s", rs_lasterr());
}

/* --eval-gate X: an evaluation scores each stream's first window, and the whole prefix
 * only when that is <= X.  With X between the first and the last row's first-window ppl,
 * the first row is gated (its ppl is the first windows', fewer tokens) and the last is
 * the ungated run's to the bit; the final valid scores all either way. */
Test(models, eval_gate_scores_first_windows_far_from_the_gate)
{
    char log[3][300], js[3][300];
    const double gate[3] = {0, 1e300, 0};
    double first[3][8], ppl[3][8], tok[3][8];
    train_opts o;
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "eg%d.csv", k), tmp_path(log[k], 300, name);
        snprintf(name, sizeof name, "eg%d.json", k), tmp_path(js[k], 300, name);
        small_opts(&o, log[k], NULL, 40);
        o.gemm = "blocked", o.threads = 1, o.json = js[k], o.eval_tokens = 400;
        o.eval_gate = k < 2 ? gate[k] : (first[1][0] + first[1][3]) / 2;
        cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
        cr_assert_eq(log_column(log[k], "first_window_ppl", first[k], 8), 4);
        cr_assert_eq(log_column(log[k], "valid_ppl", ppl[k], 8), 4);
        cr_assert_eq(log_column(log[k], "eval_tokens", tok[k], 8), 4);
    }
    for (int i = 0; i < 4; i++) {
        cr_expect(first[0][i] == 0 && ppl[1][i] == ppl[0][i] && tok[1][i] == tok[0][i],
                  "row %d: no gate, or a gate above all: the same rows (%.17g, %.17g)", i, ppl[0][i], ppl[1][i]);
        cr_expect(first[1][i] > 0 && first[1][i] != ppl[1][i], "row %d: no first-window ppl beside the full one", i);
    }
    cr_assert(first[1][0] > first[1][3], "the first-window ppl did not fall: %g, %g", first[1][0], first[1][3]);
    cr_expect(ppl[2][0] == first[1][0] && tok[2][0] < tok[0][0], "row 0 is not gated: ppl %.17g (first windows "
              "%.17g), %g tokens of %g", ppl[2][0], first[1][0], tok[2][0], tok[0][0]);
    cr_expect(ppl[2][3] == ppl[0][3] && tok[2][3] == tok[0][3], "row 3 is not the full score: %.17g, want %.17g",
              ppl[2][3], ppl[0][3]);
    cr_expect(summary_num(js[0], "valid_ppl") == summary_num(js[2], "valid_ppl"), "final valid %.17g, %.17g",
              summary_num(js[0], "valid_ppl"), summary_num(js[2], "valid_ppl"));
    o.log = NULL, o.json = NULL, o.target_ppl = o.eval_gate * 2;   /* the gate under the target */
    cr_expect_eq(train_run(&o), RS_EXIT_USAGE);
    cr_expect(strstr(rs_lasterr(), "--eval-gate") != NULL, "%s", rs_lasterr());
    o.target_ppl = 0, o.eval_async = 1;
    cr_expect_eq(train_run(&o), RS_EXIT_USAGE);
    cr_expect(strstr(rs_lasterr(), "--eval-async") != NULL, "%s", rs_lasterr());
}

/* --eval-growth: evaluations at E, then each time the step has grown by G of itself (at
 * least E): E 2, G 0.5 over 40 steps logs 2 4 6 9 13 19 28 and the end, 40. */
Test(models, eval_growth_spaces_the_evaluations)
{
    char log[300];
    tmp_path(log, sizeof log, "growth.csv");
    train_opts o;
    small_opts(&o, log, NULL, 40);
    o.gemm = "blocked", o.threads = 1, o.eval_every = 2, o.eval_growth = 0.5;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    double steps[16];
    const double want[] = {2, 4, 6, 9, 13, 19, 28, 40};
    int n = log_column(log, "step", steps, 16);
    cr_assert_eq(n, 8, "%d rows", n);
    for (int i = 0; i < 8; i++)
        cr_expect_eq(steps[i], want[i], "row %d: step %g, want %g", i, steps[i], want[i]);
}

/* With --eval-async the schedule takes each result at fixed steps (the next evaluation
 * or checkpoint), so a plateau schedule repeats to the bit, and a run stopped at an
 * evaluation step or between two, then resumed, equals the uninterrupted one. */
Test(models, async_eval_schedule_repeats_and_resumes)
{
    need_backend("openblas");
    char l[4][300], d[4][300], j[4][300], name[32];
    for (int k = 0; k < 4; k++) {
        snprintf(name, sizeof name, "as%d.csv", k), tmp_path(l[k], 300, name);
        snprintf(name, sizeof name, "as%d", k), tmp_path(d[k], 300, name);
        snprintf(name, sizeof name, "as%d.json", k), tmp_path(j[k], 300, name);
    }
    static const long stop_at[4] = {0, 0, 15, 20};   /* 0: uninterrupted */
    train_opts o;
    for (int k = 0; k < 4; k++) {
        for (int part = stop_at[k] ? 0 : 1; part < 2; part++) {
            small_opts(&o, l[k], d[k], part ? 40 : stop_at[k]);
            o.gemm = "openblas", o.threads = 1, o.eval_async = 1, o.ckpt_every = 5;
            o.sched = SCHED_PLATEAU, o.optim = OPT_SGD, o.lr = 1, o.resume = part && stop_at[k];
            o.json = part ? j[k] : NULL;
            cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
        }
    }
    static char r0[8192], rk[8192];
    char h0[65], hk[65];
    log_rows(l[0], r0, sizeof r0), params_hash(j[0], h0);
    cr_expect(strstr(r0, ",0.5,"), "the plateau schedule never halved the rate:\n%s", r0);
    for (int k = 1; k < 4; k++) {
        log_rows(l[k], rk, sizeof rk), params_hash(j[k], hk);
        cr_expect_str_eq(r0, rk, "run %d (stopped at %ld) logged other rows", k, stop_at[k]);
        cr_expect_str_eq(h0, hk, "run %d (stopped at %ld): other parameters", k, stop_at[k]);
    }
}

/* A sharded evaluation's pieces: the groups' partial sums, cut anywhere, add up to the
 * whole split's loss, and every token is scored once. */
Test(models, eval_shards_add_up_to_the_split)
{
    corpus c;
    cr_assert_eq(corpus_load(&c, tiny_corpus(), LEVEL_WORD, 0, 0), 0, "%s", rs_lasterr());
    model_cfg cfg = {CELL_LSTM, 1, 24, 16, c.vocab, 2, 8, 0};
    cr_assert_eq(mm_init("blocked", 1), 0, "%s", rs_lasterr());
    cr_assert_eq(output_init(), 0);
    model m;
    cr_assert_eq(model_create(&m, &cfg), 0, "%s", rs_lasterr());
    model_init_params(&m, 3);
    eval_result whole, parts;
    eval_split_groups(&m, c.valid, c.nvalid, 4, &whole);
    static const int cut[] = {0, 1, 3, 4};
    double sum = 0;
    long tokens = 0;
    for (int i = 0; i < 3; i++) {
        double s;
        long t;
        eval_groups_partial(&m, c.valid, c.nvalid, 4, cut[i], cut[i + 1], 0, &s, &t);
        cr_expect(t > 0 && s > 0, "groups [%d, %d): %ld tokens, loss sum %g", cut[i], cut[i + 1], t, s);
        sum += s, tokens += t;
    }
    eval_result_set(&parts, sum, tokens);
    cr_expect_eq(tokens, whole.tokens);
    cr_expect(fabs(parts.loss - whole.loss) <= 1e-12 * whole.loss, "shards %.17g, whole %.17g",
              parts.loss, whole.loss);
    model_destroy(&m);
    corpus_free(&c);
}

/* ---- bad input to the binary: exit 2, one line ---- */

Test(models, bad_input_exits_2_with_one_line)
{
    char empty[300], binary[300], bad_utf8[300], notdir[300], sub[320];
    tmp_path(empty, sizeof empty, "empty.txt");
    tmp_path(binary, sizeof binary, "binary.txt");
    tmp_path(bad_utf8, sizeof bad_utf8, "latin1.txt");
    tmp_path(notdir, sizeof notdir, "a-file");
    write_file(empty, "", 0);
    write_file(binary, "hello\0world\x01\x02", 13);
    write_file(bad_utf8, "caf\xe9 au lait and more words here", 33);
    write_file(notdir, "x", 1);
    snprintf(sub, sizeof sub, "%s/ckpt", notdir);
    const char *tiny = tiny_corpus();
    expect_usage((const char *[]){"--corpus", empty, SMALL, NULL}, "is empty");
    expect_usage((const char *[]){"--corpus", binary, SMALL, NULL}, "NUL byte");
    expect_usage((const char *[]){"--corpus", bad_utf8, SMALL, NULL}, "invalid UTF-8");
    expect_usage((const char *[]){"--corpus", "/nonexistent/text.txt", SMALL, NULL}, "no such corpus");
    expect_usage((const char *[]){"--corpus", tiny, "--vocab", "100000", SMALL, NULL},
                 "larger than the corpus");
    expect_usage((const char *[]){"--corpus", tiny, "--checkpoint", sub, SMALL, NULL},
                 "cannot be created");
    expect_usage((const char *[]){"--corpus", tiny, "--checkpoint", "/proc/rnnscale-ckpt", SMALL, NULL},
                 "checkpoint folder");
    expect_usage((const char *[]){"--model", "gru", NULL}, "unknown model");
    expect_usage((const char *[]){"--corpus", tiny, "--classes", "1000", SMALL, NULL},
                 "--classes 1000: expected 1 to the vocabulary size");
    expect_usage((const char *[]){"--pipeline", "--classes", "10", NULL}, "drop --classes");
    expect_usage((const char *[]){"--hidden", "abc", NULL}, "--hidden");
    expect_usage((const char *[]){"--resume", NULL}, "--checkpoint");
    expect_usage((const char *[]){"--corpus", tiny, "--gemm", "nosuch", NULL},
                 "--gemm: unknown backend 'nosuch'");
    expect_usage((const char *[]){"--corpus", tiny, "--gemm", "auto:other=nosuch", NULL},
                 "--gemm: unknown GEMM backend 'nosuch'");
    expect_usage((const char *[]){"--corpus", tiny, SMALL, "--gemm", "auto:other=blocked;1x2x3:TN=blocked", NULL},
                 "--gemm: the plan's product 1x2x3:TN is not one of this model's");
    expect_usage((const char *[]){"--corpus", tiny, SMALL, "--eval-async", "--gemm",
                                  "auto:other=blocked;32x1x10:NN=libxsmm", NULL},
                 "--eval-async calls GEMM from two threads");
    expect_usage((const char *[]){"--eval-ranks", "1", NULL}, "--eval-ranks 1 needs ranks to set aside");
    expect_usage((const char *[]){"--bench", "5", "--eval-every", "10", NULL},
                 "no block of 10 steps");
}
