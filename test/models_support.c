/* models_support.c — see models_support.h. */
#define _GNU_SOURCE
#include "models_support.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cli_support.h"
#include "json.h"
#include "matmul.h"
#include "rng.h"

static const char *bin = "build/bin/rnn-train";

void fill_inputs(const model_cfg *c, int Tw, uint64_t seed, int *inputs, int *targets)
{
    for (int i = 0; i < Tw * c->batch; i++) {
        inputs[i] = (int)(rng_u64(seed, 100, (uint64_t)i) % (uint64_t)c->vocab);
        targets[i] = (int)(rng_u64(seed, 101, (uint64_t)i) % (uint64_t)c->vocab);
    }
}

/* Parameters uniform in +-0.5 (large enough that every non-linearity is in its curved
 * part), rounded to float so that the float and double models share them exactly. */
void fill_params(const param_layout *lay, uint64_t seed, double *p)
{
    for (long i = 0; i < lay->total; i++)
        p[i] = (double)(float)(0.5 * rng_sym(seed, 7, (uint64_t)i));
}

void fill_state(const model_cfg *c, uint64_t seed, double *h0, double *c0)
{
    long n = (long)c->layers * c->batch * c->hidden;
    for (long i = 0; i < n; i++) {
        h0[i] = (double)(float)(0.8 * rng_sym(seed, 8, (uint64_t)i));
        c0[i] = (double)(float)(0.8 * rng_sym(seed, 9, (uint64_t)i));
    }
}

/* A backend the test needs: loaded, or the test is skipped with its name and why. */
void need_backend(const char *name)
{
    const gemm_backend *b = gemm_find(name);
    cr_assert(b, "no backend %s in the registry", name);
    if (b->load(b) != 0)
        cr_skip_test("GEMM backend %s is not installed here: %s", name, rs_lasterr());
}

/* Unigram counts for the class map of a V-word test vocabulary (unsorted on purpose). */
void test_counts(long *counts, int V)
{
    for (int i = 0; i < V; i++)
        counts[i] = 1 + (long)(rng_u64(17, 1, (uint64_t)i) % 50);
}

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

void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    fwrite(data, 1, n, f);
    fclose(f);
}

/* A tiny corpus with learnable structure: sentences from a small grammar, a pure
 * function of the index. */
const char *tiny_corpus(void)
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

/* Sentences of 6..9 words from 200 words in which each word has one successor: a model
 * that learned the text tells the right word from any impostor. */
const char *chain_corpus(void)
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

void small_opts(train_opts *o, const char *log, const char *ckpt, long steps)
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

void tmp_path(char *buf, size_t n, const char *name)
{
    make_tmpdir();
    snprintf(buf, n, "%s/%s", tmpdir, name);
}

/* The log's rows without its timing columns (seconds, eval_seconds,
 * eval_exposed_seconds): what equal runs must write alike. */
void log_rows(const char *path, char *out, size_t n)
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

void params_hash(const char *json, char *hex)
{
    rs_json *j = rs_json_load(json);
    cr_assert(j, "%s: %s", json, rs_lasterr());
    const rs_json *h = rs_json_path(j, "meta.params_sha256");
    cr_assert(h && h->type == RS_JSTR);
    snprintf(hex, 65, "%s", h->str);
    rs_json_free(j);
}

/* A whole file into memory (NUL-terminated past its end); *n gets its size. */
char *slurp(const char *path, size_t *n)
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

/* A string of the table JSON's meta ("" if absent). */
void meta_str(const char *json, const char *key, char *out, size_t n)
{
    rs_json *j = rs_json_load(json);
    cr_assert(j, "%s: %s", json, rs_lasterr());
    char path[64];
    snprintf(path, sizeof path, "meta.%s", key);
    const rs_json *h = rs_json_path(j, path);
    snprintf(out, n, "%s", h && h->type == RS_JSTR ? h->str : "");
    rs_json_free(j);
}

/* The summary JSON's first row, one number. */
double summary_num(const char *json, const char *col)
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

char run_err[4096];

/* Runs bin with args; stderr into run_err, stdout into out[0..n-1] (NULL: /dev/null). */
int run_stdout(const char *const *args, char *out, size_t n)
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
    memset(run_err, 0, sizeof run_err);
    lseek(fe, 0, SEEK_SET);
    ssize_t got = read(fe, run_err, sizeof run_err - 1);
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

int run(const char *const *args) { return run_stdout(args, NULL, 0); }

void expect_usage(const char *const *args, const char *fragment)
{
    int rc = run(args);
    cr_expect_eq(rc, 2, "exit %d; stderr: %s", rc, run_err);
    cr_expect_eq(cli_lines(run_err), 1, "want one line on stderr, got: %s", run_err);
    cr_expect(strstr(run_err, fragment), "stderr '%s' lacks '%s'", run_err, fragment);
}
