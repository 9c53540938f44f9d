/* models.c — the model-size study, as the GPU study ran it: class-based modest models
 * against larger full-softmax ones.  For each cell (CELLS: LSTM, Elman), hidden size and
 * seed, one model with a class layer (--classes ~ sqrt(V)) and one with the full softmax
 * train on the same number of tokens (TOKENS, with the plateau schedule's early stop,
 * evaluating every EVAL_EVERY steps; TOKENS=0: BUDGET_S seconds of one thread each),
 * then are scored on valid, test and the sentence-completion test; the Kneser-Ney
 * trigram is scored beside them (the point models-kn3, whose vocabulary sets the
 * classes).  Equal training time and equal GEMM work are the further axes: each point's
 * valid ppl where the cheapest model of its cell and seed stopped, read from its log.
 * Writes scaling_models.csv/.json, figures/scaling_models.png and scaling_models.md
 * (models_report.c), also put into scaling_report.md between <!-- scaling_models -->
 * marks.  `make scaling` runs it last. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw.h"
#include "cpu.h"
#include "figures.h"
#include "fsio.h"
#include "meta.h"
#include "models_study.h"
#include "proc.h"

static const study_setting settings[] = {
    {"HIDDEN_LIST", "128 256 512", "128 256", SET_POS_INTS, NULL},
    {"CELLS", "lstm", NULL, SET_TEXT, NULL},
    /* every model at each rate (the first seed), then the other seeds at its best: four
     * seeds paired across the models */
    {"LR_LIST", "0.001 0.002 0.004", "0.002 0.004", SET_OPT_NUMS, NULL},
    {"SEEDS", "1 2 3 4", "1 2", SET_POS_INTS, NULL},
    /* 1 M tokens: 0.1 epoch of big, what 2 cores give 24 models within the study's
     * budget; a cluster raises it until the plateau schedule stops every model */
    {"TOKENS", "1000000", "0", SET_UINT, "an integer >= 0 (tokens per model; 0: BUDGET_S seconds)"},
    {"BUDGET_S", "300", "15", SET_POS_NUM, "a number of seconds > 0"},
    {"EVAL_EVERY", "200", "50", SET_UINT, "an integer >= 0 (steps between evaluations; 0: once an epoch)"},
    {"CORPUS", "big", "mobydick", SET_TEXT, NULL},
    {"CLASSES", "0", NULL, SET_UINT, "an integer >= 0 (0: sqrt of the vocabulary)"},
    {"BATCH", "32", NULL, SET_POS_INTS, NULL},
    {"BPTT", "35", NULL, SET_POS_INTS, NULL},
    {"OPT_FLAGS", "--optimizer adam --schedule plateau", "--optimizer adam --schedule const", SET_TEXT, NULL},
    /* the evaluations during training score this prefix of valid; the final one all */
    {"EVAL_TOKENS", "160000", "0", SET_UINT, "an integer >= 0 (valid tokens an evaluation scores; 0: all)"},
    {"COMPLETION", "1000", "300", SET_POS_INTS, NULL},
    {"THREADS", "1", NULL, SET_POS_INTS, NULL},
};
/* a folder made before these settings: LSTM, seed 1, a time budget, evaluations once an
 * epoch */
static const char *const absent[] = {"CELLS=lstm", "SEEDS=1", "TOKENS=0", "EVAL_EVERY=0", "LR_LIST=",
                                     "EVAL_TOKENS=0", NULL};

#define V(name) study_value(r, name)

/* What only rnn-train can judge, by rnn-train itself (--check-args reads nothing). */
static int check(study_run *r)
{
    char what[512], args[2048], list[1024], *save;
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
    RS_CHECK(!V("LR_LIST")[0] || !strstr(V("OPT_FLAGS"), "--lr"), "OPT_FLAGS=%s names a rate, which LR_LIST=%s "
             "sets: drop --lr from OPT_FLAGS, or set LR_LIST= (empty) to use it", V("OPT_FLAGS"), V("LR_LIST"));
    snprintf(what, sizeof what, "THREADS=%s", V("THREADS"));
    TRAIN_CHECK("--threads %s", V("THREADS"));
    snprintf(what, sizeof what, "BUDGET_S=%s", V("BUDGET_S"));
    TRAIN_CHECK("--max-seconds %s", V("BUDGET_S"));
    snprintf(what, sizeof what, "COMPLETION=%s", V("COMPLETION"));
    TRAIN_CHECK("--completion %s", V("COMPLETION"));
    snprintf(list, sizeof list, "%s", V("CELLS"));
    snprintf(what, sizeof what, "CELLS=%s", V("CELLS"));
    int ncell = 0;
    for (char *c = strtok_r(list, " ", &save); c; c = strtok_r(NULL, " ", &save), ncell++)
        RS_CHECK(strcmp(c, "lstm") == 0 || strcmp(c, "elman") == 0, "CELLS=%s: '%s' is not lstm or elman",
                 V("CELLS"), c);
    RS_CHECK(ncell > 0, "CELLS is empty: name lstm, elman or both");
    snprintf(list, sizeof list, "%s", V("HIDDEN_LIST"));
    snprintf(what, sizeof what, "HIDDEN_LIST=%s, BATCH=%s, BPTT=%s, CLASSES=%s", V("HIDDEN_LIST"),
             V("BATCH"), V("BPTT"), V("CLASSES"));
    for (char *h = strtok_r(list, " ", &save); h; h = strtok_r(NULL, " ", &save))
        TRAIN_CHECK("--model lstm --hidden %s --classes %s --batch %s --bptt %s --corpus %s %s", h,
                    V("CLASSES"), V("BATCH"), V("BPTT"), corpus, V("OPT_FLAGS"));
#undef TRAIN_CHECK
    return 0;
}

/* The budget's flags: equal tokens (--steps, early stop by the schedule) or equal time. */
static void budget_flags(const study_run *r, char *buf, size_t len)
{
    long tokens = atol(V("TOKENS")), per_step = atol(V("BATCH")) * atol(V("BPTT"));
    int n = tokens > 0 ? snprintf(buf, len, "--steps %ld", (tokens + per_step - 1) / per_step)
                       : snprintf(buf, len, "--max-seconds %s --epochs 1000", V("BUDGET_S"));
    if (atol(V("EVAL_EVERY")) > 0)
        snprintf(buf + n, len - (size_t)n, " --eval-every %s", V("EVAL_EVERY"));
}

/* A model's point at rate lr (NULL: OPT_FLAGS's own, a folder from before LR_LIST) and
 * seed: models-CELL-hH-OUTPUT[-lrX]-sSEED.  study_add's result, or 1 when the point
 * has not finished (state, for the stage after it). */
static int add_model(study_run *r, const char *cell, const char *h, int full, const char *lr, const char *seed,
                     long classes, const char *budget, char *name, size_t len)
{
    snprintf(name, len, "models-%s-h%s-%s%s%s-s%s", cell, h, full ? "full" : "class", lr ? "-lr" : "",
             lr ? lr : "", seed);
    study_argv pc = {0};
    sa_add(&pc, "rnn-train");
    sa_opt(&pc, "--model", "%s", cell);
    sa_opt(&pc, "--hidden", "%s", h);
    sa_opt(&pc, "--classes", "%ld", full ? 0 : classes);
    sa_opt(&pc, "--corpus", "%s", V("CORPUS"));
    sa_opt(&pc, "--batch", "%s", V("BATCH"));
    sa_opt(&pc, "--bptt", "%s", V("BPTT"));
    sa_words(&pc, V("OPT_FLAGS"));
    if (lr)
        sa_opt(&pc, "--lr", "%s", lr);
    sa_opt(&pc, "--threads", "%s", V("THREADS"));
    sa_opt(&pc, "--seed", "%s", seed);
    sa_words(&pc, budget);
    if (atol(V("EVAL_TOKENS")) > 0)
        sa_opt(&pc, "--eval-tokens", "%s", V("EVAL_TOKENS"));
    sa_opt(&pc, "--completion", "%s", V("COMPLETION"));
    sa_words(&pc, "--checkpoint ckpt --resume-if-any --log log.csv --csv summary.csv --json summary.json");
    return study_add(r, name, atof(h) * (full ? 4 : 1), "0", &pc);
}

/* The first word of a list setting into buf. */
static const char *first_word(const study_run *r, const char *setting, char *buf, size_t len)
{
    snprintf(buf, len, "%s", V(setting));
    buf[strcspn(buf, " ")] = 0;
    return buf;
}

typedef struct {
    long classes;
    const char *budget;
} plan_ctx;

/* fn on every model: CELLS x HIDDEN_LIST x (class layer, full softmax).  fn's first
 * non-zero result. */
static int each_model(study_run *r, int (*fn)(study_run *, const char *, const char *, int, const plan_ctx *),
                      const plan_ctx *x)
{
    char cells[1024], hiddens[1024], *s1, *s2;
    snprintf(cells, sizeof cells, "%s", V("CELLS"));
    for (char *c = strtok_r(cells, " ", &s1); c; c = strtok_r(NULL, " ", &s1)) {
        snprintf(hiddens, sizeof hiddens, "%s", V("HIDDEN_LIST"));
        for (char *h = strtok_r(hiddens, " ", &s2); h; h = strtok_r(NULL, " ", &s2))
            for (int full = 0; full < 2; full++) {
                int rc = fn(r, c, h, full, x);
                if (rc != 0)
                    return rc;
            }
    }
    return 0;
}

/* A model at every rate of LR_LIST, the first seed. */
static int grid_model(study_run *r, const char *c, const char *h, int full, const plan_ctx *x)
{
    char rates[1024], seed[64], name[256], *s3;
    first_word(r, "SEEDS", seed, sizeof seed);
    snprintf(rates, sizeof rates, "%s", V("LR_LIST"));
    char *lr = strtok_r(rates, " ", &s3);
    do {
        if (add_model(r, c, h, full, lr, seed, x->classes, x->budget, name, sizeof name) != 0)
            return -1;
    } while (lr && (lr = strtok_r(NULL, " ", &s3)));
    return 0;
}

/* A finished point's final valid ppl (inf: none). */
static double final_ppl(const study_run *r, const char *name)
{
    if (study_point_state(r, name) <= 0)
        return INFINITY;
    char buf[64];
    rs_table *s = study_point_csv(r, name, "summary.csv");
    double v = s && *study_cell(s, "valid_ppl", buf, sizeof buf) ? atof(buf) : INFINITY;
    if (s)
        rs_table_free(s);
    return isfinite(v) ? v : INFINITY;
}

/* A model's other seeds at its rate with the lowest valid ppl, once all its rates ran
 * (the first seed's; a folder without LR_LIST: OPT_FLAGS's rate, at once). */
static int seeds_model(study_run *r, const char *c, const char *h, int full, const plan_ctx *x)
{
    char rates[1024], seedl[1024], first[64], name[256], best[64] = "", *s3;
    first_word(r, "SEEDS", first, sizeof first);
    snprintf(rates, sizeof rates, "%s", V("LR_LIST"));
    double low = INFINITY;
    int pending = 0;
    for (char *lr = strtok_r(rates, " ", &s3); lr; lr = strtok_r(NULL, " ", &s3)) {
        snprintf(name, sizeof name, "models-%s-h%s-%s-lr%s-s%s", c, h, full ? "full" : "class", lr, first);
        pending |= study_point_state(r, name) == 0;
        double v = final_ppl(r, name);
        if (v < low)
            low = v, snprintf(best, sizeof best, "%s", lr);
    }
    if (V("LR_LIST")[0] && (pending || !best[0]))
        return 0;   /* its rates still running, or none trained */
    snprintf(seedl, sizeof seedl, "%s", V("SEEDS"));
    char *s4, *sd = strtok_r(seedl, " ", &s4);   /* the first: already run */
    while ((sd = strtok_r(NULL, " ", &s4)))
        if (add_model(r, c, h, full, best[0] ? best : NULL, sd, x->classes, x->budget, name, sizeof name) != 0)
            return -1;
    return 0;
}

/* The baseline first (its vocabulary sets the class count), then every (cell, hidden,
 * output layer, seed) point; larger models cost more, hence the weight. */
static int plan(study_run *r)
{
    study_argv kc = {0};
    sa_words(&kc, "rnn-train --model kn3");
    sa_opt(&kc, "--corpus", "%s", V("CORPUS"));
    sa_words(&kc, "--seed 1");
    sa_opt(&kc, "--completion", "%s", V("COMPLETION"));
    sa_words(&kc, "--csv summary.csv");
    if (study_add(r, "models-kn3", 1, "0", &kc) != 0)
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
    char budget[256];
    budget_flags(r, budget, sizeof budget);
    plan_ctx x = {classes, budget};
    int before = r->added, rc = each_model(r, grid_model, &x);
    if (rc == 0)
        rc = each_model(r, seeds_model, &x);
    if (r->added > before)
        printf("models: vocabulary %ld; class layer of %ld classes; %s per point\n", vocab, classes, budget);
    return rc;
}

static const char *const columns[] = {
    "point", "model", "output", "hidden", "lr", "chosen", "seed", "classes", "params", "budget_s", "budget_tokens", "steps",
    "tokens", "seconds", "tokens_per_s", "gflop_per_token", "valid_ppl", "test_ppl", "completion_questions",
    "completion_accuracy", "completion_se", "equal_seconds", "valid_ppl_at_equal_seconds", "equal_gflop",
    "valid_ppl_at_equal_gflop", "kn3_valid_ppl", "kn3_test_ppl", "kn3_completion_accuracy", "stop", "status"};

/* A point's name: models-CELL-hH-OUTPUT-lrX-sSEED, a folder's made before LR_LIST
 * models-CELL-hH-OUTPUT-sSEED (lr ""), or one's before cells and seeds, models-hH-OUTPUT
 * (LSTM, seed 1).  1 if it is one. */
static int parse_name(const char *name, char *cell, int *hidden, char *out, int *seed, char lr[32])
{
    int used = 0;
    char head[160];
    lr[0] = 0;
    const char *at = strstr(name, "-lr"), *s = strrchr(name, '-');
    if (at && s && s > at + 3 && (size_t)(s - at - 3) < 32 && (size_t)(at - name) < sizeof head) {
        snprintf(lr, 32, "%.*s", (int)(s - at - 3), at + 3);
        snprintf(head, sizeof head, "%.*s%s", (int)(at - name), name, s);   /* the name without -lrX */
        name = head;
    }
    if (sscanf(name, "models-%15[a-z]-h%d-%15[a-z]-s%d%n", cell, hidden, out, seed, &used) == 4 && !name[used])
        return strcmp(out, "class") == 0 || strcmp(out, "full") == 0;
    lr[0] = 0;
    used = 0;
    if (sscanf(name, "models-h%d-%15[a-z]%n", hidden, out, &used) != 2 || name[used])
        return 0;
    strcpy(cell, "lstm");
    *seed = 1;
    return strcmp(out, "class") == 0 || strcmp(out, "full") == 0;
}
#define NCOLUMNS ((int)(sizeof columns / sizeof columns[0]))

/* The model's parameter count, from the trainer's "... N parameters" line. */
static void params_of(const study_run *r, const char *name, char *buf, size_t len)
{
    char path[8192], line[4096];
    snprintf(path, sizeof path, "%s/points/%.255s/stdout.txt", r->dir, name);
    FILE *f = rs_fopen_read(path);
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
    char cell[16], out[16], lr[32];
    int hidden = 0, seed = 0;
    parse_name(name, cell, &hidden, out, &seed, lr);
    SET("point", name);
    SET("lr", lr);
    SET("model", cell);
    SET("output", out);
    snprintf(buf, sizeof buf, "%d", hidden);
    SET("hidden", buf);
    snprintf(buf, sizeof buf, "%d", seed);
    SET("seed", buf);
    FROM("classes", s, "classes");
    params_of(r, name, buf, sizeof buf);
    SET("params", buf);
    if (atol(V("TOKENS")) > 0)
        SET("budget_tokens", V("TOKENS"));
    else
        SET("budget_s", V("BUDGET_S"));
    FROM("gflop_per_token", s, "gflop_per_token");
    FROM("stop", s, "stop");
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
    FILE *f = rs_fopen_read(path);
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
    FILE *f = rs_fopen_read(r->points);
    while (f && n < most && fgets(line, sizeof line, f)) {
        char cell[16], out[16], lr[32];
        int h = 0, seed = 0;
        if (sscanf(line, "%127s", name) == 1 && parse_name(name, cell, &h, out, &seed, lr))
            snprintf(names[n++], 128, "%s", name);
    }
    if (f)
        fclose(f);
    return n;
}

/* The valid ppl of point NAME's last logged evaluation whose COL is at most LIMIT (""
 * if none). */
static void ppl_at(const study_run *r, const char *name, const char *col, double limit, char *buf, size_t len)
{
    rs_table *log = study_point_csv(r, name, "log.csv");
    char v[64], p[64];
    buf[0] = 0;
    for (int i = 0; log && i < rs_table_nrows(log); i++)
        if (*study_cell_at(log, i, col, v, sizeof v) && atof(v) <= limit * (1 + 1e-9) &&
            *study_cell_at(log, i, "valid_ppl", p, sizeof p))
            snprintf(buf, len, "%s", p);
    if (log)
        rs_table_free(log);
}

/* chosen = 1 on the rows at each model's rate with the lowest valid ppl of its first
 * seed, the one that ran every rate (every row where the points name no rate). */
static void chosen(rs_table *t)
{
    int n = rs_table_nrows(t);
    char (*key)[96] = calloc((size_t)n + 1, sizeof *key), c[64], lr[64], best[64];
    RS_ASSERT(key != NULL);
    for (int i = 0; i < n; i++) {   /* the model: cell, hidden, output */
        char a[32], b[32];
        snprintf(key[i], sizeof key[i], "%.30s %.30s %.30s", study_cell_at(t, i, "model", a, sizeof a),
                 study_cell_at(t, i, "hidden", b, sizeof b), study_cell_at(t, i, "output", c, sizeof c));
    }
    for (int i = 0; i < n; i++) {
        int first = -1;
        for (int j = 0; j < n; j++) {
            int seed = atoi(study_cell_at(t, j, "seed", c, sizeof c));
            if (strcmp(key[j], key[i]) == 0 && (first < 0 || seed < first))
                first = seed;
        }
        double low = INFINITY;
        best[0] = 0;
        for (int j = 0; j < n; j++) {
            double v = atof(study_cell_at(t, j, "valid_ppl", c, sizeof c));
            if (strcmp(key[j], key[i]) == 0 && atoi(study_cell_at(t, j, "seed", c, sizeof c)) == first && v > 0 &&
                v < low)
                low = v, study_cell_at(t, j, "lr", best, sizeof best);
        }
        study_cell_at(t, i, "lr", lr, sizeof lr);
        rs_set_str(t, i, "chosen", !lr[0] || strcmp(lr, best) == 0 ? "1" : "0");
    }
    free(key);
}

/* Equal training time and equal GEMM work: per (cell, seed), the least seconds and the
 * least GFLOP any of its models trained, and each model's valid ppl there. */
static void equal_axes(const study_run *r, rs_table *t)
{
    int n = rs_table_nrows(t);
    char a[64], b[64], c[64], d[64], buf[64];
    for (int i = 0; i < n; i++) {
        double w = INFINITY, g = INFINITY;
        study_cell_at(t, i, "model", a, sizeof a);
        study_cell_at(t, i, "seed", b, sizeof b);
        for (int j = 0; j < n; j++) {
            if (strcmp(study_cell_at(t, j, "model", c, sizeof c), a) || strcmp(study_cell_at(t, j, "seed", d, sizeof d), b))
                continue;
            double sec = atof(study_cell_at(t, j, "seconds", c, sizeof c)), tok = atof(study_cell_at(t, j, "tokens", d, sizeof d));
            double gpt = atof(study_cell_at(t, j, "gflop_per_token", c, sizeof c));
            w = sec > 0 && sec < w ? sec : w;
            g = gpt > 0 && tok > 0 && gpt * tok < g ? gpt * tok : g;
        }
        char name[160];
        study_cell_at(t, i, "point", name, sizeof name);
        double gpt = atof(study_cell_at(t, i, "gflop_per_token", c, sizeof c));
        if (isfinite(w)) {
            snprintf(buf, sizeof buf, "%.4g", w);
            rs_set_str(t, i, "equal_seconds", buf);
            ppl_at(r, name, "seconds", w, buf, sizeof buf);
            if (buf[0])
                rs_set_str(t, i, "valid_ppl_at_equal_seconds", buf);
        }
        if (isfinite(g) && gpt > 0) {
            snprintf(buf, sizeof buf, "%.4g", g);
            rs_set_str(t, i, "equal_gflop", buf);
            ppl_at(r, name, "tokens", g / gpt, buf, sizeof buf);
            if (buf[0])
                rs_set_str(t, i, "valid_ppl_at_equal_gflop", buf);
        }
    }
}

static int draw(const study_run *r) { return study_draw(r->dir, "scaling_models", NULL, NULL, "models") == 1; }

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
        fprintf(stderr, "models: every point failed (their logs: %s/points/models-*/stderr.txt); no "
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
    chosen(text);
    equal_axes(r, text);
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
    .absent = absent,
    .check = check,
    .plan = plan,
    .collect = collect,
};
