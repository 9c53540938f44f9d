/* fuzz_input.h — the two forms a fuzz target hands its input to a reader in: a
 * NUL-terminated copy (text parsers) or a file (readers that open a path). */
#ifndef RS_FUZZ_INPUT_H
#define RS_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* data[0..n) and a NUL, malloc'd (free it), or NULL. */
char *fuzz_text(const uint8_t *data, size_t n);

/* data[0..n) as an anonymous file, readable as path (64 bytes) while fd is open: the
 * fd to close, or -1. */
int fuzz_file(const uint8_t *data, size_t n, char path[64]);

#endif
