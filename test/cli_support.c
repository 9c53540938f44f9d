/* cli_support.c — see cli_support.h. */
#include "cli_support.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int cli_run(const char *bin, const char *const *prefix, const char *const *args, char *err,
            size_t errlen)
{
    if (access(bin, X_OK) != 0)
        cr_skip_test("%s is not built (run `make` first)", bin);
    char *argv[64];
    int n = 0;
    argv[n++] = (char *)bin;
    for (int i = 0; prefix && prefix[i] && n < 62; i++)
        argv[n++] = (char *)prefix[i];
    for (int i = 0; args && args[i] && n < 63; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    char path[] = "/tmp/rnnscale-cli-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0, "mkstemp failed");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 2);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    cr_assert_eq(posix_spawn(&pid, bin, &fa, NULL, argv, environ), 0, "cannot run %s", bin);
    int st;
    waitpid(pid, &st, 0);
    memset(err, 0, errlen);
    lseek(fd, 0, SEEK_SET);
    ssize_t got = read(fd, err, errlen - 1);
    (void)got;
    close(fd);
    unlink(path);
    posix_spawn_file_actions_destroy(&fa);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int cli_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

void cli_expect_usage_error(const char *bin, const char *const *prefix, const char *const *args,
                            const char *fragment)
{
    char err[4096];
    int rc = cli_run(bin, prefix, args, err, sizeof err);
    cr_expect_eq(rc, 2, "exit %d for %s; stderr: %s", rc, args && args[0] ? args[0] : "", err);
    cr_expect_eq(cli_lines(err), 1, "want one line on stderr, got:\n%s", err);
    cr_expect(strstr(err, fragment), "stderr lacks '%s': %s", fragment, err);
}
