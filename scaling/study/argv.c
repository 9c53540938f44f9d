/* argv.c — a point's command as an argument vector and its escaped line (argv.h). */
#define _GNU_SOURCE
#include "argv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void push(study_argv *a, char *s)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? 2 * a->cap : 16;
        a->v = realloc(a->v, sizeof *a->v * (size_t)a->cap);
        RS_ASSERT(a->v != NULL);
    }
    RS_ASSERT(s != NULL);
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
}

void sa_add(study_argv *a, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    RS_ASSERT(n >= 0);
    push(a, s);
}

void sa_opt(study_argv *a, const char *flag, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    RS_ASSERT(n >= 0);
    push(a, strdup(flag));
    push(a, s);
}

void sa_words(study_argv *a, const char *text)
{
    const char *p = text;
    for (;;) {
        p += strspn(p, " \t\n");
        size_t l = strcspn(p, " \t\n");
        if (!l)
            return;
        push(a, strndup(p, l));
        p += l;
    }
}

void sa_cat(study_argv *a, const study_argv *b)
{
    for (int i = 0; i < b->n; i++)
        push(a, strdup(b->v[i]));
}

void sa_free(study_argv *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    *a = (study_argv){0};
}

char *sa_encode(const study_argv *a)
{
    size_t len = 1;
    for (int i = 0; i < a->n; i++)
        len += 2 * strlen(a->v[i]) + 3;
    char *out = malloc(len), *o = out;
    RS_ASSERT(out != NULL);
    for (int i = 0; i < a->n; i++) {
        if (i)
            *o++ = ' ';
        if (!a->v[i][0]) {
            *o++ = '\\';
            *o++ = '0';
        }
        for (const char *s = a->v[i]; *s; s++) {
            const char *esc = *s == '\\' ? "\\\\" : *s == ' ' ? "\\s" : *s == '\t' ? "\\t"
                            : *s == '\n' ? "\\n" : *s == '\r' ? "\\r" : NULL;
            if (esc) {
                memcpy(o, esc, 2);
                o += 2;
            } else
                *o++ = *s;
        }
    }
    *o = 0;
    return out;
}

int sa_decode(const char *line, study_argv *out)
{
    *out = (study_argv){0};
    const char *p = line;
    while (*p) {
        p += strspn(p, " ");
        if (!*p)
            break;
        size_t l = strcspn(p, " ");
        char *w = malloc(l + 1), *o = w;
        RS_ASSERT(w != NULL);
        for (size_t i = 0; i < l; i++) {
            if (p[i] != '\\') {
                *o++ = p[i];
                continue;
            }
            const char *k = i + 1 < l ? strchr("\\stnr0", p[i + 1]) : NULL;
            if (!k || !p[i + 1] || (p[i + 1] == '0' && l != 2)) {
                free(w);
                sa_free(out);
                RS_CHECK(0, "a bad escape in the argument '%.*s' (expected \\\\ \\s \\t \\n \\r, or \\0 alone)",
                         (int)l, p);
            }
            if (p[i + 1] != '0')
                *o++ = "\\ \t\n\r"[k - "\\stnr0"];
            i++;
        }
        *o = 0;
        push(out, w);
        p += l;
    }
    return 0;
}

char *sa_display(const study_argv *a)
{
    size_t len = 1;
    for (int i = 0; i < a->n; i++)
        len += 4 * strlen(a->v[i]) + 3;
    char *out = malloc(len), *o = out;
    RS_ASSERT(out != NULL);
    for (int i = 0; i < a->n; i++) {
        const char *s = a->v[i];
        int plain = *s && s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                   "-_./,:=+@%")] == 0;
        if (i)
            *o++ = ' ';
        if (!plain)
            *o++ = '\'';
        for (; *s; s++)
            if (*s == '\'' && !plain) {
                memcpy(o, "'\\''", 4);
                o += 4;
            } else
                *o++ = *s;
        if (!plain)
            *o++ = '\'';
    }
    *o = 0;
    return out;
}
