/* points_file.c — reading a study's points file and a point's state (points_file.h). */
#include "points_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

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
    FILE *f = fopen(path, "r");
    RS_CHECK(f, "no points file %s", path);
    out->p = NULL;
    out->n = 0;
    char *line = NULL;
    size_t cap = 0;
    int k = 0, rc = 0;
    while (rc == 0 && getline(&line, &cap, f) > 0) {
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
            !ok_codes(p.ok) || (p.weight = strtod(weight, &end), *end) || p.weight < 0) {
            rs_seterr("%s: point %d: %s: expected NAME WEIGHT OK COMMAND...", path, k, s);
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
        free(pts->p[i].command);
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

pf_state pf_state_of(const char *run, const pf_point *p)
{
    if (strcmp(p->ok, "x") == 0)
        return PF_INFEASIBLE;
    char path[4096], rc[32];
    snprintf(path, sizeof path, "%s/points/%s/rc", run, p->name);
    FILE *f = fopen(path, "r");
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
