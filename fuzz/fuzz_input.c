/* fuzz_input.c — fuzz_text() and fuzz_file() (fuzz_input.h). */
#define _GNU_SOURCE
#include "fuzz_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

char *fuzz_text(const uint8_t *data, size_t n)
{
    char *text = malloc(n + 1);
    if (text) {
        memcpy(text, data, n);
        text[n] = 0;
    }
    return text;
}

int fuzz_file(const uint8_t *data, size_t n, char path[64])
{
    int fd = memfd_create("fuzz", 0);   /* no file system: nothing left behind */
    if (fd < 0)
        return -1;
    if (write(fd, data, n) != (ssize_t)n) {
        close(fd);
        return -1;
    }
    snprintf(path, 64, "/proc/self/fd/%d", fd);
    return fd;
}
