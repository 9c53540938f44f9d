/* test_cli.c — bad input to `microbench` gets exit code 2 and exactly one clear line
 * on stderr, loses nothing already written, and Ctrl-C gives 130 with no partial file.
 * Runs build/bin/microbench, so `make test` runs it from the repository root. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_support.h"

extern char **environ;
static const char *bin = "build/bin/microbench";
static char err[4096];

static int run(const char *const *args) { return cli_run(bin, NULL, args, err, sizeof err); }

static void expect_usage_error(const char *const *args, const char *fragment)
{
    cli_expect_usage_error(bin, NULL, args, fragment);
}

Test(cli, unknown_command) { expect_usage_error((const char *[]){"frobnicate", NULL}, "unknown command"); }
Test(cli, unknown_option) { expect_usage_error((const char *[]){"exp", "--frob", NULL}, "unknown option '--frob'"); }
Test(cli, unknown_variant) { expect_usage_error((const char *[]){"exp", "--variant", "polly", NULL}, "unknown variant 'polly'"); }
Test(cli, unknown_isa) { expect_usage_error((const char *[]){"exp", "--isa", "avx1024", NULL}, "unknown ISA 'avx1024'"); }
Test(cli, zero_size) { expect_usage_error((const char *[]){"exp", "--n", "0", NULL}, "--n: '0'"); }
Test(cli, negative_size) { expect_usage_error((const char *[]){"exp", "--n", "-4", NULL}, "--n: '-4'"); }
Test(cli, non_numeric_size) { expect_usage_error((const char *[]){"exp", "--n", "lots", NULL}, "--n: 'lots'"); }
Test(cli, size_too_large_for_memory) { expect_usage_error((const char *[]){"exp", "--n", "1000G", NULL}, "memory"); }
Test(cli, bad_threads) { expect_usage_error((const char *[]){"exp", "--threads", "0", NULL}, "--threads"); }
Test(cli, unwritable_folder) { expect_usage_error((const char *[]){"exp", "--csv", "/nonexistent-dir/exp.csv", NULL}, "does not exist"); }
Test(cli, missing_machine_file) { expect_usage_error((const char *[]){"exp", "--machine", "/nonexistent.json", NULL}, "/nonexistent.json"); }
Test(cli, peak_unknown_option) { expect_usage_error((const char *[]){"peak", "--frob", NULL}, "unknown option"); }

Test(cli, existing_result_is_kept)
{
    char path[] = "/tmp/rnnscale-keep-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(write(fd, "precious\n", 9) == 9);
    close(fd);
    expect_usage_error((const char *[]){"exp", "--variant", "libm", "--n", "1024", "--threads", "1",
                                        "--quick", "--csv", path, NULL},
                       "already exists");
    char buf[32] = {0};
    FILE *f = fopen(path, "r");
    cr_assert(fgets(buf, sizeof buf, f) != NULL);
    fclose(f);
    unlink(path);
    cr_assert_str_eq(buf, "precious\n");
}

Test(cli, help_exits_zero)
{
    cr_assert_eq(run((const char *[]){"exp", "--help", NULL}), 0);
    cr_assert_eq(run((const char *[]){"peak", "--help", NULL}), 0);
    cr_assert_eq(run((const char *[]){"--help", NULL}), 0);
}

Test(cli, interrupt_gives_130_and_no_partial_file)
{
    char dir[] = "/tmp/rnnscale-int-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char csv[300];
    snprintf(csv, sizeof csv, "%s/exp.csv", dir);
    char *argv[] = {(char *)bin, "exp", "--exhaustive", "--csv", csv, NULL};
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    cr_assert_eq(posix_spawn(&pid, bin, &fa, NULL, argv, environ), 0);
    usleep(700000);
    kill(pid, SIGINT);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 130, "status %d", st);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", dir);
    cr_assert_eq(system(cmd), 0, "the folder must stay empty");
    rmdir(dir);
    posix_spawn_file_actions_destroy(&fa);
}
