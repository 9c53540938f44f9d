/* rng.h — the models' random numbers: a pure function of (seed, stream, index).
 *
 * Every random value (initial weights, and any later sampling) is
 * splitmix64(seed, stream, index) rather than the next draw of a stateful generator,
 * so a parameter's initial value does not depend on the order tensors are visited,
 * the test and the trainer agree on every entry, and a checkpoint needs only the seed
 * and counters to continue exactly. */
#ifndef RS_MODELS_RNG_H
#define RS_MODELS_RNG_H

#include <stdint.h>

static inline uint64_t rng_mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rng_u64(uint64_t seed, uint64_t stream, uint64_t index)
{
    return rng_mix(rng_mix(rng_mix(seed) ^ stream) ^ index);
}

/* Uniform in [-1, 1), 24 random bits (exact in float and double). */
static inline double rng_sym(uint64_t seed, uint64_t stream, uint64_t index)
{
    return (double)(int32_t)(rng_u64(seed, stream, index) >> 32 & 0xffffff) / 8388608.0 - 1.0;
}

#endif
