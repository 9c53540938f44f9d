/* gemm_plan_text.c — an auto plan as a line of text and back (the record checkpoints and
 * summary.json's gemm_plan carry, which --gemm takes again), and its compact label for
 * the tables' gemm column (gemm_auto.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemm_auto.h"

int ga_plan_format(const ga_plan *p, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "auto:other=%s", p->fallback->name);
    for (int i = 0; i < p->nshapes && used < len; i++) {
        const ga_shape *s = &p->shape[i];
        used += (size_t)snprintf(buf + used, len - used, ";%ldx%ldx%ld:%c%c=%s", s->m, s->n, s->k,
                                 s->ta, s->tb, p->pick[i]->name);
    }
    RS_CHECK(used < len, "--gemm auto: the plan does not fit %zu characters", len);
    return 0;
}

int ga_plan_parse(const char *s, ga_plan *p)
{
    memset(p, 0, sizeof *p);
    char name[64];
    int used = 0;
    RS_CHECK(sscanf(s, "auto:other=%63[^;]%n", name, &used) == 1, "'%.40s' is not a --gemm auto plan", s);
    p->fallback = gemm_find(name);
    RS_CHECK(p->fallback, "unknown GEMM backend '%s'", name);
    for (s += used; *s;) {
        ga_shape *sh = &p->shape[p->nshapes];
        char ta, tb;
        RS_CHECK(p->nshapes < GA_MAX_SHAPES, "a --gemm auto plan with more than %d shapes", GA_MAX_SHAPES);
        RS_CHECK(sscanf(s, ";%ldx%ldx%ld:%c%c=%63[^;]%n", &sh->m, &sh->n, &sh->k, &ta, &tb, name, &used) == 6 &&
                  (ta == 'N' || ta == 'T') && (tb == 'N' || tb == 'T'),
              "malformed --gemm auto plan at '%.40s'", s);
        sh->ta = ta, sh->tb = tb;
        p->pick[p->nshapes] = gemm_find(name);
        RS_CHECK(p->pick[p->nshapes], "unknown GEMM backend '%s'", name);
        p->nshapes++;
        s += used;
    }
    return 0;
}

void ga_plan_label(const ga_plan *p, char *buf, size_t len)
{
    static const char *const roles[] = {"fwd", "bwd_in", "bwd_w", "colsum"};
    size_t used = (size_t)snprintf(buf, len, "auto:");
    for (int r = 0; r < RS_ARRAY_LEN(roles); r++) {
        /* the backend with the most of this role's work (calls x flops) */
        const gemm_backend *maj = NULL;
        double most = -1;
        for (int i = 0; i < p->nshapes; i++) {
            if (strcmp(p->shape[i].role, roles[r]) != 0)
                continue;
            double w = 0;
            for (int j = 0; j < p->nshapes; j++)
                if (p->pick[j] == p->pick[i] && strcmp(p->shape[j].role, roles[r]) == 0)
                    w += p->shape[j].calls * (double)p->shape[j].m * p->shape[j].n * p->shape[j].k;
            if (w > most)
                most = w, maj = p->pick[i];
        }
        if (!maj)
            continue;
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s=%s", roles[r], maj->name);
        int first = 1;
        for (int i = 0; i < p->nshapes; i++)
            if (strcmp(p->shape[i].role, roles[r]) == 0 && p->pick[i] != maj) {
                used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s=%s",
                                         first ? "(" : "+", p->shape[i].where, p->pick[i]->name);
                first = 0;
            }
        used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s,", first ? "" : ")");
    }
    if (used < len)
        snprintf(buf + used, len - used, "other=%s", p->fallback->name);
}
