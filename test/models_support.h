/* models_support.h — what the model tests (test/test_models_*.c) share: inputs,
 * parameters and state as pure functions of a seed, the tiny corpora, a small training
 * set-up, readers of the training log, the summary JSON and files, and running
 * build/bin/rnn-train.  Each test runs in its own process with its own temporary
 * folder (tmp_path), removed when the process exits.  Tests run from the repository
 * root (`make test`). */
#ifndef RS_TEST_MODELS_SUPPORT_H
#define RS_TEST_MODELS_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "train.h"

/* ---- inputs: pure functions of a seed ---- */

/* Tw x batch input and target ids below c->vocab. */
void fill_inputs(const model_cfg *c, int Tw, uint64_t seed, int *inputs, int *targets);
/* Every parameter uniform in +-0.5, rounded to float. */
void fill_params(const param_layout *lay, uint64_t seed, double *p);
/* The carried h and c (layers x batch x hidden) uniform in +-0.8, rounded to float. */
void fill_state(const model_cfg *c, uint64_t seed, double *h0, double *c0);
/* Unigram counts 1..50 of a V-word vocabulary, unsorted. */
void test_counts(long *counts, int V);
/* Load the GEMM backend `name`, or skip the test saying why. */
void need_backend(const char *name);

/* ---- files ---- */

/* buf = this test's temporary folder / name. */
void tmp_path(char *buf, size_t n, const char *name);
void write_file(const char *path, const void *data, size_t n);
/* A whole file, NUL-terminated past its end (free it); *n gets its size. */
char *slurp(const char *path, size_t *n);
/* The corpora, written once per test: sentences of a 5-choices-per-word grammar
 * (vocabulary 18), and chains of 200 words in which each word has one successor. */
const char *tiny_corpus(void);
const char *chain_corpus(void);

/* ---- training and what it writes ---- */

/* A 2-layer LSTM (H 24, D 16, batch 8, bptt 12) on tiny_corpus, Adam, seed 42,
 * evaluated every 10 steps; log and ckpt may be NULL. */
void small_opts(train_opts *o, const char *log, const char *ckpt, long steps);
/* The log's rows without its timing columns, one string. */
void log_rows(const char *path, char *out, size_t n);
/* The summary JSON's meta.params_sha256 into hex[65]. */
void params_hash(const char *json, char *hex);
/* A string of the summary JSON's meta ("" if absent). */
void meta_str(const char *json, const char *key, char *out, size_t n);
/* A number of the summary JSON's one row (NAN if absent). */
double summary_num(const char *json, const char *col);

/* ---- build/bin/rnn-train ---- */

/* The last run's stderr. */
extern char run_err[4096];
/* Run it with args (NULL-terminated): stderr into run_err, stdout into out[0..n-1]
 * (out NULL: /dev/null).  Returns the exit status (128 + signal if killed). */
int run_stdout(const char *const *args, char *out, size_t n);
int run(const char *const *args);
/* Expect exit 2 and exactly one line on stderr, containing fragment. */
void expect_usage(const char *const *args, const char *fragment);

/* A model small enough for the bad-input runs. */
#define SMALL "--hidden", "8", "--batch", "2", "--bptt", "5", "--gemm", "blocked", "--threads", "1"

#endif
