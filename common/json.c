/* json.c — a streaming JSON writer and a small recursive-descent reader.
 * The reader accepts standard JSON (RFC 8259) into a tree; \u escapes outside ASCII
 * are stored as UTF-8.  It is used for machine.json and for round-trip tests. */
#include "json.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

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

typedef struct {
    const char *p;
    const char *start;
} parser;

static rs_json *parse_value(parser *ps, int depth);

static void skip_ws(parser *ps)
{
    while (*ps->p && isspace((unsigned char)*ps->p))
        ps->p++;
}

static rs_json *fail(parser *ps, const char *what)
{
    rs_seterr("JSON syntax error at offset %ld: %s", (long)(ps->p - ps->start), what);
    return NULL;
}

static rs_json *node(rs_jtype t)
{
    rs_json *v = calloc(1, sizeof *v);
    if (v)
        v->type = t;
    return v;
}

static void put_utf8(char **o, unsigned cp)
{
    if (cp < 0x80) {
        *(*o)++ = (char)cp;
    } else if (cp < 0x800) {
        *(*o)++ = (char)(0xC0 | (cp >> 6));
        *(*o)++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *(*o)++ = (char)(0xE0 | (cp >> 12));
        *(*o)++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *(*o)++ = (char)(0x80 | (cp & 0x3F));
    }
}

/* Parses a string at ps->p (which points at the opening quote). */
static char *parse_string(parser *ps)
{
    const char *q = ps->p + 1;
    size_t cap = 0;
    while (q[cap] && q[cap] != '"')
        cap += q[cap] == '\\' && q[cap + 1] ? 2 : 1;
    char *out = malloc(cap * 3 + 1), *o = out;
    if (!out)
        return NULL;
    ps->p++;
    while (*ps->p && *ps->p != '"') {
        char c = *ps->p++;
        if ((unsigned char)c < 0x20) {
            free(out);
            return NULL;
        }
        if (c != '\\') {
            *o++ = c;
            continue;
        }
        c = *ps->p++;
        switch (c) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned cp = 0;
            for (int i = 0; i < 4; i++) {
                char h = *ps->p++;
                if (!isxdigit((unsigned char)h)) {
                    free(out);
                    return NULL;
                }
                cp = cp * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0' : (tolower(h) - 'a' + 10));
            }
            put_utf8(&o, cp);
            break;
        }
        default:
            free(out);
            return NULL;
        }
    }
    if (*ps->p != '"') {
        free(out);
        return NULL;
    }
    ps->p++;
    *o = 0;
    return out;
}

static int push(rs_json *v, rs_json *item, char *key)
{
    rs_json **items = realloc(v->items, sizeof *items * (size_t)(v->n + 1));
    if (!items)
        return -1;
    v->items = items;
    if (v->type == RS_JOBJ) {
        char **keys = realloc(v->keys, sizeof *keys * (size_t)(v->n + 1));
        if (!keys)
            return -1;
        v->keys = keys;
        v->keys[v->n] = key;
    }
    v->items[v->n++] = item;
    return 0;
}

static rs_json *parse_container(parser *ps, int depth, int is_obj)
{
    rs_json *v = node(is_obj ? RS_JOBJ : RS_JARR);
    if (!v)
        return fail(ps, "out of memory");
    ps->p++;
    skip_ws(ps);
    char close = is_obj ? '}' : ']';
    if (*ps->p == close) {
        ps->p++;
        return v;
    }
    for (;;) {
        char *key = NULL;
        skip_ws(ps);
        if (is_obj) {
            if (*ps->p != '"' || !(key = parse_string(ps))) {
                rs_json_free(v);
                return fail(ps, "expected a string key");
            }
            skip_ws(ps);
            if (*ps->p != ':') {
                free(key);
                rs_json_free(v);
                return fail(ps, "expected ':'");
            }
            ps->p++;
        }
        rs_json *item = parse_value(ps, depth + 1);
        if (!item || push(v, item, key) != 0) {
            free(key);
            rs_json_free(item);
            rs_json_free(v);
            return NULL;
        }
        skip_ws(ps);
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p == close) {
            ps->p++;
            return v;
        }
        rs_json_free(v);
        return fail(ps, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static rs_json *parse_value(parser *ps, int depth)
{
    if (depth > 64)
        return fail(ps, "nesting deeper than 64");
    skip_ws(ps);
    char c = *ps->p;
    if (c == '{' || c == '[')
        return parse_container(ps, depth, c == '{');
    if (c == '"') {
        rs_json *v = node(RS_JSTR);
        if (!v || !(v->str = parse_string(ps))) {
            free(v);
            return fail(ps, "bad string");
        }
        return v;
    }
    if (strncmp(ps->p, "true", 4) == 0 || strncmp(ps->p, "false", 5) == 0) {
        rs_json *v = node(RS_JBOOL);
        if (!v)
            return fail(ps, "out of memory");
        v->num = c == 't';
        ps->p += c == 't' ? 4 : 5;
        return v;
    }
    if (strncmp(ps->p, "null", 4) == 0) {
        ps->p += 4;
        rs_json *v = node(RS_JNULL);
        return v ? v : fail(ps, "out of memory");
    }
    if (c == '-' || isdigit((unsigned char)c)) {
        char *end;
        double d = strtod(ps->p, &end);
        if (end == ps->p)
            return fail(ps, "bad number");
        ps->p = end;
        rs_json *v = node(RS_JNUM);
        if (!v)
            return fail(ps, "out of memory");
        v->num = d;
        return v;
    }
    return fail(ps, "unexpected character");
}

rs_json *rs_json_parse(const char *text)
{
    parser ps = {text, text};
    rs_json *v = parse_value(&ps, 0);
    if (!v)
        return NULL;
    skip_ws(&ps);
    if (*ps.p) {
        rs_json_free(v);
        return fail(&ps, "trailing characters after the value");
    }
    return v;
}

rs_json *rs_json_load(const char *path)
{
    FILE *f = fopen(path, "rb");
    RS_CHECK_NULL(f != NULL, "cannot read %s: %m", path);
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
