/* train_report.c — what rnn-train prints and writes: the header (corpus, model, memory,
 * kernels, the --gemm auto picks), the final lines, and the result tables with their
 * metadata (printed, --csv, --json).  `study report` and models/peer_torch.py read
 * these: their columns and lines are an interface. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "check.h"
#include "matmul.h"
#include "meta.h"
#include "pointwise.h"
#include "train_ctx.h"

static void fmt_mib(char *buf, size_t n, double bytes) { snprintf(buf, n, "%.1f MiB", bytes / 1048576.0); }

int train_write_table(const run_ctx *r, rs_table *t, const char *cols)
{
    rs_table_meta_std(t, r->o->argc, r->o->argv);
    rs_table_meta(t, "corpus", r->corp.path);
    rs_table_meta(t, "corpus_sha256", r->corp.sha256);
    rs_table_meta(t, "gemm", mm_backend_name());
    rs_table_meta(t, "gemm_dispatch", mm_dispatch());
    const ga_plan *ap = mm_auto_plan();
    if (ap) {
        char ms[64];
        rs_table_meta(t, "gemm_plan", mm_record());
        if (ap->ncand)
            snprintf(ms, sizeof ms, "%.0f", ap->tune_ms);
        else
            snprintf(ms, sizeof ms, "0 (a recorded plan: the checkpoint's or --gemm's)");
        rs_table_meta(t, "gemm_tune_ms", ms);
    }
    rs_table_meta(t, "pointwise", r->m.pw->name);
    char s[64];
    snprintf(s, sizeof s, "xent %s", output_kernel_name());
    rs_table_meta(t, "softmax", s);
    snprintf(s, sizeof s, "%llu", (unsigned long long)r->o->seed);
    rs_table_meta(t, "seed", s);
    if (r->dp.P > 1 || r->dp.N > 1) {   /* one-process runs keep their metadata as it was */
        char dp[160];
        snprintf(dp, sizeof dp, "%d ranks, %d workers of batch %d, sync %s%s, allreduce %s",
                 r->dp.P, r->dp.N, r->m.cfg.batch, r->o->sync,
                 r->dp.shard ? " (sharded update)" : "", dp_exchange_name(r->dp.exchange));
        rs_table_meta(t, "data_parallel", dp);
    }
    if (run_says(r)) {
        printf("\n");
        rs_table_print(t, stdout, cols);
    }
    if (r->o->csv && rs_table_write_csv(t, r->o->csv) != 0)
        return -1;
    if (r->o->json && rs_table_write_json(t, r->o->json) != 0)
        return -1;
    return 0;
}

void train_set_config_cells(rs_table *t, int row, const run_ctx *r)
{
    const model_cfg *c = &r->m.cfg;
    rs_set_str(t, row, "model", model_cell(c->cell)->name);
    rs_set_int(t, row, "layers", c->layers);
    rs_set_int(t, row, "hidden", c->hidden);
    rs_set_int(t, row, "embed", c->embed);
    rs_set_int(t, row, "vocab", c->vocab);
    rs_set_int(t, row, "batch", c->batch);
    rs_set_int(t, row, "bptt", c->bptt);
    rs_set_int(t, row, "threads", r->o->threads);
    rs_set_int(t, row, "classes", c->classes);
}

/* --lr-scale: the rate before and after scaling, and the warmup it ran with. */
static void lr_scale_meta(const run_ctx *r, rs_table *t)
{
    const train_opts *o = r->o;
    char s[64];
    rs_table_meta(t, "lr_scale", lr_scale_name(o->lr_scale));
    snprintf(s, sizeof s, "%ld", train_base_batch(o));
    rs_table_meta(t, "base_batch", s);
    snprintf(s, sizeof s, "%ld", train_global_batch(o));
    rs_table_meta(t, "global_batch", s);
    snprintf(s, sizeof s, "%.17g", train_base_lr(o));
    rs_table_meta(t, "lr_base", s);
    snprintf(s, sizeof s, "%.17g", r->sched.lr0);
    rs_table_meta(t, "lr_effective", s);
    snprintf(s, sizeof s, "%ld", r->sched.warmup);
    rs_table_meta(t, "warmup", s);
}

int train_summary(const run_ctx *r, const eval_result *valid, const eval_result *test)
{
    static const rs_col cols[] = {
        TRAIN_CONFIG_COLS,
        {"optimizer", RS_STR, 0},
        {"lr", RS_DBL, 4},
        {"steps", RS_INT, 0},
        {"epochs", RS_INT, 0},
        {"tokens", RS_INT, 0},
        {"seconds", RS_DBL, 4},
        {"tokens_per_s", RS_DBL, 4},
        {"train_loss", RS_DBL, 5},
        {"valid_ppl", RS_DBL, 5},
        {"test_ppl", RS_DBL, 5},
        {"test_bits_per_token", RS_DBL, 5},
        {"target_ppl", RS_DBL, 5},
        {"steps_to_target", RS_INT, 0},
        {"tokens_to_target", RS_INT, 0},
        {"seconds_to_target", RS_DBL, 4},
        {"stop", RS_STR, 0},
        {"completion_questions", RS_INT, 0},
        {"completion_accuracy", RS_DBL, 4},
        {"gflop_per_token", RS_DBL, 6},
    };
    rs_table *t = rs_table_new("rnn_train", cols, RS_ARRAY_LEN(cols));
    int row = rs_table_row(t);
    train_set_config_cells(t, row, r);
    rs_set_str(t, row, "optimizer", optim_name(r->opt.kind));
    rs_set_dbl(t, row, "lr", r->sched.lr0);
    rs_set_int(t, row, "steps", r->st.step);
    rs_set_int(t, row, "epochs", r->st.epoch);
    rs_set_int(t, row, "tokens", r->st.tokens);
    rs_set_dbl(t, row, "seconds", r->st.seconds);
    if (r->st.seconds > 0)
        rs_set_dbl(t, row, "tokens_per_s", r->st.tokens / r->st.seconds);
    rs_set_dbl(t, row, "train_loss", r->last_train_loss);
    rs_set_dbl(t, row, "valid_ppl", valid->ppl);
    rs_set_dbl(t, row, "test_ppl", test->ppl);
    rs_set_dbl(t, row, "test_bits_per_token", test->bits);
    if (r->o->target_ppl > 0) {
        rs_set_dbl(t, row, "target_ppl", r->o->target_ppl);
        if (r->target_step >= 0) {
            rs_set_int(t, row, "steps_to_target", r->target_step);
            rs_set_int(t, row, "tokens_to_target", r->target_tokens);
            rs_set_dbl(t, row, "seconds_to_target", r->target_seconds);
        }
    }
    rs_set_str(t, row, "stop", r->stop_reason);
    if (r->completion_n > 0) {
        rs_set_int(t, row, "completion_questions", r->completion_n);
        rs_set_dbl(t, row, "completion_accuracy", r->completion_acc);
    }
    /* a training token's GEMM work, forward and backward (model_step_flops) */
    const model_cfg *mc = &r->m.cfg;
    rs_set_dbl(t, row, "gflop_per_token", model_step_flops(mc, mc->bptt) / ((double)mc->batch * mc->bptt) / 1e9);
    char meta[96];
    snprintf(meta, sizeof meta, "%ld/%ld/%ld", r->corp.ntrain, r->corp.nvalid, r->corp.ntest);
    rs_table_meta(t, "tokens_train_valid_test", meta);
    rs_table_meta(t, "params_sha256", r->params_sha256);
    if (r->o->lr_scale != LR_SCALE_NONE)
        lr_scale_meta(r, t);
    int rc = train_write_table(r, t,
                         "model,hidden,layers,vocab,steps,tokens,seconds,tokens_per_s,train_loss,"
                         "valid_ppl,test_ppl,test_bits_per_token,steps_to_target,stop");
    rs_table_free(t);
    return rc;
}

/* --gemm auto: what was timed and picked, and what was left out. */
static void print_gemm_auto(const run_ctx *r)
{
    const ga_plan *p = mm_auto_plan();
    if (r->gemm_note[0])
        printf("gemm     %s\n", r->gemm_note);
    if (!p || !p->ncand)
        return;
    printf("gemm     auto: %d products x %d backends checked and timed at %d thread%s in %.0f ms; "
           "ms per call (est. for the full size; large ones are timed on a slice), * the pick\n",
           p->nshapes, p->ncand, p->threads, p->threads > 1 ? "s" : "", p->tune_ms);
    for (int s = 0; s < p->nshapes; s++) {
        const ga_shape *sh = &p->shape[s];
        char dims[48];
        snprintf(dims, sizeof dims, "%ldx%ldx%ld:%c%c", sh->m, sh->n, sh->k, sh->ta, sh->tb);
        printf("           %-6s %-10s %-19s x%-4.0f", sh->role, sh->where, dims, sh->calls);
        for (int c = 0; c < p->ncand; c++)
            if (p->ms[s][c] >= 0)
                printf("  %s %.3g%s", p->cand[c]->name, p->ms[s][c], p->pick[s] == p->cand[c] ? "*" : "");
        printf("\n");
    }
    printf("           other products (a short last window, per-class word products, pipeline "
           "chunks): %s\n", p->fallback->name);
    for (const char *l = p->notes; *l;) {
        const char *e = strchr(l, '\n');
        int n = e ? (int)(e - l) : (int)strlen(l);
        printf("           %.*s\n", n, l);
        l += n + (e != NULL);
    }
}

void train_print_header(const run_ctx *r)
{
    const model_cfg *c = &r->m.cfg;
    const corpus *k = &r->corp;
    char a[32], n[32], p[32];
    fmt_mib(a, sizeof a, (double)r->m.arena.bytes);
    fmt_mib(n, sizeof n, (double)r->m.arena.naive_bytes);
    int opt_floats = optim_nstate(r->opt.kind) + (r->opt.dir != NULL);   /* LAMB's scratch */
    fmt_mib(p, sizeof p, r->m.lay.total * 4.0 * (2 + opt_floats));
    printf("corpus   %s (%ld bytes, sha256 %.16s...), %s level\n", k->path, k->bytes, k->sha256,
           k->level == LEVEL_WORD ? "word" : "character");
    printf("         tokens train %ld / valid %ld / test %ld; vocabulary %d ids for %ld distinct "
           "train tokens + %s (<unk>: %.2f%% of train, %.2f%% of valid)\n",
           k->ntrain, k->nvalid, k->ntest, k->vocab, k->ntypes,
           k->level == LEVEL_WORD ? "<unk>, <eos>" : "<unk>", 100.0 * k->unk_train / k->ntrain,
           100.0 * k->unk_valid / (k->nvalid ? k->nvalid : 1));
    printf("model    %s, %d layer%s, hidden %d, embed %d, vocab %d; batch %d x bptt %d; "
           "%ld parameters\n",
           model_cell(c->cell)->name, c->layers, c->layers > 1 ? "s" : "", c->hidden, c->embed,
           c->vocab, c->batch, c->bptt, r->m.lay.total);
    printf("memory   activation arena %s (naive per-step allocation: %s in %ld allocations); "
           "parameters+gradients+optimizer %s\n", a, n, r->m.arena.naive_allocs, p);
    if (r->dp.P > 1 || r->dp.N > 1)
        printf("workers  %d synchronous workers of batch %d (global batch %d) on %d rank%s; "
               "sync %s%s, allreduce %s\n", r->dp.N, c->batch, r->dp.N * c->batch, r->dp.P,
               r->dp.P > 1 ? "s" : "", r->o->sync, r->dp.shard ? " (sharded update)" : "",
               dp_exchange_name(r->dp.exchange));
    if (dp_comm_eval_ranks() > 0)
        printf("eval     %d rank%s set aside: valid scored there, one evaluation late; final "
               "valid/test sharded over the training ranks\n", dp_comm_eval_ranks(),
               dp_comm_eval_ranks() > 1 ? "s" : "");
    if (c->classes > 0)
        printf("output   class-factorized softmax: %d classes by unigram frequency (largest %d "
               "words)\n", c->classes, r->m.cls.max_size);
    printf("kernels  gemm %s [%s], point-wise %s, softmax xent %s; %d threads, pinned: %s\n",
           mm_backend_name(), mm_dispatch(), r->m.pw->name, output_kernel_name(), r->o->threads,
           rs_pin_team_describe());
    print_gemm_auto(r);
    printf("train    %s lr %g (%s schedule, warmup %ld), clip %g; %ld steps per epoch; "
           "eval every %ld steps%s\n",
           optim_name(r->opt.kind), r->sched.lr0, sched_name(r->sched.kind), r->sched.warmup,
           r->opt.clip, r->steps_per_epoch, r->eval_every,
           r->o->eval_growth > 0 ? ", then as the step grows by --eval-growth" : "");
    if (r->o->lr_scale != LR_SCALE_NONE)
        printf("lr-scale %s: lr %g = %g x %s(%ld/%ld) (global batch / base batch); warmup %ld "
               "steps, not scaled (LEGW: the same steps, more epochs)\n",
               lr_scale_name(r->o->lr_scale), r->sched.lr0, train_base_lr(r->o),
               r->o->lr_scale == LR_SCALE_SQRT ? "sqrt" : "", train_global_batch(r->o),
               train_base_batch(r->o), r->sched.warmup);
    if (r->o->resume)
        printf("resume   %s: step %ld, epoch %ld, %ld tokens\n", r->last_ckpt, (long)r->st.step,
               (long)r->st.epoch, (long)r->st.tokens);
    fflush(stdout);
}
void train_print_final(const run_ctx *r, const eval_result *valid, const eval_result *test)
{
    const train_opts *o = r->o;
    printf("\nfinal    valid ppl %.2f, test ppl %.2f (%.4f bits per %s); parameters sha256 %.16s\n",
           valid->ppl, test->ppl, test->bits, o->level == LEVEL_CHAR ? "character" : "word",
           r->params_sha256);
    if (o->target_ppl > 0) {
        if (r->target_step >= 0)
            printf("target   valid ppl <= %g reached at step %ld, %ld tokens, %.1f s\n",
                   o->target_ppl, r->target_step, r->target_tokens, r->target_seconds);
        else
            printf("target   valid ppl <= %g not reached\n", o->target_ppl);
    }
    if (r->completion_n > 0)
        printf("complete MSR-style sentence completion, %d held-out test sentences: %.1f%% "
               "right (chance 20%%)\n", r->completion_n, 100 * r->completion_acc);
}
