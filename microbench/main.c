/* main.c — `microbench`: the kernel studies, one subcommand each.
 *   microbench peak     this machine's limits (FMA per ISA, bandwidth, BLAS dispatch)
 *   microbench exp      expf variants: accuracy in ULPs and speed
 *   microbench softmax  softmax variants and the fused cross-entropy: error and speed
 *   microbench gemm     RNN-shaped GEMM on every BLAS backend: GFLOP/s and dispatch
 * Exit: 0 success, 1 a correctness check failed, 2 bad usage or input, 130 Ctrl-C. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fsio.h"

int cmd_peak(int argc, char **argv);
int cmd_exp(int argc, char **argv);
int cmd_softmax(int argc, char **argv);
int cmd_gemm(int argc, char **argv);

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"peak", cmd_peak, "measure FMA peak per ISA, memory bandwidth and BLAS dispatch"},
    {"exp", cmd_exp, "expf variants: ULP error and speed (ns, cycles, fraction of bound)"},
    {"softmax", cmd_softmax, "softmax variants and fused cross-entropy: error, speed, fraction of bound"},
    {"gemm", cmd_gemm, "RNN-shaped GEMM across BLAS backends: GFLOP/s, fraction of peak, dispatch"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: microbench COMMAND [options]   (microbench COMMAND --help for its options)\n\ncommands:\n");
    for (int i = 0; i < RS_ARRAY_LEN(commands); i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
}

int main(int argc, char **argv)
{
    rs_set_progname("microbench");
    rs_install_signal_handlers();
    if (argc < 2) {
        usage(stderr);
        return RS_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return RS_EXIT_OK;
    }
    for (int i = 0; i < RS_ARRAY_LEN(commands); i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        static char prog[64];
        snprintf(prog, sizeof prog, "microbench %s", commands[i].name);
        rs_set_progname(prog);
        return commands[i].run(argc - 1, argv + 1);
    }
    rs_fatal(RS_EXIT_USAGE, "unknown command '%s' (expected one of: peak, exp, softmax, gemm)", argv[1]);
}
