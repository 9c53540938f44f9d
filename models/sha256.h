/* sha256.h — SHA-256 (FIPS 180-4), to record which corpus a run trained on.
 *
 * The corpus's hash goes into the run's metadata and into every checkpoint, so a
 * --resume on different text is refused.  Streaming interface: init, update any
 * number of times, final. */
#ifndef RS_SHA256_H
#define RS_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t h[8];
    uint64_t nbytes;      /* message length so far */
    uint8_t buf[64];      /* a partial block */
    size_t nbuf;
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t n);
void sha256_final(sha256_ctx *c, uint8_t out[32]);
/* The digest of data[0..n) as 64 lower-case hex digits plus NUL. */
void sha256_hex(const void *data, size_t n, char hex[65]);

#endif
