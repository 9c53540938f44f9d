/* cpu.c — CPUID-based ISA dispatch and the machine probe (/proc, sysconf, uname). */
#define _GNU_SOURCE
#include "cpu.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

const char *const rs_isa_names[RS_ISA_COUNT] = {"portable", "avx2", "avx512"};

/* __builtin_cpu_supports also checks that the OS saves the wide registers (XCR0). */
int rs_isa_supported(rs_isa isa)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    switch (isa) {
    case RS_ISA_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
    case RS_ISA_AVX2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    default:
        return isa == RS_ISA_PORTABLE;
    }
#else
    return isa == RS_ISA_PORTABLE;
#endif
}

rs_isa rs_isa_best(void)
{
    for (int i = RS_ISA_COUNT - 1; i > 0; i--)
        if (rs_isa_supported((rs_isa)i))
            return (rs_isa)i;
    return RS_ISA_PORTABLE;
}

const char *rs_isa_name(rs_isa isa)
{
    return (unsigned)isa < RS_ISA_COUNT ? rs_isa_names[isa] : "?";
}

int rs_isa_from_name(const char *name, rs_isa *out)
{
    for (int i = 0; i < RS_ISA_COUNT; i++)
        if (strcmp(name, rs_isa_names[i]) == 0) {
            *out = (rs_isa)i;
            return 0;
        }
    return -1;
}

int rs_isa_lanes(rs_isa isa)
{
    return isa == RS_ISA_AVX512 ? 16 : isa == RS_ISA_AVX2 ? 8 : 1;
}

/* First value of "key\t: value" in /proc/cpuinfo. */
static void cpuinfo_field(const char *key, char *out, size_t len)
{
    char line[4096];
    FILE *f = fopen("/proc/cpuinfo", "r");
    out[0] = 0;
    if (!f)
        return;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) == 0 && (line[kl] == ' ' || line[kl] == '\t')) {
            char *v = strchr(line, ':');
            if (v) {
                v += 1 + (v[1] == ' ');
                v[strcspn(v, "\n")] = 0;
                snprintf(out, len, "%s", v);
            }
            break;
        }
    }
    fclose(f);
}

/* Per-level data/unified cache size.  sysfs first: it is what the kernel (and, in a
 * VM, the hypervisor's topology) reports for this CPU — glibc's sysconf may report a
 * whole chip's L3 that this VM's cores never share (here: 256 MiB vs 32 MiB). */
static long cache_sysfs(int level)
{
    for (int idx = 0; idx < 8; idx++) {
        char path[128], buf[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", idx);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        int lv = 0;
        if (fscanf(f, "%d", &lv) != 1)
            lv = 0;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", idx);
        f = fopen(path, "r");
        if (!f || !fgets(buf, sizeof buf, f)) {
            if (f)
                fclose(f);
            continue;
        }
        fclose(f);
        if (lv != level || strncmp(buf, "Instruction", 11) == 0)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
        f = fopen(path, "r");
        long kb = 0;
        if (f) {
            if (fscanf(f, "%ldK", &kb) != 1)
                kb = 0;
            fclose(f);
        }
        if (kb > 0)
            return kb * 1024;
    }
    return 0;
}

static long cache_bytes(int level)
{
    long v = cache_sysfs(level);
    if (v > 0)
        return v;
    v = sysconf(level == 1 ? _SC_LEVEL1_DCACHE_SIZE : level == 2 ? _SC_LEVEL2_CACHE_SIZE
                                                                 : _SC_LEVEL3_CACHE_SIZE);
    return v > 0 ? v : 0;
}

long rs_llc_bytes(void)
{
    for (int l = 3; l >= 1; l--) {
        long v = cache_bytes(l);
        if (v > 0)
            return v;
    }
    return 32L << 20;
}

void rs_machine_probe(rs_machine *m)
{
    memset(m, 0, sizeof *m);
    cpuinfo_field("model name", m->model, sizeof m->model);
    cpuinfo_field("vendor_id", m->vendor, sizeof m->vendor);
    char flags[8192];
    cpuinfo_field("flags", flags, sizeof flags);
    static const char *want[] = {"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq",
                                 "avx512bw", "avx512vl", "avx512_bf16", "amx_tile",
                                 "hypervisor", NULL};
    for (int i = 0; want[i]; i++) {
        char pat[40];
        snprintf(pat, sizeof pat, " %s ", want[i]);
        char padded[8200];
        snprintf(padded, sizeof padded, " %s ", flags);
        if (strstr(padded, pat)) {
            if (m->flags_isa[0])
                strncat(m->flags_isa, " ", sizeof m->flags_isa - strlen(m->flags_isa) - 1);
            strncat(m->flags_isa, want[i], sizeof m->flags_isa - strlen(m->flags_isa) - 1);
        }
    }
    snprintf(m->hypervisor, sizeof m->hypervisor, "%s",
             strstr(m->flags_isa, "hypervisor") ? "yes" : "no");
    m->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    m->l1d_bytes = cache_bytes(1);
    m->l2_bytes = cache_bytes(2);
    m->l3_bytes = cache_bytes(3);
    gethostname(m->host, sizeof m->host - 1);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(m->kernel, sizeof m->kernel, "%.40s %.80s", u.sysname, u.release);
}
