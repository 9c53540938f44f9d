/* test_record.c — result tables and their writers: CSV and JSON round trips, the
 * refusal to overwrite, and no partial file after a failure in the middle. */
#include <criterion/criterion.h>
#include <signal.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fsio.h"
#include "json.h"
#include "record.h"

static char dir[256];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/rnnscale-test-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

static int count_files(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static const rs_col cols[] = {
    {"variant", RS_STR, 0}, {"threads", RS_INT, 0}, {"ns_per_elem", RS_DBL, 4}, {"note", RS_STR, 0},
};

static rs_table *sample_table(void)
{
    rs_table *t = rs_table_new("exp", cols, 4);
    rs_table_meta(t, "command", "microbench exp --quick");
    int r = rs_table_row(t);
    rs_set_str(t, r, "variant", "poly");
    rs_set_int(t, r, "threads", 2);
    rs_set_dbl(t, r, "ns_per_elem", 0.123456789012345);
    rs_set_str(t, r, "note", "has, a comma and \"quotes\"");
    r = rs_table_row(t);
    rs_set_str(t, r, "variant", "libm");
    rs_set_int(t, r, "threads", 1);
    /* ns_per_elem left unset: empty in CSV, null in JSON */
    rs_set_str(t, r, "note", "plain");
    return t;
}

TestSuite(writers, .init = make_dir, .fini = remove_dir);

Test(writers, csv_round_trip)
{
    rs_table *t = sample_table();
    char path[300];
    snprintf(path, sizeof path, "%s/exp.csv", dir);
    cr_assert_eq(rs_table_write_csv(t, path), 0, "%s", rs_lasterr());
    rs_table *b = rs_table_read_csv(path);
    cr_assert_not_null(b, "%s", rs_lasterr());
    cr_assert_eq(rs_table_nrows(b), 2);
    cr_assert_eq(rs_table_ncols(b), 4);
    int v = rs_table_col_index(b, "variant"), ns = rs_table_col_index(b, "ns_per_elem"),
        note = rs_table_col_index(b, "note"), th = rs_table_col_index(b, "threads");
    cr_assert_str_eq(rs_cell_str(b, 0, v), "poly");
    cr_assert_str_eq(rs_cell_str(b, 0, note), "has, a comma and \"quotes\"");
    cr_assert_float_eq(rs_cell_dbl(b, 1, th), 1, 0);
    /* CSV keeps at least 6 significant digits */
    cr_assert_float_eq(rs_cell_dbl(b, 0, ns), 0.123457, 1e-6);
    cr_assert_eq(rs_cell_isset(b, 1, ns), 0, "an unset value stays unset");
    rs_table_free(b);
    rs_table_free(t);
}

Test(writers, csv_read_as_text)
{
    char path[300];
    snprintf(path, sizeof path, "%s/log.csv", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("step,seconds,b_simple,note\n2,6.630,1.2e+06,\"a, b\"\n4,7.000,,x\n", f);
    fclose(f);
    rs_table *t = rs_table_read_csv_text(path);
    cr_assert_not_null(t, "%s", rs_lasterr());
    cr_assert_eq(rs_table_nrows(t), 2);
    int s = rs_table_col_index(t, "seconds"), b = rs_table_col_index(t, "b_simple");
    cr_assert_eq(rs_table_col(t, s)->type, RS_STR, "every column stays text");
    cr_assert_str_eq(rs_cell_str(t, 0, s), "6.630", "a cell keeps the digits it had");
    cr_assert_str_eq(rs_cell_str(t, 0, b), "1.2e+06");
    cr_assert_str_eq(rs_cell_str(t, 0, rs_table_col_index(t, "note")), "a, b", "quoting still read");
    cr_assert_eq(rs_cell_isset(t, 1, b), 0, "an empty cell is unset");
    rs_table_free(t);
}

Test(writers, json_round_trip)
{
    rs_table *t = sample_table();
    char path[300];
    snprintf(path, sizeof path, "%s/exp.json", dir);
    cr_assert_eq(rs_table_write_json(t, path), 0, "%s", rs_lasterr());
    rs_json *j = rs_json_load(path);
    cr_assert_not_null(j, "%s", rs_lasterr());
    cr_assert_str_eq(rs_json_path(j, "study")->str, "exp");
    cr_assert_str_eq(rs_json_path(j, "meta.command")->str, "microbench exp --quick");
    const rs_json *rows = rs_json_path(j, "rows");
    cr_assert_eq(rows->n, 2);
    /* JSON keeps full precision */
    cr_assert_eq(rs_json_num(rows->items[0], "ns_per_elem", 0), 0.123456789012345);
    cr_assert_str_eq(rs_json_get(rows->items[0], "note")->str, "has, a comma and \"quotes\"");
    cr_assert_eq(rs_json_get(rows->items[1], "ns_per_elem")->type, RS_JNULL);
    rs_json_free(j);
    rs_table_free(t);
}

Test(writers, refuses_to_overwrite)
{
    rs_table *t = sample_table();
    char path[300];
    snprintf(path, sizeof path, "%s/exp.csv", dir);
    FILE *f = fopen(path, "w");
    fputs("precious\n", f);
    fclose(f);
    cr_assert_eq(rs_table_write_csv(t, path), -1);
    cr_assert(strstr(rs_lasterr(), "already exists"), "%s", rs_lasterr());
    char buf[64] = {0};
    f = fopen(path, "r");
    cr_assert_not_null(fgets(buf, sizeof buf, f));
    fclose(f);
    cr_assert_str_eq(buf, "precious\n", "the existing file is untouched");
    cr_assert_eq(count_files(), 1, "no temporary left behind");
    rs_table_free(t);
}

/* A writer that writes half its output, then fails: the injected failure. */
static int failing_writer(FILE *f, void *ctx)
{
    (void)ctx;
    fputs("variant,ns_per_elem\npoly,0.1", f);
    rs_seterr("injected failure");
    return -1;
}

Test(writers, no_partial_file_after_failure)
{
    char path[300];
    snprintf(path, sizeof path, "%s/partial.csv", dir);
    cr_assert_eq(rs_write_atomic(path, failing_writer, NULL), -1);
    cr_assert(strstr(rs_lasterr(), "injected failure"), "%s", rs_lasterr());
    struct stat st;
    cr_assert_neq(stat(path, &st), 0, "no target after a failed write");
    cr_assert_eq(count_files(), 0, "no temporary left behind");
}

Test(writers, unwritable_folder_is_a_clear_error)
{
    cr_assert_eq(rs_check_writable("/nonexistent-dir/x.csv"), -1);
    cr_assert(strstr(rs_lasterr(), "does not exist"), "%s", rs_lasterr());
}

static int csv_writer_ok(FILE *f, void *ctx)
{
    (void)ctx;
    return fputs("variant,ns_per_elem\npoly,0.1\n", f) < 0 ? -1 : 0;
}

static void touch(const char *name)
{
    char p[800];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs("half a table\n", f);
    fclose(f);
}

static int exists(const char *name)
{
    char p[800];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return lstat(p, &st) == 0;
}

/* rs_check_writable, with fd 2 sent to *err (its lines): 0 or -1. */
static int check_capturing(const char *path, char *err, size_t len)
{
    char ep[300];
    snprintf(ep, sizeof ep, "%s/.stderr", dir);
    fflush(stderr);
    int saved = dup(2), fd = open(ep, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    int rc = rs_check_writable(path);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen(ep, "r");
    size_t n = fread(err, 1, len - 1, f);
    err[n] = 0;
    fclose(f);
    unlink(ep);
    return rc;
}

/* A SIGKILLed writer's temporary (its host and pid in the name, the pid dead) is
 * removed at the next start with one note; a live pid's, another host's, a name
 * without a pid and another target's are kept. */
Test(writers, stale_temporaries_of_dead_writers_removed_live_ones_kept)
{
    char host[256] = "";
    cr_assert_eq(gethostname(host, sizeof host - 1), 0);
    for (char *p = host; *p; p++)
        if (*p == '/')
            *p = '_';
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    cr_assert(child > 0);
    cr_assert_eq(waitpid(child, NULL, 0), child);   /* reaped: the pid is dead */
    char dead[400], live[400], other_host[400], other_target[400], path[300];
    snprintf(dead, sizeof dead, "x.csv.tmp.%s.%ld.Ab12Cd", host, (long)child);
    snprintf(live, sizeof live, "x.csv.tmp.%s.%ld.Ef34Gh", host, (long)getpid());
    snprintf(other_host, sizeof other_host, "x.csv.tmp.%s-elsewhere.%ld.Ij56Kl", host,
             (long)child);
    snprintf(other_target, sizeof other_target, "y.csv.tmp.%s.%ld.Mn78Op", host, (long)child);
    const char *keep[] = {live, other_host, other_target, "x.csv.tmp.Qr90St", "x.csv.tmp"};
    touch(dead);
    for (int i = 0; i < 5; i++)
        touch(keep[i]);
    snprintf(path, sizeof path, "%s/x.csv", dir);
    char err[2000];
    cr_assert_eq(check_capturing(path, err, sizeof err), 0, "%s", rs_lasterr());
    cr_expect(!exists(dead), "the dead writer's temporary %s was kept", dead);
    for (int i = 0; i < 5; i++)
        cr_expect(exists(keep[i]), "%s was removed", keep[i]);
    char note[800];
    snprintf(note, sizeof note,
             "removed stale temporary %s/%s (left by pid %ld, a killed writer)\n", dir, dead,
             (long)child);
    cr_expect(strstr(err, note) && strchr(err, '\n') == err + strlen(err) - 1,
              "want one line with '%s', got: %s", note, err);
    /* nothing more to remove: no note; the result is written beside the kept ones */
    cr_assert_eq(check_capturing(path, err, sizeof err), 0);
    cr_expect_str_empty(err);
    cr_assert_eq(rs_write_atomic(path, csv_writer_ok, NULL), 0, "%s", rs_lasterr());
    cr_expect(exists("x.csv") && exists(live), "x.csv written, the live writer's kept");
    cr_expect_eq(count_files(), 6, "only x.csv was added");
}

Test(writers, table_printer_aligns_and_marks_unset)
{
    rs_table *t = sample_table();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(rs_table_print(t, f, "variant,threads,ns_per_elem"), 0);
    fclose(f);
    /* header + 2 rows, all lines the same width, unset shown as "-" */
    char *l1 = strtok(buf, "\n"), *l2 = strtok(NULL, "\n"), *l3 = strtok(NULL, "\n");
    cr_assert(l1 && l2 && l3);
    cr_assert_eq(strlen(l1), strlen(l2));
    cr_assert_eq(strlen(l2), strlen(l3));
    cr_assert(strstr(l3, " -"), "%s", l3);
    free(buf);
    rs_table_free(t);
}

/* The stop handler runs on a stack of its own (SA_ONSTACK on an installed alternate
 * stack): on the interrupted code's stack its frame overwrote what oneDNN's JIT GEMM
 * kept below the stack pointer, and a stopped run aborted with a corrupted heap. */
static void ignore_signal(int sig) { (void)sig; }
Test(record, stop_handler_on_its_own_stack)
{
    rs_install_signal_handler(ignore_signal);
    struct sigaction now;
    stack_t ss;
    cr_assert_eq(sigaction(SIGINT, NULL, &now), 0);
    cr_assert_eq(sigaltstack(NULL, &ss), 0);
    cr_expect(now.sa_flags & SA_ONSTACK, "SIGINT's handler is not on the alternate stack");
    cr_expect(!(ss.ss_flags & SS_DISABLE) && ss.ss_size >= 16384, "no alternate stack (flags %d, %zu bytes)",
              ss.ss_flags, ss.ss_size);
    cr_assert_eq(sigaction(SIGTERM, NULL, &now), 0);
    cr_expect(now.sa_flags & SA_ONSTACK, "SIGTERM's handler is not on the alternate stack");
    signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL);
}
