/* eval.c — perplexity (and bits per token) of a split under the current weights.
 *
 * The split is cut into the model's B streams like the training data (corpus.h),
 * read in windows of T with the hidden state carried, from a zero state: every
 * token but the last n % B + B is scored, once (a stream's first token is never a
 * target).  Forward only: the output layer uses the loss-only kernel.  With G groups
 * (--workers) the split is laid as G*B streams and scored B streams at a time; a range
 * of the groups gives the partial sums a sharded evaluation adds over ranks, and a limit
 * on the windows each stream reads gives a cheaper, coarser score (--eval-gate: the
 * first window, same layout).  An abandon check (eval_set_abandon_check) may cut a
 * scoring short between windows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train.h"
#include "train_platform.h"

void eval_split(model *m, const int *data, long n, eval_result *r)
{
    eval_split_groups(m, data, n, 1, r);
}

void eval_split_groups(model *m, const int *data, long n, int G, eval_result *r)
{
    double sum;
    long tokens;
    eval_groups_partial(m, data, n, G, 0, G, 0, &sum, &tokens);
    eval_result_set(r, sum, tokens);
}

void eval_groups_partial(model *m, const int *data, long n, int G, int g0, int g1, int windows,
                         double *sum_out, long *tokens_out)
{
    if (!train_numerics_checked()) {   /* folded buffers: nothing to score, nor time spent */
        *sum_out = NAN, *tokens_out = 0;
        return;
    }
    eval_groups_score(m, data, n, G, g0, g1, windows, sum_out, tokens_out);
}

static int (*abandon_check)(void);
void eval_set_abandon_check(int (*abandoned)(void)) { abandon_check = abandoned; }

void eval_groups_score(model *m, const int *data, long n, int G, int g0, int g1, int windows,
                       double *sum_out, long *tokens_out)
{
    const model_cfg *c = &m->cfg;
    size_t sb = (size_t)c->layers * c->batch * c->hidden * sizeof(float);
    float *save_h = m->saved_h, *save_c = m->saved_c;   /* allocated with the model */
    memcpy(save_h, m->state_h, sb);
    memcpy(save_c, m->state_c, sb);
    stream_set all;
    streams_init(&all, data, n, G * c->batch);
    double sum = 0;
    long tokens = 0;
    for (int g = g0; g < g1; g++) {   /* group g: streams [g*B, (g+1)*B) of the layout */
        stream_set s = {data + (long)g * c->batch * all.len, all.len, c->batch};
        model_reset_state(m);
        for (long pos = 0, w = 0; windows <= 0 || w < windows; pos += c->bptt, w++) {
            int Tw = streams_window(&s, pos, c->bptt, m->act.inputs, m->act.targets);
            if (Tw == 0)
                break;
            if (abandon_check && abandon_check()) {   /* nobody waits for the result */
                g = g1;
                sum = NAN;
                break;
            }
            sum += model_forward(m, Tw, 0);
            model_carry(m, Tw);
            tokens += (long)Tw * c->batch;
        }
    }
    memcpy(m->state_h, save_h, sb);
    memcpy(m->state_c, save_c, sb);
    *sum_out = sum;
    *tokens_out = tokens;
}

double eval_groups_flops(const model_cfg *c, long n, int G, int g0, int g1, int windows)
{
    long len = n / ((long)G * c->batch);   /* each stream's tokens; len - 1 are targets */
    if (len < 2)
        return 0;
    long scored = windows > 0 && (long)windows * c->bptt < len - 1 ? (long)windows * c->bptt : len - 1;
    return model_step_flops(c, (int)scored) / 3 * (g1 - g0);   /* 1 product of 3 */
}

void eval_result_set(eval_result *r, double sum, long tokens)
{
    r->tokens = tokens;
    r->loss = tokens ? sum / (double)tokens : NAN;
    r->ppl = exp(r->loss);
    r->bits = r->loss / log(2.0);
}
