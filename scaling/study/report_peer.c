/* report_peer.c — the report's "Against PyTorch" section: rnnscale's training step
 * (train_bench.csv) beside the same step in PyTorch (train_peer.csv, models/peer_torch.py)
 * per configuration and thread count, and the target: >= 2.5x PyTorch at 1 thread. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"
#include "report.h"

enum { CFG_CLASSES = 7, NCFG = 8 };

/* One configuration (its cells' text), with PyTorch's row and rnnscale's. */
typedef struct {
    const char *cfg[NCFG];   /* model, hidden, embed, vocab, batch, bptt, threads, classes */
    const char *pt, *pms, *coretype, *core, *rt, *rms, *pgf, *rgf;
} peer_cfg;

static const char *const cfg_cols[NCFG] = {"model", "hidden", "embed", "vocab", "batch", "bptt", "threads",
                                           "classes"};

/* Cell J of a configuration against row ROW of T.  classes as a number, an empty cell
 * (or no such column) being 0: the full softmax, as both programs mean by it. */
static int same(const peer_cfg *k, int j, const rs_table *t, int row)
{
    const char *v = rp_cell(t, row, cfg_cols[j]);
    if (j == CFG_CLASSES)
        return rp_num(k->cfg[j]) == rp_num(v);
    return strcmp(k->cfg[j], v) == 0;
}

static peer_cfg *find(peer_cfg *c, int n, const rs_table *t, int row)
{
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < NCFG && same(&c[i], j, t, row))
            j++;
        if (j == NCFG)
            return &c[i];
    }
    return NULL;
}

static void comparison(report_ctx *r, const rs_table *peer, const rs_table *bench)
{
    int np = peer ? rs_table_nrows(peer) : 0, n = 0;
    peer_cfg *c = calloc((size_t)np + 1, sizeof *c);
    RS_ASSERT(c != NULL);
    const char *reason = "", *probe = "", *user = "", *ver = "", *spin = "";
    for (int i = 0; i < np; i++) {
        peer_cfg *k = find(c, n, peer, i);
        if (!k) {   /* the configurations in PyTorch's order */
            k = &c[n++];
            for (int j = 0; j < NCFG; j++)
                k->cfg[j] = rp_cell(peer, i, cfg_cols[j]);
        }
        k->pt = rp_cell(peer, i, "tokens_per_s");
        k->pgf = rp_cell(peer, i, "gflop_per_step");
        k->rgf = rp_cell(peer, i, "gflop_per_step_rnnscale");
        k->pms = rp_cell(peer, i, "step_ms_median");
        k->core = rp_cell(peer, i, "openblas_core");
        k->coretype = rp_cell(peer, i, "openblas_coretype");
        if (!*reason) {
            reason = rp_cell(peer, i, "coretype_reason");
            probe = rp_cell(peer, i, "coretype_probe");
            user = rp_cell(peer, i, "openblas_coretype_user");
            ver = rp_cell(peer, i, "peer_version");
        }
        const char *wait = rp_cell(peer, i, "omp_wait_policy");
        if (rp_num(rp_cell(peer, i, "threads")) > 1 && strcasecmp(wait, "passive") != 0)
            spin = wait;
    }
    for (int i = 0; bench && i < rs_table_nrows(bench); i++) {
        peer_cfg *k = find(c, n, bench, i);
        if (k && rp_num(rp_cell(bench, i, "layers")) == 1) {
            k->rt = rp_cell(bench, i, "tokens_per_s");
            k->rms = rp_cell(bench, i, "step_ms_median");
        }
    }
    fprintf(r->out, "| model | hidden | vocab | classes | batch | bptt | threads | rnnscale tokens/s | PyTorch tokens/s "
                    "| ratio | rnnscale ms/step | PyTorch ms/step | PyTorch OpenBLAS core |\n"
                    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    double ratio1[2] = {0, 0};   /* lstm, elman at the target's shape, 1 thread */
    int have1[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        const peer_cfg *k = &c[i];
        int have = k->rt && rp_cmp(k->pt, 0) > 0;
        double ratio = have ? rp_num(k->rt) / rp_num(k->pt) : 0;
        char rt[64] = "-", rat[64] = "-", rms[64] = "-", core[512];
        if (k->rt) {
            snprintf(rt, sizeof rt, "%.4g", rp_num(k->rt));
            snprintf(rms, sizeof rms, "%.4g", rp_num(k->rms));
        }
        if (have)
            snprintf(rat, sizeof rat, "%.2fx", ratio);
        if (strcmp(k->coretype, "(unset)") == 0)
            snprintf(core, sizeof core, "%s (OPENBLAS_CORETYPE unset)", k->core);
        else
            snprintf(core, sizeof core, "%s (OPENBLAS_CORETYPE=%s)", k->core, k->coretype);
        char cls[32] = "-";   /* - : the full softmax */
        if (rp_num(k->cfg[CFG_CLASSES]) > 0)
            snprintf(cls, sizeof cls, "%.0f", rp_num(k->cfg[CFG_CLASSES]));
        fprintf(r->out, "| %s | %s | %s | %s | %s | %s | %s | %s | %.4g | %s | %s | %.4g | %s |\n", k->cfg[0],
                k->cfg[1], k->cfg[3], cls, k->cfg[4], k->cfg[5], k->cfg[6], rt, rp_num(k->pt), rat, rms,
                rp_num(k->pms), core);
        /* the targets are the full softmax's */
        if (have && rp_cmp(k->cfg[6], 1) == 0 && rp_cmp(k->cfg[1], 512) == 0 && rp_cmp(k->cfg[3], 10000) == 0 &&
            rp_cmp(k->cfg[4], 32) == 0 && rp_cmp(k->cfg[5], 35) == 0 && rp_num(k->cfg[CFG_CLASSES]) == 0)
            for (int m = 0; m < 2; m++)
                if (strcmp(k->cfg[0], m ? "elman" : "lstm") == 0) {
                    ratio1[m] = ratio;
                    have1[m] = 1;
                }
    }
    /* The class rows compare different amounts of work: say how much each side does,
     * once per configuration (the work does not depend on the thread count). */
    for (int i = 0; i < n; i++) {
        const peer_cfg *k = &c[i];
        int seen = 0;
        for (int e = 0; e < i && !seen; e++) {
            int j = 0;
            while (j < NCFG && (j == 6 || strcmp(c[e].cfg[j], k->cfg[j]) == 0))
                j++;
            seen = j == NCFG;
        }
        if (!seen && rp_num(k->cfg[CFG_CLASSES]) > 0 && *k->pgf && *k->rgf)
            fprintf(r->out, "\n%s hidden %s, vocab %s, %s classes: PyTorch's adaptive softmax does %.4g GFLOP per "
                            "step\n(its H x H tail projections included) against rnnscale's %.4g (H (C + V/C) a "
                            "token in the output layer).\n", k->cfg[0], k->cfg[1], k->cfg[3], k->cfg[CFG_CLASSES],
                    rp_num(k->pgf), rp_num(k->rgf));
    }
    fprintf(r->out, "\nPyTorch %s; OpenBLAS core type: %s", ver, reason);
    if (*user && strcmp(user, "(unset)") != 0)
        fprintf(r->out, " (the environment had OPENBLAS_CORETYPE=%s)", user);
    fprintf(r->out, ".\n");
    if (*probe)
        fprintf(r->out, "Probe (sgemm GFLOP/s, 1 thread, per OPENBLAS_CORETYPE): %s.\n", probe);
    if (*spin)
        fprintf(r->out, "\nAt more than 1 thread, PyTorch's OpenMP workers spin after each parallel region "
                        "(OMP_WAIT_POLICY:\n%s in this run) while Debian's OpenBLAS runs its own threads: on few "
                        "cores they compete,\nwhich slows PyTorch down there; peer_torch.py sets PASSIVE unless "
                        "the environment sets it.\n", spin);
    fprintf(r->out, "\n### Targets (this run, side by side)\n\n");
    for (int m = 0; m < 2; m++) {
        const char *name = m ? "Elman" : "LSTM";
        if (have1[m])
            fprintf(r->out, "- %s hidden 512, vocab 10000, batch 32, bptt 35 at 1 thread: rnnscale >= 2.5x "
                            "PyTorch's tokens/s: %.2fx — %s\n", name, ratio1[m], ratio1[m] >= 2.5 ? "met" : "NOT met");
        else
            fprintf(r->out, "- %s at 1 thread >= 2.5x PyTorch: not measured in this run (QUICK=1 times all threads "
                            "only)\n", name);
    }
    free(c);
}

void report_peer(report_ctx *r)
{
    int peer = rp_has(r, "train_peer.csv"), bench = rp_has(r, "train_bench.csv");
    if (!peer && !bench)
        return;
    fprintf(r->out, "## Against PyTorch\n\n");
    if (peer && bench) {
        rs_table *p = rp_csv(r, "train_peer.csv"), *b = rp_csv(r, "train_bench.csv");
        fprintf(r->out, "The same training step in PyTorch (`models/peer_torch.py`: nn.Embedding, nn.LSTM /\n"
                        "nn.RNN(tanh), nn.Linear over the whole vocabulary, F.cross_entropy, truncated BPTT with\n"
                        "the state carried and detached, clip_grad_norm_ at 5, optim.SGD; one bias per layer as\n"
                        "here) on the same configurations and thread counts (torch.set_num_threads and\n"
                        "OPENBLAS_NUM_THREADS); median step of the timed steps after 2 untimed ones, as\n"
                        "`rnn-train --bench`. PyTorch's inputs are random ids from a fixed seed, rnnscale's\n"
                        "its corpus (the work per step is the same). A row with classes is RNNLM's class\n"
                        "softmax (`--classes`) against nn.AdaptiveLogSoftmaxWithLoss cut where rnnscale's rule\n"
                        "cuts a Zipf unigram distribution into classes of equal mass, its ids drawn from that\n"
                        "distribution (head: the first class's words and one logit per other class;\n"
                        "div_value 1, so each tail cluster adds an H x H projection RNNLM's layer does not\n"
                        "have; no biases on the tail's words). PyTorch multiplies through Debian's\n"
                        "OpenBLAS, run at the fastest core type that computed correctly on this CPU (probed\n"
                        "in fresh processes: the `train_peer_*.txt` files have the table):\n\n");
        comparison(r, p, b);
        fprintf(r->out, "\n");
        rs_table_free(p);
        rs_table_free(b);
    } else if (peer)
        fprintf(r->out, "PyTorch was measured (train_peer.csv) but rnnscale's `rnn-train --bench` was not\n"
                        "(no train_bench.csv): nothing to compare.\n\n");
    else
        fprintf(r->out, "PyTorch was not measured in this run: `make peers` installs it (Debian's python3-torch),\n"
                        "then `make bench` adds the comparison (train_peer.csv).\n\n");
}
