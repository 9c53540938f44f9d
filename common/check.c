/* check.c — the last-error buffer and the fatal exits used by main(). */
#include "check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char errbuf[512];
static const char *progname = "rnnscale";

void rs_seterr(const char *fmt, ...)
{
    char line[sizeof errbuf];   /* the message may quote rs_lasterr() itself */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    memcpy(errbuf, line, sizeof errbuf);
}

const char *rs_lasterr(void) { return errbuf[0] ? errbuf : "unknown error"; }
void rs_set_progname(const char *name) { progname = name; }
const char *rs_progname(void) { return progname; }

void rs_die(int code)
{
    fprintf(stderr, "%s: %s\n", progname, rs_lasterr());
    exit(code);
}

void rs_fatal(int code, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", progname);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(code);
}
