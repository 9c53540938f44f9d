/* sha256.h — SHA-256 from nettle (Debian's nettle-dev), to record which corpus a run
 * trained on and to seal checkpoints.  The streaming interface is nettle's own
 * (struct sha256_ctx; sha256_init, sha256_update(ctx, length, data), sha256_digest);
 * this adds the one-call hex digest the run's metadata and checkpoints store. */
#ifndef RS_SHA256_H
#define RS_SHA256_H

#include <stddef.h>

#include <nettle/sha2.h>

/* The digest of data[0..n) as 64 lower-case hex digits plus NUL. */
void sha256_hex(const void *data, size_t n, char hex[65]);

#endif
