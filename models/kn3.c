/* kn3.c — interpolated modified Kneser-Ney trigram (the formulas are in kn3.h), and
 * `rnn-train --model kn3`: the baseline's valid/test perplexity on the RNNs' split.
 *
 * Counting is sorting: every trigram of the train stream (with two start symbols in
 * front) becomes one 64-bit key (u R + v) R + w; sorted, equal keys are its count,
 * and the sorted order groups each context uv together.  Dropping u from each distinct
 * trigram and sorting again gives the bigram continuation counts N1+(.vw), grouped by
 * v; each distinct bigram adds one to N1+(.w).  Lookups are binary searches. */
#include "kn3.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "completion.h"
#include "meta.h"
#include "opts.h"
#include "record.h"
#include "timer.h"
#include "train.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Index of key in a (n, sorted), or -1. */
static long find(const uint64_t *a, long n, uint64_t key)
{
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && a[lo] == key ? lo : -1;
}

/* Chen & Goodman's three discounts from the count-of-counts n[1..4] of one order.
 * A degenerate tiny corpus (some n(k) zero) gets the usual 0.5/1/1.5; each D(k) is
 * kept in [0, k] so that no count goes negative and each level sums to 1. */
static void discounts(const long n[5], double D[3])
{
    static const double fallback[3] = {0.5, 1.0, 1.5};
    if (n[1] <= 0 || n[2] <= 0 || n[3] <= 0 || n[4] <= 0) {
        memcpy(D, fallback, sizeof fallback);
        return;
    }
    double Y = (double)n[1] / (n[1] + 2.0 * n[2]);
    for (int k = 1; k <= 3; k++) {
        double d = k - (k + 1) * Y * (double)n[k + 1] / (double)n[k];
        D[k - 1] = d < 0 ? 0 : d > k ? k : d;
    }
}

static void coc_add(long n[5], long c)
{
    if (c >= 1 && c <= 4)
        n[c]++;
}

static void nk_add(int nk[3], long c) { nk[c >= 3 ? 2 : c - 1]++; }

static double gamma_num(const double D[3], const int nk[3])
{
    return D[0] * nk[0] + D[1] * nk[1] + D[2] * nk[2];
}

static double disc(const double D[3], long c) { return c >= 3 ? D[2] : D[c - 1]; }

void kn3_free(kn3_model *m)
{
    free(m->k3), free(m->c3), free(m->kc2), free(m->tc2), free(m->nc2_n);
    free(m->k2), free(m->c2), free(m->tc1), free(m->nc1_n), free(m->c1);
    memset(m, 0, sizeof *m);
}

int kn3_train(kn3_model *m, const int *data, long n, int V)
{
    memset(m, 0, sizeof *m);
    uint64_t R = (uint64_t)V + 1;
    RS_CHECK(R < 2000000, "--model kn3: vocabulary of %d ids is too large for 64-bit trigram keys", V);
    RS_CHECK(n >= 1, "--model kn3: empty train split");
    m->V = V, m->R = R;
    /* ---- order 3: every trigram, sorted ---- */
    uint64_t *keys = malloc((size_t)n * sizeof *keys);
    RS_CHECK(keys, "out of memory counting trigrams");
    uint64_t u = (uint64_t)V, v = (uint64_t)V;
    for (long i = 0; i < n; i++) {
        uint64_t w = (uint64_t)data[i];
        keys[i] = (u * R + v) * R + w;
        u = v, v = w;
    }
    qsort(keys, (size_t)n, sizeof *keys, cmp_u64);
    m->k3 = malloc((size_t)n * sizeof *m->k3);
    m->c3 = malloc((size_t)n * sizeof *m->c3);
    m->kc2 = malloc((size_t)n * sizeof *m->kc2);
    m->tc2 = malloc((size_t)n * sizeof *m->tc2);
    m->nc2_n = calloc((size_t)n * 3, sizeof *m->nc2_n);
    if (!m->k3 || !m->c3 || !m->kc2 || !m->tc2 || !m->nc2_n) {
        free(keys);
        kn3_free(m);
        RS_CHECK(0, "out of memory counting trigrams");
    }
    long coc[5] = {0};
    for (long i = 0; i < n;) {
        long j = i;
        while (j < n && keys[j] == keys[i])
            j++;
        long t = m->n3++;
        m->k3[t] = keys[i];
        m->c3[t] = (int)(j - i);
        coc_add(coc, j - i);
        uint64_t ctx = keys[i] / R;
        if (m->nc2 == 0 || m->kc2[m->nc2 - 1] != ctx) {
            m->kc2[m->nc2] = ctx;
            m->tc2[m->nc2++] = 0;
        }
        m->tc2[m->nc2 - 1] += j - i;
        nk_add(m->nc2_n + 3 * (m->nc2 - 1), j - i);
        i = j;
    }
    discounts(coc, m->D[2]);
    /* ---- order 2: distinct trigrams' (v, w), sorted: N1+(.vw) ---- */
    for (long t = 0; t < m->n3; t++)
        keys[t] = m->k3[t] % (R * R);
    qsort(keys, (size_t)m->n3, sizeof *keys, cmp_u64);
    m->k2 = malloc((size_t)m->n3 * sizeof *m->k2);
    m->c2 = malloc((size_t)m->n3 * sizeof *m->c2);
    m->tc1 = calloc((size_t)R, sizeof *m->tc1);
    m->nc1_n = calloc((size_t)R * 3, sizeof *m->nc1_n);
    m->c1 = calloc((size_t)V, sizeof *m->c1);
    if (!m->k2 || !m->c2 || !m->tc1 || !m->nc1_n || !m->c1) {
        free(keys);
        kn3_free(m);
        RS_CHECK(0, "out of memory counting bigrams");
    }
    memset(coc, 0, sizeof coc);
    long coc1[5] = {0};
    for (long i = 0; i < m->n3;) {
        long j = i;
        while (j < m->n3 && keys[j] == keys[i])
            j++;
        long t = m->n2++;
        m->k2[t] = keys[i];
        m->c2[t] = (int)(j - i);
        coc_add(coc, j - i);
        long vv = (long)(keys[i] / R), ww = (long)(keys[i] % R);
        m->tc1[vv] += j - i;
        nk_add(m->nc1_n + 3 * vv, j - i);
        m->c1[ww]++;   /* one more distinct left context of w */
        i = j;
    }
    free(keys);
    discounts(coc, m->D[1]);
    /* ---- order 1 ---- */
    for (int w = 0; w < V; w++)
        if (m->c1[w]) {
            m->tc0 += m->c1[w];
            coc_add(coc1, m->c1[w]);
            nk_add(m->n0_n, m->c1[w]);
        }
    discounts(coc1, m->D[0]);
    return 0;
}

static double p1(const kn3_model *m, int w)
{
    double c = m->c1[w];
    double a = c > 0 ? c - disc(m->D[0], (long)c) : 0;
    return (a + gamma_num(m->D[0], m->n0_n) / m->V) / (double)m->tc0;
}

static double p2(const kn3_model *m, int v, int w)
{
    double lower = p1(m, w);
    long tot = m->tc1[v];
    if (tot == 0)
        return lower;
    long i = find(m->k2, m->n2, (uint64_t)v * m->R + (uint64_t)w);
    double a = i >= 0 ? m->c2[i] - disc(m->D[1], m->c2[i]) : 0;
    return (a + gamma_num(m->D[1], m->nc1_n + 3 * v) * lower) / (double)tot;
}

double kn3_prob(const kn3_model *m, int u, int v, int w)
{
    double lower = p2(m, v, w);
    long ci = find(m->kc2, m->nc2, (uint64_t)u * m->R + (uint64_t)v);
    if (ci < 0)
        return lower;
    long i = find(m->k3, m->n3, ((uint64_t)u * m->R + (uint64_t)v) * m->R + (uint64_t)w);
    double a = i >= 0 ? m->c3[i] - disc(m->D[2], m->c3[i]) : 0;
    return (a + gamma_num(m->D[2], m->nc2_n + 3 * ci) * lower) / (double)m->tc2[ci];
}

double kn3_eval(const kn3_model *m, const int *data, long n)
{
    double sum = 0;
    int u = m->V, v = m->V;
    for (long i = 0; i < n; i++) {
        sum -= log(kn3_prob(m, u, v, data[i]));
        u = v, v = data[i];
    }
    return n ? sum / (double)n : NAN;
}

/* ---- rnn-train --model kn3 ---- */

int kn3_run(const train_opts *o)
{
    char path[4200];
    if (corpus_resolve(o->corpus, path, sizeof path) != 0)
        return RS_EXIT_USAGE;
    if (o->csv || o->json) {
        rs_common_opts co = {o->csv, o->json, 0};
        if (rs_common_check_outputs(&co) != 0)
            return RS_EXIT_USAGE;
    }
    corpus c;
    if (corpus_load(&c, path, o->level, o->vocab_cap, o->vocab_explicit) != 0)
        return RS_EXIT_USAGE;
    uint64_t t0 = rs_now_ns();
    kn3_model m;
    if (kn3_train(&m, c.train, c.ntrain, c.vocab) != 0) {
        corpus_free(&c);
        return RS_EXIT_USAGE;
    }
    double secs = (double)(rs_now_ns() - t0) * 1e-9;
    double lv = kn3_eval(&m, c.valid, c.nvalid), lt = kn3_eval(&m, c.test, c.ntest);
    /* --eval-tokens: the prefix of valid a neural run's evaluations score, so a target
     * set from kn3 is on the same text */
    long en = o->eval_tokens > 0 && o->eval_tokens < c.nvalid ? o->eval_tokens : 0;
    double le = en ? kn3_eval(&m, c.valid, en) : NAN;
    int quiet = o->quiet;
    if (!quiet) {
        printf("corpus   %s (%ld bytes, sha256 %.16s...), %s level\n", c.path, c.bytes, c.sha256,
               c.level == LEVEL_WORD ? "word" : "character");
        printf("         tokens train %ld / valid %ld / test %ld; vocabulary %d ids\n", c.ntrain,
               c.nvalid, c.ntest, c.vocab);
        printf("model    kn3: interpolated modified Kneser-Ney trigram; %ld trigram, %ld bigram "
               "types; counted in %.2f s\n", m.n3, m.n2, secs);
        for (int k = 2; k >= 0; k--)
            printf("         order %d discounts D1 %.3f  D2 %.3f  D3+ %.3f\n", k + 1, m.D[k][0],
                   m.D[k][1], m.D[k][2]);
        printf("\nfinal    valid ppl %.2f, test ppl %.2f (%.4f bits per %s)\n", exp(lv), exp(lt),
               lt / log(2.0), c.level == LEVEL_CHAR ? "character" : "word");
        if (en)
            printf("         valid ppl on its first %ld tokens (--eval-tokens) %.2f\n", en, exp(le));
    }
    static const rs_col cols[] = {
        {"model", RS_STR, 0},          {"vocab", RS_INT, 0},
        {"tokens", RS_INT, 0},         {"trigram_types", RS_INT, 0},
        {"bigram_types", RS_INT, 0},   {"seconds", RS_DBL, 4},
        {"valid_ppl", RS_DBL, 5},      {"test_ppl", RS_DBL, 5},
        {"test_bits_per_token", RS_DBL, 5}, {"eval_ppl", RS_DBL, 5},
        {"completion_questions", RS_INT, 0}, {"completion_accuracy", RS_DBL, 4},
    };
    completion_set q = {0};
    double acc = NAN;
    if (o->completion > 0 && o->level == LEVEL_WORD) {
        if (completion_build(&q, &c, o->completion, o->seed) != 0) {
            kn3_free(&m);
            corpus_free(&c);
            return RS_EXIT_USAGE;
        }
        acc = completion_accuracy_kn3(&m, &q);
        if (isnan(acc) && q.n > 0) {   /* out of memory (rs_lasterr) */
            completion_free(&q);
            kn3_free(&m);
            corpus_free(&c);
            return RS_EXIT_USAGE;
        }
        if (!quiet)
            printf("complete MSR-style sentence completion, %d held-out test sentences: %.1f%% "
                   "right (chance 20%%)\n", q.n, 100 * acc);
    }
    rs_table *t = rs_table_new("rnn_train_kn3", cols, RS_ARRAY_LEN(cols));
    int row = rs_table_row(t);
    rs_set_str(t, row, "model", "kn3");
    rs_set_int(t, row, "vocab", c.vocab);
    rs_set_int(t, row, "tokens", c.ntrain);
    rs_set_int(t, row, "trigram_types", m.n3);
    rs_set_int(t, row, "bigram_types", m.n2);
    rs_set_dbl(t, row, "seconds", secs);
    rs_set_dbl(t, row, "valid_ppl", exp(lv));
    rs_set_dbl(t, row, "test_ppl", exp(lt));
    rs_set_dbl(t, row, "test_bits_per_token", lt / log(2.0));
    if (en)
        rs_set_dbl(t, row, "eval_ppl", exp(le));
    if (q.n > 0) {
        rs_set_int(t, row, "completion_questions", q.n);
        rs_set_dbl(t, row, "completion_accuracy", acc);
    }
    completion_free(&q);
    rs_table_meta_std(t, o->argc, o->argv);
    rs_table_meta(t, "corpus", c.path);
    rs_table_meta(t, "corpus_sha256", c.sha256);
    char meta[96];
    snprintf(meta, sizeof meta, "%ld/%ld/%ld", c.ntrain, c.nvalid, c.ntest);
    rs_table_meta(t, "tokens_train_valid_test", meta);
    snprintf(meta, sizeof meta, "%.4f/%.4f/%.4f", m.D[2][0], m.D[2][1], m.D[2][2]);
    rs_table_meta(t, "discounts_order3", meta);
    if (!quiet) {
        printf("\n");
        rs_table_print(t, stdout, "model,vocab,tokens,trigram_types,seconds,valid_ppl,test_ppl,"
                                  "test_bits_per_token");
    }
    int rc = RS_EXIT_OK;
    if ((o->csv && rs_table_write_csv(t, o->csv) != 0) ||
        (o->json && rs_table_write_json(t, o->json) != 0))
        rc = RS_EXIT_USAGE;
    rs_table_free(t);
    kn3_free(&m);
    corpus_free(&c);
    return rc;
}
