/* regime.c — the Sunway regime study: steps to several targets against the global batch
 * B = N x b in the Sunway TaihuLight study's regime (b = 80 sequences a worker, N = 1 to
 * 100 workers: B = 80 to 8,000, on the 9.8 M-token corpus `big`), each optimizer a
 * practitioner would use tuned at every B: Adam and LAMB (the square-root rule from
 * their N = 1 best, x LR_FACTORS), momentum with the square-root and the linear rules
 * (and the rate between), WARMUP steps of warmup at N > 1; two seeds where the verdict
 * rests (SEED_N).  The targets: TARGETS_X x kn3's perplexity on the evaluated prefix of
 * valid, and the hard one, BEST_WITHIN above the lowest any N = 1 run reaches in
 * REF_EPOCHS; every point logs its evaluations (--eval-growth 0.05: every count within
 * 5%), so one run gives its steps to every target.
 * The plan: kn3 -> GEMM plans -> N = 1 grids (to REF_EPOCHS) -> widened -> the hard
 * target -> N > 1 centres -> the rest of each grid, capped at the centre's steps to the
 * hard target (a rate slower than the centre cannot be the best) -> widened -> seeds.
 * Writes regime_points.csv, regime_steps.csv, regime_fit.json and regime_report.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "regime_study.h"

static const study_setting settings[] = {
    {"CORPUS", "big", "mobydick", SET_TEXT, NULL},
    {"VOCAB", "10000", "2000", SET_POS_INTS, NULL},
    {"MODEL", "--model lstm --hidden 128 --classes 100 --bptt 35", "--model lstm --hidden 32 --classes 40 --bptt 20",
     SET_TEXT, NULL},
    {"B", "80", "8", SET_POS_INTS, NULL},
    {"N_LIST", "1 2 4 8 16 32 100", "1 4 16", SET_POS_INTS, NULL},
    {"OPT_LIST", "adam lamb momentum", "adam momentum", SET_TEXT, NULL},
    {"LR_FACTORS", "0.5 1 2", NULL, SET_POS_NUMS, NULL},
    {"EXTEND", "9", "1", SET_UINT, "an integer >= 0 (widening rounds, at most 9)"},
    {"SEEDS", "1 2", NULL, SET_POS_INTS, NULL},
    {"SEED_N", "1 100", "1 16", SET_POS_INTS, NULL},
    {"TARGETS_X", "1.5 1.25 1", "3 2.5", SET_POS_NUMS, NULL},
    {"BEST_WITHIN", "0.05", "0.2", SET_POS_NUM, "a number > 0 (the hard target: that fraction above the best)"},
    {"REF_EPOCHS", "1", "0.3", SET_POS_NUM, "a number of epochs > 0"},
    {"CAP_EPOCHS", "2", NULL, SET_POS_NUM, "a number of epochs > 0"},
    {"WARMUP", "10", "2", SET_UINT, "an integer >= 0 (warmup steps at N > 1)"},
    {"CLIP", "5", NULL, SET_TEXT, NULL},
    {"MOMENTUM_CLIP", "0", NULL, SET_TEXT, NULL},
    {"TUNE_N", "1 100", "1 16", SET_OPT_INTS, NULL},
    {"TUNE_WARMUP", "0.25", NULL, SET_POS_NUM, "a fraction of the run's cap > 0 (the tuning's long warmup)"},
    {"LONG_N", "16", NULL, SET_POS_INTS, NULL},
    {"LONG_EPOCHS", "5", "3", SET_POS_NUM, "a number of epochs > 0"},
    {"GROUP_MAX", "800", "64", SET_POS_INTS, NULL},
    {"EVAL_STREAMS", "800", "16", SET_POS_INTS, NULL},
    {"EVAL_TOKENS", "160000", "8000", SET_POS_INTS, NULL},
    {"EVAL_GATE", "1.25", "1.2", SET_TEXT, NULL},
    {"CLAIM_N", "100", "16", SET_POS_INTS, NULL},
    {"THREADS", "1", NULL, SET_POS_INTS, NULL},
};

/* a folder made before these settings: no gate, no tuning, no long caps, rnn-train's
 * default clip 5 for every optimizer */
static const char *const absent[] = {"EVAL_GATE=0",       "CLIP=5",          "MOMENTUM_CLIP=5", "TUNE_N=",
                                     "TUNE_WARMUP=0.25",  "LONG_N=1000000",  "LONG_EPOCHS=1",   NULL};

#define V(name) study_value(r, name)

static int check(study_run *r)
{
    char list[1024], *w[64], what[1200], args[4096];
    snprintf(list, sizeof list, "%s", V("OPT_LIST"));
    int n = 0;
    for (char *t = strtok(list, " "); t && n < 64; t = strtok(NULL, " "))
        w[n++] = t;
    RS_CHECK(n > 0, "OPT_LIST is empty: name one or more of adam, lamb, momentum");
    for (int i = 0; i < n; i++) {
        RS_CHECK(regime_optimizer_known(w[i]), "OPT_LIST=%s: '%s' is not one of adam, lamb, momentum", V("OPT_LIST"),
                 w[i]);
        for (int j = 0; j < i; j++)
            RS_CHECK(strcmp(w[i], w[j]) != 0, "OPT_LIST=%s: '%s' twice", V("OPT_LIST"), w[i]);
    }
    /* the tables' sizes (regime_study.h, regime_collect.h) */
    static const struct {
        const char *name;
        int most;
    } most[] = {{"LR_FACTORS", 15}, {"TARGETS_X", REGIME_MAX_TARGETS - 1}, {"SEEDS", 8}};
    for (int i = 0; i < 3; i++) {
        snprintf(list, sizeof list, "%s", V(most[i].name));
        int k = 0;
        for (char *t = strtok(list, " "); t; t = strtok(NULL, " "))
            k++;
        RS_CHECK(k <= most[i].most, "%s=%s: at most %d values", most[i].name, V(most[i].name), most[i].most);
    }
    RS_CHECK(atoi(V("EXTEND")) <= REGIME_MAX_WIDEN, "EXTEND=%s: at most %d widening rounds", V("EXTEND"),
             REGIME_MAX_WIDEN);
    char *end;
    static const char *const clips[] = {"CLIP", "MOMENTUM_CLIP"};
    for (int i = 0; i < 2; i++) {
        double c = strtod(V(clips[i]), &end);
        RS_CHECK(end != V(clips[i]) && *end == 0 && c >= 0 && isfinite(c),
                 "%s=%s: not a gradient norm >= 0 (0: no clipping)", clips[i], V(clips[i]));
    }
    RS_CHECK(atof(V("CLIP")) > 0, "CLIP=%s: the clip the tuning switches to must be > 0", V("CLIP"));
    double gate = strtod(V("EVAL_GATE"), &end);
    RS_CHECK(end != V("EVAL_GATE") && *end == 0 && (gate == 0 || (gate > 1 && gate < 100)),
             "EVAL_GATE=%s: not 0 (off) or a factor over the easiest target > 1 (e.g. 1.25)", V("EVAL_GATE"));
    RS_CHECK(atol(V("EVAL_STREAMS")) % atol(V("B")) == 0, "EVAL_STREAMS=%s: not a multiple of B=%s (each worker "
             "scores B streams at a time)", V("EVAL_STREAMS"), V("B"));
    snprintf(list, sizeof list, "%s", V("N_LIST"));
    int one = 0, claim = 0;
    for (char *t = strtok(list, " "); t; t = strtok(NULL, " ")) {
        one |= atol(t) == 1;
        claim |= atol(t) == atol(V("CLAIM_N"));
    }
    RS_CHECK(one && claim, "N_LIST=%s: must hold 1 and CLAIM_N=%s (the verdict's two batches)", V("N_LIST"),
             V("CLAIM_N"));
#define TRAIN_CHECK(setting, ...)                                                          \
    do {                                                                                   \
        snprintf(what, sizeof what, "%s=%s", setting, V(setting));                         \
        snprintf(args, sizeof args, __VA_ARGS__);                                          \
        if (study_train_check(what, args) != 0)                                            \
            return -1;                                                                     \
    } while (0)
    TRAIN_CHECK("CORPUS", "--corpus %s", V("CORPUS"));
    TRAIN_CHECK("MODEL", "%s --corpus %s --vocab %s", V("MODEL"), V("CORPUS"), V("VOCAB"));
    TRAIN_CHECK("THREADS", "%s --threads %s", V("MODEL"), V("THREADS"));
    TRAIN_CHECK("B", "%s --batch %s", V("MODEL"), V("B"));
#undef TRAIN_CHECK
    return 0;
}

enum { ST_KN3, ST_BASE, ST_GEMM, ST_GRID1, ST_WIDEN1, ST_HARD, ST_GRID, ST_OTHERS, ST_WIDEN, ST_TUNE, ST_SEEDS,
       ST_DONE };

typedef struct {
    int stage;
    regime_targets t;
} regime_state;

/* The next widening round of a phase, 0 when no more: EXTEND rounds, then (to
 * REGIME_MAX_WIDEN) rounds that only go down where every rate tried diverged
 * (regime_grid.c).  Counted from the grid, so a resumed session widens no more than an
 * uninterrupted one. */
static int widen_round(study_run *r, regime_state *s, int n1)
{
    int done = regime_widen_rounds(r, &s->t, n1);
    return done < REGIME_MAX_WIDEN ? done + 1 : 0;
}

static int stage(study_run *r, void *state)
{
    regime_state *s = state;
    int round;
    switch (s->stage++) {
    case ST_KN3:
        return regime_add_kn3(r);
    case ST_BASE:
        if (regime_targets_read(r, &s->t) != 0)
            return 1;
        printf("regime: kn3 valid ppl %.2f (%.2f on the evaluated prefix); %.0f train tokens\n", s->t.kn3,
               s->t.kn3_eval, s->t.ntrain);
        return 0;
    case ST_GEMM:
        return regime_add_gemm(r);
    case ST_GRID1:   /* the N = 1 phase is closed once the hard target is set from it */
        return s->t.have_hard ? 0 : regime_add_stage(r, &s->t, "grid", 1);
    case ST_WIDEN1:
        if (!s->t.have_hard && (round = widen_round(r, s, 1)) > 0) {
            char role[16];
            snprintf(role, sizeof role, "widen%d", round);
            int before = r->added, rc = regime_add_stage(r, &s->t, role, 1);
            s->stage -= r->added > before;   /* widened: look again once it ran */
            return rc;
        }
        return 0;
    case ST_HARD:
        return regime_targets_settle(r, &s->t) != 0 ? 1 : 0;
    case ST_GRID:
        return regime_add_stage(r, &s->t, "grid", 0);
    case ST_OTHERS:
        return regime_add_stage(r, &s->t, "others", 0);
    case ST_WIDEN:
        if ((round = widen_round(r, s, 0)) > 0) {
            char role[16];
            snprintf(role, sizeof role, "widen%d", round);
            int before = r->added, rc = regime_add_stage(r, &s->t, role, 0);
            s->stage -= r->added > before;
            return rc;
        }
        return 0;
    case ST_TUNE: {
        int rc = regime_add_stage(r, &s->t, "tune", 1);
        return rc != 0 ? rc : regime_add_stage(r, &s->t, "tune", 0);
    }
    case ST_SEEDS: {
        int rc = regime_add_stage(r, &s->t, "seeds", 1);
        return rc != 0 ? rc : regime_add_stage(r, &s->t, "seeds", 0);
    }
    default:
        s->stage = ST_DONE;
        return 0;
    }
}

static int plan(study_run *r)
{
    static regime_state state;
    if (!r->state) {
        memset(&state, 0, sizeof state);
        r->state = &state;
    }
    return study_stages(r, &state.stage, ST_DONE, stage, &state);
}

const study_def regime_study = {
    .name = "regime",
    .settings = settings,
    .nsettings = (int)(sizeof settings / sizeof settings[0]),
    .absent = absent,
    .jobs = 2,
    .check = check,
    .plan = plan,
    .collect = regime_collect,
};
