/* fsio.c — atomic, never-overwriting result files and their stale temporaries; mkdir -p;
 * Ctrl-C handling.
 *
 * Why link() and not rename(): rename() replaces an existing target, link() fails
 * with EEXIST — so "refuse an existing result" is decided by the kernel, atomically,
 * even if two runs race for the same name. */
#define _GNU_SOURCE
#include "fsio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static volatile sig_atomic_t got_signal;
/* The temporary file being written, removed by the signal handler. */
static char tmp_in_flight[4096];
static volatile sig_atomic_t tmp_active;

static void put(const char *s)
{
    if (write(2, s, strlen(s)) < 0) {
        /* nothing more can be done in a handler */
    }
}

void rs_signal_exit(int sig, const char *what)
{
    if (tmp_active)
        unlink(tmp_in_flight);
    if (!what)
        _exit(RS_EXIT_FOR_SIGNAL(sig));
    put("\n");
    put(rs_progname());
    put(sig == SIGTERM ? ": interrupted by SIGTERM: " : ": interrupted by SIGINT: ");
    put(what);
    put("\n");
    _exit(RS_EXIT_FOR_SIGNAL(sig));
}

static void on_signal(int sig)
{
    got_signal = sig;
    rs_signal_exit(sig, "results already written are kept; no partial file was left");
}

void rs_install_signal_handler(void (*handler)(int))
{
    /* the handler runs on a stack of its own: JIT-compiled code (oneDNN's GEMM kernels)
     * may keep data below its stack pointer past the ABI's red zone, where a handler's
     * frame on the same stack would overwrite it */
    static char alt[64 * 1024];
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void rs_install_signal_handlers(void) { rs_install_signal_handler(on_signal); }

int rs_interrupted(void) { return got_signal != 0; }
int rs_interrupt_code(void) { return RS_EXIT_FOR_SIGNAL(got_signal); }

static void dir_of(const char *path, char *dir, size_t len)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    snprintf(dir, len, "%s", dirname(tmp));
}

static int check_only;
void rs_fsio_check_only(void) { check_only = 1; }

/* "HOST.PID" of this process, as its temporaries carry it ('/' in a host name as '_'). */
static void temp_owner(char *buf, size_t len)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0 || !*host)
        snprintf(host, sizeof host, "localhost");
    for (char *p = host; *p; p++)
        if (*p == '/')
            *p = '_';
    snprintf(buf, len, "%s.%ld", host, (long)getpid());
}

/* The pid of a temporary "BASE.tmp.HOST.PID.XXXXXX" of this host, or 0 (not one). */
static long temp_pid(const char *name, const char *base, const char *host)
{
    size_t nb = strlen(base), nh = strlen(host), n = strlen(name);
    if (n < nb + 5 + nh + 1 + 1 + 7 || strncmp(name, base, nb) != 0 ||
        strncmp(name + nb, ".tmp.", 5) != 0)
        return 0;
    const char *h = name + nb + 5, *end = name + n - 7;   /* end: ".XXXXXX" */
    if (*end != '.' || strncmp(h, host, nh) != 0 || h[nh] != '.')
        return 0;
    long pid = 0;
    for (const char *p = h + nh + 1; p < end; p++) {
        if (*p < '0' || *p > '9' || pid > INT_MAX / 10)
            return 0;
        pid = pid * 10 + (*p - '0');
    }
    return pid <= INT_MAX ? pid : 0;
}

int rs_remove_stale_temps(const char *path)
{
    char dir[4096], tmp[4096], owner[300], host[300];
    dir_of(path, dir, sizeof dir);
    snprintf(tmp, sizeof tmp, "%s", path);
    const char *base = basename(tmp);
    temp_owner(owner, sizeof owner);
    snprintf(host, sizeof host, "%.*s", (int)(strrchr(owner, '.') - owner), owner);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int removed = 0;
    char first[4400] = "";
    long first_pid = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid = temp_pid(e->d_name, base, host);
        /* a live pid (or one not ours to signal) may be writing it: kept */
        if (pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char p[4400];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && unlink(p) == 0 && removed++ == 0) {
            snprintf(first, sizeof first, "%s", p);
            first_pid = pid;
        }
    }
    closedir(d);
    if (removed)
        fprintf(stderr, "%s: removed stale temporary %s (left by pid %ld, a killed writer)%s\n",
                rs_progname(), first, first_pid, removed > 1 ? " and others like it" : "");
    return removed;
}

int rs_check_writable(const char *path)
{
    char dir[4096];
    struct stat st;
    RS_CHECK(path && *path, "empty output file name");
    RS_CHECK(lstat(path, &st) != 0, "%s already exists%s%s; results are never overwritten "
             "(choose a new name or remove it)", path, S_ISREG(st.st_mode) ? "" : " as ",
             S_ISREG(st.st_mode) ? "" : rs_file_kind(st.st_mode));
    dir_of(path, dir, sizeof dir);
    RS_CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode),
          "cannot write %s: folder %s does not exist (create it first)", path, dir);
    RS_CHECK(access(dir, W_OK) == 0, "cannot write %s: folder %s is not writable", path, dir);
    if (!check_only)
        rs_remove_stale_temps(path);
    return 0;
}

/* Write a temporary next to `path` (its name in tmpl, published to the signal handler)
 * through the writer, flushed and fsynced, with the given mode.  0, or -1 with the
 * temporary removed (rs_lasterr). */
static int write_temp(const char *path, char *tmpl, size_t cap, mode_t mode, rs_writer_fn writer,
                      void *ctx)
{
    char owner[300];
    temp_owner(owner, sizeof owner);   /* the next start can tell a killed writer's */
    int len = snprintf(tmpl, cap, "%s.tmp.%s.XXXXXX", path, owner);
    RS_CHECK(len > 0 && (size_t)len < cap, "path too long: %s", path);

    /* Block signals while the temporary's name is being published to the handler. */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    int fd = mkstemp(tmpl);
    if (fd >= 0) {
        memcpy(tmp_in_flight, tmpl, (size_t)len + 1);
        tmp_active = 1;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    RS_CHECK(fd >= 0, "cannot create a file next to %s: %s", path, strerror(errno));
    fchmod(fd, mode);

    FILE *f = fdopen(fd, "w");
    int ok = f != NULL;
    char why[512] = "write error";
    if (ok && writer(f, ctx) != 0) {
        ok = 0;
        snprintf(why, sizeof why, "%s", rs_lasterr());
    }
    if (ok && (fflush(f) != 0 || ferror(f) || fsync(fd) != 0)) {
        ok = 0;
        snprintf(why, sizeof why, "%s", strerror(errno));
    }
    if (f)
        fclose(f);
    else
        close(fd);
    if (!ok) {
        unlink(tmpl);
        tmp_active = 0;
    }
    RS_CHECK(ok, "cannot write %s: %s", path, why);
    return 0;
}

int rs_write_atomic(const char *path, rs_writer_fn writer, void *ctx)
{
    if (rs_check_writable(path) != 0)
        return -1;
    char tmpl[4096];
    if (write_temp(path, tmpl, sizeof tmpl, 0644, writer, ctx) != 0)
        return -1;
    int ok = link(tmpl, path) == 0;
    int err = errno;
    unlink(tmpl);
    tmp_active = 0;
    RS_CHECK(ok, "cannot write %s: %s", path, err == EEXIST ? "it appeared while writing; not replaced"
                                                         : strerror(err));
    return 0;
}

int rs_mkdir_p(const char *dir)
{
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "%s", dir);
    RS_CHECK(n > 0 && (size_t)n < sizeof buf, "path too long: %s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            RS_CHECK(0, "cannot create folder %s: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        RS_CHECK(0, "cannot create folder %s: %s", buf, strerror(errno));
    return 0;
}

const char *rs_file_kind(unsigned mode)
{
    return S_ISREG(mode)    ? "a regular file"
         : S_ISDIR(mode)    ? "a folder"
         : S_ISFIFO(mode)   ? "a FIFO"
         : S_ISSOCK(mode)   ? "a socket"
         : S_ISLNK(mode)    ? "a symbolic link"
         : S_ISCHR(mode) || S_ISBLK(mode) ? "a device"
                            : "not a file";
}

int rs_open_regular(const char *path, int flags, const char *what)
{
    struct stat st;
    memset(&st, 0, sizeof st);
    /* refused before opening: opening a FIFO blocks, a device may act on open */
    RS_CHECK(stat(path, &st) != 0 || S_ISREG(st.st_mode),
             "%s %s is %s, not a regular file (give a regular file)", what, path,
             rs_file_kind(st.st_mode));
    int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC);
    RS_CHECK(fd >= 0, "cannot read %s %s: %s", what, path, strerror(errno));
    /* the same check on what was opened: the name may have been replaced meanwhile */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        RS_CHECK(0, "%s %s is %s, not a regular file (give a regular file)", what,
                 path, rs_file_kind(st.st_mode));
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

FILE *rs_fopen_read(const char *path)
{
    int fd = rs_open_regular(path, O_RDONLY, "the file");
    if (fd < 0) {
        if (access(path, F_OK) == 0)
            errno = EINVAL;   /* there, but not a regular file: not "absent" */
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f)
        close(fd);
    return f;
}
