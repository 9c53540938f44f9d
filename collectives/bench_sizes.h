/* bench_sizes.h — the `allreduce-bench --sizes FILE` format, parsed from its text: sizes
 * in bytes (4096, 64k, 1M; at most 2G), separated by blanks or commas, any number a
 * line, '#' to the end of a line a comment.  No MPI and no globals: bench_options.c
 * passes the file rank 0 read, fuzz/fuzz_sizes.c any bytes. */
#ifndef RS_BENCH_SIZES_H
#define RS_BENCH_SIZES_H

#define SIZES_MAX_BYTES (1L << 31)

/* text (NUL-terminated) into sizes[0..*n): distinct, in the order they first appear, at
 * most max; path names the file in messages.  0, or -1 with one line (rs_lasterr). */
int sizes_parse(const char *text, const char *path, long *sizes, int max, int *n);

#endif
