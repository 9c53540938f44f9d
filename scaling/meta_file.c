/* meta_file.c — meta_file_read() (meta_file.h). */
#include "meta_file.h"

#include <stdio.h>
#include <string.h>

#include "check.h"

int meta_file_read(rs_table *t, const char *path)
{
    FILE *f = fopen(path, "r");
    RS_CHECK(f, "--meta: cannot open %s", path);
    char line[8192];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *sp = strchr(line, ' ');
        if (!line[0])
            continue;
        if (sp)
            *sp = 0;
        rc = rs_table_meta(t, line, sp ? sp + 1 : "");
    }
    fclose(f);
    return rc;
}
