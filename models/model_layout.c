/* model_layout.c — the parameter block's layout: the named tensors of model.h's table,
 * each 64-byte aligned, in the order the gradient is laid out and exchanged.  A file of
 * its own (no kernels, no allocation) so that the scaling studies' tool lays out the
 * tensors of the gradient it simulates exactly as rnn-train does (scaling/study/). */
#include "model.h"

#include <stdio.h>
#include <string.h>

static void add_tensor(param_layout *lay, const char *name, long rows, long cols)
{
    param_info *t = &lay->t[lay->n++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->rows = rows, t->cols = cols;
    t->offset = lay->total;
    lay->total += (rows * cols + 15) / 16 * 16;   /* 64-byte aligned tensors */
}

void model_layout(const model_cfg *c, param_layout *lay)
{
    memset(lay, 0, sizeof *lay);
    long G = (long)model_gates(c) * c->hidden;
    add_tensor(lay, "embed", c->vocab, c->embed);
    for (int l = 0; l < c->layers; l++) {
        char n[24];
        snprintf(n, sizeof n, "l%d.wx", l);
        add_tensor(lay, n, G, model_layer_in(c, l));
        snprintf(n, sizeof n, "l%d.wh", l);
        add_tensor(lay, n, G, c->hidden);
        snprintf(n, sizeof n, "l%d.b", l);
        add_tensor(lay, n, 1, G);
    }
    add_tensor(lay, "out.w", c->vocab, c->hidden);
    add_tensor(lay, "out.b", 1, c->vocab);
    if (c->classes > 0) {
        add_tensor(lay, "cls.w", c->classes, c->hidden);
        add_tensor(lay, "cls.b", 1, c->classes);
    }
}
