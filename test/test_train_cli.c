/* test_train_cli.c — rnn-train's settings are checked before any work: every numeric
 * flag against its range (NaN, inf, 1e300, negative, overflowing integers), the sizes
 * the flags imply (batch x bptt x vocab and the like, which must fit an int), the
 * corpus name; each refused with exit 2 and one line "--flag VALUE: ... expected ...",
 * and nothing written (the --log, --csv, --json and --checkpoint named stay absent).
 * --check-args runs every check a run makes before reading the corpus and writes
 * nothing.  Runs build/bin/rnn-train from the repository root (`make test`). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_support.h"

static const char *bin = "build/bin/rnn-train";
static char err[4096];
static char dir[64], log_path[128], csv_path[128], json_path[128], ckpt_path[128];

/* Every run names outputs in a fresh folder; the folder must stay empty. */
static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/rnnscale-traincli-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(log_path, sizeof log_path, "%s/log.csv", dir);
    snprintf(csv_path, sizeof csv_path, "%s/summary.csv", dir);
    snprintf(json_path, sizeof json_path, "%s/summary.json", dir);
    snprintf(ckpt_path, sizeof ckpt_path, "%s/ckpt", dir);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
}

static void expect_nothing_written(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", dir);
    cr_expect_eq(system(cmd), 0, "%s must stay empty", dir);
}

/* args, then the outputs: exit 2, one line holding fragment, nothing written. */
static void expect_refused(const char *const *args, const char *fragment)
{
    const char *const outputs[] = {"--log", log_path, "--csv", csv_path, "--json", json_path,
                                   "--checkpoint", ckpt_path, "--threads", "1", NULL};
    int rc = cli_run(bin, outputs, args, err, sizeof err);
    cr_expect_eq(rc, 2, "%s %s: exit %d; stderr: %s", args[0], args[1] ? args[1] : "", rc, err);
    cr_expect_eq(cli_lines(err), 1, "want one line on stderr, got: %s", err);
    cr_expect(strstr(err, fragment), "stderr '%s' lacks '%s'", err, fragment);
    expect_nothing_written();
}

TestSuite(train_cli, .init = setup, .fini = teardown);

Test(train_cli, rates_nan_inf_negative_huge)
{
    expect_refused((const char *[]){"--lr", "nan", NULL}, "--lr nan: out of range (expected a number > 0");
    expect_refused((const char *[]){"--lr", "inf", NULL}, "--lr inf: out of range");
    expect_refused((const char *[]){"--lr", "0", NULL}, "--lr 0: out of range");
    expect_refused((const char *[]){"--lr", "-0.1", NULL}, "--lr -0.1: out of range");
    expect_refused((const char *[]){"--lr", "1e400", NULL}, "--lr 1e400: out of range");
    expect_refused((const char *[]){"--momentum", "1.5", NULL}, "--momentum 1.5: out of range (expected a number in 0..1, e.g. 0.9)");
    expect_refused((const char *[]){"--clip", "-1", NULL}, "--clip -1: out of range");
    expect_refused((const char *[]){"--clip", "nan", NULL}, "--clip nan: out of range");
    expect_refused((const char *[]){"--target-ppl", "-inf", NULL}, "--target-ppl -inf: out of range");
    expect_refused((const char *[]){"--max-seconds", "1e300", NULL}, "--max-seconds 1e300: out of range");
    expect_refused((const char *[]){"--max-seconds", "nan", NULL}, "--max-seconds nan: out of range");
    expect_refused((const char *[]){"--warmup", "-5", NULL}, "--warmup -5: out of range");
    expect_refused((const char *[]){"--lr", "0.1x", NULL}, "--lr: '0.1x' is not a number");
}

/* The bucket size that overflowed to 16-float buckets (a 100x slower exchange). */
Test(train_cli, bucket_mib_bounded)
{
    const char *want = "out of range (expected a number > 0 and <= 4096, e.g. 25)";
    expect_refused((const char *[]){"--sync", "bucketed", "--bucket-mib", "1e300", NULL}, want);
    expect_refused((const char *[]){"--sync", "bucketed", "--bucket-mib", "4097", NULL}, want);
    expect_refused((const char *[]){"--sync", "bucketed", "--bucket-mib", "0", NULL}, want);
    expect_refused((const char *[]){"--sync", "bucketed", "--bucket-mib", "nan", NULL}, want);
}

Test(train_cli, sizes_out_of_range_or_not_integers)
{
    expect_refused((const char *[]){"--hidden", "0", NULL}, "--hidden 0: out of range (expected an integer in 1..65536, e.g. 512)");
    expect_refused((const char *[]){"--hidden", "1e300", NULL}, "--hidden: '1e300' is not an integer");
    expect_refused((const char *[]){"--batch", "-4", NULL}, "--batch -4: out of range");
    expect_refused((const char *[]){"--steps", "99999999999999999999", NULL}, "--steps 99999999999999999999: out of range");
    expect_refused((const char *[]){"--layers", "9", NULL}, "--layers 9: out of range");
    expect_refused((const char *[]){"--vocab", "1", NULL}, "--vocab 1: out of range");
    expect_refused((const char *[]){"--workers", "0", NULL}, "--workers 0: out of range");
    expect_refused((const char *[]){"--seed", "abc", NULL}, "--seed: 'abc' is not an integer");
}

/* Each flag in range, their products not: refused before the corpus is read. */
Test(train_cli, products_that_overflow_an_int)
{
    expect_refused((const char *[]){"--batch", "65536", "--bptt", "10000", "--vocab", "10000", NULL},
                   "--batch 65536 x --bptt 10000 x --vocab 10000: 6.55e+12 output scores per window, expected at most 2147483647");
    expect_refused((const char *[]){"--batch", "65536", "--workers", "65536", NULL},
                   "--batch 65536 x --workers 65536: 4.29e+09 streams");
    expect_refused((const char *[]){"--batch", "4096", "--workers", "1024", "--bptt", "1000", "--vocab", "2", NULL},
                   "tokens per window");
    expect_refused((const char *[]){"--hidden", "65536", "--batch", "64", "--bptt", "200", "--vocab", "100", NULL},
                   "gate values per layer");
    expect_refused((const char *[]){"--hidden", "65536", "--vocab", "16777216", "--batch", "1", "--bptt", "1", NULL},
                   "parameters, expected at most 2147483647");
}

Test(train_cli, corpus_that_does_not_exist)
{
    expect_refused((const char *[]){"--corpus", "nonsense", NULL},
                   "--corpus nonsense: no such corpus (expected mobydick, kjv, sotu, big or a readable text file");
}

/* A check that needs the corpus read (the class count against the vocabulary) fails
 * after set-up began: still no log, and the checkpoint folder it made is removed. */
Test(train_cli, late_refusal_leaves_nothing)
{
    char corpus[] = "/tmp/rnnscale-traincli-corpus-XXXXXX";
    int fd = mkstemp(corpus);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    for (int i = 0; i < 3000; i++)
        fprintf(f, "%s %s the %s .\n", i % 3 ? "whale" : "ship", i % 5 ? "sees" : "hunts", i % 7 ? "sea" : "crew");
    fclose(f);
    expect_refused((const char *[]){"--corpus", corpus, "--hidden", "8", "--batch", "2", "--bptt", "5",
                                    "--gemm", "blocked", "--steps", "1", "--classes", "1000", NULL},
                   "--classes 1000: expected 1 to the vocabulary size");
    unlink(corpus);
}

/* --check-args: 0 on good settings, 2 with the line on bad ones, nothing written. */
Test(train_cli, check_args_writes_nothing)
{
    const char *const outputs[] = {"--log", log_path, "--csv", csv_path, "--json", json_path,
                                   "--checkpoint", ckpt_path, NULL};
    int rc = cli_run(bin, outputs, (const char *[]){"--check-args", "--model", "lstm", "--hidden", "8",
                                                    "--gemm", "blocked", "--threads", "1", NULL},
                     err, sizeof err);
    cr_expect_eq(rc, 0, "stderr: %s", err);
    cr_expect_eq(cli_lines(err), 0, "stderr: %s", err);
    expect_nothing_written();
    expect_refused((const char *[]){"--check-args", "--model", "gru", NULL}, "--model: unknown model 'gru'");
    expect_refused((const char *[]){"--check-args", "--gemm", "nosuch", NULL}, "--gemm: unknown backend 'nosuch'");
    expect_refused((const char *[]){"--check-args", "--gemm", "auto:other=nosuch", NULL}, "--gemm: unknown GEMM backend 'nosuch'");
    expect_refused((const char *[]){"--check-args", "--sync", "lazy", NULL}, "--sync: unknown mode 'lazy'");
    expect_refused((const char *[]){"--check-args", "--allreduce", "all", NULL},
                   "--allreduce: unknown algorithm 'all' (expected one of: ring, ");
    expect_refused((const char *[]){"--check-args", "--corpus", "nonsense", NULL}, "no such corpus");
    /* an existing log is refused before any work, and kept */
    FILE *f = fopen(log_path, "w");
    cr_assert_not_null(f);
    fputs("precious\n", f);
    fclose(f);
    rc = cli_run(bin, NULL, (const char *[]){"--check-args", "--log", log_path, NULL}, err, sizeof err);
    cr_expect_eq(rc, 2, "stderr: %s", err);
    cr_expect(strstr(err, "already exists"), "%s", err);
    char buf[32] = {0};
    f = fopen(log_path, "r");
    cr_assert(fgets(buf, sizeof buf, f) != NULL);
    fclose(f);
    cr_expect_str_eq(buf, "precious\n");
}
