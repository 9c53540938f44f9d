/* models.c — the model-size study: class-based modest models against larger
 * full-softmax ones at an equal training-time budget.  For each hidden size, an LSTM
 * with a class layer (--classes ~ sqrt(V)) and one with the full softmax train for
 * BUDGET_S seconds of one thread (rnn-train --max-seconds, evaluations excluded), then
 * are scored on valid, test and the sentence-completion test; the Kneser-Ney trigram
 * is scored beside them (the point models-kn3, whose vocabulary sets the classes).
 * Writes scaling_models.csv/.json, figures/scaling_models.png and scaling_models.md
 * (models_report.c), also put into scaling_report.md between <!-- scaling_models -->
 * marks.  `make scaling` runs it after the convergence study. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu.h"
#include "figures.h"
#include "fsio.h"
#include "meta.h"
#include "models_study.h"
#include "proc.h"

static const study_setting settings[] = {
    {"HIDDEN_LIST", "128 256 512 1024", "128 256", SET_POS_INTS, NULL},
    {"BUDGET_S", "300", "30", SET_POS_NUM, "a number of seconds > 0"},
    {"CORPUS", "mobydick", NULL, SET_TEXT, NULL},
    {"CLASSES", "0", NULL, SET_UINT, "an integer >= 0 (0: sqrt of the vocabulary)"},
    {"BATCH", "32", NULL, SET_POS_INTS, NULL},
    {"BPTT", "35", NULL, SET_POS_INTS, NULL},
    {"OPT_FLAGS", "--optimizer adam --lr 0.002 --schedule const", NULL, SET_TEXT, NULL},
    {"COMPLETION", "300", NULL, SET_POS_INTS, NULL},
    {"THREADS", "1", NULL, SET_POS_INTS, NULL},
    {"SEED", "1", NULL, SET_TEXT, NULL},
};

#define V(name) study_value(r, name)

/* What only rnn-train can judge, by rnn-train itself (--check-args reads nothing). */
static int check(study_run *r)
{
    char what[512], args[2048];
    const char *corpus = V("CORPUS");
#define TRAIN_CHECK(...)                                                                   \
    do {                                                                                   \
        snprintf(args, sizeof args, __VA_ARGS__);                                          \
        if (study_train_check(what, args) != 0)                                            \
            return -1;                                                                     \
    } while (0)
    snprintf(what, sizeof what, "CORPUS=%s", corpus);
    TRAIN_CHECK("--corpus %s", corpus);
    snprintf(what, sizeof what, "OPT_FLAGS=%s", V("OPT_FLAGS"));
    TRAIN_CHECK("--corpus %s %s", corpus, V("OPT_FLAGS"));
    snprintf(what, sizeof what, "SEED=%s", V("SEED"));
    TRAIN_CHECK("--seed %s", V("SEED"));
    snprintf(what, sizeof what, "THREADS=%s", V("THREADS"));
    TRAIN_CHECK("--threads %s", V("THREADS"));
    snprintf(what, sizeof what, "BUDGET_S=%s", V("BUDGET_S"));
    TRAIN_CHECK("--max-seconds %s", V("BUDGET_S"));
    snprintf(what, sizeof what, "COMPLETION=%s", V("COMPLETION"));
    TRAIN_CHECK("--completion %s", V("COMPLETION"));
    char list[1024], *save;
    snprintf(list, sizeof list, "%s", V("HIDDEN_LIST"));
    snprintf(what, sizeof what, "HIDDEN_LIST=%s, BATCH=%s, BPTT=%s, CLASSES=%s", V("HIDDEN_LIST"),
             V("BATCH"), V("BPTT"), V("CLASSES"));
    for (char *h = strtok_r(list, " ", &save); h; h = strtok_r(NULL, " ", &save))
        TRAIN_CHECK("--model lstm --hidden %s --classes %s --batch %s --bptt %s --corpus %s %s", h,
                    V("CLASSES"), V("BATCH"), V("BPTT"), corpus, V("OPT_FLAGS"));
#undef TRAIN_CHECK
    return 0;
}

/* The baseline first (its vocabulary sets the class count), then every (hidden, output
 * layer) point; larger models cost more outside the budget (evaluation, completion),
 * hence the weight. */
static int plan(study_run *r)
{
    if (study_add(r, "models-kn3", 1, "0", "rnn-train --model kn3 --corpus %s --seed %s --completion %s "
                  "--csv summary.csv", V("CORPUS"), V("SEED"), V("COMPLETION")) != 0)
        return -1;
    int st = study_point_state(r, "models-kn3");
    if (st <= 0)
        return st < 0 ? 1 : 0;
    char buf[64];
    rs_table *kn3 = study_point_csv(r, "models-kn3", "summary.csv");
    long vocab = atol(study_cell(kn3, "vocab", buf, sizeof buf));
    if (kn3)
        rs_table_free(kn3);
    if (vocab <= 0) {
        rs_seterr("the point models-kn3 wrote no vocabulary (logs: %s/points/models-kn3/); "
                  "nothing more to run", r->dir);
        return 1;
    }
    long classes = atol(V("CLASSES"));
    if (classes <= 0)
        classes = (long)(sqrt((double)vocab) + 0.5);
    double budget = atof(V("BUDGET_S"));
    char list[1024], *save;
    snprintf(list, sizeof list, "%s", V("HIDDEN_LIST"));
    int before = r->added;
    for (char *h = strtok_r(list, " ", &save); h; h = strtok_r(NULL, " ", &save))
        for (int full = 0; full < 2; full++) {
            char name[128];
            snprintf(name, sizeof name, "models-h%s-%s", h, full ? "full" : "class");
            if (study_add(r, name, round(budget + atof(h) / 16), "0",
                          "rnn-train --model lstm --hidden %s --classes %ld --corpus %s --batch %s "
                          "--bptt %s %s --threads %s --seed %s --max-seconds %s --epochs 1000 "
                          "--completion %s --log log.csv --csv summary.csv --json summary.json",
                          h, full ? 0 : classes, V("CORPUS"), V("BATCH"), V("BPTT"), V("OPT_FLAGS"),
                          V("THREADS"), V("SEED"), V("BUDGET_S"), V("COMPLETION")) != 0)
                return -1;
        }
    if (r->added > before)
        printf("models: vocabulary %ld; class layer of %ld classes; budget %s s per point\n", vocab,
               classes, V("BUDGET_S"));
    return 0;
}

static const char *const columns[] = {
    "point", "model", "output", "hidden", "classes", "params", "budget_s", "steps", "tokens",
    "seconds", "tokens_per_s", "valid_ppl", "test_ppl", "completion_questions",
    "completion_accuracy", "completion_se", "kn3_valid_ppl", "kn3_test_ppl",
    "kn3_completion_accuracy", "status"};
#define NCOLUMNS ((int)(sizeof columns / sizeof columns[0]))

/* The model's parameter count, from the trainer's "... N parameters" line. */
static void params_of(const study_run *r, const char *name, char *buf, size_t len)
{
    char path[8192], line[4096];
    snprintf(path, sizeof path, "%s/points/%.255s/stdout.txt", r->dir, name);
    FILE *f = fopen(path, "r");
    buf[0] = 0;
    while (f && !buf[0] && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        size_t l = strlen(line);
        if (l > 11 && strcmp(line + l - 11, " parameters") == 0) {
            line[l - 11] = 0;
            char *num = strrchr(line, ' ');
            if (num && num[1] && num[1 + strspn(num + 1, "0123456789")] == 0)
                snprintf(buf, len, "%s", num + 1);
        }
    }
    if (f)
        fclose(f);
}

/* One point's row, as text (the table is typed when written). */
static void point_row(const study_run *r, rs_table *t, const char *name, const rs_table *kn3)
{
    char buf[256], path[2600];
    rs_table *s = study_point_csv(r, name, "summary.csv");
    int row = rs_table_row(t);
#define SET(col, val) rs_set_str(t, row, col, val)
#define FROM(col, tab, key) SET(col, study_cell(tab, key, buf, sizeof buf))
    SET("point", name);
    SET("model", "lstm");
    const char *h = name + strlen("models-h");
    SET("output", strrchr(name, '-') + 1);
    snprintf(buf, sizeof buf, "%.*s", (int)strspn(h, "0123456789"), h);
    SET("hidden", buf);
    FROM("classes", s, "classes");
    params_of(r, name, buf, sizeof buf);
    SET("params", buf);
    SET("budget_s", V("BUDGET_S"));
    FROM("steps", s, "steps");
    FROM("tokens", s, "tokens");
    FROM("seconds", s, "seconds");
    FROM("tokens_per_s", s, "tokens_per_s");
    FROM("valid_ppl", s, "valid_ppl");
    FROM("test_ppl", s, "test_ppl");
    FROM("completion_questions", s, "completion_questions");
    FROM("completion_accuracy", s, "completion_accuracy");
    char n[64], acc[64];
    study_cell(s, "completion_questions", n, sizeof n);
    study_cell(s, "completion_accuracy", acc, sizeof acc);
    if (n[0] && acc[0]) {
        double p = atof(acc);
        snprintf(buf, sizeof buf, "%.4f", sqrt(p * (1 - p) / atof(n)));
        SET("completion_se", buf);
    }
    FROM("kn3_valid_ppl", kn3, "valid_ppl");
    FROM("kn3_test_ppl", kn3, "test_ppl");
    FROM("kn3_completion_accuracy", kn3, "completion_accuracy");
    int st = study_point_state(r, name);
    snprintf(path, sizeof path, "%s/points/%.255s/rc", r->dir, name);
    FILE *f = fopen(path, "r");
    int rc = 0;
    if (f && fscanf(f, "%d", &rc) != 1)
        rc = 0;
    if (f)
        fclose(f);
    if (st == 0)
        SET("status", "not run");
    else if (st > 0)
        FROM("status", s, "stop");
    else if (study_point_says(r->dir, name, "diverg"))
        SET("status", "diverged");
    else {
        snprintf(buf, sizeof buf, "failed (exit %d)", rc);
        SET("status", buf);
    }
#undef FROM
#undef SET
    if (s)
        rs_table_free(s);
}

/* The (hidden, output) points in the points file's order. */
static int point_names(const study_run *r, char names[][128], int most)
{
    char line[8192], name[128];
    int n = 0;
    FILE *f = fopen(r->points, "r");
    while (f && n < most && fgets(line, sizeof line, f)) {
        char out[16] = "";
        int h = 0, used = 0;
        if (sscanf(line, "%127s", name) == 1 && sscanf(name, "models-h%d-%15[a-z]%n", &h, out, &used) == 2 &&
            name[used] == 0 && (strcmp(out, "class") == 0 || strcmp(out, "full") == 0))
            snprintf(names[n++], 128, "%s", name);
    }
    if (f)
        fclose(f);
    return n;
}

static int draw(const study_run *r)
{
    char values[8192], dir[2600], e[16384];
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        return 0;
    snprintf(dir, sizeof dir, "%s/figures", r->dir);
    if (rs_mkdir_p(dir) != 0 || figure_vars(r->dir, "scaling_models", values, sizeof values) != 0) {
        printf("models: %s\n", rs_lasterr());
        return 1;
    }
    snprintf(e, sizeof e, "csv='%s/scaling_models.csv'; out='%s/scaling_models.png'; %s", r->dir, dir, values);
    char *argv[] = {"gnuplot", "-e", e, "plot/scaling_models.gp", NULL};
    if (proc_run(argv, NULL, NULL, NULL, 0, NULL) != 0) {
        printf("models: plot/scaling_models.gp failed\n");
        return 1;
    }
    return 0;
}

static int write_md(FILE *f, void *ctx)
{
    const study_run *r = ctx;
    char csv[2600];
    snprintf(csv, sizeof csv, "%s/scaling_models.csv", r->dir);
    return models_report(r, csv, f);
}

static int collect(study_run *r)
{
    static char names[512][128];
    int n = point_names(r, names, 512), done = 0;
    for (int i = 0; i < n; i++)
        done += study_point_state(r, names[i]) > 0;
    if (done == 0) {
        fprintf(stderr, "models: every point failed (their logs: %s/points/models-h*/stderr.txt); no "
                "table, report or figure written\n", r->dir);
        return 1;
    }
    rs_table *kn3 = study_point_csv(r, "models-kn3", "summary.csv");
    RS_CHECK(kn3, "%s/points/models-kn3/summary.csv: no baseline", r->dir);
    rs_col cols[NCOLUMNS];
    for (int c = 0; c < NCOLUMNS; c++)
        cols[c] = (rs_col){columns[c], RS_STR, 0};
    rs_table *text = rs_table_new("scaling_models", cols, NCOLUMNS);
    for (int i = 0; i < n; i++)
        point_row(r, text, names[i], kn3);
    char buf[2600];
    snprintf(buf, sizeof buf, "build/bin/study run models %s", r->dir);
    study_meta_std(text, buf);
    rs_table_meta(text, "corpus", V("CORPUS"));
    rs_table_meta(text, "vocab", study_cell(kn3, "vocab", buf, sizeof buf));
    for (int i = 0; i < r->def->nsettings; i++) {
        char key[128];
        snprintf(key, sizeof key, "setting_%s", r->def->settings[i].name);
        rs_table_meta(text, key, r->value[i]);
    }
    rs_table_free(kn3);
    rs_table *t = rs_table_typed(text, "scaling_models");
    rs_table_free(text);
    static const char *const files[] = {"scaling_models.csv", "scaling_models.json",
                                        "scaling_models.md", "figures/scaling_models.png"};
    int status = 0;
    for (int i = 0; i < 4 && status == 0; i++)
        status = study_keep_aside(r, files[i]) != 0;
    char csv[2600], json[2600], md[2600];
    snprintf(csv, sizeof csv, "%s/scaling_models.csv", r->dir);
    snprintf(json, sizeof json, "%s/scaling_models.json", r->dir);
    snprintf(md, sizeof md, "%s/scaling_models.md", r->dir);
    if (status == 0 && (rs_table_write_csv(t, csv) != 0 || rs_table_write_json(t, json) != 0)) {
        fprintf(stderr, "models: %s\n", rs_lasterr());
        status = 1;
    }
    rs_table_free(t);
    if (status == 0) {
        status |= draw(r);
        if (rs_write_atomic(md, write_md, r) == 0 && study_report_section(r, "scaling_models", "scaling_models.md") == 0)
            printf("models: section %s\nmodels: report %s/scaling_report.md\n", md, r->dir);
        else {
            fprintf(stderr, "models: %s\n", rs_lasterr());
            status = 1;
        }
    }
    return status;
}

const study_def models_study = {
    .name = "models",
    .settings = settings,
    .nsettings = (int)(sizeof settings / sizeof settings[0]),
    .jobs = 2,   /* the class and full points of a hidden size side by side, under one load */
    .check = check,
    .plan = plan,
    .collect = collect,
};
