/* gemm_dl.c — private loading of BLAS libraries with corrected or default dispatch
 * (gemm_dl.h).
 *
 * The default copy: a library already loaded in this process would be returned again
 * by dlopen, with the kernel it chose at its first load.  dlmopen(LM_ID_NEWLM) loads a
 * fresh copy, with its own libc, libgomp and thread pool, that initializes again and
 * so chooses again (kernels/peak's probe uses the same mechanism, in a child).
 *
 * Hiding the variable: the new namespace's libc is handed this process's environ
 * array itself, so unsetenv/setenv around the load would leave it holding an array
 * that a later setenv may realloc and free.  Instead the entry's first letter is
 * lower-cased in place ("oPENBLAS_CORETYPE=..." is a different, harmless name) for
 * the length of the load and restored after: no array is reallocated, and every
 * setenv of this process (the probe's) has already happened (gemm_dl_open). */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemm_dl.h"

extern char **environ;

static peak_blas probed[2];
static int probe_done;

const peak_blas *gemm_blas_probe(const char *lib)
{
    if (!probe_done) {
        probe_done = 1;
        if (peak_blas_probe(1, probed) != 0)
            memset(probed, 0, sizeof probed);
    }
    for (int i = 0; i < 2; i++)
        if (probed[i].found && strcmp(probed[i].name, lib) == 0)
            return &probed[i];
    return NULL;
}

/* The environ entry "var=...", or NULL. */
static char *env_entry(const char *var)
{
    size_t n = strlen(var);
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, var, n) == 0 && (*e)[n] == '=')
            return *e;
    return NULL;
}

void *gemm_dl_open(const char *soname, const char *var, gemm_dl_mode mode,
                   void (*init)(void *h))
{
    gemm_openblas_fit_threads();
    gemm_blas_probe("openblas");
    void *h;
    if (mode == GEMM_DL_FIXED) {
        h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        if (h && init)
            init(h);
    } else {
        char *e = var ? env_entry(var) : NULL;
        if (e)
            e[0] = (char)tolower((unsigned char)e[0]);
        h = dlmopen(LM_ID_NEWLM, soname, RTLD_NOW | RTLD_LOCAL);
        if (h && init)
            init(h);
        if (e)
            e[0] = (char)toupper((unsigned char)e[0]);
    }
    RS_CHECK_NULL(h, "%s not loadable: %s", soname, dlerror());
    return h;
}

void *gemm_dl_sym(void *h, const char *lib, const char *name)
{
    void *s = dlsym(h, name);
    RS_CHECK_NULL(s, "%s: no symbol %s", lib, name);
    return s;
}

void gemm_dl_describe(char *buf, size_t len, const char *kernel, const peak_blas *pb,
                      const char *var, gemm_dl_mode mode)
{
    const char *user = getenv(var);
    if (mode == GEMM_DL_DEFAULT)
        snprintf(buf, len, "%s (default)", kernel);
    else if (pb && pb->fix_applied && strcmp(kernel, pb->detected) != 0)
        snprintf(buf, len, "%s (fixed from %s)", kernel, pb->detected);
    else if (user && !(pb && pb->fix_applied))
        snprintf(buf, len, "%s (%s=%s set by the user)", kernel, var, user);
    else
        snprintf(buf, len, "%s", kernel);
}
