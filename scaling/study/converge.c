/* converge.c — the convergence study: steps to a target perplexity against the global
 * batch B = N x b, N synchronous workers of b streams each (rnn-train --workers N, the
 * exact emulation), the learning rate tuned over a grid per N.  The target is TARGET_X
 * times the Kneser-Ney trigram's valid perplexity on the same split (the point kn3);
 * valid is scored as EVAL_STREAMS streams at every batch (--eval-streams), so every
 * point meets the same target.  `make scaling` runs it first (study run converge).
 * The plan runs in the stages below, each adding what the points before it decide:
 * kn3 -> the GEMM plans -> the base grid -> refinement -> widening rounds, each refined.
 * Writes converge_grid.csv and, from the points, the tables, fit, figures and report
 * section (converge_collect.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "converge_study.h"
#include "fsio.h"

static const study_setting settings[] = {
    /* the optimizers compared at N = 256, the warmup tried at 800: both at 800 would
     * triple the study's cost, past its budget of 3 hours on 2 cores */
    {"N_LIST", "1 2 4 8 16 32 64 100 128 256 400 512 800", "1 4 16 64", SET_POS_INTS, NULL},
    {"B_LIST", "4", NULL, SET_POS_INTS, NULL},
    {"LR_FACTORS", "0.5 1 2", "0.5 1", SET_POS_NUMS, NULL},
    {"TARGET_X", "1.5", NULL, SET_POS_NUM, "a number > 0"},
    {"OPT_N", "256", "", SET_OPT_INTS, NULL},
    {"OPT_LIST", "adam lars lamb", NULL, SET_TEXT, NULL},
    {"WARMUP_N", "800", "", SET_OPT_INTS, NULL},
    {"WARMUP", "10", NULL, SET_UINT, "an integer >= 0 (warmup steps)"},
    {"EXTEND", "2", "0", SET_UINT, "an integer >= 0 (widening rounds)"},
    {"CAP_X", "3", NULL, SET_POS_NUM, "a number > 0"},
    {"CAP_EPOCHS", "50", NULL, SET_POS_INTS, NULL},
    {"EVAL_STREAMS", "64", NULL, SET_POS_INTS, NULL},
    {"THREADS", "1", NULL, SET_POS_INTS, NULL},
    {"SEED", "1", NULL, SET_TEXT, NULL},
    {"MODEL", "--model lstm --hidden 128 --classes 100 --bptt 35", NULL, SET_TEXT, NULL},
    /* plan: --gemm auto tunes once per batch (the point gemm-bX) and the points at that
     * batch name its picks, so a point run again gives the same bits; auto: each point
     * tunes itself; or one backend.  A folder made before the setting ran auto. */
    {"GEMM", "plan", NULL, SET_TEXT, NULL},
};
static const char *const absent[] = {"GEMM=auto", NULL};

#define V(name) study_value(r, name)

/* GEMM and OPT_LIST here; what only rnn-train can judge, by rnn-train itself. */
static int check(study_run *r)
{
    static const char *const gemms[] = {"plan", "auto", "openblas", "blis", "onednn", "blocked", "naive"};
    int known = 0;
    for (int i = 0; i < 7; i++)
        known |= strcmp(V("GEMM"), gemms[i]) == 0;
    RS_CHECK(known, "GEMM=%s: expected plan, auto or a backend (openblas, blis, onednn, blocked, naive)", V("GEMM"));
    char list[1024], *w[256], what[1200], args[4096];
    snprintf(list, sizeof list, "%s", V("OPT_LIST"));
    for (int i = 0, n = conv_words(list, w, 256); i < n; i++)
        RS_CHECK(conv_optimizer_known(w[i]), "OPT_LIST=%s: '%s' is not an optimizer the grid knows (momentum, "
                 "nesterov, sgd, adam, lars, lamb)", V("OPT_LIST"), w[i]);
#define TRAIN_CHECK(setting, ...)                                                          \
    do {                                                                                   \
        snprintf(what, sizeof what, "%s=%s", setting, V(setting));                         \
        snprintf(args, sizeof args, __VA_ARGS__);                                          \
        if (study_train_check(what, args) != 0)                                            \
            return -1;                                                                     \
    } while (0)
    TRAIN_CHECK("MODEL", "%s", V("MODEL"));
    TRAIN_CHECK("SEED", "%s --seed %s", V("MODEL"), V("SEED"));
    TRAIN_CHECK("THREADS", "%s --threads %s", V("MODEL"), V("THREADS"));
    if (strcmp(V("GEMM"), "plan") != 0 && strcmp(V("GEMM"), "auto") != 0)
        TRAIN_CHECK("GEMM", "%s --gemm %s", V("MODEL"), V("GEMM"));
    snprintf(list, sizeof list, "%s", V("B_LIST"));
    for (int i = 0, n = conv_words(list, w, 256); i < n; i++)
        TRAIN_CHECK("B_LIST", "%s --batch %s", V("MODEL"), w[i]);
#undef TRAIN_CHECK
    return 0;
}

/* Where a session's plan is: the stages run in this order, each once per session (a
 * resumed folder walks them again, adding only what is missing). */
enum { ST_BASELINE, ST_KN3, ST_GEMM, ST_GRID, ST_REFINE, ST_WIDEN, ST_DONE };

typedef struct {
    int stage, round;   /* round: widening rounds this session */
    conv_base base;
} conv_state;

static int stage(study_run *r, void *state)
{
    conv_state *s = state;
    conv_rows *rows;
    int rc = 0, listed;
    switch (s->stage++) {
    case ST_BASELINE: {
        char grid[2600];
        snprintf(grid, sizeof grid, "%s/converge_grid.csv", r->dir);
        FILE *f = rs_fopen_read(grid);
        if (!f && (f = fopen(grid, "w")))
            fprintf(f, "point,N,b,optimizer,lr,warmup,eval_every,steps_cap,refines\n");
        RS_CHECK(f && fclose(f) == 0, "cannot write %s", grid);
        /* the target on the corpus and vocabulary the points train on */
        char corpus[1024], vocab[64];
        study_argv c = {0};
        sa_words(&c, "rnn-train --model kn3 --csv summary.csv");
        sa_opt(&c, "--corpus", "%s", conv_model_flag(V("MODEL"), "--corpus", "mobydick", corpus, sizeof corpus));
        if (*conv_model_flag(V("MODEL"), "--vocab", "", vocab, sizeof vocab))
            sa_opt(&c, "--vocab", "%s", vocab);
        return study_add(r, "kn3", 1, "0", &c);
    }
    case ST_KN3:
        if (study_point_state(r, "kn3") <= 0 || conv_base_read(r, &s->base) != 0)
            return study_point_failed(r, "kn3");
        printf("converge: kn3 valid ppl %s; target valid ppl %s (%s x kn3); %s train tokens\n", s->base.kn3,
               s->base.target, V("TARGET_X"), s->base.ntrain);
        return 0;
    case ST_GEMM:
        return strcmp(V("GEMM"), "plan") == 0 ? conv_gemm_points(r) : 0;
    case ST_GRID:
        return conv_base_grid(r, &s->base);
    case ST_REFINE:
        if (!(rows = conv_rows_read(r, &s->base)))
            return -1;
        rc = conv_refine(r, rows);
        conv_rows_free(rows);
        return rc;
    case ST_WIDEN:
        if (s->round >= atoi(V("EXTEND")) || !(rows = conv_rows_read(r, &s->base))) {
            s->stage = ST_DONE;
            return s->round >= atoi(V("EXTEND")) ? 0 : -1;
        }
        rc = conv_widen(r, &s->base, rows, &listed);
        conv_rows_free(rows);
        s->round += listed > 0;
        s->stage = listed > 0 ? ST_REFINE : ST_DONE;
        return rc;
    default:
        s->stage = ST_DONE;
        return 0;
    }
}

static int plan(study_run *r)
{
    static conv_state state;
    if (!r->state) {
        memset(&state, 0, sizeof state);
        r->state = &state;
    }
    return study_stages(r, &state.stage, ST_DONE, stage, &state);
}

const study_def converge_study = {
    .name = "converge",
    .settings = settings,
    .nsettings = (int)(sizeof settings / sizeof settings[0]),
    .jobs = 1,
    .absent = absent,
    .check = check,
    .plan = plan,
    .collect = conv_collect,
};

const char *conv_model_flag(const char *model, const char *flag, const char *def, char *buf, size_t len)
{
    char copy[4096], *w[512];
    size_t fl = strlen(flag);
    snprintf(copy, sizeof copy, "%s", model);
    snprintf(buf, len, "%s", def);
    int n = conv_words(copy, w, 512);
    for (int i = 0; i < n; i++)
        if (strcmp(w[i], flag) == 0 && i + 1 < n)
            snprintf(buf, len, "%s", w[++i]);
        else if (strncmp(w[i], flag, fl) == 0 && w[i][fl] == '=')
            snprintf(buf, len, "%s", w[i] + fl + 1);
    return buf;
}
