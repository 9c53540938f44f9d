/* fuzz_platform.c — fuzz target: what the SMPI builds read back about a platform
 * (scaling/sim/host_groups.c): the input's first line is a host name, the rest the
 * RS_SMPI_GROUPS file; that host's group is looked up in the file and in its name. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "host_groups.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    const uint8_t *nl = memchr(data, '\n', n);
    size_t host_len = nl ? (size_t)(nl - data) : n;
    size_t rest = nl ? n - host_len - 1 : 0;
    char *host = strndup((const char *)data, host_len);
    char path[64];
    int fd = fuzz_file(data + n - rest, rest, path);
    if (host && fd >= 0) {
        long group;
        if (host_group_from_file(path, host, &group) != 0)
            abort();   /* the file exists: a lookup cannot fail */
        (void)host_group_from_name(host);
    }
    if (fd >= 0)
        close(fd);
    free(host);
    return 0;
}
