/* softmax_check.c — inputs, the comparison with the double reference, and the check
 * suite every variant passes before it is timed (softmax_check.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "softmax_check.h"

/* ---- inputs: a pure function of (seed, set, row, col) ---- */

static uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t hash4(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    return mix64(mix64(mix64(seed ^ a) ^ b) ^ c);
}

/* uniform in [lo, hi) */
static double unif(uint64_t h, double lo, double hi)
{
    return lo + (hi - lo) * (double)(h >> 11) * 0x1p-53;
}

static const char *const input_names[SOFTMAX_NINPUTS] = {"random", "huge", "masked", "nan",
                                                         "uniform"};

const char *softmax_inputs_name(softmax_inputs k)
{
    return (unsigned)k < SOFTMAX_NINPUTS ? input_names[k] : "?";
}

float softmax_input(uint64_t seed, softmax_inputs k, long row, long col, long cols)
{
    uint64_t h = hash4(seed, (uint64_t)k, (uint64_t)row, (uint64_t)col);
    /* A per-row special column (the +inf or the NaN, the one unmasked entry). */
    long special = (long)(hash4(seed, (uint64_t)k + 100, (uint64_t)row, 0) % (uint64_t)cols);
    switch (k) {
    case SOFTMAX_IN_RANDOM:
        switch (row % 5) {
        case 0: return (float)unif(h, -12, 12);
        case 1: return (float)unif(h, -1, 1);
        case 2: return (float)unif(h, -60, 60);
        case 3: return (float)(-20 + 60.0 * col / cols + unif(h, 0, 1));   /* rising by 60 */
        default: return (float)(-20 + 80.0 * col / cols + unif(h, 0, 1));  /* rising by 80 */
        }
    case SOFTMAX_IN_HUGE:
        switch (row % 5) {
        case 0: return (float)unif(h, -1e4, 1e4);
        case 1: return (float)(1e4 - unif(h, 0, 30));
        case 2: return (float)(-1e4 + unif(h, 0, 30));
        case 3: return col == special ? INFINITY : (float)unif(h, -30, 30);
        default: return (float)unif(h, -3e38, 3e38);
        }
    case SOFTMAX_IN_MASKED:
        switch (row % 4) {
        case 0: return (h & 1) ? -INFINITY : (float)unif(h, -12, 12);
        case 1: return col < cols / 2 ? -INFINITY : (float)unif(h, -12, 12);
        case 2: return col == special ? (float)unif(h, -12, 12) : -INFINITY;
        default: return -INFINITY;
        }
    case SOFTMAX_IN_NAN:
        switch (row % 4) {
        case 0: return col == special ? NAN : (float)unif(h, -12, 12);
        case 2: return col == special ? NAN : -INFINITY;
        default: return (float)unif(h, -12, 12);
        }
    default:
        return (float)unif(h, -10, 10);
    }
}

void softmax_fill(float *x, long r0, long r1, int cols, softmax_inputs k, uint64_t seed)
{
    for (long r = r0; r < r1; r++)
        for (long c = 0; c < cols; c++)
            x[(size_t)(r - r0) * cols + c] = softmax_input(seed, k, r, c, cols);
}

int softmax_target(uint64_t seed, long row, int cols)
{
    if (row % 7 == 6)
        return -1;
    return (int)(hash4(seed, 999, (uint64_t)row, 1) % (uint64_t)cols);
}

void softmax_fill_targets(int *targets, long r0, long r1, int cols, uint64_t seed)
{
    for (long r = r0; r < r1; r++)
        targets[r - r0] = softmax_target(seed, r, cols);
}

/* ---- running a variant ---- */

void softmax_run(const softmax_variant *v, softmax_path path, const float *x,
                 const int *targets, float *y, float *loss, int rows, int cols)
{
    if (v->xent) {
        if (v->xent_path && path != SOFTMAX_PATH_AUTO)
            v->xent_path(x, targets, y, loss, rows, cols, path);
        else
            v->xent(x, targets, y, loss, rows, cols);
    } else if (v->run_path && path != SOFTMAX_PATH_AUTO)
        v->run_path(x, y, rows, cols, path);
    else
        v->run(x, y, rows, cols);
}

/* ---- comparison ---- */

void softmax_err_init(softmax_err *e)
{
    memset(e, 0, sizeof *e);
    e->worst_row = e->worst_col = -1;
}

void softmax_err_merge(softmax_err *a, const softmax_err *b)
{
    if (!(b->max_rel_err <= a->max_rel_err)) {
        a->max_rel_err = b->max_rel_err;
        a->worst_row = b->worst_row;
        a->worst_col = b->worst_col;
        a->worst_y = b->worst_y;
        a->worst_ref = b->worst_ref;
    }
    if (!(b->row_sum_err <= a->row_sum_err))
        a->row_sum_err = b->row_sum_err;
    if (!(b->loss_err <= a->loss_err))
        a->loss_err = b->loss_err;
    a->n += b->n;
}

int softmax_err_ok(const softmax_err *e)
{
    return e->max_rel_err <= SOFTMAX_MAX_REL_ERR && e->row_sum_err <= SOFTMAX_MAX_REL_ERR &&
           e->loss_err <= SOFTMAX_LOSS_TOL;
}

void softmax_ref_norms(const float *x, int rows, int cols, double *m, double *s)
{
    for (int r = 0; r < rows; r++)
        softmax_ref_norm(x + (size_t)r * cols, cols, &m[r], &s[r]);
}

/* |got - want| / scale with NaN and infinities exact: a mismatch is infinite. */
static double err_of(double got, double want, double scale)
{
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got) ? 0 : INFINITY;
    if (isinf(want) || isinf(got))
        return got == want ? 0 : INFINITY;
    return fabs(got - want) / scale;
}

void softmax_compare(const float *x, const int *targets, const float *y, const float *loss,
                     int rows, int cols, int xent, long stride, const double *m,
                     const double *s, softmax_err *out)
{
    softmax_err_init(out);
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        const float *yr = y + (size_t)r * cols;
        int t = xent ? targets[r] : -1;
        int ignored = xent && t < 0;
        int nanrow = !ignored && isnan(s[r]);
        /* Every column: NaN exactly where expected, and the row sum. */
        double sum = 0;
        long bad_nan = -1;
        for (long c = 0; c < cols; c++) {
            if (nanrow != (isnan(yr[c]) != 0) && bad_nan < 0)
                bad_nan = c;
            sum += yr[c];
        }
        if (bad_nan >= 0) {
            out->max_rel_err = INFINITY;
            out->worst_row = r;
            out->worst_col = bad_nan;
            out->worst_y = yr[bad_nan];
            out->worst_ref = nanrow ? NAN : 0;
        }
        if (!nanrow) {
            /* softmax sums to 1; dlogits = p - onehot to 0; an ignored row is all 0 */
            double e = fabs(sum - (xent ? 0.0 : 1.0));
            if (!(e <= out->row_sum_err))
                out->row_sum_err = e;
        }
        for (long c = 0; c < cols && !nanrow; c += stride) {
            double p = ignored ? 0 : exp((double)xr[c] - m[r]) / s[r];
            double ref = ignored ? 0 : p - (c == t);
            double scale = fmax(fmax(fabs(ref), p), SOFTMAX_REL_FLOOR);
            double e = err_of(yr[c], ref, scale);
            out->n++;
            if (!(e <= out->max_rel_err)) {
                out->max_rel_err = e;
                out->worst_row = r;
                out->worst_col = c;
                out->worst_y = yr[c];
                out->worst_ref = ref;
            }
        }
        if (xent) {
            double ref = ignored ? 0 : nanrow ? NAN : m[r] + log(s[r]) - (double)xr[t];
            /* against ref rounded to float: a loss beyond FLT_MAX (x near 3e38) is inf */
            double e = err_of(loss[r], (float)ref, fmax(1.0, fabs(ref)));
            if (!(e <= out->loss_err))
                out->loss_err = e;
        }
    }
}

/* ---- the suite ---- */

static const int check_cols[] = {1, 7, 17, 33, 1000, 1057, 3000};
enum { CHECK_ROWS = 10, CHECK_SEED = 20181805 };

static const char *path_name(softmax_path p)
{
    static const char *const names[SOFTMAX_NPATHS] = {"auto", "store", "online", "stream", "store_nt"};
    return names[p];
}

int softmax_check_variant(const softmax_variant *v, softmax_err *out, char *what, int len)
{
    softmax_err_init(out);
    if (what && len > 0)
        what[0] = 0;
    int ok = 1, maxc = 3000;
    size_t n = (size_t)CHECK_ROWS * maxc;
    float *x = malloc(n * sizeof(float)), *ybuf = malloc((n + 16) * sizeof(float));
    float *loss = malloc(CHECK_ROWS * sizeof(float));
    int *targets = malloc(CHECK_ROWS * sizeof(int));
    double m[CHECK_ROWS], s[CHECK_ROWS];
    RS_ASSERT(x && ybuf && loss && targets);
    int npaths = v->run_path || v->xent_path ? SOFTMAX_NPATHS : 1;
    for (int k = 0; k < SOFTMAX_NCHECK_INPUTS; k++) {
        if (k == SOFTMAX_IN_HUGE && !v->overflow_safe)
            continue;
        for (int ci = 0; ci < (int)(sizeof check_cols / sizeof check_cols[0]); ci++) {
            int cols = check_cols[ci];
            softmax_fill(x, 0, CHECK_ROWS, cols, (softmax_inputs)k, CHECK_SEED);
            softmax_fill_targets(targets, 0, CHECK_ROWS, cols, CHECK_SEED);
            softmax_ref_norms(x, CHECK_ROWS, cols, m, s);
            for (int p = 0; p < npaths; p++) {
                /* y off 64-byte alignment by 0..15 floats: the NT-store head path */
                float *y = ybuf + (cols + p) % 16;
                memset(y, 0xff, (size_t)CHECK_ROWS * cols * sizeof(float));  /* NaN fill */
                softmax_run(v, (softmax_path)p, x, targets, y, loss, CHECK_ROWS, cols);
                softmax_err e;
                softmax_compare(x, targets, y, loss, CHECK_ROWS, cols, v->xent != NULL, 1, m, s, &e);
                softmax_err_merge(out, &e);
                if (ok && !softmax_err_ok(&e)) {
                    ok = 0;
                    if (what)
                        snprintf(what, (size_t)len,
                                 "%s cols=%d path=%s: max_rel_err %.3g at row %ld col %ld "
                                 "(x=%.9g, got %.9g, want %.9g), row sums %.3g, loss %.3g",
                                 softmax_inputs_name((softmax_inputs)k), cols,
                                 path_name((softmax_path)p), e.max_rel_err, e.worst_row,
                                 e.worst_col,
                                 e.worst_row >= 0 ? (double)x[(size_t)e.worst_row * cols + e.worst_col] : 0.0,
                                 (double)e.worst_y, e.worst_ref, e.row_sum_err, e.loss_err);
                }
            }
        }
    }
    free(x);
    free(ybuf);
    free(loss);
    free(targets);
    return ok;
}
