/* machine_json.c — machine.json: the facts and measured limits of one machine.
 *
 * Written by `microbench peak --json FILE` through rs_write_atomic(); read back by
 * other studies (rs_json_load + rs_json_path, e.g. "peak.fma.avx2.gflops_1t") to
 * express their speeds as fractions of these limits.  The shape, schema
 * "rnnscale.machine/1", is documented in results/README.md; keep key names stable. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "json.h"
#include "meta.h"
#include "peak_run.h"
#include "timer.h"

double peak_fma_per_cycle(rs_isa isa, double gflops, int threads)
{
    /* A "cycle" is a TSC cycle (timer.h): the core clock is not readable in a VM. */
    return gflops / (2.0 * rs_isa_lanes(isa) * rs_tsc_ghz() * threads);
}

/* First line printed by a shell command, or 0 if it printed nothing (not installed). */
static int first_line(const char *cmd, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    if (!fgets(buf, (int)len, p))
        buf[0] = 0;
    pclose(p);
    buf[strcspn(buf, "\r\n")] = 0;
    return buf[0] != 0;
}

/* A rate that the run could not measure (failed check) is written as null. */
static void kdbl_or_null(rs_jw *w, const char *k, double v)
{
    rs_jw_key(w, k);
    if (isfinite(v) && v >= 0)
        rs_jw_dbl(w, v);
    else
        rs_jw_null(w);
}

static void write_blas(rs_jw *w, const peak_blas *b)
{
    rs_jw_key(w, b->name);
    rs_jw_obj_begin(w);
    rs_jw_key(w, "found");
    rs_jw_bool(w, b->found);
    rs_jw_kstr(w, "version", b->found ? b->version : NULL);
    rs_jw_kstr(w, "detected", b->found ? b->detected : NULL);
    rs_jw_kstr(w, "used", b->found ? b->used : NULL);
    rs_jw_key(w, "below_cpu");
    rs_jw_bool(w, b->below_cpu);
    rs_jw_kstr(w, "chosen_by", b->found ? b->chosen_by : NULL);
    rs_jw_kstr(w, "fix", b->fix);
    rs_jw_key(w, "fix_applied");
    rs_jw_bool(w, b->fix_applied);
    rs_jw_obj_end(w);
}

int peak_write_machine_json(FILE *f, void *run_)
{
    const peak_run *run = run_;
    rs_machine m;
    rs_machine_probe(&m);
    char buf[256];
    rs_jw w;
    rs_jw_init(&w, f);
    rs_jw_obj_begin(&w);
    rs_jw_kstr(&w, "schema", "rnnscale.machine/1");
    rs_utc_now(buf, sizeof buf);
    rs_jw_kstr(&w, "date_utc", buf);
    rs_jw_kstr(&w, "command", run->command);
    rs_jw_kstr(&w, "host", m.host);
    rs_jw_kstr(&w, "kernel", m.kernel);

    rs_jw_key(&w, "cpu");
    rs_jw_obj_begin(&w);
    rs_jw_kstr(&w, "model", m.model);
    rs_jw_kstr(&w, "vendor", m.vendor);
    rs_jw_kstr(&w, "flags", m.flags_isa);
    rs_jw_kint(&w, "ncpus", m.ncpus);
    rs_jw_kint(&w, "l1d_bytes", m.l1d_bytes);
    rs_jw_kint(&w, "l2_bytes", m.l2_bytes);
    rs_jw_kint(&w, "l3_bytes", m.l3_bytes);
    rs_jw_key(&w, "hypervisor");
    rs_jw_bool(&w, strcmp(m.hypervisor, "yes") == 0);
    rs_jw_kstr(&w, "isa_best", rs_isa_name(rs_isa_best()));
    rs_jw_obj_end(&w);

    rs_jw_key(&w, "timer");
    rs_jw_obj_begin(&w);
    rs_jw_kdbl(&w, "tsc_ghz", rs_tsc_ghz());
    rs_jw_kdbl(&w, "granularity_ns", rs_timer_granularity_ns());
    rs_jw_obj_end(&w);

    rs_jw_key(&w, "peak");
    rs_jw_obj_begin(&w);
    rs_jw_key(&w, "fma");
    rs_jw_obj_begin(&w);
    for (int i = RS_ISA_COUNT - 1; i >= 0; i--) {   /* widest first */
        rs_isa isa = (rs_isa)i;
        if (!rs_isa_supported(isa))
            continue;
        rs_jw_key(&w, rs_isa_name(isa));
        rs_jw_obj_begin(&w);
        kdbl_or_null(&w, "gflops_1t", run->fma_gflops_1t[i]);
        kdbl_or_null(&w, "gflops_all", run->fma_gflops_all[i]);
        rs_jw_kint(&w, "threads_all", run->threads_all);
        kdbl_or_null(&w, "fma_per_cycle_1t", peak_fma_per_cycle(isa, run->fma_gflops_1t[i], 1));
        rs_jw_kint(&w, "lanes", rs_isa_lanes(isa));
        rs_jw_obj_end(&w);
    }
    rs_jw_obj_end(&w);
    rs_jw_key(&w, "stream");
    rs_jw_obj_begin(&w);
    rs_jw_kint(&w, "array_bytes", run->stream_all.array_bytes);
    rs_jw_kint(&w, "threads_all", run->threads_all);
    kdbl_or_null(&w, "copy_gbytes_per_s_1t", run->stream_1t.copy_gbytes_per_s);
    kdbl_or_null(&w, "triad_gbytes_per_s_1t", run->stream_1t.triad_gbytes_per_s);
    kdbl_or_null(&w, "copy_gbytes_per_s_all", run->stream_all.copy_gbytes_per_s);
    kdbl_or_null(&w, "triad_gbytes_per_s_all", run->stream_all.triad_gbytes_per_s);
    rs_jw_obj_end(&w);
    rs_jw_obj_end(&w);

    rs_jw_key(&w, "blas");
    rs_jw_obj_begin(&w);
    write_blas(&w, &run->blas[0]);
    write_blas(&w, &run->blas[1]);
    rs_jw_obj_end(&w);

    rs_jw_key(&w, "counters");
    rs_jw_obj_begin(&w);
    rs_jw_kstr(&w, "papi", rs_counters_status());
    rs_jw_kstr(&w, "likwid", rs_markers_status());
    rs_jw_obj_end(&w);
    rs_jw_key(&w, "likwid");   /* likwid-bench's figures beside peak's (likwid_bench.c) */
    peak_likwid_write_json(&w, &run->likwid);

    rs_jw_key(&w, "build");
    rs_jw_obj_begin(&w);
    rs_jw_kstr(&w, "compiler", rs_build_compiler());
    rs_jw_kstr(&w, "cflags", rs_build_cflags());
    rs_jw_kstr(&w, "commit", rs_build_commit());
    rs_jw_obj_end(&w);

    /* Versions of the tools other studies run with; null where not installed. */
    int have = first_line("ompi_info --version 2>/dev/null", buf, sizeof buf) ||
               first_line("mpirun --version 2>/dev/null", buf, sizeof buf);
    rs_jw_kstr(&w, "mpi", have ? buf : NULL);
    have = first_line("pkg-config --modversion simgrid 2>/dev/null", buf, sizeof buf);
    rs_jw_kstr(&w, "simgrid", have ? buf : NULL);
    rs_jw_obj_end(&w);
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}
