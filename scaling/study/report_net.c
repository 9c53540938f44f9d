/* report_net.c — the report's "Held against a real network" section: make bench runs
 * scaling/net/netcheck.sh --quick into RUN/netcheck/ (two namespace hosts on 100 Mbit/s
 * links, calibrated by a ping-pong; allreduce-bench across them against study simulate
 * on the platform made from that calibration).  Its calibration (pingpong.json), the
 * prediction errors (netcheck.csv, study netcheck's), and the target: the 4 KiB ring at
 * p = 2, where the network's latency dominates, predicted within 15%.  Where the
 * machine could not make the hosts, netcheck.txt's last line says why.  Written into
 * simulate_report.md too when the run folder holds a netcheck/ (make bench runs it
 * first), and then not again by report.md, which takes that file whole. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define HEADING "## Held against a real network"

/* 1 when simulate_report.md has the section: report.md takes that file whole. */
static int in_simulate_report(const report_ctx *r)
{
    char **l = rp_has(r, "simulate_report.md") ? rp_lines(r, "simulate_report.md") : NULL;
    int has = 0;
    for (int i = 0; l && l[i] && !has; i++)
        has = strcmp(l[i], HEADING) == 0;
    rp_lines_free(l);
    return has;
}

void report_net(report_ctx *r)
{
    if ((!rp_has(r, "netcheck.txt") && !rp_has(r, "netcheck/netcheck.csv")) || in_simulate_report(r))
        return;
    fprintf(r->out, HEADING "\n\n");
    if (!rp_has(r, "netcheck/netcheck.csv")) {
        char **l = rp_lines(r, "netcheck.txt");
        const char *why = "";
        for (int i = 0; l && l[i]; i++)
            if (l[i][0])
                why = l[i];
        fprintf(r->out, "Not run here: %s\n\n", why);
        rp_lines_free(l);
        return;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/netcheck/pingpong.json", r->run);
    rs_json *pp = rs_json_load(path);
    const rs_json *a = pp ? rs_json_path(pp, "meta.alpha_us") : NULL;
    const rs_json *b = pp ? rs_json_path(pp, "meta.link_gbytes_per_s") : NULL;
    fprintf(r->out, "Two hosts of `scaling/net/netcluster.sh` (network namespaces on a bridge, links shaped by TBF\n"
                    "to 100 Mbit/s) with Open MPI over TCP between them, calibrated by `pingpong-bench`\n");
    if (a && b && a->type == RS_JSTR && b->type == RS_JSTR)
        fprintf(r->out, "(alpha %s us, 1/beta %s GB/s)", a->str, b->str);
    fprintf(r->out, ";\n`allreduce-bench` across them against `study simulate` on a platform made from that\n"
                    "calibration (`scaling/net/netcheck.sh --quick`, netcheck/). Both ranks share this machine's\n"
                    "cores: the comparison holds where the network dominates (`scaling/net/README.md`).\n");
    rp_copy(r, "netcheck/netcheck.md");   /* it opens and ends with a blank line */
    rs_table *t = rp_csv(r, "netcheck/netcheck.csv");
    const char *e = "";
    for (int row = 0; t && row < rs_table_nrows(t); row++)
        if (!strcmp(rp_cell(t, row, "algo"), "ring") && !strcmp(rp_cell(t, row, "p"), "2") &&
            !strcmp(rp_cell(t, row, "bytes"), "4096"))
            e = rp_cell(t, row, "error");
    if (*e)
        fprintf(r->out, "\n- target: the 4 KiB ring at p = 2 (latency-bound) predicted within 15%%: %+.1f%% — %s\n\n",
                100 * rp_num(e), fabs(rp_num(e)) <= 0.15 ? "met" : "NOT met");
    else
        fprintf(r->out, "\n- target: the 4 KiB ring at p = 2 predicted within 15%%: no such row — NOT met\n\n");
    rs_table_free(t);
    rs_json_free(pp);
}
