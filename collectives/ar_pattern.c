/* ar_pattern.c — the checking inputs and their closed-form results (ar_pattern.h). */
#include "ar_pattern.h"

#include <string.h>

#define M 1021  /* a prime: every residue step visits all values */
#define H 510   /* (M-1)/2: values centred on 0 */

static uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static long base(uint64_t seed, size_t i) { return (long)(mix64(seed * 0xD1B54A32D192ED03ull ^ (uint64_t)i) % M); }

double ar_pattern_value(uint64_t seed, int rank, size_t i)
{
    return (double)((base(seed, i) + rank) % M - H);
}

void ar_pattern_fill(void *buf, size_t count, ar_dtype t, uint64_t seed, int rank)
{
    for (size_t i = 0; i < count; i++) {
        long v = (base(seed, i) + rank % M) % M - H;
        switch (t) {
        case AR_FLOAT: ((float *)buf)[i] = (float)v; break;
        case AR_DOUBLE: ((double *)buf)[i] = (double)v; break;
        default: ((int32_t *)buf)[i] = (int32_t)v; break;
        }
    }
}

/* sum_{r<p} ((a + r) mod M) - p H and max_{r<p} ((a + r) mod M) - H in O(1). */
double ar_pattern_expect(uint64_t seed, int p, size_t i, ar_op op)
{
    long a = base(seed, i);
    if (op == AR_MAX) {
        long top = p >= M || a + p - 1 >= M ? M - 1 : a + p - 1;
        return (double)(top - H);
    }
    long long full = p / M, m = p % M, s = full * (long long)M * (M - 1) / 2;
    if (a + m <= M) {
        s += m * a + m * (m - 1) / 2;
    } else {
        long long k = a + m - M;  /* terms that wrapped to 0..k-1 */
        s += (a + M - 1) * (long long)(M - a) / 2 + k * (k - 1) / 2;
    }
    return (double)(s - (long long)p * H);
}

size_t ar_pattern_check(const void *buf, size_t count, ar_dtype t, ar_op op, uint64_t seed,
                        int p, size_t *first_bad)
{
    size_t bad = 0;
    *first_bad = count;
    for (size_t i = 0; i < count; i++) {
        double e = ar_pattern_expect(seed, p, i, op);
        int ok;
        switch (t) {
        case AR_FLOAT: {
            float want = (float)e, got = ((const float *)buf)[i];
            ok = memcmp(&want, &got, sizeof got) == 0;
            break;
        }
        case AR_DOUBLE: {
            double got = ((const double *)buf)[i];
            ok = memcmp(&e, &got, sizeof got) == 0;
            break;
        }
        default: {
            /* int32 sums of many ranks wrap exactly like the reduction does */
            int32_t want = (int32_t)(uint32_t)(long long)e, got = ((const int32_t *)buf)[i];
            ok = want == got;
            break;
        }
        }
        if (!ok) {
            if (bad == 0)
                *first_bad = i;
            bad++;
        }
    }
    return bad;
}
