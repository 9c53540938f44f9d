/* registry.c — lookups over any rs_registry (registry.h): find by name and ISA, check
 * a --flag list against the names, join the names for a message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "opts.h"
#include "registry.h"

const void *rs_registry_row(const rs_registry *reg, int i)
{
    const char *at = (const char *)reg->rows + (size_t)i * reg->stride;
    return reg->indirect ? *(const void *const *)at : at;
}

const char *rs_registry_name(const rs_registry *reg, int i)
{
    return *(const char *const *)((const char *)rs_registry_row(reg, i) + reg->name_at);
}

rs_isa rs_registry_isa(const rs_registry *reg, int i)
{
    if (reg->isa_at < 0)
        return RS_ISA_PORTABLE;
    return *(const rs_isa *)((const char *)rs_registry_row(reg, i) + reg->isa_at);
}

const void *rs_registry_find(const rs_registry *reg, const char *name, int isa)
{
    for (int i = 0; i < reg->n; i++)
        if ((isa == RS_REGISTRY_ANY_ISA || rs_registry_isa(reg, i) == (rs_isa)isa) &&
            strcmp(rs_registry_name(reg, i), name) == 0)
            return rs_registry_row(reg, i);
    return NULL;
}

const void *rs_registry_first_supported(const rs_registry *reg)
{
    for (int i = 0; i < reg->n; i++)
        if (rs_isa_supported(rs_registry_isa(reg, i)))
            return rs_registry_row(reg, i);
    return NULL;
}

int rs_registry_check_list(const rs_registry *reg, const char *flag, const char *what,
                           const char *list)
{
    const char **names = malloc(sizeof(char *) * (size_t)(reg->n + 1));
    RS_CHECK(names, "out of memory");
    for (int i = 0; i < reg->n; i++)
        names[i] = rs_registry_name(reg, i);
    int rc = rs_list_check(flag, what, list, names, reg->n);
    free(names);
    return rc;
}

void rs_registry_names(const rs_registry *reg, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < reg->n && n < len; i++) {
        const char *name = rs_registry_name(reg, i);
        if (rs_registry_find(reg, name, RS_REGISTRY_ANY_ISA) != rs_registry_row(reg, i))
            continue;   /* a name repeated by rows per ISA is listed once */
        n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name);
    }
}
