/* cli_support.h — running build/bin programs from Criterion tests: the exit status,
 * stderr captured, and the contract for bad input (exit 2, exactly one line that
 * names the problem).  Tests run from the repository root (`make test`). */
#ifndef RS_TEST_CLI_SUPPORT_H
#define RS_TEST_CLI_SUPPORT_H

#include <stddef.h>

/* Run bin with the arguments prefix[] then args[] (both NULL-terminated; prefix may be
 * NULL), stdout to /dev/null, stderr into err[0..errlen-1].  Returns the exit status
 * (128 + signal if killed).  Skips the test if bin is not built. */
int cli_run(const char *bin, const char *const *prefix, const char *const *args, char *err,
            size_t errlen);

/* Lines in s. */
int cli_lines(const char *s);

/* Expect exit 2 and one line on stderr containing fragment. */
void cli_expect_usage_error(const char *bin, const char *const *prefix, const char *const *args,
                            const char *fragment);

#endif
