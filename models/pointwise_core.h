/* pointwise_core.h — the point-wise kernels written once on GCC generic vectors
 * (exp_poly_core.h's exp_vf), instantiated per ISA by pointwise_<isa>.c with
 * EXP_POLY_W set.  Tails shorter than a vector go through a zero-padded temporary,
 * so a tail element gets exactly the bits it would get inside a full vector. */
#include <string.h>

#include "exp_poly_core.h"
#include "pointwise.h"

EXP_POLY_INLINE exp_vf pw_sigmoid(exp_vf x)
{
    const exp_vf one = (exp_vf){0} + 1.0f;
    return one / (one + exp_poly_exact(-x));
}

EXP_POLY_INLINE exp_vf pw_tanh(exp_vf x)
{
    const exp_vf one = (exp_vf){0} + 1.0f;
    return one - (one + one) / (exp_poly_exact(x + x) + one);
}

EXP_POLY_INLINE exp_vf pw_load(const float *p, int n) /* n <= lanes valid floats */
{
    exp_vf v = {0};
    memcpy(&v, p, (size_t)n * sizeof(float));
    return v;
}

EXP_POLY_INLINE void pw_store(float *p, exp_vf v, int n)
{
    memcpy(p, &v, (size_t)n * sizeof(float));
}

/* One vector (n lanes valid) of one row's LSTM step at column j. */
EXP_POLY_INLINE void pw_lstm_vec(float *gr, const float *cp, float *c, float *tc, float *h,
                                 int H, int j, int n)
{
    exp_vf i = pw_sigmoid(pw_load(gr + j, n));
    exp_vf f = pw_sigmoid(pw_load(gr + H + j, n));
    exp_vf g = pw_tanh(pw_load(gr + 2 * H + j, n));
    exp_vf o = pw_sigmoid(pw_load(gr + 3 * H + j, n));
    exp_vf cn = f * pw_load(cp + j, n) + i * g;
    exp_vf t = pw_tanh(cn);
    pw_store(gr + j, i, n);
    pw_store(gr + H + j, f, n);
    pw_store(gr + 2 * H + j, g, n);
    pw_store(gr + 3 * H + j, o, n);
    pw_store(c + j, cn, n);
    pw_store(tc + j, t, n);
    pw_store(h + j, o * t, n);
}

#define POINTWISE_DEFINE(sfx)                                                           \
    static void pw_lstm_fwd_##sfx(float *gates, const float *c_prev, float *c, float *tc, \
                                  float *h, int B, int H)                               \
    { /* gates (B, 4H); c_prev, c, tc, h (B, H) */                                      \
        for (int b = 0; b < B; b++) {                                                   \
            float *gr = gates + (long)b * 4 * H;                                        \
            long o = (long)b * H;                                                       \
            int j = 0;                                                                  \
            for (; j + EXP_POLY_W <= H; j += EXP_POLY_W)                                \
                pw_lstm_vec(gr, c_prev + o, c + o, tc + o, h + o, H, j, EXP_POLY_W);     \
            if (j < H)                                                                  \
                pw_lstm_vec(gr, c_prev + o, c + o, tc + o, h + o, H, j, H - j);          \
        }                                                                               \
    }                                                                                   \
    static void pw_tanh_inplace_##sfx(float *x, long n) /* x (n) */                     \
    {                                                                                   \
        long i = 0;                                                                     \
        for (; i + EXP_POLY_W <= n; i += EXP_POLY_W)                                    \
            pw_store(x + i, pw_tanh(pw_load(x + i, EXP_POLY_W)), EXP_POLY_W);           \
        if (i < n)                                                                      \
            pw_store(x + i, pw_tanh(pw_load(x + i, (int)(n - i))), (int)(n - i));       \
    }
