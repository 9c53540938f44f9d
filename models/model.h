/* model.h — the RNN language model: configuration, parameter layout, activations,
 * and the stack (embedding -> 1..4 recurrent layers -> full-softmax output, or RNNLM's
 * class-factorized softmax with --classes) that
 * rnn-train, the evaluation and the tests drive.
 *
 * Layout conventions (llm.c style; every pointer carries its shape):
 *   - row-major; activations are time-major, (T, B, C): step t's batch is contiguous,
 *     so "all T steps" is one (T*B, C) matrix for the input projection, the output
 *     layer and the weight gradients, and one step is a (B, C) block;
 *   - weights are (out, in) as in y = x W^T + b (PyTorch's nn.Linear);
 *   - LSTM gates are stacked in one (4H, in) matrix, in the order i, f, g, o: the four
 *     gate GEMMs are one GEMM;
 *   - h (T+1, B, H): h[0] is the state carried in from the previous window (a copy of
 *     state_h), h[t+1] the output of step t, so h[0..T-1] are the inputs of the
 *     recurrent term and h[1..T] the layer's output: both contiguous.
 * The loss is the mean over the window's T*B tokens of -log p(target).  Truncated
 * BPTT: no gradient flows into the carried state. */
#ifndef RS_MODELS_MODEL_H
#define RS_MODELS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define MODEL_MAX_LAYERS 4

typedef enum { CELL_ELMAN, CELL_LSTM } cell_kind;

typedef struct {
    cell_kind cell;
    int layers;    /* L, 1..MODEL_MAX_LAYERS */
    int hidden;    /* H */
    int embed;     /* D: embedding width, the first layer's input */
    int vocab;     /* V */
    int batch;     /* B: parallel streams */
    int bptt;      /* T: the longest window (a window may be shorter, Tw <= T) */
    int classes;   /* C: RNNLM's class-factorized softmax with C classes; 0 = full softmax */
} model_cfg;

/* Gate blocks per cell: Elman 1 (G = H), LSTM 4 (G = 4H). */
static inline int model_gates(const model_cfg *c) { return c->cell == CELL_LSTM ? 4 : 1; }
/* Input width of layer l. */
static inline int model_layer_in(const model_cfg *c, int l) { return l == 0 ? c->embed : c->hidden; }

/* ---- parameters: one float block, a table of named tensors ---- */
typedef struct {
    char name[24];    /* "embed", "l0.wx", "l0.wh", "l0.b", ..., "out.w", "out.b" */
    long rows, cols;  /* a vector has rows = 1 */
    long offset;      /* in floats from the block's start (64-byte aligned) */
} param_info;

#define MODEL_MAX_TENSORS (5 + 3 * MODEL_MAX_LAYERS)
typedef struct {
    int n;
    param_info t[MODEL_MAX_TENSORS];
    long total;       /* floats in the block, padding included */
} param_layout;

/* Indices into param_layout.t */
#define P_EMBED 0                   /* (V, D) */
#define P_WX(l) (1 + 3 * (l))       /* (G, I_l) */
#define P_WH(l) (2 + 3 * (l))       /* (G, H) */
#define P_B(l) (3 + 3 * (l))        /* (G) */
#define P_WOUT(L) (1 + 3 * (L))     /* (V, H) */
#define P_BOUT(L) (2 + 3 * (L))     /* (V) */
#define P_WCLS(L) (3 + 3 * (L))     /* (C, H) class layer (--classes) */
#define P_BCLS(L) (4 + 3 * (L))     /* (C) */

/* ---- RNNLM's class-factorized softmax (output_class.c) ----
 * p(w | h) = p(class(w) | h) p(w | class(w), h): a softmax over the C classes
 * (cls.w, cls.b) times a softmax over the words of w's class only (their rows of out.w,
 * out.b), so a token costs C + |class| dot products instead of V.  Classes by unigram
 * frequency (Mikolov et al. 2011): words sorted by decreasing train count (ties: lower
 * id first), cut where the cumulative share of the tokens passes k/C, so each class
 * covers about 1/C of the text (frequent words get small classes).  out.w's rows are
 * stored in that order, so a class's words are one contiguous block of rows. */
typedef struct {
    int C;
    int *of;     /* (V) class of each word id */
    int *pos;    /* (V) row of each word id in out.w / out.b (frequency order) */
    int *off;    /* (C + 1) first row of each class; class k is rows off[k]..off[k+1]-1 */
    int max_size;
} class_map;

/* Build the map from the train split's counts (V ids).  C must be 1..V.  0, or -1. */
int class_map_build(class_map *cm, const long *counts, int V, int C);
void class_map_free(class_map *cm);

void model_layout(const model_cfg *c, param_layout *lay);
/* FLOPs of the GEMMs of one training step (forward + backward) on a window of Tw steps:
 * per layer 6 Tw B G (I + H) (input projection, recurrence, each forward + two
 * backward products), output 6 Tw B H V.  Point-wise work is not counted. */
double model_step_flops(const model_cfg *c, int Tw);
/* The order in which model_backward makes the gradient final, as ranges of the layout
 * with the backward's GEMM flops done by then: the output layer; then layer by layer
 * from the top, after its BPTT and dX, its Wx, then its Wh and bias; but the embedding
 * (the start of the layout), final with layer 0's dX, comes before layer 0's weights.
 * Returns the count (at most MODEL_MAX_EVENTS). */
#define MODEL_MAX_EVENTS (2 * MODEL_MAX_LAYERS + 2)
typedef struct {
    long from, to;   /* grads[from, to) */
    double flops;    /* the backward's flops done when it is final */
} grad_event;
int model_backward_events(const model_cfg *c, const param_layout *lay, int Tw, grad_event *ev);
/* The backward's flops done by the time grads[offset] is final. */
double model_backward_flops_ready(const model_cfg *c, const param_layout *lay, int Tw, long offset);

/* ---- activations: pointers into the arena (arena.c plans them) ---- */
typedef struct {
    int *inputs, *targets;             /* (T, B) token ids */
    float *x0;                         /* (T, B, D) embedded inputs */
    float *h[MODEL_MAX_LAYERS];        /* (T+1, B, H) */
    float *c[MODEL_MAX_LAYERS];        /* LSTM: (T+1, B, H) cell state, c[0] carried */
    float *gates[MODEL_MAX_LAYERS];    /* LSTM: (T, B, 4H) pre-activations, then i f g o */
    float *tc[MODEL_MAX_LAYERS];       /* LSTM: (T, B, H) tanh(c) */
    float *logits;                     /* (T*B, V) */
    float *dlogits;                    /* (T*B, V) softmax - onehot (unscaled) */
    float *loss;                       /* (T*B) per-token loss */
    float *dpre;                       /* (T, B, G) gradient of a layer's pre-activations */
    float *dA, *dB;                    /* (T, B, max(H, D)) gradient of a layer's output/input */
    float *dh_next, *dc_next;          /* (B, H) gradient flowing to the previous step */
    float *ones;                       /* (T*B) all 1: bias gradients as GEMMs */
    /* --classes: class logits and their gradient (T*B, C), each token's class.  The
     * word part runs class by class (output_class.c): the rows of class k are
     * cls_rows[cls_start[k] .. cls_start[k+1]), in row order, their target's place in
     * the class cls_pos[], their word loss cls_lw[], their h_top gathered in cls_h
     * (and the word part of their dH in cls_dh) in that order; the class's (rows, |class|) logits and
     * dlogits are one block of logits/dlogits at cls_zoff[k]. */
    float *cls_logits, *dcls, *cls_lw, *cls_h, *cls_dh;
    int *cls_targets, *cls_rows, *cls_pos, *cls_start;
    long *cls_zoff;
} activations;

typedef struct {
    char *base;
    size_t bytes;          /* the arena: every activation of a step, allocated once */
    size_t naive_bytes;    /* what allocating each op's tensors per step would take */
    long naive_allocs;     /* and how many allocations per step that is */
} arena;

/* Plan every activation of cfg into one block (64-byte aligned tensors) and allocate
 * it (arena.c).  0, or -1 (rs_lasterr). */
int arena_create(arena *a, activations *act, const model_cfg *cfg);
void arena_destroy(arena *a);

/* ---- the model ---- */
struct pointwise_kernels;
typedef struct {
    model_cfg cfg;
    param_layout lay;
    float *params;     /* (lay.total) */
    float *grads;      /* (lay.total) d(mean loss)/d(params) of the last backward */
    float *state_h;    /* (L, B, H) carried across windows */
    float *state_c;    /* (L, B, H) LSTM cell state carried */
    float *saved_h, *saved_c;   /* (L, B, H): the carried state kept while scoring (eval.c) */
    arena arena;
    activations act;
    const struct pointwise_kernels *pw;
    class_map cls;     /* --classes: set by model_set_classes (C = 0: full softmax) */
    int *progress;     /* NULL, or (pipeline.c) where the top layer's forward publishes
                          the steps it has finished (release store of t + 1) */
    /* NULL, or called by model_backward each time grads[from, to) is final (the ranges
     * of model_backward_events, in their order): the trainer starts exchanging that
     * part while the backward goes on. */
    void (*grad_ready)(void *ctx, long from, long to);
    void *grad_ready_ctx;
} model;

/* One recurrent cell type: forward and backward of layer l over a window (elman.c,
 * lstm.c).  Adding a cell = one file + one row in model.c's table. */
typedef struct {
    const char *name;        /* "elman", "lstm" */
    cell_kind kind;
    /* h[l][1..Tw] (and c, gates, tc) from x (Tw, B, I) and h[l][0] (c[l][0]). */
    void (*forward)(model *m, int l, const float *x, int Tw);
    /* From dH (Tw, B, H), the gradient of h[l][1..Tw]: act.dpre (Tw, B, G), the gradient
     * of the pre-activations (model.c forms the weight gradients from it), and, if dX
     * is not NULL, dX (Tw, B, I), the gradient of the layer's input.  dH is clobbered. */
    void (*backward)(model *m, int l, float *dH, float *dX, int Tw);
} cell_ops;

extern const cell_ops cell_elman, cell_lstm;
const cell_ops *model_cell(cell_kind k);
int model_cell_from_name(const char *name, cell_kind *out);   /* 0, -1 unknown */

/* Allocate parameters, gradients, state and the arena; pick the point-wise kernels.
 * Parameters are left zero: call model_init_params.  0, or -1 (rs_lasterr). */
/* The sizes cfg implies (streams x workers, window, output scores, gates, parameters)
 * each fit an int: 0, or -1 with a line naming the flags (rs_lasterr). */
int model_cfg_check(const model_cfg *c, long workers);
int model_create(model *m, const model_cfg *cfg);
void model_destroy(model *m);
/* --classes: the class map from the train split's counts (counts (V)).  0, or -1. */
int model_set_classes(model *m, const long *counts);
/* Initial weights, a pure function of (seed, tensor, index): embedding and output
 * weights uniform in +-0.1, recurrent weights uniform in +-1/sqrt(H), biases 0 except
 * the LSTM forget gate's, 1 (remember by default). */
void model_init_params(model *m, uint64_t seed);
void model_reset_state(model *m);   /* carried state to zero (start of a pass) */

/* Forward over the window in act.inputs/act.targets (Tw, B): returns the SUM of the
 * Tw*B token losses (double).  train != 0 also leaves dlogits for model_backward.
 * The carried state is NOT advanced: call model_carry after (backward needs h[0]). */
double model_forward(model *m, int Tw, int train);
/* The embedding and the recurrent layers of model_forward: returns h_top[1..Tw]
 * (Tw, B, H), the output layer's input. */
const float *model_forward_layers(model *m, int Tw);
/* Gradients of the mean loss of the last forward(train=1) into m->grads (overwritten),
 * readied in model_backward_events' order; m->grad_ready (if set) hears of each range. */
void model_backward(model *m, int Tw);
/* state := h[Tw] (and c[Tw]): the next window continues the streams. */
void model_carry(model *m, int Tw);

/* Output layer (output.c): logits = h_top W^T + b over all Tw*B rows as one GEMM, then
 * the fused cross-entropy kernel.  Returns the loss sum.  Backward: weight and bias
 * gradients scaled by 1/(Tw*B), and dH (Tw, B, H) of the top layer's output. */
double output_forward(model *m, const float *htop, int Tw, int train);
void output_backward(model *m, const float *htop, float *dH, int Tw);
int output_init(void);   /* pick the xent kernel for this CPU; 0 or -1 */
/* Rows r0..r1-1 of output_forward on the calling thread only (one GEMM of r1 - r0 rows,
 * one xent call): the pipeline's output stage.  Fills logits, dlogits (train) and loss
 * of those rows; returns nothing (the caller sums act.loss in row order). */
void output_forward_rows(model *m, const float *htop, long r0, long r1, int train);
const char *output_kernel_name(void);
/* The class-factorized output layer (output_class.c): same contract as
 * output_forward/output_backward; output_forward/backward call them when
 * cfg.classes > 0. */
double output_class_forward(model *m, const float *htop, int Tw, int train);
void output_class_backward(model *m, const float *htop, float *dH, int Tw);

#endif
