/* fuzz_sizes.c — fuzz target: the `allreduce-bench --sizes FILE` reader (sizes_parse,
 * collectives/bench_sizes.c) on any bytes as the file's text, with the benchmark's cap
 * and a small one; what it returns must hold what the benchmark relies on. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench_sizes.h"
#include "check.h"
#include "fuzz_input.h"

/* A success gives 1..max distinct sizes in 0..2G; a failure one line. */
static void check_result(int rc, const long *sizes, int n, int max)
{
    if (rc != 0) {
        if (strchr(rs_lasterr(), '\n'))
            abort();
        return;
    }
    if (n < 1 || n > max)
        abort();
    for (int i = 0; i < n; i++) {
        if (sizes[i] < 0 || sizes[i] > SIZES_MAX_BYTES)
            abort();
        for (int j = 0; j < i; j++)
            if (sizes[i] == sizes[j])
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char *text = fuzz_text(data, n);
    if (!text)
        return 0;
    static const int caps[] = {64, 3};   /* allreduce-bench's MAX_SIZES, and "too many" */
    for (int c = 0; c < RS_ARRAY_LEN(caps); c++) {
        long sizes[64];
        int got = 0;
        int rc = sizes_parse(text, "fuzz.sizes", sizes, caps[c], &got);
        check_result(rc, sizes, got, caps[c]);
    }
    free(text);
    return 0;
}
