/* json.h — a small JSON writer (streaming, with indentation) and reader (a tree).
 *
 * Writer: rs_jw_* calls emit syntactically valid JSON to a FILE; keys and strings
 * are escaped; NaN and infinities become null (JSON has no such numbers).
 * Reader: rs_json_parse() builds a tree; rs_json_path(v, "peak.fma.avx512.gflops_1t")
 * finds a member by dotted path (object keys only). Used to read machine.json. */
#ifndef RS_JSON_H
#define RS_JSON_H

#include <stdio.h>

/* ---- writer ---- */
typedef struct {
    FILE *f;
    int depth;
    int first[32];   /* per nesting level: no element written yet */
    int after_key;   /* a key was just written: the next value needs no comma */
} rs_jw;

void rs_jw_init(rs_jw *w, FILE *f);
void rs_jw_obj_begin(rs_jw *w);
void rs_jw_obj_end(rs_jw *w);
void rs_jw_arr_begin(rs_jw *w);
void rs_jw_arr_end(rs_jw *w);
void rs_jw_key(rs_jw *w, const char *key);
void rs_jw_str(rs_jw *w, const char *s);  /* NULL writes null */
void rs_jw_int(rs_jw *w, long long v);
void rs_jw_dbl(rs_jw *w, double v);       /* %.17g for round trips, null if not finite */
void rs_jw_bool(rs_jw *w, int v);
void rs_jw_null(rs_jw *w);
/* key + value shorthands */
void rs_jw_kstr(rs_jw *w, const char *k, const char *s);
void rs_jw_kint(rs_jw *w, const char *k, long long v);
void rs_jw_kdbl(rs_jw *w, const char *k, double v);

/* ---- reader ---- */
typedef enum { RS_JNULL, RS_JBOOL, RS_JNUM, RS_JSTR, RS_JARR, RS_JOBJ } rs_jtype;

typedef struct rs_json {
    rs_jtype type;
    double num;            /* RS_JNUM, RS_JBOOL (0/1) */
    char *str;             /* RS_JSTR */
    int n;                 /* RS_JARR, RS_JOBJ: element count */
    char **keys;           /* RS_JOBJ */
    struct rs_json **items;
} rs_json;

rs_json *rs_json_parse(const char *text);   /* NULL + rs_lasterr on a syntax error */
rs_json *rs_json_load(const char *path);    /* read and parse a file */
void rs_json_free(rs_json *v);
const rs_json *rs_json_get(const rs_json *obj, const char *key);
const rs_json *rs_json_path(const rs_json *v, const char *dotted);
/* Number at a dotted path, or `fallback` if absent or not a number. */
double rs_json_num(const rs_json *v, const char *dotted, double fallback);

#endif
