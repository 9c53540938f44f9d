/* roofline.c — `study roofline RUN`: the roofline's points and roofs for plot/roofline.gp,
 * and the report's paragraph on the figure.
 *
 * Writes RUN/roofline.csv (study, kernel, intensity_flops_per_byte, gflops): every kernel
 * of the run at 1 thread, placed by its work per byte of compulsory traffic, and prints
 * the gnuplot assignments of the roofs from machine.json (the best ISA's and the scalar
 * FMA peak at 1 thread, the STREAM triad bandwidth).  Without machine.json, or without a
 * point, there is no roofline.csv and nothing is printed.  The work per kernel:
 *   exp, softmax  2 flops per vector op of their bounds (EXP_BOUND_VECOPS,
 *                 SOFTMAX_BOUND_VECOPS: exp.h, softmax.h), 8 bytes per element (read x,
 *                 write y), so the exp bound sits on the compute roof;
 *   gemm          2mnk flops over 4(mk + kn + 2mn) bytes (A and B read once, C read and
 *                 written): compulsory traffic, so the intensity is an upper bound.
 * Achieved GFLOP/s: flops per element / ns_per_elem, or gemm's gflops column. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "json.h"
#include "report.h"
#include "softmax.h"
#include "study.h"

static const rs_col roof_cols[] = {
    {"study", RS_STR, 0}, {"kernel", RS_STR, 0}, {"intensity_flops_per_byte", RS_STR, 0}, {"gflops", RS_STR, 0}};

static void point(rs_table *p, const char *study, const char *kernel, double intensity, const char *gflops)
{
    char x[64];
    int row = rs_table_row(p);
    snprintf(x, sizeof x, "%.6g", intensity);
    rs_set_str(p, row, "study", study);
    rs_set_str(p, row, "kernel", kernel);
    rs_set_str(p, row, "intensity_flops_per_byte", x);
    rs_set_str(p, row, "gflops", gflops);
}

/* exp (poly, libm, sleef in L1 and DRAM) or softmax (naive, fast, every shape) at 1 thread */
static void per_element(report_ctx *r, rs_table *p, const char *study, double flops, double bytes)
{
    char file[64], kernel[512], gflops[64];
    snprintf(file, sizeof file, "%s.csv", study);
    rs_table *t = rp_csv(r, file);
    int exp = strcmp(study, "exp") == 0;
    for (int i = 0; t && i < rs_table_nrows(t); i++) {
        const char *v = rp_cell(t, i, "variant"), *cache = rp_cell(t, i, "cache");
        if (rp_cmp(rp_cell(t, i, "threads"), 1) != 0)
            continue;
        if (exp && (strcmp(cache, "L1") != 0 && strcmp(cache, "DRAM") != 0))
            continue;
        if (exp ? strcmp(v, "poly") && strcmp(v, "libm") && strcmp(v, "sleef") : strcmp(v, "naive") && strcmp(v, "fast"))
            continue;
        if (exp)
            snprintf(kernel, sizeof kernel, "%s %s %s", v, rp_cell(t, i, "isa"), cache);
        else
            snprintf(kernel, sizeof kernel, "%s %s %sx%s", v, rp_cell(t, i, "isa"), rp_cell(t, i, "rows"),
                     rp_cell(t, i, "cols"));
        snprintf(gflops, sizeof gflops, "%.6g", flops / rp_num(rp_cell(t, i, "ns_per_elem")));
        point(p, study, kernel, flops / bytes, gflops);
    }
    rs_table_free(t);
}

static void gemm_points(report_ctx *r, rs_table *p)
{
    rs_table *t = rp_csv(r, "gemm.csv");
    char kernel[512];
    for (int i = 0; t && i < rs_table_nrows(t); i++) {
        if (rp_cmp(rp_cell(t, i, "threads"), 1) != 0 || strcmp(rp_cell(t, i, "backend"), "naive") == 0 ||
            !*rp_cell(t, i, "gflops"))
            continue;
        double m = rp_num(rp_cell(t, i, "m")), n = rp_num(rp_cell(t, i, "n")), k = rp_num(rp_cell(t, i, "k"));
        snprintf(kernel, sizeof kernel, "%s %sx%sx%s", rp_cell(t, i, "backend"), rp_cell(t, i, "m"),
                 rp_cell(t, i, "n"), rp_cell(t, i, "k"));
        point(p, "gemm", kernel, 2 * m * n * k / (4 * (m * k + k * n + 2 * m * n)), rp_cell(t, i, "gflops"));
    }
    rs_table_free(t);
}

/* The first number named KEY after the first member named AFTER (NULL: anywhere), in
 * file order: the best ISA's peak is peak.fma.<isa>.gflops_1t wherever machine.json
 * nests it. */
static const rs_json *number_after(const rs_json *v, const char *after, const char *key, int *seen)
{
    if (!v || (after && !*after))   /* no ISA named: no peak */
        return NULL;
    if (v->type != RS_JOBJ && v->type != RS_JARR)
        return NULL;
    for (int i = 0; i < v->n; i++) {
        const rs_json *x = v->items[i];
        if (v->type == RS_JOBJ) {
            *seen = *seen || !after || strcmp(v->keys[i], after) == 0;
            if (*seen && strcmp(v->keys[i], key) == 0 && x->type == RS_JNUM)
                return x;
        }
        const rs_json *in = number_after(x, after, key, seen);
        if (in)
            return in;
    }
    return NULL;
}

static void roof(const rs_json *m, const char *name, const char *after, const char *key, const char *none)
{
    int seen = 0;
    const rs_json *v = number_after(m, after, key, &seen);
    if (v)
        printf("%s=%.17g; ", name, v->num);
    else
        printf("%s=%s; ", name, none);
}

static int csv_writer(FILE *f, void *t) { return rs_table_print_csv(t, f); }

int cmd_roofline(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(argc == 2 && strcmp(argv[1], "--help") == 0 ? stdout : stderr,
                "usage: study roofline RUN\nWrites RUN/roofline.csv (the run's kernels at 1 thread) and prints the "
                "roofs for plot/roofline.gp from RUN/machine.json.\n");
        return argc == 2 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
    }
    char run[4096], csv[4200], json[4200];
    snprintf(run, sizeof run, "%s", argv[1]);
    for (size_t n = strlen(run); n > 1 && run[n - 1] == '/'; n--)
        run[n - 1] = 0;
    snprintf(csv, sizeof csv, "%s/roofline.csv", run);
    snprintf(json, sizeof json, "%s/machine.json", run);
    report_ctx r = {.run = run};
    int have = access(json, F_OK) == 0;
    rs_json *m = have ? rs_json_load(json) : NULL;
    if (!m) {   /* no roofs, no roofline */
        if (have)
            fprintf(stderr, "study roofline: %s (no roofline)\n", rs_lasterr());
        unlink(csv);
        return have;
    }
    rs_table *p = rs_table_new("roofline", roof_cols, RS_ARRAY_LEN(roof_cols));
    per_element(&r, p, "exp", 2 * EXP_BOUND_VECOPS, 2 * sizeof(float));
    per_element(&r, p, "softmax", 2 * SOFTMAX_BOUND_VECOPS, SOFTMAX_BYTES_PER_ELEM);
    gemm_points(&r, p);
    int rc = 0;
    if (rs_table_nrows(p) == 0)
        unlink(csv);
    else if (rp_replace(csv, csv_writer, p) != 0) {
        fprintf(stderr, "study roofline: %s\n", rs_lasterr());
        rc = 1;
    }
    const char *isa = rp_json_str(m, "isa_best");
    roof(m, "peak_best", isa, "gflops_1t", "1");
    roof(m, "peak_scalar", "portable", "gflops_1t", "1");
    roof(m, "bw", NULL, "triad_gbytes_per_s_1t", "1");
    printf("isa='%s';\n", isa);
    rs_json_free(m);
    rs_table_free(p);
    return rc || r.unreadable ? 1 : 0;
}

void report_roofline(report_ctx *r)
{
    if (!rp_has(r, "figures/roofline.png"))
        return;
    fprintf(r->out, "## Roofline\n\n![roofline](figures/roofline.png)\n\n"
                    "Every kernel of this run at 1 thread, placed by arithmetic intensity (flops and bytes per\n"
                    "kernel are stated in scaling/study/roofline.c) and measured GFLOP/s, under this machine's measured\n"
                    "FMA peak and STREAM triad bandwidth. Cache-resident points may sit above the DRAM slope:\n"
                    "the roof drawn is the DRAM one. Points: roofline.csv.\n\n");
}
