/* replay.c — runs a fuzz target on files, without libFuzzer: `make test` replays every
 * seed and every input that once crashed (fuzz/seeds/NAME/, fuzz/regress/NAME/) through
 * the ordinary build, so a fixed crash stays fixed.  Usage: replay_NAME FILE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            return 2;
        }
        uint8_t *buf = NULL;
        size_t n = 0, cap = 0, got;
        do {
            if (n == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 4096)))
                return 2;
            got = fread(buf + n, 1, cap - n, f);
            n += got;
        } while (got > 0);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
    }
    printf("replay: %d inputs, no crash\n", argc - 1);
    return 0;
}
