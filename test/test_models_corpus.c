/* test_models_corpus.c — the text side of rnn-train: the tokenizer, split and
 * vocabulary rules and the training streams; the Kneser-Ney trigram baseline (it sums
 * to 1 for every kind of context; --model kn3 reports its perplexities); the sentence
 * completion questions and their scoring; --corpus sotu and --corpus big load and train
 * (where make deps fetched them).  Runs from the repository root (`make test`). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "completion.h"
#include "corpus.h"
#include "kn3.h"
#include "train.h"
#include "models_support.h"

/* ---- corpus ---- */

Test(models, corpus_word_rules)
{
    char path[300];
    tmp_path(path, sizeof path, "words.txt");
    /* prose (has a blank line): <eos> after "." and at the paragraph end */
    char text[8192] = "";
    for (int i = 0; i < 60; i++)
        strcat(text, "Call me Ishmael. The sperm-whale’s jaw—never mind!\n\nIt is ");
    write_file(path, text, strlen(text));
    corpus c;
    cr_assert_eq(corpus_load(&c, path, LEVEL_WORD, 0, 0), 0, "%s", rs_lasterr());
    /* the first tokens, as text */
    const char *want[] = {"call", "me", "ishmael", ".", "<eos>", "the", "sperm-whale's", "jaw",
                          "—", "never", "mind", "!", "<eos>", "it", "is", "call"};
    for (int i = 0; i < RS_ARRAY_LEN(want); i++)
        cr_expect_str_eq(c.words[c.train[i]], want[i], "token %d", i);
    cr_expect_eq(c.ntrain + c.nvalid + c.ntest, c.ntokens);
    cr_expect(c.nvalid > 0 && c.ntest > 0);
    cr_expect_str_eq(c.words[CORPUS_UNK], "<unk>");
    cr_expect_str_eq(c.words[CORPUS_EOS], "<eos>");
    corpus_free(&c);
    /* a cap keeps the most frequent; an explicit cap beyond the corpus is refused */
    cr_assert_eq(corpus_load(&c, path, LEVEL_WORD, 5, 1), 0, "%s", rs_lasterr());
    cr_expect_eq(c.vocab, 5);
    corpus_free(&c);
    cr_expect_eq(corpus_load(&c, path, LEVEL_WORD, 1000, 1), -1);
    cr_expect(strstr(rs_lasterr(), "larger than the corpus"), "%s", rs_lasterr());
    /* character level: code points */
    cr_assert_eq(corpus_load(&c, path, LEVEL_CHAR, 0, 0), 0, "%s", rs_lasterr());
    cr_expect_str_eq(c.words[c.train[0]], "C");
    int dash = 0;
    for (int i = 0; i < c.vocab; i++)
        dash |= strcmp(c.words[i], "—") == 0;
    cr_expect(dash, "the em dash is one character token");
    corpus_free(&c);
}

Test(models, corpus_streams)
{
    int data[23];
    for (int i = 0; i < 23; i++)
        data[i] = i;
    stream_set s;
    streams_init(&s, data, 23, 3);   /* L = 7: streams 0..6, 7..13, 14..20 */
    int in[4 * 3], tg[4 * 3];
    cr_expect_eq(streams_nwindows(&s, 4), 2);
    cr_assert_eq(streams_window(&s, 0, 4, in, tg), 4);
    cr_expect_eq(in[0 * 3 + 1], 7);
    cr_expect_eq(tg[0 * 3 + 1], 8);
    cr_expect_eq(in[3 * 3 + 2], 17);
    cr_assert_eq(streams_window(&s, 4, 4, in, tg), 2);   /* 4,5 -> 5,6 */
    cr_expect_eq(tg[1 * 3 + 0], 6);
    cr_expect_eq(streams_window(&s, 6, 4, in, tg), 0);
}

/* --corpus sotu (models/fetch_sotu.sh, run by make deps): it resolves, loads, splits
 * 90/5/5, trains and gives completion questions. */
Test(models, sotu_corpus_trains_and_completes)
{
    char path[4096], js[300], split[96];
    if (corpus_resolve("sotu", path, sizeof path) != 0)
        cr_skip_test("%s", rs_lasterr());
    tmp_path(js, sizeof js, "sotu.json");
    train_opts o;
    small_opts(&o, NULL, NULL, 3);
    o.corpus = "sotu";
    o.vocab_cap = 2000;
    o.cfg.classes = 45;
    o.completion = 20;
    o.json = js;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    meta_str(js, "tokens_train_valid_test", split, sizeof split);
    long ntrain = 0, nvalid = 0, ntest = 0;
    cr_assert_eq(sscanf(split, "%ld/%ld/%ld", &ntrain, &nvalid, &ntest), 3, "split '%s'", split);
    cr_expect(ntrain > 1500000 && nvalid > 0.04 * ntrain && ntest > 0.04 * ntrain, "split %s", split);
    double ppl = summary_num(js, "valid_ppl"), acc = summary_num(js, "completion_accuracy");
    cr_expect(isfinite(ppl) && ppl > 1 && ppl < 2000, "valid ppl %g", ppl);
    cr_expect_eq(summary_num(js, "completion_questions"), 20);
    cr_expect(acc >= 0 && acc <= 1, "completion accuracy %g", acc);
}

/* --corpus big (models/fetch_big.sh, run by make deps: the dictionaries' .debs unpacked):
 * big enough for the Sunway TaihuLight study's regime, a step of 8,000 sequences of 35
 * tokens at most 3% of an epoch; split 90/5/5; it trains. */
Test(models, big_corpus_holds_the_regime_and_trains)
{
    char path[4096], js[300], split[96];
    if (corpus_resolve("big", path, sizeof path) != 0)   /* says how to get it */
        cr_skip_test("%s", rs_lasterr());
    tmp_path(js, sizeof js, "big.json");
    train_opts o;
    small_opts(&o, NULL, NULL, 3);
    o.corpus = "big";
    o.vocab_cap = 2000;
    o.cfg.classes = 45;
    o.json = js;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    meta_str(js, "tokens_train_valid_test", split, sizeof split);
    long ntrain = 0, nvalid = 0, ntest = 0;
    cr_assert_eq(sscanf(split, "%ld/%ld/%ld", &ntrain, &nvalid, &ntest), 3, "split '%s'", split);
    cr_expect(ntrain + nvalid + ntest >= 10000000, "split %s: fewer than 10 M tokens", split);
    cr_expect(8000 * 35 <= 0.03 * ntrain, "split %s: a step of 8,000 x 35 tokens is %.2f%% of an epoch",
              split, 100.0 * 8000 * 35 / ntrain);
    cr_expect(nvalid > 0.04 * ntrain && ntest > 0.04 * ntrain, "split %s", split);
    double ppl = summary_num(js, "valid_ppl");
    cr_expect(isfinite(ppl) && ppl > 1 && ppl < 2000, "valid ppl %g", ppl);
}

/* ---- the Kneser-Ney trigram baseline ---- */

/* Every level of an interpolated KN model is a distribution: p(. | u v) sums to 1 over
 * the V ids for a seen context, a context seen only as a bigram, one never seen, and
 * the start symbol; and the model beats the unigram on held-out text of the grammar. */
Test(models, kn3_sums_to_one_and_learns)
{
    corpus c;
    cr_assert_eq(corpus_load(&c, tiny_corpus(), LEVEL_WORD, 0, 0), 0, "%s", rs_lasterr());
    kn3_model m;
    cr_assert_eq(kn3_train(&m, c.train, c.ntrain, c.vocab), 0, "%s", rs_lasterr());
    int V = c.vocab;
    const int ctx[][2] = {{c.train[0], c.train[1]}, {c.train[5], c.train[6]}, {V, V},
                          {V, c.train[0]},          {CORPUS_UNK, CORPUS_UNK}, {c.train[3], CORPUS_UNK}};
    for (int k = 0; k < RS_ARRAY_LEN(ctx); k++) {
        double sum = 0;
        for (int w = 0; w < V; w++) {
            double p = kn3_prob(&m, ctx[k][0], ctx[k][1], w);
            cr_expect(p > 0, "p(%d | %d %d) = %g", w, ctx[k][0], ctx[k][1], p);
            sum += p;
        }
        cr_expect(fabs(sum - 1) < 1e-12, "context %d %d: sum %.15g", ctx[k][0], ctx[k][1], sum);
    }
    for (int o = 0; o < 3; o++)
        for (int d = 0; d < 3; d++)
            cr_expect(m.D[o][d] >= 0 && m.D[o][d] <= d + 1, "D[%d][%d] = %g", o, d, m.D[o][d]);
    /* the grammar has ~5 choices per word: far below the 18-id vocabulary */
    double ppl = exp(kn3_eval(&m, c.test, c.ntest));
    cr_expect(ppl < 7, "kn3 test ppl %.2f", ppl);
    kn3_free(&m);
    corpus_free(&c);
}

Test(models, kn3_cli_reports_valid_and_test_ppl)
{
    char js[300];
    tmp_path(js, sizeof js, "kn3.json");
    int rc = run((const char *[]){"--model", "kn3", "--corpus", tiny_corpus(), "--json", js, NULL});
    cr_assert_eq(rc, 0, "stderr: %s", run_err);
    double v = summary_num(js, "valid_ppl"), t = summary_num(js, "test_ppl");
    cr_expect(v > 1 && v < 7 && t > 1 && t < 7, "kn3 valid %g test %g", v, t);
}

/* ---- sentence completion ---- */

Test(models, completion_questions_and_kn3_accuracy)
{
    corpus c;
    cr_assert_eq(corpus_load(&c, chain_corpus(), LEVEL_WORD, 0, 0), 0, "%s", rs_lasterr());
    completion_set q, q2;
    cr_assert_eq(completion_build(&q, &c, 60, 5), 0, "%s", rs_lasterr());
    cr_assert_eq(completion_build(&q2, &c, 60, 5), 0, "%s", rs_lasterr());
    cr_expect_eq(q.n, 60);
    for (int k = 0; k < q.n; k++) {
        const int *ch = q.choice + (long)k * COMPLETION_CHOICES;
        cr_expect(q.len[k] >= 6 && q.blank[k] >= 0 && q.blank[k] < q.len[k]);
        cr_expect_eq(ch[0], c.test[q.start[k] + q.blank[k]], "choice 0 is the blanked word");
        for (int j = 0; j < COMPLETION_CHOICES; j++) {
            cr_expect(ch[j] >= 50 && abs(ch[j] - ch[0]) <= 25, "impostor %d of %d", ch[j], ch[0]);
            for (int i = 0; i < j; i++)
                cr_expect_neq(ch[i], ch[j]);
        }
    }
    cr_expect(memcmp(q.choice, q2.choice, (size_t)q.n * COMPLETION_CHOICES * sizeof(int)) == 0 &&
              memcmp(q.start, q2.start, (size_t)q.n * sizeof(long)) == 0, "not deterministic");
    kn3_model m;
    cr_assert_eq(kn3_train(&m, c.train, c.ntrain, c.vocab), 0, "%s", rs_lasterr());
    double acc = completion_accuracy_kn3(&m, &q);
    cr_expect(acc > 0.9, "kn3 completion accuracy %.3f on a deterministic chain", acc);
    kn3_free(&m);
    completion_free(&q);
    completion_free(&q2);
    corpus_free(&c);
}

Test(models, completion_after_training)
{
    char js[300];
    tmp_path(js, sizeof js, "completion.json");
    train_opts o;
    small_opts(&o, NULL, NULL, 80);
    o.corpus = chain_corpus();
    o.cfg.cell = CELL_ELMAN;
    o.cfg.layers = 1;
    o.cfg.hidden = 48;
    o.completion = 40;
    o.json = js;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    cr_expect_eq(summary_num(js, "completion_questions"), 40);
    double acc = summary_num(js, "completion_accuracy");
    cr_expect(acc > 0.5, "completion accuracy %.3f after 80 steps on a deterministic chain", acc);
}
