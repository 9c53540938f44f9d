/* cmd_report.c — `study report RUN`: RUN/report.md from the run's files.
 *
 * The sections (report.h) write the body; the report opens with the machine, then a
 * one-screen summary: every target line of the body (a "- " line ending in met / NOT
 * met) under the section it comes from, and how many are not met.  --body writes the
 * sections alone (what test/report/run.sh checks line by line); --out - writes to
 * stdout.  Exit 0; 1 a file of the run could not be read (the report says what it
 * could); 2 bad usage. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "opts.h"
#include "report.h"
#include "study.h"
#include "study_def.h"

static const report_section sections[] = {
    report_machine, report_peak,     report_exp,  report_softmax, report_gemm,         report_allreduce,
    report_roofline, report_train,   report_dp,   report_peer,    report_net,          report_scaling,
    report_reproduction,
};

/* The report: the body's opening (up to its first "## " section), the summary, the
 * sections; the body ends in exactly one newline. */
static int compose(FILE *f, void *ctx)
{
    char *body = ctx;
    size_t len = strlen(body);
    while (len > 0 && body[len - 1] == '\n')
        body[--len] = 0;
    char *first = strncmp(body, "## ", 3) == 0 ? body : strstr(body, "\n## ");
    first = first ? first + (*first == '\n') : body + len;
    fwrite(body, 1, (size_t)(first - body), f);
    if (first == body + len && len > 0)
        fputc('\n', f);
    fputs("## Summary\n", f);
    regex_t target, not_met;
    RS_ASSERT(regcomp(&target, "[ :(](NOT met|not met|met)([);.]|$)", REG_EXTENDED | REG_NOSUB) == 0);
    RS_ASSERT(regcomp(&not_met, "[Nn][Oo][Tt] met", REG_EXTENDED | REG_NOSUB) == 0);
    const char *sec = "", *last = "";
    char *copy = strdup(body), *save = NULL;
    RS_ASSERT(copy != NULL);
    int n = 0, bad = 0;
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (strncmp(l, "## ", 3) == 0)
            sec = l + 3;
        else if (strncmp(l, "- ", 2) == 0 && regexec(&target, l, 0, NULL, 0) == 0) {
            if (strcmp(sec, last) != 0)
                fprintf(f, "\n**%s**\n\n", sec);
            last = sec;
            fprintf(f, "%s\n", l);
            n++;
            bad += regexec(&not_met, l, 0, NULL, 0) == 0;
        }
    }
    fprintf(f, "\n%d target lines, %d not met in this run.\n\n", n, bad);
    if (first < body + len)
        fprintf(f, "%s\n", first);
    regfree(&target);
    regfree(&not_met);
    free(copy);
    return ferror(f) ? -1 : 0;
}

static int raw(FILE *f, void *ctx)
{
    fputs(ctx, f);
    return ferror(f) ? -1 : 0;
}

int cmd_report(int argc, char **argv)
{
    static struct {
        int body;
        const char *out;
    } opt;
    static const rs_opt options[] = {
        {"body", RS_OPT_FLAG, &opt.body, NULL, "the sections alone, without the opening summary", 0, 0},
        {"out", RS_OPT_STR, &opt.out, "FILE", "write FILE instead of RUN/report.md (- for stdout)", 0, 0},
    };
    static const char usage[] = "usage: study report RUN [--body] [--out FILE|-]\n"
                                "RUN's report.md: the machine, a summary of every target line, a section per "
                                "study, and each claim of the two studies beside this run's figure.";
    char *pos[2];
    int npos = 2, rc = rs_opts_parse(argc, argv, options, RS_ARRAY_LEN(options), usage, pos, &npos);
    if (rc == 1)
        return 0;
    if (rc < 0 || npos != 1) {
        fprintf(stderr, "study report: %s (study report --help)\n", rc < 0 ? rs_lasterr() : "expected one RUN folder");
        return 2;
    }
    char run[4096], path[4200];
    snprintf(run, sizeof run, "%s", pos[0]);
    size_t n = strlen(run);
    if (n > 1 && run[n - 1] == '/')
        run[n - 1] = 0;
    struct stat st;
    if (stat(run, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "study report: %s is not a folder (give a run folder, e.g. results/runs/...)\n", run);
        return 2;
    }
    if ((!opt.out || strcmp(opt.out, "-") != 0) && study_hold(run, "study report") != 0) {
        fprintf(stderr, "study report: %s\n", rs_lasterr());
        return 2;
    }
    char *body = NULL;
    size_t blen = 0;
    report_ctx r = {.run = run, .out = open_memstream(&body, &blen)};
    RS_ASSERT(r.out != NULL);
    for (int i = 0; i < RS_ARRAY_LEN(sections); i++)
        sections[i](&r);
    RS_ASSERT(fclose(r.out) == 0);
    rs_writer_fn w = opt.body ? raw : compose;
    if (opt.out && strcmp(opt.out, "-") == 0)
        rc = w(stdout, body);
    else {
        snprintf(path, sizeof path, "%s/report.md", run);
        rc = rp_replace(opt.out ? opt.out : path, w, body);
        if (rc != 0)
            fprintf(stderr, "study report: %s\n", rs_lasterr());
    }
    free(body);
    return rc != 0 || r.unreadable ? 1 : 0;
}
