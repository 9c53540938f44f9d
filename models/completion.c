/* completion.c — the MSR-style sentence completion test (completion.h). */
#include "completion.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rng.h"

#define MIN_LEN 6
#define MAX_LEN 40
#define MIN_RANK 50
#define NEIGHBOURS 25

static int is_word(const corpus *c, int id)
{
    const char *w = c->words[id];
    return id >= MIN_RANK && ((w[0] >= 'a' && w[0] <= 'z') || (w[0] >= 'A' && w[0] <= 'Z'));
}

void completion_free(completion_set *q)
{
    free(q->start), free(q->len), free(q->blank), free(q->choice);
    memset(q, 0, sizeof *q);
}

int completion_build(completion_set *q, const corpus *c, int nq, uint64_t seed)
{
    memset(q, 0, sizeof *q);
    RS_CHECK(c->level == LEVEL_WORD, "the sentence completion test needs --level word");
    q->tokens = c->test;
    /* eligible sentences: [s, e) between <eos> tokens, with a word to blank */
    long ns = 0, cap = 1024;
    long *cand = malloc((size_t)cap * sizeof *cand);
    RS_CHECK(cand, "out of memory");
    for (long s = 0, e; s < c->ntest; s = e + 1) {
        for (e = s; e < c->ntest && c->test[e] != CORPUS_EOS; e++)
            ;
        if (e >= c->ntest || e - s < MIN_LEN || e - s > MAX_LEN)
            continue;
        int ok = 0;
        for (long i = s; i < e && !ok; i++)
            ok = is_word(c, c->test[i]);
        if (!ok)
            continue;
        if (ns == cap) {
            long *t = realloc(cand, (size_t)(cap *= 2) * sizeof *cand);
            if (!t) {
                free(cand);
                RS_CHECK(0, "out of memory");
            }
            cand = t;
        }
        cand[ns++] = s;
    }
    for (long i = ns - 1; i > 0; i--) {   /* seeded shuffle: questions spread over the split */
        long j = (long)(rng_u64(seed, 41, (uint64_t)i) % (uint64_t)(i + 1));
        long t = cand[i];
        cand[i] = cand[j], cand[j] = t;
    }
    int n = nq <= 0 ? 0 : nq < ns ? nq : (int)ns;
    size_t nn = n > 0 ? (size_t)n : 1;
    q->start = malloc(nn * sizeof *q->start);
    q->len = malloc(nn * sizeof *q->len);
    q->blank = malloc(nn * sizeof *q->blank);
    q->choice = malloc(nn * COMPLETION_CHOICES * sizeof *q->choice);
    if (!q->start || !q->len || !q->blank || !q->choice) {
        free(cand);
        completion_free(q);
        RS_CHECK(0, "out of memory");
    }
    for (int k = 0; k < n; k++) {
        long s = cand[k], e = s;
        while (c->test[e] != CORPUS_EOS)
            e++;
        int len = (int)(e - s), nw = 0, pick;
        for (int i = 0; i < len; i++)
            nw += is_word(c, c->test[s + i]);
        int which = (int)(rng_u64(seed, 42, (uint64_t)k) % (uint64_t)nw);
        for (pick = 0;; pick++)
            if (is_word(c, c->test[s + pick]) && which-- == 0)
                break;
        int ans = c->test[s + pick], *ch = q->choice + (long)k * COMPLETION_CHOICES, got = 1;
        ch[0] = ans;
        /* impostors: words of similar frequency (nearby ids), all different */
        for (uint64_t draw = 0; got < COMPLETION_CHOICES && draw < 10000; draw++) {
            int lo = ans - NEIGHBOURS < MIN_RANK ? MIN_RANK : ans - NEIGHBOURS;
            int hi = ans + NEIGHBOURS >= c->vocab ? c->vocab - 1 : ans + NEIGHBOURS;
            int w = lo + (int)(rng_u64(seed, 43, (uint64_t)k * 10000 + draw) % (uint64_t)(hi - lo + 1));
            int dup = !is_word(c, w);
            for (int j = 0; j < got && !dup; j++)
                dup = ch[j] == w;
            if (!dup)
                ch[got++] = w;
        }
        if (got < COMPLETION_CHOICES)
            continue;   /* too few words of that frequency for impostors: no question */
        int i = q->n++;
        q->start[i] = s, q->len[i] = len, q->blank[i] = pick;
        memmove(q->choice + (long)i * COMPLETION_CHOICES, ch, COMPLETION_CHOICES * sizeof *ch);
    }
    free(cand);
    return 0;
}

/* Token t (0..len) of question k's sentence with candidate j: t == len is <eos>. */
static int token_at(const completion_set *q, int k, int j, int t)
{
    if (t == q->len[k])
        return CORPUS_EOS;
    return t == q->blank[k] ? q->choice[(long)k * COMPLETION_CHOICES + j] : q->tokens[q->start[k] + t];
}

static double accuracy(const completion_set *q, const double *score)
{
    int right = 0;
    for (int k = 0; k < q->n; k++) {
        const double *s = score + (long)k * COMPLETION_CHOICES;
        int best = 1;
        for (int j = 1; j < COMPLETION_CHOICES; j++)
            best &= s[0] > s[j];
        right += best;
    }
    return q->n ? (double)right / q->n : NAN;
}

double completion_accuracy_kn3(const kn3_model *km, const completion_set *q)
{
    double *score = calloc((size_t)q->n * COMPLETION_CHOICES + 1, sizeof *score);
    if (!score) {
        rs_seterr("out of memory for --completion's %d questions", q->n);
        return NAN;
    }
    for (int k = 0; k < q->n; k++)
        for (int j = 0; j < COMPLETION_CHOICES; j++) {
            int u = km->V, v = CORPUS_EOS;
            double lp = 0;
            for (int t = 0; t <= q->len[k]; t++) {
                int w = token_at(q, k, j, t);
                lp += log(kn3_prob(km, u, v, w));
                u = v, v = w;
            }
            score[(long)k * COMPLETION_CHOICES + j] = lp;
        }
    double acc = accuracy(q, score);
    free(score);
    return acc;
}

double completion_accuracy_model(model *m, const completion_set *q)
{
    const model_cfg *c = &m->cfg;
    int B = c->batch, T = c->bptt;
    size_t sb = (size_t)c->layers * B * c->hidden * sizeof(float);
    float *save_h = m->saved_h, *save_c = m->saved_c;   /* allocated with the model */
    long total = (long)q->n * COMPLETION_CHOICES;
    double *score = calloc((size_t)total + 1, sizeof *score);
    if (!score) {
        rs_seterr("out of memory for --completion's %d questions", q->n);
        return NAN;
    }
    memcpy(save_h, m->state_h, sb);
    memcpy(save_c, m->state_c, sb);
    /* candidates in groups of B streams: stream b reads <eos> then the sentence, and
     * predicts the sentence then <eos>; shorter streams are padded and not scored */
    for (long g0 = 0; g0 < total; g0 += B) {
        int maxlen = 0;
        for (int b = 0; b < B && g0 + b < total; b++) {
            int k = (int)((g0 + b) / COMPLETION_CHOICES);
            maxlen = q->len[k] + 1 > maxlen ? q->len[k] + 1 : maxlen;
        }
        model_reset_state(m);
        for (int pos = 0; pos < maxlen; pos += T) {
            int Tw = maxlen - pos < T ? maxlen - pos : T;
            for (int t = 0; t < Tw; t++)
                for (int b = 0; b < B; b++) {
                    long id = g0 + b;
                    int k = (int)(id / COMPLETION_CHOICES), j = (int)(id % COMPLETION_CHOICES);
                    int tt = pos + t, in = CORPUS_EOS, tg = CORPUS_EOS;
                    if (id < total && tt <= q->len[k]) {
                        in = tt == 0 ? CORPUS_EOS : token_at(q, k, j, tt - 1);
                        tg = token_at(q, k, j, tt);
                    }
                    m->act.inputs[t * B + b] = in;
                    m->act.targets[t * B + b] = tg;
                }
            model_forward(m, Tw, 0);
            model_carry(m, Tw);
            for (int t = 0; t < Tw; t++)
                for (int b = 0; b < B && g0 + b < total; b++) {
                    int k = (int)((g0 + b) / COMPLETION_CHOICES);
                    if (pos + t <= q->len[k])
                        score[g0 + b] -= m->act.loss[t * B + b];
                }
        }
    }
    memcpy(m->state_h, save_h, sb);
    memcpy(m->state_c, save_c, sb);
    double acc = accuracy(q, score);
    free(score);
    return acc;
}
