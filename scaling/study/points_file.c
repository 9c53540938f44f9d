/* points_file.c — reading a study's points file, a point's state and its seal
 * (points_file.h). */
#define _GNU_SOURCE
#include "points_file.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fsio.h"

int pf_name_ok(const char *name)
{
    return name[0] && name[0] != '.' && strlen(name) < 256 &&
           name[strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")] == 0;
}

/* 1 if `ok` is "x" or comma-separated non-negative integers. */
static int ok_codes(const char *ok)
{
    if (strcmp(ok, "x") == 0)
        return 1;
    for (const char *s = ok; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s == ',' && s > ok && s[1] && s[1] != ',')))
            return 0;
    return *ok != 0;
}

int pf_read(const char *path, pf_points *out)
{
    FILE *f = rs_fopen_read(path);
    RS_CHECK(f, "points file: %s", rs_lasterr());
    out->p = NULL;
    out->n = 0;
    char *line = NULL;
    size_t cap = 0;
    int k = 0, rc = 0;
    ssize_t got;
    while (rc == 0 && (got = getline(&line, &cap, f)) > 0) {
        if ((ssize_t)strlen(line) != got) {
            rs_seterr("%s: line %d holds a NUL byte (a damaged points file)", path, k + 1);
            rc = -1;
            break;
        }
        line[strcspn(line, "\n")] = 0;
        char *s = line + strspn(line, " \t");
        if (!*s || *s == '#')
            continue;
        k++;
        pf_point p = {0};
        char weight[64] = "";
        int used = 0;
        char *end;
        if (sscanf(s, "%255s %63s %63s %n", p.name, weight, p.ok, &used) < 3 || !s[used] ||
            !ok_codes(p.ok) || (p.weight = strtod(weight, &end), *end) || !(p.weight >= 0 && p.weight < 1e300)) {
            rs_seterr("%s: point %d: %.80s: expected NAME WEIGHT OK COMMAND...", path, k, s);
            rc = -1;
            break;
        }
        if (!pf_name_ok(p.name)) {
            rs_seterr("%s: point %d: the name '%.80s' is not letters, digits and . _ + - (a point's "
                      "folder stays inside the run folder)", path, k, p.name);
            rc = -1;
            break;
        }
        int bad_escape = strcmp(p.ok, "x") != 0 && sa_decode(s + used, &p.argv) != 0;
        if (bad_escape || (strcmp(p.ok, "x") != 0 && p.argv.n == 0)) {
            rs_seterr("%s: point %s: %s", path, p.name, bad_escape ? rs_lasterr() : "no command");
            sa_free(&p.argv);
            rc = -1;
            break;
        }
        for (int i = 0; i < out->n && rc == 0; i++)
            if (strcmp(out->p[i].name, p.name) == 0) {
                rs_seterr("%s: the point name '%s' is used twice", path, p.name);
                rc = -1;
            }
        if (rc)
            break;
        p.command = strdup(s + used);
        out->p = realloc(out->p, sizeof *out->p * (size_t)(out->n + 1));
        RS_ASSERT(out->p && p.command);
        out->p[out->n++] = p;
    }
    free(line);
    fclose(f);
    if (rc)
        pf_free(out);
    return rc;
}

void pf_free(pf_points *pts)
{
    for (int i = 0; i < pts->n; i++)
        free(pts->p[i].command), sa_free(&pts->p[i].argv);
    free(pts->p);
    pts->p = NULL;
    pts->n = 0;
}

const pf_point *pf_find(const pf_points *pts, const char *key)
{
    for (int i = 0; i < pts->n; i++)
        if (strcmp(pts->p[i].name, key) == 0)
            return &pts->p[i];
    char *end;
    long k = strtol(key, &end, 10);
    return *key && !*end && k >= 1 && k <= pts->n ? &pts->p[k - 1] : NULL;
}

pf_state pf_state_quick(const char *run, const pf_point *p)
{
    if (strcmp(p->ok, "x") == 0)
        return PF_INFEASIBLE;
    char path[4096], rc[32];
    snprintf(path, sizeof path, "%s/points/%s/rc", run, p->name);
    FILE *f = rs_fopen_read(path);
    if (!f)
        return PF_PENDING;
    int got = fgets(rc, sizeof rc, f) != NULL;
    fclose(f);
    rc[strcspn(rc, "\n")] = 0;
    if (!got)
        return PF_FAILED;
    char ok[64], *save;
    snprintf(ok, sizeof ok, "%s", p->ok);
    for (char *c = strtok_r(ok, ",", &save); c; c = strtok_r(NULL, ",", &save))
        if (strcmp(c, rc) == 0)
            return PF_DONE;
    return PF_FAILED;
}

/* 0 when the sealed point in dir ran p's command (its cmd file ends with it: LAUNCH's
 * words may come first); -1 (rs_lasterr) when it ran another, which is not this plan's
 * result (a plan made again after its settings were lost).  A point from before seals
 * is taken as it is. */
static int ran_this(const char *dir, const pf_point *p)
{
    char path[4200], cmd[65536];
    snprintf(path, sizeof path, "%s/result", dir);
    if (access(path, F_OK) != 0 || !p->argv.n)
        return 0;
    snprintf(path, sizeof path, "%s/cmd", dir);
    FILE *f = rs_fopen_read(path);
    size_t n = f ? fread(cmd, 1, sizeof cmd - 1, f) : 0;
    if (f)
        fclose(f);
    cmd[n] = 0;
    if (n > 0 && cmd[n - 1] == '\n')   /* write_text's; a newline inside is an argument's */
        cmd[n - 1] = 0;
    char *want = sa_display(&p->argv);
    size_t c = strlen(cmd), w = strlen(want);
    int same = c >= w && strcmp(cmd + c - w, want) == 0 && (c == w || cmd[c - w - 1] == ' ');
    free(want);
    RS_CHECK(same, "%s ran another command than the plan's (its settings changed?)", dir);
    return 0;
}

pf_state pf_state_of(const char *run, const pf_point *p)
{
    pf_state s = pf_state_quick(run, p);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/points/%s", run, p->name);
    return s == PF_DONE && (pf_check_seal(dir) != 0 || ran_this(dir, p) != 0) ? PF_DAMAGED : s;
}

/* ---- the seal: size and FNV-1a 64 of every file a finished point left ---- */

/* The folder's own bookkeeping, written after the seal or rewritten by a resume. */
static int unsealed(const char *n)
{
    return n[0] == '.' || strcmp(n, "result") == 0 || strcmp(n, "result.tmp") == 0;
}

static int hash_file(const char *path, long long *size, uint64_t *h)
{
    FILE *f = rs_fopen_read(path);
    if (!f)
        return -1;
    unsigned char buf[65536];
    size_t n;
    *h = 1469598103934665603ULL;
    *size = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        for (size_t i = 0; i < n; i++)
            *h = (*h ^ buf[i]) * 1099511628211ULL;
        *size += (long long)n;
    }
    int bad = ferror(f);
    fclose(f);
    return bad ? -1 : 0;
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

void pf_mark_sealed(const char *run)
{
    char dir[4200], mark[4300];
    snprintf(dir, sizeof dir, "%s/points", run);
    if (access(dir, F_OK) == 0 || rs_mkdir_p(dir) != 0)
        return;   /* a folder from before seals stays as it was */
    snprintf(mark, sizeof mark, "%s/.sealed", dir);
    FILE *f = fopen(mark, "w");
    if (f) {
        fputs("every finished point in this folder is sealed (its result file)\n", f);
        fclose(f);
    }
}

int pf_seal(const char *dir)
{
    struct dirent **e;
    int n = scandir(dir, &e, NULL, by_name), rc = 0;
    RS_CHECK(n >= 0, "cannot list %s: %s", dir, strerror(errno));
    char tmp[4400], path[4400];
    snprintf(tmp, sizeof tmp, "%s/result.tmp", dir);
    FILE *out = fopen(tmp, "w");
    for (int i = 0; i < n; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e[i]->d_name);
        long long size;
        uint64_t h;
        if (out && !rc && !unsealed(e[i]->d_name) && lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (hash_file(path, &size, &h) != 0)
                rc = -1;
            else
                fprintf(out, "%lld %016" PRIx64 " %s\n", size, h, e[i]->d_name);
        }
        free(e[i]);
    }
    free(e);
    int ok = out && fclose(out) == 0 && rc == 0;
    snprintf(path, sizeof path, "%s/result", dir);
    RS_CHECK(ok && rename(tmp, path) == 0, "cannot seal %s: %s", dir, strerror(errno));
    return 0;
}

int pf_check_seal(const char *dir)
{
    char path[4400], line[512], name[300];
    snprintf(path, sizeof path, "%s/result", dir);
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT) {
        /* from before seals, unless its folder was made sealed (pf_mark_sealed) */
        char mark[4400];
        snprintf(mark, sizeof mark, "%s/../.sealed", dir);
        RS_CHECK(access(mark, F_OK) != 0, "%s/result, the finished point's seal, is gone", dir);
        return 0;
    }
    FILE *f = rs_fopen_read(path);
    RS_CHECK(f, "%s/result cannot be read: %s", dir, rs_lasterr());
    int rc = 0, lines = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        long long want, size;
        uint64_t wh, h;
        lines++;
        if (sscanf(line, "%lld %" SCNx64 " %299s", &want, &wh, name) != 3 || !pf_name_ok(name)) {
            rs_seterr("%s/result: a malformed line '%.60s'", dir, line);
            rc = -1;
            break;
        }
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (hash_file(path, &size, &h) != 0) {
            rs_seterr("%s/%s, written by the finished point, is gone or unreadable", dir, name);
            rc = -1;
        } else if (size != want || h != wh) {
            rs_seterr("%s/%s changed after the point finished (%lld bytes, sealed at %lld)", dir, name, size, want);
            rc = -1;
        }
    }
    fclose(f);
    RS_CHECK(rc == 0, "%s", rs_lasterr());
    RS_CHECK(lines > 0, "%s/result is empty (damaged)", dir);
    return 0;
}
