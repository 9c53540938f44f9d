/* fuzz_csv.c — fuzz target: the result-CSV readers (common/record.c: rs_table_read_csv,
 * and rs_table_read_csv_text, the cells as written, which build/bin/study's collectors
 * use) on any bytes as a file; what they read is written back as CSV and JSON, and
 * that JSON must parse again. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "json.h"
#include "record.h"

/* t printed as CSV (discarded) and as JSON, which the project's reader must accept. */
static void write_back(const rs_table *t)
{
    char *json = NULL;
    size_t len = 0;
    FILE *null = fopen("/dev/null", "w"), *mem = open_memstream(&json, &len);
    if (null && mem && (rs_table_print_csv(t, null) != 0 || rs_table_print_json(t, mem) != 0))
        abort();
    if (mem)
        fclose(mem);
    if (null)
        fclose(null);
    rs_json *v = json ? rs_json_parse(json) : NULL;
    if (json && !v)
        abort();   /* a result file a JSON reader refuses */
    rs_json_free(v);
    free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char path[64];
    int fd = fuzz_file(data, n, path);
    if (fd < 0)
        return 0;
    for (int text = 0; text < 2; text++) {
        rs_table *t = text ? rs_table_read_csv_text(path) : rs_table_read_csv(path);
        if (t)
            write_back(t);
        rs_table_free(t);
    }
    close(fd);
    return 0;
}
