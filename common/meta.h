/* meta.h — the metadata every result table carries: what ran, where, when, built how. */
#ifndef RS_META_H
#define RS_META_H

#include "record.h"

/* command, date_utc, host, cpu, commit, compiler, cflags, tsc_ghz. */
void rs_table_meta_std(rs_table *t, int argc, char **argv);

/* The command line as one string (arguments with spaces quoted). */
void rs_command_line(int argc, char **argv, char *buf, size_t len);

/* "2026-11-30T06:11:06Z" */
void rs_utc_now(char *buf, size_t len);

#endif
