/* test_study.c — the study tool's own pieces on planted inputs (scaling/study/):
 *  - a point's command, an argument vector, goes through the points file unchanged:
 *    spaces, quotes, `$(...)`, backslashes, newlines and empty arguments alike; a bad
 *    escape is refused;
 *  - point names stay inside the run folder (no '/', no leading dot), and a points
 *    file that names one otherwise is refused with its line;
 *  - a finished point's seal: a result emptied, changed, removed or replaced by a FIFO
 *    makes the point damaged (never "done"); an untouched one stays done. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "argv.h"
#include "check.h"
#include "points_file.h"

static char dir[256];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/rnnscale-study-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void remove_dir(void) { cr_assert_eq(nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0); }

TestSuite(study, .init = make_dir, .fini = remove_dir);

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

Test(study, argv_round_trip_keeps_every_argument_as_it_was)
{
    const char *words[] = {"rnn-train", "--corpus", "/data/a b/c'd\"e.txt", "$(touch pwned)", "", "x\\y",
                           "line1\nline2\r", "tab\there", "--lr", "0.5"};
    study_argv a = {0}, b = {0};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        sa_add(&a, "%s", words[i]);
    char *line = sa_encode(&a);
    cr_expect_null(strpbrk(line, "\n\r\t"), "an encoded line holds a raw newline or tab: %s", line);
    cr_assert_eq(sa_decode(line, &b), 0, "%s", rs_lasterr());
    cr_assert_eq(b.n, a.n);
    for (int i = 0; i < a.n; i++)
        cr_expect_str_eq(b.v[i], a.v[i], "argument %d", i);
    cr_expect_null(b.v[b.n]);
    free(line);
    sa_free(&a), sa_free(&b);
}

Test(study, a_bad_escape_is_refused)
{
    study_argv b = {0};
    cr_expect_eq(sa_decode("rnn-train --x a\\q", &b), -1);
    cr_expect(strstr(rs_lasterr(), "bad escape") != NULL, "%s", rs_lasterr());
    cr_expect_eq(sa_decode("rnn-train trailing\\", &b), -1);
    cr_expect_eq(sa_decode("a \\0x", &b), -1, "\\0 is only a whole (empty) argument");
}

Test(study, words_and_options_are_arguments_not_text)
{
    study_argv a = {0};
    sa_words(&a, "  --model lstm\t--hidden 16\n");
    sa_opt(&a, "--batch", "%ld", 80L);
    cr_assert_eq(a.n, 6);
    cr_expect_str_eq(a.v[1], "lstm");
    cr_expect_str_eq(a.v[4], "--batch");
    cr_expect_str_eq(a.v[5], "80");
    char *shown = sa_display(&a);
    cr_expect_str_eq(shown, "--model lstm --hidden 16 --batch 80");
    free(shown);
    sa_free(&a);
    sa_add(&a, "it's here");
    shown = sa_display(&a);
    cr_expect_str_eq(shown, "'it'\\''s here'", "quoted for a shell reader");
    free(shown);
    sa_free(&a);
}

Test(study, point_names_stay_inside_the_run_folder)
{
    cr_expect(pf_name_ok("b4-n16-momentum-lr0.5-w0"));
    cr_expect(pf_name_ok("check-n4-hier"));
    cr_expect_not(pf_name_ok("../evil"));
    cr_expect_not(pf_name_ok("a/b"));
    cr_expect_not(pf_name_ok(".hidden"));
    cr_expect_not(pf_name_ok(""));
    cr_expect_not(pf_name_ok("a b"));
    char path[400];
    snprintf(path, sizeof path, "%s/points.txt", dir);
    write_file(path, "# a comment\ngood 1 0 true\nx/../../evil 1 0 true\n");
    pf_points pts;
    cr_expect_eq(pf_read(path, &pts), -1);
    cr_expect(strstr(rs_lasterr(), "point 2") && strstr(rs_lasterr(), "inside the run folder"), "%s",
              rs_lasterr());
    write_file(path, "one 1 0 sh -c echo\\shi\nwhy 0 x a reason, words\n");
    cr_assert_eq(pf_read(path, &pts), 0, "%s", rs_lasterr());
    cr_assert_eq(pts.n, 2);
    cr_expect_eq(pts.p[0].argv.n, 3);
    cr_expect_str_eq(pts.p[0].argv.v[2], "echo hi");
    cr_expect_eq(pts.p[1].argv.n, 0, "an infeasible point has a reason, not a command");
    pf_free(&pts);
}

/* A done point (rc 0) with two result files, sealed. */
static void done_point(const char *name, char *pdir, size_t len)
{
    char path[600];
    snprintf(path, sizeof path, "%s/points", dir);
    mkdir(path, 0777);
    snprintf(pdir, len, "%s/points/%s", dir, name);
    cr_assert_eq(mkdir(pdir, 0777), 0);
    snprintf(path, sizeof path, "%s/summary.csv", pdir);
    write_file(path, "valid_ppl\n123.4\n");
    snprintf(path, sizeof path, "%s/stdout.txt", pdir);
    write_file(path, "trained\n");
    snprintf(path, sizeof path, "%s/rc", pdir);
    write_file(path, "0\n");
    cr_assert_eq(pf_seal(pdir), 0, "%s", rs_lasterr());
}

Test(study, a_damaged_result_is_never_read_as_done)
{
    pf_point p = {.ok = "0"};
    char pdir[500], path[600];
    snprintf(p.name, sizeof p.name, "p1");
    done_point("p1", pdir, sizeof pdir);
    cr_expect_eq(pf_state_of(dir, &p), PF_DONE, "%s", rs_lasterr());
    snprintf(path, sizeof path, "%s/summary.csv", pdir);
    write_file(path, "");   /* emptied */
    cr_expect_eq(pf_state_of(dir, &p), PF_DAMAGED);
    cr_expect(strstr(rs_lasterr(), "summary.csv changed"), "%s", rs_lasterr());
    cr_expect_eq(pf_state_quick(dir, &p), PF_DONE, "rc alone still says done: the seal is what tells");
    write_file(path, "valid_ppl\n123.5\n");   /* same size, other bytes */
    cr_expect_eq(pf_state_of(dir, &p), PF_DAMAGED);
    write_file(path, "valid_ppl\n123.4\n");   /* as it was */
    cr_expect_eq(pf_state_of(dir, &p), PF_DONE, "%s", rs_lasterr());
    unlink(path);
    cr_expect_eq(pf_state_of(dir, &p), PF_DAMAGED);
    cr_assert_eq(mkfifo(path, 0600), 0);   /* a FIFO in its place: refused, not waited on */
    cr_expect_eq(pf_state_of(dir, &p), PF_DAMAGED);
    snprintf(path, sizeof path, "%s/result", pdir);
    write_file(path, "");   /* the seal itself emptied */
    cr_expect_eq(pf_state_of(dir, &p), PF_DAMAGED);
}

Test(study, a_point_from_before_seals_counts_as_done_and_failed_stays_failed)
{
    pf_point p = {.ok = "0,1"};
    char pdir[500], path[600];
    snprintf(p.name, sizeof p.name, "old");
    done_point("old", pdir, sizeof pdir);
    snprintf(path, sizeof path, "%s/result", pdir);
    unlink(path);
    cr_expect_eq(pf_state_of(dir, &p), PF_DONE);
    snprintf(path, sizeof path, "%s/rc", pdir);
    write_file(path, "3\n");
    cr_expect_eq(pf_state_of(dir, &p), PF_FAILED);
    snprintf(p.name, sizeof p.name, "never");
    cr_expect_eq(pf_state_of(dir, &p), PF_PENDING);
}
