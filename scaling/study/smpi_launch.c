/* smpi_launch.c — one smpirun's argument vector and environment (smpi_launch.h). */
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "smpi_launch.h"

int smpi_path_ok(const char *path, const char *what)
{
    RS_CHECK(!path[strcspn(path, " \t\n")],
             "%s '%s' has a space: SimGrid's smpirun splits its arguments at spaces; give one without", what, path);
    return 0;
}

int smpi_run_ok(const char *dir)
{
    char cwd[4096];
    if (dir[0] != '/' && getcwd(cwd, sizeof cwd) && smpi_path_ok(cwd, "the folder of RUN") != 0)
        return -1;
    return smpi_path_ok(dir, "RUN");
}

void smpi_cmd_program(smpi_cmd *c, const char *program)
{
    c->program = c->argv.n;
    sa_add(&c->argv, "%s", program);
}

int smpi_cmd_check(const smpi_cmd *c)
{
    if (smpi_path_ok(c->argv.v[c->hostfile], "the simulation's hostfile") != 0)
        return -1;
    for (int i = c->program ? c->program + 1 : c->argv.n; i < c->argv.n; i++)
        if (smpi_path_ok(c->argv.v[i], "the simulated program's argument") != 0)
            return -1;
    return 0;
}

void smpi_cmd_start(smpi_cmd *c, const study_argv *prefix, const char *smpirun, long p, const char *plat, long eager,
                    const char *first_cfg)
{
    *c = (smpi_cmd){0};
    if (prefix)
        sa_cat(&c->argv, prefix);
    sa_add(&c->argv, "%s", smpirun);
    sa_opt(&c->argv, "-np", "%ld", p);
    sa_opt(&c->argv, "-platform", "%s.xml", plat);
    sa_opt(&c->argv, "-hostfile", "%s.hosts", plat);
    c->hostfile = c->argv.n - 1;
    if (first_cfg)
        sa_words(&c->argv, first_cfg);
    sa_words(&c->argv, "--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=smpi/wtime:0 "
                       "--cfg=smpi/bcast:binomial_tree --cfg=smpi/reduce:binomial");
    sa_add(&c->argv, "--cfg=smpi/async-small-thresh:%ld", eager);
    sa_add(&c->argv, "--cfg=smpi/send-is-detached-thresh:%ld", eager > 65536 ? eager : 65536);
    sa_add(&c->argv, "--log=root.thres:warning");
    sa_words(&c->env, "MALLOC_TOP_PAD_=268435456 MALLOC_TRIM_THRESHOLD_=1073741824 "
                      "MALLOC_MMAP_THRESHOLD_=1073741824");
}

void smpi_cmd_fold(smpi_cmd *c, const char *foldlib)
{
    sa_add(&c->argv, "--cfg=smpi/shared-malloc-blocksize:%ld", SMPI_BLOCK_BYTES);
    sa_add(&c->env, "RS_SMPI_FOLD_BYTES=%ld", SMPI_FOLD_BYTES);
    sa_add(&c->env, "LD_PRELOAD=%s", foldlib);
}

char **smpi_cmd_envp(smpi_cmd *c)
{
    static char *none[] = {NULL};
    return c->env.n ? c->env.v : none;
}

void smpi_cmd_free(smpi_cmd *c)
{
    sa_free(&c->argv);
    sa_free(&c->env);
}
