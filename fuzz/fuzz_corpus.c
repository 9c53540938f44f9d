/* fuzz_corpus.c — fuzz target: the corpus loader (corpus_load) on any bytes as a text
 * file, at word and character level, with and without a vocabulary cap. */
#include <stdint.h>
#include <unistd.h>

#include "corpus.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char path[64];
    int fd = fuzz_file(data, n, path);
    if (fd < 0)
        return 0;
    for (int level = LEVEL_WORD; level <= LEVEL_CHAR; level++)
        for (int cap = 0; cap <= 50; cap += 50) {
            corpus c;
            if (corpus_load(&c, path, (corpus_level)level, cap, cap > 0) == 0)
                corpus_free(&c);
        }
    close(fd);
    return 0;
}
