/* study_lib.c — what the studies share: settings' values, points, their files, the
 * rnn-train check, moving old results aside, the report's sections (study_def.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fsio.h"
#include "proc.h"
#include "meta.h"
#include "cpu.h"
#include "json.h"
#include "points_file.h"
#include "opts.h"
#include "study.h"
#include "study_def.h"

const char *study_root(void)
{
    static char root[4096];
    if (root[0])
        return root;
    ssize_t n = readlink("/proc/self/exe", root, sizeof root - 1);
    root[n > 0 ? n : 0] = 0;
    size_t l = strlen(root);
    if (l > 16 && strcmp(root + l - 16, "/build/bin/study") == 0)
        root[l - 16] = 0;
    else
        snprintf(root, sizeof root, ".");
    return root;
}

const char *study_self(void)
{
    static char self[4200];
    if (!self[0])
        snprintf(self, sizeof self, "%s/build/bin/study", study_root());
    return self;
}

int study_runnable(const char *prog)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0;
    char path[8192], *save;
    snprintf(path, sizeof path, "%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    for (char *d = strtok_r(path, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char f[8400];
        snprintf(f, sizeof f, "%s/%s", d, prog);
        if (access(f, X_OK) == 0)
            return 1;
    }
    return 0;
}

void study_program(char *path, size_t len, const char *var, const char *file)
{
    const char *e = getenv(var);
    if (e && *e)
        snprintf(path, len, "%s", e);
    else
        snprintf(path, len, "%s/%s", study_root(), file);
}

const char *study_value(const study_run *r, const char *name)
{
    for (int i = 0; i < r->def->nsettings; i++)
        if (strcmp(r->def->settings[i].name, name) == 0)
            return r->value[i];
    RS_ASSERT(!"a study asked for a setting it does not declare");
    return "";
}

void study_set_value(study_run *r, const char *name, const char *value)
{
    int i = 0;
    while (i < r->def->nsettings && strcmp(r->def->settings[i].name, name) != 0)
        i++;
    RS_ASSERT(i < r->def->nsettings);
    free((char *)r->value[i]);
    r->value[i] = strdup(value);
    RS_ASSERT(r->value[i] != NULL);
}

int study_add(study_run *r, const char *name, double weight, const char *ok, study_argv *cmd)
{
    char line[65536], have[256];
    int rc = 0;
    FILE *f = NULL;
    if (!pf_name_ok(name)) {
        rs_seterr("the point name '%.80s' is not letters, digits and . _ + -", name);
        rc = -1;
    }
    if (rc == 0 && (f = rs_fopen_read(r->points)))
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "%255s", have) == 1 && strcmp(have, name) == 0) {
                fclose(f);
                sa_free(cmd);
                return 0;
            }
    if (f)
        fclose(f);
    char *words = NULL;
    if (rc == 0 && strcmp(ok, "x") == 0) {   /* a reason: words one space apart, on one line */
        size_t len = 1;
        for (int i = 0; i < cmd->n; i++)
            len += strlen(cmd->v[i]) + 1;
        words = calloc(1, len);
        RS_ASSERT(words != NULL);
        for (int i = 0; i < cmd->n; i++) {
            strcat(words, i ? " " : "");
            strcat(words, cmd->v[i]);
        }
        for (char *c = words; *c; c++)
            if (*c == '\n' || *c == '\r')
                *c = ' ';
    } else if (rc == 0)
        words = sa_encode(cmd);
    sa_free(cmd);
    if (rc)
        return rc;
    f = fopen(r->points, "a");
    if (!f)
        free(words);
    RS_CHECK(f, "cannot write %s: %s", r->points, strerror(errno));
    fprintf(f, "%s %.15g %s %s\n", name, weight, ok, words);   /* 6776000, not 6.776e+06 */
    free(words);
    RS_CHECK(fclose(f) == 0, "cannot write %s: %s", r->points, strerror(errno));
    r->added++;
    return 0;
}

int study_point_state(const study_run *r, const char *name)
{
    char path[8192], rc[32] = "", why[1024];
    snprintf(path, sizeof path, "%s/points/%.255s/rc", r->work, name);
    FILE *f = rs_fopen_read(path);
    if (!f)
        return 0;
    if (!fgets(rc, sizeof rc, f))
        rc[0] = 0;
    fclose(f);
    if (atoi(rc) == 0 && rc[0] == '0')
        return 1;
    snprintf(path, sizeof path, "%s/points/%.255s/stderr.txt", r->work, name);
    study_last_line(path, why, sizeof why);
    rs_seterr("the point %s failed%s%s (logs: %s/points/%.255s/); nothing more to run", name,
              why[0] ? ": " : "", why, r->work, name);
    return -1;
}

rs_table *study_point_csv(const study_run *r, const char *name, const char *file)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/points/%.255s/%s", r->work, name, file);
    return access(path, R_OK) == 0 ? rs_table_read_csv(path) : NULL;
}

const char *study_cell(const rs_table *t, const char *col, char *buf, size_t len)
{
    return study_cell_at(t, t ? rs_table_nrows(t) - 1 : -1, col, buf, len);
}

const char *study_cell_at(const rs_table *t, int row, const char *col, char *buf, size_t len)
{
    int c = t ? rs_table_col_index(t, col) : -1;
    buf[0] = 0;
    if (c >= 0 && row >= 0 && row < rs_table_nrows(t))
        rs_cell_text(t, row, c, buf, len);
    return buf;
}

double study_point_number(const char *dir, const char *file)
{
    char path[4200], text[64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = rs_fopen_read(path);
    double s = f && fgets(text, sizeof text, f) ? atof(text) : 0;
    if (f)
        fclose(f);
    return s;
}

int study_point_says(const char *dir, const char *name, const char *word)
{
    char path[8192], line[4096];
    snprintf(path, sizeof path, "%s/points/%.255s/stderr.txt", dir, name);
    FILE *f = rs_fopen_read(path);
    int said = 0;
    while (f && !said && fgets(line, sizeof line, f))
        said = strstr(line, word) != NULL;
    if (f)
        fclose(f);
    return said;
}

void study_meta_std(rs_table *t, const char *command)
{
    char now[64];
    rs_table_meta(t, "command", command);
    rs_utc_now(now, sizeof now);
    rs_table_meta(t, "date_utc", now);
    rs_table_meta(t, "commit", rs_build_commit());
}

int study_train_check(const char *what, const char *args)
{
    char copy[4096], *argv[256];
    int n = 0;
    snprintf(copy, sizeof copy, "%s", args);
    char rnn[4200];
    snprintf(rnn, sizeof rnn, "%s/build/bin/rnn-train", study_root());
    argv[n++] = rnn;
    argv[n++] = "--check-args";
    for (char *tok = strtok(copy, " \t"); tok && n < 255; tok = strtok(NULL, " \t"))
        argv[n++] = tok;
    argv[n] = NULL;
    int fd[2];
    RS_CHECK(pipe(fd) == 0, "cannot run rnn-train --check-args: %s", strerror(errno));
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        proc_child_setup(parent);
        dup2(fd[1], 2);
        close(fd[0]);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execv(argv[0], argv);
        fprintf(stderr, "rnn-train: cannot run %s: %s (run make)\n", argv[0], strerror(errno));
        _exit(2);
    }
    close(fd[1]);
    char why[1024] = "";
    FILE *f = fdopen(fd[0], "r");
    if (f && !fgets(why, sizeof why, f))
        why[0] = 0;
    while (f && fgetc(f) != EOF) {
    }
    if (f)
        fclose(f);
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    why[strcspn(why, "\n")] = 0;
    const char *w = strncmp(why, "rnn-train: ", 11) == 0 ? why + 11 : why;
    rs_seterr("%s: rnn-train says: %s", what, w);
    return -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

void study_remove_tree(const char *path)
{
    nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int study_keep_aside(const study_run *r, const char *path)
{
    char from[2600], to[2800], dir[2700];
    snprintf(from, sizeof from, "%s/%s", r->dir, path);
    if (access(from, F_OK) != 0)
        return 0;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    for (int k = 1;; k++) {
        snprintf(dir, sizeof dir, "%s/old-%d", r->dir, k);
        snprintf(to, sizeof to, "%s/%s", dir, base);
        if (access(to, F_OK) != 0)
            break;
    }
    RS_CHECK(rs_mkdir_p(dir) == 0 && rename(from, to) == 0, "cannot move %s aside to %s: %s", from,
             to, strerror(errno));
    return 0;
}

void study_put_section(FILE *out, const char *name, const char *md)
{
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    FILE *m = rs_fopen_read(md);
    for (; m; len += n) {
        if (len + 8192 > cap && !(buf = realloc(buf, cap = 2 * cap + 8192)))
            RS_ASSERT(!"out of memory");
        if ((n = fread(buf + len, 1, 8192, m)) == 0)
            break;
    }
    if (m)
        fclose(m);
    while (len > 0 && buf[len - 1] == '\n')
        len--;
    fprintf(out, "<!-- %s -->\n", name);
    if (len)
        fwrite(buf, 1, len, out);
    fprintf(out, "\n<!-- /%s -->\n", name);
    free(buf);
}

/* Copies the report with the NAME section replaced where it stands (so the sections
 * keep their order whichever study is collected last), or added at the end after a
 * blank line (a[3] non-NULL: at the start, a blank line after it). */
static int section_writer(FILE *out, void *ctx)
{
    const char **a = ctx;   /* report, name, md, first */
    char line[8192], begin[128], end[128];
    snprintf(begin, sizeof begin, "<!-- %s -->\n", a[1]);
    snprintf(end, sizeof end, "<!-- /%s -->\n", a[1]);
    FILE *f = rs_fopen_read(a[0]);
    int skip = 0, put = 0;
    while (f && a[3] && fgets(line, sizeof line, f))   /* is it there already? */
        put |= strcmp(line, begin) == 0;
    if (f && a[3])
        rewind(f);
    if (a[3] && !put) {
        study_put_section(out, a[1], a[2]);
        fputs("\n", out);
    }
    put = a[3] && !put;
    while (f && fgets(line, sizeof line, f)) {
        if (strcmp(line, begin) == 0 && !put) {
            study_put_section(out, a[1], a[2]);
            skip = put = 1;
        }
        if (!skip)
            fputs(line, out);
        if (strcmp(line, end) == 0)
            skip = 0;
    }
    if (f)
        fclose(f);
    if (!put) {
        fputs("\n", out);
        study_put_section(out, a[1], a[2]);
    }
    return ferror(out) ? -1 : 0;
}

static int report_section(const study_run *r, const char *name, const char *md_file, int first)
{
    char report[2600], tmp[2700], md[2600];
    snprintf(report, sizeof report, "%s/scaling_report.md", r->dir);
    snprintf(md, sizeof md, "%s/%s", r->dir, md_file);
    snprintf(tmp, sizeof tmp, "%s.section", report);
    const char *a[4] = {report, name, md, first ? "first" : NULL};
    unlink(tmp);
    RS_CHECK(rs_write_atomic(tmp, section_writer, a) == 0 && rename(tmp, report) == 0,
             "cannot write %s: %s", report, rs_lasterr());
    return 0;
}

int study_report_section(const study_run *r, const char *name, const char *md_file)
{
    return report_section(r, name, md_file, 0);
}

int study_report_first(const study_run *r, const char *name, const char *md_file)
{
    return report_section(r, name, md_file, 1);
}

void study_last_line(const char *path, char *buf, size_t len)
{
    char line[4096];
    FILE *f = rs_fopen_read(path);
    buf[0] = 0;
    while (f && fgets(line, sizeof line, f))
        if (line[0] != '\n')
            snprintf(buf, len, "%s", line);
    if (f)
        fclose(f);
    buf[strcspn(buf, "\n")] = 0;
}

int study_train_sim_cmd(study_argv *c)
{
    char root[4096];
    RS_CHECK(realpath(study_root(), root), "cannot resolve the repository's path %s", study_root());
    sa_words(c, "env -C");
    sa_add(c, "%s", root);
    sa_add(c, "%s", study_self());
    sa_add(c, "train-sim");
    return 0;
}

int study_point_failed(const study_run *r, const char *name)
{
    if (study_point_state(r, name) < 0)
        return 1;   /* its message says why */
    char path[2600], why[1024];
    snprintf(path, sizeof path, "%s/points/%s/stderr.txt", r->work, name);
    study_last_line(path, why, sizeof why);
    rs_seterr("the point %s failed%s%s (logs: %s/points/%s/); nothing more to run", name, why[0] ? ": " : "",
              why, r->work, name);
    return 1;
}

int study_gemm_plan(const study_run *r, const char *prefix, long batch, char *buf, size_t len)
{
    char name[96], path[2600];
    snprintf(name, sizeof name, "%sgemm-b%ld", prefix, batch);
    snprintf(path, sizeof path, "%s/points/%s/summary.json", r->work, name);
    rs_json *j = study_point_state(r, name) > 0 ? rs_json_load(path) : NULL;
    const rs_json *p = j ? rs_json_path(j, "meta.gemm_plan") : NULL;
    int ok = p && p->type == RS_JSTR && p->str[0];
    if (ok)
        snprintf(buf, len, "%s", p->str);
    rs_json_free(j);
    return ok ? 0 : study_point_failed(r, name);
}

int study_stages(study_run *r, int *at, int done, int (*stage)(study_run *r, void *state), void *state)
{
    int first = *at == 0;
    while (*at != done) {
        int rc = stage(r, state);
        if (rc != 0 || r->added > 0 || first)
            return rc;
    }
    return 0;
}

long study_ckpt_every(long steps)
{
    return steps / 50 > 1 ? steps / 50 : 1;
}

int study_cmd_on_run(int argc, char **argv, const rs_opt *opts, int nopts, const char *usage,
                     const char *name, int (*run)(const char *dir))
{
    char *pos[1];
    int npos = 1, rc = rs_opts_parse(argc, argv, opts, nopts, usage, pos, &npos);
    if (rc == 1)
        return 0;
    if (rc == 0 && npos != 1) {
        rs_seterr("expected the run folder RUN (study %s --help)", name);
        rc = -1;
    }
    char doing[64];
    snprintf(doing, sizeof doing, "study %s", name);
    if (rc == 0 && access(pos[0], F_OK) == 0)
        rc = study_hold(pos[0], doing);
    if (rc == 0)
        rc = run(pos[0]);
    if (rc != 0) {
        fprintf(stderr, "study %s: %s\n", name, rs_lasterr());
        return 2;
    }
    return 0;
}
