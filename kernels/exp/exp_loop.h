/* exp_loop.h — the array loop every vector expf kernel shares.
 *
 * EXP_VEC_LOOP(vtype, f, x, y, n) applies f (vtype -> vtype, one vector of floats)
 * to whole vectors of x, then runs the tail (n % lanes elements) through a
 * zero-padded temporary vector, so a tail element gets exactly the bits it would get
 * inside a full vector (each lane is computed independently) and nothing outside
 * x[0..n) or y[0..n) is touched.  Loads and stores are unaligned. */
#ifndef RS_EXP_LOOP_H
#define RS_EXP_LOOP_H

#include <stddef.h>
#include <string.h>

#define EXP_VEC_LOOP(vtype, f, x, y, n)                                        \
    do {                                                                       \
        enum { w_ = sizeof(vtype) / sizeof(float) };                           \
        size_t i_ = 0;                                                         \
        vtype v_;                                                              \
        for (; i_ + w_ <= (n); i_ += w_) {                                     \
            memcpy(&v_, (x) + i_, sizeof v_);                                  \
            v_ = f(v_);                                                        \
            memcpy((y) + i_, &v_, sizeof v_);                                  \
        }                                                                      \
        if (i_ < (n)) {                                                        \
            float t_[w_] = {0};                                                \
            memcpy(t_, (x) + i_, ((n) - i_) * sizeof(float));                  \
            memcpy(&v_, t_, sizeof v_);                                        \
            v_ = f(v_);                                                        \
            memcpy(t_, &v_, sizeof v_);                                        \
            memcpy((y) + i_, t_, ((n) - i_) * sizeof(float));                  \
        }                                                                      \
    } while (0)

#endif
