/* meta_file.h — the metadata file of `simulate-write --meta FILE` (a collector script
 * writes it): one "KEY VALUE..." a line, the value the rest of the line, empty lines
 * skipped.  fuzz/fuzz_csv.c runs it on any bytes. */
#ifndef RS_META_FILE_H
#define RS_META_FILE_H

#include "record.h"

/* path's lines into t's metadata, in order (a repeated key takes the last value).
 * 0, or -1 (rs_lasterr) if it cannot be read. */
int meta_file_read(rs_table *t, const char *path);

#endif
