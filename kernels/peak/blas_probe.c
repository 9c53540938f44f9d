/* blas_probe.c — which kernels OpenBLAS and BLIS dispatch to on this CPU, and the
 * environment variable that corrects a choice below the CPU's ISA.
 *
 * Why: OpenBLAS 0.3.21 (Debian) takes some AVX-512 Xeons for "Prescott" and runs SSE
 * kernels at ~1/5 of peak; BLIS 0.9 falls back to "haswell" there.  A GEMM result
 * is only meaningful next to the kernel that produced it, so `microbench peak`
 * records both and, unless --no-blas-fix, sets the fix for what runs afterwards.
 *
 * How: the kernel choice is fixed once, when a library initializes, from CPUID and
 * an environment variable (OPENBLAS_CORETYPE, BLIS_ARCH_TYPE).  So each question is
 * asked in a forked child that loads the library fresh — dlmopen() into a new link
 * namespace, so even a copy already loaded in this process does not answer for it —
 * with the variable unset (what the library detects) or set (does the fix work?).
 * A child that crashes or hangs (10 s alarm) only makes that answer missing.
 *
 * The fix is applied with setenv() in this process: a BLAS loaded after the probe
 * (dlopen, or the gemm study's first call into a lazily bound library) and child
 * processes (mpirun ranks, other studies run from a script) then pick the right
 * kernel.  A library already initialized in this process keeps its choice, and
 * `used` then reports that choice.  A variable the user set is never overridden.
 *
 * BLIS 0.9 reads BLIS_ARCH_TYPE as a number (its arch_t id; a name like "skx"
 * parses as 0), so the fix is written with the id that the library's own
 * bli_arch_string() table gives for the name.  Note also that bli_arch_query_id()
 * before bli_init() aborts when BLIS_ARCH_TYPE is set: bli_init() comes first here. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "peak.h"
#include "peak_kernels.h"

/* ---- kernel names -> ISA level ---------------------------------------------------- */

static const struct {
    const char *name;   /* OpenBLAS core names and BLIS sub-configurations, any case */
    rs_isa isa;
} kernel_isa[] = {
    /* OpenBLAS (driver/others/dynamic.c corename[]), SSE-era cores */
    {"Katmai", RS_ISA_PORTABLE}, {"Coppermine", RS_ISA_PORTABLE},
    {"Northwood", RS_ISA_PORTABLE}, {"Prescott", RS_ISA_PORTABLE},
    {"Banias", RS_ISA_PORTABLE}, {"Atom", RS_ISA_PORTABLE}, {"Core2", RS_ISA_PORTABLE},
    {"Dunnington", RS_ISA_PORTABLE}, {"Nehalem", RS_ISA_PORTABLE},
    {"Athlon", RS_ISA_PORTABLE}, {"Opteron", RS_ISA_PORTABLE},
    {"Opteron_SSE3", RS_ISA_PORTABLE}, {"Barcelona", RS_ISA_PORTABLE},
    {"Nano", RS_ISA_PORTABLE}, {"Bobcat", RS_ISA_PORTABLE},
    /* AVX (and FMA4/AVX-128) without AVX2+FMA kernels: below the avx2 level */
    {"Sandybridge", RS_ISA_PORTABLE}, {"Bulldozer", RS_ISA_PORTABLE},
    {"Piledriver", RS_ISA_PORTABLE}, {"Steamroller", RS_ISA_PORTABLE},
    {"Excavator", RS_ISA_PORTABLE}, {"Penryn", RS_ISA_PORTABLE},
    /* AVX2 + FMA */
    {"Haswell", RS_ISA_AVX2}, {"Zen", RS_ISA_AVX2}, {"zen2", RS_ISA_AVX2},
    {"zen3", RS_ISA_AVX2},
    /* AVX-512 */
    {"SkylakeX", RS_ISA_AVX512}, {"Cooperlake", RS_ISA_AVX512},
    {"SapphireRapids", RS_ISA_AVX512}, {"skx", RS_ISA_AVX512}, {"knl", RS_ISA_AVX512},
    {"zen4", RS_ISA_AVX512},
    /* BLIS: Knights Corner's 512-bit ISA is not AVX-512; generic is plain C */
    {"knc", RS_ISA_PORTABLE}, {"generic", RS_ISA_PORTABLE},
};

int peak_blas_kernel_isa(const char *name, rs_isa *out)
{
    for (int i = 0; i < RS_ARRAY_LEN(kernel_isa); i++)
        if (strcasecmp(name, kernel_isa[i].name) == 0) {
            *out = kernel_isa[i].isa;
            return 0;
        }
    return -1;
}

/* ---- the libraries ------------------------------------------------------------------ */

enum { LIB_OPENBLAS, LIB_BLIS, LIB_COUNT };

/* The kernel name each library should pick for the CPU's best ISA. */
#define BLIS_NFIX 3
static const char *const blis_fix_names[BLIS_NFIX] = {"skx", "haswell", "zen3"};

static const struct {
    const char *name, *soname, *var;
} libs[LIB_COUNT] = {
    [LIB_OPENBLAS] = {"openblas", "libopenblas.so.0", "OPENBLAS_CORETYPE"},
    [LIB_BLIS] = {"blis", "libblis.so.4", "BLIS_ARCH_TYPE"},
};

static const char *fix_kernel_name(int lib, rs_isa best, int amd)
{
    if (best == RS_ISA_AVX512)
        return lib == LIB_OPENBLAS ? "SkylakeX" : "skx";
    if (best == RS_ISA_AVX2)
        return lib == LIB_OPENBLAS ? (amd ? "Zen" : "Haswell") : (amd ? "zen3" : "haswell");
    return NULL;   /* a portable-level CPU: any kernel the library has will do */
}

/* ---- what one child sees ---------------------------------------------------------- */

typedef struct {
    int found;
    char version[64];
    char kernel[32];
    int blis_ids[BLIS_NFIX];   /* arch_t id of blis_fix_names[i], -1 if absent */
} blas_seen;

/* Ask an already-opened library (handle h) what it uses.  Runs in the child, or in
 * this process for a library that is already loaded here. */
static void ask_library(int lib, void *h, blas_seen *s)
{
    if (lib == LIB_OPENBLAS) {
        char *(*corename)(void) = (char *(*)(void))dlsym(h, "openblas_get_corename");
        char *(*config)(void) = (char *(*)(void))dlsym(h, "openblas_get_config");
        if (!corename)
            return;
        s->found = 1;
        snprintf(s->kernel, sizeof s->kernel, "%s", corename());
        /* "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..." -> "0.3.21" */
        const char *c = config ? config() : "";
        if (strncmp(c, "OpenBLAS ", 9) == 0)
            c += 9;
        snprintf(s->version, sizeof s->version, "%.*s", (int)strcspn(c, " "), c);
    } else {
        void (*init)(void) = (void (*)(void))dlsym(h, "bli_init");
        int (*query)(void) = (int (*)(void))dlsym(h, "bli_arch_query_id");
        char *(*arch_string)(int) = (char *(*)(int))dlsym(h, "bli_arch_string");
        char *(*version)(void) = (char *(*)(void))dlsym(h, "bli_info_get_version_str");
        if (!init || !query || !arch_string)
            return;
        s->found = 1;
        init();
        snprintf(s->kernel, sizeof s->kernel, "%s", arch_string(query()));
        snprintf(s->version, sizeof s->version, "%s", version ? version() : "");
        /* The arch_t ids of the fix targets, from the library's own table, which
         * ends with "generic" (the string array has exactly BLIS_NUM_ARCHS entries). */
        for (int i = 0; i < 64; i++) {
            const char *a = arch_string(i);
            if (!a)
                break;
            for (int k = 0; k < BLIS_NFIX; k++)
                if (strcmp(a, blis_fix_names[k]) == 0)
                    s->blis_ids[k] = i;
            if (strcmp(a, "generic") == 0)
                break;
        }
    }
}

enum { ENV_UNSET, ENV_SET, ENV_KEEP };

/* Fork a child that loads library `lib` with its variable unset, set to `value`, or
 * as in this process; fills *s.  0, or -1 if the child failed (crash, hang). */
static int probe_in_child(int lib, int env_mode, const char *value, blas_seen *s)
{
    memset(s, 0, sizeof *s);
    for (int k = 0; k < BLIS_NFIX; k++)
        s->blis_ids[k] = -1;
    int fd[2];
    RS_CHECK(pipe(fd) == 0, "blas probe: pipe failed");
    fflush(NULL);   /* nothing buffered here is written twice by the child */
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        RS_CHECK(0, "blas probe: fork failed");
    }
    if (pid == 0) {
        close(fd[0]);
        alarm(10);
        /* The libraries' own messages (a BLIS abort) are not ours to print. */
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, 1);
            dup2(devnull, 2);
        }
        if (env_mode == ENV_UNSET)
            unsetenv(libs[lib].var);
        else if (env_mode == ENV_SET)
            setenv(libs[lib].var, value, 1);
        /* One thread is enough to ask; the kernel choice does not depend on it. */
        setenv("OPENBLAS_NUM_THREADS", "1", 1);
        setenv("BLIS_NUM_THREADS", "1", 1);
        void *h = dlmopen(LM_ID_NEWLM, libs[lib].soname, RTLD_NOW | RTLD_LOCAL);
        if (!h)   /* no free namespace: a plain dlopen still answers if not loaded yet */
            h = dlopen(libs[lib].soname, RTLD_NOW | RTLD_LOCAL);
        if (h)
            ask_library(lib, h, s);
        ssize_t w = write(fd[1], s, sizeof *s);
        _exit(w == (ssize_t)sizeof *s ? 0 : 1);
    }
    close(fd[1]);
    size_t got = 0;
    while (got < sizeof *s) {
        ssize_t r = read(fd[0], (char *)s + got, sizeof *s - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    RS_CHECK(got == sizeof *s && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "blas probe: the %s child failed (%s)", libs[lib].name,
          WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "no answer");
    return 0;
}

/* The kernel's ISA, or -1 for a name the table does not know. */
static int kernel_isa_or_unknown(const char *name)
{
    rs_isa isa;
    return peak_blas_kernel_isa(name, &isa) == 0 ? (int)isa : -1;
}

static void probe_library(int lib, int allow_fix, rs_isa best, int amd, peak_blas *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", libs[lib].name);
    blas_seen clean;
    if (probe_in_child(lib, ENV_UNSET, NULL, &clean) != 0 || !clean.found)
        return;   /* not installed, or it would not even load: found = 0 */
    out->found = 1;
    snprintf(out->version, sizeof out->version, "%s", clean.version);
    snprintf(out->detected, sizeof out->detected, "%s", clean.kernel);
    snprintf(out->used, sizeof out->used, "%s", clean.kernel);
    int isa = kernel_isa_or_unknown(clean.kernel);
    /* An unknown name is reported as is and not judged. */
    out->detected_isa = out->used_isa = isa < 0 ? RS_ISA_PORTABLE : (rs_isa)isa;
    int detected_below = isa >= 0 && isa < (int)best;
    snprintf(out->chosen_by, sizeof out->chosen_by, "library");

    /* The fix: the variable's value for the best kernel, verified in a child. */
    const char *target = detected_below ? fix_kernel_name(lib, best, amd) : NULL;
    char value[32] = "";
    if (target && lib == LIB_OPENBLAS)
        snprintf(value, sizeof value, "%s", target);
    for (int k = 0; target && lib == LIB_BLIS && k < BLIS_NFIX; k++)
        if (strcmp(target, blis_fix_names[k]) == 0 && clean.blis_ids[k] >= 0)
            snprintf(value, sizeof value, "%d", clean.blis_ids[k]);
    blas_seen fixed;
    int fix_works = value[0] && probe_in_child(lib, ENV_SET, value, &fixed) == 0 &&
                    fixed.found && kernel_isa_or_unknown(fixed.kernel) >= (int)best;
    if (fix_works)
        snprintf(out->fix, sizeof out->fix, "%s=%s", libs[lib].var, value);

    /* What this process uses from now on. */
    const char *user = getenv(libs[lib].var);
    blas_seen now;
    if (fix_works && allow_fix && !user) {
        setenv(libs[lib].var, value, 1);
        out->fix_applied = 1;
        snprintf(out->chosen_by, sizeof out->chosen_by, "fix");
        snprintf(out->used, sizeof out->used, "%s", fixed.kernel);
    } else if (user && probe_in_child(lib, ENV_KEEP, NULL, &now) == 0 && now.found) {
        snprintf(out->chosen_by, sizeof out->chosen_by, "environment");
        snprintf(out->used, sizeof out->used, "%s", now.kernel);
    }
    /* Already loaded here (linked in, or dlopened before): its choice was made. */
    void *h = dlopen(libs[lib].soname, RTLD_NOW | RTLD_NOLOAD);
    if (h) {
        memset(&now, 0, sizeof now);
        ask_library(lib, h, &now);
        if (now.found)
            snprintf(out->used, sizeof out->used, "%s", now.kernel);
        dlclose(h);
    }
    isa = kernel_isa_or_unknown(out->used);
    out->used_isa = isa < 0 ? RS_ISA_PORTABLE : (rs_isa)isa;
    out->below_cpu = isa >= 0 && isa < (int)best;
}

int peak_blas_probe(int allow_fix, peak_blas out[2])
{
    rs_machine m;
    rs_machine_probe(&m);
    int amd = strstr(m.vendor, "AMD") != NULL || strstr(m.vendor, "Hygon") != NULL;
    rs_isa best = rs_isa_best();
    probe_library(LIB_OPENBLAS, allow_fix, best, amd, &out[0]);
    probe_library(LIB_BLIS, allow_fix, best, amd, &out[1]);
    return 0;
}
