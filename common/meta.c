/* meta.c — standard metadata for result tables (see meta.h). */
#include "meta.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cpu.h"
#include "timer.h"

void rs_command_line(int argc, char **argv, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < argc && n < len; i++) {
        const char *q = strchr(argv[i], ' ') ? "'" : "";
        n += (size_t)snprintf(buf + n, len - n, "%s%s%s%s", i ? " " : "", q, argv[i], q);
    }
}

void rs_utc_now(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void rs_table_meta_std(rs_table *t, int argc, char **argv)
{
    char buf[2048];
    rs_machine m;
    rs_machine_probe(&m);
    rs_command_line(argc, argv, buf, sizeof buf);
    rs_table_meta(t, "command", buf);
    rs_utc_now(buf, sizeof buf);
    rs_table_meta(t, "date_utc", buf);
    rs_table_meta(t, "host", m.host);
    rs_table_meta(t, "cpu", m.model);
    rs_table_meta(t, "isa_best", rs_isa_name(rs_isa_best()));
    rs_table_meta(t, "commit", rs_build_commit());
    rs_table_meta(t, "compiler", rs_build_compiler());
    rs_table_meta(t, "cflags", rs_build_cflags());
    snprintf(buf, sizeof buf, "%.6f", rs_tsc_ghz());
    rs_table_meta(t, "tsc_ghz", buf);
}
