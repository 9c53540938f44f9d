/* progress.h — one progress line for long runs, only when stderr is a terminal.
 *   [ 12/40] exp poly avx512 n=4096           30%  ETA 0:42
 * The line is rewritten in place and cleared by rs_progress_done(). */
#ifndef RS_PROGRESS_H
#define RS_PROGRESS_H

void rs_progress_begin(int total);
void rs_progress(int done, const char *label);
void rs_progress_done(void);

#endif
