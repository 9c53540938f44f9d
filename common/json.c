/* json.c — a streaming JSON writer and a reader.  The reader is cJSON (Debian's
 * libcjson-dev, fuzzed upstream for years): standard JSON (RFC 8259) into a tree,
 * copied into rs_json.  The writer stays the project's own: it streams rows as a
 * study writes them, where cJSON would build the whole document first. */
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "fsio.h"

/* ================================ writer ================================ */

void rs_jw_init(rs_jw *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->first[0] = 1;
}

static void indent(rs_jw *w)
{
    fputc('\n', w->f);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->f);
}

/* Before any value or key: a comma unless first at this level, then a newline. */
static void pre(rs_jw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth > 0) {
        if (!w->first[w->depth])
            fputc(',', w->f);
        indent(w);
    }
    w->first[w->depth] = 0;
}

static void open(rs_jw *w, char c)
{
    pre(w);
    fputc(c, w->f);
    if (w->depth < 31)
        w->depth++;
    w->first[w->depth] = 1;
}

static void close_(rs_jw *w, char c)
{
    int empty = w->first[w->depth];
    w->depth--;
    if (!empty)
        indent(w);
    fputc(c, w->f);
    if (w->depth == 0)
        fputc('\n', w->f);
}

void rs_jw_obj_begin(rs_jw *w) { open(w, '{'); }
void rs_jw_obj_end(rs_jw *w) { close_(w, '}'); }
void rs_jw_arr_begin(rs_jw *w) { open(w, '['); }
void rs_jw_arr_end(rs_jw *w) { close_(w, ']'); }

static void put_escaped(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void rs_jw_key(rs_jw *w, const char *key)
{
    pre(w);
    put_escaped(w->f, key);
    fputs(": ", w->f);
    w->after_key = 1;
}

void rs_jw_str(rs_jw *w, const char *s)
{
    pre(w);
    if (s)
        put_escaped(w->f, s);
    else
        fputs("null", w->f);
}

void rs_jw_int(rs_jw *w, long long v) { pre(w); fprintf(w->f, "%lld", v); }
void rs_jw_bool(rs_jw *w, int v) { pre(w); fputs(v ? "true" : "false", w->f); }
void rs_jw_null(rs_jw *w) { pre(w); fputs("null", w->f); }

void rs_jw_dbl(rs_jw *w, double v)
{
    pre(w);
    if (isfinite(v))
        fprintf(w->f, "%.17g", v);
    else
        fputs("null", w->f);
}

void rs_jw_kstr(rs_jw *w, const char *k, const char *s) { rs_jw_key(w, k); rs_jw_str(w, s); }
void rs_jw_kint(rs_jw *w, const char *k, long long v) { rs_jw_key(w, k); rs_jw_int(w, v); }
void rs_jw_kdbl(rs_jw *w, const char *k, double v) { rs_jw_key(w, k); rs_jw_dbl(w, v); }

/* ================================ reader ================================ */

/* cJSON's tree, copied into the project's (rs_json: typed nodes, keys beside items). */
static rs_json *from_cjson(const cJSON *c)
{
    rs_json *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    if (cJSON_IsBool(c)) {
        v->type = RS_JBOOL, v->num = cJSON_IsTrue(c);
    } else if (cJSON_IsNumber(c)) {
        v->type = RS_JNUM, v->num = c->valuedouble;
    } else if (cJSON_IsString(c)) {
        v->type = RS_JSTR;
        if (!(v->str = strdup(c->valuestring)))
            goto oom;
    } else if (cJSON_IsArray(c) || cJSON_IsObject(c)) {
        v->type = cJSON_IsObject(c) ? RS_JOBJ : RS_JARR;
        int n = cJSON_GetArraySize(c);
        v->items = calloc((size_t)n + 1, sizeof *v->items);
        v->keys = v->type == RS_JOBJ ? calloc((size_t)n + 1, sizeof *v->keys) : NULL;
        if (!v->items || (v->type == RS_JOBJ && !v->keys))
            goto oom;
        for (const cJSON *e = c->child; e; e = e->next, v->n++) {
            if (!(v->items[v->n] = from_cjson(e)) || (v->keys && !(v->keys[v->n] = strdup(e->string)))) {
                v->n++;   /* free what this element holds too */
                goto oom;
            }
        }
    } else {
        v->type = RS_JNULL;
    }
    return v;
oom:
    rs_json_free(v);
    return NULL;
}

rs_json *rs_json_parse(const char *text)
{
    const char *end = NULL;
    cJSON *c = cJSON_ParseWithOpts(text, &end, 1);   /* 1: nothing may follow the value */
    if (!c) {
        long at = end && end >= text ? (long)(end - text) : 0;
        rs_seterr("JSON syntax error at offset %ld: near '%.20s'", at, text + at);
        return NULL;
    }
    rs_json *v = from_cjson(c);
    cJSON_Delete(c);
    RS_CHECK_NULL(v != NULL, "out of memory reading JSON");
    return v;
}

rs_json *rs_json_load(const char *path)
{
    FILE *f = rs_fopen_read(path);
    RS_CHECK_NULL(f != NULL, "%s", rs_lasterr());
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
        fclose(f);
        free(buf);
        rs_seterr("cannot read %s", path);
        return NULL;
    }
    fclose(f);
    buf[len] = 0;
    rs_json *v = rs_json_parse(buf);
    free(buf);
    if (!v) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s: %s", path, rs_lasterr());
        rs_seterr("%s", msg);
    }
    return v;
}

void rs_json_free(rs_json *v)
{
    if (!v)
        return;
    for (int i = 0; i < v->n; i++) {
        rs_json_free(v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    free(v);
}

const rs_json *rs_json_get(const rs_json *obj, const char *key)
{
    if (!obj || obj->type != RS_JOBJ)
        return NULL;
    for (int i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return obj->items[i];
    return NULL;
}

const rs_json *rs_json_path(const rs_json *v, const char *dotted)
{
    char key[128];
    while (v && *dotted) {
        size_t n = strcspn(dotted, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, dotted, n);
        key[n] = 0;
        v = rs_json_get(v, key);
        dotted += n + (dotted[n] == '.');
    }
    return v;
}

double rs_json_num(const rs_json *v, const char *dotted, double fallback)
{
    const rs_json *x = rs_json_path(v, dotted);
    return x && x->type == RS_JNUM ? x->num : fallback;
}
