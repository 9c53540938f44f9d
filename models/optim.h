/* optim.h — optimizers, clipping by global norm, and the learning-rate schedule.
 *
 * Update rules (g is the gradient after clipping, lr the scheduled rate):
 *   sgd       p -= lr g
 *   momentum  v = mu v + g;            p -= lr v
 *   nesterov  v = mu v + g;            p -= lr (g + mu v)          (PyTorch's form)
 *   adam      m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2;
 *             p -= lr (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps)
 *   lars      per tensor w of the layout (You, Gitman, Ginsburg 2017):
 *             q = eta |w| / (|g| + wd |w|);  v = mu v + q (g + wd w);  p -= lr v
 *   lamb      per tensor w (You et al. 2019): m, v and their bias correction as adam,
 *             r = m_hat / (sqrt(v_hat) + eps) + wd w;  q = min(|w|, wmax) / |r|;
 *             p -= lr q r   (the min is the paper's clamp phi)
 * LARS and LAMB: norms are per tensor of the layout (model.h), in double; the padding
 * between tensors is not touched.  Biases ("*.b") are left out of the trust ratio and
 * the weight decay (q = 1, wd = 0), the common practice of large-batch LARS and LAMB
 * training; the embedding is adapted like any weight matrix (as LAMB's BERT runs do).
 * q = 1 when |w| or the denominator is 0 (a tensor at zero would otherwise never
 * move).  Defaults: eta 0.001, wd 0 (lars); betas 0.9, 0.999, eps 1e-6, wd 0.01,
 * wmax 10 (lamb); the default --lr per optimizer is in train_lr.c.
 * Clipping: if clip > 0 and |g|_2 > clip, g is scaled by clip/|g|_2 (one global norm
 * over every tensor, summed in double in a fixed order: deterministic).
 *
 * Schedule: linear warmup from 0 over `warmup` steps, then
 *   const     lr0
 *   linear    lr0 * (1 - progress) down to 0 at the last step
 *   cosine    lr0 * (1 + cos(pi progress)) / 2
 *   plateau   Mikolov's RNNLM rule, at each evaluation: while the validation
 *             perplexity improves by at least a factor `min_gain` (1.003) lr stays;
 *             the first time it does not, lr halves at that and every later
 *             evaluation; when it again fails to improve by min_gain while halving,
 *             training stops (RNNLM also restores the previous weights when validation
 *             got worse: not done here).
 * Everything that changes during training is in the structs' state fields, which the
 * checkpoint saves. */
#ifndef RS_MODELS_OPTIM_H
#define RS_MODELS_OPTIM_H

#include "model.h"

typedef enum { OPT_SGD, OPT_MOMENTUM, OPT_NESTEROV, OPT_ADAM, OPT_LARS, OPT_LAMB } optim_kind;
#define OPT_NKINDS (OPT_LAMB + 1)   /* how many kinds: OPT_LAMB is the last */
typedef enum { SCHED_CONST, SCHED_LINEAR, SCHED_COSINE, SCHED_PLATEAU } sched_kind;

typedef struct {
    optim_kind kind;
    double momentum;        /* mu (momentum, nesterov, lars) */
    double beta1, beta2, eps;  /* adam, lamb */
    double trust_eta;       /* lars: eta */
    double weight_decay;    /* lars, lamb: wd */
    double norm_max;        /* lamb: wmax, |w| clamped at it in the trust ratio */
    double clip;            /* max global gradient norm; 0 = off */
    long n;                 /* parameters */
    float *m;               /* (n) momentum velocity, or Adam's first moment */
    float *v;               /* (n) Adam's second moment */
    float *dir;             /* (n) lamb: the step's r, scratch (not state) */
    long t;                 /* state: updates done (Adam's bias correction) */
} optimizer;

int optim_from_name(const char *name, optim_kind *out);   /* 0, -1 unknown */
const char *optim_name(optim_kind k);
int sched_from_name(const char *name, sched_kind *out);
const char *sched_name(sched_kind k);

/* Allocate state for n parameters (zeroed).  0, or -1 (rs_lasterr). */
int optim_init(optimizer *o, optim_kind kind, long n);
void optim_free(optimizer *o);
/* Floats of state per parameter: 0, 1 or 2 (the checkpoint holds them). */
int optim_nstate(optim_kind kind);

/* |g|_2 over g (n), in double: each chunk of GRAD_NORM_CHUNK floats (from g) summed in
 * a fixed order (8 interleaved partial sums, then those in order), then the chunks' sums
 * in order, so the same bits for any thread count or vector width, and
 * from parts made anywhere (grad_norm_parts).  The chunk is small enough that 800
 * ranks' blocks of a 2.7 M-parameter model stay within ~20% of each other (blocks are
 * whole chunks under --shard-update) and large enough that the chunk sums exchanged
 * are 1/128 of the gradient's bytes. */
#define GRAD_NORM_CHUNK 1024
double grad_norm(const float *g, long n);
/* The chunk sums of g[from, to) into part[from / GRAD_NORM_CHUNK ..] (from on a chunk
 * boundary; to ends a chunk or the vector), and the norm from all n's parts. */
void grad_norm_parts(const float *g, long from, long to, double *part);
double grad_norm_of_parts(const double *part, long n);
/* One update of p (n) with g (n) at rate lr; g is scaled by gscale first (clipping).
 * lay names p's tensors (lars and lamb work per tensor; the others ignore it). */
void optim_step(optimizer *o, float *p, const float *g, double lr, double gscale,
                const param_layout *lay);
/* The same update on p[from, to) only (a shard; element-wise optimizers: not lars or
 * lamb, whose ratios need whole tensors): the same bits there as optim_step's. */
void optim_step_range(optimizer *o, float *p, const float *g, double lr, double gscale,
                      long from, long to);
int optim_elementwise(optim_kind kind);   /* sgd, momentum, nesterov, adam */

typedef struct {
    sched_kind kind;
    double lr0;
    long warmup;            /* steps */
    long total;             /* the last step (linear, cosine) */
    double min_gain;        /* plateau: 1.003 */
    /* state */
    double scale;           /* plateau: current multiplier (1, 1/2, 1/4, ...) */
    double best_ppl;        /* plateau: the last evaluation's perplexity (0 = none yet) */
    int halving;            /* plateau: halving started */
} lr_sched;

void sched_init(lr_sched *s, sched_kind kind, double lr0, long warmup, long total);
/* The rate for step (0-based). */
double sched_lr(const lr_sched *s, long step);
/* After an evaluation; returns 1 when the plateau rule says stop. */
int sched_on_eval(lr_sched *s, double valid_ppl);

#endif
