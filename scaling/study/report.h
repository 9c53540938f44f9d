/* report.h — `study report RUN`: a run folder's report.md (cmd_report.c).
 *
 * The report is a list of sections, each one function that writes its Markdown from
 * the run's files when they are there (report_*.c); cmd_report.c runs them in order
 * and puts the summary (every target line, under its section) after the header.
 * Files are read with their cells' text as written (rs_table_read_csv_text), so a
 * cell quoted in the report reads as in the CSV.  Where a section tests or counts a
 * cell, it does so as awk does (rp_cmp, rp_num): the report's wording and verdicts
 * are those of the scripts it replaced, byte for byte. */
#ifndef STUDY_REPORT_H
#define STUDY_REPORT_H

#include <stdio.h>

#include "fsio.h"
#include "json.h"
#include "record.h"

typedef struct {
    const char *run;   /* the run folder, no trailing '/' */
    FILE *out;         /* the report's body */
    int unreadable;    /* files there that could not be read (noted on stderr) */
} report_ctx;

typedef void (*report_section)(report_ctx *r);

/* ---- the sections, in report order ---- */
void report_machine(report_ctx *r);      /* report_kernels.c: header, limits, exp, softmax, GEMM */
void report_peak(report_ctx *r);
void report_exp(report_ctx *r);
void report_softmax(report_ctx *r);
void report_gemm(report_ctx *r);
void report_allreduce(report_ctx *r);    /* report_allreduce.c */
void report_roofline(report_ctx *r);     /* roofline.c: the roofline's paragraph */
void report_train(report_ctx *r);        /* report_train.c: rnn-train */
void report_dp(report_ctx *r);           /* report_dp.c: the exchange, P = 2 and simulated */
/* report_dp.c: the step on simulated nodes alone, for make simulate's simulate_report.md */
void report_dp_simulated(report_ctx *r);
void report_peer(report_ctx *r);         /* report_peer.c: against PyTorch */
void report_net(report_ctx *r);          /* report_net.c: the simulator against a real network */
void report_scaling(report_ctx *r);      /* report_repro.c: the scaling sections, Reproduction */
void report_reproduction(report_ctx *r);

/* ---- for the sections (report_lib.c) ---- */
/* RUN/NAME exists. */
int rp_has(const report_ctx *r, const char *name);
/* RUN/NAME read as text; NULL if absent, or unreadable (one line on stderr). */
rs_table *rp_csv(report_ctx *r, const char *name);
/* The text of column COL in row ROW: "" for an empty cell or a column the file lacks. */
const char *rp_cell(const rs_table *t, int row, const char *col);
/* A text as an awk number: its longest leading number (strtod), else 0. */
double rp_num(const char *s);
/* Compares a cell with a number as awk does: as numbers when the text looks like one,
 * else as text against the number's text ("%.6g"); <0, 0, >0. */
int rp_cmp(const char *s, double x);
/* Two cells, as awk compares them: as numbers when both look like numbers, else as text. */
int rp_cmp2(const char *a, const char *b);
/* The Markdown table of the columns COLS (comma-separated; NULL: all) of the rows KEEP
 * keeps (NULL: all); non-integer numbers to 4 significant digits. */
void rp_md_table(report_ctx *r, const rs_table *t, const char *cols,
                 int (*keep)(const rs_table *t, int row));
/* The first member named KEY of TYPE anywhere in a JSON document, in file order (NULL). */
const rs_json *rp_json_first(const rs_json *v, const char *key, rs_jtype type);
/* The first string named KEY, or "". */
const char *rp_json_str(const rs_json *v, const char *key);
/* PATH written through WRITER (fsio.h), replacing the file it may be. */
int rp_replace(const char *path, rs_writer_fn writer, void *ctx);
/* RUN/NAME copied to the report as it is; 0, or -1 if it cannot be read. */
int rp_copy(report_ctx *r, const char *name);
/* RUN/NAME's lines (NULL-terminated, each without its '\n'), NULL if absent. */
char **rp_lines(const report_ctx *r, const char *name);
void rp_lines_free(char **lines);
/* Whitespace-separated words of S into W (at most N): how many. S is modified. */
int rp_words(char *s, char **w, int n);

#endif
