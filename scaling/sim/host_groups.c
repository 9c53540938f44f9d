/* host_groups.c — a host's group from the groups file or its name (host_groups.h). */
#include "host_groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fsio.h"

int host_group_from_file(const char *file, const char *host, long *group)
{
    FILE *f = rs_fopen_read(file);
    RS_CHECK(f, "RS_SMPI_GROUPS: cannot open %s", file);
    char line[512], h[256];
    long g;
    *group = -1;
    while (*group < 0 && fgets(line, sizeof line, f))
        if (line[0] != '#' && sscanf(line, "%255s %ld", h, &g) == 2 && strcmp(h, host) == 0)
            *group = g;
    fclose(f);
    return 0;
}

long host_group_from_name(const char *host)
{
    long found = -1;
    for (const char *s = strstr(host, "-g"); s; s = strstr(s + 1, "-g")) {
        char *end;
        long g = strtol(s + 2, &end, 10);
        if (end > s + 2 && strncmp(end, "-n", 2) == 0)
            found = g;
    }
    return found;
}
