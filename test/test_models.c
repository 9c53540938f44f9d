/* test_models.c — rnn-train's model, data and trainer (models/).
 *
 *  - the double-precision reference model's gradient against centred finite
 *    differences, for every parameter tensor of Elman and LSTM, 1 and 2 layers, and
 *    both output layers (full softmax, class-factorized): relative error < 1e-5;
 *  - the float path (GEMM layer, fused point-wise kernels, xent kernel) against the
 *    reference: the loss and every gradient tensor;
 *  - the point-wise kernels against libm in double; SHA-256 against FIPS vectors;
 *    the tokenizer, split and vocabulary rules;
 *  - training: the loss decreases on a tiny corpus; the same seed gives the same
 *    parameters bit for bit; a resumed run equals an uninterrupted one, also with
 *    --gemm auto (the checkpoint's picks are reused) and with lars and lamb; --gemm
 *    onednn's every GEMM kind within its rounding bound of naive's; --workers 4 of
 *    batch 2 against --batch 8: the rows' bits, the gradient and one SGD step within
 *    the bound of their sums' order; LARS's and LAMB's per-tensor trust ratios against a hand
 *    computation; --lr-scale's effective rate; --max-seconds stops at the budget;
 *    --corpus sotu loads and trains (where make deps fetched it);
 *  - --gemm auto: only backends that pass the reference check are picked; the picks
 *    are in the header's tables (CSV gemm column, meta gemm_plan);
 *  - the Kneser-Ney trigram sums to 1 for every kind of context; the classes by
 *    frequency; the sentence completion questions and their scoring; the pipelined
 *    forward equals the sequential order bit for bit;
 *  - bad input to build/bin/rnn-train: exit 2 with exactly one line on stderr, and a
 *    refused resume leaves the checkpoint as it was.
 * Runs from the repository root (`make test`), in well under 30 s on 2 cores. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <criterion/redirect.h>
#include <fcntl.h>
#include <float.h>
#include <ftw.h>
#include <math.h>
#include <omp.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "checkpoint.h"
#include "completion.h"
#include "corpus.h"
#include "grad_noise.h"
#include "grad_tree.h"
#include "json.h"
#include "kn3.h"
#include "matmul.h"
#include "model.h"
#include "pipeline.h"
#include "pointwise.h"
#include "record.h"
#include "ref.h"
#include "rng.h"
#include "sha256.h"
#include "train.h"

/* ---- tolerances, stated once ----
 * GRADCHECK_REL: centred differences in double with step GRADCHECK_EPS have a
 *   truncation error ~eps^2 |f'''| / 6 and a rounding error ~2e-16 |loss| / eps
 *   ~ 1e-12 (loss ~ 2): measured here 1.3e-6 relative at worst, on entries as small
 *   as 4e-7 (with eps 1e-5 the rounding error alone is 2.4e-5 of such an entry).  An
 *   entry is judged by |a - n| <= GRADCHECK_REL max(|a|, |n|) + GRADCHECK_ABS (the
 *   absolute floor only covers entries that are zero up to rounding).  A wrong term
 *   in a backward formula is off by O(1) relative.
 * FLOAT_REL: the float path rounds every product and sum to float (2^-24 ~ 6e-8),
 *   its exp is within 1 ULP and tanh = 1 - 2/(e^2x + 1) loses up to ~1e-7 absolute
 *   near 0; sums run over at most V or T*B terms here: a tensor's max abs deviation
 *   from the reference must be below FLOAT_REL times its largest entry (measured
 *   here: at most 5e-7, with every GEMM backend). */
#define GRADCHECK_EPS 1e-4
#define GRADCHECK_REL 1e-5
#define GRADCHECK_ABS 1e-12
#define FLOAT_REL 1e-5

static const char *bin = "build/bin/rnn-train";

/* ---- helpers ---- */

static void fill_inputs(const model_cfg *c, int Tw, uint64_t seed, int *inputs, int *targets)
{
    for (int i = 0; i < Tw * c->batch; i++) {
        inputs[i] = (int)(rng_u64(seed, 100, (uint64_t)i) % (uint64_t)c->vocab);
        targets[i] = (int)(rng_u64(seed, 101, (uint64_t)i) % (uint64_t)c->vocab);
    }
}

/* Parameters uniform in +-0.5 (large enough that every non-linearity is in its curved
 * part), rounded to float so that the float and double models share them exactly. */
static void fill_params(const param_layout *lay, uint64_t seed, double *p)
{
    for (long i = 0; i < lay->total; i++)
        p[i] = (double)(float)(0.5 * rng_sym(seed, 7, (uint64_t)i));
}

static void fill_state(const model_cfg *c, uint64_t seed, double *h0, double *c0)
{
    long n = (long)c->layers * c->batch * c->hidden;
    for (long i = 0; i < n; i++) {
        h0[i] = (double)(float)(0.8 * rng_sym(seed, 8, (uint64_t)i));
        c0[i] = (double)(float)(0.8 * rng_sym(seed, 9, (uint64_t)i));
    }
}

/* A backend the test needs: loaded, or the test is skipped with its name and why. */
static void need_backend(const char *name)
{
    const gemm_backend *b = gemm_find(name);
    cr_assert(b, "no backend %s in the registry", name);
    if (b->load(b) != 0)
        cr_skip_test("GEMM backend %s is not installed here: %s", name, rs_lasterr());
}

/* ---- SHA-256 ---- */

Test(models, sha256_fips_vectors)
{
    char hex[65];
    sha256_hex("abc", 3, hex);
    cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    sha256_hex("", 0, hex);
    cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_hex(m, strlen(m), hex);
    cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* ---- gradient check of the reference ---- */

/* Unigram counts for the class map of a V-word test vocabulary (unsorted on purpose). */
static void test_counts(long *counts, int V)
{
    for (int i = 0; i < V; i++)
        counts[i] = 1 + (long)(rng_u64(17, 1, (uint64_t)i) % 50);
}

static void gradcheck(cell_kind cell, int layers, int classes)
{
    model_cfg c = {cell, layers, 5, 4, 7, 2, 3, classes};   /* H 5, D 4, V 7, B 2, T 3 */
    param_layout lay;
    model_layout(&c, &lay);
    class_map cm = {0}, *cmp = NULL;
    if (classes) {
        long counts[7];
        test_counts(counts, 7);
        cr_assert_eq(class_map_build(&cm, counts, 7, classes), 0, "%s", rs_lasterr());
        cmp = &cm;
    }
    double *p = calloc((size_t)lay.total, sizeof *p), *g = calloc((size_t)lay.total, sizeof *g);
    double h0[MODEL_MAX_LAYERS * 2 * 5], c0[MODEL_MAX_LAYERS * 2 * 5];
    int in[6], tg[6];
    fill_params(&lay, 11, p);
    fill_state(&c, 12, h0, c0);
    fill_inputs(&c, 3, 13, in, tg);
    ref_loss_grad_cls(&c, &lay, p, g, in, tg, 3, h0, c0, cmp);
    double all_worst = 0;
    for (int k = 0; k < lay.n; k++) {
        const param_info *t = &lay.t[k];
        double worst = 0, gmax = 0;
        for (long i = t->offset; i < t->offset + t->rows * t->cols; i++) {
            double save = p[i];
            p[i] = save + GRADCHECK_EPS;
            double lp = ref_loss_grad_cls(&c, &lay, p, NULL, in, tg, 3, h0, c0, cmp);
            p[i] = save - GRADCHECK_EPS;
            double lm = ref_loss_grad_cls(&c, &lay, p, NULL, in, tg, 3, h0, c0, cmp);
            p[i] = save;
            double num = (lp - lm) / (2 * GRADCHECK_EPS);
            double err = fabs(g[i] - num) /
                         (GRADCHECK_REL * fmax(fabs(g[i]), fabs(num)) + GRADCHECK_ABS);
            worst = fmax(worst, err);
            gmax = fmax(gmax, fabs(num));
        }
        cr_expect(gmax > 1e-6, "%s %s: gradient of %s is all zero (not exercised)",
                  model_cell(cell)->name, layers == 1 ? "1 layer" : "2 layers", t->name);
        cr_expect(worst <= 1.0, "%s, %d layers: %s: error %.3g x the tolerance",
                  model_cell(cell)->name, layers, t->name, worst);
        all_worst = fmax(all_worst, worst);
    }
    cr_log_info("gradcheck %s %d layers: worst entry at %.2g of the tolerance",
                model_cell(cell)->name, layers, all_worst);
    class_map_free(&cm);
    free(p);
    free(g);
}

Test(models, gradcheck_elman_1layer) { gradcheck(CELL_ELMAN, 1, 0); }
Test(models, gradcheck_elman_2layers) { gradcheck(CELL_ELMAN, 2, 0); }
Test(models, gradcheck_lstm_1layer) { gradcheck(CELL_LSTM, 1, 0); }
Test(models, gradcheck_lstm_2layers) { gradcheck(CELL_LSTM, 2, 0); }
/* the class-factorized output layer (3 classes of the 7 words): cls.w, cls.b, out.w, out.b */
Test(models, gradcheck_elman_classes) { gradcheck(CELL_ELMAN, 1, 3); }
Test(models, gradcheck_lstm_classes) { gradcheck(CELL_LSTM, 1, 3); }

/* ---- the float path against the reference ---- */

static void float_vs_ref_c(cell_kind cell, int layers, const char *gemm, int Tw, int classes)
{
    /* H 13 and D 11: one full AVX2 vector and a tail; T*B = 20 rows. */
    model_cfg c = {cell, layers, 13, 11, 37, 4, 5, classes};
    need_backend(gemm);
    cr_assert_eq(mm_init(gemm, 1), 0, "%s", rs_lasterr());
    cr_assert_eq(output_init(), 0);
    model m;
    cr_assert_eq(model_create(&m, &c), 0, "%s", rs_lasterr());
    long counts[37];
    test_counts(counts, 37);
    cr_assert_eq(model_set_classes(&m, counts), 0, "%s", rs_lasterr());
    double *p = calloc((size_t)m.lay.total, sizeof *p), *g = calloc((size_t)m.lay.total, sizeof *g);
    double h0[MODEL_MAX_LAYERS * 4 * 13], c0[MODEL_MAX_LAYERS * 4 * 13];
    fill_params(&m.lay, 21, p);
    fill_state(&c, 22, h0, c0);
    fill_inputs(&c, Tw, 23, m.act.inputs, m.act.targets);
    for (long i = 0; i < m.lay.total; i++)
        m.params[i] = (float)p[i];
    for (long i = 0; i < (long)layers * 4 * 13; i++) {
        m.state_h[i] = (float)h0[i];
        m.state_c[i] = (float)c0[i];
    }
    double ref = ref_loss_grad_cls(&c, &m.lay, p, g, m.act.inputs, m.act.targets, Tw, h0, c0,
                                   classes ? &m.cls : NULL);
    double loss = model_forward(&m, Tw, 1) / (Tw * c.batch);
    model_backward(&m, Tw);
    cr_expect(fabs(loss - ref) <= 1e-5 * fabs(ref), "%s: loss %.9g, reference %.9g", gemm, loss, ref);
    double worst = 0;
    for (int k = 0; k < m.lay.n; k++) {
        const param_info *t = &m.lay.t[k];
        double dev = 0, gmax = 0;
        for (long i = t->offset; i < t->offset + t->rows * t->cols; i++) {
            dev = fmax(dev, fabs(m.grads[i] - g[i]));
            gmax = fmax(gmax, fabs(g[i]));
        }
        cr_expect(dev <= FLOAT_REL * gmax, "%s %d layers, gemm %s, Tw %d: %s deviates %.3g (max %.3g)",
                  model_cell(cell)->name, layers, gemm, Tw, t->name, dev, gmax);
        worst = fmax(worst, dev / gmax);
    }
    cr_log_info("%s %d layers, gemm %s: loss rel err %.2g, worst gradient tensor dev/max %.2g",
                model_cell(cell)->name, layers, gemm, fabs(loss - ref) / ref, worst);
    /* carry: the state after the window is h[Tw] */
    model_carry(&m, Tw);
    cr_expect(memcmp(m.state_h, m.act.h[0] + (long)Tw * 4 * 13, 4 * 13 * sizeof(float)) == 0);
    model_destroy(&m);
    free(p);
    free(g);
}

static void float_vs_ref(cell_kind cell, int layers, const char *gemm, int Tw)
{
    float_vs_ref_c(cell, layers, gemm, Tw, 0);
}

Test(models, float_vs_ref_elman) { float_vs_ref(CELL_ELMAN, 1, "blocked", 5); }
Test(models, float_vs_ref_lstm_classes) { float_vs_ref_c(CELL_LSTM, 1, "openblas", 5, 6); }
Test(models, float_vs_ref_elman_2layers_classes) { float_vs_ref_c(CELL_ELMAN, 2, "blocked", 4, 5); }
Test(models, float_vs_ref_elman_2layers) { float_vs_ref(CELL_ELMAN, 2, "openblas", 5); }
Test(models, float_vs_ref_lstm) { float_vs_ref(CELL_LSTM, 1, "openblas", 5); }
Test(models, float_vs_ref_lstm_2layers_short_window) { float_vs_ref(CELL_LSTM, 2, "blocked", 3); }
Test(models, float_vs_ref_lstm_2layers_naive_gemm) { float_vs_ref(CELL_LSTM, 2, "naive", 5); }
Test(models, float_vs_ref_lstm_onednn) { float_vs_ref(CELL_LSTM, 1, "onednn", 5); }
Test(models, float_vs_ref_elman_2layers_classes_onednn) { float_vs_ref_c(CELL_ELMAN, 2, "onednn", 4, 5); }
Test(models, float_vs_ref_lstm_2layers_short_window_blis) { float_vs_ref(CELL_LSTM, 2, "blis", 3); }

/* ---- point-wise kernels against libm ---- */

static void check_pointwise(const pointwise_kernels *k)
{
    enum { B = 3, H = 21 };
    float gates[B * 4 * H], cp[B * H], c[B * H], tc[B * H], h[B * H], pre[B * 4 * H];
    for (int i = 0; i < B * 4 * H; i++)   /* +-12 with a few saturating +-100 */
        pre[i] = gates[i] = (float)(i % 17 == 0 ? 100.0 * rng_sym(3, 1, (uint64_t)i)
                                                : 12.0 * rng_sym(3, 2, (uint64_t)i));
    for (int i = 0; i < B * H; i++)
        cp[i] = (float)(3.0 * rng_sym(3, 3, (uint64_t)i));
    k->lstm_fwd(gates, cp, c, tc, h, B, H);
    double worst = 0;
    for (int b = 0; b < B; b++)
        for (int j = 0; j < H; j++) {
            const float *pr = pre + b * 4 * H;
            double i = 1 / (1 + exp(-(double)pr[j])), f = 1 / (1 + exp(-(double)pr[H + j]));
            double g = tanh((double)pr[2 * H + j]), o = 1 / (1 + exp(-(double)pr[3 * H + j]));
            double cn = f * cp[b * H + j] + i * g, hn = o * tanh(cn);
            worst = fmax(worst, fabs(gates[b * 4 * H + j] - i));
            worst = fmax(worst, fabs(gates[b * 4 * H + 2 * H + j] - g));
            worst = fmax(worst, fabs(c[b * H + j] - cn) / fmax(1, fabs(cn)));
            worst = fmax(worst, fabs(h[b * H + j] - hn));
        }
    cr_expect(worst < 1e-6, "%s: lstm_fwd max error %.3g", k->name, worst);
    float x[37], y[37];
    for (int i = 0; i < 37; i++)
        x[i] = y[i] = (float)(20.0 * rng_sym(4, 1, (uint64_t)i));
    k->tanh_inplace(y, 37);
    for (int i = 0; i < 37; i++)
        cr_expect(fabs(y[i] - tanh((double)x[i])) < 1e-6, "%s: tanh(%g) = %g", k->name, x[i], y[i]);
    float nan_in[40];   /* NaN in a full vector of every width and in a tail */
    for (int i = 0; i < 40; i++)
        nan_in[i] = i % 19 == 3 ? (i & 1 ? -NAN : NAN) : (float)i;
    k->tanh_inplace(nan_in, 40);
    for (int i = 0; i < 40; i++)
        cr_expect(isnan(nan_in[i]) == (i % 19 == 3), "%s: tanh(%s) gave %g (NaN must stay NaN: "
                  "divergence is detected)", k->name, i % 19 == 3 ? "NaN" : "a number", nan_in[i]);
}

/* Each ISA's kernels; one this CPU lacks is skipped by name. */
ParameterizedTestParameters(models, pointwise_each_isa)
{
    static int idx[] = {0, 1, 2};
    return cr_make_param_array(int, idx, 3);
}

ParameterizedTest(int *k, models, pointwise_each_isa)
{
    const pointwise_kernels *pk = pointwise_all[*k];
    if (!rs_isa_supported(pk->isa))
        cr_skip_test("point-wise %s: this CPU lacks %s", pk->name, rs_isa_name(pk->isa));
    check_pointwise(pk);
}

/* ---- corpus ---- */

static char tmpdir[256];

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    return remove(path);
}

/* Each test runs in its own process with its own folder, removed when it exits. */
static void rm_tmpdir(void)
{
    if (tmpdir[0])
        nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void make_tmpdir(void)
{
    if (tmpdir[0])
        return;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rnnscale-models-XXXXXX");
    cr_assert(mkdtemp(tmpdir));
    atexit(rm_tmpdir);
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    fwrite(data, 1, n, f);
    fclose(f);
}

/* A tiny corpus with learnable structure: sentences from a small grammar, a pure
 * function of the index. */
static const char *tiny_corpus(void)
{
    static char path[300];
    make_tmpdir();
    snprintf(path, sizeof path, "%s/tiny.txt", tmpdir);
    if (access(path, R_OK) == 0)
        return path;
    static const char *subj[] = {"the whale", "ahab", "the sea", "ishmael", "the ship"};
    static const char *verb[] = {"sees", "hunts", "follows", "loves", "fears"};
    static const char *obj[] = {"the captain.", "the white whale.", "the harpoon.", "the sea.",
                                "the crew."};
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 1200; i++) {
        fprintf(f, "%s %s %s%s", subj[rng_u64(5, 1, i) % 5], verb[rng_u64(5, 2, i) % 5],
                obj[rng_u64(5, 3, i) % 5], i % 7 == 6 ? "\n\n" : i % 2 ? "\n" : " ");
    }
    fclose(f);
    return path;
}

Test(models, corpus_word_rules)
{
    make_tmpdir();
    char path[300];
    snprintf(path, sizeof path, "%s/words.txt", tmpdir);
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

/* ---- training, in process ---- */

static void small_opts(train_opts *o, const char *log, const char *ckpt, long steps)
{
    train_opts_defaults(o);
    o->cfg = (model_cfg){CELL_LSTM, 2, 24, 16, 0, 8, 12, 0};
    o->corpus = tiny_corpus();
    o->vocab_cap = 0;
    o->optim = OPT_ADAM;
    o->lr = 0.02;
    o->sched = SCHED_CONST;
    o->steps = steps;
    o->eval_every = 10;
    o->ckpt_dir = ckpt;
    o->log = log;
    o->threads = 2;
    o->quiet = 1;
    o->seed = 42;
}

static void tmp_path(char *buf, size_t n, const char *name)
{
    make_tmpdir();
    snprintf(buf, n, "%s/%s", tmpdir, name);
}

/* The log's rows without its timing columns (seconds, eval_seconds,
 * eval_exposed_seconds): what equal runs must write alike. */
static void log_rows(const char *path, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "no log %s", path);
    char line[512];
    int timing[32] = {0};
    out[0] = 0;
    for (int row = 0; fgets(line, sizeof line, f); row++) {
        int col = 0;
        line[strcspn(line, "\n")] = 0;
        for (char *rest = line, *cell = strsep(&rest, ","); cell && col < 32;
             cell = strsep(&rest, ","), col++) {   /* strsep: empty cells count */
            if (row == 0)
                timing[col] = strcmp(cell, "seconds") == 0 || strcmp(cell, "eval_seconds") == 0 ||
                              strcmp(cell, "eval_exposed_seconds") == 0;
            if (!timing[col])
                snprintf(out + strlen(out), n - strlen(out), "%s,", cell);
        }
        snprintf(out + strlen(out), n - strlen(out), "\n");
    }
    fclose(f);
}

static void params_hash(const char *json, char *hex)
{
    rs_json *j = rs_json_load(json);
    cr_assert(j, "%s: %s", json, rs_lasterr());
    const rs_json *h = rs_json_path(j, "meta.params_sha256");
    cr_assert(h && h->type == RS_JSTR);
    snprintf(hex, 65, "%s", h->str);
    rs_json_free(j);
}

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
                     "eval_exposed_seconds\n");
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

/* A whole file into memory (NUL-terminated past its end); *n gets its size. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)len + 1);
    cr_assert(buf && fread(buf, 1, (size_t)len, f) == (size_t)len, "cannot read %s", path);
    fclose(f);
    buf[len] = 0;
    *n = (size_t)len;
    return buf;
}

/* Two checkpoints hold the same parameters, optimizer moments and carried state: the
 * bytes after the header (magic, then a header whose second word is its size) up to
 * the closing SHA-256.  The header differs in the training time, which no rerun repeats. */
static void expect_same_ckpt_payload(const char *a, const char *b)
{
    size_t na, nb;
    char *ba = slurp(a, &na), *bb = slurp(b, &nb);
    uint32_t ha, hb;
    cr_assert(na > 16 && nb > 16);
    memcpy(&ha, ba + 12, 4), memcpy(&hb, bb + 12, 4);
    cr_assert(ha == hb && na == nb && na > 8 + ha + 32, "%s and %s differ in layout", a, b);
    cr_expect(memcmp(ba + 8 + ha, bb + 8 + hb, na - 8 - ha - 32) == 0,
              "%s and %s hold different parameters or optimizer state", a, b);
    free(ba), free(bb);
}

/* One backend named (--gemm auto could pick another in a second run: its resume is
 * tested below). */
Test(models, same_seed_same_bits_and_resume_equals_uninterrupted)
{
    char la[300], lb[300], lc[300], da[300], db[300], dc[300], ja[300], jb[300], jc[300];
    tmp_path(la, sizeof la, "a.csv"), tmp_path(lb, sizeof lb, "b.csv"), tmp_path(lc, sizeof lc, "c.csv");
    tmp_path(da, sizeof da, "ckpt-a"), tmp_path(db, sizeof db, "ckpt-b"), tmp_path(dc, sizeof dc, "ckpt-c");
    tmp_path(ja, sizeof ja, "a.json"), tmp_path(jb, sizeof jb, "b.json"), tmp_path(jc, sizeof jc, "c.json");
    train_opts o;
    /* a: 40 steps at once */
    small_opts(&o, la, da, 40);
    o.gemm = "blocked";
    o.json = ja;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    /* b: the same again: the same bits */
    small_opts(&o, lb, db, 40);
    o.gemm = "blocked";
    o.json = jb;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    /* c: 15 steps (mid-evaluation interval, mid-epoch), then resumed to 40 */
    small_opts(&o, lc, dc, 15);
    o.gemm = "blocked";
    o.ckpt_every = 5;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    small_opts(&o, lc, dc, 40);
    o.resume = 1;   /* no --gemm: the checkpoint's record (blocked) is used */
    o.json = jc;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    char ha[65], hb[65], hc[65];
    params_hash(ja, ha), params_hash(jb, hb), params_hash(jc, hc);
    cr_expect_str_eq(ha, hb, "a rerun with the same seed gave other parameters");
    cr_expect_str_eq(ha, hc, "a resumed run gave other parameters than an uninterrupted one");
    static char ra[8192], rb[8192], rc[8192];
    log_rows(la, ra, sizeof ra), log_rows(lb, rb, sizeof rb), log_rows(lc, rc, sizeof rc);
    cr_expect_str_eq(ra, rb);
    cr_expect_str_eq(ra, rc, "the resumed run's log differs");
    /* the checkpoints of a and c at step 40 hold the same model and optimizer state */
    char pa[4200], pc[4200];
    cr_assert_eq(ckpt_latest(da, pa, sizeof pa), 0);
    cr_assert_eq(ckpt_latest(dc, pc, sizeof pc), 0);
    cr_expect(strstr(pa, "ckpt-000000040.bin") && strstr(pc, "ckpt-000000040.bin"), "%s %s", pa, pc);
    expect_same_ckpt_payload(pa, pc);
}

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

/* A string of the table JSON's meta ("" if absent). */
static void meta_str(const char *json, const char *key, char *out, size_t n)
{
    rs_json *j = rs_json_load(json);
    cr_assert(j, "%s: %s", json, rs_lasterr());
    char path[64];
    snprintf(path, sizeof path, "meta.%s", key);
    const rs_json *h = rs_json_path(j, path);
    snprintf(out, n, "%s", h && h->type == RS_JSTR ? h->str : "");
    rs_json_free(j);
}

static void copy_file(const char *from, const char *to)
{
    FILE *f = fopen(from, "rb");
    cr_assert(f, "cannot read %s", from);
    static char buf[1 << 22];
    size_t n = fread(buf, 1, sizeof buf, f);
    cr_assert(feof(f), "%s is larger than the copy buffer", from);
    fclose(f);
    write_file(to, buf, n);
}

/* A run ending at an evaluation step leaves the checkpoint written before that
 * evaluation (so a signal during it finds the step's checkpoint): resumed, it evaluates
 * first, as the uninterrupted run did after that step; the same rows (their lr too,
 * under a schedule that moves each step), the same schedule, the same bits. */
Test(models, resume_at_an_evaluation_step_equals_uninterrupted)
{
    /* plateau: the evaluation halves the rate; const with --warmup 30: the rate moves
     * each step whatever --steps is (linear's would depend on it) */
    const sched_kind kinds[] = {SCHED_PLATEAU, SCHED_CONST};
    for (int k = 0; k < 2; k++) {
        char la[300], lc[300], da[300], dc[300], ja[300], jc[300], name[32];
        snprintf(name, sizeof name, "ea%d.csv", k), tmp_path(la, sizeof la, name);
        snprintf(name, sizeof name, "ec%d.csv", k), tmp_path(lc, sizeof lc, name);
        snprintf(name, sizeof name, "ckpt-ea%d", k), tmp_path(da, sizeof da, name);
        snprintf(name, sizeof name, "ckpt-ec%d", k), tmp_path(dc, sizeof dc, name);
        snprintf(name, sizeof name, "ea%d.json", k), tmp_path(ja, sizeof ja, name);
        snprintf(name, sizeof name, "ec%d.json", k), tmp_path(jc, sizeof jc, name);
        train_opts o;
        small_opts(&o, la, da, 40);
        o.gemm = "blocked", o.sched = kinds[k], o.warmup = 30 * k, o.json = ja;
        cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
        small_opts(&o, lc, dc, 20);   /* ends at the evaluation of step 20 */
        o.gemm = "blocked", o.sched = kinds[k], o.warmup = 30 * k;
        cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
        small_opts(&o, lc, dc, 40);
        o.sched = kinds[k], o.warmup = 30 * k, o.resume = 1, o.json = jc;
        cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
        char ha[65], hc[65];
        params_hash(ja, ha), params_hash(jc, hc);
        cr_expect_str_eq(ha, hc, "schedule %d: resumed at an evaluation step, other parameters", k);
        static char ra[8192], rc[8192];
        log_rows(la, ra, sizeof ra), log_rows(lc, rc, sizeof rc);
        cr_expect_str_eq(ra, rc, "schedule %d: resumed at an evaluation step, another log", k);
    }
}

/* --gemm auto (the default) and resume: the checkpoint carries the picks, the resumed
 * run reuses them without timing and continues bit for bit. */
Test(models, auto_resume_reuses_the_picks_bit_identically)
{
    char da[300], db[300], ja[300], jb[300], src[4300], dst[4300];
    tmp_path(da, sizeof da, "ckpt-auto-a"), tmp_path(db, sizeof db, "ckpt-auto-b");
    tmp_path(ja, sizeof ja, "auto-a.json"), tmp_path(jb, sizeof jb, "auto-b.json");
    train_opts o;
    small_opts(&o, NULL, da, 40);   /* checkpoints every 5 steps; 35 and 40 are kept */
    o.ckpt_every = 5;
    o.json = ja;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    snprintf(src, sizeof src, "%s/ckpt-000000035.bin", da);
    snprintf(dst, sizeof dst, "%s/ckpt-000000035.bin", db);
    cr_assert_eq(mkdir(db, 0755), 0);
    copy_file(src, dst);
    small_opts(&o, NULL, db, 40);
    o.resume = 1;
    o.json = jb;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    char ha[65], hb[65], pa[GA_RECORD_MAX], pb[GA_RECORD_MAX], ga[512], gb[512], ta[64], tb[64];
    params_hash(ja, ha), params_hash(jb, hb);
    meta_str(ja, "gemm_plan", pa, sizeof pa), meta_str(jb, "gemm_plan", pb, sizeof pb);
    meta_str(ja, "gemm", ga, sizeof ga), meta_str(jb, "gemm", gb, sizeof gb);
    meta_str(ja, "gemm_tune_ms", ta, sizeof ta), meta_str(jb, "gemm_tune_ms", tb, sizeof tb);
    cr_expect(strncmp(pa, "auto:other=", 11) == 0, "gemm_plan '%s'", pa);
    cr_expect_str_eq(pa, pb, "the resumed run dispatched otherwise");
    cr_expect_str_eq(ga, gb);
    cr_expect(atof(ta) > 0, "gemm_tune_ms '%s'", ta);
    cr_expect(strstr(tb, "checkpoint"), "the resumed run timed again: gemm_tune_ms '%s'", tb);
    cr_expect_str_eq(ha, hb, "a resumed --gemm auto run gave other parameters than an uninterrupted one");
}

/* The plan a --gemm auto run recorded (summary.json's gemm_plan), given as --gemm:
 * the same dispatch without timing, so the same parameters bit for bit (how a study
 * repeats a point); a plan whose products are not the model's is refused. */
Test(models, a_recorded_plan_repeats_a_run_bit_identically)
{
    char ja[300], jb[300], ha[65], hb[65], tb[64];
    static char plan[GA_RECORD_MAX], pb[GA_RECORD_MAX];
    tmp_path(ja, sizeof ja, "plan-a.json"), tmp_path(jb, sizeof jb, "plan-b.json");
    train_opts o;
    small_opts(&o, NULL, NULL, 20);
    o.json = ja;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    meta_str(ja, "gemm_plan", plan, sizeof plan);
    cr_assert(strncmp(plan, "auto:other=", 11) == 0, "gemm_plan '%s'", plan);
    small_opts(&o, NULL, NULL, 20);
    o.gemm = plan;
    o.json = jb;
    cr_assert_eq(train_run(&o), 0, "--gemm PLAN: %s", rs_lasterr());
    meta_str(jb, "gemm_plan", pb, sizeof pb), meta_str(jb, "gemm_tune_ms", tb, sizeof tb);
    params_hash(ja, ha), params_hash(jb, hb);
    cr_expect_str_eq(pb, plan, "the run dispatched otherwise than the plan it was given");
    cr_expect(strstr(tb, "recorded plan"), "the plan was timed again: gemm_tune_ms '%s'", tb);
    cr_expect_str_eq(ha, hb, "the same plan and seed gave other parameters");
    small_opts(&o, NULL, NULL, 20);
    o.gemm = plan;
    o.cfg.bptt = 6;   /* other products */
    cr_expect_neq(train_run(&o), 0, "a plan for bptt 12 was taken at bptt 6");
    cr_expect(strstr(rs_lasterr(), "not one of this model's"), "error: %s", rs_lasterr());
}

/* ---- --gemm auto's choice ---- */

/* Fast and wrong: leaves C as it was. */
static int fake_wrong_sgemm(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                            float alpha, const float *a, long lda, const float *bm, long ldb,
                            float beta, float *c, long ldc)
{
    return 0;
}

/* Right (naive underneath) but declines NT at run time. */
static int fake_partial_sgemm(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                              float alpha, const float *a, long lda, const float *bm, long ldb,
                              float beta, float *c, long ldc)
{
    if (ta == 'N' && tb == 'T') {
        rs_seterr("fake-partial: no NT");
        return -1;
    }
    return gemm_backend_naive.sgemm(&gemm_backend_naive, ta, tb, m, n, k, alpha, a, lda, bm, ldb,
                                    beta, c, ldc);
}

static int fake_load(const gemm_backend *b) { return 0; }

Test(models, auto_picks_only_backends_that_pass_the_check)
{
    static const gemm_backend wrong = {.name = "fake-wrong", .what = "no-op", .load = fake_load,
                                       .sgemm = fake_wrong_sgemm};
    static const gemm_backend partial = {.name = "fake-partial", .what = "naive, no NT",
                                         .load = fake_load, .sgemm = fake_partial_sgemm};
    const gemm_backend *cands[3] = {&wrong, &partial, &gemm_backend_blocked};
    cr_assert_eq(gemm_backend_blocked.load(&gemm_backend_blocked), 0);
    model_cfg c = {CELL_LSTM, 2, 24, 16, 18, 8, 12, 0};
    ga_shape shapes[GA_MAX_SHAPES];
    int ns = ga_model_shapes(&c, shapes, GA_MAX_SHAPES);
    /* one entry per distinct product: both layers' recurrences share theirs */
    int rec = -1;
    for (int i = 0; i < ns; i++) {
        for (int j = 0; j < i; j++)
            cr_expect(!(shapes[i].m == shapes[j].m && shapes[i].n == shapes[j].n && shapes[i].k == shapes[j].k &&
                        shapes[i].ta == shapes[j].ta && shapes[i].tb == shapes[j].tb), "shape %d twice", i);
        if (shapes[i].ta == 'T' && shapes[i].m == 96 && shapes[i].n == 8 && shapes[i].k == 24)
            rec = i;
    }
    cr_assert(rec >= 0, "no recurrent forward product");
    cr_expect_eq(shapes[rec].calls, 2 * 12);
    cr_expect_str_eq(shapes[rec].where, "l0.rec/l1.rec");
    static ga_plan p;
    p.notes[0] = 0;
    cr_assert_eq(ga_tune(shapes, ns, cands, 3, 1, &p), 0, "%s", rs_lasterr());
    cr_expect_eq(p.excluded[0], 1);
    cr_expect(strstr(p.notes, "fake-wrong excluded: WRONG"), "notes: %s", p.notes);
    cr_expect_eq(p.excluded[1], 0);
    cr_expect(p.fallback == &gemm_backend_blocked, "fallback %s: only blocked does every product",
              p.fallback->name);
    for (int i = 0; i < ns; i++) {
        cr_expect(p.pick[i] != &wrong, "%s %s picked the wrong backend", p.shape[i].role, p.shape[i].where);
        int nt = p.shape[i].ta == 'N' && p.shape[i].tb == 'T';
        cr_expect(!nt || (p.ms[i][1] < 0 && p.pick[i] != &partial), "NT %s", p.shape[i].where);
        cr_expect(nt || p.ms[i][1] > 0, "%s %s: fake-partial not timed", p.shape[i].role, p.shape[i].where);
        cr_expect(ga_lookup(&p, p.shape[i].ta, p.shape[i].tb, p.shape[i].m, p.shape[i].n,
                            p.shape[i].k) == p.pick[i]);
    }
    cr_expect(ga_lookup(&p, 'N', 'N', 3, 5, 7) == p.fallback, "an unknown shape takes the fallback");
    /* none left for every product: -1, one line naming why */
    p.notes[0] = 0;
    cr_expect_eq(ga_tune(shapes, ns, cands, 2, 1, &p), -1);
    cr_expect(strstr(rs_lasterr(), "no backend can do every product") &&
                  strstr(rs_lasterr(), "fake-wrong excluded") && !strchr(rs_lasterr(), '\n'),
              "%s", rs_lasterr());
}


/* ---- bad input to the binary: exit 2, one line ---- */

static char err[4096];

/* Runs bin with args; stderr into err, stdout into out[0..n-1] (NULL: /dev/null). */
static int run_stdout(const char *const *args, char *out, size_t n)
{
    char *argv[48];
    int k = 0;
    argv[k++] = (char *)bin;
    for (; args[k - 1]; k++)
        argv[k] = (char *)args[k - 1];
    argv[k] = NULL;
    char pe[] = "/tmp/rnnscale-models-err-XXXXXX", po[] = "/tmp/rnnscale-models-out-XXXXXX";
    int fe = mkstemp(pe), fo = out ? mkstemp(po) : -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fe, 2);
    if (out)
        posix_spawn_file_actions_adddup2(&fa, fo, 1);
    else
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    extern char **environ;
    cr_assert_eq(posix_spawn(&pid, bin, &fa, NULL, argv, environ), 0, "cannot run %s", bin);
    int st;
    waitpid(pid, &st, 0);
    memset(err, 0, sizeof err);
    lseek(fe, 0, SEEK_SET);
    ssize_t got = read(fe, err, sizeof err - 1);
    close(fe);
    unlink(pe);
    if (out) {
        memset(out, 0, n);
        lseek(fo, 0, SEEK_SET);
        got = read(fo, out, n - 1);
        close(fo);
        unlink(po);
    }
    (void)got;
    posix_spawn_file_actions_destroy(&fa);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int run(const char *const *args) { return run_stdout(args, NULL, 0); }

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

#define SMALL "--hidden", "8", "--batch", "2", "--bptt", "5", "--gemm", "blocked", "--threads", "1"

static void expect_usage(const char *const *args, const char *fragment)
{
    int rc = run(args);
    cr_expect_eq(rc, 2, "exit %d; stderr: %s", rc, err);
    cr_expect_eq(lines(err), 1, "want one line on stderr, got: %s", err);
    cr_expect(strstr(err, fragment), "stderr '%s' lacks '%s'", err, fragment);
}

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
    expect_usage((const char *[]){"--corpus", tiny, "--eval-async", "--gemm", "blocked", SMALL, NULL},
                 "--eval-async calls GEMM from two threads");
    expect_usage((const char *[]){"--eval-ranks", "1", NULL}, "--eval-ranks 1 needs ranks to set aside");
    expect_usage((const char *[]){"--bench", "5", "--eval-every", "10", NULL},
                 "no block of 10 steps");
}

/* A checkpoint whose --gemm auto picks name a backend this machine cannot run: one
 * line, exit 2, the checkpoint left as it was. */
Test(models, resume_whose_gemm_cannot_run_here_exits_2)
{
    char dir[300];
    tmp_path(dir, sizeof dir, "ckpt-gemm");
    const char *tiny = tiny_corpus();
    int rc = run((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--steps", "3", "--hidden",
                                  "8", "--batch", "2", "--bptt", "5", "--threads", "1", NULL});
    cr_assert_eq(rc, 0, "stderr: %s", err);
    char path[4200];
    cr_assert_eq(ckpt_latest(dir, path, sizeof path), 0);
    /* the record says another backend; the checksum is made to match again */
    FILE *f = fopen(path, "rb");
    static unsigned char buf[1 << 22];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    cr_assert(n > 32 && n < sizeof buf);
    unsigned char *rec = memmem(buf, n - 32, "auto:other=", 11);
    cr_assert(rec, "no --gemm auto record in %s", path);
    size_t len = strlen((char *)rec);
    cr_assert(len >= strlen("auto:other=nosuch"));
    memset(rec, 0, len);
    memcpy(rec, "auto:other=nosuch", strlen("auto:other=nosuch"));
    struct sha256_ctx h;
    sha256_init(&h);
    sha256_update(&h, n - 32, buf);
    sha256_digest(&h, SHA256_DIGEST_SIZE, buf + n - 32);
    write_file(path, buf, n);
    expect_usage((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--resume", "--steps", "6",
                                  "--hidden", "8", "--batch", "2", "--bptt", "5", "--threads", "1", NULL},
                 "cannot be used here");
    cr_expect(strstr(err, "nosuch"), "%s", err);
    /* naming a backend continues (not bit-identically) */
    rc = run((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--resume", "--steps", "6",
                              "--hidden", "8", "--batch", "2", "--bptt", "5", "--threads", "1",
                              "--gemm", "blocked", NULL});
    cr_expect_eq(rc, 0, "stderr: %s", err);
}

Test(models, mismatched_resume_exits_2_and_keeps_the_checkpoint)
{
    char dir[300];
    tmp_path(dir, sizeof dir, "ckpt-mismatch");
    const char *tiny = tiny_corpus();
    int rc = run((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--steps", "3", SMALL, NULL});
    cr_assert_eq(rc, 0, "stderr: %s", err);
    char path[4200];
    cr_assert_eq(ckpt_latest(dir, path, sizeof path), 0);
    struct stat before, after;
    cr_assert_eq(stat(path, &before), 0);
    expect_usage((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--resume", "--steps", "6",
                                  "--hidden", "16", "--batch", "2", "--bptt", "5", "--gemm",
                                  "blocked", "--threads", "1", NULL},
                 "was written with --hidden 8, this run has --hidden 16: resume with --hidden 8");
    expect_usage((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--resume", "--steps", "6",
                                  "--optimizer", "adam", SMALL, NULL},
                 "--optimizer sgd, this run has --optimizer adam: resume with --optimizer sgd");
    /* --seed (the random seed: it picks the completion questions): refused, not silently replaced */
    expect_usage((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--resume", "--steps", "6",
                                  "--seed", "2", SMALL, NULL},
                 "was written with --seed 1, this run has --seed 2: resume with --seed 1");
    /* the worker count, read from the carried state's size */
    expect_usage((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--resume", "--steps", "6",
                                  "--workers", "2", SMALL, NULL},
                 "was written with --workers 1 (1 x 2 streams), this run has --workers 2: resume "
                 "with --workers 1");
    /* without --resume a folder with checkpoints is refused (nothing is overwritten) */
    expect_usage((const char *[]){"--corpus", tiny, "--checkpoint", dir, SMALL, NULL},
                 "already holds checkpoints");
    cr_assert_eq(stat(path, &after), 0);
    cr_expect_eq(before.st_size, after.st_size);
    cr_expect_eq(before.st_mtime, after.st_mtime);
    /* a damaged checkpoint is refused */
    FILE *f = fopen(path, "r+b");
    fseek(f, 100, SEEK_SET);
    fputc(0x5a, f);
    fclose(f);
    expect_usage((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--resume", "--steps", "6",
                                  SMALL, NULL},
                 "damaged");
}

Test(models, divergence_exits_1_with_one_line_and_keeps_the_checkpoint)
{
    char dir[300];
    tmp_path(dir, sizeof dir, "ckpt-nan");
    const char *tiny = tiny_corpus();
    int rc = run((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--steps", "2", SMALL, NULL});
    cr_assert_eq(rc, 0, "stderr: %s", err);
    char good[4200], after[4200];
    cr_assert_eq(ckpt_latest(dir, good, sizeof good), 0);
    /* the same run continued with an absurd rate: the first evaluation sees it */
    rc = run((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--resume", "--checkpoint-every",
                              "1", "--eval-every", "1", "--steps", "200", "--lr", "1e30", "--clip",
                              "0", SMALL, NULL});
    cr_expect_eq(rc, 1, "exit %d; stderr: %s", rc, err);
    cr_expect_eq(lines(err), 1, "want one line on stderr, got: %s", err);
    cr_expect(strstr(err, "diverged") && strstr(err, "last good checkpoint is kept"), "%s", err);
    cr_expect(strstr(err, good), "stderr should name %s: %s", good, err);
    cr_assert_eq(ckpt_latest(dir, after, sizeof after), 0);
    cr_expect_str_eq(after, good, "a diverged state was checkpointed");
}

/* The summary JSON's first row, one number. */
static double summary_num(const char *json, const char *col)
{
    rs_json *j = rs_json_load(json);
    cr_assert(j, "%s: %s", json, rs_lasterr());
    const rs_json *rows = rs_json_get(j, "rows");
    cr_assert(rows && rows->type == RS_JARR && rows->n == 1);
    const rs_json *v = rs_json_get(rows->items[0], col);
    double x = v && v->type == RS_JNUM ? v->num : NAN;
    rs_json_free(j);
    return x;
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
        eval_groups_partial(&m, c.valid, c.nvalid, 4, cut[i], cut[i + 1], &s, &t);
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
        cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
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
    cr_assert_eq(rc, 0, "stderr: %s", err);
    double v = summary_num(js, "valid_ppl"), t = summary_num(js, "test_ppl");
    cr_expect(v > 1 && v < 7 && t > 1 && t < 7, "kn3 valid %g test %g", v, t);
}

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
        cr_expect(!strstr(mm_record(), "=blocked") && !strstr(mm_record(), "=libxsmm"), "%s", mm_record());
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
Test(models, pipeline_refuses_blocked_and_auto_avoids_it)
{
    cr_expect(!pipeline_backend_ok("blocked") && !pipeline_backend_ok("libxsmm"));
    cr_assert_eq(mm_init("blocked", 1), 0, "%s", rs_lasterr());
    cr_expect(!mm_reentrant());
}

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

Test(models, classes_split_identical_openblas) { classes_split_identical("openblas"); }
Test(models, classes_split_identical_blis) { classes_split_identical("blis"); }

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

/* ---- sentence completion ---- */

/* Sentences of 6..9 words from 200 words in which each word has one successor: a model
 * that learned the text tells the right word from any impostor. */
static const char *chain_corpus(void)
{
    static char path[300];
    make_tmpdir();
    snprintf(path, sizeof path, "%s/chain.txt", tmpdir);
    if (access(path, R_OK) == 0)
        return path;
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 3000; i++) {
        int w = (int)(rng_u64(9, 1, (uint64_t)i) % 200), n = 6 + (int)(rng_u64(9, 2, (uint64_t)i) % 4);
        for (int k = 0; k < n; k++, w = (w * 7 + 3) % 200)
            fprintf(f, "w%d ", w);
        fprintf(f, ".%s", i % 5 == 4 ? "\n\n" : "\n");
    }
    fclose(f);
    return path;
}

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

/* blocked, plus `extra` more runs of the same product into scratch: slower, right. */
static int blocked_times(int extra, char ta, char tb, long m, long n, long k, float alpha,
                         const float *a, long lda, const float *bm, long ldb, float beta, float *c,
                         long ldc)
{
    const gemm_backend *b = &gemm_backend_blocked;
    float *scratch = malloc(sizeof(float) * (size_t)(ldc * n));
    cr_assert(scratch);
    for (int i = 0; i < extra; i++) {
        memcpy(scratch, c, sizeof(float) * (size_t)(ldc * n));
        b->sgemm(b, ta, tb, m, n, k, alpha, a, lda, bm, ldb, beta, scratch, ldc);
    }
    free(scratch);
    return b->sgemm(b, ta, tb, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc);
}

/* "openblas-pool": 9x slower on the bias sums (n = 1); "omp": 9x slower elsewhere (a
 * margin that holds on a loaded machine). */
static int pool_sgemm(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                      float alpha, const float *a, long lda, const float *bm, long ldb,
                      float beta, float *c, long ldc)
{
    return blocked_times(n == 1 ? 8 : 0, ta, tb, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc);
}
static int omp_sgemm(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                     float alpha, const float *a, long lda, const float *bm, long ldb,
                     float beta, float *c, long ldc)
{
    return blocked_times(n == 1 ? 0 : 8, ta, tb, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc);
}
/* One thread whatever is asked: the rule under test is ga_tune's for threads > 1, and two
 * OpenMP threads on a loaded machine time tiny products with millisecond noise. */
static void fake_threads(const gemm_backend *b, int n)
{
    (void)n;
    gemm_backend_blocked.set_threads(&gemm_backend_blocked, 1);
}

/* Right for alpha = 1 only (naive underneath, alpha ignored). */
static int fake_alpha1_sgemm(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                             float alpha, const float *a, long lda, const float *bm, long ldb,
                             float beta, float *c, long ldc)
{
    return gemm_backend_naive.sgemm(&gemm_backend_naive, ta, tb, m, n, k, 1.0f, a, lda, bm, ldb,
                                    beta, c, ldc);
}

static int fake_naive_sgemm(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                            float alpha, const float *a, long lda, const float *bm, long ldb,
                            float beta, float *c, long ldc)
{
    return gemm_backend_naive.sgemm(&gemm_backend_naive, ta, tb, m, n, k, alpha, a, lda, bm, ldb,
                                    beta, c, ldc);
}

/* Declines an M that is not a multiple of 16, as libxsmm declines an M without a factor
 * from the vector width to 48: the slices --gemm auto times (M rounded to 16) it takes. */
static int fake_m16_takes(const gemm_backend *b, const gemm_problem *p)
{
    RS_CHECK(p->m % 16 == 0, "fake-m16: M %ld", p->m);
    return 0;
}

/* --gemm auto judges each product as the trainer calls it: with the output layer's alpha
 * (1/N, the mean loss), and by what the backend takes at the full size.  Before, it
 * checked alpha = 1 on slices, so libxsmm was picked for products that its library
 * then handed to a missing BLAS ("LIBXSMM ERROR ... sgemm!"). */
Test(models, auto_checks_products_as_the_trainer_calls_them)
{
    static const gemm_backend alpha1 = {.name = "fake-alpha1", .what = "alpha ignored",
                                        .load = fake_load, .sgemm = fake_alpha1_sgemm};
    static const gemm_backend m16 = {.name = "fake-m16", .what = "M % 16 only", .load = fake_load,
                                     .sgemm = fake_naive_sgemm, .takes = fake_m16_takes};
    const gemm_backend *cands[3] = {&alpha1, &m16, &gemm_backend_blocked};
    cr_assert_eq(gemm_backend_blocked.load(&gemm_backend_blocked), 0);
    model_cfg c = {CELL_LSTM, 1, 24, 16, 40, 8, 5, 4};   /* G 96, N 40, 4 classes */
    ga_shape shapes[GA_MAX_SHAPES];
    int ns = ga_model_shapes(&c, shapes, GA_MAX_SHAPES), odd = 0;
    for (int i = 0; i < ns; i++) {
        int mean = strcmp(shapes[i].where, "cls") == 0 && strcmp(shapes[i].role, "fwd") != 0;
        cr_expect_eq(shapes[i].alpha, mean ? 1.0f / 40 : 1.0f, "%s %s: alpha %g", shapes[i].role,
                     shapes[i].where, shapes[i].alpha);
        odd += shapes[i].m % 16 != 0;
    }
    cr_assert(odd > 0, "no product with an M that is not a multiple of 16");
    static ga_plan p;
    p.notes[0] = 0;
    cr_assert_eq(ga_tune(shapes, ns, cands, 3, 1, &p), 0, "%s", rs_lasterr());
    cr_expect_eq(p.excluded[0], 1, "a backend wrong for alpha = 1/N passed the check");
    cr_expect(strstr(p.notes, "fake-alpha1 excluded: WRONG"), "notes: %s", p.notes);
    for (int i = 0; i < ns; i++) {
        int declined = p.shape[i].m % 16 != 0;
        cr_expect(declined ? p.ms[i][1] < 0 && p.pick[i] != &m16 : p.ms[i][1] > 0,
                  "%s %s (M %ld): fake-m16 %s", p.shape[i].role, p.shape[i].where, p.shape[i].m,
                  declined ? "judged on its slice" : "not timed");
    }
}

/* Right except with K = 1, which only the class layer's per-token NT product has. */
static int fake_k1_sgemm(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                         float alpha, const float *a, long lda, const float *bm, long ldb,
                         float beta, float *c, long ldc)
{
    return gemm_backend_naive.sgemm(&gemm_backend_naive, ta, tb, m, n, k, k == 1 ? 2 * alpha : alpha,
                                    a, lda, bm, ldb, beta, c, ldc);
}

/* The per-token products of the class layer's split run on the fallback: they are
 * checked too, so a backend wrong on them is excluded (it used to be the fallback). */
Test(models, auto_checks_the_class_layers_per_token_products)
{
    static const gemm_backend k1 = {.name = "fake-k1", .what = "wrong with K = 1", .load = fake_load,
                                    .sgemm = fake_k1_sgemm};
    const gemm_backend *cands[2] = {&k1, &gemm_backend_blocked};
    cr_assert_eq(gemm_backend_blocked.load(&gemm_backend_blocked), 0);
    model_cfg c = {CELL_LSTM, 1, 24, 16, 40, 8, 5, 4};
    ga_shape shapes[GA_MAX_SHAPES];
    int ns = ga_model_shapes(&c, shapes, GA_MAX_SHAPES);
    for (int i = 0; i < ns; i++)
        cr_assert_neq(shapes[i].k, 1, "a model product with K = 1: the test needs another model");
    static ga_plan p;
    p.notes[0] = 0;
    cr_assert_eq(ga_tune(shapes, ns, cands, 2, 1, &p), 0, "%s", rs_lasterr());
    cr_expect_eq(p.excluded[0], 1, "fake-k1 not excluded");
    cr_expect(strstr(p.notes, "fake-k1 excluded: WRONG result on a per-token class product"),
              "notes: %s", p.notes);
    cr_expect(p.fallback == &gemm_backend_blocked, "fallback %s", p.fallback->name);
    /* without a class layer there is no split to check */
    c.classes = 0;
    ns = ga_model_shapes(&c, shapes, GA_MAX_SHAPES);
    p.notes[0] = 0;
    cr_assert_eq(ga_tune(shapes, ns, cands, 2, 1, &p), 0, "%s", rs_lasterr());
    cr_expect_eq(p.excluded[0], 0, "notes: %s", p.notes);
}

/* A recorded plan may name libxsmm for a product it has no kernel for (M 4: the
 * 4-class layer's bias sum; or a plan from a CPU with another vector width): the
 * trainer's call goes to the plan's fallback, right and silent. */
Test(models, auto_declined_call_takes_the_fallback, .init = cr_redirect_stderr)
{
    const gemm_backend *x = gemm_find("libxsmm");
    if (x->load(x) != 0)
        cr_skip_test("libxsmm not installed here: %s", rs_lasterr());
    model_cfg c = {CELL_LSTM, 1, 24, 16, 40, 8, 5, 4};
    cr_assert_eq(mm_init_record("auto:other=blocked;4x1x40:NN=libxsmm", &c, 1), 0, "%s", rs_lasterr());
    float dout[4 * 40], ones[40], db[4] = {0.5f, -0.25f, 0, 1};
    double want[4];
    for (int o = 0; o < 4; o++)
        want[o] = db[o];
    for (int r = 0; r < 40; r++) {
        ones[r] = 1;
        for (int o = 0; o < 4; o++) {
            dout[o + 4 * r] = (float)((r * 7 + o * 3) % 11) / 11.0f - 0.5f;
            want[o] += dout[o + 4 * r] / 40.0;
        }
    }
    mm_colsum(db, dout, ones, 40, 4, 1.0f / 40);
    /* gemm.h's residual bound: eps (|alpha| K max|A| + |beta| max|C0|), inputs <= 0.5, C0 <= 1 */
    double tol = GEMM_RESIDUAL_MAX * FLT_EPSILON * (40 * 0.5 / 40 + 1);
    for (int o = 0; o < 4; o++)
        cr_expect(fabs(db[o] - want[o]) <= tol, "db[%d] %.9g, want %.9g", o, db[o], want[o]);
    fflush(stderr);
    cr_expect_stderr_eq_str("", "a library printed on stderr");
}

/* One thread: each product on its fastest; with threads, never OpenBLAS (its own
 * pool) next to an OpenMP backend, whatever the gain. */
Test(models, auto_keeps_to_one_thread_pool_with_threads)
{
    static const gemm_backend pool = {.name = "openblas-pool", .what = "own pool", .load = fake_load,
                                      .set_threads = fake_threads, .sgemm = pool_sgemm};
    static const gemm_backend omp = {.name = "omp", .what = "OpenMP", .load = fake_load,
                                     .set_threads = fake_threads, .sgemm = omp_sgemm};
    const gemm_backend *cands[2] = {&pool, &omp};
    cr_assert_eq(gemm_backend_blocked.load(&gemm_backend_blocked), 0);
    model_cfg c = {CELL_ELMAN, 1, 64, 64, 256, 16, 8, 0};
    ga_shape shapes[GA_MAX_SHAPES];
    int ns = ga_model_shapes(&c, shapes, GA_MAX_SHAPES);
    static ga_plan p;
    for (int threads = 1; threads <= 2; threads++) {
        p.notes[0] = 0;
        cr_assert_eq(ga_tune(shapes, ns, cands, 2, threads, &p), 0, "%s", rs_lasterr());
        cr_expect(p.fallback == &pool, "%d threads: fallback %s", threads, p.fallback->name);
        for (int i = 0; i < ns; i++) {
            const gemm_backend *want = threads == 1 && p.shape[i].n == 1 ? &omp : &pool;
            cr_expect(p.pick[i] == want, "%d threads, %s %s: %s (%.3g vs %.3g ms)", threads,
                      p.shape[i].role, p.shape[i].where, p.pick[i]->name, p.ms[i][0], p.ms[i][1]);
        }
    }
}

/* The picks in the header (stdout), the --bench CSV's gemm column and the JSON meta. */
Test(models, auto_picks_are_reported_and_recorded)
{
    char csv[300], js[300];
    tmp_path(csv, sizeof csv, "auto-bench.csv"), tmp_path(js, sizeof js, "auto-bench.json");
    static char out[1 << 16];
    int rc = run_stdout((const char *[]){"--corpus", tiny_corpus(), "--hidden", "16", "--batch", "4",
                                         "--bptt", "6", "--threads", "1", "--bench", "2", "--csv", csv,
                                         "--json", js, NULL},
                        out, sizeof out);
    cr_assert_eq(rc, 0, "stderr: %s", err);
    cr_expect(strstr(out, "kernels  gemm auto:fwd="), "no picks in the header:\n%s", out);
    cr_expect(strstr(out, "gemm     auto: 10 products x "), "no timing table in the header:\n%s", out);
    rs_table *t = rs_table_read_csv(csv);
    cr_assert(t, "%s", rs_lasterr());
    int col = rs_table_col_index(t, "gemm");
    cr_assert(col >= 0 && rs_table_nrows(t) == 1);
    const char *g = rs_cell_str(t, 0, col);
    cr_expect(strncmp(g, "auto:fwd=", 9) == 0 && strstr(g, ",bwd_in=") && strstr(g, ",bwd_w=") &&
                  strstr(g, ",colsum=") && strstr(g, ",other="),
              "gemm column '%s'", g);
    char meta[512], plan[GA_RECORD_MAX];
    meta_str(js, "gemm", meta, sizeof meta);
    cr_expect_str_eq(meta, g, "CSV column and JSON meta differ");
    meta_str(js, "gemm_plan", plan, sizeof plan);
    static ga_plan p;
    cr_assert_eq(ga_plan_parse(plan, &p), 0, "gemm_plan '%s': %s", plan, rs_lasterr());
    cr_expect_eq(p.nshapes, 10);
    /* every pick is a backend named in the header's timing table */
    for (int i = -1; i < p.nshapes; i++) {
        const char *name = i < 0 ? p.fallback->name : p.pick[i]->name;
        char needle[64];
        snprintf(needle, sizeof needle, "  %s ", name);
        cr_expect(strstr(out, needle), "%s is not in the header's table", name);
        cr_expect(strcmp(name, "naive") != 0);
    }
    rs_table_free(t);
}

/* One GEMM of the trainer's, out = alpha op(a) op(b) + beta c0 with a(i, k) = a[i sai +
 * k sak] and b(k, j) = b[k sbk + j sbj] (rows x cols, K terms), run by two backends on
 * the same operands: naive (products exact in double, sums in double, one rounding to
 * float) is within u |y| + gamma^(53)_{K+2} S of the exact y, any float GEMM within
 * gamma_{K+2} S (each term: its product, K - 1 additions, alpha, the beta term's
 * addition), S = |alpha| sum_k |a||b| + |beta c0| >= |y|; so the two are within
 * (gamma_{K+2} + u + gamma^(53)_{K+2}) S of each other, in any order of the sum.
 * Returns the entries beyond; *caught counts those where a 1e-3 error would show. */
typedef struct {
    const float *a, *b;
    long sai, sak, sbk, sbj, rows, cols, K;
    float alpha, beta;
    const float *c0;   /* (rows, cols) or NULL */
} gemm_case;

static long gemm_case_check(const gemm_case *g, const float *nv, const float *on, long *caught,
                            double *worst)
{
    const double u = 0x1p-24, kk = (double)(g->K + 2);
    const double gam = kk * u / (1 - kk * u) + u + kk * 0x1p-53 / (1 - kk * 0x1p-53);
    long beyond = 0;
    for (long i = 0; i < g->rows; i++)
        for (long j = 0; j < g->cols; j++) {
            double S = 0;
            for (long k = 0; k < g->K; k++)
                S += fabs((double)g->a[i * g->sai + k * g->sak] * g->b[k * g->sbk + j * g->sbj]);
            long at = i * g->cols + j;
            S = fabs((double)g->alpha) * S + (g->c0 ? fabs((double)g->beta * g->c0[at]) : 0);
            double bound = gam * S * (1 + 1e-12), y = nv[at], d = fabs(y - on[at]);
            beyond += d > bound;
            *caught += fabs(y) * 1e-3 > bound;
            if (bound > 0)
                *worst = fmax(*worst, d / bound);
        }
    return beyond;
}

/* --gemm onednn as the trainer's backend.  The trainer's code is the same whatever the
 * backend; what differs is each product it asks for, so every GEMM kind the trainer
 * calls (input projection, recurrence and logits with their beta terms, the backward
 * to the input, the weight gradients, the bias sums), on a model's real operands, must
 * be naive's within the bound of gemm_case_check.  (A multi-step trajectory would
 * amplify rounding: the float path against the double reference is float_vs_ref's.)
 * And rnn-train's run with --gemm onednn dispatches to it. */
Test(models, onednn_trains_as_naive)
{
    need_backend("onednn");
    enum { T = 12, B = 8, H = 24, D = 16, V = 37, G = 4 * H, N = T * B };
    model_cfg c = {CELL_LSTM, 1, H, D, V, B, T, 0};
    cr_assert_eq(mm_init("naive", 1), 0, "%s", rs_lasterr());
    cr_assert_eq(output_init(), 0);
    model m;
    cr_assert_eq(model_create(&m, &c), 0, "%s", rs_lasterr());
    model_init_params(&m, 41);
    fill_inputs(&c, T, 42, m.act.inputs, m.act.targets);
    model_forward(&m, T, 1);
    model_backward(&m, T);
    const activations *a = &m.act;
    const float *Wx = m.params + m.lay.t[P_WX(0)].offset, *Wh = m.params + m.lay.t[P_WH(0)].offset;
    const float *Wo = m.params + m.lay.t[P_WOUT(1)].offset, *htop = a->h[0] + B * H;
    const float s = 1.0f / (float)N;
    static float c0g[N * G], c0v[N * V], c0h[N * H];   /* beta terms: real values */
    for (long r = 0; r < N; r++) {
        memcpy(c0g + r * G, m.params + m.lay.t[P_B(0)].offset, G * sizeof(float));
        memcpy(c0v + r * V, m.params + m.lay.t[P_BOUT(1)].offset, V * sizeof(float));
        memcpy(c0h + r * H, a->dA + r * H, H * sizeof(float));
    }
    const gemm_case cases[] = {
        {a->x0, Wx, D, 1, 1, D, N, G, D, 1, 1, c0g},            /* gates = x0 Wx^T + b */
        {a->h[0], Wh, H, 1, 1, H, N, G, H, 1, 1, a->dpre},      /* + h Wh^T (beta 1) */
        {htop, Wo, H, 1, 1, H, N, V, H, 1, 1, c0v},             /* logits */
        {a->dlogits, Wo, V, 1, H, 1, N, H, V, s, 0, NULL},      /* dH = s dlogits Wout */
        {a->dpre, Wh, G, 1, H, 1, N, H, G, 1, 1, c0h},          /* dH += dpre Wh */
        {a->dlogits, htop, 1, V, H, 1, V, H, N, s, 0, NULL},    /* dWout = s dlogits^T h */
        {a->dpre, a->x0, 1, G, D, 1, G, D, N, 1, 0, NULL},      /* dWx = dpre^T x0 */
        {a->dlogits, a->ones, 1, V, 1, 0, V, 1, N, s, 0, NULL}, /* dbout = s colsum */
    };
    static float out[2][N * G];
    long beyond = 0, caught = 0, total = 0;
    double worst = 0;
    for (int k = 0; k < RS_ARRAY_LEN(cases); k++) {
        const gemm_case *g = &cases[k];
        for (int b = 0; b < 2; b++) {
            cr_assert_eq(mm_init(b ? "onednn" : "naive", 2), 0, "%s", rs_lasterr());
            long n = g->rows * g->cols;
            if (g->c0)
                memcpy(out[b], g->c0, (size_t)n * sizeof(float));
            else
                memset(out[b], 0, (size_t)n * sizeof(float));
            if (k < 3)
                mm_forward(out[b], g->a, g->b, g->rows, g->K, g->cols, g->alpha, g->beta);
            else if (k < 5)
                mm_backward_input(out[b], g->a, g->b, g->rows, g->cols, g->K, g->alpha, g->beta);
            else if (k < 7)
                mm_backward_weight(out[b], g->a, g->b, g->K, g->cols, g->rows, g->alpha);
            else
                mm_colsum(out[b], g->a, g->b, g->K, g->rows, g->alpha);
        }
        long kb = gemm_case_check(g, out[0], out[1], &caught, &worst);
        cr_expect_eq(kb, 0, "GEMM %d (%ld x %ld, K %ld): %ld entries of onednn beyond the bound "
                     "of naive's", k, g->rows, g->cols, g->K, kb);
        beyond += kb, total += g->rows * g->cols;
    }
    cr_log_info("onednn against naive, %d GEMM kinds: %ld entries, largest |difference| / bound "
                "%.3g", RS_ARRAY_LEN(cases), total, worst);
    cr_expect(caught > total / 2, "a 1e-3 error passes as rounding in %ld of %ld entries",
              total - caught, total);
    model_destroy(&m);
    /* the trainer dispatches to it */
    char js[400];
    tmp_path(js, sizeof js, "train-onednn.json");
    train_opts o;
    small_opts(&o, NULL, NULL, 2);
    o.gemm = "onednn";
    o.json = js;
    cr_assert_eq(train_run(&o), 0, "onednn: %s", rs_lasterr());
    char used[64];
    meta_str(js, "gemm", used, sizeof used);
    cr_expect_str_eq(used, "onednn");
    cr_expect(isfinite(summary_num(js, "train_loss")));
}
