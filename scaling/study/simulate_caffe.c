/* simulate_caffe.c — the Sunway TaihuLight study's experiment (--experiment caffe) from
 * a run's rows: per node count, the Caffe-style synchronisation (one allreduce per
 * parameter tensor per unrolled time step, SMPI's default algorithm), a milder reading
 * of it (only the recurrent layer's tensors per step), and one fused allreduce of the
 * whole gradient with hier; improvement = baseline / fused.  The tensors and the steps
 * come from the preset (NAME ELEMENTS PER_STEP lines, and "bptt T"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "simulate.h"
#include "fsio.h"

typedef struct {
    double el;    /* elements (float32) */
    int step;     /* 1: synchronised once per unrolled step in the Caffe-style scheme */
} tensor;

static int read_preset(const char *path, tensor *t, int most, double *T)
{
    FILE *f = rs_fopen_read(path);
    char line[4096], a[256], b[256], c[256];
    int n = 0;
    *T = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "#")] = 0;
        int k = sscanf(line, "%255s %255s %255s", a, b, c);
        if (k < 2)
            continue;
        if (strcmp(a, "bptt") == 0)
            *T = atof(b);
        else if (k == 3 && n < most)
            t[n++] = (tensor){atof(b), atof(c) != 0};
    }
    if (f)
        fclose(f);
    return n;
}

/* The p50 of ALGO at p and bytes as the rows have it (the last such row; "" if none). */
static const char *p50(const rs_table *rows, const char *algo, const char *p, const char *bytes)
{
    const char *v = "";
    for (int r = 0; r < rs_table_nrows(rows); r++)
        if (strcmp(sim_cell(rows, r, "algo"), algo) == 0 && strcmp(sim_cell(rows, r, "p"), p) == 0 &&
            strcmp(sim_cell(rows, r, "bytes"), bytes) == 0)
            v = sim_cell(rows, r, "p50_us");
    return v;
}

/* 0 when a row of ALGO at p was folded (checked 0), else 1. */
static int checked(const rs_table *rows, const char *algo, const char *p)
{
    for (int r = 0; r < rs_table_nrows(rows); r++)
        if (strcmp(sim_cell(rows, r, "algo"), algo) == 0 && strcmp(sim_cell(rows, r, "p"), p) == 0 &&
            strchr(sim_cell(rows, r, "checked"), '0'))
            return 0;
    return 1;
}

static void row(rs_table *t, const char *const v[11])
{
    static const char *const cols[] = {"algo", "p", "platform", "placement", "simulated", "checked",
                                       "allreduces", "bytes", "time_us", "improvement", "note"};
    int r = rs_table_row(t);
    for (int c = 0; c < 11; c++)
        if (*v[c])
            rs_set_str(t, r, cols[c], v[c]);
}

rs_table *sim_caffe(const sim_opts *o, const rs_table *rows)
{
    static const char *const names[] = {"algo", "p", "platform", "placement", "simulated", "checked",
                                        "allreduces", "bytes", "time_us", "improvement", "note"};
    rs_col cols[11];
    for (int c = 0; c < 11; c++)
        cols[c] = (rs_col){names[c], RS_STR, 0};
    rs_table *t = rs_table_new("caffe", cols, 11);
    tensor ten[256];
    double T;
    int nt = read_preset(o->preset, ten, 256, &T);
    double fused = 0;
    for (int k = 0; k < nt; k++)
        fused += ten[k].el * 4;
    for (int j = 0; j < o->nnodes; j++) {
        int p = o->nodes[j];
        char ps[32], b[64], miss[4096] = "", note[4200] = "";
        snprintf(ps, sizeof ps, "%d", p);
        double cs = 0, ca = 0, ns = 0, na = 0, bs = 0, ba = 0;
        for (int k = 0; k < nt; k++) {
            double bytes = ten[k].el * 4, x = 0;
            sim_awk_num(bytes, b, sizeof b);
            if (p != 1) {
                const char *v = p50(rows, "smpi:ompi", ps, b);
                if (!*v)
                    snprintf(miss + strlen(miss), sizeof miss - strlen(miss), " %s", b);
                x = atof(v);
            }
            double ms = ten[k].step ? T : 1;
            ca += T * x, na += T, ba += T * bytes;    /* caffe_style: every tensor per step */
            cs += ms * x, ns += ms, bs += ms * bytes; /* caffe_style_cell: the cell per step */
        }
        sim_awk_num(fused, b, sizeof b);
        const char *fu_text = p == 1 ? "0" : p50(rows, "hier", ps, b);
        double fu = atof(fu_text);
        int chk = p == 1 ? 1 : checked(rows, "smpi:ompi", ps) && checked(rows, "hier", ps);
        if (miss[0])
            snprintf(note, sizeof note, "missing sizes:%s", miss);
        char ia[64] = "", ic[64] = "", chks[8], nas[32], nss[32], bas[64], bss[64], cas[64], css[64], fb[64], fus[64];
        if (*fu_text && fu > 0 && ca > 0)
            snprintf(ia, sizeof ia, "%.6g", ca / fu);
        if (*fu_text && fu > 0 && cs > 0)
            snprintf(ic, sizeof ic, "%.6g", cs / fu);
        snprintf(chks, sizeof chks, "%d", chk);
        snprintf(nas, sizeof nas, "%lld", (long long)na);
        snprintf(nss, sizeof nss, "%lld", (long long)ns);
        snprintf(bas, sizeof bas, "%.0f", ba);
        snprintf(bss, sizeof bss, "%.0f", bs);
        snprintf(cas, sizeof cas, "%.6g", ca);
        snprintf(css, sizeof css, "%.6g", cs);
        snprintf(fb, sizeof fb, "%.0f", fused);
        snprintf(fus, sizeof fus, "%.6g", fu);
        const char *style[11] = {"caffe_style", ps, o->platform, o->placement, "1", chks, nas, bas, cas, ia, note};
        const char *cell[11] = {"caffe_style_cell", ps, o->platform, o->placement, "1", chks, nss, bss, css, ic, note};
        const char *fh[11] = {"fused_hier", ps, o->platform, o->placement, "1", chks, "1", fb, fus, ia,
                              *fu_text ? "" : "missing"};
        row(t, style);
        row(t, cell);
        row(t, fh);
    }
    return t;
}
