/* check.h — error reporting and RS_CHECK macros shared by every rnnscale program.
 *
 * Library code never exits: it records one human-readable line with rs_seterr()
 * and returns -1 (or NULL).  Only main() turns that into an exit status:
 *   RS_EXIT_OK 0, RS_EXIT_WRONG 1 (a correctness check failed),
 *   RS_EXIT_USAGE 2 (bad usage or input), RS_EXIT_INTR 130 (SIGINT, Ctrl-C),
 *   RS_EXIT_TERM 143 (SIGTERM): 128 + the signal, as a shell reports a killed program.
 * The RS_CHECK macros carry file and line so a failure names its place. */
#ifndef RS_CHECK_H
#define RS_CHECK_H

#include <stdio.h>
#include <stdlib.h>

enum { RS_EXIT_OK = 0, RS_EXIT_WRONG = 1, RS_EXIT_USAGE = 2, RS_EXIT_INTR = 130, RS_EXIT_TERM = 143 };
/* The exit code for a run stopped by signal sig: RS_EXIT_TERM for SIGTERM, else RS_EXIT_INTR. */
#define RS_EXIT_FOR_SIGNAL(sig) ((sig) == 15 ? RS_EXIT_TERM : RS_EXIT_INTR)

/* Record the last error (printf-style, one line, no trailing newline). */
void rs_seterr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The last recorded error, or "unknown error". */
const char *rs_lasterr(void);
/* Program name used as the prefix of fatal messages ("microbench exp"). */
void rs_set_progname(const char *name);
const char *rs_progname(void);
/* Print "<prog>: <last error>" on stderr and exit with code (main only). */
void rs_die(int code) __attribute__((noreturn));
/* Print "<prog>: <message>" on stderr and exit with code (main only). */
void rs_fatal(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

/* In a function returning int status: on failure record the message and return -1. */
#define RS_CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            rs_seterr(__VA_ARGS__);                                             \
            return -1;                                                          \
        }                                                                       \
    } while (0)

/* Same, for functions returning a pointer. */
#define RS_CHECK_NULL(cond, ...)                                                   \
    do {                                                                        \
        if (!(cond)) {                                                          \
            rs_seterr(__VA_ARGS__);                                             \
            return NULL;                                                        \
        }                                                                       \
    } while (0)

/* A proven invariant: aborts with expression, file and line (a bug, not input). */
#define RS_ASSERT(cond)                                                         \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: internal error: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                            \
        }                                                                       \
    } while (0)

#define RS_ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

#endif
