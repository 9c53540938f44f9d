/* gemm_shapes.c — the one table of GEMM shapes `microbench gemm` runs, and the --shape
 * parser.  Column-major M x N x K with op(A) M x K (gemm.h); "TN" = A transposed.
 *
 *   deepbench  Baidu DeepBench's RNN training GEMMs (code/kernels/gemm_problems.h):
 *              M = K in {1760, 2048, 2560}, N (the batch) in {16, 32, 64, 128}, NN
 *              (forward: W x) and TN (backward: W^T dY)
 *   square     2048^3: the library's best case, the "fraction of peak" yardstick
 *   inference  N in {1, 2, 4}: batch-1..4 serving, matrix-vector in all but name
 *   models     the GEMMs of this project's LSTM language model (rnn-train defaults,
 *              GEMM_MODEL_* in gemm.h), by name: the input projection of all T steps
 *              as one GEMM and the four gates merged (Appleyard et al. 2016), the
 *              recurrent step, the output layer over the whole BPTT window, and the
 *              backward GEMMs of each (dX = W^T dY: TN; dW = dY X^T: NT). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemm_shapes.h"

#define H GEMM_MODEL_H
#define E GEMM_MODEL_E
#define B GEMM_MODEL_B
#define T GEMM_MODEL_T
#define V GEMM_MODEL_V

#define DB(mk, n, q) {"deepbench", "", mk, n, mk, 'N', 'N', q, NULL}, \
                     {"deepbench", "", mk, n, mk, 'T', 'N', q, NULL}

const gemm_shape gemm_shapes[] = {
    DB(1760, 16, 0), DB(1760, 32, 0), DB(1760, 64, 1), DB(1760, 128, 0),
    DB(2048, 16, 0), DB(2048, 32, 0), DB(2048, 64, 0), DB(2048, 128, 0),
    DB(2560, 16, 0), DB(2560, 32, 0), DB(2560, 64, 0), DB(2560, 128, 0),
    {"square", "", 2048, 2048, 2048, 'N', 'N', 1, NULL},
    {"inference", "", 1760, 1, 1760, 'N', 'N', 1, NULL},
    {"inference", "", 1760, 2, 1760, 'N', 'N', 0, NULL},
    {"inference", "", 1760, 4, 1760, 'N', 'N', 0, NULL},
    {"inference", "", 2048, 1, 2048, 'N', 'N', 0, NULL},
    {"inference", "", 2048, 2, 2048, 'N', 'N', 0, NULL},
    {"inference", "", 2048, 4, 2048, 'N', 'N', 0, NULL},
    {"inference", "", 2560, 1, 2560, 'N', 'N', 0, NULL},
    {"inference", "", 2560, 2, 2560, 'N', 'N', 0, NULL},
    {"inference", "", 2560, 4, 2560, 'N', 'N', 0, NULL},
    {"models", "lstm_input", 4 * H, B * T, E, 'N', 'N', 1,
     "gates (4H x BT) = W_x (4H x E) x_1..T (E x BT): the input projection of all steps"},
    {"models", "lstm_recurrent", 4 * H, B, H, 'N', 'N', 1,
     "gates_t (4H x B) += W_h (4H x H) h_t-1 (H x B): one recurrent step, 4 gates merged"},
    {"models", "output", V, B * T, H, 'N', 'N', 0,
     "logits (V x BT) = W_o (V x H) h_1..T (H x BT): the output layer over the BPTT window"},
    {"models", "lstm_input_dx", E, B * T, 4 * H, 'T', 'N', 0,
     "dx (E x BT) = W_x^T (E x 4H) dgates (4H x BT)"},
    {"models", "lstm_recurrent_dh", H, B, 4 * H, 'T', 'N', 0,
     "dh_t-1 (H x B) = W_h^T (H x 4H) dgates_t (4H x B)"},
    {"models", "lstm_input_dw", 4 * H, E, B * T, 'N', 'T', 0,
     "dW_x (4H x E) += dgates (4H x BT) x^T (BT x E)"},
    {"models", "output_dh", H, B * T, V, 'T', 'N', 0,
     "dh (H x BT) = W_o^T (H x V) dlogits (V x BT)"},
    {"models", "output_dw", V, H, B * T, 'N', 'T', 0,
     "dW_o (V x H) += dlogits (V x BT) h^T (BT x H)"},
};
const int gemm_nshapes = RS_ARRAY_LEN(gemm_shapes);

static const char *const set_names[] = {"deepbench", "square", "inference", "models", "all"};

int gemm_is_set(const char *name)
{
    for (int i = 0; i < RS_ARRAY_LEN(set_names); i++)
        if (strcmp(name, set_names[i]) == 0)
            return 1;
    return 0;
}

/* A positive decimal dimension up to INT_MAX (what a 32-bit BLAS takes); *end after it. */
static int parse_dim(const char *s, const char **end, long *out)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *e;
    long v = strtol(s, &e, 10);
    if (errno || v < 1 || v > INT_MAX)
        return -1;
    *end = e;
    *out = v;
    return 0;
}

#define SHAPE_HINT "(expected MxNxK[:tAtB] with positive sizes and tA, tB each N or T, " \
                   "e.g. 1760x64x1760:TN, or a model GEMM's name like lstm_input)"

int gemm_parse_shape(const char *s, gemm_shape *out)
{
    for (int i = 0; i < gemm_nshapes; i++)
        if (gemm_shapes[i].name[0] && strcmp(gemm_shapes[i].name, s) == 0) {
            *out = gemm_shapes[i];
            return 0;
        }
    long d[3];
    const char *p = s;
    for (int i = 0; i < 3; i++) {
        if (parse_dim(p, &p, &d[i]) != 0) {
            /* Say "zero" plainly: it is the one a user most often means on purpose. */
            RS_CHECK(!(isdigit((unsigned char)*p) && strtol(p, NULL, 10) == 0),
                  "--shape: '%s' has a zero size %s", s, SHAPE_HINT);
            RS_CHECK(0, "--shape: '%s' is not a shape %s", s, SHAPE_HINT);
        }
        if (i < 2) {
            RS_CHECK(*p == 'x' || *p == 'X', "--shape: '%s' is not a shape %s", s, SHAPE_HINT);
            p++;
        }
    }
    char ta = 'N', tb = 'N';
    if (*p == ':') {
        char a = (char)toupper((unsigned char)p[1]), b = a ? (char)toupper((unsigned char)p[2]) : 0;
        RS_CHECK((a == 'N' || a == 'T') && (b == 'N' || b == 'T') && p[3] == 0,
              "--shape: '%s' has a bad transpose '%s' %s", s, p + 1, SHAPE_HINT);
        ta = a;
        tb = b;
        p += 3;
    }
    RS_CHECK(*p == 0, "--shape: '%s' is not a shape %s", s, SHAPE_HINT);
    *out = (gemm_shape){"user", "", d[0], d[1], d[2], ta, tb, 1, NULL};
    return 0;
}
