/* smpi_launch.c — one smpirun's argument vector and environment (smpi_launch.h). */
#include "smpi_launch.h"

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
