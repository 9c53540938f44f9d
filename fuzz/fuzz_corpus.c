/* fuzz_corpus.c — fuzz target: the corpus loader (corpus_load) on any bytes as a text
 * file, at word and character level, with and without a vocabulary cap. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "corpus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    int fd = memfd_create("corpus", 0);
    if (fd < 0)
        return 0;
    if (write(fd, data, n) == (ssize_t)n) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        for (int level = LEVEL_WORD; level <= LEVEL_CHAR; level++)
            for (int cap = 0; cap <= 50; cap += 50) {
                corpus c;
                if (corpus_load(&c, path, (corpus_level)level, cap, cap > 0) == 0)
                    corpus_free(&c);
            }
    }
    close(fd);
    return 0;
}
