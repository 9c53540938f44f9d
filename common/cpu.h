/* cpu.h — instruction sets and the machine probe.
 *
 * Code is compiled once; files named *_avx512.c and *_avx2.c are built with those
 * ISA flags and must only be called when rs_isa_supported() says so.  Names of
 * ISAs are part of the contract: "avx512", "avx2", "portable". */
#ifndef RS_CPU_H
#define RS_CPU_H

#include <stddef.h>

typedef enum { RS_ISA_PORTABLE = 0, RS_ISA_AVX2 = 1, RS_ISA_AVX512 = 2, RS_ISA_COUNT } rs_isa;

/* avx512 = AVX-512 F+DQ+BW+VL with OS support; avx2 = AVX2+FMA; portable = any. */
int rs_isa_supported(rs_isa isa);
rs_isa rs_isa_best(void);                  /* the widest supported */
const char *rs_isa_name(rs_isa isa);       /* "avx512", "avx2", "portable" */
extern const char *const rs_isa_names[RS_ISA_COUNT]; /* indexed by rs_isa */
int rs_isa_from_name(const char *name, rs_isa *out); /* 0 ok, -1 unknown */
int rs_isa_lanes(rs_isa isa);              /* fp32 lanes per vector: 16, 8, 1 */

typedef struct {
    char model[128];       /* /proc/cpuinfo "model name" */
    char vendor[32];
    char flags_isa[256];   /* the ISA-relevant flags present, space separated */
    int ncpus;             /* online logical CPUs */
    long l1d_bytes, l2_bytes, l3_bytes; /* per cache level as the OS reports, 0 unknown */
    char host[64];
    char kernel[128];      /* uname -sr */
    char hypervisor[8];    /* "yes"/"no" (CPUID hypervisor bit) */
} rs_machine;

void rs_machine_probe(rs_machine *m);
/* The largest cache the OS reports (bytes); 32 MiB if none is reported. */
long rs_llc_bytes(void);

/* Build facts compiled in by the Makefile. */
const char *rs_build_compiler(void);  /* e.g. "gcc 12.2.0" */
const char *rs_build_cflags(void);
const char *rs_build_commit(void);    /* git describe --always --dirty, or "unknown" */

#endif
