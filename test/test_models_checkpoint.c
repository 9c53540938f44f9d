/* test_models_checkpoint.c — rnn-train's checkpoints: written, resumed, refused.
 *
 *  - SHA-256 (the checkpoint's checksum) against FIPS vectors;
 *  - the same seed gives the same parameters bit for bit; a resumed run equals an
 *    uninterrupted one, also when it stopped at an evaluation step, and with --gemm
 *    auto (the checkpoint's picks are reused);
 *  - a refused resume (another model, optimizer, seed or worker count, a damaged file,
 *    picks this machine cannot run) exits 2 with one line and leaves the checkpoint as
 *    it was; a diverged run (NaN, or a valid ppl above --diverge-ppl) exits 1 with one
 *    line and keeps the last good checkpoint;
 *  - a truncated newest checkpoint is set aside (kept as .damaged) and the resume takes
 *    the one before it, ending as the uninterrupted run;
 *  - a rank that does not write checkpoints makes and removes nothing in their folder.
 * Runs from the repository root (`make test`). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "checkpoint.h"
#include "cli_support.h"
#include "gemm_auto.h"
#include "sha256.h"
#include "train.h"
#include "models_support.h"

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

/* A checkpoint whose --gemm auto picks name a backend this machine cannot run: one
 * line, exit 2, the checkpoint left as it was. */
Test(models, resume_whose_gemm_cannot_run_here_exits_2)
{
    char dir[300];
    tmp_path(dir, sizeof dir, "ckpt-gemm");
    const char *tiny = tiny_corpus();
    int rc = run((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--steps", "3", "--hidden",
                                  "8", "--batch", "2", "--bptt", "5", "--threads", "1", NULL});
    cr_assert_eq(rc, 0, "stderr: %s", run_err);
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
    cr_expect(strstr(run_err, "nosuch"), "%s", run_err);
    /* naming a backend continues (not bit-identically) */
    rc = run((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--resume", "--steps", "6",
                              "--hidden", "8", "--batch", "2", "--bptt", "5", "--threads", "1",
                              "--gemm", "blocked", NULL});
    cr_expect_eq(rc, 0, "stderr: %s", run_err);
}

Test(models, truncated_newest_checkpoint_falls_back_to_the_one_before)
{
    char la[300], lc[300], da[300], dc[300], ja[300], jc[300];
    tmp_path(la, sizeof la, "ta.csv"), tmp_path(lc, sizeof lc, "tc.csv");
    tmp_path(da, sizeof da, "ckpt-ta"), tmp_path(dc, sizeof dc, "ckpt-tc");
    tmp_path(ja, sizeof ja, "ta.json"), tmp_path(jc, sizeof jc, "tc.json");
    train_opts o;
    small_opts(&o, la, da, 20);
    o.gemm = "blocked";
    o.json = ja;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    small_opts(&o, lc, dc, 15);
    o.gemm = "blocked";
    o.ckpt_every = 5;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    char newest[4200], aside[4300];
    cr_assert_eq(ckpt_latest(dc, newest, sizeof newest), 0);
    cr_assert(strstr(newest, "ckpt-000000015.bin"), "%s", newest);
    struct stat st;
    cr_assert_eq(stat(newest, &st), 0);
    cr_assert_eq(truncate(newest, st.st_size / 2), 0);   /* a crash mid-write, say */
    small_opts(&o, lc, dc, 20);
    o.resume = 1;
    o.json = jc;
    cr_assert_eq(train_run(&o), 0, "the resume did not fall back: %s", rs_lasterr());
    snprintf(aside, sizeof aside, "%s.damaged", newest);
    cr_expect_eq(stat(aside, &st), 0, "the damaged checkpoint was not kept aside as %s", aside);
    char ha[65], hc[65];
    params_hash(ja, ha), params_hash(jc, hc);
    cr_expect_str_eq(ha, hc, "resumed from step 10, the run ended elsewhere than the uninterrupted one");
}

Test(models, mismatched_resume_exits_2_and_keeps_the_checkpoint)
{
    char dir[300];
    tmp_path(dir, sizeof dir, "ckpt-mismatch");
    const char *tiny = tiny_corpus();
    int rc = run((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--steps", "3", SMALL, NULL});
    cr_assert_eq(rc, 0, "stderr: %s", run_err);
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
    cr_assert_eq(rc, 0, "stderr: %s", run_err);
    char good[4200], after[4200];
    cr_assert_eq(ckpt_latest(dir, good, sizeof good), 0);
    /* the same run continued with an absurd rate: the first evaluation sees it */
    rc = run((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--resume", "--checkpoint-every",
                              "1", "--eval-every", "1", "--steps", "200", "--lr", "1e30", "--clip",
                              "0", SMALL, NULL});
    cr_expect_eq(rc, 1, "exit %d; stderr: %s", rc, run_err);
    cr_expect_eq(cli_lines(run_err), 1, "want one line on stderr, got: %s", run_err);
    cr_expect(strstr(run_err, "diverged") && strstr(run_err, "last good checkpoint is kept"), "%s",
              run_err);
    cr_expect(strstr(run_err, good), "stderr should name %s: %s", good, run_err);
    cr_assert_eq(ckpt_latest(dir, after, sizeof after), 0);
    cr_expect_str_eq(after, good, "a diverged state was checkpointed");
}

/* --diverge-ppl: a finite valid ppl above it ends the run as a NaN would (every ppl is
 * above 1), and the checkpoint written just before that evaluation is removed. */
Test(models, valid_ppl_above_diverge_ppl_exits_1_and_keeps_no_checkpoint_of_it)
{
    char dir[300], path[4200];
    tmp_path(dir, sizeof dir, "ckpt-above");
    const char *tiny = tiny_corpus();
    const char *args[] = {"--corpus", tiny, "--checkpoint", dir, "--checkpoint-every", "1", "--eval-every",
                          "1", "--steps", "6", "--diverge-ppl", "1", SMALL, NULL};
    int rc = run(args);
    cr_expect_eq(rc, 1, "exit %d; stderr: %s", rc, run_err);
    cr_expect_eq(cli_lines(run_err), 1, "want one line on stderr, got: %s", run_err);
    cr_expect(strstr(run_err, "above --diverge-ppl 1, at step 1 (the run diverged") &&
              strstr(run_err, "no checkpoint of an earlier step is left"), "%s", run_err);
    cr_expect_eq(ckpt_latest(dir, path, sizeof path), -1, "the diverged step's %s was kept", path);
    /* the same run under a bound it stays below goes to its end */
    tmp_path(dir, sizeof dir, "ckpt-below");
    args[11] = "1e30";
    rc = run(args);
    cr_expect_eq(rc, 0, "exit %d; stderr: %s", rc, run_err);
}

/* The final evaluation (none due before the last step) and --eval-async's (step 3's
 * result taken at step 6) name the step evaluated and keep only checkpoints before it. */
Test(models, diverged_at_the_final_or_a_late_evaluation_keeps_only_earlier_checkpoints)
{
    char dir[300], path[4200];
    const char *tiny = tiny_corpus();
    tmp_path(dir, sizeof dir, "ckpt-final");
    int rc = run((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--checkpoint-every", "3",
                                  "--eval-every", "10", "--steps", "6", "--diverge-ppl", "1", SMALL, NULL});
    cr_expect_eq(rc, 1, "exit %d; stderr: %s", rc, run_err);
    cr_expect(strstr(run_err, "at step 6 (the run diverged") &&
              strstr(run_err, "last good checkpoint is kept: ") && strstr(run_err, "ckpt-000000003.bin"),
              "%s", run_err);
    cr_assert_eq(ckpt_latest(dir, path, sizeof path), 0);
    cr_expect(strstr(path, "ckpt-000000003.bin"), "newest left: %s", path);
    tmp_path(dir, sizeof dir, "ckpt-async");
    rc = run((const char *[]){"--corpus", tiny, "--checkpoint", dir, "--checkpoint-every", "3", "--eval-every",
                              "3", "--eval-async", "--steps", "9", "--diverge-ppl", "1", "--hidden", "8", "--batch",
                              "2", "--bptt", "5", "--gemm", "openblas", "--threads", "1", NULL});
    cr_expect_eq(rc, 1, "exit %d; stderr: %s", rc, run_err);
    cr_expect_eq(cli_lines(run_err), 1, "want one line on stderr, got: %s", run_err);
    cr_expect(strstr(run_err, "at step 3 (the run diverged") &&
              strstr(run_err, "no checkpoint of an earlier step is left"), "%s", run_err);
    cr_expect_eq(ckpt_latest(dir, path, sizeof path), -1, "a checkpoint of step 3 or later was kept: %s", path);
}

/* ckpt_drop_from: steps >= from go, but never the one a resumed run started from. */
Test(models, drop_from_keeps_earlier_steps_and_the_resumed_one)
{
    char dir[300], path[4200], newest[4200];
    tmp_path(dir, sizeof dir, "ckpt-drop");
    cr_assert_eq(mkdir(dir, 0755), 0);
    for (int s = 1; s <= 9; s += 4) {   /* names are all the listing reads */
        snprintf(path, sizeof path, "%s/ckpt-%09d.bin", dir, s);
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fclose(f);
    }
    cr_expect_eq(ckpt_drop_from(dir, 5, 5, newest, sizeof newest), 5);   /* 9 goes, 5 stays */
    cr_expect(strstr(newest, "ckpt-000000005.bin"), "%s", newest);
    cr_expect_eq(ckpt_drop_from(dir, 5, -1, newest, sizeof newest), 1);
    cr_expect(strstr(newest, "ckpt-000000001.bin"), "%s", newest);
    cr_expect_eq(ckpt_drop_from(dir, 0, -1, newest, sizeof newest), -1);
    cr_expect_str_eq(newest, "");
}

/* Ranks other than the writer only read the folder: they make none, and a live rank's
 * probe is not theirs to remove (an np = 3 run once printed "removed stale temporary"
 * for a probe its other rank was still holding). */
Test(models, reader_ranks_make_and_remove_nothing)
{
    char dir[300], probe[400];
    tmp_path(dir, sizeof dir, "ckpt-reader");
    cr_assert_eq(ckpt_prepare(dir, 0, NULL), 0, "%s", rs_lasterr());
    struct stat st;
    cr_expect_neq(stat(dir, &st), 0, "a reader rank made %s", dir);
    cr_assert_eq(ckpt_prepare(dir, 1, NULL), -1);   /* resuming needs the folder */
    cr_assert_eq(mkdir(dir, 0755), 0);
    snprintf(probe, sizeof probe, "%s/.rnn-train-probe.live01", dir);
    FILE *f = fopen(probe, "w");
    cr_assert(f);
    fclose(f);
    cr_assert_eq(ckpt_prepare(dir, 0, NULL), 0, "%s", rs_lasterr());
    cr_expect_eq(stat(probe, &st), 0, "a reader rank removed %s", probe);
    int lock = -1;   /* the writer, holding the lock, does clean it up */
    cr_assert_eq(ckpt_prepare(dir, 0, &lock), 0, "%s", rs_lasterr());
    cr_expect_neq(stat(probe, &st), 0, "the writer left %s", probe);
    ckpt_unlock(&lock);
}
