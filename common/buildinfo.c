/* buildinfo.c — compiler, flags and commit, compiled in by the Makefile (rebuilt on
 * every make so the commit recorded in machine.json is the one that ran). */
#include "cpu.h"

#ifndef RS_COMMIT
#define RS_COMMIT "unknown"
#endif
#ifndef RS_CFLAGS
#define RS_CFLAGS "unknown"
#endif

const char *rs_build_compiler(void) { return "gcc " __VERSION__; }
const char *rs_build_cflags(void) { return RS_CFLAGS; }
const char *rs_build_commit(void) { return RS_COMMIT; }
