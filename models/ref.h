/* ref.h — the model in double precision, plain loops: the oracle of the tests.
 *
 * The same function as the float path (model.h: embedding, Elman or LSTM layers,
 * full or class-factorized softmax, mean cross-entropy over the window; truncated
 * BPTT from the given initial state) written as directly as possible, llm.c style — no GEMM layer, no
 * fused kernels, exact tanh and exp from libm — so that:
 *   1. its analytic gradients are checked against centred finite differences of its
 *      own loss (double precision makes a 1e-5 relative error meaningful), and
 *   2. the float path's loss and every gradient tensor are checked against it. */
#ifndef RS_MODELS_REF_H
#define RS_MODELS_REF_H

#include "model.h"

/* Mean loss over the Tw*B tokens of the window, and if g != NULL the gradient of it
 * (g has lay->total entries, laid out like the parameters; overwritten).
 * p (lay->total) parameters; inputs, targets (Tw, B); h0, c0 (L, B, H) initial state
 * (c0 ignored for Elman; NULL = zeros). */
double ref_loss_grad(const model_cfg *c, const param_layout *lay, const double *p, double *g,
                     const int *inputs, const int *targets, int Tw, const double *h0,
                     const double *c0);

/* The same with the class-factorized output layer (cm: the class map, c->classes > 0);
 * cm NULL is the full softmax. */
double ref_loss_grad_cls(const model_cfg *c, const param_layout *lay, const double *p, double *g,
                         const int *inputs, const int *targets, int Tw, const double *h0,
                         const double *c0, const class_map *cm);

#endif
