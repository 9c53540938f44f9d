/* fuzz_json.c — fuzz target: the JSON reader (rs_json_parse, over cJSON) on any bytes,
 * then the lookups the tools make on what it returns (machine.json's dotted paths). */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char *text = fuzz_text(data, n);
    if (!text)
        return 0;
    rs_json *v = rs_json_parse(text);
    if (v) {
        (void)rs_json_num(v, "peak.fma.avx2.gflops_1t", 0);
        (void)rs_json_path(v, "meta.cpu");
        for (int i = 0; i < v->n; i++)
            (void)rs_json_get(v, v->keys ? v->keys[i] : "");
        rs_json_free(v);
    }
    free(text);
    return 0;
}
