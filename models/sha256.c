/* sha256.c — the hex digest over nettle's SHA-256 (sha256.h). */
#include <stdint.h>
#include <stdio.h>

#include "sha256.h"

void sha256_hex(const void *data, size_t n, char hex[65])
{
    struct sha256_ctx c;
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_init(&c);
    sha256_update(&c, n, data);
    sha256_digest(&c, sizeof d, d);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
}
