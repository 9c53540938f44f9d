/* train_lr.c — the starting learning rate from the options: the optimizer's default
 * when --lr is not given, scaled with the global batch (--lr-scale, --base-batch).
 * train_setup.c hands it to the schedule; the header and the summary report it. */
#include <math.h>

#include "check.h"
#include "opts.h"
#include "train.h"

static const char *const lr_scale_names[] = {"none", "linear", "sqrt"};

int lr_scale_from_name(const char *name, lr_scale_kind *out)
{
    int i = rs_name_index(lr_scale_names, RS_ARRAY_LEN(lr_scale_names), name);
    if (i >= 0)
        *out = (lr_scale_kind)i;
    return i >= 0 ? 0 : -1;
}
const char *lr_scale_name(lr_scale_kind k) { return lr_scale_names[k]; }

/* The default learning rate per optimizer, for the mean loss per token.  LARS's rate
 * multiplies the trust coefficient eta (0.001), hence its size; LARS's and LAMB's are
 * the best of a 3x grid on Moby Dick (LSTM 128, batch 32, 200 steps). */
static double default_lr(optim_kind k)
{
    switch (k) {
    case OPT_SGD: return 1.0;
    case OPT_MOMENTUM:
    case OPT_NESTEROV: return 0.1;
    case OPT_ADAM: return 2e-3;
    case OPT_LARS: return 10.0;
    case OPT_LAMB: return 0.1;
    }
    return 1.0;
}

long train_global_batch(const train_opts *o)
{
    return (long)o->cfg.batch * (o->workers > 0 ? o->workers : 1);
}

long train_base_batch(const train_opts *o)
{
    return o->base_batch > 0 ? o->base_batch : train_global_batch(o);
}

double train_base_lr(const train_opts *o) { return o->lr >= 0 ? o->lr : default_lr(o->optim); }

double train_lr(const train_opts *o)
{
    double k = (double)train_global_batch(o) / (double)train_base_batch(o);
    switch (o->lr_scale) {
    case LR_SCALE_NONE: break;
    case LR_SCALE_LINEAR: return train_base_lr(o) * k;
    case LR_SCALE_SQRT: return train_base_lr(o) * sqrt(k);
    }
    return train_base_lr(o);
}
