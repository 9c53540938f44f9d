/* platform_gen.c — `platform-gen`: SimGrid platform files and hostfiles for the SMPI
 * studies (study simulate), one parameter table per platform, every value with its
 * source or marked as an assumption (scaling/sim/platforms/README.md repeats the table).
 *
 *   platform-gen --platform taihulight --nodes 800 --out /tmp/tl        # tl.xml tl.hosts ...
 *   platform-gen --platform fattree --nodes 64 --placement random --seed 3 --out /tmp/ft
 *   platform-gen --platform torus --torus 8x8x16 --nodes 512 --out /tmp/t3
 *   platform-gen --platform taihulight --describe                     # the parameters
 *
 * Writes (never overwriting, like every result file):
 *   PREFIX.xml     the platform (SimGrid 3.32, DTD 4.1)
 *   PREFIX.hosts   the hostfile: one host per rank, rank order = the placement
 *   PREFIX.groups  "HOST GROUP" for every host: the platform's groups (supernode, leaf
 *                  switch, torus x-line), the topology file hier may read
 *   PREFIX.params  "key value  # source" for every parameter, for the results' metadata
 *
 * The model.  taihulight and fattree are one structure: groups of G nodes, each group
 * a non-blocking switch (a SimGrid <cluster>: one private full-duplex link per node of
 * the injection bandwidth B, a shared backbone of G * B, all its ports at once), every
 * group joined to a central network by one full-duplex uplink of G * B / R (R = the
 * oversubscription ratio), the central network itself non-blocking (a shared link of
 * K uplinks' bandwidth).  Shared links of ample capacity, not FATPIPE: with FATPIPE
 * backbones SimGrid 3.32 slowed a 4-rank ring mixing in-group and cross-group flows by
 * 1.6x for no physical reason (a shared backbone of G * B gives the expected times).
 * Hosts are named PREFIX-gG-nN (group G, node N), the scheme the hier algorithm reads
 * its groups from.
 *   taihulight: G = 256 (a supernode), B = 16 GB/s, R from the published bisection;
 *   fattree:    G = 32 leaf ports down (assumption), R = 1: a non-blocking two-level
 *               fat tree with ideal (flow-level) load balancing over the spines.
 *   torus:      a SimGrid TORUS cluster (dimension-order routing), one full-duplex link
 *               of B per direction per dimension; groups are x-lines.
 * Nodes taken: the first --nodes hosts in host order (whole groups first); the
 * placement only orders them: consecutive (rank i on the i-th), roundrobin (ranks dealt
 * over the groups in turn), random (a seeded shuffle).
 *
 * Exit 0, or 2 with one line on stderr for an impossible parameter (zero bandwidth,
 * more nodes than the platform has, a malformed torus). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fsio.h"
#include "opts.h"

/* ---- the published facts about Sunway TaihuLight ----------------------------------- */
#define TL_NODES_TOTAL 40960.0  /* nodes (Dongarra 2016, UT-EECS-16-742) */
#define TL_SUPERNODE 256        /* nodes per supernode (Dongarra 2016; Fu et al. 2016) */
#define TL_INJECTION_GBS 16.0   /* node injection, 16 GB/s = 128 Gb/s (Dongarra 2016) */
#define TL_BISECTION_GBS 70000.0 /* whole-machine bisection, 70 TB/s (Dongarra 2016) */
#define TL_NODE_GFLOPS 3060.0   /* SW26010 peak, 3.06 TFLOP/s (Dongarra 2016) */

/* R from the bisection: 160 supernodes, a bisection cuts 80 uplinks, so each uplink
 * carries 70 TB/s / 80 = 875 GB/s against 256 x 16 = 4096 GB/s of injection: 4.68. */
static double tl_oversubscription(void)
{
    double supernodes = TL_NODES_TOTAL / TL_SUPERNODE;
    double uplink = TL_BISECTION_GBS / (supernodes / 2);
    return TL_SUPERNODE * TL_INJECTION_GBS / uplink;
}

/* ---- options: one static struct, a line per field ---- */
#define UNSET (-1e300) /* a number option not given: its default applies */
static struct {
    const char *platform;    /* --platform taihulight|fattree|torus */
    long nodes;              /* --nodes P: ranks, one per node */
    long groups;             /* --groups K: groups in the platform (default: enough for P) */
    long group_size;         /* --group-size G */
    double node_gbs;         /* --node-gbytes-per-s B */
    double oversub;          /* --oversubscription R */
    double node_lat_us;      /* --node-lat-us: each node link */
    double switch_lat_us;    /* --switch-lat-us: a group's switch (the cluster backbone) */
    double uplink_lat_us;    /* --uplink-lat-us: each group uplink */
    double central_lat_us;   /* --central-lat-us: the central network */
    double reduce_gbs;       /* --reduce-gbytes-per-s: the gamma model */
    double host_gflops;      /* --host-gflops: host speed (only scales flops, see README) */
    double bw_factor;        /* --bandwidth-factor: every bandwidth, given or default, times this */
    double lat_factor;       /* --latency-factor: every latency, given or default, times this */
    const char *torus;       /* --torus XxYxZ */
    const char *placement;   /* --placement consecutive|roundrobin|random */
    long seed;               /* --seed for random */
    const char *out;         /* --out PREFIX */
    int describe;            /* --describe: print the parameters and exit */
} opt = {.placement = "consecutive", .seed = 1, .node_gbs = UNSET, .oversub = UNSET,
         .node_lat_us = UNSET, .switch_lat_us = UNSET, .uplink_lat_us = UNSET,
         .central_lat_us = UNSET, .reduce_gbs = UNSET, .host_gflops = UNSET, .bw_factor = 1, .lat_factor = 1};

static const rs_opt options[] = {
    {"platform", RS_OPT_STR, &opt.platform, "NAME", "taihulight, fattree or torus", 0, 0},
    {"nodes", RS_OPT_INT, &opt.nodes, "P", "ranks (one per node) the hostfile lists", 1, 1 << 20},
    {"groups", RS_OPT_INT, &opt.groups, "K", "groups (supernodes, leaf switches) in the platform (default: enough for --nodes)", 1, 1 << 16},
    {"group-size", RS_OPT_INT, &opt.group_size, "G", "nodes per group (taihulight 256, fattree 32)", 1, 1 << 20},
    {"node-gbytes-per-s", RS_OPT_DBL, &opt.node_gbs, "B", "node injection bandwidth, GB/s per direction (default 16)", 0, 0},
    {"oversubscription", RS_OPT_DBL, &opt.oversub, "R", "group injection / uplink bandwidth (taihulight: 4.68 from the bisection; fattree 1)", 0, 0},
    {"node-lat-us", RS_OPT_DBL, &opt.node_lat_us, "US", "latency of a node's link (default 0.4)", 0, 0},
    {"switch-lat-us", RS_OPT_DBL, &opt.switch_lat_us, "US", "latency of a group's switch (default 0.2)", 0, 0},
    {"uplink-lat-us", RS_OPT_DBL, &opt.uplink_lat_us, "US", "latency of a group's uplink (default 0.5)", 0, 0},
    {"central-lat-us", RS_OPT_DBL, &opt.central_lat_us, "US", "latency of the central network (default 0.5)", 0, 0},
    {"reduce-gbytes-per-s", RS_OPT_DBL, &opt.reduce_gbs, "X", "gamma model: bytes reduced per second per node, GB/s (default 30)", 0, 0},
    {"host-gflops", RS_OPT_DBL, &opt.host_gflops, "F", "host speed in GFLOP/s (default 3060, SW26010)", 0, 0},
    {"bandwidth-factor", RS_OPT_DBL, &opt.bw_factor, "F", "every network bandwidth (node links, uplinks, backbones) times F (default 1)", 0, 0},
    {"latency-factor", RS_OPT_DBL, &opt.lat_factor, "F", "every link and switch latency times F (default 1)", 0, 0},
    {"torus", RS_OPT_STR, &opt.torus, "XxYxZ", "torus dimensions, 2 or 3 (default 8x8x16)", 0, 0},
    {"placement", RS_OPT_STR, &opt.placement, "HOW", "consecutive, roundrobin or random (default consecutive)", 0, 0},
    {"seed", RS_OPT_INT, &opt.seed, "N", "seed of the random placement (default 1)", 0, 1e18},
    {"out", RS_OPT_STR, &opt.out, "PREFIX", "write PREFIX.xml, .hosts, .groups, .params", 0, 0},
    {"describe", RS_OPT_FLAG, &opt.describe, NULL, "print the platform's parameters with their sources, then exit", 0, 0},
};

static const char usage[] =
    "usage: platform-gen --platform taihulight|fattree|torus --nodes P --out PREFIX [options]\n"
    "SimGrid platform (PREFIX.xml), hostfile (.hosts), groups (.groups) and parameters\n"
    "(.params) for P simulated nodes.  Every parameter's source: --describe.\n"
    "Exit: 0 ok, 2 an impossible parameter (one line on stderr).";

/* ---- the parameters, resolved: value, unit, source ---- */
enum { P_NODES, P_GROUPS, P_G, P_B, P_R, P_UPLINK, P_LNODE, P_LSWITCH, P_LUP, P_LCENTRAL,
       P_ALPHA, P_ALPHA_HI, P_REDUCE, P_SPEED, P_N };
static struct {
    const char *key;
    double v;
    const char *src;
} par[P_N];
static int dims[3], ndims;

/* A parameter: the value given (unless UNSET), else the default and its source. */
static void set(int i, const char *key, double given, double dflt, const char *src)
{
    par[i].key = key;
    par[i].v = given != UNSET ? given : dflt;
    par[i].src = given != UNSET ? "given on the command line" : src;
}
/* --bandwidth-factor or --latency-factor on parameter i (f != 1), said in its source. */
static void scale(int i, double f, const char *option)
{
    static char why[P_N][320];
    if (f == 1)
        return;
    par[i].v *= f;
    snprintf(why[i], sizeof why[i], "%s, times %g (%s)", par[i].src, f, option);
    par[i].src = why[i];
}

/* A quantity derived from the others. */
static void derive(int i, const char *key, double v, const char *how)
{
    par[i].key = key;
    par[i].v = v;
    par[i].src = how;
}

static int parse_torus(const char *s)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    ndims = 0;
    for (char *t = strtok(buf, "x"); t; t = strtok(NULL, "x")) {
        char *end;
        long v = strtol(t, &end, 10);
        RS_CHECK(!*end && v >= 2 && v <= 1024 && ndims < 3,
              "--torus: '%s' is not a torus (expected 2 or 3 dimensions of 2..1024, like 8x8x16)", s);
        dims[ndims++] = (int)v;
    }
    RS_CHECK(ndims >= 2, "--torus: '%s' is not a torus (expected 2 or 3 dimensions, like 32x32 or 8x8x16)", s);
    return 0;
}

static int resolve(void)
{
    RS_CHECK(opt.platform, "--platform: missing (expected taihulight, fattree or torus)");
    int tl = strcmp(opt.platform, "taihulight") == 0, ft = strcmp(opt.platform, "fattree") == 0,
        to = strcmp(opt.platform, "torus") == 0;
    RS_CHECK(tl || ft || to, "--platform: unknown platform '%s' (expected taihulight, fattree or torus)",
          opt.platform);
    RS_CHECK(strcmp(opt.placement, "consecutive") == 0 || strcmp(opt.placement, "roundrobin") == 0 ||
              strcmp(opt.placement, "random") == 0,
          "--placement: unknown placement '%s' (expected consecutive, roundrobin or random)", opt.placement);
    /* zero or negative physical quantities are impossible: one line each */
    struct { const char *name; double v; int zero_ok; } q[] = {
        {"node-gbytes-per-s", opt.node_gbs, 0}, {"oversubscription", opt.oversub, 0},
        {"reduce-gbytes-per-s", opt.reduce_gbs, 0}, {"host-gflops", opt.host_gflops, 0},
        {"node-lat-us", opt.node_lat_us, 1}, {"switch-lat-us", opt.switch_lat_us, 1},
        {"uplink-lat-us", opt.uplink_lat_us, 1}, {"central-lat-us", opt.central_lat_us, 1},
        {"bandwidth-factor", opt.bw_factor, 0}, {"latency-factor", opt.lat_factor, 0}};
    for (int i = 0; i < RS_ARRAY_LEN(q); i++) {
        if (q[i].v == UNSET)
            continue; /* not given */
        RS_CHECK(isfinite(q[i].v) && (q[i].zero_ok ? q[i].v >= 0 : q[i].v > 0),
              "--%s: %g is impossible (expected a number %s 0)", q[i].name, q[i].v,
              q[i].zero_ok ? ">=" : ">");
    }

    set(P_B, "node_gbytes_per_s", opt.node_gbs, TL_INJECTION_GBS,
        "Sunway TaihuLight node injection 16 GB/s (Dongarra 2016, UT-EECS-16-742); the same nodes on every platform");
    set(P_LNODE, "node_lat_us", opt.node_lat_us, 0.4, "assumption: NIC + cable, so that nearest nodes are ~1 us apart");
    set(P_LSWITCH, "switch_lat_us", opt.switch_lat_us, 0.2, "assumption: one switch traversal");
    scale(P_B, opt.bw_factor, "--bandwidth-factor");   /* the uplinks and backbones follow B */
    scale(P_LNODE, opt.lat_factor, "--latency-factor");
    scale(P_LSWITCH, opt.lat_factor, "--latency-factor");
    set(P_REDUCE, "reduce_gbytes_per_s", opt.reduce_gbs, 30,
        "assumption: reduction on the CPE clusters at ~90 GB/s of DMA bandwidth per node, 3 bytes moved per byte reduced");
    set(P_SPEED, "host_gflops", opt.host_gflops, TL_NODE_GFLOPS,
        "SW26010 peak 3.06 TFLOP/s (Dongarra 2016); only converts the gamma charge to flops");
    if (to) {
        RS_CHECK(opt.groups == 0 && opt.group_size == 0 && opt.oversub == UNSET,
              "--groups, --group-size and --oversubscription describe taihulight and fattree, not the torus (use --torus)");
        if (parse_torus(opt.torus ? opt.torus : "8x8x16") != 0)
            return -1;
        long n = 1;
        for (int i = 0; i < ndims; i++)
            n *= dims[i];
        derive(P_NODES, "platform_nodes", n, opt.torus ? "--torus" : "assumption: an 8x8x16 3D torus (1024 nodes)");
        derive(P_G, "group_size", dims[0], "one x-line of the torus");
        derive(P_GROUPS, "groups", n / dims[0], "x-lines");
        derive(P_R, "oversubscription", 1, "none: a torus has no central network");
        derive(P_UPLINK, "uplink_gbytes_per_s", 0, "none");
        derive(P_LUP, "uplink_lat_us", 0, "none");
        derive(P_LCENTRAL, "central_lat_us", 0, "none");
        /* one hop: two node links' worth of latency (the TORUS cluster has one link per
         * hop; its latency is node_lat + switch_lat + node_lat so a neighbour is as far as
         * a node in the same TaihuLight supernode) */
        derive(P_ALPHA, "alpha_us", 2 * par[P_LNODE].v + par[P_LSWITCH].v,
               "one hop = node link + switch + node link");
        int diam = 0;
        for (int i = 0; i < ndims; i++)
            diam += dims[i] / 2;
        derive(P_ALPHA_HI, "alpha_hi_us", diam * par[P_ALPHA].v, "the torus diameter in hops");
    } else {
        RS_CHECK(!opt.torus, "--torus describes the torus platform, not %s", opt.platform);
        set(P_G, "group_size", opt.group_size ? opt.group_size : UNSET, tl ? TL_SUPERNODE : 32,
            tl ? "256 nodes per supernode (Dongarra 2016; Fu et al., Sci. China Inf. Sci. 59)"
               : "assumption: 64-port leaf switches, 32 ports down and 32 up");
        long G = (long)par[P_G].v;
        long K = opt.groups ? opt.groups : (opt.nodes + G - 1) / G;
        if (K < 1)
            K = 1;
        set(P_GROUPS, "groups", opt.groups ? opt.groups : UNSET, K, "enough groups for --nodes");
        derive(P_NODES, "platform_nodes", K * G, "groups x group_size");
        set(P_R, "oversubscription", opt.oversub, tl ? tl_oversubscription() : 1,
            tl ? "derived: 256 x 16 GB/s injection per supernode over its share of the 70 TB/s bisection "
                 "(160 supernodes, 80 cut uplinks: 875 GB/s each) = 4.68"
               : "non-blocking: as many uplinks as nodes per leaf");
        derive(P_UPLINK, "uplink_gbytes_per_s", G * par[P_B].v / par[P_R].v,
               "group_size x node_gbytes_per_s / oversubscription");
        set(P_LUP, "uplink_lat_us", opt.uplink_lat_us, 0.5, "assumption: a cable to the central network");
        set(P_LCENTRAL, "central_lat_us", opt.central_lat_us, 0.5,
            tl ? "assumption: the central network's switches" : "assumption: a spine switch");
        scale(P_LUP, opt.lat_factor, "--latency-factor");
        scale(P_LCENTRAL, opt.lat_factor, "--latency-factor");
        derive(P_ALPHA, "alpha_us", 2 * par[P_LNODE].v + par[P_LSWITCH].v,
               "nearest nodes: node link + switch + node link");
        derive(P_ALPHA_HI, "alpha_hi_us",
               K > 1 ? par[P_ALPHA].v + par[P_LSWITCH].v + 2 * par[P_LUP].v + par[P_LCENTRAL].v : par[P_ALPHA].v,
               "farthest nodes: + the second switch, both uplinks and the central network");
    }
    if (opt.describe)
        return 0;
    RS_CHECK(opt.nodes > 0, "--nodes: missing (expected the number of simulated nodes, e.g. --nodes 800)");
    RS_CHECK(opt.nodes <= (long)par[P_NODES].v,
          "--nodes %ld: larger than the platform (%s has %ld nodes%s)", opt.nodes, opt.platform,
          (long)par[P_NODES].v,
          to ? "; use a larger --torus" : "; raise --groups or leave it out");
    RS_CHECK(opt.out, "--out: missing (expected a path prefix, e.g. --out /tmp/tl800)");
    return 0;
}

/* ---- host names and groups ---- */
static int is_torus(void) { return strcmp(opt.platform, "torus") == 0; }
static const char *prefix(void) { return strcmp(opt.platform, "taihulight") == 0 ? "tl" : "ft"; }

static void host_name(long i, char *buf, size_t len)
{
    long G = (long)par[P_G].v;
    if (is_torus())
        snprintf(buf, len, "torus-n%ld", i);
    else
        snprintf(buf, len, "%s-g%ld-n%ld", prefix(), i / G, i % G);
}

/* ---- writers ---- */
static int write_xml(FILE *f, void *ctx)
{
    (void)ctx;
    const double B = par[P_B].v, speed = par[P_SPEED].v;
    fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
               "<!-- platform-gen:");
    for (int i = 0; i < P_N; i++)
        fprintf(f, " %s=%g", par[i].key, par[i].v);
    fprintf(f, " (sources: the .params file) -->\n<platform version=\"4.1\">\n");
    /* every host carries the model's parameters (scaling/sim/smpi_fit.c, smpi_hooks.c) */
    char props[1024];
    snprintf(props, sizeof props,
             "    <prop id=\"rs_alpha_us\" value=\"%.6g\"/>\n"
             "    <prop id=\"rs_alpha_hi_us\" value=\"%.6g\"/>\n"
             "    <prop id=\"rs_link_gbytes_per_s\" value=\"%.6g\"/>\n"
             "    <prop id=\"rs_link_hi_gbytes_per_s\" value=\"%.6g\"/>\n"
             "    <prop id=\"rs_reduce_gbytes_per_s\" value=\"%.6g\"/>\n",
             par[P_ALPHA].v, par[P_ALPHA_HI].v, B, B / par[P_R].v, par[P_REDUCE].v);
    if (is_torus()) {
        long n = (long)par[P_NODES].v;
        fprintf(f, "<zone id=\"torus\" routing=\"Full\">\n");
        fprintf(f, "  <cluster id=\"torus-c\" prefix=\"torus-n\" suffix=\"\" radical=\"0-%ld\" speed=\"%.6gGf\"\n"
                   "           bw=\"%.6gGBps\" lat=\"%.6gus\" sharing_policy=\"SPLITDUPLEX\"\n"
                   "           topology=\"TORUS\" topo_parameters=\"",
                n - 1, speed, B, par[P_ALPHA].v);
        for (int i = 0; i < ndims; i++)
            fprintf(f, "%s%d", i ? "," : "", dims[i]);
        fprintf(f, "\">\n%s  </cluster>\n</zone>\n</platform>\n", props);
        return ferror(f) ? -1 : 0;
    }
    long K = (long)par[P_GROUPS].v, G = (long)par[P_G].v;
    const double up = par[P_UPLINK].v;
    fprintf(f, "<zone id=\"%s\" routing=\"Full\">\n", opt.platform);
    for (long k = 0; k < K; k++)
        fprintf(f, "  <cluster id=\"g%ld\" prefix=\"%s-g%ld-n\" suffix=\"\" radical=\"0-%ld\" speed=\"%.6gGf\"\n"
                   "           bw=\"%.6gGBps\" lat=\"%.6gus\" sharing_policy=\"SPLITDUPLEX\"\n"
                   "           bb_bw=\"%.6gGBps\" bb_lat=\"%.6gus\" bb_sharing_policy=\"SHARED\" router_id=\"g%ld-router\">\n"
                   "%s  </cluster>\n",
                k, prefix(), k, G - 1, speed, B, par[P_LNODE].v, G * B, par[P_LSWITCH].v, k, props);
    if (K > 1) {
        for (long k = 0; k < K; k++)
            fprintf(f, "  <link id=\"up%ld\" bandwidth=\"%.6gGBps\" latency=\"%.6gus\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                    k, up, par[P_LUP].v);
        fprintf(f, "  <link id=\"central\" bandwidth=\"%.6gGBps\" latency=\"%.6gus\" sharing_policy=\"SHARED\"/>\n",
                K * up, par[P_LCENTRAL].v);
        for (long a = 0; a < K; a++)
            for (long b = 0; b < K; b++)
                if (a != b)
                    fprintf(f, "  <zoneRoute src=\"g%ld\" dst=\"g%ld\" gw_src=\"g%ld-router\" gw_dst=\"g%ld-router\" symmetrical=\"NO\">\n"
                               "    <link_ctn id=\"up%ld\" direction=\"UP\"/><link_ctn id=\"central\"/>"
                               "<link_ctn id=\"up%ld\" direction=\"DOWN\"/>\n  </zoneRoute>\n",
                            a, b, a, b, a, b);
    }
    fprintf(f, "</zone>\n</platform>\n");
    return ferror(f) ? -1 : 0;
}

/* splitmix64: the random placement's generator (seeded, portable) */
static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static long *order;  /* order[rank] = host index */

static int make_order(void)
{
    long P = opt.nodes, G = (long)par[P_G].v;
    order = malloc(sizeof(long) * (size_t)P);
    RS_CHECK(order, "out of memory for %ld ranks", P);
    if (strcmp(opt.placement, "consecutive") == 0) {
        for (long i = 0; i < P; i++)
            order[i] = i;
    } else if (strcmp(opt.placement, "roundrobin") == 0) {
        /* deal the taken hosts over the groups: g0n0, g1n0, ..., g0n1, g1n1, ... */
        long n = 0;
        for (long slot = 0; n < P; slot++)
            for (long g = 0; g * G < P && n < P; g++)
                if (g * G + slot < P && slot < G)
                    order[n++] = g * G + slot;
    } else {
        uint64_t s = (uint64_t)opt.seed;
        for (long i = 0; i < P; i++)
            order[i] = i;
        for (long i = P - 1; i > 0; i--) {
            long j = (long)(mix(&s) % (uint64_t)(i + 1));
            long t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
    return 0;
}

static int write_hosts(FILE *f, void *ctx)
{
    (void)ctx;
    char name[64];
    for (long i = 0; i < opt.nodes; i++) {
        host_name(order[i], name, sizeof name);
        fprintf(f, "%s\n", name);
    }
    return ferror(f) ? -1 : 0;
}

static int write_groups(FILE *f, void *ctx)
{
    (void)ctx;
    char name[64];
    long G = (long)par[P_G].v;
    fprintf(f, "# host group (%s: %s)\n", opt.platform, is_torus() ? "torus x-lines" : "groups of nodes on one switch");
    for (long i = 0; i < (long)par[P_NODES].v; i++) {
        host_name(i, name, sizeof name);
        fprintf(f, "%s %ld\n", name, i / G);
    }
    return ferror(f) ? -1 : 0;
}

static int write_params(FILE *f, void *ctx)
{
    (void)ctx;
    fprintf(f, "platform %s\nnodes %ld\nplacement %s\nseed %ld\n", opt.platform, opt.nodes,
            opt.placement, opt.seed);
    if (is_torus()) {
        fprintf(f, "torus ");
        for (int i = 0; i < ndims; i++)
            fprintf(f, "%s%d", i ? "x" : "", dims[i]);
        fprintf(f, "\n");
    }
    for (int i = 0; i < P_N; i++)
        fprintf(f, "%s %.6g  # %s\n", par[i].key, par[i].v, par[i].src);
    return ferror(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
    rs_set_progname("platform-gen");
    int rc = rs_opts_parse(argc, argv, options, RS_ARRAY_LEN(options), usage, NULL, NULL);
    if (rc == 1)
        return RS_EXIT_OK;
    if (rc != 0 || resolve() != 0)
        rs_die(RS_EXIT_USAGE);
    if (opt.describe) {
        write_params(stdout, NULL);
        return RS_EXIT_OK;
    }
    char path[4096];
    const char *ext[4] = {".xml", ".hosts", ".groups", ".params"};
    rs_writer_fn fn[4] = {write_xml, write_hosts, write_groups, write_params};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s%s", opt.out, ext[i]);
        if (rs_check_writable(path) != 0)
            rs_die(RS_EXIT_USAGE);
    }
    if (make_order() != 0)
        rs_die(RS_EXIT_USAGE);
    rs_install_signal_handlers();
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s%s", opt.out, ext[i]);
        if (rs_write_atomic(path, fn[i], NULL) != 0)
            rs_die(RS_EXIT_USAGE);
    }
    free(order);
    return RS_EXIT_OK;
}
