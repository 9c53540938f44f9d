/* simulate_parts.c — the parts of make simulate's sweep: the presets and SIM_PARTS.
 *
 * The default sweep leaves out what repeats another point (scaling/sim/simulate.md);
 * FULL=1 still runs all of it.  With one rank per node, smpi:mpich and
 * smpi:mvapich2_two_level are SMPI's rdb and smpi:smp_rsag is a ring (the project's
 * ring's times at every point), as are smpi:lr and segring where --skip-ring-repeats
 * says.  From 512 nodes SMPI's selectors (smpi:ompi, smpi:mpich, smpi:mvapich2) pick rdb,
 * rab_rdb or a binomial reduce + bcast, and smpi:rdb and smpi:rab_rdb time exactly as
 * recdbl and rabenseifner (every point at 512-1024 nodes, random placement too): they
 * run at 800 nodes alone, for the 800-node tables.  1 and 16 MiB at 512 and 1024 nodes
 * are in no figure or table.  Moved to FULL=1 (in no verdict or table; the figures'
 * curves end earlier): 4 and 64 MiB at 1024 nodes, the costliest points (the verdicts
 * are at 800 nodes); and at 800 nodes the ring-like points but smpi:lr at 64 MiB, the
 * best SMPI built-in there (its verdict compares hier with it): ring at 4 and 64 MiB,
 * smpi:lr at 4 MiB.  The experiment at 800 nodes again on the platform with its bandwidths
 * or latencies x2 and /2 (caffe_platform_*): the 20x's band, beside it in the reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "simulate_sweep.h"
#include "fsio.h"

static const char quick[] =   /* QUICK=1: a few points of each, up to 256 nodes (make bench) */
    "simulate_small --platform taihulight --nodes 4,16,64,256 --sizes 4,64k,1M,4M --algo project,smpi:rdb,smpi:rab_rdb,smpi:lr,smpi:ompi,bound\n"
    "simulate_placement_random --platform taihulight --nodes 256 --sizes 64k,4M --placement random --algo recdbl,rabenseifner,hier,torus2d,smpi:rab_rdb,bound\n"
    "simulate_platforms_fattree --platform fattree --nodes 64 --sizes 64k,4M --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,bound\n"
    "simulate_platforms_torus --platform torus --platform-args \"--torus 4x4x4\" --nodes 64 --sizes 64k,4M --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,bound\n"
    "caffe --experiment caffe --nodes 1,4,16,64,256\n";

static const char full[] =    /* FULL=1: every algorithm at every size and node count */
    "simulate_small --platform taihulight --nodes 2,4,8,16,32,64,128,256 --sizes 4:64M:4 --algo all\n"
    "simulate_large --platform taihulight --nodes 512,800,1024 --sizes 4,1k,16k,256k,1M,4M,16M,64M --algo all\n"
    "simulate_placement_roundrobin --platform taihulight --nodes 800 --sizes 4,64k,1M,4M,64M --placement roundrobin --algo recdbl,rabenseifner,hier,torus2d,smpi:rab_rdb,smpi:mvapich2,bound\n"
    "simulate_placement_random --platform taihulight --nodes 800 --sizes 4,64k,1M,4M,64M --placement random --algo recdbl,rabenseifner,hier,torus2d,smpi:rab_rdb,smpi:mvapich2,bound\n"
    "simulate_platforms_fattree --platform fattree --nodes 64,512 --sizes 4,64k,4M,64M --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,smpi:rab_rdb,bound\n"
    "simulate_platforms_torus --platform torus --nodes 64,512 --sizes 4,64k,4M,64M --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,smpi:rab_rdb,bound\n"
    "caffe --experiment caffe --nodes 1,2,4,8,16,32,64,128,256,512,800\n"
    "caffe_platform_bw2 --experiment caffe --nodes 800 --platform-args \"--bandwidth-factor 2\"\n"
    "caffe_platform_bwhalf --experiment caffe --nodes 800 --platform-args \"--bandwidth-factor 0.5\"\n"
    "caffe_platform_lat2 --experiment caffe --nodes 800 --platform-args \"--latency-factor 2\"\n"
    "caffe_platform_lathalf --experiment caffe --nodes 800 --platform-args \"--latency-factor 0.5\"\n";

static const char standard[] =
    "simulate_small --platform taihulight --nodes 2,4,8,16,32,64,128,256 --sizes 4:64M:4 --algo project,smpi:rdb,smpi:rab1,smpi:rab_rdb,smpi:lr,smpi:ompi,smpi:mvapich2,bound --skip-ring-repeats\n"
    "simulate_large --platform taihulight --nodes 512,800,1024 --sizes 4,64k --sizes-at 512:4,64k,4M,64M --sizes-at 800:4,64k,1M,4M,16M,64M --algo recdbl,rabenseifner,binomial,hier,torus2d,bound\n"
    "simulate_large_smpi --platform taihulight --nodes 800 --sizes 4,64k,1M,4M,16M,64M --algo smpi:rdb,smpi:rab_rdb\n"
    "simulate_ring --platform taihulight --nodes 800 --sizes 64M --algo smpi:lr\n"
    "caffe --experiment caffe --nodes 1,2,4,8,16,32,64,128,256,512,800\n"
    "caffe_platform_bw2 --experiment caffe --nodes 800 --platform-args \"--bandwidth-factor 2\"\n"
    "caffe_platform_bwhalf --experiment caffe --nodes 800 --platform-args \"--bandwidth-factor 0.5\"\n"
    "caffe_platform_lat2 --experiment caffe --nodes 800 --platform-args \"--latency-factor 2\"\n"
    "caffe_platform_lathalf --experiment caffe --nodes 800 --platform-args \"--latency-factor 0.5\"\n"
    "simulate_placement_random --platform taihulight --nodes 800 --sizes 4M,64M --placement random --algo rabenseifner,hier,bound\n"
    "simulate_platforms_fattree --platform fattree --nodes 64,512 --sizes 64k,4M,64M --algo rabenseifner,hier,torus2d,smpi:ompi,bound\n"
    "simulate_platforms_torus --platform torus --nodes 64,512 --sizes 64k,4M,64M --algo rabenseifner,hier,torus2d,smpi:ompi,bound\n";

int sim_split_words(const char *s, char *store, size_t len, char **argv, int most)
{
    int n = 1;
    size_t used = 0;
    while (*s) {
        s += strspn(s, " \t\n");
        if (!*s)
            break;
        RS_CHECK(n < most - 1, "more than %d words", most - 2);
        argv[n++] = store + used;
        char q = 0;
        for (; *s && (q || !strchr(" \t\n", *s)); s++) {
            if (!q && (*s == '\'' || *s == '"')) {
                q = *s;
                continue;
            }
            if (q && *s == q) {
                q = 0;
                continue;
            }
            if (*s == '\\' && q != '\'' && s[1] && (!q || strchr("\"\\$`", s[1])))
                s++;
            RS_CHECK(used + 2 < len, "the options are too long");
            store[used++] = *s;
        }
        RS_CHECK(!q, "an unclosed %c quote", q);
        store[used++] = 0;
    }
    argv[n] = NULL;
    return n;
}

int sim_parts(const study_run *r, sim_part **parts)
{
    const char *file = study_value(r, "SIM_PARTS"), *text = strcmp(study_value(r, "FULL"), "1") == 0 ? full
                                                             : strcmp(study_value(r, "QUICK"), "1") == 0 ? quick
                                                                                                      : standard;
    char *buf = NULL;
    if (*file) {
        FILE *f = rs_fopen_read(file);
        RS_CHECK(f, "SIM_PARTS=%s: %s (give a file of \"NAME simulate-options\" lines)", file, rs_lasterr());
        size_t cap = 0;
        if (getdelim(&buf, &cap, 0, f) < 0) {
            free(buf);
            buf = strdup("");
        }
        fclose(f);
        text = buf;
    }
    int n = 0;
    *parts = NULL;
    for (const char *l = text; *l;) {
        size_t len = strcspn(l, "\n");
        char line[8192];
        snprintf(line, sizeof line, "%.*s", (int)len, l);
        l += len + (l[len] == '\n');
        char *name = line + strspn(line, " \t");
        if (!*name || *name == '#')
            continue;
        char *args = name + strcspn(name, " \t");
        if (*args)
            *args++ = 0;
        args += strspn(args, " \t");
        for (size_t e = strlen(args); e > 0 && strchr(" \t\r", args[e - 1]); e--)
            args[e - 1] = 0;
        *parts = realloc(*parts, sizeof **parts * (size_t)(n + 1));
        RS_ASSERT(*parts != NULL);
        sim_part *p = &(*parts)[n++];
        snprintf(p->name, sizeof p->name, "%s", name);
        snprintf(p->args, sizeof p->args, "%s", args);
        if (name[strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")]) {
            rs_seterr("%s: the part '%s': not a name (letters, digits, _ - .)", *file ? file : "the preset", name);
            free(buf);
            return -1;
        }
    }
    for (int i = 0; i < n; i++) {   /* the words, now that the parts stay where they are */
        sim_part *p = &(*parts)[i];
        p->argv[0] = "simulate";
        p->argc = sim_split_words(p->args, p->store, sizeof p->store, p->argv, 150);
        if (p->argc < 0) {
            char why[512];
            snprintf(why, sizeof why, "%s", rs_lasterr());
            rs_seterr("%s: the part '%s': %s", *file ? file : "the preset", p->name, why);
            free(buf);
            return -1;
        }
    }
    free(buf);
    return n;
}
