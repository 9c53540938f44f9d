/* likwid_bench.c — `microbench peak` checked against likwid-bench in the same run.
 *
 * For the best ISA peak measured, likwid-bench runs its single-precision FMA peak
 * (peakflops_sp_<family>: our FMA kernels are fp32, the double ones would halve it)
 * and its copy and STREAM triad (copy_<family>, stream_<family>: a = b*s + c, STREAM's
 * triad; likwid's `triad` is a four-array kernel) on the same array size and thread
 * count as peak's STREAM.  Both figures and their ratio (ours / likwid-bench's) go to
 * machine.json.  A disagreement beyond 5% is a WARNING, not an error: the two are
 * independent measurements of one machine, and on a shared or virtual machine either
 * may be the unlucky one; the warning says to look, the figures say where. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_run.h"

/* The number after "<key>" at the start of a line of text; NAN where there is none. */
static double line_value(const char *text, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, key, klen) != 0)
            continue;
        char *end;
        double v = strtod(p + klen, &end);
        return end != p + klen && isfinite(v) ? v : NAN;
    }
    return NAN;
}

int peak_likwid_parse(const char *text, double *mflops_per_s, double *mbytes_per_s)
{
    *mflops_per_s = line_value(text, "MFlops/s:");
    *mbytes_per_s = line_value(text, "MByte/s:");
    return isnan(*mflops_per_s) && isnan(*mbytes_per_s) ? -1 : 0;
}

/* The suffix of likwid-bench's kernels for an ISA family. */
static const char *family_of(rs_isa isa)
{
    return isa == RS_ISA_AVX512 ? "avx512" : isa == RS_ISA_AVX2 ? "avx" : "sse";
}

static double ratio_of(double ours, double theirs)
{
    return isfinite(ours) && ours > 0 && isfinite(theirs) && theirs > 0 ? ours / theirs : NAN;
}

void peak_likwid_compare(peak_likwid *lw, double fma_gflops, double copy_gbs, double triad_gbs)
{
    lw->peak_fma_gflops = fma_gflops;
    lw->peak_copy_gbs = copy_gbs;
    lw->peak_triad_gbs = triad_gbs;
    lw->ratio_fma = ratio_of(fma_gflops, lw->fma_gflops);
    lw->ratio_copy = ratio_of(copy_gbs, lw->copy_gbs);
    lw->ratio_triad = ratio_of(triad_gbs, lw->triad_gbs);
    double r[3] = {lw->ratio_fma, lw->ratio_copy, lw->ratio_triad};
    lw->agree = 1;
    for (int i = 0; i < 3; i++)
        lw->agree &= isfinite(r[i]) && fabs(r[i] - 1) <= PEAK_LIKWID_TOLERANCE;
}

/* Runs one likwid-bench test on `kbytes` kB (10^3, all arrays together) and threads;
 * its rate (MFlops/s or MByte/s as `flops` says) in units of 10^9, or NAN with *why.
 * Its default run time of 1 s even under --quick: below that, on a loaded machine, its
 * iteration count collapses to its minimum and the rate is noise. */
static double run_test(const char *test, long kbytes, int threads, int flops, char *why,
                       size_t whylen)
{
    char cmd[256], buf[512], last[160] = "";
    snprintf(cmd, sizeof cmd, "likwid-bench -t %s -W N:%ldkB:%d 2>&1", test, kbytes, threads);
    FILE *p = popen(cmd, "r");
    size_t cap = 1 << 16, len = 0;
    char *text = calloc(1, cap);
    if (!p || !text) {
        snprintf(why, whylen, "could not run likwid-bench");
        if (p)
            pclose(p);
        free(text);
        return NAN;
    }
    while (fgets(buf, sizeof buf, p)) {
        size_t n = strlen(buf);
        if (len + n < cap) {
            memcpy(text + len, buf, n + 1);
            len += n;
        }
        if (n > 1)
            snprintf(last, sizeof last, "%.*s", (int)strcspn(buf, "\r\n"), buf);
    }
    int rc = pclose(p);
    double mflops, mbytes;
    int parsed = peak_likwid_parse(text, &mflops, &mbytes);
    free(text);
    double v = (flops ? mflops : mbytes) * 1e-3;   /* 10^6 units to 10^9 */
    if (rc != 0 || parsed != 0 || !(v > 0)) {
        snprintf(why, whylen, "likwid-bench -t %s gave no rate (exit %d): %s", test, rc, last);
        return NAN;
    }
    return v;
}

/* The 1-minute load average: likwid-bench averages over a second or more where peak
 * keeps its fastest sample, so a loaded machine separates the two. NAN if unknown. */
static double load_1min(void)
{
    double v = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &v) != 1)
            v = NAN;
        fclose(f);
    }
    return v;
}

void peak_likwid_crosscheck(const peak_run *run, rs_isa isa, peak_likwid *lw)
{
    memset(lw, 0, sizeof *lw);
    lw->load_1min = load_1min();
    lw->fma_gflops = lw->copy_gbs = lw->triad_gbs = NAN;
    lw->threads = run->threads_all;
    lw->array_bytes = run->stream_all.array_bytes;
    /* likwid-bench builds its domains from the mask it inherits: pinned to one CPU, as
     * the harness leaves this thread, it would run all its threads on that CPU */
    rs_unpin_thread();
    if (system("command -v likwid-bench >/dev/null 2>&1") != 0) {
        snprintf(lw->why, sizeof lw->why, "likwid-bench not found on PATH (Debian: likwid)");
        return;
    }
    const char *fam = family_of(isa);
    snprintf(lw->fma_test, sizeof lw->fma_test, "peakflops_sp_%s%s", fam,
             isa == RS_ISA_PORTABLE ? "" : "_fma");
    snprintf(lw->copy_test, sizeof lw->copy_test, "copy_%s", fam);
    snprintf(lw->triad_test, sizeof lw->triad_test, "stream_%s", fam);
    long arr_kb = (lw->array_bytes + 999) / 1000;
    /* peakflops: 16 kB per thread, in every L1 as peak's FMA chains are in registers */
    lw->fma_gflops = run_test(lw->fma_test, 16L * lw->threads, lw->threads, 1, lw->why, sizeof lw->why);
    lw->copy_gbs = run_test(lw->copy_test, 2 * arr_kb, lw->threads, 0, lw->why, sizeof lw->why);
    lw->triad_gbs = run_test(lw->triad_test, 3 * arr_kb, lw->threads, 0, lw->why, sizeof lw->why);
    lw->available = isfinite(lw->fma_gflops) || isfinite(lw->copy_gbs) || isfinite(lw->triad_gbs);
    peak_likwid_compare(lw, run->fma_gflops_all[isa], run->stream_all.copy_gbytes_per_s,
                        run->stream_all.triad_gbytes_per_s);
}

void peak_likwid_report(const peak_likwid *lw)
{
    if (!lw->available) {
        printf("likwid-bench: unavailable: %s\n", lw->why);
        return;
    }
    printf("likwid-bench (%d threads): %s %.4g GFLOP/s (ratio %.3f), %s %.4g GB/s (ratio %.3f), "
           "%s %.4g GB/s (ratio %.3f); ratio = peak's / likwid-bench's\n", lw->threads,
           lw->fma_test, lw->fma_gflops, lw->ratio_fma, lw->copy_test, lw->copy_gbs, lw->ratio_copy,
           lw->triad_test, lw->triad_gbs, lw->ratio_triad);
    if (!lw->agree)
        printf("WARNING: peak and likwid-bench disagree beyond %.0f%% (ratios fma %.3f, copy %.3f, "
               "triad %.3f; load average %.2f on %d CPUs): on a loaded machine peak's fastest "
               "sample outruns likwid-bench's average; rerun quiet before trusting either\n",
               PEAK_LIKWID_TOLERANCE * 100, lw->ratio_fma, lw->ratio_copy, lw->ratio_triad,
               lw->load_1min, rs_ncpus());
}

void peak_likwid_write_json(rs_jw *w, const peak_likwid *lw)
{
    rs_jw_obj_begin(w);
    rs_jw_key(w, "available");
    rs_jw_bool(w, lw->available);
    rs_jw_kstr(w, "why", lw->why[0] ? lw->why : NULL);
    if (lw->available) {
        rs_jw_kint(w, "threads", lw->threads);
        rs_jw_kint(w, "array_bytes", lw->array_bytes);
        rs_jw_kdbl(w, "load_1min", lw->load_1min);
        rs_jw_kstr(w, "fma_test", lw->fma_test);
        rs_jw_kdbl(w, "fma_gflops", lw->fma_gflops);
        rs_jw_kdbl(w, "peak_fma_gflops", lw->peak_fma_gflops);
        rs_jw_kdbl(w, "ratio_fma", lw->ratio_fma);
        rs_jw_kstr(w, "copy_test", lw->copy_test);
        rs_jw_kdbl(w, "copy_gbs", lw->copy_gbs);
        rs_jw_kdbl(w, "peak_copy_gbs", lw->peak_copy_gbs);
        rs_jw_kdbl(w, "ratio_copy", lw->ratio_copy);
        rs_jw_kstr(w, "triad_test", lw->triad_test);
        rs_jw_kdbl(w, "triad_gbs", lw->triad_gbs);
        rs_jw_kdbl(w, "peak_triad_gbs", lw->peak_triad_gbs);
        rs_jw_kdbl(w, "ratio_triad", lw->ratio_triad);
        rs_jw_key(w, "agree");
        rs_jw_bool(w, lw->agree);
    }
    rs_jw_obj_end(w);
}
